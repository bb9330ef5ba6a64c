//! Where retractions are generated: every legal predecessor of a position, with the move that
//! was taken back, and nothing else.
//!
//! A *retraction* takes back the last move, made by the side not to move. The generator here
//! enumerates the geometric candidates (quiet moves, pawn steps and double steps, un-captures,
//! un-promotions with and without capture, e.p. captures, un-castling) and keeps a predecessor
//! only when it is a valid position in which the forward move is legal and gives back exactly
//! the position: the side not to move in the predecessor is not in check, the checks on the side
//! to move are possible (at most two checkers, never aligned, at most one stepper, and with an
//! e.p. square explained by that double step), the material is possible
//! ([`crate::legality::material_reasons`]) and castling rights are consistent.
//!
//! Castling rights: a right in the position freezes that king and rook, so none of their moves
//! can be taken back. A retracted move that could have removed a right (the king or a rook
//! leaving its original square, a capture on a rook's original square, castling) yields one
//! predecessor per consistent choice of the removed rights.
//!
//! E.p.: a position whose e.p. square is given has the double step as its only retraction. A
//! predecessor carries an e.p. square when the retracted move is an e.p. capture; otherwise the
//! predecessor is produced without one and, in addition, once for every square on which the move
//! before it may have been a double step that could be taken e.p. (the canonical FEN of such a
//! predecessor differs).

use std::{
    cell::{Cell, OnceCell},
    fmt,
};

use shakmaty::{
    Bitboard, Board, CastlingMode, Color, Move, Piece, Rank, Role, Square, attacks, uci::UciMove,
};

use crate::{
    legality::{Material, SideSlack},
    position::Position,
    rules::Convention,
};

/// What kind of move a retraction takes back.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RetractionKind {
    /// A piece move (not a pawn) that captured nothing.
    Quiet,
    /// A pawn's single step forward.
    PawnStep,
    /// A pawn's double step from its original rank.
    PawnDoubleStep,
    /// A capture (by any unit, pawns included) other than e.p. and promotion: a unit is put back.
    Uncapture,
    /// A promotion without capture: the piece turns back into a pawn.
    Unpromotion,
    /// A promotion with capture: the piece turns back into a pawn and a unit is put back.
    UnpromotionUncapture,
    /// An e.p. capture.
    EnPassant,
    /// Castling.
    Uncastling,
}

impl RetractionKind {
    /// The name used in output (`quiet`, `pawn_step`, …).
    pub fn name(self) -> &'static str {
        match self {
            RetractionKind::Quiet => "quiet",
            RetractionKind::PawnStep => "pawn_step",
            RetractionKind::PawnDoubleStep => "pawn_double_step",
            RetractionKind::Uncapture => "uncapture",
            RetractionKind::Unpromotion => "unpromotion",
            RetractionKind::UnpromotionUncapture => "unpromotion_uncapture",
            RetractionKind::EnPassant => "en_passant",
            RetractionKind::Uncastling => "uncastling",
        }
    }
}

impl fmt::Display for RetractionKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One legal retraction: the move taken back and the predecessor it leads to.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Retraction {
    /// What kind of move was taken back.
    pub kind: RetractionKind,
    /// The forward move, as played from the predecessor.
    pub mv: Move,
    /// The position before the move.
    pub predecessor: Position,
}

impl Retraction {
    /// Whether the forward move resets the halfmove count under `convention`: captures and pawn
    /// moves always, castling under the retro convention.
    pub fn is_reset(&self, convention: Convention) -> bool {
        match self.kind {
            RetractionKind::Quiet => false,
            RetractionKind::Uncastling => convention.castling_resets(),
            _ => true,
        }
    }

    /// The role put back on the board, if the forward move captured.
    pub fn uncaptured(&self) -> Option<Role> {
        self.mv.capture()
    }

    /// The forward move in UCI, castling written as the king's move (e1g1).
    pub fn uci(&self) -> String {
        UciMove::from_move(self.mv, CastlingMode::Standard).to_string()
    }

    /// The retraction in a few bytes, when it is a quiet piece move or castling (the
    /// reversible kinds): its predecessor is then the position it was taken back from with one
    /// or two units moved back, and fields 2–4 of its own (see [`Step::predecessor`]).
    pub fn step(&self) -> Option<Step> {
        let quiet = matches!(
            self.mv,
            Move::Normal {
                role,
                capture: None,
                promotion: None,
                ..
            } if role != Role::Pawn
        );
        let (from, to, role) = match self.mv {
            Move::Normal { role, from, to, .. } if quiet => (from, to, role as u32),
            Move::Castle { king, rook } => (king, rook, Step::CASTLE),
            _ => return None,
        };
        let rights = rights_bits(self.predecessor.castling);
        let ep = ep_bits(self.predecessor.ep_square);
        Some(Step(
            from.to_u32() | to.to_u32() << 6 | role << 12 | rights << 15 | ep << 19,
        ))
    }
}

/// The squares on which a castling right can stand, in the bit order of [`rights_bits`].
const CORNERS: [Square; 4] = [Square::A1, Square::H1, Square::A8, Square::H8];

/// The rights on a1, h1, a8 and h8 (bits 0, 7, 56 and 63 of `castling`) as bits 0 to 3: how a
/// [`Step`] and the clock search's codes keep them.
#[inline]
pub(crate) fn rights_bits(castling: Bitboard) -> u32 {
    let c = castling.0;
    ((c & 1) | (c >> 6 & 2) | (c >> 54 & 4) | (c >> 60 & 8)) as u32
}

/// The rights kept as [`rights_bits`] (the low 4 bits of `bits`).
#[inline]
pub(crate) fn rights_from_bits(bits: u32) -> Bitboard {
    CORNERS
        .iter()
        .enumerate()
        .filter(|&(i, _)| bits >> i & 1 != 0)
        .fold(Bitboard::EMPTY, |rights, (_, &corner)| rights.with(corner))
}

/// An e.p. square in 7 bits: 64 + its number, or 0 for none.
#[inline]
pub(crate) fn ep_bits(ep_square: Option<Square>) -> u32 {
    ep_square.map_or(0, |sq| 64 | sq.to_u32())
}

/// The e.p. square kept as [`ep_bits`] (the low 7 bits of `bits`).
#[inline]
pub(crate) fn ep_from_bits(bits: u32) -> Option<Square> {
    (bits & 64 != 0).then(|| Square::new(bits & 63))
}

/// A quiet piece move or castling taken back, stored in 4 bytes instead of its predecessor
/// ([`Retraction::step`]): a search keeps one per edge and builds the predecessor only for the
/// positions it has not met yet. Bits 0–5 hold the square moved from (the king's, for
/// castling), bits 6–11 the square moved to (the rook's, for castling), bits 12–14 the role
/// (0 for castling), bits 15–18 the predecessor's castling rights (one bit per square of
/// `CORNERS`) and bits 19–25 its e.p. square (64 + its number, or 0 for none).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Step(u32);

impl Step {
    /// The role bits of castling.
    const CASTLE: u32 = 0;

    /// The forward move, as played from the predecessor.
    pub fn mv(self) -> Move {
        let square = |bits: u32| Square::new(bits & 63);
        let (from, to) = (square(self.0), square(self.0 >> 6));
        match self.0 >> 12 & 7 {
            Self::CASTLE => Move::Castle {
                king: from,
                rook: to,
            },
            role => Move::Normal {
                role: Role::try_from(role).expect("a role was stored"),
                from,
                capture: None,
                to,
                promotion: None,
            },
        }
    }

    /// The predecessor's e.p. square.
    fn ep_square(self) -> Option<Square> {
        ep_from_bits(self.0 >> 19)
    }

    /// The predecessor of this step taken back from `pos` (the position it came from).
    pub fn predecessor(&self, pos: &Position) -> Position {
        let mover = !pos.turn;
        let mut board = pos.board.clone();
        match self.mv() {
            Move::Castle { king, rook } => {
                let (king_to, rook_to) = if rook.file() > king.file() {
                    (shakmaty::File::G, shakmaty::File::F)
                } else {
                    (shakmaty::File::C, shakmaty::File::D)
                };
                board.discard_piece_at(Square::from_coords(king_to, king.rank()));
                board.discard_piece_at(Square::from_coords(rook_to, rook.rank()));
                board.set_piece_at(king, Role::King.of(mover));
                board.set_piece_at(rook, Role::Rook.of(mover));
            }
            mv => {
                board.discard_piece_at(mv.to());
                if let Some(from) = mv.from() {
                    board.set_piece_at(from, mv.role().of(mover));
                }
            }
        }
        Position {
            board,
            turn: mover,
            castling: rights_from_bits(self.0 >> 15),
            ep_square: self.ep_square(),
        }
    }
}

/// Every legal retraction from `pos`, in a fixed order.
///
/// A position with a wrong number of kings, or whose side not to move is in check, has none.
pub fn retractions(pos: &Position) -> Vec<Retraction> {
    let mut out = Vec::with_capacity(512);
    for_each_retraction(pos, |r| out.push(r));
    out
}

