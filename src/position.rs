//! Positions: the fully known [`Position`] the engine works on, and the [`PositionInput`] a user
//! gives, in which the castling, e.p., clock and fullmove fields may be unknown (`?`).

use std::fmt;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position as _,
    Rank, Role, Setup, Square,
    zobrist::{Zobrist64, ZobristValue},
};

/// A position whose every field is known: placement, side to move, castling rights and e.p. square.
///
/// * `castling` is the set of rook squares (a1, h1, a8, h8) that still carry a castling right:
///   the king and that rook have never moved.
/// * `ep_square` is the e.p. target square when the last move is known to be a pawn's double
///   step. Predecessors produced by the engine carry it only when an e.p. capture is legal
///   (the canonical form of a FEN); a user's FEN may give it even when no capture is legal,
///   and it still means that the last move was that double step.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Position {
    /// Where the units stand.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// Rook squares with a castling right.
    pub castling: Bitboard,
    /// The e.p. target square, if the last move was a double step.
    pub ep_square: Option<Square>,
}

impl Position {
    /// The initial array, White to move, all castling rights.
    pub fn initial() -> Position {
        Position {
            board: Board::new(),
            turn: Color::White,
            castling: Bitboard::CORNERS,
            ep_square: None,
        }
    }

    /// Whether this is the initial array with White to move and every castling right.
    pub fn is_initial(&self) -> bool {
        self.turn == Color::White
            && self.castling == Bitboard::CORNERS
            && self.ep_square.is_none()
            && self.board == Board::new()
    }

    /// The position as a shakmaty setup with the given clocks.
    pub fn to_setup(&self) -> Setup {
        let mut setup = Setup::empty();
        setup.board = self.board.clone();
        setup.turn = self.turn;
        setup.castling_rights = self.castling;
        setup.ep_square = self.ep_square;
        setup
    }

    /// Builds a position from a shakmaty setup, ignoring its clocks.
    pub fn from_setup(setup: &Setup) -> Position {
        Position {
            board: setup.board.clone(),
            turn: setup.turn,
            castling: setup.castling_rights,
            ep_square: setup.ep_square,
        }
    }

    /// Builds a position from a shakmaty position, with the e.p. square only when a capture is legal.
    pub fn from_chess(pos: &Chess) -> Position {
        Position::from_setup(&pos.to_setup(EnPassantMode::Legal))
    }

    /// The position as a shakmaty position, if shakmaty accepts it (standard castling, every
    /// validity check on).
    pub fn to_chess(&self) -> Option<Chess> {
        Chess::from_setup(self.to_setup(), CastlingMode::Standard).ok()
    }

    /// The first four FEN fields (placement, side to move, castling, e.p.).
    pub fn fen4(&self) -> String {
        let castling = castling_string(self.castling);
        let ep = self
            .ep_square
            .map_or_else(|| "-".to_string(), |sq| sq.to_string());
        format!(
            "{} {} {} {}",
            self.board.board_fen(),
            self.turn.fold_wb('w', 'b'),
            castling,
            ep
        )
    }

    /// A 64-bit Zobrist key of the four FEN fields.
    pub fn zobrist(&self) -> u64 {
        self.key::<Zobrist64>().0
    }

    /// A 32-bit check of the four FEN fields, independent of [`Position::zobrist`]: a Zobrist
    /// key of its own, from random words drawn apart from the Zobrist key's. A search that
    /// cannot tell its positions apart exactly tells them apart by both, so that merging two
    /// different positions needs a 96-bit collision.
    pub fn check_hash(&self) -> u32 {
        self.key::<CheckKey>().0
    }

    /// The Zobrist key and the check of this position ([`Position::zobrist`],
    /// [`Position::check_hash`]), from those of `other`: only the squares, rights and e.p.
    /// square that differ are hashed, which makes it cheap for a predecessor one move away.
    pub fn keys_from(&self, other: &Position, (key, check): (u64, u32)) -> (u64, u32) {
        self.key_from(other, Keys(Zobrist64(key), CheckKey(check)))
            .pair()
    }

