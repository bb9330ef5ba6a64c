//! Carrying out a plan forward from the initial array, one macro-step at a time.
//!
//! Each step is a small search ([`route`]): one unit walks somewhere (or captures there) while
//! the other side waits. The steps are chosen in this order, the first that can be made now
//! being made: a king or rook that must lose a castling right moves away; a pawn makes its next
//! move along its path (a push, or a capture of a doomed enemy unit, which is first brought to
//! the square); a doomed unit that no pawn needs is captured by a piece; a piece walks to its
//! final square. A unit in the way is moved aside. The side to move is fixed at the end by a
//! short exact search ([`super::finish`]).

use shakmaty::{Bitboard, Color, Move, Position as _, Rank, Role, Square, attacks};

use super::{
    finish,
    game::{Game, Limits, UNITS, Unit, color_of, units_of},
    plan::{Dest, Plan, piece_distance, steps},
    route::{Route, RouteSpec, WaitRules, route},
};
use crate::position::Position;

/// At most this many macro-steps in one construction.
const MAX_ACTIONS: u32 = 1500;
/// At most this many plies in one construction.
const MAX_PLIES: usize = 3000;
/// At most this many units moved aside in one construction.
const MAX_CLEARS: u32 = 150;

/// How many squares a `role` piece on `from` can reach around `walls` (at most 64).
fn reach_count(role: Role, from: Square, walls: Bitboard) -> u32 {
    let mut seen = Bitboard::from_square(from);
    let mut frontier = seen;
    while frontier.any() {
        let mut next = Bitboard::EMPTY;
        for sq in frontier {
            next |= steps(role, sq, walls);
        }
        next &= !seen & !walls;
        seen |= next;
        frontier = next;
    }
    seen.count() as u32
}

/// How carrying out a plan ended.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Outcome {
    /// The game stands in the target.
    Reached,
    /// The game stands in the target's placement and castling rights, with the other side to
    /// move, and no tempo can be lost any more.
    WrongTurn,
    /// Stuck, or out of budget.
    Failed,
}

/// A plan being carried out.
pub(super) struct Exec<'a> {
    plan: &'a Plan,
    target: &'a Position,
    limits: &'a Limits,
    /// The game so far.
    pub(super) game: Game,
    /// For each pawn with a path: the index of its square in the path.
    step: [usize; UNITS],
    /// Units still to move away from their original squares to lose a castling right.
    round_trip: u32,
    clears: u32,
    /// The unit a blocker was last moved aside for: it walks first.
    focus: Option<Unit>,
    /// The blocker moved aside for `focus`: it does not walk back before `focus` has.
    aside: Option<Unit>,
    /// The index of the first route that is made one move longer than the shortest, to change
    /// the side to move at the end (None: no such route).
    flip_from: Option<u32>,
    /// Routes played so far.
    routes: u32,
    /// (pawn, unit) pairs for which blockers were moved aside before a pawn step.
    helped: std::collections::HashSet<(Unit, Unit)>,
}

