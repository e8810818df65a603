//! HIP's buffered printf (clang `-mprintf-kind=buffered`): the `amdhsa.printf` table clang-19
//! writes (`0:0:HASH,FORMAT`), judged by llvm-readobj-19 and by MD5; and a host run: the device
//! IR clang writes for samples/hip/work.hip, retargeted to x86_64 and linked with a
//! `__printf_alloc` that works like ROCm's, fills the buffer on the host's threads, and `fmtstr
//! decode --elf` of it prints exactly what the host's printf prints for the same calls
//! (samples/hip/work.c). Damaged tables and buffers are findings or exit 2, never a panic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use fmtstr_oracles::{require_llvm, Llvm, Tool};
use serde_json::Value as Json;

use crate::util::{assert_matches_schema, root, run};

fn sample(name: &str) -> PathBuf {
    root().join("samples/hip").join(name)
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-hip-test-")
        .tempdir()
        .expect("temp dir")
}

#[track_caller]
fn checked(command: &mut Command) -> Vec<u8> {
    let output = command.output().expect("the tool runs");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// HIP device code to LLVM IR as clang writes it for gfx1100 with the buffered printf, then
/// (llc, as clang's own `-c` would, without the device link that needs ROCm's libraries) to a
/// code object. Returns the IR's path and the object's.
fn compile(clang: &Path, llc: &Path, source: &Path, dir: &Path) -> (PathBuf, PathBuf) {
    compile_kind(clang, llc, source, dir, "buffered")
}

/// [`compile`] with `-mprintf-kind=KIND` (`buffered` or `hostcall`, HIP's default).
fn compile_kind(
    clang: &Path,
    llc: &Path,
    source: &Path,
    dir: &Path,
    kind: &str,
) -> (PathBuf, PathBuf) {
    let ir = dir.join("work.ll");
    checked(
        Command::new(clang)
            .args([
                "-x",
                "hip",
                "--offload-arch=gfx1100",
                "--cuda-device-only",
                "-nogpuinc",
                "-nogpulib",
                &format!("-mprintf-kind={kind}"),
                "-O1",
                "-emit-llvm",
                "-S",
                "-o",
            ])
            .arg(&ir)
            .arg(source),
    );
    let object = dir.join("work.o");
    checked(
        Command::new(llc)
            .args([
                "-mtriple=amdgcn-amd-amdhsa",
                "-mcpu=gfx1100",
                "-filetype=obj",
                "-o",
            ])
            .arg(&object)
            .arg(&ir),
    );
    (ir, object)
}

/// The `amdhsa.printf` strings `llvm-readobj --notes` shows.
fn readobj_printf(readobj: &Path, file: &Path) -> Vec<String> {
    let notes = crate::llvm::metadata_notes(readobj, file);
    assert_eq!(notes.len(), 1, "one metadata note in {}", file.display());
    notes[0]
        .get("amdhsa.printf")
        .and_then(|v| v.as_sequence())
        .expect("amdhsa.printf")
        .iter()
        .map(|v| v.as_str().expect("a string").to_owned())
        .collect()
}

/// The low 64 bits of the MD5 of `bytes` as LLVM computes them, from the md-5 crate: the first
/// 8 bytes of the digest as a little-endian integer.
fn md5_low(bytes: &[u8]) -> u64 {
    use md5::Digest;
    let digest = md5::Md5::digest(bytes);
    u64::from_le_bytes(digest[..8].try_into().unwrap())
}

fn audit_json(files: &[&Path]) -> Json {
    let mut args: Vec<&Path> = vec![Path::new("audit"), Path::new("--format"), Path::new("json")];
    args.extend(files);
    let report: Json = serde_json::from_slice(&run(args).stdout).expect("JSON");
    assert_matches_schema("audit.schema.json", &report);
    report
}

fn kinds(report: &Json) -> Vec<String> {
    report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap().to_owned())
        .collect()
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn dump_and_audit_read_the_table_clang_writes_for_hip_buffered_printf() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        dump_and_audit_read_the_table_clang_writes_for_hip_buffered_printf_with(llvm);
    }
}

