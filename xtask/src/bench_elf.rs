//! Not built yet: issue 3.

pub fn run() -> anyhow::Result<()> {
    anyhow::bail!("not built yet: see issue 3")
}
