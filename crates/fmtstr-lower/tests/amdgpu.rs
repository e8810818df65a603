//! The AMD back ends: `lgc.debug.printf` (stage lgc) and the printf-buffer protocol (stage
//! buffer), judged by llvm-as and llc (gfx1100, PAL), and the PAL metadata they leave.

mod common;

use common::{
    assert_llvm_as, assert_ptxas, clang_ir, clang_ir_with, llc_amdpal, llc_amdpal_with, llc_ptx,
    lower_err, lower_ok, sample, sample_text, show,
};
use fmtstr_elf::Document;
use fmtstr_ir::Module;
use fmtstr_lower::amdgpu::buffer::PAL_METADATA;
use fmtstr_lower::{LgcForm, Options, Stage, Target};
use fmtstr_meta::{FormatId, Mask};
use fmtstr_oracles::Llvm;

const AMD_DL: &str = "target datalayout = \"e-p:64:64-p1:64:64-p2:32:32-p3:32:32-p4:64:64-p5:32:32-p6:32:32-p7:160:256:256:32-p8:128:128-p9:192:256:256:32-i64:64-v16:16-v24:32-v32:32-v48:64-v96:128-v192:256-v256:256-v512:512-v1024:1024-v2048:2048-n32:64-S32-A5-G1-ni:7:8:9\"\ntarget triple = \"amdgcn--amdpal\"\n";

fn lgc() -> Options {
    Options::new(Target::amdgpu(Stage::Lgc))
}

/// Stage lgc writing LLPC's older form, the buffer first.
fn lgc_buffer_first() -> Options {
    let Target::Amdgpu {
        stage,
        buffer_addrspace,
        user_data_offset,
        ..
    } = Target::amdgpu(Stage::Lgc)
    else {
        unreachable!()
    };
    Options::new(Target::Amdgpu {
        stage,
        buffer_addrspace,
        lgc_form: LgcForm::BufferFirst,
        user_data_offset,
    })
}

fn buffer() -> Options {
    Options::new(Target::amdgpu(Stage::Buffer))
}

/// The PAL metadata document a lowered module carries.
fn pal_document(out: &str) -> Vec<u8> {
    let module = Module::parse("out.ll", out).unwrap();
    let nodes = module.named_metadata(PAL_METADATA).expect("PAL metadata");
    let tuple = module.md_node(nodes[0]);
    let Some(fmtstr_ir::MdOperand::Node(string)) = tuple.operands().next() else {
        panic!("not !{{!\"...\"}}")
    };
    module.md_node(string).string().unwrap()
}

#[test]
fn stage_lgc_writes_todays_form_by_default() {
    let Some(ir) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok("printf.c.ll", &ir, lgc());
    assert_eq!(lowered.calls, 9);
    assert!(out.contains("declare void @lgc.debug.printf(...)"), "{out}");
    // No buffer: LLPC fetches it from the descriptor itself.
    assert!(!out.contains("lgc.load.buffer.desc"), "{out}");
    assert!(!out.contains("%printfBuffer"), "{out}");
    // clang's whole NUL-terminated addrspace(4) constants are passed as they are.
    assert!(
        out.contains(
            "call void (...) @lgc.debug.printf(ptr addrspace(4) @.str, i32 %0, double %8)"
        ),
        "{out}"
    );
    assert!(!out.contains("@printf"));
    // LLPC lowers this form next: fmtstr's own buffer stage reads it, and llc compiles that.
    assert_llvm_as("printf.c.lgc.ll", &out);
    let (buffered, again) = lower_ok("printf.c.lgc.ll", &out, buffer());
    assert_eq!(again.calls, 9);
    assert_eq!(again.strings.unwrap().entries.len(), 9);
    llc_amdpal("printf.c.lgc.ll", &buffered, false);
}

