//! LLVM's own test modules, LLVM 19's and LLVM 22's (`cargo xtask corpus --llvm-tests` judges
//! each release's with its own llvm-as and caches the verdicts in `target/corpus-llvm/`, see
//! `fmtstr_oracles::llvm_verdicts_file`): every module llvm-as accepts must print back
//! byte-identical, and no module, accepted or not, may panic the parser.
//!
//! The files are read from the test trees `cargo xtask llvm-source` unpacked; they are parsed on
//! every core.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use fmtstr_ir::Module;
use fmtstr_oracles::Llvm;

/// Accepted modules that may fail to round-trip, and why, per release. Each entry is a path
/// relative to `llvm/test`. Keep them empty unless a construct truly cannot be carried.
const ALLOWED_FAILURES_19: &[(&str, &str)] = &[];
const ALLOWED_FAILURES_22: &[(&str, &str)] = &[];

struct Verdict {
    path: String,
    hash: u64,
    accepted: bool,
}

fn verdicts(llvm: Llvm) -> Option<(PathBuf, Vec<Verdict>)> {
    let source = fmtstr_oracles::require_llvm_source_of(llvm)?;
    let file = fmtstr_oracles::llvm_verdicts_file(llvm);
    let Ok(text) = std::fs::read_to_string(&file) else {
        let message = format!(
            "no llvm-as-{} verdicts in {}: run `cargo xtask corpus --llvm-tests`",
            llvm.major(),
            file.display()
        );
        if fmtstr_oracles::in_ci() {
            panic!("{message} (CI=true: the corpus tests must not skip)");
        }
        eprintln!("skipping: {message}");
        return None;
    };
    let verdicts = text
        .lines()
        .map(|line| {
            let mut fields = line.splitn(3, '\t');
            let (Some(hash), Some(verdict), Some(path)) =
                (fields.next(), fields.next(), fields.next())
            else {
                panic!("{}: bad line {line:?}", file.display());
            };
            Verdict {
                path: path.to_owned(),
                hash: u64::from_str_radix(hash, 16).expect("hex hash"),
                accepted: verdict == "accepted",
            }
        })
        .collect();
    Some((source.join("llvm/test"), verdicts))
}

enum Outcome {
    Identical,
    Different(String),
    Refused(String),
    Panicked(String),
}

fn round_trip(path: &Path) -> (u64, Outcome) {
    let text = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let hash = xxh3(&text);
    let name = path.display().to_string();
    let outcome = match std::panic::catch_unwind(|| {
        Module::parse(&name, text.clone()).map(|m| {
            let sparse = common::sparse_reading_agrees(&name, &text, &m);
            (m.print(), sparse)
        })
    }) {
        Ok(_) if common::metadata_readings_agree(&name, &text).is_err() => Outcome::Different(
            "reading metadata definitions from bytes and token by token disagree".into(),
        ),
        Ok(Ok((_, Err(why)))) => Outcome::Different(format!("sparse parse: {why}")),
        Ok(Ok((printed, Ok(())))) if printed == text => Outcome::Identical,
        Ok(Ok((printed, Ok(())))) => Outcome::Different(first_difference(&text, &printed)),
        Ok(Err(e)) => Outcome::Refused(e.to_string()),
        Err(panic) => Outcome::Panicked(
            panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default(),
        ),
    };
    (hash, outcome)
}

