//! Verdicts: the answer to a stipulation, derived from what the clock solver proved and
//! witnessed and what [`crate::certify`] certified. `unknown` is a verdict like any other.
//!
//! What a verdict may rest on (SPEC §4): `yes`, `no` and `solved` only on proofs —
//! refutations by necessary conditions (lower bounds, impossible values, "necessarily"
//! answers) and certified histories (a whole game from the initial array, replayed: possible
//! values, "possibly" answers). What only a witness line shows is a [`Finding::Witnessed`]: the
//! verdict is then `unknown`, and [`Answer::likely`] says what the witnesses suggest.

use std::fmt;

use shakmaty::{Position as _, Role};

use crate::{
    certify::{CertifiedLine, Proofs},
    clock::{Certificate, ClockAnswer, MAX_WALK_PLIES, MaxClock, Standing},
    position::{Field, PositionInput},
    proofgame::{Target, fewest_plies_single},
    rules::Rules,
    stipulation::{Comparison, MoveNumber, Stipulation},
};

/// The verdict on a stipulation.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Verdict {
    /// Yes, proven (for `clock=N`-type and `fen`: some legal history satisfies it, shown by a
    /// certified game; for `claim?` and `over?`: every legal history does, by refutation).
    Yes,
    /// No, proven.
    No,
    /// Not proven either way: the budget ran out, or only witnesses support an answer
    /// ([`Answer::likely`]).
    Unknown,
    /// The question (`clock?`, `castling?`) has been answered in full, every part proven.
    Solved,
    /// The position has no legal history at all: it fails a static check, or no line of
    /// reversible retractions reaches a possible origin (the reasons are in the notes).
    Illegal,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Verdict::Yes => "yes",
            Verdict::No => "no",
            Verdict::Unknown => "unknown",
            Verdict::Solved => "solved",
            Verdict::Illegal => "illegal",
        })
    }
}

/// How strongly a yes/no fact about the histories is established.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Finding {
    /// Proven: by refutation (necessary conditions) or by a certified game.
    Proven(bool),
    /// What a witness line suggests, not proven (its start is not shown to be legal).
    Witnessed(bool),
    /// Neither proven nor witnessed within the budget.
    Open,
}

impl Finding {
    /// The value, if proven.
    pub fn proven(self) -> Option<bool> {
        match self {
            Finding::Proven(b) => Some(b),
            _ => None,
        }
    }

    /// The value, proven or witnessed.
    pub fn likely(self) -> Option<bool> {
        match self {
            Finding::Proven(b) | Finding::Witnessed(b) => Some(b),
            Finding::Open => None,
        }
    }

    /// A proven value (`Some`) or nothing.
    fn from_proven(b: Option<bool>) -> Finding {
        b.map_or(Finding::Open, Finding::Proven)
    }

    /// The finding about the negation.
    fn not(self) -> Finding {
        match self {
            Finding::Proven(b) => Finding::Proven(!b),
            Finding::Witnessed(b) => Finding::Witnessed(!b),
            Finding::Open => Finding::Open,
        }
    }

    /// The same value at most witnessed (for answers that rest on an unproven assumption).
    pub fn weakened(self) -> Finding {
        match self {
            Finding::Proven(b) => Finding::Witnessed(b),
            other => other,
        }
    }

    /// `proven`, `witnessed` or `open`: the level, for output.
    pub fn level(self) -> &'static str {
        match self {
            Finding::Proven(_) => "proven",
            Finding::Witnessed(_) => "witnessed",
            Finding::Open => "open",
        }
    }
}

