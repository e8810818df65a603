//! Metadata: numbered and inline nodes, attachments, and debug locations.
//!
//! Tuples (`!{i8 1, !"x", !3}`) are parsed into operands; specialized nodes
//! (`!DILocation(line: 3, column: 7, scope: !12)`) into `key: value` fields whose values stay
//! text, since the passes read only a few of them (line, column, scope, file). Forward
//! references (`!dbg !40` before `!40 = ...`) are resolved by number.

use crate::hash::FxHashMap;
use crate::inst::{Text, NONE, NO_TEXT};
use crate::lexer::{Lexer, Tok};
use crate::module::{InstId, MdId, Module, Operand, PackedOp};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MdKindData {
    /// Referenced by number, not (yet) defined: the offset of the first reference.
    Undefined(u32),
    Tuple,
    /// `!Name(...)`: `name` is the `!Name` token.
    Specialized,
    /// `!"..."`.
    String,
    /// A value used as metadata (`ptr %x` in `metadata ptr %x`).
    Value,
    /// A string made by an edit: its bytes are `Module::byte_strings[i]`.
    NewString(u32),
}

#[derive(Clone, Copy, Debug)]
pub(crate) struct MdNodeData {
    pub kind: MdKindData,
    pub distinct: bool,
    pub ops: u32,
    pub len: u32,
    /// The node's text (from `!` or `distinct` to its end); none for new nodes.
    pub text: Text,
    /// The `!Name` token of a specialized node, or the string token of a string.
    pub name: Text,
    /// `!N`'s number, or NONE for inline nodes.
    pub number: u32,
    /// A definition kept as its text by a filtered parse (a specialized node or a string
    /// alone on its line): it has no operands in `ops`; [`MdNode::operands`] reads its
    /// fields from the text. Nothing it refers to was checked.
    pub unread: bool,
}

impl MdNodeData {
    /// A node of `kind` with no operands, text, name or number: the fields a maker sets
    /// follow it (`MdNodeData { number, ..MdNodeData::new(kind) }`).
    pub fn new(kind: MdKindData) -> MdNodeData {
        MdNodeData {
            kind,
            distinct: false,
            ops: 0,
            len: 0,
            text: NO_TEXT,
            name: NO_TEXT,
            number: NONE,
            unread: false,
        }
    }

    /// The definition at `at` (a `!N` that starts a line), read from its text alone when it
    /// is one LLVM writes whole on its line: `!N = [distinct ]!Name(...)` (not
    /// `!DIArgList`, whose operands are typed values) or `!N = [distinct ]!"..."`. `None`
    /// for anything else. Its operands are not read: `unread` is set, and
    /// [`MdNode::operands`] reads them from the text. (A line that goes on after the node
    /// with a comment ending in `)` keeps the comment in its text: the fields end where the
    /// node's `(` closes.)
    ///
    /// Read byte by byte: 150,000 such lines make a module with debug info, and two
    /// searches a line (for its end and for a comment) cost more than the rest of its
    /// reading.
    pub fn kept_as_text(src: &[u8], at: usize) -> Option<MdNodeData> {
        if at > 0 && src.get(at - 1) != Some(&b'\n') {
            return None;
        }
        let byte = |i: usize| src.get(i).copied().unwrap_or(b'\n');
        // `!N = `
        let mut i = at + 1;
        let mut number: u64 = 0;
        while byte(i).is_ascii_digit() && i - at <= 10 {
            number = number * 10 + u64::from(byte(i) - b'0');
            i += 1;
        }
        let number = u32::try_from(number).ok().filter(|_| i > at + 1)?;
        if src.get(i..i + 3)? != b" = " {
            return None;
        }
        i += 3;
        let distinct = src.get(i..i + 9) == Some(b"distinct ");
        if distinct {
            i += 9;
        }
        let node_at = i;
        if byte(node_at) != b'!' {
            return None;
        }
        // The node's end: the line's, less trailing blanks.
        let line_end =
            node_at + memchr::memchr(b'\n', &src[node_at..]).unwrap_or(src.len() - node_at);
        let mut end = line_end;
        while end > node_at && matches!(src[end - 1], b' ' | b'\t' | b'\r') {
            end -= 1;
        }
        let node = &src[node_at..end];
        let (kind, name_len) = match node.get(1) {
            // `!"..."`: one string token (LLVM escapes the quotes in it).
            Some(b'"')
                if node.len() >= 3 && memchr::memchr(b'"', &node[2..]) == Some(node.len() - 3) =>
            {
                (MdKindData::String, node.len())
            }
            Some(c) if c.is_ascii_alphabetic() => {
                let word = 1 + node[1..]
                    .iter()
                    .take_while(|&&b| crate::lexer::is_word_byte(b))
                    .count();
                if node.get(word) != Some(&b'(')
                    || node.last() != Some(&b')')
                    || &node[..word] == b"!DIArgList"
                {
                    return None;
                }
                (MdKindData::Specialized, word)
            }
            _ => return None,
        };
        // A string's name is its token, from the quote; a specialized node's, `!Name`.
        let name_at = node_at as u32 + u32::from(kind == MdKindData::String);
        Some(MdNodeData {
            kind,
            distinct,
            ops: 0,
            len: 0,
            text: Text {
                start: at as u32,
                end: end as u32,
            },
            name: Text {
                start: name_at,
                end: (node_at + name_len) as u32,
            },
            number,
            unread: true,
        })
    }
}

