//! LLVM IR text: a lossless parser and printer, types, and DataLayout.
//!
//! [`Module::parse`] reads LLVM 19 assembly (`.ll`), and LLVM 22's, into a [`Module`] that owns
//! its text.
//! [`Module::print`] writes it back: byte-identical to the input wherever no edit reached,
//! and in LLVM's own style where one did. In between, the module answers the questions the
//! lowering passes ask and takes the edits they make.
//!
//! ```
//! use fmtstr_ir::{Module, Opcode, Position};
//!
//! let text = "declare i32 @printf(ptr, ...)\n\ndefine i32 @f(i32 %x) {\n  %r = call i32 (ptr, ...) @printf(ptr null, i32 signext %x)\n  ret i32 %r\n}\n";
//! let mut module = Module::parse("f.ll", text).unwrap();
//! assert_eq!(module.print(), text.as_bytes());
//!
//! let call = module.calls_to("printf")[0];
//! let arg = module.inst(call).as_call().unwrap().arg(1).unwrap();
//! assert!(arg.has(fmtstr_ir::Attr::SignExt));
//! let x = arg.operand;
//!
//! let mut b = module.builder(Position::Before(call)).unwrap();
//! let twice = b.binary(Opcode::Add, x, x, "twice").unwrap();
//! drop(b); // the new instruction takes its place in the block
//! module.replace_uses_in(call, x.value, twice).unwrap();
//! assert!(String::from_utf8(module.print()).unwrap().contains("i32 signext %twice"));
//! ```
//!
//! # Reading
//!
//! - Functions, parameters, blocks and instructions as views: [`Module::functions`],
//!   [`Function`], [`Arg`] (types, attributes such as `byval(T)`, `signext`, `align`),
//!   [`Block`], [`Inst`] (opcode, result type, typed [`Operand`]s, alignment, predicate).
//! - Calls: [`Module::calls_to`] finds them by callee name; [`Call`] gives the callee,
//!   function type and [`CallArg`]s with their attributes.
//! - Metadata: [`Inst::metadata`] (`!printf.form !{i8 1}`), [`MdNode`], [`Inst::debug_loc`]
//!   (line, column, file of the program source); [`Inst::source_pos`] is the position in the
//!   `.ll` text.
//! - Constants: [`Module::constant`], [`Module::resolve_global`] (through constant GEP,
//!   bitcast and addrspacecast, with the byte offset), [`Module::c_string_at`] and
//!   [`Module::global_bytes`] (the bytes of a constant string global).
//! - Types and layout: [`Types`] (interned, [`TypeId`]), [`DataLayout`] (sizes, ABI and
//!   preferred alignment, [`StructLayout`], [`DataLayout::offset_of`] for GEP index paths).
//!
//! # Editing
//!
//! A [`Builder`] inserts instructions at a [`Position`] (before or after an instruction, or
//! with the entry block's allocas), placing them when it is dropped; [`Module::replace_all_uses`], [`Module::replace_inst`],
//! [`Module::remove_inst`], [`Module::declare_function`], [`Module::remove_global`],
//! [`Module::set_param_type`], [`Module::add_string_global`], [`Module::add_metadata`] and
//! friends do the rest. Edits that would leave the module broken (removing a value still in
//! use, mismatched types) are refused with an [`EditError`] and change nothing.
//!
//! Control flow: [`Module::split_block_before`] (LLVM's `splitBasicBlock`: the tail gets a
//! fresh named label, the successors' phis and `; preds = ` comments follow the terminator),
//! [`Module::add_block`], [`Builder::br`], [`Builder::cond_br`], [`Builder::phi`], and
//! [`Module::guard`], which puts one instruction behind `br i1 %cond` with a phi for its
//! used result (LLVM's `SplitBlockAndInsertIfThen`). A split keeps source instructions in
//! source order, so untouched text still prints byte for byte.
//!
//! Names: new values are always *named* (`%printf.buf`, `%printf.buf1`, ...; a name ending in
//! a digit gets a `.N` suffix), never numbered, so inserting them never shifts a `%N`. Each
//! function indexes its names on the first fresh name and each hint remembers its next
//! suffix, so naming is O(1) however many values share a hint; likewise a function indexes
//! the users of its values on the first [`Module::remove_inst`] or
//! [`Module::replace_all_uses`], so those cost O(uses), not O(function).
//! Removing a numbered value renumbers the function's later numbered values and blocks when
//! printed, as LLVM requires.
//!
//! # How it stays lossless
//!
//! Every record keeps the byte span it was parsed from, and the parser remembers the offset
//! of every token that uses a local value. Printing copies the spans of untouched items (an
//! untouched module is a single write). In an edited function, new instructions are printed
//! from their fields and removed ones skipped; source instructions whose operands no edit
//! replaced are copied verbatim unless a removal renumbered the function (then those tokens,
//! definitions and labels whose numbers changed are rewritten), or a removed value is still
//! named by metadata or a debug record (printed `poison`). Parameter and header edits reprint
//! the header from its fields around the kept text (linkage, attributes).
//!
//! # Limits
//!
//! - Not a verifier: operand types are taken as written and not checked against each other
//!   (`llvm-as` checks them); the model is what the text says.
//! - Exception-handling pads (`catchpad`, `cleanuppad`, `catchswitch`, `catchret`,
//!   `cleanupret`) keep their text; their operands are the local values they name, typed
//!   `label`. A `landingpad`'s operands are its clauses' values (`catch ptr @_ZTIi`).
//! - What LLVM 19 accepts beyond LangRef's current grammar is read too: intrinsics called
//!   without a declaration (declared implicitly, with no text), numbering gaps (`%5` first),
//!   unnamed globals (`@""`, numbered), named non-struct types (`%t = type [8 x i8]`, which
//!   read as the type itself), legacy DataLayout components (`s0:64:64`). Words of newer LLVMs
//!   (`samesign`, `captures(...)`, unknown attributes) are carried through as text wherever
//!   their extent is clear; summary entries (`^0 = ...`) are kept as text.
//! - Metadata attachments can be added to instructions made by edits only; source
//!   instructions keep theirs as written. Numbered metadata can be added and removed
//!   ([`Module::remove_metadata`], refused while anything still refers to the node); removal
//!   renumbers nothing, as LLVM accepts gaps in metadata numbers.
//! - `blockaddress(@f, %bb)` (C's computed `goto`) is kept as text; when a removal renumbers
//!   `@f`, a `blockaddress(@f, %N)` naming a numbered block is printed with the block's new
//!   number wherever it appears (initializers, instructions of any function).
//!
//! # Robustness and speed
//!
//! Any input gives a module or a [`ParseError`] (`file:line:column`, the line, a caret, what
//! was expected), never a panic: recursion is bounded, loops always consume input, spans are
//! checked. Parsing runs at about 200 MB/s per core; modules of 4 MiB and up have their
//! function bodies parsed on several threads (see `parallel.rs`), and once edited are printed
//! in parts on several threads (see `printer/mod.rs`). A pass that edits function by function
//! can also run on several threads: [`Module::parse_shards`] gives one module per run of
//! bodies, and [`Module::write_shards`] prints each shard's functions. A pass that edits only
//! the lines it can find by their text (the calls that name `printf`) pays for those lines:
//! [`Module::parse_shards_where`] parses them, and the lines that use their results, and keeps
//! the rest of the bodies as text (opaque instructions, [`Inst::is_opaque`]): about 700
//! instructions a line of clang's output instead of 2,300.

