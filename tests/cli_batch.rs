//! `retroclock batch` driven through the real binary: statuses, errors with file and line,
//! exit codes, shards, and the JSON Lines and CSV outputs.

mod common;

use common::cli::run;
use std::{
    collections::BTreeSet,
    path::{Path, PathBuf},
};

use assert_cmd::{Command, cargo::cargo_bin_cmd};
use serde_json::Value;

const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
const KRK: &str = "8/8/4k3/8/8/3K4/8/7R w - -";
const TWO_KINGS: &str = "4k3/8/8/8/8/8/8/3KK3 w - -";

/// Writes `text` to a fresh file named `name` in a folder of its own.
fn temp_file(test: &str, name: &str, text: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("cli_batch_{test}"));
    std::fs::create_dir_all(&dir).expect("temp folder");
    let path = dir.join(name);
    std::fs::write(&path, text).expect("temp file");
    path
}

fn batch(files: &[&Path], extra: &[&str]) -> Command {
    let mut cmd = cargo_bin_cmd!("retroclock");
    cmd.arg("batch").args(files).args(["--max-nodes", "5000"]);
    cmd.args(extra);
    cmd
}

/// Entries that the solver confirms within 5,000 positions each.
fn confirmed_entries() -> String {
    [
        format!("# confirmed entries\n{START} id \"start\"; stip \"clock?\"; sol \"0..inf\";"),
        format!("{START} id \"four\"; stip \"clock>=4\"; sol \"yes\";"),
        format!("{START} id \"fullmove\"; stip \"fen\"; hmvc 3; fmvn 1; sol \"no\";"),
        format!("{KRK} id \"krk\"; stip \"clock?\"; rules fide; sol \"0..inf\";"),
        format!("{TWO_KINGS} id \"kings\"; stip \"legal?\"; sol \"no\";"),
        format!("{KRK} 12 40"),
    ]
    .join("\n")
        + "\n"
}

