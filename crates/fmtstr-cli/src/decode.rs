//! `fmtstr decode` (issue 6; not built yet).

use crate::Outcome;

/// Not built yet (issue 6).
#[derive(clap::Args, Debug)]
pub struct Args {}

pub fn run(_args: Args) -> anyhow::Result<Outcome> {
    anyhow::bail!("`fmtstr decode` is not built yet (issue 6)")
}
