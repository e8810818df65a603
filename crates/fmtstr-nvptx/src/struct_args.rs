//! The byval struct-argument pass, in the form llc 19 reads.
//!
//! Input: byval aggregate parameters read through GEP chains.
//!
//! ```text
//! define ptx_kernel void @k(ptr byval(%S) align 8 %s) {
//!   %p_a = getelementptr %S, ptr %s, i32 0, i32 2, i32 3
//!   %a3  = load i32, ptr %p_a
//! ```
//!
//! Output: the same parameter (its `byval(%S)`, alignment and `.param` declaration are the
//! ABI and stay), read in place from the parameter space through one cast named
//! `<name>.param`, at byte offsets folded from the GEP index paths with the DataLayout.
//!
//! ```text
//! define ptx_kernel void @k(ptr byval(%S) align 8 %s) {
//!   %s.param = addrspacecast ptr %s to ptr addrspace(101)
//!   %s.param.24 = getelementptr inbounds i8, ptr addrspace(101) %s.param, i64 24
//!   %s.24 = load i32, ptr addrspace(101) %s.param.24, align 4
//! ```
//!
//! The proposal's intrinsics (`llvm.nvvm.ldparam.*`, `llvm.nvvm.cvt.generic.to.as`) do not exist
//! in LLVM; the cast plus ordinary loads is what LLVM's own NVPTXLowerArgs writes, and llc
//! selects them as `ld.param` at `[k_param_0+24]`.
//!
//! The walk: a work list seeded with each byval parameter at offset 0. A `getelementptr`
//! with constant indices re-seeds the list with its own uses at its folded offset (nested
//! structs and arrays included), and so does a pointer `bitcast` at the same offset; a
//! `getelementptr` with variable indices is rebuilt on the param-space pointer and its uses
//! continue from it. A `load` becomes a load from the parameter space.
//! A call that receives the address is an escape: in a kernel the parameter becomes a
//! `grid_constant` (an `!nvvm.annotations` entry) and the call keeps the generic address,
//! which llc turns into `cvta.param` without a local copy. That is the cast-only fast path:
//! llc 19 inserts `@llvm.nvvm.ptr.param.to.gen.p0.p101` itself, and it rejects a module
//! that already calls it on a grid-constant parameter (its verifier fails inside llc), so
//! the pass leaves that call to llc. In a device function the address of a parameter cannot
//! be taken in place: the parameter is left as it is and llc copies it (the `!K && B`
//! row). A store to or of the address, a volatile or atomic load, a write by a memory
//! intrinsic, or any other instruction is a diagnostic naming the instruction and its line.
//!
//! Every function is analysed before anything changes, and the edits are made on a copy
//! that replaces the module only when all of them succeeded: an error leaves the module as
//! it was, never half rewritten.

use std::collections::{BTreeMap, HashMap};
use std::fmt;

use fmtstr_ir::{
    Attr, Constant, EditError, FuncId, InstId, Module, Opcode, Operand, Position, Type, TypeId,
    Value,
};

use crate::annotations::{self, Annotations};
use crate::config::Config;

/// The address space of `.param` memory.
pub const PARAM_ADDRSPACE: u32 = 101;

/// A problem the pass cannot rewrite, at an instruction of the input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The module's file name.
    pub file: String,
    /// Line of the instruction, from 1.
    pub line: u32,
    /// Column of the instruction, from 1.
    pub column: u32,
    /// The function, without `@`.
    pub function: String,
    /// The instruction's text.
    pub instruction: String,
    /// What is wrong and what to do.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}:{}: error: {}\n  {}",
            self.file, self.line, self.column, self.message, self.instruction
        )
    }
}

/// Why the pass refused a module: every diagnostic found (the module is unchanged).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum StructArgsError {
    /// Uses of byval parameters the pass cannot rewrite.
    #[error("{}", join(.0))]
    Unsupported(Vec<Diagnostic>),
    /// An edit failed after the analysis accepted the module (a bug in the pass).
    #[error("internal error while rewriting @{function}: {error}")]
    Edit {
        /// The function being rewritten.
        function: String,
        /// The refused edit.
        error: EditError,
    },
}

