//! Not built yet: issue 5.

pub fn run() -> anyhow::Result<()> {
    anyhow::bail!("not built yet: see issue 5")
}
