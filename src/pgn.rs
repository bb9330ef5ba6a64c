//! PGN games, read with [`pgn_reader`] (the streaming reader of the shakmaty ecosystem) and
//! replayed with shakmaty.
//!
//! What it accepts, as found in databases:
//! - several games per file; each game is a tag section (`[Name "value"]`) followed by movetext;
//! - the `FEN` tag (honoured unless `SetUp` is `"0"`), with the FEN's own halfmove clock and
//!   fullmove number as the game's starting values; the `Variant` tag selects Chess960 castling
//!   (`"Chess960"`, `"Fischerandom"`) or standard chess (absent, `"Standard"`, `"From Position"`);
//! - movetext as pgn-reader reads it: move numbers, SAN moves (`0-0` for `O-O`, annotation
//!   suffixes such as `!?`), comments `{...}` and `;` to the end of the line, escape lines
//!   starting with `%`, numeric annotation glyphs `$n`, recursive variations `( ... )` (skipped)
//!   and the result token. pgn-reader skips a token that is no move, no number and no
//!   annotation; the moves that follow are then checked as they come, so a game whose moves no
//!   longer fit is reported at its first illegal move.
//!
//! Where one game ends and the next begins: at a tag section after movetext, at a tag already
//! given in the game (a game without movetext before it), and at movetext after the result
//! token. Movetext after a blank line continues a game that has no result yet (pgn-reader ends
//! its games at blank lines; a blank line inside a game's moves does not split the game).
//!
//! Every move is checked for legality with shakmaty; move numbers are not checked against the
//! position: only the moves decide.
//!
//! One bad game does not stop the others: [`parse_pgn`] returns one result per game, the game or
//! its first error with the game's number and the line of the file where the fault is. The
//! lines are found only for errors (and for games that begin after another game's result on the
//! same stretch of text), by reading the game's text again up to each line end: the reading
//! itself never counts lines.

use std::{
    fmt,
    io::{Cursor, Seek as _},
    ops::ControlFlow,
};

use pgn_reader::{Nag, Outcome, RawComment, RawTag, Reader, SanPlus, Skip, Visitor};
use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError};
use shakmaty::{CastlingMode, Chess, Color, KnownOutcome, Move, Position};

/// The result recorded for a game (the movetext's termination marker).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
pub enum GameResult {
    /// `1-0`.
    #[serde(rename = "1-0")]
    WhiteWins,
    /// `0-1`.
    #[serde(rename = "0-1")]
    BlackWins,
    /// `1/2-1/2`.
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// `*`: unknown, game in progress or abandoned.
    #[serde(rename = "*")]
    Unknown,
}

impl GameResult {
    /// Reads a result token (`1-0`, `0-1`, `1/2-1/2`, `*`).
    pub fn from_token(token: &str) -> Option<GameResult> {
        match token {
            "1-0" => Some(GameResult::WhiteWins),
            "0-1" => Some(GameResult::BlackWins),
            "1/2-1/2" => Some(GameResult::Draw),
            "*" => Some(GameResult::Unknown),
            _ => None,
        }
    }

