//! A call's envelope as the plan renders it: from the call's sequence number, callee,
//! arguments and return value, the nodes llc's call lowering builds in order (`CallSeqBegin`,
//! the `.param` declarations, every `st.param`, the call, every `ld.param`, `ParamCallEnd`),
//! each with the `NVPTXISD` number and the PTX text it becomes.

use super::*;

/// The `NVPTXISD` numbers for the envelope nodes it names.
mod opcode {
    pub const DECLARE_RET_PARAM: u32 = 0x13D;
    pub const DECLARE_SCALAR_PARAM: u32 = 0x13E;
    pub const PARAM_CALL_START: u32 = 0x1FD;
    pub const PARAM_CALL_END: u32 = 0x1FE;
    pub const CALL_NON_REG_PROTOTYPE: u32 = 0x201;
    pub const CALL_NON_REG: u32 = 0x202;
    pub const CALL_SEQ_BEGIN: u32 = 0x203;
    pub const CALL_ARG: u32 = 0x204;
}

pub(super) fn envelope(
    seq: u32,
    callee: &CalleePlan,
    args: &[ArgPlan],
    ret: &Option<String>,
    loads: &[AccessPlan],
) -> Vec<EnvelopeStep> {
    let mut steps = vec![EnvelopeStep {
        opcode: Some(opcode::CALL_SEQ_BEGIN),
        name: "CallSeqBegin",
        detail: format!("{{ // callseq {seq}, 0"),
    }];
    if let Some(decl) = ret {
        steps.push(EnvelopeStep {
            opcode: Some(opcode::DECLARE_RET_PARAM),
            name: "DeclareRetParam",
            detail: format!("{decl};"),
        });
    }
    steps.push(EnvelopeStep {
        opcode: Some(opcode::PARAM_CALL_START),
        name: "ParamCallStart",
        detail: String::new(),
    });
    for arg in args {
        let scalar = !arg.declaration.contains(".align");
        steps.push(EnvelopeStep {
            opcode: Some(if scalar {
                opcode::DECLARE_SCALAR_PARAM
            } else {
                opcode::CALL_ARG
            }),
            name: if scalar {
                "DeclareScalarParam"
            } else {
                "DeclareParam"
            },
            detail: format!("{};", arg.declaration),
        });
        for s in &arg.stores {
            steps.push(EnvelopeStep {
                opcode: Some(opcode::CALL_ARG),
                name: "StoreParam",
                detail: format!("st.param{} [{}+{}]", width_suffix(s), arg.name, s.offset),
            });
        }
    }
    steps.push(match callee.kind {
        CalleeKind::Direct => EnvelopeStep {
            opcode: Some(opcode::CALL_NON_REG),
            name: "CallNonReg",
            detail: format!("call.uni {}", callee.name.as_deref().unwrap_or("")),
        },
        CalleeKind::Indirect => EnvelopeStep {
            opcode: Some(opcode::CALL_NON_REG_PROTOTYPE),
            name: "CallNonRegPrototype",
            detail: callee.prototype.clone().unwrap_or_default(),
        },
    });
    for l in loads {
        steps.push(EnvelopeStep {
            opcode: None,
            name: "LoadParam",
            detail: format!("ld.param{} [retval0+{}]", width_suffix(l), l.offset),
        });
    }
    steps.push(EnvelopeStep {
        opcode: Some(opcode::PARAM_CALL_END),
        name: "ParamCallEnd",
        detail: format!("}} // callseq {seq}"),
    });
    steps
}

pub(super) fn width_suffix(a: &AccessPlan) -> String {
    if a.vector > 1 {
        format!(".v{}.b{}", a.vector, a.bits)
    } else {
        format!(".b{}", a.bits)
    }
}
