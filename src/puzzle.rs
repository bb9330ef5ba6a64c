//! The puzzle-file format: EPD lines (four FEN fields plus operations) or plain FEN lines.
//!
//! ```text
//! # a comment
//! 4k3/8/8/8/8/8/8/4K3 w - - id "kk"; stip "clock?"; rules "fide"; sol "0..inf"; hmvc 12; fmvn 40;
//! 4k3/8/8/8/8/8/8/4K3 w - - 12 40
//! ```
//! Opcodes: `id` (a name), `stip` (a stipulation, default `fen`), `rules` (default `retro`),
//! `sol` (the stated answer), and the standard `hmvc` / `fmvn` for the halfmove clock and the
//! fullmove number; for `last N?`, `extra` (the further plies each sequence is checked back,
//! default 1) and `ep` (how the e.p. field `-` is read: `capturable`, the default, or
//! `standard`; see [`crate::lastmoves::EpReading`]); `nodes` (the positions the entry's search
//! may store, in place of the batch's own budget: a composed diagram may need millions). Operands may be quoted with `"`; each operation ends with `;`. A plain FEN
//! line (5 or 6 fields, or 4 with no operations) is an entry with stipulation `fen`.
//!
//! The stated answer's syntax depends on the stipulation:
//! * `clock?`: `MIN..MAX`, where MAX is a number or `inf` (unbounded), optionally followed by
//!   `even` or `odd` when only that parity occurs, e.g. `sol "3..inf odd"`;
//! * `clock=N`, `clock>=N`, `clock<=N`, `claim?`, `over?`, `fen`, `legal?`: `yes` or `no`;
//! * `last N?`: the number of sequences;
//! * `castling?`: the largest sets of rights the position can hold, e.g. `KQkq`, `K Q` (rights
//!   that exclude each other) or `-`.

use std::fmt;

use crate::{
    lastmoves::EpReading,
    position::{FenError, PositionInput},
    rules::Rules,
    stipulation::Stipulation,
};

/// A stated answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Solution {
    /// `yes` or `no`.
    YesNo(bool),
    /// A clock range, `max` None = unbounded, with an optional parity (0 even, 1 odd).
    Range {
        /// The smallest value.
        min: u64,
        /// The largest value, or None for `inf`.
        max: Option<u64>,
        /// Only even (0) or only odd (1) values, when stated.
        parity: Option<u8>,
    },
    /// A number of sequences (`last N?`).
    Count(u64),
    /// The largest sets of castling rights the position can hold (`castling?`), as
    /// [`crate::codex::alternatives_mask`]: written `KQkq`, `K Q` (alternatives) or `-`.
    Rights(u16),
    /// `yes by 9.3.1` or `yes by 9.3.2` (`claim?` only): the side to move can claim in every
    /// legal history, by that article. By 9.3.1 means by it alone: 9.3.2 applies in no history.
    ClaimBy(ClaimArticle),
}

/// The article of FIDE 9.3 a stated claim rests on.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClaimArticle {
    /// 9.3.1: the claimant writes down a move that completes the 50 moves.
    Announced,
    /// 9.3.2: the 50 moves are complete.
    Completed,
}

impl fmt::Display for Solution {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Solution::YesNo(true) => f.write_str("yes"),
            Solution::YesNo(false) => f.write_str("no"),
            Solution::Range { min, max, parity } => {
                match max {
                    Some(m) => write!(f, "{min}..{m}")?,
                    None => write!(f, "{min}..inf")?,
                }
                match parity {
                    Some(0) => f.write_str(" even"),
                    Some(_) => f.write_str(" odd"),
                    None => Ok(()),
                }
            }
            Solution::Count(n) => write!(f, "{n}"),
            Solution::Rights(mask) => f.write_str(&crate::codex::alternatives_text(*mask)),
            Solution::ClaimBy(ClaimArticle::Announced) => f.write_str("yes by 9.3.1"),
            Solution::ClaimBy(ClaimArticle::Completed) => f.write_str("yes by 9.3.2"),
        }
    }
}

