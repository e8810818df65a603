//! `fmtstr hash`, `printf` and `check`: glibc's snprintf and the xxHash C library are the judges.
#![allow(unsafe_code)] // calling glibc's snprintf as the oracle

use crate::util::{assert_matches_schema, run};

/// What glibc's snprintf prints for a format and C arguments.
macro_rules! glibc {
    ($format:literal $(, $arg:expr)* $(,)?) => {{
        let mut buffer = vec![0u8; 4096];
        let format = concat!($format, "\0");
        // SAFETY: the buffer's size is passed and each case passes the C types its format reads.
        let written = unsafe {
            libc::snprintf(buffer.as_mut_ptr().cast(), buffer.len(), format.as_ptr().cast() $(, $arg)*)
        };
        buffer.truncate(usize::try_from(written).expect("snprintf succeeds"));
        buffer
    }};
}

#[test]
fn printf_matches_glibc_for_typed_and_bare_arguments() {
    let cases: Vec<(Vec<&str>, Vec<u8>)> = vec![
        (
            vec![r"x=%d y=%f\n", "i32:7", "f32:1.5"],
            glibc!("x=%d y=%f\n", 7, 1.5f64),
        ),
        (
            vec!["[%-8.3e] [%#x] [%+.5d]", "1234.5", "255", "42"],
            glibc!("[%-8.3e] [%#x] [%+.5d]", 1234.5f64, 255u32, 42),
        ),
        (
            vec!["%.1a %a %A", "1.96875", "0x1p-1074", "-0.0"],
            glibc!("%.1a %a %A", 1.96875f64, 5e-324f64, -0.0f64),
        ),
        (
            vec!["%g %g %g %#g", "0.0001", "1e-5", "123456789", "1.5"],
            glibc!("%g %g %g %#g", 0.0001f64, 1e-5f64, 123456789.0f64, 1.5f64),
        ),
        (
            vec!["%5s|%-5s|%.2s|", "ab", "cd", "efgh"],
            glibc!(
                "%5s|%-5s|%.2s|",
                c"ab".as_ptr(),
                c"cd".as_ptr(),
                c"efgh".as_ptr()
            ),
        ),
        (
            vec!["%p %10p %-10p|", "ptr:0", "0x1000", "0"],
            glibc!(
                "%p %10p %-10p|",
                std::ptr::null::<u8>(),
                0x1000usize,
                std::ptr::null::<u8>()
            ),
        ),
        (
            vec![
                "%hhd %hu %lld %llx",
                "i32:511",
                "i32:-1",
                "i64:-9223372036854775808",
                "u64:0xdeadbeefcafe",
            ],
            glibc!(
                "%hhd %hu %lld %llx",
                511,
                -1,
                i64::MIN,
                0xdead_beef_cafe_u64
            ),
        ),
        (
            vec!["%08.3f|% d|%+d|%o|%#o", "-3.14158", "5", "0", "8", "0"],
            glibc!("%08.3f|% d|%+d|%o|%#o", -3.14158f64, 5, 0, 8u32, 0u32),
        ),
        (
            vec!["%f %e %g %F %010f", "inf", "-inf", "nan", "-nan", "-inf"],
            glibc!(
                "%f %e %g %F %010f",
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::NAN,
                -f64::NAN,
                f64::NEG_INFINITY
            ),
        ),
        (
            vec!["%.0f %.0f %.0f %.20f", "0.5", "1.5", "2.5", "0.1"],
            glibc!("%.0f %.0f %.0f %.20f", 0.5f64, 1.5f64, 2.5f64, 0.1f64),
        ),
        (
            vec!["%c%c%c|%3c|%-3c|", "f", "i32:109", "u8:116", "x", "y"],
            glibc!("%c%c%c|%3c|%-3c|", 102, 109, 116, 120, 121),
        ),
        (
            vec![
                "%*d|%-*.*f|%.*s|",
                "6",
                "42",
                "9",
                "2",
                "2.71827",
                "-1",
                "abc",
            ],
            glibc!(
                "%*d|%-*.*f|%.*s|",
                6,
                42,
                9,
                2,
                2.71827f64,
                -1,
                c"abc".as_ptr()
            ),
        ),
        (
            vec![
                "%lu %ld %zx %jd %td",
                "u64:18446744073709551615",
                "i64:-1",
                "u64:0xffff",
                "-5",
                "7",
            ],
            glibc!(
                "%lu %ld %zx %jd %td",
                u64::MAX,
                -1i64,
                0xffffu64,
                -5i64,
                7i64
            ),
        ),
        (
            vec!["%.3e %.100f", "f32:0.1", "1e-300"],
            glibc!("%.3e %.100f", f64::from(0.1f32), 1e-300f64),
        ),
        (
            vec!["%%|%-#12.4x|%#.0f|%#.0e", "255", "3", "3"],
            glibc!("%%|%-#12.4x|%#.0f|%#.0e", 255u32, 3.0f64, 3.0f64),
        ),
        // C's printf stops at the format's first NUL.
        (vec![r"A\000B"], glibc!("A\0B")),
        (
            vec![r"x=%d\0%d trailing\n", "i32:5"],
            glibc!("x=%d\0%d trailing\n", 5),
        ),
    ];
    for (args, expected) in cases {
        let output = run(std::iter::once("printf").chain(args.iter().copied())).expect_code(0);
        assert_eq!(
            output.stdout,
            expected,
            "fmtstr printf {args:?}\n  fmtstr: {:?}\n  glibc:  {:?}",
            output.stdout_text(),
            String::from_utf8_lossy(&expected)
        );
    }
}

