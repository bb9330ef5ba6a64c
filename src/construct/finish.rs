//! The last moves: an exact search from a position that has the target's material and pawns
//! to the target itself (placement, side to move, castling rights), both sides cooperating.
//!
//! It is an iterative-deepening search on the number of plies. Only piece moves that capture
//! nothing are tried (the pawns and the material are already the target's), never a move that
//! loses a castling right the target keeps. Its bound is admissible per side: every target
//! square without its piece needs at least the fewest moves any piece of that kind needs to get
//! there around the pawns, and the side to move makes at most one move more than the other.
//! It is how the side to move is put right (a king, queen, rook or bishop losing a tempo) and
//! how a few units that the macro-steps left off their squares are put back.

use std::collections::HashMap;

use shakmaty::{
    Bitboard, Chess, Color, EnPassantMode, Move, Piece, Position as _, Role, Square,
    zobrist::Zobrist64,
};

use super::{
    game::{Limits, UNITS, Unit, origin},
    plan::{Plan, steps},
};
use crate::position::Position;

/// The most plies the finishing search tries.
const MAX_PLIES: u32 = 20;
/// The most nodes one finishing search visits.
const MAX_NODES: u64 = 60_000;

/// Distances to one target square for one piece kind, from every square.
struct Table {
    square: Square,
    piece: Piece,
    dist: [u8; 64],
}

struct Search<'a> {
    target: &'a Position,
    tables: Vec<Table>,
    frozen: Bitboard,
    limits: &'a Limits,
    nodes: u64,
    /// Positions known to need more than the plies stored.
    failed: HashMap<u64, u32>,
    line: Vec<Move>,
}

/// Moves that take `pos` to `target` (see the module doc), or None within the limits.
pub(super) fn finish(
    pos: &Chess,
    target: &Position,
    plan: &Plan,
    limits: &Limits,
) -> Option<Vec<Move>> {
    let board = pos.board();
    if board.pawns() != target.board.pawns()
        || board.white() & board.pawns() != target.board.white() & target.board.pawns()
        || board.material() != target.board.material()
    {
        return None;
    }
    let rights = pos.castles().castling_rights();
    if !target.castling.is_subset(rights) {
        return None;
    }
    let obstacles = board.pawns();
    let tables = target
        .board
        .iter()
        .filter(|(_, p)| p.role != Role::Pawn)
        .map(|(square, piece)| Table {
            square,
            piece,
            dist: distances(piece.role, square, obstacles),
        })
        .collect();
    let frozen: Bitboard = (0..UNITS as Unit)
        .filter(|&u| plan.is_frozen(u))
        .map(origin)
        .collect();
    // Only the placement differs in parity: a side must lose a tempo, which knights cannot.
    let misplaced = (board.occupied() ^ target.board.occupied()).any()
        || board
            .iter()
            .any(|(sq, p)| target.board.piece_at(sq) != Some(p));
    if !misplaced && pos.turn() != target.turn {
        let occupied = board.occupied();
        let can_lose_tempo = board.iter().any(|(sq, p)| {
            !matches!(p.role, Role::Knight | Role::Pawn)
                && !frozen.contains(sq)
                && (steps(p.role, sq, occupied) & !occupied).any()
        });
        if !can_lose_tempo {
            return None;
        }
    }
    let mut search = Search {
        target,
        tables,
        frozen,
        limits,
        nodes: 0,
        failed: HashMap::new(),
        line: Vec::new(),
    };
    let start = search.bound(pos);
    if start == u32::MAX {
        return None;
    }
    let mut plies = start;
    while plies <= MAX_PLIES {
        if search.dfs(pos, plies) {
            return Some(search.line);
        }
        if search.nodes > MAX_NODES || limits.exhausted() {
            return None;
        }
        plies += 1;
    }
    None
}

/// Fewest moves of a `role` piece from every square to `to`, around `obstacles` (255: never).
fn distances(role: Role, to: Square, obstacles: Bitboard) -> [u8; 64] {
    let mut dist = [u8::MAX; 64];
    dist[to.to_usize()] = 0;
    let mut frontier = vec![to];
    let mut d = 0;
    while !frontier.is_empty() {
        d += 1;
        let mut next = Vec::new();
        for sq in frontier {
            for s in steps(role, sq, obstacles) & !obstacles {
                if dist[s.to_usize()] == u8::MAX {
                    dist[s.to_usize()] = d;
                    next.push(s);
                }
            }
        }
        frontier = next;
    }
    dist
}

