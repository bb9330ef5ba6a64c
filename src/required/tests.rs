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

/// Prints the analysis of `RETROCLOCK_ANALYSE="placement plies"` (a debugging aid:
/// `cargo test --release --lib -- --ignored print_analysis --nocapture`).
#[test]
#[ignore]
fn print_analysis() {
    let Ok(spec) = std::env::var("RETROCLOCK_ANALYSE") else {
        return;
    };
    let mut it = spec.split_whitespace();
    let fen = it.next().unwrap();
    let plies: u32 = it.next().unwrap().parse().unwrap();
    match proof_game(fen, plies) {
        Err(e) => eprintln!("impossible: {e}"),
        Ok(a) => {
            for color in Color::ALL {
                eprintln!("{color:?}: {:?}", a.side(color));
            }
            for (i, u) in a.problem().units.iter().enumerate() {
                let r = a.unit(i);
                eprintln!(
                    "{i:2} {:?} {:?} {}: moves {} captures {} fates {:?} stops {} edges {} never {}",
                    u.piece.color,
                    u.piece.role,
                    u.square,
                    r.required_moves,
                    r.required_captures,
                    r.fates,
                    r.stops.count(),
                    a.units[i].graph.edge_count(),
                    r.never_moves
                );
            }
            for color in Color::ALL {
                eprintln!("{color:?} claims {:?}", a.extra[color]);
                for p in &a.pairs[color] {
                    eprintln!("  pair {:?}", p.units);
                }
            }
        }
    }
}
