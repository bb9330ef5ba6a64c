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

/// One unit of the target with its route costs from every square.
#[derive(Clone)]
struct TargetUnit {
    role: Role,
    sq: Square,
    /// Fewest moves for a unit of the same role standing on a square.
    same: [u8; 64],
    /// Fewest moves for a pawn standing on a square (pawn target: its pawn route;
    /// piece target: route to a promotion square, promotion, then the piece route).
    pawn: [u8; 64],
    /// Fewest captures along such a pawn route.
    pawn_caps: [u8; 64],
}

/// Precomputed tables for one target.
pub(crate) struct Tables {
    /// Target placement.
    pub board: Board,
    /// Units of each side in the target.
    units: [Vec<TargetUnit>; 2],
    /// Number of units of each side in the target.
    pub counts: [u32; 2],
}

impl Tables {
    /// Builds the tables, or `None` when the target is statically impossible
    /// (counts, kings, pawns on the first or last rank).
    pub(crate) fn new(board: &Board) -> Option<Tables> {
        for color in Color::ALL {
            let side = board.by_color(color);
            if side.count() > 16
                || (side & board.kings()).count() != 1
                || (side & board.pawns()).count() > 8
            {
                return None;
            }
        }
        let back_ranks = Bitboard::from_rank(shakmaty::Rank::First)
            | Bitboard::from_rank(shakmaty::Rank::Eighth);
        if (board.pawns() & back_ranks).any() {
            return None;
        }
        let frozen = frozen_units(board);
        let pawns = [
            pawn_table(Color::White, frozen),
            pawn_table(Color::Black, frozen),
        ];
        let mut units: [Vec<TargetUnit>; 2] = [Vec::new(), Vec::new()];
        for (sq, piece) in board.iter() {
            let c = ci(piece.color);
            let (moves, caps) = &pawns[c];
            let mut u = TargetUnit {
                role: piece.role,
                sq,
                same: [UNREACHABLE; 64],
                pawn: [UNREACHABLE; 64],
                pawn_caps: [UNREACHABLE; 64],
            };
            if piece.role == Role::Pawn {
                for from in Square::ALL {
                    u.pawn[from.to_usize()] = moves[from.to_usize()][sq.to_usize()];
                    u.pawn_caps[from.to_usize()] = caps[from.to_usize()][sq.to_usize()];
                }
                u.same = u.pawn;
            } else {
                // Piece moves are symmetric, so the distance *to* the target square
                // is a search *from* it.
                u.same = piece_distances(piece.role, sq, frozen);
                if piece.role != Role::King {
                    let last = piece
                        .color
                        .fold_wb(shakmaty::Rank::Eighth, shakmaty::Rank::First);
                    for from in Square::ALL {
                        for x in Bitboard::from_rank(last) {
                            let pm = moves[from.to_usize()][x.to_usize()];
                            let d = u.same[x.to_usize()];
                            if pm == UNREACHABLE || d == UNREACHABLE {
                                continue;
                            }
                            let i = from.to_usize();
                            u.pawn[i] = u.pawn[i].min(pm.saturating_add(d).min(UNREACHABLE - 1));
                            u.pawn_caps[i] = u.pawn_caps[i].min(caps[i][x.to_usize()]);
                        }
                    }
                }
            }
            units[c].push(u);
        }
        let counts = [units[0].len() as u32, units[1].len() as u32];
        Some(Tables {
            board: board.clone(),
            units,
            counts,
        })
    }

