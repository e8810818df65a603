//! The checker's dialects: `c` says what clang 19's -Wformat says (each expectation below was
//! checked with `clang-19 --target=x86_64-linux-gnu -fsyntax-only -Wformat`, and the oracle
//! test `clang_sema` holds the whole dialect to clang's own tests), `opencl` what clang says in
//! OpenCL C, and `gpu` adds what GPU printf cannot print.

use fmtstr_format::{
    check_format, ArgType, CleanChecks, Dialect, Finding, FindingKind, GpuLimit, ScalarType,
    Severity,
};

const I32: ArgType = ArgType::Scalar(ScalarType::Int(32));
const I64: ArgType = ArgType::Scalar(ScalarType::Int(64));
const DOUBLE: ArgType = ArgType::Scalar(ScalarType::Double);
const LONG_DOUBLE: ArgType = ArgType::Scalar(ScalarType::X86Fp80);
const PTR: ArgType = ArgType::Scalar(ScalarType::Ptr);
const FLOAT4: ArgType = ArgType::Vector {
    len: 4,
    element: ScalarType::Float,
};

fn c(format: &str, args: &[ArgType]) -> Vec<Finding> {
    check_format(format.as_bytes(), args, Dialect::C)
}

fn gpu(format: &str, args: &[ArgType]) -> Vec<Finding> {
    check_format(format.as_bytes(), args, Dialect::Gpu)
}

fn kinds(findings: &[Finding]) -> Vec<FindingKind> {
    findings.iter().map(|f| f.kind).collect()
}

fn messages(findings: &[Finding]) -> Vec<&str> {
    findings.iter().map(|f| f.message.as_str()).collect()
}

#[test]
fn every_finding_is_reported_with_its_offset_and_fix() {
    let found = c("%+p %.4p %0s % +f", &[PTR, PTR, PTR, DOUBLE]);
    assert_eq!(
        messages(&found),
        [
            "flag '+' results in undefined behavior with 'p' conversion specifier",
            "precision used with 'p' conversion specifier, resulting in undefined behavior",
            "flag '0' results in undefined behavior with 's' conversion specifier",
            "flag ' ' is ignored when flag '+' is present",
        ]
    );
    let offsets: Vec<_> = found.iter().map(|f| f.offset).collect();
    assert_eq!(offsets, [Some(1), Some(5), Some(10), Some(14)]);
    assert_eq!(found[0].fix.as_deref(), Some("remove the '+' flag"));
    assert_eq!(found[1].fix.as_deref(), Some("remove the precision"));
    assert!(found.iter().all(|f| f.severity == Severity::Warning));

    // Where clang stops (an argument missing, positions mixed), what the rest of the format
    // says alone is still reported.
    assert!(matches!(
        kinds(&c("%d %+p %y", &[]))[..],
        [
            FindingKind::TooFewArguments {
                expected: 2,
                got: 0
            },
            FindingKind::FlagUndefined {
                flag: b'+',
                conversion: b'p'
            },
            FindingKind::InvalidConversion { byte: b'y' },
        ]
    ));
    assert!(matches!(
        kinds(&c("%1$d %d %hhs", &[I32, I32, PTR]))[..],
        [
            FindingKind::MixedPositional,
            FindingKind::LengthUndefined { conversion: b's' }
        ]
    ));

    // Type findings carry the conversion that fits the argument, flags and width kept.
    let found = c("x=%-5d %5.2d", &[I64, DOUBLE]);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(found[0].offset, Some(2));
    assert_eq!(
        found[0].fix.as_deref(),
        Some("write '%-5ld' for an argument of type 'i64'")
    );
    assert_eq!(
        found[1].fix.as_deref(),
        Some("write '%5.2f' for an argument of type 'double'")
    );
}

#[test]
fn clang_words_for_empty_formats_and_missing_stars() {
    assert_eq!(messages(&c("", &[I32])), ["format string is empty"]);
    assert!(c("", &[]).is_empty());
    assert_eq!(
        messages(&c("%.*d", &[])),
        ["'.*' specified field precision is missing a matching 'int' argument"]
    );
    assert_eq!(
        messages(&c("%*d", &[])),
        ["'*' specified field width is missing a matching 'int' argument"]
    );
    // clang checks the argument under a length that does not apply, and names MS types.
    assert_eq!(
        messages(&c("%I64d", &[DOUBLE])),
        [
            "length modifier 'I64' results in undefined behavior or no effect with 'd' conversion specifier",
            "format specifies type '__int64' but the argument has type 'double'",
        ]
    );
}

