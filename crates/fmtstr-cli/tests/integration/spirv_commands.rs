//! `dump`, `check` and `audit` on SPIR-V modules: the samples in samples/spirv (built by
//! glslangValidator and spirv-opt, validated by spirv-val; see the fmtstr-spirv tests for the
//! comparison with spirv-dis) and damaged copies of them.

use std::path::PathBuf;

use serde_json::Value;

use crate::util::{assert_matches_schema, root, run};

fn sample(name: &str) -> PathBuf {
    root().join("samples/spirv").join(name)
}

#[test]
fn dump_json_of_every_sample_matches_the_schema_and_the_reader() {
    let names = [
        "compute.spv",
        "compute.vk12.spv",
        "compute.gV.spv",
        "compute.g.spv",
        "compute.opt.spv",
        "compute.strip.spv",
        "fragment.spv",
        "hlsl.spv",
    ];
    let paths: Vec<PathBuf> = names.iter().map(|name| sample(name)).collect();
    let out = run(["dump", "--json"]
        .iter()
        .map(PathBuf::from)
        .chain(paths.clone()))
    .expect_code(0);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_matches_schema("dump.schema.json", &json);
    for (report, path) in json.as_array().unwrap().iter().zip(&paths) {
        let module = fmtstr_spirv::read(&std::fs::read(path).unwrap()).unwrap();
        let sites = report["call_sites"].as_array().unwrap();
        assert_eq!(sites.len(), module.calls.len(), "{}", path.display());
        assert_matches_schema("format-strings.schema.json", &report["format_strings"]);
        for (site, call) in sites.iter().zip(&module.calls) {
            assert_eq!(site["offset"], call.offset);
            assert_eq!(site["index"], fmtstr_meta::FormatId::of(&call.format).get());
            assert_eq!(site["entry_points"][0]["name"], "main");
        }
    }
    // -gV gives DebugLine: `big=%ld mask=%lx` is on line 25 of compute.comp.
    let gv = &json[2]["call_sites"][0];
    assert_eq!(gv["string"], "big=%ld mask=%lx\\n");
    assert_eq!(gv["line"]["line"], 25);
    assert_eq!(gv["line"]["file"], "compute.comp");
    assert_eq!(gv["arguments"], serde_json::json!(["i64", "i64"]));
    // The helper's call is in `report`, reached from main.
    let helper = json[0]["call_sites"]
        .as_array()
        .unwrap()
        .iter()
        .find(|site| site["function"]["name"] == "report(i1;")
        .unwrap();
    assert_eq!(helper["string"], "count=%d\\n");
}

#[test]
fn dump_text_names_the_call_sites() {
    let out = run(["dump".into(), sample("compute.g.spv")]).expect_code(0);
    let text = out.stdout_text();
    assert!(
        text.contains("SPIR-V 1.6, 8 DebugPrintf calls, 7 format strings"),
        "{text}"
    );
    assert!(
        text.contains("(compute.comp:25) in main [entry GLCompute main]"),
        "{text}"
    );
    let stripped = run(["dump".into(), sample("compute.strip.spv")]).expect_code(0);
    assert!(stripped.stdout_text().contains("0 DebugPrintf calls"));
}

#[test]
fn damaged_modules_are_errors_with_the_offset() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(sample("compute.spv")).unwrap();
    let truncated = dir.path().join("truncated.spv");
    // Cut inside the last DebugPrintf call (an instruction of 6 words).
    let last = fmtstr_spirv::read(&bytes)
        .unwrap()
        .calls
        .last()
        .unwrap()
        .offset;
    std::fs::write(&truncated, &bytes[..last + 8]).unwrap();
    let out = run(["dump".into(), truncated.clone()]).expect_code(2);
    assert!(out.stderr.contains("truncated"), "{}", out.stderr);
    assert!(out.stdout.is_empty());

    let mut huge = bytes.clone();
    huge[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let huge_path = dir.path().join("huge.spv");
    std::fs::write(&huge_path, &huge).unwrap();
    let out = run(["dump".into(), huge_path]).expect_code(2);
    assert!(out.stderr.contains("id bound 4294967295"), "{}", out.stderr);

    let mut zero = bytes.clone();
    zero[20..24].copy_from_slice(&0u32.to_le_bytes());
    let zero_path = dir.path().join("zero.spv");
    std::fs::write(&zero_path, &zero).unwrap();
    let out = run(["dump".into(), zero_path]).expect_code(2);
    assert!(
        out.stderr.contains("byte 20 has a word count of 0"),
        "{}",
        out.stderr
    );
}