#[test]
fn stage_lgc_buffer_first_writes_the_older_form() {
    let Some(ir) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok("printf.c.ll", &ir, lgc_buffer_first());
    assert_eq!(lowered.calls, 9);
    assert!(out.contains("declare void @lgc.debug.printf(...)"), "{out}");
    assert!(out.contains("declare ptr addrspace(7) @lgc.load.buffer.desc(i64, i32, i32, i32)"));
    // One descriptor load per function, first in its entry block.
    assert_eq!(
        out.matches("%printfBuffer = call ptr addrspace(7) @lgc.load.buffer.desc(i64 4294967280, i32 6, i32 0, i32 2)").count(),
        3,
        "{out}"
    );
    assert!(out.contains("call void (...) @lgc.debug.printf(ptr addrspace(7) %printfBuffer, ptr addrspace(4) @.str, i32 %0, double %8)"), "{out}");
    // printf's result has no counterpart: its uses become 0, with a warning.
    assert!(show(&lowered.warnings).contains("[-Wprintf-result]"));
    assert!(out.contains("ptr addrspace(4) @.str.6, i32 0)"), "{out}");
    assert!(!out.contains("@printf"));
}

#[test]
fn stage_lgc_moves_formats_into_the_constant_address_space() {
    // A string in address space 0 (explicit: this layout's default for globals is 1), and a
    // pointer into the middle of an addrspace(4) string: both move to a new addrspace(4)
    // constant holding exactly the format, one per distinct string.
    let text = format!(
        "{AMD_DL}\n@.str = private unnamed_addr addrspace(0) constant [6 x i8] c\"xx%d\\0A\\00\", align 1\n\
         @.str4 = private unnamed_addr addrspace(4) constant [6 x i8] c\"yy%d\\0A\\00\", align 1\n\
         define amdgpu_cs void @main(i8 %c) {{\n  %r = call i32 (ptr, ...) @printf(ptr getelementptr inbounds ([6 x i8], ptr @.str, i64 0, i64 2), i8 %c)\n  \
         %s = call i32 (ptr, ...) @printf(ptr addrspacecast (ptr addrspace(4) getelementptr inbounds ([6 x i8], ptr addrspace(4) @.str4, i64 0, i64 2) to ptr), i8 %c)\n  ret void\n}}\n\
         declare i32 @printf(ptr, ...)\n"
    );
    let (out, _) = lower_ok("move.ll", &text, lgc_buffer_first());
    assert!(
        out.contains("@.str.1 = private unnamed_addr addrspace(4) constant [4 x i8] c\"%d\\0A\\00\", align 1"),
        "{out}"
    );
    assert!(!out.contains("@.str ="), "the old global stays:\n{out}");
    assert!(!out.contains("@.str4 ="), "the old global stays:\n{out}");
    assert_eq!(
        out.matches("ptr addrspace(4) @.str.1, i32 %sext").count(),
        2,
        "{out}"
    );
    assert!(
        out.contains("%sext = sext i8 %c to i32"),
        "C promotion of %d:\n{out}"
    );
}

