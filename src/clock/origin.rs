//! Reset origins: whether a reset retraction leads to a predecessor that passes the necessary
//! conditions of legality (the static checks and a legal retraction chain of a given depth).

use shakmaty::{Bitboard, Board, Color, Rank, Role, Square, attacks};

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

/// Whether the predecessor `q` of a reset retraction passes the static checks: those of any
/// predecessor ([`predecessor_passes`]), and for the unit an un-capture put back, that it
/// stands where a unit can have got (not walled off by pawns that never moved) and that the
/// pawns can have passed each other.
fn reset_predecessor_passes(q: &Position) -> bool {
    predecessor_passes(q) && legality::confinement_ok(&q.board) && legality::passing_ok(&q.board)
}

/// One step of a chain of king steps back ([`king_steps_back`]): the king of `color` goes back
/// from `to` to `from` (the move taken back is the king's from `from` to `to`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct KingStep {
    color: Color,
    from: Square,
    to: Square,
}

/// A chain of `depth` (1 or 2) king steps back from `pos` (a predecessor produced by the
/// engine), if there is one: the king of the side that made the last move steps back, then,
/// for depth 2, the other side's king, each to a square where neither king stands in check.
/// Each step is a quiet retraction that the engine produces, to a predecessor that needs no
/// further check ([`predecessor_passes`]): the chain is one of those [`chain_status`] looks
/// for, found on the bitboards without generating retractions.
fn king_steps_back(pos: &Position, depth: u32) -> Option<(KingStep, Option<KingStep>)> {
    // With an e.p. square, the double step is the only retraction.
    if pos.ep_square.is_some()
        || pos.king(Color::White).is_none()
        || pos.king(Color::Black).is_none()
    {
        return None;
    }
    king_step_back(&pos.board, pos.castling, !pos.turn, depth)
}

/// A step back of the king of `mover` on `board` (one king each) to a square from which,
/// with `mover` to move, neither king stands in check, and then, while `depth` is above 1, a
/// step back of the other side's king likewise. A king with a castling right in `castling`
/// never moved.
fn king_step_back(
    board: &Board,
    castling: Bitboard,
    mover: Color,
    depth: u32,
) -> Option<(KingStep, Option<KingStep>)> {
    let (king, other) = (board.king_of(mover)?, board.king_of(!mover)?);
    if (castling & Bitboard::from_rank(mover.fold_wb(Rank::First, Rank::Eighth))).any() {
        return None;
    }
    // The other king may stand in check (it is to move): the step back must then block the
    // one slider that gives it, as the move that uncovered it.
    let occupied = board.occupied();
    let checkers = board.attacks_to(other, mover, occupied);
    let blocks = match checkers.first() {
        None => !Bitboard::EMPTY,
        Some(checker) if !checkers.more_than_one() && board.sliders().contains(checker) => {
            attacks::between(checker, other)
        }
        Some(_) => return None,
    };
    // The attacks are found on `board` with the occupied squares of the predecessor: the
    // other side's units are where they were, and of `mover`'s, only the king moved (its old
    // square never attacks the other king, which stood out of its reach).
    (attacks::king_attacks(king) & !occupied & blocks)
        .into_iter()
        .find_map(|from| {
            let occupied = occupied.without(king).with(from);
            if attacks::king_attacks(from).contains(other)
                || board.attacks_to(other, mover, occupied).any()
                || board.attacks_to(from, !mover, occupied).any()
            {
                return None;
            }
            let step = KingStep {
                color: mover,
                from,
                to: king,
            };
            if depth <= 1 {
                return Some((step, None));
            }
            let mut before = board.clone();
            before.discard_piece_at(king);
            before.set_piece_at(from, Role::King.of(mover));
            king_step_back(&before, castling, !mover, depth - 1).map(|(next, _)| (step, Some(next)))
        })
}

/// Whether `pos` (a predecessor produced by the engine) has a legal retraction chain `depth`
/// plies deep, telling a dead end apart from a budget that ran out.
pub fn chain_status(pos: &Position, depth: u32, budget: &mut u64) -> ChainStatus {
    chain_search(pos, depth, budget, true)
}

