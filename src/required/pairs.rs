//! Joint play of two units of one side that obstruct each other.
//!
//! Each unit alone needs its distance to its fate; two units whose routes cross may need more
//! together: one must wait for the other, or step aside (a king and rook that castle long and
//! then shuffle, a bishop that must leave before the pawn in front of it closes the door). The
//! *pair table* holds, for every pair of states the two units can be in on their routes, the
//! fewest moves both make together to reach both their fates, moving one at a time and never
//! standing on or crossing the other's square. Everything else on the board is ignored (but for
//! the fixed obstacles already out of the graphs), so the table is a lower bound of what the
//! two units need in any solution; its excess over the sum of their own distances (the
//! *surplus*) adds to their side's bound, for pairs that share no unit.
//!
//! A king and the rook it may castle with are one pair whose table knows castling: from both
//! start squares, with the right still held, castling is one move to both castled squares.
//! Castling with a rook outside the pair, and a castling rook's free start on its castled
//! square, are taken as always available (a relaxation).

use std::collections::VecDeque;

use shakmaty::{Bitboard, CastlingSide, Color, Role};

use super::{
    analysis::{Analysis, SlotKind},
    graph::{FAR, STATES, castling_path, castling_squares, path, side_index, state, state_square},
};

/// No state index.
const NO: u16 = u16::MAX;

/// Largest joint table computed (states of one unit times states of the other).
const MAX_JOINT: usize = 12_288;

/// One move of a unit inside a pair: its destination (index in the unit's states), the squares
/// that must not hold the other unit (those crossed and the destination), and its cost.
#[derive(Clone, Copy, Debug)]
struct Step {
    to: u16,
    free: Bitboard,
    cost: u8,
    /// A castling step (the king's castling, a rook's free start), not an edge of the graph.
    castle: Option<CastlingSide>,
}

/// The joint table of two units of one side.
#[derive(Clone, Debug)]
pub(crate) struct Pair {
    /// The two units (indexes in the problem).
    pub units: [usize; 2],
    /// The fates the two units may take together, as pairs of tables (index in each unit's
    /// tables): one pair for units with one fate each, two for two units that share two fates
    /// no other unit can take.
    pub combos: Vec<[usize; 2]>,
    /// Each unit's states in the table: state → index.
    index: [Box<[u16; STATES]>; 2],
    /// Number of states of the second unit.
    n1: usize,
    /// Fewest joint moves from each pair of states.
    dist: Vec<u8>,
    /// For a king and its castling rook: the side, and the joint moves from both start
    /// squares while the right is held.
    castle: Option<(CastlingSide, u8)>,
    /// The surplus from each pair of states with none of the side's castling rights held, and
    /// with both held (see [`Pair::surplus`]; only the side's own rights count).
    gain: [Vec<u8>; 2],
    /// The side's castling corners (rook squares).
    corners: Bitboard,
}

impl Pair {
    /// Whether the pair's surplus is positive anywhere (else the search need not look at it).
    fn obstructs(&self, analysis: &Analysis) -> bool {
        let d0 = &analysis.units[self.units[0]];
        let d1 = &analysis.units[self.units[1]];
        self.surplus_at(analysis, d0.graph.start, d1.graph.start, Bitboard::FULL) > 0
            || self.gain[0].iter().any(|&g| g > 0)
    }

    /// The surplus table from the states `states` (as indexed) with the rights `rights`.
    fn gain_table(
        &self,
        analysis: &Analysis,
        states: &[Vec<usize>; 2],
        rights: Bitboard,
    ) -> Vec<u8> {
        let mut gain = vec![0u8; self.dist.len()];
        for (x, &a) in states[0].iter().enumerate() {
            for (y, &b) in states[1].iter().enumerate() {
                gain[x * self.n1 + y] = self.surplus_at(analysis, a, b, rights);
            }
        }
        gain
    }

    /// The fewest moves the two units need on their own from states `a` and `b` (with the
    /// castling `rights`), over the fates they may take together (`FAR` when none).
    fn own(&self, analysis: &Analysis, a: usize, b: usize, rights: Bitboard) -> u8 {
        let d0 = &analysis.units[self.units[0]];
        let d1 = &analysis.units[self.units[1]];
        let mut best = FAR;
        for c in &self.combos {
            let (x, y) = (own_cost(d0, c[0], a, rights), own_cost(d1, c[1], b, rights));
            if x != FAR && y != FAR {
                best = best.min(x + y);
            }
        }
        best
    }

