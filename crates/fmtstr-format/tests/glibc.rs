//! Differential test: fmtstr's renderer against glibc's `snprintf`, byte for byte.
//!
//! A curated table of edge cases plus at least a million random (spec, value) pairs from a
//! seeded RNG. `FMTSTR_GLIBC_CASES` and `FMTSTR_GLIBC_SEED` change the random run.
// Edge values are spelled the way C programmers know them (2.2250738585072009e-308).
#![allow(clippy::excessive_precision)]

use std::ffi::{c_int, c_long, CString};
use std::fmt::Write as _;
use std::time::Instant;

use fmtstr_format::{Arg, Format};
use fmtstr_oracles::glibc::{self, CArg};
use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};

/// A value as the test generates it; turned into an [`Arg`] for fmtstr and a C value for glibc.
#[derive(Clone, Debug)]
enum Value {
    Int(u64),
    Float(f64),
    Ptr(u64),
    Str(Vec<u8>),
    NullStr,
}

/// One conversion spec as the generator builds it, independent of fmtstr's parser.
#[derive(Clone, Debug)]
struct GenSpec {
    flags: String,
    /// `Some(None)` is `*`.
    width: Option<Option<u32>>,
    /// `Some(None)` is `*`, `Some(Some(None))`... kept simple: text after the point.
    precision: Option<String>,
    length: &'static str,
    vector: Option<u8>,
    conversion: u8,
}

impl GenSpec {
    fn text(&self, for_glibc: bool) -> String {
        let mut s = String::from("%");
        s.push_str(&self.flags);
        match self.width {
            None => {}
            Some(None) => s.push('*'),
            Some(Some(w)) => write!(s, "{w}").unwrap(),
        }
        if let Some(p) = &self.precision {
            s.push('.');
            s.push_str(p);
        }
        if for_glibc {
            s.push_str(self.glibc_length());
        } else {
            if let Some(n) = self.vector {
                write!(s, "v{n}").unwrap();
            }
            s.push_str(self.length);
        }
        s.push(self.conversion as char);
        s
    }

    fn is_float(&self) -> bool {
        b"fFeEgGaA".contains(&self.conversion)
    }

    /// The length modifier glibc gets for one (element) value.
    fn glibc_length(&self) -> &'static str {
        if self.is_float() {
            // Values are doubles; `L` would make glibc read a long double.
            return if self.vector.is_none() && self.length == "l" {
                "l"
            } else {
                ""
            };
        }
        match self.length {
            "hl" => "",
            other => other,
        }
    }

    fn stars(&self) -> usize {
        usize::from(self.width == Some(None)) + usize::from(self.precision.as_deref() == Some("*"))
    }

    fn is_64bit_int(&self) -> bool {
        matches!(self.length, "l" | "ll" | "j" | "z" | "t")
    }
}

struct Harness {
    ours: Vec<u8>,
    theirs: Vec<u8>,
    mismatches: usize,
    cases: usize,
}

impl Harness {
    fn new() -> Harness {
        Harness {
            ours: Vec::new(),
            theirs: Vec::new(),
            mismatches: 0,
            cases: 0,
        }
    }