#[test]
fn check_reports_every_call_in_the_vvl_dialect_by_default() {
    let out = run(["check".into(), "--json".into(), sample("mistakes.spv")]).expect_code(1);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_matches_schema("check-spirv.schema.json", &json);
    assert_eq!(json["dialect"], "vvl");
    let kinds: Vec<Vec<String>> = json["calls"]
        .as_array()
        .unwrap()
        .iter()
        .map(|call| {
            call["findings"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| {
                    format!(
                        "{} {}",
                        f["severity"].as_str().unwrap(),
                        f["kind"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .collect();
    // In mistakes.comp's order: %d given an int64, %v3f a vec4, %s, the '-' flag, a missing
    // argument, %v2f a float, and a call VVL prints as written.
    assert_eq!(
        kinds,
        [
            vec!["warning width"],
            vec!["warning vector-length"],
            vec!["error invalid-conversion"],
            vec!["error vvl-flag"],
            vec!["warning too-few-arguments"],
            vec!["warning vector-length"],
            vec![],
        ]
    );
    // The samples that are right for VVL have no findings; the gpu dialect reads %v2f as float2
    // and so flags compute.comp's dvec2.
    for name in ["compute.spv", "compute.gV.spv", "fragment.spv", "hlsl.spv"] {
        run(["check".into(), sample(name)]).expect_code(0);
    }
    let gpu = run([
        "check".into(),
        "--dialect".into(),
        "gpu".into(),
        sample("compute.spv"),
    ])
    .expect_code(1);
    assert!(gpu.stderr.contains("'<2 x double>'"), "{}", gpu.stderr);
}

#[test]
fn audit_walks_spirv_modules_with_elf_files() {
    // Shaders sharing a format with the same layout agree.
    let shared = ["compute.spv", "fragment.spv", "hlsl.spv"].map(sample);
    let out = run(["audit", "--format", "json"]
        .iter()
        .map(PathBuf::from)
        .chain(shared))
    .expect_code(0);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_matches_schema("audit.schema.json", &json);
    assert_eq!(json["files"], 3);

    // wide.comp prints "count=%d\n" and "x=%d\n" with 64-bit arguments: conflicts with
    // compute.spv and with the PAL ELF compute.elf, whose "x=%d\n" takes 32 bits.
    let paths = [
        sample("wide.spv"),
        sample("compute.spv"),
        root().join("samples/pal/compute.elf"),
    ];
    let out = run(["audit", "--format", "json"]
        .iter()
        .map(PathBuf::from)
        .chain(paths))
    .expect_code(1);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_matches_schema("audit.schema.json", &json);
    let conflicts: Vec<Vec<String>> = json["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|f| f["kind"] == "conflict")
        .map(|f| {
            f["locations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|l| {
                    format!(
                        "{} {}",
                        l["file"].as_str().unwrap(),
                        l["string"].as_str().unwrap()
                    )
                })
                .collect()
        })
        .collect();
    let wide = sample("wide.spv").display().to_string();
    let compute = sample("compute.spv").display().to_string();
    let elf = root().join("samples/pal/compute.elf").display().to_string();
    assert_eq!(conflicts.len(), 2, "{conflicts:?}");
    assert!(conflicts.contains(&vec![format!("{wide} x=%d\n"), format!("{elf} x=%d\n")]));
    assert!(conflicts.contains(&vec![
        format!("{wide} count=%d\n"),
        format!("{compute} count=%d\n")
    ]));

    // A damaged module in a directory is a malformed finding; the sources beside it are skipped.
    let dir = tempfile::tempdir().unwrap();
    let bytes = std::fs::read(sample("compute.spv")).unwrap();
    std::fs::write(dir.path().join("cut.spv"), &bytes[..bytes.len() - 2]).unwrap();
    std::fs::copy(sample("fragment.spv"), dir.path().join("fragment.spv")).unwrap();
    std::fs::copy(sample("fragment.frag"), dir.path().join("fragment.frag")).unwrap();
    let out = run([
        "audit".into(),
        "--format".into(),
        "json".into(),
        dir.path().to_path_buf(),
    ])
    .expect_code(1);
    let json: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["skipped"], 1);
    assert_eq!(json["findings"][0]["kind"], "malformed");
    assert!(json["findings"][0]["message"]
        .as_str()
        .unwrap()
        .contains("not a whole number of 32-bit words"));
}

/// The text the Vulkan validation layers print for each DebugPrintf message of one dispatch.
fn lavapipe_messages(module: &std::path::Path) -> Option<Vec<String>> {
    use fmtstr_oracles::{require, spirv, Tool};
    let lavapipe = spirv::require_lavapipe()?;
    let clang = require(Tool::Clang)?;
    let dir = tempfile::tempdir().unwrap();
    let host = dir.path().join("run_compute");
    let built = std::process::Command::new(clang)
        .args(["-O1", "-o"])
        .arg(&host)
        .arg(sample("run_compute.c"))
        .arg("-lvulkan")
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let ran = std::process::Command::new(&host)
        .arg(module)
        .env("VK_ICD_FILENAMES", &lavapipe.icd)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&ran.stderr);
    assert!(ran.status.success(), "{stderr}");
    assert!(!stderr.contains("Validation Error"), "{stderr}");
    // Each message: `MSG[... | MessageID = 0x... | TEXT]`, TEXT the shader's printf output.
    let stdout = String::from_utf8(ran.stdout).unwrap();
    Some(
        stdout
            .split("MSG[")
            .skip(1)
            .map(|message| {
                let body = message.strip_suffix("]\n").unwrap_or(message);
                body.rsplit_once(" | ")
                    .map_or(body, |(_, text)| text)
                    .to_string()
            })
            .collect(),
    )
}

#[test]
fn the_validation_layers_on_lavapipe_print_what_fmtstr_printf_renders() {
    let module = sample("lavapipe.spv");
    let Some(messages) = lavapipe_messages(&module) else {
        return;
    };
    // lavapipe.comp's calls in order, with the values its source gives them.
    let calls: [(&str, &[&str]); 6] = [
        (
            "i=%d u=%u x=%x X=%08X o=%o\\n",
            &[
                "i32:-42",
                "u32:3000000000",
                "u32:3000000000",
                "u32:3000000000",
                "u32:3000000000",
            ],
        ),
        (
            "f=%f e=%.3e g=%g w=%10.2f 100%%\\n",
            &["f32:3.14159", "f32:3.14159", "f32:3.14159", "f32:3.14159"],
        ),
        (
            "lu=%lu lx=%lx\\n",
            &["u64:2305843009213693953", "u64:2305843009213693953"],
        ),
        (
            "v=%v4f w=%1.2v4f\\n",
            &["v4f32:1.2,2.2,3.2,4.2", "v4f32:1.2,2.2,3.2,4.2"],
        ),
        ("zero=[%05d] [%5.1f]\\n", &["i32:7", "f32:-0.25"]),
        ("ul=%ul\\n", &["u64:2305843009213693953"]),
    ];
    let read = fmtstr_spirv::read(&std::fs::read(&module).unwrap()).unwrap();
    assert_eq!(read.calls.len(), calls.len());
    assert_eq!(messages.len(), calls.len(), "{messages:?}");
    for ((call, (format, args)), message) in read.calls.iter().zip(calls).zip(&messages) {
        assert_eq!(fmtstr_meta::escape::escape(&call.format), format);
        // VVL's `%ul` is its alias of `%lx`.
        let c_format = format.replace("%ul", "%lx");
        let rendered = run(["printf", c_format.as_str()].iter().chain(args)).expect_code(0);
        let mut expected = rendered.stdout_text();
        if format.contains("%v") {
            // VVL separates vector components with ", ", OpenCL's printf (and fmtstr) with ",".
            expected = expected.replace(',', ", ");
        }
        assert_eq!(message, &expected, "{format}");
    }
}