    /// Cost (moves, captures) for the current unit `(urole, usq)` of `color` to
    /// become the target unit `t`.
    #[inline]
    fn cost(
        &self,
        color: Color,
        castling: Bitboard,
        urole: Role,
        usq: Square,
        t: &TargetUnit,
    ) -> (i32, i32) {
        let i = usq.to_usize();
        if urole == Role::Pawn {
            return (to_cost(t.pawn[i]), to_cost(t.pawn_caps[i]));
        }
        if urole != t.role {
            return (INF, INF);
        }
        let mut d = to_cost(t.same[i]);
        match urole {
            Role::King => {
                for side in CastlingSide::ALL {
                    if castling_available(castling, color, side) {
                        let via = side.king_to(color);
                        d = d.min(1 + to_cost(t.same[via.to_usize()]));
                    }
                }
            }
            Role::Rook if castling.contains(usq) => {
                let side = if usq.file() > shakmaty::File::E {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                d = d.min(to_cost(t.same[side.rook_to(color).to_usize()]));
            }
            _ => {}
        }
        (d, if d >= INF { INF } else { 0 })
    }

    /// Whether the target has a unit of `color` and `role` on `sq`.
    #[inline]
    fn in_place(&self, color: Color, role: Role, sq: Square) -> bool {
        self.board.by_piece(Piece { color, role }).contains(sq)
    }

    /// Solves the matching of `color` at the placement `board` with castling
    /// rights `castling` (rook squares) from scratch. `None` when the target is out
    /// of reach with `left` moves of `color` and `opp_missing` captures by `color`
    /// (the opponent units on the board now that the target lacks: every capture
    /// removes exactly one of them, and nothing else does).
    pub(crate) fn assign(
        &self,
        board: &Board,
        castling: Bitboard,
        color: Color,
        left: i32,
        opp_missing: i32,
    ) -> Option<Assign> {
        if opp_missing < 0 || opp_missing > left {
            return None;
        }
        let c = ci(color);
        let mine = board.by_color(color);
        // Units already on their target square with their target role stay matched:
        // by the triangle inequality of every route metric used here (moves and
        // captures alike), some optimal assignment keeps them in place.
        let mut in_place = Bitboard::EMPTY;
        for role in Role::ALL {
            let p = Piece { color, role };
            in_place |= board.by_piece(p) & self.board.by_piece(p);
        }
        let mut st = Assign::EMPTY;
        for (k, u) in self.units[c].iter().enumerate() {
            if !in_place.contains(u.sq) {
                if st.n == 16 {
                    return None;
                }
                st.row_target[st.n] = k as u8;
                st.n += 1;
            }
        }
        for sq in mine & !in_place {
            if st.m == 16 {
                return None;
            }
            let Some(role) = board.role_at(sq) else {
                continue;
            };
            st.col_sq[st.m] = sq;
            st.col_role[st.m] = role;
            st.col_of[sq.to_usize()] = st.m as u8;
            st.m += 1;
        }
        let (n, m) = (st.n, st.m);
        if n > m {
            return None;
        }
        if n == 0 {
            return Some(st);
        }
        let mut mc = [[0i32; 17]; 17];
        let mut cc = [[0i32; 17]; 17];
        // Relaxation first: each target from its cheapest unit, shared or not.
        let mut relaxed = 0;
        for i in 0..n {
            let t = &self.units[c][st.row_target[i] as usize];
            let mut row_min = INF;
            for j in 0..m {
                let (mv, cp) = self.cost(color, castling, st.col_role[j], st.col_sq[j], t);
                mc[i + 1][j + 1] = mv;
                cc[i + 1][j + 1] = cp;
                row_min = row_min.min(mv);
            }
            relaxed += row_min;
            if relaxed > left {
                return None;
            }
        }
        let h = hungarian(n, m, &mc);
        if h.cost > left {
            return None;
        }
        // Captures: the optimal move assignment often needs few enough already;
        // otherwise minimise the captures on their own.
        let mut caps = 0;
        for j in 1..=m {
            let i = h.row_of_col[j];
            st.row_of_col[j - 1] = i as u8;
            st.v[j - 1] = h.v[j];
            if i != 0 {
                st.col_cost[j - 1] = mc[i][j];
                st.col_caps[j - 1] = cc[i][j];
                caps += cc[i][j];
            }
        }
        if caps > opp_missing && hungarian(n, m, &cc).cost > opp_missing {
            return None;
        }
        st.u[..n].copy_from_slice(&h.u[1..=n]);
        st.primal = h.cost;
        st.caps = caps;
        st.dual = st.u[..n].iter().sum::<i32>() + st.v[..m].iter().sum::<i32>();
        debug_assert!(st.dual <= st.primal);
        Some(st)
    }

    /// Updates `st` after the unit of `color` on `from` went to `to` as `role`
    /// (its old role, or the promoted one). The castling rights must not have
    /// changed. Only that unit's costs change, so the old dual solution stays
    /// feasible once that unit's potential is lowered enough (a lower bound), and
    /// the old assignment stays feasible with that unit's new cost (an upper bound).
    pub(crate) fn update(
        &self,
        st: &Assign,
        color: Color,
        castling: Bitboard,
        moved: (Role, Square, Role, Square),
        left: i32,
        opp_missing: i32,
    ) -> Update {
        let (old_role, from, role, to) = moved;
        if opp_missing < 0 || opp_missing > left {
            return Update::Prune;
        }
        if self.in_place(color, old_role, from) || self.in_place(color, role, to) {
            return Update::Recompute;
        }
        let j = st.col_of[from.to_usize()] as usize;
        if j >= st.m {
            return Update::Recompute;
        }
        let c = ci(color);
        let mut min_reduced = i32::MAX;
        let mut assigned = (0, 0);
        let i0 = st.row_of_col[j] as usize;
        for i in 0..st.n {
            let t = &self.units[c][st.row_target[i] as usize];
            let (mv, cp) = self.cost(color, castling, role, to, t);
            min_reduced = min_reduced.min(mv - st.u[i]);
            if i + 1 == i0 {
                assigned = (mv, cp);
            }
        }
        let v = min_reduced.min(0);
        let dual = st.dual - st.v[j] + v;
        if dual > left {
            return Update::Prune;
        }
        let mut next = st.clone();
        next.v[j] = v;
        next.dual = dual;
        next.col_of[from.to_usize()] = NO_COL;
        next.col_of[to.to_usize()] = j as u8;
        next.col_sq[j] = to;
        next.col_role[j] = role;
        if i0 != 0 {
            next.primal += assigned.0 - st.col_cost[j];
            next.caps += assigned.1 - st.col_caps[j];
            next.col_cost[j] = assigned.0;
            next.col_caps[j] = assigned.1;
        }
        if next.primal > left || next.caps > opp_missing {
            return Update::Recompute;
        }
        Update::Keep(next)
    }

    /// Updates `st` after its unit on `sq` was captured. The castling rights of
    /// its side must not have changed.
    pub(crate) fn remove(&self, st: &Assign, sq: Square, left: i32, opp_missing: i32) -> Update {
        if opp_missing < 0 || opp_missing > left {
            return Update::Prune;
        }
        let j = st.col_of[sq.to_usize()] as usize;
        // In place (no column) or supplying a target: the matching must be redone.
        if j >= st.m || st.row_of_col[j] != 0 {
            return Update::Recompute;
        }
        // An unassigned column leaves: the assignment stays, the dual solution
        // stays feasible for the remaining columns.
        let mut next = st.clone();
        next.dual -= st.v[j];
        if next.dual > left || next.n > next.m - 1 {
            return Update::Prune;
        }
        let last = next.m - 1;
        next.col_of[sq.to_usize()] = NO_COL;
        if j != last {
            next.col_sq[j] = st.col_sq[last];
            next.col_role[j] = st.col_role[last];
            next.v[j] = st.v[last];
            next.row_of_col[j] = st.row_of_col[last];
            next.col_cost[j] = st.col_cost[last];
            next.col_caps[j] = st.col_caps[last];
            next.col_of[st.col_sq[last].to_usize()] = j as u8;
        }
        next.m = last;
        Update::Keep(next)
    }
}

/// Marks a square without a column in [`Assign::col_of`].
const NO_COL: u8 = u8::MAX;

/// One side's matching at a node: the units not yet in place (columns) against
/// the target units not yet supplied (rows), with a feasible assignment (its cost
/// is an upper bound of the optimum) and a feasible dual solution (its value is a
/// lower bound: the moves this side still needs at least).
#[derive(Clone)]
pub(crate) struct Assign {
    n: usize,
    m: usize,
    row_target: [u8; 16],
    col_sq: [Square; 16],
    col_role: [Role; 16],
    col_of: [u8; 64],
    u: [i32; 16],
    v: [i32; 16],
    /// Row (1-based) assigned to each column, 0 for none.
    row_of_col: [u8; 16],
    col_cost: [i32; 16],
    col_caps: [i32; 16],
    primal: i32,
    caps: i32,
    dual: i32,
}

impl Assign {
    const EMPTY: Assign = Assign {
        n: 0,
        m: 0,
        row_target: [0; 16],
        col_sq: [Square::A1; 16],
        col_role: [Role::Pawn; 16],
        col_of: [NO_COL; 64],
        u: [0; 16],
        v: [0; 16],
        row_of_col: [0; 16],
        col_cost: [0; 16],
        col_caps: [0; 16],
        primal: 0,
        caps: 0,
        dual: 0,
    };

