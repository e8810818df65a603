//! `fmtstr dump`, `embed`, `merge` and `audit` on the PAL ELFs of samples/pal, judged by
//! LLVM's own readers: `llvm-readobj --notes` must read back what fmtstr meant to write,
//! `llvm-readelf -S` must show every other section with the same bytes, and `llvm-objcopy` must
//! copy the output without complaint. The readers of LLVM 19 and of LLVM 22 judge each test.

use std::path::{Path, PathBuf};

use fmtstr_meta::msgpack;
use fmtstr_oracles::{require_llvm, Llvm, Tool};
use serde_json::{json, Value as Json};

use crate::llvm::{self, canonical};
use crate::util::{assert_matches_schema, root, run, Run};

fn sample(name: &str) -> PathBuf {
    root().join("samples/pal").join(name)
}

/// A fresh directory for one test's files.
fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-elf-test-")
        .tempdir()
        .expect("temp dir")
}

fn json_out(run: Run) -> Json {
    serde_json::from_slice(&run.stdout).expect("stdout is JSON")
}

fn write_json(dir: &Path, name: &str, value: &Json) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, serde_json::to_vec_pretty(value).expect("json")).expect("write");
    path
}

/// The table `fmtstr dump --json` shows for a file (null when none).
fn dumped_table(path: &Path) -> Json {
    let out = json_out(run([Path::new("dump"), Path::new("--json"), path]).expect_code(0));
    assert_matches_schema("dump.schema.json", &out);
    out[0]["format_strings"].clone()
}

struct Oracles {
    readobj: PathBuf,
    readelf: PathBuf,
    objcopy: PathBuf,
}

/// That release's readers.
fn oracles(llvm: Llvm) -> Option<Oracles> {
    Some(Oracles {
        readobj: require_llvm(llvm, Tool::LlvmReadobj)?,
        readelf: require_llvm(llvm, Tool::LlvmReadelf)?,
        objcopy: require_llvm(llvm, Tool::LlvmObjcopy)?,
    })
}

/// The whole judgement of a file fmtstr wrote from `before`: LLVM reads `expected` as its
/// table, the rest of the document reads the same, every section but `.note` keeps its bytes,
/// and objcopy accepts the file.
fn judge(oracles: &Oracles, before: &Path, after: &Path, expected: &Json, dir: &Path) {
    assert_eq!(
        &llvm::table(&oracles.readobj, after),
        expected,
        "llvm-readobj's view of {}",
        after.display()
    );
    let old_doc = llvm::metadata(&oracles.readobj, before);
    let new_doc = llvm::metadata(&oracles.readobj, after).expect("the output has metadata");
    for key in ["amdpal.pipelines", "amdpal.version"] {
        assert_eq!(
            old_doc.as_ref().and_then(|d| d.get(key)),
            new_doc.get(key),
            "{key} changed in {}",
            after.display()
        );
    }
    let old_bytes = std::fs::read(before).expect("before");
    let new_bytes = std::fs::read(after).expect("after");
    let old_sections = llvm::sections(&oracles.readelf, before);
    let new_sections = llvm::sections(&oracles.readelf, after);
    for (index, (name, offset, size)) in old_sections.iter().enumerate() {
        let (new_name, new_offset, new_size) = &new_sections[index];
        assert_eq!(name, new_name);
        if name == ".note" || *size == 0 {
            continue;
        }
        let nobits = old_bytes.len() < (*offset + *size) as usize;
        if nobits {
            continue;
        }
        assert_eq!(size, new_size, "{name} changed size");
        assert!(
            old_bytes[*offset as usize..(*offset + *size) as usize]
                == new_bytes[*new_offset as usize..(*new_offset + *new_size) as usize],
            "{name} changed bytes in {}",
            after.display()
        );
    }
    llvm::objcopy_accepts(&oracles.objcopy, after, dir);
}

/// The JSON table of samples/pal/NAME.pal.json.
fn sample_table(name: &str) -> Json {
    let text = std::fs::read_to_string(sample(&format!("{name}.pal.json"))).expect("sample JSON");
    let document: Json = serde_json::from_str(&text).expect("JSON");
    document["amdpal.format_strings"].clone()
}

#[test]
fn dump_shows_ids_counts_masks_and_escaped_strings() {
    let out = run([
        Path::new("dump"),
        &sample("compute.elf"),
        &sample("no_strings.elf"),
    ])
    .expect_code(0);
    let text = out.stdout_text();
    assert!(text.contains("compute.elf: 4 format strings"), "{text}");
    assert!(
        text.contains("0x60281a928696  105725360768662     1  [0x0]         \"x=%d\\n\""),
        "{text}"
    );
    assert!(
        text.contains("[0x2]         \"thread %u: value %lld\\n\""),
        "{text}"
    );
    assert!(text.contains("no_strings.elf: PAL metadata without an amdpal.format_strings table"));
}

