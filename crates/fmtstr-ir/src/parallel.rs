//! Parallel parsing of large modules: function bodies on several threads; and the choice
//! between that and a sequential parse.
//!
//! Input: a module's text, a thread count, and for a filtered parse the filter. Output: the
//! module (or its shards), parsed in parallel where that pays and the parse agrees, else by the
//! sequential parser.
//!
//! Function bodies are most of a module's text, and each is self-contained: its local names
//! resolve within it, and what it refers to outside (globals, named types, numbered metadata)
//! is defined at the top level. So a large module is parsed in three steps:
//!
//! 1. a *skeleton* parse of everything but the bodies, which it skips by finding each body's
//!    closing brace (LLVM writes it alone at the start of a line);
//! 2. workers, each starting from a copy of the skeleton, parse contiguous runs of bodies into
//!    their own arenas;
//! 3. the workers' additions are appended to the skeleton in order, their ids shifted (and
//!    the types they created interned anew).
//!
//! Any surprise (a body that does not end where the skeleton thought, a reference to
//! something undefined, a syntax error) abandons the parallel result: the caller then parses
//! sequentially, which reports the first error exactly as it always would. The parallel
//! result prints byte-identically to the sequential one and answers every query the same way
//! (ids differ; they are opaque). The `parallel` integration test checks that on large
//! modules built from the corpus.

use crate::const_data::{ConstData, ConstKind};
use crate::error::ParseError;
use crate::inst::{Attr, InstData, Opcode};
use crate::lexer::{is_name_byte, name_key, Lexer, NameKey, Tok};
use crate::md_data::{MdKindData, MdOp};
use crate::md_tail;
use crate::module::{InstList, Module, SourceText};
use crate::parser::{self, Parser, SparseLines, MAX_INPUT, MAX_NUMBER_GAP_TO};
use crate::types::{TypeData, TypeId};
use crate::value::{BlockId, ConstId, FuncId, InstId, MdId, PackedOp, PackedValue, Value};
use std::sync::atomic::{AtomicBool, Ordering};

/// Below this size a sequential parse is faster than starting threads.
pub(crate) const MIN_PARALLEL: usize = 4 << 20;

/// The thread-count rule of every sharded parse and lowering: one per core, at most 8 (more
/// threads add more merging than they save on the modules fmtstr sees).
pub fn default_threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
}

/// Where function bodies may end: every `}` at the start of a line followed by a line end
/// (or the end of the text), ascending. The text is scanned in `threads` slices at once.
#[cfg(test)]
pub(crate) fn body_ends(src: &[u8], threads: usize) -> Vec<u32> {
    scan_text(src, threads, false).0
}

const BLOCKADDRESS: &[u8] = b"blockaddress(";

/// The bytes [`scan_text`] searches for braces and then for `blockaddress(` while they are in
/// the cache.
const SCAN_BLOCK: usize = 64 << 10;

/// [`body_ends`], and with `blockaddress`, whether the text holds a `blockaddress(`, which a
/// sharded parse refuses. Each thread scans its slice in blocks small enough to stay in the
/// cache between the two searches: the text is read from memory once, not twice (this scan is
/// the first to read it, and on a large module it is all on the critical path).
fn scan_text(src: &[u8], threads: usize, blockaddress: bool) -> (Vec<u32>, bool) {
    let finder = memchr::memmem::Finder::new(BLOCKADDRESS);
    let slice = src.len() / threads.max(1) + 1;
    let scan = |from: usize, to: usize| {
        let mut ends = Vec::new();
        let mut found = false;
        let mut block = from;
        while block < to {
            let block_end = (block + SCAN_BLOCK).min(to);
            for at in memchr::memchr_iter(b'}', &src[block..block_end]).map(|k| block + k) {
                let starts_line = at > 0 && src[at - 1] == b'\n';
                let ends_line =
                    matches!(src.get(at + 1), None | Some(b'\n' | b'\r' | b' ' | b'\t'));
                if starts_line && ends_line {
                    ends.push(at as u32);
                }
            }
            // A match that starts in this block may end in the next; one found is enough.
            if blockaddress && !found {
                let overlap = (block_end + BLOCKADDRESS.len() - 1).min(src.len());
                found = finder.find(&src[block..overlap]).is_some();
            }
            block = block_end;
        }
        (ends, found)
    };
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads.max(1))
            .map(|t| {
                let (from, to) = ((t * slice).min(src.len()), ((t + 1) * slice).min(src.len()));
                scope.spawn(move || scan(from, to))
            })
            .collect();
        let mut all = Vec::new();
        let mut found = false;
        for handle in handles {
            let (ends, here) = handle.join().unwrap_or_default();
            all.extend(ends);
            found |= here;
        }
        (all, found)
    })
}

pub(crate) fn parse(file: &str, src: &[u8], threads: usize) -> Option<Module> {
    let (workers, groups, bases) = parse_workers(file, src, threads, None, Assembly::Merged)?;
    // The first worker's module is the skeleton plus the first bodies, with final ids: the
    // others are appended to it.
    let mut workers = workers.into_iter();
    let mut main = workers.next()?;
    for (group, worker) in groups.iter().skip(1).zip(workers) {
        merge(&mut main, &bases, worker, group)?;
    }
    Some(main)
}

/// Parses a module, on as many threads as [`default_threads`] says. See
/// [`crate::Module::parse`].
pub(crate) fn parse_module(file: &str, text: SourceText) -> Result<Module, ParseError> {
    if text.len() >= MAX_INPUT {
        return Err(ParseError {
            file: file.to_string(),
            line: 1,
            column: 1,
            message: format!("input is {} bytes; the limit is {MAX_INPUT}", text.len()),
            line_text: String::new(),
            offset: 0,
        });
    }
    parse_module_threads(file, text, default_threads())
}

/// Parses a module with up to `threads` threads for function bodies (1: sequentially): in
/// parallel where the module is large enough, sequentially where it is not or where the
/// parallel parse gives up.
pub(crate) fn parse_module_threads(
    file: &str,
    text: SourceText,
    threads: usize,
) -> Result<Module, ParseError> {
    if text.len() >= MAX_INPUT {
        return Err(ParseError {
            file: file.to_string(),
            line: 1,
            column: 1,
            message: format!("input is {} bytes; the limit is {MAX_INPUT}", text.len()),
            line_text: String::new(),
            offset: 0,
        });
    }
    let parsed = if threads > 1 && text.len() >= MIN_PARALLEL {
        parse(file, &text, threads)
    } else {
        None
    };
    let mut module = match parsed {
        Some(module) => module,
        None => parser::parse_sequential(file, &text)?,
    };
    module.src = text;
    Ok(module)
}