#[test]
fn strings_cannot_travel_through_the_amd_protocol() {
    let Some(ir) = clang_ir(&sample("strings.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    for options in [lgc(), buffer()] {
        let failed = lower_err("strings.c.ll", &ir, options);
        let message = show(&failed.diagnostics);
        // The lgc stage carries no strings at all; the buffer stage interns literals only.
        assert!(
            message.contains("error: argument 1 `%s`") && message.contains("cannot travel"),
            "{message}"
        );
    }
}

#[test]
fn stage_buffer_from_lgc_debug_printf_compiles_and_carries_its_table() {
    let (out, lowered) = lower_ok("lgc.ll", &sample_text("lgc.ll"), buffer());
    let table = lowered.strings.expect("a table");
    let expected = [
        ("the arg: %i", 1, 0u64),
        // <4 x float>, half->float, i8 zext, double: bit 3.
        ("v=%v4hlf h=%f c=%hhu d=%f\n", 4, 0b1000),
        ("id %llu of %u\n", 2, 0b1),
    ];
    assert_eq!(table.entries.len(), expected.len());
    for (entry, (string, count, mask)) in table.entries.iter().zip(expected) {
        assert_eq!(entry.string(), string);
        assert_eq!(entry.id(), FormatId::of(string.as_bytes()));
        assert_eq!(entry.argument_count(), count);
        assert!(
            entry.mask().same_bits(&Mask::from_words(&[mask])),
            "{string}"
        );
    }
    // Entry sizes: 2 + 1; 2 + 4 + 1 + 1 + 2; 2 + 2 + 1.
    for size in [3, 10, 5] {
        assert!(
            out.contains(&format!(
                "atomicrmw add ptr addrspace(7) %printfBuffer, i64 {size} monotonic"
            )),
            "{out}"
        );
    }
    assert_eq!(
        out.matches("call i64 @llvm.umin.i64(i64 %printf.offset")
            .count(),
        3
    );
    assert!(
        out.contains("store <4 x float> %v, ptr addrspace(7) %printf.slot"),
        "{out}"
    );
    assert!(out.contains("%fpext = fpext half %h to float"));
    assert!(out.contains("%zext = zext i8 %c to i32"));
    assert!(
        out.contains("%zext1 = zext i16 %n to i32"),
        "lgc arguments zero-extend:\n{out}"
    );
    // The header: size | ID << 16, low dword first.
    let id = FormatId::of(b"the arg: %i").get();
    let low = (3 | (id & 0xFFFF) << 16) as u32 as i32;
    let high = (id >> 16) as u32 as i32;
    assert!(
        out.contains(&format!(
            "i32 4\n  store i32 {low}, ptr addrspace(7) %printf.slot, align 4\n"
        )),
        "{out}"
    );
    assert!(
        out.contains(&format!("i32 5\n  store i32 {high}, ")),
        "{out}"
    );
    assert!(!out.contains("@lgc.debug.printf"), "{out}");
    assert!(!out.contains("@debugString"), "{out}");
    // The table in the module is exactly the one returned.
    let document = pal_document(&out);
    let document = Document::parse(&document).unwrap();
    assert_eq!(document.format_strings().unwrap().entries.len(), 3);

    if let Some(asm) = llc_amdpal("lgc.ll", &out, true) {
        let asm = String::from_utf8(asm).unwrap();
        assert_eq!(asm.matches("buffer_atomic_add_u64").count(), 3, "{asm}");
    }
    llc_amdpal("lgc.ll", &out, false);
}

#[test]
fn stage_buffer_from_clang_printf_compiles() {
    let Some(ir) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok("printf.c.ll", &ir, buffer());
    assert_eq!(lowered.strings.unwrap().entries.len(), 9);
    assert_eq!(
        out.matches("@lgc.load.buffer.desc(i64 4294967280").count(),
        3
    );
    if let Some(asm) = llc_amdpal("printf.c.ll", &out, true) {
        assert!(String::from_utf8(asm)
            .unwrap()
            .contains("buffer_atomic_add_u64"));
    }
}

#[test]
fn the_table_merges_into_the_pal_document_already_there() {
    let existing = fmtstr_meta::Table {
        entries: vec![fmtstr_meta::Entry::for_format(
            "old %d\n",
            1,
            Mask::for_arguments(1, []),
        )],
        ..Default::default()
    };
    let mut document = Vec::new();
    // { "amdpal.version": [3, 0], "amdpal.format_strings": {...}, "x.unknown": "kept" }
    fmtstr_meta::msgpack::write_map_len(&mut document, 3);
    fmtstr_meta::msgpack::write_str(&mut document, b"amdpal.version");
    fmtstr_meta::msgpack::write_array_len(&mut document, 2);
    fmtstr_meta::msgpack::write_uint(&mut document, 3);
    fmtstr_meta::msgpack::write_uint(&mut document, 0);
    fmtstr_meta::msgpack::write_str(&mut document, b"amdpal.format_strings");
    existing.encode(&mut document);
    fmtstr_meta::msgpack::write_str(&mut document, b"x.unknown");
    fmtstr_meta::msgpack::write_str(&mut document, b"kept");
    let escaped: String = document.iter().map(|b| format!("\\{b:02X}")).collect();
    let text = format!(
        "{AMD_DL}\n@.str = private unnamed_addr addrspace(4) constant [6 x i8] c\"x=%d\\0A\\00\", align 1\n\
         define amdgpu_cs void @main(i32 %x) {{\n  %r = call i32 (ptr, ...) @printf(ptr addrspacecast (ptr addrspace(4) @.str to ptr), i32 %x)\n  ret void\n}}\n\
         declare i32 @printf(ptr, ...)\n\n!{PAL_METADATA} = !{{!0}}\n!0 = !{{!\"{escaped}\"}}\n"
    );
    let (out, lowered) = lower_ok("merge.ll", &text, buffer());
    let strings: Vec<String> = lowered
        .strings
        .unwrap()
        .entries
        .iter()
        .map(|e| e.string().to_owned())
        .collect();
    assert_eq!(strings, ["old %d\n", "x=%d\n"]);
    let bytes = pal_document(&out);
    // Everything before the table keeps its bytes; so does everything after it.
    let table_at = document
        .windows(b"amdpal.format_strings".len())
        .position(|w| w == b"amdpal.format_strings")
        .unwrap();
    assert_eq!(&bytes[..table_at], &document[..table_at]);
    assert!(bytes.ends_with(b"\xA9x.unknown\xA4kept"));
    assert_eq!(out.matches(&format!("!{PAL_METADATA} = ")).count(), 1);
    let elf = llc_amdpal("merge.ll", &out, false);
    if let Some(elf) = elf {
        let pal = fmtstr_elf::PalElf::parse(&elf).unwrap();
        let table = pal.format_strings().unwrap().unwrap();
        assert_eq!(table.entries.len(), 2);
    }

    // The same ID with another string in the document: a collision, nothing lowered.
    let colliding = fmtstr_meta::Table {
        entries: vec![fmtstr_meta::Entry::new(
            FormatId::of(b"x=%d\n"),
            "not x\n",
            0,
            Mask::default(),
        )],
        ..Default::default()
    };
    let mut document = Vec::new();
    fmtstr_elf::write_new_document(&colliding, &mut document);
    let escaped: String = document.iter().map(|b| format!("\\{b:02X}")).collect();
    let text = text.replace(
        &text[text.find("!0 = ").unwrap()..],
        &format!("!0 = !{{!\"{escaped}\"}}\n"),
    );
    let failed = lower_err("collide.ll", &text, buffer());
    assert!(
        show(&failed.diagnostics).contains("collides"),
        "{}",
        show(&failed.diagnostics)
    );
}

#[test]
fn one_string_with_two_argument_layouts_is_a_conflict() {
    let text = format!(
        "{AMD_DL}\n@.str = private unnamed_addr addrspace(4) constant [4 x i8] c\"%d\\0A\\00\", align 1\n\
         define amdgpu_cs void @main(i32 %x, i64 %y) {{\n  %r = call i32 (ptr, ...) @printf(ptr addrspacecast (ptr addrspace(4) @.str to ptr), i32 %x)\n  \
         %s = call i32 (ptr, ...) @printf(ptr addrspacecast (ptr addrspace(4) @.str to ptr), i64 %y)\n  ret void\n}}\n\
         declare i32 @printf(ptr, ...)\n"
    );
    let failed = lower_err("conflict.ll", &text, buffer());
    let message = show(&failed.diagnostics);
    assert!(message.contains("conflict.ll:7:3: error: format string \"%d\\n\" is printed with 1 argument (64-bit mask [0x1])"), "{message}");
    assert!(
        message.contains("note: first printed at conflict.ll:6:3"),
        "{message}"
    );
}

#[test]
fn a_plain_global_buffer_runs_the_protocol_on_nvidia() {
    let Some(ir) = clang_ir(&sample("printf.c"), "nvptx64-nvidia-cuda") else {
        return;
    };
    // The runtime's side: a device variable the host sets, and the getter.
    let ir = format!(
        "{ir}\n@printf_buffer = addrspace(1) externally_initialized global ptr addrspace(1) null, align 8\n\
         define ptr addrspace(1) @__fmtstr_printf_buffer() {{\n  %p = load ptr addrspace(1), ptr addrspace(1) @printf_buffer, align 8\n  ret ptr addrspace(1) %p\n}}\n"
    );
    let options = Options::new(Target::Amdgpu {
        stage: Stage::Buffer,
        buffer_addrspace: 1,
        lgc_form: LgcForm::default(),
        user_data_offset: None,
    });
    let (out, _) = lower_ok("printf.c.ll", &ir, options);
    assert!(
        out.contains("%printfBuffer = call ptr addrspace(1) @__fmtstr_printf_buffer()"),
        "{out}"
    );
    assert!(
        out.contains("atomicrmw add ptr addrspace(1) %printfBuffer, i64 "),
        "{out}"
    );
    // 64-bit GEP indices: no trunc.
    assert!(
        out.contains("getelementptr i32, ptr addrspace(1) %printfBuffer, i64 %printf.clamped"),
        "{out}"
    );
    if let Some(ptx) = llc_ptx("printf.c.ll", &out) {
        assert!(ptx.contains("atom.global.add.u64"), "{ptx}");
        assert_ptxas("printf.c.ll", &ptx);
    }
    // An lgc.debug.printf with a fat pointer cannot write through addrspace(1).
    let failed = lower_err("lgc.ll", &sample_text("lgc.ll"), options);
    assert!(show(&failed.diagnostics).contains("--buffer-addrspace"));
}

/// `llvm-readobj --notes` of a PAL ELF: the keys of its `amdpal.format_strings` map (the YAML
/// lines indented once under it) and the whole text.
fn readobj_table_keys(llvm: Llvm, name: &str, elf: &[u8]) -> Option<(Vec<String>, String)> {
    let readobj = fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::LlvmReadobj)?;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(format!("{name}.elf"));
    std::fs::write(&path, elf).unwrap();
    let output = std::process::Command::new(readobj)
        .arg("--notes")
        .arg(&path)
        .output()
        .unwrap();
    assert!(output.status.success(), "llvm-readobj --notes {name}");
    let text = String::from_utf8(output.stdout).unwrap();
    let mut lines = text
        .lines()
        .skip_while(|l| !l.trim_start().starts_with("amdpal.format_strings:"));
    let header = lines.next().expect("amdpal.format_strings in the notes");
    let indent = header.len() - header.trim_start().len();
    let keys = lines
        .take_while(|l| l.len() - l.trim_start().len() > indent)
        .filter(|l| l.len() - l.trim_start().len() == indent + 2)
        .map(|l| l.trim().split(':').next().unwrap().to_owned())
        .collect();
    Some((keys, text))
}

