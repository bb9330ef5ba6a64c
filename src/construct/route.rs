//! Routing one unit: a breadth-first search over real positions in which one unit of the mover
//! walks to a square (or captures there) while the other side makes harmless waiting moves.
//!
//! Every move is played with shakmaty, so pins, checks and the kings' safety are exact. Neither
//! side gives check on the way (the other side would have to answer it), nobody captures except
//! the routed unit's last move when the route is a capture, and the waiting side never leaves
//! the mover without a move. The waiting side shuttles one unit: it steps away from its square
//! and comes back at its next turn, so that at most one of its units is off its square at any
//! time.

use std::collections::{HashSet, VecDeque};

use shakmaty::{
    Bitboard, Chess, EnPassantMode, File, Move, Position as _, Role, Square, zobrist::Zobrist64,
};

use super::game::Limits;

/// What a route must achieve.
#[derive(Clone, Debug)]
pub(super) struct RouteSpec {
    /// The routed unit's square.
    pub(super) from: Square,
    /// The squares on which the route may end.
    pub(super) accept: Bitboard,
    /// The last move captures the unit on an accept square (and only the last move captures).
    pub(super) capture: bool,
    /// A pawn that reaches its last rank becomes this role.
    pub(super) promotion: Option<Role>,
    /// The only move the unit may make (a single pawn step), if given.
    pub(super) only: Option<Move>,
    /// Castling moves the king may make, by the rook's square.
    pub(super) castles: Bitboard,
    /// At most this many moves of the routed unit.
    pub(super) max_moves: u32,
    /// At most this many positions searched.
    pub(super) max_nodes: usize,
    /// The route's last move may leave the other side without a legal move (the target is a
    /// stalemate).
    pub(super) final_stalemate: bool,
    /// Squares whose units the waiting side must leave where they are, besides the routed
    /// unit's.
    pub(super) keep: Bitboard,
    /// A unit of the other side that may move too (a victim walking to meet its capturer):
    /// its square. With `capture`, the route ends when the routed unit takes it, wherever it
    /// stands then (`accept` is not used).
    pub(super) partner: Option<Square>,
    /// The parity the number of the routed unit's moves must have (a route one move longer
    /// than the shortest changes the side to move at the end of the game).
    pub(super) parity: Option<u32>,
}

impl RouteSpec {
    /// A route of the unit on `from` to one of `accept`, without capture.
    pub(super) fn to(from: Square, accept: Bitboard) -> RouteSpec {
        RouteSpec {
            from,
            accept,
            capture: false,
            promotion: None,
            only: None,
            castles: Bitboard::EMPTY,
            max_moves: 24,
            max_nodes: 3000,
            final_stalemate: false,
            keep: Bitboard::EMPTY,
            partner: None,
            parity: None,
        }
    }

    /// A route of the unit on `from` that ends capturing on one of `accept`.
    pub(super) fn capture(from: Square, accept: Bitboard) -> RouteSpec {
        RouteSpec {
            capture: true,
            ..RouteSpec::to(from, accept)
        }
    }

    /// The single move `m` (with waiting moves before it when the other side is to move).
    pub(super) fn single(m: Move) -> RouteSpec {
        let from = m.from().expect("a board move");
        RouteSpec {
            capture: m.is_capture(),
            promotion: m.promotion(),
            only: Some(m),
            max_moves: 1,
            keep: Bitboard::from_square(m.to()),
            ..RouteSpec::to(from, Bitboard::from_square(m.to()))
        }
    }
}

/// Which units the waiting side may move, and where.
#[derive(Clone, Debug, Default)]
pub(super) struct WaitRules {
    /// Squares whose units never move (castling rights, units a route needs where they are).
    pub(super) frozen: Bitboard,
    /// Squares of units that are not on their final squares: they wait first.
    pub(super) loose: Bitboard,
    /// Squares that waiting units should not enter (pawn paths, final squares).
    pub(super) reserved: Bitboard,
}

