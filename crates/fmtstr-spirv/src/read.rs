//! The reader: one pass over the instructions, then resolution of what the calls refer to.
//!
//! Nothing in the file is trusted. Instructions are walked by their word count (unknown opcodes
//! are skipped whole); every id the reader interprets must be below the header's bound;
//! literal strings must end inside their instruction; maps are keyed by id and grow with the
//! instructions actually present, never with the header's bound.

use std::collections::HashMap;

use fmtstr_format::{ArgType, ScalarType};

use crate::error::{SpirvError, MAX_ID_BOUND};

/// The SPIR-V magic number.
pub const MAGIC: u32 = 0x0723_0203;

/// The import name of the debug printf instruction set.
pub const DEBUG_PRINTF_SET: &[u8] = b"NonSemantic.DebugPrintf";
/// The import name of the shader debug-info set that carries `DebugLine`.
pub const SHADER_DEBUG_INFO_SET: &[u8] = b"NonSemantic.Shader.DebugInfo.100";
/// `DebugPrintf`'s instruction number in its set.
pub const DEBUG_PRINTF: u32 = 1;

mod op {
    pub const NAME: u16 = 5;
    pub const STRING: u16 = 7;
    pub const LINE: u16 = 8;
    pub const EXT_INST_IMPORT: u16 = 11;
    pub const EXT_INST: u16 = 12;
    pub const ENTRY_POINT: u16 = 15;
    pub const TYPE_BOOL: u16 = 20;
    pub const TYPE_INT: u16 = 21;
    pub const TYPE_FLOAT: u16 = 22;
    pub const TYPE_VECTOR: u16 = 23;
    pub const TYPE_POINTER: u16 = 32;
    pub const TYPE_FORWARD_POINTER: u16 = 39;
    pub const CONSTANT: u16 = 43;
    pub const FUNCTION: u16 = 54;
    pub const FUNCTION_END: u16 = 56;
    pub const FUNCTION_CALL: u16 = 57;
    pub const NO_LINE: u16 = 317;
}

/// `DebugSource`, `DebugLine` and `DebugNoLine` in NonSemantic.Shader.DebugInfo.100.
const DEBUG_SOURCE: u32 = 35;
const DEBUG_LINE: u32 = 103;
const DEBUG_NO_LINE: u32 = 104;
/// The `PhysicalStorageBuffer` storage class: the only pointers that hold an address.
const PHYSICAL_STORAGE_BUFFER: u32 = 5349;
/// Work budget for the entry-point reachability walk.
const CALL_GRAPH_BUDGET: u64 = 1 << 26;

/// The byte order of the module's words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    /// The magic number reads `03 02 23 07`: least significant byte first.
    Little,
    /// The magic number reads `07 23 02 03`: most significant byte first.
    Big,
}

/// The five header words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The byte order the magic number revealed; every word of the module is read in it.
    pub endian: Endian,
    /// SPIR-V version (major, minor).
    pub version: (u8, u8),
    /// The generator's magic (tool id in the high 16 bits).
    pub generator: u32,
    /// Every id is below this (at most [`MAX_ID_BOUND`](crate::MAX_ID_BOUND)).
    pub bound: u32,
    /// The instruction schema word, reserved by SPIR-V (0); kept as read, never checked.
    pub schema: u32,
}

/// An argument's type, as far as printf is concerned.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArgKind {
    /// A scalar or vector printf can print, spelled as LLVM IR would (`OpTypeBool` is `i1`, a
    /// `PhysicalStorageBuffer` pointer is `ptr`).
    Value(ArgType),
    /// A type printf cannot print (a struct, an array, a logical pointer...): its opcode name.
    Unsupported(String),
    /// The id has no type the reader found (a forward reference or an unknown instruction).
    Unknown,
}

/// One argument of a call.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Argument {
    /// The operand id.
    pub id: u32,
    /// What the operand's type is, as far as printf is concerned.
    pub kind: ArgKind,
}

/// A source position from `OpLine` or `DebugLine`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLine {
    /// The file name, when the `OpString` naming it was found.
    pub file: Option<Vec<u8>>,
    /// The line number as the module states it (compilers count from 1).
    pub line: u32,
    /// The column as the module states it (`DebugLine`'s start column); 0 when not given.
    pub column: u32,
}