/// A string argument carries any bytes: written as C escapes (`str:caf\xe9`, like FORMAT), or
/// as an argument that is not UTF-8 at all; either way the output is glibc's, byte for byte.
/// `--raw` takes FORMAT and strings literally.
#[test]
fn printf_string_arguments_carry_any_byte_like_glibc() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    use fmtstr_oracles::glibc::{snprintf, CArg};

    let os = |bytes: &'static [u8]| OsStr::from_bytes(bytes);
    // (fmtstr's arguments, glibc's format, glibc's string arguments)
    let cases: Vec<(Vec<&OsStr>, &std::ffi::CStr, Vec<&std::ffi::CStr>)> = vec![
        // A raw Latin-1 byte in the OS argument, typed and bare.
        (
            vec![os(b"%s|%s|"), os(b"str:caf\xe9"), os(b"caf\xe9")],
            c"%s|%s|",
            vec![c"caf\xe9", c"caf\xe9"],
        ),
        // The same byte as an escape, hex and octal; precision counts bytes, not characters.
        (
            vec![
                os(b"%s|%.4s|%-6s|"),
                os(br"str:caf\xe9"),
                os(br"str:caf\303\251!"),
                os(br"\xff\n"),
            ],
            c"%s|%.4s|%-6s|",
            vec![c"caf\xe9", c"caf\xc3\xa9!", c"\xff\n"],
        ),
        // FORMAT itself may be any bytes too.
        (
            vec![os(b"\xe9%s\xff"), os(b"str:\xfe")],
            c"\xe9%s\xff",
            vec![c"\xfe"],
        ),
        // --raw: the backslashes stay, in FORMAT and in the strings.
        (
            vec![os(b"--raw"), os(br"%s\n"), os(br"str:caf\xe9")],
            c"%s\\n",
            vec![c"caf\\xe9"],
        ),
    ];
    for (args, format, strings) in cases {
        let c_args: Vec<CArg> = strings.iter().map(|s| CArg::Str(s)).collect();
        // SAFETY: every conversion of each glibc format is a %s, given one string each.
        let expected = unsafe { snprintf(format, &c_args) };
        let output =
            run(std::iter::once(OsStr::new("printf")).chain(args.iter().copied())).expect_code(0);
        assert_eq!(
            output.stdout, expected,
            "fmtstr printf {args:?}: {:?}",
            output.stderr
        );
        assert!(output.stderr.is_empty(), "{}", output.stderr);
    }

    // Only a string may hold bytes that are not UTF-8; the error names the argument.
    let output = run([os(b"printf"), os(b"%d|%s"), os(b"i32:\xe9"), os(b"x")]).expect_code(2);
    assert!(
        output
            .stderr
            .contains(r"argument 1 (`i32:\xe9`) is not UTF-8")
            && output.stderr.contains(r"\xHH"),
        "{}",
        output.stderr
    );
    // A bad escape in a string names the argument and the way out.
    let output = run(["printf", "%d %s", "1", r"str:a\q"]).expect_code(2);
    assert!(
        output.stderr.contains(r"argument 2 (`str:a\q`)") && output.stderr.contains("--raw"),
        "{}",
        output.stderr
    );
}

