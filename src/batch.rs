//! Batch checks of puzzle collections: every entry is solved and its answer compared with the
//! stated one (`sol`). No I/O here: entries in, outcomes out; the `batch` subcommand reads the
//! files (and the games they name) and prints what [`outcome_human`], [`outcome_json`] and
//! [`outcome_csv`] return.
//!
//! How each stipulation's answer is compared with `sol` is defined in `puzzles/README.md`;
//! [`compare`] implements that definition and nothing else. The status follows the strength of
//! the evidence (SPEC §4): `confirmed` and `mismatch` rest on proofs, `plausible` and `doubtful`
//! on witnesses only.

use std::{
    fmt,
    time::{Duration, Instant},
};

use rayon::prelude::*;
use serde_json::{Value, json};

use crate::{
    answer::{Limits, Question, Reply, answer},
    certify::GivenGame,
    clock::{Budget, ClockAnswer, MaxClock},
    format,
    legal::ProofBudget,
    puzzle::{ClaimArticle, Puzzle, Solution, parse_puzzles},
    stipulation::Stipulation,
    verdict::{Answer, ClaimInfo, Finding, Verdict, clock_proof},
};

/// The limits every entry is solved with.
#[derive(Clone, Debug)]
pub struct Settings {
    /// The most positions one entry's search may store.
    pub max_nodes: u64,
    /// The time one entry's search may take (counted from the start of that entry).
    pub timeout: Option<Duration>,
    /// Depth of the legal retraction chain required of a reset's predecessor.
    pub chain_depth: u32,
    /// The most bytes one entry's search may hold.
    pub max_bytes: Option<u64>,
    /// The time one entry may spend looking for games that certify its lines (zero: none;
    /// given games still count).
    pub proof_time: Duration,
}

impl Default for Settings {
    fn default() -> Settings {
        let budget = Budget::default();
        Settings {
            max_nodes: budget.max_nodes,
            timeout: None,
            chain_depth: budget.chain_depth,
            max_bytes: None,
            proof_time: ProofBudget::default().time,
        }
    }
}

/// One entry of a collection: where it comes from and what was read there.
#[derive(Clone, Debug)]
pub struct Entry {
    /// The file's name as the user gave it.
    pub file: String,
    /// The line in the file (1-based); 0 when the file itself could not be read.
    pub line: usize,
    /// The text of that line (or empty).
    pub source: String,
    /// The entry, or what is wrong with it.
    pub puzzle: Result<Puzzle, String>,
    /// The games its `game` operation names, read by the caller (each certifies the clock it
    /// gives the position).
    pub games: Vec<GivenGame>,
}

/// Reads the entries of one puzzle file's text (see [`crate::puzzle`] for the format). A stated
/// answer that cannot be true of any position (an empty range, a parity that its bounds do not
/// have) makes the entry an error too. The games that entries name are not read here.
pub fn entries_from_text(file: &str, text: &str) -> Vec<Entry> {
    let lines: Vec<&str> = text.lines().collect();
    parse_puzzles(text)
        .into_iter()
        .map(|result| {
            let line = match &result {
                Ok(p) => p.line,
                Err(e) => e.line,
            };
            let puzzle = match result {
                Ok(p) => match p.solution.as_ref().map(check_stated) {
                    Some(Err(message)) => Err(format!("sol: {message}")),
                    _ => Ok(p),
                },
                Err(e) => Err(e.message),
            };
            Entry {
                file: file.to_string(),
                line,
                source: lines
                    .get(line.wrapping_sub(1))
                    .map_or_else(String::new, |l| l.trim().to_string()),
                puzzle,
                games: Vec::new(),
            }
        })
        .collect()
}

/// An entry standing for a file that could not be read.
pub fn file_error(file: &str, message: impl Into<String>) -> Entry {
    Entry {
        file: file.to_string(),
        line: 0,
        source: String::new(),
        puzzle: Err(message.into()),
        games: Vec::new(),
    }
}

/// Refuses a stated range that no set of clock values can have.
fn check_stated(s: &Solution) -> Result<(), String> {
    if let Solution::Range { min, max, parity } = *s {
        if let Some(m) = max
            && m < min
        {
            return Err(format!("the range {s} is empty"));
        }
        if let Some(p) = parity {
            let name = if p == 0 { "even" } else { "odd" };
            if min % 2 != u64::from(p) {
                return Err(format!("'{s}': the minimum {min} is not {name}"));
            }
            if let Some(m) = max
                && m % 2 != u64::from(p)
            {
                return Err(format!("'{s}': the maximum {m} is not {name}"));
            }
        }
    }
    Ok(())
}

/// How an entry's answer relates to its stated answer.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// The solver proves the stated answer.
    Confirmed,
    /// The witnesses agree with the stated answer, but the solver proves neither it nor
    /// another.
    Plausible,
    /// The solver proves another answer.
    Mismatch,
    /// The witnesses contradict the stated answer, but nothing is proven.
    Doubtful,
    /// The stated answer holds in some histories but is not the only answer (proven).
    Ambiguous,
    /// The budget ran out before anything was proven or witnessed either way.
    Unknown,
    /// The entry states no answer; the solver's answer is reported.
    Unstated,
    /// The entry cannot be read.
    Error,
}

impl Status {
    /// Every status, in the order the summary lists them.
    pub const ALL: [Status; 8] = [
        Status::Confirmed,
        Status::Plausible,
        Status::Mismatch,
        Status::Doubtful,
        Status::Ambiguous,
        Status::Unknown,
        Status::Unstated,
        Status::Error,
    ];

