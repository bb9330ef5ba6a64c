//! The bookkeeping plan: which original unit becomes which unit of the target, which units are
//! captured, which pawn goes where along which squares (each change of file is a capture of an
//! enemy unit that dies anyway), which pawns promote where and to what, and which kings and
//! rooks must never move (a castling right kept) or must move out and back (a right lost).
//!
//! A plan is cheap to make, and several are made for one target: the `variant` number perturbs
//! the choices (which of two equal units goes where, whether a pawn makes its captures early or
//! late), so that a construction that fails with one plan can be tried again with another.

use shakmaty::{Bitboard, Color, Rank, Role, Square, attacks};

use super::game::{UNITS, Unit, origin, original_role, unit_from_origin, units_of};
use crate::position::Position;

/// Where an original unit ends: its square and role in the target (a pawn that promotes ends
/// with another role).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) struct Dest {
    /// The square in the target.
    pub(super) square: Square,
    /// The role in the target.
    pub(super) role: Role,
}

/// The fate of every original unit.
#[derive(Clone, Debug)]
pub(super) struct Plan {
    /// Each unit's square and role in the target; None for a unit that is captured.
    pub(super) dest: [Option<Dest>; UNITS],
    /// For each pawn that survives or promotes: the squares it stands on, its original square
    /// first and its final (or promotion) square last; one move between neighbours (a double
    /// step skips a square). Empty for pieces and for pawns that are captured.
    pub(super) path: [Vec<Square>; UNITS],
    /// Units that never move: the king and rook of every castling right the target keeps.
    pub(super) frozen: u32,
    /// Kings and rooks that end on their original squares but must lose a castling right: they
    /// move away and come back once.
    pub(super) round_trip: u32,
}

impl Plan {
    /// Whether `unit` never moves.
    pub(super) fn is_frozen(&self, unit: Unit) -> bool {
        self.frozen >> unit & 1 != 0
    }

    /// Whether `unit` is captured in the plan.
    pub(super) fn doomed(&self, unit: Unit) -> bool {
        self.dest[usize::from(unit)].is_none()
    }

    /// The number of captures `unit`'s path makes (file changes).
    #[cfg(test)]
    pub(super) fn path_captures(&self, unit: Unit) -> usize {
        self.path[usize::from(unit)]
            .windows(2)
            .filter(|w| w[0].file() != w[1].file())
            .count()
    }
}

/// Weight of one capture against one move in the assignment of pawns: captures are scarce
/// (each one needs an enemy unit that dies anyway on the right square).
const CAPTURE_WEIGHT: u32 = 64;

/// Weight of a pawn path crossing a square another pawn holds in the target.
const CROSSING_WEIGHT: u32 = 1000;

/// An unreachable cost.
const INF: u32 = u32::MAX / 4;

/// Deterministic noise in `0..span` for the choice `(a, b)` of variant `seed` (0 for variant 0).
fn noise(seed: u64, a: u32, b: u32, span: u32) -> u32 {
    if seed == 0 || span == 0 {
        return 0;
    }
    let mut z = seed
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        .wrapping_add(u64::from(a) << 32 | u64::from(b));
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    ((z ^ (z >> 31)) % u64::from(span)) as u32
}

/// The rank of `sq` counted from `color`'s side (0 = its back rank).
pub(super) fn relative_rank(color: Color, sq: Square) -> u32 {
    color.relative_rank(sq.rank()).to_u32()
}

/// The fewest moves of a `role` piece from `from` to `to` when `obstacles` never move (None when
/// it cannot get there).
pub(super) fn piece_distance(
    role: Role,
    from: Square,
    to: Square,
    obstacles: Bitboard,
) -> Option<u32> {
    if from == to {
        return Some(0);
    }
    let mut seen = Bitboard::from_square(from);
    let mut frontier = seen;
    let mut d = 0;
    while frontier.any() {
        d += 1;
        let mut next = Bitboard::EMPTY;
        for sq in frontier {
            next |= steps(role, sq, obstacles);
        }
        next &= !seen & !obstacles;
        if next.contains(to) {
            return Some(d);
        }
        seen |= next;
        frontier = next;
    }
    None
}

/// The squares a `role` piece on `sq` reaches in one move when `occupied` blocks its lines.
pub(super) fn steps(role: Role, sq: Square, occupied: Bitboard) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::bishop_attacks(sq, occupied),
        Role::Rook => attacks::rook_attacks(sq, occupied),
        Role::Queen => attacks::queen_attacks(sq, occupied),
        Role::King => attacks::king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// The classes of pieces that one original unit can stand for: knights, bishops by the colour
