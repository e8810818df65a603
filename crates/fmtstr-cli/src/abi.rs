//! `fmtstr abi` (issue 7; not built yet).

use crate::Outcome;

/// Not built yet (issue 7).
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<Outcome> {
    anyhow::bail!("`fmtstr abi` is not built yet (issue 7)")
}