/// One entry's header as the two stores write it: size | ID << 16, low dword first.
fn header_dwords(size: u64, string: &str) -> (i32, i32) {
    let id = FormatId::of(string.as_bytes()).get();
    (
        (size | (id & 0xFFFF) << 16) as u32 as i32,
        (id >> 16) as u32 as i32,
    )
}

/// The substance of LLPC's lit-test checks on its current form (samples/lower/llpc-today.ll):
/// entry sizes, the clamp, the header, payload order, masks, the table's three keys.
#[test]
fn llpc_todays_form_lowers_as_llpc_checks_it() {
    let text = sample_text("llpc-today.ll");
    // The sample itself is valid IR (llvm-as is stricter than fmtstr's reader).
    assert_llvm_as("llpc-today.ll", &text);
    let (out, lowered) = lower_ok("llpc-today.ll", &text, buffer());
    assert_eq!(lowered.calls, 3);
    assert!(!out.contains("@lgc.debug.printf"), "{out}");
    // The buffer from LLPC's descriptor, once, first in the entry block.
    assert!(out.contains(".entry:\n  %printfBuffer = call ptr addrspace(7) @lgc.load.buffer.desc(i64 4294967280, i32 6, i32 0, i32 2)"), "{out}");
    for size in [3, 6, 3] {
        assert!(
            out.contains(&format!(
                "atomicrmw add ptr addrspace(7) %printfBuffer, i64 {size} monotonic"
            )),
            "{out}"
        );
    }
    assert_eq!(out.matches("@llvm.umin.i64(i64 %printf.offset").count(), 3);
    assert_eq!(out.matches(", i64 536870912)").count(), 3, "{out}");
    // Headers and payloads in order, dword 4 on (past the buffer header).
    let (low, high) = header_dwords(3, "Tick %d\n");
    let tick = format!(
        "store i32 {low}, ptr addrspace(7) %printf.slot, align 4\n  %printf.slot1 = getelementptr i32, ptr addrspace(7) %printf.entry, i32 5\n  store i32 {high}, ptr addrspace(7) %printf.slot1, align 4\n  %printf.slot2 = getelementptr i32, ptr addrspace(7) %printf.entry, i32 6\n  store i32 %global, ptr addrspace(7) %printf.slot2, align 4"
    );
    assert!(out.contains(&tick), "{out}");
    assert!(
        out.contains("store double 6.400000e+01, ptr addrspace(7) %printf.slot5, align 4"),
        "{out}"
    );
    assert!(out.contains("%printf.slot6 = getelementptr i32, ptr addrspace(7) %printf.entry1, i32 8\n  store double 1.000000e+00"), "{out}");
    // The table: strings without their NUL, counts and masks as LLPC writes them.
    let table = lowered.strings.expect("a table");
    let got: Vec<(&str, u64, Vec<u64>)> = table
        .entries
        .iter()
        .map(|e| (e.string(), e.argument_count(), e.mask().words().to_vec()))
        .collect();
    assert_eq!(
        got,
        [
            ("Tick %d\n", 1, vec![0]),
            ("size:%f,%f\n", 2, vec![0b11]),
            ("Value: %u", 1, vec![0]),
        ]
    );
    assert_eq!(table.user_data_offset, Some(0));
    // llc and llvm-readobj of LLVM 19 and of LLVM 22.
    for llvm in Llvm::ALL {
        let Some(elf) = llc_amdpal_with(llvm, "llpc-today.ll", &out, false) else {
            continue;
        };
        if let Some((keys, notes)) = readobj_table_keys(llvm, "llpc-today", &elf) {
            let mut keys = keys;
            keys.sort();
            assert_eq!(
                keys,
                [".strings", ".user_data_offset", ".version"],
                "{llvm}: {notes}"
            );
            assert!(notes.contains(".user_data_offset: 0"), "{llvm}: {notes}");
        }
    }
}

