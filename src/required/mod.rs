//! Required moves: for each unit, the moves and captures it must still make, tightened to a
//! fixed point (RETRO.md §3b and §4; Euclide's deductions).
//!
//! A [`Problem`] is a start placement whose units each have a [`Goal`] — fill one of the
//! problem's [`Target`]s (which one is for the analysis to decide), end on one of a set of
//! squares, be captured, or stay where it is as a fixed obstacle — together with each side's
//! budget of moves and the castling rights at the start. [`analyse`] answers with the fewest
//! moves each side needs ([`Analysis::lower_bound`]), each unit's required moves and captures and
//! the fates it can still have ([`UnitReport`]), the optimal assignment it found, or the reason
//! the problem has no solution within the budget ([`Impossible`]).
//!
//! ```
//! use retroclock::required::{Goal, Problem, analyse};
//! use shakmaty::{Bitboard, Board, ByColor, Color, Square};
//!
//! // From this board, the white king to g1 or h1 and the rook h1 to f1, with the pawns as
//! // fixed obstacles: how many moves does White need at least?
//! let board: Board = "4k3/8/8/8/8/8/5PPP/4K2R".parse().unwrap();
//! let problem = Problem::from_board(&board, Bitboard::EMPTY, |sq, piece| match sq {
//!     Square::E1 => Goal::Squares(Bitboard::from_square(Square::G1) | Square::H1),
//!     Square::H1 => Goal::Squares(Bitboard::from_square(Square::F1)),
//!     _ if piece.role == shakmaty::Role::Pawn => Goal::Fixed,
//!     _ => Goal::Squares(Bitboard::FULL),
//! });
//! let analysis = analyse(&problem).unwrap();
//! // Alone, the king needs 2 moves and the rook 1; but on the first rank neither can pass the
//! // other (f2, g2, h2 stand), so the king steps aside: Ke2, Re1, Kf1, Kg1, Rf1. The joint
//! // play of the pair counts it: 5.
//! assert_eq!(analysis.lower_bound(Color::White), 5);
//! // With the budget of moves given, the same analysis proves 2 moves are not enough.
//! let tight = Problem { moves: ByColor { white: 2, black: 0 }, ..problem };
//! assert!(analyse(&tight).is_err());
//! ```
//!
//! What is deduced, each a necessary condition of every solution within the budget:
//! * **Distances with obstacles.** Each unit moves on its own graph ([`graph`]): the moves of
//!   its role (pawn pushes, double steps, diagonal captures, promotions) that avoid the fixed
//!   obstacles. A unit proven never to move (a goal of its own square it cannot leave and come
//!   back to within the budget, and no possible capture) becomes a fixed obstacle too.
//! * **Assignment (Hall, pigeonhole).** Each side's units are matched to its targets and to the
//!   captures its units suffer, at the cost of their shortest routes (Hungarian method). The
//!   optimum is the side's lower bound; a unit–fate pair is possible only if the best assignment
//!   that uses it fits the budget, and then the unit may spend at most the budget less what the
//!   others need at least. The same is done with the captures pawns need: they must fit in the
//!   units the other side loses.
//! * **Capture bookkeeping.** A pawn that must capture k times gives k captures that happen on
//!   its diagonal squares: the units of the other side that are captured there must get there
//!   (their routes count in that side's bound).
//! * **Routes within budgets.** A move is kept in a unit's graph only if some fate can be reached
//!   through it in time: its distance from the start, one move, and its distance to the fate fit
//!   the unit's allowance. Castling is kept only if both king and rook can use it.
//! * **Blockers.** A unit that is never captured always stands on one of the squares it can
//!   reach; a move of another unit that would cross or land on all of them is impossible.
//!
//! The module is shared: the proof-game search ([`crate::proofgame`]) prunes every node with the
//! [`Tracker`] built on an analysis from the initial array, and the bounds of a position's
//! distance to a configuration (goal squares per unit, fixed obstacles) come from the same
//! [`analyse`].

pub(crate) mod analysis;
pub(crate) mod graph;
pub(crate) mod matching;
pub(crate) mod pairs;
pub(crate) mod tracker;

use std::fmt;

use shakmaty::{Bitboard, Board, ByColor, Color, Piece, Role, Square};

pub use analysis::{Analysis, analyse, analyse_single};
pub use tracker::Tracker;

/// What a unit must do by the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// It never moves and is never captured: an obstacle for every other unit. When a target
    /// of the problem stands on its square with its piece, it fills that target.
    Fixed,
    /// It fills one of the problem's targets whose piece it is or can become by promotion
    /// (the analysis decides which), or it is captured (never a king).
    Target,
    /// It ends on one of these squares, in any role it can take (a pawn may promote on its way).
    Squares(Bitboard),
    /// It is captured by the other side.
    Captured,
}

