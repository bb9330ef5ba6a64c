//! The subcommands of the `retroclock` binary: each reads its arguments, calls the library and
//! prints. Shared here: the failure type, argument parsing helpers, output and progress.

pub mod batch;
pub mod games;
pub mod retract;
pub mod solve;

use std::{
    io::Write,
    path::{Path, PathBuf},
    process::ExitCode,
    time::Duration,
};

use retroclock::{certify::GivenGame, position::PositionInput, rules::Rules};

/// A user-facing failure: the message is printed as is and the exit code is 2.
pub struct Failure(pub String);

/// The rule set named by `--rules`, or a failure naming the flag.
pub fn parse_rules(name: &str) -> Result<Rules, Failure> {
    name.parse().map_err(|e| Failure(format!("--rules: {e}")))
}

/// The position of a FEN argument, or a failure saying which field is wrong and why.
pub fn parse_fen(fen: &str) -> Result<PositionInput, Failure> {
    PositionInput::parse(fen).map_err(|e| Failure(e.to_string()))
}

/// Writes to stdout; a closed pipe ends the program quietly.
pub fn emit(text: &str) -> Result<ExitCode, Failure> {
    write_out(text).map(|_| ExitCode::SUCCESS)
}

/// Writes a part of the output to stdout: false when the reader has closed the pipe (the
/// program should then end quietly).
pub fn write_out(text: &str) -> Result<bool, Failure> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(Failure(format!("cannot write output: {e}"))),
    }
}

/// The byte budget of `--max-memory MB` (none when not given).
pub fn memory_budget(megabytes: Option<u64>) -> Result<Option<u64>, Failure> {
    match megabytes {
        Some(0) => Err(Failure(
            "--max-memory must be at least 1 (megabytes)".into(),
        )),
        Some(mb) => Ok(Some(mb.saturating_mul(1 << 20))),
        None => Ok(None),
    }
}

/// A rayon pool with `threads` workers (default: all cores) and its size.
pub fn thread_pool(threads: Option<usize>) -> Result<(rayon::ThreadPool, usize), Failure> {
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

/// A spinner on stderr when it is a terminal; none otherwise.
pub fn progress_bar() -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new_spinner();
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

/// A bar counting `len` items (named `unit`) on stderr when it is a terminal; none otherwise.
pub fn counting_bar(len: u64, unit: &str) -> Option<indicatif::ProgressBar> {
    use std::io::IsTerminal;
    if !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = indicatif::ProgressBar::new(len);
    let template = format!("{{bar:40}} {{pos}}/{{len}} {unit}, {{elapsed}} (eta {{eta}})");
    bar.set_style(
        indicatif::ProgressStyle::with_template(&template)
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar.enable_steady_tick(Duration::from_millis(200));
    Some(bar)
}

/// The files named on the command line, in order, with each folder replaced by the files in it
/// and in its subfolders whose extension is one of `extensions` (any case), sorted by path.
/// Symbolic links to files are taken; those to folders are not followed. A folder that cannot
/// be read, or that holds no such file, is an error naming it (path, message); the other paths
/// go on.
pub fn expand_paths(
    paths: &[PathBuf],
    extensions: &[&str],
) -> Vec<Result<PathBuf, (PathBuf, String)>> {
    let mut out = Vec::new();
    for path in paths {
        if !path.is_dir() {
            out.push(Ok(path.clone()));
            continue;
        }
        let start = out.len();
        walk(path, extensions, &mut out);
        if out.len() == start {
            let wanted: Vec<String> = extensions.iter().map(|e| format!(".{e}")).collect();
            out.push(Err((
                path.clone(),
                format!("no {} file in this folder", wanted.join(" or ")),
            )));
        }
    }
    out
}

/// Adds the files of `dir` and its subfolders that [`expand_paths`] takes, in path order.
fn walk(dir: &Path, extensions: &[&str], out: &mut Vec<Result<PathBuf, (PathBuf, String)>>) {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) => {
            out.push(Err((dir.to_path_buf(), format!("cannot read folder: {e}"))));
            return;
        }
    };
    let mut paths = Vec::new();
    for entry in entries {
        match entry {
            Ok(entry) => paths.push(entry.path()),
            Err(e) => out.push(Err((dir.to_path_buf(), format!("cannot read folder: {e}")))),
        }
    }
    paths.sort();
    for path in paths {
        // Symbolic links are looked through for files only: a link to a folder could loop.
        let Ok(link) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        if link.is_dir() {
            walk(&path, extensions, out);
        } else if path.is_file()
            && path
                .extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| extensions.iter().any(|x| x.eq_ignore_ascii_case(e)))
        {
            out.push(Ok(path));
        }
    }
}

/// The games of a PGN file, each from the initial array, as games a user gives: a game that
/// cannot be read, or that starts from a set-up position, is a failure naming the file, the
/// game and the line.
pub fn read_games(path: &Path) -> Result<Vec<GivenGame>, Failure> {
    let bytes = read_input(path)
        .map_err(|e| Failure(format!("--game: cannot read {}: {e}", path.display())))?;
    let text = String::from_utf8_lossy(&bytes);
    let results = retroclock::pgn::parse_pgn(&text);
    let several = results.len() > 1;
    let mut games = Vec::new();
    for result in results {
        let game = result.map_err(|e| {
            Failure(format!(
                "--game: {}: game {}, line {}: {}",
                path.display(),
                e.game,
                e.line,
                e.kind
            ))
        })?;
        let name = if several {
            format!("{} (game {})", path.display(), game.number)
        } else {
            path.display().to_string()
        };
        if game.from_fen && game.start != shakmaty::Chess::default() {
            return Err(Failure(format!(
                "--game: {name}: the game starts from a set-up position (FEN tag, line {}), not from the initial array",
                game.line
            )));
        }
        games.push(GivenGame {
            name,
            moves: game.moves.iter().map(|m| m.mv).collect(),
        });
    }
    if games.is_empty() {
        return Err(Failure(format!("--game: {} holds no game", path.display())));
    }
    Ok(games)
}

/// The bytes of `path`, or of standard input when the path is `-`.
pub fn read_input(path: &Path) -> std::io::Result<Vec<u8>> {
    if path == Path::new("-") {
        let mut bytes = Vec::new();
        std::io::Read::read_to_end(&mut std::io::stdin().lock(), &mut bytes)?;
        Ok(bytes)
    } else {
        std::fs::read(path)
    }
}
