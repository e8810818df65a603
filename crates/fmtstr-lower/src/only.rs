//! `--only CONDITION`: only the threads asked for print. Each call is put behind a branch on
//! the thread's ids, so that the others run none of it: on NVPTX no vprintf and no argument
//! buffer stores; on AMD no atomic add on `bufferOffset` (no buffer space taken) and no
//! stores.
//!
//! The condition is comparisons of ids joined by `&&`:
//!
//! ```text
//! condition  := comparison ( "&&" comparison )*
//! comparison := NAME "." AXIS OP NUMBER          thread.x==0, local.y<4, block.z!=2
//!             | NAME ("==" | "!=") X "," Y "," Z  block==0,0,0 (all three), thread!=1,0,0
//! NAME       := block | workgroup | thread | local (as --prefix: block = workgroup, thread = local)
//! AXIS       := x | y | z
//! OP         := == | != | < | <= | > | >=        (unsigned: ids are never negative)
//! ```
//!
//! Blanks between tokens are allowed. The ids are read where the call is, as `--prefix` reads
//! them ([`crate::prefix::intrinsic`]). Each call then becomes
//!
//! ```text
//!   %thread.x = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
//!   %only = icmp eq i32 %thread.x, 0
//!   br i1 %only, label %fmtstr.only.0, label %fmtstr.after.0
//! fmtstr.only.0:                                   ; the function's first call
//!   %call = call i32 (ptr, ...) @printf(...)       ; lowered as usual afterwards
//!   br label %fmtstr.after.0
//! fmtstr.after.0:
//!   %printf.result = phi i32 [ %call, %fmtstr.only.0 ], [ 0, %entry ]   ; where the result is used
//! ```
//!
//! and is lowered as usual inside the branch. The arguments are still computed by every
//! thread (they come before the call, and may have side effects the program relies on).

use std::collections::HashMap;

use fmtstr_ir::{
    EditError, FuncId, GuardItem, GuardNames, Module, Opcode, Operand, Position, Predicate, TypeId,
};

use crate::model::PrintfCall;
use crate::prefix::{read_id, PrefixKind, PREFIX_NAMES};

/// How a comparison compares (unsigned).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// `==`.
    Eq,
    /// `!=`.
    Ne,
    /// `<`.
    Lt,
    /// `<=`.
    Le,
    /// `>`.
    Gt,
    /// `>=`.
    Ge,
}

impl Compare {
    const SPELLINGS: [(&'static str, Compare); 6] = [
        ("==", Compare::Eq),
        ("!=", Compare::Ne),
        ("<=", Compare::Le),
        (">=", Compare::Ge),
        ("<", Compare::Lt),
        (">", Compare::Gt),
    ];

    /// How it is written.
    pub fn spelling(self) -> &'static str {
        Self::SPELLINGS
            .iter()
            .find(|(_, c)| *c == self)
            .map_or("==", |(s, _)| s)
    }

    fn predicate(self) -> Predicate {
        match self {
            Compare::Eq => Predicate::EQ,
            Compare::Ne => Predicate::NE,
            Compare::Lt => Predicate::ULT,
            Compare::Le => Predicate::ULE,
            Compare::Gt => Predicate::UGT,
            Compare::Ge => Predicate::UGE,
        }
    }

    /// `a OP b`.
    pub fn holds(self, a: u32, b: u32) -> bool {
        match self {
            Compare::Eq => a == b,
            Compare::Ne => a != b,
            Compare::Lt => a < b,
            Compare::Le => a <= b,
            Compare::Gt => a > b,
            Compare::Ge => a >= b,
        }
    }
}

/// One comparison of a condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Comparison {
    /// Which id.
    pub kind: PrefixKind,
    /// The name written (`block`, `workgroup`, `thread`, `local`).
    pub word: &'static str,
    /// One axis (0 x, 1 y, 2 z) compared with `values[0]`, or `None`: all three compared with
    /// `values` (`==`: all equal; `!=`: not all equal).
    pub axis: Option<usize>,
    /// The comparison.
    pub compare: Compare,
    /// The numbers compared with.
    pub values: [u32; 3],
}

