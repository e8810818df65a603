//! `fmtstr_tools::abi` through its public API: the plan checked against the PTX the real llc
//! (19 and 22) writes for a small module, what the check says when the PTX differs or is not
//! PTX at all, and the text and JSON the command prints. The counts a check reports are
//! counted again in llc's PTX text.

mod common;

use std::io::Write as _;
use std::process::{Command, Stdio};

use fmtstr_ir::Module;
use fmtstr_nvptx::abi::{plan_for_triple, Plan};
use fmtstr_nvptx::{Config, Llc};
use fmtstr_oracles::{require_llvm, Llvm, Tool};
use fmtstr_tools::abi::{check, render, CheckReport, Report};
use serde_json::Value as Json;

/// A kernel that calls a device function with a return value, and one atomic.
const MODULE: &str = r#"target datalayout = "e-i64:64-i128:128-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@out = global [4 x i64] zeroinitializer

define i32 @helper(i32 %x, double %y) {
  %c = fptosi double %y to i32
  %s = add i32 %x, %c
  ret i32 %s
}

define ptx_kernel void @k(i32 %a, double %b, ptr %p) {
  %r = call i32 @helper(i32 %a, double %b)
  store volatile i32 %r, ptr @out
  %old = atomicrmw add ptr %p, i32 1 seq_cst
  ret void
}
"#;

/// A module with globals and no functions: llc writes PTX without functions for it.
const GLOBALS_ONLY: &str = r#"target triple = "nvptx64-nvidia-cuda"

@g = global i32 7
"#;

fn plan_of(text: &str, config: &Config, triple: Option<&str>) -> Plan {
    let module = Module::parse("k.ll", text.as_bytes().to_vec()).expect("the module parses");
    plan_for_triple(&module, config, triple)
}

fn config_for(llvm: Llvm) -> Config {
    Config {
        llc: Llc::from_major(llvm.major()).expect("a release fmtstr plans for"),
        ..Config::default()
    }
}

