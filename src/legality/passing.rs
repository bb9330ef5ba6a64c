//! Pawn passing: a pawn that is gone must have been captured or have promoted, and on a file
//! that an opponent's pawn never left, it cannot have promoted.
//!
//! The check applies when one side (the opponent, O) has all 16 units on the board, its 8 pawns
//! among them, so the other side (C) never captured: every pawn of C stayed on its starting
//! file. When O's pawn structure needs exactly as many captures as C has units missing, every
//! capture O made was one of those pawn captures, each pawn taking the shortest way from its
//! starting file to its file now. If on every such assignment of O's pawns to starting files
//!
//! - O's pawn that started on file f is still on file f (so it stood there all game, ahead of
//!   C's f-pawn, which could never pass it and promote), and
//! - no pawn of O lands on file f by a capture (so C's f-pawn was not taken there),
//!
//! then C's f-pawn can neither have been captured nor have promoted: if it is gone, the position
//! is illegal. Every assignment of O's pawns whose captures add up to the minimum is considered,
//! whether or not the ranks allow it; that can only let more positions pass.

use shakmaty::{Board, Color, File};

use super::{Illegality, material::files_of};

/// The pawns' files of one side, for the assignment search: 8 current files (0–7).
type Files = [u8; 8];

/// What some assignment of the opponent's pawns at the minimum number of captures allows, per
/// file (bit `f`).
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
struct Allowed {
    /// The pawn that started on file `f` may stand elsewhere now.
    left: u8,
    /// Some pawn may have landed on file `f` by a capture.
    landed: u8,
}

/// Adds a reason for every pawn of either side that is gone and can neither have been captured
/// nor have promoted (see the module's documentation).
pub(super) fn passing_reasons(board: &Board, out: &mut Vec<Illegality>) {
    for color in [Color::White, Color::Black] {
        let missing = 16u32.saturating_sub(board.by_color(color).count() as u32);
        for file in stuck_files(board, color) {
            out.push(Illegality::PawnNeitherTakenNorPromoted {
                color,
                file,
                missing,
            });
        }
    }
}

/// Whether no pawn is gone that can neither have been captured nor have promoted.
pub fn passing_ok(board: &Board) -> bool {
    // Without pawns, no pawn is stuck (pawnless endgames ask at every position).
    board.pawns().is_empty()
        || (stuck_files(board, Color::White).is_empty()
            && stuck_files(board, Color::Black).is_empty())
}

/// The files whose pawn of `color` is gone although it can neither have been captured nor have
/// promoted.
fn stuck_files(board: &Board, color: Color) -> Vec<File> {
    let opponent = board.by_color(!color);
    let their_pawns = board.by_piece((!color).pawn());
    // The common case leaves at once: the opponent has lost a unit, or promoted a pawn.
    if opponent.count() != 16 || their_pawns.count() != 8 {
        return Vec::new();
    }
    let our_pawns = board.by_piece(color.pawn());
    let our_pawn_files = files_of(our_pawns);
    // Two pawns on one file need a capture: the material check reports that.
    if our_pawn_files.count_ones() as usize != our_pawns.count() {
        return Vec::new();
    }
    let gone = !our_pawn_files & files_of(their_pawns);
    if gone == 0 {
        return Vec::new();
    }
    let missing = 16u32.saturating_sub(board.by_color(color).count() as u32);
    let mut files: Files = [0; 8];
    for (k, sq) in their_pawns.into_iter().enumerate() {
        files[k] = sq.file().to_u32() as u8;
    }
    let Some(allowed) = allowed_at_minimum(&files, missing, gone) else {
        return Vec::new();
    };
    (0..8u8)
        .filter(|&f| gone & (1 << f) != 0 && (allowed.left | allowed.landed) & (1 << f) == 0)
        .map(|f| File::new(u32::from(f)))
        .collect()
}

