//! `cargo xtask samples`: regenerate the bundled samples from their sources with the real tools.

pub fn run() -> anyhow::Result<()> {
    anyhow::bail!("no generated samples yet")
}
