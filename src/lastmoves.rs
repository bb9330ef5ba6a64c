//! The retractor: every legal sequence of the last N plies, each checked by E further plies
//! back (`last N?`).
//!
//! The FEN's fields are facts, as in Chass's extended FEN (SPEC §3):
//! * castling rights and an e.p. square prune through the positions themselves; how a `-` in
//!   the e.p. field is read is a choice ([`EpReading`]): by default it says that no e.p.
//!   capture is legal now (the last move may still have been a double step no pawn can take);
//!   the FEN standard's reading says that the last move was no double step;
//! * a halfmove clock `c` says that the last `c` plies were reversible under the convention and
//!   that the ply before them, the `c+1`-th back, was a reset, unless the game began there. It
//!   holds in the N plies and in the E further ones alike;
//! * a fullmove number (or the premise `at move M`) says how many plies the game has lasted:
//!   `P = 2·(M−1)`, one more with Black to move. No sequence goes back beyond the initial array;
//!   one that reaches back P plies must start there; every position on the way must be reachable
//!   from the initial array in the plies left before it (the proof-game bounds,
//!   [`crate::proofgame::fewest_plies_single`]). When N = P the answer is the complete reconstruction:
//!   every game of P plies from the initial array that ends in the position, counted by the
//!   proof-game search after the plies the clock constrains have been taken back. A move number
//!   that leaves fewer than N plies is answered with that reason.
//!
//! Sequences are distinct move sequences. Positions that differ only in castling rights or e.p.
//! square along the way are followed together: a sequence counts once when any of them lets it
//! through, and the castling rights its first position may hold are listed beside it. A
//! sequence whose first position is the initial array where the game may have begun is the
//! whole game; with the move number unknown, whole games shorter than N plies count too (the
//! game may be that short).
//!
//! Every listed sequence is replayed forward, apart from the search, and its clock and length
//! are checked against the FEN's facts.

use std::{collections::HashMap, time::Instant};

use shakmaty::{Bitboard, Move};

use crate::{
    clock::origin::has_chain,
    legality,
    position::{Field, Position, PositionInput},
    proofgame::{self, Target},
    retract::{Retraction, RetractionKind, for_each_retraction},
    rules::Convention,
    stipulation::MoveNumber,
    verify,
};

/// How the FEN's e.p. field `-` is read.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum EpReading {
    /// `-`: no e.p. capture is legal now. The last move may still have been a double step that
    /// no pawn can take (many programs write the square only when a capture is possible). The
    /// default.
    #[default]
    Capturable,
    /// The FEN standard's reading: the square is written after every double step, capturable or
    /// not, so `-` says that the last move was no double step.
    Standard,
}

impl EpReading {
    /// The name the command line and the answers use.
    pub fn name(self) -> &'static str {
        match self {
            EpReading::Capturable => "capturable",
            EpReading::Standard => "standard",
        }
    }

    /// What a `-` means under this reading, for the answer.
    pub fn meaning(self) -> &'static str {
        match self {
            EpReading::Capturable => "'-' means no e.p. capture is legal now",
            EpReading::Standard => "'-' means the last move was no double step (FEN standard)",
        }
    }
}

/// The question `last N?` with its settings.
#[derive(Clone, Copy, Debug)]
pub struct LastMovesQuery {
    /// Plies asked for (N).
    pub plies: u32,
    /// Further plies each sequence is checked back (E).
    pub extra: u32,
    /// Which moves reset the count.
    pub convention: Convention,
    /// How the e.p. field `-` is read.
    pub ep_reading: EpReading,
    /// The premise `at move M`: the position occurs with M as the game's fullmove number. A fact
    /// like the FEN's own fullmove field (the two must agree).
    pub at_move: Option<MoveNumber>,
}

/// One sequence of last moves.
#[derive(Clone, Debug)]
pub struct Sequence {
    /// The position before the oldest move (of those that let the sequence through, the first).
    pub start: Position,
    /// The moves, oldest first.
    pub moves: Vec<Move>,
    /// The same in SAN, from the replay check.
    pub san: Vec<String>,
    /// The castling rights the first position may hold (each a set of rook squares).
    pub start_castling: Vec<Bitboard>,
    /// Whether the sequence is the whole game: it starts at the initial array, where the game
    /// began.
    pub whole_game: bool,
}

