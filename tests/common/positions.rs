//! Deterministic (seeded) generators of valid positions for the tests.
//!
//! Every generator returns canonical setups: valid under `Chess::from_setup(_,
//! CastlingMode::Standard)`, castling rights as rook squares, e.p. square only when a legal e.p.
//! capture exists (`Chess::to_setup(EnPassantMode::Legal)`). Positions taken from games keep
//! their real halfmove clock and fullmove number; constructed positions carry "0 1". Within one
//! call no position appears twice. The same arguments always give the same result.

use std::collections::HashSet;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, File, FromSetup, Move, Piece,
    Position, Rank, Role, Setup, Square,
};

use super::Rng;
use super::oracle::{canonical, fen_without_clocks};

/// One ply of a game: the position before, the move, the position after (canonical setups, real
/// clocks).
#[derive(Clone, Debug)]
pub struct Ply {
    /// The position the move was played from.
    pub before: Setup,
    /// The move.
    pub mv: Move,
    /// The position the move led to.
    pub after: Setup,
}

/// How a random game chooses its moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Steer {
    /// Uniformly among the legal moves.
    Uniform,
    /// Double checks whenever possible, otherwise checks half of the time.
    Checks,
    /// Castles half of the time when possible; otherwise mostly keeps castling rights.
    Castling,
    /// Takes e.p. half of the time when possible, mostly plays double steps that allow a legal
    /// e.p. capture, otherwise favours pawn moves.
    EnPassant,
    /// Plays a piece move that captures nothing (nor castles) 9 times in 10 when there is one,
    /// so that long runs without a reset build up.
    Quiet,
    /// Captures 3 times in 4 when a capture is legal, so that the material runs down to a few
    /// units within a game.
    Captures,
}

/// Every generator kind that `mixed` draws from, with its name for reports.
pub const KINDS: [&str; 7] = [
    "game",
    "placement",
    "check",
    "double_check",
    "castling",
    "en_passant",
    "many_queens",
];

/// Plays one random game from the initial array for at most `max_plies` plies (it stops earlier
/// at checkmate or stalemate).
pub fn random_game(rng: &mut Rng, max_plies: usize, steer: Steer) -> Vec<Ply> {
    let mut pos = Chess::default();
    let mut plies = Vec::new();
    for _ in 0..max_plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let mv = choose_move(rng, &pos, &moves, steer);
        let before = pos.to_setup(EnPassantMode::Legal);
        pos.play_unchecked(mv);
        plies.push(Ply {
            before,
            mv,
            after: pos.to_setup(EnPassantMode::Legal),
        });
    }
    plies
}

/// `games` random games of at most `max_plies` plies each, seeded.
pub fn random_games(games: usize, max_plies: usize, seed: u64, steer: Steer) -> Vec<Vec<Ply>> {
    let mut rng = Rng::new(seed);
    (0..games)
        .map(|_| random_game(&mut rng, max_plies, steer))
        .collect()
}

fn choose_move(rng: &mut Rng, pos: &Chess, moves: &[Move], steer: Steer) -> Move {
    let after = |m: Move| {
        let mut next = pos.clone();
        next.play_unchecked(m);
        next
    };
    let preferred: Vec<Move> = match steer {
        Steer::Uniform => Vec::new(),
        Steer::Checks => {
            let double: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| after(*m).checkers().count() == 2)
                .collect();
            if !double.is_empty() {
                double
            } else if rng.chance(1, 2) {
                moves
                    .iter()
                    .copied()
                    .filter(|m| after(*m).is_check())
                    .collect()
            } else {
                Vec::new()
            }
        }
        Steer::Castling => {
            let castles: Vec<Move> = moves.iter().copied().filter(|m| m.is_castle()).collect();
            if !castles.is_empty() && rng.chance(1, 2) {
                castles
            } else if rng.chance(9, 10) {
                let rights = pos.castles().castling_rights();
                moves
                    .iter()
                    .copied()
                    .filter(|m| after(*m).castles().castling_rights() == rights)
                    .collect()
            } else {
                Vec::new()
            }
        }
        Steer::EnPassant => {
            let captures: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| m.is_en_passant())
                .collect();
            let ep: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| after(*m).legal_ep_square().is_some())
                .collect();
            if !captures.is_empty() && rng.chance(1, 2) {
                captures
            } else if !ep.is_empty() && rng.chance(4, 5) {
                ep
            } else if rng.chance(1, 2) {
                moves
                    .iter()
                    .copied()
                    .filter(|m| m.role() == Role::Pawn)
                    .collect()
            } else {
                Vec::new()
            }
        }
        Steer::Captures => {
            if rng.chance(3, 4) {
                moves.iter().copied().filter(|m| m.is_capture()).collect()
            } else {
                Vec::new()
            }
        }
        Steer::Quiet => {
            if rng.chance(9, 10) {
                moves
                    .iter()
                    .copied()
                    .filter(|m| m.role() != Role::Pawn && !m.is_capture() && !m.is_castle())
                    .collect()
            } else {
                Vec::new()
            }
        }
    };
    if preferred.is_empty() {
        *rng.pick(moves)
    } else {
        *rng.pick(&preferred)
    }
}

