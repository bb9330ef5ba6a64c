//! Replays a game and reports its no-progress runs: where the halfmove clock reached 1, where a
//! draw could first be claimed under FIDE 9.3.1 and 9.3.2, where FIDE 9.6.2 ended the game, and
//! whether the recorded result fits.
//!
//! Plies: ply `p` is the position after `p` half-moves from the game's first position (ply 0).
//! Every ply carries a [`MoveLabel`], the move that produced that position (`113.Ng5`,
//! `56...Kd7`). When a game starts from a FEN whose clock is `c > 0`, the count began `c` plies
//! before the recorded game: those positions get negative plies, and their labels carry the move
//! number but no SAN (shown as `NA`).
//!
//! The thresholds are FIDE's (99/100 for the claims, 150 for the automatic draw). The
//! [`Convention`] only decides which moves reset the count: captures and pawn moves always,
//! castling too under the retro (Piran) convention.
//!
//! Pure logic: no I/O.

use std::fmt;

use serde::{Serialize, Serializer};
use shakmaty::fen::Fen;
use shakmaty::san::SanPlus;
use shakmaty::{Chess, Color, EnPassantMode, Move, Position};

use crate::pgn::{Game, GameResult};
use crate::rules::Convention;

/// Options of [`analyse_game`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReplayOptions {
    /// Which moves reset the count.
    pub convention: Convention,
    /// Runs whose clock stays below this are left out of [`GameReport::runs`]
    /// (default 100: the runs in which a draw could be claimed; 0 lists every run).
    pub min_reported_clock: u32,
}

impl Default for ReplayOptions {
    fn default() -> ReplayOptions {
        ReplayOptions {
            convention: Convention::Fide,
            min_reported_clock: 100,
        }
    }
}

/// A side (serialized as `"white"` / `"black"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    /// White.
    White,
    /// Black.
    Black,
}

impl From<Color> for Side {
    fn from(c: Color) -> Side {
        match c {
            Color::White => Side::White,
            Color::Black => Side::Black,
        }
    }
}

/// The move that produced a position, as a reader writes it: `113.Ng5`, `56...Kd7`.
///
/// Serialized as that string.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct MoveLabel {
    /// The fullmove number of the move. It is 0 (`0...NA`) for the initial array, which no move
    /// produced, and can be 0 or negative for implied moves before a FEN whose clock exceeds
    /// what its fullmove number allows.
    pub fullmove: i64,
    /// Who made the move.
    pub side: Side,
    /// The move in SAN with check/mate suffix; `None` for a move before the recorded game,
    /// implied by the FEN's clock (displayed as `NA`).
    pub san: Option<String>,
}

impl MoveLabel {
    /// The label of the move with absolute index `index` (0 = White's first move of the game
    /// of fullmove 1), with the given SAN.
    fn at_index(index: i64, san: Option<String>) -> MoveLabel {
        MoveLabel {
            fullmove: index.div_euclid(2) + 1,
            side: if index.rem_euclid(2) == 0 {
                Side::White
            } else {
                Side::Black
            },
            san,
        }
    }
}

impl fmt::Display for MoveLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dots = match self.side {
            Side::White => ".",
            Side::Black => "...",
        };
        write!(
            f,
            "{}{}{}",
            self.fullmove,
            dots,
            self.san.as_deref().unwrap_or("NA")
        )
    }
}

