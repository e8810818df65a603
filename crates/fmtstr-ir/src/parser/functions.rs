//! Functions: headers (linkage, attributes, parameters), bodies block by block, and the
//! local names in them.
//!
//! Input: the tokens from `define` or `declare` to the end of a declaration or the body's
//! `}`. Output: the function's record, its blocks and their instructions, and every local
//! name resolved (forward references are patched when the body ends).

use std::borrow::Cow;

use super::constants::VALUE_WORDS;
use super::items::LINKAGE_WORDS;
use super::sparse::OpaqueRun;
use super::tokens::{text, token_number};
use super::{Forward, PResult, Parser, MAX_NUMBER_GAP_TO};
use crate::inst::{Attr, InstData, InstFlags, Text, FLAG_ATTRS, NONE, NO_TEXT, TYPE_ATTRS};
use crate::lexer::{self, name_key, NameKey, Tok, Token};
use crate::md_data::MdOp;
use crate::module::{ArgData, BlockData, FuncData, GlobalKindData, ItemKind};
use crate::types::TypeId;
use crate::value::{BlockId, FuncId, GlobalId, PackedValue, Value, NUMBER_GAP};

/// What a function's header says (see [`Parser::header`]).
struct Header {
    global: GlobalId,
    fn_ty: TypeId,
    ret_attrs: (u32, u32),
    params: (u32, u32),
    prefix: Text,
    cconv: Text,
    suffix: Text,
    suffix_copy: u32,
}

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

impl<'s> Parser<'s> {
    pub(super) fn function(&mut self, is_def: bool) -> PResult<ItemKind> {
        if is_def && self.header_filter.is_some() {
            if let Some(fid) = self.define_kept_as_text()? {
                return Ok(ItemKind::Function(fid));
            }
        }
        self.bump();
        let fid = FuncId(self.m.funcs.len() as u32);
        let header = self.header(fid, is_def, None)?;
        self.m.funcs.push(FuncData {
            ret_attrs: header.ret_attrs,
            prefix: header.prefix,
            cconv: header.cconv,
            suffix: header.suffix,
            suffix_copy: header.suffix_copy,
            is_def,
            header_end: self.prev_end,
            ..FuncData::declaration(header.global, header.fn_ty, header.params, 0)
        });
        if is_def {
            self.expect(Tok::LBrace, "'{'")?;
            let body_start = self.prev_end;
            self.m.funcs[fid.index()].body_start = body_start;
            self.m.funcs[fid.index()].header_end = body_start;
            if self.skeleton {
                self.skip_body(fid, body_start)?;
                self.past_skipped_body(fid)?;
            } else {
                self.body(fid)?;
                let close = self.expect(Tok::RBrace, "'}'")?;
                self.m.funcs[fid.index()].close = close.start;
            }
        }
        Ok(ItemKind::Function(fid))
    }

    /// A function's header after `define` or `declare`, up to the `{` of a definition: its
    /// fields, and its name defined as function `fid`'s (unless `defined`: the global the
    /// name already stands for).
    fn header(&mut self, fid: FuncId, is_def: bool, defined: Option<GlobalId>) -> PResult<Header> {
        let (prefix, cconv, ret_attrs) = self.fn_prefix()?;
        let ret = self.parse_type()?;
        if !matches!(self.tok.kind, Tok::GlobalVar | Tok::GlobalId) {
            return self.expected("a function name");
        }
        let name = self.bump();
        let global = match defined {
            Some(global) => global,
            None => {
                self.check_capacity(self.m.funcs.len(), "functions")?;
                let addrspace = self.m.layout.program_addrspace();
                self.define_global(name, GlobalKindData::Func(fid), addrspace)?
            }
        };
        let (params, param_types, vararg) = self.params(fid)?;
        let (suffix, suffix_copy) = self.fn_suffix(is_def)?;
        let fn_ty = self.m.types.function(ret, &param_types, vararg);
        Ok(Header {
            global,
            fn_ty,
            ret_attrs,
            params,
            prefix,
            cconv,
            suffix,
            suffix_copy,
        })
    }

    /// In a skeleton parse, moves past the `}` of the body just skipped. A filtered parse
    /// lexes only the token after it: the next header may be kept as text, unlexed.
    fn past_skipped_body(&mut self, fid: FuncId) -> PResult<()> {
        if self.header_filter.is_none() {
            let close = self.expect(Tok::RBrace, "'}'")?;
            self.m.funcs[fid.index()].close = close.start;
            return Ok(());
        }
        if self.tok.kind != Tok::RBrace {
            return self.expected("'}'");
        }
        let close = self.tok;
        self.m.funcs[fid.index()].close = close.start;
        self.prev_end = close.end;
        self.seek(close.end as usize);
        Ok(())
    }

