//! The decoder on hand-made buffers: every way a buffer can be wrong, and the payload rules.

use fmtstr_decode::encode::{BufferWriter, Payload};
use fmtstr_decode::stream::{self, Options};
use fmtstr_decode::{
    decode_to_vec, Buffer, BufferError, BufferNotice, Decoder, FormatNote, Formats, Problem,
    ProblemKind, Stop,
};
use fmtstr_meta::merge::Relation;
use fmtstr_meta::{Entry, FormatId, Mask, Table};

fn table(entries: &[(&str, u64, &[usize])]) -> Table<'static> {
    let mut table = Table::new();
    for (string, argc, wide) in entries {
        table.entries.push(Entry::for_format(
            string.to_string(),
            *argc,
            Mask::for_arguments(*argc as usize, wide.iter().copied()),
        ));
    }
    table
}

fn formats(entries: &[(&str, u64, &[usize])]) -> Formats {
    Formats::from_tables([("t.json".to_string(), table(entries))])
}

fn id(string: &str) -> u64 {
    FormatId::of(string.as_bytes()).get()
}

fn decode(bytes: &[u8], formats: &Formats) -> (String, Vec<Problem>) {
    let buffer = Buffer::parse(bytes).expect("a header");
    let chunk = decode_to_vec(&buffer, formats);
    (String::from_utf8(chunk.text).unwrap(), chunk.problems)
}

#[test]
fn integers_floats_vectors_and_64_bit_arguments() {
    let f = formats(&[
        ("%d|%5u|%#x|%hhd|%hu|%c\n", 6, &[]),
        ("%ld %llu %lx\n", 3, &[0, 1, 2]),
        ("%f %e %g %a\n", 4, &[1, 3]),
        ("%v4hlf|%v2ld|%v3d\n", 3, &[1]),
        ("%*.*f|%-*d|\n", 5, &[]),
        ("%p %p\n", 2, &[0]),
        ("100%%\n", 0, &[]),
    ]);
    let mut w = BufferWriter::new();
    let mut p = Payload::new();
    p.u32(-5i32 as u32)
        .u32(42)
        .u32(255)
        .u32(0xff)
        .u32(0xffff)
        .u32(u32::from(b'Z'));
    w.entry(id("%d|%5u|%#x|%hhd|%hu|%c\n"), p.dwords());
    p.clear()
        .u64(i64::MIN as u64)
        .u64(u64::MAX)
        .u64(0xdead_beef_cafe);
    w.entry(id("%ld %llu %lx\n"), p.dwords());
    p.clear()
        .f32(1.5)
        .f64(-2.25e300)
        .f32(f32::MIN_POSITIVE / 8.0)
        .f64(f64::NAN);
    w.entry(id("%f %e %g %a\n"), p.dwords());
    p.clear().f32(1.0).f32(-0.5).f32(f32::INFINITY).f32(3.25);
    p.u64(-1i64 as u64).u64(7);
    p.u32(1).u32(-2i32 as u32).u32(3);
    w.entry(id("%v4hlf|%v2ld|%v3d\n"), p.dwords());
    p.clear().u32(10).u32(2).f32(3.5).u32(-4i32 as u32).u32(9);
    w.entry(id("%*.*f|%-*d|\n"), p.dwords());
    p.clear().u64(0x1000).u32(0);
    w.entry(id("%p %p\n"), p.dwords());
    w.entry(id("100%%\n"), &[]);
    let (text, problems) = decode(&w.finish(), &f);
    assert_eq!(
        text,
        format!(
            "-5|   42|0xff|-1|65535|Z\n\
             -9223372036854775808 18446744073709551615 deadbeefcafe\n\
             1.500000 -2.250000e+300 {} nan\n\
             1.000000,-0.500000,inf,3.250000|-1,7|1,-2,3\n\
             \x20     3.50|9   |\n\
             0x1000 (nil)\n\
             100%\n",
            // glibc's %g of the smallest normal float / 8.
            "1.46937e-39"
        )
    );
    assert!(problems.is_empty(), "{problems:?}");
}

