//! The -Wformat-style checker: counts, widths, classes, vector lengths and positions.

use fmtstr_format::{check, ArgClass, ArgType, Finding, FindingKind, Format, ScalarType};

const I1: ArgType = ArgType::Scalar(ScalarType::Int(1));
const I8: ArgType = ArgType::Scalar(ScalarType::Int(8));
const I16: ArgType = ArgType::Scalar(ScalarType::Int(16));
const I32: ArgType = ArgType::Scalar(ScalarType::Int(32));
const I64: ArgType = ArgType::Scalar(ScalarType::Int(64));
const I128: ArgType = ArgType::Scalar(ScalarType::Int(128));
const HALF: ArgType = ArgType::Scalar(ScalarType::Half);
const FLOAT: ArgType = ArgType::Scalar(ScalarType::Float);
const DOUBLE: ArgType = ArgType::Scalar(ScalarType::Double);
const PTR: ArgType = ArgType::Scalar(ScalarType::Ptr);

fn vector(len: u16, element: ScalarType) -> ArgType {
    ArgType::Vector { len, element }
}

fn findings(format: &str, args: &[ArgType]) -> Vec<Finding> {
    check(&Format::parse(format.as_bytes()).unwrap(), args)
}

fn clean(format: &str, args: &[ArgType]) {
    let found = findings(format, args);
    assert!(found.is_empty(), "{format:?} {args:?}: {found:?}");
}

fn one(format: &str, args: &[ArgType]) -> Finding {
    let mut found = findings(format, args);
    assert_eq!(found.len(), 1, "{format:?} {args:?}: {found:?}");
    found.remove(0)
}

#[test]
fn matching_calls_are_clean() {
    clean("no conversions", &[]);
    clean("%d %u %x %c", &[I32, I32, I32, I32]);
    clean("%ld %llu %zx %jd %td", &[I64, I64, I64, I64, I64]);
    clean("%f %e %g %a %Lf %lf", &[DOUBLE; 6]);
    clean("%s %p", &[PTR, PTR]);
    clean("%%", &[]);
}

#[test]
fn c_promotions_are_fine() {
    // char, short and bool promote to int; float and half to double.
    clean("%d %d %d %i", &[I1, I8, I16, I32]);
    clean("%hhd %hd %hhx %hu", &[I32, I32, I8, I16]);
    clean("%c %c", &[I8, I32]);
    clean("%f %g", &[FLOAT, HALF]);
}

#[test]
fn width_mismatches() {
    let f = one("x=%d", &[I64]);
    assert_eq!(f.offset, Some(2));
    assert_eq!(f.arg_index, Some(0));
    assert_eq!(
        f.kind,
        FindingKind::Width {
            expected_bits: 32,
            got: I64
        }
    );
    assert_eq!(
        f.to_string(),
        "format specifies type 'int' but the argument has type 'i64'"
    );
    let f = one("%ld", &[I32]);
    assert_eq!(
        f.kind,
        FindingKind::Width {
            expected_bits: 64,
            got: I32
        }
    );
    assert_eq!(
        f.message,
        "format specifies type 'long' but the argument has type 'i32'"
    );
    assert!(matches!(
        one("%llu", &[I128]).kind,
        FindingKind::Width {
            expected_bits: 64,
            ..
        }
    ));
    assert!(matches!(
        one("%hhd", &[I64]).kind,
        FindingKind::Width {
            expected_bits: 8,
            ..
        }
    ));
    assert!(matches!(
        one("%c", &[I64]).kind,
        FindingKind::Width {
            expected_bits: 32,
            ..
        }
    ));
}

#[test]
fn class_mismatches() {
    let f = one("%d", &[DOUBLE]);
    assert_eq!(
        f.kind,
        FindingKind::Class {
            expected: ArgClass::Signed,
            got: DOUBLE
        }
    );
    assert_eq!(
        f.to_string(),
        "format specifies type 'int' but the argument has type 'double'"
    );
    let f = one("%f", &[I32]);
    assert_eq!(
        f.kind,
        FindingKind::Class {
            expected: ArgClass::Float,
            got: I32
        }
    );
    let f = one("%s", &[I64]);
    assert_eq!(
        f.kind,
        FindingKind::Class {
            expected: ArgClass::String,
            got: I64
        }
    );
    assert_eq!(
        f.to_string(),
        "format specifies type 'char *' but the argument has type 'i64'"
    );
    let f = one("%p", &[I64]);
    assert_eq!(
        f.kind,
        FindingKind::Class {
            expected: ArgClass::Pointer,
            got: I64
        }
    );
    assert!(matches!(
        one("%x", &[PTR]).kind,
        FindingKind::Class {
            expected: ArgClass::Unsigned,
            ..
        }
    ));
    assert!(matches!(
        one("%c", &[FLOAT]).kind,
        FindingKind::Class {
            expected: ArgClass::Char,
            ..
        }
    ));
}

