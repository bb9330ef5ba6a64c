//! Tests of the required-moves analysis.

use shakmaty::{Board, ByColor};

use super::*;

fn proof_game(fen: &str, plies: u32) -> Result<Analysis, Impossible> {
    let board: Board = fen.parse().unwrap();
    analyse(&Problem::proof_game(
        &board,
        None,
        ByColor {
            white: plies.div_ceil(2),
            black: plies / 2,
        },
    ))
}

#[test]
fn debug_single_capture_91() {
    let r = proof_game(
        "kn4n1/pppB1pp1/RRrr1Q2/3pp1bp/P6P/1P4P1/b1PPPP1B/1N2K1N1",
        36,
    );
    assert!(r.is_ok(), "{:?}", r.err());
}
