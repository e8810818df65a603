//! LLVM IR text: a lossless parser and printer, types, and DataLayout.
//!
//! [`Module::parse`] reads LLVM 19 assembly (`.ll`) into a [`Module`] that owns its text.
//! [`Module::print`] writes it back: byte-identical to the input wherever no edit reached,
//! and in LLVM's own style where one did. In between, the module answers the questions the
//! lowering passes ask (which calls go to `printf`, with which typed and attributed
//! arguments; what a constant expression points at; which bytes a string global holds;
//! where an instruction came from) and takes the edits they make (insert instructions,
//! replace uses, remove instructions and declarations, change parameter types).
//!
//! ```
//! use fmtstr_ir::Module;
//!
//! let text = "define i32 @f(i32 %x) {\n  %y = add i32 %x, 1\n  ret i32 %y\n}\n";
//! let module = Module::parse("f.ll", text).unwrap();
//! assert_eq!(module.print(), text.as_bytes());
//! ```
//!
//! How it stays lossless: every record keeps the byte span it was parsed from, and the
//! parser remembers the offset of every token that names a local value. Printing copies the
//! spans of untouched items; in an edited function it rewrites only those name tokens (after
//! a removal renumbers `%N` values, or a replacement changes an operand), prints new
//! instructions from their fields, and skips removed ones. New values are always named
//! (`%printf.buf`, `%printf.buf1`, ...), never numbered, so inserting them never shifts a
//! number; removing a numbered value renumbers the function's later numbered values.
//!
//! The modules: [`lexer`](crate::lexer) (tokens as byte spans), `parser`, [`types`] (interned
//! types), [`datalayout`] (sizes, alignments, struct layouts, GEP offsets), `metadata`,
//! `constant`, `printer`, `edit` (the builder and the edit operations), `view` (read access).

mod constant;
pub mod datalayout;
mod edit;
mod error;
mod hash;
mod inst;
pub(crate) mod lexer;
mod metadata;
mod module;
mod parallel;
mod parser;
mod printer;
pub mod types;
mod view;

pub use constant::Constant;
pub use datalayout::{DataLayout, DataLayoutError, LayoutError, PointerSpec, StructLayout};
pub use edit::{Builder, MdInput, Ordering, Position, RmwOp};
pub use error::{EditError, ParseError};
pub use inst::{Attr, Opcode, Predicate, Text};
pub use metadata::{DebugLoc, MdNode, MdNodeKind, MdOperand};
pub use module::{ArgId, BlockId, ConstId, FuncId, GlobalId, InstId, MdId, Module, Operand, Value};
pub use parser::MAX_INPUT;
pub use types::{StructType, Type, TypeId, Types};
pub use view::{
    Arg, Block, Call, CallArg, Function, Global, GlobalKind, GlobalRef, Inst, SourcePos,
};

impl Module {
    /// Parses LLVM assembly. `file_name` is only used in error messages.
    ///
    /// Large modules (4 MiB and up) have their function bodies parsed on several threads;
    /// the result is the same as a sequential parse's.
    pub fn parse(file_name: &str, text: impl Into<Vec<u8>>) -> Result<Module, ParseError> {
        parser::parse(file_name, text.into())
    }

    /// [`Module::parse`] with at most `threads` threads (1 parses sequentially).
    pub fn parse_with_threads(
        file_name: &str,
        text: impl Into<Vec<u8>>,
        threads: usize,
    ) -> Result<Module, ParseError> {
        parser::parse_threads(file_name, text.into(), threads)
    }

    /// The parallel parse alone, without the sequential fallback: for the tests that check
    /// the two agree. `None` where the parse would fall back.
    #[doc(hidden)]
    pub fn parse_parallel_only(file_name: &str, text: Vec<u8>, threads: usize) -> Option<Module> {
        let mut module = parallel::parse(file_name, &text, threads)?;
        module.src = text.into_boxed_slice();
        Some(module)
    }
}
