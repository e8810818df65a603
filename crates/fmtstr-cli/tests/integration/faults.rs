//! The ways a shell breaks tools, tried on every command: readers that stop early, full disks,
//! file-size limits, read-only and foreign-owned files, umasks, two runs on one file, signals,
//! a buffer truncated while it is decoded, memory limits, pipes, FIFOs, links. The promise
//! under all of them: a clear error and a non-zero exit (or a quiet end, for a reader that
//! stopped), never a panic or a signal death, no partial or stray files, inputs untouched
//! unless asked.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::util::{fmtstr, root, run as run_fmtstr, run_command, Run};

fn sample(path: &str) -> PathBuf {
    root().join("samples").join(path)
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-faults-test-")
        .tempdir()
        .expect("temp dir")
}

fn path_str(path: &Path) -> &str {
    path.to_str().expect("UTF-8 path")
}

/// Neither a panic nor a death by signal, whatever the exit code.
#[track_caller]
fn assert_orderly(run: &Run, what: &str) {
    assert!(
        !run.stderr.contains("panicked") && !run.stderr.contains("RUST_BACKTRACE"),
        "{what}: panicked:\n{}",
        run.stderr
    );
    assert!(run.code >= 0, "{what}: died by a signal\n{}", run.stderr);
}

/// The names in `dir` that a run left behind as temporary files.
fn temporaries(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .expect("read dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name.starts_with(".fmtstr-"))
        .collect()
}

/// Commands that print on stdout, with the exit code each has when stdout is fine.
fn printing_commands(dir: &Path) -> Vec<(Vec<String>, i32)> {
    let pal = path_str(&sample("pal")).to_owned();
    let s = |p: &str| path_str(&sample(p)).to_owned();
    let audit_dir = dir.join("audit");
    std::fs::create_dir_all(&audit_dir).expect("mkdir");
    for name in ["compute.elf", "collision.elf"] {
        std::fs::copy(sample(&format!("pal/{name}")), audit_dir.join(name)).expect("copy");
    }
    let audit_dir = path_str(&audit_dir).to_owned();
    let gaps_log = dir.join("run.log");
    std::fs::write(&gaps_log, "[#0] a\n[#2] c\n").expect("write");
    let gaps_log = path_str(&gaps_log).to_owned();
    let v = |args: &[&str]| args.iter().map(|a| (*a).to_owned()).collect::<Vec<_>>();
    vec![
        (v(&["hash", "a", "b"]), 0),
        (v(&["hash", "--json", "a"]), 0),
        (v(&["dump", &s("pal/compute.elf")]), 0),
        (v(&["dump", "--json", &s("pal/compute.elf")]), 0),
        (v(&["dump", "--all", &s("pal/compute.elf")]), 0),
        (v(&["dump", &s("spirv/compute.spv")]), 0),
        (v(&["audit", &pal]), 1),
        (v(&["audit", "--format", "github", &audit_dir]), 1),
        (v(&["audit", "--format", "json", &audit_dir]), 1),
        (v(&["abi", &s("abi/kernel-O1.ll")]), 0),
        (v(&["abi", "--json", "--llc", "19", &s("abi/kinds.ll")]), 0),
        (v(&["printf", "%d|%s\\n", "7", "hi"]), 0),
        (v(&["check", "--json", "%d\\n", "--args", "i32"]), 0),
        (v(&["completions", "bash"]), 0),
        (v(&["gaps", &gaps_log]), 1),
        (
            v(&[
                "decode",
                &s("decode/compute.bin"),
                "--strings",
                &s("decode/compute.json"),
            ]),
            0,
        ),
        (
            v(&["lower", "--target", "nvptx", &s("lower/llpc-today.ll")]),
            0,
        ),
    ]
}

/// Runs a command whose stdout reader goes away before it reads anything.
fn run_with_closed_stdout(args: &[String]) -> Run {
    let mut child = fmtstr()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait");
    Run {
        code: output.status.code().unwrap_or(-1),
        stdout: Vec::new(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn a_reader_that_stops_early_ends_every_command_quietly() {
    let dir = scratch();
    for (args, code) in printing_commands(dir.path()) {
        let what = args.join(" ");
        let run = run_with_closed_stdout(&args);
        assert_orderly(&run, &what);
        // The exit code of what was done: audits with findings still say so.
        assert_eq!(run.code, code, "{what}\n{}", run.stderr);
        assert!(
            run.stderr.is_empty() || !run.stderr.contains("error"),
            "{what}: {}",
            run.stderr
        );
    }
}

#[test]
fn a_full_stdout_is_an_error_on_every_command() {
    let dir = scratch();
    for (args, _) in printing_commands(dir.path()) {
        let what = args.join(" ");
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .expect("/dev/full");
        let run = run_command(fmtstr().args(&args).stdout(full));
        assert_orderly(&run, &what);
        assert_eq!(run.code, 2, "{what}: {}", run.stderr);
        assert!(
            run.stderr.contains("No space left on device"),
            "{what}: {}",
            run.stderr
        );
    }
}

/// `lower` with side outputs: when the module cannot be written, neither are they.
#[test]
fn side_outputs_wait_for_the_main_output() {
    let dir = scratch();
    let strings = dir.path().join("k.json");
    let report = dir.path().join("r.json");
    let module = sample("lower/llpc-today.ll");
    let base = [
        "lower",
        "--target",
        "amdgpu",
        "--stage",
        "buffer",
        "--emit-strings",
        path_str(&strings),
        "--report-json",
        path_str(&report),
        path_str(&module),
    ];
    // A device that is full.
    let run = run_fmtstr(base.iter().copied().chain(["-o", "/dev/full"]));
    assert_orderly(&run, "lower -o /dev/full");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(
        !strings.exists() && !report.exists(),
        "side outputs written"
    );
    // A file-size limit (as a full disk does) that the side outputs fit in and the module
    // does not.
    let sizes = scratch();
    let whole = sizes.path().join("whole.ll");
    let mut sized = base.map(str::to_owned);
    sized[6] = path_str(&sizes.path().join("k.json")).to_owned();
    sized[8] = path_str(&sizes.path().join("r.json")).to_owned();
    run_fmtstr(
        sized
            .iter()
            .map(String::as_str)
            .chain(["-o", path_str(&whole)]),
    )
    .expect_code(0);
    let size = |name: &str| {
        std::fs::metadata(sizes.path().join(name))
            .expect("stat")
            .len()
    };
    let limit = size("k.json").max(size("r.json")) + 1;
    assert!(size("whole.ll") > limit, "the module must not fit");
    let out = dir.path().join("k.buf.ll");
    let mut command = fmtstr();
    command.args(base).arg("-o").arg(&out);
    limit_file_size(&mut command, limit);
    let run = run_command(&mut command);
    assert_orderly(&run, "lower under RLIMIT_FSIZE");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains(path_str(&out)), "{}", run.stderr);
    assert!(!out.exists() && !strings.exists() && !report.exists());
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    // And all three when nothing fails.
    let run = run_fmtstr(base.iter().copied().chain(["-o", path_str(&out)]));
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(out.exists() && strings.exists() && report.exists());
}

/// Runs the command with its files limited to `bytes` (SIGXFSZ ignored, so that a write past
/// the limit fails with EFBIG as on a full disk).
#[allow(unsafe_code)]
fn limit_file_size(command: &mut Command, bytes: u64) {
    // SAFETY: setrlimit and signal are async-signal-safe; plain data only.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A copy of a sample ELF to edit, in `dir`.
fn copy_of(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::copy(sample(&format!("pal/{name}")), &path).expect("copy");
    path
}

/// A JSON table of `count` format strings `tag N=%d\n`, with IDs of their own per tag (embed
/// takes IDs as given; they need not be the strings' hashes here).
fn table(dir: &Path, tag: &str, count: usize) -> PathBuf {
    let base = 1 + (u64::from(tag.as_bytes()[0]) << 40);
    let entries: Vec<serde_json::Value> = (0..count)
        .map(|i| {
            serde_json::json!({
                ".index": base + i as u64,
                ".string": format!("{tag} {i}=%d\n"),
                ".argument_count": 1,
                ".64bit_arguments": [0],
            })
        })
        .collect();
    let path = dir.join(format!("{tag}.json"));
    let json = serde_json::json!({".version": 1, ".strings": entries});
    std::fs::write(&path, serde_json::to_vec(&json).expect("json")).expect("write");
    path
}

/// The strings of a file's table, as `dump --json` gives them.
fn strings_of(path: &Path) -> Vec<String> {
    let run = run_fmtstr(["dump", "--json", path_str(path)]).expect_code(0);
    let json: serde_json::Value = serde_json::from_slice(&run.stdout).expect("json");
    json[0]["format_strings"][".strings"]
        .as_array()
        .map(|entries| {
            entries
                .iter()
                .filter_map(|e| e[".string"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The brief's own command line: `fmtstr merge a.elf b.elf` edits a.elf, as llvm-objcopy does.
#[test]
fn merge_and_embed_without_output_replace_their_input() {
    let dir = scratch();
    let base = copy_of(dir.path(), "compute.elf");
    let graphics = sample("pal/graphics.elf");
    let before = strings_of(&base);
    let run = run_fmtstr(["merge", path_str(&base), path_str(&graphics)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let after = strings_of(&base);
    assert!(after.len() > before.len(), "{before:?} -> {after:?}");
    for string in strings_of(&graphics) {
        assert!(after.contains(&string), "{string} missing");
    }
    let json = table(dir.path(), "embedded", 3);
    let run = run_fmtstr(["embed", "--strings", path_str(&json), path_str(&base)]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(strings_of(&base).contains(&"embedded 2=%d\n".to_owned()));
    // -o still leaves the input alone, and stdin cannot be replaced.
    let bytes = std::fs::read(&base).expect("read");
    let out = dir.path().join("out.elf");
    run_command(fmtstr().args([
        "merge",
        path_str(&base),
        path_str(&graphics),
        "-o",
        path_str(&out),
    ]))
    .expect_code(0);
    assert_eq!(std::fs::read(&base).expect("read"), bytes);
    let run = run_command(
        fmtstr()
            .args(["merge", "-"])
            .stdin(std::fs::File::open(&base).expect("open")),
    );
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("-o OUT"), "{}", run.stderr);
}

#[allow(unsafe_code)]
fn with_umask(command: &mut Command, mask: libc::mode_t) {
    // SAFETY: umask is async-signal-safe.
    unsafe {
        command.pre_exec(move || {
            libc::umask(mask);
            Ok(())
        });
    }
}

#[test]
fn new_files_follow_the_umask_and_replaced_files_keep_their_mode() {
    let dir = scratch();
    for (mask, mode) in [(0o077, 0o600), (0o022, 0o644), (0o002, 0o664)] {
        let out = dir.path().join(format!("new-{mask:o}.elf"));
        let mut command = fmtstr();
        command.args([
            "merge",
            path_str(&sample("pal/compute.elf")),
            "-o",
            path_str(&out),
        ]);
        with_umask(&mut command, mask);
        run_command(&mut command).expect_code(0);
        let got = std::fs::metadata(&out).expect("stat").permissions().mode() & 0o777;
        assert_eq!(got, mode, "umask {mask:o}");
    }
    let edited = copy_of(dir.path(), "compute.elf");
    std::fs::set_permissions(&edited, std::fs::Permissions::from_mode(0o751)).expect("chmod");
    let mut command = fmtstr();
    command.args([
        "merge",
        path_str(&edited),
        path_str(&sample("pal/graphics.elf")),
    ]);
    with_umask(&mut command, 0o077);
    run_command(&mut command).expect_code(0);
    let got = std::fs::metadata(&edited)
        .expect("stat")
        .permissions()
        .mode()
        & 0o7777;
    assert_eq!(got, 0o751);
}

fn is_root() -> bool {
    rustix_uid() == 0
}

#[allow(unsafe_code)]
fn rustix_uid() -> u32 {
    // SAFETY: getuid cannot fail.
    unsafe { libc::getuid() }
}

/// The uid and gid of `nobody`, to run as another user when the tests run as root.
const NOBODY: u32 = 65534;

#[allow(unsafe_code)]
fn as_nobody(command: &mut Command) {
    // SAFETY: setgroups, setgid and setuid are async-signal-safe.
    unsafe {
        command.pre_exec(|| {
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setgid(NOBODY) != 0
                || libc::setuid(NOBODY) != 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// A file the caller may not write is left alone (exit 2) unless --force; as root, the test
/// runs fmtstr as `nobody` in a directory anyone may write.
#[test]
fn a_file_you_may_not_write_is_replaced_only_with_force() {
    let dir = scratch();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o777)).expect("chmod");
    let edited = copy_of(dir.path(), "compute.elf");
    let mode = if is_root() { 0o644 } else { 0o444 };
    std::fs::set_permissions(&edited, std::fs::Permissions::from_mode(mode)).expect("chmod");
    let bytes = std::fs::read(&edited).expect("read");
    let graphics = sample("pal/graphics.elf");
    let merge = |force: bool| {
        let mut command = fmtstr();
        command.args(["merge", path_str(&edited), path_str(&graphics)]);
        if force {
            command.arg("--force");
        }
        if is_root() {
            as_nobody(&mut command);
        }
        run_command(&mut command)
    };
    let run = merge(false);
    assert_orderly(&run, "merge of a read-only file");
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("--force"), "{}", run.stderr);
    assert_eq!(std::fs::read(&edited).expect("read"), bytes, "file changed");
    let run = merge(true);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_ne!(std::fs::read(&edited).expect("read"), bytes);
    let metadata = std::fs::metadata(&edited).expect("stat");
    assert_eq!(metadata.permissions().mode() & 0o777, mode, "mode kept");
    if is_root() {
        // nobody could not give the file back to root, and says so.
        assert!(run.stderr.contains("belonged to uid 0"), "{}", run.stderr);
    }
    assert_eq!(temporaries(dir.path()), Vec::<String>::new());
}

/// A replaced file keeps its owner and group (root may keep them; others are told).
#[test]
fn a_replaced_file_keeps_its_owner() {
    if !is_root() {
        eprintln!("skipped: keeping another user's ownership needs root (run the tests as root)");
        return;
    }
    let dir = scratch();
    let edited = copy_of(dir.path(), "compute.elf");
    std::os::unix::fs::chown(&edited, Some(NOBODY), Some(NOBODY)).expect("chown");
    run_fmtstr([
        "merge",
        path_str(&edited),
        path_str(&sample("pal/graphics.elf")),
    ])
    .expect_code(0);
    let metadata = std::fs::metadata(&edited).expect("stat");
    assert_eq!((metadata.uid(), metadata.gid()), (NOBODY, NOBODY));
}

/// Symbolic links are followed and stay links; a hard link is broken, as `--help` says.
#[test]
fn links_in_place() {
    let dir = scratch();
    let edited = copy_of(dir.path(), "compute.elf");
    let before = std::fs::read(&edited).expect("read");
    let symlink = dir.path().join("link.elf");
    std::os::unix::fs::symlink(&edited, &symlink).expect("symlink");
    let hardlink = dir.path().join("hard.elf");
    std::fs::hard_link(&edited, &hardlink).expect("hard link");
    run_fmtstr([
        "merge",
        path_str(&symlink),
        path_str(&sample("pal/graphics.elf")),
    ])
    .expect_code(0);
    assert!(symlink.is_symlink(), "the link was replaced by a file");
    let after = std::fs::read(&edited).expect("read");
    assert_ne!(after, before, "the link's target was not updated");
    assert_eq!(std::fs::read(&hardlink).expect("read"), before);
    let help = run_fmtstr(["merge", "--help"]).expect_code(0).stdout_text();
    assert!(help.contains("hard link is broken"), "{help}");
}

/// Two in-place runs on one file take turns: neither update is lost.
#[test]
fn concurrent_in_place_runs_lose_no_update() {
    let dir = scratch();
    let a = table(dir.path(), "a", 2000);
    let b = table(dir.path(), "b", 2000);
    for round in 0..6 {
        let edited = dir.path().join(format!("edited-{round}.elf"));
        std::fs::copy(sample("pal/compute.elf"), &edited).expect("copy");
        let children: Vec<_> = [&a, &b]
            .iter()
            .map(|json| {
                fmtstr()
                    .args(["embed", "--strings", path_str(json), path_str(&edited)])
                    .stderr(Stdio::piped())
                    .spawn()
                    .expect("spawn")
            })
            .collect();
        for child in children {
            let output = child.wait_with_output().expect("wait");
            assert!(
                output.status.success(),
                "{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        let strings = strings_of(&edited);
        assert!(
            strings.contains(&"a 1999=%d\n".to_owned())
                && strings.contains(&"b 1999=%d\n".to_owned()),
            "round {round}: an update was lost ({} strings)",
            strings.len()
        );
    }
}

/// A large table, embedded: the ELF a long merge reads.
fn big_elf(dir: &Path, count: usize) -> PathBuf {
    let json = table(dir, "big", count);
    let out = dir.join("big.elf");
    run_fmtstr([
        "embed",
        "--strings",
        path_str(&json),
        path_str(&sample("pal/compute.elf")),
        "-o",
        path_str(&out),
    ])
    .expect_code(0);
    out
}

/// SIGTERM or SIGINT during an in-place merge: the file is the old or the new one, and no
/// temporary file remains. SIGKILL may leave one, which the next run removes.
#[test]
fn signals_leave_the_old_or_the_new_file_and_no_temporary() {
    let dir = scratch();
    let big = big_elf(dir.path(), 200_000);
    let old = std::fs::read(&big).expect("read");
    let graphics = sample("pal/graphics.elf");
    let new = {
        let out = dir.path().join("new.elf");
        run_fmtstr([
            "merge",
            path_str(&big),
            path_str(&graphics),
            "-o",
            path_str(&out),
        ])
        .expect_code(0);
        let new = std::fs::read(&out).expect("read");
        std::fs::remove_file(&out).expect("rm");
        new
    };
    for (signal, delay) in [
        (libc::SIGTERM, 50),
        (libc::SIGINT, 150),
        (libc::SIGTERM, 300),
        (libc::SIGKILL, 200),
    ] {
        std::fs::write(&big, &old).expect("reset");
        let child = fmtstr()
            .args(["merge", path_str(&big), path_str(&graphics)])
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        let pid = child.id() as libc::pid_t;
        std::thread::sleep(Duration::from_millis(delay));
        #[allow(unsafe_code)]
        // SAFETY: kill of our own child.
        unsafe {
            libc::kill(pid, signal);
        }
        let output = child.wait_with_output().expect("wait");
        let now = std::fs::read(&big).expect("read");
        assert!(
            now == old || now == new,
            "signal {signal} after {delay} ms: a third file"
        );
        let left = temporaries(dir.path());
        if signal == libc::SIGKILL {
            // The next write into the directory removes what a killed run left.
            run_fmtstr([
                "merge",
                path_str(&big),
                "-o",
                path_str(&dir.path().join("x.elf")),
            ])
            .expect_code(0);
        } else {
            assert!(
                left.is_empty(),
                "signal {signal}: left {left:?} ({:?})",
                output.status
            );
        }
        assert_eq!(temporaries(dir.path()), Vec::<String>::new());
    }
}

/// A stale temporary file of a process that no longer runs is removed; one of a running
/// process is not.
#[test]
fn stale_temporaries_are_recognised_by_name() {
    let dir = scratch();
    let mut gone = Command::new("true").spawn().expect("spawn true");
    let dead = gone.id();
    gone.wait().expect("wait");
    let stale = dir.path().join(format!(".fmtstr-{dead}-abcdef.tmp"));
    let live = dir
        .path()
        .join(format!(".fmtstr-{}-abcdef.tmp", std::process::id()));
    std::fs::write(&stale, b"partial").expect("write");
    std::fs::write(&live, b"in progress").expect("write");
    run_fmtstr([
        "merge",
        path_str(&sample("pal/compute.elf")),
        "-o",
        path_str(&dir.path().join("out.elf")),
    ])
    .expect_code(0);
    assert!(!stale.exists(), "the stale temporary file stayed");
    assert!(
        live.exists(),
        "a running process's temporary file was removed"
    );
}

/// A buffer file truncated while it is decoded: an error naming it, never SIGBUS.
#[test]
fn a_buffer_truncated_while_it_is_decoded_is_an_error() {
    let dir = scratch();
    let compute = std::fs::read(sample("decode/compute.bin")).expect("read");
    // The sample's entries again and again, with the header's offset set to the whole.
    let header = 16;
    let body = &compute[header..];
    let mut bytes = compute[..header].to_vec();
    while bytes.len() < (96 << 20) {
        bytes.extend_from_slice(body);
    }
    let dwords = ((bytes.len() - header) / 4) as u64;
    bytes[..8].copy_from_slice(&dwords.to_le_bytes());
    let path = dir.path().join("buf.bin");
    let strings = sample("decode/compute.json");
    for delay in [20u64, 60, 150] {
        std::fs::write(&path, &bytes).expect("write");
        let child = fmtstr()
            .args([
                "decode",
                path_str(&path),
                "--strings",
                path_str(&strings),
                "-j1",
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(delay));
        std::fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .expect("open")
            .set_len(4096)
            .expect("truncate");
        let output = child.wait_with_output().expect("wait");
        let stderr = String::from_utf8_lossy(&output.stderr);
        let code = output.status.code();
        assert!(
            code.is_some(),
            "delay {delay}: died by {:?}\n{stderr}",
            output.status
        );
        if code != Some(0) {
            assert!(stderr.contains("shrank"), "delay {delay}: {stderr}");
        }
    }
}

#[allow(unsafe_code)]
fn limit_address_space(command: &mut Command, bytes: u64) {
    // SAFETY: setrlimit is async-signal-safe; plain data only.
    unsafe {
        command.pre_exec(move || {
            let limit = libc::rlimit {
                rlim_cur: bytes,
                rlim_max: bytes,
            };
            if libc::setrlimit(libc::RLIMIT_AS, &limit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
}

/// Out of memory: exit 2 naming the input and the size, not an abort.
#[test]
fn out_of_memory_is_an_error_naming_the_input() {
    let dir = scratch();
    let big = big_elf(dir.path(), 400_000);
    let size = std::fs::metadata(&big).expect("stat").len();
    for args in [
        vec!["dump".to_owned(), path_str(&big).to_owned()],
        vec!["audit".to_owned(), path_str(&big).to_owned()],
        vec![
            "merge".to_owned(),
            path_str(&big).to_owned(),
            "-o".to_owned(),
            path_str(&dir.path().join("out.elf")).to_owned(),
        ],
    ] {
        let mut command = fmtstr();
        command.args(&args).stdout(Stdio::null());
        limit_address_space(&mut command, size * 2);
        let run = run_command(&mut command);
        let what = args.join(" ");
        assert_orderly(&run, &what);
        assert_eq!(run.code, 2, "{what}: {}", run.stderr);
        assert!(
            run.stderr.contains("out of memory"),
            "{what}: {}",
            run.stderr
        );
        assert!(
            run.stderr.contains(path_str(&big)),
            "{what}: {}",
            run.stderr
        );
        assert_eq!(temporaries(dir.path()), Vec::<String>::new(), "{what}");
    }
}

/// Pipes, FIFOs, `<(...)` and `-` are inputs like files.
#[test]
fn pipes_and_fifos_are_read_to_their_end() {
    let dir = scratch();
    let buffer = sample("decode/compute.bin");
    let strings = sample("decode/compute.json");
    let expected = std::fs::read(sample("decode/compute.txt")).expect("read");
    // stdin as the buffer.
    let run = run_command(
        fmtstr()
            .args(["decode", "-", "--strings", path_str(&strings)])
            .stdin(std::fs::File::open(&buffer).expect("open")),
    )
    .expect_code(0);
    assert_eq!(run.stdout, expected);
    // A FIFO as the table, as `<(cat ...)` gives one.
    let fifo = dir.path().join("table.fifo");
    let c_path = std::ffi::CString::new(path_str(&fifo)).expect("path");
    #[allow(unsafe_code)]
    // SAFETY: mkfifo of a NUL-terminated path.
    let made = unsafe { libc::mkfifo(c_path.as_ptr(), 0o600) };
    assert_eq!(made, 0, "mkfifo");
    let writer = {
        let fifo = fifo.clone();
        let strings = strings.clone();
        std::thread::spawn(move || {
            let bytes = std::fs::read(&strings).expect("read");
            std::fs::write(&fifo, bytes).expect("write fifo");
        })
    };
    let run =
        run_fmtstr(["decode", path_str(&buffer), "--strings", path_str(&fifo)]).expect_code(0);
    writer.join().expect("writer");
    assert_eq!(run.stdout, expected);
    // A PAL ELF through a pipe, for dump.
    let run = run_command(
        fmtstr()
            .args(["dump", "-"])
            .stdin(std::fs::File::open(sample("pal/compute.elf")).expect("open")),
    )
    .expect_code(0);
    assert!(run.stdout_text().contains("x=%d"), "{}", run.stdout_text());
}
