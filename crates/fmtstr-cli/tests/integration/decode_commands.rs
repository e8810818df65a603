//! `fmtstr decode` (issue 6): the samples, every kind of bad buffer through the command line
//! (exit codes, messages naming the offset, no panic, bounded memory), JSON against its
//! schema, threads against one thread, and CUDA vprintf buffers.

use std::path::{Path, PathBuf};

use fmtstr_decode::encode::{BufferWriter, Payload};
use fmtstr_meta::FormatId;
use serde_json::Value as Json;

use crate::util::{assert_matches_schema, root, run, Run};

fn pal(name: &str) -> PathBuf {
    root().join("samples/pal").join(name)
}

fn sample(name: &str) -> PathBuf {
    root().join("samples/decode").join(name)
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-decode-test-")
        .tempdir()
        .expect("temp dir")
}

fn id(format: &str) -> u64 {
    FormatId::of(format.as_bytes()).get()
}

/// The ID samples/pal/graphics.elf gives "frag depth %f\n": an opaque one, not fmtstr's hash.
const FRAG_DEPTH: u64 = 0x1234;

/// The entries of samples/decode/compute.bin, for compute.elf and graphics.elf.
fn compute_buffer() -> BufferWriter {
    let mut w = BufferWriter::new();
    let mut p = Payload::new();
    for thread in 0..3u32 {
        w.entry(id("x=%d\n"), &[thread.wrapping_sub(1)]);
        p.clear()
            .u32(thread)
            .u64((-(1i64 << 40) + i64::from(thread)) as u64);
        w.entry(id("thread %u: value %lld\n"), p.dwords());
    }
    p.clear().f32(0.1).f32(-2.5e-8).f32(f32::INFINITY);
    w.entry(id("%f %f %f\n"), p.dwords());
    p.clear().f32(1.0).f32(0.5).f32(0.25).f32(-0.0);
    w.entry(id("vec %v4hlf\n"), p.dwords());
    p.clear()
        .u32(640)
        .u32(-1i32 as u32)
        .f32(0.2)
        .f32(0.4)
        .f32(0.6)
        .f32(1.0);
    w.entry(id("pixel (%d, %d) = %v4hlf\n"), p.dwords());
    w.entry(FRAG_DEPTH, &[0.75f32.to_bits()]);
    w
}

const COMPUTE_TEXT: &str = "x=-1\n\
thread 0: value -1099511627776\n\
x=0\n\
thread 1: value -1099511627775\n\
x=1\n\
thread 2: value -1099511627774\n\
0.100000 -0.000000 inf\n\
vec 1.000000,0.500000,0.250000,-0.000000\n\
pixel (640, -1) = 0.200000,0.400000,0.600000,1.000000\n\
frag depth 0.750000\n";

/// samples/decode/overflow.bin: an unknown ID, a short payload, then more allocated than fits.
fn overflow_buffer() -> Vec<u8> {
    let mut w = compute_buffer();
    w.entry(0xbad1d, &[1, 2, 3]);
    w.entry(id("thread %u: value %lld\n"), &[7, 8]);
    for k in 0..5u32 {
        w.entry(id("x=%d\n"), &[k]);
    }
    let fits = w.len() - 1; // the last entry loses its payload dword
    w.finish_with(w.len() + 40, fits)
}

/// samples/decode/vprintf.bin: ("%c %hd %lld %f %s\n", 'A', -2, 1 << 40, 2.5, null).
fn vprintf_buffer() -> Vec<u8> {
    let mut bytes = vec![0u8; 32];
    bytes[0..4].copy_from_slice(&i32::from(b'A').to_le_bytes());
    bytes[4..8].copy_from_slice(&(-2i32).to_le_bytes());
    bytes[8..16].copy_from_slice(&(1i64 << 40).to_le_bytes());
    bytes[16..24].copy_from_slice(&2.5f64.to_le_bytes());
    bytes
}

fn samples() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("compute.bin", compute_buffer().finish()),
        ("overflow.bin", overflow_buffer()),
        ("vprintf.bin", vprintf_buffer()),
    ]
}

/// samples/decode/*.bin are what this file generates (FMTSTR_BLESS=1 rewrites them).
#[test]
fn samples_are_current() {
    let bless = std::env::var_os("FMTSTR_BLESS").is_some();
    for (name, bytes) in samples() {
        let path = sample(name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, &bytes).unwrap();
        }
        let on_disk = std::fs::read(&path).unwrap_or_default();
        assert!(
            on_disk == bytes,
            "{} is stale: run FMTSTR_BLESS=1 cargo test -p fmtstr-cli decode",
            path.display()
        );
    }
}

fn decode(args: &[&Path]) -> Run {
    run(std::iter::once(Path::new("decode")).chain(args.iter().copied()))
}

