//! Static legality checks: necessary conditions for a position to be reachable from the initial
//! array (SPEC §5).
//!
//! Every check here is a *necessary* condition: a position that fails one cannot arise in a game,
//! and each failure is reported as an [`Illegality`] whose message a person can verify on the
//! diagram. Passing every check does not prove a position legal; that needs a retraction chain or
//! a proof game.
//!
//! The entry points are [`static_reasons`] (all checks), [`material_reasons`] (only the
//! material conditions, cheap enough to call on every predecessor a retraction engine produces),
//! [`min_pawn_captures`] (the pawn-structure capture count), [`allowance`] (which units a
//! retraction engine may un-capture or un-promote), [`confinement_ok`] and [`passing_ok`] (the
//! checks on walled-off units and on pawns that could not pass each other, which the clock
//! search applies to reset predecessors) and [`fullmove_bound`].

mod bookkeeping;
mod cage;
mod history;
mod material;
mod passing;
mod position;
#[cfg(test)]
pub(crate) mod tests;

use std::fmt;

use shakmaty::{Bitboard, Board, Color, File, Role, Square};

pub use bookkeeping::bookkeeping_ok;
pub use cage::{CageCache, Caged, caged_unit};
pub use history::{
    HistoryCache, Refutation, refute_by_bookkeeping, refute_by_cage, refute_history,
};
pub(crate) use material::SideSlack;
pub use material::{
    Allowance, Material, UNASSIGNABLE, allowance, material_ok, material_reasons, material_side_ok,
    min_pawn_captures,
};
pub use passing::passing_ok;

/// Why a double check cannot have been given by a single move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DoubleCheckFault {
    /// Neither checker is a line piece (bishop, rook, queen): one of the two checks must have been
    /// uncovered by the last move, and only a line piece can give an uncovered check.
    TwoSteppers,
    /// Both checkers stand on one line through the king (on opposite sides of it); no single move
    /// can place one of them and uncover the other.
    Aligned,
    /// No single move explains both checks: no checker can have come from a square on the other
    /// checker's line (without already giving check from there), no promotion explains them, and
    /// no en-passant capture does.
    NoSingleMove,
}

/// What is wrong with a castling right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CastlingFault {
    /// The right is on a square that is not a rook's starting corner (a1, h1, a8, h8).
    NotACorner,
    /// The rook or the king is not on its original square.
    PiecesMoved {
        /// The side owning the right.
        color: Color,
        /// The king's original square (e1 or e8).
        king_square: Square,
        /// Whether a rook of that side stands on the right's square.
        rook_present: bool,
        /// Whether the king of that side stands on its original square.
        king_present: bool,
    },
}

/// What is wrong with an en-passant square.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EnPassantFault {
    /// The square is not on the rank a double step of the side not to move passes over
    /// (rank 6 when White is to move, rank 3 when Black is to move).
    WrongRank {
        /// The side to move.
        turn: Color,
    },
    /// The double-stepped pawn is not in front of the square, or the square or the one behind it
    /// is occupied.
    NoDoubleStep {
        /// The side that made the double step (the side not to move).
        mover: Color,
        /// Where the double-stepped pawn must stand.
        pawn: Square,
        /// Where it started; must be empty now.
        origin: Square,
    },
    /// Before the double step, the side now to move would already have been in check with the
    /// other side to move: the double step cannot explain the position's checks.
    CheckBefore {
        /// The side to move now (whose king would have been in check).
        turn: Color,
        /// Where the double-stepped pawn started.
        origin: Square,
        /// Where it stands now.
        pawn: Square,
        /// The units that would have given check before the double step.
        checkers: Bitboard,
    },
}

