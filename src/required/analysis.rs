//! The fixed point of the deductions (see the module documentation of [`super`]).
//!
//! Each side's assignment is a square matrix: its *slots* (rows) are its targets, the captures
//! its units suffer, and one own slot per unit with its own goal squares or fixed; its units are
//! the columns. A unit's cost for a slot is its fewest moves from its start to the slot's states
//! on its graph.

use shakmaty::{Bitboard, ByColor, CastlingSide, Color, Rank, Role, Square};

use super::{
    Fate, Goal, Impossible, Problem, SideReport, Unit, UnitReport,
    graph::{
        FAR, Graph, PROMOTION_ROLES, Roles, STATES, States, castling_squares, pawn_captures,
        role_bit, side_index, state, state_role, state_square,
    },
    matching::{INF, MAX, Matching, NONE},
    pairs::{JointCache, Pair, narrow_by_joint_play, pairs},
};

/// A claim of joint play: units `units` with fates `fates` (targets or own goals) make at
/// least `joint` moves together. It counts only while each unit has exactly that fate left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Claim {
    pub units: [usize; 2],
    pub fates: [SlotKind; 2],
    pub joint: u32,
}

/// What a slot stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum SlotKind {
    /// The problem's target of this index.
    Target(usize),
    /// The own goal of this unit (its goal squares, or its square when fixed).
    Own(usize),
    /// A capture of a unit of the slot's colour, on one of `squares` (where the capturing side
    /// can capture), made by the pawn unit `pawn` when it is one of the captures that pawn
    /// needs.
    Capture {
        /// Where the captured unit stands when captured.
        squares: Bitboard,
        /// The capturing pawn (one of the captures it needs), or none (any capture).
        pawn: Option<usize>,
    },
}

/// A slot of one side's assignment.
#[derive(Clone, Debug)]
pub(crate) struct Slot {
    pub kind: SlotKind,
}

/// Distances of one unit to one set of goal states.
#[derive(Clone, Debug)]
pub(crate) struct GoalTable {
    pub goals: States,
    /// Fewest moves from each state to the goals.
    pub moves: Box<[u8; STATES]>,
    /// Fewest captures from each state to the goals.
    pub captures: Box<[u8; STATES]>,
}

/// Everything known about one unit.
#[derive(Clone, Debug)]
pub(crate) struct UnitData {
    pub unit: Unit,
    /// Never moves, never captured.
    pub fixed: bool,
    /// Its graph, narrowed to the moves some solution within the budget may use.
    pub graph: Graph,
    /// Fewest moves from the start to each state.
    pub from: Box<[u8; STATES]>,
    /// Fewest captures from the start to each state.
    pub caps_from: Box<[u8; STATES]>,
    /// Distance tables, one per distinct goal set.
    pub tables: Vec<GoalTable>,
    /// For each slot of its colour: the table of that slot's goals, or `None` when the unit
    /// cannot take the slot.
    pub slot_table: Vec<Option<usize>>,
    /// The slots it can still take within the budget.
    pub feasible: Vec<bool>,
    /// The most moves it may make (over its feasible slots).
    pub allowance: u32,
    /// Fewest moves it makes, as joint play with another unit shows (for its only fate).
    pub raise: u8,
}

impl UnitData {
    /// Whether the unit may be captured at all.
    fn capturable(&self) -> bool {
        !self.fixed
            && self.unit.piece.role != Role::King
            && matches!(self.unit.goal, Goal::Target | Goal::Captured)
    }

    /// Its cost (moves, captures) for the slot with table `t`, from its start (castling
    /// alternatives included, and what joint play showed it needs).
    pub(crate) fn cost(&self, t: usize) -> (u8, u8) {
        let table = &self.tables[t];
        let mut moves = FAR;
        let mut caps = FAR;
        for (s, d) in self.graph.sources() {
            let m = table.moves[s];
            if m != FAR {
                moves = moves.min(m.saturating_add(d).min(FAR - 1));
            }
            caps = caps.min(table.captures[s]);
        }
        if moves != FAR {
            moves = moves.max(self.raise);
        }
        (moves, caps)
    }
}

/// The result of [`analyse`]: the problem, the units' narrowed graphs and tables, the slots.
#[derive(Clone, Debug)]
pub struct Analysis {
    pub(crate) problem: Problem,
    pub(crate) units: Vec<UnitData>,
    /// Each colour's slots (rows of its assignment).
    pub(crate) slots: ByColor<Vec<Slot>>,
    /// Each colour's units (columns of its assignment), as indexes into `units`.
    pub(crate) columns: ByColor<Vec<usize>>,
    pub(crate) sides: ByColor<SideReport>,
    pub(crate) reports: Vec<UnitReport>,
    /// Each colour's pair tables (units that obstruct each other).
    pub(crate) pairs: ByColor<Vec<Pair>>,
    /// Each colour's claims from joint play: pairwise disjoint pairs of units, with the fewest
    /// moves the two make together from the start to their fates (see [`Claim`]).
    pub(crate) extra: ByColor<Vec<Claim>>,
}