#[test]
fn text_after_an_embedded_nul_is_warned_about_and_not_checked() {
    let found = c("%d\0%d", &[I32, I32]);
    assert_eq!(kinds(&found), [FindingKind::EmbeddedNul]);
    assert_eq!(found[0].offset, Some(2));
    assert_eq!(
        found[0].message,
        "format string contains '\\0' within the string body"
    );
    // The conversions before the NUL are still checked.
    let found = c("%s\0", &[I32]);
    assert_eq!(found.len(), 2, "{found:?}");
}

#[test]
fn positional_arguments() {
    assert!(c("%2$s %1$d %1$d", &[I32, PTR]).is_empty());
    assert!(c("%1$*2$d", &[I32, I32]).is_empty());
    assert_eq!(
        kinds(&c("%1$d %d", &[I32, I32])),
        [FindingKind::MixedPositional]
    );
    assert_eq!(kinds(&c("%0$d", &[I32])), [FindingKind::ZeroPosition]);
    assert_eq!(
        messages(&c("%3$d", &[I32])),
        ["data argument position '3' exceeds the number of data arguments (1)"]
    );
    let found = gpu("%2$s %1$d", &[I32, PTR]);
    assert_eq!(
        kinds(&found),
        [
            FindingKind::Gpu(GpuLimit::Positional),
            FindingKind::Gpu(GpuLimit::Positional)
        ]
    );
    assert!(found[0].message.contains("'2$'"), "{}", found[0].message);
}

#[test]
fn the_thousands_flag() {
    assert!(c("%'d %'f %'u", &[I32, DOUBLE, I32]).is_empty());
    assert_eq!(
        messages(&c("%'s", &[PTR])),
        ["flag ''' results in undefined behavior with 's' conversion specifier"]
    );
    assert_eq!(
        kinds(&gpu("%'d", &[I32])),
        [FindingKind::Gpu(GpuLimit::ThousandsGrouping)]
    );
}

#[test]
fn conversions_gpu_printf_cannot_print_are_clean_in_c_and_warnings_in_gpu() {
    for (format, args, limit) in [
        ("%n", &[PTR][..], GpuLimit::WriteBack),
        ("%hhn", &[PTR], GpuLimit::WriteBack),
        ("%S", &[PTR], GpuLimit::WideCharacter),
        ("%C", &[I32], GpuLimit::WideCharacter),
        ("%lc", &[I32], GpuLimit::WideCharacter),
        ("%ls", &[PTR], GpuLimit::WideCharacter),
        ("%m", &[], GpuLimit::Errno),
        ("%-8m", &[], GpuLimit::Errno),
        ("%b %B", &[I32, I32], GpuLimit::Binary),
        ("%qd", &[I64], GpuLimit::BsdQuad),
    ] {
        assert!(
            c(format, args).is_empty(),
            "{format}: {:?}",
            c(format, args)
        );
        let found = gpu(format, args);
        assert!(!found.is_empty(), "{format}");
        assert!(
            found.iter().all(|f| f.kind == FindingKind::Gpu(limit)
                && f.severity == Severity::Warning
                && f.fix.is_some()),
            "{format}: {found:?}"
        );
    }
    // Their arguments are still checked.
    assert!(matches!(
        kinds(&c("%n", &[I32]))[..],
        [FindingKind::Class { .. }]
    ));
    assert!(matches!(
        kinds(&c("%qd", &[I32]))[..],
        [FindingKind::Width {
            expected_bits: 64,
            ..
        }]
    ));
}

#[test]
fn exact_width_lengths() {
    // clang 19 reads 'w' as Microsoft's wide length, then '3' as the conversion; in '%wf32d'
    // 'f' is the conversion and "32d" plain text.
    assert_eq!(
        messages(&c("%w32d", &[I32])),
        ["invalid conversion specifier '3'"]
    );
    assert_eq!(
        messages(&c("%wf32d", &[DOUBLE])),
        ["length modifier 'w' results in undefined behavior or no effect with 'f' conversion specifier"]
    );
    // The gpu dialect reads C23's wN and names it.
    let found = gpu("%w32d", &[I32]);
    assert_eq!(kinds(&found), [FindingKind::Gpu(GpuLimit::ExactWidth)]);
    assert_eq!(found[0].offset, Some(1));
    assert_eq!(
        found[0].fix.as_deref(),
        Some("remove it (32 bits is an int)")
    );
    assert!(matches!(
        kinds(&gpu("%w64d", &[I32]))[..],
        [
            FindingKind::Gpu(GpuLimit::ExactWidth),
            FindingKind::Width {
                expected_bits: 64,
                ..
            }
        ]
    ));
}

