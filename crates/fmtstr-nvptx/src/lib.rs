//! The NVPTX parameter ABI.
//!
//! This crate will hold the byval struct-argument pass (kernel and device-function byval
//! aggregates read from the parameter space, `addrspace(101)`, at DataLayout offsets) and the
//! PTX `.param` planner (declarations, value parts, call envelopes and atomics, as llc 19 emits
//! them), both steered by one configuration value so they cannot disagree. See issue 7.
