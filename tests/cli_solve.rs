//! `retroclock solve` driven through the real binary: the JSON answer's fields, the budgets
//! (nodes, memory) giving `unknown` with what is proven so far, and input errors that name
//! what is wrong.

mod common;

use common::cli::{Run, json, retroclock};
use serde_json::Value;

/// The README's example: a lone king each, clock 120 claimed.
const KINGS: &str = "4k3/8/8/8/8/8/8/4K3 w - - 120 70";
/// K+R v K: about 400,000 positions reachable by reversible retractions.
const KRK: &str = "8/5k2/8/8/8/2K5/8/7R b - -";

fn solve(args: &[&str]) -> Run {
    retroclock("solve", args)
}

#[test]
fn the_json_answer_carries_verdict_bounds_rules_and_stats() {
    let v = json(&solve(&[
        KINGS,
        "--stip",
        "clock?",
        "--json",
        "--threads",
        "1",
    ]));
    assert_eq!(v["verdict"], "solved");
    assert_eq!(v["rules"], "retro");
    assert_eq!(v["clock"]["min"], 0);
    assert_eq!(v["clock"]["max"], Value::Null);
    assert_eq!(v["clock"]["unbounded"], true);
    assert_eq!(v["stats"]["threads"], 1);
    assert!(v["stats"]["nodes"].as_u64().is_some_and(|n| n > 0));
}

#[test]
fn the_memory_budget_stops_the_search_with_the_bounds_proven_so_far() {
    let small = json(&solve(&[
        KRK,
        "--rules",
        "fide",
        "--json",
        "--max-memory",
        "1",
    ]));
    assert_eq!(small["clock"]["complete"], false);
    assert_eq!(small["stats"]["stopped_by"], "memory budget");
    // What was found before the stop still stands: the minimum is witnessed at 0.
    assert_eq!(small["clock"]["min"], 0);
    let text = solve(&[KRK, "--rules", "fide", "--max-memory", "1"]);
    assert!(
        text.stdout
            .contains("incomplete (stopped by the memory budget)"),
        "{}",
        text.stdout
    );
    // A budget the search fits in changes nothing.
    let roomy = json(&solve(&[
        KRK,
        "--rules",
        "fide",
        "--json",
        "--max-memory",
        "4096",
    ]));
    assert_eq!(roomy["clock"]["complete"], true);
    assert_eq!(roomy["stats"]["stopped_by"], Value::Null);
    assert!(roomy["stats"]["nodes"].as_u64() > small["stats"]["nodes"].as_u64());
}

#[test]
fn a_value_witnessed_before_the_node_budget_runs_out_is_answered() {
    // Clock 301 needs a line of 301 plies; the cycles found within 2,000 positions witness it.
    let v = json(&solve(&[
        KRK,
        "--rules",
        "fide",
        "--stip",
        "clock=301",
        "--json",
        "--max-nodes",
        "2000",
    ]));
    assert_eq!(v["clock"]["complete"], false);
    assert_eq!(v["stats"]["stopped_by"], "node budget");
    assert_eq!(v["verdict"], "yes");
    assert_eq!(v["possibly"], true);
    assert!(
        v["shortest"]["moves"].as_array().is_some(),
        "a witness line is given: {v}"
    );
}

#[test]
fn bad_input_is_an_error_that_names_what_is_wrong() {
    let r = solve(&[KRK, "--max-memory", "0"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("--max-memory"), "{}", r.stderr);

    let r = solve(&["8/5k2/8/8/8/2K5/8/7R x - -"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.to_lowercase().contains("side to move"),
        "{}",
        r.stderr
    );

    let r = solve(&[KRK, "--stip", "clock=>5"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("clock=>5"), "{}", r.stderr);
}