    /// Renders `prefix spec suffix` with both and compares; returns fmtstr's output.
    // glibc's snprintf is an `unsafe fn` (the arguments must match the format); the library
    // itself stays safe.
    #[allow(unsafe_code)]
    fn run(
        &mut self,
        spec: &GenSpec,
        stars: &[c_int],
        star_high: u64,
        values: &[Value],
        prefix: &str,
        suffix: &str,
    ) -> Vec<u8> {
        self.cases += 1;
        let ours_text = format!("{prefix}{}{suffix}", spec.text(false));
        let format = match Format::parse(ours_text.as_bytes()) {
            Ok(format) => format,
            Err(error) => panic!("fmtstr refused {ours_text:?}: {error}"),
        };
        let mut args: Vec<Arg<'_>> = stars
            .iter()
            .map(|&s| Arg::Int(star_high << 32 | u64::from(s as u32)))
            .collect();
        args.extend(values.iter().map(|v| match v {
            Value::Int(bits) => Arg::Int(*bits),
            Value::Float(x) => Arg::Float(*x),
            Value::Ptr(p) => Arg::Ptr(*p),
            Value::Str(s) => Arg::Str(s),
            Value::NullStr => Arg::Ptr(0),
        }));
        self.ours.clear();
        if let Err(error) = format.render(&args, &mut self.ours) {
            panic!("fmtstr failed on {ours_text:?} with {values:?}: {error}");
        }

        self.theirs.clear();
        let c_spec = spec.text(true);
        let vector = spec.vector.is_some();
        let c_format = if vector {
            CString::new(c_spec).unwrap()
        } else {
            CString::new(format!("{prefix}{c_spec}{suffix}")).unwrap()
        };
        if vector {
            self.theirs
                .extend_from_slice(prefix.replace("%%", "%").as_bytes());
        }
        for (k, value) in values.iter().enumerate() {
            if k > 0 {
                self.theirs.push(b',');
            }
            let c_string;
            let arg = match value {
                Value::Int(bits) => {
                    if spec.is_64bit_int() {
                        CArg::Long(*bits as c_long)
                    } else {
                        CArg::Int(*bits as u32 as c_int)
                    }
                }
                Value::Float(x) => CArg::Double(*x),
                Value::Ptr(p) => CArg::Ptr(*p as usize),
                Value::Str(s) => {
                    c_string = CString::new(s.clone()).unwrap();
                    CArg::Str(&c_string)
                }
                Value::NullStr => CArg::NullStr,
            };
            let args: Vec<CArg<'_>> = stars
                .iter()
                .map(|&star| CArg::Int(star))
                .chain([arg])
                .collect();
            // SAFETY: the arguments match the format, which the generator builds from the same
            // data.
            unsafe { glibc::snprintf_append(&mut self.theirs, &c_format, &args) };
        }
        if vector {
            self.theirs
                .extend_from_slice(suffix.replace("%%", "%").as_bytes());
        }

        if self.ours != self.theirs {
            self.mismatches += 1;
            if self.mismatches <= 30 {
                eprintln!(
                    "MISMATCH {ours_text:?} stars {stars:?} values {values:?}\n  glibc:  {:?}\n  fmtstr: {:?}",
                    String::from_utf8_lossy(&self.theirs),
                    String::from_utf8_lossy(&self.ours),
                );
            }
        }
        self.ours.clone()
    }
}

const EDGE_FLOATS: &[f64] = &[
    0.0,
    -0.0,
    1.0,
    -1.0,
    0.5,
    1.5,
    2.5,
    -2.5,
    9.5,
    0.05,
    0.25,
    0.125,
    0.375,
    1.96875,
    0.1,
    1e-4,
    1e-5,
    0.0001,
    0.00009999995,
    123456.0,
    1234567.0,
    999999.5,
    9.9999995,
    99999.95,
    1e15,
    1e16,
    1e17,
    1e21,
    1e22,
    1e23,
    1e300,
    -1e300,
    1e-300,
    f64::MAX,
    f64::MIN,
    f64::MIN_POSITIVE,
    f64::EPSILON,
    5e-324,
    -5e-324,
    2.2250738585072009e-308,
    2.2250738585072014e-308,
    1e-310,
    std::f64::consts::PI,
    -std::f64::consts::E,
    65536.0,
    4294967296.0,
    9007199254740993.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
];

const EDGE_INTS: &[u64] = &[
    0,
    1,
    u64::MAX,
    2,
    7,
    8,
    9,
    10,
    15,
    16,
    0x7f,
    0x80,
    0xff,
    0x100,
    0x1ff,
    0x7fff,
    0x8000,
    0xffff,
    0x1_ffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_ffff,
    0x1_0000_0000,
    0x7fff_ffff_ffff_ffff,
    0x8000_0000_0000_0000,
    0xffff_ffff_ffff_fffe,
    12345,
    1_000_000,
    0xdead_beef,
];

fn nan_negative() -> f64 {
    -f64::NAN
}

fn edge_floats() -> Vec<f64> {
    let mut v = EDGE_FLOATS.to_vec();
    v.push(nan_negative());
    v
}

