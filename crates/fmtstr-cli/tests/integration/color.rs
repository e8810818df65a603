//! `--color auto|always|never`: colored diagnostics only on a terminal or when asked, never
//! into a pipe; NO_COLOR and CLICOLOR_FORCE respected under `auto`.
#![allow(unsafe_code)] // openpty, for a real terminal on stderr

use std::process::Command;

use crate::util::{fmtstr, run_command, Run};

const ESCAPE: &str = "\x1b[";

/// `fmtstr ARGS` with the color variables cleared, then `vars` set.
fn command(args: &[&str], vars: &[(&str, &str)]) -> Command {
    let mut command = fmtstr();
    command.args(args);
    for var in ["NO_COLOR", "CLICOLOR", "CLICOLOR_FORCE", "TERM"] {
        command.env_remove(var);
    }
    command.envs(vars.iter().copied());
    command
}

fn run_with(args: &[&str], vars: &[(&str, &str)]) -> Run {
    run_command(&mut command(args, vars))
}

/// Drops the SGR escapes, leaving the text a reader sees.
fn plain(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find(ESCAPE) {
        out.push_str(&rest[..start]);
        let after = &rest[start + ESCAPE.len()..];
        let end = after.find('m').map_or(after.len(), |m| m + 1);
        rest = &after[end..];
    }
    out.push_str(rest);
    out
}

#[test]
fn always_colors_labels_and_carets_like_clang_and_changes_no_text() {
    // A format error (with its caret line) and a -Wformat warning.
    for (args, label) in [
        (&["printf", "%q"][..], "\x1b[1m\x1b[31merror:"),
        (
            &["check", r"%ld\n", "--args", "i32"][..],
            "\x1b[1m\x1b[35mwarning:",
        ),
    ] {
        let code = if args[0] == "printf" { 2 } else { 1 };
        let uncolored = run_with(args, &[]).expect_code(code);
        let colored = run_with(&[&["--color", "always"], args].concat(), &[]).expect_code(code);
        assert!(colored.stderr.contains(label), "{:?}", colored.stderr);
        // The caret line: bold green.
        assert!(
            colored.stderr.contains("\x1b[1m\x1b[32m^"),
            "{:?}",
            colored.stderr
        );
        assert_eq!(plain(&colored.stderr), uncolored.stderr);
        // A rendered result on stdout is never painted.
        assert!(!String::from_utf8_lossy(&colored.stdout).contains(ESCAPE));
    }
    // `--color=always` after the command and on an IR error from `lower` too. (lower
    // --target nvptx parses only the lines that name printf: this one does, in a comment.)
    let dir = tempfile::tempdir().unwrap();
    let module = dir.path().join("bad.ll");
    std::fs::write(
        &module,
        "define void @f() {\n  %x = add i32 1 ; no printf yet\n  ret void\n}\n",
    )
    .unwrap();
    let out = run_with(
        &[
            "lower",
            "--target",
            "nvptx",
            module.to_str().unwrap(),
            "--color=always",
        ],
        &[],
    )
    .expect_code(2);
    assert!(out.stderr.contains("\x1b[1m\x1b[32m^"), "{:?}", out.stderr);
    assert!(
        plain(&out.stderr).contains("bad.ll:3:3: error: expected ','"),
        "{}",
        out.stderr
    );
}

/// audit's text findings are diagnostics on stdout: painted the same way, only when asked.
#[test]
fn audit_text_findings_are_colored_only_when_asked() {
    let samples = crate::util::root().join("samples/pal");
    let samples = samples.to_str().unwrap();
    let uncolored = run_with(&["audit", samples], &[]).expect_code(1);
    let colored = run_with(&["--color", "always", "audit", samples], &[]).expect_code(1);
    let (uncolored, colored) = (uncolored.stdout_text(), colored.stdout_text());
    assert!(!uncolored.contains(ESCAPE), "{uncolored}");
    assert!(colored.contains("\x1b[1m\x1b[31merror:"), "{colored:?}");
    assert_eq!(plain(&colored), uncolored);
    // The JSON and GitHub formats are for programs: never painted.
    for format in ["json", "github"] {
        let out = run_with(
            &["--color", "always", "audit", "--format", format, samples],
            &[],
        );
        assert!(!out.stdout_text().contains(ESCAPE), "--format {format}");
    }
}

#[test]
fn a_pipe_gets_no_color_unless_asked_and_no_color_wins_under_auto() {
    let args = ["printf", "%q"];
    /// Flags, environment, and whether stderr is colored.
    type Case<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], bool);
    let cases: [Case; 6] = [
        (&[], &[], false),
        (&["--color", "auto"], &[("TERM", "xterm-256color")], false),
        (&["--color", "never"], &[("CLICOLOR_FORCE", "1")], false),
        (&[], &[("CLICOLOR_FORCE", "1")], true),
        (&[], &[("CLICOLOR_FORCE", "1"), ("NO_COLOR", "1")], false),
        // Asked for on the command line: NO_COLOR is the default's business only.
        (&["--color", "always"], &[("NO_COLOR", "1")], true),
    ];
    for (flags, vars, colored) in cases {
        let out = run_with(&[flags, &args[..]].concat(), vars).expect_code(2);
        assert_eq!(
            out.stderr.contains(ESCAPE),
            colored,
            "{flags:?} {vars:?}: {:?}",
            out.stderr
        );
    }
}

/// stderr on a real terminal (a pseudo-terminal) under `auto`: colored, unless NO_COLOR.
#[test]
fn a_terminal_gets_color_by_default_unless_no_color() {
    use std::io::Read;
    use std::os::fd::FromRawFd;

    for (vars, colored) in [
        (&[("TERM", "xterm-256color")][..], true),
        (&[("TERM", "xterm-256color"), ("NO_COLOR", "1")][..], false),
    ] {
        let (mut primary, secondary) = {
            let (mut primary, mut secondary) = (0, 0);
            // SAFETY: openpty writes two descriptors into the given integers; no name, termios
            // or window size is asked for.
            let status = unsafe {
                libc::openpty(
                    &mut primary,
                    &mut secondary,
                    std::ptr::null_mut(),
                    std::ptr::null(),
                    std::ptr::null(),
                )
            };
            assert_eq!(status, 0, "openpty: {}", std::io::Error::last_os_error());
            // SAFETY: both descriptors were just opened for us and are owned from here on.
            unsafe {
                (
                    std::fs::File::from_raw_fd(primary),
                    std::fs::File::from_raw_fd(secondary),
                )
            }
        };
        let mut child = {
            let mut process = command(&["printf", "%q"], vars);
            process
                .stderr(secondary)
                .stdout(std::process::Stdio::null());
            process.spawn().expect("fmtstr starts")
            // The parent's copy of the terminal's other end closes here, so reading ends.
        };
        let status = child.wait().expect("fmtstr ends");
        assert_eq!(status.code(), Some(2));
        let mut seen = Vec::new();
        // Reading a terminal whose other end is closed ends with EIO after the data.
        let _ = primary.read_to_end(&mut seen);
        let seen = String::from_utf8_lossy(&seen);
        assert!(seen.contains("error:"), "{seen:?}");
        assert_eq!(seen.contains(ESCAPE), colored, "{vars:?}: {seen:?}");
    }
}
