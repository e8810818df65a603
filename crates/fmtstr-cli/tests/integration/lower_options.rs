//! `fmtstr lower`'s options for what no GPU printf offers: `--pass strip` (printf compiled
//! out) and `--report` (the bytes a launch writes, before launching). Every test that runs
//! LLVM's tools runs under LLVM 19 and under LLVM 22.

use std::path::Path;

use fmtstr_oracles::{require_llvm, Llvm, Tool};

use crate::util::{assert_matches_schema, root, run};

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-lower-options-")
        .tempdir()
        .expect("temp dir")
}

const USED_RESULT: &str = r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
@.str = private unnamed_addr constant [4 x i8] c"%d\0A\00", align 1
define i32 @k(i32 %x) {
  %n = call i32 (ptr, ...) @printf(ptr @.str, i32 %x)
  ret i32 %n
}
declare i32 @printf(ptr, ...)
"#;

/// `--pass strip` removes the call, warns about the used result (exit 0; 1 with --Werror and
/// nothing written), and refuses target options with the fix named (exit 2).
#[test]
fn strip_removes_calls_and_warns_about_used_results() {
    let dir = scratch();
    let input = dir.path().join("k.ll");
    let out = dir.path().join("k.strip.ll");
    std::fs::write(&input, USED_RESULT).unwrap();
    let stripped = run([
        "lower".as_ref(),
        "--pass".as_ref(),
        "strip".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        out.as_os_str(),
    ])
    .expect_code(0);
    assert!(
        stripped
            .stderr
            .contains("k.ll:4:3: warning: printf's result is used")
            && stripped.stderr.contains("[-Wprintf-result]"),
        "{}",
        stripped.stderr
    );
    let text = std::fs::read_to_string(&out).unwrap();
    let expected = USED_RESULT
        .replace(
            "  %n = call i32 (ptr, ...) @printf(ptr @.str, i32 %x)\n",
            "",
        )
        .replace("ret i32 %n", "ret i32 0")
        .replace("declare i32 @printf(ptr, ...)\n", "");
    assert_eq!(text, expected);
    assert_llvm_as_accepts(&out);

    let strict = dir.path().join("strict.ll");
    let werror = run([
        "lower".as_ref(),
        "--pass".as_ref(),
        "strip".as_ref(),
        "--Werror".as_ref(),
        input.as_os_str(),
        "-o".as_ref(),
        strict.as_os_str(),
    ])
    .expect_code(1);
    assert!(
        werror.stderr.contains("[-Werror,-Wprintf-result]"),
        "{}",
        werror.stderr
    );
    assert!(!strict.exists());

    let refused = run([
        "lower".as_ref(),
        "--pass".as_ref(),
        "strip".as_ref(),
        "--target".as_ref(),
        "nvptx".as_ref(),
        input.as_os_str(),
    ])
    .expect_code(2);
    assert!(
        refused
            .stderr
            .contains("--pass strip removes the calls for every target: drop --target"),
        "{}",
        refused.stderr
    );
}

/// llvm-as of LLVM 19 and of LLVM 22 must accept the module.
#[track_caller]
pub fn assert_llvm_as_accepts(path: &Path) {
    for llvm in Llvm::ALL {
        assert_llvm_as_accepts_with(llvm, path);
    }
}

/// That release's llvm-as must accept the module.
#[track_caller]
pub fn assert_llvm_as_accepts_with(llvm: Llvm, path: &Path) {
    let Some(llvm_as) = require_llvm(llvm, Tool::LlvmAs) else {
        return;
    };
    let output = std::process::Command::new(llvm_as)
        .arg(path)
        .args(["-o", "/dev/null"])
        .output()
        .expect("llvm-as runs");
    assert!(
        output.status.success(),
        "llvm-as of {llvm} rejects {}:\n{}",
        path.display(),
        String::from_utf8_lossy(&output.stderr)
    );
}

/// That release's clang's IR of samples/lower/printf.c for `triple`; with `builtin`, clang
/// lowers printf itself (to vprintf on NVPTX, one `%printf_args` struct per call).
fn clang_ir(llvm: Llvm, triple: &str, builtin: bool, out: &Path) -> Option<()> {
    let clang = require_llvm(llvm, Tool::Clang)?;
    let mut command = std::process::Command::new(clang);
    command.arg(format!("--target={triple}"));
    if triple.starts_with("amdgcn") {
        command.arg("-mcpu=gfx1100");
    }
    if !builtin {
        command.arg("-fno-builtin-printf");
    }
    let output = command
        .args(["-x", "c", "-O1", "-g", "-S", "-emit-llvm", "-o"])
        .arg(out)
        .arg(root().join("samples/lower/printf.c"))
        .output()
        .expect("clang runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(())
}

/// The alloc size LLVM gives each `type` of a module (by `opt -passes=instsimplify` folding
/// `ptrtoint (getelementptr T, ptr null, 1)` under the module's DataLayout).
fn llvm_sizes(opt: &Path, module: &str, types: &[String]) -> Vec<u64> {
    let mut ir = String::new();
    for line in module.lines() {
        if line.starts_with("target datalayout")
            || line.starts_with('%') && line.contains(" = type ")
        {
            ir.push_str(line);
            ir.push('\n');
        }
    }
    for (k, ty) in types.iter().enumerate() {
        ir.push_str(&format!(
            "define i64 @size{k}() {{\n  %p = getelementptr {ty}, ptr null, i32 1\n  %s = ptrtoint ptr %p to i64\n  ret i64 %s\n}}\n"
        ));
    }
    let dir = scratch();
    let path = dir.path().join("sizes.ll");
    std::fs::write(&path, ir).unwrap();
    let output = std::process::Command::new(opt)
        .args(["-S", "-passes=instsimplify"])
        .arg(&path)
        .output()
        .expect("opt runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.trim().strip_prefix("ret i64 "))
        .map(|n| n.parse().expect("a folded size"))
        .collect()
}

/// `--report-json` on NVPTX: every call's bytes equal the size of the `%printf_args` struct
/// clang builds for the same call when it lowers printf to vprintf itself (sizes from
/// LLVM's DataLayout), 0 for a call without arguments; the locations are the C source's
/// lines (from -g); the per-function sums add up; the text report says the same.
/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn report_matches_clangs_own_vprintf_buffers() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        report_matches_clangs_own_vprintf_buffers_with(llvm);
    }
}

