//! Static analysis of the target and the per-side lower bound of remaining moves.
//!
//! Everything here is a *necessary condition* for reaching the target: a node is
//! pruned only when no continuation of the allotted length can reach the target.
//!
//! The bound is memoryless: it looks only at the current placement, the castling
//! rights and the target. Each unit the target shows must be supplied by a unit on
//! the board now (a piece of the same role, or a pawn that promotes); units left
//! over are captured later. The cheapest such assignment (a min-cost bipartite
//! matching, solved exactly) is a lower bound of the moves the side still needs,
//! because distinct units need distinct moves and every unit needs at least its
//! shortest route (castling moves king and rook in one move: the king pays for it,
//! the rook may start from its castled square for free). A second matching
//! minimises the captures the pawns still need (each file change is a capture);
//! they must not exceed the opponent's units that are on the board now but missing
//! in the target, since every capture removes exactly one such unit.

use shakmaty::{
    Bitboard, Board, CastlingSide, Color, Piece, Role, Square,
    attacks::{bishop_attacks, king_attacks, knight_attacks, rook_attacks},
};

/// Cost meaning "impossible" in the matchings.
pub(crate) const INF: i32 = 1000;
/// Table value meaning "unreachable".
const UNREACHABLE: u8 = u8::MAX;

/// Index of a colour in the tables.
#[inline]
pub(crate) fn ci(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// Index of a piece role (knight .. king) in the distance tables.
#[inline]
fn ri(r: Role) -> usize {
    match r {
        Role::Pawn | Role::Knight => 0,
        Role::Bishop => 1,
        Role::Rook => 2,
        Role::Queen => 3,
        Role::King => 4,
    }
}

const PIECE_ROLES: [Role; 5] = [
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
    Role::King,
];
const PROMO_ROLES: [Role; 4] = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];

/// One side's lower bound at a node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct SideBound {
    /// Lower bound of the moves this side still has to make (`INF` if impossible).
    pub moves: i32,
    /// Lower bound of the captures this side's pawns still have to make.
    pub caps: i32,
}

/// Precomputed tables for one target.
pub(crate) struct Tables {
    /// Target placement.
    pub board: Board,
    /// Units of each side in the target: (role, square).
    units: [Vec<(Role, Square)>; 2],
    /// Number of units of each side in the target.
    pub counts: [u32; 2],
    /// Units proven never to move and never to be captured in any proof game.
    pub frozen: Bitboard,
    /// Shortest piece routes: `dist[role][from][to]`, avoiding frozen squares.
    dist: Vec<u8>,
    /// Fewest pawn moves `pawn_moves[color][from][to]` (to may be on the last rank).
    pawn_moves: Vec<u8>,
    /// Fewest pawn captures `pawn_caps[color][from][to]`.
    pawn_caps: Vec<u8>,
    /// Fewest moves for a pawn on `from` to become a piece of `role` on `to`
    /// (promotion move included): `promo[color][role][from][to]`.
    promo: Vec<u8>,
    /// Fewest captures for that (the promotion square may differ).
    promo_caps: Vec<u8>,
}

#[inline]
fn idx3(a: usize, from: Square, to: Square) -> usize {
    (a * 64 + from.to_usize()) * 64 + to.to_usize()
}

