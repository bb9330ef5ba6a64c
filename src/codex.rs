//! Reading an unknown castling field by the Codex for Chess Composition (Art. 16.1): castling
//! is permitted unless it can be proved that it is not.
//!
//! Without this reading, `?` in the castling field leaves every set of rights the placement
//! allows open, and an answer covers them all. A retro problem's diagram is read otherwise: each
//! right whose king and rook stand at home is held, unless the position with it has no legal
//! history. When rights exclude each other (partial retro-analysis, Art. 16.3) every largest set
//! that is not refuted is an *alternative*, and the answer covers each of them.
//!
//! A set is refuted only by a proof: the clock solver finds the position with exactly those
//! rights illegal on its face, or explores its whole reversible graph and reaches no possible
//! origin. A set the solver could neither refute nor show a line for (its budget ran out)
//! leaves the reading open: then no answer rests on it.

use std::fmt;

use shakmaty::{Bitboard, Square};

use crate::{
    certify::{Wanted, certify},
    clock::{Budget, ClockAnswer, Progress, Standing, solve_clock},
    legal::ProofBudget,
    position::{Field, PositionInput, castling_string, possible_castling, subsets},
    rules::Rules,
    stipulation::Stipulation,
};

/// What the solver found about one set of castling rights.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum RightsFinding {
    /// No legal history: the reasons (proven).
    Refuted(Vec<String>),
    /// A line of retractions reaches a possible origin; `certified` when a proof game from the
    /// initial array extends it (else the origin passed the static checks and a retraction
    /// chain only).
    Shown {
        /// Whether a proof game certifies the line.
        certified: bool,
    },
    /// The budget ran out before either.
    Open,
    /// Not examined: a larger set that is not refuted holds these rights and more.
    Covered,
}

/// The Codex reading of an unknown castling field.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct CastlingReading {
    /// Every set of rights the placement allows, largest first, with what was found.
    pub sets: Vec<(Bitboard, RightsFinding)>,
    /// The largest sets that are not refuted: the rights the diagram holds (several when they
    /// exclude each other).
    pub alternatives: Vec<Bitboard>,
}

impl CastlingReading {
    /// Whether the reading is settled: every larger set is refuted (a proof) and every
    /// alternative is shown by a line (none was left open by the budget).
    pub fn settled(&self) -> bool {
        self.alternatives.iter().all(|a| {
            self.sets
                .iter()
                .any(|(s, f)| s == a && matches!(f, RightsFinding::Shown { .. }))
        })
    }

    /// The answer to `castling?`: the alternatives as [`alternatives_mask`], when the reading is
    /// settled.
    pub fn answer(&self) -> Option<u16> {
        self.settled()
            .then(|| alternatives_mask(&self.alternatives))
    }

    /// Whether every alternative is certified by a proof game.
    pub fn certified(&self) -> bool {
        self.settled()
            && self.sets.iter().all(|(s, f)| {
                !self.alternatives.contains(s)
                    || matches!(f, RightsFinding::Shown { certified: true })
            })
    }

    /// The sentences that explain the reading, for an answer's notes.
    pub fn notes(&self) -> Vec<String> {
        let mut notes = Vec::new();
        let names: Vec<String> = self
            .alternatives
            .iter()
            .map(|&a| castling_string(a))
            .collect();
        notes.push(match names.len() {
            _ if !self.settled() => format!(
                "castling read by the Codex (Art. 16.1): the reading is open (the largest sets not refuted: {}), so the answer says only what holds for every set of rights",
                names.join(", ")
            ),
            0 => "castling read by the Codex (Art. 16.1): every set of rights is refuted, so the position has no legal history".to_string(),
            1 => format!(
                "castling read by the Codex (Art. 16.1): the rights {} are held (no larger set survives)",
                names[0]
            ),
            _ => format!(
                "castling read by the Codex (Art. 16.1 and 16.3, partial retro-analysis): the rights exclude each other; the alternatives {} are each held in turn, and the answer covers them all",
                names.join(", ")
            ),
        });
        for (set, finding) in &self.sets {
            let name = castling_string(*set);
            match finding {
                RightsFinding::Refuted(reasons) => notes.push(format!(
                    "rights {name} refuted: {}",
                    reasons
                        .first()
                        .map_or("no legal history", String::as_str)
                )),
                RightsFinding::Open if self.alternatives.contains(set) => notes.push(format!(
                    "rights {name} neither refuted nor shown within the budget: the reading is open, and no answer rests on it"
                )),
                RightsFinding::Shown { certified: false } if self.alternatives.contains(set) => {
                    notes.push(format!(
                        "rights {name} are shown by a line to an origin that passes the static checks and a retraction chain (not a proof game): the reading rests on that"
                    ))
                }
                RightsFinding::Shown { certified: true } if self.alternatives.contains(set) => {
                    notes.push(format!(
                        "rights {name} are shown by a proof game from the initial array"
                    ))
                }
                _ => {}
            }
        }
        notes
    }
}

