//! Cages: units that can never have reached the squares they stand on, because the pawns
//! around them could not have let them in at any time of the game.
//!
//! A unit of a legal position came, at some moment, from a square it can have started on (its
//! original square, or the promotion rank when its side may have promoted). Going back in time
//! from the position, only two things happen to the walls around it: pawns step back (a pawn
//! move or capture taken back) and units disappear or appear elsewhere. The cage test follows
//! the unit and the pawns backwards together, over-approximating every history:
//!
//! * the other units are *ghosts*: they never block the unit or a pawn (they can always have
//!   stood elsewhere), so only pawns and units frozen by castling rights are walls;
//! * every pawn may step back one square (two from its fourth rank to its second), or back
//!   diagonally (a capture taken back, the captured unit a ghost), onto a square free of pawns,
//!   walls and the unit; a pawn on its second rank never moves again (it stood there all game);
//! * a side takes back at most as many captures as the other side has units missing;
//! * a step back is refused when the pawns of its side can then no longer each have come from a
//!   file of their own within reach (a pawn changes files only by capturing, at most once per
//!   rank it advanced), or need more captures than the side has left: necessary conditions of
//!   any history;
//! * pawns that appear going back (un-captured or un-promoted) are left out: they would only
//!   add walls.
//!
//! If no sequence of such steps takes the unit to a square it can have started on, no history
//! of the position exists: the position is refuted, and the reason names the unit and the pawns
//! that wall it in. Every relaxation above only lets the unit out more easily, so the test never
//! refutes a position a real game reaches; a test that runs out of its budget refutes nothing.

use shakmaty::{Bitboard, Board, Color, Piece, Rank, Role, Square, attacks};

use super::position::original_squares;
use crate::fast_hash::{FastMap, FastSet};

/// The most states (pawn placements with the unit's region) one unit's test may visit; beyond,
/// it refutes nothing.
const MAX_STATES: usize = 20_000;

/// A unit that can never have got where it stands.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Caged {
    /// The unit.
    pub piece: Piece,
    /// Its square.
    pub square: Square,
    /// The pawns (and frozen units) around the region it can reach, as the position has them.
    pub walls: Bitboard,
}

impl std::fmt::Display for Caged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = if self.piece.color == Color::White {
            "white"
        } else {
            "black"
        };
        let role = match self.piece.role {
            Role::King => "king",
            Role::Queen => "queen",
            Role::Rook => "rook",
            Role::Bishop => "bishop",
            Role::Knight => "knight",
            Role::Pawn => "pawn",
        };
        let walls: Vec<String> = self.walls.into_iter().map(|s| s.to_string()).collect();
        write!(
            f,
            "the {side} {role} on {} is caged: however the pawns around it ({}) are taken back, it can never get back to a square it can have started on",
            self.square,
            walls.join(" ")
        )
    }
}

/// What the cage tests of positions found, kept between positions with the same pawns (as the
/// predecessors of one graph's resets often have).
#[derive(Default, Debug)]
pub struct CageCache {
    results: FastMap<CageKey, bool>,
    /// The fewest file changes that send one side's pawns back to distinct files
    /// ([`origins_cost`]), by pawns and side.
    costs: FastMap<(Bitboard, Color), Option<u8>>,
}

impl CageCache {
    /// An empty cache.
    pub fn new() -> CageCache {
        CageCache::default()
    }
}

/// What one unit's test depends on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
struct CageKey {
    white_pawns: Bitboard,
    black_pawns: Bitboard,
    walls: Bitboard,
    piece: Piece,
    /// The first square of the region the unit reaches among the pawns and `walls` (any
    /// square of it gives the same test).
    square: Square,
    promotes: bool,
    /// How many captures each side can take back (`[white, black]`): the other side's units
    /// missing.
    captures: [u8; 2],
}