fn report_matches_clangs_own_vprintf_buffers_with(llvm: Llvm) {
    let dir = scratch();
    let raw = dir.path().join("raw.ll");
    let clangs = dir.path().join("clang.ll");
    let (Some(()), Some(())) = (
        clang_ir(llvm, "nvptx64-nvidia-cuda", false, &raw),
        clang_ir(llvm, "nvptx64-nvidia-cuda", true, &clangs),
    ) else {
        return;
    };
    let Some(opt) = require_llvm(llvm, Tool::Opt) else {
        return;
    };
    let json_path = dir.path().join("report.json");
    let lowered = run([
        "lower".as_ref(),
        "--target".as_ref(),
        "nvptx".as_ref(),
        "--report".as_ref(),
        "--report-json".as_ref(),
        json_path.as_os_str(),
        raw.as_os_str(),
        "-o".as_ref(),
        dir.path().join("out.ll").as_os_str(),
    ])
    .expect_code(0);
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&json_path).unwrap()).unwrap();
    assert_matches_schema("lower-report.schema.json", &report);
    assert!(report.get("only").is_none(), "no --only, no condition");

    // clang's vprintf calls in order, each with its struct type (or none: a null buffer).
    let text = std::fs::read_to_string(&clangs).unwrap();
    let mut allocas = std::collections::HashMap::new();
    let mut buffers: Vec<Option<String>> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some((name, rest)) = line.split_once(" = alloca ") {
            allocas.insert(name.to_owned(), rest.split(',').next().unwrap().to_owned());
        }
        if line.contains("call i32 @vprintf(ptr") {
            let buffer = line.split("ptr nonnull ").nth(2).map(|b| {
                let name = b.split([')', ',']).next().unwrap();
                allocas[name].clone()
            });
            buffers.push(buffer);
        }
    }
    let types: Vec<String> = buffers.iter().flatten().cloned().collect();
    let mut sizes = llvm_sizes(&opt, &text, &types).into_iter();
    let expected: Vec<u64> = buffers
        .iter()
        .map(|b| {
            if b.is_some() {
                sizes.next().unwrap()
            } else {
                0
            }
        })
        .collect();
    let calls = report["calls"].as_array().unwrap();
    let got: Vec<u64> = calls.iter().map(|c| c["bytes"].as_u64().unwrap()).collect();
    assert_eq!(got, expected);
    assert_eq!(got.len(), 9);
    assert!(calls
        .iter()
        .all(|c| c["location"].as_str().unwrap().contains("printf.c:")));
    assert_eq!(calls[0]["format"], "x=%d y=%f\n");
    for f in report["functions"].as_array().unwrap() {
        let sum: u64 = calls
            .iter()
            .filter(|c| c["function"] == f["function"])
            .map(|c| c["bytes"].as_u64().unwrap())
            .sum();
        assert_eq!(f["bytes_per_pass"].as_u64().unwrap(), sum);
    }
    assert!(
        lowered
            .stderr
            .contains(&format!("@scalars \"x=%d y=%f\\n\": {} bytes", expected[0]))
            && lowered.stderr.contains("@reuse: 4 calls, "),
        "{}",
        lowered.stderr
    );
}

/// The stand-in for the GPU's id reads on the host: `fmtstr lower --prefix` reads
/// `llvm.amdgcn.workgroup.id.{x,y,z}` and `llvm.amdgcn.workitem.id.{x,y,z}`; retargeted to
/// x86_64 those calls are renamed to `fmtstr_host_workgroup_id_{x,y,z}` and
/// `fmtstr_host_workitem_id_{x,y,z}`, which the harness defines from its pthread's number t:
/// workgroup (t / 4, 0, 0), local (t % 4, 0, 0), as if 8 threads ran as 2 groups of 4.
pub(crate) const HOST_IDS_C: &str = r#"
static _Thread_local int current_thread;
unsigned fmtstr_host_workgroup_id_x(void) { return (unsigned)current_thread / 4; }
unsigned fmtstr_host_workgroup_id_y(void) { return 0; }
unsigned fmtstr_host_workgroup_id_z(void) { return 0; }
unsigned fmtstr_host_workitem_id_x(void) { return (unsigned)current_thread % 4; }
unsigned fmtstr_host_workitem_id_y(void) { return 0; }
unsigned fmtstr_host_workitem_id_z(void) { return 0; }
"#;

/// The host run of the decoder's end-to-end test with `--prefix workgroup,local`: 8 pthreads
/// write the AMD protocol (`--buffer-addrspace 1`, x86_64); `fmtstr decode --sort prefix`
/// prints exactly the host printf's lines of thread 0, then 1, ... each with its prefix, and
/// `--grep` keeps exactly one thread's; the reported dwords add up to bufferOffset.
/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn prefixed_printf_on_host_threads_decodes_sorted_and_filtered() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        prefixed_printf_on_host_threads_decodes_sorted_and_filtered_with(llvm);
    }
}

