//! The table's decoding and encoding, against hand-made msgpack.

use super::*;

/// An entry map written key by key, in the order given.
fn entry_bytes(pairs: &[(&str, Value)]) -> Vec<u8> {
    let mut out = Vec::new();
    msgpack::write_map_len(&mut out, pairs.len() as u32);
    for (key, value) in pairs {
        msgpack::write_str(&mut out, key.as_bytes());
        msgpack::write_value(&mut out, value);
    }
    out
}

fn table_bytes(entries: &[Vec<u8>], version: Value) -> Vec<u8> {
    // LLVM sorts keys: .strings comes before .version.
    let mut out = Vec::new();
    msgpack::write_map_len(&mut out, 2);
    msgpack::write_str(&mut out, b".strings");
    msgpack::write_array_len(&mut out, entries.len() as u32);
    for entry in entries {
        out.extend_from_slice(entry);
    }
    msgpack::write_str(&mut out, b".version");
    msgpack::write_value(&mut out, &version);
    out
}

fn llvm_entry(id: u64, string: &str, argc: u64, mask: &[u64]) -> Vec<u8> {
    entry_bytes(&[
        (
            ".64bit_arguments",
            Value::Array(mask.iter().map(|w| Value::from(*w)).collect()),
        ),
        (".argument_count", Value::from(argc)),
        (".index", Value::from(id)),
        (".string", Value::from(string)),
    ])
}

#[test]
fn decodes_llvm_key_order_and_keeps_entry_bytes() {
    let first = llvm_entry(12345678, "Sample %i format %f", 2, &[0]);
    let second = entry_bytes(&[
        (".index", Value::from(31415926u64)),
        (".user_data_offset", Value::from(7u64)),
        (".string", Value::from("Another: %ld")),
        (".argument_count", Value::from(1u64)),
        (".64bit_arguments", Value::Array(vec![Value::from(1u64)])),
    ]);
    let bytes = table_bytes(&[first.clone(), second.clone()], Value::from(1u64));
    let table = Table::decode(&bytes).expect("decodes");
    assert_eq!(table.entries.len(), 2);
    let entry = &table.entries[0];
    assert_eq!(entry.id().get(), 12345678);
    assert_eq!(entry.string(), "Sample %i format %f");
    assert_eq!(entry.argument_count(), 2);
    assert_eq!(entry.mask().words(), &[0]);
    assert_eq!(entry.raw(), Some(first.as_slice()));
    assert_eq!(
        table.entries[1].extra(),
        &[(Value::from(".user_data_offset"), Value::from(7u64))]
    );
    // Re-encoding copies each entry's bytes and writes .version first.
    let again = table.to_msgpack();
    assert_eq!(again.len(), table.encoded_len());
    let back = Table::decode(&again).expect("decodes its own output");
    assert_eq!(back.entries[1].raw(), Some(second.as_slice()));
    // Owned entries are written canonically, and read back the same.
    let owned = table.clone().into_owned();
    let canonical = owned.to_msgpack();
    assert_eq!(canonical.len(), owned.encoded_len());
    let reread = Table::decode(&canonical).expect("canonical");
    for (a, b) in reread.entries.iter().zip(&table.entries) {
        assert!(a.same_as(b));
        assert_eq!(a.extra(), b.extra());
    }
}

fn problem(bytes: &[u8]) -> TableError {
    Table::decode(bytes).expect_err("rejected")
}

