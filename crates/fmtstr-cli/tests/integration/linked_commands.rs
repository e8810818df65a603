//! The post-link step on what real linkers write: PAL objects from llc, linked with
//! `ld.lld -r` and `-shared` (which keep one NT_AMDGPU_METADATA note per input), then
//! `fmtstr dump`, `audit` and `merge LINKED --in-place`. LLVM's readers judge the result: after
//! the fold `llvm-readobj --notes` shows one note with the union table and the first note's
//! other keys, `llvm-readelf -S` shows every other section with its bytes, and `llvm-objcopy`
//! copies the file. Every test runs under LLVM 19 (llc-19, ld.lld-19 and its readers) and under
//! LLVM 22 (llc-22, ld.lld-22 and its readers).

use std::path::{Path, PathBuf};
use std::process::Command;

use fmtstr_meta::{msgpack, FormatId};
use fmtstr_oracles::{require_llvm, Llvm, Tool};
use serde_json::{json, Value as Json};

use crate::llvm::{self, canonical};
use crate::util::{assert_matches_schema, run, Run};

struct Tools {
    llc: PathBuf,
    lld: PathBuf,
    readobj: PathBuf,
    readelf: PathBuf,
    objcopy: PathBuf,
}

/// That release's llc, ld.lld and readers.
fn tools(llvm: Llvm) -> Option<Tools> {
    Some(Tools {
        llc: require_llvm(llvm, Tool::Llc)?,
        lld: require_llvm(llvm, Tool::Lld)?,
        readobj: require_llvm(llvm, Tool::LlvmReadobj)?,
        readelf: require_llvm(llvm, Tool::LlvmReadelf)?,
        objcopy: require_llvm(llvm, Tool::LlvmObjcopy)?,
    })
}

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-linked-test-")
        .tempdir()
        .expect("temp dir")
}

/// One format-string entry of a test object: its string, argument count and mask word.
#[derive(Clone, Copy)]
struct Spec {
    id: u64,
    string: &'static str,
    argc: u64,
    mask: u64,
}

fn entry(string: &'static str, argc: u64, mask: u64) -> Spec {
    Spec {
        id: FormatId::of(string.as_bytes()).get(),
        string,
        argc,
        mask,
    }
}

fn entry_json(spec: &Spec) -> Json {
    json!({
        ".index": spec.id,
        ".string": spec.string,
        ".argument_count": spec.argc,
        ".64bit_arguments": [spec.mask],
    })
}

/// The bytes as the body of an LLVM metadata string literal.
fn ll_string(bytes: &[u8]) -> String {
    bytes
        .iter()
        .map(|&b| {
            if (0x20..0x7f).contains(&b) && b != b'"' && b != b'\\' {
                (b as char).to_string()
            } else {
                format!("\\{b:02X}")
            }
        })
        .collect()
}

