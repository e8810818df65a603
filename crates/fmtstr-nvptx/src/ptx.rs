//! Reading llc's PTX back into the plan's shapes, to compare a plan with what llc wrote.
//!
//! Input: the PTX text `llc -march=nvptx64` prints. Output: per function its directive,
//! `.param` declarations, the `ld.param` reads of its own parameters, the `st.param` stores
//! to `func_retval0`, every call block (`{ // callseq N, 0` ... `}`) with its declarations,
//! stores, callee or prototype and result loads, and the `atom` mnemonics. Only the lines
//! these need are read; anything else is skipped.
//!
//! llc 19 and llc 22 spell the same PTX differently, and both are read alike:
//!
//! - whitespace inside a declaration is any run of spaces and tabs (llc 22 writes
//!   `.param .b32 \tparam0;` and `.param .align 8 .b8 \tretval0[8];`); declarations are
//!   compared with every run of whitespace made one space;
//! - a call is one statement however it is broken into lines: llc 19 writes the return list,
//!   the callee, each argument list and the prototype on lines of their own
//!   (`call.uni (retval0),` / `f,` / `(` / `param0` / `);`), llc 22 writes it on one line
//!   (`call.uni (retval0), f, (param0);`); the statement is read to its `;` and its operands
//!   split at the commas outside parentheses;
//! - kernel pointer parameters carry `.ptr`, an optional state space and `.align N` under
//!   llc 22 (`.param .u64 .ptr .global .align 16 k_param_0`) and under llc 19's OpenCL
//!   triples; the qualifiers are kept, in llc's order, and the name is the last word.

use std::collections::{HashMap, HashSet};

use crate::abi::model::{AccessPlan, CallPlan, FunctionPlan, Plan};

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

