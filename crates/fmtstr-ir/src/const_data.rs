//! The records of constants: what each kind of constant holds, and the fixed ones.
//!
//! Input: what the parser read (or an edit made). Output: the [`ConstData`] records a
//! module's arena holds, which the public view (`constant`), the printer and the edits read.
//! Below the module, which holds them.

use crate::inst::{Opcode, NONE};
use crate::types::TypeId;
use crate::value::ConstId;

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
        start: NONE,
        end: NONE,
    })
    .collect()
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
