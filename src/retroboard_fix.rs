//! The one module that touches retroboard (0.2.11): the baseline the engine is measured
//! against (`benches/retract.rs` times retroboard's raw `legal_unmoves` on the same positions),
//! kept clear of retroboard's known faults (SPEC §6).
//!
//! The engine does not take retractions from retroboard. It once took the quiet piece
//! retractions from it on the clock search's hot path, but every one of them had to be checked
//! again (retroboard's "legal" allows impossible checks), and the engine's own generator proved
//! cheaper than retroboard plus the re-check. What this module does about the faults, for the
//! positions it hands to retroboard:
//! * no castling and the FEN's rights dropped: rights are not passed; un-castling is not asked;
//! * its private halfmove counter (overflows in debug builds after 256 pushes): never pushed
//!   here; `[profile.dev.package.retroboard] overflow-checks = false` in Cargo.toml as well;
//! * an invalid e.p. square panics inside `legal_unmoves`: positions with an e.p. square are
//!   refused;
//! * the 512-entry move list (panics with many queens and full pockets): positions with more
//!   than 18 units of a side are refused;
//! * pockets are derived from the material (missing units, promoted extras), as retroboard is
//!   meant to be used; its answers are only counted, never trusted as retractions.

use retroboard::{RetroBoard, RetroPockets};
use shakmaty::{Bitboard, Color, Role};

use crate::position::Position;

/// A side's unit count above which retroboard is not used (its move list is capped at 512).
const MAX_UNITS: usize = 18;

/// The pockets retroboard would need to generate every un-capture and un-promotion that the
/// material allows: for each colour, the units missing from the initial array, and as many
/// un-promotions as there are promoted extras. Used to measure retroboard as it is meant to be
/// used.
fn material_pockets(pos: &Position) -> RetroPockets {
    let mut pockets = RetroPockets::default();
    for color in Color::ALL {
        let our = pos.board.by_color(color);
        let count = |role: Role| (pos.board.by_role(role) & our).count() as u8;
        let pocket = pockets.color_mut(color);
        pocket.pawn = 8u8.saturating_sub(count(Role::Pawn));
        pocket.knight = 2u8.saturating_sub(count(Role::Knight));
        pocket.bishop = 2u8.saturating_sub(count(Role::Bishop));
        pocket.rook = 2u8.saturating_sub(count(Role::Rook));
        pocket.queen = 1u8.saturating_sub(count(Role::Queen));
        let extras = count(Role::Queen).saturating_sub(1)
            + count(Role::Rook).saturating_sub(2)
            + count(Role::Knight).saturating_sub(2)
            + count(Role::Bishop).saturating_sub(2);
        pocket.unpromotion = extras;
    }
    pockets
}

/// Retroboard's pocket notation ("PPNB2": units, then the un-promotion count).
fn pocket_text(pockets: &RetroPockets, c: Color) -> String {
    let p = pockets.color(c);
    let mut s = String::new();
    for (n, ch) in [
        (p.pawn, 'P'),
        (p.knight, 'N'),
        (p.bishop, 'B'),
        (p.rook, 'R'),
        (p.queen, 'Q'),
    ] {
        for _ in 0..n {
            s.push(ch);
        }
    }
    if p.unpromotion > 0 {
        s.push_str(&p.unpromotion.to_string());
    }
    s
}

/// Raw retroboard: the number of `legal_unmoves` of `pos` with pockets from the material, as
/// retroboard reports them (with its known faults), for benchmarks. None when retroboard would
/// panic or cannot take the position (see [`prepared`]).
pub fn raw_unmove_count(pos: &Position) -> Option<usize> {
    prepared(pos).map(|p| p.unmove_count())
}

/// A retroboard for `pos` with material pockets, built once, so that a benchmark can time
/// `legal_unmoves` alone. None when a king is missing or doubled, a side has more than 18
/// units, an e.p. square is set, or a pawn stands on a back rank.
pub fn prepared(pos: &Position) -> Option<PreparedRetroBoard> {
    let board = &pos.board;
    for color in Color::ALL {
        (board.kings() & board.by_color(color)).single_square()?;
        if board.by_color(color).count() > MAX_UNITS {
            return None;
        }
    }
    if pos.ep_square.is_some() || (board.pawns() & Bitboard::BACKRANKS).any() {
        return None;
    }
    let fen = format!("{} {}", board.board_fen(), pos.turn.fold_wb('w', 'b'));
    let pockets = material_pockets(pos);
    RetroBoard::new(
        &fen,
        &pocket_text(&pockets, Color::White),
        &pocket_text(&pockets, Color::Black),
    )
    .ok()
    .map(PreparedRetroBoard)
}

/// A retroboard ready for timing (see [`prepared`]).
pub struct PreparedRetroBoard(RetroBoard);

impl PreparedRetroBoard {
    /// The number of `legal_unmoves`, as retroboard reports them.
    pub fn unmove_count(&self) -> usize {
        self.0.legal_unmoves().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::PositionInput;

    #[test]
    fn prepared_refuses_what_retroboard_cannot_take() {
        let pos = PositionInput::parse("4k3/8/8/8/8/8/4P3/R3K3 b - -")
            .unwrap()
            .candidates()
            .remove(0);
        assert!(raw_unmove_count(&pos).is_some_and(|n| n > 0));
        let ep = PositionInput::parse("4k3/8/8/8/3pP3/8/8/4K3 b - e3")
            .unwrap()
            .candidates()
            .remove(0);
        assert!(
            prepared(&ep).is_none(),
            "an e.p. square would panic inside retroboard"
        );
        let two_kings = PositionInput::parse("4k3/8/8/8/8/8/8/3KK3 b - -")
            .unwrap()
            .candidates()
            .remove(0);
        assert!(prepared(&two_kings).is_none());
    }
}