#[test]
fn invalid_conversions_warn_in_c_and_cannot_be_parsed_in_gpu() {
    for (format, byte) in [("%Z", b'Z'), ("%@", b'@'), ("%y", b'y')] {
        let found = c(format, &[PTR]);
        assert_eq!(kinds(&found), [FindingKind::InvalidConversion { byte }]);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(
            found[0].message,
            format!("invalid conversion specifier '{}'", byte as char)
        );
        let found = gpu(format, &[PTR]);
        assert_eq!(found[0].severity, Severity::Error);
    }
    assert!(gpu("%Z", &[PTR])[0].message.contains("Microsoft"));
    assert!(gpu("%@", &[PTR])[0].message.contains("Objective-C"));
    let found = c("%", &[]);
    assert_eq!(kinds(&found), [FindingKind::Incomplete]);
    assert_eq!(found[0].message, "incomplete format specifier");
}

#[test]
fn long_double_is_x86_fp80_in_c_and_double_on_gpus() {
    assert!(c("%Lf", &[LONG_DOUBLE]).is_empty());
    assert_eq!(
        messages(&c("%Lf", &[DOUBLE])),
        ["format specifies type 'long double' but the argument has type 'double'"]
    );
    assert_eq!(
        messages(&c("%f", &[LONG_DOUBLE])),
        ["format specifies type 'double' but the argument has type 'x86_fp80'"]
    );
    assert!(gpu("%Lf", &[DOUBLE]).is_empty());
}

#[test]
fn opencl_reads_lengths_and_vectors_as_clang_does() {
    let opencl =
        |format: &str, args: &[ArgType]| check_format(format.as_bytes(), args, Dialect::OpenCl);
    assert_eq!(
        messages(&opencl("%lf", &[DOUBLE])),
        ["length modifier 'l' results in undefined behavior or no effect with 'f' conversion specifier"]
    );
    assert!(c("%lf", &[DOUBLE]).is_empty());
    assert!(gpu("%lf", &[DOUBLE]).is_empty());
    // clang expects double elements for '%v4f' (its own FIXME); GPU runtimes print floats.
    assert_eq!(
        messages(&opencl("%v4f", &[FLOAT4])),
        ["format specifies type 'double __attribute__((ext_vector_type(4)))' but the argument has type '<4 x float>'"]
    );
    assert!(gpu("%v4f", &[FLOAT4]).is_empty());
    // GPU vectors take OpenCL's element sizes only; clang takes C's lengths too.
    let long4 = ArgType::Vector {
        len: 4,
        element: ScalarType::Int(64),
    };
    assert!(opencl("%v4lld", &[long4]).is_empty());
    assert!(matches!(
        kinds(&gpu("%v4lld", &[long4]))[..],
        [FindingKind::LengthUndefined { conversion: b'd' }]
    ));
    assert!(gpu("%v4ld", &[long4]).is_empty());
    assert!(opencl("%v4hlf", &[FLOAT4]).is_empty());
    assert_eq!(kinds(&opencl("%v", &[I32])), [FindingKind::Incomplete]);
    // In C there is no vector modifier.
    assert_eq!(
        kinds(&c("%v4d", &[I32])),
        [FindingKind::InvalidConversion { byte: b'v' }]
    );
}

#[test]
fn cuda_prints_at_most_32_arguments() {
    let format = "%d".repeat(33);
    let args = [I32; 33];
    assert!(c(&format, &args).is_empty());
    let found = gpu(&format, &args);
    assert_eq!(
        kinds(&found),
        [FindingKind::Gpu(GpuLimit::CudaArgumentLimit)]
    );
    assert_eq!(found[0].arg_index, Some(32));
    assert!(gpu(&"%d".repeat(32), &[I32; 32]).is_empty());
}

#[test]
fn dialects_have_names() {
    assert_eq!("c".parse::<Dialect>(), Ok(Dialect::C));
    assert_eq!("gpu".parse::<Dialect>(), Ok(Dialect::Gpu));
    assert_eq!(Dialect::default(), Dialect::Gpu);
    assert_eq!("vvl".parse::<Dialect>(), Ok(Dialect::Vvl));
    assert_eq!(
        "vk".parse::<Dialect>().unwrap_err().to_string(),
        "unknown dialect `vk`; expected one of c, opencl, gpu, vvl"
    );
}

