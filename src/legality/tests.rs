//! Unit tests for the static legality checks.

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, Position, Role, Square,
    fen::Fen,
};

use super::*;

/// Board, side to move, castling rook squares and e.p. square of a FEN.
fn parse(fen: &str) -> (Board, Color, Bitboard, Option<Square>) {
    let fen: Fen = fen.parse().expect("test FEN parses");
    let setup = fen.as_setup().clone();
    (setup.board, setup.turn, setup.castling_rights, setup.ep_square)
}

fn reasons(fen: &str) -> Vec<Illegality> {
    let (board, turn, castling, ep) = parse(fen);
    static_reasons(&board, turn, castling, ep)
}

fn messages(fen: &str) -> Vec<String> {
    reasons(fen).iter().map(ToString::to_string).collect()
}

fn board(fen: &str) -> Board {
    parse(fen).0
}

#[track_caller]
fn assert_passes(fen: &str) {
    let r = messages(fen);
    assert!(r.is_empty(), "{fen} should pass, got {r:?}");
}

/// Asserts that exactly one reason is reported and returns it with its message.
#[track_caller]
fn only_reason(fen: &str) -> (Illegality, String) {
    let r = reasons(fen);
    assert_eq!(r.len(), 1, "{fen}: expected one reason, got {:?}", messages(fen));
    let msg = r[0].to_string();
    (r[0].clone(), msg)
}

// ---------------------------------------------------------------- basics

#[test]
fn initial_array_passes() {
    assert_passes("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1");
    let b = Board::new();
    assert_eq!(min_pawn_captures(&b, Color::White), 0);
    assert_eq!(min_pawn_captures(&b, Color::Black), 0);
}

#[test]
fn king_counts() {
    let (r, msg) = only_reason("8/8/8/8/8/8/8/K7 w - - 0 1");
    assert_eq!(
        r,
        Illegality::KingCount {
            color: Color::Black,
            count: 0
        }
    );
    assert_eq!(msg, "Black has no king");
    let (_, msg) = only_reason("k7/8/8/8/8/8/8/K6K b - - 0 1");
    assert_eq!(msg, "White has 2 kings");
    assert_passes("k7/8/8/8/8/8/8/K7 w - - 0 1");
}

#[test]
fn pawns_on_back_ranks() {
    let (_, msg) = only_reason("4k2P/8/8/8/8/8/8/4K3 b - - 0 1");
    assert_eq!(msg, "White pawn on rank 8 (h8)");
    let (_, msg) = only_reason("4k3/8/8/8/8/8/8/2K1p3 w - - 0 1");
    assert_eq!(msg, "Black pawn on rank 1 (e1)");
    assert_passes("4k3/7P/8/8/8/8/4p3/2K5 b - - 0 1");
}

// ---------------------------------------------------------------- checks

#[test]
fn side_not_to_move_in_check() {
    let (r, msg) = only_reason("4k3/8/8/8/8/8/8/4R1K1 w - - 0 1");
    assert!(matches!(r, Illegality::NotToMoveInCheck { color: Color::Black, .. }));
    assert!(msg.starts_with("the side not to move (Black) is in check"), "{msg}");
    assert_passes("4k3/8/8/8/8/8/8/4R1K1 b - - 0 1");
}

#[test]
fn too_many_checkers() {
    let (r, msg) = only_reason("4k3/8/8/8/8/3n1n2/4r3/4K3 w - - 0 1");
    assert!(matches!(r, Illegality::TooManyCheckers { color: Color::White, .. }));
    assert!(msg.starts_with("White is checked by 3 units"), "{msg}");
}

#[test]
fn double_check_by_two_steppers() {
    let (r, msg) = only_reason("4k3/8/8/8/8/3n4/5p2/4K3 w - - 0 1");
    assert!(matches!(
        r,
        Illegality::ImpossibleDoubleCheck {
            fault: DoubleCheckFault::TwoSteppers,
            ..
        }
    ));
    assert!(msg.contains("by a pawn (f2) and a knight (d3)"), "{msg}");
    // Knight from e5 uncovering the rook: possible.
    assert_passes("4k3/4r3/8/8/8/3n4/8/4K3 w - - 0 1");
}

