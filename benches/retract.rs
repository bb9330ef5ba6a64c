//! Retractions per second: the engine against retroboard's raw `legal_unmoves` (pockets from
//! the material) and against shakmaty's forward move generation, on the same positions, with
//! the ratios printed from one run.
//!
//! The engine is timed as it produces its retractions: handed to a visitor
//! (`visit_retractions`), the form every search takes them in, as retroboard's raw generation
//! produces its unmoves into its own list. It is timed a second time collecting them into a
//! `Vec<Retraction>` (`retractions`), which adds a copy of every 96-byte retraction; retroboard's
//! list holds unmoves (two squares and a kind), no positions. Both counts are checked, and the
//! visitor must hand over the same retractions as the list, so a fast wrong answer fails.

use std::{hint::black_box, time::Instant};

use criterion::Criterion;
use retroclock::{
    position::Position,
    retract::{Filter, retractions, visit_retractions},
    retroboard_fix,
};
use shakmaty::{Chess, Position as _};

/// Positions from seeded random games that retroboard can take (no e.p. square).
fn positions() -> Vec<Position> {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        state ^= state >> 12;
        state ^= state << 25;
        state ^= state >> 27;
        state.wrapping_mul(0x2545_F491_4F6C_DD1D)
    };
    let mut out = Vec::new();
    while out.len() < 1500 {
        let mut chess = Chess::default();
        for ply in 0..160 {
            let moves = chess.legal_moves();
            if moves.is_empty() {
                break;
            }
            chess.play_unchecked(moves[(next() % moves.len() as u64) as usize]);
            let pos = Position::from_chess(&chess);
            if ply % 7 == 3 && retroboard_fix::prepared(&pos).is_some() {
                out.push(pos);
            }
        }
    }
    out
}

/// Items per second of `run` (which must return `count`) in one timed round of a few
/// repetitions.
fn round_rate(label: &str, count: usize, run: &dyn Fn() -> usize) -> f64 {
    let reps = 5;
    let started = Instant::now();
    for _ in 0..reps {
        assert_eq!(black_box(run()), count, "{label}: wrong count");
    }
    (count * reps) as f64 / started.elapsed().as_secs_f64()
}

/// The best rate of each generator over interleaved rounds: other work on the machine only
/// ever slows a round down, and interleaving exposes every generator to the same spells of it.
fn best_rates(generators: &[(&str, usize, &dyn Fn() -> usize)]) -> Vec<f64> {
    let mut best = vec![0f64; generators.len()];
    for _ in 0..7 {
        for (b, &(label, count, run)) in best.iter_mut().zip(generators) {
            *b = b.max(round_rate(label, count, run));
        }
    }
    for (&(label, _, _), rate) in generators.iter().zip(&best) {
        println!("{label:<34} {rate:>14.0} per second");
    }
    best
}

fn main() {
    let positions = positions();
    let prepared: Vec<_> = positions
        .iter()
        .map(|p| retroboard_fix::prepared(p).expect("filtered above"))
        .collect();
    let chess: Vec<Chess> = positions
        .iter()
        .map(|p| p.to_chess().expect("valid"))
        .collect();
    let engine_count: usize = positions.iter().map(|p| retractions(p).len()).sum();
    let raw_count: usize = prepared.iter().map(|r| r.unmove_count()).sum();
    let forward_count: usize = chess.iter().map(|c| c.legal_moves().len()).sum();
    // Every engine retraction replays (checked once, outside the timing).
    for p in positions.iter().take(200) {
        for r in retractions(p) {
            retroclock::verify::check_retraction(p, &r.predecessor, r.mv).expect("replays");
        }
    }
    // The visitor is handed the same retractions as the list, in the same order.
    for p in &positions {
        let listed = retractions(p);
        let mut visited = Vec::new();
        visit_retractions(p, Filter::All, |r| {
            visited.push(r.clone());
            true
        });
        assert_eq!(visited, listed, "visitor and list differ on {}", p.fen4());
    }

    let mut c = Criterion::default().configure_from_args().sample_size(10);
    let mut group = c.benchmark_group("retractions");
    group.bench_function("engine", |b| b.iter(|| visitor_count(&positions)));
    group.bench_function("engine_list", |b| {
        b.iter(|| {
            positions
                .iter()
                .map(|p| retractions(p).len())
                .sum::<usize>()
        })
    });
    group.bench_function("retroboard_raw", |b| {
        b.iter(|| prepared.iter().map(|r| r.unmove_count()).sum::<usize>())
    });
    group.bench_function("shakmaty_forward", |b| {
        b.iter(|| chess.iter().map(|c| c.legal_moves().len()).sum::<usize>())
    });
    group.finish();

    println!(
        "\n{} positions from random games, best of 7 interleaved rounds",
        positions.len()
    );
    let visitor_run = || visitor_count(&positions);
    let list_run = || positions.iter().map(|p| retractions(p).len()).sum();
    let raw_run = || prepared.iter().map(|r| r.unmove_count()).sum();
    let forward_run = || chess.iter().map(|c| c.legal_moves().len()).sum();
    let rates = best_rates(&[
        ("engine retractions", engine_count, &visitor_run),
        ("engine retractions into a Vec", engine_count, &list_run),
        ("retroboard raw legal_unmoves", raw_count, &raw_run),
        ("shakmaty forward legal moves", forward_count, &forward_run),
    ]);
    let (engine, listed, raw, forward) = (rates[0], rates[1], rates[2], rates[3]);
    println!("engine / retroboard raw: {:.2}x", engine / raw);
    println!("engine into a Vec / retroboard raw: {:.2}x", listed / raw);
    println!("engine / shakmaty forward: {:.2}x", engine / forward);
    println!(
        "(the engine builds and checks every predecessor position and hands it to a visitor; \
         into a Vec, each 96-byte retraction is copied as well; retroboard returns unmoves only; \
         counts: engine {engine_count}, retroboard {raw_count})"
    );
}

/// The engine's retractions of every position, handed to a visitor as the searches take them
/// (no list is built): their number.
fn visitor_count(positions: &[Position]) -> usize {
    let mut n = 0;
    for p in positions {
        visit_retractions(p, Filter::All, |r| {
            black_box(r);
            n += 1;
            true
        });
    }
    n
}
