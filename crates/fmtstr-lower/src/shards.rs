//! [`lower_shards`]: the NVPTX lowering of a module parsed in shards, one thread per shard.
//!
//! Input: the shards of one module ([`Module::parse_shards`]). Output: the same edits,
//! diagnostics and printed text as [`crate::lower`] on the whole module.
//!
//! Each shard has one thread from start to end (the first shard this one). It extracts and
//! plans its calls, tells this thread what it found, and waits for the verdict: every shard's
//! checks passed, or the lowering stops before any edit. It then declares `vprintf`, rewrites
//! its calls, frees its models, and tells whether anything in its shard still uses `printf`.
//! A thread started per step cost a start and a join each time, and freed models another
//! thread had allocated, which the allocator does more slowly. What is module-wide is done
//! the same in every shard: `vprintf` is declared in all of them, and `printf`'s declaration
//! goes from all of them when no shard uses it any more.

use std::sync::mpsc;
use std::time::{Duration, Instant};

use fmtstr_ir::{EditError, InstId, Module, Shard};

use crate::diag::{Diagnostic, Location};
use crate::extract::{self, extract, Extraction};
use crate::model::PrintfCall;
use crate::report::{self, CallReport};
use crate::{failure, lower, nvptx, stops, Failed, Lowered, Options, Phases, Target};

/// [`crate::lower`] on a module parsed in shards ([`Module::parse_shards`]), one thread per
/// shard: the same edits, diagnostics and printed text as lowering the whole module.
///
/// Only the NVPTX back end runs on shards (the AMD buffer stage keeps a module-wide table):
/// other targets need one shard.
pub fn lower_shards(shards: &mut [Shard], options: &Options) -> Result<Lowered, Failed> {
    if let [shard] = shards {
        return lower(&mut shard.module, options);
    }
    let whole_module = |message: &str| {
        let file = shards
            .first()
            .map_or(String::new(), |s| s.module.file_name().to_owned());
        Err(Failed {
            diagnostics: vec![Location {
                file,
                line: 0,
                column: 0,
                text: String::new(),
                source: None,
            }
            .error(message)],
        })
    };
    let Target::Nvptx { layout } = options.target else {
        return whole_module("only the NVPTX back end lowers a module in shards: parse it whole");
    };
    if options.prefix.is_some() || options.only.is_some() {
        return whole_module(
            "--prefix and --only rewrite the calls before lowering: parse the module whole",
        );
    }
    let crew = Crew {
        layout,
        report: options.report,
    };
    let Outcome {
        mut diagnostics,
        verdict,
        applied,
        calls,
        first_call,
        report,
        phases,
    } = std::thread::scope(|scope| crew.run(scope, shards, options.werror));
    if !verdict {
        return failure(diagnostics, options.werror);
    }
    if calls == 0 {
        return Ok(Lowered {
            warnings: diagnostics,
            phases,
            ..Lowered::default()
        });
    }
    match applied {
        Ok(()) => Ok(Lowered {
            calls,
            warnings: diagnostics,
            strings: None,
            report,
            phases,
        }),
        Err(error) => {
            if let Some((k, inst)) = first_call {
                let first = Location::of(&shards[k].module, inst);
                diagnostics.push(first.error(format!("cannot rewrite the module: {error}")));
            }
            failure(diagnostics, options.werror)
        }
    }
}

/// How every shard's thread lowers its calls.
#[derive(Clone, Copy)]
struct Crew {
    layout: nvptx::Layout,
    report: bool,
}

/// What a shard's thread tells once its calls are planned.
struct Planned {
    /// Its extraction's diagnostics.
    extracted: Vec<Diagnostic>,
    /// What checking a `vprintf` the module declares found, at the shard's first call.
    declaration: Vec<Diagnostic>,
    /// Its plan's diagnostics.
    planning: Vec<Diagnostic>,
    calls: usize,
    first_call: Option<InstId>,
    report: Vec<CallReport>,
    phases: Phases,
}

/// A shard's models, kept on its thread from planning to rewriting.
struct Models {
    calls: Vec<PrintfCall>,
    plan: nvptx::Plan,
}

/// What the crew did, for [`lower_shards`] to report.
struct Outcome {
    /// In the order [`crate::lower`] gives them: every extraction's, the declaration's, every
    /// plan's.
    diagnostics: Vec<Diagnostic>,
    /// Whether the checks let the edits begin.
    verdict: bool,
    applied: Result<(), EditError>,
    calls: usize,
    /// The shard and instruction of the first call, where a failed edit is reported.
    first_call: Option<(usize, InstId)>,
    report: Vec<CallReport>,
    phases: Phases,
}