#[test]
fn double_check_along_one_line() {
    let (r, _) = only_reason("4r2k/8/8/8/4K3/8/8/4r3 w - - 0 1");
    assert!(matches!(
        r,
        Illegality::ImpossibleDoubleCheck {
            fault: DoubleCheckFault::Aligned,
            ..
        }
    ));
}

#[test]
fn double_check_without_a_single_move() {
    // Rook a1 and bishop b4: neither can have come from the other's line.
    let (r, _) = only_reason("4k3/8/8/8/1b6/8/8/r3K3 w - - 0 1");
    assert!(matches!(
        r,
        Illegality::ImpossibleDoubleCheck {
            fault: DoubleCheckFault::NoSingleMove,
            ..
        }
    ));
    // Rook d2-d1 uncovering the bishop.
    assert_passes("4k3/8/8/8/1b6/8/8/3rK3 w - - 0 1");
    // A queen on e3 could only have come from c3 or d2, where it already gave check.
    let (r, _) = only_reason("4k3/8/8/8/1b6/4q3/8/4K3 w - - 0 1");
    assert!(matches!(
        r,
        Illegality::ImpossibleDoubleCheck {
            fault: DoubleCheckFault::NoSingleMove,
            ..
        }
    ));
    // A rook on c3 did not: Rc3-e3 uncovers the bishop.
    assert_passes("4k3/8/8/8/1b6/4r3/8/4K3 w - - 0 1");
}

#[test]
fn double_check_by_promotion() {
    // d7xc8=Q uncovering the rook on h7.
    assert_passes("2Q5/1k5R/8/8/8/8/8/7K b - - 0 1");
    // The same pieces away from the promotion rank: no single move.
    let (r, _) = only_reason("8/1k5R/2Q5/8/8/8/8/7K b - - 0 1");
    assert!(matches!(
        r,
        Illegality::ImpossibleDoubleCheck {
            fault: DoubleCheckFault::NoSingleMove,
            ..
        }
    ));
}

#[test]
fn double_check_by_en_passant() {
    // ...d7-d5, exd6 e.p. uncovers both the rook on e8 and the bishop on a8.
    assert_passes("B3R3/8/3P4/8/4k3/8/8/7K b - - 0 1");
    let (r, _) = only_reason("B3R3/8/8/8/4k3/8/8/7K b - - 0 1");
    assert!(matches!(
        r,
        Illegality::ImpossibleDoubleCheck {
            fault: DoubleCheckFault::NoSingleMove,
            ..
        }
    ));
    // The black pawn came from d7, which must be empty.
    let (r, _) = only_reason("B3R3/3p4/3P4/8/4k3/8/8/7K b - - 0 1");
    assert!(matches!(r, Illegality::ImpossibleDoubleCheck { .. }));
    // Pawn capture with a discovered check: exd6 (or e5xd6 e.p.) uncovering the rook on e1.
    assert_passes("8/4k3/3P4/8/8/8/8/4R2K b - - 0 1");
}

// ---------------------------------------------------------------- material

#[test]
fn too_many_pawns_and_units() {
    let r = messages("4k3/8/8/8/P7/8/PPPPPPPP/4K3 w - - 0 1");
    assert_eq!(r, vec!["White has 9 pawns".to_string()]);
    let r = messages("4k3/8/8/8/4N3/8/PPPPPPPP/RNBQKBNR w KQ - 0 1");
    assert!(r.contains(&"White has 17 units".to_string()), "{r:?}");
    assert!(
        r.iter().any(|m| m.starts_with("White has at least 1 promoted piece")),
        "{r:?}"
    );
    assert_passes("4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1");
}

#[test]
fn promoted_extras() {
    let (r, msg) = only_reason("4k3/8/8/8/8/8/PPPPPPPP/3QK2Q w - - 0 1");
    assert!(matches!(r, Illegality::TooManyPromoted { color: Color::White, .. }));
    assert_eq!(
        msg,
        "White has at least 1 promoted piece (1 queen(s) beyond 1) but with 8 pawns on the \
         board only 0 can have promoted"
    );
    assert_passes("4k3/8/8/8/8/8/PPPPPPP1/3QK2Q w - - 0 1");
    // Two light-squared bishops with 8 pawns; a light and a dark one are fine.
    let (r, _) = only_reason("4k3/8/8/8/8/8/PPPPPPPP/4KB1B w - - 0 1");
    assert!(matches!(r, Illegality::TooManyPromoted { .. }));
    assert_passes("4k3/8/8/8/8/8/PPPPPPPP/4KBB1 w - - 0 1");
    // Black: three rooks and eight pawns.
    let (r, _) = only_reason("rr2k2r/pppppppp/8/8/8/8/8/4K3 w - - 0 1");
    assert!(matches!(r, Illegality::TooManyPromoted { color: Color::Black, .. }));
}

