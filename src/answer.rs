//! The one place a question is answered: a position, a stipulation, the rules, the premises
//! and the games a user gives, with a budget, in; an answer out. The `solve` and `batch`
//! commands, the tests and any later front end all call [`answer`]; they only read arguments
//! and format what it returns.
//!
//! The steps: the Codex reading of an unknown castling field (when asked for), the clock
//! search ([`crate::clock`]), certification of the lines a proven answer would rest on
//! ([`crate::certify`]), the verdict ([`crate::verdict`]), and for `legal?` the legality
//! judgement ([`crate::legal`]). `last N?` and `proofgame N` are answered by the retractor and
//! the proof-game search.

use std::{fmt, time::Instant};

use shakmaty::Bitboard;

use crate::{
    certify::{self, CertifiedLine, GivenGame, GivenGameError, Proofs},
    clock::{Budget, Progress, solve_clock},
    codex::{narrowed, read_castling, refusal},
    lastmoves::{LastMoves, LastMovesBudget, last_moves},
    legal::{ProofBudget, judge, target_of},
    position::PositionInput,
    proofgame::{self, ProofGameSearch},
    rules::Rules,
    stipulation::Stipulation,
    verdict::{Answer, decide, wanted},
};

/// A question about one position.
#[derive(Clone, Debug)]
pub struct Question {
    /// The position (FEN fields; `?` for unknown ones).
    pub position: PositionInput,
    /// What is asked (with its premise, `at move N`, if any).
    pub stipulation: Stipulation,
    /// The rule set.
    pub rules: Rules,
    /// Read an unknown castling field by the Codex (Art. 16.1); `castling?` always does.
    pub codex: bool,
    /// Games from the initial array that the user gives as ending in the position: each is
    /// checked, and certifies the clock it gives.
    pub games: Vec<GivenGame>,
    /// For `last N?`: how many further plies each sequence is checked back.
    pub extra: u32,
}

impl Question {
    /// A question with no Codex reading, no given game and one extra ply for `last N?`.
    pub fn new(position: PositionInput, stipulation: Stipulation, rules: Rules) -> Question {
        Question {
            position,
            stipulation,
            rules,
            codex: false,
            games: Vec::new(),
            extra: 1,
        }
    }
}

/// The limits an answer is found within.
#[derive(Clone, Debug)]
pub struct Limits {
    /// The clock search's budget (positions, deadline, memory, chain depths).
    pub search: Budget,
    /// The searches for games from the initial array (certification and `legal?`); a zero
    /// `time` turns them off (given games still certify).
    pub proof: ProofBudget,
    /// The most proof games (`proofgame N`) and sequences (`last N?`) written out; the counts
    /// are exact regardless.
    pub listed: usize,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            search: Budget::default(),
            proof: ProofBudget::default(),
            listed: 100,
        }
    }
}

/// What the answer is busy with, for a progress display.
#[derive(Clone, Copy, Debug)]
pub enum Stage {
    /// The clock search, with how far it got.
    Search(Progress),
    /// The Codex reading, examining one set of castling rights.
    Codex(Bitboard, Progress),
    /// Looking for games from the initial array that certify lines.
    Certifying,
}

/// The answer to a question.
#[derive(Clone, Debug)]
pub enum Reply {
    /// A verdict with its reasons (every stipulation but the two below).
    Verdict(Box<Answer>),
    /// `last N?`: the sequences of the last plies.
    LastMoves(LastMoves),
    /// `proofgame N`: the proof games of exactly `plies` plies, each replayed.
    ProofGames {
        /// The length asked for.
        plies: u32,
        /// What the search found.
        found: ProofGameSearch,
    },
}

/// Why a question cannot be answered as asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum QuestionError {
    /// The Codex reading does not apply (`asker` is `--codex` or `castling?`).
    Codex {
        /// What asked for the reading.
        asker: &'static str,
        /// Why it does not apply.
        why: String,
    },
    /// A given game is illegal or ends elsewhere.
    Game(GivenGameError),
    /// A proof game failed its replay (a fault of the solver, reported, never printed as a
    /// game).
    Replay {
        /// Which game (1-based).
        game: usize,
    },
}