#[test]
fn a_32_bit_payload_for_a_64_bit_conversion_keeps_its_value_and_is_noted_once() {
    let f = formats(&[("%ld %lu %d\n", 3, &[2])]);
    let mut w = BufferWriter::new();
    for _ in 0..3 {
        let mut p = Payload::new();
        p.u32(-3i32 as u32).u32(0xffff_fffe).u64(0x1_0000_0007);
        w.entry(id("%ld %lu %d\n"), p.dwords());
    }
    let (text, problems) = decode(&w.finish(), &f);
    assert_eq!(text, "-3 4294967294 7\n".repeat(3));
    let notes: Vec<&FormatNote> = problems
        .iter()
        .map(|p| match &p.kind {
            ProblemKind::Format { note, .. } => note,
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(notes.len(), 3, "{problems:?}");
    assert!(matches!(
        notes[0],
        FormatNote::Width {
            argument: 1,
            payload_bits: 32,
            c_bits: 64,
            ..
        }
    ));
    assert!(matches!(
        notes[2],
        FormatNote::Width {
            argument: 3,
            payload_bits: 64,
            c_bits: 32,
            ..
        }
    ));
    assert!(problems.iter().all(|p| p.offset == 0 && !p.marks_entry()));
}

#[test]
fn strings_print_null_or_a_placeholder() {
    let f = formats(&[("[%s|%.3s|%-9s]\n", 3, &[0, 1, 2])]);
    let mut w = BufferWriter::new();
    let mut p = Payload::new();
    p.u64(0).u64(0).u64(0xffff_8000);
    w.entry(id("[%s|%.3s|%-9s]\n"), p.dwords());
    let (text, problems) = decode(&w.finish(), &f);
    assert_eq!(text, "[(null)||<string> ]\n");
    assert!(matches!(
        problems[0].kind,
        ProblemKind::Format {
            note: FormatNote::String { argument: 1 },
            ..
        }
    ));
}

#[test]
fn too_short_for_a_header() {
    for len in 0..16 {
        let error = Buffer::parse(&vec![0; len]).unwrap_err();
        assert_eq!(error, BufferError::TooShort { len });
        assert!(error.to_string().contains(&format!("{len} bytes")));
    }
}

#[test]
fn an_empty_buffer_has_no_entries() {
    let f = formats(&[]);
    let bytes = BufferWriter::new().finish_with(0, 100);
    let (text, problems) = decode(&bytes, &f);
    assert_eq!(text, "");
    assert!(problems.is_empty());
    assert!(Buffer::parse(&bytes).unwrap().notices().is_empty());
}

#[test]
fn unknown_ids_reserved_ids_and_short_payloads_are_marked_and_skipped() {
    let f = formats(&[("a=%d b=%lld\n", 2, &[1])]);
    let good = id("a=%d b=%lld\n");
    let mut w = BufferWriter::new();
    w.entry(good, &[1, 2, 0]);
    w.entry(0x1234_5678_9abc, &[1, 2, 3]); // unknown
    w.entry(good, &[3, 4, 0]);
    w.entry(0, &[9]); // reserved ID
    w.entry(good, &[5, 6]); // one dword short
    w.entry(good, &[7, 8, 0, 99, 98]); // two dwords long
    w.entry(good, &[9, 10, 0]);
    let (text, problems) = decode(&w.finish(), &f);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 7, "{text}");
    assert_eq!(lines[0], "a=1 b=2");
    assert_eq!(
        lines[1],
        "<fmtstr: dword 5 (byte 36): unknown format ID 0x123456789abc in an entry of 5 dwords; skipped>"
    );
    assert_eq!(lines[2], "a=3 b=4");
    assert!(
        lines[3].starts_with("<fmtstr: dword 15 (byte 76): format ID 0 (reserved"),
        "{}",
        lines[3]
    );
    assert!(
        lines[4].contains("reads 3 payload dwords but the entry has 2; skipped"),
        "{}",
        lines[4]
    );
    assert_eq!(lines[5], "a=7 b=8");
    assert_eq!(lines[6], "a=9 b=10");
    let kinds: Vec<&ProblemKind> = problems.iter().map(|p| &p.kind).collect();
    assert!(matches!(
        kinds[0],
        ProblemKind::UnknownId {
            id: 0x1234_5678_9abc,
            size: 5
        }
    ));
    assert!(matches!(kinds[1], ProblemKind::ReservedId { size: 3 }));
    assert!(matches!(
        kinds[2],
        ProblemKind::ShortPayload {
            needs: 3,
            has: 2,
            ..
        }
    ));
    assert!(matches!(
        kinds[3],
        ProblemKind::LongPayload {
            needs: 3,
            has: 5,
            ..
        }
    ));
    assert_eq!(problems.len(), 4);
    assert!(!problems[3].marks_entry());
}

#[test]
fn sizes_that_say_nothing_stop_the_walk() {
    let f = formats(&[("x\n", 0, &[])]);
    let x = id("x\n");
    // An all-zero header: allocated, never written.
    let mut w = BufferWriter::new();
    w.entry(x, &[]).raw(&[0, 0, 0, 0]).entry(x, &[]);
    let (text, problems) = decode(&w.finish(), &f);
    assert_eq!(problems.len(), 1);
    assert_eq!(problems[0].offset, 2);
    assert_eq!(
        problems[0].kind,
        ProblemKind::Stop(Stop::Unwritten { remaining: 6 })
    );
    assert_eq!(
        text,
        "x\n<fmtstr: dword 2 (byte 24): an all-zero entry header (space allocated but never \
         written); the 6 dwords from here to the end of the written area cannot be decoded>\n"
    );
    // Size 0 and size 1 with an ID.
    for size in [0u32, 1] {
        let mut w = BufferWriter::new();
        w.entry(x, &[]).raw(&[size | 0xabcd << 16, 0]).entry(x, &[]);
        let (text, problems) = decode(&w.finish(), &f);
        assert!(
            text.starts_with("x\n<fmtstr: dword 2 (byte 24): entry size"),
            "{text}"
        );
        assert_eq!(
            problems[0].kind,
            ProblemKind::Stop(Stop::TooSmall {
                size,
                id: 0xabcd,
                remaining: 4
            })
        );
        assert_eq!(text.lines().count(), 2);
    }
}

#[test]
fn entries_past_the_end_and_half_headers_stop_the_walk() {
    let f = formats(&[("x\n", 0, &[])]);
    let x = id("x\n");
    let mut w = BufferWriter::new();
    w.entry(x, &[])
        .raw(&[9 | (x as u32) << 16, (x >> 16) as u32, 1, 2]);
    let (text, problems) = decode(&w.finish(), &f);
    assert_eq!(
        problems[0].kind,
        ProblemKind::Stop(Stop::CutOff {
            size: 9,
            id: x,
            available: 4
        })
    );
    assert_eq!(text.lines().count(), 2);
    // A bufferOffset that ends one dword into an entry header.
    let bytes = w.finish_with(3, 6);
    let (text, problems) = decode(&bytes, &f);
    assert_eq!(problems[0].kind, ProblemKind::Stop(Stop::HalfHeader));
    assert!(text.ends_with("too short for an entry header>\n"), "{text}");
}

#[test]
fn overflow_says_exactly_how_many_dwords_were_lost() {
    let f = formats(&[("i=%d\n", 1, &[])]);
    let i = id("i=%d\n");
    let mut w = BufferWriter::new();
    for k in 0..100u32 {
        w.entry(i, &[k]);
    }
    // 300 dwords allocated, 251 fit: entries 0..83 whole, entry 83 cut after its header.
    let bytes = w.finish_with(300, 251);
    let buffer = Buffer::parse(&bytes).unwrap();
    let overflow = buffer.overflow().unwrap();
    assert_eq!(overflow.lost_dwords, 49);
    assert_eq!(
        (overflow.buffer_offset, overflow.capacity, overflow.limit),
        (300, 251, 251)
    );
    assert!(!overflow.clamped);
    assert_eq!(buffer.notices(), vec![BufferNotice::Overflow(overflow)]);
    assert!(overflow
        .to_string()
        .contains("49 dwords of entries were lost"));
    let chunk = decode_to_vec(&buffer, &f);
    let text = String::from_utf8(chunk.text).unwrap();
    let expected: String = (0..83).map(|k| format!("i={k}\n")).collect();
    assert!(text.starts_with(&expected));
    assert_eq!(chunk.printed, 83);
    assert_eq!(
        chunk.problems[0].kind,
        ProblemKind::Stop(Stop::CutOff {
            size: 3,
            id: i,
            available: 2
        })
    );
    assert_eq!(chunk.problems[0].offset, 249);
}

#[test]
fn the_clamp_limits_the_written_area() {
    let f = formats(&[("i=%d\n", 1, &[])]);
    let i = id("i=%d\n");
    let mut w = BufferWriter::new();
    for k in 0..10u32 {
        w.entry(i, &[k]);
    }
    // Capacity 30 dwords, clamp at 12: shaders that got offsets past 12 all wrote at 12.
    let bytes = w.finish_with(40, 30);
    let buffer = Buffer::with_clamp(&bytes, 12).unwrap();
    assert_eq!(buffer.end(), 12);
    let overflow = buffer.overflow().unwrap();
    assert!(overflow.clamped);
    assert_eq!(overflow.lost_dwords, 28);
    assert!(overflow.to_string().contains("past the clamp at dword 12"));
    let chunk = decode_to_vec(&buffer, &f);
    assert_eq!(chunk.text, b"i=0\ni=1\ni=2\ni=3\n");
    assert!(chunk.problems.is_empty());
    // Below the clamp nothing is lost.
    let bytes = w.finish_with(30, 30);
    assert!(Buffer::with_clamp(&bytes, 1 << 29)
        .unwrap()
        .overflow()
        .is_none());
    // The real clamp is 1 << 29 dwords.
    assert_eq!(fmtstr_decode::CLAMP_DWORDS, 536_870_912);
}

#[test]
fn a_format_that_does_not_parse_or_render_marks_its_entries() {
    let f = formats(&[("bad %y\n", 1, &[]), ("%*d\n", 2, &[]), ("ok\n", 0, &[])]);
    let mut w = BufferWriter::new();
    w.entry(id("bad %y\n"), &[1]);
    w.entry(id("%*d\n"), &[1_000_000, 5]);
    w.entry(id("ok\n"), &[]);
    let (text, problems) = decode(&w.finish(), &f);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].contains("cannot be rendered: at byte 5: unknown conversion character"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("above fmtstr's limit of 65536"),
        "{}",
        lines[1]
    );
    assert_eq!(lines[2], "ok");
    assert!(matches!(problems[0].kind, ProblemKind::BadFormat { .. }));
    assert!(matches!(problems[1].kind, ProblemKind::Render { .. }));
}

