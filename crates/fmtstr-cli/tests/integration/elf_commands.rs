//! `fmtstr dump`, `embed`, `merge` and `audit` (issue 3).
