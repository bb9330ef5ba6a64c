//! Verdicts: the answer to a stipulation, derived from what the clock solver proved and
//! witnessed. `unknown` is a verdict like any other.

use std::fmt;

use shakmaty::{Position as _, Role};

use crate::{
    clock::{Certificate, ClockAnswer, MAX_WALK_PLIES, MaxClock, Standing},
    position::{Field, PositionInput},
    proofgame::{Target, fewest_plies},
    rules::Rules,
    stipulation::{Comparison, MoveNumber, Stipulation},
};

/// The verdict on a stipulation.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Yes (for `clock=N`-type and `fen`: some legal history satisfies it; for `claim?` and
    /// `over?`: every legal history does).
    Yes,
    /// No.
    No,
    /// The budget ran out, or only a weaker label can be given.
    Unknown,
    /// The question (`clock?`) has been answered in full.
    Solved,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Yes => "yes",
            Verdict::No => "no",
            Verdict::Unknown => "unknown",
            Verdict::Solved => "solved",
        })
    }
}

fn verdict_of(b: Option<bool>) -> Verdict {
    match b {
        Some(true) => Verdict::Yes,
        Some(false) => Verdict::No,
        None => Verdict::Unknown,
    }
}

/// What FIDE 9.3 allows the side to move.
#[derive(Clone, Debug)]
pub struct ClaimInfo {
    /// The clock from which 9.3.2 applies.
    pub threshold: u64,
    /// Moves (SAN) the side to move could write down for a 9.3.1 claim: neither pawn moves nor
    /// captures (nor castling under the retro convention).
    pub announce: Vec<String>,
    /// Whether a claim is necessarily possible by 9.3.2 (clock >= threshold in every history).
    pub by_9_3_2: Option<bool>,
    /// Whether a claim is necessarily possible by 9.3.1 (a move to announce, and clock >=
    /// threshold − 1 in every history).
    pub by_9_3_1: Option<bool>,
    /// Whether a claim is possible by 9.3.2 in some history (clock >= threshold).
    pub possibly_by_9_3_2: Option<bool>,
    /// Whether a claim is possible by 9.3.1 in some history (a move to announce, and clock >=
    /// threshold − 1).
    pub possibly_by_9_3_1: Option<bool>,
}

/// The answer to one stipulation about one position.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The question.
    pub stipulation: Stipulation,
    /// The rule set.
    pub rules: Rules,
    /// The verdict.
    pub verdict: Verdict,
    /// Whether the stipulation holds in some legal history (None = unknown).
    pub possibly: Option<bool>,
    /// Whether it holds in every legal history (None = unknown).
    pub necessarily: Option<bool>,
    /// The draw-claim details, for `claim?`.
    pub claim: Option<ClaimInfo>,
    /// The line that witnesses the verdict, when there is one.
    pub certificate: Option<Certificate>,
    /// The reasoning, one sentence per entry.
    pub notes: Vec<String>,
    /// What the clock solver established.
    pub clock: ClockAnswer,
    /// For `legal?`: the legality finding.
    pub legality: Option<crate::legal::Legality>,
    /// The witness line extended by a proof game into a whole game from the initial array,
    /// when one was found (a certified answer).
    pub certified: Option<crate::legal::CertifiedLine>,
    /// What the game's length established, under the premise `at move N` (or, for `fen`, the
    /// FEN's fullmove number where it fixes the clock).
    pub game: Option<GameFacts>,
    /// The Codex reading of an unknown castling field, when it was asked for.
    pub codex: Option<crate::codex::CastlingReading>,
}

/// What a move number established about the games that reach the position.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct GameFacts {
    /// The move number.
    pub move_number: u64,
    /// The plies played from the initial array before the position.
    pub plies: u64,
    /// Whether a game of exactly `plies` plies reaches the position: witnessed, proven
    /// impossible, or not decided (None).
    pub reached: Option<bool>,
    /// Whether the clock counts every ply of the game (nothing can ever have reset it), so
    /// that it is `plies` in every such game.
    pub clock_is_length: bool,
}

