//! `retroclock batch`: checks every entry of puzzle files against its stated answer.

use std::{
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use retroclock::batch::{self, Entry, Settings, Shard, Summary};

use super::{
    Failure, counting_bar, expand_paths, memory_budget, read_games, read_input, thread_pool,
    write_out,
};

/// The output formats of `batch`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, clap::ValueEnum)]
pub enum Format {
    /// One line per entry and a summary line.
    Human,
    /// One JSON object per entry (JSON Lines).
    Jsonl,
    /// A header and one row per entry.
    Csv,
}

/// The arguments of `batch`.
#[derive(clap::Args, Debug)]
pub struct BatchArgs {
    /// Puzzle files: EPD lines with id/stip/rules/sol/hmvc/fmvn operations, or plain FEN lines
    /// (see puzzles/README.md); `-` reads standard input. A folder stands for every `.epd` and
    /// `.fen` file in it and its subfolders, in path order.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Entries solved at once (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Human)]
    pub format: Format,
    /// The most positions one entry's search may store.
    #[arg(long, default_value_t = 2_000_000)]
    pub max_nodes: u64,
    /// Seconds each entry may take (the answer then says what is proven so far).
    #[arg(long)]
    pub timeout: Option<f64>,
    /// Megabytes one entry's search may hold (the answer then says what is proven so far).
    #[arg(long, value_name = "MB")]
    pub max_memory: Option<u64>,
    /// Check only part K of N: the entries whose 0-based index i has i % N == K-1.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// Seconds each entry may spend finding games from the initial array that certify its
    /// lines (0 = none; the games entries name still certify).
    #[arg(long, default_value_t = 2.0)]
    pub proof_time: f64,
}

/// Reads the games an entry's `game` operation names (a path relative to the puzzle file's
/// folder, or to the working folder for standard input); a game that cannot be read makes the
/// entry an error.
fn attach_games(entry: &mut Entry, puzzle_file: &Path) {
    let Ok(puzzle) = &entry.puzzle else {
        return;
    };
    let Some(name) = puzzle.game.clone() else {
        return;
    };
    let base = if puzzle_file == Path::new("-") {
        Path::new(".")
    } else {
        puzzle_file.parent().unwrap_or(Path::new("."))
    };
    match read_games(&base.join(&name)) {
        Ok(games) => entry.games = games,
        Err(Failure(message)) => {
            entry.puzzle = Err(format!(
                "game \"{name}\": {}",
                message.trim_start_matches("--game: ")
            ));
        }
    }
}

/// Runs `batch`: exit 0 when every entry is confirmed or unstated, 1 when any is a mismatch,
/// ambiguous or unknown, 2 when any is an error.
pub fn batch(args: BatchArgs) -> Result<ExitCode, Failure> {
    let shard = args
        .shard
        .as_deref()
        .map(Shard::parse)
        .transpose()
        .map_err(|e| Failure(format!("--shard: {e}")))?;
    let timeout = match args.timeout {
        Some(t) if !(t.is_finite() && t > 0.0) => {
            return Err(Failure(format!(
                "--timeout must be a positive number of seconds, found {t}"
            )));
        }
        Some(t) => Some(Duration::from_secs_f64(t)),
        None => None,
    };
    let jobs = match args.jobs {
        Some(0) => return Err(Failure("--jobs must be at least 1".into())),
        other => other,
    };
    let (pool, threads) = thread_pool(jobs)?;
    if !(args.proof_time.is_finite() && args.proof_time >= 0.0) {
        return Err(Failure(format!(
            "--proof-time must be a number of seconds, 0 or more, found {}",
            args.proof_time
        )));
    }
    let settings = Settings {
        max_nodes: args.max_nodes,
        timeout,
        max_bytes: memory_budget(args.max_memory)?,
        proof_time: Duration::from_secs_f64(args.proof_time),
        ..Settings::default()
    };

    // File errors are reported in every shard; the entries are numbered across all files.
    let mut entries: Vec<Entry> = Vec::new();
    let mut index = 0usize;
    for path in expand_paths(&args.files, &["epd", "fen"]) {
        let path = match path {
            Ok(path) => path,
            Err((folder, message)) => {
                entries.push(batch::file_error(&folder.display().to_string(), message));
                continue;
            }
        };
        let name = path.display().to_string();
        match read_input(&path) {
            Ok(bytes) => {
                let text = String::from_utf8_lossy(&bytes);
                for mut e in batch::entries_from_text(&name, &text) {
                    if shard.is_none_or(|s| s.contains(index)) {
                        attach_games(&mut e, &path);
                        entries.push(e);
                    }
                    index += 1;
                }
            }
            Err(e) => entries.push(batch::file_error(&name, format!("cannot read: {e}"))),
        }
    }
    for e in &entries {
        if let Err(message) = &e.puzzle {
            if e.line == 0 {
                eprintln!("error: {}: {message}", e.file);
            } else {
                eprintln!("error: {}:{}: {message}", e.file, e.line);
            }
        }
    }

    let bar = counting_bar(entries.len() as u64, "entries");
    // Written around the bar, which is drawn on stderr when that is a terminal.
    let write = |text: &str| match &bar {
        Some(bar) => bar.suspend(|| write_out(text)),
        None => write_out(text),
    };
    let mut summary = Summary::default();
    let mut failure: Option<Failure> = None;
    let mut open = true;
    if args.format == Format::Csv {
        open = write(batch::CSV_HEADER)?;
    }
    if open {
        let deliver = |e: &Entry, o: batch::Outcome| {
            summary.add(&o);
            let text = match args.format {
                Format::Human => batch::outcome_human(e, &o),
                Format::Jsonl => format!("{}\n", batch::outcome_json(e, &o, threads)),
                Format::Csv => batch::outcome_csv(e, &o),
            };
            match write(&text) {
                Ok(still_open) => {
                    open = still_open;
                    still_open
                }
                Err(f) => {
                    failure = Some(f);
                    false
                }
            }
        };
        pool.install(|| {
            batch::run_in_order(
                &entries,
                &settings,
                &|| {
                    if let Some(bar) = &bar {
                        bar.inc(1);
                    }
                },
                deliver,
            )
        });
    }
    if let Some(bar) = bar {
        bar.finish_and_clear();
    }
    if let Some(f) = failure {
        return Err(f);
    }
    // A reader that went away gets no summary of the entries it did not read.
    match args.format {
        _ if !open => {}
        Format::Human => {
            write_out(&format!("{summary}\n"))?;
        }
        // The machine formats keep one record per entry; the summary goes to stderr.
        Format::Jsonl | Format::Csv => eprintln!("{summary}"),
    }
    Ok(ExitCode::from(summary.exit_code()))
}
