//! The `vvl` dialect: the Vulkan validation layers' debug printf, as VVL's docs/debug_printf.md
//! and its instrumentation pass's format check (DEBUG-PRINTF-FORMATTING) describe it. What VVL
//! rejects (it skips the call) is an error; what it prints otherwise than written, a warning.

use fmtstr_format::{check_format, ArgType, Dialect, FindingKind, ScalarType, Severity, VvlLimit};

const I16: ArgType = ArgType::Scalar(ScalarType::Int(16));
const I32: ArgType = ArgType::Scalar(ScalarType::Int(32));
const I64: ArgType = ArgType::Scalar(ScalarType::Int(64));
const BOOL: ArgType = ArgType::Scalar(ScalarType::Int(1));
const HALF: ArgType = ArgType::Scalar(ScalarType::Half);
const FLOAT: ArgType = ArgType::Scalar(ScalarType::Float);
const DOUBLE: ArgType = ArgType::Scalar(ScalarType::Double);
const PTR: ArgType = ArgType::Scalar(ScalarType::Ptr);

fn vector(len: u16, element: ScalarType) -> ArgType {
    ArgType::Vector { len, element }
}

fn vvl(format: &str, args: &[ArgType]) -> Vec<(Severity, FindingKind)> {
    check_format(format.as_bytes(), args, Dialect::Vvl)
        .into_iter()
        .map(|f| (f.severity, f.kind))
        .collect()
}

#[test]
fn what_vvl_documents_is_clean() {
    // The examples of VVL's docs/debug_printf.md, and its specifier table.
    assert!(vvl("Here's a float value to 2 decimals %1.2f", &[FLOAT]).is_empty());
    assert!(vvl(
        "Here's a vector of floats %1.2v4f",
        &[vector(4, ScalarType::Float)]
    )
    .is_empty());
    assert!(vvl("Unsigned long as decimal %lu and as hex 0x%lx", &[I64, I64]).is_empty());
    assert!(vvl("Padded [%8u] and zero padded hex [%08x]", &[I32, I32]).is_empty());
    assert!(vvl(
        "%d %i %o %u %x %X %ld",
        &[I32, I32, I32, I32, I32, I32, I64]
    )
    .is_empty());
    assert!(vvl("%a %A %e %E %f %F %g %G", &[FLOAT; 8]).is_empty());
    // Every float width prints with %f; 8/16-bit integers and booleans with the 32-bit ones.
    assert!(vvl("%f %f %f", &[HALF, FLOAT, DOUBLE]).is_empty());
    assert!(vvl("%d %u", &[I16, BOOL]).is_empty());
    assert!(vvl(
        "%v2f %v3d %v4lu",
        &[
            vector(2, ScalarType::Double),
            vector(3, ScalarType::Int(16)),
            vector(4, ScalarType::Int(64)),
        ]
    )
    .is_empty());
    assert!(vvl("%p 100%%", &[PTR]).is_empty());
}

#[test]
fn what_vvl_rejects_is_an_error() {
    let error = |kind| (Severity::Error, kind);
    assert_eq!(
        vvl("%s", &[PTR]),
        [error(FindingKind::InvalidConversion { byte: b's' })]
    );
    assert_eq!(
        vvl("%c", &[I32]),
        [error(FindingKind::InvalidConversion { byte: b'c' })]
    );
    for flag in ["-", "+", " ", "#", "'"] {
        assert_eq!(
            vvl(&format!("%{flag}d"), &[I32]),
            [error(FindingKind::Vvl(VvlLimit::Flag))],
            "{flag}"
        );
    }
    for length in ["h", "hh", "j", "z", "t", "L"] {
        let found = vvl(&format!("%{length}d"), &[I32]);
        assert_eq!(
            found[0],
            error(FindingKind::Vvl(VvlLimit::Length)),
            "{length}"
        );
    }
    assert_eq!(
        vvl("%*d", &[I32, I32]),
        [error(FindingKind::Vvl(VvlLimit::Star))]
    );
    assert_eq!(
        vvl("%v5f", &[vector(5, ScalarType::Float)]),
        [error(FindingKind::Vvl(VvlLimit::VectorSize))]
    );
    assert_eq!(
        vvl("%1$d", &[I32]),
        [error(FindingKind::Vvl(VvlLimit::Positional))]
    );
}

#[test]
fn what_vvl_prints_otherwise_is_a_warning() {
    let warning = |kind| (Severity::Warning, kind);
    // %ul is VVL's alias of %lx: a 64-bit argument, and a note that C reads it differently.
    assert_eq!(
        vvl("%ul", &[I64]),
        [warning(FindingKind::Vvl(VvlLimit::UlAlias))]
    );
    assert_eq!(
        vvl("%lld", &[I64]),
        [warning(FindingKind::Vvl(VvlLimit::LongLong))]
    );
    assert_eq!(
        vvl("%lf", &[DOUBLE]),
        [warning(FindingKind::Vvl(VvlLimit::LongFloat))]
    );
    // A 64-bit integer without `l`, a 32-bit one with it, a float for %d.
    assert!(matches!(
        vvl("%d", &[I64])[..],
        [(
            Severity::Warning,
            FindingKind::Width {
                expected_bits: 32,
                ..
            }
        )]
    ));
    assert!(matches!(
        vvl("%lu", &[I32])[..],
        [(
            Severity::Warning,
            FindingKind::Width {
                expected_bits: 64,
                ..
            }
        )]
    ));
    assert!(matches!(
        vvl("%d", &[FLOAT])[..],
        [(Severity::Warning, FindingKind::Class { .. })]
    ));
    // Vector length and vector/scalar mismatches.
    assert!(matches!(
        vvl("%v3f", &[vector(4, ScalarType::Float)])[..],
        [(
            Severity::Warning,
            FindingKind::VectorLength {
                expected: 3,
                got: 4
            }
        )]
    ));
    assert!(matches!(
        vvl("%v2f", &[FLOAT])[..],
        [(
            Severity::Warning,
            FindingKind::VectorLength {
                expected: 2,
                got: 1
            }
        )]
    ));
}

#[test]
fn fixes_use_vvl_spellings() {
    let found = check_format(
        b"%d %v2f",
        &[I64, vector(2, ScalarType::Int(64))],
        Dialect::Vvl,
    );
    let fixes: Vec<_> = found.iter().map(|f| f.fix.clone().unwrap()).collect();
    assert_eq!(
        fixes,
        [
            "write '%ld' for an argument of type 'i64'",
            "write '%v2ld' for an argument of type '<2 x i64>'"
        ]
    );
}
