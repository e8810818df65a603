//! Stage lgc: `printf` becomes LLPC's `lgc.debug.printf`.
//!
//! Input: the modelled `printf` calls. Output: each call replaced by
//!
//! ```text
//! call void (...) @lgc.debug.printf(ptr addrspace(7) %printfBuffer, ptr addrspace(4) @fmt, args...)
//! ```
//!
//! with `declare void @lgc.debug.printf(...)` as seed 004 declares the operation, and the
//! buffer from the function's entry block (see the module above).
//!
//! - The format must be a whole `[n x i8]` constant in address space 4: a format string that
//!   already is one is passed as it is; any other (address space 0, or a pointer into the middle
//!   of a string) moves to a new `private unnamed_addr addrspace(4) constant` holding exactly
//!   its bytes, one per distinct string, and the old global goes once nothing uses it.
//! - The arguments keep the types `lgc.debug.printf` accepts (`carry` in the module above): C's integer
//!   promotion of narrow scalars, pointers as their address; `%s` is an error.
//! - printf's result has no counterpart: its uses become 0, with a `-Wprintf-result` warning.
//! - Form 85 (a pre-packed buffer) has no counterpart either: an error.

use std::collections::HashMap;

use fmtstr_ir::{EditError, GlobalId, Module, Operand, Position, TypeId};

use super::{carry, BufferSource, Carry};
use crate::diag::Diagnostic;
use crate::model::{Form, PrintfCall};

/// LGC's printf operation.
pub const OPERATION: &str = crate::extract::LGC_DEBUG_PRINTF;

/// The planned rewrite.
#[derive(Debug)]
pub(crate) struct Plan {
    buffer_addrspace: u32,
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
    buffer_addrspace: u32,
    diagnostics: &mut Vec<Diagnostic>,
) -> Plan {
    if let Some(first) = calls.first() {
        if let Some(message) = BufferSource::check(module, buffer_addrspace) {
            diagnostics.push(first.location(module).error(message));
        }
        if let Some(f) = module.function_by_name(OPERATION) {
            let ty = module.function(f).function_type();
            if module.types().function_parts(ty) != Some((TypeId::VOID, &[][..], true)) {
                diagnostics.push(first.location(module).error(format!(
                    "the module declares @{OPERATION} with type {}; seed 004 declares it as \
                     void (...)",
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
            match carry(module, call, arg, super::Stage::Lgc) {
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
        let reuse = format.addrspace == super::CONSTANT_ADDRSPACE && format.offset == 0 && whole;
        planned.push(CallPlan {
            carries,
            format: reuse.then_some(format.global),
        });
    }
    Plan {
        buffer_addrspace,
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
    for (call, planned) in calls.iter().zip(&plan.calls) {
        let buffer = buffers.get(module, call.function)?;
        let format = match planned.format {
            Some(g) => module.global(g).operand(),
            None => {
                let g = match moved.get(&*call.format.bytes) {
                    Some(&g) => g,
                    None => {
                        let mut bytes = call.format.bytes.to_vec();
                        bytes.push(0);
                        let name = module.global(call.format.global).name_str().into_owned();
                        let g = module.add_string_global(&name, &bytes, super::CONSTANT_ADDRSPACE);
                        moved.insert(&call.format.bytes, g);
                        g
                    }
                };
                old_globals.push(call.format.global);
                module.global(g).operand()
            }
        };
        let zero = module.const_int(TypeId::I32, 0);
        let current = call.current_variadic(module);
        let mut b = module.builder(Position::Before(call.inst))?;
        b.debug_loc_from(call.inst);
        let mut args: Vec<Operand> = vec![buffer, format];
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
    crate::remove_globals_if_unused(module, &old_globals)
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
