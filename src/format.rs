//! Where output is formatted: the human and JSON forms of the answers. No I/O here; the
//! binary prints what these functions return.

use serde_json::{Value, json};
use shakmaty::san::SanPlus;

use crate::certify::{CertifiedLine, Proofs};
use crate::codex::alternatives_text;
use crate::{
    clock::{Certificate, ClockAnswer, MaxClock, OriginEvidence, Standing, VALUES_GRAPH_LIMIT},
    lastmoves::LastMoves,
    legal::Legality,
    legality::Illegality,
    position::{Position, castling_string},
    proofgame::ProofGameSearch,
    retract::Retraction,
    rules::Convention,
    stipulation::Stipulation,
    verdict::{Answer, Finding, Verdict, clock_proof},
};

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

/// The retractions of a position as one JSON object `{"position", "rules", "illegal",
/// "count", "retractions": [...]}`; `illegal` lists why the position is illegal on its face
/// (empty when it passes the static checks).
pub fn retractions_json(
    pos: &Position,
    rules_name: &str,
    illegal: &[Illegality],
    rs: &[Retraction],
    convention: Convention,
) -> Value {
    json!({
        "position": pos.fen4(),
        "rules": rules_name,
        "illegal": illegal.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        "count": rs.len(),
        "retractions": rs.iter().map(|r| retraction_json(r, convention)).collect::<Vec<_>>(),
    })
}

/// The retractions of a position for a person: a heading, a line `illegal: <reason>` for each
/// reason the position is illegal on its face, then one line per retraction:
/// `<number>. <SAN> (<UCI>) <kind> [reset]  <predecessor FEN>`.
pub fn retractions_human(
    pos: &Position,
    illegal: &[Illegality],
    rs: &[Retraction],
    convention: Convention,
) -> String {
    let mut out = format!("{} retractions from {}\n", rs.len(), pos.fen4());
    for reason in illegal {
        out.push_str(&format!("  illegal: {reason}\n"));
    }
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

/// The clock part of an answer as JSON: the witnessed bounds (`min`, `max`), the proven ones
/// (`min_lower_bound`, `max_upper_bound`) and the certified ones (`min_certified`,
/// `max_certified`, `"inf"` when certified values are unbounded).
fn clock_json(c: &ClockAnswer, proofs: &Proofs) -> Value {
    let (max, unbounded, at_least) = match c.max {
        // No history, no values: no maximum either.
        _ if !c.has_history() => (None, false, None),
        MaxClock::Bounded(m) => (Some(m), false, Some(m)),
        MaxClock::Unbounded => (None, true, None),
        MaxClock::Unknown { at_least } => (None, false, at_least),
    };
    let proof = clock_proof(c, proofs);
    let max_certified = if proofs.unbounded() {
        json!("inf")
    } else {
        json!(proofs.max())
    };
    let max_upper_bound = match c.max {
        MaxClock::Bounded(m) if c.has_history() => Some(m),
        _ => None,
    };
    json!({
        "min": c.min,
        "min_lower_bound": c.min_lower_bound,
        "min_certified": proofs.min(),
        "max_upper_bound": max_upper_bound,
        "max_certified": max_certified,
        "proven": {"min": proof.min, "max": proof.max, "parities": proof.parities},
        "max": max,
        "max_at_least": at_least,
        "unbounded": unbounded,
        "complete": c.complete,
        "parity": parity_name(c.parities),
        "values": c.values,
        "values_limit": c.values_limit,
        "fullmove_bound": c.fullmove_bound,
        "standing": standing_name(&c.standing),
    })
}

/// The parities of the possible values: `both`, `even`, `odd` or `none`.
pub(crate) fn parity_name(p: [bool; 2]) -> &'static str {
    match p {
        [true, true] => "both",
        [true, false] => "even",
        [false, true] => "odd",
        [false, false] => "none",
    }
}

