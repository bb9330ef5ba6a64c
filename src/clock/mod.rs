//! The clock solver: which halfmove-clock values a position allows (SPEC §3: the set H(P)).
//!
//! [`search`] explores the graph of reversible retractions, [`origin`] decides which reset
//! retractions end at a possible origin, [`refine`] refutes the nearest candidates with deeper
//! chains, [`analysis`] draws the bounds and values from the graph, and [`solve_clock`] puts
//! them together into a [`ClockAnswer`] with checked certificates.

pub mod adjacency;
pub mod analysis;
pub mod bits;
pub mod identity;
pub mod origin;
pub mod refine;
pub mod sealed;
pub mod search;

use std::collections::HashMap;
use std::time::Instant;

use shakmaty::{Bitboard, Move};

use crate::{
    legality,
    position::{Position, PositionInput},
    retract::{for_each_retraction, retractions},
    rules::{Convention, Rules},
    verify,
};

pub use analysis::{Analysis, MAX_WALK_PLIES};
pub use identity::{Ids, Layout, PositionId};
pub use origin::OriginEvidence;
pub use refine::Refinement;
pub use search::{Budget, Graph, Progress};

/// The largest graph (positions explored) on which the exact set of values is listed.
pub const VALUES_GRAPH_LIMIT: usize = 200_000;

/// The upper end of the clock range.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum MaxClock {
    /// No history is longer than this (proven).
    Bounded(u64),
    /// A cycle lies on a line to an origin: every larger value of the right parity is reached
    /// by going round it.
    Unbounded,
    /// The search ran out of budget before deciding; `at_least` is the longest line found.
    Unknown {
        /// The largest value witnessed so far.
        at_least: Option<u64>,
    },
}

/// A retraction line as a certificate: the game fragment from the position before the reset
/// move up to the position, re-checked by [`crate::verify`].
#[derive(Clone, Debug)]
pub struct Certificate {
    /// The clock value this line gives the position.
    pub clock: u64,
    /// The position before the reset move (or the position itself when it is the initial array
    /// and the line is empty).
    pub start: Position,
    /// The forward moves, oldest first: the reset move (if any), then the reversible moves.
    pub moves: Vec<Move>,
    /// The same moves in SAN, as the replay checker produced them.
    pub san: Vec<String>,
    /// Why the start counts as a possible origin.
    pub evidence: OriginEvidence,
}

/// Whether the position can have a history at all, as far as the clock solver can tell.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Standing {
    /// The position fails static necessary conditions (the reasons are listed).
    Illegal(Vec<String>),
    /// The whole reversible graph was explored and no origin was found: no legal history (or,
    /// in an answer under the premise `at move N`, no game of that length reaches the position).
    NoHistory,
    /// Some line reaches an origin that passed the necessary conditions.
    Possible,
    /// The budget ran out before any origin was found.
    Undecided,
}

/// What the solver established about the clock of a position.
#[derive(Clone, Debug)]
pub struct ClockAnswer {
    /// The rule set the answer is under.
    pub rules: Rules,
    /// Whether the position can have a history.
    pub standing: Standing,
    /// The proven minimum (exact when `standing` is `Possible`), or the lower bound reached.
    pub min: Option<u64>,
    /// A proven lower bound on every value (equals `min` when it is known).
    pub min_lower_bound: u64,
    /// The upper end.
    pub max: MaxClock,
    /// Whether the reversible graph was explored completely within budget.
    pub complete: bool,
    /// The values up to `values_limit` that some line witnesses (exact when complete).
    pub values: Option<Vec<u64>>,
    /// The largest value `values` covers.
    pub values_limit: u64,
    /// Parities that occur: `[even, odd]`.
    pub parities: [bool; 2],
    /// The parity every value must have (0 even, 1 odd), when it is proven without a complete
    /// search: one side can never have reset the count (see [`parity_by_resets`]), so the
    /// last reset was the other side's move, or the game's start.
    pub parity_proven: Option<u8>,
    /// Whether no reset can be taken back anywhere: every history starts at the initial array
    /// and the clock counts every ply of the game.
    pub closed: bool,
    /// The shortest line.
    pub shortest: Option<Certificate>,
    /// The longest line (when the maximum is bounded).
    pub longest: Option<Certificate>,
    /// The largest clock the fullmove number allows, when the FEN gives it.
    pub fullmove_bound: Option<u64>,
    /// Retraction-chain depth required of origins.
    pub chain_depth: u32,
    /// What deeper chains did to the origins nearest the position.
    pub refinement: Refinement,
    /// Positions stored.
    pub nodes: u64,
    /// Bytes per stored position in the position table (code, origin flag, level ranges,
    /// index).
    pub bytes_per_node: f64,
    /// Bytes per stored position in the adjacency lists.
    pub edge_bytes_per_node: f64,
    /// Seconds spent.
    pub seconds: f64,
    /// Why the search stopped early, if it did.
    pub stopped_by: Option<&'static str>,
    /// The explored graph, kept for further questions (`clock=N`, DOT output).
    pub graph: Option<Graph>,
    /// The analysis of the graph.
    pub analysis: Option<Analysis>,
}

