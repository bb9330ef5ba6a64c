//! Positions from the shared corpus's games: the clean-chess PGN games that start from the
//! initial array, read with the project's PGN reader.
//!
//! The corpus lives beside the project (`../shared/corpus` from the crate root); the environment
//! variable `RETROCLOCK_CORPUS` names another folder. Without it the callers say
//! `skipped: corpus not found` and pass.

use std::path::{Path, PathBuf};

use retroclock::pgn::parse_pgn;
use shakmaty::{EnPassantMode, Position, Setup};

use super::Rng;
use super::oracle::fen_without_clocks;

/// The corpus folder.
pub fn corpus_root() -> PathBuf {
    std::env::var_os("RETROCLOCK_CORPUS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus"),
        PathBuf::from,
    )
}

/// Every `.pgn` file under `dir`, in sorted order.
fn pgn_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        if path.is_dir() {
            pgn_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "pgn") {
            out.push(path);
        }
    }
}

/// The positions of each clean-chess game that starts from the initial array: the initial
/// array, then the position after every ply (canonical e.p. square, real clocks). None when the
/// corpus is not there.
pub fn initial_array_games() -> Option<Vec<Vec<Setup>>> {
    let dir = corpus_root().join("clean_chess");
    if !dir.is_dir() {
        return None;
    }
    let mut files = Vec::new();
    pgn_files(&dir, &mut files);
    let mut games = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).ok()?;
        for game in parse_pgn(&text).into_iter().flatten() {
            if game.from_fen {
                continue;
            }
            let mut pos = game.start.clone();
            let mut positions = vec![pos.to_setup(EnPassantMode::Legal)];
            for m in &game.moves {
                pos.play_unchecked(m.mv);
                positions.push(pos.to_setup(EnPassantMode::Legal));
            }
            games.push(positions);
        }
    }
    Some(games)
}

/// `n` different positions drawn from [`initial_array_games`]: each draw picks a game, then a
/// position of it, uniformly (seeded), so that long games do not crowd out short ones. None
/// when the corpus is not there.
pub fn sample_positions(n: usize, seed: u64) -> Option<Vec<Setup>> {
    let games = initial_array_games()?;
    let mut rng = Rng::new(seed);
    let mut out = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut draws = 0;
    while out.len() < n && draws < 100 * n {
        draws += 1;
        let game = rng.pick(&games);
        let setup = rng.pick(game);
        if seen.insert(fen_without_clocks(setup)) {
            out.push(setup.clone());
        }
    }
    Some(out)
}