    /// In a filtered skeleton parse, a `define` whose header LLVM printed on one line, ending
    /// in `{`, where the filter finds nothing: only its name is read and defined, and its
    /// body is skipped. The rest of the header is read only if the body is parsed (see
    /// [`Parser::read_kept_header`]): of a module's 7,000 headers a pass that edits the 350
    /// functions that print reads 350, and reading a header was most of a skeleton's time.
    /// `None` for any other header, which is read now.
    fn define_kept_as_text(&mut self) -> PResult<Option<FuncId>> {
        let src = self.src;
        let start = self.tok.start as usize;
        let Some(len) = memchr::memchr(b'\n', &src[start..]) else {
            return Ok(None);
        };
        let line = &src[start..start + len];
        if line.last() != Some(&b'{') || self.header_filter.is_some_and(|f| f(line).is_some()) {
            return Ok(None);
        }
        // The name is the first `@`: the linkage, calling convention, return attributes and
        // type before it hold none. A string or a comment there is a shape LLVM does not print.
        let Some(at) = memchr::memchr3(b'@', b'"', b';', line).filter(|&k| line[k] == b'@') else {
            return Ok(None);
        };
        let name = lexer::Lexer::at(src, start + at).next_token();
        if !matches!(name.kind, Tok::GlobalVar | Tok::GlobalId)
            || src.get(name.end as usize) != Some(&b'(')
        {
            return Ok(None);
        }
        self.check_capacity(self.m.funcs.len(), "functions")?;
        let fid = FuncId(self.m.funcs.len() as u32);
        let addrspace = self.m.layout.program_addrspace();
        let global = self.define_global(name, GlobalKindData::Func(fid), addrspace)?;
        let body_start = (start + len) as u32;
        let params = (self.m.args.len() as u32, 0);
        let attrs = self.m.attrs.len() as u32;
        self.m.funcs.push(FuncData {
            is_def: true,
            header_as_text: true,
            body_start,
            header_end: body_start,
            ..FuncData::declaration(global, TypeId::VOID, params, attrs)
        });
        self.skip_body(fid, body_start)?;
        self.past_skipped_body(fid)?;
        Ok(Some(fid))
    }

    /// Reads the header a filtered skeleton kept as text (see
    /// [`Parser::define_kept_as_text`]), before its body is parsed: by the worker that parses
    /// the body, since nothing outside the body refers to what the header defines (its
    /// parameters).
    pub(crate) fn read_kept_header(&mut self, fid: FuncId) -> PResult<()> {
        let data = &self.m.funcs[fid.index()];
        if !data.header_as_text {
            return Ok(());
        }
        let (global, body_start) = (data.global, data.body_start);
        let Some(item) = self.m.items.get(data.item as usize) else {
            return self.error_at(body_start, "a function header without its item".into());
        };
        self.seek(item.start as usize);
        // Short batches, which stop at the header's `{`: the body is read from its start.
        let skeleton = std::mem::replace(&mut self.skeleton, true);
        self.bump();
        let header = self.header(fid, true, Some(global));
        self.skeleton = skeleton;
        let header = header?;
        if self.tok.kind != Tok::LBrace || self.tok.end != body_start {
            return self.expected("'{'");
        }
        let data = &mut self.m.funcs[fid.index()];
        data.fn_ty = header.fn_ty;
        data.ret_attrs = header.ret_attrs;
        data.params = header.params;
        data.prefix = header.prefix;
        data.cconv = header.cconv;
        data.suffix = header.suffix;
        data.suffix_copy = header.suffix_copy;
        data.header_as_text = false;
        Ok(())
    }

    /// What comes between `define`/`declare` and the return type: linkage, visibility,
    /// calling convention, return attributes, and a declaration's attachments. Returns its
    /// text, the calling convention's, and the return attributes.
    fn fn_prefix(&mut self) -> PResult<(Text, Text, (u32, u32))> {
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
        Ok((prefix, cconv, ret_attrs))
    }

    /// The parameter list of function `fid`, from `(` to `)`: each parameter's record, and
    /// the types and `...` of its function type.
    fn params(&mut self, fid: FuncId) -> PResult<((u32, u32), Vec<TypeId>, bool)> {
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
        Ok((params, param_types, vararg))
    }

    /// What follows the parameter list up to a definition's `{` (attributes, `section`,
    /// `personality`, attachments...), kept as text, and where its copy starts in
    /// `Module::suffix_copies` (`NONE` without one).
    fn fn_suffix(&mut self, is_def: bool) -> PResult<(Text, u32)> {
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
        Ok(if consumed {
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
        })
    }