/// The retractor's answer.
#[derive(Clone, Debug)]
pub struct LastMoves {
    /// Plies asked for.
    pub plies: u32,
    /// Further plies each sequence was checked back.
    pub extra: u32,
    /// How the e.p. field `-` was read.
    pub ep_reading: EpReading,
    /// The plies the game has lasted, when the move number (the FEN's or the premise) is known.
    pub game_plies: Option<u64>,
    /// Whether N reaches the start of the game: every sequence is then a whole game from the
    /// initial array (the complete reconstruction).
    pub reconstruction: bool,
    /// Why no sequence can exist, when the facts themselves say so (a move number that leaves
    /// fewer than N plies, a clock beyond it, two move numbers that disagree).
    pub refusal: Option<String>,
    /// The sequences found (at most the budget's `limit` kept), each replayed.
    pub sequences: Vec<Sequence>,
    /// How many distinct sequences there are (a lower bound when `complete` is false).
    pub count: u64,
    /// Whether the enumeration finished within budget.
    pub complete: bool,
    /// Positions generated (and proof-game nodes expanded).
    pub nodes: u64,
}

/// Limits of the retractor.
#[derive(Clone, Copy, Debug)]
pub struct LastMovesBudget {
    /// Positions generated at most.
    pub max_nodes: u64,
    /// Sequences kept at most (all are counted).
    pub limit: usize,
    /// Positions generated at most by each E-ply check.
    pub chain_budget: u64,
    /// Stop enumerating at this instant (the count found so far is then a lower bound).
    pub deadline: Option<Instant>,
}

impl Default for LastMovesBudget {
    fn default() -> LastMovesBudget {
        LastMovesBudget {
            max_nodes: 2_000_000,
            limit: 1_000,
            chain_budget: 20_000,
            deadline: None,
        }
    }
}

/// Enumerates the last `plies` plies of `input`, each sequence checked `extra` plies further,
/// with the default e.p. reading and no premise (see [`last_moves_for`]).
pub fn last_moves(
    input: &PositionInput,
    plies: u32,
    extra: u32,
    convention: Convention,
    budget: &LastMovesBudget,
) -> LastMoves {
    let query = LastMovesQuery {
        plies,
        extra,
        convention,
        ep_reading: EpReading::default(),
        at_move: None,
    };
    last_moves_for(input, &query, budget)
}

/// Answers `query` about `input` (see the module documentation for how the FEN's fields are
/// read).
pub fn last_moves_for(
    input: &PositionInput,
    query: &LastMovesQuery,
    budget: &LastMovesBudget,
) -> LastMoves {
    let mut answer = LastMoves {
        plies: query.plies,
        extra: query.extra,
        ep_reading: query.ep_reading,
        game_plies: None,
        reconstruction: false,
        refusal: None,
        sequences: Vec::new(),
        count: 0,
        complete: true,
        nodes: 0,
    };
    let facts = match Facts::of(input, query) {
        Ok(facts) => facts,
        Err(why) => {
            answer.refusal = Some(why);
            return answer;
        }
    };
    answer.game_plies = facts.game_plies;
    answer.reconstruction = facts.game_plies == Some(u64::from(query.plies));
    let roots: Vec<Position> = input
        .candidates()
        .into_iter()
        .filter(|p| legality::static_reasons(&p.board, p.turn, p.castling, p.ep_square).is_empty())
        .collect();
    let mut search = Search {
        query,
        facts,
        budget,
        input,
        nodes: 0,
        bounds: 0,
        reached: HashMap::new(),
        complete: true,
        count: 0,
        found: Vec::new(),
    };
    if !roots.is_empty() {
        let mut line = Vec::new();
        search.walk(&roots, &mut line);
    }
    answer.count = search.count;
    answer.complete = search.complete;
    answer.nodes = search.nodes;
    // The replay check, apart from the search.
    for found in search.found {
        if let Some(san) = replays(&found, input, query, &facts) {
            answer.sequences.push(Sequence { san, ..found });
        }
    }
    answer
}

/// The FEN's facts about the history, as the retractor reads them.
#[derive(Clone, Copy, Debug)]
struct Facts {
    /// The halfmove clock.
    clock: Option<u64>,
    /// The plies played since the initial array.
    game_plies: Option<u64>,
    /// Whether the last move is known to be no double step (the standard reading of `-`).
    no_double_step: bool,
}