/// A function of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Function {
    /// The `OpFunction`'s result id.
    pub id: u32,
    /// Its `OpName`, if any.
    pub name: Option<Vec<u8>>,
}

/// An `OpEntryPoint`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EntryPoint {
    /// The execution model number (0 Vertex ... 5 GLCompute ...).
    pub execution_model: u32,
    /// The function's id.
    pub function: u32,
    /// The entry point's name as the module spells it (without the terminating NUL).
    pub name: Vec<u8>,
}

/// One `OpExtInst %void %DebugPrintf 1 %format args...`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Call {
    /// Byte offset of the `OpExtInst` in the file.
    pub offset: usize,
    /// The format's `OpString` id.
    pub format_id: u32,
    /// The format's bytes (without the terminating NUL), exactly as the module holds them.
    pub format: Vec<u8>,
    /// The operands after the format, in call order: the values printf prints.
    pub args: Vec<Argument>,
    /// Index in [`Module::functions`] of the function holding the call (`None` outside any).
    pub function: Option<usize>,
    /// Indexes in [`Module::entry_points`] of the entry points whose call graph reaches it.
    pub entry_points: Vec<usize>,
    /// The source line in effect at the call.
    pub line: Option<SourceLine>,
}

/// What fmtstr reads from a module: its header and its DebugPrintf calls, in module order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Module {
    /// The five header words.
    pub header: Header,
    /// Whether the module imports NonSemantic.DebugPrintf at all.
    pub imports_debug_printf: bool,
    /// Every `OpFunction`, in module order; [`Call::function`] indexes it.
    pub functions: Vec<Function>,
    /// Every `OpEntryPoint`, in module order; [`Call::entry_points`] indexes it.
    pub entry_points: Vec<EntryPoint>,
    /// Every DebugPrintf call, in module order.
    pub calls: Vec<Call>,
}

/// Whether `bytes` start with the SPIR-V magic number, in either byte order.
pub fn is_spirv(bytes: &[u8]) -> bool {
    bytes.len() >= 4 && header_endian(bytes).is_some()
}

fn header_endian(bytes: &[u8]) -> Option<Endian> {
    let first: [u8; 4] = bytes.get(..4)?.try_into().ok()?;
    if u32::from_le_bytes(first) == MAGIC {
        Some(Endian::Little)
    } else if u32::from_be_bytes(first) == MAGIC {
        Some(Endian::Big)
    } else {
        None
    }
}

/// The module's words, in either byte order.
struct Words<'a> {
    bytes: &'a [u8],
    endian: Endian,
}

impl Words<'_> {
    fn len(&self) -> usize {
        self.bytes.len() / 4
    }

    fn get(&self, index: usize) -> u32 {
        let at = index * 4;
        let word: [u8; 4] = self.bytes[at..at + 4].try_into().unwrap_or([0; 4]);
        match self.endian {
            Endian::Little => u32::from_le_bytes(word),
            Endian::Big => u32::from_be_bytes(word),
        }
    }
}

/// One instruction: its opcode and its words (the first one included).
struct Inst<'w, 'a> {
    words: &'w Words<'a>,
    start: usize,
    count: usize,
    bound: u32,
}

impl Inst<'_, '_> {
    fn offset(&self) -> usize {
        self.start * 4
    }

    fn len(&self) -> usize {
        self.count
    }

    fn word(&self, index: usize) -> u32 {
        self.words.get(self.start + index)
    }

    fn need(&self, name: &'static str, needed: usize) -> Result<(), SpirvError> {
        if self.count < needed {
            return Err(SpirvError::TooShort {
                offset: self.offset(),
                name,
                word_count: self.count,
                needed,
            });
        }
        Ok(())
    }

    /// Word `index` as an id, checked against the bound.
    fn id(&self, index: usize) -> Result<u32, SpirvError> {
        let id = self.word(index);
        if id >= self.bound {
            return Err(SpirvError::IdOutOfBound {
                offset: self.offset(),
                id,
                bound: self.bound,
            });
        }
        Ok(id)
    }

