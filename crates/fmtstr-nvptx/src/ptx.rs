//! Reading llc's PTX back into the plan's shapes, to compare a plan with what llc wrote.
//!
//! Input: the PTX text `llc -march=nvptx64` prints. Output: per function its directive,
//! `.param` declarations, the `ld.param` reads of its own parameters, the `st.param` stores
//! to `func_retval0`, every call block (`{ // callseq N, 0` ... `}`) with its declarations,
//! stores, callee or prototype and result loads, and the `atom` mnemonics. Only the lines
//! these need are read; anything else is skipped.

use std::collections::{HashMap, HashSet};

use crate::abi::{AccessPlan, Plan};

/// One function of a PTX module.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxFunction {
    /// The symbol.
    pub name: String,
    /// `.visible .entry`, `.visible .func`, `.func`, `.extern .func`, `.weak .func`.
    pub directive: String,
    /// `.param .b32 func_retval0`, when it returns something.
    pub return_declaration: Option<String>,
    /// The parameter declarations, in order.
    pub params: Vec<String>,
    /// Whether it has a body.
    pub definition: bool,
    /// `ld.param` from its own parameters: the parameter's name and the access.
    pub reads: Vec<(String, AccessPlan)>,
    /// `ld.param` through a register (a run-time address).
    pub dynamic_reads: usize,
    /// `st.param` to `func_retval0`.
    pub return_stores: Vec<AccessPlan>,
    /// The call blocks, in order.
    pub calls: Vec<PtxCall>,
    /// The `atom` mnemonics, in order.
    pub atomics: Vec<String>,
    /// Whether it has a local stack frame (`__local_depot`): a local copy of something.
    pub local_depot: bool,
    /// How many `cvta.param` it has.
    pub cvta_param: usize,
}

/// One `{ // callseq N, 0` block.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PtxCall {
    /// N.
    pub seq: u32,
    /// `.param .b32 param0` and the like, in order (without `;`).
    pub params: Vec<String>,
    /// `st.param` to `param<N>`.
    pub stores: Vec<(String, AccessPlan)>,
    /// `.param .b32 retval0` (without `;`).
    pub return_declaration: Option<String>,
    /// `ld.param` from `retval0`.
    pub return_loads: Vec<AccessPlan>,
    /// The callee symbol of a direct call.
    pub callee: Option<String>,
    /// The `prototype_N : .callprototype ...;` line of an indirect call.
    pub prototype: Option<String>,
}

fn strip_comment(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

/// `ld.param.v2.f32` -> (bits, arity).
fn width(mnemonic: &str) -> Option<(u32, u32)> {
    let mut arity = 1;
    let mut bits = None;
    for part in mnemonic.split('.') {
        match part {
            "v2" => arity = 2,
            "v4" => arity = 4,
            _ => {
                if let Some(rest) = part.strip_prefix(['u', 's', 'b', 'f']) {
                    if let Ok(n) = rest.parse::<u32>() {
                        bits = Some(n);
                    }
                }
            }
        }
    }
    Some((bits?, arity))
}

/// `[name+8]` -> ("name", 8); `[%rd1+4]` -> ("%rd1", 4).
fn address(text: &str) -> Option<(String, u64)> {
    let start = text.find('[')?;
    let end = text[start..].find(']')? + start;
    let inner = text[start + 1..end].trim();
    match inner.split_once('+') {
        Some((name, off)) => Some((name.trim().to_string(), off.trim().parse().ok()?)),
        None => Some((inner.to_string(), 0)),
    }
}

fn parse_header(text: &str) -> Option<PtxFunction> {
    let text = text.trim().trim_end_matches(';').trim();
    let mut f = PtxFunction::default();
    let directive_end = text
        .find(".func")
        .map(|i| i + 5)
        .or_else(|| text.find(".entry").map(|i| i + 6))?;
    f.directive = text[..directive_end]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let mut rest = text[directive_end..].trim_start();
    if rest.starts_with('(') {
        let close = rest.find(')')?;
        f.return_declaration = Some(rest[1..close].trim().to_string());
        rest = rest[close + 1..].trim_start();
    }
    let open = rest.find('(').unwrap_or(rest.len());
    f.name = rest[..open].trim().to_string();
    if open < rest.len() {
        let close = rest.rfind(')')?;
        let inner = &rest[open + 1..close];
        f.params = inner
            .split(',')
            .map(|p| p.split_whitespace().collect::<Vec<_>>().join(" "))
            .filter(|p| !p.is_empty())
            .collect();
    }
    Some(f)
}

/// Reads the functions of a PTX module.
pub fn read(text: &str) -> Vec<PtxFunction> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let line = strip_comment(lines[i]).trim();
        let starts_function = (line.starts_with(".visible")
            || line.starts_with(".extern .func")
            || line.starts_with(".func")
            || line.starts_with(".weak")
            || line.starts_with(".entry"))
            && (line.contains(".func") || line.contains(".entry"));
        if !starts_function {
            i += 1;
            continue;
        }
        // The header runs to `{` (a definition) or `;` (a declaration).
        let mut header = String::new();
        let mut definition = false;
        while i < lines.len() {
            let l = strip_comment(lines[i]).trim();
            i += 1;
            if l == "{" {
                definition = true;
                break;
            }
            header.push_str(l);
            header.push(' ');
            if l.ends_with(';') {
                break;
            }
        }
        let Some(mut f) = parse_header(&header) else {
            continue;
        };
        f.definition = definition;
        if definition {
            i = read_body(&lines, i, &mut f);
        }
        out.push(f);
    }
    out
}

