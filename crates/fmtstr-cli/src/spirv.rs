//! `fmtstr check FILE.spv`: the NonSemantic.DebugPrintf calls of a Vulkan shader against their
//! argument types: whether the argument names a module. The check is fmtstr_tools::check's.

use std::path::Path;

use fmtstr_tools::spirv::is_spirv;

/// Whether `fmtstr check`'s FORMAT argument names a SPIR-V module: an existing file that starts
/// with the magic number, or a name ending in `.spv` (whose reading errors say what is wrong).
pub fn names_module(argument: &str) -> bool {
    let path = Path::new(argument);
    if argument.to_ascii_lowercase().ends_with(".spv") {
        return true;
    }
    let mut magic = [0u8; 4];
    std::fs::File::open(path)
        .and_then(|mut file| std::io::Read::read_exact(&mut file, &mut magic))
        .is_ok()
        && is_spirv(&magic)
}