#[test]
fn pawn_files_exhausted() {
    let (r, msg) = only_reason("4k3/8/8/8/8/P7/PP6/4K3 w - - 0 1");
    assert!(matches!(r, Illegality::PawnFilesExhausted { color: Color::White, .. }));
    assert_eq!(
        msg,
        "White's pawns on a2, b2 and a3 need 3 different starting files but can only come \
         from the a and b-files"
    );
    assert_eq!(
        min_pawn_captures(&board("4k3/8/8/8/8/P7/PP6/4K3 w - - 0 1"), Color::White),
        UNASSIGNABLE
    );
    assert_passes("4k3/8/8/8/8/P7/P1P5/4K3 w - - 0 1");
}

#[test]
fn min_pawn_captures_structures() {
    let w = |fen: &str| min_pawn_captures(&board(fen), Color::White);
    let b = |fen: &str| min_pawn_captures(&board(fen), Color::Black);
    // Doubled a-pawns: the a3 pawn came from b2.
    assert_eq!(w("4k3/8/8/8/8/P7/P7/4K3 w - - 0 1"), 1);
    // Tripled c-pawns: one from b, one from d.
    assert_eq!(w("4k3/8/8/8/2P5/2P5/2P5/4K3 w - - 0 1"), 2);
    // a2, a3, b3: a3 from b2, b3 from c2.
    assert_eq!(w("4k3/8/8/8/8/PP6/P7/4K3 w - - 0 1"), 2);
    // Quadrupled a-pawns: a3 from b, a4 from c, a5 from d.
    assert_eq!(w("4k3/8/8/P7/P7/P7/P7/4K3 w - - 0 1"), 6);
    // A pawn far from home: h2 and a pawn on b5 from e2 at least 3 files away? No: from b2.
    assert_eq!(w("4k3/8/8/1P6/8/8/7P/4K3 w - - 0 1"), 0);
    // Black doubled h-pawns.
    assert_eq!(b("4k3/7p/7p/8/8/8/8/4K3 w - - 0 1"), 1);
    // Black tripled e-pawns on e6, e5, e4 and the d7, f7 pawns at home: e5 and e4 go wider.
    assert_eq!(b("4k3/3p1p2/4p3/4p3/4p3/8/8/4K3 w - - 0 1"), 4);
    // A full set of pawns on their own files.
    assert_eq!(w("4k3/8/8/8/PPPPPPPP/8/8/4K3 w - - 0 1"), 0);
}

#[test]
fn min_pawn_captures_promotions() {
    let w = |fen: &str| min_pawn_captures(&board(fen), Color::White);
    // Seven pawns at home and an extra queen: the h-pawn promoted; the black pawn on h7 has
    // never moved, so it had to leave the h-file.
    assert_eq!(w("4k3/7p/8/8/8/8/PPPPPPP1/3QK2Q w - - 0 1"), 1);
    assert_eq!(w("4k3/8/7p/8/8/8/PPPPPPP1/3QK2Q w - - 0 1"), 0);
    // Two free files, one blocked: the unblocked one is used.
    assert_eq!(w("4k3/7p/8/8/8/8/PPPPPP2/3QK2Q w - - 0 1"), 0);
    // No capture possible at all: Black still has 16 units.
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/3QK2Q w - - 0 1";
    let (r, msg) = only_reason(fen);
    assert!(matches!(
        r,
        Illegality::PawnCaptures {
            color: Color::White,
            needed: 1,
            available: 0,
            ..
        }
    ));
    assert_eq!(
        msg,
        "White's pawns need at least 1 capture (a promotion past the unmoved pawn on h7) but \
         Black has no units missing"
    );
    assert_passes("rnbqkbnr/ppppppp1/7p/8/8/8/PPPPPPP1/3QK2Q w - - 0 1");
}

