//! Certification: turning witness lines into proofs (SPEC §4).
//!
//! A witness line runs from a reset's predecessor to the position; it proves nothing until a
//! game from the initial array reaches that predecessor. This module finds such games (the
//! initial array itself, a game the user gave, a proof-game search, the game constructor),
//! joins them to the lines, and re-checks every joined game by replaying it from the initial
//! array with [`crate::verify`]. What it returns, [`Proofs`], is the only evidence on which a
//! "possibly" answer (a value is possible, a history without a claim exists) may rest.
//!
//! A certified line is extended by a *cycle*: reversible moves from the position back to
//! itself (two moves of each side, there and back). Repeating it adds its length to the clock,
//! so one certified line and a cycle certify every larger value of the same residue, and an
//! unbounded maximum.

use std::{collections::HashMap, fmt, time::Instant};

use shakmaty::{CastlingMode, Chess, Move, Position as _, Role};

use crate::{
    clock::{Certificate, ClockAnswer, MaxClock, OriginEvidence},
    construct,
    legal::ProofBudget,
    position::{Field, Position, PositionInput},
    proofgame::{self, Target},
    rules::Convention,
    verify,
};

/// Where the game before a certified line's reset comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameSource {
    /// The line starts at the initial array (or its reset is played from it): no game is needed.
    InitialArray,
    /// The solver found the game (a proof-game search or the game constructor).
    Found,
    /// The game was given by the user (`--game`); the text names it.
    Given(String),
}

impl fmt::Display for GameSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameSource::InitialArray => f.write_str("the line starts at the initial array"),
            GameSource::Found => f.write_str("a game found by the solver"),
            GameSource::Given(name) => write!(f, "the given game {name}"),
        }
    }
}

/// A certified history: a whole game from the initial array, replayed move by move, that ends
/// in the position with `clock` reversible plies since its last reset.
#[derive(Clone, Debug)]
pub struct CertifiedLine {
    /// The whole game from the initial array.
    pub moves: Vec<Move>,
    /// The same in SAN, as the replay checker wrote it.
    pub san: Vec<String>,
    /// The clock the game gives the position.
    pub clock: u64,
    /// The position the game ends in (one of those the input stands for).
    pub end: Position,
    /// Where the part before the witness line comes from.
    pub source: GameSource,
}

impl CertifiedLine {
    /// The number of plies of the game.
    pub fn plies(&self) -> u64 {
        self.moves.len() as u64
    }

    /// The fullmove number of the position at the end of the game.
    pub fn fullmove(&self) -> u64 {
        self.plies() / 2 + 1
    }
}

/// Reversible moves from a position back to itself, replayed.
#[derive(Clone, Debug)]
pub struct Cycle {
    /// The position the cycle starts and ends in.
    pub at: Position,
    /// The moves (two of each side).
    pub moves: Vec<Move>,
    /// The same in SAN.
    pub san: Vec<String>,
}

/// A witness line whose start no game was found to reach.
#[derive(Clone, Debug)]
pub struct Unreached {
    /// The line's clock.
    pub clock: u64,
    /// The start of the line (the position before its reset), FEN fields 1–4.
    pub start: String,
}

/// What was certified about a position's clock.
#[derive(Clone, Debug, Default)]
pub struct Proofs {
    /// Certified lines, by increasing clock (at most one per clock value).
    pub lines: Vec<CertifiedLine>,
    /// A cycle at the end of some certified line, when one was found.
    pub cycle: Option<Cycle>,
    /// Witness lines tried whose start was not reached (nearest first).
    pub unreached: Vec<Unreached>,
}

/// The longest extension by cycles that is written out: a larger value is still certified
/// (the cycle is replayed once and returns to the same position), but not spelled out.
pub const MAX_EXTENSION_PLIES: u64 = 5_000;

impl Proofs {
    /// Adds a line; lines are kept by clock, then by length (one per clock and length).
    pub fn add(&mut self, line: CertifiedLine) {
        let key = |l: &CertifiedLine| (l.clock, l.plies());
        match self.lines.binary_search_by_key(&key(&line), key) {
            Ok(_) => {}
            Err(i) => self.lines.insert(i, line),
        }
    }