impl ClockAnswer {
    /// Whether the position may have a legal history at all: false when it is illegal on its
    /// face or no line of reversible retractions reaches an origin (then no clock value is
    /// possible, and the answer has no minimum and no maximum).
    pub fn has_history(&self) -> bool {
        !matches!(self.standing, Standing::Illegal(_) | Standing::NoHistory)
    }

    /// Whether no reset can be taken back from any position the reversible retractions reach,
    /// so that every history starts at the initial array and the clock counts every ply of the
    /// game (then [`ClockAnswer::parity_proven`] is set).
    pub fn counts_every_ply(&self) -> bool {
        self.closed
    }

    /// Whether `k` is a possible clock value: `Some(true)` witnessed, `Some(false)` proven
    /// impossible, `None` unknown within the budget.
    pub fn value_possible(&self, k: u64) -> Option<bool> {
        match self.standing {
            Standing::Illegal(_) | Standing::NoHistory => return Some(false),
            Standing::Possible | Standing::Undecided => {}
        }
        if k < self.min_lower_bound {
            return Some(false);
        }
        if self.parity_proven.is_some_and(|p| u64::from(p) != k % 2) {
            return Some(false);
        }
        if let MaxClock::Bounded(m) = self.max
            && k > m
        {
            return Some(false);
        }
        if let (Some(graph), Some(analysis)) = (&self.graph, &self.analysis) {
            if analysis.walk_exists(graph, k) {
                return Some(true);
            }
            if self.complete {
                return Some(false);
            }
        }
        None
    }

    /// What stays true of every narrower set of histories: the proven lower bound and, after a
    /// complete search, the parities. The witnessed minimum and maximum, values, lines and
    /// standing are dropped (their histories may lie outside the narrower set), and with them
    /// the analysis that would witness further values. (A bounded maximum still bounds the
    /// narrower set, but `max` states the largest value itself, which is no longer known.)
    pub fn proven_only(self) -> ClockAnswer {
        let parities = if self.complete {
            self.parities
        } else {
            match self.parity_proven {
                Some(p) => [p == 0, p == 1],
                None => [true, true],
            }
        };
        ClockAnswer {
            standing: match self.standing {
                Standing::Possible => Standing::Undecided,
                other => other,
            },
            min: None,
            max: MaxClock::Unknown { at_least: None },
            values: None,
            parities,
            shortest: None,
            longest: None,
            analysis: None,
            ..self
        }
    }

    /// A certificate for value `k`, when one is witnessed. A line ending at the nearest origin
    /// shows that origin's chain at the depth the refinement confirmed it.
    pub fn certificate_for(&self, k: u64, convention: Convention) -> Option<Certificate> {
        let (graph, analysis) = (self.graph.as_ref()?, self.analysis.as_ref()?);
        let line = analysis.walk_to_origin(graph, k)?;
        line_certificate(
            graph,
            analysis,
            &self.refinement,
            &line,
            convention,
            self.chain_depth,
        )
    }
}

