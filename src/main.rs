//! The `retroclock` command line: parses arguments, calls the library, prints, and maps the
//! outcome to an exit code (0 answered, 1 a negative or unknown batch outcome, 2 an error).

use std::{
    io::Write,
    process::ExitCode,
    time::{Duration, Instant},
};

use clap::{Parser, Subcommand};
use retroclock::{
    clock::{Budget, Progress, solve_clock},
    format,
    position::PositionInput,
    retract::retractions,
    rules::Rules,
    stipulation::{Stipulation, StipulationError},
    verdict::decide,
};

#[derive(Parser)]
#[command(name = "retroclock", version, about = "Retrograde analysis of the halfmove clock and the 50-move rule")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List the legal retractions (last moves taken back) of a position.
    Retract {
        /// The position: a FEN of 4 to 6 fields, `?` for unknown castling/e.p./clock/fullmove.
        fen: String,
        /// The convention deciding which moves reset the count: retro, fide, piran, fide1988.
        #[arg(long, default_value = "retro")]
        rules: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Answer a stipulation about a position's history: clock values, draw claims, game over.
    Solve {
        /// The position: a FEN of 4 to 6 fields, `?` for unknown castling/e.p./clock/fullmove.
        fen: String,
        /// The question: clock?, clock=N, clock>=N, clock<=N, claim?, over?, fen, legal?, last N?
        /// (default: `fen` when the FEN gives a clock, else `clock?`).
        #[arg(long)]
        stip: Option<String>,
        /// The rule set: retro (default), fide, piran, fide1988.
        #[arg(long, default_value = "retro")]
        rules: String,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
        /// The most positions to explore.
        #[arg(long, default_value_t = 2_000_000)]
        max_nodes: u64,
        /// Stop after this many seconds (the answer then says what is proven so far).
        #[arg(long)]
        timeout: Option<f64>,
        /// Worker threads (default: all cores). Answers do not depend on it.
        #[arg(long)]
        threads: Option<usize>,
        /// Depth of the legal retraction chain required of a reset's predecessor.
        #[arg(long, default_value_t = 2)]
        depth: u32,
        /// Write the explored graph for Graphviz (small searches only).
        #[arg(long)]
        dot: Option<std::path::PathBuf>,
    },
}

/// A user-facing failure: the message is printed as is and the exit code is 2.
struct Failure(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Retract { fen, rules, json } => retract(&fen, &rules, json),
        Command::Solve {
            fen,
            stip,
            rules,
            json,
            max_nodes,
            timeout,
            threads,
            depth,
            dot,
        } => solve(SolveArgs {
            fen,
            stip,
            rules,
            json,
            max_nodes,
            timeout,
            threads,
            depth,
            dot,
        }),
    };
    match result {
        Ok(code) => code,
        Err(Failure(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn parse_rules(name: &str) -> Result<Rules, Failure> {
    name.parse().map_err(|e| Failure(format!("--rules: {e}")))
}

fn parse_fen(fen: &str) -> Result<PositionInput, Failure> {
    PositionInput::parse(fen).map_err(|e| Failure(e.to_string()))
}

/// Writes to stdout; a closed pipe ends the program quietly.
fn emit(text: &str) -> Result<ExitCode, Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(ExitCode::SUCCESS),
        Err(e) => Err(Failure(format!("cannot write output: {e}"))),
    }
}

fn retract(fen: &str, rules: &str, json: bool) -> Result<ExitCode, Failure> {
    let rules = parse_rules(rules)?;
    let input = parse_fen(fen)?;
    let convention = rules.convention();
    let mut text = String::new();
    let mut objects = Vec::new();
    for pos in input.candidates() {
        let rs = retractions(&pos);
        if json {
            objects.push(format::retractions_json(&pos, rules.name(), &rs, convention));
        } else {
            text.push_str(&format::retractions_human(&pos, &rs, convention));
        }
    }
    if json {
        let value = if objects.len() == 1 {
            objects.remove(0)
        } else {
            let all: Vec<_> = objects
                .iter()
                .flat_map(|o| o["retractions"].as_array().cloned().unwrap_or_default())
                .collect();
            serde_json::json!({"rules": rules.name(), "positions": objects, "retractions": all})
        };
        text = format!("{value}\n");
    }
    emit(&text)
}

struct SolveArgs {
    fen: String,
    stip: Option<String>,
    rules: String,
    json: bool,
    max_nodes: u64,
    timeout: Option<f64>,
    threads: Option<usize>,
    depth: u32,
    dot: Option<std::path::PathBuf>,
}

fn thread_pool(threads: Option<usize>) -> Result<(rayon::ThreadPool, usize), Failure> {
    let n = match threads {
        Some(0) => return Err(Failure("--threads must be at least 1".into())),
        Some(n) => n,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| Failure(format!("cannot start {n} threads: {e}")))?;
    Ok((pool, n))
}

fn budget(max_nodes: u64, timeout: Option<f64>, depth: u32) -> Result<Budget, Failure> {
    let deadline = match timeout {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(Failure(format!("--timeout must be a positive number of seconds, found {t}")));
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

fn solve(args: SolveArgs) -> Result<ExitCode, Failure> {
    let rules = parse_rules(&args.rules)?;
    let input = parse_fen(&args.fen)?;
    let stip: Stipulation = match &args.stip {
        Some(s) => s.parse().map_err(|e: StipulationError| Failure(e.to_string()))?,
        None if input.halfmove_clock.known().is_some() => Stipulation::Fen,
        None => Stipulation::Clock,
    };
    let budget = budget(args.max_nodes, args.timeout, args.depth)?;
    let (pool, threads) = thread_pool(args.threads)?;
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

/// A spinner on stderr when it is a terminal; none otherwise.
fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}