    /// As [`Position::keys_from`] when this position is `other` with one unit of `role`, of
    /// the side to move here, moved from `now` (its square in `other`) back to `before`.
    pub fn keys_from_quiet(
        &self,
        other: &Position,
        (key, check): (u64, u32),
        role: Role,
        before: Square,
        now: Square,
    ) -> (u64, u32) {
        self.key_from_quiet(
            other,
            Keys(Zobrist64(key), CheckKey(check)),
            role,
            before,
            now,
        )
        .pair()
    }

    /// The key `K` of the four FEN fields.
    fn key<K: FieldKey>(&self) -> K {
        let mut key = K::default();
        for (sq, piece) in &self.board {
            key ^= K::piece(sq, piece);
        }
        key ^ self.fields_key::<K>()
    }

    /// The key `K` of this position from `other`'s, hashing only the squares that differ.
    fn key_from<K: FieldKey>(&self, other: &Position, other_key: K) -> K {
        let mut key = other_key;
        let (a, b) = (&self.board, &other.board);
        let changed = (a.white() ^ b.white())
            | (a.black() ^ b.black())
            | (a.pawns() ^ b.pawns())
            | (a.knights() ^ b.knights())
            | (a.bishops() ^ b.bishops())
            | (a.rooks() ^ b.rooks())
            | (a.queens() ^ b.queens())
            | (a.kings() ^ b.kings());
        for sq in changed {
            if let Some(piece) = b.piece_at(sq) {
                key ^= K::piece(sq, piece);
            }
            if let Some(piece) = a.piece_at(sq) {
                key ^= K::piece(sq, piece);
            }
        }
        key ^ self.fields_diff::<K>(other)
    }

    /// The key `K` of this position from `other`'s, when it is `other` with one unit of `role`
    /// (of the side to move here) moved from `now` back to `before`.
    fn key_from_quiet<K: FieldKey>(
        &self,
        other: &Position,
        other_key: K,
        role: Role,
        before: Square,
        now: Square,
    ) -> K {
        let piece = role.of(self.turn);
        other_key ^ K::piece(now, piece) ^ K::piece(before, piece) ^ self.fields_diff::<K>(other)
    }

    /// `self.fields_key() ^ other.fields_key()`, from the fields that differ only (a position
    /// and its predecessor share most castling rights and e.p. squares).
    fn fields_diff<K: FieldKey>(&self, other: &Position) -> K {
        let mut key = K::default();
        if self.turn != other.turn {
            key ^= K::white_turn();
        }
        for rook in self.castling ^ other.castling {
            key ^= K::castling(rook);
        }
        if self.ep_square != other.ep_square {
            for ep in [self.ep_square, other.ep_square].into_iter().flatten() {
                key ^= K::ep(ep);
            }
        }
        key
    }

    /// The key `K` of fields 2–4 (side to move, castling, e.p.).
    fn fields_key<K: FieldKey>(&self) -> K {
        let mut key = K::default();
        if self.turn == Color::White {
            key ^= K::white_turn();
        }
        for rook in self.castling {
            key ^= K::castling(rook);
        }
        if let Some(ep) = self.ep_square {
            key ^= K::ep(ep);
        }
        key
    }

    /// The square of `color`'s king, if there is exactly one.
    pub fn king(&self, color: Color) -> Option<Square> {
        let kings = self.board.kings() & self.board.by_color(color);
        if kings.count() == 1 {
            kings.first()
        } else {
            None
        }
    }
}

/// A key built by xor from one word per feature of a position: a unit on a square, White to
/// move, a castling right, an e.p. square. Changing a feature flips its word, so a key follows
/// a move cheaply.
trait FieldKey: Default + Copy + std::ops::BitXor<Output = Self> + std::ops::BitXorAssign {
    fn piece(sq: Square, piece: Piece) -> Self;
    fn white_turn() -> Self;
    /// The right of the rook on `rook` (a corner square).
    fn castling(rook: Square) -> Self;
    fn ep(ep: Square) -> Self;
}

impl FieldKey for Zobrist64 {
    fn piece(sq: Square, piece: Piece) -> Self {
        Zobrist64::zobrist_for_piece(sq, piece)
    }

    fn white_turn() -> Self {
        Zobrist64::zobrist_for_white_turn()
    }