fn join(diagnostics: &[Diagnostic]) -> String {
    diagnostics
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

impl StructArgsError {
    /// The diagnostics (empty for an internal error).
    pub fn diagnostics(&self) -> &[Diagnostic] {
        match self {
            StructArgsError::Unsupported(d) => d,
            StructArgsError::Edit { .. } => &[],
        }
    }
}

/// What the pass did with one byval parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Its loads now read the parameter space.
    Rewritten,
    /// Its loads read the parameter space and its address escapes: it is now a
    /// `grid_constant` (or was one already), and llc takes its address with `cvta.param`.
    GridConstant,
    /// A device-function parameter whose address escapes: left for llc to copy.
    KeptForCopy,
    /// Nothing to do: no loads to rewrite (unused, or already read in place).
    Unchanged,
    /// `opt_byval` is off.
    Disabled,
}

impl Action {
    /// A short name for reports (`rewritten`, `grid-constant`, ...).
    pub fn name(self) -> &'static str {
        match self {
            Action::Rewritten => "rewritten",
            Action::GridConstant => "grid-constant",
            Action::KeptForCopy => "kept-for-copy",
            Action::Unchanged => "unchanged",
            Action::Disabled => "disabled",
        }
    }
}

/// One parameter in the [`Report`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamOutcome {
    /// The function, without `@`.
    pub function: String,
    /// Whether the function is a kernel.
    pub kernel: bool,
    /// The parameter's position, from 0.
    pub index: usize,
    /// The parameter's name (`s`, or its number for an unnamed one).
    pub name: String,
    /// The byval type, as LLVM writes it.
    pub byval_type: String,
    /// What was done.
    pub action: Action,
    /// The loads now reading the parameter space: byte offset (none when the address is
    /// computed at run time) and the loaded type.
    pub reads: Vec<(Option<i64>, String)>,
    /// How many calls receive the parameter's address.
    pub escapes: usize,
}

impl fmt::Display for ParamOutcome {
    /// `@k parameter 0 (%s, byval %S): rewritten, 3 loads read in place, 1 escape`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "@{} parameter {} ({}, byval {}): {}",
            self.function,
            self.index,
            local_ref(&self.name),
            self.byval_type,
            self.action.name()
        )?;
        if matches!(self.action, Action::Rewritten | Action::GridConstant) {
            write!(f, ", {} load(s) read in place", self.reads.len())?;
        }
        if self.escapes > 0 {
            write!(f, ", address passed to {} call(s)", self.escapes)?;
        }
        Ok(())
    }
}

/// What [`run`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// Every byval parameter of every definition, kernels first.
    pub params: Vec<ParamOutcome>,
}

impl Report {
    /// Whether the module was changed.
    pub fn changed(&self) -> bool {
        self.params
            .iter()
            .any(|p| matches!(p.action, Action::Rewritten | Action::GridConstant))
    }
}

/// Where a pointer derived from a byval parameter points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Addr {
    /// The parameter plus a constant offset.
    Root(i64),
    /// A GEP with variable indices (rebuilt on the param-space pointer), plus an offset.
    Dyn { gep: InstId, extra: i64 },
}

impl Addr {
    fn add(self, delta: i64) -> Option<Addr> {
        Some(match self {
            Addr::Root(o) => Addr::Root(o.checked_add(delta)?),
            Addr::Dyn { gep, extra } => Addr::Dyn {
                gep,
                extra: extra.checked_add(delta)?,
            },
        })
    }

    fn offset(self) -> Option<i64> {
        match self {
            Addr::Root(o) => Some(o),
            Addr::Dyn { .. } => None,
        }
    }
}

