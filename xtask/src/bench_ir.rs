//! Not built yet: issue 4.

pub fn run() -> anyhow::Result<()> {
    anyhow::bail!("not built yet: see issue 4")
}