/// The verdict and the likely verdict of a yes/no question answered by `f`.
fn verdict_of(f: Finding) -> (Verdict, Option<Verdict>) {
    let yn = |b: bool| if b { Verdict::Yes } else { Verdict::No };
    match f {
        Finding::Proven(b) => (yn(b), None),
        Finding::Witnessed(b) => (Verdict::Unknown, Some(yn(b))),
        Finding::Open => (Verdict::Unknown, None),
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
    /// Whether a claim is possible by 9.3.2 in every history (clock >= threshold).
    pub by_9_3_2: Finding,
    /// Whether a claim is possible by 9.3.1 in every history (a move to announce, and clock >=
    /// threshold − 1).
    pub by_9_3_1: Finding,
    /// Whether a claim is possible by 9.3.2 in some history (clock >= threshold).
    pub possibly_by_9_3_2: Finding,
    /// Whether a claim is possible by 9.3.1 in some history (a move to announce, and clock >=
    /// threshold − 1).
    pub possibly_by_9_3_1: Finding,
}

/// The answer to one stipulation about one position.
#[derive(Clone, Debug)]
pub struct Answer {
    /// The question.
    pub stipulation: Stipulation,
    /// The rule set.
    pub rules: Rules,
    /// The verdict: proven, or `unknown`.
    pub verdict: Verdict,
    /// When the verdict is `unknown`: the verdict the witnesses suggest, if any.
    pub likely: Option<Verdict>,
    /// When the verdict is `unknown` but likely: why it is not proven, in a few words.
    pub unproven: Option<String>,
    /// Whether the stipulation holds in some legal history.
    pub possibly: Finding,
    /// Whether it holds in every legal history.
    pub necessarily: Finding,
    /// The draw-claim details, for `claim?`.
    pub claim: Option<ClaimInfo>,
    /// The witness line the answer points to, when there is one (its level: certified when
    /// [`Answer::certified`] extends it, else witnessed).
    pub certificate: Option<Certificate>,
    /// The certified game the verdict rests on, when it rests on one.
    pub certified: Option<CertifiedLine>,
    /// Everything certified about the clock (lines and the cycle that extends them).
    pub proofs: Proofs,
    /// The reasoning, one sentence per entry.
    pub notes: Vec<String>,
    /// What the clock solver established.
    pub clock: ClockAnswer,
    /// For `legal?`: the legality finding.
    pub legality: Option<crate::legal::Legality>,
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
    /// Whether a game of exactly `plies` plies reaches the position: shown by a game (a walk
    /// of reversible retractions to the initial array), proven impossible, or not decided
    /// (None).
    pub reached: Option<bool>,
    /// Whether the clock counts every ply of the game (nothing can ever have reset it), so
    /// that it is `plies` in every such game.
    pub clock_is_length: bool,
}

/// The parts of `clock?` and whether each is proven.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct ClockProof {
    /// The minimum: the proven lower bound is a certified value.
    pub min: bool,
    /// The maximum: a bounded maximum is a certified value, or certified values are unbounded.
    pub max: bool,
    /// Each parity (`[even, odd]`) is certified possible or proven impossible.
    pub parities: [bool; 2],
}

impl ClockProof {
    /// Whether every part is proven.
    pub fn all(self) -> bool {
        self.min && self.max && self.parities == [true, true]
    }
}

/// Which parts of the answer to `clock?` are proven by `clock` and `proofs`.
pub fn clock_proof(clock: &ClockAnswer, proofs: &Proofs) -> ClockProof {
    let min = proofs.min() == Some(clock.min_lower_bound);
    let max = match clock.max {
        MaxClock::Bounded(m) => proofs.certifies(m),
        MaxClock::Unbounded => proofs.unbounded(),
        MaxClock::Unknown { .. } => false,
    };
    let settled = |p: usize| {
        proofs.parity(p as u8)
            || (!clock.parities[p]
                && (clock.complete || clock.parity_proven.is_some_and(|q| usize::from(q) != p)))
    };
    ClockProof {
        min,
        max,
        parities: [settled(0), settled(1)],
    }
}

impl Answer {
    /// Answers `legal?` from `legality`: yes with a game from the initial array, no with a
    /// reason, unknown otherwise (labelled "no contradiction" in the notes).
    pub fn with_legality(mut self, legality: crate::legal::Legality) -> Answer {
        use crate::legal::Legality;
        let possibly = match &legality {
            Legality::Illegal(_) => Finding::Proven(false),
            Legality::Legal { .. } => Finding::Proven(true),
            Legality::NoContradiction {
                depth,
                searched_plies,
            } => {
                self.notes.push(format!(
                    "no contradiction to depth {depth}: the position passes the static checks and a line of retractions reaches a reset whose predecessor has a legal retraction chain {depth} plies deep; no game from the initial array was found within the budget (proof games of up to {searched_plies} plies tried)"
                ));
                Finding::Witnessed(true)
            }
            Legality::Undecided => Finding::Open,
        };
        (self.verdict, self.likely) = verdict_of(possibly);
        if matches!(
            self.clock.standing,
            Standing::Illegal(_) | Standing::NoHistory
        ) {
            self.verdict = Verdict::Illegal;
            self.likely = None;
        }
        self.possibly = possibly;
        self.necessarily = possibly;
        self.legality = Some(legality);
        self
    }