/// One reason why a position cannot be reached from the initial array.
///
/// `Display` gives a message a person can check on the diagram.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Illegality {
    /// A side does not have exactly one king.
    KingCount {
        /// The side.
        color: Color,
        /// How many kings it has.
        count: u32,
    },
    /// A pawn stands on the first or the last rank.
    PawnOnBackRank {
        /// The pawn's side.
        color: Color,
        /// Its square.
        square: Square,
    },
    /// The side not to move is in check (it would have left or put its own king in check).
    NotToMoveInCheck {
        /// The side not to move.
        color: Color,
        /// The units giving check.
        checkers: Bitboard,
    },
    /// The side to move is checked by more than two units.
    TooManyCheckers {
        /// The side to move.
        color: Color,
        /// The units giving check.
        checkers: Bitboard,
    },
    /// The side to move is in a single check that no last move explains: the checker cannot have
    /// moved there, and (for a line piece) no unit can have moved off its line.
    UnexplainedCheck {
        /// The side to move.
        color: Color,
        /// The checking unit.
        checker: (Square, Role),
    },
    /// The side to move is in a double check that no single move can give.
    ImpossibleDoubleCheck {
        /// The side to move.
        color: Color,
        /// The two checkers.
        checkers: [(Square, Role); 2],
        /// Why no single move gives it.
        fault: DoubleCheckFault,
    },
    /// A side has more than 8 pawns.
    TooManyPawns {
        /// The side.
        color: Color,
        /// Its pawn count.
        count: u32,
    },
    /// A side has more than 16 units.
    TooManyUnits {
        /// The side.
        color: Color,
        /// Its unit count (king included).
        count: u32,
    },
    /// A side has more promoted pieces (beyond Q1 R2 N2 and one bishop per square colour) than
    /// it has pawns missing.
    TooManyPromoted {
        /// The side.
        color: Color,
        /// The side's material.
        material: Material,
    },
    /// The pawns of a side cannot each come from a different starting file.
    PawnFilesExhausted {
        /// The side.
        color: Color,
        /// A smallest group of pawns that need more starting files than they can reach.
        pawns: Bitboard,
        /// The starting files (bit i = file i) within reach of that group.
        files: u8,
    },
    /// The pawns of a side need more captures than the other side has units missing.
    PawnCaptures {
        /// The side whose pawns made the captures.
        color: Color,
        /// The minimum number of captures the pawn structure needs.
        needed: u32,
        /// The number of the other side's units missing from the board.
        available: u32,
        /// One cheapest assignment: (starting square, current square) of the pawns that changed
        /// file.
        paths: Vec<(Square, Square)>,
        /// Unmoved pawns of the other side that a promoted pawn of this side had to get around
        /// (one capture each).
        blockers: Vec<Square>,
    },
    /// A castling right whose king and rook are not both on their original squares.
    CastlingRight {
        /// The rook square of the right.
        square: Square,
        /// What is wrong.
        fault: CastlingFault,
    },
    /// An en-passant square that no double step can explain.
    EnPassant {
        /// The e.p. square.
        square: Square,
        /// What is wrong.
        fault: EnPassantFault,
    },
    /// A unit stands where it cannot have come from any square it could start on or be promoted
    /// on: the pawns that never moved (on their starting rank), and the units shut in by them,
    /// wall it in.
    Confined {
        /// The unit's side.
        color: Color,
        /// Its role.
        role: Role,
        /// Its square.
        square: Square,
    },
    /// Nothing was ever captured and no pawn ever moved, so only knights and rooks (between
    /// their corner and the knight's square) ever moved, and the parity of each side's number
    /// of moves can be read off the board; those parities do not fit the side to move.
    MoveParity {
        /// The parity (0 even, 1 odd) of White's moves, and of Black's.
        parities: [u8; 2],
        /// The side to move.
        turn: Color,
    },
    /// A pawn is gone that can neither have been captured nor have promoted: the opponent has
    /// all 16 units (so this side never captured and its pawns kept their files), the
    /// opponent's pawns need exactly as many captures as this side has units missing and none
    /// of those captures lands on the file, and the opponent's pawn that started on the file
    /// has stood on it all game, so this side's pawn could not pass it.
    PawnNeitherTakenNorPromoted {
        /// The side whose pawn is gone.
        color: Color,
        /// Its file.
        file: File,
        /// The units that side is missing.
        missing: u32,
    },
}

/// The capitalised name of a side.
pub(crate) fn side_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// The lower-case name of a side (for "a white rook").
fn side_adj(color: Color) -> &'static str {
    match color {
        Color::White => "white",
        Color::Black => "black",
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::Pawn => "pawn",
        Role::Knight => "knight",
        Role::Bishop => "bishop",
        Role::Rook => "rook",
        Role::Queen => "queen",
        Role::King => "king",
    }
}

