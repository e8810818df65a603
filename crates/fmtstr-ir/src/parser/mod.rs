//! The parser: LLVM 19 assembly into the module model, in one pass, and what LLVM 22 added
//! (`ptrtoaddr`, `riscv_vls_cc(N)`, fast-math flags on `fpext`/`fptrunc`, ...).
//!
//! Input: a module's text. Output: a [`Module`] whose records keep the byte spans they were
//! read from, or a [`ParseError`] at the first thing it cannot read.
//!
//! It follows `LLParser`'s grammar closely enough to read everything LLVM 19 and 22 write, and
//! keeps what no pass needs (linkage, flags, function attributes, operand bundles, specialized
//! metadata fields) as source spans rather than modelling it. It checks what the model relies
//! on: names resolve, numbered values come in order, brackets balance. It is not a verifier:
//! types are not checked against each other (`llvm-as` does that).
//!
//! Hostile input can only produce an error: every loop consumes a token or stops, recursion
//! is bounded by [`MAX_DEPTH`], and all slicing goes through checked spans.
//!
//! The parser's state is here; each file below adds the reading of one kind of text to
//! [`Parser`]: `tokens` (the lookahead, errors, text kept unread), `items` (the top level and
//! globals), `types`, `functions` (headers, bodies, local names), `instructions`,
//! `constants`, `metadata`, and `sparse` (the parses that leave text unread: a parallel parse's
//! skeleton and workers, a filtered parse's bodies). They import from here and from one
//! another in one direction; this file imports none of them.

mod constants;
mod functions;
mod instructions;
mod items;
mod metadata;
mod sparse;
mod tokens;
mod types;

use std::borrow::Cow;

use crate::const_data;
use crate::datalayout::DataLayout;
use crate::error::ParseError;
use crate::hash::FxHashMap;
use crate::inst::NONE;
use crate::lexer::{Lexer, NameKey, Tok, Token};
use crate::md_data::{MdData, MdOp};
use crate::md_line::LineOp;
use crate::module::{none_text, Module, SourceText};
use crate::types::{TypeId, Types};
use crate::value::{BlockId, FuncId, InstId, PackedOp, Value};

/// How deeply types, constants and metadata may nest.
pub(crate) const MAX_DEPTH: u32 = 200;

/// Inputs at or above this size are refused: offsets are 32-bit and ids have 29 bits.
pub const MAX_INPUT: usize = 1 << 30;

/// Numbered values may skip numbers (LLVM 19 accepts `%9` right after `%2`) up to this one:
/// the skipped numbers take room in a table, which a hostile input must not blow up.
pub(crate) const MAX_NUMBER_GAP_TO: u32 = 1 << 24;

type PResult<T> = Result<T, ParseError>;

struct Forward<'s> {
    key: NameKey<'s>,
    offset: u32,
}

#[derive(Default)]
struct FnState<'s> {
    numbered: Vec<Value>,
    /// Whether an instruction, or a block after the entry, took its number silently.
    implicit_numbers: bool,
    named: FxHashMap<Cow<'s, [u8]>, Value>,
    /// The first two bytes of the names in `named`.
    prefixes: crate::module::NamePrefixes,
    forward: Vec<Forward<'s>>,
    ops_start: usize,
    md_ops_start: usize,
}