    /// The name used in every output format.
    pub fn name(self) -> &'static str {
        match self {
            Status::Confirmed => "confirmed",
            Status::Plausible => "plausible",
            Status::Mismatch => "mismatch",
            Status::Doubtful => "doubtful",
            Status::Ambiguous => "ambiguous",
            Status::Unknown => "unknown",
            Status::Unstated => "unstated",
            Status::Error => "error",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The result of checking one entry.
#[derive(Clone, Debug)]
pub struct Outcome {
    /// How the answer relates to the stated one.
    pub status: Status,
    /// The stated answer, if any.
    pub stated: Option<Solution>,
    /// The solver's answer, written like a stated answer where possible.
    pub solver: Option<String>,
    /// Why the status was given (for `error`: what is wrong with the entry).
    pub reason: String,
    /// The full answer (without the explored graph), unless the entry is an error or is
    /// answered by a count.
    pub answer: Option<Answer>,
}

impl Outcome {
    fn error(reason: String) -> Outcome {
        Outcome {
            status: Status::Error,
            stated: None,
            solver: None,
            reason,
            answer: None,
        }
    }
}

/// Solves one entry and compares its answer with the stated one.
pub fn check(entry: &Entry, settings: &Settings) -> Outcome {
    let puzzle = match &entry.puzzle {
        Ok(p) => p,
        Err(message) => return Outcome::error(message.clone()),
    };
    let deadline = settings.timeout.map(|t| Instant::now() + t);
    let limits = Limits {
        search: Budget {
            // An entry may say what its search needs (`nodes`).
            max_nodes: puzzle.max_nodes.unwrap_or(settings.max_nodes),
            deadline,
            chain_depth: settings.chain_depth,
            max_bytes: settings.max_bytes,
            ..Budget::default()
        },
        proof: ProofBudget {
            time: settings.proof_time,
            max_bytes: settings.max_bytes,
            deadline,
            ..ProofBudget::default()
        },
        listed: 0,
    };
    let question = Question {
        position: puzzle.position.clone(),
        stipulation: puzzle.stipulation,
        rules: puzzle.rules,
        codex: puzzle.codex,
        games: entry.games.clone(),
        extra: puzzle.extra,
        ep_reading: puzzle.ep_reading,
    };
    let reply = match answer(&question, &limits, &|_| {}) {
        Ok(reply) => reply,
        Err(e) => return Outcome::error(e.to_string()),
    };
    // `last N?` and `proofgame N` are answered by a count: (count, complete).
    let (counted, mut answer) = match reply {
        Reply::LastMoves(found) => (Some((found.count, found.complete)), None),
        Reply::ProofGames { found, .. } => (Some((found.count, found.complete)), None),
        Reply::Verdict(answer) => (None, Some(*answer)),
    };
    let solver = match (counted, &answer) {
        (Some((n, true)), _) => n.to_string(),
        (Some((n, false)), _) => format!(">={n} (search incomplete)"),
        (None, Some(a)) => solver_answer(a),
        (None, None) => String::new(),
    };
    let (status, reason) = match (&puzzle.solution, counted, &answer) {
        (None, _, _) => (Status::Unstated, "no stated answer".to_string()),
        (Some(Solution::Count(stated)), Some((n, complete)), _) => {
            compare_count(*stated, n, complete)
        }
        (Some(stated), _, Some(a)) => compare(stated, a),
        (Some(stated), _, None) => (
            Status::Error,
            format!(
                "the stated answer '{stated}' is not an answer to {}",
                puzzle.stipulation
            ),
        ),
    };
    // The graph can be large; the comparison above was its last use.
    if let Some(a) = &mut answer {
        a.clock.graph = None;
        a.clock.analysis = None;
    }
    Outcome {
        status,
        stated: puzzle.solution,
        solver: Some(solver),
        reason,
        answer,
    }
}

/// Checks every entry in parallel on the current rayon pool; the outcomes are in entry order.
/// `done` is called once per finished entry (for a progress display).
pub fn run(entries: &[Entry], settings: &Settings, done: &(dyn Fn() + Sync)) -> Vec<Outcome> {
    entries
        .par_iter()
        .map(|e| {
            let outcome = check(e, settings);
            done();
            outcome
        })
        .collect()
}

/// As [`run`], handing each outcome to `deliver` in the entries' order, as soon as it and all
/// before it are done, so that a long batch is reported as it goes. `deliver` runs on a thread
/// of its own; when it returns false (its reader went away), the entries not started yet are
/// skipped and no more outcomes are delivered. The entries are checked on the current rayon
/// pool.
pub fn run_in_order(
    entries: &[Entry],
    settings: &Settings,
    done: &(dyn Fn() + Sync),
    deliver: impl FnMut(&Entry, Outcome) -> bool + Send,
) {
    use std::sync::{
        atomic::{AtomicBool, Ordering},
        mpsc,
    };
    let stop = AtomicBool::new(false);
    let (tx, rx) = mpsc::channel::<(usize, Outcome)>();
    std::thread::scope(|scope| {
        let stop = &stop;
        scope.spawn(move || {
            let mut deliver = deliver;
            // Outcomes that came before those of earlier entries, by entry.
            let mut waiting = std::collections::BTreeMap::new();
            let mut next = 0;
            for (i, outcome) in rx {
                waiting.insert(i, outcome);
                while let Some(outcome) = waiting.remove(&next) {
                    if !stop.load(Ordering::Relaxed) && !deliver(&entries[next], outcome) {
                        stop.store(true, Ordering::Relaxed);
                    }
                    next += 1;
                }
            }
        });
        entries
            .par_iter()
            .enumerate()
            .for_each_with(tx, |tx, (i, e)| {
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let outcome = check(e, settings);
                done();
                // The receiver lives until every sender is gone.
                let _ = tx.send((i, outcome));
            });
    });
}

fn no_history(c: &ClockAnswer) -> bool {
    !c.has_history()
}

fn yes_no(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}

/// A finding in the syntax of a stated answer: `yes`/`no` when proven, `likely yes` when only
/// witnessed.
fn finding_text(f: Finding) -> String {
    match f {
        Finding::Proven(b) => yes_no(b).to_string(),
        Finding::Witnessed(b) => format!("likely {} (witnessed)", yes_no(b)),
        Finding::Open => "unknown".to_string(),
    }
}

/// The range the clock solver's answer describes, `MIN..MAX [parity]`, from the values it
/// witnessed (the proven parts are the same where they are proven).
fn range_text(c: &ClockAnswer) -> String {
    let min = match c.min {
        Some(m) => m.to_string(),
        None => format!(">={}", c.min_lower_bound),
    };
    let max = match c.max {
        MaxClock::Bounded(m) => m.to_string(),
        MaxClock::Unbounded => "inf".to_string(),
        MaxClock::Unknown { at_least: Some(m) } => format!(">={m}"),
        MaxClock::Unknown { at_least: None } => "?".to_string(),
    };
    let parity = match (c.parities, c.complete) {
        ([true, false], true) => " even",
        ([false, true], true) => " odd",
        _ => "",
    };
    format!("{min}..{max}{parity}")
}

/// The solver's answer, in the syntax of a stated answer where it is proven (`3..17 odd`,
/// `0..inf`, `yes`, `no`), otherwise in words (`likely no (witnessed)`).
pub fn solver_answer(a: &Answer) -> String {
    let c = &a.clock;
    if a.verdict == Verdict::Illegal && a.stipulation != Stipulation::Legal {
        return "no legal history".to_string();
    }
    match a.stipulation {
        Stipulation::Clock(_) => {
            if no_history(c) {
                return "no legal history".to_string();
            }
            let range = range_text(c);
            if a.verdict == Verdict::Solved {
                range
            } else if c.min.is_none() || matches!(c.max, MaxClock::Unknown { .. }) {
                format!("{range} (search incomplete)")
            } else {
                format!("likely {range} (witnessed, not all proven)")
            }
        }
        Stipulation::Claim(_) | Stipulation::Over(_) => {
            match (a.possibly.likely(), a.necessarily.likely()) {
                (_, Some(true)) => {
                    let article = match &a.claim {
                        Some(info) if info.by_9_3_2.likely() == Some(true) => " by 9.3.2",
                        Some(info)
                            if info.by_9_3_1.likely() == Some(true)
                                && info.possibly_by_9_3_2.likely() == Some(false) =>
                        {
                            " by 9.3.1"
                        }
                        _ => "",
                    };
                    match a.necessarily {
                        Finding::Proven(_) => format!("yes{article}"),
                        _ => format!("likely yes{article} (witnessed)"),
                    }
                }
                (Some(false), _) => finding_text(a.possibly),
                (Some(true), Some(false)) => {
                    let level = if matches!(
                        (a.possibly, a.necessarily),
                        (Finding::Proven(_), Finding::Proven(_))
                    ) {
                        ""
                    } else {
                        " (witnessed)"
                    };
                    format!("yes in some histories, no in others{level}")
                }
                (Some(true), None) => "yes in some histories, unknown whether in all".to_string(),
                (None, Some(false)) => {
                    "no in some histories, unknown whether yes in any".to_string()
                }
                (None, None) => "unknown".to_string(),
            }
        }
        Stipulation::Last(..) | Stipulation::ProofGame(_) => {
            "answered by a count (see the count in the report)".to_string()
        }
        Stipulation::Castling => match a.codex.as_ref().and_then(|r| r.answer()) {
            Some(0) => "no legal history".to_string(),
            Some(mask) if a.verdict == Verdict::Solved => crate::codex::alternatives_text(mask),
            Some(mask) => format!(
                "likely {} (witnessed)",
                crate::codex::alternatives_text(mask)
            ),
            None => "unknown (the reading is open)".to_string(),
        },
        Stipulation::ClockIs(..) | Stipulation::Fen | Stipulation::Legal => {
            finding_text(a.possibly)
        }
    }
}

/// The status of a stated yes/no answer against a finding of the same question.
fn compare_finding(
    stated: bool,
    f: Finding,
    unproven: Option<&str>,
    why: impl Fn(bool) -> String,
) -> (Status, String) {
    let witnessed = |b: bool| {
        match unproven {
        Some(reason) => format!("likely {}, not proven: {reason}", yes_no(b)),
        None if b => "witnessed, not proven: a line to a possible origin shows it, but no game from the initial array reaches the line's start".to_string(),
        None => "witnessed, not proven: no line the search found shows it".to_string(),
    }
    };
    match f {
        Finding::Proven(b) if b == stated => (Status::Confirmed, why(b)),
        Finding::Proven(b) => (Status::Mismatch, why(b)),
        Finding::Witnessed(b) if b == stated => (Status::Plausible, witnessed(b)),
        Finding::Witnessed(b) => (Status::Doubtful, witnessed(b)),
        Finding::Open => (
            Status::Unknown,
            "nothing was proven or witnessed within the budget".to_string(),
        ),
    }
}

/// Compares a stated answer with the solver's answer; returns the status and why. The rules are
/// those of `puzzles/README.md` ("How answers are compared").
pub fn compare(stated: &Solution, a: &Answer) -> (Status, String) {
    let c = &a.clock;
    // Under a premise, "no" is the answer for a position that no game of that length reaches
    // (a stated range for `clock?` still cannot be).
    let illegal_ok = matches!(a.stipulation, Stipulation::Fen | Stipulation::Legal)
        || (a.stipulation.at_move().is_some() && !matches!(a.stipulation, Stipulation::Clock(_)));
    if no_history(c) && !illegal_ok {
        return (
            Status::Mismatch,
            "the position has no legal history, so no stated answer about it can be confirmed"
                .to_string(),
        );
    }
    match (a.stipulation, stated) {
        (Stipulation::Clock(_), Solution::Range { min, max, parity }) => {
            compare_range(*min, *max, *parity, a)
        }
        (Stipulation::Claim(_) | Stipulation::Over(_), Solution::YesNo(s)) => {
            compare_every_history(*s, a.possibly, a.necessarily)
        }
        (Stipulation::Claim(_), Solution::ClaimBy(article)) => match &a.claim {
            Some(info) => compare_claim_article(*article, info),
            None => (
                Status::Error,
                "the answer to claim? carries no claim details".to_string(),
            ),
        },
        (Stipulation::Castling, Solution::Rights(stated)) => {
            let Some(reading) = a.codex.as_ref() else {
                return (Status::Error, "castling? carries no reading".to_string());
            };
            match reading.answer() {
                Some(found) if found == *stated && a.verdict == Verdict::Solved => (
                    Status::Confirmed,
                    "every larger set is refuted (proven) and these are shown by games".to_string(),
                ),
                Some(found) if found == *stated => (
                    Status::Plausible,
                    "every larger set is refuted (proven), but these are witnessed only, not shown by games".to_string(),
                ),
                Some(found) => {
                    let text = format!(
                        "the largest sets not refuted are {}",
                        crate::codex::alternatives_text(found)
                    );
                    // A stated set refuted is a proof against it; a larger set not refuted
                    // and shown by a game too.
                    let refuted = reading.sets.iter().any(|(set, f)| {
                        matches!(f, crate::codex::RightsFinding::Refuted(_))
                            && crate::codex::alternatives_mask(&[*set]) & *stated != 0
                    });
                    if refuted || a.verdict == Verdict::Solved {
                        (Status::Mismatch, text)
                    } else {
                        (Status::Doubtful, format!("{text} (witnessed only)"))
                    }
                }
                None => (
                    Status::Unknown,
                    "the reading is open: a set was neither refuted nor shown within the budget"
                        .to_string(),
                ),
            }
        }
        (Stipulation::ClockIs(..) | Stipulation::Fen | Stipulation::Legal, Solution::YesNo(s)) => {
            compare_finding(*s, a.possibly, a.unproven.as_deref(), |p| {
                if p {
                    "a legal history where it holds is shown by a game from the initial array"
                        .to_string()
                } else {
                    "it holds in no legal history".to_string()
                }
            })
        }
        // The reader parses `sol` in the syntax of its stipulation; only a hand-built entry
        // can get here.
        (_, s) => (
            Status::Error,
            format!(
                "the stated answer '{s}' is not an answer to {}",
                a.stipulation
            ),
        ),
    }
}

/// `claim?` answered `yes by 9.3.1` (every legal history allows the claim by 9.3.1 and none by
/// 9.3.2) or `yes by 9.3.2` (every legal history allows it by 9.3.2).
fn compare_claim_article(article: ClaimArticle, info: &ClaimInfo) -> (Status, String) {
    let is = |f: Finding, b: bool, proven: bool| {
        if proven {
            f.proven() == Some(b)
        } else {
            f.likely() == Some(b)
        }
    };
    let judge = |proven: bool| match article {
        ClaimArticle::Announced => (
            is(info.by_9_3_1, true, proven) && is(info.possibly_by_9_3_2, false, proven),
            is(info.possibly_by_9_3_1, false, proven) || is(info.possibly_by_9_3_2, true, proven),
        ),
        ClaimArticle::Completed => (
            is(info.by_9_3_2, true, proven),
            is(info.possibly_by_9_3_2, false, proven),
        ),
    };
    let by = |f: Finding| match f {
        Finding::Proven(b) => yes_no(b).to_string(),
        Finding::Witnessed(b) => format!("{} (witnessed)", yes_no(b)),
        Finding::Open => "unknown".to_string(),
    };
    let facts = format!(
        "by 9.3.1 in every legal history: {}, in some: {}; by 9.3.2 in every legal history: {}, in some: {}",
        by(info.by_9_3_1),
        by(info.possibly_by_9_3_1),
        by(info.by_9_3_2),
        by(info.possibly_by_9_3_2)
    );
    let (confirmed, refuted) = judge(true);
    let (plausible, doubtful) = judge(false);
    let status = if confirmed {
        Status::Confirmed
    } else if refuted {
        Status::Mismatch
    } else if plausible {
        Status::Plausible
    } else if doubtful {
        Status::Doubtful
    } else {
        Status::Unknown
    };
    (status, facts)
}

/// `last N?` and `proofgame N`: the stated number against the count (a lower bound when the
/// search was incomplete).
fn compare_count(stated: u64, count: u64, complete: bool) -> (Status, String) {
    if complete && count == stated {
        (
            Status::Confirmed,
            format!("exactly {count}, counted in full"),
        )
    } else if complete || count > stated {
        (
            Status::Mismatch,
            format!("{}{count} counted", if complete { "" } else { "at least " }),
        )
    } else {
        (
            Status::Unknown,
            format!("at least {count} counted before the budget ran out"),
        )
    }
}

/// `claim?` and `over?`: yes means in every legal history; the stated answer is confirmed only
/// when it is proven the same in every legal history.
fn compare_every_history(
    stated: bool,
    possibly: Finding,
    necessarily: Finding,
) -> (Status, String) {
    let both = "it holds in some legal histories and not in others, so the answer depends on the unknown history";
    if stated {
        match (possibly, necessarily) {
            (_, Finding::Proven(true)) => (
                Status::Confirmed,
                "it holds in every legal history (proven)".to_string(),
            ),
            (Finding::Proven(false), _) => (
                Status::Mismatch,
                "it holds in no legal history (proven)".to_string(),
            ),
            (Finding::Proven(true), Finding::Proven(false)) => {
                (Status::Ambiguous, format!("{both} (proven)"))
            }
            (_, Finding::Proven(false)) => (
                Status::Mismatch,
                "a legal history where it does not hold is shown by a game".to_string(),
            ),
            (_, Finding::Witnessed(true)) => (
                Status::Plausible,
                "witnessed, not proven: it holds in every history the search found".to_string(),
            ),
            (_, Finding::Witnessed(false)) => (
                Status::Doubtful,
                "witnessed, not proven: a history where it does not hold".to_string(),
            ),
            (Finding::Witnessed(false), _) => (
                Status::Doubtful,
                "witnessed, not proven: it holds in no history the search found".to_string(),
            ),
            _ => (
                Status::Unknown,
                "nothing was proven or witnessed within the budget".to_string(),
            ),
        }
    } else {
        match necessarily {
            Finding::Proven(false) => {
                let why = if possibly == Finding::Proven(false) {
                    "it holds in no legal history (proven)"
                } else {
                    "a legal history where it does not hold is shown by a game"
                };
                (Status::Confirmed, why.to_string())
            }
            Finding::Proven(true) => (
                Status::Mismatch,
                "it holds in every legal history (proven)".to_string(),
            ),
            Finding::Witnessed(false) => (
                Status::Plausible,
                "witnessed, not proven: a history where it does not hold".to_string(),
            ),
            Finding::Witnessed(true) => (
                Status::Doubtful,
                "witnessed, not proven: it holds in every history the search found".to_string(),
            ),
            Finding::Open => (
                Status::Unknown,
                "nothing was proven or witnessed within the budget".to_string(),
            ),
        }
    }
}

/// `clock?`: the stated `MIN..MAX [parity]` against the solver's minimum, maximum and
/// parities: what the proofs say first (certified values, impossible values), then what the
/// witnesses suggest.
fn compare_range(
    smin: u64,
    smax: Option<u64>,
    sparity: Option<u8>,
    a: &Answer,
) -> (Status, String) {
    let (c, proofs) = (&a.clock, &a.proofs);
    let proof = clock_proof(c, proofs);
    let max_equal = |max: MaxClock| match (smax, max) {
        (Some(s), MaxClock::Bounded(m)) => s == m,
        (None, MaxClock::Unbounded) => true,
        _ => false,
    };
    // A parity is proven absent only by a complete search or the proven parity.
    let parity_absent = |p: usize| {
        !c.parities[p] && (c.complete || c.parity_proven.is_some_and(|q| usize::from(q) != p))
    };
    let parity_ok = |p: u8| parity_absent(1 - usize::from(p));
    if a.verdict == Verdict::Solved
        && proofs.min() == Some(smin)
        && max_equal(c.max)
        && sparity.is_none_or(parity_ok)
        && proof.all()
    {
        let what = if sparity.is_some() {
            "minimum, maximum and parity are proven"
        } else {
            "minimum and maximum are proven"
        };
        return (Status::Confirmed, what.to_string());
    }
    // What the proofs contradict: stated values that are impossible, certified values outside
    // the stated range.
    let mut proven_wrong = Vec::new();
    if c.value_possible(smin) == Some(false) {
        proven_wrong.push(format!("the stated minimum {smin} is impossible (proven)"));
    }
    match smax {
        Some(m) if c.value_possible(m) == Some(false) => {
            proven_wrong.push(format!("the stated maximum {m} is impossible (proven)"));
        }
        None if matches!(c.max, MaxClock::Bounded(_)) => {
            proven_wrong.push("the clock is proven bounded".to_string());
        }
        _ => {}
    }
    let mut proven_extra = Vec::new();
    if let Some(m) = proofs.min()
        && m < smin
    {
        proven_extra.push(format!(
            "{m} is possible (certified), below the stated minimum"
        ));
    }
    if let Some(s) = smax {
        if proofs.unbounded() {
            proven_extra.push("the clock is unbounded (certified)".to_string());
        } else if let Some(m) = proofs.max()
            && m > s
        {
            proven_extra.push(format!(
                "{m} is possible (certified), above the stated maximum"
            ));
        }
    }
    if let Some(p) = sparity
        && proofs.parity(1 - p)
    {
        let other = if p == 0 { "odd" } else { "even" };
        proven_extra.push(format!("{other} values are possible (certified)"));
    }
    let stated_certified = proofs.certifies(smin)
        && match smax {
            Some(m) => proofs.certifies(m),
            None => proofs.unbounded(),
        };
    if !proven_wrong.is_empty() {
        proven_wrong.extend(proven_extra);
        return (Status::Mismatch, proven_wrong.join("; "));
    }
    if !proven_extra.is_empty() {
        return if stated_certified {
            (
                Status::Ambiguous,
                format!(
                    "the stated bounds are possible but not the whole answer: {}",
                    proven_extra.join("; ")
                ),
            )
        } else {
            (Status::Mismatch, proven_extra.join("; "))
        };
    }
    // Nothing proven against it: what the witnesses say.
    let mut witnessed_wrong = Vec::new();
    match c.min {
        Some(m) if m != smin => {
            witnessed_wrong.push(format!("the smallest value witnessed is {m}"));
        }
        _ => {}
    }
    match (smax, c.max) {
        (Some(s), MaxClock::Bounded(m)) if m != s => {
            witnessed_wrong.push(format!("the largest value witnessed is {m}"));
        }
        (Some(_), MaxClock::Unbounded) => {
            witnessed_wrong.push("a cycle on a line to an origin is witnessed".to_string());
        }
        (Some(s), MaxClock::Unknown { at_least: Some(m) }) if m > s => {
            witnessed_wrong.push(format!("{m} is witnessed, above the stated maximum"));
        }
        _ => {}
    }
    if let Some(p) = sparity
        && c.parities[usize::from(1 - p)]
    {
        let other = if p == 0 { "odd" } else { "even" };
        witnessed_wrong.push(format!("{other} values are witnessed"));
    }
    if !witnessed_wrong.is_empty() {
        return (
            Status::Doubtful,
            format!("witnessed, not proven: {}", witnessed_wrong.join("; ")),
        );
    }
    let decided = c.min == Some(smin) && max_equal(c.max);
    if decided {
        let mut missing = Vec::new();
        if !proof.min {
            missing.push("the minimum");
        }
        if !proof.max {
            missing.push("the maximum");
        }
        if sparity.is_some_and(|p| !parity_ok(p)) || proof.parities != [true, true] {
            missing.push("the parity");
        }
        return (
            Status::Plausible,
            format!(
                "the witnesses agree; not proven: {}",
                if missing.is_empty() {
                    "the parity".to_string()
                } else {
                    missing.join(", ")
                }
            ),
        );
    }
    (
        Status::Unknown,
        "the search did not decide within its budget".to_string(),
    )
}

/// Counts per status.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct Summary {
    /// The count of each status, in the order of [`Status::ALL`].
    pub counts: [usize; 8],
}

impl Summary {
    /// Counts the outcomes.
    pub fn of(outcomes: &[Outcome]) -> Summary {
        let mut s = Summary::default();
        for o in outcomes {
            s.add(o);
        }
        s
    }

