//! Proof-game search against the problems and solutions recorded by the Euclide
//! solver (`../shared/corpus/euclide_proof_games.tsv`).
//!
//! Environment: `RETROCLOCK_CORPUS` overrides the corpus folder;
//! `RETROCLOCK_PROOFGAME_MAX_PLIES` the longest problem tried (default below);
//! `RETROCLOCK_PROOFGAME_ONLY=set:index,...` runs only the named problems;
//! `RETROCLOCK_PROOFGAME_SECONDS` the time allowed per problem.

use std::{
    collections::{BTreeMap, HashSet},
    path::{Path, PathBuf},
    time::{Duration, Instant},
};

use retroclock::proofgame::{
    Budget, MAX_PLIES, Target, parse_san_line, proof_games, replay_reaches, search_keeps,
};
use shakmaty::{Board, Color, Move};

/// Longest problem (in plies) tried by default: the whole test takes about a minute
/// and a half in release on one core (the problems not solved within their time take
/// most of it); debug builds are far slower, so they stop earlier.
const DEFAULT_MAX_PLIES: u32 = if cfg!(debug_assertions) { 12 } else { 30 };
/// Time allowed per problem.
const TIME_PER_PROBLEM: Duration = Duration::from_secs(10);
/// Budget-outs are failures up to this length.
const MUST_FINISH_PLIES: u32 = 8;
/// Games collected per problem (enough to compare every recorded solution set).
const COLLECT_LIMIT: usize = 20_000;

fn corpus_dir() -> PathBuf {
    match std::env::var_os("RETROCLOCK_CORPUS") {
        Some(dir) => PathBuf::from(dir),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
    }
}

struct Row {
    set: String,
    index: String,
    placement: String,
    turn: Color,
    plies: u32,
    verdict: String,
    recorded: u64,
    /// Recorded solutions that replay legally.
    solutions: Vec<String>,
    /// Recorded solutions marked illegal by the corpus.
    illegal: u64,
}

fn parse_rows(text: &str) -> Vec<Row> {
    let mut header: Option<Vec<&str>> = None;
    let mut rows = Vec::new();
    for line in text.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let fields: Vec<&str> = line.split('\t').collect();
        let Some(h) = &header else {
            header = Some(fields);
            continue;
        };
        let col = |name: &str| -> &str {
            let i = h
                .iter()
                .position(|c| *c == name)
                .unwrap_or_else(|| panic!("corpus header lacks column {name}"));
            fields.get(i).copied().unwrap_or("")
        };
        let mut solutions = Vec::new();
        let mut illegal = 0;
        for s in col("solution_san").split("||") {
            let s = s.trim();
            if s.is_empty() {
                continue;
            }
            if s.starts_with("REPLAY_ILLEGAL") {
                illegal += 1;
            } else {
                solutions.push(s.to_string());
            }
        }
        rows.push(Row {
            set: col("set").to_string(),
            index: col("index").to_string(),
            placement: col("placement").to_string(),
            turn: if col("side_to_move") == "b" {
                Color::Black
            } else {
                Color::White
            },
            plies: col("half_moves").parse().expect("half_moves"),
            verdict: col("euclide_verdict").to_string(),
            recorded: col("n_solutions_recorded").parse().unwrap_or(0),
            solutions,
            illegal,
        });
    }
    rows
}

#[derive(Default)]
struct LengthStats {
    problems: usize,
    with_reference: usize,
    exact: usize,
    budget_out: usize,
    disproved: usize,
    times: Vec<Duration>,
}

