//! Entries rendered in batches grouped by format, then put back in buffer order.
//!
//! In a random mix of formats, the branches that depend on the format (the step dispatch, the
//! integer renderer's call, `%f %e %g`'s choice of layout) are mispredicted from one entry to
//! the next. A batch collects up to [`BATCH`] consecutive entries whose text cannot fail and is
//! short (at most 4 KiB, so that a batch's memory stays small), renders the entries of each
//! format one after the other into a scratch buffer, where those branches repeat, and copies
//! each entry's text into the output in buffer order.

use crate::decoder::CACHE_SLOTS;
use crate::plan::{self, Step};

/// Entries per batch: enough that each format of a mix has a run of entries, few enough
/// that the scratch text stays in the first-level cache.
const BATCH: usize = 256;

/// Bytes copied at once when an entry's text is put back in order: a constant-size copy is
/// a few moves, where a copy of the text's own length branches on it.
const COPY: usize = 64;

/// "No entry": the end of a format's list.
const NONE: u16 = u16::MAX;

/// Consecutive entries waiting to be rendered.
pub(crate) struct Batch<'f, 'a> {
    /// Each entry's steps and payload, in buffer order.
    entries: Vec<(&'f [Step], &'a [u8])>,
    /// The entry after each one in its format's list (the lists run backwards).
    next: Vec<u16>,
    /// Each entry's text in `scratch`: start and length.
    spans: Vec<(u32, u32)>,
    /// The first entry of each format's list, and the format's cache slot.
    heads: Vec<(u16, usize)>,
    /// The index in `heads` of each cache slot's format in this batch (`NONE`: absent).
    group_of_slot: Vec<u16>,
    /// The batch's text, one format's entries after another's (`spans` finds each entry's).
    scratch: Vec<u8>,
}

impl<'f, 'a> Batch<'f, 'a> {
    /// An empty batch, which allocates nothing until its first entry: a walk where no entry
    /// is batched (each prints 64 KiB, say) keeps the memory it had, which its bound counts.
    pub(crate) fn new() -> Batch<'f, 'a> {
        Batch {
            entries: Vec::new(),
            next: Vec::new(),
            spans: Vec::new(),
            heads: Vec::new(),
            group_of_slot: Vec::new(),
            scratch: Vec::new(),
        }
    }

    /// The lists sized for [`BATCH`] entries, on the first entry.
    #[cold]
    #[inline(never)]
    fn make_room(&mut self) {
        self.entries.reserve(BATCH);
        self.next.reserve(BATCH);
        self.spans = vec![(0, 0); BATCH];
        self.heads.reserve(BATCH);
        self.group_of_slot = vec![NONE; CACHE_SLOTS];
        self.scratch.reserve(BATCH * 64);
    }

    /// Adds an entry whose format has cache slot `slot`, which stands for the format: the
    /// cache does not change while a batch fills (an entry that could change it renders the
    /// batch first). True when the batch is full.
    #[inline]
    pub(crate) fn push(&mut self, steps: &'f [Step], payload: &'a [u8], slot: usize) -> bool {
        if self.group_of_slot.is_empty() {
            self.make_room();
        }
        let index = self.entries.len() as u16;
        let mut group = self.group_of_slot[slot];
        if group == NONE {
            group = self.heads.len() as u16;
            self.heads.push((NONE, slot));
            self.group_of_slot[slot] = group;
        }
        let head = &mut self.heads[usize::from(group)].0;
        self.next.push(*head);
        *head = index;
        self.entries.push((steps, payload));
        self.entries.len() == BATCH
    }

    /// Renders the batch's entries format by format and appends their text to `out` in
    /// buffer order; returns how many entries there were. The batch is empty afterwards.
    pub(crate) fn flush(&mut self, out: &mut Vec<u8>) -> u64 {
        let count = self.entries.len();
        if count == 0 {
            return 0;
        }
        self.scratch.clear();
        for &(head, slot) in &self.heads {
            let mut index = head;
            while index != NONE {
                let i = usize::from(index);
                let (steps, payload) = self.entries[i];
                let start = self.scratch.len();
                plan::render_batched(steps, payload, &mut self.scratch);
                self.spans[i] = (start as u32, (self.scratch.len() - start) as u32);
                index = self.next[i];
            }
            self.group_of_slot[slot] = NONE;
        }
        let total = self.scratch.len();
        // Room for the last entry's constant-size copy.
        self.scratch.resize(total + COPY, 0);
        out.reserve(total + COPY);
        for &(start, len) in &self.spans[..count] {
            let (start, len) = (start as usize, len as usize);
            if len <= COPY {
                let at = out.len();
                out.extend_from_slice(&self.scratch[start..start + COPY]);
                out.truncate(at + len);
            } else {
                out.extend_from_slice(&self.scratch[start..start + len]);
            }
        }
        self.entries.clear();
        self.next.clear();
        self.heads.clear();
        count as u64
    }
}
