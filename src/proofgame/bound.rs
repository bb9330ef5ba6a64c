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
//!
//! Routes avoid the units the target proves permanent ([`frozen_units`]): nobody
//! passes through or lands on them. Along the search a side's matching is not
//! rebuilt: a move changes one column (two for castling, plus the castling
//! partners whose rights it took), a capture removes one, and the optimum is
//! repaired in O(m²) (see [`Matching`]).

use shakmaty::{
    Bitboard, Board, CastlingSide, Color, Role, Square,
    attacks::{bishop_attacks, king_attacks, knight_attacks, rook_attacks},
};

use super::matching::{INF, MAX, Matching, NONE};

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
    /// Units of each side in the target.
    units: [Vec<TargetUnit>; 2],
    /// Number of units of each side in the target.
    pub counts: [u32; 2],
    /// For each side, `role * 64 + square`: the moves a unit there needs to become
    /// each target unit of its side (in `units` order; later entries, the spare
    /// rows, are 0), ignoring castling.
    columns: [Vec<[u8; MAX]>; 2],
    /// For each side and square: the captures a pawn there needs for each target
    /// unit.
    pawn_caps: [Vec<[u8; MAX]>; 2],
}

/// Index of a role in [`Tables::columns`].
#[inline]
fn role_index(role: Role) -> usize {
    role as usize - 1
}

impl Tables {
    /// Builds the tables, or `None` when the target is statically impossible
    /// (counts, kings, pawns on the first or last rank).
    pub(crate) fn new(board: &Board) -> Option<Tables> {
        for color in Color::ALL {
            let side = board.by_color(color);
            if side.count() > MAX
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
        let mut t = Tables {
            units,
            counts,
            columns: [vec![[0; MAX]; 6 * 64], vec![[0; MAX]; 6 * 64]],
            pawn_caps: [vec![[0; MAX]; 64], vec![[0; MAX]; 64]],
        };
        for color in Color::ALL {
            let c = ci(color);
            for role in Role::ALL {
                for sq in Square::ALL {
                    let mut col = [0u8; MAX];
                    let mut caps = [0u8; MAX];
                    for (i, u) in t.units[c].iter().enumerate() {
                        let (mv, cp) = t.cost(color, Bitboard::EMPTY, role, sq, u);
                        col[i] = to_entry(mv);
                        caps[i] = to_entry(cp);
                    }
                    t.columns[c][role_index(role) * 64 + sq.to_usize()] = col;
                    if role == Role::Pawn {
                        t.pawn_caps[c][sq.to_usize()] = caps;
                    }
                }
            }
        }
        Some(t)
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

    /// The moves the unit `(role, sq)` of `color` needs for each row (target units,
    /// then spare rows at cost 0), with the castling rights `castling`.
    #[inline]
    fn column(&self, color: Color, castling: Bitboard, role: Role, sq: Square) -> [u8; MAX] {
        let c = ci(color);
        let castling_matters = match role {
            Role::King => (castling & Bitboard::from_rank(color.backrank())).any(),
            Role::Rook => castling.contains(sq),
            _ => false,
        };
        if !castling_matters {
            return self.columns[c][role_index(role) * 64 + sq.to_usize()];
        }
        let mut col = [0u8; MAX];
        for (i, u) in self.units[c].iter().enumerate() {
            col[i] = to_entry(self.cost(color, castling, role, sq, u).0);
        }
        col
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
        let m = mine.count();
        if m > MAX || self.units[c].len() > m {
            return None;
        }
        let mut st = Assign {
            moves: Matching::new(m),
            col_sq: [Square::A1; MAX],
            col_role: [Role::Pawn; MAX],
            col_of: [NO_COL; 64],
        };
        for (j, sq) in mine.into_iter().enumerate() {
            let role = board.role_at(sq)?;
            st.col_sq[j] = sq;
            st.col_role[j] = role;
            st.col_of[sq.to_usize()] = j as u8;
            let col = self.column(color, castling, role, sq);
            for (i, &x) in col.iter().enumerate().take(m) {
                st.moves.set(i, j, x);
            }
        }
        st.moves.solve();
        self.check(&st, color, left, opp_missing).then_some(st)
    }

    /// Cheap test before a move is even played: whether moving the unit of `color`
    /// on `from` to `to` as `role`, with the castling rights `castling` of `color`
    /// unchanged, certainly puts the target out of reach (`left` moves and
    /// `opp_missing` captures after the move).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn refutes(
        &self,
        st: &Assign,
        color: Color,
        castling: Bitboard,
        (from, to, role): (Square, Square, Role),
        left: i32,
        opp_missing: i32,
    ) -> bool {
        if opp_missing < 0 || opp_missing > left {
            return true;
        }
        let j = usize::from(st.col_of[from.to_usize()]);
        if j >= st.moves.size() {
            return false;
        }
        let col = self.column(color, castling, role, to);
        st.moves.column_bound(j, &col) > left
    }

    /// Updates `st` after units of `color` moved: each change `(from, to, role)`
    /// takes the unit on `from` to `to` as `role` (its old role, or the promoted
    /// one; `from == to` only refreshes its costs, e.g. after castling rights were
    /// lost). `castling` are the rights after the move. `None` when the target is
    /// out of reach with `left` moves and `opp_missing` captures.
    pub(crate) fn update(
        &self,
        st: &Assign,
        color: Color,
        castling: Bitboard,
        changes: &[(Square, Square, Role)],
        left: i32,
        opp_missing: i32,
    ) -> Option<Assign> {
        if opp_missing < 0 || opp_missing > left {
            return None;
        }
        if let &[(from, to, role)] = changes {
            // The common single change: refute cheaply before copying anything.
            let j = usize::from(st.col_of[from.to_usize()]);
            if j >= st.moves.size() {
                return None;
            }
            let col = self.column(color, castling, role, to);
            if st.moves.column_bound(j, &col) > left {
                return None;
            }
            let mut next = st.clone();
            next.set_column(j, from, to, role, &col);
            return self.check(&next, color, left, opp_missing).then_some(next);
        }
        let mut next = st.clone();
        for &(from, to, role) in changes {
            let j = usize::from(next.col_of[from.to_usize()]);
            if j >= next.moves.size() {
                return None;
            }
            let col = self.column(color, castling, role, to);
            next.set_column(j, from, to, role, &col);
        }
        self.check(&next, color, left, opp_missing).then_some(next)
    }

    /// Updates `st` after its unit on `sq` was captured, then applies `refresh`
    /// (see [`Tables::update`]; used when the capture took a castling right).
    /// `None` when the target is out of reach.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn remove(
        &self,
        st: &Assign,
        sq: Square,
        color: Color,
        castling: Bitboard,
        refresh: &[(Square, Square, Role)],
        left: i32,
        opp_missing: i32,
    ) -> Option<Assign> {
        if opp_missing < 0 || opp_missing > left {
            return None;
        }
        let m = st.moves.size();
        let n = self.units[ci(color)].len();
        let c = usize::from(st.col_of[sq.to_usize()]);
        if c >= m || m == n {
            // Not a unit of this side, or no spare unit: a target unit loses its
            // only possible supplier.
            return None;
        }
        // One spare row goes with the unit (spare rows are the last ones and all
        // alike): the one it was matched to if spare, else the last.
        let own = st.moves.row_of(c);
        let r = if (n..m).contains(&own) { own } else { m - 1 };
        let mut next = st.clone();
        next.moves.remove(r, c);
        let last = m - 1;
        next.col_of[sq.to_usize()] = NO_COL;
        if c != last {
            next.col_sq[c] = st.col_sq[last];
            next.col_role[c] = st.col_role[last];
            next.col_of[st.col_sq[last].to_usize()] = c as u8;
        }
        if refresh.is_empty() {
            self.check(&next, color, left, opp_missing).then_some(next)
        } else {
            self.update(&next, color, castling, refresh, left, opp_missing)
        }
    }

