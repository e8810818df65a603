//! Differential test: buffers of random entries, decoded, against glibc's `snprintf`.
//!
//! Random formats from the renderer's grammar (flags, widths, precisions, `*`, length
//! modifiers, OpenCL vectors, every conversion but `%s` of a non-null pointer), random values
//! (NaN with and without sign, infinities, subnormals, extreme integers, 32- and 64-bit
//! payloads), packed into one buffer exactly as the protocol says, decoded, and compared byte
//! for byte with what glibc prints for the same C values. At least 1,000,000 entries;
//! `FMTSTR_DECODE_CASES` and `FMTSTR_DECODE_SEED` change the run.

use std::collections::HashMap;
use std::ffi::{c_int, c_long, CString};
use std::fmt::Write as _;
use std::time::Instant;

use fmtstr_decode::encode::{BufferWriter, Payload};
use fmtstr_decode::stream::{self, Options};
use fmtstr_decode::{decode_to_vec, Buffer, Decoder, Formats, ProblemKind};
use fmtstr_meta::{Entry, Mask, Table};
use fmtstr_oracles::glibc::{self, CArg};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// How one argument travels: its payload width and what C gets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Travel {
    /// One dword; C gets an `int` (also for `*`, `%c`, `%hhd`, `%hd`).
    Int32,
    /// Two dwords; C gets a `long`.
    Int64,
    /// One dword of float bits; C gets the double it widens to.
    Float32,
    /// Two dwords of double bits.
    Float64,
    /// Two dwords; C gets a pointer.
    Ptr64,
    /// Two dwords, always 0; C gets a null `char *`.
    NullStr,
}

impl Travel {
    fn wide(self) -> bool {
        !matches!(self, Travel::Int32 | Travel::Float32)
    }
}

#[derive(Clone, Debug)]
struct GenSpec {
    /// Literal text before the spec (no `%` but `%%`).
    prefix: String,
    flags: String,
    /// `Some(None)` is `*`.
    width: Option<Option<u32>>,
    /// `Some(None)` is `*`; `Some(Some(""))` a bare point.
    precision: Option<Option<String>>,
    length: &'static str,
    vector: Option<u8>,
    conversion: u8,
    travel: Travel,
}

impl GenSpec {
    fn stars(&self) -> usize {
        usize::from(self.width == Some(None)) + usize::from(self.precision == Some(None))
    }

    fn is_float(&self) -> bool {
        b"fFeEgGaA".contains(&self.conversion)
    }

    /// The spec as fmtstr reads it, or as glibc gets it for one (element) value.
    fn text(&self, for_glibc: bool) -> String {
        let mut s = String::from("%");
        s.push_str(&self.flags);
        match self.width {
            None => {}
            Some(None) => s.push('*'),
            Some(Some(w)) => write!(s, "{w}").unwrap(),
        }
        match &self.precision {
            None => {}
            Some(None) => s.push_str(".*"),
            Some(Some(p)) => write!(s, ".{p}").unwrap(),
        }
        if for_glibc {
            s.push_str(if self.is_float() {
                // Values reach glibc as doubles; `L` would make it read a long double.
                if self.vector.is_none() && self.length == "l" {
                    "l"
                } else {
                    ""
                }
            } else if self.length == "hl" {
                ""
            } else {
                self.length
            });
        } else {
            if let Some(n) = self.vector {
                write!(s, "v{n}").unwrap();
            }
            s.push_str(self.length);
        }
        s.push(self.conversion as char);
        s
    }
}

/// A random format: 0 to 5 specs with literal text around them.
#[derive(Clone, Debug)]
struct GenFormat {
    specs: Vec<GenSpec>,
    suffix: String,
    text: String,
}

const LITERALS: &[&str] = &[
    "", "", "", " ", "x=", "[", "] ", "%% ", ", ", "\n", "|%%|", "é ",
];

