//! No input makes the library panic: random FEN-like strings go through the FEN reader, the
//! retraction engine and a small clock search; random placements through the engine; random
//! stipulation-like strings through the stipulation reader.

use proptest::prelude::*;
use retroclock::{
    certify::Proofs,
    clock::{Budget, solve_clock},
    codex::{narrowed, read_castling},
    position::{Position, PositionInput},
    retract::retractions,
    rules::Rules,
    stipulation::{Comparison, MAX_MOVE_NUMBER, MoveNumber, Stipulation},
    verdict::decide,
};
use shakmaty::{Bitboard, Board, Color, Piece, Role, Square};

fn small_budget() -> Budget {
    Budget {
        max_nodes: 300,
        chain_budget: 500,
        ..Budget::default()
    }
}

fn fen_like() -> impl Strategy<Value = String> {
    let rank = proptest::collection::vec(
        prop_oneof![
            Just('1'),
            Just('2'),
            Just('3'),
            Just('8'),
            Just('p'),
            Just('P'),
            Just('k'),
            Just('K'),
            Just('q'),
            Just('Q'),
            Just('r'),
            Just('n'),
            Just('B'),
            Just('x'),
        ],
        0..9,
    )
    .prop_map(|v| v.into_iter().collect::<String>());
    (
        proptest::collection::vec(rank, 6..10),
        prop_oneof![Just("w"), Just("b"), Just("?"), Just("x")],
        prop_oneof![Just("KQkq"), Just("-"), Just("?"), Just("Kk"), Just("KZ")],
        prop_oneof![
            Just("-"),
            Just("?"),
            Just("e3"),
            Just("d6"),
            Just("a1"),
            Just("z9")
        ],
        prop_oneof![
            Just(""),
            Just(" 0"),
            Just(" 99 50"),
            Just(" ? ?"),
            Just(" -3"),
            Just(" 18446744073709551615 1")
        ],
    )
        .prop_map(|(ranks, turn, castling, ep, clocks)| {
            format!("{} {turn} {castling} {ep}{clocks}", ranks.join("/"))
        })
}

/// A question, with and without the premise `at move N` (move numbers from 1 to far beyond any
/// game, the largest the reader takes included).
fn question() -> impl Strategy<Value = Stipulation> {
    let at = prop_oneof![
        Just(None),
        (1u64..200).prop_map(|n| Some(MoveNumber(n))),
        Just(Some(MoveNumber(MAX_MOVE_NUMBER))),
    ];
    (0usize..7, 0u64..160, at).prop_map(|(kind, n, at)| match kind {
        0 => Stipulation::Clock(at),
        1 => Stipulation::ClockIs(Comparison::Eq, n, at),
        2 => Stipulation::ClockIs(Comparison::Le, n, at),
        3 => Stipulation::Claim(at),
        4 => Stipulation::Over(at),
        5 => Stipulation::Castling,
        _ => Stipulation::Fen,
    })
}

