//! `retroclock games`: the no-progress runs of every game of PGN files, and with `--verify` a
//! retro check of every position the games reach.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
};

use rayon::prelude::*;
use retroclock::{
    clock::{Budget, MaxClock, Standing, solve_clock},
    games::{GameReport, ReplayOptions, analyse_game},
    pgn::{Game, parse_pgn},
    position::PositionInput,
    rules::{Convention, Rules},
};
use serde_json::{Value, json};
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position as _, fen::Fen, san::SanPlus};

use super::{Failure, counting_bar, expand_paths, memory_budget, read_input, write_out};

/// The conventions games are counted under (`--rules`).
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum GamesRules {
    /// FIDE: captures and pawn moves reset the count.
    Fide,
    /// Retro: castling resets it too.
    Retro,
}

impl From<GamesRules> for Rules {
    fn from(arg: GamesRules) -> Rules {
        match arg {
            GamesRules::Fide => Rules::Fide,
            GamesRules::Retro => Rules::Retro,
        }
    }
}

/// The arguments of `games`.
#[derive(clap::Args, Debug)]
pub struct GamesArgs {
    /// PGN files (`-`: standard input), or folders: every `.pgn` file in them and their
    /// subfolders, in path order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Which moves reset the count.
    #[arg(long, value_enum, ignore_case = true, default_value_t = GamesRules::Fide)]
    pub rules: GamesRules,
    /// Print JSON Lines: one object per game (or per unreadable game).
    #[arg(long)]
    pub json: bool,
    /// Also check every position with the clock solver: it must not be judged illegal, and
    /// its real clock must not be proven impossible. A failure is a bug report (exit 1).
    #[arg(long)]
    pub verify: bool,
    /// The most positions each `--verify` search may store.
    #[arg(long, default_value_t = 20_000)]
    pub max_nodes: u64,
    /// Megabytes each `--verify` search may hold (a position whose search runs out is
    /// undecided, not a failure).
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<u64>,
}

/// One position of a game, to be checked by `--verify`.
struct Check {
    /// Index of the game in the list of reports.
    game: usize,
    /// Its ply in the game.
    ply: usize,
    /// The move that produced it (`23...Nf6`), or `start`.
    label: String,
    /// The FEN given to the solver.
    fen: String,
    /// The real clock, when the game's history is known (it starts from the initial array).
    clock: Option<u64>,
}

/// What `--verify` found at one position.
enum Finding {
    /// The real clock (or, for a game from a FEN, a history) is witnessed.
    Witnessed,
    /// The search did not decide within its budget; nothing is wrong.
    Undecided,
    /// The solver contradicts the real game.
    Failure(String),
}

/// A game's verification.
#[derive(Default)]
struct Verification {
    positions: usize,
    witnessed: usize,
    undecided: usize,
    skipped: Option<&'static str>,
    failures: Vec<(usize, String, String, String)>,
}

/// A processed game: its report or what is wrong with it.
enum Item {
    Report {
        file: String,
        report: Box<GameReport>,
        from_fen: bool,
        verification: Option<Verification>,
    },
    Error {
        file: String,
        game: Option<usize>,
        line: Option<usize>,
        message: String,
    },
}

/// Runs `games`: exit 0 when all is well, 1 when `--verify` found a failure, 2 when a file or a
/// game cannot be read. Each file is read, checked and printed before the next is read, so a
/// long run shows its results as it goes and holds one file at a time.
pub fn games(args: GamesArgs) -> Result<ExitCode, Failure> {
    let rules = Rules::from(args.rules);
    let convention = rules.convention();
    let options = ReplayOptions {
        convention,
        ..ReplayOptions::default()
    };
    let budget = Budget {
        max_nodes: args.max_nodes,
        max_bytes: memory_budget(args.max_memory)?,
        ..Budget::default()
    };
    let mut counts = Counts::default();
    for path in expand_paths(&args.files, &["pgn"]) {
        let (mut items, games) = match path {
            Ok(path) => read_games(&path, &options),
            Err((folder, message)) => (
                vec![Item::Error {
                    file: folder.display().to_string(),
                    game: None,
                    line: None,
                    message,
                }],
                Vec::new(),
            ),
        };
        if args.verify {
            verify(&mut items, &games, rules, convention, &budget);
        }
        if !write_out(&render(&items, args.json, &mut counts))? {
            break; // the reader went away
        }
    }
    Ok(ExitCode::from(if counts.errors > 0 {
        2
    } else if counts.failures > 0 {
        1
    } else {
        0
    }))
}

