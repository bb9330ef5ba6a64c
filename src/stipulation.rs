//! Stipulations: the questions a user asks about a position, in a small grammar.
//!
//! ```text
//! stipulation := "clock?"              which values: minimum, maximum or unbounded, parity
//!              | "clock" op N          op is "=", ">=" or "<="; N a whole number
//!              | "claim?"              can the side to move claim a draw (FIDE 9.3)?
//!              | "over?"               has the 75-move rule (Piran: the 50-move rule) ended the game?
//!              | "fen"                 are the FEN's own clock and fullmove fields possible?
//!              | "legal?"              can the position arise at all?
//!              | "castling?"           which castling rights can an unknown castling field hold?
//!              | "last" N "?"          the legal sequences of the last N plies
//!              | "proofgame" N         every proof game of exactly N plies, and their number
//! premise      := "at" "move" N         may follow clock?, clock=N, clock>=N, clock<=N, claim?, over?,
//!                                      last N?
//! ```
//! Spaces between tokens are optional (`clock>=100`, `clock >= 100`, `last 2?`).
//!
//! The premise `at move N` states that the position occurs in a game from the initial array
//! with N as its fullmove number: 2·(N−1) plies were played before it, one more with Black to
//! move. The FEN's own fullmove field is only a claim (the `fen` question checks it); the
//! premise is a fact the user gives, as a retro problem's "Black plays his 50th move" does.

use std::{fmt, str::FromStr};

/// A comparison in a clock stipulation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Comparison {
    /// `=`
    Eq,
    /// `>=`
    Ge,
    /// `<=`
    Le,
}

/// The largest move number the premise takes: its plies fit in 64 bits with room to spare.
pub const MAX_MOVE_NUMBER: u64 = 1 << 60;

/// The premise `at move N`: the position occurs with N as the game's fullmove number.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct MoveNumber(pub u64);

impl MoveNumber {
    /// The plies played from the initial array before the position, with `turn` to move
    /// (saturating at `u64::MAX` for move numbers above [`MAX_MOVE_NUMBER`], which the reader
    /// refuses).
    pub fn plies_before(self, turn: shakmaty::Color) -> u64 {
        self.0
            .saturating_sub(1)
            .saturating_mul(2)
            .saturating_add(u64::from(turn == shakmaty::Color::Black))
    }
}

/// A question about a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stipulation {
    /// `clock?`, with or without `at move N`
    Clock(Option<MoveNumber>),
    /// `clock=N`, `clock>=N`, `clock<=N`, with or without `at move N`
    ClockIs(Comparison, u64, Option<MoveNumber>),
    /// `claim?`, with or without `at move N`
    Claim(Option<MoveNumber>),
    /// `over?`, with or without `at move N`
    Over(Option<MoveNumber>),
    /// `fen`
    Fen,
    /// `legal?`
    Legal,
    /// `castling?`: the largest sets of castling rights an unknown castling field can hold
    /// (the Codex reading's alternatives, [`crate::codex`]).
    Castling,
    /// `last N?`, with or without `at move N`
    Last(u32, Option<MoveNumber>),
    /// `proofgame N`
    ProofGame(u32),
}

impl Stipulation {
    /// The premise `at move N` of a clock question (`clock?`, `clock=N`, `clock>=N`,
    /// `clock<=N`, `claim?`, `over?`), which the clock solver's answer takes into account.
    pub fn at_move(self) -> Option<MoveNumber> {
        match self {
            Stipulation::Clock(at)
            | Stipulation::ClockIs(_, _, at)
            | Stipulation::Claim(at)
            | Stipulation::Over(at) => at,
            _ => None,
        }
    }

    /// The premise `at move N` of any question that takes one: the clock questions'
    /// ([`Stipulation::at_move`]) and the retractor's (`last N?`).
    pub fn premise(self) -> Option<MoveNumber> {
        match self {
            Stipulation::Last(_, at) => at,
            other => other.at_move(),
        }
    }
}

impl fmt::Display for Stipulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stipulation::Clock(_) => f.write_str("clock?"),
            Stipulation::ClockIs(Comparison::Eq, n, _) => write!(f, "clock={n}"),
            Stipulation::ClockIs(Comparison::Ge, n, _) => write!(f, "clock>={n}"),
            Stipulation::ClockIs(Comparison::Le, n, _) => write!(f, "clock<={n}"),
            Stipulation::Claim(_) => f.write_str("claim?"),
            Stipulation::Over(_) => f.write_str("over?"),
            Stipulation::Fen => f.write_str("fen"),
            Stipulation::Legal => f.write_str("legal?"),
            Stipulation::Castling => f.write_str("castling?"),
            Stipulation::Last(n, _) => write!(f, "last {n}?"),
            Stipulation::ProofGame(n) => write!(f, "proofgame {n}"),
        }?;
        match self.premise() {
            Some(MoveNumber(n)) => write!(f, " at move {n}"),
            None => Ok(()),
        }
    }
}