    /// A certified line with clock `k` whose game has exactly `plies` plies (a certified line
    /// of clock `k`, lengthened where it can be), if one is known.
    pub fn line_with(&self, k: u64, plies: u64, convention: Convention) -> Option<CertifiedLine> {
        self.lines
            .iter()
            .filter(|l| l.clock == k && l.plies() <= plies)
            .find_map(|l| padded(l, plies, convention))
    }

    /// Whether `line` is part of a certified game: some certified line has its clock and ends
    /// with its moves (so a game reached its start).
    pub fn covers(&self, line: &Certificate) -> bool {
        self.lines
            .iter()
            .any(|l| l.clock == line.clock && l.moves.ends_with(&line.moves))
    }

    /// The smallest certified clock.
    pub fn min(&self) -> Option<u64> {
        self.lines.first().map(|l| l.clock)
    }

    /// The largest certified clock, when the values are not certified unbounded.
    pub fn max(&self) -> Option<u64> {
        self.lines.last().map(|l| l.clock)
    }

    /// Whether arbitrarily large values are certified: a line ends where the cycle starts.
    pub fn unbounded(&self) -> bool {
        self.cycle
            .as_ref()
            .is_some_and(|c| self.lines.iter().any(|l| l.end == c.at))
    }

    /// The length of the cycle, when lines can be extended by it.
    fn cycle_plies(&self) -> Option<u64> {
        self.cycle.as_ref().map(|c| c.moves.len() as u64)
    }

    /// The line a value `k` is certified by, directly or as a line extended by the cycle.
    fn base_for(&self, k: u64) -> Option<(&CertifiedLine, u64)> {
        if let Some(l) = self.lines.iter().find(|l| l.clock == k) {
            return Some((l, 0));
        }
        let (c, len) = (self.cycle.as_ref()?, self.cycle_plies()?);
        self.lines
            .iter()
            .filter(|l| l.end == c.at && l.clock <= k && (k - l.clock).is_multiple_of(len))
            .max_by_key(|l| l.clock)
            .map(|l| (l, (k - l.clock) / len))
    }

    /// Whether value `k` is certified.
    pub fn certifies(&self, k: u64) -> bool {
        self.base_for(k).is_some()
    }

    /// Whether some certified value is at least `n`.
    pub fn at_least(&self, n: u64) -> bool {
        self.unbounded() || self.max().is_some_and(|m| m >= n)
    }

    /// Whether some certified value is at most `n`.
    pub fn at_most(&self, n: u64) -> bool {
        self.min().is_some_and(|m| m <= n)
    }

    /// Whether a value of parity `p` (0 even, 1 odd) is certified.
    pub fn parity(&self, p: u8) -> bool {
        self.lines.iter().any(|l| l.clock % 2 == u64::from(p))
    }

    /// The certified line for value `k`, written out (a line extended by the cycle, replayed
    /// again), unless the extension would be longer than [`MAX_EXTENSION_PLIES`].
    pub fn line_for(&self, k: u64) -> Option<CertifiedLine> {
        let (base, turns) = self.base_for(k)?;
        if turns == 0 {
            return Some(base.clone());
        }
        let cycle = self.cycle.as_ref()?;
        if turns * cycle.moves.len() as u64 > MAX_EXTENSION_PLIES {
            return None;
        }
        let mut moves = base.moves.clone();
        for _ in 0..turns {
            moves.extend(cycle.moves.iter().copied());
        }
        let san = verify::replay_line(&Position::initial(), &moves, &base.end).ok()?;
        Some(CertifiedLine {
            moves,
            san,
            clock: k,
            end: base.end.clone(),
            source: base.source.clone(),
        })
    }

    /// A certified line with clock at least `n` (the smallest such value written out).
    pub fn line_at_least(&self, n: u64) -> Option<CertifiedLine> {
        if let Some(l) = self.lines.iter().find(|l| l.clock >= n) {
            return Some(l.clone());
        }
        let len = self.cycle_plies()?;
        let c = self.cycle.as_ref()?;
        let base = self
            .lines
            .iter()
            .filter(|l| l.end == c.at)
            .max_by_key(|l| l.clock)?;
        let turns = (n - base.clock).div_ceil(len);
        self.line_for(base.clock + turns * len)
    }

