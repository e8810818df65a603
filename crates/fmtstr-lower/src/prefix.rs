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
//! `[thread 5,0,0 block 1,0,0] `).
//!
//! `site` prints where the call is: its `!dbg` location `file:line:column`, or, without debug
//! information, the name of the function it is in. It is text of the format string itself,
//! fixed when the module is lowered: it costs no argument and no buffer byte
//! (`--prefix site,thread` prints `[k.cu:7:5 thread 5,0,0] `; a `%` in a file name is written
//! `%%`).
//!
//! `seq` prints a sequence number, `#N`, taken from one 64-bit counter for the whole module,
//! the global [`SEQ_COUNTER`] (`addrspace(1) global i64 zeroinitializer`), by an `atomicrmw add` right before
//! the call: every print that ran has its own number, so numbers missing from the output are
//! prints that were lost (`fmtstr gaps`). A host resets the counter through its name
//! (`cudaMemcpyToSymbol(fmtstr_printf_seq, ...)`, or the symbol's address in a code object). Because the prefix is part of the format string, CUDA's own
//! printf and any decoder print it, and the AMD table holds the prefixed string with its
//! argument count and mask; `fmtstr decode --sort prefix` sorts by these values.
//!
//! The rewrite replaces each call by one with the new format and arguments (its `!dbg`
//! location kept; the call's result, where used, is the new call's). The lowering that follows
//! sees ordinary printf calls.

use std::collections::HashMap;

use fmtstr_ir::{
    Attr, EditError, GlobalId, InstId, Module, Operand, Ordering, Position, RmwOp, TypeId,
};

use crate::diag::Location;
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

/// A prefix: the call's site and up to one id of each kind, in the order given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prefix {
    parts: [Option<Part>; 3],
}

/// One part of a prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Part {
    /// Where the call is (`site`).
    Site,
    /// A number from the module's print counter (`seq`).
    Seq,
    /// An id read when the call runs.
    Id(PrefixItem),
}

/// The name of the prefix part that prints the call's site.
pub const SITE: &str = "site";
/// The name of the prefix part that prints a sequence number.
pub const SEQ: &str = "seq";
/// The module's print counter that `seq` reads and increments.
pub const SEQ_COUNTER: &str = "fmtstr_printf_seq";

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
        "--prefix: unknown name `{0}`: use a comma-separated list of site, block (or workgroup) \
         and thread (or local), e.g. --prefix site,block,thread"
    )]
    UnknownName(String),
    /// The same part twice.
    #[error("--prefix: `{0}` names a part already in the prefix: name each of site, block and thread at most once")]
    Repeated(String),
    /// Nothing.
    #[error(
        "--prefix: empty: give site, block, thread or several, e.g. --prefix site,block,thread"
    )]
    Empty,
}

impl Prefix {
    /// Parses `block,thread` (see [`PREFIX_NAMES`]).
    pub fn parse(text: &str) -> Result<Prefix, PrefixError> {
        let mut prefix = Prefix::default();
        let mut len = 0;
        for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            let part = if name == SITE {
                Part::Site
            } else if name == SEQ {
                Part::Seq
            } else {
                let Some(&(word, kind)) = PREFIX_NAMES.iter().find(|(w, _)| *w == name) else {
                    return Err(PrefixError::UnknownName(name.to_owned()));
                };
                Part::Id(PrefixItem { kind, word })
            };
            let repeated = prefix.parts.iter().flatten().any(|old| match (old, &part) {
                (Part::Site, Part::Site) | (Part::Seq, Part::Seq) => true,
                (Part::Id(a), Part::Id(b)) => a.kind == b.kind,
                _ => false,
            });
            if repeated {
                return Err(PrefixError::Repeated(name.to_owned()));
            }
            prefix.parts[len] = Some(part);
            len += 1;
        }
        if len == 0 {
            return Err(PrefixError::Empty);
        }
        Ok(prefix)
    }

    /// The ids it prints, in order.
    pub fn items(&self) -> impl Iterator<Item = PrefixItem> + '_ {
        self.parts.iter().flatten().filter_map(|part| match part {
            Part::Id(item) => Some(*item),
            Part::Site | Part::Seq => None,
        })
    }

    /// Whether it prints a sequence number.
    pub fn has_seq(&self) -> bool {
        self.parts.contains(&Some(Part::Seq))
    }

    /// Whether it prints the call's site.
    pub fn has_site(&self) -> bool {
        self.parts.contains(&Some(Part::Site))
    }

    /// The format text the prefix adds: `[block %u,%u,%u thread %u,%u,%u] `, the site (when
    /// the prefix has one) written as `site`.
    pub fn format(&self) -> String {
        self.format_at(SITE)
    }

    /// The format text the prefix adds to a call at `site` (`file:line:column`).
    pub fn format_at(&self, site: &str) -> String {
        let parts: Vec<String> = self
            .parts
            .iter()
            .flatten()
            .map(|part| match part {
                Part::Id(item) => format!("{} %u,%u,%u", item.word),
                Part::Site => site.replace('%', "%%"),
                Part::Seq => "#%llu".to_owned(),
            })
            .collect();
        format!("[{}] ", parts.join(" "))
    }

    /// How many arguments it adds.
    pub fn arguments(&self) -> usize {
        3 * self.items().count() + usize::from(self.has_seq())
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
    let mut globals: HashMap<(GlobalId, i64, u32, String), GlobalId> = HashMap::new();
    for call in calls {
        let site = if prefix.has_site() {
            site_of(module, call)
        } else {
            String::new()
        };
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
        let key = (call.format.global, call.format.offset, addrspace, site);
        let new_global = match globals.get(&key) {
            Some(&g) => g,
            None => {
                let mut bytes = prefix.format_at(&key.3).into_bytes();
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
        // The values, in the prefix's order, read right before the call.
        let mut ids: Vec<Operand> = Vec::new();
        for part in prefix.parts.iter().flatten() {
            match part {
                Part::Site => {}
                Part::Seq => ids.push(next_seq(module, inst)?),
                Part::Id(item) => {
                    for axis in 0..3 {
                        ids.push(read_id(module, inst, nvptx, item.kind, axis, "")?);
                    }
                }
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
        module.stand_in(new_call, inst)?;
        match module.inst(new_call).result() {
            Some(result) if result_ty != TypeId::VOID => module.replace_inst(inst, result)?,
            _ => module.remove_inst(inst)?,
        }
    }
    // The old formats go where nothing else refers to them.
    let old: Vec<GlobalId> = globals.keys().map(|key| key.0).collect();
    module.remove_unused_globals(&old)?;
    Ok(())
}

/// The next number of the module's print counter (added on first use), taken right before
/// `at`: `atomicrmw add ptr addrspace(1) @fmtstr_printf_seq, i64 1 monotonic`.
fn next_seq(module: &mut Module, at: InstId) -> Result<Operand, EditError> {
    let counter = module.add_zeroed_global(SEQ_COUNTER, TypeId::I64, 8, 1);
    let pointer = module.global(counter).operand();
    let mut b = module.builder(Position::Before(at))?;
    b.debug_loc_from(at);
    let one = b.const_int(TypeId::I64, 1);
    b.atomic_rmw(RmwOp::Add, pointer, one, Ordering::Monotonic, "seq")
}

/// Where a call is, for `site`: its `!dbg` location, else the function it is in.
pub(crate) fn site_of(module: &Module, call: &PrintfCall) -> String {
    Location::of(module, call.inst)
        .source
        .unwrap_or_else(|| module.function(call.function).name_str().into_owned())
}