impl Tables {
    /// Builds the tables, or `None` when the target is statically impossible
    /// (counts, kings, pawns on the first or last rank).
    pub(crate) fn new(board: &Board) -> Option<Tables> {
        let mut units: [Vec<(Role, Square)>; 2] = [Vec::new(), Vec::new()];
        for (sq, piece) in board.iter() {
            units[ci(piece.color)].push((piece.role, sq));
        }
        for color in Color::ALL {
            let side = board.by_color(color);
            if side.count() > 16
                || (side & board.kings()).count() != 1
                || (side & board.pawns()).count() > 8
            {
                return None;
            }
        }
        if (board.pawns()
            & (Bitboard::from_rank(shakmaty::Rank::First)
                | Bitboard::from_rank(shakmaty::Rank::Eighth)))
        .any()
        {
            return None;
        }
        let counts = [units[0].len() as u32, units[1].len() as u32];
        let frozen = frozen_units(board);
        let mut t = Tables {
            board: board.clone(),
            units,
            counts,
            frozen,
            dist: vec![UNREACHABLE; 5 * 64 * 64],
            pawn_moves: vec![UNREACHABLE; 2 * 64 * 64],
            pawn_caps: vec![UNREACHABLE; 2 * 64 * 64],
            promo: vec![UNREACHABLE; 2 * 4 * 64 * 64],
            promo_caps: vec![UNREACHABLE; 2 * 4 * 64 * 64],
        };
        t.fill_piece_distances();
        t.fill_pawn_tables();
        t.fill_promotions();
        Some(t)
    }

    /// Breadth-first search on the board whose only obstacles are the frozen units.
    fn fill_piece_distances(&mut self) {
        let frozen = self.frozen;
        for role in PIECE_ROLES {
            for from in Square::ALL {
                let mut seen = Bitboard::from_square(from);
                let mut frontier = Bitboard::from_square(from);
                let mut d = 0u8;
                self.dist[idx3(ri(role), from, from)] = 0;
                while frontier.any() {
                    d += 1;
                    let mut next = Bitboard::EMPTY;
                    for sq in frontier {
                        next |= piece_steps(role, sq, frozen);
                    }
                    next &= !seen & !frozen;
                    for sq in next {
                        self.dist[idx3(ri(role), from, sq)] = d;
                    }
                    seen |= next;
                    frontier = next;
                }
            }
        }
    }

    /// Pawn routes in rank order: fewest moves and fewest captures, separately.
    fn fill_pawn_tables(&mut self) {
        let frozen = self.frozen;
        for color in Color::ALL {
            let c = ci(color);
            let dir: i32 = if color == Color::White { 1 } else { -1 };
            let start_rank: u32 = if color == Color::White { 1 } else { 6 };
            for from in Square::ALL {
                let r0 = from.rank().to_u32();
                if r0 == 0 || r0 == 7 {
                    continue;
                }
                let mut moves = [UNREACHABLE; 64];
                let mut caps = [UNREACHABLE; 64];
                moves[from.to_usize()] = 0;
                caps[from.to_usize()] = 0;
                // Process ranks in the pawn's direction of travel.
                let mut rank = r0 as i32;
                loop {
                    if !(1..=6).contains(&rank) {
                        break;
                    }
                    for file in 0..8i32 {
                        let sq = Square::new((rank * 8 + file) as u32);
                        let m = moves[sq.to_usize()];
                        let k = caps[sq.to_usize()];
                        if m == UNREACHABLE {
                            continue;
                        }
                        let r1 = rank + dir;
                        for df in -1..=1i32 {
                            let f1 = file + df;
                            if !(0..8).contains(&f1) {
                                continue;
                            }
                            let to = Square::new((r1 * 8 + f1) as u32);
                            if frozen.contains(to) {
                                continue;
                            }
                            let cap = u8::from(df != 0);
                            moves[to.to_usize()] = moves[to.to_usize()].min(m + 1);
                            caps[to.to_usize()] = caps[to.to_usize()].min(k + cap);
                        }
                        if rank as u32 == start_rank && sq == from {
                            let mid = Square::new((r1 * 8 + file) as u32);
                            let to = Square::new(((r1 + dir) * 8 + file) as u32);
                            if !frozen.contains(mid) && !frozen.contains(to) {
                                moves[to.to_usize()] = moves[to.to_usize()].min(m + 1);
                                caps[to.to_usize()] = caps[to.to_usize()].min(k);
                            }
                        }
                    }
                    rank += dir;
                }
                for to in Square::ALL {
                    self.pawn_moves[idx3(c, from, to)] = moves[to.to_usize()];
                    self.pawn_caps[idx3(c, from, to)] = caps[to.to_usize()];
                }
            }
        }
    }