/// Adds `setup` to `out` unless an equal position (ignoring clocks) is already there.
fn push_unique(out: &mut Vec<Setup>, seen: &mut HashSet<String>, setup: Setup) {
    if seen.insert(fen_without_clocks(&setup)) {
        out.push(setup);
    }
}

/// Positions from games matching `steer`, at most `max_plies` plies each, kept when `keep`
/// (which sees the ply that led to the position) says so; stops at `n` positions.
fn from_games(
    n: usize,
    seed: u64,
    max_plies: usize,
    steer: Steer,
    keep: &dyn Fn(&Ply, &Chess) -> bool,
) -> Vec<Setup> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut barren = 0;
    while out.len() < n && barren < 10_000 {
        let before = out.len();
        for ply in random_game(&mut rng, max_plies, steer) {
            let pos = to_chess(&ply.after);
            if keep(&ply, &pos) {
                push_unique(&mut out, &mut seen, ply.after);
                if out.len() == n {
                    break;
                }
            }
        }
        barren = if out.len() == before { barren + 1 } else { 0 };
    }
    out
}

fn to_chess(setup: &Setup) -> Chess {
    Chess::from_setup(setup.clone(), CastlingMode::Standard).expect("generated position is valid")
}

/// `n` positions from uniformly random games (all plies, games up to 200 plies).
pub fn game_positions(n: usize, seed: u64) -> Vec<Setup> {
    from_games(n, seed, 200, Steer::Uniform, &|_, _| true)
}

fn valid(setup: &Setup) -> Option<Chess> {
    Chess::from_setup(setup.clone(), CastlingMode::Standard).ok()
}

fn random_square(rng: &mut Rng, mask: Bitboard) -> Option<Square> {
    let squares: Vec<Square> = mask.into_iter().collect();
    if squares.is_empty() {
        None
    } else {
        Some(*rng.pick(&squares))
    }
}

/// Tries up to 40 random empty squares of `mask` for `piece`, keeping the first that leaves the
/// setup valid. Returns whether the piece was placed.
fn try_place(rng: &mut Rng, setup: &mut Setup, piece: Piece, mask: Bitboard) -> bool {
    let mut mask = mask & !setup.board.occupied();
    if piece.role == Role::Pawn {
        mask &= !Bitboard::BACKRANKS;
    }
    for _ in 0..40 {
        let Some(sq) = random_square(rng, mask) else {
            return false;
        };
        setup.board.set_piece_at(sq, piece);
        if valid(setup).is_some() {
            return true;
        }
        setup.board.discard_piece_at(sq);
        mask.discard(sq);
    }
    false
}

fn random_color(rng: &mut Rng) -> Color {
    if rng.chance(1, 2) {
        Color::White
    } else {
        Color::Black
    }
}

fn random_role(rng: &mut Rng) -> Role {
    *rng.pick(&[
        Role::Pawn,
        Role::Pawn,
        Role::Pawn,
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
    ])
}

/// An empty setup with the given side to move and clocks "0 1".
fn blank(turn: Color) -> Setup {
    Setup {
        board: Board::empty(),
        turn,
        ..Setup::empty()
    }
}

/// Places both kings at random (valid: not adjacent, side not to move not in check).
fn place_kings(rng: &mut Rng, setup: &mut Setup) {
    loop {
        for sq in setup.board.kings() {
            setup.board.discard_piece_at(sq);
        }
        let w = Square::new(rng.below(64) as u32);
        let b = Square::new(rng.below(64) as u32);
        if w == b {
            continue;
        }
        setup.board.set_piece_at(w, Color::White.king());
        setup.board.set_piece_at(b, Color::Black.king());
        if valid(setup).is_some() {
            return;
        }
    }
}