    /// The fewest joint moves of the pair from states `a` (first unit) and `b` (second) with
    /// the castling `rights` (rook squares) held (`FAR` when none is known).
    pub(crate) fn joint(&self, analysis: &Analysis, a: usize, b: usize, rights: Bitboard) -> u8 {
        let d0 = &analysis.units[self.units[0]];
        let d1 = &analysis.units[self.units[1]];
        let at_start = a == d0.graph.start && b == d1.graph.start;
        let mut joint = match (self.index[0][a], self.index[1][b]) {
            (NO, _) | (_, NO) => FAR,
            (ia, ib) => self.dist[usize::from(ia) * self.n1 + usize::from(ib)],
        };
        if let Some((side, with_right)) = self.castle {
            let (_, _, rook, _) = castling_squares(d0.unit.piece.color, side);
            if at_start && rights.contains(rook) {
                joint = joint.min(with_right);
            }
        }
        joint
    }

    /// The surplus of the pair at states `a` (first unit) and `b` (second), with `rights`
    /// (rook squares) held: joint moves less the sum of each unit's own table distance.
    pub(crate) fn surplus(&self, analysis: &Analysis, a: usize, b: usize, rights: Bitboard) -> u8 {
        let own = rights & self.corners;
        let table = if own.is_empty() {
            &self.gain[0]
        } else if own == self.corners {
            &self.gain[1]
        } else {
            return self.surplus_at(analysis, a, b, rights);
        };
        match (self.index[0][a], self.index[1][b]) {
            (NO, _) | (_, NO) => 0,
            (ia, ib) => table[usize::from(ia) * self.n1 + usize::from(ib)],
        }
    }

    /// [`Pair::surplus`], computed.
    fn surplus_at(&self, analysis: &Analysis, a: usize, b: usize, rights: Bitboard) -> u8 {
        let joint = self.joint(analysis, a, b, rights);
        if joint == FAR {
            return 0;
        }
        let own = self.own(analysis, a, b, rights);
        if own == FAR {
            return 0;
        }
        joint.saturating_sub(own)
    }
}

/// A unit's own distance from state `s` on table `t`, with its castling alternatives when it
/// stands on its start square and the right is held (as the assignment counts it).
fn own_cost(d: &super::analysis::UnitData, t: usize, s: usize, rights: Bitboard) -> u8 {
    let table = &d.tables[t].moves;
    let mut best = table[s];
    if s == d.graph.start {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            if !d.graph.castles[side_index(side)] {
                continue;
            }
            let (_, king_to, rook, rook_to) = castling_squares(d.unit.piece.color, side);
            if !rights.contains(rook) {
                continue;
            }
            let (alt, extra) = match d.unit.piece.role {
                Role::King => (state(Role::King, king_to), 1),
                _ => (state(Role::Rook, rook_to), 0),
            };
            if table[alt] != FAR {
                best = best.min(table[alt] + extra);
            }
        }
    }
    best
}

/// The live states of unit `i` for the tables `tables`: reachable from its start and with a finite
/// distance to its fate, and its start (from which a castling rook may go on only by castling).
fn live_states(a: &Analysis, i: usize, tables: &[usize]) -> Vec<usize> {
    let d = &a.units[i];
    (0..STATES)
        .filter(|&s| {
            d.from[s] != FAR
                && (s == d.graph.start || tables.iter().any(|&t| d.tables[t].moves[s] != FAR))
        })
        .collect()
}

/// The steps of unit `i` from each of its live states, to live states. `partner`: the castling
/// side whose castling the pair handles itself (not a step).
fn steps(
    a: &Analysis,
    i: usize,
    states: &[usize],
    index: &[u16; STATES],
    partner: Option<CastlingSide>,
) -> Vec<Vec<Step>> {
    let d = &a.units[i];
    let g = &d.graph;
    let mut out = vec![Vec::new(); states.len()];
    let start = state(d.unit.piece.role, d.unit.square);
    for (k, &s) in states.iter().enumerate() {
        let from = state_square(s);
        let role = shakmaty::Role::ALL[s / 64];
        for to in g.edges[s] {
            let roles = g.targets_of(s, to);
            for r in Role::ALL {
                if roles & super::graph::role_bit(r) == 0 {
                    continue;
                }
                let t = index[state(r, to)];
                if t != NO {
                    out[k].push(Step {
                        to: t,
                        free: path(role, from, to).with(to),
                        cost: 1,
                        castle: None,
                    });
                }
            }
        }
        if s == start {
            for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
                if !g.castles[side_index(side)] || partner == Some(side) {
                    continue;
                }
                let (_, king_to, _, rook_to) = castling_squares(g.color, side);
                let free = castling_path(g.color, side).with(king_to).with(rook_to);
                let (dest, cost) = match d.unit.piece.role {
                    Role::King => (state(Role::King, king_to), 1),
                    _ => (state(Role::Rook, rook_to), 0),
                };
                let t = index[dest];
                if t != NO {
                    out[k].push(Step {
                        to: t,
                        free,
                        cost,
                        castle: Some(side),
                    });
                }
            }
        }
    }
    out
}