/// `.param .align 8 .b8 param0[40]` -> 40.
fn array_size(declaration: &str) -> Option<u64> {
    let open = declaration.rfind('[')?;
    let close = declaration[open..].find(']')? + open;
    declaration[open + 1..close].trim().parse().ok()
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

/// A declaration or prototype with every run of whitespace (spaces, tabs) made one space.
fn normalize(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Splits `a, (b, c), d` at the commas outside parentheses.
fn operands(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    for (i, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                out.push(text[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    let last = text[start..].trim();
    if !last.is_empty() {
        out.push(last);
    }
    out
}

/// The direct callee of a call statement (`call.uni (retval0), f, (param0);` read to its
/// `;`, with whatever line breaks llc put in it): the first operand after the optional
/// return list, unless it is a register (an indirect call through a prototype).
fn callee_of(statement: &str) -> Option<String> {
    let statement = statement.trim().trim_end_matches(';').trim();
    let mnemonic_end = statement
        .find(|c: char| c.is_whitespace())
        .unwrap_or(statement.len());
    let ops = operands(&statement[mnemonic_end..]);
    let mut ops = ops.into_iter();
    let mut first = ops.next()?;
    if first.starts_with('(') {
        // The return list; the callee follows.
        first = ops.next()?;
    }
    let name = normalize(first);
    if name.is_empty() || name.starts_with('%') || name.starts_with('(') {
        return None;
    }
    Some(name)
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
        f.return_declaration = Some(normalize(&rest[1..close]));
        rest = rest[close + 1..].trim_start();
    }
    let open = rest.find('(').unwrap_or(rest.len());
    f.name = rest[..open].trim().to_string();
    if open < rest.len() {
        let close = rest.rfind(')')?;
        let inner = &rest[open + 1..close];
        f.params = inner
            .split(',')
            .map(normalize)
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
    // The call statement read so far, until its `;` (llc 19 breaks it over lines).
    let mut statement: Option<String> = None;
    // Scopes that are not call blocks (`{` ... `}` around inline asm and the like).
    let mut scopes = 0usize;
    while i < lines.len() {
        let raw = lines[i].trim();
        let l = strip_comment(raw).trim();
        i += 1;
        if l.is_empty() {
            continue;
        }
        if l == "}" && statement.is_some() {
            // A call statement without its `;` (not llc's PTX): the block still ends here.
            if let (Some(text), Some(c)) = (statement.take(), call.as_mut()) {
                c.callee = callee_of(&text);
            }
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
        if let Some(text) = statement.as_mut() {
            text.push(' ');
            text.push_str(l);
            if l.ends_with(';') {
                let done = statement.take().unwrap_or_default();
                if let Some(c) = call.as_mut() {
                    c.callee = callee_of(&done);
                }
            }
            continue;
        }
        if let Some(c) = call.as_mut() {
            if l.starts_with(".param") {
                let decl = normalize(l.trim_end_matches(';'));
                let name = decl.rsplit(' ').next().unwrap_or("");
                if name == "retval0" || name.starts_with("retval0[") {
                    c.return_declaration = Some(decl);
                } else {
                    c.params.push(decl);
                }
                continue;
            }
            if l.starts_with("prototype_") {
                c.prototype = Some(normalize(l));
                continue;
            }
            if first == "call" || first.starts_with("call.") {
                if l.ends_with(';') {
                    c.callee = callee_of(l);
                } else {
                    statement = Some(l.to_string());
                }
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

/// llc 22 stores (and loads) 32 bits made of 16- or 8-bit elements (`<2 x half>`,
/// `<2 x i16>`, `<4 x i8>`, a pair of `i16` fields) either as one `b32` or as `v2.b16` /
/// `v4.b8`, as its registers happen to hold them (a constant, or a value packed by an
/// instruction, moves as one `b32`); llc 19 always as the plan says. Under llc 22 such an
/// access is compared by its bytes: elements narrower than 32 bits that fill whole 32-bit
/// words are read as those words.
fn packed_words(list: &[AccessPlan]) -> Vec<AccessPlan> {
    list.iter()
        .map(|a| {
            let total = a.bits * a.vector;
            if a.bits < 32 && total >= 32 && total % 32 == 0 {
                AccessPlan {
                    offset: a.offset,
                    bits: 32,
                    vector: total / 32,
                }
            } else {
                *a
            }
        })
        .collect()
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
    let mut cmp = Comparison {
        llc22: plan.config.llc >= 22,
        counts: Counts::default(),
        errors: Vec::new(),
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
            cmp.push(&f.name, "in the PTX, not in the plan".to_string());
        }
    }
    for f in &plan.functions {
        match by_name.get(f.ptx_name.as_str()) {
            Some(p) => cmp.function(f, p),
            None if f.emitted => cmp.push(&f.ptx_name, "planned, not in the PTX".to_string()),
            None => {}
        }
    }
    (cmp.errors, cmp.counts)
}

/// A comparison under way: the differences found so far, in the order they are found, and
/// what was looked at.
struct Comparison {
    /// Whether the plan is llc 22's, whose PTX moves 16- and 8-bit elements as packed
    /// words, optimizes result loads and copies byval arguments its own way.
    llc22: bool,
    counts: Counts,
    errors: Vec<Difference>,
}

impl Comparison {
    fn push(&mut self, function: &str, message: String) {
        self.errors.push(Difference {
            function: function.to_string(),
            message,
        })
    }

    /// Accesses as a sorted multiset, packed into 32-bit words under llc 22.
    fn words(&self, list: &[AccessPlan]) -> Vec<AccessPlan> {
        if self.llc22 {
            sorted(&packed_words(list))
        } else {
            sorted(list)
        }
    }

    /// [`Comparison::words`] for accesses that name their `.param`.
    fn named_words(&self, list: &[(String, AccessPlan)]) -> Vec<(String, AccessPlan)> {
        let mut out: Vec<(String, AccessPlan)> = list
            .iter()
            .map(|(n, a)| {
                let a = if self.llc22 {
                    packed_words(&[*a])[0]
                } else {
                    *a
                };
                (n.clone(), a)
            })
            .collect();
        out.sort();
        out
    }

    /// One planned function that the PTX has: its declarations, and for a definition its
    /// body's parameter reads, return stores, calls and atomics.
    fn function(&mut self, f: &FunctionPlan, p: &PtxFunction) {
        if f.definition {
            self.counts.functions += 1;
        } else {
            self.counts.declarations += 1;
        }
        self.declarations(f, p);
        if !f.definition {
            return;
        }
        self.parameter_reads(f, p);
        self.return_stores(f, p);
        self.calls(f, p);
        self.atomics(f, p);
    }

    /// The directive, the return declaration and the parameter declarations.
    fn declarations(&mut self, f: &FunctionPlan, p: &PtxFunction) {
        let name = &f.ptx_name;
        if p.directive != f.directive {
            self.push(
                name,
                format!("directive {:?}, planned {:?}", p.directive, f.directive),
            );
        }
        if p.return_declaration != f.return_declaration {
            self.push(
                name,
                format!(
                    "return {:?}, planned {:?}",
                    p.return_declaration, f.return_declaration
                ),
            );
        }
        let planned_params: Vec<String> = f.params.iter().map(|p| p.declaration.clone()).collect();
        if p.params != planned_params {
            self.push(
                name,
                format!(
                    "params\n  llc:  {:?}\n  plan: {:?}",
                    p.params, planned_params
                ),
            );
        }
    }

    /// The `ld.param` reads of the parameters whose reads the plan predicts: each must lie
    /// inside a planned read (llc may optimize them, which is only counted).
    fn parameter_reads(&mut self, f: &FunctionPlan, p: &PtxFunction) {
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
        self.counts.accesses += want.len();
        if sorted(&want) != sorted(&got) {
            self.counts.optimized_reads += 1;
        }
        let unexplained = unplanned_reads(&want, &got);
        if !unexplained.is_empty() {
            let types: Vec<String> = f
                .params
                .iter()
                .map(|p| format!("{}: {}", p.name, p.ir_type))
                .collect();
            self.push(
                &f.ptx_name,
                format!(
                    "ld.param reads {types:?}\n  llc reads {unexplained:?}, which no planned read holds\n  planned:  {:?}",
                    sorted(&want)
                ),
            );
        }
    }

    /// The `st.param` stores to `func_retval0` of all the function's returns, as a multiset.
    fn return_stores(&mut self, f: &FunctionPlan, p: &PtxFunction) {
        let want_ret: Vec<AccessPlan> = f.returns.iter().flat_map(|r| r.stores.clone()).collect();
        self.counts.accesses += want_ret.len();
        if self.words(&want_ret) != self.words(&p.return_stores) {
            self.push(
                &f.ptx_name,
                format!(
                    "st.param func_retval0\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&p.return_stores),
                    sorted(&want_ret)
                ),
            );
        }
    }

    /// The call blocks: their number, then each planned call against the PTX's block in
    /// the same place.
    fn calls(&mut self, f: &FunctionPlan, p: &PtxFunction) {
        let name = &f.ptx_name;
        if p.calls.len() != f.calls.len() {
            self.push(
                name,
                format!(
                    "{} calls in the PTX, {} planned",
                    p.calls.len(),
                    f.calls.len()
                ),
            );
        }
        for (c, pc) in f.calls.iter().zip(&p.calls) {
            self.call(name, c, pc);
        }
    }

    /// One call block: sequence number, declarations, stores, result, callee and prototype.
    fn call(&mut self, name: &str, c: &CallPlan, pc: &PtxCall) {
        self.counts.calls += 1;
        let at = format!("call at line {} (callseq {})", c.line, c.seq);
        if c.seq != pc.seq {
            self.push(name, format!("{at}: llc numbers it {}", pc.seq));
        }
        let decls: Vec<String> = c.args.iter().map(|a| a.declaration.clone()).collect();
        if decls != pc.params {
            self.push(
                name,
                format!("{at}: params\n  llc:  {:?}\n  plan: {:?}", pc.params, decls),
            );
        }
        self.argument_stores(name, &at, c, pc);
        if c.return_declaration != pc.return_declaration {
            self.push(
                name,
                format!(
                    "{at}: retval {:?}, planned {:?}",
                    pc.return_declaration, c.return_declaration
                ),
            );
        }
        self.result_loads(name, &at, c, pc);
        if c.callee.name != pc.callee {
            self.push(
                name,
                format!("{at}: callee {:?}, planned {:?}", pc.callee, c.callee.name),
            );
        }
        if c.callee.prototype != pc.prototype {
            self.push(
                name,
                format!(
                    "{at}: prototype\n  llc:  {:?}\n  plan: {:?}",
                    pc.prototype, c.callee.prototype
                ),
            );
        }
    }

    /// The `st.param` stores of a call's arguments, as a multiset; under llc 22 the stores
    /// that copy a byval argument need only stay inside its declared array. Counts the
    /// result loads too, which [`Comparison::result_loads`] compares.
    fn argument_stores(&mut self, name: &str, at: &str, c: &CallPlan, pc: &PtxCall) {
        let mut want: Vec<(String, AccessPlan)> = Vec::new();
        for a in &c.args {
            want.extend(a.stores.iter().map(|s| (a.name.clone(), *s)));
        }
        self.counts.accesses += want.len() + c.return_loads.len();
        // llc 22 copies byval arguments in pieces of its own choosing: its stores to one
        // need only stay inside the declared array.
        let copied: Vec<(&str, u64)> = c
            .args
            .iter()
            .filter(|a| a.byval && self.llc22)
            .map(|a| (a.name.as_str(), array_size(&a.declaration).unwrap_or(0)))
            .collect();
        let (copies, got_stores): (Vec<_>, Vec<_>) = pc
            .stores
            .iter()
            .cloned()
            .partition(|(n, _)| copied.iter().any(|(c, _)| c == n));
        for (n, s) in &copies {
            let size = copied.iter().find(|(c, _)| c == n).map_or(0, |(_, z)| *z);
            if s.offset + u64::from(s.bits / 8) * u64::from(s.vector) > size {
                self.push(
                    name,
                    format!("{at}: st.param {s:?} to byval argument {n}, outside its {size} bytes"),
                );
            }
        }
        if self.named_words(&want) != self.named_words(&got_stores) {
            self.push(
                name,
                format!(
                    "{at}: st.param\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&got_stores),
                    sorted(&want)
                ),
            );
        }
    }

    /// The `ld.param` loads of a call's result from `retval0`.
    fn result_loads(&mut self, name: &str, at: &str, c: &CallPlan, pc: &PtxCall) {
        // llc 22 optimizes the loads of a call's result like those of a parameter: it
        // leaves out parts nothing uses, narrows and joins; llc 19 loads every part.
        let return_differs = if self.llc22 {
            let name_all = |l: &[AccessPlan]| -> Vec<(String, AccessPlan)> {
                packed_words(l)
                    .into_iter()
                    .map(|a| ("retval0".to_string(), a))
                    .collect()
            };
            !unplanned_reads(&name_all(&c.return_loads), &name_all(&pc.return_loads)).is_empty()
        } else {
            self.words(&c.return_loads) != self.words(&pc.return_loads)
        };
        if return_differs {
            self.push(
                name,
                format!(
                    "{at}: ld.param retval0\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&pc.return_loads),
                    sorted(&c.return_loads)
                ),
            );
        }
    }

    /// The `atom` mnemonics, as a multiset.
    fn atomics(&mut self, f: &FunctionPlan, p: &PtxFunction) {
        let want_atoms: Vec<String> = f
            .atomics
            .iter()
            .filter_map(|a| a.mnemonic.clone())
            .collect();
        self.counts.atomics += want_atoms.len();
        if sorted(&want_atoms) != sorted(&p.atomics) {
            self.push(
                &f.ptx_name,
                format!(
                    "atomics\n  llc:  {:?}\n  plan: {:?}",
                    sorted(&p.atomics),
                    sorted(&want_atoms)
                ),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn only(text: &str) -> PtxFunction {
        let mut functions = read(text);
        assert_eq!(functions.len(), 1, "{functions:?}");
        functions.remove(0)
    }

    /// llc 19's spelling: spaces in declarations, a call broken over six lines.
    const CALLER_19: &str = "
.visible .func  (.param .b32 func_retval0) outer(
\t.param .b32 outer_param_0,
\t.param .align 8 .b8 outer_param_1[16]
)
{
\t.reg .b32 \t%r<4>;
\tld.param.u32 \t%r1, [outer_param_0];
\t{ // callseq 3, 0
\t.param .b32 param0;
\tst.param.b32 \t[param0+0], %r1;
\t.param .align 8 .b8 retval0[8];
\tcall.uni (retval0), 
\tinner, 
\t(
\tparam0
\t);
\tld.param.v2.b32 \t{%r2, %r3}, [retval0+0];
\t} // callseq 3
\tst.param.b32 \t[func_retval0+0], %r2;
\tret;
}
";

    /// The same function as llc 22 writes it: tabs after the type, one-line calls, no `+0`.
    const CALLER_22: &str = "
.visible .func  (.param .b32 func_retval0) outer(
\t.param .b32 outer_param_0,
\t.param .align 8 .b8 outer_param_1[16]
)
{
\t.reg .b32 \t%r<4>;
\tld.param.b32 \t%r1, [outer_param_0];
\t{ // callseq 3, 0
\t.param .b32 \tparam0;
\t.param .align 8 .b8 \tretval0[8];
\tst.param.b32 \t[param0], %r1;
\tcall.uni (retval0), inner, (param0);
\tld.param.v2.b32 \t{%r2, %r3}, [retval0];
\t} // callseq 3
\tst.param.b32 \t[func_retval0], %r2;
\tret;
}
";

    #[test]
    fn a_call_reads_the_same_in_llc_19_and_llc_22_spelling() {
        let a = only(CALLER_19);
        let b = only(CALLER_22);
        for f in [&a, &b] {
            assert_eq!(f.calls.len(), 1);
            let c = &f.calls[0];
            assert_eq!(c.seq, 3);
            assert_eq!(c.callee.as_deref(), Some("inner"));
            assert_eq!(c.params, vec![".param .b32 param0".to_string()]);
            assert_eq!(
                c.return_declaration.as_deref(),
                Some(".param .align 8 .b8 retval0[8]")
            );
            assert_eq!(
                c.return_loads,
                vec![AccessPlan {
                    offset: 0,
                    bits: 32,
                    vector: 2
                }]
            );
            assert_eq!(c.stores.len(), 1);
            assert_eq!(f.return_stores.len(), 1);
            assert_eq!(f.reads.len(), 1);
        }
        assert_eq!(a.calls, b.calls);
    }

    #[test]
    fn one_line_calls_without_result_or_arguments_name_their_callee() {
        let text = "
.func quiet()
{
\t{ // callseq 0, 0
\tcall.uni noisy, ();
\t} // callseq 0
\t{ // callseq 1, 0
\t.param .b64 \tparam0;
\tst.param.b64 \t[param0], %rd1;
\tcall noisy2, (param0);
\t} // callseq 1
\tret;
}
";
        let f = only(text);
        let callees: Vec<_> = f.calls.iter().map(|c| c.callee.clone()).collect();
        assert_eq!(callees, vec![Some("noisy".into()), Some("noisy2".into())]);
        assert_eq!(f.calls[1].params, vec![".param .b64 param0".to_string()]);
    }

    #[test]
    fn indirect_calls_have_no_callee_on_one_line_or_many() {
        let many = "
.func via_pointer()
{
\t{ // callseq 7, 0
\t.param .b32 param0;
\tst.param.b32 \t[param0+0], %r1;
\t.param .b32 retval0;
\tprototype_7 : .callprototype (.param .b32 _) _ (.param .b32 _);
\tcall (retval0), 
\t%rd1, 
\t(
\tparam0
\t)
\t, prototype_7;
\tld.param.b32 \t%r2, [retval0+0];
\t} // callseq 7
\tret;
}
";
        let one = "
.func via_pointer()
{
\t{ // callseq 7, 0
\t.param .b32 \tparam0;
\t.param .b32 \tretval0;
\tst.param.b32 \t[param0], %r1;
\tprototype_7 : .callprototype (.param .b32 _) _ (.param .b32 _);
\tcall (retval0), %rd1, (param0), prototype_7;
\tld.param.b32 \t%r2, [retval0];
\t} // callseq 7
\tret;
}
";
        let (a, b) = (only(many), only(one));
        assert_eq!(a.calls, b.calls);
        let c = &a.calls[0];
        assert_eq!(c.callee, None);
        assert_eq!(
            c.prototype.as_deref(),
            Some("prototype_7 : .callprototype (.param .b32 _) _ (.param .b32 _);")
        );
        assert_eq!(c.return_loads.len(), 1, "the load after the call is read");
    }

    #[test]
    fn kernel_pointer_parameters_keep_ptr_space_and_align_whatever_the_whitespace() {
        let text = "
.visible .entry launch(
\t.param .u64 .ptr .align 1 launch_param_0,
\t.param .u64 .ptr .global .align 16 launch_param_1,
\t.param .u64\t.ptr\t.shared\t.align 4\tlaunch_param_2,
\t.param .u32 launch_param_3
)
{
\tld.param.b64 \t%rd1, [launch_param_1];
\tld.param.b64 \t%rd2, [launch_param_2];
\tret;
}
";
        let f = only(text);
        assert_eq!(
            f.params,
            vec![
                ".param .u64 .ptr .align 1 launch_param_0",
                ".param .u64 .ptr .global .align 16 launch_param_1",
                ".param .u64 .ptr .shared .align 4 launch_param_2",
                ".param .u32 launch_param_3",
            ]
        );
        let read: Vec<&str> = f.reads.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(read, vec!["launch_param_1", "launch_param_2"]);
    }

    #[test]
    fn a_call_without_its_semicolon_still_ends_with_its_block() {
        let text = ".func cut()\n{\n\t{ // callseq 0, 0\n\tcall.uni \n\tgone, \n\t} // callseq 0\n\tst.param.b32 \t[func_retval0], %r1;\n\tret;\n}\n";
        let f = only(text);
        assert_eq!(f.calls.len(), 1);
        assert_eq!(f.calls[0].callee.as_deref(), Some("gone"));
        assert_eq!(f.return_stores.len(), 1);
    }

    #[test]
    fn a_tab_in_the_return_declaration_of_a_header_is_whitespace() {
        let f = only(".func  (.param .align 16 .b8\tfunc_retval0[16]) pair(\n\t.param .b64\tpair_param_0\n);\n");
        assert!(!f.definition);
        assert_eq!(
            f.return_declaration.as_deref(),
            Some(".param .align 16 .b8 func_retval0[16]")
        );
        assert_eq!(f.params, vec![".param .b64 pair_param_0"]);
    }
}

#[cfg(test)]
mod llc22_tests {
    use super::*;
    use crate::{abi, Config, Llc};

    const MODULE: &str = "target triple = \"nvptx64-nvidia-cuda\"

define <2 x i16> @pair(<2 x i16> %a) {
  %r = add <2 x i16> %a, %a
  ret <2 x i16> %r
}

define void @caller() {
  %unused = call <2 x i16> @pair(<2 x i16> zeroinitializer)
  ret void
}
";

    /// What llc 22 writes for MODULE (in our own words): the pair stored as two halves, the
    /// argument as one b32 immediate, and no load of the unused result.
    const PTX_22: &str = "
.target sm_90
.visible .func  (.param .align 4 .b8 func_retval0[4]) pair(
\t.param .align 4 .b8 pair_param_0[4]
)
{
\tld.param.v2.b16 \t{%rs1, %rs2}, [pair_param_0];
\tst.param.v2.b16 \t[func_retval0], {%rs3, %rs4};
\tret;
}
.visible .func caller()
{
\t{ // callseq 0, 0
\t.param .align 4 .b8 \tparam0[4];
\t.param .align 4 .b8 \tretval0[4];
\tst.param.b32 \t[param0], 0;
\tcall.uni (retval0), pair, (param0);
\t} // callseq 0
\tret;
}
";

    fn differences(llc: Llc) -> Vec<String> {
        let module = fmtstr_ir::Module::parse("pair.ll", MODULE).expect("parses");
        let plan = abi::plan(
            &module,
            &Config {
                llc,
                ..Config::default()
            },
        );
        assert!(plan.findings.is_empty(), "{:?}", plan.findings);
        compare(&plan, &read(PTX_22))
            .0
            .iter()
            .map(ToString::to_string)
            .collect()
    }

    #[test]
    fn llc_22s_packed_words_and_unused_results_agree_with_its_plan() {
        assert_eq!(differences(Llc::V22), Vec::<String>::new());
    }

    #[test]
    fn llc_19s_plan_does_not_accept_them() {
        let found = differences(Llc::V19);
        assert!(
            found.iter().any(|d| d.contains("st.param func_retval0"))
                && found.iter().any(|d| d.contains("ld.param retval0")),
            "{found:#?}"
        );
    }
}
