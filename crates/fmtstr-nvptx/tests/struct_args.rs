//! The struct-args pass: the ABI's worked examples with LLVM's numbers, its diagnostics, and
//! generated kernels judged by llvm-as-19 and llc-19.

mod common;

use std::collections::BTreeSet;

use fmtstr_ir::{Module, TypeId};
use fmtstr_nvptx::abi::AccessPlan;
use fmtstr_nvptx::struct_args::{self, Action};
use fmtstr_nvptx::{ptx, Config};
use fmtstr_oracles::{require, require_llvm, Llvm, Tool};

const HEADER: &str = "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\ntarget triple = \"nvptx64-nvidia-cuda\"\n\n%S = type { double, i8, [4 x i32] }\n@out = global [4 x i64] zeroinitializer\n\ndeclare void @consume(ptr)\n\n";

/// The field-level example, with stores so that llc keeps the loads.
const BYVAL_EXAMPLE: &str = "define ptx_kernel void @k(ptr byval(%S) align 8 %s) {
entry:
  %p_f = getelementptr %S, ptr %s, i32 0, i32 0
  %f   = load double, ptr %p_f
  %p_b = getelementptr %S, ptr %s, i32 0, i32 1
  %b   = load i8,     ptr %p_b
  %p_a = getelementptr %S, ptr %s, i32 0, i32 2, i32 3
  %a3  = load i32,    ptr %p_a
  store double %f, ptr @out
  store i8 %b, ptr getelementptr (i8, ptr @out, i64 8)
  store i32 %a3, ptr getelementptr (i8, ptr @out, i64 16)
  ret void
}
";

/// The cast-only example.
const BYVAL_ESCAPE: &str = "define ptx_kernel void @k(ptr byval(%S) align 8 %s) {
entry:
  call void @consume(ptr %s)
  ret void
}
";

fn parse(body: &str) -> Module {
    let text = format!("{HEADER}{body}");
    Module::parse("test.ll", text).unwrap_or_else(|e| panic!("{e}"))
}

fn function_text(m: &Module, name: &str) -> String {
    let printed = String::from_utf8(m.print()).unwrap();
    let start = printed
        .find(&format!("@{name}("))
        .and_then(|i| printed[..i].rfind("define"))
        .expect("function");
    let end = printed[start..].find("\n}\n").expect("end") + start + 3;
    printed[start..end].to_string()
}

/// llc-19's PTX of `ir`; llc-22 must compile it too.
fn llc_ptx(ir: &[u8]) -> Option<String> {
    if let Some(llc) = require_llvm(Llvm::V22, Tool::Llc) {
        common::llc(&llc, ir, 90).unwrap_or_else(|e| panic!("llc-22 rejects:\n{e}"));
    }
    let llc = require(Tool::Llc)?;
    Some(common::llc(&llc, ir, 90).unwrap_or_else(|e| panic!("llc rejects:\n{e}")))
}

/// llvm-as of LLVM 19 and 22 accept `ir`.
fn assemble(ir: &[u8]) {
    for llvm in Llvm::ALL {
        if let Some(as_) = require_llvm(llvm, Tool::LlvmAs) {
            common::pipe(&as_, &["-o", "/dev/null", "-"], ir).unwrap_or_else(|e| {
                panic!(
                    "llvm-as of {llvm} rejects:\n{e}\n{}",
                    String::from_utf8_lossy(ir)
                )
            });
        }
    }
}

/// The (offset, width, arity) of every `ld.param` of each kernel parameter, by kernel.
fn reads(ptx_text: &str) -> Vec<(String, BTreeSet<(String, AccessPlan)>)> {
    ptx::read(ptx_text)
        .into_iter()
        .filter(|f| f.directive.ends_with(".entry"))
        .map(|f| (f.name.clone(), f.reads.iter().cloned().collect()))
        .collect()
}

