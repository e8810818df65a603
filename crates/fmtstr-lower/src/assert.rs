//! `--pass assert`: a failed `assert()` in device code is printed through the target's printf
//! path, then traps.
//!
//! Input: calls of the functions `assert()` expands to:
//!
//! | function | who declares it | operands |
//! | --- | --- | --- |
//! | `__assert_fail` | glibc's `<assert.h>` | expression, file, line, function |
//! | `__assertfail` | CUDA's device runtime | expression, file, line, function, char size |
//!
//! Output: in place of each, `printf("%s:%u: %s: Assertion `%s' failed.\n", file, line,
//! function, expression)` and `call void @llvm.trap()`; what followed the call (`unreachable`)
//! stays. The text is glibc's `assert` message without its program-name prefix (a GPU thread
//! has no program name): `k.c:12: work: Assertion `i < 3' failed.`. The printf calls are then
//! lowered like any other, so `--prefix`, `--only` and `--limit-per-site` apply to them.

use fmtstr_ir::{Attr, EditError, InstId, Module, Operand, Position, TypeId};

use crate::extract::PRINTF;

/// glibc's assert failure function.
pub const ASSERT_FAIL: &str = "__assert_fail";
/// CUDA's.
pub const ASSERTFAIL: &str = "__assertfail";
/// The message, as glibc's `__assert_fail` prints it after the program name.
pub const MESSAGE: &[u8] = b"%s:%u: %s: Assertion `%s' failed.\n\0";

/// Rewrites every assert failure call into a printf and a trap; returns how many.
pub fn asserts_to_printf(module: &mut Module) -> Result<usize, EditError> {
    let mut calls: Vec<InstId> = module.calls_to(ASSERT_FAIL);
    calls.extend(module.calls_to(ASSERTFAIL));
    if calls.is_empty() {
        return Ok(0);
    }
    let ptr = module.types_mut().ptr(0);
    let printf_ty = module.types_mut().function(TypeId::I32, &[ptr], true);
    let printf = module.declare_function(PRINTF, printf_ty)?;
    let trap_ty = module.types_mut().function(TypeId::VOID, &[], false);
    let trap = module.declare_function("llvm.trap", trap_ty)?;
    let format = module.add_string_global("fmtstr.assert", MESSAGE, 0);
    let format = module.global(format).operand();
    for &call in &calls {
        let operands: Vec<Operand> = match module.inst(call).as_call() {
            Some(view) => view.args().map(|a| a.operand).collect(),
            None => continue,
        };
        let [expression, file, line, function, ..] = operands[..] else {
            return Err(EditError::Invalid(format!(
                "a call of {ASSERT_FAIL} or {ASSERTFAIL} with {} operands: expected the \
                 expression, the file, the line and the function",
                operands.len()
            )));
        };
        let no_attrs: &[Attr] = &[];
        let print = {
            let mut b = module.builder(Position::Before(call))?;
            b.debug_loc_from(call);
            let print = b.call(
                printf,
                &[
                    (format, no_attrs),
                    (file, no_attrs),
                    (line, no_attrs),
                    (function, no_attrs),
                    (expression, no_attrs),
                ],
                "",
            )?;
            b.call(trap, &[], "")?;
            print
        };
        module.stand_in(print, call)?;
        module.remove_inst(call)?;
    }
    let declarations: Vec<_> = [ASSERT_FAIL, ASSERTFAIL]
        .iter()
        .filter_map(|name| module.global_by_name(name))
        .collect();
    module.remove_unused_globals(&declarations)?;
    Ok(calls.len())
}
