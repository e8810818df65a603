//! `--report`: what each lowered call writes, and what one thread writes per pass through a
//! function, so that a user can size the buffer before launching.
//!
//! - NVPTX: the bytes of the call's `vprintf` argument buffer (natural alignment, rounded up
//!   to the widest argument's alignment; 0 for a call without arguments). A pre-packed call's
//!   buffer is the caller's: its size is unknown.
//! - AMD: the dwords of the call's printf-buffer entry, its 2-dword header included (what the
//!   atomic add on `bufferOffset` takes). At `--stage lgc` the same figure: what fmtstr's
//!   buffer stage writes for the call (LLPC writes only component 0 of a vector). A disabled
//!   `lgc.debug.printf` (poison buffer) writes nothing.
//!
//! A function's figure is the sum over its calls: one pass through every call once.

use std::sync::Arc;

use fmtstr_ir::{FuncId, Module};

use crate::amdgpu::{self, buffer::ENTRY_HEADER_DWORDS, Stage};
use crate::diag::Location;
use crate::model::{Form, PrintfCall};

/// What one call writes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CallReport {
    /// Where the call is (`source` from its `!dbg` location when it has one).
    pub location: Location,
    /// The function it is in.
    pub function: String,
    /// The format string's bytes (without its NUL).
    pub format: Arc<[u8]>,
    /// NVPTX: the `vprintf` argument buffer's bytes; AMD: the entry's bytes (4 per dword).
    /// `None` when unknown (a pre-packed call).
    pub bytes: Option<u64>,
    /// AMD: the entry's dwords, header included.
    pub dwords: Option<u64>,
}

/// What a function writes per pass through all its calls.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FunctionReport {
    /// The function's name.
    pub function: String,
    /// How many calls it has.
    pub calls: usize,
    /// The bytes one thread writes when it passes through every call once (calls of unknown
    /// size count 0 and make `complete` false).
    pub bytes: u64,
    /// Whether every call's size is known.
    pub complete: bool,
}

/// The reports of the NVPTX calls, from their planned layouts.
pub(crate) fn nvptx(
    module: &Module,
    calls: &[PrintfCall],
    layouts: &[crate::nvptx::CallLayout],
) -> Vec<CallReport> {
    calls
        .iter()
        .zip(layouts)
        .map(|(call, layout)| {
            let bytes = match call.form {
                Form::PrePacked => None,
                Form::Bare => Some(0),
                Form::Varargs => Some(layout.payload_bytes()),
            };
            report(module, call, bytes, None)
        })
        .collect()
}

/// The reports of the AMD calls: each entry's size as the buffer stage lays it out.
pub(crate) fn amdgpu(
    module: &Module,
    calls: &[PrintfCall],
    runtime_strings: Option<u32>,
) -> Vec<CallReport> {
    let copies = amdgpu::StringCopies::find(module, calls, runtime_strings);
    calls
        .iter()
        .map(|call| {
            let dwords = if call.callee.is_disabled(module) {
                Some(0)
            } else {
                call.args
                    .iter()
                    .enumerate()
                    .map(|(index, arg)| {
                        amdgpu::carry(module, call, arg, Stage::Buffer, copies.of(call, index))
                            .map(|c| c.dwords)
                    })
                    .sum::<Result<u32, String>>()
                    .ok()
                    .map(|d| u64::from(d + ENTRY_HEADER_DWORDS))
            };
            report(module, call, dwords.map(|d| d * 4), dwords)
        })
        .collect()
}

fn report(
    module: &Module,
    call: &PrintfCall,
    bytes: Option<u64>,
    dwords: Option<u64>,
) -> CallReport {
    CallReport {
        location: call.location(module),
        function: function_name(module, call.function),
        format: call.format.bytes.clone(),
        bytes,
        dwords,
    }
}

fn function_name(module: &Module, f: FuncId) -> String {
    module.function(f).global().name_str().into_owned()
}

/// The per-function sums, in order of each function's first call.
pub fn per_function(calls: &[CallReport]) -> Vec<FunctionReport> {
    let mut out: Vec<FunctionReport> = Vec::new();
    for call in calls {
        let at = match out.iter().position(|f| f.function == call.function) {
            Some(at) => at,
            None => {
                out.push(FunctionReport {
                    function: call.function.clone(),
                    calls: 0,
                    bytes: 0,
                    complete: true,
                });
                out.len() - 1
            }
        };
        let f = &mut out[at];
        f.calls += 1;
        f.bytes += call.bytes.unwrap_or(0);
        f.complete &= call.bytes.is_some();
    }
    out
}