    fn index(status: Status) -> usize {
        Status::ALL.iter().position(|&x| x == status).unwrap_or(7)
    }

    /// Counts one more outcome.
    pub fn add(&mut self, outcome: &Outcome) {
        self.counts[Summary::index(outcome.status)] += 1;
    }

    /// How many outcomes have `status`.
    pub fn count(&self, status: Status) -> usize {
        self.counts[Summary::index(status)]
    }

    /// The exit status: 2 when any entry is an error, else 0 when every entry is confirmed
    /// or unstated, else 1 (some entry is plausible, doubtful, mismatch, ambiguous or
    /// unknown: not proven as stated).
    pub fn exit_code(&self) -> u8 {
        if self.count(Status::Error) > 0 {
            2
        } else if self.count(Status::Confirmed) + self.count(Status::Unstated)
            < self.counts.iter().sum::<usize>()
        {
            1
        } else {
            0
        }
    }
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = Status::ALL
            .iter()
            .map(|&s| format!("{} {s}", self.count(s)))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// A part of a collection: the entries whose 0-based index `i` satisfies `i % n == k - 1`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Shard {
    /// Which part, 1-based.
    pub k: usize,
    /// Into how many parts.
    pub n: usize,
}

impl Shard {
    /// Reads `K/N` with `1 <= K <= N`.
    pub fn parse(text: &str) -> Result<Shard, String> {
        let bad = || format!("expected K/N with 1 <= K <= N (e.g. 2/3), found '{text}'");
        let (k, n) = text.trim().split_once('/').ok_or_else(bad)?;
        let k: usize = k.trim().parse().map_err(|_| bad())?;
        let n: usize = n.trim().parse().map_err(|_| bad())?;
        if k == 0 || n == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Whether the entry with 0-based index `i` belongs to this part.
    pub fn contains(&self, i: usize) -> bool {
        i % self.n == self.k - 1
    }
}

fn location(e: &Entry) -> String {
    if e.line == 0 {
        e.file.clone()
    } else {
        format!("{}:{}", e.file, e.line)
    }
}

/// One entry's report for a person, one line:
/// `FILE:LINE [id] STIPULATION [RULES]: STATUS (stated …, solver …): reason`, or
/// `FILE:LINE: error: what is wrong`.
pub fn outcome_human(e: &Entry, o: &Outcome) -> String {
    let p = match &e.puzzle {
        Ok(p) => p,
        Err(_) => return format!("{}: error: {}\n", location(e), o.reason),
    };
    let id =
        p.id.as_ref()
            .map(|id| format!(" \"{id}\""))
            .unwrap_or_default();
    let solver = o.solver.as_deref().unwrap_or("none");
    let what = match &o.stated {
        Some(s) => format!("stated {s}, solver {solver}"),
        None => format!("solver {solver}"),
    };
    let reason = match o.status {
        Status::Confirmed | Status::Unstated => String::new(),
        _ => format!(": {}", o.reason),
    };
    format!(
        "{}{id} {} [{}]: {} ({what}){reason}\n",
        location(e),
        p.stipulation,
        p.rules.name(),
        o.status
    )
}

/// One entry as a JSON object: `file`, `line`, `id`, `fen`, `status`, `stated`, `solver`,
/// `reason`, then the fields of [`format::answer_json`] (`stipulation`, `rules`, `verdict`,
/// `possibly`, `necessarily`, `clock`, …); for an error, `error` and `source` instead of the
/// answer.
pub fn outcome_json(e: &Entry, o: &Outcome, threads: usize) -> Value {
    let mut v = json!({
        "file": e.file,
        "line": e.line,
        "status": o.status,
    });
    match (&e.puzzle, &o.answer) {
        (Ok(p), Some(a)) => {
            if let Value::Object(fields) = format::answer_json(a, threads) {
                for (k, val) in fields {
                    v[k] = val;
                }
            }
            v["id"] = json!(p.id);
            v["fen"] = json!(p.position.fen());
            v["stated"] = json!(o.stated.map(|s| s.to_string()));
            v["solver"] = json!(o.solver);
            v["reason"] = json!(o.reason);
        }
        _ => {
            v["error"] = json!(o.reason);
            v["source"] = json!(e.source);
        }
    }
    v
}

/// The CSV header matching [`outcome_csv`].
pub const CSV_HEADER: &str = "file,line,id,fen,stipulation,rules,status,stated,solver,verdict,possibly,necessarily,min,max,parity,complete,nodes,reason\n";

/// Quotes a CSV field when it holds a comma, a quote or a line break (RFC 4180).
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// One entry as a CSV row (see [`CSV_HEADER`]).
pub fn outcome_csv(e: &Entry, o: &Outcome) -> String {
    let opt = |f: Finding| f.proven().map_or(String::new(), |b| b.to_string());
    let mut cols: Vec<String> = vec![e.file.clone(), e.line.to_string()];
    match (&e.puzzle, &o.answer) {
        (Ok(p), Some(a)) => {
            let c = &a.clock;
            let max = match c.max {
                _ if !c.has_history() => String::new(),
                MaxClock::Bounded(m) => m.to_string(),
                MaxClock::Unbounded => "inf".to_string(),
                MaxClock::Unknown { .. } => String::new(),
            };
            let parity = crate::format::parity_name(c.parities);
            cols.extend([
                p.id.clone().unwrap_or_default(),
                p.position.fen(),
                p.stipulation.to_string(),
                p.rules.name().to_string(),
                o.status.to_string(),
                o.stated.map(|s| s.to_string()).unwrap_or_default(),
                o.solver.clone().unwrap_or_default(),
                a.verdict.to_string(),
                opt(a.possibly),
                opt(a.necessarily),
                c.min.map(|m| m.to_string()).unwrap_or_default(),
                max,
                parity.to_string(),
                c.complete.to_string(),
                c.nodes.to_string(),
                o.reason.clone(),
            ]);
        }
        _ => {
            cols.extend(std::iter::repeat_n(String::new(), 4));
            cols.push(o.status.to_string());
            cols.extend(std::iter::repeat_n(String::new(), 10));
            cols.push(o.reason.clone());
        }
    }
    let row: Vec<String> = cols.iter().map(|c| csv_field(c)).collect();
    format!("{}\n", row.join(","))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            max_nodes: 5_000,
            ..Settings::default()
        }
    }

