//! `--prefix`: who printed each line. Judged by llc (nvptx64 sm_90 + ptxas: the PTX reads
//! %ctaid and %tid; amdgcn gfx1100 PAL objects) and by the AMD table, which holds the prefixed
//! strings with their counts.

mod common;

use common::{assert_ptxas, clang_ir, llc_amdpal, llc_ptx, lower_err, lower_ok, sample, show};
use fmtstr_lower::{Options, Prefix, PrefixError, Stage, Target};

fn with_prefix(target: Target, prefix: &str) -> Options {
    let mut options = Options::new(target);
    options.prefix = Some(Prefix::parse(prefix).unwrap());
    options.report = true;
    options
}

#[test]
fn nvptx_ptx_reads_ctaid_and_tid_and_prints_the_prefix() {
    let Some(ir) = clang_ir(&sample("printf.c"), "nvptx64-nvidia-cuda") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &ir,
        with_prefix(Target::nvptx(), "block,thread"),
    );
    assert_eq!(lowered.calls, 9);
    assert!(out.contains(r#"c"[block %u,%u,%u thread %u,%u,%u] x=%d y=%f\0A\00""#));
    assert!(out.contains("call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()"));
    assert!(out.contains("call i32 @llvm.nvvm.read.ptx.sreg.tid.z()"));
    // Every call's buffer grew by 6 x i32 at its front: the first call's x=%d is at 24.
    let Some(ptx) = llc_ptx("printf.c.ll", &out) else {
        return;
    };
    for reg in [
        "%ctaid.x", "%ctaid.y", "%ctaid.z", "%tid.x", "%tid.y", "%tid.z",
    ] {
        assert!(ptx.contains(reg), "the PTX does not read {reg}");
    }
    assert_ptxas("printf.c.ll", &ptx);
    // The report counts the ids: x=%d y=%f is 6 x 4 + 4 + pad + 8 = 40 bytes.
    assert_eq!(lowered.report[0].bytes, Some(40));
}

#[test]
fn amd_table_holds_the_prefixed_string_with_its_count_and_mask() {
    let Some(ir) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &ir,
        with_prefix(Target::amdgpu(Stage::Buffer), "thread,workgroup"),
    );
    assert!(out.contains("call i32 @llvm.amdgcn.workitem.id.x()"));
    assert!(out.contains("call i32 @llvm.amdgcn.workgroup.id.z()"));
    let table = lowered.strings.expect("a table");
    let wanted = "[thread %u,%u,%u workgroup %u,%u,%u] x=%d y=%f\n";
    let entry = table
        .get(fmtstr_meta::FormatId::of(wanted.as_bytes()))
        .expect("the prefixed entry");
    assert_eq!(entry.string(), wanted);
    // 6 ids, x and the double y: 8 arguments, bit 7 set.
    assert_eq!(entry.argument_count(), 8);
    assert_eq!(entry.mask().words(), &[1u64 << 7]);
    assert_eq!(lowered.report[0].dwords, Some(2 + 6 + 1 + 2));
    llc_amdpal("printf.c.ll", &out, false);
    // Stage lgc passes the ids through lgc.debug.printf.
    let (lgc, _) = lower_ok(
        "printf.c.ll",
        &ir,
        with_prefix(Target::amdgpu(Stage::Lgc), "workgroup"),
    );
    assert!(lgc.contains("@lgc.debug.printf(ptr @str.prefixed"), "{lgc}");
}

#[test]
fn bad_prefixes_are_refused_with_the_fix() {
    assert_eq!(
        Prefix::parse("block,wave"),
        Err(PrefixError::UnknownName("wave".into()))
    );
    assert!(PrefixError::UnknownName("wave".into())
        .to_string()
        .contains("e.g. --prefix site,block,thread"));
    assert_eq!(
        Prefix::parse("site,thread,site"),
        Err(PrefixError::Repeated("site".into()))
    );
    assert_eq!(
        Prefix::parse("thread,local"),
        Err(PrefixError::Repeated("local".into()))
    );
    assert_eq!(Prefix::parse(""), Err(PrefixError::Empty));
    assert_eq!(
        Prefix::parse("thread,block").unwrap().format(),
        "[thread %u,%u,%u block %u,%u,%u] "
    );
    // A pre-packed call cannot take more arguments: an error, the module unchanged.
    let text = "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n\
        @.str = private unnamed_addr constant [3 x i8] c\"%d\\00\", align 1\n\
        define void @k(ptr %buf) {\n  %r = call i32 (ptr, ...) @printf(ptr @.str, ptr %buf), !printf.form !0\n  ret void\n}\n\
        declare i32 @printf(ptr, ...)\n!0 = !{i8 85}\n";
    let failed = lower_err("packed.ll", text, with_prefix(Target::nvptx(), "thread"));
    assert!(show(&failed.diagnostics).contains("--prefix cannot add arguments"));
}

