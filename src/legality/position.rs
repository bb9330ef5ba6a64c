//! Placement checks: kings, pawns on the back ranks, checks, castling rights and the e.p. square.

use shakmaty::{Bitboard, Board, Color, File, Piece, Rank, Role, Square, attacks};

use super::{CastlingFault, DoubleCheckFault, EnPassantFault, Illegality};

/// One king each.
pub(super) fn king_reasons(board: &Board, out: &mut Vec<Illegality>) {
    for color in [Color::White, Color::Black] {
        let count = board.by_piece(color.king()).count() as u32;
        if count != 1 {
            out.push(Illegality::KingCount { color, count });
        }
    }
}

/// No pawn on rank 1 or 8.
pub(super) fn back_rank_reasons(board: &Board, out: &mut Vec<Illegality>) {
    for square in board.pawns() & Bitboard::BACKRANKS {
        if let Some(color) = board.color_at(square) {
            out.push(Illegality::PawnOnBackRank { color, square });
        }
    }
}

fn is_slider(role: Role) -> bool {
    matches!(role, Role::Bishop | Role::Rook | Role::Queen)
}

/// The square one step forward for `color`.
fn forward(color: Color) -> i32 {
    if color.is_white() { 8 } else { -8 }
}

/// Squares from which `piece` (of the side that moved last) can have made its last move to `sq`
/// on the current board (origins are empty now), split into ordinary moves and promotions (from
/// which the mover was a pawn).
fn origins(board: &Board, sq: Square, piece: Piece) -> (Bitboard, Bitboard) {
    let occ = board.occupied();
    let empty = !occ;
    let mover = piece.color;
    let fwd = forward(mover);
    let rel_rank = mover.relative_rank(sq.rank());
    let normal = match piece.role {
        Role::Pawn => {
            let mut bb = Bitboard::EMPTY;
            // A pawn on its starting rank has never moved; a pawn cannot come from rank 1.
            if rel_rank >= Rank::Third {
                if let Some(behind) = sq.offset(-fwd)
                    && empty.contains(behind)
                {
                    bb.add(behind);
                    if rel_rank == Rank::Fourth
                        && let Some(two) = behind.offset(-fwd)
                        && empty.contains(two)
                    {
                        bb.add(two);
                    }
                }
                // Squares from which a pawn of `mover` attacks `sq`.
                bb |= attacks::pawn_attacks(!mover, sq) & empty;
            }
            bb
        }
        Role::Knight => attacks::knight_attacks(sq) & empty,
        Role::King => attacks::king_attacks(sq) & empty,
        _ => attacks::attacks(sq, piece, occ) & empty,
    };
    let promo = if piece.role != Role::Pawn && piece.role != Role::King && rel_rank == Rank::Eighth
    {
        let mut bb = attacks::pawn_attacks(!mover, sq);
        if let Some(behind) = sq.offset(-fwd) {
            bb.add(behind);
        }
        bb & empty
    } else {
        Bitboard::EMPTY
    };
    (normal, promo)
}

/// Whether the checking unit on `sq` can have made the last move: from an empty square (or, as a
/// pawn that promoted, from the square behind or diagonally behind) where it did not already
/// give check. A check by a pawn, knight or king can only be explained this way, since it cannot
/// have been uncovered.
fn unit_can_have_moved(board: &Board, king: Square, sq: Square, piece: Piece) -> bool {
    let occ = board.occupied();
    let (normal, promo) = origins(board, sq, piece);
    normal
        .into_iter()
        .any(|x| !attacks::attacks(x, piece, occ.with(x)).contains(king))
        || promo
            .into_iter()
            .any(|x| !attacks::pawn_attacks(piece.color, x).contains(king))
}

/// Whether the line of the checking line piece on `checker` can have been opened by the last
/// move of `mover`: some unit of `mover` came from a square between checker and king (without
/// giving check from there), or an en-passant capture removed a pawn from that line.
/// Castling never uncovers a check (the king leaves e1/e8 on the edge, and the rook's corner is
/// the end of every line through it): its rook's check is handled by [`castling_explains`].
fn line_can_have_opened(board: &Board, king: Square, mover: Color, checker: Square) -> bool {
    let gap = attacks::between(checker, king);
    if gap.is_empty() {
        return false;
    }
    let occ = board.occupied();
    for u in board.by_color(mover) {
        if u == checker {
            continue;
        }
        let Some(piece) = board.piece_at(u) else {
            continue;
        };
        let (normal, promo) = origins(board, u, piece);
        if (gap & normal)
            .into_iter()
            .any(|x| !attacks::attacks(x, piece, occ.with(x)).contains(king))
            || (gap & promo)
                .into_iter()
                .any(|x| !attacks::pawn_attacks(mover, x).contains(king))
        {
            return true;
        }
    }
    ep_capture_explains(board, king, mover, checker, checker)
}