#[test]
fn pawn_captures_against_missing_units() {
    // c2, c3, c4 need 2 captures, h2, h3 one more; Black has lost only its a- and b-pawns.
    let fen = "rnbqkbnr/2pppppp/8/8/2P5/2P4P/2P4P/4K3 w - - 0 1";
    let (r, msg) = only_reason(fen);
    let Illegality::PawnCaptures {
        color,
        needed,
        available,
        paths,
        blockers,
    } = r
    else {
        panic!("{msg}")
    };
    assert_eq!((color, needed, available), (Color::White, 3, 2));
    assert!(blockers.is_empty());
    assert_eq!(paths.len(), 3);
    assert!(
        msg.starts_with("White's pawns need at least 3 captures (")
            && msg.ends_with(") but Black has only 2 units missing"),
        "{msg}"
    );
    assert!(msg.contains("g2→h3"), "{msg}");
    // One more black unit missing: passes.
    assert_passes("r1bqkbnr/2pppppp/8/8/2P5/2P4P/2P4P/4K3 w - - 0 1");
}

#[test]
fn black_pawn_captures() {
    // Black e-pawns on e6 and e5 need one capture; White has all 16 units.
    let fen = "rnbqkbnr/ppp2ppp/4p3/4p3/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (r, msg) = only_reason(fen);
    assert!(matches!(r, Illegality::PawnCaptures { color: Color::Black, .. }));
    assert!(msg.contains("but White has no units missing"), "{msg}");
    // The c-pawn of Black gone from the board... still no white unit missing.
    assert_passes("rnbqkbnr/ppp2ppp/4p3/4p3/8/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1");
}

// ---------------------------------------------------------------- castling