impl Answer {
    /// Answers `legal?` from `legality`: yes with a proof game, no with a reason, unknown
    /// otherwise (labelled "no contradiction" in the notes).
    pub fn with_legality(mut self, legality: crate::legal::Legality) -> Answer {
        use crate::legal::Legality;
        let (verdict, possibly) = match &legality {
            Legality::Illegal(_) => (Verdict::No, Some(false)),
            Legality::Legal { .. } => (Verdict::Yes, Some(true)),
            Legality::NoContradiction {
                depth,
                searched_plies,
            } => {
                self.notes.push(format!(
                    "no contradiction to depth {depth}: the position passes the static checks and a line of retractions reaches a reset whose predecessor has a legal retraction chain {depth} plies deep; no proof game of at most {searched_plies} plies was found within the budget"
                ));
                (Verdict::Unknown, None)
            }
            Legality::Undecided => (Verdict::Unknown, None),
        };
        self.verdict = verdict;
        self.possibly = possibly;
        self.necessarily = possibly;
        self.legality = Some(legality);
        self
    }

    /// The answer under the Codex reading of its castling field (`reading`), which decided the
    /// histories it covers. A reading left open by the budget decides little: the answer was
    /// found over every set of rights, and keeps only what holds for any narrower set of
    /// histories (a proven "no", the proven bounds); the rest becomes unknown.
    pub fn with_codex(mut self, reading: crate::codex::CastlingReading) -> Answer {
        let mut notes = reading.notes();
        notes.append(&mut self.notes);
        self.notes = notes;
        if self.stipulation == Stipulation::Castling {
            // The reading is the answer: solved once no alternative is left open.
            self.verdict = if reading.settled() {
                Verdict::Solved
            } else {
                Verdict::Unknown
            };
            self.possibly = None;
            self.necessarily = None;
        } else if !reading.settled() {
            // A proof that no history satisfies the question, found over every set of
            // rights, holds for the narrower reading too; anything else is open.
            if self.possibly != Some(false) {
                self.verdict = Verdict::Unknown;
                self.possibly = None;
                self.necessarily = None;
            }
            self.certificate = None;
            self.certified = None;
            if let Some(claim) = &mut self.claim {
                claim.by_9_3_1 = None;
                claim.by_9_3_2 = None;
                claim.possibly_by_9_3_1 = None;
                claim.possibly_by_9_3_2 = None;
            }
            self.clock = self.clock.proven_only();
        }
        self.codex = Some(reading);
        self
    }
}

/// Whether some value >= n is witnessed (`Some(true)`), proven absent (`Some(false)`), or unknown.
fn some_at_least(c: &ClockAnswer, n: u64) -> Option<bool> {
    if matches!(c.standing, Standing::Illegal(_) | Standing::NoHistory) {
        return Some(false);
    }
    match c.max {
        MaxClock::Bounded(m) => return Some(m >= n && c.min.is_some()),
        MaxClock::Unbounded => return Some(true),
        MaxClock::Unknown { at_least } => {
            if at_least.is_some_and(|m| m >= n) {
                return Some(true);
            }
        }
    }
    if c.min.is_some_and(|m| m >= n) {
        return Some(true);
    }
    for k in [n, n + 1] {
        if c.value_possible(k) == Some(true) {
            return Some(true);
        }
    }
    None
}

/// Whether every value is >= n: proven yes from the minimum, witnessed no from a smaller one.
fn all_at_least(c: &ClockAnswer, n: u64) -> Option<bool> {
    if matches!(c.standing, Standing::Illegal(_) | Standing::NoHistory) {
        return None;
    }
    if c.min_lower_bound >= n {
        return Some(true);
    }
    match c.min {
        Some(m) if m < n => Some(false),
        _ => None,
    }
}

