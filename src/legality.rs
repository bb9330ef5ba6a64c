//! Static necessary conditions of legality (placeholder until the full checks land).

use shakmaty::{Bitboard, Board, Color, Square};

/// A failed necessary condition.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Illegality(pub String);

/// Every failed static check of a position (empty = passes).
pub fn static_reasons(
    board: &Board,
    turn: Color,
    _castling: Bitboard,
    _ep_square: Option<Square>,
) -> Vec<Illegality> {
    let mut out = Vec::new();
    for c in Color::ALL {
        if (board.kings() & board.by_color(c)).count() != 1 {
            out.push(Illegality(format!("{c:?} must have exactly one king")));
        }
    }
    if (board.pawns() & Bitboard::BACKRANKS).any() {
        out.push(Illegality("pawn on rank 1 or 8".into()));
    }
    if let Some(k) = (board.kings() & board.by_color(!turn)).first()
        && board.attacks_to(k, turn, board.occupied()).any()
    {
        out.push(Illegality("the side not to move is in check".into()));
    }
    out
}

impl std::fmt::Display for Illegality {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The material conditions only (placeholder: none beyond the engine's own).
pub fn material_reasons(_board: &Board) -> Vec<Illegality> {
    Vec::new()
}
