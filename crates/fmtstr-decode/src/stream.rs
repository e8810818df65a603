//! Decoding a whole buffer in windows: entry-aligned pieces of the written area, rendered on
//! one thread or several and handed back in buffer order, so that memory stays bounded by the
//! windows in flight whatever the buffer's size.

use std::collections::BTreeMap;
use std::ops::Range;
use std::sync::mpsc;

use crate::batch::Batch;
use crate::buffer::{Buffer, Entries};
use crate::decoder::{Decoder, Problem, ProblemKind};
use crate::formats::Formats;

/// How a buffer is cut and spread over threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// Threads that render (1: everything on the calling thread).
    pub jobs: usize,
    /// Dwords of buffer per window (at least one entry is always taken).
    pub window_dwords: u64,
    /// Windows rendered but not yet handed back, at most (memory is bounded by this many
    /// windows' output); at least `jobs`.
    pub in_flight: usize,
    /// With [`run_bounded`]: the most text a window may print by its formats' bounds, so that
    /// entries printing far more than their size (`%65536d`) make smaller windows.
    pub window_bytes: u64,
}

impl Options {
    /// `jobs` threads, windows sized for the buffer: small enough that every thread gets
    /// several, at most 64 Ki dwords (256 KiB of buffer).
    pub fn for_buffer(buffer: &Buffer<'_>, jobs: usize) -> Options {
        let jobs = jobs.max(1);
        let per_thread = buffer.end() / (jobs as u64 * 8);
        Options {
            jobs,
            window_dwords: per_thread.clamp(1 << 12, 1 << 16),
            in_flight: 2 * jobs,
            window_bytes: 4 << 20,
        }
    }
}

/// Entry-aligned windows over the written area, found by walking entry headers. The last
/// window runs to the end of the written area when the walk stops early, so that decoding it
/// meets the same [`crate::Stop`].
#[derive(Clone, Debug)]
pub struct Windows<'a> {
    entries: Entries<'a>,
    end: u64,
    target: u64,
    /// The formats whose text bounds also cut windows, and the most bytes per window.
    bound: Option<(&'a Formats, u64)>,
    /// A direct-mapped cache of (ID, text bound).
    bounds: Vec<(u64, u64)>,
    done: bool,
}

impl<'a> Windows<'a> {
    /// Windows of about `window_dwords` dwords.
    pub fn new(buffer: &Buffer<'a>, window_dwords: u64) -> Windows<'a> {
        Windows {
            entries: buffer.entries(),
            end: buffer.end(),
            target: window_dwords.max(1),
            bound: None,
            bounds: Vec::new(),
            done: false,
        }
    }

    /// Windows of about `window_dwords` dwords that also end once their entries could print
    /// `window_bytes` ([`Compiled::text_bound`](crate::Compiled::text_bound); a marker line for
    /// an entry without a usable format).
    pub fn bounded(
        buffer: &Buffer<'a>,
        window_dwords: u64,
        formats: &'a Formats,
        window_bytes: u64,
    ) -> Windows<'a> {
        Windows {
            bound: Some((formats, window_bytes.max(1))),
            // Slot 0 holds ID 0, whose bound is a marker's, like any ID no table has.
            bounds: vec![(0, MARKER_BOUND); BOUND_SLOTS],
            ..Windows::new(buffer, window_dwords)
        }
    }

    /// The most an entry with this ID prints.
    #[inline]
    fn bound_of(&mut self, formats: &Formats, id: u64) -> u64 {
        let slot = (id.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 56) as usize % BOUND_SLOTS;
        let (cached, bound) = self.bounds[slot];
        if cached == id {
            return bound;
        }
        let bound = formats
            .get(id)
            .and_then(|known| known.compiled().ok())
            .map_or(MARKER_BOUND, |compiled| {
                formats.text_bound(compiled).max(MARKER_BOUND)
            });
        self.bounds[slot] = (id, bound);
        bound
    }
}

/// Slots of the windows' bound cache.
const BOUND_SLOTS: usize = 256;

/// What a marker line takes at most, about.
const MARKER_BOUND: u64 = 512;

