//! Format strings: parse, render, and compare with glibc's `snprintf` in process.
//!
//! Input: the format, a NUL, then bytes the argument values are taken from. Every format that
//! parses is rendered (no panic). When every conversion is one both sides read the same way
//! (no OpenCL vector, no `L`/`ll` float, which glibc reads as a `long double`, no length on
//! `%c`, `%s` or `%p`, which glibc reads as wide characters), each conversion is also printed
//! by glibc with the same C-typed values, and the concatenation must be fmtstr's output byte
//! for byte (printf's output is the concatenation of its pieces').
#![no_main]
// Calling glibc's variadic snprintf is unsafe; the arguments are built from each spec's type.
#![allow(unsafe_code)]

use std::ffi::CString;

use fmtstr_format::{Arg, ArgClass, Format, Length, Piece, RenderError, Spec};
use fmtstr_fuzz::{split, Bytes};
use fmtstr_oracles::glibc::{snprintf_append, CArg};
use libfuzzer_sys::fuzz_target;

/// One value for both sides: fmtstr's argument and the C-typed one.
enum Value {
    Int { bits: u64, long: bool },
    Float(f64),
    Ptr(u64),
    Str(CString),
    NullStr,
}

impl Value {
    fn arg(&self) -> Arg<'_> {
        match self {
            Value::Int { bits, .. } => Arg::Int(*bits),
            Value::Float(x) => Arg::Float(*x),
            Value::Ptr(p) => Arg::Ptr(*p),
            Value::Str(s) => Arg::Str(s.as_bytes()),
            Value::NullStr => Arg::Ptr(0),
        }
    }

    fn c_arg(&self) -> CArg<'_> {
        match self {
            Value::Int { bits, long: true } => CArg::Long(*bits as i64),
            Value::Int { bits, long: false } => CArg::Int(*bits as u32 as i32),
            Value::Float(x) => CArg::Double(*x),
            Value::Ptr(p) => CArg::Ptr(*p as usize),
            Value::Str(s) => CArg::Str(s),
            Value::NullStr => CArg::NullStr,
        }
    }
}

/// Whether glibc reads `spec`'s value with the C type fmtstr assumes.
fn glibc_reads_alike(spec: &Spec) -> bool {
    if spec.vector.is_some() || spec.length == Length::Hl {
        return false;
    }
    match spec.class() {
        ArgClass::Float => !matches!(spec.length, Length::Ll | Length::BigL),
        ArgClass::Char | ArgClass::String | ArgClass::Pointer => spec.length == Length::None,
        ArgClass::Signed | ArgClass::Unsigned => true,
    }
}

/// A `*` argument: mostly small, so that glibc's output stays small.
fn star(bytes: &mut Bytes<'_>) -> i32 {
    i32::from(bytes.u8() as i8)
}

fn value(spec: &Spec, bytes: &mut Bytes<'_>) -> Value {
    let bits = bytes.u64();
    match spec.class() {
        ArgClass::Float => Value::Float(f64::from_bits(bits)),
        ArgClass::Pointer => Value::Ptr(bits),
        ArgClass::String if bits & 0xff == 0 => Value::NullStr,
        ArgClass::String => {
            let len = usize::from(bytes.u8() % 32);
            let text: Vec<u8> = bytes
                .slice(len)
                .iter()
                .copied()
                .filter(|&b| b != 0)
                .collect();
            Value::Str(CString::new(text).expect("NULs were removed"))
        }
        ArgClass::Char => Value::Int { bits, long: false },
        ArgClass::Signed | ArgClass::Unsigned => Value::Int {
            bits,
            long: spec.c_width() == 64,
        },
    }
}

fuzz_target!(|data: &[u8]| {
    let (format, rest) = split(data, b"\0");
    let format = match Format::parse(format) {
        Ok(format) => format,
        Err(error) => return drop(error.to_string()),
    };
    let mut bytes = Bytes::new(rest);

    // Per spec: its `*` values (width first), then its values (one per vector component).
    let mut per_spec: Vec<(Vec<i32>, Vec<Value>)> = Vec::new();
    for spec in format.specs() {
        let stars = (0..spec.star_args()).map(|_| star(&mut bytes)).collect();
        let values = (0..spec.vector.unwrap_or(1))
            .map(|_| value(spec, &mut bytes))
            .collect();
        per_spec.push((stars, values));
    }
    let args: Vec<Arg<'_>> = per_spec
        .iter()
        .flat_map(|(stars, values)| {
            stars
                .iter()
                .map(|&s| Arg::Int(i64::from(s) as u64))
                .chain(values.iter().map(Value::arg))
        })
        .collect();
    let ours = match format.render_to_vec(&args) {
        Ok(ours) => ours,
        // Widths and precisions from `*` above fmtstr's limit are refused, never rendered.
        Err(RenderError::TooWide { .. }) => return,
        Err(error) => panic!("rendering with the arguments the format asks for failed: {error}"),
    };
    assert_eq!(
        ours,
        format.render_to_vec(&args).expect("rendered once"),
        "rendering is not deterministic"
    );

    if !format.specs().all(glibc_reads_alike) {
        return;
    }
    let mut theirs = Vec::new();
    let mut specs = per_spec.iter();
    for piece in format.pieces() {
        match piece {
            Piece::Literal(range) => theirs.extend_from_slice(&format.bytes()[range.clone()]),
            Piece::Percent => theirs.push(b'%'),
            Piece::Spec(spec) => {
                let (stars, values) = specs.next().expect("one entry per spec");
                let text = &format.bytes()[spec.offset..spec.offset + spec.len];
                let c_format = CString::new(text).expect("a format has no NUL");
                let c_args: Vec<CArg<'_>> = stars
                    .iter()
                    .map(|&s| CArg::Int(s))
                    .chain(values.iter().map(Value::c_arg))
                    .collect();
                // SAFETY: the spec takes its `*` ints, then one value of the C type
                // `glibc_reads_alike` and `value` agree on; fmtstr refuses `%n`.
                unsafe { snprintf_append(&mut theirs, &c_format, &c_args) };
            }
        }
    }
    if ours != theirs {
        panic!(
            "fmtstr and glibc differ on {:?}\n  fmtstr: {:?}\n  glibc:  {:?}",
            String::from_utf8_lossy(format.bytes()),
            String::from_utf8_lossy(&ours),
            String::from_utf8_lossy(&theirs)
        );
    }
});