    fn castling(rook: Square) -> Self {
        let color = if rook.rank() == Rank::First {
            Color::White
        } else {
            Color::Black
        };
        let side = if rook.file() == shakmaty::File::A {
            shakmaty::CastlingSide::QueenSide
        } else {
            shakmaty::CastlingSide::KingSide
        };
        Zobrist64::zobrist_for_castling_right(color, side)
    }

    fn ep(ep: Square) -> Self {
        Zobrist64::zobrist_for_en_passant_file(ep.file())
    }
}

/// The key of [`Position::check_hash`].
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct CheckKey(u32);

impl std::ops::BitXor for CheckKey {
    type Output = CheckKey;
    fn bitxor(self, other: CheckKey) -> CheckKey {
        CheckKey(self.0 ^ other.0)
    }
}

impl std::ops::BitXorAssign for CheckKey {
    fn bitxor_assign(&mut self, other: CheckKey) {
        self.0 ^= other.0;
    }
}

/// The Zobrist key and the check, followed together in one pass.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
struct Keys(Zobrist64, CheckKey);

impl Keys {
    fn pair(self) -> (u64, u32) {
        (self.0.0, self.1.0)
    }
}

impl std::ops::BitXor for Keys {
    type Output = Keys;
    fn bitxor(self, other: Keys) -> Keys {
        Keys(self.0 ^ other.0, self.1 ^ other.1)
    }
}

impl std::ops::BitXorAssign for Keys {
    fn bitxor_assign(&mut self, other: Keys) {
        *self = *self ^ other;
    }
}

impl FieldKey for Keys {
    fn piece(sq: Square, piece: Piece) -> Self {
        Keys(Zobrist64::piece(sq, piece), CheckKey::piece(sq, piece))
    }

    fn white_turn() -> Self {
        Keys(Zobrist64::white_turn(), CheckKey::white_turn())
    }

    fn castling(rook: Square) -> Self {
        Keys(Zobrist64::castling(rook), CheckKey::castling(rook))
    }

    fn ep(ep: Square) -> Self {
        Keys(Zobrist64::ep(ep), CheckKey::ep(ep))
    }
}

/// The words of [`CheckKey`]: 12 × 64 for the units (by colour, role and square), then 64 for
/// castling rights and 64 for e.p. squares (by square), then one for White to move. Drawn
/// with SplitMix64 from a seed of this crate's own, so they are independent of shakmaty's
/// Zobrist words.
const CHECK_WORDS: [u32; 12 * 64 + 64 + 64 + 1] = {
    let mut words = [0u32; 12 * 64 + 64 + 64 + 1];
    let mut state: u64 = 0x7265_7472_6f63_6c6b; // "retroclk"
    let mut i = 0;
    while i < words.len() {
        state = state.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        words[i] = (z >> 32) as u32;
        i += 1;
    }
    words
};

impl FieldKey for CheckKey {
    fn piece(sq: Square, piece: Piece) -> Self {
        let unit = usize::from(piece.color.is_white()) * 6 + (piece.role as usize - 1);
        CheckKey(CHECK_WORDS[unit * 64 + usize::from(sq)])
    }

    fn white_turn() -> Self {
        CheckKey(CHECK_WORDS[12 * 64 + 128])
    }

    fn castling(rook: Square) -> Self {
        CheckKey(CHECK_WORDS[12 * 64 + usize::from(rook)])
    }

    fn ep(ep: Square) -> Self {
        CheckKey(CHECK_WORDS[12 * 64 + 64 + usize::from(ep)])
    }
}

/// Writes castling rights in FEN letters (`KQkq` or `-`).
pub fn castling_string(castling: Bitboard) -> String {
    let mut s = String::new();
    for (sq, ch) in [
        (Square::H1, 'K'),
        (Square::A1, 'Q'),
        (Square::H8, 'k'),
        (Square::A8, 'q'),
    ] {
        if castling.contains(sq) {
            s.push(ch);
        }
    }
    if s.is_empty() {
        s.push('-');
    }
    s
}

/// A field of a user's FEN that may be unknown (`?`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Field<T> {
    /// The user gave this value.
    Known(T),
    /// The user wrote `?` or left the field out.
    Unknown,
}

impl<T: Copy> Field<T> {
    /// The value, if known.
    pub fn known(self) -> Option<T> {
        match self {
            Field::Known(v) => Some(v),
            Field::Unknown => None,
        }
    }
}

