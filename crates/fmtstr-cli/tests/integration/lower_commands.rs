//! `fmtstr lower`: the command around fmtstr-lower. Input and output handling (files, stdin and
//! stdout, bitcode, atomic and byte-identical writes), exit codes and diagnostics, and the AMD
//! buffer stage end to end: lower, compile with llc into a PAL ELF, and read the table back with
//! `fmtstr dump` and `llvm-readobj --notes`, which must both show exactly the expected table.
//! Every test that runs LLVM's tools runs under LLVM 19 and under LLVM 22.

use std::path::{Path, PathBuf};
use std::process::Command;

use fmtstr_meta::FormatId;
use fmtstr_oracles::{llvm_bindir_of, require_llvm, Llvm, Tool};
use serde_json::{json, Value as Json};

use crate::llvm::{self, canonical};
use crate::util::{assert_matches_schema, fmtstr, root, run, run_command};

fn sample(name: &str) -> PathBuf {
    root().join("samples/lower").join(name)
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-lower-test-")
        .tempdir()
        .expect("temp dir")
}

/// `fmtstr lower --target nvptx INPUT -o OUT`.
fn lower_nvptx(input: &Path, out: &Path) -> crate::util::Run {
    run([
        Path::new("lower"),
        Path::new("--target"),
        Path::new("nvptx"),
        input,
        Path::new("-o"),
        out,
    ])
}

/// Runs `fmtstr` with `input` on stdin.
fn run_stdin(args: &[&str], input: &[u8]) -> crate::util::Run {
    run_stdin_env(args, input, None)
}

/// [`run_stdin`], with `$FMTSTR_LLVM_BINDIR` set to `llvm_bindir` when given.
fn run_stdin_env(
    args: &[&str],
    input: &[u8],
    llvm_bindir: Option<&std::ffi::OsStr>,
) -> crate::util::Run {
    use std::io::Write;
    let mut command = fmtstr();
    if let Some(dir) = llvm_bindir {
        command.env("FMTSTR_LLVM_BINDIR", dir);
    }
    let mut child = command
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("fmtstr runs");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    let output = child.wait_with_output().expect("fmtstr exits");
    crate::util::Run {
        code: output.status.code().unwrap_or(-1),
        stdout: output.stdout,
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// llvm-as-19 and llvm-as-22 accept the text.
fn assert_llvm_as(text: &[u8]) {
    for llvm in Llvm::ALL {
        assert_llvm_as_with(llvm, text);
    }
}

/// That release's llvm-as accepts the text.
fn assert_llvm_as_with(llvm: Llvm, text: &[u8]) {
    let Some(llvm_as) = require_llvm(llvm, Tool::LlvmAs) else {
        return;
    };
    let dir = scratch();
    let path = dir.path().join("out.ll");
    std::fs::write(&path, text).expect("write");
    let output = Command::new(llvm_as)
        .arg(&path)
        .args(["-o", "/dev/null"])
        .output()
        .expect("llvm-as runs");
    assert!(
        output.status.success(),
        "llvm-as of {llvm} rejects the output:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn help_teaches_with_examples() {
    let out = run(["lower", "--help"]).expect_code(0);
    let text = out.stdout_text();
    for expected in [
        "Examples:",
        "fmtstr lower --target nvptx k.ll -o k.vprintf.ll",
        "--stage buffer --emit-strings",
        "--layout slot32",
        "does NOT read",
        "--Werror",
        "Exit codes:",
    ] {
        assert!(
            text.contains(expected),
            "--help lacks {expected:?}:\n{text}"
        );
    }
}

#[test]
fn lowers_files_and_stdin_deterministically() {
    let dir = scratch();
    let out = dir.path().join("forms.vprintf.ll");
    let forms = sample("forms.ll");
    lower_nvptx(&forms, &out).expect_code(0);
    let first = std::fs::read(&out).expect("output written");
    assert!(String::from_utf8_lossy(&first).contains("call i32 @vprintf(ptr @.bare, ptr null)"));
    assert_llvm_as(&first);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&out).expect("meta").permissions().mode();
        assert_eq!(mode & 0o777, 0o644, "a new output file is rw-r--r--");
    }
    // The same through stdin and stdout, byte for byte.
    let input = std::fs::read(&forms).expect("sample");
    let piped = run_stdin(&["lower", "--target", "nvptx", "-"], &input).expect_code(0);
    assert_eq!(piped.stdout, first);
    let again = run_stdin(&["lower", "--target", "nvptx", "-", "-o", "-"], &input).expect_code(0);
    assert_eq!(again.stdout, first);
}

/// `-o` onto a symbolic link replaces the file it points to and keeps the link; onto a pipe it
/// writes into the pipe (a rename would put a regular file where the pipe or device was).
#[cfg(unix)]
#[test]
fn output_through_links_and_pipes_keeps_them() {
    use std::os::unix::fs::FileTypeExt;
    let dir = scratch();
    let forms = sample("forms.ll");
    let lower_to = |out: &Path| lower_nvptx(&forms, out).expect_code(0);
    let real = dir.path().join("real.ll");
    std::fs::write(&real, "old").expect("write");
    let link = dir.path().join("link.ll");
    std::os::unix::fs::symlink(&real, &link).expect("symlink");
    lower_to(&link);
    assert!(link.is_symlink(), "the link was replaced by a file");
    let lowered = std::fs::read(&real).expect("the link's target");
    assert!(String::from_utf8_lossy(&lowered).contains("@vprintf("));

    let fifo = dir.path().join("pipe");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo).expect("read the pipe"))
    };
    lower_to(&fifo);
    // Checked first: were the pipe replaced, the reader would wait for a writer forever.
    let kind = std::fs::symlink_metadata(&fifo).expect("meta").file_type();
    assert!(kind.is_fifo(), "the pipe was replaced by a file");
    assert_eq!(reader.join().expect("reader"), lowered);
}

