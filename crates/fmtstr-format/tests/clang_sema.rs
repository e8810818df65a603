//! The checker against clang's own `-Wformat` verdicts (clang 19's, and clang 22's), on clang's
//! own format-string tests.
//!
//! The cases are built at test time from LLVM 19's test tree (clang/test/Sema/format-strings*.c
//! and the OpenCL printf tests in clang/test/SemaOpenCL): one clang run per file gives both the
//! AST (`-Xclang -ast-dump=json`), from which every printf-family call with a literal format is
//! taken with its argument types translated to LLVM IR spellings, and the `-Wformat`
//! diagnostics, mapped to the calls by their source offsets. Every file is compiled for
//! x86_64-unknown-linux-gnu, the LP64 glibc target whose printf fmtstr models (the tests' own
//! triples would make `long` 32 bits or enable Darwin's and FreeBSD's extensions).
//!
//! A call's verdict is "warns" when clang gives it at least one warning of the `-Wformat` family
//! that judges a format against its arguments (-Wformat, -Wformat-extra-args,
//! -Wformat-insufficient-args, -Wformat-invalid-specifier, -Wformat-zero-length) and "silent"
//! otherwise; fmtstr's is "warns" when `check_format` finds something, and a refusal (a finding
//! of error severity) never agrees. C files are checked under `Dialect::C`, OpenCL files under
//! `Dialect::OpenCl` (clang's rules for OpenCL C); the table is printed per category, and every
//! disagreement must be one of the known ones listed below with its reason.
//!
//! With clang 19.1.7: 480 of 505 calls agree (95.0%; the C files 379 of 404 under `c`, the
//! OpenCL files 101 of 101 under `opencl`). The 25 others are calls where clang warns about what
//! IR types erase: pointee types (17), C's promotions (6), `long` versus `long long` (1), plus
//! one call whose warning the source silences with a pragma. Before this checker (the first-error
//! parser of the renderer), 278 of 505 agreed (55.0%).
//!
//! clang 22 judges the same files too (LLVM 19's: LLVM 22's own tree may not be fetchable), and
//! its verdicts must equal clang 19's call for call: with clang 22.1.8 all 505 do, with the same
//! words, so the numbers above are clang 22's as well. The dialects model one `-Wformat`; should
//! a later clang judge a call otherwise, the test names the call instead of judging fmtstr by
//! either clang alone.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;
use std::process::Command;

use fmtstr_format::{check_format, ArgType, Dialect, ScalarType, Severity};
use fmtstr_oracles::{require_llvm, require_llvm_source, Llvm, Tool};
use serde_json::Value;

/// The files and the flags their RUN lines need (the triple is always x86_64 Linux).
const FILES: &[(&str, &[&str])] = &[
    (
        "clang/test/Sema/format-strings.c",
        &["-fblocks", "-isystem", "{dir}/Inputs"],
    ),
    ("clang/test/Sema/format-strings-bitfield-promotion.c", &[]),
    ("clang/test/Sema/format-strings-c90.c", &["-std=c89"]),
    ("clang/test/Sema/format-strings-darwin.c", &[]),
    ("clang/test/Sema/format-strings-enum.c", &[]),
    (
        "clang/test/Sema/format-strings-fixit-ssize_t.c",
        &["-std=c99"],
    ),
    ("clang/test/Sema/format-strings-fixit.c", &[]),
    ("clang/test/Sema/format-strings-freebsd.c", &[]),
    ("clang/test/Sema/format-strings-gnu.c", &["-DALLOWED"]),
    ("clang/test/Sema/format-strings-int-typedefs.c", &[]),
    (
        "clang/test/Sema/format-strings-ms.c",
        &["-fms-compatibility"],
    ),
    ("clang/test/Sema/format-strings-no-fixit.c", &[]),
    ("clang/test/Sema/format-strings-non-iso.c", &["-std=c99"]),
    ("clang/test/Sema/format-strings-pedantic.c", &[]),
    ("clang/test/Sema/format-strings-scanf.c", &["-std=c11"]),
    ("clang/test/Sema/format-strings-signedness-fixit.c", &[]),
    ("clang/test/Sema/format-strings-signedness.c", &["-std=c11"]),
    ("clang/test/Sema/format-strings-size_t.c", &[]),
    (
        "clang/test/SemaOpenCL/printf-format-string-warnings.cl",
        &["-cl-std=CL2.0"],
    ),
    (
        "clang/test/SemaOpenCL/printf-format-strings.cl",
        &["-cl-std=CL1.2", "-Xclang", "-cl-ext=+cl_khr_fp64"],
    ),
    (
        "clang/test/SemaOpenCL/format-strings-fixit.cl",
        &["-cl-std=CL1.2"],
    ),
];