    /// The PGN token for this result.
    pub fn as_str(self) -> &'static str {
        match self {
            GameResult::WhiteWins => "1-0",
            GameResult::BlackWins => "0-1",
            GameResult::Draw => "1/2-1/2",
            GameResult::Unknown => "*",
        }
    }

    /// True for `1-0` and `0-1`.
    pub fn is_decisive(self) -> bool {
        matches!(self, GameResult::WhiteWins | GameResult::BlackWins)
    }

    /// The result pgn-reader read.
    fn from_outcome(outcome: Outcome) -> GameResult {
        match outcome {
            Outcome::Known(KnownOutcome::Decisive {
                winner: Color::White,
            }) => GameResult::WhiteWins,
            Outcome::Known(KnownOutcome::Decisive {
                winner: Color::Black,
            }) => GameResult::BlackWins,
            Outcome::Known(KnownOutcome::Draw) => GameResult::Draw,
            Outcome::Unknown => GameResult::Unknown,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One move of a game's main line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GameMove {
    /// The legal move it stands for, in the position where it was played.
    pub mv: Move,
    /// The SAN as read (with its check mark, without annotation suffixes such as `!?`).
    pub san: SanPlus,
}

/// A game read from a PGN file, with its main line checked for legality.
#[derive(Debug, Clone)]
pub struct Game {
    /// The game's number in the file, 1-based.
    pub number: usize,
    /// The line of the file (1-based) where the game begins.
    pub line: usize,
    /// The tag pairs in the order written.
    pub tags: Vec<(String, String)>,
    /// The castling mode the game is played with (Chess960 when the `Variant` tag says so).
    pub castling_mode: CastlingMode,
    /// The starting position, with the FEN's halfmove clock and fullmove number (or the
    /// initial array with clock 0 and fullmove 1).
    pub start: Chess,
    /// True when the starting position comes from a `FEN` tag.
    pub from_fen: bool,
    /// The moves of the main line, each legal in the position before it.
    pub moves: Vec<GameMove>,
    /// The result token ending the movetext; `None` when the file has none.
    pub result: Option<GameResult>,
}

impl Game {
    /// The value of the first tag pair called `name` (case-sensitive, as PGN prescribes).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// What is wrong with a game, without its location (see [`PgnError`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PgnErrorKind {
    /// A SAN move that no legal move matches.
    IllegalMove {
        /// The move as read.
        san: String,
    },
    /// A SAN move that matches several legal moves.
    AmbiguousMove {
        /// The move as read.
        san: String,
    },
    /// A null move (`--`, `Z0`), which cannot be replayed.
    NullMove {
        /// The token as read.
        token: String,
    },
    /// A `FEN` tag that does not describe a valid position.
    InvalidFen {
        /// The tag's value.
        fen: String,
        /// Why it was refused.
        reason: String,
    },
    /// A `Variant` tag naming a variant this reader does not replay.
    UnsupportedVariant {
        /// The tag's value.
        variant: String,
    },
    /// A tag pair cut off by the end of the file.
    UnterminatedTag,
    /// A `{` comment that is never closed (the line is the one of the `{`).
    UnterminatedComment,
    /// A `)` without a matching `(`.
    UnexpectedVariationEnd,
    /// A `(` never closed before the game ended (the line is the one of the `(`).
    UnclosedVariation,
    /// A result token inside a variation.
    ResultInVariation,
    /// The text cannot be read any further (pgn-reader's message).
    Unreadable {
        /// Why.
        reason: String,
    },
}

impl fmt::Display for PgnErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PgnErrorKind::IllegalMove { san } => write!(f, "illegal move \"{san}\""),
            PgnErrorKind::AmbiguousMove { san } => write!(f, "ambiguous move \"{san}\""),
            PgnErrorKind::NullMove { token } => {
                write!(f, "null move \"{token}\" cannot be replayed")
            }
            PgnErrorKind::InvalidFen { fen, reason } => {
                write!(f, "invalid FEN \"{fen}\" ({reason})")
            }
            PgnErrorKind::UnsupportedVariant { variant } => {
                write!(f, "unsupported variant \"{variant}\"")
            }
            PgnErrorKind::UnterminatedTag => f.write_str("tag pair cut off by the end of the file"),
            PgnErrorKind::UnterminatedComment => f.write_str("comment \"{\" never closed"),
            PgnErrorKind::UnexpectedVariationEnd => f.write_str("\")\" without a matching \"(\""),
            PgnErrorKind::UnclosedVariation => f.write_str("variation \"(\" never closed"),
            PgnErrorKind::ResultInVariation => f.write_str("result token inside a variation"),
            PgnErrorKind::Unreadable { reason } => write!(f, "unreadable: {reason}"),
        }
    }
}

/// An error in one game of a PGN file: which game, which line, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PgnError {
    /// The game's number in the file, 1-based.
    pub game: usize,
    /// The line of the file, 1-based.
    pub line: usize,
    /// What is wrong.
    pub kind: PgnErrorKind,
}

impl fmt::Display for PgnError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at line {}, game {}", self.kind, self.line, self.game)
    }
}

impl std::error::Error for PgnError {}

/// Reads every game of a PGN text. Returns one entry per game, in file order: the game, or the
/// first error found in it. Never panics on malformed input.
pub fn parse_pgn(text: &str) -> Vec<Result<Game, PgnError>> {
    let text = without_glued_en_passant_marks(text);
    let bytes = text.as_bytes();
    let mut collector = Collector::default();
    let mut lines = LineCounter::default();
    let mut from = 0;
    'readers: while from < bytes.len() {
        let mut reader = Reader::new(Cursor::new(&bytes[from..]));
        loop {
            // `has_more` skips what is between games, so the position is the game's first byte.
            let more = reader.has_more();
            let start = from + reader.stream_position().map_or(0, |p| p as usize);
            match more {
                Ok(true) => {}
                Ok(false) => break 'readers,
                Err(e) => {
                    collector.fail_unreadable(e.to_string(), lines.line_of(bytes, start));
                    break 'readers;
                }
            }
            collector.begin_span(lines.line_of(bytes, start));
            let read = reader.read_game(&mut collector);
            let end = from + reader.stream_position().map_or(0, |p| p as usize);
            let span = Span {
                text: bytes,
                start,
                end: end.max(start),
            };
            match read {
                Ok(_) => collector.resolve(&span),
                Err(e) if e.to_string() == "unterminated comment" => {
                    // The comment runs to the end of the text: the game fails at its `{`, and
                    // reading resumes at the first tag line after that line.
                    let span = Span {
                        end: bytes.len(),
                        ..span
                    };
                    let events = collector.events;
                    let line = span.locate(|seen| {
                        seen.events > events || (seen.events == events && seen.failed)
                    });
                    collector.fail_comment(line);
                    collector.resolve(&span);
                    match next_tag_line(bytes, span.line_end(line)) {
                        Some(next) => {
                            from = next;
                            continue 'readers;
                        }
                        None => break 'readers,
                    }
                }
                Err(e) => {
                    let kind = if e.to_string() == "unterminated tag" {
                        PgnErrorKind::UnterminatedTag
                    } else {
                        PgnErrorKind::Unreadable {
                            reason: e.to_string(),
                        }
                    };
                    let line = lines.line_of(bytes, span.end.max(start + 1) - 1);
                    collector.fail_span(kind, line);
                    collector.resolve(&span);
                }
            }
        }
    }
    collector.finish()
}

