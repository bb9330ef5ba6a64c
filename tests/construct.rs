//! The game constructor: every game it returns replays (checked here again by the separate
//! checker), the required positions are built, and the rates on the fixed seeded sets hold.
//!
//! The CI-sized rate test takes the first positions of each set; the full sets (200 sparse
//! positions with their reset predecessors, 1,000 corpus positions) are measured by
//! `cargo test --release --test construct -- --ignored --nocapture` and by the bench
//! (`cargo bench --bench construct`).

mod common;

use std::time::{Duration, Instant};

use proptest::prelude::*;
use retroclock::construct::{Budget, construct_game};
use retroclock::position::{Position, PositionInput};
use retroclock::verify::replay_line;
use shakmaty::Setup;

use common::corpus::sample_positions;
use common::oracle::fen_without_clocks;
use common::positions::{game_positions, sparse_positions};

/// The seed of the sparse set (positions with at most 8 units and their reset predecessors).
const SPARSE_SEED: u64 = 0xC057_0001;
/// The seed of the corpus sample.
const CORPUS_SEED: u64 = 0xC057_0002;
/// The time each position is given.
const SECONDS: f64 = 5.0;

fn position(fen: &str) -> Position {
    PositionInput::parse(fen)
        .unwrap_or_else(|e| panic!("{fen}: {e}"))
        .candidates()
        .remove(0)
}

fn of_setup(setup: &Setup) -> Position {
    Position::from_setup(setup)
}

/// Builds a game for `target` within the time; checks it with the separate replay checker.
/// Returns the time taken when a game was built.
fn build(target: &Position, seconds: f64) -> Option<Duration> {
    let start = Instant::now();
    let game = construct_game(target, &Budget::seconds(seconds))?;
    let took = start.elapsed();
    if let Err(e) = replay_line(&Position::initial(), &game, target) {
        panic!("the game for {} does not replay: {e}", target.fen4());
    }
    Some(took)
}

/// What one set gave.
struct Rate {
    built: usize,
    total: usize,
    times: Vec<Duration>,
    failures: Vec<String>,
}

impl Rate {
    fn of(targets: &[Position], seconds: f64) -> Rate {
        let mut rate = Rate {
            built: 0,
            total: targets.len(),
            times: Vec::new(),
            failures: Vec::new(),
        };
        for t in targets {
            match build(t, seconds) {
                Some(took) => {
                    rate.built += 1;
                    rate.times.push(took);
                }
                None => rate.failures.push(t.fen4()),
            }
        }
        rate.times.sort();
        rate
    }

    fn percent(&self) -> f64 {
        100.0 * self.built as f64 / self.total.max(1) as f64
    }

    fn median(&self) -> Duration {
        self.times
            .get(self.times.len() / 2)
            .copied()
            .unwrap_or_default()
    }

    fn report(&self, name: &str) {
        println!(
            "{name}: {}/{} built ({:.1} %), median {:.1} ms",
            self.built,
            self.total,
            self.percent(),
            self.median().as_secs_f64() * 1000.0
        );
        for f in &self.failures {
            println!("  not built: {f}");
        }
    }
}

/// The sparse set: the positions, then their reset predecessors.
fn sparse_set(n: usize) -> Vec<Position> {
    let sparse = sparse_positions(n, 8, SPARSE_SEED);
    let mut out: Vec<Position> = sparse.iter().map(|s| of_setup(&s.position)).collect();
    out.extend(sparse.iter().map(|s| of_setup(&s.reset_predecessor)));
    out
}

#[test]
fn the_required_positions_are_built() {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -",
        "4k3/8/8/8/8/8/8/4K3 w - -",
        "8/8/4k3/8/8/3K4/8/R7 b - -",
        "8/8/8/3k4/8/8/4P3/4K3 w - -",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - -",
        // Castling rights kept: kings and rooks that never moved.
        "r1bqkb1r/pppppppp/2n2n2/8/8/2N2N2/PPPPPPPP/R1BQKB1R w KQkq -",
        "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq -",
        // An e.p. square: the last move was the double step.
        "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3",
        "4k3/8/8/8/3Pp3/8/8/4K3 b - d3",
        // Promoted pieces: three white queens.
        "k7/8/8/8/8/8/8/1QQQK3 w - -",
        // The side to move in check.
        "4k3/8/8/8/8/8/4R3/4K3 b - -",
    ] {
        let target = position(fen);
        assert!(build(&target, SECONDS).is_some(), "no game for {fen}");
    }
}

