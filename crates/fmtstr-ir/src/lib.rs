//! LLVM IR text.
//!
//! This crate will hold a lossless lexer, parser and printer for LLVM 19's assembly language (an
//! untouched module prints byte-identical to its input), typed access to the instructions the
//! lowering passes rewrite, and LLVM's type and DataLayout rules (sizes, alignments, struct
//! layouts, GEP offset folding). Nothing is implemented yet; see issue 4.
