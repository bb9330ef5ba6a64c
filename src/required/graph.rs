//! The move graph of one unit and the distances on it.
//!
//! A unit's *state* is its role and its square (a pawn that promotes changes role). Its graph
//! holds, for every state, the squares it may move to: the moves of its role on an empty board,
//! less those that cross or land on a fixed obstacle (a unit that never moves is never captured
//! either, so nothing lands on it). A pawn's move to its last rank turns it into one of the roles
//! it may promote to. Castling is no edge: a king that still may castle has it as an alternative
//! first move (one move to g1 or c1), and the rook that castles starts on its castled square for
//! free (the king pays for the move).
//!
//! Distances are counted in moves of the unit; captures in the pawn's diagonal steps (the only
//! moves that must capture). Every table here is a lower bound over the routes the graph allows.

use shakmaty::{
    Bitboard, CastlingSide, Color, File, Rank, Role, Square,
    attacks::{between, bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks},
};

/// Number of states of a unit: 6 roles × 64 squares.
pub(crate) const STATES: usize = 6 * 64;

/// A distance meaning "unreachable".
pub(crate) const FAR: u8 = u8::MAX;

/// The state index of `role` on `sq`.
#[inline]
pub(crate) fn state(role: Role, sq: Square) -> usize {
    (role as usize - 1) * 64 + sq.to_usize()
}

/// The role of a state.
#[inline]
pub(crate) fn state_role(s: usize) -> Role {
    Role::ALL[s / 64]
}

/// The square of a state.
#[inline]
pub(crate) fn state_square(s: usize) -> Square {
    Square::new((s % 64) as u32)
}

/// A bit per role (`1 << (role - 1)`).
pub(crate) type Roles = u8;

/// The bit of `role` in [`Roles`].
#[inline]
pub(crate) fn role_bit(role: Role) -> Roles {
    1 << (role as u8 - 1)
}

/// The roles a pawn may promote to.
pub(crate) const PROMOTION_ROLES: Roles = 0b0001_1110;

/// A set of states: a bitboard per role.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct States(pub [Bitboard; 6]);

impl States {
    /// The states of the roles `roles` on the squares `squares`.
    pub(crate) fn on(roles: Roles, squares: Bitboard) -> States {
        let mut s = States::default();
        for (i, bb) in s.0.iter_mut().enumerate() {
            if roles & (1 << i) != 0 {
                *bb = squares;
            }
        }
        s
    }

    /// Whether the set holds state `s`.
    #[inline]
    pub(crate) fn contains(&self, s: usize) -> bool {
        self.0[s / 64].contains(Square::new((s % 64) as u32))
    }
}

/// Whether a pawn of `color` on `from` moving to `to` captures (a diagonal step).
#[inline]
pub(crate) fn pawn_captures(from: Square, to: Square) -> bool {
    from.file() != to.file()
}

/// The squares a move from `from` to `to` of a unit in `role` needs empty on its way (not
/// counting `to`): the squares between for a line piece or a pawn's double step.
#[inline]
pub(crate) fn path(role: Role, from: Square, to: Square) -> Bitboard {
    match role {
        Role::Knight | Role::King => Bitboard::EMPTY,
        _ => between(from, to),
    }
}