impl<'a> Exec<'a> {
    /// Starts carrying out `plan` toward `target` from the initial array.
    pub(super) fn new(
        plan: &'a Plan,
        target: &'a Position,
        limits: &'a Limits,
        flip_from: Option<u32>,
    ) -> Exec<'a> {
        Exec {
            plan,
            target,
            limits,
            game: Game::new(),
            step: [0; UNITS],
            round_trip: plan.round_trip,
            clears: 0,
            focus: None,
            aside: None,
            flip_from,
            routes: 0,
            helped: std::collections::HashSet::new(),
        }
    }

    /// Runs the plan to its end.
    pub(super) fn run(&mut self) -> Outcome {
        let outcome = self.steps();
        if outcome == Outcome::Failed
            && self.game.pos.board() == &self.target.board
            && self.game.pos.castles().castling_rights() == self.target.castling
        {
            return Outcome::WrongTurn;
        }
        outcome
    }

    fn steps(&mut self) -> Outcome {
        let mut seen = std::collections::HashSet::new();
        for _ in 0..MAX_ACTIONS {
            if self.limits.exhausted() || self.game.moves.len() > MAX_PLIES {
                return Outcome::Failed;
            }
            if self.reached() {
                return Outcome::Reached;
            }
            if *super::game::TRACE {
                let fen = shakmaty::fen::Fen::from_position(
                    &self.game.pos,
                    shakmaty::EnPassantMode::Legal,
                );
                eprintln!("step at {fen}");
            }
            // A position met again: the steps go round in circles; the exact search may still
            // finish from here.
            let key: shakmaty::zobrist::Zobrist64 =
                self.game.pos.zobrist_hash(shakmaty::EnPassantMode::Legal);
            if !seen.insert(key.0) {
                return if self.finish() && self.reached() {
                    Outcome::Reached
                } else {
                    Outcome::Failed
                };
            }
            let progress = self.round_trips()
                || self.pawn_steps()
                || self.free_captures()
                || self.placements(false)
                || self.finish();
            if !progress {
                return Outcome::Failed;
            }
        }
        Outcome::Failed
    }

    /// Whether the game stands in the target (placement, side to move, castling rights).
    fn reached(&self) -> bool {
        let pos = &self.game.pos;
        pos.board() == &self.target.board
            && pos.turn() == self.target.turn
            && pos.castles().castling_rights() == self.target.castling
    }

    fn dest(&self, u: Unit) -> Option<Dest> {
        self.plan.dest[usize::from(u)]
    }

    /// Whether `u` stands on its final square with its final role.
    fn placed(&self, u: Unit) -> bool {
        match self.dest(u) {
            Some(d) => {
                self.game.square_of(u) == Some(d.square) && self.game.role_of(u) == Some(d.role)
            }
            None => false,
        }
    }

    /// The squares of `u`'s path still ahead of it.
    fn path_ahead(&self, u: Unit) -> &[Square] {
        let path = &self.plan.path[usize::from(u)];
        if path.is_empty() {
            &[]
        } else {
            &path[self.step[usize::from(u)] + 1..]
        }
    }

    /// Captures `color`'s pawns still have to make.
    fn captures_ahead(&self, color: Color) -> usize {
        units_of(color)
            .map(|u| {
                let path = &self.plan.path[usize::from(u)];
                let s = self.step[usize::from(u)];
                if path.is_empty() {
                    0
                } else {
                    path[s..]
                        .windows(2)
                        .filter(|w| w[0].file() != w[1].file())
                        .count()
                }
            })
            .sum()
    }

    /// The squares of the frozen units.
    fn frozen_squares(&self) -> Bitboard {
        (0..UNITS as Unit)
            .filter(|&u| self.plan.is_frozen(u))
            .filter_map(|u| self.game.square_of(u))
            .collect()
    }

    /// Squares that units should not wait or park on: the squares ahead on the pawns' paths and
    /// the final squares of units not yet there.
    fn reserved(&self) -> Bitboard {
        let mut r = Bitboard::EMPTY;
        for u in 0..UNITS as Unit {
            if !self.game.alive(u) {
                continue;
            }
            for &sq in self.path_ahead(u) {
                r.add(sq);
            }
            if let Some(d) = self.dest(u)
                && !self.placed(u)
            {
                r.add(d.square);
            }
        }
        r
    }

    fn wait_rules(&self) -> WaitRules {
        let loose = (0..UNITS as Unit)
            .filter(|&u| !self.placed(u))
            .filter_map(|u| self.game.square_of(u))
            .collect();
        // Kings and rooks keep their castling rights while waiting (castling may still place
        // them), unless they are to lose them anyway.
        let rights = self.game.pos.castles().castling_rights();
        let mut keep = rights;
        for color in Color::ALL {
            if (rights & Bitboard::from_rank(color.backrank())).any()
                && let Some(k) = self.game.pos.board().king_of(color)
            {
                keep.add(k);
            }
        }
        for u in 0..UNITS as Unit {
            if self.round_trip >> u & 1 != 0
                && let Some(sq) = self.game.square_of(u)
            {
                keep.discard(sq);
            }
        }
        WaitRules {
            frozen: self.frozen_squares() | keep,
            loose,
            reserved: self.reserved(),
        }
    }

    /// Searches a route from the current position.
    fn find(&self, spec: &RouteSpec, rules: &WaitRules) -> Option<Route> {
        let r = route(&self.game.pos, spec, rules, self.limits);
        if *super::game::TRACE {
            eprintln!(
                "    route {} -> {:?} capture {} : {}",
                spec.from,
                spec.accept.into_iter().collect::<Vec<_>>(),
                spec.capture,
                r.is_some()
            );
        }
        r
    }

    /// Plays a route, then brings the waiting unit back to its square when it stood on its
    /// final square and can step back at once.
    fn apply(&mut self, r: &Route, why: &str) {
        let flipped = self.flipped(r);
        let r = flipped.as_ref().unwrap_or(r);
        if *super::game::TRACE {
            let fen =
                shakmaty::fen::Fen::from_position(&self.game.pos, shakmaty::EnPassantMode::Legal);
            eprintln!(
                "  {why}: {fen}  + {:?}",
                r.moves
                    .iter()
                    .map(|m| shakmaty::uci::UciMove::from_standard(*m).to_string())
                    .collect::<Vec<_>>()
            );
        }
        for &m in &r.moves {
            self.game.play(m);
        }
        if let Some((now, home)) = r.displaced
            && let Some(u) = self.game.unit_at(now)
            && self.dest(u).is_some_and(|d| d.square == home)
            && self.game.pos.turn() == color_of(u)
        {
            let back = self
                .game
                .pos
                .legal_moves()
                .into_iter()
                .find(|m| m.from() == Some(now) && m.to() == home && !m.is_capture());
            if let Some(m) = back {
                let mut p = self.game.pos.clone();
                p.play_unchecked(m);
                if !p.is_check() && !p.legal_moves().is_empty() {
                    self.game.play(m);
                }
            }
        }
    }

    /// The route `r` one move longer (a different parity of the routed unit's moves), when this
    /// is the route to lengthen: the first at or after `flip_from` that can be.
    fn flipped(&mut self, r: &Route) -> Option<Route> {
        let from = self.flip_from?;
        self.routes += 1;
        let spec = &r.spec;
        if self.routes <= from || spec.capture || spec.partner.is_some() || spec.only.is_some() {
            return None;
        }
        let mut spec = spec.clone();
        spec.parity = Some((r.steps + 1) % 2);
        spec.max_moves = r.steps + 5;
        let longer = self.find(&spec, &self.wait_rules())?;
        self.flip_from = None;
        Some(longer)
    }

    /// The side to move first, then the other.
    fn sides(&self) -> [Color; 2] {
        let stm = self.game.pos.turn();
        [stm, !stm]
    }

    // ---- Castling rights ------------------------------------------------------------------

    /// A king or rook that must lose a castling right steps away (it comes back as any unit
    /// off its final square does).
    fn round_trips(&mut self) -> bool {
        let rights = self.game.pos.castles().castling_rights();
        for u in 0..UNITS as Unit {
            if self.round_trip >> u & 1 == 0 {
                continue;
            }
            let Some(sq) = self.game.square_of(u) else {
                self.round_trip &= !(1 << u);
                continue;
            };
            let color = color_of(u);
            let lost = if self.game.role_of(u) == Some(Role::King) {
                (rights & Bitboard::from_rank(color.backrank())).is_empty()
            } else {
                !rights.contains(sq)
            };
            if lost {
                self.round_trip &= !(1 << u);
                continue;
            }
            let role = self.game.role_of(u).expect("alive");
            let occupied = self.game.pos.board().occupied();
            if (steps(role, sq, occupied) & !occupied).is_empty() {
                continue;
            }
            let mut spec = RouteSpec::to(sq, !Bitboard::from_square(sq) & !occupied);
            spec.max_moves = 1;
            if let Some(r) = self.find(&spec, &self.wait_rules()) {
                self.apply(&r, "round_trips");
                self.round_trip &= !(1 << u);
                return true;
            }
        }
        false
    }

    // ---- Pawns ----------------------------------------------------------------------------

    /// The pawns with moves ahead on their paths, `color`'s only.
    fn pawns_with_work(&self, color: Color) -> Vec<Unit> {
        units_of(color)
            .filter(|&u| self.game.alive(u) && !self.path_ahead(u).is_empty())
            .collect()
    }

    /// A pawn's next move on its path, made now if it can be (side to move first); else one
    /// that needs help: a victim brought to the square it captures on, or a unit moved out of
    /// its way. A move that would lengthen the way of a piece or king to its final square (a
    /// pawn closing a door for good) waits until the units it shuts out have walked home, when
    /// they can.
    fn pawn_steps(&mut self) -> bool {
        let mut ready: Vec<(u32, Unit, Vec<Unit>)> = Vec::new();
        for color in self.sides() {
            for u in self.pawns_with_work(color) {
                if self
                    .pawn_move(u)
                    .or_else(|| self.pawn_move_after_wait(u))
                    .is_some()
                {
                    let (damage, shut) = self.door_damage(u);
                    ready.push((damage, u, shut));
                }
            }
        }
        // Stable: the side to move first among equal damage.
        ready.sort_by_key(|&(damage, _, _)| damage);

        for (damage, u, _) in &ready {
            if *damage > 0 {
                break;
            }
            if self.direct_pawn_step(*u) {
                return true;
            }
        }
        if ready.iter().any(|(d, _, _)| *d > 0) && self.placements(true) {
            return true;
        }
        for (damage, u, shut) in &ready {
            if *damage == 0 {
                continue;
            }
            for &p in shut {
                if self.place(p) {
                    return true;
                }
                // Once per pawn and unit: moving blockers aside for a unit that still cannot
                // walk home would go round in circles.
                if self.helped.insert((*u, p)) && self.open_way(p) {
                    return true;
                }
            }
            if self.direct_pawn_step(*u) {
                return true;
            }
        }
        for color in self.sides() {
            for u in self.pawns_with_work(color) {
                if self.assisted_pawn_step(u) {
                    return true;
                }
            }
        }
        false
    }

    /// How much `u`'s next step lengthens the ways of the pieces and kings not yet on their
    /// final squares, when it puts the pawn on its final square: their fewest moves around the
    /// pawns that are on their final squares (and, for a king, off the squares the enemy's such
    /// pawns attack), before and after (unreachable counts 30); and the units whose way it
    /// lengthens.
    fn door_damage(&self, u: Unit) -> (u32, Vec<Unit>) {
        let ahead = self.path_ahead(u);
        if ahead.len() != 1 {
            return (0, Vec::new());
        }
        let to = ahead[0];
        let fixed_pawns = self.fixed_pawns();
        let fixed = self.walled_in(fixed_pawns.with(to)) | fixed_pawns;
        let mover = color_of(u);
        let mut damage = 0;
        let mut shut = Vec::new();
        for p in 0..UNITS as Unit {
            let Some(role) = self.game.role_of(p) else {
                continue;
            };
            let Some(d) = self.dest(p) else { continue };
            if role == Role::Pawn || self.placed(p) || self.plan.is_frozen(p) {
                continue;
            }
            let at = self.game.square_of(p).expect("alive");
            let color = color_of(p);
            let obstacles = |with: bool| {
                let mut o = if with { fixed.with(to) } else { fixed };
                if role == Role::King {
                    let board = self.game.pos.board();
                    for sq in fixed_pawns
                        | if with {
                            Bitboard::from_square(to)
                        } else {
                            Bitboard::EMPTY
                        }
                    {
                        let pawn_color = if sq == to {
                            mover
                        } else {
                            board.color_at(sq).unwrap_or(mover)
                        };
                        if pawn_color != color {
                            o |= attacks::pawn_attacks(pawn_color, sq);
                        }
                    }
                }
                o.without(at).without(d.square)
            };
            let cost =
                |with: bool| piece_distance(role, at, d.square, obstacles(with)).unwrap_or(30);
            let worse = cost(true).saturating_sub(cost(false));
            if worse > 0 {
                damage += worse;
                shut.push(p);
            }
        }
        (damage, shut)
    }

    /// Moves aside the first unit on `p`'s way to its final square (once per unit and target).
    fn open_way(&mut self, p: Unit) -> bool {
        let (Some(d), Some(at), Some(role)) =
            (self.dest(p), self.game.square_of(p), self.game.role_of(p))
        else {
            return false;
        };
        match self.first_blocker(role, at, d.square) {
            Some((b, path)) => {
                let blocker = self.game.unit_at(b);
                if blocker.is_some_and(|v| self.plan.doomed(v)) && self.kill(b) {
                    return true;
                }
                if self.clear(b, path) {
                    self.focus = Some(p);
                    self.aside = blocker;
                    true
                } else {
                    false
                }
            }
            None => false,
        }
    }

    /// The squares of the pawns that stand on their final squares.
    fn fixed_pawns(&self) -> Bitboard {
        (0..UNITS as Unit)
            .filter(|&p| {
                self.game.role_of(p) == Some(Role::Pawn)
                    && !self.plan.doomed(p)
                    && self.path_ahead(p).is_empty()
            })
            .filter_map(|p| self.game.square_of(p))
            .collect()
    }

    /// The frozen units and the units on their final squares that cannot move at all for
    /// `walls` and each other (a bishop at home behind its unmoved pawns): they never move
    /// again.
    fn walled_in(&self, walls: Bitboard) -> Bitboard {
        let mut fixed = walls | self.frozen_squares();
        loop {
            let mut grown = fixed;
            for p in 0..UNITS as Unit {
                let (Some(sq), Some(role)) = (self.game.square_of(p), self.game.role_of(p)) else {
                    continue;
                };
                if role == Role::Pawn || !self.placed(p) || fixed.contains(sq) {
                    continue;
                }
                if (steps(role, sq, fixed) & !fixed).is_empty() {
                    grown.add(sq);
                }
            }
            if grown == fixed {
                return fixed & !walls | self.frozen_squares();
            }
            fixed = grown;
        }
    }

    /// Routes `u` to its final square now, if it can go (nothing moved aside).
    fn place(&mut self, u: Unit) -> bool {
        let (Some(d), Some(at)) = (self.dest(u), self.game.square_of(u)) else {
            return false;
        };
        if self.game.unit_at(d.square).is_some() {
            return false;
        }
        let mut spec = RouteSpec::to(at, Bitboard::from_square(d.square));
        spec.castles = self.castles_for(u);
        let rules = self.wait_rules();
        match self.find(&spec, &rules) {
            Some(r) => {
                self.apply(&r, "place");
                true
            }
            None => false,
        }
    }

    /// The move from `u`'s square to the next square of its path, if it is legal now.
    fn pawn_move(&self, u: Unit) -> Option<Move> {
        let from = self.game.square_of(u)?;
        let to = *self.path_ahead(u).first()?;
        let promotion = (to.rank() == Rank::First || to.rank() == Rank::Eighth)
            .then(|| self.dest(u).map(|d| d.role))
            .flatten();
        self.game.pos.legal_moves().into_iter().find(|m| {
            matches!(*m, Move::Normal { from: f, to: t, promotion: p, .. }
                if f == from && t == to && p == promotion)
        })
    }

    fn direct_pawn_step(&mut self, u: Unit) -> bool {
        let Some(to) = self.path_ahead(u).first().copied() else {
            return false;
        };
        let from = self.game.square_of(u).expect("alive");
        if from.file() != to.file() {
            // A capture: only of a doomed enemy unit.
            match self.game.unit_at(to) {
                Some(v) if color_of(v) != color_of(u) && self.plan.doomed(v) => {}
                _ => return false,
            }
        }
        let Some(m) = self.pawn_move(u).or_else(|| self.pawn_move_after_wait(u)) else {
            return false;
        };
        let mut spec = RouteSpec::single(m);
        spec.max_nodes = 8;
        let rules = self.wait_rules();
        match self.find(&spec, &rules) {
            Some(r) => {
                self.apply(&r, "direct_pawn_step");
                self.step[usize::from(u)] += 1;
                true
            }
            None => false,
        }
    }

    /// The pawn's next move when the other side is to move (it is checked for legality after
    /// the waiting move, by the route).
    fn pawn_move_after_wait(&self, u: Unit) -> Option<Move> {
        let from = self.game.square_of(u)?;
        if self.game.pos.turn() == color_of(u) {
            return None;
        }
        let to = *self.path_ahead(u).first()?;
        let board = self.game.pos.board();
        let between = attacks::between(from, to);
        if from.file() == to.file()
            && (board.occupied() & (between | Bitboard::from_square(to))).any()
        {
            return None;
        }
        let promotion = (to.rank() == Rank::First || to.rank() == Rank::Eighth)
            .then(|| self.dest(u).map(|d| d.role))
            .flatten();
        Some(Move::Normal {
            role: Role::Pawn,
            from,
            capture: board.role_at(to),
            to,
            promotion,
        })
    }

    fn assisted_pawn_step(&mut self, u: Unit) -> bool {
        let Some(to) = self.path_ahead(u).first().copied() else {
            return false;
        };
        let from = self.game.square_of(u).expect("alive");
        let board = self.game.pos.board().clone();
        if from.file() == to.file() {
            let blocker =
                (attacks::between(from, to) | Bitboard::from_square(to)) & board.occupied();
            let Some(b) = (if color_of(u).is_white() {
                blocker.first()
            } else {
                blocker.last()
            }) else {
                return false;
            };
            return self.clear(b, Bitboard::EMPTY);
        }
        match self.game.unit_at(to) {
            Some(v) if color_of(v) != color_of(u) && self.plan.doomed(v) => false,
            Some(_) => self.clear(to, Bitboard::EMPTY),
            None => self.summon_victim(!color_of(u), to),
        }
    }

    /// Brings one of `color`'s doomed units to `sq` (where an enemy pawn will take it): the
    /// one with the shortest route.
    fn summon_victim(&mut self, color: Color, sq: Square) -> bool {
        let rules = self.wait_rules();
        let mut best: Option<Route> = None;
        for v in units_of(color) {
            if !self.plan.doomed(v) {
                continue;
            }
            let Some(at) = self.game.square_of(v) else {
                continue;
            };
            if self.game.role_of(v) == Some(Role::Pawn) {
                // A pawn reaches the square only by pushes on its file.
                let ahead = if color.is_white() {
                    sq.rank() > at.rank()
                } else {
                    sq.rank() < at.rank()
                };
                if at.file() != sq.file() || !ahead || sq.rank() == (!color).backrank() {
                    continue;
                }
            }
            let mut spec = RouteSpec::to(at, Bitboard::from_square(sq));
            spec.max_moves = best
                .as_ref()
                .map_or(16, |b| (b.moves.len() as u32).div_ceil(2));
            if let Some(r) = self.find(&spec, &rules)
                && best.as_ref().is_none_or(|b| r.moves.len() < b.moves.len())
            {
                best = Some(r);
            }
        }
        match best {
            Some(r) => {
                self.apply(&r, "summon_victim");
                true
            }
            None => false,
        }
    }

    /// Moves the unit on `sq` out of the way, to a square off every path and final square
    /// (and off `avoid`).
    fn clear(&mut self, sq: Square, avoid: Bitboard) -> bool {
        if self.clears >= MAX_CLEARS {
            return false;
        }
        let Some(u) = self.game.unit_at(sq) else {
            return false;
        };
        if self.plan.is_frozen(u) || self.game.role_of(u) == Some(Role::Pawn) {
            return false;
        }
        let rules = self.wait_rules();
        let occupied = self.game.pos.board().occupied();
        let role = self.game.role_of(u).expect("alive");
        // Not into a pocket that the pawns still to come will close.
        let walls = self.fixed_pawns()
            | self.walled_in(self.fixed_pawns())
            | (0..UNITS as Unit)
                .flat_map(|p| self.path_ahead(p).iter().copied())
                .collect::<Bitboard>();
        let pockets: Bitboard = (!occupied)
            .into_iter()
            .filter(|&p| reach_count(role, p, walls) < 6)
            .collect();
        let park = !occupied & !rules.reserved & !avoid & !pockets;
        let mut spec = RouteSpec::to(sq, park);
        spec.max_moves = 6;
        let found = self.find(&spec, &rules).or_else(|| {
            // Anywhere off the square, then.
            let mut spec = RouteSpec::to(
                sq,
                !occupied & !avoid & !pockets & !Bitboard::from_square(sq),
            );
            spec.max_moves = 3;
            self.find(&spec, &rules)
        });
        match found {
            Some(r) => {
                self.clears += 1;
                self.apply(&r, "clear");
                true
            }
            None => false,
        }
    }

    // ---- Captures by pieces ---------------------------------------------------------------

    /// A doomed unit that no pawn needs any more is captured by an enemy piece (or king).
    fn free_captures(&mut self) -> bool {
        for color in self.sides() {
            let victims: Vec<Unit> = units_of(!color)
                .filter(|&v| self.game.alive(v) && self.plan.doomed(v))
                .collect();
            if victims.len() <= self.captures_ahead(color) {
                continue;
            }
            // Victims already standing where a pawn of `color` will take them are left to it.
            let waiting: Bitboard = units_of(color)
                .filter(|&p| self.game.alive(p))
                .flat_map(|p| {
                    let mut from = self.game.square_of(p);
                    self.path_ahead(p).iter().filter_map(move |&to| {
                        let capture = from.is_some_and(|f| f.file() != to.file());
                        from = Some(to);
                        capture.then_some(to)
                    })
                })
                .collect();
            let mut targets: Bitboard = victims
                .iter()
                .filter_map(|&v| self.game.square_of(v))
                .collect();
            if (targets & !waiting).any() {
                targets &= !waiting;
            }
            let rules = self.wait_rules();
            let mut best: Option<(usize, Route)> = None;
            for c in units_of(color) {
                let Some(at) = self.game.square_of(c) else {
                    continue;
                };
                if self.plan.is_frozen(c) || self.game.role_of(c) == Some(Role::Pawn) {
                    continue;
                }
                let mut spec = RouteSpec::capture(at, targets);
                spec.max_moves = best.as_ref().map_or(10, |(s, _)| (*s as u32).div_ceil(2));
                if let Some(r) = self.find(&spec, &rules) {
                    let score = r.moves.len() + if self.placed(c) { 3 } else { 0 };
                    if best.as_ref().is_none_or(|(s, _)| score < *s) {
                        best = Some((score, r));
                    }
                }
            }
            if let Some((_, r)) = best {
                self.apply(&r, "free_captures");
                return true;
            }
            // No piece reaches a victim standing still: capturer and victim walk together.
            if self.meet(color, &victims) {
                return true;
            }
            // No piece reaches a victim: a victim walks to where a piece can take it.
            if self.expose_victim(color, &victims) {
                return true;
            }
        }
        false
    }

    /// Captures the doomed unit on `sq` (a blocker) with a piece of the other side, if the
    /// pawns can spare it.
    fn kill(&mut self, sq: Square) -> bool {
        let Some(v) = self.game.unit_at(sq) else {
            return false;
        };
        let color = !color_of(v);
        let spare = units_of(!color)
            .filter(|&w| self.game.alive(w) && self.plan.doomed(w))
            .count();
        if spare <= self.captures_ahead(color) {
            return false;
        }
        let rules = self.wait_rules();
        let mut best: Option<Route> = None;
        for c in units_of(color) {
            let Some(at) = self.game.square_of(c) else {
                continue;
            };
            if self.plan.is_frozen(c) || self.game.role_of(c) == Some(Role::Pawn) {
                continue;
            }
            let mut spec = RouteSpec::capture(at, Bitboard::from_square(sq));
            spec.keep = Bitboard::from_square(sq);
            spec.max_moves = best
                .as_ref()
                .map_or(10, |b| (b.moves.len() as u32).div_ceil(2));
            if let Some(r) = self.find(&spec, &rules)
                && best.as_ref().is_none_or(|b| r.moves.len() < b.moves.len())
            {
                best = Some(r);
            }
        }
        match best {
            Some(r) => {
                self.apply(&r, "kill");
                true
            }
            None => self.meet(color, &[v]),
        }
    }

    /// One of `color`'s pieces captures one of `victims` while the victim walks toward it (a
    /// search over both units' moves): for a victim that its own side protects where it stands.
    fn meet(&mut self, color: Color, victims: &[Unit]) -> bool {
        let rules = self.wait_rules();
        for &v in victims {
            let Some(vsq) = self.game.square_of(v) else {
                continue;
            };
            for c in units_of(color) {
                let Some(at) = self.game.square_of(c) else {
                    continue;
                };
                if self.plan.is_frozen(c) || self.game.role_of(c) == Some(Role::Pawn) {
                    continue;
                }
                let mut spec = RouteSpec::capture(at, Bitboard::from_square(vsq));
                spec.partner = Some(vsq);
                spec.max_moves = 12;
                spec.max_nodes = 12_000;
                if let Some(r) = self.find(&spec, &rules) {
                    self.apply(&r, "meet");
                    return true;
                }
            }
        }
        false
    }

    /// Moves one of `victims` (units of `!color`) to a square that a piece of `color` attacks.
    fn expose_victim(&mut self, color: Color, victims: &[Unit]) -> bool {
        let board = self.game.pos.board().clone();
        let occupied = board.occupied();
        let mut reach = Bitboard::EMPTY;
        for c in units_of(color) {
            let Some(at) = self.game.square_of(c) else {
                continue;
            };
            let Some(role) = self.game.role_of(c) else {
                continue;
            };
            if role == Role::Pawn || self.plan.is_frozen(c) {
                continue;
            }
            reach |= steps(role, at, occupied);
        }
        reach &= !occupied;
        if reach.is_empty() {
            return false;
        }
        let rules = self.wait_rules();
        for &v in victims {
            let Some(at) = self.game.square_of(v) else {
                continue;
            };
            if self.game.role_of(v) == Some(Role::Pawn) {
                continue;
            }
            let mut spec = RouteSpec::to(at, reach);
            spec.max_moves = 8;
            if let Some(r) = self.find(&spec, &rules) {
                self.apply(&r, "expose_victim");
                return true;
            }
        }
        // Pawns push toward the pieces.
        for &v in victims {
            let Some(at) = self.game.square_of(v) else {
                continue;
            };
            if self.game.role_of(v) != Some(Role::Pawn) {
                continue;
            }
            let file = Bitboard::from_file(at.file()) & !Bitboard::BACKRANKS;
            let mut spec = RouteSpec::to(at, reach & file);
            spec.max_moves = 5;
            if let Some(r) = self.find(&spec, &rules) {
                self.apply(&r, "expose_victim");
                return true;
            }
        }
        false
    }

    // ---- Pieces to their squares ----------------------------------------------------------

    /// A piece (or king) walks to its final square: the most enclosed squares are filled first;
    /// a unit standing on the square or in the way is moved aside. `quick`: only walks of a
    /// few moves to squares that no pawn still has to pass, and nothing is moved aside.
    fn placements(&mut self, quick: bool) -> bool {
        let mut units: Vec<(u32, Unit)> = Vec::new();
        let stm = self.game.pos.turn();
        let paths: Bitboard = (0..UNITS as Unit)
            .filter(|&u| self.game.alive(u))
            .flat_map(|u| self.path_ahead(u).iter().copied())
            .collect();
        for u in 0..UNITS as Unit {
            if !self.game.alive(u) || self.placed(u) || !self.path_ahead(u).is_empty() {
                continue;
            }
            let Some(d) = self.dest(u) else { continue };
            if self.game.role_of(u) == Some(Role::Pawn) {
                continue;
            }
            if quick && (paths.contains(d.square) || self.game.unit_at(d.square).is_some()) {
                continue;
            }
            if self.aside == Some(u)
                && self
                    .focus
                    .is_some_and(|f| self.game.alive(f) && !self.placed(f))
            {
                continue;
            }
            if self.waits_for_castling(u) {
                continue;
            }
            let enclosed =
                (attacks::king_attacks(d.square) & self.target.board.occupied()).count() as u32 + 8
                    - attacks::king_attacks(d.square).count() as u32;
            let side = u32::from(color_of(u) != stm);
            let first = u32::from(self.focus != Some(u));
            units.push((first * 1000 + side * 100 + (20 - enclosed), u));
        }
        units.sort();
        // Units whose arrival would seal another unit's final square off wait (first pass), and
        // so does a king that will castle once its own units have left the squares between.
        // A unit whose final square a pawn still has to pass waits too.
        let sealing: Vec<Unit> = units
            .iter()
            .map(|&(_, u)| u)
            .filter(|&u| {
                self.seals(u, &units)
                    || self.will_castle(u)
                    || self.dest(u).is_some_and(|d| paths.contains(d.square))
            })
            .collect();
        if sealing.len() < units.len() {
            units.retain(|(_, u)| !sealing.contains(u));
        }
        let rules = self.wait_rules();
        for &(_, u) in &units {
            let d = self.dest(u).expect("a destination");
            let at = self.game.square_of(u).expect("alive");
            if let Some(w) = self.game.unit_at(d.square) {
                if quick || self.placed(w) || self.plan.is_frozen(w) {
                    continue;
                }
                if self.clear(d.square, Bitboard::EMPTY) {
                    return true;
                }
                continue;
            }
            let mut spec = RouteSpec::to(at, Bitboard::from_square(d.square));
            spec.castles = self.castles_for(u);
            if quick {
                spec.max_moves = 3;
                spec.max_nodes = 400;
            }
            if let Some(r) = self.find(&spec, &rules) {
                self.apply(&r, "placements");
                if self.focus == Some(u) {
                    self.focus = None;
                    self.aside = None;
                }
                return true;
            }
            if self.focus == Some(u) {
                self.focus = None;
                self.aside = None;
            }
        }
        if quick {
            return false;
        }
        // Nothing walks home: move aside a unit on the way of the first one that is blocked.
        for &(_, u) in &units {
            let d = self.dest(u).expect("a destination");
            let at = self.game.square_of(u).expect("alive");
            let role = self.game.role_of(u).expect("alive");
            if let Some((b, path)) = self.first_blocker(role, at, d.square) {
                let blocker = self.game.unit_at(b);
                if blocker.is_some_and(|v| self.plan.doomed(v)) && self.kill(b) {
                    return true;
                }
                if self.clear(b, path) {
                    self.focus = Some(u);
                    self.aside = blocker;
                    return true;
                }
            }
        }
        false
    }

    /// Whether `u` on its final square would cut another of `units` off from its own final
    /// square (around the pawns, the frozen units and the units already home; a king also off
    /// the squares enemy pawns attack), where it is not cut off now.
    fn seals(&self, u: Unit, units: &[(u32, Unit)]) -> bool {
        let Some(du) = self.dest(u) else { return false };
        let board = self.game.pos.board();
        let mut walls = board.pawns() | self.frozen_squares();
        for p in 0..UNITS as Unit {
            if self.placed(p) {
                walls |= self
                    .game
                    .square_of(p)
                    .map_or(Bitboard::EMPTY, Bitboard::from_square);
            }
        }
        units.iter().any(|&(_, w)| {
            if w == u {
                return false;
            }
            let (Some(dw), Some(at), Some(role)) =
                (self.dest(w), self.game.square_of(w), self.game.role_of(w))
            else {
                return false;
            };
            let mut o = walls;
            if role == Role::King {
                for sq in board.pawns() & board.by_color(!color_of(w)) {
                    o |= attacks::pawn_attacks(!color_of(w), sq);
                }
            }
            let o = o.without(at).without(dw.square);
            piece_distance(role, at, dw.square, o).is_some()
                && piece_distance(role, at, dw.square, o.with(du.square)).is_none()
        })
    }

    /// Whether `u` is a rook that castling will put on its final square: its king, not yet on
    /// its own final square, goes first (by castling).
    fn waits_for_castling(&self, u: Unit) -> bool {
        let color = color_of(u);
        let Some(king) = units_of(color).find(|&k| self.game.role_of(k) == Some(Role::King)) else {
            return false;
        };
        !self.placed(king)
            && self
                .game
                .square_of(u)
                .is_some_and(|sq| self.castles_for(king).contains(sq))
    }

    /// Whether `u` is a king whose final square castling reaches, with the rook going to its own
    /// final square, once the units of its side between them (none of them home there) leave.
    fn will_castle(&self, u: Unit) -> bool {
        let (Some(d), Some(at)) = (self.dest(u), self.game.square_of(u)) else {
            return false;
        };
        let board = self.game.pos.board();
        self.castles_for(u).into_iter().any(|rook| {
            let king_to = super::route::landing(Move::Castle { king: at, rook });
            if king_to != d.square {
                return false;
            }
            let between = attacks::between(at, rook);
            let blockers = between & board.occupied();
            blockers.any()
                && blockers.into_iter().all(|b| {
                    self.game.unit_at(b).is_some_and(|w| {
                        color_of(w) == color_of(u) && !self.placed(w) && !self.plan.is_frozen(w)
                    })
                })
        })
    }

    /// Castling moves `u` (a king) may use: those that put the king or the rook on its final
    /// square (a rook castled elsewhere walks on later).
    fn castles_for(&self, u: Unit) -> Bitboard {
        if self.game.role_of(u) != Some(Role::King) {
            return Bitboard::EMPTY;
        }
        let color = color_of(u);
        let (Some(at), Some(d)) = (self.game.square_of(u), self.dest(u)) else {
            return Bitboard::EMPTY;
        };
        let rights =
            self.game.pos.castles().castling_rights() & Bitboard::from_rank(color.backrank());
        rights
            .into_iter()
            .filter(|&rook| {
                if super::route::landing(Move::Castle { king: at, rook }) == d.square {
                    return true;
                }
                let file = if rook.file() > shakmaty::File::E {
                    shakmaty::File::F
                } else {
                    shakmaty::File::D
                };
                let rook_to = Square::from_coords(file, rook.rank());
                self.game
                    .unit_at(rook)
                    .and_then(|r| self.dest(r))
                    .is_some_and(|d| d.square == rook_to)
            })
            .collect()
    }

    /// The first movable unit on a shortest path of a `role` piece from `from` to `to` when
    /// units other than pawns and frozen ones are passable, and the squares of that path.
    fn first_blocker(&self, role: Role, from: Square, to: Square) -> Option<(Square, Bitboard)> {
        let board = self.game.pos.board();
        // Pawns that are captured later are no walls: they can be taken out of the way.
        let doomed_pawns: Bitboard = (0..UNITS as Unit)
            .filter(|&p| self.plan.doomed(p) && self.game.role_of(p) == Some(Role::Pawn))
            .filter_map(|p| self.game.square_of(p))
            .collect();
        let pawns = board.pawns() & !doomed_pawns;
        let mut hard = pawns | self.walled_in(pawns);
        if role == Role::King
            && let Some(color) = board.color_at(from)
        {
            for sq in board.pawns() & board.by_color(!color) {
                hard |= attacks::pawn_attacks(!color, sq);
            }
        }
        hard.discard(from);
        hard.discard(to);
        // Breadth-first search with parents.
        let mut parent = [u8::MAX; 64];
        let mut seen = Bitboard::from_square(from);
        let mut frontier = vec![from];
        'search: while !frontier.is_empty() {
            let mut next = Vec::new();
            for &sq in &frontier {
                for s in steps(role, sq, hard) & !seen & !hard {
                    seen.add(s);
                    parent[s.to_usize()] = sq.to_u32() as u8;
                    if s == to {
                        break 'search;
                    }
                    next.push(s);
                }
            }
            frontier = next;
        }
        if !seen.contains(to) {
            return None;
        }
        // Walk back and collect the squares passed (including the lines between them).
        let mut blockers = Vec::new();
        let mut passed = Bitboard::from_square(to);
        let mut sq = to;
        while sq != from {
            let p = Square::new(u32::from(parent[sq.to_usize()]));
            let line = if role == Role::Knight || role == Role::King {
                Bitboard::EMPTY
            } else {
                attacks::between(p, sq)
            };
            passed |= line | Bitboard::from_square(sq);
            for b in line | Bitboard::from_square(sq) {
                if board.occupied().contains(b) && b != to {
                    blockers.push(b);
                }
            }
            sq = p;
        }
        blockers.last().map(|&b| (b, passed))
    }

    // ---- The end ----------------------------------------------------------------------------

    /// Everything is on its square but the side to move or a few units are wrong: an exact
    /// search finishes.
    fn finish(&mut self) -> bool {
        let pending = (0..UNITS as Unit)
            .any(|u| self.game.alive(u) && (self.plan.doomed(u) || !self.path_ahead(u).is_empty()));
        if pending {
            return false;
        }
        match finish::finish(&self.game.pos, self.target, self.plan, self.limits) {
            Some(moves) => {
                for m in moves {
                    self.game.play(m);
                }
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::construct::plan::make_plan;
    use crate::position::PositionInput;

    fn pos(fen: &str) -> Position {
        PositionInput::parse(fen).unwrap().candidates().remove(0)
    }

    fn unit(sq: Square) -> Unit {
        super::super::game::unit_from_origin(sq).unwrap()
    }

    #[test]
    fn a_pawn_closing_a_bishops_diagonal_waits_for_it() {
        // The f1-bishop ends on c4 through d3, where White's d-pawn ends: d2-d3 lengthens its
        // way, e2-e4 does not.
        let target = pos("rnbqkbnr/pppp1ppp/8/4p3/2B1P3/3P4/PPP2PPP/RNBQK1NR b KQkq -");
        let plan = make_plan(&target, 0).unwrap();
        let limits = Limits::new(None, u64::MAX);
        let exec = Exec::new(&plan, &target, &limits, None);
        let (damage, shut) = exec.door_damage(unit(Square::D2));
        assert!(damage > 0);
        assert_eq!(shut, vec![unit(Square::F1)]);
        assert_eq!(exec.door_damage(unit(Square::E2)), (0, Vec::new()));
        // Carried out, the bishop leaves before the d-pawn moves.
        let mut exec = Exec::new(&plan, &target, &limits, None);
        assert_eq!(exec.run(), Outcome::Reached);
        let moves = &exec.game.moves;
        let index = |from: Square| moves.iter().position(|m| m.from() == Some(from)).unwrap();
        assert!(index(Square::F1) < index(Square::D2));
    }

    #[test]
    fn pockets_are_counted_around_walls() {
        // A bishop on a1 behind a pawn on b2 has nowhere to go; in the open it has its colour.
        let walls = Bitboard::from_square(Square::B2);
        assert_eq!(reach_count(Role::Bishop, Square::A1, walls), 1);
        assert_eq!(reach_count(Role::Bishop, Square::A1, Bitboard::EMPTY), 32);
        assert_eq!(reach_count(Role::Knight, Square::A1, Bitboard::EMPTY), 64);
    }

    #[test]
    fn a_side_that_cannot_lose_a_tempo_ends_with_the_wrong_side_to_move() {
        // Only knights ever moved (pawns at home, kings and rooks keep their rights): the
        // parity of each side's moves is fixed, and White to move cannot be reached.
        let target = pos("r1bqkbnr/pppppppp/2n5/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        let plan = make_plan(&target, 0).unwrap();
        let limits = Limits::new(None, u64::MAX);
        let mut exec = Exec::new(&plan, &target, &limits, None);
        assert_eq!(exec.run(), Outcome::WrongTurn);
        let fine = pos("r1bqkbnr/pppppppp/2n5/8/8/8/PPPPPPPP/RNBQKBNR b KQkq -");
        let plan = make_plan(&fine, 0).unwrap();
        let mut exec = Exec::new(&plan, &fine, &limits, None);
        assert_eq!(exec.run(), Outcome::Reached);
        assert_eq!(exec.game.moves.len() % 2, 1);
    }
}
