//! Metadata: references, inline nodes, numbered definitions and named metadata.
//!
//! Input: the tokens of metadata, or the bytes of a definition [`md_line::scan`] can read
//! without the lexer. Output: the node records of the module's metadata, numbered nodes by
//! number; in a filtered parse, the definitions LLVM writes one to a line are kept as text.

use super::tokens::text;
use super::{PResult, Parser};
use crate::inst::{Text, NONE, NO_TEXT};
use crate::lexer::{parse_u32, Tok};
use crate::md_data::{MdData, MdKindData, MdNodeData, MdOp};
use crate::md_line::{self, LineKind, LineOp};
use crate::module::ItemKind;
use crate::value::{MdId, MAX_INDEX};

impl<'s> Parser<'s> {
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
    pub(super) fn md_value(&mut self) -> PResult<MdId> {
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
    pub(super) fn md_ref(&mut self) -> PResult<MdId> {
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

    pub(super) fn md_def(&mut self) -> PResult<ItemKind> {
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

    /// The definition at the current `!N` token kept as its text, and those on the lines after it,
    /// while each is one LLVM writes alone on its line ([`MdNodeData::kept_as_text`], recorded by
    /// `keep_md_as_text`): its kind, name and text are known, its fields are read from the text
    /// when asked ([`MdNode::operands`](crate::MdNode::operands)), and what it refers to is not
    /// checked. A run the tail thread found (`md_tail`) is taken whole. False, with nothing read,
    /// for anything else.
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
            if self.m.md.keep_new_unread(line_at, number) {
                continue;
            }
            if !keep_md_as_text(&mut self.m.md, src, line_at, number) {
                // Stopped short where the parser would stop (a redefinition).
                let &(last_at, _) = lines.get(k.checked_sub(1)?)?;
                return MdNodeData::kept_as_text(src, last_at as usize).map(|d| d.text.end);
            }
        }
        Some(run_end)
    }

    pub(super) fn named_md(&mut self) -> PResult<ItemKind> {
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