/// printf-family functions that take their arguments as `...`: name and the format's index.
const FAMILY: &[(&str, usize)] = &[
    ("printf", 0),
    ("fprintf", 1),
    ("sprintf", 1),
    ("snprintf", 2),
    ("dprintf", 1),
    ("asprintf", 1),
    ("__builtin_printf", 0),
];

/// The `-Wformat` warnings that judge a format against its arguments.
const JUDGING_FLAGS: &[&str] = &[
    "-Wformat",
    "-Wformat-extra-args",
    "-Wformat-insufficient-args",
    "-Wformat-invalid-specifier",
    "-Wformat-zero-length",
];

/// One call: where it is, its format and argument types, and clang's warnings on it.
#[derive(Clone, Debug)]
struct Case {
    file: &'static str,
    line: usize,
    opencl: bool,
    format: Vec<u8>,
    args: Vec<ArgType>,
    /// clang's judging warnings on the call.
    warnings: Vec<String>,
    /// A `#pragma clang diagnostic ignored "-Wformat..."` is in force at the call.
    silenced_by_pragma: bool,
}

/// Why a call was left out of the set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Excluded {
    /// An argument is a struct, union or complex value: IR passes it as an aggregate.
    AggregateArgument,
    /// The call is written in a macro: clang reports at the macro's spelling.
    InMacro,
    /// clang reports an error in the call.
    DoesNotCompile,
    /// A wide (L"...") or otherwise non-char format literal.
    WideFormat,
}

#[derive(Default)]
struct Extracted {
    cases: Vec<Case>,
    excluded: BTreeMap<Excluded, usize>,
    non_literal: usize,
}

/// Under clang-19 and clang-22, each on LLVM 19's test files; then clang-22's verdicts must be
/// clang-19's, call for call: the dialects model clang 19's `-Wformat`, and the project has no
/// verdicts per LLVM release, so a call where the two disagree is a failure that names it.
#[test]
fn the_checker_agrees_with_clang_on_clangs_own_tests() {
    let Some(root) = require_llvm_source() else {
        return;
    };
    let mut verdicts = Vec::new();
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        let Some(clang) = require_llvm(llvm, Tool::Clang) else {
            continue;
        };
        verdicts.push((
            llvm,
            the_checker_agrees_with_clang_with(llvm, &clang, &root),
        ));
    }
    let [(_, old), (newer, new)] = verdicts.as_slice() else {
        return;
    };
    let key = |c: &Case| (c.file, c.line, c.format.clone(), format!("{:?}", c.args));
    let old: BTreeMap<_, &Case> = old.iter().map(|c| (key(c), c)).collect();
    let new: BTreeMap<_, &Case> = new.iter().map(|c| (key(c), c)).collect();
    let mut differences = Vec::new();
    let mut other_words = 0;
    for (k, case) in &old {
        match new.get(k) {
            None => differences.push(format!("{}:{}: not extracted under {newer}", k.0, k.1)),
            Some(other) if other.warnings.is_empty() != case.warnings.is_empty() => differences
                .push(format!(
                    "{}:{}: \"{}\": clang 19 {:?}, clang {} {:?}",
                    k.0,
                    k.1,
                    fmtstr_meta_escape(&case.format),
                    case.warnings,
                    newer.major(),
                    other.warnings
                )),
            Some(other) => other_words += usize::from(other.warnings != case.warnings),
        }
    }
    for k in new.keys().filter(|k| !old.contains_key(*k)) {
        differences.push(format!("{}:{}: extracted only under {newer}", k.0, k.1));
    }
    println!(
        "{newer}: {} calls; verdicts as clang 19's on all but {}; other words in {other_words}",
        new.len(),
        differences.len()
    );
    assert!(
        differences.is_empty(),
        "clang {}'s -Wformat verdicts differ from clang 19's on {} calls:\n{}",
        newer.major(),
        differences.len(),
        differences.join("\n")
    );
}