fn random_spec(rng: &mut SmallRng) -> GenSpec {
    let conversion = if rng.gen_bool(0.08) {
        *b"cps".choose(rng).unwrap()
    } else {
        *b"diuoxXfFeEgGaA".choose(rng).unwrap()
    };
    let mut flags = String::new();
    for _ in 0..rng.gen_range(0..4) {
        flags.push(*['-', '+', ' ', '#', '0'].choose(rng).unwrap());
    }
    let width = match rng.gen_range(0..10) {
        0..=3 => None,
        4 => Some(None),
        5 => Some(Some(rng.gen_range(0..120))),
        _ => Some(Some(rng.gen_range(0..25))),
    };
    let precision = match rng.gen_range(0..100) {
        0..=39 => None,
        40..=49 => Some(None),
        50..=54 => Some(Some(String::new())),
        55..=57 => Some(Some(rng.gen_range(0..=120).to_string())),
        58 => Some(Some(rng.gen_range(0..=700).to_string())),
        _ => Some(Some(rng.gen_range(0..=20).to_string())),
    };
    let is_float = b"fFeEgGaA".contains(&conversion);
    let is_int = b"diuoxX".contains(&conversion);
    let vector = ((is_float || is_int) && rng.gen_bool(0.08))
        .then(|| *[2u8, 3, 4, 8, 16].choose(rng).unwrap());
    let length = match (is_int, is_float, vector.is_some()) {
        (true, _, false) => *["", "", "", "hh", "h", "l", "ll", "j", "z", "t"]
            .choose(rng)
            .unwrap(),
        (true, _, true) => *["", "hh", "h", "hl", "l"].choose(rng).unwrap(),
        (_, true, false) => *["", "", "", "l", "L"].choose(rng).unwrap(),
        (_, true, true) => *["", "h", "hl", "l"].choose(rng).unwrap(),
        _ => "",
    };
    let travel = match conversion {
        b'c' => Travel::Int32,
        b'p' => Travel::Ptr64,
        b's' => Travel::NullStr,
        _ if is_float => match (vector.is_some(), length) {
            (true, "l") => Travel::Float64,
            (true, _) => Travel::Float32,
            // A scalar travels as float or as double: the mask tells.
            (false, _) if rng.gen_bool(0.5) => Travel::Float32,
            (false, _) => Travel::Float64,
        },
        _ if matches!(length, "l" | "ll" | "j" | "z" | "t") => Travel::Int64,
        _ => Travel::Int32,
    };
    GenSpec {
        prefix: LITERALS.choose(rng).unwrap().to_string(),
        flags,
        width,
        precision,
        length,
        vector,
        conversion,
        travel,
    }
}

fn random_format(rng: &mut SmallRng) -> GenFormat {
    let count = *[0usize, 1, 1, 1, 2, 2, 3, 4, 5].choose(rng).unwrap();
    let specs: Vec<GenSpec> = (0..count).map(|_| random_spec(rng)).collect();
    let suffix = LITERALS.choose(rng).unwrap().to_string();
    let mut text = String::new();
    for spec in &specs {
        text.push_str(&spec.prefix);
        text.push_str(&spec.text(false));
    }
    text.push_str(&suffix);
    GenFormat {
        specs,
        suffix,
        text,
    }
}

/// The table entry: one argument per `*` and per spec, 64-bit bits where the value is wide.
fn table_entry(format: &GenFormat) -> Entry<'static> {
    let mut wide = Vec::new();
    let mut count = 0;
    for spec in &format.specs {
        count += spec.stars();
        if spec.travel.wide() {
            wide.push(count);
        }
        count += 1;
    }
    Entry::for_format(
        format.text.clone(),
        count as u64,
        Mask::for_arguments(count, wide),
    )
}

const EDGE_FLOATS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    0.5,
    2.5,
    0.1,
    1e-5,
    999999.5,
    9.9999995,
    1e15,
    1e16,
    1e22,
    1e23,
    1e300,
    f64::MAX,
    f64::MIN_POSITIVE,
    5e-324,
    2.225073858507201e-308,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

