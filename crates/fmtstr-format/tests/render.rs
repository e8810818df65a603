//! Rendering through the public API: whole formats, vectors, stars and errors. (Byte-exactness
//! against glibc is tests/glibc.rs.)

use fmtstr_format::{Arg, ArgClass, Format, RenderError};

fn render(format: &str, args: &[Arg<'_>]) -> String {
    let format = Format::parse(format.as_bytes()).unwrap();
    String::from_utf8(format.render_to_vec(args).unwrap()).unwrap()
}

fn render_error(format: &str, args: &[Arg<'_>]) -> RenderError {
    let format = Format::parse(format.as_bytes()).unwrap();
    let mut out = b"kept".to_vec();
    let error = format.render(args, &mut out).unwrap_err();
    assert_eq!(out, b"kept", "a failed render leaves the buffer as it was");
    error
}

#[test]
fn whole_formats_with_literals() {
    assert_eq!(
        render(
            "id=%05d name=%-6s|%%|%.2f %#x %c%c",
            &[
                Arg::Int(42),
                Arg::Str(b"gpu"),
                Arg::Float(2.675),
                Arg::Int(255),
                Arg::Int(u64::from(b'o')),
                Arg::Int(u64::from(b'k')),
            ]
        ),
        "id=00042 name=gpu   |%|2.67 0xff ok"
    );
    assert_eq!(render("plain text", &[]), "plain text");
    assert_eq!(render("", &[]), "");
}

#[test]
fn appends_to_the_callers_buffer() {
    let format = Format::parse(b"[%d]").unwrap();
    let mut out = b">".to_vec();
    format.render(&[Arg::Int(1)], &mut out).unwrap();
    format.render(&[Arg::Int(2)], &mut out).unwrap();
    assert_eq!(out, b">[1][2]");
}

#[test]
fn integers_take_width_and_sign_from_the_length_modifier() {
    assert_eq!(render("%hhd", &[Arg::Int(0x1ff)]), "-1");
    assert_eq!(render("%hhu", &[Arg::Int(0x1ff)]), "255");
    assert_eq!(render("%hd", &[Arg::Int(0x18000)]), "-32768");
    assert_eq!(render("%hu", &[Arg::Int(0x1ffff)]), "65535");
    assert_eq!(render("%d", &[Arg::Int(u64::MAX)]), "-1");
    assert_eq!(render("%u", &[Arg::Int(u64::MAX)]), "4294967295");
    assert_eq!(render("%ld", &[Arg::Int(u64::MAX)]), "-1");
    assert_eq!(render("%lu", &[Arg::Int(u64::MAX)]), "18446744073709551615");
    assert_eq!(
        render("%lo", &[Arg::Int(u64::MAX)]),
        "1777777777777777777777"
    );
    assert_eq!(
        render("%lld", &[Arg::Int(i64::MIN as u64)]),
        "-9223372036854775808"
    );
}

#[test]
fn vectors_join_components_with_commas() {
    let floats = [1.0, 2.5, -0.0, f64::INFINITY].map(Arg::Float);
    assert_eq!(render("%v4hlf", &floats), "1.000000,2.500000,-0.000000,inf");
    assert_eq!(render("(%.1v4f)", &floats), "(1.0,2.5,-0.0,inf)");
    assert_eq!(
        render("%-5v2d|", &[Arg::Int(1), Arg::Int(u64::MAX)]),
        "1    ,-1   |"
    );
    assert_eq!(
        render("%#v3hhx", &[Arg::Int(0x1ff), Arg::Int(0), Arg::Int(0x10)]),
        "0xff,0,0x10"
    );
    assert_eq!(
        render("%v2hd %d", &[Arg::Int(0x18000), Arg::Int(7), Arg::Int(3)]),
        "-32768,7 3"
    );
    // One `*` applies to every component.
    assert_eq!(
        render("%*v2d", &[Arg::Int(3), Arg::Int(1), Arg::Int(2)]),
        "  1,  2"
    );
}

#[test]
fn stars_read_c_ints() {
    assert_eq!(render("%*d|", &[Arg::Int(4), Arg::Int(7)]), "   7|");
    // A negative width is the `-` flag; a negative precision is no precision.
    assert_eq!(
        render("%*d|", &[Arg::Int(-4i64 as u64), Arg::Int(7)]),
        "7   |"
    );
    assert_eq!(
        render("%.*f", &[Arg::Int(-1i64 as u64), Arg::Float(0.5)]),
        "0.500000"
    );
    // Only the low 32 bits count, as for a C int.
    assert_eq!(
        render("%*d", &[Arg::Int(0xffff_ffff_0000_0003), Arg::Int(7)]),
        "  7"
    );
    assert_eq!(render("%.*s", &[Arg::Int(2), Arg::Str(b"abcdef")]), "ab");
}

#[test]
fn strings_pointers_and_chars() {
    assert_eq!(render("%s", &[Arg::Str(b"ab\0cd")]), "ab");
    assert_eq!(render("%s|%.3s", &[Arg::Ptr(0), Arg::Ptr(0)]), "(null)|");
    assert_eq!(
        render("%p %p", &[Arg::Ptr(0), Arg::Ptr(0xdead)]),
        "(nil) 0xdead"
    );
    assert_eq!(render("%p", &[Arg::Int(0x10)]), "0x10");
    assert_eq!(
        render("%5c|%-3c|", &[Arg::Int(0x141), Arg::Int(u64::from(b'z'))]),
        "    A|z  |"
    );
    let format = Format::parse(b"%c").unwrap();
    assert_eq!(format.render_to_vec(&[Arg::Int(0)]).unwrap(), b"\0");
    let bytes = Format::parse(b"%s")
        .unwrap()
        .render_to_vec(&[Arg::Str(&[0xff, 0xfe])])
        .unwrap();
    assert_eq!(bytes, [0xff, 0xfe]);
}

#[test]
fn floats() {
    assert_eq!(render("%.1a", &[Arg::Float(1.96875)]), "0x2.0p+0");
    assert_eq!(
        render("%a", &[Arg::Float(5e-324)]),
        "0x0.0000000000001p-1022"
    );
    assert_eq!(
        render("%.0f %.0f %.0f", &[0.5, 1.5, 2.5].map(Arg::Float)),
        "0 2 2"
    );
    assert_eq!(
        render("%g %g", &[1e-5, 123456.0].map(Arg::Float)),
        "1e-05 123456"
    );
    assert_eq!(render("%#g", &[Arg::Float(999999.5)]), "1.e+06");
    assert_eq!(
        render("%+08.2f|%-8e|", &[Arg::Float(-1.5), Arg::Float(1.0)]),
        "-0001.50|1.000000e+00|"
    );
    assert_eq!(
        render("%F %E", &[Arg::Float(f64::NAN), Arg::Float(-f64::INFINITY)]),
        "NAN -INF"
    );
    assert_eq!(render("%05f", &[Arg::Float(-f64::NAN)]), " -nan");
    assert_eq!(render("%.100f", &[Arg::Float(0.1)]).len(), 102);
    assert_eq!(render("%.3Lf", &[Arg::Float(2.0)]), "2.000");
}

#[test]
fn extra_arguments_are_ignored() {
    assert_eq!(render("%d", &[Arg::Int(1), Arg::Int(2)]), "1");
}

#[test]
fn missing_arguments() {
    assert_eq!(
        render_error("%d %d", &[Arg::Int(1)]),
        RenderError::MissingArgument {
            spec_offset: 3,
            index: 1
        }
    );
    assert_eq!(
        render_error("%v4f", &[Arg::Float(1.0); 3]),
        RenderError::MissingArgument {
            spec_offset: 0,
            index: 3
        }
    );
    assert_eq!(
        render_error("x%*d", &[Arg::Int(1)]),
        RenderError::MissingArgument {
            spec_offset: 1,
            index: 1
        }
    );
    let message = render_error("%d %d", &[Arg::Int(1)]).to_string();
    assert!(message.contains("byte 3"), "{message}");
}

#[test]
fn mismatched_arguments() {
    assert_eq!(
        render_error("%d", &[Arg::Float(1.0)]),
        RenderError::ArgumentMismatch {
            spec_offset: 0,
            index: 0,
            expected: ArgClass::Signed
        }
    );
    assert_eq!(
        render_error("%d %f", &[Arg::Int(1), Arg::Int(2)]),
        RenderError::ArgumentMismatch {
            spec_offset: 3,
            index: 1,
            expected: ArgClass::Float
        }
    );
    assert_eq!(
        render_error("%s", &[Arg::Ptr(0x1000)]),
        RenderError::ArgumentMismatch {
            spec_offset: 0,
            index: 0,
            expected: ArgClass::String
        }
    );
    assert_eq!(
        render_error("%*d", &[Arg::Float(1.0), Arg::Int(1)]),
        RenderError::ArgumentMismatch {
            spec_offset: 0,
            index: 0,
            expected: ArgClass::Signed
        }
    );
    assert!(matches!(
        render_error("%p", &[Arg::Str(b"x")]),
        RenderError::ArgumentMismatch {
            expected: ArgClass::Pointer,
            ..
        }
    ));
}

#[test]
fn star_counts_are_bounded() {
    assert_eq!(
        render_error("%*d", &[Arg::Int(70000), Arg::Int(1)]),
        RenderError::TooWide {
            spec_offset: 0,
            value: 70000
        }
    );
    assert_eq!(
        render_error("%*d", &[Arg::Int(i32::MIN as u32 as u64), Arg::Int(1)]),
        RenderError::TooWide {
            spec_offset: 0,
            value: i64::from(i32::MIN)
        }
    );
    assert_eq!(
        render_error("ab%.*f", &[Arg::Int(65537), Arg::Float(1.0)]),
        RenderError::TooWide {
            spec_offset: 2,
            value: 65537
        }
    );
    assert!(render_error("%.*f", &[Arg::Int(65537), Arg::Float(1.0)])
        .to_string()
        .contains("65536"));
    assert_eq!(render("%*d", &[Arg::Int(65536), Arg::Int(1)]).len(), 65536);
}

/// C's printf reads a format up to its first NUL: LLPC's table strings end in one, and text
/// after an embedded one is never printed. glibc (through a C string, which ends there too) is
/// the oracle.
#[test]
fn a_format_ends_at_its_first_nul_as_in_glibc() {
    use fmtstr_oracles::glibc::{snprintf, CArg};
    let cases: [(&[u8], i32); 4] = [
        (b"A\0B", 7),
        (b"Output:%d\n\0", 42),
        (b"x=%d\0%d trailing", -3),
        (b"\0%d", 1),
    ];
    for (bytes, value) in cases {
        let format = Format::parse(bytes).unwrap();
        let ours = if format.argument_count() == 1 {
            format.render_to_vec(&[Arg::Int(value as i64 as u64)])
        } else {
            format.render_to_vec(&[])
        }
        .unwrap();
        let c_format = std::ffi::CStr::from_bytes_until_nul(bytes).unwrap();
        let args = [CArg::Int(value)];
        let count = format.argument_count();
        // SAFETY: the C string is the part before the NUL, whose `%d`s take these ints.
        #[allow(unsafe_code)]
        let theirs = unsafe { snprintf(c_format, &args[..count]) };
        assert_eq!(ours, theirs, "format {bytes:?}");
        assert!(!ours.contains(&0), "format {bytes:?}");
    }
}