impl Analysis {
    /// Fewest moves `color` needs (its optimal assignment's cost).
    pub fn lower_bound(&self, color: Color) -> u32 {
        self.sides[color].lower_bound
    }

    /// Both sides' totals.
    pub fn side(&self, color: Color) -> &SideReport {
        &self.sides[color]
    }

    /// What was found about the unit of index `unit` in [`Problem::units`].
    pub fn unit(&self, unit: usize) -> &UnitReport {
        &self.reports[unit]
    }

    /// Fewest plies of a game in which both sides make their moves alternately, `first` moving
    /// first: White's `w` and Black's `b` needed moves (a side's units' fewest moves, and at
    /// least one move per unit of the other side it captures) take at least
    /// `max(2w - 1, 2b)` plies when White starts (`max(2w, 2b - 1)` when Black does).
    pub fn fewest_plies(&self, first: Color) -> u32 {
        // A side makes at least its units' moves, and one move per unit of the other side it
        // captures.
        let need = |c: Color| self.lower_bound(c).max(self.sides[c].captures_available);
        let (w, b) = (need(Color::White), need(Color::Black));
        match first {
            Color::White => (2 * w).saturating_sub(1).max(2 * b),
            Color::Black => (2 * b).saturating_sub(1).max(2 * w),
        }
    }

    /// The problem analysed.
    pub fn problem(&self) -> &Problem {
        &self.problem
    }
}

/// Budgets at or above this are no limit (distances are bytes).
const UNLIMITED: u32 = 250;

/// Analyses `problem`: the deductions of the module documentation, to a fixed point.
pub fn analyse(problem: &Problem) -> Result<Analysis, Impossible> {
    analyse_with(problem, true)
}

/// [`analyse`] without the joint play of units that obstruct each other: a weaker bound, far
/// cheaper, for callers that ask it of many positions (a necessary condition either way).
pub fn analyse_single(problem: &Problem) -> Result<Analysis, Impossible> {
    analyse_with(problem, false)
}

/// [`analyse`], with or without joint play.
fn analyse_with(problem: &Problem, joint: bool) -> Result<Analysis, Impossible> {
    let mut a = setup(problem)?;
    let mut cache = JointCache::default();
    let mut rounds = 0;
    loop {
        rounds += 1;
        build_slots(&mut a)?;
        refresh_tables(&mut a);
        let allowances = assign(&mut a)?;
        let mut changed = narrow(&mut a, &allowances)?;
        changed |= deduce_obstacles(&mut a);
        if rounds > 64 {
            break;
        }
        if changed {
            continue;
        }
        if !joint {
            break;
        }
        // Joint play of units that obstruct each other: the joint moves of pairs at the start
        // count in the side's bound and narrow the others' allowances; then everything again.
        let mut grown = false;
        for color in Color::ALL {
            let p = pairs(&a, color, &mut cache);
            let chosen = start_claims(&a, &p);
            if claims_surplus(&a, &chosen) > claims_surplus(&a, &a.extra[color]) {
                a.extra[color] = chosen;
                grown = true;
            }
        }
        // Joint play of units that obstruct each other (of one side or both) narrows their
        // routes to the moves some joint route within their joint allowance uses.
        let narrowed = narrow_by_joint_play(&mut a, &joint_allowance, &mut cache);
        if !grown && !narrowed {
            break;
        }
    }
    for color in Color::ALL {
        a.pairs[color] = pairs(&a, color, &mut cache);
    }
    report(&mut a)?;
    Ok(a)
}