#[derive(Clone, Copy, Debug)]
enum Step {
    DynGep { old: InstId, base: Addr },
    Load { old: InstId, addr: Addr },
}

/// A load of a byval parameter's memory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParamRead {
    /// The load.
    pub inst: InstId,
    /// Byte offset in the parameter; none when computed at run time.
    pub offset: Option<i64>,
    /// The loaded type.
    pub ty: TypeId,
    /// The load's alignment.
    pub align: u64,
}

/// The uses of one byval parameter, as the walk found them.
#[derive(Clone, Debug)]
pub struct ByvalParam {
    /// The function.
    pub func: FuncId,
    /// The parameter's position, from 0.
    pub index: usize,
    /// The byval type.
    pub ty: TypeId,
    /// The loads.
    pub reads: Vec<ParamRead>,
    /// The calls that receive its address.
    pub escapes: Vec<InstId>,
    /// Uses the pass cannot rewrite.
    pub problems: Vec<Diagnostic>,
    steps: Vec<Step>,
    dead: Vec<InstId>,
}

/// Per function: the instructions using each local value, in order.
fn use_map(m: &Module, f: FuncId) -> HashMap<Value, Vec<InstId>> {
    let mut uses: HashMap<Value, Vec<InstId>> = HashMap::new();
    for inst in m.function(f).instructions() {
        for op in inst.operands() {
            if matches!(op.value, Value::Inst(_) | Value::Arg(_)) {
                let list = uses.entry(op.value).or_default();
                if list.last() != Some(&inst.id()) {
                    list.push(inst.id());
                }
            }
        }
    }
    uses
}

/// A parameter's name for messages and new values: its name, or its number when unnamed.
pub fn param_label(m: &Module, f: FuncId, index: usize) -> String {
    let func = m.function(f);
    if let Some(name) = func.param(index).and_then(|a| a.name()) {
        return String::from_utf8_lossy(&name).into_owned();
    }
    let unnamed_before = func
        .params()
        .take(index)
        .filter(|a| a.name().is_none())
        .count();
    unnamed_before.to_string()
}

fn local_ref(label: &str) -> String {
    let bare = !label.is_empty()
        && !label.starts_with(|c: char| c.is_ascii_digit())
        && label
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '$' | '.' | '_'));
    if bare || label.chars().all(|c| c.is_ascii_digit()) {
        format!("%{label}")
    } else {
        format!("%\"{label}\"")
    }
}

fn diagnostic(m: &Module, inst: InstId, message: String) -> Diagnostic {
    let view = m.inst(inst);
    let pos = view.source_pos();
    Diagnostic {
        file: m.file_name().to_string(),
        line: pos.map_or(0, |p| p.line),
        column: pos.map_or(0, |p| p.column),
        function: m.function(view.function()).name_str().into_owned(),
        instruction: String::from_utf8_lossy(view.text()).trim().to_string(),
        message,
    }
}

fn const_index(m: &Module, op: Operand) -> Option<i64> {
    let Value::Const(c) = op.value else {
        return None;
    };
    match m.constant(c) {
        Constant::Int(v) => i64::try_from(v).ok(),
        Constant::ZeroInitializer | Constant::Null => Some(0),
        _ => None,
    }
}

fn has_word(text: &[u8], word: &str) -> bool {
    text.split(|b| b.is_ascii_whitespace() || *b == b',')
        .any(|w| w == word.as_bytes())
}

/// The intrinsics that write through their first argument.
fn writes_first_arg(name: &str) -> bool {
    ["llvm.memcpy", "llvm.memmove", "llvm.memset"]
        .iter()
        .any(|p| name.starts_with(p))
}

/// Walks the uses of byval parameter `index` of `f`.
pub fn analyze_param(m: &Module, f: FuncId, index: usize) -> Option<ByvalParam> {
    let uses = use_map(m, f);
    analyze_with(m, f, index, &uses)
}