/// A route found: the moves of both sides, and the waiting unit left off its square (its
/// square now and the square it came from).
#[derive(Clone, Debug)]
pub(super) struct Route {
    /// The moves, from the position the route started in.
    pub(super) moves: Vec<Move>,
    /// The waiting side's unit that is not back on its square.
    pub(super) displaced: Option<(Square, Square)>,
    /// The routed unit's moves.
    pub(super) steps: u32,
    /// What the route was asked to do.
    pub(super) spec: RouteSpec,
}

/// The waiting unit off its square: (its square now, the square it came from).
type Displaced = Option<(Square, Square)>;

struct Node {
    pos: Chess,
    sq: Square,
    /// The partner's square (see [`RouteSpec::partner`]).
    partner: Option<Square>,
    displaced: Displaced,
    parent: u32,
    moves: [Option<Move>; 2],
    depth: u32,
}

/// The square where the unit that makes `m` ends (the king's, for castling).
pub(super) fn landing(m: Move) -> Square {
    match m {
        Move::Castle { king, rook } => {
            let file = if rook.file() > king.file() {
                File::G
            } else {
                File::C
            };
            Square::from_coords(file, king.rank())
        }
        m => m.to(),
    }
}

/// Whether the routed unit may make `m` under `spec` (`partner`: the partner's square now).
fn allowed(m: Move, spec: &RouteSpec, partner: Option<Square>) -> bool {
    if let Some(only) = spec.only {
        return m == only;
    }
    match m {
        Move::Castle { rook, .. } => spec.castles.contains(rook),
        Move::EnPassant { .. } => false,
        Move::Normal {
            role,
            from,
            to,
            capture,
            promotion,
        } => {
            let target = match (spec.capture, partner) {
                (false, _) => false,
                (true, Some(p)) => to == p,
                (true, None) => spec.accept.contains(to),
            };
            if capture.is_some() != target {
                return false;
            }
            if role == Role::Pawn {
                // Pawns step straight unless this is the route's capture.
                if from.file() != to.file() && capture.is_none() {
                    return false;
                }
                if promotion.is_some() && promotion != spec.promotion {
                    return false;
                }
            }
            true
        }
        Move::Put { .. } => false,
    }
}

/// The search key of a position with its waiting unit.
fn key(pos: &Chess, displaced: Displaced, parity: u32) -> u64 {
    let z: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
    let d: u64 = displaced.map_or(0, |(a, b)| {
        1 + u64::from(a.to_u32()) * 64 + u64::from(b.to_u32())
    });
    z.0 ^ d.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ u64::from(parity) << 63
}