fn prefixed_printf_on_host_threads_decodes_sorted_and_filtered_with(llvm: Llvm) {
    use crate::decode_commands::{build_host_run, by_thread, checked, WORK_C};
    let Some(clang) = require_llvm(llvm, Tool::Clang) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    // One more call: constant %s strings, which fmtstr interns as table entries.
    let work = WORK_C.replace(
        "void work(int tid, int i) {\n",
        "void work(int tid, int i) {\n    printf(\"t%d i%d str %s|%-8s|%.3s|%s|\\n\", tid, i, \"hello\", \"ab\", \"abcdef\", \"\");\n",
    );
    assert!(work.contains("str %s"));
    std::fs::write(at("work.c"), work).unwrap();
    let harness = harness_with_ids();
    assert!(harness.contains("current_thread = tid;"));
    std::fs::write(at("harness.c"), harness).unwrap();
    crate::decode_commands::amdgpu_ir(&clang, &at("work.c"), &at("work.ll"));
    run([
        "lower".as_ref(),
        "--target".as_ref(),
        "amdgpu".as_ref(),
        "--stage".as_ref(),
        "buffer".as_ref(),
        "--buffer-addrspace".as_ref(),
        "1".as_ref(),
        "--prefix".as_ref(),
        "workgroup,local".as_ref(),
        "--emit-strings".as_ref(),
        at("strings.json").as_os_str(),
        "--report-json".as_ref(),
        at("report.json").as_os_str(),
        at("work.ll").as_os_str(),
        "-o".as_ref(),
        at("work.buffer.ll").as_os_str(),
    ])
    .expect_code(0);
    // The PAL path of the same module: llc compiles it for gfx1100.
    run([
        "lower".as_ref(),
        "--target".as_ref(),
        "amdgpu".as_ref(),
        "--stage".as_ref(),
        "buffer".as_ref(),
        "--prefix".as_ref(),
        "workgroup,local".as_ref(),
        at("work.ll").as_os_str(),
        "-o".as_ref(),
        at("work.pal.ll").as_os_str(),
    ])
    .expect_code(0);
    if let Some(llc) = require_llvm(llvm, Tool::Llc) {
        checked(
            std::process::Command::new(llc)
                .args([
                    "-mtriple=amdgcn--amdpal",
                    "-mcpu=gfx1100",
                    "-filetype=obj",
                    "-o",
                ])
                .arg(at("work.pal.o"))
                .arg(at("work.pal.ll")),
        );
    }
    // Retarget to x86_64: the host's triple and DataLayout, no GPU attributes, and the id
    // reads renamed to the stand-ins.
    let lowered = std::fs::read_to_string(at("work.buffer.ll")).unwrap();
    assert!(lowered.contains("@llvm.amdgcn.workitem.id.x()"));
    let renamed = lowered
        .replace("@llvm.amdgcn.workgroup.id.", "@fmtstr_host_workgroup_id_")
        .replace("@llvm.amdgcn.workitem.id.", "@fmtstr_host_workitem_id_");
    build_host_run(&clang, dir.path(), &renamed);
    let calls = "300";
    let host = checked(std::process::Command::new(at("host")).arg(calls));
    let host_lines = by_thread(&String::from_utf8(host.stdout).unwrap());
    assert_eq!(host_lines.len(), 8);
    checked(
        std::process::Command::new(at("lowered"))
            .args([calls, &(1u64 << 22).to_string()])
            .arg(at("all.bin")),
    );
    // What the host printed, thread by thread, each line with the prefix of its thread.
    let prefixed = |t: usize| -> Vec<String> {
        host_lines[&format!("t{t}")]
            .iter()
            .map(|line| format!("[workgroup {},0,0 local {},0,0] {line}", t / 4, t % 4))
            .collect()
    };
    let expected: Vec<String> = (0..8).flat_map(prefixed).collect();
    let sorted = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--strict".as_ref(),
        "--sort".as_ref(),
        "prefix".as_ref(),
    ])
    .expect_code(0);
    let got: Vec<String> = sorted.stdout_text().lines().map(str::to_owned).collect();
    assert_eq!(got.len(), expected.len());
    assert!(
        got == expected,
        "the sorted text differs from the host's printf"
    );
    let grepped = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--grep".as_ref(),
        r"^\[workgroup 1,0,0 local 2,".as_ref(),
    ])
    .expect_code(0);
    let got: Vec<String> = grepped.stdout_text().lines().map(str::to_owned).collect();
    assert!(
        got == prefixed(6),
        "--grep kept other lines than thread 6's"
    );
    // --report's dwords per printed line add up to what the threads wrote.
    let (written, reported) = written_and_reported(
        &at("all.bin"),
        &at("report.json"),
        host_lines.values().flatten(),
    );
    assert_eq!(reported, written);
    // The interned strings: entries of their own, marked, without arguments.
    let table: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(at("strings.json")).unwrap()).unwrap();
    let interned: Vec<&str> = table[".strings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e[".fmtstr_interned"] == serde_json::Value::Bool(true))
        .map(|e| {
            assert_eq!(e[".argument_count"], 0);
            e[".string"].as_str().unwrap()
        })
        .collect();
    assert_eq!(interned.len(), 4, "{interned:?}");
    for s in ["hello", "ab", "abcdef", ""] {
        assert!(interned.contains(&s), "{s:?} is not interned");
    }
    assert!(host_lines["t3"][0].contains("str hello|ab      |abc||"));
    // A bad pattern: exit 2, the option named.
    let bad = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--grep".as_ref(),
        "[unclosed".as_ref(),
    ])
    .expect_code(2);
    assert!(
        bad.stderr.contains("--grep: not a regular expression"),
        "{}",
        bad.stderr
    );
    // %s of a string computed at run time: exit 2, the fix named.
    std::fs::write(
        at("runtime.c"),
        "int printf(const char *, ...);\nvoid k(int i) { printf(\"%s\\n\", i ? \"odd\" : \"even\"); }\n",
    )
    .unwrap();
    crate::decode_commands::amdgpu_ir(&clang, &at("runtime.c"), &at("runtime.ll"));
    let bad = run([
        "lower".as_ref(),
        "--target".as_ref(),
        "amdgpu".as_ref(),
        "--stage".as_ref(),
        "buffer".as_ref(),
        at("runtime.ll").as_os_str(),
        "-o".as_ref(),
        at("runtime.out.ll").as_os_str(),
    ])
    .expect_code(2);
    assert!(
        bad.stderr.contains("`%s` of a string computed at run time")
            && bad.stderr.contains("give --runtime-strings N")
            && bad.stderr.contains("pass a string literal"),
        "{}",
        bad.stderr
    );
    assert!(!at("runtime.out.ll").exists());
    // An unknown prefix name: exit 2, the option and the fix named.
    let bad = run([
        "lower".as_ref(),
        "--target".as_ref(),
        "amdgpu".as_ref(),
        "--prefix".as_ref(),
        "wave".as_ref(),
        at("work.ll").as_os_str(),
    ])
    .expect_code(2);
    assert!(
        bad.stderr.contains("--prefix: unknown name `wave`")
            && bad.stderr.contains("e.g. --prefix site,block,thread"),
        "{}",
        bad.stderr
    );
}

