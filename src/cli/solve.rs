//! `retroclock solve`: answers a stipulation about one position.

use std::{
    process::ExitCode,
    time::{Duration, Instant},
};

use retroclock::{
    answer::{Limits, Question, Reply, Stage, answer},
    clock::Budget,
    format,
    legal::ProofBudget,
    position::castling_string,
    stipulation::{Stipulation, StipulationError},
    verdict::Verdict,
};

use super::{
    Failure, emit, memory_budget, parse_fen, parse_rules, progress_bar, read_games, thread_pool,
};

/// The arguments of `solve`.
#[derive(clap::Args)]
pub struct SolveArgs {
    /// The position: a FEN of 4 to 6 fields, `?` for unknown castling/e.p./clock/fullmove.
    pub fen: String,
    /// The question: clock?, clock=N, clock>=N, clock<=N, claim?, over?, fen, legal?, castling?, last N?,
    /// proofgame N (default: `fen` when the FEN gives a clock, else `clock?`). The clock
    /// questions (clock? included), claim? and over? may end with `at move M`: the position occurs at fullmove
    /// number M of a game from the initial array.
    #[arg(long)]
    pub stip: Option<String>,
    /// The rule set: retro (default), fide, piran, fide1988.
    #[arg(long, default_value = "retro")]
    pub rules: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// The most positions to explore.
    #[arg(long, default_value_t = 2_000_000)]
    pub max_nodes: u64,
    /// Stop after this many seconds (the answer then says what is proven so far): the search,
    /// the proof-game searches and `last N?` all end by then.
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Stop a search once its tables hold this many megabytes (the answer then says what is
    /// proven so far).
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<u64>,
    /// Worker threads (default: all cores). Answers do not depend on it.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Depth of the legal retraction chain required of a reset's predecessor.
    #[arg(long, default_value_t = 2)]
    pub depth: u32,
    /// The deepest chain tried on the origins nearest the position: the depth is raised on
    /// them one ply at a time and those whose every line dies are dropped (equal to --depth:
    /// off).
    #[arg(long, default_value_t = 6)]
    pub max_depth: u32,
    /// Write the explored graph for Graphviz: the 5,000 positions nearest to the position at
    /// most (a larger graph is cut, and the file and stderr say so).
    #[arg(long)]
    pub dot: Option<std::path::PathBuf>,
    /// For `last N?`: check each sequence this many further plies back.
    #[arg(long, default_value_t = 1)]
    pub extra: u32,
    /// Seconds for finding games from the initial array (`legal?`, and certifying witness
    /// lines; 0 = none; given games still certify).
    #[arg(long, default_value_t = 5.0)]
    pub proof_time: f64,
    /// A PGN file whose game, from the initial array, ends in the position: it is replayed and
    /// certifies the clock and move number it gives (may be given more than once).
    #[arg(long, value_name = "FILE.pgn")]
    pub game: Vec<std::path::PathBuf>,
    /// Write the certified game the answer rests on (or, for `clock?`, the one of the smallest
    /// certified clock) to this file as PGN.
    #[arg(long, value_name = "FILE.pgn")]
    pub certificate: Option<std::path::PathBuf>,
    /// Read an unknown castling field (`?`) by the Codex (Art. 16.1): each right whose king and
    /// rook stand at home is held unless the solver proves it impossible; rights that exclude
    /// each other are alternatives (Art. 16.3), and the answer covers them all.
    #[arg(long)]
    pub codex: bool,
}

/// Builds the search budget from the command-line limits.
pub fn budget(
    max_nodes: u64,
    timeout: Option<f64>,
    depth: u32,
    max_depth: u32,
) -> Result<Budget, Failure> {
    if max_depth < depth {
        return Err(Failure(format!(
            "--max-depth ({max_depth}) must be at least --depth ({depth})"
        )));
    }
    let deadline = match timeout {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(Failure(format!(
                "--timeout must be a positive number of seconds, found {t}"
            )));
        }
        Some(t) => Some(Instant::now() + Duration::from_secs_f64(t)),
        None => None,
    };
    Ok(Budget {
        max_nodes,
        deadline,
        chain_depth: depth,
        max_chain_depth: max_depth,
        ..Budget::default()
    })
}