/// The text with every `e.p.` written right after an e.p. capture's target rank (`exd6e.p.`)
/// turned into blanks of the same length: pgn-reader would read `exd6` and drop it, since a
/// letter follows. Offsets and lines stay as they were; a text without such a mark is not copied.
fn without_glued_en_passant_marks(text: &str) -> std::borrow::Cow<'_, str> {
    let glued = |i: usize| {
        let b = text.as_bytes();
        i > 0 && matches!(b[i - 1], b'3' | b'6') && b[i..].starts_with(b"e.p.")
    };
    let marks: Vec<usize> = text
        .match_indices("e.p.")
        .map(|(i, _)| i)
        .filter(|&i| glued(i))
        .collect();
    if marks.is_empty() {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for i in marks {
        out.replace_range(i..i + 4, "    ");
    }
    std::borrow::Cow::Owned(out)
}

/// Counts lines up to increasing offsets of one text.
#[derive(Default)]
struct LineCounter {
    offset: usize,
    line: usize,
}

impl LineCounter {
    /// The 1-based line of byte `offset` of `text` (offsets at or after the last one asked).
    fn line_of(&mut self, text: &[u8], offset: usize) -> usize {
        let offset = offset.min(text.len());
        if offset < self.offset {
            return line_of(text, offset);
        }
        self.line += text[self.offset..offset]
            .iter()
            .filter(|&&b| b == b'\n')
            .count();
        self.offset = offset;
        self.line + 1
    }
}