impl ClockAnswer {
    /// Witness lines to the origins nearest the position, nearest first (breadth-first
    /// order), at most `limit` of them: one per reset retraction that makes an origin (an
    /// origin may have several), optionally only those whose clock has parity `parity` (0
    /// even, 1 odd). Each line is checked by forward replay, as every certificate. At most
    /// 20 origins per line asked for (200 at least) are looked at.
    pub fn nearest_lines(
        &self,
        convention: Convention,
        parity: Option<u8>,
        limit: usize,
    ) -> Vec<Certificate> {
        let Some(graph) = self.graph.as_ref() else {
            return Vec::new();
        };
        let mut out = Vec::new();
        let mut parents: Option<Vec<u32>> = None;
        // Origins whose resets are all refuted give no line; the look is bounded.
        let most = limit.saturating_mul(20).max(200);
        for (tried, i) in graph.origin.iter().enumerate() {
            if out.len() >= limit || tried >= most {
                break;
            }
            if parity.is_some_and(|p| graph.dist(i) % 2 != u32::from(p)) {
                continue;
            }
            let parents = parents.get_or_insert_with(|| graph.parents());
            let mut line = vec![i];
            let mut j = i;
            while let Some(&p) = parents.get(j).filter(|&&p| p != u32::MAX) {
                j = p as usize;
                line.push(j);
            }
            line.reverse();
            let depth = self
                .refinement
                .confirmed_depth
                .unwrap_or(self.chain_depth)
                .max(self.chain_depth);
            out.extend(
                certificates(graph, &line, convention, depth)
                    .into_iter()
                    .take(limit - out.len()),
            );
        }
        out
    }
}

/// Solves the clock question for every position consistent with `input`.
pub fn solve_clock(
    input: &PositionInput,
    rules: Rules,
    budget: &Budget,
    progress: &(dyn Fn(Progress) + Sync),
) -> ClockAnswer {
    let started = Instant::now();
    let convention = rules.convention();
    let fullmove_bound = input
        .fullmove
        .known()
        .map(|f| crate::stipulation::MoveNumber(f).plies_before(input.turn));
    let mut reasons: Vec<String> = Vec::new();
    let mut roots = Vec::new();
    for pos in input.candidates() {
        let r = legality::static_reasons(&pos.board, pos.turn, pos.castling, pos.ep_square);
        if r.is_empty() {
            roots.push(pos);
        } else {
            for reason in r {
                let text = reason.to_string();
                if !reasons.contains(&text) {
                    reasons.push(text);
                }
            }
        }
    }
    let base = ClockAnswer {
        rules,
        standing: Standing::Illegal(reasons),
        min: None,
        min_lower_bound: 0,
        max: MaxClock::Bounded(0),
        complete: true,
        values: Some(Vec::new()),
        values_limit: 0,
        parities: [false, false],
        parity_proven: None,
        closed: false,
        shortest: None,
        longest: None,
        fullmove_bound,
        chain_depth: budget.chain_depth,
        refinement: Refinement::default(),
        nodes: 0,
        bytes_per_node: 0.0,
        edge_bytes_per_node: 0.0,
        seconds: 0.0,
        stopped_by: None,
        graph: None,
        analysis: None,
    };
    if roots.is_empty() {
        return ClockAnswer {
            seconds: started.elapsed().as_secs_f64(),
            ..base
        };
    }
    let closed = roots.iter().all(|r| resets_closed(r, convention));
    let parities_by_resets: Vec<Option<u8>> = roots
        .iter()
        .map(|r| parity_by_resets(r, convention))
        .collect();
    let parity_proven = match parities_by_resets.first() {
        Some(&Some(p)) if parities_by_resets.iter().all(|&q| q == Some(p)) => Some(p),
        _ => None,
    };
    let mut graph = search::explore(roots, convention, budget, progress);
    let refinement = refine::refine_minimum(&mut graph, convention, budget);
    let analysis = Analysis::new(&graph);
    let standing = if analysis.nearest_origin.is_some() {
        Standing::Possible
    } else if graph.complete {
        Standing::NoHistory
    } else {
        Standing::Undecided
    };
    let certify = |line: Vec<usize>| {
        line_certificate(
            &graph,
            &analysis,
            &refinement,
            &line,
            convention,
            budget.chain_depth,
        )
    };
    let shortest = analysis.shortest_line(&graph).and_then(certify);
    let longest = analysis.longest_line().and_then(certify);
    let max = if standing == Standing::NoHistory {
        MaxClock::Bounded(0)
    } else if analysis.cycle {
        MaxClock::Unbounded
    } else if graph.complete {
        match analysis.longest {
            Some((m, _)) => MaxClock::Bounded(m),
            None => MaxClock::Bounded(0),
        }
    } else {
        MaxClock::Unknown {
            at_least: analysis.longest.map(|(m, _)| m),
        }
    };
    let values_limit = 300u64.max(fullmove_bound.unwrap_or(0).min(2000));
    let values = (graph.len() <= VALUES_GRAPH_LIMIT && analysis.reaches_origin)
        .then(|| analysis.values_up_to(&graph, values_limit));
    let mut parities = [false, false];
    for i in graph.origin.iter() {
        parities[(graph.dist(i) % 2) as usize] = true;
        if parities == [true, true] {
            break;
        }
    }
    if let Some(p) = parity_proven {
        parities[usize::from(1 - p)] = false;
    }
    ClockAnswer {
        standing,
        parity_proven,
        closed,
        min: analysis.nearest_origin.map(|i| u64::from(graph.dist(i))),
        min_lower_bound: analysis.min_lower_bound,
        max,
        complete: graph.complete,
        values,
        values_limit,
        parities,
        shortest,
        longest,
        nodes: graph.len() as u64,
        bytes_per_node: graph.bytes_per_node(),
        edge_bytes_per_node: graph.edge_bytes_per_node(),
        seconds: started.elapsed().as_secs_f64(),
        stopped_by: graph.stopped_by,
        refinement,
        graph: Some(graph),
        analysis: Some(analysis),
        ..base
    }
}