/// clang's IR of samples/lower/printf.c with debug information (`-g`).
fn clang_ir_debug(triple: &str) -> Option<String> {
    let clang = fmtstr_oracles::require(fmtstr_oracles::Tool::Clang)?;
    let mut command = std::process::Command::new(clang);
    command.arg(format!("--target={triple}"));
    if triple.starts_with("amdgcn") {
        command.arg("-mcpu=gfx1100");
    }
    let output = command
        .args([
            "-x",
            "c",
            "-O1",
            "-g",
            "-fno-builtin-printf",
            "-S",
            "-emit-llvm",
            "-o",
            "-",
        ])
        .arg(sample("printf.c"))
        .output()
        .expect("clang runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

/// `--prefix site`: the call's `!dbg` location as text of the format, no argument added; the
/// function's name without debug information.
#[test]
fn site_is_the_calls_source_location_in_the_format() {
    let Some(ir) = clang_ir_debug("nvptx64-nvidia-cuda") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &ir,
        with_prefix(Target::nvptx(), "site,thread"),
    );
    assert_eq!(lowered.calls, 9);
    // printf("x=%d y=%f\n", i, f) is line 7, column 3 of printf.c (the file named as the
    // DIFile names it: the path clang was given).
    assert!(
        out.contains(r#"printf.c:7:3 thread %u,%u,%u] x=%d y=%f\0A\00""#),
        "{}",
        out
    );
    // No argument for the site: 3 ids, x and y as before.
    assert_eq!(lowered.report[0].bytes, Some(3 * 4 + 4 + 8));
    let Some(ptx) = llc_ptx("printf.c.ll", &out) else {
        return;
    };
    assert_ptxas("printf.c.ll", &ptx);
    // The AMD table holds one entry per site: the same format at two lines is two entries.
    let Some(amd) = clang_ir_debug("amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &amd,
        with_prefix(Target::amdgpu(Stage::Buffer), "site"),
    );
    let table = lowered.strings.expect("a table");
    let sites: Vec<_> = table
        .entries
        .iter()
        .filter(|e| e.string().ends_with("printf.c:14:3] %d\n"))
        .collect();
    assert_eq!(sites.len(), 1, "the entry of line 14");
    assert_eq!(sites[0].argument_count(), 1);
    // The entry lists its site under a key of its own.
    let listed = sites[0].sites();
    assert_eq!(listed.len(), 1);
    assert!(listed[0].ends_with("printf.c:14:3"), "{listed:?}");
    // Not compiled here: llc-19's lowering of buffer fat pointers (addrspace 7) breaks any
    // module with debug information ("DICompileUnit not listed in llvm.dbg.cu"), with or
    // without fmtstr; llc-22 compiles it. The code is the same as without -g.
    assert!(out.contains("atomicrmw add ptr addrspace(7)"));
    // Without debug information: the function's name.
    let Some(plain) = clang_ir(&sample("printf.c"), "nvptx64-nvidia-cuda") else {
        return;
    };
    let (out, _) = lower_ok("printf.c.ll", &plain, with_prefix(Target::nvptx(), "site"));
    assert!(out.contains(r#"c"[reuse] printed %d\0A\00""#), "{out}");
}

/// `--prefix seq`: one counter for the module, an atomic add before each call, the number as
/// the first argument (`%llu`); the PTX increments the global with one atomic per print.
#[test]
fn seq_numbers_every_print_from_one_counter() {
    let Some(ir) = clang_ir(&sample("printf.c"), "nvptx64-nvidia-cuda") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &ir,
        with_prefix(Target::nvptx(), "seq,thread"),
    );
    assert_eq!(lowered.calls, 9);
    assert_eq!(
        out.matches("@fmtstr_printf_seq = addrspace(1) global i64 zeroinitializer, align 8")
            .count(),
        1
    );
    assert_eq!(
        out.matches("atomicrmw add ptr addrspace(1) @fmtstr_printf_seq, i64 1 monotonic")
            .count(),
        9
    );
    assert!(out.contains(r#"c"[#%llu thread %u,%u,%u] x=%d y=%f\0A\00""#));
    // The number (8 bytes) and 3 ids, x and y: 8 + 12 + 4 + 8.
    assert_eq!(lowered.report[0].bytes, Some(32));
    let Some(ptx) = llc_ptx("printf.c.ll", &out) else {
        return;
    };
    assert!(
        ptx.contains("fmtstr_printf_seq"),
        "the counter is not in the PTX"
    );
    assert!(
        ptx.contains("atom.global.add.u64"),
        "no 64-bit atomic add in the PTX"
    );
    assert_ptxas("printf.c.ll", &ptx);
    // The AMD buffer stage: the number is a 64-bit argument of the entry.
    let Some(amd) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &amd,
        with_prefix(Target::amdgpu(Stage::Buffer), "seq"),
    );
    let table = lowered.strings.expect("a table");
    let wanted = "[#%llu] x=%d y=%f\n";
    let entry = table
        .get(fmtstr_meta::FormatId::of(wanted.as_bytes()))
        .expect("the numbered entry");
    assert_eq!(entry.argument_count(), 3);
    assert_eq!(entry.mask().words(), &[0b101]);
    llc_amdpal("printf.c.ll", &out, false);
    assert_eq!(
        Prefix::parse("seq,block,seq"),
        Err(PrefixError::Repeated("seq".into()))
    );
}