impl Serialize for MoveLabel {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

/// One maximal stretch of positions without a resetting move between them.
///
/// Each `*_ply` (see the module docs for negative plies) comes with the `*_label` of the move that
/// produced that position. The clock at ply `p` of the run is `p - start_ply`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NoProgressRun {
    /// The position where the count starts (clock 0): after a resetting move, or the game's
    /// start with clock 0, or `-clock` for a FEN that starts with `clock > 0`.
    pub start_ply: i64,
    /// The move that produced the start position (the resetting move).
    pub start_label: MoveLabel,
    /// The position where the clock reached 1.
    pub first_ply: Option<i64>,
    /// The move that produced it.
    pub first_label: Option<MoveLabel>,
    /// The first position of the recorded game in which the player to move could claim under
    /// FIDE 9.3.1: clock >= 99 and a legal move that does not reset the count.
    pub claim_9_3_1_ply: Option<i64>,
    /// The move that produced it.
    pub claim_9_3_1_label: Option<MoveLabel>,
    /// A move the claimant can write down: the move played next in the game if it qualifies,
    /// otherwise the first qualifying legal move.
    pub claim_9_3_1_move: Option<MoveLabel>,
    /// The first position with clock >= 100 (FIDE 9.3.2 claim).
    pub claim_9_3_2_ply: Option<i64>,
    /// The move that produced it.
    pub claim_9_3_2_label: Option<MoveLabel>,
    /// The first position with clock >= 150, checkmate or not.
    pub reached_150_ply: Option<i64>,
    /// The move that produced it.
    pub reached_150_label: Option<MoveLabel>,
    /// The first position with clock >= 150 whose move was not checkmate: FIDE 9.6.2 ends the
    /// game there.
    pub over_9_6_2_ply: Option<i64>,
    /// The move that produced it.
    pub over_9_6_2_label: Option<MoveLabel>,
    /// The last position of the run.
    pub end_ply: i64,
    /// The move that produced it.
    pub end_label: MoveLabel,
    /// The clock at the last position, the largest of the run.
    pub max_clock: u32,
    /// The resetting move that ended the run; `None` when the game ended first.
    pub ended_by: Option<MoveLabel>,
}

impl NoProgressRun {
    /// The clock at ply `ply` of this run.
    pub fn clock_at(&self, ply: i64) -> i64 {
        ply - self.start_ply
    }
}

impl fmt::Display for NoProgressRun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.first_label {
            Some(first) => write!(
                f,
                "no-progress run from {first} (clock 1) to {} (clock {})",
                self.end_label, self.max_clock
            )?,
            None => write!(f, "empty run at {} (clock 0)", self.end_label)?,
        }
        match &self.ended_by {
            Some(m) => write!(f, ", ended by {m}")?,
            None => f.write_str(", until the end of the game")?,
        }
        if let (Some(ply), Some(label), Some(mv)) = (
            self.claim_9_3_1_ply,
            &self.claim_9_3_1_label,
            &self.claim_9_3_1_move,
        ) {
            let clock = self.clock_at(ply);
            if ply == 0 && clock > 99 {
                write!(
                    f,
                    "\n    9.3.1 claim possible from the game's first position, after {label} \
                     (clock {clock}; earlier positions are not recorded), by writing {mv}"
                )?;
            } else {
                write!(
                    f,
                    "\n    9.3.1 claim first possible after {label} (clock {clock}) by writing {mv}"
                )?;
            }
        }
        if let Some(label) = &self.claim_9_3_2_label {
            write!(f, "\n    9.3.2 claim possible from {label} (clock 100)")?;
        }
        match (&self.reached_150_label, &self.over_9_6_2_label) {
            (_, Some(label)) => write!(f, "\n    9.6.2: game drawn after {label} (clock 150)")?,
            (Some(label), None) => write!(
                f,
                "\n    clock 150 reached by the checkmate {label}: the checkmate stands"
            )?,
            (None, None) => {}
        }
        Ok(())
    }
}

/// How the final position ends the game by itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Ending {
    /// The side to move is checkmated.
    Checkmate,
    /// The side to move is stalemated.
    Stalemate,
}