#[test]
fn the_sample_decodes_with_pal_elfs_exactly() {
    let run = decode(&[
        &sample("compute.bin"),
        Path::new("--elf"),
        &pal("compute.elf"),
        Path::new("--elf"),
        &pal("graphics.elf"),
    ])
    .expect_code(0);
    assert_eq!(run.stdout_text(), COMPUTE_TEXT);
    assert_eq!(
        std::fs::read_to_string(sample("compute.txt")).unwrap_or_default(),
        COMPUTE_TEXT,
        "samples/decode/compute.txt"
    );
    assert_eq!(run.stderr, "");
    // The same with the JSON table `fmtstr lower --emit-strings` would write, and --strict.
    let run = decode(&[
        &sample("compute.bin"),
        Path::new("--strings"),
        &sample("compute.json"),
        Path::new("--strict"),
        Path::new("--jobs"),
        Path::new("1"),
    ])
    .expect_code(0);
    assert_eq!(run.stdout_text(), COMPUTE_TEXT);
}

#[test]
fn overflow_unknown_ids_and_short_payloads() {
    let args = [
        sample("overflow.bin"),
        "--elf".into(),
        pal("compute.elf"),
        "--elf".into(),
        pal("graphics.elf"),
    ];
    let args: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
    let run = decode(&args).expect_code(0);
    let text = run.stdout_text();
    let expected = std::fs::read_to_string(sample("overflow.txt")).unwrap_or_default();
    assert_eq!(
        text, expected,
        "stdout differs from samples/decode/overflow.txt"
    );
    assert!(text.starts_with(COMPUTE_TEXT));
    let lines: Vec<&str> = text.lines().skip(10).collect();
    assert_eq!(
        lines[0],
        "<fmtstr: dword 46 (byte 200): unknown format ID 0xbad1d in an entry of 5 dwords; skipped>"
    );
    assert!(lines[1].starts_with("<fmtstr: dword 51 (byte 220): format ID 0x42b97fb9de03"));
    assert!(lines[1].ends_with("reads 3 payload dwords but the entry has 2; skipped>"));
    assert_eq!(&lines[2..6], ["x=0", "x=1", "x=2", "x=3"]);
    assert!(lines[6].starts_with("<fmtstr: dword 67 (byte 284): an entry of 3 dwords"));
    assert!(lines[6].contains("has 2 dwords left; it was cut off"));
    assert_eq!(lines.len(), 7);
    assert!(
        run.stderr.contains(
            "overflow.bin: the buffer overflowed: bufferOffset is 110 dwords but the buffer \
             holds 69 after its header; 41 dwords of entries were lost"
        ),
        "{}",
        run.stderr
    );
    assert!(run
        .stderr
        .contains("overflow.bin: 3 of 17 entries could not be printed"));
    // --strict: the same output, exit 1.
    let mut strict = args.clone();
    strict.push(Path::new("--strict"));
    let run = decode(&strict).expect_code(1);
    assert_eq!(run.stdout_text(), expected);
}

#[test]
fn an_id_with_two_strings_warns_and_the_first_table_wins() {
    let buffer = sample("compute.bin");
    let run = decode(&[
        &buffer,
        Path::new("--elf"),
        &pal("compute.elf"),
        Path::new("--elf"),
        &pal("collision.elf"),
        Path::new("--elf"),
        &pal("graphics.elf"),
    ])
    .expect_code(0);
    assert_eq!(run.stdout_text(), COMPUTE_TEXT);
    assert!(run.stderr.contains("collides"), "{}", run.stderr);
    assert!(run.stderr.contains("compute.elf") && run.stderr.contains("collision.elf"));
    assert!(run.stderr.contains("decoded with the first string"));
    // The other order prints the other string.
    let run = decode(&[
        &buffer,
        Path::new("--elf"),
        &pal("collision.elf"),
        Path::new("--elf"),
        &pal("compute.elf"),
        Path::new("--elf"),
        &pal("graphics.elf"),
        Path::new("--strict"),
    ])
    .expect_code(1);
    assert!(run.stdout_text().starts_with("y=-1\n"));
}

#[test]
fn json_lines_and_stats_follow_the_schema() {
    let args = [
        sample("overflow.bin"),
        "--elf".into(),
        pal("compute.elf"),
        "--elf".into(),
        pal("graphics.elf"),
        "--json".into(),
    ];
    let args: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
    let run = decode(&args).expect_code(0);
    let lines: Vec<Json> = run
        .stdout
        .split(|&b| b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("each line is JSON"))
        .collect();
    assert_eq!(lines.len(), 17);
    for line in &lines {
        assert_matches_schema("decode.schema.json", line);
    }
    let texts: String = lines
        .iter()
        .filter_map(|line| line["text"].as_str())
        .collect();
    assert!(texts.starts_with(COMPUTE_TEXT));
    let thread = &lines[1];
    assert_eq!(thread["format"], "thread %u: value %lld\n");
    assert_eq!(thread["arguments"][1]["value"], -(1i64 << 40));
    assert_eq!(thread["arguments"][1]["bits"], 64);
    assert_eq!(lines[6]["arguments"][2]["value"], "inf");
    assert_eq!(
        lines[7]["arguments"][0]["value"],
        serde_json::json!([1.0, 0.5, 0.25, -0.0])
    );
    assert!(lines[10]["error"]
        .as_str()
        .unwrap()
        .contains("unknown format ID"));
    assert_eq!(lines[10]["format"], Json::Null);
    assert_eq!(lines[16]["offset"], 67);
    assert!(lines[16].get("id").is_none());

    let mut stats_args = args.clone();
    stats_args.push(Path::new("--stats"));
    let run = decode(&stats_args).expect_code(0);
    let stats: Json = serde_json::from_slice(&run.stdout).expect("JSON");
    assert_matches_schema("decode.schema.json", &stats);
    assert_eq!(stats["lost_dwords"], 41);
    assert_eq!(stats["entries"], 16);
    assert_eq!(stats["formats"][0]["format"], "x=%d\n");
    assert_eq!(stats["formats"][0]["dwords"], 7 * 3);
    assert_eq!(stats["formats"][1]["dwords"], 3 * 5 + 4);
    assert_eq!(stats["stopped"]["offset"], 67);

    let run = decode(&[&sample("compute.bin"), Path::new("--stats")]).expect_code(0);
    let text = run.stdout_text();
    assert!(
        text.starts_with(
            "10 entries in 46 dwords (bufferOffset 46, capacity 46 dwords), 6 formats"
        ),
        "{text}"
    );
}