/// Calls `f` with every legal retraction from `pos` (see [`retractions`]), handing each over.
pub fn for_each_retraction(pos: &Position, f: impl FnMut(Retraction)) {
    if let Some(generator) = Generator::new(pos, Filter::All, Given::Nothing, &MaterialMemo::new())
    {
        generator.run(&mut Each(f));
    }
}

/// Which retractions a caller wants.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Filter {
    /// All of them.
    All,
    /// Only the reversible ones under the convention (quiet piece moves; castling under FIDE).
    Reversible(Convention),
    /// Only the resets under the convention.
    Resets(Convention),
}

impl Filter {
    fn quiet(self) -> bool {
        !matches!(self, Filter::Resets(_))
    }
    fn zeroing(self) -> bool {
        !matches!(self, Filter::Reversible(_))
    }
    fn castling(self) -> bool {
        match self {
            Filter::All => true,
            Filter::Reversible(c) => !c.castling_resets(),
            Filter::Resets(c) => c.castling_resets(),
        }
    }
}

/// Calls `f` with the retractions from `pos` that `filter` selects, until `f` returns false.
/// Returns false if it was stopped. The selected ones come in the order of [`retractions`].
pub fn visit_retractions(
    pos: &Position,
    filter: Filter,
    f: impl FnMut(&Retraction) -> bool,
) -> bool {
    visit(pos, filter, Given::Nothing, f)
}

/// As [`visit_retractions`], for a position known to pass the static checks: one that passed
/// them, or a predecessor that the engine produced from one (see [`Given::Checked`]). None of
/// the position's own conditions is checked again.
pub(crate) fn visit_retractions_checked(
    pos: &Position,
    filter: Filter,
    f: impl FnMut(&Retraction) -> bool,
) -> bool {
    visit(pos, filter, Given::Checked, f)
}

fn visit(pos: &Position, filter: Filter, given: Given, f: impl FnMut(&Retraction) -> bool) -> bool {
    visit_with(pos, filter, given, &MaterialMemo::new(), f)
}

/// As [`visit_retractions_checked`], keeping the material verdicts in `cache` for the next
/// positions with the same material and pawns.
pub(crate) fn visit_retractions_cached(
    pos: &Position,
    filter: Filter,
    cache: &mut MaterialCache,
    f: impl FnMut(&Retraction) -> bool,
) -> bool {
    visit_with(pos, filter, Given::Checked, cache.memo(pos), f)
}

/// What a generation may take for granted about the position it takes back from.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Given {
    /// Nothing: the position's own conditions are checked first (the side that made the last
    /// move not in check, no pawn on a back rank, castling rights only with king and rook at
    /// home, the material), and a position that fails one has no retraction.
    Nothing,
    /// The position passes the static checks, or the engine produced it from one that does:
    /// every predecessor meets the conditions above (the side not to move is out of check,
    /// no pawn is put on a back rank, rights are kept only with king and rook at home, and
    /// the material of every retraction that changes it is checked).
    Checked,
}

fn visit_with(
    pos: &Position,
    filter: Filter,
    given: Given,
    memo: &MaterialMemo,
    mut f: impl FnMut(&Retraction) -> bool,
) -> bool {
    let Some(generator) = Generator::new(pos, filter, given, memo) else {
        return true;
    };
    let mut sink = Sink {
        f: &mut f,
        stopped: false,
    };
    generator.run(&mut sink);
    !sink.stopped
}

/// Where the generator sends retractions.
trait Receiver {
    /// Takes one retraction (the generator goes on to change it in place for the next one).
    fn push(&mut self, r: &Retraction);
    /// Whether the receiver wants no more.
    fn stopped(&self) -> bool;
}

/// A visitor, which sees each retraction and may ask to stop; remembers when it did.
struct Sink<F> {
    f: F,
    stopped: bool,
}

impl<F: FnMut(&Retraction) -> bool> Receiver for Sink<F> {
    #[inline]
    fn push(&mut self, r: &Retraction) {
        if !self.stopped && !(self.f)(r) {
            self.stopped = true;
        }
    }

    #[inline]
    fn stopped(&self) -> bool {
        self.stopped
    }
}

/// A receiver that is handed a copy of every retraction.
struct Each<F>(F);

impl<F: FnMut(Retraction)> Receiver for Each<F> {
    #[inline]
    fn push(&mut self, r: &Retraction) {
        (self.0)(r.clone());
    }

    #[inline]
    fn stopped(&self) -> bool {
        false
    }
}

/// The squares on which the side to move could take e.p. if the last move had been the double
/// step of the pawn in front of it: the candidates for an unknown e.p. field.
pub fn capturable_ep_squares(pos: &Position) -> Vec<Square> {
    ep_variants(pos)
}

struct Generator<'a> {
    pos: &'a Position,
    filter: Filter,
    /// The side that made the last move and now takes it back.
    us: Color,
    our_king: Square,
    their_king: Square,
    /// The material verdicts, which depend only on the material, the pawns and the side taking
    /// back (shared by the generations of positions that have the same).
    memo: &'a MaterialMemo,
    /// The opponent's pawns on its fourth rank: without one, no predecessor carries an e.p.
    /// square, except after putting back a pawn there.
    their_fourth: Bitboard,
    /// What quiet retractions are checked against, found with the first of them.
    lines: OnceCell<KingLines>,
}

/// The lines from their king in the position, which settle most retractions of our units
/// other than the king without looking at the predecessor: a unit of ours that steps back
/// between two squares that no line from their king reaches changes no slider's attack on it.
struct KingLines {
    /// The squares a queen on their king's square would reach (the first unit on each line
    /// included).
    theirs: Bitboard,
    /// Our units attacking their king (the side to move may stand in check).
    checkers: Bitboard,
}

/// The material verdicts of a generation. Each depends only on the position's material (its
/// units by role, bishops by square colour), its pawns' squares and the side taking back, so
/// the generations of positions that have the same share them ([`MaterialCache`]): all the
/// positions of one reversible graph do. Each is found when first needed.
pub(crate) struct MaterialMemo {
    /// Our side's material verdict when the opponent has one unit more and neither side's
    /// pawns that matter to ours moved (a piece of ours took a piece, or a pawn off the
    /// opponent's starting rank).
    our_after_loss: Cell<Option<bool>>,
    /// The opponent's material verdict with one piece more (by slot: knight, dark bishop, rook,
    /// queen, light bishop) and its pawns as they are, times 9: 0 when our pawns on our
    /// starting rank are as they are, 1 + file when our pawn left that file's starting square
    /// (a pawn capture from there).
    their_piece_memo: [Cell<Option<bool>>; 54],
    /// The verdict of a piece taking a pawn, by the square the pawn is put back on: the
    /// opponent's side only (with `our_after_loss`), or both sides on the opponent's starting
    /// rank (a pawn there blocks our promotions).
    pawn_uncapture_memo: [Cell<Option<bool>>; 64],
    /// Our side's material verdict for the last pawn capture asked about: (from, to, verdict).
    pawn_capture_memo: Cell<Option<(Square, Square, bool)>>,
    /// Both sides' material in the position (ours, theirs), for sure passes.
    slack: OnceCell<[SideSlack; 2]>,
    /// Whether our pawns stand on different files: then a pawn stepping back on its file
    /// changes none of our pawn-structure captures (each pawn keeps its own file).
    our_pawns_distinct: OnceCell<bool>,
    /// Whether the opponent has promoted extras, whose captures depend on our unmoved pawns.
    their_extras: OnceCell<bool>,
    /// Which of the opponent's units may be put back.
    allowance: OnceCell<Allowance>,
}

impl MaterialMemo {
    fn new() -> MaterialMemo {
        MaterialMemo {
            our_after_loss: Cell::new(None),
            their_piece_memo: std::array::from_fn(|_| Cell::new(None)),
            pawn_uncapture_memo: std::array::from_fn(|_| Cell::new(None)),
            pawn_capture_memo: Cell::new(None),
            slack: OnceCell::new(),
            our_pawns_distinct: OnceCell::new(),
            their_extras: OnceCell::new(),
            allowance: OnceCell::new(),
        }
    }
}

/// What a [`MaterialMemo`] depends on: both sides' material and pawns, and the side taking
/// back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct MaterialKey {
    us: Color,
    material: [Material; 2],
    pawns: Bitboard,
}

impl MaterialKey {
    fn of(pos: &Position) -> MaterialKey {
        MaterialKey {
            us: !pos.turn,
            material: [
                Material::of(&pos.board, Color::White),
                Material::of(&pos.board, Color::Black),
            ],
            pawns: pos.board.pawns(),
        }
    }
}

/// Material verdicts kept across generations: one [`MaterialMemo`] per side taking back, for
/// the material and pawns of the position last asked about. The positions of one reversible
/// graph all have the same, so a run of them keeps the verdicts found (the clock search keeps
/// one cache per run of positions it expands).
pub(crate) struct MaterialCache {
    entries: [Option<(MaterialKey, MaterialMemo)>; 2],
    /// Whether every position asked about has the same material and pawns.
    one_graph: bool,
}