/// of their squares, rooks, queens.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Class {
    Knight,
    LightBishop,
    DarkBishop,
    Rook,
    Queen,
}

impl Class {
    const ALL: [Class; 5] = [
        Class::Knight,
        Class::LightBishop,
        Class::DarkBishop,
        Class::Rook,
        Class::Queen,
    ];

    fn of(role: Role, sq: Square) -> Option<Class> {
        match role {
            Role::Knight => Some(Class::Knight),
            Role::Bishop if sq.is_light() => Some(Class::LightBishop),
            Role::Bishop => Some(Class::DarkBishop),
            Role::Rook => Some(Class::Rook),
            Role::Queen => Some(Class::Queen),
            Role::King | Role::Pawn => None,
        }
    }
}

/// A target square that a pawn must fill: a pawn's square, or a piece's square reached by
/// promotion.
#[derive(Clone, Copy, Debug)]
struct Slot {
    square: Square,
    /// `Role::Pawn` for a pawn's square, else the role promoted to.
    role: Role,
}

/// Makes the plan of variant `variant` for `target`; None when no plan of this kind fits (too
/// many captures for the pawns, a unit that cannot reach its square).
pub(super) fn make_plan(target: &Position, variant: u64) -> Option<Plan> {
    let board = &target.board;
    let mut plan = Plan {
        dest: [None; UNITS],
        path: std::array::from_fn(|_| Vec::new()),
        frozen: 0,
        round_trip: 0,
    };
    // Frozen units: every castling right kept.
    for rook in target.castling {
        let color = Color::from_white(rook.rank() == Rank::First);
        let king = unit_from_origin(Square::from_coords(shakmaty::File::E, color.backrank()))?;
        plan.frozen |= 1 << king | 1 << unit_from_origin(rook)?;
    }
    // Units that cannot have moved and squares they block for every route: pawns on their
    // original squares and the frozen units.
    let mut still = (board.pawns() & board.white() & Bitboard::from_rank(Rank::Second))
        | (board.pawns() & board.black() & Bitboard::from_rank(Rank::Seventh));
    for u in 0..UNITS as Unit {
        if plan.is_frozen(u) {
            still.add(origin(u));
        }
    }
    let mut captures = [0usize; 2];
    for color in Color::ALL {
        captures[color as usize] = plan_side(target, color, still, variant, &mut plan)?;
    }
    for color in Color::ALL {
        let missing = 16 - board.by_color(!color).count();
        if captures[color as usize] > missing {
            return None;
        }
    }
    plan_round_trips(target, &mut plan);
    Some(plan)
}

/// Plans one side's units; returns the number of captures its pawns make.
fn plan_side(
    target: &Position,
    color: Color,
    still: Bitboard,
    variant: u64,
    plan: &mut Plan,
) -> Option<usize> {
    let board = &target.board;
    let ours = board.by_color(color);
    // The king.
    let king = units_of(color).find(|&u| original_role(u) == Role::King)?;
    let king_sq = (board.kings() & ours).first()?;
    plan.dest[usize::from(king)] = Some(Dest {
        square: king_sq,
        role: Role::King,
    });
    // Pieces, class by class: originals first, the rest promoted.
    let mut slots: Vec<Slot> = (board.pawns() & ours)
        .into_iter()
        .map(|square| Slot {
            square,
            role: Role::Pawn,
        })
        .collect();
    for class in Class::ALL {
        let targets: Vec<(Square, Role)> = ours
            .into_iter()
            .filter_map(|sq| {
                let role = board.role_at(sq)?;
                (Class::of(role, sq) == Some(class)).then_some((sq, role))
            })
            .collect();
        let originals: Vec<Unit> = units_of(color)
            .filter(|&u| Class::of(original_role(u), origin(u)) == Some(class))
            .collect();
        let promoted = match_class(color, &targets, &originals, still, variant, plan)?;
        slots.extend(
            promoted
                .into_iter()
                .map(|(square, role)| Slot { square, role }),
        );
    }
    if slots.len() > 8 {
        return None;
    }
    assign_pawns(color, &slots, still, variant, target, plan)
}