fn random_float(rng: &mut SmallRng) -> f64 {
    let sign = if rng.gen_bool(0.3) { -1.0 } else { 1.0 };
    match rng.gen_range(0..12) {
        0 => *EDGE_FLOATS.choose(rng).unwrap() * if rng.gen_bool(0.1) { -1.0 } else { 1.0 },
        1 => {
            if rng.gen_bool(0.5) {
                nan_negative()
            } else {
                f64::from_bits(rng.gen::<u64>() | 0x7ff0_0000_0000_0001)
            }
        }
        2 | 3 => f64::from_bits(rng.gen()),
        4 => f64::from_bits(rng.gen::<u64>() & 0x800f_ffff_ffff_ffff),
        // Exact binary fractions: these hit round-half-even ties in %f, %e, %g and %a.
        5 | 6 => sign * rng.gen_range(0..2_000_000) as f64 / (1u64 << rng.gen_range(0..24)) as f64,
        7 => sign * rng.gen_range(1..100_000) as f64 * 10f64.powi(rng.gen_range(-12..25)),
        8 => sign * rng.gen::<f64>() * 10f64.powi(rng.gen_range(-40..40)),
        // Just below a power of ten: the `%g` style choice and carries.
        9 => {
            let p = 10f64.powi(rng.gen_range(-8..18));
            sign * p * (1.0 - rng.gen_range(1..1000) as f64 * 1e-8)
        }
        10 => f64::from(f32::from_bits(rng.gen())),
        _ => sign * (rng.gen_range(0..1_000_000) as f64 + 0.5),
    }
}

fn random_int(rng: &mut SmallRng) -> u64 {
    match rng.gen_range(0..10) {
        0 | 1 => *EDGE_INTS.choose(rng).unwrap(),
        2 | 3 => rng.gen(),
        4 => rng.gen_range(0..1000),
        5 => rng.gen_range(-1000i64..1000) as u64,
        6 => rng.gen::<i32>() as i64 as u64,
        7 => u64::from(rng.gen::<u16>()),
        8 => (1u64 << rng.gen_range(0..64)).wrapping_sub(rng.gen_range(0..2)),
        _ => rng.gen::<u64>() >> rng.gen_range(0..64),
    }
}

fn random_bytes(rng: &mut SmallRng) -> Vec<u8> {
    let len = if rng.gen_bool(0.1) {
        rng.gen_range(0..200)
    } else {
        rng.gen_range(0..12)
    };
    (0..len)
        .map(|_| {
            if rng.gen_bool(0.8) {
                rng.gen_range(b' '..=b'~')
            } else {
                rng.gen_range(1..=255)
            }
        })
        .collect()
}

fn random_value(rng: &mut SmallRng, conversion: u8) -> Value {
    match conversion {
        b'c' => Value::Int(if rng.gen_bool(0.5) {
            rng.gen_range(0..256)
        } else {
            random_int(rng)
        }),
        b's' => {
            if rng.gen_bool(0.1) {
                Value::NullStr
            } else {
                Value::Str(random_bytes(rng))
            }
        }
        b'p' => Value::Ptr(match rng.gen_range(0..4) {
            0 => 0,
            1 => rng.gen_range(1..0x10000),
            _ => rng.gen(),
        }),
        c if b"fFeEgGaA".contains(&c) => Value::Float(random_float(rng)),
        _ => Value::Int(random_int(rng)),
    }
}

const CONVERSIONS: &[u8] = b"diuoxXcspfFeEgGaA";

fn random_spec(rng: &mut SmallRng) -> GenSpec {
    // Weighted toward the numeric conversions, where the rules are.
    let conversion = if rng.gen_bool(0.1) {
        *b"csp".choose(rng).unwrap()
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
        5 => Some(Some(rng.gen_range(0..200))),
        _ => Some(Some(rng.gen_range(0..25))),
    };
    let precision = match rng.gen_range(0..100) {
        0..=39 => None,
        40..=49 => Some("*".to_string()),
        50..=54 => Some(String::new()),
        55..=57 => Some(rng.gen_range(0..=120).to_string()),
        58 => Some(rng.gen_range(0..=1200).to_string()),
        _ => Some(rng.gen_range(0..=20).to_string()),
    };
    let is_float = b"fFeEgGaA".contains(&conversion);
    let is_int = b"diuoxX".contains(&conversion);
    let vector = ((is_float || is_int) && rng.gen_bool(0.05))
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
    GenSpec {
        flags,
        width,
        precision,
        length,
        vector,
        conversion,
    }
}

