//! `fmtstr lower` (issue 5; not built yet).

use crate::Outcome;

/// Not built yet (issue 5).
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<Outcome> {
    anyhow::bail!("`fmtstr lower` is not built yet (issue 5)")
}
