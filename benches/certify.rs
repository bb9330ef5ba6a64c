//! The certification rate of `clock?` (issue: verdicts that are proofs): for each position of
//! the fixed seeded sets, given without its clocks, whether the answer proves the minimum —
//! nothing below it is possible (refutation) and a game from the initial array, replayed,
//! reaches the start of a line of exactly that clock — with 5 s for the games (`--proof-time
//! 5`), single thread. The sets are those of `tests/construct.rs` and `benches/construct.rs`:
//! (i) 200 positions with at most 8 units from seeded random games, (ii) 1,000 positions of
//! the corpus's initial-array games (skipped with a message when the corpus is absent).
//! `RETROCLOCK_SPARSE` and `RETROCLOCK_CORPUS_POSITIONS` shrink them for a quick run. Every
//! certified line is replayed inside the answer by the checker separate from the constructor.
//!
//! `cargo bench --bench certify`

#[path = "../tests/common/mod.rs"]
#[allow(unused_imports)]
mod common;

use std::time::{Duration, Instant};

use retroclock::{
    answer::{Limits, Question, Reply, answer},
    position::{Position, PositionInput},
    rules::Rules,
    stipulation::Stipulation,
};

use common::corpus::sample_positions;
use common::positions::sparse_positions;

const SPARSE_SEED: u64 = 0xC057_0001;
const CORPUS_SEED: u64 = 0xC057_0002;

fn size(var: &str, default: usize) -> usize {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Whether `clock?` proves the minimum of `pos` (given without clocks), and the time taken.
fn min_certified(pos: &Position) -> (bool, Duration) {
    let input = PositionInput::parse(&pos.fen4()).expect("a position's own FEN");
    let question = Question::new(
        input,
        "clock?".parse::<Stipulation>().expect("clock?"),
        Rules::Fide,
    );
    let mut limits = Limits::default();
    limits.proof.time = Duration::from_secs(5);
    let started = Instant::now();
    let reply = answer(&question, &limits, &|_| {});
    let took = started.elapsed();
    let proven = match reply {
        Ok(Reply::Verdict(a)) => a.proofs.min() == Some(a.clock.min_lower_bound),
        _ => false,
    };
    (proven, took)
}

fn rate(name: &str, targets: &[Position]) -> f64 {
    let mut proven = 0;
    let mut times = Vec::new();
    let mut missed = Vec::new();
    for (i, t) in targets.iter().enumerate() {
        let (ok, took) = min_certified(t);
        times.push(took);
        if ok {
            proven += 1;
        } else if missed.len() < 10 {
            missed.push(t.fen4());
        }
        if (i + 1) % 50 == 0 {
            eprintln!("{name}: {}/{} done", i + 1, targets.len());
        }
    }
    times.sort();
    let percent = 100.0 * proven as f64 / targets.len().max(1) as f64;
    println!(
        "{name}: minimum certified for {proven}/{} ({percent:.1} %), median {:.2} s",
        targets.len(),
        times.get(times.len() / 2).map_or(0.0, |d| d.as_secs_f64())
    );
    for fen in missed {
        println!("  not certified: {fen}");
    }
    percent
}

fn main() {
    rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build_global()
        .expect("one thread");
    let sparse = sparse_positions(size("RETROCLOCK_SPARSE", 200), 8, SPARSE_SEED);
    let targets: Vec<Position> = sparse
        .iter()
        .map(|s| Position::from_setup(&s.position))
        .collect();
    let sparse_rate = rate("(i) sparse positions", &targets);
    match sample_positions(size("RETROCLOCK_CORPUS_POSITIONS", 1000), CORPUS_SEED) {
        Some(corpus) => {
            let targets: Vec<Position> = corpus.iter().map(Position::from_setup).collect();
            let corpus_rate = rate("(ii) corpus positions", &targets);
            assert!(corpus_rate >= 80.0, "corpus rate {corpus_rate:.1} %");
        }
        None => println!("(ii) skipped: corpus not found"),
    }
    assert!(sparse_rate >= 95.0, "sparse rate {sparse_rate:.1} %");
}
