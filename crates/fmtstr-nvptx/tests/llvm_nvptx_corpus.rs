//! The planner against llc 19 and llc 22 on LLVM 19's own NVPTX tests, and against llc 22 on
//! LLVM 22's (`llvm/test/CodeGen/NVPTX/*.ll` from Debian's source packages, fetched by `cargo
//! xtask llvm-source`), each llc judging the plan made for it (`--llc 19`, `--llc 22`).
//!
//! Each module goes through the struct-args pass, `llc-N -march=nvptx64 -mcpu=sm_90` (and
//! `-mcpu=sm_70` as well when it has atomics, whose instructions depend on the SM), and the
//! plan is compared with llc's PTX, as `fmtstr lower --pass struct-args` then `fmtstr abi
//! --check` do. Every module llc compiles must end in one of two ways: the plan agrees with
//! the PTX, or the plan says what it cannot vouch for (a finding: `fmtstr abi` exits 1). A
//! plan without findings that the PTX contradicts is a confident wrong answer and fails the
//! test, and at least the share of the compiled modules each test names must agree.
//!
//! Modules our IR parser refuses are counted apart ("refused by the parser"), as are modules
//! llc itself rejects (many of LLVM's tests check an error, or need another target).
//!
//! llc's PTX is cached under `target/llvm-nvptx-ptx/`, one file per llc input, named by a
//! hash of the input, the SM and the llc binary, so a warm run only plans and compares.
//! `FMTSTR_CORPUS_FILTER=substring` limits the run to matching file names,
//! `FMTSTR_CORPUS_VERBOSE=1` prints every difference, and `FMTSTR_CORPUS_DIR` reads the
//! modules from another directory (to try a change to one of them).

mod common;

use std::collections::hash_map::DefaultHasher;
use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use fmtstr_ir::Module;
use fmtstr_nvptx::{abi, ptx, struct_args, Config, Llc};
use fmtstr_oracles::{require_llvm, require_llvm_source_of, workspace_root, Llvm, Tool};

/// How one module fared at one SM.
#[derive(Clone, Debug)]
enum Outcome {
    /// Our parser refuses the module (issue 12 extends it to everything llvm-as accepts).
    Refused(String),
    /// llc rejects the module (LLVM's test checks an error, or wants another target).
    NotCompiled,
    /// The plan has no findings and the PTX agrees with it.
    Agrees,
    /// The plan says what it cannot vouch for; the first finding, and whether the PTX
    /// differed anyway.
    NotVouched { finding: String, differs: bool },
    /// The plan has no findings and the PTX contradicts it.
    Silent(Vec<String>),
}

fn cache_dir() -> PathBuf {
    workspace_root().join("target/llvm-nvptx-ptx")
}

/// What identifies the llc binary, so that another llc does not reuse the cache.
fn llc_identity(llc: &Path) -> String {
    let modified = std::fs::metadata(llc)
        .and_then(|m| m.modified())
        .map(|t| format!("{t:?}"))
        .unwrap_or_default();
    format!("{}|{modified}", llc.display())
}

/// llc's PTX for `ir` at `sm`, from the cache or by running llc (failures are cached too).
fn compiled(llc: &Path, identity: &str, ir: &[u8], sm: u32) -> Result<String, String> {
    let mut hasher = DefaultHasher::new();
    identity.hash(&mut hasher);
    sm.hash(&mut hasher);
    ir.hash(&mut hasher);
    let key = format!("{:016x}-sm{sm}", hasher.finish());
    let dir = cache_dir();
    let ok = dir.join(format!("{key}.ptx"));
    let failed = dir.join(format!("{key}.err"));
    if let Ok(text) = std::fs::read_to_string(&ok) {
        return Ok(text);
    }
    if let Ok(text) = std::fs::read_to_string(&failed) {
        return Err(text);
    }
    let result = common::llc(llc, ir, sm);
    let (path, text) = match &result {
        Ok(ptx) => (ok, ptx),
        Err(error) => (failed, error),
    };
    // Written under a temporary name and renamed, so that a reader never sees half a file.
    let temp = dir.join(format!("{key}.{}.tmp", std::process::id()));
    if std::fs::write(&temp, text).is_ok() {
        let _ = std::fs::rename(&temp, &path);
    }
    result
}

