//! The module model: the records the parser fills in, and the [`Module`] that holds them.
//!
//! Input: the parser's (and the edits') records. Output: a [`Module`] whose flat arenas the
//! views, the edits and the printer read; ids and values are in `value`.
//!
//! Everything lives in flat arenas indexed by typed ids, so that a million instructions cost a
//! few dozen bytes each and no pointer chasing. Source-backed records keep byte spans into the
//! module's text; the printer copies those spans for everything an edit did not touch.

use std::sync::OnceLock;

use crate::datalayout::DataLayout;
use crate::hash::{FxHashMap, FxHashSet};
use crate::inst::{Attr, CallData, InstData, Text, NONE, NO_TEXT};
use crate::md_data::MdData;
use crate::types::{TypeId, Types};
use crate::value::{BlockId, ConstId, FuncId, GlobalId, InstId, MdId, PackedOp, Value};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ItemKind {
    SourceFilename,
    DataLayout,
    Triple,
    TypeDef,
    Global(GlobalId),
    Function(FuncId),
    Comdat,
    AttrGroup,
    NamedMd,
    Md,
    ModuleAsm,
    Other,
}

/// Where a top-level entity's text comes from when the module is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum ItemState {
    /// Its text is a span of the source: printed as is, or for a function whose
    /// [`FuncState`] is not empty, as the edits left it.
    Source,
    /// Made by an edit: its own text, or a function's header printed from its fields.
    New,
    /// Removed by an edit: its source text is skipped.
    Removed,
}

