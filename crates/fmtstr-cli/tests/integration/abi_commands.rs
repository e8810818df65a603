//! `fmtstr abi`: the `.param` plan of a module, judged by llc-19 and llc-22. Every sample in
//! samples/abi/ is lowered with the struct-args pass, compiled with
//! `llc-N -march=nvptx64 -mcpu=sm_90` for N = 19 and 22, and `fmtstr abi SAMPLE --llc N
//! --check PTX` must find the PTX exactly as planned: declarations, every ld.param/st.param
//! (offset, width, vector arity), call sequences and prototypes, atomic mnemonics. The JSON
//! matches schemas/abi.schema.json.

use std::path::{Path, PathBuf};

use fmtstr_ir::Module;
use fmtstr_nvptx::{struct_args, Config};
use fmtstr_oracles::{require, require_llvm, Llvm, Tool};
use serde_json::Value as Json;

use crate::util::{assert_matches_schema, root, run};

fn samples() -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = std::fs::read_dir(root().join("samples/abi"))
        .expect("samples/abi")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .collect();
    list.sort();
    list
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-abi-test-")
        .tempdir()
        .expect("temp dir")
}

fn json(args: &[&str]) -> (i32, Json) {
    let out = run(args);
    let value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("not JSON ({e}):\n{}\n{}", out.stdout_text(), out.stderr));
    (out.code, value)
}

/// `fmtstr lower --pass struct-args`, then llc (and ptxas on its PTX).
fn compile(llc: &Path, sample: &Path, dir: &Path) -> PathBuf {
    compile_or_refuse(llc, sample, dir).unwrap_or_else(|e| panic!("{e}"))
}