/// One shard of a module parsed by [`Module::parse_shards`]: the whole module, with only a
/// run of function bodies parsed.
#[derive(Debug)]
pub struct Shard {
    /// The module: every top-level entity, and the bodies of this shard's functions (the
    /// other bodies are kept as text, and their functions have no blocks here).
    pub module: Module,
    /// The first function whose body this shard holds (`None` for the first shard, which
    /// also prints the text before it).
    pub first_function: Option<FuncId>,
}

pub(crate) use crate::parser::BodyFilter;

/// The workers' modules, unmerged, in module order. `None`: parse sequentially instead (also
/// where a `blockaddress(` is in the text: a shard could not patch it in another shard's
/// functions).
pub(crate) fn parse_shards(
    file: &str,
    src: &[u8],
    threads: usize,
    filter: Option<BodyFilter<'_>>,
) -> Option<Vec<Shard>> {
    let (workers, groups, _) = parse_workers(file, src, threads, filter, Assembly::Shards)?;
    Some(
        workers
            .into_iter()
            .zip(groups)
            .enumerate()
            .map(|(k, (module, group))| Shard {
                module,
                first_function: group.first().filter(|_| k > 0).map(|&(f, _, _)| f),
            })
            .collect(),
    )
}

type Group = Vec<(FuncId, u32, u32)>;

/// What becomes of the workers' modules.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Assembly {
    /// Appended to the first (a whole module): the skeleton reserves room for the whole
    /// text, so that appending copies nothing to grow.
    Merged,
    /// Kept apart, as shards: each worker reserves room for its own bodies only (a reserved
    /// arena is not free: mimalloc faults in a huge page at its start, 2 MiB to clear, and
    /// a filtered parse reads a twentieth of the bodies), and a `blockaddress(` refuses the
    /// split.
    Shards,
}

/// The skeleton, then the bodies in runs of about equal size on the workers: each worker's
/// module, its run of bodies, and the skeleton's arena lengths. Every worker's bodies are
/// checked to refer only to what the skeleton defines. `None` where the parse gives up, and
/// for shards where the text holds a `blockaddress(`.
fn parse_workers(
    file: &str,
    src: &[u8],
    threads: usize,
    filter: Option<BodyFilter<'_>>,
    assembly: Assembly,
) -> Option<(Vec<Module>, Vec<Group>, Bases)> {
    let mut skeleton = match assembly {
        Assembly::Merged => Parser::new(file, src),
        Assembly::Shards => Parser::unreserved(file, src),
    };
    let (ends, blockaddress) = scan_text(src, threads, assembly == Assembly::Shards);
    if blockaddress {
        return None;
    }
    skeleton.body_ends = ends.clone();
    // A filtered parse reads only what its pass edits: metadata is kept as text, and so are
    // the headers of the functions whose bodies it does not parse.
    skeleton.md_unread = filter.is_some();
    skeleton.header_filter = filter;
    // Its metadata, after the last body, is found on a second thread meanwhile.
    let tail_from = skeleton.body_ends.last().map_or(0, |&end| end as usize + 1);
    let stop = AtomicBool::new(false);
    let (parsed, ahead) = std::thread::scope(|scope| {
        if skeleton.md_unread && threads > 1 && md_tail::worth_a_thread(src, tail_from) {
            let (send, receive) = std::sync::mpsc::channel();
            scope.spawn(move || send.send(md_tail::scan(src, tail_from)));
            skeleton.md_tail = Some(md_tail::TailReader::new(receive));
        }
        // The filter starts on the bodies meanwhile: their sparse lines need only their text.
        let helper = filter
            .filter(|_| threads > 1)
            .map(|wanted| scope.spawn(|| bodies_ahead(src, &ends, wanted, &stop)));
        let parsed = skeleton.run_skeleton();
        stop.store(true, Ordering::Relaxed);
        let ahead = helper.map_or_else(Vec::new, |h| {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e))
        });
        (parsed, ahead)
    });
    skeleton.md_tail = None;
    parsed.ok()?;
    let pending = std::mem::take(&mut skeleton.pending);
    let all_bodies: u64 = pending.iter().map(|&(_, s, e)| u64::from(e - s)).sum();
    let (pending, mut found): (Group, Vec<Option<SparseLines>>) = match filter {
        Some(wanted) => bodies_wanted(src, pending, ahead, threads, wanted)
            .into_iter()
            .unzip(),
        None => {
            let none = pending.iter().map(|_| None).collect();
            (pending, none)
        }
    };
    let main = skeleton.into_module();
    let bases = Bases::of(&main);
    if pending.is_empty() {
        return Some((vec![main], vec![Vec::new()], bases));
    }
    // Contiguous runs of bodies of about equal size, so that the workers' results append in
    // module order.
    let total: u64 = pending.iter().map(|&(_, s, e)| u64::from(e - s)).sum();
    // A worker past the first starts from a copy of the skeleton: it pays only with at
    // least as many bytes of bodies to parse as the skeleton has text (a module with debug
    // info printing in 5% of its functions parses its few bodies faster than it copies its
    // metadata).
    let skeleton_bytes = (src.len() as u64).saturating_sub(all_bodies).max(1);
    let threads = threads.min(1 + (total / skeleton_bytes) as usize);
    let per_thread = total / threads as u64 + 1;
    let mut groups: Vec<Group> = Vec::new();
    let mut groups_found: Vec<Vec<Option<SparseLines>>> = Vec::new();
    let mut start = 0;
    let mut size = 0u64;
    for (i, &(_, s, e)) in pending.iter().enumerate() {
        size += u64::from(e - s);
        if size >= per_thread || i + 1 == pending.len() {
            groups.push(pending[start..=i].to_vec());
            groups_found.push(found.drain(..=i - start).collect());
            start = i + 1;
            size = 0;
        }
    }
    let work = |mut m: Module, group: &Group, found: Vec<Option<SparseLines>>| -> Option<Module> {
        let bytes: usize = group.iter().map(|&(_, s, e)| (e - s) as usize).sum();
        let sparse: Vec<Option<SparseLines>> = group
            .iter()
            .zip(found)
            .map(|(&(_, start, close), found)| {
                filter.map(|f| found.unwrap_or_else(|| sparse_lines(src, start, close, f)))
            })
            .collect();
        // The lines the filter finds are where the edits go: a printf call with k
        // arguments becomes about 2k + 2 instructions with 5k + 4 operands, about an
        // instruction per 12 bytes of its line and an operand per 5, and one more call.
        let (found_bytes, found_lines) = sparse
            .iter()
            .flatten()
            .flat_map(|lines| &lines.found)
            .fold((0, 0), |(bytes, n), &(s, e)| {
                (bytes + (e - s) as usize, n + 1)
            });
        // Room for the bodies' instructions, about half as many again, and the edits of
        // the found lines: reserved before the parse fills it, the room costs no copy and
        // no memory until used, where growing the full arena later copies all of it.
        m.insts.reserve(bytes / 32 + found_bytes / 12);
        m.ops.reserve(bytes / 20 + found_bytes / 5);
        m.calls.reserve(2 * found_lines);
        m.sites.reserve(bytes / 16);
        m.block_insts.reserve(bytes / 48);
        m.blocks.reserve(bytes / 200);
        let mut parser = Parser::with_module(file, src, m);
        for (&(fid, start, close), sparse) in group.iter().zip(sparse) {
            // A header the skeleton kept as text defines only what its body refers to.
            parser.read_kept_header(fid).ok()?;
            if !parser.body_at(fid, start, close, sparse).ok()? {
                return None;
            }
        }
        Some(parser.into_module())
    };
    // Each worker starts from the skeleton: the first from the skeleton itself, the others
    // from copies (a copy fewer to fault in; the metadata of a module with debug info makes
    // the skeleton tens of megabytes).
    let copies: Vec<Module> = groups.iter().skip(1).map(|_| main.clone()).collect();
    let mut groups_found = groups_found.into_iter();
    let first_found = groups_found.next().unwrap_or_default();
    let results: Vec<Option<Module>> = std::thread::scope(|scope| {
        let handles: Vec<_> = groups
            .iter()
            .skip(1)
            .zip(copies)
            .zip(groups_found)
            .map(|((group, m), found)| scope.spawn(move || work(m, group, found)))
            .collect();
        let first = groups
            .first()
            .and_then(|group| work(main, group, first_found));
        std::iter::once(first)
            .chain(handles.into_iter().map(|h| h.join().ok().flatten()))
            .collect()
    });
    let workers: Vec<Module> = results.into_iter().collect::<Option<_>>()?;
    if !workers.iter().all(|w| self_contained(w, &bases)) {
        return None;
    }
    Some((workers, groups, bases))
}