#[test]
fn byval_example_uses_llvm_offsets_and_alloc_size() {
    let mut m = parse(BYVAL_EXAMPLE);
    // LLVM's numbers, not the proposal's: fields at 0, 8 and 12, [4 x i32] element 3 at 24,
    // alloc size 32 (the proposal said 28).
    let s = m.types().named("S").unwrap();
    let layout = m.data_layout().struct_layout(m.types(), s).unwrap();
    assert_eq!(layout.offsets, [0, 8, 12]);
    assert_eq!(m.data_layout().alloc_size(m.types(), s).unwrap(), 32);
    assert_eq!(m.data_layout().abi_align(m.types(), s).unwrap(), 8);
    let original = m.print();

    let report = struct_args::run(&mut m, &Config::default()).unwrap();
    assert_eq!(report.params.len(), 1);
    let p = &report.params[0];
    assert_eq!(p.action, Action::Rewritten);
    assert_eq!(
        p.reads,
        [
            (Some(0), "double".to_string()),
            (Some(8), "i8".to_string()),
            (Some(24), "i32".to_string())
        ]
    );
    assert_eq!(
        function_text(&m, "k"),
        "define ptx_kernel void @k(ptr byval(%S) align 8 %s) {
entry:
  %s.param = addrspacecast ptr %s to ptr addrspace(101)
  %s.param.8 = getelementptr inbounds i8, ptr addrspace(101) %s.param, i64 8
  %s.param.24 = getelementptr inbounds i8, ptr addrspace(101) %s.param, i64 24
  %s.0 = load double, ptr addrspace(101) %s.param, align 8
  %s.8 = load i8, ptr addrspace(101) %s.param.8, align 8
  %s.24 = load i32, ptr addrspace(101) %s.param.24, align 8
  store double %s.0, ptr @out
  store i8 %s.8, ptr getelementptr (i8, ptr @out, i64 8)
  store i32 %s.24, ptr getelementptr (i8, ptr @out, i64 16)
  ret void
}
"
    );
    let lowered = m.print();
    assemble(&lowered);
    let (Some(before), Some(after)) = (llc_ptx(&original), llc_ptx(&lowered)) else {
        return;
    };
    let want: BTreeSet<(String, AccessPlan)> = [(0, 64), (8, 8), (24, 32)]
        .into_iter()
        .map(|(offset, bits)| {
            (
                "k_param_0".to_string(),
                AccessPlan {
                    offset,
                    bits,
                    vector: 1,
                },
            )
        })
        .collect();
    assert_eq!(reads(&before), [("k".to_string(), want.clone())]);
    assert_eq!(reads(&after), [("k".to_string(), want)]);
    assert!(
        after.contains(".param .align 8 .b8 k_param_0[32]"),
        "{after}"
    );
    assert!(!after.contains("__local_depot"), "{after}");
}

#[test]
fn escaping_address_takes_the_cast_only_path() {
    let mut m = parse(BYVAL_ESCAPE);
    let original = m.print();
    let report = struct_args::run(&mut m, &Config::default()).unwrap();
    assert_eq!(report.params[0].action, Action::GridConstant);
    assert_eq!(report.params[0].escapes, 1);
    let printed = String::from_utf8(m.print()).unwrap();
    // The call keeps the generic address; the parameter becomes a grid constant, so that
    // llc takes its address in place (cvta.param) instead of copying it.
    assert!(
        printed.contains("  call void @consume(ptr %s)\n"),
        "{printed}"
    );
    assert!(
        printed.contains("!nvvm.annotations = !{!1}")
            && printed.contains("!0 = !{i32 1}")
            && printed.contains("!1 = !{ptr @k, !\"grid_constant\", !0}"),
        "{printed}"
    );
    let lowered = m.print();
    assemble(&lowered);
    let (Some(before), Some(after)) = (llc_ptx(&original), llc_ptx(&lowered)) else {
        return;
    };
    // Unlowered, llc copies the struct into local memory and passes the copy.
    assert!(before.contains("__local_depot"), "{before}");
    let k = ptx::read(&after)
        .into_iter()
        .find(|f| f.name == "k")
        .unwrap();
    assert!(!k.local_depot && k.reads.is_empty(), "{after}");
    assert_eq!(k.cvta_param, 1, "{after}");
}