/// Matches the target's pieces of one class to the originals of that class (each target square
/// gets an original or is left to a promotion, the originals left over are captured), at the
/// least cost; returns the squares left to promotions.
fn match_class(
    color: Color,
    targets: &[(Square, Role)],
    originals: &[Unit],
    still: Bitboard,
    variant: u64,
    plan: &mut Plan,
) -> Option<Vec<(Square, Role)>> {
    let cost = |o: Unit, (sq, role): (Square, Role)| -> u32 {
        if plan.is_frozen(o) || still.contains(sq) {
            // A frozen unit stands for itself only; a square held since the start is its own.
            return if origin(o) == sq { 0 } else { INF };
        }
        let obstacles = still.without(origin(o)).without(sq);
        piece_distance(role, origin(o), sq, obstacles).map_or(INF, |d| {
            d * 4 + noise(variant, u32::from(o), sq.to_u32(), 6)
        })
    };
    let promo_cost = |(sq, role): (Square, Role)| -> u32 {
        if still.contains(sq) {
            return INF;
        }
        24 + promotion_reach(color, role, sq, still).map_or(INF, |d| d * 4)
            + noise(variant, 99, sq.to_u32(), 6)
    };
    // Each target: an original (by index) or a promotion; originals distinct. At most two
    // originals per class, so the choices are few.
    let n = targets.len();
    let mut best: Option<(u32, Vec<Option<usize>>)> = None;
    let mut choice = vec![None; n];
    let mut search = |choice: &mut Vec<Option<usize>>| {
        let mut total = 0u32;
        for (i, c) in choice.iter().enumerate() {
            let c = match c {
                Some(o) => cost(originals[*o], targets[i]),
                None => promo_cost(targets[i]),
            };
            total = total.saturating_add(c);
        }
        if total < INF && best.as_ref().is_none_or(|(b, _)| total < *b) {
            best = Some((total, choice.clone()));
        }
    };
    // Enumerate the injective partial maps originals -> targets.
    match originals.len() {
        0 => search(&mut choice),
        1 => {
            search(&mut choice);
            for i in 0..n {
                choice[i] = Some(0);
                search(&mut choice);
                choice[i] = None;
            }
        }
        _ => {
            search(&mut choice);
            for i in 0..n {
                for o in 0..2 {
                    choice[i] = Some(o);
                    search(&mut choice);
                    for j in 0..n {
                        if j != i {
                            choice[j] = Some(1 - o);
                            search(&mut choice);
                            choice[j] = None;
                        }
                    }
                    choice[i] = None;
                }
            }
        }
    }
    let (_, choice) = best?;
    let mut promoted = Vec::new();
    for (i, c) in choice.iter().enumerate() {
        let (square, role) = targets[i];
        match c {
            Some(o) => {
                plan.dest[usize::from(originals[*o])] = Some(Dest { square, role });
            }
            None => promoted.push((square, role)),
        }
    }
    Some(promoted)
}

/// The fewest moves of a `color` piece of `role` from one of its promotion squares to `sq`.
fn promotion_reach(color: Color, role: Role, sq: Square, still: Bitboard) -> Option<u32> {
    let last = (!color).backrank();
    (0..8)
        .map(|f| Square::from_coords(shakmaty::File::new(f), last))
        .filter(|q| role != Role::Bishop || q.is_light() == sq.is_light())
        .filter_map(|q| piece_distance(role, q, sq, still.without(sq).without(q)))
        .min()
}