    fn fill_promotions(&mut self) {
        for color in Color::ALL {
            let c = ci(color);
            let last = if color == Color::White { 7u32 } else { 0 };
            for (k, role) in PROMO_ROLES.into_iter().enumerate() {
                for from in Square::ALL {
                    for to in Square::ALL {
                        let mut best = UNREACHABLE as u32;
                        let mut best_caps = UNREACHABLE;
                        for file in 0..8u32 {
                            let x = Square::new(last * 8 + file);
                            let pm = self.pawn_moves[idx3(c, from, x)];
                            let d = self.dist[idx3(ri(role), x, to)];
                            if pm == UNREACHABLE || d == UNREACHABLE {
                                continue;
                            }
                            best = best.min(u32::from(pm) + u32::from(d));
                            best_caps = best_caps.min(self.pawn_caps[idx3(c, from, x)]);
                        }
                        let i = idx3(c * 4 + k, from, to);
                        self.promo[i] = u8::try_from(best).unwrap_or(UNREACHABLE);
                        self.promo_caps[i] = best_caps;
                    }
                }
            }
        }
    }

    #[inline]
    fn piece_dist(&self, role: Role, from: Square, to: Square) -> i32 {
        to_cost(self.dist[idx3(ri(role), from, to)])
    }

    /// Cost (moves, captures) for the current unit `(urole, usq)` of `color` to
    /// become the target unit `(trole, tsq)`.
    #[inline]
    fn cost(
        &self,
        color: Color,
        castling: Bitboard,
        urole: Role,
        usq: Square,
        trole: Role,
        tsq: Square,
    ) -> (i32, i32) {
        let c = ci(color);
        match (urole, trole) {
            (Role::Pawn, Role::Pawn) => (
                to_cost(self.pawn_moves[idx3(c, usq, tsq)]),
                to_cost(self.pawn_caps[idx3(c, usq, tsq)]),
            ),
            (Role::Pawn, Role::King) => (INF, INF),
            (Role::Pawn, r) => {
                // PROMO_ROLES is in `ri` order.
                let i = idx3(c * 4 + ri(r), usq, tsq);
                (to_cost(self.promo[i]), to_cost(self.promo_caps[i]))
            }
            (u, t) if u != t => (INF, INF),
            (Role::King, _) => {
                let mut d = self.piece_dist(Role::King, usq, tsq);
                for side in CastlingSide::ALL {
                    if castling_available(castling, color, side) {
                        let via = side.king_to(color);
                        d = d.min(1 + self.piece_dist(Role::King, via, tsq));
                    }
                }
                let caps = if d >= INF { INF } else { 0 };
                (d, caps)
            }
            (Role::Rook, _) => {
                let mut d = self.piece_dist(Role::Rook, usq, tsq);
                if castling.contains(usq) {
                    let side = if usq.file() > shakmaty::File::E {
                        CastlingSide::KingSide
                    } else {
                        CastlingSide::QueenSide
                    };
                    d = d.min(self.piece_dist(Role::Rook, side.rook_to(color), tsq));
                }
                let caps = if d >= INF { INF } else { 0 };
                (d, caps)
            }
            (r, _) => {
                let d = self.piece_dist(r, usq, tsq);
                let caps = if d >= INF { INF } else { 0 };
                (d, caps)
            }
        }
    }