fn certificate_at_least(c: &ClockAnswer, n: u64, rules: Rules) -> Option<Certificate> {
    if let Some(l) = &c.longest
        && l.clock >= n
    {
        return Some(l.clone());
    }
    if let Some(s) = &c.shortest
        && s.clock >= n
    {
        return Some(s.clone());
    }
    [n, n + 1]
        .into_iter()
        .find_map(|k| c.certificate_for(k, rules.convention()))
}

/// Whether every legal history has clock `n`, given whether some has (`possible`): yes when
/// the minimum and a bounded maximum are both `n`, no when the (witnessed) minimum is another
/// value or no history has `n`.
fn always_equal(c: &ClockAnswer, n: u64, possible: Option<bool>) -> Option<bool> {
    match (c.min, c.max) {
        (Some(m), MaxClock::Bounded(x)) if m == n && x == n => Some(true),
        (Some(m), _) if m != n => Some(false),
        _ if possible == Some(false) => Some(false),
        _ => None,
    }
}

/// The histories a question is about: every legal history, or, under the premise `at move N`,
/// the games of exactly [`GameLength::plies`] plies.
enum Histories<'a> {
    /// Every legal history of the position.
    All(&'a ClockAnswer),
    /// The games of a given length.
    Game(GameLength<'a>),
}

/// What the premise `at move N` adds to the clock solver's answer. Every history is then a game
/// of exactly `plies` plies, so no clock exceeds `plies`. When no reset can be taken back
/// anywhere ([`ClockAnswer::counts_every_ply`]), the clock is `plies` itself, and a walk of
/// `plies` reversible retractions to the initial array is such a game.
struct GameLength<'a> {
    clock: &'a ClockAnswer,
    /// The plies played before the position.
    plies: u64,
    /// Whether some game of exactly `plies` plies reaches the position: `Some(false)` proven
    /// (every clock exceeds `plies`, or the proof-game bounds need more, or the clock counts
    /// every ply and no walk of that length reaches the initial array), `Some(true)` witnessed
    /// (the clock counts every ply and such a walk exists), else unknown.
    history: Option<bool>,
    /// What the proof-game bounds said of `plies` ([`plies_too_few`]), when they were asked.
    too_few: Option<Option<String>>,
}

impl<'a> GameLength<'a> {
    fn facts(&self, at: MoveNumber) -> GameFacts {
        GameFacts {
            move_number: at.0,
            plies: self.plies,
            reached: self.history,
            clock_is_length: self.clock.counts_every_ply(),
        }
    }

    fn new(clock: &'a ClockAnswer, input: &PositionInput, plies: u64) -> GameLength<'a> {
        let too_few = (clock.has_history() && clock.min_lower_bound <= plies)
            .then(|| plies_too_few(input, plies));
        let history = if too_few.as_ref().is_none_or(Option::is_some) {
            Some(false)
        } else if clock.counts_every_ply() {
            clock.value_possible(plies)
        } else {
            None
        };
        GameLength {
            clock,
            plies,
            history,
            too_few,
        }
    }

    /// Whether the clock is known to equal `plies` in every history.
    fn exact(&self) -> bool {
        self.clock.counts_every_ply() && self.history == Some(true)
    }
}

impl Histories<'_> {
    fn clock(&self) -> &ClockAnswer {
        match self {
            Histories::All(c) => c,
            Histories::Game(g) => g.clock,
        }
    }

    /// Whether some history has clock `k`.
    fn value_possible(&self, k: u64) -> Option<bool> {
        match self {
            Histories::All(c) => c.value_possible(k),
            Histories::Game(g) => {
                if g.history == Some(false)
                    || k > g.plies
                    || g.clock.value_possible(k) == Some(false)
                {
                    Some(false)
                } else if g.clock.counts_every_ply() {
                    if k == g.plies { g.history } else { Some(false) }
                } else {
                    None
                }
            }
        }
    }