/// A top-level entity, printed from `[start, end)` (its first token to the end of its last
/// line) after whatever text precedes it.
#[derive(Clone, Debug)]
pub(crate) struct ItemData {
    pub kind: ItemKind,
    pub start: u32,
    pub end: u32,
    pub state: ItemState,
    /// The text of a new item (without the newline).
    pub text: Option<Box<[u8]>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum GlobalKindData {
    /// Mentioned but not defined (yet): the offset of the first mention.
    Undefined(u32),
    Var(u32),
    Func(FuncId),
    Alias(u32),
    IFunc,
}

#[derive(Clone, Debug)]
pub(crate) struct GlobalData {
    pub name: Box<[u8]>,
    pub numbered: bool,
    pub kind: GlobalKindData,
    pub item: u32,
    pub addrspace: u32,
    /// `ptr addrspace(N)`: the type of the global as a value.
    pub ptr_ty: TypeId,
    pub removed: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct VarData {
    pub value_ty: TypeId,
    pub init: Option<PackedOp>,
    pub constant: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct AliasData {
    pub value_ty: TypeId,
    pub aliasee: PackedOp,
}

crate::flags::flag_set! {
    /// What edits did to a function, which decides how it is printed: as its source text
    /// while empty. Several can hold at once.
    pub(crate) struct FuncState {
        /// Its type or a parameter's attributes changed: the header is printed from its fields.
        const HEADER_EDITED = 1;
        /// An instruction or block was added or removed, or uses of a value replaced: the body
        /// is printed line by line.
        const BODY_EDITED = 2;
        /// A removal shifted the numbering of the values after it: the body's numbered
        /// values are printed renumbered.
        const RENUMBER = 4;
    }
}

#[derive(Clone, Debug)]
pub(crate) struct FuncData {
    pub global: GlobalId,
    pub item: u32,
    pub fn_ty: TypeId,
    pub ret_attrs: (u32, u32),
    pub params: (u32, u32),
    /// `define`/`declare` keyword end to the return type (linkage, visibility, calling
    /// convention, return attributes), kept as text.
    pub prefix: Text,
    pub cconv: Text,
    /// After `)` up to (not including) `{` or the end of a declaration.
    pub suffix: Text,
    /// Where a copy of `suffix` starts in `Module::suffix_copies` (`NONE` without one): the
    /// attribute checks read the copies, a few bytes per function side by side, rather than
    /// one line of the source text each, far apart.
    pub suffix_copy: u32,
    pub is_def: bool,
    /// Whether a filtered parse kept the header of this definition as text (see
    /// `Parser::define_kept_as_text`): its type, parameters, attributes and calling
    /// convention are not known, and the fields that hold them are empty.
    pub header_as_text: bool,
    /// Offset just past `{`.
    pub body_start: u32,
    /// The end of the header's text: past `{` for a definition, past the last token of a
    /// declaration.
    pub header_end: u32,
    /// Offset of the closing `}`.
    pub close: u32,
    pub blocks: Vec<BlockId>,
    /// Whether its parsed body names no local: every parameter, value and label is `%N` or
    /// `N:` (clang's output without -fno-discard-value-names). Then no source name can be
    /// the same as a fresh one. False until the body is parsed.
    pub only_numbered_locals: bool,
    /// The first two bytes of each of its named locals, as bits ([`NamePrefixes`]): a new
    /// name whose bit is clear starts differently from every source name. `None` until the
    /// body is parsed.
    pub named_prefixes: Option<NamePrefixes>,
    /// Whether a parsed value takes its number silently: a non-void instruction without
    /// `%N =`, or a block after the entry without a label (edits place new blocks after the
    /// entry, with names, so this stays true to the body). False until the body is parsed.
    pub implicit_numbers: bool,
    /// Whether a sparse parse kept some of its instructions as text (opaque): text the
    /// module cannot see may then name its values.
    pub has_opaque: bool,
    pub state: FuncState,
    /// Substitutions applied to debug records (which are text, not instructions): the RAUW log.
    pub record_subst: RecordSubst,
    /// Indexes built on demand by edits (fresh names, users of values).
    pub names: Option<Box<FuncIndex>>,
}

impl FuncData {
    /// A declaration with only its type and parameters: one an edit adds, or one the parse
    /// makes for a callee that nothing declares. The parse's other records start from it and
    /// set what their header says; `item` is the caller's to set.
    pub fn declaration(global: GlobalId, fn_ty: TypeId, params: (u32, u32), attrs: u32) -> Self {
        FuncData {
            global,
            item: NONE,
            fn_ty,
            ret_attrs: (attrs, 0),
            params,
            prefix: NO_TEXT,
            cconv: NO_TEXT,
            suffix: NO_TEXT,
            suffix_copy: NONE,
            is_def: false,
            header_as_text: false,
            body_start: NONE,
            header_end: NONE,
            close: NONE,
            blocks: Vec::new(),
            only_numbered_locals: false,
            named_prefixes: None,
            implicit_numbers: false,
            has_opaque: false,
            state: FuncState::EMPTY,
            record_subst: Default::default(),
            names: None,
        }
    }
}

/// The values a function's edits replaced, each with what now stands for it: the debug
/// records are text, and print the replacement where they name a replaced value. A value
/// replaced twice keeps its first replacement; the values replaced by one that is itself
/// replaced follow it. With both maps a replacement costs O(log n) amortized, where a list
/// searched per replacement made a function with many (one per printf call whose result is
/// used, or per call `--prefix` rewrites) quadratic.
#[derive(Clone, Debug, Default)]
pub(crate) struct RecordSubst {
    to: FxHashMap<Value, Value>,
    /// For each replacement, the values that now print as it.
    from: FxHashMap<Value, Vec<Value>>,
}

impl RecordSubst {
    pub fn is_empty(&self) -> bool {
        self.to.is_empty()
    }

    /// Each replaced value and what prints in its place.
    pub fn replacements(&self) -> &FxHashMap<Value, Value> {
        &self.to
    }

    /// Notes that `new` replaced `old`.
    pub fn record(&mut self, old: Value, new: Value) {
        if old == new {
            return;
        }
        if let Some(mut moved) = self.from.remove(&old) {
            for value in &moved {
                self.to.insert(*value, new);
            }
            // The shorter list joins the longer: each value moves O(log n) times.
            let into = self.from.entry(new).or_default();
            if into.len() < moved.len() {
                std::mem::swap(into, &mut moved);
            }
            into.extend(moved);
        }
        if let std::collections::hash_map::Entry::Vacant(entry) = self.to.entry(old) {
            entry.insert(new);
            self.from.entry(new).or_default().push(old);
        }
    }
}

/// `attributes #n = { ... }`.
#[derive(Clone, Debug)]
pub(crate) struct AttrGroup {
    pub n: u32,
    /// The text between the braces.
    pub body: Text,
    /// The words in it outside quotes and parentheses (`nounwind`, `memory`).
    pub words: Box<[Text]>,
}

/// The integer constants made by edits, by value. Most are small and not negative (offsets
/// into a buffer, field indices): those are found by index, the rest by hashing.
#[derive(Clone, Debug, Default)]
pub(crate) struct NewInts {
    small: Vec<Option<ConstId>>,
    other: FxHashMap<i64, ConstId>,
}

impl NewInts {
    /// Values below this are kept by index.
    const SMALL: i64 = 1024;

    pub fn get(&self, value: i64) -> Option<ConstId> {
        if (0..Self::SMALL).contains(&value) {
            self.small.get(value as usize).copied().flatten()
        } else {
            self.other.get(&value).copied()
        }
    }

    pub fn insert(&mut self, value: i64, c: ConstId) {
        if (0..Self::SMALL).contains(&value) {
            let k = value as usize;
            if self.small.len() <= k {
                self.small.resize(k + 1, None);
            }
            self.small[k] = Some(c);
        } else {
            self.other.insert(value, c);
        }
    }
}

/// A function's indexes for edits, built on the first edit that needs them.
#[derive(Clone, Debug, Default)]
pub(crate) struct FuncIndex {
    /// Local names as their [`name_hash`], once a new name could clash with another (see
    /// `Module::fresh_name`): every new name, and the source names once one could clash
    /// (`sources_named`). A hash collision can only make a free name look taken (the next
    /// candidate is used): names stay unique.
    pub names: Option<FxHashSet<u64>>,
    /// Whether `names` holds the source names too.
    pub sources_named: bool,
    /// Per name hint: where it is in `hints`, the suffix to try next (every earlier
    /// candidate is taken), and whether its candidates are bare names (`%a.1`, not `%"a b.1"`).
    /// A pass uses a handful of hints per function: a list beats hashing each name.
    pub next_suffix: Vec<(u32, u32, u64, bool)>,
    /// The hints' bytes, one after another.
    pub hints: Vec<u8>,
    /// The instructions that use each local value, once a use query was made.
    pub users: Option<UserIndex>,
    /// The same for the results of new instructions, once a query about one was made. Kept
    /// apart: the lowerings make many new values and ask about few, so `users` is not
    /// burdened with them; a pass that asks about one per call (`--prefix` replaces each
    /// call, then the lowering removes the replacement) would otherwise scan the function
    /// each time.
    pub new_users: Option<UserIndex>,
    /// Where the last instruction was inserted: (block, index after it), a search hint.
    pub cursor: Option<(BlockId, usize)>,
    /// The source instructions that new instructions use (as their operands were given or
    /// rewritten; some may be stale), for removals to check against.
    pub used_by_new: Vec<u32>,
    /// Whether an edit rewrote a source instruction's operands.
    pub ops_edited: bool,
}

impl FuncIndex {
    /// An index with room for what a lowering's edits of one function note (a few hints,
    /// a call's worth of source operands): one allocation each, where growing from empty
    /// reallocated each list two or three times per function.
    pub fn with_room() -> Box<FuncIndex> {
        Box::new(FuncIndex {
            next_suffix: Vec::with_capacity(4),
            hints: Vec::with_capacity(64),
            used_by_new: Vec::with_capacity(16),
            ..FuncIndex::default()
        })
    }

    /// The slot of a name hint in `next_suffix`.
    pub fn hint_slot(&self, hint: &[u8]) -> Option<usize> {
        // Lengths first: a function's few hints seldom share one.
        self.next_suffix.iter().position(|&(from, to, _, _)| {
            (to - from) as usize == hint.len() && &self.hints[from as usize..to as usize] == hint
        })
    }

    /// Whether `hint` and a hint there already could share a candidate: one is a prefix of
    /// the other, and the rest of the longer is only digits and dots, as a candidate's
    /// suffix is (`bb` and `bb1`; not `vprintf` and `vprintfBuffer.local`).
    pub fn hint_overlaps(&self, hint: &[u8]) -> bool {
        self.next_suffix.iter().any(|&(from, to, _, _)| {
            let other = &self.hints[from as usize..to as usize];
            let rest = if let Some(rest) = other.strip_prefix(hint) {
                rest
            } else if let Some(rest) = hint.strip_prefix(other) {
                rest
            } else {
                return false;
            };
            rest.iter().all(|&b| b.is_ascii_digit() || b == b'.')
        })
    }

    /// Adds a hint, with no candidate taken; returns its slot.
    pub fn add_hint(&mut self, hint: &[u8]) -> usize {
        let from = self.hints.len() as u32;
        self.hints.extend_from_slice(hint);
        // Digits and dots, which candidates add, are name characters.
        let bare = crate::lexer::is_bare_name(hint);
        self.next_suffix
            .push((from, self.hints.len() as u32, 0, bare));
        self.next_suffix.len() - 1
    }
}

/// (packed local value, instruction using it) pairs: a sorted list and the pairs noted since
/// it was sorted. Entries may be stale (removed, or operands since replaced) or repeated:
/// queries check them. No allocation per value.
#[derive(Clone, Debug, Default)]
pub(crate) struct UserIndex {
    /// `value << 32 | user`: one integer per pair sorts several times faster than pairs.
    pub sorted: Vec<u64>,
    pub extra: Vec<u64>,
}

/// A (packed value, user) pair as [`UserIndex`] keeps it.
pub(crate) fn use_key(value: u32, inst: InstId) -> u64 {
    u64::from(value) << 32 | u64::from(inst.0)
}

impl UserIndex {
    pub fn note(&mut self, value: u32, inst: InstId) {
        self.extra.push(use_key(value, inst));
        if self.extra.len() > 32 + self.sorted.len() / 8 {
            // Merge the sorted tail in: linear, every n/8 notes.
            self.extra.sort_unstable();
            let mut merged = Vec::with_capacity(self.sorted.len() + self.extra.len());
            let (mut a, mut b) = (self.sorted.iter().peekable(), self.extra.iter().peekable());
            loop {
                let next = match (a.peek(), b.peek()) {
                    (Some(&&x), Some(&&y)) if x <= y => a.next().copied(),
                    (Some(_), Some(_)) | (None, Some(_)) => b.next().copied(),
                    (Some(_), None) => a.next().copied(),
                    (None, None) => break,
                };
                if let Some(pair) = next {
                    if merged.last() != Some(&pair) {
                        merged.push(pair);
                    }
                }
            }
            self.sorted = merged;
            self.extra.clear();
        }
    }

    /// Every instruction noted as a user of `value` (unchecked, possibly repeated).
    pub fn candidates(&self, value: u32) -> impl Iterator<Item = InstId> + '_ {
        let value = u64::from(value);
        let start = self.sorted.partition_point(|&k| k >> 32 < value);
        let user = |k: u64| InstId(k as u32);
        let sorted = self.sorted[start..]
            .iter()
            .take_while(move |&&k| k >> 32 == value)
            .map(move |&k| user(k));
        let extra = self
            .extra
            .iter()
            .filter(move |&&k| k >> 32 == value)
            .map(move |&k| user(k));
        sorted.chain(extra)
    }
}

#[derive(Clone, Debug)]
pub(crate) struct ArgData {
    pub func: FuncId,
    pub ty: TypeId,
    pub attrs: (u32, u32),
    /// The name token (`%x`, `%0`), or none for an unnamed parameter.
    pub name: Text,
    pub numbered: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct BlockData {
    pub func: FuncId,
    /// The label token (`entry:`, `12:`), or none for an unlabeled entry block.
    pub label: Text,
    pub numbered: bool,
    /// The end of the label line (newline included).
    pub line_end: u32,
    pub insts: InstList,
}

/// A block's instructions: a range of `Module::block_insts` as parsed (one arena for all
/// blocks, no allocation per block), or a list of its own once an edit inserts into it.
#[derive(Clone, Debug)]
pub(crate) enum InstList {
    Range(u32, u32),
    Owned(Vec<InstId>),
}

/// Names of instructions made by edits: one byte arena, indexed by instruction id from the
/// first new instruction (new instructions are appended to the arena, so their ids are dense
/// from there): inserting is a push and finding is an index, with no allocation per name.
#[derive(Clone, Debug, Default)]
pub(crate) struct NewNames {
    /// The id of `ends[0]`.
    base: u32,
    /// Per id from `base`: the end of its name in `bytes` (its start is the previous end; an
    /// empty span is an instruction without a name).
    ends: Vec<u32>,
    bytes: Vec<u8>,
    /// The ids whose names LLVM writes quoted (`%"a b"`), ascending: few or none, so that
    /// printing a name need not check its characters.
    quoted: Vec<u32>,
}

impl NewNames {
    pub fn insert(&mut self, id: InstId, name: &[u8]) {
        self.note_quoting(id, name);
        if self.ends.is_empty() {
            self.base = id.0;
        }
        if id.0 < self.base {
            // Not reached (ids only grow): make room in front, unnamed.
            let gap = (self.base - id.0) as usize;
            self.ends.splice(0..0, std::iter::repeat_n(0, gap));
            self.base = id.0;
        }
        let k = (id.0 - self.base) as usize;
        if k < self.ends.len() {
            // Not reached either: a name for an id below the last one. Rebuild in order.
            let mut names: Vec<Vec<u8>> = (0..self.ends.len())
                .map(|k| self.name_at(k).to_vec())
                .collect();
            names[k] = name.to_vec();
            self.bytes.clear();
            for (slot, n) in names.iter().enumerate() {
                self.bytes.extend_from_slice(n);
                self.ends[slot] = self.bytes.len() as u32;
            }
            return;
        }
        let end = self.bytes.len() as u32;
        self.ends.resize(k, end);
        self.bytes.extend_from_slice(name);
        self.ends.push(self.bytes.len() as u32);
    }