/// The buffer's `bufferOffset` (its first 8 bytes: what the threads wrote), and the sum of
/// `--report-json`'s dwords over `lines` (each line's third word names its call's format).
pub(crate) fn written_and_reported<'a>(
    buffer: &Path,
    report: &Path,
    lines: impl Iterator<Item = &'a String>,
) -> (u64, u64) {
    let bytes = std::fs::read(buffer).unwrap();
    let written = u64::from_le_bytes(bytes[..8].try_into().unwrap());
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(report).unwrap()).unwrap();
    let dwords = |line: &str| -> u64 {
        let kind = line.split(' ').nth(2).unwrap();
        report["calls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["format"].as_str().unwrap().contains(&format!(" {kind} ")))
            .and_then(|c| c["dwords"].as_u64())
            .unwrap()
    };
    (written, lines.map(|l| dwords(l)).sum())
}

/// `--time-phases` prints every phase's time on stderr after the output is written, in the
/// table `cargo xtask bench lower` reads back, and changes nothing in the output; other
/// passes refuse it (exit 2).
#[test]
fn time_phases_reports_each_phase_and_changes_no_output() {
    let dir = scratch();
    let input = dir.path().join("k.ll");
    std::fs::write(&input, USED_RESULT).unwrap();
    let lower = |out: &Path, timed: bool| {
        let mut args = vec![
            "lower".as_ref(),
            "--target".as_ref(),
            "nvptx".as_ref(),
            input.as_os_str(),
            "-o".as_ref(),
            out.as_os_str(),
        ];
        if timed {
            args.push("--time-phases".as_ref());
        }
        run(args).expect_code(0)
    };
    let (plain, timed) = (dir.path().join("plain.ll"), dir.path().join("timed.ll"));
    let untimed = lower(&plain, false);
    assert!(
        !untimed.stderr.contains("phase times"),
        "{}",
        untimed.stderr
    );
    let report = lower(&timed, true).stderr;
    assert_eq!(
        std::fs::read(&timed).unwrap(),
        std::fs::read(&plain).unwrap()
    );
    assert!(
        report.starts_with(&format!(
            "fmtstr lower: phase times for {} (wall clock)\n",
            input.display()
        )),
        "{report}"
    );
    let rows: Vec<&str> = report
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .collect();
    assert_eq!(
        rows,
        [
            "read",
            "parse",
            "extract",
            "plan",
            "apply",
            "print+write",
            "sync",
            "total"
        ]
    );
    let times = fmtstr_tools::lower::PhaseTimes::from_table(&report).expect("a phase table");
    let total: f64 = report
        .lines()
        .find_map(|line| line.trim().strip_prefix("total"))
        .and_then(|rest| rest.trim().strip_suffix(" ms"))
        .and_then(|ms| ms.trim().parse().ok())
        .expect("a total row");
    let sum = [
        times.read,
        times.parse,
        times.lowering.extract,
        times.lowering.plan,
        times.lowering.apply,
        times.print_write,
        times.sync,
    ]
    .iter()
    .map(|d| d.as_secs_f64() * 1e3)
    .sum::<f64>();
    // Each row is rounded to 0.01 ms.
    assert!(
        (total - sum).abs() <= 0.045,
        "total {total} ms, rows {sum} ms"
    );
    assert!(times.parse > std::time::Duration::ZERO);

    let refused = run([
        "lower".as_ref(),
        "--pass".as_ref(),
        "strip".as_ref(),
        "--time-phases".as_ref(),
        input.as_os_str(),
    ])
    .expect_code(2);
    assert!(
        refused
            .stderr
            .contains("--time-phases applies to --pass printf"),
        "{}",
        refused.stderr
    );
}