/// The unit's feasible slots with their tables, when none is a capture (the unit is never
/// captured) and it is not fixed.
pub(crate) fn fates(a: &Analysis, i: usize) -> Option<Vec<(usize, usize)>> {
    let d = &a.units[i];
    if d.fixed {
        return None;
    }
    let color = d.unit.piece.color;
    let mut out = Vec::new();
    for (k, &ok) in d.feasible.iter().enumerate() {
        let Some(t) = d.slot_table[k].filter(|_| ok) else {
            continue;
        };
        if matches!(a.slots[color][k].kind, SlotKind::Capture { .. }) {
            return None;
        }
        out.push((k, t));
    }
    (!out.is_empty()).then_some(out)
}

/// The fates units `i` and `j` may take together, as `(slots, tables)` pairs: one each; or, for
/// two units of one side that share two fates no other unit of the side can take, both ways
/// round. `None` otherwise.
pub(crate) fn combos(a: &Analysis, i: usize, j: usize) -> Option<Vec<([usize; 2], [usize; 2])>> {
    let fi = fates(a, i)?;
    let fj = fates(a, j)?;
    if fi.len() == 1 && fj.len() == 1 {
        return (fi[0].0 != fj[0].0).then(|| vec![([fi[0].0, fj[0].0], [fi[0].1, fj[0].1])]);
    }
    let color = a.units[i].unit.piece.color;
    if fi.len() != 2 || fj.len() != 2 || a.units[j].unit.piece.color != color {
        return None;
    }
    let (s1, s2) = (fi[0].0, fi[1].0);
    if fj[0].0 != s1 || fj[1].0 != s2 {
        return None;
    }
    let others_take = a.columns[color].iter().any(|&k| {
        k != i && k != j && {
            let d = &a.units[k];
            [s1, s2]
                .iter()
                .any(|&s| d.feasible.get(s).copied().unwrap_or(false) && d.slot_table[s].is_some())
        }
    });
    if others_take {
        return None;
    }
    Some(vec![
        ([s1, s2], [fi[0].1, fj[1].1]),
        ([s2, s1], [fi[1].1, fj[0].1]),
    ])
}

/// The squares unit `i` may stand on or cross on its live routes.
fn route(a: &Analysis, i: usize, states: &[usize]) -> (Bitboard, Bitboard) {
    let d = &a.units[i];
    let mut stops = Bitboard::EMPTY;
    let mut crossed = Bitboard::EMPTY;
    for &s in states {
        let from = state_square(s);
        stops.add(from);
        let role = Role::ALL[s / 64];
        for to in d.graph.edges[s] {
            crossed |= path(role, from, to);
        }
    }
    (stops, crossed)
}

/// Two units' joint play: their live states, their steps, and the fewest joint moves from
/// every pair of states to both fates.
struct Joint {
    units: [usize; 2],
    combos: Vec<[usize; 2]>,
    states: [Vec<usize>; 2],
    index: [Box<[u16; STATES]>; 2],
    steps: [Vec<Vec<Step>>; 2],
    /// Fewest joint moves to both fates (castling of a king and rook pair not included).
    dist: Vec<u8>,
    /// For each unit, the fewest moves *it* makes on the way to both fates (the other one's
    /// moves free); empty when not asked for (see [`joint`]).
    own: [Vec<u8>; 2],
    /// A king and its castling rook: the side.
    castle_side: Option<CastlingSide>,
    /// The units are of different colours.
    enemies: bool,
    /// Which unit is a king.
    royal: [bool; 2],
    /// For each unit's states, the squares it attacks whatever stands between (contact and
    /// knight checks).
    attacks: [Vec<Bitboard>; 2],
}

impl Joint {
    fn n1(&self) -> usize {
        self.states[1].len()
    }

