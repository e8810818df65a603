//! The reader against the real tools: the committed samples are what glslangValidator and
//! spirv-opt make today (and pass spirv-val), and for every DebugPrintf call of every sample the
//! format, argument count, 64-bit mask, source line and entry points fmtstr reads equal what an
//! independent reading of `spirv-dis --raw-id` gives.

use std::collections::HashMap;
use std::path::PathBuf;
use std::process::Command;

use fmtstr_meta::{FormatId, Mask};
use fmtstr_oracles::{require, spirv, Tool};

/// One instruction of the disassembly: its result id (if any), opcode name and operands
/// (`%N` ids keep their `%`; strings are unquoted and unescaped).
#[derive(Debug)]
struct DisInst {
    result: Option<String>,
    opcode: String,
    operands: Vec<Token>,
}

#[derive(Debug, Clone, PartialEq)]
enum Token {
    Word(String),
    Str(Vec<u8>),
}

impl Token {
    fn word(&self) -> &str {
        match self {
            Token::Word(word) => word,
            Token::Str(_) => "",
        }
    }
}

/// Splits spirv-dis text into instructions: a string may span lines, and spirv-dis escapes only
/// `"` and `\` inside it.
fn disassembly(text: &str) -> Vec<DisInst> {
    let bytes = text.as_bytes();
    let mut lines: Vec<Vec<Token>> = vec![Vec::new()];
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'\n' => {
                lines.push(Vec::new());
                i += 1;
            }
            b';' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'"' => {
                i += 1;
                let mut string = Vec::new();
                while bytes[i] != b'"' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    string.push(bytes[i]);
                    i += 1;
                }
                i += 1;
                lines.last_mut().unwrap().push(Token::Str(string));
            }
            _ => {
                let start = i;
                while i < bytes.len() && !bytes[i].is_ascii_whitespace() {
                    i += 1;
                }
                lines
                    .last_mut()
                    .unwrap()
                    .push(Token::Word(text[start..i].to_string()));
            }
        }
    }
    lines
        .into_iter()
        .filter(|tokens| !tokens.is_empty())
        .map(|tokens| {
            if tokens.len() > 2 && tokens[1] == Token::Word("=".into()) {
                DisInst {
                    result: Some(tokens[0].word().to_string()),
                    opcode: tokens[2].word().to_string(),
                    operands: tokens[3..].to_vec(),
                }
            } else {
                DisInst {
                    result: None,
                    opcode: tokens[0].word().to_string(),
                    operands: tokens[1..].to_vec(),
                }
            }
        })
        .collect()
}

/// What the disassembly says about one call.
#[derive(Debug, PartialEq)]
struct Expected {
    format: Vec<u8>,
    argument_count: u64,
    mask: Vec<u64>,
    line: Option<u32>,
    entry_points: Vec<String>,
}

