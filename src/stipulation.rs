//! Stipulations: the questions a user asks about a position, in a small grammar.
//!
//! ```text
//! stipulation := "clock?"              which values: minimum, maximum or unbounded, parity
//!              | "clock" op N          op is "=", ">=" or "<="; N a whole number
//!              | "claim?"              can the side to move claim a draw (FIDE 9.3)?
//!              | "over?"               has the 75-move rule (Piran: the 50-move rule) ended the game?
//!              | "fen"                 are the FEN's own clock and fullmove fields possible?
//!              | "legal?"              can the position arise at all?
//!              | "last" N "?"          the legal sequences of the last N plies
//!              | "proofgame" N         every proof game of exactly N plies, and their number
//! ```
//! Spaces between tokens are optional (`clock>=100`, `clock >= 100`, `last 2?`).

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

/// A question about a position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Stipulation {
    /// `clock?`
    Clock,
    /// `clock=N`, `clock>=N`, `clock<=N`
    ClockIs(Comparison, u64),
    /// `claim?`
    Claim,
    /// `over?`
    Over,
    /// `fen`
    Fen,
    /// `legal?`
    Legal,
    /// `last N?`
    Last(u32),
    /// `proofgame N`
    ProofGame(u32),
}

impl fmt::Display for Stipulation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stipulation::Clock => f.write_str("clock?"),
            Stipulation::ClockIs(Comparison::Eq, n) => write!(f, "clock={n}"),
            Stipulation::ClockIs(Comparison::Ge, n) => write!(f, "clock>={n}"),
            Stipulation::ClockIs(Comparison::Le, n) => write!(f, "clock<={n}"),
            Stipulation::Claim => f.write_str("claim?"),
            Stipulation::Over => f.write_str("over?"),
            Stipulation::Fen => f.write_str("fen"),
            Stipulation::Legal => f.write_str("legal?"),
            Stipulation::Last(n) => write!(f, "last {n}?"),
            Stipulation::ProofGame(n) => write!(f, "proofgame {n}"),
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

const EXPECTED: &str = "expected one of: clock?, clock=N, clock>=N, clock<=N, claim?, over?, fen, legal?, last N?, proofgame N";

impl FromStr for Stipulation {
    type Err = StipulationError;

    fn from_str(input: &str) -> Result<Stipulation, StipulationError> {
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
            text.parse::<u64>()
                .map_err(|_| err(at, format!("'{text}' is not a whole number")))
        };
        match word.to_ascii_lowercase().as_str() {
            "clock" => {
                let at = offset + word.len();
                if rest == "?" {
                    return Ok(Stipulation::Clock);
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
                Ok(Stipulation::ClockIs(cmp, number(n, at + 1)?))
            }
            "claim" | "over" | "legal" => {
                if rest != "?" {
                    return Err(err(
                        offset + word.len(),
                        format!("expected '?' after '{word}', found '{rest}'"),
                    ));
                }
                Ok(match word.to_ascii_lowercase().as_str() {
                    "claim" => Stipulation::Claim,
                    "over" => Stipulation::Over,
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
                Ok(Stipulation::Last(n))
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
            "" => Err(err(offset, format!("empty stipulation; {EXPECTED}"))),
            _ => Err(err(
                offset,
                format!("unknown stipulation '{s}'; {EXPECTED}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_form() {
        let cases = [
            ("clock?", Stipulation::Clock),
            ("clock=12", Stipulation::ClockIs(Comparison::Eq, 12)),
            (" clock >= 100 ", Stipulation::ClockIs(Comparison::Ge, 100)),
            ("clock<=0", Stipulation::ClockIs(Comparison::Le, 0)),
            ("claim?", Stipulation::Claim),
            ("over ?", Stipulation::Over),
            ("fen", Stipulation::Fen),
            ("legal?", Stipulation::Legal),
            ("last 2?", Stipulation::Last(2)),
            ("proofgame 7", Stipulation::ProofGame(7)),
        ];
        for (text, stip) in cases {
            assert_eq!(text.parse::<Stipulation>().unwrap(), stip, "{text}");
            assert_eq!(stip.to_string().parse::<Stipulation>().unwrap(), stip);
        }
    }

    #[test]
    fn errors_say_where_and_what() {
        for (text, fragment) in [
            ("clock", "expected '?'"),
            ("clock>x", "expected '?'"),
            ("clock=x", "not a whole number"),
            ("clock=", "expected a whole number"),
            ("claim", "expected '?'"),
            ("mate in 2", "unknown stipulation"),
            ("", "empty"),
            ("last 2", "last N?"),
            ("last 999?", "too many"),
            ("proofgame", "expected a whole number"),
            ("proofgame -1", "not a whole number"),
        ] {
            let e = text.parse::<Stipulation>().unwrap_err();
            assert!(e.to_string().contains(fragment), "{text}: {e}");
        }
    }
}