#[test]
fn a_module_without_printf_comes_out_byte_identical() {
    // Odd spacing and comments that a printer would not reproduce.
    let text = b"; keep me\ntarget triple = \"nvptx64-nvidia-cuda\"\ndefine   void @f() {\n  ret void   ; here\n}\n";
    for target in ["nvptx", "amdgpu"] {
        let out = run_stdin(&["lower", "--target", target, "-"], text).expect_code(0);
        assert_eq!(out.stdout, text);
        assert!(out.stderr.is_empty(), "{}", out.stderr);
    }
}

#[test]
fn errors_name_the_call_and_write_nothing() {
    let dir = scratch();
    let input = dir.path().join("bad.ll");
    let text = std::fs::read_to_string(sample("forms.ll"))
        .expect("sample")
        .replace("!{i8 34}", "!{i8 7}");
    std::fs::write(&input, &text).expect("write");
    let out = dir.path().join("out.ll");
    std::fs::write(&out, "previous").expect("write");
    let run = lower_nvptx(&input, &out).expect_code(2);
    let expected = format!(
        "{}:13:3: error: unsupported printf form (op-tag = 7)\n  %b = call i32 (ptr, ...) @printf(ptr @.bare), !printf.form !1\n",
        input.display()
    );
    assert!(run.stderr.starts_with(&expected), "{}", run.stderr);
    assert!(run
        .stderr
        .ends_with("fmtstr: error: 1 error in printf lowering; nothing was written\n"));
    assert_eq!(std::fs::read_to_string(&out).expect("out"), "previous");
}

#[test]
fn warnings_pass_and_werror_fails_with_exit_1() {
    let text = b"target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n@s = private constant [4 x i8] c\"%ld\\00\"\ndefine void @f(i32 %x) {\n  %r = call i32 (ptr, ...) @printf(ptr @s, i32 %x)\n  ret void\n}\ndeclare i32 @printf(ptr, ...)\n";
    let ok = run_stdin(&["lower", "--target", "nvptx", "-"], text).expect_code(0);
    assert!(
        ok.stderr
            .starts_with("<stdin>:4:3: warning: argument 1: format specifies type 'long'"),
        "{}",
        ok.stderr
    );
    assert!(ok.stderr.contains("[-Wformat]"));
    assert!(!ok.stdout.is_empty());
    let failed = run_stdin(&["lower", "--target", "nvptx", "--Werror", "-"], text).expect_code(1);
    assert!(
        failed.stderr.contains("<stdin>:4:3: error: argument 1:"),
        "{}",
        failed.stderr
    );
    assert!(failed.stderr.contains("[-Werror,-Wformat]"));
    assert!(failed.stderr.contains("nothing was written"));
    assert!(failed.stdout.is_empty());
}