    /// The answer under the Codex reading of its castling field (`reading`), which decided the
    /// histories it covers. A reading left open by the budget decides little: the answer was
    /// found over every set of rights, and keeps only what holds for any narrower set of
    /// histories (a proven "no", the proven bounds); the rest becomes unknown. A reading that
    /// rests on a witness (a set of rights held because no refutation was found, but not shown
    /// by a game) makes every proven finding a witnessed one: the answer is only as strong as
    /// the reading.
    pub fn with_codex(mut self, reading: crate::codex::CastlingReading) -> Answer {
        let mut notes = reading.notes();
        notes.append(&mut self.notes);
        self.notes = notes;
        if self.stipulation == Stipulation::Castling {
            // The reading is the answer: solved once every alternative is shown by a game and
            // every larger set refuted.
            self.verdict = if reading.certified() || reading.answer() == Some(0) {
                Verdict::Solved
            } else {
                Verdict::Unknown
            };
            self.likely = None;
            self.possibly = Finding::Open;
            self.necessarily = Finding::Open;
        } else if !reading.settled() {
            // A proof that no history satisfies the question, found over every set of
            // rights, holds for the narrower reading too; anything else is open.
            if self.possibly != Finding::Proven(false) {
                self.verdict = Verdict::Unknown;
                self.likely = None;
                self.possibly = Finding::Open;
                self.necessarily = Finding::Open;
            }
            self.certificate = None;
            self.certified = None;
            self.proofs = Proofs::default();
            if let Some(claim) = &mut self.claim {
                claim.by_9_3_1 = Finding::Open;
                claim.by_9_3_2 = Finding::Open;
                claim.possibly_by_9_3_1 = Finding::Open;
                claim.possibly_by_9_3_2 = Finding::Open;
            }
            self.clock = self.clock.proven_only();
        } else if !reading.certified() && reading.answer() != Some(0) {
            // The rights held are not shown by a game: what the answer proves, it proves of
            // the reading, which itself is only witnessed.
            self.possibly = self.possibly.weakened();
            self.necessarily = self.necessarily.weakened();
            if let Some(claim) = &mut self.claim {
                claim.by_9_3_1 = claim.by_9_3_1.weakened();
                claim.by_9_3_2 = claim.by_9_3_2.weakened();
                claim.possibly_by_9_3_1 = claim.possibly_by_9_3_1.weakened();
                claim.possibly_by_9_3_2 = claim.possibly_by_9_3_2.weakened();
            }
            if matches!(self.verdict, Verdict::Yes | Verdict::No | Verdict::Solved) {
                self.likely = match self.verdict {
                    Verdict::Solved => None,
                    v => Some(v),
                };
                self.verdict = Verdict::Unknown;
                self.unproven = Some(
                    "it holds for the rights the Codex reading holds, which no game shows".into(),
                );
                self.notes.push(
                    "the answer holds for the rights the Codex reading holds, and that reading is only witnessed (no game shows the rights), so it is not proven".into(),
                );
            }
        }
        self.codex = Some(reading);
        self
    }
}

/// Whether some value >= n is witnessed (`Some(true)`), proven absent (`Some(false)`), or
/// unknown, from the search alone.
fn witnessed_at_least(c: &ClockAnswer, n: u64) -> Option<bool> {
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

/// The histories a question is about: every legal history, or, under the premise `at move N`,
/// the games of exactly [`GameLength::plies`] plies.
enum Histories<'a> {
    /// Every legal history of the position: what the search proved and witnessed, and what
    /// was certified.
    All(&'a ClockAnswer, &'a Proofs),
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

    /// The game of `plies` plies, written out: a walk of reversible retractions to the
    /// initial array (when it is short enough to write out), replayed.
    fn certified(&self) -> Option<CertifiedLine> {
        let line = self
            .clock
            .certificate_for(self.plies, self.clock.rules.convention())?;
        crate::certify::from_initial(&line)
    }
}

