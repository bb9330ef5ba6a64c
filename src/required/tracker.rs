//! The analysis along a game: each side's assignment kept optimal as units move and are
//! captured, so that a search can prune every node (see [`Tracker`]).

use shakmaty::{Bitboard, CastlingSide, Color, Role, Square};

use super::{
    analysis::{Analysis, SlotKind},
    graph::{FAR, castling_squares, side_index, state},
    matching::{INF, MAX, Matching, NONE},
};

/// Marks a square or unit without a column.
const NO: u8 = u8::MAX;

/// One side's assignment along a game: its live units (columns) against its live slots (rows).
#[derive(Clone, Debug)]
pub(crate) struct SideTrack {
    moves: Matching,
    /// The slot (index in the analysis's slots of this colour) of each row.
    row_slot: [u8; MAX],
    /// The unit (index in the problem) of each column.
    col_unit: [u8; MAX],
    /// The column of each unit (index in the problem), `NO` for none: the inverse of
    /// `col_unit`, so that a move finds its column without a search.
    unit_col: [u8; 2 * MAX],
    /// Rows that are captures (the captures the other side can still make).
    capture_rows: u8,
}

impl SideTrack {
    /// Fewest moves the side still needs (`>= INF` when no assignment is possible).
    #[inline]
    pub(crate) fn value(&self) -> i32 {
        self.moves.value()
    }

    #[inline]
    fn column_of(&self, unit: usize) -> Option<usize> {
        match self.unit_col.get(unit).copied() {
            Some(j) if j != NO => Some(usize::from(j)),
            _ => None,
        }
    }

    /// The slot (index in the analysis's slots of the side's colour) of each row, in row order.
    #[inline]
    pub(crate) fn row_slots(&self) -> &[u8] {
        &self.row_slot[..self.moves.size()]
    }
}

/// Where a unit stands and what may still change its costs: its role and square, and the
/// castling rights of its side (a king or rook that may still castle has the castling as an
/// alternative first move).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Place {
    pub role: Role,
    pub square: Square,
}

