//! HSA code objects (OpenCL on AMD): `amdhsa.printf` as clang writes it, judged by
//! llvm-readobj; and the HSA printf buffer, built by following the stores LLVM's
//! AMDGPUPrintfRuntimeBinding pass writes (opt runs the pass), decoded by `fmtstr decode
//! --elf` and compared with what the host's C printf prints for the same calls. Every test runs
//! under LLVM 19 (clang-19, opt-19, llc-19, llvm-readobj-19) and under LLVM 22.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use fmtstr_oracles::{require_llvm, Llvm, Tool};
use serde_json::Value as Json;

use crate::util::{assert_matches_schema, root, run};

fn sample(name: &str) -> PathBuf {
    root().join("samples/hsa").join(name)
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-hsa-test-")
        .tempdir()
        .expect("temp dir")
}

fn checked(command: &mut Command) -> Vec<u8> {
    let output = command.output().expect("the tool runs");
    assert!(
        output.status.success(),
        "{command:?} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output.stdout
}

/// `clang -x cl -cl-std=CL2.0 -nogpulib --target=amdgcn-amd-amdhsa -mcpu=gfx1100` on a
/// kernel, with `extra` arguments (`-c`, or `-S -emit-llvm -O1`).
fn opencl(clang: &Path, source: &Path, extra: &[&str], out: &Path) {
    checked(
        Command::new(clang)
            .args([
                "-x",
                "cl",
                "-cl-std=CL2.0",
                "-nogpulib",
                "--target=amdgcn-amd-amdhsa",
                "-mcpu=gfx1100",
            ])
            .args(extra)
            .arg(source)
            .arg("-o")
            .arg(out),
    );
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

const KERNELS: &str = r#"
__kernel void widths(__global int *out, long l, float f, double d, char c, short s) {
  printf("x=%d f=%f l=%ld\n", out[0], f, l);
  printf("c=%c hh=%hhd h=%hd u=%hu x=%hhx\n", c, c, s, s, c);
  printf("d=%f e=%e g=%g a=%a\n", d, d, d, d);
  printf("vectors %v4d %v2f %v3hd %v8hhx\n", (int4)(1, 2, 3, 4), (float2)(f, f),
         (short3)(s, s, s), (uchar8)(c));
  printf("ptr %p str %s %s\n", out, "constant", "");
  printf("stars %*d %.*f\n", 5, out[1], 3, f);
  printf("colons: a:b::c %% 100%%\n");
}
"#;

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn dump_json_agrees_with_llvm_readobj_on_every_amdhsa_printf_entry() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        dump_json_agrees_with_llvm_readobj_on_every_amdhsa_printf_entry_with(llvm);
    }
}

