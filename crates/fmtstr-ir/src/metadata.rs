//! Metadata as the passes see it: numbered and inline nodes, attachments, and debug
//! locations.
//!
//! Input: a module's metadata records (`md_data`). Output: the views ([`MdNode`],
//! [`MdOperand`], [`DebugLoc`]) and the text of a node for the printer. Tuples
//! (`!{i8 1, !"x", !3}`) are parsed into operands; specialized nodes
//! (`!DILocation(line: 3, column: 7, scope: !12)`) into `key: value` fields whose values stay
//! text, since the passes read only a few of them (line, column, scope, file).

use crate::inst::{Text, NONE, NO_TEXT};
use crate::lexer::{Lexer, Tok};
use crate::md_data::{MdKindData, MdNodeData, MdOp, UNREAD_IDS};
use crate::module::Module;
use crate::value::{InstId, MdId, Operand};

/// A metadata operand.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MdOperand<'m> {
    /// `null`.
    Null,
    /// Another node (`!3`, `!"text"`, `!{...}`).
    Node(MdId),
    /// A typed value (`i8 1`, `ptr @g`).
    Value(Operand),
    /// A field of a specialized node (`line: 3`): the key (without the colon; empty for
    /// positional operands such as DIExpression's) and the value's text.
    Field(&'m [u8], &'m [u8]),
}

/// What kind of node a metadata node is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MdNodeKind<'m> {
    /// `!{...}`.
    Tuple,
    /// `!Name(...)`, with the name without `!` (`DILocation`).
    Specialized(&'m [u8]),
    /// `!"..."`, decoded bytes are in [`MdNode::string`].
    String,
    /// A value wrapped as metadata.
    Value,
}

/// A view of one metadata node.
#[derive(Clone, Copy, Debug)]
pub struct MdNode<'m> {
    module: &'m Module,
    id: MdId,
}

impl<'m> MdNode<'m> {
    fn data(&self) -> MdNodeData {
        self.module
            .md_data(self.id)
            .or_else(|| self.module.md.nodes.first().copied())
            .unwrap_or(MdNodeData::new(MdKindData::Tuple))
    }

    /// The node's id.
    pub fn id(&self) -> MdId {
        self.id
    }

    /// `N` for a numbered node `!N`.
    pub fn number(&self) -> Option<u32> {
        let n = self.data().number;
        (n != NONE).then_some(n)
    }

    /// Whether it was written `distinct`.
    pub fn is_distinct(&self) -> bool {
        self.data().distinct
    }

    /// What kind of node it is.
    pub fn kind(&self) -> MdNodeKind<'m> {
        let data = self.data();
        match data.kind {
            MdKindData::Specialized => {
                let name = self.module.text(data.name);
                MdNodeKind::Specialized(name.get(1..).unwrap_or(&[]))
            }
            MdKindData::String | MdKindData::NewString(_) => MdNodeKind::String,
            MdKindData::Value => MdNodeKind::Value,
            MdKindData::Tuple | MdKindData::Undefined(_) => MdNodeKind::Tuple,
        }
    }

    /// The decoded bytes of a string node.
    pub fn string(&self) -> Option<Vec<u8>> {
        let data = self.data();
        if let MdKindData::NewString(i) = data.kind {
            return self.module.byte_strings.get(i as usize).map(|b| b.to_vec());
        }
        if data.kind != MdKindData::String {
            return None;
        }
        let raw = self.module.text(data.name);
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]);
        Some(crate::lexer::unescape(body))
    }

    /// The operands (tuple elements, or the fields of a specialized node).
    pub fn operands(&self) -> impl Iterator<Item = MdOperand<'m>> + 'm {
        let data = self.data();
        let module = self.module;
        let unread: Vec<MdOperand<'m>> = match data.kind {
            MdKindData::Specialized if data.unread => {
                specialized_fields(&module.src, data.name.end as usize)
                    .into_iter()
                    .map(|(key, value)| field(module, key, value))
                    .collect()
            }
            MdKindData::Tuple if data.unread => {
                listed_references(module, data.name.end as usize, data.text.end as usize)
            }
            _ => Vec::new(),
        };
        module
            .md
            .ops
            .get(data.ops as usize..(data.ops as usize).saturating_add(data.len as usize))
            .unwrap_or(&[])
            .iter()
            .map(move |op| match *op {
                MdOp::Null => MdOperand::Null,
                MdOp::Node(id) => MdOperand::Node(id),
                MdOp::Value(op) => MdOperand::Value(op.get()),
                MdOp::Field(key, value) => field(module, key, value),
            })
            .chain(unread)
    }

    /// Operand `index` as an integer constant (`i8 1` in `!{i8 1}`).
    pub fn int_operand(&self, index: usize) -> Option<i128> {
        match self.operands().nth(index)? {
            MdOperand::Value(Operand {
                value: crate::value::Value::Const(c),
                ..
            }) => self.module.int_value(c),
            _ => None,
        }
    }

    /// The value text of field `key` of a specialized node.
    pub fn field(&self, key: &str) -> Option<&'m [u8]> {
        self.operands().find_map(|op| match op {
            MdOperand::Field(k, v) if k == key.as_bytes() => Some(v),
            _ => None,
        })
    }

    /// Field `key` as an integer (`line: 12`).
    pub fn field_int(&self, key: &str) -> Option<i128> {
        crate::const_data::parse_int(self.field(key)?)
    }

    /// Field `key` as a node reference (`scope: !12`).
    pub fn field_node(&self, key: &str) -> Option<MdNode<'m>> {
        let text = self.field(key)?;
        let mut lexer = Lexer::new(text);
        let token = lexer.next_token();
        if token.kind != Tok::MetadataId || token.end as usize != text.len() {
            return None;
        }
        let number = crate::lexer::parse_u32(&text[1..])?;
        let id = *self.module.md.by_number.get(&number)?;
        Some(self.module.md_node(id))
    }

    /// Field `key` as a string (`filename: "a.c"`), decoded.
    pub fn field_str(&self, key: &str) -> Option<Vec<u8>> {
        let text = self.field(key)?;
        let body = text.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
        Some(crate::lexer::unescape(body))
    }
}