#[test]
fn rejects_what_the_issue_lists_with_paths() {
    let index_as_string = entry_bytes(&[
        (".index", Value::from("12")),
        (".string", Value::from("a")),
        (".argument_count", Value::from(0u64)),
        (".64bit_arguments", Value::Array(vec![])),
    ]);
    let error = problem(&table_bytes(&[index_as_string], Value::from(1u64)));
    assert_eq!(error.path, "amdpal.format_strings.strings[0].index");
    assert!(matches!(
        error.problem,
        Problem::WrongType {
            found: "a string",
            ..
        }
    ));
    assert!(
        error.to_string().contains("must be an unsigned integer"),
        "{error}"
    );

    let error = problem(&table_bytes(&[], Value::from(2u64)));
    assert_eq!(error.problem, Problem::UnsupportedVersion(2));
    assert_eq!(error.path, "amdpal.format_strings.version");

    let duplicate = entry_bytes(&[(".index", Value::from(1u64)), (".index", Value::from(2u64))]);
    let error = problem(&table_bytes(&[duplicate], Value::from(1u64)));
    assert_eq!(error.problem, Problem::DuplicateKey(".index".into()));

    let mut not_utf8 = Vec::new();
    msgpack::write_map_len(&mut not_utf8, 1);
    msgpack::write_str(&mut not_utf8, b".string");
    msgpack::write_str(&mut not_utf8, b"ok\xff");
    let error = problem(&table_bytes(&[not_utf8], Value::from(1u64)));
    assert_eq!(error.problem, Problem::NotUtf8 { valid_up_to: 2 });

    let zero = llvm_entry(0, "a", 0, &[]);
    assert_eq!(
        problem(&table_bytes(&[zero], Value::from(1u64))).problem,
        Problem::IdOutOfRange(0)
    );
    let wide = llvm_entry(1 << 48, "a", 0, &[]);
    assert_eq!(
        problem(&table_bytes(&[wide], Value::from(1u64))).problem,
        Problem::IdOutOfRange(1 << 48)
    );

    let missing = entry_bytes(&[(".index", Value::from(1u64))]);
    let error = problem(&table_bytes(&[missing], Value::from(1u64)));
    assert_eq!(error.problem, Problem::MissingKey(".string"));

    let mut no_version = Vec::new();
    msgpack::write_map_len(&mut no_version, 1);
    msgpack::write_str(&mut no_version, b".strings");
    msgpack::write_array_len(&mut no_version, 0);
    assert_eq!(
        problem(&no_version).problem,
        Problem::MissingKey(".version")
    );

    assert!(matches!(
        problem(&[0x91, 0x01]).problem,
        Problem::WrongType {
            expected: "a map",
            ..
        }
    ));
    let truncated = table_bytes(&[llvm_entry(5, "abc", 0, &[])], Value::from(1u64));
    for cut in 0..truncated.len() {
        assert!(Table::decode(&truncated[..cut]).is_err(), "cut at {cut}");
    }
}

/// `plain_entry` makes what `decode_entry` makes, or reads nothing: over key orders,
/// missing, repeated and unknown keys, and values of every right and wrong kind.
#[test]
fn plain_entries_decode_as_the_general_decoder_does() {
    let words = |w: &[u64]| Value::Array(w.iter().map(|w| Value::from(*w)).collect());
    let values: [(&str, Vec<Value>); 4] = [
        (
            keys::INDEX,
            vec![
                Value::from(5u64),
                Value::from((1u64 << 48) - 1),
                Value::from(1u64 << 48),
                Value::from(-1i64),
                Value::from("5"),
            ],
        ),
        (
            keys::STRING,
            vec![
                Value::from("x=%d\n"),
                Value::from("a %s ".repeat(20)),
                msgpack::string_value(b"caf\xe9"),
                Value::Binary(b"x".to_vec()),
            ],
        ),
        (
            keys::ARGUMENT_COUNT,
            vec![
                Value::from(1u64),
                Value::from(300u64),
                Value::from(-2i64),
                Value::Nil,
            ],
        ),
        (
            keys::MASK,
            vec![
                words(&[]),
                words(&[u64::MAX]),
                words(&[1, 0]),
                Value::Array(vec![Value::from("1")]),
                Value::from(1u64),
            ],
        ),
    ];
    let orders: [[usize; 4]; 5] = [
        [0, 1, 2, 3],
        [3, 2, 1, 0],
        [1, 3, 0, 2],
        [0, 1, 1, 3],
        [0, 1, 2, 2],
    ];
    let mut accepted = 0;
    let mut choice = [0usize; 4];
    for case in 0..5 * 4 * 4 * 5 {
        let mut rest = case;
        for (slot, (_, options)) in values.iter().enumerate() {
            choice[slot] = rest % options.len();
            rest /= options.len();
        }
        for (number, order) in orders.iter().enumerate() {
            let mut pairs: Vec<(&str, Value)> = order
                .iter()
                .map(|slot| (values[*slot].0, values[*slot].1[choice[*slot]].clone()))
                .collect();
            if number == 0 && case % 7 == 0 {
                pairs[2].0 = ".argument_counts";
            }
            if number == 1 && case % 5 == 0 {
                pairs.pop();
            }
            let bytes = entry_bytes(&pairs);
            let mut fast = Reader::new(&bytes);
            let mut general = Reader::new(&bytes);
            let expected = decode_entry(&mut general, 1, 0);
            let Some(entry) = plain_entry(&mut fast) else {
                assert_eq!(fast.position(), 0, "{pairs:?}");
                continue;
            };
            let Ok(Decoded::Printf(expected)) = expected else {
                panic!("plain_entry accepted what decode_entry refuses: {pairs:?}");
            };
            assert_eq!(format!("{entry:?}"), format!("{expected:?}"));
            assert_eq!(fast.position(), general.position());
            for cut in 0..bytes.len() {
                assert!(plain_entry(&mut Reader::new(&bytes[..cut])).is_none());
            }
            accepted += 1;
        }
    }
    assert!(accepted > 30, "{accepted}");
}

