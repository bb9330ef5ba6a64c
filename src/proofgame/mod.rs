//! Proof games: games from the initial array that reach a target position in an
//! exact number of plies (§4 of the specification: the strongest legality
//! certificate, replayable by anyone).
//!
//! The search runs forward from the initial array. It is guided by a static
//! analysis of the target: units proven never to move, each unit's
//! shortest route to a target square (pawn routes with their captures, promotions,
//! piece routes around the immovable units, castling), and the captures the pawn
//! structure still demands. At every node a lower bound of the moves each side still
//! needs is compared with the moves that side has left (White and Black are
//! counted separately); captures of units the target still needs make the bound
//! infinite. Solutions are counted exactly with a transposition table keyed by
//! the Zobrist hash and the plies left, storing the number of games from there.
//!
//! Every pruning rule is a necessary condition for reaching the target, so the
//! counts are exact whenever the search completes within its [`Budget`].

mod search;

use std::{fmt, time::Instant};

use shakmaty::{
    Bitboard, Board, ByColor, Chess, Color, EnPassantMode, Move, Position, Rank, Square,
    san::SanPlus,
};

use search::Searcher;

use crate::required::{Problem, analyse, analysis::Analysis};

/// The position a proof game must reach.
///
/// Placement and side to move are always compared; castling rights and the
/// e.p. square only when given (`None` means unknown: any value is accepted).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Target {
    /// Piece placement.
    pub board: Board,
    /// Side to move.
    pub turn: Color,
    /// Castling rights as the squares of the rooks that may still castle
    /// (standard chess: a1, h1, a8, h8). `Some(rights)` means exactly these rights
    /// remain: for each one the king and that rook never moved. `None`: unknown.
    pub castling: Option<Bitboard>,
    /// `Some(Some(sq))`: the last move was the double step that passed `sq` (a
    /// capture there need not be possible). `Some(None)`: no legal e.p. capture
    /// is available. `None`: unknown.
    pub ep_square: Option<Option<Square>>,
}

/// Why a target description could not be parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseTargetError {
    /// The placement field is missing or not a valid board FEN.
    Placement,
    /// The side to move is not `w` or `b`.
    Turn,
    /// The castling field is not `-`, `?` or a subset of `KQkq`.
    Castling,
    /// The e.p. field is not `-`, `?` or a square on the third or sixth rank.
    EnPassant,
    /// More than four fields.
    TooManyFields,
}

impl fmt::Display for ParseTargetError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ParseTargetError::Placement => "invalid piece placement",
            ParseTargetError::Turn => "side to move must be w or b",
            ParseTargetError::Castling => "castling must be -, ? or letters of KQkq",
            ParseTargetError::EnPassant => "e.p. square must be -, ? or a square on rank 3 or 6",
            ParseTargetError::TooManyFields => "expected at most: placement turn castling ep",
        })
    }
}

impl std::error::Error for ParseTargetError {}

impl Target {
    /// A target with unknown castling rights and e.p. square.
    pub fn new(board: Board, turn: Color) -> Target {
        Target {
            board,
            turn,
            castling: None,
            ep_square: None,
        }
    }

    /// Parses `placement turn [castling [ep]]` (the first four FEN fields); a
    /// missing field or `?` leaves castling or e.p. unknown.
    pub fn from_fen(s: &str) -> Result<Target, ParseTargetError> {
        let mut fields = s.split_whitespace();
        let board: Board = fields
            .next()
            .ok_or(ParseTargetError::Placement)?
            .parse()
            .map_err(|_| ParseTargetError::Placement)?;
        let turn = match fields.next() {
            Some("w") => Color::White,
            Some("b") => Color::Black,
            _ => return Err(ParseTargetError::Turn),
        };
        let castling = match fields.next() {
            None | Some("?") => None,
            Some("-") => Some(Bitboard::EMPTY),
            Some(c) => {
                let mut rights = Bitboard::EMPTY;
                for ch in c.chars() {
                    let sq = match ch {
                        'K' => Square::H1,
                        'Q' => Square::A1,
                        'k' => Square::H8,
                        'q' => Square::A8,
                        _ => return Err(ParseTargetError::Castling),
                    };
                    if rights.contains(sq) {
                        return Err(ParseTargetError::Castling);
                    }
                    rights.add(sq);
                }
                Some(rights)
            }
        };
        let ep_square = match fields.next() {
            None | Some("?") => None,
            Some("-") => Some(None),
            Some(e) => {
                let sq: Square = e.parse().map_err(|_| ParseTargetError::EnPassant)?;
                if sq.rank() != Rank::Third && sq.rank() != Rank::Sixth {
                    return Err(ParseTargetError::EnPassant);
                }
                Some(Some(sq))
            }
        };
        if fields.next().is_some() {
            return Err(ParseTargetError::TooManyFields);
        }
        Ok(Target {
            board,
            turn,
            castling,
            ep_square,
        })
    }
}