/// Adds up to `extra` random units (random colour and role) to a valid setup.
fn add_random_units(rng: &mut Rng, setup: &mut Setup, extra: usize) {
    for _ in 0..extra {
        let piece = Piece {
            color: random_color(rng),
            role: random_role(rng),
        };
        try_place(rng, setup, piece, Bitboard::FULL);
    }
}

fn finish(setup: &Setup) -> Option<Setup> {
    valid(setup).map(|pos| canonical(&pos))
}

/// One random placement: random kings, side to move, and 0..=12 random units.
fn one_placement(rng: &mut Rng) -> Setup {
    let mut setup = blank(random_color(rng));
    place_kings(rng, &mut setup);
    let extra = rng.range(0, 12);
    add_random_units(rng, &mut setup, extra);
    finish(&setup).expect("placement kept valid")
}

/// `n` random placements: random kings plus 0..=12 random pieces and pawns, either side to move.
pub fn random_placements(n: usize, seed: u64) -> Vec<Setup> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    while out.len() < n {
        let setup = one_placement(&mut rng);
        push_unique(&mut out, &mut seen, setup);
    }
    out
}

/// `n` positions where the side to move is in check: half from games steered towards checks,
/// half from random placements.
pub fn check_positions(n: usize, seed: u64) -> Vec<Setup> {
    let from_play = n / 2;
    let mut out = from_games(from_play, seed, 200, Steer::Checks, &|_, pos| {
        pos.is_check()
    });
    let mut seen: HashSet<String> = out.iter().map(fen_without_clocks).collect();
    let mut rng = Rng::new(seed ^ 0x00c4_ec4e);
    while out.len() < n {
        let setup = one_placement(&mut rng);
        if to_chess(&setup).is_check() {
            push_unique(&mut out, &mut seen, setup);
        }
    }
    out
}

/// `n` positions in double check: half from games that play a double check whenever one is
/// available, half constructed (two checkers put around the king of the side to move, then
/// random units, kept if the double check survives and shakmaty accepts the position).
pub fn double_check_positions(n: usize, seed: u64) -> Vec<Setup> {
    let from_play = n / 2;
    let mut out = from_games(from_play, seed, 200, Steer::Checks, &|_, pos| {
        pos.checkers().count() == 2
    });
    let mut seen: HashSet<String> = out.iter().map(fen_without_clocks).collect();
    let mut rng = Rng::new(seed ^ 0x0d0b_1ec4);
    while out.len() < n {
        let turn = random_color(&mut rng);
        let mut setup = blank(turn);
        place_kings(&mut rng, &mut setup);
        let king = setup.board.king_of(turn).expect("king placed");
        let first = *rng.pick(&[Role::Rook, Role::Bishop, Role::Queen]);
        let second = *rng.pick(&[
            Role::Pawn,
            Role::Knight,
            Role::Rook,
            Role::Bishop,
            Role::Queen,
        ]);
        for role in [first, second] {
            let piece = role.of(!turn);
            // Squares from which this piece would attack the king on the current board.
            let reach = shakmaty::attacks::attacks(king, role.of(turn), setup.board.occupied());
            try_place(&mut rng, &mut setup, piece, reach);
        }
        let extra = rng.range(0, 10);
        add_random_units(&mut rng, &mut setup, extra);
        if let Some(pos) = valid(&setup)
            && pos.checkers().count() == 2
        {
            push_unique(&mut out, &mut seen, canonical(&pos));
        }
    }
    out
}