/// Checks the problem and builds every unit's graph on an empty board with the fixed units as
/// obstacles.
fn setup(problem: &Problem) -> Result<Analysis, Impossible> {
    let mut occupied = Bitboard::EMPTY;
    let mut counts = ByColor::<usize>::default();
    for u in &problem.units {
        if occupied.contains(u.square) {
            return Err(Impossible::Malformed);
        }
        occupied.add(u.square);
        counts[u.piece.color] += 1;
        if u.piece.role == Role::Pawn && matches!(u.square.rank(), Rank::First | Rank::Eighth) {
            return Err(Impossible::Malformed);
        }
    }
    if counts.white > MAX || counts.black > MAX {
        return Err(Impossible::Malformed);
    }
    for t in &problem.targets {
        if t.piece.role == Role::Pawn && matches!(t.square.rank(), Rank::First | Rank::Eighth) {
            return Err(Impossible::Malformed);
        }
    }
    let obstacles: Bitboard = problem
        .units
        .iter()
        .filter(|u| u.goal == Goal::Fixed)
        .map(|u| Bitboard::from_square(u.square))
        .fold(Bitboard::EMPTY, |a, b| a | b);
    let mut units = Vec::with_capacity(problem.units.len());
    for u in &problem.units {
        let fixed = u.goal == Goal::Fixed;
        let color = u.piece.color;
        let roles = if u.piece.role == Role::Pawn {
            // Promotion only if some target (or goal square) could use the promoted piece.
            let promotes = match u.goal {
                Goal::Target => problem
                    .targets
                    .iter()
                    .any(|t| t.piece.color == color && t.piece.role != Role::Pawn),
                Goal::Squares(_) => true,
                Goal::Captured => true,
                Goal::Fixed => false,
            };
            role_bit(Role::Pawn) | if promotes { PROMOTION_ROLES } else { 0 }
        } else {
            role_bit(u.piece.role)
        };
        let castles = castling_of(problem, u);
        let mut graph = Graph::new(color, u.piece.role, u.square, roles, obstacles, castles);
        if fixed {
            graph.edges.fill(Bitboard::EMPTY);
            graph.castles = [false; 2];
        }
        units.push(UnitData {
            unit: *u,
            fixed,
            from: graph.moves_from(),
            caps_from: graph.captures_from(),
            graph,
            tables: Vec::new(),
            slot_table: Vec::new(),
            feasible: Vec::new(),
            allowance: UNLIMITED,
            raise: 0,
        });
    }
    // Castling needs both partners.
    couple_castling(&mut units);
    for d in &mut units {
        d.from = d.graph.moves_from();
        d.caps_from = d.graph.captures_from();
    }
    let mut columns = ByColor::<Vec<usize>>::default();
    for (i, u) in problem.units.iter().enumerate() {
        columns[u.piece.color].push(i);
    }
    Ok(Analysis {
        problem: problem.clone(),
        units,
        slots: ByColor::default(),
        columns,
        sides: ByColor {
            white: empty_side(),
            black: empty_side(),
        },
        reports: Vec::new(),
        pairs: ByColor::default(),
        extra: ByColor::default(),
    })
}

fn empty_side() -> SideReport {
    SideReport {
        lower_bound: 0,
        free_moves: 0,
        required_captures: 0,
        captures_available: 0,
    }
}

/// The castling sides unit `u` may take part in: a king on e1/e8 or a rook on its corner, with
/// the right in the problem, and the partner present and not fixed.
fn castling_of(problem: &Problem, u: &Unit) -> [bool; 2] {
    let mut out = [false; 2];
    if !matches!(u.piece.role, Role::King | Role::Rook) || u.goal == Goal::Fixed {
        return out;
    }
    for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
        let (king, _, rook, _) = castling_squares(u.piece.color, side);
        if !problem.castling.contains(rook) {
            continue;
        }
        let partner_ok = |sq: Square, role: Role| {
            problem.units.iter().any(|v| {
                v.square == sq
                    && v.piece.color == u.piece.color
                    && v.piece.role == role
                    && v.goal != Goal::Fixed
            })
        };
        out[side_index(side)] = match u.piece.role {
            Role::King => u.square == king && partner_ok(rook, Role::Rook),
            _ => u.square == rook && partner_ok(king, Role::King),
        };
    }
    out
}

/// Drops a castling side from a king or rook whose partner lost it. Returns whether anything
/// changed.
fn couple_castling(units: &mut [UnitData]) -> bool {
    let mut changed = false;
    for color in Color::ALL {
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let i = side_index(side);
            let (king_sq, _, rook_sq, _) = castling_squares(color, side);
            let find = |units: &[UnitData], sq: Square, role: Role| {
                units.iter().position(|d| {
                    d.unit.square == sq && d.unit.piece.color == color && d.unit.piece.role == role
                })
            };
            let king = find(units, king_sq, Role::King);
            let rook = find(units, rook_sq, Role::Rook);
            let both = match (king, rook) {
                (Some(k), Some(r)) => units[k].graph.castles[i] && units[r].graph.castles[i],
                _ => false,
            };
            for x in [king, rook].into_iter().flatten() {
                if units[x].graph.castles[i] && !both {
                    units[x].graph.castles[i] = false;
                    changed = true;
                }
            }
        }
    }
    changed
}

/// The squares where `color` may capture: the destinations of its units' moves (a pawn's
/// diagonal ones), with the squares of pawns taken en passant.
fn capture_squares(a: &Analysis, color: Color) -> Bitboard {
    let mut out = Bitboard::EMPTY;
    for &i in &a.columns[color] {
        let d = &a.units[i];
        if d.fixed {
            continue;
        }
        for s in 0..STATES {
            if d.from[s] == FAR {
                continue;
            }
            let from = state_square(s);
            let edges = d.graph.edges[s];
            if state_role(s) == Role::Pawn {
                for to in edges {
                    if pawn_captures(from, to) {
                        out.add(to);
                    }
                }
            } else {
                out |= edges;
            }
        }
    }
    with_ep_victims(out, color)
}