    /// A certified line with clock at most `n` (the smallest value).
    pub fn line_at_most(&self, n: u64) -> Option<CertifiedLine> {
        self.lines.first().filter(|l| l.clock <= n).cloned()
    }
}

/// A game the user gives: moves from the initial array, with a name for messages.
#[derive(Clone, Debug)]
pub struct GivenGame {
    /// Where the game comes from (`file.pgn`, `file.pgn game 2`).
    pub name: String,
    /// Its moves from the initial array.
    pub moves: Vec<Move>,
}

/// Why a given game cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GivenGameError {
    /// The game's name.
    pub name: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for GivenGameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.name, self.message)
    }
}

impl std::error::Error for GivenGameError {}

/// The clock a game gives its last position: the plies since its last reset.
fn clock_of_game(moves: &[Move], convention: Convention) -> u64 {
    moves
        .iter()
        .rev()
        .take_while(|m| !convention.resets(m))
        .count() as u64
}

/// The move number and side of ply `index` (0-based) of a game from the initial array, as a
/// person reads it: `12.` or `12...`.
fn move_label(index: usize) -> String {
    let number = index / 2 + 1;
    if index.is_multiple_of(2) {
        format!("{number}.")
    } else {
        format!("{number}...")
    }
}

/// Checks that `game` is legal from the initial array and ends in the position of `input`
/// (placement, side to move, and the castling rights and e.p. square where the FEN gives them),
/// and returns it as a certified line. The error says at which move the game is illegal, or
/// which field of its last position differs.
pub fn check_given(
    game: &GivenGame,
    input: &PositionInput,
    convention: Convention,
) -> Result<CertifiedLine, GivenGameError> {
    let fail = |message: String| GivenGameError {
        name: game.name.clone(),
        message,
    };
    let mut pos = Chess::default();
    let mut san = Vec::with_capacity(game.moves.len());
    for (i, &mv) in game.moves.iter().enumerate() {
        if !pos.is_legal(mv) {
            return Err(fail(format!(
                "move {} ({}) is not legal in {}",
                move_label(i),
                mv.to_uci(CastlingMode::Standard),
                Position::from_chess(&pos).fen4()
            )));
        }
        san.push(shakmaty::san::SanPlus::from_move(pos.clone(), mv).to_string());
        pos.play_unchecked(mv);
    }
    let end = Position::from_chess(&pos);
    let mut differs = Vec::new();
    if end.board != input.board {
        differs.push(format!(
            "the placement differs (the game's: {})",
            end.board.board_fen()
        ));
    }
    if end.turn != input.turn {
        differs.push(format!(
            "the side to move differs (the game's: {})",
            end.turn.fold_wb("White", "Black")
        ));
    }
    if let Field::Known(rights) = input.castling
        && rights != end.castling
    {
        differs.push(format!(
            "the castling rights differ (the game's: {}, the position's: {})",
            crate::position::castling_string(end.castling),
            crate::position::castling_string(rights)
        ));
    }
    if let Field::Known(ep) = input.ep_square {
        // A stated e.p. square that no pawn can take still needs the double step last.
        let stated_ok = match (ep, end.ep_square) {
            (a, b) if a == b => true,
            (Some(sq), None) => {
                matches!(game.moves.last(), Some(Move::Normal { role: Role::Pawn, from, to, .. })
                if from.distance(*to) == 2 && from.file() == sq.file())
            }
            _ => false,
        };
        if !stated_ok {
            let name = |e: Option<shakmaty::Square>| e.map_or("-".to_string(), |s| s.to_string());
            differs.push(format!(
                "the e.p. square differs (the game's: {}, the position's: {})",
                name(end.ep_square),
                name(ep)
            ));
        }
    }
    if !differs.is_empty() {
        return Err(fail(format!(
            "the game ends in {}, not in the position: {}",
            end.fen4(),
            differs.join("; ")
        )));
    }
    // The end as the FEN states it (a stated e.p. square is kept).
    let end = Position {
        ep_square: input.ep_square.known().unwrap_or(end.ep_square),
        ..end
    };
    Ok(CertifiedLine {
        clock: clock_of_game(&game.moves, convention),
        moves: game.moves.clone(),
        san,
        end,
        source: GameSource::Given(game.name.clone()),
    })
}