/// One unit of a [`Problem`]: where it stands at the start and what it must do.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Unit {
    /// Its colour and role at the start.
    pub piece: Piece,
    /// Its square at the start.
    pub square: Square,
    /// What it must do by the end.
    pub goal: Goal,
}

/// A unit the end must show: this piece on this square, filled by exactly one unit whose goal
/// is [`Goal::Target`] (or a [`Goal::Fixed`] unit standing there).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// The piece the end shows.
    pub piece: Piece,
    /// Its square.
    pub square: Square,
}

/// A problem for [`analyse`]: units with their goals, the targets, castling rights and each
/// side's budget of moves.
///
/// The units of a colour that are captured are those with [`Goal::Captured`] and those with
/// [`Goal::Target`] that fill no target; every capture is made by a unit of the other colour,
/// and the captures that the other colour's pawns need (their diagonal steps) must fit in that
/// number. At most 16 units per colour.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// The units (their index is how reports name them).
    pub units: Vec<Unit>,
    /// The units the end must show (see [`Target`]).
    pub targets: Vec<Target>,
    /// Castling rights at the start, as the squares of the rooks that may still castle
    /// (standard chess: a1, h1, a8, h8). A king and rook with a right may castle once, as the
    /// king's move.
    pub castling: Bitboard,
    /// The most moves each side may make (`u32::MAX`: no limit). The lower bounds never depend
    /// on it; the deductions that narrow routes and fates do, and a side whose units need more
    /// is [`Impossible`].
    pub moves: ByColor<u32>,
}

/// Why a problem has no solution within its budget.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Impossible {
    /// More than 16 units of a colour, or a unit or target that cannot exist (a pawn on the
    /// first or last rank, a fixed unit on another's square).
    Malformed,
    /// A colour has fewer units that may fill targets than it has targets.
    TooFewUnits {
        /// The colour.
        color: Color,
    },
    /// A colour's units need more moves than its budget: every assignment of them to the
    /// targets and captures costs at least `needed`.
    Moves {
        /// The colour.
        color: Color,
        /// Fewest moves its units need.
        needed: u32,
        /// Its budget.
        available: u32,
    },
    /// A colour's pawns need more captures than units of the other colour are captured.
    Captures {
        /// The colour that captures.
        color: Color,
        /// Fewest captures its pawns need.
        needed: u32,
        /// Units of the other colour captured.
        available: u32,
    },
    /// A unit has no fate left that it can reach within the budget.
    Stranded {
        /// The unit's index in [`Problem::units`].
        unit: usize,
    },
}

impl fmt::Display for Impossible {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Impossible::Malformed => f.write_str("the problem's units or targets cannot exist"),
            Impossible::TooFewUnits { color } => {
                write!(f, "{color} has fewer units than targets to fill")
            }
            Impossible::Moves {
                color,
                needed,
                available,
            } => write!(
                f,
                "{color} needs at least {needed} moves but has {available}"
            ),
            Impossible::Captures {
                color,
                needed,
                available,
            } => write!(
                f,
                "{color}'s pawns need at least {needed} captures but only {available} units of the other side are captured"
            ),
            Impossible::Stranded { unit } => {
                write!(
                    f,
                    "unit {unit} cannot reach any of its fates within the budget"
                )
            }
        }
    }
}

impl std::error::Error for Impossible {}

/// What a unit becomes at the end, in an assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Fate {
    /// It fills the target of this index in [`Problem::targets`].
    Target(usize),
    /// It ends on one of its own goal squares ([`Goal::Squares`]) or stays ([`Goal::Fixed`]).
    Own,
    /// It is captured.
    Captured,
}

/// What the analysis found about one unit.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnitReport {
    /// Fewest moves it makes in any solution within the budget.
    pub required_moves: u32,
    /// Fewest captures it makes (a pawn's diagonal steps).
    pub required_captures: u32,
    /// The fates it can still have within the budget (its fate in the optimal assignment
    /// first).
    pub fates: Vec<Fate>,
    /// Whether it is proven never to move (given as [`Goal::Fixed`] or deduced).
    pub never_moves: bool,
    /// The squares it may stand on at some time.
    pub stops: Bitboard,
}

/// Each side's totals.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SideReport {
    /// Fewest moves the side's units need together (the optimal assignment's cost).
    pub lower_bound: u32,
    /// The budget less the lower bound (`u32::MAX` without a budget).
    pub free_moves: u32,
    /// Fewest captures the side's pawns need.
    pub required_captures: u32,
    /// Units of the other side that are captured: the most captures this side can make.
    pub captures_available: u32,
}

