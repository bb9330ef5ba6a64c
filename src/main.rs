//! The `retroclock` command line: parses arguments, calls the library, prints, and maps the
//! outcome to an exit code (0 answered, 1 a negative or unknown batch outcome, 2 an error).

use std::{io::Write, process::ExitCode};

use clap::{Parser, Subcommand};
use retroclock::{
    format,
    position::PositionInput,
    retract::retractions,
    rules::Rules,
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
}

/// A user-facing failure: the message is printed as is and the exit code is 2.
struct Failure(String);

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Retract { fen, rules, json } => retract(&fen, &rules, json),
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