    /// Starts a name written in place: the returned start goes to the calls below.
    pub fn begin(&self) -> usize {
        self.bytes.len()
    }

    pub fn push_bytes(&mut self, bytes: &[u8]) {
        self.bytes.extend_from_slice(bytes);
    }

    /// The arena's bytes, to write a name's end in place.
    pub fn bytes_mut(&mut self) -> &mut Vec<u8> {
        &mut self.bytes
    }

    /// The name begun at `start`, so far.
    pub fn pending(&self, start: usize) -> &[u8] {
        &self.bytes[start..]
    }

    pub fn truncate(&mut self, len: usize) {
        self.bytes.truncate(len);
    }

    /// Takes the name begun at `start` out of the arena (for a name that is not an
    /// instruction's: a new block's).
    pub fn take_pending(&mut self, start: usize) -> Box<[u8]> {
        self.bytes.split_off(start).into_boxed_slice()
    }

    /// Gives the name begun at `start` to `id`; `bare` says whether LLVM writes it unquoted
    /// (the caller knows: a hint's candidates are all bare or all quoted).
    pub fn finish(&mut self, id: InstId, start: usize, bare: bool) {
        if self.ends.is_empty() || id.0 >= self.base + self.ends.len() as u32 {
            if self.ends.is_empty() {
                self.base = id.0;
            }
            let k = (id.0 - self.base) as usize;
            self.ends.resize(k, start as u32);
            self.ends.push(self.bytes.len() as u32);
            if !bare {
                // Past every id so far: the list stays ascending.
                self.quoted.push(id.0);
            }
            return;
        }
        let name = self.bytes.split_off(start);
        self.insert(id, &name);
    }