fn analyze_with(
    m: &Module,
    f: FuncId,
    index: usize,
    uses: &HashMap<Value, Vec<InstId>>,
) -> Option<ByvalParam> {
    let func = m.function(f);
    let arg = func.param(index)?;
    let ty = arg.byval()?;
    let root = Value::Arg(arg.id());
    let mut walk = Walk {
        m,
        root,
        fname: func.name_str(),
        pname: local_ref(&param_label(m, f, index)),
        out: ByvalParam {
            func: f,
            index,
            ty,
            reads: Vec::new(),
            escapes: Vec::new(),
            problems: Vec::new(),
            steps: Vec::new(),
            dead: Vec::new(),
        },
        work: vec![(root, Addr::Root(0))],
    };
    let mut seen = 0usize;
    while let Some((value, addr)) = walk.work.pop() {
        seen += 1;
        if seen > 1_000_000 {
            break;
        }
        for &user in uses.get(&value).map_or(&[][..], Vec::as_slice) {
            walk.visit(user, value, addr);
        }
    }
    let mut out = walk.out;
    // Reads and escapes in program order (the walk is depth first).
    let position: HashMap<InstId, usize> = func
        .instructions()
        .enumerate()
        .map(|(i, inst)| (inst.id(), i))
        .collect();
    out.reads.sort_by_key(|r| position.get(&r.inst).copied());
    out.escapes.sort_by_key(|i| position.get(i).copied());
    out.escapes.dedup();
    out.problems.sort_by_key(|d| (d.line, d.column));
    Some(out)
}

/// The walk over the uses of one byval parameter: what it has found so far, and the
/// pointers derived from the parameter whose uses are still to visit.
struct Walk<'m> {
    m: &'m Module,
    /// The parameter itself, which only a cast to the parameter space may use as it is.
    root: Value,
    /// The function, without `@`, for messages.
    fname: std::borrow::Cow<'m, str>,
    /// The parameter as IR writes it (`%s`, `%0`, `%"a b"`), for messages.
    pname: String,
    out: ByvalParam,
    /// Pointers derived from the parameter, each with where it points, not yet visited.
    work: Vec<(Value, Addr)>,
}