impl Iterator for Windows<'_> {
    type Item = Range<u64>;

    fn next(&mut self) -> Option<Range<u64>> {
        if self.done {
            return None;
        }
        let start = self.entries.offset();
        let mut bytes = 0u64;
        loop {
            match self.entries.next() {
                Some(Ok(entry)) => {
                    if let Some((formats, most)) = self.bound {
                        bytes += self.bound_of(formats, entry.id);
                        if bytes >= most {
                            return Some(start..self.entries.offset());
                        }
                    }
                    let at = self.entries.offset();
                    if at - start >= self.target {
                        return Some(start..at);
                    }
                }
                Some(Err(_)) => {
                    self.done = true;
                    return Some(start..self.end);
                }
                None => {
                    self.done = true;
                    let at = self.entries.offset();
                    return (at > start).then_some(start..at);
                }
            }
        }
    }
}

/// Runs `work` over every window of the buffer and hands each result to `sink` in buffer
/// order. With `options.jobs > 1`, windows are rendered on a pool of that many threads while
/// the calling thread walks headers and runs the sink; at most `options.in_flight` results wait
/// at any time. The first sink error stops the run (windows in flight finish first).
pub fn run<T, E, W, S>(buffer: &Buffer<'_>, options: &Options, work: W, sink: S) -> Result<(), E>
where
    T: Send,
    W: Fn(Range<u64>) -> T + Sync,
    S: FnMut(Range<u64>, T) -> Result<(), E>,
{
    run_windows(
        Windows::new(buffer, options.window_dwords),
        options,
        work,
        sink,
    )
}

/// [`run`] with windows that also end once their entries could print
/// `options.window_bytes` by their formats' bounds ([`Windows::bounded`]): memory stays
/// bounded even for entries that print far more than they take.
pub fn run_bounded<T, E, W, S>(
    buffer: &Buffer<'_>,
    options: &Options,
    formats: &Formats,
    work: W,
    sink: S,
) -> Result<(), E>
where
    T: Send,
    W: Fn(Range<u64>) -> T + Sync,
    S: FnMut(Range<u64>, T) -> Result<(), E>,
{
    run_windows(
        Windows::bounded(buffer, options.window_dwords, formats, options.window_bytes),
        options,
        work,
        sink,
    )
}

fn run_windows<T, E, W, S>(
    windows: Windows<'_>,
    options: &Options,
    work: W,
    mut sink: S,
) -> Result<(), E>
where
    T: Send,
    W: Fn(Range<u64>) -> T + Sync,
    S: FnMut(Range<u64>, T) -> Result<(), E>,
{
    if options.jobs <= 1 {
        for window in windows {
            let result = work(window.clone());
            sink(window, result)?;
        }
        return Ok(());
    }
    let pool = match rayon::ThreadPoolBuilder::new()
        .num_threads(options.jobs)
        .thread_name(|index| format!("fmtstr-decode-{index}"))
        .build()
    {
        Ok(pool) => pool,
        // No threads to be had: do the work here.
        Err(_) => {
            for window in windows {
                let result = work(window.clone());
                sink(window, result)?;
            }
            return Ok(());
        }
    };
    let in_flight = options.in_flight.max(options.jobs);
    let work = &work;
    pool.in_place_scope(|scope| {
        let (sender, receiver) = mpsc::channel::<(usize, Range<u64>, T)>();
        let mut windows = windows.enumerate();
        let mut waiting: BTreeMap<usize, (Range<u64>, T)> = BTreeMap::new();
        let mut dispatched = 0usize;
        let mut next = 0usize;
        let mut exhausted = false;
        let mut failed = None;
        loop {
            while failed.is_none() && !exhausted && dispatched - next < in_flight {
                match windows.next() {
                    Some((index, window)) => {
                        let sender = sender.clone();
                        scope.spawn(move |_| {
                            let result = work(window.clone());
                            let _ = sender.send((index, window, result));
                        });
                        dispatched += 1;
                    }
                    None => exhausted = true,
                }
            }
            if next == dispatched {
                break;
            }
            let Ok((index, window, result)) = receiver.recv() else {
                break;
            };
            waiting.insert(index, (window, result));
            while let Some((window, result)) = waiting.remove(&next) {
                next += 1;
                if failed.is_none() {
                    if let Err(error) = sink(window, result) {
                        failed = Some(error);
                    }
                }
            }
        }
        match failed {
            Some(error) => Err(error),
            None => Ok(()),
        }
    })
}

/// The text of one window and what went wrong in it.
#[derive(Debug, Default)]
pub struct TextChunk {
    /// The entries' text in order; an entry that could not be printed is a marker line
    /// ([`Problem::write_marker`]).
    pub text: Vec<u8>,
    /// Problems in buffer order. [`ProblemKind::Format`] notes come the first time a window
    /// uses the format (after that entry's own problem): keep the first of each ID.
    pub problems: Vec<Problem>,
    /// Entries printed (with or without a warning).
    pub printed: u64,
    /// Entries replaced by a marker line, stops included.
    pub marked: u64,
}

/// Decodes the entries of `window` (a [`Windows`] item, or `0..buffer.end()`) into text.
pub fn decode_text(buffer: &Buffer<'_>, formats: &Formats, window: Range<u64>) -> TextChunk {
    decode_text_into(buffer, formats, window, Vec::new())
}

/// [`decode_text`] appending to `text` (a buffer handed back from an earlier chunk, to save
/// allocating and faulting in a new one per window).
pub fn decode_text_into(
    buffer: &Buffer<'_>,
    formats: &Formats,
    window: Range<u64>,
    mut text: Vec<u8>,
) -> TextChunk {
    let mut decoder = Decoder::new(formats);
    // A guess at the text's size; the last window may span unwritten space, so bounded.
    text.reserve((window.end - window.start).min(1 << 16) as usize * 8);
    let mut chunk = TextChunk {
        text,
        ..TextChunk::default()
    };
    let mut batch = Batch::new();
    for item in buffer.entries_in(window) {
        if step_batched(&mut decoder, &mut batch, item, &mut chunk) == Walked::Stopped {
            break;
        }
    }
    chunk.printed += batch.flush(&mut chunk.text);
    chunk
}

/// What [`step_batched`] did with a walk item.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walked {
    /// The entry waits in the batch: its text is not in the chunk yet.
    Waiting,
    /// Every entry walked so far has its text (or marker) in the chunk.
    Rendered,
    /// The walk stopped here (a marker was written).
    Stopped,
}

