//! Bounds and value sets drawn from an explored graph: where the clock is decided.
//!
//! Every edge of the graph is a real retraction, and every origin passed the necessary
//! conditions, so:
//! * the smallest distance to an origin is the proven minimum (breadth-first order);
//! * when the search is complete, the origins it found are all there are, so a value that no
//!   walk reaches is proven impossible, and the longest path is the proven maximum;
//! * a walk of length k ending at an origin witnesses k (with the strength of its origin);
//! * a cycle on a walk to an origin makes the maximum unbounded.

use rayon::prelude::*;

use super::{bits::Bits, search::Graph};

/// The longest walk [`Analysis::walk_to_origin`] writes out: a longer value is still decided
/// ([`Analysis::walk_exists`]) but shown by no line.
pub const MAX_WALK_PLIES: u64 = 5_000;

/// The facts about the clock that the graph establishes.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Index of the origin nearest the roots, if any was found.
    pub nearest_origin: Option<usize>,
    /// Proven lower bound on every clock value (exact when `nearest_origin` is set).
    pub min_lower_bound: u64,
    /// Whether a cycle lies on a walk from the roots to an origin (the maximum is unbounded).
    pub cycle: bool,
    /// The longest path from a root to an origin through positions that reach an origin
    /// (only when there is no such cycle): its length and end.
    pub longest: Option<(u64, usize)>,
    /// Whether some root reaches an origin.
    pub reaches_origin: bool,
    useful: Vec<bool>,
    longest_next: Vec<u32>,
}

/// Sweeps over the lists that [`reaching_origin`] tries before it reverses them.
const SWEEPS: usize = 6;

/// Whether an origin is reachable from each position.
///
/// First by sweeps over the lists, alternately from the last position to the first and back,
/// each marking the positions with an edge to a marked one (origins are marked from the
/// start); a sweep downwards carries the marks down every run of edges to higher indices, a
/// sweep upwards every run to lower ones. Breadth-first order makes most edges short, so two
/// or three sweeps usually settle it: a sweep that marks nothing new ends it. If `sweeps`
/// sweeps still mark something, the lists are reversed and searched backwards from the
/// origins (the same answer, at the cost of the reversed lists). A sweep reads the lists of
/// the positions not marked yet only (often few: most positions of an endgame are origins).
fn reaching_origin(graph: &Graph, sweeps: usize) -> Vec<bool> {
    /// Lists read together in a sweep downwards (found upwards, then taken backwards).
    const BLOCK: usize = 64;
    let n = graph.len();
    let mut useful: Vec<bool> = (0..n).map(|i| graph.is_origin(i)).collect();
    for sweep in 0..sweeps {
        let open: Vec<usize> = (0..graph.expanded()).filter(|&i| !useful[i]).collect();
        let mut changed = false;
        let mut visit = |i: usize, mut children: super::adjacency::Children<'_>| {
            if !useful[i] && children.any(|j| useful[j as usize]) {
                useful[i] = true;
                changed = true;
            }
        };
        // Most positions open: every list is read in turn (finding each list of a set costs
        // more than stepping to it).
        let all = 2 * open.len() > graph.expanded();
        match (sweep % 2 == 0, all) {
            (true, true) => graph
                .adjacency
                .iter_rev()
                .for_each(|(i, children)| visit(i, children)),
            (true, false) => {
                for block in open.rchunks(BLOCK) {
                    let lists: Vec<_> = graph.adjacency.iter_of(block.iter().copied()).collect();
                    for (i, children) in lists.into_iter().rev() {
                        visit(i, children);
                    }
                }
            }
            (false, true) => graph
                .adjacency
                .iter()
                .for_each(|(i, children)| visit(i, children)),
            (false, false) => graph
                .adjacency
                .iter_of(open.iter().copied())
                .for_each(|(i, children)| visit(i, children)),
        }
        if !changed {
            return useful;
        }
    }
    let reverse = graph.adjacency.reversed(n);
    let mut stack: Vec<usize> = (0..n).filter(|&i| useful[i]).collect();
    while let Some(j) = stack.pop() {
        for i in reverse.children(j) {
            if !useful[i as usize] {
                useful[i as usize] = true;
                stack.push(i as usize);
            }
        }
    }
    useful
}