/// The AMD protocol's host run of `work_c` (compiled with `clang_args` too): lowered with
/// `--target amdgpu --stage buffer --buffer-addrspace 1 --emit-strings strings.json` and
/// `options`, then built for x86_64
/// with `harness_c` (`lowered` and the plain `host` in `dir`); the id intrinsics read the
/// harness's thread numbers. Returns the lowered module's text.
fn lower_for_host_run(
    clang: &Path,
    dir: &Path,
    work_c: &str,
    harness_c: &str,
    clang_args: &[&str],
    options: &[&str],
) -> String {
    let at = |name: &str| dir.join(name);
    std::fs::write(at("work.c"), work_c).unwrap();
    std::fs::write(at("harness.c"), harness_c).unwrap();
    crate::decode_commands::amdgpu_ir_with(clang, &at("work.c"), &at("work.ll"), clang_args);
    let mut args: Vec<std::ffi::OsString> = [
        "lower",
        "--target",
        "amdgpu",
        "--stage",
        "buffer",
        "--buffer-addrspace",
        "1",
        "--emit-strings",
    ]
    .iter()
    .map(Into::into)
    .collect();
    args.push(at("strings.json").into());
    args.extend(options.iter().map(Into::into));
    args.push(at("work.ll").into());
    args.push("-o".into());
    args.push(at("work.buffer.ll").into());
    run(args).expect_code(0);
    let lowered = std::fs::read_to_string(at("work.buffer.ll")).unwrap();
    let host = lowered
        .replace("@llvm.amdgcn.workgroup.id.", "@fmtstr_host_workgroup_id_")
        .replace("@llvm.amdgcn.workitem.id.", "@fmtstr_host_workitem_id_")
        .replace("@llvm.trap()", "@fmtstr_host_trap()");
    crate::decode_commands::build_host_run(clang, dir, &host);
    lowered
}

/// The harness with the id stand-ins of the `--prefix` tests.
fn harness_with_ids() -> String {
    crate::decode_commands::HARNESS_C
        .replace(
            "static unsigned char *buffer;",
            &format!("static unsigned char *buffer;\n{HOST_IDS_C}"),
        )
        .replace(
            "int tid = (int)(intptr_t)arg;",
            "int tid = (int)(intptr_t)arg;\n    current_thread = tid;",
        )
}

/// `--prefix seq` on the host run of the AMD protocol (8 pthreads, x86_64): every decoded line
/// carries its own number; `fmtstr gaps` finds none missing when the buffer holds everything,
/// `decode --sort prefix` restores the order of the prints, and with a buffer too small the
/// numbers the log lacks are exactly the prints the threads made but the buffer did not keep.
#[test]
fn sequence_numbers_make_lost_prints_visible() {
    use crate::decode_commands::{by_thread, checked, WORK_C};
    let Some(clang) = require_llvm(Llvm::V19, Tool::Clang) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    let lowered = lower_for_host_run(
        &clang,
        dir.path(),
        WORK_C,
        &harness_with_ids(),
        &[],
        &["--prefix", "seq,local"],
    );
    assert!(
        lowered.contains("@fmtstr_printf_seq = addrspace(1) global i64 zeroinitializer, align 8")
    );
    assert!(lowered.contains("atomicrmw add ptr addrspace(1) @fmtstr_printf_seq, i64 1 monotonic"));
    let calls = "200";
    let host = checked(std::process::Command::new(at("host")).arg(calls));
    let prints: usize = by_thread(&String::from_utf8(host.stdout).unwrap())
        .values()
        .map(Vec::len)
        .sum();
    let decode = |buffer: &str| {
        run([
            "decode".as_ref(),
            at(buffer).as_os_str(),
            "--strings".as_ref(),
            at("strings.json").as_os_str(),
            "--sort".as_ref(),
            "prefix".as_ref(),
        ])
    };
    let gaps = |log: &[u8]| -> (i32, serde_json::Value) {
        std::fs::write(at("run.log"), log).unwrap();
        let run = run([
            "gaps".as_ref(),
            "--json".as_ref(),
            at("run.log").as_os_str(),
        ]);
        let json = serde_json::from_slice(&run.stdout).unwrap();
        assert_matches_schema("gaps.schema.json", &json);
        (run.code, json)
    };
    // A buffer that holds every print: numbers 0 .. prints-1, each once, in order once sorted.
    checked(
        std::process::Command::new(at("lowered"))
            .args([calls, &(1u64 << 22).to_string()])
            .arg(at("all.bin")),
    );
    let all = decode("all.bin").expect_code(0);
    let (code, json) = gaps(&all.stdout);
    assert_eq!(code, 0, "{json}");
    assert_eq!(json["numbered"], prints as u64);
    assert_eq!(json["highest"], prints as u64 - 1);
    assert_eq!(json["missing"], 0);
    let numbers: Vec<u64> = all
        .stdout_text()
        .lines()
        .filter_map(|line| fmtstr_tools::gaps::sequence_number(line.as_bytes()))
        .collect();
    assert!(
        numbers.iter().enumerate().all(|(k, &n)| n == k as u64),
        "not in order"
    );
    // Lines a test removes from the log are exactly what gaps finds missing.
    let half = prints as u64 / 2;
    let removed = [5u64, 6, 7, 100, half];
    let kept: String = all
        .stdout_text()
        .lines()
        .filter(|line| {
            !removed.contains(&fmtstr_tools::gaps::sequence_number(line.as_bytes()).unwrap())
        })
        .map(|line| format!("{line}\n"))
        .collect();
    let (code, json) = gaps(kept.as_bytes());
    assert_eq!(code, 1);
    assert_eq!(
        json["missing_ranges"],
        serde_json::json!([[5, 7], [100, 100], [half, half]])
    );
    assert_eq!(json["missing"], 5);
    // Text without numbers, and garbage: exit 2, the fix named.
    for log in [&b"x=1\n[block 1,0,0] y\n"[..], &[0xff, 0, 0x80, b'\n'][..]] {
        std::fs::write(at("bad.log"), log).unwrap();
        let bad = run(["gaps".as_ref(), at("bad.log").as_os_str()]).expect_code(2);
        assert!(bad.stderr.contains("--prefix seq"), "{}", bad.stderr);
    }
    // A buffer for about a third: what the log lacks below its highest number are lost prints,
    // and what it has plus what it lacks never exceeds what the threads printed.
    let all_bytes = std::fs::read(at("all.bin")).unwrap();
    let total_dwords = u64::from_le_bytes(all_bytes[..8].try_into().unwrap());
    checked(
        std::process::Command::new(at("lowered"))
            .args([calls, &(total_dwords / 3).to_string()])
            .arg(at("small.bin")),
    );
    let small = decode("small.bin");
    assert!(small.code == 0 || small.code == 1, "{}", small.stderr);
    let (code, json) = gaps(&small.stdout);
    let numbered = json["numbered"].as_u64().unwrap();
    let missing = json["missing"].as_u64().unwrap();
    assert!(numbered > 0 && (numbered as usize) < prints, "{json}");
    assert!(numbered + missing <= prints as u64, "{json}");
    assert_eq!(code, if missing > 0 { 1 } else { 0 });
    assert!(json["repeated"].as_array().unwrap().is_empty());
}