fn dump_json_agrees_with_llvm_readobj_on_every_amdhsa_printf_entry_with(llvm: Llvm) {
    let (Some(clang), Some(readobj)) = (
        require_llvm(llvm, Tool::Clang),
        require_llvm(llvm, Tool::LlvmReadobj),
    ) else {
        return;
    };
    let dir = scratch();
    let extra = dir.path().join("widths.cl");
    std::fs::write(&extra, KERNELS).expect("write kernel");
    let mut total = 0;
    for source in [sample("kernel.cl"), extra] {
        let object = dir.path().join("k.o");
        opencl(&clang, &source, &["-c"], &object);
        let strings = readobj_printf(&readobj, &object);
        let dumped: Json = serde_json::from_slice(
            &run([Path::new("dump"), Path::new("--json"), &object])
                .expect_code(0)
                .stdout,
        )
        .expect("JSON");
        assert_matches_schema("dump.schema.json", &dumped);
        let entries = dumped[0]["amdhsa_printf"]
            .as_array()
            .expect("amdhsa_printf");
        assert_eq!(entries.len(), strings.len());
        for (entry, string) in entries.iter().zip(&strings) {
            assert_eq!(entry["entry"].as_str(), Some(string.as_str()));
            // ID:N:SIZES...:FORMAT, split here independently of fmtstr.
            let fields: Vec<&str> = string.split(':').collect();
            assert_eq!(entry["id"].as_u64(), fields[0].parse().ok(), "{string}");
            assert_eq!(entry["argument_count"].as_u64(), fields[1].parse().ok());
            let sizes: Vec<u64> = fields[2..fields.len() - 1]
                .iter()
                .map(|s| s.parse().expect("size"))
                .collect();
            let dumped_sizes: Vec<u64> = entry["sizes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|s| s.as_u64().unwrap())
                .collect();
            assert_eq!(dumped_sizes, sizes, "{string}");
            let format = entry["format"].as_str().unwrap();
            assert_eq!(
                format.replace(':', "\\72").replace('\n', "\\n"),
                fields[fields.len() - 1],
                "{string}"
            );
            total += 1;
        }
        // What clang writes is clean, except the '*' call of KERNELS: LLVM 19 and LLVM 22 alike
        // store sizes for its first 2 of 4 arguments only.
        let report: Json = serde_json::from_slice(
            &run([
                Path::new("audit"),
                Path::new("--format"),
                Path::new("json"),
                &object,
            ])
            .stdout,
        )
        .expect("JSON");
        assert_matches_schema("audit.schema.json", &report);
        let flagged: Vec<&str> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["locations"][0]["string"].as_str().unwrap())
            .collect();
        if strings.iter().any(|s| s.contains("stars")) {
            assert_eq!(flagged, ["stars %*d %.*f\n"], "{report}");
        } else {
            assert!(flagged.is_empty(), "{report}");
        }
        // PAL and HSA files are audited together.
        let both: Json = serde_json::from_slice(
            &run([
                Path::new("audit"),
                Path::new("--format"),
                Path::new("json"),
                &object,
                &root().join("samples/pal/compute.elf"),
            ])
            .stdout,
        )
        .expect("JSON");
        assert_eq!(both["files"], 2);
        assert_eq!(
            both["strings"].as_u64(),
            Some(strings.len() as u64 + 4),
            "{both}"
        );
        let text = run([Path::new("dump"), &object])
            .expect_code(0)
            .stdout_text();
        assert!(text.contains("amdhsa.printf entries"), "{text}");
    }
    assert!(total >= 12, "{total}");
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn broken_amdhsa_printf_entries_fail_cleanly() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        broken_amdhsa_printf_entries_fail_cleanly_with(llvm);
    }
}

