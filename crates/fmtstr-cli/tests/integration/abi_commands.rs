//! `fmtstr abi` (issue 7).
