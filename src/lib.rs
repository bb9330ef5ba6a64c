//! retroclock: a retrograde-analysis solver for the halfmove clock and the 50-move rule.
#![deny(missing_docs)]

pub mod proofgame;