#[test]
fn printf_renders_vectors_component_by_component() {
    let output = run([
        "printf",
        r"%v4hlf|%v2d|%-4v3hhx|",
        "v4f32:1,2.5,-0,inf",
        "v2i32:-1,7",
        "v3u8:1,255,16",
    ])
    .expect_code(0);
    let mut expected = Vec::new();
    for part in [
        glibc!("%f,%f,%f,%f|", 1.0f64, 2.5f64, -0.0f64, f64::INFINITY),
        glibc!("%d,%d|", -1, 7),
        glibc!("%-4hhx,%-4hhx,%-4hhx|", 1, 255, 16),
    ] {
        expected.extend(part);
    }
    assert_eq!(output.stdout_text(), String::from_utf8_lossy(&expected));
}

#[test]
fn printf_rejects_bad_input_with_exit_2_and_a_position() {
    let cases: [(&[&str], &str); 7] = [
        (&["printf", "%q"], "at byte 1"),
        (&["printf", "%n", "i32:1"], "%n"),
        (&["printf", r"abc\", "1"], "byte 3"),
        (&["printf", "%d", "i8:300"], "out of range"),
        (&["printf", "%d", "twelve"], "not a i32 value"),
        (
            &["printf", "%v4hlf", "v4f32:1,2"],
            "4 comma-separated components",
        ),
        (&["printf", "%d", "1", "2"], "no conversion to consume it"),
    ];
    for (args, needle) in cases {
        let output = run(args).expect_code(2);
        assert!(
            output.stdout.is_empty(),
            "{args:?} printed {:?}",
            output.stdout_text()
        );
        assert!(
            output.stderr.contains("fmtstr: error:"),
            "{args:?}: {}",
            output.stderr
        );
        assert!(
            output.stderr.contains(needle),
            "{args:?} should mention {needle:?}: {}",
            output.stderr
        );
    }
}

#[test]
fn printf_warns_on_mismatched_types_like_clang() {
    let output = run(["printf", "%d|%ld|", "i64:5", "i32:6"]).expect_code(0);
    assert_eq!(output.stdout_text(), "5|6|");
    assert_eq!(
        output.stderr.matches("warning").count(),
        2,
        "{}",
        output.stderr
    );
    assert!(output.stderr.contains("'long'"), "{}", output.stderr);
}

#[test]
fn hash_prints_reference_xxh3_ids() {
    // Expected IDs: the low 48 bits of XXH3-64 computed by the xxHash C library (Python's xxhash).
    let output = run(["hash", r"x=%d\n", "a", ""]).expect_code(0);
    assert_eq!(
        output.stdout_text(),
        "0x60281a928696  105725360768662  \"x=%d\\n\"\n\
         0x32b61e964e1f   55757778603551  \"a\"\n\
         0x800538d394c2  140759916582082  \"\"\n"
    );
    let raw = run(["hash", "--raw", r"x=%d\n"]).expect_code(0);
    assert!(
        raw.stdout_text().contains("\"x=%d\\\\n\""),
        "{}",
        raw.stdout_text()
    );
}

#[test]
fn hash_json_matches_its_schema() {
    let output = run(["hash", "--json", r"hello %s world %f\n", r"\xff\x00"]).expect_code(0);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_matches_schema("hash.schema.json", &json);
    assert_eq!(json[0]["id"], 0xd0b9_3361_30e0_u64);
    assert_eq!(json[0]["hex"], "0xd0b9336130e0");
    assert_eq!(json[1]["string"], r"\xff\x00");
}

#[test]
fn check_reports_findings_with_positions_and_exit_codes() {
    run([
        "check",
        r"%d %f %s %v4hlf\n",
        "--args",
        "i8,float,ptr,v4f32",
    ])
    .expect_code(0);
    run(["check", "no conversions"]).expect_code(0);

    let output = run(["check", r"%ld %s\n", "--args", "i32,ptr"]).expect_code(1);
    assert!(
        output.stderr.contains("byte 0, argument 1"),
        "{}",
        output.stderr
    );
    assert!(output.stderr.contains("'long'"), "{}", output.stderr);

    let output = run(["check", "%d %d", "--args", "i32", "--json"]).expect_code(1);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_matches_schema("check.schema.json", &json);
    assert_eq!(json["findings"][0]["kind"], "too-few-arguments");
    assert_eq!(json["findings"][0]["offset"], 3);

    let output = run(["check", "%d", "--args", "i32,double,ptr", "--json"]).expect_code(1);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_matches_schema("check.schema.json", &json);
    assert_eq!(json["findings"][0]["kind"], "too-many-arguments");

    let output = run(["check", "%f %v4hlf", "--args", "i32,v2f32", "--json"]).expect_code(1);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_matches_schema("check.schema.json", &json);
    let kinds: Vec<&str> = json["findings"]
        .as_array()
        .expect("array")
        .iter()
        .map(|f| f["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["class", "vector-length"]);
    assert_eq!(json["findings"][1]["offset"], 3);
    assert_eq!(json["findings"][1]["argument"], 1);

    let output = run(["check", "%d", "--args", "int"]).expect_code(2);
    assert!(
        output.stderr.contains("`int` is not a type"),
        "{}",
        output.stderr
    );
}

#[test]
fn check_dialects_warn_refuse_and_fix() {
    // The default gpu dialect warns about what GPU printf cannot print, with a fix each.
    let output = run(["check", "%n %'d", "--args", "ptr,i32", "--json"]).expect_code(1);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_matches_schema("check.schema.json", &json);
    assert_eq!(json["dialect"], "gpu");
    let findings = json["findings"].as_array().expect("array");
    let kinds: Vec<&str> = findings
        .iter()
        .map(|f| f["kind"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(kinds, ["gpu-write-back", "gpu-thousands-grouping"]);
    assert!(findings
        .iter()
        .all(|f| f["severity"] == "warning" && f["fix"].is_string()));
    assert_eq!(findings[1]["offset"], 4);

    // clang's dialect is silent on them, and reports every flag misuse.
    run(["check", "--dialect", "c", "%n %'d", "--args", "ptr,i32"]).expect_code(0);
    let output = run([
        "check",
        "--dialect",
        "c",
        "%+p %.4p",
        "--args",
        "ptr,ptr",
        "--json",
    ])
    .expect_code(1);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_matches_schema("check.schema.json", &json);
    assert_eq!(json["findings"][0]["kind"], "flag-undefined");
    assert_eq!(json["findings"][1]["kind"], "precision-undefined");
    let output = run(["check", "--dialect", "c", r"%d\0%d", "--args", "i32,i32"]).expect_code(1);
    assert!(
        output
            .stderr
            .contains(r"format string contains '\0' within the string body"),
        "{}",
        output.stderr
    );
    assert!(output.stderr.contains("fix: "), "{}", output.stderr);

    // A conversion that cannot be parsed: a warning in c, an error (exit 2) in gpu.
    run(["check", "--dialect", "c", "%y", "--args", "i32"]).expect_code(1);
    let output = run(["check", "%y", "--args", "i32", "--json"]).expect_code(2);
    let json: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
    assert_matches_schema("check.schema.json", &json);
    assert_eq!(json["findings"][0]["severity"], "error");
    assert!(
        output.stderr.contains("cannot be parsed (byte 1)"),
        "{}",
        output.stderr
    );
    let output = run(["check", "--dialect", "vk", "%d"]).expect_code(2);
    assert!(
        output
            .stderr
            .contains("expected one of c, opencl, gpu, vvl"),
        "{}",
        output.stderr
    );
}

#[test]
fn help_teaches_and_version_prints() {
    let help = run(["--help"]).expect_code(0).stdout_text();
    for needle in ["Examples:", "Exit codes:", "hash", "printf", "check"] {
        assert!(help.contains(needle), "--help lacks {needle:?}:\n{help}");
    }
    let printf_help = run(["printf", "--help"]).expect_code(0).stdout_text();
    assert!(printf_help.contains("v4f32:1,2,3,4"), "{printf_help}");
    let version = run(["--version"]).expect_code(0).stdout_text();
    assert!(version.starts_with("fmtstr "), "{version}");
    // Built from a git checkout, the version names the commit (`fmtstr 0.1.0 (1a2b3c4)`).
    let in_checkout = std::process::Command::new("git")
        .args(["rev-parse", "--short", "HEAD"])
        .current_dir(crate::util::root())
        .output();
    if crate::util::root().join(".git").exists() {
        let commit = in_checkout.expect("git runs in a checkout");
        assert!(commit.status.success(), "git rev-parse --short HEAD fails");
        let commit = String::from_utf8_lossy(&commit.stdout).trim().to_owned();
        assert!(
            version.contains(&format!("({commit})"))
                || version.contains(&format!("({commit}-dirty)")),
            "--version {version:?} does not name the commit {commit}"
        );
    }
    run(["no-such-command"]).expect_code(2);
}