/// `--limit-per-site N` on the host run of the AMD protocol (8 pthreads, x86_64): each of the
/// 5 sites of work() prints exactly N lines and exactly one marker, whatever the threads'
/// interleaving, and nothing else reaches the buffer (`decode --strict` finds no stray dwords).
#[test]
fn each_site_prints_its_limit_and_one_marker() {
    use crate::decode_commands::{checked, HARNESS_C, WORK_C};
    let Some(clang) = require_llvm(Llvm::V19, Tool::Clang) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    let lowered = lower_for_host_run(
        &clang,
        dir.path(),
        WORK_C,
        HARNESS_C,
        &[],
        &["--limit-per-site", "10", "--prefix", "site"],
    );
    assert!(lowered
        .contains("@fmtstr_printf_site_counts = addrspace(1) global [5 x i32] zeroinitializer"));
    // 50 rounds on 8 threads: 400 calls of each site (136 of the one behind i % 3 == 0).
    checked(
        std::process::Command::new(at("lowered"))
            .args(["50", &(1u64 << 22).to_string()])
            .arg(at("all.bin")),
    );
    let decoded = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--strict".as_ref(),
    ])
    .expect_code(0);
    let text = decoded.stdout_text();
    for kind in [" int ", " long ", " double ", " short ", " width ["] {
        let lines = text.lines().filter(|line| line.contains(kind)).count();
        assert_eq!(lines, 10, "{kind:?} printed {lines} times:\n{text}");
    }
    let markers: Vec<&str> = text
        .lines()
        .filter(|line| line.ends_with(": further output of this call dropped (limit 10)"))
        .collect();
    assert_eq!(markers.len(), 5, "{text}");
    let distinct: std::collections::BTreeSet<&&str> = markers.iter().collect();
    assert_eq!(distinct.len(), 5, "a marker printed twice: {markers:?}");
    assert_eq!(text.lines().count(), 55);
    // With --prefix site, each line starts with its site (work() has no debug information:
    // its name), and decode --json gives each entry's sites from the table.
    // (the markers are fmtstr's own lines, made after the prefix: they name their site).
    assert!(
        text.lines()
            .all(|line| line.starts_with("[work] ") || line.contains("further output")),
        "{text}"
    );
    // Without debug information a marker names the .ll line of the call it stands for (the
    // call that --prefix replaced).
    let source = std::fs::read_to_string(at("work.ll")).unwrap();
    for (number, line) in source.lines().enumerate() {
        if line.contains("@printf(") && !line.starts_with("declare") {
            assert!(
                text.contains(&format!(
                    "work:{}: further output of this call dropped",
                    number + 1
                )),
                "no marker for work.ll:{}:\n{text}",
                number + 1
            );
        }
    }
    let json = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--json".as_ref(),
    ])
    .expect_code(0);
    let objects: Vec<serde_json::Value> = json
        .stdout_text()
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(objects.len(), 55);
    for object in &objects {
        assert_eq!(object["sites"], serde_json::json!(["work"]), "{object}");
        assert_matches_schema("decode.schema.json", object);
    }
    // decode --stats: per site, the lines printed and the limit hit.
    let stats = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--stats".as_ref(),
        "--json".as_ref(),
    ])
    .expect_code(0);
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_matches_schema("decode.schema.json", &stats);
    // One function, so one site name for all five calls: 5 x 10 lines, the limit hit.
    assert_eq!(
        stats["sites"],
        serde_json::json!([{"site": "work", "entries": 50, "limit_hit": true}])
    );
    // dump shows them under each entry of a PAL ELF that holds the table.
    run([
        "embed".as_ref(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        root().join("samples/pal/no_strings.elf").as_os_str(),
        "-o".as_ref(),
        at("sites.elf").as_os_str(),
    ])
    .expect_code(0);
    let dumped = run(["dump".as_ref(), at("sites.elf").as_os_str()]).expect_code(0);
    assert_eq!(
        dumped
            .stdout_text()
            .matches("      printed at work\n")
            .count(),
        10,
        "{}",
        dumped.stdout_text()
    );
    // --limit-per-site 0 and with --prefix seq: refused, the fix named.
    for args in [
        vec!["--limit-per-site", "0"],
        vec!["--limit-per-site", "2", "--prefix", "seq"],
    ] {
        let bad = run(["lower", "--target", "nvptx"]
            .into_iter()
            .chain(args.iter().copied())
            .map(std::ffi::OsStr::new)
            .chain([at("work.ll").as_os_str()]))
        .expect_code(2);
        assert!(bad.stderr.contains("--limit-per-site"), "{}", bad.stderr);
    }
}

/// assert() in device code, as glibc's <assert.h> expands it.
const ASSERT_WORK_C: &str = r#"extern void __assert_fail(const char *expression, const char *file,
                          unsigned int line, const char *function) __attribute__((noreturn));
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __func__))
int printf(const char *format, ...);