impl Comparison {
    /// Whether a thread with these ids (x, y, z) matches.
    pub fn matches(&self, group: [u32; 3], local: [u32; 3]) -> bool {
        let ids = match self.kind {
            PrefixKind::Group => group,
            PrefixKind::Local => local,
        };
        match self.axis {
            Some(axis) => self.compare.holds(ids[axis], self.values[0]),
            None => (ids == self.values) == (self.compare == Compare::Eq),
        }
    }
}

/// The most comparisons a condition has.
pub const MAX_COMPARISONS: usize = 8;

/// A parsed `--only` condition: comparisons that must all hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Condition {
    comparisons: [Option<Comparison>; MAX_COMPARISONS],
}

/// What `--only` accepts, said after every error.
pub const GRAMMAR: &str = "write comparisons joined by &&, each NAME.AXIS OP N (AXIS x, y or z; \
     OP ==, !=, <, <=, > or >=) or NAME==X,Y,Z / NAME!=X,Y,Z (all three axes), where NAME is \
     block (or workgroup) or thread (or local), e.g. --only 'thread.x==0 && block==0,0,0'";

/// Why a condition is refused: where, and what was wrong there.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error("--only: column {column} of `{condition}`: {problem}; {GRAMMAR}")]
pub struct ConditionError {
    /// The condition as given.
    pub condition: String,
    /// The column (from 1, in characters) of the problem.
    pub column: usize,
    /// What is wrong there.
    pub problem: String,
}

struct Cursor<'a> {
    text: &'a str,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn skip_blanks(&mut self) {
        while self.text[self.at..].starts_with([' ', '\t']) {
            self.at += 1;
        }
    }

    fn rest(&self) -> &str {
        &self.text[self.at..]
    }

    fn error(&self, at: usize, problem: impl Into<String>) -> ConditionError {
        ConditionError {
            condition: self.text.to_owned(),
            column: self.text[..at].chars().count() + 1,
            problem: problem.into(),
        }
    }

    /// What is at the cursor, for a message.
    fn found(&self) -> String {
        match self.rest().chars().next() {
            None => "the end".to_owned(),
            Some(_) => {
                let token: String = self
                    .rest()
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(12)
                    .collect();
                format!("`{token}`")
            }
        }
    }

    fn word(&mut self) -> &'a str {
        let text = self.text;
        let start = self.at;
        let len = self
            .rest()
            .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
            .unwrap_or(self.rest().len());
        self.at += len;
        &text[start..self.at]
    }

    fn number(&mut self) -> Result<u32, ConditionError> {
        let start = self.at;
        let len = self
            .rest()
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(self.rest().len());
        if len == 0 {
            return Err(self.error(start, format!("expected a number, found {}", self.found())));
        }
        self.at += len;
        self.text[start..self.at].parse().map_err(|_| {
            self.error(
                start,
                format!("{} does not fit in 32 bits", &self.text[start..self.at]),
            )
        })
    }

    fn comparison(&mut self) -> Result<Comparison, ConditionError> {
        self.skip_blanks();
        let start = self.at;
        let name = self.word();
        let Some(&(word, kind)) = PREFIX_NAMES.iter().find(|(w, _)| *w == name) else {
            let problem = if name.is_empty() {
                format!("expected an id name, found {}", {
                    self.at = start;
                    self.found()
                })
            } else {
                format!("unknown id `{name}`")
            };
            return Err(self.error(start, problem));
        };
        let axis = if self.rest().starts_with('.') {
            self.at += 1;
            let axis_at = self.at;
            match self.word() {
                "x" => Some(0),
                "y" => Some(1),
                "z" => Some(2),
                other => {
                    return Err(self.error(
                        axis_at,
                        format!("expected x, y or z after `{word}.`, found `{other}`"),
                    ))
                }
            }
        } else {
            None
        };
        self.skip_blanks();
        let op_at = self.at;
        let Some(&(spelling, compare)) = Compare::SPELLINGS
            .iter()
            .find(|(s, _)| self.rest().starts_with(s))
        else {
            return Err(self.error(
                op_at,
                format!(
                    "expected ==, !=, <, <=, > or >= after `{}`, found {}",
                    &self.text[start..op_at].trim_end(),
                    self.found()
                ),
            ));
        };
        self.at += spelling.len();
        self.skip_blanks();
        let mut values = [self.number()?, 0, 0];
        match axis {
            Some(_) => {
                if self.rest().trim_start().starts_with(',') {
                    return Err(self.error(
                        self.at,
                        format!(
                            "`{word}.AXIS` compares with one number: write {word}{}X,Y,Z to \
                             compare all three axes",
                            compare.spelling()
                        ),
                    ));
                }
            }
            None => {
                if !matches!(compare, Compare::Eq | Compare::Ne) {
                    return Err(self.error(
                        op_at,
                        format!(
                            "all three axes of `{word}` compare with == or != only: write \
                             {word}.x{} N for one axis",
                            compare.spelling()
                        ),
                    ));
                }
                for value in &mut values[1..] {
                    self.skip_blanks();
                    if !self.rest().starts_with(',') {
                        return Err(self.error(
                            self.at,
                            format!(
                                "expected `,` and the next axis, found {}: `{word}` alone \
                                 compares all three axes ({word}==X,Y,Z); write {word}.x for \
                                 one",
                                self.found()
                            ),
                        ));
                    }
                    self.at += 1;
                    self.skip_blanks();
                    *value = self.number()?;
                }
            }
        }
        Ok(Comparison {
            kind,
            word,
            axis,
            compare,
            values,
        })
    }
}

