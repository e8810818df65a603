//! The argument types the checker judges against: a call's arguments as LLVM IR spells them
//! (in), each displayed in IR's own words for findings (out). IR erases signedness and C's
//! promotions, so one type stands for several C types.

use std::fmt;

/// A scalar type as LLVM IR spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ScalarType {
    /// `iN`, N in 1..=128.
    Int(u16),
    /// `half`
    Half,
    /// `float`
    Float,
    /// `double`
    Double,
    /// `x86_fp80`: C's `long double` on x86.
    X86Fp80,
    /// `fp128`: C's `long double` on AArch64 and others.
    Fp128,
    /// `ptr` (any address space)
    Ptr,
}

impl ScalarType {
    pub(super) fn float_bits(self) -> Option<u32> {
        match self {
            ScalarType::Half => Some(16),
            ScalarType::Float => Some(32),
            ScalarType::Double => Some(64),
            ScalarType::X86Fp80 => Some(80),
            ScalarType::Fp128 => Some(128),
            _ => None,
        }
    }
}

impl fmt::Display for ScalarType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ScalarType::Int(bits) => write!(f, "i{bits}"),
            ScalarType::Half => f.write_str("half"),
            ScalarType::Float => f.write_str("float"),
            ScalarType::Double => f.write_str("double"),
            ScalarType::X86Fp80 => f.write_str("x86_fp80"),
            ScalarType::Fp128 => f.write_str("fp128"),
            ScalarType::Ptr => f.write_str("ptr"),
        }
    }
}

/// The type of one argument of a printf call, as LLVM IR spells it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArgType {
    /// A scalar.
    Scalar(ScalarType),
    /// `<len x element>`
    Vector {
        /// Number of elements.
        len: u16,
        /// Element type.
        element: ScalarType,
    },
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgType::Scalar(scalar) => write!(f, "{scalar}"),
            ArgType::Vector { len, element } => write!(f, "<{len} x {element}>"),
        }
    }
}
