//! The retractor (`last N?`) against data: Chass's 23 test problems (`puzzles/lastmoves.epd`,
//! each with Chass's count, answered through [`retroclock::answer::answer`] as `solve` and
//! `batch` answer them) and positions of seeded random games with their real clock and move
//! number, for which every listed sequence must replay with shakmaty to the position with that
//! clock and move number, the game's real last moves must be listed, and no sequence twice.

mod common;

use std::collections::HashSet;

use common::positions::{Steer, random_games};
use retroclock::{
    answer::{Limits, Question, Reply, answer},
    batch::entries_from_text,
    lastmoves::{LastMovesBudget, LastMovesQuery, last_moves_for},
    position::PositionInput,
    puzzle::Solution,
    rules::Convention,
    stipulation::Stipulation,
};
use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Position as _, fen::Fen};

#[test]
fn chass_problems_have_chass_counts() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/puzzles/lastmoves.epd");
    let text = std::fs::read_to_string(path).expect("puzzles/lastmoves.epd");
    let mut rows = Vec::new();
    let mut wrong = Vec::new();
    for entry in entries_from_text("lastmoves.epd", &text) {
        let puzzle = entry.puzzle.expect("every entry reads");
        let Stipulation::Last(..) = puzzle.stipulation else {
            panic!("line {}: not a last N? question", puzzle.line);
        };
        let Some(Solution::Count(expected)) = puzzle.solution else {
            panic!("line {}: no stated count", puzzle.line);
        };
        let question = Question {
            extra: puzzle.extra,
            ep_reading: puzzle.ep_reading,
            ..Question::new(puzzle.position.clone(), puzzle.stipulation, puzzle.rules)
        };
        let reply = answer(&question, &Limits::default(), &|_| {});
        let Ok(Reply::LastMoves(found)) = reply else {
            panic!(
                "line {}: not answered by the retractor: {reply:?}",
                puzzle.line
            );
        };
        let id = puzzle.id.unwrap_or_default();
        rows.push(format!(
            "{id}: {} (Chass {expected}){}",
            found.count,
            if found.complete { "" } else { " incomplete" }
        ));
        if found.count != expected || !found.complete {
            wrong.push(id);
        }
    }
    eprintln!("{}", rows.join("\n"));
    assert_eq!(rows.len(), 24);
    assert!(wrong.is_empty(), "counts differ from Chass's: {wrong:?}");
}

/// The position `setup` (with its real clock and move number) as the retractor's input.
fn input_of(setup: &shakmaty::Setup) -> PositionInput {
    let fen = Fen::try_from_setup(setup.clone()).expect("a valid setup");
    PositionInput::parse(&fen.to_string()).expect("a FEN the retractor reads")
}

#[test]
fn random_game_positions_list_their_real_last_moves() {
    let games: Vec<_> = [
        Steer::Uniform,
        Steer::Quiet,
        Steer::Castling,
        Steer::EnPassant,
    ]
    .into_iter()
    .enumerate()
    .flat_map(|(i, steer)| random_games(5, 70, 0x1A57 + i as u64, steer))
    .collect();
    let budget = LastMovesBudget {
        limit: usize::MAX,
        max_nodes: 50_000,
        ..LastMovesBudget::default()
    };
    let (mut positions, mut sequences, mut incomplete) = (0, 0u64, 0);
    for (g, game) in games.iter().enumerate() {
        // Positions near the start of each game (after 3 plies: the sequences reach the
        // initial array) and at its end. (Positions 20 to 48 plies in cost a required-moves
        // analysis for every position on every sequence: too slow for CI.)
        for end in [3, game.len()] {
            if end < 3 || end > game.len() {
                continue;
            }
            let position = &game[end - 1].after;
            let input = input_of(position);
            for plies in [2u32, 3] {
                let query = LastMovesQuery {
                    plies,
                    extra: 1,
                    convention: Convention::Fide,
                    ep_reading: Default::default(),
                    at_move: None,
                };
                let found = last_moves_for(&input, &query, &budget);
                let fen = Fen::try_from_setup(position.clone())
                    .expect("valid")
                    .to_string();
                let place = format!("game {g}, ply {end}, last {plies}?: {fen}");
                if !found.complete {
                    incomplete += 1;
                    continue;
                }
                positions += 1;
                sequences += found.count;
                assert!(found.refusal.is_none(), "{place}: {:?}", found.refusal);
                assert_eq!(found.sequences.len() as u64, found.count, "{place}");
                // Every sequence replays to the position with its clock and move number.
                let game_plies =
                    2 * (position.fullmoves.get() - 1) + u32::from(position.turn.is_black());
                let mut seen = HashSet::new();
                for s in &found.sequences {
                    assert!(seen.insert(s.moves.clone()), "{place}: {:?} twice", s.san);
                    let n = s.moves.len() as u32;
                    assert_eq!(n, plies, "{place}: {:?}", s.san);
                    let mut start = s.start.to_setup();
                    start.halfmoves = position.halfmoves.saturating_sub(n);
                    let before = game_plies - n;
                    start.fullmoves = std::num::NonZeroU32::new(before / 2 + 1).expect("positive");
                    let mut pos = Chess::from_setup(start, CastlingMode::Standard)
                        .unwrap_or_else(|e| panic!("{place}: start {:?}: {e}", s.san));
                    for &mv in &s.moves {
                        assert!(pos.is_legal(mv), "{place}: {:?} does not replay", s.san);
                        pos.play_unchecked(mv);
                    }
                    let end_fen = Fen::from_position(&pos, EnPassantMode::Legal).to_string();
                    assert_eq!(end_fen, fen, "{place}: {:?} ends elsewhere", s.san);
                }
                // The real last moves are among them.
                let real: Vec<_> = game[end - plies as usize..end]
                    .iter()
                    .map(|p| p.mv)
                    .collect();
                assert!(
                    seen.contains(&real),
                    "{place}: the real last moves are not listed"
                );
            }
        }
    }
    eprintln!(
        "random games: {positions} questions answered completely ({sequences} sequences, each \
         replayed to its position with its clock and move number), {incomplete} out of budget"
    );
    assert!(positions >= 60, "only {positions} complete answers");
}
