//! `retroclock solve` driven through the real binary: the JSON answer's fields, the budgets
//! (nodes, memory) giving `unknown` with what is proven so far, and input errors that name
//! what is wrong.

mod common;

use common::cli::{Run, json, json_exiting, retroclock};
use serde_json::Value;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _, fen::Fen, san::San};

/// The README's example: a lone king each, clock 120 claimed.
const KINGS: &str = "4k3/8/8/8/8/8/8/4K3 w - - 120 70";
/// K+R v K: about 400,000 positions reachable by reversible retractions.
const KRK: &str = "8/5k2/8/8/8/2K5/8/7R b - -";

fn solve(args: &[&str]) -> Run {
    retroclock("solve", args)
}

#[test]
fn the_json_answer_carries_verdict_bounds_rules_and_stats() {
    let v = json(&solve(&[
        KINGS,
        "--stip",
        "clock?",
        "--json",
        "--threads",
        "1",
    ]));
    assert_eq!(v["verdict"], "solved");
    assert_eq!(v["rules"], "retro");
    assert_eq!(v["clock"]["min"], 0);
    assert_eq!(v["clock"]["max"], Value::Null);
    assert_eq!(v["clock"]["unbounded"], true);
    assert_eq!(v["stats"]["threads"], 1);
    assert!(v["stats"]["nodes"].as_u64().is_some_and(|n| n > 0));
}

#[test]
fn the_memory_budget_stops_the_search_with_the_bounds_proven_so_far() {
    let small = json(&solve(&[
        KRK,
        "--rules",
        "fide",
        "--json",
        "--max-memory",
        "1",
    ]));
    assert_eq!(small["clock"]["complete"], false);
    assert_eq!(small["stats"]["stopped_by"], "memory budget");
    // What was found before the stop still stands: the minimum is witnessed at 0.
    assert_eq!(small["clock"]["min"], 0);
    let text = solve(&[KRK, "--rules", "fide", "--max-memory", "1"]);
    assert!(
        text.stdout
            .contains("incomplete (stopped by the memory budget)"),
        "{}",
        text.stdout
    );
    // A budget the search fits in changes nothing.
    let roomy = json(&solve(&[
        KRK,
        "--rules",
        "fide",
        "--json",
        "--max-memory",
        "4096",
    ]));
    assert_eq!(roomy["clock"]["complete"], true);
    assert_eq!(roomy["stats"]["stopped_by"], Value::Null);
    assert!(roomy["stats"]["nodes"].as_u64() > small["stats"]["nodes"].as_u64());
}

#[test]
fn a_value_witnessed_before_the_node_budget_runs_out_is_answered() {
    // Clock 301 needs a line of 301 plies; the cycles found within 2,000 positions witness it.
    let v = json(&solve(&[
        KRK,
        "--rules",
        "fide",
        "--stip",
        "clock=301",
        "--json",
        "--max-nodes",
        "2000",
    ]));
    assert_eq!(v["clock"]["complete"], false);
    assert_eq!(v["stats"]["stopped_by"], "node budget");
    assert_eq!(v["verdict"], "yes");
    assert_eq!(v["possibly"], true);
    assert!(
        v["shortest"]["moves"].as_array().is_some(),
        "a witness line is given: {v}"
    );
}

/// Replays a certificate (`start` FEN, then the SAN moves) forward with shakmaty and returns
/// the final position's four FEN fields and its halfmove clock as shakmaty counts it.
fn replay_certificate(v: &Value) -> (String, u32) {
    let detail = &v["certificate_detail"];
    let fen: Fen = detail["start"]
        .as_str()
        .expect("start")
        .parse()
        .expect("a FEN");
    let mut chess: Chess = fen
        .into_position(CastlingMode::Standard)
        .expect("a legal start");
    for san in v["certificate"].as_array().expect("moves") {
        let san: San = san.as_str().expect("SAN").parse().expect("SAN");
        let mv = san.to_move(&chess).expect("a legal move");
        chess.play_unchecked(mv);
    }
    let fen = Fen::from_position(&chess, EnPassantMode::Legal).to_string();
    let fields: Vec<&str> = fen.split(' ').take(4).collect();
    (fields.join(" "), chess.halfmoves())
}