fn read_body(lines: &[&str], mut i: usize, f: &mut PtxFunction) -> usize {
    let own: Vec<String> = f
        .params
        .iter()
        .filter_map(|p| p.split_whitespace().last())
        .map(|n| n.split('[').next().unwrap_or(n).to_string())
        .collect();
    let mut call: Option<PtxCall> = None;
    let mut expect_callee = false;
    // Scopes that are not call blocks (`{` ... `}` around inline asm and the like).
    let mut scopes = 0usize;
    while i < lines.len() {
        let raw = lines[i].trim();
        let l = strip_comment(raw).trim();
        i += 1;
        if l.is_empty() {
            continue;
        }
        if l == "}" {
            if scopes > 0 {
                scopes -= 1;
                continue;
            }
            if let Some(c) = call.take() {
                f.calls.push(c);
                continue;
            }
            break;
        }
        if l == "{" && !raw.starts_with("{ // callseq") {
            scopes += 1;
            continue;
        }
        if l == "{" {
            // A call block: `{ // callseq N, 0`.
            let seq = raw
                .strip_prefix("{ // callseq ")
                .and_then(|r| r.split(',').next())
                .and_then(|n| n.trim().parse().ok())
                .unwrap_or(u32::MAX);
            call = Some(PtxCall {
                seq,
                ..PtxCall::default()
            });
            continue;
        }
        if l.contains("__local_depot") {
            f.local_depot = true;
        }
        if l.starts_with("cvta.param") {
            f.cvta_param += 1;
        }
        let first = l.split_whitespace().next().unwrap_or("");
        if expect_callee {
            expect_callee = false;
            if let Some(c) = call.as_mut() {
                let name = l.trim_end_matches(',').trim();
                if !name.starts_with('%') {
                    c.callee = Some(name.to_string());
                }
            }
            continue;
        }
        if let Some(c) = call.as_mut() {
            if l.starts_with(".param") {
                let decl = l.trim_end_matches(';').trim().to_string();
                if decl.ends_with("retval0") || decl.contains("retval0[") {
                    c.return_declaration = Some(decl);
                } else {
                    c.params.push(decl);
                }
                continue;
            }
            if l.starts_with("prototype_") {
                c.prototype = Some(l.split_whitespace().collect::<Vec<_>>().join(" "));
                continue;
            }
            if first.starts_with("call") {
                expect_callee = true;
                continue;
            }
        }
        if first.starts_with("atom.") || first.starts_with("red.") {
            f.atomics.push(first.to_string());
            continue;
        }
        if first.starts_with("ld.param") || first.starts_with("st.param") {
            let Some((bits, arity)) = width(first) else {
                continue;
            };
            let Some((name, offset)) = address(l) else {
                continue;
            };
            let access = AccessPlan {
                offset,
                bits,
                vector: arity,
            };
            let load = first.starts_with("ld.");
            match (load, call.as_mut()) {
                (true, Some(c)) if name == "retval0" => c.return_loads.push(access),
                (false, Some(c)) => c.stores.push((name, access)),
                (true, _) if name.starts_with('%') => f.dynamic_reads += 1,
                (true, _) if own.contains(&name) => f.reads.push((name, access)),
                (false, None) if name == "func_retval0" => f.return_stores.push(access),
                _ => {}
            }
        }
    }
    i
}