impl MaterialCache {
    /// An empty cache.
    pub(crate) fn new() -> MaterialCache {
        MaterialCache {
            entries: [None, None],
            one_graph: false,
        }
    }

    /// An empty cache for positions of one reversible graph, which all have the same material
    /// and pawns (reversible retractions change neither): their keys are not compared.
    pub(crate) fn for_one_graph() -> MaterialCache {
        MaterialCache {
            one_graph: true,
            ..MaterialCache::new()
        }
    }

    /// The memo for `pos`, started afresh when its material or pawns differ from the last.
    fn memo(&mut self, pos: &Position) -> &MaterialMemo {
        let side = usize::from(pos.turn == Color::White);
        if self.one_graph && self.entries[side].is_some() {
            let (key, memo) = self.entries[side].as_ref().expect("just seen");
            debug_assert_eq!(*key, MaterialKey::of(pos), "one graph, one material");
            return memo;
        }
        let key = MaterialKey::of(pos);
        let entry = &mut self.entries[usize::from(key.us == Color::Black)];
        if entry.as_ref().is_none_or(|(k, _)| *k != key) {
            *entry = Some((key, MaterialMemo::new()));
        }
        &entry.as_ref().expect("just filled").1
    }
}

/// How a predecessor's material is to be checked.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum MaterialCheck {
    /// Same material and pawns as the position: nothing to check.
    Unchanged,
    /// A piece took a piece (`cap`, put back on `to`): the verdict depends on the slot only
    /// (the role, and a bishop's square colour).
    Remembered { slot: usize, cap: Role, to: Square },
    /// A piece took a pawn: the verdict depends on the pawn's square only.
    RememberedPawn(Square),
    /// A pawn took a piece (`slot` as in `Remembered`): our side's verdict depends on the
    /// pawn's squares only, the opponent's on the slot and on whether the pawn stood on our
    /// starting rank (and its file).
    PawnTookPiece {
        from: Square,
        to: Square,
        slot: usize,
        cap: Role,
    },
    /// A pawn took a pawn, put back on `taken` (`to`, or the square behind it e.p.): each
    /// side's verdict is settled from the position's material when it can be (`SideSlack`),
    /// else checked on the predecessor.
    PawnTookPawn {
        from: Square,
        to: Square,
        taken: Square,
    },
    /// Our pawn stepped back on its file: our side's verdict is settled from the position's
    /// material when it can be (`SideSlack`); the opponent's is the position's (it passed)
    /// unless the pawn is back on our starting rank and the opponent has promoted extras.
    PawnStep { from: Square, to: Square },
    /// Our pawn promoted to `promoted` on `to` (taking `cap` there if given): our side's
    /// verdict is settled from the position's material when it can be (`SideSlack`), the
    /// opponent's too (it is the position's, which passed, when nothing was taken: our units
    /// and unmoved pawns stay as they are), else checked on the predecessor.
    Unpromotion {
        from: Square,
        to: Square,
        promoted: Role,
        cap: Option<Role>,
    },
    /// The double step that a given e.p. square names: check in full.
    Full,
}

/// Which units of a colour may be put back.
struct Allowance {
    uncapture: [bool; 5],
}

const UNCAPTURE_ROLES: [Role; 5] = [
    Role::Pawn,
    Role::Knight,
    Role::Bishop,
    Role::Rook,
    Role::Queen,
];