/// [`step`] for an entry that may wait in `batch`: one that prints without a problem or a
/// note is added to it (rendered when it is full); any other item renders the batch first,
/// so that text and problems stay in buffer order.
#[inline]
fn step_batched<'f, 'a>(
    decoder: &mut Decoder<'f>,
    batch: &mut Batch<'f, 'a>,
    item: Result<crate::RawEntry<'a>, (u64, crate::Stop)>,
    chunk: &mut TextChunk,
) -> Walked {
    let batched = match &item {
        Ok(entry) => decoder
            .batchable(entry)
            .map(|(steps, slot)| (steps, entry.payload, slot)),
        Err(_) => None,
    };
    if let Some((steps, payload, slot)) = batched {
        if !batch.push(steps, payload, slot) {
            return Walked::Waiting;
        }
        chunk.printed += batch.flush(&mut chunk.text);
        return Walked::Rendered;
    }
    chunk.printed += batch.flush(&mut chunk.text);
    if step(decoder, item, chunk) {
        Walked::Rendered
    } else {
        Walked::Stopped
    }
}

/// Decodes one walk item into `chunk`; false where the walk stopped.
#[inline]
fn step(
    decoder: &mut Decoder<'_>,
    item: Result<crate::RawEntry<'_>, (u64, crate::Stop)>,
    chunk: &mut TextChunk,
) -> bool {
    let entry = match item {
        Ok(entry) => entry,
        Err((offset, stop)) => {
            let problem = Problem {
                offset,
                kind: ProblemKind::Stop(stop),
            };
            problem.write_marker(&mut chunk.text);
            chunk.marked += 1;
            chunk.problems.push(problem);
            return false;
        }
    };
    let text = &mut chunk.text;
    if text.capacity() - text.len() < 1 << 16 {
        // Grow by a quarter rather than double: a window's text is as large as a window
        // gets, and doubling would leave up to half of it allocated for nothing.
        text.reserve_exact((text.len() / 4).max(1 << 17));
    }
    match decoder.render(&entry, &mut chunk.text) {
        Ok(None) => chunk.printed += 1,
        Ok(Some(kind)) => {
            chunk.printed += 1;
            chunk.problems.push(Problem {
                offset: entry.offset,
                kind,
            });
        }
        Err(kind) => {
            let problem = Problem {
                offset: entry.offset,
                kind,
            };
            problem.write_marker(&mut chunk.text);
            chunk.marked += 1;
            chunk.problems.push(problem);
        }
    }
    decoder.take_notes(&mut chunk.problems);
    true
}