#[test]
fn the_header_and_trailing_bytes_are_checked() {
    let f = formats(&[("x\n", 0, &[])]);
    let mut w = BufferWriter::new();
    w.entry(id("x\n"), &[]);
    let mut bytes = w.finish();
    bytes[8] = 1;
    bytes.extend_from_slice(&[0xaa, 0xbb]);
    let buffer = Buffer::parse(&bytes).unwrap();
    assert_eq!(
        buffer.notices(),
        vec![
            BufferNotice::Reserved([1, 0]),
            BufferNotice::TrailingBytes(2)
        ]
    );
    assert_eq!(decode_to_vec(&buffer, &f).text, b"x\n");
}

#[test]
fn an_id_with_two_strings_is_found_and_the_first_string_is_used() {
    let mut first = table(&[("first %d\n", 1, &[])]);
    let second = table(&[("second %d\n", 1, &[])]);
    // Give the second table's entry the first's ID, as a hash collision would.
    let shared = first.entries[0].id();
    let stolen = Entry::new(shared, "second %d\n", 1, Mask::for_arguments(1, []));
    let third = Table {
        entries: vec![stolen],
        ..Table::new()
    };
    let conflicting = Entry::new(shared, "first %d\n", 1, Mask::for_arguments(1, [0]));
    first
        .entries
        .push(Entry::for_format("other\n", 0, Mask::default()));
    let f = Formats::from_tables([
        ("a.elf".to_string(), first),
        ("b.json".to_string(), second),
        ("c.elf".to_string(), third),
        (
            "d.elf".to_string(),
            Table {
                entries: vec![conflicting],
                ..Table::new()
            },
        ),
    ]);
    assert_eq!(f.findings().len(), 2);
    assert_eq!(f.findings()[0].relation, Relation::Collision);
    assert_eq!(f.findings()[1].relation, Relation::Conflict);
    let lines = f.describe_findings();
    assert!(
        lines[0].contains("a.elf") && lines[0].contains("c.elf"),
        "{}",
        lines[0]
    );
    assert!(lines[0].contains("decoded with the first string"));
    assert!(lines[1].contains("d.elf"));
    let mut w = BufferWriter::new();
    w.entry(shared.get(), &[3]);
    let (text, _) = decode(&w.finish(), &f);
    assert_eq!(text, "first 3\n");
}