/// The calls of a module, read from its disassembly alone.
fn expected_calls(dis: &[DisInst]) -> Vec<Expected> {
    let mut strings: HashMap<&str, Vec<u8>> = HashMap::new();
    let mut printf_sets = Vec::new();
    let mut widths: HashMap<&str, (char, u32)> = HashMap::new();
    let mut vectors: HashMap<&str, &str> = HashMap::new();
    let mut value_type: HashMap<&str, &str> = HashMap::new();
    let mut constants: HashMap<&str, u32> = HashMap::new();
    let mut entries: Vec<(String, String)> = Vec::new();
    let mut calls = Vec::new();
    let mut callers: HashMap<String, Vec<String>> = HashMap::new();
    let mut function = String::new();
    let mut line: Option<(Option<String>, u32)> = None;
    for inst in dis {
        let result = inst.result.as_deref().unwrap_or("");
        let operand = |i: usize| inst.operands.get(i).map(Token::word).unwrap_or("");
        match inst.opcode.as_str() {
            "OpString" => {
                if let Some(Token::Str(text)) = inst.operands.first() {
                    strings.insert(result, text.clone());
                }
            }
            "OpExtInstImport"
                if inst.operands.first()
                    == Some(&Token::Str(b"NonSemantic.DebugPrintf".to_vec())) =>
            {
                printf_sets.push(result.to_string());
            }
            "OpEntryPoint" => {
                if let Some(Token::Str(name)) = inst.operands.get(2) {
                    entries.push((
                        operand(1).to_string(),
                        format!("{} {}", operand(0), String::from_utf8_lossy(name)),
                    ));
                }
            }
            "OpTypeInt" => {
                widths.insert(result, ('i', operand(0).parse().unwrap()));
            }
            "OpTypeFloat" => {
                widths.insert(result, ('f', operand(0).parse().unwrap()));
            }
            "OpTypeBool" => {
                widths.insert(result, ('b', 1));
            }
            "OpTypeVector" => {
                vectors.insert(result, operand(0));
            }
            "OpFunction" => {
                function = result.to_string();
                line = None;
            }
            "OpFunctionEnd"
            | "OpNoLine"
            | "OpBranch"
            | "OpBranchConditional"
            | "OpSwitch"
            | "OpReturn"
            | "OpReturnValue"
            | "OpKill"
            | "OpUnreachable" => line = None,
            "OpLine" => {
                line = Some((
                    strings
                        .get(operand(0))
                        .map(|s| String::from_utf8_lossy(s).into_owned()),
                    operand(1).parse().unwrap(),
                ));
            }
            "OpFunctionCall" => {
                callers
                    .entry(operand(1).to_string())
                    .or_default()
                    .push(function.clone());
            }
            _ => {}
        }
        if inst.opcode == "OpConstant" {
            if let Ok(value) = operand(1).parse::<u32>() {
                constants.insert(result, value);
            }
        }
        if inst.result.is_some()
            && !inst.opcode.starts_with("OpType")
            && inst.opcode != "OpString"
            && inst.opcode != "OpExtInstImport"
            && inst.opcode != "OpLabel"
        {
            value_type.insert(result, operand(0));
        }
        if inst.opcode == "OpExtInst" {
            match operand(2) {
                "DebugLine" => line = Some((None, constants[operand(4)])),
                "DebugNoLine" => line = None,
                "1" if printf_sets.iter().any(|set| set == operand(1)) => {
                    let format = strings[operand(3)].clone();
                    let args = &inst.operands[4..];
                    let mut mask = vec![0u64; args.len().div_ceil(64)];
                    for (index, arg) in args.iter().enumerate() {
                        let ty = value_type[arg.word()];
                        let scalar = vectors.get(ty).copied().unwrap_or(ty);
                        let (_, width) = widths[scalar];
                        if width == 64 {
                            mask[index / 64] |= 1 << (index % 64);
                        }
                    }
                    calls.push((
                        function.clone(),
                        Expected {
                            format,
                            argument_count: args.len() as u64,
                            mask,
                            line: line.as_ref().map(|(_, l)| *l).filter(|l| *l != 0),
                            entry_points: Vec::new(),
                        },
                    ));
                }
                _ => {}
            }
        }
    }
    // Entry points: walk callers back from the call's function, once every call is known.
    calls
        .into_iter()
        .map(|(function, mut call)| {
            let mut stack = vec![function.clone()];
            let mut seen = vec![function];
            while let Some(f) = stack.pop() {
                for (entry_function, name) in &entries {
                    if *entry_function == f {
                        call.entry_points.push(name.clone());
                    }
                }
                for caller in callers.get(&f).into_iter().flatten() {
                    if !seen.contains(caller) {
                        seen.push(caller.clone());
                        stack.push(caller.clone());
                    }
                }
            }
            call.entry_points.sort();
            call
        })
        .collect()
}

fn disassemble(path: &PathBuf) -> String {
    let output = Command::new(Tool::SpirvDis.path())
        .arg("--raw-id")
        .arg(path)
        .output()
        .unwrap();
    assert!(output.status.success(), "spirv-dis {}", path.display());
    String::from_utf8(output.stdout).unwrap()
}

fn committed_samples() -> Vec<PathBuf> {
    spirv::recipes()
        .unwrap()
        .into_iter()
        .map(|recipe| spirv::samples_dir().join(recipe.output))
        .collect()
}

/// What fmtstr reads, in the same shape.
fn actual_calls(bytes: &[u8]) -> Vec<Expected> {
    let module = fmtstr_spirv::read(bytes).unwrap();
    module
        .calls
        .iter()
        .map(|call| {
            let entry = fmtstr_spirv::entry(call).unwrap();
            assert_eq!(entry.id(), FormatId::of(&call.format));
            let mut entry_points: Vec<String> = call
                .entry_points
                .iter()
                .map(|&i| {
                    let entry = &module.entry_points[i];
                    format!(
                        "{} {}",
                        fmtstr_spirv::execution_model_name(entry.execution_model),
                        String::from_utf8_lossy(&entry.name)
                    )
                })
                .collect();
            entry_points.sort();
            Expected {
                format: call.format.clone(),
                argument_count: entry.argument_count(),
                mask: entry.mask().words().to_vec(),
                line: call.line.as_ref().map(|l| l.line).filter(|l| *l != 0),
                entry_points,
            }
        })
        .collect()
}

