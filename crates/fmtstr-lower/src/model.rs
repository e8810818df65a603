//! The vendor-neutral model of one printf call.
//!
//! The extraction (`extract`) builds a [`PrintfCall`] for every call once; each back end
//! consumes the list and never looks at the call's operands again except through the model.
//! Nothing here knows about a target but the two names the extraction and the AMD back end
//! share (the LGC operation and the fat pointer's address space).

use std::sync::Arc;

use fmtstr_format::ArgClass;
use fmtstr_ir::{FuncId, GlobalId, InstId, Module, Operand, TypeId};

use crate::diag::Location;

/// The name of LGC's printf operation, which the extraction reads and the AMD back end writes.
pub const LGC_DEBUG_PRINTF: &str = "lgc.debug.printf";
/// Address space 7: AMDGPU's buffer fat pointer, the address space of an older
/// `lgc.debug.printf`'s buffer operand and of the AMD printf buffer by default.
pub const FAT_POINTER_ADDRSPACE: u32 = 7;

/// The form of a call: the op-tag byte of its `!printf.form` metadata.
///
/// Taken from the call's `!printf.form !{i8 N}` when it has one, else inferred: a call without
/// variadic arguments is [`Form::Bare`], any other [`Form::Varargs`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Form {
    /// 34: `printf(fmt)`; no buffer (vprintf gets a null pointer).
    Bare,
    /// 40: `printf(fmt, a, b, ...)`; the arguments are packed into a buffer.
    Varargs,
    /// 85: `printf(fmt, buf)`; the caller packed the arguments already and `buf` is forwarded.
    PrePacked,
}

impl Form {
    /// The op-tag byte.
    pub fn tag(self) -> u8 {
        match self {
            Form::Bare => 34,
            Form::Varargs => 40,
            Form::PrePacked => 85,
        }
    }

    /// The form of an op-tag byte, if it is one of the three.
    pub fn from_tag(tag: i128) -> Option<Form> {
        match tag {
            34 => Some(Form::Bare),
            40 => Some(Form::Varargs),
            85 => Some(Form::PrePacked),
            _ => None,
        }
    }
}

/// Which function the call calls.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Callee {
    /// `printf(ptr fmt, ...)`.
    Printf,
    /// LLPC's `lgc.debug.printf`, in either of its forms: today's `(ptr fmt, ...)` (LLPC since
    /// mid 2024; the buffer comes from the descriptor), or the older `(ptr addrspace(7) buf,
    /// ptr addrspace(4) fmt, ...)`, whose `buffer` is its first operand.
    LgcDebugPrintf {
        /// The buffer operand of the older form; `None` in today's.
        buffer: Option<Operand>,
    },
}

impl Callee {
    /// Whether this is the older `lgc.debug.printf` whose buffer operand is `poison` or
    /// `undef`: LLPC's way of saying printf is disabled, so the call is dropped.
    pub fn is_disabled(&self, module: &Module) -> bool {
        match self {
            Callee::LgcDebugPrintf {
                buffer: Some(buffer),
            } => match buffer.value {
                fmtstr_ir::Value::Const(c) => matches!(
                    module.constant(c),
                    fmtstr_ir::Constant::Poison | fmtstr_ir::Constant::Undef
                ),
                _ => false,
            },
            _ => false,
        }
    }
}

/// A format string that resolved to a constant string global.
#[derive(Clone, Debug)]
pub struct FormatString {
    /// The operand as the call passes it (possibly a constant expression).
    pub operand: Operand,
    /// The global it points into.
    pub global: GlobalId,
    /// The byte offset into the global.
    pub offset: i64,
    /// The global's address space (0 or 4).
    pub addrspace: u32,
    /// The string's bytes up to its first NUL, or to the end of its array when it has none
    /// (LLPC's older form), without the NUL (shared by the calls that print it).
    pub bytes: Arc<[u8]>,
}

/// How C's default argument promotion widens a narrow integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Extend {
    /// `sext`: `signext` at the call, else a `d i c` conversion or a `*`, else by default.
    Sign,
    /// `zext`: `zeroext` at the call, else a `u o x X` conversion.
    Zero,
}

/// One variadic argument.
#[derive(Clone, Copy, Debug)]
pub struct Argument {
    /// The typed value passed.
    pub operand: Operand,
    /// What the format reads it as: the class of the conversion that consumes it (`*` widths
    /// and precisions read `int`: [`ArgClass::Signed`]), when the format consumes it.
    pub class: Option<ArgClass>,
    /// How C would widen it if it is a narrow integer.
    pub extend: Extend,
    /// `T` when the argument is a pointer with `byval(T)`: the value is the `T` it points at.
    pub byval: Option<TypeId>,
}

/// One call, as every back end sees it.
#[derive(Clone, Debug)]
pub struct PrintfCall {
    /// The call instruction.
    pub inst: InstId,
    /// The function it is in.
    pub function: FuncId,
    /// `printf` or `lgc.debug.printf`.
    pub callee: Callee,
    /// The form (op-tag).
    pub form: Form,
    /// The format string.
    pub format: FormatString,
    /// The variadic arguments, in order (none for [`Form::PrePacked`]).
    pub args: Vec<Argument>,
    /// [`Form::PrePacked`]'s buffer operand.
    pub prepacked: Option<Operand>,
    /// Whether anything uses the call's result.
    pub result_used: bool,
}

impl PrintfCall {
    /// Where the call is, for a diagnostic.
    pub fn location(&self, module: &Module) -> Location {
        Location::of(module, self.inst)
    }

    /// How many operands precede the variadic ones (the format; and the buffer for the older
    /// `lgc.debug.printf`).
    pub fn fixed_operands(&self) -> usize {
        match self.callee {
            Callee::Printf | Callee::LgcDebugPrintf { buffer: None } => 1,
            Callee::LgcDebugPrintf { buffer: Some(_) } => 2,
        }
    }

    /// The variadic operands as the call has them now: rewriting an earlier call replaces its
    /// result in later calls (`printf("%d", printf(...))`), so a back end reads them here
    /// rather than from [`Argument::operand`]. They replace what `operands` held, so that a
    /// back end can keep one list for all its calls.
    pub fn current_variadic(&self, module: &Module, operands: &mut Vec<Operand>) {
        operands.clear();
        if let Some(call) = module.inst(self.inst).as_call() {
            operands.extend(call.arg_operands().skip(self.fixed_operands()));
        }
    }
}
