//! The parser: LLVM 19 assembly into the module model, in one pass, and what LLVM 22 added
//! (`ptrtoaddr`, `riscv_vls_cc(N)`, fast-math flags on `fpext`/`fptrunc`, ...).
//!
//! It follows `LLParser`'s grammar closely enough to read everything LLVM 19 and 22 write, and
//! keeps what no pass needs (linkage, flags, function attributes, operand bundles, specialized
//! metadata fields) as source spans rather than modelling it. It checks what the model relies
//! on: names resolve, numbered values come in order, brackets balance. It is not a verifier:
//! types are not checked against each other (`llvm-as` does that).
//!
//! Hostile input can only produce an error: every loop consumes a token or stops, recursion
//! is bounded by [`MAX_DEPTH`], and all slicing goes through checked spans.

use std::borrow::Cow;

use crate::const_data::{self, ConstData, ConstKind};
use crate::datalayout::DataLayout;
use crate::error::ParseError;
use crate::hash::FxHashMap;
use crate::inst::{
    Attr, CallData, InstData, Opcode, Predicate, Text, FLAG_ATTRS, HAS_DEF, IMPLICIT_NUM,
    NAMED_IN_TEXT, NONE, NO_TEXT, OPAQUE, RMW_OPS, TYPE_ATTRS, USES_PARSED,
};
use crate::lexer::{self, name_key, parse_u32, Lexer, NameKey, Tok, Token};
use crate::md_data::{MdData, MdKindData, MdNodeData, MdOp};
use crate::md_line::{self, LineKind, LineOp};
use crate::module::{
    none_text, AliasData, ArgData, BlockData, FuncData, GlobalData, GlobalKindData, ItemData,
    ItemKind, Module, SourceText, VarData, ITEM_SOURCE,
};
use crate::types::{NamedBody, Type, TypeData, TypeId, Types};
use crate::value::{
    BlockId, ConstId, FuncId, GlobalId, InstId, MdId, PackedOp, PackedValue, Value, MAX_INDEX,
    NUMBER_GAP,
};

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
    /// [`md_line::scan`]'s buffers, and whether it is used (always, but in the test that
    /// checks it against the token parser).
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

/// What [`Parser::opaque_lines`] kept as text.
#[derive(Clone, Copy, PartialEq, Eq)]
enum OpaqueRun {
    Nothing,
    Lines,
    /// Lines, the last of them a terminator.
    Block,
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

/// A sequential parse with [`md_line::scan`] off.
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

const LINKAGE_WORDS: &[&[u8]] = &[
    b"private",
    b"internal",
    b"available_externally",
    b"linkonce",
    b"weak",
    b"common",
    b"appending",
    b"extern_weak",
    b"linkonce_odr",
    b"weak_odr",
    b"external",
    b"dso_local",
    b"dso_preemptable",
    b"default",
    b"hidden",
    b"protected",
    b"dllimport",
    b"dllexport",
    b"unnamed_addr",
    b"local_unnamed_addr",
    b"externally_initialized",
];

const VALUE_WORDS: &[&[u8]] = &[
    b"null",
    b"undef",
    b"poison",
    b"true",
    b"false",
    b"zeroinitializer",
    b"none",
    b"getelementptr",
    b"blockaddress",
    b"dso_local_equivalent",
    b"no_cfi",
    b"ptrauth",
    b"asm",
    b"splat",
    b"trunc",
    b"zext",
    b"sext",
    b"fptrunc",
    b"fpext",
    b"fptoui",
    b"fptosi",
    b"uitofp",
    b"sitofp",
    b"ptrtoint",
    b"inttoptr",
    b"bitcast",
    b"addrspacecast",
    b"add",
    b"sub",
    b"mul",
    b"shl",
    b"xor",
    b"and",
    b"or",
    b"lshr",
    b"ashr",
    b"icmp",
    b"fcmp",
    b"select",
    b"extractelement",
    b"insertelement",
    b"shufflevector",
];

const FAST_MATH: &[&[u8]] = &[
    b"fast",
    b"nnan",
    b"ninf",
    b"nsz",
    b"arcp",
    b"contract",
    b"afn",
    b"reassoc",
];

/// The flags a cast may carry: integer ones and fast-math ones.
const CAST_FLAGS: &[&[u8]] = &[
    b"nuw",
    b"nsw",
    b"nneg",
    b"fast",
    b"nnan",
    b"ninf",
    b"nsz",
    b"arcp",
    b"contract",
    b"afn",
    b"reassoc",
];

const TOP_LEVEL: &[&[u8]] = &[
    b"define",
    b"declare",
    b"attributes",
    b"target",
    b"source_filename",
    b"module",
    b"uselistorder",
    b"uselistorder_bb",
];

fn is_cconv(word: &[u8]) -> bool {
    word == b"cc"
        || word.ends_with(b"cc") && word.len() > 2
        || [
            &b"ptx_"[..],
            b"amdgpu_",
            b"spir_",
            b"aarch64_",
            b"arm_",
            b"msp430_",
            b"avr_",
            b"riscv_",
            b"m68k_",
            b"x86_",
            b"win64",
        ]
        .iter()
        .any(|p| word.starts_with(p))
            && !matches!(word, b"x86_fp80" | b"x86_amx" | b"x86_mmx")
}

fn int_type_bits(word: &[u8]) -> Option<u32> {
    let digits = word.strip_prefix(b"i")?;
    let bits = parse_u32(digits)?;
    (1..=(1 << 23)).contains(&bits).then_some(bits)
}

impl<'s> Parser<'s> {
    pub(crate) fn new(file: &'s str, src: &'s [u8]) -> Self {
        let mut m = empty_module(file);
        // Typical densities of compiler output; an estimate off either way only costs a
        // reallocation (or untouched reserved pages, which take no memory).
        let n = src.len();
        m.insts.reserve(n / 48);
        m.ops.reserve(n / 20);
        m.sites.reserve(n / 16);
        m.blocks.reserve(n / 512);
        m.block_insts.reserve(n / 48);
        Self::with_module(file, src, m)
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
            sparse: None,
            sparse_next: 0,
            raw_label: None,
        }
    }

    // ---- tokens -------------------------------------------------------------------------

    #[inline(always)]
    fn bump(&mut self) -> Token {
        let t = self.tok;
        self.prev_end = t.end;
        if self.at >= self.ahead_len {
            self.refill();
        }
        self.tok = self.ahead.get(self.at).copied().unwrap_or(t);
        self.at += 1;
        t
    }

    /// Lexes the next batch of tokens: a tight loop is much cheaper per token than a call
    /// per token. A batch stops at the end of the text or at a bad token (whose reason the
    /// lexer then still holds).
    #[inline(never)]
    fn refill(&mut self) {
        // A skeleton parse jumps over every body, a sparse one over most lines: a short batch
        // wastes less lexing at each jump.
        if self.sparse.is_some() {
            self.refill_batch::<SPARSE_LOOKAHEAD>();
        } else if self.skeleton {
            self.refill_batch::<SKELETON_LOOKAHEAD>();
        } else {
            self.refill_batch::<LOOKAHEAD>();
        }
    }

    #[inline(always)]
    fn refill_batch<const N: usize>(&mut self) {
        // The lexer as a local: nothing else can see it while the batch is lexed.
        let mut lex = self.lex.clone();
        let n = lex.fill(&mut self.ahead[..N.min(LOOKAHEAD)]);
        self.lex = lex;
        self.ahead_len = n;
        self.at = 0;
    }

    /// Moves the lexer to `pos` and reads the token there.
    fn seek(&mut self, pos: usize) {
        self.ahead_len = 0;
        self.at = 0;
        self.lex = Lexer::at(self.src, pos);
        self.tok = self.lex.next_token();
    }