impl fmt::Display for RightsFinding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RightsFinding::Refuted(_) => f.write_str("refuted"),
            RightsFinding::Shown { certified: true } => f.write_str("certified"),
            RightsFinding::Shown { certified: false } => f.write_str("witnessed"),
            RightsFinding::Open => f.write_str("open"),
            RightsFinding::Covered => f.write_str("covered"),
        }
    }
}

/// What the solver found for the input with exactly the rights `set`.
fn examine(
    input: &PositionInput,
    set: Bitboard,
    rules: Rules,
    budget: &Budget,
    proof: Option<&ProofBudget>,
    progress: &(dyn Fn(Progress) + Sync),
) -> RightsFinding {
    let fixed = PositionInput {
        castling: Field::Known(set),
        castling_choices: None,
        ..input.clone()
    };
    let clock: ClockAnswer = solve_clock(&fixed, rules, budget, progress);
    // Every history so long that the game ended before (FIDE 9.6.2, or the Piran Codex's
    // automatic draw): the position cannot arise in a game in progress, unless it is mate.
    if let Some(t) = rules.over_threshold()
        && clock.has_history()
        && clock.min_lower_bound >= t
        && !fixed
            .candidates()
            .iter()
            .filter_map(|p| p.to_chess())
            .any(|c| shakmaty::Position::is_checkmate(&c))
    {
        return RightsFinding::Refuted(vec![format!(
            "every history has a clock of at least {} (proven), so {} would already have ended the game",
            clock.min_lower_bound,
            rules.over_article()
        )]);
    }
    match clock.standing {
        Standing::Illegal(reasons) => RightsFinding::Refuted(reasons),
        Standing::NoHistory => RightsFinding::Refuted(vec![format!(
            "no line of reversible retractions reaches a possible origin (retraction chains {} plies deep)",
            clock.chain_depth
        )]),
        Standing::Undecided => RightsFinding::Open,
        Standing::Possible => {
            let certified = proof.is_some_and(|proof| {
                !certify(&clock, &fixed, &[Wanted::Any], &[], proof)
                    .lines
                    .is_empty()
            });
            RightsFinding::Shown { certified }
        }
    }
}

/// Reads the unknown castling field of `input` by the Codex: None when the field is given.
/// Sets are examined largest first; a set under a larger one that is not refuted is not
/// examined (it cannot be an alternative). `proof` also tries to certify each alternative's line
/// with a proof game. `progress` is called as in [`solve_clock`], with the set being examined.
pub fn read_castling(
    input: &PositionInput,
    rules: Rules,
    budget: &Budget,
    proof: Option<&ProofBudget>,
    progress: &(dyn Fn(Bitboard, Progress) + Sync),
) -> Option<CastlingReading> {
    if input.castling != Field::Unknown {
        return None;
    }
    let mut sets = subsets(possible_castling(&input.board));
    sets.sort_by_key(|s| std::cmp::Reverse(s.count()));
    let mut found: Vec<(Bitboard, RightsFinding)> = Vec::with_capacity(sets.len());
    for set in sets {
        let covered = found.iter().any(|(larger, f)| {
            !matches!(f, RightsFinding::Refuted(_) | RightsFinding::Covered)
                && *larger != set
                && (set & !*larger).is_empty()
        });
        let finding = if covered {
            RightsFinding::Covered
        } else {
            examine(input, set, rules, budget, proof, &|p| progress(set, p))
        };
        found.push((set, finding));
    }
    let alternatives = found
        .iter()
        .filter(|(_, f)| matches!(f, RightsFinding::Shown { .. } | RightsFinding::Open))
        .map(|(s, _)| *s)
        .collect();
    Some(CastlingReading {
        sets: found,
        alternatives,
    })
}

/// The input narrowed to the reading: the castling field becomes the single alternative, or
/// ranges over the alternatives. A reading left open, or with no alternative (every set is
/// refuted, and the solver says why), leaves the input as it is.
pub fn narrowed(input: &PositionInput, reading: &CastlingReading) -> PositionInput {
    if !reading.settled() {
        return input.clone();
    }
    match reading.alternatives.as_slice() {
        [] => input.clone(),
        [one] => PositionInput {
            castling: Field::Known(*one),
            castling_choices: None,
            ..input.clone()
        },
        many => PositionInput {
            castling_choices: Some(many.to_vec()),
            ..input.clone()
        },
    }
}

/// Why the Codex reading cannot apply to `input` and `stip`, if it cannot: the castling field
/// is given (a fact), or the question counts sequences or games (`last N?`, `proofgame N`),
/// whose answers carry no reading. (`castling?` asks for the reading itself.)
pub fn refusal(input: &PositionInput, stip: Stipulation) -> Option<String> {
    if let Some(given) = input.castling.known() {
        return Some(format!(
            "reads an unknown castling field (`?`), but this one is given: {}",
            castling_string(given)
        ));
    }
    matches!(stip, Stipulation::Last(_) | Stipulation::ProofGame(_)).then(|| {
        format!("applies to the clock questions, claim?, over?, fen and legal?, not to `{stip}`")
    })
}

