//! The SPIR-V reader: a module's DebugPrintf calls, their argument types and the table they
//! give.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = fmtstr_spirv::is_spirv(data);
    let module = match fmtstr_spirv::read(data) {
        Ok(module) => module,
        Err(error) => return drop(error.to_string()),
    };
    for call in &module.calls {
        let _ = fmtstr_spirv::argument_types(call);
        let _ = fmtstr_spirv::entry(call);
    }
    if let Ok(table) = fmtstr_spirv::table(&module.calls) {
        let mut encoded = Vec::new();
        table.encode(&mut encoded);
        fmtstr_meta::Table::decode(&encoded).expect("a derived table decodes");
    }
});
