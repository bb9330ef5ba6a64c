//! Where candidate origins are refuted by deeper retraction chains.
//!
//! The search marks a position as an origin when one of its reset retractions leads to a
//! predecessor with a legal retraction chain a few plies deep (`Budget::chain_depth`). A composed
//! problem often hides a reset that this shallow check lets through but that no legal game can
//! have played: every retraction line from its predecessor dies a little further back. The
//! minimum depends only on the origins nearest the position, so the solver raises the depth on
//! those, one ply at a time, up to `Budget::max_chain_depth`:
//! * a candidate whose every line dies, or whose every reset's predecessor is refuted by its
//!   whole history ([`crate::legality::refute_history`]: a unit caged where it cannot have got),
//!   is dropped (a proof: only necessary conditions are used), and the next nearest candidates
//!   are tried;
//! * a candidate with a chain at the deepest depth is last checked for sealed predecessors
//!   ([`super::sealed`]: no reset leads into the predecessor's whole reversible graph); one
//!   that survives that too, or whose check runs out of budget, stands, and the minimum is its
//!   distance.

use std::time::Instant;

use rayon::prelude::*;

use crate::{legality::Refutation, rules::Convention};

use super::{
    origin::{ChainStatus, origin_status_counted, origin_status_refuting, with_history},
    position_of,
    sealed::sealed,
    search::{Budget, Graph},
};

/// The most candidates looked at more deeply in one solve, unless the search may store more
/// positions than this (`Budget::max_nodes`): then as many as it may store (each candidate is a
/// stored position, and in a composed diagram nearly every one is a candidate that the
/// bookkeeping refutes by a look-up).
const MAX_CANDIDATES: usize = 2_000_000;

/// The most positions the deeper checks of one solve may generate, all candidates together
/// (each check also has its own `Budget::deep_chain_budget` per reset).
const MAX_POSITIONS: u64 = 5_000_000;

/// What raising the chain depth on the nearest candidates did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Refinement {
    /// The deepest chain tried.
    pub max_depth: u32,
    /// Candidates looked at.
    pub checked: usize,
    /// Positions the deeper checks generated.
    pub positions: u64,
    /// The nearest candidates dropped (the first [`REFUTED_KEPT`], nearest first): every line
    /// from them dies, or every reset's predecessor is refuted; with the depth that showed it.
    pub refuted: Vec<Refuted>,
    /// How many candidates were dropped in all.
    pub refuted_count: usize,
    /// All the dropped candidates grouped by the rule that refuted them, in the order the
    /// rules first refuted one (see [`Refinement::by_rule`]).
    groups: Vec<RuleGroup>,
    /// The depth of the chain found below the candidate that gives the minimum, when one was
    /// found at `max_depth` (None when the check ran out of budget, or nothing stood).
    pub confirmed_depth: Option<u32>,
    /// Why the refinement stopped before a candidate stood, if it did (budget, time).
    pub stopped_by: Option<&'static str>,
}

/// The candidates one rule refuted, for an answer that shows what its bound rests on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RuleGroup {
    /// The rule: `chain`, `bookkeeping`, `cage` or `sealed`.
    pub rule: &'static str,
    /// How many candidates it refuted.
    pub count: usize,
    /// The nearest and farthest of them (their clock values).
    pub distances: (u32, u32),
    /// The deepest chain that showed it (for `chain`).
    pub max_depth: u32,
    /// One reason, of the nearest candidate it refuted (empty for `chain`).
    pub example: Option<String>,
}

/// Refuted candidates kept one by one (the nearest); the rest are counted by rule only, so that
/// a composed diagram with millions of them keeps its memory.
pub const REFUTED_KEPT: usize = 1000;

impl Refinement {
    /// The refuted candidates grouped by the rule that refuted them, the most frequent first.
    pub fn by_rule(&self) -> Vec<RuleGroup> {
        let mut groups = self.groups.clone();
        groups.sort_by(|a, b| b.count.cmp(&a.count).then(a.rule.cmp(b.rule)));
        groups
    }

