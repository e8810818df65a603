//! `--limit-per-site`: a counter per site, a marker call, both behind branches. Judged by
//! llc-19 and llc-22 (nvptx64 sm_90 and ptxas; amdgcn gfx1100 PAL) and by the calls lowered.

mod common;

use common::{assert_ptxas, clang_ir, llc_amdpal, llc_ptx, lower_ok, sample};
use fmtstr_lower::{Condition, Options, Stage, Target};

fn limited(target: Target, per_site: u32) -> Options {
    let mut options = Options::new(target);
    options.limit_per_site = Some(per_site);
    options
}

#[test]
fn each_site_gets_a_counter_and_a_marker_behind_branches() {
    let Some(ir) = clang_ir(&sample("printf.c"), "nvptx64-nvidia-cuda") else {
        return;
    };
    let (out, lowered) = lower_ok("printf.c.ll", &ir, limited(Target::nvptx(), 4));
    // 9 sites: 9 calls and 9 markers lowered.
    assert_eq!(lowered.calls, 18);
    assert!(out.contains(
        "@fmtstr_printf_site_counts = addrspace(1) global [9 x i32] zeroinitializer, align 4"
    ));
    assert_eq!(
        out.matches("atomicrmw add ptr addrspace(1) %site").count(),
        9
    );
    assert_eq!(
        out.matches("further output of this call dropped (limit 4)")
            .count(),
        9
    );
    assert_eq!(out.matches("br i1 %site.over").count(), 9);
    assert_eq!(out.matches("br i1 %site.ok").count(), 9);
    let Some(ptx) = llc_ptx("printf.c.ll", &out) else {
        return;
    };
    assert!(
        ptx.contains("atom.global.add.u32"),
        "no counter increment in the PTX"
    );
    assert_ptxas("printf.c.ll", &ptx);
    // With --only: the call runs when both hold.
    let mut both = limited(Target::nvptx(), 4);
    both.only = Some(Condition::parse("thread.x<2").unwrap());
    let (out, _) = lower_ok("printf.c.ll", &ir, both);
    assert!(
        out.contains("and i1 %only"),
        "the conditions are not combined"
    );
    if let Some(ptx) = llc_ptx("printf.c.ll", &out) {
        assert_ptxas("printf.c.ll", &ptx);
    }
    // The AMD buffer stage: the skipped prints take no buffer space (the atomic add on the
    // buffer is behind the branch).
    let Some(amd) = clang_ir(&sample("printf.c"), "amdgcn-amd-amdpal") else {
        return;
    };
    let (out, lowered) = lower_ok(
        "printf.c.ll",
        &amd,
        limited(Target::amdgpu(Stage::Buffer), 1),
    );
    let table = lowered.strings.expect("a table");
    let markers = table
        .entries
        .iter()
        .filter(|e| {
            e.string()
                .ends_with("further output of this call dropped (limit 1)\n")
        })
        .count();
    assert_eq!(markers, 9);
    let after_ok = out.split("br i1 %site.ok").nth(1).expect("a guarded call");
    let block = after_ok.split("fmtstr.after").nth(1).unwrap_or("");
    assert!(
        block.contains("atomicrmw add ptr addrspace(7) %printfBuffer"),
        "{block}"
    );
    llc_amdpal("printf.c.ll", &out, false);
}
