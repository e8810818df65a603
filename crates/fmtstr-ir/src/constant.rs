//! Constants: literals, aggregates and constant expressions.
//!
//! Parsed constants keep their source span, so they print exactly as written wherever they are
//! reused; constants made by edits print in LLVM's style. Small integers are shared (one record
//! for every `i32 0` of a module): an operand's type lives in the operand, not the constant.

use crate::inst::Opcode;
use crate::module::{ConstId, Module, Operand, PackedOp};
use crate::types::TypeId;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum ConstKind {
    Int(i64),
    /// An integer too wide for i64: the source text holds it.
    BigInt,
    /// A floating literal: the source text holds it.
    FloatText,
    /// A floating constant made by an edit, as f64 bits.
    F64(u64),
    Null,
    Undef,
    Poison,
    Zero,
    NoneToken,
    /// `c"..."`: the source text holds it.
    CString,
    /// Bytes of a string made by an edit (`Module::byte_strings`).
    NewBytes(u32),
    Struct {
        ops: u32,
        len: u32,
        packed: bool,
    },
    Array {
        ops: u32,
        len: u32,
    },
    Vector {
        ops: u32,
        len: u32,
    },
    Expr {
        opcode: Opcode,
        /// The source element type of a GEP, the destination type of a cast.
        ty: TypeId,
        ops: u32,
        len: u32,
        inbounds: bool,
    },
    Splat(u32),
    /// Kept as text: `blockaddress`, `dso_local_equivalent`, `no_cfi`, `ptrauth`, inline asm,
    /// and constant expressions no pass needs.
    Opaque,
}

impl ConstKind {
    /// A literal: a constant that names no other value.
    pub(crate) fn is_literal(self) -> bool {
        matches!(
            self,
            ConstKind::Int(_)
                | ConstKind::BigInt
                | ConstKind::FloatText
                | ConstKind::F64(_)
                | ConstKind::Null
                | ConstKind::Undef
                | ConstKind::Poison
                | ConstKind::Zero
                | ConstKind::NoneToken
                | ConstKind::CString
                | ConstKind::NewBytes(_)
        )
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct ConstData {
    pub kind: ConstKind,
    pub start: u32,
    pub end: u32,
}

pub(crate) const C_NULL: ConstId = ConstId(0);
pub(crate) const C_UNDEF: ConstId = ConstId(1);
pub(crate) const C_POISON: ConstId = ConstId(2);
pub(crate) const C_ZERO: ConstId = ConstId(3);
pub(crate) const C_NONE: ConstId = ConstId(4);
pub(crate) const C_TRUE: ConstId = ConstId(5);
pub(crate) const C_FALSE: ConstId = ConstId(6);

pub(crate) fn fixed_consts() -> Vec<ConstData> {
    [
        ConstKind::Null,
        ConstKind::Undef,
        ConstKind::Poison,
        ConstKind::Zero,
        ConstKind::NoneToken,
        ConstKind::Int(1),
        ConstKind::Int(0),
    ]
    .into_iter()
    .map(|kind| ConstData {
        kind,
        start: crate::inst::NONE,
        end: crate::inst::NONE,
    })
    .collect()
}

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
                crate::printer::write_f64(f64::from_bits(bits), &mut out);
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

/// Parses a decimal or `s0x`/`u0x` integer literal.
pub(crate) fn parse_int(text: &[u8]) -> Option<i128> {
    if crate::lexer::is_hex_int(text) {
        let digits = std::str::from_utf8(&text[3..]).ok()?;
        let magnitude = u128::from_str_radix(digits, 16).ok()?;
        if text[0] == b's' {
            // A signed hex literal is the two's complement bit pattern of its digits.
            let bits = (digits.len() * 4).min(128) as u32;
            if bits < 128 && magnitude >> (bits - 1) & 1 == 1 {
                return Some(magnitude as i128 - (1i128 << bits));
            }
        }
        return i128::try_from(magnitude).ok();
    }
    std::str::from_utf8(text).ok()?.parse::<i128>().ok()
}