/// Assigns the side's pawns to the slots (pawn squares and promotions) with the fewest
/// captures, then the fewest moves; writes their destinations and paths. Returns the number of
/// captures their paths make.
fn assign_pawns(
    color: Color,
    slots: &[Slot],
    still: Bitboard,
    variant: u64,
    target: &Position,
    plan: &mut Plan,
) -> Option<usize> {
    let pawns: Vec<Unit> = units_of(color)
        .filter(|&u| original_role(u) == Role::Pawn)
        .collect();
    // A path that must cross a square another pawn holds in the target (or a unit that never
    // moves) is possible only in the right order, if at all: it costs as much as many captures.
    // Squares to keep off: the target's other pawns, the units that never move, and the squares
    // from which a pawn would check an enemy king that never moves (castling kept).
    let mut walls = target.board.pawns() | still;
    if let Some(k) = (target.board.kings() & target.board.by_color(!color)).first()
        && plan.is_frozen(unit_from_origin(k).unwrap_or(0))
        && unit_from_origin(k).is_some_and(|u| original_role(u) == Role::King)
    {
        walls |= attacks::pawn_attacks(!color, k);
    }
    let crossing = |p: Unit, slot: &Slot, q: Square| -> u32 {
        let avoid = walls.without(slot.square).without(q);
        pawn_path(color, origin(p), q, avoid, variant, u32::from(p)).1 * CROSSING_WEIGHT
    };
    // The cost and the square the pawn heads for (its final square or promotion square).
    let option = |p: Unit, slot: &Slot| -> Option<(u32, Square)> {
        let f0 = origin(p).file().to_u32();
        if slot.role == Role::Pawn {
            let rank = relative_rank(color, slot.square);
            let k = f0.abs_diff(slot.square.file().to_u32());
            if rank < 1 || rank - 1 < k {
                return None;
            }
            let c = k * CAPTURE_WEIGHT
                + (rank - 1)
                + crossing(p, slot, slot.square)
                + noise(variant, u32::from(p), slot.square.to_u32(), 3);
            Some((c, slot.square))
        } else {
            let last = (!color).backrank();
            (0..8)
                .filter_map(|g| {
                    let q = Square::from_coords(shakmaty::File::new(g), last);
                    if slot.role == Role::Bishop && q.is_light() != slot.square.is_light() {
                        return None;
                    }
                    if still.contains(q) && q != slot.square {
                        return None;
                    }
                    let k = f0.abs_diff(g);
                    if k > 6 {
                        return None;
                    }
                    let reach = piece_distance(
                        slot.role,
                        q,
                        slot.square,
                        still.without(q).without(slot.square),
                    )?;
                    Some((
                        k * CAPTURE_WEIGHT
                            + 6
                            + reach * 2
                            + crossing(p, slot, q)
                            + noise(variant, u32::from(p) << 8 | g, slot.square.to_u32(), 4),
                        q,
                    ))
                })
                .min_by_key(|&(c, q)| (c, q))
        }
    };
    let n = slots.len();
    let m = pawns.len();
    let table: Vec<Vec<Option<(u32, Square)>>> = slots
        .iter()
        .map(|s| pawns.iter().map(|&p| option(p, s)).collect())
        .collect();
    // dp over (slots assigned in order, set of pawns used, captures made), within the
    // captures the other side's missing units allow.
    let budget = 16usize
        .saturating_sub(target.board.by_color(!color).count())
        .min(16);
    let caps = |j: usize, q: Square| origin(pawns[j]).file().distance(q.file()) as usize;
    let full = 1usize << m;
    let mut dp = vec![vec![vec![INF; budget + 1]; full]; n + 1];
    dp[0][0][0] = 0;
    for i in 0..n {
        for mask in 0..full {
            for k in 0..=budget {
                let base = dp[i][mask][k];
                if base >= INF {
                    continue;
                }
                for (j, o) in table[i].iter().enumerate() {
                    if mask >> j & 1 != 0 {
                        continue;
                    }
                    if let Some((c, q)) = *o {
                        let k2 = k + caps(j, q);
                        if k2 <= budget {
                            let next = &mut dp[i + 1][mask | 1 << j][k2];
                            *next = (*next).min(base + c);
                        }
                    }
                }
            }
        }
    }
    let (mut mask, mut k, _) = (0..full)
        .flat_map(|mask| (0..=budget).map(move |k| (mask, k)))
        .map(|(mask, k)| (mask, k, dp[n][mask][k]))
        .filter(|&(_, _, c)| c < INF)
        .min_by_key(|&(mask, k, c)| (c, k, mask))?;
    // Reconstruct, last slot first.
    let mut heading = vec![None; m];
    for i in (0..n).rev() {
        let here = dp[i + 1][mask][k];
        let (j, q) = table[i]
            .iter()
            .enumerate()
            .find_map(|(j, o)| {
                let (c, q) = (*o)?;
                let k0 = k.checked_sub(caps(j, q))?;
                (mask >> j & 1 != 0 && dp[i][mask & !(1 << j)][k0] + c == here).then_some((j, q))
            })
            .expect("the optimum has a predecessor");
        heading[j] = Some((q, slots[i]));
        mask &= !(1 << j);
        k -= caps(j, q);
    }
    // Paths, avoiding the squares of the target's other pawns and the units that never move.
    let mut captures = 0;
    for (j, h) in heading.iter().enumerate() {
        let Some((q, slot)) = *h else { continue };
        let p = pawns[j];
        plan.dest[usize::from(p)] = Some(Dest {
            square: slot.square,
            role: slot.role,
        });
        let avoid = walls.without(slot.square).without(q);
        let (path, _) = pawn_path(color, origin(p), q, avoid, variant, u32::from(p));
        captures += path
            .windows(2)
            .filter(|w| w[0].file() != w[1].file())
            .count();
        plan.path[usize::from(p)] = path;
    }
    Some(captures)
}