fn standing_name(s: &Standing) -> &'static str {
    match s {
        Standing::Illegal(_) => "illegal",
        Standing::NoHistory => "no_history",
        Standing::Possible => "possible",
        Standing::Undecided => "undecided",
    }
}

fn evidence_text(e: OriginEvidence) -> String {
    match e {
        OriginEvidence::InitialArray => "the game's start (initial array, clock 0)".to_string(),
        OriginEvidence::FromInitialArray => {
            "a reset move played from the initial array".to_string()
        }
        OriginEvidence::RetractionChain { depth } => format!(
            "a reset from a position that passes the static checks and has a legal retraction chain {depth} plies deep (witnessed, not a proof game)"
        ),
    }
}

/// `certified` when a game from the initial array reaches the line's start (the line is part
/// of a certified game), else `witnessed`.
fn line_level(c: &Certificate, proofs: &Proofs) -> &'static str {
    if proofs.covers(c) {
        "certified"
    } else {
        "witnessed"
    }
}

fn certificate_json(c: &Certificate, proofs: &Proofs) -> Value {
    json!({
        "clock": c.clock,
        "start": c.start.fen4(),
        "moves": c.san,
        "origin": evidence_text(c.evidence),
        "level": line_level(c, proofs),
    })
}

/// A certified game as JSON: its clock, length, movetext and where its beginning comes from.
fn certified_json(l: &CertifiedLine) -> Value {
    json!({
        "clock": l.clock,
        "plies": l.plies(),
        "fullmove": l.fullmove(),
        "pgn": movetext(&l.san),
        "source": l.source.to_string(),
        "level": "certified",
    })
}

/// A finding as JSON: the proven value, or null.
fn proven_json(f: Finding) -> Value {
    json!(f.proven())
}

/// A finding as JSON: the proven or witnessed value, or null.
fn likely_json(f: Finding) -> Value {
    json!(f.likely())
}

/// An answer as one JSON object (see the README for the fields).
pub fn answer_json(a: &Answer, threads: usize) -> Value {
    let mut v = json!({
        "stipulation": a.stipulation.to_string(),
        "rules": a.rules.name(),
        "verdict": a.verdict.to_string(),
        "likely": a.likely.map(|v| v.to_string()),
        "unproven": a.unproven,
        "possibly": proven_json(a.possibly),
        "necessarily": proven_json(a.necessarily),
        "witnessed": {
            "possibly": likely_json(a.possibly),
            "necessarily": likely_json(a.necessarily),
        },
        "clock": clock_json(&a.clock, &a.proofs),
        "certificate": a.certificate.as_ref().map(|c| c.san.clone()),
        "certificate_detail": a.certificate.as_ref().map(|c| certificate_json(c, &a.proofs)),
        "shortest": a.clock.shortest.as_ref().map(|c| certificate_json(c, &a.proofs)),
        "longest": a.clock.longest.as_ref().map(|c| certificate_json(c, &a.proofs)),
        "certified_lines": a.proofs.lines.iter().map(certified_json).collect::<Vec<_>>(),
        "cycle": a.proofs.cycle.as_ref().map(|c| c.san.clone()),
        "unreached": a.proofs.unreached.iter().map(|u| json!({"clock": u.clock, "start": u.start})).collect::<Vec<_>>(),
        "notes": a.notes,
        "chain_depth": a.clock.chain_depth,
        "refinement": refinement_json(&a.clock.refinement),
        "stats": {
            "nodes": a.clock.nodes,
            "seconds": a.clock.seconds,
            "threads": threads,
            "bytes_per_node": a.clock.bytes_per_node,
            "edge_bytes_per_node": a.clock.edge_bytes_per_node,
            "stopped_by": a.clock.stopped_by,
        },
    });
    if let Some(l) = &a.legality {
        v["legality"] = legality_json(l);
    }
    if let Some(g) = &a.game {
        v["at_move"] = json!({
            "move": g.move_number,
            "plies": g.plies,
            "reached": g.reached,
            "clock_is_length": g.clock_is_length,
        });
    }
    if let Some(r) = &a.codex {
        v["codex"] = codex_json(r);
        if a.stipulation == Stipulation::Castling {
            v["castling"] = json!({
                "certified": r.certified(),
                "alternatives": r.answer().map(|mask| {
                    alternatives_text(mask)
                        .split_whitespace()
                        .map(str::to_string)
                        .collect::<Vec<_>>()
                }),
            });
        }
    }
    v["certified"] = json!(a.certified.as_ref().map(certified_json));
    if let Some(claim) = &a.claim {
        v["claim"] = json!({
            "necessarily": proven_json(a.necessarily),
            "possibly": proven_json(a.possibly),
            "threshold": claim.threshold,
            "by_9_3_2": proven_json(claim.by_9_3_2),
            "by_9_3_1": proven_json(claim.by_9_3_1),
            "possibly_by_9_3_2": proven_json(claim.possibly_by_9_3_2),
            "possibly_by_9_3_1": proven_json(claim.possibly_by_9_3_1),
            "witnessed": {
                "by_9_3_2": likely_json(claim.by_9_3_2),
                "by_9_3_1": likely_json(claim.by_9_3_1),
                "possibly_by_9_3_2": likely_json(claim.possibly_by_9_3_2),
                "possibly_by_9_3_1": likely_json(claim.possibly_by_9_3_1),
            },
            "announce": claim.announce,
        });
    }
    v
}