impl Solution {
    /// Reads a stated answer in the syntax of `stip`.
    pub fn parse(text: &str, stip: Stipulation) -> Result<Solution, String> {
        let t = text.trim().to_ascii_lowercase();
        match stip {
            Stipulation::Clock(_) => {
                let mut words = t.split_whitespace();
                let range = words.next().ok_or("expected MIN..MAX")?;
                let (min, max) = range.split_once("..").ok_or_else(|| {
                    format!("expected MIN..MAX (e.g. 3..17 or 3..inf), found '{range}'")
                })?;
                let min: u64 = min
                    .parse()
                    .map_err(|_| format!("'{min}' is not a whole number"))?;
                let max = if max == "inf" {
                    None
                } else {
                    Some(
                        max.parse::<u64>()
                            .map_err(|_| format!("'{max}' is not a whole number or 'inf'"))?,
                    )
                };
                let parity = match words.next() {
                    None => None,
                    Some("even") => Some(0),
                    Some("odd") => Some(1),
                    Some(w) => {
                        return Err(format!(
                            "expected 'even' or 'odd' after the range, found '{w}'"
                        ));
                    }
                };
                if let Some(w) = words.next() {
                    return Err(format!("unexpected '{w}' after the answer"));
                }
                Ok(Solution::Range { min, max, parity })
            }
            Stipulation::Last(..) | Stipulation::ProofGame(_) => t
                .parse()
                .map(Solution::Count)
                .map_err(|_| format!("expected a number of sequences, found '{text}'")),
            Stipulation::Castling => {
                let mut sets = Vec::new();
                for word in text.split_whitespace() {
                    let set = crate::position::parse_castling(word)
                        .map_err(|e| format!("'{word}': {}", e.message))?;
                    if sets.contains(&set) {
                        return Err(format!("'{word}' is given twice"));
                    }
                    sets.push(set);
                }
                if sets.is_empty() {
                    return Err("expected the sets of rights, e.g. 'KQkq', 'K Q' or '-'".into());
                }
                Ok(Solution::Rights(crate::codex::alternatives_mask(&sets)))
            }
            Stipulation::Claim(_) => match t.split_whitespace().collect::<Vec<_>>()[..] {
                ["yes"] => Ok(Solution::YesNo(true)),
                ["no"] => Ok(Solution::YesNo(false)),
                ["yes", "by", "9.3.1"] => Ok(Solution::ClaimBy(ClaimArticle::Announced)),
                ["yes", "by", "9.3.2"] => Ok(Solution::ClaimBy(ClaimArticle::Completed)),
                _ => Err(format!(
                    "expected 'yes', 'yes by 9.3.1', 'yes by 9.3.2' or 'no', found '{text}'"
                )),
            },
            _ => match t.as_str() {
                "yes" => Ok(Solution::YesNo(true)),
                "no" => Ok(Solution::YesNo(false)),
                _ => Err(format!("expected 'yes' or 'no', found '{text}'")),
            },
        }
    }
}

/// One entry of a puzzle file.
#[derive(Clone, Debug)]
pub struct Puzzle {
    /// Line number in the file (1-based).
    pub line: usize,
    /// The `id`, if given.
    pub id: Option<String>,
    /// The position, with `hmvc` / `fmvn` as its clock and fullmove fields.
    pub position: PositionInput,
    /// The question.
    pub stipulation: Stipulation,
    /// The rule set.
    pub rules: Rules,
    /// The stated answer, if given.
    pub solution: Option<Solution>,
    /// For `last N?`: the further plies each sequence is checked back (`extra`, default 1).
    pub extra: u32,
    /// For `last N?`: how the e.p. field `-` is read (`ep`, default capturable).
    pub ep_reading: EpReading,
    /// Whether the unknown castling field is read by the Codex (`castling "codex"`, or the
    /// question `castling?`; see [`crate::codex`]) rather than left open.
    pub codex: bool,
    /// The `game` operation: a PGN file (relative to the puzzle file) whose game from the
    /// initial array ends in the position; the reader of the file reads it.
    pub game: Option<String>,
    /// The `nodes` operation: the positions the entry's search may store, in place of the
    /// batch's `--max-nodes`.
    pub max_nodes: Option<u64>,
    /// The `c0`… comments or any other operations, kept as text.
    pub other: Vec<(String, String)>,
}

