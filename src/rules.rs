//! The conventions that decide which moves reset the halfmove count and when a draw can be
//! claimed or is automatic.

use std::{fmt, str::FromStr};

use shakmaty::{Bitboard, Board, Color, Rank, Role};

/// Which moves reset the halfmove count.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Convention {
    /// The retro-problem convention (Piran Codex 1958, Art. 5): captures, pawn moves and castling
    /// reset the count.
    #[default]
    Retro,
    /// The FIDE Laws: captures and pawn moves reset the count; castling does not.
    Fide,
}

impl Convention {
    /// Whether castling resets the count under this convention.
    pub fn castling_resets(self) -> bool {
        matches!(self, Convention::Retro)
    }

    /// Whether the forward move `mv` resets the count under this convention.
    pub fn resets(self, mv: &shakmaty::Move) -> bool {
        mv.is_zeroing() || (self.castling_resets() && mv.is_castle())
    }
}

impl fmt::Display for Convention {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Convention::Fide => "FIDE (castling does not reset the count)",
            Convention::Retro => "retro (castling resets the count)",
        })
    }
}

/// A rule set a user selects with `--rules`: the reset convention plus the draw thresholds.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Rules {
    /// Retro convention (castling resets) with the FIDE 9.3 / 9.6.2 thresholds. The default.
    #[default]
    Retro,
    /// FIDE Laws (2018): castling does not reset; 9.3 claims at 100 plies, 9.6.2 at 150.
    Fide,
    /// Piran Codex (1958): castling resets and the draw is automatic at 50 moves each (100 plies).
    Piran,
    /// FIDE 1988: as FIDE, with 75-move allowances (150 plies) for the material sets
    /// KBBKN, KNNKP, KQKBB, KQKNN, KQP(7th)KQ, KRPKBP, KRBKR.
    Fide1988,
}

impl Rules {
    /// Every rule set, in the order the documentation lists them.
    pub const ALL: [Rules; 4] = [Rules::Retro, Rules::Fide, Rules::Piran, Rules::Fide1988];

    /// The name users type and answers carry.
    pub fn name(self) -> &'static str {
        match self {
            Rules::Retro => "retro",
            Rules::Fide => "fide",
            Rules::Piran => "piran",
            Rules::Fide1988 => "fide1988",
        }
    }

    /// Which moves reset the count.
    pub fn convention(self) -> Convention {
        match self {
            Rules::Retro | Rules::Piran => Convention::Retro,
            Rules::Fide | Rules::Fide1988 => Convention::Fide,
        }
    }

    /// The clock (in plies) from which FIDE 9.3.2 lets the player to move claim a draw; 9.3.1
    /// needs one ply less plus an eligible move. 100, or 150 under `fide1988` for the material
    /// sets that had a 75-move allowance.
    pub fn claim_threshold(self, board: &Board) -> u64 {
        if self == Rules::Fide1988 && has_1988_allowance(board) {
            150
        } else {
            100
        }
    }

    /// The clock from which the game is over without a claim: 150 (FIDE 9.6.2) under `retro`
    /// and `fide`, 100 under `piran` (automatic draw), none under `fide1988` (no such rule then).
    pub fn over_threshold(self) -> Option<u64> {
        match self {
            Rules::Retro | Rules::Fide => Some(150),
            Rules::Piran => Some(100),
            Rules::Fide1988 => None,
        }
    }

    /// The article that ends the game at [`Rules::over_threshold`].
    pub fn over_article(self) -> &'static str {
        match self {
            Rules::Piran => "Piran Codex Art. 5 (automatic draw after 50 moves each)",
            _ => "FIDE 9.6.2 (75 moves each)",
        }
    }
}

/// Whether the material is one of the 1988 75-move allowances: KBBKN, KNNKP, KQKBB, KQKNN,
/// KQP(pawn on its 7th rank)KQ, KRPKBP, KRBKR (either colour as the stronger side).
pub fn has_1988_allowance(board: &Board) -> bool {
    let side = |c: Color| -> String {
        let mut s = String::from("K");
        for (role, ch) in [
            (Role::Queen, 'Q'),
            (Role::Rook, 'R'),
            (Role::Bishop, 'B'),
            (Role::Knight, 'N'),
            (Role::Pawn, 'P'),
        ] {
            for _ in 0..(board.by_role(role) & board.by_color(c)).count() {
                s.push(ch);
            }
        }
        s
    };
    let (w, b) = (side(Color::White), side(Color::Black));
    let pair = |a: &str, z: &str| (w == a && b == z) || (w == z && b == a);
    if pair("KBB", "KN") || pair("KNN", "KP") || pair("KQ", "KBB") || pair("KQ", "KNN") {
        return true;
    }
    if pair("KRP", "KBP") || pair("KRB", "KR") {
        return true;
    }
    // KQP v KQ with the pawn on its seventh rank.
    for c in Color::ALL {
        let pawns = board.pawns() & board.by_color(c);
        if side(c) == "KQP" && side(!c) == "KQ" {
            let seventh = Bitboard::from_rank(c.fold_wb(Rank::Seventh, Rank::Second));
            if (pawns & seventh).any() {
                return true;
            }
        }
    }
    false
}

impl fmt::Display for Rules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A `--rules` value that names no rule set.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct UnknownRules(pub String);

impl fmt::Display for UnknownRules {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "'{}' names no rule set (expected retro, fide, piran or fide1988)",
            self.0
        )
    }
}

impl std::error::Error for UnknownRules {}

impl FromStr for Rules {
    type Err = UnknownRules;

    fn from_str(s: &str) -> Result<Rules, UnknownRules> {
        Rules::ALL
            .into_iter()
            .find(|r| r.name() == s.to_ascii_lowercase())
            .ok_or_else(|| UnknownRules(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for r in Rules::ALL {
            assert_eq!(r.name().parse::<Rules>().unwrap(), r);
        }
        assert!("fide2000".parse::<Rules>().is_err());
        assert!(Rules::Retro.convention().castling_resets());
        assert!(!Rules::Fide.convention().castling_resets());
    }

    #[test]
    fn allowances_of_1988() {
        let board = |fen: &str| Board::from_ascii_board_fen(fen.as_bytes()).unwrap();
        assert!(has_1988_allowance(&board("4k3/8/8/8/8/8/8/1R2KB1r")));
        assert!(!has_1988_allowance(&board("4k3/8/8/8/8/8/8/1R2K2r")));
        assert!(has_1988_allowance(&board("4k3/1P6/8/8/8/8/8/Q3K2q")));
        assert!(!has_1988_allowance(&board("4k3/8/1P6/8/8/8/8/Q3K2q")));
        let b = board("4k3/8/8/8/8/8/8/1B2KB1n");
        assert_eq!(Rules::Fide1988.claim_threshold(&b), 150);
        assert_eq!(Rules::Fide.claim_threshold(&b), 100);
        assert_eq!(Rules::Piran.over_threshold(), Some(100));
    }
}
