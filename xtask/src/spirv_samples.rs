//! `cargo xtask samples`, SPIR-V part: rebuilds `samples/spirv/*.spv` from the GLSL and HLSL
//! sources beside them with glslangValidator and spirv-opt, as `samples/spirv/recipes.tsv`
//! says, validating each with spirv-val.

use anyhow::{bail, Context};
use fmtstr_oracles::{spirv, Tool};

use crate::process;

pub fn run() -> anyhow::Result<()> {
    for tool in [Tool::GlslangValidator, Tool::SpirvOpt, Tool::SpirvVal] {
        if tool.command().is_none() {
            bail!("{tool} is not installed: run `cargo xtask oracles` first");
        }
    }
    let scratch = tempfile::tempdir().context("cannot create a scratch directory")?;
    let outputs = spirv::build(scratch.path()).map_err(anyhow::Error::msg)?;
    let dir = spirv::samples_dir();
    for output in &outputs {
        let name = output.file_name().unwrap_or_default();
        let target = dir.join(name);
        let bytes = std::fs::read(output)?;
        if std::fs::read(&target).ok().as_deref() != Some(&bytes[..]) {
            std::fs::write(&target, &bytes)
                .with_context(|| format!("cannot write {}", target.display()))?;
            eprintln!("updated {}", process::relative(&target));
        }
    }
    eprintln!("samples/spirv: {} modules regenerated", outputs.len());
    Ok(())
}