#[test]
fn argument_counts() {
    let f = one("%d and %d", &[I32]);
    assert_eq!(
        f.kind,
        FindingKind::TooFewArguments {
            expected: 2,
            got: 1
        }
    );
    assert_eq!(f.offset, Some(7));
    assert_eq!(f.arg_index, None);
    assert!(
        f.to_string()
            .starts_with("more '%' conversions than data arguments"),
        "{f}"
    );

    let f = one("%d", &[I32, I32, DOUBLE]);
    assert_eq!(
        f.kind,
        FindingKind::TooManyArguments {
            expected: 1,
            got: 3
        }
    );
    assert_eq!(f.offset, None);
    assert_eq!(f.arg_index, Some(1));
    assert!(
        f.to_string()
            .starts_with("data argument not used by format string"),
        "{f}"
    );

    // Stars count as arguments; a vector counts as one.
    let f = one("%*.*f %v4d", &[I32, I32, DOUBLE]);
    assert_eq!(
        f.kind,
        FindingKind::TooFewArguments {
            expected: 4,
            got: 3
        }
    );
    assert_eq!(f.offset, Some(6));
    assert!(matches!(
        one("%*d", &[I32]).kind,
        FindingKind::TooFewArguments {
            expected: 2,
            got: 1
        }
    ));
}

#[test]
fn star_arguments() {
    clean("%*d %.*f %*.*s", &[I32, I32, I32, DOUBLE, I16, I8, PTR]);
    let f = one("%*d", &[I64, I32]);
    assert_eq!(f.arg_index, Some(0));
    assert_eq!(
        f.kind,
        FindingKind::Width {
            expected_bits: 32,
            got: I64
        }
    );
    assert_eq!(
        f.to_string(),
        "field width should have type 'int', but argument has type 'i64'"
    );
    let f = one("%.*f", &[DOUBLE, DOUBLE]);
    assert_eq!(
        f.kind,
        FindingKind::Class {
            expected: ArgClass::Signed,
            got: DOUBLE
        }
    );
    assert_eq!(
        f.to_string(),
        "field precision should have type 'int', but argument has type 'double'"
    );
    let f = one("%*.*d", &[I32, FLOAT, I32]);
    assert_eq!(f.arg_index, Some(1));
    assert!(f.to_string().starts_with("field precision"), "{f}");
}

#[test]
fn vectors() {
    clean("%v4f", &[vector(4, ScalarType::Float)]);
    clean("%v4hlf", &[vector(4, ScalarType::Float)]);
    clean("%v4hf", &[vector(4, ScalarType::Half)]);
    clean("%v2lf", &[vector(2, ScalarType::Double)]);
    clean("%v2d", &[vector(2, ScalarType::Int(32))]);
    clean("%v8hhx", &[vector(8, ScalarType::Int(8))]);
    clean("%v4hd", &[vector(4, ScalarType::Int(16))]);
    clean("%v16hlu", &[vector(16, ScalarType::Int(32))]);
    clean("%v3ld", &[vector(3, ScalarType::Int(64))]);

    // Elements are not promoted.
    let got = vector(4, ScalarType::Double);
    let f = one("%v4f", &[got]);
    assert_eq!(
        f.kind,
        FindingKind::Width {
            expected_bits: 32,
            got
        }
    );
    assert_eq!(
        f.to_string(),
        "format specifies type 'float4' but the argument has type '<4 x double>'"
    );
    assert!(matches!(
        one("%v4hd", &[vector(4, ScalarType::Int(32))]).kind,
        FindingKind::Width {
            expected_bits: 16,
            ..
        }
    ));
    assert!(matches!(
        one("%v4d", &[vector(4, ScalarType::Float)]).kind,
        FindingKind::Class {
            expected: ArgClass::Signed,
            ..
        }
    ));

    let f = one("%v4f", &[vector(2, ScalarType::Float)]);
    assert_eq!(
        f.kind,
        FindingKind::VectorLength {
            expected: 4,
            got: 2
        }
    );
    let f = one("%v4d", &[I32]);
    assert_eq!(
        f.kind,
        FindingKind::VectorLength {
            expected: 4,
            got: 1
        }
    );
    assert_eq!(
        f.to_string(),
        "format specifies type 'int4' but the argument has type 'i32'"
    );
    let f = one("%d", &[vector(4, ScalarType::Int(32))]);
    assert_eq!(
        f.kind,
        FindingKind::VectorLength {
            expected: 1,
            got: 4
        }
    );
    // A one-element vector is still not a scalar.
    assert!(matches!(
        one("%d", &[vector(1, ScalarType::Int(32))]).kind,
        FindingKind::VectorLength {
            expected: 1,
            got: 1
        }
    ));
}

#[test]
fn findings_carry_positions_in_order() {
    let found = findings(
        "a %d b %s c %v2f",
        &[DOUBLE, I32, vector(2, ScalarType::Float), I32],
    );
    let summary: Vec<(Option<usize>, Option<usize>)> =
        found.iter().map(|f| (f.offset, f.arg_index)).collect();
    assert_eq!(
        summary,
        vec![(Some(2), Some(0)), (Some(7), Some(1)), (None, Some(3))]
    );
    assert!(matches!(found[0].kind, FindingKind::Class { .. }));
    assert!(matches!(found[1].kind, FindingKind::Class { .. }));
    assert!(matches!(
        found[2].kind,
        FindingKind::TooManyArguments { .. }
    ));
}

#[test]
fn type_names_print_like_llvm() {
    assert_eq!(I32.to_string(), "i32");
    assert_eq!(HALF.to_string(), "half");
    assert_eq!(PTR.to_string(), "ptr");
    assert_eq!(vector(4, ScalarType::Float).to_string(), "<4 x float>");
}