/// A PAL object made by llc: a compute shader entry point named `function` when `shader`,
/// else a plain function (a printf-using helper library), with `entries` as its table.
fn pal_object(
    tools: &Tools,
    dir: &Path,
    function: &str,
    shader: bool,
    entries: &[Spec],
) -> PathBuf {
    let document = json!({
        "amdpal.version": [3, 0],
        "amdpal.format_strings": {
            ".version": 1,
            ".strings": entries.iter().map(entry_json).collect::<Vec<_>>(),
        }
    });
    let value = fmtstr_meta::json::from_json(&document).expect("a msgpack document");
    let mut bytes = Vec::new();
    msgpack::write_value(&mut bytes, &value);
    let body = if shader {
        format!(
            "define amdgpu_cs void @{function}(<4 x i32> inreg %desc, i32 %x) {{\n  ret void\n}}\n"
        )
    } else {
        format!("define void @{function}(i32 %x) {{\n  ret void\n}}\n")
    };
    let ll = format!(
        "{body}\n!amdgpu.pal.metadata.msgpack = !{{!0}}\n!0 = !{{!\"{}\"}}\n",
        ll_string(&bytes)
    );
    let source = dir.join(format!("{function}.ll"));
    std::fs::write(&source, ll).expect("write .ll");
    let object = dir.join(format!("{function}.o"));
    let output = Command::new(&tools.llc)
        .args(["-mtriple=amdgcn--amdpal", "-mcpu=gfx1100", "-filetype=obj"])
        .arg(&source)
        .arg("-o")
        .arg(&object)
        .output()
        .expect("llc runs");
    assert!(
        output.status.success(),
        "llc: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    object
}

fn link(tools: &Tools, mode: &str, inputs: &[&Path], out: &Path) {
    let output = Command::new(&tools.lld)
        .arg(mode)
        .args(inputs)
        .arg("-o")
        .arg(out)
        .output()
        .expect("ld.lld runs");
    assert!(
        output.status.success(),
        "ld.lld {mode}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
}

fn json_out(run: Run) -> Json {
    serde_json::from_slice(&run.stdout).expect("stdout is JSON")
}

/// The document without its table, as JSON (for comparing the other keys).
fn without_table(document: &serde_yaml::Value) -> Json {
    let mut json = serde_json::to_value(document).expect("string keys");
    if let Some(map) = json.as_object_mut() {
        map.remove("amdpal.format_strings");
    }
    json
}

fn without_table_json(document: &Json) -> Json {
    let mut document = document.clone();
    if let Some(map) = document.as_object_mut() {
        map.remove("amdpal.format_strings");
    }
    document
}

fn table_of(document: &serde_yaml::Value) -> Json {
    document
        .get("amdpal.format_strings")
        .map_or(Json::Null, |t| {
            serde_json::to_value(t).expect("string keys")
        })
}

/// Every section other than `.note` has the same bytes before and after.
fn other_sections_unchanged(tools: &Tools, before: &Path, after: &Path) {
    let old_bytes = std::fs::read(before).expect("before");
    let new_bytes = std::fs::read(after).expect("after");
    let old_sections = llvm::sections(&tools.readelf, before);
    let new_sections = llvm::sections(&tools.readelf, after);
    let nobits = nobits_sections(tools, before);
    assert_eq!(old_sections.len(), new_sections.len());
    for ((name, offset, size), (new_name, new_offset, new_size)) in
        old_sections.iter().zip(&new_sections)
    {
        assert_eq!(name, new_name);
        if name == ".note" || *size == 0 || nobits.contains(name) {
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
}

/// The names of the sections `llvm-readelf -S` lists as NOBITS (they have no file bytes).
fn nobits_sections(tools: &Tools, file: &Path) -> Vec<String> {
    let output = Command::new(&tools.readelf)
        .args(["-S", "--wide"])
        .arg(file)
        .output()
        .expect("llvm-readelf runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| {
            let (_, rest) = line.split_once(']')?;
            let fields: Vec<&str> = rest.split_whitespace().collect();
            (fields.get(1) == Some(&"NOBITS")).then(|| fields[0].to_owned())
        })
        .collect()
}

/// The union of the inputs' tables in order, each ID once (what the fold must give).
fn union(inputs: &[&[Spec]]) -> Json {
    let mut seen = std::collections::HashSet::new();
    let strings: Vec<Json> = inputs
        .iter()
        .flat_map(|specs| specs.iter())
        .filter(|spec| seen.insert(spec.id))
        .map(entry_json)
        .collect();
    json!({".version": 1, ".strings": strings})
}

/// An AMD printf buffer (the protocol of `fmtstr_decode`) holding one entry: `format`'s ID and one
/// 32-bit argument.
fn one_entry_buffer(format: &str, value: i32) -> Vec<u8> {
    let id = FormatId::of(format.as_bytes()).get();
    let mut bytes = 3u64.to_le_bytes().to_vec();
    bytes.extend_from_slice(&[0; 8]);
    bytes.extend_from_slice(&(3 | id << 16).to_le_bytes());
    bytes.extend_from_slice(&value.to_le_bytes());
    bytes
}

fn lib_a() -> Vec<Spec> {
    vec![entry("x=%d\n", 1, 0), entry("shared %u\n", 1, 0)]
}

fn lib_b() -> Vec<Spec> {
    vec![entry("y=%f\n", 1, 0), entry("shared %u\n", 1, 0)]
}

fn lib_c() -> Vec<Spec> {
    vec![entry("z=%lld and %d\n", 2, 1)]
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn two_and_three_object_links_fold_to_one_note_with_the_union_table() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        two_and_three_object_links_fold_to_one_note_with_the_union_table_with(llvm);
    }
}

fn two_and_three_object_links_fold_to_one_note_with_the_union_table_with(llvm: Llvm) {
    let Some(tools) = tools(llvm) else { return };
    let dir = scratch();
    let tables = [lib_a(), lib_b(), lib_c()];
    let objects: Vec<PathBuf> = ["helper_a", "helper_b", "helper_c"]
        .iter()
        .zip(&tables)
        .map(|(name, specs)| pal_object(&tools, dir.path(), name, false, specs))
        .collect();
    for mode in ["-r", "-shared"] {
        for count in [2, 3] {
            let inputs: Vec<&Path> = objects[..count].iter().map(PathBuf::as_path).collect();
            let linked = dir.path().join(format!("linked{mode}{count}.o"));
            link(&tools, mode, &inputs, &linked);
            let notes = llvm::metadata_notes(&tools.readobj, &linked);
            assert_eq!(notes.len(), count, "ld.lld {mode} keeps one note per input");

            // dump: one object per note, labelled by offset, each as LLVM reads that note.
            let dumped =
                json_out(run([Path::new("dump"), Path::new("--json"), &linked]).expect_code(0));
            assert_matches_schema("dump.schema.json", &dumped);
            let dumped = dumped.as_array().expect("array");
            assert_eq!(dumped.len(), count);
            for (object, note) in dumped.iter().zip(&notes) {
                assert!(object["note"].as_u64().is_some(), "{object}");
                assert_eq!(
                    canonical(&object["format_strings"]),
                    canonical(&table_of(note))
                );
            }
            let all =
                json_out(run([Path::new("dump"), Path::new("--all"), &linked]).expect_code(0));
            assert_matches_schema("dump.schema.json", &all);
            let documents: Vec<Json> = all
                .as_array()
                .expect("array")
                .iter()
                .map(|object| {
                    assert!(object["note"].as_u64().is_some(), "{object}");
                    without_table_json(&object["document"])
                })
                .collect();
            let llvm_documents: Vec<Json> = notes.iter().map(without_table).collect();
            assert_eq!(documents, llvm_documents);
            let text = run([Path::new("dump"), &linked])
                .expect_code(0)
                .stdout_text();
            assert_eq!(text.matches("(note at 0x").count(), count, "{text}");

            // audit: the unfolded file is a finding of its own kind, not malformed.
            let report = json_out(
                run([
                    Path::new("audit"),
                    Path::new("--format"),
                    Path::new("json"),
                    &linked,
                ])
                .expect_code(1),
            );
            assert_matches_schema("audit.schema.json", &report);
            let kinds: Vec<&str> = report["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["kind"].as_str().unwrap())
                .collect();
            assert_eq!(kinds, ["unfolded"], "{report}");

            // decode reads every note's table of an unfolded file (and of the folded one).
            let buffer = dir.path().join("printf.bin");
            std::fs::write(&buffer, one_entry_buffer("x=%d\n", 42)).expect("buffer");
            let decoded = run([
                Path::new("decode"),
                Path::new("--strict"),
                &buffer,
                Path::new("--elf"),
                &linked,
            ])
            .expect_code(0);
            assert_eq!(decoded.stdout_text(), "x=42\n");

            // The fold, in place.
            let before = dir.path().join("before.o");
            std::fs::copy(&linked, &before).expect("copy");
            run([Path::new("merge"), &linked, Path::new("--in-place")]).expect_code(0);
            let folded = llvm::metadata_notes(&tools.readobj, &linked);
            assert_eq!(folded.len(), 1, "one note after the fold");
            let specs: Vec<&[Spec]> = tables[..count].iter().map(Vec::as_slice).collect();
            assert_eq!(canonical(&table_of(&folded[0])), canonical(&union(&specs)));
            assert_eq!(without_table(&folded[0]), without_table(&notes[0]));
            other_sections_unchanged(&tools, &before, &linked);
            llvm::objcopy_accepts(&tools.objcopy, &linked, dir.path());
            run([Path::new("audit"), &linked]).expect_code(0);
            let decoded = run([
                Path::new("decode"),
                Path::new("--strict"),
                &buffer,
                Path::new("--elf"),
                &linked,
            ])
            .expect_code(0);
            assert_eq!(decoded.stdout_text(), "x=42\n");
            // Folding a folded file changes nothing.
            let once = std::fs::read(&linked).expect("folded");
            run([Path::new("merge"), &linked, Path::new("--in-place")]).expect_code(0);
            assert!(std::fs::read(&linked).expect("again") == once);
        }
    }
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn a_shader_linked_with_helper_libraries_keeps_its_pipeline() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        a_shader_linked_with_helper_libraries_keeps_its_pipeline_with(llvm);
    }
}

fn a_shader_linked_with_helper_libraries_keeps_its_pipeline_with(llvm: Llvm) {
    let Some(tools) = tools(llvm) else { return };
    let dir = scratch();
    let shader_table = vec![entry("main says %d\n", 1, 0)];
    let shader = pal_object(&tools, dir.path(), "main", true, &shader_table);
    let helper = pal_object(&tools, dir.path(), "helper_a", false, &lib_a());
    let linked = dir.path().join("pipeline.elf");
    link(&tools, "-shared", &[&shader, &helper], &linked);
    let notes = llvm::metadata_notes(&tools.readobj, &linked);
    assert!(notes[0].get("amdpal.pipelines").is_some());
    let out = dir.path().join("folded.elf");
    run([Path::new("merge"), &linked, Path::new("-o"), &out]).expect_code(0);
    let folded = llvm::metadata_notes(&tools.readobj, &out);
    assert_eq!(folded.len(), 1);
    assert_eq!(without_table(&folded[0]), without_table(&notes[0]));
    assert_eq!(
        canonical(&table_of(&folded[0])),
        canonical(&union(&[&shader_table, &lib_a()]))
    );
    other_sections_unchanged(&tools, &linked, &out);
    llvm::objcopy_accepts(&tools.objcopy, &out, dir.path());

    // merge LINKED INPUT: the notes fold and the input's table joins.
    let extra = pal_object(&tools, dir.path(), "helper_c", false, &lib_c());
    run([Path::new("merge"), &linked, &extra, Path::new("-o"), &out]).expect_code(0);
    let folded = llvm::metadata_notes(&tools.readobj, &out);
    assert_eq!(folded.len(), 1);
    assert_eq!(
        canonical(&table_of(&folded[0])),
        canonical(&union(&[&shader_table, &lib_a(), &lib_c()]))
    );
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn notes_that_disagree_on_a_key_are_refused_unless_the_base_is_kept() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        notes_that_disagree_on_a_key_are_refused_unless_the_base_is_kept_with(llvm);
    }
}

fn notes_that_disagree_on_a_key_are_refused_unless_the_base_is_kept_with(llvm: Llvm) {
    let Some(tools) = tools(llvm) else { return };
    let dir = scratch();
    let first = pal_object(&tools, dir.path(), "first", true, &lib_a());
    let second = pal_object(&tools, dir.path(), "second", true, &lib_b());
    let linked = dir.path().join("two-shaders.o");
    link(&tools, "-r", &[&first, &second], &linked);
    let before = std::fs::read(&linked).expect("linked");
    let refused = run([Path::new("merge"), &linked, Path::new("--in-place")]).expect_code(2);
    assert!(
        refused.stderr.contains("`amdpal.pipelines`")
            && refused.stderr.matches("at 0x").count() >= 2
            && refused.stderr.contains("--on-key-difference keep-base"),
        "{}",
        refused.stderr
    );
    assert!(std::fs::read(&linked).expect("unchanged") == before);

    let notes = llvm::metadata_notes(&tools.readobj, &linked);
    let kept = run([
        Path::new("merge"),
        &linked,
        Path::new("--in-place"),
        Path::new("--on-key-difference"),
        Path::new("keep-base"),
    ])
    .expect_code(0);
    assert!(kept.stderr.contains("warning"), "{}", kept.stderr);
    let folded = llvm::metadata_notes(&tools.readobj, &linked);
    assert_eq!(folded.len(), 1);
    assert_eq!(without_table(&folded[0]), without_table(&notes[0]));
    // The base note is the first shader's: its compute stage names the function `first`.
    // llc-19 writes the function's name as the stage's `.entry_point`; llc-22 writes the
    // stage's fixed name there (`_amdgpu_cs_main`) and the function's as `.entry_point_symbol`.
    let cs = &folded[0]["amdpal.pipelines"][0][".hardware_stages"][".cs"];
    let (key, expected) = match llvm {
        Llvm::V19 => (".entry_point", "first"),
        Llvm::V22 => (".entry_point_symbol", "first"),
    };
    assert_eq!(cs[key].as_str(), Some(expected), "{llvm}: {cs:?}");
    if llvm == Llvm::V22 {
        assert_eq!(cs[".entry_point"].as_str(), Some("_amdgpu_cs_main"));
    }
    llvm::objcopy_accepts(&tools.objcopy, &linked, dir.path());
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn a_collision_between_linked_objects_names_both_notes_and_writes_nothing() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        a_collision_between_linked_objects_names_both_notes_and_writes_nothing_with(llvm);
    }
}