#[test]
fn dump_json_and_all_match_the_sources_and_schemas() {
    let names = [
        "compute",
        "graphics",
        "collision",
        "conflict",
        "no_strings",
        "suspicious",
    ];
    for name in names {
        let table = dumped_table(&sample(&format!("{name}.elf")));
        let expected = sample_table(name);
        assert_eq!(canonical(&table), canonical(&expected), "{name}");
        if !table.is_null() {
            assert_matches_schema("format-strings.schema.json", &table);
        }
        let all = json_out(
            run([
                Path::new("dump"),
                Path::new("--all"),
                &sample(&format!("{name}.elf")),
            ])
            .expect_code(0),
        );
        assert_matches_schema("dump.schema.json", &all);
        let document = &all[0]["document"];
        assert_eq!(document["amdpal.version"], json!([3, 0]), "{name}");
        assert!(
            document["amdpal.pipelines"][0][".hardware_stages"].is_object(),
            "{name}: {document}"
        );
    }
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn embed_is_read_back_by_llvm_and_changes_nothing_else() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        embed_is_read_back_by_llvm_and_changes_nothing_else_with(llvm);
    }
}

fn embed_is_read_back_by_llvm_and_changes_nothing_else_with(llvm: Llvm) {
    let Some(oracles) = oracles(llvm) else { return };
    let dir = scratch();
    let strings = json!({".version": 1, ".strings": [
        {".index": "0x123456789abc", ".string": "quote \" back \\ tab\t nl\n é ✓ %d", ".argument_count": 1,
         ".64bit_arguments": [0], ".user_data_offset": 5},
        {".index": 77, ".string": "123", ".argument_count": 0, ".64bit_arguments": []},
        {".index": 78, ".string": "", ".argument_count": 0, ".64bit_arguments": []},
        {".index": 105725360768662u64, ".string": "x=%d\n", ".argument_count": 1, ".64bit_arguments": [0]},
        {".index": 79, ".string": "%d ".repeat(70), ".argument_count": 70, ".64bit_arguments": [5, 64]}
    ]});
    let table_path = write_json(dir.path(), "strings.json", &strings);
    for name in [
        "compute.elf",
        "compute-linked.elf",
        "graphics.elf",
        "no_strings.elf",
    ] {
        let input = sample(name);
        let before = std::fs::read(&input).expect("input");
        let output = dir.path().join(format!("embedded-{name}"));
        run([
            Path::new("embed"),
            Path::new("--strings"),
            &table_path,
            &input,
            Path::new("-o"),
            &output,
        ])
        .expect_code(0);
        assert_eq!(
            std::fs::read(&input).expect("input"),
            before,
            "the input changed"
        );
        let written = dumped_table(&output);
        // Existing entries stay first; 105725360768662 is replaced in place, the rest appended.
        let ids: Vec<u64> = written[".strings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[".index"].as_u64().unwrap())
            .collect();
        assert!(
            ids.contains(&0x1234_5678_9abc) && ids.contains(&79),
            "{ids:?}"
        );
        let mut expected = written.clone();
        for entry in expected[".strings"].as_array_mut().unwrap() {
            if entry[".index"] == 0x1234_5678_9abcu64 {
                assert_eq!(entry[".user_data_offset"], 5);
            }
        }
        expected = canonical(&expected);
        assert_eq!(
            canonical(&llvm::table(&oracles.readobj, &output)),
            expected,
            "{name}"
        );
        judge(
            &oracles,
            &input,
            &output,
            &llvm::table(&oracles.readobj, &output),
            dir.path(),
        );
    }
}

#[test]
fn embed_round_trips_what_dump_prints() {
    let dir = scratch();
    let table = dumped_table(&sample("graphics.elf"));
    let table_path = write_json(dir.path(), "t.json", &table);
    let output = dir.path().join("out.elf");
    run([
        Path::new("embed"),
        Path::new("--strings"),
        &table_path,
        &sample("no_strings.elf"),
        Path::new("-o"),
        &output,
    ])
    .expect_code(0);
    assert_eq!(canonical(&dumped_table(&output)), canonical(&table));
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn merge_combines_tables_and_llvm_agrees() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        merge_combines_tables_and_llvm_agrees_with(llvm);
    }
}

