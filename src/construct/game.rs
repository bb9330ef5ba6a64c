//! The game being built: a shakmaty position, the moves played so far, and which original unit
//! stands on every square (units keep their identity through moves, promotions and castling).

use std::{cell::Cell, time::Instant};

use shakmaty::{Board, Chess, Color, File, Move, Position as _, Role, Square};

/// One of the 32 original units, numbered by its square in the initial array: White's a1..h2 are
/// 0..16, Black's a7..h8 are 16..32.
pub(super) type Unit = u8;

/// No unit (in [`Game`]'s square table).
const NONE: u8 = u8::MAX;

/// Whether to print the construction's steps (development aid; TEMPORARY).
pub(super) static TRACE: std::sync::LazyLock<bool> =
    std::sync::LazyLock::new(|| std::env::var_os("RETROCLOCK_TRACE_CONSTRUCT").is_some());

/// The number of original units.
pub(super) const UNITS: usize = 32;

/// The square on which `unit` stands in the initial array.
pub(super) fn origin(unit: Unit) -> Square {
    if unit < 16 {
        Square::new(u32::from(unit))
    } else {
        Square::new(u32::from(unit) + 32)
    }
}

/// The unit that starts on `sq`, if any.
pub(super) fn unit_from_origin(sq: Square) -> Option<Unit> {
    match sq.to_u32() {
        i @ 0..16 => Some(i as Unit),
        i @ 48..64 => Some((i - 32) as Unit),
        _ => None,
    }
}

/// The colour of `unit`.
pub(super) fn color_of(unit: Unit) -> Color {
    Color::from_white(unit < 16)
}

/// The role `unit` has in the initial array.
pub(super) fn original_role(unit: Unit) -> Role {
    Board::new()
        .role_at(origin(unit))
        .expect("every original square holds a unit")
}

/// The units of `color`.
pub(super) fn units_of(color: Color) -> std::ops::Range<Unit> {
    if color.is_white() { 0..16 } else { 16..32 }
}

/// The budget of one construction, shared by all its searches: a deadline and a number of
/// search nodes.
pub(super) struct Limits {
    deadline: Option<Instant>,
    max_nodes: u64,
    nodes: Cell<u64>,
    out: Cell<bool>,
}

impl Limits {
    /// Limits with the given deadline and node budget.
    pub(super) fn new(deadline: Option<Instant>, max_nodes: u64) -> Limits {
        Limits {
            deadline,
            max_nodes,
            nodes: Cell::new(0),
            out: Cell::new(false),
        }
    }

    /// Counts `n` search nodes; false once the budget or the deadline is spent (the deadline is
    /// read every 64 nodes and at every call that crosses such a boundary).
    pub(super) fn tick(&self, n: u64) -> bool {
        if self.out.get() {
            return false;
        }
        let before = self.nodes.get();
        let after = before + n;
        self.nodes.set(after);
        if after > self.max_nodes || (before >> 6 != after >> 6 && self.deadline_passed()) {
            self.out.set(true);
        }
        !self.out.get()
    }

    /// Whether the budget is spent (reads the clock).
    pub(super) fn exhausted(&self) -> bool {
        if !self.out.get() && (self.nodes.get() > self.max_nodes || self.deadline_passed()) {
            self.out.set(true);
        }
        self.out.get()
    }

    fn deadline_passed(&self) -> bool {
        self.deadline.is_some_and(|d| Instant::now() >= d)
    }
}

/// A game from the initial array, with the identity of every unit on the board.
#[derive(Clone)]
pub(super) struct Game {
    /// The position reached.
    pub(super) pos: Chess,
    /// The moves played from the initial array.
    pub(super) moves: Vec<Move>,
    /// The unit on each square ([`NONE`] for an empty square).
    at: [Unit; 64],
    /// The square of each unit (64 once captured).
    square: [u8; UNITS],
}

impl Game {
    /// The initial array, no move played.
    pub(super) fn new() -> Game {
        let mut at = [NONE; 64];
        let mut square = [64; UNITS];
        for u in 0..UNITS as Unit {
            at[origin(u).to_usize()] = u;
            square[usize::from(u)] = origin(u).to_u32() as u8;
        }
        Game {
            pos: Chess::default(),
            moves: Vec::new(),
            at,
            square,
        }
    }

