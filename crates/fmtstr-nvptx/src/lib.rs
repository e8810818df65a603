//! The NVPTX parameter ABI: the byval struct-argument pass and the PTX `.param` planner.
//!
//! Two halves, one [`Config`]:
//!
//! - [`struct_args`] (seed 002): byval aggregate parameters are read in place from the
//!   parameter space (`addrspacecast ptr %s to ptr addrspace(101)` plus loads at DataLayout
//!   offsets), and a kernel parameter whose address escapes becomes a `grid_constant`, so
//!   that llc neither copies it into local memory nor loses its `.param` declaration.
//! - [`abi`] (seed 003): for every function definition, declaration and call site, the PTX
//!   that llc 19 writes for parameters and return values: the `.param` declarations, the
//!   value parts and their v2/v4 grouping, every `ld.param`/`st.param` (offset, width,
//!   vector arity), the call envelope, and the mnemonic of every atomic.
//!
//! Both read [`Config::opt_byval`] from the same value (seed 002's lockstep rule): the
//! planner describes the module as llc sees it after the pass ran with that configuration.
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

pub mod abi;
pub mod annotations;
mod config;
pub mod parts;
pub mod ptx;
pub mod struct_args;

pub use config::Config;