    /// The literal string starting at word `index`; returns its bytes and the index of the
    /// first word after it.
    fn string(&self, name: &'static str, index: usize) -> Result<(Vec<u8>, usize), SpirvError> {
        let mut bytes = Vec::new();
        for at in index..self.count {
            // The first character is in the lowest-order octet of the word, in either byte order.
            for byte in self.word(at).to_le_bytes() {
                if byte == 0 {
                    return Ok((bytes, at + 1));
                }
                bytes.push(byte);
            }
        }
        Err(SpirvError::UnterminatedString {
            offset: self.offset(),
            name,
        })
    }
}

/// What the pass records about types.
#[derive(Clone, Copy, Debug)]
enum TypeInfo {
    Bool,
    Int { width: u32 },
    Float { width: u32 },
    Vector { component: u32, count: u32 },
    Pointer { storage_class: u32 },
    Other { opcode: u16 },
}

/// A line position whose operands are resolved after the pass.
#[derive(Clone, Copy, Debug)]
enum PendingLine {
    /// `OpLine %file line column`.
    OpLine { file: u32, line: u32, column: u32 },
    /// `DebugLine %source %line_start %line_end %column_start %column_end` (constant ids).
    DebugLine { source: u32, line: u32, column: u32 },
}

struct PendingCall {
    offset: usize,
    format_id: u32,
    args: Vec<u32>,
    function: Option<usize>,
    line: Option<PendingLine>,
}

/// Reads a module's header and its NonSemantic.DebugPrintf calls.
pub fn read(bytes: &[u8]) -> Result<Module, SpirvError> {
    let (words, header) = read_header(bytes)?;
    let mut pass = Pass::default();
    let mut at = 5;
    while at < words.len() {
        let (inst, opcode) = instruction_at(&words, at, header.bound)?;
        at += inst.len();
        pass.instruction(&inst, opcode)?;
    }
    pass.finish(header)
}

/// Checks the magic number, the word alignment and the id bound, and reads the five header
/// words; the module's words come back in the byte order the magic number revealed.
fn read_header(bytes: &[u8]) -> Result<(Words<'_>, Header), SpirvError> {
    let endian = header_endian(bytes).ok_or(SpirvError::NotSpirv)?;
    if bytes.len() % 4 != 0 {
        return Err(SpirvError::NotWords { len: bytes.len() });
    }
    let words = Words { bytes, endian };
    if words.len() < 5 {
        return Err(SpirvError::HeaderTruncated { words: words.len() });
    }
    let version = words.get(1);
    let bound = words.get(3);
    if bound > MAX_ID_BOUND {
        return Err(SpirvError::BoundTooLarge { bound });
    }
    let header = Header {
        endian,
        version: ((version >> 16) as u8, (version >> 8) as u8),
        generator: words.get(2),
        bound,
        schema: words.get(4),
    };
    Ok((words, header))
}

/// The instruction starting at word `at`, and its opcode; an error when its word count is zero
/// or runs past the end of the module.
fn instruction_at<'w, 'a>(
    words: &'w Words<'a>,
    at: usize,
    bound: u32,
) -> Result<(Inst<'w, 'a>, u16), SpirvError> {
    let first = words.get(at);
    let count = (first >> 16) as usize;
    let opcode = (first & 0xFFFF) as u16;
    if count == 0 {
        return Err(SpirvError::ZeroWordCount { offset: at * 4 });
    }
    if count > words.len() - at {
        return Err(SpirvError::PastEnd {
            offset: at * 4,
            opcode,
            word_count: count,
            remaining: words.len() - at,
        });
    }
    let inst = Inst {
        words,
        start: at,
        count,
        bound,
    };
    Ok((inst, opcode))
}