    /// Whether unit `k` may move from its state `x` to its state `to` while the other unit is
    /// on its state `y` (blocking aside): a unit that gives check to the enemy king cannot move
    /// (the king's side is to move), and a king cannot move into the enemy unit's attack.
    #[inline]
    fn legal(&self, k: usize, x: usize, to: usize, y: usize) -> bool {
        if !self.enemies {
            return true;
        }
        let o = 1 - k;
        let sq_y = state_square(self.states[o][y]);
        if self.royal[o] && self.attacks[k][x].contains(sq_y) {
            return false;
        }
        if self.royal[k] && self.attacks[o][y].contains(state_square(self.states[k][to])) {
            return false;
        }
        true
    }

    /// The castled states of a king and rook pair (first unit's, second unit's).
    fn castled(&self, a: &Analysis) -> Option<(usize, usize)> {
        let side = self.castle_side?;
        let d0 = &a.units[self.units[0]];
        let (_, king_to, _, rook_to) = castling_squares(d0.unit.piece.color, side);
        Some(if d0.unit.piece.role == Role::King {
            (state(Role::King, king_to), state(Role::Rook, rook_to))
        } else {
            (state(Role::Rook, rook_to), state(Role::King, king_to))
        })
    }

    fn at(&self, s: usize, t: usize) -> u8 {
        match (self.index[0][s], self.index[1][t]) {
            (NO, _) | (_, NO) => FAR,
            (x, y) => self.dist[usize::from(x) * self.n1() + usize::from(y)],
        }
    }

    /// Fewest joint moves from the start to every pair of states.
    fn forward(&self, a: &Analysis) -> Vec<u8> {
        let n1 = self.n1();
        let mut dist = vec![FAR; self.states[0].len() * n1];
        let mut deque = VecDeque::new();
        let s0 = self.index[0][a.units[self.units[0]].graph.start];
        let s1 = self.index[1][a.units[self.units[1]].graph.start];
        if s0 == NO || s1 == NO {
            return dist;
        }
        dist[usize::from(s0) * n1 + usize::from(s1)] = 0;
        deque.push_back((usize::from(s0), usize::from(s1)));
        if let Some((c0, c1)) = self.castled(a) {
            let (x, y) = (self.index[0][c0], self.index[1][c1]);
            if x != NO && y != NO {
                dist[usize::from(x) * n1 + usize::from(y)] = 1;
                deque.push_back((usize::from(x), usize::from(y)));
            }
        }
        while let Some((x, y)) = deque.pop_front() {
            let d = dist[x * n1 + y];
            let sq_x = state_square(self.states[0][x]);
            let sq_y = state_square(self.states[1][y]);
            for st in &self.steps[0][x] {
                if st.free.contains(sq_y) || !self.legal(0, x, usize::from(st.to), y) {
                    continue;
                }
                let (nx, ny) = (usize::from(st.to), y);
                relax(
                    &mut dist,
                    &mut deque,
                    nx * n1 + ny,
                    (nx, ny),
                    d + st.cost,
                    st.cost,
                );
            }
            for st in &self.steps[1][y] {
                if st.free.contains(sq_x) || !self.legal(1, y, usize::from(st.to), x) {
                    continue;
                }
                let (nx, ny) = (x, usize::from(st.to));
                relax(
                    &mut dist,
                    &mut deque,
                    nx * n1 + ny,
                    (nx, ny),
                    d + st.cost,
                    st.cost,
                );
            }
        }
        dist
    }
}

/// The squares a unit of `role` and `color` on `sq` attacks whatever stands between: a
/// knight's, king's or pawn's attacks, a line piece's adjacent squares in its directions.
fn unstoppable(role: Role, color: shakmaty::Color, sq: shakmaty::Square) -> Bitboard {
    use shakmaty::attacks::{
        bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks,
    };
    let near = king_attacks(sq);
    match role {
        Role::Knight => knight_attacks(sq),
        Role::King => near,
        Role::Pawn => pawn_attacks(color, sq),
        Role::Bishop => near & bishop_attacks(sq, Bitboard::FULL),
        Role::Rook => near & rook_attacks(sq, Bitboard::FULL),
        Role::Queen => near,
    }
}

/// 0-1 BFS relaxation.
#[inline]
fn relax(
    dist: &mut [u8],
    deque: &mut VecDeque<(usize, usize)>,
    i: usize,
    at: (usize, usize),
    nd: u8,
    cost: u8,
) {
    if nd < dist[i] {
        dist[i] = nd;
        if cost == 0 {
            deque.push_front(at);
        } else {
            deque.push_back(at);
        }
    }
}