#[test]
fn usage_errors_say_which_option_goes_with_which_target() {
    let forms = sample("forms.ll");
    let forms = forms.to_str().expect("utf-8 path");
    for (args, message) in [
        (
            vec!["lower", "--target", "nvptx", "--stage", "buffer", forms],
            "--stage applies to --target amdgpu",
        ),
        (
            vec!["lower", "--target", "amdgpu", "--layout", "slot32", forms],
            "--layout applies to --target nvptx",
        ),
        (
            vec![
                "lower",
                "--target",
                "amdgpu",
                "--emit-strings",
                "x.json",
                forms,
            ],
            "--emit-strings needs --stage buffer",
        ),
        (
            vec![
                "lower",
                "--target",
                "amdgpu",
                "--stage",
                "buffer",
                "--lgc-form",
                "buffer-first",
                forms,
            ],
            "--lgc-form chooses what --stage lgc writes",
        ),
        (
            vec![
                "lower",
                "--target",
                "amdgpu",
                "--user-data-offset",
                "2",
                forms,
            ],
            "--user-data-offset needs --stage buffer",
        ),
        (
            vec![
                "lower",
                "--target",
                "amdgpu",
                "--buffer-addrspace",
                "1",
                forms,
            ],
            "add --lgc-form buffer-first",
        ),
    ] {
        let out = run(&args).expect_code(2);
        assert!(out.stderr.contains(message), "{args:?}: {}", out.stderr);
    }
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn bitcode_goes_through_llvm_dis() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        bitcode_goes_through_llvm_dis_with(llvm);
    }
}

fn bitcode_goes_through_llvm_dis_with(llvm: Llvm) {
    let Some(llvm_as) = require_llvm(llvm, Tool::LlvmAs) else {
        return;
    };
    let dir = scratch();
    let bc = dir.path().join("forms.bc");
    let status = Command::new(llvm_as)
        .arg(sample("forms.ll"))
        .arg("-o")
        .arg(&bc)
        .status()
        .expect("llvm-as runs");
    assert!(status.success());
    // The release's own llvm-dis reads its bitcode (llvm-dis-19 cannot read llvm-as-22's).
    let bindir = llvm_bindir_of(llvm);
    let out = run_command(
        fmtstr()
            .env("FMTSTR_LLVM_BINDIR", &bindir)
            .args(["lower", "--target", "nvptx"])
            .arg(&bc),
    )
    .expect_code(0);
    assert!(out.stdout_text().contains("@vprintf(ptr @.varargs"));
    assert_llvm_as_with(llvm, &out.stdout);
    // fmtstr's own choice of llvm-dis (the newest installed) reads it too.
    let chosen = run_command(
        fmtstr()
            .env_remove("FMTSTR_LLVM_BINDIR")
            .args(["lower", "--target", "nvptx"])
            .arg(&bc),
    )
    .expect_code(0);
    assert_eq!(chosen.stdout, out.stdout);
    // From stdin too (llvm-dis names the module `<stdin>` there).
    let bytes = std::fs::read(&bc).expect("bc");
    let piped = run_stdin_env(
        &["lower", "--target", "nvptx", "-"],
        &bytes,
        Some(bindir.as_os_str()),
    )
    .expect_code(0);
    let body = |text: String| text.split_once('\n').map(|(_, rest)| rest.to_owned());
    assert_eq!(body(piped.stdout_text()), body(out.stdout_text()));
    // Without llvm-dis: a clear error.
    let missing = run_command(
        fmtstr()
            .env("FMTSTR_LLVM_BINDIR", dir.path())
            .args(["lower", "--target", "nvptx"])
            .arg(&bc),
    )
    .expect_code(2);
    assert!(
        missing.stderr.contains("is LLVM bitcode"),
        "{}",
        missing.stderr
    );
    assert!(missing.stderr.contains("llvm-dis"), "{}", missing.stderr);
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn strings_are_a_clear_error_for_the_amd_buffer() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        strings_are_a_clear_error_for_the_amd_buffer_with(llvm);
    }
}