/// Routes the unit on `spec.from` (of the side that owns it) from `pos`; None when no route is
/// found within the spec's and the budget's limits.
pub(super) fn route(
    pos: &Chess,
    spec: &RouteSpec,
    rules: &WaitRules,
    limits: &Limits,
) -> Option<Route> {
    let mover = pos.board().color_at(spec.from)?;
    // The units the waiting side leaves alone: those the route needs where they are; a
    // capture route's victims wait only when nothing else can (the route takes one that stays).
    let busy = Busy {
        from: spec.keep | Bitboard::from_square(spec.from),
        soft: if spec.capture {
            spec.accept
        } else {
            Bitboard::EMPTY
        },
    };
    let mut root = pos.clone();
    let mut prefix = Vec::new();
    let mut displaced = None;
    if root.turn() != mover {
        let (w, d) = waiting_move(&root, rules, displaced, busy)?;
        root.play_unchecked(w);
        prefix.push(w);
        displaced = d;
    }
    let mut nodes = vec![Node {
        pos: root,
        sq: spec.from,
        partner: spec.partner,
        displaced,
        parent: u32::MAX,
        moves: [None, None],
        depth: 0,
    }];
    let mut seen = HashSet::new();
    // With a parity asked for, the same position after an odd and an even number of moves are
    // different states.
    let parity_of = |depth: u32| if spec.parity.is_some() { depth % 2 } else { 0 };
    seen.insert(key(&nodes[0].pos, displaced, 0));
    let mut queue = VecDeque::from([0u32]);
    while let Some(i) = queue.pop_front() {
        if !limits.tick(1) || nodes.len() > spec.max_nodes {
            return None;
        }
        let (depth, sq, partner, node_displaced) = {
            let n = &nodes[i as usize];
            (n.depth, n.sq, n.partner, n.displaced)
        };
        if depth >= spec.max_moves {
            continue;
        }
        let legal = nodes[i as usize].pos.legal_moves();
        // In check (a partner that checked on purpose): only taking it will do.
        let in_check = nodes[i as usize].pos.is_check();
        for m in legal {
            if m.from() != Some(sq) || !allowed(m, spec, partner) {
                continue;
            }
            let mut p1 = nodes[i as usize].pos.clone();
            p1.play_unchecked(m);
            if p1.is_check() {
                continue;
            }
            let to = landing(m);
            let arrived = match (spec.capture, partner) {
                (true, Some(p)) => to == p,
                _ => spec.accept.contains(to) && m.is_capture() == spec.capture,
            } && spec.parity.is_none_or(|p| (depth + 1) % 2 == p);
            if in_check && !arrived {
                continue;
            }
            if arrived {
                if !spec.final_stalemate && p1.legal_moves().is_empty() {
                    continue;
                }
                let mut moves = vec![m];
                let mut j = i;
                while j != u32::MAX {
                    let n = &nodes[j as usize];
                    for mv in n.moves.iter().rev().flatten() {
                        moves.push(*mv);
                    }
                    j = n.parent;
                }
                moves.extend(prefix.iter().rev());
                moves.reverse();
                return Some(Route {
                    moves,
                    displaced: node_displaced,
                    steps: depth + 1,
                    spec: spec.clone(),
                });
            }
            if spec.accept.contains(to) && partner.is_none() && spec.parity.is_none() {
                continue;
            }
            // The other side's replies: the partner's moves, then a waiting move.
            let mut replies: Vec<(Move, Option<Square>, Displaced)> = Vec::new();
            if let Some(p) = partner {
                for r in p1.legal_moves() {
                    if r.from() == Some(p) && partner_move(r) {
                        replies.push((r, Some(r.to()), node_displaced));
                    }
                }
            }
            if let Some((w, d)) = waiting_move(&p1, rules, node_displaced, busy.with(partner)) {
                replies.push((w, partner, d));
            }
            for (w, partner_now, d) in replies {
                let mut p2 = p1.clone();
                p2.play_unchecked(w);
                // A partner may check when the routed unit can take it at once (a king takes a
                // queen only after her check).
                if p2.is_check() && (partner_now != Some(w.to()) || !spec.capture) {
                    continue;
                }
                if seen.insert(key(&p2, d, parity_of(depth + 1))) {
                    nodes.push(Node {
                        pos: p2,
                        sq: to,
                        partner: partner_now,
                        displaced: d,
                        parent: i,
                        moves: [Some(m), Some(w)],
                        depth: depth + 1,
                    });
                    queue.push_back((nodes.len() - 1) as u32);
                }
            }
        }
    }
    None
}

/// Units the waiting side leaves alone.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Busy {
    /// Units that must not move.
    pub(super) from: Bitboard,
    /// Units that move only when no other can.
    pub(super) soft: Bitboard,
}

impl Busy {
    /// These, with the unit on `sq` (if any) kept where it is too.
    fn with(self, sq: Option<Square>) -> Busy {
        Busy {
            from: self.from | sq.map_or(Bitboard::EMPTY, Bitboard::from_square),
            ..self
        }
    }
}

/// Whether a partner may make `m`: no capture, no promotion, no castling.
fn partner_move(m: Move) -> bool {
    matches!(
        m,
        Move::Normal {
            capture: None,
            promotion: None,
            ..
        }
    )
}