/// Whether castling by `mover` can have given the check by the rook on `checker`: the rook on
/// f1/d1 (f8/d8 for Black) beside its king on g1/c1, the king's and rook's starting squares (and
/// b1 for the long castling) empty, and before castling the king on `king` was not in check.
fn castling_explains(board: &Board, king: Square, mover: Color, checker: Square) -> bool {
    if board.piece_at(checker) != Some(mover.rook()) {
        return false;
    }
    let rank = mover.backrank();
    let at = |file: File| Square::from_coords(file, rank);
    let (king_to, corner, empty) = if checker == at(File::F) {
        (at(File::G), at(File::H), Bitboard::from(at(File::H)))
    } else if checker == at(File::D) {
        (
            at(File::C),
            at(File::A),
            Bitboard::from(at(File::A)).with(at(File::B)),
        )
    } else {
        return false;
    };
    let king_from = at(File::E);
    if board.piece_at(king_to) != Some(mover.king())
        || board.occupied().contains(king_from)
        || board.occupied().intersects(empty)
    {
        return false;
    }
    let mut before = board.clone();
    before.discard_piece_at(king_to);
    before.discard_piece_at(checker);
    before.set_piece_at(king_from, mover.king());
    before.set_piece_at(corner, mover.rook());
    before.attacks_to(king, mover, before.occupied()).is_empty()
}

/// Whether the double check of the king on `king` by `c1` and `c2` (units of `mover`) can have
/// been given by one move of `mover`.
///
/// Sound: a single move vacates one square (two for an en-passant capture); a check after the move
/// comes either from the moved unit or from a line piece whose line ran through a vacated square.
/// Castling gives no double check: of the squares it vacates, e1/e8 lies on the edge (an end of
/// every file and diagonal through it, and on the rank the castled rook or king stands between)
/// and the corner ends every line through it, so only the rook can give check.
/// Before the move the side now to move was not in check, so the moved unit did not attack the
/// king from its origin (tested with the destination treated as occupied, which gives the fewest
/// attacks and so never rejects a possible origin).
fn double_check_possible(
    board: &Board,
    king: Square,
    mover: Color,
    c1: Square,
    c2: Square,
) -> bool {
    let (Some(p1), Some(p2)) = (board.piece_at(c1), board.piece_at(c2)) else {
        return true;
    };
    let occ = board.occupied();
    for ((m, pm), (s, ps)) in [((c1, p1), (c2, p2)), ((c2, p2), (c1, p1))] {
        if !is_slider(ps.role) {
            continue;
        }
        let gap = attacks::between(s, king);
        let (normal, promo) = origins(board, m, pm);
        for x in gap & normal {
            if !attacks::attacks(x, pm, occ.with(x)).contains(king) {
                return true;
            }
        }
        for x in gap & promo {
            if !attacks::pawn_attacks(mover, x).contains(king) {
                return true;
            }
        }
    }
    ep_capture_explains(board, king, mover, c1, c2)
}

/// Whether an en-passant capture by `mover` can have given check from both `c1` and `c2`: the
/// capturing pawn now on its sixth rank `y` came from `x1` and removed the pawn on `x2`; each
/// checker is that pawn or a line piece whose line runs through `x1` or `x2`; and before the
/// capture (pawn on `x1`, victim on `x2`, `y` empty) the king was not in check.
fn ep_capture_explains(board: &Board, king: Square, mover: Color, c1: Square, c2: Square) -> bool {
    let fwd = forward(mover);
    let sixth = Bitboard::from_rank(mover.relative_rank(Rank::Sixth));
    let occ = board.occupied();
    for y in board.by_piece(mover.pawn()) & sixth {
        let (Some(x2), Some(victim_origin)) = (y.offset(-fwd), y.offset(fwd)) else {
            continue;
        };
        if occ.contains(x2) || occ.contains(victim_origin) {
            continue;
        }
        for x1 in attacks::pawn_attacks(!mover, y) & !occ {
            let vacated = Bitboard::from(x1).with(x2);
            let explained = |c: Square| {
                c == y
                    || (board.role_at(c).is_some_and(is_slider)
                        && attacks::between(c, king).intersects(vacated))
            };
            if !(explained(c1) && explained(c2)) {
                continue;
            }
            let mut before = board.clone();
            before.discard_piece_at(y);
            before.set_piece_at(x1, mover.pawn());
            before.set_piece_at(x2, (!mover).pawn());
            if before.attacks_to(king, mover, before.occupied()).is_empty() {
                return true;
            }
        }
    }
    false
}