/// Each bad buffer: (name, bytes, exit code, what stdout has, what stderr has).
fn bad_buffers() -> Vec<(&'static str, Vec<u8>, i32, &'static str, &'static str)> {
    let x = id("x=%d\n");
    let mut cases = Vec::new();
    cases.push((
        "empty",
        Vec::new(),
        2,
        "",
        "empty.bin: the buffer is 0 bytes, shorter than its 16-byte header",
    ));
    cases.push((
        "short",
        vec![1; 15],
        2,
        "",
        "short.bin: the buffer is 15 bytes",
    ));
    let mut w = BufferWriter::new();
    w.entry(x, &[1]).raw(&[0, 0, 0]).entry(x, &[2]);
    cases.push((
        "unwritten",
        w.finish(),
        0,
        "x=1\n<fmtstr: dword 3 (byte 28): an all-zero entry header",
        "unwritten.bin: dword 3 (byte 28): an all-zero entry header",
    ));
    let mut w = BufferWriter::new();
    w.entry(x, &[1]).raw(&[0x0001_0000, 5, 6]);
    cases.push((
        "size0",
        w.finish(),
        0,
        "<fmtstr: dword 3 (byte 28): entry size 0 (format ID 0x50001)",
        "size0.bin: dword 3 (byte 28): entry size 0",
    ));
    let mut w = BufferWriter::new();
    w.entry(x, &[1])
        .raw(&[0x7fff | (x as u32) << 16, (x >> 16) as u32, 6]);
    cases.push((
        "past-end",
        w.finish(),
        0,
        "<fmtstr: dword 3 (byte 28): an entry of 32767 dwords",
        "has 3 dwords left; it was cut off",
    ));
    let mut w = BufferWriter::new();
    w.entry(0xabc, &[1])
        .entry(x, &[2])
        .entry(x, &[])
        .entry(x, &[3, 4]);
    cases.push((
        "unknown-short-long",
        w.finish(),
        0,
        "<fmtstr: dword 0 (byte 16): unknown format ID 0xabc in an entry of 3 dwords; skipped>\n\
         x=2\n<fmtstr: dword 6 (byte 40): format ID",
        "dword 8 (byte 48): format ID 0x60281a928696 (\"x=%d\\n\") reads 1 payload dwords but the \
         entry has 2; the last 1 were ignored",
    ));
    let mut w = BufferWriter::new();
    w.entry(x, &[1]);
    let mut bytes = w.finish_with(1_000_000_000_000, 3);
    bytes[12] = 7;
    bytes.push(1);
    cases.push((
        "garbage-header",
        bytes,
        0,
        "x=1\n",
        "the header's reserved dwords are 0x0 and 0x7",
    ));
    cases
}

#[test]
fn bad_buffers_fail_cleanly_with_the_offset() {
    let dir = scratch();
    for (name, bytes, code, stdout, stderr) in bad_buffers() {
        let path = dir.path().join(format!("{name}.bin"));
        std::fs::write(&path, &bytes).unwrap();
        let run = decode(&[&path, Path::new("--elf"), &pal("compute.elf")]);
        assert_eq!(run.code, code, "{name}: {}", run.stderr);
        assert!(
            run.stdout_text().contains(stdout),
            "{name}: stdout {:?}",
            run.stdout_text()
        );
        assert!(run.stderr.contains(stderr), "{name}: stderr {}", run.stderr);
        assert!(!run.stderr.contains("panicked"), "{name}");
        if code == 0 {
            let strict = decode(&[
                &path,
                Path::new("--elf"),
                &pal("compute.elf"),
                Path::new("--strict"),
            ]);
            assert_eq!(strict.code, 1, "{name} --strict");
            assert_eq!(strict.stdout, run.stdout);
            // JSON and stats survive it too.
            let json = decode(&[
                &path,
                Path::new("--elf"),
                &pal("compute.elf"),
                Path::new("--json"),
            ]);
            assert_eq!(json.code, 0, "{name} --json: {}", json.stderr);
            for line in json.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                let line: Json = serde_json::from_slice(line).expect("JSON line");
                assert_matches_schema("decode.schema.json", &line);
            }
            decode(&[&path, Path::new("--stats"), Path::new("--json")]).expect_code(0);
        }
    }
    assert!(
        dir.path().join("garbage-header.bin").exists(),
        "the cases ran"
    );
}