/// Limits of one search. When either is reached the search stops and reports an
/// incomplete result.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Budget {
    /// Maximum number of expanded nodes.
    pub max_nodes: u64,
    /// Wall-clock deadline.
    pub deadline: Option<Instant>,
    /// The most bytes the search's tables may hold.
    pub max_bytes: Option<u64>,
}

impl Budget {
    /// No limit at all.
    pub const UNLIMITED: Budget = Budget {
        max_nodes: u64::MAX,
        deadline: None,
        max_bytes: None,
    };
}

impl Default for Budget {
    fn default() -> Self {
        Budget::UNLIMITED
    }
}

/// The fewest plies a game from the initial array needs to reach `target`, by the lower
/// bounds of the search (each side's units matched to the target's at the cost of their
/// shortest routes, and the captures the pawns need); no game is searched. `None` when no game
/// of at most `max_plies` plies can reach it by those bounds: a proof that none does.
pub fn fewest_plies(target: &Target, max_plies: u32) -> Option<u32> {
    let analysis = analysis_for(target, max_plies)?;
    Some(analysis.fewest_plies(Color::White))
}

/// [`fewest_plies`] without the joint play of units that obstruct each other: a weaker bound
/// (never above it), far cheaper, for checks asked of many positions (the `fen` question's
/// move number).
pub fn fewest_plies_single(target: &Target, max_plies: u32) -> Option<u32> {
    let problem = problem_for(target, max_plies)?;
    let analysis = crate::required::analyse_single(&problem).ok()?;
    Some(analysis.fewest_plies(Color::White))
}

/// The analysis of the units' required moves for games of at most `plies` plies from the
/// initial array to `target`; `None` when it proves that there is none (or the target cannot
/// exist: kings, pawns on the first or last rank, more than 16 units or 8 pawns of a side).
fn analysis_for(target: &Target, plies: u32) -> Option<Analysis> {
    analyse(&problem_for(target, plies)?).ok()
}

/// The required-moves problem of games of at most `plies` plies to `target`; `None` when the
/// target cannot exist (see [`analysis_for`]).
fn problem_for(target: &Target, plies: u32) -> Option<Problem> {
    let board = &target.board;
    for color in Color::ALL {
        let side = board.by_color(color);
        if side.count() > 16
            || (side & board.kings()).count() != 1
            || (side & board.pawns()).count() > 8
        {
            return None;
        }
    }
    let back_ranks = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
    if (board.pawns() & back_ranks).any() {
        return None;
    }
    let moves = ByColor {
        white: plies.div_ceil(2),
        black: plies / 2,
    };
    Some(Problem::proof_game(board, target.castling, moves))
}

/// Result of [`proof_games`].
#[derive(Clone, Debug, Default)]
pub struct ProofGameSearch {
    /// The first games found (at most the requested limit), each from the
    /// initial array.
    pub games: Vec<Vec<Move>>,
    /// The same games in SAN (with check marks), moves separated by spaces.
    pub san: Vec<String>,
    /// Number of proof games of the requested length. Exact when `complete`,
    /// otherwise a lower bound.
    pub count: u64,
    /// False when the budget ran out (or the count exceeded `u64::MAX`).
    pub complete: bool,
    /// Nodes expanded.
    pub nodes: u64,
}