    /// The clock values of the nearest and the farthest candidate dropped.
    pub fn refuted_distances(&self) -> Option<(u32, u32)> {
        let first = self.groups.iter().map(|g| g.distances.0).min()?;
        let last = self.groups.iter().map(|g| g.distances.1).max()?;
        Some((first, last))
    }

    /// Counts `x` in its rule's group, and keeps it if it is among the nearest.
    fn record(&mut self, x: Refuted) {
        self.count(x.rule, x.distance, x.depth, || {
            x.reasons.first().map(Refutation::to_string)
        });
        if self.refuted.len() < REFUTED_KEPT {
            self.refuted.push(x);
        }
    }

    /// Counts a candidate refuted by `rule` at clock `distance` with a chain `depth` deep in the
    /// rule's group (`example`: the group's example reason, asked for when the group is new).
    fn count(
        &mut self,
        rule: &'static str,
        distance: u32,
        depth: u32,
        example: impl FnOnce() -> Option<String>,
    ) {
        self.refuted_count += 1;
        match self.groups.iter_mut().find(|g| g.rule == rule) {
            Some(g) => {
                g.count += 1;
                g.distances.0 = g.distances.0.min(distance);
                g.distances.1 = g.distances.1.max(distance);
                g.max_depth = g.max_depth.max(depth);
            }
            None => self.groups.push(RuleGroup {
                rule,
                count: 1,
                distances: (distance, distance),
                max_depth: depth,
                example: example(),
            }),
        }
    }
}

/// A candidate origin that a deeper chain or a refutation of its resets' histories refuted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refuted {
    /// Its distance from the position (the clock value it would have given).
    pub distance: u32,
    /// The chain depth at which every line from it had died (the search's own depth when the
    /// histories refuted it).
    pub depth: u32,
    /// What refuted the predecessors of its resets by their histories (empty when deeper chains
    /// did): one entry per predecessor. Kept as values (a composed diagram may have millions
    /// of refuted candidates): the answer formats the few it shows.
    pub reasons: Vec<Refutation>,
    /// The rule that refuted it: `chain` (every line dies), a history rule (`bookkeeping`,
    /// `cage`), or `sealed` (a predecessor's whole reversible graph has no way in).
    pub rule: &'static str,
}

/// Raises the chain depth on the origins nearest the roots of `graph` until one stands or none
/// is left, clearing the origin flag of each one refuted.
pub fn refine_minimum(graph: &mut Graph, convention: Convention, budget: &Budget) -> Refinement {
    let mut out = Refinement {
        max_depth: budget.max_chain_depth.max(budget.chain_depth),
        ..Refinement::default()
    };
    if out.max_depth > budget.chain_depth {
        refine_candidates(graph, convention, budget, &mut out);
    }
    count_booked(graph, budget, &mut out);
    out
}

/// Adds to `out` the positions that the search itself found to be no origin because the
/// bookkeeping refuted their resets (see [`Graph::booked`]), up to the distance of the nearest
/// origin that stands (all of them when none does): they are refuted candidates as much as those
/// the refinement dropped. The nearest [`REFUTED_KEPT`] of both are kept one by one.
fn count_booked(graph: &Graph, budget: &Budget, out: &mut Refinement) {
    let expanded = graph.expanded();
    let stop = (0..expanded)
        .find(|&i| graph.is_origin(i))
        .map_or(u32::MAX, |i| graph.dist(i));
    let mut kept = Vec::new();
    for i in graph.booked.iter() {
        let distance = graph.dist(i);
        if distance > stop {
            break; // positions come in breadth-first order
        }
        out.count("bookkeeping", distance, budget.chain_depth, || {
            Some(Refutation::Bookkeeping.to_string())
        });
        if kept.len() < REFUTED_KEPT {
            kept.push(Refuted {
                distance,
                depth: budget.chain_depth,
                reasons: vec![Refutation::Bookkeeping],
                rule: "bookkeeping",
            });
        }
    }
    out.refuted.extend(kept);
    out.refuted.sort_by_key(|x| x.distance);
    out.refuted.truncate(REFUTED_KEPT);
}