fn random_board() -> impl Strategy<Value = Board> {
    proptest::collection::vec((0u32..64, 0usize..12), 0..40).prop_map(|units| {
        let mut board = Board::empty();
        for (sq, p) in units {
            let role = Role::ALL[p % 6];
            let color = if p < 6 { Color::White } else { Color::Black };
            board.set_piece_at(Square::new(sq), Piece { role, color });
        }
        board
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn fen_like_strings_never_panic(fen in fen_like(), stip in question()) {
        match PositionInput::parse(&fen) {
            Ok(input) => {
                for pos in input.candidates() {
                    let _ = retractions(&pos);
                }
                let clock = solve_clock(&input, Rules::Retro, &small_budget(), &|_| {});
                let answer = decide(stip, &input, clock, Proofs::default());
                // An answer always names its rules and its question.
                prop_assert_eq!(answer.rules, Rules::Retro);
                prop_assert_eq!(answer.stipulation, stip);
                // The Codex reading of an unknown castling field, and the answer under it.
                if let Some(reading) = read_castling(&input, Rules::Retro, &small_budget(), None, &|_, _| {}) {
                    let narrowed_input = narrowed(&input, &reading);
                    let clock = solve_clock(&narrowed_input, Rules::Retro, &small_budget(), &|_| {});
                    let answer = decide(stip, &narrowed_input, clock, Proofs::default()).with_codex(reading);
                    prop_assert!(answer.codex.is_some());
                    prop_assert!(!answer.notes.is_empty());
                }
            }
            Err(e) => prop_assert!(!e.message.is_empty()),
        }
    }

    #[test]
    fn random_placements_never_panic(board in random_board(), white in any::<bool>(), rights in 0u8..16, ep in 0u32..64) {
        let turn = if white { Color::White } else { Color::Black };
        let mut castling = Bitboard::EMPTY;
        for (i, sq) in [Square::A1, Square::H1, Square::A8, Square::H8].into_iter().enumerate() {
            if rights >> i & 1 == 1 {
                castling.add(sq);
            }
        }
        for ep_square in [None, Some(Square::new(ep))] {
            let pos = Position { board: board.clone(), turn, castling, ep_square };
            for r in retractions(&pos) {
                // Every retraction the engine gives replays forward.
                prop_assert!(retroclock::verify::check_retraction(&pos, &r.predecessor, r.mv).is_ok());
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    /// Positions reached by random play: the engine's retractions replay, the solver's shortest
    /// line, when it gives one, replays to the position with its clock, and so does the line
    /// of the answer to a random question.
    #[test]
    fn random_legal_positions_never_panic(seed in any::<u64>(), plies in 0usize..120, stip in question()) {
        use shakmaty::{Chess, Position as _};
        let mut state = seed | 1;
        let mut chess = Chess::default();
        for _ in 0..plies {
            let moves = chess.legal_moves();
            if moves.is_empty() {
                break;
            }
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            chess.play_unchecked(moves[(state % moves.len() as u64) as usize]);
        }
        let pos = Position::from_chess(&chess);
        for r in retractions(&pos) {
            prop_assert!(retroclock::verify::check_retraction(&pos, &r.predecessor, r.mv).is_ok());
        }
        let input = PositionInput::parse(&pos.fen4()).unwrap();
        let clock = solve_clock(&input, Rules::Fide, &small_budget(), &|_| {});
        if let Some(c) = &clock.shortest {
            prop_assert_eq!(c.san.len() as u64, c.clock + u64::from(c.moves.len() as u64 > c.clock));
            prop_assert!(retroclock::verify::replay_line(&c.start, &c.moves, &pos).is_ok());
        }
        // Any question on it, with or without a premise, is answered, and its line replays.
        let answer = decide(stip, &input, clock, Proofs::default());
        if let Some(c) = &answer.certificate {
            prop_assert!(retroclock::verify::replay_line(&c.start, &c.moves, &pos).is_ok());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// The engine's fast material verdict is the verdict of the full material conditions.
    #[test]
    fn fast_material_verdict_agrees(board in random_board()) {
        prop_assert_eq!(
            retroclock::legality::material_ok(&board),
            retroclock::legality::material_reasons(&board).is_empty()
        );
    }
}

fn stipulation_like() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("clock"),
        Just("claim"),
        Just("over"),
        Just("fen"),
        Just("legal"),
        Just("castling"),
        Just("last"),
        Just("proofgame"),
        Just("at"),
        Just("move"),
        Just("?"),
        Just("="),
        Just(">="),
        Just("<="),
        Just("0"),
        Just("50"),
        Just("18446744073709551616"),
        Just(" "),
        Just("é"),
        Just("AT MOVE"),
    ];
    proptest::collection::vec(token, 0..8).prop_map(|v| v.concat())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    /// Stipulation-like strings parse or give an error; what parses reads back the same.
    #[test]
    fn stipulations_parse_or_fail_cleanly(text in stipulation_like()) {
        if let Ok(stip) = text.parse::<Stipulation>() {
            prop_assert_eq!(stip.to_string().parse::<Stipulation>().ok(), Some(stip));
        }
    }
}