void work(int tid, int i) {
    printf("t%d i%d\n", tid, i);
    assert(i < 3 && "i stays small");
}
"#;

/// `--pass assert` on the host run of the AMD protocol: each of 8 threads prints its lines,
/// then glibc's assert message for its failed assert (the trap ends the thread), and that
/// message is byte for byte what glibc's own `assert` prints after the program's name.
#[test]
fn a_failed_assert_prints_glibcs_message_through_printf() {
    use crate::decode_commands::{checked, HARNESS_C};
    let Some(clang) = require_llvm(Llvm::V19, Tool::Clang) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    // The trap ends the thread that failed, as a GPU trap ends its wave.
    let harness = HARNESS_C.replace(
        "static unsigned char *buffer;",
        "static unsigned char *buffer;\nvoid fmtstr_host_trap(void) { pthread_exit(NULL); }",
    );
    let lowered = lower_for_host_run(
        &clang,
        dir.path(),
        ASSERT_WORK_C,
        &harness,
        &[],
        &["--pass", "assert"],
    );
    assert!(!lowered.contains("__assert_fail"), "the assert call stayed");
    assert!(lowered.contains("call void @llvm.trap()"));
    checked(
        std::process::Command::new(at("lowered"))
            .args(["10", &(1u64 << 20).to_string()])
            .arg(at("all.bin")),
    );
    let decoded = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--strict".as_ref(),
    ])
    .expect_code(0);
    // glibc's own message: the host build aborts at the first failed assert.
    let host = std::process::Command::new(at("host"))
        .arg("10")
        .output()
        .unwrap();
    assert!(!host.status.success());
    let stderr = String::from_utf8(host.stderr).unwrap();
    let glibc = stderr
        .lines()
        .find_map(|line| line.split_once(": ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no assert message from glibc: {stderr}"));
    assert!(
        glibc.ends_with("Assertion `i < 3 && \"i stays small\"' failed."),
        "{glibc}"
    );
    let text = decoded.stdout_text();
    let asserts: Vec<&str> = text.lines().filter(|l| l.contains("Assertion")).collect();
    assert_eq!(asserts.len(), 8, "{text}");
    assert!(
        asserts.iter().all(|line| *line == glibc),
        "{asserts:?} vs {glibc}"
    );
    // Each thread printed i = 0..3 before its assert failed at i = 3.
    assert_eq!(text.lines().filter(|l| l.starts_with('t')).count(), 8 * 4);
}

/// `--limit-per-site` with `--prefix site` on a module with debug information: `decode
/// --stats` shows each site apart, with its lines and its limit hit (the site behind
/// `i % 3 == 0` runs 136 times, the others 400: all over 10), and each line starts with its
/// `file:line:column`.
#[test]
fn stats_show_each_site_with_its_limit() {
    use crate::decode_commands::{checked, HARNESS_C, WORK_C};
    let Some(clang) = require_llvm(Llvm::V19, Tool::Clang) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    lower_for_host_run(
        &clang,
        dir.path(),
        WORK_C,
        HARNESS_C,
        &["-g"],
        &["--limit-per-site", "10", "--prefix", "site"],
    );
    checked(
        std::process::Command::new(at("lowered"))
            .args(["50", &(1u64 << 22).to_string()])
            .arg(at("all.bin")),
    );
    let stats = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--stats".as_ref(),
        "--json".as_ref(),
    ])
    .expect_code(0);
    let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
    assert_matches_schema("decode.schema.json", &stats);
    let sites = stats["sites"].as_array().expect("sites");
    assert_eq!(sites.len(), 5, "{stats}");
    let mut lines: Vec<u64> = Vec::new();
    for site in sites {
        let name = site["site"].as_str().unwrap();
        assert!(
            name.starts_with(at("work.c").to_str().unwrap()) || name.starts_with("work.c:"),
            "{name}"
        );
        assert_eq!(site["entries"], 10, "{site}");
        assert_eq!(site["limit_hit"], true, "{site}");
        lines.push(name.split(':').nth_back(1).unwrap().parse().unwrap());
    }
    lines.sort_unstable();
    // work()'s five printf calls are on lines 4, 6, 8, 10 and 12 of WORK_C.
    assert_eq!(lines, [4, 6, 8, 10, 12]);
    let text = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--stats".as_ref(),
    ])
    .expect_code(0)
    .stdout_text();
    assert_eq!(text.matches("  hit    ").count(), 5, "{text}");
}

/// `%s` of strings built at run time, of every length from 0 to 12 around the 8 bytes copied,
/// with widths, precisions and null pointers. The host build cuts each string at `CUT` bytes
/// itself (its printf is the oracle for what the cut copy must print); the device build passes
/// them whole.
const RUNTIME_STRINGS_WORK_C: &str = r#"int printf(const char *format, ...);
#ifdef CUT
static const char *S(const char *p, char *keep) {
    if (!p) return p;
    int k = 0;
    for (; k < CUT && p[k]; k++) keep[k] = p[k];
    keep[k] = 0;
    return keep;
}
#else
#define S(p, keep) (p)
#endif

static char strings[8][40];
static char keeps[8][40];

void work(int tid, int i) {
    char *s = strings[tid & 7];
    char *keep = keeps[tid & 7];
    int len = (tid + i) % 13;
    for (int k = 0; k < len; k++) s[k] = 'a' + (tid * 7 + i + k) % 26;
    s[len] = 0;
    printf("t%d i%d str [%s] [%10s] [%-12s] [%.3s] len %d\n", tid, i, S(s, keep), S(s, keep),
           S(s, keep), S(s, keep), len);
    printf("t%d i%d two %s and %s\n", tid, i, S(s, keep), "a literal");
    printf("t%d i%d null [%s] [%8s] [%.2s]\n", tid, i, i % 4 == 0 ? (const char *)0 : S(s, keep),
           i % 3 == 0 ? (const char *)0 : S(s, keep), i % 2 == 0 ? (const char *)0 : S(s, keep));
}
"#;

