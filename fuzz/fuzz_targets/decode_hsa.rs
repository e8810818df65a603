//! OpenCL's HSA printf (ROCm): `amdhsa.printf` entries (`ID:N:SIZE...:FORMAT`, one per line,
//! an empty line after the last) and then a printf buffer, decoded as `fmtstr decode` does.
#![no_main]

use fmtstr_decode::hsa::{decode, HsaFormat, HsaFormats};
use fmtstr_elf::hsa::parse_entry_bytes;
use fmtstr_fuzz::split;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (entries, buffer) = split(data, b"\n\n");
    let formats = entries
        .split(|&byte| byte == b'\n')
        .enumerate()
        .filter_map(|(index, line)| parse_entry_bytes(index, line).ok())
        .map(|entry| HsaFormat {
            id: entry.id,
            sizes: entry.sizes,
            format: entry.format,
            source: "fuzz".to_owned(),
        });
    let formats = HsaFormats::new(formats);
    let _ = decode(buffer, &formats);
});
