//! The one module that touches retroboard (0.2.11), and what it does about retroboard's known
//! faults (SPEC §6).
//!
//! retroboard is used for what it does well: the quiet piece retractions of a position whose
//! side to move is not in check — the hot path of the clock search. Everything else is left to
//! [`crate::retract`]'s own generator, which the oracle tests check. What this module fixes or
//! avoids:
//! * no un-castling, and the FEN's castling rights dropped: rights are handled by the caller,
//!   which skips the king and rooks they freeze and adds un-castling itself;
//! * its private halfmove counter (overflows in debug builds after 256 pushes): never pushed
//!   here; `[profile.dev.package.retroboard] overflow-checks = false` in Cargo.toml as well;
//! * the king "un-promoted" on its last rank when the un-promotion counter is > 0, and the other
//!   un-promotion and double-check faults: pockets are always empty here (no un-captures, no
//!   un-promotions are asked of it), and positions in check are not given to it at all;
//! * e.p. retractions that block a check are missed: e.p. is never asked of it;
//! * the 512-entry move list: quiet moves only, with empty pockets, stay far below it (at most
//!   18 pieces × 27 squares); positions with more than 18 units of the retracting side are not
//!   given to it;
//! * an invalid e.p. square panics inside `legal_unmoves`: the e.p. square is never passed;
//! * "legal" there means only that the other king is not left in check: the caller re-checks
//!   every predecessor (impossible checks, material) as for its own candidates;
//! * `UnMove::uncapture()` returns Some for e.p. and capture-un-promotions: only plain
//!   `is_uncapture() == false`, `is_unpromotion() == false`, `is_en_passant() == false`
//!   unmoves of non-pawn units are used.

use retroboard::{RetroBoard, RetroPockets};
use shakmaty::{Bitboard, CastlingMode, Color, FromSetup, Role, Setup, Square};

use crate::position::Position;

/// The retracting side's unit count above which retroboard is not used (its move list is
/// capped at 512).
const MAX_UNITS: usize = 18;

fn retroboard_of(pos: &Position) -> Option<RetroBoard> {
    let mut setup = Setup::empty();
    setup.board = pos.board.clone();
    setup.turn = pos.turn;
    // Never pass an e.p. square (an invalid one panics inside legal_unmoves) nor rights.
    RetroBoard::from_setup(setup, CastlingMode::Standard).ok()
}

/// The quiet piece retractions of `pos` as (square now, square before) pairs, or None when
/// retroboard must not be used for this position (the side to move is in check, or too many
/// units). Pawns are left out; so are retractions that leave the side to move in check.
pub(crate) fn quiet_piece_retractions(pos: &Position) -> Option<Vec<(Square, Square)>> {
    let us = !pos.turn;
    let board = &pos.board;
    if board.by_color(us).count() > MAX_UNITS {
        return None;
    }
    let their_king = (board.kings() & board.by_color(pos.turn)).single_square()?;
    (board.kings() & board.by_color(us)).single_square()?;
    if board.attacks_to(their_king, us, board.occupied()).any() {
        return None;
    }
    let rb = retroboard_of(pos)?;
    let mut out = Vec::new();
    for m in rb.legal_unmoves() {
        if m.is_uncapture() || m.is_unpromotion() || m.is_en_passant() || m.uncapture().is_some() {
            continue;
        }
        if board.role_at(m.from) == Some(Role::Pawn) || board.color_at(m.from) != Some(us) {
            continue;
        }
        out.push((m.from, m.to));
    }
    Some(out)
}

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
    fn quiet_retractions_refuse_checks_and_keep_pieces_only() {
        let pos = PositionInput::parse("4k3/8/8/8/8/8/4P3/R3K3 b - -")
            .unwrap()
            .candidates()
            .remove(0);
        let quiet = quiet_piece_retractions(&pos).unwrap();
        assert!(!quiet.is_empty());
        assert!(
            quiet
                .iter()
                .all(|(now, _)| pos.board.role_at(*now) != Some(Role::Pawn))
        );
        let checked = PositionInput::parse("4k3/8/8/8/8/8/8/R3K2r w - -")
            .unwrap()
            .candidates()
            .remove(0);
        assert!(quiet_piece_retractions(&checked).is_none());
        assert!(raw_unmove_count(&pos).is_some());
    }
}
