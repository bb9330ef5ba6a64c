//! Where output is formatted: the human and JSON forms of the answers. No I/O here; the
//! binary prints what these functions return.

use serde_json::{Value, json};
use shakmaty::san::SanPlus;

use crate::{position::Position, retract::Retraction, rules::Convention};

/// The SAN of a retraction's forward move, played from its predecessor.
pub fn retraction_san(r: &Retraction) -> String {
    match r.predecessor.to_chess() {
        Some(chess) => SanPlus::from_move(chess, r.mv).to_string(),
        None => r.uci(),
    }
}

/// One retraction as a JSON object: `fen`, `uci`, `san`, `kind`, `reset`.
pub fn retraction_json(r: &Retraction, convention: Convention) -> Value {
    json!({
        "fen": r.predecessor.fen4(),
        "uci": r.uci(),
        "san": retraction_san(r),
        "kind": r.kind.name(),
        "reset": r.is_reset(convention),
        "uncaptured": r.uncaptured().map(|role| role.char().to_string()),
    })
}

/// The retractions of a position as one JSON object `{"position", "rules", "retractions": [...]}`.
pub fn retractions_json(
    pos: &Position,
    rules_name: &str,
    rs: &[Retraction],
    convention: Convention,
) -> Value {
    json!({
        "position": pos.fen4(),
        "rules": rules_name,
        "count": rs.len(),
        "retractions": rs.iter().map(|r| retraction_json(r, convention)).collect::<Vec<_>>(),
    })
}

/// The retractions of a position for a person, one per line:
/// `<number>. <SAN> (<UCI>) <kind> [reset]  <predecessor FEN>`.
pub fn retractions_human(pos: &Position, rs: &[Retraction], convention: Convention) -> String {
    let mut out = format!("{} retractions from {}\n", rs.len(), pos.fen4());
    for (i, r) in rs.iter().enumerate() {
        let reset = if r.is_reset(convention) {
            "reset"
        } else {
            "reversible"
        };
        out.push_str(&format!(
            "{:>3}. {:<9} {:<6} {:<22} {:<10} {}\n",
            i + 1,
            retraction_san(r),
            r.uci(),
            r.kind.name(),
            reset,
            r.predecessor.fen4()
        ));
    }
    out
}