impl<'a> Generator<'a> {
    fn new(
        pos: &'a Position,
        filter: Filter,
        given: Given,
        memo: &'a MaterialMemo,
    ) -> Option<Generator<'a>> {
        let us = !pos.turn;
        let our_king = pos.king(us)?;
        let their_king = pos.king(pos.turn)?;
        // The side that just moved cannot be in check; pawns never stand on the back ranks;
        // castling rights need king and rook at home.
        let own_conditions = || {
            attackers(&pos.board, our_king, pos.turn, pos.board.occupied()).is_empty()
                && (pos.board.pawns() & Bitboard::BACKRANKS).is_empty()
                && (pos.castling.is_empty()
                    || (pos.castling & !crate::position::possible_castling(&pos.board)).is_empty())
        };
        debug_assert!(
            given == Given::Nothing || own_conditions(),
            "{}",
            pos.fen4()
        );
        if given == Given::Nothing && !own_conditions() {
            return None;
        }
        // The material must be possible (if it is not, no predecessor's material is either: an
        // un-capture or un-promotion cannot mend it). Both sides' material, kept for the sure
        // passes of the predecessors' material, settles most positions' own.
        if given == Given::Nothing {
            let slack = memo.slack.get_or_init(|| {
                [
                    SideSlack::of(&pos.board, us),
                    SideSlack::of(&pos.board, !us),
                ]
            });
            if !slack.iter().all(|side| {
                side.passes_as_is() || crate::legality::material_side_ok(&pos.board, side.color())
            }) {
                return None;
            }
        }
        Some(Generator {
            pos,
            filter,
            us,
            our_king,
            their_king,
            memo,
            lines: OnceCell::new(),
            their_fourth: pos.board.pawns()
                & pos.board.by_color(pos.turn)
                & Bitboard::from_rank(pos.turn.fold_wb(Rank::Fourth, Rank::Fifth)),
        })
    }

    fn run(&self, f: &mut impl Receiver) {
        let board = &self.pos.board;
        let (quiet, zeroing) = (self.filter.quiet(), self.filter.zeroing());
        if let Some(ep) = self.pos.ep_square {
            if zeroing {
                self.double_step_into(ep, f);
            }
            return;
        }
        let our_rights =
            self.pos.castling & Bitboard::from_rank(self.us.fold_wb(Rank::First, Rank::Eighth));
        let them = self.pos.turn;
        let nothing = Allowance {
            uncapture: [false; 5],
        };
        let allowance = if zeroing {
            self.memo.allowance.get_or_init(|| allowance(board, them))
        } else {
            &nothing
        };
        let empty = !board.occupied();
        for to in board.by_color(self.us) {
            if f.stopped() {
                return;
            }
            if self.pos.castling.contains(to) {
                continue; // a rook with a castling right never moved
            }
            let Some(role) = board.role_at(to) else {
                continue;
            };
            if role == Role::King && our_rights.any() {
                continue; // a king with a castling right never moved
            }
            match role {
                Role::Pawn => {
                    if zeroing {
                        self.pawn(to, empty, allowance, f);
                    }
                }
                _ => {
                    let froms = attacks::attacks(to, role.of(self.us), board.occupied()) & empty;
                    // The material verdict of each unit put back on `to` holds for every
                    // square the piece came from (a bishop keeps its square colour).
                    let verdicts = Default::default();
                    for from in froms {
                        if f.stopped() {
                            return;
                        }
                        if quiet {
                            self.simple(role, from, to, None, RetractionKind::Quiet, f);
                        }
                        if !zeroing {
                            continue;
                        }
                        self.uncaptures::<false>(
                            role,
                            from,
                            to,
                            None,
                            allowance.uncapture,
                            Some(&verdicts),
                            RetractionKind::Uncapture,
                            f,
                        );
                    }
                    if zeroing
                        && role != Role::King
                        && to.rank() == self.us.fold_wb(Rank::Eighth, Rank::First)
                    {
                        self.unpromotion(role, to, empty, allowance, f);
                    }
                }
            }
        }
        if our_rights.is_empty() && self.filter.castling() {
            self.uncastling(f);
        }
    }

    /// Whether our pawns stand on different files (see [`MaterialMemo`]).
    fn our_pawns_distinct(&self) -> bool {
        *self.memo.our_pawns_distinct.get_or_init(|| {
            pawns_on_distinct_files(self.pos.board.pawns() & self.pos.board.by_color(self.us))
        })
    }

    /// Whether the opponent has promoted extras (see [`MaterialMemo`]).
    fn their_extras(&self) -> bool {
        *self
            .memo
            .their_extras
            .get_or_init(|| Material::of(&self.pos.board, self.pos.turn).promoted_extras() > 0)
    }

    /// The forward direction of our pawns, as a square offset.
    fn forward(&self) -> i32 {
        self.us.fold_wb(8, -8)
    }

    fn pawn(&self, to: Square, empty: Bitboard, allowance: &Allowance, f: &mut impl Receiver) {
        let fwd = self.forward();
        let Some(behind) = to.offset(-fwd) else {
            return;
        };
        let second = self.us.fold_wb(Rank::Second, Rank::Seventh);
        let fourth = self.us.fold_wb(Rank::Fourth, Rank::Fifth);
        let sixth = self.us.fold_wb(Rank::Sixth, Rank::Third);
        // Single step: the origin must not be on our first rank.
        if empty.contains(behind) && !Bitboard::BACKRANKS.contains(behind) {
            self.simple(Role::Pawn, behind, to, None, RetractionKind::PawnStep, f);
        }
        // Double step.
        // With no e.p. square given, the double step must not have allowed a legal e.p.
        // capture (the FEN would then show the square).
        if to.rank() == fourth
            && empty.contains(behind)
            && let Some(origin) = behind.offset(-fwd)
            && empty.contains(origin)
            && origin.rank() == second
            && !ep_squares(&self.pos.board, self.pos.turn).contains(behind)
        {
            self.simple(
                Role::Pawn,
                origin,
                to,
                None,
                RetractionKind::PawnDoubleStep,
                f,
            );
        }
        // Captures, including e.p.
        for from in attacks::pawn_attacks(!self.us, to) & empty {
            if f.stopped() || Bitboard::BACKRANKS.contains(from) {
                continue;
            }
            self.uncaptures::<true>(
                Role::Pawn,
                from,
                to,
                None,
                allowance.uncapture,
                None,
                RetractionKind::Uncapture,
                f,
            );
            if to.rank() == sixth && allowance.uncapture[0] {
                self.en_passant(from, to, empty, f);
            }
        }
    }

    fn en_passant(&self, from: Square, to: Square, empty: Bitboard, f: &mut impl Receiver) {
        let fwd = self.forward();
        let (Some(captured_sq), Some(their_origin)) = (to.offset(-fwd), to.offset(fwd)) else {
            return;
        };
        if !empty.contains(captured_sq) || !empty.contains(their_origin) {
            return;
        }
        let mut board = self.pos.board.clone();
        board.discard_piece_at(to);
        board.set_piece_at(from, Role::Pawn.of(self.us));
        board.set_piece_at(captured_sq, Role::Pawn.of(!self.us));
        let pred = Position {
            board,
            turn: self.us,
            castling: self.pos.castling,
            ep_square: Some(to),
        };
        let material = MaterialCheck::PawnTookPawn {
            from,
            to,
            taken: captured_sq,
        };
        if self.valid(&pred, material) {
            f.push(&Retraction {
                kind: RetractionKind::EnPassant,
                mv: Move::EnPassant { from, to },
                predecessor: pred,
            });
        }
    }

    fn unpromotion(
        &self,
        role: Role,
        to: Square,
        empty: Bitboard,
        allowance: &Allowance,
        f: &mut impl Receiver,
    ) {
        if (self.pos.board.pawns() & self.pos.board.by_color(self.us)).count() >= 8 {
            return;
        }
        let fwd = self.forward();
        let Some(behind) = to.offset(-fwd) else {
            return;
        };
        if empty.contains(behind) {
            self.simple(
                Role::Pawn,
                behind,
                to,
                Some(role),
                RetractionKind::Unpromotion,
                f,
            );
        }
        // A pawn is never taken on the back rank.
        let mut pieces = allowance.uncapture;
        pieces[0] = false;
        for from in attacks::pawn_attacks(!self.us, to) & empty {
            self.uncaptures::<true>(
                Role::Pawn,
                from,
                to,
                Some(role),
                pieces,
                None,
                RetractionKind::UnpromotionUncapture,
                f,
            );
        }
    }

    /// Builds the predecessor of a move without capture (un-captures: [`Self::uncaptures`])
    /// and emits it with every consistent choice of castling rights and e.p. square.
    #[inline(always)]
    fn simple(
        &self,
        role: Role,
        from: Square,
        to: Square,
        promotion: Option<Role>,
        kind: RetractionKind,
        f: &mut impl Receiver,
    ) {
        if f.stopped() {
            return;
        }
        let mv = Move::Normal {
            role,
            from,
            capture: None,
            to,
            promotion,
        };
        // The predecessor is built where it is emitted from: a copy of it read back right
        // after its units changed would stall the processor.
        let mut r = self.retraction(self.pos.board.clone(), self.pos.castling, kind, mv);
        let board = &mut r.predecessor.board;
        board.discard_piece_at(to);
        board.set_piece_at(from, role.of(self.us));
        let board = &r.predecessor.board;
        let optional = self.removed_rights(role, from, to, None, board);
        let material = self.material_check(role, from, to, None, promotion);
        let attacks_ok = match (promotion, role) {
            (None, Role::King) => Some(self.king_step_attacks_ok(from, to, board)),
            (None, _) => Some(self.quiet_attacks_ok(role, from, to, board)),
            _ => None,
        };
        self.emit(&mut r, optional, material, attacks_ok, f);
    }

    /// The retraction of `mv` (of `kind`) to the predecessor `board` with our side to move, the
    /// castling rights `castling` and no e.p. square.
    #[inline(always)]
    fn retraction(
        &self,
        board: Board,
        castling: Bitboard,
        kind: RetractionKind,
        mv: Move,
    ) -> Retraction {
        Retraction {
            kind,
            mv,
            predecessor: Position {
                board,
                turn: self.us,
                castling,
                ep_square: None,
            },
        }
    }

    /// The lines from their king in the position.
    #[inline(never)]
    fn king_lines(&self) -> KingLines {
        let board = &self.pos.board;
        let occupied = board.occupied();
        KingLines {
            theirs: attacks::queen_attacks(self.their_king, occupied),
            checkers: attackers(board, self.their_king, self.us, occupied),
        }
    }

    /// Whether the predecessor `board` of our `role` (not the king, and not promoting)
    /// stepping back from `to` to `from` without a capture passes the checks tests. Only their
    /// king decides: our king stays where it is, their units are those of the position, where
    /// none gave it check, and `from` only blocks lines, so our king can stand in check only
    /// along the one line through `to` that the step opens: a single check, which always
    /// stands (the checks of a predecessor with an e.p. square are judged with that square,
    /// [`ep_squares`]). Their king is settled from the lines when they can
    /// ([`Self::their_king_safe`]).
    #[inline]
    fn quiet_attacks_ok(&self, role: Role, from: Square, to: Square, board: &Board) -> bool {
        let lines = self.lines.get_or_init(|| self.king_lines());
        self.their_king_safe(lines, role, from, to)
            .unwrap_or_else(|| {
                attackers(board, self.their_king, self.us, board.occupied()).is_empty()
            })
    }

    /// Whether the predecessor `board` of our king stepping back from `to` to `from` without
    /// a capture passes the checks tests: their king settled from the lines when a quiet
    /// retraction has found them already ([`Self::their_king_safe`]; a generation that stops
    /// at its first retraction would not repay finding them), and our king on `from`, where
    /// any unit of theirs may check it.
    #[inline]
    fn king_step_attacks_ok(&self, from: Square, to: Square, board: &Board) -> bool {
        self.their_king_safe_if_known(Role::King, from, to)
            .unwrap_or_else(|| {
                attackers(board, self.their_king, self.us, board.occupied()).is_empty()
            })
            && checks_possible(
                board,
                from,
                attackers(board, from, !self.us, board.occupied()),
                None,
                !self.us,
            )
    }

    /// [`Self::their_king_safe`] when a quiet retraction has found the lines from their king
    /// already (None otherwise).
    #[inline]
    fn their_king_safe_if_known(&self, role: Role, from: Square, to: Square) -> Option<bool> {
        self.lines
            .get()
            .and_then(|lines| self.their_king_safe(lines, role, from, to))
    }

    /// Whether their king is out of check in the predecessor where our `role` stands on
    /// `from` instead of `to`, whatever stands on `to` there (nothing, or a unit of theirs put
    /// back), when the lines from their king settle it (None otherwise): when neither square
    /// is on a line from their king, no slider's attack on it changes, except the stepping
    /// unit's own: it now attacks from `from`, as a leaper only (a slider there would be on a
    /// line, and so would a king next to theirs).
    #[inline]
    fn their_king_safe(
        &self,
        lines: &KingLines,
        role: Role,
        from: Square,
        to: Square,
    ) -> Option<bool> {
        if lines.theirs.contains(from) || lines.theirs.contains(to) {
            return None;
        }
        let leaper_check = match role {
            Role::Knight => attacks::knight_attacks(from).contains(self.their_king),
            Role::Pawn => attacks::pawn_attacks(self.us, from).contains(self.their_king),
            _ => false,
        };
        Some(!leaper_check && lines.checkers.without(to).is_empty())
    }

    /// The un-captures of one move of ours from `from` to `to` (a pawn promoting there to
    /// `promotion`, if given), one per role that `roles` allows (indexed as
    /// `UNCAPTURE_ROLES`), in that order. They differ only in the unit put back on `to`, which
    /// is theirs: it blocks lines to their king but attacks only ours. So the attacks on their
    /// king, and the checks on ours by the other units, are found once for all of them. The
    /// material verdicts by role are kept in `verdicts` if given, for the moves of a piece (not
    /// a pawn) to the same square, whose verdicts do not depend on the square it came from.
    /// `PAWN` says that `role` is a pawn: its captures of pieces are then first read from the
    /// generation's memos, and the pieces' un-captures are compiled without that test.
    #[allow(clippy::too_many_arguments)]
    fn uncaptures<const PAWN: bool>(
        &self,
        role: Role,
        from: Square,
        to: Square,
        promotion: Option<Role>,
        roles: [bool; 5],
        verdicts: Option<&[Cell<Option<bool>>; 5]>,
        kind: RetractionKind,
        f: &mut impl Receiver,
    ) {
        debug_assert_eq!(PAWN, role == Role::Pawn);
        if f.stopped() || !roles.contains(&true) {
            return;
        }
        let mut board = self.pos.board.clone();
        board.discard_piece_at(to);
        board.set_piece_at(from, role.of(self.us));
        let occupied = board.occupied().with(to);
        // The opponent (not to move in the predecessor) is not in check. The lines from their
        // king settle it without the attacks when a quiet retraction has found them already
        // (a generation that stops at its first reset would not repay finding them).
        if !self
            .their_king_safe_if_known(role, from, to)
            .unwrap_or_else(|| attackers(&board, self.their_king, self.us, occupied).is_empty())
        {
            return;
        }
        // The checks on our king in the predecessor: when our king stays where it is, their
        // units but the one put back are those of the position, where they gave no check, and
        // the squares they could see through are still occupied or newly so (`from`), so only
        // the unit put back can check, and a single check always stands.
        let king_moved = role == Role::King;
        let our_king = if king_moved { from } else { self.our_king };
        let other_checkers = if king_moved {
            attackers(&board, our_king, !self.us, occupied)
        } else {
            Bitboard::EMPTY
        };
        // The e.p. squares the predecessor may carry depend on the unit put back only when it
        // is a pawn, or when some pawn of theirs may have double-stepped (rare).
        let no_ep_candidates =
            self.their_fourth.is_empty() || ep_candidates(&board, self.us, occupied).is_empty();
        let their_fourth_rank = self.pos.turn.fold_wb(Rank::Fourth, Rank::Fifth);
        // The e.p. squares of the predecessors. The e.p. candidates are the same whatever unit
        // of theirs is put back on `to` (the squares are occupied alike), unless it is a pawn on
        // their fourth rank, and every unit blocks the same lines; so a unit that cannot
        // attack our king from `to`, whatever stands between, changes no e.p. capture's
        // legality. Those units share `shared_eps`; the others (`own_eps`, one bit by role as
        // `UNCAPTURE_ROLES`) have their own found.
        let (shared_eps, own_eps) = if no_ep_candidates {
            (Bitboard::EMPTY, u8::from(to.rank() == their_fourth_rank))
        } else {
            self.uncapture_eps(&board, our_king, to, roles)
        };
        // Whether the unit put back on `to` checks our king, by role (as `UNCAPTURE_ROLES`),
        // when it may matter: with our king moved (otherwise it would be the only check).
        let gives_check = if king_moved {
            let on_line = |slider: Bitboard| slider.contains(our_king);
            let diagonal = on_line(attacks::bishop_attacks(to, occupied));
            let straight = on_line(attacks::rook_attacks(to, occupied));
            [
                attacks::pawn_attacks(!self.us, to).contains(our_king),
                attacks::knight_attacks(to).contains(our_king),
                diagonal,
                straight,
                diagonal || straight,
            ]
        } else {
            [false; 5]
        };
        // One retraction, changed in place for each unit put back on `to` (its board copied
        // afresh from `board` each time: changing the unit there in place would read back
        // bitboards just written in parts, which stalls the processor).
        let mut r = Retraction {
            kind,
            mv: Move::Normal {
                role,
                from,
                capture: None,
                to,
                promotion,
            },
            predecessor: Position {
                board: board.clone(),
                turn: self.us,
                castling: self.pos.castling,
                ep_square: None,
            },
        };
        for (i, cap) in UNCAPTURE_ROLES.into_iter().enumerate() {
            if !roles[i] || f.stopped() || (cap == Role::Pawn && Bitboard::BACKRANKS.contains(to)) {
                continue;
            }
            r.predecessor.board = board.clone();
            r.predecessor.board.set_piece_at(to, cap.of(!self.us));
            let pred = &r.predecessor.board;
            let mut checkers = other_checkers;
            if gives_check[i] {
                checkers.add(to);
            }
            if !checks_possible(pred, our_king, checkers, None, !self.us) {
                continue;
            }
            let check = || self.material_check(role, from, to, Some(cap), promotion);
            let material = || self.material_ok(pred, check());
            // A pawn's capture of a piece is read from the memos when they hold both sides'
            // verdicts (most of the time): no call.
            let known = if PAWN {
                self.pawn_capture_known(check())
            } else {
                None
            };
            let verdict = match (known, verdicts) {
                (Some(ok), _) => ok,
                (None, Some(v)) => remembered(&v[i], material),
                (None, None) => material(),
            };
            if !verdict {
                continue;
            }
            // The move as soon as the unit is known to be valid, before its rights and e.p.
            // squares are found: a receiver that copies the retraction reads the move's bytes
            // in wider pieces than they were written, which stalls the processor until they
            // have reached the cache.
            r.mv = Move::Normal {
                role,
                from,
                capture: Some(cap),
                to,
                promotion,
            };
            let optional = self.removed_rights(role, from, to, Some(cap), pred);
            let eps = if own_eps & 1 << i != 0 {
                ep_squares(pred, self.us)
            } else {
                shared_eps
            };
            self.push_variants(&mut r, optional, eps, f);
        }
    }

    /// The e.p. squares shared by the predecessors of [`Self::uncaptures`] that put back a unit
    /// of theirs on `to` (in `board`, empty there) which cannot attack our king (on
    /// `our_king`) from there, and which units have their own (one bit by role as
    /// `UNCAPTURE_ROLES`): those that can, and a pawn on their fourth rank.
    #[inline(never)]
    fn uncapture_eps(
        &self,
        board: &Board,
        our_king: Square,
        to: Square,
        roles: [bool; 5],
    ) -> (Bitboard, u8) {
        let diagonal = attacks::bishop_attacks(to, Bitboard::EMPTY).contains(our_king);
        let straight = attacks::rook_attacks(to, Bitboard::EMPTY).contains(our_king);
        let knight = attacks::knight_attacks(to).contains(our_king);
        let own = [
            to.rank() == self.pos.turn.fold_wb(Rank::Fourth, Rank::Fifth)
                || attacks::pawn_attacks(!self.us, to).contains(our_king),
            knight,
            diagonal,
            straight,
            diagonal || straight,
        ];
        let own = own
            .iter()
            .enumerate()
            .fold(0u8, |bits, (i, &own)| bits | u8::from(own) << i);
        let shared = if (0..5).any(|i| roles[i] && own & 1 << i == 0) {
            // A knight cannot attack from a square on a line, nor a bishop from a knight's
            // step.
            let neutral = if knight { Role::Bishop } else { Role::Knight };
            let mut pred = board.clone();
            pred.set_piece_at(to, neutral.of(!self.us));
            ep_squares(&pred, self.us)
        } else {
            Bitboard::EMPTY
        };
        (shared, own)
    }

    /// The castling rights the move may have removed, given the predecessor's `board`: a king
    /// or rook leaving its original square, a capture on a rook's original square.
    #[inline(always)]
    fn removed_rights(
        &self,
        role: Role,
        from: Square,
        to: Square,
        capture: Option<Role>,
        board: &Board,
    ) -> Bitboard {
        let home = |color: Color| {
            let back = Bitboard::from_rank(color.fold_wb(Rank::First, Rank::Eighth));
            let king =
                Square::from_coords(shakmaty::File::E, color.fold_wb(Rank::First, Rank::Eighth));
            (
                king,
                back & (Bitboard::from_file(shakmaty::File::A)
                    | Bitboard::from_file(shakmaty::File::H)),
            )
        };
        let mut optional = Bitboard::EMPTY;
        if !matches!(role, Role::King | Role::Rook) && capture != Some(Role::Rook) {
            return optional;
        }
        if matches!(role, Role::King | Role::Rook) {
            let (king_home, rook_homes) = home(self.us);
            if role == Role::King && from == king_home {
                optional |= rook_homes & board.rooks() & board.by_color(self.us);
            }
            if role == Role::Rook
                && rook_homes.contains(from)
                && board.piece_at(king_home) == Some(Role::King.of(self.us))
            {
                optional.add(from);
            }
        }
        if capture == Some(Role::Rook) {
            let (king_home, rook_homes) = home(!self.us);
            if rook_homes.contains(to) && board.piece_at(king_home) == Some(Role::King.of(!self.us))
            {
                optional.add(to);
            }
        }
        optional
    }

    /// How the material of the predecessor of a normal move is to be checked.
    #[inline]
    fn material_check(
        &self,
        role: Role,
        from: Square,
        to: Square,
        capture: Option<Role>,
        promotion: Option<Role>,
    ) -> MaterialCheck {
        // Pawn steps matter too: a pawn can change file only as far as it has advanced. A piece
        // taking a piece changes no pawn structure: its verdict depends only on the role put
        // back (and a bishop's square colour), so it is remembered per generation; a piece
        // taking a pawn, only on the pawn's square. A pawn stepping back on its own file, when
        // our pawns stand on different files, keeps every pawn on its own file: our captures
        // do not change, and the opponent's change only if the pawn is back on its starting
        // rank (it then blocks that file) and the opponent has promoted extras; otherwise a
        // pawn step, and an un-promotion, are first settled from the position's material.
        match capture {
            Some(Role::Pawn) if role != Role::Pawn && promotion.is_none() => {
                MaterialCheck::RememberedPawn(to)
            }
            Some(Role::Pawn) if promotion.is_none() => MaterialCheck::PawnTookPawn {
                from,
                to,
                taken: to,
            },
            Some(cap) if promotion.is_none() && cap != Role::Pawn => {
                let slot = match cap {
                    Role::Bishop if Bitboard::LIGHT_SQUARES.contains(to) => 5,
                    other => other as usize - 1,
                };
                if role == Role::Pawn {
                    MaterialCheck::PawnTookPiece {
                        from,
                        to,
                        slot,
                        cap,
                    }
                } else {
                    MaterialCheck::Remembered { slot, cap, to }
                }
            }
            None if role == Role::Pawn
                && promotion.is_none()
                && self.our_pawns_distinct()
                && (!self.their_extras()
                    || from.rank() != self.us.fold_wb(Rank::Second, Rank::Seventh)) =>
            {
                MaterialCheck::Unchanged
            }
            None if role == Role::Pawn && promotion.is_none() => {
                MaterialCheck::PawnStep { from, to }
            }
            _ if role == Role::Pawn
                && let Some(promoted) = promotion
                && capture != Some(Role::Pawn) =>
            {
                MaterialCheck::Unpromotion {
                    from,
                    to,
                    promoted,
                    cap: capture,
                }
            }
            _ if capture.is_some() || promotion.is_some() || role == Role::Pawn => {
                MaterialCheck::Full
            }
            _ => MaterialCheck::Unchanged,
        }
    }

    /// Emits the retraction `r` (its predecessor with our side to move and no e.p. square)
    /// if the predecessor is valid, once per subset of `optional` rights added to its own, and
    /// once more per e.p. square it may carry. `attacks_ok` is the checks test when already
    /// settled.
    fn emit(
        &self,
        r: &mut Retraction,
        optional: Bitboard,
        material_changed: MaterialCheck,
        attacks_ok: Option<bool>,
        f: &mut impl Receiver,
    ) {
        let base = &r.predecessor;
        let valid = match attacks_ok {
            Some(ok) => ok && self.material_ok(&base.board, material_changed),
            None => self.valid(base, material_changed),
        };
        if valid {
            // Their units are as in the position: without a pawn on their fourth rank, no e.p.
            let eps = if self.their_fourth.is_empty() {
                Bitboard::EMPTY
            } else {
                ep_squares(&base.board, base.turn)
            };
            self.push_variants(r, optional, eps, f);
        }
    }

    /// Emits the valid retraction `r` (its predecessor with our side to move and no e.p.
    /// square) once per subset of `optional` rights added to the predecessor's own, and once
    /// more per square of `eps` (the e.p. squares it may carry, [`ep_squares`]). The variants
    /// are made by changing `r` in place, which is left as it came.
    #[inline(always)]
    fn push_variants(
        &self,
        r: &mut Retraction,
        optional: Bitboard,
        eps: Bitboard,
        f: &mut impl Receiver,
    ) {
        if optional.is_empty() && eps.is_empty() {
            f.push(r);
            return;
        }
        let required = r.predecessor.castling;
        // Every subset of the optional rights (carry-rippler enumeration).
        let mut extra = 0u64;
        loop {
            r.predecessor.castling = required | Bitboard(extra);
            for ep in eps {
                r.predecessor.ep_square = Some(ep);
                f.push(r);
            }
            r.predecessor.ep_square = None;
            f.push(r);
            extra = extra.wrapping_sub(optional.0) & optional.0;
            if extra == 0 {
                break;
            }
        }
        r.predecessor.castling = required;
    }

    /// The double step that ended on the square in front of `ep` (the only retraction when the
    /// e.p. square is given).
    fn double_step_into(&self, ep: Square, f: &mut impl Receiver) {
        let fwd = self.forward();
        let (Some(to), Some(origin)) = (ep.offset(fwd), ep.offset(-fwd)) else {
            return;
        };
        let board = &self.pos.board;
        if ep.rank() != self.us.fold_wb(Rank::Third, Rank::Sixth)
            || board.piece_at(to) != Some(Role::Pawn.of(self.us))
            || board.occupied().contains(ep)
            || board.occupied().contains(origin)
        {
            return;
        }
        let mut pred_board = board.clone();
        pred_board.discard_piece_at(to);
        pred_board.set_piece_at(origin, Role::Pawn.of(self.us));
        let mv = Move::Normal {
            role: Role::Pawn,
            from: origin,
            capture: None,
            to,
            promotion: None,
        };
        let mut r = self.retraction(
            pred_board,
            self.pos.castling,
            RetractionKind::PawnDoubleStep,
            mv,
        );
        self.emit(&mut r, Bitboard::EMPTY, MaterialCheck::Full, None, f);
    }

    fn uncastling(&self, f: &mut impl Receiver) {
        let board = &self.pos.board;
        let back = self.us.fold_wb(Rank::First, Rank::Eighth);
        let sq = |file| Square::from_coords(file, back);
        use shakmaty::File::{A, B, C, D, E, F, G, H};
        // (king after, rook after, rook origin, squares the king crosses incl. start, empty squares in between)
        let wings = [
            (
                sq(G),
                sq(F),
                sq(H),
                [sq(E), sq(F), sq(G)],
                Bitboard::EMPTY,
                sq(A),
            ),
            (
                sq(C),
                sq(D),
                sq(A),
                [sq(E), sq(D), sq(C)],
                Bitboard::from_square(sq(B)),
                sq(H),
            ),
        ];
        for (king_after, rook_after, rook_origin, crossed, extra_empty, other_rook) in wings {
            if self.our_king != king_after
                || board.piece_at(rook_after) != Some(Role::Rook.of(self.us))
                || board.occupied().contains(sq(E))
                || board.occupied().contains(rook_origin)
                || (board.occupied() & extra_empty).any()
            {
                continue;
            }
            let mut pred = board.clone();
            pred.discard_piece_at(king_after);
            pred.discard_piece_at(rook_after);
            pred.set_piece_at(sq(E), Role::King.of(self.us));
            pred.set_piece_at(rook_origin, Role::Rook.of(self.us));
            let occupied = pred.occupied();
            if crossed
                .iter()
                .any(|&s| attackers(&pred, s, !self.us, occupied).any())
            {
                continue;
            }
            let mut optional = Bitboard::EMPTY;
            if pred.piece_at(other_rook) == Some(Role::Rook.of(self.us)) {
                optional.add(other_rook);
            }
            let mv = Move::Castle {
                king: sq(E),
                rook: rook_origin,
            };
            let mut r = self.retraction(
                pred,
                self.pos.castling | Bitboard::from_square(rook_origin),
                RetractionKind::Uncastling,
                mv,
            );
            self.emit(&mut r, optional, MaterialCheck::Unchanged, None, f);
        }
    }

    /// Whether `pred` (our side to move, e.p. square as given) is a valid position.
    fn valid(&self, pred: &Position, material: MaterialCheck) -> bool {
        let board = &pred.board;
        let occupied = board.occupied();
        // The opponent (not to move in the predecessor) is not in check. Our king may have moved.
        let their_king = self.their_king;
        if attackers(board, their_king, self.us, occupied).any() {
            return false;
        }
        let our_king = (board.kings() & board.by_color(self.us))
            .first()
            .unwrap_or(self.our_king);
        let checkers = attackers(board, our_king, !self.us, occupied);
        if !checks_possible(board, our_king, checkers, pred.ep_square, !self.us) {
            return false;
        }
        self.material_ok(board, material)
    }

    /// Whether the predecessor `board` passes the material conditions, checked as `material`
    /// says (with the generation's memos).
    #[inline]
    fn material_ok(&self, board: &Board, material: MaterialCheck) -> bool {
        // The common answers straight from the memos.
        match material {
            MaterialCheck::Unchanged => true,
            MaterialCheck::Remembered { slot, .. } => {
                match (
                    self.memo.their_piece_memo[slot * 9].get(),
                    self.memo.our_after_loss.get(),
                ) {
                    (Some(false), _) => false,
                    (Some(true), Some(ours)) => ours,
                    _ => self.material_decided(board, material),
                }
            }
            _ => self.material_decided(board, material),
        }
    }

    /// Where the opponent's verdict of our pawn on `from` taking a piece of `slot` is kept in
    /// `their_piece_memo`: by the slot, and by the pawn's file when it left our starting rank
    /// (where it blocked the opponent's promotions).
    #[inline]
    fn pawn_took_piece_key(&self, from: Square, slot: usize) -> usize {
        let on_start = from.rank() == self.us.fold_wb(Rank::Second, Rank::Seventh);
        slot * 9
            + if on_start {
                from.file().to_usize() + 1
            } else {
                0
            }
    }

    /// The verdict of `check` when it is our pawn's capture of a piece
    /// ([`MaterialCheck::PawnTookPiece`]) and the memos hold both sides' verdicts; None
    /// otherwise.
    #[inline]
    fn pawn_capture_known(&self, check: MaterialCheck) -> Option<bool> {
        let MaterialCheck::PawnTookPiece { from, to, slot, .. } = check else {
            return None;
        };
        match self.memo.pawn_capture_memo.get()? {
            (f, t, ours) if (f, t) == (from, to) => {
                if !ours {
                    return Some(false);
                }
                self.memo.their_piece_memo[self.pawn_took_piece_key(from, slot)].get()
            }
            _ => None,
        }
    }

    /// [`Self::material_ok`], filling the memos as it goes.
    #[inline(never)]
    fn material_decided(&self, board: &Board, material: MaterialCheck) -> bool {
        // Each side's verdict is settled from the position's own material when a sure pass
        // shows there (`SideSlack`), and by checking the predecessor's side otherwise.
        let ours = || crate::legality::material_side_ok(board, self.us);
        let theirs = || crate::legality::material_side_ok(board, !self.us);
        let slack = || {
            self.memo.slack.get_or_init(|| {
                [
                    SideSlack::of(&self.pos.board, self.us),
                    SideSlack::of(&self.pos.board, !self.us),
                ]
            })
        };
        let ours_after_loss = || {
            remembered(&self.memo.our_after_loss, || {
                slack()[0].passes_after_loss() || ours()
            })
        };
        // Our side's verdict after our pawn took a unit of theirs (not a pawn on their
        // starting rank) from `from` to `to`: it depends on the two squares only.
        let ours_after_pawn_capture =
            |from: Square, to: Square| match self.memo.pawn_capture_memo.get() {
                Some((f, t, ok)) if f == from && t == to => ok,
                _ => {
                    let ok = slack()[0].passes_after_pawn_capture(from, to, None) || ours();
                    self.memo.pawn_capture_memo.set(Some((from, to, ok)));
                    ok
                }
            };
        match material {
            MaterialCheck::Unchanged => true,
            MaterialCheck::Full => material_possible(board),
            MaterialCheck::Unpromotion {
                from,
                to,
                promoted,
                cap,
            } => {
                let slack = slack();
                (slack[0].passes_after_unpromotion(from, promoted, to, cap.is_some()) || ours())
                    && cap.is_none_or(|cap| slack[1].passes_with_piece(cap, to, None) || theirs())
            }
            MaterialCheck::PawnStep { from, to } => {
                let our_start = self.us.fold_wb(Rank::Second, Rank::Seventh);
                let slack = slack();
                (slack[0].passes_after_pawn_step(from, to) || ours())
                    && (from.rank() != our_start
                        || !self.their_extras()
                        || slack[1].passes_with_blocked(from.file())
                        || theirs())
            }
            MaterialCheck::RememberedPawn(square) => {
                let their_start = (!self.us).fold_wb(Rank::Second, Rank::Seventh);
                let memo = &self.memo.pawn_uncapture_memo[usize::from(square)];
                if square.rank() == their_start {
                    remembered(memo, || material_possible(board))
                } else {
                    remembered(memo, || {
                        slack()[1].passes_with_pawn(square, None) || theirs()
                    }) && ours_after_loss()
                }
            }
            MaterialCheck::PawnTookPiece {
                from,
                to,
                slot,
                cap,
            } => {
                ours_after_pawn_capture(from, to) && {
                    let on_start = from.rank() == self.us.fold_wb(Rank::Second, Rank::Seventh);
                    let key = self.pawn_took_piece_key(from, slot);
                    remembered(&self.memo.their_piece_memo[key], || {
                        slack()[1].passes_with_piece(cap, to, on_start.then(|| from.file()))
                            || theirs()
                    })
                }
            }
            MaterialCheck::PawnTookPawn { from, to, taken } => {
                // Their pawn back on their starting square blocks our promotions there; our
                // pawn back on ours blocks theirs.
                let their_start = (!self.us).fold_wb(Rank::Second, Rank::Seventh);
                let our_start = self.us.fold_wb(Rank::Second, Rank::Seventh);
                // Off their starting rank, the pawn taken back blocks nothing: our side's
                // verdict is that of a pawn taking a piece there.
                (if taken.rank() == their_start {
                    slack()[0].passes_after_pawn_capture(from, to, Some(taken.file())) || ours()
                } else {
                    ours_after_pawn_capture(from, to)
                }) && (slack()[1]
                    .passes_with_pawn(taken, (from.rank() == our_start).then(|| from.file()))
                    || theirs())
            }
            MaterialCheck::Remembered { slot, cap, to } => {
                remembered(&self.memo.their_piece_memo[slot * 9], || {
                    slack()[1].passes_with_piece(cap, to, None) || theirs()
                }) && ours_after_loss()
            }
        }
    }
}

