//! HIP's buffered printf (clang -mprintf-kind=buffered): `amdhsa.printf` entries
//! (`0:0:HASH,FORMAT`, one per line, an empty line after the last) and then a printf buffer of
//! control-dword records, decoded as `fmtstr decode` does.
#![no_main]

use fmtstr_decode::hip::{decode, HipFormat, HipFormats};
use fmtstr_elf::hsa::parse_buffered_entry;
use fmtstr_fuzz::split;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (entries, buffer) = split(data, b"\n\n");
    let formats = entries
        .split(|&byte| byte == b'\n')
        .enumerate()
        .filter_map(|(index, line)| parse_buffered_entry(index, line).ok())
        .map(|entry| HipFormat {
            hash: entry.hash,
            format: entry.format,
            source: "fuzz".to_owned(),
        });
    let formats = HipFormats::new(formats);
    let _ = decode(buffer, &formats);
});