    /// Whether some history has clock >= n.
    fn some_at_least(&self, n: u64) -> Option<bool> {
        match self {
            Histories::All(c) => some_at_least(c, n),
            Histories::Game(g) => {
                if g.history == Some(false)
                    || n > g.plies
                    || some_at_least(g.clock, n) == Some(false)
                {
                    Some(false)
                } else if g.exact() {
                    Some(true)
                } else {
                    None
                }
            }
        }
    }

    /// Whether every history has clock >= n.
    fn all_at_least(&self, n: u64) -> Option<bool> {
        match self {
            Histories::All(c) => all_at_least(c, n),
            Histories::Game(g) if g.exact() => Some(g.plies >= n),
            Histories::Game(g) if g.history == Some(false) => None,
            // The clock is `plies` in every game of that length, if there is one.
            Histories::Game(g) if g.clock.counts_every_ply() && g.plies >= n => Some(true),
            Histories::Game(g) => (g.clock.min_lower_bound >= n).then_some(true),
        }
    }

    /// Whether some history has clock <= n.
    fn some_at_most(&self, n: u64) -> Option<bool> {
        let c = self.clock();
        match self {
            Histories::Game(g) if g.history == Some(false) => Some(false),
            Histories::Game(g) if g.exact() => Some(g.plies <= n),
            Histories::Game(g) if g.clock.counts_every_ply() && g.plies > n => Some(false),
            _ if c.min_lower_bound > n || !c.has_history() => Some(false),
            Histories::All(c) if c.min.is_some_and(|m| m <= n) => Some(true),
            _ => None,
        }
    }

    /// Whether every history has clock `n`, given whether some has (`possible`).
    fn always_equal(&self, n: u64, possible: Option<bool>) -> Option<bool> {
        match self {
            Histories::All(c) => always_equal(c, n, possible),
            Histories::Game(g) if g.exact() => Some(g.plies == n),
            Histories::Game(_) => (possible == Some(false)).then_some(false),
        }
    }

    /// A line that witnesses clock `k`.
    fn certificate_for(&self, k: u64, rules: Rules) -> Option<Certificate> {
        match self {
            Histories::All(c) => c.certificate_for(k, rules.convention()),
            Histories::Game(g) if g.exact() && k == g.plies => {
                g.clock.certificate_for(k, rules.convention())
            }
            Histories::Game(_) => None,
        }
    }

    /// A line that witnesses some clock >= n.
    fn certificate_at_least(&self, n: u64, rules: Rules) -> Option<Certificate> {
        match self {
            Histories::All(c) => certificate_at_least(c, n, rules),
            Histories::Game(g) if g.exact() && g.plies >= n => self.certificate_for(g.plies, rules),
            Histories::Game(_) => None,
        }
    }

    /// A line that witnesses some clock <= n.
    fn certificate_at_most(&self, n: u64, rules: Rules) -> Option<Certificate> {
        match self {
            Histories::All(c) => c.shortest.clone().filter(|s| s.clock <= n),
            Histories::Game(g) if g.exact() && g.plies <= n => self.certificate_for(g.plies, rules),
            Histories::Game(_) => None,
        }
    }

    /// What the premise says, for the notes.
    fn notes(&self, at: MoveNumber) -> Vec<String> {
        let Histories::Game(g) = self else {
            return Vec::new();
        };
        let MoveNumber(m) = at;
        let plies = g.plies;
        let mut notes = vec![format!(
            "at move {m} the game has lasted {plies} plies from the initial array: no clock exceeds {plies}"
        )];
        if g.clock.counts_every_ply() {
            notes.push(
                "no reset can be taken back from any position the reversible retractions reach: every history starts at the initial array and the clock counts every ply of the game".into(),
            );
        }
        match g.history {
            Some(true) if g.clock.counts_every_ply() && plies > MAX_WALK_PLIES => notes.push(format!(
                "a game of exactly {plies} plies reaches the position (a walk of reversible retractions to the initial array; the sets of positions that walks reach repeat with a period, and no game longer than {MAX_WALK_PLIES} plies is written out): the clock is {plies}"
            )),
            Some(true) => notes.push(format!(
                "a game of exactly {plies} plies reaches the position (a walk of reversible retractions to the initial array): the clock is {plies}"
            )),
            Some(false) => notes.push(format!(
                "no game of exactly {plies} plies reaches the position: it cannot occur at move {m}"
            )),
            None => notes.push(format!(
                "whether a game of exactly {plies} plies reaches the position is not decided"
            )),
        }
        notes
    }
}

