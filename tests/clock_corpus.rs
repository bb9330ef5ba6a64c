//! Soundness of the clock solver on real games: for the position after every ply of every
//! clean-chess corpus game that starts from the initial array (FIDE convention, position given
//! without its clock), the real clock lies inside the proven bounds and `clock=<real>` is never
//! answered "no"; nor is the `fen` question about its real clock and fullmove number. Also every
//! retraction of every such position replays forward.
//!
//! Skipped, with a message, when the corpus folder is absent.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use retroclock::{
    certify::Proofs,
    clock::{Budget, MaxClock, Standing, solve_clock},
    pgn::parse_pgn,
    position::{Position, PositionInput},
    retract::retractions,
    rules::{Convention, Rules},
    stipulation::Stipulation,
    verdict::{Verdict, decide},
    verify::check_retraction,
};
use shakmaty::Position as _;

fn corpus_dir() -> PathBuf {
    let root = std::env::var_os("RETROCLOCK_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    root.join("clean_chess")
}

fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = entries.flatten().map(|e| e.path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            pgn_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "pgn") {
            out.push(path);
        }
    }
}

/// (file, ply, FEN of the position, its real FIDE clock)
type Sample = (String, usize, Position, u64);

fn corpus_positions() -> Option<Vec<Sample>> {
    let dir = corpus_dir();
    if !dir.is_dir() {
        eprintln!("skipped: corpus not found at {}", dir.display());
        return None;
    }
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    let mut out = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).expect("readable corpus file");
        let name = file
            .strip_prefix(&dir)
            .unwrap_or(&file)
            .display()
            .to_string();
        for game in parse_pgn(&text).into_iter().flatten() {
            if game.from_fen {
                continue;
            }
            let mut chess = game.start.clone();
            let mut clock = 0u64;
            out.push((name.clone(), 0, Position::from_chess(&chess), 0));
            for (ply, m) in game.moves.iter().enumerate() {
                clock = if Convention::Fide.resets(&m.mv) {
                    0
                } else {
                    clock + 1
                };
                chess.play_unchecked(m.mv);
                out.push((name.clone(), ply + 1, Position::from_chess(&chess), clock));
            }
        }
    }
    Some(out)
}

#[test]
fn real_clocks_lie_inside_the_proven_bounds() {
    let Some(samples) = corpus_positions() else {
        return;
    };
    let step = if cfg!(debug_assertions) { 25 } else { 1 };
    let samples: Vec<&Sample> = samples.iter().step_by(step).collect();
    let budget = Budget {
        max_nodes: 150,
        chain_budget: 2_000,
        ..Budget::default()
    };
    struct Tally {
        failures: Vec<String>,
        min_known: usize,
        min_equals_real: usize,
        max_decided: usize,
        retractions: usize,
    }
    let tallies: Vec<Tally> = samples
        .par_iter()
        .map(|(file, ply, pos, real)| {
            let mut t = Tally {
                failures: Vec::new(),
                min_known: 0,
                min_equals_real: 0,
                max_decided: 0,
                retractions: 0,
            };
            for r in retractions(pos) {
                t.retractions += 1;
                if let Err(e) = check_retraction(pos, &r.predecessor, r.mv) {
                    t.failures.push(format!(
                        "{file} ply {ply}: retraction {} does not replay: {e}",
                        r.uci()
                    ));
                }
            }
            let input = PositionInput::parse(&pos.fen4()).expect("own FEN parses");
            let c = solve_clock(&input, Rules::Fide, &budget, &|_| {});
            let fen = pos.fen4();
            if matches!(c.standing, Standing::Illegal(_) | Standing::NoHistory) {
                t.failures.push(format!(
                    "{file} ply {ply}: {fen} judged impossible ({:?})",
                    c.standing
                ));
            }
            if *real < c.min_lower_bound {
                t.failures.push(format!(
                    "{file} ply {ply}: {fen} real clock {real} below proven minimum {}",
                    c.min_lower_bound
                ));
            }
            if let MaxClock::Bounded(m) = c.max
                && *real > m
            {
                t.failures.push(format!(
                    "{file} ply {ply}: {fen} real clock {real} above proven maximum {m}"
                ));
            }
            if c.value_possible(*real) == Some(false) {
                t.failures
                    .push(format!("{file} ply {ply}: {fen} clock={real} answered no"));
            }
            if c.min.is_some() {
                t.min_known += 1;
            }
            if c.min == Some(*real) {
                t.min_equals_real += 1;
            }
            if !matches!(c.max, MaxClock::Unknown { .. }) {
                t.max_decided += 1;
            }
            // The FEN with its real clock and fullmove number is never answered "no" (the
            // fullmove number is checked against the proof-game bounds, whose required-moves
            // analysis is costly: every fourth ply of each game).
            if ply % 4 == 0 {
                let full = format!("{fen} {real} {}", ply / 2 + 1);
                let input = PositionInput::parse(&full).expect("own FEN parses");
                let answer = decide(Stipulation::Fen, &input, c, Proofs::default());
                if answer.verdict == Verdict::No {
                    t.failures.push(format!(
                        "{file} ply {ply}: {full} answered no: {:?}",
                        answer.notes
                    ));
                }
            }
            t
        })
        .collect();
    let failures: Vec<&String> = tallies.iter().flat_map(|t| &t.failures).collect();
    let sum = |f: fn(&Tally) -> usize| tallies.iter().map(f).sum::<usize>();
    eprintln!(
        "clock soundness on the corpus: {} positions, {} retractions replayed, min proven {} times (equal to the real clock {} times), max decided {} times, {} failures",
        samples.len(),
        sum(|t| t.retractions),
        sum(|t| t.min_known),
        sum(|t| t.min_equals_real),
        sum(|t| t.max_decided),
        failures.len()
    );
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} soundness failures", failures.len());
    assert!(samples.len() > 100);
}
