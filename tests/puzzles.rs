//! The reference problems in `puzzles/*.epd`: every entry is solved and its stated answer
//! (`sol`) compared with the solver's answer exactly as `retroclock batch` does; every entry must
//! be `confirmed` (proven), except those listed in [`NOT_YET_PROVEN`], which may be `plausible`
//! (the witnesses agree, but no game from the initial array is found for the line a proof
//! needs). Each entry's comment lines give the hand solution.
//!
//! Every certificate the solver gives (`shortest`, `longest`) must also be sound: non-empty
//! (unless the position is the initial array itself), the reset move first (when the line starts
//! from a reset), then exactly `clock` moves that do not reset the count under the rules.

use std::{fs, path::Path};

use retroclock::{
    batch::{self, Settings, Status},
    clock::{Certificate, OriginEvidence},
    rules::Convention,
};

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

/// Entries whose answers the solver witnesses but does not yet prove, each with what is
/// missing: a game from the initial array to the start of the line the proof rests on.
const NOT_YET_PROVEN: [(&str, &str); 11] = [
    (
        "lone-king-ge-150",
        "a game to a position with a lone black king and White's pawns still walling in its own pieces",
    ),
    (
        "rights-freeze",
        "a game that keeps all four castling rights and reaches the longest line's start",
    ),
    ("lone-king-even", "as lone-king-ge-150"),
    ("codex-freeze", "as rights-freeze"),
    (
        "open-freeze",
        "games for both parities with every piece walled in behind unmoved pawns",
    ),
    ("open-freeze-100", "as open-freeze"),
    (
        "codex-pra",
        "White's bishops and queen walled in at home must be taken there by Black's knights",
    ),
    ("castling-pra", "as codex-pra"),
    ("castling-lost", "as codex-pra"),
    (
        "castle-clock-fide-1",
        "a game of exactly 59 plies (the fullmove number): the games found are longer",
    ),
    (
        "odd-clock-13",
        "a game of exactly 58 plies (the fullmove number): the games found are longer",
    ),
];

#[test]
fn reference_problems_have_the_stated_answers() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("puzzles");
    let mut names: Vec<_> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot read {}: {e}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "epd"))
        .collect();
    names.sort();
    let mut entries = Vec::new();
    for path in &names {
        let text = fs::read_to_string(path).expect("readable puzzle file");
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_string())
            .unwrap_or_default();
        entries.extend(batch::entries_from_text(&name, &text));
    }
    assert!(
        entries.len() >= 15,
        "only {} reference problems",
        entries.len()
    );
    let settings = Settings {
        max_nodes: 4_000_000,
        proof_time: std::time::Duration::from_secs(8),
        ..Settings::default()
    };
    // The same comparison as `retroclock batch` (puzzles/README.md, "How answers are compared").
    let outcomes = batch::run(&entries, &settings, &|| {});
    let mut faults = Vec::new();
    for (entry, outcome) in entries.iter().zip(&outcomes) {
        let place = format!("{}:{}", entry.file, entry.line);
        let id = entry
            .puzzle
            .as_ref()
            .ok()
            .and_then(|p| p.id.clone())
            .unwrap_or_default();
        let not_yet = NOT_YET_PROVEN.iter().find(|(known, _)| *known == id);
        if let (Status::Plausible, Some((_, missing))) = (outcome.status, not_yet) {
            eprintln!("{place} \"{id}\": plausible, not yet proven: needs {missing}");
        } else if outcome.status == Status::Confirmed && not_yet.is_some() {
            eprintln!(
                "{place} \"{id}\": now confirmed (it can leave the list of entries not yet proven)"
            );
        } else if outcome.status != Status::Confirmed {
            faults.push(format!(
                "{place}: {} (stated {:?}, found {:?}: {})",
                outcome.status, outcome.stated, outcome.solver, outcome.reason
            ));
        }
        let (Some(answer), Ok(puzzle)) = (&outcome.answer, &entry.puzzle) else {
            continue;
        };
        let convention = puzzle.rules.convention();
        for (which, cert) in [
            ("shortest", &answer.clock.shortest),
            ("longest", &answer.clock.longest),
        ] {
            if let Some(c) = cert
                && let Some(fault) = certificate_fault(c, convention)
            {
                faults.push(format!(
                    "{place}: {which} certificate: {fault}: {:?}",
                    c.san
                ));
            }
        }
    }
    eprintln!("{} reference problems checked", entries.len());
    assert!(
        faults.is_empty(),
        "{} of {} reference problems disagree:\n{}",
        faults.len(),
        entries.len(),
        faults.join("\n")
    );
}