/// Runs `solve`: exit status 0 when the question is answered (a verdict, `unknown` included,
/// or a count), 1 when the position has no legal history (verdict `illegal`), 2 on bad input.
pub fn solve(args: SolveArgs) -> Result<ExitCode, Failure> {
    let rules = parse_rules(&args.rules)?;
    let input = parse_fen(&args.fen)?;
    let stip: Stipulation = match &args.stip {
        Some(s) => s
            .parse()
            .map_err(|e: StipulationError| Failure(e.to_string()))?,
        None if input.halfmove_clock.known().is_some() => Stipulation::Fen,
        None => Stipulation::Clock(None),
    };
    let max_bytes = memory_budget(args.max_memory)?;
    let search = Budget {
        max_bytes,
        ..budget(args.max_nodes, args.timeout, args.depth, args.max_depth)?
    };
    if !(args.proof_time.is_finite() && args.proof_time >= 0.0) {
        return Err(Failure(format!(
            "--proof-time must be a number of seconds, 0 or more, found {}",
            args.proof_time
        )));
    }
    let mut games = Vec::new();
    for path in &args.game {
        games.extend(read_games(path)?);
    }
    let (pool, threads) = thread_pool(args.threads)?;
    let question = Question {
        position: input,
        stipulation: stip,
        rules,
        codex: args.codex,
        games,
        extra: args.extra,
    };
    let limits = Limits {
        proof: ProofBudget {
            time: Duration::from_secs_f64(args.proof_time),
            max_bytes,
            deadline: search.deadline,
            ..ProofBudget::default()
        },
        search,
        listed: 100,
    };
    let bar = progress_bar();
    let report = |stage: Stage| {
        if let Some(bar) = &bar {
            bar.set_message(match stage {
                Stage::Search(p) => format!("{} positions, level {}", p.nodes, p.level),
                Stage::Codex(set, p) => format!(
                    "Codex reading, rights {}: {} positions, level {}",
                    castling_string(set),
                    p.nodes,
                    p.level
                ),
                Stage::Certifying => "looking for games from the initial array".to_string(),
            });
            bar.tick();
        }
    };
    let reply = pool.install(|| answer(&question, &limits, &report));
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    let reply = reply.map_err(|e| Failure(e.to_string()))?;
    let answer = match reply {
        Reply::LastMoves(found) => {
            let text = if args.json {
                format!("{}\n", format::last_moves_json(&found, rules.name()))
            } else {
                format::last_moves_human(&found, rules.name())
            };
            return emit(&text);
        }
        Reply::ProofGames { plies, found } => {
            let text = if args.json {
                format!("{}\n", format::proof_games_json(&found, plies))
            } else {
                format::proof_games_human(&found, plies)
            };
            return emit(&text);
        }
        Reply::Verdict(answer) => answer,
    };
    if let Some(path) = &args.dot {
        let (text, drawn, explored) = retroclock::format::graph_dot(&answer.clock)
            .ok_or_else(|| Failure("--dot: the search kept no graph (illegal position)".into()))?;
        std::fs::write(path, text)
            .map_err(|e| Failure(format!("--dot: cannot write {}: {e}", path.display())))?;
        if drawn < explored {
            eprintln!(
                "--dot: {} holds the {drawn} positions nearest to the position, of {explored} explored",
                path.display()
            );
        }
    }
    if let Some(path) = &args.certificate {
        let line = answer
            .certified
            .as_ref()
            .or_else(|| answer.proofs.lines.first());
        match line {
            Some(line) => std::fs::write(path, format::certified_pgn(line, &question.position))
                .map_err(|e| {
                    Failure(format!(
                        "--certificate: cannot write {}: {e}",
                        path.display()
                    ))
                })?,
            None => eprintln!(
                "--certificate: no game from the initial array was found, so {} was not written",
                path.display()
            ),
        }
    }
    let text = if args.json {
        format!("{}\n", format::answer_json(&answer, threads))
    } else {
        format::answer_human(&answer, threads)
    };
    let code = emit(&text)?;
    Ok(if answer.verdict == Verdict::Illegal {
        ExitCode::from(1)
    } else {
        code
    })
}