impl Histories<'_> {
    fn clock(&self) -> &ClockAnswer {
        match self {
            Histories::All(c, _) => c,
            Histories::Game(g) => g.clock,
        }
    }

    /// Whether some history has clock `k`.
    fn value_possible(&self, k: u64) -> Finding {
        match self {
            Histories::All(c, proofs) => {
                if proofs.certifies(k) {
                    return Finding::Proven(true);
                }
                match c.value_possible(k) {
                    Some(false) => Finding::Proven(false),
                    Some(true) => Finding::Witnessed(true),
                    None => Finding::Open,
                }
            }
            Histories::Game(g) => Finding::from_proven(
                if g.history == Some(false)
                    || k > g.plies
                    || g.clock.value_possible(k) == Some(false)
                {
                    Some(false)
                } else if g.clock.counts_every_ply() {
                    if k == g.plies { g.history } else { Some(false) }
                } else {
                    None
                },
            ),
        }
    }

    /// Whether some history has clock >= n.
    fn some_at_least(&self, n: u64) -> Finding {
        match self {
            Histories::All(c, proofs) => {
                if proofs.at_least(n) {
                    return Finding::Proven(true);
                }
                match witnessed_at_least(c, n) {
                    Some(false) => Finding::Proven(false),
                    Some(true) => Finding::Witnessed(true),
                    None => Finding::Open,
                }
            }
            Histories::Game(g) => Finding::from_proven(
                if g.history == Some(false)
                    || n > g.plies
                    || witnessed_at_least(g.clock, n) == Some(false)
                {
                    Some(false)
                } else if g.exact() {
                    Some(true)
                } else {
                    None
                },
            ),
        }
    }

    /// Whether every history has clock >= n.
    fn all_at_least(&self, n: u64) -> Finding {
        match self {
            Histories::All(c, _) if !c.has_history() => Finding::Open,
            Histories::All(c, _) if c.min_lower_bound >= n => Finding::Proven(true),
            Histories::All(_, proofs) if proofs.at_most(n.saturating_sub(1)) && n > 0 => {
                Finding::Proven(false)
            }
            Histories::All(c, _) if c.min.is_some_and(|m| m < n) => Finding::Witnessed(false),
            Histories::All(..) => Finding::Open,
            Histories::Game(g) if g.exact() => Finding::Proven(g.plies >= n),
            Histories::Game(g) if g.history == Some(false) => Finding::Open,
            // The clock is `plies` in every game of that length, if there is one.
            Histories::Game(g) if g.clock.counts_every_ply() && g.plies >= n => {
                Finding::Proven(true)
            }
            Histories::Game(g) => {
                Finding::from_proven((g.clock.min_lower_bound >= n).then_some(true))
            }
        }
    }

    /// Whether some history has clock <= n.
    fn some_at_most(&self, n: u64) -> Finding {
        let c = self.clock();
        match self {
            Histories::Game(g) if g.history == Some(false) => Finding::Proven(false),
            Histories::Game(g) if g.exact() => Finding::Proven(g.plies <= n),
            Histories::Game(g) if g.clock.counts_every_ply() && g.plies > n => {
                Finding::Proven(false)
            }
            _ if c.min_lower_bound > n || !c.has_history() => Finding::Proven(false),
            Histories::All(_, proofs) if proofs.at_most(n) => Finding::Proven(true),
            Histories::All(c, _) if c.min.is_some_and(|m| m <= n) => Finding::Witnessed(true),
            _ => Finding::Open,
        }
    }

    /// Whether every history has clock `n`, given whether some has (`possible`).
    fn always_equal(&self, n: u64, possible: Finding) -> Finding {
        match self {
            Histories::All(c, proofs) => {
                if possible == Finding::Proven(false) || proofs.lines.iter().any(|l| l.clock != n) {
                    return Finding::Proven(false);
                }
                // Nothing below `n` and nothing above it (a complete search bounds the
                // maximum), and `n` itself certified.
                let bounded_by_n = matches!(c.max, MaxClock::Bounded(m) if m <= n);
                if c.min_lower_bound >= n && bounded_by_n && possible == Finding::Proven(true) {
                    return Finding::Proven(true);
                }
                match (c.min, c.max) {
                    (Some(m), MaxClock::Bounded(x)) if m == n && x == n => Finding::Witnessed(true),
                    (Some(m), _) if m != n => Finding::Witnessed(false),
                    (_, MaxClock::Unbounded) => Finding::Witnessed(false),
                    _ => Finding::Open,
                }
            }
            Histories::Game(g) if g.exact() => Finding::Proven(g.plies == n),
            Histories::Game(_) => {
                Finding::from_proven((possible == Finding::Proven(false)).then_some(false))
            }
        }
    }

    /// A line that witnesses clock `k`.
    fn certificate_for(&self, k: u64, rules: Rules) -> Option<Certificate> {
        match self {
            Histories::All(c, _) => c.certificate_for(k, rules.convention()),
            Histories::Game(g) if g.exact() && k == g.plies => {
                g.clock.certificate_for(k, rules.convention())
            }
            Histories::Game(_) => None,
        }
    }

    /// A line that witnesses some clock >= n.
    fn certificate_at_least(&self, n: u64, rules: Rules) -> Option<Certificate> {
        match self {
            Histories::All(c, _) => certificate_at_least(c, n, rules),
            Histories::Game(g) if g.exact() && g.plies >= n => self.certificate_for(g.plies, rules),
            Histories::Game(_) => None,
        }
    }

    /// A line that witnesses some clock <= n.
    fn certificate_at_most(&self, n: u64, rules: Rules) -> Option<Certificate> {
        match self {
            Histories::All(c, _) => c.shortest.clone().filter(|s| s.clock <= n),
            Histories::Game(g) if g.exact() && g.plies <= n => self.certificate_for(g.plies, rules),
            Histories::Game(_) => None,
        }
    }

    /// The certified game for clock `k`.
    fn certified_for(&self, k: u64) -> Option<CertifiedLine> {
        match self {
            Histories::All(_, proofs) => proofs.line_for(k),
            Histories::Game(g) if g.exact() && k == g.plies => g.certified(),
            Histories::Game(_) => None,
        }
    }

    /// A certified game with clock >= n.
    fn certified_at_least(&self, n: u64) -> Option<CertifiedLine> {
        match self {
            Histories::All(_, proofs) => proofs.line_at_least(n),
            Histories::Game(g) if g.exact() && g.plies >= n => g.certified(),
            Histories::Game(_) => None,
        }
    }

    /// A certified game with clock <= n.
    fn certified_at_most(&self, n: u64) -> Option<CertifiedLine> {
        match self {
            Histories::All(_, proofs) => proofs.line_at_most(n),
            Histories::Game(g) if g.exact() && g.plies <= n => g.certified(),
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
    if fewest_plies_single(&target, plies as u32).is_some() {
        return None;
    }
    // The fewest plies the bounds allow: they admit a length once they admit a shorter one
    // (more moves never hurt them), so a bisection finds it.
    let admits = |n: u64| fewest_plies_single(&target, n as u32).is_some();
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
fn unwritten_walk(possible: Finding, certificate: &Option<Certificate>, k: u64) -> Option<String> {
    (possible.likely() == Some(true) && certificate.is_none() && k > MAX_WALK_PLIES).then(|| {
        format!(
            "a walk of {k} plies to an origin exists (the sets of positions that walks reach repeat with a period), but no line longer than {MAX_WALK_PLIES} plies is written out"
        )
    })
}

/// What a question asks certified, for [`crate::certify::certify`]: the lines its proven
/// answer would rest on.
pub fn wanted(
    stip: Stipulation,
    input: &PositionInput,
    rules: Rules,
) -> Vec<crate::certify::Wanted> {
    use crate::certify::Wanted;
    // Under the premise `at move N` only games of that length count: the general lines are
    // not asked for (the game that the premise fixes is certified on its own).
    if stip.at_move().is_some() {
        return Vec::new();
    }
    match stip {
        Stipulation::Clock(_) => vec![
            Wanted::Min,
            Wanted::Parity(0),
            Wanted::Parity(1),
            Wanted::Max,
        ],
        Stipulation::ClockIs(Comparison::Eq, n, _) => vec![Wanted::Value(n), Wanted::Min],
        Stipulation::ClockIs(Comparison::Ge, n, _) => vec![Wanted::AtLeast(n), Wanted::Min],
        Stipulation::ClockIs(Comparison::Le, n, _) => vec![Wanted::AtMost(n), Wanted::Max],
        Stipulation::Claim(_) => {
            let t = rules.claim_threshold(&input.board);
            vec![Wanted::Min, Wanted::AtLeast(t - 1)]
        }
        Stipulation::Over(_) => match rules.over_threshold() {
            Some(t) => vec![Wanted::Min, Wanted::AtLeast(t)],
            None => Vec::new(),
        },
        Stipulation::Fen => {
            let plies = input
                .fullmove
                .known()
                .map(|f| MoveNumber(f).plies_before(input.turn));
            match (input.halfmove_clock, plies) {
                (Field::Known(c), Some(plies)) => vec![Wanted::ValueAt(c, plies), Wanted::Min],
                (Field::Known(c), None) => vec![Wanted::Value(c), Wanted::Min],
                (Field::Unknown, _) => vec![Wanted::Any],
            }
        }
        Stipulation::Legal | Stipulation::Castling => vec![Wanted::Any],
        Stipulation::Last(..) | Stipulation::ProofGame(_) => Vec::new(),
    }
}

/// Decides `stip` for `input` from the clock solver's answer and what was certified.
pub fn decide(
    stip: Stipulation,
    input: &PositionInput,
    clock: ClockAnswer,
    proofs: Proofs,
) -> Answer {
    let rules = clock.rules;
    let mut notes = Vec::new();
    let mut claim = None;
    let mut certificate = None;
    let mut certified = None;
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
        None => Histories::All(&clock, &proofs),
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
        Histories::All(..) => None,
    };
    let (verdict, likely, possibly, necessarily) = match stip {
        Stipulation::Clock(_) if let Histories::Game(g) = &histories => {
            // Decided when the clock is the game's length or no such game exists.
            let verdict = if g.exact() || g.history == Some(false) {
                certified = g.exact().then(|| g.certified()).flatten();
                Verdict::Solved
            } else {
                Verdict::Unknown
            };
            (verdict, None, Finding::Open, Finding::Open)
        }
        Stipulation::Clock(_) => {
            let verdict = match clock.standing {
                Standing::Illegal(_) | Standing::NoHistory => Verdict::Illegal,
                Standing::Possible if clock_proof(&clock, &proofs).all() => Verdict::Solved,
                Standing::Possible | Standing::Undecided => Verdict::Unknown,
            };
            if verdict == Verdict::Unknown && clock.standing == Standing::Possible {
                notes.extend(clock_gaps(&clock, &proofs));
            }
            (verdict, None, Finding::Open, Finding::Open)
        }
        Stipulation::ClockIs(cmp, n, _) => {
            let (p, nec) = match cmp {
                Comparison::Eq => {
                    let p = histories.value_possible(n);
                    let nec = histories.always_equal(n, p);
                    certificate = histories.certificate_for(n, rules);
                    certified = histories.certified_for(n);
                    notes.extend(unwritten_walk(p, &certificate, n));
                    (p, nec)
                }
                Comparison::Ge => {
                    certificate = histories.certificate_at_least(n, rules);
                    certified = histories.certified_at_least(n);
                    let p = histories.some_at_least(n);
                    notes.extend(unwritten_walk(p, &certificate, n));
                    (p, histories.all_at_least(n))
                }
                Comparison::Le => {
                    let p = histories.some_at_most(n);
                    if p.likely() == Some(true) {
                        certificate = histories.certificate_at_most(n, rules);
                        certified = histories.certified_at_most(n);
                    }
                    let nec = histories.some_at_least(n + 1).not();
                    (p, nec)
                }
            };
            let (v, l) = verdict_of(p);
            (v, l, p, nec)
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
            if nec.likely() == Some(false) {
                // A history without a claim: the shortest line.
                certificate = histories.certificate_at_most(t - 1, rules);
                certified = histories.certified_at_most(t - 1);
            } else if p.likely() == Some(true) {
                certificate = histories.certificate_at_least(t, rules);
                certified = histories.certified_at_least(t);
            }
            notes.push(format!(
                "a claim needs clock >= {} (9.3.2) or clock >= {} with a move that is neither a pawn move nor a capture{} (9.3.1); {} such moves",
                info.threshold,
                info.threshold - 1,
                if rules.convention().castling_resets() { " nor castling" } else { "" },
                info.announce.len()
            ));
            claim = Some(info);
            let (v, l) = verdict_of(nec);
            (v, l, p, nec)
        }
        Stipulation::Over(_) => {
            let mate = input_is_checkmate(input);
            match rules.over_threshold() {
                None => {
                    notes.push(
                        "the 1988 Laws had no rule that ends the game without a claim".into(),
                    );
                    (
                        Verdict::No,
                        None,
                        Finding::Proven(false),
                        Finding::Proven(false),
                    )
                }
                Some(_) if mate => {
                    notes.push("the position is checkmate, which takes precedence".into());
                    (
                        Verdict::No,
                        None,
                        Finding::Proven(false),
                        Finding::Proven(false),
                    )
                }
                Some(t) => {
                    let nec = histories.all_at_least(t);
                    let p = histories.some_at_least(t);
                    if nec.likely() == Some(false) {
                        certificate = histories.certificate_at_most(t - 1, rules);
                        certified = histories.certified_at_most(t - 1);
                    } else if p.likely() == Some(true) {
                        certificate = histories.certificate_at_least(t, rules);
                        certified = histories.certified_at_least(t);
                    }
                    notes.push(format!(
                        "{} ends the game at clock {t}",
                        rules.over_article()
                    ));
                    let (v, l) = verdict_of(nec);
                    (v, l, p, nec)
                }
            }
        }
        Stipulation::Fen => {
            let game = match &histories {
                Histories::Game(g) => Some(g),
                Histories::All(..) => None,
            };
            let (p, nec) = match input.halfmove_clock {
                // The fullmove number counts the plies since the initial array; a game needs
                // at least as many as the proof-game bounds say.
                _ if let Some(note) = fullmove_too_small(input, game) => {
                    notes.push(note);
                    (Finding::Proven(false), Finding::Proven(false))
                }
                Field::Known(c) if let Some(g) = game => {
                    if c != g.plies {
                        notes.push(format!(
                            "the clock counts every ply, so it can only be {}; the FEN claims {c}",
                            g.plies
                        ));
                    }
                    let p = histories.value_possible(c);
                    if p.likely() == Some(true) {
                        certificate = histories.certificate_for(c, rules);
                        certified = histories.certified_for(c);
                    }
                    notes.extend(unwritten_walk(p, &certificate, c));
                    (p, histories.always_equal(c, p))
                }
                Field::Unknown if let Some(g) = game => {
                    notes.push("the FEN gives no halfmove clock".into());
                    certified = g.exact().then(|| g.certified()).flatten();
                    let f = Finding::from_proven(g.history);
                    (f, f)
                }
                Field::Known(c) => {
                    if let Some(b) = clock.fullmove_bound
                        && c > b
                    {
                        notes.push(format!(
                            "the fullmove number allows at most {b} plies, the FEN claims {c}"
                        ));
                        (Finding::Proven(false), Finding::Proven(false))
                    } else {
                        certificate = histories.certificate_for(c, rules);
                        let mut p = histories.value_possible(c);
                        notes.extend(unwritten_walk(p, &certificate, c));
                        certified = histories.certified_for(c);
                        // A given fullmove number needs a game of exactly that length.
                        if let Some(f) = input.fullmove.known()
                            && p == Finding::Proven(true)
                        {
                            let plies = MoveNumber(f).plies_before(input.turn);
                            certified = proofs.line_with(c, plies, rules.convention());
                            if certified.is_none() {
                                p = Finding::Witnessed(true);
                                notes.push(format!(
                                    "clock {c} is certified, but no game of exactly {plies} plies (the fullmove number {f}) was found to give it"
                                ));
                            }
                        }
                        (p, histories.always_equal(c, p))
                    }
                }
                Field::Unknown => {
                    notes.push("the FEN gives no halfmove clock".into());
                    let p = match clock.standing {
                        _ if !proofs.lines.is_empty() => Finding::Proven(true),
                        Standing::Possible => Finding::Witnessed(true),
                        Standing::Illegal(_) | Standing::NoHistory => Finding::Proven(false),
                        Standing::Undecided => Finding::Open,
                    };
                    certified = proofs.lines.first().cloned();
                    if let Some(f) = input.fullmove.known() {
                        let plies = MoveNumber(f).plies_before(input.turn);
                        certified = proofs
                            .lines
                            .iter()
                            .find_map(|l| crate::certify::padded(l, plies, rules.convention()));
                    }
                    let p = match p {
                        Finding::Proven(true) if certified.is_none() => Finding::Witnessed(true),
                        other => other,
                    };
                    // Every history then fits the FEN's (unknown) clock.
                    (p, p)
                }
            };
            // A known fullmove number is never shown to fit every history: it can only be
            // refuted.
            let nec = match nec {
                Finding::Proven(true) | Finding::Witnessed(true)
                    if input.fullmove.known().is_some() && game.is_none() =>
                {
                    Finding::Open
                }
                other => other,
            };
            let (v, l) = verdict_of(p);
            (v, l, p, nec)
        }
        Stipulation::Legal
        | Stipulation::Castling
        | Stipulation::Last(..)
        | Stipulation::ProofGame(_) => {
            // Answered by the legality, Codex and retractor modules; the clock gives the
            // basics here.
            let p = match clock.standing {
                Standing::Illegal(_) | Standing::NoHistory => Finding::Proven(false),
                _ => Finding::Open,
            };
            let (v, l) = verdict_of(p);
            (v, l, p, Finding::Open)
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
                && possibly == Finding::Proven(false))
        }
        Histories::All(..) => false,
    };
    let (mut verdict, mut likely, possibly, necessarily) = if ruled_out {
        // The claim's details say the same: no rule allows it in a game of that length.
        if let Some(info) = &mut claim {
            info.by_9_3_1 = Finding::Proven(false);
            info.by_9_3_2 = Finding::Proven(false);
            info.possibly_by_9_3_1 = Finding::Proven(false);
            info.possibly_by_9_3_2 = Finding::Proven(false);
        }
        (
            Verdict::No,
            None,
            Finding::Proven(false),
            Finding::Proven(false),
        )
    } else {
        (verdict, likely, possibly, necessarily)
    };
    match &clock.standing {
        Standing::Illegal(reasons) => {
            for r in reasons {
                notes.push(format!("illegal: {r}"));
            }
        }
        Standing::NoHistory if at_move.is_none() => notes.push(
            "no line of reversible retractions reaches a possible origin: the position has no legal history"
                .into(),
        ),
        _ => {}
    }
    // A position with no legal history at all gets that verdict, whatever the question (a
    // premise's "no game of that length" is an answer to the question, not this).
    let illegal = match &clock.standing {
        Standing::Illegal(_) => true,
        Standing::NoHistory => at_move.is_none(),
        _ => false,
    };
    if illegal {
        verdict = Verdict::Illegal;
        likely = None;
    }
    let mut unproven = None;
    if verdict == Verdict::Unknown && likely.is_some() {
        if certificate.as_ref().is_none_or(|c| !proofs.covers(c)) {
            notes.push(witness_note(&certificate, &proofs));
            unproven = Some("witnessed, the start of the line is not proven legal".to_string());
        } else {
            unproven = Some(
                "the lines are certified, but not a game of the length the question needs"
                    .to_string(),
            );
        }
    }
    // Under a premise, what is certified is the game of that length (when the clock counts
    // every ply), not the lines of other lengths.
    let proofs = match &histories {
        Histories::Game(g) => {
            let mut only = Proofs::default();
            if let Some(line) = g.exact().then(|| g.certified()).flatten() {
                only.add(line);
            }
            only
        }
        Histories::All(..) => proofs,
    };
    let clock = match at_move_clock {
        Some(values) => values.apply(clock),
        None => clock,
    };
    Answer {
        stipulation: stip,
        rules,
        verdict,
        likely,
        unproven,
        possibly,
        necessarily,
        claim,
        certificate,
        certified,
        proofs,
        notes,
        clock,
        legality: None,
        game: game_facts,
        codex: None,
    }
}

