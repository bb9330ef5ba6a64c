//! retroclock: a retrograde-analysis solver for the halfmove clock and the 50-move rule.
//!
//! Layout: [`position`] reads FENs with unknown fields; [`retract`] generates retractions;
//! [`rules`] holds the conventions.
#![deny(missing_docs)]

pub mod clock;
pub mod format;
pub mod legality;
pub mod position;
pub mod retract;
pub mod rules;
pub mod stipulation;
pub mod verdict;
pub mod verify;
