//! Typed arguments as `fmtstr printf` reads them: the format on the first line, then one
//! argument per line (`i32:7`, `v4f32:1,2,3,4`, a bare `3.5`). Each is typed by its prefix or
//! by the conversion that consumes it, read, checked (in every dialect) and rendered.
#![no_main]

use fmtstr_format::typed_args::{push_values, split, Declared};
use fmtstr_format::{check, check_format, ArgClass, ArgSlot, Dialect, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut lines = text.split('\n');
    let format_bytes = lines.next().unwrap_or_default().as_bytes();
    // The checker reads formats its own lenient way, so it judges every format, parsed or not.
    let declared: Vec<_> = text
        .split('\n')
        .skip(1)
        .filter_map(|argument| split(argument.as_bytes()).0.map(Declared::arg_type))
        .collect();
    for dialect in [Dialect::C, Dialect::OpenCl, Dialect::Gpu, Dialect::Vvl] {
        for finding in check_format(format_bytes, &declared, dialect) {
            let offset = finding.offset.unwrap_or(0);
            assert!(
                offset <= format_bytes.len(),
                "{finding:?} is past the format"
            );
        }
    }
    let Ok(format) = Format::parse(format_bytes) else {
        return;
    };
    let specs: Vec<_> = format.specs().collect();
    let slots = format.arguments();
    let mut values = Vec::new();
    let mut types = Vec::new();
    for (index, argument) in lines.enumerate() {
        let (declared, value) = split(argument.as_bytes());
        // The text came from a `&str`, and a type prefix ends at an ASCII ':'.
        let value = std::str::from_utf8(value).expect("a suffix of UTF-8 text after ':'");
        let expected = slots.get(index).map(|slot| match *slot {
            ArgSlot::Star { .. } => (Declared::STAR, false),
            ArgSlot::Value { spec } => (
                Declared::expected_by(specs[spec]),
                specs[spec].class() == ArgClass::Char,
            ),
        });
        let (declared, bare_char) = match (declared, expected) {
            (Some(declared), _) => (declared, false),
            (None, Some(expected)) => expected,
            (None, None) => return,
        };
        if let Err(error) = push_values(declared, value, bare_char, &mut values) {
            let _ = error.to_string();
            return;
        }
        types.push(declared.arg_type());
    }
    let _ = check(&format, &types);
    let _ = format.render_to_vec(&values);
});