/// The refinement proper (see [`refine_minimum`]): the candidates nearest the roots, in order,
/// until one stands or none is left.
fn refine_candidates(
    graph: &mut Graph,
    convention: Convention,
    budget: &Budget,
    out: &mut Refinement,
) {
    let expanded = graph.expanded();
    let mut parents: Option<Vec<u32>> = None;
    let mut memo = std::collections::HashMap::new();
    // The candidates are taken in batches, each checked against the histories in parallel and
    // then applied one by one in order, exactly as if checked one by one: the answer does not
    // depend on the threads. The batches grow from one candidate, so that little is checked
    // beyond the first candidate that stands.
    let mut batch_size = 1usize;
    while let Some(first) = (0..expanded).find(|&i| graph.is_origin(i)) {
        let distance = graph.dist(first);
        let level_end = (graph.level_start.get(distance as usize + 1).copied())
            .map_or(expanded, |e| (e as usize).min(expanded));
        let mut next = first;
        while next < level_end {
            let batch: Vec<usize> = (next..level_end)
                .filter(|&i| graph.is_origin(i))
                .take(batch_size)
                .collect();
            next = batch.last().map_or(level_end, |&i| i + 1);
            batch_size = (batch_size * 4).min(BATCH);
            // A root needs no parents (they take a pass over the whole graph).
            let parents: &[u32] = if distance == 0 {
                &[]
            } else {
                parents.get_or_insert_with(|| graph.parents())
            };
            let mut positions = Vec::with_capacity(batch.len());
            for &i in &batch {
                match position_of(graph, parents, i, convention, &mut memo) {
                    Some(pos) => positions.push(pos),
                    None => return, // cannot happen for a stored position
                }
            }
            // First the refutations of the resets' histories, at the search's own depth.
            let first_checks: Vec<FirstCheck> = positions
                .par_iter()
                .map(|pos| {
                    let mut spent = 0;
                    let (verdict, refutations) = with_history(|history| {
                        origin_status_refuting(
                            pos,
                            convention,
                            budget.chain_depth,
                            budget.deep_chain_budget,
                            &mut spent,
                            history,
                            &mut |_| None,
                        )
                    });
                    FirstCheck {
                        verdict,
                        rule: refutations.first().map(Refutation::rule),
                        reasons: refutations,
                        spent,
                    }
                })
                .collect();
            for ((&i, pos), first) in batch.iter().zip(positions).zip(first_checks) {
                if refine_candidate(graph, out, budget, convention, i, distance, &pos, first) {
                    return;
                }
            }
        }
    }
}

/// Candidates checked against the histories in parallel, at most.
const BATCH: usize = 1024;

/// What the refutations of a candidate's histories found, at the search's own depth.
struct FirstCheck {
    verdict: ChainStatus,
    /// The rule of the first refutation, if any.
    rule: Option<&'static str>,
    /// The refutations.
    reasons: Vec<Refutation>,
    /// Positions the check generated.
    spent: u64,
}

