//! The order llc meets a module in: from a module or one definition, the reachable blocks in
//! reverse post order (call-sequence numbers follow it), the source line a function starts
//! on, and which functions are mentioned or have their address taken (which decides the
//! declarations llc emits).

use super::*;

/// The blocks of a definition reachable from its entry, in reverse post order (successors
/// in the order the terminator names them), as `ReversePostOrderTraversal` gives them.
pub(super) fn reverse_post_order(m: &Module, f: FuncId) -> Vec<BlockId> {
    let func = m.function(f);
    let Some(entry) = func.entry() else {
        return Vec::new();
    };
    let successors = |b: BlockId| -> Vec<BlockId> {
        m.block(b)
            .terminator()
            .map(|t| {
                let targets: Vec<BlockId> = t
                    .operands()
                    .filter_map(|op| match op.value {
                        Value::Block(s) => Some(s),
                        _ => None,
                    })
                    .collect();
                // `br i1 true, ...`: llc folds a branch on a constant before selection, and
                // the block it no longer reaches is gone.
                let constant = match t.operand(0) {
                    Some(Operand {
                        value: Value::Const(c),
                        ..
                    }) if t.opcode() == Opcode::Br && targets.len() == 2 => m.int_value(c),
                    _ => None,
                };
                match constant {
                    Some(0) => vec![targets[1]],
                    Some(_) => vec![targets[0]],
                    None => targets,
                }
            })
            .unwrap_or_default()
    };
    let mut seen = HashSet::new();
    let mut post = Vec::new();
    // (block, its successors, next successor to visit)
    let mut stack = vec![(entry.id(), successors(entry.id()), 0usize)];
    seen.insert(entry.id());
    while let Some((block, succ, next)) = stack.last_mut() {
        if let Some(&s) = succ.get(*next) {
            *next += 1;
            if seen.insert(s) {
                let list = successors(s);
                stack.push((s, list, 0));
            }
        } else {
            post.push(*block);
            stack.pop();
        }
    }
    post.reverse();
    post
}

pub(super) fn first_line(m: &Module, f: FuncId) -> u32 {
    let text = m.function(f).source_text();
    if text.is_empty() {
        return 0;
    }
    let src = m.source();
    let start = text.as_ptr() as usize - src.as_ptr() as usize;
    1 + src[..start.min(src.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count() as u32
}

/// Which functions are mentioned at all (so llc emits their declarations), and which have
/// their address taken (mentioned other than as the callee of a call): one pass over every
/// instruction operand and global initializer, through constant expressions.
pub(super) fn function_uses(m: &Module) -> (HashSet<FuncId>, HashSet<FuncId>) {
    fn walk(m: &Module, op: Operand, out: &mut HashSet<FuncId>, depth: u32) {
        match op.value {
            Value::Global(g) => {
                if let Some(f) = m.global(g).as_function() {
                    out.insert(f);
                }
            }
            Value::Const(c) if depth < 16 => {
                let operands = match m.constant(c) {
                    Constant::Expr { operands, .. }
                    | Constant::Struct(operands)
                    | Constant::Array(operands)
                    | Constant::Vector(operands) => operands,
                    Constant::Splat(op) => vec![op],
                    _ => Vec::new(),
                };
                for op in operands {
                    walk(m, op, out, depth + 1);
                }
            }
            _ => {}
        }
    }
    let mut mentioned = HashSet::new();
    let mut taken = HashSet::new();
    for func in m.functions() {
        for inst in func.instructions() {
            let callee = inst.as_call().and_then(|c| c.called_function());
            for (i, op) in inst.operands().enumerate() {
                if i == 0
                    && callee.is_some()
                    && op.value
                        == Value::Global(m.function(callee.unwrap_or(func.id())).global().id())
                {
                    mentioned.extend(callee);
                    // A call of another type than the function's takes its address
                    // (Function::hasAddressTaken; measured with llc 19 and llc 22).
                    let same_type = inst.as_call().is_some_and(|c| {
                        callee.is_some_and(|f| m.function(f).function_type() == c.function_type())
                    });
                    if same_type {
                        continue;
                    }
                }
                walk(m, op, &mut taken, 0);
            }
        }
    }
    for g in m.globals() {
        if let Some(init) = g.initializer() {
            walk(m, init, &mut taken, 0);
        }
    }
    mentioned.extend(taken.iter().copied());
    (mentioned, taken)
}