/// A line that cannot be read: where and what.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct PuzzleError {
    /// Line number (1-based).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for PuzzleError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}: {}", self.line, self.message)
    }
}

impl std::error::Error for PuzzleError {}

/// Reads a puzzle file: one result per entry (blank and comment lines are skipped), in order.
pub fn parse_puzzles(text: &str) -> Vec<Result<Puzzle, PuzzleError>> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| {
            let content = line.trim();
            if content.is_empty() || content.starts_with('#') {
                return None;
            }
            Some(parse_line(content, i + 1))
        })
        .collect()
}

fn split_operations(text: &str, line: usize) -> Result<Vec<(String, String)>, PuzzleError> {
    let mut ops = Vec::new();
    let mut chars = text.chars().peekable();
    loop {
        while chars.peek().is_some_and(|c| c.is_whitespace()) {
            chars.next();
        }
        if chars.peek().is_none() {
            return Ok(ops);
        }
        let mut opcode = String::new();
        while let Some(&c) = chars.peek() {
            if c.is_whitespace() || c == ';' {
                break;
            }
            opcode.push(c);
            chars.next();
        }
        let mut operand = String::new();
        let mut quoted = false;
        loop {
            match chars.next() {
                None if quoted => {
                    return Err(PuzzleError {
                        line,
                        message: format!("operation '{opcode}': unterminated quoted operand"),
                    });
                }
                None => {
                    return Err(PuzzleError {
                        line,
                        message: format!("operation '{opcode}' must end with ';'"),
                    });
                }
                Some('"') => quoted = !quoted,
                Some(';') if !quoted => break,
                Some(c) => operand.push(c),
            }
        }
        ops.push((opcode, operand.trim().to_string()));
    }
}