const EDGE_INTS: &[u64] = &[
    0,
    1,
    u64::MAX,
    0x7f,
    0x80,
    0xff,
    0x7fff,
    0x8000,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
];

fn random_f64(rng: &mut SmallRng) -> f64 {
    let sign = if rng.gen_bool(0.3) { -1.0 } else { 1.0 };
    match rng.gen_range(0..10) {
        0 => *EDGE_FLOATS.choose(rng).unwrap() * sign,
        1 => f64::from_bits(rng.gen::<u64>() | 0x7ff0_0000_0000_0001),
        2 | 3 => f64::from_bits(rng.gen()),
        4 => f64::from_bits(rng.gen::<u64>() & 0x800f_ffff_ffff_ffff),
        5 => sign * rng.gen_range(0..2_000_000) as f64 / (1u64 << rng.gen_range(0..24)) as f64,
        6 => sign * rng.gen_range(1..100_000) as f64 * 10f64.powi(rng.gen_range(-12..25)),
        7 => sign * rng.gen::<f64>() * 10f64.powi(rng.gen_range(-40..40)),
        _ => sign * (rng.gen_range(0..1_000_000) as f64 + 0.5),
    }
}

fn random_f32(rng: &mut SmallRng) -> f32 {
    match rng.gen_range(0..8) {
        0 => f32::from_bits(rng.gen::<u32>() | 0x7f80_0001),
        1 => f32::from_bits(rng.gen::<u32>() & 0x807f_ffff),
        2 => *[
            0.0f32,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MAX,
            f32::MIN_POSITIVE,
        ]
        .choose(rng)
        .unwrap(),
        3 | 4 => f32::from_bits(rng.gen()),
        _ => random_f64(rng) as f32,
    }
}

fn random_int(rng: &mut SmallRng) -> u64 {
    match rng.gen_range(0..8) {
        0 | 1 => *EDGE_INTS.choose(rng).unwrap(),
        2 | 3 => rng.gen(),
        4 => rng.gen_range(0..1000),
        5 => rng.gen_range(-1000i64..1000) as u64,
        6 => (1u64 << rng.gen_range(0..64)).wrapping_sub(rng.gen_range(0..2)),
        _ => rng.gen::<u64>() >> rng.gen_range(0..64),
    }
}

fn random_star(rng: &mut SmallRng) -> c_int {
    match rng.gen_range(0..10) {
        0 => -1,
        1 => rng.gen_range(-60..0),
        _ => rng.gen_range(0..40),
    }
}

/// Writes one entry's payload and glibc's text for it.
// glibc's snprintf is an `unsafe fn` (the arguments must match the format); the library
// itself stays safe.
#[allow(unsafe_code)]
fn entry(
    rng: &mut SmallRng,
    format: &GenFormat,
    c_specs: &[(CString, CString)],
    payload: &mut Payload,
    expected: &mut Vec<u8>,
) {
    payload.clear();
    for (spec, (prefixed, bare)) in format.specs.iter().zip(c_specs) {
        let stars: Vec<c_int> = (0..spec.stars()).map(|_| random_star(rng)).collect();
        for star in &stars {
            payload.u32(*star as u32);
        }
        let count = spec.vector.unwrap_or(1);
        if spec.vector.is_some() {
            expected.extend_from_slice(spec.prefix.replace("%%", "%").as_bytes());
        }
        for component in 0..count {
            if component > 0 {
                expected.push(b',');
            }
            let arg = match spec.travel {
                Travel::Int32 => {
                    let value = if spec.conversion == b'c' && rng.gen_bool(0.5) {
                        rng.gen_range(0..256)
                    } else {
                        random_int(rng) as u32
                    };
                    payload.u32(value);
                    CArg::Int(value as c_int)
                }
                Travel::Int64 => {
                    let value = random_int(rng);
                    payload.u64(value);
                    CArg::Long(value as c_long)
                }
                Travel::Float32 => {
                    let value = random_f32(rng);
                    payload.f32(value);
                    CArg::Double(f64::from(value))
                }
                Travel::Float64 => {
                    let value = random_f64(rng);
                    payload.f64(value);
                    CArg::Double(value)
                }
                Travel::Ptr64 => {
                    let value = match rng.gen_range(0..4) {
                        0 => 0,
                        1 => rng.gen_range(1..0x10000),
                        _ => rng.gen(),
                    };
                    payload.u64(value);
                    CArg::Ptr(value as usize)
                }
                Travel::NullStr => {
                    payload.u64(0);
                    CArg::NullStr
                }
            };
            let c_format = if spec.vector.is_some() {
                bare
            } else {
                prefixed
            };
            let args: Vec<CArg<'_>> = stars
                .iter()
                .map(|&star| CArg::Int(star))
                .chain([arg])
                .collect();
            // SAFETY: the arguments match the format, which the generator builds from the same
            // data.
            unsafe { glibc::snprintf_append(expected, c_format, &args) };
        }
    }
    expected.extend_from_slice(format.suffix.replace("%%", "%").as_bytes());
}