impl Walk<'_> {
    /// Records a use the pass cannot rewrite, at `user`.
    fn problem(&mut self, user: InstId, message: String) {
        self.out.problems.push(diagnostic(self.m, user, message));
    }

    /// Follows one use of `value`, a pointer to `addr` in the parameter.
    fn visit(&mut self, user: InstId, value: Value, addr: Addr) {
        let m = self.m;
        let inst = m.inst(user);
        match inst.opcode() {
            Opcode::GetElementPtr => self.gep(user, value, addr),
            Opcode::Load => self.load(user, addr),
            Opcode::Store => self.store(user, value),
            Opcode::Call => self.call(user, value),
            Opcode::BitCast if m.types().ptr_addrspace(inst.ty()) == Some(0) => {
                // A pointer-to-pointer cast changes nothing: follow it like a GEP by 0.
                self.out.dead.push(user);
                self.work.push((Value::Inst(user), addr));
            }
            Opcode::AddrSpaceCast
                if value == self.root
                    && m.types().ptr_addrspace(inst.ty()) == Some(PARAM_ADDRSPACE) =>
            {
                // Already read in place (a previous run, or LLVM's own pass): leave it.
            }
            other => {
                let (pname, fname) = (&self.pname, &self.fname);
                let message = format!(
                    "`{}` uses the address of byval parameter {pname} of @{fname}; the pass rewrites getelementptr, load and call uses only",
                    other.keyword()
                );
                self.problem(user, message);
            }
        }
    }

    /// A `getelementptr` based on `value`: constant indices fold into a new offset, variable
    /// ones into a GEP rebuilt on the parameter-space pointer; its uses are visited next.
    fn gep(&mut self, user: InstId, value: Value, addr: Addr) {
        let m = self.m;
        let inst = m.inst(user);
        let (pname, fname) = (&self.pname, &self.fname);
        let ops: Vec<Operand> = inst.operands().collect();
        if ops.first().map(|o| o.value) != Some(value) || ops[1..].iter().any(|o| o.value == value)
        {
            let message = format!(
                "`getelementptr` uses the address of byval parameter {pname} of @{fname} as an index; the pass only follows it as the base"
            );
            return self.problem(user, message);
        }
        if matches!(m.types().get(inst.ty()), Type::Vector { .. }) {
            let message = format!(
                "a vector `getelementptr` on byval parameter {pname} of @{fname} is not rewritten; index each element separately"
            );
            return self.problem(user, message);
        }
        let source = inst.element_type().unwrap_or(TypeId::I8);
        let indices: Option<Vec<i64>> = ops[1..].iter().map(|&o| const_index(m, o)).collect();
        self.out.dead.push(user);
        let Some(path) = indices else {
            self.out.steps.push(Step::DynGep {
                old: user,
                base: addr,
            });
            self.work.push((
                Value::Inst(user),
                Addr::Dyn {
                    gep: user,
                    extra: 0,
                },
            ));
            return;
        };
        match crate::target_layout().offset_of(m.types(), source, &path) {
            Ok((delta, _)) => match addr.add(delta) {
                Some(next) => self.work.push((Value::Inst(user), next)),
                None => {
                    let message =
                        format!("the offset into byval parameter {pname} of @{fname} overflows");
                    self.problem(user, message);
                }
            },
            Err(error) => {
                let message = format!(
                    "cannot fold the indices into byval parameter {pname} of @{fname}: {error}"
                );
                self.problem(user, message);
            }
        }
    }

    /// A `load` from `addr`: a read the pass moves to the parameter space, unless it is
    /// volatile or atomic.
    fn load(&mut self, user: InstId, addr: Addr) {
        let m = self.m;
        let inst = m.inst(user);
        let text = inst.text();
        if has_word(text, "atomic") || has_word(text, "volatile") {
            let (pname, fname) = (&self.pname, &self.fname);
            let message = format!(
                "a volatile or atomic load from byval parameter {pname} of @{fname} is not rewritten; the parameter space is constant, load it plainly"
            );
            return self.problem(user, message);
        }
        let align = inst.alignment().unwrap_or_else(|| {
            crate::target_layout()
                .abi_align(m.types(), inst.ty())
                .unwrap_or(1)
        });
        self.out.reads.push(ParamRead {
            inst: user,
            offset: addr.offset(),
            ty: inst.ty(),
            align,
        });
        self.out.steps.push(Step::Load { old: user, addr });
    }

    /// A `store` that uses `value`: always a problem, whether it writes to the parameter
    /// or stores its address.
    fn store(&mut self, user: InstId, value: Value) {
        let (pname, fname) = (&self.pname, &self.fname);
        let stores_address = self.m.inst(user).operand(0).map(|o| o.value) == Some(value);
        let message = if stores_address {
            format!(
                "`store` stores the address of byval parameter {pname} of @{fname}; the pass cannot follow an address through memory"
            )
        } else {
            format!(
                "`store` writes to byval parameter {pname} of @{fname}; the parameter space is read-only (copy the struct into an alloca and write the copy)"
            )
        };
        self.problem(user, message);
    }

    /// A call that receives `value`: an escape when the callee only reads through it, a
    /// problem when it is called or written through (a memory intrinsic's destination, a
    /// `writeonly` argument).
    fn call(&mut self, user: InstId, value: Value) {
        let m = self.m;
        let Some(call) = m.inst(user).as_call() else {
            return;
        };
        let (pname, fname) = (&self.pname, &self.fname);
        if call.callee().value == value {
            let message = format!("the address of byval parameter {pname} of @{fname} is called");
            return self.problem(user, message);
        }
        let callee = call
            .called_function()
            .map(|c| m.function(c).name_str().into_owned())
            .unwrap_or_default();
        let mut writes = false;
        for arg in call.args().filter(|a| a.operand.value == value) {
            let callee_writeonly = call
                .called_function()
                .and_then(|c| m.function(c).param(arg.index))
                .is_some_and(|p| p.attrs().contains(&Attr::WriteOnly));
            if (arg.index == 0 && writes_first_arg(&callee))
                || arg.has(Attr::WriteOnly)
                || callee_writeonly
            {
                writes = true;
            }
        }
        if writes {
            let message = format!(
                "the call writes to byval parameter {pname} of @{fname}; the parameter space is read-only (copy the struct into an alloca and write the copy)"
            );
            self.problem(user, message);
        } else {
            self.out.escapes.push(user);
        }
    }
}

