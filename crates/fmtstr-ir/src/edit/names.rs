//! Fresh local names for new values and blocks.
//!
//! Input: a function and a name hint (`printf.buf`). Output: the hint's first candidate no
//! value of the function has (`printf.buf`, `printf.buf1`, ...), each in O(1): the set of
//! the function's names is built only once a name could clash.

use crate::hash::FxHashSet;
use crate::lexer::{name_key, NameKey};
use crate::module::{name_hash, Module};
use crate::value::{FuncId, InstId};

impl Module {
    /// Names the new instruction `id` of `f` with a fresh local name based on `hint`.
    ///
    /// The candidates are `hint`, `hint1`, `hint2`, ... (`hint.1`, ... when the hint ends in a
    /// digit): the first one not taken. Each hint remembers how far its candidates are taken,
    /// so a name costs O(1). A candidate can clash with another hint's candidate or with a
    /// source name; the names are gathered into a set only once one could (see
    /// [`Module::fresh_name`]), and the source names only once a hint appears in the
    /// function's text (or the text has escapes, which could spell it): a pass that names its
    /// values `bufIndexed` in functions that never say `bufIndexed` never reads their names.
    /// Each candidate is written straight into the name table.
    pub(super) fn name_new_inst(&mut self, f: FuncId, id: InstId, hint: &str) {
        let (start, bare) = self.fresh_name(f, hint);
        self.new_names.finish(id, start, bare);
    }

    /// Writes a fresh local name of `f` based on `hint` (see [`Module::name_new_inst`]) at the
    /// end of the new-name arena, and returns where it starts there: the caller gives it to an
    /// instruction (`finish`) or takes it for a block (`take_pending`); and whether the name
    /// is bare.
    ///
    /// While no name can clash, a name is just the hint's next candidate: the names given out
    /// are only hints' candidates, no two hints can share a candidate (where one is a prefix
    /// of the other, the rest is not only digits and dots), and no source name may start
    /// with a hint. The set of names is built only once one of those stops holding.
    fn fresh_name(&mut self, f: FuncId, hint: &str) -> (usize, bool) {
        // Most names: a hint seen before, while no name can clash. (A hint of digits only is
        // never found as it is: it is kept with its `v`.)
        if let Some(index) = self.funcs[f.index()].names.as_deref_mut() {
            if index.names.is_none() {
                if let Some(slot) = index.hint_slot(hint.as_bytes()) {
                    let (_, _, k, bare) = index.next_suffix[slot];
                    index.next_suffix[slot].2 = k + 1;
                    let start = self.new_names.begin();
                    let bytes = self.new_names.bytes_mut();
                    bytes.extend_from_slice(hint.as_bytes());
                    push_suffix(bytes, k);
                    return (start, bare);
                }
            }
        }
        // A name of digits only would read back as a number.
        let prefix: &[u8] = if hint.bytes().all(|b| b.is_ascii_digit()) {
            b"v"
        } else {
            b""
        };
        let start = self.new_names.begin();
        self.new_names.push_bytes(prefix);
        self.new_names.push_bytes(hint.as_bytes());
        let base_len = prefix.len() + hint.len();
        let index = self.funcs[f.index()].names.as_deref();
        let base = self.new_names.pending(start);
        let slot = index.and_then(|i| i.hint_slot(base));
        if slot.is_none() {
            let sources_named = index.is_some_and(|i| i.sources_named);
            let unchecked = index.is_none_or(|i| i.names.is_none());
            let overlaps = index.is_some_and(|i| i.hint_overlaps(base));
            let source_may_clash = !sources_named && self.source_may_name(f, base);
            if source_may_clash {
                self.collect_source_names(f);
            } else if unchecked && overlaps {
                self.name_set(f);
            }
        }
        let Module {
            funcs, new_names, ..
        } = self;
        let index = funcs[f.index()]
            .names
            .get_or_insert_with(crate::module::FuncIndex::with_room);
        let slot = slot.unwrap_or_else(|| index.add_hint(&new_names.pending(start)[..base_len]));
        let (_, _, mut k, bare) = index.next_suffix[slot];
        loop {
            new_names.truncate(start + base_len);
            push_suffix(new_names.bytes_mut(), k);
            // Unchecked, the candidate is free; checked, the set says.
            let free = match index.names.as_mut() {
                None => true,
                Some(names) => names.insert(name_hash(new_names.pending(start))),
            };
            if free {
                break;
            }
            k += 1;
        }
        // Names are never freed, so every candidate up to `k` stays taken.
        index.next_suffix[slot].2 = k + 1;
        (start, bare)
    }

