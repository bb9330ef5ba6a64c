//! Soundness of the Codex reading of an unknown castling field on random games: for positions of
//! seeded random games (many steered to keep or use their castling rights), given with `?` for
//! castling, the real rights are never refuted, some alternative holds them all, and where the
//! reading holds exactly the real rights the real clock lies inside the proven bounds.

mod common;

use common::{
    oracle::setup_fen,
    positions::{Steer, random_games},
};
use rayon::prelude::*;
use retroclock::{
    clock::{Budget, MaxClock, solve_clock},
    codex::{RightsFinding, narrowed, read_castling},
    position::{PositionInput, castling_string},
    rules::{Convention, Rules},
};

#[test]
fn the_codex_reading_never_refutes_the_real_rights() {
    let (games, every) = if cfg!(debug_assertions) {
        (3, 9)
    } else {
        (24, 4)
    };
    let mut samples = Vec::new();
    for (steer, seed) in [(Steer::Castling, 0xc0de_c0de), (Steer::Quiet, 0xc0de_0001)] {
        for (game, plies) in random_games(games, 120, seed, steer)
            .into_iter()
            .enumerate()
        {
            let mut clock = 0u64;
            for (k, ply) in plies.iter().enumerate() {
                clock = if Convention::Fide.resets(&ply.mv) {
                    0
                } else {
                    clock + 1
                };
                if k % every == every - 1 {
                    let fen = setup_fen(&ply.after);
                    let fields: Vec<&str> = fen.split(' ').collect();
                    let real = PositionInput::parse(&fields[..4].join(" "))
                        .expect("own FEN parses")
                        .castling
                        .known()
                        .expect("castling given");
                    let unknown = format!("{} {} ? {}", fields[0], fields[1], fields[3]);
                    samples.push((game, k + 1, unknown, real, clock));
                }
            }
        }
    }
    let budget = Budget {
        max_nodes: 3_000,
        ..Budget::default()
    };
    let results: Vec<(Vec<String>, bool, bool)> = samples
        .par_iter()
        .map(|(game, ply, fen, real, clock)| {
            let tag = format!(
                "game {game} ply {ply} {fen} (real rights {}, FIDE clock {clock})",
                castling_string(*real)
            );
            let mut failures = Vec::new();
            let input = PositionInput::parse(fen).expect("own FEN parses");
            let reading = read_castling(&input, Rules::Fide, &budget, None, &|_, _| {})
                .expect("the castling field is unknown");
            for (set, finding) in &reading.sets {
                if *set == *real && matches!(finding, RightsFinding::Refuted(_)) {
                    failures.push(format!("{tag}: the real rights are refuted: {finding:?}"));
                }
            }
            if !reading
                .alternatives
                .iter()
                .any(|a| (*real & !*a).is_empty())
            {
                failures.push(format!(
                    "{tag}: no alternative holds the real rights: {:?}",
                    reading
                        .alternatives
                        .iter()
                        .map(|&a| castling_string(a))
                        .collect::<Vec<_>>()
                ));
            }
            let exact = reading.settled() && reading.alternatives == [*real];
            if exact {
                let c = solve_clock(&narrowed(&input, &reading), Rules::Fide, &budget, &|_| {});
                if *clock < c.min_lower_bound {
                    failures.push(format!(
                        "{tag}: below the proven minimum {}",
                        c.min_lower_bound
                    ));
                }
                if let MaxClock::Bounded(m) = c.max
                    && *clock > m
                {
                    failures.push(format!("{tag}: above the proven maximum {m}"));
                }
            }
            (failures, exact, real.any())
        })
        .collect();
    let failures: Vec<&String> = results.iter().flat_map(|r| &r.0).collect();
    let exact = results.iter().filter(|r| r.1).count();
    let with_rights = results.iter().filter(|r| r.2).count();
    eprintln!(
        "codex reading on random games: {} positions ({with_rights} with castling rights), the reading holds exactly the real rights in {exact}, {} failures",
        samples.len(),
        failures.len()
    );
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} failures", failures.len());
    assert!(
        with_rights > samples.len() / 4,
        "{with_rights} of {}",
        samples.len()
    );
    assert!(exact > 0);
}
