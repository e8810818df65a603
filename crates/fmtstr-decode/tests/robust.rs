//! Arbitrary bytes and arbitrary entries: the decoder never panics, never hangs, and decodes
//! the same on one thread and several.

use fmtstr_decode::stream::{self, Options};
use fmtstr_decode::{decode_to_vec, Buffer, Formats, ProblemKind};
use fmtstr_meta::{Entry, FormatId, Mask, Table};
use proptest::prelude::*;

const FORMATS: &[(&str, u64, &[usize])] = &[
    ("%d\n", 1, &[]),
    ("%*.*f|%-*e\n", 5, &[2]),
    ("%v4hlf %v2lx %v3hhd\n", 3, &[1]),
    ("%s %c %p\n", 3, &[0, 2]),
    ("%lld %hu %#o %+.3a\n", 4, &[0, 3]),
    // Tables that disagree with their strings.
    ("%d %d %d\n", 1, &[]),
    ("%ld\n", 1, &[0, 5, 9]),
    ("%v16lf\n", 1, &[0]),
    ("not a %y format\n", 1, &[]),
];

fn formats() -> (Formats, Vec<u64>) {
    let mut table = Table::new();
    for (string, argc, wide) in FORMATS {
        let words = (*argc as usize).max(10).div_ceil(64);
        let mut mask = vec![0u64; words];
        for bit in *wide {
            mask[bit / 64] |= 1 << (bit % 64);
        }
        table.entries.push(Entry::for_format(
            string.to_string(),
            *argc,
            Mask::from_words(&mask),
        ));
    }
    let ids = FORMATS
        .iter()
        .map(|(s, _, _)| FormatId::of(s.as_bytes()).get())
        .collect();
    (Formats::from_tables([("t".to_string(), table)]), ids)
}

fn check(bytes: &[u8], formats: &Formats) {
    let Ok(buffer) = Buffer::parse(bytes) else {
        assert!(bytes.len() < 16);
        return;
    };
    let _ = buffer.notices();
    let whole = decode_to_vec(&buffer, formats);
    for problem in &whole.problems {
        let _ = problem.to_string();
        assert!(problem.offset <= buffer.end());
    }
    // Every entry takes at least two dwords, so there are at most end / 2 of them.
    assert!(whole.printed + whole.marked <= buffer.end() / 2 + 1);
    let mut text = Vec::new();
    let options = Options {
        jobs: 2,
        window_dwords: 5,
        in_flight: 3,
        window_bytes: 1 << 20,
    };
    stream::run::<_, (), _, _>(
        &buffer,
        &options,
        |window| stream::decode_text(&buffer, formats, window),
        |_, chunk| {
            text.extend_from_slice(&chunk.text);
            Ok(())
        },
    )
    .unwrap();
    assert!(text == whole.text);
    let stats = stream::count(&buffer, &Formats::new(), 0..buffer.end());
    let entries: u64 = stats.by_id.values().map(|c| c.entries).sum();
    let stopped = whole
        .problems
        .iter()
        .filter(|p| matches!(p.kind, ProblemKind::Stop(_)))
        .count() as u64;
    assert_eq!(entries + stopped, whole.printed + whole.marked);
}

/// One entry, as a shader might (or might not) have written it.
fn entry(ids: Vec<u64>) -> impl Strategy<Value = Vec<u32>> {
    (
        0u32..24,
        prop_oneof![
            4 => proptest::sample::select(ids),
            1 => any::<u64>(),
            1 => Just(0u64),
        ],
        proptest::collection::vec(
            prop_oneof![
                any::<u32>(),
                Just(0u32),
                Just(0x7f80_0001u32),
                Just(0xffff_ffff),
                0u32..100,
                Just(1_000_000),
            ],
            0..24,
        ),
        any::<bool>(),
    )
        .prop_map(|(size, id, mut payload, honest)| {
            let size = if honest {
                payload.len() as u32 + 2
            } else {
                size
            };
            let header = u64::from(size) | (id & 0xffff_ffff_ffff) << 16;
            let mut dwords = vec![header as u32, (header >> 32) as u32];
            dwords.append(&mut payload);
            dwords
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes(mut bytes in proptest::collection::vec(any::<u8>(), 0..1024), offset in 0u64..300) {
        let (formats, _) = formats();
        if bytes.len() >= 8 && offset < 256 {
            bytes[..8].copy_from_slice(&offset.to_le_bytes());
        }
        check(&bytes, &formats);
    }

    #[test]
    fn arbitrary_entries(
        entries in proptest::collection::vec(entry(formats().1), 0..40),
        slack in -20i64..20,
        cut in 0usize..40,
    ) {
        let (formats, _) = formats();
        let dwords: Vec<u32> = entries.concat();
        let written = dwords.len() as i64;
        let buffer_offset = (written + slack).max(0) as u64;
        let capacity = dwords.len().saturating_sub(cut % 3 * cut);
        let mut bytes = buffer_offset.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[0; 8]);
        for dword in &dwords[..capacity] {
            bytes.extend_from_slice(&dword.to_le_bytes());
        }
        check(&bytes, &formats);
    }
}
