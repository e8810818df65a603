//! `fmtstr decode` (issue 6).