#[test]
fn castling_rights() {
    assert_passes("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    let b = board("r3k2r/8/8/8/8/8/8/R3K3 w - - 0 1");
    let r = static_reasons(&b, Color::White, Bitboard::from(Square::H1), None);
    assert_eq!(r.len(), 1);
    assert_eq!(
        r[0].to_string(),
        "castling right on h1 needs a white rook on h1 and the white king on e1 (no white rook \
         on h1)"
    );
    let b = board("r3k2r/8/8/8/8/8/8/R4K1R w - - 0 1");
    let r = static_reasons(&b, Color::White, Bitboard::from(Square::A1), None);
    assert_eq!(r.len(), 1);
    assert!(r[0].to_string().ends_with("(the white king is not on e1)"));
    let b = board("r3k2r/8/8/8/8/8/8/R3K2R w - - 0 1");
    let r = static_reasons(&b, Color::White, Bitboard::from(Square::D1), None);
    assert!(matches!(
        r[..],
        [Illegality::CastlingRight {
            fault: CastlingFault::NotACorner,
            ..
        }]
    ));
    // Black's rights need the black pieces.
    let b = board("R3k2r/8/8/8/8/8/8/4K3 b - - 0 1");
    let r = static_reasons(&b, Color::Black, Bitboard::from(Square::A8), None);
    assert_eq!(r.len(), 1, "{r:?}");
    assert!(static_reasons(&b, Color::Black, Bitboard::from(Square::H8), None).is_empty());
}

// ---------------------------------------------------------------- en passant

#[test]
fn en_passant_square() {
    assert_passes("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1");
    assert_passes("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2");
    let (r, msg) = only_reason("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e6 0 1");
    assert!(matches!(
        r,
        Illegality::EnPassant {
            fault: EnPassantFault::WrongRank { .. },
            ..
        }
    ));
    assert_eq!(msg, "e.p. square e6 must be on rank 3 when Black is to move");
    let (_, msg) = only_reason("rnbqkbnr/pppppppp/8/8/4P3/8/PPPPNPPP/RNBQKB1R b KQkq e3 0 1");
    assert_eq!(msg, "e.p. square e3 needs a white pawn on e4, e2 and e3 empty");
    let (_, msg) = only_reason("rnbqkbnr/pppp1ppp/8/8/4p3/8/PPPPPPPP/RNBQKBNR w KQkq e6 0 1");
    assert_eq!(msg, "e.p. square e6 needs a black pawn on e5, e7 and e6 empty");
}

#[test]
fn en_passant_and_checks() {
    // ...f7-f5 uncovers the bishop on g8: fine.
    assert_passes("6b1/8/8/3K1p2/8/8/8/7k w - f6 0 1");
    // ...f7-f5 would have been played with the rook on h5 already checking: impossible.
    let (r, msg) = only_reason("8/8/8/3K1p1r/8/8/8/7k w - f6 0 1");
    assert!(matches!(
        r,
        Illegality::EnPassant {
            fault: EnPassantFault::CheckBefore { .. },
            ..
        }
    ));
    assert_eq!(
        msg,
        "e.p. square f6 means the last move was f7–f5, but before it White was already in \
         check (from h5) with Black to move"
    );
    assert_passes("8/8/8/3K1p1r/8/8/8/7k w - - 0 1");
    // A check the double step cannot explain (knight).
    let (r, _) = only_reason("8/8/2n5/4Kp2/8/8/8/7k w - f6 0 1");
    assert!(matches!(
        r,
        Illegality::EnPassant {
            fault: EnPassantFault::CheckBefore { .. },
            ..
        }
    ));
    assert_passes("8/8/2n5/4Kp2/8/8/8/7k w - - 0 1");
    // The double-stepped pawn itself gives check: fine.
    assert_passes("8/8/8/5p2/4K3/8/8/7k w - f6 0 1");
    // It would have given check from its starting square: impossible.
    let (r, _) = only_reason("8/8/4K3/5p2/8/8/8/7k w - f6 0 1");
    assert!(matches!(r, Illegality::EnPassant { .. }));
}

// ---------------------------------------------------------------- allowance

#[test]
fn allowance_uncaptures() {
    // White's c-pawns need 2 captures and Black has 2 units missing.
    let b = board("rnbqkbnr/2pppppp/8/8/2P5/2P5/2P5/4K3 w - - 0 1");
    let a = allowance(&b, Color::Black);
    assert_eq!(a.missing, 2);
    // A pawn (of White) may have made the last capture: its structure gets one cheaper.
    assert!(a.can_uncapture(Role::Pawn));
    assert!(a.can_uncapture_by(Role::Knight, Square::D4, Role::Pawn));
    // A piece may not: White's pawns would need 2 captures with only 1 black unit missing.
    assert!(!a.can_uncapture_by(Role::Knight, Square::D4, Role::Queen));
    assert!(!a.can_uncapture(Role::King));
    // Black has 2 knights: a third would be promoted, with 6 pawns that is allowed.
    assert!(a.can_uncapture(Role::Knight));
    // A pawn cannot be un-captured on a back rank.
    assert!(!a.can_uncapture_at(Role::Pawn, Square::C8));

    // Black has all 16 units: nothing to un-capture.
    let a = allowance(&Board::new(), Color::Black);
    assert_eq!(a.missing, 0);
    for role in Role::ALL {
        assert!(!a.can_uncapture(role));
    }
    assert_eq!(a.unpromotions, 0);

    // White: 8 pawns, queen, 2 knights, light bishop; missing a rook pair and dark bishop.
    let b = board("4k3/8/8/8/8/8/PPPPPPPP/1N1QKBN1 w - - 0 1");
    let a = allowance(&b, Color::White);
    assert!(!a.can_uncapture(Role::Pawn));
    assert!(!a.can_uncapture(Role::Queen));
    assert!(!a.can_uncapture(Role::Knight));
    assert!(a.can_uncapture(Role::Rook));
    assert!(a.can_uncapture(Role::Bishop));
    assert!(a.can_uncapture_at(Role::Bishop, Square::C1));
    assert!(!a.can_uncapture_at(Role::Bishop, Square::D1));
    assert_eq!(a.unpromotions, 0);
}

#[test]
fn allowance_promotion_costs() {
    // White: 7 pawns at home (h-file free), queen; Black's h-pawn has never moved and Black
    // has lost one unit. Un-capturing a second white queen makes White's h-pawn promotion cost
    // one capture: allowed with one black unit missing, not with none.
    let b = board("rnbqkbn1/pppppppp/8/8/8/8/PPPPPPP1/3QK3 b - - 0 1");
    assert!(allowance(&b, Color::White).can_uncapture(Role::Queen));
    let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPP1/3QK3 b - - 0 1");
    let a = allowance(&b, Color::White);
    assert!(!a.can_uncapture(Role::Queen));
    assert!(a.can_uncapture(Role::Rook));
    assert!(a.can_uncapture(Role::Pawn));
}

#[test]
fn allowance_unpromotions() {
    // 7 pawns and 2 queens: one piece can go back to being a pawn, and it must be a queen.
    let b = board("4k3/8/8/8/8/8/PPPPPPP1/RN1QK1NQ w - - 0 1");
    let a = allowance(&b, Color::White);
    assert_eq!(a.unpromotions, 1);
    assert!(a.can_unpromote(Role::Queen, Square::H8));
    assert!(!a.can_unpromote(Role::Knight, Square::B8));
    assert!(!a.can_unpromote(Role::Pawn, Square::B8));
    assert!(!a.can_unpromote(Role::King, Square::E8));
    // 3 pawns: up to 5 of the 5 pieces.
    let b = board("4k3/8/8/8/8/8/PPP5/RN1QK1NR w - - 0 1");
    let a = allowance(&b, Color::White);
    assert_eq!(a.unpromotions, 5);
    assert!(a.can_unpromote(Role::Rook, Square::A8));
}

// ---------------------------------------------------------------- fullmove

#[test]
fn fullmove_bounds() {
    assert_eq!(fullmove_bound(1, Color::White), 0);
    assert_eq!(fullmove_bound(1, Color::Black), 1);
    assert_eq!(fullmove_bound(40, Color::White), 78);
    assert_eq!(fullmove_bound(40, Color::Black), 79);
    assert_eq!(fullmove_bound(0, Color::White), 0);
    assert_eq!(fullmove_bound(u32::MAX, Color::Black), 2 * (u64::from(u32::MAX) - 1) + 1);
}

// ---------------------------------------------------------------- robustness

/// A tiny xorshift generator for reproducible tests.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[test]
fn never_panics_on_odd_boards() {
    let odd = [
        "8/8/8/8/8/8/8/8 w - - 0 1",
        "K1K1K3/8/8/8/8/8/8/k7 w - - 0 1",
        "QQQQQQQQ/QQQQQQQQ/QQQQ4/8/8/8/8/k6K w - - 0 1",
        "PPPPPPPP/pppppppp/PPPPPPPP/pppppppp/8/8/PPPPPPPP/pppppppp b - - 0 1",
        "kqqqqqqq/qqqqqqqq/8/8/8/8/QQQQQQQQ/QQQQQQQK w - - 0 1",
    ];
    for fen in odd {
        let (b, turn, _, _) = parse(fen);
        for ep in [None, Some(Square::E3), Some(Square::E6), Some(Square::A1)] {
            for r in static_reasons(&b, turn, Bitboard::FULL, ep) {
                let _ = r.to_string();
            }
        }
        for color in [Color::White, Color::Black] {
            let _ = min_pawn_captures(&b, color);
            let _ = allowance(&b, color);
        }
    }
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let pieces: Vec<_> = Color::ALL
        .into_iter()
        .flat_map(|c| Role::ALL.into_iter().map(move |r| r.of(c)))
        .collect();
    for _ in 0..3000 {
        let mut b = Board::empty();
        let n = rng.below(40);
        for _ in 0..n {
            let sq = Square::new(rng.below(64) as u32);
            b.set_piece_at(sq, pieces[rng.below(pieces.len())]);
        }
        let turn = if rng.below(2) == 0 { Color::White } else { Color::Black };
        let castling = Bitboard(rng.next() & rng.next() & rng.next());
        let ep = (rng.below(2) == 0).then(|| Square::new(rng.below(64) as u32));
        for r in static_reasons(&b, turn, castling, ep) {
            let _ = r.to_string();
        }
        for color in [Color::White, Color::Black] {
            let _ = min_pawn_captures(&b, color);
            let a = allowance(&b, color);
            for role in Role::ALL {
                let _ = a.can_uncapture(role);
            }
        }
    }
}

/// The role a move's mover has after the move.
fn role_after(m: &shakmaty::Move) -> Role {
    m.promotion().unwrap_or(m.role())
}

/// Asserts that a position reached in play passes every check, with its real castling rights
/// and e.p. square (both the legal one and the double step's one).
#[track_caller]
fn assert_real(pos: &Chess, history: &str) {
    let board = pos.board();
    let castling = pos.castles().castling_rights();
    for mode in [EnPassantMode::Legal, EnPassantMode::Always] {
        let r = static_reasons(board, pos.turn(), castling, pos.ep_square(mode));
        assert!(
            r.is_empty(),
            "{} after {history}: {:?}",
            Fen::from_position(pos, EnPassantMode::Always),
            r.iter().map(ToString::to_string).collect::<Vec<_>>()
        );
    }
}

/// Checks that the allowance of the position after `m` permits retracting `m`.
#[track_caller]
fn assert_allowance_permits(after: &Chess, m: &shakmaty::Move) {
    let mover = !after.turn();
    if let Some(captured) = m.capture() {
        let a = allowance(after.board(), after.turn());
        // The captured unit stood on the destination, or beside it for e.p.
        let square = if m.is_en_passant() {
            Square::from_coords(m.to().file(), m.from().expect("ep has a from").rank())
        } else {
            m.to()
        };
        assert!(
            a.can_uncapture_by(captured, square, role_after(m)),
            "allowance forbids un-capturing {captured:?} on {square} by {:?} in {}",
            role_after(m),
            Fen::from_position(after, EnPassantMode::Always)
        );
        assert!(a.can_uncapture(captured));
    }
    if let Some(promoted) = m.promotion() {
        let a = allowance(after.board(), mover);
        assert!(
            a.can_unpromote(promoted, m.to()),
            "allowance forbids un-promoting on {} in {}",
            m.to(),
            Fen::from_position(after, EnPassantMode::Always)
        );
        assert!(a.unpromotions >= 1);
    }
}

/// Plays `games` seeded random games; `children` also checks every legal move's result.
fn random_games(seed: u64, games: usize, max_plies: usize, children: bool) -> usize {
    let mut rng = XorShift(seed);
    let mut checked = 0;
    for game in 0..games {
        let mut pos = Chess::default();
        assert_real(&pos, "the start");
        for ply in 0..max_plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            if children {
                for m in &moves {
                    let mut child = pos.clone();
                    child.play_unchecked(*m);
                    assert_real(&child, &format!("game {game} ply {ply} and {m:?}"));
                    assert_allowance_permits(&child, m);
                    checked += 1;
                }
            }
            let m = moves[rng.below(moves.len())];
            pos.play_unchecked(m);
            assert_real(&pos, &format!("game {game} ply {ply}"));
            assert_allowance_permits(&pos, &m);
            checked += 1;
        }
    }
    checked
}