fn a_collision_between_linked_objects_names_both_notes_and_writes_nothing_with(llvm: Llvm) {
    let Some(tools) = tools(llvm) else { return };
    let dir = scratch();
    let a = pal_object(&tools, dir.path(), "helper_a", false, &lib_a());
    let mut impostor = entry("not x at all %d\n", 1, 0);
    impostor.id = FormatId::of(b"x=%d\n").get();
    let d = pal_object(&tools, dir.path(), "helper_d", false, &[impostor]);
    let linked = dir.path().join("collide.o");
    link(&tools, "-shared", &[&a, &d], &linked);
    let before = std::fs::read(&linked).expect("linked");

    let refused = run([Path::new("merge"), &linked, Path::new("--in-place")]).expect_code(1);
    assert!(
        refused.stderr.contains("collides") && refused.stderr.matches("(note at 0x").count() == 2,
        "{}",
        refused.stderr
    );
    assert!(std::fs::read(&linked).expect("unchanged") == before);

    let report = json_out(
        run([
            Path::new("audit"),
            Path::new("--format"),
            Path::new("json"),
            &linked,
        ])
        .expect_code(1),
    );
    assert_matches_schema("audit.schema.json", &report);
    let collision = report["findings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["kind"] == "collision")
        .unwrap_or_else(|| panic!("no collision in {report}"));
    let notes: Vec<u64> = collision["locations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["note"].as_u64().expect("note offset"))
        .collect();
    assert_eq!(notes.len(), 2);
    assert_ne!(notes[0], notes[1]);
}

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn a_truncated_second_note_fails_cleanly() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        a_truncated_second_note_fails_cleanly_with(llvm);
    }
}

