//! `cargo xtask demo`: the bundled samples, end to end.
//!
//! Installs the oracles (idempotent) and builds `fmtstr`, then:
//! 0. tells the story fmtstr exists for (`demo_story`): C with printf, lowered, compiled to PAL
//!    objects, linked, folded by the post-link step, audited (clean, then a collision caught),
//!    run on the host and decoded into exactly what C's printf prints;
//! 1. renders every case in `samples/printf/cases.tsv` with `fmtstr printf`, compiles the same
//!    calls into a C program with clang-19 for the host, runs it, and requires the two outputs
//!    to be identical, case by case;
//! 2. lowers `samples/lower/printf.c` (through clang-19) for NVIDIA (vprintf, then llc-19 and
//!    ptxas).

use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context};
use fmtstr_oracles::Tool;

use crate::{demo_story, oracles, process};

pub(crate) const CASES: &str = "samples/printf/cases.tsv";

/// One line of the cases file: its line number, the format (a C string-literal body) and
/// its typed arguments (`i32:7`).
pub(crate) struct Case {
    pub(crate) line: usize,
    pub(crate) format: String,
    pub(crate) args: Vec<String>,
}

pub fn run() -> anyhow::Result<()> {
    oracles::run()?;
    let root = process::root();
    let cases = read_cases(&std::fs::read_to_string(root.join(CASES)).context(CASES)?)?;

    let fmtstr = process::build_fmtstr()?;

    let scratch = root.join("target/demo");
    std::fs::create_dir_all(&scratch)?;
    demo_story::run(&fmtstr, &scratch)?;

    let program = scratch.join("cases.c");
    std::fs::write(&program, c_program(&cases)?)?;
    let binary = scratch.join("cases");
    let mut clang = Tool::Clang.command().context("clang-19 is missing")?;
    process::output(clang.args(["-O1", "-w", "-o"]).arg(&binary).arg(&program))?;
    let c_output = process::output(&mut Command::new(&binary))?.stdout;
    let c_outputs: Vec<&[u8]> = c_output.split(|byte| *byte == 0).collect();

    let mut failures = 0;
    for (case, expected) in cases.iter().zip(c_outputs) {
        let ours = process::output(
            Command::new(&fmtstr)
                .arg("printf")
                .arg(&case.format)
                .args(&case.args),
        )?;
        let shown = String::from_utf8_lossy(&ours.stdout);
        if ours.stdout != expected {
            failures += 1;
            println!(
                "MISMATCH ({CASES}:{}):\n  fmtstr: {shown:?}\n  C:      {:?}",
                case.line,
                String::from_utf8_lossy(expected)
            );
        }
    }
    if failures > 0 {
        bail!("{failures} of {} cases differ from C's printf", cases.len());
    }
    println!(
        "demo: fmtstr printf: all {} cases of {CASES} are byte-identical to C's printf \
         (clang-19, glibc)",
        cases.len()
    );
    lower_for_nvidia(&fmtstr, &scratch)
}

/// samples/lower/printf.c through clang-19, `fmtstr lower`, llc-19 and ptxas.
fn lower_for_nvidia(fmtstr: &Path, scratch: &Path) -> anyhow::Result<()> {
    let source = process::root().join("samples/lower/printf.c");
    let clang_ir = |target: &[&str], out: &Path| -> anyhow::Result<()> {
        let mut clang = Tool::Clang.command().context("clang-19 is missing")?;
        clang.args(target).args([
            "-x",
            "c",
            "-O1",
            "-fno-builtin-printf",
            "-S",
            "-emit-llvm",
            "-o",
        ]);
        process::output(clang.arg(out).arg(&source)).map(drop)
    };

    let nvptx_ll = scratch.join("printf.nvptx.ll");
    clang_ir(&["--target=nvptx64-nvidia-cuda"], &nvptx_ll)?;
    let vprintf_ll = scratch.join("printf.vprintf.ll");
    process::output(
        Command::new(fmtstr)
            .args(["lower", "--target", "nvptx"])
            .arg(&nvptx_ll)
            .arg("-o")
            .arg(&vprintf_ll),
    )?;
    let ptx = scratch.join("printf.ptx");
    let mut llc = Tool::Llc.command().context("llc-19 is missing")?;
    process::output(
        llc.args(["-march=nvptx64", "-mcpu=sm_90", "-o"])
            .arg(&ptx)
            .arg(&vprintf_ll),
    )?;
    let mut ptxas = Tool::Ptxas.command().context("ptxas is missing")?;
    process::output(
        ptxas
            .args(["-c", "-arch=sm_90", "-o"])
            .arg(scratch.join("printf.cubin"))
            .arg(&ptx),
    )?;
    let calls = std::fs::read_to_string(&ptx)?.matches("vprintf,").count();
    println!(
        "demo: NVIDIA: {} -> vprintf ({calls} calls in the PTX) -> ptxas sm_90: ok",
        process::relative(&source)
    );

    Ok(())
}

pub(crate) fn read_cases(text: &str) -> anyhow::Result<Vec<Case>> {
    let mut cases = Vec::new();
    for (index, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let mut fields = line.split('\t').map(str::to_owned);
        let format = fields.next().unwrap_or_default();
        cases.push(Case {
            line: index + 1,
            format,
            args: fields.collect(),
        });
    }
    Ok(cases)
}

/// A C program that prints each case followed by a NUL, so the outputs can be told apart.
fn c_program(cases: &[Case]) -> anyhow::Result<String> {
    let mut program = String::from("#include <stdio.h>\nint main(void) {\n");
    for case in cases {
        let mut call = format!("  printf(\"{}\"", case.format);
        for arg in &case.args {
            let (kind, value) = arg
                .split_once(':')
                .with_context(|| format!("{CASES}:{}: `{arg}` needs a TYPE: prefix", case.line))?;
            let _ = write!(call, ", {}", c_value(case, kind, value)?);
        }
        let _ = writeln!(program, "{call}); putchar(0);");
    }
    program.push_str("  return 0;\n}\n");
    Ok(program)
}

/// An argument of `kind` (`i32`, `f64`, `str`, ...) in C.
pub(crate) fn c_value(case: &Case, kind: &str, value: &str) -> anyhow::Result<String> {
    Ok(match kind {
        "i32" => format!("(int){value}"),
        "u32" => format!("(unsigned){value}u"),
        "i64" => format!("(long long){value}"),
        "u64" => format!("(unsigned long long){value}ULL"),
        "f32" => format!("(float){value}"),
        "f64" => c_double(value),
        "str" => format!("\"{value}\""),
        "ptr" => format!("(void *){value}ULL"),
        _ => bail!(
            "{CASES}:{}: the demo has no C spelling for `{kind}`",
            case.line
        ),
    })
}

fn c_double(value: &str) -> String {
    match value {
        "inf" => "__builtin_inf()".to_owned(),
        "-inf" => "-__builtin_inf()".to_owned(),
        "nan" => "__builtin_nan(\"\")".to_owned(),
        "-nan" => "-__builtin_nan(\"\")".to_owned(),
        _ => format!("(double){value}"),
    }
}