    fn note_quoting(&mut self, id: InstId, name: &[u8]) {
        let at = self.quoted.binary_search(&id.0);
        match (at, crate::lexer::is_bare_name(name)) {
            (Err(at), false) => self.quoted.insert(at, id.0),
            (Ok(at), true) => {
                self.quoted.remove(at);
            }
            _ => {}
        }
    }

    /// The name of `id` and whether LLVM writes it quoted.
    #[inline]
    pub fn get_spelled(&self, id: &InstId) -> Option<(&[u8], bool)> {
        let name = self.get(id)?;
        let quoted = !self.quoted.is_empty() && self.quoted.binary_search(&id.0).is_ok();
        Some((name, quoted))
    }

    fn name_at(&self, k: usize) -> &[u8] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] as usize };
        &self.bytes[start..self.ends[k] as usize]
    }

    #[inline]
    pub fn get(&self, id: &InstId) -> Option<&[u8]> {
        let k = id.0.checked_sub(self.base)? as usize;
        if k >= self.ends.len() {
            return None;
        }
        let name = self.name_at(k);
        (!name.is_empty()).then_some(name)
    }
}

/// What edits did to a module's blocks.
#[derive(Clone, Debug, Default)]
pub(crate) struct NewBlocks {
    /// The names of the blocks made by edits, decoded. A block is new exactly when it is
    /// here: the source defines the others.
    pub names: FxHashMap<BlockId, Box<[u8]>>,
    /// Where a split moved a block's terminator: to the block that now ends with it, so the
    /// successors' `; preds = ` comments name that block.
    pub moved_terminators: FxHashMap<BlockId, BlockId>,
}