/// Searches all games of exactly `plies` plies from the initial array that reach
/// `target`; counts them and keeps the first `limit` of them.
///
/// An impossible target (wrong number of kings, pawns on the first or last rank,
/// more than 16 units of a side, side to move not matching the parity of
/// `plies`) has no proof game: the result is an empty, complete search. Lengths
/// above [`MAX_PLIES`] are not searched (an empty, incomplete result).
///
/// Memory grows with the nodes searched (a table entry per expanded node): bound
/// it with [`Budget::max_nodes`].
pub fn proof_games(target: &Target, plies: u32, budget: &Budget, limit: usize) -> ProofGameSearch {
    if plies > MAX_PLIES {
        return ProofGameSearch::default();
    }
    with_stack(plies, || search_games(target, plies, budget, limit)).unwrap_or_default()
}

/// The search itself (see [`proof_games`]).
fn search_games(target: &Target, plies: u32, budget: &Budget, limit: usize) -> ProofGameSearch {
    let mut result = ProofGameSearch {
        complete: true,
        ..ProofGameSearch::default()
    };
    if checks_impossible(target) {
        return result;
    }
    let Some(analysis) = analysis_for(target, plies) else {
        return result;
    };
    let parity_turn = if plies.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    if parity_turn != target.turn {
        return result;
    }
    let mut searcher = Searcher::new(&analysis, target, budget);
    let Some(root) = searcher.root(plies) else {
        return result;
    };
    let count = searcher.count(&root, plies);
    result.count = count;
    result.complete = !searcher.aborted && count != u64::MAX;
    if limit > 0 && count > 0 {
        searcher.start_collect();
        let mut path = Vec::new();
        searcher.collect(&root, plies, &mut path, &mut result.games, limit);
    }
    result.nodes = searcher.nodes;
    result.san = result.games.iter().map(|g| san_line(g)).collect();
    result
}

/// Where the search would cut `game`, a game from the initial array that is meant to reach
/// `target` in exactly its length: `Ok(())` when the static analysis admits the target and
/// every node on the way is kept, else the ply and what cut it. Every pruning rule is a
/// necessary condition of the whole game, so a real proof game must pass: this is how a
/// composer's intended solution (or a recorded one) checks the search's soundness, and how
/// one learns why a game is not among the answers. Games longer than [`MAX_PLIES`] are
/// refused.
pub fn search_keeps(target: &Target, game: &[Move]) -> Result<(), String> {
    let plies = u32::try_from(game.len()).unwrap_or(u32::MAX);
    if plies > MAX_PLIES {
        return Err(format!(
            "{plies} plies: longer than the search's {MAX_PLIES}"
        ));
    }
    if checks_impossible(target) {
        return Err("the target's checks are impossible".to_string());
    }
    let problem = problem_for(target, plies).ok_or("the target's material cannot exist")?;
    let analysis = analyse(&problem).map_err(|e| format!("the static analysis refutes it: {e}"))?;
    let searcher = Searcher::new(&analysis, target, &Budget::default());
    let mut node = searcher.root(plies).ok_or("the root is pruned")?;
    let mut pos = Chess::default();
    for (k, &m) in game.iter().enumerate() {
        if !pos.is_legal(m) {
            return Err(format!("ply {} ({m}) is not legal", k + 1));
        }
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, m);
        let rem = plies - k as u32 - 1;
        node = searcher
            .child(&node, m, rem)
            .ok_or_else(|| format!("pruned at ply {} ({san})", k + 1))?;
    }
    if searcher.is_goal(&node.pos) {
        Ok(())
    } else {
        Err("the game does not end on the target".to_string())
    }
}

/// Finds some proof game of at most `max_plies` plies (at most [`MAX_PLIES`]),
/// trying the lengths in increasing order (iterative deepening). `None` when there
/// is none, or when the budget (shared by all lengths) ran out first.
pub fn find_proof_game(target: &Target, max_plies: u32, budget: &Budget) -> Option<Vec<Move>> {
    let max_plies = max_plies.min(MAX_PLIES);
    with_stack(max_plies, || find_game(target, max_plies, budget)).flatten()
}