/// The positions a cycle is looked for from by [`short_cycle`]: the first ones that reach an
/// origin, in index order.
const SHORT_CYCLE_STARTS: usize = 16;

/// The longest cycle [`short_cycle`] looks for (a cycle of retractions has an even length,
/// since the side to move alternates: 4 is the shortest, two moves of each side undone).
const SHORT_CYCLE_LENGTH: usize = 4;

/// The lists [`short_cycle`] reads at most.
const SHORT_CYCLE_LISTS: usize = 4096;

/// Whether a cycle through positions that reach an origin (`useful`) is found near the roots:
/// a walk of at most [`SHORT_CYCLE_LENGTH`] retractions from one of the first useful
/// positions back to itself, reading at most [`SHORT_CYCLE_LISTS`] lists. Every position of
/// such a cycle reaches the one it starts from, so it reaches an origin too: it is a cycle
/// that Kahn's algorithm ([`topological_order`]) would leave over. Finding none decides
/// nothing.
fn short_cycle(graph: &Graph, useful: &[bool]) -> bool {
    /// Depth-first: whether a walk of at most `left` more retractions from `i` ends at
    /// `start`, within `budget` lists.
    fn back_to(
        graph: &Graph,
        useful: &[bool],
        start: usize,
        i: usize,
        left: usize,
        budget: &mut usize,
    ) -> bool {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        graph.children(i).any(|j| {
            let j = j as usize;
            j == start
                || (left > 1 && useful[j] && back_to(graph, useful, start, j, left - 1, budget))
        })
    }
    let mut budget = SHORT_CYCLE_LISTS;
    (0..graph.expanded())
        .filter(|&i| useful[i])
        .take(SHORT_CYCLE_STARTS)
        .any(|start| back_to(graph, useful, start, start, SHORT_CYCLE_LENGTH, &mut budget))
}

/// Kahn's algorithm on the positions that reach an origin (`useful`): they are taken in
/// rounds, each round the positions no unremoved one has an edge to, so that the order is
/// topological; what is left over lies on a cycle. The in-degrees are counted in parallel and
/// the rounds taken in parallel parts; each round is sorted, so the order does not depend on
/// the number of threads.
fn topological_order(graph: &Graph, useful: &[bool]) -> Vec<u32> {
    topological_order_in_parts(graph, useful, 4096)
}

/// [`topological_order`], freeing rounds larger than `part` positions in parallel parts of
/// that many.
fn topological_order_in_parts(graph: &Graph, useful: &[bool], part: usize) -> Vec<u32> {
    use std::sync::atomic::{AtomicU32, Ordering};
    let n = graph.len();
    // Counted in one plain array per thread (atomic increments cost far more), then summed.
    let lists = graph.expanded();
    let threads = rayon::current_num_threads().max(1);
    let indegree: Vec<AtomicU32> = (0..threads)
        .into_par_iter()
        .map(|t| {
            let (start, end) = (lists * t / threads, lists * (t + 1) / threads);
            let mut counts = vec![0u32; n];
            for (i, children) in graph.adjacency.iter_from(start).take(end - start) {
                if useful[i] {
                    for j in children {
                        if useful[j as usize] {
                            counts[j as usize] += 1;
                        }
                    }
                }
            }
            counts
        })
        .reduce_with(|mut a, b| {
            a.iter_mut().zip(b).for_each(|(x, y)| *x += y);
            a
        })
        .unwrap_or_else(|| vec![0; n])
        .into_iter()
        .map(AtomicU32::new)
        .collect();
    let mut order: Vec<u32> = (0..n)
        .filter(|&i| useful[i] && indegree[i].load(Ordering::Relaxed) == 0)
        .map(|i| i as u32)
        .collect();
    let mut round = 0..order.len();
    while !round.is_empty() {
        let freed = |part: &[u32]| {
            let mut out = Vec::new();
            for (_, children) in graph.adjacency.iter_of(part.iter().map(|&i| i as usize)) {
                for j in children {
                    if useful[j as usize]
                        && indegree[j as usize].fetch_sub(1, Ordering::Relaxed) == 1
                    {
                        out.push(j);
                    }
                }
            }
            out
        };
        let mut next: Vec<u32> = if round.len() <= part {
            freed(&order[round.clone()])
        } else {
            order[round.clone()]
                .par_chunks(part)
                .flat_map_iter(freed)
                .collect()
        };
        next.sort_unstable();
        let start = order.len();
        order.extend(next);
        round = start..order.len();
    }
    order
}