#[test]
fn malformed_lines_are_errors_with_file_and_line_and_the_rest_is_solved() {
    let text = format!(
        "{START} id \"good1\"; stip \"clock?\"; sol \"0..inf\";\n\
         rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - id \"badfen\"; stip \"clock?\";\n\
         # a comment between entries\n\
         {START} id \"badstip\"; stip \"mate in 2\"; sol \"yes\";\n\
         {START} id \"badsol\"; stip \"claim?\"; sol \"perhaps\";\n\
         {START} id \"badrange\"; stip \"clock?\"; sol \"9..3\";\n\
         {TWO_KINGS} id \"good2\"; stip \"legal?\"; sol \"no\";\n"
    );
    let path = temp_file("malformed", "mixed.epd", &text);
    let r = run(batch(&[&path], &[]));
    assert_eq!(r.code, 2, "stdout:\n{}\nstderr:\n{}", r.stdout, r.stderr);
    let file = path.display().to_string();
    for (line, what) in [
        (2, "FEN field 1 (placement)"),
        (
            4,
            "stipulation 'mate in 2', at character 1: unknown stipulation",
        ),
        (
            5,
            "sol: expected 'yes', 'yes by 9.3.1', 'yes by 9.3.2' or 'no', found 'perhaps'",
        ),
        (6, "sol: the range 9..3 is empty"),
    ] {
        let wanted = format!("{file}:{line}: error: {what}");
        assert!(r.stdout.contains(&wanted), "{wanted}\nin\n{}", r.stdout);
        let on_stderr = format!("error: {file}:{line}: {what}");
        assert!(
            r.stderr.contains(&on_stderr),
            "{on_stderr}\nin\n{}",
            r.stderr
        );
    }
    assert!(
        r.stdout
            .contains(&format!("{file}:1 \"good1\" clock? [retro]: confirmed")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(&format!("{file}:7 \"good2\" legal? [retro]: confirmed")),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .ends_with("2 confirmed, 0 plausible, 0 mismatch, 0 doubtful, 0 ambiguous, 0 unknown, 0 unstated, 4 error\n"),
        "{}",
        r.stdout
    );
}

#[test]
fn an_unreadable_file_is_an_error_and_the_others_are_checked() {
    let good = temp_file("unreadable", "good.epd", &confirmed_entries());
    let missing = good.with_file_name("missing.epd");
    let r = run(batch(&[&good, &missing], &[]));
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains(&format!("error: {}: cannot read", missing.display())),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout
            .contains("5 confirmed, 0 plausible, 0 mismatch, 0 doubtful, 0 ambiguous, 0 unknown, 1 unstated, 1 error"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_file_whose_entries_all_confirm_exits_0() {
    let path = temp_file("confirm", "good.epd", &confirmed_entries());
    let r = run(batch(&[&path], &["--jobs", "2"]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert_eq!(r.stdout.lines().count(), 7, "{}", r.stdout);
    assert!(
        r.stdout
            .ends_with("5 confirmed, 0 plausible, 0 mismatch, 0 doubtful, 0 ambiguous, 0 unknown, 1 unstated, 0 error\n"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains(":7 fen [retro]: unstated (solver likely yes (witnessed))"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_mismatch_exits_1_and_shows_both_answers() {
    let text = format!("{START} id \"wrong\"; stip \"clock>=4\"; sol \"no\";\n");
    let path = temp_file("mismatch", "wrong.epd", &text);
    let r = run(batch(&[&path], &[]));
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("\"wrong\" clock>=4 [retro]: mismatch (stated no, solver yes)"),
        "{}",
        r.stdout
    );
}

#[test]
fn ambiguous_and_unknown_answers_exit_1() {
    let text = format!("{KRK} id \"claim\"; stip \"claim?\"; rules fide; sol \"yes\";\n");
    let path = temp_file("ambiguous", "open.epd", &text);
    let r = run(batch(&[&path], &[]));
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("\"claim\" claim? [fide]: ambiguous (stated yes, solver yes in some histories, no in others)"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1 ambiguous"), "{}", r.stdout);
    // Every move so far was a knight move (full material, pawns and rights at home): the
    // minimum lies 16 plies back, beyond the tests' budget of 5,000 positions.
    let knights = "r1bqkb1r/pppppppp/N6N/8/8/n6n/PPPPPPPP/R1BQKB1R w KQkq - id \"knights\"; stip \"clock?\"; rules fide; sol \"16..inf even\";\n";
    let path = temp_file("unknown", "knights.epd", knights);
    let r = run(batch(&[&path], &[]));
    assert_eq!(r.code, 1, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("\"knights\" clock? [fide]: unknown"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("1 unknown"), "{}", r.stdout);
}

fn jsonl(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

#[test]
fn shards_partition_the_entries() {
    let mut text = confirmed_entries();
    text.push_str(&format!(
        "{START} stip \"bogus\";\n{START} 0 1\n{KRK} ? ?\n"
    ));
    let path = temp_file("shards", "all.epd", &text);
    let key = |v: &Value| {
        (
            v["file"].as_str().unwrap().to_string(),
            v["line"].as_u64().unwrap(),
        )
    };
    let all: Vec<(String, u64)> = jsonl(&run(batch(&[&path], &["--format", "jsonl"])).stdout)
        .iter()
        .map(key)
        .collect();
    assert_eq!(all.len(), 9);
    let mut union = BTreeSet::new();
    let mut total = 0;
    for k in 1..=3 {
        let shard = format!("{k}/3");
        let r = run(batch(&[&path], &["--format", "jsonl", "--shard", &shard]));
        let part: Vec<(String, u64)> = jsonl(&r.stdout).iter().map(key).collect();
        // Entry i (0-based) belongs to shard i % 3 + 1.
        let expected: Vec<(String, u64)> = all
            .iter()
            .enumerate()
            .filter(|(i, _)| i % 3 == k - 1)
            .map(|(_, e)| e.clone())
            .collect();
        assert_eq!(part, expected, "shard {shard}");
        total += part.len();
        union.extend(part);
    }
    assert_eq!(total, all.len(), "the shards overlap");
    assert_eq!(union, all.into_iter().collect::<BTreeSet<_>>());
}

#[test]
fn bad_shards_and_limits_are_clear_errors() {
    let path = temp_file("badshard", "one.epd", &format!("{KRK} 0 1\n"));
    for (args, message) in [
        (
            &["--shard", "0/3"][..],
            "--shard: expected K/N with 1 <= K <= N",
        ),
        (&["--shard", "4/3"][..], "found '4/3'"),
        (&["--shard", "two"][..], "found 'two'"),
        (&["--jobs", "0"][..], "--jobs must be at least 1"),
        (
            &["--timeout", "0"][..],
            "--timeout must be a positive number",
        ),
    ] {
        let r = run(batch(&[&path], args));
        assert_eq!(r.code, 2, "{args:?}");
        assert!(r.stderr.contains(message), "{args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty(), "{args:?}: {}", r.stdout);
    }
}

/// A small RFC 4180 reader: quoted fields may hold commas, doubled quotes and line breaks.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => field.push(c),
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut field)),
            (false, '\n') => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => field.push(c),
        }
    }
    assert!(
        !quoted && field.is_empty() && row.is_empty(),
        "unterminated CSV"
    );
    rows
}

#[test]
fn csv_and_jsonl_outputs_parse() {
    let mut text = confirmed_entries();
    text.push_str(&format!(
        "{START} id \"comma, and more\"; stip \"clock>=4\"; sol \"no\";\n{START} stip \"clock?\"; sol \"x\";\n"
    ));
    let path = temp_file("formats", "f.epd", &text);

    let r = run(batch(&[&path], &["--format", "csv"]));
    assert_eq!(r.code, 2, "{}", r.stderr);
    let rows = parse_csv(&r.stdout);
    let header = &rows[0];
    assert_eq!(header[0], "file");
    assert_eq!(rows.len(), 9, "{}", r.stdout);
    let col = |name: &str| header.iter().position(|h| h == name).expect(name);
    for row in &rows[1..] {
        assert_eq!(row.len(), header.len(), "{row:?}");
    }
    let statuses: Vec<&str> = rows[1..]
        .iter()
        .map(|r| r[col("status")].as_str())
        .collect();
    assert_eq!(
        statuses,
        [
            "confirmed",
            "confirmed",
            "confirmed",
            "confirmed",
            "confirmed",
            "unstated",
            "mismatch",
            "error"
        ]
    );
    assert_eq!(rows[7][col("id")], "comma, and more");
    assert_eq!(rows[7][col("stated")], "no");
    assert_eq!(rows[7][col("solver")], "yes");
    assert_eq!(rows[1][col("fen")], format!("{START} ? ?"));
    assert!(
        rows[8][col("reason")].contains("sol: expected MIN..MAX"),
        "{:?}",
        rows[8]
    );
    assert!(
        r.stderr.contains("5 confirmed, 0 plausible, 1 mismatch"),
        "{}",
        r.stderr
    );

    let r = run(batch(&[&path], &["--format", "jsonl"]));
    assert_eq!(r.code, 2);
    let objects = jsonl(&r.stdout);
    assert_eq!(objects.len(), 8);
    let first = &objects[0];
    assert_eq!(first["id"], "start");
    assert_eq!(first["line"], 2);
    assert_eq!(first["status"], "confirmed");
    assert_eq!(first["stipulation"], "clock?");
    assert_eq!(first["rules"], "retro");
    assert_eq!(first["stated"], "0..inf");
    assert_eq!(first["verdict"], "solved");
    assert_eq!(first["clock"]["min"], 0);
    assert_eq!(first["clock"]["unbounded"], true);
    assert_eq!(objects[6]["status"], "mismatch");
    assert_eq!(objects[6]["solver"], "yes");
    assert_eq!(objects[7]["status"], "error");
    assert_eq!(objects[7]["line"], 9);
    assert!(
        objects[7]["error"].as_str().unwrap().starts_with("sol: "),
        "{}",
        objects[7]
    );
}

#[test]
fn a_zero_memory_budget_is_refused() {
    let path = temp_file("memory", "one.epd", &confirmed_entries());
    let r = run(batch(&[&path], &["--max-memory", "0"]));
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--max-memory"), "{}", r.stderr);
}

#[test]
fn a_folder_stands_for_its_puzzle_files_and_an_empty_one_is_an_error() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_batch_folder");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("deep")).expect("temp folders");
    let good = dir.join("deep/good.epd");
    std::fs::write(&good, confirmed_entries()).expect("temp file");
    let dir = dir.as_path();
    std::fs::write(dir.join("plain.FEN"), format!("{KRK}\n")).expect("temp file");
    std::fs::write(dir.join("readme.md"), "not a puzzle\n").expect("temp file");
    let r = run(batch(&[dir], &[]));
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .ends_with("5 confirmed, 0 plausible, 0 mismatch, 0 doubtful, 0 ambiguous, 0 unknown, 2 unstated, 0 error\n"),
        "{}",
        r.stdout
    );
    let deep = r.stdout.find("good.epd:").expect("the deep file's entries");
    let plain = r.stdout.find("plain.FEN:").expect("the plain file's entry");
    assert!(deep < plain, "{}", r.stdout);

    let empty = dir.join("empty");
    std::fs::create_dir_all(&empty).expect("temp folder");
    let r = run(batch(&[&empty, &good], &[]));
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains(&format!(
            "error: {}: no .epd or .fen file in this folder",
            empty.display()
        )),
        "{}",
        r.stderr
    );
    assert!(
        r.stdout
            .contains("5 confirmed, 0 plausible, 0 mismatch, 0 doubtful, 0 ambiguous, 0 unknown, 1 unstated, 1 error"),
        "{}",
        r.stdout
    );
}

#[test]
fn a_dash_reads_the_entries_from_standard_input() {
    let mut cmd = batch(&[Path::new("-")], &[]);
    cmd.write_stdin(format!("{KRK}\n{TWO_KINGS}\n"));
    let r = run(cmd);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("-:1 fen [retro]: unstated (solver yes)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .ends_with("0 confirmed, 0 plausible, 0 mismatch, 0 doubtful, 0 ambiguous, 0 unknown, 2 unstated, 0 error\n"),
        "{}",
        r.stdout
    );
}
