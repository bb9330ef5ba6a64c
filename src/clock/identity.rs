//! How the clock search tells its stored positions apart.
//!
//! Reversible retractions neither capture nor move a pawn, so every position of one search has
//! the pawns and the pieces of its roots: only where the pieces stand, the side to move, the
//! castling rights and the e.p. square differ. A position is then told apart exactly by a
//! *code* listing those: the square of each piece, group by group (White's king, queens, ...,
//! then Black's), in square order within a group, then the side to move, the rights and the
//! e.p. square. It takes `6 · pieces + 12` bits, so a search stores 4 bytes a position with
//! three pieces (king and rook against king), 8 with up to eight, 12 with up to fourteen and
//! 16 with up to nineteen.
//!
//! With more pieces than that (or rights off the corners), positions are told apart by a
//! [`PositionId`]: a 64-bit Zobrist key and an independent 32-bit check, so two different
//! positions are merged only if 96 bits collide.

use std::{borrow::Cow, fmt::Debug};

use shakmaty::{Bitboard, Board, ByColor, ByRole, Color, Piece, Role, Square};

use crate::{
    position::Position,
    retract::{Retraction, Step, ep_bits, ep_from_bits, rights_bits, rights_from_bits},
};

/// The Zobrist key and an independent 32-bit check ([`Position::check_hash`]), packed in 12
/// bytes so that one memory access reads both.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, packed(4))]
pub struct PositionId {
    key: u64,
    check: u32,
}

impl PositionId {
    /// An identity from a Zobrist key (often computed incrementally) and a check.
    pub fn new(key: u64, check: u32) -> PositionId {
        PositionId { key, check }
    }

    /// The identity of `pos`.
    pub fn of(pos: &Position) -> PositionId {
        PositionId::new(pos.zobrist(), pos.check_hash())
    }
}

/// The pieces every position of one search has, in the order a code lists them.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Layout {
    /// Each group of pieces (colour and role, pawns left out) that the positions have.
    groups: Vec<Piece>,
    /// How many pieces each group holds.
    counts: Vec<u32>,
    /// How many pieces the groups hold.
    pieces: u32,
    /// For each piece (by [`slot`]), the shift of its field in a code when its group holds
    /// one piece (else None).
    single: [Option<u8>; 16],
    /// How many units of each colour and role.
    material: ByColor<ByRole<u8>>,
    /// The board with the pawns alone (which no code lists).
    base: Board,
}

/// White's and Black's pawns on `board`.
fn pawns_of(board: &Board) -> (Bitboard, Bitboard) {
    (board.pawns() & board.white(), board.pawns() & board.black())
}

/// Where a piece's entry is in [`Layout`]'s `single`.
fn slot(piece: Piece) -> usize {
    usize::from(piece.color == Color::Black) * 8 + piece.role as usize
}

/// Bits below the pieces' fields: side to move, rights and e.p. square.
const STATE_BITS: u32 = 12;

/// The groups a code may list, in its order.
const GROUPS: [Role; 5] = [
    Role::King,
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
];

impl Layout {
    /// The layout of a search from `roots`, if their positions can have exact codes: the same
    /// board (they differ at most in rights and e.p. square) and rights only on the corners.
    pub fn of(roots: &[Position]) -> Option<Layout> {
        let first = roots.first()?;
        let same = roots.iter().all(|r| r.board == first.board);
        let corners = roots
            .iter()
            .all(|r| (r.castling & !Bitboard::CORNERS).is_empty());
        if !same || !corners {
            return None;
        }
        let mut groups = Vec::new();
        // Each group with its count.
        let mut counts = Vec::new();
        for color in [Color::White, Color::Black] {
            for role in GROUPS {
                let count = first.board.by_piece(role.of(color)).count() as u32;
                if count > 0 {
                    groups.push(role.of(color));
                    counts.push(count);
                }
            }
        }
        let pieces: u32 = counts.iter().sum();
        let mut single = [None; 16];
        // The first group's fields are the highest.
        let mut above = 0;
        for (&piece, &count) in groups.iter().zip(&counts) {
            above += count;
            if count == 1 {
                let shift = STATE_BITS + 6 * (pieces - above);
                single[slot(piece)] = u8::try_from(shift).ok();
            }
        }
        let mut base = first.board.clone();
        for sq in first.board.occupied() & !first.board.pawns() {
            base.discard_piece_at(sq);
        }
        Some(Layout {
            groups,
            counts,
            pieces,
            single,
            base,
            material: first.board.material(),
        })
    }