fn parse_line(content: &str, line: usize) -> Result<Puzzle, PuzzleError> {
    let err = |message: String| PuzzleError { line, message };
    let fields: Vec<&str> = content.split_whitespace().collect();
    if fields.len() < 4 {
        return Err(err(format!(
            "expected at least the four FEN fields, found {}",
            fields.len()
        )));
    }
    // Where the operations start: after 4 fields, unless fields 5-6 are clock numbers.
    let head: Vec<&str> = fields[..4].to_vec();
    let rest_start = {
        let mut idx = 0;
        for _ in 0..4 {
            let s = &content[idx..];
            let ws = s.len() - s.trim_start().len();
            idx += ws;
            let s = &content[idx..];
            idx += s.find(char::is_whitespace).unwrap_or(s.len());
        }
        idx
    };
    let rest = content[rest_start..].trim();
    let is_number = |s: &str| s == "?" || s.parse::<u64>().is_ok();
    let plain = fields.len() <= 6 && fields[4..].iter().all(|f| is_number(f));
    let fen_error = |e: FenError| err(e.to_string());
    if plain {
        let position = PositionInput::parse(content).map_err(fen_error)?;
        return Ok(Puzzle {
            line,
            id: None,
            position,
            stipulation: Stipulation::Fen,
            rules: Rules::default(),
            solution: None,
            extra: 1,
            ep_reading: EpReading::default(),
            codex: false,
            game: None,
            max_nodes: None,
            other: Vec::new(),
        });
    }
    let ops = split_operations(rest, line)?;
    let mut id = None;
    let mut stip_text = None;
    let mut rules = Rules::default();
    let mut sol_text = None;
    let mut hmvc = "?".to_string();
    let mut fmvn = "?".to_string();
    let mut codex = false;
    let mut extra = 1;
    let mut ep_reading = EpReading::default();
    let mut game = None;
    let mut max_nodes = None;
    let mut other = Vec::new();
    for (op, arg) in ops {
        match op.as_str() {
            "id" => id = Some(arg),
            "stip" => stip_text = Some(arg),
            "rules" => rules = arg.parse().map_err(|e| err(format!("rules: {e}")))?,
            "sol" => sol_text = Some(arg),
            "hmvc" => hmvc = arg,
            "extra" => {
                extra = arg
                    .parse()
                    .map_err(|_| err(format!("extra: expected a number of plies, found '{arg}'")))?
            }
            "ep" => {
                ep_reading = match arg.as_str() {
                    "capturable" => EpReading::Capturable,
                    "standard" => EpReading::Standard,
                    _ => {
                        return Err(err(format!(
                            "ep: expected `capturable` or `standard`, found `{arg}`"
                        )));
                    }
                }
            }
            "fmvn" => fmvn = arg,
            "nodes" => {
                max_nodes = Some(arg.parse::<u64>().ok().filter(|&n| n > 0).ok_or_else(|| {
                    err(format!(
                        "nodes: expected a positive number of positions, found '{arg}'"
                    ))
                })?)
            }
            "game" if arg.trim().is_empty() => {
                return Err(err("game: expected the name of a PGN file".to_string()));
            }
            "game" => game = Some(arg),
            "castling" => {
                codex = match arg.as_str() {
                    "codex" => true,
                    "open" => false,
                    _ => {
                        return Err(err(format!(
                            "castling: expected `codex` or `open`, found `{arg}`"
                        )));
                    }
                }
            }
            _ => other.push((op, arg)),
        }
    }
    let fen = format!("{} {hmvc} {fmvn}", head.join(" "));
    let position = PositionInput::parse(&fen).map_err(fen_error)?;
    let stipulation = match stip_text {
        Some(s) => s.parse().map_err(|e| err(format!("{e}")))?,
        None => Stipulation::Fen,
    };
    let solution = match sol_text {
        Some(s) => Some(Solution::parse(&s, stipulation).map_err(|m| err(format!("sol: {m}")))?),
        None => None,
    };
    // `castling?` asks for the Codex reading itself.
    let asker = if codex {
        "castling \"codex\""
    } else {
        "castling?"
    };
    let codex = codex || stipulation == Stipulation::Castling;
    if codex && let Some(why) = crate::codex::refusal(&position, stipulation) {
        return Err(err(format!("{asker} {why}")));
    }
    Ok(Puzzle {
        line,
        id,
        position,
        stipulation,
        rules,
        solution,
        extra,
        ep_reading,
        codex,
        game,
        max_nodes,
        other,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_epd_and_plain_lines() {
        let text = "# comment\n\n4k3/8/8/8/8/8/8/4K3 w - - id \"kk\"; stip \"clock?\"; rules fide; sol \"0..inf\"; hmvc 12; fmvn 40;\n4k3/8/8/8/8/8/8/4K3 w - - 12 40\n";
        let entries = parse_puzzles(text);
        assert_eq!(entries.len(), 2);
        let a = entries[0].as_ref().unwrap();
        assert_eq!(a.line, 3);
        assert_eq!(a.id.as_deref(), Some("kk"));
        assert_eq!(a.stipulation, Stipulation::Clock(None));
        assert_eq!(a.rules, Rules::Fide);
        assert_eq!(
            a.solution,
            Some(Solution::Range {
                min: 0,
                max: None,
                parity: None
            })
        );
        assert_eq!(a.position.halfmove_clock.known(), Some(12));
        let b = entries[1].as_ref().unwrap();
        assert_eq!(b.stipulation, Stipulation::Fen);
        assert_eq!(b.position.fullmove.known(), Some(40));
    }

    #[test]
    fn bad_lines_name_their_line_and_fault() {
        let text = "4k3/8/8/8/8/8/8/4K3 w - - stip \"clock?\"; sol \"many\";\n4k3/8/8/8/8/8/8/4K3 w - - stip \"mate\";\n4k3/8/8 w - -\n4k3/8/8/8/8/8/8/4K3 w - - id \"x\"\n4k3/8/8/8/8/8/8/4K3 w - - stip \"clock?\"; sol \"3..17 odd\";\n";
        let entries = parse_puzzles(text);
        assert_eq!(entries.len(), 5);
        let e0 = entries[0].as_ref().unwrap_err();
        assert!(e0.line == 1 && e0.message.contains("sol"), "{e0}");
        let e1 = entries[1].as_ref().unwrap_err();
        assert!(
            e1.line == 2 && e1.message.contains("an unknown question"),
            "{e1}"
        );
        let e2 = entries[2].as_ref().unwrap_err();
        assert!(e2.line == 3 && e2.message.contains("placement"), "{e2}");
        let e3 = entries[3].as_ref().unwrap_err();
        assert!(e3.message.contains("end with ';'"), "{e3}");
        assert_eq!(
            entries[4].as_ref().unwrap().solution,
            Some(Solution::Range {
                min: 3,
                max: Some(17),
                parity: Some(1)
            })
        );
    }

    #[test]
    fn an_entry_may_give_its_own_search_budget() {
        let read = |line: &str| parse_puzzles(line).remove(0);
        let big = read("4k3/8/8/8/8/8/8/4K3 w - - stip \"clock?\"; nodes 30000000;").unwrap();
        assert_eq!(big.max_nodes, Some(30_000_000));
        let plain = read("4k3/8/8/8/8/8/8/4K3 w - - stip \"clock?\";").unwrap();
        assert_eq!(plain.max_nodes, None);
        for bad in ["0", "many", "-5"] {
            let e = read(&format!("4k3/8/8/8/8/8/8/4K3 w - - nodes {bad};")).unwrap_err();
            assert!(
                e.line == 1 && e.message.contains("nodes: expected a positive number"),
                "{e}"
            );
        }
    }

    #[test]
    fn the_castling_operation_chooses_the_reading() {
        let read = |line: &str| parse_puzzles(line).remove(0);
        let codex =
            read("4k3/8/8/8/8/8/8/R3K2R w ? - stip \"clock?\"; castling \"codex\";").unwrap();
        assert!(codex.codex);
        let open = read("4k3/8/8/8/8/8/8/R3K2R w ? - stip \"clock?\"; castling open;").unwrap();
        assert!(!open.codex);
        assert!(
            !read("4k3/8/8/8/8/8/8/R3K2R w ? - stip \"clock?\";")
                .unwrap()
                .codex
        );
        let bad = read("4k3/8/8/8/8/8/8/R3K2R w ? - castling \"yes\";").unwrap_err();
        assert!(bad.message.contains("expected `codex` or `open`"), "{bad}");
        let given = read("4k3/8/8/8/8/8/8/R3K2R w KQ - castling codex;").unwrap_err();
        assert!(given.message.contains("but this one gives KQ"), "{given}");
        let rights = read("4k3/8/8/8/8/8/8/R3K2R w ? - stip \"castling?\"; sol \"K Q\";").unwrap();
        assert_eq!(
            rights.solution.map(|s| s.to_string()).as_deref(),
            Some("K Q")
        );
        for bad in ["KK", "x", "K K", ""] {
            let line = format!("4k3/8/8/8/8/8/8/R3K2R w ? - stip \"castling?\"; sol \"{bad}\";");
            assert!(read(&line).is_err(), "{bad}");
        }
        let given = read("4k3/8/8/8/8/8/8/R3K2R w K - stip \"castling?\";").unwrap_err();
        assert!(given.message.starts_with("castling? reads"), "{given}");
        let counting =
            read("4k3/8/8/8/8/8/8/R3K2R w ? - stip \"last 1?\"; castling codex;").unwrap_err();
        assert!(counting.message.contains("not to `last 1?`"), "{counting}");
    }
}