/// The verdict in `memo`, found by `decide` the first time.
fn remembered(memo: &Cell<Option<bool>>, decide: impl FnOnce() -> bool) -> bool {
    match memo.get() {
        Some(ok) => ok,
        None => {
            let ok = decide();
            memo.set(Some(ok));
            ok
        }
    }
}

/// The units of `attacker` that attack `sq` given `occupied`.
fn attackers(board: &Board, sq: Square, attacker: Color, occupied: Bitboard) -> Bitboard {
    board.attacks_to(sq, attacker, occupied)
}

/// Whether the checks on the king at `king` can stand in a position: at most two checkers, two
/// never aligned with the king, at most one stepper; with an e.p. square, the check must come
/// from the pawn that just double-stepped or be uncovered by it. `mover` is the side that made
/// the last move (the checking side).
#[inline]
fn checks_possible(
    board: &Board,
    king: Square,
    checkers: Bitboard,
    ep_square: Option<Square>,
    mover: Color,
) -> bool {
    // A single check always stands without an e.p. square.
    checkers.is_empty()
        || (ep_square.is_none() && !checkers.more_than_one())
        || checks_stand(board, king, checkers, ep_square, mover)
}

/// [`checks_possible`] when there is a checker.
#[inline(never)]
fn checks_stand(
    board: &Board,
    king: Square,
    checkers: Bitboard,
    ep_square: Option<Square>,
    mover: Color,
) -> bool {
    if (checkers & board.steppers()).more_than_one() {
        return false;
    }
    let (Some(a), Some(b)) = (checkers.first(), checkers.last()) else {
        return true;
    };
    if let Some(ep) = ep_square {
        let fwd = mover.fold_wb(8, -8);
        let (Some(pushed_to), Some(pushed_from)) = (ep.offset(fwd), ep.offset(-fwd)) else {
            return false;
        };
        if a != b {
            return false;
        }
        if a != pushed_to {
            let occ = board.occupied().without(pushed_to).with(pushed_from);
            if board.attacks_to(king, mover, occ).any() {
                return false;
            }
        }
        return true;
    }
    !(a != b && (checkers.count() > 2 || attacks::aligned(a, king, b)))
}

