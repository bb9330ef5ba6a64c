//! The hand-written PGN reader that `src/pgn.rs` had before it read PGN with pgn-reader (commit
//! a549a2e), kept here only as the bench's baseline: `benches/games.rs` times both in one run.
//! Not part of the crate.
//!
//! (The original module documentation follows.) A PGN reader: splits a file into games, reads
//! their tag pairs and replays their main line.
//!
//! What it accepts (PGN export and import format, as found in databases):
//! - several games per file; each game is a tag section (`[Name "value"]`) followed by movetext;
//! - the `FEN` tag (honoured unless `SetUp` is `"0"`), with the FEN's own halfmove clock and
//!   fullmove number as the game's starting values; the `Variant` tag selects Chess960 castling
//!   (`"Chess960"`, `"Fischerandom"`) or standard chess (absent, `"Standard"`, `"From Position"`);
//! - movetext with move numbers (`1.`, `1...`, `1.e4`), SAN moves checked for legality with
//!   shakmaty (`0-0` is read as `O-O`, a trailing `e.p.` and annotation suffixes such as `!?` are
//!   dropped), comments `{...}` and `;` to the end of the line, escape lines starting with `%`,
//!   numeric annotation glyphs `$n`, recursive variations `( ... )` (skipped), and the result token.
//!
//! Move numbers are not checked against the position: only the moves decide.
//!
//! One bad game does not stop the others: [`parse_pgn`] returns one result per game. After an
//! error the rest of that game is skipped; reading resumes with the next game's tag section (or,
//! for a game whose error left the movetext readable, right after its result token).

use std::fmt;

