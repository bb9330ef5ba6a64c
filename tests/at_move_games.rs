//! The premise `at move N` on games that nothing ever reset: random games from the initial array
//! in which only knights move (all 32 units stay, every pawn stays at home, every castling right
//! stands), so the real clock is the number of plies played. For the position after each
//! sampled ply, at its real move number: `clock=<real>` is yes (witnessed by a replayed game of
//! exactly that length), every other value is no, and the FEN with its real clock and fullmove
//! number is yes while the same FEN with another clock is no. One move later the position cannot
//! occur (each side's number of knight moves has a fixed parity); two moves later it can. A search
//! stopped by its budget still knows that the clock is the game's length.

mod common;

use common::Rng;
use retroclock::{
    certify::Proofs,
    clock::{Budget, MaxClock, solve_clock},
    position::PositionInput,
    rules::Rules,
    stipulation::{Comparison, MoveNumber, Stipulation},
    verdict::{Finding, Verdict, decide},
};
use shakmaty::{Chess, EnPassantMode, Position as _, Role, fen::Fen};

/// Positions after seeded random knight-only games: (FEN without clocks, plies played).
fn knight_games(games: usize, plies: usize, seed: u64) -> Vec<(String, u64)> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    for _ in 0..games {
        let mut chess = Chess::default();
        for ply in 1..=plies {
            let knight_moves: Vec<_> = chess
                .legal_moves()
                .into_iter()
                .filter(|m| m.role() == Role::Knight && !m.is_capture())
                .collect();
            if knight_moves.is_empty() {
                break;
            }
            chess.play_unchecked(*rng.pick(&knight_moves));
            if ply % 5 == 0 || ply == plies {
                let fen = Fen::from_position(&chess, EnPassantMode::Legal).to_string();
                let fen4: Vec<&str> = fen.split(' ').take(4).collect();
                out.push((fen4.join(" "), ply as u64));
            }
        }
    }
    out
}

#[test]
fn the_clock_at_a_given_move_is_the_games_length_when_nothing_could_reset_it() {
    let samples = knight_games(8, 40, 0x9E37_79B9_7F4A_7C15);
    assert!(samples.len() >= 16, "{} samples", samples.len());
    let budget = Budget::default();
    let mut checked = 0;
    for (fen, plies) in &samples {
        let input = PositionInput::parse(fen).expect("a FEN from a game");
        let clock = solve_clock(&input, Rules::Fide, &budget, &|_| {});
        assert!(
            clock.counts_every_ply(),
            "{fen}: nothing can reset the count"
        );
        // The move number of the position: plies = 2 (N - 1) (+1 with Black to move).
        let move_number = MoveNumber(plies / 2 + 1);
        assert_eq!(move_number.plies_before(input.turn), *plies, "{fen}");
        let ask = |stip: Stipulation, input: &PositionInput| {
            decide(stip, input, clock.clone(), Proofs::default())
        };
        let at = |n: u64, at: MoveNumber| Stipulation::ClockIs(Comparison::Eq, n, Some(at));

        let real = ask(at(*plies, move_number), &input);
        assert_eq!(
            real.verdict,
            Verdict::Yes,
            "{fen} clock={plies}: {:?}",
            real.notes
        );
        let line = real.certificate.as_ref().expect("a witness game");
        assert!(
            line.start.is_initial(),
            "{fen}: the witness starts the game"
        );
        assert_eq!(line.moves.len() as u64, *plies, "{fen}");
        retroclock::verify::replay_line(&line.start, &line.moves, &clock_root(&input))
            .expect("the witness game replays to the position");
        for other in [plies.saturating_sub(2), plies + 2, plies + 1] {
            if other != *plies {
                let a = ask(at(other, move_number), &input);
                assert_eq!(
                    a.verdict,
                    Verdict::No,
                    "{fen} clock={other} at {plies} plies"
                );
            }
        }
        // `clock?` under the premise: exactly the game's length.
        let values = ask(Stipulation::Clock(Some(move_number)), &input);
        assert_eq!(values.verdict, Verdict::Solved, "{fen}");
        assert_eq!(values.clock.min, Some(*plies), "{fen}");
        assert_eq!(values.clock.max, MaxClock::Bounded(*plies), "{fen}");
        assert_eq!(values.clock.values, Some(vec![*plies]), "{fen}");

        // Every knight move changes the knight's square colour, so each side has made a number
        // of moves of fixed parity: one move later the position cannot occur, two moves later
        // it can (a knight goes out and back), with the clock four plies more.
        let a = ask(at(plies + 2, MoveNumber(move_number.0 + 1)), &input);
        assert_eq!(a.verdict, Verdict::No, "{fen} one move later");
        let a = ask(at(plies + 4, MoveNumber(move_number.0 + 2)), &input);
        assert_eq!(a.verdict, Verdict::Yes, "{fen} two moves later");

        // The FEN's own fields, judged by `fen`.
        for (clock_field, verdict) in [(*plies, Verdict::Yes), (plies + 2, Verdict::No)] {
            let with_fields =
                PositionInput::parse(&format!("{fen} {clock_field} {}", move_number.0))
                    .expect("a FEN");
            let a = ask(Stipulation::Fen, &with_fields);
            assert_eq!(a.verdict, verdict, "{fen} {clock_field} {}", move_number.0);
        }
        checked += 1;
    }
    println!("at move N: {checked} positions of knight-only games checked");
}

/// The position itself (the input's only candidate: every field is known).
fn clock_root(input: &PositionInput) -> retroclock::position::Position {
    input
        .candidates()
        .into_iter()
        .next()
        .expect("one candidate")
}

#[test]
fn a_search_out_of_budget_still_knows_the_clock_is_the_games_length() {
    // Black plays his 50th move: 99 plies. A budget too small to find the game still leaves
    // the clock at 99 in every game of that length there may be.
    let input =
        PositionInput::parse("r1bqkbnr/pppppppp/N1n4N/8/8/8/PPPPPPPP/R1BQKB1R b KQkq -").unwrap();
    let budget = Budget {
        max_nodes: 2_000,
        ..Budget::default()
    };
    let clock = solve_clock(&input, Rules::Fide, &budget, &|_| {});
    assert!(!clock.complete && clock.counts_every_ply());
    let at = Some(MoveNumber(50));
    let ask = |stip: Stipulation| decide(stip, &input, clock.clone(), Proofs::default());
    let below = ask(Stipulation::ClockIs(Comparison::Le, 98, at));
    assert_eq!(
        (below.verdict, below.possibly),
        (Verdict::No, Finding::Proven(false))
    );
    let other = ask(Stipulation::ClockIs(Comparison::Eq, 97, at));
    assert_eq!(other.possibly, Finding::Proven(false));
    // Whether such a game exists is not decided, so 99 itself is not witnessed; but a claim
    // holds in every such game.
    let exact = ask(Stipulation::ClockIs(Comparison::Eq, 99, at));
    assert_eq!(exact.verdict, Verdict::Unknown);
    let claim = ask(Stipulation::Claim(at));
    assert_eq!(claim.verdict, Verdict::Yes);
    assert_eq!(claim.necessarily, Finding::Proven(true));
    // `clock?` stays open: nothing is witnessed, and the walks the graph holds are not taken
    // for games of that length.
    let values = ask(Stipulation::Clock(at));
    assert_eq!(values.verdict, Verdict::Unknown);
    assert_eq!(values.clock.min, None);
    assert_eq!(values.clock.value_possible(15), None);
}