/// What the pass over the instructions has gathered so far, keyed by id; calls are kept with
/// their operands unresolved until the pass ends, since their strings and types may come later.
#[derive(Default)]
struct Pass {
    /// `OpString` results: id to bytes (without the NUL).
    strings: HashMap<u32, Vec<u8>>,
    /// Ids of the NonSemantic.DebugPrintf imports.
    printf_sets: Vec<u32>,
    /// Ids of the NonSemantic.Shader.DebugInfo.100 imports.
    debug_info_sets: Vec<u32>,
    /// The first `OpName` of each id.
    names: HashMap<u32, Vec<u8>>,
    /// Every type declaration met, by result id.
    types: HashMap<u32, TypeInfo>,
    /// Result id to its type's id, for results whose type was declared before them.
    value_types: HashMap<u32, u32>,
    /// 32-bit integer `OpConstant`s: id to value (`DebugLine`'s line and column are these).
    constants: HashMap<u32, u32>,
    /// `DebugSource` result id to the id of the `OpString` naming its file.
    debug_sources: HashMap<u32, u32>,
    entry_points: Vec<EntryPoint>,
    /// `OpFunction` result ids, in module order.
    function_ids: Vec<u32>,
    /// For each function (indexed as `function_ids`), the ids it calls.
    callees: Vec<Vec<u32>>,
    pending: Vec<PendingCall>,
    /// Index in `function_ids` of the function whose body is being read.
    current_function: Option<usize>,
    /// The line in effect: set by `OpLine` and `DebugLine`, ended by the end of a block.
    line: Option<PendingLine>,
}

impl Pass {
    /// Records what one instruction declares or changes; unknown opcodes only record the type
    /// of their result.
    fn instruction(&mut self, inst: &Inst<'_, '_>, opcode: u16) -> Result<(), SpirvError> {
        match opcode {
            op::STRING => {
                inst.need("OpString", 3)?;
                let id = inst.id(1)?;
                let (text, _) = inst.string("OpString", 2)?;
                self.strings.insert(id, text);
            }
            op::NAME => {
                inst.need("OpName", 3)?;
                let id = inst.id(1)?;
                let (text, _) = inst.string("OpName", 2)?;
                self.names.entry(id).or_insert(text);
            }
            op::EXT_INST_IMPORT => self.import(inst)?,
            op::ENTRY_POINT => self.entry_point(inst)?,
            // Every type declaration: OpTypeVoid .. OpTypePipe, OpTypeForwardPointer and the
            // extensions' types (ray queries, acceleration structures, cooperative matrices,
            // hit objects...).
            19..=39 | 322 | 327 | 4456 | 4472 | 5281 | 5341 | 5358 => {
                self.type_declaration(inst, opcode)?
            }
            op::FUNCTION => self.function(inst)?,
            op::FUNCTION_END => {
                self.current_function = None;
                self.line = None;
            }
            op::FUNCTION_CALL => self.function_call(inst)?,
            op::LINE => {
                inst.need("OpLine", 4)?;
                self.line = Some(PendingLine::OpLine {
                    file: inst.id(1)?,
                    line: inst.word(2),
                    column: inst.word(3),
                });
            }
            op::NO_LINE => self.line = None,
            // Block terminators end the scope of a line.
            249..=255 | 4416 | 4448 | 4449 | 5294 => self.line = None,
            op::EXT_INST => self.ext_inst(inst)?,
            op::CONSTANT => self.constant(inst)?,
            _ => {
                // Instructions with a result type have it in word 1 and their result in word 2.
                // Word 1 is taken as a type only when it names a type declared before (types
                // precede their uses), so instructions without a result are never mistaken.
                if inst.len() >= 3 {
                    self.record_value(inst)?;
                }
            }
        }
        Ok(())
    }

    /// `OpExtInstImport`: remembers the ids of the two sets the reader interprets.
    fn import(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        inst.need("OpExtInstImport", 3)?;
        let id = inst.id(1)?;
        let (name, _) = inst.string("OpExtInstImport", 2)?;
        if name == DEBUG_PRINTF_SET {
            self.printf_sets.push(id);
        } else if name == SHADER_DEBUG_INFO_SET {
            self.debug_info_sets.push(id);
        }
        Ok(())
    }

    fn entry_point(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        inst.need("OpEntryPoint", 4)?;
        let function = inst.id(2)?;
        let (name, _) = inst.string("OpEntryPoint", 3)?;
        self.entry_points.push(EntryPoint {
            execution_model: inst.word(1),
            function,
            name,
        });
        Ok(())
    }

