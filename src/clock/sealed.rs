//! Sealed predecessors: a reset's predecessor whose whole reversible graph has no way in.
//!
//! A composed position often hides a reset that passes every local check, yet the position
//! before it cannot have arisen: to take back any capture, pawn move or castling that led
//! there, some unit must first be undone that cannot be (a king and rook held by a castling
//! right, a rook that must leave a file its king blocks, ...). Such a precedence shows in the
//! predecessor's own graph of reversible retractions: explored completely, it holds no origin
//! that survives the refutations. Then no legal game reaches the predecessor, and the reset is
//! refuted. The check is the clock search itself, run on the predecessor with a smaller
//! budget and without this check inside (it does not recurse).

use crate::{legality::Refutation, position::Position, rules::Convention};

use super::{
    refine::refine_minimum,
    search::{Budget, explore},
};

/// Positions explored first: most predecessors have an origin that stands a few plies back,
/// found in a graph this small, and are let through without the larger search.
const PROBE_NODES: u64 = 1_000;

/// The refutation of `q` (a reset's predecessor that passed the static checks and the
/// history refutations) when its whole graph of reversible retractions, explored within
/// `budget.seal_nodes` positions (and no more than the search's own `max_nodes`, which must
/// allow at least the probe's 1,000), holds no
/// origin that survives the refinement (with `budget`'s chain depths): every reset that could
/// lead into it is refuted, and it is not the initial array. None when the graph does not fit,
/// the deadline comes, or an origin stands.
pub fn sealed(q: &Position, convention: Convention, budget: &Budget) -> Option<Refutation> {
    let limit = budget.seal_nodes.min(budget.max_nodes);
    // A search held below the probe's size is a quick look: sealing is not tried.
    if limit < PROBE_NODES || q.is_initial() {
        return None;
    }
    let mut nodes = PROBE_NODES;
    loop {
        let inner = Budget {
            max_nodes: nodes,
            seal_nodes: 0,
            ..budget.clone()
        };
        let mut graph = explore(vec![q.clone()], convention, &inner, &|_| {});
        let refinement = refine_minimum(&mut graph, convention, &inner);
        let stands = (0..graph.expanded()).any(|i| graph.is_origin(i));
        if stands && refinement.stopped_by.is_none() && refinement.confirmed_depth.is_some() {
            return None; // an origin stands, even in a part of the graph
        }
        if graph.complete {
            if stands || refinement.stopped_by.is_some() {
                return None;
            }
            return Some(Refutation::Sealed {
                positions: graph.len() as u64,
                by_rule: refinement
                    .by_rule()
                    .into_iter()
                    .map(|g| (g.rule, g.count))
                    .collect(),
            });
        }
        if nodes >= limit {
            return None;
        }
        nodes = limit;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(fen: &str) -> Position {
        crate::position::PositionInput::parse(fen)
            .expect("FEN")
            .candidates()
            .into_iter()
            .next()
            .expect("one position")
    }

    #[test]
    fn a_castled_kings_start_with_the_promotion_still_to_undo_is_sealed() {
        // The position before White's O-O in the shortest line of Caillaud's R121 (Codex
        // counting): the right K holds White's king on e1 and the rook on h1, but the
        // promotion on h8 can only be taken back after the king has walked away, so every
        // reset that leads into its 284 positions is refuted by the bookkeeping.
        let q = pos("r3k3/B1p2p2/B7/2PP1PP1/2Prbrp1/1Prp1p2/2p2P2/N1b1K2R w Kq -");
        let Some(Refutation::Sealed { positions, by_rule }) =
            sealed(&q, Convention::Retro, &Budget::default())
        else {
            panic!("not sealed");
        };
        assert_eq!(positions, 284);
        assert_eq!(by_rule, vec![("bookkeeping", 284)]);
        // Without the budget to explore it, nothing is shown.
        let small = Budget {
            max_nodes: 100,
            ..Budget::default()
        };
        assert_eq!(sealed(&q, Convention::Retro, &small), None);
    }

    #[test]
    fn an_opening_position_is_not_sealed() {
        for fen in [
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -",
            "8/5k2/8/3p4/8/2K5/8/8 w - -",
        ] {
            assert_eq!(
                sealed(&pos(fen), Convention::Fide, &Budget::default()),
                None
            );
        }
    }
}
