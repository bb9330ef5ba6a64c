//! Agreement with other libraries' validity verdicts on `../shared/corpus/positions.tsv`.
//!
//! Each library has its own notion of validity (the `question` column names the API): FEN
//! syntax, piece counts, check rules, e.p. and castling consistency, clock bounds. Ours is
//! retro-legality: the FEN must parse (4 to 6 fields, `?` allowed), the position must pass the
//! static checks, and the clock and fullmove fields, which are claims, must be possible. Every
//! disagreement must be explained by a difference of notion listed in `explain`; an unexplained
//! one fails the test.

use std::path::{Path, PathBuf};

use retroclock::{
    certify::Proofs,
    clock::{Budget, solve_clock},
    legality::static_reasons,
    position::PositionInput,
    rules::Rules,
    stipulation::Stipulation,
    verdict::{Verdict, decide},
};

fn corpus_dir() -> PathBuf {
    std::env::var_os("RETROCLOCK_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    )
}

/// Our verdict: Ok(()) accepted, Err(reason) rejected.
fn our_verdict(fen: &str) -> Result<(), String> {
    let input = PositionInput::parse(fen).map_err(|e| format!("syntax: {e}"))?;
    let candidates = input.candidates();
    let reasons: Vec<String> = candidates
        .iter()
        .flat_map(|p| static_reasons(&p.board, p.turn, p.castling, p.ep_square))
        .map(|r| r.to_string())
        .collect();
    if candidates
        .iter()
        .all(|p| !static_reasons(&p.board, p.turn, p.castling, p.ep_square).is_empty())
    {
        return Err(format!("static: {}", reasons.join("; ")));
    }
    let budget = Budget {
        max_nodes: 3_000,
        ..Budget::default()
    };
    let clock = solve_clock(&input, Rules::Fide, &budget, &|_| {});
    let answer = decide(Stipulation::Fen, &input, clock, Proofs::default());
    if answer.verdict == Verdict::No {
        return Err(format!("history: {}", answer.notes.join("; ")));
    }
    Ok(())
}

/// Why a disagreement is a difference of notion, if it is one we know.
fn explain(question: &str, fen: &str, ours: &Result<(), String>) -> Option<&'static str> {
    let fields = fen.split_whitespace().count();
    if let Err(why) = ours
        && why.starts_with("history: the fullmove number")
        && why.contains("plies since the initial array, but")
    {
        return Some(
            "the other library does not look at the history: the fullmove number counts fewer plies since the initial array than the position needs (each unit missing was taken by a move of the other side, and every unit needs its route)",
        );
    }
    if let Err(why) = ours
        && why.starts_with("history: ")
        && why.contains("no reset can be taken back")
        && (why.contains("plies reaches the position: it cannot occur at move")
            || why.contains("the clock counts every ply, so it can only be"))
    {
        return Some(
            "the other library does not look at the history: nothing can ever have reset the count here (all 32 units, every pawn at home: no capture, pawn move or castling), so the clock is the number of plies the fullmove number counts, and no game of that length reaches the position or the FEN's clock is another number",
        );
    }
    if ours.is_ok() && fields < 6 && question.starts_with("chess.js") {
        return Some(
            "chess.js validateFen requires all six FEN fields; here missing trailing fields (clock, fullmove) are unknown, and the four fields given describe a legal position",
        );
    }
    None
}

#[test]
fn validity_verdicts_agree_or_differ_by_notion() {
    let dir = corpus_dir();
    let Ok(text) = std::fs::read_to_string(dir.join("positions.tsv")) else {
        eprintln!("skipped: corpus not found at {}", dir.display());
        return;
    };
    let (mut agree, mut explained, mut rows) = (0, 0, 0);
    let mut unexplained = Vec::new();
    let mut by_reason: std::collections::BTreeMap<&str, usize> = Default::default();
    for line in text.lines().filter(|l| !l.starts_with('#')) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [fen, question, expected, ..] = cols[..] else {
            continue;
        };
        if question == "question" {
            continue;
        }
        let they_accept = match question {
            q if q.starts_with("chess.js validateFen") => expected == "true",
            q if q.starts_with("clean-chess strict FEN validation") => {
                expected.starts_with("SUCCESS")
            }
            q if q.starts_with("shakmaty PositionErrorKinds") => expected.starts_with("legal"),
            q if q.starts_with("shakmaty FEN parse error") => false,
            _ => continue, // 50/75-move flags and e.p. questions are not validity verdicts
        };
        rows += 1;
        let ours = our_verdict(fen);
        if ours.is_ok() == they_accept {
            agree += 1;
            continue;
        }
        match explain(question, fen, &ours) {
            Some(why) => {
                eprintln!("differs: {fen} | {question} | {expected} | ours: {ours:?}");
                explained += 1;
                *by_reason.entry(why).or_default() += 1;
            }
            None => unexplained.push(format!("{fen} | {question} | {expected} | ours: {ours:?}")),
        }
    }
    eprintln!(
        "positions.tsv validity rows: {rows}, agree {agree}, differ by notion {explained}, unexplained {}",
        unexplained.len()
    );
    for (why, n) in &by_reason {
        eprintln!("  {n} x {why}");
    }
    for u in &unexplained {
        eprintln!("UNEXPLAINED: {u}");
    }
    assert!(rows > 150);
    assert!(
        unexplained.is_empty(),
        "{} unexplained disagreements",
        unexplained.len()
    );
}
