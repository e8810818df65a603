//! `--pass strip`: printf compiled out, for a release build, without touching the source.
//!
//! Every call to `printf` and to `lgc.debug.printf` (either of LLPC's forms) goes. Nothing
//! else changes:
//!
//! - A call whose result something uses is replaced by `i32 0` there, with a warning
//!   (`-Wprintf-result`): the program sees "0 characters printed".
//! - The arguments are separate instructions in LLVM IR, so the side effects of computing
//!   them (`printf("%d", next())`) stay; only the call itself is removed.
//! - The declarations of `printf` and `lgc.debug.printf` go once nothing refers to them (a
//!   definition stays).
//! - Format-string globals stay where they are: the output differs from the input only in the
//!   removed lines and the replaced uses, so a diff shows exactly what was compiled out
//!   (llc drops unreferenced private globals anyway).
//!
//! The pass needs no target and no DataLayout, and does not look at the format strings: a
//! call the lowering would refuse (a runtime format, an unknown form) is stripped all the same.

use fmtstr_ir::{EditError, GlobalId, InstId, Module, TypeId, Value};

use crate::diag::{Diagnostic, Location};
use crate::extract::{LGC_DEBUG_PRINTF, PRINTF};

/// The warning group of a stripped call whose result was used.
pub const RESULT_FLAG: &str = "-Wprintf-result";

/// What [`strip`] did.
#[derive(Debug, Default)]
pub struct Stripped {
    /// How many calls were removed.
    pub calls: usize,
    /// One warning per call whose result was used (now 0), in module order.
    pub warnings: Vec<Diagnostic>,
}

/// Removes every `printf` and `lgc.debug.printf` call of `module` (see the module's
/// documentation). An error only when fmtstr-ir refuses an edit: the module must then be
/// dropped.
pub fn strip(module: &mut Module) -> Result<Stripped, EditError> {
    let targets: Vec<GlobalId> = [PRINTF, LGC_DEBUG_PRINTF]
        .iter()
        .filter_map(|name| module.global_by_name(name))
        .collect();
    let mut out = Stripped::default();
    if targets.is_empty() {
        return Ok(out);
    }
    // The calls, and which of them something uses, function by function.
    let mut calls: Vec<(InstId, bool)> = Vec::new();
    for function in module.functions() {
        let first = calls.len();
        for inst in function.instructions() {
            if let Some(call) = inst.as_call() {
                if matches!(call.callee().value, Value::Global(g) if targets.contains(&g)) {
                    calls.push((inst.id(), false));
                }
            }
        }
        if calls[first..]
            .iter()
            .all(|&(c, _)| !module.inst(c).may_be_used())
        {
            continue;
        }
        for inst in function.instructions() {
            for op in inst.operands() {
                if let Value::Inst(id) = op.value {
                    if let Some(entry) = calls[first..].iter_mut().find(|(c, _)| *c == id) {
                        entry.1 = true;
                    }
                }
            }
        }
    }
    for &(inst, used) in &calls {
        let ty = module.inst(inst).ty();
        if used && ty != TypeId::VOID {
            out.warnings.push(Location::of(module, inst).warning(
                format!(
                    "printf's result is used: with printf stripped it is {} 0 there (the number of characters printed)",
                    module.types().display(ty)
                ),
                RESULT_FLAG,
            ));
            let zero = module.const_int(ty, 0);
            module.replace_inst(inst, zero)?;
        } else {
            module.remove_inst(inst)?;
        }
    }
    out.calls = calls.len();
    for name in [PRINTF, LGC_DEBUG_PRINTF] {
        crate::remove_declaration_if_unused(module, name)?;
    }
    Ok(out)
}