#[test]
fn nested_chains_dynamic_indices_and_device_functions() {
    let body = "%Outer = type { i16, [2 x %S], <2 x float> }

define ptx_kernel void @k(ptr byval(%Outer) align 16 %o, i32 %i) {
  %inner = getelementptr inbounds %Outer, ptr %o, i32 0, i32 1, i64 1
  %arr = getelementptr inbounds %S, ptr %inner, i32 0, i32 2
  %e = getelementptr inbounds [4 x i32], ptr %arr, i32 0, i32 2
  %v = load i32, ptr %e, align 4
  %d = getelementptr inbounds [4 x i32], ptr %arr, i32 0, i32 %i
  %w = load i32, ptr %d, align 4
  %vec = getelementptr %Outer, ptr %o, i32 0, i32 2
  %cast = bitcast ptr %vec to ptr
  %x = load <2 x float>, ptr %cast, align 8
  store volatile i32 %v, ptr @out
  store volatile i32 %w, ptr @out
  store volatile <2 x float> %x, ptr @out
  ret void
}

define void @dev(ptr byval(%S) %0, ptr byval(%S) %1) {
  %3 = getelementptr %S, ptr %0, i32 0, i32 1
  %4 = load i8, ptr %3
  store volatile i8 %4, ptr @out
  call void @consume(ptr %1)
  ret void
}
";
    let mut m = parse(body);
    let original = m.print();
    let report = struct_args::run(&mut m, &Config::default()).unwrap();
    let actions: Vec<(String, usize, Action)> = report
        .params
        .iter()
        .map(|p| (p.function.clone(), p.index, p.action))
        .collect();
    assert_eq!(
        actions,
        [
            ("k".to_string(), 0, Action::Rewritten),
            ("dev".to_string(), 0, Action::Rewritten),
            ("dev".to_string(), 1, Action::KeptForCopy),
        ]
    );
    // Outer: i16 at 0, [2 x %S] at 8 (element 1 at 40, its array at 52, element 2 at 60),
    // <2 x float> at 72.
    assert_eq!(
        report.params[0].reads,
        [
            (Some(60), "i32".to_string()),
            (None, "i32".to_string()),
            (Some(72), "<2 x float>".to_string())
        ]
    );
    let k = function_text(&m, "k");
    assert!(
        k.contains(
            "%d.param = getelementptr inbounds [4 x i32], ptr addrspace(101) %o.param.52, i32 0, i32 %i"
        ),
        "{k}"
    );
    assert!(!k.contains("ptr %o, i32"), "{k}");
    let dev = function_text(&m, "dev");
    assert!(
        dev.contains("%\"0.param\" = addrspacecast ptr %0 to ptr addrspace(101)")
            && dev.contains("call void @consume(ptr %1)")
            && !dev.contains("%\"1.param\""),
        "{dev}"
    );
    let lowered = m.print();
    assemble(&lowered);
    let (Some(before), Some(after)) = (llc_ptx(&original), llc_ptx(&lowered)) else {
        return;
    };
    assert_eq!(reads(&before), reads(&after));
    let k = ptx::read(&after)
        .into_iter()
        .find(|f| f.name == "k")
        .unwrap();
    assert_eq!(k.dynamic_reads, 1, "{after}");
    assert!(!k.local_depot, "{after}");
}

