//! Every retraction the engine reports replays forward to the position, and the real previous
//! position of random games is always among the predecessors.

use retroclock::{position::Position, retract::retractions, verify::check_retraction};
use shakmaty::{Chess, Position as _};

/// A small seeded PRNG (xorshift64*), so the games are the same on every run.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn real_predecessors_are_found_and_all_replay() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let (mut positions, mut checked) = (0usize, 0usize);
    for _ in 0..60 {
        let mut pos = Chess::default();
        for _ in 0..160 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let mv = moves[(rng.next() % moves.len() as u64) as usize];
            let before = Position::from_chess(&pos);
            pos.play_unchecked(mv);
            let after = Position::from_chess(&pos);
            let rs = retractions(&after);
            assert!(
                rs.iter().any(|r| r.predecessor == before && r.mv == mv),
                "missing real predecessor {} --{mv:?}--> {}",
                before.fen4(),
                after.fen4()
            );
            for r in &rs {
                if let Err(e) = check_retraction(&after, &r.predecessor, r.mv) {
                    panic!("{} from {}: {e}", r.uci(), after.fen4());
                }
            }
            positions += 1;
            checked += rs.len();
        }
    }
    eprintln!("{positions} positions, {checked} retractions replayed");
    assert!(positions > 5000);
}

/// The reversible retractions (the clock search's filter) are exactly the
/// reversible part of the full list from the engine's own generator (which the oracle checks).
#[test]
fn reversible_path_agrees_with_the_full_generator() {
    use retroclock::{
        retract::{Filter, visit_retractions},
        rules::Convention,
    };
    use std::collections::BTreeSet;
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    let mut compared = 0;
    for _ in 0..40 {
        let mut pos = Chess::default();
        for _ in 0..150 {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos.play_unchecked(moves[(rng.next() % moves.len() as u64) as usize]);
            let p = Position::from_chess(&pos);
            for convention in [Convention::Retro, Convention::Fide] {
                let full: BTreeSet<String> = retractions(&p)
                    .into_iter()
                    .filter(|r| !r.is_reset(convention))
                    .map(|r| format!("{} {}", r.uci(), r.predecessor.fen4()))
                    .collect();
                let mut fast = BTreeSet::new();
                visit_retractions(&p, Filter::Reversible(convention), |r| {
                    fast.insert(format!("{} {}", r.uci(), r.predecessor.fen4()));
                    true
                });
                assert_eq!(full, fast, "{}", p.fen4());
                compared += 1;
            }
        }
    }
    assert!(compared > 5000);
}
