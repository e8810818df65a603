//! Printing a function an edit touched: its source text with removed instructions left out,
//! new ones printed, and local names rewritten where removals renumbered or replacements
//! renamed them.
//!
//! Input: the function's source text, the offsets of every local-value use the parser
//! recorded, and the edits' records. Output: the function's text; a `blockaddress` naming a
//! renumbered block, anywhere in the module, follows the new number.

use std::io::{self, Write};

use super::{FnNames, NameTables, Out};
use crate::const_data::ConstKind;
use crate::hash::FxHashMap;
use crate::inst::InstFlags;
use crate::lexer::{name_key, Lexer, NameKey, Tok};
use crate::module::{text_of, FuncState, GlobalKindData, Module};
use crate::types::{push_u64, write_name, TypeId};
use crate::value::{BlockId, FuncId, InstId, Operand, Value, NUMBER_GAP};

impl Module {
    pub(super) fn print_function<W: Write>(
        &self,
        f: FuncId,
        out: &mut Out<'_, W>,
    ) -> io::Result<()> {
        let data = &self.funcs[f.index()];
        if data.state.contains(FuncState::HEADER_EDITED) {
            out.skip(data.header_end as usize)?;
            let mut header = Vec::new();
            self.write_header(f, &mut header);
            out.emit(&header)?;
        } else {
            out.keep(data.header_end as usize);
        }
        if !data.is_def
            || !data
                .state
                .intersects(FuncState::BODY_EDITED | FuncState::RENUMBER)
        {
            return Ok(());
        }
        let names = self.fn_names(f);
        let renumber = data.state.contains(FuncState::RENUMBER);
        // A removed value that text still names (a debug record, or metadata wrapping a local
        // in an instruction) is printed as `poison`: those texts need the slow path then.
        let removed_defs = data.blocks.iter().any(|&b| {
            self.block_inst_ids(b).iter().any(|&i| {
                let f = self.insts[i.index()].flags;
                f.contains(InstFlags::REMOVED)
                    && !f.contains(InstFlags::NEW)
                    && f.intersects(InstFlags::HAS_DEF | InstFlags::IMPLICIT_NUM)
                    && f.contains(InstFlags::NAMED_IN_TEXT)
            })
        });
        // Nothing to rename between instructions (comments, debug records): keep it as is.
        let plain = !renumber && !removed_defs && data.record_subst.is_empty();
        let mut text = Vec::with_capacity(256);
        for &block in &data.blocks {
            let b = &self.blocks[block.index()];
            if let Some(name) = self.new_block_name(block) {
                // A block made by an edit: its label, LLVM's blank line before it. Its source
                // instructions (a split block's tail) follow in source order.
                out.start_line()?;
                text.clear();
                text.push(b'\n');
                write_name(b'%', name, false, &mut text);
                text.remove(1);
                text.extend_from_slice(b":\n");
                out.emit(&text)?;
            } else if !b.label.is_none() {
                if plain {
                    out.keep(b.label.start as usize);
                } else {
                    self.subst_region(&names, None, b.label.start as usize, out)?;
                }
                if renumber || !self.new_blocks.moved_terminators.is_empty() {
                    // Its name or number, or a predecessor named in its `; preds = `
                    // comment (a split moved that block's branch), may have changed.
                    self.label_line(&names, block, out)?;
                } else {
                    // Block names and numbers stay: so does the label line.
                    out.keep(b.line_end as usize);
                }
            }
            // New instructions in a row are printed into `text` and emitted together.
            text.clear();
            for &inst in self.block_inst_ids(block) {
                let d = &self.insts[inst.index()];
                if d.flags.contains(InstFlags::NEW) {
                    if out.needs_line_break() {
                        text.push(b'\n');
                    }
                    text.extend_from_slice(b"  ");
                    self.write_inst(Some(&names), inst, &mut text);
                    text.push(b'\n');
                    continue;
                }
                if !text.is_empty() {
                    out.emit(&text)?;
                    text.clear();
                }
                // Debug records and comments before the instruction belong to it; they
                // stay when it is removed, as LLVM moves a removed instruction's records on.
                let lead_end = if d.flags.contains(InstFlags::REMOVED) {
                    let lead = self.src.get(out.pos..d.start as usize).unwrap_or(&[]);
                    match lead.iter().rposition(|&b| b == b'\n') {
                        Some(i) => out.pos + i + 1,
                        None => out.pos,
                    }
                } else {
                    d.start as usize
                };
                if plain {
                    out.keep(lead_end);
                } else {
                    self.subst_region(&names, None, lead_end, out)?;
                }
                if d.flags.contains(InstFlags::REMOVED) {
                    out.skip(d.end as usize)?;
                } else if !(renumber
                    || d.flags.contains(InstFlags::OPS_EDITED)
                    || removed_defs && self.has_metadata_operand(inst))
                {
                    // No name changed and no operand was replaced: the source text is exact.
                    out.keep(d.end as usize);
                } else {
                    if d.flags.contains(InstFlags::HAS_DEF) {
                        // Definitions are not among the recorded sites: the name comes first.
                        let mut name = Vec::new();
                        self.write_local(Some(&names), Value::Inst(inst), &mut name);
                        self.replace_token(d.start as usize, &name, out)?;
                    }
                    self.subst_region(&names, Some(inst), d.end as usize, out)?;
                }
            }
            if !text.is_empty() {
                out.emit(&text)?;
                text.clear();
            }
        }
        self.subst_region(&names, None, data.close as usize, out)
    }

