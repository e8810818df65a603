//! `fmtstr lower --only CONDITION` end to end: the host run of the decoder's test (the AMD
//! protocol with `--buffer-addrspace 1`, retargeted to x86_64, 8 pthreads as 2 workgroups of 4
//! work-items) prints, through `fmtstr decode`, exactly what the host's own printf prints for
//! the matching threads, and the others take no buffer space; bad conditions exit 2. The host
//! run is built by clang-19 and by clang-22 (and the PAL module compiled by llc-19 and llc-22).

use fmtstr_oracles::{require_llvm, Llvm, Tool};

use crate::decode_commands::{build_host_run, by_thread, checked, HARNESS_C, WORK_C};
use crate::lower_options::HOST_IDS_C;
use crate::util::{assert_matches_schema, run};

fn scratch() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("fmtstr-lower-only-")
        .tempdir()
        .expect("temp dir")
}

/// The condition, and the same condition written in C over the host's stand-ins for the id
/// reads (workgroup (t / 4, 0, 0), local (t % 4, 0, 0) for pthread t): threads 4, 5 and 7.
const CONDITION: &str = "workgroup.x == 1 && local != 2,0,0 && local.y < 1";
const HOST_FILTER_C: &str = r#"
#include <stdarg.h>
int only_printf(const char *format, ...) {
    int matches = fmtstr_host_workgroup_id_x() == 1u
        && !(fmtstr_host_workitem_id_x() == 2u && fmtstr_host_workitem_id_y() == 0u
             && fmtstr_host_workitem_id_z() == 0u)
        && fmtstr_host_workitem_id_y() < 1u;
    if (!matches)
        return 0;
    va_list args;
    va_start(args, format);
    int n = vprintf(format, args);
    va_end(args);
    return n;
}
"#;

/// Under LLVM 19 and LLVM 22 alike.
#[test]
fn only_the_matching_host_threads_print_and_take_buffer_space() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        only_the_matching_host_threads_print_and_take_buffer_space_with(llvm);
    }
}

fn only_the_matching_host_threads_print_and_take_buffer_space_with(llvm: Llvm) {
    let Some(clang) = require_llvm(llvm, Tool::Clang) else {
        return;
    };
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    // The GPU side: work.c as the decoder's test has it, plus a call whose result is used.
    let work = WORK_C.replace(
        "void work(int tid, int i) {\n",
        "void work(int tid, int i) {\n    int n = printf(\"t%d i%d used %d\\n\", tid, i, i);\n    printf(\"t%d i%d result %d\\n\", tid, i, n);\n",
    );
    assert!(work.contains("result %d"));
    std::fs::write(at("gpu.c"), &work).unwrap();
    crate::decode_commands::amdgpu_ir(&clang, &at("gpu.c"), &at("work.ll"));
    let lower = |extra: &[&str], out: &str| {
        let mut args: Vec<std::ffi::OsString> =
            ["lower", "--target", "amdgpu", "--stage", "buffer"]
                .iter()
                .map(Into::into)
                .collect();
        args.extend(extra.iter().map(Into::into));
        args.extend([
            at("work.ll").into_os_string(),
            "-o".into(),
            at(out).into_os_string(),
        ]);
        run(args)
    };
    let strings = at("strings.json").to_string_lossy().into_owned();
    let report = at("report.json").to_string_lossy().into_owned();
    lower(
        &[
            "--buffer-addrspace",
            "1",
            "--only",
            CONDITION,
            "--prefix",
            "workgroup,local",
            "--emit-strings",
            &strings,
            "--report-json",
            &report,
        ],
        "work.buffer.ll",
    )
    .expect_code(0);
    // The JSON report says whose bytes it counts, as the text report does.
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report).unwrap()).unwrap();
    assert_eq!(json["only"], CONDITION);
    assert_matches_schema("lower-report.schema.json", &json);
    // The PAL path of the same module: llc compiles it for gfx1100.
    lower(&["--only", CONDITION], "work.pal.ll").expect_code(0);
    if let Some(llc) = require_llvm(llvm, Tool::Llc) {
        checked(
            std::process::Command::new(llc)
                .args([
                    "-mtriple=amdgcn--amdpal",
                    "-mcpu=gfx1100",
                    "-filetype=obj",
                    "-o",
                ])
                .arg(at("work.pal.o"))
                .arg(at("work.pal.ll")),
        );
    }
    // The host side: the same calls through the host's printf, filtered in C by the same
    // condition; the ids come from the harness's stand-ins.
    std::fs::write(
        at("work.c"),
        format!("int only_printf(const char *format, ...);\n#define printf only_printf\n{work}"),
    )
    .unwrap();
    let harness = HARNESS_C
        .replace(
            "static unsigned char *buffer;",
            &format!("static unsigned char *buffer;\n{HOST_IDS_C}{HOST_FILTER_C}"),
        )
        .replace(
            "int tid = (int)(intptr_t)arg;",
            "int tid = (int)(intptr_t)arg;\n    current_thread = tid;",
        );
    assert!(harness.contains("current_thread = tid;"));
    std::fs::write(at("harness.c"), harness).unwrap();
    let lowered = std::fs::read_to_string(at("work.buffer.ll")).unwrap();
    assert!(lowered.contains("br i1 %only"));
    let renamed = lowered
        .replace("@llvm.amdgcn.workgroup.id.", "@fmtstr_host_workgroup_id_")
        .replace("@llvm.amdgcn.workitem.id.", "@fmtstr_host_workitem_id_");
    build_host_run(&clang, dir.path(), &renamed);
    let calls = "300";
    let host = checked(std::process::Command::new(at("host")).arg(calls));
    let host_lines = by_thread(&String::from_utf8(host.stdout).unwrap());
    let printed: Vec<&String> = host_lines.keys().collect();
    assert_eq!(printed, ["t4", "t5", "t7"], "the C filter");
    checked(
        std::process::Command::new(at("lowered"))
            .args([calls, &(1u64 << 22).to_string()])
            .arg(at("all.bin")),
    );
    let sorted = run([
        "decode".as_ref(),
        at("all.bin").as_os_str(),
        "--strings".as_ref(),
        at("strings.json").as_os_str(),
        "--strict".as_ref(),
        "--sort".as_ref(),
        "prefix".as_ref(),
    ])
    .expect_code(0);
    let expected: Vec<String> = [4usize, 5, 7]
        .into_iter()
        .flat_map(|t| {
            host_lines[&format!("t{t}")].iter().map(move |line| {
                // A used result: the host's printf returns the length; through the AMD
                // protocol it is 0 (a -Wprintf-result warning), as is the phi's value
                // where the call is skipped.
                let line = if line.contains(" result ") {
                    format!("{} result 0", line.rsplit_once(" result ").unwrap().0)
                } else {
                    line.clone()
                };
                format!("[workgroup {},0,0 local {},0,0] {line}", t / 4, t % 4)
            })
        })
        .collect();
    let got: Vec<String> = sorted.stdout_text().lines().map(str::to_owned).collect();
    assert_eq!(got.len(), expected.len());
    assert!(
        got == expected,
        "the decoded text differs from the host's printf"
    );
    // bufferOffset is exactly what the matching threads' lines take (--report's dwords per
    // call): the other five threads wrote nothing.
    let (written, matching) = crate::lower_options::written_and_reported(
        &at("all.bin"),
        &at("report.json"),
        host_lines.values().flatten(),
    );
    assert_eq!(written, matching);
    let per_thread = matching / 3;
    assert_eq!(
        matching,
        3 * per_thread,
        "each matching thread writes the same"
    );
    assert!(written < 8 * per_thread);
}