/// Something about the game's record that does not fit the rules; reported, never fatal.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "note", rename_all = "snake_case")]
pub enum GameNote {
    /// The FEN's clock is larger than its fullmove number allows
    /// (clock <= 2·(fullmove − 1), +1 with Black to move).
    FenClockBeyondFullmoveBound {
        /// The FEN's clock.
        clock: u32,
        /// The largest clock the fullmove number allows.
        bound: u64,
    },
    /// Moves were recorded after FIDE 9.6.2 had ended the game.
    MovesAfterAutomaticDraw {
        /// The position where the game ended.
        ply: i64,
        /// The move that produced it.
        label: MoveLabel,
        /// How many recorded plies follow it.
        moves_after: u64,
    },
    /// A decisive result although FIDE 9.6.2 had drawn the game.
    DecisiveResultAfterAutomaticDraw {
        /// The recorded result.
        result: GameResult,
        /// The position where the game was drawn.
        ply: i64,
        /// The move that produced it.
        label: MoveLabel,
    },
    /// The final position is checkmate but the result says otherwise.
    ResultContradictsCheckmate {
        /// The recorded result.
        result: GameResult,
        /// The side that gave checkmate.
        winner: Side,
    },
    /// The final position is stalemate but the result is decisive.
    DecisiveResultAfterStalemate {
        /// The recorded result.
        result: GameResult,
    },
    /// The movetext has no result token.
    MissingResult,
}

impl fmt::Display for GameNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GameNote::FenClockBeyondFullmoveBound { clock, bound } => write!(
                f,
                "the FEN's halfmove clock {clock} exceeds {bound}, the most its fullmove number allows"
            ),
            GameNote::MovesAfterAutomaticDraw {
                label, moves_after, ..
            } => write!(
                f,
                "{moves_after} half-move(s) recorded after {label}, where FIDE 9.6.2 had ended the game"
            ),
            GameNote::DecisiveResultAfterAutomaticDraw { result, label, .. } => write!(
                f,
                "result {result} although FIDE 9.6.2 drew the game after {label}"
            ),
            GameNote::ResultContradictsCheckmate { result, winner } => {
                let w = match winner {
                    Side::White => "White",
                    Side::Black => "Black",
                };
                write!(
                    f,
                    "result {result} although the final position is checkmate by {w}"
                )
            }
            GameNote::DecisiveResultAfterStalemate { result } => write!(
                f,
                "result {result} although the final position is stalemate"
            ),
            GameNote::MissingResult => f.write_str("the movetext has no result token"),
        }
    }
}

/// The report on one game.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct GameReport {
    /// The game's number in its file, 1-based.
    pub game: usize,
    /// The `White` tag.
    pub white: Option<String>,
    /// The `Black` tag.
    pub black: Option<String>,
    /// The convention the count follows.
    pub convention: Convention,
    /// Half-moves played in the recorded game.
    pub plies: u64,
    /// The clock at the game's first position (the FEN's, else 0).
    pub start_clock: u32,
    /// The largest clock of any position of the game.
    pub max_clock: u32,
    /// The clock at the final position.
    pub final_clock: u32,
    /// The final position as FEN (e.p. square only when an e.p. capture is legal), whose clock
    /// field is the count under the convention.
    pub final_fen: String,
    /// Checkmate or stalemate in the final position.
    pub ending: Option<Ending>,
    /// The recorded result.
    pub result: Option<GameResult>,
    /// The no-progress runs whose clock reached [`ReplayOptions::min_reported_clock`].
    pub runs: Vec<NoProgressRun>,
    /// Where the record does not fit the rules.
    pub notes: Vec<GameNote>,
}

impl fmt::Display for GameReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "game {}", self.game)?;
        if self.white.is_some() || self.black.is_some() {
            write!(
                f,
                " ({} - {})",
                self.white.as_deref().unwrap_or("?"),
                self.black.as_deref().unwrap_or("?")
            )?;
        }
        write!(
            f,
            ": {} half-moves, result {}, max clock {}, {}",
            self.plies,
            self.result.map_or("none", GameResult::as_str),
            self.max_clock,
            self.convention
        )?;
        for run in &self.runs {
            write!(f, "\n  {run}")?;
        }
        for note in &self.notes {
            write!(f, "\n  note: {note}")?;
        }
        match self.ending {
            Some(Ending::Checkmate) => write!(f, "\n  final position: checkmate")?,
            Some(Ending::Stalemate) => write!(f, "\n  final position: stalemate")?,
            None => {}
        }
        write!(f, "\n  final FEN: {}", self.final_fen)
    }
}

