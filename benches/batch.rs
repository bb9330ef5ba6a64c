//! Batch throughput: 10,000 positions from seeded random games, checked with one job and with
//! two jobs in the same run. The two reports must be identical; the speedup is printed. A
//! criterion group then times a slice of the positions for regression tracking.
//!
//! `cargo bench --bench batch`. Without `--bench` (as `cargo test --benches` runs it) the
//! comparison uses 20 positions and criterion runs each benchmark once. The environment
//! variables `BATCH_BENCH_POSITIONS` and `BATCH_BENCH_NODES` override the number of positions and
//! the node budget per entry.

use std::{hint::black_box, time::Instant};

use criterion::Criterion;
use retroclock::{
    batch::{self, Entry, Outcome, Settings},
    clock::MaxClock,
    rules::Convention,
    verdict::Finding,
};
use shakmaty::{Chess, EnPassantMode, Position, fen::Fen};

/// The node budget of each entry: small, so that the run takes minutes, not hours (about 8 ms
/// per entry in release on a 2-core machine: 10,000 entries in about 80 s with one job).
const MAX_NODES: u64 = 500;

fn env_number(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

fn max_nodes() -> u64 {
    env_number("BATCH_BENCH_NODES").unwrap_or(MAX_NODES)
}

/// SplitMix64: a tiny seeded generator, enough to pick random moves reproducibly.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// `count` FEN lines (six fields, the clock counted under the retro convention, which plain FEN
/// lines are checked under), each the last position of a random game of 1 to 160 plies.
fn positions(count: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut text = String::new();
    for _ in 0..count {
        let mut pos = Chess::default();
        let mut clock = 0u32;
        let plies = 1 + rng.below(160);
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[rng.below(moves.len())];
            clock = if Convention::Retro.resets(&mv) {
                0
            } else {
                clock + 1
            };
            pos.play_unchecked(mv);
        }
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        setup.halfmoves = clock;
        let fen = Fen::try_from_setup(setup).unwrap_or_else(|e| e.ignore());
        text.push_str(&format!("{fen}\n"));
    }
    text
}

fn settings() -> Settings {
    Settings {
        max_nodes: max_nodes(),
        ..Settings::default()
    }
}

fn run_with(jobs: usize, entries: &[Entry]) -> (Vec<Outcome>, f64) {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs)
        .build()
        .expect("a thread pool");
    let started = Instant::now();
    let outcomes = pool.install(|| batch::run(entries, &settings(), &|| {}));
    (outcomes, started.elapsed().as_secs_f64())
}

/// Everything an outcome says except the time it took.
fn fingerprint(o: &Outcome) -> String {
    let a = o.answer.as_ref();
    let c = a.map(|a| &a.clock);
    let max = c.map(|c| match c.max {
        MaxClock::Bounded(m) => m.to_string(),
        MaxClock::Unbounded => "inf".to_string(),
        MaxClock::Unknown { at_least } => format!("unknown>={at_least:?}"),
    });
    format!(
        "{} {:?} {} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?} {:?}",
        o.status,
        o.solver,
        o.reason,
        a.map(|a| a.verdict),
        a.map(|a| (a.possibly, a.necessarily)),
        c.map(|c| (c.min, c.min_lower_bound)),
        max,
        c.map(|c| c.parities),
        c.map(|c| c.complete),
        c.map(|c| c.nodes),
        c.map(|c| &c.values),
        a.and_then(|a| a.certificate.as_ref().map(|x| x.san.clone())),
        a.map(|a| &a.notes),
    )
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let count = env_number("BATCH_BENCH_POSITIONS")
        .map_or(if benching { 10_000 } else { 20 }, |n| n as usize);
    let text = positions(count, 0x5EED);
    let entries = batch::entries_from_text("random-games", &text);
    assert_eq!(entries.len(), count);
    assert!(
        entries.iter().all(|e| e.puzzle.is_ok()),
        "generated FENs read"
    );

    let (one, t1) = run_with(1, &entries);
    let (two, t2) = run_with(2, &entries);
    assert_eq!(one.len(), two.len());
    for (i, (a, b)) in one.iter().zip(&two).enumerate() {
        assert_eq!(
            fingerprint(a),
            fingerprint(b),
            "entry {i} differs between 1 and 2 jobs: {}",
            entries[i].source
        );
    }
    // Every position comes from a real (random) game with its real clock and fullmove number:
    // the solver must never prove it impossible.
    let mut verdicts = [0usize; 3];
    for (e, o) in entries.iter().zip(&one) {
        match o.answer.as_ref().map(|a| a.possibly) {
            Some(Finding::Proven(false)) => {
                panic!("a real position judged impossible: {}", e.source)
            }
            Some(f) if f.likely() == Some(true) => verdicts[0] += 1,
            _ => verdicts[1] += 1,
        }
    }
    let summary = batch::Summary::of(&one);
    println!(
        "batch: {count} positions, {} nodes each: 1 job {t1:.2} s, 2 jobs {t2:.2} s, \
         speedup {:.2}x, identical reports ({summary}; clock witnessed for {}, undecided for {})",
        max_nodes(),
        t1 / t2,
        verdicts[0],
        verdicts[1]
    );

    let slice = &entries[..entries.len().min(if benching { 100 } else { 5 })];
    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("batch_100_positions");
    group.sample_size(10);
    for jobs in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .expect("a thread pool");
        group.bench_function(format!("{jobs}_jobs"), |b| {
            b.iter(|| pool.install(|| black_box(batch::run(slice, &settings(), &|| {}))));
        });
    }
    group.finish();
    c.final_summary();
}