#[test]
fn bad_conditions_exit_2_naming_the_option_the_column_and_the_fix() {
    let dir = scratch();
    let at = |name: &str| dir.path().join(name);
    std::fs::write(
        at("k.ll"),
        "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n@s = private unnamed_addr constant [4 x i8] c\"%d\\0A\\00\"\ndefine void @k(i32 %x) {\n  %r = call i32 (ptr, ...) @printf(ptr @s, i32 %x)\n  ret void\n}\ndeclare i32 @printf(ptr, ...)\n",
    )
    .unwrap();
    for (condition, wanted) in [
        (
            "thread.w==0",
            "--only: column 8 of `thread.w==0`: expected x, y or z after `thread.`",
        ),
        (
            "wave.x==0",
            "--only: column 1 of `wave.x==0`: unknown id `wave`",
        ),
        (
            "block<1,0,0",
            "all three axes of `block` compare with == or != only",
        ),
        (
            "thread.x==0 || block.x==0",
            "column 13 of `thread.x==0 || block.x==0`: expected `&&`",
        ),
        ("", "empty condition"),
    ] {
        for target in ["nvptx", "amdgpu"] {
            let bad = run([
                "lower",
                "--target",
                target,
                "--only",
                condition,
                at("k.ll").to_str().unwrap(),
                "-o",
                at("out.ll").to_str().unwrap(),
            ])
            .expect_code(2);
            assert!(bad.stderr.contains(wanted), "{condition}: {}", bad.stderr);
            assert!(
                bad.stderr
                    .contains("e.g. --only 'thread.x==0 && block==0,0,0'"),
                "{}",
                bad.stderr
            );
            assert!(!at("out.ll").exists());
        }
    }
    // --only applies to the printf pass only.
    let bad = run([
        "lower",
        "--pass",
        "strip",
        "--only",
        "thread.x==0",
        at("k.ll").to_str().unwrap(),
    ])
    .expect_code(2);
    assert!(bad.stderr.contains("drop --only"), "{}", bad.stderr);
    // A good one lowers, and the output is behind the branch.
    let good = run([
        "lower",
        "--target",
        "nvptx",
        "--only",
        "thread.x==0",
        "--report",
        at("k.ll").to_str().unwrap(),
    ])
    .expect_code(0);
    assert!(
        good.stderr.contains("@k: 1 call, 4 bytes per thread per pass\n  (--only 'thread.x==0': bytes per thread the condition matches; the others write none)"),
        "{}",
        good.stderr
    );
    assert!(good
        .stdout_text()
        .contains("br i1 %only, label %fmtstr.only.0, label %fmtstr.after.0"));
}
