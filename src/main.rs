//! The `retroclock` command line: parses arguments, calls the library, prints, and maps the
//! outcome to an exit code (0 answered, 1 a negative or unknown batch outcome, 2 an error).

mod cli;

use std::process::ExitCode;

use clap::{CommandFactory, Parser, Subcommand};
use cli::{Failure, RulesArg, batch::BatchArgs, games::GamesArgs, solve::SolveArgs};

#[derive(Parser)]
#[command(
    name = "retroclock",
    version,
    about = "Retrograde analysis of the halfmove clock and the 50-move rule"
)]
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
        /// The convention deciding which moves reset the count.
        #[arg(long, value_enum, ignore_case = true, default_value_t = RulesArg::Retro)]
        rules: RulesArg,
        /// Print one JSON object instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Answer a stipulation about a position's history: clock values, draw claims, game over.
    Solve(SolveArgs),
    /// Report the no-progress runs of every game in PGN files (draw claims, 75-move rule).
    Games(GamesArgs),
    /// Check every entry of puzzle files against its stated answer (`sol`).
    Batch(BatchArgs),
    /// Print the completion script of a shell to standard output (see the README to install it).
    Completions {
        /// The shell the script is for.
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Retract { fen, rules, json } => cli::retract::retract(&fen, rules.into(), json),
        Command::Solve(args) => cli::solve::solve(args),
        Command::Games(args) => cli::games::games(args),
        Command::Batch(args) => cli::batch::batch(args),
        Command::Completions { shell } => {
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "retroclock", &mut script);
            cli::emit(&String::from_utf8_lossy(&script))
        }
    };
    match result {
        Ok(code) => code,
        Err(Failure(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
