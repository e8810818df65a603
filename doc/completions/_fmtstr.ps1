
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'fmtstr' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'fmtstr'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'fmtstr' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('hash', 'hash', [CompletionResultType]::ParameterValue, 'Print the 48-bit format-string ID of each STRING')
            [CompletionResult]::new('printf', 'printf', [CompletionResultType]::ParameterValue, 'Render FORMAT with ARGs exactly as C''s printf would (glibc''s output, byte for byte)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check FORMAT against the argument types of a printf call, as clang''s -Wformat does')
            [CompletionResult]::new('dump', 'dump', [CompletionResultType]::ParameterValue, 'Print the amdpal.format_strings table of PAL ELF files (HSA code objects'' amdhsa.printf, and the table SPIR-V modules'' DebugPrintf calls would get)')
            [CompletionResult]::new('embed', 'embed', [CompletionResultType]::ParameterValue, 'Add or replace amdpal.format_strings entries in a PAL ELF from a JSON table')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'The post-link step: fold BASE''s metadata notes into one and merge INPUTs'' tables into it')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes')
            [CompletionResult]::new('lower', 'lower', [CompletionResultType]::ParameterValue, 'Lower the printf calls of an LLVM IR module for a GPU target')
            [CompletionResult]::new('abi', 'abi', [CompletionResultType]::ParameterValue, 'Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Decode a GPU printf buffer into exactly the text C''s printf would have printed')
            [CompletionResult]::new('gaps', 'gaps', [CompletionResultType]::ParameterValue, 'Find the prints missing from the output of a run lowered with `fmtstr lower --prefix seq`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a completion script for SHELL on stdout (generated from fmtstr''s own options)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fmtstr;hash' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Take each STRING''s bytes literally instead of reading C escapes')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print a JSON array (schemas/hash.schema.json) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;printf' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Take FORMAT''s and the string arguments'' bytes literally instead of reading C escapes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;check' {
            [CompletionResult]::new('--args', '--args', [CompletionResultType]::ParameterName, 'Comma-separated argument types, in call order (leave out for a call with none)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print findings')
            [CompletionResult]::new('--dialect', '--dialect', [CompletionResultType]::ParameterName, 'Whose printf to check against: gpu (clang''s -Wformat plus what GPU printf cannot print; the default for a format), c (clang 19''s -Wformat for C on x86_64 Linux), opencl (clang 19''s for OpenCL C) or vvl (the Vulkan validation layers; the default for SPIR-V)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Take FORMAT''s bytes literally instead of reading C escapes')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The same as --format json')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;dump' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (schemas/dump.schema.json) instead of text')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Print the whole PAL metadata document of each file as JSON (msgpack values that JSON cannot hold are written as {"$bin": ...}, {"$ext": ...}, {"$map": [[key, value], ...]})')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;embed' {
            [CompletionResult]::new('--strings', '--strings', [CompletionResultType]::ParameterName, 'The JSON table to embed')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Replace the input file itself: what happens without -o too (say it in scripts, for the reader). The new file keeps the old one''s mode, owner and group; a symbolic link is followed and stays a link; a hard link is broken (the name gets a new file, as with `sed -i`). Two runs on one file take turns (an advisory lock, waited for 30 s at most)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace a file that you may not write (say, mode 444) when its directory allows it; without --force such a file is left as it is (exit 2)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;merge' {
            [CompletionResult]::new('--on-collision', '--on-collision', [CompletionResultType]::ParameterName, 'What to do when one ID has two different strings')
            [CompletionResult]::new('--on-key-difference', '--on-key-difference', [CompletionResultType]::ParameterName, 'What to do when BASE''s metadata notes disagree on a top-level key other than amdpal.format_strings (amdpal.pipelines, amdpal.version, ...)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--in-place', '--in-place', [CompletionResultType]::ParameterName, 'Replace the input file itself: what happens without -o too (say it in scripts, for the reader). The new file keeps the old one''s mode, owner and group; a symbolic link is followed and stays a link; a hard link is broken (the name gets a new file, as with `sed -i`). Two runs on one file take turns (an advisory lock, waited for 30 s at most)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace a file that you may not write (say, mode 444) when its directory allows it; without --force such a file is left as it is (exit 2)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;audit' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to print findings')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--verify-ids', '--verify-ids', [CompletionResultType]::ParameterName, 'Also report IDs that are not fmtstr''s 48-bit XXH3 hash of their string (IDs written by LLPC are opaque, so use this only for files fmtstr produced)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;lower' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Where to write the lowered module (`-` or absent: stdout). A file is replaced atomically, together with --emit-strings and --report-json: all are written, or none')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Where to write the lowered module (`-` or absent: stdout). A file is replaced atomically, together with --emit-strings and --report-json: all are written, or none')
            [CompletionResult]::new('--pass', '--pass', [CompletionResultType]::ParameterName, 'The pass to run')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'The GPU to lower printf for (struct-args is NVPTX only and needs none)')
            [CompletionResult]::new('--sm', '--sm', [CompletionResultType]::ParameterName, 'The SM version llc compiles for (-mcpu=sm_N); decides which atomics are native and whether a kernel parameter''s address can be taken in place (sm_70 and later)')
            [CompletionResult]::new('--stage', '--stage', [CompletionResultType]::ParameterName, 'amdgpu: lgc writes lgc.debug.printf calls (LLPC lowers them later); buffer writes the printf-buffer protocol itself and the amdpal.format_strings table')
            [CompletionResult]::new('--layout', '--layout', [CompletionResultType]::ParameterName, 'nvptx: natural packs arguments at their natural alignment, which is what the CUDA driver reads; slot32 gives every argument a 32-byte slot, a layout the CUDA driver does NOT read (for tools that expect it only)')
            [CompletionResult]::new('--buffer-addrspace', '--buffer-addrspace', [CompletionResultType]::ParameterName, 'amdgpu: the printf buffer''s address space. 7 (default) is a buffer fat pointer from LLPC''s descriptor set 0xFFFFFFF0 binding 6; any other N writes through a plain `ptr addrspace(N)` returned by `@__fmtstr_printf_buffer()` (1: global memory, for running the same protocol on NVIDIA GPUs or the host)')
            [CompletionResult]::new('--emit-strings', '--emit-strings', [CompletionResultType]::ParameterName, 'amdgpu --stage buffer: also write the format-string table as JSON, for `fmtstr embed --strings` (schemas/format-strings.schema.json)')
            [CompletionResult]::new('--lgc-form', '--lgc-form', [CompletionResultType]::ParameterName, 'amdgpu --stage lgc: which lgc.debug.printf to write. format-first (default) is today''s LLPC (since mid 2024), `(ptr @fmt, args...)`, which fetches the buffer itself; buffer-first is LLPC before mid 2024, `(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)`')
            [CompletionResult]::new('--user-data-offset', '--user-data-offset', [CompletionResultType]::ParameterName, 'amdgpu --stage buffer: the table''s .user_data_offset, the printf buffer''s user-data offset in dwords (LLPC writes the offset of its descriptor node, 0 when none). Default: the module''s table''s, else LLPC''s from the module''s !lgc.user.data.nodes, else 0; another value than the module''s table has is an error')
            [CompletionResult]::new('--runtime-strings', '--runtime-strings', [CompletionResultType]::ParameterName, 'amdgpu --stage buffer: a %s of a string computed at run time (not a literal) travels as a copy of its first N bytes (1 to 4096) in the entry: a length word, then N bytes rounded up to dwords, copied by a loop that stops at the NUL. `fmtstr decode` prints it as C would (width and precision included); a longer string is cut at N, and `decode --stats` counts the cuts. Every call of a format then copies that argument, literals too. Without it such a %s is refused')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'Who printed it: prefix every call''s format with the ids named, e.g. `block,thread` prints `[block 1,0,0 thread 5,0,0] ` first. Names: block (or workgroup): the block / workgroup id (nvptx %ctaid via llvm.nvvm.read.ptx.sreg.ctaid.*, amdgpu llvm.amdgcn.workgroup.id.*); thread (or local): the thread / work-item id in its group (%tid, llvm.amdgcn.workitem.id.*). The word printed is the name given, in the order given. site: where the call is, its !dbg `file:line:column` (the function''s name without debug information), written into the format when the module is lowered: no argument, no buffer byte (`--prefix site,thread` prints `[k.cu:7:5 thread 5,0,0] `). seq: `#N`, the next number of one 64-bit counter, the module''s global `fmtstr_printf_seq` (addrspace 1, reset by the host through its name), taken by an atomic add right before the call: `fmtstr gaps LOG` then names the prints a run lost. The prefix is part of the format string (and of the AMD table''s entry), so any printf runtime and decoder prints it')
            [CompletionResult]::new('--only', '--only', [CompletionResultType]::ParameterName, 'Only the threads this condition matches print: each call goes behind a branch on the ids, so the others run none of it (nvptx: no vprintf; amdgpu: no buffer space taken, nothing stored). Comparisons joined by &&: NAME.AXIS OP N (AXIS x, y or z; OP ==, !=, <, <=, >, >=, unsigned) or NAME==X,Y,Z / NAME!=X,Y,Z (all three axes), NAME as for --prefix: block (or workgroup), thread (or local). E.g. `thread.x==0`, `block==0,0,0`, `workgroup.y!=2 && local.x<4`. The arguments are still computed by every thread; --report counts the bytes of a matching thread')
            [CompletionResult]::new('--limit-per-site', '--limit-per-site', [CompletionResultType]::ParameterName, 'Each call site prints at most N times: the thread whose print is the first over the limit prints one line instead, `FILE:LINE: further output of this call dropped (limit N)`, and the others skip the print (nvptx: no vprintf; amdgpu: no buffer space, no stores). One i32 counter per site, in module order, in the global array `fmtstr_printf_site_counts` (addrspace 1): a host resets it through its name to let every site print N more. Works with --only and --prefix (not with --prefix seq)')
            [CompletionResult]::new('--report-json', '--report-json', [CompletionResultType]::ParameterName, 'The same report as JSON in FILE (schemas/lower-report.schema.json)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace output files that you may not write (say, mode 444) when their directory allows it; without --force such a file is left as it is (exit 2)')
            [CompletionResult]::new('--no-opt-byval', '--no-opt-byval', [CompletionResultType]::ParameterName, 'opt-byval off: byval parameters are left for llc, which copies those whose address escapes into local memory')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Print on stderr, for every lowered call, its file:line (the program source''s, from !dbg, else the .ll''s), its format and its payload (nvptx: the vprintf argument buffer''s bytes; amdgpu: the entry''s dwords, header included), and per function the bytes one thread writes per pass through all its calls: what to size cudaLimitPrintfFifoSize or the AMD printf buffer by')
            [CompletionResult]::new('--time-phases', '--time-phases', [CompletionResultType]::ParameterName, 'Print on stderr, once the output is written, how long each phase took (wall clock), as LLVM''s -time-passes does: read, parse, extract (finding and modelling the calls), plan (checking and laying out every call), apply (the edits), print+write (the module is printed straight into OUT), sync (waiting for OUT to reach the disk before it is renamed into place). A large nvptx module is lowered in shards, one thread each: extract and plan are then the slowest shard''s')
            [CompletionResult]::new('--Werror', '--Werror', [CompletionResultType]::ParameterName, 'Treat warnings as errors')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;abi' {
            [CompletionResult]::new('--sm', '--sm', [CompletionResultType]::ParameterName, 'The SM version llc compiles for (-mcpu=sm_N); decides which atomics are native and whether a kernel parameter''s address can be taken in place (sm_70 and later)')
            [CompletionResult]::new('--function', '--function', [CompletionResultType]::ParameterName, 'Only this function (by IR name, without @); repeat for more')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Compare the plan with the PTX llc wrote for IN (after the struct-args pass with the same setting) and report every difference')
            [CompletionResult]::new('--llc', '--llc', [CompletionResultType]::ParameterName, 'Whose llc the plan describes: LLVM 19''s or LLVM 22''s (they lower some parameters, return values, atomics and varargs differently; where 22''s lowering is not measured the plan says so in a finding). The output''s first line names it')
            [CompletionResult]::new('--triple', '--triple', [CompletionResultType]::ParameterName, 'The -mtriple llc was given, which replaces the module''s `target triple` (it decides the OpenCL spellings and whether llc expands `...`); without it, the module''s own. --check refuses (exit 2) PTX that shows another triple than the plan''s')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print the plan as JSON (schemas/abi.schema.json)')
            [CompletionResult]::new('--no-opt-byval', '--no-opt-byval', [CompletionResultType]::ParameterName, 'opt-byval off: byval parameters are left for llc, which copies those whose address escapes into local memory')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;decode' {
            [CompletionResult]::new('--elf', '--elf', [CompletionResultType]::ParameterName, 'A PAL ELF whose amdpal.format_strings table names the buffer''s IDs (repeat for several), or an HSA code object whose amdhsa.printf entries do')
            [CompletionResult]::new('--strings', '--strings', [CompletionResultType]::ParameterName, 'A JSON format-string table (repeat for several). When tables give one ID different strings, the first one given is used and a warning names both')
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Threads that render (default: all cores). Output is in buffer order either way')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Threads that render (default: all cores). Output is in buffer order either way')
            [CompletionResult]::new('--vprintf', '--vprintf', [CompletionResultType]::ParameterName, 'Render BUFFER as one CUDA vprintf argument buffer for FORMAT')
            [CompletionResult]::new('--sort', '--sort', [CompletionResultType]::ParameterName, 'prefix: sort the text by who printed it: the values of the prefix `fmtstr lower --prefix` put at the start of each entry (`[block 1,0,0 thread 5,0,0] `), as numbers in the order printed; a stable sort, so one thread''s lines keep buffer order. A line without a prefix stays with the prefixed line before it; lines before the first prefixed one come first')
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Print only the lines this regular expression (Rust regex syntax) matches, prefix included, e.g. --grep ''^\[block 0,0,0 thread 3,''. After --sort')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--strict', '--strict', [CompletionResultType]::ParameterName, 'Exit 1 when there is any warning (a marked entry, an overflow, a collision, ...)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Write one JSON object per entry (JSON Lines) instead of the text')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Write the number of entries and dwords per format ID, most dwords first, instead of the text (with --json: one JSON object). Needs no tables')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'With --vprintf: take FORMAT''s bytes literally instead of reading C escapes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;gaps' {
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'The module''s report (`fmtstr lower --report-json`), to size CUDA''s printf FIFO')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print JSON (schemas/gaps.schema.json) instead of text')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;completions' {
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'fmtstr;help' {
            [CompletionResult]::new('hash', 'hash', [CompletionResultType]::ParameterValue, 'Print the 48-bit format-string ID of each STRING')
            [CompletionResult]::new('printf', 'printf', [CompletionResultType]::ParameterValue, 'Render FORMAT with ARGs exactly as C''s printf would (glibc''s output, byte for byte)')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check FORMAT against the argument types of a printf call, as clang''s -Wformat does')
            [CompletionResult]::new('dump', 'dump', [CompletionResultType]::ParameterValue, 'Print the amdpal.format_strings table of PAL ELF files (HSA code objects'' amdhsa.printf, and the table SPIR-V modules'' DebugPrintf calls would get)')
            [CompletionResult]::new('embed', 'embed', [CompletionResultType]::ParameterValue, 'Add or replace amdpal.format_strings entries in a PAL ELF from a JSON table')
            [CompletionResult]::new('merge', 'merge', [CompletionResultType]::ParameterValue, 'The post-link step: fold BASE''s metadata notes into one and merge INPUTs'' tables into it')
            [CompletionResult]::new('audit', 'audit', [CompletionResultType]::ParameterValue, 'Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes')
            [CompletionResult]::new('lower', 'lower', [CompletionResultType]::ParameterValue, 'Lower the printf calls of an LLVM IR module for a GPU target')
            [CompletionResult]::new('abi', 'abi', [CompletionResultType]::ParameterValue, 'Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module')
            [CompletionResult]::new('decode', 'decode', [CompletionResultType]::ParameterValue, 'Decode a GPU printf buffer into exactly the text C''s printf would have printed')
            [CompletionResult]::new('gaps', 'gaps', [CompletionResultType]::ParameterValue, 'Find the prints missing from the output of a run lowered with `fmtstr lower --prefix seq`')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a completion script for SHELL on stdout (generated from fmtstr''s own options)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'fmtstr;help;hash' {
            break
        }
        'fmtstr;help;printf' {
            break
        }
        'fmtstr;help;check' {
            break
        }
        'fmtstr;help;dump' {
            break
        }
        'fmtstr;help;embed' {
            break
        }
        'fmtstr;help;merge' {
            break
        }
        'fmtstr;help;audit' {
            break
        }
        'fmtstr;help;lower' {
            break
        }
        'fmtstr;help;abi' {
            break
        }
        'fmtstr;help;decode' {
            break
        }
        'fmtstr;help;gaps' {
            break
        }
        'fmtstr;help;completions' {
            break
        }
        'fmtstr;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