/// When the fewest captures that assign the 8 pawns on `files` to the 8 starting files equal
/// `captures`: what the assignments at that minimum allow, on the files of `wanted` at least
/// (the search stops once each of them is allowed something). None when the minimum differs
/// (fewer: pieces may have captured too, so nothing follows; more: the material check reports
/// it).
fn allowed_at_minimum(files: &Files, captures: u32, wanted: u8) -> Option<Allowed> {
    let mut sorted = *files;
    sorted.sort_unstable();
    if completion(&sorted, 0, 0) != captures {
        return None;
    }
    // A search meets the same pawns again and again: the last answers are kept per thread.
    type Memo = Vec<(Files, u32, u8, Allowed)>;
    thread_local! {
        static MEMO: std::cell::RefCell<Memo> = const { std::cell::RefCell::new(Vec::new()) };
    }
    const KEPT: usize = 16;
    let key = (sorted, captures, wanted);
    let kept = MEMO.with_borrow(|memo| {
        memo.iter()
            .find(|&&(f, c, w, _)| (f, c, w) == key)
            .map(|&(.., a)| a)
    });
    if kept.is_some() {
        return kept;
    }
    let mut allowed = Allowed::default();
    let mut path = Allowed::default();
    walk(&sorted, 0, 0, captures, wanted, &mut path, &mut allowed);
    MEMO.with_borrow_mut(|memo| {
        if memo.len() == KEPT {
            memo.remove(0);
        }
        memo.push((sorted, captures, wanted, allowed));
    });
    Some(allowed)
}

/// The fewest captures that assign the starting files `origin..8` to the pawns of `sorted` (in
/// increasing order) not in `used` (a bit per pawn): on a line, pairing both in order is best.
fn completion(sorted: &Files, origin: usize, used: usize) -> u32 {
    let mut next = origin;
    let mut total = 0;
    for (k, &file) in sorted.iter().enumerate() {
        if used & (1 << k) == 0 {
            total += u32::from(file.abs_diff(next as u8));
            next += 1;
        }
    }
    total
}

/// Visits every assignment at the minimum, from `origin` on (`used` pawns taken, `left`
/// captures still to spend, `path` what it allows so far), and adds what each allows to `all`.
fn walk(
    sorted: &Files,
    origin: usize,
    used: usize,
    left: u32,
    wanted: u8,
    path: &mut Allowed,
    all: &mut Allowed,
) {
    if (all.left | all.landed) & wanted == wanted {
        return;
    }
    if origin == 8 {
        all.left |= path.left;
        all.landed |= path.landed;
        return;
    }
    for (k, &file) in sorted.iter().enumerate() {
        // Pawns on one file are alike: try the first free one of each file only.
        if used & (1 << k) != 0 || (k > 0 && sorted[k - 1] == file && used & (1 << (k - 1)) == 0) {
            continue;
        }
        let step = u32::from(file.abs_diff(origin as u8));
        let used = used | (1 << k);
        if step > left || completion(sorted, origin + 1, used) != left - step {
            continue;
        }
        let saved = *path;
        if file as usize != origin {
            path.left |= 1 << origin;
            // The files it lands on: from the one after its starting file to its file now.
            let (lo, hi) = if (file as usize) > origin {
                (origin + 1, file as usize)
            } else {
                (file as usize, origin - 1)
            };
            for f in lo..=hi {
                path.landed |= 1 << f;
            }
        }
        walk(sorted, origin + 1, used, left - step, wanted, path, all);
        *path = saved;
    }
}

#[cfg(test)]
mod tests {
    use shakmaty::{Board, Color, File, fen::Fen};

    use super::*;

    fn board(fen: &str) -> Board {
        let fen: Fen = fen.parse().expect("valid FEN");
        fen.as_setup().board.clone()
    }

    #[test]
    fn a_pawn_that_cannot_pass_the_opponents_pawn_on_its_file() {
        // Black has all 16 units, so White never captured. Black's pawns need 2 captures
        // (h→g, g→f), as many as White has units missing (queen and a-pawn), and none lands
        // on the a-file, where Black's a-pawn has stood all game: White's a-pawn cannot have
        // been captured, nor have promoted past it.
        let b = board("nB3RbN/1kppppq1/1p4p1/pP3p2/BN3P1n/4PrbP/2PP1rP1/R3K3 b Q - 0 1");
        assert_eq!(stuck_files(&b, Color::White), vec![File::A]);
        assert!(!passing_ok(&b));
        let mut out = Vec::new();
        passing_reasons(&b, &mut out);
        assert_eq!(
            out,
            vec![Illegality::PawnNeitherTakenNorPromoted {
                color: Color::White,
                file: File::A,
                missing: 2,
            }]
        );
        // One move later (1...axb4), Black's a-pawn has left the a-file: White's a-pawn may
        // have passed before, and promoted.
        let b = board("nB3RbN/1kppppq1/1p4p1/1P3p2/Bp3P1n/4PrbP/2PP1rP1/R3K3 w Q - 0 2");
        assert!(passing_ok(&b));
    }