/// What a question needs certified.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Wanted {
    /// The smallest value (the nearest origins' lines, nearest first).
    Min,
    /// The smallest value of this parity (0 even, 1 odd).
    Parity(u8),
    /// The largest value, when the maximum is bounded.
    Max,
    /// Exactly this value.
    Value(u64),
    /// Exactly this value, in a game of exactly this many plies (a given fullmove number).
    ValueAt(u64, u64),
    /// Some value at least this.
    AtLeast(u64),
    /// Some value at most this.
    AtMost(u64),
    /// Any value (the position is reached at all).
    Any,
}

/// How many witness lines to the nearest origins are tried for [`Wanted::Min`] and
/// [`Wanted::Parity`].
const NEAREST_TRIED: usize = 6;

/// Longest proof game the proof-game search tries for a line's start.
const PROOF_GAME_PLIES: u32 = 24;

/// Finds games that reach the starts of witness lines, within one time budget.
struct Reacher<'a> {
    budget: &'a ProofBudget,
    /// When the whole certification stops.
    deadline: Instant,
    /// Positions of given games, with the moves that reach them (FEN fields 1–4).
    known: HashMap<String, Vec<Move>>,
    /// Starts tried before, with what was found.
    tried: HashMap<String, Option<Vec<Move>>>,
}

impl Reacher<'_> {
    fn out_of_time(&self) -> bool {
        Instant::now() >= self.deadline
    }

    /// A game from the initial array to `start`, replayed, if one is found in time.
    fn reach(&mut self, start: &Position) -> Option<Vec<Move>> {
        if start.is_initial() {
            return Some(Vec::new());
        }
        let key = start.fen4();
        if let Some(found) = self.tried.get(&key) {
            return found.clone();
        }
        if let Some(moves) = self.known.get(&key) {
            return Some(moves.clone());
        }
        if self.out_of_time() {
            return None;
        }
        let found = self.search(start);
        self.tried.insert(key, found.clone());
        found
    }

    fn search(&self, start: &Position) -> Option<Vec<Move>> {
        let target = Target {
            board: start.board.clone(),
            turn: start.turn,
            castling: Some(start.castling),
            ep_square: Some(start.ep_square),
        };
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        let pg_budget = proofgame::Budget {
            max_nodes: self.budget.max_nodes,
            deadline: Some(Instant::now() + remaining),
            max_bytes: self.budget.max_bytes,
        };
        // A short proof game first (a fraction of the time), then the game constructor.
        let slice = Instant::now() + remaining / 4;
        let short = proofgame::Budget {
            deadline: Some(slice),
            ..pg_budget
        };
        if let Some(moves) = proofgame::find_proof_game(&target, PROOF_GAME_PLIES, &short)
            && verify::replay_line(&Position::initial(), &moves, start).is_ok()
        {
            return Some(moves);
        }
        let budget = construct::Budget {
            deadline: Some(self.deadline),
            max_nodes: u64::MAX,
        };
        let moves = construct::construct_game(start, &budget)?;
        verify::replay_line(&Position::initial(), &moves, start)
            .is_ok()
            .then_some(moves)
    }
}

/// Joins a game to `start` with a witness line and replays the whole from the initial array.
fn join(prefix: Vec<Move>, line: &Certificate, end: &Position) -> Option<CertifiedLine> {
    let mut moves = prefix;
    moves.extend(line.moves.iter().copied());
    let san = verify::replay_line(&Position::initial(), &moves, end).ok()?;
    let source = match line.evidence {
        OriginEvidence::InitialArray | OriginEvidence::FromInitialArray => GameSource::InitialArray,
        OriginEvidence::RetractionChain { .. } => GameSource::Found,
    };
    Some(CertifiedLine {
        moves,
        san,
        clock: line.clock,
        end: end.clone(),
        source,
    })
}