/// A body's sparse lines worked out while the skeleton is parsed (see [`bodies_ahead`]).
struct Ahead {
    start: u32,
    close: u32,
    /// `None`: the filter finds nothing in the body.
    found: Option<SparseLines>,
}

/// The filter's work on the bodies, which needs only their text, done on another thread while
/// the skeleton is parsed: in module order, until `stop` is set. Each body is guessed from the
/// text as the skeleton will find it (after the `{` that ends a `define` line, up to the next
/// of the `ends`), and [`bodies_wanted`] uses a guess only where the skeleton found the same
/// body, so that a wrong guess costs only its work.
fn bodies_ahead(src: &[u8], ends: &[u32], wanted: BodyFilter<'_>, stop: &AtomicBool) -> Vec<Ahead> {
    let mut ahead = Vec::new();
    let mut from = 0;
    while !stop.load(Ordering::Relaxed) {
        let Some(define) = next_define_line(src, from) else {
            break;
        };
        let line_end = memchr::memchr(b'\n', &src[define..]).map_or(src.len(), |k| define + k);
        from = line_end;
        if src[..line_end].last() != Some(&b'{') {
            continue;
        }
        let start = line_end;
        let Some(&close) = ends.get(ends.partition_point(|&end| (end as usize) < start)) else {
            break;
        };
        let found = src
            .get(start..=close as usize)
            .and_then(wanted)
            .map(|_| sparse_lines(src, start as u32, close, wanted));
        ahead.push(Ahead {
            start: start as u32,
            close,
            found,
        });
        from = close as usize;
    }
    ahead
}

/// Where the next line at or after `from` that starts with `define ` starts.
fn next_define_line(src: &[u8], from: usize) -> Option<usize> {
    if from == 0 && src.starts_with(b"define ") {
        return Some(0);
    }
    let at = memchr::memmem::find(src.get(from.saturating_sub(1)..)?, b"\ndefine ")?;
    Some(from.saturating_sub(1) + at + 1)
}

/// The bodies `wanted` finds something in, each with its sparse lines where they were worked
/// out `ahead`; the others are searched on up to `threads` threads (the search reads every
/// body's bytes: 30 MB in a module with debug info).
fn bodies_wanted(
    src: &[u8],
    bodies: Group,
    ahead: Vec<Ahead>,
    threads: usize,
    wanted: BodyFilter<'_>,
) -> Vec<((FuncId, u32, u32), Option<SparseLines>)> {
    // Both in module order: a guess is used where the skeleton found the same body.
    let mut ahead = ahead.into_iter().peekable();
    let mut known: Vec<Option<Option<SparseLines>>> = Vec::with_capacity(bodies.len());
    for &(_, start, close) in &bodies {
        while ahead.next_if(|a| a.start < start).is_some() {}
        known.push(
            ahead
                .next_if(|a| a.start == start && a.close == close)
                .map(|a| a.found),
        );
    }
    let rest: Group = bodies
        .iter()
        .zip(&known)
        .filter(|(_, k)| k.is_none())
        .map(|(&body, _)| body)
        .collect();
    let mut rest = bodies_wanted_now(src, rest, threads, wanted)
        .into_iter()
        .peekable();
    bodies
        .into_iter()
        .zip(known)
        .filter_map(|(body, known)| match known {
            Some(found) => found.map(|lines| (body, Some(lines))),
            None => rest.next_if(|&r| r == body).map(|r| (r, None)),
        })
        .collect()
}

