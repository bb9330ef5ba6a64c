//! The retractor: every legal sequence of the last N plies, each checked by E further plies
//! back (`last N?`).
//!
//! A sequence counts when every position along it passes the static checks and its oldest
//! position has a legal retraction chain E plies deep. Known FEN fields prune: an e.p. square or
//! castling rights through the positions themselves, the halfmove clock through the kinds of
//! the retracted moves (clock 0: the last move was a reset; clock k > 0: the last k plies were
//! reversible under the convention). Every sequence is re-checked by forward replay.

use std::time::Instant;

use shakmaty::Move;

use crate::{
    clock::origin::has_chain,
    legality,
    position::{Position, PositionInput},
    retract::{Retraction, for_each_retraction},
    rules::Convention,
    verify,
};

/// One sequence of last moves.
#[derive(Clone, Debug)]
pub struct Sequence {
    /// The position before the oldest move.
    pub start: Position,
    /// The moves, oldest first.
    pub moves: Vec<Move>,
    /// The same in SAN, from the replay check.
    pub san: Vec<String>,
}

/// The retractor's answer.
#[derive(Clone, Debug)]
pub struct LastMoves {
    /// Plies asked for.
    pub plies: u32,
    /// Further plies each sequence was checked back.
    pub extra: u32,
    /// The sequences found (at most `limit` kept).
    pub sequences: Vec<Sequence>,
    /// How many sequences there are (a lower bound when `complete` is false).
    pub count: u64,
    /// Whether the enumeration finished within budget.
    pub complete: bool,
    /// Positions generated.
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

struct Search<'a> {
    convention: Convention,
    clock: Option<u64>,
    plies: u32,
    extra: u32,
    budget: &'a LastMovesBudget,
    nodes: u64,
    complete: bool,
    count: u64,
    found: Vec<(Position, Vec<Move>)>,
}

impl Search<'_> {
    /// Whether the retraction `depth` plies back (0 = the last move) fits the FEN's clock.
    fn fits_clock(&self, r: &Retraction, depth: u32) -> bool {
        match self.clock {
            None => true,
            Some(0) => depth != 0 || r.is_reset(self.convention),
            Some(k) => u64::from(depth) >= k || !r.is_reset(self.convention),
        }
    }

    fn walk(&mut self, pos: &Position, line: &mut Vec<Move>, target: &Position) {
        let depth = line.len() as u32;
        if depth == self.plies {
            let mut chain_budget = self.budget.chain_budget;
            if has_chain(pos, self.extra, &mut chain_budget) {
                self.count += 1;
                if self.found.len() < self.budget.limit {
                    let mut moves = line.clone();
                    moves.reverse();
                    self.found.push((pos.clone(), moves));
                }
            }
            let _ = target;
            return;
        }
        let mut rs = Vec::new();
        for_each_retraction(pos, |r| rs.push(r));
        for r in rs {
            // The clock is read once every 256 positions.
            if self.nodes >= self.budget.max_nodes
                || (self.nodes.is_multiple_of(256)
                    && self.budget.deadline.is_some_and(|d| Instant::now() >= d))
            {
                self.complete = false;
                return;
            }
            self.nodes += 1;
            if !self.fits_clock(&r, depth) {
                continue;
            }
            let q = &r.predecessor;
            if !legality::static_reasons(&q.board, q.turn, q.castling, q.ep_square).is_empty() {
                continue;
            }
            line.push(r.mv);
            self.walk(q, line, target);
            line.pop();
        }
    }
}

/// Enumerates the last `plies` plies of `input`, each sequence checked `extra` plies further.
pub fn last_moves(
    input: &PositionInput,
    plies: u32,
    extra: u32,
    convention: Convention,
    budget: &LastMovesBudget,
) -> LastMoves {
    let mut search = Search {
        convention,
        clock: input.halfmove_clock.known(),
        plies,
        extra,
        budget,
        nodes: 0,
        complete: true,
        count: 0,
        found: Vec::new(),
    };
    let mut sequences = Vec::new();
    for pos in input.candidates() {
        if !legality::static_reasons(&pos.board, pos.turn, pos.castling, pos.ep_square).is_empty() {
            continue;
        }
        let before = search.found.len();
        search.walk(&pos, &mut Vec::new(), &pos);
        for (start, moves) in search.found[before..].iter() {
            // The replay check, apart from the search.
            if let Ok(san) = verify::replay_line(start, moves, &pos) {
                sequences.push(Sequence {
                    start: start.clone(),
                    moves: moves.clone(),
                    san,
                });
            }
        }
    }
    LastMoves {
        plies,
        extra,
        count: search.count,
        complete: search.complete,
        nodes: search.nodes,
        sequences,
    }
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
}