fn dump_and_audit_read_the_table_clang_writes_for_hip_buffered_printf_with(llvm: Llvm) {
    let (Some(clang), Some(llc), Some(readobj)) = (
        require_llvm(llvm, Tool::Clang),
        require_llvm(llvm, Tool::Llc),
        require_llvm(llvm, Tool::LlvmReadobj),
    ) else {
        return;
    };
    let dir = scratch();
    let (ir, object) = compile(&clang, &llc, &sample("work.hip"), dir.path());
    let text = std::fs::read_to_string(&ir).unwrap();
    assert!(
        text.contains(r#"!"amdgpu_printf_kind", !"buffered"}"#),
        "clang did not write the buffered printf"
    );
    let strings = readobj_printf(&readobj, &object);
    assert!(strings.len() >= 8, "{strings:?}");
    let dumped: Json = serde_json::from_slice(
        &run([Path::new("dump"), Path::new("--json"), &object])
            .expect_code(0)
            .stdout,
    )
    .expect("JSON");
    assert_matches_schema("dump.schema.json", &dumped);
    assert_eq!(dumped[0]["printf_kind"], "buffered");
    let entries = dumped[0]["amdhsa_printf"].as_array().expect("entries");
    assert_eq!(entries.len(), strings.len());
    for (entry, string) in entries.iter().zip(&strings) {
        // 0:0:HASH,FORMAT, split here independently of fmtstr.
        let rest = string.strip_prefix("0:0:").expect("0:0: prefix");
        let (hex, format) = rest.split_once(',').expect("a comma");
        let hash = u64::from_str_radix(hex, 16).expect("hex hash");
        assert_eq!(entry["entry"].as_str(), Some(string.as_str()));
        assert_eq!(entry["format"].as_str(), Some(format), "{string}");
        assert_eq!(
            entry["hash"].as_str(),
            Some(format!("{hash:016x}").as_str())
        );
        // The hash clang wrote is the MD5 of the format, computed here with the md-5 crate.
        assert_eq!(hash, md5_low(format.as_bytes()), "{string}");
        assert_eq!(entry["hash_matches"], true, "{string}");
        assert_eq!(entry["placeholder"], false);
        assert!(entry["argument_count"].is_u64(), "{string}");
    }
    // Every stored hash is one the table names: the i64 stores right after a control dword.
    let table: Vec<u64> = strings
        .iter()
        .map(|s| u64::from_str_radix(&s[4..s.find(',').unwrap()], 16).unwrap())
        .collect();
    let stored: Vec<u64> = text
        .lines()
        .filter_map(|line| line.trim().strip_prefix("store i64 "))
        .filter_map(|rest| rest.split(',').next()?.parse::<i64>().ok())
        .map(|value| value as u64)
        .filter(|value| table.contains(value))
        .collect();
    assert!(stored.len() >= 8, "{stored:?}");
    let listing = run([Path::new("dump"), &object])
        .expect_code(0)
        .stdout_text();
    assert!(listing.contains("HIP buffered printf"), "{listing}");
    assert!(listing.contains(&format!("{:016x}", table[0])), "{listing}");
    // A clean object has no findings (before this kind was read: 8 false ones).
    let report = audit_json(&[&object]);
    assert!(kinds(&report).is_empty(), "{report}");
    assert_eq!(report["strings"].as_u64(), Some(strings.len() as u64));

    // A module whose only format is unknown at compile time: clang's placeholder entry, which
    // is not the MD5 of its text and is no finding.
    let only_dynamic = dir.path().join("dynamic.hip");
    std::fs::write(
        &only_dynamic,
        "#define __device__ __attribute__((device))\n\
         extern \"C\" __device__ int printf(const char *, ...);\n\
         extern \"C\" __device__ void say(const char *format, int x) { printf(format, x); }\n",
    )
    .unwrap();
    let sub = dir.path().join("dynamic");
    std::fs::create_dir(&sub).unwrap();
    let (_, dynamic) = compile(&clang, &llc, &only_dynamic, &sub);
    let strings = readobj_printf(&readobj, &dynamic);
    assert_eq!(strings, [r#"0:0:ffffffff,"Non const format string""#]);
    let dumped: Json = serde_json::from_slice(
        &run([Path::new("dump"), Path::new("--json"), &dynamic])
            .expect_code(0)
            .stdout,
    )
    .unwrap();
    assert_matches_schema("dump.schema.json", &dumped);
    assert_eq!(dumped[0]["amdhsa_printf"][0]["placeholder"], true);
    let report = audit_json(&[&dynamic, &object]);
    assert!(kinds(&report).is_empty(), "{report}");

    // HIP's default, hostcall printf: no table, and nothing to decode; dump and decode say so.
    let sub = dir.path().join("hostcall");
    std::fs::create_dir(&sub).unwrap();
    let (ir, hostcall) = compile_kind(&clang, &llc, &sample("work.hip"), &sub, "hostcall");
    assert!(std::fs::read_to_string(ir)
        .unwrap()
        .contains("@__ockl_printf_begin"));
    let listing = run([Path::new("dump"), &hostcall])
        .expect_code(0)
        .stdout_text();
    assert!(
        listing.contains("HSA code object without amdhsa.printf")
            && listing.contains("hostcall buffer"),
        "{listing}"
    );
    let buffer = sub.join("empty.bin");
    std::fs::write(&buffer, [0; 8]).unwrap();
    let failed = run([Path::new("decode"), Path::new("--elf"), &hostcall, &buffer]).expect_code(2);
    assert!(
        failed.stderr.contains("without amdhsa.printf")
            && failed.stderr.contains("-mprintf-kind=buffered"),
        "{}",
        failed.stderr
    );
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn damaged_hip_tables_are_findings_or_errors() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        damaged_hip_tables_are_findings_or_errors_with(llvm);
    }
}

fn damaged_hip_tables_are_findings_or_errors_with(llvm: Llvm) {
    let (Some(clang), Some(llc), Some(readobj)) = (
        require_llvm(llvm, Tool::Clang),
        require_llvm(llvm, Tool::Llc),
        require_llvm(llvm, Tool::LlvmReadobj),
    ) else {
        return;
    };
    let dir = scratch();
    let (_, object) = compile(&clang, &llc, &sample("work.hip"), dir.path());
    let strings = readobj_printf(&readobj, &object);
    let bytes = std::fs::read(&object).expect("object");
    let find = |needle: &str| {
        bytes
            .windows(needle.len())
            .position(|w| w == needle.as_bytes())
            .unwrap_or_else(|| panic!("{needle:?} not in the object"))
    };
    // Two entries whose hashes have 16 digits (clang drops leading zeros), to patch in place.
    let full: Vec<&String> = strings.iter().filter(|s| s.find(',') == Some(20)).collect();
    assert!(full.len() >= 2, "{strings:?}");
    let write = |name: &str, patched: &[u8]| {
        let path = dir.path().join(name);
        std::fs::write(&path, patched).unwrap();
        path
    };

    // A hash that is not the format's MD5: an `id` finding; dump and decode still read it.
    let mut wrong = bytes.clone();
    let at = find(full[0]) + 4;
    wrong[at] = if wrong[at] == b'0' { b'1' } else { b'0' };
    let path = write("wrong.o", &wrong);
    let report = audit_json(&[&path]);
    assert_eq!(kinds(&report), ["id"], "{report}");
    assert_eq!(
        report["findings"][0]["locations"][0]["table"],
        "amdhsa.printf"
    );
    assert!(report["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("MD5"));
    let listing = run([Path::new("dump"), &path]).expect_code(0).stdout_text();
    assert!(listing.contains("not the MD5"), "{listing}");

    // One hash for two formats: a collision (and the second entry's hash is not its MD5).
    let mut twice = bytes.clone();
    let from = find(full[0]) + 4;
    let to = find(full[1]) + 4;
    let hash: Vec<u8> = twice[from..from + 16].to_vec();
    twice[to..to + 16].copy_from_slice(&hash);
    let path = write("twice.o", &twice);
    let report = audit_json(&[&path]);
    let mut found = kinds(&report);
    found.sort();
    assert_eq!(found, ["collision", "id"], "{report}");
    let collision = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "collision")
        .unwrap();
    assert_eq!(collision["locations"].as_array().unwrap().len(), 2);

    // A hash that is not hex: malformed for audit, exit 2 for dump and decode, naming the file,
    // the table, the entry and what an entry is.
    let mut broken = bytes.clone();
    broken[find(full[0]) + 5] = b'g';
    let path = write("broken.o", &broken);
    let report = audit_json(&[&path]);
    assert_eq!(kinds(&report), ["malformed"], "{report}");
    let failed = run([Path::new("dump"), &path]).expect_code(2);
    assert!(
        failed.stderr.contains("broken.o")
            && failed.stderr.contains("amdhsa.printf")
            && failed.stderr.contains("0:0:HASH,FORMAT"),
        "{}",
        failed.stderr
    );
    assert!(failed.stdout.is_empty());
    let buffer = write("empty.bin", &[0; 8]);
    let failed = run([Path::new("decode"), Path::new("--elf"), &path, &buffer]).expect_code(2);
    assert!(
        failed.stderr.contains("is not the hash"),
        "{}",
        failed.stderr
    );
    assert!(std::fs::read(&path).unwrap() == broken);
}

/// The IR for the host: the host's triple and DataLayout (as clang writes them for an empty
/// file), no GPU CPU or features, and the kernel an ordinary function.
fn retarget(clang: &Path, dir: &Path, ir: &str) -> String {
    let empty = dir.join("empty.c");
    std::fs::write(&empty, "").unwrap();
    let host_ir = String::from_utf8(checked(
        Command::new(clang)
            .args(["-S", "-emit-llvm", "-o", "-"])
            .arg(&empty),
    ))
    .unwrap();
    let header = |key: &str| -> String {
        host_ir
            .lines()
            .find(|line| line.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} line"))
            .to_string()
    };
    ir.lines()
        .map(|line| {
            if line.starts_with("target datalayout") {
                header("target datalayout")
            } else if line.starts_with("target triple") {
                header("target triple")
            } else if line.starts_with("attributes #") {
                line.split(' ')
                    .filter(|part| {
                        !part.starts_with("\"target-cpu\"")
                            && !part.starts_with("\"target-features\"")
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            } else {
                line.replace("amdgpu_kernel ", "")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Lines by the thread that printed them (`t<tid>`), each thread's in order; the lines of
/// no thread (the call without arguments) as a sorted list.
fn by_thread(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut threads = BTreeMap::<String, Vec<String>>::new();
    for line in text.lines() {
        let first = line.split(' ').next().unwrap_or("");
        let key = if first.starts_with('t') && first[1..].parse::<u32>().is_ok() {
            first.to_owned()
        } else {
            String::new()
        };
        threads.entry(key).or_default().push(line.to_owned());
    }
    if let Some(others) = threads.get_mut("") {
        others.sort();
    }
    threads
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn a_host_run_of_clangs_buffered_printf_decodes_to_what_c_printf_prints() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        a_host_run_of_clangs_buffered_printf_decodes_to_what_c_printf_prints_with(llvm);
    }
}

fn a_host_run_of_clangs_buffered_printf_decodes_to_what_c_printf_prints_with(llvm: Llvm) {
    let (Some(clang), Some(llc)) = (
        require_llvm(llvm, Tool::Clang),
        require_llvm(llvm, Tool::Llc),
    ) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    let (ir, object) = compile(&clang, &llc, &sample("work.hip"), dir.path());
    let device_ir = std::fs::read_to_string(&ir).unwrap();
    // The calls are clang's buffered printf: __printf_alloc, a constant-format control dword,
    // and the non-constant format's record (bit 1 clear) too.
    assert!(device_ir.contains("call ptr addrspace(1) @__printf_alloc(i32"));
    std::fs::write(at("work.x86.ll"), retarget(&clang, dir.path(), &device_ir)).unwrap();
    checked(
        Command::new(&clang)
            .args(["-c", "-O1", "-o"])
            .arg(at("work.x86.o"))
            .arg(at("work.x86.ll")),
    );
    checked(
        Command::new(&clang)
            .args(["-O1", "-pthread", "-o"])
            .arg(at("device"))
            .arg(sample("harness.c"))
            .arg(at("work.x86.o")),
    );
    checked(
        Command::new(&clang)
            .args(["-O1", "-pthread", "-fno-builtin-printf", "-o"])
            .arg(at("host"))
            .arg(sample("harness.c"))
            .arg(sample("work.c")),
    );
    let decode = |buffer: &Path| {
        run([
            Path::new("decode"),
            Path::new("--strict"),
            Path::new("--elf"),
            &object,
            buffer,
        ])
    };

    // One thread: the whole text, byte for byte.
    let expected = checked(Command::new(at("host")).args(["1", "40"]));
    checked(
        Command::new(at("device"))
            .args(["1", "40"])
            .arg(at("one.bin")),
    );
    let decoded = decode(&at("one.bin")).expect_code(0);
    assert_eq!(
        String::from_utf8_lossy(&decoded.stdout),
        String::from_utf8_lossy(&expected)
    );
    assert!(decoded.stdout == expected);
    assert!(decoded.stderr.is_empty(), "{}", decoded.stderr);
    assert_eq!(expected.iter().filter(|b| **b == b'\n').count(), 440);

    // Eight threads racing for the buffer: each thread's lines, in its order.
    let host = checked(Command::new(at("host")).args(["8", "200"]));
    checked(
        Command::new(at("device"))
            .args(["8", "200"])
            .arg(at("eight.bin")),
    );
    let decoded = decode(&at("eight.bin")).expect_code(0);
    let host = by_thread(&String::from_utf8(host).unwrap());
    assert_eq!(host.len(), 9);
    assert!(by_thread(&decoded.stdout_text()) == host);

    // Damaged buffers: exit 2 naming the file and the byte, after what could be printed.
    let bytes = std::fs::read(at("one.bin")).unwrap();
    let first = (u32::from_le_bytes(bytes[8..12].try_into().unwrap()) >> 2) as usize;
    let first_line = expected.split(|b| *b == b'\n').next().unwrap().len() + 1;
    let write = |name: &str, patched: &[u8]| {
        let path = at(name);
        std::fs::write(&path, patched).unwrap();
        path
    };
    // The second record's control dword says 13 bytes.
    let mut control = bytes.clone();
    control[8 + first..12 + first].copy_from_slice(&(13u32 << 2 | 2).to_le_bytes());
    let failed = decode(&write("control.bin", &control)).expect_code(2);
    assert!(
        failed.stderr.contains("control.bin")
            && failed.stderr.contains(&format!("byte {}", 8 + first))
            && failed.stderr.contains("control dword 0x00000036"),
        "{}",
        failed.stderr
    );
    assert_eq!(failed.stdout[..first_line], expected[..first_line]);
    assert!(failed
        .stdout_text()
        .lines()
        .nth(1)
        .unwrap()
        .starts_with("<fmtstr: byte"));
    // `used` ends inside the last record.
    let mut cut = bytes.clone();
    let used = u32::from_le_bytes(cut[0..4].try_into().unwrap());
    cut[0..4].copy_from_slice(&(used - 8).to_le_bytes());
    let failed = decode(&write("cut.bin", &cut)).expect_code(2);
    assert!(
        failed.stderr.contains("remain before `used` ends"),
        "{}",
        failed.stderr
    );
    assert!(expected.starts_with(&failed.stdout[..failed.stdout_text().rfind("<fmtstr").unwrap()]));
    // The first record's hash is in no table: nothing is printed, and the error says why.
    let mut unknown = bytes.clone();
    unknown[12] ^= 0xff;
    let failed = decode(&write("unknown.bin", &unknown)).expect_code(2);
    assert!(
        failed.stderr.contains("unknown.bin: byte 8: hash")
            && failed.stderr.contains("in no amdhsa.printf table")
            && failed.stderr.contains("nothing was printed"),
        "{}",
        failed.stderr
    );
    // Records that all name a format whose arguments they do not hold: each is marked, and
    // since nothing could be printed, the decode fails saying so.
    let mut hollow = bytes[..8 + first].to_vec();
    let short = 12u32;
    hollow[0..4].copy_from_slice(&(2 * short).to_le_bytes());
    hollow.truncate(8);
    for _ in 0..2 {
        hollow.extend_from_slice(&(short << 2 | 2).to_le_bytes());
        hollow.extend_from_slice(&bytes[12..20]);
    }
    let failed = decode(&write("hollow.bin", &hollow)).expect_code(2);
    assert!(
        failed
            .stderr
            .contains("none of its 2 records could be printed"),
        "{}",
        failed.stderr
    );
    assert_eq!(failed.stdout_text().matches("<fmtstr: byte").count(), 2);
    // An empty buffer prints nothing, and that is no error.
    let empty = decode(&write("empty.bin", &[0, 0, 0, 0, 0, 0, 0x40, 0])).expect_code(0);
    assert!(empty.stdout.is_empty() && empty.stderr.is_empty());
}
