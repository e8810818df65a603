//! `--pass assert`: glibc's `__assert_fail` and CUDA's `__assertfail` become a printf of
//! glibc's message and a trap. Judged by llc-19 and llc-22 (nvptx64 sm_90 and ptxas).

mod common;

use common::{assert_ptxas, clang_ir, llc_ptx, lower_ok};
use fmtstr_lower::{Options, Target};

/// assert() as glibc's <assert.h> expands it, in a kernel that prints too.
const SOURCE: &str = r#"extern void __assert_fail(const char *expression, const char *file,
                          unsigned int line, const char *function) __attribute__((noreturn));
#define assert(e) ((e) ? (void)0 : __assert_fail(#e, __FILE__, __LINE__, __func__))
extern int printf(const char *, ...);
void work(int i) {
  printf("i=%d\n", i);
  assert(i < 3);
}
void quiet(int i) { assert(i != 7); }
"#;

fn asserts(target: Target) -> Options {
    let mut options = Options::new(target);
    options.asserts = true;
    options
}

#[test]
fn glibc_asserts_print_then_trap() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("work.c");
    std::fs::write(&source, SOURCE).unwrap();
    let Some(ir) = clang_ir(&source, "nvptx64-nvidia-cuda") else {
        return;
    };
    let (out, lowered) = lower_ok("work.c.ll", &ir, asserts(Target::nvptx()));
    // Two asserts and one printf, in a function that prints and in one that does not.
    assert_eq!(lowered.calls, 3);
    assert!(out.contains(r#"c"%s:%u: %s: Assertion `%s' failed.\0A\00""#));
    assert_eq!(out.matches("call void @llvm.trap()").count(), 2);
    assert!(!out.contains("@__assert_fail"), "{out}");
    let Some(ptx) = llc_ptx("work.c.ll", &out) else {
        return;
    };
    assert!(ptx.contains("trap;"), "no trap in the PTX");
    assert_ptxas("work.c.ll", &ptx);
    // With --limit-per-site: the first failures are printed, the rest counted.
    let mut limited = asserts(Target::nvptx());
    limited.limit_per_site = Some(2);
    let (out, lowered) = lower_ok("work.c.ll", &ir, limited);
    assert_eq!(lowered.calls, 6);
    assert!(out.contains("further output of this call dropped (limit 2)"));
    if let Some(ptx) = llc_ptx("work.c.ll", &out) {
        assert_ptxas("work.c.ll", &ptx);
    }
}

#[test]
fn cuda_asserts_print_then_trap() {
    // What nvcc's <assert.h> calls: __assertfail(message, file, line, function, charSize).
    let text = "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n\
        target triple = \"nvptx64-nvidia-cuda\"\n\
        @msg = private unnamed_addr constant [6 x i8] c\"x > 0\\00\", align 1\n\
        @file = private unnamed_addr constant [5 x i8] c\"k.cu\\00\", align 1\n\
        @fn = private unnamed_addr constant [5 x i8] c\"kern\\00\", align 1\n\
        define void @kern(i32 %x) {\n\
        entry:\n  %ok = icmp sgt i32 %x, 0\n  br i1 %ok, label %done, label %fail\n\
        fail:\n  call void @__assertfail(ptr @msg, ptr @file, i32 12, ptr @fn, i64 1)\n  unreachable\n\
        done:\n  ret void\n}\n\
        declare void @__assertfail(ptr, ptr, i32, ptr, i64)\n";
    let (out, lowered) = lower_ok("k.ll", text, asserts(Target::nvptx()));
    assert_eq!(lowered.calls, 1);
    assert!(
        out.contains("call void @llvm.trap()\n  unreachable"),
        "{out}"
    );
    assert!(!out.contains("__assertfail"), "{out}");
    if let Some(ptx) = llc_ptx("k.ll", &out) {
        assert_ptxas("k.ll", &ptx);
    }
}