impl Analysis {
    /// Analyses `graph`.
    pub fn new(graph: &Graph) -> Analysis {
        let n = graph.len();
        let expanded = graph.expanded();
        let nearest_origin = (0..expanded).find(|&i| graph.is_origin(i));
        let min_lower_bound = match nearest_origin {
            Some(i) => u64::from(graph.dist(i)),
            None if expanded < n => u64::from(graph.dist(expanded)),
            None => u64::from(graph.dist(n.saturating_sub(1))) + 1,
        };
        let useful = reaching_origin(graph, SWEEPS);
        let roots = graph.roots.len().min(n);
        let reaches_origin = (0..roots).any(|i| useful[i]);
        // A short cycle found near the roots settles it; else Kahn's algorithm, whose order
        // also gives the longest path.
        let (cycle, order) = if short_cycle(graph, &useful) {
            (true, Vec::new())
        } else {
            let order = topological_order(graph, &useful);
            let useful_count = useful.iter().filter(|&&u| u).count();
            (order.len() < useful_count, order)
        };
        let mut longest = None;
        let mut longest_next = vec![u32::MAX; n];
        if !cycle && reaches_origin {
            // Longest path to an origin, in reverse topological order.
            let mut best = vec![i64::MIN; n];
            for &i in order.iter().rev() {
                let i = i as usize;
                let mut b = if graph.is_origin(i) { 0 } else { i64::MIN };
                for j in graph.children(i) {
                    let j = j as usize;
                    if useful[j] && best[j] != i64::MIN && best[j] + 1 > b {
                        b = best[j] + 1;
                        longest_next[i] = j as u32;
                    }
                }
                if b == 0 {
                    longest_next[i] = u32::MAX;
                }
                best[i] = b;
            }
            longest = (0..roots)
                .filter(|&r| best[r] >= 0)
                .max_by_key(|&r| (best[r], std::cmp::Reverse(r)))
                .map(|r| (best[r] as u64, r));
        }
        Analysis {
            nearest_origin,
            min_lower_bound,
            cycle,
            longest,
            reaches_origin,
            useful,
            longest_next,
        }
    }

    /// The roots that reach an origin.
    fn start_set(&self, graph: &Graph) -> Bits {
        let mut set = Bits::new(graph.len());
        for r in 0..graph.roots.len().min(graph.len()) {
            if self.useful[r] {
                set.insert(r);
            }
        }
        set
    }

    /// The positions one reversible retraction beyond `current` that reach an origin. Large
    /// sets are stepped in parallel, in parts whose results are joined (the same set for any
    /// number of threads).
    fn step(&self, graph: &Graph, current: &Bits) -> Bits {
        const PART: usize = 4096;
        let expanded = graph.expanded();
        let n = graph.len();
        let from: Vec<usize> = current.iter().filter(|&i| i < expanded).collect();
        let step_part = |part: &[usize]| {
            let mut next = Bits::new(n);
            for (_, children) in graph.adjacency.iter_of(part.iter().copied()) {
                for j in children {
                    if self.useful[j as usize] {
                        next.insert(j as usize);
                    }
                }
            }
            next
        };
        if from.len() <= PART {
            return step_part(&from);
        }
        from.par_chunks(PART).map(step_part).reduce(
            || Bits::new(n),
            |mut a, b| {
                a.union_with(&b);
                a
            },
        )
    }

    /// The indices along the shortest line from a root to the nearest origin (root first).
    pub fn shortest_line(&self, graph: &Graph) -> Option<Vec<usize>> {
        let mut i = self.nearest_origin?;
        let mut line = vec![i];
        while let Some(parent) = graph.parent(i) {
            i = parent;
            line.push(i);
        }
        line.reverse();
        Some(line)
    }

    /// The indices along the longest line from a root to an origin (root first), when bounded.
    pub fn longest_line(&self) -> Option<Vec<usize>> {
        let (_, mut i) = self.longest?;
        let mut line = vec![i];
        while self.longest_next[i] != u32::MAX {
            i = self.longest_next[i] as usize;
            line.push(i);
        }
        Some(line)
    }