/// LLPC's older form (samples/lower/llpc-older.ll): NUL-less formats, a plain global, and a
/// poison buffer that drops its call.
#[test]
fn llpc_older_form_lowers_and_a_poison_buffer_drops_the_call() {
    let text = sample_text("llpc-older.ll");
    // The sample itself is valid IR (llvm-as is stricter than fmtstr's reader).
    assert_llvm_as("llpc-older.ll", &text);
    let (out, lowered) = lower_ok("llpc-older.ll", &text, buffer());
    assert_eq!(lowered.calls, 3);
    assert!(!out.contains("@lgc.debug.printf"), "{out}");
    assert!(
        !out.contains("@silent ="),
        "the disabled call's format goes:\n{out}"
    );
    assert!(!out.contains("addrspace(7) poison"), "{out}");
    assert_eq!(out.matches("= atomicrmw add").count(), 2, "{out}");
    assert!(
        out.contains("atomicrmw add ptr addrspace(7) %buffer, i64 5 monotonic"),
        "{out}"
    );
    assert!(
        out.contains("atomicrmw add ptr addrspace(7) %buffer, i64 3 monotonic"),
        "{out}"
    );
    // The i64 as one 8-byte store at dword 7: low dword first on this little-endian target.
    assert!(
        out.contains("i32 7\n  store i64 %pair, ptr addrspace(7)"),
        "{out}"
    );
    let table = lowered.strings.expect("a table");
    let got: Vec<(&str, u64, Vec<u64>)> = table
        .entries
        .iter()
        .map(|e| (e.string(), e.argument_count(), e.mask().words().to_vec()))
        .collect();
    assert_eq!(
        got,
        [("Count:%d %lx", 2, vec![0b10]), ("Check: %x", 1, vec![0])]
    );
    if let Some(elf) = llc_amdpal("llpc-older.ll", &out, false) {
        let pal = fmtstr_elf::PalElf::parse(&elf).unwrap();
        let table = pal.format_strings().unwrap().unwrap();
        assert_eq!(table.entries.len(), 2);
        assert_eq!(table.user_data_offset, Some(0));
    }

    // Only disabled calls: nothing written, not even a table.
    let only_disabled = text
        .replace(
            "ptr addrspace(7) %buffer, ptr addrspace(4) @count",
            "ptr addrspace(7) undef, ptr addrspace(4) @count",
        )
        .replace(
            "ptr addrspace(7) %buffer, ptr addrspace(4) @check",
            "ptr addrspace(7) poison, ptr addrspace(4) @check",
        );
    let (out, lowered) = lower_ok("disabled.ll", &only_disabled, buffer());
    assert_eq!(lowered.strings.map(|t| t.entries.len()), Some(0));
    assert!(!out.contains("amdgpu.pal.metadata"), "{out}");
    assert!(!out.contains("store i"), "{out}");
    llc_amdpal("disabled.ll", &out, false);
}

