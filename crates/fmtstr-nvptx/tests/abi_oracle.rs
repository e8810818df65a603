//! The planner against llc 19: generated modules with every kind of parameter, return
//! value, call and atomic, compiled with `llc-19 -march=nvptx64 -mcpu=sm_90` after the
//! struct-args pass; every declaration, every `ld.param`/`st.param` (offset, width, vector
//! arity), every call sequence and every atomic mnemonic must be what the plan says.

mod common;

use fmtstr_ir::Module;
use fmtstr_nvptx::{abi, ptx, struct_args, Config};
use fmtstr_oracles::{require, Tool};

#[test]
fn generated_modules_compile_as_planned() {
    let Some(llc) = require(Tool::Llc) else {
        return;
    };
    let config = Config::default();
    let mut counts = common::Counts::default();
    let mut errors = Vec::new();
    let seeds: u64 = std::env::var("FMTSTR_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(3);
    for seed in 0..seeds {
        let (text, _) = common::gen::module(seed);
        let name = format!("gen{seed}.ll");
        let module = Module::parse(&name, text.clone()).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let plan = abi::plan(&module, &config);
        assert!(plan.findings.is_empty(), "{name}: {:#?}", plan.findings);
        let mut lowered = module.clone();
        struct_args::run(&mut lowered, &config).unwrap_or_else(|e| panic!("{name}: {e}"));
        if std::env::var_os("FMTSTR_KEEP").is_some() {
            std::fs::write(format!("/tmp/{name}"), lowered.print()).unwrap();
        }
        let out = common::llc(&llc, &lowered.print(), config.sm)
            .unwrap_or_else(|e| panic!("{name}: llc failed:\n{e}"));
        let functions = ptx::read(&out);
        for e in common::compare(&plan, &functions, &mut counts) {
            errors.push(format!("{name}: {e}"));
        }
        if std::env::var_os("FMTSTR_KEEP").is_some() {
            std::fs::write(format!("/tmp/{name}.ptx"), &out).unwrap();
        }
    }
    assert!(
        errors.is_empty(),
        "{} differences:\n{}",
        errors.len(),
        errors.join("\n")
    );
    eprintln!("{counts:?}");
    assert!(counts.functions + counts.calls >= 150, "{counts:?}");
}