/// How one module fared, and in how many of its functions llc optimized the parameter reads
/// (left some out, narrowed or joined them: accepted, and counted for the record).
fn judge(
    llc: &Path,
    version: Llc,
    identity: &str,
    name: &str,
    text: &str,
    sm: u32,
) -> (Outcome, usize) {
    let module = match Module::parse(name, text) {
        Ok(m) => m,
        Err(error) => return (Outcome::Refused(error.to_string()), 0),
    };
    let config = Config {
        sm,
        llc: version,
        ..Config::default()
    };
    let plan = abi::plan(&module, &config);
    // What `fmtstr lower --pass struct-args` writes; a refused module reaches llc as it is
    // (the plan says so in a finding).
    let mut lowered = module.clone();
    let original = module.print();
    let input = match struct_args::run(&mut lowered, &config) {
        Ok(_) => lowered.print(),
        Err(_) => original.clone(),
    };
    let out = match compiled(llc, identity, &input, sm) {
        Ok(out) => out,
        // The pass must never turn a module llc compiles into one it refuses.
        Err(error) if input != original && compiled(llc, identity, &original, sm).is_ok() => {
            let error =
                format!("llc compiles the module but not the struct-args pass's output:\n{error}");
            return (Outcome::Silent(vec![error]), 0);
        }
        Err(_) => return (Outcome::NotCompiled, 0),
    };
    let (differences, counts) = ptx::compare(&plan, &ptx::read(&out));
    let differences: Vec<String> = differences.iter().map(ToString::to_string).collect();
    let outcome = match plan.findings.first() {
        Some(f) => Outcome::NotVouched {
            finding: format!("{}:{}:{}: {}", name, f.line, f.column, f.message),
            differs: !differences.is_empty(),
        },
        None if differences.is_empty() => Outcome::Agrees,
        None => Outcome::Silent(differences),
    };
    (outcome, counts.optimized_reads)
}

#[test]
fn llvm_nvptx_tests_agree_or_say_what_they_cannot_vouch_for() {
    corpus(Llvm::V19, Llvm::V19, Llc::V19, 95);
}

/// LLVM 19's tests judged by llc 22, against `--llc 22` plans (248 of 253 agree when this was
/// written; the rest are findings that hold for llc 19 too, and packed fields llc 22 joins).
#[test]
fn llvm_nvptx_tests_judged_by_llc_22_agree_or_say_what_they_cannot_vouch_for() {
    corpus(Llvm::V19, Llvm::V22, Llc::V22, 98);
}

/// LLVM 22's own NVPTX tests judged by llc 22, against `--llc 22` plans.
#[test]
fn llvm_22_nvptx_tests_judged_by_llc_22_agree_or_say_what_they_cannot_vouch_for() {
    corpus(Llvm::V22, Llvm::V22, Llc::V22, 95);
}

