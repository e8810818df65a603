//! `cargo xtask ci`: exactly what CI runs.

pub fn run() -> anyhow::Result<()> {
    anyhow::bail!("todo")
}