pub(crate) struct Parser<'s> {
    file: &'s str,
    src: &'s [u8],
    lex: Lexer<'s>,
    tok: Token,
    /// The tokens after `tok`, lexed in batches; `at` is the next one.
    ahead: [Token; LOOKAHEAD],
    ahead_len: usize,
    at: usize,
    prev_end: u32,
    m: Module,
    depth: u32,
    f: Option<FnState<'s>>,
    spare: Option<FnState<'s>>,
    /// Instructions of the block being parsed, blocks of the function being parsed.
    block_insts: Vec<InstId>,
    fn_blocks: Vec<BlockId>,
    /// Argument attributes and types of the call being parsed.
    call_attrs: Vec<(u32, u32)>,
    call_types: Vec<TypeId>,
    /// Operands of lists being parsed; nested lists push above and drain their part first.
    scratch: Vec<PackedOp>,
    /// The parameter types of the function type being parsed (taken while in use, so that a
    /// nested one starts its own).
    param_scratch: Vec<TypeId>,
    md_scratch: Vec<MdOp>,
    /// [`md_line::scan`](crate::md_line::scan)'s buffers, and whether it is used (always, but in
    /// the test that checks it against the token parser).
    md_line_refs: Vec<(u32, u32)>,
    md_line_ops: Vec<LineOp>,
    pub(crate) md_line_scan: bool,
    small_ints: Vec<u32>,
    type_mentions: FxHashMap<u32, u32>,
    /// Skeleton mode (the first phase of a parallel parse): function bodies are skipped and
    /// listed here as (function, offset past `{`, offset of `}`).
    pub(crate) skeleton: bool,
    pub(crate) pending: Vec<(FuncId, u32, u32)>,
    /// In skeleton mode: where bodies may end (see `parallel::body_ends`).
    pub(crate) body_ends: Vec<u32>,
    /// Keep metadata definitions as text where they can be (a filtered parse, see
    /// [`Parser::md_def_unread`]).
    pub(crate) md_unread: bool,
    /// The definitions after the last body, found by another thread (see `md_tail`).
    pub(crate) md_tail: Option<crate::md_tail::TailReader>,
    /// A filtered skeleton parse's filter: a definition whose header it finds nothing in
    /// keeps its header as text (see [`Parser::define_kept_as_text`]).
    pub(crate) header_filter: Option<BodyFilter<'s>>,
    /// The number an unnamed global (`@"" = ...`) gets: one past the last numbered global
    /// defined.
    next_global_number: u32,
    /// A sparse body parse (see [`Parser::opaque_lines`]): what to read, and the first line
    /// to parse not yet passed.
    sparse: Option<SparseLines>,
    sparse_next: usize,
    /// A numbered label [`Parser::opaque_lines`] read after a terminator, without the lexer:
    /// the next block's. `tok` is stale while it is set.
    raw_label: Option<Token>,
}

/// What to parse: given text of a function body, where in it the first place that needs
/// parsing starts (an offset into the text), or `None` if nothing in it does. A body without
/// such a place is kept as text, and its function has no blocks in any shard; in the others,
/// the lines without one are kept as text where they can be (see `Parser::opaque_lines`).
/// It is given the line of a `define` too: a header it finds nothing in is read only if its
/// body is (see `Parser::define_kept_as_text`).
pub(crate) type BodyFilter<'a> = &'a (dyn Fn(&[u8]) -> Option<usize> + Sync);

/// What a sparse parse of one body must read (see `Parser::opaque_lines`).
#[derive(Debug, Default)]
pub(crate) struct SparseLines {
    /// The lines the filter found, as ascending `(start, end)` offsets (`end` past the
    /// newline).
    pub found: Vec<(u32, u32)>,
    /// Where the found lines' results are named (`%x` in `%x = ...` at a line's start): every
    /// line that names one of them is parsed too. Ascending.
    pub defs: Vec<u32>,
    /// Every line to parse: the found ones and those that name their results. Ascending.
    pub parse: Vec<(u32, u32)>,
}

/// How many tokens the lexer reads ahead in one batch.
const LOOKAHEAD: usize = 128;

/// The batch of a skeleton parse (see [`Parser::refill`]).
const SKELETON_LOOKAHEAD: usize = 16;

/// The batch of a sparse body parse, which reads a label or two between lines it skips.
const SPARSE_LOOKAHEAD: usize = 4;

const SMALL_MIN: i64 = -64;

const SMALL_MAX: i64 = 1023;

/// Parses a module on this thread.
pub(crate) fn parse_sequential(file: &str, text: &[u8]) -> PResult<Module> {
    let mut parser = Parser::new(file, text);
    parser.module()?;
    Ok(parser.m)
}

/// A sequential parse with [`md_line::scan`](crate::md_line::scan) off.
pub(crate) fn parse_metadata_by_tokens(file: &str, text: SourceText) -> PResult<Module> {
    let mut parser = Parser::new(file, &text);
    parser.md_line_scan = false;
    parser.module()?;
    let mut module = parser.m;
    module.src = text;
    Ok(module)
}