impl Facts {
    /// The facts, or why they leave no sequence at all.
    fn of(input: &PositionInput, query: &LastMovesQuery) -> Result<Facts, String> {
        let fen_move = input.fullmove.known();
        let premise = query.at_move.map(|m| m.0);
        let move_number = match (fen_move, premise) {
            (Some(f), Some(m)) if f != m => {
                return Err(format!(
                    "the FEN's move number {f} and the premise 'at move {m}' disagree"
                ));
            }
            (f, m) => f.or(m),
        };
        let game_plies = move_number.map(|m| MoveNumber(m).plies_before(input.turn));
        let clock = input.halfmove_clock.known();
        if let (Some(p), Some(m)) = (game_plies, move_number) {
            if u64::from(query.plies) > p {
                return Err(format!(
                    "at move {m} the game has lasted only {p} plies: there are no {} last plies \
                     (ask 'last {p}?' for the whole game)",
                    query.plies
                ));
            }
            if let Some(c) = clock
                && c > p
            {
                return Err(format!(
                    "the clock {c} exceeds the {p} plies the game has lasted at move {m}"
                ));
            }
        }
        Ok(Facts {
            clock,
            game_plies,
            no_double_step: query.ep_reading == EpReading::Standard
                && input.ep_square == Field::Known(None),
        })
    }

    /// Whether the retraction `depth` plies back (0 = the last move) fits the clock and the
    /// e.p. field.
    fn fits(&self, r: &Retraction, depth: u64, convention: Convention) -> bool {
        if depth == 0 && self.no_double_step && r.kind == RetractionKind::PawnDoubleStep {
            return false;
        }
        match self.clock {
            None => true,
            Some(c) if depth < c => !r.is_reset(convention),
            Some(c) if depth == c => r.is_reset(convention),
            Some(_) => true,
        }
    }

    /// Whether the game may have begun at `pos`, `depth` plies back: it is the initial array,
    /// the move number (if known) counts exactly `depth` plies, and the clock (if known) is no
    /// larger (a clock of `depth` counts every ply of the game; a smaller one has its reset on
    /// the way, which the search demands where the clock puts it).
    fn begins_at(&self, pos: &Position, depth: u64) -> bool {
        pos.is_initial()
            && self.game_plies.is_none_or(|p| p == depth)
            && self.clock.is_none_or(|c| c <= depth)
    }

    /// How many of the nearest plies the clock (and the e.p. field) constrain.
    fn constrained(&self) -> u64 {
        let by_clock = self.clock.map_or(0, |c| c + 1);
        by_clock.max(u64::from(self.no_double_step))
    }
}

/// The most plies left before a position for which the retractor asks the proof-game bounds
/// whether it can be reached in time (each question costs about 0.2 ms). Measured on the
/// predecessors met by `last 2?` and `last 3?` (extra 1) in 12 seeded random games: with 16-23
/// plies left they refuted 41 %, with 32-39 plies 45 %, with 64-71 plies 0.7 %.
const BOUND_PLIES: u64 = 48;

/// The search: a depth-first walk over move sequences, each step taking a set of positions
/// that differ only in castling rights or e.p. square back together.
struct Search<'a> {
    query: &'a LastMovesQuery,
    facts: Facts,
    budget: &'a LastMovesBudget,
    input: &'a PositionInput,
    nodes: u64,
    /// Questions put to the proof-game bounds.
    bounds: u64,
    /// Their answers, by position (Zobrist key and check) and plies left.
    reached: HashMap<(u64, u32, u64), bool>,
    complete: bool,
    count: u64,
    found: Vec<Sequence>,
}

/// An outcome of a look further back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Further {
    Found,
    Dead,
    Unknown,
}