/// The FEN fields, named for error messages.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FenField {
    /// Field 1: piece placement.
    Placement,
    /// Field 2: side to move.
    Turn,
    /// Field 3: castling rights.
    Castling,
    /// Field 4: e.p. target square.
    EnPassant,
    /// Field 5: halfmove clock.
    Halfmove,
    /// Field 6: fullmove number.
    Fullmove,
    /// The FEN as a whole (number of fields).
    Whole,
}

impl fmt::Display for FenField {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FenField::Placement => "field 1 (placement)",
            FenField::Turn => "field 2 (side to move)",
            FenField::Castling => "field 3 (castling)",
            FenField::EnPassant => "field 4 (e.p. square)",
            FenField::Halfmove => "field 5 (halfmove clock)",
            FenField::Fullmove => "field 6 (fullmove number)",
            FenField::Whole => "FEN",
        })
    }
}

/// A FEN that cannot be read: which field and what is wrong with it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct FenError {
    /// The field at fault.
    pub field: FenField,
    /// What is wrong, for a person.
    pub message: String,
}

impl fmt::Display for FenError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.field {
            // The FEN as a whole is named once ("FEN: ...", not "FEN FEN: ...").
            FenField::Whole => write!(f, "FEN: {}", self.message),
            field => write!(f, "FEN {field}: {}", self.message),
        }
    }
}

impl std::error::Error for FenError {}

fn fen_err(field: FenField, message: impl Into<String>) -> FenError {
    FenError {
        field,
        message: message.into(),
    }
}

/// A position as the user gave it: placement and side to move are known; castling, e.p., clock
/// and fullmove may be unknown. The clock and fullmove fields are claims about the history,
/// which the clock solver judges; they are never capped.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PositionInput {
    /// Where the units stand.
    pub board: Board,
    /// The side to move.
    pub turn: Color,
    /// Castling rights (rook squares), or unknown.
    pub castling: Field<Bitboard>,
    /// The rights sets an unknown castling field stands for, when a reading has narrowed them
    /// (the Codex reading, [`crate::codex`]); None: every set the placement allows.
    pub castling_choices: Option<Vec<Bitboard>>,
    /// The e.p. square (`Known(None)` for `-`), or unknown.
    pub ep_square: Field<Option<Square>>,
    /// The halfmove clock claimed by the FEN, or unknown.
    pub halfmove_clock: Field<u64>,
    /// The fullmove number claimed by the FEN, or unknown.
    pub fullmove: Field<u64>,
}

impl PositionInput {
    /// Reads a FEN of 4 to 6 fields; `?` marks an unknown castling, e.p., clock or fullmove
    /// field, and missing trailing fields are unknown.
    ///
    /// ```
    /// use retroclock::position::{PositionInput, Field};
    /// let p = PositionInput::parse("4k3/8/8/8/8/8/8/4K3 w ? - 120").unwrap();
    /// assert_eq!(p.halfmove_clock, Field::Known(120));
    /// assert_eq!(p.fullmove, Field::Unknown);
    /// assert!(PositionInput::parse("4k3/8/8/8/8/8/8/4K3 x - -").is_err());
    /// ```
    pub fn parse(fen: &str) -> Result<PositionInput, FenError> {
        let fields: Vec<&str> = fen.split_whitespace().collect();
        if fields.len() < 2 {
            return Err(fen_err(
                FenField::Whole,
                format!(
                    "found {} of its fields; expected placement and side to move, then castling, \
                     e.p. square, halfmove clock and fullmove number (those left out are unknown)",
                    fields.len()
                ),
            ));
        }
        if fields.len() > 6 {
            return Err(fen_err(
                FenField::Whole,
                format!("expected at most 6 fields, found {}", fields.len()),
            ));
        }
        let board = parse_placement(fields[0])?;
        let turn = match fields[1] {
            "w" => Color::White,
            "b" => Color::Black,
            other => {
                return Err(fen_err(
                    FenField::Turn,
                    format!("expected 'w' or 'b', found '{other}'"),
                ));
            }
        };
        let castling = match fields.get(2) {
            None | Some(&"?") => Field::Unknown,
            Some(s) => Field::Known(parse_castling(s)?),
        };
        let ep_square = match fields.get(3) {
            None | Some(&"?") => Field::Unknown,
            Some(&"-") => Field::Known(None),
            Some(s) => Field::Known(Some(parse_ep(s, turn)?)),
        };
        let halfmove_clock = parse_number(fields.get(4).copied(), FenField::Halfmove, 0)?;
        let fullmove = parse_number(fields.get(5).copied(), FenField::Fullmove, 1)?;
        Ok(PositionInput {
            board,
            turn,
            castling,
            castling_choices: None,
            ep_square,
            halfmove_clock,
            fullmove,
        })
    }