/// `n` positions with castling rights or just after castling: half from games that castle when
/// they can and otherwise mostly keep their rights, half constructed (kings and rooks at home
/// with all consistent rights or a random non-empty subset of them, or a king and rook in their
/// castled places).
pub fn castling_positions(n: usize, seed: u64) -> Vec<Setup> {
    let from_play = n / 2;
    let mut out = from_games(from_play, seed, 120, Steer::Castling, &|ply, pos| {
        pos.castles().castling_rights().any() || ply.mv.is_castle()
    });
    let mut seen: HashSet<String> = out.iter().map(fen_without_clocks).collect();
    let mut rng = Rng::new(seed ^ 0x0ca5_71e5);
    while out.len() < n {
        let mut setup = blank(random_color(&mut rng));
        for color in Color::ALL {
            let back = color.backrank();
            let at = |file| Square::from_coords(file, back);
            match rng.below(6) {
                0 => {
                    // Just castled short.
                    setup.board.set_piece_at(at(File::G), color.king());
                    setup.board.set_piece_at(at(File::F), color.rook());
                }
                1 => {
                    // Just castled long.
                    setup.board.set_piece_at(at(File::C), color.king());
                    setup.board.set_piece_at(at(File::D), color.rook());
                }
                2 => {
                    // King elsewhere (placed below).
                }
                _ => {
                    setup.board.set_piece_at(at(File::E), color.king());
                    for file in [File::A, File::H] {
                        if rng.chance(2, 3) {
                            setup.board.set_piece_at(at(file), color.rook());
                        }
                    }
                }
            }
        }
        for color in Color::ALL {
            if setup.board.king_of(color).is_none() {
                try_place(&mut rng, &mut setup, color.king(), Bitboard::FULL);
            }
        }
        if setup.board.kings().count() != 2 {
            continue;
        }
        let consistent = consistent_rights(&setup.board);
        setup.castling_rights = if rng.chance(1, 4) {
            Bitboard(rng.next_u64()) & consistent
        } else {
            consistent
        };
        if valid(&setup).is_none() {
            continue;
        }
        let extra = rng.range(0, 10);
        add_random_units(&mut rng, &mut setup, extra);
        if let Some(setup) = finish(&setup) {
            let castled = setup.board.kings()
                & (Bitboard::from_square(Square::G1)
                    | Bitboard::from_square(Square::C1)
                    | Bitboard::from_square(Square::G8)
                    | Bitboard::from_square(Square::C8));
            if setup.castling_rights.any() || castled.any() {
                push_unique(&mut out, &mut seen, setup);
            }
        }
    }
    out
}

/// All castling rights a placement allows (king on e1/e8, rook of its colour on a corner).
pub fn consistent_rights(board: &Board) -> Bitboard {
    let mut rights = Bitboard::EMPTY;
    for color in Color::ALL {
        let back = color.backrank();
        if board.king_of(color) != Some(Square::from_coords(File::E, back)) {
            continue;
        }
        for file in [File::A, File::H] {
            let corner = Square::from_coords(file, back);
            if board.piece_at(corner) == Some(color.rook()) {
                rights.add(corner);
            }
        }
    }
    rights
}

/// `n` positions with a legal e.p. square: half from games steered towards double steps that
/// can be taken e.p., half constructed (a pawn just double-stepped beside an enemy pawn, then
/// random units, kept if the e.p. capture is legal).
pub fn ep_positions(n: usize, seed: u64) -> Vec<Setup> {
    let from_play = n / 2;
    let mut out = from_games(from_play, seed, 200, Steer::EnPassant, &|_, pos| {
        pos.legal_ep_square().is_some()
    });
    let mut seen: HashSet<String> = out.iter().map(fen_without_clocks).collect();
    let mut rng = Rng::new(seed ^ 0x0e9a_55a1);
    while out.len() < n {
        let turn = random_color(&mut rng);
        let pusher = !turn;
        let mut setup = blank(turn);
        place_kings(&mut rng, &mut setup);
        let file = File::new(rng.below(8) as u32);
        let pushed = Square::from_coords(file, pusher.relative_rank(Rank::Fourth));
        let ep = Square::from_coords(file, pusher.relative_rank(Rank::Third));
        let origin = Square::from_coords(file, pusher.relative_rank(Rank::Second));
        let side = if file == File::A {
            1
        } else if file == File::H || rng.chance(1, 2) {
            -1
        } else {
            1
        };
        let Some(capturer) = pushed.offset(side) else {
            continue;
        };
        let busy = setup.board.occupied();
        if busy.contains(pushed)
            || busy.contains(ep)
            || busy.contains(origin)
            || busy.contains(capturer)
        {
            continue;
        }
        setup.board.set_piece_at(pushed, pusher.pawn());
        setup.board.set_piece_at(capturer, turn.pawn());
        setup.ep_square = Some(ep);
        if valid(&setup).is_none() {
            continue;
        }
        let extra = rng.range(0, 10);
        for _ in 0..extra {
            let piece = Piece {
                color: random_color(&mut rng),
                role: random_role(&mut rng),
            };
            let mask = !(Bitboard::from_square(ep) | Bitboard::from_square(origin));
            try_place(&mut rng, &mut setup, piece, mask);
        }
        if let Some(pos) = valid(&setup)
            && pos.legal_ep_square().is_some()
        {
            push_unique(&mut out, &mut seen, canonical(&pos));
        }
    }
    out
}