    /// Whether `pos` has this layout's pawns and units, and rights on the corners only (so
    /// that its code tells it apart exactly): true of every position of the search.
    pub fn fits(&self, pos: &Position) -> bool {
        pawns_of(&pos.board) == pawns_of(&self.base)
            && pos.board.material() == self.material
            && (pos.castling & !Bitboard::CORNERS).is_empty()
    }

    /// Bits in a code: 6 a piece, then 1 for the side to move, 4 for the rights and 7 for the
    /// e.p. square.
    pub fn bits(&self) -> u32 {
        6 * self.pieces + STATE_BITS
    }

    /// The code of `pos` (which has this layout's pieces), in the low [`Layout::bits`] bits.
    #[inline]
    fn pack<C: Exact>(&self, pos: &Position) -> C {
        let mut code = C::ZERO;
        debug_assert!(
            self.fits(pos),
            "a position of the search has the units of its roots"
        );
        for &piece in &self.groups {
            for sq in pos.board.by_piece(piece) {
                code = code.push(6, sq.to_u32());
            }
        }
        code.push(STATE_BITS, state(pos))
    }

    /// The position whose code is `code`.
    fn unpack<C: Exact>(&self, code: C) -> Position {
        let mut board = self.base.clone();
        let mut shift = STATE_BITS + 6 * self.pieces;
        for (&piece, &count) in self.groups.iter().zip(&self.counts) {
            for _ in 0..count {
                shift -= 6;
                board.set_piece_at(Square::new(code.field(shift, 6)), piece);
            }
        }
        let state = code.field(0, STATE_BITS);
        let pos = Position {
            board,
            turn: Color::from_white(state >> 11 & 1 != 0),
            castling: rights_from_bits(state >> 7),
            ep_square: ep_from_bits(state),
        };
        debug_assert_eq!(self.pack::<C>(&pos), code);
        pos
    }

    /// The code of `pred`: `parent` (whose code is `parent_code`) with one piece of the side
    /// to move in `pred` moved from `now` back to `before`. Only that piece's field and the
    /// state bits change when its group holds one piece; otherwise the code is packed again.
    #[inline]
    fn moved<C: Exact>(
        &self,
        parent_code: C,
        role: Role,
        before: Square,
        now: Square,
        pred: &Position,
    ) -> C {
        let code = match self.single[slot(role.of(pred.turn))] {
            Some(shift) => {
                let shift = u32::from(shift);
                debug_assert_eq!(parent_code.field(shift, 6), now.to_u32());
                parent_code
                    .with_field(shift, 6, before.to_u32())
                    .with_field(0, STATE_BITS, state(pred))
            }
            None => self.pack(pred),
        };
        debug_assert_eq!(code, self.pack::<C>(pred));
        code
    }

    /// Which kind of code the search stores for positions of this layout (None: hashed).
    pub fn width(layout: Option<&Layout>) -> Width {
        match layout.map(Layout::bits) {
            Some(bits) if bits <= 32 => Width::Exact32,
            Some(bits) if bits <= 64 => Width::Exact64,
            Some(bits) if bits <= 96 => Width::Exact96,
            Some(bits) if bits <= 128 => Width::Exact128,
            _ => Width::Hashed,
        }
    }
}

/// The low bits of a code: the side to move (1 bit), the rights on a1, h1, a8 and h8 (4 bits),
/// and the e.p. square (7 bits: 64 + its number, or 0 for none).
#[inline]
fn state(pos: &Position) -> u32 {
    u32::from(pos.turn == Color::White) << 11
        | rights_bits(pos.castling) << 7
        | ep_bits(pos.ep_square)
}

/// The kinds of code a search can store.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Width {
    /// Exact, in 4 bytes.
    Exact32,
    /// Exact, in 8 bytes.
    Exact64,
    /// Exact, in 12 bytes.
    Exact96,
    /// Exact, in 16 bytes.
    Exact128,
    /// A 96-bit [`PositionId`] in 12 bytes.
    Hashed,
}

