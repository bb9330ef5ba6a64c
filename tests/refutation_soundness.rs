//! The refutations of a position's history must never fire on a position a real game reaches:
//! every position of the corpus games that start from the initial array, and of seeded random
//! games (with long runs of piece moves, and with captures that thin the material out), is
//! checked. Each rule's count of positions checked and of firings is printed; any firing fails.
//! The costlier sealing rule (a predecessor's whole reversible graph has no way in) is checked
//! on a sample of the positions right before a reset, where the solver applies it.

mod common;

use common::{corpus, positions};
use retroclock::{
    clock::{Budget, parity_by_resets, sealed::sealed},
    legality::{HistoryCache, refute_history},
    position::Position,
    rules::Convention,
};
use shakmaty::Setup;

/// Checks every position of `games` (the history refutations, and the parity rule against
/// the real clock under FIDE counting); returns (positions checked, positions whose parity
/// the rule decided).
fn check(
    games: &[Vec<Setup>],
    cache: &mut HistoryCache,
    failures: &mut Vec<String>,
) -> (usize, usize) {
    let (mut checked, mut parities) = (0, 0);
    for game in games {
        for setup in game {
            let pos = Position::from_setup(setup);
            checked += 1;
            if let Some(r) = refute_history(&pos, cache) {
                failures.push(format!("{} refuted ({}): {r}", pos.fen4(), r.rule()));
            }
            if let Some(p) = parity_by_resets(&pos, Convention::Fide) {
                parities += 1;
                if setup.halfmoves % 2 != u32::from(p) {
                    failures.push(format!(
                        "{} clock {}: the parity rule says {}",
                        pos.fen4(),
                        setup.halfmoves,
                        if p == 0 { "even" } else { "odd" }
                    ));
                }
            }
        }
    }
    (checked, parities)
}

#[test]
fn no_refutation_fires_on_a_real_game() {
    let mut cache = HistoryCache::new();
    let mut failures = Vec::new();
    let mut total = 0;
    match corpus::initial_array_games() {
        Some(games) => {
            let (n, p) = check(&games, &mut cache, &mut failures);
            println!(
                "refutations on the corpus games: {n} positions, {} firings; the parity rule decided {p}",
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
        let games = random_setups(40, seed, steer);
        let before = failures.len();
        let (n, p) = check(&games, &mut cache, &mut failures);
        println!(
            "refutations on random games ({steer:?}): {n} positions, {} firings; the parity rule decided {p}",
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

/// `games` seeded random games of 300 plies, each as the positions after its plies.
fn random_setups(games: usize, seed: u64, steer: positions::Steer) -> Vec<Vec<Setup>> {
    positions::random_games(games, 300, seed, steer)
        .into_iter()
        .map(|plies| plies.into_iter().map(|p| p.after).collect())
        .collect()
}

/// The positions right before a reset move (the next position's clock is 0), every `step`-th.
fn before_resets(games: &[Vec<Setup>], step: usize) -> Vec<Position> {
    games
        .iter()
        .flat_map(|game| game.windows(2))
        .filter(|w| w[1].halfmoves == 0)
        .step_by(step)
        .map(|w| Position::from_setup(&w[0]))
        .collect()
}

#[test]
fn no_real_predecessor_of_a_reset_is_sealed() {
    // Small enough that the graphs of sparse positions are explored completely (and their
    // refinement must find an origin that stands), large enough to show sealing where it
    // fires on composed positions.
    let budget = Budget {
        max_nodes: 20_000,
        seal_nodes: 20_000,
        ..Budget::default()
    };
    let mut samples = Vec::new();
    match corpus::initial_array_games() {
        Some(games) => samples.extend(before_resets(&games, 10)),
        None => println!("skipped: corpus not found"),
    }
    for (steer, seed) in [
        (positions::Steer::Captures, 21),
        (positions::Steer::Uniform, 22),
    ] {
        samples.extend(before_resets(&random_setups(30, seed, steer), 2));
    }
    let mut failures = Vec::new();
    for pos in &samples {
        for convention in [Convention::Fide, Convention::Retro] {
            if let Some(r) = sealed(pos, convention, &budget) {
                failures.push(format!("{} ({convention:?}): {r}", pos.fen4()));
            }
        }
    }
    println!(
        "sealing on real predecessors of resets: {} positions, {} firings",
        samples.len(),
        failures.len()
    );
    assert!(samples.len() >= 1_000, "only {} positions", samples.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