/// The bodies `wanted` finds something in, searched on up to `threads` threads.
fn bodies_wanted_now(src: &[u8], bodies: Group, threads: usize, wanted: BodyFilter<'_>) -> Group {
    let has = |&(_, start, close): &(FuncId, u32, u32)| {
        src.get(start as usize..=close as usize)
            .is_some_and(|body| wanted(body).is_some())
    };
    let bytes: usize = bodies.iter().map(|&(_, s, e)| (e - s) as usize).sum();
    if threads < 2 || bytes < MIN_PARALLEL {
        return bodies.into_iter().filter(has).collect();
    }
    let per_thread = bodies.len().div_ceil(threads).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = bodies
            .chunks(per_thread)
            .map(|run| scope.spawn(move || run.iter().copied().filter(has).collect::<Group>()))
            .collect();
        // A filter that panics on one thread panics as it would on this one.
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)))
            .collect()
    })
}

/// The lines of a filtered body (`start..close`) that its sparse parse must read: those the
/// filter finds, and those that name a value one of them defines (so that every use of such a
/// value is parsed).
pub(crate) fn sparse_lines(
    src: &[u8],
    start: u32,
    close: u32,
    filter: BodyFilter<'_>,
) -> SparseLines {
    let (start, close) = (start as usize, (close as usize).min(src.len()));
    let mut lines = SparseLines::default();
    if start >= close {
        return lines;
    }
    let line_of = |at: usize| {
        let from = memchr::memrchr(b'\n', &src[start..at]).map_or(start, |k| start + k + 1);
        let to = memchr::memchr(b'\n', &src[at..close]).map_or(close, |k| at + k + 1);
        (from as u32, to as u32)
    };
    let mut at = start;
    while let Some(k) = src.get(at..close).and_then(filter) {
        let line = line_of(at + k);
        lines.found.push(line);
        at = line.1 as usize;
    }
    let body = &src[start..close];
    lines.parse = lines.found.clone();
    // The names the found lines define: `%N` by number, the others decoded (`%"a"` is `%a`).
    let mut numbers: Vec<u32> = Vec::new();
    let mut names: crate::hash::FxHashSet<std::borrow::Cow<'_, [u8]>> = Default::default();
    // Each result's name as spelled, where it is defined.
    let mut spelled: Vec<(usize, &[u8])> = Vec::new();
    for &(from, _) in &lines.found {
        let mut lexer = Lexer::at(src, from as usize);
        let def = lexer.next_token();
        if !matches!(def.kind, Tok::LocalVar | Tok::LocalId)
            || lexer.next_token().kind != Tok::Equal
        {
            continue;
        }
        lines.defs.push(def.start);
        let raw = &src[def.start as usize..def.end as usize];
        spelled.push((def.start as usize, raw));
        match name_key(raw, def.kind == Tok::LocalId) {
            NameKey::Numbered(n) => numbers.push(n),
            NameKey::Named(name) => {
                names.insert(name);
            }
        }
    }
    // A few names spelled one way only (no `%"..."`, no `%0N`): a search for each is
    // quickest. Otherwise one pass over every `%` of the body.
    let plain_spelling = || {
        memchr::memmem::find(body, b"%\"").is_none()
            && !memchr::memmem::find_iter(body, b"%0")
                .any(|at| body.get(at + 2).is_some_and(u8::is_ascii_digit))
    };
    if lines.defs.len() <= 4 && plain_spelling() {
        for &(def, name) in &spelled {
            for at in memchr::memmem::find_iter(body, name) {
                let after = body.get(at + name.len()).copied().unwrap_or(b' ');
                if start + at != def && !is_name_byte(after) {
                    lines.parse.push(line_of(start + at));
                }
            }
        }
        numbers.clear();
        names.clear();
    }
    // The numbers as a bitmap, up to the numbers a parse reads with gaps (2 MiB); past
    // them (16 million values in one body), sorted.
    numbers.sort_unstable();
    let dense = numbers.last().is_none_or(|&n| n < MAX_NUMBER_GAP_TO);
    let mut bitmap = vec![
        0u64;
        numbers
            .last()
            .filter(|_| dense)
            .map_or(0, |&n| n as usize / 64 + 1)
    ];
    for &n in numbers.iter().filter(|_| dense) {
        bitmap[n as usize / 64] |= 1 << (n % 64);
    }
    let numbered = |n: usize| {
        if dense {
            bitmap
                .get(n / 64)
                .is_some_and(|word| word & (1 << (n % 64)) != 0)
        } else {
            u32::try_from(n).is_ok_and(|n| numbers.binary_search(&n).is_ok())
        }
    };
    // One pass over the body's `%`s finds the lines that name them (a search per name was
    // quadratic in a body of many calls).
    let wanted = WantedNames::new(names);
    if !numbers.is_empty() || !wanted.names.is_empty() {
        for at in memchr::memchr_iter(b'%', body) {
            let rest = &body[at + 1..];
            // `%N`, the common case, read in place.
            let mut n: usize = 0;
            let mut digits = 0;
            while let Some(&d) = rest.get(digits).filter(|d| d.is_ascii_digit()) {
                n = n.saturating_mul(10).saturating_add(usize::from(d - b'0'));
                digits += 1;
            }
            let named = match rest.get(digits) {
                Some(&b) if digits == 0 || is_name_byte(b) => {
                    !wanted.names.is_empty() && wanted.names_token(&body[at..])
                }
                _ => numbered(n),
            };
            if named && lines.defs.binary_search(&((start + at) as u32)).is_err() {
                lines.parse.push(line_of(start + at));
            }
        }
    }
    lines.parse.sort_unstable();
    lines.parse.dedup();
    lines
}

/// The names a sparse parse looks for, and a first test that turns most other tokens away
/// without hashing them: by each name's first byte, the lengths names starting with it have
/// (bit `len`, lengths of 63 and up sharing bit 63). In a body of 50 calls, a hash lookup
/// for every `%` token was most of the search (300 instructions a token).
struct WantedNames<'s> {
    names: crate::hash::FxHashSet<std::borrow::Cow<'s, [u8]>>,
    lengths_by_first: [u64; 256],
}