/// `--runtime-strings 8` on the host run of the AMD protocol (8 pthreads, x86_64): strings of
/// 0 to 12 bytes built at run time decode exactly as the host's printf prints them cut at 8
/// bytes (widths, precisions, `(null)` included); a literal in another position stays
/// interned; `decode --stats` counts the strings that were cut, format by format; llc-19 and
/// llc-22 compile the lowered module for gfx1100. Without the option the lowering is refused
/// with the option named; out-of-range values and other stages are refused too.
#[test]
fn runtime_strings_decode_as_the_host_prints_them_cut() {
    use crate::decode_commands::{by_thread, checked, HARNESS_C};
    for llvm in Llvm::ALL {
        let Some(clang) = require_llvm(llvm, Tool::Clang) else {
            return;
        };
        let dir = scratch();
        let at = |name: &str| dir.path().join(name);
        let lowered = lower_for_host_run(
            &clang,
            dir.path(),
            RUNTIME_STRINGS_WORK_C,
            HARNESS_C,
            &[],
            &["--runtime-strings", "8"],
        );
        // The oracle: the host's printf of the same calls with every string cut at 8 bytes.
        checked(
            std::process::Command::new(&clang)
                .args(["-O1", "-pthread", "-fno-builtin-printf", "-DCUT=8", "-o"])
                .arg(at("host"))
                .arg(at("harness.c"))
                .arg(at("work.c")),
        );
        for tool in Llvm::ALL {
            if let Some(llc) = require_llvm(tool, Tool::Llc) {
                checked(
                    std::process::Command::new(llc)
                        .args([
                            "-mtriple=amdgcn-amd-amdpal",
                            "-mcpu=gfx1100",
                            "-o",
                            "/dev/null",
                        ])
                        .arg(at("work.buffer.ll")),
                );
            }
        }
        assert!(lowered.contains("printf.copy"), "{lowered}");
        let expected = checked(std::process::Command::new(at("host")).arg("40")).stdout;
        checked(
            std::process::Command::new(at("lowered"))
                .args(["40", &(1u64 << 22).to_string()])
                .arg(at("all.bin")),
        );
        let decoded = run([
            "decode".as_ref(),
            at("all.bin").as_os_str(),
            "--strings".as_ref(),
            at("strings.json").as_os_str(),
            "--strict".as_ref(),
        ])
        .expect_code(0);
        let expected = String::from_utf8(expected).unwrap();
        assert_eq!(
            by_thread(&decoded.stdout_text()),
            by_thread(&expected),
            "{llvm}"
        );
        assert_eq!(decoded.stdout_text().lines().count(), 8 * 40 * 3);
        // Strings longer than 8 bytes: (tid + i) % 13 in 9..=12, counted per format.
        let long = (0..8)
            .flat_map(|tid| (0..40).map(move |i| (tid + i) % 13))
            .filter(|len| *len > 8)
            .count() as u64;
        let stats = run([
            "decode".as_ref(),
            at("all.bin").as_os_str(),
            "--strings".as_ref(),
            at("strings.json").as_os_str(),
            "--stats".as_ref(),
            "--json".as_ref(),
        ])
        .expect_code(0);
        let stats: serde_json::Value = serde_json::from_slice(&stats.stdout).unwrap();
        assert_matches_schema("decode.schema.json", &stats);
        let cut = |needle: &str| {
            stats["formats"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["format"].as_str().is_some_and(|s| s.contains(needle)))
                .map(|f| f["strings_cut"].as_u64().unwrap())
                .unwrap()
        };
        assert_eq!(cut(" str "), 4 * long);
        assert_eq!(cut(" two "), long);
        let text_stats = run([
            "decode".as_ref(),
            at("all.bin").as_os_str(),
            "--strings".as_ref(),
            at("strings.json").as_os_str(),
            "--stats".as_ref(),
        ])
        .expect_code(0)
        .stdout_text();
        assert!(
            text_stats.contains("%s strings cut at the bytes reserved"),
            "{text_stats}"
        );
        // The table marks the copied arguments; the literal of " two " stays interned.
        let table: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(at("strings.json")).unwrap()).unwrap();
        let text = table.to_string();
        assert!(text.contains(".fmtstr_inline_strings"), "{text}");
        assert!(text.contains("a literal"), "{text}");

        // Without the option, or with a value out of range, or at the lgc stage: refused.
        let refused = run([
            "lower".as_ref(),
            "--target".as_ref(),
            "amdgpu".as_ref(),
            "--stage".as_ref(),
            "buffer".as_ref(),
            at("work.ll").as_os_str(),
        ])
        .expect_code(2);
        assert!(
            refused.stderr.contains("--runtime-strings N"),
            "{}",
            refused.stderr
        );
        for args in [
            vec!["--stage", "buffer", "--runtime-strings", "0"],
            vec!["--stage", "buffer", "--runtime-strings", "4097"],
            vec!["--stage", "lgc", "--runtime-strings", "8"],
        ] {
            let bad = run(["lower", "--target", "amdgpu"]
                .into_iter()
                .chain(args.iter().copied())
                .map(std::ffi::OsStr::new)
                .chain([at("work.ll").as_os_str()]))
            .expect_code(2);
            assert!(bad.stderr.contains("--runtime-strings"), "{}", bad.stderr);
        }
    }
}