/// The Codex reading of the castling field as JSON.
fn codex_json(r: &crate::codex::CastlingReading) -> Value {
    use crate::codex::RightsFinding;
    let sets: Vec<Value> = r
        .sets
        .iter()
        .map(|(set, finding)| {
            let reasons = match finding {
                RightsFinding::Refuted(reasons) => reasons.clone(),
                _ => Vec::new(),
            };
            json!({
                "rights": castling_string(*set),
                "finding": finding.to_string(),
                "reasons": reasons,
            })
        })
        .collect();
    json!({
        "alternatives": r.alternatives.iter().map(|&a| castling_string(a)).collect::<Vec<_>>(),
        "settled": r.settled(),
        "certified": r.certified(),
        "sets": sets,
    })
}

fn line_text(c: &Certificate, proofs: &Proofs) -> String {
    let origin = if proofs.covers(c) && c.evidence != OriginEvidence::InitialArray {
        "a reset from a position that a game from the initial array reaches (certified)".to_string()
    } else {
        evidence_text(c.evidence)
    };
    if c.san.is_empty() {
        return format!("(no move: {origin})");
    }
    let mut s = String::new();
    let black_first = c.start.turn == shakmaty::Color::Black;
    let mut n = 1;
    for (i, san) in c.san.iter().enumerate() {
        let white = (i % 2 == 0) != black_first;
        if white {
            s.push_str(&format!("{n}.{san} "));
        } else if i == 0 {
            s.push_str(&format!("{n}...{san} "));
        } else {
            s.push_str(&format!("{san} "));
        }
        if !white {
            n += 1;
        }
    }
    format!(
        "{}\n      from {}\n      origin: {}",
        s.trim_end(),
        c.start.fen4(),
        origin
    )
}

/// The first line's verdict: `yes`, or `unknown — likely no: witnessed, …`.
fn verdict_text(a: &Answer) -> String {
    match (a.verdict, a.likely) {
        (Verdict::Unknown, Some(likely)) => format!(
            "unknown — likely {likely}: {}",
            a.unproven.as_deref().unwrap_or("witnessed, not proven")
        ),
        (v, _) => v.to_string(),
    }
}

/// A finding for a person: `yes`, `yes (witnessed)`, `unknown`.
fn finding_text(f: Finding) -> &'static str {
    match f {
        Finding::Proven(true) => "yes",
        Finding::Proven(false) => "no",
        Finding::Witnessed(true) => "yes (witnessed)",
        Finding::Witnessed(false) => "no (witnessed)",
        Finding::Open => "unknown",
    }
}