/// Why a likely answer is not proven: the line it rests on starts at a position no game was
/// found to reach.
fn witness_note(certificate: &Option<Certificate>, proofs: &Proofs) -> String {
    match certificate {
        Some(c) if proofs.unreached.iter().any(|u| u.start == c.start.fen4()) => format!(
            "witnessed, not proven: the {}-ply line starts at {}, which no game from the initial array was found to reach",
            c.clock,
            c.start.fen4()
        ),
        Some(c) => format!(
            "witnessed, not proven: the {}-ply line's start {} is not shown to be legal",
            c.clock,
            c.start.fen4()
        ),
        None => "witnessed, not proven: the lines found start at positions not shown to be legal"
            .to_string(),
    }
}

/// What keeps `clock?` from being solved, for the notes.
fn clock_gaps(clock: &ClockAnswer, proofs: &Proofs) -> Vec<String> {
    let proof = clock_proof(clock, proofs);
    let mut gaps = Vec::new();
    if !proof.min {
        gaps.push(match (clock.min, proofs.min()) {
            (Some(m), Some(c)) => format!(
                "the minimum is not proven: nothing below {} is possible (proven), {m} is witnessed, and the smallest certified value is {c}",
                clock.min_lower_bound
            ),
            (Some(m), None) => format!(
                "the minimum is not proven: nothing below {} is possible (proven) and {m} is witnessed, but no value is certified (no game from the initial array reaches the start of a line)",
                clock.min_lower_bound
            ),
            (None, _) => format!(
                "the minimum is not proven: nothing below {} is possible (proven)",
                clock.min_lower_bound
            ),
        });
    }
    if !proof.max {
        gaps.push(match clock.max {
            MaxClock::Bounded(m) => format!(
                "the maximum is not proven: nothing above {m} is possible (proven), but {m} itself is only witnessed"
            ),
            MaxClock::Unbounded => "the maximum is not proven: a cycle on a line to an origin is witnessed, but no certified game can be extended by it".to_string(),
            MaxClock::Unknown { .. } => "the maximum is not decided within the budget".to_string(),
        });
    }
    for (p, name) in [(0, "even"), (1, "odd")] {
        if !proof.parities[p] {
            gaps.push(format!(
                "{name} values are neither certified nor proven impossible"
            ));
        }
    }
    gaps
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
    let by_9_3_1 = |at_least: Finding| {
        if announce.is_empty() || at_least == Finding::Proven(false) {
            Finding::Proven(false)
        } else if in_every {
            at_least
        } else {
            // Some candidate has nothing to announce: whether its histories count is open.
            Finding::Open
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