impl<'s> WantedNames<'s> {
    fn new(names: crate::hash::FxHashSet<std::borrow::Cow<'s, [u8]>>) -> Self {
        let mut lengths_by_first = [0u64; 256];
        for name in &names {
            if let Some(&first) = name.first() {
                lengths_by_first[usize::from(first)] |= 1 << name.len().min(63);
            }
        }
        WantedNames {
            names,
            lengths_by_first,
        }
    }

    /// Whether the local token at `text`'s start (`%name`, `%"name"`) is one of the names.
    fn names_token(&self, text: &[u8]) -> bool {
        let rest = &text[1..];
        let len = match rest.first() {
            Some(b'"') => memchr::memchr(b'"', &rest[1..]).map_or(rest.len(), |k| k + 2),
            Some(&first) => {
                // Most tokens start with a byte no name starts with; the others are read
                // only as far as the longest name that does.
                let lengths = self.lengths_by_first[usize::from(first)];
                if lengths == 0 {
                    return false;
                }
                // Past the longest name's length, the token is none of them (lengths of 63
                // and up share a bit: those are read to the end).
                let bound = if lengths >> 63 != 0 {
                    rest.len()
                } else {
                    (64 - lengths.leading_zeros() as usize).min(rest.len())
                };
                let len = rest[..bound]
                    .iter()
                    .position(|&b| !is_name_byte(b))
                    .unwrap_or(bound);
                // Unquoted, the token is its name.
                if lengths & (1 << len.min(63)) == 0 {
                    return false;
                }
                len
            }
            None => 0,
        };
        match name_key(&text[..1 + len], false) {
            NameKey::Named(name) => self.names.contains(&name),
            NameKey::Numbered(_) => false,
        }
    }
}

/// What a worker's parse of a body says about its function, moved onto the main module's
/// record when the worker's arenas are merged.
struct BodyFacts {
    fid: FuncId,
    blocks: Vec<BlockId>,
    only_numbered_locals: bool,
    named_prefixes: Option<crate::module::NamePrefixes>,
    implicit_numbers: bool,
}

/// Arena lengths of the skeleton: a worker's entries at or past these are its own.
struct Bases {
    types: u32,
    named_types: usize,
    globals: usize,
    kinds: u32,
    consts: u32,
    ops: u32,
    attrs: u32,
    attr_sets: u32,
    calls: u32,
    index_lists: u32,
    md_attach: u32,
    md_nodes: u32,
    md_ops: u32,
    insts: u32,
    blocks: u32,
    block_insts: u32,
    sites: usize,
}

impl Bases {
    fn of(m: &Module) -> Bases {
        Bases {
            types: m.types.len() as u32,
            named_types: m.types.named_structs().count(),
            globals: m.globals.len(),
            kinds: m.md.kinds.len() as u32,
            consts: m.consts.len() as u32,
            ops: m.ops.len() as u32,
            attrs: m.attrs.len() as u32,
            attr_sets: m.attr_sets.len() as u32,
            calls: m.calls.len() as u32,
            index_lists: m.index_lists.len() as u32,
            md_attach: m.md_attach.len() as u32,
            md_nodes: m.md.nodes.len() as u32,
            md_ops: m.md.ops.len() as u32,
            insts: m.insts.len() as u32,
            blocks: m.blocks.len() as u32,
            block_insts: m.block_insts.len() as u32,
            sites: m.sites.len(),
        }
    }
}

/// Shifts an id of a worker's arena: skeleton entries keep theirs, the worker's own move to
/// where they are appended.
#[derive(Clone, Copy)]
struct Shift {
    base: u32,
    to: u32,
}

impl Shift {
    fn new(base: u32, main_len: usize) -> Shift {
        Shift {
            base,
            to: main_len as u32,
        }
    }

    #[inline]
    fn at(self, id: u32) -> u32 {
        if id < self.base {
            id
        } else {
            id - self.base + self.to
        }
    }
}

struct Remap {
    types: Vec<TypeId>,
    type_base: u32,
    kinds: Vec<u32>,
    kind_base: u32,
    consts: Shift,
    ops: Shift,
    attrs: Shift,
    attr_sets: Shift,
    calls: Shift,
    index_lists: Shift,
    md_attach: Shift,
    md_nodes: Shift,
    md_ops: Shift,
    insts: Shift,
    blocks: Shift,
    block_insts: Shift,
}

impl Remap {
    #[inline]
    fn ty(&self, t: TypeId) -> TypeId {
        if t.0 < self.type_base {
            t
        } else {
            self.types
                .get((t.0 - self.type_base) as usize)
                .copied()
                .unwrap_or(TypeId::VOID)
        }
    }

    #[inline]
    fn value(&self, v: PackedValue) -> PackedValue {
        PackedValue::pack(match v.unpack() {
            Value::Inst(i) => Value::Inst(InstId(self.insts.at(i.0))),
            Value::Block(b) => Value::Block(BlockId(self.blocks.at(b.0))),
            Value::Const(c) => Value::Const(ConstId(self.consts.at(c.0))),
            Value::Metadata(m) => Value::Metadata(MdId(self.md_nodes.at(m.0))),
            other @ (Value::Arg(_) | Value::Global(_)) => other,
        })
    }

    #[inline]
    fn op(&self, op: PackedOp) -> PackedOp {
        PackedOp {
            ty: self.ty(op.ty),
            value: self.value(op.value),
        }
    }

    fn kind(&self, k: u32) -> u32 {
        if k < self.kind_base {
            k
        } else {
            self.kinds
                .get((k - self.kind_base) as usize)
                .copied()
                .unwrap_or(k)
        }
    }

    /// A worker's constant with the ids it holds shifted.
    #[inline]
    fn const_data(&self, mut c: ConstData) -> ConstData {
        c.kind = match c.kind {
            ConstKind::Struct { ops, len, packed } => ConstKind::Struct {
                ops: self.ops.at(ops),
                len,
                packed,
            },
            ConstKind::Array { ops, len } => ConstKind::Array {
                ops: self.ops.at(ops),
                len,
            },
            ConstKind::Vector { ops, len } => ConstKind::Vector {
                ops: self.ops.at(ops),
                len,
            },
            ConstKind::Expr {
                opcode,
                ty,
                ops,
                len,
                inbounds,
            } => ConstKind::Expr {
                opcode,
                ty: self.ty(ty),
                ops: self.ops.at(ops),
                len,
                inbounds,
            },
            ConstKind::Splat(op) => ConstKind::Splat(self.ops.at(op)),
            other => other,
        };
        c
    }

