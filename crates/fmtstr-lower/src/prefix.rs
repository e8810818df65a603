//! `--prefix`: who printed it. Before lowering, every call's format gets a prefix such as
//! `[block %u,%u,%u thread %u,%u,%u] ` and the ids it prints are passed as leading arguments,
//! read where the call is:
//!
//! | name | NVPTX | AMDGPU |
//! | --- | --- | --- |
//! | `block` or `workgroup` | `llvm.nvvm.read.ptx.sreg.ctaid.{x,y,z}` (`%ctaid`) | `llvm.amdgcn.workgroup.id.{x,y,z}` |
//! | `thread` or `local` | `llvm.nvvm.read.ptx.sreg.tid.{x,y,z}` (`%tid`) | `llvm.amdgcn.workitem.id.{x,y,z}` |
//!
//! The word printed is the name given, in the order given (`--prefix thread,block` prints
//! `[thread 5,0,0 block 1,0,0] `). Because the prefix is part of the format string, CUDA's own
//! printf and any decoder print it, and the AMD table holds the prefixed string with its
//! argument count and mask; `fmtstr decode --sort prefix` sorts by these values.
//!
//! The rewrite replaces each call by one with the new format and arguments (its `!dbg`
//! location kept; the call's result, where used, is the new call's). The lowering that follows
//! sees ordinary printf calls.

use std::collections::HashMap;

use fmtstr_ir::{Attr, EditError, GlobalId, InstId, Module, Operand, Position, TypeId};

use crate::extract::{LGC_DEBUG_PRINTF, PRINTF};
use crate::model::{Callee, PrintfCall};

/// What a prefix item prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PrefixKind {
    /// The block (CUDA) or workgroup (AMD) id.
    Group,
    /// The thread (CUDA) or work-item (AMD) id within its group.
    Local,
}

/// One item of a prefix: what it prints and the word it prints before the values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrefixItem {
    /// The id.
    pub kind: PrefixKind,
    /// The name given (`block`, `workgroup`, `thread`, `local`).
    pub word: &'static str,
}

/// A prefix: up to one item of each kind, in the order given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefix {
    items: [Option<PrefixItem>; 2],
}

/// The names `--prefix` takes, with what they print.
pub const PREFIX_NAMES: [(&str, PrefixKind); 4] = [
    ("block", PrefixKind::Group),
    ("workgroup", PrefixKind::Group),
    ("thread", PrefixKind::Local),
    ("local", PrefixKind::Local),
];

/// Why a prefix is refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PrefixError {
    /// A name that is not one of [`PREFIX_NAMES`].
    #[error(
        "--prefix: unknown name `{0}`: use a comma-separated list of block (or workgroup) and \
         thread (or local), e.g. --prefix block,thread"
    )]
    UnknownName(String),
    /// The same id twice.
    #[error("--prefix: `{0}` names an id already in the prefix: name each of block and thread at most once")]
    Repeated(String),
    /// Nothing.
    #[error("--prefix: empty: give block, thread or both, e.g. --prefix block,thread")]
    Empty,
}

impl Prefix {
    /// Parses `block,thread` (see [`PREFIX_NAMES`]).
    pub fn parse(text: &str) -> Result<Prefix, PrefixError> {
        let mut prefix = Prefix::default();
        let mut len = 0;
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let Some(&(word, kind)) = PREFIX_NAMES.iter().find(|(w, _)| *w == name) else {
                return Err(PrefixError::UnknownName(name.to_owned()));
            };
            if prefix.items().any(|item| item.kind == kind) {
                return Err(PrefixError::Repeated(name.to_owned()));
            }
            prefix.items[len] = Some(PrefixItem { kind, word });
            len += 1;
        }
        if len == 0 {
            return Err(PrefixError::Empty);
        }
        Ok(prefix)
    }

    /// The items, in order.
    pub fn items(&self) -> impl Iterator<Item = PrefixItem> + '_ {
        self.items.iter().flatten().copied()
    }

    /// The format text the prefix adds: `[block %u,%u,%u thread %u,%u,%u] `.
    pub fn format(&self) -> String {
        let parts: Vec<String> = self
            .items()
            .map(|item| format!("{} %u,%u,%u", item.word))
            .collect();
        format!("[{}] ", parts.join(" "))
    }

    /// How many arguments it adds.
    pub fn arguments(&self) -> usize {
        3 * self.items().count()
    }
}