/// The clock's range for a person, each bound with what it rests on.
fn clock_range_text(c: &ClockAnswer, proofs: &Proofs) -> String {
    let proof = clock_proof(c, proofs);
    let min = match (c.min, proofs.min()) {
        (_, Some(m)) if proof.min => format!(
            "{m} (proven: nothing lower is possible, and a game from the initial array gives {m})"
        ),
        (Some(m), certified) => {
            let cert = match certified {
                Some(x) => format!("; the smallest certified value is {x}"),
                None => String::new(),
            };
            if m == c.min_lower_bound {
                format!("{m} (nothing lower: proven; {m} itself: witnessed only{cert})")
            } else {
                format!(
                    "{m} witnessed (nothing below {} is possible: proven{cert})",
                    c.min_lower_bound
                )
            }
        }
        // A complete search leaves the minimum open only under a premise (`at move N`)
        // that it could not decide.
        (None, _) if c.complete => format!(">= {} (proven lower bound)", c.min_lower_bound),
        (None, _) => format!(
            ">= {} (proven lower bound; budget ran out)",
            c.min_lower_bound
        ),
    };
    let max = match c.max {
        MaxClock::Bounded(m) if proof.max => {
            format!("{m} (proven: nothing higher is possible, and a game gives {m})")
        }
        MaxClock::Bounded(m) => format!("{m} (nothing higher: proven; {m} itself: witnessed only)"),
        MaxClock::Unbounded if proof.max => {
            "unbounded (proven: a certified game and a cycle that repeats)".to_string()
        }
        MaxClock::Unbounded => {
            "unbounded (witnessed: a cycle lies on a line to an origin)".to_string()
        }
        MaxClock::Unknown { at_least } => match at_least {
            Some(m) => format!("unknown, at least {m} witnessed"),
            None => "unknown".to_string(),
        },
    };
    let parity_level = if proof.parities == [true, true] {
        ""
    } else {
        " (witnessed)"
    };
    format!(
        "min {min}, max {max}, parity {}{parity_level}",
        parity_name(c.parities)
    )
}

