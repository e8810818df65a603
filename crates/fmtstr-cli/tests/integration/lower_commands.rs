//! `fmtstr lower` (issue 5).