/// Whether some game of exactly `plies` plies (at most [`MAX_PLIES`]) from the initial array
/// reaches `target`: `Some(true)` when one is found, `Some(false)` when the search shows that
/// none exists, `None` when the budget ran out first (or the length is beyond [`MAX_PLIES`]).
pub fn proof_game_exists(target: &Target, plies: u32, budget: &Budget) -> Option<bool> {
    if plies > MAX_PLIES {
        return None;
    }
    with_stack(plies, || exists_game(target, plies, budget)).flatten()
}

/// The search itself (see [`proof_game_exists`]).
fn exists_game(target: &Target, plies: u32, budget: &Budget) -> Option<bool> {
    if checks_impossible(target) {
        return Some(false);
    }
    let parity_turn = if plies.is_multiple_of(2) {
        Color::White
    } else {
        Color::Black
    };
    if parity_turn != target.turn {
        return Some(false);
    }
    let Some(analysis) = analysis_for(target, plies) else {
        return Some(false);
    };
    let mut searcher = Searcher::new(&analysis, target, budget);
    let Some(root) = searcher.root(plies) else {
        return Some(false);
    };
    let mut path = Vec::new();
    if searcher.find(&root, plies, &mut path) {
        return Some(replay_reaches(target, &path));
    }
    (!searcher.aborted).then_some(false)
}

/// Longest proof game searched. Far beyond what a search can complete; it bounds
/// the recursion depth (one level per ply).
pub const MAX_PLIES: u32 = 2048;

/// Runs `f`, which recurses about once per ply up to `plies`, on a thread with a
/// stack large enough for that (directly when shallow). `None` if no such thread
/// could be started.
fn with_stack<R: Send>(plies: u32, f: impl FnOnce() -> R + Send) -> Option<R> {
    const SHALLOW: u32 = 40;
    const PER_PLY: usize = 32 * 1024;
    if plies <= SHALLOW {
        return Some(f());
    }
    let size = (plies as usize + 32) * PER_PLY;
    std::thread::scope(|scope| {
        std::thread::Builder::new()
            .name("proofgame".into())
            .stack_size(size)
            .spawn_scoped(scope, f)
            .ok()?
            .join()
            .ok()
    })
}

/// The iterative deepening itself (see [`find_proof_game`]).
fn find_game(target: &Target, max_plies: u32, budget: &Budget) -> Option<Vec<Move>> {
    if checks_impossible(target) {
        return None;
    }
    let mut nodes = 0u64;
    let parity = if target.turn == Color::White { 0 } else { 1 };
    let lowest = fewest_plies(target, max_plies)?;
    let first = lowest + (lowest + parity) % 2;
    for plies in (first..=max_plies).step_by(2) {
        // No new length once the deadline has passed (a search checks it only every
        // `CLOCK_INTERVAL` nodes, which a short one may never reach).
        if budget.deadline.is_some_and(|d| Instant::now() >= d) {
            return None;
        }
        let left = Budget {
            max_nodes: budget.max_nodes.saturating_sub(nodes),
            deadline: budget.deadline,
            max_bytes: budget.max_bytes,
        };
        let Some(analysis) = analysis_for(target, plies) else {
            continue;
        };
        let mut searcher = Searcher::new(&analysis, target, &left);
        let Some(root) = searcher.root(plies) else {
            continue;
        };
        let mut path = Vec::new();
        if searcher.find(&root, plies, &mut path) {
            return Some(path);
        }
        if searcher.aborted {
            return None;
        }
        nodes += searcher.nodes;
    }
    None
}

/// Whether the checks in the target rule out any game: the side that just moved
/// cannot be in check, and no move gives check with more than two units.
fn checks_impossible(target: &Target) -> bool {
    let board = &target.board;
    let checkers = |color: Color| {
        board
            .king_of(color)
            .map_or(0, |k| board.attacks_to(k, !color, board.occupied()).count())
    };
    checkers(!target.turn) > 0 || checkers(target.turn) > 2
}