/// A harmless move for the side to move in `pos`: a piece move that captures nothing, does not
/// castle, does not give check and leaves the units on `busy` alone. The unit that waited last
/// (`displaced`) comes back first; otherwise a unit that is not on its final square steps away,
/// preferably not onto a reserved square. Returns the move and the unit then off its square.
pub(super) fn waiting_move(
    pos: &Chess,
    rules: &WaitRules,
    displaced: Displaced,
    busy: Busy,
) -> Option<(Move, Displaced)> {
    let mut candidates: Vec<(u32, Move)> = Vec::new();
    for m in pos.legal_moves() {
        let Move::Normal {
            role,
            from,
            to,
            capture: None,
            promotion: None,
        } = m
        else {
            continue;
        };
        if role == Role::Pawn || busy.from.contains(from) {
            continue;
        }
        let reserved =
            u32::from(rules.reserved.contains(to)) * 4 + u32::from(busy.soft.contains(from)) * 8;
        let rank = match displaced {
            Some((now, home)) if from == now => {
                if to == home {
                    0
                } else {
                    1 + reserved
                }
            }
            Some(_) => {
                if rules.frozen.contains(from) {
                    continue;
                }
                16 + reserved
            }
            None => {
                if rules.frozen.contains(from) {
                    continue;
                }
                let placed = u32::from(!rules.loose.contains(from));
                2 + placed + reserved
            }
        };
        // Far from the busy units first: a waiting unit near the route is more likely to be
        // cut off from its square.
        let near = busy
            .from
            .into_iter()
            .map(|b| 7 - b.distance(from).min(7))
            .max()
            .unwrap_or(0);
        candidates.push((rank * 8 + near, m));
    }
    candidates.sort_by_key(|&(rank, m)| (rank, m.from(), m.to()));
    for (_, m) in candidates {
        let mut p = pos.clone();
        p.play_unchecked(m);
        if p.is_check() {
            continue;
        }
        let (from, to) = (m.from().expect("a board move"), m.to());
        let d = match displaced {
            Some((now, home)) if from == now => (to != home).then_some((to, home)),
            _ => Some((to, from)),
        };
        return Some((m, d));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen};

    fn chess(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    #[test]
    fn a_knight_walks_while_the_other_side_shuttles() {
        let pos = chess("4k3/8/8/8/8/8/8/N3K3 w - - 0 1");
        let limits = Limits::new(None, 100_000);
        let r = route(
            &pos,
            &RouteSpec::to(Square::A1, Bitboard::from_square(Square::H8)),
            &WaitRules::default(),
            &limits,
        )
        .unwrap();
        // The knight's 6 moves with 5 king moves between them, none giving check.
        assert_eq!(r.moves.len(), 11);
        let mut p = pos.clone();
        for m in &r.moves {
            assert!(p.is_legal(*m));
            p.play_unchecked(*m);
            assert!(!p.is_check());
        }
        assert_eq!(p.board().role_at(Square::H8), Some(Role::Knight));
        // The black king made an odd number of moves: it is off its square.
        assert!(r.displaced.is_some());
    }

    #[test]
    fn the_other_side_waits_first_when_it_is_to_move() {
        let pos = chess("4k3/8/8/8/8/8/8/R3K3 b - - 0 1");
        let limits = Limits::new(None, 100_000);
        let r = route(
            &pos,
            &RouteSpec::to(Square::A1, Bitboard::from_square(Square::A2)),
            &WaitRules::default(),
            &limits,
        )
        .unwrap();
        assert_eq!(r.moves.len(), 2);
        assert_eq!(r.moves[0].role(), Role::King);
        assert_eq!(r.moves[1].to(), Square::A2);
    }

    #[test]
    fn a_capture_route_ends_with_the_capture_and_no_check_is_given() {
        // The rook may not go to e-file squares that check; it takes the knight on h5.
        let pos = chess("4k3/8/8/7n/8/8/8/R3K3 w - - 0 1");
        let limits = Limits::new(None, 100_000);
        let r = route(
            &pos,
            &RouteSpec::capture(Square::A1, Bitboard::from_square(Square::H5)),
            &WaitRules {
                frozen: Bitboard::from_square(Square::H5),
                ..WaitRules::default()
            },
            &limits,
        )
        .unwrap();
        let last = *r.moves.last().unwrap();
        assert_eq!(last.capture(), Some(Role::Knight));
        assert_eq!(last.to(), Square::H5);
    }
}