/// `n` positions with 5 to 9 queens per side, plus pawns (at most 9 minus the queens, so the
/// material stays possible) and at most one extra knight and rook per side.
pub fn many_queens(n: usize, seed: u64) -> Vec<Setup> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    while out.len() < n {
        let mut setup = blank(random_color(&mut rng));
        place_kings(&mut rng, &mut setup);
        let mut want = Vec::new();
        for color in Color::ALL {
            let queens = rng.range(5, 9);
            let pawns = rng.range(0, 9 - queens);
            want.extend(std::iter::repeat_n(color.queen(), queens));
            want.extend(std::iter::repeat_n(color.pawn(), pawns));
            if rng.chance(1, 2) {
                want.push(color.knight());
            }
            if rng.chance(1, 2) {
                want.push(color.rook());
            }
        }
        rng.shuffle(&mut want);
        for piece in want {
            try_place(&mut rng, &mut setup, piece, Bitboard::FULL);
        }
        let enough = Color::ALL
            .iter()
            .all(|c| (setup.board.by_piece(c.queen())).count() >= 5);
        if enough && let Some(setup) = finish(&setup) {
            push_unique(&mut out, &mut seen, setup);
        }
    }
    out
}

/// Generates `n` positions of kind `kind` (one of [`KINDS`]).
pub fn of_kind(kind: &str, n: usize, seed: u64) -> Vec<Setup> {
    match kind {
        "game" => game_positions(n, seed),
        "placement" => random_placements(n, seed),
        "check" => check_positions(n, seed),
        "double_check" => double_check_positions(n, seed),
        "castling" => castling_positions(n, seed),
        "en_passant" => ep_positions(n, seed),
        "many_queens" => many_queens(n, seed),
        _ => panic!("unknown position kind {kind}"),
    }
}

/// `n` positions mixing every kind of [`KINDS`] in near-equal shares (the first `n % 7` kinds
/// get one more), shuffled. Each kind uses its own seed derived from `seed`.
pub fn mixed(n: usize, seed: u64) -> Vec<Setup> {
    mixed_with_kinds(n, seed)
        .into_iter()
        .map(|(_, setup)| setup)
        .collect()
}

/// Like [`mixed`], each position labelled with its kind.
pub fn mixed_with_kinds(n: usize, seed: u64) -> Vec<(&'static str, Setup)> {
    let mut seeds = Rng::new(seed);
    let mut out = Vec::new();
    for (i, kind) in KINDS.iter().enumerate() {
        let share = n / KINDS.len() + usize::from(i < n % KINDS.len());
        let kind_seed = seeds.next_u64();
        out.extend(
            of_kind(kind, share, kind_seed)
                .into_iter()
                .map(|s| (*kind, s)),
        );
    }
    Rng::new(seed ^ 0x5eed).shuffle(&mut out);
    out
}

/// A position with few units from a random game, with the real predecessor of its last reset.
#[derive(Clone, Debug)]
pub struct SparsePosition {
    /// The position (canonical setup, real clocks).
    pub position: Setup,
    /// The position before the game's last reset (capture or pawn move) up to `position`: the
    /// P_R of its real history, legal because the game reached it.
    pub reset_predecessor: Setup,
}

/// `n` positions with at most `max_units` units (kings included), one from each of as many
/// seeded random games that capture 3 times in 4 (at most 300 plies each), each with the real
/// predecessor of its last reset. Within one call no position appears twice.
pub fn sparse_positions(n: usize, max_units: usize, seed: u64) -> Vec<SparsePosition> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut barren = 0;
    while out.len() < n && barren < 10_000 {
        let game = random_game(&mut rng, 300, Steer::Captures);
        let sparse: Vec<usize> = (0..game.len())
            .filter(|&i| game[i].after.board.occupied().count() <= max_units)
            .collect();
        if sparse.is_empty() {
            barren += 1;
            continue;
        }
        let i = *rng.pick(&sparse);
        let reset = (0..=i)
            .rev()
            .find(|&j| game[j].mv.is_capture() || game[j].mv.role() == Role::Pawn)
            .expect("the material went down, so something was captured");
        if seen.insert(fen_without_clocks(&game[i].after)) {
            out.push(SparsePosition {
                position: game[i].after.clone(),
                reset_predecessor: game[reset].before.clone(),
            });
            barren = 0;
        } else {
            barren += 1;
        }
    }
    out
}