/// Replays `moves` from the initial array, checking that each is legal, and tells
/// whether the final position matches `target` (placement, side to move, and the
/// castling rights and e.p. square when given). Independent of the search.
pub fn replay_reaches(target: &Target, moves: &[Move]) -> bool {
    let mut pos = Chess::default();
    for &m in moves {
        if !pos.is_legal(m) {
            return false;
        }
        pos.play_unchecked(m);
    }
    if pos.board() != &target.board || pos.turn() != target.turn {
        return false;
    }
    if let Some(rights) = target.castling {
        let setup = pos.to_setup(EnPassantMode::Legal);
        if setup.castling_rights != rights {
            return false;
        }
    }
    match target.ep_square {
        None => true,
        Some(None) => pos.legal_ep_square().is_none(),
        Some(Some(sq)) => pos.ep_square(EnPassantMode::Always) == Some(sq),
    }
}

/// The moves of a game from the initial array in SAN, separated by spaces.
/// Stops at the first illegal move.
pub fn san_line(moves: &[Move]) -> String {
    let mut pos = Chess::default();
    let mut out = Vec::with_capacity(moves.len());
    for &m in moves {
        if !pos.is_legal(m) {
            break;
        }
        out.push(SanPlus::from_move_and_play_unchecked(&mut pos, m).to_string());
    }
    out.join(" ")
}