/// The checker against one clang's verdicts; returns the cases, with that clang's warnings.
fn the_checker_agrees_with_clang_with(llvm: Llvm, clang: &Path, root: &Path) -> Vec<Case> {
    let results: Vec<Extracted> = std::thread::scope(|scope| {
        let handles: Vec<_> = FILES
            .iter()
            .map(|&(file, flags)| scope.spawn(move || extract(clang, root, file, flags)))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    let mut all = Extracted::default();
    for extracted in results {
        all.cases.extend(extracted.cases);
        for (why, n) in extracted.excluded {
            *all.excluded.entry(why).or_default() += n;
        }
        all.non_literal += extracted.non_literal;
    }
    // 505 calls with clang 19.1.7's tests; far fewer means the extraction broke.
    assert!(
        all.cases.len() > 480,
        "only {} cases extracted from clang's tests (excluded: {:?})",
        all.cases.len(),
        all.excluded
    );

    let mut table: BTreeMap<&'static str, [usize; 2]> = BTreeMap::new();
    let mut by_dialect: BTreeMap<&'static str, [usize; 2]> = BTreeMap::new();
    // Where both warn: calls whose findings say what clang's warnings say, one for one.
    let (mut both_warn, mut same_words) = (0, 0);
    let mut agreed = 0;
    let mut unexplained = Vec::new();
    let mut explained: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    for case in &all.cases {
        let dialect = if case.opencl {
            Dialect::OpenCl
        } else {
            Dialect::C
        };
        let findings = check_format(&case.format, &case.args, dialect);
        let refused = findings.iter().any(|f| f.severity == Severity::Error);
        let ours = !findings.is_empty() && !refused;
        let theirs = !case.warnings.is_empty();
        let category = category(case);
        let row = table.entry(category).or_default();
        row[1] += 1;
        let per_dialect = by_dialect.entry(dialect.name()).or_default();
        per_dialect[1] += 1;
        if ours && theirs {
            both_warn += 1;
            if same_messages(&case.warnings, &findings) {
                same_words += 1;
            }
        }
        if ours == theirs && !refused {
            agreed += 1;
            row[0] += 1;
            per_dialect[0] += 1;
            continue;
        }
        match known_disagreement(case, ours) {
            Some(reason) => explained.entry(reason).or_default().push(format!(
                "{}:{}",
                short_name(case.file),
                case.line
            )),
            None => unexplained.push(format!(
                "{}:{}: \"{}\" {:?}: clang {:?}, fmtstr {:?}",
                case.file,
                case.line,
                fmtstr_meta_escape(&case.format),
                case.args
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>(),
                case.warnings,
                findings.iter().map(|f| &f.message).collect::<Vec<_>>(),
            )),
        }
    }

    let mut report = String::new();
    writeln!(
        report,
        "verdicts equal to clang {}'s, by category:",
        llvm.major()
    )
    .unwrap();
    for (category, [same, total]) in &table {
        writeln!(report, "  {category:<34} {same:>4} / {total:<4}").unwrap();
    }
    let total = all.cases.len();
    writeln!(
        report,
        "  {:<34} {agreed:>4} / {total:<4} ({:.1}%)",
        "all",
        100.0 * agreed as f64 / total as f64
    )
    .unwrap();
    for (dialect, [same, total]) in &by_dialect {
        writeln!(
            report,
            "  {:<34} {same:>4} / {total:<4} ({:.1}%)",
            format!("under --dialect {dialect}"),
            100.0 * *same as f64 / *total as f64
        )
        .unwrap();
    }
    writeln!(
        report,
        "  {:<34} {same_words:>4} / {both_warn:<4}",
        "same messages where both warn"
    )
    .unwrap();
    writeln!(report, "known disagreements:").unwrap();
    for (reason, cases) in &explained {
        writeln!(
            report,
            "  {:>4}  {reason}\n        {}",
            cases.len(),
            cases.join(" ")
        )
        .unwrap();
    }
    writeln!(
        report,
        "left out: {:?}; calls with a non-literal format: {}",
        all.excluded, all.non_literal
    )
    .unwrap();
    println!("{report}");
    assert!(
        unexplained.is_empty(),
        "{report}\n{} disagreements without a known reason:\n{}",
        unexplained.len(),
        unexplained.join("\n")
    );
    assert!(
        agreed * 100 >= total * 95,
        "{report}\nagreement below 95%: {agreed} of {total}"
    );
    assert!(
        same_words * 100 >= both_warn * 95,
        "{report}\nclang's words in fewer than 95% of the calls both warn about"
    );
    all.cases
}

/// Whether fmtstr's findings say what clang's warnings say, one for one, in any order. Type
/// names are compared up to " but" (clang names C types where fmtstr names IR types), and the
/// counts fmtstr appends after ": the format consumes" are left out.
fn same_messages(warnings: &[String], findings: &[fmtstr_format::Finding]) -> bool {
    let words = |m: &str| -> String {
        let m = m.split(": the format consumes").next().unwrap_or(m);
        let m = m.split(" but ").next().unwrap_or(m);
        m.split(" (aka").next().unwrap_or(m).to_string()
    };
    let mut theirs: Vec<String> = warnings.iter().map(|w| words(w)).collect();
    let mut ours: Vec<String> = findings.iter().map(|f| words(&f.message)).collect();
    theirs.sort();
    ours.sort();
    theirs == ours
}

/// The disagreements fmtstr cannot avoid, each with its reason; `None` for any other.
///
/// All of them are calls where clang warns and fmtstr, seeing only IR types, cannot: IR has one
/// `ptr` type for every pointer, one `i32` for every promoted `char`, `short` and `int`, and one
/// `i64` for `long` and `long long`.
fn known_disagreement(case: &Case, fmtstr_warns: bool) -> Option<&'static str> {
    if case.silenced_by_pragma && fmtstr_warns && case.warnings.is_empty() {
        return Some(
            "the source silences -Wformat with `#pragma clang diagnostic ignored`, \
             which a format and its argument types do not carry",
        );
    }
    if fmtstr_warns {
        return None;
    }
    let all =
        |p: &dyn Fn(&str) -> bool| !case.warnings.is_empty() && case.warnings.iter().all(|w| p(w));
    let argument_type = |w: &str| -> Option<(String, String)> {
        // "format specifies type 'E' [(aka 'E2')] but the argument has type 'G' [(aka 'G2')]"
        let rest = w.strip_prefix("format specifies type '")?;
        let (expected, got) = rest.split_once(" but the argument has type '")?;
        let first = |t: &str| t.split('\'').next().unwrap_or(t).to_string();
        let is_pointer = expected.contains('*') && got.contains('*');
        Some(if is_pointer {
            (expected.to_string(), got.to_string())
        } else {
            (first(expected), first(got))
        })
    };
    if all(&|w| argument_type(w).is_some_and(|(e, g)| e.contains('*') && g.contains('*'))) {
        return Some(
            "IR erases pointee types: clang warns about a pointer to the wrong type \
             ('char *' given 'int *', '%n' given 'short *'), IR passes `ptr` for both",
        );
    }
    let promoted = [
        "char",
        "signed char",
        "unsigned char",
        "short",
        "unsigned short",
        "_Bool",
    ];
    if all(&|w| argument_type(w).is_some_and(|(_, g)| promoted.contains(&g.as_str())))
        && case.args.iter().all(|a| a.to_string() != "i64")
    {
        return Some(
            "IR erases C's promotions: clang knows the argument was a 'short' or 'char' before \
             it became an int ('%hhd' given a short), IR passes `i32` for every one",
        );
    }
    let long_long = |(e, g): (String, String)| {
        let strip = |t: &str| t.trim_start_matches("unsigned ").to_string();
        let (e, g) = (strip(&e), strip(&g));
        (e == "long" && g == "long long") || (e == "long long" && g == "long")
    };
    if all(&|w| argument_type(w).is_some_and(long_long)) {
        return Some(
            "IR erases the difference between 'long' and 'long long': both are `i64` \
             ('%Ld' and '%lld' given a long)",
        );
    }
    None
}

/// The category a case is counted in: what the format uses, else what clang says about it.
fn category(case: &Case) -> &'static str {
    let f = &case.format;
    if f.contains(&0) {
        return "embedded NUL";
    }
    if case.opencl {
        return if f.windows(2).any(|w| w[0] == b'%' && w[1] == b'v') || f.contains(&b'v') {
            "OpenCL vectors"
        } else {
            "OpenCL scalars"
        };
    }
    let specs = spec_texts(f);
    let any = |p: &dyn Fn(&[u8]) -> bool| specs.iter().any(|s| p(s));
    let last = |s: &[u8]| *s.last().unwrap_or(&b'%');
    if any(&|s| s.contains(&b'$')) {
        return "positional arguments";
    }
    if any(&|s| last(s) == b'n') {
        return "%n";
    }
    if any(&|s| matches!(last(s), b'S' | b'C') || s.ends_with(b"lc") || s.ends_with(b"ls")) {
        return "wide characters (%S %C %lc %ls)";
    }
    if any(&|s| last(s) == b'm') {
        return "%m";
    }
    if any(&|s| s.contains(&b'\'')) {
        return "the ' flag";
    }
    let first = case.warnings.first().map(String::as_str).unwrap_or("");
    if first.contains("invalid conversion specifier") || first.contains("incomplete format") {
        return "invalid or incomplete conversions";
    }
    if first.starts_with("flag") || first.contains("results in undefined behavior") {
        return "flag, precision, length misuse";
    }
    if first.contains("conversions than data") || first.contains("data argument not used") {
        return "argument count";
    }
    if first.contains("format specifies type") || first.contains("should have type") {
        return "argument type";
    }
    if first.is_empty() {
        return "clean (clang silent)";
    }
    "other warnings"
}

