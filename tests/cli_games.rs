//! `retroclock games` driven through the real binary: corpus games against their expected
//! facts, `--verify` on real games, and a bad game between two good ones.
//!
//! The corpus lives beside the project (`../shared/corpus` from the crate root); the environment
//! variable `RETROCLOCK_CORPUS` overrides that folder. Without it the corpus tests say so on
//! stderr and pass.

mod common;

use common::cli::{Run, run};
use std::path::{Path, PathBuf};

use assert_cmd::cargo::cargo_bin_cmd;
use serde_json::Value;

fn clean_chess() -> Option<PathBuf> {
    let root = std::env::var_os("RETROCLOCK_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    );
    let dir = root.join("clean_chess");
    if dir.join("expected.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "skipped: corpus not found at {} (set RETROCLOCK_CORPUS to the corpus folder)",
            dir.display()
        );
        None
    }
}

fn games(files: &[&Path], extra: &[&str]) -> Run {
    let mut cmd = cargo_bin_cmd!("retroclock");
    cmd.arg("games").args(files).args(extra);
    run(cmd)
}

fn jsonl(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// Corpus games with the expected maximum clock and final FEN of `expected.tsv`.
const GAMES: &[&str] = &[
    "basic/fifty/02_fifty_end_with_half_move_clock_100.pgn",
    "basic/castling/simplest/white/01_white_castling_king_side.pgn",
    "basic/capture/systematic/white/10_white_capture_knight_pawn.pgn",
    "parserFenMechanics/from_fen_one_move_half_move_clock_100_white_to_move.pgn",
];

#[test]
fn corpus_games_match_their_expected_facts() {
    let Some(dir) = clean_chess() else { return };
    let table = std::fs::read_to_string(dir.join("expected.tsv")).expect("expected.tsv");
    let paths: Vec<PathBuf> = GAMES.iter().map(|g| dir.join(g)).collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let r = games(&refs, &["--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let objects = jsonl(&r.stdout);
    assert_eq!(objects.len(), GAMES.len());
    for (game, object) in GAMES.iter().zip(&objects) {
        let row: Vec<&str> = table
            .lines()
            .find(|l| l.starts_with(&format!("{game}\t")))
            .unwrap_or_else(|| panic!("{game} not in expected.tsv"))
            .split('\t')
            .collect();
        assert_eq!(object["file"], dir.join(game).display().to_string());
        assert_eq!(object["max_clock"].to_string(), row[4], "{game}");
        assert_eq!(object["final_fen"], row[6], "{game}");
    }
    // The run reaching 100 in the fifty-move game, with its labels.
    let run = &objects[0]["runs"][0];
    assert_eq!(run["start_ply"], 12);
    assert_eq!(run["claim_9_3_2_label"], "56...Nd6");
    assert_eq!(run["claim_9_3_2_ply"], 112);
    assert_eq!(run["max_clock"], 100);
    assert!(run["over_9_6_2_ply"].is_null());
    assert!(run.get("end_ply").is_some() && run.get("claim_9_3_1_ply").is_some());

    // The same games for a person: each report names its file.
    let r = games(&refs, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains(&format!("{}: game 1", dir.join(GAMES[0]).display())),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("9.3.2 claim possible from 56...Nd6 (clock 100)"),
        "{}",
        r.stdout
    );
}

#[test]
fn castling_counts_differently_under_the_retro_rules() {
    let Some(dir) = clean_chess() else { return };
    let path = dir.join(GAMES[1]);
    let fide = jsonl(&games(&[&path], &["--json"]).stdout);
    let retro = jsonl(&games(&[&path], &["--json", "--rules", "retro"]).stdout);
    assert_eq!(fide[0]["convention"], "fide");
    assert_eq!(retro[0]["convention"], "retro");
    // The game ends right after White castles: the count restarts only under the retro rules.
    assert_eq!(fide[0]["final_clock"], 5);
    assert_eq!(retro[0]["final_clock"], 0);
    let r = games(&[&path], &["--rules", "piran"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("invalid value 'piran' for '--rules <RULES>'")
            && r.stderr.contains("[possible values: fide, retro]"),
        "{}",
        r.stderr
    );
}

#[test]
fn verify_finds_every_real_position_possible() {
    let Some(dir) = clean_chess() else { return };
    let paths: Vec<PathBuf> = GAMES.iter().map(|g| dir.join(g)).collect();
    let refs: Vec<&Path> = paths.iter().map(PathBuf::as_path).collect();
    let r = games(&refs, &["--json", "--verify", "--max-nodes", "2000"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for object in jsonl(&r.stdout) {
        let v = &object["verify"];
        assert_eq!(v["failures"], serde_json::json!([]), "{object}");
        let plies = object["plies"].as_u64().expect("plies");
        assert_eq!(v["positions"].as_u64(), Some(plies + 1), "{object}");
        let seen = v["witnessed"].as_u64().unwrap() + v["undecided"].as_u64().unwrap();
        assert_eq!(seen, plies + 1, "{object}");
    }
    // Short games from the initial array: every real clock is witnessed, not merely undecided.
    let r = games(&[&paths[2]], &["--verify", "--max-nodes", "2000"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains(
            "verify: 4 positions, 0 failure(s); the real clock witnessed in 4, undecided within the budget in 0"
        ),
        "{}",
        r.stdout
    );
}

fn temp_pgn(name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_games");
    std::fs::create_dir_all(&dir).expect("temp folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path
}

const THREE_GAMES: &str = "[Event \"one\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n\
     [Event \"two\"]\n\n1. e4 e5 2. Ke3 Nc6 0-1\n\n\
     [Event \"three\"]\n\n1. d4 d5 2. Nf3 Nf6 3. Ng1 Ng8 1/2-1/2\n";

#[test]
fn a_bad_game_between_two_good_ones() {
    let path = temp_pgn("three.pgn", THREE_GAMES);
    let file = path.display().to_string();
    let r = games(&[&path], &[]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains(&format!("error: {file}:9, game 2: illegal move \"Ke3\"")),
        "{}",
        r.stderr
    );
    let one = r
        .stdout
        .find(&format!("{file}: game 1 (A - B): 4 half-moves"));
    let two = r
        .stdout
        .find(&format!("{file}:9, game 2: error: illegal move"));
    let three = r.stdout.find(&format!(
        "{file}: game 3: 6 half-moves, result 1/2-1/2, max clock 4"
    ));
    assert!(
        one.is_some() && two.is_some() && three.is_some() && one < two && two < three,
        "{}",
        r.stdout
    );

    let r = games(&[&path], &["--json", "--verify", "--max-nodes", "2000"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    let objects = jsonl(&r.stdout);
    assert_eq!(objects.len(), 3);
    assert_eq!(objects[0]["game"], 1);
    assert_eq!(
        objects[0]["final_fen"],
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
    );
    assert_eq!(objects[1]["error"], "illegal move \"Ke3\"");
    assert_eq!(objects[1]["game"], 2);
    assert_eq!(objects[1]["line"], 9);
    assert_eq!(objects[1]["file"], file);
    assert_eq!(objects[2]["max_clock"], 4);
    assert_eq!(objects[2]["verify"]["positions"], 7);
    assert_eq!(objects[2]["verify"]["failures"], serde_json::json!([]));
}

/// The run exited 0 and `--verify` checked `positions` positions without a failure.
fn assert_verified(r: &Run, positions: usize) {
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains(&format!("verify: {positions} positions, 0 failure(s)")),
        "{}",
        r.stdout
    );
}

#[test]
fn good_games_exit_0_and_a_missing_file_exits_2() {
    let good = temp_pgn("good.pgn", "1. e4 c5 2. Nf3 d6 *\n");
    assert_verified(&games(&[&good], &["--verify", "--max-nodes", "2000"]), 5);
    let missing = good.with_file_name("absent.pgn");
    let r = games(&[&good, &missing], &[]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains(&format!("error: {}: cannot read", missing.display())),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("game 1: 4 half-moves"), "{}", r.stdout);
}

#[test]
fn verify_takes_a_memory_budget_and_rejects_zero() {
    let good = temp_pgn("memory.pgn", "1. e4 c5 2. Nf3 d6 *\n");
    assert_verified(&games(&[&good], &["--verify", "--max-memory", "1"]), 5);
    let r = games(&[&good], &["--verify", "--max-memory", "0"]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("--max-memory must be at least 1 (megabytes)"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_folder_stands_for_its_pgn_files_in_path_order() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_games_folder");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("b_sub")).expect("temp folders");
    std::fs::create_dir_all(dir.join("empty")).expect("temp folders");
    std::fs::write(dir.join("c.PGN"), "1. d4 d5 *\n").expect("temp file");
    std::fs::write(dir.join("a.pgn"), "1. e4 *\n").expect("temp file");
    std::fs::write(dir.join("b_sub/z.pgn"), "1. Nf3 Nf6 2. Ng1 *\n").expect("temp file");
    std::fs::write(dir.join("notes.txt"), "not a game").expect("temp file");

    let r = games(&[&dir], &["--json"]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let files: Vec<String> = jsonl(&r.stdout)
        .iter()
        .map(|o| o["file"].as_str().expect("a file name").to_string())
        .collect();
    let expected: Vec<String> = ["a.pgn", "b_sub/z.pgn", "c.PGN"]
        .iter()
        .map(|f| dir.join(f).display().to_string())
        .collect();
    assert_eq!(files, expected);

    // A folder without games is an error naming it; the other paths are still read.
    let empty = dir.join("empty");
    let r = games(&[&empty, &dir.join("a.pgn")], &[]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "error: {}: no .pgn file in this folder",
            empty.display()
        )),
        "{}",
        r.stderr
    );
    assert!(r.stdout.contains("game 1: 1 half-moves"), "{}", r.stdout);
}

#[test]
fn a_dash_reads_the_games_from_standard_input() {
    let mut cmd = cargo_bin_cmd!("retroclock");
    cmd.args(["games", "-"]).write_stdin(THREE_GAMES);
    let r = run(cmd);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("-: game 1 (A - B): 4 half-moves"),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("error: -:9, game 2: illegal move \"Ke3\""),
        "{}",
        r.stderr
    );
}