    /// The sets of positions that walks of 0, 1, 2, … reversible retractions from the roots
    /// reach (through positions that reach an origin), up to `k` plies or until a set repeats
    /// an earlier one: the sets, and the repetition as (first index, period) when one was seen.
    fn walk_sets(&self, graph: &Graph, k: u64) -> (Vec<Bits>, Option<(u64, u64)>) {
        let mut sets: Vec<Bits> = Vec::new();
        let mut seen: std::collections::HashMap<Bits, u64> = std::collections::HashMap::new();
        let mut current = self.start_set(graph);
        loop {
            let step = sets.len() as u64;
            if let Some(&first) = seen.get(&current) {
                return (sets, Some((first, step - first)));
            }
            if step > k {
                return (sets, None);
            }
            seen.insert(current.clone(), step);
            sets.push(current.clone());
            if current.is_empty() {
                return (sets, None);
            }
            current = self.step(graph, &current);
        }
    }

    /// Which of `sets` ([`Self::walk_sets`]) holds the walks of `s` plies: past the last one,
    /// the sets repeat with the period seen.
    fn set_at(sets: &[Bits], repeat: Option<(u64, u64)>, s: u64) -> Option<&Bits> {
        if s < sets.len() as u64 {
            return sets.get(s as usize);
        }
        let (first, period) = repeat?;
        sets.get((first + (s - first) % period) as usize)
    }

    /// Whether a walk of exactly `k` reversible retractions from a root ends at an origin.
    /// Walks use only positions that reach an origin.
    ///
    /// The walk sets repeat from some length on; once a repetition is seen, larger `k` are
    /// answered from the cycle of sets, so any `k` is cheap on a small graph.
    pub fn walk_exists(&self, graph: &Graph, k: u64) -> bool {
        let (sets, repeat) = self.walk_sets(graph, k);
        Self::set_at(&sets, repeat, k).is_some_and(|set| set.iter().any(|i| graph.is_origin(i)))
    }

    /// A walk (root first) of exactly `k` reversible retractions from a root to an origin, when
    /// one exists and `k` is at most [`MAX_WALK_PLIES`]: every one of its `k` plies is there,
    /// the cycles it goes round included, so that it witnesses `k` by itself.
    pub fn walk_to_origin(&self, graph: &Graph, k: u64) -> Option<Vec<usize>> {
        if k > MAX_WALK_PLIES {
            return None;
        }
        let expanded = graph.expanded();
        let (sets, repeat) = self.walk_sets(graph, k);
        let end = Self::set_at(&sets, repeat, k)?
            .iter()
            .find(|&i| graph.is_origin(i))?;
        // Walk back: at each step pick a parent in the previous set (every position of a set
        // has one, as the set is the step of the previous one).
        let mut line = Vec::with_capacity(k as usize + 1);
        line.push(end);
        let mut cur = end;
        for step in (0..k).rev() {
            let prev = Self::set_at(&sets, repeat, step)?
                .iter()
                .find(|&i| i < expanded && graph.children(i).any(|c| c as usize == cur))?;
            line.push(prev);
            cur = prev;
        }
        line.reverse();
        Some(line)
    }