fn a_truncated_second_note_fails_cleanly_with(llvm: Llvm) {
    let Some(tools) = tools(llvm) else { return };
    let dir = scratch();
    let a = pal_object(&tools, dir.path(), "helper_a", false, &lib_a());
    let b = pal_object(&tools, dir.path(), "helper_b", false, &lib_b());
    let linked = dir.path().join("linked.o");
    link(&tools, "-r", &[&a, &b], &linked);
    let mut bytes = std::fs::read(&linked).expect("linked");
    let dumped = json_out(run([Path::new("dump"), Path::new("--json"), &linked]).expect_code(0));
    let second = dumped[1]["note"].as_u64().expect("second note") as usize;
    // The second note claims a descriptor far past the section's end.
    bytes[second + 4..second + 8].copy_from_slice(&0x00ff_ffffu32.to_le_bytes());
    let broken = dir.path().join("broken.o");
    std::fs::write(&broken, &bytes).expect("write");
    let out = dir.path().join("out.o");
    for args in [
        vec![Path::new("merge"), &broken, Path::new("-o"), &out],
        vec![Path::new("merge"), &broken, Path::new("--in-place")],
        vec![Path::new("dump"), &broken],
    ] {
        let failed = run(&args).expect_code(2);
        assert!(
            failed.stderr.contains("broken.o")
                && failed.stderr.contains(&format!("{second:#x}"))
                && failed.stderr.contains("runs past"),
            "{}",
            failed.stderr
        );
        assert!(failed.stdout.is_empty());
    }
    assert!(!out.exists());
    assert!(std::fs::read(&broken).expect("unchanged") == bytes);
    let report = json_out(
        run([
            Path::new("audit"),
            Path::new("--format"),
            Path::new("json"),
            &broken,
        ])
        .expect_code(1),
    );
    assert_eq!(report["findings"][0]["kind"], "malformed", "{report}");
}