#[test]
fn bad_tables_and_files_are_errors() {
    let dir = scratch();
    let buffer = sample("compute.bin");
    let run = decode(&[&buffer]).expect_code(2);
    assert!(
        run.stderr.contains("no format strings: give the tables"),
        "{}",
        run.stderr
    );
    let missing = dir.path().join("missing.bin");
    let run = decode(&[&missing, Path::new("--elf"), &pal("compute.elf")]).expect_code(2);
    assert!(run.stderr.contains("cannot read") && run.stderr.contains("missing.bin"));
    let bad_json = dir.path().join("bad.json");
    std::fs::write(&bad_json, "{\".version\": 2}").unwrap();
    let run = decode(&[&buffer, Path::new("--strings"), &bad_json]).expect_code(2);
    assert!(run.stderr.contains("bad.json"), "{}", run.stderr);
    let run = decode(&[&buffer, Path::new("--elf"), &buffer]).expect_code(2);
    assert!(run.stderr.contains("compute.bin"), "{}", run.stderr);
    // An ELF without a table is a warning, and every ID is then unknown.
    let run = decode(&[&buffer, Path::new("--elf"), &pal("no_strings.elf")]).expect_code(0);
    assert!(
        run.stderr
            .contains("no_strings.elf: PAL metadata without an amdpal.format_strings table"),
        "{}",
        run.stderr
    );
    assert_eq!(run.stdout_text().lines().count(), 10);
    assert!(run
        .stdout_text()
        .lines()
        .all(|l| l.starts_with("<fmtstr: ")));
}

#[test]
fn threads_print_the_same_bytes_in_the_same_order() {
    let dir = scratch();
    let mut w = BufferWriter::new();
    let mut p = Payload::new();
    for k in 0..60_000u32 {
        match k % 5 {
            0 => w.entry(id("x=%d\n"), &[k]),
            1 => w.entry(
                id("thread %u: value %lld\n"),
                p.clear().u32(k).u64(u64::from(k) << 33).dwords(),
            ),
            2 => w.entry(
                id("%f %f %f\n"),
                p.clear()
                    .f32(k as f32)
                    .f32(1.0 / k as f32)
                    .f32(-(k as f32))
                    .dwords(),
            ),
            3 if k % 1000 == 3 => w.entry(0x77, &[k]),
            _ => w.entry(FRAG_DEPTH, &[(k as f32 * 0.001).to_bits()]),
        };
    }
    let path = dir.path().join("big.bin");
    std::fs::write(&path, w.finish()).unwrap();
    let base = [
        path.as_path(),
        Path::new("--elf"),
        &pal("compute.elf"),
        Path::new("--elf"),
        &pal("graphics.elf"),
    ];
    let one = decode(&[&base[..], &[Path::new("--jobs"), Path::new("1")]].concat()).expect_code(0);
    let four = decode(&[&base[..], &[Path::new("-j"), Path::new("4")]].concat()).expect_code(0);
    assert_eq!(one.stdout.len(), four.stdout.len());
    assert!(one.stdout == four.stdout);
    assert_eq!(one.stderr, four.stderr);
    assert!(
        one.stderr.contains("10 more warnings not shown"),
        "{}",
        one.stderr
    );
    let json1 =
        decode(&[&base[..], &[Path::new("--json"), Path::new("-j1")]].concat()).expect_code(0);
    let json3 =
        decode(&[&base[..], &[Path::new("--json"), Path::new("-j3")]].concat()).expect_code(0);
    assert!(json1.stdout == json3.stdout);
}

/// The real clamp through the command line: a sparse buffer just over 2 GiB whose bufferOffset
/// went past dword 1 << 29. Only the first pages hold entries; decoding stops at the first
/// unwritten header, with a small heap.
#[test]
fn a_buffer_past_the_2_gib_clamp() {
    let dir = scratch();
    let path = dir.path().join("huge.bin");
    let clamp = 1u64 << 29;
    let mut w = BufferWriter::new();
    for k in 0..100 {
        w.entry(id("x=%d\n"), &[k]);
    }
    let bytes = w.finish_with(clamp + 1000, w.len());
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(16 + 4 * (clamp + 500)).unwrap();
    std::io::Write::write_all(&mut &file, &bytes).unwrap();
    drop(file);
    let run = run_limited(
        &[
            "decode",
            path.to_str().unwrap(),
            "--elf",
            pal("compute.elf").to_str().unwrap(),
        ],
        32 << 20,
    );
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(run.stdout_text().starts_with("x=0\nx=1\n"));
    assert!(
        run.stderr.contains(
            "bufferOffset is 536871912 dwords, past the clamp at dword 536870912 (2 GiB): \
             entries allocated past it were all stored at that dword, over each other; 1000 \
             dwords of entries were lost"
        ),
        "{}",
        run.stderr
    );
    assert!(run
        .stderr
        .contains("dword 300 (byte 1216): an all-zero entry header"));
}