fn merge_combines_tables_and_llvm_agrees_with(llvm: Llvm) {
    let Some(oracles) = oracles(llvm) else { return };
    let dir = scratch();
    let output = dir.path().join("merged.elf");
    for base in ["compute.elf", "compute-linked.elf"] {
        run([
            Path::new("merge"),
            &sample(base),
            &sample("graphics.elf"),
            &sample("no_strings.elf"),
            Path::new("-o"),
            &output,
        ])
        .expect_code(0);
        let merged = dumped_table(&output);
        let strings: Vec<&str> = merged[".strings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e[".string"].as_str().unwrap())
            .collect();
        assert_eq!(
            strings,
            [
                "x=%d\n",
                "thread %u: value %lld\n",
                "%f %f %f\n",
                "vec %v4hlf\n",
                "pixel (%d, %d) = %v4hlf\n",
                "frag depth %f\n"
            ]
        );
        judge(
            &oracles,
            &sample(base),
            &output,
            &llvm::table(&oracles.readobj, &output),
            dir.path(),
        );
        assert_eq!(
            canonical(&llvm::table(&oracles.readobj, &output)),
            canonical(&merged)
        );
    }
}

#[test]
fn merge_collisions_and_conflicts_write_nothing() {
    let dir = scratch();
    let output = dir.path().join("merged.elf");
    let out = run([
        Path::new("merge"),
        &sample("compute.elf"),
        &sample("collision.elf"),
        Path::new("-o"),
        &output,
    ])
    .expect_code(1);
    assert!(!output.exists());
    assert!(out.stderr.contains("collides"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("compute.elf .strings[0] has \"x=%d\\n\""),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("collision.elf .strings[0] has \"y=%d\\n\""),
        "{}",
        out.stderr
    );

    // keep-first keeps compute's string and warns.
    let out = run([
        Path::new("merge"),
        &sample("compute.elf"),
        &sample("collision.elf"),
        Path::new("--on-collision"),
        Path::new("keep-first"),
        Path::new("-o"),
        &output,
    ])
    .expect_code(0);
    assert!(out.stderr.contains("warning"), "{}", out.stderr);
    assert_eq!(dumped_table(&output)[".strings"][0][".string"], "x=%d\n");
    std::fs::remove_file(&output).expect("remove");

    // A conflict is an error whatever the policy.
    let out = run([
        Path::new("merge"),
        &sample("compute.elf"),
        &sample("conflict.elf"),
        Path::new("--on-collision"),
        Path::new("keep-first"),
        Path::new("-o"),
        &output,
    ])
    .expect_code(1);
    assert!(out.stderr.contains("conflicts"), "{}", out.stderr);
    assert!(!output.exists());
}

#[test]
fn an_input_changes_only_when_no_output_is_named() {
    let dir = scratch();
    let base = dir.path().join("base.elf");
    std::fs::copy(sample("compute.elf"), &base).expect("copy");
    let out = run([
        Path::new("merge"),
        &base,
        &sample("graphics.elf"),
        Path::new("-o"),
        &base,
    ])
    .expect_code(2);
    assert!(out.stderr.contains("--in-place"), "{}", out.stderr);
    assert_eq!(
        std::fs::read(&base).unwrap(),
        std::fs::read(sample("compute.elf")).unwrap()
    );
    run([
        Path::new("merge"),
        &base,
        &sample("graphics.elf"),
        Path::new("--in-place"),
    ])
    .expect_code(0);
    assert_eq!(dumped_table(&base)[".strings"].as_array().unwrap().len(), 6);
    // No temporary files are left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left.len(), 1, "{left:?}");
    // Neither -o nor --in-place: the input is replaced, as llvm-objcopy does.
    let before = std::fs::read(&base).expect("read");
    run([Path::new("merge"), &base, &sample("graphics.elf")]).expect_code(0);
    assert_eq!(
        std::fs::read(&base).expect("read"),
        before,
        "merging again adds nothing"
    );
    run([Path::new("merge"), &base, &sample("collision.elf")]).expect_code(1);
    assert_eq!(
        std::fs::read(&base).expect("read"),
        before,
        "a collision writes nothing"
    );
}

#[test]
fn audit_reports_every_kind_of_finding() {
    let out = run([
        Path::new("audit"),
        Path::new("--format"),
        Path::new("json"),
        &root().join("samples/pal"),
    ])
    .expect_code(1);
    let report = json_out(out);
    assert_matches_schema("audit.schema.json", &report);
    assert_eq!(report["files"], 8);
    assert_eq!(report["clean"], false);
    let kinds: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["kind"].as_str().unwrap())
        .collect();
    for kind in ["collision", "conflict", "arguments"] {
        assert!(kinds.contains(&kind), "{kind} missing from {kinds:?}");
    }
    let messages: Vec<&str> = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["message"].as_str().unwrap())
        .collect();
    let expect = |needle: &str| {
        assert!(
            messages.iter().any(|m| m.contains(needle)),
            "no finding says {needle:?}: {messages:#?}"
        )
    };
    expect("argument 1 ('%ld') is 64 bits but the 64-bit mask does not set its bit 0");
    expect("argument 1 ('%d') is 32 bits but the 64-bit mask sets its bit 0");
    expect(".argument_count is 1 but the format string takes 2 arguments");
    expect("does not parse");
    // The 70-argument entry and "%lld %d" are right and not reported.
    assert!(
        !messages.iter().any(|m| m.contains("%lld %d")),
        "{messages:#?}"
    );

    run([
        Path::new("audit"),
        &sample("compute.elf"),
        &sample("graphics.elf"),
    ])
    .expect_code(0);
    let out = run([
        Path::new("audit"),
        Path::new("--verify-ids"),
        Path::new("--format"),
        Path::new("github"),
        &sample("graphics.elf"),
    ])
    .expect_code(1);
    let text = out.stdout_text();
    assert!(text.starts_with("::error file="), "{text}");
    assert!(
        text.contains("graphics.elf,title=fmtstr audit%3A id::ID 0x000000001234"),
        "{text}"
    );
    run([
        Path::new("audit"),
        &root().join("samples/pal/does-not-exist.elf"),
    ])
    .expect_code(2);
}