/// The first unit of `board` that is caged (see the module documentation), with `castling`
/// the rook squares whose rights freeze king and rook.
pub fn caged_unit(board: &Board, castling: Bitboard, cache: &mut CageCache) -> Option<Caged> {
    if board.pawns().is_empty() {
        return None;
    }
    let frozen = frozen_units(board, castling);
    for square in board.occupied() & !board.pawns() & !frozen {
        let Some(piece) = board.piece_at(square) else {
            continue;
        };
        let own_pawns = (board.pawns() & board.by_color(piece.color)).count();
        let missing = |c: Color| 16u8.saturating_sub(board.by_color(c).count() as u8);
        // The test depends on the region the unit can reach among the pawns and frozen units,
        // not on its square in it (its moves are symmetric): the region's first square stands
        // for all of it, so the units of one search share their results.
        let anchor = region(piece, square, board.pawns() | frozen)
            .first()
            .unwrap_or(square);
        let key = CageKey {
            white_pawns: board.pawns() & board.white(),
            black_pawns: board.pawns() & board.black(),
            walls: frozen,
            piece,
            square: anchor,
            promotes: own_pawns < 8,
            captures: [missing(Color::Black), missing(Color::White)],
        };
        let escapes = match cache.results.get(&key) {
            Some(&known) => known,
            None => {
                let found = escapes(&key, &mut cache.costs);
                cache.results.insert(key, found);
                found
            }
        };
        if !escapes {
            return Some(Caged {
                piece,
                square,
                walls: walls_around(&key),
            });
        }
    }
    None
}

/// The kings and rooks that castling rights freeze: they never moved, so they are walls for
/// the whole history before the position.
fn frozen_units(board: &Board, castling: Bitboard) -> Bitboard {
    let mut frozen = Bitboard::EMPTY;
    for rook in castling {
        let color = if rook.rank() == Rank::First {
            Color::White
        } else {
            Color::Black
        };
        if board.piece_at(rook)
            == Some(Piece {
                color,
                role: Role::Rook,
            })
        {
            frozen.add(rook);
            if let Some(king) = board.king_of(color) {
                frozen.add(king);
            }
        }
    }
    frozen
}

/// The squares a unit of this piece may have started the game on: its original squares (a
/// bishop's of its square colour), and the promotion rank when its side may have promoted.
fn origins(piece: Piece, square: Square, promotes: bool) -> Bitboard {
    let mut squares = original_squares(piece, square);
    if promotes && piece.role != Role::King {
        let colour = if square.is_light() {
            Bitboard::LIGHT_SQUARES
        } else {
            Bitboard::DARK_SQUARES
        };
        let rank = Bitboard::from_rank(piece.color.fold_wb(Rank::Eighth, Rank::First));
        squares |= if piece.role == Role::Bishop {
            rank & colour
        } else {
            rank
        };
    }
    squares
}

/// The region a unit of `piece` reaches from `from` through squares that are not `blocked`.
fn region(piece: Piece, from: Square, blocked: Bitboard) -> Bitboard {
    let mut reached = Bitboard::from_square(from);
    let mut frontier = reached;
    while frontier.any() {
        let mut next = Bitboard::EMPTY;
        for s in frontier {
            next |= attacks::attacks(s, piece, blocked) & !blocked;
        }
        frontier = next & !reached;
        reached |= frontier;
    }
    reached
}

/// One placement of the pawns going back, with the region the unit can be anywhere in.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct State {
    white: Bitboard,
    black: Bitboard,
    /// The smallest square of the unit's region: the region is found again from it.
    at: Square,
    /// The captures each side can still take back (`[white, black]`).
    captures: [u8; 2],
}

/// Whether the unit of `key` can get back to one of its possible starting squares in some
/// over-approximated history (true also when the search runs out of states).
fn escapes(key: &CageKey, costs: &mut FastMap<(Bitboard, Color), Option<u8>>) -> bool {
    let goals = origins(key.piece, key.square, key.promotes);
    if goals.is_empty() {
        return true;
    }
    let walls_of = |s: &State| s.white | s.black | key.walls;
    let start = State {
        white: key.white_pawns,
        black: key.black_pawns,
        at: key.square,
        captures: key.captures,
    };
    let first = region(key.piece, key.square, walls_of(&start));
    if (first & goals).any() {
        return true;
    }
    let mut seen: FastSet<State> = FastSet::default();
    let start = State {
        at: first.first().unwrap_or(key.square),
        ..start
    };
    seen.insert(start);
    let mut stack = vec![start];
    while let Some(state) = stack.pop() {
        if seen.len() > MAX_STATES {
            return true;
        }
        let walls = walls_of(&state);
        let here = region(key.piece, state.at, walls);
        if (here & goals).any() {
            return true;
        }
        for color in Color::ALL {
            let pawns = if color == Color::White {
                state.white
            } else {
                state.black
            };
            let home = Bitboard::from_rank(color.fold_wb(Rank::Second, Rank::Seventh));
            let side = usize::from(color == Color::Black);
            for from in pawns & !home {
                for to in steps_back(color, from, walls) {
                    // The unit must be able to stand elsewhere than where the pawn goes.
                    if here == Bitboard::from_square(to) {
                        continue;
                    }
                    let mut captures = state.captures;
                    if to.file() != from.file() {
                        if captures[side] == 0 {
                            continue;
                        }
                        captures[side] -= 1;
                    }
                    let moved = pawns.without(from).with(to);
                    let cost = *costs
                        .entry((moved, color))
                        .or_insert_with(|| origins_cost(moved, color));
                    if cost.is_none_or(|c| c > captures[side]) {
                        continue;
                    }
                    let (white, black) = if color == Color::White {
                        (moved, state.black)
                    } else {
                        (state.white, moved)
                    };
                    let blocked = white | black | key.walls;
                    let Some(at) = (here & !blocked).first() else {
                        continue;
                    };
                    let next_region = region(key.piece, at, blocked);
                    let next = State {
                        white,
                        black,
                        at: next_region.first().unwrap_or(at),
                        captures,
                    };
                    if seen.insert(next) {
                        stack.push(next);
                    }
                }
            }
        }
    }
    false
}

