//! A deliberately simple brute-force predecessor generator, used as the test oracle for the
//! project's retraction code.
//!
//! Given a canonical position P (a `Setup` as produced by `Chess::to_setup(EnPassantMode::Legal)`),
//! the oracle builds every candidate predecessor board Q by undoing, in every conceivable way, a
//! move of the side that just moved (`!P.turn`): quiet moves and captures of every unit, pawn
//! single/double steps, pawn captures, en-passant captures, promotions with and without capture,
//! and castling on both wings. Each candidate Q is then expanded over every subset of the
//! castling rights its placement allows and over every possible en-passant square, and kept only
//! if shakmaty confirms it by forward play:
//!
//! 1. `Q.turn == !P.turn`;
//! 2. `Chess::from_setup(Q, CastlingMode::Standard)` succeeds (no error ignored);
//! 3. Q is canonical: its legal-mode en-passant square is the one chosen;
//! 4. the move m is in `Q.legal_moves()` and playing it gives exactly P (board, turn, castling
//!    rights and legal-mode en-passant square; clocks are not compared);
//! 5. the caller's `accept` filter agrees.
//!
//! The candidate enumeration only needs to be a superset of the real predecessors; all the
//! chess rules are left to shakmaty. That is why the oracle can be trusted: it contains no
//! retraction logic that could be subtly wrong in the same way as the code under test.

use std::collections::BTreeSet;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Move, Piece,
    Position, Rank, Role, Setup, Square, attacks, fen::Fen,
};

/// One predecessor found by the oracle.
#[derive(Clone, Debug)]
pub struct Predecessor {
    /// Q in canonical form (legal-mode e.p. square, clocks 0 and 1).
    pub setup: Setup,
    /// Q as a shakmaty position.
    pub position: Chess,
    /// The move m played from Q that gives P.
    pub mv: Move,
}

impl Predecessor {
    /// Q's FEN (legal-mode e.p. square, clocks written as "0 1").
    pub fn fen(&self) -> String {
        setup_fen(&self.setup)
    }

    /// m in UCI, castling written as the king's move (e1g1).
    pub fn uci(&self) -> String {
        uci_of(self.mv)
    }

    /// The (FEN, UCI) pair used in the set form.
    pub fn key(&self) -> (String, String) {
        (self.fen(), self.uci())
    }

    /// Whether this is the predecessor (q, m), compared as positions (clocks ignored).
    pub fn is(&self, q: &Setup, m: Move) -> bool {
        self.mv == m && position_key(&self.setup) == position_key(q)
    }
}

/// The default filter: accepts every predecessor.
pub fn accept_all(_: &Setup) -> bool {
    true
}

/// The fields of a setup that define a position (placement, turn, castling rights, e.p.
/// square); clocks and variant data are left out.
pub fn position_key(setup: &Setup) -> (Board, Color, Bitboard, Option<Square>) {
    (
        setup.board.clone(),
        setup.turn,
        setup.castling_rights,
        setup.ep_square,
    )
}

/// The canonical setup of a position: legal-mode e.p. square, clocks 0 and 1.
pub fn canonical(pos: &Chess) -> Setup {
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.halfmoves = 0;
    setup.fullmoves = std::num::NonZeroU32::MIN;
    setup
}

/// FEN of a position with legal-mode e.p. square and clocks written as "0 1".
pub fn fen_of(pos: &Chess) -> String {
    setup_fen(&canonical(pos))
}

/// FEN of a setup with its clocks written as "0 1" (the form the oracle uses for Q).
pub fn fen_without_clocks(setup: &Setup) -> String {
    let mut setup = setup.clone();
    setup.halfmoves = 0;
    setup.fullmoves = std::num::NonZeroU32::MIN;
    setup_fen(&setup)
}

/// FEN of a setup as it stands (standard castling rights assumed representable).
pub fn setup_fen(setup: &Setup) -> String {
    Fen::try_from_setup(setup.clone())
        .unwrap_or_else(|lossy| lossy.ignore())
        .to_string()
}

/// UCI of a move, castling written as the king's move (e1g1).
pub fn uci_of(m: Move) -> String {
    m.to_uci(CastlingMode::Standard).to_string()
}

/// Every predecessor (Q, m) of P accepted by `accept`, in the rich form. Each (Q, m) appears once.
pub fn predecessors(p: &Setup, accept: &dyn Fn(&Setup) -> bool) -> Vec<Predecessor> {
    predecessors_with(p, accept, Origins::Unblocked)
}

/// Which origin squares the oracle tries for a knight, bishop, rook or queen move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origins {
    /// Every empty square from which the role reaches the destination on an empty board.
    EmptyBoard,
    /// Only those whose path to the destination is empty in P. The squares strictly between
    /// origin and destination are the same in Q and P (a move changes only its origin and
    /// destination, plus the victim square of e.p. and the rook of castling, neither of which
    /// involves a knight, bishop, rook or queen move), so this loses no predecessor; the
    /// self-test checks it gives the same sets as `EmptyBoard`. About 40 % faster.
    Unblocked,
}