/// A pawn's squares from `from` to `to` (same colour's pawn moves: pushes and diagonal
/// captures toward `to`'s file), avoiding `avoid` where it can. Variant 0 makes the captures
/// late, odd variants early; the first two pushes from the original square are one double step.
/// Returns the squares and how many squares of `avoid` they cross.
pub(super) fn pawn_path(
    color: Color,
    from: Square,
    to: Square,
    avoid: Bitboard,
    variant: u64,
    salt: u32,
) -> (Vec<Square>, u32) {
    let r0 = relative_rank(color, from);
    let n = relative_rank(color, to) - r0;
    let f0 = from.file().to_u32() as i32;
    let f1 = to.file().to_u32() as i32;
    let k = f0.abs_diff(f1);
    let dir = (f1 - f0).signum();
    let forward = if color.is_white() { 8 } else { -8 };
    let early = variant % 2 == 1;
    let mut best: Option<((u32, u32, u32), Vec<Square>)> = None;
    for mask in 0u32..1 << n {
        if mask.count_ones() != k {
            continue;
        }
        let mut squares = vec![from];
        let mut cur = from;
        let mut hits = 0;
        for step in 0..n {
            let delta = forward + if mask >> step & 1 != 0 { dir } else { 0 };
            cur = cur.offset(delta).expect("a pawn path stays on the board");
            if cur != to && avoid.contains(cur) {
                hits += 1;
            }
            squares.push(cur);
        }
        // Early: captures at low steps; late: at high steps.
        let position_score: u32 = (0..n)
            .filter(|s| mask >> s & 1 != 0)
            .map(|s| if early { s } else { n - s })
            .sum();
        let key = (hits, position_score, noise(variant / 2, salt, mask, 8));
        if best.as_ref().is_none_or(|(b, _)| key < *b) {
            best = Some((key, squares));
        }
    }
    let ((hits, _, _), mut squares) =
        best.expect("a path exists when the ranks allow the captures");
    if squares.len() >= 3
        && squares[0].file() == squares[1].file()
        && squares[1].file() == squares[2].file()
        && r0 == 1
    {
        squares.remove(1);
    }
    (squares, hits)
}

/// Kings and rooks that stand on their original squares in the target and keep their
/// original identity, but whose castling right the target does not have: they must move out
/// and back once (the king, when its side keeps no right at all; else the rook).
fn plan_round_trips(target: &Position, plan: &mut Plan) {
    for color in Color::ALL {
        let king = units_of(color)
            .find(|&u| original_role(u) == Role::King)
            .expect("a king");
        let home = |u: Unit| plan.dest[usize::from(u)].is_some_and(|d| d.square == origin(u));
        let rooks: Vec<Unit> = units_of(color)
            .filter(|&u| original_role(u) == Role::Rook && home(u))
            .collect();
        let kept = target.castling & Bitboard::from_rank(color.backrank());
        let lost: Vec<Unit> = rooks
            .into_iter()
            .filter(|&r| !kept.contains(origin(r)))
            .collect();
        if !home(king) || lost.is_empty() {
            continue;
        }
        if kept.is_empty() {
            plan.round_trip |= 1 << king;
        } else {
            for r in lost {
                plan.round_trip |= 1 << r;
            }
        }
    }
}