impl Condition {
    /// Parses a condition (see the module documentation).
    pub fn parse(text: &str) -> Result<Condition, ConditionError> {
        let mut cursor = Cursor { text, at: 0 };
        let mut comparisons = [None; MAX_COMPARISONS];
        cursor.skip_blanks();
        if cursor.rest().is_empty() {
            return Err(cursor.error(0, "empty condition"));
        }
        let mut count = 0;
        loop {
            let start = cursor.at;
            let comparison = cursor.comparison()?;
            if count == MAX_COMPARISONS {
                return Err(cursor.error(start, format!("more than {MAX_COMPARISONS} comparisons")));
            }
            comparisons[count] = Some(comparison);
            count += 1;
            cursor.skip_blanks();
            if cursor.rest().is_empty() {
                break;
            }
            if !cursor.rest().starts_with("&&") {
                return Err(cursor.error(
                    cursor.at,
                    format!("expected `&&` or the end, found {}", cursor.found()),
                ));
            }
            cursor.at += 2;
        }
        Ok(Condition { comparisons })
    }

    /// The comparisons, in order.
    pub fn comparisons(&self) -> impl Iterator<Item = Comparison> + '_ {
        self.comparisons.iter().flatten().copied()
    }

    /// Whether a thread with these ids (x, y, z) matches.
    pub fn matches(&self, group: [u32; 3], local: [u32; 3]) -> bool {
        self.comparisons().all(|c| c.matches(group, local))
    }
}