/// Under LLPC's DataLayout (G1) a format written without an address space is in 0, which
/// fmtstr must not report as addrspace(1).
#[test]
fn a_g1_datalayout_does_not_move_formats_to_address_space_1() {
    let text = sample_text("llpc-today.ll");
    let module = Module::parse("llpc-today.ll", text.as_str()).unwrap();
    assert_eq!(module.data_layout().globals_addrspace(), 1);
    let tick = module.global_by_name("tick").unwrap();
    assert_eq!(module.global(tick).addrspace(), 0);
}

/// `--user-data-offset` is written, and differing from the module's table is an error.
#[test]
fn the_user_data_offset_is_written_and_checked_against_the_module() {
    let with_offset = |offset| {
        Options::new(Target::Amdgpu {
            stage: Stage::Buffer,
            buffer_addrspace: 7,
            lgc_form: LgcForm::default(),
            user_data_offset: Some(offset),
        })
    };
    let text = sample_text("llpc-today.ll");
    let (out, lowered) = lower_ok("llpc-today.ll", &text, with_offset(5));
    assert_eq!(lowered.strings.unwrap().user_data_offset, Some(5));
    // Lowering again (the module now has a table with 5): the same value passes, another fails.
    let again = out.replace(
        "@lgc.load.buffer.desc(i64 4294967280, i32 6, i32 0, i32 2)\n",
        "@lgc.load.buffer.desc(i64 4294967280, i32 6, i32 0, i32 2)\n  call void (...) @lgc.debug.printf(ptr nonnull @again, i32 8)\n",
    );
    let again = format!(
        "{again}\n@again = private unnamed_addr constant [4 x i8] c\"%d\\0A\\00\"\ndeclare void @lgc.debug.printf(...)\n"
    );
    let (_, kept) = lower_ok("again.ll", &again, buffer());
    assert_eq!(kept.strings.unwrap().user_data_offset, Some(5));
    let failed = lower_err("again.ll", &again, with_offset(2));
    let message = show(&failed.diagnostics);
    assert!(
        message.contains(".user_data_offset conflicts: the module's PAL metadata has 5 and --user-data-offset has 2"),
        "{message}"
    );
}