impl fmt::Display for QuestionError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QuestionError::Codex { asker, why } => write!(f, "{asker} {why}"),
            QuestionError::Game(e) => write!(f, "game {e}"),
            QuestionError::Replay { game } => write!(
                f,
                "internal check failed: proof game {game} does not replay to the position"
            ),
        }
    }
}

impl std::error::Error for QuestionError {}

/// Answers `question` within `limits`, reporting progress to `progress`.
pub fn answer(
    question: &Question,
    limits: &Limits,
    progress: &(dyn Fn(Stage) + Sync),
) -> Result<Reply, QuestionError> {
    let input = &question.position;
    let stip = question.stipulation;
    let rules = question.rules;
    // `castling?` asks for the Codex reading itself.
    let codex = question.codex || stip == Stipulation::Castling;
    if codex && let Some(why) = refusal(input, stip) {
        let asker = if question.codex {
            "--codex"
        } else {
            "castling?"
        };
        return Err(QuestionError::Codex { asker, why });
    }
    let deadline = limits.search.deadline;
    match stip {
        Stipulation::Last(plies) => {
            let budget = LastMovesBudget {
                max_nodes: limits.search.max_nodes,
                deadline,
                limit: limits.listed,
                ..LastMovesBudget::default()
            };
            let found = last_moves(input, plies, question.extra, rules.convention(), &budget);
            return Ok(Reply::LastMoves(found));
        }
        Stipulation::ProofGame(plies) => {
            let target = target_of(input);
            let budget = proofgame::Budget {
                max_nodes: u64::MAX,
                deadline,
                max_bytes: limits.search.max_bytes,
            };
            let found = proofgame::proof_games(&target, plies, &budget, limits.listed);
            // Every game is replayed from the initial array before it is handed out.
            if let Some(bad) = found
                .games
                .iter()
                .position(|g| !proofgame::replay_reaches(&target, g))
            {
                return Err(QuestionError::Replay { game: bad + 1 });
            }
            return Ok(Reply::ProofGames { plies, found });
        }
        _ => {}
    }
    let given: Vec<CertifiedLine> = question
        .games
        .iter()
        .map(|g| certify::check_given(g, input, rules.convention()))
        .collect::<Result<_, _>>()
        .map_err(QuestionError::Game)?;
    let certifying = !limits.proof.time.is_zero();
    let proof = ProofBudget {
        deadline: earliest(limits.proof.deadline, deadline),
        ..limits.proof
    };
    // The Codex reading decides which castling rights the answer covers.
    let reading = if codex {
        read_castling(
            input,
            rules,
            &limits.search,
            certifying.then_some(&proof),
            &|set, p| progress(Stage::Codex(set, p)),
        )
    } else {
        None
    };
    let input = reading
        .as_ref()
        .map_or_else(|| input.clone(), |r| narrowed(input, r));
    let clock = solve_clock(&input, rules, &limits.search, &|p| {
        progress(Stage::Search(p))
    });
    let proofs = if certifying || !given.is_empty() {
        progress(Stage::Certifying);
        let budget = if certifying {
            proof
        } else {
            // Given games only: no search for games.
            ProofBudget {
                deadline: Some(Instant::now()),
                ..proof
            }
        };
        certify::certify(
            &clock,
            &input,
            &wanted(stip, &input, rules),
            &given,
            &budget,
        )
    } else {
        Proofs::default()
    };
    let mut answer = decide(stip, &input, clock, proofs);
    if stip == Stipulation::Legal {
        let budget = if certifying {
            proof
        } else {
            ProofBudget {
                deadline: Some(Instant::now()),
                ..proof
            }
        };
        let legality = judge(&input, &answer.clock, &answer.proofs, &budget);
        answer = answer.with_legality(legality);
    }
    if let Some(r) = reading {
        answer = answer.with_codex(r);
    }
    Ok(Reply::Verdict(Box::new(answer)))
}

/// The earlier of two deadlines.
fn earliest(a: Option<Instant>, b: Option<Instant>) -> Option<Instant> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}
