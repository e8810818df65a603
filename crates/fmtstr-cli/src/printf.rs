use crate::Outcome;
#[derive(clap::Args, Debug)]
pub struct Args {}
pub fn run(_args: Args) -> anyhow::Result<Outcome> {
    anyhow::bail!("soon")
}