    /// The clock values up to `limit` (inclusive) that some walk to an origin witnesses.
    ///
    /// The sets of positions reached by walks of each length repeat from some length on; once a
    /// repetition is seen, the rest of the values follow from the cycle of sets. Sooner, when
    /// the last two sets each hold an origin and each holds the set two plies shorter, every
    /// larger value is witnessed: a step maps a larger set to a larger one, so each set holds
    /// the one two plies shorter from there on, and with it an origin.
    pub fn values_up_to(&self, graph: &Graph, limit: u64) -> Vec<u64> {
        let mut out = Vec::new();
        let mut current = self.start_set(graph);
        let mut seen: std::collections::HashMap<Bits, u64> = std::collections::HashMap::new();
        let mut hits: Vec<bool> = Vec::new();
        // The sets of the last two lengths, and whether each held an origin and the set two
        // plies shorter.
        let mut last: [Option<Bits>; 2] = [None, None];
        let mut settled = [false, false];
        let mut k = 0u64;
        while k <= limit {
            if current.is_empty() {
                break;
            }
            if let Some(&first) = seen.get(&current) {
                // Walk sets repeat with period k - first: so do the values.
                let period = k - first;
                for j in k..=limit {
                    if hits[(first + (j - first) % period) as usize] {
                        out.push(j);
                    }
                }
                break;
            }
            let hit = current.iter().any(|i| graph.is_origin(i));
            hits.push(hit);
            if hit {
                out.push(k);
            }
            let parity = (k % 2) as usize;
            settled[parity] = hit
                && last[parity]
                    .as_ref()
                    .is_some_and(|shorter| current.is_superset(shorter));
            if settled == [true, true] {
                out.extend(k + 1..=limit);
                break;
            }
            seen.insert(current.clone(), k);
            let next = self.step(graph, &current);
            last[parity] = Some(std::mem::replace(&mut current, next));
            k += 1;
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        clock::{Budget, solve_clock},
        position::PositionInput,
        rules::Rules,
    };

    /// The clock answer for `fen` under `rules`, with its graph, stored up to `nodes`
    /// positions.
    fn solved(fen: &str, rules: Rules, nodes: u64) -> crate::clock::ClockAnswer {
        let input = PositionInput::parse(fen).unwrap();
        let budget = Budget {
            max_nodes: nodes,
            ..Budget::default()
        };
        solve_clock(&input, rules, &budget, &|_| {})
    }

    /// The values listed (with the shortcut once both parities keep an origin) are those that
    /// walks of each length witness, one length at a time: every value, only odd ones, every
    /// fourth one, a single one, two in a row and no more.
    #[test]
    fn listed_values_are_the_walks_that_end_at_an_origin() {
        let limit = 40;
        for (fen, rules, expected) in [
            ("8/5k2/8/8/8/2K5/8/7R b - -", Rules::Fide, None),
            (
                "8/8/8/4k3/8/P1P2P1P/2PPP1P1/RNBQKBNR w KQ -",
                Rules::Fide,
                Some((1..=limit).step_by(2).collect::<Vec<u64>>()),
            ),
            (
                "r1bqkb1r/pppppppp/N6N/8/8/n6n/PPPPPPPP/R1BQKB1R w KQkq -",
                Rules::Fide,
                None,
            ),
            ("8/8/8/8/8/8/3P4/2KR3k b - -", Rules::Retro, Some(vec![0])),
            // Two values in a row, then none: the castling rights freeze both sides.
            (
                "r3k2r/pppp1ppp/4p3/8/8/8/PPPPBPPP/R3K2R b KQkq -",
                Rules::Fide,
                Some(vec![0, 1]),
            ),
        ] {
            let input = PositionInput::parse(fen).unwrap();
            let answer = solve_clock(&input, rules, &Budget::default(), &|_| {});
            let graph = answer.graph.as_ref().unwrap();
            assert!(graph.complete, "{fen}");
            let analysis = Analysis::new(graph);
            let listed = analysis.values_up_to(graph, limit);
            let walked: Vec<u64> = (0..=limit)
                .filter(|&k| analysis.walk_exists(graph, k))
                .collect();
            assert_eq!(listed, walked, "{fen}");
            if let Some(expected) = expected {
                assert_eq!(listed, expected, "{fen}");
            }
        }
    }

    #[test]
    fn sweeps_and_reversed_lists_mark_the_same_positions() {
        for (fen, nodes) in [
            ("8/5k2/8/8/8/2K5/8/7R b - -", 30_000),
            (
                "r1bqkb1r/pppppppp/N6N/8/8/n6n/PPPPPPPP/R1BQKB1R w KQkq -",
                300_000,
            ),
            ("8/8/8/4k3/8/P1P2P1P/2PPP1P1/RNBQKBNR w KQ -", 30_000),
        ] {
            let answer = solved(fen, Rules::Fide, nodes);
            let graph = answer.graph.as_ref().unwrap();
            let reversed = reaching_origin(graph, 0);
            assert!(reversed.iter().any(|&u| u), "{fen}");
            for sweeps in [1, 2, SWEEPS, 1000] {
                assert_eq!(
                    reaching_origin(graph, sweeps),
                    reversed,
                    "{fen}, {sweeps} sweeps"
                );
            }
        }
    }

    #[test]
    fn the_topological_order_is_kahns_for_any_number_of_threads() {
        for (fen, nodes, rules) in [
            ("8/5k2/8/8/8/2K5/8/7R b - -", 60_000, Rules::Fide),
            ("8/8/8/8/8/8/3P4/2KR3k b - -", 1_000, Rules::Fide),
            (
                "8/8/8/4k3/8/P1P2P1P/2PPP1P1/RNBQKBNR w KQ -",
                60_000,
                Rules::Fide,
            ),
        ] {
            let answer = solved(fen, rules, nodes);
            let graph = answer.graph.as_ref().unwrap();
            let useful = reaching_origin(graph, SWEEPS);
            let orders: Vec<Vec<u32>> = [1, 2, 3]
                .into_iter()
                .map(|threads| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .unwrap()
                        .install(|| topological_order(graph, &useful))
                })
                .collect();
            assert!(orders.iter().all(|o| *o == orders[0]), "{fen}");
            let order = &orders[0];
            // Every edge between ordered positions goes forward in the order.
            let mut rank = vec![u32::MAX; graph.len()];
            for (k, &i) in order.iter().enumerate() {
                assert!(useful[i as usize] && rank[i as usize] == u32::MAX, "{fen}");
                rank[i as usize] = k as u32;
            }
            for i in 0..graph.expanded() {
                for j in graph.children(i) {
                    if useful[i] && useful[j as usize] && rank[j as usize] != u32::MAX {
                        assert!(rank[i] < rank[j as usize], "{fen}: edge {i} -> {j}");
                    }
                }
            }
            // A plain serial Kahn leaves out the same positions.
            let mut indegree = vec![0u32; graph.len()];
            for i in (0..graph.expanded()).filter(|&i| useful[i]) {
                for j in graph.children(i).filter(|&j| useful[j as usize]) {
                    indegree[j as usize] += 1;
                }
            }
            let mut queue: Vec<usize> = (0..graph.len())
                .filter(|&i| useful[i] && indegree[i] == 0)
                .collect();
            let mut taken = 0;
            while let Some(i) = queue.pop() {
                taken += 1;
                for j in graph.children(i).filter(|&j| useful[j as usize]) {
                    indegree[j as usize] -= 1;
                    if indegree[j as usize] == 0 {
                        queue.push(j as usize);
                    }
                }
            }
            assert_eq!(order.len(), taken, "{fen}");
            let useful_count = useful.iter().filter(|&&u| u).count();
            assert_eq!(
                answer.max == crate::clock::MaxClock::Unbounded,
                taken < useful_count,
                "{fen}"
            );
        }
    }