fn random_star(rng: &mut SmallRng) -> c_int {
    match rng.gen_range(0..10) {
        0 => -1,
        1 => rng.gen_range(-60..0),
        _ => rng.gen_range(0..40),
    }
}

#[test]
fn random_specs_match_glibc() {
    let cases: usize = std::env::var("FMTSTR_GLIBC_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1_000_000);
    let seed: u64 = std::env::var("FMTSTR_GLIBC_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0x5eed_f00d);
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut harness = Harness::new();
    let started = Instant::now();
    let prefixes = ["", "", "", "x=", "[", "%% "];
    let suffixes = ["", "", "", "]", " end", "|%%"];
    for _ in 0..cases {
        let spec = random_spec(&mut rng);
        let stars: Vec<c_int> = (0..spec.stars()).map(|_| random_star(&mut rng)).collect();
        let star_high = if rng.gen_bool(0.2) { rng.gen() } else { 0 };
        let count = spec.vector.unwrap_or(1);
        let values: Vec<Value> = (0..count)
            .map(|_| random_value(&mut rng, spec.conversion))
            .collect();
        let prefix = prefixes.choose(&mut rng).unwrap();
        let suffix = suffixes.choose(&mut rng).unwrap();
        harness.run(&spec, &stars, star_high, &values, prefix, suffix);
    }
    eprintln!(
        "{} random cases (seed {seed:#x}) in {:.2?}, {} mismatches",
        harness.cases,
        started.elapsed(),
        harness.mismatches
    );
    assert_eq!(harness.mismatches, 0, "fmtstr and glibc disagree");
}

/// Every conversion × every flag combination × widths × precisions × edge values.
#[test]
fn curated_table_matches_glibc() {
    let started = Instant::now();
    let mut harness = Harness::new();
    let widths = [None, Some(Some(1)), Some(Some(12)), Some(Some(40))];
    let precisions: [Option<&str>; 7] = [
        None,
        Some(""),
        Some("0"),
        Some("1"),
        Some("3"),
        Some("17"),
        Some("100"),
    ];
    let floats = edge_floats();
    let strings: Vec<Value> = vec![
        Value::Str(b"".to_vec()),
        Value::Str(b"a".to_vec()),
        Value::Str(b"hello, world".to_vec()),
        Value::Str(vec![0xc3, 0xa9, 0xff, 0x01]),
        Value::NullStr,
    ];
    for &conversion in CONVERSIONS {
        let is_float = b"fFeEgGaA".contains(&conversion);
        let lengths: &[&'static str] = match conversion {
            b'd' | b'i' | b'u' | b'o' | b'x' | b'X' => &["", "hh", "h", "l", "ll"],
            c if b"fFeEgGaA".contains(&c) => &["", "L"],
            _ => &[""],
        };
        let values: Vec<Value> = match conversion {
            b's' => strings.clone(),
            b'p' => [0u64, 1, 0xff, 0x7fff_ffff_ffff, u64::MAX]
                .into_iter()
                .map(Value::Ptr)
                .collect(),
            b'c' => [0u64, b'a'.into(), 0xff, 0x1_41, u64::MAX]
                .into_iter()
                .map(Value::Int)
                .collect(),
            _ if is_float => floats.iter().copied().map(Value::Float).collect(),
            _ => EDGE_INTS.iter().copied().map(Value::Int).collect(),
        };
        for flag_bits in 0..32u32 {
            let flags: String = "-+ #0"
                .chars()
                .enumerate()
                .filter(|(k, _)| flag_bits & (1 << k) != 0)
                .map(|(_, c)| c)
                .collect();
            for width in widths {
                for precision in precisions {
                    for &length in lengths {
                        let spec = GenSpec {
                            flags: flags.clone(),
                            width,
                            precision: precision.map(str::to_string),
                            length,
                            vector: None,
                            conversion,
                        };
                        for value in &values {
                            harness.run(&spec, &[], 0, std::slice::from_ref(value), "", "");
                        }
                    }
                }
            }
        }
    }
    eprintln!(
        "{} curated cases in {:.2?}, {} mismatches",
        harness.cases,
        started.elapsed(),
        harness.mismatches
    );
    assert_eq!(harness.mismatches, 0, "fmtstr and glibc disagree");
}

/// Vectors with every element size, against glibc per component joined by commas.
#[test]
fn vectors_match_glibc() {
    let mut harness = Harness::new();
    let mut rng = SmallRng::seed_from_u64(7);
    for conversion in *b"diuoxXfFeEgGaA" {
        let is_float = b"fFeEgGaA".contains(&conversion);
        let lengths: &[&'static str] = if is_float {
            &["", "h", "hl", "l"]
        } else {
            &["", "hh", "h", "hl", "l"]
        };
        for &length in lengths {
            for n in [2u8, 3, 4, 8, 16] {
                for flags in ["", "-", "+#", "0", " "] {
                    let spec = GenSpec {
                        flags: flags.to_string(),
                        width: Some(Some(7)),
                        precision: if is_float { Some("2".into()) } else { None },
                        length,
                        vector: Some(n),
                        conversion,
                    };
                    let values: Vec<Value> =
                        (0..n).map(|_| random_value(&mut rng, conversion)).collect();
                    harness.run(&spec, &[], 0, &values, "<", ">");
                }
            }
        }
    }
    assert_eq!(harness.mismatches, 0, "fmtstr and glibc disagree");
}

/// The cases the brief names, with the exact text glibc prints (checked against both).
#[test]
fn named_edge_cases() {
    let mut harness = Harness::new();
    let cases: &[(&str, Value, &str)] = &[
        ("%a", Value::Float(5e-324), "0x0.0000000000001p-1022"),
        (
            "%a",
            Value::Float(2.2250738585072009e-308),
            "0x0.fffffffffffffp-1022",
        ),
        ("%a", Value::Float(2.2250738585072014e-308), "0x1p-1022"),
        (".1a", Value::Float(1.96875), "0x2.0p+0"),
        (".0a", Value::Float(1.5), "0x2p+0"),
        (".0a", Value::Float(2.5), "0x1p+1"),
        ("#.0a", Value::Float(1.0), "0x1.p+0"),
        ("A", Value::Float(-0.0), "-0X0P+0"),
        (".0f", Value::Float(0.5), "0"),
        (".0f", Value::Float(1.5), "2"),
        (".0f", Value::Float(2.5), "2"),
        (".0f", Value::Float(9.5), "10"),
        (".1f", Value::Float(0.05), "0.1"),
        (".2f", Value::Float(0.125), "0.12"),
        ("#.0f", Value::Float(1.0), "1."),
        ("#.0e", Value::Float(1.0), "1.e+00"),
        ("g", Value::Float(0.0001), "0.0001"),
        ("g", Value::Float(1e-5), "1e-05"),
        ("g", Value::Float(123456.0), "123456"),
        ("g", Value::Float(1234567.0), "1.23457e+06"),
        ("#g", Value::Float(1.0), "1.00000"),
        ("g", Value::Float(100000.0), "100000"),
        ("G", Value::Float(1e300), "1E+300"),
        ("f", Value::Float(-0.0), "-0.000000"),
        ("010f", Value::Float(f64::NEG_INFINITY), "      -inf"),
        ("f", Value::Float(nan_negative()), "-nan"),
        ("+F", Value::Float(f64::NAN), "+NAN"),
        ("hhd", Value::Int(0x1ff), "-1"),
        ("hu", Value::Int(0x1ffff), "65535"),
        (".0d", Value::Int(0), ""),
        ("#.0o", Value::Int(0), "0"),
        ("#x", Value::Int(0), "0"),
        ("#08x", Value::Int(255), "0x0000ff"),
        ("p", Value::Ptr(0), "(nil)"),
        ("-10p", Value::Ptr(0), "(nil)     "),
        ("+p", Value::Ptr(0x1234), "+0x1234"),
        ("010p", Value::Ptr(0x1234), "0x00001234"),
        ("s", Value::NullStr, "(null)"),
        (".5s", Value::NullStr, ""),
        ("05s", Value::Str(b"ab".to_vec()), "   ab"),
    ];
    for (text, value, expected) in cases {
        let text = text.trim_start_matches('%');
        let conversion = *text.as_bytes().last().unwrap();
        let body = &text[..text.len() - 1];
        let (rest, length) = ["hh", "h", "l"]
            .iter()
            .find_map(|l| body.strip_suffix(l).map(|r| (r, *l)))
            .unwrap_or((body, ""));
        let flags: String = rest.chars().take_while(|c| "-+ #0".contains(*c)).collect();
        let rest = &rest[flags.len()..];
        let (width, precision) = match rest.split_once('.') {
            Some((w, p)) => (w, Some(p.to_string())),
            None => (rest, None),
        };
        let spec = GenSpec {
            flags,
            width: (!width.is_empty()).then(|| Some(width.parse().unwrap())),
            precision,
            length,
            vector: None,
            conversion,
        };
        let ours = harness.run(&spec, &[], 0, std::slice::from_ref(value), "", "");
        assert_eq!(
            String::from_utf8_lossy(&ours),
            *expected,
            "{} of {value:?}",
            spec.text(false)
        );
    }
    assert_eq!(harness.mismatches, 0, "fmtstr and glibc disagree");
}

/// Huge precisions and widths up to the 65536 limit, and `%f` of the largest doubles.
#[test]
fn large_counts_match_glibc() {
    let mut harness = Harness::new();
    for conversion in *b"fega" {
        for precision in ["1074", "1075", "1100", "1101", "5000", "65536"] {
            for value in [1e300, 5e-324, f64::MAX, 1.0 / 3.0, 0.1] {
                let spec = GenSpec {
                    flags: "#".into(),
                    width: Some(Some(65536)),
                    precision: Some(precision.into()),
                    length: "",
                    vector: None,
                    conversion,
                };
                harness.run(&spec, &[], 0, &[Value::Float(value)], "", "");
            }
        }
    }
    for value in [f64::MAX, -f64::MAX, 1e300, 1e22, 1e23] {
        let spec = GenSpec {
            flags: String::new(),
            width: None,
            precision: None,
            length: "",
            vector: None,
            conversion: b'f',
        };
        harness.run(&spec, &[], 0, &[Value::Float(value)], "", "");
    }
    assert_eq!(harness.mismatches, 0, "fmtstr and glibc disagree");
}

/// Around every power of ten: where `%g` switches style and rounding carries a decade.
#[test]
fn powers_of_ten_match_glibc() {
    let mut harness = Harness::new();
    for k in -323..=308 {
        let power: f64 = format!("1e{k}").parse().unwrap();
        let below = f64::from_bits(power.to_bits() - 1);
        let values = [
            power,
            below,
            f64::from_bits(power.to_bits() + 1),
            below * 0.9999995,
            power * 0.95,
            power * 0.995,
            power * 9.5,
            power * 9.9999995,
        ];
        for value in values {
            for conversion in [b'g', b'e', b'f'] {
                if conversion == b'f' && !(1e-30..1e30).contains(&value.abs()) {
                    continue;
                }
                for precision in 0..=18 {
                    for flags in ["", "#"] {
                        let spec = GenSpec {
                            flags: flags.into(),
                            width: None,
                            precision: Some(precision.to_string()),
                            length: "",
                            vector: None,
                            conversion,
                        };
                        harness.run(&spec, &[], 0, &[Value::Float(value)], "", "");
                    }
                }
            }
        }
    }
    eprintln!("{} cases around powers of ten", harness.cases);
    assert_eq!(harness.mismatches, 0, "fmtstr and glibc disagree");
}