/// The PTX that `llvm`'s llc writes for `text` at `config`'s SM, or None when it is not
/// installed (outside CI).
fn llc_ptx(llvm: Llvm, config: &Config, text: &str) -> Option<String> {
    let llc = require_llvm(llvm, Tool::Llc)?;
    let mut child = Command::new(llc)
        .args([
            "-march=nvptx64",
            &format!("-mcpu=sm_{}", config.sm),
            "-o",
            "-",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("llc runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .expect("write");
    let output = child.wait_with_output().expect("wait");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).expect("PTX is text"))
}

/// The instructions of the PTX's function bodies whose mnemonic starts with one of `prefixes`.
fn count_instructions(ptx: &str, prefixes: &[&str]) -> usize {
    ptx.lines()
        .map(str::trim_start)
        .filter(|line| prefixes.iter().any(|prefix| line.starts_with(prefix)))
        .count()
}

#[test]
fn the_ptx_llc_writes_agrees_with_the_plan() {
    for llvm in Llvm::ALL {
        let config = config_for(llvm);
        let Some(ptx) = llc_ptx(llvm, &config, MODULE) else {
            continue;
        };
        let plan = plan_of(MODULE, &config, None);
        let report = check(&plan, "k.ptx", ptx.clone().into_bytes(), false, None)
            .unwrap_or_else(|error| panic!("{llvm}: {error}"));
        assert!(
            report.differences.is_empty(),
            "{llvm}: {:#?}\n{ptx}",
            report.differences
        );
        // What was compared, counted in llc's PTX: two definitions, one call, the atomic,
        // and every ld.param and st.param.
        let functions = count_instructions(&ptx, &[".visible .func", ".visible .entry"]);
        assert_eq!(functions, 2, "{ptx}");
        assert_eq!(report.functions, functions, "{llvm}");
        assert_eq!(report.calls, count_instructions(&ptx, &["call"]), "{llvm}");
        assert_eq!(
            report.atomics,
            count_instructions(&ptx, &["atom."]),
            "{llvm}"
        );
        assert_eq!(
            report.accesses,
            count_instructions(&ptx, &["ld.param", "st.param"]),
            "{llvm}"
        );
        assert_eq!((report.calls, report.atomics), (1, 1), "{llvm}");

        let text = render(&plan, Some(&report));
        assert!(
            text.ends_with(&format!(
                "k.ptx: agrees with the plan ({} functions, {} calls, {} ld.param/st.param, {} atomics)\n",
                report.functions, report.calls, report.accesses, report.atomics
            )),
            "{llvm}: {text}"
        );
        // The heading names the llc, the SM and the PTX version that llc wrote.
        let version = ptx
            .lines()
            .find_map(|line| line.strip_prefix(".version "))
            .expect("PTX has a .version");
        let heading = text.lines().next().unwrap();
        assert!(
            heading.starts_with(&format!(
                "plan for llc-{} -march=nvptx64 -mcpu=sm_{} (PTX {version}, ",
                llvm.major(),
                config.sm
            )),
            "{heading}"
        );
        // Every planned function is declared in the PTX with the directive the plan names.
        for function in &plan.functions {
            let declared = ptx.lines().any(|line| {
                line.starts_with(&function.directive)
                    && line.contains(&format!("{}(", function.ptx_name))
            });
            assert!(
                declared,
                "{llvm}: {} {}\n{ptx}",
                function.directive, function.ptx_name
            );
            assert!(text.contains(&format!("@{}: ", function.name)), "{text}");
        }
    }
}

#[test]
fn a_declaration_that_differs_is_a_difference_of_its_function() {
    let llvm = Llvm::V22;
    let config = config_for(llvm);
    let Some(ptx) = llc_ptx(llvm, &config, MODULE) else {
        return;
    };
    // helper's double is 64 bits; pretend llc declared 32.
    let edited = ptx.replace(".param .b64 helper_param_1", ".param .b32 helper_param_1");
    assert_ne!(edited, ptx, "llc declares helper's double as .b64:\n{ptx}");
    let plan = plan_of(MODULE, &config, None);
    let report = check(&plan, "edited.ptx", edited.into_bytes(), false, None).expect("PTX");
    assert!(!report.differences.is_empty(), "the edit is noticed");
    for difference in &report.differences {
        assert_eq!(difference.function, "helper", "{difference:?}");
    }
    let text = render(&plan, Some(&report));
    assert!(
        text.contains("edited.ptx: difference in helper: "),
        "{text}"
    );
    assert!(!text.contains("agrees with the plan"), "{text}");
}

#[test]
fn a_plan_cut_to_some_functions_ignores_the_others_only_when_told() {
    let llvm = Llvm::V22;
    let config = config_for(llvm);
    let Some(ptx) = llc_ptx(llvm, &config, MODULE) else {
        return;
    };
    let mut plan = plan_of(MODULE, &config, None);
    plan.functions.retain(|function| function.name == "k");
    assert_eq!(plan.functions.len(), 1);
    // `--function k`: helper is in the PTX and not in the plan, and that is expected.
    let filtered = check(&plan, "k.ptx", ptx.clone().into_bytes(), true, None).expect("PTX");
    assert!(
        filtered.differences.is_empty(),
        "{:#?}",
        filtered.differences
    );
    // Without saying so, the plan lacks a function the PTX has.
    let whole = check(&plan, "k.ptx", ptx.into_bytes(), false, None).expect("PTX");
    assert!(
        whole.differences.iter().any(|d| d.function == "helper"),
        "{:#?}",
        whole.differences
    );
}

#[test]
fn input_that_is_not_ptx_is_refused_with_the_reason() {
    let plan = plan_of(MODULE, &Config::default(), None);
    let error = check(&plan, "k.ptx", vec![b'.', 0xff, 0xfe], false, None).unwrap_err();
    assert!(error.starts_with("k.ptx is not PTX"), "{error}");
    assert!(error.contains("UTF-8"), "{error}");
    let error = check(&plan, "notes.txt", b"hello\n".to_vec(), false, None).unwrap_err();
    assert!(error.starts_with("notes.txt is not PTX"), "{error}");
    assert!(error.contains(".target"), "{error}");
}

#[test]
fn a_module_without_functions_agrees_with_ptx_without_functions() {
    let plan = plan_of(GLOBALS_ONLY, &Config::default(), None);
    assert!(plan.functions.is_empty());
    let ptx =
        ".version 7.8\n.target sm_90\n.address_size 64\n\n.visible .global .align 4 .u32 g = 7;\n";
    let report = check(&plan, "g.ptx", ptx.as_bytes().to_vec(), false, None).expect("PTX");
    assert_eq!(report.functions, 0);
    assert!(report.differences.is_empty(), "{:#?}", report.differences);
}

#[test]
fn ptx_for_another_triple_than_the_plan_is_refused_with_the_fix() {
    // `texmode_independent` in `.target` is how llc marks PTX for OpenCL's nvcl triples.
    let ptx = b".version 7.8\n.target sm_90, texmode_independent\n.address_size 64\n".to_vec();
    let cuda = plan_of(GLOBALS_ONLY, &Config::default(), None);
    let error = check(&cuda, "cl.ptx", ptx.clone(), false, None).unwrap_err();
    assert!(error.starts_with("cl.ptx: "), "{error}");
    assert!(error.contains("--triple"), "{error}");
    // The plan made for that triple agrees.
    let triple = Some("nvptx64-unknown-nvcl");
    let nvcl = plan_of(GLOBALS_ONLY, &Config::default(), triple);
    let report = check(&nvcl, "cl.ptx", ptx, false, triple).expect("the triples agree");
    assert!(report.differences.is_empty(), "{:#?}", report.differences);
}

#[test]
fn the_json_report_is_the_plan_with_the_check_beside_it() {
    let plan = plan_of(MODULE, &Config::default(), None);
    let alone = serde_json::to_value(Report {
        plan: &plan,
        check: None,
    })
    .expect("serializable");
    common::assert_matches_schema("abi.schema.json", &alone);
    // The plan's own fields are the report's top level; no `check` without --check.
    assert_eq!(alone, serde_json::to_value(&plan).expect("serializable"));
    assert!(alone.get("check").is_none());
    let names: Vec<&str> = alone["functions"]
        .as_array()
        .expect("functions")
        .iter()
        .map(|f| f["name"].as_str().expect("a name"))
        .collect();
    assert_eq!(names, ["helper", "k"], "module order");
    assert_eq!(alone["config"]["sm"], 90);
    assert_eq!(alone["config"]["opt_byval"], true);

    let checked = CheckReport {
        ptx: "k.ptx".to_owned(),
        functions: 2,
        calls: 1,
        accesses: 9,
        atomics: 1,
        differences: Vec::new(),
    };
    let with_check: Json = serde_json::to_value(Report {
        plan: &plan,
        check: Some(checked),
    })
    .expect("serializable");
    common::assert_matches_schema("abi.schema.json", &with_check);
    assert_eq!(with_check["check"]["ptx"], "k.ptx");
    assert_eq!(with_check["check"]["accesses"], 9);
    assert_eq!(with_check["check"]["differences"], Json::Array(Vec::new()));
    assert_eq!(with_check["functions"], alone["functions"]);
}

#[test]
fn the_text_names_whose_llc_and_which_setting() {
    for (config, says) in [
        (
            Config::default(),
            "plan for llc-22 -march=nvptx64 -mcpu=sm_90 ",
        ),
        (
            Config {
                llc: Llc::V19,
                sm: 80,
                opt_byval: false,
            },
            "plan for llc-19 -march=nvptx64 -mcpu=sm_80 ",
        ),
    ] {
        let text = render(&plan_of(MODULE, &config, None), None);
        let heading = text.lines().next().unwrap();
        assert!(heading.starts_with(says), "{heading}");
        let setting = if config.opt_byval { "on" } else { "off" };
        assert!(
            heading.ends_with(&format!(", opt-byval {setting})")),
            "{heading}"
        );
        // One block per function, in module order, and nothing about a check.
        let helper = text
            .find("\n@helper: device function, ")
            .expect("helper's block");
        let kernel = text
            .find("\n@k: kernel, .visible .entry k")
            .expect("k's block");
        assert!(helper < kernel, "{text}");
        assert!(!text.contains("agrees with the plan"), "{text}");
    }
}