    /// A graph of `n` positions whose lists are given, all expanded, none an origin.
    fn graph_of(lists: &mut [Vec<u32>]) -> Graph {
        let n = lists.len();
        let mut graph = Graph {
            roots: Vec::new(),
            ids: crate::clock::Ids::Hashed(
                (0..n as u64)
                    .map(|i| crate::clock::PositionId::new(i, 0))
                    .collect(),
            ),
            layout: None,
            level_start: vec![0],
            origin: Bits::default(),
            booked: Bits::default(),
            adjacency: Default::default(),
            complete: true,
            stopped_by: None,
            index_bytes: 0,
        };
        for list in lists.iter_mut() {
            graph.origin.push(false);
            graph.adjacency.push(list);
        }
        graph
    }

    #[test]
    fn a_short_cycle_is_one_that_kahn_leaves_over() {
        // A 4-cycle 0 -> 1 -> 2 -> 3 -> 0 near the start, and a path 4 -> 5 -> 6.
        let lists = vec![
            vec![1],
            vec![2, 4],
            vec![3],
            vec![0],
            vec![5],
            vec![6],
            vec![],
        ];
        let graph = graph_of(&mut lists.clone());
        let all = vec![true; graph.len()];
        assert!(short_cycle(&graph, &all));
        let order = topological_order(&graph, &all);
        assert!(order.len() < graph.len());
        // Positions that reach no origin are not walked through: no cycle among the others.
        let mut useful = all.clone();
        useful[2] = false;
        assert!(!short_cycle(&graph, &useful));
        // A longer cycle is not looked for (Kahn's algorithm finds it).
        let lists = vec![vec![1], vec![2], vec![3], vec![4], vec![5], vec![0]];
        let graph = graph_of(&mut lists.clone());
        assert!(!short_cycle(&graph, &vec![true; graph.len()]));
        // On real graphs: whenever one is found, Kahn's algorithm leaves positions over; and
        // K+R v K has one near its root.
        for (fen, nodes, found) in [
            ("8/5k2/8/8/8/2K5/8/7R b - -", 20_000, Some(true)),
            ("8/8/8/8/8/8/3P4/2KR3k b - -", 1_000, None),
            ("8/8/8/4k3/8/P1P2P1P/2PPP1P1/RNBQKBNR w KQ -", 20_000, None),
            ("4k3/8/8/8/8/8/8/4K3 w - -", 20_000, None),
        ] {
            let answer = solved(fen, Rules::Fide, nodes);
            let graph = answer.graph.as_ref().unwrap();
            let useful = reaching_origin(graph, SWEEPS);
            let short = short_cycle(graph, &useful);
            if let Some(found) = found {
                assert_eq!(short, found, "{fen}");
            }
            if short {
                let useful_count = useful.iter().filter(|&&u| u).count();
                assert!(
                    topological_order(graph, &useful).len() < useful_count,
                    "{fen}"
                );
            }
        }
    }