/// [`compile`], or llc's refusal.
fn compile_or_refuse(llc: &Path, sample: &Path, dir: &Path) -> Result<PathBuf, String> {
    let lowered = dir.join("lowered.ll");
    let lowered_arg = lowered.to_str().expect("UTF-8 temp path");
    let sample_arg = sample.to_str().expect("UTF-8 sample path");
    run([
        "lower",
        "--pass",
        "struct-args",
        sample_arg,
        "-o",
        lowered_arg,
    ])
    .expect_code(0);
    let ptx = dir.join(format!(
        "{}.ptx",
        sample.file_stem().unwrap().to_string_lossy()
    ));
    let out = std::process::Command::new(llc)
        .args(["-march=nvptx64", "-mcpu=sm_90", "-o"])
        .arg(&ptx)
        .arg(&lowered)
        .output()
        .expect("llc runs");
    if !out.status.success() {
        return Err(format!(
            "{} rejects {}:\n{}",
            llc.display(),
            sample.display(),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    // And the PTX is valid PTX (externs stay unresolved: compile only).
    if let Some(ptxas) = require(Tool::Ptxas) {
        let out = std::process::Command::new(ptxas)
            .args(["-c", "-arch=sm_90", "-o", "/dev/null"])
            .arg(&ptx)
            .output()
            .expect("ptxas runs");
        assert!(
            out.status.success(),
            "ptxas rejects the PTX of {}:\n{}",
            sample.display(),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    Ok(ptx)
}

/// The samples whose plan for llc 22 says what it cannot vouch for, and why: llc 22 rejects
/// the 128-bit atomic of the first at sm_90 (PTX 7.8), where llc 19 calls libatomic.
const NOT_VOUCHED_BY_22: &[(&str, &str)] = &[(
    "llc-corners.ll",
    "llc 22 lowers 128-bit atomics to `atom.cas.b128`",
)];

#[test]
fn samples_compile_exactly_as_planned_by_llc_19() {
    samples_compile_exactly_as_planned(Llvm::V19);
}

#[test]
fn samples_compile_exactly_as_planned_by_llc_22() {
    samples_compile_exactly_as_planned(Llvm::V22);
}

/// Every sample through `llvm`'s llc agrees with `fmtstr abi --llc N --check`, except those
/// the plan for llc 22 says it cannot vouch for ([`NOT_VOUCHED_BY_22`]), which must exit 1
/// with that finding whatever llc does with them.
fn samples_compile_exactly_as_planned(llvm: Llvm) {
    let Some(llc) = require_llvm(llvm, Tool::Llc) else {
        return;
    };
    let major = llvm.major().to_string();
    let dir = scratch();
    let mut functions = 0;
    let mut calls = 0;
    let mut accesses = 0;
    let mut atomics = 0;
    for sample in samples() {
        let path = sample.display().to_string();
        let file = sample.file_name().unwrap().to_string_lossy().into_owned();
        let unvouched = NOT_VOUCHED_BY_22
            .iter()
            .find(|(name, _)| llvm == Llvm::V22 && *name == file);
        if let Some((_, why)) = unvouched {
            let (code, plan) = json(&["abi", &path, "--llc", &major, "--json"]);
            assert_eq!(code, 1, "{path}");
            assert_eq!(plan["config"]["llc"], 22);
            let findings = plan["findings"].as_array().unwrap();
            assert!(
                findings
                    .iter()
                    .any(|f| f["message"].as_str().unwrap().contains(why)),
                "{path}: {findings:#?}"
            );
            continue;
        }
        let ptx = compile(&llc, &sample, dir.path());
        let (code, report) = json(&[
            "abi",
            &path,
            "--llc",
            &major,
            "--check",
            ptx.to_str().unwrap(),
            "--json",
        ]);
        assert_matches_schema("abi.schema.json", &report);
        assert_eq!(report["config"]["llc"], llvm.major());
        assert_eq!(report["findings"], Json::Array(vec![]), "{path}");
        let check = &report["check"];
        assert_eq!(
            check["differences"],
            Json::Array(vec![]),
            "{path}: {check:#}"
        );
        assert_eq!(code, 0, "{path}");
        functions += check["functions"].as_u64().unwrap();
        calls += check["calls"].as_u64().unwrap();
        accesses += check["accesses"].as_u64().unwrap();
        atomics += check["atomics"].as_u64().unwrap();
        // The text form says the same.
        let text = run([
            "abi",
            &path,
            "--llc",
            &major,
            "--check",
            ptx.to_str().unwrap(),
        ])
        .expect_code(0);
        assert!(
            text.stdout_text().contains("agrees with the plan")
                && text
                    .stdout_text()
                    .starts_with(&format!("plan for llc-{major} -march=nvptx64 -mcpu=sm_90")),
            "{}",
            text.stdout_text()
        );
    }
    // llc 22 judges fewer: the samples of NOT_VOUCHED_BY_22 stop at their findings.
    let least = if llvm == Llvm::V19 { 150 } else { 140 };
    assert!(
        functions + calls >= least,
        "{functions} functions and {calls} calls"
    );
    assert!(
        accesses >= 1000 && atomics >= 50,
        "{accesses} accesses, {atomics} atomics"
    );
}

#[test]
fn check_reports_what_llc_did_differently() {
    let Some(llc) = require(Tool::Llc) else {
        return;
    };
    let dir = scratch();
    let sample = root().join("samples/abi/kinds.ll");
    let ptx = compile(&llc, &sample, dir.path());
    // Pretend llc declared the seed struct with 28 bytes (a number from the ABI's worked example).
    let text = std::fs::read_to_string(&ptx)
        .unwrap()
        .replace("byval_example_param_0[32]", "byval_example_param_0[28]");
    let edited = dir.path().join("edited.ptx");
    std::fs::write(&edited, text).unwrap();
    let out = run([
        "abi",
        sample.to_str().unwrap(),
        "--llc",
        "19",
        "--check",
        edited.to_str().unwrap(),
    ])
    .expect_code(1);
    let shown = out.stdout_text();
    assert!(
        shown.contains("difference in byval_example: params")
            && shown.contains("byval_example_param_0[28]")
            && shown.contains("byval_example_param_0[32]"),
        "{shown}"
    );
}

#[test]
fn plan_of_the_byval_example() {
    let sample = root().join("samples/abi/kinds.ll");
    let path = sample.to_str().unwrap();
    let out = run(["abi", path, "--function", "byval_example"]).expect_code(0);
    assert_eq!(
        out.stdout_text(),
        format!(
            "plan for llc-22 -march=nvptx64 -mcpu=sm_90 (PTX 7.8, opt-byval on)

@byval_example: kernel, .visible .entry byval_example ({path}:19)
  .param .align 8 .b8 byval_example_param_0[32]
      byval %S, row K&&B&&!G, read in place
      parts  f64@0 i8@8 i32@12 i32@16 i32@20 i32@24
      reads  ld.param.b64 [byval_example_param_0+0]  ld.param.b8 [byval_example_param_0+8]  ld.param.b32 [byval_example_param_0+24]
"
        )
    );
    let (code, plan) = json(&["abi", path, "--json", "--function", "byval_escape"]);
    assert_eq!(code, 0);
    assert_matches_schema("abi.schema.json", &plan);
    let param = &plan["functions"][0]["params"][0];
    assert_eq!(param["row"], "K&&B&&G");
    assert_eq!(param["read_mode"], "grid-constant");
    assert_eq!(
        plan["functions"][0]["calls"][0]["envelope"][0]["name"],
        "CallSeqBegin"
    );
    assert_eq!(
        plan["functions"][0]["calls"][0]["envelope"][0]["opcode"],
        0x203
    );

    // The lockstep setting: without the pass, llc copies the escaping struct.
    let (_, plan) = json(&[
        "abi",
        path,
        "--json",
        "--no-opt-byval",
        "--function",
        "byval_escape",
    ]);
    assert_eq!(plan["config"]["opt_byval"], false);
    let param = &plan["functions"][0]["params"][0];
    assert_eq!(param["row"], "K&&B&&!G");
    assert_eq!(param["read_mode"], "local-copy");
}

#[test]
fn json_is_the_library_plan() {
    let sample = root().join("samples/abi/generated-100.ll");
    let (code, value) = json(&["abi", sample.to_str().unwrap(), "--json"]);
    assert_eq!(code, 0);
    assert_matches_schema("abi.schema.json", &value);
    let module = Module::parse(
        &sample.display().to_string(),
        std::fs::read(&sample).unwrap(),
    )
    .unwrap();
    let plan = fmtstr_nvptx::abi::plan(&module, &Config::default());
    assert_eq!(value, serde_json::to_value(&plan).unwrap());
}

#[test]
fn atomics_below_sm_90() {
    let sample = root().join("samples/abi/kinds.ll");
    let (_, plan) = json(&[
        "abi",
        sample.to_str().unwrap(),
        "--json",
        "--sm",
        "60",
        "--llc",
        "19",
        "--function",
        "atomics",
    ]);
    let atomics = plan["functions"][0]["atomics"].as_array().unwrap();
    let mnemonic = |i: usize| atomics[i]["mnemonic"].as_str().unwrap().to_string();
    // half fadd needs sm_70 (and PTX 6.3); below, a CAS loop on the containing word.
    assert_eq!(mnemonic(4), "atom.global.cas.b32");
    assert_eq!(atomics[4]["lowering"], "cas-loop");
    // The vector atomic: llc 19 expands it on every SM; it is not refused below sm_90.
    assert_eq!(mnemonic(8), "atom.global.cas.b32");
    assert!(atomics[8]["note"]
        .as_str()
        .unwrap()
        .contains("vector atomics not supported on this architecture!"));
}

#[test]
fn findings_exit_one_with_positions() {
    let dir = scratch();
    let path = dir.path().join("odd.ll");
    std::fs::write(
        &path,
        "target triple = \"nvptx64-nvidia-cuda\"\n\ndefine void @f(x86_fp80 %v) {\n  ret void\n}\n\ndefine void @g(ptr %p) {\n  %a = atomicrmw add ptr %p, i24 1 monotonic\n  ret void\n}\n\ndefine available_externally void @ae() {\n  ret void\n}\n\ndefine void @h() {\n  call void @ae()\n  ret void\n}\n",
    )
    .unwrap();
    let out = run(["abi", path.to_str().unwrap()]).expect_code(1);
    let shown = out.stdout_text();
    let p = path.display();
    assert!(
        shown.contains(&format!(
            "{p}:3:1: finding: in @f: no parameter plan: `x86_fp80` has no PTX parameter form"
        )),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "{p}:8:3: finding: in @g: no measurement for `add` on `i24`"
        )),
        "{shown}"
    );
    assert!(
        shown.contains(&format!(
            "{p}:17:3: finding: in @h: llc 19 emits neither a body nor a declaration for available_externally @ae"
        )),
        "{shown}"
    );
}

#[test]
fn bad_input_names_file_line_column() {
    let dir = scratch();
    let path = dir.path().join("bad.ll");
    std::fs::write(&path, "define void @f() {\n  ret i32 %x\n}\n").unwrap();
    let out = run(["abi", path.to_str().unwrap()]).expect_code(2);
    assert!(
        out.stderr
            .starts_with(&format!("fmtstr: error: {}:2:", path.display())),
        "{}",
        out.stderr
    );

    let out = run(["abi", "/nonexistent/k.ll"]).expect_code(2);
    assert!(
        out.stderr.contains("cannot read /nonexistent/k.ll"),
        "{}",
        out.stderr
    );

    let bitcode = dir.path().join("k.bc");
    std::fs::write(&bitcode, b"BC\xC0\xDE\x35\x14\x00\x00").unwrap();
    let out = run(["abi", bitcode.to_str().unwrap()]).expect_code(2);
    assert!(out.stderr.contains("llvm-dis-19"), "{}", out.stderr);

    let sample = root().join("samples/abi/kinds.ll");
    let out = run(["abi", sample.to_str().unwrap(), "--function", "nope"]).expect_code(2);
    assert!(
        out.stderr.contains("no function named @nope"),
        "{}",
        out.stderr
    );

    let out = run([
        "abi",
        sample.to_str().unwrap(),
        "--check",
        bitcode.to_str().unwrap(),
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);

    // Text that is not PTX (no .target, no functions) is refused, not taken for an empty
    // module.
    let not_ptx = dir.path().join("notes.txt");
    std::fs::write(&not_ptx, "just some notes\n").unwrap();
    let out = run([
        "abi",
        sample.to_str().unwrap(),
        "--check",
        not_ptx.to_str().unwrap(),
    ])
    .expect_code(2);
    assert!(out.stderr.contains("is not PTX"), "{}", out.stderr);
}

#[test]
fn help_teaches_with_examples() {
    let out = run(["abi", "--help"]).expect_code(0);
    let help = out.stdout_text();
    for needle in [
        "Examples:",
        "fmtstr abi k.ll --check k.ptx",
        "llc-22 -march=nvptx64 -mcpu=sm_90",
        "llc-19 -march=nvptx64 -mcpu=sm_90",
        "--llc 19",
        "--no-opt-byval",
        "Exit codes:",
        "K&&B&&G",
    ] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
}

#[test]
fn lower_pass_struct_args_is_the_library_pass_with_the_shared_setting() {
    let sample = root().join("samples/abi/kernel-O1.ll");
    let sample_arg = sample.to_str().expect("UTF-8 sample path");
    let text = std::fs::read(&sample).expect("sample");

    let mut module = Module::parse(sample_arg, text.clone()).expect("parses");
    struct_args::run(&mut module, &Config::default()).expect("struct-args");
    let lowered = run(["lower", "--pass", "struct-args", sample_arg]).expect_code(0);
    assert_eq!(lowered.stdout, module.print());
    assert!(lowered.stderr.contains("rewritten"), "{}", lowered.stderr);

    // opt-byval off turns the pass into the identity, as it turns the planner's copies on.
    let untouched = run([
        "lower",
        "--pass",
        "struct-args",
        "--no-opt-byval",
        sample_arg,
    ]);
    assert_eq!(untouched.expect_code(0).stdout, text);

    let refused = run([
        "lower",
        "--pass",
        "struct-args",
        "--target",
        "amdgpu",
        sample_arg,
    ]);
    assert!(refused
        .expect_code(2)
        .stderr
        .contains("--target amdgpu applies to --pass printf"));
    let no_target = run(["lower", sample_arg]).expect_code(2);
    assert!(
        no_target.stderr.contains("needs --target"),
        "{}",
        no_target.stderr
    );
}

/// `--llc` chooses whose plan is printed (22 unless told), and says so in the first line and
/// in the JSON; the two differ where the two llc differ (a kernel's pointer parameters).
#[test]
fn llc_chooses_whose_plan_and_says_so() {
    let dir = scratch();
    let path = dir.path().join("k.ll");
    std::fs::write(
        &path,
        "target triple = \"nvptx64-nvidia-cuda\"\n\ndefine ptx_kernel void @k(ptr addrspace(1) align 4 %out, ptr %any) {\n  store i32 0, ptr addrspace(1) %out\n  ret void\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let declarations = |plan: &Json| -> Vec<String> {
        plan["functions"][0]["params"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["declaration"].as_str().unwrap().to_string())
            .collect()
    };
    let (code, default) = json(&["abi", p, "--json"]);
    assert_eq!(code, 0);
    assert_matches_schema("abi.schema.json", &default);
    assert_eq!(default["config"]["llc"], 22);
    assert_eq!(
        declarations(&default),
        [
            ".param .u64 .ptr .global .align 4 k_param_0",
            ".param .u64 .ptr .align 1 k_param_1"
        ]
    );
    let (_, old) = json(&["abi", p, "--json", "--llc", "19"]);
    assert_eq!(old["config"]["llc"], 19);
    assert_eq!(
        declarations(&old),
        [".param .u64 k_param_0", ".param .u64 k_param_1"]
    );
    let text = run(["abi", p, "--llc", "19"]).expect_code(0);
    assert!(
        text.stdout_text()
            .starts_with("plan for llc-19 -march=nvptx64 -mcpu=sm_90 (PTX 7.8, opt-byval on)\n"),
        "{}",
        text.stdout_text()
    );
    let refused = run(["abi", p, "--llc", "20"]).expect_code(2);
    assert!(refused.stderr.contains("20"), "{}", refused.stderr);
}

/// Where llc 22's lowering is not measured, the plan for llc 22 is a finding with the place,
/// while llc 19's plan stands.
#[test]
fn what_llc_22_lowers_otherwise_is_a_finding() {
    let dir = scratch();
    let path = dir.path().join("odd.ll");
    std::fs::write(
        &path,
        "target triple = \"nvptx64-nvidia-cuda\"\n\ndefine internal <{ i8, i32 }> @f(<{ i8, i32 }> %x) {\n  ret <{ i8, i32 }> %x\n}\n\ndefine void @g(ptr addrspace(1) %p, i128 %v) {\n  %r = cmpxchg ptr addrspace(1) %p, i128 %v, i128 0 seq_cst seq_cst\n  ret void\n}\n",
    )
    .unwrap();
    let p = path.to_str().unwrap();
    let shown = run(["abi", p]).expect_code(1).stdout_text();
    assert!(
        shown.contains(&format!(
            "{p}:3:1: finding: in @f: llc 22 splits the `i32` at byte 1 of `<{{ i8, i32 }}>`"
        )) && shown.contains(&format!(
            "{p}:8:3: finding: in @g: llc 22 lowers 128-bit atomics to `atom.cas.b128`"
        )),
        "{shown}"
    );
    run(["abi", p, "--llc", "19"]).expect_code(0);
}

/// llc's -mtriple replaces the module's triple; --check says so (exit 2) when the PTX was
/// written for another triple than the plan's, and --triple makes the plan for it.
#[test]
fn check_names_a_triple_the_plan_was_not_made_for() {
    let Some(llc) = require_llvm(Llvm::V19, Tool::Llc) else {
        return;
    };
    let dir = scratch();
    let module = dir.path().join("cl.ll");
    std::fs::write(
        &module,
        "target triple = \"nvptx64-unknown-nvcl\"\n\ndefine void @k(ptr addrspace(1) %out) {\n  store i32 1, ptr addrspace(1) %out\n  ret void\n}\n\n!nvvm.annotations = !{!0}\n!0 = !{ptr @k, !\"kernel\", i32 1}\n",
    )
    .unwrap();
    let ptx = dir.path().join("cl.ptx");
    let out = std::process::Command::new(&llc)
        .args(["-mtriple=nvptx64-nvidia-cuda", "-mcpu=sm_90", "-o"])
        .arg(&ptx)
        .arg(&module)
        .output()
        .expect("llc runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let (m, p) = (module.to_str().unwrap(), ptx.to_str().unwrap());
    let refused = run(["abi", m, "--llc", "19", "--check", p]).expect_code(2);
    assert!(
        refused
            .stderr
            .contains("the PTX was written for a CUDA triple")
            && refused.stderr.contains("--triple"),
        "{}",
        refused.stderr
    );
    let agreed = run([
        "abi",
        m,
        "--llc",
        "19",
        "--triple",
        "nvptx64-nvidia-cuda",
        "--check",
        p,
    ])
    .expect_code(0);
    assert!(
        agreed.stdout_text().contains("agrees with the plan"),
        "{}",
        agreed.stdout_text()
    );
}
