//! Names for new values that are free on the first try.
//!
//! fmtstr-ir's builder makes a hint unique by probing `hint`, `hint1`, `hint2`, ... from the
//! start every time, so the n-th value named after one hint in a function costs n probes: a
//! function with a thousand `bufIndexed` GEPs would cost half a million. Counting per function
//! and hint here hands the builder `bufIndexed7` directly: the same names, in linear time (the
//! builder still probes when the module already uses a name).

use std::borrow::Cow;
use std::collections::HashMap;

use fmtstr_ir::FuncId;

/// Per-function counters of name hints.
#[derive(Debug, Default)]
pub(crate) struct Names {
    counts: HashMap<(FuncId, &'static str), u32>,
}

impl Names {
    /// The next name for `base` in `function`: `base`, then `base1`, `base2`, ...
    pub fn next(&mut self, function: FuncId, base: &'static str) -> Cow<'static, str> {
        let count = self.counts.entry((function, base)).or_insert(0);
        let name = match *count {
            0 => Cow::Borrowed(base),
            n => Cow::Owned(format!("{base}{n}")),
        };
        *count += 1;
        name
    }
}