/// Every format ends with the same summary line (JSON carries its text), singular for one.
#[test]
fn audit_summary_is_one_line_in_every_format() {
    let audit = |format: &str| {
        run([
            Path::new("audit"),
            Path::new("--verify-ids"),
            Path::new("--format"),
            Path::new(format),
            &sample("graphics.elf"),
        ])
        .expect_code(1)
    };
    let report = json_out(audit("json"));
    assert_matches_schema("audit.schema.json", &report);
    let summary = report["summary"].as_str().expect("a summary").to_owned();
    assert!(summary.starts_with("1 file, "), "{summary}");
    assert!(summary.ends_with(", 1 finding"), "{summary}");
    for format in ["text", "github"] {
        let text = audit(format).stdout_text();
        assert_eq!(
            text.lines().last(),
            Some(format!("fmtstr audit: {summary}").as_str()),
            "--format {format}:\n{text}"
        );
    }
}

/// An ELF64 file like llc's (header, `.text`, `.note` with the AMD ISA note and a metadata note
/// holding `document`, `.strtab`), built by hand so the msgpack can be anything.
fn elf_with_document(document: &[u8]) -> Vec<u8> {
    hand_built_elf(document, Width::Elf64)
}

/// The same file as ELF32 (AMDGPU code objects are ELF64; fmtstr reads both classes alike).
fn elf32_with_document(document: &[u8]) -> Vec<u8> {
    hand_built_elf(document, Width::Elf32)
}

#[derive(Clone, Copy, PartialEq)]
enum Width {
    Elf32,
    Elf64,
}

/// Where the hand-built file's header fields are: (header size, section header size, e_shoff,
/// e_shentsize, e_shnum, e_shstrndx, sh_offset, sh_size, sh_addralign).
fn places(width: Width) -> [usize; 9] {
    match width {
        Width::Elf32 => [52, 40, 32, 46, 48, 50, 16, 20, 32],
        Width::Elf64 => [64, 64, 40, 58, 60, 62, 24, 32, 48],
    }
}

fn put_word(out: &mut [u8], at: usize, width: Width, value: u64) {
    let len = if width == Width::Elf32 { 4 } else { 8 };
    out[at..at + len].copy_from_slice(&value.to_le_bytes()[..len]);
}

fn hand_built_elf(document: &[u8], width: Width) -> Vec<u8> {
    let [ehsize, shentsize, e_shoff, e_shentsize, e_shnum, e_shstrndx, sh_offset, sh_size, sh_addralign] =
        places(width);
    let mut notes = Vec::new();
    let mut note = |name: &[u8], n_type: u32, desc: &[u8]| {
        notes.extend_from_slice(&(name.len() as u32).to_le_bytes());
        notes.extend_from_slice(&(desc.len() as u32).to_le_bytes());
        notes.extend_from_slice(&n_type.to_le_bytes());
        notes.extend_from_slice(name);
        notes.resize(notes.len().div_ceil(4) * 4, 0);
        notes.extend_from_slice(desc);
        notes.resize(notes.len().div_ceil(4) * 4, 0);
    };
    note(b"AMD\0", 11, b"amdgcn-unknown-amdpal--gfx1100\0");
    note(b"AMDGPU\0", 32, document);
    let mut out = vec![0u8; ehsize];
    let class = if width == Width::Elf32 { 1 } else { 2 };
    out[..7].copy_from_slice(&[0x7f, b'E', b'L', b'F', class, 1, 1]);
    out[16..18].copy_from_slice(&1u16.to_le_bytes());
    out[18..20].copy_from_slice(&224u16.to_le_bytes());
    let text_at = out.len();
    out.extend_from_slice(&[0u8; 16]);
    let note_at = out.len();
    out.extend_from_slice(&notes);
    let names = b"\0.text\0.note\0.strtab\0";
    let strtab_at = out.len();
    out.extend_from_slice(names);
    out.resize(out.len().div_ceil(8) * 8, 0);
    let shoff = out.len();
    let headers: [(u32, u32, usize, usize, u64); 4] = [
        (0, 0, 0, 0, 0),
        (1, 1, text_at, 16, 4),
        (7, 7, note_at, notes.len(), 4),
        (13, 3, strtab_at, names.len(), 1),
    ];
    for (name, kind, offset, size, align) in headers {
        let at = out.len();
        out.resize(at + shentsize, 0);
        out[at..at + 4].copy_from_slice(&name.to_le_bytes());
        out[at + 4..at + 8].copy_from_slice(&kind.to_le_bytes());
        put_word(&mut out, at + sh_offset, width, offset as u64);
        put_word(&mut out, at + sh_size, width, size as u64);
        put_word(&mut out, at + sh_addralign, width, align);
    }
    put_word(&mut out, e_shoff, width, shoff as u64);
    out[e_shoff + if width == Width::Elf32 { 8 } else { 12 }..][..2]
        .copy_from_slice(&(ehsize as u16).to_le_bytes());
    out[e_shentsize..e_shentsize + 2].copy_from_slice(&(shentsize as u16).to_le_bytes());
    out[e_shnum..e_shnum + 2].copy_from_slice(&4u16.to_le_bytes());
    out[e_shstrndx..e_shstrndx + 2].copy_from_slice(&3u16.to_le_bytes());
    out
}