impl Search<'_> {
    /// Whether the budget is spent (the clock is read once every 256 positions).
    fn spent(&mut self) -> bool {
        if self.nodes >= self.budget.max_nodes
            || (self.nodes.is_multiple_of(256)
                && self.budget.deadline.is_some_and(|d| Instant::now() >= d))
        {
            self.complete = false;
            return true;
        }
        false
    }

    /// Whether `pos`, `depth` plies back, can be reached from the initial array in the plies
    /// the move number leaves before it (always, when the move number is unknown). The
    /// proof-game bounds are asked only where at most [`BOUND_PLIES`] plies are left.
    fn reachable(&mut self, pos: &Position, depth: u64) -> bool {
        let Some(p) = self.facts.game_plies else {
            return true;
        };
        let Some(left) = p.checked_sub(depth) else {
            return false;
        };
        if left == 0 {
            return pos.is_initial();
        }
        if left > BOUND_PLIES {
            return true;
        }
        // The same position comes back along sequences that differ only in move order.
        let key = (pos.zobrist(), pos.check_hash(), left);
        if let Some(&known) = self.reached.get(&key) {
            return known;
        }
        self.bounds += 1;
        let reachable = proofgame::fewest_plies_single(&target(pos), left as u32).is_some();
        self.reached.insert(key, reachable);
        reachable
    }

    /// The retractions from `states` (positions `depth` plies back that share placement and
    /// side to move) that fit the facts, grouped by move: each move with the predecessors it
    /// leads to. None when the budget ran out.
    fn step_back(&mut self, states: &[Position], depth: u64) -> Option<Vec<(Move, Vec<Position>)>> {
        let mut groups: Vec<(Move, Vec<Position>)> = Vec::new();
        let convention = self.query.convention;
        for pos in states {
            let mut rs = Vec::new();
            for_each_retraction(pos, |r| rs.push(r));
            for r in rs {
                if self.spent() {
                    return None;
                }
                self.nodes += 1;
                if !self.facts.fits(&r, depth, convention) {
                    continue;
                }
                let q = r.predecessor;
                if !legality::static_reasons(&q.board, q.turn, q.castling, q.ep_square).is_empty()
                    || !self.reachable(&q, depth + 1)
                {
                    continue;
                }
                match groups.iter_mut().find(|(m, _)| *m == r.mv) {
                    Some((_, preds)) => {
                        if !preds.contains(&q) {
                            preds.push(q);
                        }
                    }
                    None => groups.push((r.mv, vec![q])),
                }
            }
        }
        Some(groups)
    }

    /// Follows every sequence from `states` (the positions `line.len()` plies back).
    fn walk(&mut self, states: &[Position], line: &mut Vec<Move>) {
        let depth = line.len() as u64;
        let plies = u64::from(self.query.plies);
        // With the move number unknown, the game may be shorter than N plies (even none).
        if depth < plies && self.facts.game_plies.is_none() {
            let starts: Vec<Position> = states
                .iter()
                .filter(|s| self.facts.begins_at(s, depth))
                .cloned()
                .collect();
            if !starts.is_empty() {
                self.record(&starts, line, true);
            }
        }
        if depth == plies {
            self.finish(states, line);
            return;
        }
        // The complete reconstruction: once the plies the facts constrain are taken back, the
        // proof-game search counts the games that lead to these positions.
        if self.facts.game_plies == Some(plies) && depth >= self.facts.constrained().min(plies) {
            self.forward(states, line);
            return;
        }
        let Some(groups) = self.step_back(states, depth) else {
            return;
        };
        for (mv, preds) in groups {
            line.push(mv);
            self.walk(&preds, line);
            line.pop();
            if !self.complete {
                return;
            }
        }
    }

    /// Counts the sequence `line` (its first positions `states`, N plies back) when one of them
    /// passes the check E plies further.
    fn finish(&mut self, states: &[Position], line: &[Move]) {
        let depth = line.len() as u64;
        let mut passing = Vec::new();
        let mut unknown = false;
        for s in states {
            match self.further(s, depth, self.query.extra) {
                Further::Found => passing.push(s.clone()),
                Further::Unknown => unknown = true,
                Further::Dead => {}
            }
        }
        if !passing.is_empty() {
            // With the move number known, the positions N = P plies back are the initial array.
            let whole = self.facts.game_plies == Some(depth);
            self.record(&passing, line, whole);
        } else if unknown {
            // Not shown either way: the count stays a lower bound.
            self.complete = false;
        }
    }

    /// Keeps the sequence `line` whose first positions are `starts`.
    fn record(&mut self, starts: &[Position], line: &[Move], whole_game: bool) {
        self.count += 1;
        if self.found.len() < self.budget.limit {
            let mut moves = line.to_vec();
            moves.reverse();
            let mut start_castling: Vec<Bitboard> = Vec::new();
            for s in starts {
                if !start_castling.contains(&s.castling) {
                    start_castling.push(s.castling);
                }
            }
            self.found.push(Sequence {
                start: starts[0].clone(),
                moves,
                san: Vec::new(),
                start_castling,
                whole_game,
            });
        }
    }

    /// Whether `pos`, `depth` plies back, has a history `extra` plies deeper that fits the
    /// facts: the clock in the plies it constrains, the game's start where the move number puts
    /// it (by the proof-game search when the look reaches it), and otherwise a legal retraction
    /// chain.
    fn further(&mut self, pos: &Position, depth: u64, extra: u32) -> Further {
        if self.facts.game_plies == Some(depth) {
            return if pos.is_initial() {
                Further::Found
            } else {
                Further::Dead
            };
        }
        if extra == 0 || self.facts.begins_at(pos, depth) {
            return Further::Found;
        }
        if depth >= self.facts.constrained() {
            if let Some(p) = self.facts.game_plies
                && u64::from(extra) >= p - depth
            {
                return self.proof_game_to(pos, p - depth);
            }
            // A chain that stops short of the game's start: the bounds were checked at `pos`.
            {
                let mut chain = self.budget.chain_budget;
                let before = chain;
                let found = has_chain(pos, extra, &mut chain);
                self.nodes += before - chain;
                return match (found, chain) {
                    (true, _) => Further::Found,
                    (false, 0) => Further::Unknown,
                    (false, _) => Further::Dead,
                };
            }
        }
        // The clock still constrains the next ply back: one ply at a time, until a line is
        // found.
        let mut rs = Vec::new();
        for_each_retraction(pos, |r| rs.push(r));
        let mut status = Further::Dead;
        for r in rs {
            if self.spent() {
                return Further::Unknown;
            }
            self.nodes += 1;
            let q = &r.predecessor;
            if !self.facts.fits(&r, depth, self.query.convention)
                || !legality::static_reasons(&q.board, q.turn, q.castling, q.ep_square).is_empty()
                || !self.reachable(q, depth + 1)
            {
                continue;
            }
            match self.further(q, depth + 1, extra - 1) {
                Further::Found => return Further::Found,
                Further::Unknown => status = Further::Unknown,
                Further::Dead => {}
            }
        }
        status
    }

    /// Whether a game of exactly `plies` plies from the initial array reaches `pos`.
    fn proof_game_to(&mut self, pos: &Position, plies: u64) -> Further {
        let Ok(plies) = u32::try_from(plies) else {
            return Further::Unknown;
        };
        let pg_budget = proofgame::Budget {
            max_nodes: self.budget.max_nodes.saturating_sub(self.nodes),
            deadline: self.budget.deadline,
            max_bytes: None,
        };
        match proofgame::proof_game_exists(&target(pos), plies, &pg_budget) {
            Some(true) => Further::Found,
            Some(false) => Further::Dead,
            None => Further::Unknown,
        }
    }

    /// The complete reconstruction from `states`, `line.len()` plies back: every game from the
    /// initial array of the plies left that reaches one of them, counted (and the first kept)
    /// by the proof-game search.
    fn forward(&mut self, states: &[Position], line: &[Move]) {
        let depth = line.len() as u64;
        let Some(left) = self
            .facts
            .game_plies
            .and_then(|p| p.checked_sub(depth))
            .and_then(|l| u32::try_from(l).ok())
        else {
            return;
        };
        // Before any ply is taken back, the FEN's own fields are the target (its unknown
        // fields stay open); after, each position's own.
        let targets: Vec<Target> = if depth == 0 {
            vec![crate::legal::target_of(self.input)]
        } else {
            states.iter().map(target).collect()
        };
        let mut suffix = line.to_vec();
        suffix.reverse();
        for t in targets {
            if self.spent() {
                return;
            }
            let pg_budget = proofgame::Budget {
                max_nodes: self.budget.max_nodes.saturating_sub(self.nodes),
                deadline: self.budget.deadline,
                max_bytes: None,
            };
            let keep = self.budget.limit.saturating_sub(self.found.len());
            let games = proofgame::proof_games(&t, left, &pg_budget, keep);
            self.nodes += games.nodes;
            self.count += games.count;
            if !games.complete {
                self.complete = false;
            }
            for game in games.games {
                if self.found.len() >= self.budget.limit {
                    break;
                }
                let mut moves = game;
                moves.extend_from_slice(&suffix);
                self.found.push(Sequence {
                    start: Position::initial(),
                    moves,
                    san: Vec::new(),
                    start_castling: vec![Bitboard::CORNERS],
                    whole_game: true,
                });
            }
            if !self.complete {
                return;
            }
        }
    }
}

