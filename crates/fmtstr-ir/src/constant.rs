//! Constants as the passes see them: literals, aggregates and constant expressions.
//!
//! Input: a module's constant records (`const_data`). Output: [`Constant`], what
//! [`Module::constant`] says a constant is. Parsed constants keep their source span, so they print
//! exactly as written wherever they are reused; constants made by edits print in LLVM's style.
//! Small integers are shared (one record for every `i32 0` of a module): an operand's type lives in
//! the operand, not the constant.

use crate::const_data::{parse_int, ConstData, ConstKind};
use crate::inst::Opcode;
use crate::module::Module;
use crate::types::{write_f64, TypeId};
use crate::value::{ConstId, Operand, PackedOp};

/// What a constant is.
#[derive(Clone, Debug, PartialEq)]
pub enum Constant<'m> {
    /// An integer (`i1 true` is 1; negative numbers as written, e.g. `i8 -1` is -1).
    Int(i128),
    /// A floating literal, as spelled (`1.000000e+00`, `0x3FF0000000000000`, `0xH3C00`).
    Float(std::borrow::Cow<'m, str>),
    /// `null`.
    Null,
    /// `undef`.
    Undef,
    /// `poison`.
    Poison,
    /// `zeroinitializer`.
    ZeroInitializer,
    /// `none`.
    NoneToken,
    /// `c"..."`, decoded.
    Bytes(Vec<u8>),
    /// `{ ... }` or `<{ ... }>`.
    Struct(Vec<Operand>),
    /// `[ ... ]`.
    Array(Vec<Operand>),
    /// `< ... >`.
    Vector(Vec<Operand>),
    /// A constant expression: `getelementptr` (with its source element type), a cast (with
    /// its destination type), or an arithmetic operation.
    Expr {
        /// The operation.
        opcode: Opcode,
        /// The GEP source element type or the cast destination type.
        ty: Option<TypeId>,
        /// The operands (for a GEP: the base pointer, then the indices).
        operands: Vec<Operand>,
        /// `getelementptr inbounds`.
        inbounds: bool,
    },
    /// `splat (T v)`.
    Splat(Operand),
    /// Anything kept as source text (`blockaddress(...)`, inline `asm`, ...).
    Other(&'m [u8]),
}

impl Module {
    pub(crate) fn const_data(&self, id: ConstId) -> ConstData {
        self.consts.get(id.index()).copied().unwrap_or(ConstData {
            kind: ConstKind::Opaque,
            start: 0,
            end: 0,
        })
    }

    fn op_list(&self, start: u32, len: u32) -> Vec<Operand> {
        self.ops
            .get(start as usize..(start as usize).saturating_add(len as usize))
            .unwrap_or(&[])
            .iter()
            .map(|op| op.get())
            .collect()
    }

    pub(crate) fn const_ops(&self, id: ConstId) -> &[PackedOp] {
        let (start, len) = match self.const_data(id).kind {
            ConstKind::Struct { ops, len, .. }
            | ConstKind::Array { ops, len }
            | ConstKind::Vector { ops, len }
            | ConstKind::Expr { ops, len, .. } => (ops, len),
            ConstKind::Splat(op) => (op, 1),
            _ => (0, 0),
        };
        self.ops
            .get(start as usize..(start as usize).saturating_add(len as usize))
            .unwrap_or(&[])
    }

    /// What a constant is.
    pub fn constant(&self, id: ConstId) -> Constant<'_> {
        let data = self.const_data(id);
        let text = || {
            self.src
                .get(data.start as usize..data.end as usize)
                .unwrap_or(&[])
        };
        match data.kind {
            ConstKind::Int(v) => Constant::Int(i128::from(v)),
            ConstKind::BigInt => match parse_int(text()) {
                Some(v) => Constant::Int(v),
                None => Constant::Other(text()),
            },
            ConstKind::FloatText => Constant::Float(String::from_utf8_lossy(text())),
            ConstKind::F64(bits) => {
                let mut out = Vec::new();
                write_f64(f64::from_bits(bits), &mut out);
                Constant::Float(String::from_utf8_lossy(&out).into_owned().into())
            }
            ConstKind::Null => Constant::Null,
            ConstKind::Undef => Constant::Undef,
            ConstKind::Poison => Constant::Poison,
            ConstKind::Zero => Constant::ZeroInitializer,
            ConstKind::NoneToken => Constant::NoneToken,
            ConstKind::CString => {
                let raw = text();
                let body = raw.get(2..raw.len().saturating_sub(1)).unwrap_or(&[]);
                Constant::Bytes(crate::lexer::unescape(body))
            }
            ConstKind::NewBytes(i) => Constant::Bytes(
                self.byte_strings
                    .get(i as usize)
                    .map_or(Vec::new(), |b| b.to_vec()),
            ),
            ConstKind::Struct { ops, len, .. } => Constant::Struct(self.op_list(ops, len)),
            ConstKind::Array { ops, len } => Constant::Array(self.op_list(ops, len)),
            ConstKind::Vector { ops, len } => Constant::Vector(self.op_list(ops, len)),
            ConstKind::Expr {
                opcode,
                ty,
                ops,
                len,
                inbounds,
            } => Constant::Expr {
                opcode,
                ty: (opcode == Opcode::GetElementPtr || opcode.is_cast()).then_some(ty),
                operands: self.op_list(ops, len),
                inbounds,
            },
            ConstKind::Splat(op) => match self.ops.get(op as usize) {
                Some(op) => Constant::Splat(op.get()),
                None => Constant::Other(text()),
            },
            ConstKind::Opaque => Constant::Other(text()),
        }
    }

    /// The integer value of a constant, when it is an integer.
    pub fn int_value(&self, id: ConstId) -> Option<i128> {
        match self.constant(id) {
            Constant::Int(v) => Some(v),
            _ => None,
        }
    }
}