#![warn(missing_docs)]

mod const_data;
mod constant;
pub mod datalayout;
mod edit;
mod error;
mod flags;
mod hash;
mod inst;
pub(crate) mod lexer;
mod md_data;
mod md_line;
mod md_tail;
mod metadata;
mod module;
#[cfg(test)]
mod module_graph;
mod parallel;
mod parser;
mod printer;
pub mod types;
mod value;
mod view;

pub use constant::Constant;
pub use datalayout::{DataLayout, DataLayoutError, LayoutError, PointerSpec, StructLayout};
pub use edit::builder::{Builder, Ordering, Position, RmwOp};
pub use edit::control::{Guard, GuardItem, GuardNames};
pub use edit::globals::UnusedDeclaration;
pub use edit::metadata::MdInput;
pub use error::{EditError, ParseError};
pub use inst::{Attr, Opcode, Predicate, Text};
pub use metadata::{DebugLoc, MdNode, MdNodeKind, MdOperand};
pub use module::{Module, SourceText};
pub use parallel::{default_threads, Shard};
pub use parser::MAX_INPUT;
pub use types::{StructType, Type, TypeId, Types};
pub use value::{ArgId, BlockId, ConstId, FuncId, GlobalId, InstId, MdId, Operand, Value};
pub use view::{
    Arg, Block, Call, CallArg, Function, Global, GlobalKind, GlobalRef, Inst, SourcePos,
};

impl Module {
    /// Parses LLVM assembly. `file_name` is only used in error messages.
    ///
    /// Large modules (4 MiB and up) have their function bodies parsed on several threads;
    /// the result is the same as a sequential parse's.
    pub fn parse(file_name: &str, text: impl Into<SourceText>) -> Result<Module, ParseError> {
        parallel::parse_module(file_name, text.into())
    }

    /// [`Module::parse`] with at most `threads` threads (1 parses sequentially).
    pub fn parse_with_threads(
        file_name: &str,
        text: impl Into<SourceText>,
        threads: usize,
    ) -> Result<Module, ParseError> {
        parallel::parse_module_threads(file_name, text.into(), threads)
    }