/// A game whose moves cannot be replayed (only possible for a [`Game`] built by hand: the PGN
/// reader checks every move).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// The game's number in its file.
    pub game: usize,
    /// The ply the illegal move would produce.
    pub ply: u64,
    /// The move as written.
    pub san: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "illegal move \"{}\" at ply {}, game {}",
            self.san, self.ply, self.game
        )
    }
}

impl std::error::Error for ReplayError {}

/// A run while it is being built.
struct OpenRun {
    start_ply: i64,
    first: Option<i64>,
    claim_9_3_1: Option<(i64, MoveLabel)>,
    claim_9_3_2: Option<i64>,
    reached_150: Option<i64>,
    over_9_6_2: Option<i64>,
}

impl OpenRun {
    fn new(start_ply: i64) -> OpenRun {
        OpenRun {
            start_ply,
            first: None,
            claim_9_3_1: None,
            claim_9_3_2: None,
            reached_150: None,
            over_9_6_2: None,
        }
    }
}

/// Replays `game` and reports its no-progress runs, maximum clock, final FEN and notes.
pub fn analyse_game(game: &Game, options: &ReplayOptions) -> Result<GameReport, ReplayError> {
    let convention = options.convention;
    let start = &game.start;
    let start_clock = start.halfmoves();
    // Absolute index of the move that would be played from the first position.
    let base = 2 * (i64::from(start.fullmoves().get()) - 1) + i64::from(start.turn().is_black());
    // SAN (with suffix) of each move; index p-1 for the move producing ply p.
    let mut sans: Vec<String> = Vec::with_capacity(game.moves.len());
    let label = |sans: &[String], ply: i64| -> MoveLabel {
        let san = usize::try_from(ply - 1)
            .ok()
            .and_then(|i| sans.get(i).cloned());
        MoveLabel::at_index(base + ply - 1, san)
    };

    let mut pos = start.clone();
    let mut clock = start_clock;
    let mut max_clock = clock;
    let mut runs = Vec::new();
    let mut run = OpenRun::new(-i64::from(clock));
    // Marks already passed before the recorded game.
    let c0 = i64::from(clock);
    if c0 >= 1 {
        run.first = Some(run.start_ply + 1);
    }
    if c0 >= 100 {
        run.claim_9_3_2 = Some(run.start_ply + 100);
    }
    if c0 >= 150 {
        let q = run.start_ply + 150;
        run.reached_150 = Some(q);
        // Before ply 0 the game went on, so the move was no checkmate.
        if q < 0 || !pos.is_checkmate() {
            run.over_9_6_2 = Some(q);
        }
    }
    let next_move = |p: usize| game.moves.get(p).map(|m| m.mv);
    if clock >= 99 {
        run.claim_9_3_1 = claim_move(&pos, convention, next_move(0)).map(|m| (0, m));
    }

    for (i, gm) in game.moves.iter().enumerate() {
        let ply = i as i64 + 1;
        let mv = gm.mv;
        if !pos.is_legal(mv) {
            return Err(ReplayError {
                game: game.number,
                ply: ply as u64,
                san: gm.san.to_string(),
            });
        }
        let resets = convention.resets(&mv);
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, mv).to_string();
        sans.push(san);
        if resets {
            let closed = std::mem::replace(&mut run, OpenRun::new(ply));
            runs.push(close_run(
                closed,
                ply - 1,
                Some(label(&sans, ply)),
                &sans,
                &label,
            ));
            clock = 0;
        } else {
            clock = clock.saturating_add(1);
            match clock {
                1 => run.first = Some(ply),
                100 => run.claim_9_3_2 = Some(ply),
                150 => {
                    run.reached_150 = Some(ply);
                    if !pos.is_checkmate() {
                        run.over_9_6_2 = Some(ply);
                    }
                }
                _ => {}
            }
        }
        max_clock = max_clock.max(clock);
        if clock >= 99 && run.claim_9_3_1.is_none() {
            run.claim_9_3_1 = claim_move(&pos, convention, next_move(i + 1)).map(|m| (ply, m));
        }
    }
    let plies = game.moves.len() as i64;
    runs.push(close_run(run, plies, None, &sans, &label));

    let ending = if pos.is_checkmate() {
        Some(Ending::Checkmate)
    } else if pos.is_stalemate() {
        Some(Ending::Stalemate)
    } else {
        None
    };
    let mut setup = pos.to_setup(EnPassantMode::Legal);
    setup.halfmoves = clock;
    let final_fen = Fen::try_from_setup(setup)
        .unwrap_or_else(|e| e.ignore())
        .to_string();

    let notes = notes(game, &runs, ending, plies, &pos);
    runs.retain(|r| r.max_clock >= options.min_reported_clock);

    Ok(GameReport {
        game: game.number,
        white: game.tag("White").map(str::to_string),
        black: game.tag("Black").map(str::to_string),
        convention,
        plies: plies as u64,
        start_clock,
        max_clock,
        final_clock: clock,
        final_fen,
        ending,
        result: game.result,
        runs,
        notes,
    })
}

