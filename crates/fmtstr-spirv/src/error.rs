//! What can be wrong with a module. Every error names the byte offset of the instruction (or
//! header word) it is about, so that `spirv-dis --offsets` or a hex dump finds it.

/// The largest id bound fmtstr reads: spirv-val's default `--max-id-bound` (SPIR-V's universal
/// limit). A larger bound comes from a damaged or hostile file, not from a compiler.
pub const MAX_ID_BOUND: u32 = 0x3F_FFFF;

/// Why a module cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpirvError {
    /// The first word is not the SPIR-V magic number in either byte order.
    #[error("not a SPIR-V module: the first word is not the magic number 0x07230203 in either byte order")]
    NotSpirv,
    /// The file is not a whole number of 32-bit words.
    #[error("the module is {len} bytes, not a whole number of 32-bit words: it is truncated or not SPIR-V")]
    NotWords {
        /// The file's size in bytes.
        len: usize,
    },
    /// Fewer than the five header words.
    #[error("the module has {words} words, fewer than the 5 of a SPIR-V header: it is truncated")]
    HeaderTruncated {
        /// Words present.
        words: usize,
    },
    /// The header's id bound is beyond what any real module has.
    #[error(
        "the header's id bound {bound} (byte 12) is above {MAX_ID_BOUND}, SPIR-V's universal limit \
         (spirv-val --max-id-bound): the header is damaged"
    )]
    BoundTooLarge {
        /// The bound the header gives.
        bound: u32,
    },
    /// An instruction whose word count is 0 (it would never end).
    #[error("the instruction at byte {offset} has a word count of 0: the module is damaged")]
    ZeroWordCount {
        /// Byte offset of the instruction.
        offset: usize,
    },
    /// An instruction that runs past the end of the module.
    #[error(
        "the instruction at byte {offset} (opcode {opcode}) has {word_count} words, but only \
         {remaining} remain: the module is truncated"
    )]
    PastEnd {
        /// Byte offset of the instruction.
        offset: usize,
        /// Its opcode.
        opcode: u16,
        /// The word count it claims.
        word_count: usize,
        /// Words left in the module from its start.
        remaining: usize,
    },
    /// An instruction too short for the operands its opcode requires.
    #[error(
        "the {name} at byte {offset} has {word_count} words, fewer than the {needed} it needs: \
         the module is damaged"
    )]
    TooShort {
        /// Byte offset of the instruction.
        offset: usize,
        /// The instruction's name.
        name: &'static str,
        /// Its word count.
        word_count: usize,
        /// The words it needs at least.
        needed: usize,
    },
    /// An id that is not below the header's bound.
    #[error(
        "the instruction at byte {offset} uses id %{id}, which is not below the module's id \
         bound {bound}: the module is damaged"
    )]
    IdOutOfBound {
        /// Byte offset of the instruction.
        offset: usize,
        /// The id.
        id: u32,
        /// The header's bound.
        bound: u32,
    },
    /// A literal string without its terminating NUL inside its instruction.
    #[error(
        "the literal string in the {name} at byte {offset} has no terminating NUL inside the \
         instruction: the module is damaged"
    )]
    UnterminatedString {
        /// Byte offset of the instruction.
        offset: usize,
        /// The instruction's name.
        name: &'static str,
    },
    /// A DebugPrintf call whose format operand is not the result of an `OpString`.
    #[error(
        "the DebugPrintf call at byte {offset} takes its format from %{id}, which is not an \
         OpString (NonSemantic.DebugPrintf requires one)"
    )]
    FormatNotString {
        /// Byte offset of the `OpExtInst`.
        offset: usize,
        /// The format operand.
        id: u32,
    },
    /// The call graph is too large to find which entry points reach each call.
    #[error(
        "the call graph has too many paths ({steps} steps) to find the entry points that reach \
         each DebugPrintf call: the module is not a real shader"
    )]
    CallGraphTooLarge {
        /// Steps taken before giving up.
        steps: u64,
    },
}