    /// Lower bound for `color` at the placement `board` with castling rights
    /// `castling` (rook squares), or `moves == INF` when the target is out of reach.
    /// The caller compares `caps` with the opponent units that are on the board now
    /// and missing in the target: exactly the captures `color` still makes.
    pub(crate) fn side_bound(&self, board: &Board, castling: Bitboard, color: Color) -> SideBound {
        let c = ci(color);
        let mine = board.by_color(color);
        // Units already on their target square with their target role stay matched:
        // by the triangle inequality of every route metric used here, some optimal
        // assignment keeps them in place.
        let mut in_place = Bitboard::EMPTY;
        for role in Role::ALL {
            let p = Piece { color, role };
            in_place |= board.by_piece(p) & self.board.by_piece(p);
        }
        let mut targets: [(Role, Square); 16] = [(Role::Pawn, Square::A1); 16];
        let mut n = 0;
        for &(role, sq) in &self.units[c] {
            if !in_place.contains(sq) {
                if n == 16 {
                    return SideBound {
                        moves: INF,
                        caps: INF,
                    };
                }
                targets[n] = (role, sq);
                n += 1;
            }
        }
        if n == 0 {
            return SideBound { moves: 0, caps: 0 };
        }
        let mut units: [(Role, Square); 16] = [(Role::Pawn, Square::A1); 16];
        let mut m = 0;
        for sq in mine & !in_place {
            if m == 16 {
                return SideBound {
                    moves: INF,
                    caps: INF,
                };
            }
            let Some(role) = board.role_at(sq) else {
                continue;
            };
            units[m] = (role, sq);
            m += 1;
        }
        if n > m {
            return SideBound {
                moves: INF,
                caps: INF,
            };
        }
        let mut mc = [[0i32; 17]; 17];
        let mut cc = [[0i32; 17]; 17];
        for (i, &(trole, tsq)) in targets[..n].iter().enumerate() {
            for (j, &(urole, usq)) in units[..m].iter().enumerate() {
                let (mv, cp) = self.cost(color, castling, urole, usq, trole, tsq);
                mc[i + 1][j + 1] = mv;
                cc[i + 1][j + 1] = cp;
            }
        }
        let moves = hungarian(n, m, &mc);
        if moves >= INF {
            return SideBound {
                moves: INF,
                caps: INF,
            };
        }
        let caps = hungarian(n, m, &cc);
        SideBound {
            moves,
            caps: caps.min(INF),
        }
    }
}

/// Whether the castling right of `color` on `side` is still in `castling`
/// (standard chess: rooks on the corner squares).
#[inline]
fn castling_available(castling: Bitboard, color: Color, side: CastlingSide) -> bool {
    let rank = color.backrank();
    let file = match side {
        CastlingSide::KingSide => shakmaty::File::H,
        CastlingSide::QueenSide => shakmaty::File::A,
    };
    castling.contains(Square::from_coords(file, rank))
}

#[inline]
fn to_cost(v: u8) -> i32 {
    if v == UNREACHABLE { INF } else { i32::from(v) }
}

/// Squares a piece of `role` on `sq` reaches in one move when `occupied` blocks.
fn piece_steps(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, occupied),
        Role::Rook => rook_attacks(sq, occupied),
        Role::Queen => bishop_attacks(sq, occupied) | rook_attacks(sq, occupied),
        Role::King => king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// Units of the target that never moved and were never captured in any game
/// reaching it.
///
/// A white pawn on the second rank (black: seventh) can only be the original pawn,
/// unmoved: pawns never move backwards. A piece on its original square whose every
/// first step (king: adjacent squares, which includes castling; bishop, rook, queen:
/// the first square of each ray; knight: its jumps) is occupied by such a permanent
/// unit of its own colour can never have moved; and no other unit of that role can
/// have entered the square (the entries are the same squares, and a promotion
/// cannot land on the own back rank), so it was never captured either. The rule is
/// applied until nothing changes; it only adds units whose blockers are already
/// proven permanent.
pub(crate) fn frozen_units(board: &Board) -> Bitboard {
    let mut frozen = (board.pawns() & board.white() & Bitboard::from_rank(shakmaty::Rank::Second))
        | (board.pawns() & board.black() & Bitboard::from_rank(shakmaty::Rank::Seventh));
    let initial = Board::new();
    loop {
        let mut changed = false;
        for (sq, piece) in board.iter() {
            if frozen.contains(sq)
                || piece.role == Role::Pawn
                || initial.piece_at(sq) != Some(piece)
            {
                continue;
            }
            let exits = match piece.role {
                Role::Knight => knight_attacks(sq),
                Role::Bishop => bishop_attacks(sq, Bitboard::FULL) & king_attacks(sq),
                Role::Rook => rook_attacks(sq, Bitboard::FULL) & king_attacks(sq),
                Role::Queen | Role::King => king_attacks(sq),
                Role::Pawn => Bitboard::EMPTY,
            };
            let own_frozen = frozen & board.by_color(piece.color);
            if exits.is_subset(own_frozen) {
                frozen.add(sq);
                changed = true;
            }
        }
        if !changed {
            return frozen;
        }
    }
}