#[test]
fn refused_uses_name_the_instruction_and_change_nothing() {
    let cases = [
        (
            "  %p = getelementptr %S, ptr %s, i32 0, i32 1\n  store i8 1, ptr %p\n",
            "test.ll:12:3: error: `store` writes to byval parameter %s of @k; the parameter space is read-only",
            "store i8 1, ptr %p",
        ),
        (
            "  store ptr %s, ptr @out\n",
            "test.ll:11:3: error: `store` stores the address of byval parameter %s of @k",
            "store ptr %s, ptr @out",
        ),
        (
            "  %a = ptrtoint ptr %s to i64\n",
            "test.ll:11:3: error: `ptrtoint` uses the address of byval parameter %s of @k; the pass rewrites getelementptr, load and call uses only",
            "%a = ptrtoint ptr %s to i64",
        ),
        (
            "  %v = load volatile i8, ptr %s\n",
            "test.ll:11:3: error: a volatile or atomic load from byval parameter %s of @k is not rewritten",
            "%v = load volatile i8, ptr %s",
        ),
        (
            "  call void @llvm.memset.p0.i64(ptr %s, i8 0, i64 4, i1 false)\n",
            "test.ll:11:3: error: the call writes to byval parameter %s of @k",
            "call void @llvm.memset.p0.i64(ptr %s, i8 0, i64 4, i1 false)",
        ),
    ];
    for (body, message, instruction) in cases {
        // A rewritable load first: the refusal must not leave it half done.
        let text = format!(
            "define ptx_kernel void @k(ptr byval(%S) align 8 %s) {{\n  %ok = load double, ptr %s\n{body}  ret void\n}}\n\ndeclare void @llvm.memset.p0.i64(ptr, i8, i64, i1)\n"
        );
        let mut m = parse(&text);
        let before = m.print();
        let error = struct_args::run(&mut m, &Config::default()).unwrap_err();
        let shown = error.to_string();
        assert!(
            shown.starts_with(message),
            "{shown}\n--- expected ---\n{message}"
        );
        assert!(shown.ends_with(&format!("\n  {instruction}")), "{shown}");
        assert_eq!(error.diagnostics().len(), 1);
        assert_eq!(m.print(), before, "the module changed");
    }
}

#[test]
fn escape_needs_cvta_param() {
    let mut m = parse(BYVAL_ESCAPE);
    let config = Config {
        sm: 60,
        ..Config::default()
    };
    let error = struct_args::run(&mut m, &config).unwrap_err();
    assert!(
        error.to_string().starts_with(
            "test.ll:11:3: error: the address of byval parameter %s of kernel @k escapes into a call; taking it in place needs cvta.param (sm_70 and later), and the target is sm_60"
        ),
        "{error}"
    );
}

#[test]
fn disabled_and_second_runs_change_nothing() {
    let mut m = parse(&format!(
        "{BYVAL_EXAMPLE}\n{}",
        BYVAL_ESCAPE.replace("@k(", "@k2(")
    ));
    let before = m.print();
    let off = Config {
        opt_byval: false,
        ..Config::default()
    };
    let report = struct_args::run(&mut m, &off).unwrap();
    assert!(report.params.iter().all(|p| p.action == Action::Disabled));
    assert!(!report.changed());
    assert_eq!(m.print(), before);

    let on = Config::default();
    assert!(struct_args::run(&mut m, &on).unwrap().changed());
    let once = m.print();
    let again = struct_args::run(&mut m, &on).unwrap();
    assert!(!again.changed(), "{again:#?}");
    assert_eq!(m.print(), once);
}

#[test]
fn other_parameters_and_types_are_untouched() {
    let mut m = parse(
        "define void @f(ptr %p, i32 %x) {\n  %v = load i32, ptr %p\n  store i32 %v, ptr @out\n  ret void\n}\n",
    );
    let before = m.print();
    let report = struct_args::run(&mut m, &Config::default()).unwrap();
    assert!(report.params.is_empty());
    assert_eq!(m.print(), before);
    assert_eq!(m.types().get(TypeId::I8), fmtstr_ir::Type::Int { bits: 8 });
}