    #[test]
    fn a_pawn_taken_on_its_file_or_passed_by_a_capture() {
        // 1.e4 d5 2.Nc3 dxe4: Black's d-pawn landed on the e-file and took White's e-pawn.
        let b = board("rnbqkbnr/ppp1pppp/8/8/4p3/2N5/PPPP1PPP/R1BQKBNR w KQkq - 0 3");
        assert!(passing_ok(&b));
        // Black's e-pawn may stand anywhere: with fewer captures than White's missing units,
        // a black piece may have taken White's pawn, and nothing follows.
        let b = board("rnbqkbnr/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w KQkq - 0 1");
        assert!(passing_ok(&b));
        // Black has lost a unit: White may have captured, so its pawns may have changed files.
        let b = board("rnbqkbn1/pppppppp/8/8/8/8/1PPPPPPP/RNBQKBNR w Qq - 0 1");
        assert!(passing_ok(&b));
    }

    #[test]
    fn both_colours_are_checked() {
        // Colours reversed: White has all 16 units, White's pawns need 2 captures, as many as
        // Black is missing, and none lands on the a-file, where White's a-pawn has stood all
        // game: Black's a-pawn is stuck.
        let b = board("r3k3/2pp1Rp1/4pRBp/bn3p1N/Pp3P2/1P4P1/1KPPPPQ1/Nb3rBn w q - 0 1");
        assert_eq!(stuck_files(&b, Color::Black), vec![File::A]);
        assert!(stuck_files(&b, Color::White).is_empty());
    }

    /// Random games in which `careful` never captures (its opponent captures freely, pawns
    /// first half of the time): the check never fires on a position they reach. Returns how
    /// many positions had the check's premise (the other side with all 16 units and 8 pawns,
    /// `careful` with a pawn gone from a file that holds one of the other side's pawns, and
    /// the other side's minimum of captures equal to `careful`'s missing units), so that the
    /// whole check ran.
    fn games_where_one_side_never_captures(careful: Color, seed: u64) -> usize {
        use shakmaty::{Chess, EnPassantMode, Position as _, Role};
        let mut next = crate::legality::tests::seeded(seed);
        let mut exercised = 0;
        for _ in 0..300 {
            let mut pos = Chess::default();
            for _ in 0..160 {
                let all = pos.legal_moves();
                let mut moves: Vec<_> = if pos.turn() == careful {
                    all.iter().copied().filter(|m| !m.is_capture()).collect()
                } else {
                    all.iter().copied().collect()
                };
                if pos.turn() != careful && next().is_multiple_of(2) {
                    let pawn_takes: Vec<_> = moves
                        .iter()
                        .copied()
                        .filter(|m| m.is_capture() && m.role() == Role::Pawn)
                        .collect();
                    if !pawn_takes.is_empty() {
                        moves = pawn_takes;
                    }
                }
                if moves.is_empty() {
                    break;
                }
                pos.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
                let board = pos.board();
                let mut out = Vec::new();
                passing_reasons(board, &mut out);
                assert!(
                    out.is_empty(),
                    "{}: {:?}",
                    Fen::from_position(&pos, EnPassantMode::Always),
                    out.iter().map(ToString::to_string).collect::<Vec<_>>()
                );
                // The other side is the opponent of the check: it keeps all its units.
                let theirs = board.by_piece((!careful).pawn());
                if board.by_color(!careful).count() == 16 && theirs.count() == 8 {
                    let gone = !files_of(board.by_piece(careful.pawn())) & files_of(theirs);
                    let mut files: Files = [0; 8];
                    for (k, sq) in theirs.into_iter().enumerate() {
                        files[k] = sq.file().to_u32() as u8;
                    }
                    let missing = 16 - board.by_color(careful).count() as u32;
                    if gone != 0 && allowed_at_minimum(&files, missing, gone).is_some() {
                        exercised += 1;
                    }
                }
            }
        }
        exercised
    }

