//! IR parse and `lower` for NVPTX and for AMD (both stages): no panic, and what lowering
//! prints parses again.
#![no_main]

use fmtstr_ir::Module;
use fmtstr_lower::{lower, Options, Stage, Target};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(module) = Module::parse("fuzz.ll", data) else {
        return;
    };
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
