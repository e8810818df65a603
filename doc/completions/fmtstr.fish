# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_fmtstr_global_optspecs
    string join \n color= h/help V/version
end

function __fish_fmtstr_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_fmtstr_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_fmtstr_using_subcommand
    set -l cmd (__fish_fmtstr_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c fmtstr -n "__fish_fmtstr_needs_command" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -s V -l version -d 'Print version'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "hash" -d 'Print the 48-bit format-string ID of each STRING'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "printf" -d 'Render FORMAT with ARGs exactly as C\'s printf would (glibc\'s output, byte for byte)'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "check" -d 'Check FORMAT against the argument types of a printf call, as clang\'s -Wformat does'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "dump" -d 'Print the amdpal.format_strings table of PAL ELF files (HSA code objects\' amdhsa.printf, and the table SPIR-V modules\' DebugPrintf calls would get)'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "embed" -d 'Add or replace amdpal.format_strings entries in a PAL ELF from a JSON table'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "merge" -d 'The post-link step: fold BASE\'s metadata notes into one and merge INPUTs\' tables into it'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "audit" -d 'Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "lower" -d 'Lower the printf calls of an LLVM IR module for a GPU target'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "abi" -d 'Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "decode" -d 'Decode a GPU printf buffer into exactly the text C\'s printf would have printed'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "gaps" -d 'Find the prints missing from the output of a run lowered with `fmtstr lower --prefix seq`'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "completions" -d 'Print a completion script for SHELL on stdout (generated from fmtstr\'s own options)'
complete -c fmtstr -n "__fish_fmtstr_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand hash" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand hash" -l raw -d 'Take each STRING\'s bytes literally instead of reading C escapes'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand hash" -l json -d 'Print a JSON array (schemas/hash.schema.json) instead of text'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand hash" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand printf" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand printf" -l raw -d 'Take FORMAT\'s and the string arguments\' bytes literally instead of reading C escapes'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand printf" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand check" -l args -d 'Comma-separated argument types, in call order (leave out for a call with none)' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand check" -l format -d 'How to print findings' -r -f -a "text\t'clang-style diagnostics on stderr'
json\t'One JSON report on stdout (schemas/check.schema.json; check-spirv.schema.json for a SPIR-V module)'
sarif\t'A SARIF 2.1.0 log on stdout, for GitHub code scanning and other CI systems'"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand check" -l dialect -d 'Whose printf to check against: gpu (clang\'s -Wformat plus what GPU printf cannot print; the default for a format), c (clang 19\'s -Wformat for C on x86_64 Linux), opencl (clang 19\'s for OpenCL C) or vvl (the Vulkan validation layers; the default for SPIR-V)' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand check" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand check" -l raw -d 'Take FORMAT\'s bytes literally instead of reading C escapes'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand check" -l json -d 'The same as --format json'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand dump" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand dump" -l json -d 'Print JSON (schemas/dump.schema.json) instead of text'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand dump" -l all -d 'Print the whole PAL metadata document of each file as JSON (msgpack values that JSON cannot hold are written as {"$bin": ...}, {"$ext": ...}, {"$map": [[key, value], ...]})'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand dump" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand embed" -l strings -d 'The JSON table to embed' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand embed" -s o -l output -d 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand embed" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand embed" -l in-place -d 'Replace the input file itself: what happens without -o too (say it in scripts, for the reader). The new file keeps the old one\'s mode, owner and group; a symbolic link is followed and stays a link; a hard link is broken (the name gets a new file, as with `sed -i`). Two runs on one file take turns (an advisory lock, waited for 30 s at most)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand embed" -l force -d 'Replace a file that you may not write (say, mode 444) when its directory allows it; without --force such a file is left as it is (exit 2)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand embed" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand merge" -l on-collision -d 'What to do when one ID has two different strings' -r -f -a "error\t'Report the collision and write nothing (exit 1)'
keep-first\t'Keep the entry seen first (BASE before the inputs) and warn'"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand merge" -l on-key-difference -d 'What to do when BASE\'s metadata notes disagree on a top-level key other than amdpal.format_strings (amdpal.pipelines, amdpal.version, ...)' -r -f -a "error\t'Name the key and both notes, and write nothing (exit 2)'
keep-base\t'Keep the first note\'s value (or lack of the key) and warn'"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand merge" -s o -l output -d 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand merge" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand merge" -l in-place -d 'Replace the input file itself: what happens without -o too (say it in scripts, for the reader). The new file keeps the old one\'s mode, owner and group; a symbolic link is followed and stays a link; a hard link is broken (the name gets a new file, as with `sed -i`). Two runs on one file take turns (an advisory lock, waited for 30 s at most)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand merge" -l force -d 'Replace a file that you may not write (say, mode 444) when its directory allows it; without --force such a file is left as it is (exit 2)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand merge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand audit" -l format -d 'How to print findings' -r -f -a "text\t'`FILE: error: KIND: message`, then a summary line'
json\t'One JSON report (schemas/audit.schema.json)'
github\t'GitHub Actions workflow commands: `::error file=FILE,title=...::message`'
sarif\t'A SARIF 2.1.0 log, for GitHub code scanning and other CI systems: one rule per kind of finding, each finding an error at its file (and the bytes of its metadata note, where the finding is about an entry)'"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand audit" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand audit" -l verify-ids -d 'Also report IDs that are not fmtstr\'s 48-bit XXH3 hash of their string (IDs written by LLPC are opaque, so use this only for files fmtstr produced)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand audit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -s o -l output -d 'Where to write the lowered module (`-` or absent: stdout). A file is replaced atomically, together with --emit-strings and --report-json: all are written, or none' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l pass -d 'The pass to run' -r -f -a "printf\t'printf calls lowered for --target'
assert\t'printf calls lowered for --target, and before them every failed assert() (__assert_fail from glibc\'s assert.h, __assertfail from CUDA\'s) made a printf of glibc\'s message, `file:line: function: Assertion `expr\' failed.`, then a trap; the other options (--prefix, --only, --limit-per-site) apply to it as to any printf'
strip\t'every printf and lgc.debug.printf call removed, for a release build: a used result becomes 0 with a warning, argument side effects stay, printf\'s declaration goes when unused, every other line is kept; needs no --target'
struct-args\t'NVPTX byval aggregate parameters read in place from the parameter space'"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l target -d 'The GPU to lower printf for (struct-args is NVPTX only and needs none)' -r -f -a "nvptx\t''
amdgpu\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l sm -d 'The SM version llc compiles for (-mcpu=sm_N); decides which atomics are native and whether a kernel parameter\'s address can be taken in place (sm_70 and later)' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l stage -d 'amdgpu: lgc writes lgc.debug.printf calls (LLPC lowers them later); buffer writes the printf-buffer protocol itself and the amdpal.format_strings table' -r -f -a "lgc\t''
buffer\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l layout -d 'nvptx: natural packs arguments at their natural alignment, which is what the CUDA driver reads; slot32 gives every argument a 32-byte slot, a layout the CUDA driver does NOT read (for tools that expect it only)' -r -f -a "natural\t''
slot32\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l buffer-addrspace -d 'amdgpu: the printf buffer\'s address space. 7 (default) is a buffer fat pointer from LLPC\'s descriptor set 0xFFFFFFF0 binding 6; any other N writes through a plain `ptr addrspace(N)` returned by `@__fmtstr_printf_buffer()` (1: global memory, for running the same protocol on NVIDIA GPUs or the host)' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l emit-strings -d 'amdgpu --stage buffer: also write the format-string table as JSON, for `fmtstr embed --strings` (schemas/format-strings.schema.json)' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l lgc-form -d 'amdgpu --stage lgc: which lgc.debug.printf to write. format-first (default) is today\'s LLPC (since mid 2024), `(ptr @fmt, args...)`, which fetches the buffer itself; buffer-first is LLPC before mid 2024, `(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)`' -r -f -a "format-first\t'`lgc.debug.printf(ptr @fmt, args...)`: LLPC since mid 2024'
buffer-first\t'`lgc.debug.printf(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)`: before'"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l user-data-offset -d 'amdgpu --stage buffer: the table\'s .user_data_offset, the printf buffer\'s user-data offset in dwords (LLPC writes the offset of its descriptor node, 0 when none). Default: the module\'s table\'s, else LLPC\'s from the module\'s !lgc.user.data.nodes, else 0; another value than the module\'s table has is an error' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l runtime-strings -d 'amdgpu --stage buffer: a %s of a string computed at run time (not a literal) travels as a copy of its first N bytes (1 to 4096) in the entry: a length word, then N bytes rounded up to dwords, copied by a loop that stops at the NUL. `fmtstr decode` prints it as C would (width and precision included); a longer string is cut at N, and `decode --stats` counts the cuts. Every call of a format then copies that argument, literals too. Without it such a %s is refused' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l prefix -d 'Who printed it: prefix every call\'s format with the ids named, e.g. `block,thread` prints `[block 1,0,0 thread 5,0,0] ` first. Names: block (or workgroup): the block / workgroup id (nvptx %ctaid via llvm.nvvm.read.ptx.sreg.ctaid.*, amdgpu llvm.amdgcn.workgroup.id.*); thread (or local): the thread / work-item id in its group (%tid, llvm.amdgcn.workitem.id.*). The word printed is the name given, in the order given. site: where the call is, its !dbg `file:line:column` (the function\'s name without debug information), written into the format when the module is lowered: no argument, no buffer byte (`--prefix site,thread` prints `[k.cu:7:5 thread 5,0,0] `). seq: `#N`, the next number of one 64-bit counter, the module\'s global `fmtstr_printf_seq` (addrspace 1, reset by the host through its name), taken by an atomic add right before the call: `fmtstr gaps LOG` then names the prints a run lost. The prefix is part of the format string (and of the AMD table\'s entry), so any printf runtime and decoder prints it' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l only -d 'Only the threads this condition matches print: each call goes behind a branch on the ids, so the others run none of it (nvptx: no vprintf; amdgpu: no buffer space taken, nothing stored). Comparisons joined by &&: NAME.AXIS OP N (AXIS x, y or z; OP ==, !=, <, <=, >, >=, unsigned) or NAME==X,Y,Z / NAME!=X,Y,Z (all three axes), NAME as for --prefix: block (or workgroup), thread (or local). E.g. `thread.x==0`, `block==0,0,0`, `workgroup.y!=2 && local.x<4`. The arguments are still computed by every thread; --report counts the bytes of a matching thread' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l limit-per-site -d 'Each call site prints at most N times: the thread whose print is the first over the limit prints one line instead, `FILE:LINE: further output of this call dropped (limit N)`, and the others skip the print (nvptx: no vprintf; amdgpu: no buffer space, no stores). One i32 counter per site, in module order, in the global array `fmtstr_printf_site_counts` (addrspace 1): a host resets it through its name to let every site print N more. Works with --only and --prefix (not with --prefix seq)' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l report-json -d 'The same report as JSON in FILE (schemas/lower-report.schema.json)' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l force -d 'Replace output files that you may not write (say, mode 444) when their directory allows it; without --force such a file is left as it is (exit 2)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l no-opt-byval -d 'opt-byval off: byval parameters are left for llc, which copies those whose address escapes into local memory'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l report -d 'Print on stderr, for every lowered call, its file:line (the program source\'s, from !dbg, else the .ll\'s), its format and its payload (nvptx: the vprintf argument buffer\'s bytes; amdgpu: the entry\'s dwords, header included), and per function the bytes one thread writes per pass through all its calls: what to size cudaLimitPrintfFifoSize or the AMD printf buffer by'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l time-phases -d 'Print on stderr, once the output is written, how long each phase took (wall clock), as LLVM\'s -time-passes does: read, parse, extract (finding and modelling the calls), plan (checking and laying out every call), apply (the edits), print+write (the module is printed straight into OUT), sync (waiting for OUT to reach the disk before it is renamed into place). A large nvptx module is lowered in shards, one thread each: extract and plan are then the slowest shard\'s'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -l Werror -d 'Treat warnings as errors'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand lower" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l sm -d 'The SM version llc compiles for (-mcpu=sm_N); decides which atomics are native and whether a kernel parameter\'s address can be taken in place (sm_70 and later)' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l function -d 'Only this function (by IR name, without @); repeat for more' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l check -d 'Compare the plan with the PTX llc wrote for IN (after the struct-args pass with the same setting) and report every difference' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l llc -d 'Whose llc the plan describes: LLVM 19\'s or LLVM 22\'s (they lower some parameters, return values, atomics and varargs differently; where 22\'s lowering is not measured the plan says so in a finding). The output\'s first line names it' -r -f -a "19\t''
22\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l triple -d 'The -mtriple llc was given, which replaces the module\'s `target triple` (it decides the OpenCL spellings and whether llc expands `...`); without it, the module\'s own. --check refuses (exit 2) PTX that shows another triple than the plan\'s' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l json -d 'Print the plan as JSON (schemas/abi.schema.json)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -l no-opt-byval -d 'opt-byval off: byval parameters are left for llc, which copies those whose address escapes into local memory'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand abi" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l elf -d 'A PAL ELF whose amdpal.format_strings table names the buffer\'s IDs (repeat for several), or an HSA code object whose amdhsa.printf entries do' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l strings -d 'A JSON format-string table (repeat for several). When tables give one ID different strings, the first one given is used and a warning names both' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -s j -l jobs -d 'Threads that render (default: all cores). Output is in buffer order either way' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l vprintf -d 'Render BUFFER as one CUDA vprintf argument buffer for FORMAT' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l sort -d 'prefix: sort the text by who printed it: the values of the prefix `fmtstr lower --prefix` put at the start of each entry (`[block 1,0,0 thread 5,0,0] `), as numbers in the order printed; a stable sort, so one thread\'s lines keep buffer order. A line without a prefix stays with the prefixed line before it; lines before the first prefixed one come first' -r -f -a "prefix\t'The values of the `--prefix` each entry starts with'"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l grep -d 'Print only the lines this regular expression (Rust regex syntax) matches, prefix included, e.g. --grep \'^\\[block 0,0,0 thread 3,\'. After --sort' -r
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l strict -d 'Exit 1 when there is any warning (a marked entry, an overflow, a collision, ...)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l json -d 'Write one JSON object per entry (JSON Lines) instead of the text'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l stats -d 'Write the number of entries and dwords per format ID, most dwords first, instead of the text (with --json: one JSON object). Needs no tables'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -l raw -d 'With --vprintf: take FORMAT\'s bytes literally instead of reading C escapes'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand decode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand gaps" -l report -d 'The module\'s report (`fmtstr lower --report-json`), to size CUDA\'s printf FIFO' -r -F
complete -c fmtstr -n "__fish_fmtstr_using_subcommand gaps" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand gaps" -l json -d 'Print JSON (schemas/gaps.schema.json) instead of text'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand gaps" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand completions" -l color -d 'When to color diagnostics (stderr, and audit\'s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never' -r -f -a "auto\t''
always\t''
never\t''"
complete -c fmtstr -n "__fish_fmtstr_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "hash" -d 'Print the 48-bit format-string ID of each STRING'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "printf" -d 'Render FORMAT with ARGs exactly as C\'s printf would (glibc\'s output, byte for byte)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "check" -d 'Check FORMAT against the argument types of a printf call, as clang\'s -Wformat does'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "dump" -d 'Print the amdpal.format_strings table of PAL ELF files (HSA code objects\' amdhsa.printf, and the table SPIR-V modules\' DebugPrintf calls would get)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "embed" -d 'Add or replace amdpal.format_strings entries in a PAL ELF from a JSON table'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "merge" -d 'The post-link step: fold BASE\'s metadata notes into one and merge INPUTs\' tables into it'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "audit" -d 'Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "lower" -d 'Lower the printf calls of an LLVM IR module for a GPU target'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "abi" -d 'Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "decode" -d 'Decode a GPU printf buffer into exactly the text C\'s printf would have printed'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "gaps" -d 'Find the prints missing from the output of a run lowered with `fmtstr lower --prefix seq`'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "completions" -d 'Print a completion script for SHELL on stdout (generated from fmtstr\'s own options)'
complete -c fmtstr -n "__fish_fmtstr_using_subcommand help; and not __fish_seen_subcommand_from hash printf check dump embed merge audit lower abi decode gaps completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
