//! C's default argument promotions, steered by the format.
//!
//! Input: one [`Argument`] of the model. Output: the type the argument has once promoted, and
//! the cast that gets it there. The rules are C's for a variadic call: `float` (and `half`,
//! `bfloat`) becomes `double`; an integer narrower than `int` becomes `int`, sign- or
//! zero-extended as [`Argument::extend`] says (an `i1` always zero-extends) (the call's `signext`/`zeroext` first, then the
//! conversion that reads it: `d i c` and `*` sign-extend, `u o x X` zero-extend). Integers
//! between 33 and 63 bits widen to 64 the same way. Everything else stays as it is.
//!
//! Back ends take what they need: NVPTX applies everything ([`c_promotion`]); the AMD back ends
//! only the integer part ([`int_promotion`]), because the AMD protocol keeps `float` 32 bits wide
//! and marks 64-bit arguments in a mask instead.

use fmtstr_ir::{Builder, EditError, Module, Opcode, Operand, Type, TypeId};

use crate::model::{Argument, Extend};

/// A cast that promotes an argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Promotion {
    /// Already promoted.
    None,
    /// `sext`/`zext` to the type.
    Int(Extend, TypeId),
    /// `fpext` to `double`.
    FpExt,
}

impl Promotion {
    /// The promoted type of a value of type `ty`.
    pub fn result_type(self, ty: TypeId) -> TypeId {
        match self {
            Promotion::None => ty,
            Promotion::Int(_, to) => to,
            Promotion::FpExt => TypeId::DOUBLE,
        }
    }

    /// Emits the cast (nothing for [`Promotion::None`]).
    pub(crate) fn apply(self, b: &mut Builder<'_>, value: Operand) -> Result<Operand, EditError> {
        let (opcode, to, hint) = match self {
            Promotion::None => return Ok(value),
            Promotion::Int(Extend::Sign, to) => (Opcode::SExt, to, "sext"),
            Promotion::Int(Extend::Zero, to) => (Opcode::ZExt, to, "zext"),
            Promotion::FpExt => (Opcode::FPExt, TypeId::DOUBLE, "fpext"),
        };
        b.cast(opcode, value, to, hint)
    }
}

/// The integer part of C's promotions: narrow integers to `i32`, 33 to 63 bits to `i64`.
pub fn int_promotion(module: &Module, arg: &Argument) -> Promotion {
    match module.types().int_bits(arg.operand.ty) {
        // A `bool` is 0 or 1 whatever reads it.
        Some(1) => Promotion::Int(Extend::Zero, TypeId::I32),
        Some(bits) if bits < 32 => Promotion::Int(arg.extend, TypeId::I32),
        Some(bits) if bits > 32 && bits < 64 => Promotion::Int(arg.extend, TypeId::I64),
        _ => Promotion::None,
    }
}

/// All of C's default argument promotions.
pub fn c_promotion(module: &Module, arg: &Argument) -> Promotion {
    match module.types().get(arg.operand.ty) {
        Type::Half | Type::BFloat | Type::Float => Promotion::FpExt,
        _ => int_promotion(module, arg),
    }
}