/// [`predecessors`] with an explicit choice of origin squares.
pub fn predecessors_with(
    p: &Setup,
    accept: &dyn Fn(&Setup) -> bool,
    origins: Origins,
) -> Vec<Predecessor> {
    let target = position_key(p);
    let mut found = Vec::new();
    for (board, mv) in candidates(p, origins) {
        for castling_rights in castling_choices(&board, p.castling_rights) {
            for ep_square in ep_choices(&board, !p.turn) {
                let setup = Setup {
                    board: board.clone(),
                    turn: !p.turn,
                    castling_rights,
                    ep_square,
                    halfmoves: 0,
                    fullmoves: std::num::NonZeroU32::MIN,
                    ..Setup::empty()
                };
                let Ok(q) = Chess::from_setup(setup, CastlingMode::Standard) else {
                    continue;
                };
                if q.legal_ep_square() != ep_square || !q.legal_moves().contains(&mv) {
                    continue;
                }
                let mut after = q.clone();
                after.play_unchecked(mv);
                if position_key(&after.to_setup(EnPassantMode::Legal)) != target {
                    continue;
                }
                let q_setup = canonical(&q);
                if !accept(&q_setup) {
                    continue;
                }
                found.push(Predecessor {
                    setup: q_setup,
                    position: q,
                    mv,
                });
            }
        }
    }
    found
}

/// Every predecessor of P accepted by `accept`, as a set of (Q's FEN, m in UCI).
pub fn predecessor_set(p: &Setup, accept: &dyn Fn(&Setup) -> bool) -> BTreeSet<(String, String)> {
    predecessors(p, accept)
        .iter()
        .map(Predecessor::key)
        .collect()
}

/// Convenience: the predecessor set of a FEN (parsed with its own e.p. field, then made
/// canonical), with the accept-all filter. Panics on an invalid FEN.
pub fn predecessor_set_of_fen(fen: &str) -> BTreeSet<(String, String)> {
    let pos: Chess = fen
        .parse::<Fen>()
        .expect("FEN syntax")
        .into_position(CastlingMode::Standard)
        .expect("valid position");
    predecessor_set(&pos.to_setup(EnPassantMode::Legal), &accept_all)
}

/// Units the side to move in P may have lost on `to` by the last move (`None`: no capture).
fn uncaptures(to: Square) -> Vec<Option<Role>> {
    let mut out = vec![None];
    for role in [
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ] {
        if role == Role::Pawn && (to.rank() == Rank::First || to.rank() == Rank::Eighth) {
            continue;
        }
        out.push(Some(role));
    }
    out
}

/// `sq` moved `ranks` ranks towards `color`'s own side (backwards for that colour) and `files`
/// files sideways.
fn behind(sq: Square, color: Color, ranks: i32, files: i32) -> Option<Square> {
    let dr = if color == Color::White { -ranks } else { ranks };
    let file = sq.file().offset(files)?;
    let rank = sq.rank().offset(dr)?;
    Some(Square::from_coords(file, rank))
}