impl Analysis {
    /// The unit's cost for each row of `track` when it stands at `place` with the castling
    /// rights `castling` (rook squares).
    pub(crate) fn column(
        &self,
        track: &SideTrack,
        unit: usize,
        place: Place,
        castling: Bitboard,
    ) -> [u8; MAX] {
        let d = &self.units[unit];
        let s = state(place.role, place.square);
        // Castling alternatives still open.
        let mut alternatives: [(usize, u8); 2] = [(usize::MAX, 0); 2];
        let mut n_alt = 0;
        if d.graph.castles.iter().any(|&c| c) && state(d.unit.piece.role, d.unit.square) == s {
            for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
                if !d.graph.castles[side_index(side)] {
                    continue;
                }
                let (_, king_to, rook, rook_to) = castling_squares(d.unit.piece.color, side);
                if !castling.contains(rook) {
                    continue;
                }
                alternatives[n_alt] = match place.role {
                    Role::King => (state(Role::King, king_to), 1),
                    _ => (state(Role::Rook, rook_to), 0),
                };
                n_alt += 1;
            }
        }
        let mut col = [0u8; MAX];
        for (r, c) in col.iter_mut().enumerate().take(track.moves.size()) {
            let slot = usize::from(track.row_slot[r]);
            *c = match d.slot_table.get(slot).copied().flatten() {
                Some(t) if d.feasible[slot] => {
                    let table = &d.tables[t].moves;
                    let mut m = table[s];
                    for &(a, extra) in &alternatives[..n_alt] {
                        let x = table[a];
                        if x != FAR {
                            m = m.min(x + extra);
                        }
                    }
                    if m == FAR { NONE } else { m.min(NONE - 1) }
                }
                _ => NONE,
            };
        }
        col
    }

    /// The pawn captures the unit still needs for each row (0 for pieces).
    fn caps_column(&self, track: &SideTrack, unit: usize, place: Place) -> [u8; MAX] {
        let d = &self.units[unit];
        let s = state(place.role, place.square);
        let mut col = [0u8; MAX];
        for (r, c) in col.iter_mut().enumerate().take(track.moves.size()) {
            let slot = usize::from(track.row_slot[r]);
            *c = match d.slot_table.get(slot).copied().flatten() {
                Some(t) if d.feasible[slot] => {
                    let x = d.tables[t].captures[s];
                    if x == FAR { NONE } else { x.min(NONE - 1) }
                }
                _ => NONE,
            };
        }
        col
    }

    /// The side's assignment at the start of the problem.
    pub(crate) fn start_track(&self, color: Color) -> SideTrack {
        let cols = &self.columns[color];
        let n = cols.len();
        let mut track = SideTrack {
            moves: Matching::new(n),
            row_slot: [NO; MAX],
            col_unit: [NO; MAX],
            unit_col: [NO; 2 * MAX],
            capture_rows: 0,
        };
        for r in 0..n {
            track.row_slot[r] = r as u8;
        }
        track.capture_rows = self.slots[color]
            .iter()
            .take(n)
            .filter(|slot| matches!(slot.kind, SlotKind::Capture { .. }))
            .count() as u8;
        for (j, &i) in cols.iter().enumerate() {
            track.col_unit[j] = i as u8;
            track.unit_col[i] = j as u8;
            let u = &self.units[i].unit;
            let col = self.column(
                &track,
                i,
                Place {
                    role: u.piece.role,
                    square: u.square,
                },
                self.problem.castling,
            );
            for (r, &x) in col.iter().enumerate().take(n) {
                track.moves.set(r, j, x);
            }
        }
        track.moves.solve();
        track
    }

    /// Whether the unit may move from `from` (as `role`) to `to`: the move is on its narrowed
    /// graph. Castling is asked with [`Analysis::may_castle`].
    #[inline]
    pub(crate) fn allows(&self, unit: usize, role: Role, from: Square, to: Square) -> bool {
        self.units[unit].graph.edges[state(role, from)].contains(to)
    }

    /// Whether the promoted role `role` is one the unit may take.
    #[inline]
    pub(crate) fn may_become(&self, unit: usize, role: Role) -> bool {
        self.units[unit].graph.roles & super::graph::role_bit(role) != 0
    }

    /// Whether the king (or rook) `unit` may castle on `side`.
    #[inline]
    pub(crate) fn may_castle(&self, unit: usize, side: CastlingSide) -> bool {
        self.units[unit].graph.castles[side_index(side)]
    }

    /// `track` after `unit` moved to `place` (castling rights `castling` after the move), or
    /// `None` when the side then needs more than `left` moves.
    pub(crate) fn track_move(
        &self,
        track: &SideTrack,
        unit: usize,
        place: Place,
        castling: Bitboard,
        left: i32,
    ) -> Option<SideTrack> {
        let col = self.column(track, unit, place, castling);
        self.track_move_column(track, unit, &col, left)
    }

    /// [`Analysis::track_move`] with the unit's new column `col` (as [`Analysis::column`]
    /// gives it) already computed.
    #[inline]
    pub(crate) fn track_move_column(
        &self,
        track: &SideTrack,
        unit: usize,
        col: &[u8; MAX],
        left: i32,
    ) -> Option<SideTrack> {
        let j = track.column_of(unit)?;
        if track.moves.column_bound(j, col) > left {
            return None;
        }
        let mut next = track.clone();
        next.moves.replace_column(j, col);
        (next.value() <= left).then_some(next)
    }

    /// The lower bound of the side's needs after `unit` gets the column `col` (see
    /// [`Matching::column_bound`]), without changing anything; `INF` when the unit has no
    /// column.
    #[inline]
    pub(crate) fn track_move_bound(&self, track: &SideTrack, unit: usize, col: &[u8; MAX]) -> i32 {
        match track.column_of(unit) {
            Some(j) => track.moves.column_bound(j, col),
            None => INF,
        }
    }

    /// The costs of the unit standing in state `s` for each slot of its colour (slot order, not
    /// row order), without castling alternatives: [`Analysis::column`] is this table read
    /// through the track's rows whenever the unit has no castling alternative at `s`.
    pub(crate) fn slot_costs(&self, unit: usize, s: usize) -> [u8; MAX] {
        let d = &self.units[unit];
        let mut col = [NONE; MAX];
        for (slot, c) in col
            .iter_mut()
            .enumerate()
            .take(self.slots[d.unit.piece.color].len())
        {
            *c = match d.slot_table.get(slot).copied().flatten() {
                Some(t) if d.feasible[slot] => {
                    let m = d.tables[t].moves[s];
                    if m == FAR { NONE } else { m.min(NONE - 1) }
                }
                _ => NONE,
            };
        }
        col
    }

    /// Whether [`Analysis::column`] of the unit in state `s` may count a castling alternative
    /// (it stands on its start square and may castle).
    #[inline]
    pub(crate) fn castles_from(&self, unit: usize, s: usize) -> bool {
        let d = &self.units[unit];
        d.graph.castles.iter().any(|&c| c) && state(d.unit.piece.role, d.unit.square) == s
    }

    /// Refreshes the columns of `units` at their places (after castling rights were lost).
    pub(crate) fn track_refresh(
        &self,
        track: &mut SideTrack,
        units: &[(usize, Place)],
        castling: Bitboard,
    ) {
        for &(unit, place) in units {
            if let Some(j) = track.column_of(unit) {
                let col = self.column(track, unit, place, castling);
                track.moves.replace_column(j, &col);
            }
        }
    }

    /// `track` (the victim's side) after `victim` was captured on `square` by `capturer`
    /// (a unit of the other side that is a pawn now when `by_pawn`), or `None` when that
    /// capture fits no solution: the victim cannot be captured there, or the captures the
    /// capturing side's pawns need no longer fit.
    pub(crate) fn track_capture(
        &self,
        track: &SideTrack,
        victim: usize,
        capturer: usize,
        by_pawn: bool,
        square: Square,
        left: i32,
    ) -> Option<SideTrack> {
        let c = track.column_of(victim)?;
        let color = self.units[victim].unit.piece.color;
        let slots = &self.slots[color];
        let d = &self.units[victim];
        let usable = |r: usize| {
            let slot = usize::from(track.row_slot[r]);
            match &slots[slot].kind {
                SlotKind::Capture { squares, .. } => {
                    squares.contains(square) && d.feasible[slot] && d.slot_table[slot].is_some()
                }
                _ => false,
            }
        };
        let pawn_row = |r: usize| {
            let slot = usize::from(track.row_slot[r]);
            matches!(slots[slot].kind, SlotKind::Capture { pawn: Some(p), .. } if p == capturer)
        };
        let free_row = |r: usize| {
            let slot = usize::from(track.row_slot[r]);
            matches!(slots[slot].kind, SlotKind::Capture { pawn: None, .. })
        };
        let n = track.moves.size();
        // The capturer's own pending capture, else a capture nobody in particular needs.
        let r = if by_pawn && let Some(r) = (0..n).find(|&r| pawn_row(r)) {
            r
        } else {
            (0..n).find(|&r| free_row(r))?
        };
        if !usable(r) {
            return None;
        }
        let mut next = track.clone();
        next.moves.remove(r, c);
        let last = n - 1;
        if r != last {
            next.row_slot[r] = track.row_slot[last];
        }
        if c != last {
            next.col_unit[c] = track.col_unit[last];
        }
        next.row_slot[last] = NO;
        next.col_unit[last] = NO;
        next.unit_col[victim] = NO;
        if c != last {
            next.unit_col[usize::from(next.col_unit[c])] = c as u8;
        }
        next.capture_rows -= 1;
        (next.value() <= left).then_some(next)
    }

    /// Units of the track's side that are still to be captured (the captures the other side
    /// can still make).
    #[inline]
    pub(crate) fn capture_rows(&self, track: &SideTrack) -> i32 {
        i32::from(track.capture_rows)
    }

    /// Whether the pawn `unit` of the other side still has captures pending in `track`
    /// (its captures must all come before it promotes or is captured).
    pub(crate) fn pending_captures(&self, track: &SideTrack, unit: usize) -> bool {
        let color = !self.units[unit].unit.piece.color;
        (0..track.moves.size()).any(|r| {
            let slot = usize::from(track.row_slot[r]);
            matches!(self.slots[color][slot].kind, SlotKind::Capture { pawn: Some(p), .. } if p == unit)
        })
    }

    /// Whether no pawn of `color` needs a capture from any state on any route to a fate it
    /// may take: then [`Analysis::captures_fit`] holds at every node (each pawn's assigned
    /// row costs no capture).
    pub(crate) fn pawns_never_capture(&self, color: Color) -> bool {
        self.columns[color].iter().all(|&i| {
            let d = &self.units[i];
            d.graph.start_role() != Role::Pawn
                || d.slot_table
                    .iter()
                    .zip(&d.feasible)
                    .all(|(t, &ok)| match t {
                        Some(t) if ok => {
                            let table = &d.tables[*t];
                            table
                                .captures
                                .iter()
                                .zip(table.moves.iter())
                                .all(|(&c, &m)| c == 0 || (c == FAR && m == FAR))
                        }
                        _ => true,
                    })
        })
    }

    /// Whether the pawn captures of the side's optimal assignment, or failing that of the
    /// assignment with the fewest, fit in `available` captures.
    pub(crate) fn captures_fit(
        &self,
        track: &SideTrack,
        places: &dyn Fn(usize) -> Place,
        available: i32,
    ) -> bool {
        let n = track.moves.size();
        let mut total = 0i32;
        let mut cols: [[u8; MAX]; MAX] = [[NONE; MAX]; MAX];
        for (j, col) in cols.iter_mut().enumerate().take(n) {
            let unit = usize::from(track.col_unit[j]);
            if self.units[unit].graph.start_role() != Role::Pawn {
                *col = [0; MAX];
                for (r, c) in col.iter_mut().enumerate().take(n) {
                    if track.moves.get(r, j) == NONE {
                        *c = NONE;
                    }
                }
                continue;
            }
            *col = self.caps_column(track, unit, places(unit));
            let r = track.moves.row_of(j);
            let x = col[r];
            total += if x == NONE { INF } else { i32::from(x) };
        }
        if total <= available {
            return true;
        }
        let mut m = Matching::new(n);
        for (j, col) in cols.iter().enumerate().take(n) {
            for (r, &x) in col.iter().enumerate().take(n) {
                m.set(
                    r,
                    j,
                    if track.moves.get(r, j) == NONE {
                        NONE
                    } else {
                        x
                    },
                );
            }
        }
        m.solve();
        m.value() <= available
    }
}

