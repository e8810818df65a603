//! `amdhsa.printf` entries as AMDGPUPrintfRuntimeBinding writes them, on LLVM's own lit inputs
//! for that pass (llvm/test/CodeGen/AMDGPU/*printf*.ll, run through opt): every entry parses,
//! and each call's record length (4 + the entry's sizes) is the byte count the pass passes to
//! `__printf_alloc` for the call that stores that ID. The pass of LLVM 19 (opt-19) and of LLVM 22
//! (opt-22) both run, each on its own release's inputs.

use std::collections::HashMap;
use std::process::Command;

use fmtstr_elf::hsa;
use fmtstr_oracles::{require_llvm, require_llvm_source_of, Llvm, Tool};

/// The bytes of an LLVM metadata string literal body: `\\` is a backslash, `\XX` a byte.
fn unescape(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'\\' && bytes.get(i + 1) == Some(&b'\\') {
            out.push(b'\\');
            i += 2;
        } else if bytes[i] == b'\\' {
            out.push(u8::from_str_radix(&text[i + 1..i + 3], 16).expect("hex escape"));
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("UTF-8")
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn every_entry_the_writer_emits_parses_and_sizes_its_record() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        every_entry_the_writer_emits_parses_and_sizes_its_record_with(llvm);
    }
}

fn every_entry_the_writer_emits_parses_and_sizes_its_record_with(llvm: Llvm) {
    let (Some(source), Some(opt)) = (require_llvm_source_of(llvm), require_llvm(llvm, Tool::Opt))
    else {
        return;
    };
    let dir = source.join("llvm/test/CodeGen/AMDGPU");
    let mut entries_seen = 0;
    let mut records_checked = 0;
    for name in [
        "opencl-printf.ll",
        "printf-existing-format-strings.ll",
        "opencl-printf-and-hostcall.ll",
    ] {
        let output = Command::new(&opt)
            .args([
                "-mtriple=amdgcn--",
                "-passes=amdgpu-printf-runtime-binding",
                "-S",
            ])
            .arg(dir.join(name))
            .output()
            .expect("opt runs");
        assert!(
            output.status.success(),
            "opt of {llvm} on {name}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
        let ir = String::from_utf8(output.stdout).expect("UTF-8");
        // ID -> the size given to __printf_alloc by the call that stores that ID.
        let mut allocated: HashMap<u32, u64> = HashMap::new();
        let mut pending: Option<u64> = None;
        for line in ir.lines().map(str::trim) {
            if let Some(size) = line
                .split_once("@__printf_alloc(i32 ")
                .and_then(|(_, rest)| rest.strip_suffix(')'))
            {
                pending = Some(size.parse().expect("alloc size"));
            } else if let (Some(size), Some(rest)) = (pending, line.strip_prefix("store i32 ")) {
                if let Some((id, _)) = rest.split_once(", ptr addrspace(1) %PrintBuffIdCast") {
                    allocated.insert(id.parse().expect("ID"), size);
                    pending = None;
                }
            }
        }
        for line in ir.lines() {
            // !N = !{!"ID:N:...:FORMAT"}
            let Some(body) = line
                .split_once(" = !{!\"")
                .and_then(|(_, rest)| rest.strip_suffix("\"}"))
            else {
                continue;
            };
            let text = unescape(body);
            if !text
                .split(':')
                .next()
                .is_some_and(|id| !id.is_empty() && id.bytes().all(|b| b.is_ascii_digit()))
            {
                continue;
            }
            let entry = hsa::parse_entry(0, &text)
                .unwrap_or_else(|error| panic!("{llvm}: {name}: {text:?}: {error}"));
            entries_seen += 1;
            if let Some(size) = allocated.get(&entry.id) {
                assert_eq!(entry.record_len(), *size, "{llvm}: {name}: {text:?}");
                records_checked += 1;
            }
        }
    }
    assert!(entries_seen >= 60, "{llvm}: {entries_seen} entries");
    assert!(records_checked >= 55, "{llvm}: {records_checked} records");
}