    /// Entries whose answers are quick, of several statuses, with a bad line among them.
    fn mixed_entries() -> Vec<Entry> {
        let text = "\
4k3/8/8/8/8/8/8/4K3 w - - id \"kk\"; stip \"clock?\"; rules \"fide\"; sol \"0..inf\";
4k3/8/8/3pP3/8/8/8/4K3 w - d6 id \"ep\"; stip \"clock?\"; rules \"fide\"; sol \"1..1\";
not a fen
4k3/8/8/8/8/8/8/3KK3 w - - stip \"legal?\"; sol \"no\";
8/8/4k3/8/8/3K4/8/7R w - - 12 40
4k3/8/8/3pP3/8/8/8/4K3 w - d6 id \"ep0\"; stip \"clock?\"; rules \"fide\"; sol \"0..0\";
";
        entries_from_text("mixed.epd", text)
    }

    #[test]
    fn outcomes_are_delivered_in_order_and_a_refusal_stops_them() {
        let entries = mixed_entries();
        let all = run(&entries, &settings(), &|| {});
        let statuses: Vec<Status> = all.iter().map(|o| o.status).collect();
        assert!(statuses.contains(&Status::Mismatch) && statuses.contains(&Status::Error));
        let mut delivered = Vec::new();
        run_in_order(&entries, &settings(), &|| {}, |e, o| {
            delivered.push((e.line, o.status));
            true
        });
        let expected: Vec<(usize, Status)> = entries.iter().map(|e| e.line).zip(statuses).collect();
        assert_eq!(delivered, expected);
        // A receiver that refuses the second outcome gets no more.
        let mut count = 0;
        run_in_order(&entries, &settings(), &|| {}, |_, _| {
            count += 1;
            count < 2
        });
        assert_eq!(count, 2);
    }

