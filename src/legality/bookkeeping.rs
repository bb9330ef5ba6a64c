//! Pawn bookkeeping as a constraint problem: which original pawn each pawn on the board is,
//! which of the others promoted or were captured, and whether the pawns of the two sides can
//! have got past each other (RETRO.md §2.1).
//!
//! For each side, every assignment is tried: each pawn on the board to an original pawn whose
//! file it can have reached (a pawn changes files only by capturing, at most once per rank it
//! advanced); each original pawn left over promoted (straight up its file, or after captures) or
//! was captured. A side needs at least as many promotions as it has pieces beyond the original
//! ones, and its pawns' captures (file changes, promotions included) must fit in the units the
//! other side has lost. Between the sides, two pawns that never left one file cannot have got
//! past each other: a white pawn standing above a black one on their file, or a pawn that
//! promoted straight up a file on which the other side's pawn of that file stood all game
//! (still standing there, or promoting straight down it), is impossible.
//!
//! Captures also have places: a pawn that changes files lands each capture on the next file on
//! its way, and a pawn that never left its file and was captured died on that file. Each unit a
//! side lost was taken by one capture of the other side, by a pawn landing there or by a piece
//! (a piece can take anywhere, and the other side's pieces took exactly the units its pawns did
//! not). So a pawn that died on its own file needs a capture landing on that file or one of the
//! other side's piece captures.
//!
//! If no pair of assignments, one per side, meets every condition, no history exists: the
//! position is refuted. Every condition is necessary, so a real game's position always has a
//! pair (the tests check it on every position of real and random games).

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square};

use super::position::step_targets;
use crate::fast_hash::FastMap;

/// What the straight pawn of one file did in an assignment (a pawn that never left its
/// file), for the checks between the sides.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Straight {
    /// It left its file, was captured on it, or the file's pawn is accounted for otherwise:
    /// no constraint.
    Free,
    /// It stands on its file now, this many ranks from its starting rank (0: it never moved).
    Standing(u8),
    /// It promoted straight up its file.
    Promoted,
    /// It was captured on its file, never having left it.
    Captured,
}

/// What the checks between the sides need of one side's assignment: the straight pawn of each
/// file, the files its pawns' captures landed on, and the files on which a pawn that promoted
/// made its last capture (the only pawn captures that can land on the other side's back rank)
/// (bit per file).
type Summary = ([Straight; 8], u8, u8);

/// One side's assignments, summarised, with the fewest pawn captures each needs.
type Summaries = FastMap<Summary, u8>;

/// The most pairs of summaries (one per side) compared; beyond, the position is not refuted.
const MAX_PAIRS: usize = 4_000_000;

/// The most assignments of one side's pawns and choices of fates enumerated, and the most
/// summaries kept; beyond either, the position is not refuted (the bookkeeping is left open).
const MAX_ASSIGNMENTS: usize = 50_000;

/// Whether the pawns of the two sides of `board` admit a bookkeeping (see the module
/// documentation); also true when there are too many assignments to try them all.
pub fn bookkeeping_ok(board: &Board) -> bool {
    let frozen = [
        frozen_lost(board, Color::White),
        frozen_lost(board, Color::Black),
    ];
    let missing = |c: Color| 16u32.saturating_sub(board.by_color(c).count() as u32);
    let Some(white) = summaries(board, Color::White, missing(Color::Black)) else {
        return true;
    };
    if white.is_empty() {
        return false;
    }
    let Some(black) = summaries(board, Color::Black, missing(Color::White)) else {
        return true;
    };
    if black.is_empty() {
        return false;
    }
    if white.len().saturating_mul(black.len()) > MAX_PAIRS {
        return true;
    }
    let (lost_white, lost_black) = (missing(Color::White), missing(Color::Black));
    white.iter().any(|(w, &white_pawn_captures)| {
        let white_piece_captures = lost_black.saturating_sub(u32::from(white_pawn_captures));
        black.iter().any(|(b, &black_pawn_captures)| {
            let black_piece_captures = lost_white.saturating_sub(u32::from(black_pawn_captures));
            compatible(&w.0, &b.0)
                && taken(&w.0, b.1) + (frozen[0] & !b.2).count_ones() <= black_piece_captures
                && taken(&b.0, w.1) + (frozen[1] & !w.2).count_ones() <= white_piece_captures
        })
    })
}