#[test]
fn a_witness_line_has_every_ply_of_the_value_it_witnesses() {
    // Clock 120 is witnessed by a line whose last 120 plies keep the count: the kings go
    // round a cycle, and every turn of it is written out; a game from the initial array to
    // the line's start certifies it.
    let v = json(&solve(&[
        KINGS,
        "--stip",
        "clock=120",
        "--json",
        "--threads",
        "1",
    ]));
    assert_eq!(v["verdict"], "yes");
    assert_eq!(v["certificate_detail"]["level"], "certified");
    assert_eq!(v["certified"]["clock"], 120);
    assert_eq!(v["certificate_detail"]["clock"], 120);
    let (fen, clock) = replay_certificate(&v);
    assert_eq!(fen, "4k3/8/8/8/8/8/8/4K3 w - -");
    assert_eq!(clock, 120);

    // A claim possible by 9.3.1 or 9.3.2: the line reaches a clock of at least 99.
    let claim = json(&solve(&[
        "8/8/4k3/8/8/3K4/8/7R w - -",
        "--stip",
        "claim?",
        "--rules",
        "fide",
        "--json",
    ]));
    assert_eq!(claim["possibly"], true);
    // Which article allows it: either, in some history (the clock is unbounded), and neither in
    // every one (the last move may have been a capture).
    let c = &claim["claim"];
    assert_eq!(c["threshold"], 100);
    assert_eq!(c["possibly_by_9_3_2"], true);
    assert_eq!(c["possibly_by_9_3_1"], true);
    assert_eq!(c["by_9_3_2"], false);
    assert_eq!(c["by_9_3_1"], false);
    // The verdict "no" rests on a history without a claim: the certified shortest line.
    assert_eq!(claim["verdict"], "no");
    assert_eq!(claim["certified"]["level"], "certified");
    let (fen, clock) = replay_certificate(&claim);
    assert_eq!(fen, "8/8/4k3/8/8/3K4/8/7R w - -");
    assert!(clock < 99, "{claim}");

    // Black's only moves are pawn moves: none to announce, so 9.3.1 is out in every history;
    // 9.3.2 is not.
    let pawn_only = json(&solve(&[
        "7k/p4K2/6P1/8/8/8/8/8 b - -",
        "--stip",
        "claim?",
        "--rules",
        "fide",
        "--json",
    ]));
    let c = &pawn_only["claim"];
    assert_eq!(c["announce"], Value::Array(Vec::new()));
    assert_eq!(c["possibly_by_9_3_1"], false);
    assert_eq!(c["by_9_3_1"], false);
    assert_eq!(c["possibly_by_9_3_2"], pawn_only["possibly"]);

    // Past the longest line written out, the value is still decided, and a note says why no
    // line is shown.
    let far = json(&solve(&[
        KINGS,
        "--stip",
        "clock=6000",
        "--json",
        "--threads",
        "1",
    ]));
    assert_eq!(far["verdict"], "yes");
    assert_eq!(far["certificate"], Value::Null);
    assert!(
        far["notes"]
            .as_array()
            .expect("notes")
            .iter()
            .any(|n| n.as_str().is_some_and(|s| s.contains("6000 plies"))),
        "{far}"
    );
}

