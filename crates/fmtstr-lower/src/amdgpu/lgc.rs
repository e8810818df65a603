//! Stage lgc: `printf` becomes LLPC's `lgc.debug.printf`.
//!
//! Input: the modelled `printf` calls. Output: each call replaced by today's form
//! ([`LgcForm::FormatFirst`], the default)
//!
//! ```text
//! call void (...) @lgc.debug.printf(ptr @fmt, args...)
//! ```
//!
//! which LLPC (since mid 2024) lowers with the buffer it fetches from the descriptor itself, or
//! by the older form ([`LgcForm::BufferFirst`])
//!
//! ```text
//! call void (...) @lgc.debug.printf(ptr addrspace(7) %printfBuffer, ptr addrspace(4) @fmt, args...)
//! ```
//!
//! with the buffer from the function's entry block (see the module above); both with
//! `declare void @lgc.debug.printf(...)`.
//!
//! - The format must be a whole NUL-terminated `[n x i8]` constant (LLPC reads the global's
//!   initializer, not a pointer into it): in address space 0 or 4 for today's form, 4 for the
//!   older one. A format string that already is one is passed as it is; any other (a pointer
//!   into the middle of a string, or the wrong address space) moves to a new `private
//!   unnamed_addr constant` holding exactly its bytes and a NUL (in address space 0, or 4 for
//!   the older form), one per distinct string, and the old global goes once nothing uses it.
//! - The arguments keep the types `lgc.debug.printf` accepts (`carry` in the module above): C's integer
//!   promotion of narrow scalars, pointers as their address; `%s` is an error.
//! - printf's result has no counterpart: its uses become 0, with a `-Wprintf-result` warning.
//! - Form 85 (a pre-packed buffer) has no counterpart either: an error.

use std::collections::HashMap;

use fmtstr_ir::{EditError, GlobalId, Module, Operand, Position, TypeId};

use super::{carry, BufferSource, Carry, LgcForm, Settings};
use crate::diag::Diagnostic;
use crate::model::{Form, PrintfCall};

/// LGC's printf operation.
pub const OPERATION: &str = crate::model::LGC_DEBUG_PRINTF;

/// The planned rewrite.
#[derive(Debug)]
pub(crate) struct Plan {
    buffer_addrspace: u32,
    form: LgcForm,
    calls: Vec<CallPlan>,
}

#[derive(Debug)]
struct CallPlan {
    carries: Vec<Carry>,
    /// The format global to pass when the call's own one is already right.
    format: Option<GlobalId>,
}

/// A warning for a call whose result is used: printf's result has no AMD counterpart.
pub(crate) fn result_warning(module: &Module, call: &PrintfCall) -> Option<Diagnostic> {
    call.result_used.then(|| {
        call.location(module).warning(
            "printf's result has no counterpart in the AMD printf protocol: its uses become 0",
            "-Wprintf-result",
        )
    })
}

/// The error for a form-85 call.
pub(crate) fn prepacked_error(module: &Module, call: &PrintfCall) -> Diagnostic {
    call.location(module).error(
        "printf form 85 (pre-packed buffer) has no counterpart in the AMD printf protocol, \
         which needs the arguments themselves",
    )
}