    /// Every fully known position consistent with this input: unknown castling rights range over
    /// the rights the placement allows (or the narrowed `castling_choices`), an unknown e.p. square over "none" and the squares where
    /// a double step just happened and could be taken e.p.
    pub fn candidates(&self) -> Vec<Position> {
        let castlings: Vec<Bitboard> = match (self.castling, &self.castling_choices) {
            (Field::Known(c), _) => vec![c],
            (Field::Unknown, Some(choices)) => choices.clone(),
            (Field::Unknown, None) => subsets(possible_castling(&self.board)),
        };
        let eps: Vec<Option<Square>> = match self.ep_square {
            Field::Known(e) => vec![e],
            Field::Unknown => {
                let mut v = vec![None];
                let probe = Position {
                    board: self.board.clone(),
                    turn: self.turn,
                    castling: Bitboard::EMPTY,
                    ep_square: None,
                };
                v.extend(
                    crate::retract::capturable_ep_squares(&probe)
                        .into_iter()
                        .map(Some),
                );
                v
            }
        };
        let mut out = Vec::new();
        for &castling in &castlings {
            for &ep_square in &eps {
                out.push(Position {
                    board: self.board.clone(),
                    turn: self.turn,
                    castling,
                    ep_square,
                });
            }
        }
        out
    }

    /// The input written back as a FEN, with `?` for unknown fields.
    pub fn fen(&self) -> String {
        let castling = match self.castling {
            Field::Known(c) => castling_string(c),
            Field::Unknown => "?".to_string(),
        };
        let ep = match self.ep_square {
            Field::Known(Some(sq)) => sq.to_string(),
            Field::Known(None) => "-".to_string(),
            Field::Unknown => "?".to_string(),
        };
        let num = |f: Field<u64>| f.known().map_or_else(|| "?".to_string(), |n| n.to_string());
        format!(
            "{} {} {} {} {} {}",
            self.board.board_fen(),
            self.turn.fold_wb('w', 'b'),
            castling,
            ep,
            num(self.halfmove_clock),
            num(self.fullmove)
        )
    }
}

/// The rook squares whose castling right the placement allows (king and rook at home).
pub fn possible_castling(board: &Board) -> Bitboard {
    let mut rights = Bitboard::EMPTY;
    for color in Color::ALL {
        let king_home = color.fold_wb(Square::E1, Square::E8);
        if board.piece_at(king_home) != Some(Role::King.of(color)) {
            continue;
        }
        for rook in [
            color.fold_wb(Square::A1, Square::A8),
            color.fold_wb(Square::H1, Square::H8),
        ] {
            if board.piece_at(rook) == Some(Role::Rook.of(color)) {
                rights.add(rook);
            }
        }
    }
    rights
}

/// All subsets of a small set of squares.
pub fn subsets(set: Bitboard) -> Vec<Bitboard> {
    let mut out = Vec::with_capacity(1 << set.count());
    let mut sub = 0u64;
    loop {
        out.push(Bitboard(sub));
        sub = sub.wrapping_sub(set.0) & set.0;
        if sub == 0 {
            return out;
        }
    }
}