/// A legal move in `pos` that keeps the count going (the FIDE 9.3.1 claim move), preferring
/// `played`, the move made next in the game. The label is that of the claim move.
fn claim_move(pos: &Chess, convention: Convention, played: Option<Move>) -> Option<MoveLabel> {
    let legal = pos.legal_moves();
    let mv = played
        .filter(|m| !convention.resets(m) && legal.contains(m))
        .or_else(|| legal.iter().find(|m| !convention.resets(m)).copied())?;
    let san = SanPlus::from_move(pos.clone(), mv).to_string();
    let index = 2 * (i64::from(pos.fullmoves().get()) - 1) + i64::from(pos.turn().is_black());
    Some(MoveLabel::at_index(index, Some(san)))
}

fn close_run(
    run: OpenRun,
    end_ply: i64,
    ended_by: Option<MoveLabel>,
    sans: &[String],
    label: &dyn Fn(&[String], i64) -> MoveLabel,
) -> NoProgressRun {
    let l = |p: Option<i64>| p.map(|p| label(sans, p));
    NoProgressRun {
        start_ply: run.start_ply,
        start_label: label(sans, run.start_ply),
        first_ply: run.first,
        first_label: l(run.first),
        claim_9_3_1_ply: run.claim_9_3_1.as_ref().map(|(p, _)| *p),
        claim_9_3_1_label: l(run.claim_9_3_1.as_ref().map(|(p, _)| *p)),
        claim_9_3_1_move: run.claim_9_3_1.map(|(_, m)| m),
        claim_9_3_2_ply: run.claim_9_3_2,
        claim_9_3_2_label: l(run.claim_9_3_2),
        reached_150_ply: run.reached_150,
        reached_150_label: l(run.reached_150),
        over_9_6_2_ply: run.over_9_6_2,
        over_9_6_2_label: l(run.over_9_6_2),
        end_ply,
        end_label: label(sans, end_ply),
        max_clock: u32::try_from(end_ply - run.start_ply).unwrap_or(u32::MAX),
        ended_by,
    }
}