    #[test]
    fn the_check_holds_along_games_where_one_side_never_captures() {
        let white = games_where_one_side_never_captures(Color::White, 0x9A55_1A6E_0000_0001);
        let black = games_where_one_side_never_captures(Color::Black, 0x9A55_1A6E_0000_0002);
        assert!(white > 500 && black > 500, "{white} {black}");
    }

    /// What every assignment at the minimum allows, found by trying all 8! assignments.
    fn brute_force(files: &Files) -> (u32, Allowed) {
        fn permutations(k: usize, order: &mut [usize; 8], visit: &mut impl FnMut(&[usize; 8])) {
            if k == 8 {
                visit(order);
                return;
            }
            for i in k..8 {
                order.swap(k, i);
                permutations(k + 1, order, visit);
                order.swap(k, i);
            }
        }
        let mut found: Vec<(u32, Allowed)> = Vec::new();
        permutations(0, &mut [0, 1, 2, 3, 4, 5, 6, 7], &mut |order| {
            // Origin `o` goes to the pawn `order[o]`.
            let mut a = Allowed::default();
            let mut cost = 0;
            for (o, &k) in order.iter().enumerate() {
                let e = files[k] as usize;
                cost += e.abs_diff(o) as u32;
                if e != o {
                    a.left |= 1 << o;
                    let (lo, hi) = if e > o { (o + 1, e) } else { (e, o - 1) };
                    for f in lo..=hi {
                        a.landed |= 1 << f;
                    }
                }
            }
            found.push((cost, a));
        });
        let min = found.iter().map(|&(c, _)| c).min().expect("assignments");
        let mut all = Allowed::default();
        for (c, a) in found {
            if c == min {
                all.left |= a.left;
                all.landed |= a.landed;
            }
        }
        (min, all)
    }

    #[test]
    fn the_assignments_at_the_minimum_agree_with_trying_them_all() {
        let mut state = 0x05EE_D0FF_11E5_u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let rounds = if cfg!(debug_assertions) { 3 } else { 60 };
        for _ in 0..rounds {
            let mut files: Files = [0; 8];
            for f in files.iter_mut() {
                *f = (next() % 8) as u8;
            }
            let (min, all) = brute_force(&files);
            assert_eq!(
                allowed_at_minimum(&files, min, 0xff),
                Some(all),
                "{files:?}"
            );
            assert_eq!(allowed_at_minimum(&files, min + 1, 0xff), None, "{files:?}");
            // Asked about some files only, it may stop early, but says the same of those.
            let wanted = (next() % 256) as u8;
            let some = allowed_at_minimum(&files, min, wanted).expect("the same minimum");
            let said = |a: Allowed| (a.left | a.landed) & wanted;
            assert_eq!(said(some), said(all), "{files:?} {wanted:08b}");
        }
    }

    #[test]
    fn every_assignment_at_the_minimum_is_seen() {
        // Pawns on a, b, b, c, d, e, f, g: at the minimum (6 captures) the pawns from c to h
        // each moved one file to the left, landing on b to g; the a- and b-pawns stayed.
        let files: Files = [0, 1, 1, 2, 3, 4, 5, 6];
        let allowed = allowed_at_minimum(&files, 6, 0xff).expect("the minimum is 6");
        assert_eq!(allowed.left, 0b1111_1100);
        assert_eq!(allowed.landed, 0b0111_1110);
        // Pawns on b, c, c, d, e, f, g, h: 2 captures, either a→b and b→c, or a→b→c with the
        // b-pawn staying; both are seen.
        let two: Files = [1, 2, 2, 3, 4, 5, 6, 7];
        let allowed = allowed_at_minimum(&two, 2, 0xff).expect("the minimum is 2");
        assert_eq!(allowed.left, 0b0000_0011);
        assert_eq!(allowed.landed, 0b0000_0110);
        assert_eq!(allowed_at_minimum(&files, 5, 0xff), None);
        assert_eq!(allowed_at_minimum(&files, 7, 0xff), None);
    }
}
