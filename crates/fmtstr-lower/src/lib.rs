//! The printf lowering core.
//!
//! This crate will extract one vendor-neutral model of each `printf` call from LLVM IR and hand it to
//! one back end per target: NVIDIA's `vprintf(fmt, buf)` ABI, AMD LLPC's `lgc.debug.printf`, and the
//! AMD printf-buffer protocol; plus the NVPTX byval struct-argument pass. Nothing is implemented yet;
//! see issues 5 and 7.