/// Whether no position reachable from `pos` by reversible retractions has a reset retraction:
/// both sides have all 16 units (nothing can be put back), every pawn stands on its starting
/// rank (no pawn move or promotion can be taken back), and castling cannot be taken back as a
/// reset (each side holds a right, so its king never moved and it never castled; or the FIDE
/// convention, under which castling is reversible). Then the only origin is the initial
/// array, and the clock counts every ply: its parity is that of the side to move.
fn resets_closed(pos: &Position, convention: Convention) -> bool {
    let board = &pos.board;
    let full = shakmaty::Color::ALL
        .iter()
        .all(|&c| board.by_color(c).count() == 16);
    let pawns_home = (board.pawns() & board.white()) == Bitboard::from_rank(shakmaty::Rank::Second)
        && (board.pawns() & board.black()) == Bitboard::from_rank(shakmaty::Rank::Seventh);
    let castling_closed = !convention.castling_resets()
        || shakmaty::Color::ALL
            .iter()
            .all(|&c| (pos.castling & board.by_color(c)).any());
    full && pawns_home && castling_closed && pos.ep_square.is_none()
}

/// The parity of every clock value of `pos` (0 even, 1 odd) when one side can never have reset
/// the count: its pawns all stand on their starting rank (it never moved a pawn, nor promoted),
/// the other side has all 16 units (it never captured), and it never castled as a reset (the
/// FIDE convention, or it still holds a castling right, so its king never moved). Then every
/// reset was the other side's move: right after the last one the never-resetting side was to
/// move with the count at 0, so the count is even when that side is to move and odd otherwise.
/// The game's start counts as such a reset when White never resets (White moves first at 0);
/// when Black never resets, White must certainly have reset (a pawn off its starting rank, or
/// a black unit missing), else the rule says nothing.
pub fn parity_by_resets(pos: &Position, convention: Convention) -> Option<u8> {
    use shakmaty::{Color, Rank};
    let board = &pos.board;
    let home = |c: Color| Bitboard::from_rank(c.fold_wb(Rank::Second, Rank::Seventh));
    let never_resets = |c: Color| {
        (board.pawns() & board.by_color(c)) == home(c)
            && board.by_color(!c).count() == 16
            && (!convention.castling_resets() || (pos.castling & board.by_color(c)).any())
    };
    let side = if never_resets(Color::White) {
        Color::White
    } else if never_resets(Color::Black)
        && ((board.pawns() & board.white()) != home(Color::White) || board.black().count() < 16)
    {
        Color::Black
    } else {
        return None;
    };
    Some(u8::from(pos.turn != side))
}