    #[test]
    fn a_stated_claim_article_is_confirmed_refuted_or_open() {
        let info = |every: [Finding; 2], some: [Finding; 2]| ClaimInfo {
            threshold: 100,
            announce: vec!["Nf3".to_string()],
            by_9_3_1: every[0],
            by_9_3_2: every[1],
            possibly_by_9_3_1: some[0],
            possibly_by_9_3_2: some[1],
        };
        let (yes, no) = (Finding::Proven(true), Finding::Proven(false));
        let announced = ClaimArticle::Announced;
        let completed = ClaimArticle::Completed;
        // Clock 99 in every history: 9.3.1 only.
        let only_931 = info([yes, no], [yes, no]);
        assert_eq!(
            compare_claim_article(announced, &only_931).0,
            Status::Confirmed
        );
        assert_eq!(
            compare_claim_article(completed, &only_931).0,
            Status::Mismatch
        );
        // Clock 100 in every history: 9.3.2, so not 9.3.1 alone.
        let by_932 = info([yes, yes], [yes, yes]);
        assert_eq!(
            compare_claim_article(announced, &by_932).0,
            Status::Mismatch
        );
        assert_eq!(
            compare_claim_article(completed, &by_932).0,
            Status::Confirmed
        );
        // 9.3.1 in every history, 9.3.2 undecided: open either way.
        let open = info([yes, Finding::Open], [yes, Finding::Open]);
        assert_eq!(compare_claim_article(announced, &open).0, Status::Unknown);
        assert_eq!(compare_claim_article(completed, &open).0, Status::Unknown);
        // Only witnessed: plausible or doubtful, never confirmed or mismatch.
        let (wyes, wno) = (Finding::Witnessed(true), Finding::Witnessed(false));
        let witnessed = info([wyes, wno], [wyes, wno]);
        assert_eq!(
            compare_claim_article(announced, &witnessed).0,
            Status::Plausible
        );
        assert_eq!(
            compare_claim_article(completed, &witnessed).0,
            Status::Doubtful
        );
    }

