//! The NVPTX settings `fmtstr lower --pass struct-args` and `fmtstr abi` share.
//!
//! The struct-args pass and the `.param` planner must read one `opt_byval` setting (they move
//! in lockstep); both commands flatten these same arguments and build their one `Config` here.

use fmtstr_nvptx::Config;

#[derive(clap::Args, Debug, Clone, Copy)]
pub struct NvptxArgs {
    /// The SM version llc compiles for (-mcpu=sm_N); decides which atomics are native and
    /// whether a kernel parameter's address can be taken in place (sm_70 and later).
    #[arg(long, value_name = "N", default_value_t = 90, value_parser = clap::value_parser!(u32).range(20..=200))]
    sm: u32,
    /// opt-byval off: byval parameters are left for llc, which copies those whose
    /// address escapes into local memory.
    #[arg(long)]
    no_opt_byval: bool,
}

impl NvptxArgs {
    pub fn config(self) -> Config {
        Config {
            opt_byval: !self.no_opt_byval,
            sm: self.sm,
            ..Config::default()
        }
    }
}