impl Search<'_> {
    /// Fewest plies to the target by the per-side bounds and the side to move (u32::MAX when
    /// a needed piece cannot get there at all).
    fn bound(&self, pos: &Chess) -> u32 {
        let board = pos.board();
        let mut need = [0u32; 2];
        for t in &self.tables {
            if board.piece_at(t.square) == Some(t.piece) {
                continue;
            }
            let candidates = board.by_piece(t.piece)
                & !self
                    .tables
                    .iter()
                    .filter(|o| o.piece == t.piece && board.piece_at(o.square) == Some(o.piece))
                    .map(|o| Bitboard::from_square(o.square))
                    .fold(Bitboard::EMPTY, |a, b| a | b);
            let d = candidates
                .into_iter()
                .map(|sq| t.dist[sq.to_usize()])
                .min()
                .unwrap_or(u8::MAX);
            if d == u8::MAX {
                return u32::MAX;
            }
            need[t.piece.color as usize] += u32::from(d);
        }
        // Rights that must still be lost: the king or rook moves out and back.
        let extra = pos.castles().castling_rights() & !self.target.castling;
        for color in Color::ALL {
            if (extra & Bitboard::from_rank(color.backrank())).any() {
                need[color as usize] = need[color as usize].max(2);
            }
        }
        let stm = pos.turn();
        let (a, b) = (need[stm as usize], need[!stm as usize]);
        // The side to move makes ceil(n/2) of n plies, the other floor(n/2).
        let mut n = (2 * a).saturating_sub(1).max(2 * b);
        let parity_ok = |n: u32| n.is_multiple_of(2) == (stm == self.target.turn);
        if !parity_ok(n) {
            n += 1;
        }
        n
    }

    fn done(&self, pos: &Chess) -> bool {
        pos.board() == &self.target.board
            && pos.turn() == self.target.turn
            && pos.castles().castling_rights() == self.target.castling
    }

    fn dfs(&mut self, pos: &Chess, plies: u32) -> bool {
        if plies == 0 {
            return self.done(pos);
        }
        self.nodes += 1;
        if self.nodes > MAX_NODES || !self.limits.tick(1) {
            return false;
        }
        let key: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
        if self.failed.get(&key.0).is_some_and(|&p| p >= plies) {
            return false;
        }
        let mut children: Vec<(u32, Move, Chess)> = Vec::new();
        for m in pos.legal_moves() {
            let ok = match m {
                Move::Normal {
                    role,
                    from,
                    capture: None,
                    promotion: None,
                    ..
                } => role != Role::Pawn && !self.frozen.contains(from),
                Move::Castle { .. } => false,
                _ => false,
            };
            if !ok {
                continue;
            }
            let mut next = pos.clone();
            next.play_unchecked(m);
            if !self
                .target
                .castling
                .is_subset(next.castles().castling_rights())
            {
                continue;
            }
            let b = self.bound(&next);
            if b < plies {
                children.push((b, m, next));
            }
        }
        children.sort_by_key(|&(b, m, _)| (b, m.from(), m.to()));
        for (_, m, next) in children {
            self.line.push(m);
            if self.dfs(&next, plies - 1) {
                return true;
            }
            self.line.pop();
        }
        self.failed.insert(key.0, plies);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::plan::make_plan;
    use crate::position::PositionInput;
    use shakmaty::{CastlingMode, fen::Fen};

    fn pos(fen: &str) -> Position {
        PositionInput::parse(fen).unwrap().candidates().remove(0)
    }

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn a_tempo_is_lost_by_a_triangle() {
        let target = pos("8/8/4k3/8/8/3K4/8/R7 b - -");
        let start = chess("8/8/4k3/8/8/3K4/8/R7 w - - 0 1");
        let plan = make_plan(&target, 0).unwrap();
        let limits = Limits::new(None, 1_000_000);
        let line = finish(&start, &target, &plan, &limits).unwrap();
        assert_eq!(line.len() % 2, 1);
        let mut p = start;
        for m in line {
            p.play_unchecked(m);
        }
        assert_eq!(Position::from_chess(&p), target);
    }

    #[test]
    fn knights_alone_cannot_lose_a_tempo() {
        let target = pos("n3k3/pppppppp/8/8/8/8/PPPPPPPP/N3K3 b - -");
        let start = chess("n3k3/pppppppp/8/8/8/8/PPPPPPPP/N3K3 w - - 0 1");
        let plan = make_plan(&target, 0).unwrap();
        let limits = Limits::new(None, 1_000_000);
        // The kings can still move (d1/f1, d8/f8): a king triangle needs three squares in a
        // triangle, which the back rank does not give, so no tempo within the search.
        assert!(finish(&start, &target, &plan, &limits).is_none());
    }
}