/// The corners whose rights a set of alternatives is written with, in FEN order.
const RIGHT_SQUARES: [Square; 4] = [Square::H1, Square::A1, Square::H8, Square::A8];

/// Sets of castling rights as one number: bit `i` stands for the set whose rights are the bits
/// of `i` (K = 1, Q = 2, k = 4, q = 8), so a set of sets (the alternatives) fits in 16 bits.
pub fn alternatives_mask(sets: &[Bitboard]) -> u16 {
    sets.iter().fold(0u16, |mask, set| {
        let index = RIGHT_SQUARES
            .iter()
            .enumerate()
            .filter(|(_, sq)| set.contains(**sq))
            .fold(0usize, |i, (bit, _)| i | 1 << bit);
        mask | 1 << index
    })
}

/// The sets of [`alternatives_mask`] written out, largest first, separated by spaces (`-` for
/// the empty set; nothing at all for no set).
pub fn alternatives_text(mask: u16) -> String {
    let mut sets: Vec<Bitboard> = (0..16usize)
        .filter(|i| mask & 1 << i != 0)
        .map(|i| {
            RIGHT_SQUARES
                .iter()
                .enumerate()
                .filter(|(bit, _)| i & 1 << bit != 0)
                .fold(Bitboard::EMPTY, |b, (_, sq)| b.with(*sq))
        })
        .collect();
    sets.sort_by_key(|s| (std::cmp::Reverse(s.count()), castling_string(*s)));
    sets.iter()
        .map(|&s| castling_string(s))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(fen: &str) -> CastlingReading {
        let input = PositionInput::parse(fen).unwrap();
        read_castling(&input, Rules::Fide, &Budget::default(), None, &|_, _| {}).unwrap()
    }

    #[test]
    fn given_rights_are_not_read() {
        let input = PositionInput::parse("4k3/8/8/8/8/8/8/R3K2R w KQ -").unwrap();
        assert_eq!(
            read_castling(&input, Rules::Fide, &Budget::default(), None, &|_, _| {}),
            None
        );
    }

    #[test]
    fn every_right_is_held_when_none_is_refuted() {
        let r = read("r3k2r/pppp1ppp/4p3/8/8/8/PPPPBPPP/R3K2R b ? -");
        assert_eq!(r.alternatives, vec![Bitboard::CORNERS]);
        assert!(r.settled());
        // Only the largest set was examined.
        let examined = r
            .sets
            .iter()
            .filter(|(_, f)| *f != RightsFinding::Covered)
            .count();
        assert_eq!(examined, 1);
    }

    #[test]
    fn rights_that_exclude_each_other_are_alternatives() {
        // White's last move was a king or rook move (its pawns are at home): both rights
        // together are refuted, each alone is not.
        let r = read("4k3/8/8/8/8/8/PPPPPPPP/R3K2R b ? -");
        let mut alts = r.alternatives.clone();
        alts.sort_by_key(|b| b.0);
        assert_eq!(
            alts,
            vec![
                Bitboard::from(shakmaty::Square::A1),
                Bitboard::from(shakmaty::Square::H1)
            ]
        );
        assert!(matches!(r.sets[0], (b, RightsFinding::Refuted(_)) if b.count() == 2));
        assert!(r.settled());
        let input = PositionInput::parse("4k3/8/8/8/8/8/PPPPPPPP/R3K2R b ? -").unwrap();
        let n = narrowed(&input, &r);
        assert_eq!(n.candidates().len(), 2);
        assert!(r.notes()[0].contains("partial retro-analysis"));
    }

    #[test]
    fn an_exhausted_budget_leaves_the_reading_open() {
        let input = PositionInput::parse("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w ? -").unwrap();
        let budget = Budget {
            max_nodes: 1,
            ..Budget::default()
        };
        let r = read_castling(&input, Rules::Fide, &budget, None, &|_, _| {}).unwrap();
        assert!(!r.settled());
    }

    #[test]
    fn alternatives_are_written_largest_first() {
        use shakmaty::Square::{A1, A8, H1, H8};
        let sets = [
            Bitboard::from(A1),
            Bitboard::from(H1),
            Bitboard::EMPTY.with(H1).with(A1).with(H8).with(A8),
        ];
        let mask = alternatives_mask(&sets);
        assert_eq!(mask.count_ones(), 3);
        assert_eq!(alternatives_text(mask), "KQkq K Q");
        assert_eq!(
            alternatives_text(alternatives_mask(&[Bitboard::EMPTY])),
            "-"
        );
        assert_eq!(alternatives_text(0), "");
    }
}
