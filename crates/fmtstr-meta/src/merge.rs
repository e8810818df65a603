//! Merging format-string tables.
//!
//! - same ID, identical entry: one entry (the first one's bytes are kept);
//! - same ID, different string: a **collision**, an error by default; `OnCollision::KeepFirst`
//!   keeps the first entry and reports the collision as a warning;
//! - same ID and string, different `.argument_count` or 64-bit mask bits: a **conflict**, always
//!   an error (a decoder would read one of the two shaders' arguments wrongly whichever is kept).
//!
//! - `.user_data_offset` (where the driver binds the printf buffer): tables that give different
//!   values **conflict** ([`OffsetConflict`]), always an error, naming both; a table without
//!   the key takes the other's value.
//! - Shader-abort entries (no `.string`) are kept, once each (an identical one from a later
//!   table is dropped), after the printf entries added before them.
//!
//! Every finding names both sources. Unlike LLVM's generic msgpack merge, which combines arrays
//! element by element, entries are matched by ID.

use std::collections::HashMap;
use std::fmt;
use std::hash::{BuildHasherDefault, Hasher};

use crate::mask::Mask;
use crate::table::{Entry, Table};
use crate::FormatId;

/// What to do when two entries share an ID but not a string.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum OnCollision {
    /// Report an error; the caller writes nothing.
    #[default]
    Error,
    /// Keep the entry seen first and report a warning.
    KeepFirst,
}

/// How two entries with the same ID relate.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Relation {
    /// Same string, argument count and mask bits.
    Identical,
    /// Different strings.
    Collision,
    /// Same string, different argument count, mask bits or inline strings.
    Conflict,
}

/// How two entries with the same ID relate (their IDs are not compared).
pub fn relation(first: &Entry<'_>, second: &Entry<'_>) -> Relation {
    if first.bytes() != second.bytes() {
        Relation::Collision
    } else if first.argument_count() != second.argument_count()
        || !first.mask().same_bits(second.mask())
        || first.inline_strings() != second.inline_strings()
    {
        Relation::Conflict
    } else {
        Relation::Identical
    }
}

/// Where an entry came from: the index of its source among those given to [`Merger::add`] and
/// its index among that source's printf entries, and in its `.strings`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Origin {
    /// The source number the table was given to [`Merger::add`] with.
    pub source: usize,
    /// The entry's index in that table's [`Table::entries`]: its index in `.strings` less the
    /// abort entries before it.
    pub index: usize,
    /// The entry's index in that table's `.strings` ([`Table::strings_index`]), abort entries
    /// counted: the position messages name.
    pub strings_index: usize,
}

/// One side of a finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Side {
    /// Which source and entry this side is.
    pub origin: Origin,
    /// The entry's format string.
    pub string: String,
    /// The entry's `.argument_count`.
    pub argument_count: u64,
    /// The entry's `.64bit_arguments`: which of its arguments are 64 bits wide.
    pub mask: Mask,
}

impl Side {
    fn of(origin: Origin, entry: &Entry<'_>) -> Side {
        Side {
            origin,
            string: entry.string().to_owned(),
            argument_count: entry.argument_count(),
            mask: entry.mask().clone(),
        }
    }
}

/// A collision or conflict found while merging: the entry kept first, and the one that
/// disagreed with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MergeFinding {
    /// The ID both entries have.
    pub id: FormatId,
    /// [`Relation::Collision`] or [`Relation::Conflict`] (identical entries are no finding).
    pub relation: Relation,
    /// The entry seen first, which the merged table keeps.
    pub first: Side,
    /// The later entry that disagreed with it.
    pub second: Side,
}

impl MergeFinding {
    /// Whether this finding stops the merge under `policy` (conflicts always do).
    pub fn is_error(&self, policy: OnCollision) -> bool {
        self.relation == Relation::Conflict || policy == OnCollision::Error
    }

    /// A one-line description naming both sources (`names[origin.source]`).
    pub fn describe<N: fmt::Display>(&self, names: &[N]) -> String {
        let name = |side: &Side| {
            names.get(side.origin.source).map_or_else(
                || format!("source {}", side.origin.source),
                ToString::to_string,
            )
        };
        let (first, second) = (&self.first, &self.second);
        match self.relation {
            Relation::Collision => format!(
                "ID {id:#} ({id}) collides: {} .strings[{}] has \"{}\" and {} .strings[{}] has \"{}\"",
                name(first),
                first.origin.strings_index,
                crate::escape::escape(first.string.as_bytes()),
                name(second),
                second.origin.strings_index,
                crate::escape::escape(second.string.as_bytes()),
                id = self.id,
            ),
            _ => format!(
                "ID {id:#} (\"{}\") conflicts: {} .strings[{}] has {} arguments with 64-bit mask {} \
                 and {} .strings[{}] has {} arguments with mask {}",
                crate::escape::escape(first.string.as_bytes()),
                name(first),
                first.origin.strings_index,
                first.argument_count,
                first.mask,
                name(second),
                second.origin.strings_index,
                second.argument_count,
                second.mask,
                id = self.id,
            ),
        }
    }
}