/// The squares a piece of `role` on `sq` reaches in one move when `blockers` block.
pub(crate) fn piece_steps(role: Role, sq: Square, blockers: Bitboard) -> Bitboard {
    match role {
        Role::Knight => knight_attacks(sq),
        Role::Bishop => bishop_attacks(sq, blockers),
        Role::Rook => rook_attacks(sq, blockers),
        Role::Queen => bishop_attacks(sq, blockers) | rook_attacks(sq, blockers),
        Role::King => king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// The squares a pawn of `color` on `sq` may move to (pushes, the double step from its
/// starting rank, diagonal captures) when `blockers` block.
pub(crate) fn pawn_steps(color: Color, sq: Square, blockers: Bitboard) -> Bitboard {
    let rank = sq.rank();
    if rank == Rank::First || rank == Rank::Eighth {
        return Bitboard::EMPTY;
    }
    let dir: i32 = color.fold_wb(8, -8);
    let one = Square::new((sq.to_u32() as i32 + dir) as u32);
    let mut to = pawn_attacks(color, sq) & !blockers;
    if !blockers.contains(one) {
        to.add(one);
        if rank == color.fold_wb(Rank::Second, Rank::Seventh) {
            let two = Square::new((sq.to_u32() as i32 + 2 * dir) as u32);
            if !blockers.contains(two) {
                to.add(two);
            }
        }
    }
    to
}

/// The king's square before and after castling on `side`, and the rook's.
pub(crate) fn castling_squares(
    color: Color,
    side: CastlingSide,
) -> (Square, Square, Square, Square) {
    let rank = color.backrank();
    let rook_file = match side {
        CastlingSide::KingSide => File::H,
        CastlingSide::QueenSide => File::A,
    };
    (
        Square::from_coords(File::E, rank),
        side.king_to(color),
        Square::from_coords(rook_file, rank),
        side.rook_to(color),
    )
}

/// The squares that must be empty for castling on `side` (between king and rook).
pub(crate) fn castling_path(color: Color, side: CastlingSide) -> Bitboard {
    let (king, _, rook, _) = castling_squares(color, side);
    between(king, rook)
}

/// The move graph of one unit.
#[derive(Clone, Debug)]
pub(crate) struct Graph {
    /// The unit's colour.
    pub color: Color,
    /// Its state at the start.
    pub start: usize,
    /// The roles it may take (its own, and those a pawn may promote to).
    pub roles: Roles,
    /// For every state, the squares it may move to (a pawn reaching its last rank becomes
    /// one of the promotion roles in `roles`).
    pub edges: Box<[Bitboard; STATES]>,
    /// A king: whether it may castle on each side (king side, queen side) as its first move.
    /// A rook: whether it may be the rook of such a castling (then it may start on its
    /// castled square).
    pub castles: [bool; 2],
}

/// Index of a castling side in [`Graph::castles`].
#[inline]
pub(crate) fn side_index(side: CastlingSide) -> usize {
    match side {
        CastlingSide::KingSide => 0,
        CastlingSide::QueenSide => 1,
    }
}

impl Graph {
    /// The graph of a unit of `color` and `role` on `sq` that may become the roles `roles`,
    /// avoiding `obstacles` (squares of units that never move). `castles`: the castling sides
    /// the unit may take part in.
    pub(crate) fn new(
        color: Color,
        role: Role,
        sq: Square,
        roles: Roles,
        obstacles: Bitboard,
        castles: [bool; 2],
    ) -> Graph {
        let mut edges = Box::new([Bitboard::EMPTY; STATES]);
        let last = Bitboard::from_rank(color.fold_wb(Rank::Eighth, Rank::First));
        for r in Role::ALL {
            if roles & role_bit(r) == 0 {
                continue;
            }
            for from in Square::ALL {
                if obstacles.contains(from) && from != sq {
                    continue;
                }
                let to = if r == Role::Pawn {
                    let mut to = pawn_steps(color, from, obstacles);
                    if roles & PROMOTION_ROLES == 0 {
                        to &= !last;
                    }
                    to
                } else {
                    piece_steps(r, from, obstacles)
                };
                edges[state(r, from)] = to & !obstacles;
            }
        }
        // Pawns stand only on ranks 2 to 7.
        let pawn_ranks = !(Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth));
        for from in !pawn_ranks {
            edges[state(Role::Pawn, from)] = Bitboard::EMPTY;
        }
        Graph {
            color,
            start: state(role, sq),
            roles,
            edges,
            castles,
        }
    }

    /// The role the unit has at the start.
    pub(crate) fn start_role(&self) -> Role {
        state_role(self.start)
    }

    /// The states a move from `s` to the square `to` leads to (several for a promotion).
    #[inline]
    pub(crate) fn targets_of(&self, s: usize, to: Square) -> Roles {
        let r = state_role(s);
        if r == Role::Pawn && to.rank() == self.color.fold_wb(Rank::Eighth, Rank::First) {
            self.roles & PROMOTION_ROLES
        } else {
            role_bit(r)
        }
    }

    /// The start states with their costs in moves: the start, and for a king that may castle
    /// its castled squares (one move), for a castling rook its castled square (no move of its
    /// own).
    pub(crate) fn sources(&self) -> Vec<(usize, u8)> {
        let mut out = vec![(self.start, 0u8)];
        let role = self.start_role();
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if !self.castles[side_index(side)] {
                continue;
            }
            let (_, king_to, _, rook_to) = castling_squares(self.color, side);
            match role {
                Role::King => out.push((state(Role::King, king_to), 1)),
                Role::Rook => out.push((state(Role::Rook, rook_to), 0)),
                _ => {}
            }
        }
        out
    }

    /// Fewest moves from the start to every state (`FAR` when unreachable).
    pub(crate) fn moves_from(&self) -> Box<[u8; STATES]> {
        let mut dist = Box::new([FAR; STATES]);
        // Breadth first, level by level; the sources enter at their own levels.
        let mut levels: Vec<Vec<usize>> = vec![Vec::new(); 2];
        for (s, d) in self.sources() {
            levels[usize::from(d)].push(s);
        }
        let mut level = 0;
        while level < levels.len() {
            let current = std::mem::take(&mut levels[level]);
            let mut next = Vec::new();
            for s in current {
                if dist[s] <= level as u8 {
                    continue;
                }
                dist[s] = level as u8;
                for to in self.edges[s] {
                    let roles = self.targets_of(s, to);
                    for r in Role::ALL {
                        if roles & role_bit(r) != 0 {
                            let t = state(r, to);
                            if dist[t] == FAR {
                                next.push(t);
                            }
                        }
                    }
                }
            }
            if !next.is_empty() {
                if levels.len() <= level + 1 {
                    levels.push(Vec::new());
                }
                levels[level + 1].extend(next);
            }
            level += 1;
        }
        dist
    }

    /// Fewest captures (diagonal pawn steps) from the start to every state.
    pub(crate) fn captures_from(&self) -> Box<[u8; STATES]> {
        let mut caps = Box::new([FAR; STATES]);
        let mut deque = std::collections::VecDeque::with_capacity(STATES);
        for (s, _) in self.sources() {
            caps[s] = 0;
            deque.push_back(s);
        }
        while let Some(s) = deque.pop_front() {
            let c = caps[s];
            let pawn = state_role(s) == Role::Pawn;
            let from = state_square(s);
            for to in self.edges[s] {
                let w = u8::from(pawn && pawn_captures(from, to));
                let roles = self.targets_of(s, to);
                for r in Role::ALL {
                    if roles & role_bit(r) != 0 {
                        let t = state(r, to);
                        if c + w < caps[t] {
                            caps[t] = c + w;
                            if w == 0 {
                                deque.push_front(t);
                            } else {
                                deque.push_back(t);
                            }
                        }
                    }
                }
            }
        }
        caps
    }

    /// The reverse graph: for every state, the states that move into it.
    pub(crate) fn reverse(&self) -> Vec<Vec<u16>> {
        let mut rev = vec![Vec::new(); STATES];
        for s in 0..STATES {
            for to in self.edges[s] {
                let roles = self.targets_of(s, to);
                for r in Role::ALL {
                    if roles & role_bit(r) != 0 {
                        rev[state(r, to)].push(s as u16);
                    }
                }
            }
        }
        rev
    }

    /// Fewest moves from every state to one of `goals`, on the reverse graph `rev`.
    pub(crate) fn moves_to(rev: &[Vec<u16>], goals: &States) -> Box<[u8; STATES]> {
        let mut dist = Box::new([FAR; STATES]);
        let mut queue: Vec<usize> = Vec::with_capacity(STATES);
        for (i, bb) in goals.0.iter().enumerate() {
            for sq in *bb {
                let s = i * 64 + sq.to_usize();
                dist[s] = 0;
                queue.push(s);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let t = queue[head];
            head += 1;
            let d = dist[t] + 1;
            for &s in &rev[t] {
                let s = usize::from(s);
                if dist[s] == FAR {
                    dist[s] = d;
                    queue.push(s);
                }
            }
        }
        dist
    }

    /// For every state, the fewest moves beyond `moves` (the fewest to one of `goals`, from
    /// [`Graph::moves_to`]) of a route to the goals of the other parity, on the reverse graph
    /// `rev`: a unit that may take such a route can change the parity of the moves it makes;
    /// `FAR` where no route of the other parity exists (a knight's routes to one square all
    /// have one parity, so have a pawn's without a double step to choose).
    pub(crate) fn parity_flips(
        rev: &[Vec<u16>],
        goals: &States,
        moves: &[u8; STATES],
    ) -> Box<[u8; STATES]> {
        // Fewest moves to the goals by the parity of the route: `2 * state + parity`.
        let mut dist = vec![FAR; 2 * STATES];
        let mut queue: Vec<usize> = Vec::with_capacity(2 * STATES);
        for (i, bb) in goals.0.iter().enumerate() {
            for sq in *bb {
                let s = i * 64 + sq.to_usize();
                dist[2 * s] = 0;
                queue.push(2 * s);
            }
        }
        let mut head = 0;
        while head < queue.len() {
            let t = queue[head];
            head += 1;
            let d = dist[t].saturating_add(1);
            let parity = 1 - t % 2;
            for &s in &rev[t / 2] {
                let at = 2 * usize::from(s) + parity;
                if dist[at] == FAR && d < FAR {
                    dist[at] = d;
                    queue.push(at);
                }
            }
        }
        let mut flips = Box::new([FAR; STATES]);
        for (s, flip) in flips.iter_mut().enumerate() {
            let m = moves[s];
            if m == FAR {
                continue;
            }
            let other = dist[2 * s + 1 - usize::from(m % 2)];
            if other != FAR {
                *flip = other - m;
            }
        }
        flips
    }

    /// Fewest captures from every state to one of `goals`, on the reverse graph `rev`.
    pub(crate) fn captures_to(rev: &[Vec<u16>], goals: &States) -> Box<[u8; STATES]> {
        let mut caps = Box::new([FAR; STATES]);
        let mut deque = std::collections::VecDeque::with_capacity(STATES);
        for (i, bb) in goals.0.iter().enumerate() {
            for sq in *bb {
                let s = i * 64 + sq.to_usize();
                caps[s] = 0;
                deque.push_back(s);
            }
        }
        while let Some(t) = deque.pop_front() {
            let c = caps[t];
            let to = state_square(t);
            for &s in &rev[t] {
                let s = usize::from(s);
                let w = u8::from(state_role(s) == Role::Pawn && pawn_captures(state_square(s), to));
                if c + w < caps[s] {
                    caps[s] = c + w;
                    if w == 0 {
                        deque.push_front(s);
                    } else {
                        deque.push_back(s);
                    }
                }
            }
        }
        caps
    }

    /// The squares the unit may stand on at some time: the squares of the states it can
    /// reach from its start.
    pub(crate) fn stops(&self, from: &[u8; STATES]) -> Bitboard {
        let mut bb = Bitboard::EMPTY;
        for (s, &d) in from.iter().enumerate() {
            if d != FAR {
                bb.add(state_square(s));
            }
        }
        bb
    }

    /// Drops the castling sides for which `blocked(squares that must be empty or reached)` holds.
    pub(crate) fn block_castling(&mut self, blocked: impl Fn(Bitboard) -> bool) -> bool {
        let mut changed = false;
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let i = side_index(side);
            if !self.castles[i] {
                continue;
            }
            let (_, king_to, _, rook_to) = castling_squares(self.color, side);
            let need = castling_path(self.color, side).with(king_to).with(rook_to);
            if blocked(need) {
                self.castles[i] = false;
                changed = true;
            }
        }
        changed
    }

    /// Number of edges (for reports and tests).
    #[cfg(test)]
    pub(crate) fn edge_count(&self) -> usize {
        self.edges.iter().map(|b| b.count()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn knight_distances_on_empty_board() {
        let g = Graph::new(
            Color::White,
            Role::Knight,
            Square::B1,
            role_bit(Role::Knight),
            Bitboard::EMPTY,
            [false; 2],
        );
        let d = g.moves_from();
        assert_eq!(d[state(Role::Knight, Square::B1)], 0);
        assert_eq!(d[state(Role::Knight, Square::C3)], 1);
        assert_eq!(d[state(Role::Knight, Square::B3)], 2);
        let rev = g.reverse();
        let to = Graph::moves_to(
            &rev,
            &States::on(role_bit(Role::Knight), Bitboard::from_square(Square::E4)),
        );
        assert_eq!(to[state(Role::Knight, Square::B1)], 2);
    }

    #[test]
    fn parity_flips_of_knight_rook_and_pawn() {
        let flips = |role: Role, from: Square, to: Square| {
            let g = Graph::new(
                Color::White,
                role,
                from,
                role_bit(role)
                    | if role == Role::Pawn {
                        PROMOTION_ROLES
                    } else {
                        0
                    },
                Bitboard::EMPTY,
                [false; 2],
            );
            let rev = g.reverse();
            let goals = States::on(role_bit(role), Bitboard::from_square(to));
            let moves = Graph::moves_to(&rev, &goals);
            Graph::parity_flips(&rev, &goals, &moves)[state(role, from)]
        };
        // A knight's routes between two squares all have one parity.
        assert_eq!(flips(Role::Knight, Square::B1, Square::E4), FAR);
        // A rook goes a1-a5 in one move or in two (a1-a3-a5).
        assert_eq!(flips(Role::Rook, Square::A1, Square::A5), 1);
        // A pawn on its start square chooses between the double step and two single steps;
        // once off it, its route has one length.
        assert_eq!(flips(Role::Pawn, Square::E2, Square::E4), 1);
        assert_eq!(flips(Role::Pawn, Square::E3, Square::E5), FAR);
    }

    #[test]
    fn pawn_routes_and_promotion() {
        let g = Graph::new(
            Color::White,
            Role::Pawn,
            Square::E2,
            role_bit(Role::Pawn) | PROMOTION_ROLES,
            Bitboard::EMPTY,
            [false; 2],
        );
        let d = g.moves_from();
        let c = g.captures_from();
        assert_eq!(d[state(Role::Pawn, Square::E4)], 1);
        assert_eq!(d[state(Role::Pawn, Square::D4)], 2);
        assert_eq!(c[state(Role::Pawn, Square::D4)], 1);
        assert_eq!(d[state(Role::Queen, Square::E8)], 5);
        assert_eq!(d[state(Role::Pawn, Square::E8)], FAR);
        // Promoted on e8 without a capture, the knight goes on without capturing.
        assert_eq!(c[state(Role::Knight, Square::G8)], 0);
        assert_eq!(c[state(Role::Pawn, Square::G7)], 2);
        assert_eq!(d[state(Role::Knight, Square::F6)], 6);
        // A black pawn promotes on the first rank.
        let b = Graph::new(
            Color::Black,
            Role::Pawn,
            Square::A7,
            role_bit(Role::Pawn) | PROMOTION_ROLES,
            Bitboard::EMPTY,
            [false; 2],
        );
        let d = b.moves_from();
        assert_eq!(d[state(Role::Rook, Square::A1)], 5);
        assert_eq!(d[state(Role::Rook, Square::H1)], 6);
    }

    #[test]
    fn obstacles_block_lines_and_pushes() {
        let obstacles = Bitboard::from_square(Square::E3) | Square::D2 | Square::F2;
        let bishop = Graph::new(
            Color::White,
            Role::Bishop,
            Square::F1,
            role_bit(Role::Bishop),
            obstacles,
            [false; 2],
        );
        let d = bishop.moves_from();
        // e2 is free: the bishop reaches d3 and a6 in one move.
        assert_eq!(d[state(Role::Bishop, Square::E2)], 1);
        assert_eq!(d[state(Role::Bishop, Square::D3)], 1);
        assert_eq!(d[state(Role::Bishop, Square::A6)], 1);
        // f2 and e3 are obstacles: nothing passes through them.
        assert_eq!(d[state(Role::Bishop, Square::F2)], FAR);
        assert_eq!(d[state(Role::Bishop, Square::G2)], 1);
        assert_eq!(d[state(Role::Bishop, Square::H3)], 1);
        // From g2 on: h1, then f3 through g2 again.
        assert_eq!(d[state(Role::Bishop, Square::H1)], 2);
        let pawn = Graph::new(
            Color::White,
            Role::Pawn,
            Square::E2,
            role_bit(Role::Pawn),
            obstacles,
            [false; 2],
        );
        let d = pawn.moves_from();
        // No push past e3: e4 only by two captures (exd3, dxe4).
        assert_eq!(d[state(Role::Pawn, Square::E4)], 2);
        assert_eq!(pawn.captures_from()[state(Role::Pawn, Square::E4)], 2);
        assert_eq!(d[state(Role::Pawn, Square::D3)], 1);
    }

    #[test]
    fn castling_sources() {
        let king = Graph::new(
            Color::White,
            Role::King,
            Square::E1,
            role_bit(Role::King),
            Bitboard::EMPTY,
            [true, false],
        );
        let d = king.moves_from();
        assert_eq!(d[state(Role::King, Square::G1)], 1);
        assert_eq!(d[state(Role::King, Square::H2)], 2);
        let rook = Graph::new(
            Color::White,
            Role::Rook,
            Square::H1,
            role_bit(Role::Rook),
            Bitboard::EMPTY,
            [true, false],
        );
        let d = rook.moves_from();
        assert_eq!(d[state(Role::Rook, Square::F1)], 0);
        assert_eq!(d[state(Role::Rook, Square::F5)], 1);
    }

    /// Distances on the graph agree with a brute-force relaxation, for every role and many
    /// obstacle sets.
    #[test]
    fn moves_to_agrees_with_relaxation() {
        let mut seed = 99u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            seed >> 33
        };
        for round in 0..60 {
            let mut obstacles = Bitboard::EMPTY;
            for _ in 0..(round % 12) {
                obstacles.add(Square::new((next() % 64) as u32));
            }
            let color = if round % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let role = Role::ALL[round % 6];
            let sq = Square::new((next() % 64) as u32);
            let roles = if role == Role::Pawn {
                role_bit(Role::Pawn) | PROMOTION_ROLES
            } else {
                role_bit(role)
            };
            obstacles.discard(sq);
            let g = Graph::new(color, role, sq, roles, obstacles, [false; 2]);
            let goal_sq = Square::new((next() % 64) as u32);
            let goals = States::on(roles, Bitboard::from_square(goal_sq));
            let fast = Graph::moves_to(&g.reverse(), &goals);
            // Relaxation to a fixed point.
            let mut slow = [FAR; STATES];
            for (s, x) in slow.iter_mut().enumerate() {
                if goals.contains(s) {
                    *x = 0;
                }
            }
            loop {
                let mut changed = false;
                for (s, edges) in g.edges.iter().enumerate() {
                    for to in *edges {
                        let rs = g.targets_of(s, to);
                        for r in Role::ALL {
                            if rs & role_bit(r) != 0 {
                                let t = state(r, to);
                                if slow[t] != FAR && slow[t] + 1 < slow[s] {
                                    slow[s] = slow[t] + 1;
                                    changed = true;
                                }
                            }
                        }
                    }
                }
                if !changed {
                    break;
                }
            }
            assert_eq!(&fast[..], &slow[..], "{role:?} {sq} {goal_sq}");
        }
    }
}
