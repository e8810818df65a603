//! Shared by the integration tests: lowering texts, and the real tools that judge the output.
//!
//! Every module a test lowers goes through [`lower_ok`], which also hands it to `llvm-as`: the
//! issue's first oracle rule, "every output of every test is accepted by llvm-as".
//!
//! The helpers without a release in their name ([`assert_llvm_as`], [`llc_ptx`],
//! [`llc_amdpal`]) judge under LLVM 19 and LLVM 22 alike: llvm-as of both must accept the text,
//! and llc-22 must compile what llc-19 compiles (its PTX through ptxas too, where ptxas is
//! installed); what they return (PTX, an object, assembly) is llc-19's, which the tests read.
//! The `_with` forms name one release.

#![allow(dead_code)] // each test binary uses a different part

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use fmtstr_ir::Module;
use fmtstr_lower::{lower, Diagnostic, Failed, Lowered, Options, Target};
use fmtstr_oracles::{require, require_llvm, Llvm, Tool};

/// The workspace's `samples/lower/NAME`.
pub fn sample(name: &str) -> PathBuf {
    fmtstr_oracles::workspace_root()
        .join("samples/lower")
        .join(name)
}

/// The text of `samples/lower/NAME`.
pub fn sample_text(name: &str) -> String {
    std::fs::read_to_string(sample(name)).unwrap()
}

/// Lowers a module that must lower; checks the output with llvm-as.
#[track_caller]
pub fn lower_ok(name: &str, text: &str, options: Options) -> (String, Lowered) {
    let mut module = Module::parse(name, text).unwrap();
    let lowered = match lower(&mut module, &options) {
        Ok(lowered) => lowered,
        Err(failed) => panic!("{name} does not lower:\n{}", show(&failed.diagnostics)),
    };
    let out = String::from_utf8(module.print()).unwrap();
    assert_llvm_as(name, &out);
    (out, lowered)
}

/// Lowers with default options for `target`.
#[track_caller]
pub fn lower_for(name: &str, text: &str, target: Target) -> String {
    lower_ok(name, text, Options::new(target)).0
}

/// Lowers a module that must fail; the module must be unchanged.
#[track_caller]
pub fn lower_err(name: &str, text: &str, options: Options) -> Failed {
    let mut module = Module::parse(name, text).unwrap();
    match lower(&mut module, &options) {
        Ok(_) => panic!("{name} lowered, but an error was expected"),
        Err(failed) => {
            assert_eq!(
                String::from_utf8(module.print()).unwrap(),
                text,
                "a failed lowering changed the module"
            );
            failed
        }
    }
}

