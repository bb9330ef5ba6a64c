//! Self-test of the brute-force predecessor oracle (`tests/common/oracle.rs`) and of the seeded
//! position generators (`tests/common/positions.rs`). The project's retraction code is compared
//! against the oracle, so the oracle itself is checked here: it must find every real predecessor
//! (real game histories, forward play from many kinds of positions), everything it reports must
//! replay, and small cases must match predecessor counts worked out by hand.

mod common;

use std::collections::BTreeSet;
use std::time::Instant;

use common::oracle::{
    Origins, Predecessor, accept_all, fen_without_clocks, position_key, predecessor_set,
    predecessor_set_of_fen, predecessors, predecessors_with, uci_of,
};
use common::positions::{self, KINDS, Steer};
use shakmaty::{
    CastlingMode, Chess, Color, EnPassantMode, FromSetup, Position, Setup, Square, fen::Fen,
    uci::UciMove,
};

fn chess(setup: &Setup) -> Chess {
    Chess::from_setup(setup.clone(), CastlingMode::Standard).expect("valid position")
}

/// Re-checks one reported predecessor of `p` from its strings alone, without the oracle's code:
/// Q parses and is valid, is canonical, has the other side to move, m is legal in Q and playing
/// it gives exactly P.
fn check_replays(p: &Setup, fen: &str, uci: &str) {
    let q: Chess = fen
        .parse::<Fen>()
        .unwrap_or_else(|e| panic!("predecessor FEN {fen}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("predecessor {fen} invalid: {e}"));
    assert_eq!(
        fen_without_clocks(&q.to_setup(EnPassantMode::Legal)),
        fen,
        "predecessor not canonical"
    );
    assert_eq!(q.turn(), !p.turn, "predecessor {fen}: wrong side to move");
    let mv = uci
        .parse::<UciMove>()
        .unwrap_or_else(|e| panic!("UCI {uci}: {e}"))
        .to_move(&q)
        .unwrap_or_else(|e| panic!("{uci} is not legal in {fen}: {e}"));
    assert!(q.legal_moves().contains(&mv));
    let after = q.play(mv).expect("legal move");
    assert_eq!(
        position_key(&after.to_setup(EnPassantMode::Legal)),
        position_key(p),
        "{fen} + {uci} does not give {}",
        fen_without_clocks(p)
    );
}

/// Checks the rich and set forms agree and that no (Q, m) is reported twice; returns the set.
fn checked_set(p: &Setup, preds: &[Predecessor]) -> BTreeSet<(String, String)> {
    let set: BTreeSet<_> = preds.iter().map(Predecessor::key).collect();
    assert_eq!(
        set.len(),
        preds.len(),
        "duplicate predecessors of {}",
        fen_without_clocks(p)
    );
    for pred in preds {
        assert_eq!(
            position_key(&pred.position.to_setup(EnPassantMode::Legal)),
            position_key(&pred.setup)
        );
    }
    set
}

#[test]
fn completeness_on_real_history() {
    let start = Instant::now();
    let mut games = positions::random_games(150, 200, 0x0a11_9a3e, Steer::Uniform);
    games.extend(positions::random_games(50, 200, 0xc4ec, Steer::Checks));
    games.extend(positions::random_games(50, 200, 0xca57, Steer::Castling));
    games.extend(positions::random_games(50, 200, 0xe9a5, Steer::EnPassant));
    let (mut plies, mut preds, mut castles, mut eps, mut promotions) = (0, 0, 0, 0, 0);
    for game in &games {
        for ply in game {
            let found = predecessors(&ply.after, &accept_all);
            assert!(
                found.iter().any(|pred| pred.is(&ply.before, ply.mv)),
                "oracle misses the real predecessor ({}, {}) of {}",
                fen_without_clocks(&ply.before),
                uci_of(ply.mv),
                fen_without_clocks(&ply.after)
            );
            plies += 1;
            preds += found.len();
            castles += usize::from(ply.mv.is_castle());
            eps += usize::from(ply.mv.is_en_passant());
            promotions += usize::from(ply.mv.is_promotion());
        }
    }
    let elapsed = start.elapsed();
    println!(
        "real history: {} games, {plies} plies ({castles} castlings, {eps} e.p. captures, \
         {promotions} promotions), {preds} predecessors, {:.1} µs per position",
        games.len(),
        elapsed.as_secs_f64() * 1e6 / plies as f64
    );
    assert!(castles > 0 && eps > 0 && promotions > 0);
}

#[test]
fn completeness_by_forward_play() {
    // Every legal move m from every generated position Q gives a P whose predecessors must
    // include (Q, m): this reaches placements no game produces (many queens, constructed double
    // checks, castling and e.p. setups).
    let start = Instant::now();
    let (mut checked, mut preds) = (0, 0);
    for (kind, q_setup) in positions::mixed_with_kinds(280, 0xf0_4a4d) {
        let q = chess(&q_setup);
        let q_fen = fen_without_clocks(&q_setup);
        for mv in q.legal_moves() {
            let p = q.clone().play(mv).expect("legal move");
            let p_setup = p.to_setup(EnPassantMode::Legal);
            let found = predecessor_set(&p_setup, &accept_all);
            assert!(
                found.contains(&(q_fen.clone(), uci_of(mv))),
                "oracle misses ({q_fen}, {}) as predecessor of {} ({kind})",
                uci_of(mv),
                fen_without_clocks(&p_setup)
            );
            checked += 1;
            preds += found.len();
        }
    }
    let elapsed = start.elapsed();
    println!(
        "forward play: {checked} positions, {preds} predecessors, {:.1} µs per position",
        elapsed.as_secs_f64() * 1e6 / checked as f64
    );
    assert!(checked > 1000);
}

#[test]
fn every_predecessor_replays() {
    let generated = positions::mixed_with_kinds(2100, 0x007e_91a7);
    let start = Instant::now();
    let results: Vec<Vec<Predecessor>> = generated
        .iter()
        .map(|(_, p)| predecessors(p, &accept_all))
        .collect();
    let elapsed = start.elapsed();
    let start = Instant::now();
    let sets: Vec<BTreeSet<(String, String)>> = generated
        .iter()
        .map(|(_, p)| predecessor_set(p, &accept_all))
        .collect();
    let set_elapsed = start.elapsed();
    let mut per_kind = std::collections::BTreeMap::new();
    for (((kind, p), preds), set) in generated.iter().zip(&results).zip(&sets) {
        let rich = checked_set(p, preds);
        assert_eq!(&rich, set);
        for (fen, uci) in rich {
            check_replays(p, &fen, &uci);
        }
        let entry = per_kind.entry(*kind).or_insert((0, 0, 0));
        entry.0 += 1;
        entry.1 += preds.len();
        entry.2 += usize::from(preds.is_empty());
    }
    let total: usize = results.iter().map(Vec::len).sum();
    println!(
        "replay: {} positions, {total} predecessors, oracle {:.1} µs per position \
         ({:.1} µs with the (FEN, UCI) set)",
        generated.len(),
        elapsed.as_secs_f64() * 1e6 / generated.len() as f64,
        set_elapsed.as_secs_f64() * 1e6 / generated.len() as f64
    );
    for (kind, (n, preds, none)) in &per_kind {
        println!("  {kind}: {n} positions, {preds} predecessors, {none} without any");
    }
    assert_eq!(per_kind.len(), KINDS.len());
    assert!(total > 10 * generated.len());
}

#[test]
fn origin_shortcut_loses_nothing() {
    // The default enumeration skips slider origins whose path is blocked in P; the exhaustive
    // empty-board enumeration must give exactly the same predecessors.
    let (mut positions, mut preds) = (0, 0);
    for p in positions::mixed(700, 0x0819_1775) {
        let fast: BTreeSet<_> = predecessors_with(&p, &accept_all, Origins::Unblocked)
            .iter()
            .map(Predecessor::key)
            .collect();
        let full: BTreeSet<_> = predecessors_with(&p, &accept_all, Origins::EmptyBoard)
            .iter()
            .map(Predecessor::key)
            .collect();
        assert_eq!(fast, full, "{}", fen_without_clocks(&p));
        positions += 1;
        preds += full.len();
    }
    println!("origin shortcut: {positions} positions, {preds} predecessors, same sets");
}

#[test]
fn accept_filter_is_applied() {
    // The filter sees each canonical Q; filtering with it must give exactly the full set minus
    // the rejected Qs.
    let no_queen_uncaptures = |q: &Setup| q.board.queens().count() <= 2;
    for p in positions::mixed(140, 0xf11) {
        let full = predecessors(&p, &accept_all);
        let filtered = predecessor_set(&p, &no_queen_uncaptures);
        let expected: BTreeSet<_> = full
            .iter()
            .filter(|pred| no_queen_uncaptures(&pred.setup))
            .map(Predecessor::key)
            .collect();
        assert_eq!(filtered, expected);
    }
}

/// The (FEN, UCI) pairs of a set whose move matches `pred`.
fn count_moves(set: &BTreeSet<(String, String)>, pred: impl Fn(&str) -> bool) -> usize {
    set.iter().filter(|(_, uci)| pred(uci)).count()
}

#[test]
fn bare_kings() {
    // White Ka1, black Kh1, white to move: Black's king came from g1, g2 or h2 (the only squares
    // next to h1), each as a quiet move or capturing a white N, B, R or Q on h1 (no pawn on the
    // first rank). None of these Q is illegal: the white king on a1 is never attacked and a
    // white unit on h1 may check the black king (a single check). No castling, no e.p.:
    // 3 × 5 = 15.
    let set = predecessor_set_of_fen("8/8/8/8/8/8/8/K6k w - - 0 1");
    assert_eq!(set.len(), 15, "{set:#?}");
    assert!(set.contains(&("8/8/8/8/8/8/6k1/K6Q b - - 0 1".into(), "g2h1".into())));
    assert!(set.contains(&("8/8/8/8/8/8/8/K5k1 b - - 0 1".into(), "g1h1".into())));
}

#[test]
fn pawn_and_kings() {
    // White Ke1, Pe3, black Ke8, black to move.
    // - Pawn e3: single step from e2 (1); no double step (e3 is not the 4th rank); captures
    //   from d2 or f2 of a black P, N, B, R or Q on e3 (2 × 5 = 10; a black R or Q there checks
    //   the king on e1, which the capture answers); no e.p. (not the 6th rank).
    // - King e1: from d1, d2, e2, f1 or f2, quiet or capturing a black N, B, R or Q on e1
    //   (5 × 5 = 25).
    // No castling rights (no rooks), no e.p. square in Q. Total 36.
    let set = predecessor_set_of_fen("4k3/8/8/8/8/4P3/8/4K3 b - - 0 1");
    assert_eq!(set.len(), 36, "{set:#?}");
    assert_eq!(count_moves(&set, |m| m == "e2e3"), 1);
    assert_eq!(count_moves(&set, |m| m == "d2e3" || m == "f2e3"), 10);
    assert_eq!(count_moves(&set, |m| m.ends_with("e1")), 25);
}

#[test]
fn en_passant_square_means_double_step() {
    // E.p. square d6 with the white pawn e5 able to take: Black's last move was d7-d5, and any
    // other retraction would leave no e.p. square. Q has no e.p. square of its own (no white
    // pawn on the 4th rank) and no castling rights (no rooks): exactly one predecessor.
    let set = predecessor_set_of_fen("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    let expected: BTreeSet<(String, String)> =
        [("4k3/3p4/8/4P3/8/8/8/4K3 b - - 0 1".into(), "d7d5".into())].into();
    assert_eq!(set, expected);
}

#[test]
fn en_passant_capture_is_retracted() {
    // White pawn on d6, black to move, d5 and d7 empty: among the predecessors is the e.p.
    // capture e5xd6 from the position with e.p. square d6 (Black's d7-d5 just played).
    let set = predecessor_set_of_fen("4k3/8/3P4/8/8/8/8/4K3 b - - 0 1");
    assert!(set.contains(&("4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1".into(), "e5d6".into())));
    // Exactly two e.p. retractions: from c5 or e5 (Q with the black pawn back on d5).
    let ep = set
        .iter()
        .filter(|(fen, _)| fen.ends_with("w - d6 0 1"))
        .count();
    assert_eq!(ep, 2, "{set:#?}");
}

#[test]
fn castling_is_retracted() {
    // White Kg1, Rf1, black Ke8, black to move.
    // - Castling: from Ke1, Rh1 with right K (f1, g1 empty): 1.
    // - King g1 from f2, g2, h1 or h2 (f1 is occupied), quiet or capturing a black N, B, R or
    //   Q on g1: 4 × 5 = 20.
    // - Rook f1 from a1..d1 (4) or f2..f7 (6); from e1 or f8 it would check the black king in
    //   Q (White to move: impossible); h1 is blocked by the king on g1. Each quiet or capturing
    //   a black N, B, R or Q on f1: 10 × 5 = 50. Q never has rights there (no king on e1).
    // Total 71.
    let set = predecessor_set_of_fen("4k3/8/8/8/8/8/8/5RK1 b - - 0 1");
    assert!(set.contains(&("4k3/8/8/8/8/8/8/4K2R w K - 0 1".into(), "e1g1".into())));
    assert_eq!(
        set.iter()
            .filter(|(fen, _)| fen.contains("4K2R w K "))
            .count(),
        1
    );
    assert_eq!(count_moves(&set, |m| m.ends_with("f1")), 50);
    assert_eq!(count_moves(&set, |m| m == "e1f1"), 0);
    assert_eq!(set.len(), 71, "{set:#?}");

    // Black castles long (Kc8, Rd8) while White keeps both rights: Q has them too, plus q.
    let set = predecessor_set_of_fen("2kr4/8/8/8/8/8/8/R3K2R w KQ - 0 1");
    assert!(set.contains(&("r3k3/8/8/8/8/8/8/R3K2R b KQq - 0 1".into(), "e8c8".into())));
    assert_eq!(count_moves(&set, |m| m == "e8c8"), 1);
}

#[test]
fn promotion_is_retracted() {
    // White Qh8 checks the black Ke8 along the 8th rank, black to move. Un-promotions:
    // - h7-h8=Q: 1;
    // - g7xh8=Q capturing a black N, B or Q: 3; capturing a black rook: 2, since Q may or may not
    //   have had the right to castle with that rook (the black king is on e8), and the capture
    //   removes the right either way.
    // Total 6 promotions.
    let set = predecessor_set_of_fen("4k2Q/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(count_moves(&set, |m| m.ends_with('q')), 6, "{set:#?}");
    assert!(set.contains(&("4k3/7P/8/8/8/8/8/4K3 w - - 0 1".into(), "h7h8q".into())));
    assert!(set.contains(&("4k2r/6P1/8/8/8/8/8/4K3 w k - 0 1".into(), "g7h8q".into())));
    assert!(set.contains(&("4k2r/6P1/8/8/8/8/8/4K3 w - - 0 1".into(), "g7h8q".into())));
    assert_eq!(count_moves(&set, |m| m.ends_with('n')), 0);
}

#[test]
fn double_check_is_retracted() {
    // Black Kh8 in double check from the white Rh1 and Ng6; white Ka1. Only a knight move off
    // the h-file can have given both checks: Nh4-g6, quiet or capturing a black P, N, B, R or Q
    // on g6 (none of which attacks a1): 6. Every other retraction leaves Black in check in Q
    // with White to move, which is impossible. Total 6.
    let set = predecessor_set_of_fen("7k/8/6N1/8/8/8/8/K6R b - - 0 1");
    assert_eq!(set.len(), 6, "{set:#?}");
    assert_eq!(count_moves(&set, |m| m == "h4g6"), 6);
}

#[test]
fn initial_array_has_no_predecessor() {
    // White to move in the initial array. Black's pawns cannot come from the 8th rank, and king,
    // queen, rooks and bishops are boxed in; only knight moves remain: Nb8 from a6/c6 and Ng8
    // from f6/h6, quiet (an un-captured white unit would be a 17th white unit, too much
    // material). Q keeps all four rights, as P has them. 4 predecessors.
    let set = predecessor_set_of_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    assert_eq!(set.len(), 4, "{set:#?}");
}

#[test]
fn generators_are_deterministic_and_valid() {
    for kind in KINDS {
        let a = positions::of_kind(kind, 60, 42);
        let b = positions::of_kind(kind, 60, 42);
        assert_eq!(a.len(), 60, "{kind}");
        let fens: Vec<String> = a.iter().map(fen_without_clocks).collect();
        let again: Vec<String> = b.iter().map(fen_without_clocks).collect();
        assert_eq!(fens, again, "{kind} is not deterministic");
        let unique: BTreeSet<&String> = fens.iter().collect();
        assert_eq!(unique.len(), fens.len(), "{kind} repeats a position");
        for setup in &a {
            let pos = chess(setup);
            assert_eq!(
                position_key(&pos.to_setup(EnPassantMode::Legal)),
                position_key(setup),
                "{kind}: not canonical"
            );
            let ok = match kind {
                "check" => pos.is_check(),
                "double_check" => pos.checkers().count() == 2,
                "castling" => {
                    let castled = [Square::C1, Square::G1, Square::C8, Square::G8];
                    setup.castling_rights.any()
                        || castled.iter().any(|sq| pos.board().kings().contains(*sq))
                }
                "en_passant" => setup.ep_square.is_some(),
                "many_queens" => Color::ALL
                    .iter()
                    .all(|c| pos.board().by_piece(c.queen()).count() >= 5),
                _ => true,
            };
            assert!(
                ok,
                "{kind}: {} lacks its property",
                fen_without_clocks(setup)
            );
        }
    }
    let mixed = positions::mixed_with_kinds(70, 9);
    for kind in KINDS {
        assert_eq!(mixed.iter().filter(|(k, _)| *k == kind).count(), 10);
    }
    // Every role is un-promoted and un-captured somewhere in a mixed sample.
    let mut roles = BTreeSet::new();
    for p in positions::mixed(210, 3) {
        for pred in predecessors(&p, &accept_all) {
            if let Some(role) = pred.mv.capture() {
                roles.insert(role.char());
            }
            if let Some(role) = pred.mv.promotion() {
                roles.insert(role.upper_char());
            }
        }
    }
    assert_eq!(roles.len(), 9, "{roles:?}");
}
