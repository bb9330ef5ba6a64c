//! `retroclock retract`: lists the legal retractions of a position.

use std::process::ExitCode;

use retroclock::{format, legality::static_reasons, retract::retractions};

use retroclock::rules::Rules;

use super::{Failure, emit, parse_fen};

/// Runs `retract`.
pub fn retract(fen: &str, rules: Rules, json: bool) -> Result<ExitCode, Failure> {
    let input = parse_fen(fen)?;
    let convention = rules.convention();
    let mut text = String::new();
    let mut objects = Vec::new();
    for pos in input.candidates() {
        let rs = retractions(&pos);
        // Why the position is illegal on its face, if it is (listed above its retractions).
        let illegal = static_reasons(&pos.board, pos.turn, pos.castling, pos.ep_square);
        if json {
            objects.push(format::retractions_json(
                &pos,
                rules.name(),
                &illegal,
                &rs,
                convention,
            ));
        } else {
            text.push_str(&format::retractions_human(&pos, &illegal, &rs, convention));
        }
    }
    if json {
        let value = if objects.len() == 1 {
            objects.remove(0)
        } else {
            let all: Vec<_> = objects
                .iter()
                .flat_map(|o| o["retractions"].as_array().cloned().unwrap_or_default())
                .collect();
            serde_json::json!({"rules": rules.name(), "positions": objects, "retractions": all})
        };
        text = format!("{value}\n");
    }
    emit(&text)
}