    fn outcome(line: &str) -> (Entry, Outcome) {
        let mut entries = entries_from_text("t.epd", line);
        assert_eq!(entries.len(), 1, "{line}");
        let e = entries.remove(0);
        let o = check(&e, &settings());
        (e, o)
    }

    #[test]
    fn stated_castling_rights_are_confirmed_mismatched_or_open() {
        // The larger set is refuted (a proof); each alternative is held on a line whose start
        // needs a long game (Black's knights must take White's bishops and queen at home):
        // confirmed when a game is found in time, plausible otherwise, and plausible for sure
        // when no game is looked for.
        let pra = "4k3/8/8/8/8/8/PPPPPPPP/R3K2R b ? - stip \"castling?\"; rules fide;";
        let (_, o) = outcome(&format!("{pra} sol \"Q K\";"));
        assert!(
            matches!(o.status, Status::Confirmed | Status::Plausible),
            "{}",
            o.reason
        );
        let quick = Settings {
            proof_time: Duration::ZERO,
            ..settings()
        };
        let entry = entries_from_text("t.epd", &format!("{pra} sol \"Q K\";")).remove(0);
        let o = check(&entry, &quick);
        assert_eq!(o.status, Status::Plausible, "{}", o.reason);
        assert_eq!(o.solver.as_deref(), Some("likely K Q (witnessed)"));
        let (_, o) = outcome(&format!("{pra} sol \"KQ\";"));
        assert_eq!(o.status, Status::Mismatch);
        assert!(
            o.reason.contains("the largest sets not refuted are K Q"),
            "{}",
            o.reason
        );
        let mut tight = settings();
        tight.max_nodes = 1;
        let entry = entries_from_text("t.epd", &format!("{pra} sol \"K Q\";")).remove(0);
        let o = check(&entry, &tight);
        assert_eq!(o.status, Status::Unknown, "{}", o.reason);
    }

