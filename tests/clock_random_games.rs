//! Soundness of the clock solver on random games, under both conventions: for positions of
//! seeded random games from the initial array (given without clock and fullmove number), the
//! real clock lies inside the proven bounds, `clock=<real>` is never answered "no", the
//! position is never judged impossible, and the FEN with its real clock and fullmove number
//! is never answered "no". Random play reaches what real games rarely do (promoted pieces,
//! kings far from home, long runs without a reset when steered to quiet moves), and the
//! retro convention's clock differs from FIDE's after castling.

mod common;

use common::{
    oracle::setup_fen,
    positions::{Steer, random_games},
};
use rayon::prelude::*;
use retroclock::{
    certify::Proofs,
    clock::{Budget, MaxClock, Standing, solve_clock},
    position::PositionInput,
    rules::{Convention, Rules},
    stipulation::Stipulation,
    verdict::{Verdict, decide},
};

/// One sampled position: where it comes from, its FEN without clocks (an e.p. square only when
/// the capture is legal), its ply and its real clock under FIDE and under the retro convention.
struct Sample {
    game: usize,
    ply: usize,
    fen: String,
    fide: u64,
    retro: u64,
}

fn samples(games: usize, seed: u64, steer: Steer, every: usize) -> Vec<Sample> {
    let mut out = Vec::new();
    for (game, plies) in random_games(games, 240, seed, steer)
        .into_iter()
        .enumerate()
    {
        let (mut fide, mut retro) = (0u64, 0u64);
        for (k, ply) in plies.iter().enumerate() {
            fide = if Convention::Fide.resets(&ply.mv) {
                0
            } else {
                fide + 1
            };
            retro = if Convention::Retro.resets(&ply.mv) {
                0
            } else {
                retro + 1
            };
            if k % every == every - 1 {
                let fen = setup_fen(&ply.after);
                let fen4: Vec<&str> = fen.split(' ').take(4).collect();
                out.push(Sample {
                    game,
                    ply: k + 1,
                    fen: fen4.join(" "),
                    fide,
                    retro,
                });
            }
        }
    }
    out
}

#[test]
fn real_clocks_of_random_games_lie_inside_the_proven_bounds() {
    let (games, every) = if cfg!(debug_assertions) {
        (4, 8)
    } else {
        (40, 3)
    };
    let mut all = samples(games, 0x5eed_c10c, Steer::Quiet, every);
    all.extend(samples(games / 2, 0x5eed_ca57, Steer::Castling, every));
    all.extend(samples(games / 2, 0x5eed_0001, Steer::Uniform, every));
    let budget = Budget {
        max_nodes: 3_000,
        ..Budget::default()
    };
    // (failures, min proven, min equal to the real clock, max decided), per sample and rules.
    let tallies: Vec<(Vec<String>, usize, usize, usize)> = all
        .par_iter()
        .flat_map_iter(|s| {
            [(Rules::Fide, s.fide), (Rules::Retro, s.retro)].map(|(rules, real)| {
                let mut failures = Vec::new();
                let tag = format!(
                    "game {} ply {} ({}) {} real clock {real}",
                    s.game,
                    s.ply,
                    rules.name(),
                    s.fen
                );
                let input = PositionInput::parse(&s.fen).expect("own FEN parses");
                let c = solve_clock(&input, rules, &budget, &|_| {});
                if matches!(c.standing, Standing::Illegal(_) | Standing::NoHistory) {
                    failures.push(format!("{tag}: judged impossible ({:?})", c.standing));
                }
                if real < c.min_lower_bound {
                    failures.push(format!(
                        "{tag}: below the proven minimum {}",
                        c.min_lower_bound
                    ));
                }
                if let MaxClock::Bounded(m) = c.max
                    && real > m
                {
                    failures.push(format!("{tag}: above the proven maximum {m}"));
                }
                if c.value_possible(real) == Some(false) {
                    failures.push(format!("{tag}: clock={real} answered no"));
                }
                let counts = (
                    usize::from(c.min.is_some()),
                    usize::from(c.min == Some(real)),
                    usize::from(!matches!(c.max, MaxClock::Unknown { .. })),
                );
                // The `fen` question (its move number checked by the costly required-moves
                // bounds) on every fourth ply.
                if s.ply % 4 == 0 {
                    let full = format!("{} {real} {}", s.fen, s.ply / 2 + 1);
                    let input = PositionInput::parse(&full).expect("own FEN parses");
                    let answer = decide(Stipulation::Fen, &input, c, Proofs::default());
                    if answer.verdict == Verdict::No {
                        failures.push(format!("{tag}: `fen` answered no: {:?}", answer.notes));
                    }
                }
                (failures, counts.0, counts.1, counts.2)
            })
        })
        .collect();
    let failures: Vec<&String> = tallies.iter().flat_map(|t| &t.0).collect();
    let long = all.iter().filter(|s| s.fide >= 20).count();
    eprintln!(
        "clock soundness on random games: {} positions ({} with a FIDE clock of 20 or more) under fide and retro, min proven {} times (equal to the real clock {} times), max decided {} times, {} failures",
        all.len(),
        long,
        tallies.iter().map(|t| t.1).sum::<usize>(),
        tallies.iter().map(|t| t.2).sum::<usize>(),
        tallies.iter().map(|t| t.3).sum::<usize>(),
        failures.len()
    );
    for f in failures.iter().take(20) {
        eprintln!("{f}");
    }
    assert!(failures.is_empty(), "{} soundness failures", failures.len());
    // The quiet games do reach long runs, and castling makes the two clocks differ.
    assert!(long > all.len() / 10, "{long} long clocks in {}", all.len());
    assert!(all.iter().any(|s| s.fide != s.retro));
}