/// The byval parameters of every definition, kernels first, each with its uses.
pub fn analyze(m: &Module, annotations: &Annotations) -> Vec<ByvalParam> {
    let mut kernels = Vec::new();
    let mut devices = Vec::new();
    for func in m.functions().filter(|f| !f.is_declaration()) {
        if func.params().all(|p| p.byval().is_none()) {
            continue;
        }
        let uses = use_map(m, func.id());
        let target = if annotations.is_kernel(m, func.id()) {
            &mut kernels
        } else {
            &mut devices
        };
        for index in 0..func.params().count() {
            if let Some(p) = analyze_with(m, func.id(), index, &uses) {
                target.push(p);
            }
        }
    }
    kernels.extend(devices);
    kernels
}

/// What the pass decides for one analysed parameter, before any edit.
fn decide(
    m: &Module,
    p: &ByvalParam,
    annotations: &Annotations,
    config: &Config,
    errors: &mut Vec<Diagnostic>,
) -> Action {
    let kernel = annotations.is_kernel(m, p.func);
    if !p.problems.is_empty() {
        errors.extend(p.problems.iter().cloned());
        return Action::Unchanged;
    }
    if !p.escapes.is_empty() {
        if !kernel {
            return Action::KeptForCopy;
        }
        if !config.has_cvta_param() && !annotations.is_grid_constant(p.func, p.index) {
            let fname = m.function(p.func).name_str();
            let pname = local_ref(&param_label(m, p.func, p.index));
            errors.push(diagnostic(
                m,
                p.escapes[0],
                format!(
                    "the address of byval parameter {pname} of kernel @{fname} escapes into a call; taking it in place needs cvta.param (sm_70 and later), and the target is sm_{}",
                    config.sm
                ),
            ));
            return Action::Unchanged;
        }
        let loads = p.steps.iter().any(|s| matches!(s, Step::Load { .. }));
        if !loads && annotations.is_grid_constant(p.func, p.index) {
            return Action::Unchanged;
        }
        return Action::GridConstant;
    }
    if p.steps.iter().any(|s| matches!(s, Step::Load { .. })) {
        Action::Rewritten
    } else {
        Action::Unchanged
    }
}

/// Runs the pass over every function of `m`. On error, `m` is unchanged.
pub fn run(m: &mut Module, config: &Config) -> Result<Report, StructArgsError> {
    let annotations = Annotations::read(m);
    let params = analyze(m, &annotations);
    let mut errors = Vec::new();
    let mut decided = Vec::with_capacity(params.len());
    for p in &params {
        let action = if config.opt_byval {
            decide(m, p, &annotations, config, &mut errors)
        } else {
            Action::Disabled
        };
        decided.push(action);
    }
    if !errors.is_empty() {
        return Err(StructArgsError::Unsupported(errors));
    }
    let report = Report {
        params: params
            .iter()
            .zip(&decided)
            .map(|(p, &action)| outcome(m, p, action, &annotations))
            .collect(),
    };
    if !report.changed() {
        return Ok(report);
    }
    let mut work = m.clone();
    let mut by_function: BTreeMap<FuncId, Vec<(&ByvalParam, Action)>> = BTreeMap::new();
    for (p, &action) in params.iter().zip(&decided) {
        if matches!(action, Action::Rewritten | Action::GridConstant) {
            by_function.entry(p.func).or_default().push((p, action));
        }
    }
    for (f, list) in by_function {
        let name = work.function(f).name_str().into_owned();
        let edit = |error| StructArgsError::Edit {
            function: name.clone(),
            error,
        };
        rewrite_function(&mut work, f, &list).map_err(edit)?;
        let new_grid: Vec<usize> = list
            .iter()
            .filter(|(p, a)| {
                *a == Action::GridConstant && !annotations.is_grid_constant(f, p.index)
            })
            .map(|(p, _)| p.index)
            .collect();
        annotations::add_grid_constants(&mut work, f, &new_grid);
    }
    *m = work;
    Ok(report)
}

