//! Proof-game search on a few short problems (Euclide's corpus), each checked for
//! its known number of solutions.

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use retroclock::proofgame::{Budget, Target, proof_games};

/// (name, target, plies, number of proof games)
const PROBLEMS: &[(&str, &str, u32, u64)] = &[
    (
        "single-capture 3 (5 plies)",
        "rnbqkb1r/ppBppppp/8/3n4/3P4/8/PPP1PPPP/RN1QKBNR b",
        5,
        1,
    ),
    (
        "no-captures 1 (6 plies)",
        "rnb1kbnr/pppp1ppp/8/4p3/3q4/4KP2/PPPPP1PP/RNBQ1BNR w",
        6,
        1,
    ),
    (
        "natch twin_squares_double_queen (7 plies)",
        "1nbqkbnr/Qpppppp1/r7/p6p/2P5/8/PP1PPPPP/RNB1KBNR b",
        7,
        6,
    ),
    (
        "no-captures 15 (13 plies)",
        "rnbq1bnr/pppp1ppp/4pB2/8/4N3/kPP5/P2PPPPP/R1Q1KBNR b",
        13,
        1,
    ),
];

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("proof_games");
    group.sample_size(10);
    for &(name, fen, plies, expected) in PROBLEMS {
        let target = Target::from_fen(fen).expect("valid target");
        group.bench_function(name, |b| {
            b.iter(|| {
                let r = proof_games(black_box(&target), plies, &Budget::UNLIMITED, 10);
                assert!(r.complete);
                assert_eq!(r.count, expected, "{name}");
                r
            })
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
