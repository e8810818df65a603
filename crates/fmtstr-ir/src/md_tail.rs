//! The metadata definitions after the last function, found on a second thread while the
//! skeleton parse reads the functions' headers.
//!
//! Input: the module's text and where its last body ends (LLVM writes the metadata after the
//! functions). Output: every line there that a filtered parse keeps as text
//! ([`MdNodeData::kept_as_text`]), with its number, in runs of consecutive lines.
//!
//! `kept_as_text` is a function of the text and an offset alone, so a line found here is
//! one the parser would keep itself; the parser still records them, in its own order, and
//! refuses a run's line where it would have (a redefinition), so the result is that of a
//! parse on one thread. In a module with debug info the headers and the 150,000 metadata
//! lines took about as long each, one after the other.

use crate::md_data::MdNodeData;

/// Below this much text after the last body, the parser reads the metadata itself.
const MIN_TAIL: usize = 1 << 20;

/// The lines kept as text after the last body.
#[derive(Debug, Default)]
pub(crate) struct TailLines {
    /// Each line's start and number, in text order.
    pub lines: Vec<(u32, u32)>,
    /// Runs of consecutive lines: the first line's index in `lines`, and where the run's
    /// last node ends.
    pub runs: Vec<(u32, u32)>,
}

/// Whether the text after `from` is worth a thread.
pub(crate) fn worth_a_thread(src: &[u8], from: usize) -> bool {
    src.len().saturating_sub(from) >= MIN_TAIL && u32::try_from(src.len()).is_ok()
}

/// The lines of `src[from..]` a filtered parse keeps as text.
pub(crate) fn scan(src: &[u8], from: usize) -> TailLines {
    let mut tail = TailLines::default();
    // Where the line after the last one found starts (a run goes on there).
    let mut run_goes_on_at = usize::MAX;
    let mut at = from;
    while at < src.len() {
        let line_end = memchr::memchr(b'\n', &src[at..]).map_or(src.len(), |n| at + n);
        if src[at] == b'!' {
            if let Some(data) = MdNodeData::kept_as_text_on_line(src, at, line_end) {
                if at != run_goes_on_at {
                    tail.runs.push((tail.lines.len() as u32, data.text.end));
                }
                tail.lines.push((at as u32, data.number));
                if let Some(run) = tail.runs.last_mut() {
                    run.1 = data.text.end;
                }
                run_goes_on_at = line_end + 1;
            }
        }
        at = line_end + 1;
    }
    tail
}

/// The parser's side: the runs, asked for in text order.
#[derive(Debug)]
pub(crate) struct TailReader {
    /// The scanning thread's result, until the parser first asks.
    pending: Option<std::sync::mpsc::Receiver<TailLines>>,
    tail: TailLines,
    /// The first run not yet passed.
    next_run: usize,
}

impl TailReader {
    pub fn new(pending: std::sync::mpsc::Receiver<TailLines>) -> Self {
        TailReader {
            pending: Some(pending),
            tail: TailLines::default(),
            next_run: 0,
        }
    }

    /// The run of lines that starts at `at` (its lines, and where its last node ends), if
    /// one does. A thread that failed gives none.
    pub fn run_at(&mut self, at: u32) -> Option<(&[(u32, u32)], u32)> {
        if let Some(pending) = self.pending.take() {
            self.tail = pending.recv().unwrap_or_default();
        }
        let runs = &self.tail.runs;
        while runs
            .get(self.next_run)
            .is_some_and(|&(first, _)| self.tail.lines[first as usize].0 < at)
        {
            self.next_run += 1;
        }
        let &(first, end) = runs.get(self.next_run)?;
        if self.tail.lines[first as usize].0 != at {
            return None;
        }
        let last = runs
            .get(self.next_run + 1)
            .map_or(self.tail.lines.len(), |&(next, _)| next as usize);
        self.next_run += 1;
        Some((&self.tail.lines[first as usize..last], end))
    }
}