/// The text a module is parsed from, shared by the module and its shards: bytes it owns,
/// or anything else that holds them for as long as the module lives (a memory map of the
/// input file, which spares a large module's copy; see [`SourceText::new`]).
#[derive(Clone)]
pub struct SourceText(std::sync::Arc<dyn AsRef<[u8]> + Send + Sync>);

impl SourceText {
    /// Text held by `owner`, which must give the same bytes for as long as it lives.
    pub fn new(owner: impl AsRef<[u8]> + Send + Sync + 'static) -> Self {
        SourceText(std::sync::Arc::new(owner))
    }
}

impl std::ops::Deref for SourceText {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        (*self.0).as_ref()
    }
}

impl AsRef<[u8]> for SourceText {
    fn as_ref(&self) -> &[u8] {
        self
    }
}

impl Default for SourceText {
    fn default() -> Self {
        SourceText::new(Vec::new())
    }
}

impl std::fmt::Debug for SourceText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SourceText({} bytes)", self.len())
    }
}

impl From<Vec<u8>> for SourceText {
    fn from(bytes: Vec<u8>) -> Self {
        SourceText::new(bytes)
    }
}

impl From<String> for SourceText {
    fn from(text: String) -> Self {
        SourceText::new(text.into_bytes())
    }
}

impl From<&[u8]> for SourceText {
    fn from(bytes: &[u8]) -> Self {
        SourceText::new(bytes.to_vec())
    }
}

impl From<&str> for SourceText {
    fn from(text: &str) -> Self {
        SourceText::new(text.as_bytes().to_vec())
    }
}