fn parse_placement(s: &str) -> Result<Board, FenError> {
    let ranks: Vec<&str> = s.split('/').collect();
    if ranks.len() != 8 {
        return Err(fen_err(
            FenField::Placement,
            format!("expected 8 ranks separated by '/', found {}", ranks.len()),
        ));
    }
    for (i, rank) in ranks.iter().enumerate() {
        let mut width = 0u32;
        let mut after_digit = false;
        for ch in rank.chars() {
            match ch {
                '1'..='8' if after_digit => {
                    return Err(fen_err(
                        FenField::Placement,
                        format!("rank {}: two digits in a row ('{rank}')", 8 - i),
                    ));
                }
                '1'..='8' => width += ch.to_digit(10).unwrap_or(0),
                'p' | 'n' | 'b' | 'r' | 'q' | 'k' | 'P' | 'N' | 'B' | 'R' | 'Q' | 'K' => width += 1,
                other => {
                    return Err(fen_err(
                        FenField::Placement,
                        format!("rank {}: unexpected character '{}'", 8 - i, other),
                    ));
                }
            }
            after_digit = ch.is_ascii_digit();
        }
        if width != 8 {
            return Err(fen_err(
                FenField::Placement,
                format!("rank {} covers {} squares instead of 8", 8 - i, width),
            ));
        }
    }
    Board::from_ascii_board_fen(s.as_bytes())
        .map_err(|e| fen_err(FenField::Placement, format!("not a board: {e}")))
}

/// Reads a castling field of rights (`KQkq`, a part of it, or `-`).
pub fn parse_castling(s: &str) -> Result<Bitboard, FenError> {
    if s == "-" {
        return Ok(Bitboard::EMPTY);
    }
    let mut rights = Bitboard::EMPTY;
    for ch in s.chars() {
        let sq = match ch {
            'K' => Square::H1,
            'Q' => Square::A1,
            'k' => Square::H8,
            'q' => Square::A8,
            other => {
                return Err(fen_err(
                    FenField::Castling,
                    format!("unexpected character '{other}' (expected K, Q, k, q, '-' or '?')"),
                ));
            }
        };
        if rights.contains(sq) {
            return Err(fen_err(
                FenField::Castling,
                format!("right '{ch}' given twice"),
            ));
        }
        rights.add(sq);
    }
    Ok(rights)
}

fn parse_ep(s: &str, turn: Color) -> Result<Square, FenError> {
    let sq = Square::from_ascii(s.as_bytes()).map_err(|_| {
        fen_err(
            FenField::EnPassant,
            format!("'{s}' is not on the board (expected e.g. e3, '-' or '?')"),
        )
    })?;
    let expected = turn.fold_wb(Rank::Sixth, Rank::Third);
    if sq.rank() != expected {
        return Err(fen_err(
            FenField::EnPassant,
            format!(
                "{} to move, so it lies on rank {} (behind the pawn that just made a double step), found {}",
                turn.fold_wb("White", "Black"),
                turn.fold_wb(6, 3),
                sq
            ),
        ));
    }
    Ok(sq)
}