#[test]
fn at_move_fixes_the_clock_when_nothing_could_reset_it() {
    // All 32 units, every pawn at home, every castling right: the clock counts every ply of
    // the game. At move 50 with Black to move that is 99 plies: a claim by 9.3.1 only.
    let knights = "r1bqkbnr/pppppppp/N1n4N/8/8/8/PPPPPPPP/R1BQKB1R b KQkq -";
    let v = json(&solve(&[
        knights,
        "--stip",
        "claim? at move 50",
        "--rules",
        "fide",
        "--json",
    ]));
    assert_eq!(v["stipulation"], "claim? at move 50");
    assert_eq!(v["verdict"], "yes");
    let at = &v["at_move"];
    assert_eq!(at["move"], 50);
    assert_eq!(at["plies"], 99);
    assert_eq!(at["reached"], true);
    assert_eq!(at["clock_is_length"], true);
    assert_eq!(
        (&v["clock"]["min"], &v["clock"]["max"]),
        (&99.into(), &99.into())
    );
    let c = &v["claim"];
    assert_eq!(c["by_9_3_1"], true);
    assert_eq!(c["possibly_by_9_3_2"], false);
    // The witness is the whole game: 99 plies from the initial array, replayed here.
    assert_eq!(
        v["certificate_detail"]["start"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
    );
    assert_eq!(v["certificate"].as_array().map(Vec::len), Some(99));
    let (fen, clock) = replay_certificate(&v);
    assert_eq!(fen, knights);
    assert_eq!(clock, 99);

    // Without the premise the clock is only bounded below (15), and no claim is certain.
    let free = json(&solve(&[
        knights, "--stip", "claim?", "--rules", "fide", "--json",
    ]));
    assert_eq!(free["verdict"], "no");

    // The FEN's own fullmove number is judged the same way by `fen`: at move 50 the clock can
    // only be 99.
    for (fields, verdict) in [("99 50", "yes"), ("97 50", "no"), ("99 49", "no")] {
        let v = json(&solve(&[
            &format!("{knights} {fields}"),
            "--rules",
            "fide",
            "--json",
        ]));
        assert_eq!(v["verdict"], verdict, "{fields}: {v}");
    }

    // A premise where the clock is not fixed only caps it: K+R v K needs more than 18 plies
    // (proof-game bounds), so at move 10 the position cannot occur.
    let early = json(&solve(&[
        "8/8/4k3/8/8/3K4/8/7R w - -",
        "--stip",
        "clock<=18 at move 10",
        "--rules",
        "fide",
        "--json",
    ]));
    assert_eq!(early["verdict"], "no");
    assert_eq!(early["possibly"], false);
    assert_eq!(early["at_move"]["reached"], false);
    assert_eq!(early["at_move"]["clock_is_length"], false);
    // A claim there is no as a whole and by each rule.
    let claim = json(&solve(&[
        "8/8/4k3/8/8/3K4/8/7R w - -",
        "--stip",
        "claim? at move 10",
        "--rules",
        "fide",
        "--json",
    ]));
    assert_eq!(
        (&claim["verdict"], &claim["possibly"], &claim["necessarily"]),
        (&"no".into(), &false.into(), &false.into())
    );
    for field in [
        "by_9_3_1",
        "by_9_3_2",
        "possibly_by_9_3_1",
        "possibly_by_9_3_2",
    ] {
        assert_eq!(claim["claim"][field], false, "{field}: {claim}");
    }

    // An illegal position stays illegal under a premise.
    let two_kings = json_exiting(
        &solve(&[
            "4k3/8/8/8/8/8/8/3KK3 w - -",
            "--stip",
            "claim? at move 60",
            "--json",
        ]),
        1,
    );
    assert_eq!(two_kings["verdict"], "illegal");
    assert_eq!(two_kings["clock"]["standing"], "illegal");
}

#[test]
fn dot_writes_the_explored_graph_for_graphviz() {
    let path = std::env::temp_dir().join(format!("retroclock-dot-{}.dot", std::process::id()));
    let path_text = path.to_str().expect("a UTF-8 path");
    let r = solve(&["7k/8/8/8/8/8/8/K7 w - -", "--dot", path_text]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dot = std::fs::read_to_string(&path).expect("the file was written");
    std::fs::remove_file(&path).ok();
    // K v K explores 7,224 positions: the 5,000 nearest are drawn, and both the file and the
    // run say so.
    let cut = "the 5000 positions nearest to the position, of 7224 explored";
    assert!(dot.starts_with(&format!("// {cut}\ndigraph {{")), "{dot}");
    assert!(
        r.stderr
            .contains(&format!("--dot: {path_text} holds {cut}")),
        "{}",
        r.stderr
    );
    let nodes: Vec<&str> = dot.lines().filter(|l| l.contains("label")).collect();
    let edges = dot.lines().filter(|l| l.contains(" -> ")).count();
    assert!(nodes.len() == 5000 && edges > 0, "{dot}");
    // Plain labels (the distance, and "origin" for an origin), origins with a double outline.
    for node in &nodes {
        assert!(!node.contains("\\\""), "{node}");
        assert_eq!(
            node.contains("origin"),
            node.contains("peripheries = 2"),
            "{node}"
        );
    }
    assert!(nodes[0].contains("label = \"0"), "{}", nodes[0]);

    // A graph that fits is drawn whole, without a word about it.
    let r = solve(&["4k3/8/8/8/8/8/8/R3K2R w KQ -", "--dot", path_text]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let dot = std::fs::read_to_string(&path).expect("the file was written");
    std::fs::remove_file(&path).ok();
    assert!(dot.starts_with("digraph {"), "{dot}");
    assert!(!r.stderr.contains("--dot"), "{}", r.stderr);
}

#[test]
fn an_illegal_position_has_no_clock_values() {
    // The verdict is `illegal`, with exit status 1, whatever the question.
    let v = json_exiting(
        &solve(&["4k3/8/8/8/8/8/8/3KK3 w - -", "--stip", "clock?", "--json"]),
        1,
    );
    assert_eq!(v["verdict"], "illegal");
    let clock = &v["clock"];
    assert_eq!(clock["standing"], "illegal");
    assert_eq!(clock["min"], Value::Null);
    assert_eq!(
        clock["max"],
        Value::Null,
        "no value, so no maximum: {clock}"
    );
    assert_eq!(clock["max_at_least"], Value::Null);
    assert_eq!(clock["values"], Value::Array(Vec::new()));
}

#[test]
fn bad_input_is_an_error_that_names_what_is_wrong() {
    let r = solve(&[KRK, "--max-memory", "0"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--max-memory"), "{}", r.stderr);

    let r = solve(&["8/5k2/8/8/8/2K5/8/7R x - -"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.to_lowercase().contains("side to move"),
        "{}",
        r.stderr
    );

    let r = solve(&[KRK, "--stip", "clock=>5"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("clock=>5"), "{}", r.stderr);
}

/// `rights-freeze` (puzzles/clock.epd) with its castling field unknown.
const FREEZE_UNKNOWN: &str = "r3k2r/pppp1ppp/4p3/8/8/8/PPPPBPPP/R3K2R b ? -";

#[test]
fn the_codex_reading_holds_every_right_it_cannot_refute() {
    let codex = json(&solve(&[
        FREEZE_UNKNOWN,
        "--stip",
        "clock?",
        "--rules",
        "fide",
        "--codex",
        "--json",
        "--proof-time",
        "20",
    ]));
    assert_eq!(codex["verdict"], "solved");
    assert_eq!(codex["codex"]["certified"], true);
    assert_eq!(codex["clock"]["min"], 0);
    assert_eq!(codex["clock"]["max"], 1);
    assert_eq!(codex["codex"]["alternatives"], serde_json::json!(["KQkq"]));
    assert_eq!(codex["codex"]["settled"], true);
    // Only the largest set needed examining; the others lie under it.
    let sets = codex["codex"]["sets"].as_array().expect("sets");
    assert_eq!(sets.len(), 16);
    assert_eq!(sets[0]["finding"], "certified");
    assert!(sets[1..].iter().all(|s| s["finding"] == "covered"));
    // Without the reading the field stands for every set, kings and rooks that moved included.
    let open = json(&solve(&[
        FREEZE_UNKNOWN,
        "--stip",
        "clock?",
        "--rules",
        "fide",
        "--json",
    ]));
    assert_eq!(open["clock"]["unbounded"], true);
    assert!(open.get("codex").is_none());
}

#[test]
fn rights_that_exclude_each_other_are_read_as_alternatives() {
    let r = solve(&[
        "4k3/8/8/8/8/8/PPPPPPPP/R3K2R b ? -",
        "--stip",
        "clock?",
        "--rules",
        "fide",
        "--codex",
        "--proof-time",
        "0",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("castling field read by the Codex"));
    assert!(r.stdout.contains("partial retro-analysis"));
    assert!(r.stdout.contains("the alternatives Q, K"), "{}", r.stdout);
    assert!(r.stdout.contains("rights KQ refuted"));
}

#[test]
fn a_codex_reading_left_open_by_the_budget_keeps_only_proofs() {
    let v = json(&solve(&[
        FREEZE_UNKNOWN,
        "--stip",
        "clock<=1",
        "--rules",
        "fide",
        "--codex",
        "--json",
        "--max-nodes",
        "1",
    ]));
    assert_eq!(v["verdict"], "unknown");
    assert_eq!(v["possibly"], Value::Null);
    assert_eq!(v["codex"]["settled"], false);
    assert_eq!(v["clock"]["min"], Value::Null);
    // A proof over every set of rights holds for the reading too: one ply since the initial
    // array cannot have made ...e6 and Be2.
    let fen_no = json(&solve(&[
        &format!("{FREEZE_UNKNOWN} 5 1"),
        "--codex",
        "--json",
        "--max-nodes",
        "1",
    ]));
    assert_eq!(fen_no["verdict"], "no");
    assert_eq!(fen_no["codex"]["settled"], false);
}

#[test]
fn the_codex_reading_refuses_a_given_castling_field_and_counting_questions() {
    let given = solve(&["r3k2r/8/8/8/8/8/8/R3K2R w KQkq -", "--codex"]);
    assert_eq!(given.code, 2, "{}", given.stdout);
    assert!(
        given
            .stderr
            .contains("--codex reads an unknown castling field")
    );
    assert!(given.stderr.contains("KQkq"));
    let last = solve(&[FREEZE_UNKNOWN, "--codex", "--stip", "last 1?"]);
    assert_eq!(last.code, 2);
    assert!(last.stderr.contains("not to `last 1?`"), "{}", last.stderr);
}

#[test]
fn the_moves_to_announce_cover_every_reading_of_the_castling_field() {
    let announce = |fen: &str, rules: &str| -> Vec<String> {
        let v = json(&solve(&[
            fen,
            "--stip",
            "claim?",
            "--rules",
            rules,
            "--json",
            "--proof-time",
            "0",
        ]));
        serde_json::from_value(v["claim"]["announce"].clone()).expect("a list of moves")
    };
    // Castling keeps the count under FIDE: with the field unknown it may be announced.
    let open = announce("4k3/8/8/8/8/8/8/R3K2R w ? -", "fide");
    assert!(open.iter().any(|m| m == "O-O") && open.iter().any(|m| m == "O-O-O"));
    assert!(open.iter().any(|m| m == "Rb1"));
    let none = announce("4k3/8/8/8/8/8/8/R3K2R w - -", "fide");
    assert!(!none.iter().any(|m| m.starts_with("O-O")));
    // Under the retro convention castling resets the count: never announced.
    let retro = announce("4k3/8/8/8/8/8/8/R3K2R w ? -", "retro");
    assert!(!retro.iter().any(|m| m.starts_with("O-O")));
}

#[test]
fn castling_asks_for_the_largest_sets_of_rights_not_refuted() {
    let v = json(&solve(&[
        "4k3/8/8/8/8/8/PPPPPPPP/R3K2R b ? -",
        "--stip",
        "castling?",
        "--json",
        "--proof-time",
        "0",
    ]));
    // Without games from the initial array the alternatives rest on witnesses: the reading
    // is what they suggest, not a proof.
    assert_eq!(v["verdict"], "unknown");
    assert_eq!(v["castling"]["certified"], false);
    assert_eq!(v["castling"]["alternatives"], serde_json::json!(["K", "Q"]));
    let given = solve(&["4k3/8/8/8/8/8/PPPPPPPP/R3K2R b K -", "--stip", "castling?"]);
    assert_eq!(given.code, 2);
    assert!(
        given
            .stderr
            .contains("castling? reads an unknown castling field"),
        "{}",
        given.stderr
    );
    let open = json(&solve(&[
        "4k3/8/8/8/8/8/PPPPPPPP/R3K2R b ? -",
        "--stip",
        "castling?",
        "--json",
        "--max-nodes",
        "1",
    ]));
    assert_eq!(open["verdict"], "unknown");
    assert_eq!(open["castling"]["alternatives"], Value::Null);
}

#[test]
fn a_reading_backed_by_a_proof_game_says_so() {
    let v = json(&solve(&[
        "r1bqkbnr/pppppppp/2n5/8/8/5N2/PPPPPPPP/RNBQKB1R w ? -",
        "--stip",
        "castling?",
        "--json",
    ]));
    assert_eq!(v["castling"]["alternatives"], serde_json::json!(["KQkq"]));
    assert_eq!(v["castling"]["certified"], true);
    assert_eq!(v["codex"]["sets"][0]["finding"], "certified");
}

#[test]
fn an_undecided_premise_keeps_only_the_proven_bounds_in_every_answer() {
    // At move 40 the game has lasted 79 plies; whether one of them reaches K+R v K with a long
    // clock is not decided. The clock over all histories (0 to unbounded) is not shown as the
    // clock of those games.
    for stip in [
        "clock>=50 at move 40",
        "claim? at move 40",
        "clock? at move 40",
    ] {
        let v = json(&solve(&[KRK, "--stip", stip, "--json"]));
        // No clock exceeds 79: no claim is possible, whether or not such a game exists.
        let verdict = if stip.starts_with("claim") {
            "no"
        } else {
            "unknown"
        };
        assert_eq!(v["verdict"], verdict, "{stip}");
        assert_eq!(v["clock"]["min"], Value::Null, "{stip}");
        assert_eq!(v["clock"]["max"], Value::Null, "{stip}");
        assert_eq!(v["clock"]["unbounded"], false, "{stip}");
        assert_eq!(v["clock"]["values"], Value::Null, "{stip}");
        assert_eq!(v["at_move"]["plies"], 79, "{stip}");
    }
}

#[test]
fn a_graph_too_large_for_the_values_says_why_they_are_not_listed() {
    let r = solve(&["8/8/4k3/8/8/3K4/8/7R w - -"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "values: not listed (398627 positions explored, more than 200000); each clock=N is still decided"
        ),
        "{}",
        r.stdout
    );
    // A smaller graph lists them.
    let r = solve(&["7k/8/8/8/8/8/8/K7 w - -"]);
    assert!(
        r.stdout.contains(
            "values up to 300 (witnessed; every other value is proven impossible): 0 1 2 3"
        ),
        "{}",
        r.stdout
    );
}

#[test]
fn the_timeout_bounds_the_last_moves_too() {
    // Four plies back from a crowded middlegame position: far more than 0.05 s of work.
    let r = solve(&[
        "r3k2r/pppq1ppp/2n1bn2/3pp3/3PP3/2N1BN2/PPPQ1PPP/R3K2R w ? -",
        "--stip",
        "last 4?",
        "--timeout",
        "0.05",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("sequence(s) at least (budget ran out)"),
        "{}",
        r.stdout
    );
}