    /// Whether the moves and captures fit: the optimum within `left`, and the
    /// captures within `opp_missing` (those of the optimal move assignment, or
    /// failing that the fewest of any assignment).
    fn check(&self, st: &Assign, color: Color, left: i32, opp_missing: i32) -> bool {
        if st.moves.value() > left {
            return false;
        }
        let c = ci(color);
        let n = self.units[c].len();
        let m = st.moves.size();
        let pawn_caps = |j: usize| &self.pawn_caps[c][st.col_sq[j].to_usize()];
        let mut caps = 0;
        for j in 0..m {
            let i = st.moves.row_of(j);
            if st.col_role[j] == Role::Pawn && i < n {
                caps += i32::from(pawn_caps(j)[i]);
            }
        }
        if caps <= opp_missing {
            return true;
        }
        let mut fewest = Matching::new(m);
        for j in 0..m {
            for i in 0..m {
                // Pairs impossible for moves are impossible for captures too; only
                // pawns capture on their way to a target unit.
                let x = if st.moves.get(i, j) == NONE {
                    NONE
                } else if st.col_role[j] == Role::Pawn && i < n {
                    pawn_caps(j)[i]
                } else {
                    0
                };
                fewest.set(i, j, x);
            }
        }
        fewest.solve();
        fewest.value() <= opp_missing
    }
}

/// Marks a square without a column in [`Assign::col_of`].
const NO_COL: u8 = u8::MAX;