    /// A type declaration: what printf needs of the scalar, vector and pointer types, the
    /// opcode of any other (for the message that rejects it); forward pointers declare nothing.
    fn type_declaration(&mut self, inst: &Inst<'_, '_>, opcode: u16) -> Result<(), SpirvError> {
        match opcode {
            op::TYPE_BOOL => {
                inst.need("OpTypeBool", 2)?;
                self.types.insert(inst.id(1)?, TypeInfo::Bool);
            }
            op::TYPE_INT => {
                inst.need("OpTypeInt", 4)?;
                let width = inst.word(2);
                self.types.insert(inst.id(1)?, TypeInfo::Int { width });
            }
            op::TYPE_FLOAT => {
                inst.need("OpTypeFloat", 3)?;
                let width = inst.word(2);
                self.types.insert(inst.id(1)?, TypeInfo::Float { width });
            }
            op::TYPE_VECTOR => {
                inst.need("OpTypeVector", 4)?;
                let component = inst.id(2)?;
                let count = inst.word(3);
                self.types
                    .insert(inst.id(1)?, TypeInfo::Vector { component, count });
            }
            op::TYPE_POINTER => {
                inst.need("OpTypePointer", 4)?;
                let storage_class = inst.word(2);
                self.types
                    .insert(inst.id(1)?, TypeInfo::Pointer { storage_class });
            }
            op::TYPE_FORWARD_POINTER => {}
            _ => {
                inst.need("type declaration", 2)?;
                self.types.insert(inst.id(1)?, TypeInfo::Other { opcode });
            }
        }
        Ok(())
    }

    /// `OpFunction`: the body that follows belongs to a new function, with no line in effect.
    fn function(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        inst.need("OpFunction", 5)?;
        let id = inst.id(2)?;
        self.record_value(inst)?;
        self.current_function = Some(self.function_ids.len());
        self.function_ids.push(id);
        self.callees.push(Vec::new());
        self.line = None;
        Ok(())
    }

    /// `OpFunctionCall`: an edge of the call graph, from the function being read.
    fn function_call(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        inst.need("OpFunctionCall", 4)?;
        self.record_value(inst)?;
        let callee = inst.id(3)?;
        if let Some(function) = self.current_function {
            self.callees[function].push(callee);
        }
        Ok(())
    }

    /// `OpExtInst`: a DebugPrintf call, a debug-info instruction that places or ends a line,
    /// or an instruction of a set the reader does not interpret.
    fn ext_inst(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        inst.need("OpExtInst", 5)?;
        self.record_value(inst)?;
        let set = inst.id(3)?;
        let instruction = inst.word(4);
        if self.printf_sets.contains(&set) && instruction == DEBUG_PRINTF {
            self.debug_printf(inst)?;
        } else if self.debug_info_sets.contains(&set) {
            self.debug_info(inst, instruction)?;
        }
        Ok(())
    }

    /// `DebugPrintf %format args...`: a call, kept with the function and line in effect.
    fn debug_printf(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        inst.need("DebugPrintf OpExtInst", 6)?;
        let format_id = inst.id(5)?;
        let args = (6..inst.len())
            .map(|index| inst.id(index))
            .collect::<Result<Vec<_>, _>>()?;
        self.pending.push(PendingCall {
            offset: inst.offset(),
            format_id,
            args,
            function: self.current_function,
            line: self.line,
        });
        Ok(())
    }

    /// The debug-info instructions that name a source file or place or end a line.
    fn debug_info(&mut self, inst: &Inst<'_, '_>, instruction: u32) -> Result<(), SpirvError> {
        match instruction {
            DEBUG_SOURCE => {
                inst.need("DebugSource", 6)?;
                self.debug_sources.insert(inst.id(2)?, inst.id(5)?);
            }
            DEBUG_LINE => {
                inst.need("DebugLine", 10)?;
                self.line = Some(PendingLine::DebugLine {
                    source: inst.id(5)?,
                    line: inst.id(6)?,
                    column: inst.id(8)?,
                });
            }
            DEBUG_NO_LINE => self.line = None,
            _ => {}
        }
        Ok(())
    }

    /// `OpConstant`: 32-bit integer values are kept, for the line numbers `DebugLine` names.
    fn constant(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        inst.need("OpConstant", 4)?;
        self.record_value(inst)?;
        if let Some(TypeInfo::Int { width: 32 }) = self.types.get(&inst.word(1)) {
            self.constants.insert(inst.id(2)?, inst.word(3));
        }
        Ok(())
    }