/// `squares` with, for each square where `color`'s pawns capture en passant, the square of the
/// pawn taken.
fn with_ep_victims(squares: Bitboard, color: Color) -> Bitboard {
    let ep_rank = Bitboard::from_rank(color.fold_wb(Rank::Sixth, Rank::Third));
    let mut out = squares;
    for sq in squares & ep_rank {
        let victim = Square::new((sq.to_u32() as i32 + color.fold_wb(-8, 8)) as u32);
        out.add(victim);
    }
    out
}

/// The captures each pawn of `color` needs at least, with the squares where they happen.
fn pawn_events(a: &Analysis, color: Color) -> Vec<(usize, u8, Bitboard)> {
    let mut out = Vec::new();
    for &i in &a.columns[color] {
        let d = &a.units[i];
        if d.fixed || d.graph.start_role() != Role::Pawn || d.feasible.is_empty() {
            continue;
        }
        let mut need = FAR;
        for (k, &ok) in d.feasible.iter().enumerate() {
            if ok && let Some(t) = d.slot_table[k] {
                need = need.min(d.cost(t).1);
            }
        }
        if need == 0 || need == FAR {
            continue;
        }
        let mut squares = Bitboard::EMPTY;
        for s in 0..STATES {
            if state_role(s) != Role::Pawn || d.from[s] == FAR {
                continue;
            }
            let from = state_square(s);
            for to in d.graph.edges[s] {
                if pawn_captures(from, to) {
                    squares.add(to);
                }
            }
        }
        out.push((i, need, with_ep_victims(squares, color)));
    }
    out
}

/// Builds each colour's slots: targets, captures (the other side's pawn captures first), own
/// goals; and each unit's slot tables.
fn build_slots(a: &mut Analysis) -> Result<(), Impossible> {
    let mut slots = ByColor::<Vec<Slot>>::default();
    for color in Color::ALL {
        let mut rows = Vec::new();
        let mut fills = 0usize;
        for (t, target) in a.problem.targets.iter().enumerate() {
            if target.piece.color == color {
                rows.push(Slot {
                    kind: SlotKind::Target(t),
                });
                fills += 1;
            }
        }
        // Units that fill targets or are captured; the rest have own slots.
        let mut takers = 0usize;
        let mut own = Vec::new();
        for &i in &a.columns[color] {
            let u = &a.units[i].unit;
            match u.goal {
                Goal::Target | Goal::Captured => takers += 1,
                Goal::Fixed => {
                    if a.problem
                        .targets
                        .iter()
                        .any(|t| t.square == u.square && t.piece == u.piece)
                    {
                        takers += 1;
                    } else {
                        own.push(i);
                    }
                }
                Goal::Squares(_) => own.push(i),
            }
        }
        if takers < fills {
            return Err(Impossible::TooFewUnits { color });
        }
        let captured = takers - fills;
        // The other side's pawn captures, then free captures.
        let events = if a.units[0].feasible.is_empty() {
            Vec::new()
        } else {
            pawn_events(a, !color)
        };
        let needed: usize = events.iter().map(|e| usize::from(e.1)).sum();
        if needed > captured {
            return Err(Impossible::Captures {
                color: !color,
                needed: needed as u32,
                available: captured as u32,
            });
        }
        for (pawn, need, squares) in events {
            for _ in 0..need {
                rows.push(Slot {
                    kind: SlotKind::Capture {
                        squares,
                        pawn: Some(pawn),
                    },
                });
            }
        }
        let anywhere = capture_squares(a, !color);
        for _ in needed..captured {
            rows.push(Slot {
                kind: SlotKind::Capture {
                    squares: anywhere,
                    pawn: None,
                },
            });
        }
        for i in own {
            rows.push(Slot {
                kind: SlotKind::Own(i),
            });
        }
        debug_assert_eq!(rows.len(), a.columns[color].len());
        slots[color] = rows;
    }
    // Carry the units' feasibility over to the new slots (first round: everything feasible).
    // A target or own slot keeps its own; a capture is feasible if some capture was: the new
    // captures happen on no more squares than the old ones (pawn captures only grow in number
    // and narrow in squares as the routes narrow).
    for color in Color::ALL {
        let same = a.slots[color].len() == slots[color].len()
            && a.slots[color]
                .iter()
                .zip(&slots[color])
                .all(|(x, y)| x.kind == y.kind);
        if same {
            continue;
        }
        for &i in &a.columns[color] {
            let old = &a.units[i].feasible;
            let fresh = old.is_empty();
            let capture_ok = fresh
                || a.slots[color]
                    .iter()
                    .zip(old)
                    .any(|(sl, &ok)| ok && matches!(sl.kind, SlotKind::Capture { .. }));
            let feasible = slots[color]
                .iter()
                .map(|sl| match sl.kind {
                    SlotKind::Capture { .. } => capture_ok,
                    _ => {
                        fresh
                            || a.slots[color]
                                .iter()
                                .zip(old)
                                .any(|(o, &ok)| ok && o.kind == sl.kind)
                    }
                })
                .collect();
            a.units[i].feasible = feasible;
        }
    }
    a.slots = slots;
    Ok(())
}