    #[test]
    fn rounds_freed_in_parallel_parts_give_a_topological_order() {
        // A layered graph of 20,000 positions, edges only to the next three layers of 200
        // (acyclic), then the same with one edge back making a cycle through layers 10-12.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = move |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        let (layers, width) = (100u64, 200u64);
        let mut lists: Vec<Vec<u32>> = (0..layers * width)
            .map(|i| {
                let layer = i / width;
                let mut list: Vec<u32> = (0..next(5))
                    .filter_map(|_| {
                        let to = (layer + 1 + next(3)) * width + next(width);
                        (to < layers * width).then_some(to as u32)
                    })
                    .collect();
                list.sort_unstable();
                list.dedup();
                list
            })
            .collect();
        for cyclic in [false, true] {
            if cyclic {
                let back = 10 * width as u32;
                lists[(12 * width) as usize].insert(0, back);
                lists[back as usize].push(11 * width as u32);
                lists[(11 * width) as usize].push(12 * width as u32);
            }
            let graph = graph_of(&mut lists.clone());
            let useful = vec![true; graph.len()];
            let serial = topological_order_in_parts(&graph, &useful, usize::MAX);
            for threads in [1, 2, 3] {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap();
                let order = pool.install(|| topological_order_in_parts(&graph, &useful, 16));
                assert_eq!(order, serial, "{threads} threads, cyclic {cyclic}");
            }
            let mut rank = vec![usize::MAX; graph.len()];
            for (k, &i) in serial.iter().enumerate() {
                rank[i as usize] = k;
            }
            for i in 0..graph.len() {
                for j in graph.children(i) {
                    if rank[i] != usize::MAX && rank[j as usize] != usize::MAX {
                        assert!(rank[i] < rank[j as usize], "edge {i} -> {j}");
                    }
                }
            }
            // Acyclic: every position is ordered. With the cycle, the positions on it and
            // those it reaches are left over, the others ordered.
            let left = serial.len() < graph.len();
            assert_eq!(left, cyclic);
            if cyclic {
                assert_eq!(rank[(10 * width) as usize], usize::MAX);
                assert!(rank[0] != usize::MAX);
            }
        }
    }

    #[test]
    fn a_step_in_parallel_parts_equals_a_step_in_one() {
        let answer = solved("8/5k2/8/8/8/2K5/8/7R b - -", Rules::Fide, 40_000);
        let graph = answer.graph.as_ref().unwrap();
        let analysis = Analysis::new(graph);
        // Every expanded position that reaches an origin: far more than one part.
        let mut current = Bits::new(graph.len());
        for i in (0..graph.expanded()).filter(|&i| analysis.useful[i]) {
            current.insert(i);
        }
        assert!(current.iter().count() > 10_000);
        let mut expected = Bits::new(graph.len());
        for i in current.iter() {
            for j in graph.children(i) {
                if analysis.useful[j as usize] {
                    expected.insert(j as usize);
                }
            }
        }
        for threads in [1, 2] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            assert!(pool.install(|| analysis.step(graph, &current)) == expected);
        }
    }
}