/// Follows `line` (indices, root first) by reversible retractions: the root, the moves taken
/// back (newest first), and the last position.
fn replay_line(
    graph: &Graph,
    line: &[usize],
    convention: Convention,
) -> Option<(Position, Vec<Move>, Position)> {
    let first = *line.first()?;
    let root = graph.roots.iter().find(|r| graph.holds(first, r))?.clone();
    let mut pos = root.clone();
    let mut backward: Vec<Move> = Vec::new();
    for &next in &line[1..] {
        let r = retractions(&pos)
            .into_iter()
            .find(|r| !r.is_reset(convention) && graph.holds(next, &r.predecessor))?;
        backward.push(r.mv);
        pos = r.predecessor;
    }
    Some((root, backward, pos))
}

/// The position stored as node `i` of `graph`: read back from its code when the code is exact,
/// else rebuilt along the line by which the search first reached it; `parents` is [`Graph::parents`] (for many positions, computed once), or
/// empty for a root. The positions rebuilt on the way are kept in `memo` (cleared when it
/// holds [`MEMO_LIMIT`] of them), so that the positions of one level, asked in turn, each cost
/// one step from their parent's.
pub(crate) fn position_of(
    graph: &Graph,
    parents: &[u32],
    i: usize,
    convention: Convention,
    memo: &mut HashMap<usize, Position>,
) -> Option<Position> {
    // An exact code is read back directly.
    if let Some(pos) = graph.ids.unpack(i, graph.layout.as_ref()) {
        return Some(pos);
    }
    let mut line = vec![i];
    let mut j = i;
    let mut pos = loop {
        if let Some(known) = memo.get(&j) {
            line.pop();
            break known.clone();
        }
        match parents.get(j).filter(|&&p| p != u32::MAX) {
            Some(&parent) => {
                j = parent as usize;
                line.push(j);
            }
            None => {
                line.pop();
                break graph.roots.iter().find(|r| graph.holds(j, r))?.clone();
            }
        }
    };
    if memo.len() >= MEMO_LIMIT {
        memo.clear();
    }
    memo.insert(j, pos.clone());
    for &next in line.iter().rev() {
        pos = retractions(&pos)
            .into_iter()
            .find(|r| !r.is_reset(convention) && graph.holds(next, &r.predecessor))?
            .predecessor;
        memo.insert(next, pos.clone());
    }
    Some(pos)
}

/// The most positions [`position_of`] keeps.
const MEMO_LIMIT: usize = 400_000;

/// The certificate of `line` (indices, root first, ending at an origin): the nearest origin,
/// which the refinement confirmed, is shown with the depth it was confirmed at; any other
/// origin (or a check that fails at that depth) with the search's own `chain_depth`.
fn line_certificate(
    graph: &Graph,
    analysis: &Analysis,
    refinement: &Refinement,
    line: &[usize],
    convention: Convention,
    chain_depth: u32,
) -> Option<Certificate> {
    refinement
        .confirmed_depth
        .filter(|_| line.last().copied() == analysis.nearest_origin)
        .and_then(|depth| certificate(graph, line, convention, depth))
        .or_else(|| certificate(graph, line, convention, chain_depth))
}

/// Rebuilds the positions along `line` (indices, root first, ending at an origin), finds the
/// reset that makes the last one an origin, and checks the whole line by forward replay.
fn certificate(
    graph: &Graph,
    line: &[usize],
    convention: Convention,
    chain_depth: u32,
) -> Option<Certificate> {
    certificates_up_to(graph, line, convention, chain_depth, 1).pop()
}

