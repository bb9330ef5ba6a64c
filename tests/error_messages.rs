//! Every error path of the FEN reader, the stipulation parser and the puzzle (EPD) reader gives a
//! message without stutter: no word twice in a row, no word of substance twice at all, and the
//! field (or the operation, or the stipulation) at fault named exactly once. Text the message
//! quotes back from the input ('…', "…", `…`) is left out of the count: it is the user's.

mod common;

use common::cli::retroclock;
use retroclock::{batch::entries_from_text, position::PositionInput, stipulation::Stipulation};

/// The message with every quoted part removed.
fn unquoted(message: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    for c in message.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            // An apostrophe inside a word (`FEN's`) opens no quote.
            None if matches!(c, '"' | '`')
                || (c == '\'' && !out.ends_with(char::is_alphanumeric)) =>
            {
                quote = Some(c)
            }
            None => out.push(c),
        }
    }
    out
}

/// The words of `text` in lower case, without the punctuation around them.
fn words(text: &str) -> Vec<String> {
    text.split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| !c.is_alphanumeric())
                .to_lowercase()
        })
        .filter(|w| !w.is_empty())
        .collect()
}

/// Words that may recur in a sentence without stutter.
const SMALL: &[&str] = &[
    "a", "an", "the", "of", "to", "or", "and", "in", "on", "at", "is", "be", "by", "for", "not",
    "no", "with", "from", "found", "expected", "e.g", "one", "it", "its", "this", "that", "after",
    "most", "least", "must", "may", "as", "than", "only", "rank",
];

/// The stutter in `message` about `subject` (which must be named exactly once), if any.
fn stutter(message: &str, subject: &str) -> Option<String> {
    let plain = unquoted(message);
    let ws = words(&plain);
    if let Some(pair) = ws.windows(2).find(|p| p[0] == p[1]) {
        return Some(format!("'{}' twice in a row", pair[0]));
    }
    for (i, w) in ws.iter().enumerate() {
        if w.len() >= 3 && !SMALL.contains(&w.as_str()) && ws[i + 1..].contains(w) {
            return Some(format!("'{w}' twice"));
        }
    }
    let named = plain
        .to_lowercase()
        .matches(&subject.to_lowercase())
        .count();
    (named != 1).then(|| format!("'{subject}' named {named} times"))
}

fn assert_clean(cases: &[(String, &str, String)]) {
    let faults: Vec<String> = cases
        .iter()
        .filter_map(|(input, subject, message)| {
            stutter(message, subject).map(|why| format!("{input:?}: {message}\n    ({why})"))
        })
        .collect();
    assert!(faults.is_empty(), "{}", faults.join("\n"));
}

#[test]
fn fen_errors_name_their_field_once() {
    let k = "4k3/8/8/8/8/8/8/4K3";
    let cases: Vec<(String, &str)> = vec![
        (String::new(), "fen"),
        ("xyz".into(), "fen"),
        (format!("{k} w - - 0 1 x"), "fen"),
        ("4k3/8/8/8/8/8/4K3 w - -".into(), "placement"),
        ("4k3/8/8/8/8/8/8/8/4K3 w - -".into(), "placement"),
        ("44/8/8/8/8/8/8/4K3 w - -".into(), "placement"),
        ("4k3/8/8/8/8/8/8/4X3 w - -".into(), "placement"),
        ("4k3/8/8/8/8/8/8/4K2 w - -".into(), "placement"),
        ("4k3/8/8/8/8/8/8/4K4 w - -".into(), "placement"),
        (format!("{k} white - -"), "side to move"),
        (format!("{k} w KX -"), "castling"),
        (format!("{k} w KK -"), "castling"),
        (format!("{k} w - z9"), "e.p."),
        (format!("{k} w - e3"), "e.p."),
        (format!("{k} b - e6"), "e.p."),
        (format!("{k} w - - -1"), "halfmove clock"),
        (format!("{k} w - - x"), "halfmove clock"),
        (format!("{k} w - - 184467440737095516160"), "halfmove clock"),
        (format!("{k} w - - 0 0"), "fullmove number"),
        (format!("{k} w - - 0 x"), "fullmove number"),
        (
            format!("{k} w - - 0 184467440737095516160"),
            "fullmove number",
        ),
    ];
    let messages: Vec<(String, &str, String)> = cases
        .into_iter()
        .map(|(fen, subject)| {
            let e = PositionInput::parse(&fen).expect_err(&fen);
            (fen, subject, e.to_string())
        })
        .collect();
    assert_clean(&messages);
}