/// The joint play of units `i` and `j` towards the fates `combos` (pairs of tables), or `None`
/// when their routes do not meet or the table would be too large. `with_own`: whether each
/// unit's own moves on the joint routes are wanted too (two more tables, read only by
/// [`raise_by_joint`]).
fn joint(a: &Analysis, i: usize, j: usize, combos: &[[usize; 2]], with_own: bool) -> Option<Joint> {
    let ti: Vec<usize> = combos.iter().map(|c| c[0]).collect();
    let tj: Vec<usize> = combos.iter().map(|c| c[1]).collect();
    let si = live_states(a, i, &ti);
    let sj = live_states(a, j, &tj);
    if si.is_empty() || sj.is_empty() || si.len() * sj.len() > MAX_JOINT {
        return None;
    }
    let (stops_i, crossed_i) = route(a, i, &si);
    let (stops_j, crossed_j) = route(a, j, &sj);
    if !(stops_i | crossed_i).intersects(stops_j) && !(stops_j | crossed_j).intersects(stops_i) {
        return None;
    }
    let mut index = [Box::new([NO; STATES]), Box::new([NO; STATES])];
    for (k, &s) in si.iter().enumerate() {
        index[0][s] = k as u16;
    }
    for (k, &s) in sj.iter().enumerate() {
        index[1][s] = k as u16;
    }
    // A king and its castling rook.
    let di = &a.units[i];
    let dj = &a.units[j];
    let castle_side = [CastlingSide::KingSide, CastlingSide::QueenSide]
        .into_iter()
        .find(|&side| {
            let k = side_index(side);
            di.unit.piece.color == dj.unit.piece.color
                && di.graph.castles[k]
                && dj.graph.castles[k]
                && matches!(
                    (di.unit.piece.role, dj.unit.piece.role),
                    (Role::King, Role::Rook) | (Role::Rook, Role::King)
                )
        });
    let step_i = steps(a, i, &si, &index[0], castle_side);
    let step_j = steps(a, j, &sj, &index[1], castle_side);
    let n0 = si.len();
    let n1 = sj.len();
    // Reverse steps.
    let mut rev_i: Vec<Vec<(u16, Bitboard, u8)>> = vec![Vec::new(); n0];
    for (k, list) in step_i.iter().enumerate() {
        for st in list {
            rev_i[usize::from(st.to)].push((k as u16, st.free, st.cost));
        }
    }
    let mut rev_j: Vec<Vec<(u16, Bitboard, u8)>> = vec![Vec::new(); n1];
    for (k, list) in step_j.iter().enumerate() {
        for st in list {
            rev_j[usize::from(st.to)].push((k as u16, st.free, st.cost));
        }
    }
    let enemies = di.unit.piece.color != dj.unit.piece.color;
    let royal = [
        di.unit.piece.role == Role::King,
        dj.unit.piece.role == Role::King,
    ];
    let attacks_of = |k: usize, states: &[usize]| -> Vec<Bitboard> {
        let color = if k == 0 {
            di.unit.piece.color
        } else {
            dj.unit.piece.color
        };
        if !enemies || !royal[1 - k] {
            return vec![Bitboard::EMPTY; states.len()];
        }
        states
            .iter()
            .map(|&s| unstoppable(Role::ALL[s / 64], color, state_square(s)))
            .collect()
    };
    let attacks = [attacks_of(0, &si), attacks_of(1, &sj)];
    let legal = |k: usize, x: usize, to: usize, y: usize| -> bool {
        if !enemies {
            return true;
        }
        let (own_states, other_states) = if k == 0 { (&si, &sj) } else { (&sj, &si) };
        let o = 1 - k;
        let sq_y = state_square(other_states[y]);
        if royal[o] && attacks[k][x].contains(sq_y) {
            return false;
        }
        !(royal[k] && attacks[o][y].contains(state_square(own_states[to])))
    };
    let backward = |weights: [u8; 2]| {
        let mut dist = vec![FAR; n0 * n1];
        let mut deque = VecDeque::new();
        for (x, &s) in si.iter().enumerate() {
            for (y, &t) in sj.iter().enumerate() {
                let goal = state_square(s) != state_square(t)
                    && combos
                        .iter()
                        .any(|c| di.tables[c[0]].moves[s] == 0 && dj.tables[c[1]].moves[t] == 0);
                if goal {
                    dist[x * n1 + y] = 0;
                    deque.push_back((x, y));
                }
            }
        }
        while let Some((x, y)) = deque.pop_front() {
            let d = dist[x * n1 + y];
            let sq_y = state_square(sj[y]);
            let sq_x = state_square(si[x]);
            // Unit i moved last: its predecessors with j on y.
            for &(px, free, cost) in &rev_i[x] {
                let px = usize::from(px);
                if free.contains(sq_y) || state_square(si[px]) == sq_y || !legal(0, px, x, y) {
                    continue;
                }
                let c = cost * weights[0];
                relax(&mut dist, &mut deque, px * n1 + y, (px, y), d + c, c);
            }
            for &(py, free, cost) in &rev_j[y] {
                let py = usize::from(py);
                if free.contains(sq_x) || state_square(sj[py]) == sq_x || !legal(1, py, y, x) {
                    continue;
                }
                let c = cost * weights[1];
                relax(&mut dist, &mut deque, x * n1 + py, (x, py), d + c, c);
            }
        }
        dist
    };
    let dist = backward([1, 1]);
    let own = if with_own {
        [backward([1, 0]), backward([0, 1])]
    } else {
        [Vec::new(), Vec::new()]
    };
    Some(Joint {
        units: [i, j],
        combos: combos.to_vec(),
        states: [si, sj],
        index,
        steps: [step_i, step_j],
        dist,
        own,
        enemies,
        royal,
        attacks,
        castle_side,
    })
}