    #[test]
    fn shards_partition_and_bad_shards_are_refused() {
        let shards: Vec<Shard> = (1..=3)
            .map(|k| Shard::parse(&format!("{k}/3")).expect("valid"))
            .collect();
        for i in 0..20 {
            assert_eq!(shards.iter().filter(|s| s.contains(i)).count(), 1, "{i}");
        }
        for bad in ["0/3", "4/3", "1/0", "x/2", "2", "1/2/3", ""] {
            let e = Shard::parse(bad).expect_err(bad);
            assert!(e.contains("K/N"), "{e}");
        }
    }

    #[test]
    fn impossible_ranges_are_errors() {
        let text = "4k3/8/8/8/8/8/8/4K3 w - - stip \"clock?\"; sol \"5..3\";\n\
                    4k3/8/8/8/8/8/8/4K3 w - - stip \"clock?\"; sol \"3..8 odd\";\n\
                    4k3/8/8/8/8/8/8/4K3 w - - stip \"clock?\"; sol \"2..inf odd\";\n";
        let entries = entries_from_text("t.epd", text);
        let errors: Vec<&str> = entries
            .iter()
            .map(|e| e.puzzle.as_ref().expect_err("refused").as_str())
            .collect();
        assert!(errors[0].contains("empty"), "{}", errors[0]);
        assert!(errors[1].contains("maximum 8 is not odd"), "{}", errors[1]);
        assert!(errors[2].contains("minimum 2 is not odd"), "{}", errors[2]);
        assert_eq!(entries[2].line, 3);
        assert!(entries[2].source.contains("2..inf odd"));
    }

    #[test]
    fn clock_ranges_confirm_mismatch_and_ambiguity() {
        // White king and rook against a lone king: every clock value from 0 up is possible,
        // each certified by a game from the initial array (extended by a cycle).
        let fen = "8/8/4k3/8/8/3K4/8/7R w - - stip \"clock?\"; rules fide;";
        let (_, o) = outcome(&format!("{fen} sol \"0..inf\";"));
        assert_eq!(o.status, Status::Confirmed, "{}", o.reason);
        assert_eq!(o.solver.as_deref(), Some("0..inf"));
        let (_, o) = outcome(&format!("{fen} sol \"1..inf\";"));
        assert_eq!(o.status, Status::Ambiguous, "{}", o.reason);
        assert!(
            o.reason.contains("0 is possible (certified)"),
            "{}",
            o.reason
        );
        let (_, o) = outcome(&format!("{fen} sol \"0..40\";"));
        assert_eq!(o.status, Status::Ambiguous, "{}", o.reason);
        let (_, o) = outcome(&format!("{fen} sol \"0..inf even\";"));
        assert_eq!(o.status, Status::Ambiguous, "{}", o.reason);
        assert!(o.reason.contains("odd values"), "{}", o.reason);
        // Without time to look for games, the same answers rest on witnesses only: plausible
        // where they agree, doubtful where they disagree, never confirmed or a mismatch.
        let witnessed = |sol: &str| {
            let line = format!("{fen} sol \"{sol}\";");
            let entry = entries_from_text("t.epd", &line).remove(0);
            let quick = Settings {
                proof_time: Duration::ZERO,
                ..settings()
            };
            check(&entry, &quick)
        };
        let o = witnessed("0..inf");
        assert_eq!(o.status, Status::Plausible, "{}", o.reason);
        assert_eq!(
            o.solver.as_deref(),
            Some("likely 0..inf (witnessed, not all proven)")
        );
        let o = witnessed("1..inf");
        assert_eq!(o.status, Status::Doubtful, "{}", o.reason);
        assert!(
            o.reason.contains("smallest value witnessed is 0"),
            "{}",
            o.reason
        );
    }

