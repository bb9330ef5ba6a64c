//! Legality with proof (`legal?`): "illegal" with a reason a person can check, "legal" with a
//! proof game re-checked by replay, or "no contradiction" labelled with the depth it rests on.
//!
//! A certified line ([`crate::certify`]) is such a game; otherwise a proof-game search looks
//! for one.

use std::time::{Duration, Instant};

use shakmaty::Move;

use crate::{
    certify::Proofs,
    clock::{ClockAnswer, Standing},
    position::{Field, PositionInput},
    proofgame::{self, Target},
    verify,
};

/// What is known about whether a position can arise.
#[derive(Clone, Debug)]
pub enum Legality {
    /// It cannot: each entry is a failed necessary condition.
    Illegal(Vec<String>),
    /// It can: a proof game from the initial array reaches it (re-checked by replay).
    Legal {
        /// The game's moves.
        moves: Vec<Move>,
        /// The same in SAN.
        san: Vec<String>,
    },
    /// No contradiction was found: the position passes the static checks and a line of
    /// retractions reaches an origin with a legal retraction chain this deep, but no proof game
    /// was found within the budget.
    NoContradiction {
        /// The depth of the retraction chains the origins were required to have.
        depth: u32,
        /// The longest proof game length searched.
        searched_plies: u32,
    },
    /// The budget ran out before even an origin was found.
    Undecided,
}

/// Limits of the proof-game part of a legality answer.
#[derive(Clone, Copy, Debug)]
pub struct ProofBudget {
    /// Longest proof game tried.
    pub max_plies: u32,
    /// Time allowed.
    pub time: Duration,
    /// Positions allowed.
    pub max_nodes: u64,
    /// Bytes the search's tables may hold.
    pub max_bytes: Option<u64>,
    /// The instant no proof-game search goes past, whatever its `time` (the deadline of the
    /// whole answer, if any).
    pub deadline: Option<Instant>,
}

impl Default for ProofBudget {
    fn default() -> ProofBudget {
        ProofBudget {
            max_plies: 24,
            time: Duration::from_secs(3),
            max_nodes: 5_000_000,
            max_bytes: None,
            deadline: None,
        }
    }
}

/// The proof-game target of a user's position: known castling and e.p. fields must match.
pub fn target_of(input: &PositionInput) -> Target {
    Target {
        board: input.board.clone(),
        turn: input.turn,
        castling: input.castling.known(),
        ep_square: match input.ep_square {
            Field::Known(e) => Some(e),
            Field::Unknown => None,
        },
    }
}

/// A proof game for `target`, checked by two separate replays (the proof-game module's own and
/// [`verify::replay_from_initial`]), with its SAN.
fn proof_game(target: &Target, budget: &ProofBudget) -> Option<(Vec<Move>, Vec<String>)> {
    let own = Instant::now() + budget.time;
    let pg_budget = proofgame::Budget {
        max_nodes: budget.max_nodes,
        deadline: Some(budget.deadline.map_or(own, |d| d.min(own))),
        max_bytes: budget.max_bytes,
    };
    let moves = proofgame::find_proof_game(target, budget.max_plies, &pg_budget)?;
    if !proofgame::replay_reaches(target, &moves) {
        return None;
    }
    let (end, san) = verify::replay_from_initial(&moves).ok()?;
    (end.board == target.board && end.turn == target.turn).then_some((moves, san))
}

/// Judges whether the position of `input` can arise, from the clock solver's findings, what
/// was certified (a certified line is a game from the initial array to the position) and a
/// proof-game search.
pub fn judge(
    input: &PositionInput,
    clock: &ClockAnswer,
    proofs: &Proofs,
    budget: &ProofBudget,
) -> Legality {
    match &clock.standing {
        Standing::Illegal(reasons) => return Legality::Illegal(reasons.clone()),
        Standing::NoHistory => {
            return Legality::Illegal(vec![format!(
                "no line of retractions reaches a possible origin: every reset the position's reversible retractions lead to ends in a position that fails the static checks or has no legal retraction chain {} plies deep",
                clock.chain_depth
            )]);
        }
        Standing::Possible | Standing::Undecided => {}
    }
    if let Some(line) = proofs.lines.first() {
        return Legality::Legal {
            moves: line.moves.clone(),
            san: line.san.clone(),
        };
    }
    // Castling rights narrowed to alternatives (the Codex reading): a proof game for any of
    // them shows the position.
    let targets: Vec<Target> = match &input.castling_choices {
        Some(choices) if input.castling == Field::Unknown => choices
            .iter()
            .map(|&c| Target {
                castling: Some(c),
                ..target_of(input)
            })
            .collect(),
        _ => vec![target_of(input)],
    };
    if let Some((moves, san)) = targets.iter().find_map(|t| proof_game(t, budget)) {
        return Legality::Legal { moves, san };
    }
    if clock.standing == Standing::Undecided {
        return Legality::Undecided;
    }
    Legality::NoContradiction {
        depth: clock.chain_depth,
        searched_plies: budget.max_plies,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        clock::{Budget, solve_clock},
        rules::Rules,
    };
    use shakmaty::Bitboard;

    fn judge_fen(fen: &str) -> Legality {
        let input = PositionInput::parse(fen).unwrap();
        let clock = solve_clock(&input, Rules::Fide, &Budget::default(), &|_| {});
        judge(&input, &clock, &Proofs::default(), &ProofBudget::default())
    }

    #[test]
    fn a_short_game_gets_a_proof_game() {
        match judge_fen("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -") {
            Legality::Legal { san, .. } => assert_eq!(san.len(), 2),
            other => panic!("expected a proof game, got {other:?}"),
        }
    }

    #[test]
    fn static_failures_and_frozen_positions_are_illegal() {
        assert!(matches!(
            judge_fen("4k3/8/8/8/8/8/8/4KK2 w - -"),
            Legality::Illegal(_)
        ));
        // Black to move after a white move, but White's king and rooks are frozen by their
        // rights and White has nothing else.
        assert!(matches!(
            judge_fen("r3k2r/8/8/8/8/8/8/R3K2R b KQkq -"),
            Legality::Illegal(_)
        ));
    }

    #[test]
    fn narrowed_castling_alternatives_are_each_tried_for_a_proof_game() {
        let mut input =
            PositionInput::parse("r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w ? -").unwrap();
        // Only Black's queen-side right is impossible within a short game; all four are not.
        input.castling_choices = Some(vec![
            Bitboard::from_square(shakmaty::Square::A8),
            Bitboard::CORNERS,
        ]);
        let clock = solve_clock(&input, Rules::Fide, &Budget::default(), &|_| {});
        let budget = ProofBudget {
            max_plies: 4,
            ..ProofBudget::default()
        };
        match judge(&input, &clock, &Proofs::default(), &budget) {
            Legality::Legal { san, .. } => assert_eq!(san, ["Nf3", "Nc6"]),
            other => panic!("expected a proof game, got {other:?}"),
        }
        // The answer's deadline bounds the proof search, whatever time it is given.
        let past = ProofBudget {
            deadline: Some(Instant::now()),
            ..budget
        };
        assert!(!matches!(
            judge(&input, &clock, &Proofs::default(), &past),
            Legality::Legal { .. }
        ));
        // With the short-game rights left out, the game found is not one of the reading's.
        input.castling_choices = Some(vec![Bitboard::from_square(shakmaty::Square::A8)]);
        assert!(!matches!(
            judge(&input, &clock, &Proofs::default(), &budget),
            Legality::Legal { .. }
        ));
    }
}