    /// A calling convention, the current token being its word: `fastcc`, `cc 10`, or one with a
    /// parameter in parentheses (LLVM 22's `riscv_vls_cc(128)`). Returns its text, parameter
    /// included.
    pub(super) fn calling_conv(&mut self) -> PResult<Text> {
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

    /// One parameter or return attribute; false when the token is not one.
    pub(super) fn parse_one_attr(&mut self) -> PResult<bool> {
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

    pub(super) fn parse_attrs(&mut self) -> PResult<(u32, u32)> {
        let start = self.m.attrs.len() as u32;
        while self.parse_one_attr()? {}
        Ok((start, self.m.attrs.len() as u32 - start))
    }

    pub(super) fn body(&mut self, fid: FuncId) -> PResult<()> {
        let insts_start = self.m.insts.len();
        self.param_locals(fid)?;
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
            let (label, numbered, line_end, resume) =
                self.block_label(block, raw_label, first, after_terminator)?;
            first = false;
            self.m.blocks.push(BlockData {
                func: fid,
                label,
                numbered,
                line_end,
                insts: crate::module::InstList::Range(0, 0),
            });
            self.fn_blocks.push(block);
            after_terminator = self.block_body(block, resume)?;
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
        self.m.funcs[fid.index()].named_prefixes = self.f.as_ref().map(|state| state.prefixes);
        self.m.funcs[fid.index()].implicit_numbers =
            self.f.as_ref().is_some_and(|state| state.implicit_numbers);
        self.m.funcs[fid.index()].has_opaque = self.sparse.is_some()
            && self.m.insts[insts_start..]
                .iter()
                .any(|d| d.flags.contains(InstFlags::OPAQUE));
        self.fn_blocks.clear();
        self.finish_function()
    }

    /// Starts a body's local names with its parameters' (numbered ones in order).
    fn param_locals(&mut self, fid: FuncId) -> PResult<()> {
        // One function's tables at a time; their allocations are reused for the next.
        let mut state = self.spare.take().unwrap_or_default();
        state.numbered.clear();
        state.implicit_numbers = false;
        state.named.clear();
        state.prefixes = Default::default();
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
                    state.prefixes.add(&name);
                    if state.named.insert(name, value).is_some() {
                        return self.error_at(arg.name.start, "redefinition of an argument".into());
                    }
                }
            }
        }
        self.f = Some(state);
        Ok(())
    }

    /// The label that starts block `block` (read by the lexer, or `raw_label` read without
    /// it, or none for an implicitly numbered block): its text, whether it is numbered, where
    /// its line ends, and where a sparse parse goes on without the lexer.
    fn block_label(
        &mut self,
        block: BlockId,
        raw_label: Option<Token>,
        first: bool,
        after_terminator: bool,
    ) -> PResult<(Text, bool, u32, Option<usize>)> {
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
        Ok((label, numbered, line_end, resume))
    }

    /// The instructions of block `block` after its label, up to the next label or the body's
    /// end; `resume`: where to start without the lexer (see [`Parser::opaque_lines`]).
    /// Whether the block ended with its terminator.
    fn block_body(&mut self, block: BlockId, mut resume: Option<usize>) -> PResult<bool> {
        loop {
            if let Some(pos) = resume.take() {
                match self.opaque_lines(block, Some(pos))? {
                    OpaqueRun::Nothing => {}
                    OpaqueRun::Lines => continue,
                    OpaqueRun::Block => return Ok(true),
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
                            OpaqueRun::Block => return Ok(true),
                        }
                    }
                    let inst = self.instruction(block)?;
                    self.block_insts.push(inst);
                    if self.m.insts[inst.index()].opcode.is_terminator() {
                        return Ok(true);
                    }
                }
            }
        }
        Ok(false)
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

    pub(super) fn define_local(&mut self, t: Token, value: Value) -> PResult<()> {
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
                state.prefixes.add(&name);
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

    pub(super) fn define_implicit(&mut self, value: Value) {
        if let Some(state) = self.f.as_mut() {
            state.numbered.push(value);
        }
    }

    pub(super) fn local_ref(&mut self, t: Token) -> PResult<PackedValue> {
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
}

pub(super) fn is_cconv(word: &[u8]) -> bool {
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

/// Notes that the body's text names `value`, when it is an instruction.
fn mark_named(insts: &mut [InstData], value: Value) {
    if let Value::Inst(i) = value {
        if let Some(d) = insts.get_mut(i.index()) {
            d.flags.insert(InstFlags::NAMED_IN_TEXT);
        }
    }
}