/// The clock values under the premise `at move N`.
enum GameClock {
    /// The clock counts every ply and a game of this many plies is witnessed (by this line,
    /// when it is short enough to write out): the clock is this number.
    Exact(u64, Option<Certificate>),
    /// No game of that length reaches the position.
    NoGame,
    /// Not decided (no clock exceeds the game's length, which the notes say).
    Open,
}

impl GameClock {
    /// The solver's answer restricted to the games of the premise's length.
    fn apply(self, clock: ClockAnswer) -> ClockAnswer {
        match self {
            GameClock::Exact(plies, line) => ClockAnswer {
                min: Some(plies),
                min_lower_bound: plies,
                max: MaxClock::Bounded(plies),
                values: Some(vec![plies]),
                values_limit: clock.values_limit.max(plies),
                parities: [plies % 2 == 0, plies % 2 == 1],
                shortest: line.clone(),
                longest: line,
                ..clock
            },
            GameClock::NoGame => ClockAnswer {
                standing: match clock.standing {
                    Standing::Illegal(reasons) => Standing::Illegal(reasons),
                    _ => Standing::NoHistory,
                },
                min: None,
                max: MaxClock::Bounded(0),
                values: Some(Vec::new()),
                parities: [false, false],
                shortest: None,
                longest: None,
                ..clock
            },
            // The walks the graph holds need not fit a game of that length: no value is
            // witnessed, and only what holds for every history stays.
            GameClock::Open => clock.proven_only(),
        }
    }
}

/// Plies from the initial array above which the fullmove number is not checked against the
/// proof-game bounds (every bound is far below).
const FULLMOVE_CHECK_LIMIT: u64 = 10_000;

/// Why the FEN's fullmove number is impossible for its position, if it is (see
/// [`plies_too_few`]; `game`, when it is about the same number of plies, may have the answer).
fn fullmove_too_small(input: &PositionInput, game: Option<&GameLength>) -> Option<String> {
    let fullmove = input.fullmove.known()?;
    let plies = MoveNumber(fullmove).plies_before(input.turn);
    let needed = match game.filter(|g| g.plies == plies).map(|g| &g.too_few) {
        Some(Some(known)) => known.clone(),
        _ => plies_too_few(input, plies),
    }?;
    let counted =
        format!("the fullmove number {fullmove} counts {plies} plies since the initial array");
    Some(format!("{counted}, but {needed}"))
}

/// Why no game of `plies` plies from the initial array reaches the position, if the lower
/// bounds of the proof-game search (necessary conditions only) show it.
fn plies_too_few(input: &PositionInput, plies: u64) -> Option<String> {
    if plies > FULLMOVE_CHECK_LIMIT {
        return None;
    }
    let target = Target::new(input.board.clone(), input.turn);
    if fewest_plies(&target, plies as u32).is_some() {
        return None;
    }
    // The fewest plies the bounds allow: they admit a length once they admit a shorter one
    // (more moves never hurt them), so a bisection finds it.
    let admits = |n: u64| fewest_plies(&target, n as u32).is_some();
    if !admits(FULLMOVE_CHECK_LIMIT) {
        return Some(format!(
            "no game of up to {FULLMOVE_CHECK_LIMIT} plies reaches this position (proof-game bounds)"
        ));
    }
    let (mut too_few, mut enough) = (plies, FULLMOVE_CHECK_LIMIT);
    while enough - too_few > 1 {
        let mid = too_few + (enough - too_few) / 2;
        if admits(mid) {
            enough = mid;
        } else {
            too_few = mid;
        }
    }
    Some(format!(
        "reaching this position takes at least {enough} (proof-game bounds)"
    ))
}