#[test]
fn argument_counts_that_disagree_are_noted_and_the_format_decides() {
    let f = formats(&[("%d %d\n", 5, &[])]);
    let mut w = BufferWriter::new();
    w.entry(id("%d %d\n"), &[1, 2]);
    let (text, problems) = decode(&w.finish(), &f);
    assert_eq!(text, "1 2\n");
    assert!(matches!(
        problems[0].kind,
        ProblemKind::Format {
            note: FormatNote::ArgumentCount {
                table: 5,
                format: 2
            },
            ..
        }
    ));
}

/// A buffer of mixed good and bad entries.
fn mixed_buffer(entries: usize, seed: u32) -> (Vec<u8>, Formats) {
    let specs: &[(&str, u64, &[usize])] = &[
        ("%d %x\n", 2, &[]),
        ("%lld|%8.3f|%v2lf\n", 3, &[0, 2]),
        ("%*e\n", 2, &[]),
        ("%ld %s\n", 2, &[1]),
    ];
    let f = formats(specs);
    let mut w = BufferWriter::new();
    let mut state = seed;
    let mut next = || {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        state
    };
    for _ in 0..entries {
        let r = next();
        match r % 7 {
            0 => w.entry(id(specs[0].0), &[next(), next()]),
            1 => w.entry(
                id(specs[1].0),
                &[
                    next(),
                    next(),
                    next(),
                    next(),
                    next(),
                    next(),
                    next(),
                    next(),
                ],
            ),
            2 => w.entry(id(specs[2].0), &[next() % 50, next()]),
            3 => w.entry(id(specs[3].0), &[next(), next(), next() % 2]),
            4 => w.entry(u64::from(next()), &[1, 2]),
            5 => w.entry(id(specs[0].0), &[next()]),
            _ => w.entry(id(specs[2].0), &[1, 2, 3]),
        };
    }
    let len = w.len();
    (w.finish_with(len + 77, len), f)
}