/// One side's matching at a node: its units (columns) against the target units of
/// that side (the first rows) plus one spare row per unit too many (a unit
/// matched to a spare row is captured later; cost 0). The optimum is maintained
/// incrementally along the search; see [`Matching`].
#[derive(Clone)]
pub(crate) struct Assign {
    /// Moves each unit needs to become each target unit.
    moves: Matching,
    col_sq: [Square; MAX],
    col_role: [Role; MAX],
    col_of: [u8; 64],
}

impl Assign {
    /// Lower bound of the moves this side still needs.
    pub(crate) fn lower_bound(&self) -> i32 {
        self.moves.value()
    }

    fn set_column(&mut self, j: usize, from: Square, to: Square, role: Role, col: &[u8; MAX]) {
        self.moves.replace_column(j, col);
        self.col_of[from.to_usize()] = NO_COL;
        self.col_of[to.to_usize()] = j as u8;
        self.col_sq[j] = to;
        self.col_role[j] = role;
    }
}

#[inline]
fn to_entry(c: i32) -> u8 {
    if c >= INF {
        NONE
    } else {
        c.min(i32::from(NONE) - 1) as u8
    }
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
/// unmoved: pawns never move backwards.
///
/// A piece on its original square whose every first step (king: adjacent squares,
/// which includes castling; bishop, rook, queen: the first square of each ray;
/// knight: its jumps) is occupied by such a permanent unit of its own colour can
/// never have moved; and no other unit of that role can have entered the square
/// (the entries are the same squares, and a promotion cannot land on the own back
/// rank), so it was never captured either.
///
/// A group of pieces (no knights) on their original squares, each of whose
/// adjacent squares holds a permanent unit of its colour or a member of the group,
/// is permanent as a whole: every move of a piece other than a knight goes to or
/// through an adjacent square, so no own piece other than a knight can enter the
/// group's squares from outside; as the target shows all members there at the
/// end, none of them was ever captured, and the first one to move would have
/// needed an empty adjacent square, of which there is none.
///
/// Both rules are applied until nothing changes.
pub(crate) fn frozen_units(board: &Board) -> Bitboard {
    let mut frozen = (board.pawns() & board.white() & Bitboard::from_rank(shakmaty::Rank::Second))
        | (board.pawns() & board.black() & Bitboard::from_rank(shakmaty::Rank::Seventh));
    let initial = Board::new();
    let at_home = |sq: Square| {
        let piece = board.piece_at(sq);
        piece.is_some() && piece == initial.piece_at(sq)
    };
    loop {
        let before = frozen;
        // Single pieces whose first steps are all permanently blocked.
        for (sq, piece) in board.iter() {
            if frozen.contains(sq) || piece.role == Role::Pawn || !at_home(sq) {
                continue;
            }
            let exits = match piece.role {
                Role::Knight => knight_attacks(sq),
                Role::Bishop => bishop_attacks(sq, Bitboard::FULL) & king_attacks(sq),
                Role::Rook => rook_attacks(sq, Bitboard::FULL) & king_attacks(sq),
                Role::Queen | Role::King => king_attacks(sq),
                Role::Pawn => Bitboard::EMPTY,
            };
            if exits.is_subset(frozen & board.by_color(piece.color)) {
                frozen.add(sq);
            }
        }
        // Sealed groups: the largest set closed under the adjacency condition.
        for color in Color::ALL {
            let own = board.by_color(color);
            let mut group = Bitboard::EMPTY;
            for sq in own & !board.pawns() & !board.knights() & !frozen {
                if at_home(sq) {
                    group.add(sq);
                }
            }
            loop {
                let mut shrunk = group;
                for sq in group {
                    if !king_attacks(sq).is_subset((frozen & own) | group) {
                        shrunk.discard(sq);
                    }
                }
                if shrunk == group {
                    break;
                }
                group = shrunk;
            }
            frozen |= group;
        }
        if frozen == before {
            return frozen;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frozen_initial_array() {
        let f = frozen_units(&Board::new());
        // All pawns; bishops (pawn-blocked); kings and queens seal each other in;
        // knights jump, and rooks have a knight beside them.
        assert!(f.contains(Square::A2) && f.contains(Square::H7));
        assert!(f.contains(Square::C1) && f.contains(Square::F8));
        assert!(f.contains(Square::E1) && f.contains(Square::D8));
        assert!(!f.contains(Square::B1) && !f.contains(Square::A1));
        // Without the d-pawn the queen and king may leave.
        let f = frozen_units(
            &"rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR"
                .parse()
                .unwrap(),
        );
        assert!(!f.contains(Square::D1) && !f.contains(Square::E1) && !f.contains(Square::C1));
        assert!(f.contains(Square::F1) && f.contains(Square::E8));
        // A rook beside an empty square is free to leave.
        let f = frozen_units(
            &"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/R1BQKBNR"
                .parse()
                .unwrap(),
        );
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
        let rook_h = w
            .iter()
            .find(|u| u.same[Square::H1.to_usize()] == 0)
            .unwrap();
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