/// The note for a value of `k` plies that is possible but shown by no line because the line
/// would be too long to write out.
fn unwritten_walk(
    possible: Option<bool>,
    certificate: &Option<Certificate>,
    k: u64,
) -> Option<String> {
    (possible == Some(true) && certificate.is_none() && k > MAX_WALK_PLIES).then(|| {
        format!(
            "a walk of {k} plies to an origin exists (the sets of positions that walks reach repeat with a period), but no line longer than {MAX_WALK_PLIES} plies is written out"
        )
    })
}

/// Decides `stip` for `input` from the clock solver's answer.
pub fn decide(stip: Stipulation, input: &PositionInput, clock: ClockAnswer) -> Answer {
    let rules = clock.rules;
    let mut notes = Vec::new();
    let mut claim = None;
    let mut certificate = None;
    // The move number the question is about: the premise `at move N`, or, for `fen`, the FEN's
    // fullmove number where it fixes the clock (the clock counts every ply).
    let at_move = match stip {
        Stipulation::Fen => input
            .fullmove
            .known()
            .filter(|_| clock.counts_every_ply())
            .map(MoveNumber),
        _ => stip.at_move(),
    };
    let mut game_facts = None;
    let histories = match at_move {
        Some(at) => {
            let game = GameLength::new(&clock, input, at.plies_before(input.turn));
            game_facts = Some(game.facts(at));
            let histories = Histories::Game(game);
            notes.extend(histories.notes(at));
            histories
        }
        None => Histories::All(&clock),
    };
    // What the premise makes of the clock values (for every question): the game's length,
    // when the clock counts every ply and such a game is found; no value when no game of that
    // length exists; otherwise nothing witnessed, and only what holds for every history.
    let at_move_clock = match &histories {
        Histories::Game(g) if g.exact() => Some(GameClock::Exact(
            g.plies,
            histories.certificate_for(g.plies, rules),
        )),
        Histories::Game(g) if g.history == Some(false) => Some(GameClock::NoGame),
        Histories::Game(_) => Some(GameClock::Open),
        Histories::All(_) => None,
    };
    let (verdict, possibly, necessarily) = match stip {
        Stipulation::Clock(_) if let Histories::Game(g) = &histories => {
            // Decided when the clock is the game's length or no such game exists.
            let verdict = if g.exact() || g.history == Some(false) {
                Verdict::Solved
            } else {
                Verdict::Unknown
            };
            (verdict, None, None)
        }
        Stipulation::Clock(_) => {
            let solved = match clock.standing {
                Standing::Illegal(_) | Standing::NoHistory => true,
                Standing::Possible => !matches!(clock.max, MaxClock::Unknown { .. }),
                Standing::Undecided => false,
            };
            let verdict = if solved {
                Verdict::Solved
            } else {
                Verdict::Unknown
            };
            (verdict, None, None)
        }
        Stipulation::ClockIs(cmp, n, _) => {
            let (p, nec) = match cmp {
                Comparison::Eq => {
                    let p = histories.value_possible(n);
                    let nec = histories.always_equal(n, p);
                    certificate = histories.certificate_for(n, rules);
                    notes.extend(unwritten_walk(p, &certificate, n));
                    (p, nec)
                }
                Comparison::Ge => {
                    certificate = histories.certificate_at_least(n, rules);
                    let p = histories.some_at_least(n);
                    notes.extend(unwritten_walk(p, &certificate, n));
                    (p, histories.all_at_least(n))
                }
                Comparison::Le => {
                    let p = histories.some_at_most(n);
                    if p == Some(true) {
                        certificate = histories.certificate_at_most(n, rules);
                    }
                    let nec = histories.some_at_least(n + 1).map(|b| !b);
                    (p, nec)
                }
            };
            (verdict_of(p), p, nec)
        }
        Stipulation::Claim(_) => {
            let info = claim_info(input, &histories, rules);
            let t = if info.announce.is_empty() {
                info.threshold
            } else {
                info.threshold - 1
            };
            let nec = histories.all_at_least(t);
            let p = histories.some_at_least(t);
            if p == Some(true) {
                certificate = histories.certificate_at_least(t, rules);
            }
            notes.push(format!(
                "a claim needs clock >= {} (9.3.2) or clock >= {} with a move that is neither a pawn move nor a capture{} (9.3.1); {} such moves",
                info.threshold,
                info.threshold - 1,
                if rules.convention().castling_resets() { " nor castling" } else { "" },
                info.announce.len()
            ));
            claim = Some(info);
            (verdict_of(nec), p, nec)
        }
        Stipulation::Over(_) => {
            let mate = input_is_checkmate(input);
            match rules.over_threshold() {
                None => {
                    notes.push(
                        "the 1988 Laws had no rule that ends the game without a claim".into(),
                    );
                    (Verdict::No, Some(false), Some(false))
                }
                Some(_) if mate => {
                    notes.push("the position is checkmate, which takes precedence".into());
                    (Verdict::No, Some(false), Some(false))
                }
                Some(t) => {
                    let nec = histories.all_at_least(t);
                    let p = histories.some_at_least(t);
                    if p == Some(true) {
                        certificate = histories.certificate_at_least(t, rules);
                    }
                    notes.push(format!(
                        "{} ends the game at clock {t}",
                        rules.over_article()
                    ));
                    (verdict_of(nec), p, nec)
                }
            }
        }
        Stipulation::Fen => {
            let game = match &histories {
                Histories::Game(g) => Some(g),
                Histories::All(_) => None,
            };
            let (p, nec) = match input.halfmove_clock {
                // The fullmove number counts the plies since the initial array; a game needs
                // at least as many as the proof-game bounds say.
                _ if let Some(note) = fullmove_too_small(input, game) => {
                    notes.push(note);
                    (Some(false), Some(false))
                }
                Field::Known(c) if let Some(g) = game => {
                    if c != g.plies {
                        notes.push(format!(
                            "the clock counts every ply, so it can only be {}; the FEN claims {c}",
                            g.plies
                        ));
                    }
                    let p = histories.value_possible(c);
                    if p == Some(true) {
                        certificate = histories.certificate_for(c, rules);
                    }
                    notes.extend(unwritten_walk(p, &certificate, c));
                    (p, histories.always_equal(c, p))
                }
                Field::Unknown if let Some(g) = game => {
                    notes.push("the FEN gives no halfmove clock".into());
                    (g.history, g.history)
                }
                Field::Known(c) => {
                    if let Some(b) = clock.fullmove_bound
                        && c > b
                    {
                        notes.push(format!(
                            "the fullmove number allows at most {b} plies, the FEN claims {c}"
                        ));
                        (Some(false), Some(false))
                    } else {
                        certificate = clock.certificate_for(c, rules.convention());
                        let p = clock.value_possible(c);
                        notes.extend(unwritten_walk(p, &certificate, c));
                        if p == Some(true) && input.fullmove.known().is_some() {
                            notes.push(
                                "the fullmove number is checked against the proof-game bounds only: the line witnesses the clock, not the game's length"
                                    .into(),
                            );
                        }
                        (p, always_equal(&clock, c, p))
                    }
                }
                Field::Unknown => {
                    notes.push("the FEN gives no halfmove clock".into());
                    let p = match clock.standing {
                        Standing::Possible => Some(true),
                        Standing::Illegal(_) | Standing::NoHistory => Some(false),
                        Standing::Undecided => None,
                    };
                    // Every history then fits the FEN's (unknown) clock.
                    (p, p)
                }
            };
            // A known fullmove number is never shown to fit every history: it can only be
            // refuted.
            let nec = match nec {
                Some(true) if input.fullmove.known().is_some() && game.is_none() => None,
                other => other,
            };
            (verdict_of(p), p, nec)
        }
        Stipulation::Legal
        | Stipulation::Castling
        | Stipulation::Last(..)
        | Stipulation::ProofGame(_) => {
            // Answered by the legality, Codex and retractor modules; the clock gives the
            // basics here.
            let p = match clock.standing {
                Standing::Illegal(_) | Standing::NoHistory => Some(false),
                _ => None,
            };
            (verdict_of(p), p, None)
        }
    };
    // Under the premise `at move N`, a position that no game of that length reaches has no
    // history the question could be about.
    let ruled_out = match &histories {
        Histories::Game(g) => {
            (g.history == Some(false) && !matches!(stip, Stipulation::Clock(_)))
            // A claim (or an ended game) that no game of that length allows: no, whether or
            // not such a game exists (if none does, the answer is no as above).
            || (matches!(stip, Stipulation::Claim(_) | Stipulation::Over(_))
                && possibly == Some(false))
        }
        Histories::All(_) => false,
    };
    let (verdict, possibly, necessarily) = if ruled_out {
        // The claim's details say the same: no rule allows it in a game of that length.
        if let Some(info) = &mut claim {
            info.by_9_3_1 = Some(false);
            info.by_9_3_2 = Some(false);
            info.possibly_by_9_3_1 = Some(false);
            info.possibly_by_9_3_2 = Some(false);
        }
        (Verdict::No, Some(false), Some(false))
    } else {
        (verdict, possibly, necessarily)
    };
    match &clock.standing {
        Standing::Illegal(reasons) => {
            for r in reasons {
                notes.push(format!("illegal: {r}"));
            }
        }
        Standing::NoHistory => notes.push(
            "no line of reversible retractions reaches a possible origin: the position has no legal history"
                .into(),
        ),
        _ => {}
    }
    let clock = match at_move_clock {
        Some(values) => values.apply(clock),
        None => clock,
    };
    Answer {
        stipulation: stip,
        rules,
        verdict,
        possibly,
        necessarily,
        claim,
        certificate,
        notes,
        clock,
        legality: None,
        certified: None,
        game: game_facts,
        codex: None,
    }
}