impl Problem {
    /// The units of `board`, each with the goal `goal(square, piece)`, no targets, castling
    /// rights `castling` and no budget.
    pub fn from_board(
        board: &Board,
        castling: Bitboard,
        mut goal: impl FnMut(Square, Piece) -> Goal,
    ) -> Problem {
        Problem {
            units: board
                .iter()
                .map(|(square, piece)| Unit {
                    piece,
                    square,
                    goal: goal(square, piece),
                })
                .collect(),
            targets: Vec::new(),
            castling,
            moves: ByColor {
                white: u32::MAX,
                black: u32::MAX,
            },
        }
    }

    /// The proof-game problem: the 32 units of the initial array must become `target`'s units
    /// (or be captured) in at most `moves` moves per side.
    ///
    /// Units of the target that provably never moved (pawns on their starting squares, and the
    /// pieces walled in by them, see [`frozen_units`]) are fixed; with `castling` given, each
    /// right's king and rook never moved either.
    pub fn proof_game(target: &Board, castling: Option<Bitboard>, moves: ByColor<u32>) -> Problem {
        let initial = Board::new();
        let mut fixed = frozen_units(target);
        if let Some(rights) = castling {
            for rook in rights {
                let king = Square::from_coords(shakmaty::File::E, rook.rank());
                if target.piece_at(rook) == initial.piece_at(rook)
                    && target.piece_at(king) == initial.piece_at(king)
                {
                    fixed.add(rook);
                    fixed.add(king);
                }
            }
        }
        // Castling is possible only for rights the target may still hold or that may have
        // been used: all four at the start.
        let units = initial
            .iter()
            .map(|(square, piece)| Unit {
                piece,
                square,
                goal: if fixed.contains(square) && target.piece_at(square) == Some(piece) {
                    Goal::Fixed
                } else {
                    Goal::Target
                },
            })
            .collect();
        Problem {
            units,
            targets: target
                .iter()
                .map(|(square, piece)| Target { piece, square })
                .collect(),
            castling: Bitboard::from_square(Square::A1) | Square::H1 | Square::A8 | Square::H8,
            moves,
        }
    }
}

/// Units of a position reached from the initial array that never moved and were never
/// captured in any game reaching it.
///
/// A white pawn on the second rank (black: seventh) can only be the original pawn, unmoved:
/// pawns never move backwards.
///
/// A piece on its original square whose every first step (king: adjacent squares, which
/// includes castling; bishop, rook, queen: the first square of each ray; knight: its jumps) is
/// occupied by such a permanent unit of its own colour can never have moved; and no other unit
/// of that role can have entered the square (the entries are the same squares, and a promotion
/// cannot land on the own back rank), so it was never captured either.
///
/// A group of pieces (no knights) on their original squares, each of whose adjacent squares
/// holds a permanent unit of its colour or a member of the group, is permanent as a whole:
/// every move of a piece other than a knight goes to or through an adjacent square, so no own
/// piece other than a knight can enter the group's squares from outside; as the position shows
/// all members there, none of them was ever captured, and the first one to move would have
/// needed an empty adjacent square, of which there is none.
///
/// Both rules are applied until nothing changes.
pub fn frozen_units(board: &Board) -> Bitboard {
    use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, rook_attacks};
    let mut frozen = (board.pawns() & board.white() & Bitboard::from_rank(shakmaty::Rank::Second))
        | (board.pawns() & board.black() & Bitboard::from_rank(shakmaty::Rank::Seventh));
    let initial = Board::new();
    let at_home = |sq: Square| {
        let piece = board.piece_at(sq);
        piece.is_some() && piece == initial.piece_at(sq)
    };
    loop {
        let before = frozen;
        for (sq, piece) in board.iter() {
            if frozen.contains(sq) || piece.role == Role::Pawn || !at_home(sq) {
                continue;
            }
            let exits = match piece.role {
                Role::Knight => knight_attacks(sq),
                Role::Bishop => bishop_attacks(sq, Bitboard::FULL) & king_attacks(sq),
                Role::Rook => rook_attacks(sq, Bitboard::FULL) & king_attacks(sq),
                Role::Queen | Role::King => king_attacks(sq),
                Role::Pawn => Bitboard::EMPTY,
            };
            if exits.is_subset(frozen & board.by_color(piece.color)) {
                frozen.add(sq);
            }
        }
        for color in Color::ALL {
            let own = board.by_color(color);
            let mut group = Bitboard::EMPTY;
            for sq in own & !board.pawns() & !board.knights() & !frozen {
                if at_home(sq) {
                    group.add(sq);
                }
            }
            loop {
                let mut shrunk = group;
                for sq in group {
                    if !king_attacks(sq).is_subset((frozen & own) | group) {
                        shrunk.discard(sq);
                    }
                }
                if shrunk == group {
                    break;
                }
                group = shrunk;
            }
            frozen |= group;
        }
        if frozen == before {
            return frozen;
        }
    }
}

#[cfg(test)]
mod tests;