/// Bad `lgc.debug.printf` calls: an error at file:line:column each, nothing lowered.
#[test]
fn bad_lgc_debug_printf_calls_are_errors_with_positions() {
    let bad = [
        // A format that is no constant: a pointer argument.
        (
            "call void (...) @lgc.debug.printf(ptr %p, i32 1)",
            "must be a global variable holding the string",
        ),
        // A format that is not a global: an integer.
        (
            "call void (...) @lgc.debug.printf(i32 1, i32 2)",
            "must be a global variable holding the string",
        ),
        // No operands at all.
        (
            "call void (...) @lgc.debug.printf()",
            "lgc.debug.printf takes a format string",
        ),
        // The older form with its buffer only.
        (
            "call void (...) @lgc.debug.printf(ptr addrspace(7) %b)",
            "lgc.debug.printf takes a format string",
        ),
    ];
    for (call, expected) in bad {
        let text = format!(
            "{AMD_DL}\n@f = private unnamed_addr constant [3 x i8] c\"%d\\00\"\n\
             define amdgpu_cs void @main(ptr %p, ptr addrspace(7) %b) {{\n  {call}\n  ret void\n}}\n\
             declare void @lgc.debug.printf(...)\n"
        );
        let failed = lower_err("bad.ll", &text, buffer());
        let message = show(&failed.diagnostics);
        assert!(message.contains("bad.ll:6:3: error:"), "{call}: {message}");
        assert!(message.contains(expected), "{call}: {message}");
    }
}

/// Text after an embedded NUL is never printed: lowering warns with clang's words (clang-19 and
/// clang-22 on the same C source are the oracle) and tables carry only the text before the NUL.
#[test]
fn text_after_an_embedded_nul_is_warned_about_like_clang() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        text_after_an_embedded_nul_is_warned_about_like_clang_with(llvm);
    }
}