/// An answer explained for a person.
pub fn answer_human(a: &Answer, threads: usize) -> String {
    let c = &a.clock;
    let mut out = String::new();
    out.push_str(&format!(
        "{}: {}   (rules: {}{}{})\n",
        a.stipulation,
        verdict_text(a),
        a.rules.name(),
        if a.rules.convention().castling_resets() {
            ", castling resets the count"
        } else {
            ", castling does not reset the count"
        },
        if a.codex.is_some() {
            "; castling field read by the Codex"
        } else {
            ""
        }
    ));
    if a.possibly != Finding::Open || a.necessarily != Finding::Open {
        out.push_str(&format!(
            "  possibly: {}   necessarily: {}\n",
            finding_text(a.possibly),
            finding_text(a.necessarily)
        ));
    }
    if a.stipulation == Stipulation::Castling
        && let Some(reading) = &a.codex
    {
        // What the sets held rest on: a game from the initial array, or a line to an origin
        // that passes the static checks and a retraction chain.
        let evidence = if reading.certified() {
            "shown by a game from the initial array"
        } else {
            "witnessed by a line to an origin that passes the static checks and a retraction chain, not shown by a game"
        };
        out.push_str(&match reading.answer() {
            Some(0) => "  no set of castling rights has a legal history\n".to_string(),
            // Only the empty set: every right is refuted.
            Some(1) => format!(
                "  castling rights the position can hold: none (every set with a right is refuted; {evidence})\n"
            ),
            Some(mask) if mask.count_ones() == 1 => format!(
                "  castling rights the position can hold: {} (every larger set is refuted; {evidence})\n",
                alternatives_text(mask)
            ),
            Some(mask) => format!(
                "  castling rights the position can hold: {}, not together (every larger set is refuted; {evidence})\n",
                alternatives_text(mask).replace(' ', " or ")
            ),
            None => "  castling rights: open (a set was neither refuted nor shown within the budget)\n"
                .to_string(),
        });
    }
    match &c.standing {
        Standing::Illegal(_) | Standing::NoHistory => {}
        _ => {
            out.push_str(&format!("  clock: {}\n", clock_range_text(c, &a.proofs)));
            if let Some(values) = &c.values {
                let shown: Vec<String> = values.iter().take(40).map(|v| v.to_string()).collect();
                out.push_str(&format!(
                    "  values up to {} ({}): {}{}\n",
                    c.values_limit,
                    if c.complete {
                        "witnessed; every other value is proven impossible"
                    } else {
                        "witnessed so far"
                    },
                    shown.join(" "),
                    if values.len() > 40 { " …" } else { "" }
                ));
            } else if c.standing == Standing::Possible && c.nodes as usize > VALUES_GRAPH_LIMIT {
                out.push_str(&format!(
                    "  values: not listed ({} positions explored, more than {VALUES_GRAPH_LIMIT}); each clock=N is still decided\n",
                    c.nodes
                ));
            }
        }
    }
    if let Some(b) = c.fullmove_bound {
        out.push_str(&format!(
            "  the fullmove number allows a clock of at most {b}\n"
        ));
    }
    if let Some(claim) = &a.claim {
        out.push_str(&format!(
            "  by 9.3.2 (clock >= {}): possibly {}, necessarily {};   by 9.3.1 (clock >= {} and a move to announce): possibly {}, necessarily {}\n",
            claim.threshold,
            finding_text(claim.possibly_by_9_3_2),
            finding_text(claim.by_9_3_2),
            claim.threshold - 1,
            finding_text(claim.possibly_by_9_3_1),
            finding_text(claim.by_9_3_1),
        ));
        if !claim.announce.is_empty() {
            out.push_str(&format!(
                "  moves that a 9.3.1 claim could announce: {}\n",
                claim.announce.join(" ")
            ));
        }
    }
    for note in &a.notes {
        out.push_str(&format!("  {note}\n"));
    }
    let proofs = &a.proofs;
    if let Some(s) = &c.shortest {
        out.push_str(&format!(
            "  shortest line ({} plies, {}): {}\n",
            s.clock,
            line_level(s, proofs),
            line_text(s, proofs)
        ));
    }
    if let Some(l) = &c.longest
        && c.shortest.as_ref().is_none_or(|s| s.clock != l.clock)
    {
        out.push_str(&format!(
            "  longest line ({} plies, {}): {}\n",
            l.clock,
            line_level(l, proofs),
            line_text(l, proofs)
        ));
    }
    if let Some(cert) = &a.certificate
        && c.shortest.as_ref().is_none_or(|s| s.clock != cert.clock)
        && c.longest.as_ref().is_none_or(|s| s.clock != cert.clock)
    {
        out.push_str(&format!(
            "  witness ({} plies, {}): {}\n",
            cert.clock,
            line_level(cert, proofs),
            line_text(cert, proofs)
        ));
    }
    if let Some(l) = &a.legality {
        match l {
            Legality::Illegal(_) => {}
            Legality::Legal { san, .. } => out.push_str(&format!(
                "  legal: a game of {} plies from the initial array reaches it (replayed): {}\n",
                san.len(),
                movetext(san)
            )),
            Legality::NoContradiction { .. } => {}
            Legality::Undecided => out.push_str("  legality undecided within the budget\n"),
        }
    }
    let certified = a.certified.as_ref().or_else(|| {
        // For `clock?`: the game that certifies the minimum.
        matches!(a.stipulation, Stipulation::Clock(_))
            .then(|| proofs.lines.first())
            .flatten()
    });
    if let Some(l) = certified {
        out.push_str(&format!(
            "  certified: this game from the initial array ({}) reaches the position with clock {} at move {} (replayed): {}\n",
            l.source,
            l.clock,
            l.fullmove(),
            movetext(&l.san)
        ));
    }
    if proofs.unbounded()
        && let Some(cycle) = &proofs.cycle
    {
        out.push_str(&format!(
            "  cycle: {} leads back to the position without a reset; repeated, it adds {} plies to a certified clock each time\n",
            cycle.san.join(" "),
            cycle.moves.len()
        ));
    }
    out.push_str(&refinement_human(&c.refinement));
    out.push_str(&format!(
        "  search: {} positions, {}, {:.2} s, {} thread(s), origins need a retraction chain {} deep{}\n",
        c.nodes,
        match (c.complete, c.stopped_by) {
            (true, _) => "complete".to_string(),
            (false, Some(why)) => format!("incomplete (stopped by the {why})"),
            (false, None) => "incomplete".to_string(),
        },
        c.seconds,
        threads,
        c.chain_depth,
        if c.refinement.checked > 0 {
            format!(
                "; {} nearest origin(s) re-checked up to {} plies deep",
                c.refinement.checked, c.refinement.max_depth
            )
        } else {
            String::new()
        },
    ));
    out
}