fn outcome(m: &Module, p: &ByvalParam, action: Action, annotations: &Annotations) -> ParamOutcome {
    ParamOutcome {
        function: m.function(p.func).name_str().into_owned(),
        kernel: annotations.is_kernel(m, p.func),
        index: p.index,
        name: param_label(m, p.func, p.index),
        byval_type: m.types().display(p.ty).to_string(),
        action,
        reads: p
            .reads
            .iter()
            .map(|r| (r.offset, m.types().display(r.ty).to_string()))
            .collect(),
        escapes: p.escapes.len(),
    }
}

/// The edits for the parameters of one function.
fn rewrite_function(
    m: &mut Module,
    f: FuncId,
    params: &[(&ByvalParam, Action)],
) -> Result<(), EditError> {
    let p101 = m.types_mut().ptr(PARAM_ADDRSPACE);
    // Constants first: the builder borrows the module.
    let mut consts: HashMap<i64, Operand> = HashMap::new();
    let mut need = |m: &mut Module, o: i64| {
        consts
            .entry(o)
            .or_insert_with(|| m.const_int(TypeId::I64, o));
    };
    for (p, _) in params {
        for step in &p.steps {
            let addr = match *step {
                Step::DynGep { base, .. } => base,
                Step::Load { addr, .. } => addr,
            };
            match addr {
                Addr::Root(o) => need(m, o),
                Addr::Dyn { extra, .. } => need(m, extra),
            }
        }
    }
    // Entry: the cast and the constant-offset pointers, per parameter.
    let mut roots: Vec<HashMap<i64, Operand>> = Vec::new();
    {
        let mut b = m.builder(Position::EntryAllocas(f))?;
        for (p, _) in params {
            let label = param_label(b.module(), f, p.index);
            let arg = b
                .module()
                .function(f)
                .param(p.index)
                .map(|a| a.operand())
                .ok_or_else(|| EditError::Invalid("no such parameter".into()))?;
            let cast = b.cast(Opcode::AddrSpaceCast, arg, p101, &format!("{label}.param"))?;
            let mut offsets: Vec<i64> = p
                .steps
                .iter()
                .filter_map(|s| match *s {
                    Step::DynGep {
                        base: Addr::Root(o),
                        ..
                    }
                    | Step::Load {
                        addr: Addr::Root(o),
                        ..
                    } => Some(o),
                    _ => None,
                })
                .collect();
            offsets.sort_unstable();
            offsets.dedup();
            let mut map = HashMap::new();
            map.insert(0, cast);
            for o in offsets.into_iter().filter(|&o| o != 0) {
                let ptr = b.gep(
                    TypeId::I8,
                    cast,
                    &[consts[&o]],
                    true,
                    &format!("{label}.param.{o}"),
                )?;
                map.insert(o, ptr);
            }
            roots.push(map);
        }
    }
    for ((p, _), roots) in params.iter().zip(&roots) {
        let label = param_label(m, f, p.index);
        let mut dyn_ptrs: HashMap<InstId, Operand> = HashMap::new();
        let off_name = format!("{label}.param.off");
        let param_align = byval_align(m, f, p);
        for step in &p.steps {
            match *step {
                Step::DynGep { old, base } => {
                    let view = m.inst(old);
                    let source = view.element_type().unwrap_or(TypeId::I8);
                    let indices: Vec<Operand> = view.operands().skip(1).collect();
                    let inbounds = has_word(view.text(), "inbounds");
                    let name = view
                        .name()
                        .map(|n| format!("{}.param", String::from_utf8_lossy(&n)))
                        .unwrap_or_else(|| format!("{label}.param.idx"));
                    let dbg = old;
                    let mut b = m.builder(Position::Before(old))?;
                    b.debug_loc_from(dbg);
                    let base = materialize(&mut b, &off_name, base, roots, &dyn_ptrs, &consts)?;
                    let new = b.gep(source, base, &indices, inbounds, &name)?;
                    dyn_ptrs.insert(old, new);
                }
                Step::Load { old, addr } => {
                    let view = m.inst(old);
                    let ty = view.ty();
                    let mut align = view.alignment().unwrap_or_else(|| {
                        crate::target_layout().abi_align(m.types(), ty).unwrap_or(1)
                    });
                    if let Addr::Root(o) = addr {
                        // What NVPTXLowerArgs does too: the parameter's alignment tells
                        // more than the load's.
                        align = align.max(crate::parts::common_align(param_align, o as u64));
                    }
                    let name = match addr {
                        Addr::Root(o) => format!("{label}.{o}"),
                        Addr::Dyn { .. } => format!("{label}.elt"),
                    };
                    let new = {
                        let mut b = m.builder(Position::Before(old))?;
                        b.debug_loc_from(old);
                        let ptr = materialize(&mut b, &off_name, addr, roots, &dyn_ptrs, &consts)?;
                        b.load(ty, ptr, align, &name)?
                    };
                    m.replace_inst(old, new)?;
                }
            }
        }
    }
    // The old address computations, now unused (users before their bases).
    let mut dead: Vec<InstId> = params.iter().flat_map(|(p, _)| p.dead.clone()).collect();
    loop {
        let before = dead.len();
        let mut kept = Vec::new();
        for &g in dead.iter().rev() {
            if m.uses(Value::Inst(g)).is_empty() {
                m.remove_inst(g)?;
            } else {
                kept.push(g);
            }
        }
        kept.reverse();
        dead = kept;
        if dead.len() == before {
            break;
        }
    }
    Ok(())
}

