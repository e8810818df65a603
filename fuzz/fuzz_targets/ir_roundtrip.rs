//! LLVM IR text: whatever parses prints back as the same bytes.
#![no_main]

use fmtstr_ir::Module;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match Module::parse("fuzz.ll", data) {
        Ok(module) => assert!(
            module.print() == data,
            "an untouched module printed other bytes"
        ),
        // The message quotes the line with a caret: it must not panic either.
        Err(error) => drop(error.to_string()),
    }
});
