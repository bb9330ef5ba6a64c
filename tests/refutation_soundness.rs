//! The refutations of a position's history must never fire on a position a real game reaches:
//! every position of the corpus games that start from the initial array, and of seeded random
//! games (with long runs of piece moves, and with captures that thin the material out), is
//! checked. Each rule's count of positions checked and of firings is printed; any firing fails.

mod common;

use common::{corpus, positions};
use retroclock::{
    legality::{HistoryCache, refute_history},
    position::Position,
};
use shakmaty::Setup;

/// Checks every position of `games`; returns (positions checked, failures).
fn check(games: &[Vec<Setup>], cache: &mut HistoryCache, failures: &mut Vec<String>) -> usize {
    let mut checked = 0;
    for game in games {
        for setup in game {
            let pos = Position::from_setup(setup);
            checked += 1;
            if let Some(r) = refute_history(&pos, cache) {
                failures.push(format!("{} refuted ({}): {r}", pos.fen4(), r.rule()));
            }
        }
    }
    checked
}

#[test]
fn no_refutation_fires_on_a_real_game() {
    let mut cache = HistoryCache::new();
    let mut failures = Vec::new();
    let mut total = 0;
    match corpus::initial_array_games() {
        Some(games) => {
            let n = check(&games, &mut cache, &mut failures);
            println!(
                "refutations on the corpus games: {n} positions, {} firings",
                failures.len()
            );
            total += n;
        }
        None => println!("skipped: corpus not found"),
    }
    for (steer, seed) in [
        (positions::Steer::Quiet, 11),
        (positions::Steer::Captures, 12),
        (positions::Steer::Uniform, 13),
    ] {
        let games: Vec<Vec<Setup>> = positions::random_games(40, 300, seed, steer)
            .into_iter()
            .map(|plies| plies.into_iter().map(|p| p.after).collect())
            .collect();
        let before = failures.len();
        let n = check(&games, &mut cache, &mut failures);
        println!(
            "refutations on random games ({steer:?}): {n} positions, {} firings",
            failures.len() - before
        );
        total += n;
    }
    assert!(total >= 10_000, "only {total} positions");
    assert!(
        failures.is_empty(),
        "{} real positions refuted:\n{}",
        failures.len(),
        failures
            .iter()
            .take(20)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n")
    );
}