#[test]
fn random_entries_match_glibc() {
    let cases: usize = std::env::var("FMTSTR_DECODE_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = std::env::var("FMTSTR_DECODE_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0xdec0_de5e);
    let started = Instant::now();
    let mut rng = SmallRng::seed_from_u64(seed);

    // A pool of formats, each with its table entry; entries pick from it.
    let mut formats: Vec<GenFormat> = Vec::new();
    let mut by_text: HashMap<String, usize> = HashMap::new();
    let mut table = Table::new();
    while formats.len() < 30_000 {
        let format = random_format(&mut rng);
        if by_text.contains_key(&format.text) {
            continue;
        }
        by_text.insert(format.text.clone(), formats.len());
        table.entries.push(table_entry(&format));
        formats.push(format);
    }
    let ids: Vec<u64> = table.entries.iter().map(|e| e.id().get()).collect();
    let c_specs: Vec<Vec<(CString, CString)>> = formats
        .iter()
        .map(|format| {
            format
                .specs
                .iter()
                .map(|spec| {
                    let bare = spec.text(true);
                    (
                        CString::new(format!("{}{bare}", spec.prefix)).unwrap(),
                        CString::new(bare).unwrap(),
                    )
                })
                .collect()
        })
        .collect();
    let known = Formats::from_tables([("random".to_string(), table)]);
    assert!(
        known.findings().is_empty(),
        "{:?}",
        known.describe_findings()
    );

    let mut writer = BufferWriter::with_capacity(cases * 6);
    let mut payload = Payload::new();
    let mut expected = Vec::with_capacity(cases * 24);
    let mut ends = Vec::with_capacity(cases);
    for _ in 0..cases {
        let index = rng.gen_range(0..formats.len());
        entry(
            &mut rng,
            &formats[index],
            &c_specs[index],
            &mut payload,
            &mut expected,
        );
        writer.entry(ids[index], payload.dwords());
        ends.push(expected.len());
    }
    let bytes = writer.finish();
    let generated = started.elapsed();

    let buffer = Buffer::parse(&bytes).unwrap();
    let decoding = Instant::now();
    let decoded = decode_to_vec(&buffer, &known);
    let decode_time = decoding.elapsed();
    assert_eq!(decoded.printed, cases as u64);
    let unexpected: Vec<_> = decoded
        .problems
        .iter()
        .filter(|p| !matches!(p.kind, ProblemKind::Format { .. }))
        .take(10)
        .collect();
    assert!(unexpected.is_empty(), "{unexpected:#?}");

    if decoded.text != expected {
        // Find the entries that differ.
        let mut decoder = Decoder::new(&known);
        let mut start = 0;
        let mut shown = 0;
        let mut out = Vec::new();
        for (raw, &end) in buffer.entries().zip(&ends) {
            let raw = raw.unwrap();
            out.clear();
            decoder.render(&raw, &mut out).unwrap();
            if out[..] != expected[start..end] {
                shown += 1;
                let format = &known.get(raw.id).unwrap().entry().string().to_owned();
                eprintln!(
                    "MISMATCH at dword {} format {format:?} payload {:x?}\n  glibc:  {:?}\n  fmtstr: {:?}",
                    raw.offset,
                    raw.payload,
                    String::from_utf8_lossy(&expected[start..end]),
                    String::from_utf8_lossy(&out)
                );
                if shown == 20 {
                    break;
                }
            }
            start = end;
        }
        panic!("the decoded text differs from glibc's");
    }
    eprintln!(
        "{cases} entries ({} MB of buffer, {} MB of text; seed {seed:#x}): generated with \
         glibc in {generated:.2?}, decoded in {decode_time:.2?}",
        bytes.len() >> 20,
        expected.len() >> 20
    );

    // The same on two threads, in small windows.
    let options = Options {
        jobs: 2,
        window_dwords: 1 << 14,
        in_flight: 4,
        window_bytes: 1 << 20,
    };
    let mut parallel = Vec::with_capacity(expected.len());
    stream::run::<_, (), _, _>(
        &buffer,
        &options,
        |window| stream::decode_text(&buffer, &known, window),
        |_, chunk| {
            parallel.extend_from_slice(&chunk.text);
            Ok(())
        },
    )
    .unwrap();
    assert!(parallel == expected, "two threads decode differently");

    // The same in one pass, as `fmtstr decode --jobs 1` does (entries rendered in batches
    // grouped by format, then put back in order).
    let mut sequential = Vec::with_capacity(expected.len());
    stream::decode_sequential::<()>(&buffer, &known, 1 << 16, |_, chunk| {
        sequential.extend_from_slice(&chunk.text);
        Ok(())
    })
    .unwrap();
    assert!(sequential == expected, "the one-pass decode differs");
}