    /// A worker's attribute, its type (`byval(T)`, ...) mapped.
    #[inline]
    fn attr(&self, a: Attr) -> Attr {
        match a {
            Attr::ByVal(t) => Attr::ByVal(self.ty(t)),
            Attr::ByRef(t) => Attr::ByRef(self.ty(t)),
            Attr::SRet(t) => Attr::SRet(self.ty(t)),
            Attr::InAlloca(t) => Attr::InAlloca(self.ty(t)),
            Attr::Preallocated(t) => Attr::Preallocated(self.ty(t)),
            Attr::ElementType(t) => Attr::ElementType(self.ty(t)),
            other => other,
        }
    }

    /// A worker's instruction with the ids it holds shifted.
    #[inline]
    fn inst(&self, mut d: InstData) -> InstData {
        d.ty = self.ty(d.ty);
        d.ops = self.ops.at(d.ops);
        d.block = self.blocks.at(d.block);
        d.md = self.md_attach.at(d.md);
        d.extra = match d.opcode {
            Opcode::Call | Opcode::Invoke | Opcode::CallBr => self.calls.at(d.extra),
            Opcode::GetElementPtr | Opcode::Alloca => self.ty(TypeId(d.extra)).0,
            Opcode::ExtractValue | Opcode::InsertValue => self.index_lists.at(d.extra),
            _ => d.extra,
        };
        d
    }

    /// A worker's metadata operand with the ids it holds shifted.
    #[inline]
    fn md_op(&self, op: MdOp) -> MdOp {
        match op {
            MdOp::Node(m) => MdOp::Node(MdId(self.md_nodes.at(m.0))),
            MdOp::Value(v) => MdOp::Value(self.op(v)),
            other => other,
        }
    }
}

/// Whether a worker's bodies referred only to what the skeleton defines: no new globals,
/// named types or numbered metadata (each would be a use of something undefined, which the
/// sequential parse reports).
fn self_contained(w: &Module, b: &Bases) -> bool {
    w.globals.len() == b.globals
        && w.types.named_structs().count() == b.named_types
        && !w
            .md
            .nodes
            .get(b.md_nodes as usize..)
            .unwrap_or(&[])
            .iter()
            .any(|n| matches!(n.kind, MdKindData::Undefined(_)) || n.number != crate::inst::NONE)
}

/// Appends one worker's additions to `main`. `None` when the worker defined or referred to
/// something the skeleton does not know (the sequential parse then reports it). Only whole
/// parses are merged: their metadata ids are all records' (see `md_data::UNREAD_IDS`).
fn merge(main: &mut Module, b: &Bases, w: Module, group: &[(FuncId, u32, u32)]) -> Option<()> {
    let types = intern_types(main, b, &w)?;
    let kinds = (b.kinds..w.md.kinds.len() as u32)
        .map(|k| main.md.kind_id(&w.md.kinds[k as usize]))
        .collect();
    let r = Remap {
        types,
        type_base: b.types,
        kinds,
        kind_base: b.kinds,
        consts: Shift::new(b.consts, main.consts.len()),
        ops: Shift::new(b.ops, main.ops.len()),
        attrs: Shift::new(b.attrs, main.attrs.len()),
        attr_sets: Shift::new(b.attr_sets, main.attr_sets.len()),
        calls: Shift::new(b.calls, main.calls.len()),
        index_lists: Shift::new(b.index_lists, main.index_lists.len()),
        md_attach: Shift::new(b.md_attach, main.md_attach.len()),
        md_nodes: Shift::new(b.md_nodes, main.md.nodes.len()),
        md_ops: Shift::new(b.md_ops, main.md.ops.len()),
        insts: Shift::new(b.insts, main.insts.len()),
        blocks: Shift::new(b.blocks, main.blocks.len()),
        block_insts: Shift::new(b.block_insts, main.block_insts.len()),
    };
    let mut w = w;
    // Whole arenas move out of the worker (no copy); only their tails, past the skeleton's
    // lengths, are the worker's own.
    use std::mem::take;
    let (w_consts, w_ops, w_attrs, w_attr_sets) = (
        take(&mut w.consts),
        take(&mut w.ops),
        take(&mut w.attrs),
        take(&mut w.attr_sets),
    );
    let (w_calls, w_index_lists, w_md_attach) = (
        take(&mut w.calls),
        take(&mut w.index_lists),
        take(&mut w.md_attach),
    );
    let (w_md_nodes, w_md_ops, w_insts, w_blocks, w_sites) = (
        take(&mut w.md.nodes),
        take(&mut w.md.ops),
        take(&mut w.insts),
        take(&mut w.blocks),
        take(&mut w.sites),
    );
    let w_block_insts = take(&mut w.block_insts);
    let bodies: Vec<BodyFacts> = group
        .iter()
        .map(|&(fid, _, _)| {
            let f = w.funcs.get(fid.index());
            BodyFacts {
                fid,
                blocks: f.map_or(Vec::new(), |f| f.blocks.clone()),
                only_numbered_locals: f.is_some_and(|f| f.only_numbered_locals),
                named_prefixes: f.and_then(|f| f.named_prefixes),
                implicit_numbers: f.is_some_and(|f| f.implicit_numbers),
            }
        })
        .collect();
    drop(w);
    let r = &r;
    fn tail(base: u32) -> usize {
        base as usize
    }
    let Module {
        consts,
        ops,
        attrs,
        attr_sets,
        calls,
        index_lists,
        md_attach,
        md,
        insts,
        blocks,
        block_insts,
        sites,
        ..
    } = main;
    // One arena at a time, each worker arena freed as soon as it is copied: copying two
    // at once would be faster, but would hold two copies of both in memory.
    {
        ops.extend(w_ops[tail(b.ops)..].iter().map(|&op| r.op(op)));
        drop(w_ops);
        consts.extend(w_consts[tail(b.consts)..].iter().map(|c| r.const_data(*c)));
        attrs.extend(w_attrs[tail(b.attrs)..].iter().map(|&a| r.attr(a)));
        attr_sets.extend(
            w_attr_sets[tail(b.attr_sets)..]
                .iter()
                .map(|&(start, len)| (r.attrs.at(start), len)),
        );
        calls.extend(w_calls.into_iter().skip(tail(b.calls)).map(|mut c| {
            c.fn_ty = r.ty(c.fn_ty);
            c.arg_attrs = r.attr_sets.at(c.arg_attrs);
            c.ret_attrs = (r.attrs.at(c.ret_attrs.0), c.ret_attrs.1);
            c
        }));
        index_lists.extend_from_slice(&w_index_lists[tail(b.index_lists)..]);
        md_attach.extend(
            w_md_attach[tail(b.md_attach)..]
                .iter()
                .map(|&(k, m)| (r.kind(k), MdId(r.md_nodes.at(m.0)))),
        );
    }
    {
        insts.extend(w_insts[tail(b.insts)..].iter().map(|d| r.inst(*d)));
        drop(w_insts);
        blocks.extend(w_blocks.into_iter().skip(tail(b.blocks)).map(|mut block| {
            if let InstList::Range(start, _) = &mut block.insts {
                *start = r.block_insts.at(*start);
            }
            block
        }));
        block_insts.extend(
            w_block_insts[tail(b.block_insts)..]
                .iter()
                .map(|i| InstId(r.insts.at(i.0))),
        );
        sites.extend_from_slice(&w_sites[b.sites.min(w_sites.len())..]);
        drop(w_sites);
        md.nodes
            .extend(w_md_nodes[tail(b.md_nodes)..].iter().map(|n| {
                let mut n = *n;
                n.ops = r.md_ops.at(n.ops);
                n
            }));
        md.ops
            .extend(w_md_ops[tail(b.md_ops)..].iter().map(|&op| r.md_op(op)));
    }
    for body in bodies {
        let f = main.funcs.get_mut(body.fid.index())?;
        f.blocks = body
            .blocks
            .iter()
            .map(|b| BlockId(r.blocks.at(b.0)))
            .collect();
        f.only_numbered_locals = body.only_numbered_locals;
        f.named_prefixes = body.named_prefixes;
        f.implicit_numbers = body.implicit_numbers;
    }
    Some(())
}