use serde::Serialize;
use shakmaty::fen::Fen;
use shakmaty::san::{San, SanError};
use shakmaty::{CastlingMode, Chess, Move, Position};

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
    /// The SAN as written in the file, without annotation suffixes (`!?`, `e.p.`).
    pub san: String,
    /// The line of the file (1-based) where the move is written.
    pub line: usize,
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
        /// The move as written.
        san: String,
    },
    /// A SAN move that matches several legal moves.
    AmbiguousMove {
        /// The move as written.
        san: String,
    },
    /// A null move (`--`, `Z0`), which cannot be replayed.
    NullMove {
        /// The token as written.
        token: String,
    },
    /// A movetext token that is neither a move, a move number, a NAG nor a result.
    InvalidToken {
        /// The token as written.
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
    /// A line starting with `[` that is not a well-formed tag pair.
    MalformedTag,
    /// A `{` comment that is never closed.
    UnterminatedComment,
    /// A `)` without a matching `(`.
    UnexpectedVariationEnd,
    /// A `(` never closed before the game ended (the line is the one of the `(`).
    UnclosedVariation,
    /// A result token inside a variation.
    ResultInVariation,
    /// A character that cannot start any PGN token.
    UnexpectedCharacter {
        /// The character.
        ch: char,
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
            PgnErrorKind::InvalidToken { token } => write!(f, "not a move: \"{token}\""),
            PgnErrorKind::InvalidFen { fen, reason } => {
                write!(f, "invalid FEN \"{fen}\" ({reason})")
            }
            PgnErrorKind::UnsupportedVariant { variant } => {
                write!(f, "unsupported variant \"{variant}\"")
            }
            PgnErrorKind::MalformedTag => f.write_str("malformed tag pair"),
            PgnErrorKind::UnterminatedComment => f.write_str("comment \"{\" never closed"),
            PgnErrorKind::UnexpectedVariationEnd => f.write_str("\")\" without a matching \"(\""),
            PgnErrorKind::UnclosedVariation => f.write_str("variation \"(\" never closed"),
            PgnErrorKind::ResultInVariation => f.write_str("result token inside a variation"),
            PgnErrorKind::UnexpectedCharacter { ch } => write!(f, "unexpected character {ch:?}"),
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
    let mut out = Vec::new();
    let mut builder: Option<Builder> = None;
    let mut lexer = Lexer::new(text);
    let mut number = 0;

    while let Some(item) = lexer.next_token() {
        let (line, token) = match item {
            Ok(t) => (t.line, t.tok),
            Err((line, kind)) => {
                let b = builder.get_or_insert_with(|| {
                    number += 1;
                    Builder::new(number, line)
                });
                b.fail(line, kind);
                continue;
            }
        };
        // A tag after movetext, a tag already present, or an `Event` tag after an error begins
        // the next game.
        if let Tok::Tag { name, .. } = &token
            && builder.as_ref().is_some_and(|b| {
                b.has_movetext
                    || b.tags.iter().any(|(n, _)| n == name)
                    || (b.error.is_some() && name == "Event")
            })
            && let Some(b) = builder.take()
        {
            out.push(b.finish(line));
        }
        let b = builder.get_or_insert_with(|| {
            number += 1;
            Builder::new(number, line)
        });
        if b.feed(line, token)
            && let Some(b) = builder.take()
        {
            out.push(b.finish(line));
        }
    }
    if let Some(b) = builder.take() {
        let line = lexer.line;
        out.push(b.finish(line));
    }
    out
}

/// Accumulates one game while its tokens arrive.
struct Builder {
    number: usize,
    line: usize,
    tags: Vec<(String, String)>,
    tag_lines: Vec<usize>,
    has_movetext: bool,
    /// Set at the first movetext token: the position after the moves so far.
    pos: Option<Chess>,
    start: Option<(Chess, CastlingMode, bool)>,
    moves: Vec<GameMove>,
    result: Option<GameResult>,
    /// Line of the outermost open variation.
    open_variation: Option<usize>,
    depth: usize,
    error: Option<PgnError>,
}

impl Builder {
    fn new(number: usize, line: usize) -> Builder {
        Builder {
            number,
            line,
            tags: Vec::new(),
            tag_lines: Vec::new(),
            has_movetext: false,
            pos: None,
            start: None,
            moves: Vec::new(),
            result: None,
            open_variation: None,
            depth: 0,
            error: None,
        }
    }

    fn fail(&mut self, line: usize, kind: PgnErrorKind) {
        if self.error.is_none() {
            self.error = Some(PgnError {
                game: self.number,
                line,
                kind,
            });
        }
    }

    /// Sets up the starting position from the tags (once).
    fn set_up(&mut self, line: usize) {
        if self.start.is_some() || self.error.is_some() {
            return;
        }
        match starting_position(&self.tags) {
            Ok((pos, mode, from_fen)) => {
                self.pos = Some(pos.clone());
                self.start = Some((pos, mode, from_fen));
            }
            Err((kind, tag)) => {
                // Point at the line of the tag that is wrong.
                let tag_line = self
                    .tags
                    .iter()
                    .zip(&self.tag_lines)
                    .find(|((name, _), _)| name == tag)
                    .map_or(line, |(_, l)| *l);
                self.fail(tag_line, kind);
            }
        }
    }

    /// Takes one token; returns true when it ends the game.
    fn feed(&mut self, line: usize, tok: Tok) -> bool {
        match tok {
            Tok::Tag { name, value } => {
                self.tags.push((name, value));
                self.tag_lines.push(line);
                false
            }
            Tok::MoveNumber | Tok::Nag => {
                self.has_movetext = true;
                false
            }
            Tok::Open => {
                self.has_movetext = true;
                if self.depth == 0 {
                    self.open_variation = Some(line);
                }
                self.depth += 1;
                false
            }
            Tok::Close => {
                self.has_movetext = true;
                if self.depth == 0 {
                    self.fail(line, PgnErrorKind::UnexpectedVariationEnd);
                } else {
                    self.depth -= 1;
                }
                false
            }
            Tok::Result(result) => {
                self.has_movetext = true;
                if self.depth > 0 {
                    self.fail(line, PgnErrorKind::ResultInVariation);
                    self.depth = 0;
                }
                self.result = Some(result);
                true
            }
            Tok::Symbol(text) => {
                self.has_movetext = true;
                if self.depth > 0 {
                    return false;
                }
                self.set_up(line);
                if self.error.is_some() {
                    return false;
                }
                if let Some(pos) = self.pos.as_mut() {
                    match resolve_move(pos, &text) {
                        Ok(mv) => {
                            pos.play_unchecked(mv);
                            self.moves.push(GameMove {
                                mv,
                                san: text,
                                line,
                            });
                        }
                        Err(kind) => self.fail(line, kind),
                    }
                }
                false
            }
        }
    }

    fn finish(mut self, end_line: usize) -> Result<Game, PgnError> {
        if self.depth > 0 {
            let line = self.open_variation.unwrap_or(end_line);
            self.fail(line, PgnErrorKind::UnclosedVariation);
        }
        self.set_up(end_line);
        if let Some(e) = self.error {
            return Err(e);
        }
        match self.start {
            Some((start, castling_mode, from_fen)) => Ok(Game {
                number: self.number,
                line: self.line,
                tags: self.tags,
                castling_mode,
                start,
                from_fen,
                moves: self.moves,
                result: self.result,
            }),
            // `set_up` either sets `start` or records an error.
            None => Err(PgnError {
                game: self.number,
                line: self.line,
                kind: PgnErrorKind::MalformedTag,
            }),
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

/// Finds the legal move a SAN token stands for.
fn resolve_move(pos: &Chess, text: &str) -> Result<Move, PgnErrorKind> {
    let normalised;
    let ascii = if text.starts_with('0') {
        // Castling written with zeros.
        normalised = text.replace('0', "O");
        normalised.as_str()
    } else {
        text
    };
    let san = match San::from_ascii(ascii.as_bytes()) {
        Ok(san) => san,
        Err(_) => {
            return Err(PgnErrorKind::InvalidToken {
                token: text.to_string(),
            });
        }
    };
    if san == San::Null {
        return Err(PgnErrorKind::NullMove {
            token: text.to_string(),
        });
    }
    san.to_move(pos).map_err(|e| match e {
        SanError::AmbiguousSan => PgnErrorKind::AmbiguousMove {
            san: text.to_string(),
        },
        SanError::IllegalSan => PgnErrorKind::IllegalMove {
            san: text.to_string(),
        },
    })
}

/// A lexical token of PGN.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Tok {
    Tag {
        name: String,
        value: String,
    },
    MoveNumber,
    Nag,
    Open,
    Close,
    Result(GameResult),
    /// A symbol that should be a SAN move (annotation suffixes removed).
    Symbol(String),
}

#[derive(Debug)]
struct Token {
    tok: Tok,
    line: usize,
}

/// Splits PGN text into tokens, tracking line numbers.
struct Lexer<'a> {
    text: &'a str,
    s: &'a [u8],
    i: usize,
    line: usize,
    /// True when only whitespace was seen since the last newline.
    at_line_start: bool,
}

fn is_symbol_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'+' | b'#' | b'=' | b':' | b'-' | b'/')
}

