//! `games` throughput on the clean-chess corpus (`../shared/corpus/clean_chess`, or
//! `RETROCLOCK_CORPUS`): every game of its 387 files read and analysed (no-progress runs, maximum
//! clock, final FEN), as `retroclock games` does without `--verify`. Printed: games per second
//! for reading alone and for reading with the reports, best of the rounds; a criterion group
//! then times the whole for regression tracking.
//!
//! When the reader moved to pgn-reader (commit e8e8494), this bench timed both readers in one
//! run, alternated, best of 15 rounds on the 2-core machine (its own `benches/baseline` copy of
//! the hand-written reader, removed since): reading 5,001 games/s hand-written against 7,654 with
//! pgn-reader (1.53x), reading and reporting 1,483 against 1,596 games/s (1.08x); an earlier run
//! gave 1.82x and 1.21x. The reports were identical, game for game.
//!
//! `cargo bench --bench games`. Without `--bench` (as `cargo test --benches` runs it) one round
//! is timed and criterion runs each benchmark once. Without the corpus the bench says so and
//! stops.

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    time::Instant,
};

use criterion::Criterion;
use retroclock::{
    games::{ReplayOptions, analyse_game},
    pgn::parse_pgn,
    rules::Convention,
};

fn corpus_files() -> Option<Vec<(PathBuf, String)>> {
    let root = std::env::var_os("RETROCLOCK_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    let dir = root.join("clean_chess");
    let mut paths = Vec::new();
    let mut stack = vec![dir.clone()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).ok()?.flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "pgn") {
                paths.push(path);
            }
        }
    }
    paths.sort();
    let files: Vec<(PathBuf, String)> = paths
        .into_iter()
        .filter_map(|p| std::fs::read_to_string(&p).ok().map(|t| (p, t)))
        .collect();
    (!files.is_empty()).then_some(files)
}

/// Reads every file with the crate's reader; the number of games read.
fn read_all(files: &[(PathBuf, String)]) -> usize {
    files
        .iter()
        .map(|(_, t)| black_box(parse_pgn(t)).iter().flatten().count())
        .sum()
}

/// Reads and analyses every file: each game's report as JSON.
fn games_all(files: &[(PathBuf, String)]) -> Vec<String> {
    let options = ReplayOptions {
        convention: Convention::Fide,
        ..ReplayOptions::default()
    };
    let mut reports = Vec::new();
    for (_, text) in files {
        for game in parse_pgn(text).into_iter().flatten() {
            let report = analyse_game(&game, &options).expect("corpus games replay");
            reports.push(serde_json::to_string(&report).expect("a report serialises"));
        }
    }
    reports
}

/// The best time of `rounds` runs of `f`, in seconds.
fn best(rounds: usize, mut f: impl FnMut()) -> f64 {
    (0..rounds)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min)
}

fn main() {
    let benching = std::env::args().any(|a| a == "--bench");
    let Some(files) = corpus_files() else {
        eprintln!("skipped: corpus not found (set RETROCLOCK_CORPUS to the corpus folder)");
        return;
    };
    let bytes: usize = files.iter().map(|(_, t)| t.len()).sum();

    let reports = games_all(&files);
    assert_eq!(reports.len(), 387, "clean-chess has 387 games");
    let games = reports.len();
    assert_eq!(read_all(&files), games);

    let rounds = if benching { 15 } else { 1 };
    let read_s = best(rounds, || {
        black_box(read_all(&files));
    });
    let all_s = best(rounds, || {
        black_box(games_all(&files));
    });
    println!(
        "games: clean-chess, {games} games in {} files ({:.1} MB), best of {rounds} rounds: \
         read {:.0} games/s, read + report {:.0} games/s",
        files.len(),
        bytes as f64 / 1e6,
        games as f64 / read_s,
        games as f64 / all_s
    );

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("games_clean_chess");
    group.sample_size(10);
    group.bench_function("read_and_report", |b| {
        b.iter(|| black_box(games_all(&files)))
    });
    group.finish();
    c.final_summary();
}