/// The games of one file (`-`: standard input), each analysed: a report per game or an error
/// per game (or one for the file) that cannot be read, with the games to verify (by the index
/// of their report).
fn read_games(path: &Path, options: &ReplayOptions) -> (Vec<Item>, Vec<(usize, Game)>) {
    let file = path.display().to_string();
    let mut items: Vec<Item> = Vec::new();
    let mut games: Vec<(usize, Game)> = Vec::new();
    let bytes = match read_input(path) {
        Ok(b) => b,
        Err(e) => {
            items.push(Item::Error {
                file,
                game: None,
                line: None,
                message: format!("cannot read: {e}"),
            });
            return (items, games);
        }
    };
    for result in parse_pgn(&String::from_utf8_lossy(&bytes)) {
        match result {
            Ok(game) => match analyse_game(&game, options) {
                Ok(report) => {
                    items.push(Item::Report {
                        file: file.clone(),
                        report: Box::new(report),
                        from_fen: game.from_fen,
                        verification: None,
                    });
                    games.push((items.len() - 1, game));
                }
                Err(e) => items.push(Item::Error {
                    file: file.clone(),
                    game: Some(e.game),
                    // The reader checks every move, so this is not expected: the game's line.
                    line: Some(game.line),
                    message: format!("illegal move \"{}\" at ply {}", e.san, e.ply),
                }),
            },
            Err(e) => items.push(Item::Error {
                file: file.clone(),
                game: Some(e.game),
                line: Some(e.line),
                message: e.kind.to_string(),
            }),
        }
    }
    (items, games)
}

/// Errors and verification failures met so far.
#[derive(Default)]
struct Counts {
    errors: usize,
    failures: usize,
}

/// The output of `items` (text or JSON Lines); errors and bug reports also go to stderr, and
/// are counted in `counts`.
fn render(items: &[Item], json: bool, counts: &mut Counts) -> String {
    let mut text = String::new();
    for item in items {
        match item {
            Item::Report {
                file,
                report,
                from_fen,
                verification,
            } => {
                if let Some(v) = verification {
                    counts.failures += v.failures.len();
                    for (ply, label, fen, problem) in &v.failures {
                        eprintln!(
                            "retroclock bug: {file}, game {}, ply {ply} (after {label}): {problem}\n  FEN: {fen}",
                            report.game
                        );
                    }
                }
                if json {
                    text.push_str(&report_json(file, report, *from_fen, verification).to_string());
                    text.push('\n');
                } else {
                    text.push_str(&format!("{file}: {report}\n"));
                    if let Some(v) = verification {
                        text.push_str(&verification_text(v, *from_fen));
                    }
                    text.push('\n');
                }
            }
            Item::Error {
                file,
                game,
                line,
                message,
            } => {
                counts.errors += 1;
                let mut place = file.clone();
                if let Some(l) = line {
                    place.push_str(&format!(":{l}"));
                }
                if let Some(g) = game {
                    place.push_str(&format!(", game {g}"));
                }
                eprintln!("error: {place}: {message}");
                if json {
                    let v = json!({"file": file, "game": game, "line": line, "error": message});
                    text.push_str(&v.to_string());
                    text.push('\n');
                } else {
                    text.push_str(&format!("{place}: error: {message}\n\n"));
                }
            }
        }
    }
    text
}

/// The positions of `game`, each with the move that produced it and its real clock under
/// `convention` (unknown for a game that starts from a FEN: its clock is only the FEN's claim).
fn positions(game_index: usize, game: &Game, convention: Convention) -> Vec<Check> {
    let mut out = Vec::with_capacity(game.moves.len() + 1);
    let mut pos: Chess = game.start.clone();
    let mut clock = u64::from(pos.halfmoves());
    let mut label = "start".to_string();
    for ply in 0..=game.moves.len() {
        let mut setup = pos.to_setup(EnPassantMode::Legal);
        setup.halfmoves = u32::try_from(clock).unwrap_or(u32::MAX);
        let fen = Fen::try_from_setup(setup)
            .unwrap_or_else(|e| e.ignore())
            .to_string();
        let fen = if game.from_fen {
            // Keep placement, side, castling and e.p.; the clock is unknown.
            let fields: Vec<&str> = fen.split_whitespace().collect();
            format!("{} ? {}", fields[..4].join(" "), fields[5])
        } else {
            fen
        };
        out.push(Check {
            game: game_index,
            ply,
            label: label.clone(),
            fen,
            clock: (!game.from_fen).then_some(clock),
        });
        let Some(gm) = game.moves.get(ply) else {
            break;
        };
        let number = pos.fullmoves().get();
        let dots = if pos.turn().is_white() { "." } else { "..." };
        clock = if convention.resets(&gm.mv) {
            0
        } else {
            clock + 1
        };
        let san = SanPlus::from_move_and_play_unchecked(&mut pos, gm.mv);
        label = format!("{number}{dots}{san}");
    }
    out
}

