//! The game constructor on the fixed seeded sets: the share of positions it builds a game for
//! within 5 s each (single thread) and the median time, then criterion timings of a few fixed
//! targets. Every game counted is replayed by the separate checker (`verify::replay_line`), and
//! the bench fails if one does not replay or a rate falls below its floor.
//!
//! The sets are those of `tests/construct.rs`: 200 positions with at most 8 units from seeded
//! random games that capture often, with the real predecessors of their last resets, and 1,000
//! positions drawn from the corpus's initial-array games (skipped with a message when the
//! corpus is absent). `RETROCLOCK_SPARSE` and `RETROCLOCK_CORPUS_POSITIONS` shrink them for a
//! quick run.

#[path = "../tests/common/mod.rs"]
#[allow(unused_imports)]
mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group};
use retroclock::construct::{Budget, construct_game};
use retroclock::position::{Position, PositionInput};
use retroclock::verify::replay_line;

use common::corpus::sample_positions;
use common::positions::sparse_positions;

/// The seeds of the sets (the same as `tests/construct.rs`).
const SPARSE_SEED: u64 = 0xC057_0001;
const CORPUS_SEED: u64 = 0xC057_0002;
/// The time each position is given.
const SECONDS: f64 = 5.0;

fn size(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Builds every target once; prints and returns the rate (percent). Panics if a game does not
/// replay.
fn measure(name: &str, targets: &[Position]) -> f64 {
    let mut times = Vec::new();
    let mut plies = Vec::new();
    let started = Instant::now();
    for t in targets {
        let start = Instant::now();
        if let Some(game) = construct_game(t, &Budget::seconds(SECONDS)) {
            times.push(start.elapsed());
            plies.push(game.len());
            if let Err(e) = replay_line(&Position::initial(), &game, t) {
                panic!("{name}: the game for {} does not replay: {e}", t.fen4());
            }
        }
    }
    times.sort();
    plies.sort();
    let rate = 100.0 * times.len() as f64 / targets.len().max(1) as f64;
    let median = times
        .get(times.len() / 2)
        .copied()
        .unwrap_or(Duration::ZERO);
    let p90 = times
        .get(times.len() * 9 / 10)
        .copied()
        .unwrap_or(Duration::ZERO);
    println!(
        "{name}: {}/{} built ({rate:.1} %), median {:.1} ms, 90th percentile {:.1} ms, \
         median game {} plies, {:.1} s in all",
        times.len(),
        targets.len(),
        median.as_secs_f64() * 1000.0,
        p90.as_secs_f64() * 1000.0,
        plies.get(plies.len() / 2).copied().unwrap_or(0),
        started.elapsed().as_secs_f64()
    );
    rate
}

fn rates() {
    let sparse = sparse_positions(size("RETROCLOCK_SPARSE", 200), 8, SPARSE_SEED);
    let positions: Vec<Position> = sparse
        .iter()
        .map(|s| Position::from_setup(&s.position))
        .collect();
    let predecessors: Vec<Position> = sparse
        .iter()
        .map(|s| Position::from_setup(&s.reset_predecessor))
        .collect();
    let a = measure("sparse positions (at most 8 units)", &positions);
    let b = measure("their reset predecessors", &predecessors);
    let both = (a * positions.len() as f64 + b * predecessors.len() as f64)
        / (positions.len() + predecessors.len()).max(1) as f64;
    println!("sparse set in all: {both:.1} %");
    assert!(both >= 95.0, "sparse rate {both:.1} % is below 95 %");
    match sample_positions(size("RETROCLOCK_CORPUS_POSITIONS", 1000), CORPUS_SEED) {
        Some(corpus) => {
            let targets: Vec<Position> = corpus.iter().map(Position::from_setup).collect();
            let rate = measure("corpus positions", &targets);
            assert!(rate >= 80.0, "corpus rate {rate:.1} % is below 80 %");
        }
        None => println!(
            "skipped: corpus not found at {}",
            common::corpus::corpus_root().display()
        ),
    }
}

/// Fixed targets timed by criterion, each checked to build a game that replays.
const TARGETS: &[(&str, &str)] = &[
    ("K+R v K, Black to move", "8/8/4k3/8/8/3K4/8/R7 b - -"),
    ("bare kings", "4k3/8/8/8/8/8/8/4K3 w - -"),
    (
        "developed, castling rights kept",
        "r3k2r/pppq1ppp/2npbn2/2b1p3/2B1P3/2NPBN2/PPPQ1PPP/R3K2R w KQkq -",
    ),
    ("three white queens", "k7/8/8/8/8/8/8/1QQQK3 w - -"),
    (
        "rook ending with pawns",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 b - -",
    ),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("construct_game");
    group.sample_size(10);
    for &(name, fen) in TARGETS {
        let target = PositionInput::parse(fen)
            .expect("a valid FEN")
            .candidates()
            .remove(0);
        group.bench_function(name, |b| {
            b.iter(|| {
                let game = construct_game(black_box(&target), &Budget::seconds(SECONDS))
                    .unwrap_or_else(|| panic!("no game for {fen}"));
                assert!(replay_line(&Position::initial(), &game, &target).is_ok());
                game
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);

fn main() {
    rates();
    benches();
    Criterion::default().configure_from_args().final_summary();
}