/// The files of `color`'s original back-rank pieces that can never have moved and are gone:
/// every square they could step to was held all game by their own side (pawns on their starting
/// rank, and units that so never moved either), so each was captured where it started, and
/// only a piece of the other side, or a pawn of it capturing as it promoted, can have taken it.
pub(super) fn frozen_lost(board: &Board, color: Color) -> u8 {
    // The answer depends only on which pawns of `color` stand on their starting rank and on
    // which back-rank squares hold their original piece: 16 bits, kept per thread.
    let ours = board.by_color(color);
    let back_rank = color.fold_wb(Rank::First, Rank::Eighth);
    let second_rank = color.fold_wb(Rank::Second, Rank::Seventh);
    // Files as masks: a and h, b and g, c and f, d, e.
    const A_H: u64 = 0x8181_8181_8181_8181;
    const B_G: u64 = 0x4242_4242_4242_4242;
    const C_F: u64 = 0x2424_2424_2424_2424;
    const D: u64 = 0x0808_0808_0808_0808;
    const E: u64 = 0x1010_1010_1010_1010;
    let originals = ours
        & Bitboard::from_rank(back_rank)
        & ((board.rooks() & Bitboard(A_H))
            | (board.knights() & Bitboard(B_G))
            | (board.bishops() & Bitboard(C_F))
            | (board.queens() & Bitboard(D))
            | (board.kings() & Bitboard(E)));
    // The squares of one rank, as a bit per file.
    let file_bits = |b: Bitboard, rank: Rank| ((b.0 >> (8 * u32::from(rank))) & 0xFF) as u16;
    let key = usize::from(
        file_bits(board.pawns() & ours, second_rank) << 8 | file_bits(originals, back_rank),
    ) + usize::from(color.is_black()) * (1 << 16);
    thread_local! {
        static KNOWN: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    KNOWN.with(|known| {
        let mut known = known.borrow_mut();
        if known.is_empty() {
            known.resize(2 << 16, u8::MAX);
        }
        if known[key] == u8::MAX {
            known[key] = frozen_lost_of(board, color);
        }
        known[key]
    })
}

/// [`frozen_lost`], worked out.
fn frozen_lost_of(board: &Board, color: Color) -> u8 {
    let ours = board.by_color(color);
    let back = color.fold_wb(Rank::First, Rank::Eighth);
    let original = |file: File| match file {
        File::A | File::H => Role::Rook,
        File::B | File::G => Role::Knight,
        File::C | File::F => Role::Bishop,
        File::D => Role::Queen,
        File::E => Role::King,
    };
    let mut walls =
        board.pawns() & ours & Bitboard::from_rank(color.fold_wb(Rank::Second, Rank::Seventh));
    if walls.is_empty() {
        return 0;
    }
    let stuck = |walls: Bitboard, file: File| {
        let sq = Square::from_coords(file, back);
        (step_targets(original(file), sq) & !walls).is_empty()
    };
    // Units standing where they started that can never have moved: walls too.
    loop {
        let mut grew = false;
        for file in File::ALL {
            let sq = Square::from_coords(file, back);
            if !walls.contains(sq)
                && board.piece_at(sq)
                    == Some(Piece {
                        color,
                        role: original(file),
                    })
                && stuck(walls, file)
            {
                walls.add(sq);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    File::ALL
        .into_iter()
        .filter(|&file| {
            let sq = Square::from_coords(file, back);
            original(file) != Role::King
                && board.piece_at(sq)
                    != Some(Piece {
                        color,
                        role: original(file),
                    })
                && stuck(walls, file)
        })
        .fold(0u8, |bits, file| bits | 1 << u8::from(file))
}

/// Whether the straight pawns of White (`w`) and Black (`b`) can have got past each other.
fn compatible(w: &[Straight; 8], b: &[Straight; 8]) -> bool {
    w.iter().zip(b).all(|(&w, &b)| match (w, b) {
        (Straight::Free | Straight::Captured, _) | (_, Straight::Free | Straight::Captured) => true,
        // White `sw` ranks up from rank 2, Black `sb` ranks down from rank 7: White must stay
        // below: 2 + sw < 7 − sb.
        (Straight::Standing(sw), Straight::Standing(sb)) => sw + sb < 5,
        _ => false,
    })
}

/// How many of one side's pawns that died on their own files (`straight`) no capture of the
/// other side's pawns landed on (`landings`): the other side's pieces must have taken them.
fn taken(straight: &[Straight; 8], landings: u8) -> u32 {
    straight
        .iter()
        .enumerate()
        .filter(|&(f, &s)| s == Straight::Captured && landings & (1 << f) == 0)
        .count() as u32
}

/// The files a pawn's captures land on going from file `from` to file `to` (one per file
/// change, the files after `from` up to `to`).
fn landings(from: u8, to: u8) -> u8 {
    let (lo, hi) = if from < to {
        (from + 1, to)
    } else {
        (to, from.saturating_sub(1))
    };
    if from == to {
        return 0;
    }
    (lo..=hi).fold(0u8, |bits, f| bits | 1 << f)
}

/// The pieces of `color` beyond the original ones (bishops counted by square colour): the
/// fewest promotions the side has made.
fn excess_pieces(board: &Board, color: Color) -> u32 {
    let ours = board.by_color(color);
    let count = |role: Role| (board.by_role(role) & ours).count() as u32;
    let bishops = board.bishops() & ours;
    let light = (bishops & Bitboard::LIGHT_SQUARES).count() as u32;
    let dark = (bishops & Bitboard::DARK_SQUARES).count() as u32;
    count(Role::Queen).saturating_sub(1)
        + count(Role::Rook).saturating_sub(2)
        + count(Role::Knight).saturating_sub(2)
        + light.saturating_sub(1)
        + dark.saturating_sub(1)
}

/// Every assignment of `color`'s pawns that fits within `captures` captures, summarised; None
/// when there are more than [`MAX_ASSIGNMENTS`].
fn summaries(board: &Board, color: Color, captures: u32) -> Option<Summaries> {
    let pawns: Vec<(u8, u8)> = (board.pawns() & board.by_color(color))
        .into_iter()
        .map(|sq| {
            let advanced = color.fold_wb(
                u8::from(sq.rank()).saturating_sub(1),
                6u8.saturating_sub(u8::from(sq.rank())),
            );
            (u8::from(sq.file()), advanced)
        })
        .collect();
    let promotions = excess_pieces(board, color);
    let mut out = Summaries::default();
    if pawns.len() > 8 || promotions as usize + pawns.len() > 8 {
        return Some(out);
    }
    let mut origin_of = vec![0u8; pawns.len()];
    let mut tried = 0usize;
    assign(
        &pawns,
        0,
        0,
        0,
        captures,
        &mut origin_of,
        &mut |used, spent, origins| {
            tried += 1;
            if tried > MAX_ASSIGNMENTS || out.len() > MAX_ASSIGNMENTS {
                return false;
            }
            // The straight pawns among those on the board, and where the others' captures
            // landed.
            let mut straight = [Straight::Free; 8];
            let mut landed = 0u8;
            for (&(file, advanced), &origin) in pawns.iter().zip(origins) {
                if file == origin {
                    straight[file as usize] = Straight::Standing(advanced);
                }
                landed |= landings(origin, file);
            }
            // The originals left over: each promoted (straight, or after a capture) or was
            // captured. At least `promotions` of them promoted.
            let left: Vec<u8> = (0..8u8).filter(|f| used & (1 << f) == 0).collect();
            let mut state = Fates {
                straight,
                landed,
                promo: 0,
                spent,
                steps: 0,
                allowed: MAX_ASSIGNMENTS.saturating_sub(tried),
            };
            fates(&left, 0, promotions, captures, &mut state, &mut out);
            tried += state.steps;
            tried <= MAX_ASSIGNMENTS
        },
    );
    (tried <= MAX_ASSIGNMENTS && out.len() <= MAX_ASSIGNMENTS).then_some(out)
}

/// Assigns pawn `i` onward to original files not in `used`, with `spent` captures so far;
/// calls `done` with the files used, the captures and each pawn's original file.
fn assign(
    pawns: &[(u8, u8)],
    i: usize,
    used: u8,
    spent: u32,
    captures: u32,
    origin_of: &mut Vec<u8>,
    done: &mut dyn FnMut(u8, u32, &[u8]) -> bool,
) -> bool {
    let Some(&(file, advanced)) = pawns.get(i) else {
        return done(used, spent, origin_of);
    };
    for origin in 0..8u8 {
        let cost = u32::from(file.abs_diff(origin));
        if used & (1 << origin) != 0 || cost > u32::from(advanced) || spent + cost > captures {
            continue;
        }
        origin_of[i] = origin;
        if !assign(
            pawns,
            i + 1,
            used | 1 << origin,
            spent + cost,
            captures,
            origin_of,
            done,
        ) {
            return false;
        }
    }
    true
}

/// The choices made so far for one side's original pawns.
struct Fates {
    straight: [Straight; 8],
    landed: u8,
    /// The files on which promoted pawns made their last capture.
    promo: u8,
    spent: u32,
    /// The choices looked at so far.
    steps: usize,
    /// The most choices that may be looked at (beyond, the bookkeeping is left open).
    allowed: usize,
}

/// The fates of the original pawns `left[i..]`: captured on its file, promoted straight, or
/// captured or promoted after a capture onto a neighbouring file (one capture is the fewest).
/// Records each complete choice with at least `promotions` promotions within `captures`
/// captures.
fn fates(
    left: &[u8],
    i: usize,
    promotions: u32,
    captures: u32,
    state: &mut Fates,
    out: &mut Summaries,
) {
    state.steps += 1;
    if state.steps > state.allowed {
        return;
    }
    let Some(&file) = left.get(i) else {
        if promotions == 0 {
            let best = out
                .entry((state.straight, state.landed, state.promo))
                .or_insert(u8::MAX);
            *best = (*best).min(state.spent.min(255) as u8);
        }
        return;
    };
    let remaining = (left.len() - i) as u32;
    let need = promotions.saturating_sub(1);
    let f = file as usize;
    // Captured on its own file, never having left it.
    if remaining > promotions {
        state.straight[f] = Straight::Captured;
        fates(left, i + 1, promotions, captures, state, out);
    }
    // Promoted straight up its file.
    state.straight[f] = Straight::Promoted;
    fates(left, i + 1, need, captures, state, out);
    state.straight[f] = Straight::Free;
    // Captured or promoted after one capture onto a neighbouring file.
    if state.spent < captures {
        let saved = state.landed;
        state.spent += 1;
        for next in [file.checked_sub(1), (file < 7).then_some(file + 1)]
            .into_iter()
            .flatten()
        {
            state.landed = saved | 1 << next;
            if remaining > promotions {
                fates(left, i + 1, promotions, captures, state, out);
            }
            let promo = state.promo;
            state.promo |= 1 << next;
            fates(left, i + 1, need, captures, state, out);
            state.promo = promo;
        }
        state.landed = saved;
        state.spent -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(fen: &str) -> bool {
        bookkeeping_ok(&fen.parse().expect("a board"))
    }

    #[test]
    fn pawns_that_never_left_their_file_cannot_have_passed_each_other() {
        // White's d-pawn on d5 above Black's d-pawn on d3, every unit on the board: neither
        // can have captured, so they crossed on the d-file.
        assert!(!ok("rnbqkbnr/ppp1pppp/8/3P4/8/3p4/PPP1PPPP/RNBQKBNR"));
        // Black's d-pawn below White's on d4 ... d5: fine the other way round.
        assert!(ok("rnbqkbnr/ppp1pppp/8/3p4/3P4/8/PPP1PPPP/RNBQKBNR"));
        // With a white unit missing, Black's pawn may have come to d3 from e4 (exd3): fine.
        assert!(ok("rnbqkbnr/ppp2ppp/8/3P4/8/3p4/PPP1PPPP/RNBQKB1R"));
    }

    #[test]
    fn a_promotion_straight_down_a_file_held_by_an_unmoved_pawn_is_impossible() {
        // Black has a third rook, so one of its pawns promoted. White has lost nothing, so no
        // black pawn ever captured: the promoted pawn went straight down its file, past White's
        // pawn of that file, which never left it (they all stand at home).
        assert!(!ok("r3k2r/1ppppppp/8/8/3r4/8/PPPPPPPP/RNBQKBNR"));
        // If White's a-pawn has gone (captured), Black's a-pawn can have promoted on a1.
        assert!(ok("r3k2r/1ppppppp/8/8/3r4/8/1PPPPPPP/RNBQKBNR"));
    }

    #[test]
    fn a_pawn_that_died_on_its_file_needs_a_capture_there() {
        // White's h-pawn is the only white unit missing, and Black's only capture is its
        // c-pawn's onto b6: no black capture landed on the h-file and no black piece captured,
        // so White's h-pawn did not die on its file; it cannot have left it (Black lost
        // nothing) nor promoted past h7 (Black's h-pawn stood there all game).
        assert!(!ok("rnbqkbnr/pp1ppppp/1p6/8/8/8/PPPPPPP1/RNBQKBNR"));
        // Black's g-pawn took on h6 instead: there White's h-pawn died (h4, h5, h6, gxh6).
        assert!(ok("rnbqkbnr/pppppp1p/7p/8/8/8/PPPPPPP1/RNBQKBNR"));
    }

    #[test]
    fn a_pawn_that_can_neither_pass_nor_die_refutes_the_position() {
        // Black has four rooks and lost only Q, N, N: White's pawns have 3 captures, and they
        // need all of them (d5 must be the d-pawn, so c5 is bxc5 and b3 axb3; f5 is exf5).
        // Black's d3 pawn cannot be the d-pawn (it would have passed White's), so Black's 3
        // captures are exd3, gxf3 and dxc2 or bxc2, all landing off the h-file. White's h-pawn
        // is gone: it cannot have promoted past Black's h5 pawn, left its file (no capture
        // left) or died (no capture left to take it).
        assert!(!ok("r3k3/2p2p2/1bK5/BBPP1PPp/2PrbrN1/1Prp1p2/2p2P2/N2R4"));
        // After Black's hxg4 took a white unit there, White's h-pawn is free to promote.
        assert!(ok("r3k3/2p2p2/1bK5/BBPP1PP1/2Prbrp1/1Prp1p2/2p2P2/N2R4"));
    }

    #[test]
    fn a_unit_that_never_moved_and_is_gone_was_taken_at_home_by_a_piece() {
        // White's f1-bishop could never step off f1 (e2 and g2 never moved), and f1 is empty:
        // it was taken there, by a black piece (no black pawn promoted). Black's three
        // captures are all its pawns' (axb4, hxg6, gxf5), as many as White has lost: none is
        // left for a piece.
        assert!(!ok("nB3RbN/1kppppq1/1p4p1/1P3p2/Bp3P1n/5r1P/2PPPrPb/R3K3"));
        // With e2-e3 played the bishop may have left: the diagram itself passes.
        assert!(ok("nB3RbN/1kppppq1/1p4p1/1P3p2/Bp3P1n/4PrbP/2PP1rP1/R3K3"));
        assert_eq!(
            frozen_lost(
                &"nB3RbN/1kppppq1/1p4p1/1P3p2/Bp3P1n/5r1P/2PPPrPb/R3K3"
                    .parse()
                    .unwrap(),
                Color::White
            ),
            1 << 5
        );
    }

    #[test]
    fn the_initial_array_and_a_middlegame_pass() {
        assert!(ok("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR"));
        assert!(ok("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R"));
    }
}