/// Lowers `original`, and checks that llvm-as accepts the output, that llc compiles it, that
/// escaping kernels take the address with cvta.param, and that every kernel's `ld.param`
/// reads (offset, width, arity) equal those of the original compiled by llc, where escaping
/// parameters are made grid constants (llc's own lowering then reads them in place, without
/// a copy: a copy would read every field). Returns the kernels and reads compared.
fn judge(llc: &std::path::Path, name: &str, original: &Module) -> (usize, usize) {
    let mut lowered = original.clone();
    let report = struct_args::run(&mut lowered, &Config::default())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert!(report.changed(), "{name}");
    let out = lowered.print();
    assemble(&out);
    let mut reference = original.clone();
    let mut escaping = Vec::new();
    for p in report
        .params
        .iter()
        .filter(|p| p.action == Action::GridConstant)
    {
        let f = reference.function_by_name(&p.function).unwrap();
        let symbol = reference.function(f).name_str().into_owned();
        fmtstr_nvptx::annotations::add_grid_constants(&mut reference, f, &[p.index]);
        escaping.push(symbol);
    }
    let want = common::llc(llc, &reference.print(), 90).unwrap();
    let got = common::llc(llc, &out, 90).unwrap_or_else(|e| panic!("{name}: {e}"));
    common::ptxas_accepts(&got);
    for f in ptx::read(&got) {
        if escaping.contains(&f.name) {
            assert!(f.cvta_param >= 1, "{name}: @{} has no cvta.param", f.name);
        }
    }
    let want = reads(&want);
    let got = reads(&got);
    assert_eq!(got.len(), want.len(), "{name}");
    let mut compared = 0;
    for ((name_a, a), (name_b, b)) in got.iter().zip(&want) {
        assert_eq!(name_a, name_b);
        assert_eq!(a, b, "{name}: @{name_a}");
        compared += a.len();
    }
    (got.len(), compared)
}

/// Generated kernels: nested structs, arrays, vectors, packed structs, GEP chains of one
/// and two steps, run-time array indices, alignments 1 to 16, and escapes.
#[test]
fn generated_kernels_read_what_the_original_reads() {
    for llvm in Llvm::ALL {
        eprintln!("{llvm}");
        generated_kernels_read_what_the_original_reads_with(llvm);
    }
}

fn generated_kernels_read_what_the_original_reads_with(llvm: Llvm) {
    let (Some(llc), Some(_)) = (
        require_llvm(llvm, Tool::Llc),
        require_llvm(llvm, Tool::LlvmAs),
    ) else {
        return;
    };
    let mut kernels = 0;
    let mut compared = 0;
    let seeds: u64 = std::env::var("FMTSTR_SEEDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(4);
    for seed in 0..seeds {
        let (text, _) = common::gen::struct_args_module(seed, 40);
        let name = format!("sa{seed}.ll");
        let original = Module::parse(&name, text).unwrap_or_else(|e| panic!("{e}"));
        let (k, c) = judge(&llc, &name, &original);
        // Generated kernels have no locals at all.
        let mut lowered = original.clone();
        struct_args::run(&mut lowered, &Config::default()).unwrap();
        let got = common::llc(&llc, &lowered.print(), 90).unwrap();
        assert!(!got.contains("__local_depot"), "{name}");
        kernels += k;
        compared += c;
    }
    assert!(kernels >= 150, "{kernels} kernels");
    eprintln!("{kernels} kernels, {compared} ld.param reads compared");
}

/// clang 19's CUDA output (samples/abi/kernel.cu at -O1, and at -O0 with debug records):
/// kernels marked in `!nvvm.annotations`, numbered values, `#dbg_declare` of the parameter.
#[test]
fn clang_kernels_read_what_the_original_reads() {
    for llvm in Llvm::ALL {
        let (Some(llc), Some(_)) = (
            require_llvm(llvm, Tool::Llc),
            require_llvm(llvm, Tool::LlvmAs),
        ) else {
            continue;
        };
        clang_kernels_read_what_the_original_reads_with(&llc);
    }
}

fn clang_kernels_read_what_the_original_reads_with(llc: &std::path::Path) {
    for sample in ["kernel-O1.ll", "kernel-O0-g.ll"] {
        let path = format!("{}/../../samples/abi/{sample}", env!("CARGO_MANIFEST_DIR"));
        let text = std::fs::read(&path).unwrap();
        let original = Module::parse(sample, text).unwrap();
        let (kernels, _) = judge(llc, sample, &original);
        assert_eq!(kernels, 2, "{sample}");
    }
}