fn strings_are_a_clear_error_for_the_amd_buffer_with(llvm: Llvm) {
    let Some(clang) = require_llvm(llvm, Tool::Clang) else {
        return;
    };
    let ir = Command::new(clang)
        .args([
            "--target=amdgcn-amd-amdpal",
            "-mcpu=gfx1100",
            "-x",
            "c",
            "-O1",
            "-fno-builtin-printf",
            "-S",
            "-emit-llvm",
            "-o",
            "-",
        ])
        .arg(sample("strings.c"))
        .output()
        .expect("clang runs");
    assert!(ir.status.success());
    let out = run_stdin(
        &["lower", "--target", "amdgpu", "--stage", "buffer", "-"],
        &ir.stdout,
    )
    .expect_code(2);
    assert!(
        out.stderr.contains(
            "`%s` of a string computed at run time cannot travel through the AMD printf buffer"
        ),
        "{}",
        out.stderr
    );
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn buffer_stage_elf_carries_exactly_the_expected_table() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        buffer_stage_elf_carries_exactly_the_expected_table_with(llvm);
    }
}

fn buffer_stage_elf_carries_exactly_the_expected_table_with(llvm: Llvm) {
    let (Some(llc), Some(readobj)) = (
        require_llvm(llvm, Tool::Llc),
        require_llvm(llvm, Tool::LlvmReadobj),
    ) else {
        return;
    };
    let dir = scratch();
    let lowered = dir.path().join("lgc.buffer.ll");
    let strings = dir.path().join("strings.json");
    let out = run([
        Path::new("lower"),
        Path::new("--target"),
        Path::new("amdgpu"),
        Path::new("--stage"),
        Path::new("buffer"),
        Path::new("--emit-strings"),
        &strings,
        &sample("lgc.ll"),
        Path::new("-o"),
        &lowered,
    ])
    .expect_code(0);
    assert!(out.stderr.is_empty(), "{}", out.stderr);
    let expected = json!({
        ".version": 1,
        ".strings": [
            {".index": FormatId::of(b"the arg: %i").get(), ".string": "the arg: %i",
             ".argument_count": 1, ".64bit_arguments": [0]},
            {".index": FormatId::of(b"v=%v4hlf h=%f c=%hhu d=%f\n").get(),
             ".string": "v=%v4hlf h=%f c=%hhu d=%f\n",
             ".argument_count": 4, ".64bit_arguments": [8]},
            {".index": FormatId::of(b"id %llu of %u\n").get(), ".string": "id %llu of %u\n",
             ".argument_count": 2, ".64bit_arguments": [1]},
        ],
        // Today's LLPC writes it, and the driver's debug build asserts exactly three keys.
        ".user_data_offset": 0
    });
    let emitted: Json =
        serde_json::from_slice(&std::fs::read(&strings).expect("strings written")).expect("JSON");
    assert_matches_schema("format-strings.schema.json", &emitted);
    assert_eq!(emitted, expected);

    let elf = dir.path().join("lgc.elf");
    let compiled = Command::new(&llc)
        .args(["-mtriple=amdgcn--amdpal", "-mcpu=gfx1100", "-filetype=obj"])
        .arg(&lowered)
        .arg("-o")
        .arg(&elf)
        .output()
        .expect("llc runs");
    assert!(
        compiled.status.success(),
        "{}",
        String::from_utf8_lossy(&compiled.stderr)
    );
    let asm = Command::new(&llc)
        .args([
            "-mtriple=amdgcn--amdpal",
            "-mcpu=gfx1100",
            "-filetype=asm",
            "-o",
            "-",
        ])
        .arg(&lowered)
        .output()
        .expect("llc runs");
    assert!(String::from_utf8_lossy(&asm.stdout).contains("buffer_atomic_add_u64"));

    let dumped: Json = serde_json::from_slice(
        &run([Path::new("dump"), Path::new("--json"), &elf])
            .expect_code(0)
            .stdout,
    )
    .expect("dump JSON");
    assert_eq!(
        canonical(&dumped[0]["format_strings"]),
        canonical(&expected)
    );
    assert_eq!(
        canonical(&llvm::table(&readobj, &elf)),
        canonical(&expected)
    );

    // What --emit-strings wrote is what `fmtstr embed --strings` takes.
    let embedded = dir.path().join("embedded.elf");
    run([
        Path::new("embed"),
        Path::new("--strings"),
        &strings,
        &elf,
        Path::new("-o"),
        &embedded,
    ])
    .expect_code(0);
    assert_eq!(
        canonical(&llvm::table(&readobj, &embedded)),
        canonical(&expected)
    );
}

/// LLPC's two lgc.debug.printf forms through the binary: today's by default at --stage lgc, the
/// older behind --lgc-form buffer-first; --stage buffer reads what either wrote, and
/// --user-data-offset lands in the ELF's table as llvm-readobj shows it.
/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn lgc_forms_round_trip_and_the_user_data_offset_reaches_the_elf() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        lgc_forms_round_trip_and_the_user_data_offset_reaches_the_elf_with(llvm);
    }
}

