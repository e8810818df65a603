//! What `cargo xtask fuzz` found in fmtstr-decode, reduced and written out by hand.

use fmtstr_decode::{decode_to_vec, stream, Buffer, Formats};
use fmtstr_meta::{Entry, FormatId, Mask, Table};
use fmtstr_oracles::glibc::{snprintf, CArg};

/// A 64-bit `%s` prints the string of the table entry its payload names (an interned string),
/// which can be far longer than a pointer's placeholder. The text bound of the format alone
/// missed that (the decode_amd target: 42 bytes printed against a bound of 37), so the windows
/// the parallel decoder cuts by text size could exceed their budget;
/// `Formats::text_bound` now adds the longest string per 64-bit `%s`.
#[test]
fn the_text_bound_counts_the_strings_a_wide_percent_s_names() {
    let long = "a format string of the table, longer than any placeholder: %d\n";
    let entries = vec![
        Entry::new(
            FormatId::new(1).unwrap(),
            long,
            1,
            Mask::for_arguments(1, []),
        ),
        // Argument 0 is 64-bit: its payload is an entry's ID.
        Entry::new(
            FormatId::new(2).unwrap(),
            "s=%s|\n",
            1,
            Mask::for_arguments(1, [0]),
        ),
    ];
    let formats = Formats::from_tables([(
        "table.json".to_string(),
        Table {
            entries,
            ..Table::new()
        },
    )]);
    // bufferOffset = 4 dwords: one entry of size 4 (header, then the ID 1 in two dwords).
    let mut bytes = vec![0u8; 16];
    bytes[0] = 4;
    bytes.extend_from_slice(&(4u64 | 2 << 16).to_le_bytes());
    bytes.extend_from_slice(&1u64.to_le_bytes());
    let buffer = Buffer::parse(&bytes).unwrap();

    let decoded = decode_to_vec(&buffer, &formats);
    assert_eq!(decoded.text, format!("s={long}|\n").as_bytes());
    let compiled = formats.get(2).unwrap().compiled().unwrap();
    assert_eq!(compiled.wide_strings(), 1);
    assert!(
        decoded.text.len() as u64 > compiled.text_bound(),
        "the format's own bound does not hold this"
    );
    assert!(decoded.text.len() as u64 <= formats.text_bound(compiled));

    // Windows cut by text size see the same bound: one entry per window here.
    let windows: Vec<_> = stream::Windows::bounded(&buffer, 1 << 20, &formats, 1).collect();
    assert_eq!(windows.len(), 1);
    assert_eq!(windows[0], 0..4);
}

/// `%.*p` prints as many digits as its precision asks (glibc pads a pointer like an integer),
/// but the text bound gave `%p` 24 bytes whatever its precision (the decode_amd target: 275
/// bytes printed against a bound of 43).
#[test]
fn the_text_bound_of_a_pointer_counts_its_precision() {
    let entries = vec![Entry::new(
        FormatId::new(7).unwrap(),
        "p=%.*p\n",
        2,
        // The `*` is one dword, the pointer two.
        Mask::for_arguments(2, [1]),
    )];
    let formats = Formats::from_tables([(
        "table.json".to_string(),
        Table {
            entries,
            ..Table::new()
        },
    )]);
    // bufferOffset = 5 dwords: one entry of size 5 (header, the precision 200, the pointer).
    let mut bytes = vec![0u8; 16];
    bytes[0] = 5;
    bytes.extend_from_slice(&(5u64 | 7 << 16).to_le_bytes());
    bytes.extend_from_slice(&200u32.to_le_bytes());
    bytes.extend_from_slice(&0x1234u64.to_le_bytes());
    let buffer = Buffer::parse(&bytes).unwrap();

    let decoded = decode_to_vec(&buffer, &formats);
    assert!(decoded.problems.is_empty(), "{:?}", decoded.problems);
    // SAFETY: `%.*p` takes an int and a pointer, as given.
    #[allow(unsafe_code)]
    let glibc = unsafe { snprintf(c"p=%.*p\n", &[CArg::Int(200), CArg::Ptr(0x1234)]) };
    assert_eq!(decoded.text, glibc);
    assert_eq!(glibc.len(), 205, "0x and 200 digits");
    let compiled = formats.get(7).unwrap().compiled().unwrap();
    assert!(decoded.text.len() as u64 <= formats.text_bound(compiled));
}
