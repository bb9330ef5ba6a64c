//! `games` throughput on the clean-chess corpus (`../shared/corpus/clean_chess`, or
//! `RETROCLOCK_CORPUS`): every game of its 387 files read and analysed (no-progress runs, maximum
//! clock, final FEN), as `retroclock games` does without `--verify`.
//!
//! Two readers are timed in one run, alternated: the crate's (pgn-reader) and the hand-written
//! reader it replaced (`benches/baseline/pgn_handwritten.rs`). Their reports must be identical,
//! game for game. The figures printed are games per second for reading alone and for reading
//! with the analysis, best of the rounds. A criterion group then times the crate's reader.
//!
//! `cargo bench --bench games`. Without `--bench` (as `cargo test --benches` runs it) one round
//! is timed and criterion runs each benchmark once. Without the corpus the bench says so and
//! stops.

#[allow(dead_code)]
#[path = "baseline/pgn_handwritten.rs"]
mod pgn_handwritten;

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    time::Instant,
};

use criterion::Criterion;
use retroclock::{
    games::{ReplayOptions, analyse_game},
    pgn::{Game, GameMove, GameResult, parse_pgn},
    rules::Convention,
};
use shakmaty::san::{San, SanPlus};

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

/// The baseline's game as the crate's type (the same fields but the SAN and the lines of the
/// moves), for the analysis.
fn from_baseline(g: pgn_handwritten::Game) -> Game {
    let result = g.result.map(|r| match r {
        pgn_handwritten::GameResult::WhiteWins => GameResult::WhiteWins,
        pgn_handwritten::GameResult::BlackWins => GameResult::BlackWins,
        pgn_handwritten::GameResult::Draw => GameResult::Draw,
        pgn_handwritten::GameResult::Unknown => GameResult::Unknown,
    });
    Game {
        number: g.number,
        line: g.line,
        tags: g.tags,
        castling_mode: g.castling_mode,
        start: g.start,
        from_fen: g.from_fen,
        moves: g
            .moves
            .into_iter()
            // The report does not read the SAN (only a replay error would): a placeholder keeps
            // the conversion out of the baseline's time.
            .map(|m| GameMove {
                mv: m.mv,
                san: SanPlus {
                    san: San::Null,
                    suffix: None,
                },
            })
            .collect(),
        result,
    }
}

/// The games of every file by one reader (errors dropped: the corpus has none).
type Read = fn(&str) -> Vec<Game>;

fn read_new(text: &str) -> Vec<Game> {
    parse_pgn(text).into_iter().flatten().collect()
}

fn read_baseline(text: &str) -> Vec<Game> {
    pgn_handwritten::parse_pgn(text)
        .into_iter()
        .flatten()
        .map(from_baseline)
        .collect()
}

/// Reads every file with the crate's reader; the number of games read.
fn read_all_new(files: &[(PathBuf, String)]) -> usize {
    files
        .iter()
        .map(|(_, t)| black_box(parse_pgn(t)).iter().flatten().count())
        .sum()
}

/// Reads every file with the baseline; the number of games read.
fn read_all_baseline(files: &[(PathBuf, String)]) -> usize {
    files
        .iter()
        .map(|(_, t)| {
            black_box(pgn_handwritten::parse_pgn(t))
                .iter()
                .flatten()
                .count()
        })
        .sum()
}

/// Reads and analyses every file: each game's report as JSON.
fn games_all(files: &[(PathBuf, String)], read: Read) -> Vec<String> {
    let options = ReplayOptions {
        convention: Convention::Fide,
        ..ReplayOptions::default()
    };
    let mut reports = Vec::new();
    for (_, text) in files {
        for game in read(text) {
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

    // Same games, same reports.
    let new = games_all(&files, read_new);
    let old = games_all(&files, read_baseline);
    assert_eq!(new.len(), 387, "clean-chess has 387 games");
    assert_eq!(new, old, "the two readers' reports differ");
    let games = new.len();
    assert_eq!(read_all_new(&files), games);
    assert_eq!(read_all_baseline(&files), games);

    // Alternated rounds: each reader's best.
    let rounds = if benching { 15 } else { 1 };
    let (mut read_old_s, mut read_new_s, mut all_old_s, mut all_new_s) =
        (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
    for _ in 0..rounds {
        read_old_s = read_old_s.min(best(1, || {
            black_box(read_all_baseline(&files));
        }));
        read_new_s = read_new_s.min(best(1, || {
            black_box(read_all_new(&files));
        }));
        all_old_s = all_old_s.min(best(1, || {
            black_box(games_all(&files, read_baseline));
        }));
        all_new_s = all_new_s.min(best(1, || {
            black_box(games_all(&files, read_new));
        }));
    }
    let per_s = |s: f64| games as f64 / s;
    println!(
        "games: clean-chess, {games} games in {} files ({:.1} MB), best of {rounds} alternated rounds",
        files.len(),
        bytes as f64 / 1e6
    );
    println!(
        "  read only:     hand-written {:.0} games/s, pgn-reader {:.0} games/s ({:.2}x)",
        per_s(read_old_s),
        per_s(read_new_s),
        read_old_s / read_new_s
    );
    println!(
        "  read + report: hand-written {:.0} games/s, pgn-reader {:.0} games/s ({:.2}x)",
        per_s(all_old_s),
        per_s(all_new_s),
        all_old_s / all_new_s
    );

    let mut c = Criterion::default().configure_from_args();
    let mut group = c.benchmark_group("games_clean_chess");
    group.sample_size(10);
    group.bench_function("read_and_report", |b| {
        b.iter(|| black_box(games_all(&files, read_new)))
    });
    group.finish();
    c.final_summary();
}