    /// Prints the source from `out.pos` to `to`, rewriting value names at the recorded sites.
    fn subst_region<W: Write>(
        &self,
        names: &FnNames,
        inst: Option<InstId>,
        to: usize,
        out: &mut Out<'_, W>,
    ) -> io::Result<()> {
        let edited = inst.and_then(|i| self.operand_map(i));
        let mut next = self.first_site_from(out.site, out.pos);
        for &site in self.sites.get(next..).unwrap_or(&[]) {
            let site = site as usize;
            if site >= to {
                break;
            }
            next += 1;
            out.keep(site);
            let mut lexer = Lexer::at(&self.src, site);
            let token = lexer.next_token();
            let raw = self.src.get(site..token.end as usize).unwrap_or(&[]);
            let label = matches!(token.kind, Tok::LabelStr | Tok::LabelId);
            let numbered = matches!(token.kind, Tok::LocalId | Tok::LabelId);
            let Some(orig) = names.lookup(self, raw, numbered) else {
                out.keep(token.end as usize);
                continue;
            };
            let mut current = Operand {
                ty: self.value_type(orig).unwrap_or(TypeId::VOID),
                value: orig,
            };
            if let Some(map) = &edited {
                if let Some(&(_, to)) = map.iter().find(|(from, _)| *from == orig) {
                    current = to;
                }
            } else if inst.is_none() {
                if let Some(&to) = names.record_subst.get(&orig) {
                    current.value = to;
                }
            }
            let mut text = Vec::new();
            if label {
                self.write_local(Some(names), current.value, &mut text);
                // Labels are written without the sigil.
                text.remove(0);
                text.push(b':');
            } else {
                self.write_value(Some(names), current, &mut text);
            }
            if text == raw {
                out.keep(token.end as usize);
            } else {
                out.skip(token.end as usize)?;
                out.emit(&text)?;
            }
        }
        out.keep(to);
        out.site = next;
        Ok(())
    }

    /// The result name token of a source instruction starting at `start` (`%x`, `%7`, `%"a b"`)
    /// and whether it is numbered.
    pub(crate) fn def_token(&self, start: u32) -> (&[u8], bool) {
        let start = start as usize;
        if let Some((end, numbered)) = crate::lexer::quick_local(&self.src, start) {
            return (self.src.get(start..end).unwrap_or(&[]), numbered);
        }
        let t = Lexer::at(&self.src, start).next_token();
        (
            self.src
                .get(t.start as usize..t.end as usize)
                .unwrap_or(&[]),
            t.kind == Tok::LocalId,
        )
    }

    fn has_metadata_operand(&self, inst: InstId) -> bool {
        self.inst_ops(inst)
            .iter()
            .any(|op| matches!(op.value.unpack(), Value::Metadata(_)))
    }

    /// The first site at or after `pos`, searching from `from` (every site before `from` lies
    /// before `pos`): a galloping search, so a function's walk over its sites stays linear
    /// instead of a binary search over the whole module's per region.
    fn first_site_from(&self, from: usize, pos: usize) -> usize {
        let rest = self.sites.get(from..).unwrap_or(&[]);
        let mut lo = 0;
        let mut step = 1;
        while lo + step <= rest.len() && (rest[lo + step - 1] as usize) < pos {
            lo += step;
            step *= 2;
        }
        let hi = (lo + step).min(rest.len());
        from + lo + rest[lo..hi].partition_point(|&s| (s as usize) < pos)
    }

    /// Prints `text` in place of the token at `at` (keeping the source when they agree).
    fn replace_token<W: Write>(
        &self,
        at: usize,
        text: &[u8],
        out: &mut Out<'_, W>,
    ) -> io::Result<()> {
        out.keep(at);
        let mut lexer = Lexer::at(&self.src, at);
        let end = lexer.next_token().end as usize;
        if self.src.get(at..end) == Some(text) {
            out.keep(end);
            Ok(())
        } else {
            out.skip(end)?;
            out.emit(text)
        }
    }