#[test]
fn any_format_and_arguments_are_judged_without_panicking() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    // Every byte the grammars care about, digits that overflow, and a NUL.
    const ALPHABET: &[u8] = b"%%%%%$*.0123456789-+ #'vhlLqjztIwfdiouxXbBcsSCpnmZ@yaAeEgG\0x";
    let types = [
        ArgType::Scalar(ScalarType::Int(8)),
        I32,
        I64,
        ArgType::Scalar(ScalarType::Int(128)),
        ArgType::Scalar(ScalarType::Half),
        DOUBLE,
        LONG_DOUBLE,
        PTR,
        FLOAT4,
        ArgType::Vector {
            len: 3,
            element: ScalarType::Int(16),
        },
    ];
    let mut rng = SmallRng::seed_from_u64(15);
    for _ in 0..20_000 {
        let len = rng.gen_range(0..24);
        let format: Vec<u8> = (0..len)
            .map(|_| ALPHABET[rng.gen_range(0..ALPHABET.len())])
            .collect();
        let args: Vec<ArgType> = (0..rng.gen_range(0..40))
            .map(|_| types[rng.gen_range(0..types.len())])
            .collect();
        for dialect in Dialect::ALL {
            for finding in check_format(&format, &args, dialect) {
                assert!(finding.offset.is_none_or(|o| o <= format.len()));
                assert!(finding.arg_index.is_none_or(|a| a < args.len()));
                assert!(!finding.message.is_empty());
            }
        }
    }
}

/// Remembering clean checks by their formats' conversions changes no finding: formats made of
/// a few conversions, each with flags, widths, precisions and lengths drawn at random, between
/// literal text drawn at random, so that the same conversions come back around other text,
/// checked one after another through one `CleanChecks` and each alone.
#[test]
fn remembered_clean_checks_find_what_checking_finds() {
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};
    let pick = |rng: &mut SmallRng, from: &[&'static str]| from[rng.gen_range(0..from.len())];
    let types = [
        I32,
        I64,
        DOUBLE,
        PTR,
        FLOAT4,
        ArgType::Scalar(ScalarType::Int(8)),
    ];
    let mut rng = SmallRng::seed_from_u64(24);
    let mut checks = CleanChecks::default();
    let (mut clean, mut found) = (0, 0);
    for _ in 0..20_000 {
        // Mostly the arguments the conversions want, sometimes another.
        let mut format = String::new();
        let mut args = Vec::new();
        let mut arg = |rng: &mut SmallRng, wanted: ArgType| {
            args.push(if rng.gen_bool(0.9) {
                wanted
            } else {
                types[rng.gen_range(0..types.len())]
            });
        };
        for _ in 0..rng.gen_range(0..4) {
            format.push_str(pick(&mut rng, &["", "x=", "a b ", "%%", "\n", "\0"]));
            format.push('%');
            format.push_str(pick(
                &mut rng,
                &["", "", "", "", "1$", "-", "+", " ", "#", "0", "'"],
            ));
            let width = pick(&mut rng, &["", "", "", "5", "*", "12"]);
            let precision = pick(&mut rng, &["", "", "", ".", ".3", ".*"]);
            let stars = [width, precision]
                .iter()
                .filter(|t| t.contains('*'))
                .count();
            for _ in 0..stars {
                arg(&mut rng, I32);
            }
            format.push_str(width);
            format.push_str(precision);
            let length = pick(&mut rng, &["", "", "", "", "v4", "l", "ll", "h", "hh", "z"]);
            format.push_str(length);
            let conversion = pick(
                &mut rng,
                &["d", "d", "i", "u", "x", "f", "g", "s", "p", "c", "n"],
            );
            format.push_str(conversion);
            let wanted = match (conversion, length) {
                ("f" | "g", "v4") => FLOAT4,
                ("f" | "g", _) => DOUBLE,
                ("s" | "p" | "n", _) => PTR,
                (_, "l" | "ll" | "z") => I64,
                _ => I32,
            };
            arg(&mut rng, wanted);
        }
        format.push_str(pick(&mut rng, &["", "!", "%", "end\n"]));
        for dialect in Dialect::ALL {
            let expected = check_format(format.as_bytes(), &args, dialect);
            let got = checks.check(format.as_bytes(), &args, dialect);
            assert_eq!(got, expected, "{format:?} {args:?} {dialect:?}");
            if expected.is_empty() {
                clean += 1;
            } else {
                found += 1;
            }
        }
    }
    // Both kinds of judgement were met often enough to mean something.
    assert!(
        clean > 10_000 && found > 10_000,
        "{clean} clean, {found} with findings"
    );
}
