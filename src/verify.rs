//! The certificate checker: re-verifies retractions and retraction lines by replaying them
//! forward with shakmaty. It shares no code with the search: it trusts only shakmaty's move
//! generation and its FEN identity (board, side to move, castling rights, legal e.p. square).

use std::fmt;

use shakmaty::{CastlingMode, Chess, EnPassantMode, FromSetup, Move, Position as _, san::SanPlus};

use crate::position::Position;

/// Why a certificate does not replay.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct ReplayError {
    /// Index of the move that failed (0 = first, oldest).
    pub index: usize,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "move {}: {}", self.index + 1, self.message)
    }
}

impl std::error::Error for ReplayError {}

/// Whether the shakmaty position `after` is `target` in the four FEN fields. An e.p. square in
/// `target` also counts when no capture is legal (the user's FEN may state the double step).
fn same_position(after: &Chess, target: &Position, last: Option<&Move>) -> bool {
    let legal = after.to_setup(EnPassantMode::Legal);
    if legal.board != target.board
        || legal.turn != target.turn
        || legal.castling_rights != target.castling
    {
        return false;
    }
    match (legal.ep_square, target.ep_square) {
        (a, b) if a == b => true,
        (None, Some(ep)) => {
            // Stated but not capturable: the last move must be the double step over `ep`.
            matches!(last, Some(Move::Normal { role: shakmaty::Role::Pawn, from, to, .. })
                if from.distance(*to) == 2 && from.file() == ep.file() && from.file() == to.file()
                    && (u32::from(*from) + u32::from(*to)) / 2 == u32::from(ep))
        }
        _ => false,
    }
}

/// Replays `moves` from `start` and checks that every move is legal and that the line ends in
/// `target`. Returns the SAN of each move.
pub fn replay_line(
    start: &Position,
    moves: &[Move],
    target: &Position,
) -> Result<Vec<String>, ReplayError> {
    let mut sans = Vec::with_capacity(moves.len());
    replay(start, moves, target, Some(&mut sans))?;
    Ok(sans)
}

fn replay(
    start: &Position,
    moves: &[Move],
    target: &Position,
    sans: Option<&mut Vec<String>>,
) -> Result<(), ReplayError> {
    let pos =
        Chess::from_setup(start.to_setup(), CastlingMode::Standard).map_err(|e| ReplayError {
            index: 0,
            message: format!("the starting position {} is not valid: {e}", start.fen4()),
        })?;
    let pos = play_all(pos, moves, sans)?;
    if !same_position(&pos, target, moves.last()) {
        return Err(ReplayError {
            index: moves.len().saturating_sub(1),
            message: format!(
                "the line ends in {}, not in {}",
                Position::from_chess(&pos).fen4(),
                target.fen4()
            ),
        });
    }
    Ok(())
}

/// Replays `moves` from the initial array, checking that each is legal; returns the position
/// reached (canonical e.p. square) and the SAN of each move.
pub fn replay_from_initial(moves: &[Move]) -> Result<(Position, Vec<String>), ReplayError> {
    let mut sans = Vec::with_capacity(moves.len());
    let end = play_all(Chess::default(), moves, Some(&mut sans))?;
    Ok((Position::from_chess(&end), sans))
}

/// Plays `moves` from `pos`, each checked for legality, collecting SAN when asked.
fn play_all(
    mut pos: Chess,
    moves: &[Move],
    mut sans: Option<&mut Vec<String>>,
) -> Result<Chess, ReplayError> {
    for (index, mv) in moves.iter().enumerate() {
        if !pos.is_legal(*mv) {
            return Err(ReplayError {
                index,
                message: format!(
                    "{mv:?} is not legal in {}",
                    Position::from_chess(&pos).fen4()
                ),
            });
        }
        if let Some(sans) = sans.as_deref_mut() {
            sans.push(SanPlus::from_move(pos.clone(), *mv).to_string());
        }
        pos.play_unchecked(*mv);
    }
    Ok(pos)
}

/// Checks one retraction: from `predecessor`, `mv` is legal and gives `pos`.
pub fn check_retraction(
    pos: &Position,
    predecessor: &Position,
    mv: Move,
) -> Result<(), ReplayError> {
    replay(predecessor, &[mv], pos, None)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::position::PositionInput;

    fn pos(fen: &str) -> Position {
        PositionInput::parse(fen).unwrap().candidates().remove(0)
    }

    #[test]
    fn accepts_a_real_move_and_rejects_a_wrong_target() {
        let start = Position::initial();
        let after = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -");
        let e4 = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: shakmaty::Square::E2,
            capture: None,
            to: shakmaty::Square::E4,
            promotion: None,
        };
        assert!(check_retraction(&after, &start, e4).is_ok());
        assert_eq!(replay_line(&start, &[e4], &after).unwrap(), vec!["e4"]);
        // The e.p. square stated although no capture is legal: still the double step.
        let stated = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3");
        assert!(check_retraction(&stated, &start, e4).is_ok());
        let wrong = pos("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq -");
        assert!(check_retraction(&wrong, &start, e4).is_err());
        let illegal = Move::Normal {
            role: shakmaty::Role::Pawn,
            from: shakmaty::Square::E2,
            capture: None,
            to: shakmaty::Square::E5,
            promotion: None,
        };
        assert!(check_retraction(&after, &start, illegal).is_err());
    }
}