    /// Records `word 2 : word 1` when word 1 is a declared type.
    fn record_value(&mut self, inst: &Inst<'_, '_>) -> Result<(), SpirvError> {
        let ty = inst.word(1);
        if self.types.contains_key(&ty) {
            let id = inst.id(2)?;
            self.value_types.entry(id).or_insert(ty);
        }
        Ok(())
    }

    /// Resolves each call's format, argument types, line and entry points, now that the whole
    /// module has been read.
    fn finish(self, header: Header) -> Result<Module, SpirvError> {
        let functions: Vec<Function> = self
            .function_ids
            .iter()
            .map(|&id| Function {
                id,
                name: self.names.get(&id).cloned(),
            })
            .collect();
        let reach = reachability(
            &self.function_ids,
            &self.callees,
            &self.entry_points,
            &self.pending,
        )?;
        let calls = self
            .pending
            .iter()
            .map(|call| self.resolve_call(call, &reach))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Module {
            header,
            imports_debug_printf: !self.printf_sets.is_empty(),
            functions,
            entry_points: self.entry_points,
            calls,
        })
    }

    /// One call with its format's bytes, its arguments' kinds, its source line and the entry
    /// points that reach it; an error when the format operand is not an `OpString`.
    fn resolve_call(&self, call: &PendingCall, reach: &[Vec<usize>]) -> Result<Call, SpirvError> {
        let Some(format) = self.strings.get(&call.format_id) else {
            return Err(SpirvError::FormatNotString {
                offset: call.offset,
                id: call.format_id,
            });
        };
        let args = call
            .args
            .iter()
            .map(|&id| Argument {
                id,
                kind: self
                    .value_types
                    .get(&id)
                    .map_or(ArgKind::Unknown, |ty| arg_kind(*ty, &self.types)),
            })
            .collect();
        let entry_points = call
            .function
            .map(|function| reach[function].clone())
            .unwrap_or_default();
        Ok(Call {
            offset: call.offset,
            format_id: call.format_id,
            format: format.clone(),
            args,
            function: call.function,
            entry_points,
            line: call.line.and_then(|line| self.resolve_line(line)),
        })
    }

    /// The file name and numbers a line position refers to; `None` when a `DebugLine`'s line
    /// is not a known 32-bit constant. A file that cannot be found is left out.
    fn resolve_line(&self, line: PendingLine) -> Option<SourceLine> {
        match line {
            PendingLine::OpLine { file, line, column } => Some(SourceLine {
                file: self.strings.get(&file).cloned(),
                line,
                column,
            }),
            PendingLine::DebugLine {
                source,
                line,
                column,
            } => Some(SourceLine {
                file: self
                    .debug_sources
                    .get(&source)
                    .and_then(|file| self.strings.get(file))
                    .cloned(),
                line: *self.constants.get(&line)?,
                column: self.constants.get(&column).copied().unwrap_or(0),
            }),
        }
    }
}

/// For each function holding a call, the entry points whose call graph reaches it (walking
/// callers backwards from the function, within a work budget).
fn reachability(
    function_ids: &[u32],
    callees: &[Vec<u32>],
    entry_points: &[EntryPoint],
    calls: &[PendingCall],
) -> Result<Vec<Vec<usize>>, SpirvError> {
    let index: HashMap<u32, usize> = function_ids
        .iter()
        .enumerate()
        .map(|(i, &id)| (id, i))
        .collect();
    let mut callers: Vec<Vec<usize>> = vec![Vec::new(); function_ids.len()];
    for (caller, list) in callees.iter().enumerate() {
        for callee in list {
            if let Some(&callee) = index.get(callee) {
                callers[callee].push(caller);
            }
        }
    }
    let mut entries_of: Vec<Vec<usize>> = vec![Vec::new(); function_ids.len()];
    for (entry, point) in entry_points.iter().enumerate() {
        if let Some(&function) = index.get(&point.function) {
            entries_of[function].push(entry);
        }
    }
    let mut result: Vec<Vec<usize>> = vec![Vec::new(); function_ids.len()];
    let mut done = vec![false; function_ids.len()];
    let mut steps: u64 = 0;
    let mut seen = vec![false; function_ids.len()];
    for call in calls {
        let Some(start) = call.function else { continue };
        if done[start] {
            continue;
        }
        done[start] = true;
        seen.iter_mut().for_each(|s| *s = false);
        steps += function_ids.len() as u64;
        let mut stack = vec![start];
        seen[start] = true;
        let mut reached = Vec::new();
        while let Some(function) = stack.pop() {
            reached.extend_from_slice(&entries_of[function]);
            for &caller in &callers[function] {
                steps += 1;
                if !seen[caller] {
                    seen[caller] = true;
                    stack.push(caller);
                }
            }
            if steps > CALL_GRAPH_BUDGET {
                return Err(SpirvError::CallGraphTooLarge { steps });
            }
        }
        reached.sort_unstable();
        reached.dedup();
        result[start] = reached;
    }
    Ok(result)
}