/// Candidate (Q board, m) pairs: a superset of the real predecessors' boards and moves.
fn candidates(p: &Setup, origins: Origins) -> Vec<(Board, Move)> {
    let mover = !p.turn;
    let them = p.turn;
    let empty = !p.board.occupied();
    let mut out = Vec::new();

    // Builds Q's board for a normal move: the unit on `to` goes back to `from` as `origin_role`,
    // and the captured unit (if any) is put back on `to`.
    let normal = |from: Square, to: Square, origin_role: Role, capture: Option<Role>| {
        let mut board = p.board.clone();
        board.discard_piece_at(to);
        board.set_piece_at(from, origin_role.of(mover));
        if let Some(role) = capture {
            board.set_piece_at(to, role.of(them));
        }
        board
    };

    for to in p.board.by_color(mover) {
        let role = p.board.role_at(to).expect("occupied square");
        match role {
            Role::Pawn => {
                // Single step.
                if let Some(from) = behind(to, mover, 1, 0).filter(|s| empty.contains(*s)) {
                    let mv = Move::Normal {
                        role,
                        from,
                        capture: None,
                        to,
                        promotion: None,
                    };
                    out.push((normal(from, to, role, None), mv));
                    // Double step, to the mover's 4th rank.
                    if to.rank() == mover.relative_rank(Rank::Fourth)
                        && let Some(from2) = behind(to, mover, 2, 0).filter(|s| empty.contains(*s))
                    {
                        let mv = Move::Normal {
                            role,
                            from: from2,
                            capture: None,
                            to,
                            promotion: None,
                        };
                        out.push((normal(from2, to, role, None), mv));
                    }
                }
                // Captures, including en passant.
                for files in [-1, 1] {
                    let Some(from) = behind(to, mover, 1, files).filter(|s| empty.contains(*s))
                    else {
                        continue;
                    };
                    for capture in uncaptures(to).into_iter().flatten() {
                        let mv = Move::Normal {
                            role,
                            from,
                            capture: Some(capture),
                            to,
                            promotion: None,
                        };
                        out.push((normal(from, to, role, Some(capture)), mv));
                    }
                    if to.rank() == mover.relative_rank(Rank::Sixth)
                        && let Some(victim) = behind(to, mover, 1, 0).filter(|s| empty.contains(*s))
                    {
                        let mut board = normal(from, to, role, None);
                        board.set_piece_at(victim, Role::Pawn.of(them));
                        out.push((board, Move::EnPassant { from, to }));
                    }
                }
            }
            Role::King | Role::Knight | Role::Bishop | Role::Rook | Role::Queen => {
                // Every square from which this role reaches `to` (on an empty board, or with
                // P's other units in the way: see `Origins`; a king's step is the same either way).
                let piece = Piece { color: mover, role };
                let blockers = match origins {
                    Origins::EmptyBoard => Bitboard::EMPTY,
                    Origins::Unblocked => p.board.occupied(),
                };
                for from in attacks::attacks(to, piece, blockers) & empty {
                    for capture in uncaptures(to) {
                        let mv = Move::Normal {
                            role,
                            from,
                            capture,
                            to,
                            promotion: None,
                        };
                        out.push((normal(from, to, role, capture), mv));
                    }
                }
                if role == Role::King {
                    // Castling: king on g/c of its back rank, rook on f/d.
                    let back = mover.backrank();
                    for (king_to, rook_to, rook_from) in
                        [(File::G, File::F, File::H), (File::C, File::D, File::A)]
                    {
                        let king_to = Square::from_coords(king_to, back);
                        let rook_to = Square::from_coords(rook_to, back);
                        let rook_from = Square::from_coords(rook_from, back);
                        let king_from = Square::from_coords(File::E, back);
                        if to != king_to
                            || p.board.piece_at(rook_to) != Some(Role::Rook.of(mover))
                            || !empty.contains(king_from)
                            || !empty.contains(rook_from)
                        {
                            continue;
                        }
                        let mut board = p.board.clone();
                        board.discard_piece_at(king_to);
                        board.discard_piece_at(rook_to);
                        board.set_piece_at(king_from, Role::King.of(mover));
                        board.set_piece_at(rook_from, Role::Rook.of(mover));
                        out.push((
                            board,
                            Move::Castle {
                                king: king_from,
                                rook: rook_from,
                            },
                        ));
                    }
                } else {
                    // Promotion: a pawn on the 7th rank moved to the last rank.
                    if to.rank() == mover.relative_rank(Rank::Eighth) {
                        for files in [-1, 0, 1] {
                            let Some(from) =
                                behind(to, mover, 1, files).filter(|s| empty.contains(*s))
                            else {
                                continue;
                            };
                            let captures = if files == 0 {
                                vec![None]
                            } else {
                                uncaptures(to).into_iter().skip(1).collect()
                            };
                            for capture in captures {
                                let mv = Move::Normal {
                                    role: Role::Pawn,
                                    from,
                                    capture,
                                    to,
                                    promotion: Some(role),
                                };
                                out.push((normal(from, to, Role::Pawn, capture), mv));
                            }
                        }
                    }
                }
            }
        }
    }
    out
}

/// Every castling-rights set Q may carry: each subset of the rights its placement allows (king on
/// e1/e8 and a rook of the same colour on a corner of that rank) that includes P's rights (a move
/// never adds a right; shakmaty's forward play would reject the others anyway).
fn castling_choices(board: &Board, p_rights: Bitboard) -> Vec<Bitboard> {
    super::positions::consistent_rights(board)
        .carry_rippler()
        .filter(|subset| subset.is_superset(p_rights))
        .collect()
}

/// Every e.p. square Q may carry, `None` included: for each pawn of the side not to move in Q
/// (`!q_turn`) on its 4th rank with the two squares behind it empty, the square just behind it.
fn ep_choices(board: &Board, q_turn: Color) -> Vec<Option<Square>> {
    let pusher = !q_turn;
    let mut out = vec![None];
    let fourth = Bitboard::from_rank(pusher.relative_rank(Rank::Fourth));
    for pawn in board.by_piece(Role::Pawn.of(pusher)) & fourth {
        let Some(ep) = behind(pawn, pusher, 1, 0) else {
            continue;
        };
        let Some(origin) = behind(pawn, pusher, 2, 0) else {
            continue;
        };
        if !board.occupied().contains(ep) && !board.occupied().contains(origin) {
            out.push(Some(ep));
        }
    }
    out
}