/// A stipulation that does not parse: the offending token, its position, and what was expected.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StipulationError {
    /// The text given.
    pub input: String,
    /// Character offset of the problem.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for StipulationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stipulation '{}', at character {}: {}",
            self.input,
            self.at + 1,
            self.message
        )
    }
}

impl std::error::Error for StipulationError {}

const EXPECTED: &str = "expected one of: clock?, clock=N, clock>=N, clock<=N, claim?, over?, last N? (each may end with 'at move N'), fen, legal?, castling?, proofgame N";

impl FromStr for Stipulation {
    type Err = StipulationError;

    fn from_str(input: &str) -> Result<Stipulation, StipulationError> {
        // The premise `at move N` comes last; the question before it is read on its own.
        let lower = input.to_ascii_lowercase();
        let premise = lower.match_indices("at").map(|(i, _)| i).find(|&i| {
            let rest: String = lower[i..].chars().filter(|c| !c.is_whitespace()).collect();
            rest.starts_with("atmove")
        });
        match premise {
            Some(at) => with_premise(input, at),
            None => question(input),
        }
    }
}

/// Reads `question` followed by the premise `at move N` that starts at byte `at` of `input`.
fn with_premise(input: &str, at: usize) -> Result<Stipulation, StipulationError> {
    let err = |at: usize, message: String| StipulationError {
        input: input.to_string(),
        at,
        message,
    };
    let premise: String = input[at..]
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    let Some(number) = premise.strip_prefix("atmove") else {
        return Err(err(at, "expected 'at move N'".to_string()));
    };
    let n = match number.parse::<u64>() {
        Ok(n) if n > MAX_MOVE_NUMBER => {
            return Err(err(
                at,
                format!("the move number {n} is too large (at most {MAX_MOVE_NUMBER})"),
            ));
        }
        Ok(n) if n >= 1 => n,
        Ok(_) => return Err(err(at, "the move number starts at 1".to_string())),
        Err(_) if number.is_empty() => {
            return Err(err(
                at,
                "expected a move number after 'at move'".to_string(),
            ));
        }
        Err(_) => return Err(err(at, format!("'{number}' is not a move number"))),
    };
    let premise = Some(MoveNumber(n));
    match question(&input[..at])? {
        Stipulation::Clock(None) => Ok(Stipulation::Clock(premise)),
        Stipulation::ClockIs(cmp, k, None) => Ok(Stipulation::ClockIs(cmp, k, premise)),
        Stipulation::Claim(None) => Ok(Stipulation::Claim(premise)),
        Stipulation::Over(None) => Ok(Stipulation::Over(premise)),
        Stipulation::Last(n, None) => Ok(Stipulation::Last(n, premise)),
        other => Err(err(
            at,
            format!(
                "'{other}' takes no premise; 'at move N' may follow clock?, clock=N, clock>=N, clock<=N, claim?, over? and last N?"
            ),
        )),
    }
}