pub(crate) fn plan(
    module: &Module,
    calls: &[PrintfCall],
    settings: &Settings,
    diagnostics: &mut Vec<Diagnostic>,
) -> Plan {
    let buffer_addrspace = settings.buffer_addrspace;
    let form = settings.lgc_form;
    if let Some(first) = calls.first() {
        if form == LgcForm::BufferFirst {
            if let Some(message) = BufferSource::check(module, buffer_addrspace) {
                diagnostics.push(first.location(module).error(message));
            }
        }
        if let Some(f) = module.function_by_name(OPERATION) {
            let ty = module.function(f).function_type();
            if module.types().function_parts(ty) != Some((TypeId::VOID, &[][..], true)) {
                diagnostics.push(first.location(module).error(format!(
                    "the module declares @{OPERATION} with type {}; LLPC declares it as void \
                     (...)",
                    module.types().display(ty)
                )));
            }
        }
    }
    let mut planned = Vec::with_capacity(calls.len());
    for call in calls {
        if call.form == Form::PrePacked {
            diagnostics.push(prepacked_error(module, call));
        }
        diagnostics.extend(result_warning(module, call));
        let mut carries = Vec::with_capacity(call.args.len());
        for (index, arg) in call.args.iter().enumerate() {
            match carry(module, call, arg, super::Stage::Lgc, None) {
                Ok(c) => carries.push(c),
                Err(message) => diagnostics.push(
                    call.location(module)
                        .error(format!("argument {} {message}", index + 1)),
                ),
            }
        }
        let format = &call.format;
        let whole = module.global_bytes(format.global).is_some_and(|bytes| {
            bytes.len() == format.bytes.len() + 1 && bytes.starts_with(&format.bytes)
        });
        let addrspace_fits = match form {
            LgcForm::FormatFirst => matches!(format.addrspace, 0 | super::CONSTANT_ADDRSPACE),
            LgcForm::BufferFirst => format.addrspace == super::CONSTANT_ADDRSPACE,
        };
        let reuse = addrspace_fits && format.offset == 0 && whole;
        planned.push(CallPlan {
            carries,
            format: reuse.then_some(format.global),
        });
    }
    Plan {
        buffer_addrspace,
        form,
        calls: planned,
    }
}

pub(crate) fn apply(
    module: &mut Module,
    calls: &[PrintfCall],
    plan: Plan,
) -> Result<(), EditError> {
    let operation = match module.function_by_name(OPERATION) {
        Some(f) => f,
        None => {
            let ty = module.types_mut().function(TypeId::VOID, &[], true);
            module.declare_function(OPERATION, ty)?
        }
    };
    let mut buffers = BufferSource::new(plan.buffer_addrspace);
    let mut moved: HashMap<&[u8], GlobalId> = HashMap::new();
    let mut old_globals = Vec::new();
    let new_addrspace = match plan.form {
        LgcForm::FormatFirst => 0,
        LgcForm::BufferFirst => super::CONSTANT_ADDRSPACE,
    };
    for (call, planned) in calls.iter().zip(&plan.calls) {
        let buffer = match plan.form {
            LgcForm::FormatFirst => None,
            LgcForm::BufferFirst => Some(buffers.get(module, call.function)?),
        };
        let format = match planned.format {
            Some(g) => module.global(g).operand(),
            None => {
                let g = match moved.get(&*call.format.bytes) {
                    Some(&g) => g,
                    None => {
                        let mut bytes = call.format.bytes.to_vec();
                        bytes.push(0);
                        let name = module.global(call.format.global).name_str().into_owned();
                        let g = module.add_string_global(&name, &bytes, new_addrspace);
                        moved.insert(&call.format.bytes, g);
                        g
                    }
                };
                old_globals.push(call.format.global);
                module.global(g).operand()
            }
        };
        let zero = module.const_int(TypeId::I32, 0);
        let mut current = Vec::new();
        call.current_variadic(module, &mut current);
        let mut b = module.builder(Position::Before(call.inst))?;
        b.debug_loc_from(call.inst);
        let mut args: Vec<Operand> = buffer.into_iter().collect();
        args.push(format);
        for (operand, c) in current.into_iter().zip(&planned.carries) {
            args.push(c.emit(&mut b, operand)?);
        }
        let with_attrs: Vec<(Operand, &[fmtstr_ir::Attr])> =
            args.iter().map(|a| (*a, &[][..])).collect();
        b.call(operation, &with_attrs, "")?;
        drop(b);
        retire(module, call, zero)?;
    }
    crate::remove_printf_if_unused(module)?;
    module.remove_unused_globals(&old_globals)?;
    Ok(())
}

/// Removes the original call; uses of its result become `zero`.
pub(crate) fn retire(
    module: &mut Module,
    call: &PrintfCall,
    zero: Operand,
) -> Result<(), EditError> {
    if call.result_used && module.inst(call.inst).ty() == TypeId::I32 {
        module.replace_inst(call.inst, zero)
    } else {
        module.remove_inst(call.inst)
    }
}
