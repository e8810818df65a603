//! hash, printf, check