/// Writes the squares of a bitboard as "a1, b2 and c3".
fn write_squares(f: &mut fmt::Formatter<'_>, squares: Bitboard) -> fmt::Result {
    let n = squares.count();
    for (i, sq) in squares.into_iter().enumerate() {
        if i > 0 {
            f.write_str(if i + 1 == n { " and " } else { ", " })?;
        }
        write!(f, "{sq}")?;
    }
    Ok(())
}

/// Writes the files of a mask as "a-file", "a- and b-files" or "a-, b- and c-files".
fn write_files(f: &mut fmt::Formatter<'_>, files: u8) -> fmt::Result {
    let n = files.count_ones() as usize;
    let mut i = 0;
    for file in 0..8u32 {
        if files & (1 << file) != 0 {
            if i > 0 {
                f.write_str(if i + 1 == n { " and " } else { ", " })?;
            }
            write!(f, "{}-", File::new(file))?;
            i += 1;
        }
    }
    f.write_str(if n == 1 { "file" } else { "files" })
}

fn plural(n: u32, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 { one } else { many }
}

impl fmt::Display for Illegality {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Illegality::KingCount { color, count: 0 } => {
                write!(f, "{} has no king", side_name(*color))
            }
            Illegality::KingCount { color, count } => {
                write!(f, "{} has {count} kings", side_name(*color))
            }
            Illegality::PawnOnBackRank { color, square } => write!(
                f,
                "{} pawn on rank {} ({square})",
                side_name(*color),
                square.rank().char()
            ),
            Illegality::NotToMoveInCheck { color, checkers } => {
                write!(
                    f,
                    "the side not to move ({}) is in check (from ",
                    side_name(*color)
                )?;
                write_squares(f, *checkers)?;
                f.write_str(")")
            }
            Illegality::TooManyCheckers { color, checkers } => {
                write!(
                    f,
                    "{} is checked by {} units (",
                    side_name(*color),
                    checkers.count()
                )?;
                write_squares(f, *checkers)?;
                f.write_str("); no move gives more than a double check")
            }
            Illegality::UnexplainedCheck {
                color,
                checker: (sq, role),
            } => {
                write!(
                    f,
                    "{} is checked by the {} on {sq}, but no last move explains it: it cannot have \
                     come from an empty square without already giving check",
                    side_name(*color),
                    role_name(*role)
                )?;
                if matches!(role, Role::Bishop | Role::Rook | Role::Queen) {
                    f.write_str(", and no unit can have moved off its line")?;
                }
                Ok(())
            }
            Illegality::ImpossibleDoubleCheck {
                color,
                checkers: [(s1, r1), (s2, r2)],
                fault,
            } => {
                let why = match fault {
                    DoubleCheckFault::TwoSteppers => {
                        "neither is a line piece, so neither check can have been uncovered"
                    }
                    DoubleCheckFault::Aligned => "both stand on one line through the king",
                    DoubleCheckFault::NoSingleMove => {
                        "neither can have moved last from a square on the other's line without \
                         already giving check there, and no promotion or en-passant capture \
                         explains both"
                    }
                };
                write!(
                    f,
                    "double check on {} by a {} ({s1}) and a {} ({s2}) cannot be given by one \
                     move: {why}",
                    side_name(*color),
                    role_name(*r1),
                    role_name(*r2),
                )
            }
            Illegality::TooManyPawns { color, count } => {
                write!(f, "{} has {count} pawns", side_name(*color))
            }
            Illegality::TooManyUnits { color, count } => {
                write!(f, "{} has {count} units", side_name(*color))
            }
            Illegality::TooManyPromoted { color, material } => {
                let extras = material.promoted_extras();
                let missing = 8u32.saturating_sub(u32::from(material.pawns));
                write!(
                    f,
                    "{} has at least {extras} promoted {} (",
                    side_name(*color),
                    plural(extras, "piece", "pieces")
                )?;
                let m = material;
                let items = [
                    (sat(m.queens, 1), "queen"),
                    (sat(m.rooks, 2), "rook"),
                    (sat(m.knights, 2), "knight"),
                    (sat(m.light_bishops, 1), "light-squared bishop"),
                    (sat(m.dark_bishops, 1), "dark-squared bishop"),
                ];
                let mut first = true;
                for (n, what) in items {
                    if n == 0 {
                        continue;
                    }
                    let sep = if first { "" } else { ", " };
                    first = false;
                    write!(f, "{sep}{n} extra {what}{}", plural(n, "", "s"))?;
                }
                write!(
                    f,
                    ") but with {} pawns on the board only {missing} can have promoted",
                    m.pawns
                )
            }
            Illegality::PawnFilesExhausted {
                color,
                pawns,
                files,
            } => {
                write!(f, "{}'s pawns on ", side_name(*color))?;
                write_squares(f, *pawns)?;
                write!(
                    f,
                    " need {} different starting files but can only come from the ",
                    pawns.count()
                )?;
                write_files(f, *files)
            }
            Illegality::PawnCaptures {
                color,
                needed,
                available,
                paths,
                blockers,
            } => {
                write!(
                    f,
                    "{}'s pawns need at least {needed} {} (",
                    side_name(*color),
                    plural(*needed, "capture", "captures")
                )?;
                let mut first = true;
                for (from, to) in paths {
                    if !first {
                        f.write_str(", ")?;
                    }
                    first = false;
                    write!(f, "{from}→{to}")?;
                }
                for b in blockers {
                    if !first {
                        f.write_str(", ")?;
                    }
                    first = false;
                    write!(f, "a promotion past the unmoved pawn on {b}")?;
                }
                let other = side_name(!*color);
                if *available == 0 {
                    write!(f, ") but {other} has no units missing")
                } else {
                    write!(
                        f,
                        ") but {other} has only {available} {} missing",
                        plural(*available, "unit", "units")
                    )
                }
            }
            Illegality::CastlingRight { square, fault } => match fault {
                CastlingFault::NotACorner => write!(
                    f,
                    "castling right on {square} is not on a rook's starting corner (a1, h1, a8, h8)"
                ),
                CastlingFault::PiecesMoved {
                    color,
                    king_square,
                    rook_present,
                    king_present,
                } => {
                    let c = side_adj(*color);
                    write!(
                        f,
                        "castling right on {square} needs a {c} rook on {square} and the {c} king \
                         on {king_square}"
                    )?;
                    match (rook_present, king_present) {
                        (false, false) => f.write_str(" (neither is there)"),
                        (false, true) => write!(f, " (no {c} rook on {square})"),
                        (true, false) => write!(f, " (the {c} king is not on {king_square})"),
                        (true, true) => Ok(()),
                    }
                }
            },
            Illegality::EnPassant { square, fault } => match fault {
                EnPassantFault::WrongRank { turn } => write!(
                    f,
                    "e.p. square {square} must be on rank {} when {} is to move",
                    if turn.is_white() { 6 } else { 3 },
                    side_name(*turn)
                ),
                EnPassantFault::NoDoubleStep {
                    mover,
                    pawn,
                    origin,
                } => write!(
                    f,
                    "e.p. square {square} needs a {} pawn on {pawn}, {origin} and {square} empty",
                    side_adj(*mover)
                ),
                EnPassantFault::CheckBefore {
                    turn,
                    origin,
                    pawn,
                    checkers,
                } => {
                    write!(
                        f,
                        "e.p. square {square} means the last move was {origin}–{pawn}, but before \
                         it {} was already in check (from ",
                        side_name(*turn)
                    )?;
                    write_squares(f, *checkers)?;
                    write!(f, ") with {} to move", side_name(!*turn))
                }
            },
            Illegality::Confined {
                color,
                role,
                square,
            } => write!(
                f,
                "the {} {} on {square} cannot have got there: the pawns that never moved (and \
                 the units they shut in) wall it off from every square it could have started \
                 on or been promoted on",
                side_adj(*color),
                role_name(*role)
            ),
            Illegality::PawnNeitherTakenNorPromoted {
                color,
                file,
                missing,
            } => {
                let (side, other) = (side_name(*color), side_name(!*color));
                let c = file.char();
                write!(
                    f,
                    "{side}'s {c}-pawn is gone, but it can neither have been captured nor have \
                     promoted: {other} has all 16 units, so {side} never captured and the \
                     {c}-pawn stayed on the {c}-file; {other}'s pawns need {missing} {}, as many \
                     as {side} has units missing, and none lands on the {c}-file; and {other}'s \
                     {c}-pawn has stood on the {c}-file all game, so {side}'s could not pass it",
                    plural(*missing, "capture", "captures")
                )
            }
            Illegality::MoveParity { parities, turn } => {
                let word = |p: u8| if p == 0 { "even" } else { "odd" };
                write!(
                    f,
                    "both sides have all 16 units and every pawn at home, so only knights and \
                     rooks ever moved: each knight move changes its square colour and each rook \
                     only went between its corner and the knight's square, so White made an {} \
                     number of moves and Black an {} number, which cannot be with {} to move",
                    word(parities[0]),
                    word(parities[1]),
                    side_name(*turn)
                )
            }
        }
    }
}