/// A parsed LLVM module. Owns its source text; see the crate documentation.
#[derive(Clone, Debug)]
pub struct Module {
    pub(crate) file: String,
    pub(crate) src: SourceText,
    pub(crate) types: Types,
    pub(crate) layout: DataLayout,
    pub(crate) source_filename: Text,
    pub(crate) datalayout_text: Text,
    pub(crate) triple: Text,
    pub(crate) items: Vec<ItemData>,
    /// The functions' suffixes, copied as the header is parsed (see `FuncData::suffix_copy`).
    pub(crate) suffix_copies: Vec<u8>,
    pub(crate) order: Vec<u32>,
    /// Where in `order` the last string `add_string_global` placed is, and its item: the
    /// next goes right after it (checked, else searched for), where a search from the end
    /// passed every function and, with debug info, 150,000 metadata items per string.
    pub(crate) last_new_string: Option<(usize, u32)>,
    pub(crate) globals: Vec<GlobalData>,
    /// Globals by decoded name, and numbered ones (`@0`) by number.
    pub(crate) global_map: FxHashMap<Box<[u8]>, GlobalId>,
    pub(crate) global_numbered: FxHashMap<u32, GlobalId>,
    pub(crate) vars: Vec<VarData>,
    pub(crate) aliases: Vec<AliasData>,
    pub(crate) funcs: Vec<FuncData>,
    pub(crate) args: Vec<ArgData>,
    pub(crate) blocks: Vec<BlockData>,
    pub(crate) insts: Vec<InstData>,
    /// The instruction lists of all blocks as parsed (see [`InstList`]).
    pub(crate) block_insts: Vec<InstId>,
    pub(crate) ops: Vec<PackedOp>,
    pub(crate) consts: Vec<crate::const_data::ConstData>,
    pub(crate) attrs: Vec<Attr>,
    pub(crate) attr_sets: Vec<(u32, u32)>,
    pub(crate) calls: Vec<CallData>,
    pub(crate) index_lists: Vec<u32>,
    pub(crate) md: MdData,
    pub(crate) md_attach: Vec<(u32, MdId)>,
    /// Offsets of every local-value *use* in function bodies, ascending: the printer rewrites
    /// exactly these when names change, and leaves `%struct.T` type names alone. (Definitions
    /// and labels are found from their instruction or block.)
    pub(crate) sites: Vec<u32>,
    /// Current operands of instructions whose operands an edit replaced.
    pub(crate) edited_ops: FxHashMap<InstId, (u32, u32)>,
    /// A bit per slot of `ops` that no live instruction reads: a removed instruction's
    /// operands, and the source operands an edit copied before rewriting them (kept for the
    /// printer). [`Module::global_uses`] passes over them.
    pub(crate) dead_ops: Vec<u64>,
    /// The first instruction an edit made (`u32::MAX` before any): edits append theirs to the
    /// arena, so an instruction before it is known to be parsed without reading its flags.
    pub(crate) first_new_inst: u32,
    /// Names of instructions made by edits.
    pub(crate) new_names: NewNames,
    /// Blocks made by edits ([`Module::split_block_before`], [`Module::add_block`]).
    pub(crate) new_blocks: NewBlocks,
    /// The integer constants made by edits, by value: one each, however many uses.
    pub(crate) new_ints: NewInts,
    /// Contents of string globals made by edits.
    pub(crate) byte_strings: Vec<Box<[u8]>>,
    /// Instructions made by edits that stand for a source instruction they replace (see
    /// [`Module::stand_in`]): their source position and text are that one's.
    pub(crate) stand_ins: FxHashMap<InstId, InstId>,
    pub(crate) line_starts: OnceLock<Vec<u32>>,
    /// Each `attributes #n = { ... }`, by n, built on the first question about function
    /// attributes.
    pub(crate) attr_groups: OnceLock<Vec<AttrGroup>>,
}