/// The units `board` holds of `color` in the target that a plan gives no original to (none
/// when the plan is complete). Used by tests.
#[cfg(test)]
fn unplanned(plan: &Plan, board: &shakmaty::Board, color: Color) -> usize {
    let planned = units_of(color)
        .filter(|&u| plan.dest[usize::from(u)].is_some())
        .count();
    board.by_color(color).count() - planned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::PositionInput;

    fn pos(fen: &str) -> Position {
        PositionInput::parse(fen).unwrap().candidates().remove(0)
    }

    #[test]
    fn the_initial_array_moves_nothing_and_freezes_kings_and_rooks() {
        let plan = make_plan(&Position::initial(), 0).unwrap();
        for u in 0..UNITS as Unit {
            assert_eq!(plan.dest[usize::from(u)].unwrap().square, origin(u));
            if original_role(u) == Role::Pawn {
                assert_eq!(plan.path[usize::from(u)], vec![origin(u)]);
            }
        }
        assert_eq!(plan.frozen.count_ones(), 6);
        assert_eq!(plan.round_trip, 0);
    }

    #[test]
    fn a_pawn_changing_file_captures_and_the_count_is_checked() {
        // White's e-pawn took on d5 (a black unit is missing), the d-pawn is still at home.
        let target = pos("rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq -");
        let plan = make_plan(&target, 0).unwrap();
        let e_pawn = unit_from_origin(Square::E2).unwrap();
        let d_pawn = unit_from_origin(Square::D2).unwrap();
        assert_eq!(plan.dest[usize::from(e_pawn)].unwrap().square, Square::D5);
        assert_eq!(plan.path_captures(e_pawn), 1);
        assert_eq!(plan.dest[usize::from(d_pawn)].unwrap().square, Square::D2);
        assert!(plan.doomed(unit_from_origin(Square::D7).unwrap()));
        assert_eq!(unplanned(&plan, &target.board, Color::White), 0);
        // The same structure without a missing black unit needs a capture it cannot have.
        let impossible = pos("rnbqkbnr/pppppppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq -");
        assert!(make_plan(&impossible, 0).is_none());
    }

    #[test]
    fn paths_go_around_the_other_pawns_squares() {
        // From e2 to d5 with one capture: late by default (e4xd5), early when e3/e4 are taken.
        let (late, _) = pawn_path(Color::White, Square::E2, Square::D5, Bitboard::EMPTY, 0, 0);
        assert_eq!(late, vec![Square::E2, Square::E4, Square::D5]);
        let avoid = Bitboard::from_square(Square::E4);
        let (around, hits) = pawn_path(Color::White, Square::E2, Square::D5, avoid, 0, 0);
        assert_eq!(hits, 0);
        assert_eq!(around, vec![Square::E2, Square::E3, Square::D4, Square::D5]);
        let (early, _) = pawn_path(Color::White, Square::E2, Square::D5, avoid, 1, 0);
        assert_eq!(early, vec![Square::E2, Square::D3, Square::D4, Square::D5]);
        let (black, _) = pawn_path(Color::Black, Square::C7, Square::A5, Bitboard::EMPTY, 0, 0);
        assert_eq!(black, vec![Square::C7, Square::B6, Square::A5]);
    }

    #[test]
    fn a_promotion_goes_around_an_enemy_pawn_on_its_file() {
        // White's e-pawn became the rook on b7; Black's e-pawn stands on e5, so the white pawn
        // left the e-file by a capture (Black lost eleven units).
        let target = pos("8/1Rpp4/8/p1k1p3/P7/8/1PPP1PPP/RNBQKBNR b KQ -");
        let plan = make_plan(&target, 0).unwrap();
        let e_pawn = unit_from_origin(Square::E2).unwrap();
        assert_eq!(plan.dest[usize::from(e_pawn)].unwrap().role, Role::Rook);
        let path = &plan.path[usize::from(e_pawn)];
        assert!(!path.contains(&Square::E5), "{path:?}");
        assert!(plan.path_captures(e_pawn) >= 1);
    }

    #[test]
    fn extra_queens_are_promoted_pawns() {
        // Three white queens: the original and two promoted pawns; Black lost seven units.
        let target = pos("k7/8/8/8/8/8/8/QQQ1K3 w - -");
        let plan = make_plan(&target, 0).unwrap();
        let promoted: Vec<Unit> = (8..16)
            .filter(|&u| plan.dest[usize::from(u)].is_some_and(|d| d.role == Role::Queen))
            .collect();
        assert_eq!(promoted.len(), 2);
        for p in promoted {
            let path = &plan.path[usize::from(p)];
            assert_eq!(path.last().unwrap().rank(), Rank::Eighth);
        }
        assert_eq!(unplanned(&plan, &target.board, Color::White), 0);
    }

    #[test]
    fn a_king_at_home_without_rights_makes_a_round_trip() {
        let target = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Kq -");
        let plan = make_plan(&target, 0).unwrap();
        // White keeps K: the a1-rook goes out and back. Black keeps q: the h8-rook does.
        assert_eq!(
            plan.round_trip,
            1 << unit_from_origin(Square::A1).unwrap() | 1 << unit_from_origin(Square::H8).unwrap()
        );
        let none = pos("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w - -");
        let plan = make_plan(&none, 0).unwrap();
        assert_eq!(
            plan.round_trip,
            1 << unit_from_origin(Square::E1).unwrap() | 1 << unit_from_origin(Square::E8).unwrap()
        );
    }
}
