//! Shared by the oracle tests: the module generator, llc, and the comparison of a plan with
//! the PTX llc writes.

#![allow(dead_code)]

pub mod gen;

use std::collections::HashMap;
use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use fmtstr_nvptx::abi::{AccessPlan, Plan};
use fmtstr_nvptx::ptx::PtxFunction;

/// Runs a tool on `input` through stdin; returns stdout, or stderr as the error.
pub fn pipe(tool: &Path, args: &[&str], input: &[u8]) -> Result<String, String> {
    let mut child = Command::new(tool)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot run {}: {e}", tool.display()))?;
    let mut stdin = child.stdin.take().expect("stdin");
    let data = input.to_vec();
    let writer = std::thread::spawn(move || stdin.write_all(&data));
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    let _ = writer.join();
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// `llc-19 -march=nvptx64 -mcpu=sm_90` on IR text.
pub fn llc(llc: &Path, ir: &[u8], sm: u32) -> Result<String, String> {
    let cpu = format!("-mcpu=sm_{sm}");
    pipe(llc, &["-march=nvptx64", &cpu, "-o", "-", "-"], ir)
}

/// What only `a` has and what only `b` has, as multisets.
fn difference<T: Ord + Clone + std::fmt::Debug>(a: &[T], b: &[T]) -> String {
    let (mut a, mut b) = (sorted(a), sorted(b));
    let mut only_a = Vec::new();
    let mut only_b = Vec::new();
    while let Some(x) = a.pop() {
        match b.iter().position(|y| *y == x) {
            Some(i) => {
                b.remove(i);
            }
            None => only_a.push(x),
        }
    }
    only_b.append(&mut b);
    only_a.reverse();
    format!("\n  only llc:  {only_a:?}\n  only plan: {only_b:?}")
}

fn sorted<T: Ord + Clone>(v: &[T]) -> Vec<T> {
    let mut v = v.to_vec();
    v.sort();
    v
}

/// What was compared, for the test's counts.
#[derive(Debug, Default)]
pub struct Counts {
    pub functions: usize,
    pub declarations: usize,
    pub calls: usize,
    pub accesses: usize,
    pub atomics: usize,
}

/// Compares a plan with llc's PTX; returns every difference.
pub fn compare(plan: &Plan, ptx: &[PtxFunction], counts: &mut Counts) -> Vec<String> {
    let mut errors = Vec::new();
    let by_name: HashMap<&str, &PtxFunction> = ptx.iter().map(|f| (f.name.as_str(), f)).collect();
    let planned: std::collections::HashSet<&str> = plan
        .functions
        .iter()
        .filter(|f| f.emitted)
        .map(|f| f.ptx_name.as_str())
        .collect();
    for f in ptx {
        if !planned.contains(f.name.as_str()) {
            errors.push(format!("{}: in the PTX but not planned", f.name));
        }
    }
    for f in &plan.functions {
        let Some(p) = by_name.get(f.ptx_name.as_str()) else {
            if f.emitted {
                errors.push(format!("{}: planned but not in the PTX", f.ptx_name));
            }
            continue;
        };
        let name = &f.ptx_name;
        if f.definition {
            counts.functions += 1;
        } else {
            counts.declarations += 1;
        }
        if p.directive != f.directive {
            errors.push(format!(
                "{name}: directive {:?}, planned {:?}",
                p.directive, f.directive
            ));
        }
        if p.return_declaration != f.return_declaration {
            errors.push(format!(
                "{name}: return {:?}, planned {:?}",
                p.return_declaration, f.return_declaration
            ));
        }
        let planned_params: Vec<String> = f.params.iter().map(|p| p.declaration.clone()).collect();
        if p.params != planned_params {
            errors.push(format!(
                "{name}: params\n  llc:  {:?}\n  plan: {:?}",
                p.params, planned_params
            ));
        }
        if !f.definition {
            continue;
        }
        // Formal parameter reads (parameters with a prediction).
        let predicted: Vec<&str> = f
            .params
            .iter()
            .filter(|p| p.reads.is_some() && !p.vararg_buffer)
            .map(|p| p.name.as_str())
            .collect();
        let mut want: Vec<(String, AccessPlan)> = Vec::new();
        for param in &f.params {
            if let (Some(reads), false) = (&param.reads, param.vararg_buffer) {
                want.extend(reads.iter().map(|r| (param.name.clone(), *r)));
            }
        }
        let got: Vec<(String, AccessPlan)> = p
            .reads
            .iter()
            .filter(|(n, _)| predicted.contains(&n.as_str()))
            .cloned()
            .collect();
        counts.accesses += want.len();
        if sorted(&want) != sorted(&got) {
            let types: Vec<String> = f
                .params
                .iter()
                .map(|p| format!("{}: {}", p.name, p.ir_type))
                .collect();
            errors.push(format!(
                "{name}: ld.param reads {types:?}{}",
                difference(&got, &want)
            ));
        }
        let want_ret: Vec<AccessPlan> = f.returns.iter().flat_map(|r| r.stores.clone()).collect();
        counts.accesses += want_ret.len();
        if sorted(&want_ret) != sorted(&p.return_stores) {
            errors.push(format!(
                "{name}: st.param func_retval0\n  llc:  {:?}\n  plan: {:?}",
                sorted(&p.return_stores),
                sorted(&want_ret)
            ));
        }
        // Calls.
        if p.calls.len() != f.calls.len() {
            errors.push(format!(
                "{name}: {} calls in the PTX, {} planned",
                p.calls.len(),
                f.calls.len()
            ));
        }
        for (c, pc) in f.calls.iter().zip(&p.calls) {
            counts.calls += 1;
            let at = format!("{name}: call at line {} (callseq {})", c.line, c.seq);
            if c.seq != pc.seq {
                errors.push(format!("{at}: llc numbers it {}", pc.seq));
            }
            let decls: Vec<String> = c.args.iter().map(|a| a.declaration.clone()).collect();
            if decls != pc.params {
                errors.push(format!(
                    "{at}: params\n  llc:  {:?}\n  plan: {:?}",
                    pc.params, decls
                ));
            }
            let mut want: Vec<(String, AccessPlan)> = Vec::new();
            for a in &c.args {
                want.extend(a.stores.iter().map(|s| (a.name.clone(), *s)));
            }
            counts.accesses += want.len() + c.return_loads.len();
            if sorted(&want) != sorted(&pc.stores) {
                errors.push(format!(
                    "{at}: st.param\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&pc.stores),
                    sorted(&want)
                ));
            }
            if c.return_declaration != pc.return_declaration {
                errors.push(format!(
                    "{at}: retval {:?}, planned {:?}",
                    pc.return_declaration, c.return_declaration
                ));
            }
            if sorted(&c.return_loads) != sorted(&pc.return_loads) {
                errors.push(format!(
                    "{at}: ld.param retval0\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&pc.return_loads),
                    sorted(&c.return_loads)
                ));
            }
            if c.callee.name != pc.callee {
                errors.push(format!(
                    "{at}: callee {:?}, planned {:?}",
                    pc.callee, c.callee.name
                ));
            }
            if c.callee.prototype != pc.prototype {
                errors.push(format!(
                    "{at}: prototype\n  llc:  {:?}\n  plan: {:?}",
                    pc.prototype, c.callee.prototype
                ));
            }
        }
        let want_atoms: Vec<String> = f
            .atomics
            .iter()
            .filter_map(|a| a.mnemonic.clone())
            .collect();
        counts.atomics += want_atoms.len();
        if sorted(&want_atoms) != sorted(&p.atomics) {
            errors.push(format!(
                "{name}: atomics\n  llc:  {:?}\n  plan: {:?}",
                sorted(&p.atomics),
                sorted(&want_atoms)
            ));
        }
    }
    errors
}