/// The conversion specifications of a format, roughly (for categories only).
fn spec_texts(f: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < f.len() {
        if f[i] != b'%' {
            i += 1;
            continue;
        }
        let start = i;
        i += 1;
        while i < f.len() && !f[i].is_ascii_alphabetic() && f[i] != b'%' && f[i] != b'@' {
            i += 1;
        }
        while i < f.len() && matches!(f[i], b'h' | b'l' | b'j' | b'z' | b't' | b'L' | b'q') {
            i += 1;
        }
        i = (i + 1).min(f.len());
        out.push(&f[start..i]);
    }
    out
}

fn short_name(file: &str) -> &str {
    file.rsplit('/').next().unwrap_or(file)
}

fn fmtstr_meta_escape(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| match b {
            b'\n' => "\\n".to_string(),
            b'"' => "\\\"".to_string(),
            b'\\' => "\\\\".to_string(),
            0x20..=0x7e => (b as char).to_string(),
            _ => format!("\\x{b:02x}"),
        })
        .collect()
}

/// Runs clang once on a file: the AST on stdout, the diagnostics on stderr.
fn extract(clang: &Path, root: &Path, file: &'static str, flags: &[&str]) -> Extracted {
    let path = root.join(file);
    let dir = path.parent().unwrap().display().to_string();
    let flags: Vec<String> = flags.iter().map(|f| f.replace("{dir}", &dir)).collect();
    let output = Command::new(clang)
        .arg("--target=x86_64-unknown-linux-gnu")
        .args(&flags)
        .args(["-fsyntax-only", "-Wformat", "-Xclang", "-ast-dump=json"])
        .arg(&path)
        .output()
        .unwrap_or_else(|e| panic!("running clang on {file}: {e}"));
    let source = std::fs::read(&path).unwrap();
    let ast: Value = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("clang's JSON AST of {file}: {e}"));
    let diagnostics = String::from_utf8_lossy(&output.stderr);
    let line_starts: Vec<usize> = std::iter::once(0)
        .chain(
            source
                .iter()
                .enumerate()
                .filter(|(_, &b)| b == b'\n')
                .map(|(i, _)| i + 1),
        )
        .collect();
    let prefix = format!("{}:", path.display());
    // (offset, is_error, message) of each warning and error in the file itself.
    let mut diags = Vec::new();
    for line in diagnostics.lines() {
        let Some(rest) = line.strip_prefix(&prefix) else {
            continue;
        };
        let mut parts = rest.splitn(3, ':');
        let (Some(l), Some(c), Some(text)) = (parts.next(), parts.next(), parts.next()) else {
            continue;
        };
        let (Ok(l), Ok(c)) = (l.parse::<usize>(), c.parse::<usize>()) else {
            continue;
        };
        let offset = line_starts[l - 1] + c - 1;
        let text = text.trim_start();
        if let Some(error) = text.strip_prefix("error: ") {
            diags.push((offset, true, error.to_string()));
        } else if let Some(warning) = text.strip_prefix("warning: ") {
            let Some(open) = warning.rfind(" [-W") else {
                continue;
            };
            let flag = warning[open + 2..].trim_end_matches(']');
            let flag = flag.split(',').next().unwrap_or(flag);
            if JUDGING_FLAGS.contains(&flag) {
                diags.push((offset, false, warning[..open].to_string()));
            }
        }
    }

    let mut calls = Vec::new();
    let mut walker = Walker {
        main_file: path.display().to_string(),
        current_file: String::new(),
        calls: &mut calls,
    };
    walker.walk(&ast);

    let mut out = Extracted::default();
    let opencl = file.ends_with(".cl");
    // Each diagnostic belongs to the innermost call whose range holds it.
    let mut per_call: Vec<Vec<(bool, String)>> = vec![Vec::new(); calls.len()];
    for (offset, is_error, message) in diags {
        let owner = calls
            .iter()
            .enumerate()
            .filter(|(_, c)| c.begin <= offset && offset < c.end)
            .min_by_key(|(_, c)| c.end - c.begin);
        if let Some((index, _)) = owner {
            per_call[index].push((is_error, message));
        }
    }
    for (call, diags) in calls.into_iter().zip(per_call) {
        let outcome = call.outcome;
        let (format, args) = match outcome {
            Ok(pair) => pair,
            Err(Some(why)) => {
                *out.excluded.entry(why).or_default() += 1;
                continue;
            }
            Err(None) => {
                out.non_literal += 1;
                continue;
            }
        };
        if diags.iter().any(|(is_error, _)| *is_error) {
            *out.excluded.entry(Excluded::DoesNotCompile).or_default() += 1;
            continue;
        }
        let line = line_starts.partition_point(|&s| s <= call.begin);
        let silenced_by_pragma = silenced_at(&source[..call.begin]);
        out.cases.push(Case {
            silenced_by_pragma,
            file,
            line,
            opencl,
            format,
            args,
            warnings: diags.into_iter().map(|(_, m)| m).collect(),
        });
    }
    out
}