/// The types a worker made, interned into the main table in order (parts come first): the
/// main table's id of each, by the worker's id less the skeleton's count. `None` for a named
/// type, which the skeleton would have defined.
fn intern_types(main: &mut Module, b: &Bases, w: &Module) -> Option<Vec<TypeId>> {
    let mut types = Vec::with_capacity(w.types.len().saturating_sub(b.types as usize));
    for t in b.types..w.types.len() as u32 {
        let data = w.types.data(TypeId(t)).clone();
        let map = |x: TypeId| {
            if x.0 < b.types {
                x
            } else {
                types
                    .get((x.0 - b.types) as usize)
                    .copied()
                    .unwrap_or(TypeId::VOID)
            }
        };
        let data = match data {
            TypeData::Vector {
                len,
                elem,
                scalable,
            } => TypeData::Vector {
                len,
                elem: map(elem),
                scalable,
            },
            TypeData::Array { len, elem } => TypeData::Array {
                len,
                elem: map(elem),
            },
            TypeData::Struct { fields, packed } => TypeData::Struct {
                fields: fields.iter().map(|&f| map(f)).collect(),
                packed,
            },
            TypeData::Function {
                ret,
                params,
                vararg,
            } => TypeData::Function {
                ret: map(ret),
                params: params.iter().map(|&p| map(p)).collect(),
                vararg,
            },
            TypeData::TargetExt { name, types, ints } => TypeData::TargetExt {
                name,
                types: types.iter().map(|&t| map(t)).collect(),
                ints,
            },
            TypeData::Named(_) => return None,
            other => other,
        };
        let id = main.types.intern(data);
        types.push(id);
    }
    Some(types)
}

#[cfg(test)]
mod tests {
    use super::{scan_text, sparse_lines, BLOCKADDRESS, SCAN_BLOCK};

    /// The lines of `body` a sparse parse reads, as text, for a filter finding `printf`.
    #[test]
    fn a_blockaddress_across_a_block_boundary_is_found() {
        for start in SCAN_BLOCK - BLOCKADDRESS.len()..=SCAN_BLOCK {
            let mut text = vec![b' '; 3 * SCAN_BLOCK];
            text[start..start + BLOCKADDRESS.len()].copy_from_slice(BLOCKADDRESS);
            assert!(scan_text(&text, 1, true).1, "one thread, at {start}");
            assert!(scan_text(&text, 2, true).1, "two threads, at {start}");
            text[start] = b'B';
            assert!(!scan_text(&text, 1, true).1, "a near miss at {start}");
        }
    }

    fn lines_read(body: &str) -> Vec<&str> {
        let src = format!("{{{body}}}");
        let find = |t: &[u8]| memchr::memmem::find(t, b"printf");
        let lines = sparse_lines(src.as_bytes(), 1, src.len() as u32 - 1, &find);
        lines
            .parse
            .iter()
            .map(|&(s, e)| body[s as usize - 1..e as usize - 1].trim())
            .collect()
    }