/// The goal states of unit `d` for `slot`, or `None` when it cannot take it.
fn goals_of(a: &Analysis, i: usize, slot: &Slot) -> Option<States> {
    let d = &a.units[i];
    let u = &d.unit;
    match &slot.kind {
        SlotKind::Target(t) => {
            let target = &a.problem.targets[*t];
            let ok = match u.goal {
                Goal::Target => d.graph.roles & role_bit(target.piece.role) != 0,
                Goal::Fixed => target.square == u.square && target.piece == u.piece,
                _ => false,
            };
            ok.then(|| {
                States::on(
                    role_bit(target.piece.role),
                    Bitboard::from_square(target.square),
                )
            })
        }
        SlotKind::Own(j) => (*j == i).then(|| match u.goal {
            Goal::Squares(sq) => States::on(d.graph.roles, sq),
            _ => States::on(role_bit(u.piece.role), Bitboard::from_square(u.square)),
        }),
        SlotKind::Capture { squares, .. } => (d.capturable()
            && matches!(u.goal, Goal::Target | Goal::Captured))
        .then(|| States::on(d.graph.roles, *squares)),
    }
}

/// Recomputes each unit's distances from its start and its slot tables.
fn refresh_tables(a: &mut Analysis) {
    for i in 0..a.units.len() {
        let color = a.units[i].unit.piece.color;
        let goals: Vec<Option<States>> = a.slots[color]
            .iter()
            .map(|slot| goals_of(a, i, slot))
            .collect();
        let d = &mut a.units[i];
        d.from = d.graph.moves_from();
        d.caps_from = d.graph.captures_from();
        let rev = d.graph.reverse();
        d.tables.clear();
        d.slot_table.clear();
        for (k, g) in goals.iter().enumerate() {
            let Some(g) = g.filter(|_| d.feasible.get(k).copied().unwrap_or(true)) else {
                d.slot_table.push(None);
                continue;
            };
            let t = match d.tables.iter().position(|t| t.goals == g) {
                Some(t) => t,
                None => {
                    d.tables.push(GoalTable {
                        goals: g,
                        moves: Graph::moves_to(&rev, &g),
                        captures: Graph::captures_to(&rev, &g),
                    });
                    d.tables.len() - 1
                }
            };
            d.slot_table.push(Some(t));
        }
    }
}

/// What a unit may spend on each of its feasible slots: moves and captures.
pub(crate) struct Allowance {
    /// `(slot, moves, captures)` for each feasible slot.
    pub per_slot: Vec<(usize, u32, u32)>,
}

/// The optimal cost of `m` with row `r` and column `c` forced together (`INF` if impossible).
fn forced(costs: &[[u8; MAX]; MAX], n: usize, r: usize, c: usize) -> i32 {
    if costs[r][c] == NONE {
        return INF;
    }
    if n == 1 {
        return i32::from(costs[r][c]);
    }
    let mut m = Matching::new(n - 1);
    let mut ii = 0;
    for (i, row) in costs.iter().enumerate().take(n) {
        if i == r {
            continue;
        }
        let mut jj = 0;
        for (j, &x) in row.iter().enumerate().take(n) {
            if j == c {
                continue;
            }
            m.set(ii, jj, x);
            jj += 1;
        }
        ii += 1;
    }
    m.solve();
    let v = m.value();
    if v >= INF {
        INF
    } else {
        v + i32::from(costs[r][c])
    }
}