/// Whether the last `#pragma clang diagnostic` before the call's text ignores a -Wformat group.
fn silenced_at(before: &[u8]) -> bool {
    let text = String::from_utf8_lossy(before);
    let Some(last) = text.rfind("#pragma clang diagnostic") else {
        return false;
    };
    text[last..]
        .lines()
        .next()
        .is_some_and(|line| line.contains("ignored") && line.contains("\"-Wformat"))
}

type Outcome = Result<(Vec<u8>, Vec<ArgType>), Option<Excluded>>;

struct FoundCall {
    begin: usize,
    end: usize,
    outcome: Outcome,
}

/// Walks clang's JSON AST in document order, following the file that locations are in (the
/// dump names a location's file only when it changes).
struct Walker<'a> {
    main_file: String,
    current_file: String,
    calls: &'a mut Vec<FoundCall>,
}

impl Walker<'_> {
    fn walk(&mut self, node: &Value) {
        match node {
            Value::Object(map) => {
                if let Some(Value::String(file)) = map.get("file") {
                    self.current_file = file.clone();
                }
                for (key, value) in map {
                    if key != "inner" {
                        self.walk(value);
                    }
                }
                if map.get("kind").and_then(Value::as_str) == Some("CallExpr")
                    && self.current_file == self.main_file
                {
                    if let Some(call) = printf_call(node) {
                        self.calls.push(call);
                    }
                }
                if let Some(inner) = map.get("inner") {
                    self.walk(inner);
                }
            }
            Value::Array(items) => items.iter().for_each(|item| self.walk(item)),
            _ => {}
        }
    }
}