/// The file offset of the first note whose name is `name`.
fn note_at(elf: &[u8], name: &[u8]) -> usize {
    elf.windows(name.len())
        .position(|w| w == name)
        .expect("the note is there")
        - 12
}

/// A document `{amdpal.format_strings: {.version: V, .strings: [ENTRY]}}` with raw entry bytes.
fn document_with(version: u64, entry: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    msgpack::write_map_len(&mut out, 1);
    msgpack::write_str(&mut out, b"amdpal.format_strings");
    msgpack::write_map_len(&mut out, 2);
    msgpack::write_str(&mut out, b".version");
    msgpack::write_uint(&mut out, version);
    msgpack::write_str(&mut out, b".strings");
    msgpack::write_array_len(&mut out, 1);
    out.extend_from_slice(entry);
    out
}

/// An entry map with `.index` written by `index` and `.string` bytes `string`.
fn entry_with(index: impl Fn(&mut Vec<u8>), string: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    msgpack::write_map_len(&mut out, 4);
    msgpack::write_str(&mut out, b".index");
    index(&mut out);
    msgpack::write_str(&mut out, b".string");
    msgpack::write_str(&mut out, string);
    msgpack::write_str(&mut out, b".argument_count");
    msgpack::write_uint(&mut out, 0);
    msgpack::write_str(&mut out, b".64bit_arguments");
    msgpack::write_array_len(&mut out, 0);
    out
}

fn good_entry() -> Vec<u8> {
    entry_with(|out| msgpack::write_uint(out, 5), b"fine")
}