/// Checks one position with the clock solver.
fn check_position(c: &Check, rules: Rules, budget: &Budget) -> Finding {
    let input = match PositionInput::parse(&c.fen) {
        Ok(i) => i,
        Err(e) => return Finding::Failure(format!("the solver cannot read the real FEN: {e}")),
    };
    let answer = solve_clock(&input, rules, budget, &|_| {});
    match &answer.standing {
        Standing::Illegal(reasons) => {
            return Finding::Failure(format!("judged illegal: {}", reasons.join("; ")));
        }
        Standing::NoHistory => {
            return Finding::Failure(
                "judged to have no legal history (no reversible line reaches an origin)".into(),
            );
        }
        Standing::Possible | Standing::Undecided => {}
    }
    let Some(real) = c.clock else {
        return match answer.standing {
            Standing::Possible => Finding::Witnessed,
            _ => Finding::Undecided,
        };
    };
    match answer.value_possible(real) {
        Some(true) => Finding::Witnessed,
        None => Finding::Undecided,
        Some(false) => {
            let max = match answer.max {
                MaxClock::Bounded(m) => m.to_string(),
                MaxClock::Unbounded => "unbounded".to_string(),
                MaxClock::Unknown { .. } => "unknown".to_string(),
            };
            Finding::Failure(format!(
                "the real clock {real} is judged impossible (solver: min {}, lower bound {}, max {max}, {} positions, {})",
                answer.min.map_or("unknown".to_string(), |m| m.to_string()),
                answer.min_lower_bound,
                answer.nodes,
                if answer.complete {
                    "complete"
                } else {
                    "incomplete"
                },
            ))
        }
    }
}

/// Runs `--verify` over every position of every game, in parallel, and stores the findings
/// with the games' reports.
fn verify(
    items: &mut [Item],
    games: &[(usize, Game)],
    rules: Rules,
    convention: Convention,
    budget: &Budget,
) {
    let mut checks: Vec<Check> = Vec::new();
    for (item, game) in games {
        if let Item::Report { verification, .. } = &mut items[*item] {
            let mut v = Verification::default();
            if game.castling_mode == CastlingMode::Chess960 {
                v.skipped = Some("Chess960 games are not verified");
            } else {
                checks.extend(positions(*item, game, convention));
            }
            *verification = Some(v);
        }
    }
    let bar = counting_bar(checks.len() as u64, "positions");
    let findings: Vec<Finding> = checks
        .par_iter()
        .map(|c| {
            let f = check_position(c, rules, budget);
            if let Some(bar) = &bar {
                bar.inc(1);
            }
            f
        })
        .collect();
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    for (c, f) in checks.into_iter().zip(findings) {
        if let Item::Report {
            verification: Some(v),
            ..
        } = &mut items[c.game]
        {
            v.positions += 1;
            match f {
                Finding::Witnessed => v.witnessed += 1,
                Finding::Undecided => v.undecided += 1,
                Finding::Failure(problem) => v.failures.push((c.ply, c.label, c.fen, problem)),
            }
        }
    }
}

fn verification_text(v: &Verification, from_fen: bool) -> String {
    if let Some(why) = v.skipped {
        return format!("  verify: skipped ({why})\n");
    }
    let what = if from_fen {
        "a history witnessed (the game starts from a FEN: its clock is not checked)"
    } else {
        "the real clock witnessed"
    };
    let mut s = format!(
        "  verify: {} positions, {} failure(s); {what} in {}, undecided within the budget in {}\n",
        v.positions,
        v.failures.len(),
        v.witnessed,
        v.undecided
    );
    for (ply, label, fen, problem) in &v.failures {
        s.push_str(&format!(
            "  BUG at ply {ply} (after {label}): {problem}\n    FEN: {fen}\n"
        ));
    }
    s
}

fn report_json(
    file: &str,
    report: &GameReport,
    from_fen: bool,
    verification: &Option<Verification>,
) -> Value {
    let mut v = serde_json::to_value(report).unwrap_or_else(|e| json!({"error": e.to_string()}));
    v["file"] = json!(file);
    v["from_fen"] = json!(from_fen);
    if let Some(ver) = verification {
        v["verify"] = json!({
            "skipped": ver.skipped,
            "positions": ver.positions,
            "witnessed": ver.witnessed,
            "undecided": ver.undecided,
            "failures": ver.failures.iter().map(|(ply, label, fen, problem)| json!({
                "ply": ply, "label": label, "fen": fen, "problem": problem,
            })).collect::<Vec<_>>(),
        });
    }
    v
}
