//! Reset origins: whether a reset retraction leads to a predecessor that passes the necessary
//! conditions of legality (the static checks and a legal retraction chain of a given depth).

use crate::{
    legality,
    position::Position,
    retract::{
        Filter, MaterialCache, Retraction, visit_retractions_cached, visit_retractions_checked,
    },
    rules::Convention,
};

/// Why a predecessor counts as a possible origin of the count.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum OriginEvidence {
    /// The node is the initial array: the game may have started there (clock 0).
    InitialArray,
    /// The reset move was played from the initial array.
    FromInitialArray,
    /// The predecessor passes the static checks and has a legal retraction chain of this depth.
    RetractionChain {
        /// Depth of the chain that was found.
        depth: u32,
    },
}

/// Whether `pos` passes the static checks and has a retraction chain `depth` plies deep in which
/// every position passes them too. `budget` caps the number of positions generated; running out
/// counts as "not shown" (the caller treats the candidate as unproven, never as legal).
pub fn has_chain(pos: &Position, depth: u32, budget: &mut u64) -> bool {
    if !legality::static_reasons(&pos.board, pos.turn, pos.castling, pos.ep_square).is_empty() {
        return false;
    }
    chain_below(pos, depth, budget)
}

/// Whether a predecessor produced by the retraction engine passes the static checks. The engine
/// already guarantees one king each, no back-rank pawns, the side not to move out of check,
/// consistent castling rights and the material conditions; what remains are the rules about
/// how a check or an e.p. square arose, so the full checks run only when the side to move is in
/// check or an e.p. square is set.
fn predecessor_passes(q: &Position) -> bool {
    let in_check = q
        .king(q.turn)
        .is_some_and(|k| q.board.attacks_to(k, !q.turn, q.board.occupied()).any());
    if !in_check && q.ep_square.is_none() {
        return true;
    }
    legality::arisen_ok(&q.board, q.turn, q.ep_square)
}

fn chain_below(pos: &Position, depth: u32, budget: &mut u64) -> bool {
    chain_status(pos, depth, budget) == ChainStatus::Found
}

/// What a look at the retraction lines below a position found.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ChainStatus {
    /// A chain of the asked depth exists (or reaches the initial array).
    Found,
    /// Every line dies before the asked depth: no legal history passes through the position.
    Dead,
    /// The budget ran out first: nothing is shown either way.
    Unknown,
}

/// Whether `pos` (a predecessor produced by the engine) has a legal retraction chain `depth`
/// plies deep, telling a dead end apart from a budget that ran out.
pub fn chain_status(pos: &Position, depth: u32, budget: &mut u64) -> ChainStatus {
    if depth == 0 || pos.is_initial() {
        return ChainStatus::Found;
    }
    let mut status = ChainStatus::Dead;
    // Every retraction is either reversible or a reset (under any one convention); the
    // reversible ones come first because they are cheaper to generate and a chain is usually
    // found among them.
    for filter in [
        Filter::Reversible(Convention::Fide),
        Filter::Resets(Convention::Fide),
    ] {
        let finished = visit_retractions_checked(pos, filter, |r| {
            if *budget == 0 {
                status = ChainStatus::Unknown;
                return false;
            }
            *budget -= 1;
            let q = &r.predecessor;
            if predecessor_passes(q) {
                match chain_status(q, depth - 1, budget) {
                    ChainStatus::Found => {
                        status = ChainStatus::Found;
                        return false;
                    }
                    ChainStatus::Unknown => status = ChainStatus::Unknown,
                    ChainStatus::Dead => {}
                }
            }
            true
        });
        if !finished {
            break;
        }
    }
    status
}

/// Whether `pos` (a position that passes the static checks, or a predecessor the engine
/// produced from one) is a reset origin with chains `depth` plies deep: `Found` if some reset
/// retraction leads to the initial array or to a predecessor with such a chain, `Dead` if every
/// reset retraction is refuted, `Unknown` if a budget (`budget` positions per reset) ran out
/// before either was shown.
pub fn origin_status(
    pos: &Position,
    convention: Convention,
    depth: u32,
    budget: u64,
) -> ChainStatus {
    origin_status_counted(pos, convention, depth, budget, &mut 0)
}

/// As [`origin_status`], adding the positions generated to `spent`.
pub fn origin_status_counted(
    pos: &Position,
    convention: Convention,
    depth: u32,
    budget: u64,
    spent: &mut u64,
) -> ChainStatus {
    origin_status_cached(
        pos,
        convention,
        depth,
        budget,
        spent,
        &mut MaterialCache::new(),
    )
}

/// As [`origin_status_counted`], with the material verdicts of the reset retractions kept in
/// `cache` for the next positions with the same material and pawns (as all the positions of
/// one reversible graph have).
pub(crate) fn origin_status_cached(
    pos: &Position,
    convention: Convention,
    depth: u32,
    budget: u64,
    spent: &mut u64,
    cache: &mut MaterialCache,
) -> ChainStatus {
    if pos.is_initial() {
        return ChainStatus::Found;
    }
    let mut status = ChainStatus::Dead;
    visit_retractions_cached(pos, Filter::Resets(convention), cache, |r| {
        let q = &r.predecessor;
        let mut left = budget;
        // A unit put back by an un-capture may stand where no unit can have got (walled off
        // by pawns that never moved): such a reset is refuted at once.
        let found = if q.is_initial() {
            ChainStatus::Found
        } else if predecessor_passes(q)
            && legality::confinement_ok(&q.board)
            && legality::passing_ok(&q.board)
        {
            chain_status(q, depth, &mut left)
        } else {
            ChainStatus::Dead
        };
        *spent += budget - left;
        match found {
            ChainStatus::Found => {
                status = ChainStatus::Found;
                false
            }
            ChainStatus::Unknown => {
                status = ChainStatus::Unknown;
                true
            }
            ChainStatus::Dead => true,
        }
    });
    status
}

/// Decides whether the reset retraction `r` ends at a possible origin, and with what evidence.
pub fn origin_evidence(r: &Retraction, depth: u32, budget: u64) -> Option<OriginEvidence> {
    if r.predecessor.is_initial() {
        return Some(OriginEvidence::FromInitialArray);
    }
    // The predecessor comes from the retraction engine: the shortcut of the static checks
    // applies to it as to every position of the chain; confinement and pawn passing as in
    // `origin_status`.
    let q = &r.predecessor;
    let mut budget = budget;
    (predecessor_passes(q)
        && legality::confinement_ok(&q.board)
        && legality::passing_ok(&q.board)
        && chain_below(q, depth, &mut budget))
    .then_some(OriginEvidence::RetractionChain { depth })
}