/// Reads a stipulation without a premise.
fn question(input: &str) -> Result<Stipulation, StipulationError> {
    let err = |at: usize, message: String| StipulationError {
        input: input.to_string(),
        at,
        message,
    };
    let s = input.trim();
    let offset = input.len() - input.trim_start().len();
    let compact: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    let word_end = compact
        .find(|c: char| !c.is_ascii_alphabetic())
        .unwrap_or(compact.len());
    let (word, rest) = compact.split_at(word_end);
    let number = |text: &str, at: usize| -> Result<u64, StipulationError> {
        if text.is_empty() {
            return Err(err(at, "expected a whole number".to_string()));
        }
        text.parse::<u64>().map_err(|_| {
            let why = if text.bytes().all(|b| b.is_ascii_digit()) {
                format!("'{text}' is too large (at most {})", u64::MAX)
            } else {
                format!("'{text}' is not a whole number")
            };
            err(at, why)
        })
    };
    match word.to_ascii_lowercase().as_str() {
        "clock" => {
            let at = offset + word.len();
            if rest == "?" {
                return Ok(Stipulation::Clock(None));
            }
            let (cmp, n) = if let Some(n) = rest.strip_prefix(">=") {
                (Comparison::Ge, n)
            } else if let Some(n) = rest.strip_prefix("<=") {
                (Comparison::Le, n)
            } else if let Some(n) = rest.strip_prefix('=') {
                (Comparison::Eq, n)
            } else {
                return Err(err(
                    at,
                    format!("after 'clock' expected '?', '=N', '>=N' or '<=N', found '{rest}'"),
                ));
            };
            Ok(Stipulation::ClockIs(cmp, number(n, at + 1)?, None))
        }
        "claim" | "over" | "legal" | "castling" => {
            if rest != "?" {
                return Err(err(
                    offset + word.len(),
                    format!("expected '?' after '{word}', found '{rest}'"),
                ));
            }
            Ok(match word.to_ascii_lowercase().as_str() {
                "claim" => Stipulation::Claim(None),
                "over" => Stipulation::Over(None),
                "castling" => Stipulation::Castling,
                _ => Stipulation::Legal,
            })
        }
        "fen" if rest.is_empty() => Ok(Stipulation::Fen),
        "last" => {
            let at = offset + word.len();
            let Some(n) = rest.strip_suffix('?') else {
                return Err(err(
                    at,
                    "expected 'last N?' (N plies, then '?')".to_string(),
                ));
            };
            let n = number(n, at)?;
            let n = u32::try_from(n)
                .ok()
                .filter(|&n| n <= 64)
                .ok_or_else(|| err(at, format!("{n} plies is too many (at most 64)")))?;
            Ok(Stipulation::Last(n, None))
        }
        "proofgame" => {
            let at = offset + word.len();
            let n = number(rest, at)?;
            let n = u32::try_from(n)
                .ok()
                .filter(|&n| n <= 200)
                .ok_or_else(|| err(at, format!("{n} plies is too many (at most 200)")))?;
            Ok(Stipulation::ProofGame(n))
        }
        "" => Err(err(offset, format!("nothing to read; {EXPECTED}"))),
        _ => Err(err(offset, format!("an unknown question; {EXPECTED}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        let cases = [
            ("clock?", Stipulation::Clock(None)),
            ("clock? at move 3", Stipulation::Clock(Some(MoveNumber(3)))),
            ("clock=12", Stipulation::ClockIs(Comparison::Eq, 12, None)),
            (
                " clock >= 100 ",
                Stipulation::ClockIs(Comparison::Ge, 100, None),
            ),
            ("clock<=0", Stipulation::ClockIs(Comparison::Le, 0, None)),
            ("claim?", Stipulation::Claim(None)),
            ("over ?", Stipulation::Over(None)),
            (
                "claim? at move 50",
                Stipulation::Claim(Some(MoveNumber(50))),
            ),
            ("OVER? AT MOVE 77", Stipulation::Over(Some(MoveNumber(77)))),
            (
                "clock=99atmove50",
                Stipulation::ClockIs(Comparison::Eq, 99, Some(MoveNumber(50))),
            ),
            ("fen", Stipulation::Fen),
            ("legal?", Stipulation::Legal),
            ("castling?", Stipulation::Castling),
            ("last 2?", Stipulation::Last(2, None)),
            (
                "last 4? at move 3",
                Stipulation::Last(4, Some(MoveNumber(3))),
            ),
            ("proofgame 7", Stipulation::ProofGame(7)),
        ];
        for (text, stip) in cases {
            assert_eq!(text.parse::<Stipulation>().unwrap(), stip, "{text}");
            assert_eq!(stip.to_string().parse::<Stipulation>().unwrap(), stip);
        }
    }

    #[test]
    fn a_move_number_counts_the_plies_before_the_position() {
        assert_eq!(MoveNumber(1).plies_before(shakmaty::Color::White), 0);
        assert_eq!(MoveNumber(1).plies_before(shakmaty::Color::Black), 1);
        assert_eq!(MoveNumber(50).plies_before(shakmaty::Color::Black), 99);
        assert_eq!(MoveNumber(76).plies_before(shakmaty::Color::White), 150);
    }

    #[test]
    fn errors_say_where_and_what() {
        for (text, fragment) in [
            ("clock", "expected '?'"),
            ("clock>x", "expected '?'"),
            ("clock=x", "not a whole number"),
            ("clock=", "expected a whole number"),
            ("claim", "expected '?'"),
            ("mate in 2", "an unknown question"),
            ("", "nothing to read"),
            ("clock=99999999999999999999999", "too large"),
            ("last 2", "last N?"),
            ("last 999?", "too many"),
            ("proofgame", "expected a whole number"),
            ("proofgame -1", "not a whole number"),
            ("claim? at move", "expected a move number"),
            ("claim? at move 0", "starts at 1"),
            ("claim? at move x", "'x' is not a move number"),
            ("claim? at move 18446744073709551615", "too large"),
            ("fen at move 5", "takes no premise"),
            ("claim at move 5", "expected '?'"),
        ] {
            let e = text.parse::<Stipulation>().unwrap_err();
            assert!(e.to_string().contains(fragment), "{text}: {e}");
        }
    }
}