/// The side not to move is not in check; the side to move has at most two checkers, and a double
/// check one move can give.
pub(super) fn check_reasons(board: &Board, turn: Color, out: &mut Vec<Illegality>) {
    let occ = board.occupied();
    if let Some(king) = board.king_of(!turn) {
        let checkers = board.attacks_to(king, turn, occ);
        if checkers.any() {
            out.push(Illegality::NotToMoveInCheck {
                color: !turn,
                checkers,
            });
        }
    }
    let Some(king) = board.king_of(turn) else {
        return;
    };
    let checkers = board.attacks_to(king, !turn, occ);
    match checkers.count() {
        0 => {}
        1 => {
            let Some(c) = checkers.first() else { return };
            let Some(piece) = board.piece_at(c) else {
                return;
            };
            let explained = unit_can_have_moved(board, king, c, piece)
                || (is_slider(piece.role) && line_can_have_opened(board, king, !turn, c))
                || castling_explains(board, king, !turn, c);
            if !explained {
                out.push(Illegality::UnexplainedCheck {
                    color: turn,
                    checker: (c, piece.role),
                });
            }
        }
        2 => {
            let (Some(c1), Some(c2)) = (checkers.first(), checkers.last()) else {
                return;
            };
            let (Some(r1), Some(r2)) = (board.role_at(c1), board.role_at(c2)) else {
                return;
            };
            let fault = if !is_slider(r1) && !is_slider(r2) {
                Some(DoubleCheckFault::TwoSteppers)
            } else if attacks::aligned(c1, c2, king) {
                Some(DoubleCheckFault::Aligned)
            } else if !double_check_possible(board, king, !turn, c1, c2) {
                Some(DoubleCheckFault::NoSingleMove)
            } else {
                None
            };
            if let Some(fault) = fault {
                out.push(Illegality::ImpossibleDoubleCheck {
                    color: turn,
                    checkers: [(c1, r1), (c2, r2)],
                    fault,
                });
            }
        }
        _ => out.push(Illegality::TooManyCheckers {
            color: turn,
            checkers,
        }),
    }
}

/// Castling rights need the king and the rook on their original squares.
pub(super) fn castling_reasons(board: &Board, castling: Bitboard, out: &mut Vec<Illegality>) {
    for square in castling {
        let (color, king_square) = match square {
            Square::A1 | Square::H1 => (Color::White, Square::E1),
            Square::A8 | Square::H8 => (Color::Black, Square::E8),
            _ => {
                out.push(Illegality::CastlingRight {
                    square,
                    fault: CastlingFault::NotACorner,
                });
                continue;
            }
        };
        let rook_present = board.piece_at(square) == Some(color.rook());
        let king_present = board.piece_at(king_square) == Some(color.king());
        if !(rook_present && king_present) {
            out.push(Illegality::CastlingRight {
                square,
                fault: CastlingFault::PiecesMoved {
                    color,
                    king_square,
                    rook_present,
                    king_present,
                },
            });
        }
    }
}