    /// Parses a module into shards for a pass that edits function by function on several
    /// threads: each [`Shard`] is the whole module with one run of function bodies parsed
    /// (about equal sizes, in module order). Run the pass on every shard, keep their
    /// top-level edits identical (declare the same functions in all, remove a global from
    /// all or none), and print with [`Module::write_shards`]: each shard prints its own
    /// functions.
    ///
    /// A module below the parallel threshold (4 MiB), one the parallel parse cannot split,
    /// or one with `blockaddress` constants (renumbering one shard's function would have to
    /// rewrite another shard's text) comes back whole, as one shard. Errors are reported
    /// exactly as [`Module::parse`] reports them.
    pub fn parse_shards(
        file_name: &str,
        text: impl Into<SourceText>,
        threads: usize,
    ) -> Result<Vec<Shard>, ParseError> {
        Self::shards(file_name, text.into(), threads, None)
    }

    /// [`Module::parse_shards`] for a pass that edits only some instructions, known from
    /// their text (the calls that name `printf`, say). `find` is given text of a function
    /// body and returns where in it the first such place starts, or `None`:
    ///
    /// - A body without one is not parsed, in any shard: its function has no blocks and
    ///   prints as its source text. Nor is its header, where LLVM printed it on one line
    ///   (`define ... {`) and `find`, given that line too, finds nothing in it: the
    ///   function's name is known, but reading its type, parameters, attributes or calling
    ///   convention ([`Function::function_type`], [`Function::params`], ...) panics. A pass
    ///   that reads a function's header must have `find` find something in its body or
    ///   header.
    /// - In a body with one, the lines `find` finds are parsed, and so is every line that
    ///   names a value they define, and every line the parser cannot keep as text (labels,
    ///   calls, allocas, `switch`, ...). The other instructions are *opaque*
    ///   ([`Inst::is_opaque`]): their opcode, text and result name are known, but not their
    ///   operands or type. They print as their source text; edits refuse to remove them or
    ///   to replace the uses of any value but those of the lines `find` found.
    ///
    /// Metadata definitions LLVM writes one to a line (`!N = !DILocation(...)`,
    /// `!N = !"..."`, `!N = !{!1, null, !2}`) are kept as text too: their fields and
    /// elements are read from it when asked ([`MdNode::operands`], [`Module::debug_loc`]).
    ///
    /// Text left unparsed is not checked (the next tool to read the output checks it), and
    /// the module knows nothing of what it names: `find` must find every line the pass
    /// edits. Such a pass pays for the lines it reads, not for the module: a module of any
    /// size is split, on one thread or more.
    ///
    /// A module the split cannot handle (see [`Module::parse_shards`]), or with an
    /// implicitly numbered value in a body it parses (a removal could renumber it in opaque
    /// text), is parsed whole, every body included, as one shard.
    pub fn parse_shards_where(
        file_name: &str,
        text: impl Into<SourceText>,
        threads: usize,
        find: &(dyn Fn(&[u8]) -> Option<usize> + Sync),
    ) -> Result<Vec<Shard>, ParseError> {
        Self::shards(file_name, text.into(), threads.max(1), Some(find))
    }

    fn shards(
        file_name: &str,
        text: SourceText,
        threads: usize,
        filter: Option<parallel::BodyFilter<'_>>,
    ) -> Result<Vec<Shard>, ParseError> {
        // Filtered, the bodies left are few: threads only pay on a large module.
        let threads = match filter {
            Some(_) if text.len() < parallel::MIN_PARALLEL => 1,
            _ => threads,
        };
        // `parse_shards` refuses a text with a `blockaddress(`.
        let splittable = (threads > 1 || filter.is_some())
            && (text.len() >= parallel::MIN_PARALLEL || filter.is_some())
            && text.len() < MAX_INPUT;
        if splittable {
            if let Some(mut shards) = parallel::parse_shards(file_name, &text, threads, filter) {
                for shard in &mut shards {
                    shard.module.src = text.clone();
                }
                return Ok(shards);
            }
        }
        Ok(vec![Shard {
            module: parallel::parse_module_threads(file_name, text, threads)?,
            first_function: None,
        }])
    }

    /// A sequential parse that reads every metadata definition token by token, never with
    /// the byte scanner: for the tests that check the two readings agree.
    #[doc(hidden)]
    pub fn parse_metadata_by_tokens(file_name: &str, text: Vec<u8>) -> Result<Module, ParseError> {
        parser::parse_metadata_by_tokens(file_name, text.into())
    }

    /// Everything the parse recorded about metadata and top-level items, as text: for the
    /// tests that compare two parses of one module.
    #[doc(hidden)]
    pub fn metadata_record(&self) -> String {
        let md = &self.md;
        let mut by_number: Vec<_> = md.by_number.iter().collect();
        by_number.sort();
        format!(
            "{:?}\n{:?}\n{by_number:?}\n{:?}\n{:?}\n{}\n{:?}",
            md.nodes, md.ops, md.kinds, md.named, md.next_number, self.items
        )
    }

    /// The parallel parse alone, without the sequential fallback: for the tests that check
    /// the two agree. `None` where the parse would fall back.
    #[doc(hidden)]
    pub fn parse_parallel_only(file_name: &str, text: Vec<u8>, threads: usize) -> Option<Module> {
        let mut module = parallel::parse(file_name, &text, threads)?;
        module.src = text.into();
        Some(module)
    }
}
