//! `retroclock completions SHELL`: every shell gets a script that knows the subcommands and the
//! `--rules` flag (and its values in bash, zsh and fish); an unknown shell
//! is an error that lists the shells.

mod common;

use common::cli::retroclock;

#[test]
fn every_shell_gets_a_script_with_the_subcommands_and_the_rules() {
    let subcommands = ["retract", "solve", "games", "batch", "completions"];
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let r = retroclock("completions", &[shell]);
        assert_eq!(r.code, 0, "{shell}: {}", r.stderr);
        for word in subcommands.iter().chain(&["rules"]) {
            assert!(r.stdout.contains(word), "{shell} script lacks {word}");
        }
        // clap_complete's PowerShell and elvish scripts complete flags, not their values.
        if !matches!(shell, "powershell" | "elvish") {
            assert!(
                r.stdout.contains("fide1988"),
                "{shell} script lacks fide1988"
            );
        }
    }
}

#[test]
fn an_unknown_shell_is_an_error_listing_the_shells() {
    let r = retroclock("completions", &["tcsh"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("[possible values: bash, elvish, fish, powershell, zsh]"),
        "{}",
        r.stderr
    );
}