/// An e.p. square means the last move was the double step over it by the side not to move.
pub(super) fn ep_reasons(board: &Board, turn: Color, square: Square, out: &mut Vec<Illegality>) {
    let mover = !turn;
    if square.rank() != turn.relative_rank(Rank::Sixth) {
        out.push(Illegality::EnPassant {
            square,
            fault: EnPassantFault::WrongRank { turn },
        });
        return;
    }
    let fwd = forward(mover);
    // The rank is 3 or 6, so both neighbours on the file exist.
    let (Some(pawn), Some(origin)) = (square.offset(fwd), square.offset(-fwd)) else {
        return;
    };
    let occ = board.occupied();
    if board.piece_at(pawn) != Some(mover.pawn()) || occ.contains(square) || occ.contains(origin) {
        out.push(Illegality::EnPassant {
            square,
            fault: EnPassantFault::NoDoubleStep {
                mover,
                pawn,
                origin,
            },
        });
        return;
    }
    let Some(king) = board.king_of(turn) else {
        return;
    };
    let mut before = board.clone();
    before.discard_piece_at(pawn);
    before.set_piece_at(origin, mover.pawn());
    let checkers = before.attacks_to(king, mover, before.occupied());
    if checkers.any() {
        out.push(Illegality::EnPassant {
            square,
            fault: EnPassantFault::CheckBefore {
                turn,
                origin,
                pawn,
                checkers,
            },
        });
    }
}

/// The move-count parity check: when both sides have all 16 units and all 8 pawns on their
/// starting rank, nothing was ever captured and no pawn ever moved. Then bishops, queen and king
/// never moved (each is shut in by pawns and by the others, which cannot move first), castling
/// never happened (the f-bishop never left), and a rook can only have gone between its corner
/// and the knight's square next to it. So each side's number of moves has the parity of its
/// knights' changes of square colour (the two knights start on squares of different colours, so
/// either assignment gives the same parity) plus its rooks off their corners. White to move
/// needs equal parities, Black to move different ones.
///
/// The check applies only when every piece stands where this reasoning puts it (rooks on their
/// corner or next to it, the others at home); other placements are left to the other checks.
pub(super) fn parity_reasons(board: &Board, turn: Color, out: &mut Vec<Illegality>) {
    let mut parities = [0u8; 2];
    for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
        let ours = board.by_color(color);
        let back = color.fold_wb(Rank::First, Rank::Eighth);
        let home = color.fold_wb(Rank::Second, Rank::Seventh);
        let sq = |file: File| Square::from_coords(file, back);
        if ours.count() != 16 || (board.pawns() & ours) != Bitboard::from_rank(home) {
            return;
        }
        let at = |file: File, role: Role| board.piece_at(sq(file)) == Some(role.of(color));
        if !(at(File::C, Role::Bishop)
            && at(File::F, Role::Bishop)
            && at(File::D, Role::Queen)
            && at(File::E, Role::King))
        {
            return;
        }
        if (board.knights() & ours).count() != 2 {
            return;
        }
        let rooks = board.rooks() & ours;
        let queen_side = Bitboard::from_square(sq(File::A)).with(sq(File::B));
        let king_side = Bitboard::from_square(sq(File::G)).with(sq(File::H));
        if (rooks & queen_side).count() != 1 || (rooks & king_side).count() != 1 {
            return;
        }
        let mut parity =
            u8::from(rooks.contains(sq(File::B))) + u8::from(rooks.contains(sq(File::G)));
        // The knights start on b (light for White, dark for Black) and g (the other colour):
        // the number of light knights now differs from one by the parity of their moves.
        let light_knights = (board.knights() & ours & Bitboard::LIGHT_SQUARES).count();
        parity += u8::from(light_knights != 1);
        parities[i] = parity % 2;
    }
    let fits = match turn {
        Color::White => parities[0] == parities[1],
        Color::Black => parities[0] != parities[1],
    };
    if !fits {
        out.push(Illegality::MoveParity { parities, turn });
    }
}

/// The squares a unit of `role` steps to from `sq` in one step of its moves (one square along
/// each line for line pieces, whose longer moves are chains of such steps over empty squares).
pub(super) fn step_targets(role: Role, sq: Square) -> Bitboard {
    match role {
        Role::Knight => attacks::knight_attacks(sq),
        Role::Bishop => attacks::king_attacks(sq) & attacks::bishop_attacks(sq, Bitboard::FULL),
        Role::Rook => attacks::king_attacks(sq) & attacks::rook_attacks(sq, Bitboard::FULL),
        Role::Queen | Role::King => attacks::king_attacks(sq),
        Role::Pawn => Bitboard::EMPTY,
    }
}