/// Every diagnostic, one per paragraph.
pub fn show(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// llvm-as-19 and llvm-as-22 must accept the text (skipped without the tools outside CI).
#[track_caller]
pub fn assert_llvm_as(name: &str, text: &str) {
    for llvm in Llvm::ALL {
        assert_llvm_as_with(llvm, name, text);
    }
}

/// That release's llvm-as must accept the text (skipped without the tool outside CI).
#[track_caller]
pub fn assert_llvm_as_with(llvm: Llvm, name: &str, text: &str) {
    let Some(llvm_as) = require_llvm(llvm, Tool::LlvmAs) else {
        return;
    };
    let output = run_with_input(Command::new(llvm_as).args(["-", "-o", "/dev/null"]), text);
    assert!(
        output.status.success(),
        "llvm-as of {llvm} rejects the output of {name}:\n{}\n{text}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// Runs a command with `input` on stdin.
pub fn run_with_input(command: &mut Command, input: &str) -> std::process::Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the tool starts");
    let mut stdin = child.stdin.take().unwrap();
    let input = input.as_bytes().to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    let _ = writer.join();
    output
}

/// Runs a command that must succeed; returns its stdout.
#[track_caller]
pub fn run_ok(command: &mut Command) -> Vec<u8> {
    let output = command.output().expect("the tool starts");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// `clang-19 -x c -O1 -fno-builtin-printf -S -emit-llvm` of a C file for a target triple
/// (`nvptx64-nvidia-cuda`, `amdgcn-amd-amdpal`).
pub fn clang_ir(source: &Path, triple: &str) -> Option<String> {
    clang_ir_with(Llvm::V19, source, triple)
}

/// [`clang_ir`] with that release's clang.
pub fn clang_ir_with(llvm: Llvm, source: &Path, triple: &str) -> Option<String> {
    let clang = require_llvm(llvm, Tool::Clang)?;
    let mut command = Command::new(clang);
    command.arg(format!("--target={triple}"));
    if triple.starts_with("amdgcn") {
        command.arg("-mcpu=gfx1100");
    }
    command
        .args([
            "-x",
            "c",
            "-O1",
            "-fno-builtin-printf",
            "-S",
            "-emit-llvm",
            "-o",
            "-",
        ])
        .arg(source);
    Some(String::from_utf8(run_ok(&mut command)).unwrap())
}

/// `llc-19 -march=nvptx64 -mcpu=sm_90` of a module: its PTX. llc-22 must compile the module
/// too, and ptxas (where installed) assemble llc-22's PTX.
#[track_caller]
pub fn llc_ptx(name: &str, text: &str) -> Option<String> {
    let ptx = llc_ptx_with(Llvm::V19, name, text)?;
    if let Some(newer) = llc_ptx_with(Llvm::V22, name, text) {
        if fmtstr_oracles::find(Tool::Ptxas).is_some() {
            assert_ptxas(&format!("{name} (llc-22)"), &newer);
        }
    }
    Some(ptx)
}

/// [`llc_ptx`] with that release's llc.
#[track_caller]
pub fn llc_ptx_with(llvm: Llvm, name: &str, text: &str) -> Option<String> {
    let llc = require_llvm(llvm, Tool::Llc)?;
    let output = run_with_input(
        Command::new(llc).args(["-march=nvptx64", "-mcpu=sm_90", "-", "-o", "-"]),
        text,
    );
    assert!(
        output.status.success(),
        "llc -march=nvptx64 of {llvm} rejects the output of {name}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(String::from_utf8(output.stdout).unwrap())
}

/// `ptxas -arch=sm_90` must assemble the PTX.
#[track_caller]
pub fn assert_ptxas(name: &str, ptx: &str) {
    let Some(ptxas) = require(Tool::Ptxas) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("in.ptx");
    std::fs::write(&path, ptx).unwrap();
    let output = Command::new(ptxas)
        .args(["-arch=sm_90", "-o", "/dev/null"])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "ptxas rejects the PTX of {name}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

/// llc-19 for AMD PAL (gfx1100): the object file, or with `asm` the assembly. llc-22 must
/// compile the module too.
#[track_caller]
pub fn llc_amdpal(name: &str, text: &str, asm: bool) -> Option<Vec<u8>> {
    let out = llc_amdpal_with(Llvm::V19, name, text, asm)?;
    llc_amdpal_with(Llvm::V22, name, text, asm);
    Some(out)
}

/// [`llc_amdpal`] with that release's llc.
#[track_caller]
pub fn llc_amdpal_with(llvm: Llvm, name: &str, text: &str, asm: bool) -> Option<Vec<u8>> {
    let llc = require_llvm(llvm, Tool::Llc)?;
    let output = run_with_input(
        Command::new(llc)
            .args(["-mtriple=amdgcn--amdpal", "-mcpu=gfx1100"])
            .arg(if asm {
                "-filetype=asm"
            } else {
                "-filetype=obj"
            })
            .args(["-", "-o", "-"]),
        text,
    );
    assert!(
        output.status.success(),
        "llc -mtriple=amdgcn--amdpal of {llvm} rejects the output of {name}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    Some(output.stdout)
}

/// What PTX shows of the vprintf calls of each function.
pub mod ptx {
    use std::collections::BTreeMap;

    /// One vprintf call: the stores into the buffer since the previous call, as sorted
    /// (offset, width) pairs (vector stores split into their elements), and whether the
    /// buffer argument is a literal null.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct Call {
        pub stores: Vec<(u64, u64)>,
        pub null: bool,
    }

    /// One function: its local depot's size (the buffer's extent) and its vprintf calls.
    #[derive(Clone, Debug, Default, PartialEq, Eq)]
    pub struct Function {
        pub depot: Option<u64>,
        pub calls: Vec<Call>,
    }

    /// Reads the functions of a PTX file, by name.
    ///
    /// A store counts when its address register was set from the stack pointer (`%SPL`
    /// local, or `%SP` generic) plus a constant: `add.u64 %rd3, %SPL, 16;` then
    /// `st.local.v2.u32 [%rd3+8], {...}` is two 4-byte stores at 24 and 28. It reads the PTX of
    /// nvcc, llc-19 and llc-22 alike.
    pub fn functions(text: &str) -> BTreeMap<String, Function> {
        let mut functions = BTreeMap::new();
        let mut current: Option<String> = None;
        let mut bases: BTreeMap<String, u64> = BTreeMap::new();
        let mut stores: Vec<(u64, u64)> = Vec::new();
        let mut null = false;
        for line in text.lines() {
            let line = line.split("//").next().unwrap_or("").trim();
            if let Some(name) = function_name(line) {
                current = Some(name.clone());
                functions.insert(name, Function::default());
                bases.clear();
                stores.clear();
                continue;
            }
            let Some(function) = current.as_ref().and_then(|n| functions.get_mut(n)) else {
                continue;
            };
            if let Some(rest) = line.strip_prefix(".local .align ") {
                // `.local .align 8 .b8 	__local_depot0[32];`
                if let Some(size) = rest.split_once('[').and_then(|(_, s)| s.strip_suffix("];")) {
                    function.depot = size.parse().ok();
                }
            } else if let Some((register, offset)) = base(line) {
                bases.insert(register, offset);
            } else if let Some(found) = store(line, &bases) {
                stores.extend(found);
            } else if line.starts_with("st.param.")
                && (line.contains("[param1+0]") || line.contains("[param1]"))
            {
                null = words(line.trim_end_matches(';')).last() == Some(&"0");
            } else if is_vprintf_call(line) {
                stores.sort_unstable();
                function.calls.push(Call {
                    stores: std::mem::take(&mut stores),
                    null,
                });
            }
        }
        functions
    }

    /// The line of a vprintf call that names the callee. llc-19 (and nvcc) write the call
    /// over several lines, the callee alone on one (`vprintf, `); llc-22 writes it on one line
    /// (`call.uni (retval0), vprintf, (param0, param1);`) and addresses a parameter as
    /// `[param1]` where llc-19 wrote `[param1+0]`.
    fn is_vprintf_call(line: &str) -> bool {
        line == "vprintf,"
            || (line.starts_with("call") && words(line.trim_end_matches(';')).contains(&"vprintf"))
    }

    fn words(line: &str) -> Vec<&str> {
        line.split(|c: char| c.is_whitespace() || c == ',')
            .filter(|w| !w.is_empty())
            .collect()
    }

    fn function_name(line: &str) -> Option<String> {
        let rest = line
            .strip_prefix(".visible ")
            .or_else(|| line.strip_prefix(".weak "))
            .unwrap_or(line);
        let rest = rest
            .strip_prefix(".entry ")
            .or_else(|| rest.strip_prefix(".func "))?;
        // `.func  (.param .b32 func_retval0) name(`
        let rest = match rest.trim_start().strip_prefix('(') {
            Some(after) => after.split_once(')')?.1.trim_start(),
            None => rest.trim_start(),
        };
        // `k(` when parameters follow, `k()` without.
        let name = rest.strip_suffix("()").or_else(|| rest.strip_suffix('('))?;
        (!name.is_empty() && !name.contains(' ')).then(|| name.to_owned())
    }

    /// `add.u64 %rd2, %SPL, 0;` / `mov.u64 %rd2, %SPL;`
    fn base(line: &str) -> Option<(String, u64)> {
        let w = words(line.trim_end_matches(';'));
        match w.as_slice() {
            [op, dst, "%SPL" | "%SP", offset] if op.starts_with("add.") => {
                Some((dst.to_string(), offset.parse().ok()?))
            }
            [op, dst, "%SPL" | "%SP"] if op.starts_with("mov.") => Some((dst.to_string(), 0)),
            _ => None,
        }
    }

    /// `st.local.v2.u32 [%rd3+8], {%r1, %r2};`
    fn store(line: &str, bases: &BTreeMap<String, u64>) -> Option<Vec<(u64, u64)>> {
        let (op, rest) = line.split_once(|c: char| c.is_whitespace())?;
        let parts: Vec<&str> = op.split('.').collect();
        if parts.first() != Some(&"st") || parts.get(1) == Some(&"param") {
            return None;
        }
        let count: u64 = parts
            .iter()
            .find_map(|p| p.strip_prefix('v').and_then(|n| n.parse().ok()))
            .unwrap_or(1);
        let bits: u64 = parts.last()?.get(1..)?.parse().ok()?;
        let address = rest.trim().strip_prefix('[')?.split_once(']')?.0;
        let (register, offset) = match address.split_once('+') {
            Some((r, o)) => (r, o.parse::<u64>().ok()?),
            None => (address, 0),
        };
        let start = match register {
            "%SPL" | "%SP" => 0,
            r => *bases.get(r)?,
        } + offset;
        let width = bits / 8;
        Some((0..count).map(|i| (start + i * width, width)).collect())
    }
}
