//! `retroclock retract` driven through the real binary: every listed retraction replays forward
//! to the position, the fields of the JSON form, the convention deciding what resets, the
//! reasons of a position illegal on its face, and input errors that name the FEN field.

mod common;

use common::cli::{Run, json, retroclock};
use serde_json::Value;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _, fen::Fen, uci::UciMove};

fn retract(args: &[&str]) -> Run {
    retroclock("retract", args)
}

/// The position (placement, side to move, castling, e.p.) as a four-field FEN.
fn fen4(chess: &Chess) -> String {
    let fen = Fen::from_position(chess, EnPassantMode::Legal).to_string();
    fen.split(' ').take(4).collect::<Vec<_>>().join(" ")
}

/// Plays the item's UCI move from its predecessor FEN with shakmaty and returns the result.
fn replay(item: &Value) -> Chess {
    let fen: Fen = item["fen"].as_str().expect("fen").parse().expect("a FEN");
    let before: Chess = fen
        .into_position(CastlingMode::Standard)
        .expect("a legal predecessor");
    let uci: UciMove = item["uci"].as_str().expect("uci").parse().expect("UCI");
    let mv = uci.to_move(&before).expect("a legal forward move");
    before.play(mv).expect("playable")
}

#[test]
fn every_listed_retraction_replays_to_the_position() {
    // Middlegame with castling rights, checks and captures available.
    for fen in [
        "r3k2r/pppq1ppp/2n2n2/3pp3/1b1PP1b1/2N2N2/PPPQ1PPP/R3K2R w KQkq -",
        "4k3/8/8/8/8/8/8/4K3 b - -",
        "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6",
    ] {
        let v = json(&retract(&[fen, "--json"]));
        assert_eq!(v["position"], fen);
        assert_eq!(v["rules"], "retro");
        assert_eq!(v["illegal"], Value::Array(Vec::new()), "{fen}");
        let items = v["retractions"].as_array().expect("a list");
        assert!(!items.is_empty(), "{fen} has predecessors");
        assert_eq!(v["count"].as_u64(), Some(items.len() as u64));
        for item in items {
            let after = replay(item);
            assert_eq!(fen4(&after), fen, "{item}");
            assert!(
                item["san"].as_str().is_some_and(|s| !s.is_empty()),
                "{item}"
            );
            let kind = item["kind"].as_str().expect("kind");
            // Under the retro convention everything but a quiet piece move resets.
            assert_eq!(item["reset"], kind != "quiet", "{item}");
        }
    }
}

#[test]
fn the_convention_decides_whether_castling_resets() {
    // White has just castled short (or moved king or rook there).
    let fen = "4k3/8/8/8/8/8/8/5RK1 b - -";
    let castling = |rules: &str| {
        let v = json(&retract(&[fen, "--json", "--rules", rules]));
        v["retractions"]
            .as_array()
            .expect("a list")
            .iter()
            .find(|item| item["kind"] == "uncastling")
            .cloned()
            .expect("castling is among the last moves")
    };
    let retro = castling("retro");
    let fide = castling("fide");
    assert_eq!(retro["uci"], "e1g1");
    assert_eq!(retro["reset"], true);
    assert_eq!(fide["reset"], false);
    assert_eq!(fen4(&replay(&fide)), fen);
}

#[test]
fn a_position_illegal_on_its_face_says_why() {
    let two_kings = "4k3/8/8/8/8/8/8/3KK3 w - -";
    let human = retract(&[two_kings]);
    assert_eq!(human.code, 0, "{}", human.stderr);
    assert!(
        human.stdout.starts_with("0 retractions"),
        "{}",
        human.stdout
    );
    assert!(
        human
            .stdout
            .lines()
            .any(|l| l.trim_start().starts_with("illegal:") && l.contains("king")),
        "{}",
        human.stdout
    );

    // Castling rights without the rooks.
    let v = json(&retract(&["4k3/8/8/8/8/8/8/4K3 w KQ -", "--json"]));
    assert_eq!(v["count"], 0);
    let reasons = v["illegal"].as_array().expect("a list");
    assert_eq!(reasons.len(), 2, "{v}");
    assert!(
        reasons
            .iter()
            .all(|r| r.as_str().is_some_and(|s| s.contains("castling right"))),
        "{v}"
    );
}

#[test]
fn a_position_illegal_only_by_its_history_keeps_its_local_retractions() {
    // The initial array with Black to move: only knights and rooks can have moved, so each side
    // made an even number of moves. The moves that could locally have been last are listed.
    let fen = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq -";
    let v = json(&retract(&[fen, "--json"]));
    let reasons = v["illegal"].as_array().expect("a list");
    assert!(
        reasons
            .iter()
            .any(|r| r.as_str().is_some_and(|s| s.contains("even number"))),
        "{v}"
    );
    let items = v["retractions"].as_array().expect("a list");
    assert!(!items.is_empty(), "{v}");
    for item in items {
        assert_eq!(fen4(&replay(item)), fen, "{item}");
    }
}

#[test]
fn bad_input_is_an_error_that_names_the_field() {
    let r = retract(&["4k3/8/8/8/8/8/8/4K3 w - z9"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("field 4"), "{}", r.stderr);

    let r = retract(&["4k3/8/8/8/8/8/8/4K3 w - -", "--rules", "blitz"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("blitz"), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("[possible values: retro, fide, piran, fide1988]"),
        "{}",
        r.stderr
    );
}

#[test]
fn rules_are_listed_in_the_help_suggested_on_a_typo_and_read_in_any_case() {
    let help = retract(&["--help"]);
    assert_eq!(help.code, 0, "{}", help.stderr);
    for value in ["retro", "fide", "piran", "fide1988"] {
        assert!(
            help.stdout.contains(&format!("{value}:")),
            "{}",
            help.stdout
        );
    }
    let r = retract(&["4k3/8/8/8/8/8/8/4K3 w - -", "--rules", "fid"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("a similar value exists: 'fide'"),
        "{}",
        r.stderr
    );
    let upper = json(&retract(&[
        "4k3/8/8/8/8/8/8/4K3 w - -",
        "--rules",
        "FIDE1988",
        "--json",
    ]));
    assert_eq!(upper["rules"], "fide1988");
}
