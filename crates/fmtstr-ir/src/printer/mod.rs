//! The printer: source spans for what no edit touched, LLVM's style for the rest.
//!
//! Input: a module, edited or not. Output: its text, byte-identical to the source wherever
//! no edit reached; on several threads for a large edited module, or a shard's part of it.
//!
//! Output is produced as a sequence of "keep source up to here" and "write these bytes"
//! steps; consecutive kept spans are written with one call, so printing an untouched module
//! is one `write_all` of its text. In a function an edit touched, three things can differ from
//! the source: new instructions (printed from their fields), removed ones (skipped), and the
//! names of local values (renumbered after a removal, or replaced by `replace_all_uses`).
//! Names are rewritten at the exact token offsets the parser recorded as value references
//! ([`Module::sites`]), which is what keeps `%struct.T` type names and comments intact.
//!
//! Here: the output, the module's items in order, and the parallel printing of a large
//! module. `functions` prints a function an edit touched, `llvm_style` what has no source
//! text (new instructions, constants, headers, renamed values). They import from here and
//! one from the other; this file imports none of them.

mod functions;
mod llvm_style;

use std::io::{self, Write};

use crate::hash::FxHashMap;
use crate::inst::InstFlags;
use crate::lexer::{name_key, NameKey};
use crate::module::{FuncState, ItemState, Module};
use crate::value::{FuncId, Value, NUMBER_GAP};

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

    /// Writes the pieces in batches of one vectored write each: spans of the source go from
    /// the mapped input to the file without a copy into a buffer first (with `write_all`, a
    /// `BufWriter` copied every span shorter than its capacity: 27 MB of a 42 MB output).
    fn write_to<W: Write>(&self, w: &mut W) -> io::Result<()> {
        const BATCH: usize = 512;
        let mut slices: Vec<io::IoSlice<'_>> = Vec::with_capacity(BATCH);
        for batch in self.pieces.chunks(BATCH) {
            slices.clear();
            slices.extend(batch.iter().map(|&(from_source, start, end)| {
                let text = if from_source { self.src } else { &self.own };
                io::IoSlice::new(&text[start..end])
            }));
            write_all_vectored(w, &mut slices)?;
        }
        Ok(())
    }
}

/// A [`Rope`] written out whenever it holds [`Streamed::PIECES`] pieces or
/// [`Streamed::OWN`] bytes of its own: the part printed on the calling thread goes to the
/// file as it is printed, in vectored writes, and never all held in memory.
struct Streamed<'s, 'w, W: Write> {
    rope: Rope<'s>,
    w: &'w mut W,
}

impl<W: Write> Streamed<'_, '_, W> {
    const PIECES: usize = 1024;
    const OWN: usize = 256 << 10;

    fn drain(&mut self) -> io::Result<()> {
        self.rope.write_to(self.w)?;
        self.rope.pieces.clear();
        self.rope.own.clear();
        Ok(())
    }
}

impl<W: Write> Write for Streamed<'_, '_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.rope.write(buf)?;
        if self.rope.pieces.len() >= Self::PIECES || self.rope.own.len() >= Self::OWN {
            self.drain()?;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.drain()?;
        self.w.flush()
    }
}