/// Every bad input of the issue, each with a phrase its message must contain.
fn bad_inputs() -> Vec<(&'static str, Vec<u8>, &'static str)> {
    let good = std::fs::read(sample("compute.elf")).expect("sample");
    let mut inputs = Vec::new();
    inputs.push(("truncated", good[..100].to_vec(), "truncated"));
    inputs.push(("empty", Vec::new(), "not an ELF file"));
    let mut magic = good.clone();
    magic[1] = b'X';
    inputs.push(("wrong magic", magic, "not an ELF file"));
    let mut big = good.clone();
    big[5] = 2;
    inputs.push(("big-endian", big, "big-endian"));
    // The metadata note's descriptor size claims far more than the section holds.
    let mut past = elf_with_document(&document_with(1, &good_entry()));
    let at = past
        .windows(8)
        .position(|w| w == b"AMDGPU\0\0")
        .expect("note")
        - 12;
    past[at + 4..at + 8].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    inputs.push((
        "note size past the end",
        past,
        "runs past the section's end",
    ));
    // The same in ELF32, and the name size instead of the descriptor's.
    let mut past32 = elf32_with_document(&document_with(1, &good_entry()));
    let at = note_at(&past32, b"AMDGPU\0\0");
    past32[at + 4..at + 8].copy_from_slice(&0x7fff_0000u32.to_le_bytes());
    inputs.push((
        "ELF32 note size past the end",
        past32,
        "runs past the section's end",
    ));
    let mut name_past = elf_with_document(&document_with(1, &good_entry()));
    let at = note_at(&name_past, b"AMD\0");
    name_past[at..at + 4].copy_from_slice(&0x1000u32.to_le_bytes());
    inputs.push((
        "note name size past the end",
        name_past,
        &*format!("the note at offset {at:#x} in section [2] .note (name size 4096").leak(),
    ));
    // Section header tables that do not fit the file, in both classes.
    for (width, file) in [
        (Width::Elf64, good.clone()),
        (
            Width::Elf32,
            elf32_with_document(&document_with(1, &good_entry())),
        ),
    ] {
        let [_, shentsize, e_shoff, e_shentsize, e_shnum, ..] = places(width);
        let mut many = file.clone();
        many[e_shnum..e_shnum + 2].copy_from_slice(&0x7fffu16.to_le_bytes());
        let shoff = if width == Width::Elf32 {
            u64::from(u32::from_le_bytes(
                file[e_shoff..e_shoff + 4].try_into().unwrap(),
            ))
        } else {
            u64::from_le_bytes(file[e_shoff..e_shoff + 8].try_into().unwrap())
        };
        inputs.push((
            "section header table past the end",
            many,
            format!("32767 section headers of {shentsize} bytes at {shoff:#x}").leak(),
        ));
        let cut = file[..shoff as usize + shentsize + 7].to_vec();
        inputs.push(("section header table cut short", cut, "is truncated"));
        let mut entsize = file.clone();
        entsize[e_shentsize..e_shentsize + 2].copy_from_slice(&24u16.to_le_bytes());
        inputs.push((
            "e_shentsize",
            entsize,
            format!("at offset {e_shentsize:#x}: e_shentsize is 24").leak(),
        ));
    }
    // A section whose bytes lie past the end of the file.
    let mut section_past = elf_with_document(&document_with(1, &good_entry()));
    let shoff = u64::from_le_bytes(section_past[40..48].try_into().unwrap()) as usize;
    let text_offset = shoff + 64 + 24;
    section_past[text_offset..text_offset + 8].copy_from_slice(&0xfff0u64.to_le_bytes());
    inputs.push((
        "section past the end",
        section_past,
        "section [1] at offset 0xfff0 with size 0x10 runs past the end of the file",
    ));
    // A note section that ends in 4 bytes that are no note (it claims .strtab's first ones).
    let mut tail = elf_with_document(&document_with(1, &good_entry()));
    let note_size = shoff + 2 * 64 + 32;
    let size = u64::from_le_bytes(tail[note_size..note_size + 8].try_into().unwrap());
    tail[note_size..note_size + 8].copy_from_slice(&(size + 4).to_le_bytes());
    inputs.push((
        "a tail that is not a note",
        tail,
        "ends with 4 bytes that are not a whole note",
    ));
    let whole = document_with(1, &good_entry());
    inputs.push((
        "msgpack truncated",
        elf_with_document(&whole[..whole.len() - 3]),
        "ends inside",
    ));
    inputs.push((
        ".index as a string",
        elf_with_document(&document_with(
            1,
            &entry_with(|out| msgpack::write_str(out, b"5"), b"x"),
        )),
        "strings[0].index is a string",
    ));
    let mut huge = Vec::new();
    msgpack::write_map_len(&mut huge, 1);
    msgpack::write_str(&mut huge, b"amdpal.pipelines");
    huge.extend_from_slice(&[0xdd, 0xff, 0xff, 0xff, 0xf0, 0xc0]);
    inputs.push((
        "huge array length",
        elf_with_document(&huge),
        "claims 4294967280 elements",
    ));
    let mut deep = Vec::new();
    msgpack::write_map_len(&mut deep, 1);
    msgpack::write_str(&mut deep, b"amdpal.pipelines");
    deep.extend(std::iter::repeat_n(0x91u8, 10_000));
    deep.push(0xc0);
    inputs.push((
        "10,000-deep nesting",
        elf_with_document(&deep),
        "nest deeper than 64",
    ));
    let mut duplicate = Vec::new();
    msgpack::write_map_len(&mut duplicate, 3);
    msgpack::write_str(&mut duplicate, b".index");
    msgpack::write_uint(&mut duplicate, 5);
    msgpack::write_str(&mut duplicate, b".index");
    msgpack::write_uint(&mut duplicate, 6);
    msgpack::write_str(&mut duplicate, b".string");
    msgpack::write_str(&mut duplicate, b"x");
    inputs.push((
        "duplicate keys",
        elf_with_document(&document_with(1, &duplicate)),
        "`.index` twice",
    ));
    inputs.push((
        "string not UTF-8",
        elf_with_document(&document_with(
            1,
            &entry_with(|out| msgpack::write_uint(out, 5), b"ab\xff"),
        )),
        "is not UTF-8",
    ));
    inputs.push((
        ".version 2",
        elf_with_document(&document_with(2, &good_entry())),
        "version 2",
    ));
    inputs
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn the_hand_built_elf_is_good_before_it_is_broken() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        the_hand_built_elf_is_good_before_it_is_broken_with(llvm);
    }
}

fn the_hand_built_elf_is_good_before_it_is_broken_with(llvm: Llvm) {
    let dir = scratch();
    let path = dir.path().join("good.elf");
    std::fs::write(&path, elf_with_document(&document_with(1, &good_entry()))).expect("write");
    assert_eq!(dumped_table(&path)[".strings"][0][".string"], "fine");
    if let Some(oracles) = oracles(llvm) {
        assert_eq!(
            llvm::table(&oracles.readobj, &path)[".strings"][0][".string"],
            "fine"
        );
    }
}

/// ELF32 files read and rewrite like ELF64 ones: dump, embed (the note grows and the sections
/// after it move) and dump again.
#[test]
fn an_elf32_file_reads_and_rewrites() {
    let dir = scratch();
    let path = dir.path().join("elf32.elf");
    std::fs::write(&path, elf32_with_document(&document_with(1, &good_entry()))).expect("write");
    assert_eq!(dumped_table(&path)[".strings"][0][".string"], "fine");
    let strings = write_json(
        dir.path(),
        "strings.json",
        &json!({".version": 1, ".strings": [
            {".index": 5, ".string": "fine", ".argument_count": 0, ".64bit_arguments": []},
            {".index": 9, ".string": "a longer string than the note had room for: %d\n",
             ".argument_count": 1, ".64bit_arguments": [0]}
        ]}),
    );
    let out = dir.path().join("out.elf");
    run([
        Path::new("embed"),
        Path::new("--strings"),
        &strings,
        &path,
        Path::new("-o"),
        &out,
    ])
    .expect_code(0);
    let written = std::fs::read(&out).expect("written");
    assert_eq!(written[4], 1, "still ELF32");
    let table = dumped_table(&out);
    assert_eq!(table[".strings"][1][".index"], 9);
    assert_eq!(
        table[".strings"][1][".string"],
        "a longer string than the note had room for: %d\n"
    );
}

