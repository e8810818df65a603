//! The NVPTX parameter ABI: the byval struct-argument pass and the PTX `.param` planner.
//!
//! Two halves, one [`Config`]:
//!
//! - [`struct_args`]: byval aggregate parameters are read in place from the
//!   parameter space (`addrspacecast ptr %s to ptr addrspace(101)` plus loads at DataLayout
//!   offsets), and a kernel parameter whose address escapes becomes a `grid_constant`, so
//!   that llc neither copies it into local memory nor loses its `.param` declaration.
//! - [`abi`]: for every function definition, declaration and call site, the PTX
//!   that llc 19 writes for parameters and return values: the `.param` declarations, the
//!   value parts and their v2/v4 grouping, every `ld.param`/`st.param` (offset, width,
//!   vector arity), the call envelope, and the mnemonic of every atomic.
//!
//! Both read [`Config::opt_byval`] from the same value (the two move in lockstep): the
//! planner describes the module as llc sees it after the pass ran with that configuration.
//! [`ptx`] reads llc's PTX back and compares it with a plan (`fmtstr abi --check`).
//!
//! Where llc 19 differs from the NVPTX ABI as first proposed (every point measured; the tests hold them):
//!
//! - The proposal changes the parameter to `ptr addrspace(101) %s.param` and calls
//!   `llvm.nvvm.ldparam.*` / `llvm.nvvm.cvt.generic.to.as`, which do not exist; changing the
//!   parameter's type would also change the PTX signature. The parameter stays
//!   `ptr byval(%S)`, a cast names its param-space view `%s.param`, and loads read through it.
//!   `{double, i8, [4 x i32]}` is 32 bytes (the proposal said 28).
//! - The proposal's cast-only path: a module that already calls
//!   `@llvm.nvvm.ptr.param.to.gen.p0.p101` on a byval parameter breaks llc 19 (on a grid
//!   constant its own lowering fails the verifier; otherwise it applies `cvta.param` to the
//!   address of a local copy). The pass makes the parameter a `grid_constant` and llc inserts
//!   that intrinsic itself. Device-function parameters cannot be addressed in place at all.
//! - The proposed `<func>_vararg` does not exist: llc 19 passes `...` as a pointer to a buffer
//!   (one more `.b64` parameter). `"nvptx-libcall-callee"="true"` marks runtime-library
//!   callees, not indirect-call wrappers (those use `.callprototype`). Vector atomics are
//!   never refused (`vector atomics not supported on this architecture!`): they are CAS loops.
//!   Call-sequence numbers count over the whole module.
//!
//! ```
//! use fmtstr_ir::Module;
//! use fmtstr_nvptx::{abi, struct_args, Config};
//!
//! let text = r#"
//! %S = type { double, i8, [4 x i32] }
//! @out = global i32 0
//! define ptx_kernel void @k(ptr byval(%S) align 8 %s) {
//!   %p = getelementptr %S, ptr %s, i32 0, i32 2, i32 3
//!   %v = load i32, ptr %p
//!   store i32 %v, ptr @out
//!   ret void
//! }
//! "#;
//! let mut module = Module::parse("k.ll", text).unwrap();
//! let config = Config::default();
//! let plan = abi::plan(&module, &config);
//! assert_eq!(plan.functions[0].params[0].declaration, ".param .align 8 .b8 k_param_0[32]");
//! let report = struct_args::run(&mut module, &config).unwrap();
//! assert_eq!(report.params[0].reads, [(Some(24), "i32".to_string())]);
//! let out = String::from_utf8(module.print()).unwrap();
//! assert!(out.contains("%s.param = addrspacecast ptr %s to ptr addrspace(101)"));
//! assert!(out.contains("getelementptr inbounds i8, ptr addrspace(101) %s.param, i64 24"));
//! ```

#![warn(missing_docs)]

pub mod abi;
pub mod annotations;
mod config;
pub mod parts;
pub mod ptx;
pub mod struct_args;

pub use config::{target_layout, Config, Llc, NVPTX64_DATA_LAYOUT};
