//! Metadata edits: new nodes and named metadata, attachments on new instructions, and
//! removing nodes nothing refers to.
//!
//! Input: the operands of a node (see [`MdInput`]) or a node to remove. Output: new numbered
//! nodes printed after the module's own, or a node removed (its item split out of a run of
//! definitions kept as text); or an [`EditError`] while anything refers to the node.

use super::invalid;
use crate::error::EditError;
use crate::inst::{InstFlags, NONE};
use crate::lexer::{Lexer, Tok};
use crate::md_data::{MdKindData, MdNodeData, MdOp};
use crate::module::{FuncState, ItemData, ItemKind, ItemState, Module};
use crate::value::{InstId, MdId, Operand, PackedOp, Value};

/// An operand of a new metadata node (see [`Module::add_metadata`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MdInput<'a> {
    /// `null`.
    Null,
    /// A reference to a node.
    Node(MdId),
    /// A typed constant or global (`i8 1`, `ptr @g`).
    Value(Operand),
    /// A string (`!"..."`).
    String(&'a [u8]),
}

impl Module {
    /// Adds a numbered metadata node `!N = !{...}` (N one past the highest number in use) at
    /// the end of the module, and returns it.
    pub fn add_metadata(&mut self, operands: &[MdInput<'_>]) -> MdId {
        let mut ops = Vec::with_capacity(operands.len());
        for input in operands {
            ops.push(match *input {
                MdInput::Null => MdOp::Null,
                MdInput::Node(id) => MdOp::Node(id),
                MdInput::Value(op) => MdOp::Value(PackedOp::new(op)),
                MdInput::String(bytes) => {
                    self.byte_strings.push(bytes.into());
                    let index = self.byte_strings.len() as u32 - 1;
                    let id = MdId(self.md.nodes.len() as u32);
                    self.md
                        .nodes
                        .push(MdNodeData::new(MdKindData::NewString(index)));
                    MdOp::Node(id)
                }
            });
        }
        let start = self.md.ops.len() as u32;
        self.md.ops.extend(ops);
        let number = self.md.next_number;
        self.md.next_number = number.saturating_add(1);
        let id = MdId(self.md.nodes.len() as u32);
        self.md.nodes.push(MdNodeData {
            ops: start,
            len: operands.len() as u32,
            number,
            ..MdNodeData::new(MdKindData::Tuple)
        });
        self.md.by_number.insert(number, id);
        let mut text = format!("!{number} = ").into_bytes();
        self.write_md_node(id, &mut text);
        text.push(b'\n');
        let item = self.push_item(ItemKind::Md, Some(text));
        self.place_item(item, None);
        id
    }

    /// Adds `!name = !{!a, !b, ...}` at the end of the module.
    pub fn add_named_metadata(&mut self, name: &str, nodes: &[MdId]) -> Result<(), EditError> {
        if self.named_metadata(name).is_some() {
            return Err(EditError::NameTaken {
                name: format!("!{name}"),
            });
        }
        let mut text = Vec::new();
        crate::types::write_name(b'!', name.as_bytes(), false, &mut text);
        text.extend_from_slice(b" = !{");
        for (i, &node) in nodes.iter().enumerate() {
            if i > 0 {
                text.extend_from_slice(b", ");
            }
            self.write_md_ref(node, &mut text);
        }
        text.extend_from_slice(b"}\n");
        let item = self.push_item(ItemKind::NamedMd, Some(text));
        self.place_item(item, None);
        self.md
            .named
            .push((name.as_bytes().into(), nodes.to_vec(), item));
        Ok(())
    }

    /// Removes a named metadata (`!llvm.ident = ...`). Returns whether there was one.
    pub fn remove_named_metadata(&mut self, name: &str) -> bool {
        let Some(index) = self
            .md
            .named
            .iter()
            .position(|(n, _, _)| &**n == name.as_bytes())
        else {
            return false;
        };
        let (_, _, item) = self.md.named.remove(index);
        self.remove_item(item);
        true
    }

    /// Removes a numbered metadata node `!N = ...`, parsed or made by
    /// [`Module::add_metadata`]. Refused with [`EditError::StillUsed`] while anything the
    /// module prints still refers to `!N`: other nodes, named metadata, instruction
    /// attachments (`!dbg !N`, `!prof !N`, on source or new instructions), `metadata !N`
    /// operands, debug records, global and function attachments. What is kept as written
    /// (source instructions, nodes, globals, function headers) is searched for the `!N`
    /// token, so references in removed instructions and items no longer count; the search is
    /// one pass over the module's text.
    ///
    /// Nothing is renumbered: the other nodes keep their numbers (LLVM accepts gaps in
    /// metadata numbering), and [`Module::add_metadata`] does not reuse `N`. Afterwards
    /// [`Module::md_numbered`] no longer finds `N`; the removed node must not be given to
    /// later edits (it would print as a dangling `!N`).
    pub fn remove_metadata(&mut self, node: MdId) -> Result<(), EditError> {
        let Some(data) = self.md_data(node) else {
            return invalid("no such metadata node");
        };
        let number = data.number;
        if number == NONE || self.md.by_number.get(&number) != Some(&node) {
            return invalid("only a numbered metadata node still in the module can be removed");
        }
        // The item that defines it: a source node by its text (a run of them in a filtered
        // parse, split here), a new one by its number.
        let prefix = format!("!{number} = ");
        let item = self.order.iter().copied().find(|&i| {
            let it = &self.items[i as usize];
            it.kind == ItemKind::Md
                && match &it.text {
                    Some(text) => data.text.is_none() && text.starts_with(prefix.as_bytes()),
                    None => {
                        it.state != ItemState::Removed
                            && (it.start..it.end).contains(&data.text.start)
                            && !data.text.is_none()
                    }
                }
        });
        let item = item.map(|run| self.split_md_run(run, data.text));
        let Some(item) = item else {
            return invalid(format!("!{number} is referenced but not defined"));
        };
        let uses = self.metadata_uses(node, item);
        if uses > 0 {
            return Err(EditError::StillUsed {
                what: format!("!{number}"),
                uses,
            });
        }
        self.md.by_number.remove(&number);
        self.remove_item(item);
        Ok(())
    }

    /// The item of the definition whose node text is `text`, split out of the run of
    /// definitions `run` holds (see `Parser::module`): the run before it and the run after it
    /// become items of their own, in order.
    fn split_md_run(&mut self, run: u32, text: crate::inst::Text) -> u32 {
        let it = &self.items[run as usize];
        let (start, end) = (it.start, it.end);
        let own_end = crate::lexer::rest_of_line(&self.src, text.end).min(end);
        if start == text.start && own_end == end {
            return run;
        }
        let mut parts = Vec::with_capacity(3);
        if start < text.start {
            parts.push((start, text.start));
        }
        parts.push((text.start, own_end));
        if own_end < end {
            parts.push((own_end, end));
        }
        let Some(at) = self.order.iter().position(|&i| i == run) else {
            return run;
        };
        let mut own = run;
        let mut indices = Vec::with_capacity(parts.len());
        for (k, &(from, to)) in parts.iter().enumerate() {
            let index = if k == 0 {
                run
            } else {
                self.items.push(ItemData {
                    kind: ItemKind::Md,
                    start: from,
                    end: to,
                    state: ItemState::Source,
                    text: None,
                });
                self.items.len() as u32 - 1
            };
            let item = &mut self.items[index as usize];
            (item.start, item.end) = (from, to);
            if from == text.start {
                own = index;
            }
            indices.push(index);
        }
        self.order.splice(at..at + 1, indices);
        own
    }

    /// How many references to the numbered `node` (defined by item `own`) the module prints.
    fn metadata_uses(&self, node: MdId, own: u32) -> usize {
        let number = self.md_data(node).map_or(NONE, |n| n.number);
        let mut uses = 0;
        for &i in &self.order {
            let it = &self.items[i as usize];
            if i == own || it.state == ItemState::Removed {
                continue;
            }
            match (it.kind, &it.text) {
                // Declared by an edit: a header without metadata.
                (ItemKind::Function(_), _) if it.state == ItemState::New => {}
                (ItemKind::Function(f), _) => {
                    // The source text minus removed instructions (their debug records stay),
                    // and the attachments and operands of new instructions.
                    let data = &self.funcs[f.index()];
                    let mut from = it.start as usize;
                    let edited = if data.state.contains(FuncState::BODY_EDITED) {
                        &data.blocks[..]
                    } else {
                        &[]
                    };
                    for &block in edited {
                        for &inst in self.block_inst_ids(block) {
                            let d = &self.insts[inst.index()];
                            if d.flags.contains(InstFlags::NEW) {
                                if !d.flags.contains(InstFlags::REMOVED) {
                                    uses += self.new_inst_md_uses(inst, node);
                                }
                            } else if d.flags.contains(InstFlags::REMOVED) {
                                uses += md_mentions(&self.src, from, d.start as usize, number);
                                from = d.end as usize;
                            }
                        }
                    }
                    uses += md_mentions(&self.src, from, it.end as usize, number);
                }
                (_, Some(text)) => uses += md_mentions(text, 0, text.len(), number),
                (_, None) => {
                    uses += md_mentions(&self.src, it.start as usize, it.end as usize, number)
                }
            }
        }
        uses
    }

    /// How many attachments and operands of a new instruction refer to `node`.
    fn new_inst_md_uses(&self, inst: InstId, node: MdId) -> usize {
        let d = &self.insts[inst.index()];
        let attached = self
            .md_attach
            .get(d.md as usize..d.md as usize + d.md_len as usize)
            .unwrap_or(&[])
            .iter()
            .filter(|&&(_, m)| self.md_refers(m, node, 0))
            .count();
        let operands = self
            .inst_ops(inst)
            .iter()
            .filter(
                |op| matches!(op.value.unpack(), Value::Metadata(m) if self.md_refers(m, node, 0)),
            )
            .count();
        attached + operands
    }

    /// Whether metadata `m` is the numbered `node` or an inline node mentioning it (a numbered
    /// node's own references are found in its text).
    fn md_refers(&self, m: MdId, node: MdId, depth: u32) -> bool {
        if m == node {
            return true;
        }
        let Some(data) = self.md_data(m) else {
            return false;
        };
        if data.number != NONE || depth > 64 {
            return false;
        }
        let number = self.md_data(node).map_or(NONE, |n| n.number);
        let ops = self
            .md
            .ops
            .get(data.ops as usize..(data.ops as usize).saturating_add(data.len as usize))
            .unwrap_or(&[]);
        ops.iter().any(|op| match *op {
            MdOp::Null => false,
            MdOp::Node(n) => self.md_refers(n, node, depth + 1),
            MdOp::Value(v) => {
                matches!(v.value.unpack(), Value::Metadata(n) if self.md_refers(n, node, depth + 1))
            }
            MdOp::Field(_, value) => {
                md_mentions(&self.src, value.start as usize, value.end as usize, number) > 0
            }
        })
    }

    /// Attaches `!kind !node` to an instruction made by an edit (source instructions keep
    /// their attachments as written).
    pub fn set_metadata(&mut self, inst: InstId, kind: &str, node: MdId) -> Result<(), EditError> {
        let d = *self.live_inst(inst)?;
        if !d.flags.contains(InstFlags::NEW) {
            return invalid("metadata can only be attached to instructions made by edits");
        }
        let kind = self.md.kind_id(kind.as_bytes());
        let mut list: Vec<(u32, MdId)> = self
            .md_attach
            .get(d.md as usize..d.md as usize + d.md_len as usize)
            .unwrap_or(&[])
            .iter()
            .copied()
            .filter(|&(k, _)| k != kind)
            .collect();
        list.push((kind, node));
        if list.len() > usize::from(u8::MAX) {
            return invalid("too many metadata attachments");
        }
        let data = &mut self.insts[inst.index()];
        data.md = self.md_attach.len() as u32;
        data.md_len = list.len() as u8;
        self.md_attach.extend(list);
        Ok(())
    }
}

/// How many `!number` tokens the tokens of `text` starting in `[from, to)` hold (strings and
/// comments do not count).
fn md_mentions(text: &[u8], from: usize, to: usize, number: u32) -> usize {
    let mut lexer = Lexer::at(text, from);
    let mut count = 0;
    loop {
        let t = lexer.next_token();
        if t.kind == Tok::Eof || t.start as usize >= to {
            return count;
        }
        if t.kind == Tok::MetadataId
            && crate::lexer::parse_u32(
                text.get(t.start as usize + 1..t.end as usize)
                    .unwrap_or(&[]),
            ) == Some(number)
        {
            count += 1;
        }
    }
}