fn field(module: &Module, key: Text, value: Text) -> MdOperand<'_> {
    let key = module.text(key);
    MdOperand::Field(key.strip_suffix(b":").unwrap_or(key), module.text(value))
}

/// The elements of a tuple of references kept as text (`!{!1, null, !2}`, see
/// `MdNodeData::kept_as_text`), from its `{` at `open` to `end`. A reference to a node the
/// module does not define reads as null: text kept unread is not checked.
fn listed_references(module: &Module, open: usize, end: usize) -> Vec<MdOperand<'_>> {
    let inner = module
        .src
        .get(open + 1..end.saturating_sub(1))
        .unwrap_or(&[]);
    if inner.is_empty() {
        return Vec::new();
    }
    inner
        .split(|&b| b == b',')
        .map(|element| {
            crate::lexer::parse_u32(element.trim_ascii().strip_prefix(b"!").unwrap_or(&[]))
                .and_then(|number| module.md.by_number.get(&number))
                .map_or(MdOperand::Null, |&id| MdOperand::Node(id))
        })
        .collect()
}

/// The fields of a specialized node kept as text, read token by token as the parser reads
/// them (`key:` or none, then the value's tokens up to a `,` or `)` outside brackets).
/// `open` is the offset of its `(`.
fn specialized_fields(src: &[u8], open: usize) -> Vec<(Text, Text)> {
    let mut fields = Vec::new();
    let mut lexer = Lexer::at(src, open);
    if lexer.next_token().kind != Tok::LParen {
        return fields;
    }
    let mut tok = lexer.next_token();
    if tok.kind == Tok::RParen {
        return fields;
    }
    loop {
        let key = if tok.kind == Tok::LabelStr {
            let key = Text {
                start: tok.start,
                end: tok.end,
            };
            tok = lexer.next_token();
            key
        } else {
            NO_TEXT
        };
        let start = tok.start;
        let mut end = start;
        let mut depth: u32 = 0;
        loop {
            match tok.kind {
                Tok::Comma | Tok::RParen if depth == 0 => break,
                Tok::LParen | Tok::LBrace | Tok::LSquare => depth += 1,
                Tok::RParen | Tok::RBrace | Tok::RSquare => depth = depth.saturating_sub(1),
                Tok::Eof | Tok::Error => return fields,
                _ => {}
            }
            end = tok.end;
            tok = lexer.next_token();
        }
        fields.push((key, Text { start, end }));
        if tok.kind != Tok::Comma {
            return fields;
        }
        tok = lexer.next_token();
    }
}

/// Where an instruction came from in the program's source, from its `!dbg` location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DebugLoc {
    /// Line, from 1 (0 when unknown).
    pub line: u32,
    /// Column, from 1 (0 when unknown).
    pub column: u32,
    /// The file name from the location's scope chain, when there is one.
    pub file: Option<String>,
}

