//! The help texts as a reader meets them: lists stay lists, and each command's long help is
//! snapshotted (tests/integration/help/*.txt; `FMTSTR_BLESS=1` rewrites them after a reviewed
//! change).

use crate::util::{fmtstr, root, run_command};

/// Every command with a help of its own; "" is `fmtstr --help`.
const COMMANDS: [&str; 13] = [
    "",
    "hash",
    "printf",
    "check",
    "dump",
    "embed",
    "merge",
    "audit",
    "lower",
    "abi",
    "decode",
    "gaps",
    "completions",
];

/// `fmtstr [COMMAND] --help` at a fixed width (clap wraps to COLUMNS, else to the terminal).
fn long_help(command: &str) -> String {
    let mut process = fmtstr();
    process.env("COLUMNS", "100").env_remove("NO_COLOR");
    if !command.is_empty() {
        process.arg(command);
    }
    let output = run_command(process.arg("--help")).expect_code(0);
    output.stdout_text()
}

/// True when some line of `help` is `item` followed by at least two spaces: a list item of its
/// own, not a word inside a re-wrapped paragraph.
fn starts_a_line(help: &str, item: &str) -> bool {
    help.lines().any(|line| {
        line.trim_start()
            .strip_prefix(item)
            .is_some_and(|rest| rest.starts_with("  "))
    })
}

#[test]
fn audit_lists_every_finding_kind_one_per_line() {
    let help = long_help("audit");
    // The kinds the JSON report can carry: the help must list each of them.
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(root().join("schemas/audit.schema.json")).unwrap(),
    )
    .unwrap();
    let kinds = schema["properties"]["findings"]["items"]["properties"]["kind"]["enum"]
        .as_array()
        .expect("the schema lists the kinds")
        .iter()
        .map(|kind| kind.as_str().unwrap().to_owned())
        .collect::<Vec<_>>();
    assert_eq!(kinds.len(), 6, "{kinds:?}");
    for kind in &kinds {
        assert!(
            starts_a_line(&help, kind),
            "`{kind}` does not start a line:\n{help}"
        );
    }
}

#[test]
fn completions_lists_every_shell_one_per_line() {
    let help = long_help("completions");
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        assert!(
            starts_a_line(&help, shell),
            "`{shell}` does not start a line:\n{help}"
        );
    }
}

/// Option values with a description of their own are listed one per line, not joined into
/// the option's sentence (lower --pass, audit and check --format).
#[test]
fn option_values_are_listed_one_per_line() {
    for (command, values) in [
        ("lower", &["printf", "strip", "struct-args"][..]),
        ("audit", &["text", "json", "github", "sarif"][..]),
        ("check", &["text", "json", "sarif"][..]),
    ] {
        let help = long_help(command);
        for value in values {
            assert!(
                help.lines()
                    .any(|line| line.trim_start().starts_with(&format!("- {value}:"))),
                "fmtstr {command} --help does not list `{value}`:\n{help}"
            );
        }
    }
}

/// Whatever a command's description writes as an indented line (a list item, or its
/// continuation), and every line of its examples and exit codes, is a line of its own in
/// --help (at 100 columns), for every command.
#[test]
fn indented_lines_of_every_description_stay_lines() {
    let mut command = fmtstr_cli::command();
    command.build();
    let mut checked = 0;
    let subcommands = command
        .get_subcommands()
        .filter(|sub| sub.get_name() != "help");
    for sub in std::iter::once(&command).chain(subcommands) {
        let about = sub
            .get_long_about()
            .map(ToString::to_string)
            .unwrap_or_default();
        let after = sub
            .get_after_help()
            .map(ToString::to_string)
            .unwrap_or_default();
        let name = if sub.get_name() == "fmtstr" {
            ""
        } else {
            sub.get_name()
        };
        let help = long_help(name);
        let lines: Vec<&str> = help.lines().map(str::trim_end).collect();
        let indented = about.lines().filter(|line| line.starts_with("  "));
        for line in indented.chain(after.lines().filter(|line| !line.trim().is_empty())) {
            assert!(
                lines.contains(&line.trim_end()),
                "fmtstr {name} --help re-wrapped the line {line:?}:\n{help}"
            );
            checked += 1;
        }
    }
    assert!(checked >= 80, "only {checked} lines checked");
}

#[test]
fn long_help_matches_its_snapshot() {
    let bless = std::env::var_os("FMTSTR_BLESS").is_some();
    let dir = root().join("crates/fmtstr-cli/tests/integration/help");
    let mut stale = Vec::new();
    for command in COMMANDS {
        let help = long_help(command);
        let name = if command.is_empty() {
            "fmtstr"
        } else {
            command
        };
        let path = dir.join(format!("{name}.txt"));
        if bless {
            std::fs::write(&path, &help).unwrap();
        } else if std::fs::read_to_string(&path).ok().as_deref() != Some(help.as_str()) {
            stale.push(format!("{name}: {}", path.display()));
        }
    }
    assert!(
        stale.is_empty(),
        "--help differs from its snapshot (review it, then FMTSTR_BLESS=1 cargo test -p fmtstr-cli \
         --test integration long_help):\n{}",
        stale.join("\n")
    );
}

/// The bash script `fmtstr completions bash` prints is the checked-in one, and bash itself
/// completes commands, options and option values with it.
#[test]
fn bash_completes_with_the_generated_script() {
    let script = crate::util::run(["completions", "bash"])
        .expect_code(0)
        .stdout;
    let checked_in = std::fs::read(root().join("doc/completions/fmtstr.bash")).unwrap();
    assert!(
        script == checked_in,
        "doc/completions/fmtstr.bash is stale: run `cargo xtask man`"
    );
    let Some(bash) = ["/bin/bash", "/usr/bin/bash"]
        .into_iter()
        .find(|path| std::path::Path::new(path).exists())
    else {
        assert!(std::env::var("CI").is_err(), "bash is missing (CI=true)");
        eprintln!("skipped: no bash");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fmtstr.bash");
    std::fs::write(&path, &script).unwrap();
    // COMP_WORDS and COMP_CWORD as bash sets them; _fmtstr COMMAND CURRENT PREVIOUS.
    let complete = |words: &[&str]| {
        let current = words.last().unwrap();
        let previous = words[words.len() - 2];
        let program =
            format!(
            "source {}; COMP_WORDS=({}); COMP_CWORD={}; _fmtstr fmtstr '{current}' '{previous}'; \
             printf '%s\\n' \"${{COMPREPLY[@]}}\"",
            path.display(),
            words.iter().map(|w| format!("'{w}'")).collect::<Vec<_>>().join(" "),
            words.len() - 1
        );
        let output = std::process::Command::new(bash)
            .arg("-c")
            .arg(program)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8(output.stdout).unwrap()
    };
    assert_eq!(complete(&["fmtstr", "au"]), "audit\n");
    assert_eq!(
        complete(&["fmtstr", "audit", "--format", ""]),
        "text\njson\ngithub\nsarif\n"
    );
    assert_eq!(
        complete(&["fmtstr", "check", "--format", ""]),
        "text\njson\nsarif\n"
    );
    assert_eq!(complete(&["fmtstr", "lower", "--pa"]), "--pass\n");
    assert_eq!(
        complete(&["fmtstr", "--color", ""]),
        "auto\nalways\nnever\n"
    );
}
