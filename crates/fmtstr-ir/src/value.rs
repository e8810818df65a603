//! Ids, values and operands: how every record of a module names another.
//!
//! Input: nothing but the type ids. Output: the typed ids of the module's arenas ([`InstId`],
//! [`GlobalId`], ...), the [`Value`] an operand refers to, and the 32-bit packed forms the
//! arenas store. Kept apart from the module itself so that the records below it (constants,
//! metadata) can name values without depending on the module that holds them.

use crate::types::TypeId;

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub(crate) u32);

        impl $name {
            /// The index in the module's table (stable across edits).
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }
    };
}

id_type!(
    /// A global symbol: a global variable, function, alias or ifunc.
    GlobalId
);
id_type!(
    /// A function (declaration or definition).
    FuncId
);
id_type!(
    /// A basic block.
    BlockId
);
id_type!(
    /// An instruction.
    InstId
);
id_type!(
    /// A function parameter.
    ArgId
);
id_type!(
    /// A constant (literal, aggregate or constant expression).
    ConstId
);
id_type!(
    /// A metadata node (numbered `!N`, inline `!{...}`, or a string `!"..."`).
    MdId
);

/// A value an operand refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Value {
    /// The result of an instruction.
    Inst(InstId),
    /// A function parameter.
    Arg(ArgId),
    /// A basic block (as `label %bb`).
    Block(BlockId),
    /// A global variable, function, alias or ifunc (a pointer).
    Global(GlobalId),
    /// A constant.
    Const(ConstId),
    /// Metadata passed as a value (`metadata !12`).
    Metadata(MdId),
}

/// Stands in a function's table of numbered values for a number the text skipped
/// (`%5 = ...` right after `%2`: LLVM 19 accepts increasing numbers with gaps). No value is it.
pub(crate) const NUMBER_GAP: Value = Value::Const(ConstId(u32::MAX));

impl Value {
    /// Whether the value belongs to one function (an instruction, parameter or block).
    pub fn is_local(self) -> bool {
        matches!(self, Value::Inst(_) | Value::Arg(_) | Value::Block(_))
    }
}

/// A typed value: what an instruction operand, call argument or initializer is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Operand {
    /// The value's type.
    pub ty: TypeId,
    /// The value.
    pub value: Value,
}

const TAG_SHIFT: u32 = 29;
pub(crate) const MAX_INDEX: u32 = (1 << TAG_SHIFT) - 1;
const TAG_FORWARD: u32 = 6;

/// A value packed into 32 bits: 3 tag bits and a 29-bit index.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct PackedValue(pub u32);

impl PackedValue {
    pub fn pack(value: Value) -> PackedValue {
        let (tag, index) = match value {
            Value::Inst(id) => (0, id.0),
            Value::Arg(id) => (1, id.0),
            Value::Block(id) => (2, id.0),
            Value::Global(id) => (3, id.0),
            Value::Const(id) => (4, id.0),
            Value::Metadata(id) => (5, id.0),
        };
        PackedValue(tag << TAG_SHIFT | (index & MAX_INDEX))
    }

    /// A placeholder for a local used before its definition: `index` into the parser's list.
    pub fn forward(index: u32) -> PackedValue {
        PackedValue(TAG_FORWARD << TAG_SHIFT | (index & MAX_INDEX))
    }

    pub fn forward_index(self) -> Option<u32> {
        (self.0 >> TAG_SHIFT == TAG_FORWARD).then_some(self.0 & MAX_INDEX)
    }

    /// Whether it is a local value (an instruction's result, a parameter, a block), read from
    /// its tag alone.
    pub fn is_local(self) -> bool {
        self.0 >> TAG_SHIFT <= 2
    }

    pub fn unpack(self) -> Value {
        let index = self.0 & MAX_INDEX;
        match self.0 >> TAG_SHIFT {
            0 => Value::Inst(InstId(index)),
            1 => Value::Arg(ArgId(index)),
            2 => Value::Block(BlockId(index)),
            3 => Value::Global(GlobalId(index)),
            5 => Value::Metadata(MdId(index)),
            // Forward references are all resolved before the parser returns.
            _ => Value::Const(ConstId(index)),
        }
    }
}

/// An operand as the arenas store it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PackedOp {
    pub ty: TypeId,
    pub value: PackedValue,
}

impl PackedOp {
    pub fn new(op: Operand) -> PackedOp {
        PackedOp {
            ty: op.ty,
            value: PackedValue::pack(op.value),
        }
    }

    pub fn get(self) -> Operand {
        Operand {
            ty: self.ty,
            value: self.value.unpack(),
        }
    }
}