fn input_is_checkmate(input: &PositionInput) -> bool {
    input
        .candidates()
        .iter()
        .filter_map(|p| p.to_chess())
        .any(|c| c.is_checkmate())
}

fn claim_info(input: &PositionInput, histories: &Histories, rules: Rules) -> ClaimInfo {
    let threshold = rules.claim_threshold(&input.board);
    // The moves each candidate position allows to announce. They differ only where an unknown
    // castling field leaves castling open under a convention in which castling keeps the count.
    let lists: Vec<Vec<String>> = input
        .candidates()
        .iter()
        .filter_map(|p| p.to_chess())
        .map(|chess| {
            chess
                .legal_moves()
                .into_iter()
                .filter(|m| {
                    !(m.role() == Role::Pawn
                        || m.is_capture()
                        || (m.is_castle() && rules.convention().castling_resets()))
                })
                .map(|m| shakmaty::san::San::from_move(&chess, m).to_string())
                .collect()
        })
        .collect();
    let mut announce: Vec<String> = Vec::new();
    for m in lists.iter().flatten() {
        if !announce.contains(m) {
            announce.push(m.clone());
        }
    }
    let in_every = !lists.is_empty() && lists.iter().all(|l| !l.is_empty());
    let by_9_3_1 = |at_least: Option<bool>| {
        if announce.is_empty() || at_least == Some(false) {
            Some(false)
        } else if in_every {
            at_least
        } else {
            // Some candidate has nothing to announce: whether its histories count is open.
            None
        }
    };
    ClaimInfo {
        threshold,
        by_9_3_2: histories.all_at_least(threshold),
        by_9_3_1: by_9_3_1(histories.all_at_least(threshold - 1)),
        possibly_by_9_3_2: histories.some_at_least(threshold),
        possibly_by_9_3_1: by_9_3_1(histories.some_at_least(threshold - 1)),
        announce,
    }
}