pub(crate) fn empty_module(file: &str) -> Module {
    Module {
        file: file.to_string(),
        src: Default::default(),
        types: Types::new(),
        layout: DataLayout::default(),
        source_filename: none_text(),
        datalayout_text: none_text(),
        triple: none_text(),
        items: Vec::new(),
        suffix_copies: Vec::new(),
        order: Vec::new(),
        last_new_string: None,
        globals: Vec::new(),
        global_map: FxHashMap::default(),
        global_numbered: FxHashMap::default(),
        vars: Vec::new(),
        aliases: Vec::new(),
        funcs: Vec::new(),
        args: Vec::new(),
        blocks: Vec::new(),
        insts: Vec::new(),
        block_insts: Vec::new(),
        ops: Vec::new(),
        consts: const_data::fixed_consts(),
        attrs: Vec::new(),
        attr_sets: Vec::new(),
        calls: Vec::new(),
        index_lists: Vec::new(),
        md: MdData::default(),
        md_attach: Vec::new(),
        sites: Vec::new(),
        edited_ops: FxHashMap::default(),
        dead_ops: Vec::new(),
        first_new_inst: u32::MAX,
        new_names: crate::module::NewNames::default(),
        new_blocks: Default::default(),
        new_ints: Default::default(),
        stand_ins: FxHashMap::default(),
        byte_strings: Vec::new(),
        line_starts: std::sync::OnceLock::new(),
        attr_groups: std::sync::OnceLock::new(),
    }
}

impl<'s> Parser<'s> {
    pub(crate) fn new(file: &'s str, src: &'s [u8]) -> Self {
        let mut parser = Self::unreserved(file, src);
        parser.reserve_for_text();
        parser
    }

    /// A parser whose arenas start empty: for a skeleton whose workers each reserve room for
    /// their own bodies (see `parallel::parse_workers`).
    pub(crate) fn unreserved(file: &'s str, src: &'s [u8]) -> Self {
        Self::with_module(file, src, empty_module(file))
    }

    /// Room in the arenas for what the whole text will likely hold.
    fn reserve_for_text(&mut self) {
        let m = &mut self.m;
        let src = self.src;
        // Typical densities of compiler output; an estimate off either way only costs a
        // reallocation (or reserved pages never touched, which take no memory beyond the
        // first page of each).
        let n = src.len();
        m.insts.reserve(n / 48);
        m.ops.reserve(n / 20);
        m.sites.reserve(n / 16);
        m.blocks.reserve(n / 512);
        m.block_insts.reserve(n / 48);
    }

    /// A parser that adds to `m` (a worker of a parallel parse starts from the skeleton).
    pub(crate) fn with_module(file: &'s str, src: &'s [u8], m: Module) -> Self {
        let mut lex = Lexer::new(src);
        let tok = lex.next_token();
        Parser {
            file,
            src,
            lex,
            tok,
            ahead: [Token {
                kind: Tok::Eof,
                start: 0,
                end: 0,
            }; LOOKAHEAD],
            ahead_len: 0,
            at: 0,
            prev_end: 0,
            m,
            depth: 0,
            f: None,
            spare: None,
            block_insts: Vec::new(),
            fn_blocks: Vec::new(),
            call_attrs: Vec::new(),
            call_types: Vec::new(),
            scratch: Vec::new(),
            param_scratch: Vec::new(),
            md_scratch: Vec::new(),
            small_ints: vec![NONE; (SMALL_MAX - SMALL_MIN + 1) as usize],
            type_mentions: FxHashMap::default(),
            next_global_number: 0,
            skeleton: false,
            md_line_refs: Vec::new(),
            md_line_ops: Vec::new(),
            md_line_scan: true,
            pending: Vec::new(),
            body_ends: Vec::new(),
            md_unread: false,
            md_tail: None,
            header_filter: None,
            sparse: None,
            sparse_next: 0,
            raw_label: None,
        }
    }

    pub(crate) fn into_module(self) -> Module {
        self.m
    }
}
