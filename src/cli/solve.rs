//! `retroclock solve`: answers a stipulation about one position.

use std::{
    process::ExitCode,
    time::{Duration, Instant},
};

use retroclock::{
    clock::{Budget, Progress, solve_clock},
    codex::{narrowed, read_castling, refusal},
    format,
    lastmoves::{EpReading, LastMovesBudget, LastMovesQuery, last_moves_for},
    legal::{ProofBudget, certify_input, judge, target_of},
    position::castling_string,
    proofgame,
    stipulation::{Stipulation, StipulationError},
    verdict::decide,
};

use super::{Failure, RulesArg, emit, memory_budget, parse_fen, progress_bar, thread_pool};

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
    /// The rule set.
    #[arg(long, value_enum, ignore_case = true, default_value_t = RulesArg::Retro)]
    pub rules: RulesArg,
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
    /// For `last N?`: how the FEN's e.p. field `-` is read (the answer names the reading).
    #[arg(long, value_enum, default_value_t = EpArg::Capturable)]
    pub ep_reading: EpArg,
    /// Seconds for proof-game searches (`legal?`, and certifying witness lines; 0 = none).
    #[arg(long, default_value_t = 2.0)]
    pub proof_time: f64,
    /// Read an unknown castling field (`?`) by the Codex (Art. 16.1): each right whose king and
    /// rook stand at home is held unless the solver proves it impossible; rights that exclude
    /// each other are alternatives (Art. 16.3), and the answer covers them all.
    #[arg(long)]
    pub codex: bool,
}

/// The readings of the e.p. field `-` that `--ep-reading` takes.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum EpArg {
    /// No e.p. capture is legal now; the last move may still be a double step no pawn can take.
    Capturable,
    /// The FEN standard's: the last move was no double step.
    Standard,
}

impl From<EpArg> for EpReading {
    fn from(arg: EpArg) -> EpReading {
        match arg {
            EpArg::Capturable => EpReading::Capturable,
            EpArg::Standard => EpReading::Standard,
        }
    }
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

/// Runs `solve`.
pub fn solve(args: SolveArgs) -> Result<ExitCode, Failure> {
    let rules: retroclock::rules::Rules = args.rules.into();
    let input = parse_fen(&args.fen)?;
    let stip: Stipulation = match &args.stip {
        Some(s) => s
            .parse()
            .map_err(|e: StipulationError| Failure(e.to_string()))?,
        None if input.halfmove_clock.known().is_some() => Stipulation::Fen,
        None => Stipulation::Clock(None),
    };
    let max_bytes = memory_budget(args.max_memory)?;
    let budget = Budget {
        max_bytes,
        ..budget(args.max_nodes, args.timeout, args.depth, args.max_depth)?
    };
    let (pool, threads) = thread_pool(args.threads)?;
    // `castling?` asks for the Codex reading itself.
    let codex = args.codex || stip == Stipulation::Castling;
    if codex && let Some(why) = refusal(&input, stip) {
        let asker = if args.codex { "--codex" } else { "castling?" };
        return Err(Failure(format!("{asker} {why}")));
    }
    if let Stipulation::Last(plies, at_move) = stip {
        let limits = LastMovesBudget {
            max_nodes: args.max_nodes,
            deadline: budget.deadline,
            ..LastMovesBudget::default()
        };
        let query = LastMovesQuery {
            plies,
            extra: args.extra,
            convention: rules.convention(),
            ep_reading: args.ep_reading.into(),
            at_move,
        };
        let found = pool.install(|| last_moves_for(&input, &query, &limits));
        let text = if args.json {
            format!("{}\n", format::last_moves_json(&found, rules.name()))
        } else {
            format::last_moves_human(&found, rules.name())
        };
        return emit(&text);
    }
    let proof_budget = ProofBudget {
        time: Duration::from_secs_f64(args.proof_time.max(0.0)),
        max_bytes,
        deadline: budget.deadline,
        ..ProofBudget::default()
    };
    if let Stipulation::ProofGame(plies) = stip {
        let target = target_of(&input);
        let pg_budget = proofgame::Budget {
            max_nodes: u64::MAX,
            deadline: budget.deadline,
            max_bytes,
        };
        let found = proofgame::proof_games(&target, plies, &pg_budget, 100);
        // Every game is replayed from the initial array before it is printed.
        if let Some(bad) = found
            .games
            .iter()
            .position(|g| !proofgame::replay_reaches(&target, g))
        {
            return Err(Failure(format!(
                "internal check failed: proof game {} does not replay to the position",
                bad + 1
            )));
        }
        let text = if args.json {
            format!("{}\n", format::proof_games_json(&found, plies))
        } else {
            format::proof_games_human(&found, plies)
        };
        return emit(&text);
    }
    let bar = progress_bar();
    let answer = pool.install(|| {
        let report = |p: Progress| {
            if let Some(bar) = &bar {
                bar.set_message(format!("{} positions, level {}", p.nodes, p.level));
                bar.tick();
            }
        };
        // The Codex reading decides which castling rights the answer covers.
        let reading = codex.then(|| {
            let report_set = |set, p: Progress| {
                if let Some(bar) = &bar {
                    bar.set_message(format!(
                        "Codex reading, rights {}: {} positions, level {}",
                        castling_string(set),
                        p.nodes,
                        p.level
                    ));
                    bar.tick();
                }
            };
            let proof = (args.proof_time > 0.0).then_some(&proof_budget);
            read_castling(&input, rules, &budget, proof, &report_set)
        });
        let reading = reading.flatten();
        let input = reading
            .as_ref()
            .map_or_else(|| input.clone(), |r| narrowed(&input, r));
        let clock = solve_clock(&input, rules, &budget, &report);
        let mut answer = decide(stip, &input, clock);
        if stip == Stipulation::Legal {
            let legality = judge(&input, &answer.clock, &proof_budget);
            answer = answer.with_legality(legality);
        }
        // Certify the witness line with a proof game when one is found in time.
        if args.proof_time > 0.0 {
            let line = answer
                .certificate
                .clone()
                .or_else(|| answer.clock.shortest.clone());
            if let Some(cert) = line {
                answer.certified = certify_input(&cert, &input, &proof_budget);
            }
        }
        match reading {
            Some(r) => answer.with_codex(r),
            None => answer,
        }
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
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
    let text = if args.json {
        format!("{}\n", format::answer_json(&answer, threads))
    } else {
        format::answer_human(&answer, threads)
    };
    emit(&text)
}