#[test]
fn entry_keys_are_told_apart_by_length_then_bytes() {
    for (slot, key) in ENTRY_KEYS.iter().enumerate() {
        assert_eq!(entry_key(key.as_bytes()), Some(slot), "{key}");
    }
    for other in [
        "",
        ".indey",
        ".strings",
        ".argument_counts",
        ".64bit_argument",
    ] {
        assert_eq!(entry_key(other.as_bytes()), None, "{other}");
    }
}

#[test]
fn huge_claims_inside_the_table_are_rejected() {
    let mut bytes = Vec::new();
    msgpack::write_map_len(&mut bytes, 2);
    msgpack::write_str(&mut bytes, b".version");
    msgpack::write_uint(&mut bytes, 1);
    msgpack::write_str(&mut bytes, b".strings");
    bytes.extend_from_slice(&[0xdd, 0xff, 0xff, 0xff, 0xff]);
    let error = problem(&bytes);
    assert!(matches!(
        error.problem,
        Problem::Decode(DecodeErrorKind::TooManyElements { .. })
    ));
    assert_eq!(error.offset, bytes.len() - 5);
}

#[test]
fn unknown_table_keys_are_kept() {
    let mut bytes = Vec::new();
    msgpack::write_map_len(&mut bytes, 3);
    msgpack::write_uint(&mut bytes, 42);
    msgpack::write_str(&mut bytes, b"non-string key");
    msgpack::write_str(&mut bytes, b".version");
    msgpack::write_uint(&mut bytes, 1);
    msgpack::write_str(&mut bytes, b".strings");
    msgpack::write_array_len(&mut bytes, 0);
    let table = Table::decode(&bytes).expect("decodes");
    assert_eq!(
        table.extra,
        vec![(Value::from(42u64), Value::from("non-string key"))]
    );
    let encoded = table.to_msgpack();
    let again = Table::decode(&encoded).expect("again");
    assert_eq!(again.extra, table.extra);
}

/// What a serde-derived entry did not keep (see `decode_entry`): unknown keys of every kind,
/// among the known ones, keep their order and their msgpack types (a str that is not UTF-8
/// stays a str), and the entry writes back byte for byte.
#[test]
fn unknown_entry_keys_keep_order_and_type() {
    let mut entry = Vec::new();
    msgpack::write_map_len(&mut entry, 8);
    msgpack::write_str(&mut entry, b".index");
    msgpack::write_uint(&mut entry, 5);
    msgpack::write_str(&mut entry, b".latin1");
    msgpack::write_str(&mut entry, b"caf\xe9");
    msgpack::write_str(&mut entry, b".string");
    msgpack::write_str(&mut entry, b"x=%d");
    msgpack::write_uint(&mut entry, 7);
    msgpack::write_str(&mut entry, b"integer key");
    msgpack::write_str(&mut entry, b".argument_count");
    msgpack::write_uint(&mut entry, 1);
    msgpack::write_str(&mut entry, b".ext");
    entry.extend_from_slice(&[0xd5, 0x05, 0x01, 0x02]);
    msgpack::write_str(&mut entry, b".64bit_arguments");
    msgpack::write_array_len(&mut entry, 1);
    msgpack::write_uint(&mut entry, 0);
    msgpack::write_str(&mut entry, b".bin");
    entry.extend_from_slice(&[0xc4, 0x01, 0xff]);
    let bytes = table_bytes(&[entry.clone()], Value::from(1u64));
    let table = Table::decode(&bytes).expect("decodes");
    let extra = table.entries[0].extra();
    let keys: Vec<String> = extra.iter().map(|(key, _)| key.to_string()).collect();
    assert_eq!(keys, ["\".latin1\"", "7", "\".ext\"", "\".bin\""]);
    match &extra[0].1 {
        Value::String(text) => assert_eq!(text.as_bytes(), b"caf\xe9"),
        other => panic!("a str that is not UTF-8 became {other:?}"),
    }
    assert_eq!(extra[2].1, Value::Ext(5, vec![1, 2]));
    assert_eq!(extra[3].1, Value::Binary(vec![0xff]));
    assert_eq!(table.entries[0].raw(), Some(entry.as_slice()));
    let mut written = Vec::new();
    table.entries[0].encode(&mut written);
    assert_eq!(written, entry);
}