#[test]
fn bad_inputs_fail_cleanly_and_touch_nothing() {
    let dir = scratch();
    let strings = write_json(
        dir.path(),
        "strings.json",
        &json!({".version": 1, ".strings": [{".index": 9, ".string": "s", ".argument_count": 0, ".64bit_arguments": []}]}),
    );
    for (what, bytes, phrase) in bad_inputs() {
        let bad = dir.path().join("bad.elf");
        std::fs::write(&bad, &bytes).expect("write");
        let out_path = dir.path().join("out.elf");
        let graphics = sample("graphics.elf");
        let runs: Vec<Vec<&Path>> = vec![
            vec![Path::new("dump"), &bad],
            vec![
                Path::new("embed"),
                Path::new("--strings"),
                &strings,
                &bad,
                Path::new("-o"),
                &out_path,
            ],
            vec![
                Path::new("merge"),
                &bad,
                graphics.as_path(),
                Path::new("-o"),
                &out_path,
            ],
        ];
        let as_input = vec![
            Path::new("merge"),
            graphics.as_path(),
            &bad,
            Path::new("-o"),
            &out_path,
        ];
        for args in runs.iter().chain(std::iter::once(&as_input)) {
            let out = run(args).expect_code(2);
            let lines: Vec<&str> = out.stderr.lines().collect();
            assert_eq!(
                lines.len(),
                1,
                "{what}: {args:?}: one message expected:\n{}",
                out.stderr
            );
            assert!(
                lines[0].starts_with("fmtstr: error: "),
                "{what}: {}",
                lines[0]
            );
            assert!(
                lines[0].contains("bad.elf"),
                "{what}: the message names the file: {}",
                lines[0]
            );
            assert!(
                lines[0].contains(phrase),
                "{what}: expected {phrase:?} in: {}",
                lines[0]
            );
            assert!(!out_path.exists(), "{what}: an output file was written");
            assert_eq!(
                std::fs::read(&bad).expect("bad"),
                bytes,
                "{what}: the input changed"
            );
        }
        // embed --in-place leaves the file as it was.
        run([
            Path::new("embed"),
            Path::new("--strings"),
            &strings,
            &bad,
            Path::new("--in-place"),
        ])
        .expect_code(2);
        assert_eq!(
            std::fs::read(&bad).expect("bad"),
            bytes,
            "{what}: --in-place changed the input"
        );
        // audit reports the file as malformed (a finding, exit 1).
        let report = json_out(
            run([
                Path::new("audit"),
                Path::new("--format"),
                Path::new("json"),
                &bad,
            ])
            .expect_code(1),
        );
        assert_eq!(report["findings"][0]["kind"], "malformed", "{what}");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(left.len(), 2, "{what}: stray files {left:?}");
    }
}

/// A table as today's LLPC writes it (samples/pal/llpc.elf: NUL-terminated strings,
/// .user_data_offset, a shader-abort entry between two printf entries) is readable end to end:
/// dump lists the abort entry, embed and merge keep it where it stood (llvm-readobj agrees),
/// merge refuses tables whose .user_data_offset differ, and audit names what it skips.
/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn llpc_tables_with_abort_entries_and_user_data_offsets_survive_every_command() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        llpc_tables_with_abort_entries_and_user_data_offsets_survive_every_command_with(llvm);
    }
}