/// The hash xtask keys verdicts by (XXH3-64), to notice a test tree that changed under them.
fn xxh3(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

fn first_difference(a: &[u8], b: &[u8]) -> String {
    let at = a
        .iter()
        .zip(b)
        .position(|(x, y)| x != y)
        .unwrap_or(a.len().min(b.len()));
    let line = a[..at].iter().filter(|&&c| c == b'\n').count() + 1;
    let show = |t: &[u8]| {
        let start = t[..at.min(t.len())]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1);
        let end = t[start..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(t.len(), |i| start + i);
        String::from_utf8_lossy(&t[start..end]).into_owned()
    };
    format!(
        "printed differently at line {line}:\n  expected: {}\n  printed:  {}",
        show(a),
        show(b)
    )
}

/// The directory a file is counted under: `Transforms/InstCombine`, `CodeGen/NVPTX`, `Assembler`.
fn group(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    match parts.as_slice() {
        ["Transforms", "InstCombine", ..] => "Transforms/InstCombine".into(),
        ["CodeGen", target, ..] => format!("CodeGen/{target}"),
        ["Transforms", ..] => "Transforms (sample)".into(),
        [first, ..] => (*first).into(),
        [] => String::new(),
    }
}

#[test]
fn every_module_llvm_as_accepts_round_trips_byte_identical() {
    round_trips(Llvm::V19, ALLOWED_FAILURES_19);
}

#[test]
fn every_module_llvm_as_22_accepts_round_trips_byte_identical() {
    round_trips(Llvm::V22, ALLOWED_FAILURES_22);
}

/// The release's accepted modules round-trip byte-identical (but `allowed`), and none panics.
fn round_trips(llvm: Llvm, allowed_failures: &[(&str, &str)]) {
    let Some((tests, verdicts)) = verdicts(llvm) else {
        return;
    };
    // Quiet the default hook: a panic is reported as a failure with its file.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let next = AtomicUsize::new(0);
    let results = Mutex::new(Vec::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(verdict) = verdicts.get(i) else {
                    break;
                };
                let result = round_trip(&tests.join(&verdict.path));
                results.lock().unwrap().push((i, result));
            });
        }
    });
    std::panic::set_hook(hook);
    let mut results = results.into_inner().unwrap();
    results.sort_by_key(|(i, _)| *i);

    // Per directory: accepted, identical; rejected, refused.
    let mut counts: BTreeMap<String, [usize; 4]> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut stale = Vec::new();
    for (i, (hash, outcome)) in &results {
        let verdict = &verdicts[*i];
        if *hash != verdict.hash {
            stale.push(verdict.path.clone());
            continue;
        }
        let count = counts.entry(group(&verdict.path)).or_default();
        let allowed = allowed_failures.iter().any(|(p, _)| *p == verdict.path);
        match outcome {
            Outcome::Panicked(message) => {
                failures.push(format!("{}: PANIC: {message}", verdict.path))
            }
            _ if !verdict.accepted => {
                count[2] += 1;
                count[3] += usize::from(matches!(outcome, Outcome::Refused(_)));
            }
            Outcome::Identical => {
                count[0] += 1;
                count[1] += 1;
            }
            Outcome::Different(why) | Outcome::Refused(why) => {
                count[0] += 1;
                if !allowed {
                    failures.push(format!("{}: {why}", verdict.path));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "{llvm}: the llvm-as verdicts are stale for {} files (first: {}): run `cargo xtask corpus --llvm-tests`",
        stale.len(),
        stale[0]
    );
    let mut total = [0; 4];
    eprintln!(
        "{llvm}: directory: accepted by llvm-as-{}, round-trip byte-identical; rejected by \
         llvm-as, refused by fmtstr",
        llvm.major()
    );
    for (dir, count) in &counts {
        eprintln!(
            "  {dir}: {} accepted, {} identical; {} rejected, {} refused",
            count[0], count[1], count[2], count[3]
        );
        for (t, c) in total.iter_mut().zip(count) {
            *t += c;
        }
    }
    eprintln!(
        "  total: {} accepted, {} identical; {} rejected, {} refused",
        total[0], total[1], total[2], total[3]
    );
    assert!(
        failures.is_empty(),
        "{llvm}: {} of {} accepted modules fail:\n{}",
        failures.len(),
        total[0],
        failures.join("\n")
    );
    assert!(total[0] > 1000, "only {} accepted modules", total[0]);
}