fn printf_call(node: &Value) -> Option<FoundCall> {
    let inner = node.get("inner")?.as_array()?;
    let callee = find_decl_name(inner.first()?)?;
    let &(_, format_index) = FAMILY.iter().find(|(name, _)| *name == callee)?;
    let range = node.get("range")?;
    let (begin, end) = (range.get("begin")?, range.get("end")?);
    if begin.get("expansionLoc").is_some() || end.get("expansionLoc").is_some() {
        return Some(FoundCall {
            begin: 0,
            end: 0,
            outcome: Err(Some(Excluded::InMacro)),
        });
    }
    let begin_offset = begin.get("offset")?.as_u64()? as usize;
    let end_offset = end.get("offset")?.as_u64()? as usize + end.get("tokLen")?.as_u64()? as usize;
    let outcome = (|| {
        let format_expr = inner.get(1 + format_index).ok_or(None)?;
        let literal = strip_casts(format_expr);
        if literal.get("kind").and_then(Value::as_str) != Some("StringLiteral") {
            return Err(None);
        }
        let value = literal.get("value").and_then(Value::as_str).ok_or(None)?;
        let Some(body) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) else {
            return Err(Some(Excluded::WideFormat));
        };
        let format = unescape(body);
        let args = inner[2 + format_index..]
            .iter()
            .map(|arg| ir_type(arg.get("type")).ok_or(Some(Excluded::AggregateArgument)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok((format, args))
    })();
    Some(FoundCall {
        begin: begin_offset,
        end: end_offset,
        outcome,
    })
}

fn find_decl_name(node: &Value) -> Option<&str> {
    if let Some(decl) = node.get("referencedDecl") {
        return decl.get("name")?.as_str();
    }
    find_decl_name(node.get("inner")?.as_array()?.first()?)
}

fn strip_casts(node: &Value) -> &Value {
    match node.get("kind").and_then(Value::as_str) {
        Some("ImplicitCastExpr" | "ParenExpr") => node
            .get("inner")
            .and_then(|i| i.get(0))
            .map_or(node, strip_casts),
        _ => node,
    }
}

/// A string literal's body as clang's dump prints it (C escapes, octal for the rest).
fn unescape(body: &str) -> Vec<u8> {
    let bytes = body.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        i += 1;
        if b != b'\\' || i == bytes.len() {
            out.push(b);
            continue;
        }
        let e = bytes[i];
        i += 1;
        match e {
            b'n' => out.push(b'\n'),
            b't' => out.push(b'\t'),
            b'r' => out.push(b'\r'),
            b'a' => out.push(7),
            b'b' => out.push(8),
            b'f' => out.push(12),
            b'v' => out.push(11),
            b'e' => out.push(27),
            b'x' => {
                let mut v = 0u32;
                while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                    v = v * 16 + (bytes[i] as char).to_digit(16).unwrap();
                    i += 1;
                }
                out.push(v as u8);
            }
            b'0'..=b'7' => {
                let mut v = u32::from(e - b'0');
                let mut n = 1;
                while n < 3 && i < bytes.len() && (b'0'..=b'7').contains(&bytes[i]) {
                    v = v * 8 + u32::from(bytes[i] - b'0');
                    i += 1;
                    n += 1;
                }
                out.push(v as u8);
            }
            other => out.push(other),
        }
    }
    out
}

