//! The records of metadata: nodes, their operands, and the table of numbered nodes.
//!
//! Input: what the parser read of each node (or, for a definition kept as text, the line
//! itself: [`MdNodeData::kept_as_text`]). Output: the [`MdData`] a module holds, which the
//! metadata views (`metadata`), the printer and the edits read. Below the module, which holds
//! it; forward references (`!dbg !40` before `!40 = ...`) are resolved by number.

use crate::hash::FxHashMap;
use crate::inst::{Text, NONE, NO_TEXT};
use crate::value::{MdId, PackedOp, MAX_INDEX};

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
    /// A definition kept as its text by a filtered parse (a specialized node or a string alone on
    /// its line): it has no operands in `ops`; [`MdNode::operands`](crate::MdNode::operands) reads
    /// its fields from the text. Nothing it refers to was checked.
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

    /// The definition at `at` (a `!N` that starts a line), read from its text alone when it is one
    /// LLVM writes whole on its line: `!N = [distinct ]!Name(...)` (not `!DIArgList`, whose
    /// operands are typed values), `!N = [distinct ]!"..."`, or a tuple of references and
    /// nulls, `!N = [distinct ]!{!1, null, !2}` (a module with debug info has one per list of
    /// elements, of members, of retained nodes). `None` for anything else. Its operands are not
    /// read: `unread` is set, and [`MdNode::operands`](crate::MdNode::operands) reads them from
    /// the text. (A line that goes on after the node with a comment ending in `)` keeps the
    /// comment in its text: the fields end where the node's `(` closes.)
    ///
    /// Read byte by byte: 150,000 such lines make a module with debug info, and two
    /// searches a line (for its end and for a comment) cost more than the rest of its
    /// reading.
    pub fn kept_as_text(src: &[u8], at: usize) -> Option<MdNodeData> {
        let line_end = at + memchr::memchr(b'\n', src.get(at..)?).unwrap_or(src.len() - at);
        Self::kept_as_text_on_line(src, at, line_end)
    }

    /// [`MdNodeData::kept_as_text`] where the caller knows where the line ends (its `\n`, or
    /// the end of the text): a scan that found the line does not look for its end again.
    #[inline]
    pub fn kept_as_text_on_line(src: &[u8], at: usize, line_end: usize) -> Option<MdNodeData> {
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
        if line_end < node_at || line_end > src.len() {
            return None;
        }
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
            // The name is the `!`: the elements start after it, as a specialized node's
            // fields start after its name.
            Some(b'{') if is_reference_list(node) => (MdKindData::Tuple, 1),
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

/// Whether `node` is `!{...}` holding only `!N` and `null`, separated by `, `.
fn is_reference_list(node: &[u8]) -> bool {
    let Some(inner) = node.strip_prefix(b"!{").and_then(|n| n.strip_suffix(b"}")) else {
        return false;
    };
    inner.is_empty()
        || inner.split(|&b| b == b',').enumerate().all(|(k, element)| {
            let element = if k == 0 {
                element
            } else {
                element.strip_prefix(b" ").unwrap_or(&[])
            };
            element == b"null"
                || element.strip_prefix(b"!").is_some_and(|digits| {
                    !digits.is_empty()
                        && digits.len() <= 10
                        && digits.iter().all(u8::is_ascii_digit)
                })
        })
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
/// below (2^28 of them; every id must fit a packed operand, see `value::MAX_INDEX`).
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
            .filter(|&id| id < MAX_INDEX)
            .map(MdId)
    }

    /// Records `!number`, kept as text at `at`, when nothing has the number yet and it is one
    /// the vector holds: the common case of a run the tail thread found, in a few
    /// instructions (the general path, `keep_md_as_text`, took 120 a line). False, with
    /// nothing recorded, for anything else.
    #[inline]
    pub fn keep_new_unread(&mut self, at: u32, number: u32) -> bool {
        let n = number as usize;
        if number >= NumberMap::DENSE || self.by_number.dense.get(n).is_some_and(|id| id.0 != NONE)
        {
            return false;
        }
        let Some(id) = self.unread_id(self.unread.len()) else {
            return false;
        };
        if n >= self.by_number.dense.len() {
            self.by_number.dense.resize(n + 1, MdId(NONE));
        }
        self.by_number.dense[n] = id;
        self.unread.push(at);
        self.next_number = self.next_number.max(number.saturating_add(1));
        true
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