    /// The label line after the label token: its `; preds = ...` comment names blocks too.
    fn label_line<W: Write>(
        &self,
        names: &FnNames,
        block: BlockId,
        out: &mut Out<'_, W>,
    ) -> io::Result<()> {
        let b = &self.blocks[block.index()];
        let line = self
            .src
            .get(b.label.start as usize..b.line_end as usize)
            .unwrap_or(&[]);
        let mut label = Vec::new();
        self.write_local(Some(names), Value::Block(block), &mut label);
        label.remove(0);
        label.push(b':');
        let Some(comment_at) = line.windows(10).position(|w| w == b"; preds = ") else {
            // Labels are not among the recorded sites: rename the label token itself.
            self.replace_token(b.label.start as usize, &label, out)?;
            return self.subst_region(names, None, b.line_end as usize, out);
        };
        let comment = &line[comment_at + 10..];
        let mut rewritten = Vec::new();
        let mut lexer = Lexer::new(comment);
        loop {
            let t = lexer.next_token();
            match t.kind {
                Tok::LocalVar | Tok::LocalId => {
                    let raw = &comment[t.start as usize..t.end as usize];
                    match names.lookup(self, raw, t.kind == Tok::LocalId) {
                        // A split predecessor: its tail ends with the branch here now.
                        Some(Value::Block(b)) => self.write_local(
                            Some(names),
                            Value::Block(self.terminator_block(b)),
                            &mut rewritten,
                        ),
                        Some(v) => self.write_local(Some(names), v, &mut rewritten),
                        None => rewritten.extend_from_slice(raw),
                    }
                }
                Tok::Comma => rewritten.extend_from_slice(b", "),
                _ => break,
            }
        }
        let mut text = label.clone();
        // LLVM pads the comment to column 50.
        let width = text.len();
        text.resize(width.max(49) + 1, b' ');
        text.extend_from_slice(b"; preds = ");
        text.extend_from_slice(&rewritten);
        text.push(b'\n');
        let original = line;
        if text == original {
            out.keep(b.line_end as usize);
        } else {
            out.skip(b.line_end as usize)?;
            out.emit(&text)?;
        }
        Ok(())
    }

    /// For an instruction whose operands were replaced: original value -> current value.
    fn operand_map(&self, inst: InstId) -> Option<Vec<(Value, Operand)>> {
        let d = &self.insts[inst.index()];
        if !d.flags.contains(InstFlags::OPS_EDITED) {
            return None;
        }
        let map = self
            .source_ops(inst)
            .iter()
            .zip(self.inst_ops(inst))
            .filter(|(a, b)| a.value != b.value)
            .map(|(a, b)| (a.value.unpack(), b.get()))
            .collect();
        Some(map)
    }

    pub(crate) fn fn_names(&self, f: FuncId) -> FnNames {
        FnNames {
            func: f,
            tables: std::cell::OnceCell::new(),
            record_subst: self.funcs[f.index()].record_subst.replacements().clone(),
        }
    }

    pub(super) fn name_tables(&self, f: FuncId) -> NameTables {
        let mut names = NameTables {
            numbered: Vec::new(),
            named: FxHashMap::default(),
            numbers: FxHashMap::default(),
        };
        let mut next = 0u32;
        // Numbers keep the gaps the text has (`%2` then `%5`), and those a removal leaves,
        // unless the function is renumbered (a value after a removed one takes its number
        // silently): from the first removed value on they are then consecutive.
        let renumber = self.funcs[f.index()].state.contains(FuncState::RENUMBER);
        let mut compacting = false;
        self.for_each_def(f, |raw, numbered, value, live| {
            match name_key(raw, numbered) {
                NameKey::Named(name) if !raw.is_empty() => {
                    names.named.insert(name.into_owned(), value);
                }
                key => {
                    if let NameKey::Numbered(n) = key {
                        if !raw.is_empty() && n as usize > names.numbered.len() {
                            names.numbered.resize(n as usize, NUMBER_GAP);
                            if !compacting {
                                next = next.max(n);
                            }
                        }
                    }
                    names.numbered.push(value);
                    if live {
                        names.numbers.insert(value, next);
                        next += 1;
                    } else if renumber {
                        compacting = true;
                    } else {
                        next += 1;
                    }
                }
            }
        });
        names
    }

