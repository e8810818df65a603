//! The printer: source spans for what no edit touched, LLVM's style for the rest.
//!
//! Output is produced as a sequence of "keep source up to here" and "write these bytes"
//! steps; consecutive kept spans are written with one call, so printing an untouched module
//! is one `write_all` of its text. In a function an edit touched, three things can differ from
//! the source: new instructions (printed from their fields), removed ones (skipped), and the
//! names of local values (renumbered after a removal, or replaced by `replace_all_uses`).
//! Names are rewritten at the exact token offsets the parser recorded as value references
//! ([`Module::sites`]), which is what keeps `%struct.T` type names and comments intact.

use std::io::{self, Write};

use crate::const_data::ConstKind;
use crate::hash::FxHashMap;
use crate::inst::{
    Attr, InstData, Opcode, HAS_DEF, IMPLICIT_NUM, NAMED_IN_TEXT, NEW, OPS_EDITED, REMOVED,
};
use crate::lexer::{name_key, Lexer, NameKey, Tok};
use crate::md_data::MdKindData;
use crate::module::{
    text_of, GlobalKindData, Module, BODY_EDITED, HEADER_EDITED, ITEM_NEW, ITEM_REMOVED, RENUMBER,
};
use crate::types::{push_fmt, push_i64, push_u64, write_f64, write_name, TypeId};
use crate::value::{BlockId, FuncId, InstId, Operand, Value, NUMBER_GAP};

struct Out<'a, W: Write> {
    src: &'a [u8],
    w: &'a mut W,
    /// Source offset up to which output is decided.
    pos: usize,
    /// Start of the source span kept but not yet written (it ends at `pos`).
    pending: usize,
    /// Index into [`Module::sites`]: every site before it lies before `pos`.
    site: usize,
    /// Source spans written differently wherever they are kept, by start (see
    /// [`Module::blockaddress_patches`]); `patch` indexes the first not yet passed.
    patches: &'a [(u32, u32, Vec<u8>)],
    patch: usize,
}

/// A part of a module's text to print: the module, its items, the source offset it starts at,
/// whether it is the last, and about how many bytes of its own it prints.
type Part<'m> = (&'m Module, std::ops::Range<usize>, usize, bool, usize);

/// A part printed on another thread, without copying the source text it keeps: a span of
/// the source is recorded by position, other bytes are buffered, and the pieces are written in
/// order once the part's turn comes. Copying a shard's part of a 40 MB module into a buffer
/// faulted in a page per 4 KiB of it, more time than printing it.
struct Rope<'s> {
    src: &'s [u8],
    /// Spans of `src` (`from_source`) or of `own`, in order.
    pieces: Vec<(bool, usize, usize)>,
    own: Vec<u8>,
}

impl<'s> Rope<'s> {
    /// Spans shorter than this are copied: a piece per short token would cost more.
    const MIN_SPAN: usize = 256;

    /// A rope for a part expected to print about `own` bytes of its own.
    fn new(src: &'s [u8], own: usize) -> Self {
        Rope {
            src,
            pieces: Vec::new(),
            own: Vec::with_capacity(own),
        }
    }

    fn write_to<W: Write>(&self, w: &mut W) -> io::Result<()> {
        for &(from_source, start, end) in &self.pieces {
            let text = if from_source { self.src } else { &self.own };
            w.write_all(&text[start..end])?;
        }
        Ok(())
    }
}