/// Minimum-cost assignment of `n` rows to distinct columns among `m >= n`
/// (Hungarian method with potentials). `a` is 1-indexed. Returns the total cost,
/// `>= INF` when every assignment uses an impossible pair.
fn hungarian(n: usize, m: usize, a: &[[i32; 17]; 17]) -> i32 {
    const BIG: i32 = i32::MAX / 4;
    let mut u = [0i32; 17];
    let mut v = [0i32; 17];
    let mut p = [0usize; 17];
    let mut way = [0usize; 17];
    for i in 1..=n {
        p[0] = i;
        let mut j0 = 0usize;
        let mut minv = [BIG; 17];
        let mut used = [false; 17];
        loop {
            used[j0] = true;
            let i0 = p[j0];
            let mut delta = BIG;
            let mut j1 = 0usize;
            for j in 1..=m {
                if !used[j] {
                    let cur = a[i0][j] - u[i0] - v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            for j in 0..=m {
                if used[j] {
                    u[p[j]] += delta;
                    v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            p[j0] = p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
    }
    let mut total = 0;
    for j in 1..=m {
        if p[j] != 0 {
            total += a[p[j]][j];
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hungarian_small() {
        let mut a = [[0i32; 17]; 17];
        // rows 1..2, cols 1..3
        a[1][1] = 4;
        a[1][2] = 1;
        a[1][3] = 3;
        a[2][1] = 2;
        a[2][2] = 0;
        a[2][3] = 5;
        assert_eq!(hungarian(2, 3, &a), 3);
        a[2][2] = INF;
        a[2][1] = INF;
        a[2][3] = INF;
        assert!(hungarian(2, 3, &a) >= INF);
    }

    #[test]
    fn frozen_initial_array() {
        let f = frozen_units(&Board::new());
        // All pawns; bishops (pawn-blocked); kings and queens are mutually
        // dependent and knights jump, so they are not proven.
        assert!(f.contains(Square::A2) && f.contains(Square::H7));
        assert!(f.contains(Square::C1) && f.contains(Square::F8));
        assert!(!f.contains(Square::B1) && !f.contains(Square::E1));
        assert!(!f.contains(Square::A1));
    }

    #[test]
    fn pawn_tables() {
        let t = Tables::new(&"4k3/8/8/8/8/8/8/4K3".parse().unwrap()).unwrap();
        let w = ci(Color::White);
        assert_eq!(t.pawn_moves[idx3(w, Square::E2, Square::E4)], 1);
        assert_eq!(t.pawn_moves[idx3(w, Square::E2, Square::D4)], 2);
        assert_eq!(t.pawn_caps[idx3(w, Square::E2, Square::D4)], 1);
        assert_eq!(t.pawn_moves[idx3(w, Square::E2, Square::C4)], 2);
        assert_eq!(t.pawn_moves[idx3(w, Square::E2, Square::B4)], UNREACHABLE);
        assert_eq!(t.pawn_moves[idx3(w, Square::E2, Square::E8)], 5);
        let b = ci(Color::Black);
        assert_eq!(t.pawn_moves[idx3(b, Square::D7, Square::D5)], 1);
        assert_eq!(t.pawn_moves[idx3(b, Square::D7, Square::D1)], 5);
    }
}
