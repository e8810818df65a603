//! Not built yet: issue 6.

pub fn run() -> anyhow::Result<()> {
    anyhow::bail!("not built yet: see issue 6")
}
