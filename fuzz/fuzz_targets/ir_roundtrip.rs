//! LLVM IR text: whatever parses prints back as the same bytes, whole or parsed sparsely (the
//! lines that name `call` parsed, the rest kept as text where it can be), and a sparse parse
//! accepts what the whole parse accepts.
#![no_main]

use fmtstr_ir::Module;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    match Module::parse("fuzz.ll", data) {
        Ok(module) => {
            assert!(
                module.print() == data,
                "an untouched module printed other bytes"
            );
            let find_call = |t: &[u8]| memchr::memmem::find(t, b"call");
            let shards = Module::parse_shards_where("fuzz.ll", data, 1, &find_call)
                .expect("a sparse parse refused what the whole parse accepted");
            let mut printed = Vec::new();
            Module::write_shards(&shards, &mut printed).expect("print");
            assert!(printed == data, "a sparse parse printed other bytes");
        }
        // The message quotes the line with a caret: it must not panic either.
        Err(error) => drop(error.to_string()),
    }
});