fn text_after_an_embedded_nul_is_warned_about_like_clang_with(llvm: Llvm) {
    let Some(clang) = fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::Clang) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("nul.c");
    std::fs::write(
        &source,
        "int printf(const char *, ...);\nvoid f(int x) { printf(\"A\\0B %d\", x); }\n",
    )
    .unwrap();
    let syntax = std::process::Command::new(&clang)
        .args(["-fsyntax-only", "-Wformat"])
        .arg(&source)
        .output()
        .unwrap();
    let theirs = String::from_utf8_lossy(&syntax.stderr).into_owned();
    let words = "format string contains '\\0' within the string body";
    assert!(theirs.contains(words), "clang says: {theirs}");
    let Some(ir) = clang_ir_with(llvm, &source, "amdgcn-amd-amdpal") else {
        return;
    };
    let (_, lowered) = lower_ok("nul.c.ll", &ir, buffer());
    let ours = show(&lowered.warnings);
    assert!(
        ours.contains(&format!("warning: {words} [-Wformat]")),
        "{ours}"
    );
    // The excerpt shows the whole literal, the caret at the NUL.
    assert!(ours.contains("\"A\\x00\\x42 %d\"\n    ^"), "{ours}");
    let table = lowered.strings.unwrap();
    assert_eq!(table.entries[0].string(), "A");
}

/// LLPC's pipeline module (samples/lower/llpc-pipeline.ll): both forms in one module, LLPC's
/// own operations left alone, and the table joining the PAL document already there.
#[test]
fn llpc_pipeline_module_lowers_into_its_pal_document() {
    let text = sample_text("llpc-pipeline.ll");
    // The sample itself is valid IR (llvm-as is stricter than fmtstr's reader).
    assert_llvm_as("llpc-pipeline.ll", &text);
    let (out, lowered) = lower_ok("llpc-pipeline.ll", &text, buffer());
    assert_eq!(lowered.calls, 3);
    assert!(!out.contains("@lgc.debug.printf"), "{out}");
    assert_llvm_as("llpc-pipeline.ll", &out);
    // LLPC's operations and metadata stay as they were.
    assert!(out.contains("%1 = call i32 @lgc.shader.input.LocalInvocationId(i32 49) #1"));
    assert!(out.contains("!lgc.user.data.nodes = !{!0, !1}"));
    // Today's form: the main function's own buffer; the older one: its parameter.
    assert!(out.contains("atomicrmw add ptr addrspace(7) %printfBuffer, i64 3 monotonic"));
    assert!(out.contains("atomicrmw add ptr addrspace(7) %printfBuffer, i64 6 monotonic"));
    assert!(out.contains("atomicrmw add ptr addrspace(7) %buffer, i64 3 monotonic"));
    let table = lowered.strings.unwrap();
    let strings: Vec<&str> = table.entries.iter().map(|e| e.string()).collect();
    assert_eq!(strings, ["Invocation:%u\n", "sizes:%f %f\n", "old %d"]);
    // The document keeps amdpal.pipelines and amdpal.version byte for byte; the table joins.
    let after = pal_document(&out);
    let contains = |needle: &[u8]| after.windows(needle.len()).any(|w| w == needle);
    assert!(
        contains(b"\xB0amdpal.pipelines\x91\x81\xA4.api\xA6Vulkan"),
        "{after:x?}"
    );
    assert!(contains(b"\xAEamdpal.version\x92\x02\x06"), "{after:x?}");
    let document = Document::parse(&after).unwrap();
    assert_eq!(document.format_strings().unwrap().entries.len(), 3);
    // LLPC's choice: the offset of the descriptor table holding the printf buffer.
    assert_eq!(document.format_strings().unwrap().user_data_offset, Some(2));

    // A top-level descriptor node gives its own offset; no printf node, the default 0.
    let top_level = text
        .replace(
            "!lgc.user.data.nodes = !{!0, !1}",
            "!lgc.user.data.nodes = !{!1}",
        )
        .replace(
            "!1 = !{!\"DescriptorBuffer\", i32 6, i32 0, i32 0,",
            "!1 = !{!\"DescriptorBuffer\", i32 6, i32 0, i32 5,",
        );
    let (_, lowered) = lower_ok("top-level.ll", &top_level, buffer());
    assert_eq!(lowered.strings.unwrap().user_data_offset, Some(5));
    let other_binding = text.replace("i32 -16, i32 6, i32 4}", "i32 -16, i32 7, i32 4}");
    let (_, lowered) = lower_ok("other.ll", &other_binding, buffer());
    assert_eq!(lowered.strings.unwrap().user_data_offset, Some(0));
}