impl Crew {
    fn run<'scope>(
        self,
        scope: &'scope std::thread::Scope<'scope, '_>,
        shards: &'scope mut [Shard],
        werror: bool,
    ) -> Outcome {
        // Each thread tells once what it planned, and once whether printf is unused in its
        // shard after the edits; this thread answers each time: edit or stop, then remove
        // printf's declaration or keep it. Last, a thread sends how its edits went. A sender
        // goes once it has sent: a thread that died is then heard of as one that never did.
        let (tell, told) = mpsc::channel::<(usize, Planned)>();
        let (answer, answers) = mpsc::channel::<bool>();
        let (finish, finished) = mpsc::channel::<Result<(), EditError>>();
        let mut workers = Vec::new();
        let Some((first, rest)) = shards.split_first_mut() else {
            return self.outcome(Vec::new(), werror);
        };
        for (k, shard) in rest.iter_mut().enumerate() {
            let (go, verdicts) = mpsc::channel::<bool>();
            let (tell, answer, finish) = (tell.clone(), answer.clone(), finish.clone());
            let handle = scope.spawn(move || {
                let (planned, models) = self.plan(&shard.module);
                let _ = tell.send((k + 1, planned));
                drop(tell);
                if verdicts.recv() != Ok(true) {
                    return;
                }
                let applied = self.apply(&mut shard.module, models);
                let unused = applied
                    .is_ok()
                    .then(|| shard.module.unused_declaration(extract::PRINTF))
                    .flatten();
                let _ = answer.send(unused.is_some());
                drop(answer);
                if let (Ok(true), Some(unused)) = (verdicts.recv(), unused) {
                    unused.remove();
                }
                // Sent rather than joined: the thread's exit (its allocator's heap handed
                // back, the thread's own teardown) need not be waited for.
                let _ = finish.send(applied);
            });
            workers.push((go, handle));
        }
        drop((tell, answer, finish));
        let (mine, my_models) = self.plan(&first.module);
        let mut planned: Vec<Option<Planned>> = std::iter::once(Some(mine))
            .chain(rest_slots(workers.len()))
            .collect();
        for (k, p) in told {
            planned[k] = Some(p);
        }
        let Some(planned) = planned.into_iter().collect::<Option<Vec<Planned>>>() else {
            // A thread died before telling: its panic goes on here.
            for (go, handle) in workers {
                drop(go);
                if let Err(panic) = handle.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            unreachable!("a shard's thread told nothing and did not panic");
        };
        let mut outcome = self.outcome(planned, werror);
        if !outcome.verdict || outcome.calls == 0 {
            // Dropping the senders tells every thread to stop.
            for (go, handle) in workers {
                drop(go);
                if let Err(panic) = handle.join() {
                    std::panic::resume_unwind(panic);
                }
            }
            return outcome;
        }
        let applying = Instant::now();
        for (go, _) in &workers {
            let _ = go.send(true);
        }
        let mut applied = self.apply(&mut first.module, my_models);
        let unused = applied
            .is_ok()
            .then(|| first.module.unused_declaration(extract::PRINTF))
            .flatten();
        let heard = answers
            .iter()
            .fold((0, true), |(n, all), unused| (n + 1, all && unused));
        let everywhere = unused.is_some() && heard == (workers.len(), true);
        for (go, _) in &workers {
            let _ = go.send(everywhere);
        }
        if let (true, Some(unused)) = (everywhere, unused) {
            unused.remove();
        }
        // A thread that died sends nothing: the scope's end goes on with its panic.
        for result in finished {
            applied = applied.and(result);
        }
        outcome.applied = applied;
        outcome.phases.apply = applying.elapsed();
        outcome
    }

    /// Extracts and plans one shard's calls.
    fn plan(self, module: &Module) -> (Planned, Models) {
        let started = Instant::now();
        let Extraction {
            calls,
            diagnostics: extracted,
        } = extract(module, false);
        let extracted_at = Instant::now();
        let mut planning = Vec::new();
        let plan = nvptx::plan(module, &calls, self.layout, &mut planning);
        let phases = Phases {
            extract: extracted_at - started,
            plan: extracted_at.elapsed(),
            apply: Duration::ZERO,
        };
        let mut declaration = Vec::new();
        if let Some(first) = calls.first() {
            nvptx::check_declaration(module, first, &mut declaration);
        }
        let report = if self.report {
            report::nvptx(module, &calls, &plan.layouts)
        } else {
            Vec::new()
        };
        let planned = Planned {
            extracted,
            declaration,
            planning,
            calls: calls.len(),
            first_call: calls.first().map(|c| c.inst),
            report,
            phases,
        };
        (planned, Models { calls, plan })
    }

    /// Rewrites one shard's calls, then frees their models (here, where they were made).
    fn apply(self, module: &mut Module, models: Models) -> Result<(), EditError> {
        nvptx::declare_vprintf(module)?;
        let applied = nvptx::apply(module, &models.calls, &models.plan);
        drop(models);
        applied
    }

    /// Every shard's findings together, and whether the edits may begin.
    fn outcome(self, planned: Vec<Planned>, werror: bool) -> Outcome {
        let mut phases = Phases::default();
        for shard in &planned {
            phases.extract = phases.extract.max(shard.phases.extract);
            phases.plan = phases.plan.max(shard.phases.plan);
        }
        let first = planned.iter().position(|p| p.first_call.is_some());
        let mut diagnostics: Vec<Diagnostic> = Vec::new();
        for shard in &planned {
            diagnostics.extend(shard.extracted.iter().cloned());
        }
        if let Some(k) = first {
            diagnostics.extend(planned[k].declaration.iter().cloned());
        }
        for shard in &planned {
            diagnostics.extend(shard.planning.iter().cloned());
        }
        Outcome {
            verdict: !stops(&diagnostics, werror),
            diagnostics,
            applied: Ok(()),
            calls: planned.iter().map(|p| p.calls).sum(),
            first_call: first.and_then(|k| planned[k].first_call.map(|inst| (k, inst))),
            report: planned.into_iter().flat_map(|p| p.report).collect(),
            phases,
        }
    }
}

/// Empty places for the other shards' reports.
fn rest_slots(n: usize) -> impl Iterator<Item = Option<Planned>> {
    (0..n).map(|_| None)
}