/// The position a witness line ends in: the one of `input`'s candidates it replays to.
fn line_end(line: &Certificate, input: &PositionInput) -> Option<Position> {
    input
        .candidates()
        .into_iter()
        .find(|p| verify::replay_line(&line.start, &line.moves, p).is_ok())
}

/// Tries `lines` in turn: the first whose start a game reaches is joined to it and added
/// (every one such with `stop_at_first` false); those not reached are noted.
fn try_lines(
    reacher: &mut Reacher,
    input: &PositionInput,
    lines: Vec<Certificate>,
    proofs: &mut Proofs,
    stop_at_first: bool,
) {
    for line in lines {
        if proofs.lines.iter().any(|l| l.clock == line.clock) {
            if stop_at_first {
                return;
            }
            continue;
        }
        let Some(end) = line_end(&line, input) else {
            continue;
        };
        match reacher
            .reach(&line.start)
            .and_then(|p| join(p, &line, &end))
        {
            Some(certified) => {
                proofs.add(certified);
                if stop_at_first {
                    return;
                }
            }
            None => {
                if !proofs
                    .unreached
                    .iter()
                    .any(|u| u.start == line.start.fen4() && u.clock == line.clock)
                {
                    proofs.unreached.push(Unreached {
                        clock: line.clock,
                        start: line.start.fen4(),
                    });
                }
                if reacher.out_of_time() {
                    return;
                }
            }
        }
    }
}

/// Certifies what `wanted` asks of the clock solver's answer for `input`: for each wanted item,
/// witness lines are tried in turn until a game reaches one's start. `given` are lines
/// certified already (the user's games, checked by [`check_given`]); their positions also
/// serve as reached starts. Every line returned was replayed from the initial array.
pub fn certify(
    clock: &ClockAnswer,
    input: &PositionInput,
    wanted: &[Wanted],
    given: &[CertifiedLine],
    budget: &ProofBudget,
) -> Proofs {
    let convention = clock.rules.convention();
    let mut proofs = Proofs::default();
    for line in given {
        proofs.add(line.clone());
    }
    let own = Instant::now() + budget.time;
    let deadline = budget.deadline.map_or(own, |d| d.min(own));
    let mut known = HashMap::new();
    for line in given {
        let mut pos = Chess::default();
        for (i, &mv) in line.moves.iter().enumerate() {
            pos.play_unchecked(mv);
            known
                .entry(Position::from_chess(&pos).fen4())
                .or_insert_with(|| line.moves[..=i].to_vec());
        }
    }
    let mut reacher = Reacher {
        budget,
        deadline,
        known,
        tried: HashMap::new(),
    };
    for &want in wanted {
        match want {
            Wanted::Min | Wanted::AtMost(_) | Wanted::Any => {
                if want == Wanted::Any && !proofs.lines.is_empty() {
                    continue;
                }
                if let Wanted::AtMost(n) = want
                    && (proofs.at_most(n) || clock.min_lower_bound > n)
                {
                    continue;
                }
                let lines = clock.nearest_lines(convention, None, NEAREST_TRIED);
                try_lines(&mut reacher, input, lines, &mut proofs, true);
            }
            Wanted::Parity(p) => {
                if !proofs.parity(p) {
                    let lines = clock.nearest_lines(convention, Some(p), NEAREST_TRIED);
                    try_lines(&mut reacher, input, lines, &mut proofs, true);
                }
            }
            Wanted::Max => {
                if matches!(clock.max, MaxClock::Bounded(_))
                    && let Some(l) = clock.longest.clone()
                {
                    try_lines(&mut reacher, input, vec![l], &mut proofs, true);
                }
            }
            Wanted::Value(k) => {
                add_cycle(&mut proofs, convention);
                if !proofs.certifies(k)
                    && let Some(l) = clock.certificate_for(k, convention)
                {
                    try_lines(&mut reacher, input, vec![l], &mut proofs, true);
                }
            }
            Wanted::ValueAt(k, plies) => {
                if proofs.line_with(k, plies, convention).is_none() {
                    let mut lines: Vec<Certificate> =
                        clock.certificate_for(k, convention).into_iter().collect();
                    lines.extend(
                        clock
                            .nearest_lines(convention, Some((k % 2) as u8), NEAREST_TRIED)
                            .into_iter()
                            .filter(|l| l.clock == k),
                    );
                    for line in lines {
                        if line.moves.len() as u64 > plies {
                            continue;
                        }
                        let Some(end) = line_end(&line, input) else {
                            continue;
                        };
                        let Some(joined) = reacher
                            .reach(&line.start)
                            .and_then(|p| join(p, &line, &end))
                        else {
                            if reacher.out_of_time() {
                                break;
                            }
                            continue;
                        };
                        let fits = padded(&joined, plies, convention).is_some();
                        proofs.add(joined);
                        if fits {
                            break;
                        }
                    }
                }
            }
            Wanted::AtLeast(n) => {
                add_cycle(&mut proofs, convention);
                if !proofs.at_least(n) {
                    let mut lines = Vec::new();
                    if let Some(l) = clock.longest.clone().filter(|l| l.clock >= n) {
                        lines.push(l);
                    }
                    for k in [n, n + 1] {
                        if let Some(l) = clock.certificate_for(k, convention) {
                            lines.push(l);
                        }
                    }
                    try_lines(&mut reacher, input, lines, &mut proofs, true);
                }
            }
        }
    }
    add_cycle(&mut proofs, convention);
    proofs
}