#[test]
fn euclide_proof_games() {
    let dir = corpus_dir();
    let file = dir.join("euclide_proof_games.tsv");
    let Ok(text) = std::fs::read_to_string(&file) else {
        eprintln!("skipped: corpus not found at {}", file.display());
        return;
    };
    let max_plies: u32 = std::env::var("RETROCLOCK_PROOFGAME_MAX_PLIES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_MAX_PLIES);
    // `set:index` (comma separated) restricts the run to those problems.
    let only: Option<Vec<String>> = std::env::var("RETROCLOCK_PROOFGAME_ONLY")
        .ok()
        .map(|v| v.split(',').map(str::to_string).collect());
    let time_per_problem = std::env::var("RETROCLOCK_PROOFGAME_SECONDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .map_or(TIME_PER_PROBLEM, Duration::from_secs_f64);
    let rows = parse_rows(&text);
    assert!(!rows.is_empty(), "no rows in {}", file.display());

    let mut stats: BTreeMap<u32, LengthStats> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut reports = Vec::new();
    let mut lines = Vec::new();
    let selected = |r: &&Row| match &only {
        Some(list) => list.contains(&format!("{}:{}", r.set, r.index)),
        None => r.plies <= max_plies,
    };
    for row in rows.iter().filter(selected) {
        let name = format!("{} {} ({} plies)", row.set, row.index, row.plies);
        let board: Board = row.placement.parse().expect("placement");
        let target = Target::new(board, row.turn);
        let budget = Budget {
            max_nodes: u64::MAX,
            deadline: Some(Instant::now() + time_per_problem),
            max_bytes: None,
        };
        let start = Instant::now();
        let result = proof_games(&target, row.plies, &budget, COLLECT_LIMIT);
        let elapsed = start.elapsed();
        let st = stats.entry(row.plies).or_default();
        st.problems += 1;
        st.times.push(elapsed);
        lines.push(format!(
            "{}\t{}\t{}\t{}\t{}\t{:.4}\t{}",
            row.set,
            row.index,
            row.plies,
            result.count,
            if result.complete {
                "complete"
            } else {
                "incomplete"
            },
            elapsed.as_secs_f64(),
            result.nodes
        ));

        for (g, san) in result.games.iter().zip(&result.san) {
            if !replay_reaches(&target, g) {
                failures.push(format!("{name}: returned game does not replay: {san}"));
            }
        }
        let ours: HashSet<Vec<Move>> = result.games.iter().cloned().collect();
        if ours.len() != result.games.len() {
            failures.push(format!("{name}: duplicate games returned"));
        }
        let mut recorded_games = Vec::new();
        for s in &row.solutions {
            match parse_san_line(s) {
                Some(g) if replay_reaches(&target, &g) => recorded_games.push(g),
                _ => failures.push(format!("{name}: recorded solution does not replay: {s}")),
            }
        }
        if !result.complete {
            st.budget_out += 1;
            reports.push(format!(
                "{name}: budget out after {:.1}s, {} nodes, at least {} games",
                elapsed.as_secs_f64(),
                result.nodes,
                result.count
            ));
            if row.plies <= MUST_FINISH_PLIES {
                failures.push(format!("{name}: budget out"));
            }
        }
        // A complete count found no fewer games than the recorded ones, and (when
        // all were collected) each recorded game is among them.
        let all_collected = result.games.len() as u64 == result.count;
        for g in &recorded_games {
            if result.complete && all_collected && !ours.contains(g) {
                failures.push(format!(
                    "{name}: recorded solution missing: {}",
                    retroclock::proofgame::san_line(g)
                ));
            }
        }
        if row.verdict.starts_with("search interrupted") {
            reports.push(format!(
                "{name}: no reference; found {} games{} in {:.2}s",
                result.count,
                if result.complete { "" } else { " (incomplete)" },
                elapsed.as_secs_f64()
            ));
            continue;
        }
        st.with_reference += 1;
        let expected = row.recorded.saturating_sub(row.illegal);
        // 'cooked' rows list the games Euclide printed before stopping: a lower bound.
        let lower_bound_only = row.verdict.starts_with("cooked");
        if !result.complete {
            continue;
        }
        let count_ok = if lower_bound_only {
            result.count >= expected
        } else {
            result.count == expected
        };
        let set_ok = if lower_bound_only || !all_collected {
            recorded_games.iter().all(|g| ours.contains(g)) || !all_collected
        } else {
            let theirs: HashSet<Vec<Move>> = recorded_games.iter().cloned().collect();
            theirs == ours
        };
        // More games than recorded, each listed, distinct and replayed above: the
        // reference itself is provably incomplete (the extra games are proof games).
        let reference_disproved = !count_ok
            && result.count > expected
            && all_collected
            && recorded_games.iter().all(|g| ours.contains(g));
        if reference_disproved {
            st.disproved += 1;
            let extra: Vec<String> = result
                .games
                .iter()
                .filter(|g| !recorded_games.contains(g))
                .map(|g| retroclock::proofgame::san_line(g))
                .collect();
            reports.push(format!(
                "{name}: reference says {} ({expected}); replayed proof games not in it: {extra:?}",
                row.verdict
            ));
        } else if count_ok && set_ok {
            st.exact += 1;
            if lower_bound_only {
                reports.push(format!(
                    "{name}: cooked, Euclide listed {expected}, we count {}",
                    result.count
                ));
            }
        } else {
            failures.push(format!(
                "{name}: count {} (expected {}{expected}), games {:?}",
                result.count,
                if lower_bound_only { ">= " } else { "" },
                result.san.iter().take(5).collect::<Vec<_>>()
            ));
        }
    }

    eprintln!("set\tindex\tplies\tcount\tcomplete\tseconds\tnodes");
    for l in &lines {
        eprintln!("{l}");
    }
    eprintln!(
        "proof-game corpus ({}), up to {max_plies} plies:",
        file.display()
    );
    eprintln!("plies  problems  with_ref  exact  ref_disproved  budget_out  median_s");
    for (plies, st) in &mut stats {
        st.times.sort();
        let median = st.times[st.times.len() / 2].as_secs_f64();
        eprintln!(
            "{plies:>5}  {:>8}  {:>8}  {:>5}  {:>13}  {:>10}  {median:>8.3}",
            st.problems, st.with_reference, st.exact, st.disproved, st.budget_out
        );
    }
    for r in &reports {
        eprintln!("  {r}");
    }
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
}

/// Every recorded solution of every problem (whatever its length, up to the search's own
/// limit) is walked through the search towards its diagram: no pruning rule may cut a real
/// proof game at any ply. Cheap (no search), so it covers the long problems that the count
/// above cannot finish.
#[test]
fn recorded_solutions_are_never_pruned() {
    let file = corpus_dir().join("euclide_proof_games.tsv");
    let Ok(text) = std::fs::read_to_string(&file) else {
        eprintln!("skipped: corpus not found at {}", file.display());
        return;
    };
    let mut walked = 0;
    let mut failures = Vec::new();
    for row in parse_rows(&text) {
        let board: Board = row.placement.parse().expect("placement");
        let target = Target::new(board, row.turn);
        for s in &row.solutions {
            let Some(game) = parse_san_line(s) else {
                continue; // not a legal game: the count test reports it
            };
            if !replay_reaches(&target, &game) || game.len() as u32 > MAX_PLIES {
                continue;
            }
            walked += 1;
            if let Err(why) = search_keeps(&target, &game) {
                failures.push(format!("{} {}: {why}: {s}", row.set, row.index));
            }
        }
    }
    eprintln!("recorded solutions walked through the search: {walked}");
    for f in &failures {
        eprintln!("FAIL {f}");
    }
    assert!(
        failures.is_empty(),
        "{} recorded solutions pruned",
        failures.len()
    );
    assert!(walked >= 150, "only {walked} recorded solutions walked");
}