/// Whether no two of `pawns` share a file: as many files hold one as there are pawns.
fn pawns_on_distinct_files(pawns: Bitboard) -> bool {
    let mut x = pawns.0;
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    (x as u8).count_ones() as usize == pawns.count()
}

/// The material conditions a predecessor must meet after an un-capture or un-promotion: the
/// counts, the promoted extras and the captures the pawn structures need
/// ([`crate::legality::material_reasons`]).
fn material_possible(board: &Board) -> bool {
    crate::legality::material_ok(board)
}

/// Which units of `color` may be put back on the board, judged on the material alone: pawns
/// while fewer than 8 and the promoted extras fit, pieces while the promoted extras fit once
/// the piece is added (bishops: either square colour may still be free, the predecessor is
/// checked again with its real square).
fn allowance(board: &Board, color: Color) -> Allowance {
    let our = board.by_color(color);
    let count = |bb: Bitboard| (bb & our).count();
    let pawns = count(board.pawns());
    let queens = count(board.queens());
    let rooks = count(board.rooks());
    let knights = count(board.knights());
    let light = count(board.bishops() & Bitboard::LIGHT_SQUARES);
    let dark = count(board.bishops() & Bitboard::DARK_SQUARES);
    let extras = |q: usize, r: usize, n: usize, l: usize, d: usize| {
        q.saturating_sub(1)
            + r.saturating_sub(2)
            + n.saturating_sub(2)
            + l.saturating_sub(1)
            + d.saturating_sub(1)
    };
    let fits = |p: usize, e: usize| p + e <= 8;
    let base = extras(queens, rooks, knights, light, dark);
    Allowance {
        uncapture: [
            pawns < 8 && fits(pawns + 1, base),
            fits(pawns, extras(queens, rooks, knights + 1, light, dark)),
            fits(pawns, extras(queens, rooks, knights, light + 1, dark))
                || fits(pawns, extras(queens, rooks, knights, light, dark + 1)),
            fits(pawns, extras(queens, rooks + 1, knights, light, dark)),
            fits(pawns, extras(queens + 1, rooks, knights, light, dark)),
        ],
    }
}

