//! Refutations of a position by its whole history: necessary conditions that look at what the
//! game before the position must have done, beyond the static checks (RETRO.md §2–3a). Each is
//! sound (it never refutes a position a real game reaches: the tests run them on every position
//! of real and random games) and gives a reason a solver can check.
//!
//! They are used where the static checks let a composed problem's false origins through: on
//! the predecessors of the resets nearest the position ([`crate::clock::refine`]).

use std::fmt;

use crate::{fast_hash::FastMap, position::Position};

use super::{
    bookkeeping::{bookkeeping_ok, frozen_lost},
    cage::{CageCache, Caged, caged_unit},
};

/// Why a position can have no history.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Refutation {
    /// A unit can never have got where it stands ([`super::cage`]).
    Caged(Caged),
    /// No assignment of the pawns to original pawns, promotions and captures explains the
    /// position ([`super::bookkeeping`]).
    Bookkeeping,
    /// The position's whole graph of reversible retractions was explored and every reset
    /// that could lead into it is refuted: whatever must be undone before a capture, a pawn
    /// move or a castling can be taken back cannot be undone (the clock solver's
    /// `clock::sealed`).
    Sealed {
        /// Positions in the graph.
        positions: u64,
        /// Resets refuted in it, by rule, the most frequent first.
        by_rule: Vec<(&'static str, usize)>,
    },
}

impl Refutation {
    /// The rule's name, for grouping refutations in an answer.
    pub fn rule(&self) -> &'static str {
        match self {
            Refutation::Caged(_) => "cage",
            Refutation::Bookkeeping => "bookkeeping",
            Refutation::Sealed { .. } => "sealed",
        }
    }
}

impl fmt::Display for Refutation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refutation::Caged(c) => c.fmt(f),
            Refutation::Sealed { positions, by_rule } => {
                write!(
                    f,
                    "its whole graph of reversible retractions ({positions} positions) was explored and no reset can lead into it"
                )?;
                let parts: Vec<String> = by_rule
                    .iter()
                    .map(|(rule, n)| format!("{n} by {rule}"))
                    .collect();
                if parts.is_empty() {
                    f.write_str(" (none can be taken back at all)")
                } else {
                    write!(
                        f,
                        " (its positions with a reset refuted: {})",
                        parts.join(", ")
                    )
                }
            }
            Refutation::Bookkeeping => f.write_str(
                "no bookkeeping of the pawns explains it: whichever original pawn each pawn is, and whichever of the others promoted or were captured, the captures exceed the units lost, the promotions fall short of the extra pieces, or two pawns that never left a file got past each other",
            ),
        }
    }
}

/// What the refutations found, kept for the next positions (those of one search share pawns
/// and material).
#[derive(Default, Debug)]
pub struct HistoryCache {
    cages: CageCache,
    /// Bookkeeping verdicts by pawns and counts of each role per side.
    bookkeeping: FastMap<(u64, u64, u128), bool>,
}

impl HistoryCache {
    /// An empty cache.
    pub fn new() -> HistoryCache {
        HistoryCache::default()
    }

    /// How many bookkeeping verdicts it holds.
    pub fn bookkeeping_entries(&self) -> usize {
        self.bookkeeping.len()
    }
}

/// The first refutation of `pos`'s history, if one applies: [`refute_by_bookkeeping`], then
/// [`refute_by_cage`].
pub fn refute_history(pos: &Position, cache: &mut HistoryCache) -> Option<Refutation> {
    refute_by_bookkeeping(pos, cache).or_else(|| refute_by_cage(pos, cache))
}

/// The refutation of `pos` by the bookkeeping of its pawns and material
/// ([`super::bookkeeping`]): a look-up once the pawns and material were seen (all the
/// positions of one search share them), so callers check it before costlier conditions.
pub fn refute_by_bookkeeping(pos: &Position, cache: &mut HistoryCache) -> Option<Refutation> {
    let board = &pos.board;
    let key = (
        (board.pawns() & board.white()).0,
        (board.pawns() & board.black()).0,
        material_key(board),
    );
    let kept = *cache
        .bookkeeping
        .entry(key)
        .or_insert_with(|| bookkeeping_ok(board));
    (!kept).then_some(Refutation::Bookkeeping)
}

/// The refutation of `pos` by a unit caged where it can never have got ([`super::cage`]).
pub fn refute_by_cage(pos: &Position, cache: &mut HistoryCache) -> Option<Refutation> {
    caged_unit(&pos.board, pos.castling, &mut cache.cages).map(Refutation::Caged)
}

/// The count of each piece role of each side, bishops by square colour, and each side's
/// frozen units that are gone (a byte each, packed): with the pawns, all that the bookkeeping
/// depends on.
fn material_key(board: &shakmaty::Board) -> u128 {
    use shakmaty::{Bitboard, Color};
    let mut key = u128::from(frozen_lost(board, Color::White)) << 8
        | u128::from(frozen_lost(board, Color::Black));
    for color in Color::ALL {
        let ours = board.by_color(color);
        let roles = [
            board.queens() & ours,
            board.rooks() & ours,
            board.knights() & ours,
            board.bishops() & ours & Bitboard::LIGHT_SQUARES,
            board.bishops() & ours & Bitboard::DARK_SQUARES,
            board.kings() & ours,
        ];
        for set in roles {
            key = key << 8 | set.count() as u128;
        }
    }
    key
}