fn lgc_forms_round_trip_and_the_user_data_offset_reaches_the_elf_with(llvm: Llvm) {
    let (Some(clang), Some(llc), Some(readobj)) = (
        require_llvm(llvm, Tool::Clang),
        require_llvm(llvm, Tool::Llc),
        require_llvm(llvm, Tool::LlvmReadobj),
    ) else {
        return;
    };
    let dir = scratch();
    let ir = dir.path().join("printf.ll");
    let status = Command::new(clang)
        .args([
            "--target=amdgcn-amd-amdpal",
            "-mcpu=gfx1100",
            "-x",
            "c",
            "-O1",
        ])
        .args(["-fno-builtin-printf", "-S", "-emit-llvm"])
        .arg(sample("printf.c"))
        .arg("-o")
        .arg(&ir)
        .status()
        .expect("clang runs");
    assert!(status.success());
    for (form, marker) in [
        (None, "call void (...) @lgc.debug.printf(ptr addrspace(4) @.str, "),
        (
            Some("buffer-first"),
            "call void (...) @lgc.debug.printf(ptr addrspace(7) %printfBuffer, ptr addrspace(4) @.str, ",
        ),
    ] {
        let lgc = dir.path().join("printf.lgc.ll");
        let mut args = vec!["lower", "--target", "amdgpu"];
        if let Some(form) = form {
            args.extend(["--lgc-form", form]);
        }
        let (ir, lgc_path) = (ir.to_str().unwrap(), lgc.to_str().unwrap());
        args.extend([ir, "-o", lgc_path]);
        run(&args).expect_code(0);
        let text = std::fs::read_to_string(&lgc).unwrap();
        assert!(text.contains(marker), "{form:?}:\n{text}");
        let buffered = dir.path().join("printf.buf.ll");
        run([
            "lower",
            "--target",
            "amdgpu",
            "--stage",
            "buffer",
            "--user-data-offset",
            "6",
            lgc_path,
            "-o",
            buffered.to_str().unwrap(),
        ])
        .expect_code(0);
        let elf = dir.path().join("printf.elf");
        let compiled = Command::new(&llc)
            .args(["-mtriple=amdgcn--amdpal", "-mcpu=gfx1100", "-filetype=obj"])
            .arg(&buffered)
            .arg("-o")
            .arg(&elf)
            .output()
            .expect("llc runs");
        assert!(
            compiled.status.success(),
            "{}",
            String::from_utf8_lossy(&compiled.stderr)
        );
        let table = llvm::table(&readobj, &elf);
        let keys: Vec<&String> = table.as_object().expect("a map").keys().collect();
        assert_eq!(keys.len(), 3, "{table}");
        assert_eq!(table[".user_data_offset"], 6, "{table}");
        assert_eq!(table[".version"], 1, "{table}");
        assert_eq!(table[".strings"].as_array().map(Vec::len), Some(9), "{table}");
    }
}

/// Bad lgc.debug.printf calls: exit 2, file:line:column, and no output file.
#[test]
fn bad_lgc_debug_printf_is_exit_2_with_a_position_and_no_output() {
    let dir = scratch();
    let module = dir.path().join("bad.ll");
    std::fs::write(
        &module,
        "target datalayout = \"e-p:64:64-p7:160:256:256:32-i64:64-n32:64-S32-A5-G1-ni:7\"\n\
         @f = private unnamed_addr constant [3 x i8] c\"%d\\00\"\n\
         define amdgpu_cs void @main(ptr %p) {\n  call void (...) @lgc.debug.printf(ptr %p, i32 1)\n  ret void\n}\n\
         declare void @lgc.debug.printf(...)\n",
    )
    .unwrap();
    let out_path = dir.path().join("out.ll");
    let out = run([
        "lower",
        "--target",
        "amdgpu",
        "--stage",
        "buffer",
        module.to_str().unwrap(),
        "-o",
        out_path.to_str().unwrap(),
    ])
    .expect_code(2);
    assert!(
        out.stderr
            .contains("bad.ll:4:3: error: the format of lgc.debug.printf must be a global"),
        "{}",
        out.stderr
    );
    assert!(!out_path.exists(), "nothing is written");
}