#[derive(Clone, Copy, Debug)]
pub(crate) enum MdOp {
    Null,
    Node(MdId),
    Value(PackedOp),
    /// A field of a specialized node: `key:` (none for positional values) and the value text.
    Field(Text, Text),
}

/// Ids from here up name the definitions a filtered parse kept as text without a record:
/// `UNREAD_IDS + k` is the one that starts at `MdData::unread[k]`. The records' ids stay
/// below (2^28 of them; every id must fit a packed operand, see `module::MAX_INDEX`).
pub(crate) const UNREAD_IDS: u32 = 1 << 28;

#[derive(Clone, Debug, Default)]
pub(crate) struct MdData {
    pub nodes: Vec<MdNodeData>,
    pub ops: Vec<MdOp>,
    pub by_number: NumberMap,
    pub kinds: Vec<Box<[u8]>>,
    pub kind_map: FxHashMap<Box<[u8]>, u32>,
    /// Named metadata: name, nodes, item.
    pub named: Vec<(Box<[u8]>, Vec<MdId>, u32)>,
    pub next_number: u32,
    /// Where each definition kept as text without a record starts (its `!N`), in the order
    /// read; see [`UNREAD_IDS`].
    pub unread: Vec<u32>,
}

/// The nodes by their number (`!N`): a vector for the numbers a module uses (LLVM numbers
/// from 0 without gaps), a map for the rare large one. A hash map cost 250 instructions a
/// definition in a module with debug info, where 180,000 lines are numbered nodes.
#[derive(Clone, Debug, Default)]
pub(crate) struct NumberMap {
    /// `MdId(NONE)` where no node has the number.
    dense: Vec<MdId>,
    sparse: FxHashMap<u32, MdId>,
}

impl NumberMap {
    /// Numbers below this are kept in the vector (four bytes each, up to the largest used).
    const DENSE: u32 = 1 << 20;

    pub fn get(&self, number: &u32) -> Option<&MdId> {
        if *number < Self::DENSE {
            self.dense.get(*number as usize).filter(|id| id.0 != NONE)
        } else {
            self.sparse.get(number)
        }
    }

    pub fn insert(&mut self, number: u32, id: MdId) {
        if number < Self::DENSE {
            let at = number as usize;
            if at >= self.dense.len() {
                self.dense.resize(at + 1, MdId(NONE));
            }
            self.dense[at] = id;
        } else {
            self.sparse.insert(number, id);
        }
    }

    pub fn remove(&mut self, number: &u32) {
        if *number < Self::DENSE {
            if let Some(slot) = self.dense.get_mut(*number as usize) {
                *slot = MdId(NONE);
            }
        } else {
            self.sparse.remove(number);
        }
    }

    /// Every (number, node), in no particular order.
    pub fn iter(&self) -> impl Iterator<Item = (u32, MdId)> + '_ {
        self.dense
            .iter()
            .enumerate()
            .filter(|(_, id)| id.0 != NONE)
            .map(|(n, &id)| (n as u32, id))
            .chain(self.sparse.iter().map(|(&n, &id)| (n, id)))
    }
}

impl MdData {
    pub fn kind_id(&mut self, name: &[u8]) -> u32 {
        if let Some(&id) = self.kind_map.get(name) {
            return id;
        }
        let id = self.kinds.len() as u32;
        self.kinds.push(name.into());
        self.kind_map.insert(name.into(), id);
        id
    }

    /// The id of the `k`th definition kept as text without a record, if there is room.
    pub fn unread_id(&self, k: usize) -> Option<MdId> {
        u32::try_from(k)
            .ok()
            .and_then(|k| UNREAD_IDS.checked_add(k))
            .filter(|&id| id < crate::module::MAX_INDEX)
            .map(MdId)
    }

    /// Whether `id` is a record made by a reference and not yet defined.
    pub fn is_placeholder(&self, id: MdId) -> bool {
        self.nodes
            .get(id.index())
            .is_some_and(|node| matches!(node.kind, MdKindData::Undefined(_)))
    }

    /// The node for `!number`, created undefined on first mention.
    pub fn numbered(&mut self, number: u32, offset: u32) -> MdId {
        if let Some(&id) = self.by_number.get(&number) {
            return id;
        }
        let id = MdId(self.nodes.len() as u32);
        self.nodes.push(MdNodeData {
            number,
            ..MdNodeData::new(MdKindData::Undefined(offset))
        });
        self.by_number.insert(number, id);
        self.next_number = self.next_number.max(number.saturating_add(1));
        id
    }
}

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
        let unread = match data.kind {
            MdKindData::Specialized if data.unread => {
                specialized_fields(&module.src, data.name.end as usize)
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
            .chain(
                unread
                    .into_iter()
                    .map(move |(key, value)| field(module, key, value)),
            )
    }

    /// Operand `index` as an integer constant (`i8 1` in `!{i8 1}`).
    pub fn int_operand(&self, index: usize) -> Option<i128> {
        match self.operands().nth(index)? {
            MdOperand::Value(Operand {
                value: crate::module::Value::Const(c),
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
        crate::constant::parse_int(self.field(key)?)
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
