//! IR parse and `lower` for NVPTX and for AMD (both stages): no panic, and what lowering
//! prints parses again. The NVPTX lowering of a sparse parse (the CLI's: only the lines that
//! name printf, and those that use their results) prints what lowering the whole module
//! prints, with the same diagnostics.
#![no_main]

use fmtstr_ir::Module;
use fmtstr_lower::{lower, lower_shards, printf_filter, Options, Stage, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(module) = Module::parse("fuzz.ll", data) else {
        return;
    };
    sparse_lowers_as_whole(&module, data);
    for target in [
        Target::nvptx(),
        Target::amdgpu(Stage::Lgc),
        Target::amdgpu(Stage::Buffer),
    ] {
        let mut module = module.clone();
        let lowered = lower(&mut module, &Options::new(target));
        // Diagnostics quote the call and the format with a caret: printing them must not panic.
        let diagnostics = match &lowered {
            Ok(lowered) => &lowered.warnings,
            Err(failed) => &failed.diagnostics,
        };
        for diagnostic in diagnostics {
            drop(diagnostic.to_string());
        }
        if lowered.is_ok() {
            let printed = module.print();
            match Module::parse("lowered.ll", printed.clone()) {
                // Lowering what was lowered finds nothing left to do, or refuses; never panics.
                Ok(mut again) => drop(lower(&mut again, &Options::new(target))),
                Err(error) => panic!(
                    "lowering for {target:?} printed IR that does not parse: {error}\n{}",
                    String::from_utf8_lossy(&printed)
                ),
            }
        }
    }
});

fn sparse_lowers_as_whole(module: &Module, data: &[u8]) {
    let options = Options::new(Target::nvptx());
    let mut whole = module.clone();
    let expected = lower(&mut whole, &options);
    let mut shards = Module::parse_shards_where("fuzz.ll", data, 1, &printf_filter())
        .expect("a sparse parse refused what the whole parse accepted");
    let lowered = lower_shards(&mut shards, &options);
    let show = |r: &Result<fmtstr_lower::Lowered, fmtstr_lower::Failed>| match r {
        Ok(l) => format!(
            "ok {}: {:?}",
            l.calls,
            l.warnings.iter().map(|d| d.to_string()).collect::<Vec<_>>()
        ),
        Err(f) => format!(
            "err: {:?}",
            f.diagnostics
                .iter()
                .map(|d| d.to_string())
                .collect::<Vec<_>>()
        ),
    };
    assert_eq!(
        show(&lowered),
        show(&expected),
        "sparse and whole lowerings differ"
    );
    let mut printed = Vec::new();
    Module::write_shards(&shards, &mut printed).expect("print");
    assert!(
        printed == whole.print(),
        "the sparse lowering prints differently:\n{}\n---- whole:\n{}",
        String::from_utf8_lossy(&printed),
        String::from_utf8_lossy(&whole.print())
    );
}