/// What a search stores to tell its positions apart.
pub trait Code: Copy + Eq + Send + Sync + Debug + 'static {
    /// 64 bits spread from the code: the top bits of the low half say where the key index
    /// looks for it, those of the high half are its fingerprint. Two codes may share them;
    /// only the whole code tells positions apart.
    fn key(self) -> u64;

    /// The code of `pos`, a position of the search (`layout` is its layout, when the code is
    /// exact).
    fn of(layout: Option<&Layout>, pos: &Position) -> Self;

    /// The code of `r.predecessor`, taken back from `parent` whose code is `parent_code`.
    fn of_predecessor(
        layout: Option<&Layout>,
        parent: &Position,
        parent_code: Self,
        r: &Retraction,
    ) -> Self;

    /// The stored codes, as a graph keeps them.
    fn into_ids(ids: Vec<Self>) -> Ids;

    /// What a position waiting to be expanded keeps besides its code, so that it can be had
    /// again: nothing when the code is exact (it is read back from the code), the position
    /// itself otherwise.
    type Kept: Send + Sync;

    /// What is kept of `root`.
    fn keep(root: Position) -> Self::Kept;

    /// What is kept of the predecessor of `step` taken back from the position of which
    /// `parent` is kept.
    fn keep_step(step: Step, parent: &Self::Kept) -> Self::Kept;

    /// The position with code `code` and `kept` (`layout` is the search's, for exact codes).
    fn position<'a>(layout: Option<&Layout>, code: Self, kept: &'a Self::Kept)
    -> Cow<'a, Position>;
}

/// The role, origin and destination of `r`'s move when it is a quiet move (no capture, no
/// promotion): only the moving unit, the side to move, and maybe the rights and the e.p.
/// square differ between the predecessor and the position.
#[inline]
fn quiet_move(r: &Retraction) -> Option<(Role, Square, Square)> {
    match r.mv {
        shakmaty::Move::Normal {
            role,
            from,
            to,
            capture: None,
            promotion: None,
        } => Some((role, from, to)),
        _ => None,
    }
}

/// An exact code: an unsigned integer filled from its low bits.
trait Exact: Copy + Eq + Debug {
    /// The empty code.
    const ZERO: Self;

    /// The code with `width` more bits, `value`, appended at its low end.
    fn push(self, width: u32, value: u32) -> Self;

    /// 64 bits of the code for the key index, the top bits of each half depending on every
    /// bit of the code (see [`Code::key`]).
    fn mix(self) -> u64;

    /// The `width` bits from bit `shift`.
    fn field(self, shift: u32, width: u32) -> u32;

    /// The code with the `width` bits from bit `shift` replaced by `value`.
    fn with_field(self, shift: u32, width: u32, value: u32) -> Self;

    /// The stored codes, as a graph keeps them.
    fn into_ids(ids: Vec<Self>) -> Ids;
}

impl<T: Exact + Send + Sync + 'static> Code for T {
    #[inline]
    fn key(self) -> u64 {
        self.mix()
    }

    #[inline]
    fn of(layout: Option<&Layout>, pos: &Position) -> Self {
        layout.expect("an exact code has a layout").pack(pos)
    }

    #[inline]
    fn of_predecessor(
        layout: Option<&Layout>,
        _: &Position,
        parent_code: Self,
        r: &Retraction,
    ) -> Self {
        let layout = layout.expect("an exact code has a layout");
        match quiet_move(r) {
            Some((role, from, to)) => layout.moved(parent_code, role, from, to, &r.predecessor),
            None => layout.pack(&r.predecessor),
        }
    }

    fn into_ids(ids: Vec<Self>) -> Ids {
        Exact::into_ids(ids)
    }

    type Kept = ();

    fn keep(_: Position) {}

    #[inline]
    fn keep_step(_: Step, _: &()) {}

    #[inline]
    fn position<'a>(layout: Option<&Layout>, code: Self, _: &'a ()) -> Cow<'a, Position> {
        Cow::Owned(layout.expect("an exact code has a layout").unpack(code))
    }
}