/// Applies the check of candidate `i` (at `distance`, position `pos`) whose history
/// refutations gave `first`: drops it if refuted, else raises the chain depth and looks for
/// sealed predecessors. True when the refinement stops here (a candidate stands, the budget ran
/// out, or the game's start).
#[allow(clippy::too_many_arguments)]
fn refine_candidate(
    graph: &mut Graph,
    out: &mut Refinement,
    budget: &Budget,
    convention: Convention,
    i: usize,
    distance: u32,
    pos: &crate::position::Position,
    first: FirstCheck,
) -> bool {
    if out.checked >= MAX_CANDIDATES.max(usize::try_from(budget.max_nodes).unwrap_or(usize::MAX)) {
        out.stopped_by = Some("candidate budget");
        return true;
    }
    if out.positions >= MAX_POSITIONS {
        out.stopped_by = Some("position budget");
        return true;
    }
    if budget.deadline.is_some_and(|d| Instant::now() >= d) {
        out.stopped_by = Some("time budget");
        return true;
    }
    out.checked += 1;
    if pos.is_initial() {
        return true; // the game's start: nothing to refute
    }
    let mut verdict = first.verdict;
    out.positions += first.spent;
    if let (ChainStatus::Dead, Some(rule)) = (verdict, first.rule) {
        graph.origin.remove(i);
        out.record(Refuted {
            distance,
            depth: budget.chain_depth,
            reasons: first.reasons,
            rule,
        });
        return false;
    }
    let mut depth = budget.chain_depth;
    while depth < out.max_depth && verdict == ChainStatus::Found {
        depth += 1;
        let left = MAX_POSITIONS.saturating_sub(out.positions);
        verdict = origin_status_counted(
            pos,
            convention,
            depth,
            budget.deep_chain_budget.min(left),
            &mut out.positions,
        );
    }
    match verdict {
        ChainStatus::Dead => {
            graph.origin.remove(i);
            out.record(Refuted {
                distance,
                depth,
                reasons: Vec::new(),
                rule: "chain",
            });
            false
        }
        ChainStatus::Found if budget.seal_nodes > 0 => {
            // Standing so far: last, each reset's predecessor may be sealed (no way
            // into its whole reversible graph).
            let (verdict, refutations) = with_history(|history| {
                origin_status_refuting(
                    pos,
                    convention,
                    depth,
                    budget.deep_chain_budget,
                    &mut out.positions,
                    history,
                    &mut |q| sealed(q, convention, budget),
                )
            });
            if verdict == ChainStatus::Dead && !refutations.is_empty() {
                graph.origin.remove(i);
                // The sealed predecessors first: the candidate stood until they fell.
                let mut refutations = refutations;
                refutations.sort_by_key(|r| r.rule() != "sealed");
                let rule = refutations[0].rule();
                out.record(Refuted {
                    distance,
                    depth,
                    reasons: refutations,
                    rule,
                });
                return false;
            }
            out.confirmed_depth = Some(depth);
            true
        }
        ChainStatus::Found => {
            out.confirmed_depth = Some(depth);
            true
        }
        ChainStatus::Unknown => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{clock::solve_clock, position::PositionInput, rules::Rules};

    /// Black cannot take anything back: its castling rights freeze king and rooks, its pawns
    /// stand at home, the bishops and queen are shut in by them, and its knights are gone, so
    /// no black unit can have made the last black move. White's last move d4-d5 is a reset
    /// whose predecessor passes the static checks, but Black's move before it cannot exist: a
    /// chain of depth 0 lets the origin through, depth 1 refutes it, and with it every history.
    const CAGE: &str = "r1bqkb1r/pppppppp/8/2RP4/6RR/8/K5R1/8 b kq -";

    fn solve(depth: u32, max_depth: u32) -> crate::clock::ClockAnswer {
        let input = PositionInput::parse(CAGE).unwrap();
        let budget = Budget {
            chain_depth: depth,
            max_chain_depth: max_depth,
            ..Budget::default()
        };
        solve_clock(&input, Rules::Fide, &budget, &|_| {})
    }

    #[test]
    fn every_refuted_candidate_is_counted_and_the_nearest_are_kept() {
        let mut r = Refinement::default();
        for k in 0..1500u32 {
            let by_chain = k % 3 == 0;
            r.record(Refuted {
                distance: k / 10,
                depth: if by_chain { 4 } else { 2 },
                reasons: if by_chain {
                    Vec::new()
                } else {
                    vec![Refutation::Bookkeeping]
                },
                rule: if by_chain { "chain" } else { "bookkeeping" },
            });
        }
        assert_eq!(r.refuted_count, 1500);
        assert_eq!(r.refuted.len(), REFUTED_KEPT);
        assert_eq!(r.refuted.last().map(|x| x.distance), Some(99));
        assert_eq!(r.refuted_distances(), Some((0, 149)));
        let groups = r.by_rule();
        assert_eq!(
            groups
                .iter()
                .map(|g| (g.rule, g.count, g.distances, g.max_depth))
                .collect::<Vec<_>>(),
            vec![
                ("bookkeeping", 1000, (0, 149), 2),
                ("chain", 500, (0, 149), 4)
            ]
        );
        assert!(
            groups[0]
                .example
                .as_deref()
                .unwrap()
                .contains("bookkeeping")
        );
        assert_eq!(groups[1].example, None);
    }

    #[test]
    fn a_deeper_chain_refutes_the_origin_a_shallow_one_lets_through() {
        let shallow = solve(0, 0);
        assert_eq!(shallow.min, Some(0), "depth 0 accepts 1.d5 as the reset");
        assert!(shallow.refinement.refuted.is_empty());

        let raised = solve(0, 3);
        assert_eq!(raised.min, None);
        assert_eq!(raised.standing, crate::clock::Standing::NoHistory);
        assert_eq!(
            raised.refinement.refuted,
            vec![Refuted {
                distance: 0,
                depth: 1,
                reasons: Vec::new(),
                rule: "chain",
            }]
        );
        // The default depth refutes it during the search already.
        assert_eq!(solve(2, 2).standing, crate::clock::Standing::NoHistory);
    }

    #[test]
    fn parents_in_one_pass_equal_parents_one_by_one() {
        let input = PositionInput::parse("8/5k2/8/8/8/2K5/8/7R b - -").unwrap();
        let budget = Budget {
            max_nodes: 3_000,
            ..Budget::default()
        };
        let a = solve_clock(&input, Rules::Fide, &budget, &|_| {});
        let graph = a.graph.as_ref().unwrap();
        let parents = graph.parents();
        for (j, &p) in parents.iter().enumerate() {
            assert_eq!(
                graph.parent(j),
                (p != u32::MAX).then_some(p as usize),
                "{j}"
            );
        }
        assert!(parents.len() > 1_000);
    }

    #[test]
    fn the_origin_that_stands_is_confirmed_at_the_deepest_depth() {
        let input = PositionInput::parse("8/5k2/8/8/8/2K5/8/7R b - -").unwrap();
        let budget = Budget {
            max_nodes: 2_000,
            ..Budget::default()
        };
        let a = solve_clock(&input, Rules::Fide, &budget, &|_| {});
        assert_eq!(a.min, Some(0));
        assert!(a.refinement.refuted.is_empty());
        assert_eq!(a.refinement.confirmed_depth, Some(budget.max_chain_depth));
        // A certificate ending at that origin says so; one ending elsewhere keeps the search's
        // own depth.
        let depth_of = |k| match a.certificate_for(k, Convention::Fide).unwrap().evidence {
            crate::clock::OriginEvidence::RetractionChain { depth } => depth,
            other => panic!("{other:?}"),
        };
        assert_eq!(depth_of(0), budget.max_chain_depth);
        assert_eq!(depth_of(5), budget.chain_depth);
    }

    #[test]
    fn the_refinement_does_not_depend_on_the_threads() {
        // A composed position (Plaksin's diagram with White's h-pawn back on h2): about a
        // thousand candidates near it are refuted by cages and the bookkeeping, in parallel
        // batches; one or two threads give the same refutations, in the same order.
        let input =
            PositionInput::parse("nB3RbN/1kpppp2/1p4p1/1P3p2/Bp3P1n/4Prb1/1qPP1rPP/R3K3 w Q -")
                .unwrap();
        let budget = Budget {
            max_nodes: 8_000,
            ..Budget::default()
        };
        let answers: Vec<_> = [1, 2]
            .into_iter()
            .map(|threads| {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let a = pool.install(|| solve_clock(&input, Rules::Fide, &budget, &|_| {}));
                (a.min, a.min_lower_bound, a.refinement)
            })
            .collect();
        assert!(
            answers[0].2.refuted_count > 100,
            "{}",
            answers[0].2.refuted_count
        );
        assert_eq!(answers[0], answers[1]);
    }
}