#[test]
fn windows_on_several_threads_give_the_same_text_in_the_same_order() {
    let (bytes, f) = mixed_buffer(20_000, 1);
    let buffer = Buffer::parse(&bytes).unwrap();
    let whole = decode_to_vec(&buffer, &f);
    for (jobs, window) in [(1, 7), (2, 100), (3, 1 << 12), (4, 13)] {
        let options = Options {
            jobs,
            window_dwords: window,
            in_flight: jobs + 1,
            window_bytes: 1 << 20,
        };
        let mut text = Vec::new();
        let mut problems = Vec::new();
        let mut last = 0;
        stream::run::<_, (), _, _>(
            &buffer,
            &options,
            |window| stream::decode_text(&buffer, &f, window),
            |window, chunk| {
                assert_eq!(window.start, last);
                last = window.end;
                text.extend_from_slice(&chunk.text);
                problems.extend(chunk.problems);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(last, buffer.end());
        assert!(text == whole.text, "jobs {jobs}, window {window}");
        // Format notes come once per window; the rest match one for one.
        let strip = |p: &[Problem]| -> Vec<Problem> {
            p.iter()
                .filter(|p| !matches!(p.kind, ProblemKind::Format { .. }))
                .cloned()
                .collect()
        };
        assert_eq!(strip(&problems), strip(&whole.problems));
    }
}

#[test]
fn one_pass_in_pieces_gives_the_same_text_and_problems() {
    let (bytes, f) = mixed_buffer(20_000, 3);
    let buffer = Buffer::parse(&bytes).unwrap();
    let whole = decode_to_vec(&buffer, &f);
    for piece in [1, 100, 1 << 16] {
        let mut text = Vec::new();
        let mut problems = Vec::new();
        let mut last = 0;
        stream::decode_sequential::<()>(&buffer, &f, piece, |range, chunk| {
            assert_eq!(range.start, last);
            last = range.end;
            text.extend_from_slice(&chunk.text);
            problems.extend(chunk.problems.iter().cloned());
            Ok(())
        })
        .unwrap();
        assert_eq!(last, buffer.end());
        assert!(text == whole.text, "piece {piece}");
        assert_eq!(problems, whole.problems);
    }
}

/// The text and problems of a walk that renders each entry with [`Decoder::render`], one at
/// a time: what the batched walks must give.
fn one_at_a_time(buffer: &Buffer<'_>, f: &Formats) -> (Vec<u8>, Vec<Problem>) {
    let mut decoder = Decoder::new(f);
    let mut text = Vec::new();
    let mut problems = Vec::new();
    for item in buffer.entries() {
        let entry = match item {
            Ok(entry) => entry,
            Err((offset, stop)) => {
                let problem = Problem {
                    offset,
                    kind: ProblemKind::Stop(stop),
                };
                problem.write_marker(&mut text);
                problems.push(problem);
                break;
            }
        };
        match decoder.render(&entry, &mut text) {
            Ok(None) => {}
            Ok(Some(kind)) => problems.push(Problem {
                offset: entry.offset,
                kind,
            }),
            Err(kind) => {
                let problem = Problem {
                    offset: entry.offset,
                    kind,
                };
                problem.write_marker(&mut text);
                problems.push(problem);
            }
        }
        decoder.take_notes(&mut problems);
    }
    (text, problems)
}

#[test]
fn batched_walks_match_one_entry_at_a_time() {
    for seed in [3, 4, 5] {
        let (bytes, f) = mixed_buffer(5_000, seed);
        let buffer = Buffer::parse(&bytes).unwrap();
        let (text, problems) = one_at_a_time(&buffer, &f);
        let whole = decode_to_vec(&buffer, &f);
        assert!(whole.text == text, "seed {seed}");
        assert_eq!(whole.problems, problems, "seed {seed}");
        let mut sequential = Vec::new();
        let mut sequential_problems = Vec::new();
        stream::decode_sequential::<()>(&buffer, &f, 1 << 12, |_, chunk| {
            sequential.extend_from_slice(&chunk.text);
            sequential_problems.extend(chunk.problems.iter().cloned());
            Ok(())
        })
        .unwrap();
        assert!(sequential == text, "seed {seed}");
        assert_eq!(sequential_problems, problems, "seed {seed}");
    }
}

#[test]
fn windows_end_where_their_text_could_grow_large() {
    let f = formats(&[("%65536d\n", 1, &[]), ("%d\n", 1, &[])]);
    let mut w = BufferWriter::new();
    for k in 0..300 {
        w.entry(id(if k % 3 == 0 { "%65536d\n" } else { "%d\n" }), &[k]);
    }
    let bytes = w.finish();
    let buffer = Buffer::parse(&bytes).unwrap();
    let windows: Vec<_> = stream::Windows::bounded(&buffer, 1 << 20, &f, 1 << 20).collect();
    // Each wide entry may print 65,537 bytes: at most 16 of them per MiB.
    assert!(windows.len() >= 100 / 16, "{windows:?}");
    for window in &windows {
        let wide = (window.start..window.end).step_by(3).count();
        assert!(wide <= 3 * 16 + 3, "{window:?}");
    }
    assert_eq!(windows.last().unwrap().end, buffer.end());
    let options = Options {
        jobs: 2,
        window_dwords: 1 << 20,
        in_flight: 3,
        window_bytes: 1 << 20,
    };
    let mut text = Vec::new();
    let mut largest = 0;
    stream::run_bounded::<_, (), _, _>(
        &buffer,
        &options,
        &f,
        |window| stream::decode_text(&buffer, &f, window),
        |_, chunk| {
            largest = largest.max(chunk.text.len());
            text.extend_from_slice(&chunk.text);
            Ok(())
        },
    )
    .unwrap();
    assert!(text == decode_to_vec(&buffer, &f).text);
    assert!(largest <= (1 << 20) + 65_538, "{largest}");
    assert_eq!(
        text.len(),
        100 * 65_537
            + (0..300)
                .filter(|k| k % 3 != 0)
                .map(|k: u32| k.to_string().len() + 1)
                .sum::<usize>()
    );
}

#[test]
fn a_sink_error_stops_the_run() {
    let (bytes, f) = mixed_buffer(5_000, 2);
    let buffer = Buffer::parse(&bytes).unwrap();
    let options = Options {
        jobs: 2,
        window_dwords: 64,
        in_flight: 4,
        window_bytes: 1 << 20,
    };
    let mut calls = 0;
    let result = stream::run(
        &buffer,
        &options,
        |window| stream::decode_text(&buffer, &f, window),
        |_, _| {
            calls += 1;
            if calls == 3 {
                Err("disk full")
            } else {
                Ok(())
            }
        },
    );
    assert_eq!(result, Err("disk full"));
    assert_eq!(calls, 3);
}

#[test]
fn stats_count_entries_and_dwords_per_id() {
    let f = formats(&[("a %d\n", 1, &[]), ("b\n", 0, &[])]);
    let mut w = BufferWriter::new();
    for k in 0..10 {
        w.entry(id("a %d\n"), &[k]);
    }
    w.entry(id("b\n"), &[]).entry(77, &[1, 2, 3, 4, 5, 6]);
    let bytes = w.finish();
    let buffer = Buffer::parse(&bytes).unwrap();
    let stats = stream::count(&buffer, &Formats::new(), 0..buffer.end());
    let rows = stats.sorted();
    assert_eq!(rows[0].0, id("a %d\n"));
    assert_eq!((rows[0].1.entries, rows[0].1.dwords), (10, 30));
    assert_eq!((rows[1].0, rows[1].1.dwords), (77, 8));
    assert_eq!((rows[2].1.entries, rows[2].1.dwords), (1, 2));
    assert!(stats.stop.is_none());
    let _ = f;
}

/// An entry whose `%s` arguments carry their bytes (`fmtstr lower --runtime-strings N`).
fn inline_formats(string: &str, argc: u64, inline: &[(u64, u64)]) -> Formats {
    let pairs = inline
        .iter()
        .map(|&(index, bytes)| {
            rmpv::Value::Array(vec![rmpv::Value::from(index), rmpv::Value::from(bytes)])
        })
        .collect();
    let entry = Entry::for_format(
        string.to_string(),
        argc,
        Mask::for_arguments(argc as usize, std::iter::empty()),
    )
    .with_extra(vec![(
        rmpv::Value::from(fmtstr_meta::INLINE_STRINGS_KEY),
        rmpv::Value::Array(pairs),
    )]);
    let mut table = Table::new();
    table.entries.push(entry);
    Formats::from_tables([("t.json".to_string(), table)])
}

/// A length word, then `reserved` bytes (rounded up to dwords) of which the first are `text`.
fn inline_string(p: &mut Payload, length_word: u32, text: &[u8], reserved: usize) {
    p.u32(length_word);
    let mut bytes = text.to_vec();
    bytes.resize(reserved.div_ceil(4) * 4, b'#');
    for chunk in bytes.chunks(4) {
        p.u32(u32::from_le_bytes([chunk[0], chunk[1], chunk[2], chunk[3]]));
    }
}

#[test]
fn inline_strings_print_as_c_would_and_damaged_ones_stay_in_bounds() {
    let format = "[%s] [%6.2s] %d\n";
    let f = inline_formats(format, 3, &[(0, 8), (1, 8)]);
    let mut w = BufferWriter::new();
    let mut p = Payload::new();
    // "abc"; the null pointer; then a cut string and a length word past the reservation,
    // which is read as the reservation (never past the slot).
    inline_string(&mut p, 3, b"abc", 8);
    inline_string(&mut p, u32::MAX, b"", 8);
    p.u32(7);
    w.entry(id(format), p.dwords());
    p.clear();
    inline_string(&mut p, 8 | 1 << 31, b"abcdefgh", 8);
    inline_string(&mut p, 0x7FFF_FFFF, b"xyzwvuts", 8);
    p.u32(-1i32 as u32);
    w.entry(id(format), p.dwords());
    let (text, problems) = decode(&w.finish(), &f);
    assert_eq!(text, "[abc] [      ] 7\n[abcdefgh] [    xy] -1\n");
    assert!(problems.is_empty(), "{problems:?}");
    // The cut is counted.
    let bytes = w_rebuilt(format);
    let buffer = Buffer::parse(&bytes).unwrap();
    let stats = stream::count(&buffer, &f, 0..buffer.end());
    assert_eq!(stats.by_id[&id(format)].strings_cut, 1);

    // A payload shorter than the reservation: the entry is not printed, and said why.
    let mut w = BufferWriter::new();
    let mut p = Payload::new();
    p.u32(3).u32(0);
    w.entry(id(format), p.dwords());
    let (text, problems) = decode(&w.finish(), &f);
    assert!(
        text.contains("reads 7 payload dwords but the entry has 2; skipped"),
        "{text}"
    );
    assert!(
        matches!(
            problems[0].kind,
            ProblemKind::ShortPayload {
                needs: 7,
                has: 2,
                ..
            }
        ),
        "{problems:?}"
    );

    // A table that lists a %d, or reserves 0 bytes, as a string: the format is refused.
    for bad in [
        inline_formats("%d\n", 1, &[(0, 8)]),
        inline_formats("%s\n", 1, &[(0, 0)]),
    ] {
        let mut w = BufferWriter::new();
        let mut p = Payload::new();
        p.u32(0).u32(0).u32(0);
        let string = if bad.get(id("%d\n")).is_some() {
            "%d\n"
        } else {
            "%s\n"
        };
        w.entry(id(string), p.dwords());
        let (text, problems) = decode(&w.finish(), &bad);
        assert!(text.starts_with("<fmtstr: "), "{text}");
        assert!(
            matches!(&problems[0].kind, ProblemKind::BadFormat { message, .. } if message.contains(".fmtstr_inline_strings")),
            "{problems:?}"
        );
    }
}

/// The second entry of the test above alone: one string cut.
fn w_rebuilt(format: &str) -> Vec<u8> {
    let mut w = BufferWriter::new();
    let mut p = Payload::new();
    inline_string(&mut p, 8 | 1 << 31, b"abcdefgh", 8);
    inline_string(&mut p, 2, b"xy", 8);
    p.u32(1);
    w.entry(id(format), p.dwords());
    w.finish()
}
