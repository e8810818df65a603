//! Which functions are kernels and which kernel parameters are grid constants.
//!
//! Input: a module. Output: per function, what llc 19's `isKernelFunction` and
//! `isParamGridConstant` answer. A function is a kernel when `!nvvm.annotations` says
//! `!{ptr @f, !"kernel", i32 1}`, or, with no such entry, when its calling convention is
//! `ptx_kernel`; an entry with `i32 0` makes it a device function whatever its convention.
//! `!{ptr @k, !"grid_constant", !{i32 1, i32 3}}` marks parameters (counted from 1) of a
//! kernel as grid constants; several such entries for one kernel add up.

use std::collections::{BTreeSet, HashMap};

use fmtstr_ir::{FuncId, MdId, MdInput, MdNodeKind, MdOperand, Module, Value};

/// The NVVM annotations of the functions of one module.
#[derive(Clone, Debug, Default)]
pub struct Annotations {
    kernel: HashMap<FuncId, bool>,
    grid_constant: HashMap<FuncId, BTreeSet<u32>>,
    /// `rdoimage`, `wroimage`, `rdwrimage` and `sampler` entries: (function, parameter from
    /// 0) to the annotation.
    handles: HashMap<(FuncId, u32), Handle>,
    /// `!{ptr @f, !"align", i32 (index << 16) | align}`: the alignment of parameter
    /// `index` (from 1; 0 is the return value), as `alignstack` gives it.
    align: HashMap<(FuncId, u32), u64>,
}

/// What an OpenCL image or sampler annotation makes of a kernel parameter.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// `rdoimage`: a read-only image, `.texref`.
    Texture,
    /// `wroimage` or `rdwrimage`: a writable image, `.surfref`.
    Surface,
    /// `sampler`: `.samplerref`.
    Sampler,
}

impl Handle {
    /// The PTX type (`texref`, `surfref`, `samplerref`).
    pub fn ptx_type(self) -> &'static str {
        match self {
            Handle::Texture => "texref",
            Handle::Surface => "surfref",
            Handle::Sampler => "samplerref",
        }
    }
}

impl Annotations {
    /// Reads `!nvvm.annotations`.
    pub fn read(m: &Module) -> Annotations {
        let mut out = Annotations::default();
        let Some(nodes) = m.named_metadata("nvvm.annotations") else {
            return out;
        };
        for &node in nodes {
            let ops: Vec<MdOperand<'_>> = m.md_node(node).operands().collect();
            let Some(MdOperand::Value(target)) = ops.first() else {
                continue;
            };
            let Value::Global(g) = target.value else {
                continue;
            };
            let Some(f) = m.global(g).as_function() else {
                continue;
            };
            for pair in ops[1..].chunks(2) {
                let [MdOperand::Node(key), value] = pair else {
                    continue;
                };
                let key_node = m.md_node(*key);
                if key_node.kind() != MdNodeKind::String {
                    continue;
                }
                match key_node.string().as_deref() {
                    Some(b"kernel") => {
                        if let MdOperand::Value(op) = value {
                            if let Value::Const(c) = op.value {
                                // findOneNVVMAnnotation: the first entry wins.
                                out.kernel.entry(f).or_insert(m.int_value(c) == Some(1));
                            }
                        }
                    }
                    Some(key @ (b"rdoimage" | b"wroimage" | b"rdwrimage" | b"sampler")) => {
                        let handle = match key {
                            b"rdoimage" => Handle::Texture,
                            b"sampler" => Handle::Sampler,
                            _ => Handle::Surface,
                        };
                        if let MdOperand::Value(op) = value {
                            if let Value::Const(c) = op.value {
                                if let Some(index) =
                                    m.int_value(c).and_then(|v| u32::try_from(v).ok())
                                {
                                    out.handles.insert((f, index), handle);
                                }
                            }
                        }
                    }
                    Some(b"align") => {
                        if let MdOperand::Value(op) = value {
                            if let Value::Const(c) = op.value {
                                if let Some(v) = m.int_value(c).and_then(|v| u32::try_from(v).ok())
                                {
                                    out.align
                                        .entry((f, v >> 16))
                                        .or_insert(u64::from(v & 0xFFFF));
                                }
                            }
                        }
                    }
                    Some(b"grid_constant") => {
                        if let MdOperand::Node(list) = value {
                            let set = out.grid_constant.entry(f).or_default();
                            let list = m.md_node(*list);
                            for i in 0..list.operands().count() {
                                if let Some(n) = list.int_operand(i) {
                                    if let Ok(n) = u32::try_from(n) {
                                        set.insert(n);
                                    }
                                }
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
        out
    }

    /// Whether `f` is a kernel (an `.entry`).
    pub fn is_kernel(&self, m: &Module, f: FuncId) -> bool {
        match self.kernel.get(&f) {
            Some(&k) => k,
            None => m.function(f).calling_conv() == Some("ptx_kernel"),
        }
    }

    /// The image or sampler annotation of parameter `index` (from 0) of `f`, if any.
    pub fn handle(&self, f: FuncId, index: usize) -> Option<Handle> {
        self.handles.get(&(f, index as u32)).copied()
    }

    /// The alignment an `!"align"` annotation gives parameter `index` (from 0) of `f`.
    pub fn param_align(&self, f: FuncId, index: usize) -> Option<u64> {
        self.align.get(&(f, index as u32 + 1)).copied()
    }

    /// The alignment an `!"align"` annotation with index 0 gives the return value of `f`.
    pub fn return_align(&self, f: FuncId) -> Option<u64> {
        self.align.get(&(f, 0)).copied()
    }

    /// Whether parameter `index` (from 0) of `f` is annotated `grid_constant`.
    pub fn is_grid_constant(&self, f: FuncId, index: usize) -> bool {
        self.grid_constant
            .get(&f)
            .is_some_and(|set| set.contains(&(index as u32 + 1)))
    }
}

/// Appends `!{ptr @f, !"grid_constant", !{i32 i+1, ...}}` to `!nvvm.annotations` (creating it
/// when missing) for the given 0-based parameter indices.
pub fn add_grid_constants(m: &mut Module, f: FuncId, indices: &[usize]) {
    if indices.is_empty() {
        return;
    }
    let func = m.function(f).global().operand();
    let values: Vec<_> = indices
        .iter()
        .map(|&i| m.const_int(fmtstr_ir::TypeId::I32, i as i64 + 1))
        .collect();
    let inputs: Vec<MdInput<'_>> = values.into_iter().map(MdInput::Value).collect();
    let list = m.add_metadata(&inputs);
    let entry = m.add_metadata(&[
        MdInput::Value(func),
        MdInput::String(b"grid_constant"),
        MdInput::Node(list),
    ]);
    let mut nodes: Vec<MdId> = m
        .named_metadata("nvvm.annotations")
        .map(<[MdId]>::to_vec)
        .unwrap_or_default();
    nodes.push(entry);
    m.remove_named_metadata("nvvm.annotations");
    // The name is free: it was just removed.
    let _ = m.add_named_metadata("nvvm.annotations", &nodes);
}
