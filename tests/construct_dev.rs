//! TEMPORARY development harness.
use retroclock::construct::{Budget, construct_game};
use retroclock::position::PositionInput;

#[test]
#[ignore]
fn dev() {
    let fens = std::env::var("FENS").unwrap_or_default();
    for fen in fens.split('|').filter(|s| !s.trim().is_empty()) {
        let target = PositionInput::parse(fen.trim())
            .unwrap()
            .candidates()
            .remove(0);
        let t = std::time::Instant::now();
        let r = construct_game(&target, &Budget::seconds(5.0));
        println!(
            "{fen}: {:?} in {:?}",
            r.as_ref().map(|g| g.len()),
            t.elapsed()
        );
    }
}