/// A 64-bit mixing function with every input bit reaching every output bit (the finaliser of
/// SplitMix64).
fn mix64(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

macro_rules! exact_code {
    ($t:ty, $variant:ident, $mix:expr) => {
        impl Exact for $t {
            const ZERO: Self = 0;

            #[inline]
            fn push(self, width: u32, value: u32) -> Self {
                self << width | <$t>::from(value)
            }

            #[inline]
            fn mix(self) -> u64 {
                $mix(self)
            }

            #[inline]
            fn field(self, shift: u32, width: u32) -> u32 {
                (self >> shift) as u32 & ((1 << width) - 1)
            }

            #[inline]
            fn with_field(self, shift: u32, width: u32, value: u32) -> Self {
                let mask = ((1 as $t) << width) - 1;
                self & !(mask << shift) | <$t>::from(value) << shift
            }

            fn into_ids(ids: Vec<Self>) -> Ids {
                Ids::$variant(ids)
            }
        }
    };
}

// A code of 32 bits is spread by one multiplication (Fibonacci hashing): the key index looks
// at the top bits of each half of the product, which depend on every bit of the code.
exact_code!(u32, Exact32, |x: u32| (u64::from(x) + 1)
    .wrapping_mul(0x9E37_79B9_7F4A_7C15));
exact_code!(u64, Exact64, mix64);
exact_code!(u128, Exact128, |x: u128| mix64(
    x as u64 ^ mix64((x >> 64) as u64)
));

/// An exact code of up to 96 bits, in 12 bytes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[repr(C, packed(4))]
pub struct U96 {
    low: u64,
    high: u32,
}

impl U96 {
    /// The code as a wider integer.
    #[inline]
    fn wide(self) -> u128 {
        u128::from(self.high) << 64 | u128::from(self.low)
    }

    /// The low 96 bits of `code`.
    #[inline]
    fn narrow(code: u128) -> U96 {
        U96 {
            low: code as u64,
            high: (code >> 64) as u32,
        }
    }
}

impl Exact for U96 {
    const ZERO: Self = U96 { low: 0, high: 0 };

    #[inline]
    fn push(self, width: u32, value: u32) -> Self {
        U96::narrow(self.wide().push(width, value))
    }

    #[inline]
    fn mix(self) -> u64 {
        mix64(self.low ^ mix64(u64::from(self.high)))
    }

    #[inline]
    fn field(self, shift: u32, width: u32) -> u32 {
        self.wide().field(shift, width)
    }

    #[inline]
    fn with_field(self, shift: u32, width: u32, value: u32) -> Self {
        U96::narrow(self.wide().with_field(shift, width, value))
    }

    fn into_ids(ids: Vec<Self>) -> Ids {
        Ids::Exact96(ids)
    }
}

impl Code for PositionId {
    #[inline]
    fn key(self) -> u64 {
        self.key
    }

    fn of(_: Option<&Layout>, pos: &Position) -> Self {
        PositionId::of(pos)
    }

    #[inline]
    fn of_predecessor(
        _: Option<&Layout>,
        parent: &Position,
        parent_code: Self,
        r: &Retraction,
    ) -> Self {
        let pred = &r.predecessor;
        let keys = (parent_code.key, parent_code.check);
        let (key, check) = match quiet_move(r) {
            Some((role, from, to)) => pred.keys_from_quiet(parent, keys, role, from, to),
            None => pred.keys_from(parent, keys),
        };
        let id = PositionId::new(key, check);
        debug_assert_eq!(id, PositionId::of(pred));
        id
    }

    fn into_ids(ids: Vec<Self>) -> Ids {
        Ids::Hashed(ids)
    }

    type Kept = Position;

    fn keep(root: Position) -> Position {
        root
    }

    #[inline]
    fn keep_step(step: Step, parent: &Position) -> Position {
        step.predecessor(parent)
    }

    fn position<'a>(_: Option<&Layout>, _: Self, kept: &'a Position) -> Cow<'a, Position> {
        Cow::Borrowed(kept)
    }
}

/// The codes of a graph's stored positions, in index order.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Ids {
    /// Exact codes of up to 32 bits.
    Exact32(Vec<u32>),
    /// Exact codes of up to 64 bits.
    Exact64(Vec<u64>),
    /// Exact codes of up to 96 bits.
    Exact96(Vec<U96>),
    /// Exact codes of up to 128 bits.
    Exact128(Vec<u128>),
    /// Hashed identities.
    Hashed(Vec<PositionId>),
}

impl Default for Ids {
    fn default() -> Ids {
        Ids::Hashed(Vec::new())
    }
}