fn notes(
    game: &Game,
    runs: &[NoProgressRun],
    ending: Option<Ending>,
    plies: i64,
    final_pos: &Chess,
) -> Vec<GameNote> {
    let mut notes = Vec::new();
    let start = &game.start;
    if game.from_fen {
        let bound =
            2 * (u64::from(start.fullmoves().get()) - 1) + u64::from(start.turn().is_black());
        if u64::from(start.halfmoves()) > bound {
            notes.push(GameNote::FenClockBeyondFullmoveBound {
                clock: start.halfmoves(),
                bound,
            });
        }
    }
    let drawn = runs
        .iter()
        .find_map(|r| Some((r.over_9_6_2_ply?, r.over_9_6_2_label.clone()?)));
    if let Some((ply, label)) = &drawn {
        let after = plies - (*ply).max(0);
        if after > 0 {
            notes.push(GameNote::MovesAfterAutomaticDraw {
                ply: *ply,
                label: label.clone(),
                moves_after: after as u64,
            });
        }
        if let Some(result) = game.result.filter(|r| r.is_decisive()) {
            notes.push(GameNote::DecisiveResultAfterAutomaticDraw {
                result,
                ply: *ply,
                label: label.clone(),
            });
        }
    }
    match (ending, game.result) {
        (_, None) => notes.push(GameNote::MissingResult),
        (Some(Ending::Checkmate), Some(result)) => {
            let winner = Side::from(!final_pos.turn());
            let expected = match winner {
                Side::White => GameResult::WhiteWins,
                Side::Black => GameResult::BlackWins,
            };
            if result != expected && result != GameResult::Unknown && drawn.is_none() {
                notes.push(GameNote::ResultContradictsCheckmate { result, winner });
            }
        }
        (Some(Ending::Stalemate), Some(result)) if result.is_decisive() && drawn.is_none() => {
            notes.push(GameNote::DecisiveResultAfterStalemate { result });
        }
        _ => {}
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pgn::parse_pgn;

    fn report_with(pgn: &str, options: ReplayOptions) -> GameReport {
        let game = parse_pgn(pgn)
            .into_iter()
            .next()
            .expect("one game")
            .expect("valid game");
        analyse_game(&game, &options).expect("replayable")
    }

    fn report(pgn: &str) -> GameReport {
        report_with(pgn, ReplayOptions::default())
    }

    fn all_runs() -> ReplayOptions {
        ReplayOptions {
            min_reported_clock: 0,
            ..ReplayOptions::default()
        }
    }

    fn labels(l: &Option<MoveLabel>) -> Option<String> {
        l.as_ref().map(ToString::to_string)
    }

    #[test]
    fn claims_from_a_fen_clock_of_97() {
        // Clock 97 with White to move: 60.Kb2 makes 98, 60...Kb7 makes 99, then White may
        // claim under 9.3.1 by writing 61.Kc2 and under 9.3.2 after it.
        let r = report(
            "[FEN \"1k6/8/8/8/8/8/8/K6R w - - 97 60\"]\n\
             60. Kb2 Kb7 61. Kc2 Kc7 62. Rh7+ 1/2-1/2",
        );
        assert_eq!(r.runs.len(), 1);
        let run = &r.runs[0];
        assert_eq!(run.start_ply, -97);
        assert_eq!(run.first_ply, Some(-96));
        // The move that made the clock 1 was White's 11th or Black's 11th: 97 plies before 60.
        assert_eq!(labels(&run.first_label).as_deref(), Some("11...NA"));
        assert_eq!(run.claim_9_3_1_ply, Some(2));
        assert_eq!(labels(&run.claim_9_3_1_label).as_deref(), Some("60...Kb7"));
        assert_eq!(labels(&run.claim_9_3_1_move).as_deref(), Some("61.Kc2"));
        assert_eq!(run.claim_9_3_2_ply, Some(3));
        assert_eq!(labels(&run.claim_9_3_2_label).as_deref(), Some("61.Kc2"));
        assert_eq!((run.end_ply, run.max_clock), (5, 102));
        assert_eq!(run.end_label.to_string(), "62.Rh7+");
        assert_eq!(run.ended_by, None);
        assert_eq!(run.over_9_6_2_ply, None);
        assert_eq!(r.max_clock, 102);
        assert_eq!(r.final_fen, "8/2k4R/8/8/8/8/2K5/8 b - - 102 62");
        assert!(r.notes.is_empty(), "{:?}", r.notes);
    }

    #[test]
    fn claim_9_3_1_needs_a_move_that_keeps_the_count() {
        // White's only moves are pawn moves (g1 is covered by the bishop on c5): no 9.3.1 claim
        // at clock 99; after 80.h3 the count starts again.
        let r = report_with(
            "[FEN \"k7/8/8/2b5/8/8/6PP/7K w - - 99 80\"]\n80. h3 Kb7 *",
            all_runs(),
        );
        assert_eq!(r.runs.len(), 2);
        let first = &r.runs[0];
        assert_eq!(
            (first.start_ply, first.end_ply, first.max_clock),
            (-99, 0, 99)
        );
        assert_eq!(first.claim_9_3_1_ply, None);
        assert_eq!(first.claim_9_3_2_ply, None);
        assert_eq!(labels(&first.ended_by).as_deref(), Some("80.h3"));
        let second = &r.runs[1];
        assert_eq!(second.start_ply, 1);
        assert_eq!(second.start_label.to_string(), "80.h3");
        assert_eq!(labels(&second.first_label).as_deref(), Some("80...Kb7"));
        assert_eq!(second.max_clock, 1);
        // The default options list only runs that reached 100.
        let default = report("[FEN \"k7/8/8/2b5/8/8/6PP/7K w - - 99 80\"]\n80. h3 Kb7 *");
        assert!(default.runs.is_empty());
    }

    #[test]
    fn automatic_draw_then_more_moves_and_a_decisive_result() {
        let r =
            report("[FEN \"1k6/8/8/8/8/8/8/K6R w - - 148 120\"]\n120. Kb2 Kb7 121. Kc2 Kc7 1-0");
        let run = &r.runs[0];
        assert_eq!(run.reached_150_ply, Some(2));
        assert_eq!(run.over_9_6_2_ply, Some(2));
        assert_eq!(labels(&run.over_9_6_2_label).as_deref(), Some("120...Kb7"));
        assert_eq!(run.claim_9_3_1_ply, Some(0));
        assert_eq!(run.claim_9_3_2_ply, Some(-48));
        assert_eq!(labels(&run.claim_9_3_2_label).as_deref(), Some("95...NA"));
        let label = MoveLabel {
            fullmove: 120,
            side: Side::Black,
            san: Some("Kb7".to_string()),
        };
        assert_eq!(
            r.notes,
            [
                GameNote::MovesAfterAutomaticDraw {
                    ply: 2,
                    label: label.clone(),
                    moves_after: 2
                },
                GameNote::DecisiveResultAfterAutomaticDraw {
                    result: GameResult::WhiteWins,
                    ply: 2,
                    label
                },
            ]
        );
    }

    #[test]
    fn checkmate_on_the_150th_ply_stands() {
        let r = report("[FEN \"7k/8/6K1/8/8/8/8/R7 w - - 149 100\"]\n100. Ra8# 1-0");
        let run = &r.runs[0];
        assert_eq!(run.reached_150_ply, Some(1));
        assert_eq!(labels(&run.reached_150_label).as_deref(), Some("100.Ra8#"));
        assert_eq!(run.over_9_6_2_ply, None);
        assert_eq!(r.ending, Some(Ending::Checkmate));
        assert!(r.notes.is_empty(), "{:?}", r.notes);
    }

    #[test]
    fn fen_clock_already_past_150() {
        let r = report("[FEN \"1k6/8/8/8/8/8/8/K6R w - - 151 100\"]\n100. Kb2 1/2-1/2");
        let run = &r.runs[0];
        assert_eq!(run.over_9_6_2_ply, Some(-1));
        assert_eq!(labels(&run.over_9_6_2_label).as_deref(), Some("99.NA"));
        assert_eq!(run.claim_9_3_1_ply, Some(0));
        let text = r.to_string();
        assert!(
            text.contains("earlier positions are not recorded"),
            "{text}"
        );
        assert!(r.notes.contains(&GameNote::MovesAfterAutomaticDraw {
            ply: -1,
            label: MoveLabel {
                fullmove: 99,
                side: Side::White,
                san: None
            },
            moves_after: 1
        }));
    }

    #[test]
    fn castling_resets_only_under_the_retro_convention() {
        let pgn = "1. e4 e5 2. Nf3 Nc6 3. Bc4 Bc5 4. O-O Nf6 *";
        let fide = report(pgn);
        assert_eq!(fide.final_clock, 6);
        assert!(fide.final_fen.ends_with(" 6 5"), "{}", fide.final_fen);
        let retro = report_with(
            pgn,
            ReplayOptions {
                convention: Convention::Retro,
                ..ReplayOptions::default()
            },
        );
        assert_eq!(retro.final_clock, 1);
        assert!(retro.final_fen.ends_with(" 1 5"), "{}", retro.final_fen);
        assert_eq!(retro.max_clock, 4);
        assert!(Convention::Retro.castling_resets() && !Convention::Fide.castling_resets());
    }

    #[test]
    fn retro_claim_move_is_not_castling() {
        // Clock 99: White's only moves that keep the count are king and rook moves, castling
        // would reset it under the retro convention.
        let pgn = "[FEN \"k7/8/8/8/8/8/7P/4K2R w K - 99 90\"]\n90. O-O *";
        let fide = report(pgn);
        assert_eq!(
            labels(&fide.runs[0].claim_9_3_1_move).as_deref(),
            Some("90.O-O")
        );
        let retro = report_with(
            pgn,
            ReplayOptions {
                convention: Convention::Retro,
                min_reported_clock: 0,
            },
        );
        let mv = labels(&retro.runs[0].claim_9_3_1_move).expect("a quiet king or rook move");
        assert!(mv.starts_with("90.K") || mv.starts_with("90.R"), "{mv}");
    }

    #[test]
    fn result_notes() {
        let mate = report("1. f3 e5 2. g4 Qh4# 1-0");
        assert_eq!(mate.ending, Some(Ending::Checkmate));
        assert_eq!(
            mate.notes,
            [GameNote::ResultContradictsCheckmate {
                result: GameResult::WhiteWins,
                winner: Side::Black
            }]
        );
        let stalemate = report(
            "1. e3 a5 2. Qh5 Ra6 3. Qxa5 h5 4. h4 Rah6 5. Qxc7 f6 6. Qxd7+ Kf7 7. Qxb7 Qd3 \
             8. Qxb8 Qh7 9. Qxc8 Kg6 10. Qe6 1-0",
        );
        assert_eq!(stalemate.ending, Some(Ending::Stalemate));
        assert_eq!(
            stalemate.notes,
            [GameNote::DecisiveResultAfterStalemate {
                result: GameResult::WhiteWins
            }]
        );
        let missing = report("1. e4");
        assert_eq!(missing.notes, [GameNote::MissingResult]);
        let impossible = report("[FEN \"1k6/8/8/8/8/8/8/K6R w - - 30 10\"]\n*");
        assert_eq!(
            impossible.notes,
            [GameNote::FenClockBeyondFullmoveBound {
                clock: 30,
                bound: 18
            }]
        );
        assert!(impossible.to_string().contains("exceeds 18"));
    }

    #[test]
    fn json_and_display() {
        let r = report("[FEN \"1k6/8/8/8/8/8/8/K6R w - - 99 60\"]\n60. Kb2 Kb7 1/2-1/2");
        let json = serde_json::to_value(&r).expect("serializable");
        assert_eq!(json["max_clock"], 101);
        assert_eq!(json["final_fen"], "8/1k6/8/8/8/8/1K6/7R w - - 101 61");
        assert_eq!(json["result"], "1/2-1/2");
        assert_eq!(json["convention"], "fide");
        assert_eq!(json["runs"][0]["claim_9_3_2_label"], "60.Kb2");
        assert_eq!(json["runs"][0]["claim_9_3_1_move"], "60.Kb2");
        assert_eq!(json["runs"][0]["start_ply"], -99);
        let text = r.to_string();
        assert!(
            text.contains("9.3.1 claim first possible after 59...NA (clock 99) by writing 60.Kb2"),
            "{text}"
        );
        assert!(text.contains("9.3.2 claim possible from 60.Kb2"), "{text}");
    }

    #[test]
    fn hand_built_game_with_an_illegal_move_is_an_error() {
        let mut game = parse_pgn("1. e4 e5 *").remove(0).expect("valid game");
        game.moves.swap(0, 1);
        let err = analyse_game(&game, &ReplayOptions::default()).expect_err("e5 first is illegal");
        assert_eq!(err.ply, 1);
        assert_eq!(err.to_string(), "illegal move \"e5\" at ply 1, game 1");
    }
}