/// Solves both sides' assignments (moves, and pawn captures); drops unit–slot pairs whose best
/// assignment exceeds a budget; returns each unit's allowances.
fn assign(a: &mut Analysis) -> Result<Vec<Allowance>, Impossible> {
    let mut allowances: Vec<Allowance> = (0..a.units.len())
        .map(|_| Allowance {
            per_slot: Vec::new(),
        })
        .collect();
    for color in Color::ALL {
        let cols = a.columns[color].clone();
        let n = cols.len();
        if n == 0 {
            a.sides[color] = empty_side();
            continue;
        }
        let budget = a.problem.moves[color].min(UNLIMITED);
        let captures_available = a.slots[!color]
            .iter()
            .filter(|s| matches!(s.kind, SlotKind::Capture { .. }))
            .count() as u32;
        // Each unit of the other side that is captured is taken by one move of this side.
        if budget < UNLIMITED && captures_available > budget {
            return Err(Impossible::Moves {
                color,
                needed: captures_available,
                available: a.problem.moves[color],
            });
        }
        let mut moves = [[NONE; MAX]; MAX];
        let mut caps = [[NONE; MAX]; MAX];
        for (c, &i) in cols.iter().enumerate() {
            let d = &a.units[i];
            for r in 0..n {
                if !d.feasible[r] {
                    continue;
                }
                if let Some(t) = d.slot_table[r] {
                    let (m, k) = d.cost(t);
                    if m != FAR && k != FAR {
                        moves[r][c] = m.min(NONE - 1);
                        caps[r][c] = k.min(NONE - 1);
                    }
                }
            }
        }
        let solve = |costs: &[[u8; MAX]; MAX]| {
            let mut m = Matching::new(n);
            for (r, row) in costs.iter().enumerate().take(n) {
                for (c, &x) in row.iter().enumerate().take(n) {
                    m.set(r, c, x);
                }
            }
            m.solve();
            m
        };
        let best_moves = solve(&moves);
        let best_caps = solve(&caps);
        let surplus = claim_surpluses(a, &a.extra[color]);
        let extra: u32 = surplus.iter().map(|x| x.2).sum();
        let need_moves = best_moves.value() + extra as i32;
        let need_caps = best_caps.value();
        if need_moves >= INF {
            // Some slot has no unit, or some unit no slot.
            for (c, &i) in cols.iter().enumerate() {
                if (0..n).all(|r| moves[r][c] == NONE) {
                    return Err(Impossible::Stranded { unit: i });
                }
            }
            return Err(Impossible::Moves {
                color,
                needed: u32::MAX,
                available: a.problem.moves[color],
            });
        }
        if need_moves as u32 > budget && budget < UNLIMITED {
            return Err(Impossible::Moves {
                color,
                needed: need_moves as u32,
                available: a.problem.moves[color],
            });
        }
        if need_caps >= INF || need_caps as u32 > captures_available {
            return Err(Impossible::Captures {
                color,
                needed: need_caps.min(INF) as u32,
                available: captures_available,
            });
        }
        a.sides[color] = SideReport {
            lower_bound: need_moves as u32,
            free_moves: if a.problem.moves[color] >= UNLIMITED {
                u32::MAX
            } else {
                budget - need_moves as u32
            },
            required_captures: need_caps as u32,
            captures_available,
        };
        // Each pair: the best assignments that use it.
        for (c, &i) in cols.iter().enumerate() {
            for r in 0..n {
                if moves[r][c] == NONE {
                    a.units[i].feasible[r] = false;
                    continue;
                }
                // What the pairs counted in `extra` need beyond their own distances, but for
                // a pair of this unit's own (the unit may be the one that spends it).
                let others: u32 = surplus
                    .iter()
                    .filter(|x| x.0 != i && x.1 != i)
                    .map(|x| x.2)
                    .sum();
                let fm = forced(&moves, n, r, c);
                let fc = forced(&caps, n, r, c);
                let fits_moves = budget >= UNLIMITED || (fm < INF && fm as u32 + others <= budget);
                let fits_caps = fc < INF && fc as u32 <= captures_available;
                if !(fits_moves && fits_caps) {
                    a.units[i].feasible[r] = false;
                    continue;
                }
                let allow_moves = if budget >= UNLIMITED {
                    UNLIMITED
                } else {
                    budget - others - (fm as u32 - u32::from(moves[r][c]))
                };
                let allow_caps = captures_available - (fc as u32 - u32::from(caps[r][c]));
                allowances[i].per_slot.push((r, allow_moves, allow_caps));
            }
            if allowances[i].per_slot.is_empty() {
                return Err(Impossible::Stranded { unit: i });
            }
            a.units[i].allowance = allowances[i]
                .per_slot
                .iter()
                .map(|x| x.1)
                .max()
                .unwrap_or(0);
        }
    }
    Ok(allowances)
}