/// What deeper chains and the refutations of histories did to the nearest origins, as JSON.
fn refinement_json(r: &crate::clock::Refinement) -> Value {
    json!({
        "max_depth": r.max_depth,
        "checked": r.checked,
        "positions": r.positions,
        "refuted_count": r.refuted_count,
        "refuted": r.refuted.iter().map(|x| json!({
            "distance": x.distance,
            "depth": x.depth,
            "rule": x.rule,
            "reasons": x.reasons.iter().map(|r| r.to_string()).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "by_rule": r.by_rule().iter().map(|g| json!({
            "rule": g.rule,
            "count": g.count,
            "min_distance": g.distances.0,
            "max_distance": g.distances.1,
            "max_depth": g.max_depth,
            "example": g.example,
        })).collect::<Vec<_>>(),
        "confirmed_depth": r.confirmed_depth,
        "stopped_by": r.stopped_by,
    })
}

/// Clock values `a`..=`b` in words.
fn clocks(a: u32, b: u32) -> String {
    if a == b {
        format!("clock {a}")
    } else {
        format!("clocks {a}-{b}")
    }
}

/// What deeper chains and the refutations of histories did to the nearest origins, as lines
/// of the human output: the refuted candidates grouped by rule, each with the clock values it
/// covers and the reason of its nearest candidate (empty when nothing was refuted; the depth of
/// the chain that stands is in the shortest line's origin).
fn refinement_human(r: &crate::clock::Refinement) -> String {
    let mut out = String::new();
    if let Some((first, last)) = r.refuted_distances() {
        out.push_str(&format!(
            "  refuted: {} candidate origin(s) at {} (every reset there is impossible):\n",
            r.refuted_count,
            clocks(first, last)
        ));
        for g in r.by_rule() {
            let what = match g.rule {
                "chain" => format!(
                    "by deeper chains (every retraction line from their resets dies within {} {})",
                    g.max_depth,
                    if g.max_depth == 1 { "ply" } else { "plies" }
                ),
                "cage" => "by a cage".to_string(),
                rule => format!("by {rule}"),
            };
            out.push_str(&format!(
                "    {} {what}, at {}",
                g.count,
                clocks(g.distances.0, g.distances.1)
            ));
            match &g.example {
                Some(reason) => {
                    out.push_str(&format!("; e.g. at clock {}: {reason}\n", g.distances.0))
                }
                None => out.push('\n'),
            }
        }
    }
    if let Some(why) = r.stopped_by {
        out.push_str(&format!(
            "  deeper checks of the nearest origins stopped by the {why}\n"
        ));
    }
    out
}

/// The most positions [`graph_dot`] draws: the nearest ones, in breadth-first order.
pub const DOT_MAX_NODES: usize = 5000;

/// The explored graph in Graphviz DOT: one node per stored position (labelled with its
/// distance; origins drawn doubled), one edge per reversible retraction between drawn
/// positions; with the numbers of positions drawn and explored. At most [`DOT_MAX_NODES`]
/// positions are drawn, the nearest first; a comment at the top of a cut graph says so.
pub fn graph_dot(c: &ClockAnswer) -> Option<(String, usize, usize)> {
    let graph = c.graph.as_ref()?;
    let limit = graph.len().min(DOT_MAX_NODES);
    let mut g = petgraph::graph::DiGraph::<String, &str>::new();
    let nodes: Vec<_> = (0..limit)
        .map(|i| {
            let origin = graph.is_origin(i);
            g.add_node(format!(
                "{}{}",
                graph.dist(i),
                if origin { " origin" } else { "" }
            ))
        })
        .collect();
    for (i, &from) in nodes.iter().enumerate() {
        for j in graph.children(i) {
            if (j as usize) < limit {
                g.add_edge(from, nodes[j as usize], "");
            }
        }
    }
    // Labels by `Display` (plain text), origins with a double outline.
    let node_attrs = |_: &petgraph::graph::DiGraph<String, &str>,
                      (_, label): (petgraph::graph::NodeIndex, &String)| {
        if label.ends_with(" origin") {
            "peripheries = 2".to_string()
        } else {
            String::new()
        }
    };
    let cut = if limit < graph.len() {
        format!(
            "// the {limit} positions nearest to the position, of {} explored\n",
            graph.len()
        )
    } else {
        String::new()
    };
    let dot = petgraph::dot::Dot::with_attr_getters(
        &g,
        &[petgraph::dot::Config::EdgeNoLabel],
        &|_, _| String::new(),
        &node_attrs,
    );
    Some((format!("{cut}{dot}"), limit, graph.len()))
}

/// A `last N?` answer as JSON: `sequences` (forward SAN, oldest first), `count`, `complete`, and
/// beside each sequence its first position (`starts`), the castling rights that position may
/// hold (`start_castling`) and whether it is the whole game (`whole_game`); `game_plies` (the
/// plies the move number counts, or null), `reconstruction` (every sequence is the whole game),
/// `refusal` (why the facts leave no sequence, or null) and `ep_reading`.
pub fn last_moves_json(l: &LastMoves, rules_name: &str) -> Value {
    json!({
        "stipulation": format!("last {}?", l.plies),
        "rules": rules_name,
        "verdict": if l.complete { "solved" } else { "unknown" },
        "count": l.count,
        "complete": l.complete,
        "extra": l.extra,
        "ep_reading": l.ep_reading.name(),
        "game_plies": l.game_plies,
        "reconstruction": l.reconstruction,
        "refusal": l.refusal,
        "sequences": l.sequences.iter().map(|s| s.san.clone()).collect::<Vec<_>>(),
        "starts": l.sequences.iter().map(|s| s.start.fen4()).collect::<Vec<_>>(),
        "start_castling": l
            .sequences
            .iter()
            .map(|s| s.start_castling.iter().map(|&c| castling_string(c)).collect::<Vec<_>>())
            .collect::<Vec<_>>(),
        "whole_game": l.sequences.iter().map(|s| s.whole_game).collect::<Vec<_>>(),
        "stats": { "nodes": l.nodes },
    })
}

/// A `last N?` answer for a person: the count and how the FEN's facts were read, then one
/// sequence per line with its first position and the castling rights that position may hold.
pub fn last_moves_human(l: &LastMoves, rules_name: &str) -> String {
    let mut out = format!(
        "last {}?: {} sequence(s){}   (rules: {rules_name}; each checked {} further plies back; \
         e.p. field: {})\n",
        l.plies,
        l.count,
        if l.complete {
            ""
        } else {
            " at least (budget ran out)"
        },
        l.extra,
        l.ep_reading.meaning()
    );
    if let Some(why) = &l.refusal {
        out.push_str(&format!("  no sequence: {why}\n"));
        return out;
    }
    if let Some(p) = l.game_plies {
        if l.reconstruction {
            out.push_str(&format!(
                "  the game has lasted {p} plies: the reconstruction is complete (every sequence \
                 is the whole game from the initial array)\n"
            ));
        } else {
            out.push_str(&format!(
                "  the game has lasted {p} plies (the move number is read as a fact)\n"
            ));
        }
    }
    for s in &l.sequences {
        let moves = if s.san.is_empty() {
            "(no move: the game has not begun)".to_string()
        } else {
            s.san.join(" ")
        };
        let rights: Vec<String> = s
            .start_castling
            .iter()
            .map(|&c| castling_string(c))
            .collect();
        let whole = if s.whole_game { "; the whole game" } else { "" };
        out.push_str(&format!(
            "  {moves}   from {} (castling rights: {}{whole})\n",
            s.start.board.board_fen(),
            rights.join(" or "),
        ));
    }
    if (l.sequences.len() as u64) < l.count {
        out.push_str(&format!(
            "  … {} more not listed\n",
            l.count - l.sequences.len() as u64
        ));
    }
    out
}

/// A `proofgame N` answer as JSON: `count`, `complete`, `games` (SAN, from the initial array).
pub fn proof_games_json(found: &ProofGameSearch, plies: u32) -> Value {
    json!({
        "stipulation": format!("proofgame {plies}"),
        "verdict": if found.complete { "solved" } else { "unknown" },
        "count": found.count,
        "complete": found.complete,
        "games": found.san,
        "stats": { "nodes": found.nodes },
    })
}

/// A `proofgame N` answer for a person.
pub fn proof_games_human(found: &ProofGameSearch, plies: u32) -> String {
    let mut out = format!(
        "proofgame {plies}: {} game(s){}\n",
        found.count,
        if found.complete {
            ""
        } else {
            " at least (budget ran out)"
        }
    );
    for game in &found.san {
        out.push_str(&format!("  {game}\n"));
    }
    if (found.san.len() as u64) < found.count {
        out.push_str(&format!(
            "  … {} more not listed\n",
            found.count - found.san.len() as u64
        ));
    }
    out.push_str(&format!("  search: {} positions\n", found.nodes));
    out
}

/// Numbered movetext (`1.e4 e5 2.Nf3`) for a game from the initial array.
pub fn movetext(san: &[String]) -> String {
    let mut out = String::new();
    for (i, m) in san.iter().enumerate() {
        if i % 2 == 0 {
            out.push_str(&format!("{}.", i / 2 + 1));
        }
        out.push_str(m);
        out.push(' ');
    }
    out.trim_end().to_string()
}

fn legality_json(l: &Legality) -> Value {
    match l {
        Legality::Illegal(reasons) => json!({"status": "illegal", "reasons": reasons}),
        Legality::Legal { san, .. } => {
            json!({"status": "legal", "proof_game": movetext(san), "plies": san.len()})
        }
        Legality::NoContradiction {
            depth,
            searched_plies,
        } => {
            json!({"status": "no_contradiction", "depth": depth, "proof_game_plies_searched": searched_plies})
        }
        Legality::Undecided => json!({"status": "undecided"}),
    }
}

/// A certified game as a PGN file: the seven tags, a comment with the position and clock it
/// ends in, and the moves.
pub fn certified_pgn(line: &CertifiedLine, input: &crate::position::PositionInput) -> String {
    let end = format!("{} {} {}", line.end.fen4(), line.clock, line.fullmove());
    format!(
        "[Event \"retroclock certificate\"]\n[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"*\"]\n\n{{ From the initial array to {} ({}); it ends in {end}: halfmove clock {}, fullmove number {}. }}\n{} *\n",
        input.fen(),
        line.source,
        line.clock,
        line.fullmove(),
        movetext(&line.san)
    )
}