impl std::error::Error for Illegality {}

fn sat(n: u8, base: u8) -> u32 {
    u32::from(n.saturating_sub(base))
}

/// Whether no unit is walled off by pawns that never moved (see [`Illegality::Confined`]).
pub fn confinement_ok(board: &Board) -> bool {
    // Only pawns on their starting squares confine units.
    if board.pawns().is_empty() {
        return true;
    }
    let mut out = Vec::new();
    position::confinement_reasons(board, &mut out);
    out.is_empty()
}

/// Whether a predecessor produced by the retraction engine passes the static checks that the
/// engine does not already make: how its checks and e.p. square arose, confinement, pawn
/// passing and move parity. The engine guarantees one king each, no pawn on a back rank, the
/// material conditions and castling rights with king and rook at home, so for its predecessors
/// this equals [`static_reasons`] being empty, without the material count.
pub fn arisen_ok(board: &Board, turn: Color, ep_square: Option<Square>) -> bool {
    let mut out = Vec::new();
    position::check_reasons(board, turn, &mut out);
    if let Some(ep) = ep_square {
        position::ep_reasons(board, turn, ep, &mut out);
    }
    position::parity_reasons(board, turn, &mut out);
    out.is_empty() && confinement_ok(board) && passing_ok(board)
}

/// Every static reason (SPEC §5) why the position cannot arise from the initial array; empty when
/// all checks pass.
///
/// - `turn`: the side to move;
/// - `castling`: the rook squares that still have castling rights (standard chess: a1, h1, a8,
///   h8), as in `shakmaty::Setup::castling_rights`;
/// - `ep_square`: an e.p. target square, meaning the last move was the double step of the pawn
///   in front of it (whether or not an e.p. capture is possible now).
///
/// The checks: one king each; no pawn on rank 1 or 8; the material conditions of
/// [`material_reasons`]; the side not to move is not in check; the side to move has at most two
/// checkers, a single check is one the last move can have given (by the checker moving there or,
/// for a line piece, by a unit leaving its line), and a double check is one that one move can
/// give; castling rights have king and rook on
/// their original squares; an e.p. square has its pawn in front, both squares behind empty, lies
/// on the right rank, and the double step leaves the position's checks possible; no unit is
/// walled off by pawns that never moved (confinement); no pawn is gone that could neither have
/// been captured nor have promoted (pawn passing); the move parities fit the side to move.
///
/// Never panics, whatever the board (no kings, several kings, any number of pieces).
pub fn static_reasons(
    board: &Board,
    turn: Color,
    castling: Bitboard,
    ep_square: Option<Square>,
) -> Vec<Illegality> {
    let mut out = Vec::new();
    position::king_reasons(board, &mut out);
    position::back_rank_reasons(board, &mut out);
    out.extend(material_reasons(board));
    position::check_reasons(board, turn, &mut out);
    position::castling_reasons(board, castling, &mut out);
    if let Some(ep) = ep_square {
        position::ep_reasons(board, turn, ep, &mut out);
    }
    position::confinement_reasons(board, &mut out);
    passing::passing_reasons(board, &mut out);
    position::parity_reasons(board, turn, &mut out);
    out
}

/// The largest halfmove clock compatible with the fullmove number `fullmove` when `turn` is to
/// move: 2·(F−1), plus 1 if Black is to move (each fullmove has two plies, and the count starts
/// at 1 with White to move).
///
/// A fullmove number of 0 is not valid FEN; it is treated as 1.
pub fn fullmove_bound(fullmove: u32, turn: Color) -> u64 {
    2 * u64::from(fullmove.saturating_sub(1)) + u64::from(turn.is_black())
}