/// Raises each unit's fewest moves to what it makes in any joint route (the other unit's
/// moves free): a unit that must step aside for the other, or wait on a detour, needs those
/// moves whatever the rest does. Returns whether a unit's fewest moves grew.
fn raise_by_joint(a: &mut Analysis, j: &Joint) -> bool {
    let starts = [
        a.units[j.units[0]].graph.start,
        a.units[j.units[1]].graph.start,
    ];
    let castled = j.castled(a);
    let mut changed = false;
    for k in 0..2 {
        let at = |s0: usize, s1: usize| match (j.index[0][s0], j.index[1][s1]) {
            (NO, _) | (_, NO) => FAR,
            (x, y) => j.own[k][usize::from(x) * j.n1() + usize::from(y)],
        };
        let mut need = at(starts[0], starts[1]);
        if let Some((c0, c1)) = castled {
            // The pair's castling: one move of the king.
            let king_moves = u8::from(a.units[j.units[k]].unit.piece.role == Role::King);
            let after = at(c0, c1);
            if after != FAR {
                need = need.min(after + king_moves);
            }
        }
        if need == FAR {
            continue;
        }
        let d = &mut a.units[j.units[k]];
        if need > d.raise {
            d.raise = need;
            changed = true;
        }
    }
    changed
}

/// The pair table of a joint play (for the bound at search nodes).
fn pair_of(a: &Analysis, j: Joint) -> Pair {
    let castle = j.castle_side.map(|side| {
        let d0 = &a.units[j.units[0]];
        let d1 = &a.units[j.units[1]];
        let plain = j.at(d0.graph.start, d1.graph.start);
        let after = j.castled(a).map_or(FAR, |(c0, c1)| j.at(c0, c1));
        let with_right = if after == FAR {
            plain
        } else {
            plain.min(after + 1)
        };
        (side, with_right)
    });
    let n1 = j.n1();
    let color = a.units[j.units[0]].unit.piece.color;
    let corners = Bitboard::from_square(castling_squares(color, CastlingSide::KingSide).2)
        .with(castling_squares(color, CastlingSide::QueenSide).2);
    let mut pair = Pair {
        units: j.units,
        combos: j.combos,
        index: j.index,
        n1,
        dist: j.dist,
        castle,
        gain: [Vec::new(), Vec::new()],
        corners,
    };
    pair.gain[0] = pair.gain_table(a, &j.states, Bitboard::EMPTY);
    pair.gain[1] = pair.gain_table(a, &j.states, corners);
    pair
}