fn parse_number(s: Option<&str>, field: FenField, min: u64) -> Result<Field<u64>, FenError> {
    match s {
        None | Some("?") => Ok(Field::Unknown),
        Some(s) => {
            let n: u64 = s.parse().map_err(|_| {
                let what = if !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()) {
                    format!("'{s}' is too large (at most {})", u64::MAX)
                } else {
                    format!("expected digits or '?', found '{s}'")
                };
                fen_err(field, what)
            })?;
            if n < min {
                return Err(fen_err(field, format!("must be at least {min}, found {n}")));
            }
            Ok(Field::Known(n))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_full_and_partial_fens() {
        let p = PositionInput::parse("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1")
            .unwrap();
        assert_eq!(p.ep_square, Field::Known(Some(Square::E3)));
        assert_eq!(p.castling, Field::Known(Bitboard::CORNERS));
        assert_eq!(p.halfmove_clock, Field::Known(0));
        let q = PositionInput::parse("4k3/8/8/8/8/8/8/4K3 w").unwrap();
        assert_eq!(q.castling, Field::Unknown);
        assert_eq!(q.ep_square, Field::Unknown);
        let r = PositionInput::parse("4k3/8/8/8/8/8/8/4K3 w - - 300 ?").unwrap();
        assert_eq!(r.halfmove_clock, Field::Known(300));
    }

    #[test]
    fn errors_name_the_field() {
        let cases = [
            ("4k3/8/8/8/8/8/8/4K3", FenField::Whole),
            ("4k3/8/8/8/8/8/4K3 w - -", FenField::Placement),
            ("4k3/8/8/8/8/8/8/4K2 w - -", FenField::Placement),
            ("4k3/8/8/8/8/8/8/4X3 w - -", FenField::Placement),
            ("4k3/17/8/8/8/8/8/4K3 w - -", FenField::Placement),
            ("4k3/8/8/8/8/8/8/4K3 white - -", FenField::Turn),
            ("4k3/8/8/8/8/8/8/4K3 w KX -", FenField::Castling),
            ("4k3/8/8/8/8/8/8/4K3 w KK -", FenField::Castling),
            ("4k3/8/8/8/8/8/8/4K3 w - e3", FenField::EnPassant),
            ("4k3/8/8/8/8/8/8/4K3 w - z9", FenField::EnPassant),
            ("4k3/8/8/8/8/8/8/4K3 w - - -1", FenField::Halfmove),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 0", FenField::Fullmove),
            ("4k3/8/8/8/8/8/8/4K3 w - - 0 1 x", FenField::Whole),
        ];
        for (fen, field) in cases {
            let err = PositionInput::parse(fen).unwrap_err();
            assert_eq!(err.field, field, "{fen}: {err}");
        }
        // A clock beyond what the program counts is a whole number all the same: the message
        // says it is too large, not that it is no number.
        let err =
            PositionInput::parse("4k3/8/8/8/8/8/8/4K3 w - - 184467440737095516160 1").unwrap_err();
        assert_eq!(err.field, FenField::Halfmove);
        assert!(err.to_string().contains("too large"), "{err}");
    }

    #[test]
    fn unknown_castling_ranges_over_consistent_rights() {
        let p = PositionInput::parse("r3k3/8/8/8/8/8/8/R3K2R w ? -").unwrap();
        let c = p.candidates();
        // White: a1, h1 (4 subsets); Black: a8 (2 subsets).
        assert_eq!(c.len(), 8);
    }

    #[test]
    fn incremental_keys_and_checks_equal_full_ones() {
        use crate::retract::retractions;
        let fens = [
            "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq -",
            "4k3/8/8/3pP3/8/8/8/4K3 w - d6",
            "8/5k2/8/8/8/2K5/8/7R b - -",
            "r3k2r/8/8/8/8/8/8/R3K2R b KQkq -",
            "1r2k3/P7/8/8/8/8/8/4K3 b - -",
        ];
        let mut checked = 0;
        for fen in fens {
            for pos in PositionInput::parse(fen).unwrap().candidates() {
                let keys = (pos.zobrist(), pos.check_hash());
                for r in retractions(&pos) {
                    let want = (r.predecessor.zobrist(), r.predecessor.check_hash());
                    assert_eq!(
                        r.predecessor.keys_from(&pos, keys),
                        want,
                        "{fen} {}",
                        r.uci()
                    );
                    if let shakmaty::Move::Normal {
                        role,
                        from,
                        to,
                        capture: None,
                        promotion: None,
                    } = r.mv
                    {
                        let quiet = r.predecessor.keys_from_quiet(&pos, keys, role, from, to);
                        assert_eq!(quiet, want, "{fen} {}", r.uci());
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 100, "only {checked} retractions checked");
    }

    #[test]
    fn check_words_are_distinct() {
        let words: std::collections::HashSet<u32> = CHECK_WORDS.iter().copied().collect();
        assert_eq!(words.len(), CHECK_WORDS.len());
        assert!(!words.contains(&0));
    }

    #[test]
    fn check_hashes_tell_apart_what_zobrist_keys_do() {
        use crate::retract::retractions;
        let pos = PositionInput::parse(
            "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq -",
        )
        .unwrap()
        .candidates()
        .remove(0);
        let mut seen = std::collections::HashSet::new();
        let preds: Vec<Position> = retractions(&pos)
            .into_iter()
            .map(|r| r.predecessor)
            .collect();
        for p in &preds {
            seen.insert(p.check_hash());
        }
        // Distinct predecessors (rights and e.p. variants included) get distinct checks.
        let distinct: std::collections::HashSet<u64> =
            preds.iter().map(Position::zobrist).collect();
        assert_eq!(seen.len(), distinct.len());
        assert!(seen.len() > 20);
    }

    #[test]
    fn fen4_round_trips() {
        let p = Position::initial();
        assert_eq!(
            p.fen4(),
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
        );
        assert!(p.is_initial());
        assert_eq!(p.zobrist(), Position::initial().zobrist());
    }
}
