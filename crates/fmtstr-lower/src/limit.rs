//! `--limit-per-site N`: each call site prints at most N times.
//!
//! Input: the extracted printf calls (after `--prefix`, before lowering). Output: the same
//! calls, each preceded by
//!
//! ```text
//! %site.n = atomicrmw add ptr addrspace(1) getelementptr ([K x i32], ptr addrspace(1)
//!               @fmtstr_printf_site_counts, i64 0, i64 SITE), i32 1 monotonic
//! %site.ok = icmp ult i32 %site.n, N              ; this print is within the limit
//! %site.over = icmp eq i32 %site.n, N             ; the first print over it
//! call printf("FILE:LINE: further output of this call dropped (limit N)\n")
//! ```
//!
//! and the conditions under which the call and its marker run: the print when `%site.ok`,
//! the marker when `%site.over`; no other thread prints either (the branches are made with
//! `--only`'s, after every check: see `guard_calls` in the crate root). One `i32` counter per
//! site, in module order, in the global [`SITE_COUNTS`] (`addrspace(1)`, K sites): a host
//! resets it through its name to let every site print N more. A counter that wraps after
//! 2^32 prints lets a site print again.

use std::collections::HashMap;

use fmtstr_ir::{
    Attr, EditError, InstId, Module, Operand, Ordering, Position, Predicate, RmwOp, TypeId,
};

use crate::diag::Location;
use crate::extract::{LGC_DEBUG_PRINTF, PRINTF};
use crate::model::{Callee, PrintfCall};

/// The global array of per-site counters.
pub const SITE_COUNTS: &str = "fmtstr_printf_site_counts";

/// The condition each call (and each marker call) runs under.
pub(crate) type Conditions = HashMap<InstId, Operand>;

/// Adds the counters and the marker calls for `calls`, limited to `limit` prints per site.
pub(crate) fn apply(
    module: &mut Module,
    limit: u32,
    calls: &[PrintfCall],
) -> Result<Conditions, EditError> {
    let mut conditions = Conditions::new();
    if calls.is_empty() {
        return Ok(conditions);
    }
    let sites = module.types_mut().array(calls.len() as u64, TypeId::I32);
    let counts = module.add_zeroed_global(SITE_COUNTS, sites, 4, 1);
    let counts = module.global(counts).operand();
    let mut markers: HashMap<(String, u32), Operand> = HashMap::new();
    for (site, call) in calls.iter().enumerate() {
        let inst = call.inst;
        let callee_name = match call.callee {
            Callee::Printf => PRINTF,
            Callee::LgcDebugPrintf { .. } => LGC_DEBUG_PRINTF,
        };
        let Some(callee) = module.function_by_name(callee_name) else {
            continue;
        };
        let format_at = call.fixed_operands() - 1;
        let Some(fixed) = module.inst(inst).as_call().map(|c| {
            c.args()
                .take(format_at + 1)
                .map(|a| (a.operand, a.attrs.to_vec()))
                .collect::<Vec<(Operand, Vec<Attr>)>>()
        }) else {
            continue;
        };
        let addrspace = module
            .types()
            .ptr_addrspace(fixed[format_at].0.ty)
            .unwrap_or(0);
        let text = marker_text(module, call, site, limit);
        let marker_format = match markers.get(&(text.clone(), addrspace)) {
            Some(&operand) => operand,
            None => {
                let mut bytes = text.clone().into_bytes();
                bytes.push(0);
                let g = module.add_string_global("fmtstr.limit", &bytes, addrspace);
                let operand = module.global(g).operand();
                markers.insert((text, addrspace), operand);
                operand
            }
        };
        let zero = module.const_int(TypeId::I64, 0);
        let index = module.const_int(TypeId::I64, site as i64);
        let one = module.const_int(TypeId::I32, 1);
        let bound = module.const_int(TypeId::I32, i64::from(limit as i32));
        let mut b = module.builder(Position::Before(inst))?;
        b.debug_loc_from(inst);
        let slot = b.gep(sites, counts, &[zero, index], true, "site")?;
        let count = b.atomic_rmw(RmwOp::Add, slot, one, Ordering::Monotonic, "site.n")?;
        let ok = b.icmp(Predicate::ULT, count, bound, "site.ok")?;
        let over = b.icmp(Predicate::EQ, count, bound, "site.over")?;
        let mut args = fixed;
        args[format_at].0 = marker_format;
        let with_attrs: Vec<(Operand, &[Attr])> =
            args.iter().map(|(o, a)| (*o, a.as_slice())).collect();
        let marker = b.call(callee, &with_attrs, "")?;
        drop(b);
        module.stand_in(marker, inst)?;
        conditions.insert(inst, ok);
        conditions.insert(marker, over);
    }
    Ok(conditions)
}

/// `FILE:LINE: further output of this call dropped (limit N)\n`, `%` written `%%`. Without
/// debug information: the function and the call's line in the `.ll` (of the call a
/// `--prefix` call replaced), or, for a call without one, its number among the module's sites.
fn marker_text(module: &Module, call: &PrintfCall, site: usize, limit: u32) -> String {
    let location = Location::of(module, call.inst);
    let function = module.function(call.function).name_str().into_owned();
    let site = match location.source {
        // file:line:column -> file:line
        Some(source) => match source.rsplit_once(':') {
            Some((file_line, _column)) => file_line.to_owned(),
            None => source,
        },
        None if location.line > 0 => format!("{function}:{}", location.line),
        None => format!("{function}, call {}", site + 1),
    };
    format!("{site}{}{limit})\n", fmtstr_meta::LIMIT_MARKER).replace('%', "%%")
}