impl Module {
    /// A view of a metadata node.
    pub fn md_node(&self, id: MdId) -> MdNode<'_> {
        let id = if self.md_data(id).is_some() {
            id
        } else {
            MdId(0)
        };
        MdNode { module: self, id }
    }

    /// Node `id`'s record: its own, or for a definition kept as text without one, the
    /// record read from its text.
    pub(crate) fn md_data(&self, id: MdId) -> Option<MdNodeData> {
        match id.0.checked_sub(UNREAD_IDS) {
            None => self.md.nodes.get(id.index()).copied(),
            Some(k) => {
                let at = *self.md.unread.get(k as usize)?;
                MdNodeData::kept_as_text(&self.src, at as usize)
            }
        }
    }

    /// The node `!N`, when the module defines it.
    pub fn md_numbered(&self, number: u32) -> Option<MdNode<'_>> {
        self.md.by_number.get(&number).map(|&id| self.md_node(id))
    }

    /// The nodes a named metadata (`!llvm.ident = !{!0}`) lists.
    pub fn named_metadata(&self, name: &str) -> Option<&[MdId]> {
        self.md
            .named
            .iter()
            .find(|(n, _, _)| &**n == name.as_bytes())
            .map(|(_, ids, _)| ids.as_slice())
    }

    /// The metadata attached to an instruction under `kind` (`"dbg"`, `"printf.form"`).
    pub fn inst_metadata(&self, inst: InstId, kind: &str) -> Option<MdNode<'_>> {
        let kind = *self.md.kind_map.get(kind.as_bytes())?;
        self.inst_attachment(inst, kind).map(|id| self.md_node(id))
    }

    /// The node an instruction attaches as kind number `kind`, without reading the node.
    pub(crate) fn inst_attachment(&self, inst: InstId, kind: u32) -> Option<MdId> {
        let data = self.insts.get(inst.index())?;
        self.md_attach
            .get(data.md as usize..data.md as usize + data.md_len as usize)?
            .iter()
            .find(|(k, _)| *k == kind)
            .map(|&(_, id)| id)
    }

    /// Every attachment of an instruction: kind name (without `!`) and node.
    pub fn inst_metadata_all(&self, inst: InstId) -> Vec<(&[u8], MdId)> {
        let Some(data) = self.insts.get(inst.index()) else {
            return Vec::new();
        };
        self.md_attach
            .get(data.md as usize..data.md as usize + data.md_len as usize)
            .unwrap_or(&[])
            .iter()
            .map(|&(k, id)| (self.md.kinds.get(k as usize).map_or(&[][..], |k| k), id))
            .collect()
    }

    /// The source position an instruction's `!dbg` location names.
    pub fn debug_loc(&self, inst: InstId) -> Option<DebugLoc> {
        let loc = self.inst_metadata(inst, "dbg")?;
        if loc.kind() != MdNodeKind::Specialized(b"DILocation") {
            return None;
        }
        let line = loc.field_int("line").and_then(|v| u32::try_from(v).ok());
        let column = loc.field_int("column").and_then(|v| u32::try_from(v).ok());
        // Walk scope -> ... until a node with a `file:` field names a DIFile.
        let mut file = None;
        let mut scope = loc.field_node("scope");
        for _ in 0..64 {
            let Some(node) = scope else { break };
            if node.kind() == MdNodeKind::Specialized(b"DIFile") {
                file = node.field_str("filename");
                break;
            }
            if let Some(f) = node.field_node("file") {
                file = f.field_str("filename");
                break;
            }
            scope = node.field_node("scope");
        }
        Some(DebugLoc {
            line: line.unwrap_or(0),
            column: column.unwrap_or(0),
            file: file.map(|f| String::from_utf8_lossy(&f).into_owned()),
        })
    }
}

impl Module {
    /// Writes a reference to a node: `!N`, or the node itself when it has no number.
    pub(crate) fn write_md_ref(&self, id: MdId, out: &mut Vec<u8>) {
        let Some(node) = self.md_data(id) else {
            out.extend_from_slice(b"!{}");
            return;
        };
        if node.number != NONE {
            out.push(b'!');
            crate::types::push_u64(out, u64::from(node.number));
        } else {
            self.write_md_node(id, out);
        }
    }

    /// Writes a node's contents as LLVM does (`!{i8 1, !"x", null, !3}`), or its source text.
    pub(crate) fn write_md_node(&self, id: MdId, out: &mut Vec<u8>) {
        let Some(node) = self.md_data(id) else {
            return;
        };
        match node.kind {
            MdKindData::NewString(i) => {
                out.extend_from_slice(b"!\"");
                crate::lexer::escape_into(
                    self.byte_strings.get(i as usize).map_or(&[][..], |b| b),
                    out,
                );
                out.push(b'"');
            }
            MdKindData::Tuple if node.text.is_none() => {
                out.extend_from_slice(b"!{");
                let ops = self
                    .md
                    .ops
                    .get(node.ops as usize..(node.ops + node.len) as usize)
                    .unwrap_or(&[]);
                for (i, op) in ops.iter().enumerate() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    match *op {
                        MdOp::Null => out.extend_from_slice(b"null"),
                        MdOp::Node(n) => self.write_md_ref(n, out),
                        MdOp::Value(v) => self.write_typed(None, v.get(), out),
                        MdOp::Field(k, v) => {
                            out.extend_from_slice(self.text(k));
                            out.extend_from_slice(self.text(v));
                        }
                    }
                }
                out.push(b'}');
            }
            _ => {
                // A source node: its text from `!` (numbered definitions start at `!N = `).
                let text = self.text(node.text);
                let body = match text.iter().position(|&b| b == b'=') {
                    Some(i) if node.number != NONE => text[i + 1..].trim_ascii_start(),
                    _ => text,
                };
                out.extend_from_slice(body);
            }
        }
    }
}