#[test]
fn the_initial_array_is_the_empty_game() {
    let game = construct_game(&Position::initial(), &Budget::seconds(1.0)).unwrap();
    assert!(game.is_empty());
}

/// A position with all 16 units at home, castling rights kept and a capture: every survivor
/// stands where it started and never moved, so the last capturer would still be on the board.
/// No game reaches it, and the constructor says so (None) within its budget.
#[test]
fn an_illegal_position_is_not_built() {
    let target = position("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq -");
    let start = Instant::now();
    assert!(construct_game(&target, &Budget::seconds(1.0)).is_none());
    assert!(start.elapsed() < Duration::from_secs(3));
}

/// The rates on the first positions of each fixed set (CI size). The full sets are measured by
/// the ignored test below and the bench.
#[test]
fn rates_on_the_first_positions_of_each_set() {
    let sparse = Rate::of(&sparse_set(25), SECONDS);
    sparse.report("sparse positions and their reset predecessors");
    assert!(
        sparse.percent() >= 95.0,
        "sparse rate {:.1} %",
        sparse.percent()
    );
    let Some(corpus) = sample_positions(30, CORPUS_SEED) else {
        println!(
            "skipped: corpus not found at {}",
            common::corpus::corpus_root().display()
        );
        return;
    };
    let targets: Vec<Position> = corpus.iter().map(of_setup).collect();
    let rate = Rate::of(&targets, SECONDS);
    rate.report("corpus positions");
    assert!(
        rate.percent() >= 80.0,
        "corpus rate {:.1} %",
        rate.percent()
    );
}

/// The full sets: `RETROCLOCK_SPARSE` (200) sparse positions with their reset predecessors and
/// `RETROCLOCK_CORPUS_POSITIONS` (1,000) corpus positions.
#[test]
#[ignore]
fn rates_on_the_full_sets() {
    let n = |var: &str, default: usize| {
        std::env::var(var)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default)
    };
    let sparse = Rate::of(&sparse_set(n("RETROCLOCK_SPARSE", 200)), SECONDS);
    sparse.report("sparse positions and their reset predecessors");
    let Some(corpus) = sample_positions(n("RETROCLOCK_CORPUS_POSITIONS", 1000), CORPUS_SEED) else {
        println!(
            "skipped: corpus not found at {}",
            common::corpus::corpus_root().display()
        );
        return;
    };
    let targets: Vec<Position> = corpus.iter().map(of_setup).collect();
    let rate = Rate::of(&targets, SECONDS);
    rate.report("corpus positions");
    assert!(sparse.percent() >= 95.0 && rate.percent() >= 80.0);
}

/// Positions of random games, by index into a seeded set.
fn random_game_position(index: usize) -> Position {
    let positions = game_positions(200, 0xC057_0003);
    of_setup(&positions[index % positions.len()])
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, .. ProptestConfig::default() })]

    /// Whatever the constructor returns for a random game's position is a game that the
    /// separate checker replays to that position.
    #[test]
    fn constructed_games_replay(index in 0usize..200) {
        let target = random_game_position(index);
        if let Some(game) = construct_game(&target, &Budget::seconds(2.0)) {
            prop_assert!(
                replay_line(&Position::initial(), &game, &target).is_ok(),
                "{}", target.fen4()
            );
        }
    }
}

#[test]
fn the_sets_are_fixed_and_distinct() {
    let a = sparse_positions(10, 8, SPARSE_SEED);
    let b = sparse_positions(10, 8, SPARSE_SEED);
    assert_eq!(a.len(), 10);
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            fen_without_clocks(&x.position),
            fen_without_clocks(&y.position)
        );
        assert!(x.position.board.occupied().count() <= 8);
    }
}