/// [`chain_status`], looking first for a chain of king steps back ([`king_steps_back`]) where
/// at most two plies are left if `king_steps` (else generating every retraction).
fn chain_search(pos: &Position, depth: u32, budget: &mut u64, king_steps: bool) -> ChainStatus {
    if depth == 0
        || pos.is_initial()
        || (king_steps && depth <= 2 && king_steps_back(pos, depth).is_some())
    {
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
                match chain_search(q, depth - 1, budget, king_steps) {
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
    resets_in_one_pass(pos, convention, depth, budget, spent, cache, None).0
}

/// The search's own check of `pos` as a reset origin: as [`origin_status_cached`], with every
/// reset's predecessor refuted first, when `bookkeeping`, by the bookkeeping of its pawns and
/// material (a look-up once the pawns and material were seen; in a composed diagram it refutes
/// nearly every reset, before any chain is sought). Returns the status and whether the bookkeeping
/// refuted a predecessor of a position that is no origin (every reset there is impossible,
/// one at least by the bookkeeping), for the answer to count.
pub(crate) fn search_origin_status(
    pos: &Position,
    convention: Convention,
    depth: u32,
    budget: u64,
    cache: &mut MaterialCache,
    bookkeeping: bool,
) -> (ChainStatus, bool) {
    if pos.is_initial() {
        return (ChainStatus::Found, false);
    }
    if bookkeeping {
        with_search_history(|history| {
            resets_in_one_pass(pos, convention, depth, budget, &mut 0, cache, Some(history))
        })
    } else {
        resets_in_one_pass(pos, convention, depth, budget, &mut 0, cache, None)
    }
}

/// One pass over the resets of `pos` ([`origin_status_cached`], [`search_origin_status`]):
/// the bookkeeping first (when `history` is given: a look-up), then a chain of king steps back
/// found on the bitboards ([`king_steps_back`]: most origins have one, though not always below
/// the first predecessor, whose unit put back may give the check that only its own move
/// explains); the other predecessors wait for the costlier chain search (`budget` positions per
/// reset, counted in `spent`). Returns the status and whether the bookkeeping refuted a
/// predecessor of a position that is no origin.
fn resets_in_one_pass(
    pos: &Position,
    convention: Convention,
    depth: u32,
    budget: u64,
    spent: &mut u64,
    cache: &mut MaterialCache,
    mut history: Option<&mut legality::HistoryCache>,
) -> (ChainStatus, bool) {
    let mut found = false;
    let mut booked = false;
    let mut waiting = Vec::new();
    visit_retractions_cached(pos, Filter::Resets(convention), cache, |r| {
        let q = &r.predecessor;
        if q.is_initial() {
            found = true;
        } else if history
            .as_deref_mut()
            .is_some_and(|h| legality::refute_by_bookkeeping(q, h).is_some())
        {
            booked = true;
        } else if (1..=2).contains(&depth)
            && king_steps_back(q, depth).is_some()
            && reset_predecessor_passes(q)
        {
            found = true;
        } else {
            waiting.push(q.clone());
        }
        !found
    });
    if found {
        return (ChainStatus::Found, false);
    }
    let mut status = ChainStatus::Dead;
    for q in waiting.iter().filter(|q| reset_predecessor_passes(q)) {
        let mut left = budget;
        let found = chain_status(q, depth, &mut left);
        *spent += budget - left;
        match found {
            ChainStatus::Found => return (ChainStatus::Found, false),
            ChainStatus::Unknown => status = ChainStatus::Unknown,
            ChainStatus::Dead => {}
        }
    }
    (status, status == ChainStatus::Dead && booked)
}

/// As [`origin_status_counted`], refuting each reset's predecessor also by its whole history
/// ([`legality::refute_history`]), and then, where a chain stands below it, by `seal` (which
/// may look at the predecessor's whole reversible graph, [`super::sealed`]): a predecessor so
/// refuted counts as dead. Returns the status and the refutations found (one per predecessor
/// refuted that way).
pub fn origin_status_refuting(
    pos: &Position,
    convention: Convention,
    depth: u32,
    budget: u64,
    spent: &mut u64,
    history: &mut legality::HistoryCache,
    seal: &mut dyn FnMut(&Position) -> Option<legality::Refutation>,
) -> (ChainStatus, Vec<legality::Refutation>) {
    if pos.is_initial() {
        return (ChainStatus::Found, Vec::new());
    }
    resets_status(pos, convention, depth, budget, spent, history, seal)
}

/// Looks at every reset retraction of `pos`: `Found` as soon as one leads to the initial array
/// or to a predecessor that passes the static checks ([`reset_predecessor_passes`]: a unit put
/// back by an un-capture may stand where no unit can have got, walled off by pawns that never
/// moved), is not refuted by its history (the bookkeeping before the static checks, a cage
/// after them) and has a chain `depth`
/// deep (`budget` positions per reset, counted in `spent`) that `seal` does not refute;
/// `Unknown` if a budget ran out on one and none was found; `Dead` otherwise. Returns the
/// refutations by history and by `seal` too.
fn resets_status(
    pos: &Position,
    convention: Convention,
    depth: u32,
    budget: u64,
    spent: &mut u64,
    history: &mut legality::HistoryCache,
    seal: &mut dyn FnMut(&Position) -> Option<legality::Refutation>,
) -> (ChainStatus, Vec<legality::Refutation>) {
    let mut status = ChainStatus::Dead;
    let mut refutations = Vec::new();
    visit_retractions_cached(
        pos,
        Filter::Resets(convention),
        &mut MaterialCache::new(),
        |r| {
            let q = &r.predecessor;
            let mut left = budget;
            // The bookkeeping first: a look-up for all but the first predecessor with these pawns
            // and material, and in a composed diagram it refutes most of them.
            let found = if q.is_initial() {
                ChainStatus::Found
            } else if let Some(refutation) = legality::refute_by_bookkeeping(q, history) {
                refutations.push(refutation);
                ChainStatus::Dead
            } else if !reset_predecessor_passes(q) {
                ChainStatus::Dead
            } else if let Some(refutation) = legality::refute_by_cage(q, history) {
                refutations.push(refutation);
                ChainStatus::Dead
            } else {
                match chain_status(q, depth, &mut left) {
                    ChainStatus::Dead => ChainStatus::Dead,
                    standing => match seal(q) {
                        Some(refutation) => {
                            refutations.push(refutation);
                            ChainStatus::Dead
                        }
                        None => standing,
                    },
                }
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
        },
    );
    (status, refutations)
}

/// Runs `f` with this thread's cache of history refutations (the cage searches and the
/// bookkeeping are costly, and the positions of one answer, or of one game, share their pawns
/// and material); the cache is emptied every 65,536 uses. A call made while the cache is in
/// use (from inside `f`) runs with a fresh cache.
pub(crate) fn with_history<R>(f: impl FnOnce(&mut legality::HistoryCache) -> R) -> R {
    thread_local! {
        static HISTORY: std::cell::RefCell<(u32, legality::HistoryCache)> =
            std::cell::RefCell::new((0, legality::HistoryCache::new()));
    }
    HISTORY.with(|h| {
        // A check inside another (the sealed predecessors' own searches) gets a cache of its
        // own.
        let Ok(mut held) = h.try_borrow_mut() else {
            return f(&mut legality::HistoryCache::new());
        };
        let (uses, cache) = &mut *held;
        *uses += 1;
        if *uses > 65_536 {
            *uses = 0;
            *cache = legality::HistoryCache::new();
        }
        f(cache)
    })
}

/// Runs `f` with this thread's cache of bookkeeping verdicts for the search's origin checks:
/// every position of a search is checked, and its resets' predecessors (a pawn or a unit put
/// back anywhere) have many pawn structures, each costly to judge the first time, so the cache
/// is kept across searches and emptied only when it holds a million verdicts. A call made
/// while the cache is in use runs with a fresh one.
fn with_search_history<R>(f: impl FnOnce(&mut legality::HistoryCache) -> R) -> R {
    thread_local! {
        static SEARCH: std::cell::RefCell<legality::HistoryCache> =
            std::cell::RefCell::new(legality::HistoryCache::new());
    }
    SEARCH.with(|h| {
        let Ok(mut cache) = h.try_borrow_mut() else {
            return f(&mut legality::HistoryCache::new());
        };
        if cache.bookkeeping_entries() > 1_000_000 {
            *cache = legality::HistoryCache::new();
        }
        f(&mut cache)
    })
}

/// Whether the history of `q` is refuted ([`legality::refute_history`]).
fn refuted_by_history(q: &Position) -> bool {
    with_history(|cache| legality::refute_history(q, cache).is_some())
}

/// Decides whether the reset retraction `r` ends at a possible origin, and with what evidence.
pub fn origin_evidence(r: &Retraction, depth: u32, budget: u64) -> Option<OriginEvidence> {
    if r.predecessor.is_initial() {
        return Some(OriginEvidence::FromInitialArray);
    }
    // The predecessor comes from the retraction engine: the shortcut of the static checks
    // applies to it as to every position of the chain; confinement and pawn passing as in
    // `origin_status`, and the refutations of its history as in the refinement.
    let q = &r.predecessor;
    let mut budget = budget;
    (reset_predecessor_passes(q) && !refuted_by_history(q) && chain_below(q, depth, &mut budget))
        .then_some(OriginEvidence::RetractionChain { depth })
}

#[cfg(test)]
mod tests {
    use shakmaty::Move;

    use super::*;

    /// Positions after every third ply of seeded random games.
    fn random_positions(games: usize) -> Vec<Position> {
        let mut out = Vec::new();
        let mut ply = 0;
        crate::legality::tests::random_walks(
            0x9E37_79B9_7F4A_7C15,
            games,
            200,
            |_| true,
            |chess| {
                ply += 1;
                if ply % 3 == 0 {
                    out.push(Position::from_chess(chess));
                }
            },
        );
        out
    }

    /// The predecessor of `pos` where `step` is taken back, and the move taken back.
    fn taken_back(pos: &Position, step: KingStep) -> (Position, Move) {
        let mut before = pos.clone();
        before.board.discard_piece_at(step.to);
        before
            .board
            .set_piece_at(step.from, Role::King.of(step.color));
        before.turn = step.color;
        before.ep_square = None;
        let mv = Move::Normal {
            role: Role::King,
            from: step.from,
            capture: None,
            to: step.to,
            promotion: None,
        };
        (before, mv)
    }

    #[test]
    fn king_steps_back_replay_and_the_full_search_finds_a_chain_too() {
        // Below every predecessor the engine gives for positions of random games.
        let (mut found, mut blocking, mut none) = ([0usize; 2], 0, 0);
        for pos in random_positions(40) {
            for r in crate::retract::retractions(&pos) {
                let q = &r.predecessor;
                for depth in 1..=2u32 {
                    let Some((first, second)) = king_steps_back(q, depth) else {
                        none += 1;
                        continue;
                    };
                    found[depth as usize - 1] += 1;
                    let (q1, mv1) = taken_back(q, first);
                    let (start, moves) = match second {
                        Some(second) => {
                            let (q2, mv2) = taken_back(&q1, second);
                            (q2, vec![mv2, mv1])
                        }
                        None => (q1, vec![mv1]),
                    };
                    assert_eq!(moves.len(), depth as usize);
                    // The chain replays forward, each move legal, to `q` itself.
                    if let Err(e) = crate::verify::replay_line(&start, &moves, q) {
                        panic!("{}: {moves:?}: {e}", q.fen4());
                    }
                    // The side to move in `q` in check: the first step blocked the check.
                    let to_move = q.king(q.turn).expect("one king each");
                    if q.board
                        .attacks_to(to_move, !q.turn, q.board.occupied())
                        .any()
                    {
                        blocking += 1;
                    }
                    let mut budget = 1_000_000;
                    assert_eq!(
                        chain_search(q, depth, &mut budget, false),
                        ChainStatus::Found,
                        "{} depth {depth}",
                        q.fen4()
                    );
                }
            }
        }
        // About 220,000 and 200,000 chains, 700 of them blocking a check, and 250,000
        // predecessors without one.
        assert!(found[0] > 100_000 && found[1] > 100_000, "{found:?}");
        assert!(blocking > 300, "{blocking}");
        assert!(none > 100_000, "{none}");
    }
}