/// The 1-based line of byte `offset` of `text`.
fn line_of(text: &[u8], offset: usize) -> usize {
    1 + text[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The offset of the first line after `after` that starts a tag pair (`[Name "`, perhaps
/// indented), if any.
fn next_tag_line(text: &[u8], after: usize) -> Option<usize> {
    let mut at = after;
    while at < text.len() {
        let line_end = text[at..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(text.len(), |i| at + i);
        if looks_like_tag(&text[at..line_end]) {
            return Some(at);
        }
        at = line_end + 1;
    }
    None
}

/// Whether a line is `[Name "...`, perhaps indented.
fn looks_like_tag(line: &[u8]) -> bool {
    let rest = line.trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b"[") else {
        return false;
    };
    let name = rest
        .iter()
        .take_while(|b| b.is_ascii_alphanumeric() || **b == b'_')
        .count();
    name > 0 && rest[name..].trim_ascii_start().starts_with(b"\"")
}

/// The stretch of text pgn-reader read as one game (it ends games at blank lines).
#[derive(Clone, Copy)]
struct Span<'a> {
    text: &'a [u8],
    start: usize,
    end: usize,
}

impl Span<'_> {
    /// The 1-based line of the text on which the prefixes of this span first satisfy `found`:
    /// the prefixes end at line ends and are read as a game by a [`Census`] each (a binary
    /// search; the events only grow with the prefix). The span's first line when none does.
    fn locate(&self, found: impl Fn(&Census) -> bool) -> usize {
        let mut ends: Vec<usize> = self.text[self.start..self.end]
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .map(|(i, _)| self.start + i + 1)
            .collect();
        if ends.last() != Some(&self.end) {
            ends.push(self.end);
        }
        let satisfied = |end: usize| {
            let mut census = Census::default();
            let mut reader = Reader::new(Cursor::new(&self.text[self.start..end]));
            if reader.read_game(&mut census).is_err() {
                census.failed = true;
            }
            found(&census)
        };
        let first = ends.partition_point(|&end| !satisfied(end));
        match ends.get(first) {
            Some(&end) => line_of(self.text, end.saturating_sub(1).max(self.start)),
            None => line_of(self.text, self.start),
        }
    }

    /// The offset just after the end of line `line` (1-based) of the text.
    fn line_end(&self, line: usize) -> usize {
        self.text
            .iter()
            .enumerate()
            .filter(|(_, b)| **b == b'\n')
            .nth(line.saturating_sub(1))
            .map_or(self.text.len(), |(i, _)| i + 1)
    }
}

/// Where something is: a line already known, or the event of the current span (see
/// [`Collector::events`]) whose line is found when the span has been read.
#[derive(Clone, Copy, Debug)]
enum Locus {
    Line(usize),
    Event(usize),
}

/// Counts the events of a game as [`Collector`] does, to find the line where one of them is.
#[derive(Default)]
struct Census {
    events: usize,
    failed: bool,
}

impl Visitor for Census {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _: &mut (), _: &[u8], _: RawTag<'_>) -> ControlFlow<()> {
        self.events += 1;
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn san(&mut self, _: &mut (), _: SanPlus) -> ControlFlow<()> {
        self.events += 1;
        ControlFlow::Continue(())
    }

    fn nag(&mut self, _: &mut (), _: Nag) -> ControlFlow<()> {
        self.events += 1;
        ControlFlow::Continue(())
    }

    fn partial_comment(&mut self, _: &mut (), _: RawComment<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _: &mut (), _: RawComment<'_>) -> ControlFlow<()> {
        self.events += 1;
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _: &mut ()) -> ControlFlow<(), Skip> {
        self.events += 1;
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, _: &mut ()) -> ControlFlow<()> {
        self.events += 1;
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, _: &mut (), _: Outcome) -> ControlFlow<()> {
        self.events += 1;
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _: ()) {}
}

/// One game while it is read.
struct Builder {
    number: usize,
    /// Where the game begins.
    begins: Locus,
    /// The span it began in.
    span: usize,
    tags: Vec<(String, String)>,
    /// The event of each tag.
    tag_events: Vec<usize>,
    has_movetext: bool,
    /// The position after the moves so far, once the tags are read.
    pos: Option<Chess>,
    start: Option<(Chess, CastlingMode, bool)>,
    moves: Vec<GameMove>,
    result: Option<GameResult>,
    error: Option<(PgnErrorKind, Locus)>,
}

impl Builder {
    fn fail(&mut self, kind: PgnErrorKind, at: Locus) {
        if self.error.is_none() {
            self.error = Some((kind, at));
        }
    }

    /// Sets up the starting position from the tags (once).
    fn set_up(&mut self) {
        if self.start.is_some() || self.error.is_some() {
            return;
        }
        match starting_position(&self.tags) {
            Ok((pos, mode, from_fen)) => {
                self.pos = Some(pos.clone());
                self.start = Some((pos, mode, from_fen));
            }
            Err((kind, tag)) => {
                let event = self
                    .tags
                    .iter()
                    .zip(&self.tag_events)
                    .find(|((name, _), _)| name == tag)
                    .map(|(_, e)| *e);
                let at = event.map_or(self.begins, Locus::Event);
                self.fail(kind, at);
            }
        }
    }

    /// Plays the move of `san_plus`, or records why it cannot be played.
    fn play(&mut self, san_plus: SanPlus, at: Locus) {
        self.set_up();
        let Some(pos) = self.pos.as_mut() else {
            return;
        };
        if san_plus.san == San::Null {
            let token = san_plus.to_string();
            self.fail(PgnErrorKind::NullMove { token }, at);
            return;
        }
        match san_plus.san.to_move(pos) {
            Ok(mv) => {
                pos.play_unchecked(mv);
                self.moves.push(GameMove { mv, san: san_plus });
            }
            Err(e) => {
                let san = san_plus.to_string();
                let kind = match e {
                    SanError::AmbiguousSan => PgnErrorKind::AmbiguousMove { san },
                    SanError::IllegalSan => PgnErrorKind::IllegalMove { san },
                };
                self.fail(kind, at);
            }
        }
    }

    fn finish(mut self) -> Slot {
        self.set_up();
        let body = match (self.error, self.start) {
            (Some((kind, at)), _) => Err((kind, at)),
            (None, Some((start, castling_mode, from_fen))) => Ok(Game {
                number: self.number,
                line: 0,
                tags: self.tags,
                castling_mode,
                start,
                from_fen,
                moves: self.moves,
                result: self.result,
            }),
            // `set_up` either sets `start` or records an error.
            (None, None) => Err((
                PgnErrorKind::Unreadable {
                    reason: "no starting position".into(),
                },
                self.begins,
            )),
        };
        Slot {
            number: self.number,
            begins: self.begins,
            body,
        }
    }
}

/// A game that has been read: where it begins, and the game or its error.
struct Slot {
    number: usize,
    begins: Locus,
    body: Result<Game, (PgnErrorKind, Locus)>,
}

/// The visitor: builds the games from pgn-reader's events and numbers the events of each span
/// (tags, moves, annotations, comments, variation marks and results, in order) so that a fault
/// can be located once the span has been read.
#[derive(Default)]
struct Collector {
    done: Vec<Slot>,
    /// How many slots have their lines found.
    resolved: usize,
    /// Boxed: it is taken out and put back at every move.
    current: Option<Box<Builder>>,
    games: usize,
    /// Spans read so far (the current one is `spans`).
    spans: usize,
    /// The line of the current span's first byte.
    span_line: usize,
    /// Events of the current span so far.
    events: usize,
    /// Open variations, and the event of the outermost `(`.
    depth: usize,
    opened: usize,
}

impl Collector {
    fn begin_span(&mut self, line: usize) {
        self.spans += 1;
        self.span_line = line;
        self.events = 0;
        self.depth = 0;
    }

    /// Numbers the next event.
    fn event(&mut self) -> usize {
        self.events += 1;
        self.events - 1
    }

    /// Ends the current game, if any.
    fn close(&mut self) {
        if let Some(b) = self.current.take() {
            self.done.push(b.finish());
        }
    }

    /// A new game (the next number) that begins at `begins` in the current span.
    fn new_game(&mut self, begins: Locus) -> Box<Builder> {
        self.games += 1;
        Box::new(Builder {
            number: self.games,
            begins,
            span: self.spans,
            tags: Vec::new(),
            tag_events: Vec::new(),
            has_movetext: false,
            pos: None,
            start: None,
            moves: Vec::new(),
            result: None,
            error: None,
        })
    }

    /// Ends the current game and starts one at `begins`.
    fn open(&mut self, begins: Locus) -> &mut Builder {
        self.close();
        let game = self.new_game(begins);
        self.current.insert(game)
    }

    /// The current game if `keep` says it goes on, else (after ending it) a new one that begins
    /// at `event`.
    fn game_at(&mut self, event: usize, keep: impl FnOnce(&Builder) -> bool) -> &mut Builder {
        let game = match self.current.take() {
            Some(game) if keep(&game) => game,
            previous => {
                if let Some(game) = previous {
                    self.done.push(game.finish());
                }
                let locus = self.locus(event);
                self.new_game(locus)
            }
        };
        self.current.insert(game)
    }

    /// Where a game that begins at `event` of this span begins: the span's first line for its
    /// first event, else found when the span has been read.
    fn locus(&self, event: usize) -> Locus {
        if event == 0 {
            Locus::Line(self.span_line)
        } else {
            Locus::Event(event)
        }
    }

    /// The game that movetext at `event` belongs to: the current one, unless there is none or it
    /// has its result already.
    fn movetext_game(&mut self, event: usize) -> &mut Builder {
        let game = self.game_at(event, |game| game.result.is_none());
        game.has_movetext = true;
        game
    }

    fn fail_comment(&mut self, line: usize) {
        let locus = self.locus(self.events);
        let game = match self.current.as_mut() {
            Some(game) => game,
            None => self.open(locus),
        };
        game.fail(PgnErrorKind::UnterminatedComment, Locus::Line(line));
        self.close();
    }

    fn fail_span(&mut self, kind: PgnErrorKind, line: usize) {
        let game = match self.current.as_mut() {
            Some(game) => game,
            None => self.open(Locus::Line(line)),
        };
        game.fail(kind, Locus::Line(line));
        self.close();
    }

    fn fail_unreadable(&mut self, reason: String, line: usize) {
        let game = self.open(Locus::Line(line));
        game.fail(PgnErrorKind::Unreadable { reason }, Locus::Line(line));
        self.close();
    }

    /// Finds the lines of the events of the span just read.
    fn resolve(&mut self, span: &Span<'_>) {
        let line = |at: Locus| match at {
            Locus::Line(l) => l,
            Locus::Event(event) => span.locate(|seen| seen.events > event),
        };
        let fix = |at: &mut Locus| *at = Locus::Line(line(*at));
        for slot in &mut self.done[self.resolved..] {
            fix(&mut slot.begins);
            if let Err((_, at)) = &mut slot.body {
                fix(at);
            }
        }
        self.resolved = self.done.len();
        if let Some(b) = self.current.as_mut() {
            fix(&mut b.begins);
            if let Some((_, at)) = &mut b.error {
                fix(at);
            }
        }
    }

    fn finish(mut self) -> Vec<Result<Game, PgnError>> {
        self.close();
        self.done
            .into_iter()
            .map(|slot| {
                let line = |at: Locus| match at {
                    Locus::Line(l) => l,
                    // Every event is located when its span ends.
                    Locus::Event(_) => 1,
                };
                match slot.body {
                    Ok(mut game) => {
                        game.line = line(slot.begins);
                        Ok(game)
                    }
                    Err((kind, at)) => Err(PgnError {
                        game: slot.number,
                        line: line(at),
                        kind,
                    }),
                }
            })
            .collect()
    }
}

impl Visitor for Collector {
    type Tags = ();
    type Movetext = ();
    type Output = ();

    fn begin_tags(&mut self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn tag(&mut self, _: &mut (), name: &[u8], value: RawTag<'_>) -> ControlFlow<()> {
        let event = self.event();
        let name = String::from_utf8_lossy(name).into_owned();
        // A tag section of a new span begins a new game; so does a tag already given in this
        // game (the game before had no movetext), and an `Event` tag after an error.
        let span = self.spans;
        let game = self.game_at(event, |b| {
            let ends = b.span != span
                || b.has_movetext
                || b.tags.iter().any(|(n, _)| *n == name)
                || (b.error.is_some() && name == "Event");
            !ends
        });
        game.tags
            .push((name, value.decode_utf8_lossy().into_owned()));
        game.tag_events.push(event);
        ControlFlow::Continue(())
    }

    fn begin_movetext(&mut self, _: ()) -> ControlFlow<()> {
        // The starting position is set up at the end of the tag section, where its faults are.
        if let Some(game) = self.current.as_mut()
            && game.span == self.spans
            && !game.has_movetext
        {
            game.set_up();
        }
        ControlFlow::Continue(())
    }

    fn san(&mut self, _: &mut (), san_plus: SanPlus) -> ControlFlow<()> {
        let event = self.event();
        if self.depth > 0 {
            return ControlFlow::Continue(());
        }
        let locus = Locus::Event(event);
        self.movetext_game(event).play(san_plus, locus);
        ControlFlow::Continue(())
    }

    fn nag(&mut self, _: &mut (), _: Nag) -> ControlFlow<()> {
        let event = self.event();
        self.movetext_game(event);
        ControlFlow::Continue(())
    }

    fn partial_comment(&mut self, _: &mut (), _: RawComment<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }

    fn comment(&mut self, _: &mut (), _: RawComment<'_>) -> ControlFlow<()> {
        self.event();
        ControlFlow::Continue(())
    }

    fn begin_variation(&mut self, _: &mut ()) -> ControlFlow<(), Skip> {
        let event = self.event();
        self.movetext_game(event);
        if self.depth == 0 {
            self.opened = event;
        }
        self.depth += 1;
        // Read, not skipped: a comment inside a variation that is never closed is found.
        ControlFlow::Continue(Skip(false))
    }

    fn end_variation(&mut self, _: &mut ()) -> ControlFlow<()> {
        let event = self.event();
        if self.depth == 0 {
            let game = self.movetext_game(event);
            game.fail(PgnErrorKind::UnexpectedVariationEnd, Locus::Event(event));
        } else {
            self.depth -= 1;
        }
        ControlFlow::Continue(())
    }

    fn outcome(&mut self, _: &mut (), outcome: Outcome) -> ControlFlow<()> {
        let event = self.event();
        let depth = std::mem::take(&mut self.depth);
        let game = self.movetext_game(event);
        if depth > 0 {
            game.fail(PgnErrorKind::ResultInVariation, Locus::Event(event));
        }
        game.result = Some(GameResult::from_outcome(outcome));
        ControlFlow::Continue(())
    }

    fn end_game(&mut self, _: ()) {
        if self.depth > 0 {
            let at = Locus::Event(self.opened);
            if let Some(game) = self.current.as_mut() {
                game.fail(PgnErrorKind::UnclosedVariation, at);
            }
            self.depth = 0;
        }
        // A game with its result is complete; one without may go on after a blank line.
        if self.current.as_ref().is_some_and(|b| b.result.is_some()) {
            self.close();
        }
    }
}

/// The starting position from the tag pairs: castling mode, position, and whether a FEN gave it.
/// An error names the tag that caused it.
fn starting_position(
    tags: &[(String, String)],
) -> Result<(Chess, CastlingMode, bool), (PgnErrorKind, &'static str)> {
    let get = |name: &str| {
        tags.iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    };
    let mode = match get("Variant") {
        None => CastlingMode::Standard,
        Some(v) => {
            let lower = v.trim().to_ascii_lowercase();
            if lower.contains("960") || lower.contains("fischerandom") {
                CastlingMode::Chess960
            } else if matches!(lower.as_str(), "" | "standard" | "chess" | "from position") {
                CastlingMode::Standard
            } else {
                return Err((
                    PgnErrorKind::UnsupportedVariant {
                        variant: v.to_string(),
                    },
                    "Variant",
                ));
            }
        }
    };
    let fen_text = match (get("FEN"), get("SetUp")) {
        (Some(fen), setup) if setup.map(str::trim) != Some("0") => fen.trim(),
        _ => return Ok((Chess::default(), mode, false)),
    };
    let invalid = |reason: String| {
        (
            PgnErrorKind::InvalidFen {
                fen: fen_text.to_string(),
                reason,
            },
            "FEN",
        )
    };
    let fen = Fen::from_ascii(fen_text.as_bytes()).map_err(|e| invalid(e.to_string()))?;
    let pos: Chess = fen
        .into_position(mode)
        .map_err(|e| invalid(e.to_string()))?;
    Ok((pos, mode, true))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> Game {
        let mut games = parse_pgn(text);
        assert_eq!(games.len(), 1, "expected one game in {text:?}");
        games.remove(0).expect("game should parse")
    }

    fn sans(game: &Game) -> Vec<String> {
        game.moves.iter().map(|m| m.san.to_string()).collect()
    }

    #[test]
    fn reads_tags_moves_and_result() {
        let g = one("[Event \"Test \\\"quoted\\\"\"]\n[White \"A\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n");
        assert_eq!(g.tag("Event"), Some("Test \"quoted\""));
        assert_eq!(g.tag("White"), Some("A"));
        assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(g.result, Some(GameResult::WhiteWins));
        assert_eq!(g.line, 1);
        assert!(!g.from_fen);
    }

    #[test]
    fn skips_comments_variations_nags_and_escapes() {
        let text = "% escape line with 1. h4\n[Event \"x\"]\n\n\
                    1.e4 {a comment (with 1. d4) } e5!? ; rest of line 2. d4\n\
                    2. Nf3 $1 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6?! 3. Bb5 a6 4. O-O\n\
                    { multi\nline } 1/2-1/2";
        let g = one(text);
        assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6", "Bb5", "a6", "O-O"]);
        assert_eq!(g.result, Some(GameResult::Draw));
    }

    #[test]
    fn honours_fen_clock_and_fullmove() {
        let g = one("[SetUp \"1\"]\n[FEN \"4k3/8/8/8/8/8/8/4K2R w K - 37 60\"]\n\n60. 0-0 Kd7 *\n");
        assert!(g.from_fen);
        assert_eq!(g.start.halfmoves(), 37);
        assert_eq!(g.start.fullmoves().get(), 60);
        assert_eq!(sans(&g), ["O-O", "Kd7"]);
        assert!(g.moves[0].mv.is_castle());
        assert_eq!(g.result, Some(GameResult::Unknown));
    }

    #[test]
    fn en_passant_suffix_and_check_marks() {
        let g = one("1. e4 Nf6 2. e5 d5 3. exd6e.p. Qxd6 4. Qh5 Qxh2+ 5. Rxh2 *");
        assert_eq!(
            sans(&g),
            [
                "e4", "Nf6", "e5", "d5", "exd6", "Qxd6", "Qh5", "Qxh2+", "Rxh2"
            ]
        );
        assert!(g.moves[4].mv.is_en_passant());
    }

    #[test]
    fn illegal_move_names_line_and_game() {
        let text = "[Event \"one\"]\n\n1. e4 e5 *\n\n[Event \"two\"]\n\n1. d4 d5\n2. Nf6 Nc6 *\n";
        let games = parse_pgn(text);
        assert_eq!(games.len(), 2);
        assert!(games[0].is_ok());
        let err = games[1]
            .as_ref()
            .expect_err("second game has an illegal move");
        assert_eq!(err.game, 2);
        assert_eq!(err.line, 8);
        assert_eq!(
            err.kind,
            PgnErrorKind::IllegalMove {
                san: "Nf6".to_string()
            }
        );
        assert_eq!(err.to_string(), "illegal move \"Nf6\" at line 8, game 2");
    }

    #[test]
    fn bad_game_then_good_game() {
        // The first game has an illegal move and no result; the second must still be read.
        let text = "[Event \"bad\"]\n1. e4 e5 2. Ke3\n3. Nf3\n[Event \"good\"]\n1. d4 d5 0-1\n";
        let games = parse_pgn(text);
        assert_eq!(games.len(), 2);
        let err = games[0].as_ref().expect_err("first game is bad");
        assert_eq!((err.game, err.line), (1, 2));
        let good = games[1].as_ref().expect("second game is good");
        assert_eq!(good.number, 2);
        assert_eq!(good.tag("Event"), Some("good"));
        assert_eq!(sans(good), ["d4", "d5"]);
        assert_eq!(good.result, Some(GameResult::BlackWins));
    }

    #[test]
    fn broken_tag_section_then_good_game() {
        let text = "[Event \"a\"]\n[FEN \"4k3/8\n[Event \"b\"]\n1. e4 *\n";
        let games = parse_pgn(text);
        assert_eq!(games.len(), 2);
        // The cut tag's value ends at its line end, and that is no FEN.
        let err = games[0].as_ref().expect_err("cut FEN tag");
        assert!(
            matches!(err.kind, PgnErrorKind::InvalidFen { .. }) && err.line == 2,
            "{err}"
        );
        let good = games[1].as_ref().expect("second game is good");
        assert_eq!((good.number, good.line), (2, 3));
        assert_eq!(sans(good), ["e4"]);
    }

    #[test]
    fn unterminated_comment_resynchronises_at_next_tags() {
        let text = "[Event \"a\"]\n1. e4 { never closed\n1. d4\n\n[Event \"b\"]\n1. c4 *\n";
        let games = parse_pgn(text);
        assert_eq!(games.len(), 2);
        let err = games[0].as_ref().expect_err("comment never closed");
        assert_eq!(err.kind, PgnErrorKind::UnterminatedComment);
        assert_eq!(err.line, 2);
        let good = games[1].as_ref().expect("second game is good");
        assert_eq!(sans(good), ["c4"]);
    }

    #[test]
    fn variation_errors() {
        let games = parse_pgn(
            "1. e4 e5 ) 2. Nf3 *\n\n[Event \"b\"]\n1. e4 (1. d4 d5\n\n[Event \"c\"]\n1. c4 *",
        );
        assert_eq!(games.len(), 3);
        let e1 = games[0].as_ref().expect_err("unmatched )");
        assert_eq!(
            (e1.kind.clone(), e1.line),
            (PgnErrorKind::UnexpectedVariationEnd, 1)
        );
        let e2 = games[1].as_ref().expect_err("unclosed (");
        assert_eq!(
            (e2.kind.clone(), e2.line, e2.game),
            (PgnErrorKind::UnclosedVariation, 4, 2)
        );
        assert!(games[2].is_ok());
    }

    #[test]
    fn invalid_fen_and_tokens() {
        let games = parse_pgn(
            "[FEN \"8/8/8/8/8/8/8/8 w - - 0 1\"]\n[SetUp \"1\"]\n1. Kd2 *\n\n\
             [Event \"x\"]\n1. e4 e5 2. xyz *\n\n[Event \"y\"]\n1. e4 -- *\n\n\
             [Variant \"Crazyhouse\"]\n1. e4 *\n\n[Event \"z\"]\n1. Nf3 Nf6 2. Nc3 Nc6 3. Nb5 Nb4 4. Nd4 *\n",
        );
        assert_eq!(games.len(), 5);
        // pgn-reader skips a token that is no move: the game goes on without it.
        let skipped = games[1].as_ref().expect("xyz is skipped");
        assert_eq!(sans(skipped), ["e4", "e5"]);
        let kinds: Vec<_> = games
            .iter()
            .map(|g| {
                g.as_ref()
                    .map_or_else(|e| e.kind.clone(), |_| PgnErrorKind::UnclosedVariation)
            })
            .collect();
        assert!(
            matches!(kinds[0], PgnErrorKind::InvalidFen { .. }),
            "{kinds:?}"
        );
        assert_eq!(games[0].as_ref().err().map(|e| e.line), Some(1));
        assert!(
            matches!(kinds[2], PgnErrorKind::NullMove { .. }),
            "{kinds:?}"
        );
        assert!(
            matches!(kinds[3], PgnErrorKind::UnsupportedVariant { .. }),
            "{kinds:?}"
        );
        // Knights on b3 and f3 can both reach d4.
        assert_eq!(
            kinds[4],
            PgnErrorKind::AmbiguousMove {
                san: "Nd4".to_string()
            }
        );
    }

    #[test]
    fn byte_order_mark_and_textual_evaluations() {
        let g = one("\u{feff}[Event \"x\"]\n1. e4 += 1... e5 +/- 2. Nf3 = 1-0");
        assert_eq!(g.tag("Event"), Some("x"));
        assert_eq!(sans(&g), ["e4", "e5", "Nf3"]);
    }

    #[test]
    fn games_without_tags_or_result() {
        let games = parse_pgn("1. e4 e5 1-0\n1. d4 d5\n");
        assert_eq!(games.len(), 2);
        let second = games[1].as_ref().expect("movetext alone is a game");
        assert_eq!(second.result, None);
        assert_eq!(sans(second), ["d4", "d5"]);
    }

    #[test]
    fn garbage_never_panics() {
        for text in [
            "",
            "[",
            "[Event",
            "[Event \"x",
            "{",
            "(((",
            ")))",
            "1.",
            "\u{e9}\u{20ac} 1. e4",
            "1. e4 e.p.",
            "[FEN \"\"]\n1. e4",
            "[FEN \"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 0\"]\n*",
        ] {
            let games = parse_pgn(text);
            for g in games {
                if let Err(e) = g {
                    assert!(!e.to_string().is_empty());
                }
            }
        }
        assert_eq!(parse_pgn("").len(), 0);
        let g = one("1. e4 \u{e9} e5 *");
        assert_eq!(sans(&g), ["e4", "e5"]);
    }

    #[test]
    fn a_blank_line_inside_the_moves_does_not_split_the_game() {
        let g = one("[Event \"a\"]\n\n1. e4 e5\n\n2. Nf3 Nc6 *\n");
        assert_eq!(sans(&g), ["e4", "e5", "Nf3", "Nc6"]);
        assert_eq!(g.result, Some(GameResult::Unknown));
    }

    #[test]
    fn a_game_after_a_result_on_the_next_line_has_its_own_lines() {
        let games = parse_pgn("1. e4 e5 1-0\n1. d4 d5\n2. Kd3 *\n");
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].as_ref().map(|g| g.line).ok(), Some(1));
        let err = games[1].as_ref().expect_err("Kd3 is illegal");
        assert_eq!((err.game, err.line), (2, 3));
        assert_eq!(err.kind, PgnErrorKind::IllegalMove { san: "Kd3".into() });
    }

    #[test]
    fn lines_count_long_comments_and_carriage_returns() {
        let long = "x".repeat(1000);
        let text = format!(
            "[Event \"a\"]\r\n\r\n1. e4 {{ {long}\r\n{long} }} e5\r\n2. Nf3 Nc6\r\n3. Ke3 *\r\n"
        );
        let err = parse_pgn(&text).remove(0).expect_err("Ke3 is illegal");
        assert_eq!(err.line, 6, "{err}");
    }

    #[test]
    fn an_open_comment_is_found_after_closed_ones_and_in_variations() {
        let games = parse_pgn(
            "1. e4 { a\nb } e5\n2. Nf3 { open\n2... Nc6\n\n[Event \"b\"]\n1. c4 *\n\n\
             [Event \"c\"]\n1. d4 (1. e4 { also open\n\n[Event \"d\"]\n1. Nf3 *\n",
        );
        let kinds: Vec<_> = games
            .iter()
            .map(|g| {
                g.as_ref()
                    .map(|g| g.line)
                    .map_err(|e| (e.kind.clone(), e.line))
            })
            .collect();
        assert_eq!(
            kinds,
            [
                Err((PgnErrorKind::UnterminatedComment, 3)),
                Ok(6),
                Err((PgnErrorKind::UnterminatedComment, 10)),
                Ok(12),
            ]
        );
    }

    #[test]
    fn a_tag_cut_off_by_the_end_of_the_file() {
        let games = parse_pgn("1. e4 *\n\n[Event \"a");
        assert_eq!(games.len(), 2);
        let err = games[1].as_ref().expect_err("cut tag");
        assert_eq!(
            (err.kind.clone(), err.line),
            (PgnErrorKind::UnterminatedTag, 3)
        );
    }

    proptest::proptest! {
        #[test]
        fn arbitrary_pgnish_text_never_panics(
            text in "[\\[\\]{}();%$!?. 0-9a-hxNBRQKOPZ=+#/*\"\n\u{e9}-]{0,300}"
        ) {
            for (i, game) in parse_pgn(&text).into_iter().enumerate() {
                match game {
                    Ok(g) => proptest::prop_assert_eq!(g.number, i + 1),
                    Err(e) => {
                        proptest::prop_assert_eq!(e.game, i + 1);
                        proptest::prop_assert!(e.line >= 1 && e.line <= text.lines().count().max(1));
                    }
                }
            }
        }

        #[test]
        fn a_cut_game_does_not_stop_the_next(cut in 0usize..200) {
            let game = "[Event \"a\"]\n[FEN \"4k3/8/8/8/8/8/4P3/4K3 w - - 5 40\"]\n\
                        40. e4 Kd7 41. e5 { c } (41. Kd2) Ke6 1-0\n";
            let cut = cut.min(game.len());
            let prefix = &game[..cut];
            // A cut inside the comment leaves it open: it then runs into the next game.
            proptest::prop_assume!(prefix.matches('{').count() == prefix.matches('}').count());
            let text = format!("{prefix}\n{game}");
            let games = parse_pgn(&text);
            let last = games.last().and_then(|g| g.as_ref().ok());
            proptest::prop_assert!(last.is_some(), "{text:?} gave {games:?}");
            if let Some(last) = last {
                proptest::prop_assert_eq!(last.moves.len(), 4);
                proptest::prop_assert_eq!(last.result, Some(GameResult::WhiteWins));
                proptest::prop_assert_eq!(last.number, games.len());
            }
        }
    }
}