/// Puts each of `calls` (in module order) behind a branch on `condition`, before lowering
/// them. The branch blocks of a function's k-th call are `%fmtstr.only.k` and
/// `%fmtstr.after.k`.
pub(crate) fn apply(
    module: &mut Module,
    condition: Option<&Condition>,
    limits: &crate::limit::Conditions,
    nvptx: bool,
    calls: &[PrintfCall],
) -> Result<(), EditError> {
    // First each call's condition, computed right before it, in module order (so the names
    // of the reads and tests count up through the module), and with `--limit-per-site`'s.
    let mut tests = Vec::with_capacity(calls.len());
    for call in calls {
        let only = match condition {
            Some(condition) => test_before(module, condition, nvptx, call.inst)?,
            None => None,
        };
        let test = match (only, limits.get(&call.inst).copied()) {
            (Some(a), Some(b)) => {
                let mut builder = module.builder(Position::Before(call.inst))?;
                Some(builder.binary(Opcode::And, a, b, "only")?)
            }
            (a, b) => a.or(b),
        };
        tests.push(test);
    }
    // Then the branches, in one go (fmtstr-ir guards them from the last call back, so that
    // a block of n calls is not moved n times).
    let mut counts: HashMap<FuncId, usize> = HashMap::new();
    let names: Vec<(String, String)> = calls
        .iter()
        .map(|call| {
            let k = counts.entry(call.function).or_default();
            *k += 1;
            (
                format!("fmtstr.only.{}", *k - 1),
                format!("fmtstr.after.{}", *k - 1),
            )
        })
        .collect();
    let mut items = Vec::with_capacity(calls.len());
    for ((call, test), (then, tail)) in calls.iter().zip(tests).zip(&names) {
        let Some(cond) = test else { continue };
        let ty = module.inst(call.inst).ty();
        items.push(GuardItem {
            inst: call.inst,
            cond,
            names: GuardNames {
                then,
                tail,
                result: "printf.result",
            },
            otherwise: (ty != TypeId::VOID).then(|| module.const_int(ty, 0)),
        });
    }
    module.guard_all(&items)?;
    Ok(())
}

