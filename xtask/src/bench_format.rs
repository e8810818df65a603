pub fn run(_entries: usize) -> anyhow::Result<()> {
    anyhow::bail!("todo")
}