#[test]
fn committed_samples_are_what_the_tools_make() {
    if require(Tool::GlslangValidator).is_none()
        || require(Tool::SpirvOpt).is_none()
        || require(Tool::SpirvVal).is_none()
    {
        return;
    }
    let scratch = std::env::temp_dir().join(format!("fmtstr-spirv-samples-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let built = spirv::build(&scratch).unwrap();
    for path in &built {
        let name = path.file_name().unwrap();
        let committed = std::fs::read(spirv::samples_dir().join(name)).unwrap();
        assert!(
            std::fs::read(path).unwrap() == committed,
            "samples/spirv/{} is stale: run `cargo xtask samples`",
            name.to_string_lossy()
        );
    }
    std::fs::remove_dir_all(&scratch).unwrap();
}

#[test]
fn every_call_agrees_with_spirv_dis() {
    if require(Tool::SpirvDis).is_none() {
        return;
    }
    let mut total = 0;
    for path in committed_samples() {
        let bytes = std::fs::read(&path).unwrap();
        let expected = expected_calls(&disassembly(&disassemble(&path)));
        let actual = actual_calls(&bytes);
        assert_eq!(actual, expected, "{}", path.display());
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains("strip") {
            assert!(
                actual.is_empty(),
                "{name}: stripped calls must not be reported"
            );
        } else {
            assert!(!actual.is_empty(), "{name} has DebugPrintf calls");
        }
        if name == "linked.spv" {
            let models: Vec<&str> = actual
                .iter()
                .map(|call| call.entry_points[0].as_str())
                .collect();
            assert!(models.contains(&"GLCompute main") && models.contains(&"Fragment main"));
        }
        if name.contains(".g") || name.contains(".opt") {
            assert!(
                actual.iter().all(|call| call.line.is_some()),
                "{name}: every call has a source line"
            );
        }
        // The table has one entry per distinct (format, count, mask).
        let module = fmtstr_spirv::read(&bytes).unwrap();
        let table = fmtstr_spirv::table(&module.calls).unwrap();
        let mut distinct: Vec<(&[u8], u64, &[u64])> = expected
            .iter()
            .map(|e| (&e.format[..], e.argument_count, &e.mask[..]))
            .collect();
        distinct.sort();
        distinct.dedup();
        assert_eq!(table.entries.len(), distinct.len(), "{name}");
        total += actual.len();
    }
    assert!(total >= 60, "{total} calls compared");
}

#[test]
fn big_endian_modules_read_the_same() {
    for path in committed_samples() {
        let bytes = std::fs::read(&path).unwrap();
        let swapped: Vec<u8> = bytes
            .chunks_exact(4)
            .flat_map(|word| [word[3], word[2], word[1], word[0]])
            .collect();
        let little = fmtstr_spirv::read(&bytes).unwrap();
        let big = fmtstr_spirv::read(&swapped).unwrap();
        assert_eq!(big.header.endian, fmtstr_spirv::Endian::Big);
        assert_eq!(big.calls, little.calls, "{}", path.display());
    }
}

#[test]
fn sixty_four_bit_arguments_set_their_bits() {
    // From compute.comp's source: `big=%ld mask=%lx` takes an int64_t and a uint64_t, `ids` a
    // u64vec3, `colour=%v4f fine=%v2f` a vec4 and a dvec2, `half` a double, a short and a bool.
    let bytes = std::fs::read(spirv::samples_dir().join("compute.spv")).unwrap();
    let module = fmtstr_spirv::read(&bytes).unwrap();
    let table = fmtstr_spirv::table(&module.calls).unwrap();
    let mask_of = |format: &str| {
        let entry = table.get(FormatId::of(format.as_bytes())).unwrap();
        (entry.argument_count(), entry.mask().clone())
    };
    assert_eq!(
        mask_of("big=%ld mask=%lx\n"),
        (2, Mask::from_words(&[0b11]))
    );
    assert_eq!(mask_of("ids=%v3lu\n"), (1, Mask::from_words(&[0b1])));
    assert_eq!(
        mask_of("colour=%v4f fine=%v2f\n"),
        (2, Mask::from_words(&[0b10]))
    );
    assert_eq!(
        mask_of("half=%f small=%d flag=%u\n"),
        (3, Mask::from_words(&[0b1]))
    );
    assert_eq!(mask_of("no arguments at all"), (0, Mask::from_words(&[])));
}