/// `cmake`, or `None` (a skip, or a failure under CI=true: `cargo xtask oracles` installs it).
fn require_cmake() -> Option<PathBuf> {
    if Command::new("cmake").arg("--version").output().is_ok() {
        return Some(PathBuf::from("cmake"));
    }
    let message = "cmake is not installed; `cargo xtask oracles` installs it";
    assert!(
        !fmtstr_oracles::in_ci(),
        "{message} (CI=true: an oracle test must not skip)"
    );
    eprintln!("skipping: {message}");
    None
}

/// README's CMake recipe (samples/cmake): clang links the PAL objects with ld.lld -shared and
/// the POST_BUILD command folds the notes.
/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn the_cmake_post_build_recipe_folds_the_link() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        the_cmake_post_build_recipe_folds_the_link_with(llvm);
    }
}

fn the_cmake_post_build_recipe_folds_the_link_with(llvm: Llvm) {
    let (Some(tools), Some(cmake), Some(clang)) = (
        tools(llvm),
        require_cmake(),
        require_llvm(llvm, Tool::Clang),
    ) else {
        return;
    };
    let dir = scratch();
    let objects: Vec<PathBuf> = [("helper_a", lib_a()), ("helper_b", lib_b())]
        .iter()
        .map(|(name, specs)| pal_object(&tools, dir.path(), name, false, specs))
        .collect();
    let list: Vec<String> = objects.iter().map(|o| o.display().to_string()).collect();
    let build = dir.path().join("build");
    checked_cmake(
        Command::new(&cmake)
            .arg("-S")
            .arg(crate::util::root().join("samples/cmake"))
            .arg("-B")
            .arg(&build)
            .arg(format!("-DCMAKE_C_COMPILER={}", clang.display()))
            .args([
                "-DCMAKE_C_COMPILER_TARGET=amdgcn-amd-amdpal",
                "-DCMAKE_C_FLAGS=-mcpu=gfx1100",
                "-DCMAKE_C_COMPILER_WORKS=ON",
            ])
            .arg(format!("-DPIPELINE_OBJECTS={}", list.join(";")))
            .arg(format!("-DFMTSTR={}", env!("CARGO_BIN_EXE_fmtstr"))),
    );
    let built = checked_cmake(Command::new(&cmake).arg("--build").arg(&build));
    assert!(built.contains("fmtstr: folding"), "{built}");
    let library = build.join("libpipeline.so");
    let notes = llvm::metadata_notes(&tools.readobj, &library);
    assert_eq!(notes.len(), 1, "one note after the POST_BUILD step");
    assert_eq!(
        canonical(&table_of(&notes[0])),
        canonical(&union(&[&lib_a(), &lib_b()]))
    );
    llvm::objcopy_accepts(&tools.objcopy, &library, dir.path());
}

fn checked_cmake(command: &mut Command) -> String {
    let output = command.output().expect("cmake runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.status.success(), "{command:?}:\n{text}");
    text
}