/// Decodes the whole written area in one pass on the calling thread (no windows to find
/// first), handing the text to `sink` in pieces of about `piece_bytes`, each with the range of
/// dwords it covers. The same text and problems as [`run`] with [`decode_text`]; one buffer is
/// reused for every piece.
pub fn decode_sequential<E>(
    buffer: &Buffer<'_>,
    formats: &Formats,
    piece_bytes: usize,
    mut sink: impl FnMut(Range<u64>, &TextChunk) -> Result<(), E>,
) -> Result<(), E> {
    let mut decoder = Decoder::new(formats);
    let mut entries = buffer.entries();
    let mut start = 0;
    let mut chunk = TextChunk {
        text: Vec::with_capacity(piece_bytes + 4096),
        ..TextChunk::default()
    };
    let mut batch = Batch::new();
    while let Some(item) = entries.next() {
        match step_batched(&mut decoder, &mut batch, item, &mut chunk) {
            // A piece ends only where every entry walked so far has its text in it.
            Walked::Waiting => continue,
            Walked::Stopped => break,
            Walked::Rendered => {}
        }
        if chunk.text.len() >= piece_bytes {
            let end = entries.offset();
            sink(start..end, &chunk)?;
            chunk.text.clear();
            chunk.problems.clear();
            chunk.printed = 0;
            chunk.marked = 0;
            start = end;
        }
    }
    chunk.printed += batch.flush(&mut chunk.text);
    if !chunk.text.is_empty() || !chunk.problems.is_empty() || start < buffer.end() {
        sink(start..buffer.end(), &chunk)?;
    }
    Ok(())
}

/// The whole buffer's text and problems, on the calling thread (for tests and small buffers;
/// [`run`] with [`decode_text`] streams).
pub fn decode_to_vec(buffer: &Buffer<'_>, formats: &Formats) -> TextChunk {
    decode_text(buffer, formats, 0..buffer.end())
}

/// Entries and dwords of one format ID.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Entries with the ID.
    pub entries: u64,
    /// Dwords those entries take, their 2-dword headers included.
    pub dwords: u64,
    /// `%s` strings whose bytes travelled in the entry and were cut (`fmtstr lower
    /// --runtime-strings N`: the string went on past N bytes).
    pub strings_cut: u64,
}

/// Entries and dwords per format ID over a window or a buffer.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stats {
    /// The counts of each ID met, unknown IDs included.
    pub by_id: fmtstr_meta::merge::IdMap<u64, Count>,
    /// Where the walk stopped early, if it did.
    pub stop: Option<Problem>,
}

impl Stats {
    /// Adds another window's counts (a later one: its stop wins only if none was seen).
    pub fn merge(&mut self, other: Stats) {
        for (id, count) in other.by_id {
            let mine = self.by_id.entry(id).or_default();
            mine.entries += count.entries;
            mine.dwords += count.dwords;
            mine.strings_cut += count.strings_cut;
        }
        if self.stop.is_none() {
            self.stop = other.stop;
        }
    }

    /// (ID, count) with the most dwords first, then the most entries, then the lowest ID.
    pub fn sorted(&self) -> Vec<(u64, Count)> {
        let mut rows: Vec<(u64, Count)> = self.by_id.iter().map(|(id, c)| (*id, *c)).collect();
        rows.sort_by(|a, b| {
            b.1.dwords
                .cmp(&a.1.dwords)
                .then(b.1.entries.cmp(&a.1.entries))
                .then(a.0.cmp(&b.0))
        });
        rows
    }
}

/// Counts the entries of `window` per ID without rendering them (and the inline strings
/// that were cut, where `formats` has formats with inline strings).
pub fn count(buffer: &Buffer<'_>, formats: &Formats, window: Range<u64>) -> Stats {
    let mut stats = Stats::default();
    let inline = formats.has_inline_strings();
    for item in buffer.entries_in(window) {
        match item {
            Ok(entry) => {
                let count = stats.by_id.entry(entry.id).or_default();
                count.entries += 1;
                count.dwords += u64::from(entry.size);
                if inline {
                    if let Some(Ok(compiled)) = formats.get(entry.id).map(|known| known.compiled())
                    {
                        count.strings_cut += crate::decoder::strings_cut(compiled, entry.payload);
                    }
                }
            }
            Err((offset, stop)) => {
                stats.stop = Some(Problem {
                    offset,
                    kind: ProblemKind::Stop(stop),
                });
            }
        }
    }
    stats
}