/// Keeps in each unit's graph only the moves that lie on a route to a feasible slot within its
/// allowance; drops castling that no feasible slot uses. Returns whether a graph changed.
fn narrow(a: &mut Analysis, allowances: &[Allowance]) -> Result<bool, Impossible> {
    let mut changed = false;
    for (i, allow) in allowances.iter().enumerate() {
        let d = &mut a.units[i];
        if d.fixed {
            continue;
        }
        let mut roles_used: Roles = 0;
        let mut new_edges = d.graph.edges.clone();
        for s in 0..STATES {
            let e = d.graph.edges[s];
            if e.is_empty() {
                continue;
            }
            let fd = d.from[s];
            let fc = d.caps_from[s];
            if fd == FAR {
                new_edges[s] = Bitboard::EMPTY;
                continue;
            }
            let from_sq = state_square(s);
            let pawn = state_role(s) == Role::Pawn;
            let mut keep = Bitboard::EMPTY;
            for to in e {
                let w = u32::from(pawn && pawn_captures(from_sq, to));
                let roles = d.graph.targets_of(s, to);
                for r in Role::ALL {
                    if roles & role_bit(r) == 0 {
                        continue;
                    }
                    let t = state(r, to);
                    let useful = allow.per_slot.iter().any(|&(k, am, ac)| {
                        let Some(tab) = d.slot_table[k] else {
                            return false;
                        };
                        let tm = d.tables[tab].moves[t];
                        let tc = d.tables[tab].captures[t];
                        tm != FAR
                            && tc != FAR
                            && u32::from(fd) + 1 + u32::from(tm) <= am
                            && u32::from(fc) + w + u32::from(tc) <= ac
                    });
                    if useful {
                        keep.add(to);
                        roles_used |= role_bit(r);
                    }
                }
            }
            new_edges[s] = keep;
        }
        roles_used |= role_bit(d.graph.start_role());
        if new_edges != d.graph.edges {
            d.graph.edges = new_edges;
            changed = true;
        }
        if d.graph.roles & !roles_used != 0 {
            d.graph.roles &= roles_used;
            changed = true;
        }
        // Castling: the king's one move (or the rook's free start) must fit.
        for side in [CastlingSide::KingSide, CastlingSide::QueenSide] {
            let k = side_index(side);
            if !d.graph.castles[k] {
                continue;
            }
            let (_, king_to, _, rook_to) = castling_squares(d.unit.piece.color, side);
            let (s, cost) = match d.unit.piece.role {
                Role::King => (state(Role::King, king_to), 1u32),
                _ => (state(Role::Rook, rook_to), 0u32),
            };
            let useful = allow.per_slot.iter().any(|&(slot, am, _)| {
                d.slot_table[slot].is_some_and(|tab| {
                    let tm = d.tables[tab].moves[s];
                    tm != FAR && cost + u32::from(tm) <= am
                })
            });
            if !useful {
                d.graph.castles[k] = false;
                changed = true;
            }
        }
    }
    changed |= couple_castling(&mut a.units);
    Ok(changed)
}

/// Units proven never to move become obstacles; units never captured block the moves that
/// would cross or land on every square they can stand on. Returns whether a graph changed.
fn deduce_obstacles(a: &mut Analysis) -> bool {
    let mut changed = false;
    for i in 0..a.units.len() {
        let d = &a.units[i];
        if d.capturable() && d.feasible_capture(a) {
            continue;
        }
        let from = d.graph.moves_from();
        let stops = d.graph.stops(&from);
        if stops.count() > 8 || stops.is_empty() {
            continue;
        }
        let start = d.unit.square;
        for j in 0..a.units.len() {
            if j == i || a.units[j].fixed {
                continue;
            }
            let g = &mut a.units[j].graph;
            // A move of unit j from `f` to `t` is impossible when every square where unit i
            // can stand (except `f` itself, where j stands then) is on its way or is `t`.
            for s in 0..STATES {
                let e = g.edges[s];
                if e.is_empty() {
                    continue;
                }
                let f = state_square(s);
                let role = state_role(s);
                let need_free = stops.without(f);
                if need_free.is_empty() {
                    continue;
                }
                let mut keep = e;
                for t in e {
                    let way = super::graph::path(role, f, t).with(t);
                    if need_free.is_subset(way) {
                        keep.discard(t);
                    }
                }
                if keep != e {
                    g.edges[s] = keep;
                    changed = true;
                }
            }
            changed |= g.block_castling(|need| stops.is_subset(need));
        }
        // A unit that cannot leave its square is fixed from now on.
        if stops == Bitboard::from_square(start) && !a.units[i].fixed {
            a.units[i].fixed = true;
            changed = true;
        }
    }
    if changed {
        couple_castling(&mut a.units);
    }
    changed
}

impl UnitData {
    /// Whether one of the unit's feasible slots is a capture.
    fn feasible_capture(&self, a: &Analysis) -> bool {
        let color = self.unit.piece.color;
        a.slots[color].iter().enumerate().any(|(k, slot)| {
            matches!(slot.kind, SlotKind::Capture { .. })
                && self.feasible.get(k).copied().unwrap_or(false)
                && self.slot_table.get(k).copied().flatten().is_some()
        })
    }
}

/// The claims of joint play at the start: pairwise disjoint pairs, largest surplus first, each
/// with the fewest moves its two units make together.
fn start_claims(a: &Analysis, pairs: &[Pair]) -> Vec<Claim> {
    let mut found: Vec<(u32, Claim)> = Vec::new();
    for p in pairs {
        let [u, v] = p.units;
        let (x, y) = (a.units[u].graph.start, a.units[v].graph.start);
        let s = p.surplus(a, x, y, a.problem.castling);
        let (Some((fu, cu)), Some((fv, cv))) = (only_fate(a, u), only_fate(a, v)) else {
            continue;
        };
        // The claim is the joint moves; its surplus counts over the units' own fewest moves
        // as the assignment counts them.
        let joint = u32::from(p.joint(a, x, y, a.problem.castling));
        let s = if s > 0 && joint < u32::from(FAR) {
            joint.saturating_sub(cu + cv)
        } else {
            0
        };
        if s > 0 {
            found.push((
                s,
                Claim {
                    units: [u, v],
                    fates: [fu, fv],
                    joint,
                },
            ));
        }
    }
    found.sort_by_key(|x| std::cmp::Reverse(x.0));
    let mut used = Vec::new();
    let mut out = Vec::new();
    for (_, claim) in found {
        let [u, v] = claim.units;
        if !used.contains(&u) && !used.contains(&v) {
            used.push(u);
            used.push(v);
            out.push(claim);
        }
    }
    out
}