/// A C type (as clang's dump names it, after the default promotions) as LLVM IR spells it on
/// x86_64 Linux.
fn ir_type(ty: Option<&Value>) -> Option<ArgType> {
    let ty = ty?;
    let name = ty
        .get("desugaredQualType")
        .or_else(|| ty.get("qualType"))?
        .as_str()?;
    if let Some(open) = name.find("__attribute__((ext_vector_type(") {
        let rest = &name[open + "__attribute__((ext_vector_type(".len()..];
        let len: u16 = rest[..rest.find(')')?].parse().ok()?;
        let ArgType::Scalar(element) = scalar_type(name[..open].trim())? else {
            return None;
        };
        return Some(ArgType::Vector { len, element });
    }
    scalar_type(name)
}

fn scalar_type(name: &str) -> Option<ArgType> {
    let name = name
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "restrict" | "__restrict"))
        .collect::<Vec<_>>()
        .join(" ");
    if name.contains('*') || name.contains('[') || name.contains('^') || name.contains('(') {
        return Some(ArgType::Scalar(ScalarType::Ptr));
    }
    let int = |bits| Some(ArgType::Scalar(ScalarType::Int(bits)));
    let unsigned = name.strip_prefix("unsigned ").unwrap_or(&name);
    let unsigned = unsigned.strip_prefix("signed ").unwrap_or(unsigned);
    match unsigned {
        "_Bool" | "bool" => int(1),
        "char" | "uchar" => int(8),
        "short" | "ushort" => int(16),
        "int" | "unsigned" | "uint" | "signed" => int(32),
        "long" | "ulong" | "long long" => int(64),
        "__int128" => int(128),
        "half" | "__fp16" | "_Float16" => Some(ArgType::Scalar(ScalarType::Half)),
        "float" => Some(ArgType::Scalar(ScalarType::Float)),
        "double" => Some(ArgType::Scalar(ScalarType::Double)),
        "long double" => Some(ArgType::Scalar(ScalarType::X86Fp80)),
        "nullptr_t" | "id" | "Class" | "SEL" => Some(ArgType::Scalar(ScalarType::Ptr)),
        other if other.starts_with("enum ") => int(32),
        other if other.starts_with("_BitInt(") => {
            int(other["_BitInt(".len()..other.len() - 1].parse().ok()?)
        }
        _ => None,
    }
}
