//! The SPIR-V samples' recipes (`samples/spirv/recipes.tsv`), shared by `cargo xtask samples`,
//! which writes the committed `.spv` files, and the tests, which rebuild them to check that the
//! committed files are what the tools make today.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{workspace_root, Tool};

/// One line of `recipes.tsv`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Recipe {
    /// The `.spv` file it makes.
    pub output: String,
    /// spirv-val's `--target-env` for the output.
    pub target_env: String,
    /// glslangValidator, spirv-opt or spirv-link.
    pub tool: Tool,
    /// Its arguments (inputs are file names in the samples directory); `-o OUTPUT` follows.
    pub args: Vec<String>,
}

/// The directory of the SPIR-V samples.
pub fn samples_dir() -> PathBuf {
    workspace_root().join("samples/spirv")
}

/// The recipes, in build order.
pub fn recipes() -> Result<Vec<Recipe>, String> {
    let path = samples_dir().join("recipes.tsv");
    let text = std::fs::read_to_string(&path)
        .map_err(|error| format!("cannot read {}: {error}", path.display()))?;
    let mut recipes = Vec::new();
    for (number, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let [output, target_env, tool, args] = fields[..] else {
            return Err(format!(
                "{}:{}: expected 4 tab-separated fields (output, target env, tool, arguments)",
                path.display(),
                number + 1
            ));
        };
        let tool = match tool {
            "glslangValidator" => Tool::GlslangValidator,
            "spirv-opt" => Tool::SpirvOpt,
            "spirv-link" => Tool::SpirvLink,
            other => {
                return Err(format!(
                    "{}:{}: tool `{other}` is not glslangValidator, spirv-opt or spirv-link",
                    path.display(),
                    number + 1
                ))
            }
        };
        recipes.push(Recipe {
            output: output.to_string(),
            target_env: target_env.to_string(),
            tool,
            args: args.split_whitespace().map(str::to_string).collect(),
        });
    }
    Ok(recipes)
}

/// Builds every recipe into `out` (inputs are read from the samples directory, or from `out`
/// when an earlier recipe made them) and validates each output with spirv-val. Returns the
/// outputs in order. The tools must be installed.
pub fn build(out: &Path) -> Result<Vec<PathBuf>, String> {
    let source = samples_dir();
    let mut outputs = Vec::new();
    for recipe in recipes()? {
        let mut command = recipe
            .tool
            .command()
            .ok_or_else(|| format!("{} is not installed", recipe.tool))?;
        command.current_dir(&source);
        for arg in &recipe.args {
            let made = out.join(arg);
            if made.is_file() && !arg.starts_with('-') {
                command.arg(made);
            } else {
                command.arg(arg);
            }
        }
        let output = out.join(&recipe.output);
        command.arg("-o").arg(&output);
        run(&mut command)?;
        let mut validate = Tool::SpirvVal
            .command()
            .ok_or_else(|| "spirv-val is not installed".to_string())?;
        run(validate
            .arg("--target-env")
            .arg(&recipe.target_env)
            .arg(&output))?;
        outputs.push(output);
    }
    Ok(outputs)
}

fn run(command: &mut Command) -> Result<(), String> {
    let result = command
        .output()
        .map_err(|error| format!("cannot run {command:?}: {error}"))?;
    if !result.status.success() {
        return Err(format!(
            "{command:?} failed ({}):\n{}{}",
            result.status,
            String::from_utf8_lossy(&result.stdout),
            String::from_utf8_lossy(&result.stderr)
        ));
    }
    Ok(())
}

/// What the lavapipe end-to-end test needs from Debian: the Vulkan loader and headers
/// (libvulkan-dev), the validation layers (vulkan-validationlayers) and Mesa's CPU driver
/// (mesa-vulkan-drivers), all installed by `cargo xtask oracles`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Lavapipe {
    /// lavapipe's ICD manifest, for `VK_ICD_FILENAMES`.
    pub icd: PathBuf,
}

/// The files each package leaves.
const LAVAPIPE_FILES: [&str; 4] = [
    "/usr/include/vulkan/vulkan.h",
    "/usr/lib/x86_64-linux-gnu/libvulkan.so",
    "/usr/share/vulkan/explicit_layer.d/VkLayer_khronos_validation.json",
    "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json",
];

/// lavapipe and the validation layers for a test: present, or a failure under `CI=true` and a
/// skip elsewhere (as for a missing tool).
pub fn require_lavapipe() -> Option<Lavapipe> {
    let missing: Vec<&str> = LAVAPIPE_FILES
        .into_iter()
        .filter(|file| !Path::new(file).is_file())
        .collect();
    if missing.is_empty() {
        return Some(Lavapipe {
            icd: PathBuf::from(LAVAPIPE_FILES[3]),
        });
    }
    let message = format!(
        "Vulkan on lavapipe needs {missing:?}; install the oracles with `{}`",
        crate::INSTALL_COMMAND
    );
    if crate::in_ci() {
        panic!("{message} (CI=true: an oracle test must not skip)");
    }
    eprintln!("skipping: {message}");
    None
}

/// Whether everything [`require_lavapipe`] looks for is installed.
pub fn lavapipe_installed() -> bool {
    LAVAPIPE_FILES
        .into_iter()
        .all(|file| Path::new(file).is_file())
}