/// [`certificate`] for every reset that makes the last position of `line` an origin (one
/// certificate each; the initial array has one, with no reset).
fn certificates(
    graph: &Graph,
    line: &[usize],
    convention: Convention,
    chain_depth: u32,
) -> Vec<Certificate> {
    certificates_up_to(graph, line, convention, chain_depth, usize::MAX)
}

/// [`certificates`], the first `limit` of them.
fn certificates_up_to(
    graph: &Graph,
    line: &[usize],
    convention: Convention,
    chain_depth: u32,
    limit: usize,
) -> Vec<Certificate> {
    let Some((target, backward, pos)) = replay_line(graph, line, convention) else {
        return Vec::new();
    };
    // The resets that make the last position an origin.
    let starts: Vec<(Position, OriginEvidence, Option<Move>)> = if pos.is_initial() {
        vec![(pos.clone(), OriginEvidence::InitialArray, None)]
    } else {
        let mut found = Vec::new();
        for_each_retraction(&pos, |r| {
            if found.len() < limit && r.is_reset(convention) {
                let budget = Budget::default().deep_chain_budget;
                if let Some(e) = origin::origin_evidence(&r, chain_depth, budget) {
                    found.push((r.predecessor.clone(), e, Some(r.mv)));
                }
            }
        });
        found
    };
    starts
        .into_iter()
        .filter_map(|(start, evidence, reset)| {
            let mut moves: Vec<Move> = reset.into_iter().collect();
            moves.extend(backward.iter().rev());
            let san = verify::replay_line(&start, &moves, &target).ok()?;
            Some(Certificate {
                clock: (line.len() - 1) as u64,
                start,
                moves,
                san,
                evidence,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        PositionInput::parse(fen).unwrap().candidates().remove(0)
    }

    #[test]
    fn the_parity_of_a_side_that_never_reset() {
        // After 1.e4 with every black unit at home and Black's rights kept: every reset was
        // White's, so with Black to move the count is even.
        let after_e4 = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -");
        assert_eq!(parity_by_resets(&after_e4, Convention::Retro), Some(0));
        let white_to_move = pos("r1bqkbnr/pppppppp/2n5/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -");
        assert_eq!(parity_by_resets(&white_to_move, Convention::Fide), Some(1));
        // White never reset (its pawns home, Black complete): the start counts as Black's.
        let knights = pos("rnbqkbnr/pppp1ppp/8/4p3/8/5N2/PPPPPPPP/RNBQKB1R b KQkq -");
        assert_eq!(parity_by_resets(&knights, Convention::Fide), Some(1));
        // Neither side ever reset: the count is the game's length, even with White to move.
        let quiet = pos("r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w KQkq -");
        assert_eq!(parity_by_resets(&quiet, Convention::Retro), Some(0));
        // A side without rights may have castled, which resets under the Codex.
        let castled = pos("rnbq1rk1/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQ -");
        assert_eq!(parity_by_resets(&castled, Convention::Retro), None);
        assert_eq!(parity_by_resets(&castled, Convention::Fide), Some(1));
    }

    #[test]
    fn one_right_per_side_closes_castling_as_a_reset() {
        // Every unit on the board, every pawn at home: under the Codex, castling is the only
        // reset left, and a side that holds any right never moved its king.
        let closed = pos("r1bqkbnr/pppppppp/n7/8/8/5N2/PPPPPPPP/RNBQKBR1 b Qkq -");
        assert!(resets_closed(&closed, Convention::Retro));
        // Without a right, the rule does not rule Black's castling out.
        let open = pos("r1bqkbnr/pppppppp/n7/8/8/5N2/PPPPPPPP/RNBQKBR1 b Q -");
        assert!(!resets_closed(&open, Convention::Retro));
        assert!(resets_closed(&open, Convention::Fide));
    }

    #[test]
    fn a_clock_of_the_wrong_parity_is_impossible() {
        let input =
            PositionInput::parse("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 5 10")
                .unwrap();
        let answer = solve_clock(&input, Rules::default(), &Budget::default(), &|_| {});
        assert_eq!(answer.parity_proven, Some(0));
        assert_eq!(answer.value_possible(5), Some(false));
    }
}