/// The e.p. squares a predecessor (side to move `pos.turn`) may carry: the opponent's pawn on
/// its fourth rank with both squares behind empty, and a legal e.p. capture available.
fn ep_variants(pos: &Position) -> Vec<Square> {
    ep_squares(&pos.board, pos.turn).into_iter().collect()
}

/// The e.p. squares the position (`board`, `turn` to move) may carry (see [`ep_variants`]),
/// as a set: nothing is allocated.
#[inline]
fn ep_squares(board: &Board, turn: Color) -> Bitboard {
    let candidates = ep_candidates(board, turn, board.occupied());
    if candidates.is_empty() {
        return Bitboard::EMPTY;
    }
    ep_squares_of(board, turn, candidates)
}

/// [`ep_squares`] for the pawns `candidates` ([`ep_candidates`]).
#[inline(never)]
fn ep_squares_of(board: &Board, turn: Color, candidates: Bitboard) -> Bitboard {
    let mover = !turn; // made the double step
    let their_pawns = board.pawns() & board.by_color(turn);
    let mut out = Bitboard::EMPTY;
    let fwd = mover.fold_wb(8, -8);
    for pawn in candidates {
        let (Some(ep), Some(origin)) = (pawn.offset(-fwd), pawn.offset(-2 * fwd)) else {
            continue;
        };
        if board.occupied().contains(ep) || board.occupied().contains(origin) {
            continue;
        }
        if ep_capture_legal(board, turn, ep, pawn, their_pawns) {
            out.add(ep);
        }
    }
    out
}

