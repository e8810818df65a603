//! A SPIR-V reader for the format strings of Vulkan shaders: the `NonSemantic.DebugPrintf` calls
//! that GLSL's `debugPrintfEXT` and HLSL's `printf` become.
//!
//! A call is `OpExtInst %void %set 1 %format args...` where `%set = OpExtInstImport
//! "NonSemantic.DebugPrintf"` and `%format` is an `OpString`. [`read`] walks a module (either
//! byte order) and returns every call with its format's bytes, its arguments' types (as LLVM IR
//! spells them: `OpTypeBool` is `i1`, a `PhysicalStorageBuffer` pointer `ptr`), the function
//! holding it, the entry points whose call graph reaches it, and the source line that `OpLine`
//! or `NonSemantic.Shader.DebugInfo.100`'s `DebugLine` gives. [`table`] derives the
//! format-string table `fmtstr lower --target amdgpu --stage buffer` would write for calls with
//! those argument types (a vector counts as one argument; 64-bit scalars and vectors of 64-bit
//! components set their bit in `.64bit_arguments`).
//!
//! Nothing in the file is trusted: unknown opcodes are skipped by their word count, strings
//! are kept as bytes, and a word count of 0 or past the end, an id not below the bound, a
//! string without its terminator, an id bound beyond SPIR-V's universal limit or a format that
//! is not an `OpString` are [`SpirvError`]s that name the byte offset. Memory grows with the
//! instructions present, never with the header's bound.
//!
//! ```
//! // The smallest module: a header and nothing else.
//! let words: [u32; 5] = [0x0723_0203, 0x0001_0600, 0, 1, 0];
//! let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
//! assert!(fmtstr_spirv::is_spirv(&bytes));
//! let module = fmtstr_spirv::read(&bytes).unwrap();
//! assert_eq!(module.header.version, (1, 6));
//! assert!(module.calls.is_empty());
//! ```

#![warn(missing_docs)]

mod error;
mod read;
mod table;

pub use error::{SpirvError, MAX_ID_BOUND};
pub use read::{
    execution_model_name, is_spirv, read, ArgKind, Argument, Call, Endian, EntryPoint, Function,
    Header, Module, SourceLine, DEBUG_PRINTF, DEBUG_PRINTF_SET, MAGIC, SHADER_DEBUG_INFO_SET,
};
pub use table::{argument_types, entry, is_wide, table, LayoutError};