/// Looks for a cycle at the end of a certified line, if there is none yet.
fn add_cycle(proofs: &mut Proofs, convention: Convention) {
    if proofs.cycle.is_some() {
        return;
    }
    let mut ends: Vec<&Position> = Vec::new();
    for l in &proofs.lines {
        if !ends.contains(&&l.end) {
            ends.push(&l.end);
        }
    }
    let found = ends.into_iter().find_map(|e| cycle_at(e, convention));
    proofs.cycle = found;
}

/// Two moves of each side that lead from `pos` back to it without a reset (and without
/// losing a castling right): the first found, replayed.
pub fn cycle_at(pos: &Position, convention: Convention) -> Option<Cycle> {
    let start = pos.to_chess()?;
    // A stated e.p. square does not come back.
    if pos.ep_square.is_some() {
        return None;
    }
    let there = |c: &Chess| -> Vec<Move> {
        let rights = c.castles().castling_rights();
        let king_frozen = c.castles().has_color(c.turn());
        c.legal_moves()
            .into_iter()
            .filter(|m| {
                let frozen = m.from().is_none_or(|f| rights.contains(f))
                    || (m.role() == Role::King && king_frozen);
                !(convention.resets(m) || m.is_castle() || frozen)
            })
            .collect()
    };
    let back = |m: &Move| -> Option<Move> {
        match *m {
            Move::Normal { role, from, to, .. } => Some(Move::Normal {
                role,
                from: to,
                to: from,
                capture: None,
                promotion: None,
            }),
            _ => None,
        }
    };
    for m1 in there(&start) {
        let mut p1 = start.clone();
        p1.play_unchecked(m1);
        let b1 = back(&m1)?;
        for m2 in there(&p1) {
            let mut p2 = p1.clone();
            p2.play_unchecked(m2);
            if !p2.is_legal(b1) {
                continue;
            }
            let mut p3 = p2.clone();
            p3.play_unchecked(b1);
            let Some(b2) = back(&m2) else { continue };
            if !p3.is_legal(b2) {
                continue;
            }
            let moves = vec![m1, m2, b1, b2];
            if let Ok(san) = verify::replay_line(pos, &moves, pos) {
                return Some(Cycle {
                    at: pos.clone(),
                    moves,
                    san,
                });
            }
        }
    }
    None
}

/// A witness line that starts at the initial array (or whose reset is played from it) as the
/// whole game it is, replayed.
pub fn from_initial(line: &Certificate) -> Option<CertifiedLine> {
    if !line.start.is_initial() {
        return None;
    }
    let (end, san) = verify::replay_from_initial(&line.moves).ok()?;
    Some(CertifiedLine {
        moves: line.moves.clone(),
        san,
        clock: line.clock,
        end,
        source: GameSource::InitialArray,
    })
}

/// The knights' moves there and back, from the initial array, that lengthen a game by four
/// plies without changing anything after them.
const KNIGHT_DANCE: [&str; 4] = ["g1f3", "g8f6", "f3g1", "f6g8"];

