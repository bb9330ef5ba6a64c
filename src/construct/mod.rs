//! The game constructor: a legal game from the initial array that ends in a given position.
//!
//! The solver's witness lines end in the predecessor P_R of a reset. A witness becomes a proof
//! (SPEC §4, *certified*) only when a complete game from the initial array reaches P_R; this
//! module builds such games. Any game will do: it is not a shortest proof game, and games of
//! hundreds of plies are normal.
//!
//! How a game is built:
//! 1. **Bookkeeping** ([`plan`]): each unit of the target is given an original unit (pieces by
//!    role, bishops by the colour of their squares, extra pieces to promoted pawns), each pawn
//!    a path of pushes and captures (a file change captures an enemy unit that dies anyway),
//!    and the castling rights decide which kings and rooks never move and which must move out
//!    and back.
//! 2. **Macro-steps** ([`exec`]): the plan is carried out forward with shakmaty, one unit at a
//!    time, each step a small search over real positions ([`route`]) while the other side makes
//!    harmless waiting moves; nobody gives check on the way.
//! 3. **The end** ([`finish`]): an exact search puts the side to move right (a tempo lost by a
//!    king, queen, rook or bishop) and the last few units in place.
//!
//! A target whose side to move is in check, or has no legal move, or has an e.p. square, is
//! built through its predecessor: a retraction is taken back (the double step, for an e.p.
//! square) and the predecessor built instead. Several plans are tried (variants of the
//! bookkeeping's choices) until one succeeds or the [`Budget`] is spent.
//!
//! Every game returned has been replayed by [`crate::verify::replay_line`] and is still in
//! progress at its end by the rules that end a game by themselves: no run of 150 plies without
//! a capture or pawn move (FIDE 9.6.2) and no position five times (9.6.1). It is deterministic:
//! the same target and a budget that is not reached give the same game.
//!
//! ```
//! use retroclock::construct::{Budget, construct_game};
//! use retroclock::position::PositionInput;
//! use retroclock::verify::replay_line;
//! use retroclock::position::Position;
//!
//! let target = PositionInput::parse("8/8/4k3/8/8/3K4/8/R7 b - -").unwrap().candidates().remove(0);
//! let game = construct_game(&target, &Budget::seconds(5.0)).expect("a game");
//! assert!(replay_line(&Position::initial(), &game, &target).is_ok());
//! ```

mod exec;
mod finish;
mod game;
mod plan;
mod route;

use std::{
    collections::HashMap,
    time::{Duration, Instant},
};

use shakmaty::{
    Chess, Color, EnPassantMode, Move, Position as _, Rank, Role, Square, zobrist::Zobrist64,
};

use crate::{
    position::Position,
    retract::{RetractionKind, retractions},
    verify,
};
use game::Limits;

/// Limits of one construction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// The construction gives up at this instant (None: no deadline).
    pub deadline: Option<Instant>,
    /// The construction gives up after this many search nodes (positions looked at by its
    /// searches).
    pub max_nodes: u64,
}

impl Budget {
    /// A budget of `seconds` from now, with no limit on nodes.
    pub fn seconds(seconds: f64) -> Budget {
        Budget {
            deadline: Some(Instant::now() + Duration::from_secs_f64(seconds)),
            max_nodes: u64::MAX,
        }
    }
}

/// The most plans tried for one position.
const MAX_VARIANTS: u64 = 48;
/// How many routes are tried one move longer to put the side to move right.
const MAX_FLIPS: u32 = 6;
/// How deep predecessors are taken back (e.p. square, check, no legal move).
const MAX_RETRACTIONS: u32 = 3;
/// The longest run of plies without capture or pawn move that a game may have (FIDE 9.6.2
/// ends the game when it reaches 150).
const MAX_CLOCK: u32 = 149;

/// Builds a game from the initial array that ends in `target`, re-checked by replay with
/// `crate::verify` before it is returned; None when none was found within the budget.
///
/// The target's four fields are matched as [`crate::verify`] matches them: placement, side to
/// move, castling rights, and an e.p. square that means the last move was that double step.
pub fn construct_game(target: &Position, budget: &Budget) -> Option<Vec<Move>> {
    let limits = Limits::new(budget.deadline, budget.max_nodes);
    let moves = build(target, &limits)?;
    verify::replay_line(&Position::initial(), &moves, target).ok()?;
    Some(moves)
}