/// A table as today's LLPC writes it: `.string`s keep their trailing NUL (one has text after an
/// embedded NUL), `.user_data_offset` beside `.version`, and a shader-abort entry without
/// `.string`. Decoding its buffer prints exactly what glibc prints for the same calls, with no
/// NUL anywhere; the abort entry's record is marked and the walk goes on.
#[test]
fn llpc_nul_terminated_strings_decode_like_glibc() {
    use fmtstr_meta::msgpack;

    // (LLPC's opaque ID, .string as LLPC writes it, 64-bit mask).
    let printfs: [(u64, &str, u64); 3] = [
        (0x1111_2222_3333, "Output:%d\n\0", 0),
        (0x4444_5555_6666, "workgroup size:%f,%f\n\0", 0b11),
        (0x7777_8888_9999, "lane %u\0 hidden %d\n\0", 0),
    ];
    let abort_id = 0x0abc_def0_1234u64;
    let mut table = Vec::new();
    msgpack::write_map_len(&mut table, 3);
    msgpack::write_str(&mut table, b".strings");
    msgpack::write_array_len(&mut table, 4);
    let argc = |s: &str| s.split('\0').next().unwrap().matches('%').count() as u64;
    for (k, (id, string, mask)) in printfs.iter().enumerate() {
        if k == 1 {
            // { .constant_status: [1], .constants: ["test"], .data_count: 2, .index, .is_abort_message: 1 }
            msgpack::write_map_len(&mut table, 5);
            msgpack::write_str(&mut table, b".constant_status");
            msgpack::write_array_len(&mut table, 1);
            msgpack::write_uint(&mut table, 1);
            msgpack::write_str(&mut table, b".constants");
            msgpack::write_array_len(&mut table, 1);
            msgpack::write_uint(&mut table, 0x7473_6574);
            msgpack::write_str(&mut table, b".data_count");
            msgpack::write_uint(&mut table, 2);
            msgpack::write_str(&mut table, b".index");
            msgpack::write_uint(&mut table, abort_id);
            msgpack::write_str(&mut table, b".is_abort_message");
            msgpack::write_uint(&mut table, 1);
        }
        msgpack::write_map_len(&mut table, 4);
        msgpack::write_str(&mut table, b".64bit_arguments");
        msgpack::write_array_len(&mut table, 1);
        msgpack::write_uint(&mut table, *mask);
        msgpack::write_str(&mut table, b".argument_count");
        msgpack::write_uint(&mut table, argc(string));
        msgpack::write_str(&mut table, b".index");
        msgpack::write_uint(&mut table, *id);
        msgpack::write_str(&mut table, b".string");
        msgpack::write_str(&mut table, string.as_bytes());
    }
    msgpack::write_str(&mut table, b".user_data_offset");
    msgpack::write_uint(&mut table, 0);
    msgpack::write_str(&mut table, b".version");
    msgpack::write_uint(&mut table, 1);
    let table = Table::decode(&table).expect("today's LLPC table reads");
    assert_eq!(table.aborts.len(), 1);
    let formats = Formats::from_tables([("llpc.elf".to_owned(), table)]);

    let mut writer = BufferWriter::new();
    let mut expected = Vec::new();
    let c_format = |s: &str| CString::new(s.split('\0').next().unwrap()).unwrap();
    for round in 0..3i32 {
        let value = round * 1000 - 7;
        writer.entry(printfs[0].0, Payload::new().u32(value as u32).dwords());
        // SAFETY: "Output:%d\n" takes one int.
        #[allow(unsafe_code)]
        expected.extend(unsafe { glibc::snprintf(&c_format(printfs[0].1), &[CArg::Int(value)]) });
        let (x, y) = (f64::from(round) * 1.5, -0.25);
        writer.entry(printfs[1].0, Payload::new().f64(x).f64(y).dwords());
        // SAFETY: "workgroup size:%f,%f\n" takes two doubles.
        #[allow(unsafe_code)]
        expected.extend(unsafe {
            glibc::snprintf(&c_format(printfs[1].1), &[CArg::Double(x), CArg::Double(y)])
        });
        // The abort record: one runtime word after the constant "test".
        writer.entry(abort_id, Payload::new().u32(0x2121_2121).dwords());
        expected.extend_from_slice(
            format!(
                "<fmtstr: dword {} (byte {}): shader-abort message (format ID {abort_id:#x}, an \
                 entry of 3 dwords): message words [0x74736574, 0x21212121]; fmtstr does not \
                 render abort messages>\n",
                writer.len() - 3,
                16 + (writer.len() - 3) * 4
            )
            .as_bytes(),
        );
        // "lane %u" only: C stops at the embedded NUL, so the table's count of 2 reads one.
        writer.entry(
            printfs[2].0,
            Payload::new().u32(round as u32).u32(9).dwords(),
        );
        // SAFETY: "lane %u" takes one unsigned (passed as an int).
        #[allow(unsafe_code)]
        expected.extend(unsafe { glibc::snprintf(&c_format(printfs[2].1), &[CArg::Int(round)]) });
    }
    let bytes = writer.finish();
    let buffer = Buffer::parse(&bytes).unwrap();
    let decoded = decode_to_vec(&buffer, &formats);
    assert!(!decoded.text.contains(&0), "a NUL was printed");
    assert_eq!(
        String::from_utf8_lossy(&decoded.text),
        String::from_utf8_lossy(&expected)
    );
    assert_eq!(decoded.text, expected);
    let marked = decoded
        .problems
        .iter()
        .filter(|p| matches!(p.kind, ProblemKind::AbortMessage { .. }))
        .count();
    assert_eq!(marked, 3);
}