/// Two tables that give `.user_data_offset` different values: the driver binds the printf
/// buffer at one user-data offset, so one of the two shaders would write elsewhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetConflict {
    /// The source whose value is kept, and that value.
    pub first: (usize, u64),
    /// The source that disagreed, and its value.
    pub second: (usize, u64),
}

impl OffsetConflict {
    /// A one-line description naming both sources (`names[source]`).
    pub fn describe<N: fmt::Display>(&self, names: &[N]) -> String {
        let name = |source: usize| {
            names
                .get(source)
                .map_or_else(|| format!("source {source}"), ToString::to_string)
        };
        format!(
            ".user_data_offset conflicts: {} has {} and {} has {} (the printf buffer's user-data \
             offset in dwords; the pipeline binds one buffer, so link shaders built for the same \
             offset)",
            name(self.first.0),
            self.first.1,
            name(self.second.0),
            self.second.1
        )
    }
}

/// A hasher for IDs, which are hashes already: one multiplication spreads them.
#[derive(Clone, Copy, Debug, Default)]
pub struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*byte)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_u64(&mut self, value: u64) {
        self.0 = (value ^ (value >> 29)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

/// A `HashMap` keyed by IDs (or other hash values) with [`IdHasher`].
pub type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;

/// Combines tables one after another.
#[derive(Debug, Default)]
pub struct Merger<'a> {
    table: Table<'a>,
    origins: Vec<Origin>,
    by_id: IdMap<u64, usize>,
    findings: Vec<MergeFinding>,
    /// The source `.user_data_offset` was taken from.
    offset_source: usize,
    offset_conflicts: Vec<OffsetConflict>,
}

/// The merged table and what was found on the way.
#[derive(Debug)]
pub struct Merged<'a> {
    /// The merged table: every distinct entry once, in the order first seen.
    pub table: Table<'a>,
    /// Where each entry of `table` came from.
    pub origins: Vec<Origin>,
    /// Every collision and conflict, in the order found; which ones are errors depends on the
    /// [`OnCollision`] policy ([`MergeFinding::is_error`]).
    pub findings: Vec<MergeFinding>,
    /// Tables that disagreed on `.user_data_offset` (always errors).
    pub offset_conflicts: Vec<OffsetConflict>,
}

impl Merged<'_> {
    /// Whether any finding stops the merge under `policy`.
    pub fn has_errors(&self, policy: OnCollision) -> bool {
        !self.offset_conflicts.is_empty()
            || self.findings.iter().any(|finding| finding.is_error(policy))
    }

    /// How many findings stop the merge under `policy`.
    pub fn error_count(&self, policy: OnCollision) -> usize {
        self.offset_conflicts.len()
            + self
                .findings
                .iter()
                .filter(|finding| finding.is_error(policy))
                .count()
    }
}

impl<'a> Merger<'a> {
    /// A merger with no table added yet: [`add`](Merger::add) each source in order.
    pub fn new() -> Merger<'a> {
        Merger::default()
    }

    /// Reserves room for this many more entries.
    pub fn reserve(&mut self, entries: usize) {
        self.table.entries.reserve(entries);
        self.origins.reserve(entries);
        self.by_id.reserve(entries);
    }

    /// Adds a table's entries (source number `source`, for findings) after those added so far.
    /// Unknown table-level keys are taken from the first table that has each key.
    pub fn add(&mut self, source: usize, table: Table<'a>) {
        self.reserve(table.entries.len());
        let base = self.table.entries.len();
        // The abort entries written before the current entry, as `Table::strings_index` counts
        // them (counted as the entries go, not from the start for each).
        let mut aborts_before = 0;
        for (index, entry) in table.entries.into_iter().enumerate() {
            while table
                .aborts
                .get(aborts_before)
                .is_some_and(|abort| abort.position <= index)
            {
                aborts_before += 1;
            }
            let origin = Origin {
                source,
                index,
                strings_index: index + aborts_before,
            };
            match self.by_id.entry(entry.id().get()) {
                std::collections::hash_map::Entry::Vacant(slot) => {
                    slot.insert(self.table.entries.len());
                    self.table.entries.push(entry);
                    self.origins.push(origin);
                }
                std::collections::hash_map::Entry::Occupied(slot) => {
                    let kept = &self.table.entries[*slot.get()];
                    let relation = relation(kept, &entry);
                    if relation != Relation::Identical {
                        self.findings.push(MergeFinding {
                            id: entry.id(),
                            relation,
                            first: Side::of(self.origins[*slot.get()], kept),
                            second: Side::of(origin, &entry),
                        });
                    }
                }
            }
        }
        match (self.table.user_data_offset, table.user_data_offset) {
            (None, Some(offset)) => {
                self.table.user_data_offset = Some(offset);
                self.offset_source = source;
            }
            (Some(kept), Some(offset)) if kept != offset => {
                self.offset_conflicts.push(OffsetConflict {
                    first: (self.offset_source, kept),
                    second: (source, offset),
                })
            }
            _ => {}
        }
        for mut abort in table.aborts {
            if !self.table.aborts.iter().any(|kept| kept.same_as(&abort)) {
                // Where it stood among its own table's entries, among those this one added.
                let added = self.table.entries.len() - base;
                abort.position = base + abort.position.min(added);
                self.table.aborts.push(abort);
            }
        }
        for (key, value) in table.extra {
            if !self.table.extra.iter().any(|(seen, _)| *seen == key) {
                self.table.extra.push((key, value));
            }
        }
    }

    /// The merged table and the findings.
    pub fn finish(self) -> Merged<'a> {
        Merged {
            table: self.table,
            origins: self.origins,
            findings: self.findings,
            offset_conflicts: self.offset_conflicts,
        }
    }
}