    /// The unit on `sq`.
    pub(super) fn unit_at(&self, sq: Square) -> Option<Unit> {
        let u = self.at[sq.to_usize()];
        (u != NONE).then_some(u)
    }

    /// The square of `unit`, or None once it has been captured.
    pub(super) fn square_of(&self, unit: Unit) -> Option<Square> {
        let s = self.square[usize::from(unit)];
        (s < 64).then(|| Square::new(u32::from(s)))
    }

    /// Whether `unit` is still on the board.
    pub(super) fn alive(&self, unit: Unit) -> bool {
        self.square[usize::from(unit)] < 64
    }

    /// The role `unit` has now (promoted pawns have their new role).
    pub(super) fn role_of(&self, unit: Unit) -> Option<Role> {
        self.square_of(unit)
            .and_then(|sq| self.pos.board().role_at(sq))
    }

    /// Plays a legal move, following the units it moves and removing the one it captures.
    pub(super) fn play(&mut self, m: Move) {
        debug_assert!(self.pos.is_legal(m), "{m:?} in {:?}", self.pos);
        match m {
            Move::Normal { from, to, .. } => {
                self.remove(to);
                self.shift(from, to);
            }
            Move::EnPassant { from, to } => {
                self.remove(Square::from_coords(to.file(), from.rank()));
                self.shift(from, to);
            }
            Move::Castle { king, rook } => {
                let (king_file, rook_file) = if rook.file() > king.file() {
                    (File::G, File::F)
                } else {
                    (File::C, File::D)
                };
                let (k, r) = (self.at[king.to_usize()], self.at[rook.to_usize()]);
                self.at[king.to_usize()] = NONE;
                self.at[rook.to_usize()] = NONE;
                let king_to = Square::from_coords(king_file, king.rank());
                let rook_to = Square::from_coords(rook_file, rook.rank());
                self.place(k, king_to);
                self.place(r, rook_to);
            }
            Move::Put { .. } => unreachable!("no drops in standard chess"),
        }
        self.pos.play_unchecked(m);
        self.moves.push(m);
    }

    fn remove(&mut self, sq: Square) {
        let u = self.at[sq.to_usize()];
        if u != NONE {
            self.square[usize::from(u)] = 64;
            self.at[sq.to_usize()] = NONE;
        }
    }

    fn shift(&mut self, from: Square, to: Square) {
        let u = self.at[from.to_usize()];
        self.at[from.to_usize()] = NONE;
        self.place(u, to);
    }

    fn place(&mut self, u: Unit, sq: Square) {
        if u != NONE {
            self.at[sq.to_usize()] = u;
            self.square[usize::from(u)] = sq.to_u32() as u8;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_are_numbered_by_their_original_squares() {
        for u in 0..UNITS as Unit {
            assert_eq!(unit_from_origin(origin(u)), Some(u));
        }
        assert_eq!(unit_from_origin(Square::E4), None);
        assert_eq!(original_role(4), Role::King);
        assert_eq!(color_of(4), Color::White);
        assert_eq!(unit_from_origin(Square::E8), Some(28));
        assert_eq!(color_of(28), Color::Black);
        assert_eq!(original_role(28), Role::King);
    }

    #[test]
    fn units_follow_moves_captures_and_castling() {
        let mut game = Game::new();
        let uci = [
            "e2e4", "d7d5", "e4d5", "d8d5", "g1f3", "d5e4", "f1e2", "e4e2", "e1e2",
        ];
        for u in uci {
            let m = u
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&game.pos)
                .unwrap();
            game.play(m);
        }
        // The e2-pawn took on d5 and was taken there by the queen, which died on e2.
        assert!(!game.alive(12));
        assert!(!game.alive(16 + 11));
        assert_eq!(game.square_of(4), Some(Square::E2));
        assert_eq!(game.unit_at(Square::F3), Some(6));
        assert_eq!(game.role_of(4), Some(Role::King));
        let mut castle = Game::new();
        for u in ["g1f3", "g8f6", "g2g3", "g7g6", "f1g2", "f8g7", "e1h1"] {
            let m = u
                .parse::<shakmaty::uci::UciMove>()
                .unwrap()
                .to_move(&castle.pos)
                .unwrap();
            castle.play(m);
        }
        assert_eq!(castle.square_of(4), Some(Square::G1));
        assert_eq!(castle.square_of(7), Some(Square::F1));
    }
}
