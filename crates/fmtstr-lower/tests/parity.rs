//! Layout parity with NVIDIA: the same printf calls compiled by nvcc and by clang + fmtstr +
//! llc must store the same bytes into the vprintf buffer.
//!
//! 320 single-call functions (every argument count from 0 to 32 twice, then random mixes of
//! char, signed/unsigned char, short, unsigned short, int, unsigned, long, long long, unsigned
//! long long, float, double, pointers and strings) and 12 functions with two to four calls each
//! (the buffer is shared and sized for the largest call) are written once as CUDA and once as
//! C. nvcc compiles the CUDA (`-ptx -arch=sm_90`); clang compiles the C for
//! nvptx64-nvidia-cuda with `-fno-builtin-printf`, fmtstr lowers it, llc compiles it and
//! ptxas assembles the result, under LLVM 19 and under LLVM 22 (clang-N, llc-N: one module of
//! 332 functions each, so the second release costs one more clang, llc and ptxas run). From both PTX files: for every function its local depot size
//! (the buffer's extent), and for every vprintf call the (offset, width) of each store into
//! the buffer and whether the buffer argument is null. They must be equal.
//!
//! One nvcc and one clang invocation for all of them; nvcc runs while fmtstr and llc work.

mod common;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use common::{assert_ptxas, clang_ir_with, llc_ptx_with, lower_for, ptx};
use fmtstr_lower::Target;
use fmtstr_oracles::{require, require_llvm, Llvm, Tool};

/// C types and the conversions that print them.
const TYPES: &[(&str, &str)] = &[
    ("char", "%c"),
    ("signed char", "%hhd"),
    ("unsigned char", "%hhu"),
    ("short", "%hd"),
    ("unsigned short", "%hu"),
    ("int", "%d"),
    ("unsigned", "%u"),
    ("long", "%ld"),
    ("long long", "%lld"),
    ("unsigned long long", "%llu"),
    ("float", "%f"),
    ("double", "%g"),
    ("void *", "%p"),
    ("const char *", "%s"),
];

/// xorshift64*: the same calls on every run.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n
    }
}

/// One function: its calls, each a list of argument types (indexes into TYPES).
fn functions() -> Vec<(String, Vec<Vec<usize>>)> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut out = Vec::new();
    for k in 0..320 {
        let count = if k < 66 { k % 33 } else { rng.below(33) };
        let call = (0..count).map(|_| rng.below(TYPES.len())).collect();
        out.push((format!("k{k}"), vec![call]));
    }
    for m in 0..12 {
        let calls = (0..2 + rng.below(3))
            .map(|_| {
                let count = rng.below(13);
                (0..count).map(|_| rng.below(TYPES.len())).collect()
            })
            .collect();
        out.push((format!("m{m}"), calls));
    }
    out
}

/// The source of every function, as CUDA kernels or as C functions.
fn source(functions: &[(String, Vec<Vec<usize>>)], cuda: bool) -> String {
    let mut out = String::from(if cuda {
        "#include <cstdio>\n"
    } else {
        "extern int printf(const char *, ...);\n"
    });
    for (name, calls) in functions {
        let mut params = Vec::new();
        let mut body = String::new();
        for (c, call) in calls.iter().enumerate() {
            let format: Vec<&str> = call.iter().map(|&t| TYPES[t].1).collect();
            write!(body, " printf(\"{}\\n\"", format.join(" ")).unwrap();
            for (a, &t) in call.iter().enumerate() {
                params.push(format!("{} a{c}_{a}", TYPES[t].0));
                write!(body, ", a{c}_{a}").unwrap();
            }
            body.push_str(");");
        }
        let params = if params.is_empty() {
            "void".to_owned()
        } else {
            params.join(", ")
        };
        if cuda {
            writeln!(
                out,
                "extern \"C\" __global__ void {name}({params}) {{{body} }}"
            )
            .unwrap();
        } else {
            writeln!(out, "void {name}({params}) {{{body} }}").unwrap();
        }
    }
    out
}

/// Under LLVM 19 and LLVM 22 alike, against the same nvcc PTX.
#[test]
fn vprintf_buffers_match_nvcc_store_for_store() {
    let (Some(_), Some(_)) = (require(Tool::Nvcc), require(Tool::Ptxas)) else {
        return;
    };
    let functions = functions();
    let dir = tempfile::tempdir().unwrap();
    let cu = dir.path().join("calls.cu");
    let c = dir.path().join("calls.c");
    std::fs::write(&cu, source(&functions, true)).unwrap();
    std::fs::write(&c, source(&functions, false)).unwrap();

    let nv_ptx = dir.path().join("nvcc.ptx");
    let nvcc = std::thread::spawn({
        let (cu, nv_ptx) = (cu.clone(), nv_ptx.clone());
        move || {
            let output = Tool::Nvcc
                .command()
                .unwrap()
                .args(["-ptx", "-arch=sm_90", "-o"])
                .arg(&nv_ptx)
                .arg(&cu)
                .output()
                .unwrap();
            assert!(
                output.status.success(),
                "nvcc fails:\n{}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
    });
    let mut ours = Vec::new();
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        let (Some(_), Some(_)) = (
            require_llvm(llvm, Tool::Clang),
            require_llvm(llvm, Tool::Llc),
        ) else {
            continue;
        };
        let ir = clang_ir_with(llvm, &c, "nvptx64-nvidia-cuda").unwrap();
        let lowered = lower_for("calls.ll", &ir, Target::nvptx());
        let ptx = llc_ptx_with(llvm, "calls.ll", &lowered).unwrap();
        assert_ptxas("calls.ll", &ptx);
        ours.push((llvm, ptx::functions(&ptx)));
    }
    nvcc.join().unwrap();
    let theirs = ptx::functions(&std::fs::read_to_string(&nv_ptx).unwrap());
    for (llvm, ours) in &ours {
        compare(*llvm, &functions, &theirs, ours);
    }
}

/// nvcc's functions against those of fmtstr and that release's llc.
fn compare(
    llvm: Llvm,
    functions: &[(String, Vec<Vec<usize>>)],
    theirs: &BTreeMap<String, ptx::Function>,
    ours: &BTreeMap<String, ptx::Function>,
) {
    let mut calls = 0;
    let mut stores = 0;
    let mut mismatches = Vec::new();
    for (name, expected_calls) in functions {
        let (Some(a), Some(b)) = (theirs.get(name), ours.get(name)) else {
            mismatches.push(format!("{name}: missing from a PTX file"));
            continue;
        };
        assert_eq!(a.calls.len(), expected_calls.len(), "{name}: nvcc's calls");
        calls += a.calls.len();
        stores += a.calls.iter().map(|c| c.stores.len()).sum::<usize>();
        if a != b {
            mismatches.push(format!("{name}:\n  nvcc:   {a:?}\n  fmtstr: {b:?}"));
        }
    }
    assert!(
        mismatches.is_empty(),
        "{llvm}: {} of {} functions differ:\n{}",
        mismatches.len(),
        functions.len(),
        mismatches.join("\n")
    );
    assert!(calls >= 300, "{llvm}: only {calls} calls compared");
    assert!(stores > 3000, "{llvm}: only {stores} stores compared");
}