/// The pawns of the side not to move (`!turn`) that may just have double-stepped and stand
/// beside a pawn of `turn`: on their fourth rank, both squares behind them empty in `occupied`.
/// Found on bitboards; most positions have none, and then no e.p. square.
#[inline]
fn ep_candidates(board: &Board, turn: Color, occupied: Bitboard) -> Bitboard {
    let mover = !turn;
    let takers = board.pawns() & board.by_color(turn);
    let occupied = occupied.0;
    let behind_empty = match mover {
        Color::White => !(occupied << 8) & !(occupied << 16),
        Color::Black => !(occupied >> 8) & !(occupied >> 16),
    };
    let beside = ((takers & !Bitboard::from_file(shakmaty::File::H)).0 << 1)
        | ((takers & !Bitboard::from_file(shakmaty::File::A)).0 >> 1);
    board.pawns()
        & board.by_color(mover)
        & Bitboard::from_rank(mover.fold_wb(Rank::Fourth, Rank::Fifth))
        & Bitboard(behind_empty & beside)
}

/// Whether one of `capturers` (pawns of `turn`) can legally take the pawn on `pushed` e.p. on
/// `ep` — its king is not attacked once both pawns have left their squares — and the checks on
/// that king can have come from the double step.
fn ep_capture_legal(
    board: &Board,
    turn: Color,
    ep: Square,
    pushed: Square,
    capturers: Bitboard,
) -> bool {
    let takers = attacks::pawn_attacks(!turn, ep) & capturers;
    if takers.is_empty() {
        return false;
    }
    let Some(king) = (board.kings() & board.by_color(turn)).first() else {
        return false;
    };
    let checkers = board.attacks_to(king, !turn, board.occupied());
    if !checks_possible(board, king, checkers, Some(ep), !turn) {
        return false;
    }
    takers.into_iter().any(|taker| {
        let occupied = board.occupied().without(taker).without(pushed).with(ep);
        (board.attacks_to(king, !turn, occupied) & !Bitboard::from_square(pushed)).is_empty()
    })
}

/// A unit of the given piece kind, for readability in callers.
#[allow(dead_code)]
fn piece(role: Role, color: Color) -> Piece {
    role.of(color)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::PositionInput;

    /// A pawn of theirs put back on its starting square blocks our promotions on that file:
    /// our side's material verdict after a pawn capture there is not that of the same capture
    /// of a piece, which the generation remembers.
    #[test]
    fn a_pawn_taken_back_on_its_starting_square_blocks_our_promotions() {
        // White's third knight is a promoted pawn. Before axb7 took a pawn, the white pawns
        // stood on a6 and c2–h2, leaving only the b-file for it, and a black pawn on b7 would
        // have blocked that file: one capture more, and Black, with 16 units, had lost none.
        let pos = PositionInput::parse("rnbqkbnr/pPpppppp/8/8/4N3/8/2PPPPPP/RNBQKBNR b KQkq -")
            .unwrap()
            .candidates()
            .remove(0);
        let put_back: Vec<Role> = retractions(&pos)
            .iter()
            .filter(|r| r.mv.from() == Some(Square::A6) && r.mv.to() == Square::B7)
            .filter_map(Retraction::uncaptured)
            .collect();
        assert_eq!(
            put_back,
            [Role::Knight, Role::Bishop, Role::Rook, Role::Queen]
        );
        let mut board = pos.board.clone();
        board.set_piece_at(Square::A6, Role::Pawn.of(Color::White));
        board.set_piece_at(Square::B7, Role::Pawn.of(Color::Black));
        assert!(!crate::legality::material_ok(&board));
        board.set_piece_at(Square::B7, Role::Knight.of(Color::Black));
        assert!(crate::legality::material_ok(&board));
    }

    #[test]
    fn steps_rebuild_their_predecessors() {
        let fens = [
            // Both sides castled short: Black's castling is taken back, with or without a8.
            "r4rk1/pppppppp/8/8/8/8/PPPPPPPP/R4RK1 w - -",
            // Queen's side, and rook moves that may have removed a right.
            "2kr3r/8/8/8/8/8/8/R3K2R w KQ -",
            // A black pawn on its fourth rank beside a white one: e.p. variants.
            "4k3/8/8/3pP3/8/8/8/R3K1NR b KQ -",
            "8/5k2/8/8/8/2K5/8/7R b - -",
        ];
        let (mut steps, mut castles, mut with_ep, mut with_rights) = (0, 0, 0, 0);
        for fen in fens {
            for pos in PositionInput::parse(fen).unwrap().candidates() {
                for r in retractions(&pos) {
                    let Some(step) = r.step() else {
                        assert!(
                            !matches!(r.kind, RetractionKind::Quiet),
                            "{fen} {}",
                            r.uci()
                        );
                        continue;
                    };
                    assert_eq!(step.predecessor(&pos), r.predecessor, "{fen} {}", r.uci());
                    assert_eq!(step.mv(), r.mv, "{fen}");
                    steps += 1;
                    castles += usize::from(matches!(r.mv, Move::Castle { .. }));
                    with_ep += usize::from(r.predecessor.ep_square.is_some());
                    with_rights += usize::from(r.predecessor.castling.any());
                }
            }
        }
        assert!(steps > 50, "{steps} steps");
        assert!(castles >= 2, "{castles} castlings");
        assert!(
            with_ep > 0 && with_rights > 0,
            "{with_ep} e.p., {with_rights} rights"
        );
    }

    /// The material verdicts kept in a [`MaterialCache`] across positions give every
    /// retraction that fresh ones give: on the reversible predecessors of positions whose
    /// material is tight (captures the pawns need, promoted extras, unmoved pawns blocking),
    /// with the positions of different materials interleaved so that the cache also starts
    /// afresh.
    #[test]
    fn kept_material_verdicts_give_the_same_retractions() {
        let fens = [
            // The a-pawn took on b3: Black, one unit short, can have no unit put back.
            "rnbqkbn1/pppppppp/8/8/8/1P6/1PPPPPPP/RNBQKBNR b KQq -",
            "r1bqkb1r/pp1ppppp/2n2n2/8/3NP3/8/PPP2PPP/RNBQKB1R b KQkq -",
            // Two promoted extras and doubled pawns.
            "4k3/1P6/8/8/8/8/2PPPP1P/QQ2K3 b - -",
            "4k3/pppp4/8/8/8/2P5/P1PPPPPP/4K3 b - -",
            "4k3/3p4/8/8/8/8/4P3/4K3 w - -",
        ];
        let mut graphs = Vec::new();
        for fen in fens {
            let mut seen: Vec<Position> = PositionInput::parse(fen).unwrap().candidates();
            let mut i = 0;
            while i < seen.len() && seen.len() < 120 {
                let pos = seen[i].clone();
                visit_retractions(&pos, Filter::Reversible(Convention::Fide), |r| {
                    if !seen.contains(&r.predecessor) {
                        seen.push(r.predecessor.clone());
                    }
                    true
                });
                i += 1;
            }
            graphs.push(seen);
        }
        let longest = graphs.iter().map(Vec::len).max().unwrap();
        let mut cache = MaterialCache::new();
        let mut check = |pos: &Position| {
            let mut fresh = Vec::new();
            visit(pos, Filter::All, Given::Checked, |r| {
                fresh.push(r.clone());
                true
            });
            let mut kept = Vec::new();
            visit_retractions_cached(pos, Filter::All, &mut cache, |r| {
                kept.push(r.clone());
                true
            });
            assert_eq!(kept, fresh, "{}", pos.fen4());
            fresh.len()
        };
        let mut compared = 0;
        // Interleaved: the material changes at every position.
        for i in 0..longest {
            for graph in &graphs {
                compared += graph.get(i).map_or(0, &mut check);
            }
        }
        // One graph after the other: the verdicts are kept over each graph.
        for pos in graphs.iter().flatten() {
            compared += check(pos);
        }
        assert!(compared > 5_000, "{compared} retractions compared");
    }
}