/// Every module of `tree`'s NVPTX tests through `llvm`'s llc, planned for `version`: no
/// silent disagreement, and at least `percent` % of the compiled modules agree.
fn corpus(tree: Llvm, llvm: Llvm, version: Llc, percent: usize) {
    let Some(llc) = require_llvm(llvm, Tool::Llc) else {
        return;
    };
    let Some(source) = require_llvm_source_of(tree) else {
        return;
    };
    let dir = std::env::var_os("FMTSTR_CORPUS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| source.join("llvm/test/CodeGen/NVPTX"));
    let filter = std::env::var("FMTSTR_CORPUS_FILTER").unwrap_or_default();
    let verbose = std::env::var_os("FMTSTR_CORPUS_VERBOSE").is_some();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "ll"))
        .filter(|p| p.to_string_lossy().contains(&filter))
        .collect();
    files.sort();
    assert!(
        filter.is_empty() || !files.is_empty(),
        "no module matches {filter:?}"
    );
    assert!(
        !filter.is_empty() || std::env::var_os("FMTSTR_CORPUS_DIR").is_some() || files.len() > 200,
        "{} holds only {} modules",
        dir.display(),
        files.len()
    );
    std::fs::create_dir_all(cache_dir()).expect("create the PTX cache");
    let identity = llc_identity(&llc);

    // (file, sm) pairs, judged on every core.
    let mut jobs: Vec<(PathBuf, u32)> = Vec::new();
    for path in &files {
        let text = std::fs::read_to_string(path).unwrap_or_default();
        jobs.push((path.clone(), 90));
        if text.contains("atomicrmw") || text.contains("cmpxchg") {
            jobs.push((path.clone(), 70));
        }
    }
    let next = AtomicUsize::new(0);
    let optimized_reads = AtomicUsize::new(0);
    let results: Mutex<BTreeMap<(String, u32), Outcome>> = Mutex::new(BTreeMap::new());
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some((path, sm)) = jobs.get(i) else {
                    break;
                };
                let name = path
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let text = std::fs::read_to_string(path).unwrap_or_default();
                let (outcome, optimized) = judge(&llc, version, &identity, &name, &text, *sm);
                optimized_reads.fetch_add(optimized, Ordering::Relaxed);
                results
                    .lock()
                    .expect("no thread panics holding the lock")
                    .insert((name, *sm), outcome);
            });
        }
    });
    let results = results.into_inner().expect("no thread panicked");

    let (mut refused, mut not_compiled, mut agrees, mut not_vouched, mut silent) =
        (Vec::new(), Vec::new(), 0, Vec::new(), Vec::new());
    let mut vouched_but_differs = 0;
    for ((name, sm), outcome) in &results {
        let case = format!("{name} (sm_{sm})");
        match outcome {
            Outcome::Refused(error) => refused.push(format!("{case}: {error}")),
            Outcome::NotCompiled => not_compiled.push(case),
            Outcome::Agrees => agrees += 1,
            Outcome::NotVouched { finding, differs } => {
                vouched_but_differs += usize::from(*differs);
                not_vouched.push(format!("{case}: {finding}"));
            }
            Outcome::Silent(differences) => {
                let shown = if verbose { differences.len() } else { 3 };
                silent.push(format!(
                    "{case}: {} differences\n    {}",
                    differences.len(),
                    differences
                        .iter()
                        .take(shown)
                        .map(|d| d.replace('\n', "\n    "))
                        .collect::<Vec<_>>()
                        .join("\n    ")
                ));
            }
        }
    }
    let compiled = agrees + not_vouched.len() + silent.len();
    eprintln!(
        "{version}: {} modules, {} cases (sm_90, and sm_70 for atomics): {} refused by the parser (issue 12), {} not compiled by llc, {} compiled: {} agree, {} not vouched ({} of them differ), {} silent disagreements; {} functions whose parameter reads llc optimized",
        files.len(),
        results.len(),
        refused.len(),
        not_compiled.len(),
        compiled,
        agrees,
        not_vouched.len(),
        vouched_but_differs,
        silent.len(),
        optimized_reads.load(Ordering::Relaxed)
    );
    if !not_compiled.is_empty() {
        eprintln!("not compiled by llc: {}", not_compiled.join(", "));
    }
    for r in &refused {
        eprintln!("refused by the parser (issue 12): {r}");
    }
    for n in &not_vouched {
        eprintln!("not vouched: {n}");
    }
    for s in &silent {
        eprintln!("SILENT: {s}");
    }
    assert!(
        silent.is_empty(),
        "{} modules where the plan has no findings and llc's PTX differs",
        silent.len()
    );
    assert!(compiled > 0, "llc compiled no module");
    assert!(
        agrees * 100 >= compiled * percent,
        "{version}: {agrees} of {compiled} compiled modules agree: less than {percent}%"
    );
}