#[test]
fn random_games_pass() {
    let checked = random_games(0x2545_f491_4f6c_dd1d, 200, 300, false);
    assert!(checked > 20_000, "{checked}");
}

#[test]
fn random_game_children_pass() {
    let checked = random_games(0xd1b5_4a32_d192_ed03, 12, 300, true);
    assert!(checked > 20_000, "{checked}");
}

/// Games biased towards captures and pawn moves reach promotions, e.p. and odd structures
/// more often than uniform random play.
#[test]
fn capture_heavy_games_pass() {
    let mut rng = XorShift(0x1234_5678_9abc_def1);
    for game in 0..150 {
        let mut pos = Chess::default();
        for ply in 0..300 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let preferred: Vec<_> = moves
                .iter()
                .filter(|m| m.is_capture() || m.role() == Role::Pawn || m.is_promotion())
                .copied()
                .collect();
            let m = if !preferred.is_empty() && rng.below(4) != 0 {
                preferred[rng.below(preferred.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            pos.play_unchecked(m);
            assert_real(&pos, &format!("capture-heavy game {game} ply {ply}"));
            assert_allowance_permits(&pos, &m);
        }
    }
}

#[test]
fn setup_round_trip_of_real_castling() {
    // A position reached by play with castling rights kept, checked through the Setup API.
    let pos: Chess = "r3k2r/pppq1ppp/2n2n2/3pp3/3PP3/2N2N2/PPPQ1PPP/R3K2R w KQkq - 0 1"
        .parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("legal");
    assert_real(&pos, "setup");
}