/// `Write::write_all_vectored`, which is not stable: writes every byte of `slices`.
fn write_all_vectored<W: Write>(w: &mut W, mut slices: &mut [io::IoSlice<'_>]) -> io::Result<()> {
    io::IoSlice::advance_slices(&mut slices, 0);
    while !slices.is_empty() {
        match w.write_vectored(slices) {
            Ok(0) => return Err(io::ErrorKind::WriteZero.into()),
            Ok(n) => io::IoSlice::advance_slices(&mut slices, n),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
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
        if self.needs_line_break() {
            self.emit(b"\n")?;
        }
        Ok(())
    }

    /// [`Out::start_line`] for a caller that writes the new line itself: keeps the rest of
    /// the current source line when only blanks remain on it, and says whether the new line
    /// must start with a line break.
    fn needs_line_break(&mut self) -> bool {
        if self.pos == 0 || self.src.get(self.pos - 1) == Some(&b'\n') {
            return false;
        }
        let rest = self.src.get(self.pos..).unwrap_or(&[]);
        match rest
            .iter()
            .position(|&b| b != b' ' && b != b'\t' && b != b'\r')
        {
            Some(i) if rest[i] == b'\n' => {
                self.keep(self.pos + i + 1);
                false
            }
            _ => true,
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
    /// up) is printed in pieces on several threads, each written in order as soon as it and
    /// those before it are printed.
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

    /// Writes consecutive parts of modules' text, cut into pieces of about
    /// [`PIECE_BYTES`] of source each: the threads print the pieces in order, each into a
    /// [`Rope`], and this thread writes each as soon as it and those before it are printed,
    /// printing pieces itself while the next to write is not ready. Writing (the kernel
    /// copying the text into the page cache) is then shared out like printing, where one part
    /// per thread left every part but the first to be written after all were printed; and a
    /// thread prints at most [`PIECES_AHEAD`] pieces past the last written, so that the text
    /// held at once stays bounded.
    fn write_parts<W: Write>(parts: Vec<Part<'_>>, w: &mut W) -> io::Result<()> {
        let pieces: Vec<Part<'_>> = parts.into_iter().flat_map(cut_part).collect();
        if let [(m, items, pos, last, own)] = &pieces[..] {
            let mut out = Streamed {
                rope: Rope::new(&m.src, (*own).min(Streamed::<W>::OWN)),
                w: &mut *w,
            };
            m.write_items(&mut out, items.clone(), *pos, *last)?;
            return out.drain();
        }
        let queue = PieceQueue::new(pieces.len());
        let print = |k: usize| {
            let (m, items, pos, last, own) = pieces[k].clone();
            let mut rope = Rope::new(&m.src, own);
            // Printing into a rope cannot fail.
            let _ = m.write_items(&mut rope, items, pos, last);
            rope
        };
        let helpers = crate::parallel::default_threads().min(pieces.len()) - 1;
        std::thread::scope(|scope| {
            for _ in 0..helpers {
                scope.spawn(|| {
                    while let Some(k) = queue.claim(true) {
                        let printed =
                            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| print(k)));
                        queue.put(k, printed);
                    }
                });
            }
            // However this thread leaves (a failed write, a panic), the helpers stop at their
            // next piece.
            let _stop = StopOnDrop(&queue);
            for next in 0..pieces.len() {
                let rope = loop {
                    if let Some(printed) = queue.take(next) {
                        break printed.unwrap_or_else(|e| std::panic::resume_unwind(e));
                    }
                    match queue.claim(false) {
                        Some(k) => queue.put(k, Ok(print(k))),
                        None => queue.wait_for(next),
                    }
                };
                rope.write_to(w)?;
                queue.written(next + 1);
            }
            Ok(())
        })
    }

    fn print_in_parallel(&self, threads: usize) -> bool {
        threads > 1
            && self.src.len() >= crate::parallel::MIN_PARALLEL
            && self.funcs.iter().any(|f| {
                f.state
                    .intersects(FuncState::BODY_EDITED | FuncState::RENUMBER)
            })
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
                .filter(|item| item.state != ItemState::New)
                .map(|item| item.end as usize)
                .max()
                .unwrap_or(0);
            // A shard's new instructions are all in its own part.
            let own = m.new_text_estimate(1);
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
            .filter(|d| d.flags.contains(InstFlags::NEW))
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
            if item.state == ItemState::New {
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
                ItemState::Removed => out.skip(item.end as usize)?,
                ItemState::New => {
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
                ItemState::Source => match item.kind {
                    crate::module::ItemKind::Function(f)
                        if !self.funcs[f.index()].state.is_empty() =>
                    {
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

/// Source bytes per piece of [`Module::write_parts`]: fifty pieces in a module of 50 MB,
/// each printed in about a millisecond (2 MiB pieces measured the same or slower).
const PIECE_BYTES: usize = 1 << 20;

/// Pieces a thread of [`Module::write_parts`] may print past the last one written.
const PIECES_AHEAD: usize = 4;

/// `part` cut at source items into pieces of about [`PIECE_BYTES`] of source each (at
/// least one), each with its share of the part's own bytes.
fn cut_part(part: Part<'_>) -> Vec<Part<'_>> {
    let (m, items, pos, last, own) = part;
    let mut cuts = vec![(items.start, pos)];
    let mut reached = pos;
    for k in items.clone() {
        let Some(item) = m.order.get(k).and_then(|&i| m.items.get(i as usize)) else {
            continue;
        };
        if item.state == ItemState::New {
            continue;
        }
        let piece_start = cuts.last().map_or(pos, |&(_, at)| at);
        if k > items.start && item.start as usize >= piece_start + PIECE_BYTES {
            cuts.push((k, reached));
        }
        reached = reached.max(item.end as usize);
    }
    let share = own / cuts.len();
    let n = cuts.len();
    (0..n)
        .map(|i| {
            let (from, at) = cuts[i];
            let to = cuts.get(i + 1).map_or(items.end, |&(to, _)| to);
            (m, from..to, at, last && i + 1 == n, share)
        })
        .collect()
}

type Printed<'s> = std::thread::Result<Rope<'s>>;

/// The pieces of [`Module::write_parts`]: which is the next to print, which are printed and
/// not yet written, and how far the writing is.
struct PieceQueue<'s> {
    state: std::sync::Mutex<QueueState<'s>>,
    changed: std::sync::Condvar,
}

struct QueueState<'s> {
    next: usize,
    written: usize,
    stopped: bool,
    printed: Vec<Option<Printed<'s>>>,
}

/// Stops a [`PieceQueue`] when dropped.
struct StopOnDrop<'q, 's>(&'q PieceQueue<'s>);

impl Drop for StopOnDrop<'_, '_> {
    fn drop(&mut self) {
        self.0.stop();
    }
}

impl<'s> PieceQueue<'s> {
    fn new(pieces: usize) -> Self {
        PieceQueue {
            state: std::sync::Mutex::new(QueueState {
                next: 0,
                written: 0,
                stopped: false,
                printed: (0..pieces).map(|_| None).collect(),
            }),
            changed: std::sync::Condvar::new(),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, QueueState<'s>> {
        // A panic while the lock is held leaves nothing half done.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The next piece to print: `None` when all are claimed or the writing stopped. A helper
    /// (`wait`) waits while it would be more than [`PIECES_AHEAD`] past the writing.
    fn claim(&self, wait: bool) -> Option<usize> {
        let mut state = self.lock();
        loop {
            if state.stopped || state.next >= state.printed.len() {
                return None;
            }
            if !wait || state.next < state.written + PIECES_AHEAD {
                state.next += 1;
                return Some(state.next - 1);
            }
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    fn put(&self, k: usize, printed: Printed<'s>) {
        self.lock().printed[k] = Some(printed);
        self.changed.notify_all();
    }

    fn take(&self, k: usize) -> Option<Printed<'s>> {
        self.lock().printed.get_mut(k)?.take()
    }

    /// Waits until piece `k`, claimed by another thread, is printed.
    fn wait_for(&self, k: usize) {
        let mut state = self.lock();
        while state.printed.get(k).is_some_and(Option::is_none) {
            state = self
                .changed
                .wait(state)
                .unwrap_or_else(std::sync::PoisonError::into_inner);
        }
    }

    fn written(&self, pieces: usize) {
        self.lock().written = pieces;
        self.changed.notify_all();
    }

    fn stop(&self) {
        self.lock().stopped = true;
        self.changed.notify_all();
    }
}