impl Write for Rope<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let src = self.src.as_ptr_range();
        let within = src.start <= buf.as_ptr() && buf.as_ptr_range().end <= src.end;
        if within && buf.len() >= Self::MIN_SPAN {
            let start = buf.as_ptr() as usize - src.start as usize;
            self.pieces.push((true, start, start + buf.len()));
        } else {
            let start = self.own.len();
            self.own.extend_from_slice(buf);
            match self.pieces.last_mut() {
                Some((false, _, end)) if *end == start => *end = self.own.len(),
                _ => self.pieces.push((false, start, self.own.len())),
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl<W: Write> Out<'_, W> {
    fn flush(&mut self) -> io::Result<()> {
        if self.pos > self.pending {
            if self.patches.len() > self.patch {
                self.flush_patched()?;
            } else {
                self.w
                    .write_all(self.src.get(self.pending..self.pos).unwrap_or(&[]))?;
            }
        }
        self.pending = self.pos;
        Ok(())
    }

    /// Writes the kept span with the patches that lie wholly inside it applied.
    #[cold]
    fn flush_patched(&mut self) -> io::Result<()> {
        let (mut at, end) = (self.pending, self.pos);
        while let Some((start, stop, text)) = self.patches.get(self.patch) {
            let (start, stop) = (*start as usize, *stop as usize);
            if start < at {
                // Passed, or dropped with the source around it.
                self.patch += 1;
                continue;
            }
            if stop > end {
                break;
            }
            self.w.write_all(self.src.get(at..start).unwrap_or(&[]))?;
            self.w.write_all(text)?;
            at = stop;
            self.patch += 1;
        }
        self.w.write_all(self.src.get(at..end).unwrap_or(&[]))
    }

    /// Keeps the source up to `to`.
    fn keep(&mut self, to: usize) {
        if to > self.pos {
            self.pos = to.min(self.src.len());
        }
    }

    /// Drops the source up to `to`.
    fn skip(&mut self, to: usize) -> io::Result<()> {
        self.flush()?;
        if to > self.pos {
            self.pos = to.min(self.src.len());
        }
        self.pending = self.pos;
        Ok(())
    }

    /// Before a new line of output: ends the current source line when only blanks remain on
    /// it (the newline after `{` or a label), or starts a new one.
    fn start_line(&mut self) -> io::Result<()> {
        if self.pos == 0 || self.src.get(self.pos - 1) == Some(&b'\n') {
            return Ok(());
        }
        let rest = self.src.get(self.pos..).unwrap_or(&[]);
        match rest
            .iter()
            .position(|&b| b != b' ' && b != b'\t' && b != b'\r')
        {
            Some(i) if rest[i] == b'\n' => {
                self.keep(self.pos + i + 1);
                Ok(())
            }
            _ => self.emit(b"\n"),
        }
    }

    fn emit(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.flush()?;
        self.w.write_all(bytes)
    }
}

/// Names of one function's local values as the source spelled them, and as printed now.
///
/// The tables are built on the first question: a function whose edits only inserted and
/// removed named values prints without them.
pub(crate) struct FnNames {
    func: FuncId,
    tables: std::cell::OnceCell<NameTables>,
    record_subst: FxHashMap<Value, Value>,
}

struct NameTables {
    numbered: Vec<Value>,
    named: FxHashMap<Vec<u8>, Value>,
    /// Current numbers of unnamed values (after removals).
    numbers: FxHashMap<Value, u32>,
}

impl Module {
    /// The module as text: byte-identical to the input where no edit reached.
    pub fn print(&self) -> Vec<u8> {
        self.print_with_threads(crate::parallel::default_threads())
    }

    /// [`Module::print`] on at most `threads` threads: for the tests that check the parts
    /// join up to the sequential output.
    #[doc(hidden)]
    pub fn print_with_threads(&self, threads: usize) -> Vec<u8> {
        let mut parts = self.print_parts(threads).into_iter();
        let mut out = parts.next().unwrap_or_default();
        for part in parts {
            out.extend_from_slice(&part);
        }
        out
    }

    /// Writes the module as text (see [`Module::print`]).
    ///
    /// An untouched module is one `write_all` of its source. A large edited one (4 MiB and
    /// up) is printed in parts on several threads first, each part then written in order.
    pub fn write_to<W: Write>(&self, w: &mut W) -> io::Result<()> {
        let threads = crate::parallel::default_threads();
        if !self.print_in_parallel(threads) {
            return self.write_items(w, 0..self.order.len(), 0, true);
        }
        let len = self.order.len();
        let splits = self.print_splits(threads);
        let own = self.new_text_estimate(splits.len() - 1);
        let parts = splits
            .windows(2)
            .map(|pair| {
                let ((from, pos), (to, _)) = (pair[0], pair[1]);
                (self, from..to, pos, to == len, own)
            })
            .collect();
        Self::write_parts(parts, w)
    }

    /// Writes consecutive parts of modules' text. The first goes straight to `w` on this
    /// thread while the others print on their own into [`Rope`]s, written after it in order.
    fn write_parts<W: Write>(parts: Vec<Part<'_>>, w: &mut W) -> io::Result<()> {
        let mut parts = parts.into_iter();
        let Some((m, items, pos, last, _)) = parts.next() else {
            return Ok(());
        };
        std::thread::scope(|scope| {
            let handles: Vec<_> = parts
                .map(|(m, items, pos, last, own)| {
                    scope.spawn(move || {
                        let mut out = Rope::new(&m.src, own);
                        m.write_items(&mut out, items, pos, last).map(|()| out)
                    })
                })
                .collect();
            m.write_items(w, items, pos, last)?;
            for handle in handles {
                let part = handle
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e))?;
                part.write_to(w)?;
            }
            Ok(())
        })
    }

    fn print_in_parallel(&self, threads: usize) -> bool {
        threads > 1
            && self.src.len() >= crate::parallel::MIN_PARALLEL
            && self
                .funcs
                .iter()
                .any(|f| f.state & (BODY_EDITED | RENUMBER) != 0)
    }

    /// The printed module in consecutive parts: one per thread for a large edited module,
    /// else one.
    fn print_parts(&self, threads: usize) -> Vec<Vec<u8>> {
        if !self.print_in_parallel(threads) {
            let mut out = self.part_buffer(self.src.len(), 1);
            // Writing to a Vec cannot fail.
            let _ = self.write_items(&mut out, 0..self.order.len(), 0, true);
            return vec![out];
        }
        let splits = self.print_splits(threads);
        let share = splits.len() - 1;
        std::thread::scope(|scope| {
            let handles: Vec<_> = splits
                .windows(2)
                .map(|pair| {
                    let ((from, pos), (to, end)) = (pair[0], pair[1]);
                    let last = to == self.order.len();
                    scope.spawn(move || {
                        let mut out = self.part_buffer(end - pos, share);
                        let _ = self.write_items(&mut out, from..to, pos, last);
                        out
                    })
                })
                .collect();
            handles
                .into_iter()
                .map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
                .collect()
        })
    }

    /// Prints a module parsed in shards ([`Module::parse_shards`]), each shard printing the
    /// run of functions it owns (and the top-level text up to the next shard's first
    /// function), on one thread per shard. The shards' top-level edits must agree.
    pub fn write_shards<W: Write>(shards: &[crate::Shard], w: &mut W) -> io::Result<()> {
        let Some(first) = shards.first() else {
            return Ok(());
        };
        if shards.len() == 1 {
            return first.module.write_to(w);
        }
        // Each shard's part: from its first function's item to the next shard's.
        let item_index = |m: &Module, f: Option<FuncId>| -> Option<usize> {
            let item = m.funcs.get(f?.index())?.item;
            m.order.iter().position(|&i| i == item)
        };
        let mut parts = Vec::with_capacity(shards.len());
        for (k, shard) in shards.iter().enumerate() {
            let m = &shard.module;
            let from = if k == 0 {
                Some(0)
            } else {
                item_index(m, shard.first_function)
            };
            let to = match shards.get(k + 1) {
                Some(next) => item_index(m, next.first_function),
                None => Some(m.order.len()),
            };
            let (Some(from), Some(to)) = (from, to) else {
                return Err(io::Error::other("a shard does not hold its functions"));
            };
            // The source printed before the part: up to the end of the last source item.
            let pos = m.order[..from]
                .iter()
                .filter_map(|&i| m.items.get(i as usize))
                .filter(|item| item.state != ITEM_NEW)
                .map(|item| item.end as usize)
                .max()
                .unwrap_or(0);
            // A shard's new instructions are all in its own part.
            let own = if k == 0 { 0 } else { m.new_text_estimate(1) };
            parts.push((m, from..to, pos, k + 1 == shards.len(), own));
        }
        Self::write_parts(parts, w)
    }

    /// About how many bytes a `share` of the new instructions print as (96 each: room for
    /// the usual 70 costs only address space, as untouched pages are never faulted in, where
    /// growing the buffer copies it).
    fn new_text_estimate(&self, share: usize) -> usize {
        let new_insts = self
            .insts
            .get(self.first_new_inst as usize..)
            .unwrap_or_default()
            .iter()
            .filter(|d| d.flags & NEW != 0)
            .count();
        new_insts.saturating_mul(96) / share.max(1)
    }

    /// A buffer for a part printing `source` bytes of source and its `share` of the new
    /// instructions: sized once, so that the part is never copied to grow. A new instruction
    /// prints as about 70 bytes; room for 96 costs only address space, as untouched pages of
    /// a large buffer are never faulted in.
    fn part_buffer(&self, source: usize, share: usize) -> Vec<u8> {
        Vec::with_capacity(
            source
                .saturating_add(self.new_text_estimate(share))
                .saturating_add(256),
        )
    }

    /// Where to cut `order` into about `parts` parts of equal source size: (item index, the
    /// source offset printed up to before it), from (0, 0) to (order's length, source length).
    /// A part starts at a source item, so that the text before it is the previous part's.
    fn print_splits(&self, parts: usize) -> Vec<(usize, usize)> {
        let mut splits = vec![(0, 0)];
        let step = self.src.len() / parts.max(1) + 1;
        let mut reached = 0;
        for (k, &index) in self.order.iter().enumerate() {
            let Some(item) = self.items.get(index as usize) else {
                continue;
            };
            if item.state == ITEM_NEW {
                continue;
            }
            let cut = step * splits.len();
            if item.start as usize >= cut {
                splits.push((k, reached));
            }
            reached = reached.max(item.end as usize);
        }
        splits.push((self.order.len(), self.src.len()));
        splits
    }

    /// Prints the items `order[items]`, the source being printed up to `pos` before them;
    /// `last`: the part that ends the module (and prints the source after its last item).
    fn write_items<W: Write>(
        &self,
        w: &mut W,
        items: std::ops::Range<usize>,
        pos: usize,
        last: bool,
    ) -> io::Result<()> {
        let patches = self.blockaddress_patches();
        let mut out = Out {
            src: &self.src,
            w,
            pos,
            pending: pos,
            site: 0,
            patches: &patches,
            patch: 0,
        };
        for &index in self.order.get(items).unwrap_or(&[]) {
            let Some(item) = self.items.get(index as usize) else {
                continue;
            };
            match item.state {
                ITEM_REMOVED => out.skip(item.end as usize)?,
                ITEM_NEW => {
                    // A new entity starts a line of its own, even after a source whose last
                    // line has no newline (found by the ir_lower fuzz target: `^0 =!0 = ...`).
                    out.start_line()?;
                    let mut text = Vec::new();
                    match item.kind {
                        crate::module::ItemKind::Function(f) => {
                            text.push(b'\n');
                            self.write_header(f, &mut text);
                            text.push(b'\n');
                        }
                        _ => text.extend_from_slice(item.text.as_deref().unwrap_or(&[])),
                    }
                    out.emit(&text)?;
                }
                _ => match item.kind {
                    crate::module::ItemKind::Function(f) if self.funcs[f.index()].state != 0 => {
                        out.keep(item.start as usize);
                        self.print_function(f, &mut out)?;
                        out.keep(item.end as usize);
                    }
                    _ => out.keep(item.end as usize),
                },
            }
        }
        if last {
            out.keep(self.src.len());
        }
        out.flush()
    }

    fn print_function<W: Write>(&self, f: FuncId, out: &mut Out<'_, W>) -> io::Result<()> {
        let data = &self.funcs[f.index()];
        if data.state & HEADER_EDITED != 0 {
            out.skip(data.header_end as usize)?;
            let mut header = Vec::new();
            self.write_header(f, &mut header);
            out.emit(&header)?;
        } else {
            out.keep(data.header_end as usize);
        }
        if !data.is_def || data.state & (BODY_EDITED | RENUMBER) == 0 {
            return Ok(());
        }
        let names = self.fn_names(f);
        let renumber = data.state & RENUMBER != 0;
        // A removed value that text still names (a debug record, or metadata wrapping a local
        // in an instruction) is printed as `poison`: those texts need the slow path then.
        let removed_defs = data.blocks.iter().any(|&b| {
            self.block_inst_ids(b).iter().any(|&i| {
                let f = self.insts[i.index()].flags;
                f & REMOVED != 0
                    && f & NEW == 0
                    && f & (HAS_DEF | IMPLICIT_NUM) != 0
                    && f & NAMED_IN_TEXT != 0
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
            for &inst in self.block_inst_ids(block) {
                let d = &self.insts[inst.index()];
                if d.flags & NEW != 0 {
                    out.start_line()?;
                    text.clear();
                    text.extend_from_slice(b"  ");
                    self.write_inst(Some(&names), inst, &mut text);
                    text.push(b'\n');
                    out.emit(&text)?;
                    continue;
                }
                // Debug records and comments before the instruction belong to it; they
                // stay when it is removed, as LLVM moves a removed instruction's records on.
                let lead_end = if d.flags & REMOVED != 0 {
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
                if d.flags & REMOVED != 0 {
                    out.skip(d.end as usize)?;
                } else if !renumber
                    && d.flags & OPS_EDITED == 0
                    && !(removed_defs && self.has_metadata_operand(inst))
                {
                    // No name changed and no operand was replaced: the source text is exact.
                    out.keep(d.end as usize);
                } else {
                    if d.flags & HAS_DEF != 0 {
                        // Definitions are not among the recorded sites: the name comes first.
                        let mut name = Vec::new();
                        self.write_local(Some(&names), Value::Inst(inst), &mut name);
                        self.replace_token(d.start as usize, &name, out)?;
                    }
                    self.subst_region(&names, Some(inst), d.end as usize, out)?;
                }
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
        if d.flags & OPS_EDITED == 0 {
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

    fn name_tables(&self, f: FuncId) -> NameTables {
        let mut names = NameTables {
            numbered: Vec::new(),
            named: FxHashMap::default(),
            numbers: FxHashMap::default(),
        };
        let mut next = 0u32;
        // Numbers keep the gaps the text has (`%2` then `%5`), and those a removal leaves,
        // unless the function is renumbered (a value after a removed one takes its number
        // silently): from the first removed value on they are then consecutive.
        let renumber = self.funcs[f.index()].state & RENUMBER != 0;
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
                if d.flags & NEW != 0 {
                    continue;
                }
                let live = d.flags & REMOVED == 0;
                if d.flags & HAS_DEF != 0 {
                    let (raw, numbered) = self.def_token(d.start);
                    def(raw, numbered, Value::Inst(inst), live);
                } else if d.flags & IMPLICIT_NUM != 0 {
                    def(&[], true, Value::Inst(inst), live);
                }
            }
        }
    }

    /// The `blockaddress(@f, %N)` constants kept as text whose block `%N` has another number
    /// now that `@f` was renumbered: (start, end, new text), by start. Empty, at the cost of
    /// a look at each function's state, when no function was renumbered.
    fn blockaddress_patches(&self) -> Vec<(u32, u32, Vec<u8>)> {
        if !self.funcs.iter().any(|f| f.state & RENUMBER != 0) {
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
    fn renumbered_blockaddress(
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
        if self.funcs.get(f.index())?.state & RENUMBER == 0
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

    // ---- LLVM-style printing of values, constants, instructions, headers ----------------

    /// The type of a local or global value (constants carry theirs in the operand).
    pub(crate) fn value_type(&self, value: Value) -> Option<TypeId> {
        match value {
            Value::Inst(i) => self.insts.get(i.index()).map(|d| d.ty),
            Value::Arg(a) => self.args.get(a.index()).map(|d| d.ty),
            Value::Block(_) => Some(TypeId::LABEL),
            Value::Global(g) => self.globals.get(g.index()).map(|g| g.ptr_ty),
            Value::Const(_) => None,
            Value::Metadata(_) => Some(TypeId::METADATA),
        }
    }

    /// Writes `%name` / `%N` for a local value.
    pub(crate) fn write_local(&self, names: Option<&FnNames>, value: Value, out: &mut Vec<u8>) {
        let (raw, numbered): (&[u8], bool) = match value {
            Value::Inst(i) => {
                // Only instructions made by edits have new names.
                let new = self
                    .insts
                    .get(i.index())
                    .is_some_and(|d| d.flags & NEW != 0);
                if let Some((name, quoted)) = new.then(|| self.new_names.get_spelled(&i)).flatten()
                {
                    if quoted {
                        write_name(b'%', name, false, out);
                    } else {
                        out.push(b'%');
                        out.extend_from_slice(name);
                    }
                    return;
                }
                let d = &self.insts[i.index()];
                if d.flags & HAS_DEF != 0 {
                    self.def_token(d.start)
                } else {
                    (&[], true)
                }
            }
            Value::Arg(a) => {
                let d = &self.args[a.index()];
                let raw = text_of(&self.src, d.name);
                (raw, d.numbered || raw.is_empty())
            }
            Value::Block(b) => {
                if let Some(name) = self.new_block_name(b) {
                    write_name(b'%', name, false, out);
                    return;
                }
                let d = &self.blocks[b.index()];
                let raw = text_of(&self.src, d.label);
                (raw, d.numbered || raw.is_empty())
            }
            _ => (&[], false),
        };
        if numbered {
            if !raw.is_empty() && !self.renumbered(value) {
                // Nothing in the function was renumbered: the number is the one written.
                if let NameKey::Numbered(n) = name_key(raw, true) {
                    out.push(b'%');
                    push_u64(out, u64::from(n));
                    return;
                }
            }
            let number = names
                .and_then(|n| n.number(self, value))
                .or_else(|| self.source_number(value));
            match number {
                Some(n) => {
                    out.push(b'%');
                    push_u64(out, u64::from(n));
                }
                None => out.extend_from_slice(b"poison"),
            }
            return;
        }
        if let [b'%', first, ..] = raw {
            if *first != b'"' {
                // A bare name in the source is spelled as LLVM prints it.
                out.extend_from_slice(raw);
                return;
            }
        }
        match name_key(raw, false) {
            NameKey::Named(name) => write_name(b'%', &name, false, out),
            NameKey::Numbered(n) => {
                out.push(b'%');
                push_u64(out, u64::from(n));
            }
        }
    }

    /// Whether the function that defines a local value was renumbered.
    fn renumbered(&self, value: Value) -> bool {
        let f = match value {
            Value::Inst(i) => self
                .insts
                .get(i.index())
                .and_then(|d| self.blocks.get(d.block as usize))
                .map(|b| b.func),
            Value::Arg(a) => self.args.get(a.index()).map(|d| d.func),
            Value::Block(b) => self.blocks.get(b.index()).map(|d| d.func),
            _ => None,
        };
        f.and_then(|f| self.funcs.get(f.index()))
            .is_none_or(|d| d.state & RENUMBER != 0)
    }

    /// The number a numbered value has when nothing was renumbered.
    fn source_number(&self, value: Value) -> Option<u32> {
        let f = match value {
            Value::Inst(i) => {
                self.blocks
                    .get(self.insts.get(i.index())?.block as usize)?
                    .func
            }
            Value::Arg(a) => {
                // Parameters come first: a numbered one's number is one past the previous
                // numbered one's, or as written (numbers may skip: `%0, %10`).
                let f = self.args.get(a.index())?.func;
                let (start, _) = self.funcs[f.index()].params;
                let mut next = 0u32;
                for i in start..=a.0 {
                    let arg = &self.args[i as usize];
                    if !(arg.numbered || arg.name.is_none()) {
                        continue;
                    }
                    if let NameKey::Numbered(n) = name_key(text_of(&self.src, arg.name), true) {
                        if !arg.name.is_none() {
                            next = next.max(n);
                        }
                    }
                    if i == a.0 {
                        return Some(next);
                    }
                    next += 1;
                }
                return None;
            }
            Value::Block(b) => self.blocks.get(b.index())?.func,
            _ => return None,
        };
        self.fn_names(f).number(self, value)
    }

    /// Writes a value without its type.
    pub(crate) fn write_value(&self, names: Option<&FnNames>, op: Operand, out: &mut Vec<u8>) {
        match op.value {
            Value::Inst(i) if self.insts[i.index()].flags & REMOVED != 0 => {
                out.extend_from_slice(b"poison")
            }
            Value::Inst(_) | Value::Arg(_) | Value::Block(_) => {
                self.write_local(names, op.value, out)
            }
            Value::Global(g) => {
                let data = &self.globals[g.index()];
                write_name(b'@', &data.name, data.numbered, out);
            }
            Value::Const(c) => self.write_const(names, op.ty, c, out),
            Value::Metadata(md) => {
                let node = self.md_data(md);
                if let Some(node) =
                    node.filter(|n| n.number == crate::inst::NONE && n.kind == MdKindData::Value)
                {
                    if let Some(crate::md_data::MdOp::Value(inner)) =
                        self.md.ops.get(node.ops as usize)
                    {
                        self.write_typed(names, inner.get(), out);
                    }
                } else {
                    self.write_md_ref(md, out);
                }
            }
        }
    }

    /// Writes `type value`.
    pub(crate) fn write_typed(&self, names: Option<&FnNames>, op: Operand, out: &mut Vec<u8>) {
        self.types.write(op.ty, out);
        out.push(b' ');
        self.write_value(names, op, out);
    }

    fn write_const(
        &self,
        names: Option<&FnNames>,
        ty: TypeId,
        c: crate::value::ConstId,
        out: &mut Vec<u8>,
    ) {
        let data = self.const_data(c);
        if data.start != crate::inst::NONE {
            if data.kind == ConstKind::Opaque {
                if let Some(text) = self.renumbered_blockaddress(data.start, data.end, None) {
                    out.extend_from_slice(&text);
                    return;
                }
            }
            out.extend_from_slice(
                self.src
                    .get(data.start as usize..data.end as usize)
                    .unwrap_or(&[]),
            );
            return;
        }
        let list = |out: &mut Vec<u8>, ops: &[crate::value::PackedOp]| {
            for (i, op) in ops.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                self.write_typed(names, op.get(), out);
            }
        };
        match data.kind {
            ConstKind::Int(v) => {
                if ty == TypeId::I1 {
                    out.extend_from_slice(if v != 0 { b"true" } else { b"false" });
                } else {
                    push_i64(out, v);
                }
            }
            ConstKind::F64(bits) => write_f64(f64::from_bits(bits), out),
            ConstKind::Null => out.extend_from_slice(b"null"),
            ConstKind::Undef => out.extend_from_slice(b"undef"),
            ConstKind::Poison => out.extend_from_slice(b"poison"),
            ConstKind::Zero => out.extend_from_slice(b"zeroinitializer"),
            ConstKind::NoneToken => out.extend_from_slice(b"none"),
            ConstKind::Struct { packed, .. } => {
                let ops = self.const_ops(c);
                out.extend_from_slice(if packed { b"<{ " } else { b"{ " });
                list(out, ops);
                out.extend_from_slice(if packed { b" }>" } else { b" }" });
            }
            ConstKind::Array { .. } => {
                out.push(b'[');
                list(out, self.const_ops(c));
                out.push(b']');
            }
            ConstKind::Vector { .. } => {
                out.push(b'<');
                list(out, self.const_ops(c));
                out.push(b'>');
            }
            ConstKind::Expr {
                opcode,
                ty: expr_ty,
                inbounds,
                ..
            } => {
                let ops = self.const_ops(c);
                out.extend_from_slice(opcode.keyword().as_bytes());
                if opcode == Opcode::GetElementPtr {
                    if inbounds {
                        out.extend_from_slice(b" inbounds");
                    }
                    out.extend_from_slice(b" (");
                    self.types.write(expr_ty, out);
                    for op in ops {
                        out.extend_from_slice(b", ");
                        self.write_typed(names, op.get(), out);
                    }
                    out.push(b')');
                } else if opcode.is_cast() {
                    out.extend_from_slice(b" (");
                    if let Some(op) = ops.first() {
                        self.write_typed(names, op.get(), out);
                    }
                    out.extend_from_slice(b" to ");
                    self.types.write(expr_ty, out);
                    out.push(b')');
                } else {
                    out.extend_from_slice(b" (");
                    list(out, ops);
                    out.push(b')');
                }
            }
            ConstKind::Splat(_) => {
                out.extend_from_slice(b"splat (");
                list(out, self.const_ops(c));
                out.push(b')');
            }
            ConstKind::NewBytes(i) => {
                out.extend_from_slice(b"c\"");
                crate::lexer::escape_into(
                    self.byte_strings.get(i as usize).map_or(&[][..], |b| b),
                    out,
                );
                out.push(b'"');
            }
            ConstKind::BigInt | ConstKind::FloatText | ConstKind::CString | ConstKind::Opaque => {
                out.extend_from_slice(b"poison")
            }
        }
    }

    fn write_attrs(&self, attrs: &[Attr], out: &mut Vec<u8>) {
        for attr in attrs {
            self.write_attr(*attr, out);
            out.push(b' ');
        }
    }

    /// Writes one attribute as LLVM does.
    pub(crate) fn write_attr(&self, attr: Attr, out: &mut Vec<u8>) {
        let typed = |name: &str, ty: TypeId, out: &mut Vec<u8>| {
            out.extend_from_slice(name.as_bytes());
            out.push(b'(');
            self.types.write(ty, out);
            out.push(b')');
        };
        match attr {
            Attr::Align(n) => push_fmt(out, format_args!("align {n}")),
            Attr::Dereferenceable(n) => push_fmt(out, format_args!("dereferenceable({n})")),
            Attr::DereferenceableOrNull(n) => {
                push_fmt(out, format_args!("dereferenceable_or_null({n})"))
            }
            Attr::ByVal(t) => typed("byval", t, out),
            Attr::ByRef(t) => typed("byref", t, out),
            Attr::SRet(t) => typed("sret", t, out),
            Attr::InAlloca(t) => typed("inalloca", t, out),
            Attr::Preallocated(t) => typed("preallocated", t, out),
            Attr::ElementType(t) => typed("elementtype", t, out),
            Attr::Other(text) => out.extend_from_slice(self.text(text)),
            flag => {
                if let Some((_, name)) = crate::inst::FLAG_ATTRS.iter().find(|(a, _)| *a == flag) {
                    out.extend_from_slice(name.as_bytes());
                }
            }
        }
    }

    /// Writes a function's header as LLVM does: `define ... {` or `declare ...`.
    pub(crate) fn write_header(&self, f: FuncId, out: &mut Vec<u8>) {
        let data = &self.funcs[f.index()];
        out.extend_from_slice(if data.is_def { b"define " } else { b"declare " });
        let prefix = self.text(data.prefix);
        if !prefix.is_empty() {
            out.extend_from_slice(prefix);
            out.push(b' ');
        } else {
            if !data.cconv.is_none() {
                out.extend_from_slice(self.text(data.cconv));
                out.push(b' ');
            }
            self.write_attrs(self.attr_range(data.ret_attrs), out);
        }
        let (ret, _, vararg) =
            self.types
                .function_parts(data.fn_ty)
                .unwrap_or((TypeId::VOID, &[], false));
        self.types.write(ret, out);
        out.push(b' ');
        let g = &self.globals[data.global.index()];
        write_name(b'@', &g.name, g.numbered, out);
        out.push(b'(');
        let (start, len) = data.params;
        for i in start..start + len {
            if i > start {
                out.extend_from_slice(b", ");
            }
            let arg = &self.args[i as usize];
            self.types.write(arg.ty, out);
            for attr in self.attr_range(arg.attrs) {
                out.push(b' ');
                self.write_attr(*attr, out);
            }
            if data.is_def {
                out.push(b' ');
                self.write_local(None, Value::Arg(crate::value::ArgId(i)), out);
            } else if !arg.name.is_none() {
                out.push(b' ');
                out.extend_from_slice(self.text(arg.name));
            }
        }
        if vararg {
            if len > 0 {
                out.extend_from_slice(b", ");
            }
            out.extend_from_slice(b"...");
        }
        out.push(b')');
        let suffix = self.text(data.suffix);
        if !suffix.is_empty() {
            out.push(b' ');
            out.extend_from_slice(suffix);
        }
        if data.is_def {
            out.extend_from_slice(b" {");
        }
    }

    /// Writes an instruction made by an edit (or any instruction, from its fields).
    pub(crate) fn write_inst(&self, names: Option<&FnNames>, inst: InstId, out: &mut Vec<u8>) {
        let d: InstData = self.insts[inst.index()];
        // Most instructions have a few operands: unpack those on the stack.
        let packed = self.inst_ops(inst);
        let mut small = [Operand {
            ty: TypeId::VOID,
            value: Value::Const(crate::value::ConstId(0)),
        }; 8];
        let heap: Vec<Operand>;
        let ops: &[Operand] = if packed.len() <= small.len() {
            for (slot, op) in small.iter_mut().zip(packed) {
                *slot = op.get();
            }
            &small[..packed.len()]
        } else {
            heap = packed.iter().map(|o| o.get()).collect();
            &heap
        };
        let typed = |i: usize, out: &mut Vec<u8>| {
            if let Some(&op) = ops.get(i) {
                self.write_typed(names, op, out);
            }
        };
        let value = |i: usize, out: &mut Vec<u8>| {
            if let Some(&op) = ops.get(i) {
                self.write_value(names, op, out);
            }
        };
        if d.ty != TypeId::VOID {
            self.write_local(names, Value::Inst(inst), out);
            out.extend_from_slice(b" = ");
        }
        let opcode = d.opcode;
        match opcode {
            Opcode::Call => {
                let Some(call) = self.calls.get(d.extra as usize) else {
                    return;
                };
                if !call.tail.is_none() {
                    out.extend_from_slice(self.text(call.tail));
                    out.push(b' ');
                }
                out.extend_from_slice(b"call ");
                if !call.cconv.is_none() {
                    out.extend_from_slice(self.text(call.cconv));
                    out.push(b' ');
                }
                self.write_attrs(self.attr_range(call.ret_attrs), out);
                let (ret, _, vararg) =
                    self.types
                        .function_parts(call.fn_ty)
                        .unwrap_or((TypeId::VOID, &[], false));
                // The short form names only the return type, unless the callee is varargs.
                self.types.write(if vararg { call.fn_ty } else { ret }, out);
                out.push(b' ');
                value(0, out);
                out.push(b'(');
                for i in 0..call.nargs as usize {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    let Some(&op) = ops.get(i + 1) else { break };
                    self.types.write(op.ty, out);
                    out.push(b' ');
                    let set = self
                        .attr_sets
                        .get(call.arg_attrs as usize + i)
                        .copied()
                        .unwrap_or((0, 0));
                    self.write_attrs(self.attr_range(set), out);
                    self.write_value(names, op, out);
                }
                out.push(b')');
                if !call.fn_attrs.is_none() {
                    out.push(b' ');
                    out.extend_from_slice(self.text(call.fn_attrs));
                }
                if !call.bundles.is_none() {
                    out.push(b' ');
                    out.extend_from_slice(self.text(call.bundles));
                }
            }
            Opcode::Alloca => {
                out.extend_from_slice(b"alloca ");
                self.types.write(TypeId(d.extra), out);
                if !ops.is_empty() {
                    out.extend_from_slice(b", ");
                    typed(0, out);
                }
                write_align(d.aux, out);
                if let Some(addrspace) = self.types.ptr_addrspace(d.ty) {
                    if addrspace != 0 {
                        push_fmt(out, format_args!(", addrspace({addrspace})"));
                    }
                }
            }
            Opcode::Load => {
                out.extend_from_slice(b"load ");
                self.types.write(d.ty, out);
                out.extend_from_slice(b", ");
                typed(0, out);
                write_align(d.aux, out);
            }
            Opcode::Store => {
                out.extend_from_slice(b"store ");
                typed(0, out);
                out.extend_from_slice(b", ");
                typed(1, out);
                write_align(d.aux, out);
            }
            Opcode::GetElementPtr => {
                out.extend_from_slice(b"getelementptr ");
                if d.aux & crate::inst::GEP_INBOUNDS != 0 {
                    out.extend_from_slice(b"inbounds ");
                }
                self.types.write(TypeId(d.extra), out);
                for i in 0..ops.len() {
                    out.extend_from_slice(b", ");
                    typed(i, out);
                }
            }
            Opcode::Ret => {
                out.extend_from_slice(b"ret ");
                if ops.is_empty() {
                    out.extend_from_slice(b"void");
                } else {
                    typed(0, out);
                }
            }
            Opcode::Br => {
                out.extend_from_slice(b"br ");
                for i in 0..ops.len() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    typed(i, out);
                }
            }
            Opcode::ICmp | Opcode::FCmp => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                out.extend_from_slice(crate::inst::Predicate(d.aux).keyword().as_bytes());
                out.push(b' ');
                typed(0, out);
                out.extend_from_slice(b", ");
                value(1, out);
            }
            Opcode::AtomicRmw => {
                out.extend_from_slice(b"atomicrmw ");
                out.extend_from_slice(
                    crate::inst::RMW_OPS
                        .get(d.aux as usize)
                        .unwrap_or(&"add")
                        .as_bytes(),
                );
                out.push(b' ');
                typed(0, out);
                out.extend_from_slice(b", ");
                typed(1, out);
                out.push(b' ');
                out.extend_from_slice(
                    ORDERINGS
                        .get(d.extra as usize)
                        .unwrap_or(&"seq_cst")
                        .as_bytes(),
                );
            }
            Opcode::ExtractValue | Opcode::InsertValue => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                for i in 0..ops.len() {
                    if i > 0 {
                        out.extend_from_slice(b", ");
                    }
                    typed(i, out);
                }
                for index in self.index_list(d.extra) {
                    push_fmt(out, format_args!(", {index}"));
                }
            }
            Opcode::Phi => {
                out.extend_from_slice(b"phi ");
                self.types.write(d.ty, out);
                for (i, pair) in ops.chunks(2).enumerate() {
                    out.extend_from_slice(if i == 0 { b" [ " } else { b", [ " });
                    if let [v, b] = pair {
                        self.write_value(names, *v, out);
                        out.extend_from_slice(b", ");
                        self.write_value(names, *b, out);
                    }
                    out.extend_from_slice(b" ]");
                }
            }
            _ if opcode.is_cast() => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                typed(0, out);
                out.extend_from_slice(b" to ");
                self.types.write(d.ty, out);
            }
            _ if opcode.is_binary() => {
                out.extend_from_slice(opcode.keyword().as_bytes());
                out.push(b' ');
                typed(0, out);
                out.extend_from_slice(b", ");
                value(1, out);
            }
            _ => {
                // select, freeze, fneg, extractelement, insertelement, shufflevector, va_arg,
                // unreachable, resume: keyword then typed operands.
                out.extend_from_slice(opcode.keyword().as_bytes());
                for i in 0..ops.len() {
                    out.extend_from_slice(if i == 0 { b" " } else { b", " });
                    typed(i, out);
                }
                if opcode == Opcode::VAArg {
                    out.extend_from_slice(b", ");
                    self.types.write(d.ty, out);
                }
            }
        }
        let attachments = self
            .md_attach
            .get(d.md as usize..d.md as usize + d.md_len as usize)
            .unwrap_or(&[]);
        for &(kind, md) in attachments {
            out.extend_from_slice(b", !");
            out.extend_from_slice(self.md.kinds.get(kind as usize).map_or(&[][..], |k| k));
            out.push(b' ');
            self.write_value(
                names,
                Operand {
                    ty: TypeId::METADATA,
                    value: Value::Metadata(md),
                },
                out,
            );
        }
    }

    pub(crate) fn index_list(&self, at: u32) -> &[u32] {
        let at = at as usize;
        let count = self.index_lists.get(at).copied().unwrap_or(0) as usize;
        self.index_lists.get(at + 1..at + 1 + count).unwrap_or(&[])
    }
}

impl FnNames {
    fn tables(&self, m: &Module) -> &NameTables {
        self.tables.get_or_init(|| m.name_tables(self.func))
    }

    fn number(&self, m: &Module, value: Value) -> Option<u32> {
        self.tables(m).numbers.get(&value).copied()
    }

    fn lookup(&self, m: &Module, raw: &[u8], numbered: bool) -> Option<Value> {
        let tables = self.tables(m);
        match name_key(raw, numbered) {
            NameKey::Numbered(n) => tables
                .numbered
                .get(n as usize)
                .copied()
                .filter(|&v| v != NUMBER_GAP),
            NameKey::Named(name) => tables.named.get(&*name).copied(),
        }
    }
}

/// Atomic orderings, in the order `Ordering` lists them.
pub(crate) const ORDERINGS: [&str; 6] = [
    "unordered",
    "monotonic",
    "acquire",
    "release",
    "acq_rel",
    "seq_cst",
];

fn write_align(aux: u8, out: &mut Vec<u8>) {
    if aux > 0 && aux <= 64 {
        out.extend_from_slice(b", align ");
        push_u64(out, 1u64 << (aux - 1));
    }
}