/// The intrinsic that reads component `axis` (0 x, 1 y, 2 z) of `kind` on a target.
pub fn intrinsic(nvptx: bool, kind: PrefixKind, axis: usize) -> String {
    let xyz = ["x", "y", "z"][axis];
    match (nvptx, kind) {
        (true, PrefixKind::Group) => format!("llvm.nvvm.read.ptx.sreg.ctaid.{xyz}"),
        (true, PrefixKind::Local) => format!("llvm.nvvm.read.ptx.sreg.tid.{xyz}"),
        (false, PrefixKind::Group) => format!("llvm.amdgcn.workgroup.id.{xyz}"),
        (false, PrefixKind::Local) => format!("llvm.amdgcn.workitem.id.{xyz}"),
    }
}

/// Reads component `axis` of `kind` right before `at`: a call to its [`intrinsic`], declared
/// on first use, its result named from `name`. `--prefix` and `--only` read the ids this way.
pub(crate) fn read_id(
    module: &mut Module,
    at: InstId,
    nvptx: bool,
    kind: PrefixKind,
    axis: usize,
    name: &str,
) -> Result<Operand, EditError> {
    let ty = module.types_mut().function(TypeId::I32, &[], false);
    let f = module.declare_function(&intrinsic(nvptx, kind, axis), ty)?;
    let mut b = module.builder(Position::Before(at))?;
    let read = b.call(f, &[], name)?;
    b.module()
        .inst(read)
        .result()
        .ok_or_else(|| EditError::Invalid("an id read has no result".into()))
}

/// Rewrites `calls` (as extracted) to print `prefix` first.
pub(crate) fn apply(
    module: &mut Module,
    prefix: &Prefix,
    nvptx: bool,
    calls: &[PrintfCall],
) -> Result<(), EditError> {
    let added = prefix.format().into_bytes();
    let mut globals: HashMap<(GlobalId, i64, u32), GlobalId> = HashMap::new();
    for call in calls {
        let inst = call.inst;
        let format_at = call.fixed_operands() - 1;
        let callee_name = match call.callee {
            Callee::Printf => PRINTF,
            Callee::LgcDebugPrintf { .. } => LGC_DEBUG_PRINTF,
        };
        let Some(callee) = module.function_by_name(callee_name) else {
            continue;
        };
        let view = module.inst(inst);
        let Some(view_call) = view.as_call() else {
            continue;
        };
        let args: Vec<(Operand, Vec<Attr>)> = view_call
            .args()
            .map(|a| (a.operand, a.attrs.to_vec()))
            .collect();
        let result_ty = view.ty();
        let Some(format) = args.get(format_at).map(|(o, _)| *o) else {
            continue;
        };
        let addrspace = module.types().ptr_addrspace(format.ty).unwrap_or(0);
        // The new format: the prefix, then the old one's bytes.
        let key = (call.format.global, call.format.offset, addrspace);
        let new_global = match globals.get(&key) {
            Some(&g) => g,
            None => {
                let mut bytes = added.clone();
                bytes.extend_from_slice(&call.format.bytes);
                bytes.push(0);
                let name = format!(
                    "{}.prefixed",
                    module
                        .global(call.format.global)
                        .name_str()
                        .trim_start_matches('.')
                );
                let g = module.add_string_global(&name, &bytes, addrspace);
                globals.insert(key, g);
                g
            }
        };
        let new_format = module.global(new_global).operand();
        // The ids, read right before the call.
        let mut ids: Vec<Operand> = Vec::new();
        for item in prefix.items() {
            for axis in 0..3 {
                ids.push(read_id(module, inst, nvptx, item.kind, axis, "")?);
            }
        }
        let mut new_args: Vec<(Operand, Vec<Attr>)> = Vec::new();
        for (k, (operand, attrs)) in args.into_iter().enumerate() {
            if k == format_at {
                new_args.push((new_format, attrs));
                new_args.extend(ids.iter().map(|&id| (id, vec![Attr::NoUndef])));
            } else {
                new_args.push((operand, attrs));
            }
        }
        let with_attrs: Vec<(Operand, &[Attr])> =
            new_args.iter().map(|(o, a)| (*o, a.as_slice())).collect();
        let new_call = {
            let mut b = module.builder(Position::Before(inst))?;
            b.debug_loc_from(inst);
            b.call(callee, &with_attrs, "")?
        };
        match module.inst(new_call).result() {
            Some(result) if result_ty != TypeId::VOID => module.replace_inst(inst, result)?,
            _ => module.remove_inst(inst)?,
        }
    }
    // The old formats go where nothing else refers to them.
    let old: Vec<GlobalId> = globals.keys().map(|&(g, _, _)| g).collect();
    module.remove_unused_globals(&old)?;
    Ok(())
}