fn arg_kind(ty: u32, types: &HashMap<u32, TypeInfo>) -> ArgKind {
    let scalar = |ty: u32| -> Result<ScalarType, String> {
        match types.get(&ty) {
            Some(TypeInfo::Bool) => Ok(ScalarType::Int(1)),
            Some(&TypeInfo::Int { width }) if (1..=128).contains(&width) => {
                Ok(ScalarType::Int(width as u16))
            }
            Some(TypeInfo::Float { width: 16 }) => Ok(ScalarType::Half),
            Some(TypeInfo::Float { width: 32 }) => Ok(ScalarType::Float),
            Some(TypeInfo::Float { width: 64 }) => Ok(ScalarType::Double),
            Some(TypeInfo::Pointer {
                storage_class: PHYSICAL_STORAGE_BUFFER,
            }) => Ok(ScalarType::Ptr),
            Some(TypeInfo::Pointer { storage_class }) => Err(format!(
                "OpTypePointer (storage class {storage_class}, which holds no address)"
            )),
            Some(TypeInfo::Int { width }) => Err(format!("OpTypeInt {width}")),
            Some(TypeInfo::Float { width }) => Err(format!("OpTypeFloat {width}")),
            Some(TypeInfo::Vector { .. }) => Err("OpTypeVector of vectors".to_string()),
            Some(TypeInfo::Other { opcode }) => Err(type_name(*opcode)),
            None => Err("an undeclared type".to_string()),
        }
    };
    let kind = match types.get(&ty) {
        Some(&TypeInfo::Vector { component, count }) => match (scalar(component), count) {
            (Ok(ScalarType::Ptr), _) => Err("OpTypeVector of pointers".to_string()),
            (Ok(element), 1..=0xFFFF) => Ok(ArgType::Vector {
                len: count as u16,
                element,
            }),
            (Ok(_), _) => Err(format!("OpTypeVector of {count} components")),
            (Err(what), _) => Err(format!("OpTypeVector of {what}")),
        },
        _ => scalar(ty).map(ArgType::Scalar),
    };
    match kind {
        Ok(ty) => ArgKind::Value(ty),
        Err(what) => ArgKind::Unsupported(what),
    }
}

fn type_name(opcode: u16) -> String {
    match opcode {
        19 => "OpTypeVoid",
        24 => "OpTypeMatrix",
        25 => "OpTypeImage",
        26 => "OpTypeSampler",
        27 => "OpTypeSampledImage",
        28 => "OpTypeArray",
        29 => "OpTypeRuntimeArray",
        30 => "OpTypeStruct",
        31 => "OpTypeOpaque",
        33 => "OpTypeFunction",
        4472 => "OpTypeRayQueryKHR",
        5341 => "OpTypeAccelerationStructureKHR",
        _ => return format!("the type of opcode {opcode}"),
    }
    .to_string()
}

/// The name of an execution model, as `spirv-dis` writes it.
pub fn execution_model_name(model: u32) -> String {
    match model {
        0 => "Vertex",
        1 => "TessellationControl",
        2 => "TessellationEvaluation",
        3 => "Geometry",
        4 => "Fragment",
        5 => "GLCompute",
        6 => "Kernel",
        5267 => "TaskNV",
        5268 => "MeshNV",
        5313 => "RayGenerationKHR",
        5314 => "IntersectionKHR",
        5315 => "AnyHitKHR",
        5316 => "ClosestHitKHR",
        5317 => "MissKHR",
        5318 => "CallableKHR",
        5364 => "TaskEXT",
        5365 => "MeshEXT",
        _ => return format!("ExecutionModel{model}"),
    }
    .to_string()
}