#[test]
fn stipulation_errors_name_the_stipulation_once() {
    let cases = [
        "",
        "   ",
        "mate in 2",
        "clock",
        "clock>x",
        "clock=x",
        "clock=",
        "clock=99999999999999999999999",
        "claim",
        "claim!",
        "over",
        "legal",
        "castling",
        "fen?",
        "last 2",
        "last x?",
        "last ?",
        "last 999?",
        "proofgame",
        "proofgame -1",
        "proofgame 999",
        "claim? at move",
        "claim? at move 0",
        "claim? at move x",
        "claim? at move 18446744073709551615",
        "fen at move 5",
        "legal? at move 5",
        "proofgame 4 at move 3",
        "claim at move 5",
    ];
    let messages: Vec<(String, &str, String)> = cases
        .iter()
        .map(|s| {
            let e = s.parse::<Stipulation>().expect_err(s);
            (s.to_string(), "stipulation", e.to_string())
        })
        .collect();
    assert_clean(&messages);
}

#[test]
fn puzzle_errors_name_the_operation_or_field_once() {
    let k = "4k3/8/8/8/8/8/8/4K3 w - -";
    let r = "4k3/8/8/8/8/8/8/R3K2R w ? -";
    let cases: Vec<(String, &str)> = vec![
        ("4k3/8/8 w - -".into(), "placement"),
        ("4k3/8/8/8/8/8/8/4K3 w -".into(), "fen"),
        (format!("{k} id \"x\""), "operation"),
        (format!("{k} id \"x;"), "operation"),
        (format!("{k} rules blitz;"), "rules"),
        (format!("{r} castling yes;"), "castling"),
        (format!("{k} stip mate;"), "stipulation"),
        (format!("{k} hmvc x;"), "halfmove clock"),
        (format!("{k} fmvn 0;"), "fullmove number"),
        (format!("{k} stip \"clock?\"; sol many;"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"x..3\";"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"3..x\";"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"3..5 both\";"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"3..5 odd now\";"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"9..3\";"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"3..8 odd\";"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"2..inf odd\";"), "sol"),
        (format!("{k} stip \"clock?\"; sol \"\";"), "sol"),
        (format!("{k} stip \"claim?\"; sol perhaps;"), "sol"),
        (format!("{k} stip \"legal?\"; sol perhaps;"), "sol"),
        (format!("{k} stip \"last 2?\"; sol many;"), "sol"),
        (format!("{r} stip \"castling?\"; sol KK;"), "sol"),
        (format!("{r} stip \"castling?\"; sol \"K K\";"), "sol"),
        (format!("{r} stip \"castling?\"; sol \"\";"), "sol"),
        (
            "4k3/8/8/8/8/8/8/R3K2R w KQ - castling codex;".into(),
            "castling",
        ),
        (format!("{r} stip \"last 1?\"; castling codex;"), "castling"),
        (
            "4k3/8/8/8/8/8/8/R3K2R w K - stip \"castling?\";".into(),
            "castling?",
        ),
    ];
    let messages: Vec<(String, &str, String)> = cases
        .into_iter()
        .map(|(line, subject)| {
            let entry = entries_from_text("db.epd", &line).remove(0);
            let message = entry.puzzle.expect_err(&line);
            (line, subject, message)
        })
        .collect();
    assert_clean(&messages);
}

#[test]
fn the_command_line_prints_a_bad_fen_without_stutter() {
    let r = retroclock("solve", &["xyz"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.starts_with("error: FEN: "), "{}", r.stderr);
    assert_eq!(stutter(&r.stderr, "fen"), None, "{}", r.stderr);
    let r = retroclock(
        "solve",
        &["4k3/8/8/8/8/8/8/4K3 w - -", "--stip", "mate in 2"],
    );
    assert_eq!(r.code, 2);
    assert_eq!(stutter(&r.stderr, "stipulation"), None, "{}", r.stderr);
}
