
use builtin;
use str;

set edit:completion:arg-completer[fmtstr] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'fmtstr'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'fmtstr'= {
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand hash 'Print the 48-bit format-string ID of each STRING'
            cand printf 'Render FORMAT with ARGs exactly as C''s printf would (glibc''s output, byte for byte)'
            cand check 'Check FORMAT against the argument types of a printf call, as clang''s -Wformat does'
            cand dump 'Print the amdpal.format_strings table of PAL ELF files (HSA code objects'' amdhsa.printf, and the table SPIR-V modules'' DebugPrintf calls would get)'
            cand embed 'Add or replace amdpal.format_strings entries in a PAL ELF from a JSON table'
            cand merge 'The post-link step: fold BASE''s metadata notes into one and merge INPUTs'' tables into it'
            cand audit 'Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes'
            cand lower 'Lower the printf calls of an LLVM IR module for a GPU target'
            cand abi 'Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module'
            cand decode 'Decode a GPU printf buffer into exactly the text C''s printf would have printed'
            cand gaps 'Find the prints missing from the output of a run lowered with `fmtstr lower --prefix seq`'
            cand completions 'Print a completion script for SHELL on stdout (generated from fmtstr''s own options)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fmtstr;hash'= {
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --raw 'Take each STRING''s bytes literally instead of reading C escapes'
            cand --json 'Print a JSON array (schemas/hash.schema.json) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;printf'= {
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --raw 'Take FORMAT''s and the string arguments'' bytes literally instead of reading C escapes'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;check'= {
            cand --args 'Comma-separated argument types, in call order (leave out for a call with none)'
            cand --format 'How to print findings'
            cand --dialect 'Whose printf to check against: gpu (clang''s -Wformat plus what GPU printf cannot print; the default for a format), c (clang 19''s -Wformat for C on x86_64 Linux), opencl (clang 19''s for OpenCL C) or vvl (the Vulkan validation layers; the default for SPIR-V)'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --raw 'Take FORMAT''s bytes literally instead of reading C escapes'
            cand --json 'The same as --format json'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;dump'= {
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --json 'Print JSON (schemas/dump.schema.json) instead of text'
            cand --all 'Print the whole PAL metadata document of each file as JSON (msgpack values that JSON cannot hold are written as {"$bin": ...}, {"$ext": ...}, {"$map": [[key, value], ...]})'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;embed'= {
            cand --strings 'The JSON table to embed'
            cand -o 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced'
            cand --output 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --in-place 'Replace the input file itself: what happens without -o too (say it in scripts, for the reader). The new file keeps the old one''s mode, owner and group; a symbolic link is followed and stays a link; a hard link is broken (the name gets a new file, as with `sed -i`). Two runs on one file take turns (an advisory lock, waited for 30 s at most)'
            cand --force 'Replace a file that you may not write (say, mode 444) when its directory allows it; without --force such a file is left as it is (exit 2)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;merge'= {
            cand --on-collision 'What to do when one ID has two different strings'
            cand --on-key-difference 'What to do when BASE''s metadata notes disagree on a top-level key other than amdpal.format_strings (amdpal.pipelines, amdpal.version, ...)'
            cand -o 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced'
            cand --output 'Write the result to OUT (through a temporary file and a rename) and leave the input as it is. Without -o, the input is replaced'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --in-place 'Replace the input file itself: what happens without -o too (say it in scripts, for the reader). The new file keeps the old one''s mode, owner and group; a symbolic link is followed and stays a link; a hard link is broken (the name gets a new file, as with `sed -i`). Two runs on one file take turns (an advisory lock, waited for 30 s at most)'
            cand --force 'Replace a file that you may not write (say, mode 444) when its directory allows it; without --force such a file is left as it is (exit 2)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;audit'= {
            cand --format 'How to print findings'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --verify-ids 'Also report IDs that are not fmtstr''s 48-bit XXH3 hash of their string (IDs written by LLPC are opaque, so use this only for files fmtstr produced)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;lower'= {
            cand -o 'Where to write the lowered module (`-` or absent: stdout). A file is replaced atomically, together with --emit-strings and --report-json: all are written, or none'
            cand --output 'Where to write the lowered module (`-` or absent: stdout). A file is replaced atomically, together with --emit-strings and --report-json: all are written, or none'
            cand --pass 'The pass to run'
            cand --target 'The GPU to lower printf for (struct-args is NVPTX only and needs none)'
            cand --sm 'The SM version llc compiles for (-mcpu=sm_N); decides which atomics are native and whether a kernel parameter''s address can be taken in place (sm_70 and later)'
            cand --stage 'amdgpu: lgc writes lgc.debug.printf calls (LLPC lowers them later); buffer writes the printf-buffer protocol itself and the amdpal.format_strings table'
            cand --layout 'nvptx: natural packs arguments at their natural alignment, which is what the CUDA driver reads; slot32 gives every argument a 32-byte slot, a layout the CUDA driver does NOT read (for tools that expect it only)'
            cand --buffer-addrspace 'amdgpu: the printf buffer''s address space. 7 (default) is a buffer fat pointer from LLPC''s descriptor set 0xFFFFFFF0 binding 6; any other N writes through a plain `ptr addrspace(N)` returned by `@__fmtstr_printf_buffer()` (1: global memory, for running the same protocol on NVIDIA GPUs or the host)'
            cand --emit-strings 'amdgpu --stage buffer: also write the format-string table as JSON, for `fmtstr embed --strings` (schemas/format-strings.schema.json)'
            cand --lgc-form 'amdgpu --stage lgc: which lgc.debug.printf to write. format-first (default) is today''s LLPC (since mid 2024), `(ptr @fmt, args...)`, which fetches the buffer itself; buffer-first is LLPC before mid 2024, `(ptr addrspace(7) %buf, ptr addrspace(4) @fmt, args...)`'
            cand --user-data-offset 'amdgpu --stage buffer: the table''s .user_data_offset, the printf buffer''s user-data offset in dwords (LLPC writes the offset of its descriptor node, 0 when none). Default: the module''s table''s, else LLPC''s from the module''s !lgc.user.data.nodes, else 0; another value than the module''s table has is an error'
            cand --runtime-strings 'amdgpu --stage buffer: a %s of a string computed at run time (not a literal) travels as a copy of its first N bytes (1 to 4096) in the entry: a length word, then N bytes rounded up to dwords, copied by a loop that stops at the NUL. `fmtstr decode` prints it as C would (width and precision included); a longer string is cut at N, and `decode --stats` counts the cuts. Every call of a format then copies that argument, literals too. Without it such a %s is refused'
            cand --prefix 'Who printed it: prefix every call''s format with the ids named, e.g. `block,thread` prints `[block 1,0,0 thread 5,0,0] ` first. Names: block (or workgroup): the block / workgroup id (nvptx %ctaid via llvm.nvvm.read.ptx.sreg.ctaid.*, amdgpu llvm.amdgcn.workgroup.id.*); thread (or local): the thread / work-item id in its group (%tid, llvm.amdgcn.workitem.id.*). The word printed is the name given, in the order given. site: where the call is, its !dbg `file:line:column` (the function''s name without debug information), written into the format when the module is lowered: no argument, no buffer byte (`--prefix site,thread` prints `[k.cu:7:5 thread 5,0,0] `). seq: `#N`, the next number of one 64-bit counter, the module''s global `fmtstr_printf_seq` (addrspace 1, reset by the host through its name), taken by an atomic add right before the call: `fmtstr gaps LOG` then names the prints a run lost. The prefix is part of the format string (and of the AMD table''s entry), so any printf runtime and decoder prints it'
            cand --only 'Only the threads this condition matches print: each call goes behind a branch on the ids, so the others run none of it (nvptx: no vprintf; amdgpu: no buffer space taken, nothing stored). Comparisons joined by &&: NAME.AXIS OP N (AXIS x, y or z; OP ==, !=, <, <=, >, >=, unsigned) or NAME==X,Y,Z / NAME!=X,Y,Z (all three axes), NAME as for --prefix: block (or workgroup), thread (or local). E.g. `thread.x==0`, `block==0,0,0`, `workgroup.y!=2 && local.x<4`. The arguments are still computed by every thread; --report counts the bytes of a matching thread'
            cand --limit-per-site 'Each call site prints at most N times: the thread whose print is the first over the limit prints one line instead, `FILE:LINE: further output of this call dropped (limit N)`, and the others skip the print (nvptx: no vprintf; amdgpu: no buffer space, no stores). One i32 counter per site, in module order, in the global array `fmtstr_printf_site_counts` (addrspace 1): a host resets it through its name to let every site print N more. Works with --only and --prefix (not with --prefix seq)'
            cand --report-json 'The same report as JSON in FILE (schemas/lower-report.schema.json)'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --force 'Replace output files that you may not write (say, mode 444) when their directory allows it; without --force such a file is left as it is (exit 2)'
            cand --no-opt-byval 'opt-byval off: byval parameters are left for llc, which copies those whose address escapes into local memory'
            cand --report 'Print on stderr, for every lowered call, its file:line (the program source''s, from !dbg, else the .ll''s), its format and its payload (nvptx: the vprintf argument buffer''s bytes; amdgpu: the entry''s dwords, header included), and per function the bytes one thread writes per pass through all its calls: what to size cudaLimitPrintfFifoSize or the AMD printf buffer by'
            cand --time-phases 'Print on stderr, once the output is written, how long each phase took (wall clock), as LLVM''s -time-passes does: read, parse, extract (finding and modelling the calls), plan (checking and laying out every call), apply (the edits), print+write (the module is printed straight into OUT), sync (waiting for OUT to reach the disk before it is renamed into place). A large nvptx module is lowered in shards, one thread each: extract and plan are then the slowest shard''s'
            cand --Werror 'Treat warnings as errors'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;abi'= {
            cand --sm 'The SM version llc compiles for (-mcpu=sm_N); decides which atomics are native and whether a kernel parameter''s address can be taken in place (sm_70 and later)'
            cand --function 'Only this function (by IR name, without @); repeat for more'
            cand --check 'Compare the plan with the PTX llc wrote for IN (after the struct-args pass with the same setting) and report every difference'
            cand --llc 'Whose llc the plan describes: LLVM 19''s or LLVM 22''s (they lower some parameters, return values, atomics and varargs differently; where 22''s lowering is not measured the plan says so in a finding). The output''s first line names it'
            cand --triple 'The -mtriple llc was given, which replaces the module''s `target triple` (it decides the OpenCL spellings and whether llc expands `...`); without it, the module''s own. --check refuses (exit 2) PTX that shows another triple than the plan''s'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --json 'Print the plan as JSON (schemas/abi.schema.json)'
            cand --no-opt-byval 'opt-byval off: byval parameters are left for llc, which copies those whose address escapes into local memory'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;decode'= {
            cand --elf 'A PAL ELF whose amdpal.format_strings table names the buffer''s IDs (repeat for several), or an HSA code object whose amdhsa.printf entries do'
            cand --strings 'A JSON format-string table (repeat for several). When tables give one ID different strings, the first one given is used and a warning names both'
            cand -j 'Threads that render (default: all cores). Output is in buffer order either way'
            cand --jobs 'Threads that render (default: all cores). Output is in buffer order either way'
            cand --vprintf 'Render BUFFER as one CUDA vprintf argument buffer for FORMAT'
            cand --sort 'prefix: sort the text by who printed it: the values of the prefix `fmtstr lower --prefix` put at the start of each entry (`[block 1,0,0 thread 5,0,0] `), as numbers in the order printed; a stable sort, so one thread''s lines keep buffer order. A line without a prefix stays with the prefixed line before it; lines before the first prefixed one come first'
            cand --grep 'Print only the lines this regular expression (Rust regex syntax) matches, prefix included, e.g. --grep ''^\[block 0,0,0 thread 3,''. After --sort'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --strict 'Exit 1 when there is any warning (a marked entry, an overflow, a collision, ...)'
            cand --json 'Write one JSON object per entry (JSON Lines) instead of the text'
            cand --stats 'Write the number of entries and dwords per format ID, most dwords first, instead of the text (with --json: one JSON object). Needs no tables'
            cand --raw 'With --vprintf: take FORMAT''s bytes literally instead of reading C escapes'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;gaps'= {
            cand --report 'The module''s report (`fmtstr lower --report-json`), to size CUDA''s printf FIFO'
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand --json 'Print JSON (schemas/gaps.schema.json) instead of text'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;completions'= {
            cand --color 'When to color diagnostics (stderr, and audit''s text findings): auto (only on a terminal, never when NO_COLOR is set, always when CLICOLOR_FORCE is), always, never'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'fmtstr;help'= {
            cand hash 'Print the 48-bit format-string ID of each STRING'
            cand printf 'Render FORMAT with ARGs exactly as C''s printf would (glibc''s output, byte for byte)'
            cand check 'Check FORMAT against the argument types of a printf call, as clang''s -Wformat does'
            cand dump 'Print the amdpal.format_strings table of PAL ELF files (HSA code objects'' amdhsa.printf, and the table SPIR-V modules'' DebugPrintf calls would get)'
            cand embed 'Add or replace amdpal.format_strings entries in a PAL ELF from a JSON table'
            cand merge 'The post-link step: fold BASE''s metadata notes into one and merge INPUTs'' tables into it'
            cand audit 'Audit PAL ELFs, HSA code objects and SPIR-V modules for format-string collisions and mistakes'
            cand lower 'Lower the printf calls of an LLVM IR module for a GPU target'
            cand abi 'Print the PTX parameter plan that llc 22 or 19 (-march=nvptx64) makes for an LLVM IR module'
            cand decode 'Decode a GPU printf buffer into exactly the text C''s printf would have printed'
            cand gaps 'Find the prints missing from the output of a run lowered with `fmtstr lower --prefix seq`'
            cand completions 'Print a completion script for SHELL on stdout (generated from fmtstr''s own options)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'fmtstr;help;hash'= {
        }
        &'fmtstr;help;printf'= {
        }
        &'fmtstr;help;check'= {
        }
        &'fmtstr;help;dump'= {
        }
        &'fmtstr;help;embed'= {
        }
        &'fmtstr;help;merge'= {
        }
        &'fmtstr;help;audit'= {
        }
        &'fmtstr;help;lower'= {
        }
        &'fmtstr;help;abi'= {
        }
        &'fmtstr;help;decode'= {
        }
        &'fmtstr;help;gaps'= {
        }
        &'fmtstr;help;completions'= {
        }
        &'fmtstr;help;help'= {
        }
    ]
    $completions[$command]
}
