//! `retroclock solve`: answers a stipulation about one position.

use std::{
    process::ExitCode,
    time::{Duration, Instant},
};

use retroclock::{
    clock::{Budget, Progress, solve_clock},
    format,
    lastmoves::{LastMovesBudget, last_moves},
    stipulation::{Stipulation, StipulationError},
    verdict::decide,
};

use super::{Failure, emit, parse_fen, parse_rules, progress_bar, thread_pool};

/// The arguments of `solve`.
pub struct SolveArgs {
    /// The FEN.
    pub fen: String,
    /// The stipulation.
    pub stip: Option<String>,
    /// The rule set name.
    pub rules: String,
    /// JSON output.
    pub json: bool,
    /// Node budget.
    pub max_nodes: u64,
    /// Time budget in seconds.
    pub timeout: Option<f64>,
    /// Worker threads.
    pub threads: Option<usize>,
    /// Retraction-chain depth for origins.
    pub depth: u32,
    /// DOT output file.
    pub dot: Option<std::path::PathBuf>,
    /// Further plies each `last N?` sequence is checked back.
    pub extra: u32,
}

/// Builds the search budget from the command-line limits.
pub fn budget(max_nodes: u64, timeout: Option<f64>, depth: u32) -> Result<Budget, Failure> {
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
        ..Budget::default()
    })
}

/// Runs `solve`.
pub fn solve(args: SolveArgs) -> Result<ExitCode, Failure> {
    let rules = parse_rules(&args.rules)?;
    let input = parse_fen(&args.fen)?;
    let stip: Stipulation = match &args.stip {
        Some(s) => s
            .parse()
            .map_err(|e: StipulationError| Failure(e.to_string()))?,
        None if input.halfmove_clock.known().is_some() => Stipulation::Fen,
        None => Stipulation::Clock,
    };
    let budget = budget(args.max_nodes, args.timeout, args.depth)?;
    let (pool, threads) = thread_pool(args.threads)?;
    if let Stipulation::Last(plies) = stip {
        let limits = LastMovesBudget {
            max_nodes: args.max_nodes,
            ..LastMovesBudget::default()
        };
        let found =
            pool.install(|| last_moves(&input, plies, args.extra, rules.convention(), &limits));
        let text = if args.json {
            format!("{}\n", format::last_moves_json(&found, rules.name()))
        } else {
            format::last_moves_human(&found, rules.name())
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
        let clock = solve_clock(&input, rules, &budget, &report);
        decide(stip, &input, clock)
    });
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(path) = &args.dot {
        let text = retroclock::format::graph_dot(&answer.clock)
            .ok_or_else(|| Failure("--dot: the search kept no graph (illegal position)".into()))?;
        std::fs::write(path, text)
            .map_err(|e| Failure(format!("--dot: cannot write {}: {e}", path.display())))?;
    }
    let text = if args.json {
        format!("{}\n", format::answer_json(&answer, threads))
    } else {
        format::answer_human(&answer, threads)
    };
    emit(&text)
}
