//! Proof-game search: the per-band table over Euclide's corpus
//! (`../shared/corpus/euclide_proof_games.tsv`: problems solved within the time allowed and
//! the median time per band of lengths, beside Euclide's medians measured on the same machine),
//! then criterion timings of a few short problems, each checked for its known number of
//! solutions.
//!
//! Environment: `RETROCLOCK_CORPUS` overrides the corpus folder,
//! `RETROCLOCK_PROOFGAME_MAX_PLIES` the longest problem of the table (default 40, 0 skips it),
//! `RETROCLOCK_PROOFGAME_SECONDS` the time allowed per problem (default 10). The table is
//! run by `cargo bench` only, not when the bench runs as a test.

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use criterion::{Criterion, criterion_group, criterion_main};
use retroclock::proofgame::{Budget, Target, parse_san_line, proof_games, replay_reaches};
use shakmaty::{Board, Color};

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

/// Bands of lengths (plies, inclusive) with Euclide's median time in seconds (single
/// thread, 10 s per problem, measured on the same machine as the table).
const BANDS: &[(u32, u32, f64)] = &[
    (0, 8, 0.009),
    (9, 12, 0.010),
    (13, 16, 0.011),
    (17, 20, 0.015),
    (21, 24, 0.031),
    (25, 30, 0.025),
    (31, 40, 0.076),
];

/// One problem of the corpus: its name, target, length and what the reference says.
struct Problem {
    name: String,
    target: Target,
    plies: u32,
    /// The recorded count, `None` without a reference (an interrupted search).
    recorded: Option<u64>,
    /// Whether the recorded count is only a lower bound (a cooked problem).
    at_least: bool,
    /// The recorded games that replay.
    games: Vec<String>,
}

fn corpus() -> Option<Vec<Problem>> {
    let dir = std::env::var_os("RETROCLOCK_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    let text = std::fs::read_to_string(dir.join("euclide_proof_games.tsv")).ok()?;
    let mut lines = text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty());
    let header: Vec<&str> = lines.next()?.split('\t').collect();
    let col = |name: &str| header.iter().position(|c| *c == name).expect(name);
    let (set, index, placement, turn, plies, verdict, recorded, san) = (
        col("set"),
        col("index"),
        col("placement"),
        col("side_to_move"),
        col("half_moves"),
        col("euclide_verdict"),
        col("n_solutions_recorded"),
        col("solution_san"),
    );
    let mut out = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.split('\t').collect();
        let get = |i: usize| f.get(i).copied().unwrap_or("");
        let board: Board = get(placement).parse().expect("placement");
        let turn = if get(turn) == "b" {
            Color::Black
        } else {
            Color::White
        };
        let plies: u32 = get(plies).parse().expect("half_moves");
        let games: Vec<String> = get(san)
            .split("||")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        let illegal = games
            .iter()
            .filter(|g| g.starts_with("REPLAY_ILLEGAL"))
            .count() as u64;
        let verdict = get(verdict);
        out.push(Problem {
            name: format!("{} {} ({plies} plies)", get(set), get(index)),
            target: Target::new(board, turn),
            plies,
            recorded: (!verdict.starts_with("search interrupted")).then(|| {
                get(recorded)
                    .parse::<u64>()
                    .unwrap_or(0)
                    .saturating_sub(illegal)
            }),
            at_least: verdict.starts_with("cooked"),
            games: games
                .into_iter()
                .filter(|g| !g.starts_with("REPLAY_ILLEGAL"))
                .collect(),
        });
    }
    Some(out)
}

/// Runs every problem of the corpus up to the longest length asked for and prints the
/// per-band table. Panics on a count that is neither the reference's nor a proven disproof
/// of it (more games, every recorded one among them, each replayed).
fn band_table() {
    let max_plies: u32 = std::env::var("RETROCLOCK_PROOFGAME_MAX_PLIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(40);
    let seconds: f64 = std::env::var("RETROCLOCK_PROOFGAME_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10.0);
    // Only under `cargo bench` (not when `cargo test --benches` runs the bench as a test).
    if max_plies == 0 || !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let Some(problems) = corpus() else {
        eprintln!("proof-game table skipped: corpus not found");
        return;
    };
    println!("proof games, Euclide's corpus up to {max_plies} plies, {seconds} s per problem:");
    println!("plies   tried  solved  median s  Euclide s  ratio");
    for &(lo, hi, euclide) in BANDS {
        if lo > max_plies {
            break;
        }
        let mut times = Vec::new();
        let mut solved = 0;
        for p in problems.iter().filter(|p| (lo..=hi).contains(&p.plies)) {
            let budget = Budget {
                max_nodes: u64::MAX,
                deadline: Some(Instant::now() + Duration::from_secs_f64(seconds)),
                max_bytes: None,
            };
            let start = Instant::now();
            let r = proof_games(&p.target, p.plies, &budget, 1000);
            times.push(start.elapsed().as_secs_f64());
            assert!(
                r.games.iter().all(|g| replay_reaches(&p.target, g)),
                "{}: a game that does not replay",
                p.name
            );
            if !r.complete {
                continue;
            }
            solved += 1;
            let Some(expected) = p.recorded else {
                continue;
            };
            let recorded: Vec<_> = p.games.iter().filter_map(|g| parse_san_line(g)).collect();
            let all_listed = r.games.len() as u64 == r.count;
            let disproof =
                r.count > expected && all_listed && recorded.iter().all(|g| r.games.contains(g));
            assert!(
                r.count == expected || (p.at_least && r.count > expected) || disproof,
                "{}: {} proof games, the reference says {expected}",
                p.name,
                r.count
            );
        }
        if times.is_empty() {
            continue;
        }
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        println!(
            "{lo:>2}-{hi:<2}  {:>6}  {solved:>6}  {median:>8.3}  {euclide:>9.3}  {:>5.1}",
            times.len(),
            median / euclide
        );
    }
}

fn bench(c: &mut Criterion) {
    band_table();
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