/// The squares a pawn of `color` on `from` can step back to, onto squares not in `blocked`:
/// straight back, two back from its fourth rank to its second, and diagonally back (a capture
/// taken back), never onto its first rank.
fn steps_back(color: Color, from: Square, blocked: Bitboard) -> Bitboard {
    let back: i32 = color.fold_wb(-8, 8);
    let rank = from.rank();
    let second = color.fold_wb(Rank::Second, Rank::Seventh);
    if rank == second || rank == color.fold_wb(Rank::First, Rank::Eighth) {
        return Bitboard::EMPTY;
    }
    let mut out = Bitboard::EMPTY;
    let idx = i32::from(u8::from(from));
    let one = Square::new((idx + back) as u32);
    if !blocked.contains(one) {
        out.add(one);
        if rank == color.fold_wb(Rank::Fourth, Rank::Fifth) {
            let two = Square::new((idx + 2 * back) as u32);
            if !blocked.contains(two) {
                out.add(two);
            }
        }
    }
    for side in [-1i32, 1] {
        let file = i32::from(u8::from(from.file())) + side;
        if (0..8).contains(&file) {
            let diagonal = Square::new((idx + back + side) as u32);
            if !blocked.contains(diagonal) {
                out.add(diagonal);
            }
        }
    }
    out
}

/// The fewest captures with which the pawns of `color` on `pawns` can each have come from a
/// file of their own (None when no assignment exists): a pawn changes files only by capturing,
/// at most once per rank it advanced, and a pawn on its second rank never moved. (A table over
/// the sets of files used.)
fn origins_cost(pawns: Bitboard, color: Color) -> Option<u8> {
    const NONE: u8 = u8::MAX;
    let mut best = [NONE; 256];
    best[0] = 0;
    for sq in pawns {
        let advanced = color.fold_wb(
            u8::from(sq.rank()).saturating_sub(1),
            6u8.saturating_sub(u8::from(sq.rank())),
        );
        let file = u8::from(sq.file());
        let mut next = [NONE; 256];
        for (used, &cost) in best.iter().enumerate() {
            if cost == NONE {
                continue;
            }
            for origin in 0..8u8 {
                let step = file.abs_diff(origin);
                if step > advanced || used & (1 << origin) != 0 {
                    continue;
                }
                let slot = &mut next[used | 1 << origin];
                *slot = (*slot).min(cost + step);
            }
        }
        best = next;
    }
    best.iter().copied().filter(|&c| c != NONE).min()
}

