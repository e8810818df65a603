//! NVIDIA's vprintf buffer: a fuzzed format, then a NUL, then the argument buffer, decoded as
//! `fmtstr decode --vprintf` does.
#![no_main]

use fmtstr_decode::vprintf::{layout, render_vprintf};
use fmtstr_format::Format;
use fmtstr_fuzz::split;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (format, buffer) = split(data, b"\0");
    let Ok(format) = Format::parse(format) else {
        return;
    };
    let _ = layout(&format);
    let mut out = Vec::new();
    let _ = render_vprintf(&format, buffer, &mut out);
});