impl<'a> Lexer<'a> {
    fn new(text: &'a str) -> Lexer<'a> {
        Lexer {
            text,
            s: text.as_bytes(),
            // A byte-order mark is no token.
            i: if text.starts_with('\u{feff}') { 3 } else { 0 },
            line: 1,
            at_line_start: true,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn bump(&mut self) {
        if let Some(b) = self.peek() {
            self.i += 1;
            if b == b'\n' {
                self.line += 1;
                self.at_line_start = true;
            } else if !b.is_ascii_whitespace() {
                self.at_line_start = false;
            }
        }
    }

    fn skip_to_line_end(&mut self) {
        while let Some(b) = self.peek() {
            if b == b'\n' {
                break;
            }
            self.bump();
        }
    }

    /// After an error that makes the rest unreadable: skip to the next line that starts a tag pair.
    fn resync_to_tag_line(&mut self) {
        loop {
            self.skip_to_line_end();
            if self.peek().is_none() {
                return;
            }
            self.bump(); // the newline
            if self.looks_like_tag_line() {
                return;
            }
        }
    }

    /// True when the text from here (a line start) is `[Name "...`, possibly indented.
    fn looks_like_tag_line(&self) -> bool {
        let mut j = self.i;
        while j < self.s.len() && matches!(self.s[j], b' ' | b'\t' | b'\r') {
            j += 1;
        }
        if self.s.get(j) != Some(&b'[') {
            return false;
        }
        j += 1;
        let name_start = j;
        while j < self.s.len() && (self.s[j].is_ascii_alphanumeric() || self.s[j] == b'_') {
            j += 1;
        }
        if j == name_start {
            return false;
        }
        while j < self.s.len() && matches!(self.s[j], b' ' | b'\t') {
            j += 1;
        }
        self.s.get(j) == Some(&b'"')
    }

    fn next_token(&mut self) -> Option<Result<Token, (usize, PgnErrorKind)>> {
        loop {
            let b = self.peek()?;
            let line = self.line;
            if b == b'%' && self.at_line_start {
                self.skip_to_line_end();
                continue;
            }
            if b.is_ascii_whitespace() {
                self.bump();
                continue;
            }
            let tok = match b {
                b'{' => {
                    let start = self.i;
                    self.bump();
                    loop {
                        match self.peek() {
                            None => {
                                // Resume at the first tag line after the comment's start.
                                self.resume_after_unterminated(start, line);
                                return Some(Err((line, PgnErrorKind::UnterminatedComment)));
                            }
                            Some(b'}') => {
                                self.bump();
                                break;
                            }
                            Some(_) => self.bump(),
                        }
                    }
                    continue;
                }
                b';' => {
                    self.skip_to_line_end();
                    continue;
                }
                b'<' => {
                    // Reserved for future expansion: skip to '>'.
                    while let Some(c) = self.peek() {
                        self.bump();
                        if c == b'>' {
                            break;
                        }
                    }
                    continue;
                }
                b'[' => return Some(self.read_tag(line)),
                b'(' => {
                    self.bump();
                    Tok::Open
                }
                b')' => {
                    self.bump();
                    Tok::Close
                }
                b'*' => {
                    self.bump();
                    Tok::Result(GameResult::Unknown)
                }
                b'$' => {
                    self.bump();
                    while self.peek().is_some_and(|c| c.is_ascii_digit()) {
                        self.bump();
                    }
                    Tok::Nag
                }
                b'!' | b'?' => {
                    while self.peek().is_some_and(|c| c == b'!' || c == b'?') {
                        self.bump();
                    }
                    Tok::Nag
                }
                b'.' => {
                    // Stray periods (e.g. "1 ..." with a space) belong to move numbers.
                    while self.peek() == Some(b'.') {
                        self.bump();
                    }
                    Tok::MoveNumber
                }
                c if is_symbol_byte(c) => self.read_symbol(),
                _ => {
                    // A token never starts inside a UTF-8 sequence: skip one whole character.
                    let ch = self
                        .text
                        .get(self.i..)
                        .and_then(|rest| rest.chars().next())
                        .unwrap_or(char::REPLACEMENT_CHARACTER);
                    for _ in 0..ch.len_utf8() {
                        self.bump();
                    }
                    return Some(Err((line, PgnErrorKind::UnexpectedCharacter { ch })));
                }
            };
            return Some(Ok(Token { tok, line }));
        }
    }

    /// After an unterminated comment opened at byte `start` on line `line`: continue with the
    /// first tag line after that line.
    fn resume_after_unterminated(&mut self, start: usize, line: usize) {
        self.i = start;
        self.line = line;
        self.resync_to_tag_line();
    }

    fn read_symbol(&mut self) -> Tok {
        let start = self.i;
        while self.peek().is_some_and(is_symbol_byte) {
            self.bump();
        }
        let mut end = self.i;
        let text = &self.s[start..end];
        if let Some(result) = std::str::from_utf8(text)
            .ok()
            .and_then(GameResult::from_token)
        {
            return Tok::Result(result);
        }
        if text.iter().all(u8::is_ascii_digit) {
            while self.peek() == Some(b'.') {
                self.bump();
            }
            return Tok::MoveNumber;
        }
        // Evaluation symbols written as text ("+-", "=", "+/-"), not the null move "--".
        if text != b"--" && text.iter().all(|c| matches!(c, b'+' | b'-' | b'=' | b'/')) {
            return Tok::Nag;
        }
        // "exd6e.p." lexes as "exd6e" followed by ".p.".
        if text.len() > 1 && text.ends_with(b"e") && self.s[self.i..].starts_with(b".p.") {
            end -= 1;
            for _ in 0..3 {
                self.bump();
            }
        }
        // Annotation suffixes directly after the move ("Nf3!?").
        while self.peek().is_some_and(|c| c == b'!' || c == b'?') {
            self.bump();
        }
        Tok::Symbol(String::from_utf8_lossy(&self.s[start..end]).into_owned())
    }

    fn read_tag(&mut self, line: usize) -> Result<Token, (usize, PgnErrorKind)> {
        let malformed = |lexer: &mut Lexer<'_>| {
            lexer.skip_to_line_end();
            Err((line, PgnErrorKind::MalformedTag))
        };
        self.bump(); // '['
        self.skip_blanks();
        let name_start = self.i;
        while self
            .peek()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == b'_')
        {
            self.bump();
        }
        if self.i == name_start {
            return malformed(self);
        }
        let name = String::from_utf8_lossy(&self.s[name_start..self.i]).into_owned();
        self.skip_blanks();
        if self.peek() != Some(b'"') {
            return malformed(self);
        }
        self.bump();
        let mut value = Vec::new();
        loop {
            match self.peek() {
                None | Some(b'\n') => return malformed(self),
                Some(b'\\') => {
                    self.bump();
                    match self.peek() {
                        Some(c @ (b'"' | b'\\')) => {
                            value.push(c);
                            self.bump();
                        }
                        _ => value.push(b'\\'),
                    }
                }
                Some(b'"') => {
                    self.bump();
                    break;
                }
                Some(c) => {
                    value.push(c);
                    self.bump();
                }
            }
        }
        self.skip_blanks();
        if self.peek() != Some(b']') {
            return malformed(self);
        }
        self.bump();
        Ok(Token {
            tok: Tok::Tag {
                name,
                value: String::from_utf8_lossy(&value).into_owned(),
            },
            line,
        })
    }

    fn skip_blanks(&mut self) {
        while self
            .peek()
            .is_some_and(|c| matches!(c, b' ' | b'\t' | b'\r'))
        {
            self.bump();
        }
    }
}