/// The pawns and frozen units next to the region a unit reaches in the position of `key`.
fn walls_around(key: &CageKey) -> Bitboard {
    let walls = key.white_pawns | key.black_pawns | key.walls;
    let reach = region(key.piece, key.square, walls);
    let mut around = Bitboard::EMPTY;
    for s in reach {
        around |= attacks::king_attacks(s) | attacks::attacks(s, key.piece, walls);
    }
    around & walls
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::File;

    fn caged(fen: &str, castling: Bitboard) -> Option<Caged> {
        let board: Board = fen.parse().expect("a board");
        caged_unit(&board, castling, &mut CageCache::new())
    }

    #[test]
    fn a_bishop_shut_in_a_corner_by_a_pawn_that_can_only_seal_it_is_caged() {
        // Black's c8-bishop on g8 behind f7 (home) and g6. The g6 pawn can only have come from
        // h7 (the f6 pawn needs the g-file, e7 and f7 stand at home): taking it back seals g8.
        let board = "6b1/4pp2/5pp1/8/8/8/8/K6k";
        let found = caged(board, Bitboard::EMPTY).expect("caged");
        assert_eq!(found.square, Square::G8);
        // With the f-pawn on f5 instead, the g6 pawn may step back to g7 and let it out.
        assert_eq!(caged("6b1/4pp2/6p1/5p2/8/8/8/K6k", Bitboard::EMPTY), None);
    }

    #[test]
    fn rooks_walled_in_by_pawns_that_only_close_the_pocket_are_caged() {
        // Black rooks on f2 and g1 behind White's pawns d2, e3, f3, g2, h3 and the king frozen
        // on e1 by its right. Black has all its units, so White never captured: e3, f3 and h3
        // can only step straight back, which closes the pocket further.
        let board = "1nbqkbn1/ppppppp1/8/7p/8/4PP1P/3P1rP1/R3K1r1";
        let rights = Bitboard::from_square(Square::A1);
        let found = caged(board, rights).expect("caged");
        assert!(found.piece.role == Role::Rook);
        assert!(found.walls.contains(Square::E1) && found.walls.contains(Square::F3));
        // Without the frozen king the rooks walk out over e1.
        assert_eq!(caged(board, Bitboard::EMPTY), None);
        // With one black unit missing, e3 cannot have come from f2: f3 would then be the
        // e-pawn, two captures in all.
        let one = "1nbqkb2/ppppppp1/8/7p/8/4PP1P/3P1rP1/R3K1r1";
        assert!(caged(one, rights).is_some());
        // With two missing it can (f2xe3 and e2xf3): taking the capture on e3 back opens e3.
        let two = "1nbqk3/ppppppp1/8/7p/8/4PP1P/3P1rP1/R3K1r1";
        assert_eq!(caged(two, rights), None);
    }

    #[test]
    fn the_initial_array_and_open_positions_pass() {
        assert_eq!(
            caged(
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR",
                Bitboard::CORNERS
            ),
            None
        );
        assert_eq!(caged("4k3/8/8/8/8/8/8/4K2R", Bitboard::EMPTY), None);
    }

    fn origins_fit(pawns: Bitboard, color: Color, captures: u8) -> bool {
        origins_cost(pawns, color).is_some_and(|c| c <= captures)
    }

    #[test]
    fn file_origins_are_matched() {
        // Three black pawns on e6, f6, g6 with e7, f7 and g7 empty: each can have come from
        // its file, with no capture.
        let pawns = Bitboard::from_square(Square::E6) | Square::F6 | Square::G6;
        assert!(origins_fit(pawns, Color::Black, 0));
        // f6 beside e7, f7 and g7 at home: no file is left for it.
        let crowded = Bitboard::from_square(Square::E7) | Square::F7 | Square::G7 | Square::F6;
        assert!(!origins_fit(crowded, Color::Black, 8));
        // Doubled pawns need a capture.
        let doubled = Bitboard::from_square(Square::C3) | Square::C4;
        assert!(!origins_fit(doubled, Color::White, 0));
        assert!(origins_fit(doubled, Color::White, 1));
        // Against every assignment by brute force, for small sets.
        let squares: Vec<Square> = [Rank::Third, Rank::Fourth, Rank::Fifth]
            .into_iter()
            .flat_map(|r| {
                File::ALL
                    .into_iter()
                    .map(move |f| Square::from_coords(f, r))
            })
            .collect();
        let brute = |pawns: &[Square]| -> Option<u8> {
            fn go(pawns: &[Square], used: u8) -> Option<u8> {
                let Some((&p, rest)) = pawns.split_first() else {
                    return Some(0);
                };
                let advanced = u8::from(p.rank()) - 1;
                (0..8u8)
                    .filter(|&o| used & (1 << o) == 0 && u8::from(p.file()).abs_diff(o) <= advanced)
                    .filter_map(|o| {
                        go(rest, used | 1 << o).map(|c| c + u8::from(p.file()).abs_diff(o))
                    })
                    .min()
            }
            go(pawns, 0)
        };
        let mut seed = 7u64;
        for _ in 0..3000 {
            let mut set = Bitboard::EMPTY;
            for _ in 0..4 {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                set.add(squares[(seed >> 33) as usize % squares.len()]);
            }
            let list: Vec<Square> = set.into_iter().collect();
            let fewest = brute(&list);
            for captures in 0..6 {
                assert_eq!(
                    origins_fit(set, Color::White, captures),
                    fewest.is_some_and(|c| c <= captures),
                    "{list:?} with {captures} captures"
                );
            }
        }
    }
}