/// A position to build directly, and the moves that then lead to the target.
struct Candidate {
    start: Position,
    then: Vec<Move>,
}

/// The windows of plan variants tried in turn on every candidate.
const WINDOWS: [std::ops::Range<u64>; 5] = [0..2, 2..6, 6..14, 14..30, 30..MAX_VARIANTS];

/// A game to `target`, or None. The candidates (the target, or the predecessors of a target
/// that cannot be built directly) are tried in turn with a few plan variants each, then a few
/// more, so that one hard candidate does not spend the whole budget; a target that resists
/// its first variants is tried through its predecessors too.
fn build(target: &Position, limits: &Limits) -> Option<Vec<Move>> {
    let mut candidates = Vec::new();
    gather(target, Vec::new(), 0, &mut candidates);
    let direct_target = candidates.len() == 1 && candidates[0].then.is_empty();
    for (i, window) in WINDOWS.iter().enumerate() {
        if i == 2 && direct_target {
            for r in predecessors(target) {
                gather(&r.predecessor, vec![r.mv], 1, &mut candidates);
            }
        }
        for c in &candidates {
            if limits.exhausted() {
                return None;
            }
            if let Some(mut moves) = direct(&c.start, limits, window.clone()) {
                moves.extend(c.then.iter().copied());
                if let Some(moves) = accepted(moves, target) {
                    return Some(moves);
                }
            }
        }
    }
    None
}

/// Adds to `out` the positions from which `target` is built: itself, or (for an e.p. square,
/// a side to move in check or without a move) its predecessors, `then` being the moves that
/// follow.
fn gather(target: &Position, then: Vec<Move>, depth: u32, out: &mut Vec<Candidate>) {
    if let Some(ep) = target.ep_square {
        if let Some((before, step)) = undo_double_step(target, ep) {
            let mut then = then;
            then.insert(0, step);
            gather(&before, then, depth + 1, out);
        }
        return;
    }
    let Some(chess) = target.to_chess() else {
        return;
    };
    if !(chess.is_check() || chess.legal_moves().is_empty()) || target.is_initial() {
        out.push(Candidate {
            start: target.clone(),
            then,
        });
        return;
    }
    if depth >= MAX_RETRACTIONS {
        return;
    }
    for r in predecessors(target) {
        let mut then = then.clone();
        then.insert(0, r.mv);
        gather(&r.predecessor, then, depth + 1, out);
    }
}

/// The predecessors tried for `target`, at most ten: those whose side to move is not in check
/// and that have no e.p. square first, the kinds of retraction taken in turn (a quiet move, an
/// un-capture, a pawn move, ...), so that a kind that cannot work (a side whose only mobile
/// units are knights cannot change the parity of its moves) does not fill the list.
fn predecessors(target: &Position) -> Vec<crate::retract::Retraction> {
    let mut all = retractions(target);
    all.sort_by_key(|r| {
        let in_check = r.predecessor.to_chess().is_none_or(|c| c.is_check());
        (in_check, r.predecessor.ep_square.is_some())
    });
    let mut kinds: Vec<(
        RetractionKind,
        std::collections::VecDeque<crate::retract::Retraction>,
    )> = Vec::new();
    for r in all {
        match kinds.iter_mut().find(|(k, _)| *k == r.kind) {
            Some((_, list)) => list.push_back(r),
            None => kinds.push((r.kind, std::collections::VecDeque::from([r]))),
        }
    }
    let mut out = Vec::new();
    while out.len() < 10 && kinds.iter().any(|(_, l)| !l.is_empty()) {
        for (_, list) in &mut kinds {
            if let Some(r) = list.pop_front()
                && out.len() < 10
            {
                out.push(r);
            }
        }
    }
    out
}