    #[inline]
    fn text(&self, t: Token) -> &'s [u8] {
        self.src
            .get(t.start as usize..t.end as usize)
            .unwrap_or(&[])
    }

    #[inline]
    fn word(&self) -> &'s [u8] {
        if self.tok.kind == Tok::Ident {
            self.text(self.tok)
        } else {
            &[]
        }
    }

    #[inline]
    fn is_word(&self, w: &[u8]) -> bool {
        self.tok.kind == Tok::Ident && self.text(self.tok) == w
    }

    #[inline]
    fn eat_word(&mut self, w: &[u8]) -> bool {
        if self.is_word(w) {
            self.bump();
            true
        } else {
            false
        }
    }

    fn eat(&mut self, kind: Tok) -> bool {
        if self.tok.kind == kind {
            self.bump();
            true
        } else {
            false
        }
    }

    /// The token after the current one.
    fn peek(&mut self) -> Token {
        if self.at >= self.ahead_len {
            self.refill();
        }
        self.ahead[..self.ahead_len]
            .get(self.at)
            .copied()
            .unwrap_or(self.tok)
    }

    #[inline]
    fn expect(&mut self, kind: Tok, what: &str) -> PResult<Token> {
        if self.tok.kind == kind {
            Ok(self.bump())
        } else {
            self.expected_cold(what)
        }
    }

    #[cold]
    #[inline(never)]
    fn expected_cold<T>(&self, what: &str) -> PResult<T> {
        self.expected(what)
    }

    #[inline]
    fn expect_word(&mut self, w: &str) -> PResult<()> {
        if self.eat_word(w.as_bytes()) {
            Ok(())
        } else {
            self.expected_word_cold(w)
        }
    }

    #[cold]
    #[inline(never)]
    fn expected_word_cold(&self, w: &str) -> PResult<()> {
        self.expected(&format!("'{w}'"))
    }

    fn error_at<T>(&self, offset: u32, message: String) -> PResult<T> {
        Err(ParseError::at(
            self.file,
            self.src,
            offset as usize,
            message,
        ))
    }

    fn expected<T>(&self, what: &str) -> PResult<T> {
        let found = match self.tok.kind {
            Tok::Eof => "end of file".to_string(),
            Tok::Error => {
                return self.error_at(
                    self.tok.start,
                    format!("{} (expected {what})", self.lex.error),
                )
            }
            _ => {
                let text = String::from_utf8_lossy(self.text(self.tok));
                let short: String = text.chars().take(40).collect();
                format!("'{short}'")
            }
        };
        self.error_at(self.tok.start, format!("expected {what}, found {found}"))
    }

    fn newline_before_tok(&self) -> bool {
        self.src
            .get(self.prev_end as usize..self.tok.start as usize)
            .is_some_and(|gap| gap.contains(&b'\n'))
    }

    fn rest_of_line(&self, pos: u32) -> u32 {
        lexer::rest_of_line(self.src, pos)
    }

    fn enter(&mut self) -> PResult<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return self.error_at(self.tok.start, format!("nesting deeper than {MAX_DEPTH}"));
        }
        Ok(())
    }

    fn leave(&mut self) {
        self.depth = self.depth.saturating_sub(1);
    }

    /// Skips a bracketed group starting at the current opening token.
    fn skip_group(&mut self) -> PResult<()> {
        self.skip_group_naming(None)
    }

    /// The parentheses of an attribute (`memory(...)`, an unknown one's), kept as text.
    /// Attributes never name a global: kept, such a name would outlive the global's removal
    /// (found by the ir_lower fuzz target: a word LLVM does not know, taken as a call's
    /// attribute, swallowed `(... @debugString.0 ...)`, and the string was removed).
    fn skip_attr_parens(&mut self) -> PResult<()> {
        self.skip_group_naming(Some("an attribute names no global"))
    }

    /// `{ ... }` of `attributes #N = { ... }`, kept as text, naming no global (see
    /// [`Parser::skip_attr_parens`]): one there means the group's `}` is missing and it
    /// swallowed what follows, as LLVM also says.
    fn skip_attr_group(&mut self) -> PResult<()> {
        self.skip_group_naming(Some(
            "an attribute group names no global: is the group's closing '}' missing?",
        ))
    }

    /// A bracketed group from the current opening bracket to its match. A global named
    /// inside is a reference, or with `refused`, that error.
    fn skip_group_naming(&mut self, refused: Option<&str>) -> PResult<()> {
        let open = self.tok.start;
        let mut depth: u32 = 0;
        loop {
            match self.tok.kind {
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.bump();
                        return Ok(());
                    }
                }
                Tok::Eof => return self.error_at(open, "unbalanced bracket".into()),
                Tok::Error => return self.expected("a closing bracket"),
                Tok::GlobalVar | Tok::GlobalId => {
                    let t = self.tok;
                    if let Some(message) = refused {
                        return self.error_at(t.start, message.into());
                    }
                    self.global_ref(t)?;
                }
                _ => {}
            }
            self.bump();
        }
    }

    /// Skips tokens to the end of the line (brackets may span lines).
    /// `^N = ...`: a summary entry, kept as text. Its fields are skipped byte by byte, not
    /// as tokens, because LLVM's summary syntax takes spellings its other parts do not
    /// (`noUnwind : 1`); the entry ends at the first line end outside parentheses.
    #[cold]
    fn skip_summary_entry(&mut self) -> PResult<()> {
        let start = self.tok.start as usize;
        let mut depth: u32 = 0;
        // Past the `)` that closes the entry's outermost parentheses: only a comment may follow
        // on its line, as LLVM's parser requires.
        let mut closed = false;
        let mut pos = start;
        while let Some(&b) = self.src.get(pos) {
            if closed && !matches!(b, b' ' | b'\t' | b'\r' | b';' | b'\n') {
                return self.error_at(
                    pos as u32,
                    "expected the end of the line after a summary entry".into(),
                );
            }
            match b {
                b'(' => depth += 1,
                b')' => {
                    if depth == 0 {
                        return self
                            .error_at(pos as u32, "unbalanced ')' in a summary entry".into());
                    }
                    depth -= 1;
                    closed = depth == 0;
                }
                b'"' => {
                    let quote = pos;
                    pos += 1;
                    while let Some(&c) = self.src.get(pos) {
                        match c {
                            b'\\' => pos += 1,
                            b'"' => break,
                            _ => {}
                        }
                        pos += 1;
                    }
                    if pos >= self.src.len() {
                        return self.error_at(quote as u32, "unterminated string".into());
                    }
                }
                b';' => {
                    // A comment runs to the end of the line.
                    while self.src.get(pos).is_some_and(|&c| c != b'\n') {
                        pos += 1;
                    }
                    continue;
                }
                b'\n' if depth == 0 => break,
                _ => {}
            }
            pos += 1;
        }
        if depth > 0 {
            return self.error_at(
                start as u32,
                "a summary entry without its closing ')'".into(),
            );
        }
        // The entry's last byte before the line end (trailing spaces are no part of it); an
        // unterminated string or a final `\` may have taken `pos` past the end.
        let mut end = pos.min(self.src.len());
        while end > start && matches!(self.src[end - 1], b' ' | b'\t' | b'\r') {
            end -= 1;
        }
        self.seek(end);
        self.prev_end = end as u32;
        Ok(())
    }

    fn skip_line(&mut self) -> PResult<()> {
        let mut depth: u32 = 0;
        loop {
            match self.tok.kind {
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => {
                    if depth == 0 {
                        return self.expected("a matching opening bracket");
                    }
                    depth -= 1;
                }
                Tok::Eof => {
                    if depth > 0 {
                        return self.expected("a closing bracket");
                    }
                    return Ok(());
                }
                Tok::Error => return self.expected("a token"),
                _ => {}
            }
            self.bump();
            if depth == 0 && (self.tok.kind == Tok::Eof || self.newline_before_tok()) {
                return Ok(());
            }
        }
    }

    fn int_value(&self, t: Token) -> PResult<i128> {
        match const_data::parse_int(self.text(t)) {
            Some(v) => Ok(v),
            None => self.error_at(t.start, "integer out of range".into()),
        }
    }

    fn expect_u64(&mut self, what: &str) -> PResult<u64> {
        // `u0x200000000` is an integer too (LLVM's hexadecimal integer literal).
        let hex = self.tok.kind == Tok::Ident && lexer::is_hex_int(self.word());
        if self.tok.kind != Tok::Int && !hex {
            return self.expected(what);
        }
        let t = self.bump();
        match u64::try_from(self.int_value(t)?) {
            Ok(v) => Ok(v),
            Err(_) => self.error_at(t.start, format!("{what} must not be negative")),
        }
    }

    fn expect_u32(&mut self, what: &str) -> PResult<u32> {
        let start = self.tok.start;
        let v = self.expect_u64(what)?;
        match u32::try_from(v) {
            Ok(v) => Ok(v),
            Err(_) => self.error_at(start, format!("{what} is too large")),
        }
    }

    fn check_capacity(&self, len: usize, what: &str) -> PResult<()> {
        if len >= MAX_INDEX as usize {
            return self.error_at(self.tok.start, format!("too many {what}"));
        }
        Ok(())
    }

    /// Room for one more metadata record (their ids stay below those of definitions kept
    /// as text, see [`crate::md_data::UNREAD_IDS`]).
    fn check_md_capacity(&self) -> PResult<()> {
        if self.m.md.nodes.len() >= crate::md_data::UNREAD_IDS as usize {
            return self.error_at(self.tok.start, "too many metadata nodes".into());
        }
        Ok(())
    }

    // ---- module ---------------------------------------------------------------------------

    fn module(&mut self) -> PResult<()> {
        loop {
            let start = self.tok.start;
            let kind = match self.tok.kind {
                Tok::Eof => break,
                Tok::Ident => match self.word() {
                    b"source_filename" => {
                        self.bump();
                        self.expect(Tok::Equal, "'='")?;
                        let s = self.expect(Tok::Str, "a string")?;
                        self.m.source_filename = text(s);
                        ItemKind::SourceFilename
                    }
                    b"target" => {
                        self.bump();
                        if self.eat_word(b"datalayout") {
                            self.expect(Tok::Equal, "'='")?;
                            let s = self.expect(Tok::Str, "a string")?;
                            self.datalayout(s)?;
                            ItemKind::DataLayout
                        } else if self.eat_word(b"triple") {
                            self.expect(Tok::Equal, "'='")?;
                            let s = self.expect(Tok::Str, "a string")?;
                            self.m.triple = text(s);
                            ItemKind::Triple
                        } else {
                            return self.expected("'datalayout' or 'triple'");
                        }
                    }
                    b"module" => {
                        self.bump();
                        self.expect_word("asm")?;
                        self.expect(Tok::Str, "a string")?;
                        ItemKind::ModuleAsm
                    }
                    b"define" => self.function(true)?,
                    b"declare" => self.function(false)?,
                    b"attributes" => {
                        self.bump();
                        self.expect(Tok::AttrGroupId, "an attribute group id")?;
                        self.expect(Tok::Equal, "'='")?;
                        if self.tok.kind != Tok::LBrace {
                            return self.expected("'{'");
                        }
                        self.skip_attr_group()?;
                        ItemKind::AttrGroup
                    }
                    b"uselistorder" | b"uselistorder_bb" => {
                        self.skip_line()?;
                        ItemKind::Other
                    }
                    _ => return self.expected("a top-level entity"),
                },
                Tok::LocalVar | Tok::LocalId => self.type_def()?,
                Tok::GlobalVar | Tok::GlobalId => self.global_def()?,
                Tok::ComdatVar => {
                    self.bump();
                    self.expect(Tok::Equal, "'='")?;
                    self.expect_word("comdat")?;
                    self.expect(Tok::Ident, "a comdat selection kind")?;
                    ItemKind::Comdat
                }
                Tok::MetadataVar => self.named_md()?,
                Tok::MetadataId => self.md_def()?,
                Tok::SummaryId => {
                    self.skip_summary_entry()?;
                    ItemKind::Other
                }
                _ => return self.expected("a top-level entity"),
            };
            let end = self.rest_of_line(self.prev_end);
            let index = self.m.items.len() as u32;
            match kind {
                ItemKind::Function(f) => {
                    self.m.funcs[f.index()].item = index;
                    let g = self.m.funcs[f.index()].global;
                    self.m.globals[g.index()].item = index;
                }
                ItemKind::Global(g) => self.m.globals[g.index()].item = index,
                _ => {}
            }
            // A filtered parse keeps a run of metadata definitions as one item: a module
            // with debug info has 150,000 of them, and an item each was a fifth of its
            // skeleton's memory. (`Module::remove_metadata` splits a run.)
            if self.md_unread && kind == ItemKind::Md {
                if let Some(run) = self.m.items.last_mut() {
                    if run.kind == ItemKind::Md && run.end == start {
                        run.end = end;
                        continue;
                    }
                }
            }
            self.m.items.push(ItemData {
                kind,
                start,
                end,
                state: ITEM_SOURCE,
                text: None,
            });
            self.m.order.push(index);
        }
        self.finish()
    }

    fn datalayout(&mut self, s: Token) -> PResult<()> {
        self.m.datalayout_text = text(s);
        let raw = self.text(s);
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]);
        let decoded = lexer::unescape(body);
        let string = String::from_utf8_lossy(&decoded);
        match DataLayout::parse(&string) {
            Ok(layout) => {
                self.m.layout = layout;
                Ok(())
            }
            Err(e) => self.error_at(s.start, e.to_string()),
        }
    }

    fn finish(&mut self) -> PResult<()> {
        self.declare_called_intrinsics();
        for g in &self.m.globals {
            if let GlobalKindData::Undefined(offset) = g.kind {
                let mut name = Vec::new();
                crate::types::write_name(b'@', &g.name, g.numbered, &mut name);
                return self.error_at(
                    offset,
                    format!(
                        "use of undefined value '{}'",
                        String::from_utf8_lossy(&name)
                    ),
                );
            }
        }
        for node in &self.m.md.nodes {
            if let MdKindData::Undefined(offset) = node.kind {
                return self.error_at(
                    offset,
                    format!("use of undefined metadata '!{}'", node.number),
                );
            }
        }
        let mut undefined: Vec<(u32, u32)> = self
            .type_mentions
            .iter()
            .map(|(&index, &offset)| (offset, index))
            .filter(|&(_, index)| self.m.types.named_body(index) == Some(&NamedBody::Undefined))
            .collect();
        undefined.sort_unstable();
        if let Some(&(offset, _)) = undefined.first() {
            return self.error_at(offset, "use of undefined type".into());
        }
        Ok(())
    }

    /// LLVM declares an intrinsic the module calls without declaring it (`call void
    /// @llvm.assume(i1 %c)`), with the function type of the call. The declaration has no
    /// text: the module prints as written.
    #[cold]
    fn declare_called_intrinsics(&mut self) {
        let undeclared = |g: &GlobalData| {
            matches!(g.kind, GlobalKindData::Undefined(_))
                && !g.numbered
                && g.name.starts_with(b"llvm.")
        };
        if !self.m.globals.iter().any(undeclared) {
            return;
        }
        for i in 0..self.m.insts.len() {
            let inst = &self.m.insts[i];
            if !matches!(inst.opcode, Opcode::Call | Opcode::Invoke | Opcode::CallBr)
                || inst.ops_len == 0
            {
                continue;
            }
            let Some(callee) = self.m.ops.get(inst.ops as usize) else {
                continue;
            };
            let Value::Global(g) = callee.value.unpack() else {
                continue;
            };
            if !undeclared(&self.m.globals[g.index()]) {
                continue;
            }
            let Some(call) = self.m.calls.get(inst.extra as usize) else {
                continue;
            };
            let fn_ty = call.fn_ty;
            let Some((_, params, _)) = self.m.types.function_parts(fn_ty) else {
                continue;
            };
            let params: Vec<TypeId> = params.to_vec();
            let fid = FuncId(self.m.funcs.len() as u32);
            let params_start = self.m.args.len() as u32;
            for ty in params {
                self.m.args.push(ArgData {
                    func: fid,
                    ty,
                    attrs: (self.m.attrs.len() as u32, 0),
                    name: NO_TEXT,
                    numbered: true,
                });
            }
            let params = (params_start, self.m.args.len() as u32 - params_start);
            self.m.funcs.push(FuncData {
                global: g,
                item: NONE,
                fn_ty,
                ret_attrs: (self.m.attrs.len() as u32, 0),
                params,
                prefix: NO_TEXT,
                cconv: NO_TEXT,
                suffix: NO_TEXT,
                suffix_copy: NONE,
                is_def: false,
                body_start: NONE,
                header_end: NONE,
                close: NONE,
                blocks: Vec::new(),
                only_numbered_locals: false,
                implicit_numbers: false,
                has_opaque: false,
                state: 0,
                record_subst: Default::default(),
                names: None,
            });
            let addrspace = self.m.layout.program_addrspace();
            let ptr_ty = self.m.types.ptr(addrspace);
            let global = &mut self.m.globals[g.index()];
            global.kind = GlobalKindData::Func(fid);
            global.addrspace = addrspace;
            global.ptr_ty = ptr_ty;
        }
    }

    // ---- types ----------------------------------------------------------------------------

    fn is_type_start(&self) -> bool {
        match self.tok.kind {
            Tok::LocalVar | Tok::LocalId | Tok::LBrace | Tok::Less | Tok::LSquare => true,
            Tok::Ident => {
                let w = self.text(self.tok);
                matches!(
                    w,
                    b"void"
                        | b"half"
                        | b"bfloat"
                        | b"float"
                        | b"double"
                        | b"x86_fp80"
                        | b"fp128"
                        | b"ppc_fp128"
                        | b"x86_amx"
                        | b"x86_mmx"
                        | b"label"
                        | b"metadata"
                        | b"token"
                        | b"ptr"
                        | b"target"
                ) || int_type_bits(w).is_some()
            }
            _ => false,
        }
    }

    fn addrspace(&mut self) -> PResult<u32> {
        self.expect_word("addrspace")?;
        self.expect(Tok::LParen, "'('")?;
        let n = self.expect_u32("an address space")?;
        if n >= 1 << 24 {
            return self.error_at(self.prev_end, "address space out of range".into());
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(n)
    }

    fn named_type_ref(&mut self, t: Token) -> TypeId {
        let numbered = t.kind == Tok::LocalId;
        let key = name_key(self.text(t), numbered);
        let (id, index) = match key {
            NameKey::Numbered(n) => self.m.types.named_ref(true, n.to_string().as_bytes()),
            NameKey::Named(name) => self.m.types.named_ref(false, &name),
        };
        match self.m.types.named_body(index) {
            Some(NamedBody::Undefined) => {
                self.type_mentions.entry(index).or_insert(t.start);
            }
            // `%t = type [8 x i8]` names the array type itself.
            Some(&NamedBody::Alias(target)) => return target,
            _ => {}
        }
        id
    }

    pub(crate) fn parse_type(&mut self) -> PResult<TypeId> {
        // The common case first: `iN` or `ptr` with nothing after it.
        if self.tok.kind == Tok::Ident {
            let w = self.text(self.tok);
            let simple = match w {
                b"ptr" => Some(TypeId::PTR),
                b"i32" => Some(TypeId::I32),
                b"i64" => Some(TypeId::I64),
                b"i8" => Some(TypeId::I8),
                b"i1" => Some(TypeId::I1),
                [b'i', b'0'..=b'9', ..] => int_type_bits(w).map(|bits| self.m.types.int(bits)),
                _ => None,
            };
            if let Some(mut ty) = simple {
                self.bump();
                if !matches!(self.tok.kind, Tok::Star | Tok::LParen | Tok::Ident) {
                    return Ok(ty);
                }
                if ty == TypeId::PTR && self.is_word(b"addrspace") {
                    let n = self.addrspace()?;
                    ty = self.m.types.ptr(n);
                }
                return self.type_suffix(ty);
            }
        }
        self.enter()?;
        let t = self.tok;
        let ty = match t.kind {
            Tok::Ident => {
                let w = self.text(t);
                self.bump();
                match w {
                    b"void" => TypeId::VOID,
                    b"ptr" => {
                        if self.is_word(b"addrspace") {
                            let n = self.addrspace()?;
                            self.m.types.ptr(n)
                        } else {
                            TypeId::PTR
                        }
                    }
                    b"half" => TypeId::HALF,
                    b"bfloat" => self.m.types.intern(TypeData::BFloat),
                    b"float" => TypeId::FLOAT,
                    b"double" => TypeId::DOUBLE,
                    b"x86_fp80" => self.m.types.intern(TypeData::X86Fp80),
                    b"fp128" => self.m.types.intern(TypeData::Fp128),
                    b"ppc_fp128" => self.m.types.intern(TypeData::PpcFp128),
                    b"x86_amx" => self.m.types.intern(TypeData::X86Amx),
                    b"x86_mmx" => self.m.types.intern(TypeData::X86Mmx),
                    b"label" => TypeId::LABEL,
                    b"metadata" => TypeId::METADATA,
                    b"token" => TypeId::TOKEN,
                    b"target" => self.target_type()?,
                    _ => match int_type_bits(w) {
                        Some(bits) => self.m.types.int(bits),
                        None => {
                            return self.error_at(
                                t.start,
                                format!("expected type, found '{}'", String::from_utf8_lossy(w)),
                            )
                        }
                    },
                }
            }
            Tok::LocalVar | Tok::LocalId => {
                self.bump();
                self.named_type_ref(t)
            }
            Tok::LBrace => {
                let fields = self.struct_fields()?;
                self.m.types.struct_literal(&fields, false)
            }
            Tok::Less => {
                if self.peek().kind == Tok::LBrace {
                    self.bump();
                    let fields = self.struct_fields()?;
                    self.expect(Tok::Greater, "'>'")?;
                    self.m.types.struct_literal(&fields, true)
                } else {
                    self.bump();
                    let scalable = self.eat_word(b"vscale");
                    if scalable {
                        self.expect_word("x")?;
                    }
                    let len = self.expect_u32("a vector length")?;
                    self.expect_word("x")?;
                    let elem = self.parse_type()?;
                    self.expect(Tok::Greater, "'>'")?;
                    self.m.types.intern(TypeData::Vector {
                        len,
                        elem,
                        scalable,
                    })
                }
            }
            Tok::LSquare => {
                self.bump();
                let len = self.expect_u64("an array length")?;
                self.expect_word("x")?;
                let elem = self.parse_type()?;
                self.expect(Tok::RSquare, "']'")?;
                self.m.types.array(len, elem)
            }
            _ => return self.expected("type"),
        };
        let ty = self.type_suffix(ty)?;
        self.leave();
        Ok(ty)
    }

    /// `*`, `addrspace(N)*` and function parameter lists after a type.
    fn type_suffix(&mut self, mut ty: TypeId) -> PResult<TypeId> {
        loop {
            let addrspace_star = self.tok.kind == Tok::Ident
                && self.is_word(b"addrspace")
                && self.peek().kind == Tok::LParen;
            match self.tok.kind {
                // Typed pointers (`i8*`, `i8 addrspace(1)*`) are read as opaque pointers.
                Tok::Star => {
                    self.bump();
                    ty = TypeId::PTR;
                }
                Tok::Ident if addrspace_star => {
                    let n = self.addrspace()?;
                    self.expect(Tok::Star, "'*'")?;
                    ty = self.m.types.ptr(n);
                }
                Tok::LParen => {
                    self.bump();
                    let mut params = std::mem::take(&mut self.param_scratch);
                    params.clear();
                    let mut vararg = false;
                    if self.tok.kind != Tok::RParen {
                        loop {
                            if self.eat(Tok::DotDotDot) {
                                vararg = true;
                                break;
                            }
                            params.push(self.parse_type()?);
                            if !self.eat(Tok::Comma) {
                                break;
                            }
                        }
                    }
                    self.expect(Tok::RParen, "')'")?;
                    ty = self.m.types.function(ty, &params, vararg);
                    self.param_scratch = params;
                }
                _ => break,
            }
        }
        Ok(ty)
    }

    fn struct_fields(&mut self) -> PResult<Vec<TypeId>> {
        self.expect(Tok::LBrace, "'{'")?;
        let mut fields = Vec::new();
        if self.tok.kind != Tok::RBrace {
            loop {
                fields.push(self.parse_type()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "'}'")?;
        Ok(fields)
    }

    fn target_type(&mut self) -> PResult<TypeId> {
        self.expect(Tok::LParen, "'('")?;
        let name = self.expect(Tok::Str, "a target type name")?;
        let raw = self.text(name);
        let name = lexer::unescape(raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]));
        let mut types = Vec::new();
        let mut ints = Vec::new();
        while self.eat(Tok::Comma) {
            if self.tok.kind == Tok::Int {
                ints.push(self.expect_u32("an integer parameter")?);
            } else {
                if !ints.is_empty() {
                    return self.expected("an integer parameter");
                }
                types.push(self.parse_type()?);
            }
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(self.m.types.intern(TypeData::TargetExt {
            name: name.into(),
            types: types.into(),
            ints: ints.into(),
        }))
    }

    fn type_def(&mut self) -> PResult<ItemKind> {
        let t = self.bump();
        self.expect(Tok::Equal, "'='")?;
        self.expect_word("type")?;
        let numbered = t.kind == Tok::LocalId;
        let (_, index) = match name_key(self.text(t), numbered) {
            NameKey::Numbered(n) => self.m.types.named_ref(true, n.to_string().as_bytes()),
            NameKey::Named(name) => self.m.types.named_ref(false, &name),
        };
        if self.m.types.named_body(index) != Some(&NamedBody::Undefined) {
            return self.error_at(t.start, "redefinition of type".into());
        }
        let body = if self.eat_word(b"opaque") {
            NamedBody::Opaque
        } else if self.tok.kind == Tok::LBrace {
            NamedBody::Struct {
                fields: self.struct_fields()?.into(),
                packed: false,
            }
        } else if self.tok.kind == Tok::Less && self.peek().kind == Tok::LBrace {
            self.bump();
            let fields = self.struct_fields()?;
            self.expect(Tok::Greater, "'>'")?;
            NamedBody::Struct {
                fields: fields.into(),
                packed: true,
            }
        } else {
            self.non_struct_type_def(index)?
        };
        self.m.types.set_named_body(index, body);
        Ok(ItemKind::TypeDef)
    }

    /// `%t = type i32`: a name for a type that is not a struct; LLVM reads every mention of
    /// `%t` as the type itself.
    #[cold]
    fn non_struct_type_def(&mut self, index: u32) -> PResult<NamedBody> {
        if !self.is_type_start() {
            return self.expected("a type, 'opaque' or a struct body");
        }
        if let Some(&offset) = self.type_mentions.get(&index) {
            // As in LLVM: only a struct can be used before its definition.
            return self.error_at(offset, "forward reference to a non-struct type".into());
        }
        let target = self.parse_type()?;
        if let Some(&offset) = self.type_mentions.get(&index) {
            // `%a = type [2 x %a]`: only a struct may contain itself.
            return self.error_at(offset, "forward reference to a non-struct type".into());
        }
        // `%b` in `%a = type %b` already reads as what `%b` names (never an alias itself).
        Ok(NamedBody::Alias(target))
    }

    // ---- globals --------------------------------------------------------------------------

    fn global_ref(&mut self, t: Token) -> PResult<GlobalId> {
        let numbered = t.kind == Tok::GlobalId;
        let key = name_key(self.text(t), numbered);
        let found = match &key {
            NameKey::Numbered(n) => self.m.global_numbered.get(n),
            NameKey::Named(name) => self.m.global_map.get(&**name),
        };
        if let Some(&id) = found {
            return Ok(id);
        }
        self.check_capacity(self.m.globals.len(), "globals")?;
        let id = GlobalId(self.m.globals.len() as u32);
        let name: Box<[u8]> = match &key {
            NameKey::Numbered(n) => n.to_string().into_bytes().into(),
            NameKey::Named(name) => (**name).into(),
        };
        match key {
            NameKey::Numbered(n) => {
                self.m.global_numbered.insert(n, id);
            }
            NameKey::Named(_) => {
                self.m.global_map.insert(name.clone(), id);
            }
        }
        self.m.globals.push(GlobalData {
            name,
            numbered,
            kind: GlobalKindData::Undefined(t.start),
            item: NONE,
            addrspace: 0,
            ptr_ty: TypeId::PTR,
            removed: false,
        });
        Ok(id)
    }

    /// `@"" = ...`: LLVM numbers an unnamed global like `@N`, with the next number.
    #[cold]
    fn unnamed_global(&mut self, t: Token) -> PResult<GlobalId> {
        let n = self.next_global_number;
        self.next_global_number = n.saturating_add(1);
        if let Some(&id) = self.m.global_numbered.get(&n) {
            return Ok(id);
        }
        self.check_capacity(self.m.globals.len(), "globals")?;
        let id = GlobalId(self.m.globals.len() as u32);
        self.m.global_numbered.insert(n, id);
        self.m.globals.push(GlobalData {
            name: n.to_string().into_bytes().into(),
            numbered: true,
            kind: GlobalKindData::Undefined(t.start),
            item: NONE,
            addrspace: 0,
            ptr_ty: TypeId::PTR,
            removed: false,
        });
        Ok(id)
    }

    fn define_global(
        &mut self,
        t: Token,
        kind: GlobalKindData,
        addrspace: u32,
    ) -> PResult<GlobalId> {
        let id = match t.kind {
            Tok::GlobalId => {
                self.next_global_number = (token_number(self.text(t)) as u32).saturating_add(1);
                self.global_ref(t)?
            }
            Tok::GlobalVar if self.text(t) == b"@\"\"" => self.unnamed_global(t)?,
            _ => self.global_ref(t)?,
        };
        let ptr_ty = self.m.types.ptr(addrspace);
        let g = &mut self.m.globals[id.index()];
        if !matches!(g.kind, GlobalKindData::Undefined(_)) {
            return self.error_at(
                t.start,
                format!(
                    "redefinition of global '{}'",
                    String::from_utf8_lossy(self.text(t))
                ),
            );
        }
        g.kind = kind;
        g.addrspace = addrspace;
        g.ptr_ty = ptr_ty;
        Ok(id)
    }

    fn global_def(&mut self) -> PResult<ItemKind> {
        let name = self.bump();
        self.expect(Tok::Equal, "'='")?;
        let mut has_linkage = false;
        let mut declaration = false;
        let mut addrspace = None;
        loop {
            let w = self.word();
            match w {
                b"global" | b"constant" | b"alias" | b"ifunc" => break,
                b"addrspace" => addrspace = Some(self.addrspace()?),
                b"thread_local" => {
                    self.bump();
                    if self.tok.kind == Tok::LParen {
                        self.skip_group()?;
                    }
                }
                _ if LINKAGE_WORDS.contains(&w) => {
                    if matches!(
                        w,
                        b"private"
                            | b"internal"
                            | b"available_externally"
                            | b"linkonce"
                            | b"weak"
                            | b"common"
                            | b"appending"
                            | b"extern_weak"
                            | b"linkonce_odr"
                            | b"weak_odr"
                            | b"external"
                    ) {
                        has_linkage = true;
                        declaration = matches!(w, b"external" | b"extern_weak");
                    }
                    self.bump();
                }
                _ => return self.expected("'global', 'constant', 'alias' or 'ifunc'"),
            }
        }
        let kw = self.bump();
        let is_alias = matches!(self.text(kw), b"alias" | b"ifunc");
        let id = if is_alias {
            let value_ty = self.parse_type()?;
            self.expect(Tok::Comma, "','")?;
            let (ty, value) = if self.is_type_start() {
                let ty = self.parse_type()?;
                (ty, self.parse_value(ty)?)
            } else {
                self.untyped_aliasee()?
            };
            let index = self.m.aliases.len() as u32;
            self.m.aliases.push(AliasData {
                value_ty,
                aliasee: PackedOp { ty, value },
            });
            let kind = if self.text(kw) == b"alias" {
                GlobalKindData::Alias(index)
            } else {
                GlobalKindData::IFunc
            };
            let addrspace =
                addrspace.unwrap_or_else(|| self.m.types.ptr_addrspace(ty).unwrap_or(0));
            self.define_global(name, kind, addrspace)?
        } else {
            let constant = self.text(kw) == b"constant";
            let value_ty = self.parse_type()?;
            let init = if !has_linkage || !declaration {
                let value = self.parse_value(value_ty)?;
                Some(PackedOp {
                    ty: value_ty,
                    value,
                })
            } else {
                None
            };
            let index = self.m.vars.len() as u32;
            self.m.vars.push(VarData {
                value_ty,
                init,
                constant,
            });
            // LangRef: a variable written without `addrspace` is in 0 whatever the DataLayout's
            // `G` says (that default is for passes creating globals); llvm-as agrees.
            let addrspace = addrspace.unwrap_or(0);
            self.define_global(name, GlobalKindData::Var(index), addrspace)?
        };
        while self.tok.kind == Tok::Comma {
            self.bump();
            if self.tok.kind == Tok::MetadataVar {
                self.bump();
                self.md_ref()?;
                continue;
            }
            let attr = self.expect(Tok::Ident, "a global attribute")?;
            if self.text(attr) == b"align" {
                let start = self.tok.start;
                let n = self.expect_u64("an alignment")?;
                if !n.is_power_of_two() || n > 1 << 32 {
                    return self
                        .error_at(start, "alignment is not a power of two up to 2^32".into());
                }
                continue;
            }
            match self.tok.kind {
                Tok::Str | Tok::Int => {
                    self.bump();
                }
                Tok::LParen => self.skip_attr_parens()?,
                _ => {}
            }
        }
        if !self.newline_before_tok() {
            self.global_attributes()?;
        }
        Ok(ItemKind::Global(id))
    }

    /// What may follow a global's comma-separated fields on its line: attribute groups
    /// (`#0`), string attributes (`"key"="value"`) and keyword attributes, some with an
    /// argument (`align 16`, `code_model "small"`, `sanitize_address_dyninit`...): kept as text.
    fn global_attributes(&mut self) -> PResult<()> {
        while !self.newline_before_tok() {
            match self.tok.kind {
                Tok::AttrGroupId => {
                    self.bump();
                }
                Tok::Str => {
                    self.bump();
                    if self.eat(Tok::Equal) {
                        self.expect(Tok::Str, "a string")?;
                    }
                }
                Tok::Ident => {
                    self.bump();
                    match self.tok.kind {
                        Tok::LParen => self.skip_attr_parens()?,
                        Tok::Int | Tok::Str if !self.newline_before_tok() => {
                            self.bump();
                        }
                        _ => {}
                    }
                }
                Tok::Comma => {
                    self.bump();
                }
                _ => break,
            }
        }
        Ok(())
    }

    /// An aliasee written as a constant expression without a type in front
    /// (`@b = alias i32, getelementptr (i32, ptr @a, i64 1)`): its type is the expression's.
    #[cold]
    fn untyped_aliasee(&mut self) -> PResult<(TypeId, PackedValue)> {
        let value = self.parse_value(TypeId::PTR)?;
        let mut ty = TypeId::PTR;
        if let Value::Const(c) = value.unpack() {
            if let Some(ConstKind::Expr { ty: to, .. }) =
                self.m.consts.get(c.index()).map(|c| &c.kind)
            {
                if self.m.types.ptr_addrspace(*to).is_some() {
                    ty = *to;
                }
            }
        }
        Ok((ty, value))
    }

    // ---- functions ------------------------------------------------------------------------

    fn function(&mut self, is_def: bool) -> PResult<ItemKind> {
        self.bump();
        let prefix_start = self.tok.start;
        let mut cconv = NO_TEXT;
        let ret_attrs_start = self.m.attrs.len() as u32;
        let mut consumed = false;
        while !self.is_type_start() {
            let w = self.word();
            if self.tok.kind == Tok::MetadataVar {
                // Declarations carry their attachments up front: `declare !dbg !7 i32 @f()`.
                self.bump();
                self.md_ref()?;
            } else if LINKAGE_WORDS.contains(&w) {
                self.bump();
            } else if is_cconv(w) {
                cconv = self.calling_conv()?;
            } else if !self.parse_one_attr()? {
                return self.expected("a return type");
            }
            consumed = true;
        }
        let prefix = if consumed {
            Text {
                start: prefix_start,
                end: self.prev_end,
            }
        } else {
            NO_TEXT
        };
        let ret_attrs = (ret_attrs_start, self.m.attrs.len() as u32 - ret_attrs_start);
        let ret = self.parse_type()?;
        if !matches!(self.tok.kind, Tok::GlobalVar | Tok::GlobalId) {
            return self.expected("a function name");
        }
        let name = self.bump();
        self.check_capacity(self.m.funcs.len(), "functions")?;
        let fid = FuncId(self.m.funcs.len() as u32);
        let addrspace = self.m.layout.program_addrspace();
        let global = self.define_global(name, GlobalKindData::Func(fid), addrspace)?;
        self.expect(Tok::LParen, "'('")?;
        let params_start = self.m.args.len() as u32;
        let mut param_types = Vec::new();
        let mut vararg = false;
        if self.tok.kind != Tok::RParen {
            loop {
                if self.eat(Tok::DotDotDot) {
                    vararg = true;
                    break;
                }
                let ty = self.parse_type()?;
                let attrs = self.parse_attrs()?;
                let (name, numbered) = match self.tok.kind {
                    Tok::LocalVar | Tok::LocalId => {
                        let t = self.bump();
                        (text(t), t.kind == Tok::LocalId)
                    }
                    _ => (NO_TEXT, true),
                };
                self.check_capacity(self.m.args.len(), "parameters")?;
                self.m.args.push(ArgData {
                    func: fid,
                    ty,
                    attrs,
                    name,
                    numbered,
                });
                param_types.push(ty);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        let params = (params_start, self.m.args.len() as u32 - params_start);
        let suffix_start = self.tok.start;
        let mut consumed = false;
        loop {
            let attachment = self.tok.kind == Tok::MetadataVar && self.peek().kind != Tok::Equal;
            match self.tok.kind {
                Tok::LBrace if is_def => break,
                Tok::Ident => {
                    let w = self.word();
                    if TOP_LEVEL.contains(&w) {
                        break;
                    }
                    self.bump();
                    if matches!(w, b"prefix" | b"prologue" | b"personality") {
                        let ty = self.parse_type()?;
                        self.parse_value(ty)?;
                    } else if self.tok.kind == Tok::LParen {
                        self.skip_attr_parens()?;
                    } else if matches!(w, b"section" | b"partition" | b"gc" | b"align")
                        && matches!(self.tok.kind, Tok::Str | Tok::Int)
                    {
                        self.bump();
                    }
                }
                Tok::AttrGroupId => {
                    self.bump();
                }
                Tok::Str => {
                    self.bump();
                    if self.eat(Tok::Equal) {
                        self.expect(Tok::Str, "a string")?;
                    }
                }
                Tok::MetadataVar if attachment => {
                    self.bump();
                    self.md_ref()?;
                }
                _ => break,
            }
            consumed = true;
        }
        let (suffix, suffix_copy) = if consumed {
            let suffix = Text {
                start: suffix_start,
                end: self.prev_end,
            };
            let copy = self.m.suffix_copies.len() as u32;
            self.m
                .suffix_copies
                .extend_from_slice(crate::module::text_of(self.src, suffix));
            (suffix, copy)
        } else {
            (NO_TEXT, NONE)
        };
        let fn_ty = self.m.types.function(ret, &param_types, vararg);
        self.m.funcs.push(FuncData {
            global,
            item: NONE,
            fn_ty,
            ret_attrs,
            params,
            prefix,
            cconv,
            suffix,
            suffix_copy,
            is_def,
            body_start: NONE,
            header_end: self.prev_end,
            close: NONE,
            blocks: Vec::new(),
            only_numbered_locals: false,
            implicit_numbers: false,
            has_opaque: false,
            state: 0,
            record_subst: Default::default(),
            names: None,
        });
        if is_def {
            self.expect(Tok::LBrace, "'{'")?;
            let body_start = self.prev_end;
            self.m.funcs[fid.index()].body_start = body_start;
            self.m.funcs[fid.index()].header_end = body_start;
            if self.skeleton {
                // The body is parsed later, by a worker; find its end: LLVM writes the
                // closing brace alone at the start of a line. A wrong guess (a hand-written
                // module) makes the worker fail, and the whole module is parsed sequentially.
                let next = self.body_ends.partition_point(|&end| end < body_start);
                let Some(&close) = self.body_ends.get(next) else {
                    return self.expected("'}'");
                };
                let close = close as usize;
                self.pending.push((fid, body_start, close as u32));
                self.seek(close);
            } else {
                self.body(fid)?;
            }
            let close = self.expect(Tok::RBrace, "'}'")?;
            self.m.funcs[fid.index()].close = close.start;
        }
        Ok(ItemKind::Function(fid))
    }

    /// One parameter or return attribute; false when the token is not one.
    fn parse_one_attr(&mut self) -> PResult<bool> {
        let t = self.tok;
        let attr = match t.kind {
            Tok::Ident => {
                let w = self.text(t);
                if let Some(&(attr, _)) = FLAG_ATTRS.iter().find(|(_, name)| name.as_bytes() == w) {
                    self.bump();
                    attr
                } else if w == b"align" {
                    self.bump();
                    let n = if self.eat(Tok::LParen) {
                        let n = self.expect_u64("an alignment")?;
                        self.expect(Tok::RParen, "')'")?;
                        n
                    } else {
                        self.expect_u64("an alignment")?
                    };
                    Attr::Align(n)
                } else if w == b"dereferenceable" || w == b"dereferenceable_or_null" {
                    self.bump();
                    self.expect(Tok::LParen, "'('")?;
                    let n = self.expect_u64("a byte count")?;
                    self.expect(Tok::RParen, "')'")?;
                    if w == b"dereferenceable" {
                        Attr::Dereferenceable(n)
                    } else {
                        Attr::DereferenceableOrNull(n)
                    }
                } else if let Some(index) = TYPE_ATTRS.iter().position(|name| name.as_bytes() == w)
                {
                    self.bump();
                    if self.eat(Tok::LParen) {
                        let ty = self.parse_type()?;
                        self.expect(Tok::RParen, "')'")?;
                        Attr::type_attr(index, ty)
                    } else {
                        Attr::Other(text(t))
                    }
                } else if VALUE_WORDS.contains(&w) || self.is_type_start() || lexer::is_hex_int(w) {
                    return Ok(false);
                } else {
                    self.bump();
                    if self.tok.kind == Tok::LParen {
                        self.skip_attr_parens()?;
                    }
                    Attr::Other(Text {
                        start: t.start,
                        end: self.prev_end,
                    })
                }
            }
            Tok::Str => {
                self.bump();
                if self.eat(Tok::Equal) {
                    self.expect(Tok::Str, "a string")?;
                }
                Attr::Other(Text {
                    start: t.start,
                    end: self.prev_end,
                })
            }
            _ => return Ok(false),
        };
        self.check_capacity(self.m.attrs.len(), "attributes")?;
        self.m.attrs.push(attr);
        Ok(true)
    }

    fn parse_attrs(&mut self) -> PResult<(u32, u32)> {
        let start = self.m.attrs.len() as u32;
        while self.parse_one_attr()? {}
        Ok((start, self.m.attrs.len() as u32 - start))
    }

    // ---- function bodies ------------------------------------------------------------------

    fn body(&mut self, fid: FuncId) -> PResult<()> {
        let insts_start = self.m.insts.len();
        // One function's tables at a time; their allocations are reused for the next.
        let mut state = self.spare.take().unwrap_or_default();
        state.numbered.clear();
        state.implicit_numbers = false;
        state.named.clear();
        state.forward.clear();
        state.ops_start = self.m.ops.len();
        state.md_ops_start = self.m.md.ops.len();
        let (start, len) = self.m.funcs[fid.index()].params;
        for i in start..start + len {
            let arg = &self.m.args[i as usize];
            let value = Value::Arg(crate::value::ArgId(i));
            if arg.name.is_none() {
                state.numbered.push(value);
                continue;
            }
            let raw = self
                .src
                .get(arg.name.start as usize..arg.name.end as usize)
                .unwrap_or(&[]);
            match name_key(raw, arg.numbered) {
                NameKey::Numbered(n) => {
                    if n as usize > state.numbered.len() && n < MAX_NUMBER_GAP_TO {
                        state.numbered.resize(n as usize, NUMBER_GAP);
                    }
                    if n as usize != state.numbered.len() {
                        return self.error_at(
                            arg.name.start,
                            format!(
                                "argument expected to be numbered '%{}' or greater",
                                state.numbered.len()
                            ),
                        );
                    }
                    state.numbered.push(value);
                }
                NameKey::Named(name) => {
                    if state.named.insert(name, value).is_some() {
                        return self.error_at(arg.name.start, "redefinition of an argument".into());
                    }
                }
            }
        }
        self.f = Some(state);
        let mut first = true;
        let mut after_terminator = false;
        loop {
            let raw_label = self.raw_label.take();
            match self.tok.kind {
                _ if raw_label.is_some() => {}
                Tok::RBrace => {
                    if first {
                        return self.expected("a basic block");
                    }
                    break;
                }
                Tok::Ident if self.is_word(b"uselistorder") && !first => {
                    self.use_list_order()?;
                    continue;
                }
                Tok::Eof => return self.expected("'}'"),
                _ => {}
            }
            let block = BlockId(self.m.blocks.len() as u32);
            self.check_capacity(self.m.blocks.len(), "blocks")?;
            // Where a sparse parse goes on without the lexer, after a label it read so.
            let mut resume = None;
            let (label, numbered, line_end) = match (raw_label, self.tok.kind) {
                (Some(t), _) => {
                    self.prev_end = t.end;
                    self.define_local(t, Value::Block(block))?;
                    let line_end = self.rest_of_line(t.end);
                    resume = Some(line_end as usize);
                    (text(t), true, line_end)
                }
                (None, Tok::LabelStr | Tok::LabelId) => {
                    let t = self.bump();
                    self.define_local(t, Value::Block(block))?;
                    (text(t), t.kind == Tok::LabelId, self.rest_of_line(t.end))
                }
                _ => {
                    if !first && !after_terminator {
                        return self.expected("a label");
                    }
                    if !first && self.sparse.is_some() {
                        return self.whole_parse_needed("an implicitly numbered block");
                    }
                    if !first {
                        if let Some(state) = self.f.as_mut() {
                            state.implicit_numbers = true;
                        }
                    }
                    self.define_implicit(Value::Block(block));
                    (NO_TEXT, true, self.prev_end)
                }
            };
            first = false;
            self.m.blocks.push(BlockData {
                func: fid,
                label,
                numbered,
                line_end,
                insts: crate::module::InstList::Range(0, 0),
            });
            self.fn_blocks.push(block);
            after_terminator = false;
            loop {
                if let Some(pos) = resume.take() {
                    match self.opaque_lines(block, Some(pos))? {
                        OpaqueRun::Nothing => {}
                        OpaqueRun::Lines => continue,
                        OpaqueRun::Block => {
                            after_terminator = true;
                            break;
                        }
                    }
                }
                match self.tok.kind {
                    Tok::RBrace | Tok::LabelStr | Tok::LabelId | Tok::Eof => break,
                    Tok::DbgRecord => self.debug_record()?,
                    _ => {
                        if self.is_word(b"uselistorder") {
                            break;
                        }
                        if self.sparse.is_some() {
                            match self.opaque_lines(block, None)? {
                                OpaqueRun::Nothing => {}
                                OpaqueRun::Lines => continue,
                                OpaqueRun::Block => {
                                    after_terminator = true;
                                    break;
                                }
                            }
                        }
                        let inst = self.instruction(block)?;
                        self.block_insts.push(inst);
                        if self.m.insts[inst.index()].opcode.is_terminator() {
                            after_terminator = true;
                            break;
                        }
                    }
                }
            }
            // All blocks' lists share one arena: no allocation per block.
            let start = self.m.block_insts.len() as u32;
            self.m.block_insts.extend_from_slice(&self.block_insts);
            self.m.blocks[block.index()].insts =
                crate::module::InstList::Range(start, self.block_insts.len() as u32);
            self.block_insts.clear();
        }
        self.m.funcs[fid.index()].blocks = self.fn_blocks.as_slice().into();
        self.m.funcs[fid.index()].only_numbered_locals =
            self.f.as_ref().is_some_and(|state| state.named.is_empty());
        self.m.funcs[fid.index()].implicit_numbers =
            self.f.as_ref().is_some_and(|state| state.implicit_numbers);
        self.m.funcs[fid.index()].has_opaque = self.sparse.is_some()
            && self.m.insts[insts_start..]
                .iter()
                .any(|d| d.flags & OPAQUE != 0);
        self.fn_blocks.clear();
        self.finish_function()
    }

    /// Parses one function body (a worker's job in a parallel parse): `body_start` is just
    /// past `{`, and the body must end at the `}` at `close`.
    ///
    /// With `sparse` lines, only those lines are sure to be parsed: the others are kept as
    /// opaque instructions where they can be (see [`Parser::opaque_lines`]). A sparse parse
    /// refuses what opaque lines would make wrong, so that the caller parses the module whole
    /// instead.
    pub(crate) fn body_at(
        &mut self,
        fid: FuncId,
        body_start: u32,
        close: u32,
        sparse: Option<SparseLines>,
    ) -> PResult<bool> {
        self.sparse = sparse;
        self.sparse_next = 0;
        self.seek(body_start as usize);
        self.prev_end = body_start;
        let parsed = self.body(fid);
        self.sparse = None;
        parsed?;
        Ok(self.tok.kind == Tok::RBrace && self.tok.start == close)
    }

    /// Refuses a sparse parse: an implicitly numbered value (a removal would renumber it in
    /// text kept opaque), or an instruction the filter found whose result name does not start
    /// a line (its uses were not looked for).
    fn whole_parse_needed<T>(&self, why: &str) -> PResult<T> {
        self.error_at(
            self.tok.start,
            format!("{why}: the body must be parsed whole"),
        )
    }

    /// Whether `pos` is on one of the lines a sparse parse must parse (`pos` ascending from
    /// call to call within a body).
    fn on_sparse_line(&mut self, pos: usize) -> bool {
        let Some(lines) = self.sparse.as_ref().map(|s| &s.parse) else {
            return false;
        };
        let mut k = self.sparse_next;
        while lines.get(k).is_some_and(|&(_, end)| end as usize <= pos) {
            k += 1;
        }
        self.sparse_next = k;
        lines
            .get(k)
            .is_some_and(|&(start, _)| start as usize <= pos)
    }

    /// Whether a line to parse starts before `end` (and ends past the position
    /// [`Parser::on_sparse_line`] last looked at).
    fn sparse_line_before(&self, end: usize) -> bool {
        self.sparse.as_ref().is_some_and(|s| {
            s.parse
                .get(self.sparse_next)
                .is_some_and(|&(start, _)| (start as usize) < end)
        })
    }

    /// In a sparse parse, whether an instruction (`start..end`, its result named at `def`)
    /// touches a line the filter found: then every use of its result was parsed. An error
    /// where the uses were not looked for.
    fn found_by_filter(&self, start: u32, end: u32, def: Option<Token>) -> PResult<bool> {
        let Some(sparse) = self.sparse.as_ref() else {
            return Ok(false);
        };
        let k = sparse
            .found
            .partition_point(|&(_, line_end)| line_end <= start);
        if sparse
            .found
            .get(k)
            .is_none_or(|&(line_start, _)| line_start >= end)
        {
            return Ok(false);
        }
        match def {
            Some(d) if sparse.defs.binary_search(&d.start).is_err() => {
                self.whole_parse_needed("a result named away from its line's start")
            }
            _ => Ok(true),
        }
    }

    /// Keeps the instructions from the current token on as text, line by line, while they can
    /// be: a line not among the sparse lines, holding one instruction of an opcode LLVM
    /// prints on one line and that is neither a call nor an alloca, whose result (if any) is
    /// named `%N =` or `%name =`. Each becomes an opaque instruction: its opcode, its text and
    /// its result's name (defined, so that numbering is checked and parsed lines may name
    /// it), but no operands and no type. Its result counts as named in text, as it may be.
    ///
    /// Reading on the bytes, it costs a fraction of a parse; what it cannot keep (a label, a
    /// comment, any other line) is left to the parser, at the token it stopped on.
    ///
    /// `from`: where to start, when `tok` is stale (after a label read without the lexer); the
    /// lexer is then moved to where the run stops even if it kept nothing. After a terminator,
    /// a numbered label (`12:`) is read too, into [`Parser::raw_label`], and the lexer left
    /// behind.
    fn opaque_lines(&mut self, block: BlockId, from: Option<usize>) -> PResult<OpaqueRun> {
        let src = self.src;
        let mut pos = from.unwrap_or(self.tok.start as usize);
        if from.is_some() {
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = src.get(pos) {
                pos += 1;
            }
        }
        let mut run = OpaqueRun::Nothing;
        while self.sparse.is_some() && !self.on_sparse_line(pos) {
            let Some((def, opcode, end)) = opaque_line(src, pos) else {
                break;
            };
            if self.sparse_line_before(end) {
                // A line to parse inside it (a switch's case naming a found result).
                break;
            }
            self.check_capacity(self.m.insts.len(), "instructions")?;
            let id = InstId(self.m.insts.len() as u32);
            let mut flags = OPAQUE;
            if let Some(t) = def {
                flags |= HAS_DEF | NAMED_IN_TEXT;
                self.define_local(t, Value::Inst(id))?;
            }
            self.m.insts.push(InstData {
                opcode,
                flags,
                aux: 0,
                md_len: 0,
                ty: TypeId::VOID,
                ops: self.m.ops.len() as u32,
                ops_len: 0,
                start: pos as u32,
                end: end as u32,
                extra: NONE,
                block: block.0,
                md: self.m.md_attach.len() as u32,
            });
            self.block_insts.push(id);
            self.prev_end = end as u32;
            pos = end;
            while let Some(b' ' | b'\t' | b'\n' | b'\r') = src.get(pos) {
                pos += 1;
            }
            if opcode.is_terminator() {
                run = OpaqueRun::Block;
                if !self.on_sparse_line(pos) {
                    if let Some(label) = numbered_label(src, pos) {
                        self.raw_label = Some(label);
                        return Ok(run);
                    }
                }
                break;
            }
            run = OpaqueRun::Lines;
        }
        if run != OpaqueRun::Nothing || from.is_some() {
            let prev_end = self.prev_end;
            self.seek(pos);
            self.prev_end = prev_end;
        }
        Ok(run)
    }

    pub(crate) fn into_module(self) -> Module {
        self.m
    }

    pub(crate) fn run_skeleton(&mut self) -> PResult<()> {
        self.skeleton = true;
        self.module()
    }

    fn use_list_order(&mut self) -> PResult<()> {
        self.bump();
        let ty = self.parse_type()?;
        self.parse_value(ty)?;
        self.expect(Tok::Comma, "','")?;
        if self.tok.kind != Tok::LBrace {
            return self.expected("'{'");
        }
        self.skip_group()
    }

    fn finish_function(&mut self) -> PResult<()> {
        let Some(state) = self.f.take() else {
            return Ok(());
        };
        let (ops_start, md_ops_start) = (state.ops_start, state.md_ops_start);
        let mut resolved = Vec::with_capacity(state.forward.len());
        for fwd in &state.forward {
            let found = match &fwd.key {
                NameKey::Numbered(n) => state
                    .numbered
                    .get(*n as usize)
                    .copied()
                    .filter(|&v| v != NUMBER_GAP),
                NameKey::Named(name) => state.named.get(&**name).copied(),
            };
            match found {
                Some(v) => {
                    mark_named(&mut self.m.insts, v);
                    resolved.push(PackedValue::pack(v));
                }
                None => {
                    let name = match &fwd.key {
                        NameKey::Numbered(n) => format!("%{n}"),
                        NameKey::Named(name) => format!("%{}", String::from_utf8_lossy(name)),
                    };
                    return self.error_at(fwd.offset, format!("use of undefined value '{name}'"));
                }
            }
        }
        self.spare = Some(state);
        if resolved.is_empty() {
            return Ok(());
        }
        let patch = |v: &mut PackedValue| {
            if let Some(i) = v.forward_index() {
                if let Some(&r) = resolved.get(i as usize) {
                    *v = r;
                }
            }
        };
        for op in self.m.ops.get_mut(ops_start..).unwrap_or(&mut []) {
            patch(&mut op.value);
        }
        for op in self.m.md.ops.get_mut(md_ops_start..).unwrap_or(&mut []) {
            if let MdOp::Value(op) = op {
                patch(&mut op.value);
            }
        }
        Ok(())
    }

    fn define_local(&mut self, t: Token, value: Value) -> PResult<()> {
        let numbered = matches!(t.kind, Tok::LocalId | Tok::LabelId);
        if numbered {
            // The common case, without building a key.
            let n = token_number(self.text(t));
            if let Some(state) = self.f.as_mut() {
                if n == state.numbered.len() {
                    state.numbered.push(value);
                    return Ok(());
                }
            }
        }
        let raw = self.text(t);
        // Plain `%name` and `name:` (the common named cases) need no decoding.
        let key = match (t.kind, raw) {
            (Tok::LocalVar, [b'%', first, ..]) if *first != b'"' => {
                NameKey::Named(Cow::Borrowed(&raw[1..]))
            }
            (Tok::LabelStr, [first, .., b':']) if !matches!(first, b'"' | b'%' | b'@' | b'$') => {
                NameKey::Named(Cow::Borrowed(&raw[..raw.len() - 1]))
            }
            _ => name_key(raw, numbered),
        };
        let Some(state) = self.f.as_mut() else {
            return self.error_at(t.start, "local value outside a function".into());
        };
        match key {
            NameKey::Numbered(n) => {
                if n as usize > state.numbered.len() {
                    if n >= MAX_NUMBER_GAP_TO {
                        return self.error_at(
                            t.start,
                            format!(
                                "value number {n} is too large: fmtstr reads local numbers below \
                                 {MAX_NUMBER_GAP_TO}"
                            ),
                        );
                    }
                    // A gap in the numbering: the skipped numbers name nothing.
                    state.numbered.resize(n as usize, NUMBER_GAP);
                }
                if n as usize != state.numbered.len() {
                    let expected = state.numbered.len();
                    let what = if t.kind == Tok::LabelId {
                        "label"
                    } else {
                        "instruction"
                    };
                    return self.error_at(
                        t.start,
                        format!("{what} expected to be numbered '%{expected}' or greater"),
                    );
                }
                state.numbered.push(value);
            }
            NameKey::Named(name) => {
                if state.named.insert(name, value).is_some() {
                    return self.error_at(
                        t.start,
                        format!(
                            "multiple definition of local value named '{}'",
                            String::from_utf8_lossy(self.text(t))
                        ),
                    );
                }
            }
        }
        Ok(())
    }

    fn define_implicit(&mut self, value: Value) {
        if let Some(state) = self.f.as_mut() {
            state.numbered.push(value);
        }
    }

    fn local_ref(&mut self, t: Token) -> PResult<PackedValue> {
        let numbered = t.kind == Tok::LocalId;
        let raw = self.text(t);
        let Some(state) = self.f.as_mut() else {
            return self.error_at(t.start, "local value used outside a function".into());
        };
        self.m.sites.push(t.start);
        if numbered {
            let n = token_number(raw);
            if let Some(&v) = state.numbered.get(n) {
                if v != NUMBER_GAP {
                    mark_named(&mut self.m.insts, v);
                    return Ok(PackedValue::pack(v));
                }
            }
            if let Ok(n) = u32::try_from(n) {
                // Not defined yet (a later block): a forward reference, keyed by the number.
                let index = state.forward.len() as u32;
                state.forward.push(Forward {
                    key: NameKey::Numbered(n),
                    offset: t.start,
                });
                return Ok(PackedValue::forward(index));
            }
        }
        // Plain `%name` (the common named case): the name is the text after the sigil.
        let key = match raw {
            [b'%', first, ..] if !numbered && *first != b'"' => {
                NameKey::Named(Cow::Borrowed(&raw[1..]))
            }
            _ => name_key(raw, numbered),
        };
        let found = match &key {
            NameKey::Numbered(n) => state
                .numbered
                .get(*n as usize)
                .filter(|&&v| v != NUMBER_GAP),
            NameKey::Named(name) => state.named.get(&**name),
        };
        if let Some(&v) = found {
            mark_named(&mut self.m.insts, v);
            return Ok(PackedValue::pack(v));
        }
        let index = state.forward.len() as u32;
        state.forward.push(Forward {
            key,
            offset: t.start,
        });
        Ok(PackedValue::forward(index))
    }

    // ---- instructions ---------------------------------------------------------------------

    fn typed_value(&mut self) -> PResult<PackedOp> {
        let ty = self.parse_type()?;
        let value = self.parse_value(ty)?;
        Ok(PackedOp { ty, value })
    }

    fn push_typed(&mut self) -> PResult<PackedOp> {
        let op = self.typed_value()?;
        self.scratch.push(op);
        Ok(op)
    }

    #[inline]
    fn push_value(&mut self, ty: TypeId) -> PResult<PackedOp> {
        let value = self.parse_value(ty)?;
        let op = PackedOp { ty, value };
        self.scratch.push(op);
        Ok(op)
    }

    /// Moves `scratch[mark..]` into the operand arena; returns (start, len).
    fn flush(&mut self, mark: usize) -> PResult<(u32, u32)> {
        self.check_capacity(self.m.ops.len() + self.scratch.len(), "operands")?;
        let start = self.m.ops.len() as u32;
        let len = self.scratch.len().saturating_sub(mark) as u32;
        let ops = self.scratch.get(mark..).unwrap_or(&[]);
        if let [op] = ops {
            self.m.ops.push(*op);
        } else {
            self.m.ops.extend_from_slice(ops);
        }
        self.scratch.truncate(mark);
        Ok((start, len))
    }

    fn comma_then(&mut self, w: &[u8]) -> bool {
        if self.tok.kind != Tok::Comma {
            return false;
        }
        let next = self.peek();
        next.kind == Tok::Ident && self.text(next) == w
    }

    fn align_suffix(&mut self, inst: &mut InstData) -> PResult<()> {
        if self.comma_then(b"align") {
            self.bump();
            self.bump();
            let start = self.tok.start;
            let n = self.expect_u64("an alignment")?;
            if !n.is_power_of_two() || n > 1 << 32 {
                return self.error_at(start, "alignment is not a power of two".into());
            }
            inst.aux = n.trailing_zeros() as u8 + 1;
        }
        Ok(())
    }

    /// Skips fast-math flags. Most instructions have none and go on with a type (`i32`,
    /// `ptr`, `<`, ...): a first byte no flag starts with settles that without compares.
    #[inline]
    fn skip_fast_math(&mut self) {
        if self.tok.kind == Tok::Ident
            && matches!(
                self.text(self.tok).first(),
                Some(b'f' | b'n' | b'a' | b'c' | b'r')
            )
        {
            self.skip_words(FAST_MATH);
        }
    }

    /// Skips a cast's flags ([`CAST_FLAGS`]); as for fast-math flags, a first byte no flag
    /// starts with settles the usual case (a type) without compares.
    #[inline]
    fn skip_cast_flags(&mut self) {
        if self.tok.kind == Tok::Ident
            && matches!(
                self.text(self.tok).first(),
                Some(b'f' | b'n' | b'a' | b'c' | b'r')
            )
        {
            self.skip_words(CAST_FLAGS);
        }
    }

    fn skip_words(&mut self, words: &[&[u8]]) {
        while self.tok.kind == Tok::Ident && words.contains(&self.text(self.tok)) {
            self.bump();
        }
    }

    fn vector_like(&mut self, ty: TypeId, elem: TypeId) -> TypeId {
        match self.m.types.get(ty) {
            Type::Vector { len, scalable, .. } => self.m.types.intern(TypeData::Vector {
                len,
                elem,
                scalable,
            }),
            _ => elem,
        }
    }

    fn instruction(&mut self, block: BlockId) -> PResult<InstId> {
        let start = self.tok.start;
        self.check_capacity(self.m.insts.len(), "instructions")?;
        let id = InstId(self.m.insts.len() as u32);
        let def = if matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
            let t = self.bump();
            self.expect(Tok::Equal, "'='")?;
            Some(t)
        } else {
            None
        };
        let op_tok = self.tok;
        let opcode = match self.tok.kind {
            Tok::Ident => Opcode::from_keyword(self.text(op_tok)),
            _ => None,
        };
        let Some(opcode) = opcode else {
            return self.expected("an instruction opcode");
        };
        let mut inst = InstData {
            opcode,
            flags: 0,
            aux: 0,
            md_len: 0,
            ty: TypeId::VOID,
            ops: 0,
            ops_len: 0,
            start,
            end: 0,
            extra: NONE,
            block: block.0,
            md: self.m.md_attach.len() as u32,
        };
        let mark = self.scratch.len();
        self.inst_body(&mut inst)?;
        let (ops, len) = self.flush(mark)?;
        inst.ops = ops;
        inst.ops_len = len;
        // Metadata attachments: `, !kind !node`.
        while self.tok.kind == Tok::Comma && self.peek().kind == Tok::MetadataVar {
            self.bump();
            let kind_tok = self.bump();
            let kind = self
                .m
                .md
                .kind_id(self.text(kind_tok).get(1..).unwrap_or(&[]));
            let node = self.md_ref()?;
            if inst.md_len == u8::MAX {
                return self.error_at(kind_tok.start, "too many metadata attachments".into());
            }
            self.m.md_attach.push((kind, node));
            inst.md_len += 1;
        }
        inst.end = self.rest_of_line(self.prev_end);
        if let Some(d) = def {
            if inst.ty == TypeId::VOID {
                return self.error_at(
                    d.start,
                    "instructions returning void cannot have a name".into(),
                );
            }
            inst.flags |= HAS_DEF;
            self.define_local(d, Value::Inst(id))?;
        } else if inst.ty != TypeId::VOID {
            if self.sparse.is_some() {
                return self.whole_parse_needed("an implicitly numbered value");
            }
            inst.flags |= IMPLICIT_NUM;
            self.define_implicit(Value::Inst(id));
            if let Some(state) = self.f.as_mut() {
                state.implicit_numbers = true;
            }
        }
        if self.found_by_filter(start, self.prev_end, def)? {
            inst.flags |= USES_PARSED;
        }
        self.m.insts.push(inst);
        Ok(id)
    }

    fn inst_body(&mut self, inst: &mut InstData) -> PResult<()> {
        use Opcode::*;
        let opcode = inst.opcode;
        if matches!(opcode, Call | Invoke | CallBr) {
            return self.call(inst);
        }
        self.bump();
        match opcode {
            Ret => {
                // `ret void ()* null` returns a (typed) pointer to a function type.
                if self.is_word(b"void") && self.peek().kind != Tok::LParen {
                    self.bump();
                } else {
                    self.push_typed()?;
                }
            }
            Br => {
                if self.is_word(b"label") {
                    self.bump();
                    self.push_value(TypeId::LABEL)?;
                } else {
                    self.push_typed()?;
                    for _ in 0..2 {
                        self.expect(Tok::Comma, "','")?;
                        self.expect_word("label")?;
                        self.push_value(TypeId::LABEL)?;
                    }
                }
            }
            Switch => {
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
                self.expect(Tok::LSquare, "'['")?;
                while self.tok.kind != Tok::RSquare {
                    self.push_typed()?;
                    self.expect(Tok::Comma, "','")?;
                    self.expect_word("label")?;
                    self.push_value(TypeId::LABEL)?;
                }
                self.bump();
            }
            IndirectBr => {
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.expect(Tok::LSquare, "'['")?;
                if self.tok.kind != Tok::RSquare {
                    loop {
                        self.expect_word("label")?;
                        self.push_value(TypeId::LABEL)?;
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "']'")?;
            }
            Unreachable => {}
            Resume => {
                self.push_typed()?;
            }
            FNeg => {
                self.skip_fast_math();
                inst.ty = self.push_typed()?.ty;
            }
            Add | Sub | Mul | Shl | UDiv | SDiv | LShr | AShr | URem | SRem | And | Or | Xor
            | FAdd | FSub | FMul | FDiv | FRem => {
                self.skip_words(&[b"nuw", b"nsw", b"exact", b"disjoint"]);
                self.skip_fast_math();
                let a = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_value(a.ty)?;
                inst.ty = a.ty;
            }
            ICmp | FCmp => {
                self.skip_words(&[b"samesign"]);
                self.skip_fast_math();
                let p = self.expect(Tok::Ident, "a comparison predicate")?;
                match Predicate::parse(self.text(p), opcode == FCmp) {
                    Some(pred) => inst.aux = pred.0,
                    None => {
                        return self.error_at(p.start, "expected a comparison predicate".into())
                    }
                }
                let a = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_value(a.ty)?;
                inst.ty = self.vector_like(a.ty, TypeId::I1);
            }
            Trunc | ZExt | SExt | FPToUI | FPToSI | UIToFP | SIToFP | FPTrunc | FPExt
            | PtrToInt | PtrToAddr | IntToPtr | BitCast | AddrSpaceCast => {
                // `trunc nuw nsw`, `zext nneg`, `uitofp nneg`; fast-math flags on `fptrunc` and
                // `fpext` (LLVM 20 on), in any order with the others (LLVM's own tests write
                // `uitofp nsz nneg`). The flags stay in the instruction's text.
                self.skip_cast_flags();
                self.push_typed()?;
                self.expect_word("to")?;
                inst.ty = self.parse_type()?;
            }
            Select => {
                self.skip_fast_math();
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                let a = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                inst.ty = a.ty;
            }
            VAArg => {
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                inst.ty = self.parse_type()?;
            }
            ExtractElement => {
                let v = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                inst.ty = self.m.types.element(v.ty).unwrap_or(TypeId::VOID);
            }
            InsertElement => {
                let v = self.push_typed()?;
                for _ in 0..2 {
                    self.expect(Tok::Comma, "','")?;
                    self.push_typed()?;
                }
                inst.ty = v.ty;
            }
            ShuffleVector => {
                let v = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                let mask = self.push_typed()?;
                let elem = self.m.types.element(v.ty).unwrap_or(TypeId::VOID);
                inst.ty = self.vector_like(mask.ty, elem);
            }
            ExtractValue | InsertValue => {
                let agg = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                if opcode == InsertValue {
                    self.push_typed()?;
                    self.expect(Tok::Comma, "','")?;
                }
                let list_start = self.m.index_lists.len();
                self.m.index_lists.push(0);
                let mut ty = agg.ty;
                loop {
                    let index = self.expect_u32("an index")?;
                    self.m.index_lists.push(index);
                    ty = self
                        .m
                        .types
                        .member(ty, u64::from(index))
                        .unwrap_or(TypeId::VOID);
                    if !(self.tok.kind == Tok::Comma && self.peek().kind == Tok::Int) {
                        break;
                    }
                    self.bump();
                }
                let count = (self.m.index_lists.len() - list_start - 1) as u32;
                self.m.index_lists[list_start] = count;
                inst.extra = list_start as u32;
                inst.ty = if opcode == ExtractValue { ty } else { agg.ty };
            }
            Phi => {
                self.skip_fast_math();
                let ty = self.parse_type()?;
                inst.ty = ty;
                // A phi may have no incoming values at all (in an unreachable block).
                while self.tok.kind == Tok::LSquare {
                    self.bump();
                    self.push_value(ty)?;
                    self.expect(Tok::Comma, "','")?;
                    self.push_value(TypeId::LABEL)?;
                    self.expect(Tok::RSquare, "']'")?;
                    if !(self.tok.kind == Tok::Comma && self.peek().kind == Tok::LSquare) {
                        break;
                    }
                    self.bump();
                }
            }
            Freeze => {
                inst.ty = self.push_typed()?.ty;
            }
            Alloca => {
                self.skip_words(&[b"inalloca", b"swifterror"]);
                let ty = self.parse_type()?;
                inst.extra = ty.0;
                let mut addrspace = self.m.layout.alloca_addrspace();
                if self.tok.kind == Tok::Comma
                    && !matches!(self.peek().kind, Tok::MetadataVar)
                    && !self.comma_then(b"align")
                    && !self.comma_then(b"addrspace")
                {
                    self.bump();
                    self.push_typed()?;
                }
                self.align_suffix(inst)?;
                if self.comma_then(b"addrspace") {
                    self.bump();
                    addrspace = self.addrspace()?;
                }
                inst.ty = self.m.types.ptr(addrspace);
            }
            Load => {
                let atomic = self.eat_word(b"atomic");
                self.eat_word(b"volatile");
                inst.ty = self.parse_type()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                if atomic {
                    self.atomic_ordering(1)?;
                }
                self.align_suffix(inst)?;
            }
            Store => {
                let atomic = self.eat_word(b"atomic");
                self.eat_word(b"volatile");
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                if atomic {
                    self.atomic_ordering(1)?;
                }
                self.align_suffix(inst)?;
            }
            Fence => {
                self.atomic_ordering(1)?;
            }
            CmpXchg => {
                self.eat_word(b"weak");
                self.eat_word(b"volatile");
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                let cmp = self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                self.push_typed()?;
                self.atomic_ordering(2)?;
                self.align_suffix(inst)?;
                inst.ty = self.m.types.struct_literal(&[cmp.ty, TypeId::I1], false);
            }
            AtomicRmw => {
                self.eat_word(b"volatile");
                let op = self.expect(Tok::Ident, "an atomicrmw operation")?;
                inst.aux = RMW_OPS
                    .iter()
                    .position(|w| w.as_bytes() == self.text(op))
                    .map_or(u8::MAX, |i| i as u8);
                self.push_typed()?;
                self.expect(Tok::Comma, "','")?;
                inst.ty = self.push_typed()?.ty;
                self.atomic_ordering(1)?;
                let op = inst.aux;
                self.align_suffix(inst)?;
                inst.aux = op;
            }
            GetElementPtr => {
                self.skip_words(&[b"inbounds", b"nuw", b"nusw"]);
                let source = self.parse_type()?;
                inst.extra = source.0;
                self.expect(Tok::Comma, "','")?;
                let base = self.push_typed()?;
                let mut ty = base.ty;
                while self.tok.kind == Tok::Comma && self.peek().kind != Tok::MetadataVar {
                    self.bump();
                    let index = self.push_typed()?;
                    if let Type::Vector { len, scalable, .. } = self.m.types.get(index.ty) {
                        if self.m.types.ptr_addrspace(ty).is_some() {
                            ty = self.m.types.intern(TypeData::Vector {
                                len,
                                elem: ty,
                                scalable,
                            });
                        }
                    }
                }
                inst.ty = ty;
            }
            LandingPad => {
                // `landingpad T [cleanup] (catch|filter <ty> <value>)*`: LLVM writes each
                // clause on a line of its own, so the clauses are parsed, not skipped to the
                // end of the line.
                inst.ty = self.parse_type()?;
                self.eat_word(b"cleanup");
                while matches!(self.word(), b"catch" | b"filter") {
                    self.bump();
                    self.push_typed()?;
                }
            }
            CleanupPad | CatchPad | CatchSwitch | CleanupRet | CatchRet => {
                // Exception handling: no pass reads it. Keep the text, but still record the
                // values it names so that renumbering and removal stay correct.
                if matches!(opcode, CleanupPad | CatchPad | CatchSwitch) {
                    inst.ty = TypeId::TOKEN;
                }
                self.opaque_operands()?;
            }
            Call | Invoke | CallBr => {}
        }
        Ok(())
    }

    /// The rest of an exception-handling instruction: the local and global names it holds
    /// become operands.
    fn opaque_operands(&mut self) -> PResult<()> {
        let mut depth: u32 = 0;
        loop {
            // The end of the input inside brackets: nothing more can close them.
            if self.tok.kind == Tok::Eof && depth > 0 {
                return self.expected("a closing bracket");
            }
            if depth == 0
                && (self.newline_before_tok()
                    || self.tok.kind == Tok::Eof
                    || self.tok.kind == Tok::Comma && self.peek().kind == Tok::MetadataVar)
            {
                return Ok(());
            }
            let t = self.tok;
            match t.kind {
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => {
                    if depth == 0 {
                        return self.expected("a matching opening bracket");
                    }
                    depth -= 1;
                }
                Tok::LocalVar | Tok::LocalId => {
                    let is_type = match name_key(self.text(t), t.kind == Tok::LocalId) {
                        NameKey::Named(name) => self
                            .m
                            .types
                            .named(std::str::from_utf8(&name).unwrap_or(""))
                            .is_some(),
                        NameKey::Numbered(_) => false,
                    };
                    if !is_type {
                        self.bump();
                        let value = self.local_ref(t)?;
                        self.scratch.push(PackedOp {
                            ty: TypeId::LABEL,
                            value,
                        });
                        continue;
                    }
                }
                Tok::GlobalVar | Tok::GlobalId => {
                    // A use like any other (a catchpad's type info): a global it names must
                    // not be removed as unused.
                    let g = self.global_ref(t)?;
                    self.scratch.push(PackedOp {
                        ty: TypeId::PTR,
                        value: PackedValue::pack(Value::Global(g)),
                    });
                }
                Tok::Error => return self.expected("a token"),
                _ => {}
            }
            self.bump();
        }
    }

    /// `[syncscope("x")] ordering...`.
    fn atomic_ordering(&mut self, count: usize) -> PResult<()> {
        if self.eat_word(b"syncscope") {
            self.expect(Tok::LParen, "'('")?;
            self.expect(Tok::Str, "a sync scope")?;
            self.expect(Tok::RParen, "')'")?;
        }
        for _ in 0..count {
            if !matches!(
                self.word(),
                b"unordered" | b"monotonic" | b"acquire" | b"release" | b"acq_rel" | b"seq_cst"
            ) {
                return self.expected("an atomic ordering");
            }
            self.bump();
        }
        Ok(())
    }

    /// A calling convention, the current token being its word: `fastcc`, `cc 10`, or one with a
    /// parameter in parentheses (LLVM 22's `riscv_vls_cc(128)`). Returns its text, parameter
    /// included.
    fn calling_conv(&mut self) -> PResult<Text> {
        let t = self.bump();
        let mut cconv = text(t);
        if self.text(t) == b"cc" {
            let n = self.expect(Tok::Int, "a calling convention number")?;
            cconv.end = n.end;
        } else if self.tok.kind == Tok::LParen {
            // Nothing else can follow a convention's word with `(`: a return type or a return
            // attribute comes first.
            self.bump();
            self.expect(Tok::Int, "a calling convention parameter")?;
            let close = self.expect(Tok::RParen, "')'")?;
            cconv.end = close.end;
        }
        Ok(cconv)
    }

    fn call(&mut self, inst: &mut InstData) -> PResult<()> {
        let first = self.bump();
        let mut tail = NO_TEXT;
        if inst.opcode == Opcode::Call && self.text(first) != b"call" {
            tail = text(first);
            self.expect_word("call")?;
        }
        self.skip_fast_math();
        let mut cconv = NO_TEXT;
        if is_cconv(self.word()) {
            cconv = self.calling_conv()?;
        }
        let ret_attrs_start = self.m.attrs.len() as u32;
        while !self.is_type_start() && !self.is_word(b"addrspace") {
            if !self.parse_one_attr()? {
                return self.expected("a type");
            }
        }
        let ret_attrs = (ret_attrs_start, self.m.attrs.len() as u32 - ret_attrs_start);
        let mut callee_ty = TypeId::PTR;
        if self.is_word(b"addrspace") {
            let n = self.addrspace()?;
            callee_ty = self.m.types.ptr(n);
        }
        let ty = self.parse_type()?;
        self.push_value(callee_ty)?;
        self.expect(Tok::LParen, "'('")?;
        self.call_attrs.clear();
        self.call_types.clear();
        if self.tok.kind != Tok::RParen {
            loop {
                if self.eat(Tok::DotDotDot) {
                    break;
                }
                let aty = self.parse_type()?;
                let attrs = if aty == TypeId::METADATA {
                    if matches!(self.tok.kind, Tok::LocalVar | Tok::LocalId) {
                        // `metadata %T* %x`: a named type, then the value.
                        self.metadata_typed_local()?;
                    } else {
                        self.push_value(aty)?;
                    }
                    (self.m.attrs.len() as u32, 0)
                } else {
                    let attrs = self.parse_attrs()?;
                    self.push_value(aty)?;
                    attrs
                };
                self.call_attrs.push(attrs);
                self.call_types.push(aty);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        // Function attributes: group ids, strings and keywords up to the next instruction
        // (an opcode), `to` of an invoke, or anything else; LLVM writes them on the call's
        // line, hand-written modules also on the next (`#4` alone on a line).
        let attrs_start = self.tok.start;
        let mut fn_attrs = NO_TEXT;
        loop {
            match self.tok.kind {
                Tok::AttrGroupId => {
                    self.bump();
                }
                Tok::Str => {
                    self.bump();
                    if self.eat(Tok::Equal) {
                        self.expect(Tok::Str, "a string")?;
                    }
                }
                Tok::Ident if self.is_fn_attr_word() => {
                    self.bump();
                    if self.tok.kind == Tok::LParen {
                        self.skip_attr_parens()?;
                    }
                }
                _ => break,
            }
            fn_attrs = Text {
                start: attrs_start,
                end: self.prev_end,
            };
        }
        let mut bundles = NO_TEXT;
        if self.tok.kind == Tok::LSquare {
            let start = self.tok.start;
            self.bundles()?;
            bundles = Text {
                start,
                end: self.prev_end,
            };
        }
        let fn_ty = match self.m.types.function_parts(ty) {
            Some(_) => ty,
            None => self.m.types.function(ty, &self.call_types, false),
        };
        inst.ty = self
            .m
            .types
            .function_parts(fn_ty)
            .map_or(ty, |(ret, _, _)| ret);
        match inst.opcode {
            Opcode::Invoke => {
                self.expect_word("to")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
                self.expect_word("unwind")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
            }
            Opcode::CallBr => {
                self.expect_word("to")?;
                self.expect_word("label")?;
                self.push_value(TypeId::LABEL)?;
                self.expect(Tok::LSquare, "'['")?;
                if self.tok.kind != Tok::RSquare {
                    loop {
                        self.expect_word("label")?;
                        self.push_value(TypeId::LABEL)?;
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RSquare, "']'")?;
            }
            _ => {}
        }
        let arg_attrs = self.m.attr_sets.len() as u32;
        self.m.attr_sets.extend_from_slice(&self.call_attrs);
        let nargs = self.call_types.len() as u32;
        self.check_capacity(self.m.calls.len(), "calls")?;
        inst.extra = self.m.calls.len() as u32;
        self.m.calls.push(CallData {
            fn_ty,
            arg_attrs,
            ret_attrs,
            nargs,
            cconv,
            fn_attrs,
            bundles,
            tail,
        });
        Ok(())
    }

    /// Whether the current word is a function attribute after a call's arguments: not the
    /// opcode of the next instruction, nor `to` of an invoke.
    fn is_fn_attr_word(&self) -> bool {
        let w = self.word();
        w != b"to" && w != b"uselistorder" && Opcode::from_keyword(w).is_none()
    }

    /// A metadata call argument that starts with a named type (`metadata %struct.A* %x`).
    #[cold]
    fn metadata_typed_local(&mut self) -> PResult<()> {
        let id = self.md_value()?;
        self.scratch.push(PackedOp {
            ty: TypeId::METADATA,
            value: PackedValue::pack(Value::Metadata(id)),
        });
        Ok(())
    }

    /// `[ "tag"(ty val, ...), ... ]`: values inside are operands of nobody, but locals in
    /// them must resolve and be renamed with the rest.
    fn bundles(&mut self) -> PResult<()> {
        self.expect(Tok::LSquare, "'['")?;
        if self.tok.kind != Tok::RSquare {
            loop {
                self.expect(Tok::Str, "an operand bundle tag")?;
                self.expect(Tok::LParen, "'('")?;
                if self.tok.kind != Tok::RParen {
                    loop {
                        let mark = self.scratch.len();
                        self.push_typed()?;
                        self.scratch.truncate(mark);
                        if !self.eat(Tok::Comma) {
                            break;
                        }
                    }
                }
                self.expect(Tok::RParen, "')'")?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RSquare, "']'")?;
        Ok(())
    }

    fn debug_record(&mut self) -> PResult<()> {
        self.bump();
        self.expect(Tok::LParen, "'('")?;
        if self.tok.kind != Tok::RParen {
            loop {
                if self.is_type_start() {
                    let mark = self.scratch.len();
                    self.push_typed()?;
                    self.scratch.truncate(mark);
                } else {
                    self.md_ref()?;
                }
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RParen, "')'")?;
        Ok(())
    }

    // ---- values and constants -------------------------------------------------------------

    fn new_const(&mut self, kind: ConstKind, start: u32) -> PResult<PackedValue> {
        self.check_capacity(self.m.consts.len(), "constants")?;
        let id = ConstId(self.m.consts.len() as u32);
        self.m.consts.push(ConstData {
            kind,
            start,
            end: self.prev_end,
        });
        Ok(PackedValue::pack(Value::Const(id)))
    }

    fn int_const(&mut self, t: Token) -> PResult<PackedValue> {
        let text = self.text(t);
        let (negative, digits) = match text.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, text),
        };
        if !digits.is_empty() && digits.len() <= 18 && digits.iter().all(u8::is_ascii_digit) {
            let magnitude = digits
                .iter()
                .fold(0i64, |n, &d| n * 10 + i64::from(d - b'0'));
            let v = if negative { -magnitude } else { magnitude };
            return self.int_value_const(v, t.start);
        }
        let Some(v) = const_data::parse_int(self.text(t)) else {
            return self.new_const(ConstKind::BigInt, t.start);
        };
        let Ok(v) = i64::try_from(v) else {
            return self.new_const(ConstKind::BigInt, t.start);
        };
        self.int_value_const(v, t.start)
    }

    fn int_value_const(&mut self, v: i64, start: u32) -> PResult<PackedValue> {
        if (SMALL_MIN..=SMALL_MAX).contains(&v) {
            let slot = (v - SMALL_MIN) as usize;
            if self.small_ints[slot] == NONE {
                let id = self.m.consts.len() as u32;
                self.m.consts.push(ConstData {
                    kind: ConstKind::Int(v),
                    start: NONE,
                    end: NONE,
                });
                self.small_ints[slot] = id;
            }
            return Ok(PackedValue::pack(Value::Const(ConstId(
                self.small_ints[slot],
            ))));
        }
        self.new_const(ConstKind::Int(v), start)
    }

    pub(crate) fn parse_value(&mut self, ty: TypeId) -> PResult<PackedValue> {
        // The common cases, without the nesting bookkeeping.
        match self.tok.kind {
            Tok::LocalVar | Tok::LocalId => {
                let t = self.bump();
                return self.local_ref(t);
            }
            Tok::Int => {
                let t = self.bump();
                return self.int_const(t);
            }
            _ => {}
        }
        if ty == TypeId::METADATA {
            let id = self.md_value()?;
            return Ok(PackedValue::pack(Value::Metadata(id)));
        }
        self.enter()?;
        let t = self.tok;
        let value = match t.kind {
            Tok::LocalVar | Tok::LocalId => {
                self.bump();
                self.local_ref(t)?
            }
            Tok::GlobalVar | Tok::GlobalId => {
                self.bump();
                PackedValue::pack(Value::Global(self.global_ref(t)?))
            }
            Tok::Int => {
                self.bump();
                self.int_const(t)?
            }
            Tok::Float => {
                self.bump();
                self.new_const(ConstKind::FloatText, t.start)?
            }
            Tok::CStr => {
                self.bump();
                self.new_const(ConstKind::CString, t.start)?
            }
            Tok::LBrace => {
                let (ops, len) = self.const_list(Tok::LBrace, Tok::RBrace, "'}'")?;
                self.new_const(
                    ConstKind::Struct {
                        ops,
                        len,
                        packed: false,
                    },
                    t.start,
                )?
            }
            Tok::Less => {
                if self.peek().kind == Tok::LBrace {
                    self.bump();
                    let (ops, len) = self.const_list(Tok::LBrace, Tok::RBrace, "'}'")?;
                    self.expect(Tok::Greater, "'>'")?;
                    self.new_const(
                        ConstKind::Struct {
                            ops,
                            len,
                            packed: true,
                        },
                        t.start,
                    )?
                } else {
                    let (ops, len) = self.const_list(Tok::Less, Tok::Greater, "'>'")?;
                    self.new_const(ConstKind::Vector { ops, len }, t.start)?
                }
            }
            Tok::LSquare => {
                let (ops, len) = self.const_list(Tok::LSquare, Tok::RSquare, "']'")?;
                self.new_const(ConstKind::Array { ops, len }, t.start)?
            }
            Tok::Ident => self.keyword_value(t)?,
            _ => return self.expected("a value"),
        };
        self.leave();
        Ok(value)
    }

    fn const_list(&mut self, open: Tok, close: Tok, what: &str) -> PResult<(u32, u32)> {
        self.expect(open, "a bracket")?;
        let mark = self.scratch.len();
        if self.tok.kind != close {
            loop {
                self.push_typed()?;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(close, what)?;
        self.flush(mark)
    }

    fn keyword_value(&mut self, t: Token) -> PResult<PackedValue> {
        let w = self.text(t);
        let fixed = match w {
            b"true" => Some(const_data::C_TRUE),
            b"false" => Some(const_data::C_FALSE),
            b"null" => Some(const_data::C_NULL),
            b"undef" => Some(const_data::C_UNDEF),
            b"poison" => Some(const_data::C_POISON),
            b"zeroinitializer" => Some(const_data::C_ZERO),
            b"none" => Some(const_data::C_NONE),
            _ => None,
        };
        if let Some(id) = fixed {
            self.bump();
            return Ok(PackedValue::pack(Value::Const(id)));
        }
        if lexer::is_hex_int(w) {
            self.bump();
            return self.int_const(t);
        }
        self.bump();
        match w {
            b"getelementptr" => {
                let mut inbounds = false;
                loop {
                    match self.word() {
                        b"inbounds" => {
                            inbounds = true;
                            self.bump();
                        }
                        b"nuw" | b"nusw" => {
                            self.bump();
                        }
                        b"inrange" => {
                            self.bump();
                            if self.tok.kind != Tok::LParen {
                                return self.expected("'('");
                            }
                            self.skip_group()?;
                        }
                        _ => break,
                    }
                }
                self.expect(Tok::LParen, "'('")?;
                let source = self.parse_type()?;
                let mark = self.scratch.len();
                while self.eat(Tok::Comma) {
                    self.eat_word(b"inrange");
                    self.push_typed()?;
                }
                self.expect(Tok::RParen, "')'")?;
                let (ops, len) = self.flush(mark)?;
                self.new_const(
                    ConstKind::Expr {
                        opcode: Opcode::GetElementPtr,
                        ty: source,
                        ops,
                        len,
                        inbounds,
                    },
                    t.start,
                )
            }
            b"trunc" | b"zext" | b"sext" | b"fptrunc" | b"fpext" | b"fptoui" | b"fptosi"
            | b"uitofp" | b"sitofp" | b"ptrtoint" | b"ptrtoaddr" | b"inttoptr" | b"bitcast"
            | b"addrspacecast" => {
                let opcode = Opcode::from_keyword(w).unwrap_or(Opcode::BitCast);
                self.expect(Tok::LParen, "'('")?;
                let mark = self.scratch.len();
                self.push_typed()?;
                self.expect_word("to")?;
                let to = self.parse_type()?;
                self.expect(Tok::RParen, "')'")?;
                let (ops, len) = self.flush(mark)?;
                self.new_const(
                    ConstKind::Expr {
                        opcode,
                        ty: to,
                        ops,
                        len,
                        inbounds: false,
                    },
                    t.start,
                )
            }
            b"add" | b"sub" | b"mul" | b"shl" | b"xor" | b"and" | b"or" | b"lshr" | b"ashr"
            | b"icmp" | b"fcmp" | b"select" | b"extractelement" | b"insertelement"
            | b"shufflevector" => {
                let opcode = Opcode::from_keyword(w).unwrap_or(Opcode::Add);
                // Flags and predicates (`nuw`, `eq`) stay in the text.
                while self.tok.kind == Tok::Ident {
                    self.bump();
                }
                let (ops, len) = self.const_list(Tok::LParen, Tok::RParen, "')'")?;
                self.new_const(
                    ConstKind::Expr {
                        opcode,
                        ty: TypeId::VOID,
                        ops,
                        len,
                        inbounds: false,
                    },
                    t.start,
                )
            }
            b"splat" => {
                self.expect(Tok::LParen, "'('")?;
                let mark = self.scratch.len();
                self.push_typed()?;
                self.expect(Tok::RParen, "')'")?;
                let (ops, _) = self.flush(mark)?;
                self.new_const(ConstKind::Splat(ops), t.start)
            }
            b"blockaddress" | b"ptrauth" => {
                if self.tok.kind != Tok::LParen {
                    return self.expected("'('");
                }
                self.skip_group()?;
                self.new_const(ConstKind::Opaque, t.start)
            }
            b"dso_local_equivalent" | b"no_cfi" => {
                if !matches!(self.tok.kind, Tok::GlobalVar | Tok::GlobalId) {
                    return self.expected("a global");
                }
                let g = self.bump();
                self.global_ref(g)?;
                self.new_const(ConstKind::Opaque, t.start)
            }
            b"asm" => {
                self.skip_words(&[b"sideeffect", b"alignstack", b"inteldialect", b"unwind"]);
                self.expect(Tok::Str, "an assembly string")?;
                self.expect(Tok::Comma, "','")?;
                self.expect(Tok::Str, "a constraint string")?;
                self.new_const(ConstKind::Opaque, t.start)
            }
            _ => self.error_at(
                t.start,
                format!("expected a value, found '{}'", String::from_utf8_lossy(w)),
            ),
        }
    }

    // ---- metadata -------------------------------------------------------------------------

    fn new_md(&mut self, data: MdNodeData) -> PResult<MdId> {
        self.check_md_capacity()?;
        let id = MdId(self.m.md.nodes.len() as u32);
        self.m.md.nodes.push(data);
        Ok(id)
    }

    fn flush_md(&mut self, mark: usize) -> PResult<(u32, u32)> {
        self.check_capacity(
            self.m.md.ops.len() + self.md_scratch.len(),
            "metadata operands",
        )?;
        let start = self.m.md.ops.len() as u32;
        let len = self.md_scratch.len().saturating_sub(mark) as u32;
        self.m.md.ops.extend(self.md_scratch.drain(mark..));
        Ok((start, len))
    }

    /// Metadata where a value is expected (`metadata ...` arguments).
    fn md_value(&mut self) -> PResult<MdId> {
        if self.is_type_start() {
            let start = self.tok.start;
            let op = self.typed_value()?;
            let mark = self.md_scratch.len();
            self.md_scratch.push(MdOp::Value(op));
            let (ops, len) = self.flush_md(mark)?;
            return self.new_md(MdNodeData {
                kind: MdKindData::Value,
                distinct: false,
                ops,
                len,
                text: Text {
                    start,
                    end: self.prev_end,
                },
                name: NO_TEXT,
                number: NONE,
                unread: false,
            });
        }
        self.md_ref()
    }

    /// A metadata node reference or inline node: `!3`, `!{...}`, `!"..."`, `!DIx(...)`.
    fn md_ref(&mut self) -> PResult<MdId> {
        let t = self.tok;
        match t.kind {
            Tok::MetadataId => {
                self.bump();
                let Some(number) = parse_u32(self.text(t).get(1..).unwrap_or(&[])) else {
                    return self.error_at(t.start, "metadata number out of range".into());
                };
                self.check_md_capacity()?;
                Ok(self.m.md.numbered(number, t.start))
            }
            Tok::Exclaim | Tok::MetadataVar => self.md_node(false),
            Tok::Ident if self.is_word(b"distinct") => {
                self.bump();
                self.md_node(true)
            }
            _ => self.expected("metadata"),
        }
    }

    /// An inline node at `!{`, `!"`, or `!Name(`.
    fn md_node(&mut self, distinct: bool) -> PResult<MdId> {
        self.enter()?;
        let start = self.tok.start;
        let t = self.bump();
        let id = if t.kind == Tok::MetadataVar {
            let name = text(t);
            self.expect(Tok::LParen, "'('")?;
            let mark = self.md_scratch.len();
            let arg_list = self.text(t) == b"!DIArgList";
            if self.tok.kind != Tok::RParen {
                loop {
                    if arg_list {
                        let op = self.typed_value()?;
                        self.md_scratch.push(MdOp::Value(op));
                    } else {
                        let key = if self.tok.kind == Tok::LabelStr {
                            text(self.bump())
                        } else {
                            NO_TEXT
                        };
                        let value_start = self.tok.start;
                        self.field_value()?;
                        let value = if self.prev_end > value_start {
                            Text {
                                start: value_start,
                                end: self.prev_end,
                            }
                        } else {
                            Text {
                                start: value_start,
                                end: value_start,
                            }
                        };
                        self.md_scratch.push(MdOp::Field(key, value));
                    }
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RParen, "')'")?;
            let (ops, len) = self.flush_md(mark)?;
            self.new_md(MdNodeData {
                kind: MdKindData::Specialized,
                distinct,
                ops,
                len,
                text: Text {
                    start,
                    end: self.prev_end,
                },
                name,
                number: NONE,
                unread: false,
            })?
        } else if self.tok.kind == Tok::Str {
            let s = self.bump();
            self.new_md(MdNodeData {
                kind: MdKindData::String,
                distinct,
                ops: 0,
                len: 0,
                text: Text {
                    start,
                    end: self.prev_end,
                },
                name: text(s),
                number: NONE,
                unread: false,
            })?
        } else if self.tok.kind == Tok::LBrace {
            self.bump();
            let mark = self.md_scratch.len();
            if self.tok.kind != Tok::RBrace {
                loop {
                    if self.eat_word(b"null") {
                        self.md_scratch.push(MdOp::Null);
                    } else if matches!(
                        self.tok.kind,
                        Tok::MetadataId | Tok::Exclaim | Tok::MetadataVar
                    ) || self.is_word(b"distinct")
                    {
                        let node = self.md_ref()?;
                        self.md_scratch.push(MdOp::Node(node));
                    } else {
                        let op = self.typed_value()?;
                        self.md_scratch.push(MdOp::Value(op));
                    }
                    if !self.eat(Tok::Comma) {
                        break;
                    }
                }
            }
            self.expect(Tok::RBrace, "'}'")?;
            let (ops, len) = self.flush_md(mark)?;
            self.new_md(MdNodeData {
                kind: MdKindData::Tuple,
                distinct,
                ops,
                len,
                text: Text {
                    start,
                    end: self.prev_end,
                },
                name: NO_TEXT,
                number: NONE,
                unread: false,
            })?
        } else {
            return self.expected("'{' or a string after '!'");
        };
        self.leave();
        Ok(id)
    }

    /// The value of a specialized node field: tokens up to `,` or `)` at depth 0.
    fn field_value(&mut self) -> PResult<()> {
        let mut depth: u32 = 0;
        loop {
            match self.tok.kind {
                Tok::Comma | Tok::RParen if depth == 0 => return Ok(()),
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => depth = depth.saturating_sub(1),
                Tok::MetadataId => {
                    let t = self.tok;
                    if let Some(n) = parse_u32(self.text(t).get(1..).unwrap_or(&[])) {
                        self.check_md_capacity()?;
                        self.m.md.numbered(n, t.start);
                    }
                }
                Tok::GlobalVar | Tok::GlobalId => {
                    let t = self.tok;
                    self.global_ref(t)?;
                }
                Tok::Eof | Tok::Error => return self.expected("',' or ')'"),
                _ => {}
            }
            self.bump();
        }
    }

    fn md_def(&mut self) -> PResult<ItemKind> {
        if self.md_unread && self.md_def_unread() {
            return Ok(ItemKind::Md);
        }
        if self.md_line_scan {
            let mut refs = std::mem::take(&mut self.md_line_refs);
            let mut ops = std::mem::take(&mut self.md_line_ops);
            let read = self.md_def_from_bytes(&mut refs, &mut ops);
            self.md_line_refs = refs;
            self.md_line_ops = ops;
            if read {
                return Ok(ItemKind::Md);
            }
        }
        let t = self.bump();
        let Some(number) = parse_u32(self.text(t).get(1..).unwrap_or(&[])) else {
            return self.error_at(t.start, "metadata number out of range".into());
        };
        self.expect(Tok::Equal, "'='")?;
        let distinct = self.eat_word(b"distinct");
        if !matches!(self.tok.kind, Tok::Exclaim | Tok::MetadataVar) {
            return self.expected("a metadata node");
        }
        self.check_md_capacity()?;
        let slot = self.m.md.numbered(number, t.start);
        let node = self.md_node(distinct)?;
        let mut data = self.m.md.nodes[node.index()];
        if !self.m.md.is_placeholder(slot) {
            return self.error_at(t.start, format!("redefinition of metadata '!{number}'"));
        }
        data.number = number;
        data.text = Text {
            start: t.start,
            end: self.prev_end,
        };
        self.m.md.nodes[slot.index()] = data;
        // The inline record was the last node made; reuse its slot.
        if node.index() + 1 == self.m.md.nodes.len() && node != slot {
            self.m.md.nodes.pop();
        }
        Ok(ItemKind::Md)
    }

    /// The definition at the current `!N` token read by [`md_line::scan`], with the ids and
    /// operands the token parser would give it; false (nothing read) for a shape it leaves
    /// to the token parser, or a redefinition, which that reports.
    fn md_def_from_bytes(&mut self, refs: &mut Vec<(u32, u32)>, ops: &mut Vec<LineOp>) -> bool {
        let at = self.tok.start;
        let Some(line) = md_line::scan(self.src, at as usize, refs, ops) else {
            return false;
        };
        let md = &mut self.m.md;
        if md.nodes.len() + refs.len() + 1 >= crate::md_data::UNREAD_IDS as usize
            || md.ops.len() + ops.len() >= MAX_INDEX as usize
        {
            return false;
        }
        if let Some(&id) = md.by_number.get(&line.number) {
            if !md.is_placeholder(id) {
                return false;
            }
        }
        let slot = md.numbered(line.number, at);
        let ops_start = md.ops.len() as u32;
        let (kind, name) = match line.kind {
            LineKind::Specialized(name) => {
                for &(number, offset) in refs.iter() {
                    md.numbered(number, offset);
                }
                let fields = ops.iter().map(|op| match *op {
                    LineOp::Field(key, value) if key.start == key.end => {
                        MdOp::Field(NO_TEXT, value)
                    }
                    LineOp::Field(key, value) => MdOp::Field(key, value),
                    LineOp::Node(_) | LineOp::Null => MdOp::Null,
                });
                md.ops.extend(fields);
                (MdKindData::Specialized, name)
            }
            LineKind::Tuple => {
                for op in ops.iter() {
                    let op = match *op {
                        LineOp::Node(k) => {
                            let (number, offset) = refs[k as usize];
                            MdOp::Node(md.numbered(number, offset))
                        }
                        LineOp::Null | LineOp::Field(..) => MdOp::Null,
                    };
                    md.ops.push(op);
                }
                (MdKindData::Tuple, NO_TEXT)
            }
            LineKind::String(token) => (MdKindData::String, token),
        };
        let (ops, len) = match kind {
            MdKindData::String => (0, 0),
            _ => (ops_start, md.ops.len() as u32 - ops_start),
        };
        md.nodes[slot.index()] = MdNodeData {
            kind,
            distinct: line.distinct,
            ops,
            len,
            text: Text {
                start: at,
                end: line.end,
            },
            name,
            number: line.number,
            unread: false,
        };
        self.prev_end = line.end;
        self.seek(line.end as usize);
        true
    }

    /// The definition at the current `!N` token kept as its text, and those on the lines
    /// after it, while each is one LLVM writes alone on its line
    /// ([`MdNodeData::kept_as_text`], recorded by `keep_md_as_text`): its kind, name and
    /// text are known, its fields are read from the text when asked ([`MdNode::operands`]),
    /// and what it refers to is not checked. A run the tail thread found (`md_tail`) is
    /// taken whole. False, with nothing read, for anything else.
    ///
    /// A definition that goes on past its line makes the next line a top-level syntax
    /// error: the filtered parse then falls back to a whole one.
    fn md_def_unread(&mut self) -> bool {
        let src = self.src;
        let mut at = self.tok.start as usize;
        if let Some(end) = self.md_tail_run(at as u32) {
            self.prev_end = end;
            self.seek(end as usize);
            return true;
        }
        let mut end = None;
        // The lines after it too, while they are such definitions: one seek for the run.
        while let Some(data) = MdNodeData::kept_as_text(src, at) {
            if !keep_md_as_text(&mut self.m.md, src, at as u32, data.number) {
                break;
            }
            let line_end = data.text.end as usize;
            end = Some(line_end);
            let next = match memchr::memchr(b'\n', &src[line_end..]) {
                Some(n) => line_end + n + 1,
                None => break,
            };
            if src.get(next) != Some(&b'!') || !src.get(next + 1).is_some_and(u8::is_ascii_digit) {
                break;
            }
            at = next;
        }
        let Some(end) = end else {
            return false;
        };
        self.prev_end = end as u32;
        self.seek(end);
        true
    }

    /// The run of definitions at `at` the tail thread found (see `md_tail`), recorded as
    /// [`Parser::md_def_unread`] would record them: where the last one recorded ends.
    fn md_tail_run(&mut self, at: u32) -> Option<u32> {
        let src = self.src;
        let (lines, run_end) = self.md_tail.as_mut()?.run_at(at)?;
        for (k, &(line_at, number)) in lines.iter().enumerate() {
            if !keep_md_as_text(&mut self.m.md, src, line_at, number) {
                // Stopped short where the parser would stop (a redefinition).
                let &(last_at, _) = lines.get(k.checked_sub(1)?)?;
                return MdNodeData::kept_as_text(src, last_at as usize).map(|d| d.text.end);
            }
        }
        Some(run_end)
    }

    fn named_md(&mut self) -> PResult<ItemKind> {
        let t = self.bump();
        self.expect(Tok::Equal, "'='")?;
        self.expect(Tok::Exclaim, "'!'")?;
        self.expect(Tok::LBrace, "'{'")?;
        let mut nodes = Vec::new();
        if self.tok.kind != Tok::RBrace {
            loop {
                nodes.push(self.md_ref()?);
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
        }
        self.expect(Tok::RBrace, "'}'")?;
        let name = self.text(t).get(1..).unwrap_or(&[]);
        let item = self.m.items.len() as u32;
        self.m.md.named.push((name.into(), nodes, item));
        Ok(ItemKind::NamedMd)
    }
}

/// Records the definition of `!number` that `MdNodeData::kept_as_text` reads at `at`;
/// false (nothing recorded) for a redefinition, which the token parser reports, or when no
/// id is left. Unless a reference made a record for it already, it gets none: its id is
/// its place in `MdData::unread` (150,000 records were a third of a skeleton's memory).
fn keep_md_as_text(md: &mut MdData, src: &[u8], at: u32, number: u32) -> bool {
    match md.by_number.get(&number).copied() {
        Some(slot) if md.is_placeholder(slot) => match MdNodeData::kept_as_text(src, at as usize) {
            Some(data) => md.nodes[slot.index()] = data,
            None => return false,
        },
        Some(_) => return false,
        None => {
            let Some(id) = md.unread_id(md.unread.len()) else {
                return false;
            };
            md.unread.push(at);
            md.by_number.insert(number, id);
            md.next_number = md.next_number.max(number.saturating_add(1));
        }
    }
    true
}

/// The number of a `%N` or `N:` token (the lexer guarantees the digits).
#[inline]
fn token_number(text: &[u8]) -> usize {
    let digits = match text.first() {
        Some(b'%' | b'@') => &text[1..],
        _ => text.strip_suffix(b":").unwrap_or(text),
    };
    if digits.len() > 9 {
        return usize::MAX;
    }
    digits
        .iter()
        .fold(0usize, |n, &d| n * 10 + usize::from(d.wrapping_sub(b'0')))
}

fn text(t: Token) -> Text {
    Text {
        start: t.start,
        end: t.end,
    }
}

/// Notes that the body's text names `value`, when it is an instruction.
fn mark_named(insts: &mut [InstData], value: Value) {
    if let Value::Inst(i) = value {
        if let Some(d) = insts.get_mut(i.index()) {
            d.flags |= NAMED_IN_TEXT;
        }
    }
}

/// The end (past its newline) of a switch's case list as LLVM prints it, given the end of the
/// line that opens it with `[`: one `TYPE VALUE, label %DEST` per line, then `]` alone.
/// `None` for anything else (a list on one line, a bracket or a comment among the cases).
fn switch_end(src: &[u8], first_line_end: usize) -> Option<usize> {
    let first = src.get(..first_line_end)?;
    let opening = first.strip_suffix(b"\n").unwrap_or(first);
    if !opening
        .strip_suffix(b"\r")
        .unwrap_or(opening)
        .ends_with(b"[")
    {
        return None;
    }
    let mut pos = first_line_end;
    loop {
        let rest = src.get(pos..)?;
        let end = pos + memchr::memchr(b'\n', rest).map_or(rest.len(), |k| k + 1);
        let line = src[pos..end].trim_ascii();
        if line == b"]" {
            return Some(end);
        }
        if line.is_empty() || line.iter().any(|b| b"[]{}();\"".contains(b)) || end == pos {
            return None;
        }
        pos = end;
    }
}

/// The numbered label (`12:`) at `pos`, as the lexer would read it there.
fn numbered_label(src: &[u8], pos: usize) -> Option<Token> {
    let digits = src
        .get(pos..)?
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    (digits > 0 && src.get(pos + digits) == Some(&b':')).then(|| Token {
        kind: Tok::LabelId,
        start: pos as u32,
        end: (pos + digits + 1) as u32,
    })
}

/// The instruction on the line at `pos` if it can be kept as text (see
/// [`Parser::opaque_lines`]): its result's name token, its opcode, and the end of its line
/// (past the newline).
fn opaque_line(src: &[u8], pos: usize) -> Option<(Option<Token>, Opcode, usize)> {
    let rest = src.get(pos..)?;
    let end = pos + memchr::memchr(b'\n', rest).map_or(rest.len(), |k| k + 1);
    let line = &src[pos..end];
    let mut i = 0;
    let def = if line.first() == Some(&b'%') {
        i = 1;
        let kind = if line.get(1).is_some_and(u8::is_ascii_digit) {
            while line.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            Tok::LocalId
        } else {
            while line.get(i).copied().is_some_and(lexer::is_name_byte) {
                i += 1;
            }
            Tok::LocalVar
        };
        if i == 1 || line.get(i..i + 3) != Some(b" = ") {
            return None;
        }
        let t = Token {
            kind,
            start: pos as u32,
            end: (pos + i) as u32,
        };
        i += 3;
        Some(t)
    } else {
        None
    };
    let word_start = i;
    while line
        .get(i)
        .is_some_and(|&b| b.is_ascii_lowercase() || b == b'_')
    {
        i += 1;
    }
    if !matches!(line.get(i), Some(b' ' | b'\n' | b'\r' | b',')) {
        return None;
    }
    let opcode = Opcode::from_keyword(&line[word_start..i])?;
    use Opcode::*;
    if opcode == Switch && def.is_none() {
        return switch_end(src, end).map(|end| (None, opcode, end));
    }
    let keep = match opcode {
        // Several lines (indirectbr, invoke, callbr, catchswitch, landingpad; a switch as
        // LLVM prints it is read above), calls (the ones that matter are parsed; a void one
        // may not be), allocas (edits insert after them), exception handling (rare): parsed.
        Switch | IndirectBr | Invoke | CallBr | CatchSwitch | LandingPad | Call | Alloca
        | Resume | CleanupRet | CatchRet | CleanupPad | CatchPad | VAArg => false,
        // No result: no name either.
        Ret | Br | Unreachable | Store | Fence => def.is_none(),
        // A result: named, or it would take a number silently.
        _ => def.is_some(),
    };
    keep.then_some((def, opcode, end))
}
