//! How one scalar value of a payload is read: the operations a compiled format is made of,
//! shared by the layout (`formats`) and the planned hot path (`plan`).

/// How one scalar value (one vector component) is read from the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Op {
    /// One dword as it is (`*`, unsigned conversions, `%c`).
    Zero32,
    /// One dword, sign-extended (`d i`).
    Sign32,
    /// Two dwords as an integer.
    Int64,
    /// One dword of float bits.
    Float32,
    /// Two dwords of double bits.
    Float64,
    /// A pointer in one or two dwords.
    Ptr32,
    Ptr64,
    /// A `%s` pointer in one or two dwords.
    Str32,
    Str64,
    /// A `%s` whose bytes travel in the entry: a length word, then this many bytes reserved
    /// (`fmtstr lower --runtime-strings`).
    StrInline(u32),
}

/// The length word of an inline string: the bytes copied in bits 0 to 30.
pub(crate) const INLINE_LENGTH_MASK: u32 = 0x7FFF_FFFF;
/// Set in the length word when the string was cut.
pub(crate) const INLINE_CUT_BIT: u32 = 1 << 31;
/// The length word of a null pointer.
pub(crate) const INLINE_NULL: u32 = u32::MAX;
/// The most bytes an inline string may reserve (as `fmtstr lower` allows).
pub(crate) const INLINE_MOST_BYTES: u64 = 4096;

/// Dwords of an inline string reserving `bytes` bytes.
pub(crate) fn inline_dwords(bytes: u32) -> u32 {
    1 + bytes.div_ceil(4)
}