/// Plans `variants` carried out directly. A plan that reaches the target's placement with the
/// other side to move is carried out again with one of its routes a move longer (the first,
/// then later ones), which changes the side to move from there on.
fn direct(target: &Position, limits: &Limits, variants: std::ops::Range<u64>) -> Option<Vec<Move>> {
    if target.is_initial() {
        return Some(Vec::new());
    }
    for variant in variants {
        if limits.exhausted() {
            return None;
        }
        let Some(plan) = plan::make_plan(target, variant) else {
            continue;
        };
        if *game::TRACE {
            eprintln!("variant {variant} for {}", target.fen4());
        }
        for flip in std::iter::once(None).chain((0..MAX_FLIPS).map(Some)) {
            let mut run = exec::Exec::new(&plan, target, limits, flip);
            match run.run() {
                exec::Outcome::Reached => {
                    if let Some(moves) = accepted(run.game.moves, target) {
                        return Some(moves);
                    }
                    break;
                }
                exec::Outcome::WrongTurn => continue,
                exec::Outcome::Failed => break,
            }
        }
    }
    None
}

/// The position before the double step that `target`'s e.p. square states, and that step.
fn undo_double_step(target: &Position, ep: Square) -> Option<(Position, Move)> {
    let mover = !target.turn;
    let (from_rank, to_rank) = match mover {
        Color::White => (Rank::Second, Rank::Fourth),
        Color::Black => (Rank::Seventh, Rank::Fifth),
    };
    let from = Square::from_coords(ep.file(), from_rank);
    let to = Square::from_coords(ep.file(), to_rank);
    if target.board.piece_at(to) != Some(Role::Pawn.of(mover))
        || target.board.occupied().contains(from)
        || target.board.occupied().contains(ep)
    {
        return None;
    }
    let mut board = target.board.clone();
    board.discard_piece_at(to);
    board.set_piece_at(from, Role::Pawn.of(mover));
    let before = Position {
        board,
        turn: mover,
        castling: target.castling,
        ep_square: None,
    };
    let step = Move::Normal {
        role: Role::Pawn,
        from,
        capture: None,
        to,
        promotion: None,
    };
    Some((before, step))
}

/// `moves` if they replay to `target` and the game is still in progress at every position
/// (no run of 150 plies without a capture or pawn move, no position five times).
fn accepted(moves: Vec<Move>, target: &Position) -> Option<Vec<Move>> {
    verify::replay_line(&Position::initial(), &moves, target).ok()?;
    let mut pos = Chess::default();
    let mut clock = 0u32;
    let mut seen: HashMap<u64, u32> = HashMap::new();
    let mut count = |pos: &Chess| {
        let key: Zobrist64 = pos.zobrist_hash(EnPassantMode::Legal);
        let n = seen.entry(key.0).or_insert(0);
        *n += 1;
        *n
    };
    count(&pos);
    for &m in &moves {
        clock = if pos.is_irreversible(m) && (m.is_capture() || m.role() == Role::Pawn) {
            0
        } else {
            clock + 1
        };
        pos.play_unchecked(m);
        if clock > MAX_CLOCK || count(&pos) >= 5 {
            return None;
        }
    }
    Some(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::PositionInput;

    fn pos(fen: &str) -> Position {
        PositionInput::parse(fen).unwrap().candidates().remove(0)
    }

    fn builds(fen: &str) -> Vec<Move> {
        let target = pos(fen);
        let moves = construct_game(&target, &Budget::seconds(5.0))
            .unwrap_or_else(|| panic!("no game for {fen}"));
        assert!(verify::replay_line(&Position::initial(), &moves, &target).is_ok());
        moves
    }

    #[test]
    fn the_initial_array_is_the_empty_game() {
        assert!(builds("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -").is_empty());
    }

    #[test]
    fn bare_kings_and_simple_endings() {
        builds("4k3/8/8/8/8/8/8/4K3 w - -");
        builds("8/8/4k3/8/8/3K4/8/R7 b - -");
        builds("8/8/8/3k4/8/8/4P3/4K3 w - -");
        builds("6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - -");
    }

    #[test]
    fn castling_rights_kept() {
        builds("r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq -");
        builds("r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq -");
    }

    #[test]
    fn an_ep_square_a_promotion_and_a_check() {
        builds("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3");
        builds("k7/8/8/8/8/8/8/1QQQK3 w - -");
        builds("4k3/8/8/8/8/8/4R3/4K3 b - -");
    }

    #[test]
    fn a_double_step_is_undone_into_its_predecessor() {
        let target = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3");
        let (before, step) = undo_double_step(&target, Square::E3).unwrap();
        assert!(before.is_initial());
        assert_eq!(step.to(), Square::E4);
    }
}