/// The knights' dance as moves.
fn knight_dance() -> Option<Vec<Move>> {
    let mut pos = Chess::default();
    let mut moves = Vec::new();
    for uci in KNIGHT_DANCE {
        let mv = uci
            .parse::<shakmaty::uci::UciMove>()
            .ok()?
            .to_move(&pos)
            .ok()?;
        pos.play_unchecked(mv);
        moves.push(mv);
    }
    Some(moves)
}

/// `line` lengthened to exactly `plies` plies, replayed: the knights going out and back at the
/// start add four plies each time, and where two more are needed, each side takes a piece
/// round a triangle (three moves back to its square) somewhere before the line's last reset.
/// None when that cannot give `plies`.
pub fn padded(line: &CertifiedLine, plies: u64, convention: Convention) -> Option<CertifiedLine> {
    let have = line.plies();
    if have == plies {
        return Some(line.clone());
    }
    if have > plies || plies - have > MAX_EXTENSION_PLIES || !(plies - have).is_multiple_of(2) {
        return None;
    }
    let mut moves = line.moves.clone();
    let mut extra = plies - have;
    if extra % 4 == 2 {
        // Before the last reset, so that the clock stays.
        let before_reset = moves.len().saturating_sub(line.clock as usize + 1);
        let mut pos = Chess::default();
        let mut found = None;
        for (i, &mv) in moves.iter().enumerate().take(before_reset + 1) {
            if let Some(triangles) = triangles_at(&pos, convention) {
                found = Some((i, triangles));
                break;
            }
            pos.play_unchecked(mv);
        }
        let (i, cycle) = found?;
        moves.splice(i..i, cycle);
        extra -= 6;
    }
    let dance = knight_dance()?;
    let mut padded = Vec::with_capacity(plies as usize);
    for _ in 0..extra / 4 {
        padded.extend(dance.iter().copied());
    }
    padded.extend(moves);
    let san = verify::replay_line(&Position::initial(), &padded, &line.end).ok()?;
    Some(CertifiedLine {
        moves: padded,
        san,
        ..line.clone()
    })
}

/// Six plies from `pos` back to it: each side takes one piece round a triangle of squares
/// (a king, queen, rook or bishop: three moves), with no capture, pawn move or lost right.
fn triangles_at(pos: &Chess, convention: Convention) -> Option<Vec<Move>> {
    let start = Position::from_chess(pos);
    if start.ep_square.is_some() {
        return None;
    }
    let board = pos.board();
    let occupied = board.occupied();
    let rights = pos.castles().castling_rights();
    let triangles = |color: shakmaty::Color| -> Vec<[Move; 3]> {
        let mut out = Vec::new();
        for a in board.by_color(color) & !board.pawns() & !board.knights() {
            if rights.contains(a) {
                continue;
            }
            let Some(piece) = board.piece_at(a) else {
                continue;
            };
            if piece.role == Role::King && pos.castles().has_color(color) {
                continue;
            }
            let reach = |from: shakmaty::Square, occ: shakmaty::Bitboard| {
                shakmaty::attacks::attacks(from, piece, occ) & !occ
            };
            let without = occupied.without(a);
            for b in reach(a, occupied) {
                for c in reach(b, without.with(b)) {
                    if c == a || !reach(c, without.with(c)).contains(a) {
                        continue;
                    }
                    let step = |from, to| Move::Normal {
                        role: piece.role,
                        from,
                        to,
                        capture: None,
                        promotion: None,
                    };
                    out.push([step(a, b), step(b, c), step(c, a)]);
                    if out.len() >= 64 {
                        return out;
                    }
                }
            }
        }
        out
    };
    let (ours, theirs) = (triangles(pos.turn()), triangles(!pos.turn()));
    for w in &ours {
        for b in &theirs {
            let moves = vec![w[0], b[0], w[1], b[1], w[2], b[2]];
            if moves.iter().any(|m| convention.resets(m)) {
                continue;
            }
            if verify::replay_line(&start, &moves, &start).is_ok() {
                return Some(moves);
            }
        }
    }
    None
}