/// The squares `piece` can have started the game on (for a bishop, the one of its square's
/// colour).
pub(super) fn original_squares(piece: Piece, sq: Square) -> Bitboard {
    let back = Bitboard::from_rank(piece.color.fold_wb(Rank::First, Rank::Eighth));
    let files = |fs: &[File]| {
        fs.iter()
            .fold(Bitboard::EMPTY, |b, &f| b | Bitboard::from_file(f))
    };
    let squares = back
        & match piece.role {
            Role::Knight => files(&[File::B, File::G]),
            Role::Bishop => files(&[File::C, File::F]),
            Role::Rook => files(&[File::A, File::H]),
            Role::Queen => files(&[File::D]),
            Role::King => files(&[File::E]),
            Role::Pawn => Bitboard::EMPTY,
        };
    if piece.role == Role::Bishop {
        let colour = if sq.is_light() {
            Bitboard::LIGHT_SQUARES
        } else {
            Bitboard::DARK_SQUARES
        };
        squares & colour
    } else {
        squares
    }
}

/// The squares from which `piece` can walk, by steps of its own moves over squares not in
/// `fixed`, to a square it can have started on (either, for a bishop: its steps keep its
/// square's colour) or, not the king, to its promotion rank. The steps go both ways, so this is
/// the region grown from those squares. Kept per thread by `fixed` and piece: the positions of
/// one search share their pawns, and so their fixed squares.
fn connected_region(piece: Piece, fixed: Bitboard) -> Bitboard {
    /// The fixed squares the regions were grown for, and the region of each piece (by colour
    /// and role), once grown.
    type Regions = (Bitboard, [Option<Bitboard>; 12]);
    thread_local! {
        static REGIONS: std::cell::Cell<Regions> = const { std::cell::Cell::new((Bitboard::EMPTY, [None; 12])) };
    }
    let index = usize::from(piece.color.is_black()) * 6 + usize::from(piece.role as u8 - 1);
    let (known_fixed, mut regions) = REGIONS.get();
    if known_fixed == fixed
        && let Some(region) = regions[index]
    {
        return region;
    }
    if known_fixed != fixed {
        regions = [None; 12];
    }
    let mut goals = original_squares(piece, Square::C1) | original_squares(piece, Square::F1);
    if piece.role != Role::King {
        goals |= Bitboard::from_rank(piece.color.fold_wb(Rank::Eighth, Rank::First));
    }
    let mut reached = goals & !fixed;
    let mut frontier = reached;
    while frontier.any() {
        let mut next = Bitboard::EMPTY;
        for s in frontier {
            next |= step_targets(piece.role, s);
        }
        frontier = next & !fixed & !reached;
        reached |= frontier;
    }
    regions[index] = Some(reached);
    REGIONS.set((fixed, regions));
    reached
}

/// Confinement: pawns on their starting rank never moved, so their squares were occupied during
/// the whole game; so were the squares of units that could never step anywhere else (then they
/// stand where they started). Every other piece must be connected, by steps of its own moves
/// over squares not so occupied, to a square it could have started on, or (not the king) to its
/// promotion rank.
pub(super) fn confinement_reasons(board: &Board, out: &mut Vec<Illegality>) {
    let mut fixed = (board.pawns() & board.white() & Bitboard::from_rank(Rank::Second))
        | (board.pawns() & board.black() & Bitboard::from_rank(Rank::Seventh));
    if fixed.is_empty() {
        return;
    }
    let promotion_rank = |c: Color| Bitboard::from_rank(c.fold_wb(Rank::Eighth, Rank::First));
    // Units that cannot step off their square never moved: they stand on an original square.
    loop {
        let mut grew = false;
        // Only a unit on a back rank can stand where it started.
        let back = Bitboard::from_rank(Rank::First) | Bitboard::from_rank(Rank::Eighth);
        for sq in board.occupied() & !board.pawns() & !fixed & back {
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            if original_squares(piece, sq).contains(sq)
                && !promotion_rank(piece.color).contains(sq)
                && (step_targets(piece.role, sq) & !fixed).is_empty()
            {
                fixed.add(sq);
                grew = true;
            }
        }
        if !grew {
            break;
        }
    }
    let movable = board.occupied() & !board.pawns() & !fixed;
    for square in movable {
        // Each kind of piece at once: the region is the same for all of them.
        let Some(piece) = board.piece_at(square) else {
            continue;
        };
        let first_of_kind = (movable & board.by_piece(piece)).first() == Some(square);
        if !first_of_kind {
            continue;
        }
        for square in movable & board.by_piece(piece) & !connected_region(piece, fixed) {
            out.push(Illegality::Confined {
                color: piece.color,
                role: piece.role,
                square,
            });
        }
    }
}