/// The alignment of a byval parameter: its `align` attribute or its type's ABI alignment,
/// whichever is larger.
pub fn byval_align(m: &Module, f: FuncId, p: &ByvalParam) -> u64 {
    let attr = m
        .function(f)
        .param(p.index)
        .and_then(|a| {
            a.attrs().iter().find_map(|x| match x {
                Attr::Align(n) => Some(*n),
                _ => None,
            })
        })
        .unwrap_or(1);
    let abi = crate::target_layout()
        .abi_align(m.types(), p.ty)
        .unwrap_or(1);
    attr.max(abi)
}

fn materialize(
    b: &mut fmtstr_ir::Builder<'_>,
    name: &str,
    addr: Addr,
    roots: &HashMap<i64, Operand>,
    dyn_ptrs: &HashMap<InstId, Operand>,
    consts: &HashMap<i64, Operand>,
) -> Result<Operand, EditError> {
    let missing = || EditError::Invalid("an address was not materialized".into());
    match addr {
        Addr::Root(o) => roots.get(&o).copied().ok_or_else(missing),
        Addr::Dyn { gep, extra } => {
            let base = dyn_ptrs.get(&gep).copied().ok_or_else(missing)?;
            if extra == 0 {
                return Ok(base);
            }
            let offset = consts.get(&extra).copied().ok_or_else(missing)?;
            b.gep(TypeId::I8, base, &[offset], true, name)
        }
    }
}