fn llpc_tables_with_abort_entries_and_user_data_offsets_survive_every_command_with(llvm: Llvm) {
    let llpc = sample("llpc.elf");
    let text = run([Path::new("dump"), &llpc]).expect_code(0).stdout_text();
    assert!(text.contains("llpc.elf: 2 format strings"), "{text}");
    assert!(text.contains(".user_data_offset: 0 (dwords)"), "{text}");
    assert!(
        text.contains("1 shader-abort message entry (no format string):\n  0x5859a689df77   97142069387127  words 2  constant [0x1]  constants [0x74736574]"),
        "{text}"
    );
    let expected = sample_table("llpc");
    let table = dumped_table(&llpc);
    assert_matches_schema("format-strings.schema.json", &table);
    assert_eq!(canonical(&table), canonical(&expected));
    assert_eq!(table[".user_data_offset"], 0);

    let Some(oracles) = oracles(llvm) else {
        return;
    };
    assert_eq!(
        canonical(&llvm::table(&oracles.readobj, &llpc)),
        canonical(&expected)
    );
    let dir = scratch();
    // embed: a new printf entry; the abort entry stays second, byte for byte.
    let added = write_json(
        dir.path(),
        "added.json",
        &json!({".version": 1, ".strings": [
            {".index": 7, ".string": "new %u\n", ".argument_count": 1, ".64bit_arguments": [0]}]}),
    );
    let embedded = dir.path().join("embedded.elf");
    run([
        Path::new("embed"),
        Path::new("--strings"),
        &added,
        &llpc,
        Path::new("-o"),
        &embedded,
    ])
    .expect_code(0);
    let read_back = llvm::table(&oracles.readobj, &embedded);
    let strings = read_back[".strings"].as_array().expect("strings");
    assert_eq!(strings.len(), 4, "{read_back}");
    assert_eq!(strings[1][".is_abort_message"], 1, "{read_back}");
    assert_eq!(strings[3][".string"], "new %u\n", "{read_back}");
    assert_eq!(read_back[".user_data_offset"], 0, "{read_back}");

    // merge: compute.elf has no .user_data_offset, so the merged table takes 0; the abort
    // entry is kept once.
    let merged = dir.path().join("merged.elf");
    run([
        Path::new("merge"),
        &llpc,
        &sample("compute.elf"),
        &embedded,
        Path::new("-o"),
        &merged,
    ])
    .expect_code(0);
    let read_back = llvm::table(&oracles.readobj, &merged);
    let aborts = read_back[".strings"]
        .as_array()
        .expect("strings")
        .iter()
        .filter(|entry| entry.get(".is_abort_message").is_some())
        .count();
    assert_eq!(aborts, 1, "{read_back}");
    assert_eq!(read_back[".user_data_offset"], 0, "{read_back}");
    judge_sections_only(&oracles, &llpc, &merged, dir.path());

    // Another .user_data_offset: a conflict naming both files, nothing written.
    let moved = write_json(
        dir.path(),
        "moved.json",
        &json!({".version": 1, ".strings": [], ".user_data_offset": 4}),
    );
    let elsewhere = dir.path().join("elsewhere.elf");
    run([
        Path::new("embed"),
        Path::new("--strings"),
        &moved,
        &llpc,
        Path::new("-o"),
        &elsewhere,
    ])
    .expect_code(0);
    let refused = dir.path().join("refused.elf");
    let out = run([
        Path::new("merge"),
        &llpc,
        &elsewhere,
        Path::new("-o"),
        &refused,
    ])
    .expect_code(1);
    assert!(
        out.stderr.contains(".user_data_offset conflicts:")
            && out.stderr.contains("llpc.elf has 0")
            && out.stderr.contains("elsewhere.elf has 4"),
        "{}",
        out.stderr
    );
    assert!(!refused.exists());

    // audit: nothing wrong, and it says what it did not check.
    let out = run([Path::new("audit"), &llpc]).expect_code(0);
    assert!(
        out.stdout_text()
            .contains("1 shader-abort entry not checked against a format string"),
        "{}",
        out.stdout_text()
    );
    let report: Json = serde_json::from_slice(
        &run([
            Path::new("audit"),
            Path::new("--format"),
            Path::new("json"),
            &llpc,
        ])
        .expect_code(0)
        .stdout,
    )
    .expect("JSON");
    assert_matches_schema("audit.schema.json", &report);
    assert_eq!(report["abort_entries"], 1);

    // The argument count stops at the first NUL, as printf does: "lane %u" takes one.
    let hidden = write_json(
        dir.path(),
        "hidden.json",
        &json!({".version": 1, ".strings": [{".index": 5, ".string": "lane %u\u{0} hidden %ld\n\u{0}",
            ".argument_count": 1, ".64bit_arguments": [0]}]}),
    );
    let with_hidden = dir.path().join("hidden.elf");
    run([
        Path::new("embed"),
        Path::new("--strings"),
        &hidden,
        &llpc,
        Path::new("-o"),
        &with_hidden,
    ])
    .expect_code(0);
    run([Path::new("audit"), &with_hidden]).expect_code(0);
}

/// Every section but `.note` keeps its bytes, and objcopy accepts the file.
fn judge_sections_only(oracles: &Oracles, before: &Path, after: &Path, dir: &Path) {
    let old_bytes = std::fs::read(before).expect("before");
    let new_bytes = std::fs::read(after).expect("after");
    let old_sections = llvm::sections(&oracles.readelf, before);
    let new_sections = llvm::sections(&oracles.readelf, after);
    for ((name, offset, size), (_, new_offset, new_size)) in old_sections.iter().zip(&new_sections)
    {
        if name == ".note" || *size == 0 || old_bytes.len() < (*offset + *size) as usize {
            continue;
        }
        assert!(
            old_bytes[*offset as usize..(*offset + *size) as usize]
                == new_bytes[*new_offset as usize..(*new_offset + *new_size) as usize],
            "{name} changed bytes in {}",
            after.display()
        );
    }
    llvm::objcopy_accepts(&oracles.objcopy, after, dir);
}