/// A 64-bit hash of a local name, for [`FuncIndex::names`]: FxHash of the bytes and the
/// length, finished with a full-avalanche mix.
pub(crate) fn name_hash(name: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = crate::hash::FxHasher::default();
    h.write(name);
    h.write_usize(name.len());
    let mut x = h.finish();
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

/// A set of the first two bytes of names, as 256 bits: a pair's bit is clear when no name
/// of the set starts with it, and may be set when one does not (names sharing a bit).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct NamePrefixes([u64; 4]);

impl NamePrefixes {
    /// A pair's bit: Fibonacci hashing of the two bytes, so that `v1` to `v9` and `bu` do not
    /// share bits as they would by plain arithmetic.
    fn bit(first: u8, second: u8) -> (usize, u64) {
        let pair = u32::from(first) << 8 | u32::from(second);
        let k = (pair.wrapping_mul(0x9e37_79b9) >> 24) as usize;
        (k / 64, 1 << (k % 64))
    }

    /// Adds a name; one shorter than two bytes needs no bit (see [`NamePrefixes::may_start`]).
    pub fn add(&mut self, name: &[u8]) {
        if let [first, second, ..] = *name {
            let (word, bit) = Self::bit(first, second);
            self.0[word] |= bit;
        }
    }

    /// Whether a name of the set may start with `prefix`, two bytes long or more (a shorter
    /// one: always).
    pub fn may_start(&self, prefix: &[u8]) -> bool {
        match *prefix {
            [first, second, ..] => {
                let (word, bit) = Self::bit(first, second);
                self.0[word] & bit != 0
            }
            _ => true,
        }
    }
}

pub(crate) fn text_of(src: &[u8], text: Text) -> &[u8] {
    if text.is_none() {
        return &[];
    }
    src.get(text.start as usize..text.end as usize)
        .unwrap_or(&[])
}

impl Module {
    /// The name the module was parsed under (used in error messages).
    pub fn file_name(&self) -> &str {
        &self.file
    }

    /// The module's source text, as parsed.
    pub fn source(&self) -> &[u8] {
        &self.src
    }

    /// A piece of the source text ([`Attr::Other`] and the like).
    pub fn text(&self, text: Text) -> &[u8] {
        text_of(&self.src, text)
    }

    /// A function's suffix (its attributes after `)`), from its copy when it has one.
    pub(crate) fn fn_suffix(&self, f: &FuncData) -> &[u8] {
        if f.suffix_copy == NONE {
            return self.text(f.suffix);
        }
        let start = f.suffix_copy as usize;
        let len = f.suffix.end.saturating_sub(f.suffix.start) as usize;
        self.suffix_copies
            .get(start..start + len)
            .unwrap_or_else(|| self.text(f.suffix))
    }

    /// The type table.
    pub fn types(&self) -> &Types {
        &self.types
    }

    /// The type table, to build types for edits.
    pub fn types_mut(&mut self) -> &mut Types {
        &mut self.types
    }

    /// The module's data layout (`target datalayout`, with LLVM's defaults for the rest).
    pub fn data_layout(&self) -> &DataLayout {
        &self.layout
    }

    /// The `target triple` string, when present.
    pub fn target_triple(&self) -> Option<String> {
        self.string_of(self.triple)
    }

    /// The `source_filename` string, when present.
    pub fn source_filename(&self) -> Option<String> {
        self.string_of(self.source_filename)
    }

    fn string_of(&self, text: Text) -> Option<String> {
        if text.is_none() {
            return None;
        }
        let raw = self.text(text);
        let body = raw.get(1..raw.len().saturating_sub(1)).unwrap_or(&[]);
        Some(String::from_utf8_lossy(&crate::lexer::unescape(body)).into_owned())
    }

    /// The name of a block made by an edit.
    pub(crate) fn new_block_name(&self, block: BlockId) -> Option<&[u8]> {
        if self.new_blocks.names.is_empty() {
            return None;
        }
        self.new_blocks.names.get(&block).map(|name| &name[..])
    }

    /// The block that ends with what `block`'s terminator was in the source (itself unless a
    /// split moved it).
    pub(crate) fn terminator_block(&self, mut block: BlockId) -> BlockId {
        let moved = &self.new_blocks.moved_terminators;
        if moved.is_empty() {
            return block;
        }
        // Each split moves a terminator to a newer block: the chain ends.
        while let Some(&to) = moved.get(&block) {
            block = to;
        }
        block
    }

    /// A block's instructions, removed ones included.
    pub(crate) fn block_inst_ids(&self, block: BlockId) -> &[InstId] {
        match self.blocks.get(block.index()).map(|b| &b.insts) {
            Some(InstList::Range(start, len)) => self
                .block_insts
                .get(*start as usize..(*start as usize).saturating_add(*len as usize))
                .unwrap_or(&[]),
            Some(InstList::Owned(list)) => list,
            None => &[],
        }
    }

    /// A block's instruction list, to edit.
    pub(crate) fn block_inst_ids_mut(&mut self, block: BlockId) -> &mut Vec<InstId> {
        if let InstList::Range(..) = self.blocks[block.index()].insts {
            // A block is owned to be edited: room for the edit up front, where an exact copy
            // would be copied again by its first insertion.
            let ids = self.block_inst_ids(block);
            let mut owned = Vec::with_capacity(ids.len() + ids.len() / 2 + 16);
            owned.extend_from_slice(ids);
            self.blocks[block.index()].insts = InstList::Owned(owned);
        }
        let b = &mut self.blocks[block.index()];
        match &mut b.insts {
            InstList::Owned(list) => list,
            InstList::Range(..) => unreachable_list(),
        }
    }

    /// Where in `ops` an instruction's operands are now (after edits): (start, length).
    pub(crate) fn inst_ops_range(&self, id: InstId) -> (u32, u32) {
        let data = &self.insts[id.index()];
        if data.flags.contains(crate::inst::InstFlags::OPS_EDITED) {
            self.edited_ops
                .get(&id)
                .copied()
                .unwrap_or((data.ops, data.ops_len))
        } else {
            (data.ops, data.ops_len)
        }
    }

    /// The operands an instruction has now (after edits).
    pub(crate) fn inst_ops(&self, id: InstId) -> &[PackedOp] {
        let (start, len) = self.inst_ops_range(id);
        self.ops
            .get(start as usize..(start as usize).saturating_add(len as usize))
            .unwrap_or(&[])
    }

    /// The operands an instruction was parsed with.
    pub(crate) fn source_ops(&self, id: InstId) -> &[PackedOp] {
        let data = &self.insts[id.index()];
        self.ops
            .get(data.ops as usize..(data.ops as usize).saturating_add(data.ops_len as usize))
            .unwrap_or(&[])
    }

    pub(crate) fn attr_range(&self, range: (u32, u32)) -> &[Attr] {
        self.attrs
            .get(range.0 as usize..(range.0 as usize).saturating_add(range.1 as usize))
            .unwrap_or(&[])
    }

    /// Line and column (both from 1) of a byte offset in the source.
    pub(crate) fn line_col(&self, offset: u32) -> (u32, u32) {
        let starts = self.line_starts.get_or_init(|| {
            let mut starts = vec![0u32];
            let mut at = 0;
            while let Some(n) = memchr::memchr(b'\n', &self.src[at..]) {
                at += n + 1;
                starts.push(at as u32);
            }
            starts
        });
        let line = starts.partition_point(|&s| s <= offset).max(1);
        let start = starts[line - 1];
        let column =
            String::from_utf8_lossy(self.src.get(start as usize..offset as usize).unwrap_or(&[]))
                .chars()
                .count();
        (line as u32, column as u32 + 1)
    }
}

pub(crate) fn none_text() -> Text {
    Text {
        start: NONE,
        end: NONE,
    }
}

/// Never reached: a list was just made owned. Kept out of line so the caller stays small.
#[cold]
fn unreachable_list() -> &'static mut Vec<InstId> {
    Box::leak(Box::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// `RecordSubst` against the log it replaced, a list searched at each replacement
        /// (redirect the values replaced by `old`; add `old` unless already replaced), on
        /// sequences over few values, so that chains, values replaced twice and cycles come.
        #[test]
        fn record_subst_matches_the_list_it_replaced(
            steps in proptest::collection::vec((0u32..6, 0u32..6), 0..40)
        ) {
            let value = |n: u32| Value::Inst(InstId(n));
            let mut list: Vec<(Value, Value)> = Vec::new();
            let mut subst = RecordSubst::default();
            for (old, new) in steps {
                let (old, new) = (value(old), value(new));
                for entry in list.iter_mut() {
                    if entry.1 == old {
                        entry.1 = new;
                    }
                }
                if !list.iter().any(|e| e.0 == old) && old != new {
                    list.push((old, new));
                }
                subst.record(old, new);
                let expected: FxHashMap<Value, Value> = list.iter().copied().collect();
                proptest::prop_assert_eq!(subst.replacements(), &expected);
            }
        }
    }

    #[test]
    fn new_names_by_id_with_gaps_and_out_of_order() {
        let mut names = NewNames::default();
        names.insert(InstId(10), b"a");
        names.insert(InstId(13), b"bb");
        assert_eq!(names.get(&InstId(10)), Some(&b"a"[..]));
        assert_eq!(names.get(&InstId(11)), None, "a void instruction between");
        assert_eq!(names.get(&InstId(13)), Some(&b"bb"[..]));
        assert_eq!(names.get(&InstId(9)), None);
        assert_eq!(names.get(&InstId(14)), None);
        // Ids below the first and between the others still work.
        names.insert(InstId(7), b"c");
        names.insert(InstId(12), b"ddd");
        for (id, name) in [(7, "c"), (10, "a"), (12, "ddd"), (13, "bb")] {
            assert_eq!(names.get(&InstId(id)), Some(name.as_bytes()), "id {id}");
        }
        assert_eq!(names.get(&InstId(8)), None);
        let named = (0..16).filter(|&i| names.get(&InstId(i)).is_some()).count();
        assert_eq!(named, 4);
        // Names written in place, after the last id and (not reached) below it.
        for (id, name) in [(20, "in.place"), (15, "below")] {
            let start = names.begin();
            names.push_bytes(name.as_bytes());
            names.push_bytes(b"7");
            names.truncate(start + name.len());
            names.finish(InstId(id), start, true);
        }
        for (id, name) in [
            (7, "c"),
            (12, "ddd"),
            (13, "bb"),
            (15, "below"),
            (20, "in.place"),
        ] {
            assert_eq!(names.get(&InstId(id)), Some(name.as_bytes()), "id {id}");
        }
        assert_eq!(names.get(&InstId(19)), None);
    }
}