    /// The set of `f`'s local names, built from the names given out so far when there is
    /// none yet (see [`Module::fresh_name`]).
    fn name_set(&mut self, f: FuncId) -> &mut FxHashSet<u64> {
        let index = self.func_index(f);
        let crate::module::FuncIndex {
            names,
            hints,
            next_suffix,
            ..
        } = index;
        names.get_or_insert_with(|| {
            let mut set = FxHashSet::default();
            let mut name = Vec::new();
            for &(from, to, next, _) in next_suffix.iter() {
                for k in 0..next {
                    name.clear();
                    name.extend_from_slice(&hints[from as usize..to as usize]);
                    push_suffix(&mut name, k);
                    set.insert(name_hash(&name));
                }
            }
            set
        })
    }

    /// Adds the source's local names of `f` to its name index (once).
    fn collect_source_names(&mut self, f: FuncId) {
        let mut set = std::mem::take(self.name_set(f));
        self.for_each_def(f, |raw, numbered, _, _| {
            if let NameKey::Named(name) = name_key(raw, numbered) {
                if !raw.is_empty() {
                    set.insert(name_hash(&name));
                }
            }
        });
        let index = self.func_index(f);
        index.names = Some(set);
        index.sources_named = true;
    }

    /// Like [`Module::fresh_name`], for a name that is usually unique already (`bb.17`): the
    /// name itself when no local of `f` has it, else a fresh one from it. Unlike a hint, it
    /// is not remembered, so that thousands of distinct names cost no list of hints.
    pub(super) fn exact_or_fresh_name(&mut self, f: FuncId, name: &str) -> usize {
        if name.is_empty() || name.bytes().all(|b| b.is_ascii_digit()) {
            return self.fresh_name(f, name).0;
        }
        if !self.funcs[f.index()]
            .names
            .as_ref()
            .is_some_and(|i| i.sources_named)
        {
            self.collect_source_names(f);
        }
        if self.name_set(f).insert(name_hash(name.as_bytes())) {
            let start = self.new_names.begin();
            self.new_names.push_bytes(name.as_bytes());
            return start;
        }
        self.fresh_name(f, name).0
    }

    /// Whether a source name of `f` could start with `base`: the function names locals, one
    /// of them starts with `base`'s first two bytes (as far as the parse's bits tell), and
    /// its text holds `base` or an escape (`\\`) that could spell it.
    fn source_may_name(&self, f: FuncId, base: &[u8]) -> bool {
        let func = &self.funcs[f.index()];
        if func.only_numbered_locals {
            return false;
        }
        // The bits say it without reading the text (a search of a 26 KB body per hint was
        // 40% of naming on `bench lower`'s dense module).
        if func
            .named_prefixes
            .is_some_and(|prefixes| !prefixes.may_start(base))
        {
            return false;
        }
        let item = func.item as usize;
        let Some(text) = self
            .items
            .get(item)
            .and_then(|it| self.src.get(it.start as usize..it.end as usize))
        else {
            return true;
        };
        memchr::memmem::find(text, base).is_some() || memchr::memchr(b'\\', text).is_some()
    }

    pub(super) fn func_index(&mut self, f: FuncId) -> &mut crate::module::FuncIndex {
        self.funcs[f.index()]
            .names
            .get_or_insert_with(crate::module::FuncIndex::with_room)
    }
}

/// Appends the suffix of a name hint's candidate `k` to the hint at the end of `out`: none
/// for 0, else `k`, after a `.` when the hint ends in a digit (`bb1.1`, not `bb11`).
fn push_suffix(out: &mut Vec<u8>, k: u64) {
    if k == 0 {
        return;
    }
    if out.last().is_some_and(u8::is_ascii_digit) {
        out.push(b'.');
    }
    crate::types::push_u64(out, k);
}