/// Computes `condition` right before `inst`: the `i1` that holds where it matches.
fn test_before(
    module: &mut Module,
    condition: &Condition,
    nvptx: bool,
    inst: fmtstr_ir::InstId,
) -> Result<Option<Operand>, EditError> {
    const XYZ: [&str; 3] = ["x", "y", "z"];
    // Each id read once per call, where the call is.
    let mut reads: [[Option<Operand>; 3]; 2] = [[None; 3]; 2];
    let mut all: Option<Operand> = None;
    for comparison in condition.comparisons() {
        let axes: Vec<(usize, u32)> = match comparison.axis {
            Some(axis) => vec![(axis, comparison.values[0])],
            None => (0..3).zip(comparison.values).collect(),
        };
        let mut this: Option<Operand> = None;
        for (axis, value) in axes {
            let slot = &mut reads[comparison.kind as usize][axis];
            let id = match *slot {
                Some(id) => id,
                None => {
                    let name = format!("{}.{}", comparison.word, XYZ[axis]);
                    let id = read_id(module, inst, nvptx, comparison.kind, axis, &name)?;
                    *slot = Some(id);
                    id
                }
            };
            // An i32 constant of the same bits (LLVM reads i32 literals as signed).
            let number = module.const_int(TypeId::I32, i64::from(value as i32));
            let mut b = module.builder(Position::Before(inst))?;
            let test = b.icmp(comparison.compare.predicate(), id, number, "only")?;
            // All three axes: == holds when every axis is equal, != when any differs.
            let join = if comparison.compare == Compare::Ne && comparison.axis.is_none() {
                Opcode::Or
            } else {
                Opcode::And
            };
            this = Some(match this {
                Some(before) => b.binary(join, before, test, "only")?,
                None => test,
            });
        }
        let Some(this) = this else { continue };
        all = Some(match all {
            Some(before) => {
                module
                    .builder(Position::Before(inst))?
                    .binary(Opcode::And, before, this, "only")?
            }
            None => this,
        });
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Comparison {
        let c = Condition::parse(text).unwrap();
        let all: Vec<Comparison> = c.comparisons().collect();
        assert_eq!(all.len(), 1, "{text}");
        all[0]
    }

    #[test]
    fn the_grammar() {
        let c = one("thread.x==0");
        assert_eq!(
            (c.kind, c.word, c.axis, c.compare, c.values[0]),
            (PrefixKind::Local, "thread", Some(0), Compare::Eq, 0)
        );
        let c = one(" block == 1, 2 ,3 ");
        assert_eq!(
            (c.kind, c.axis, c.values),
            (PrefixKind::Group, None, [1, 2, 3])
        );
        let c = one("workgroup!=0,0,0");
        assert_eq!((c.kind, c.compare), (PrefixKind::Group, Compare::Ne));
        for (text, compare) in [
            ("local.y<4", Compare::Lt),
            ("local.y<=4", Compare::Le),
            ("local.y>4", Compare::Gt),
            ("local.y>=4", Compare::Ge),
            ("local.y!=4", Compare::Ne),
        ] {
            let c = one(text);
            assert_eq!(
                (c.axis, c.compare, c.values[0]),
                (Some(1), compare, 4),
                "{text}"
            );
        }
        let c = Condition::parse("thread.x==0&&block==0,0,0 && local.z >= 4294967295").unwrap();
        assert_eq!(c.comparisons().count(), 3);
        assert_eq!(c.comparisons().nth(2).unwrap().values[0], u32::MAX);
    }

    #[test]
    fn no_text_makes_it_panic() {
        // Every string of up to 4 pieces from an alphabet of the grammar's tokens, stray
        // characters and multi-byte ones parses or is refused, with a column inside it.
        let pieces = [
            "thread",
            "block",
            "local",
            ".x",
            ".",
            "==",
            "!=",
            "<",
            ">=",
            "=",
            "&&",
            "&",
            "0",
            "1,",
            ",",
            "4294967296",
            " ",
            "\t",
            "é",
            "🦀",
            "||",
            "x",
        ];
        let n = pieces.len();
        for code in 0..n.pow(4) {
            let text: String = (0..4).map(|k| pieces[code / n.pow(k) % n]).collect();
            match Condition::parse(&text) {
                Ok(c) => assert!(c.comparisons().count() > 0),
                Err(e) => assert!(e.column <= text.chars().count() + 1, "{text:?}: {e}"),
            }
        }
    }

    #[test]
    fn what_it_matches() {
        let c = Condition::parse("thread.x<2 && block!=1,0,0").unwrap();
        assert!(c.matches([0, 0, 0], [1, 5, 5]));
        assert!(!c.matches([0, 0, 0], [2, 0, 0]));
        assert!(!c.matches([1, 0, 0], [0, 0, 0]));
        assert!(c.matches([1, 0, 1], [0, 0, 0]));
        let c = Condition::parse("block==1,0,0").unwrap();
        assert!(c.matches([1, 0, 0], [7, 7, 7]));
        assert!(!c.matches([1, 0, 1], [7, 7, 7]));
    }

    #[test]
    fn refusals_say_where_and_how() {
        let cases = [
            ("", 1, "empty condition"),
            ("   ", 1, "empty condition"),
            ("wave.x==0", 1, "unknown id `wave`"),
            (
                "thread.w==0",
                8,
                "expected x, y or z after `thread.`, found `w`",
            ),
            (
                "thread.x=0",
                9,
                "expected ==, !=, <, <=, > or >= after `thread.x`, found `=0`",
            ),
            (
                "thread==0",
                10,
                "expected `,` and the next axis, found the end",
            ),
            (
                "block<1,0,0",
                6,
                "all three axes of `block` compare with == or != only",
            ),
            (
                "thread.x==1,0,0",
                12,
                "`thread.AXIS` compares with one number",
            ),
            ("thread.x==-1", 11, "expected a number, found `-1`"),
            (
                "thread.x==4294967296",
                11,
                "4294967296 does not fit in 32 bits",
            ),
            (
                "thread.x==0 || block.x==0",
                13,
                "expected `&&` or the end, found `||`",
            ),
            ("thread.x==0 &&", 15, "expected an id name, found the end"),
            ("thréad.x==0", 1, "unknown id `thr`"),
        ];
        for (text, column, problem) in cases {
            let error = Condition::parse(text).unwrap_err();
            assert_eq!(error.column, column, "{text}: {error}");
            assert!(error.problem.starts_with(problem), "{text}: {error}");
            let message = error.to_string();
            assert!(message.starts_with("--only: column "), "{message}");
            assert!(message.contains("e.g. --only 'thread.x==0 && block==0,0,0'"));
        }
        let nine = ["thread.x==0"; 9].join("&&");
        let error = Condition::parse(&nine).unwrap_err();
        assert_eq!(error.problem, "more than 8 comparisons");
    }
}