/// What [`compare`] looked at.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Function definitions.
    pub functions: usize,
    /// Declarations (`.extern .func`).
    pub declarations: usize,
    /// Call sites.
    pub calls: usize,
    /// `ld.param`/`st.param` accesses.
    pub accesses: usize,
    /// Atomic instructions.
    pub atomics: usize,
    /// Functions whose parameter reads llc optimized (left some out, narrowed or joined
    /// them) rather than making exactly the planned ones.
    pub optimized_reads: usize,
}

/// One way the PTX differs from the plan.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Difference {
    /// The PTX symbol of the function.
    pub function: String,
    /// What differs: the PTX's version, then the plan's.
    pub message: String,
}

impl std::fmt::Display for Difference {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.function, self.message)
    }
}

/// The reads of a function's own parameters that the planned reads do not explain. A planned
/// read is what llc loads when the value is used in full; llc 19 then optimizes like any
/// other load: it leaves out reads of values it proves unused, narrows a read to the bits
/// used (`ld.param.u16` of an `i32` that is truncated, one element of a vector), and joins
/// adjacent reads into a vector (the load-store vectorizer). So a read is explained when
/// each of its elements lies inside one element of a planned read of the same parameter; a
/// read anywhere else (another offset, a wider element) is a difference.
fn unplanned_reads(
    want: &[(String, AccessPlan)],
    got: &[(String, AccessPlan)],
) -> Vec<(String, AccessPlan)> {
    let inside = |name: &str, offset: u64, bytes: u64| {
        want.iter().any(|(n, w)| {
            let size = u64::from(w.bits / 8).max(1);
            n == name
                && (0..u64::from(w.vector)).any(|k| {
                    let start = w.offset + k * size;
                    start <= offset && offset + bytes <= start + size
                })
        })
    };
    let mut out: Vec<(String, AccessPlan)> = got
        .iter()
        .filter(|(name, g)| {
            let bytes = u64::from(g.bits / 8).max(1);
            !(0..u64::from(g.vector)).all(|k| inside(name, g.offset + k * bytes, bytes))
        })
        .cloned()
        .collect();
    out.sort();
    out.dedup();
    out
}

fn sorted<T: Ord + Clone>(v: &[T]) -> Vec<T> {
    let mut v = v.to_vec();
    v.sort();
    v
}

