//! Depth-first search forward from the initial array with exact path counting.

use std::{
    borrow::Cow,
    collections::{HashMap, HashSet},
    hash::{BuildHasherDefault, Hasher},
    time::Instant,
};

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, Piece, Position, Role, Square,
    zobrist::Zobrist64,
};

use super::{
    Budget, Target,
    bound::{Assign, Tables, ci},
};

/// Hasher for keys that already are uniformly distributed Zobrist values.
#[derive(Default)]
pub(crate) struct ZobristKeyHasher(u64);

impl Hasher for ZobristKeyHasher {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 ^= v;
    }
    fn write_u32(&mut self, v: u32) {
        self.0 ^= u64::from(v).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type Key = (u64, u32);
type Build = BuildHasherDefault<ZobristKeyHasher>;

/// How often (in nodes) the deadline is checked.
const CLOCK_INTERVAL: u64 = 1024;

/// State of one search for one target and one length.
pub(crate) struct Searcher<'a> {
    tables: &'a Tables,
    target: &'a Target,
    /// Exact number of continuations reaching the target, per (position, plies left).
    /// Only complete subtree counts are stored.
    tt: HashMap<Key, u64, Build>,
    /// Positions (with plies left) proven to lead nowhere, for the first-game search.
    dead: HashSet<Key, Build>,
    /// Expanded nodes.
    pub nodes: u64,
    max_nodes: u64,
    deadline: Option<Instant>,
    max_bytes: Option<u64>,
    /// The budget ran out: counts from now on are lower bounds.
    pub aborted: bool,
    /// Answer only from the table (used after an aborted count).
    tt_only: bool,
}

/// Up to four unit changes `(from, to, role)` of one move, without allocating.
struct Changes {
    items: [(Square, Square, Role); 4],
    len: usize,
}

impl Default for Changes {
    fn default() -> Self {
        Changes {
            items: [(Square::A1, Square::A1, Role::Pawn); 4],
            len: 0,
        }
    }
}

impl Changes {
    fn push(&mut self, change: (Square, Square, Role)) {
        if self.len < self.items.len() {
            self.items[self.len] = change;
            self.len += 1;
        }
    }

    fn as_slice(&self) -> &[(Square, Square, Role)] {
        &self.items[..self.len]
    }
}

/// The square of the unit `m` captures, if any.
fn captured_square(m: Move) -> Option<Square> {
    match m {
        Move::Normal {
            capture: Some(_),
            to,
            ..
        } => Some(to),
        Move::EnPassant { from, to } => Some(Square::from_coords(to.file(), from.rank())),
        _ => None,
    }
}

/// A position reached by the search with both sides' matchings (see
/// [`Assign`]).
///
/// A child shares the matching of the side that did not move with its parent.
pub(crate) struct Node<'a> {
    pub pos: Chess,
    pub st: [Cow<'a, Assign>; 2],
}

/// Moves `color` has left when `rem` plies remain and `turn` is to move.
#[inline]
fn moves_left(color: Color, turn: Color, rem: u32) -> i32 {
    (if color == turn {
        rem.div_ceil(2)
    } else {
        rem / 2
    }) as i32
}

impl<'a> Searcher<'a> {
    pub(crate) fn new(tables: &'a Tables, target: &'a Target, budget: &Budget) -> Self {
        Searcher {
            tables,
            target,
            tt: HashMap::default(),
            dead: HashSet::default(),
            nodes: 0,
            max_nodes: budget.max_nodes,
            deadline: budget.deadline,
            max_bytes: budget.max_bytes,
            aborted: false,
            tt_only: false,
        }
    }

    /// Moves `color` has left and captures it still makes, at `pos` with `rem`
    /// plies left.
    fn budget_of(&self, pos: &Chess, color: Color, rem: u32) -> (i32, i32) {
        let opp = !color;
        let opp_missing =
            pos.board().by_color(opp).count() as i32 - self.tables.counts[ci(opp)] as i32;
        (moves_left(color, pos.turn(), rem), opp_missing)
    }

    /// The matching of `color` at `pos` from scratch, `None` if the target is out
    /// of reach for that side.
    fn assign(&self, pos: &Chess, color: Color, rem: u32) -> Option<Assign> {
        let (left, opp_missing) = self.budget_of(pos, color, rem);
        self.tables.assign(
            pos.board(),
            pos.castles().castling_rights(),
            color,
            left,
            opp_missing,
        )
    }