    #[test]
    fn the_initial_array() {
        // Knight moves back and forth keep the castling rights: the clock is a multiple of 4,
        // without bound. Nothing can ever have reset (full material, pawns and rights at home),
        // so every value is even, proven without a complete search.
        let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -";
        let (_, o) = outcome(&format!("{start} stip \"clock?\"; sol \"0..inf\";"));
        assert_eq!(o.status, Status::Confirmed, "{}", o.reason);
        let (_, o) = outcome(&format!("{start} stip \"clock?\"; sol \"0..inf even\";"));
        assert_eq!(o.status, Status::Confirmed, "{}", o.reason);
        assert!(o.reason.contains("parity are proven"), "{}", o.reason);
        let (_, o) = outcome(&format!("{start} stip \"clock?\"; sol \"0..inf odd\";"));
        assert_ne!(o.status, Status::Confirmed, "{}", o.reason);
        let (_, o) = outcome(&format!("{start} stip \"clock?\"; sol \"0..4\";"));
        assert_eq!(o.status, Status::Ambiguous, "{}", o.reason);
        let (_, o) = outcome(&format!("{start} stip \"clock?\"; sol \"2..inf\";"));
        assert_eq!(o.status, Status::Mismatch, "{}", o.reason);
        assert!(o.reason.contains("0 is possible"), "{}", o.reason);
        let (_, o) = outcome(&format!("{start} stip \"clock>=4\"; sol \"yes\";"));
        assert_eq!(o.status, Status::Confirmed, "{}", o.reason);
        let (_, o) = outcome(&format!("{start} stip \"clock>=4\"; sol \"no\";"));
        assert_eq!(o.status, Status::Mismatch, "{}", o.reason);
        // The fullmove number 1 allows no clock above 0.
        let (_, o) = outcome(&format!(
            "{start} stip \"fen\"; hmvc 3; fmvn 1; sol \"no\";"
        ));
        assert_eq!(o.status, Status::Confirmed, "{}", o.reason);
        let (e, o) = outcome(&format!("{start} stip \"over?\";"));
        assert_eq!(o.status, Status::Unstated);
        assert_eq!(
            o.solver.as_deref(),
            Some("yes in some histories, no in others")
        );
        assert!(outcome_human(&e, &o).contains("unstated (solver yes in some"));
    }

    #[test]
    fn claims_that_depend_on_the_history_are_ambiguous() {
        // Clock 0 to unbounded: a claim is possible in some histories, not in all. The verdict
        // is "no" (not in every legal history); a stated "yes" reads the question as "possibly".
        let fen = "8/8/4k3/8/8/3K4/8/7R w - - stip \"claim?\"; rules fide;";
        let (_, o) = outcome(&format!("{fen} sol \"yes\";"));
        assert_eq!(o.status, Status::Ambiguous, "yes: {}", o.reason);
        let (_, o) = outcome(&format!("{fen} sol \"no\";"));
        assert_eq!(o.status, Status::Confirmed, "no: {}", o.reason);
        use Finding::{Open, Proven, Witnessed};
        assert_eq!(
            compare_every_history(true, Proven(true), Proven(true)).0,
            Status::Confirmed
        );
        assert_eq!(
            compare_every_history(true, Proven(false), Proven(false)).0,
            Status::Mismatch
        );
        assert_eq!(
            compare_every_history(true, Proven(true), Proven(false)).0,
            Status::Ambiguous
        );
        assert_eq!(
            compare_every_history(false, Proven(false), Proven(false)).0,
            Status::Confirmed
        );
        assert_eq!(
            compare_every_history(false, Proven(true), Proven(true)).0,
            Status::Mismatch
        );
        assert_eq!(compare_every_history(false, Open, Open).0, Status::Unknown);
        assert_eq!(
            compare_every_history(true, Proven(true), Open).0,
            Status::Unknown
        );
        // What only witnesses say is plausible or doubtful.
        assert_eq!(
            compare_every_history(false, Witnessed(true), Witnessed(false)).0,
            Status::Plausible
        );
        assert_eq!(
            compare_every_history(true, Witnessed(true), Witnessed(false)).0,
            Status::Doubtful
        );
        assert_eq!(
            compare_every_history(true, Open, Witnessed(true)).0,
            Status::Plausible
        );
    }

    #[test]
    fn illegal_positions_confirm_only_fen_and_legal_no() {
        // Two white kings.
        let bad = "4k3/8/8/8/8/8/8/3KK3 w - -";
        let (_, o) = outcome(&format!("{bad} stip \"legal?\"; sol \"no\";"));
        assert_eq!(o.status, Status::Confirmed, "{}", o.reason);
        let (_, o) = outcome(&format!("{bad} stip \"clock>=5\"; sol \"no\";"));
        assert_eq!(o.status, Status::Mismatch, "{}", o.reason);
        let (_, o) = outcome(&format!("{bad} stip \"clock?\"; sol \"0..0\";"));
        assert_eq!(o.status, Status::Mismatch);
        assert_eq!(o.solver.as_deref(), Some("no legal history"));
    }

    #[test]
    fn csv_quoting_and_summary() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
        let mut s = Summary::default();
        assert_eq!(s.exit_code(), 0);
        s.counts[6] = 3;
        assert_eq!(s.exit_code(), 0);
        s.counts[1] = 1;
        assert_eq!(s.exit_code(), 1, "plausible is not proven");
        s.counts[1] = 0;
        s.counts[5] = 1;
        assert_eq!(s.exit_code(), 1);
        s.counts[7] = 1;
        assert_eq!(s.exit_code(), 2);
        assert_eq!(
            s.to_string(),
            "0 confirmed, 0 plausible, 0 mismatch, 0 doubtful, 0 ambiguous, 1 unknown, 3 unstated, 1 error"
        );
    }
}