/// What joint play removes from the two units' graphs: the moves no joint route within
/// `allow` joint moves uses, and castling no such route uses. Returns whether a graph changed.
fn narrow_joint(a: &mut Analysis, j: &Joint, allow: u32) -> bool {
    let fwd = j.forward(a);
    let n1 = j.n1();
    let mut changed = false;
    for k in 0..2 {
        let unit = j.units[k];
        let other = 1 - k;
        let mut keep: Vec<Bitboard> = vec![Bitboard::EMPTY; j.states[k].len()];
        let mut castle_used = [false; 2];
        for (x, list) in j.steps[k].iter().enumerate() {
            for st in list {
                let used = (0..j.states[other].len()).any(|y| {
                    let sq_y = state_square(j.states[other][y]);
                    if st.free.contains(sq_y) {
                        return false;
                    }
                    let (f, d) = if k == 0 {
                        (fwd[x * n1 + y], j.dist[usize::from(st.to) * n1 + y])
                    } else {
                        (fwd[y * n1 + x], j.dist[y * n1 + usize::from(st.to)])
                    };
                    f != FAR
                        && d != FAR
                        && u32::from(f) + u32::from(st.cost) + u32::from(d) <= allow
                });
                if !used {
                    continue;
                }
                match st.castle {
                    Some(side) => castle_used[side_index(side)] = true,
                    None => keep[x].add(state_square(j.states[k][usize::from(st.to)])),
                }
            }
        }
        // The pair's own castling (a king and its rook): one joint move from both starts.
        if let Some(side) = j.castle_side
            && let Some((c0, c1)) = j.castled(a)
        {
            let d = j.at(c0, c1);
            if d != FAR && u32::from(d) < allow {
                castle_used[side_index(side)] = true;
            }
        }
        let d = &mut a.units[unit];
        for (x, &s) in j.states[k].iter().enumerate() {
            let narrowed = d.graph.edges[s] & keep[x];
            if narrowed != d.graph.edges[s] {
                d.graph.edges[s] = narrowed;
                changed = true;
            }
        }
        for (castles, used) in d.graph.castles.iter_mut().zip(castle_used) {
            if *castles && !used {
                *castles = false;
                changed = true;
            }
        }
    }
    changed
}

/// What the joint play of two units reads of one of them: its graph, its fewest moves from the
/// start, and the distance tables of the fates the pair is computed for. Two computations from
/// equal inputs give equal tables, so [`JointCache`] compares these exactly (no hashing).
#[derive(Clone, Debug)]
struct UnitInputs {
    edges: Box<[Bitboard; STATES]>,
    castles: [bool; 2],
    roles: super::graph::Roles,
    start: usize,
    from: Box<[u8; STATES]>,
    tables: Vec<usize>,
    moves: Vec<[u8; STATES]>,
}

impl UnitInputs {
    fn of(a: &Analysis, i: usize, tables: &[usize]) -> UnitInputs {
        let d = &a.units[i];
        UnitInputs {
            edges: d.graph.edges.clone(),
            castles: d.graph.castles,
            roles: d.graph.roles,
            start: d.graph.start,
            from: d.from.clone(),
            tables: tables.to_vec(),
            moves: tables.iter().map(|&t| *d.tables[t].moves).collect(),
        }
    }

    /// Whether unit `i` of `a`, for the fates `tables`, still has these inputs.
    fn matches(&self, a: &Analysis, i: usize, tables: &[usize]) -> bool {
        let d = &a.units[i];
        self.start == d.graph.start
            && self.castles == d.graph.castles
            && self.roles == d.graph.roles
            && self.tables == tables
            && self
                .moves
                .iter()
                .zip(tables)
                .all(|(m, &t)| *m == *d.tables[t].moves)
            && *self.from == *d.from
            && *self.edges == *d.graph.edges
    }
}

/// The inputs of both units of a pair, for its fates `combos`.
#[derive(Clone, Debug)]
struct PairInputs([UnitInputs; 2]);

impl PairInputs {
    fn of(a: &Analysis, i: usize, j: usize, combos: &[[usize; 2]]) -> PairInputs {
        let (ti, tj) = fate_tables(combos);
        PairInputs([UnitInputs::of(a, i, &ti), UnitInputs::of(a, j, &tj)])
    }

    fn matches(&self, a: &Analysis, i: usize, j: usize, combos: &[[usize; 2]]) -> bool {
        let (ti, tj) = fate_tables(combos);
        self.0[0].matches(a, i, &ti) && self.0[1].matches(a, j, &tj)
    }
}

/// Each unit's tables in `combos`.
fn fate_tables(combos: &[[usize; 2]]) -> (Vec<usize>, Vec<usize>) {
    (
        combos.iter().map(|c| c[0]).collect(),
        combos.iter().map(|c| c[1]).collect(),
    )
}

/// Joint play computed in earlier rounds of the analysis, by pair of units: the analysis
/// repeats its deductions until nothing changes, and most pairs' units are unchanged from one
/// round to the next. An entry is used only when both units' inputs are equal to those it was
/// computed from.
#[derive(Default)]
pub(crate) struct JointCache {
    /// The pair table (or that there is none) of [`pairs`], with its inputs.
    tables: std::collections::HashMap<(usize, usize), (PairInputs, Option<Pair>)>,
    /// Pairs whose narrowing by [`narrow_by_joint_play`] changed nothing, with the inputs and
    /// allowance it had: the same inputs and allowance would change nothing again.
    settled: std::collections::HashMap<(usize, usize), (PairInputs, u32)>,
}