fn broken_amdhsa_printf_entries_fail_cleanly_with(llvm: Llvm) {
    let (Some(clang), Some(_)) = (
        require_llvm(llvm, Tool::Clang),
        require_llvm(llvm, Tool::LlvmReadobj),
    ) else {
        return;
    };
    let dir = scratch();
    let object = dir.path().join("k.o");
    opencl(&clang, &sample("kernel.cl"), &["-c"], &object);
    let bytes = std::fs::read(&object).expect("object");
    let find = |needle: &[u8]| {
        bytes
            .windows(needle.len())
            .position(|w| w == needle)
            .unwrap_or_else(|| panic!("{:?} not in the object", String::from_utf8_lossy(needle)))
    };
    // Same-length patches of the msgpack strings: the document stays well formed.
    let no_colons = {
        let at = find(b"2:0:tab");
        let mut broken = bytes.clone();
        broken[at + 1] = b'_';
        broken[at + 3] = b'_';
        (broken, "too few")
    };
    let letter_size = {
        let at = find(b"3:5:8:4:4:8:8:");
        let mut broken = bytes.clone();
        broken[at + 6] = b'x';
        (broken, "size of argument 2 `x`")
    };
    // ID 2 renamed 1: two strings for one ID within one code object.
    {
        let at = find(b"2:0:tab");
        let mut twice = bytes.clone();
        twice[at] = b'1';
        let path = dir.path().join("twice.o");
        std::fs::write(&path, &twice).expect("write");
        run([Path::new("dump"), &path]).expect_code(0);
        let report: Json = serde_json::from_slice(
            &run([
                Path::new("audit"),
                Path::new("--format"),
                Path::new("json"),
                &path,
            ])
            .expect_code(1)
            .stdout,
        )
        .expect("JSON");
        assert_matches_schema("audit.schema.json", &report);
        let kinds: Vec<&str> = report["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds, ["collision"], "{report}");
        assert_eq!(
            report["findings"][0]["locations"].as_array().unwrap().len(),
            2
        );
    }
    for (broken, expected) in [no_colons, letter_size] {
        let path = dir.path().join("broken.o");
        std::fs::write(&path, &broken).expect("write");
        let failed = run([Path::new("dump"), &path]).expect_code(2);
        assert!(
            failed.stderr.contains("broken.o")
                && failed.stderr.contains("amdhsa.printf")
                && failed.stderr.contains(expected),
            "{}",
            failed.stderr
        );
        assert!(failed.stdout.is_empty());
        let buffer = dir.path().join("empty.bin");
        std::fs::write(&buffer, [0u8; 8]).expect("write");
        let failed = run([Path::new("decode"), Path::new("--elf"), &path, &buffer]).expect_code(2);
        assert!(failed.stderr.contains(expected), "{}", failed.stderr);
        assert!(failed.stdout.is_empty());
        let report: Json = serde_json::from_slice(
            &run([
                Path::new("audit"),
                Path::new("--format"),
                Path::new("json"),
                &path,
            ])
            .expect_code(1)
            .stdout,
        )
        .expect("JSON");
        assert_matches_schema("audit.schema.json", &report);
        assert_eq!(report["findings"][0]["kind"], "malformed", "{report}");
        assert_eq!(
            report["findings"][0]["locations"][0]["table"],
            "amdhsa.printf"
        );
        assert!(std::fs::read(&path).expect("unchanged") == broken);
    }
}

/// The bytes of an LLVM IR constant of type `ty` (`i32`, `i64`, `float`, `double`, `<N x T>`).
fn constant_bytes(ty: &str, value: &str) -> Vec<u8> {
    if let Some(inner) = ty.strip_prefix('<').and_then(|t| t.strip_suffix('>')) {
        let (_, element) = inner.split_once(" x ").expect("vector type");
        let body = value
            .strip_prefix('<')
            .and_then(|v| v.strip_suffix('>'))
            .expect("vector constant");
        return body
            .split(',')
            .flat_map(|item| {
                let item = item.trim();
                let value = item.strip_prefix(element).expect("element type").trim();
                constant_bytes(element, value)
            })
            .collect();
    }
    let float = |value: &str| -> f64 {
        match value.strip_prefix("0x") {
            // LLVM writes float and double constants in hex as a double's bits.
            Some(hex) => f64::from_bits(u64::from_str_radix(hex, 16).expect("hex float")),
            None => value.parse().expect("decimal float"),
        }
    };
    match ty {
        "float" => (float(value) as f32).to_le_bytes().to_vec(),
        "double" => float(value).to_le_bytes().to_vec(),
        _ => {
            let bits: usize = ty
                .strip_prefix('i')
                .expect("integer type")
                .parse()
                .expect("width");
            let number: i128 = value.parse().expect("integer constant");
            number.to_le_bytes()[..bits / 8].to_vec()
        }
    }
}

/// Runs the printf stores of the pass's output (straight-line constant stores, as at -O1) and
/// returns the buffer `__printf_alloc` would have filled: the 8-byte header (bytes used,
/// capacity), then each allocation in program order.
///
/// Only the kernels' bodies run (`define ... amdgpu_kernel`), as a launch runs them: clang-22
/// also writes each OpenCL kernel as a callable function, `__clang_ocl_kern_imp_NAME` (so that
/// a kernel may call another), with the same printf calls, which clang-19 does not. A launch
/// does not run it.
fn buffer_from_writer_ir(ir: &str) -> Vec<u8> {
    let mut body: Vec<u8> = Vec::new();
    // SSA name -> byte offset in `body`.
    let mut pointers: HashMap<String, usize> = HashMap::new();
    let mut allocations = 0;
    let mut in_kernel = false;
    for line in ir.lines().map(str::trim) {
        if line.starts_with("define ") {
            in_kernel = line.contains(" amdgpu_kernel ");
            continue;
        }
        if line == "}" {
            in_kernel = false;
        }
        if !in_kernel {
            continue;
        }
        if let Some((name, call)) = line.split_once(" = ") {
            if let Some(size) = call
                .split_once("@__printf_alloc(i32 ")
                .and_then(|(_, rest)| rest.strip_suffix(')'))
            {
                pointers.insert(name.to_owned(), body.len());
                body.resize(body.len() + size.parse::<usize>().expect("alloc size"), 0);
                allocations += 1;
                continue;
            }
            if let Some(rest) = call.strip_prefix("getelementptr i8, ptr addrspace(1) ") {
                let (base, offset) = rest.split_once(", i64 ").expect("byte GEP");
                let at = pointers[base] + offset.parse::<usize>().expect("GEP offset");
                pointers.insert(name.to_owned(), at);
            }
            continue;
        }
        let Some(store) = line.strip_prefix("store ") else {
            continue;
        };
        let (typed, pointer) = store
            .rsplit_once(", ptr addrspace(1) ")
            .expect("a store to the printf buffer");
        let pointer = pointer.split(',').next().expect("pointer");
        // `TYPE VALUE`, where a vector type contains spaces.
        let (ty, value) = if typed.starts_with('<') {
            let end = typed.find('>').expect("vector type") + 1;
            (&typed[..end], typed[end..].trim())
        } else {
            typed.split_once(' ').expect("typed value")
        };
        let bytes = constant_bytes(ty, value);
        let at = pointers[pointer];
        body[at..at + bytes.len()].copy_from_slice(&bytes);
    }
    assert!(allocations >= 5, "{allocations} calls to __printf_alloc");
    let mut buffer = (body.len() as u32).to_le_bytes().to_vec();
    buffer.extend_from_slice(&(body.len() as u32).to_le_bytes());
    buffer.extend_from_slice(&body);
    buffer
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn a_buffer_built_as_the_writer_writes_decodes_to_what_c_printf_prints() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        a_buffer_built_as_the_writer_writes_decodes_to_what_c_printf_prints_with(llvm);
    }
}