    /// Calls `def(raw, numbered, value, live)` for every local value `f` defines in the
    /// source (parameters, blocks, source instructions), in order: `raw` is the name token as
    /// written (empty for an unnamed value), `live` whether it is still there.
    pub(crate) fn for_each_def(&self, f: FuncId, mut def: impl FnMut(&[u8], bool, Value, bool)) {
        let data = &self.funcs[f.index()];
        let (start, len) = data.params;
        for i in start..start + len {
            let arg = &self.args[i as usize];
            let raw = text_of(&self.src, arg.name);
            def(
                raw,
                arg.numbered || raw.is_empty(),
                Value::Arg(crate::value::ArgId(i)),
                true,
            );
        }
        for &block in &data.blocks {
            let b = &self.blocks[block.index()];
            // A new block is named (never numbered); its instructions may be source ones.
            if self.new_block_name(block).is_none() {
                let raw = text_of(&self.src, b.label);
                def(raw, b.numbered, Value::Block(block), true);
            }
            for &inst in self.block_inst_ids(block) {
                let d = &self.insts[inst.index()];
                if d.flags.contains(InstFlags::NEW) {
                    continue;
                }
                let live = !d.flags.contains(InstFlags::REMOVED);
                if d.flags.contains(InstFlags::HAS_DEF) {
                    let (raw, numbered) = self.def_token(d.start);
                    def(raw, numbered, Value::Inst(inst), live);
                } else if d.flags.contains(InstFlags::IMPLICIT_NUM) {
                    def(&[], true, Value::Inst(inst), live);
                }
            }
        }
    }

    /// The `blockaddress(@f, %N)` constants kept as text whose block `%N` has another number
    /// now that `@f` was renumbered: (start, end, new text), by start. Empty, at the cost of
    /// a look at each function's state, when no function was renumbered.
    pub(super) fn blockaddress_patches(&self) -> Vec<(u32, u32, Vec<u8>)> {
        if !self
            .funcs
            .iter()
            .any(|f| f.state.contains(FuncState::RENUMBER))
        {
            return Vec::new();
        }
        let mut names = FxHashMap::default();
        let mut patches = Vec::new();
        for c in &self.consts {
            if c.kind == ConstKind::Opaque && c.start != crate::inst::NONE {
                if let Some(text) = self.renumbered_blockaddress(c.start, c.end, Some(&mut names)) {
                    patches.push((c.start, c.end, text));
                }
            }
        }
        patches.sort_unstable_by_key(|p| p.0);
        patches.dedup_by_key(|p| p.0);
        patches
    }

    /// The text of the constant at `[start, end)` when it is `blockaddress(@f, %N)`, `@f` was
    /// renumbered and block `%N` has a new number; `names` caches the functions' tables.
    pub(super) fn renumbered_blockaddress(
        &self,
        start: u32,
        end: u32,
        names: Option<&mut FxHashMap<FuncId, FnNames>>,
    ) -> Option<Vec<u8>> {
        let text = self.src.get(start as usize..end as usize)?;
        if !text.starts_with(b"blockaddress") {
            return None;
        }
        let mut lexer = Lexer::at(&self.src, start as usize + b"blockaddress".len());
        if lexer.next_token().kind != Tok::LParen {
            return None;
        }
        let g = lexer.next_token();
        let raw = self.src.get(g.start as usize..g.end as usize)?;
        let global = match (g.kind, name_key(raw, g.kind == Tok::GlobalId)) {
            (Tok::GlobalVar | Tok::GlobalId, NameKey::Named(name)) => self.global_map.get(&*name),
            (Tok::GlobalVar | Tok::GlobalId, NameKey::Numbered(n)) => self.global_numbered.get(&n),
            _ => None,
        }?;
        let GlobalKindData::Func(f) = self.globals.get(global.index())?.kind else {
            return None;
        };
        let block = (lexer.next_token().kind == Tok::Comma).then(|| lexer.next_token())?;
        if !self
            .funcs
            .get(f.index())?
            .state
            .contains(FuncState::RENUMBER)
            || block.kind != Tok::LocalId
            || block.end > end
        {
            return None;
        }
        let own;
        let names = match names {
            Some(cache) => &*cache.entry(f).or_insert_with(|| self.fn_names(f)),
            None => {
                own = self.fn_names(f);
                &own
            }
        };
        let raw = &self.src[block.start as usize..block.end as usize];
        let value = names.lookup(self, raw, true)?;
        let number = names
            .number(self, value)
            .filter(|_| matches!(value, Value::Block(_)))?;
        let mut out = Vec::with_capacity(text.len() + 2);
        out.extend_from_slice(&self.src[start as usize..block.start as usize]);
        out.push(b'%');
        push_u64(&mut out, u64::from(number));
        out.extend_from_slice(&self.src[block.end as usize..end as usize]);
        (out != text).then_some(out)
    }
}
