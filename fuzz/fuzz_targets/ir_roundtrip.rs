//! LLVM IR text: whatever parses prints back as the same bytes.
#![no_main]

use fmtstr_ir::Module;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(module) = Module::parse("fuzz.ll", data) {
        assert!(
            module.print() == data,
            "an untouched module printed other bytes"
        );
    }
});