    /// Castling rights the target keeps must still be there: once lost, a right
    /// never comes back.
    fn castling_ok(&self, pos: &Chess) -> bool {
        self.target
            .castling
            .is_none_or(|cr| cr.is_subset(pos.castles().castling_rights()))
    }

    /// The initial array as a node, if the target is within reach in `rem` plies.
    pub(crate) fn root(&self, rem: u32) -> Option<Node<'static>> {
        let pos = Chess::default();
        if !self.castling_ok(&pos) {
            return None;
        }
        let st = [
            Cow::Owned(self.assign(&pos, Color::White, rem)?),
            Cow::Owned(self.assign(&pos, Color::Black, rem)?),
        ];
        Some(Node { pos, st })
    }

    /// Fewest plies a game reaching the target can have by the bounds, given that
    /// it has at most `max_plies` (`None` if none is within reach).
    pub(crate) fn min_plies(&self, max_plies: u32) -> Option<u32> {
        let root = self.root(max_plies)?;
        let white = root.st[ci(Color::White)].lower_bound().max(0) as u32;
        let black = root.st[ci(Color::Black)].lower_bound().max(0) as u32;
        // White makes ceil(plies / 2) moves, Black floor(plies / 2).
        Some((2 * white).saturating_sub(1).max(2 * black))
    }

    /// Plays `m` (leaving `rem` plies) and returns the new node unless a necessary
    /// condition fails. Only the mover's matching can change, and the opponent's
    /// after a capture: nothing else touches the other side's units, castling
    /// rights, moves left or captures to make.
    pub(crate) fn child<'n>(&self, node: &'n Node<'_>, m: Move, rem: u32) -> Option<Node<'n>> {
        let mover = node.pos.turn();
        let opp = !mover;
        if self.refuted_before_playing(node, m, rem) {
            return None;
        }
        let mut pos = node.pos.clone();
        pos.play_unchecked(m);
        if !self.castling_ok(&pos) {
            return None;
        }
        let rights_before = node.pos.castles().castling_rights();
        let rights = pos.castles().castling_rights();
        let lost = rights_before & !rights;
        let board = pos.board();

        // The mover: the units that moved, then the castling partners whose costs
        // changed with a lost right (the king, and rooks that stayed).
        let mut changes = Changes::default();
        match m {
            Move::Normal {
                from,
                to,
                role,
                promotion,
                ..
            } => changes.push((from, to, promotion.unwrap_or(role))),
            Move::EnPassant { from, to } => changes.push((from, to, Role::Pawn)),
            Move::Castle { king, rook } => {
                let side = if rook.file() > king.file() {
                    CastlingSide::KingSide
                } else {
                    CastlingSide::QueenSide
                };
                changes.push((king, side.king_to(mover), Role::King));
                changes.push((rook, side.rook_to(mover), Role::Rook));
            }
            Move::Put { .. } => return None,
        }
        let mover_lost = lost & Bitboard::from_rank(mover.backrank());
        if mover_lost.any() {
            for r in mover_lost {
                if board
                    .by_piece(Piece {
                        color: mover,
                        role: Role::Rook,
                    })
                    .contains(r)
                    && changes.as_slice().iter().all(|c| c.1 != r)
                {
                    changes.push((r, r, Role::Rook));
                }
            }
            if let Some(k) = board.king_of(mover)
                && changes.as_slice().iter().all(|c| c.1 != k)
            {
                changes.push((k, k, Role::King));
            }
        }
        let (left, opp_missing) = self.budget_of(&pos, mover, rem);
        let mover_st = Cow::Owned(self.tables.update(
            &node.st[ci(mover)],
            mover,
            rights,
            changes.as_slice(),
            left,
            opp_missing,
        )?);

        // The opponent, after a capture (which may have taken a castling right:
        // then its king's costs change).
        let opp_st = if let Some(captured) = captured_square(m) {
            let (left, opp_missing) = self.budget_of(&pos, opp, rem);
            let mut refresh = Changes::default();
            if (lost & Bitboard::from_rank(opp.backrank())).any()
                && let Some(k) = board.king_of(opp)
            {
                refresh.push((k, k, Role::King));
            }
            Cow::Owned(self.tables.remove(
                &node.st[ci(opp)],
                captured,
                opp,
                rights,
                refresh.as_slice(),
                left,
                opp_missing,
            )?)
        } else {
            Cow::Borrowed(&*node.st[ci(opp)])
        };
        let st = if mover == Color::White {
            [mover_st, opp_st]
        } else {
            [opp_st, mover_st]
        };
        Some(Node { pos, st })
    }

    /// The cheap refutation of [`Tables::refutes`] for a move of one unit that
    /// keeps the mover's castling rights, before the move is played (`rem` plies
    /// left after it).
    fn refuted_before_playing(&self, node: &Node<'_>, m: Move, rem: u32) -> bool {
        let mover = node.pos.turn();
        let rights = node.pos.castles().castling_rights();
        let own_rights = rights & Bitboard::from_rank(mover.backrank());
        let (from, to, role, captures) = match m {
            Move::Normal {
                role,
                from,
                capture,
                to,
                promotion,
            } => (from, to, promotion.unwrap_or(role), capture.is_some()),
            Move::EnPassant { from, to } => (from, to, Role::Pawn, true),
            Move::Castle { .. } | Move::Put { .. } => return false,
        };
        if (m.role() == Role::King && own_rights.any()) || own_rights.contains(from) {
            return false;
        }
        let opp = !mover;
        let opp_missing = node.pos.board().by_color(opp).count() as i32
            - self.tables.counts[ci(opp)] as i32
            - i32::from(captures);
        // After the move the opponent is to move: the mover has rem / 2 moves left.
        let left = moves_left(mover, opp, rem);
        self.tables.refutes(
            &node.st[ci(mover)],
            mover,
            rights,
            (from, to, role),
            left,
            opp_missing,
        )
    }

    /// Whether `pos` is the target (placement, side to move, castling, e.p.).
    pub(crate) fn is_goal(&self, pos: &Chess) -> bool {
        let t = self.target;
        if pos.board() != &t.board || pos.turn() != t.turn {
            return false;
        }
        if let Some(cr) = t.castling
            && pos.castles().castling_rights() != cr
        {
            return false;
        }
        match t.ep_square {
            None => true,
            Some(None) => pos.ep_square(EnPassantMode::Legal).is_none(),
            Some(Some(sq)) => pos.ep_square(EnPassantMode::Always) == Some(sq),
        }
    }

    fn key(pos: &Chess, rem: u32) -> Key {
        let h: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
        (h.0, rem)
    }

    /// Charges one expanded node; returns false when the budget is exhausted.
    fn charge(&mut self) -> bool {
        if self.aborted {
            return false;
        }
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            self.aborted = true;
            return false;
        }
        if self.nodes.is_multiple_of(CLOCK_INTERVAL)
            && (self.deadline.is_some_and(|d| Instant::now() >= d)
                || self
                    .max_bytes
                    .is_some_and(|max| self.table_bytes() as u64 >= max))
        {
            self.aborted = true;
            return false;
        }
        true
    }

    /// Bytes held by the two tables (entries and one control byte per bucket).
    fn table_bytes(&self) -> usize {
        self.tt.capacity() * (std::mem::size_of::<(Key, u64)>() + 1)
            + self.dead.capacity() * (std::mem::size_of::<Key>() + 1)
    }

    /// Number of games of exactly `rem` plies from `node` reaching the target
    /// (a lower bound once `aborted` is set). `node` must be viable.
    pub(crate) fn count(&mut self, node: &Node, rem: u32) -> u64 {
        if rem == 0 {
            return u64::from(self.is_goal(&node.pos));
        }
        let key = (rem >= 2).then(|| Self::key(&node.pos, rem));
        if let Some(k) = key {
            if let Some(&c) = self.tt.get(&k) {
                return c;
            }
            if self.tt_only {
                return 0;
            }
        }
        if !self.tt_only && !self.charge() {
            return 0;
        }
        let mut total = 0u64;
        if rem == 1 {
            for m in node.pos.legal_moves() {
                let mut pos = node.pos.clone();
                pos.play_unchecked(m);
                total += u64::from(self.is_goal(&pos));
            }
            return total;
        }
        for m in node.pos.legal_moves() {
            let Some(child) = self.child(node, m, rem - 1) else {
                continue;
            };
            total = total.saturating_add(self.count(&child, rem - 1));
            if self.aborted {
                return total;
            }
        }
        if let Some(k) = key {
            self.tt.insert(k, total);
        }
        total
    }

    /// Prepares the collection phase: after a complete count every child count is
    /// a table hit or a one-ply expansion, so the budget is lifted; after an
    /// aborted count, answers come only from what was proven.
    pub(crate) fn start_collect(&mut self) {
        self.tt_only = self.aborted;
        self.max_nodes = u64::MAX;
        self.deadline = None;
        self.max_bytes = None;
    }

    /// Collects up to `limit` games (as move lists appended to `path`) from `node`,
    /// descending only where [`Searcher::count`] is positive.
    pub(crate) fn collect(
        &mut self,
        node: &Node,
        rem: u32,
        path: &mut Vec<Move>,
        out: &mut Vec<Vec<Move>>,
        limit: usize,
    ) {
        if out.len() >= limit {
            return;
        }
        if rem == 0 {
            if self.is_goal(&node.pos) {
                out.push(path.clone());
            }
            return;
        }
        for m in node.pos.legal_moves() {
            let Some(child) = self.child(node, m, rem - 1) else {
                continue;
            };
            if self.count(&child, rem - 1) == 0 {
                continue;
            }
            path.push(m);
            self.collect(&child, rem - 1, path, out, limit);
            path.pop();
            if out.len() >= limit {
                return;
            }
        }
    }

    /// Depth-first search for one game; on success `path` holds it.
    pub(crate) fn find(&mut self, node: &Node, rem: u32, path: &mut Vec<Move>) -> bool {
        if rem == 0 {
            return self.is_goal(&node.pos);
        }
        let key = Self::key(&node.pos, rem);
        if self.dead.contains(&key) || !self.charge() {
            return false;
        }
        for m in node.pos.legal_moves() {
            let Some(child) = self.child(node, m, rem - 1) else {
                continue;
            };
            path.push(m);
            if self.find(&child, rem - 1, path) {
                return true;
            }
            path.pop();
            if self.aborted {
                return false;
            }
        }
        self.dead.insert(key);
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Deterministic pseudo-random numbers.
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self) -> u64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            self.0 >> 33
        }
    }

    /// A random legal game of up to `plies` plies, preferring castling,
    /// promotions, en passant and captures so that every update path is exercised.
    fn random_game(rng: &mut Lcg, plies: u32) -> Vec<Move> {
        let mut pos = Chess::default();
        let mut game = Vec::new();
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let special: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| m.is_castle() || m.is_promotion() || m.is_en_passant())
                .collect();
            let captures: Vec<Move> = moves.iter().copied().filter(|m| m.is_capture()).collect();
            let m = if !special.is_empty() && rng.next().is_multiple_of(2) {
                special[rng.next() as usize % special.len()]
            } else if !captures.is_empty() && rng.next().is_multiple_of(3) {
                captures[rng.next() as usize % captures.len()]
            } else {
                moves[rng.next() as usize % moves.len()]
            };
            pos.play_unchecked(m);
            game.push(m);
        }
        game
    }

    /// Soundness of every pruning rule along real games: walking a game towards
    /// its own final position, no node on the way may be pruned, whatever the
    /// target's optional fields say about that game.
    #[test]
    fn real_games_are_never_pruned() {
        let mut rng = Lcg(2024);
        let mut checked = 0;
        for round in 0..400 {
            let plies = 8 + (round % 60) as u32;
            let game = random_game(&mut rng, plies);
            let mut pos = Chess::default();
            for &m in &game {
                pos.play_unchecked(m);
            }
            let plies = game.len() as u32;
            let mut target = Target::new(pos.board().clone(), pos.turn());
            if round % 2 == 1 {
                target.castling = Some(pos.castles().castling_rights());
                target.ep_square = Some(pos.ep_square(EnPassantMode::Always));
            }
            let Some(tables) = Tables::new(&target.board) else {
                panic!("target of a real game rejected: {}", target.board);
            };
            let searcher = Searcher::new(&tables, &target, &Budget::UNLIMITED);
            let mut node = searcher
                .root(plies)
                .unwrap_or_else(|| panic!("root pruned for {}", target.board));
            for (k, &m) in game.iter().enumerate() {
                let rem = plies - k as u32 - 1;
                node = match searcher.child(&node, m, rem) {
                    Some(child) => Node {
                        pos: child.pos,
                        st: [
                            Cow::Owned(child.st[0].clone().into_owned()),
                            Cow::Owned(child.st[1].clone().into_owned()),
                        ],
                    },
                    None => panic!(
                        "pruned after {} plies of {}: {}",
                        k + 1,
                        super::super::san_line(&game),
                        target.board
                    ),
                };
            }
            assert!(searcher.is_goal(&node.pos));
            checked += 1;
        }
        assert_eq!(checked, 400);
    }
}
