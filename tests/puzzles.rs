//! The reference problems in `puzzles/*.epd`: every entry is solved and its stated answer
//! (`sol`) compared with the solver's verdict. Each entry's comment lines give the hand solution.
//!
//! What is compared:
//! * `clock?`: the minimum, the maximum (`inf` = unbounded) and, when stated, the parity;
//! * every yes/no stipulation (`clock=N`, `clock>=N`, `clock<=N`, `claim?`, `over?`, `fen`,
//!   `legal?`): the verdict.
//!
//! Every certificate the solver gives (`shortest`, `longest`) must also be sound: non-empty
//! (unless the position is the initial array itself), the reset move first (when the line starts
//! from a reset), then exactly `clock` moves that do not reset the count under the rules.

use std::{collections::HashMap, fs, path::Path};

use retroclock::{
    clock::{Budget, Certificate, ClockAnswer, MaxClock, OriginEvidence, Standing, solve_clock},
    puzzle::{Puzzle, Solution, parse_puzzles},
    rules::Convention,
    stipulation::Stipulation,
    verdict::{Verdict, decide},
};

/// Reads every puzzle file, in name order: (file name, entries).
fn puzzle_files() -> Vec<(String, Vec<Puzzle>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles");
    let mut names: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "epd"))
        .collect();
    names.sort();
    names
        .into_iter()
        .map(|path| {
            let text = fs::read_to_string(&path)
                .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let entries = parse_puzzles(&text)
                .into_iter()
                .map(|r| r.unwrap_or_else(|e| panic!("{name}: {e}")))
                .collect();
            (name, entries)
        })
        .collect()
}

/// The solver's answer in the syntax of the stated one, or why it cannot be compared.
fn found(puzzle: &Puzzle, clock: &ClockAnswer, verdict: Verdict) -> Result<Solution, String> {
    match puzzle.stipulation {
        Stipulation::Clock => {
            if !matches!(clock.standing, Standing::Possible) {
                return Err(format!("no clock range: {:?}", clock.standing));
            }
            let min = clock.min.ok_or("no minimum")?;
            let max = match clock.max {
                MaxClock::Bounded(m) => Some(m),
                MaxClock::Unbounded => None,
                MaxClock::Unknown { at_least } => {
                    return Err(format!(
                        "maximum unknown (at least {at_least:?}, stopped by {:?})",
                        clock.stopped_by
                    ));
                }
            };
            let parity = match clock.parities {
                [true, false] => Some(0),
                [false, true] => Some(1),
                _ => None,
            };
            Ok(Solution::Range { min, max, parity })
        }
        Stipulation::Last(_) => Err("`last N?` is not compared here".into()),
        _ => match verdict {
            Verdict::Yes => Ok(Solution::YesNo(true)),
            Verdict::No => Ok(Solution::YesNo(false)),
            v => Err(format!("verdict {v}")),
        },
    }
}

/// Whether the solver's answer agrees with the stated one (a parity is compared only when
/// stated).
fn agrees(stated: Solution, found: Solution) -> bool {
    match (stated, found) {
        (
            Solution::Range { min, max, parity },
            Solution::Range {
                min: fmin,
                max: fmax,
                parity: fparity,
            },
        ) => min == fmin && max == fmax && (parity.is_none() || parity == fparity),
        (a, b) => a == b,
    }
}

/// Checks a certificate's shape: the reset first (unless the line starts at the initial array),
/// then `clock` moves that keep the count.
fn certificate_fault(c: &Certificate, convention: Convention) -> Option<String> {
    let reset = usize::from(c.evidence != OriginEvidence::InitialArray);
    if c.san.len() != c.moves.len() {
        return Some(format!(
            "{} SAN moves for {} moves",
            c.san.len(),
            c.moves.len()
        ));
    }
    if c.san.is_empty() && !(reset == 0 && c.clock == 0) {
        return Some("empty line".into());
    }
    if c.moves.len() as u64 != c.clock + reset as u64 {
        return Some(format!(
            "clock {} but {} moves ({} reset)",
            c.clock,
            c.moves.len(),
            reset
        ));
    }
    if reset == 1 && !convention.resets(&c.moves[0]) {
        return Some(format!("first move {} does not reset the count", c.san[0]));
    }
    if let Some(i) = (reset..c.moves.len()).find(|&i| convention.resets(&c.moves[i])) {
        return Some(format!("move {} resets the count", c.san[i]));
    }
    None
}

#[test]
fn reference_problems_have_the_stated_answers() {
    let files = puzzle_files();
    let total: usize = files.iter().map(|(_, e)| e.len()).sum();
    assert!(total >= 15, "only {total} reference problems");
    let budget = Budget {
        max_nodes: 4_000_000,
        ..Budget::default()
    };
    // Several entries ask about the same position: solve each (position, rules, fullmove) once.
    let mut solved: HashMap<String, ClockAnswer> = HashMap::new();
    let mut faults = Vec::new();
    for (file, entries) in &files {
        for puzzle in entries {
            let id = puzzle.id.as_deref().unwrap_or("(no id)");
            let place = format!(
                "{file}:{} {id} [{}; {}]",
                puzzle.line, puzzle.stipulation, puzzle.rules
            );
            let Some(stated) = puzzle.solution else {
                faults.push(format!("{place}: no stated answer"));
                continue;
            };
            let key = format!(
                "{} {} {} {:?} {:?} {:?}",
                puzzle.position.board,
                puzzle.position.turn.fold_wb('w', 'b'),
                puzzle.rules,
                puzzle.position.castling,
                puzzle.position.ep_square,
                puzzle.position.fullmove.known(),
            );
            let clock = solved
                .entry(key)
                .or_insert_with(|| solve_clock(&puzzle.position, puzzle.rules, &budget, &|_| {}))
                .clone();
            let convention = puzzle.rules.convention();
            for (which, cert) in [("shortest", &clock.shortest), ("longest", &clock.longest)] {
                if let Some(c) = cert
                    && let Some(fault) = certificate_fault(c, convention)
                {
                    faults.push(format!(
                        "{place}: {which} certificate: {fault}: {:?}",
                        c.san
                    ));
                }
            }
            let answer = decide(puzzle.stipulation, &puzzle.position, clock);
            match found(puzzle, &answer.clock, answer.verdict) {
                Ok(f) if agrees(stated, f) => {}
                Ok(f) => faults.push(format!("{place}: stated {stated}, found {f}")),
                Err(why) => faults.push(format!("{place}: stated {stated}, found {why}")),
            }
        }
    }
    assert!(
        faults.is_empty(),
        "{} of {total} reference problems disagree:\n{}",
        faults.len(),
        faults.join("\n")
    );
}