/// The pair tables of `color`'s units whose fates are known together (see [`combos`]), whose
/// routes meet and who obstruct each other somewhere (a positive surplus).
pub(crate) fn pairs(a: &Analysis, color: Color, cache: &mut JointCache) -> Vec<Pair> {
    let units: Vec<usize> = a.columns[color]
        .iter()
        .copied()
        .filter(|&i| fates(a, i).is_some())
        .collect();
    let mut out = Vec::new();
    for (x, &i) in units.iter().enumerate() {
        for &j in &units[x + 1..] {
            let Some(c) = combos(a, i, j) else {
                continue;
            };
            let tables: Vec<[usize; 2]> = c.iter().map(|x| x.1).collect();
            let pair = match cache.tables.get(&(i, j)) {
                Some((inputs, pair)) if inputs.matches(a, i, j, &tables) => pair.clone(),
                _ => {
                    let pair = joint(a, i, j, &tables, false)
                        .map(|jp| pair_of(a, jp))
                        .filter(|pair| pair.obstructs(a));
                    let inputs = PairInputs::of(a, i, j, &tables);
                    cache.tables.insert((i, j), (inputs, pair.clone()));
                    pair
                }
            };
            out.extend(pair);
        }
    }
    out
}

/// Narrows the graphs of every two units whose fates are known together (see [`combos`]) and
/// whose routes meet (of one side or of both) to the moves their joint play within their joint
/// allowance uses: `allowance(i, j)`. Returns whether a graph changed.
pub(crate) fn narrow_by_joint_play(
    a: &mut Analysis,
    allowance: &dyn Fn(&Analysis, usize, usize) -> Option<u32>,
    cache: &mut JointCache,
) -> bool {
    let units: Vec<usize> = (0..a.units.len())
        .filter(|&i| fates(a, i).is_some())
        .collect();
    let mut changed = false;
    for (x, &i) in units.iter().enumerate() {
        for &j in &units[x + 1..] {
            let Some(c) = combos(a, i, j) else {
                continue;
            };
            let Some(allow) = allowance(a, i, j) else {
                continue;
            };
            let tables: Vec<[usize; 2]> = c.iter().map(|x| x.1).collect();
            if let Some((inputs, allowed)) = cache.settled.get(&(i, j))
                && *allowed == allow
                && inputs.matches(a, i, j, &tables)
            {
                continue;
            }
            // Tables may have been narrowed by an earlier pair: distances only grew.
            let mut narrowed = false;
            if let Some(jp) = joint(a, i, j, &tables, true) {
                narrowed |= narrow_joint(a, &jp, allow);
                narrowed |= raise_by_joint(a, &jp);
            }
            if narrowed {
                changed = true;
                cache.settled.remove(&(i, j));
            } else {
                let inputs = PairInputs::of(a, i, j, &tables);
                cache.settled.insert((i, j), (inputs, allow));
            }
        }
    }
    changed
}

/// The largest total surplus of pairwise disjoint pairs (greedy, largest first) at the states
/// `state_of(unit)`, with the castling `rights`. Every pair's surplus adds to its side's bound
/// as long as no unit counts twice.
///
/// Each pair's surplus is taken less `beyond` of its two units (what else already counts for
/// them: a pair's surplus and their own extras are lower bounds of the same moves, so only the
/// larger may count).
pub(crate) fn surplus_beyond(
    a: &Analysis,
    pairs: &[Pair],
    state_of: &dyn Fn(usize) -> Option<usize>,
    rights: Bitboard,
    beyond: &dyn Fn(usize) -> u8,
) -> u32 {
    let mut found: [(u8, usize, usize); 24] = [(0, 0, 0); 24];
    let mut n = 0;
    for p in pairs {
        let (Some(x), Some(y)) = (state_of(p.units[0]), state_of(p.units[1])) else {
            continue;
        };
        let s = p
            .surplus(a, x, y, rights)
            .saturating_sub(beyond(p.units[0]).saturating_add(beyond(p.units[1])));
        if s > 0 && n < found.len() {
            found[n] = (s, p.units[0], p.units[1]);
            n += 1;
        }
    }
    if n == 0 {
        return 0;
    }
    let found = &mut found[..n];
    found.sort_unstable_by_key(|x| std::cmp::Reverse(x.0));
    let mut used: u64 = 0;
    let mut total = 0u32;
    for &(s, u, v) in found.iter() {
        let bits = (1u64 << u) | (1u64 << v);
        if used & bits == 0 {
            used |= bits;
            total += u32::from(s);
        }
    }
    total
}