fn a_buffer_built_as_the_writer_writes_decodes_to_what_c_printf_prints_with(llvm: Llvm) {
    let (Some(clang), Some(opt), Some(llc)) = (
        require_llvm(llvm, Tool::Clang),
        require_llvm(llvm, Tool::Opt),
        require_llvm(llvm, Tool::Llc),
    ) else {
        return;
    };
    let dir = scratch();
    let ir = dir.path().join("kernel.ll");
    opencl(
        &clang,
        &sample("kernel.cl"),
        &["-S", "-emit-llvm", "-O1"],
        &ir,
    );
    let bound = dir.path().join("kernel.bound.ll");
    checked(
        Command::new(&opt)
            .args([
                "-mtriple=amdgcn-amd-amdhsa",
                "-passes=amdgpu-printf-runtime-binding",
                "-S",
            ])
            .arg(&ir)
            .arg("-o")
            .arg(&bound),
    );
    let written = std::fs::read_to_string(&bound).expect("pass output");
    let buffer = dir.path().join("printf.bin");
    std::fs::write(&buffer, buffer_from_writer_ir(&written)).expect("write buffer");
    // The code object of the same module: its amdhsa.printf comes from the pass's
    // !llvm.printf.fmts, so the IDs are the ones the stores wrote.
    let object = dir.path().join("kernel.o");
    checked(
        Command::new(&llc)
            .args([
                "-mtriple=amdgcn-amd-amdhsa",
                "-mcpu=gfx1100",
                "-filetype=obj",
            ])
            .arg(&bound)
            .arg("-o")
            .arg(&object),
    );
    let host = dir.path().join("host");
    checked(
        Command::new(&clang)
            .arg(sample("host.c"))
            .arg("-o")
            .arg(&host),
    );
    let expected = checked(&mut Command::new(&host));

    let decoded = run([
        Path::new("decode"),
        Path::new("--strict"),
        Path::new("--elf"),
        &object,
        &buffer,
    ])
    .expect_code(0);
    assert_eq!(
        String::from_utf8_lossy(&decoded.stdout),
        String::from_utf8_lossy(&expected)
    );
    assert!(decoded.stdout == expected);

    // Cut short: the last record is incomplete; decoding stops there with a marker.
    let mut bytes = std::fs::read(&buffer).expect("buffer");
    let used = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    bytes.truncate(bytes.len() - 4);
    bytes[0..4].copy_from_slice(&(used - 4).to_le_bytes());
    std::fs::write(&buffer, &bytes).expect("write");
    let cut = run([
        Path::new("decode"),
        Path::new("--strict"),
        Path::new("--elf"),
        &object,
        &buffer,
    ])
    .expect_code(1);
    let text = cut.stdout_text();
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines.last().unwrap().starts_with("<fmtstr: byte "),
        "{text}"
    );
    assert!(expected.starts_with(&cut.stdout[..text.rfind("<fmtstr").unwrap()]));
    assert!(cut.stderr.contains("warning"), "{}", cut.stderr);
}