/// The only fate unit `i` has left, if it is a target or its own goal, with its cost.
fn only_fate(a: &Analysis, i: usize) -> Option<(SlotKind, u32)> {
    let d = &a.units[i];
    let color = d.unit.piece.color;
    let mut found = None;
    for (k, &ok) in d.feasible.iter().enumerate() {
        let Some(t) = d.slot_table[k].filter(|_| ok) else {
            continue;
        };
        let kind = &a.slots[color][k].kind;
        if found.is_some() || matches!(kind, SlotKind::Capture { .. }) {
            return None;
        }
        found = Some((kind.clone(), u32::from(d.cost(t).0)));
    }
    found
}

/// The most moves units `i` and `j` (one fate each) make together: each one's allowance; for
/// two units of one side, also that side's free moves on top of their own fewest moves and
/// the surplus of the claims they are in. `None` without a budget.
fn joint_allowance(a: &Analysis, i: usize, j: usize) -> Option<u32> {
    let (ci, cj) = (a.units[i].unit.piece.color, a.units[j].unit.piece.color);
    if a.problem.moves[ci] >= UNLIMITED || a.problem.moves[cj] >= UNLIMITED {
        return None;
    }
    let sum = a.units[i].allowance + a.units[j].allowance;
    if ci != cj {
        return Some(sum);
    }
    let (Some((_, oi)), Some((_, oj))) = (only_fate(a, i), only_fate(a, j)) else {
        return Some(sum);
    };
    let claims: u32 = claim_surpluses(a, &a.extra[ci])
        .iter()
        .filter(|x| x.0 == i || x.1 == i || x.0 == j || x.1 == j)
        .map(|x| x.2)
        .sum();
    let free = a.sides[ci].free_moves;
    Some(sum.min(free + oi + oj + claims))
}

/// Each claim's surplus over its units' own fewest moves now (0 for a claim whose units no
/// longer have exactly the claimed fates).
fn claim_surpluses(a: &Analysis, claims: &[Claim]) -> Vec<(usize, usize, u32)> {
    claims
        .iter()
        .map(|c| {
            let [u, v] = c.units;
            let s = match (only_fate(a, u), only_fate(a, v)) {
                (Some((fu, cu)), Some((fv, cv))) if fu == c.fates[0] && fv == c.fates[1] => {
                    c.joint.saturating_sub(cu + cv)
                }
                _ => 0,
            };
            (u, v, s)
        })
        .collect()
}

/// The total surplus of `claims` now.
fn claims_surplus(a: &Analysis, claims: &[Claim]) -> u32 {
    claim_surpluses(a, claims).iter().map(|x| x.2).sum()
}

/// Fills the per-unit reports from the final state.
fn report(a: &mut Analysis) -> Result<(), Impossible> {
    let mut reports = Vec::with_capacity(a.units.len());
    for (i, d) in a.units.iter().enumerate() {
        let color = d.unit.piece.color;
        let mut fates: Vec<(u8, Fate)> = Vec::new();
        let mut req_moves = FAR;
        let mut req_caps = FAR;
        for (k, slot) in a.slots[color].iter().enumerate() {
            if !d.feasible[k] {
                continue;
            }
            let Some(t) = d.slot_table[k] else {
                continue;
            };
            let (m, c) = d.cost(t);
            req_moves = req_moves.min(m);
            req_caps = req_caps.min(c);
            let fate = match slot.kind {
                SlotKind::Target(t) => Fate::Target(t),
                SlotKind::Own(_) => Fate::Own,
                SlotKind::Capture { .. } => Fate::Captured,
            };
            if !fates.iter().any(|f| f.1 == fate) {
                fates.push((m, fate));
            }
        }
        if fates.is_empty() {
            return Err(Impossible::Stranded { unit: i });
        }
        fates.sort_by_key(|f| f.0);
        let from = d.graph.moves_from();
        reports.push(UnitReport {
            required_moves: u32::from(req_moves),
            required_captures: u32::from(req_caps),
            fates: fates.into_iter().map(|f| f.1).collect(),
            never_moves: d.fixed,
            stops: d.graph.stops(&from),
        });
    }
    a.reports = reports;
    Ok(())
}
