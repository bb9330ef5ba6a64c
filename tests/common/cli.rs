//! Running the real binary from tests: exit code, stdout and stderr of one command.

use assert_cmd::{Command, cargo::cargo_bin_cmd};
use serde_json::Value;

/// What one run of the binary gave.
pub struct Run {
    /// The exit code.
    pub code: i32,
    /// Standard output.
    pub stdout: String,
    /// Standard error.
    pub stderr: String,
}

/// Runs `cmd` to its end.
pub fn run(mut cmd: Command) -> Run {
    let out = cmd.output().expect("the binary runs");
    Run {
        code: out.status.code().expect("an exit code"),
        stdout: String::from_utf8(out.stdout).expect("UTF-8 output"),
        stderr: String::from_utf8(out.stderr).expect("UTF-8 errors"),
    }
}

/// Runs `retroclock <subcommand> <args>...` to its end.
pub fn retroclock(subcommand: &str, args: &[&str]) -> Run {
    let mut cmd = cargo_bin_cmd!("retroclock");
    cmd.arg(subcommand).args(args);
    run(cmd)
}

/// The one JSON object a successful run printed.
pub fn json(r: &Run) -> Value {
    json_exiting(r, 0)
}

/// The one JSON object a run that ended with exit status `code` printed (1: an illegal
/// position).
pub fn json_exiting(r: &Run, code: i32) -> Value {
    assert_eq!(r.code, code, "stderr: {}", r.stderr);
    serde_json::from_str(&r.stdout).expect("one JSON object")
}