/// Today's LLPC: `.strings`, `.user_data_offset`, `.version` (LLVM sorts keys), with a
/// shader-abort entry (no `.string`) between two printf entries.
#[test]
fn reads_user_data_offset_and_keeps_abort_entries_in_place() {
    let abort = entry_bytes(&[
        (".constant_status", Value::Array(vec![Value::from(3u64)])),
        (
            ".constants",
            Value::Array(vec![
                Value::from(0x7473_6574u64),
                Value::from(0x6C25_203Au64),
            ]),
        ),
        (".data_count", Value::from(2u64)),
        (".index", Value::from(12345678u64)),
        (".is_abort_message", Value::from(1u64)),
    ]);
    let first = llvm_entry(5, "Output:%d\n\0", 1, &[0]);
    let second = llvm_entry(6, "b\0", 0, &[0]);
    let mut bytes = Vec::new();
    msgpack::write_map_len(&mut bytes, 3);
    msgpack::write_str(&mut bytes, b".strings");
    msgpack::write_array_len(&mut bytes, 3);
    for entry in [&first, &abort, &second] {
        bytes.extend_from_slice(entry);
    }
    msgpack::write_str(&mut bytes, b".user_data_offset");
    msgpack::write_uint(&mut bytes, 0);
    msgpack::write_str(&mut bytes, b".version");
    msgpack::write_uint(&mut bytes, 1);
    let table = Table::decode(&bytes).expect("an LLPC table with an abort entry reads");
    assert_eq!(table.user_data_offset, Some(0));
    assert!(table.extra.is_empty());
    assert_eq!(table.entries.len(), 2);
    assert_eq!(table.aborts.len(), 1);
    let kept = &table.aborts[0];
    assert_eq!(kept.position, 1);
    assert_eq!(kept.id().map(FormatId::get), Some(12345678));
    assert!(kept.is_abort_message());
    assert_eq!(kept.data_count(), Some(2));
    assert_eq!(kept.constants(), Some(vec![0x7473_6574, 0x6C25_203A]));
    assert_eq!(kept.runtime_words(), Some(0));
    assert_eq!(kept.inconsistency(), None);
    let short = AbortEntry::new(
        0,
        vec![
            (Value::from(".index"), Value::from(3u64)),
            (Value::from(".data_count"), Value::from(2u64)),
            (
                Value::from(".constant_status"),
                Value::Array(vec![3u64.into()]),
            ),
            (Value::from(".constants"), Value::Array(vec![1u64.into()])),
        ],
    );
    let message = short.inconsistency().expect("one constant too few");
    assert!(message.contains("marks 2 of its 2 words"), "{message}");
    assert_eq!(kept.raw(), Some(abort.as_slice()));
    // Written back in place, byte for byte, and again once owned (canonically).
    for again in [table.to_msgpack(), table.clone().into_owned().to_msgpack()] {
        let back = Table::decode(&again).expect("reads its own output");
        assert_eq!(back.user_data_offset, Some(0));
        let order: Vec<bool> = back
            .strings()
            .map(|item| matches!(item, Item::Abort(_)))
            .collect();
        assert_eq!(order, [false, true, false]);
        assert!(back.aborts[0].same_as(kept));
    }
    assert_eq!(table.to_msgpack().len(), table.encoded_len());
    let owned = table.clone().into_owned();
    assert_eq!(owned.to_msgpack().len(), owned.encoded_len());

    // An entry without `.string` that says nothing of abort messages is still an error.
    let nameless = entry_bytes(&[(".index", Value::from(1u64))]);
    assert_eq!(
        problem(&table_bytes(&[nameless], Value::from(1u64))).problem,
        Problem::MissingKey(".string")
    );
    // `.user_data_offset` must be a number.
    let mut bad = Vec::new();
    msgpack::write_map_len(&mut bad, 3);
    msgpack::write_str(&mut bad, b".version");
    msgpack::write_uint(&mut bad, 1);
    msgpack::write_str(&mut bad, b".strings");
    msgpack::write_array_len(&mut bad, 0);
    msgpack::write_str(&mut bad, b".user_data_offset");
    msgpack::write_str(&mut bad, b"0");
    let error = problem(&bad);
    assert_eq!(error.path, "amdpal.format_strings.user_data_offset");
}