/// Runs fmtstr with its heap limited to `limit` bytes (RLIMIT_DATA: private writable memory;
/// the read-only map of the buffer does not count). An allocation beyond it aborts the process.
#[allow(unsafe_code)] // setrlimit in the child between fork and exec
fn run_limited(args: &[&str], limit: u64) -> Run {
    use std::os::unix::process::CommandExt;
    let mut command = crate::util::fmtstr();
    command.args(args);
    // SAFETY: the closure only calls setrlimit, which is async-signal-safe, with plain data.
    unsafe {
        command.pre_exec(move || {
            let rlimit = libc::rlimit {
                rlim_cur: limit,
                rlim_max: limit,
            };
            if libc::setrlimit(libc::RLIMIT_DATA, &rlimit) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    crate::util::run_command(&mut command)
}

/// A 64 MiB buffer decodes on two threads with memory far below the buffer plus its text.
#[test]
fn memory_stays_bounded() {
    let dir = scratch();
    let path = dir.path().join("big.bin");
    let mut w = BufferWriter::with_capacity(16 << 20);
    let mut p = Payload::new();
    let mut k = 0u32;
    while w.len() < (16 << 20) {
        w.entry(
            id("thread %u: value %lld\n"),
            p.clear().u32(k).u64(u64::from(k) * 977).dwords(),
        );
        k += 1;
    }
    std::fs::write(&path, w.finish()).unwrap();
    let elf = pal("compute.elf");
    let args = [
        "decode",
        path.to_str().unwrap(),
        "--elf",
        elf.to_str().unwrap(),
        "-j2",
    ];
    // 32 MiB of heap for 64 MiB of buffer and 100 MiB of text.
    let run = run_limited(&args, 32 << 20);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(
        run.stdout.iter().filter(|&&b| b == b'\n').count(),
        k as usize
    );
    assert!(run.stdout.len() > 100 << 20);
    // The limit is applied: with 1 MiB not even the start fits.
    let one_job = [args[0], args[1], args[2], args[3], "-j1"];
    let run = run_limited(&one_job, 1 << 20);
    assert_ne!(run.code, 0);
}

/// Entries that print 64 KiB each from 3 dwords: 256 MiB of text from 48 KiB of buffer, on
/// one thread and on two, with the heap limited to 64 MiB.
#[test]
fn text_far_larger_than_the_buffer_stays_bounded() {
    let dir = scratch();
    let format = "%65536d\n";
    let table = serde_json::json!({
        ".version": 1,
        ".strings": [{
            ".index": id(format),
            ".string": format,
            ".argument_count": 1,
            ".64bit_arguments": [0],
        }],
    });
    let strings = dir.path().join("wide.json");
    std::fs::write(&strings, table.to_string()).unwrap();
    let mut w = BufferWriter::new();
    for k in 0..4096 {
        w.entry(id(format), &[k]);
    }
    let path = dir.path().join("wide.bin");
    std::fs::write(&path, w.finish()).unwrap();
    for jobs in ["-j1", "-j2"] {
        let run = run_limited(
            &[
                "decode",
                path.to_str().unwrap(),
                "--strings",
                strings.to_str().unwrap(),
                jobs,
            ],
            64 << 20,
        );
        assert_eq!(run.code, 0, "{jobs}: {}", run.stderr);
        assert_eq!(run.stdout.len(), 4096 * 65_537, "{jobs}");
        assert!(run.stdout.ends_with(b"  4095\n"));
    }
}

#[test]
fn vprintf_buffers_use_natural_alignment() {
    let run = run([
        "decode".as_ref(),
        "--vprintf".as_ref(),
        r"%c %hd %lld %f %s\n".as_ref(),
        sample("vprintf.bin").as_os_str(),
    ])
    .expect_code(0);
    assert_eq!(run.stdout_text(), "A -2 1099511627776 2.500000 (null)\n");
    let dir = scratch();
    let path = dir.path().join("short.bin");
    std::fs::write(&path, &vprintf_buffer()[..20]).unwrap();
    let run = run_path(&["decode", "--vprintf", r"%c %hd %lld %f %s\n"], &path).expect_code(2);
    assert!(
        run.stderr.contains("short.bin: argument 4 (%f) is read at byte 16 and needs 8 bytes, but the buffer has 20"),
        "{}",
        run.stderr
    );
    // x=%d y=%f: the double is at 8.
    let mut bytes = vec![0u8; 16];
    bytes[..4].copy_from_slice(&7i32.to_le_bytes());
    bytes[8..].copy_from_slice(&1.5f64.to_le_bytes());
    std::fs::write(&path, &bytes).unwrap();
    let run = run_path(&["decode", "--vprintf", r"x=%d y=%f\n"], &path).expect_code(0);
    assert_eq!(run.stdout_text(), "x=7 y=1.500000\n");
    let run = run_path(&["decode", "--vprintf", "%y"], &path).expect_code(2);
    assert!(
        run.stderr.contains("unknown conversion character"),
        "{}",
        run.stderr
    );
}

fn run_path(args: &[&str], path: &Path) -> Run {
    let mut all: Vec<&std::ffi::OsStr> = args.iter().map(|a| a.as_ref()).collect();
    all.push(path.as_os_str());
    run(all)
}

/// The printf calls of the end-to-end test: every line starts with `t<thread> i<call> <kind>`.
pub(crate) const WORK_C: &str = r#"int printf(const char *format, ...);

void work(int tid, int i) {
    printf("t%d i%d int %d unsigned %u hex %#x\n", tid, i, i * 7919 - 50000,
           (unsigned)i * 2654435761u, i * 31);
    printf("t%d i%d long %ld llx %llx char %c\n", tid, i, (long)i * -123456789L,
           (unsigned long long)i << 37, 'A' + i % 26);
    printf("t%d i%d double %f %e %g %a\n", tid, i, i / 7.0, i * 1e10, 1.0 / (i + 1), i * 0.1);
    if (i % 3 == 0)
        printf("t%d i%d short %hd %hhu %5.2f%% %hhd\n", tid, i, (short)(i * 1000),
               (unsigned char)i, i * 0.25f, (signed char)(i * 7));
    printf("t%d i%d width [%8d] [%-8d] [%08.3f] [%+d] [%-+12.4e] [%5c] [%#10.6X]\n", tid, i,
           i, -i, i * 1.5, i, -i * 3.25, 'a' + i % 26, (unsigned)i * 40503u);
}
"#;

/// Runs work(tid, i) for i < CALLS on 8 threads; the lowered build writes the printf buffer
/// (its first CAPACITY dwords survive, as a bounds-checked buffer drops stores past its end).
pub(crate) const HARNESS_C: &str = r#"#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

void work(int tid, int i);

#define THREADS 8
#define BACKING (1u << 22)

static unsigned char *buffer;
static int calls;

__attribute__((address_space(1))) unsigned char *__fmtstr_printf_buffer(void) {
    return (__attribute__((address_space(1))) unsigned char *)buffer;
}

static void *thread(void *arg) {
    int tid = (int)(intptr_t)arg;
    for (int i = 0; i < calls; i++) work(tid, i);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    calls = atoi(argv[1]);
    buffer = calloc(16 + 4 * (size_t)BACKING, 1);
    pthread_t threads[THREADS];
    for (int t = 0; t < THREADS; t++)
        pthread_create(&threads[t], NULL, thread, (void *)(intptr_t)t);
    for (int t = 0; t < THREADS; t++) pthread_join(threads[t], NULL);
    fflush(stdout);
    if (argc == 4) {
        uint64_t used = *(uint64_t *)buffer;
        size_t capacity = (size_t)strtoull(argv[2], NULL, 10);
        if (used > BACKING || capacity > BACKING) return 3;
        FILE *out = fopen(argv[3], "wb");
        if (!out || fwrite(buffer, 1, 16 + 4 * capacity, out) != 16 + 4 * capacity) return 4;
        fclose(out);
    }
    return 0;
}
"#;

/// Lines grouped by the thread that printed them, in order.
pub(crate) fn by_thread(text: &str) -> std::collections::BTreeMap<String, Vec<String>> {
    let mut threads = std::collections::BTreeMap::<String, Vec<String>>::new();
    for line in text.lines() {
        let thread = line.split(' ').next().unwrap_or("").to_string();
        threads.entry(thread).or_default().push(line.to_string());
    }
    threads
}

#[track_caller]
/// C to AMDGPU IR (gfx1100, PAL) with its printf calls left as calls, as the host-run tests
/// lower it.
pub(crate) fn amdgpu_ir(clang: &Path, c: &Path, ll: &Path) {
    amdgpu_ir_with(clang, c, ll, &[]);
}

/// [`amdgpu_ir`] with more clang options (`-g`).
pub(crate) fn amdgpu_ir_with(clang: &Path, c: &Path, ll: &Path, more: &[&str]) {
    checked(
        std::process::Command::new(clang)
            .args([
                "--target=amdgcn-amd-amdpal",
                "-mcpu=gfx1100",
                "-x",
                "c",
                "-O1",
            ])
            .args(more)
            .args(["-fno-builtin-printf", "-S", "-emit-llvm", "-o"])
            .arg(ll)
            .arg(c),
    );
}

pub(crate) fn checked(command: &mut std::process::Command) -> std::process::Output {
    let output = command.output().expect("the command runs");
    assert!(
        output.status.success(),
        "{command:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

/// Builds the host run in `dir` from a lowered module: retargets it to x86_64 (the host's
/// triple and DataLayout, as clang writes them for an empty file; no GPU CPU or features in the
/// attribute groups), then links it with `harness.c` into `lowered`, and `work.c` with
/// `harness.c` into `host`, whose printf is the oracle.
pub(crate) fn build_host_run(clang: &Path, dir: &Path, lowered: &str) {
    let at = |name: &str| dir.join(name);
    std::fs::write(at("empty.c"), "").unwrap();
    checked(
        std::process::Command::new(clang)
            .args(["-S", "-emit-llvm", "-o"])
            .arg(at("empty.ll"))
            .arg(at("empty.c")),
    );
    let host_ir = std::fs::read_to_string(at("empty.ll")).unwrap();
    let header = |key: &str| -> String {
        host_ir
            .lines()
            .find(|line| line.starts_with(key))
            .unwrap_or_else(|| panic!("no {key} line"))
            .to_string()
    };
    let retargeted: String = lowered
        .lines()
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
                line.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(at("work.x86.ll"), retargeted).unwrap();
    checked(
        std::process::Command::new(clang)
            .args(["-c", "-O1", "-o"])
            .arg(at("work.x86.o"))
            .arg(at("work.x86.ll")),
    );
    checked(
        std::process::Command::new(clang)
            .args(["-O1", "-pthread", "-o"])
            .arg(at("lowered"))
            .arg(at("harness.c"))
            .arg(at("work.x86.o")),
    );
    checked(
        std::process::Command::new(clang)
            .args(["-O1", "-pthread", "-fno-builtin-printf", "-o"])
            .arg(at("host"))
            .arg(at("harness.c"))
            .arg(at("work.c")),
    );
}

/// C printf calls compiled by clang for AMDGPU, lowered by `fmtstr lower --stage buffer` into
/// the printf-buffer protocol, retargeted and compiled for x86_64, and run by 8 threads writing
/// one buffer: `fmtstr decode` prints exactly what the host's printf prints for the same calls
/// (thread by thread), and an overflowing buffer loses exactly what did not fit. Under clang-19
/// and clang-22 alike.
#[test]
fn lowered_printf_on_8_host_threads_decodes_to_the_host_printf_text() {
    for llvm in fmtstr_oracles::Llvm::ALL {
        eprintln!("{llvm}");
        lowered_printf_on_8_host_threads_decodes_to_the_host_printf_text_with(llvm);
    }
}

fn lowered_printf_on_8_host_threads_decodes_to_the_host_printf_text_with(
    llvm: fmtstr_oracles::Llvm,
) {
    let Some(clang) = fmtstr_oracles::require_llvm(llvm, fmtstr_oracles::Tool::Clang) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    std::fs::write(at("work.c"), WORK_C).unwrap();
    std::fs::write(at("harness.c"), HARNESS_C).unwrap();

    // 1. C to AMDGPU IR with raw printf calls, lowered to the buffer protocol.
    amdgpu_ir(&clang, &at("work.c"), &at("work.ll"));
    run([
        "lower".as_ref(),
        "--target".as_ref(),
        "amdgpu".as_ref(),
        "--stage".as_ref(),
        "buffer".as_ref(),
        "--buffer-addrspace".as_ref(),
        "1".as_ref(),
        "--emit-strings".as_ref(),
        at("strings.json").as_os_str(),
        "--report-json".as_ref(),
        at("report.json").as_os_str(),
        at("work.ll").as_os_str(),
        "-o".as_ref(),
        at("work.buffer.ll").as_os_str(),
    ])
    .expect_code(0);

    // 2. Retarget to x86_64 (its triple and DataLayout, as clang writes them; no GPU
    //    attributes) and build the lowered harness and the host-printf harness.
    let lowered = std::fs::read_to_string(at("work.buffer.ll")).unwrap();
    assert!(lowered.contains("@__fmtstr_printf_buffer()") && !lowered.contains("@printf("));
    build_host_run(&clang, dir.path(), &lowered);

    // 3. The host's printf, 8 threads x 2,000 calls.
    let calls = "2000";
    let host = checked(std::process::Command::new(at("host")).arg(calls));
    let host_text = String::from_utf8(host.stdout).unwrap();
    let host_lines = by_thread(&host_text);
    assert_eq!(host_lines.len(), 8);
    assert_eq!(host_text.lines().count(), 8 * (2000 * 4 + 667));

    // Every entry's size, from the table fmtstr lower wrote: 2 header dwords, one per
    // argument, one more per 64-bit argument. The buffer must hold exactly their sum.
    let table: Json =
        serde_json::from_str(&std::fs::read_to_string(at("strings.json")).unwrap()).unwrap();
    let strings = table[".strings"].as_array().unwrap();
    assert_eq!(strings.len(), 5);
    let size_of = |line: &str| -> u64 {
        let kind = line.split(' ').nth(2).unwrap();
        let entry = strings
            .iter()
            .find(|e| {
                e[".string"]
                    .as_str()
                    .unwrap()
                    .contains(&format!(" {kind} "))
            })
            .unwrap_or_else(|| panic!("no format for {line:?}"));
        let mask: u32 = entry[".64bit_arguments"]
            .as_array()
            .unwrap()
            .iter()
            .map(|w| w.as_u64().unwrap().count_ones())
            .sum();
        2 + entry[".argument_count"].as_u64().unwrap() + u64::from(mask)
    };
    let total: u64 = host_text.lines().map(size_of).sum();

    // 4. The lowered calls into a buffer with room for all: the same text, thread by thread.
    checked(
        std::process::Command::new(at("lowered"))
            .args([calls, &(1u64 << 22).to_string()])
            .arg(at("all.bin")),
    );
    let bytes = std::fs::read(at("all.bin")).unwrap();
    assert_eq!(u64::from_le_bytes(bytes[..8].try_into().unwrap()), total);
    // `fmtstr lower --report-json`'s figures, per call, add up to the same dwords.
    let report: Json =
        serde_json::from_str(&std::fs::read_to_string(at("report.json")).unwrap()).unwrap();
    let reported = |line: &str| -> u64 {
        let kind = line.split(' ').nth(2).unwrap();
        let call = report["calls"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["format"].as_str().unwrap().contains(&format!(" {kind} ")))
            .unwrap_or_else(|| panic!("no reported call for {line:?}"));
        assert_eq!(
            call["bytes"].as_u64(),
            call["dwords"].as_u64().map(|d| d * 4)
        );
        call["dwords"].as_u64().unwrap()
    };
    assert_eq!(host_text.lines().map(reported).sum::<u64>(), total);
    let all = decode(&[
        &at("all.bin"),
        Path::new("--strings"),
        &at("strings.json"),
        Path::new("--strict"),
    ])
    .expect_code(0);
    assert_eq!(all.stderr, "");
    let decoded = by_thread(&all.stdout_text());
    for (thread, lines) in &host_lines {
        assert!(
            decoded.get(thread) == Some(lines),
            "thread {thread}: the decoded lines differ from the host's printf"
        );
    }
    assert_eq!(decoded.len(), 8);

    // 5. A buffer with room for 60% (and half an entry): each thread's lines up to the
    //    overflow, one entry cut off, and exactly the dwords that did not fit lost.
    let capacity = total * 3 / 5 + 1;
    checked(
        std::process::Command::new(at("lowered"))
            .args([calls, &capacity.to_string()])
            .arg(at("part.bin")),
    );
    let part =
        decode(&[&at("part.bin"), Path::new("--strings"), &at("strings.json")]).expect_code(0);
    let lost = total - capacity;
    assert!(
        part.stderr.contains(&format!(
            "the buffer overflowed: bufferOffset is {total} dwords but the buffer holds \
             {capacity} after its header; {lost} dwords of entries were lost"
        )),
        "{}",
        part.stderr
    );
    let text = part.stdout_text();
    let (marked, printed): (Vec<&str>, Vec<&str>) =
        text.lines().partition(|line| line.starts_with("<fmtstr: "));
    let printed_dwords: u64 = printed.iter().map(|line| size_of(line)).sum();
    assert!(printed_dwords <= capacity && capacity - printed_dwords < 16);
    if printed_dwords < capacity {
        assert_eq!(marked.len(), 1, "{marked:?}");
        assert!(
            marked[0].contains("it was cut off")
                || marked[0].contains("too short for an entry header")
        );
    } else {
        assert!(marked.is_empty());
    }
    let partial = by_thread(&printed.join("\n"));
    for (thread, lines) in &partial {
        let host = &host_lines[thread];
        assert!(
            lines.len() <= host.len() && host[..lines.len()] == lines[..],
            "thread {thread}: not a prefix of the host's lines"
        );
    }
    decode(&[
        &at("part.bin"),
        Path::new("--strings"),
        &at("strings.json"),
        Path::new("--strict"),
    ])
    .expect_code(1);
}

/// `fmtstr decode --elf` of today's LLPC table (samples/pal/llpc.elf): its NUL-terminated
/// strings print no NUL, and the shader-abort record is marked while the walk goes on.
#[test]
fn llpc_tables_decode_without_nuls_and_mark_abort_records() {
    let dir = scratch();
    let mut writer = BufferWriter::new();
    writer.entry(201916315049291, Payload::new().u32(42).dwords());
    writer.entry(97142069387127, Payload::new().u32(0x2121_2121).dwords());
    writer.entry(34977108451802, Payload::new().f64(64.0).f64(1.0).dwords());
    let buffer = dir.path().join("llpc.bin");
    std::fs::write(&buffer, writer.finish()).expect("write");
    let out = decode(&[&buffer, Path::new("--elf"), &pal("llpc.elf")]).expect_code(0);
    // glibc: printf("Output:%d\n", 42), the marker, printf("workgroup size:%f,%f\n", 64.0, 1.0).
    assert_eq!(
        out.stdout_text(),
        "Output:42\n<fmtstr: dword 3 (byte 28): shader-abort message (format ID 0x5859a689df77, an entry of 3 dwords): message words [0x74736574, 0x21212121]; fmtstr does not render abort messages>\nworkgroup size:64.000000,1.000000\n"
    );
    assert!(!out.stdout.contains(&0));
}