    /// Lower bound of the moves this side still needs.
    pub(crate) fn lower_bound(&self) -> i32 {
        self.dual
    }
}

/// Outcome of an incremental update.
pub(crate) enum Update {
    /// The target is out of reach.
    Prune,
    /// Still within reach; the updated state.
    Keep(Assign),
    /// Undecided by the cheap bounds: solve from scratch.
    Recompute,
}

/// Shortest routes of a `role` piece between `sq` and every square, on the board
/// whose only obstacles are the frozen units.
fn piece_distances(role: Role, sq: Square, frozen: Bitboard) -> [u8; 64] {
    let mut dist = [UNREACHABLE; 64];
    dist[sq.to_usize()] = 0;
    let mut seen = Bitboard::from_square(sq);
    let mut frontier = seen;
    let mut d = 0u8;
    while frontier.any() {
        d += 1;
        let mut next = Bitboard::EMPTY;
        for s in frontier {
            next |= piece_steps(role, s, frozen);
        }
        next &= !seen & !frozen;
        for s in next {
            dist[s.to_usize()] = d;
        }
        seen |= next;
        frontier = next;
    }
    dist
}

type PawnTable = Box<[[u8; 64]; 64]>;

/// Pawn routes of `color` in rank order, avoiding frozen squares: fewest moves and
/// fewest captures (separately) from every square to every square, including the
/// promotion squares on the last rank.
fn pawn_table(color: Color, frozen: Bitboard) -> (PawnTable, PawnTable) {
    let mut moves_t: PawnTable = Box::new([[UNREACHABLE; 64]; 64]);
    let mut caps_t: PawnTable = Box::new([[UNREACHABLE; 64]; 64]);
    let dir: i32 = if color == Color::White { 1 } else { -1 };
    let start_rank: i32 = if color == Color::White { 1 } else { 6 };
    for from in Square::ALL {
        let r0 = from.rank().to_u32() as i32;
        if r0 == 0 || r0 == 7 {
            continue;
        }
        let moves = &mut moves_t[from.to_usize()];
        let caps = &mut caps_t[from.to_usize()];
        moves[from.to_usize()] = 0;
        caps[from.to_usize()] = 0;
        let mut rank = r0;
        while (1..=6).contains(&rank) {
            let r1 = rank + dir;
            for file in 0..8i32 {
                let here = (rank * 8 + file) as usize;
                let (m, k) = (moves[here], caps[here]);
                if m == UNREACHABLE {
                    continue;
                }
                for df in -1..=1i32 {
                    let f1 = file + df;
                    if !(0..8).contains(&f1) {
                        continue;
                    }
                    let to = (r1 * 8 + f1) as usize;
                    if frozen.contains(Square::new(to as u32)) {
                        continue;
                    }
                    moves[to] = moves[to].min(m + 1);
                    caps[to] = caps[to].min(k + u8::from(df != 0));
                }
                if rank == start_rank && here == from.to_usize() {
                    let mid = (r1 * 8 + file) as usize;
                    let to = ((r1 + dir) * 8 + file) as usize;
                    if !frozen.contains(Square::new(mid as u32))
                        && !frozen.contains(Square::new(to as u32))
                    {
                        moves[to] = moves[to].min(m + 1);
                        caps[to] = caps[to].min(k);
                    }
                }
            }
            rank += dir;
        }
    }
    (moves_t, caps_t)
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

/// Result of [`hungarian`] (1-indexed like its input).
struct Hungarian {
    /// Total cost, `>= INF` when every assignment uses an impossible pair.
    cost: i32,
    /// Row of each column, 0 for none.
    row_of_col: [usize; 17],
    /// Row potentials.
    u: [i32; 17],
    /// Column potentials (never positive; zero on unassigned columns).
    v: [i32; 17],
}

/// Minimum-cost assignment of `n` rows to distinct columns among `m >= n`
/// (Hungarian method with potentials; `u[i] + v[j] <= a[i][j]` throughout, so
/// the potentials are a feasible dual solution). `a` is 1-indexed.
fn hungarian(n: usize, m: usize, a: &[[i32; 17]; 17]) -> Hungarian {
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
    let mut cost = 0;
    for j in 1..=m {
        if p[j] != 0 {
            cost += a[p[j]][j];
        }
    }
    Hungarian {
        cost,
        row_of_col: p,
        u,
        v,
    }
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
        let h = hungarian(2, 3, &a);
        assert_eq!(h.cost, 3);
        let dual: i32 = h.u[1..=2].iter().sum::<i32>() + h.v[1..=3].iter().sum::<i32>();
        assert_eq!(dual, 3);
        for i in 1..=2 {
            for j in 1..=3 {
                assert!(h.u[i] + h.v[j] <= a[i][j]);
            }
        }
        a[2][2] = INF;
        a[2][1] = INF;
        a[2][3] = INF;
        assert!(hungarian(2, 3, &a).cost >= INF);
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
        let (m, k) = pawn_table(Color::White, Bitboard::EMPTY);
        let at = |t: &PawnTable, a: Square, b: Square| t[a.to_usize()][b.to_usize()];
        assert_eq!(at(&m, Square::E2, Square::E4), 1);
        assert_eq!(at(&m, Square::E2, Square::D4), 2);
        assert_eq!(at(&k, Square::E2, Square::D4), 1);
        assert_eq!(at(&m, Square::E2, Square::C4), 2);
        assert_eq!(at(&m, Square::E2, Square::B4), UNREACHABLE);
        assert_eq!(at(&m, Square::E2, Square::E8), 5);
        assert_eq!(at(&m, Square::E3, Square::E5), 2);
        let (m, _) = pawn_table(Color::Black, Bitboard::EMPTY);
        assert_eq!(at(&m, Square::D7, Square::D5), 1);
        assert_eq!(at(&m, Square::D7, Square::D1), 5);
        // A frozen unit on d3 blocks the straight route and the double step.
        let (m, k) = pawn_table(Color::White, Bitboard::from_square(Square::D3));
        assert_eq!(at(&m, Square::D2, Square::D4), 2);
        assert_eq!(at(&k, Square::D2, Square::D4), 2);
        assert_eq!(at(&m, Square::D2, Square::D3), UNREACHABLE);
        assert_eq!(at(&m, Square::D2, Square::E4), 2);
        assert_eq!(at(&k, Square::D2, Square::E4), 1);
    }

    #[test]
    fn promotion_and_castling_costs() {
        let t = Tables::new(&"4k3/8/8/8/8/8/8/R3K2R".parse().unwrap()).unwrap();
        let w = &t.units[0];
        let king = w.iter().find(|u| u.role == Role::King).unwrap();
        let rights = Bitboard::from_square(Square::H1);
        assert_eq!(
            t.cost(Color::White, rights, Role::King, Square::E1, king),
            (0, 0)
        );
        let rook_h = w.iter().find(|u| u.sq == Square::H1).unwrap();
        // A pawn on b2 promotes (6 moves via b8 or a capture to a8/c8 and back).
        assert_eq!(
            t.cost(Color::White, rights, Role::Pawn, Square::B2, rook_h)
                .0,
            7
        );
        let t2 = Tables::new(&"4k3/8/8/8/8/8/8/5RK1".parse().unwrap()).unwrap();
        let w2 = &t2.units[0];
        let king2 = w2.iter().find(|u| u.role == Role::King).unwrap();
        let rook2 = w2.iter().find(|u| u.role == Role::Rook).unwrap();
        assert_eq!(
            t2.cost(Color::White, rights, Role::King, Square::E1, king2)
                .0,
            1
        );
        assert_eq!(
            t2.cost(Color::White, rights, Role::Rook, Square::H1, rook2)
                .0,
            0
        );
        assert_eq!(
            t2.cost(Color::White, Bitboard::EMPTY, Role::King, Square::E1, king2)
                .0,
            2
        );
        assert_eq!(
            t2.cost(Color::White, Bitboard::EMPTY, Role::Rook, Square::H1, rook2)
                .0,
            1
        );
    }
}