/// Merges tables in order (findings say which are errors under which policy).
pub fn merge<'a>(tables: impl IntoIterator<Item = Table<'a>>) -> Merged<'a> {
    let mut merger = Merger::new();
    for (source, table) in tables.into_iter().enumerate() {
        merger.add(source, table);
    }
    merger.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::AbortEntry;
    use rmpv::Value;

    fn entry(id: u64, string: &'static str, argc: u64, mask: u64) -> Entry<'static> {
        Entry::new(
            FormatId::new(id).unwrap(),
            string,
            argc,
            Mask::from_words(&[mask]),
        )
    }

    fn table(entries: Vec<Entry<'static>>) -> Table<'static> {
        Table {
            entries,
            ..Table::new()
        }
    }

    #[test]
    fn identical_entries_collapse_and_order_is_kept() {
        let merged = merge([
            table(vec![entry(1, "a", 0, 0), entry(2, "b %d", 1, 0)]),
            table(vec![
                entry(3, "c", 0, 0),
                entry(1, "a", 0, 0),
                entry(2, "b %d", 1, 0),
            ]),
        ]);
        assert!(merged.findings.is_empty());
        let ids: Vec<u64> = merged.table.entries.iter().map(|e| e.id().get()).collect();
        assert_eq!(ids, [1, 2, 3]);
        assert_eq!(
            merged.origins[2],
            Origin {
                source: 1,
                index: 0,
                strings_index: 0
            }
        );
    }

    #[test]
    fn mask_words_that_only_differ_in_trailing_zeros_are_identical() {
        let a = Entry::new(FormatId::new(1).unwrap(), "a", 0, Mask::from_words(&[]));
        let b = Entry::new(FormatId::new(1).unwrap(), "a", 0, Mask::from_words(&[0]));
        assert_eq!(relation(&a, &b), Relation::Identical);
    }

    #[test]
    fn collisions_and_conflicts_name_both_sources() {
        let merged = merge([
            table(vec![entry(1, "a %d", 1, 0), entry(2, "b %ld", 1, 1)]),
            table(vec![entry(1, "other %d", 1, 0), entry(2, "b %ld", 1, 0)]),
        ]);
        assert_eq!(merged.findings.len(), 2);
        let names = ["base.elf", "input.elf"];
        let collision = &merged.findings[0];
        assert_eq!(collision.relation, Relation::Collision);
        assert!(!collision.is_error(OnCollision::KeepFirst));
        assert!(collision.is_error(OnCollision::Error));
        let text = collision.describe(&names);
        assert!(text.contains("base.elf .strings[0] has \"a %d\""), "{text}");
        assert!(
            text.contains("input.elf .strings[0] has \"other %d\""),
            "{text}"
        );
        let conflict = &merged.findings[1];
        assert_eq!(conflict.relation, Relation::Conflict);
        assert!(conflict.is_error(OnCollision::KeepFirst));
        let text = conflict.describe(&names);
        assert!(
            text.contains("mask [0x1]") && text.contains("mask [0x0]"),
            "{text}"
        );
        assert!(merged.has_errors(OnCollision::KeepFirst));
        // The first entry is kept.
        assert_eq!(merged.table.entries[0].string(), "a %d");
        assert_eq!(merged.table.entries.len(), 2);
    }

    /// Messages name an entry by its place in `.strings`, where abort entries count too.
    #[test]
    fn findings_name_the_index_in_strings_counting_abort_entries() {
        let abort = |position: usize, id: u64| {
            AbortEntry::new(
                position,
                vec![
                    (Value::from(".index"), Value::from(id)),
                    (Value::from(".is_abort_message"), Value::from(1u64)),
                ],
            )
        };
        // .strings: [abort 9, "x", abort 10, "a %d"]: "a %d" is .strings[3].
        let mut first = table(vec![entry(3, "x", 0, 0), entry(1, "a %d", 1, 0)]);
        first.aborts = vec![abort(0, 9), abort(1, 10)];
        // .strings: ["b %ld", "other %d", abort 11, "y"]: the conflict is .strings[0], the
        // collision .strings[1].
        let mut second = table(vec![
            entry(2, "b %ld", 1, 0),
            entry(1, "other %d", 1, 0),
            entry(4, "y", 0, 0),
        ]);
        second.aborts = vec![abort(2, 11)];
        // .strings: [abort 12, abort 13, "b %ld"]: .strings[2].
        let mut third = table(vec![entry(2, "b %ld", 1, 1)]);
        third.aborts = vec![abort(0, 12), abort(0, 13)];
        let merged = merge([first, second, third]);
        let names = ["first.elf", "second.elf", "third.elf"];
        let texts: Vec<String> = merged.findings.iter().map(|f| f.describe(&names)).collect();
        assert_eq!(texts.len(), 2, "{texts:?}");
        assert!(
            texts[0].contains("first.elf .strings[3] has \"a %d\"")
                && texts[0].contains("second.elf .strings[1] has \"other %d\""),
            "{}",
            texts[0]
        );
        assert!(
            texts[1].contains("second.elf .strings[0] has 1 arguments")
                && texts[1].contains("third.elf .strings[2] has 1 arguments"),
            "{}",
            texts[1]
        );
        let origins: Vec<(usize, usize)> = merged
            .origins
            .iter()
            .map(|o| (o.index, o.strings_index))
            .collect();
        // x, a %d, b %ld, y: each kept entry's place among printf entries and in .strings.
        assert_eq!(origins, [(0, 1), (1, 3), (0, 0), (2, 3)]);
    }

    #[test]
    fn table_level_unknown_keys_are_kept_first_wins() {
        let mut first = table(vec![]);
        first.extra.push((Value::from(".x"), Value::from(1u64)));
        let mut second = table(vec![]);
        second.extra.push((Value::from(".x"), Value::from(2u64)));
        second.extra.push((Value::from(".y"), Value::from(3u64)));
        let merged = merge([first, second]);
        assert_eq!(
            merged.table.extra,
            vec![
                (Value::from(".x"), Value::from(1u64)),
                (Value::from(".y"), Value::from(3u64))
            ]
        );
    }

    #[test]
    fn user_data_offsets_that_differ_conflict_and_name_both() {
        let with = |offset: Option<u64>| Table {
            user_data_offset: offset,
            ..table(vec![entry(1, "a", 0, 0)])
        };
        let merged = merge([with(None), with(Some(3)), with(Some(3)), with(Some(5))]);
        assert_eq!(merged.table.user_data_offset, Some(3));
        assert_eq!(
            merged.offset_conflicts,
            [OffsetConflict {
                first: (1, 3),
                second: (3, 5)
            }]
        );
        assert!(merged.has_errors(OnCollision::KeepFirst));
        assert_eq!(merged.error_count(OnCollision::KeepFirst), 1);
        let text = merged.offset_conflicts[0].describe(&["base", "a", "b", "c"]);
        assert!(text.contains("a has 3 and c has 5"), "{text}");
        assert!(!merge([with(Some(0)), with(None)]).has_errors(OnCollision::Error));
    }

    #[test]
    fn abort_entries_are_kept_once_each() {
        let abort = |id: u64| {
            AbortEntry::new(
                0,
                vec![
                    (Value::from(".index"), Value::from(id)),
                    (Value::from(".is_abort_message"), Value::from(1u64)),
                ],
            )
        };
        let mut first = table(vec![entry(1, "a", 0, 0)]);
        first.aborts.push(abort(9));
        let mut second = table(vec![entry(2, "b", 0, 0)]);
        second.aborts.push(abort(9));
        second.aborts.push(abort(10));
        let merged = merge([first, second]);
        let ids: Vec<u64> = merged
            .table
            .aborts
            .iter()
            .map(|a| a.id().unwrap().get())
            .collect();
        assert_eq!(ids, [9, 10]);
        assert_eq!(merged.table.aborts[0].position, 0);
        assert_eq!(merged.table.aborts[1].position, 1);
    }
}