/// Compares a plan with the PTX llc wrote for the same module (after the struct-args pass
/// with the same configuration): every emitted function, its directive and declarations,
/// the `ld.param` reads of the parameters the plan predicts, the `st.param` stores to
/// `func_retval0`, every call block (sequence number, declarations, stores, callee or
/// prototype, result loads) and the atomic mnemonics. Multisets are compared where llc's
/// instruction order is its own business.
pub fn compare(plan: &Plan, ptx: &[PtxFunction]) -> (Vec<Difference>, Counts) {
    let mut counts = Counts::default();
    let mut errors: Vec<Difference> = Vec::new();
    let mut push = |function: &str, message: String| {
        errors.push(Difference {
            function: function.to_string(),
            message,
        })
    };
    let by_name: HashMap<&str, &PtxFunction> = ptx.iter().map(|f| (f.name.as_str(), f)).collect();
    let planned: HashSet<&str> = plan
        .functions
        .iter()
        .filter(|f| f.emitted)
        .map(|f| f.ptx_name.as_str())
        .collect();
    for f in ptx {
        if !planned.contains(f.name.as_str()) {
            push(&f.name, "in the PTX, not in the plan".to_string());
        }
    }
    for f in &plan.functions {
        let Some(p) = by_name.get(f.ptx_name.as_str()) else {
            if f.emitted {
                push(&f.ptx_name, "planned, not in the PTX".to_string());
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
            push(
                name,
                format!("directive {:?}, planned {:?}", p.directive, f.directive),
            );
        }
        if p.return_declaration != f.return_declaration {
            push(
                name,
                format!(
                    "return {:?}, planned {:?}",
                    p.return_declaration, f.return_declaration
                ),
            );
        }
        let planned_params: Vec<String> = f.params.iter().map(|p| p.declaration.clone()).collect();
        if p.params != planned_params {
            push(
                name,
                format!(
                    "params\n  llc:  {:?}\n  plan: {:?}",
                    p.params, planned_params
                ),
            );
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
            counts.optimized_reads += 1;
        }
        let unexplained = unplanned_reads(&want, &got);
        if !unexplained.is_empty() {
            let types: Vec<String> = f
                .params
                .iter()
                .map(|p| format!("{}: {}", p.name, p.ir_type))
                .collect();
            push(
                name,
                format!(
                    "ld.param reads {types:?}\n  llc reads {unexplained:?}, which no planned read holds\n  planned:  {:?}",
                    sorted(&want)
                ),
            );
        }
        let want_ret: Vec<AccessPlan> = f.returns.iter().flat_map(|r| r.stores.clone()).collect();
        counts.accesses += want_ret.len();
        if sorted(&want_ret) != sorted(&p.return_stores) {
            push(
                name,
                format!(
                    "st.param func_retval0\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&p.return_stores),
                    sorted(&want_ret)
                ),
            );
        }
        // Calls.
        if p.calls.len() != f.calls.len() {
            push(
                name,
                format!(
                    "{} calls in the PTX, {} planned",
                    p.calls.len(),
                    f.calls.len()
                ),
            );
        }
        for (c, pc) in f.calls.iter().zip(&p.calls) {
            counts.calls += 1;
            let at = format!("call at line {} (callseq {})", c.line, c.seq);
            if c.seq != pc.seq {
                push(name, format!("{at}: llc numbers it {}", pc.seq));
            }
            let decls: Vec<String> = c.args.iter().map(|a| a.declaration.clone()).collect();
            if decls != pc.params {
                push(
                    name,
                    format!("{at}: params\n  llc:  {:?}\n  plan: {:?}", pc.params, decls),
                );
            }
            let mut want: Vec<(String, AccessPlan)> = Vec::new();
            for a in &c.args {
                want.extend(a.stores.iter().map(|s| (a.name.clone(), *s)));
            }
            counts.accesses += want.len() + c.return_loads.len();
            if sorted(&want) != sorted(&pc.stores) {
                push(
                    name,
                    format!(
                        "{at}: st.param\n  llc:  {:?}\n  plan: {:?}",
                        sorted(&pc.stores),
                        sorted(&want)
                    ),
                );
            }
            if c.return_declaration != pc.return_declaration {
                push(
                    name,
                    format!(
                        "{at}: retval {:?}, planned {:?}",
                        pc.return_declaration, c.return_declaration
                    ),
                );
            }
            if sorted(&c.return_loads) != sorted(&pc.return_loads) {
                push(
                    name,
                    format!(
                        "{at}: ld.param retval0\n  llc:  {:?}\n  plan: {:?}",
                        sorted(&pc.return_loads),
                        sorted(&c.return_loads)
                    ),
                );
            }
            if c.callee.name != pc.callee {
                push(
                    name,
                    format!("{at}: callee {:?}, planned {:?}", pc.callee, c.callee.name),
                );
            }
            if c.callee.prototype != pc.prototype {
                push(
                    name,
                    format!(
                        "{at}: prototype\n  llc:  {:?}\n  plan: {:?}",
                        pc.prototype, c.callee.prototype
                    ),
                );
            }
        }
        let want_atoms: Vec<String> = f
            .atomics
            .iter()
            .filter_map(|a| a.mnemonic.clone())
            .collect();
        counts.atomics += want_atoms.len();
        if sorted(&want_atoms) != sorted(&p.atomics) {
            push(
                name,
                format!(
                    "atomics\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&p.atomics),
                    sorted(&want_atoms)
                ),
            );
        }
    }
    (errors, counts)
}