/// The bound of a [`crate::required::Analysis`] along a game: each side's assignment of its
/// units to its targets and captures, kept optimal as units move and are captured.
///
/// Units are named by their index in [`super::Problem::units`]; the caller says where each one
/// goes. [`Tracker::lower_bound`] is then the fewest moves each side still needs from there —
/// for the lead of a search, an admissible heuristic (A*), updated in O(n²) per move.
#[derive(Clone, Debug)]
pub struct Tracker<'a> {
    analysis: &'a Analysis,
    sides: [SideTrack; 2],
    castling: Bitboard,
}

fn ci(c: Color) -> usize {
    match c {
        Color::White => 0,
        Color::Black => 1,
    }
}

impl<'a> Tracker<'a> {
    /// The tracker at the start of the analysed problem.
    pub fn new(analysis: &'a Analysis) -> Tracker<'a> {
        Tracker {
            analysis,
            sides: [
                analysis.start_track(Color::White),
                analysis.start_track(Color::Black),
            ],
            castling: analysis.problem.castling,
        }
    }

    /// Fewest moves `color` still needs (`None` when it can no longer reach its goals).
    pub fn lower_bound(&self, color: Color) -> Option<u32> {
        let v = self.sides[ci(color)].value();
        (v < INF).then_some(v as u32)
    }

    /// Whether the analysis allows `unit`, standing on `from` as `role`, to move to `to`.
    pub fn allows(&self, unit: usize, role: Role, from: Square, to: Square) -> bool {
        self.analysis.allows(unit, role, from, to)
    }

    /// Records that `unit` moved to `to` (as `role`: its own, or the one it promoted to);
    /// `castling` are the rights left after the move. Returns false (and changes nothing)
    /// when its side can then no longer reach its goals.
    pub fn moved(&mut self, unit: usize, role: Role, to: Square, castling: Bitboard) -> bool {
        let color = self.analysis.units[unit].unit.piece.color;
        self.castling = castling;
        match self.analysis.track_move(
            &self.sides[ci(color)],
            unit,
            Place { role, square: to },
            castling,
            INF - 1,
        ) {
            Some(t) => {
                self.sides[ci(color)] = t;
                true
            }
            None => false,
        }
    }

    /// Records that `victim` was captured on `square` by `capturer` (a pawn now when
    /// `by_pawn`). Returns false (and changes nothing) when that fits no solution.
    pub fn captured(
        &mut self,
        victim: usize,
        capturer: usize,
        by_pawn: bool,
        square: Square,
    ) -> bool {
        let color = self.analysis.units[victim].unit.piece.color;
        match self.analysis.track_capture(
            &self.sides[ci(color)],
            victim,
            capturer,
            by_pawn,
            square,
            INF - 1,
        ) {
            Some(t) => {
                self.sides[ci(color)] = t;
                true
            }
            None => false,
        }
    }
}
