//! Depth-first search forward from the initial array with exact path counting.
//!
//! Every unit keeps its identity along the search (the unit of the initial array it is), so
//! that each move can be checked against the analysis of [`crate::required`]: the move must lie
//! on the unit's narrowed graph, a captured unit must be one that may be captured there, and
//! each side's assignment of its units to the target's units and to the captures it suffers,
//! kept optimal along the way, must fit in the moves the side has left.

use std::{
    cell::RefCell,
    collections::{HashMap, HashSet},
    hash::{BuildHasherDefault, Hasher},
    rc::Rc,
    time::Instant,
};

use shakmaty::{
    Bitboard, CastlingSide, Chess, Color, EnPassantMode, Move, Position, Role, Square,
    zobrist::Zobrist64,
};

use super::{Budget, Target};
use crate::fast_hash::FastMap;
use crate::required::{
    analysis::{Analysis, SlotKind},
    graph::{FAR, Graph, STATES, path, role_bit, state, state_role, state_square},
    matching::MAX,
    tracker::{Place, SideTrack},
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

/// A unit that is not fixed, with the distance tables of the fates it may still take (at most
/// [`MAX_TABLES`] distinct ones): its column in its side's assignment counts, for each fate,
/// the distance of that fate's table.
#[derive(Clone, Copy, Debug)]
struct Forced {
    /// Its distance table to its goals when all its fates share one (index in the unit's
    /// tables), else the first of `tables`.
    table: usize,
    /// Its distinct tables (the first `n`).
    tables: [u8; MAX_TABLES],
    n: usize,
    /// When its only fate is one target: the target's square and role.
    target: Option<(Square, Role)>,
}

/// Most distinct distance tables of a unit whose detours are counted.
const MAX_TABLES: usize = 8;

/// How often (in nodes) the deadline is checked.
const CLOCK_INTERVAL: u64 = 1024;

/// No unit on a square.
const EMPTY: u8 = u8::MAX;

/// Index of a colour.
#[inline]
fn ci(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

/// State of one search for one target and one length.
pub(crate) struct Searcher<'a> {
    analysis: &'a Analysis,
    target: &'a Target,
    /// The unit that starts on each square (the initial array).
    start_unit: [u8; 64],
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
    /// The units of each colour that are in one of its pairs (bit per unit).
    pair_units: [u64; 2],
    /// Whether each colour's pawns need no capture on any route they may take (their
    /// captures then always fit).
    no_pawn_captures: [bool; 2],
    /// Each unit's costs in each state for the slots of its colour
    /// ([`Analysis::slot_costs`], at `unit * STATES + state`), computed once: a move reads
    /// its unit's new column from here instead of from the distance tables.
    slot_costs: Vec<[u8; MAX]>,
    /// Which entries of `slot_costs` are computed.
    costs_known: Vec<bool>,
    /// The units that are not fixed, with their fates' tables (see [`Forced`]), by unit; and
    /// the same as bits. Such a unit whose only fate is one target, that stands on it and will
    /// never move again (a pawn always, a piece when its side has fewer than two moves to
    /// spare) is an obstacle for every other unit from then on (see
    /// [`Searcher::frozen_squares`]).
    forced: Vec<Option<Forced>>,
    forced_units: u64,
    /// Each colour's units, as bits.
    color_units: [u64; 2],
    /// Detours of units around obstacles, by (the
    /// obstacles, `unit * STATES + state`): see [`Searcher::detour`].
    detours: RefCell<FastMap<(u64, u32), u8>>,
    /// For each unit and each of its distance tables, the extra moves from each state that
    /// change the parity of its route to the table's goals ([`Graph::parity_flips`]); empty for
    /// fixed units.
    flips: Vec<Vec<[u8; STATES]>>,
}

/// Which table [`Searcher::step`] looks the position after the move up in.
#[derive(Clone, Copy)]
enum Probe {
    /// The counts of [`Searcher::count`].
    Counts,
    /// The dead positions of [`Searcher::find`] (a known one counts 0).
    Dead,
}

/// What [`Searcher::step`] gives for a move that is not pruned. (Boxing the node would cost an
/// allocation per child; the value lives on the stack for one call.)
#[allow(clippy::large_enum_variant)]
enum Step {
    /// The node after the move, with its key when it was looked up and not found.
    Node(Node, Option<Key>),
    /// The number of continuations from the position after the move, found in a table.
    Known(u64),
}

/// A position reached by the search: the units' identities and both sides' assignments.
///
/// A child shares the assignment of the side that did not move (and lost nothing) with its
/// parent (the assignments are behind reference counts, so that a node stays small to move).
pub(crate) struct Node {
    pub pos: Chess,
    /// The unit (index in the analysed problem) on each square.
    pub ids: [u8; 64],
    /// The square of each unit (meaningless for captured units).
    pub squares: [u8; 32],
    pub st: [Rc<SideTrack>; 2],
    /// Each colour's surplus of its pairs of units that obstruct each other (see
    /// [`crate::required::pairs::surplus_beyond`]) at this node.
    pub surplus: [u32; 2],
    /// The squares of the units that never move again (see [`Searcher::frozen_squares`]).
    pub frozen: Bitboard,
    /// Each colour's moves to spare by the bounds without detours (moves left less its
    /// assignment's cost and its pairs' surplus).
    pub spare: [i32; 2],
    /// Each unit's detour around them (see [`Searcher::detour`]), and their sum per colour.
    pub detour: [u8; 32],
    pub detours: [u32; 2],
    /// Each colour's pair surplus beyond the detours of the pairs' units (see
    /// [`Searcher::detours_fit`]); `u32::MAX` when not known (recomputed when needed).
    pub beyond: [u32; 2],
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

/// The castling side of a castling move from `king` with the rook on `rook`.
fn castling_side(king: Square, rook: Square) -> CastlingSide {
    if rook.file() > king.file() {
        CastlingSide::KingSide
    } else {
        CastlingSide::QueenSide
    }
}

impl<'a> Searcher<'a> {
    pub(crate) fn new(analysis: &'a Analysis, target: &'a Target, budget: &Budget) -> Self {
        let mut start_unit = [EMPTY; 64];
        for (i, u) in analysis.problem().units.iter().enumerate() {
            start_unit[u.square.to_usize()] = i as u8;
        }
        let mut pair_units = [0u64; 2];
        for color in Color::ALL {
            for p in &analysis.pairs[color] {
                for u in p.units {
                    pair_units[ci(color)] |= 1 << u;
                }
            }
        }
        let n_units = analysis.problem().units.len();
        // Only the states a unit can reach from its start on its graph (the others are never
        // asked for; `column` computes any that is missing).
        let mut slot_costs = vec![[u8::MAX; MAX]; n_units * STATES];
        let mut costs_known = vec![false; n_units * STATES];
        for (unit, d) in analysis.units.iter().enumerate() {
            if d.fixed {
                continue;
            }
            for s in 0..STATES {
                if d.from[s] != FAR {
                    slot_costs[unit * STATES + s] = analysis.slot_costs(unit, s);
                    costs_known[unit * STATES + s] = true;
                }
            }
        }
        let mut forced = vec![None; n_units];
        let mut forced_units = 0u64;
        for (unit, f) in forced.iter_mut().enumerate() {
            let d = &analysis.units[unit];
            if d.fixed {
                continue;
            }
            let slots = &analysis.slots[d.unit.piece.color];
            let mut table = None;
            let mut uniform = true;
            let mut target = None;
            let mut all_targets = true;
            let mut tables = [0u8; MAX_TABLES];
            let mut n = 0;
            for (slot, t) in d.slot_table.iter().enumerate() {
                if let Some(t) = *t
                    && d.feasible[slot]
                {
                    uniform &= table.is_none_or(|x| x == t);
                    table = Some(t);
                    if !tables[..n.min(MAX_TABLES)].contains(&(t as u8)) {
                        if n < MAX_TABLES {
                            tables[n] = t as u8;
                        }
                        n += 1;
                    }
                    match slots[slot].kind {
                        SlotKind::Target(k) => {
                            let tg = analysis.problem().targets[k];
                            target = Some((tg.square, tg.piece.role));
                        }
                        _ => all_targets = false,
                    }
                }
            }
            if let Some(table) = table
                && n <= MAX_TABLES
                && d.tables.len() < usize::from(u8::MAX)
            {
                *f = Some(Forced {
                    table,
                    tables,
                    n,
                    target: target.filter(|_| all_targets && uniform),
                });
                forced_units |= 1 << unit;
            }
        }
        let flips = analysis
            .units
            .iter()
            .map(|d| {
                if d.fixed {
                    return Vec::new();
                }
                let rev = d.graph.reverse();
                d.tables
                    .iter()
                    .map(|t| *Graph::parity_flips(&rev, &t.goals, &t.moves))
                    .collect()
            })
            .collect();
        let mut color_units = [0u64; 2];
        for (unit, u) in analysis.problem().units.iter().enumerate() {
            color_units[ci(u.piece.color)] |= 1 << unit;
        }
        Searcher {
            color_units,
            slot_costs,
            costs_known,
            forced,
            forced_units,
            detours: RefCell::default(),
            flips,
            analysis,
            target,
            start_unit,
            tt: HashMap::default(),
            dead: HashSet::default(),
            nodes: 0,
            max_nodes: budget.max_nodes,
            deadline: budget.deadline,
            max_bytes: budget.max_bytes,
            aborted: false,
            tt_only: false,
            pair_units,
            no_pawn_captures: [
                analysis.pawns_never_capture(Color::White),
                analysis.pawns_never_capture(Color::Black),
            ],
        }
    }

    /// Castling rights the target keeps must still be there: once lost, a right
    /// never comes back.
    fn castling_ok(&self, pos: &Chess) -> bool {
        self.target
            .castling
            .is_none_or(|cr| cr.is_subset(pos.castles().castling_rights()))
    }

    /// The initial array as a node, if the target is within reach in `rem` plies.
    pub(crate) fn root(&self, rem: u32) -> Option<Node> {
        let pos = Chess::default();
        if !self.castling_ok(&pos) {
            return None;
        }
        let st = [
            self.analysis.start_track(Color::White),
            self.analysis.start_track(Color::Black),
        ];
        for color in Color::ALL {
            let left = moves_left(color, Color::White, rem);
            // Each unit of the other side still to be captured takes one move of this side.
            if st[ci(color)].value() > left || self.analysis.capture_rows(&st[ci(!color)]) > left {
                return None;
            }
        }
        let [w, b] = st;
        let mut squares = [0u8; 32];
        for (sq, &u) in self.start_unit.iter().enumerate() {
            if u != EMPTY {
                squares[usize::from(u)] = sq as u8;
            }
        }
        let mut node = Node {
            pos,
            ids: self.start_unit,
            squares,
            st: [Rc::new(w), Rc::new(b)],
            surplus: [0; 2],
            frozen: Bitboard::EMPTY,
            spare: [0; 2],
            detour: [0; 32],
            detours: [0; 2],
            beyond: [u32::MAX; 2],
        };
        for color in Color::ALL {
            let surplus = self.pair_surplus(&node, color);
            node.surplus[ci(color)] = surplus;
            let bound = node.st[ci(color)].value() + surplus as i32;
            if bound > moves_left(color, Color::White, rem) {
                return None;
            }
            node.spare[ci(color)] = moves_left(color, Color::White, rem) - bound;
        }
        node.frozen = self.frozen_squares(&node, node.spare);
        let mut bits = self.forced_units;
        while bits != 0 {
            let u = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            node.detour[u] = self.detour(&node, u);
        }
        for color in Color::ALL {
            if !self.detours_fit(&mut node, color) {
                return None;
            }
        }
        Some(node)
    }

    /// Where each unit of `ids` stands, as a lookup for [`Analysis::captures_fit`].
    fn places(pos: &Chess, ids: &[u8; 64]) -> [Option<Place>; 64] {
        let mut out = [None; 64];
        for sq in pos.board().occupied() {
            let u = ids[sq.to_usize()];
            if u != EMPTY {
                out[usize::from(u)] = pos
                    .board()
                    .role_at(sq)
                    .map(|role| Place { role, square: sq });
            }
        }
        out
    }

    /// The units of `color`'s castling partners whose costs change when the rights `lost`
    /// (rook squares) go: the king, and the rook of each lost corner, at their places.
    fn castling_partners(
        &self,
        pos: &Chess,
        ids: &[u8; 64],
        color: Color,
        lost: Bitboard,
    ) -> Vec<(usize, Place)> {
        let mut out = Vec::new();
        let own = lost & Bitboard::from_rank(color.backrank());
        if own.is_empty() {
            return out;
        }
        let board = pos.board();
        let king_start = Square::from_coords(shakmaty::File::E, color.backrank());
        let mut wanted = vec![self.start_unit[king_start.to_usize()]];
        for corner in own {
            wanted.push(self.start_unit[corner.to_usize()]);
        }
        for sq in board.by_color(color) {
            let u = ids[sq.to_usize()];
            if wanted.contains(&u)
                && let Some(role) = board.role_at(sq)
            {
                out.push((usize::from(u), Place { role, square: sq }));
            }
        }
        out
    }

    /// Plays `m` (leaving `rem` plies) and returns the new node unless a necessary
    /// condition fails.
    /// The column of `unit` standing at `place` for the rows of `track` (castling rights
    /// `castling`): [`Analysis::column`], read from the table of slot costs when the unit has
    /// no castling alternative there.
    #[inline]
    fn column(
        &self,
        track: &SideTrack,
        unit: usize,
        place: Place,
        castling: Bitboard,
    ) -> [u8; MAX] {
        let s = state(place.role, place.square);
        if self.analysis.castles_from(unit, s) {
            return self.analysis.column(track, unit, place, castling);
        }
        let computed;
        let costs = if self.costs_known[unit * STATES + s] {
            &self.slot_costs[unit * STATES + s]
        } else {
            computed = self.analysis.slot_costs(unit, s);
            &computed
        };
        let mut col = [0u8; MAX];
        for (c, &slot) in col.iter_mut().zip(track.row_slots()) {
            *c = costs[usize::from(slot)];
        }
        col
    }

    /// The node after `m` from `node` with `rem` plies left then, or `None` when the search
    /// prunes it (no game from the initial array through it reaches the target).
    pub(crate) fn child(&self, node: &Node, m: Move, rem: u32) -> Option<Node> {
        match self.step(node, m, rem, None)? {
            Step::Node(child, _) => Some(child),
            Step::Known(_) => None,
        }
    }

    /// [`Searcher::child`], with a look-up of the position after the move in one of the search's
    /// tables as soon as it is played, before the costlier bounds: a position whose count (or
    /// whose deadness) is known needs no node. The look-up may answer for a child the bounds
    /// would prune: its count is then 0, as a pruned node has no continuation that reaches the
    /// target (and the count of a position is the same whatever identities its history gave).
    fn step(&self, node: &Node, m: Move, rem: u32, probe: Option<Probe>) -> Option<Step> {
        let a = self.analysis;
        let mover = node.pos.turn();
        let opp = !mover;
        let (from, to) = match m {
            Move::Normal { from, to, .. } | Move::EnPassant { from, to } => (from, to),
            Move::Castle { king, rook } => (king, rook),
            Move::Put { .. } => return None,
        };
        let unit = node.ids[from.to_usize()];
        if unit == EMPTY {
            return None;
        }
        let unit = usize::from(unit);
        let left = moves_left(mover, opp, rem);
        // The move must be on the unit's graph.
        let mut moved: [(usize, Place); 2] = [(
            unit,
            Place {
                role: m.role(),
                square: to,
            },
        ); 2];
        let mut n_moved = 1;
        let mut victim: Option<(usize, Square)> = None;
        match m {
            Move::Normal {
                role,
                capture,
                promotion,
                ..
            } => {
                if !a.allows(unit, role, from, to) {
                    return None;
                }
                if let Some(p) = promotion {
                    if !a.may_become(unit, p) {
                        return None;
                    }
                    moved[0].1.role = p;
                }
                if capture.is_some() {
                    let v = node.ids[to.to_usize()];
                    if v == EMPTY {
                        return None;
                    }
                    victim = Some((usize::from(v), to));
                }
            }
            Move::EnPassant { .. } => {
                if !a.allows(unit, Role::Pawn, from, to) {
                    return None;
                }
                let sq = Square::from_coords(to.file(), from.rank());
                let v = node.ids[sq.to_usize()];
                if v == EMPTY {
                    return None;
                }
                victim = Some((usize::from(v), sq));
            }
            Move::Castle { king, rook } => {
                let side = castling_side(king, rook);
                let rook_unit = node.ids[rook.to_usize()];
                if rook_unit == EMPTY
                    || !a.may_castle(unit, side)
                    || !a.may_castle(usize::from(rook_unit), side)
                {
                    return None;
                }
                moved[0].1.square = side.king_to(mover);
                moved[1] = (
                    usize::from(rook_unit),
                    Place {
                        role: Role::Rook,
                        square: side.rook_to(mover),
                    },
                );
                n_moved = 2;
            }
            Move::Put { .. } => return None,
        }
        if let Some((v, _)) = victim
            && node.pos.board().role_at(victim_square(victim)) == Some(Role::Pawn)
            && a.pending_captures(&node.st[ci(mover)], v)
        {
            // A pawn with captures still to make cannot be captured.
            return None;
        }
        // The mover's bound after the move, before the position is played: a unit that moved
        // is off its start square, so its column counts no castling (the rights do not
        // matter).
        let early_col = (n_moved == 1).then(|| {
            self.column(
                &node.st[ci(mover)],
                unit,
                moved[0].1,
                node.pos.castles().castling_rights(),
            )
        });
        if let Some(col) = &early_col
            && a.track_move_bound(&node.st[ci(mover)], unit, col) > left
        {
            return None;
        }

        let mut pos = node.pos.clone();
        pos.play_unchecked(m);
        if !self.castling_ok(&pos) {
            return None;
        }
        let mut probed = None;
        if let Some(probe) = probe.filter(|_| rem >= 2) {
            let key = Self::key(&pos, rem);
            let known = match probe {
                Probe::Counts => self.tt.get(&key).copied(),
                Probe::Dead => self.dead.contains(&key).then_some(0),
            };
            if let Some(count) = known {
                return Some(Step::Known(count));
            }
            probed = Some(key);
        }
        let mut ids = node.ids;
        let mut squares = node.squares;
        ids[from.to_usize()] = EMPTY;
        if let Some((_, sq)) = victim {
            ids[sq.to_usize()] = EMPTY;
        }
        if let Move::Castle { rook, .. } = m {
            ids[rook.to_usize()] = EMPTY;
        }
        for &(u, place) in &moved[..n_moved] {
            ids[place.square.to_usize()] = u as u8;
            squares[u] = place.square as u8;
        }
        let rights_before = node.pos.castles().castling_rights();
        let rights = pos.castles().castling_rights();
        let lost = rights_before & !rights;

        // The mover's assignment.
        let col = match early_col {
            Some(col) if !a.castles_from(unit, state(moved[0].1.role, moved[0].1.square)) => col,
            _ => self.column(&node.st[ci(mover)], moved[0].0, moved[0].1, rights),
        };
        let mut mover_st = a.track_move_column(&node.st[ci(mover)], moved[0].0, &col, left)?;
        if n_moved == 2 {
            mover_st = a.track_move(&mover_st, moved[1].0, moved[1].1, rights, left)?;
        }
        if lost.intersects(Bitboard::from_rank(mover.backrank())) {
            let partners = self.castling_partners(&pos, &ids, mover, lost);
            a.track_refresh(&mut mover_st, &partners, rights);
            if mover_st.value() > left {
                return None;
            }
        }

        // The opponent's, after a capture.
        let opp_st = if let Some((v, sq)) = victim {
            let opp_left = moves_left(opp, opp, rem);
            let by_pawn = node.pos.board().role_at(from) == Some(Role::Pawn);
            let mut st = a.track_capture(&node.st[ci(opp)], v, unit, by_pawn, sq, opp_left)?;
            if lost.intersects(Bitboard::from_rank(opp.backrank())) {
                let partners = self.castling_partners(&pos, &ids, opp, lost);
                a.track_refresh(&mut st, &partners, rights);
                if st.value() > opp_left {
                    return None;
                }
            }
            Rc::new(st)
        } else {
            Rc::clone(&node.st[ci(opp)])
        };
        // Each unit of the other side still to be captured takes one move of the mover.
        if a.capture_rows(&opp_st) > left {
            return None;
        }
        // A pawn makes the captures it needs before it promotes (this move's included).
        if matches!(
            m,
            Move::Normal {
                promotion: Some(_),
                ..
            }
        ) && a.pending_captures(&opp_st, unit)
        {
            return None;
        }

        // The captures the pawns need must fit in the units the other side still loses.
        // (Pawns that need no capture on any route always fit.)
        let pawn_moved = m.role() == Role::Pawn;
        let check_mover = (pawn_moved || victim.is_some()) && !self.no_pawn_captures[ci(mover)];
        let check_opp = victim.is_some() && !self.no_pawn_captures[ci(opp)];
        if check_mover || check_opp {
            let places = Self::places(&pos, &ids);
            let lookup = |u: usize| places[u].expect("a live unit has a place");
            if check_mover && !a.captures_fit(&mover_st, &lookup, a.capture_rows(&opp_st)) {
                return None;
            }
            if check_opp && !a.captures_fit(&opp_st, &lookup, a.capture_rows(&mover_st)) {
                return None;
            }
        }

        let mover_st = Rc::new(mover_st);
        let st = if mover == Color::White {
            [mover_st, opp_st]
        } else {
            [opp_st, mover_st]
        };
        let parent_frozen = node.frozen;
        let parent_spare = node.spare;
        let mut next = Node {
            pos,
            ids,
            squares,
            st,
            surplus: node.surplus,
            frozen: node.frozen,
            spare: node.spare,
            detour: node.detour,
            detours: node.detours,
            beyond: node.beyond,
        };
        let node = &mut next;
        // Units that obstruct each other need more together. A side's surplus changes only
        // when one of its pairs' units moves or castling rights go (captures: recomputed too).
        let touched = moved[..n_moved]
            .iter()
            .any(|&(u, _)| self.pair_units[ci(mover)] & (1 << u) != 0);
        let recompute = !lost.is_empty() || victim.is_some();
        if touched || recompute {
            node.surplus[ci(mover)] = self.pair_surplus(node, mover);
            node.beyond[ci(mover)] = u32::MAX;
        }
        if recompute {
            node.surplus[ci(opp)] = self.pair_surplus(node, opp);
            node.beyond[ci(opp)] = u32::MAX;
        }
        let parent_detour = node.detour;
        if node.st[ci(mover)].value() + node.surplus[ci(mover)] as i32 > left {
            return None;
        }

        // Units that never move again are obstacles: the others' routes around them.
        if self.forced_units != 0 {
            let opp_left = moves_left(opp, opp, rem);
            let mut spare = [0i32; 2];
            spare[ci(mover)] = left - node.st[ci(mover)].value() - node.surplus[ci(mover)] as i32;
            spare[ci(opp)] = opp_left - node.st[ci(opp)].value() - node.surplus[ci(opp)] as i32;
            node.spare = spare;
            let tight = |sp: [i32; 2]| [sp[0] < 2, sp[1] < 2];
            node.frozen = if victim.is_some() || tight(spare) != tight(parent_spare) {
                self.frozen_squares(node, spare)
            } else {
                // Only the units that moved can have come to (or left) their targets.
                let mut frozen = parent_frozen;
                frozen.discard(from);
                if let Move::Castle { rook, .. } = m {
                    frozen.discard(rook);
                }
                for &(u, place) in &moved[..n_moved] {
                    if self.freezes(node, u, spare) {
                        frozen.add(place.square);
                    }
                }
                frozen
            };
            if let Some((v, _)) = victim {
                node.detour[v] = 0;
            }
            if node.frozen.is_empty() {
                // No obstacles: no detours counted.
                node.detour = [0; 32];
            } else if node.frozen == parent_frozen {
                for &(u, _) in &moved[..n_moved] {
                    node.detour[u] = self.detour(node, u);
                }
            } else {
                let mut bits = self.forced_units;
                while bits != 0 {
                    let u = bits.trailing_zeros() as usize;
                    bits &= bits - 1;
                    node.detour[u] = self.detour(node, u);
                }
            }
            for color in [mover, opp] {
                let mut pairs = self.pair_units[ci(color)];
                let mut changed = false;
                while pairs != 0 && !changed {
                    let u = pairs.trailing_zeros() as usize;
                    pairs &= pairs - 1;
                    changed = node.detour[u] != parent_detour[u];
                }
                if changed {
                    node.beyond[ci(color)] = u32::MAX;
                }
                if !self.detours_fit(node, color) {
                    return None;
                }
            }
        }
        for color in [mover, opp] {
            let left = moves_left(color, opp, rem);
            let spare = left - next.st[ci(color)].value() - next.surplus[ci(color)] as i32;
            // (With an even `spare` the parities add up whenever the bound is the sum of the
            // units' distances; the check is left to the odd case, where it may fail.)
            if spare % 2 == 1 && !self.parity_fits(&next, color, left, spare) {
                return None;
            }
        }
        Some(Step::Node(next, probed))
    }

    /// Whether `color`'s moves can add up to the `left` it has: every ply of a side is one move
    /// of one of its units (castling, the king's), so the units' moves sum to `left`. A unit
    /// whose every route to each fate it may take has one parity (a knight's to one square, a
    /// pawn's with no double step to choose), the same for all its fates, adds that parity
    /// whatever it does; a unit that may change it within `spare` extra moves (`spare` at least
    /// the side's moves beyond its least need), or may still castle, could make up any
    /// difference. When every unit is of the first kind, their parities must add up to that of
    /// `left`.
    fn parity_fits(&self, node: &Node, color: Color, left: i32, spare: i32) -> bool {
        let a = self.analysis;
        let board = node.pos.board();
        let mut sum = 0u32;
        let mut bits = self.color_units[ci(color)];
        while bits != 0 {
            let u = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let sq = Square::new(u32::from(node.squares[u]));
            if usize::from(node.ids[sq.to_usize()]) != u {
                continue; // captured: no more moves
            }
            let d = &a.units[u];
            if d.fixed {
                continue;
            }
            let Some(role) = board.role_at(sq) else {
                return true;
            };
            let s = state(role, sq);
            if a.castles_from(u, s) {
                return true;
            }
            let mut parities = 0u8;
            for (k, &t) in d.slot_table.iter().enumerate() {
                let Some(t) = t.filter(|_| d.feasible[k]) else {
                    continue;
                };
                let m = d.tables[t].moves[s];
                if m == FAR {
                    continue;
                }
                if i32::from(self.flips[u][t][s]) <= spare {
                    return true;
                }
                parities |= 1 << (m % 2);
            }
            match parities {
                1 => {}
                2 => sum += 1,
                _ => return true,
            }
        }
        (sum % 2) as i32 == left.rem_euclid(2)
    }

    /// Sums `color`'s detours into `node.detours` and checks that they fit in its moves to
    /// spare. The units of a pair may have detours as well as the pair's surplus: then the
    /// side needs its assignment's cost, every detour, and of each pair only the surplus beyond
    /// its two units' detours (for each pair of the greedy choice, `max(surplus, detours)`,
    /// each a lower bound of what the two need beyond their columns).
    fn detours_fit(&self, node: &mut Node, color: Color) -> bool {
        let mut total = 0u32;
        let mut in_pairs = 0u32;
        let mut bits = self.forced_units & self.color_units[ci(color)];
        while bits != 0 {
            let u = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let x = u32::from(node.detour[u]);
            total += x;
            if self.pair_units[ci(color)] & (1 << u) != 0 {
                in_pairs += x;
            }
        }
        node.detours[ci(color)] = total;
        // `spare` counts the pairs' whole surplus: beside it, only the detours of units outside
        // pairs add up.
        let spare = i64::from(node.spare[ci(color)]);
        if i64::from(total - in_pairs) > spare {
            return false;
        }
        if in_pairs == 0 {
            return true;
        }
        // With them: take the pairs' surplus back, add what is left of it once every detour
        // is counted.
        if i64::from(total) - i64::from(node.surplus[ci(color)]) > spare {
            return false;
        }
        if node.beyond[ci(color)] == u32::MAX {
            node.beyond[ci(color)] = self.pair_surplus_beyond(node, color, &|u| node.detour[u]);
        }
        let beyond = node.beyond[ci(color)];
        i64::from(total) + i64::from(beyond) - i64::from(node.surplus[ci(color)]) <= spare
    }

    /// The squares of the units that stand on their only target (every fate they may still have
    /// is that target) and never move again: a pawn
    /// (it cannot come back), or a piece of a side with fewer than two moves to spare (`spare`,
    /// per colour: leaving and coming back takes two) that cannot castle from there and is in
    /// none of its side's pairs (whose surplus may count such a step aside). Such a unit is
    /// never captured either (its only fate is the target).
    fn frozen_squares(&self, node: &Node, spare: [i32; 2]) -> Bitboard {
        let mut frozen = Bitboard::EMPTY;
        let mut bits = self.forced_units;
        while bits != 0 {
            let u = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            if self.freezes(node, u, spare) {
                frozen.add(Square::new(u32::from(node.squares[u])));
            }
        }
        frozen
    }

    /// Whether unit `u` never moves again (see [`Searcher::frozen_squares`]).
    #[inline]
    fn freezes(&self, node: &Node, u: usize, spare: [i32; 2]) -> bool {
        let Some((target, target_role)) = self.forced[u].and_then(|f| f.target) else {
            return false;
        };
        let sq = Square::new(u32::from(node.squares[u]));
        if sq != target || usize::from(node.ids[sq.to_usize()]) != u {
            return false;
        }
        let Some(role) = node.pos.board().role_at(sq) else {
            return false;
        };
        if role != target_role {
            return false;
        }
        let color = self.analysis.units[u].unit.piece.color;
        role == Role::Pawn
            || (spare[ci(color)] < 2
                && self.pair_units[ci(color)] & (1 << u) == 0
                && !self.analysis.castles_from(u, state(role, sq)))
    }

    /// The moves a unit `u` (see [`Forced`]) needs beyond its column's cost when the units of
    /// `node.frozen` stand in its way: for each of its fates, its fewest moves to the fate's
    /// goals on its graph avoiding them, less the fate's table distance; the least of these
    /// over its fates (units of pairs count only with one fate) (a king also the squares that frozen pawns, knights and king of the other side
    /// attack), less the table's distance. They add to its side's bound (see
    /// [`Searcher::detours_fit`] for units of pairs). 0 for other units, units that are frozen
    /// themselves or may still castle (the table counts castling, the detour would not); `FAR` when no route is
    /// left.
    fn detour(&self, node: &Node, u: usize) -> u8 {
        let Some(f) = self.forced[u] else { return 0 };
        let color = self.analysis.units[u].unit.piece.color;
        let sq = Square::new(u32::from(node.squares[u]));
        if usize::from(node.ids[sq.to_usize()]) != u || node.frozen.contains(sq) {
            return 0;
        }
        let Some(role) = node.pos.board().role_at(sq) else {
            return 0;
        };
        let s = state(role, sq);
        if self.analysis.castles_from(u, s) {
            return 0;
        }
        let d = &self.analysis.units[u];
        let tables = &f.tables[..f.n];
        let base = d.tables[f.table].moves[s];
        if f.n == 1 && (base == FAR || base == 0) {
            return 0;
        }
        if f.n > 1 {
            // Several fates: the detour counted is the least over them (the assignment may
            // take any). Units of pairs are left out: their surplus counts fates together.
            if self.pair_units[ci(color)] & (1 << u) != 0 {
                return 0;
            }
            let bases = tables.iter().map(|&t| d.tables[usize::from(t)].moves[s]);
            if bases.clone().any(|b| b == 0) || bases.clone().all(|b| b == FAR) {
                return 0;
            }
        }
        let mut obstacles = node.frozen;
        if role == Role::King {
            // Nor may a king step where a frozen pawn, knight or king of the other side attacks
            // (for ever: those attacks never change; a line piece's may be blocked).
            let board = node.pos.board();
            let theirs = node.frozen & board.by_color(!color);
            for sq in theirs & (board.pawns() | board.knights() | board.kings()) {
                if let Some(piece) = board.piece_at(sq) {
                    obstacles |= shakmaty::attacks::attacks(sq, piece, Bitboard::EMPTY);
                }
            }
        }
        let key = (obstacles.0, (u * STATES + s) as u32);
        if let Some(&x) = self.detours.borrow().get(&key) {
            return x;
        }
        let x = if f.n == 1 {
            match self.route_around(u, f.table, s, obstacles) {
                Some(m) => m.saturating_sub(base),
                None => FAR,
            }
        } else {
            let dist = self.distances_around(u, s, obstacles);
            let mut least = FAR;
            for &t in tables {
                let table = &d.tables[usize::from(t)];
                let b = table.moves[s];
                if b == FAR {
                    continue;
                }
                let mut best = FAR;
                for (r, squares) in table.goals.0.iter().enumerate() {
                    for sq in *squares {
                        best = best.min(dist[r * 64 + sq.to_usize()]);
                    }
                }
                least = least.min(best.saturating_sub(b));
            }
            least
        };
        self.detours.borrow_mut().insert(key, x);
        x
    }

    /// Fewest moves of unit `u` from state `s` to every state on its graph, never crossing or
    /// landing on `obstacles` (breadth-first; `FAR` where there is no route).
    fn distances_around(&self, u: usize, s: usize, obstacles: Bitboard) -> [u8; STATES] {
        self.breadth_first_around(u, s, obstacles, |_| false).0
    }

    /// Fewest moves of unit `u` from state `s` to the goals of its table `t` on its graph,
    /// never crossing or landing on `obstacles` (breadth-first); `None` when there is no route.
    fn route_around(&self, u: usize, t: usize, s: usize, obstacles: Bitboard) -> Option<u8> {
        let goals = &self.analysis.units[u].tables[t].goals;
        self.breadth_first_around(u, s, obstacles, |y| goals.contains(y))
            .1
    }

    /// The breadth-first search of [`Searcher::distances_around`], stopping at the first state
    /// `stop` accepts (the start included): the distances found so far, and that state's.
    fn breadth_first_around(
        &self,
        u: usize,
        s: usize,
        obstacles: Bitboard,
        stop: impl Fn(usize) -> bool,
    ) -> ([u8; STATES], Option<u8>) {
        let d = &self.analysis.units[u];
        let mut dist = [FAR; STATES];
        let mut queue = [0u16; STATES];
        let (mut head, mut tail) = (0, 0);
        dist[s] = 0;
        if stop(s) {
            return (dist, Some(0));
        }
        queue[tail] = s as u16;
        tail += 1;
        while head < tail {
            let x = usize::from(queue[head]);
            head += 1;
            let (role, from) = (state_role(x), state_square(x));
            for to in d.graph.edges[x] & !obstacles {
                if path(role, from, to).intersects(obstacles) {
                    continue;
                }
                let roles = d.graph.targets_of(x, to);
                for r in Role::ALL {
                    if roles & role_bit(r) == 0 {
                        continue;
                    }
                    let y = state(r, to);
                    if dist[y] != FAR {
                        continue;
                    }
                    dist[y] = dist[x].saturating_add(1);
                    if stop(y) {
                        return (dist, Some(dist[y]));
                    }
                    queue[tail] = y as u16;
                    tail += 1;
                }
            }
        }
        (dist, None)
    }

    /// The surplus of `color`'s pairs of units that obstruct each other, at `node`.
    fn pair_surplus(&self, node: &Node, color: Color) -> u32 {
        self.pair_surplus_beyond(node, color, &|_| 0)
    }

    /// [`Searcher::pair_surplus`] with each pair's surplus less `detour` of its two units.
    fn pair_surplus_beyond(&self, node: &Node, color: Color, detour: &dyn Fn(usize) -> u8) -> u32 {
        let pairs = &self.analysis.pairs[color];
        if pairs.is_empty() {
            return 0;
        }
        // Each pair unit's state, looked up once (a unit is in several pairs).
        let board = node.pos.board();
        let mut states = [u16::MAX; 32];
        let mut bits = self.pair_units[ci(color)];
        while bits != 0 {
            let u = bits.trailing_zeros() as usize;
            bits &= bits - 1;
            let sq = Square::new(u32::from(node.squares[u]));
            if usize::from(node.ids[sq.to_usize()]) == u
                && let Some(r) = board.role_at(sq)
            {
                states[u] = state(r, sq) as u16;
            }
        }
        let state_of = |u: usize| (states[u] != u16::MAX).then(|| usize::from(states[u]));
        crate::required::pairs::surplus_beyond(
            self.analysis,
            pairs,
            &state_of,
            node.pos.castles().castling_rights(),
            detour,
        )
    }

    /// The squares where `board` and the target's placement differ.
    fn differing_squares(&self, board: &shakmaty::Board) -> Bitboard {
        let t = &self.target.board;
        let mut diff = board.white() ^ t.white();
        for role in Role::ALL {
            diff |= board.by_role(role) ^ t.by_role(role);
        }
        diff
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

    /// The table key of a node: the position (placement, side to move, castling rights, the
    /// e.p. square when a capture there is legal) and the plies left — not the units'
    /// identities, although [`Searcher::child`] prunes with them (which original unit stands
    /// where, the assignments, the frozen units). This is sound because every pruning rule is a
    /// necessary condition of *whole* games from the initial array: if a node reached by the
    /// history `h` has a continuation `c` that reaches the target, `h` then `c` is a proof game
    /// and no node on `c` is pruned. So the count stored for a node is exactly the number of
    /// continuations from its position, whatever identities the history gave its units, and
    /// any other history reaching the same position with the same plies left may reuse it.
    /// (The same holds for the dead positions of [`Searcher::find`].) Counts of an aborted
    /// subtree, which are only lower bounds, are never stored.
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
        self.count_looked_up(node, rem, None)
    }

    /// [`Searcher::count`]; `looked_up`: the node's key, when it was just looked up in the table
    /// and not found.
    fn count_looked_up(&mut self, node: &Node, rem: u32, looked_up: Option<Key>) -> u64 {
        if rem == 0 {
            return u64::from(self.is_goal(&node.pos));
        }
        let key = match looked_up {
            Some(k) => Some(k),
            None => {
                let key = (rem >= 2).then(|| Self::key(&node.pos, rem));
                if let Some(k) = key {
                    if let Some(&c) = self.tt.get(&k) {
                        return c;
                    }
                    if self.tt_only {
                        return 0;
                    }
                }
                key
            }
        };
        if !self.tt_only && !self.charge() {
            return 0;
        }
        let mut total = 0u64;
        if rem == 1 {
            // The last move leaves its from-square empty: it must be one where the placement
            // still differs from the target's (a move changes at most four squares).
            let diff = self.differing_squares(node.pos.board());
            if diff.count() > 4 {
                return 0;
            }
            for &m in &node.pos.legal_moves() {
                let from = match m {
                    Move::Normal { from, .. } | Move::EnPassant { from, .. } => from,
                    Move::Castle { king, .. } => king,
                    Move::Put { .. } => continue,
                };
                if !diff.contains(from) {
                    continue;
                }
                let mut pos = node.pos.clone();
                pos.play_unchecked(m);
                total += u64::from(self.is_goal(&pos));
            }
            return total;
        }
        for &m in &node.pos.legal_moves() {
            let probe = (!self.tt_only).then_some(Probe::Counts);
            let n = match self.step(node, m, rem - 1, probe) {
                None => continue,
                Some(Step::Known(n)) => n,
                Some(Step::Node(child, key)) => self.count_looked_up(&child, rem - 1, key),
            };
            total = total.saturating_add(n);
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
        for &m in &node.pos.legal_moves() {
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
        for &m in &node.pos.legal_moves() {
            let Some(Step::Node(child, _)) = self.step(node, m, rem - 1, Some(Probe::Dead)) else {
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

/// The square of a captured unit.
fn victim_square(victim: Option<(usize, Square)>) -> Square {
    victim.map_or(Square::A1, |v| v.1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::required::{Problem, analyse};
    use shakmaty::ByColor;

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
    /// target's optional fields say about that game — with the budget of exactly that
    /// game's length.
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
            let problem = Problem::proof_game(
                &target.board,
                target.castling,
                ByColor {
                    white: plies.div_ceil(2),
                    black: plies / 2,
                },
            );
            let analysis = match analyse(&problem) {
                Ok(a) => a,
                Err(e) => panic!(
                    "analysis refutes a real game ({e}): {}",
                    super::super::san_line(&game)
                ),
            };
            let searcher = Searcher::new(&analysis, &target, &Budget::UNLIMITED);
            let mut node = searcher
                .root(plies)
                .unwrap_or_else(|| panic!("root pruned for {}", target.board));
            for (k, &m) in game.iter().enumerate() {
                let rem = plies - k as u32 - 1;
                node = match searcher.child(&node, m, rem) {
                    Some(child) => child,
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

#[cfg(test)]
mod regressions {
    use super::*;

    /// Walks `san` (a proof game of `target`) through the search: no node on the way may be
    /// pruned. Returns the ply where it was, with the reason.
    fn walk(target: &str, san: &str) -> Result<(), String> {
        let target = Target::from_fen(target).unwrap();
        let game = super::super::parse_san_line(san).unwrap();
        super::super::search_keeps(&target, &game)
    }

    #[test]
    fn recorded_games_are_never_pruned() {
        for (target, san) in [
            (
                "kn4n1/pppB1pp1/RRrr1Q2/3pp1bp/P6P/1P4P1/b1PPPP1B/1N2K1N1 w",
                "h4 Nc6 Rh3 d6 Ra3 Be6 Ra6 h5 a4 Rh6 Ra3 Ba2 Rb3 d5 Rbb6 Qd6 b3 O-O-O Ba3 Kb8 \
                 Bxd6 Ka8 Bh2 Nb8 g3 Rc6 Bh3 Rdd6 Bd7 e6 Qc1 Be7 Qb2 Bg5 Qf6 e5",
            ),
            (
                "1Nr1kbnr/p2pp1pp/2p1Q1b1/1p3p2/8/8/PPP1PPPP/RNB1KBNR b",
                "d4 b5 d5 Bb7 d6 Be4 Qd5 c6 Qe6 Qc7 dxc7 Bg6 cxb8=N f5 Na6 Rc8 Nb8",
            ),
            (
                "rn1qk2r/pppn2p1/3p4/4pp1p/7K/4PPPP/PPPP2bb/RNBQ1BNR w",
                "f3 e5 Kf2 Bc5+ Kg3 d6 Nh3 Bg1 Nf4 Bh3 e3 f5 Ne2 Nf6 Kh4 h5 g3 Bg2 h3 Bh2 Ng1 \
                 Nfd7#",
            ),
        ] {
            if san.is_empty() {
                continue;
            }
            walk(target, san).unwrap_or_else(|e| panic!("{target}: {e}"));
        }
    }
}