impl Ids {
    /// Number of positions stored.
    pub fn len(&self) -> usize {
        match self {
            Ids::Exact32(ids) => ids.len(),
            Ids::Exact64(ids) => ids.len(),
            Ids::Exact96(ids) => ids.len(),
            Ids::Exact128(ids) => ids.len(),
            Ids::Hashed(ids) => ids.len(),
        }
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Bytes held, at capacity.
    pub fn bytes(&self) -> usize {
        match self {
            Ids::Exact32(ids) => ids.capacity() * std::mem::size_of::<u32>(),
            Ids::Exact64(ids) => ids.capacity() * std::mem::size_of::<u64>(),
            Ids::Exact96(ids) => ids.capacity() * std::mem::size_of::<U96>(),
            Ids::Exact128(ids) => ids.capacity() * std::mem::size_of::<u128>(),
            Ids::Hashed(ids) => ids.capacity() * std::mem::size_of::<PositionId>(),
        }
    }

    /// Whether position `i` is `pos` (`layout` is the graph's, for exact codes).
    pub fn holds(&self, i: usize, layout: Option<&Layout>, pos: &Position) -> bool {
        fn same<C: Code>(ids: &[C], i: usize, layout: Option<&Layout>, pos: &Position) -> bool {
            // An exact code tells apart only positions with the units of the search.
            layout.is_none_or(|layout| layout.fits(pos)) && ids.get(i) == Some(&C::of(layout, pos))
        }
        match self {
            Ids::Exact32(ids) => same(ids, i, layout, pos),
            Ids::Exact64(ids) => same(ids, i, layout, pos),
            Ids::Exact96(ids) => same(ids, i, layout, pos),
            Ids::Exact128(ids) => same(ids, i, layout, pos),
            Ids::Hashed(ids) => same(ids, i, layout, pos),
        }
    }

    /// Position `i` read back from its exact code (`layout` is the graph's); None for hashed
    /// identities, which cannot be read back.
    pub fn unpack(&self, i: usize, layout: Option<&Layout>) -> Option<Position> {
        let layout = layout?;
        match self {
            Ids::Exact32(ids) => ids.get(i).map(|&c| layout.unpack(c)),
            Ids::Exact64(ids) => ids.get(i).map(|&c| layout.unpack(c)),
            Ids::Exact96(ids) => ids.get(i).map(|&c| layout.unpack(c)),
            Ids::Exact128(ids) => ids.get(i).map(|&c| layout.unpack(c)),
            Ids::Hashed(_) => None,
        }
    }

    /// Gives back spare capacity.
    pub fn shrink_to_fit(&mut self) {
        match self {
            Ids::Exact32(ids) => ids.shrink_to_fit(),
            Ids::Exact64(ids) => ids.shrink_to_fit(),
            Ids::Exact96(ids) => ids.shrink_to_fit(),
            Ids::Exact128(ids) => ids.shrink_to_fit(),
            Ids::Hashed(ids) => ids.shrink_to_fit(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use shakmaty::{Board, Square};

    use super::*;

    /// A position with the pieces of `board_fen`.
    fn position(board_fen: &str) -> Position {
        Position {
            board: board_fen.parse::<Board>().expect("valid board"),
            turn: Color::White,
            castling: Bitboard::EMPTY,
            ep_square: None,
        }
    }

    #[test]
    fn codes_tell_every_placement_side_rights_and_ep_square_apart_and_give_them_back() {
        // King and rook against king, with two pawns (which no code lists): every placement
        // of the three pieces on the free squares, either side to move; then every set of
        // rights and every e.p. square on one placement.
        let start = position("4k3/8/8/3pP3/8/8/8/4K2R");
        let layout = Layout::of(std::slice::from_ref(&start)).expect("exact");
        assert_eq!(Layout::width(Some(&layout)), Width::Exact32);
        let pawns = start.board.pawns();
        let free: Vec<Square> = Square::ALL
            .into_iter()
            .filter(|&sq| !pawns.contains(sq))
            .collect();
        let mut seen: HashMap<u32, Position> = HashMap::new();
        let add = |seen: &mut HashMap<u32, Position>, pos: Position| {
            let code: u32 = Code::of(Some(&layout), &pos);
            assert!(code < 1 << layout.bits());
            assert_eq!(layout.unpack::<u32>(code), pos, "the position is read back");
            if let Some(other) = seen.insert(code, pos.clone()) {
                assert_eq!(other, pos, "two positions with one code");
            }
        };
        for &white_king in &free {
            for &rook in &free {
                for &black_king in free.iter().step_by(5) {
                    if white_king == rook || rook == black_king || white_king == black_king {
                        continue;
                    }
                    for turn in [Color::White, Color::Black] {
                        let mut pos = start.clone();
                        pos.board.discard_piece_at(Square::E1);
                        pos.board.discard_piece_at(Square::H1);
                        pos.board.discard_piece_at(Square::E8);
                        pos.board
                            .set_piece_at(white_king, Piece::from_char('K').unwrap());
                        pos.board.set_piece_at(rook, Piece::from_char('R').unwrap());
                        pos.board
                            .set_piece_at(black_king, Piece::from_char('k').unwrap());
                        pos.turn = turn;
                        add(&mut seen, pos);
                    }
                }
            }
        }
        let placements = seen.len();
        // Whether the placements met the start (no rights, no e.p. square) already.
        let met = usize::from(seen.contains_key(&Code::of(Some(&layout), &start)));
        for rights in 0..16u64 {
            for ep in std::iter::once(None).chain(Square::ALL.into_iter().map(Some)) {
                let mut pos = start.clone();
                pos.castling = Bitboard(
                    [0u64, 7, 56, 63]
                        .iter()
                        .enumerate()
                        .filter(|&(i, _)| rights >> i & 1 == 1)
                        .fold(0, |bits, (_, &sq)| bits | 1 << sq),
                );
                pos.ep_square = ep;
                add(&mut seen, pos);
            }
        }
        assert_eq!(seen.len(), placements + 16 * 65 - met);
    }

    /// `pos` read back from its code of type `C`.
    fn round_trip<C: Exact>(pos: &Position) -> Position {
        let layout = Layout::of(std::slice::from_ref(pos)).expect("exact");
        layout.unpack(layout.pack::<C>(pos))
    }

    #[test]
    fn codes_of_every_width_give_their_positions_back() {
        let mut pos = position("r3k2r/pp4pp/8/3pP3/8/8/PP4PP/R3K2R");
        pos.castling = Bitboard::CORNERS;
        pos.ep_square = Some(Square::D6);
        assert_eq!(round_trip::<u64>(&pos), pos);
        let mut pos = position("rnbqk1nr/8/8/8/8/8/8/RNBQK1NR");
        pos.turn = Color::Black;
        pos.castling = Bitboard::from_square(Square::H8);
        assert_eq!(round_trip::<U96>(&pos), pos);
        let pos = position("rnbqkbnr/8/8/8/8/8/8/RNBQKBNR");
        assert_eq!(round_trip::<u128>(&pos), pos);
    }

    #[test]
    fn the_code_widens_with_the_pieces_and_gives_way_to_hashing() {
        let width = |fen: &str| Layout::width(Layout::of(&[position(fen)]).as_ref());
        assert_eq!(width("4k3/8/8/8/8/8/8/4K2R"), Width::Exact32);
        assert_eq!(width("4k3/pppppppp/8/8/8/8/PPPPPPPP/4K2R"), Width::Exact32);
        assert_eq!(width("r3k3/8/8/8/8/8/8/4K2R"), Width::Exact64);
        assert_eq!(width("rn2k3/8/8/8/8/8/8/RN2K1NR"), Width::Exact64);
        assert_eq!(width("rnbqk1nr/8/8/8/8/8/8/RNBQK1NR"), Width::Exact96);
        assert_eq!(width("rnbqkbnr/8/8/8/8/8/8/RNBQKBNR"), Width::Exact128);
        assert_eq!(width("rnbqkbnr/qq6/8/8/8/8/QQ6/RNBQKBNR"), Width::Hashed);
        // A layout fits the positions with its pawns and units only.
        let layout = Layout::of(&[position("4k3/8/8/3pP3/8/8/8/4K2R")]).expect("exact");
        assert!(layout.fits(&position("3k4/8/8/3pP3/8/8/7R/K7")));
        assert!(!layout.fits(&position("4k3/8/3p4/4P3/8/8/8/4K2R")));
        assert!(!layout.fits(&position("4k3/8/8/3pP3/8/8/8/4K2B")));
        assert!(!layout.fits(&position("4k3/8/8/3pP3/8/8/8/3RK2R")));
        // Roots that differ in their boards, or rights off the corners, are hashed.
        let (a, b) = (
            position("4k3/8/8/8/8/8/8/4K2R"),
            position("4k3/8/8/8/8/8/8/3K3R"),
        );
        assert_eq!(Layout::of(&[a.clone(), b]), None);
        let mut odd = a.clone();
        odd.castling = Bitboard::from_square(Square::E1);
        assert_eq!(Layout::of(std::slice::from_ref(&odd)), None);
        assert!(!Layout::of(&[a]).expect("exact").fits(&odd));
    }
}