/// Parses a game in SAN from the initial array (moves separated by spaces; move
/// numbers are not accepted). `None` if a move is not legal.
pub fn parse_san_line(line: &str) -> Option<Vec<Move>> {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for token in line.split_whitespace() {
        let san: SanPlus = token.parse().ok()?;
        let m = san.san.to_move(&pos).ok()?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Some(moves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    fn target(fen: &str) -> Target {
        Target::from_fen(fen).unwrap()
    }

    #[test]
    fn parse_target_fields() {
        let t = target("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3");
        assert_eq!(t.turn, Color::Black);
        assert_eq!(t.castling.map(|c| c.count()), Some(4));
        assert_eq!(t.ep_square, Some(Some(Square::E3)));
        let t = target("8/8/8/8/8/8/8/8 w ? -");
        assert_eq!(t.castling, None);
        assert_eq!(t.ep_square, Some(None));
        assert_eq!(Target::from_fen("8/8 x"), Err(ParseTargetError::Placement));
        assert_eq!(
            Target::from_fen("8/8/8/8/8/8/8/8 x"),
            Err(ParseTargetError::Turn)
        );
        assert_eq!(
            Target::from_fen("8/8/8/8/8/8/8/8 w KK"),
            Err(ParseTargetError::Castling)
        );
        assert_eq!(
            Target::from_fen("8/8/8/8/8/8/8/8 w - e4"),
            Err(ParseTargetError::EnPassant)
        );
    }

    #[test]
    fn zero_plies_is_the_initial_array() {
        let t = target("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        let r = proof_games(&t, 0, &Budget::UNLIMITED, 10);
        assert_eq!((r.count, r.complete), (1, true));
        assert_eq!(r.games, vec![Vec::<Move>::new()]);
    }

    #[test]
    fn one_ply_and_ep() {
        let t = target("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b");
        let r = proof_games(&t, 1, &Budget::UNLIMITED, 10);
        assert_eq!((r.count, r.complete), (1, true));
        assert_eq!(r.san, vec!["e4".to_string()]);
        assert!(replay_reaches(&t, &r.games[0]));
        // The double step leaves no legal e.p. capture.
        let t2 = Target {
            ep_square: Some(None),
            ..t.clone()
        };
        assert_eq!(proof_games(&t2, 1, &Budget::UNLIMITED, 10).count, 1);
        // In 5 plies, the double step must be the last move for the e.p. target:
        // before it White takes a knight out and back (4 ways), and so does Black.
        let t3 = Target {
            ep_square: Some(Some(Square::E3)),
            ..t.clone()
        };
        assert_eq!(proof_games(&t3, 1, &Budget::UNLIMITED, 10).count, 1);
        assert_eq!(proof_games(&t, 3, &Budget::UNLIMITED, 100).count, 0);
        let r5 = proof_games(&t, 5, &Budget::UNLIMITED, 100);
        let r5ep = proof_games(&t3, 5, &Budget::UNLIMITED, 100);
        assert_eq!(r5ep.count, 16);
        assert!(r5.count > 16);
        for g in r5.games.iter().chain(&r5ep.games) {
            assert!(replay_reaches(&t, g));
        }
    }

    #[test]
    fn impossible_targets_do_not_panic() {
        for fen in [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNK w",
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b",
            "4k3/8/8/8/8/8/8/P3K3 w",
            "4k3/8/8/8/8/8/8/4K2K w",
            "8/8/8/8/8/8/8/8 w",
            "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/4k3/8/8/8/4K3 w",
            // Black, not to move, is in check.
            "rnbqkbnr/ppppp1pp/8/5p1Q/4P3/8/PPPP1PPP/RNB1KBNR w",
        ] {
            let t = target(fen);
            for plies in 0..4 {
                let r = proof_games(&t, plies, &Budget::UNLIMITED, 5);
                assert_eq!((r.count, r.complete), (0, true), "{fen} {plies}");
            }
            assert_eq!(find_proof_game(&t, 6, &Budget::UNLIMITED), None);
        }
    }

    #[test]
    fn fools_mate_count() {
        // Position after 1.f3 e5 2.g4 Qh4#.
        let t = target("rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq -");
        let r = proof_games(&t, 4, &Budget::UNLIMITED, 10);
        assert!(r.complete);
        // 1.f3/f4?.. only f3 and g4 in either order; e5 first or second with ...e6? no.
        for g in &r.games {
            assert!(replay_reaches(&t, g));
        }
        assert_eq!(r.count, 2, "{:?}", r.san);
        let found = find_proof_game(&t, 8, &Budget::UNLIMITED).unwrap();
        assert_eq!(found.len(), 4);
        assert!(replay_reaches(&t, &found));
    }

    #[test]
    fn find_shortest_game() {
        // Dawson-style 3-move problem: 1.f3 e5 2.Kf2 Qh4+ 3.Ke3 Qd4#.
        let t = target("rnb1kbnr/pppp1ppp/8/4p3/3q4/4KP2/PPPPP1PP/RNBQ1BNR w");
        let game = find_proof_game(&t, 12, &Budget::UNLIMITED).unwrap();
        assert_eq!(game.len(), 6);
        assert!(replay_reaches(&t, &game));
        assert_eq!(san_line(&game), "f3 e5 Kf2 Qh4+ Ke3 Qd4#");
        // Not within 4 plies.
        assert_eq!(find_proof_game(&t, 4, &Budget::UNLIMITED), None);
        // A budget of one node is not enough.
        let tiny = Budget {
            max_nodes: 1,
            deadline: None,
            max_bytes: None,
        };
        assert_eq!(find_proof_game(&t, 12, &tiny), None);
    }

    #[test]
    fn castling_rights_must_persist() {
        // Knight out and back: rights kept; king out and back: rights lost.
        let kept = target("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
        assert_eq!(proof_games(&kept, 4, &Budget::UNLIMITED, 0).count, 16);
        let lost = target("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w Qkq -");
        assert_eq!(proof_games(&lost, 4, &Budget::UNLIMITED, 0).count, 0);
        let any = target("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w");
        assert_eq!(proof_games(&any, 4, &Budget::UNLIMITED, 0).count, 16);
    }

    /// All games of `depth` plies, grouped by final placement + side to move
    /// (and castling rights when `with_castling`), with their number.
    fn brute_force(depth: u32, with_castling: bool) -> HashMap<(Board, Option<Bitboard>), u64> {
        fn walk(
            pos: &Chess,
            depth: u32,
            with_castling: bool,
            out: &mut HashMap<(Board, Option<Bitboard>), u64>,
        ) {
            if depth == 0 {
                let cr = with_castling.then(|| pos.castles().castling_rights());
                *out.entry((pos.board().clone(), cr)).or_default() += 1;
                return;
            }
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                walk(&child, depth - 1, with_castling, out);
            }
        }
        let mut out = HashMap::new();
        walk(&Chess::default(), depth, with_castling, &mut out);
        out
    }

    /// Every pruning rule is a necessary condition: the search must count exactly
    /// the games an unpruned enumeration finds, for every sampled final position.
    fn check_against_brute_force(depth: u32, with_castling: bool, sample_every: usize) {
        let games = brute_force(depth, with_castling);
        let mut keys: Vec<_> = games.keys().cloned().collect();
        keys.sort_by_key(|(b, _)| format!("{b}"));
        let turn = if depth.is_multiple_of(2) {
            Color::White
        } else {
            Color::Black
        };
        let mut checked = 0;
        for (i, key) in keys.iter().enumerate() {
            if i % sample_every != 0 {
                continue;
            }
            let (board, castling) = key.clone();
            let t = Target {
                board,
                turn,
                castling,
                ep_square: None,
            };
            let r = proof_games(&t, depth, &Budget::UNLIMITED, 1000);
            assert!(r.complete);
            assert_eq!(r.count, games[key], "{} {:?}", t.board, t.castling);
            assert_eq!(r.games.len() as u64, r.count.min(1000));
            for g in &r.games {
                assert!(replay_reaches(&t, g));
            }
            checked += 1;
        }
        assert!(checked > 0);
    }

    #[test]
    fn counts_match_brute_force_3_plies() {
        check_against_brute_force(3, false, 7);
    }

    #[test]
    fn counts_match_brute_force_4_plies() {
        check_against_brute_force(4, false, 151);
        check_against_brute_force(4, true, 167);
    }

    /// Slower: `cargo test --release -- --ignored`.
    #[test]
    #[ignore]
    fn counts_match_brute_force_5_plies() {
        check_against_brute_force(5, false, 101);
        check_against_brute_force(5, true, 103);
    }

    #[test]
    fn budget_out_is_incomplete() {
        let t = target("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w");
        let b = Budget {
            max_nodes: 3,
            deadline: None,
            max_bytes: None,
        };
        let r = proof_games(&t, 8, &b, 5);
        assert!(!r.complete);
        for g in &r.games {
            assert!(replay_reaches(&t, g));
        }
    }

    #[test]
    fn memory_budget_out_is_incomplete() {
        // 1.e4 e5 2.Ke2 Ke7: counting the 12-ply games fills a table of thousands of entries.
        let t = target("rnbq1bnr/ppppkppp/8/4p3/4P3/8/PPPPKPPP/RNBQ1BNR w");
        let roomy = Budget {
            max_bytes: Some(1 << 30),
            ..Budget::UNLIMITED
        };
        let full = proof_games(&t, 12, &roomy, 5);
        assert!(full.complete && full.count > 0);
        let tight = Budget {
            max_bytes: Some(4096),
            ..Budget::UNLIMITED
        };
        let cut = proof_games(&t, 12, &tight, 5);
        assert!(!cut.complete);
        assert!(cut.count <= full.count);
        for g in &cut.games {
            assert!(replay_reaches(&t, g));
        }
    }
}

#[cfg(test)]
mod deep_tests {
    use super::*;

    /// Long lengths recurse deeply: the search runs on a thread with a stack to
    /// match, and lengths beyond the limit are refused, never a stack overflow.
    #[test]
    fn long_lengths_do_not_overflow_the_stack() {
        let t = Target::from_fen("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w").unwrap();
        let b = Budget {
            max_nodes: 3000,
            deadline: None,
            max_bytes: None,
        };
        for plies in [100u32, 400, 1000] {
            let r = proof_games(&t, plies, &b, 1);
            assert!(!r.complete);
        }
        let r = proof_games(&t, MAX_PLIES + 2, &b, 1);
        assert!(!r.complete && r.nodes == 0);
        assert_eq!(find_proof_game(&t, 3000, &b), Some(Vec::new()));
    }
}
