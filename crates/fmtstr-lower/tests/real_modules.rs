//! The NVPTX lowering on what C++ and Rust compilers write: the corpus's clang++-19 modules
//! (`target/corpus/cpp-*`: exceptions, templates, classes, debug info) and rustc's
//! (`target/corpus-rust`), built by `cargo xtask corpus`.
//!
//! A module without printf calls must come back byte for byte. A module with them must lower
//! to text that llvm-as accepts (when it accepts the input: rustc's LLVM may be newer) and that
//! llc compiles for the module's own target (PTX through ptxas for nvptx64), or be refused
//! with one of the diagnostics of [`KNOWN_REFUSALS`], leaving the module unchanged. Each
//! lowered module is judged by LLVM 19 and by LLVM 22 (the corpus is a few dozen modules, so
//! both judge all of them); LLVM 22 also reads the modules of a rustc newer than 19.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use fmtstr_ir::Module;
use fmtstr_lower::{lower, Options, Target};
use fmtstr_oracles::{require_llvm, Llvm, Tool};

/// Refusals that real modules meet, and why they are right.
const KNOWN_REFUSALS: &[(&str, &str)] = &[
    (
        "printf reached through `invoke` cannot be lowered",
        "C++ calls printf with `invoke` where it may throw (glibc's printf is not noexcept); \
         the rewrite replaces calls, not terminators",
    ),
    (
        "The first argument for printf must be a string literal",
        "rustc -O0 passes the format through a call (`CStr::as_ptr`): not a constant",
    ),
];

fn corpus_files() -> Option<Vec<PathBuf>> {
    let root = fmtstr_oracles::workspace_root().join("target");
    let mut files = Vec::new();
    for dir in ["corpus/cpp-x86_64", "corpus/cpp-nvptx64", "corpus-rust"] {
        if let Ok(entries) = std::fs::read_dir(root.join(dir)) {
            files.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|e| e == "ll")),
            );
        }
    }
    files.sort();
    if files.is_empty() {
        let message = "no C++ or Rust corpus in target/: run `cargo xtask corpus`";
        assert!(
            !fmtstr_oracles::in_ci(),
            "{message} (CI=true: must not skip)"
        );
        eprintln!("skipping: {message}");
        return None;
    }
    Some(files)
}

fn short(path: &Path) -> String {
    let parent = path.parent().and_then(Path::file_name).unwrap_or_default();
    format!(
        "{}/{}",
        parent.to_string_lossy(),
        path.file_name().unwrap_or_default().to_string_lossy()
    )
}

fn llvm_as_accepts(llvm: Llvm, text: &str) -> Option<bool> {
    let llvm_as = require_llvm(llvm, Tool::LlvmAs)?;
    let output = common::run_with_input(Command::new(llvm_as).args(["-", "-o", "/dev/null"]), text);
    Some(output.status.success())
}

/// That release's llc for the module's own triple must compile it.
fn assert_llc_host(llvm: Llvm, name: &str, text: &str) {
    let Some(llc) = require_llvm(llvm, Tool::Llc) else {
        return;
    };
    let output = common::run_with_input(
        Command::new(llc).args(["-O1", "-filetype=obj", "-", "-o", "/dev/null"]),
        text,
    );
    assert!(
        output.status.success(),
        "llc of {llvm} rejects the lowered {name}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn cpp_and_rust_modules_lower_or_are_refused_clearly() {
    let Some(files) = corpus_files() else {
        return;
    };
    let (mut unchanged, mut lowered, mut refused) = (0, 0, 0);
    // How many lowered modules each release judged (LLVM 19, LLVM 22).
    let mut judged = [0; Llvm::ALL.len()];
    for path in &files {
        let name = short(path);
        let text = std::fs::read_to_string(path).unwrap();
        let mut module = Module::parse(&name, text.as_str()).unwrap_or_else(|e| panic!("{e}"));
        match lower(&mut module, &Options::new(Target::nvptx())) {
            Ok(done) if done.calls == 0 => {
                assert_eq!(module.print(), text.as_bytes(), "{name} changed");
                unchanged += 1;
            }
            Ok(_) => {
                let out = String::from_utf8(module.print()).unwrap();
                assert!(out.contains("@vprintf("), "{name}: no vprintf call");
                for (llvm, judged) in Llvm::ALL.into_iter().zip(&mut judged) {
                    if llvm_as_accepts(llvm, &text) != Some(true) {
                        continue;
                    }
                    common::assert_llvm_as_with(llvm, &name, &out);
                    if text.contains("target triple = \"nvptx64") {
                        if let Some(ptx) = common::llc_ptx_with(llvm, &name, &out) {
                            common::assert_ptxas(&name, &ptx);
                        }
                    } else {
                        assert_llc_host(llvm, &name, &out);
                    }
                    *judged += 1;
                }
                lowered += 1;
            }
            Err(failed) => {
                assert_eq!(
                    module.print(),
                    text.as_bytes(),
                    "{name}: a refusal changed it"
                );
                for d in failed.diagnostics.iter().filter(|d| d.is_error()) {
                    let text = d.to_string();
                    assert!(
                        KNOWN_REFUSALS.iter().any(|(known, _)| text.contains(known)),
                        "{name}: unexpected refusal:\n{text}"
                    );
                }
                refused += 1;
            }
        }
    }
    eprintln!(
        "{} modules: {unchanged} without printf unchanged, {lowered} lowered, {refused} refused",
        files.len()
    );
    for (llvm, judged) in Llvm::ALL.into_iter().zip(judged) {
        eprintln!("{llvm} judged {judged} lowered modules");
    }
    assert!(
        unchanged > 0 && lowered > 0,
        "the corpus lacks a kind of module"
    );
}

/// The CLI parses only the lines that name printf (and those that use their results), and
/// keeps the rest as text: on every corpus module that must lower, or be refused, exactly as
/// the whole module does.
#[test]
fn a_sparse_parse_lowers_as_the_whole_module() {
    let Some(files) = corpus_files() else {
        return;
    };
    let options = Options::new(Target::nvptx());
    let mut with_calls = 0;
    for path in &files {
        let name = short(path);
        let text = std::fs::read(path).unwrap();
        let mut whole = Module::parse(&name, text.as_slice()).unwrap();
        let expected = lower(&mut whole, &options);
        let mut shards =
            Module::parse_shards_where(&name, text.as_slice(), 2, &fmtstr_lower::printf_filter())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        let lowered = fmtstr_lower::lower_shards(&mut shards, &options);
        let outcome = |r: &Result<fmtstr_lower::Lowered, fmtstr_lower::Failed>| match r {
            Ok(done) => format!("{} calls\n{}", done.calls, common::show(&done.warnings)),
            Err(failed) => format!("refused\n{}", common::show(&failed.diagnostics)),
        };
        assert_eq!(outcome(&lowered), outcome(&expected), "{name}");
        let mut printed = Vec::new();
        Module::write_shards(&shards, &mut printed).unwrap();
        assert!(
            printed == whole.print(),
            "{name}: the sparse parse lowers to other text"
        );
        with_calls += usize::from(expected.is_ok_and(|done| done.calls > 0));
    }
    assert!(with_calls > 0, "no module calls printf");
}