/// The proof-game target of a fully known position: its castling rights and e.p. square must
/// match (no square: no legal e.p. capture).
fn target(pos: &Position) -> Target {
    Target {
        board: pos.board.clone(),
        turn: pos.turn,
        castling: Some(pos.castling),
        ep_square: Some(pos.ep_square),
    }
}

/// The SAN of `found` when it replays, apart from the search, from its first position to a
/// position the FEN describes, and fits the FEN's facts: the clock (the last `c` plies
/// reversible, the ply before them a reset unless the sequence is the whole game and `c` its
/// length), the e.p. field under its reading, and for a whole game the move number.
fn replays(
    found: &Sequence,
    input: &PositionInput,
    query: &LastMovesQuery,
    facts: &Facts,
) -> Option<Vec<String>> {
    let san = input
        .candidates()
        .iter()
        .find_map(|end| verify::replay_line(&found.start, &found.moves, end).ok())?;
    let moves = &found.moves;
    let convention = query.convention;
    if let Some(c) = facts.clock {
        let n = moves.len();
        let c = usize::try_from(c).unwrap_or(usize::MAX);
        // The last `c` plies kept the count; the one before them reset it; a whole game is no
        // shorter than its clock.
        if moves.iter().rev().take(c).any(|m| convention.resets(m))
            || (n > c && !convention.resets(&moves[n - 1 - c]))
            || (n < c && found.whole_game)
        {
            return None;
        }
    }
    if facts.no_double_step
        && moves.last().is_some_and(|m| {
            matches!(m, Move::Normal { role: shakmaty::Role::Pawn, from, to, .. }
                if from.distance(*to) == 2)
        })
    {
        return None;
    }
    if found.whole_game {
        if !found.start.is_initial() {
            return None;
        }
        if let Some(p) = facts.game_plies
            && moves.len() as u64 != p
        {
            return None;
        }
    }
    Some(san)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input(fen: &str) -> PositionInput {
        PositionInput::parse(fen).unwrap()
    }

    #[test]
    fn an_ep_square_leaves_one_last_move() {
        let l = last_moves(
            &input("4k3/8/8/3pP3/8/8/8/4K3 w - d6"),
            1,
            1,
            Convention::Retro,
            &LastMovesBudget::default(),
        );
        assert_eq!(l.count, 1);
        assert_eq!(l.sequences[0].san, vec!["d5"]);
    }

    #[test]
    fn a_deadline_stops_the_enumeration_with_a_lower_bound() {
        let krk = input("8/8/4k3/8/8/3K4/8/7R w - -");
        let full = last_moves(&krk, 2, 1, Convention::Fide, &LastMovesBudget::default());
        assert!(full.complete && full.count > 0);
        let past = LastMovesBudget {
            deadline: Some(Instant::now()),
            ..LastMovesBudget::default()
        };
        let cut = last_moves(&krk, 2, 1, Convention::Fide, &past);
        assert!(!cut.complete);
        assert!(cut.count < full.count, "{} of {}", cut.count, full.count);
    }

    #[test]
    fn the_clock_prunes_resets() {
        // White king and pawn, black king: with clock 0 the last (black) move was a capture.
        let any = last_moves(
            &input("4k3/8/8/8/8/8/4P3/4K3 w - - ? ?"),
            1,
            1,
            Convention::Retro,
            &LastMovesBudget::default(),
        );
        let reset = last_moves(
            &input("4k3/8/8/8/8/8/4P3/4K3 w - - 0 ?"),
            1,
            1,
            Convention::Retro,
            &LastMovesBudget::default(),
        );
        let quiet = last_moves(
            &input("4k3/8/8/8/8/8/4P3/4K3 w - - 5 ?"),
            1,
            1,
            Convention::Retro,
            &LastMovesBudget::default(),
        );
        assert!(reset.count > 0 && quiet.count > 0);
        assert_eq!(reset.count + quiet.count, any.count);
        assert!(reset.sequences.iter().all(|s| s.san[0].contains('x')));
        assert!(quiet.sequences.iter().all(|s| !s.san[0].contains('x')));
    }

    #[test]
    fn two_plies_back_are_counted_and_replay() {
        let budget = LastMovesBudget::default();
        let l = last_moves(
            &input("4k3/8/8/8/8/8/8/4K2R b - -"),
            2,
            0,
            Convention::Retro,
            &budget,
        );
        assert!(l.complete);
        assert!(l.count > 0);
        assert_eq!(l.sequences.len(), (l.count as usize).min(budget.limit));
        assert!(l.sequences.iter().all(|s| s.san.len() == 2));
        // With the right K, White's king and h1 rook never moved: White has no last move.
        let frozen = last_moves(
            &input("4k3/8/8/8/8/8/8/4K2R b K -"),
            1,
            0,
            Convention::Retro,
            &budget,
        );
        assert_eq!(frozen.count, 0);
    }

    fn query(plies: u32, extra: u32, convention: Convention) -> LastMovesQuery {
        LastMovesQuery {
            plies,
            extra,
            convention,
            ep_reading: EpReading::Capturable,
            at_move: None,
        }
    }

    /// Every sequence of the last `plies` plies by brute force: all lines of `plies + extra`
    /// retractions whose positions pass the static checks (or shorter ones that end at the
    /// initial array, where the game may have begun), kept when they fit the clock `clock`
    /// (the first `clock` retractions reversible, the next a reset unless the line ends at the
    /// game's start `clock` plies back), cut to their first `plies` moves.
    fn brute(
        pos: &Position,
        plies: usize,
        extra: usize,
        clock: Option<usize>,
        convention: Convention,
    ) -> std::collections::HashSet<Vec<Move>> {
        fn lines(
            pos: &Position,
            left: usize,
            line: &mut Vec<(Move, bool)>,
            out: &mut Vec<(Vec<(Move, bool)>, bool)>,
            convention: Convention,
        ) {
            if pos.is_initial() {
                out.push((line.clone(), true));
            }
            if left == 0 {
                out.push((line.clone(), false));
                return;
            }
            for r in crate::retract::retractions(pos) {
                let q = &r.predecessor;
                if !legality::static_reasons(&q.board, q.turn, q.castling, q.ep_square).is_empty() {
                    continue;
                }
                line.push((r.mv, r.is_reset(convention)));
                lines(q, left - 1, line, out, convention);
                line.pop();
            }
        }
        let mut all = Vec::new();
        lines(pos, plies + extra, &mut Vec::new(), &mut all, convention);
        all.into_iter()
            .filter(|(line, start)| {
                let fits = match clock {
                    None => true,
                    Some(c) => {
                        line.iter().take(c).all(|(_, reset)| !reset)
                            && match line.get(c) {
                                Some((_, reset)) => *reset,
                                // No ply c+1 back: the line is cut there, or it is the whole
                                // game, which then has exactly `c` plies.
                                None => !*start || line.len() == c,
                            }
                    }
                };
                // A line that stops at the game's start is complete; others must be full length.
                let long_enough = *start || line.len() == plies + extra;
                fits && long_enough && (line.len() >= plies || *start)
            })
            .map(|(line, _)| {
                let mut moves: Vec<Move> = line.iter().take(plies).map(|(m, _)| *m).collect();
                moves.reverse();
                moves
            })
            .collect()
    }

    #[test]
    fn the_clock_is_honoured_at_its_boundary_in_the_plies_and_the_extra_plies() {
        for fen in [
            "r3k3/8/8/8/8/8/4P3/R3K2R b KQq -",
            "4k3/4p3/8/8/2n5/8/3P4/R3K3 w - -",
        ] {
            let pos = input(fen).candidates().remove(0);
            for convention in [Convention::Fide, Convention::Retro] {
                for clock in [None, Some(0), Some(1), Some(2), Some(3), Some(4)] {
                    let text = match clock {
                        Some(c) => format!("{fen} {c} ?"),
                        None => format!("{fen} ? ?"),
                    };
                    let found = last_moves_for(
                        &input(&text),
                        &query(2, 1, convention),
                        &LastMovesBudget {
                            limit: usize::MAX,
                            ..LastMovesBudget::default()
                        },
                    );
                    assert!(found.complete, "{text}");
                    let listed: std::collections::HashSet<Vec<Move>> =
                        found.sequences.iter().map(|s| s.moves.clone()).collect();
                    assert_eq!(listed.len() as u64, found.count, "{text}: a sequence twice");
                    let expected = brute(&pos, 2, 1, clock.map(|c| c as usize), convention);
                    assert_eq!(listed, expected, "{text} under {convention:?}");
                }
            }
        }
    }

    #[test]
    fn the_example_of_the_issue_keeps_the_clock_of_one() {
        // Black's last move was e7-e5 or e6-e5 (the only resets Black can have made: nothing
        // of White's is missing), White's a reversible piece move: Nf3 from g1, d4, h4 or g5,
        // a knight back to b1 from a3 or c3, Qd1 from e2, Bf1 from e2, d3, c4, b5 or a6
        // (12), times the two pawn moves. King and rooks are frozen by the rights.
        let l = last_moves(
            &input("rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 ?"),
            2,
            1,
            Convention::Fide,
            &LastMovesBudget::default(),
        );
        assert_eq!((l.count, l.complete), (24, true));
        // Clock 1: the ply before the last must be a reset, so 1.Qa4+ Nc6 (two quiet plies)
        // is not a history; with clock 2 it is, once for each pair of squares the queen and the
        // knight came from (24 with the move number open).
        let fen = "r1b1k1nr/bpp2pqp/p1n1p1p1/3P4/QP5P/3P1P1N/P3P1P1/RNB1KB1R w KQkq -";
        let qa4 = |clock: u32, fullmove: &str| {
            let l = last_moves(
                &input(&format!("{fen} {clock} {fullmove}")),
                2,
                1,
                Convention::Fide,
                &LastMovesBudget::default(),
            );
            l.sequences
                .iter()
                .filter(|s| s.san == ["Qa4+", "Nc6"])
                .count()
        };
        assert_eq!(qa4(1, "?"), 0);
        assert_eq!(qa4(2, "?"), 24);
        // At move 10 (18 plies) none is: Black's eighth move would be the reset, a pawn move,
        // yet e6 and g6 must come before the queen's and the bishop's walks (through e7, to
        // g7), a6 before the bishop lands on a7, and d5 before White's cxd5; Black has no
        // move to spare. The required-moves bounds see it.
        assert_eq!(qa4(2, "10"), 0);
    }

    #[test]
    fn a_sequence_counts_once_with_the_rights_its_start_may_hold() {
        // Black's a7-a6 leaves every castling right of both sides open: one sequence, its start
        // listed with the 16 sets of rights.
        let l = last_moves(
            &input("r3k2r/8/p7/8/8/8/8/R3K2R w ? -"),
            1,
            0,
            Convention::Fide,
            &LastMovesBudget::default(),
        );
        let a6: Vec<&Sequence> = l.sequences.iter().filter(|s| s.san == ["a6"]).collect();
        assert_eq!(a6.len(), 1);
        assert_eq!(a6[0].start_castling.len(), 16);
        let distinct: std::collections::HashSet<&Vec<Move>> =
            l.sequences.iter().map(|s| &s.moves).collect();
        assert_eq!(distinct.len() as u64, l.count);
    }

    #[test]
    fn the_move_number_is_a_fact() {
        let budget = LastMovesBudget::default();
        let after_e5 = "rnbqkbnr/ppp1ppp1/7p/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq ?";
        // Move 3 with White to move: 4 plies, so `last 5?` has no answer but that one.
        let five = last_moves_for(
            &input(&format!("{after_e5} 0 3")),
            &query(5, 1, Convention::Fide),
            &budget,
        );
        assert_eq!(five.count, 0);
        assert!(
            five.refusal
                .as_deref()
                .is_some_and(|r| r.contains("only 4 plies")),
            "{:?}",
            five.refusal
        );
        // The whole game: two of them, each from the initial array.
        let four = last_moves_for(
            &input(&format!("{after_e5} 0 3")),
            &query(4, 1, Convention::Fide),
            &budget,
        );
        assert_eq!((four.count, four.reconstruction), (2, true));
        assert!(
            four.sequences
                .iter()
                .all(|s| s.whole_game && s.start.is_initial())
        );
        // The premise `at move 3` says the same; a premise that disagrees with the FEN is refused.
        let premise = LastMovesQuery {
            at_move: Some(MoveNumber(3)),
            ..query(4, 1, Convention::Fide)
        };
        let by_premise = last_moves_for(&input(&format!("{after_e5} 0 ?")), &premise, &budget);
        assert_eq!(by_premise.count, 2);
        let wrong = LastMovesQuery {
            at_move: Some(MoveNumber(4)),
            ..query(4, 1, Convention::Fide)
        };
        let disagree = last_moves_for(&input(&format!("{after_e5} 0 3")), &wrong, &budget);
        assert!(
            disagree
                .refusal
                .as_deref()
                .is_some_and(|r| r.contains("disagree"))
        );
        // A clock beyond the game's length.
        let clock = last_moves_for(
            &input(&format!("{after_e5} 9 3")),
            &query(2, 1, Convention::Fide),
            &budget,
        );
        assert!(
            clock
                .refusal
                .as_deref()
                .is_some_and(|r| r.contains("exceeds"))
        );
        // Without the move number, the same question counts the histories of any length.
        let open = last_moves_for(
            &input(&format!("{after_e5} 0 ?")),
            &query(4, 1, Convention::Fide),
            &budget,
        );
        assert!(open.count > 2 && !open.reconstruction);
    }

    #[test]
    fn the_standard_reading_of_the_ep_field_excludes_a_double_step() {
        // Black to move after White's e-pawn reached e4, no black pawn beside it: from e2 or e3.
        let fen = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 ?";
        let budget = LastMovesBudget::default();
        let ours = last_moves_for(&input(fen), &query(1, 1, Convention::Fide), &budget);
        let standard = LastMovesQuery {
            ep_reading: EpReading::Standard,
            ..query(1, 1, Convention::Fide)
        };
        let theirs = last_moves_for(&input(fen), &standard, &budget);
        assert_eq!(ours.count, 2);
        assert_eq!(theirs.count, 1);
        assert_eq!(theirs.ep_reading, EpReading::Standard);
        let from = |l: &LastMoves| {
            l.sequences
                .iter()
                .map(|s| s.moves[0].from())
                .collect::<Vec<_>>()
        };
        assert_eq!(from(&theirs), [Some(shakmaty::Square::E3)]);
        assert!(from(&ours).contains(&Some(shakmaty::Square::E2)));
    }
}
