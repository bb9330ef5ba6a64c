//! retroclock: a retrograde-analysis solver for the halfmove clock and the 50-move rule.
//!
//! Where things are:
//! * [`position`] reads FENs whose castling, e.p., clock and fullmove fields may be unknown;
//! * [`legality`] holds the static necessary conditions of legality; [`legal`] answers
//!   `legal?` with reasons or proof games and certifies witness lines;
//! * [`retract`] generates retractions (the legal predecessors of a position);
//! * [`clock`] decides which halfmove-clock values a position allows;
//! * [`answer`] is the one entry point that answers a question (`solve`, `batch` and the tests
//!   call it, `last N?` included);
//! * [`stipulation`] parses the questions, [`verdict`] decides them;
//! * [`certify`] turns witness lines into proofs (games from the initial array, given or found,
//!   replayed);
//! * [`required`] deduces the moves and captures each unit must still make (distances with
//!   obstacles, assignment, capture bookkeeping), the bound [`proofgame`] rests on;
//! * [`proofgame`] searches proof games from the initial array;
//! * [`construct`] builds a game from the initial array to a given position (any length), the
//!   certificate that turns a witness line into a proof;
//! * [`verify`] re-checks every certificate by forward replay, apart from the search;
//! * [`puzzle`] reads puzzle files (EPD with `stip`/`sol`/`rules`);
//! * [`pgn`] reads games (with pgn-reader) and [`games`] reports their no-progress runs;
//! * [`lastmoves`] is the retractor (`last N?`), which reads the FEN's clock and move number as
//!   facts;
//! * [`format`](mod@format) writes answers for people and as JSON;
//! * [`rules`] names the conventions (retro, FIDE, Piran, FIDE 1988).
#![deny(missing_docs)]

pub mod answer;
pub mod batch;
pub mod certify;
pub mod clock;
pub mod codex;
pub mod construct;
mod fast_hash;
pub mod format;
pub mod games;
pub mod lastmoves;
pub mod legal;
pub mod legality;
pub mod pgn;
pub mod position;
pub mod proofgame;
pub mod puzzle;
pub mod required;
pub mod retract;
pub mod retroboard_fix;
pub mod rules;
pub mod stipulation;
pub mod verdict;
pub mod verify;