    #[test]
    fn the_uses_of_a_found_result_are_read_however_spelled() {
        let calls = |n: usize| {
            (0..n)
                .map(|k| format!("  %c{k} = call i32 @printf(ptr @s)\n"))
                .collect::<String>()
        };
        // Few results (searched name by name) and many (one pass over every `%`).
        for n in [1, 9] {
            let body = format!(
                "\n  %7 = call i32 @printf(ptr @s)\n{}  %a = add i32 %07, 1\n  %b = add i32 %\"c0\", %70\n  %d = add i32 %c0x, %7\n  ret void\n",
                calls(n)
            );
            let read = lines_read(&body);
            assert!(read.contains(&"%a = add i32 %07, 1"), "{n}: {read:?}");
            assert!(read.contains(&"%b = add i32 %\"c0\", %70"), "{n}: {read:?}");
            assert!(read.contains(&"%d = add i32 %c0x, %7"), "{n}: {read:?}");
            assert!(!read.contains(&"ret void"), "{n}: {read:?}");
            assert_eq!(read.len(), n + 4, "{n}: {read:?}");
        }
        // Names of 63 bytes and more share one length in the first test, which must still
        // let each through.
        let long = "l".repeat(70);
        let body = format!(
            "\n{}  %{long} = call i32 @printf(ptr @s)\n  %u = add i32 %{long}, 1\n  %v = add i32 %{}, 1\n  ret void\n",
            calls(9),
            "l".repeat(64)
        );
        let read = lines_read(&body);
        assert!(
            read.contains(&format!("%u = add i32 %{long}, 1").as_str()),
            "{read:?}"
        );
        assert_eq!(read.len(), 11, "{read:?}");
        // A number past those a parse reads with gaps (found without a bitmap that large).
        let read = lines_read(
            "\n  %4000000000 = call i32 @printf(ptr @s)\n  %\"x\" = add i32 %4000000000, 1\n  ret void\n",
        );
        assert_eq!(
            read,
            [
                "%4000000000 = call i32 @printf(ptr @s)",
                "%\"x\" = add i32 %4000000000, 1"
            ]
        );
        // Plain spellings only: the search by name.
        let read = lines_read(
            "\n  %r = call i32 @printf(ptr @s)\n  %x = add i32 %r, 1\n  %y = add i32 %rr, 1\n  ret i32 %x\n",
        );
        assert_eq!(
            read,
            ["%r = call i32 @printf(ptr @s)", "%x = add i32 %r, 1"]
        );
    }

    /// Three bodies: one printing, one not, and one whose `define` line does not end in `{`
    /// (valid text, which the guess skips).
    const MODULE: &str = "@s = constant [3 x i8] c\"hi\\00\"\n\n\
        define i32 @f(i32 %n) {\nentry:\n  %c = call i32 (ptr, ...) @printf(ptr @s)\n  %d = add i32 %c, %n\n  ret i32 %d\n}\n\n\
        define void @g() {\n  ret void\n}\n\n\
        define void @h() { ; a comment\n  %c = call i32 (ptr, ...) @printf(ptr @s)\n  ret void\n}\n\n\
        declare i32 @printf(ptr, ...)\n";

    fn find(t: &[u8]) -> Option<usize> {
        memchr::memmem::find(t, b"printf")
    }

    /// The bodies as the skeleton finds them: `(function, start, close)`.
    fn skeleton_bodies(src: &[u8]) -> super::Group {
        let mut skeleton = crate::parser::Parser::new("m.ll", src);
        skeleton.body_ends = super::body_ends(src, 1);
        skeleton.run_skeleton().unwrap();
        skeleton.pending
    }

    fn same_lines(a: &super::SparseLines, b: &super::SparseLines) -> bool {
        a.found == b.found && a.defs == b.defs && a.parse == b.parse
    }

    #[test]
    fn bodies_worked_out_ahead_are_those_the_skeleton_finds() {
        let src = MODULE.as_bytes();
        let bodies = skeleton_bodies(src);
        assert_eq!(bodies.len(), 3);
        let stop = std::sync::atomic::AtomicBool::new(false);
        let ahead = super::bodies_ahead(src, &super::body_ends(src, 1), &find, &stop);
        // @f and @g guessed where the skeleton finds them, @h not guessed.
        let guessed: Vec<(u32, u32)> = ahead.iter().map(|a| (a.start, a.close)).collect();
        assert_eq!(
            guessed,
            [(bodies[0].1, bodies[0].2), (bodies[1].1, bodies[1].2)]
        );
        let expected = sparse_lines(src, bodies[0].1, bodies[0].2, &find);
        assert!(same_lines(ahead[0].found.as_ref().unwrap(), &expected));
        assert!(ahead[1].found.is_none());
        // What the guesses give, and what the search gives without them, agree: @f with its
        // lines, @h to be worked out by its worker.
        let wanted = super::bodies_wanted(src, bodies.clone(), ahead, 2, &find);
        let kept: Vec<_> = wanted.iter().map(|(b, _)| *b).collect();
        assert_eq!(kept, [bodies[0], bodies[2]]);
        assert!(wanted[0].1.is_some() && wanted[1].1.is_none());
        // A stopped search guesses nothing.
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        assert!(super::bodies_ahead(src, &super::body_ends(src, 1), &find, &stop).is_empty());
    }

    #[test]
    fn a_guess_the_skeleton_does_not_confirm_is_not_used() {
        let src = MODULE.as_bytes();
        let bodies = skeleton_bodies(src);
        // Guesses that @f, which prints, prints nothing: one ending elsewhere, one starting
        // elsewhere. Both are ignored and @f is searched.
        for (start, close) in [
            (bodies[0].1, bodies[0].2 + 1),
            (bodies[0].1 - 1, bodies[0].2),
        ] {
            let ahead = vec![super::Ahead {
                start,
                close,
                found: None,
            }];
            let wanted = super::bodies_wanted(src, bodies.clone(), ahead, 1, &find);
            let kept: Vec<_> = wanted
                .iter()
                .map(|(b, lines)| (*b, lines.is_some()))
                .collect();
            assert_eq!(
                kept,
                [(bodies[0], false), (bodies[2], false)],
                "{start} {close}"
            );
        }
    }

    proptest::proptest! {
        /// Text made of the pieces a guess looks for, in any order: no guess panics, and each
        /// lies inside the text, after a `{` that ends a line starting with `define `.
        #[test]
        fn guesses_on_any_text_stay_inside_it(
            pieces in proptest::collection::vec(
                proptest::sample::select(vec!["define ", "{", "}", "\n", "\r", "printf", "%1 = ", "x"]),
                0..60,
            )
        ) {
            let src = pieces.concat();
            let src = src.as_bytes();
            let stop = std::sync::atomic::AtomicBool::new(false);
            for a in super::bodies_ahead(src, &super::body_ends(src, 1), &find, &stop) {
                let (start, close) = (a.start as usize, a.close as usize);
                proptest::prop_assert!(start <= close && close < src.len());
                proptest::prop_assert_eq!(src[start - 1], b'{');
                let line = src[..start].iter().rposition(|&b| b == b'\n').map_or(0, |k| k + 1);
                proptest::prop_assert!(src[line..].starts_with(b"define "));
            }
        }
    }
}
