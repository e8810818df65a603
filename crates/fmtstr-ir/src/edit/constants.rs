//! Constants made by edits: integers, doubles, and the fixed ones.
//!
//! Input: a type and a value. Output: an operand; an integer of one value is made once, the
//! fixed constants (`null`, `zeroinitializer`, `poison`) are never made anew.

use crate::const_data::{ConstData, ConstKind};
use crate::inst::NONE;
use crate::module::Module;
use crate::types::TypeId;
use crate::value::{Operand, Value};

impl Module {
    pub(super) fn new_const(&mut self, kind: ConstKind) -> crate::value::ConstId {
        let id = crate::value::ConstId(self.consts.len() as u32);
        self.consts.push(ConstData {
            kind,
            start: NONE,
            end: NONE,
        });
        id
    }

    /// An integer constant of type `ty`.
    pub fn const_int(&mut self, ty: TypeId, value: i64) -> Operand {
        let c = match self.new_ints.get(value) {
            Some(c) => c,
            None => {
                let c = self.new_const(ConstKind::Int(value));
                self.new_ints.insert(value, c);
                c
            }
        };
        Operand {
            ty,
            value: Value::Const(c),
        }
    }

    /// A floating constant of type `ty` (printed as LLVM prints doubles).
    pub fn const_f64(&mut self, ty: TypeId, value: f64) -> Operand {
        let c = self.new_const(ConstKind::F64(value.to_bits()));
        Operand {
            ty,
            value: Value::Const(c),
        }
    }

    /// `null` of a pointer type.
    pub fn const_null(&self, ty: TypeId) -> Operand {
        Operand {
            ty,
            value: Value::Const(crate::const_data::C_NULL),
        }
    }

    /// `zeroinitializer` of any type.
    pub fn const_zero(&self, ty: TypeId) -> Operand {
        Operand {
            ty,
            value: Value::Const(crate::const_data::C_ZERO),
        }
    }

    /// `poison` of any type.
    pub fn const_poison(&self, ty: TypeId) -> Operand {
        Operand {
            ty,
            value: Value::Const(crate::const_data::C_POISON),
        }
    }
}
