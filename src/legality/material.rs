//! Material conditions: unit and pawn counts, promoted extras, and the captures the pawn
//! structure needs.

use shakmaty::{Bitboard, Board, Color, Rank, Role, Square};

use super::Illegality;

/// Returned by [`min_pawn_captures`] when the pawns of a side cannot each be given a different
/// starting file (more than 8 pawns, or a group of pawns that can reach fewer files than it has
/// members).
pub const UNASSIGNABLE: u32 = u32::MAX;

/// The units of one side, with bishops split by square colour (an original bishop never changes
/// square colour).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Material {
    /// Pawns (on any rank).
    pub pawns: u8,
    /// Knights.
    pub knights: u8,
    /// Bishops on light squares.
    pub light_bishops: u8,
    /// Bishops on dark squares.
    pub dark_bishops: u8,
    /// Rooks.
    pub rooks: u8,
    /// Queens.
    pub queens: u8,
    /// Kings.
    pub kings: u8,
}

impl Material {
    /// Counts the units of `color` on `board`.
    pub fn of(board: &Board, color: Color) -> Material {
        let side = board.by_color(color);
        let count = |bb: Bitboard| (bb & side).count().min(255) as u8;
        let bishops = board.bishops();
        Material {
            pawns: count(board.pawns()),
            knights: count(board.knights()),
            light_bishops: count(bishops & Bitboard::LIGHT_SQUARES),
            dark_bishops: count(bishops & Bitboard::DARK_SQUARES),
            rooks: count(board.rooks()),
            queens: count(board.queens()),
            kings: count(board.kings()),
        }
    }

    /// All units, king included.
    pub fn units(&self) -> u32 {
        [
            self.pawns,
            self.knights,
            self.light_bishops,
            self.dark_bishops,
            self.rooks,
            self.queens,
            self.kings,
        ]
        .iter()
        .map(|&n| u32::from(n))
        .sum()
    }

    /// Pieces that must have been promoted: those beyond one queen, two rooks, two knights and
    /// one bishop per square colour.
    pub fn promoted_extras(&self) -> u32 {
        let over = |n: u8, base: u8| u32::from(n.saturating_sub(base));
        over(self.queens, 1)
            + over(self.rooks, 2)
            + over(self.knights, 2)
            + over(self.light_bishops, 1)
            + over(self.dark_bishops, 1)
    }

    /// Whether pawns <= 8 and promoted extras <= 8 − pawns.
    pub fn counts_ok(&self) -> bool {
        self.pawns <= 8 && self.promoted_extras() <= 8 - u32::from(self.pawns)
    }
}

/// Unit roles as allowance slots; bishops split by square colour.
const SLOT_PAWN: usize = 0;
const SLOT_KNIGHT: usize = 1;
const SLOT_LIGHT_BISHOP: usize = 2;
const SLOT_DARK_BISHOP: usize = 3;
const SLOT_ROOK: usize = 4;
const SLOT_QUEEN: usize = 5;

fn slot_material(m: &Material, slot: usize) -> u8 {
    match slot {
        SLOT_PAWN => m.pawns,
        SLOT_KNIGHT => m.knights,
        SLOT_LIGHT_BISHOP => m.light_bishops,
        SLOT_DARK_BISHOP => m.dark_bishops,
        SLOT_ROOK => m.rooks,
        _ => m.queens,
    }
}

fn slot_material_mut(m: &mut Material, slot: usize) -> &mut u8 {
    match slot {
        SLOT_PAWN => &mut m.pawns,
        SLOT_KNIGHT => &mut m.knights,
        SLOT_LIGHT_BISHOP => &mut m.light_bishops,
        SLOT_DARK_BISHOP => &mut m.dark_bishops,
        SLOT_ROOK => &mut m.rooks,
        _ => &mut m.queens,
    }
}

/// The slot bits a role may use (both bishop slots for a bishop of unknown square colour).
fn role_slots(role: Role) -> u8 {
    match role {
        Role::Pawn => 1 << SLOT_PAWN,
        Role::Knight => 1 << SLOT_KNIGHT,
        Role::Bishop => (1 << SLOT_LIGHT_BISHOP) | (1 << SLOT_DARK_BISHOP),
        Role::Rook => 1 << SLOT_ROOK,
        Role::Queen => 1 << SLOT_QUEEN,
        Role::King => 0,
    }
}

/// The slot bit of a role on a given square.
fn role_slot_at(role: Role, square: Square) -> u8 {
    match role {
        Role::Bishop if square.is_light() => 1 << SLOT_LIGHT_BISHOP,
        Role::Bishop => 1 << SLOT_DARK_BISHOP,
        _ => role_slots(role),
    }
}

/// A feasible assignment of starting files to the pawns of a [`PawnLayout`].
#[derive(Clone, Copy, Debug)]
struct Assignment {
    /// File changes in all (each one a capture).
    cost: u32,
    /// The starting files taken (bit i = file i).
    used: u8,
    /// The starting file of each pawn, in the layout's order.
    starts: [u8; 8],
}

/// The pawns of one side (those on ranks 2–7) as an assignment problem.
struct PawnLayout {
    /// File of each pawn.
    files: [u8; 8],
    /// How many files each pawn can have moved across (ranks advanced).
    reach: [u8; 8],
    /// Square of each pawn.
    squares: [Square; 8],
    /// Number of pawns listed (at most 8).
    n: usize,
    /// More than 8 pawns on ranks 2–7: no assignment exists.
    overflow: bool,
    /// Files (bit i = file i) where an unmoved pawn of the other side stands on its starting
    /// rank: a pawn of this side from that file cannot promote without leaving the file.
    blocked: u8,
}

/// The ranks a pawn of `color` on `square` (ranks 2–7) has advanced from its starting rank:
/// the most files it can have changed.
fn ranks_advanced(color: Color, square: Square) -> u8 {
    let rank = square.rank().to_u32() as u8;
    match color {
        Color::White => rank - 1,
        Color::Black => 6 - rank,
    }
}

/// The files (bit i = file i) holding a unit of `bb`, by folding the ranks together.
pub(super) fn files_of(bb: Bitboard) -> u8 {
    let mut x = bb.0;
    x |= x >> 32;
    x |= x >> 16;
    x |= x >> 8;
    x as u8
}

/// The files `lo..=hi` (bit i = file i; `lo <= hi <= 7`).
fn files_between(lo: u8, hi: u8) -> u8 {
    (0xffu8 << lo) & (0xffu8 >> (7 - hi))
}

/// The free file (not in `used`) nearest to `file`, at most `reach` files away and not `file`
/// itself, as (file, distance): the lower of two at the same distance. None when there is none.
fn nearest_free_file(file: u8, reach: u8, used: u8) -> Option<(u8, u8)> {
    let free = files_between(file.saturating_sub(reach), (file + reach).min(7)) & !used;
    // The nearest free file below `file` is the highest free bit under it; above, the lowest
    // free bit over it.
    let below = free & ((1u8 << file) - 1);
    let above = free & !(0xffu8 >> (7 - file));
    let down = (below != 0).then(|| 7 - below.leading_zeros() as u8);
    let up = (above != 0).then(|| above.trailing_zeros() as u8);
    match (down, up) {
        (Some(g), Some(h)) if h - file < file - g => Some((h, h - file)),
        (Some(g), _) => Some((g, file - g)),
        (None, Some(h)) => Some((h, h - file)),
        (None, None) => None,
    }
}

/// The files (bit i = file i) where an unmoved pawn of the other side than `color` stands on
/// its starting rank (see [`PawnLayout::blocked`]).
fn blocked_files(board: &Board, color: Color) -> u8 {
    let other_start = match color {
        Color::White => Rank::Seventh,
        Color::Black => Rank::Second,
    };
    files_of(board.by_piece((!color).pawn()) & Bitboard::from_rank(other_start))
}

impl PawnLayout {
    fn new(board: &Board, color: Color) -> PawnLayout {
        let pawns = board.by_piece(color.pawn()) & !Bitboard::BACKRANKS;
        let blocked = blocked_files(board, color);
        let mut layout = PawnLayout {
            files: [0; 8],
            reach: [0; 8],
            squares: [Square::A1; 8],
            n: 0,
            overflow: pawns.count() > 8,
            blocked,
        };
        if layout.overflow {
            return layout;
        }
        for sq in pawns {
            layout.files[layout.n] = sq.file().to_u32() as u8;
            layout.reach[layout.n] = ranks_advanced(color, sq);
            layout.squares[layout.n] = sq;
            layout.n += 1;
        }
        layout
    }

    /// The file range a pawn can have started on.
    fn range(&self, i: usize) -> (u8, u8) {
        let f = self.files[i];
        let r = self.reach[i];
        (f.saturating_sub(r), (f + r).min(7))
    }

    fn distinct_files(&self) -> Option<u8> {
        let mut mask = 0u8;
        for &f in &self.files[..self.n] {
            if mask & (1 << f) != 0 {
                return None;
            }
            mask |= 1 << f;
        }
        Some(mask)
    }

    /// DP over the set of used starting files: `layers[i][mask]` is the least total file change
    /// of the first `i` pawns using exactly the files in `mask`.
    fn layers(&self) -> [[u8; 256]; 9] {
        let mut layers = [[u8::MAX; 256]; 9];
        layers[0][0] = 0;
        for i in 0..self.n {
            let (lo, hi) = self.range(i);
            let f = self.files[i];
            let (cur, next) = layers.split_at_mut(i + 1);
            let (cur, next) = (&cur[i], &mut next[0]);
            for (mask, &c) in cur.iter().enumerate() {
                if c == u8::MAX {
                    continue;
                }
                for g in lo..=hi {
                    if mask & (1 << g) != 0 {
                        continue;
                    }
                    let nm = mask | (1 << g);
                    let nc = c + f.abs_diff(g);
                    if nc < next[nm] {
                        next[nm] = nc;
                    }
                }
            }
        }
        layers
    }

    /// The least captures needed: each pawn from a distinct starting file (one capture per file
    /// changed), plus `extras` promoted pawns on other files, each needing one capture if an
    /// unmoved pawn of the other side blocks its file. Promoted pawns beyond the free files are
    /// ignored (the promoted-extra count reports them).
    fn min_captures(&self, extras: u32) -> u32 {
        if self.overflow {
            return UNASSIGNABLE;
        }
        let free = 8 - self.n as u32;
        let k = extras.min(free);
        if let Some(mask) = self.distinct_files() {
            // Keeping every pawn on its own file is optimal: moving a pawn's origin costs at
            // least one capture and frees at most one unblocked file.
            let unblocked = u32::from((!mask & !self.blocked).count_ones() as u8);
            return k.saturating_sub(unblocked);
        }
        let mut best = UNASSIGNABLE;
        for (mask, c) in self.final_states() {
            let unblocked = (!mask & !self.blocked).count_ones();
            best = best.min(u32::from(c) + k.saturating_sub(unblocked));
        }
        best
    }

    /// The captures of [`Self::known_assignment`] with `extras` promoted pawns: an upper bound
    /// of [`Self::min_captures`]. None when no assignment exists.
    #[cfg(test)]
    fn greedy_upper(&self, extras: u32) -> Option<u32> {
        self.known_assignment(extras)
            .map(|a| self.with_extras(a.cost, a.used, extras))
    }

    /// The cheaper (with `extras` promoted pawns) of the interval greedy's assignment and
    /// [`Self::home_first`]'s. None when no assignment exists.
    fn known_assignment(&self, extras: u32) -> Option<Assignment> {
        // Pawns on different files keep their own files: no file change at all, so no other
        // assignment has fewer captures (a change frees at most one file for the extras).
        if !self.overflow
            && let Some(used) = self.distinct_files()
        {
            return Some(Assignment {
                cost: 0,
                used,
                starts: self.files,
            });
        }
        let interval = self.interval_greedy()?;
        Some(match self.home_first() {
            Some(home)
                if self.with_extras(home.cost, home.used, extras)
                    < self.with_extras(interval.cost, interval.used, extras) =>
            {
                home
            }
            _ => interval,
        })
    }

    /// A feasible assignment of starting files, found greedily (intervals by right end, each
    /// taking the lowest free file it can reach — exact for whether any assignment exists);
    /// None when no assignment exists.
    fn interval_greedy(&self) -> Option<Assignment> {
        if self.overflow {
            return None;
        }
        // Intervals by (right end, left end, index), packed into one key each and sorted by
        // insertion (at most 8).
        let mut keys = [0u16; 8];
        for i in 0..self.n {
            let (lo, hi) = self.range(i);
            let key = (u16::from(hi) << 8) | (u16::from(lo) << 4) | i as u16;
            let mut j = i;
            while j > 0 && keys[j - 1] > key {
                keys[j] = keys[j - 1];
                j -= 1;
            }
            keys[j] = key;
        }
        let mut used = 0u8;
        let mut cost = 0u32;
        let mut starts = [0u8; 8];
        for &key in &keys[..self.n] {
            let i = usize::from(key & 0xf);
            let (lo, hi) = self.range(i);
            // The lowest free file in lo..=hi.
            let free = files_between(lo, hi) & !used;
            if free == 0 {
                return None;
            }
            let g = free.trailing_zeros() as u8;
            used |= 1 << g;
            starts[i] = g;
            cost += u32::from(self.files[i].abs_diff(g));
        }
        Some(Assignment { cost, used, starts })
    }

    /// The captures of an assignment of file changes `cost` using the files `used`, with
    /// `extras` promoted pawns on the other files.
    fn with_extras(&self, cost: u32, used: u8, extras: u32) -> u32 {
        let k = extras.min(8 - self.n as u32);
        cost + k.saturating_sub((!used & !self.blocked).count_ones())
    }

    /// The captures of [`Self::home_first`]'s assignment with `extras` promoted pawns.
    fn home_first_upper(&self, extras: u32) -> Option<u32> {
        self.home_first()
            .map(|a| self.with_extras(a.cost, a.used, extras))
    }

    /// Another feasible assignment, often cheaper than the interval greedy: one pawn of each
    /// file keeps it (the one that reaches least far), and the others, least reach first, take
    /// the nearest free file they reach. None when a pawn finds no free file (an assignment
    /// may still exist).
    fn home_first(&self) -> Option<Assignment> {
        let mut used = 0u8;
        let mut stays = [usize::MAX; 8];
        // Every pawn starts on its own file until it is found displaced.
        let mut starts = self.files;
        for i in 0..self.n {
            let f = usize::from(self.files[i]);
            if stays[f] == usize::MAX || self.reach[i] < self.reach[stays[f]] {
                stays[f] = i;
            }
            used |= 1 << f;
        }
        // The displaced pawns, by reach (insertion sort, at most 7).
        let mut moved = [0usize; 8];
        let mut m = 0;
        for i in 0..self.n {
            if stays[usize::from(self.files[i])] == i {
                continue;
            }
            let mut j = m;
            while j > 0 && self.reach[moved[j - 1]] > self.reach[i] {
                moved[j] = moved[j - 1];
                j -= 1;
            }
            moved[j] = i;
            m += 1;
        }
        let mut cost = 0u32;
        for &i in &moved[..m] {
            let (g, d) = nearest_free_file(self.files[i], self.reach[i], used)?;
            used |= 1 << g;
            starts[i] = g;
            cost += u32::from(d);
        }
        Some(Assignment { cost, used, starts })
    }

    /// A lower bound of [`Self::min_captures`]: the fewest file changes that give the pawns
    /// different starting files, however far each has advanced (its reach is left out) and
    /// leaving out the promoted pieces. On a line, some cheapest way of giving the pawns
    /// different starting files keeps their order (two pawns that would cross can swap their
    /// starting files for no more changes), so it is found by matching the pawns, by file, to
    /// the eight starting files in order.
    fn line_lower_bound(&self) -> u32 {
        let mut files = self.files;
        let files = &mut files[..self.n];
        files.sort_unstable();
        // `best[j]`: the fewest changes that give the pawns so far starting files among the
        // first `j` files.
        let mut best = [0u32; 9];
        for (i, &f) in files.iter().enumerate() {
            let mut next = [u32::MAX; 9];
            for j in i + 1..=8 {
                let start = (j - 1) as u8;
                let here = best[j - 1].saturating_add(u32::from(f.abs_diff(start)));
                next[j] = next[j - 1].min(here);
            }
            best = next;
        }
        best[8]
    }

    /// Whether the pawns' captures fit in `available` captured units: the exact answer of
    /// `min_captures(extras) <= available`, settled by the greedy upper bound when it suffices.
    fn captures_fit(&self, extras: u32, available: u32) -> bool {
        // The cheap assignments first: one of them usually fits. Then the cheap lower bound,
        // then an exact answer: a search bounded by `available` when that is small (every
        // step costs a capture), the full count otherwise.
        if self
            .home_first_upper(extras)
            .is_some_and(|u| u <= available)
        {
            return true;
        }
        match self.interval_greedy() {
            // No assignment exists: the greedy is exact for that.
            None => false,
            Some(a) if self.with_extras(a.cost, a.used, extras) <= available => true,
            Some(_) if self.line_lower_bound() > available => false,
            Some(_) if available <= 2 => self.fits_within(extras, available),
            Some(_) => self.min_captures_cached(extras) <= available,
        }
    }

    /// Whether some assignment needs at most `budget` captures with `extras` promoted pawns:
    /// a depth-first search in which no pawn moves further than the budget left, cut off when
    /// the pawns still to place cannot all keep their own (free) files within the budget.
    fn fits_within(&self, extras: u32, budget: u32) -> bool {
        struct Search<'a> {
            layout: &'a PawnLayout,
            /// Files of the pawns from index i on.
            suffix_files: [u8; 9],
            extras: u32,
            budget: u32,
        }
        impl Search<'_> {
            fn go(&self, i: usize, used: u8, cost: u32) -> bool {
                let layout = self.layout;
                if i == layout.n {
                    return layout.with_extras(cost, used, self.extras) <= self.budget;
                }
                // Each pawn left beyond one per free file of its own changes file.
                let keep = (self.suffix_files[i] & !used).count_ones();
                if cost + (layout.n - i) as u32 - keep.min((layout.n - i) as u32) > self.budget {
                    return false;
                }
                let f = layout.files[i];
                let most = u32::from(layout.reach[i]).min(self.budget - cost) as u8;
                for d in 0..=most {
                    for g in [f.checked_sub(d), (f + d <= 7 && d > 0).then_some(f + d)]
                        .into_iter()
                        .flatten()
                    {
                        if used & (1 << g) == 0
                            && self.go(i + 1, used | (1 << g), cost + u32::from(d))
                        {
                            return true;
                        }
                    }
                }
                false
            }
        }
        if self.overflow {
            return false;
        }
        let mut suffix_files = [0u8; 9];
        for i in (0..self.n).rev() {
            suffix_files[i] = suffix_files[i + 1] | (1 << self.files[i]);
        }
        Search {
            layout: self,
            suffix_files,
            extras,
            budget,
        }
        .go(0, 0, 0)
    }

    /// [`Self::min_captures`], remembered per thread by pawn layout (the same structures come
    /// back again and again in a search).
    fn min_captures_cached(&self, extras: u32) -> u32 {
        thread_local! {
            static CACHE: std::cell::RefCell<std::collections::HashMap<(u64, u8, u32), u32>> =
                std::cell::RefCell::new(std::collections::HashMap::new());
        }
        let mut pawns = 0u64;
        for i in 0..self.n {
            pawns |= 1 << u32::from(self.squares[i]);
        }
        let key = (pawns, self.blocked, extras);
        if let Some(v) = CACHE.with(|c| c.borrow().get(&key).copied()) {
            return v;
        }
        let v = self.min_captures(extras);
        CACHE.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= 1 << 18 {
                c.clear();
            }
            c.insert(key, v);
        });
        v
    }

    /// The last layer of [`PawnLayout::layers`] as a sparse list of (used files, least file
    /// change): the same DP, visiting only the reachable sets (at most C(8, i) <= 70 of them per
    /// layer), in fixed arrays.
    fn final_states(&self) -> impl Iterator<Item = (u8, u8)> {
        let mut states = [(0u8, 0u8); 70];
        let mut len = 1;
        let mut best = [u8::MAX; 256];
        for i in 0..self.n {
            let (lo, hi) = self.range(i);
            let f = self.files[i];
            let mut next = [(0u8, 0u8); 70];
            let mut next_len = 0;
            for &(mask, c) in &states[..len] {
                for g in lo..=hi {
                    if mask & (1 << g) != 0 {
                        continue;
                    }
                    let nm = mask | (1 << g);
                    let nc = c + f.abs_diff(g);
                    let slot = &mut best[nm as usize];
                    if *slot == u8::MAX {
                        next[next_len] = (nm, nc);
                        next_len += 1;
                        *slot = nc;
                    } else if nc < *slot {
                        *slot = nc;
                    }
                }
            }
            for entry in &mut next[..next_len] {
                entry.1 = best[entry.0 as usize];
                best[entry.0 as usize] = u8::MAX;
            }
            states = next;
            len = next_len;
        }
        states.into_iter().take(len)
    }

    /// One cheapest plan for `extras` promoted pawns: (start, now) of pawns that changed file,
    /// and the blocking pawns of the other side the promoted pawns had to get around.
    fn plan(&self, color: Color, extras: u32) -> (Vec<(Square, Square)>, Vec<Square>) {
        let mut paths = Vec::new();
        let mut blockers = Vec::new();
        if self.overflow {
            return (paths, blockers);
        }
        let k = extras.min(8 - self.n as u32);
        let layers = self.layers();
        let mut best: Option<(u32, usize)> = None;
        for (mask, &c) in layers[self.n].iter().enumerate() {
            if c == u8::MAX {
                continue;
            }
            let unblocked = (!(mask as u8) & !self.blocked).count_ones();
            let total = u32::from(c) + k.saturating_sub(unblocked);
            if best.is_none_or(|(b, _)| total < b) {
                best = Some((total, mask));
            }
        }
        let Some((_, final_mask)) = best else {
            return (paths, blockers);
        };
        let start_rank = match color {
            Color::White => Rank::Second,
            Color::Black => Rank::Seventh,
        };
        let mut mask = final_mask;
        for i in (0..self.n).rev() {
            let (lo, hi) = self.range(i);
            let f = self.files[i];
            for g in lo..=hi {
                if mask & (1 << g) == 0 {
                    continue;
                }
                let prev = mask & !(1 << g);
                let c = layers[i][prev];
                if c != u8::MAX && c + f.abs_diff(g) == layers[i + 1][mask] {
                    if g != f {
                        let from = Square::from_coords(shakmaty::File::new(g.into()), start_rank);
                        paths.push((from, self.squares[i]));
                    }
                    mask = prev;
                    break;
                }
            }
        }
        paths.reverse();
        let free = !(final_mask as u8);
        let unblocked = (free & !self.blocked).count_ones();
        let mut need_blocked = k.saturating_sub(unblocked);
        let other_start = match color {
            Color::White => Rank::Seventh,
            Color::Black => Rank::Second,
        };
        for g in 0..8u32 {
            if need_blocked == 0 {
                break;
            }
            if free & self.blocked & (1 << g) != 0 {
                blockers.push(Square::from_coords(shakmaty::File::new(g), other_start));
                need_blocked -= 1;
            }
        }
        (paths, blockers)
    }

    /// A smallest group of pawns that can reach fewer starting files than it has members
    /// (Hall's condition), as (their squares, the files they reach).
    fn hall_violator(&self) -> Option<(Bitboard, u8)> {
        let mut best: Option<(u32, Bitboard, u8)> = None;
        for subset in 1u32..(1 << self.n) {
            let size = subset.count_ones();
            if best.is_some_and(|(s, _, _)| s <= size) {
                continue;
            }
            let mut files = 0u8;
            let mut squares = Bitboard::EMPTY;
            for i in 0..self.n {
                if subset & (1 << i) != 0 {
                    let (lo, hi) = self.range(i);
                    for g in lo..=hi {
                        files |= 1 << g;
                    }
                    squares.add(self.squares[i]);
                }
            }
            if files.count_ones() < size {
                best = Some((size, squares, files));
            }
        }
        best.map(|(_, squares, files)| (squares, files))
    }
}

/// The minimum number of captures the pawns of `color` must have made.
///
/// Each pawn on ranks 2–7 is assigned a different starting file; a pawn that has advanced `d`
/// ranks can have started at most `d` files away, and each file changed is one capture. Each
/// promoted extra piece (see [`Material::promoted_extras`]) is a pawn from one of the remaining
/// files; it costs nothing, except one capture when an unmoved pawn of the other side stands on
/// that file's far starting rank (the promoted pawn had to leave its file to get past it). The
/// capture count of a promotion path is otherwise ignored, which keeps the bound sound.
///
/// Pawns on ranks 1 and 8 are ignored (they are illegal on their own). Promoted extras beyond the
/// free files are ignored. Returns [`UNASSIGNABLE`] if the pawns cannot all have different
/// starting files.
///
/// Every captured unit is one of the other side's: the condition is
/// `min_pawn_captures(board, color) <= 16 − units of !color`.
pub fn min_pawn_captures(board: &Board, color: Color) -> u32 {
    let extras = Material::of(board, color).promoted_extras();
    PawnLayout::new(board, color).min_captures(extras)
}

/// One side's material in a position, kept to settle at once the material of predecessors
/// that change it a little (one unit more, or one pawn moved back after a capture): a sure
/// pass from the counts and one known assignment of the pawns' starting files. A `false`
/// answer settles nothing: the caller then checks the predecessor with [`material_side_ok`].
#[derive(Clone, Debug)]
pub(crate) struct SideSlack {
    material: Material,
    /// Pawns on ranks 2–7.
    pawns: u32,
    /// The captures the side's pawns may have made: 16 − the other side's units.
    available: u32,
    /// Files holding an unmoved pawn of the other side (see `PawnLayout::blocked`).
    blocked: u8,
    /// A feasible assignment of the pawns' starting files.
    assignment: Option<Assignment>,
    /// The pawns' squares, in the assignment's order.
    squares: [Square; 8],
    /// The side.
    color: Color,
}

impl SideSlack {
    /// The material of `color` on `board`.
    pub(crate) fn of(board: &Board, color: Color) -> SideSlack {
        if (board.by_piece(color.pawn()) & !Bitboard::BACKRANKS).is_empty() {
            // No pawn to give a starting file: the empty assignment, as the searches of
            // `Self::from_layout` would find it, without them (sparse endgames ask often).
            return SideSlack {
                material: Material::of(board, color),
                pawns: 0,
                available: 16u32.saturating_sub(board.by_color(!color).count() as u32),
                blocked: blocked_files(board, color),
                assignment: Some(Assignment {
                    cost: 0,
                    used: 0,
                    starts: [0; 8],
                }),
                squares: [Square::A1; 8],
                color,
            };
        }
        Self::from_layout(board, color)
    }

    /// [`Self::of`], with the pawns' assignment searched.
    fn from_layout(board: &Board, color: Color) -> SideSlack {
        let layout = PawnLayout::new(board, color);
        let material = Material::of(board, color);
        SideSlack {
            assignment: layout.known_assignment(material.promoted_extras()),
            squares: layout.squares,
            color,
            pawns: layout.n as u32,
            available: 16u32.saturating_sub(board.by_color(!color).count() as u32),
            blocked: layout.blocked,
            material,
        }
    }

    /// Pawns <= 8, units <= 16, promoted extras <= 8 − pawns.
    fn counts_pass(material: &Material) -> bool {
        material.units() <= 16 && material.counts_ok()
    }

    /// The captures of an assignment with `cost` file changes using the files `used`, for
    /// `pawns` pawns and `extras` promoted pawns, with the other side's unmoved pawns on
    /// `blocked` (as `PawnLayout::with_extras`).
    fn captures(cost: u32, used: u8, pawns: u32, extras: u32, blocked: u8) -> u32 {
        let k = extras.min(8u32.saturating_sub(pawns));
        cost + k.saturating_sub((!used & !blocked).count_ones())
    }

    /// The side.
    pub(crate) fn color(&self) -> Color {
        self.color
    }

    /// Sure to pass with the side's own units and pawns, the other side's unmoved pawns on
    /// the files `blocked` and `available` captures: the counts pass and the known assignment's
    /// captures fit.
    fn passes_with(&self, blocked: u8, available: u32) -> bool {
        let Some(Assignment { cost, used, .. }) = self.assignment else {
            return false;
        };
        Self::counts_pass(&self.material)
            && Self::captures(
                cost,
                used,
                self.pawns,
                self.material.promoted_extras(),
                blocked,
            ) <= available
    }

    /// Sure to pass as it is.
    pub(crate) fn passes_as_is(&self) -> bool {
        self.passes_with(self.blocked, self.available)
    }

    /// Sure to pass when the other side has one unit more (one capture fewer available) and
    /// nothing else changes.
    pub(crate) fn passes_after_loss(&self) -> bool {
        self.available
            .checked_sub(1)
            .is_some_and(|available| self.passes_with(self.blocked, available))
    }

    /// Sure to pass when its pawn on `to` steps back to `from` on the same file (one or two
    /// ranks), nothing else changing: the pawn keeps its starting file in the known assignment
    /// if it still reaches it from `from`, and every count stays as it is.
    pub(crate) fn passes_after_pawn_step(&self, from: Square, to: Square) -> bool {
        let Some(Assignment { cost, used, starts }) = self.assignment else {
            return false;
        };
        if Bitboard::BACKRANKS.contains(from) || from.file() != to.file() {
            return false;
        }
        let Some(i) = self.pawn_index(to) else {
            return false;
        };
        let file = from.file().to_u32() as u8;
        file.abs_diff(starts[i]) <= ranks_advanced(self.color, from)
            && Self::counts_pass(&self.material)
            && Self::captures(
                cost,
                used,
                self.pawns,
                self.material.promoted_extras(),
                self.blocked,
            ) <= self.available
    }

    /// Sure to pass when its piece `role` on `to` (on the far rank) is taken back to the pawn
    /// it promoted from, on `from`, and the other side has one unit more if `captured` (the
    /// promotion took it): the new pawn takes the nearest starting file that it can reach and
    /// the known assignment leaves free, and the piece no longer counts.
    pub(crate) fn passes_after_unpromotion(
        &self,
        from: Square,
        role: Role,
        to: Square,
        captured: bool,
    ) -> bool {
        let mut m = self.material;
        let Some(count) = piece_count(&mut m, role, to) else {
            return false;
        };
        let Some(fewer) = count.checked_sub(1) else {
            return false;
        };
        *count = fewer;
        m.pawns += 1;
        let available = if captured {
            let Some(fewer) = self.available.checked_sub(1) else {
                return false;
            };
            fewer
        } else {
            self.available
        };
        self.passes_with_new_pawn(from, &m, available, self.blocked)
    }

    /// Sure to pass when the other side's unmoved pawns also stand on `file` (a pawn of the
    /// other side stepped back to its starting square there), nothing else changing.
    pub(crate) fn passes_with_blocked(&self, file: shakmaty::File) -> bool {
        self.passes_with(self.blocked | file_bit(Some(file)), self.available)
    }

    /// Sure to pass with one piece more (`role` on `square`; a bishop counts by its square
    /// colour), its pawns where they are, and the other side's unmoved pawns also on
    /// `blocked_file` if given.
    pub(crate) fn passes_with_piece(
        &self,
        role: Role,
        square: Square,
        blocked_file: Option<shakmaty::File>,
    ) -> bool {
        let Some(Assignment { cost, used, .. }) = self.assignment else {
            return false;
        };
        let mut m = self.material;
        let Some(count) = piece_count(&mut m, role, square) else {
            return false;
        };
        *count += 1;
        let blocked = self.blocked | file_bit(blocked_file);
        Self::counts_pass(&m)
            && Self::captures(cost, used, self.pawns, m.promoted_extras(), blocked)
                <= self.available
    }

    /// Sure to pass with one pawn more, on `square`, and the other side's unmoved pawns also
    /// on `blocked_file` if given: the new pawn takes the nearest starting file that it can
    /// reach and the known assignment leaves free (its own file when that one is free).
    pub(crate) fn passes_with_pawn(
        &self,
        square: Square,
        blocked_file: Option<shakmaty::File>,
    ) -> bool {
        let mut m = self.material;
        m.pawns += 1;
        self.passes_with_new_pawn(
            square,
            &m,
            self.available,
            self.blocked | file_bit(blocked_file),
        )
    }

    /// Sure to pass with a new pawn on `square`, the side's material then being `m` (the pawn
    /// counted), `available` captures, and the other side's unmoved pawns on the files
    /// `blocked`: the new pawn takes the nearest starting file that it can reach and the
    /// known assignment leaves free (its own file when that one is free).
    fn passes_with_new_pawn(
        &self,
        square: Square,
        m: &Material,
        available: u32,
        blocked: u8,
    ) -> bool {
        let Some(Assignment { cost, used, .. }) = self.assignment else {
            return false;
        };
        if Bitboard::BACKRANKS.contains(square) {
            return false;
        }
        let Some((d, start)) = self.nearest_free(square, used) else {
            return false;
        };
        Self::counts_pass(m)
            && Self::captures(
                cost + u32::from(d),
                used | (1 << start),
                self.pawns + 1,
                m.promoted_extras(),
                blocked,
            ) <= available
    }

    /// Sure to pass when its pawn on `to` goes back to `from`, on another file (it had taken
    /// a unit), the other side has one unit more, and the other side's unmoved pawns stand
    /// also on `blocked_file` if given: the known assignment with that pawn moved to the
    /// nearest starting file it reaches from `from` (one rank less) among those the other
    /// pawns leave free — its own start, or the file of `from` when free, among them — or,
    /// when that does not pass, with the pawn taking the start of another pawn that moves on
    /// to the nearest free start it reaches (the best such exchange).
    pub(crate) fn passes_after_pawn_capture(
        &self,
        from: Square,
        to: Square,
        blocked_file: Option<shakmaty::File>,
    ) -> bool {
        let Some(Assignment { cost, used, starts }) = self.assignment else {
            return false;
        };
        if Bitboard::BACKRANKS.contains(from)
            || Bitboard::BACKRANKS.contains(to)
            || !Self::counts_pass(&self.material)
        {
            return false;
        }
        let Some(i) = self.pawn_index(to) else {
            return false;
        };
        let old_start = starts[i];
        let others = used & !(1 << old_start);
        let to_file = to.file().to_u32() as u8;
        // The cost without the moved pawn's file changes.
        let cost = cost - u32::from(to_file.abs_diff(old_start));
        let k = self
            .material
            .promoted_extras()
            .min(8u32.saturating_sub(self.pawns));
        let blocked = self.blocked | file_bit(blocked_file);
        // The captures of an assignment of cost `cost` using the files `used`.
        let passes = |cost: u32, used: u8| {
            cost + k.saturating_sub((!used & !blocked).count_ones()) < self.available
        };
        if let Some((d, start)) = self.nearest_free(from, others)
            && passes(cost + u32::from(d), others | (1 << start))
        {
            return true;
        }
        let from_file = from.file().to_u32() as u8;
        let reach = ranks_advanced(self.color, from);
        (0..self.pawns as usize).any(|j| {
            let taken = starts[j];
            let d = from_file.abs_diff(taken);
            if j == i || d > reach {
                return false;
            }
            let square = self.squares[j];
            let Some((dj, start)) = self.nearest_free(square, others) else {
                return false;
            };
            let file = square.file().to_u32() as u8;
            let cost = cost - u32::from(file.abs_diff(taken)) + u32::from(d) + u32::from(dj);
            passes(cost, others | (1 << start))
        })
    }

    /// The place in the known assignment of the pawn on `square`, if one stands there.
    fn pawn_index(&self, square: Square) -> Option<usize> {
        self.squares[..self.pawns as usize]
            .iter()
            .position(|&sq| sq == square)
    }

    /// The nearest starting file outside `taken` that a pawn of this side on `square` reaches,
    /// as (file changes, file).
    fn nearest_free(&self, square: Square, taken: u8) -> Option<(u8, u8)> {
        let f = square.file().to_u32() as u8;
        if taken & (1 << f) == 0 {
            return Some((0, f));
        }
        nearest_free_file(f, ranks_advanced(self.color, square), taken).map(|(g, d)| (d, g))
    }
}

/// The count in `m` of the pieces of `role` (a bishop by the colour of `square`); None for a
/// pawn or king.
fn piece_count(m: &mut Material, role: Role, square: Square) -> Option<&mut u8> {
    match role {
        Role::Knight => Some(&mut m.knights),
        Role::Bishop if square.is_light() => Some(&mut m.light_bishops),
        Role::Bishop => Some(&mut m.dark_bishops),
        Role::Rook => Some(&mut m.rooks),
        Role::Queen => Some(&mut m.queens),
        Role::Pawn | Role::King => None,
    }
}

/// The bit of `file` in a file mask (none for None).
fn file_bit(file: Option<shakmaty::File>) -> u8 {
    file.map_or(0, |f| 1 << f.to_u32())
}

/// Whether the material conditions hold: the same verdict as `material_reasons(board).is_empty()`,
/// without building reasons, and settling the pawn-structure captures by cheap bounds where
/// they suffice (a greedy assignment above, one capture per extra pawn on a file below).
pub fn material_ok(board: &Board) -> bool {
    material_side_ok(board, Color::White) && material_side_ok(board, Color::Black)
}

/// The half of [`material_ok`] that concerns `color`: its pawns <= 8, units <= 16, promoted
/// extras <= 8 − pawns, and its pawns' captures fit in the other side's missing units.
/// `material_ok(b)` is `material_side_ok(b, White) && material_side_ok(b, Black)`; callers that
/// change one side's units only can re-check the sides separately.
pub fn material_side_ok(board: &Board, color: Color) -> bool {
    let m = Material::of(board, color);
    let extras = m.promoted_extras();
    if m.pawns > 8 || m.units() > 16 || extras > 8u32.saturating_sub(m.pawns.into()) {
        return false;
    }
    let their_units = (board.by_color(!color)).count() as u32;
    let available = 16u32.saturating_sub(their_units);
    // Every pawn on its own file (the common case, settled on bitboards): the exact count, as
    // in `min_captures`.
    let pawns = board.by_piece(color.pawn()) & !Bitboard::BACKRANKS;
    let mask = files_of(pawns);
    if mask.count_ones() == pawns.count() as u32 {
        let other_start = match color {
            Color::White => Rank::Seventh,
            Color::Black => Rank::Second,
        };
        let blocked = files_of(board.by_piece((!color).pawn()) & Bitboard::from_rank(other_start));
        let free = 8 - pawns.count() as u32;
        let unblocked = (!mask & !blocked).count_ones();
        return extras.min(free).saturating_sub(unblocked) <= available;
    }
    // Of the pawns on one file, all but one changed files: at least one capture each.
    if pawns.count() as u32 - mask.count_ones() > available {
        return false;
    }
    PawnLayout::new(board, color).captures_fit(extras, available)
}

/// The material conditions only (both sides): pawns <= 8, units <= 16, promoted extras <= 8 −
/// pawns, the pawns can have different starting files, and the pawn structure's captures
/// (see [`min_pawn_captures`]) do not exceed the other side's missing units.
///
/// Meant to be called on every predecessor whose material changed: no heap allocation when the
/// position passes.
pub fn material_reasons(board: &Board) -> Vec<Illegality> {
    let mut out = Vec::new();
    let mats = [
        Material::of(board, Color::White),
        Material::of(board, Color::Black),
    ];
    for (color, m) in [Color::White, Color::Black].into_iter().zip(mats) {
        if m.pawns > 8 {
            out.push(Illegality::TooManyPawns {
                color,
                count: m.pawns.into(),
            });
        }
        if m.units() > 16 {
            out.push(Illegality::TooManyUnits {
                color,
                count: m.units(),
            });
        }
        if m.promoted_extras() > 8u32.saturating_sub(m.pawns.into()) {
            out.push(Illegality::TooManyPromoted { color, material: m });
        }
    }
    for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
        let m = mats[i];
        let other = mats[1 - i];
        let layout = PawnLayout::new(board, color);
        let extras = m.promoted_extras();
        let available = 16u32.saturating_sub(other.units());
        if layout.captures_fit(extras, available) {
            continue;
        }
        let needed = layout.min_captures(extras);
        if needed == UNASSIGNABLE {
            // With more than 8 pawns, TooManyPawns already says it.
            if let Some((pawns, files)) = layout.hall_violator() {
                out.push(Illegality::PawnFilesExhausted {
                    color,
                    pawns,
                    files,
                });
            }
            continue;
        }
        if needed > available {
            let (paths, blockers) = layout.plan(color, extras);
            out.push(Illegality::PawnCaptures {
                color,
                needed,
                available,
                paths,
                blockers,
            });
        }
    }
    out
}

/// What a retraction engine may put back for one side (`color`): which of its missing units can
/// be un-captured and which of its pieces can be un-promoted, such that the predecessor still
/// satisfies the material conditions of [`material_reasons`].
///
/// Every flag is a necessary condition: when it is false, no predecessor of that kind passes the
/// material conditions; when it is true, the predecessor must still be checked (for instance the
/// file of an un-captured pawn is not taken into account).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Allowance {
    /// The side whose units these are.
    pub color: Color,
    /// How many units of `color` are missing from the board (captured): 16 − units, at least 0.
    pub missing: u8,
    /// The most pieces of `color` that can be turned back into pawns, one after another, keeping
    /// pawns <= 8 and promoted extras <= 8 − pawns (0 if the counts already fail).
    pub unpromotions: u8,
    /// Slots that may be un-captured when the capturing unit is a pawn.
    uncapture_by_pawn: u8,
    /// Slots that may be un-captured when the capturing unit is not a pawn (the other side's
    /// pawn structure is unchanged, so it must fit one missing unit fewer).
    uncapture_by_piece: u8,
    /// Slots whose pieces may be un-promoted.
    unpromote: u8,
}

impl Allowance {
    /// Whether one more unit of `role` may be un-captured, by some capturer, on some square
    /// (for a bishop: of either square colour). Kings never.
    pub fn can_uncapture(&self, role: Role) -> bool {
        self.uncapture_by_pawn & role_slots(role) != 0
    }

    /// Whether one more unit of `role` may be un-captured on `square` (a bishop's square colour
    /// counts; a pawn cannot be un-captured on rank 1 or 8), by some capturer.
    pub fn can_uncapture_at(&self, role: Role, square: Square) -> bool {
        if role == Role::Pawn && Bitboard::BACKRANKS.contains(square) {
            return false;
        }
        self.uncapture_by_pawn & role_slot_at(role, square) != 0
    }

    /// Like [`Allowance::can_uncapture_at`], knowing the role the capturing unit has now:
    /// a capture by a non-pawn (including a promotion with capture) leaves the capturer's pawn
    /// structure no cheaper, so it must fit the one missing unit fewer; a capture by a pawn can
    /// make it one capture cheaper.
    pub fn can_uncapture_by(&self, role: Role, square: Square, capturer: Role) -> bool {
        if role == Role::Pawn && Bitboard::BACKRANKS.contains(square) {
            return false;
        }
        let slots = if capturer == Role::Pawn {
            self.uncapture_by_pawn
        } else {
            self.uncapture_by_piece
        };
        slots & role_slot_at(role, square) != 0
    }

    /// Whether a piece of `role` on `square` may be turned back into a pawn (pawns, kings never).
    pub fn can_unpromote(&self, role: Role, square: Square) -> bool {
        role != Role::Pawn && self.unpromote & role_slot_at(role, square) != 0
    }
}

/// Computes the [`Allowance`] of `color` on `board`.
///
/// Un-capturing a unit of `color` (the last move was a capture by `!color`) is allowed when
/// `color` has a unit missing and, with that unit back: pawns <= 8, promoted extras <= 8 − pawns,
/// `color`'s pawn structure (with the extra promoted piece, if it is one) needs no more captures
/// than `!color` has units missing, and `!color`'s pawn structure fits `color`'s missing units
/// minus one — taking into account that a capture made by a pawn moves that pawn back one file,
/// which can save one capture.
///
/// Un-promoting a piece of `color` is allowed when, with one piece fewer and one pawn more,
/// pawns <= 8 and promoted extras <= 8 − pawns, and `color`'s pawn structure is within its
/// capture budget now (an un-promotion never makes it cheaper).
pub fn allowance(board: &Board, color: Color) -> Allowance {
    let m = Material::of(board, color);
    let o = Material::of(board, !color);
    let missing = 16u32.saturating_sub(m.units());
    let budget = 16u32.saturating_sub(o.units());
    let own = PawnLayout::new(board, color);
    let extras = m.promoted_extras();
    let own_need = own.min_captures(extras);
    let own_need_plus = own.min_captures(extras + 1);
    let other_need = PawnLayout::new(board, !color).min_captures(o.promoted_extras());

    // The other side's structure after the retraction needs at least `other_need` captures
    // (non-pawn capturer) or `other_need − 1` (pawn capturer), within `missing − 1`.
    let by_pawn_ok = other_need != UNASSIGNABLE && other_need <= missing;
    let by_piece_ok = other_need != UNASSIGNABLE && other_need < missing;

    let mut uncapture = 0u8;
    if missing >= 1 {
        for slot in SLOT_PAWN..=SLOT_QUEEN {
            let mut m2 = m;
            let n = slot_material_mut(&mut m2, slot);
            *n = n.saturating_add(1);
            if !m2.counts_ok() {
                continue;
            }
            // An extra piece raises the promotion part; an extra pawn never lowers the need.
            let need = if m2.promoted_extras() > extras {
                own_need_plus
            } else {
                own_need
            };
            if need != UNASSIGNABLE && need <= budget {
                uncapture |= 1 << slot;
            }
        }
    }
    let uncapture_by_pawn = if by_pawn_ok { uncapture } else { 0 };
    let uncapture_by_piece = if by_piece_ok { uncapture } else { 0 };

    let mut unpromote = 0u8;
    let structure_ok = own_need != UNASSIGNABLE && own_need <= budget;
    if structure_ok {
        for slot in SLOT_KNIGHT..=SLOT_QUEEN {
            if slot_material(&m, slot) == 0 {
                continue;
            }
            let mut m2 = m;
            *slot_material_mut(&mut m2, slot) -= 1;
            m2.pawns = m2.pawns.saturating_add(1);
            if m2.counts_ok() {
                unpromote |= 1 << slot;
            }
        }
    }
    let pieces = u32::from(m.knights)
        + u32::from(m.light_bishops)
        + u32::from(m.dark_bishops)
        + u32::from(m.rooks)
        + u32::from(m.queens);
    // Un-promoting the extras first keeps extras <= 8 − pawns at every step, so once the counts
    // hold, 8 − pawns pieces can be un-promoted in turn.
    let unpromotions = if structure_ok && m.counts_ok() {
        pieces.min(8 - u32::from(m.pawns))
    } else {
        0
    };
    Allowance {
        color,
        missing: missing.min(255) as u8,
        unpromotions: unpromotions as u8,
        uncapture_by_pawn,
        uncapture_by_piece,
        unpromote,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::attacks;

    /// The nearest free file, checked against walking outwards from the file one step at a
    /// time (lower side first), for every file, reach and set of used files.
    #[test]
    fn the_nearest_free_file_is_the_first_met_walking_outwards() {
        for file in 0..8u8 {
            for reach in 0..7u8 {
                for used in 0..=255u8 {
                    let walked = (1..=reach).find_map(|d| {
                        if file >= d && used & (1 << (file - d)) == 0 {
                            Some((file - d, d))
                        } else if file + d <= 7 && used & (1 << (file + d)) == 0 {
                            Some((file + d, d))
                        } else {
                            None
                        }
                    });
                    assert_eq!(
                        nearest_free_file(file, reach, used),
                        walked,
                        "file {file}, reach {reach}, used {used:08b}"
                    );
                }
            }
        }
    }

    /// The upper bound is a real assignment's cost (never below the least one), and the
    /// verdict it shortcuts is the exact one, on random crowded pawn layouts.
    #[test]
    fn upper_bound_is_above_the_least_captures_and_the_fit_is_exact() {
        let mut state = 0x0bad_5eed_1234_5678u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let (mut shortcut, mut exact) = (0, 0);
        for _ in 0..20_000 {
            let mut b = Board::empty();
            for _ in 0..next(9) {
                let file = next(4) as u32 + if next(3) == 0 { 4 } else { 0 };
                let sq =
                    Square::from_coords(shakmaty::File::new(file), Rank::new(1 + next(6) as u32));
                b.set_piece_at(sq, Color::White.pawn());
            }
            for _ in 0..next(4) {
                let sq = Square::from_coords(shakmaty::File::new(next(8) as u32), Rank::Seventh);
                b.set_piece_at(sq, Color::Black.pawn());
            }
            let layout = PawnLayout::new(&b, Color::White);
            let extras = next(4) as u32;
            let least = layout.min_captures(extras);
            match layout.greedy_upper(extras) {
                Some(upper) => assert!(upper >= least, "{}: {upper} < {least}", b.board_fen()),
                None => assert_eq!(least, UNASSIGNABLE, "{}", b.board_fen()),
            }
            let lower = layout.line_lower_bound();
            assert!(lower <= least, "{}: {lower} > {least}", b.board_fen());
            for available in 0..8 {
                let fits = layout.captures_fit(extras, available);
                assert_eq!(fits, least <= available, "{} {available}", b.board_fen());
                if layout.greedy_upper(extras).is_some_and(|u| u <= available) {
                    shortcut += 1;
                } else {
                    exact += 1;
                }
            }
        }
        // Both ways of deciding are exercised.
        assert!(shortcut > 1000 && exact > 1000, "{shortcut} {exact}");
    }

    /// The line bound is the fewest file changes that give the pawns different files, found
    /// here by trying every way of giving them files, for every choice of files for one to five
    /// pawns.
    #[test]
    fn line_lower_bound_is_the_least_file_changes() {
        fn least(files: &[u8], used: u8) -> u32 {
            let Some((&f, rest)) = files.split_first() else {
                return 0;
            };
            (0..8u8)
                .filter(|&start| used & 1 << start == 0)
                .map(|start| u32::from(f.abs_diff(start)) + least(rest, used | 1 << start))
                .min()
                .unwrap_or(u32::MAX)
        }
        // Every choice of files, in increasing order, for up to five pawns.
        let mut choices: Vec<Vec<u8>> = vec![Vec::new()];
        let mut checked = 0;
        while let Some(files) = choices.pop() {
            if files.len() < 5 {
                for f in files.last().copied().unwrap_or(0)..8 {
                    choices.push([files.as_slice(), &[f]].concat());
                }
            }
            if files.is_empty() {
                continue;
            }
            // The pawns of one file on different ranks.
            let mut b = Board::empty();
            for (k, &f) in files.iter().enumerate() {
                let rank = Rank::new(1 + files[..k].iter().filter(|&&g| g == f).count() as u32);
                b.set_piece_at(
                    Square::from_coords(shakmaty::File::new(u32::from(f)), rank),
                    Color::White.pawn(),
                );
            }
            let layout = PawnLayout::new(&b, Color::White);
            assert_eq!(layout.n, files.len());
            assert_eq!(
                layout.line_lower_bound(),
                least(&files, 0),
                "{}",
                b.board_fen()
            );
            checked += 1;
        }
        // 8 + 36 + 120 + 330 + 792 choices.
        assert_eq!(checked, 1286);
    }

    /// A side without pawns gets the same `SideSlack` from the shortcut as from the searches.
    #[test]
    fn side_slack_without_pawns_is_the_searched_one() {
        let mut random = crate::legality::tests::seeded(0x5eed_0f5a_c4e5_0002);
        let mut next = move |n: u64| random() % n;
        let roles = [
            Role::Knight,
            Role::Bishop,
            Role::Rook,
            Role::Queen,
            Role::Pawn,
        ];
        for _ in 0..2_000 {
            let mut b = Board::empty();
            b.set_piece_at(Square::E1, Color::White.king());
            b.set_piece_at(Square::E8, Color::Black.king());
            for _ in 0..next(20) {
                let color = [Color::White, Color::Black][next(2) as usize];
                let role = roles[next(5) as usize];
                let sq = Square::new(next(64) as u32);
                // White has no pawn off the back ranks; Black's may stand on its start.
                if b.occupied().contains(sq)
                    || (role == Role::Pawn
                        && (color == Color::White || Bitboard::BACKRANKS.contains(sq)))
                {
                    continue;
                }
                b.set_piece_at(sq, role.of(color));
            }
            let fast = SideSlack::of(&b, Color::White);
            let searched = SideSlack::from_layout(&b, Color::White);
            assert_eq!(format!("{fast:?}"), format!("{searched:?}"), "{b:?}");
        }
    }

    /// `material_ok` (the fast verdict, with its early answers) agrees with the reasons that
    /// `material_reasons` lists, on random crowded boards with pawns on few files (doubled
    /// pawns and few captures available, both ways).
    #[test]
    fn material_ok_is_material_reasons_empty() {
        let mut random = crate::legality::tests::seeded(0x0dd_ba11_5eed_0002);
        let mut next = move |n: u64| random() % n;
        let mut verdicts = [0u32; 2];
        for _ in 0..20_000 {
            let tries = 16 + next(16);
            let b = crowded_board(&mut next, tries, (1, 2), (1, 5), usize::MAX);
            let ok = material_ok(&b);
            assert_eq!(ok, material_reasons(&b).is_empty(), "{}", b.board_fen());
            verdicts[usize::from(ok)] += 1;
        }
        assert!(verdicts.iter().all(|&n| n > 1000), "{verdicts:?}");
    }

    /// A crowded random board for the material tests: the kings on e1 and e8, then `tries`
    /// draws of a unit of random colour: a pawn with odds `pawn.0` in `pawn.1`, on one of
    /// `files.1` files from file `files.0` and on ranks 2–7, otherwise a piece on any square.
    /// A draw on an occupied square, or for a side that has `side_cap` units, places nothing.
    fn crowded_board(
        next: &mut impl FnMut(u64) -> u64,
        tries: u64,
        pawn: (u64, u64),
        files: (u32, u64),
        side_cap: usize,
    ) -> Board {
        let roles = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
        let mut b = Board::empty();
        b.set_piece_at(Square::E1, Color::White.king());
        b.set_piece_at(Square::E8, Color::Black.king());
        for _ in 0..tries {
            let color = if next(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            let is_pawn = next(pawn.1) < pawn.0;
            let sq = if is_pawn {
                Square::from_coords(
                    shakmaty::File::new(next(files.1) as u32 + files.0),
                    Rank::new(1 + next(6) as u32),
                )
            } else {
                Square::new(next(64) as u32)
            };
            if b.occupied().contains(sq) || b.by_color(color).count() >= side_cap {
                continue;
            }
            let role = if is_pawn {
                Role::Pawn
            } else {
                roles[next(4) as usize]
            };
            b.set_piece_at(sq, role.of(color));
        }
        b
    }

    /// A capture taken back that needs another pawn to move on: White's pawn on c3 goes back
    /// to d2, whose start the pawn on d3 held in the known assignment; with the d3 pawn
    /// started on c (one capture, the one unit Black then misses), the structure fits. The
    /// sure pass finds it by the exchange, and the exact check agrees.
    #[test]
    fn a_capture_taken_back_passes_surely_through_an_exchange() {
        let board: Board = "rn2nb2/pb2p1p1/3pkp1r/2p4p/5PPP/2PPP1QB/RP3K2/1NB3NR"
            .parse()
            .expect("valid placement");
        let slack = SideSlack::of(&board, Color::White);
        assert!(slack.passes_after_pawn_capture(Square::D2, Square::C3, None));
        let mut back = board.clone();
        back.discard_piece_at(Square::C3);
        back.set_piece_at(Square::D2, Color::White.pawn());
        back.set_piece_at(Square::C3, Color::Black.knight());
        assert!(material_side_ok(&back, Color::White));
    }

    /// Every sure pass of `SideSlack` holds on the changed board, on random boards with many
    /// pawns and pieces (and each kind of pass is seen).
    #[test]
    fn side_slack_passes_are_real() {
        let mut state = 0x5eed_0f5a_c4e5_0001u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let roles = [Role::Knight, Role::Bishop, Role::Rook, Role::Queen];
        let mut seen = [0u32; 8];
        for _ in 0..20_000 {
            // Crowded boards (few captures available) with pawns on few files, so that the
            // limits are reached.
            let tries = 20 + next(12);
            let b = crowded_board(&mut next, tries, (3, 5), (2, 4), 15);
            let color = if next(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            let slack = SideSlack::of(&b, color);
            if slack.passes_as_is() {
                seen[7] += 1;
                assert!(material_side_ok(&b, color), "{}", b.board_fen());
            }
            let empty: Vec<Square> = (!b.occupied()).into_iter().collect();
            let square = empty[next(empty.len() as u64) as usize];
            // The other side gains a unit.
            let mut lost = b.clone();
            lost.set_piece_at(square, Role::Knight.of(!color));
            if slack.passes_after_loss() {
                seen[0] += 1;
                assert!(material_side_ok(&lost, color), "{}", lost.board_fen());
            }
            // This side gains a piece, maybe with an unmoved pawn of the other side.
            let role = roles[next(4) as usize];
            let mut gained = b.clone();
            gained.set_piece_at(square, role.of(color));
            let other_start = color.fold_wb(Rank::Seventh, Rank::Second);
            let file = shakmaty::File::new(next(8) as u32);
            let blocker = Square::from_coords(file, other_start);
            // Half the time, the other side's unmoved pawn on `file` replaces one of its
            // pieces (its unit count stays), where that can be done.
            let add_blocker = |board: &mut Board, toss: u64| {
                let removable = board.by_color(!color) & !board.kings() & !board.pawns();
                let done = !board.occupied().contains(blocker) && removable.any() && toss == 0;
                if done {
                    board.discard_piece_at(removable.first().expect("not empty"));
                    board.set_piece_at(blocker, Role::Pawn.of(!color));
                }
                done
            };
            let with_blocker = add_blocker(&mut gained, next(2));
            if slack.passes_with_piece(role, square, with_blocker.then_some(file)) {
                seen[1] += 1;
                assert!(material_side_ok(&gained, color), "{}", gained.board_fen());
            }
            // This side gains a pawn.
            if !Bitboard::BACKRANKS.contains(square) {
                let mut pawn = b.clone();
                pawn.set_piece_at(square, Role::Pawn.of(color));
                let with_blocker = add_blocker(&mut pawn, next(2));
                if slack.passes_with_pawn(square, with_blocker.then_some(file)) {
                    seen[2] += 1;
                    assert!(material_side_ok(&pawn, color), "{}", pawn.board_fen());
                }
            }
            // One of its pawns goes back diagonally (it had taken a piece of the other side).
            for to in b.by_piece(color.pawn()) {
                for from in attacks::pawn_attacks(!color, to) & !b.occupied() {
                    let mut back = b.clone();
                    back.discard_piece_at(to);
                    back.set_piece_at(from, color.pawn());
                    // A piece put back, or a pawn (which may stand on its starting square).
                    let put_back = if next(2) == 0 {
                        Role::Knight
                    } else {
                        Role::Pawn
                    };
                    back.set_piece_at(to, put_back.of(!color));
                    let blocks = put_back == Role::Pawn && to.rank() == other_start;
                    if slack.passes_after_pawn_capture(from, to, blocks.then(|| to.file())) {
                        seen[3] += 1;
                        assert!(material_side_ok(&back, color), "{}", back.board_fen());
                    }
                }
            }
            // One of its pawns steps back on its file (one rank, or two from the fourth).
            let fwd = color.fold_wb(8, -8);
            for to in b.by_piece(color.pawn()) {
                for ranks in [1, 2] {
                    let Some(from) = to.offset(-fwd * ranks) else {
                        continue;
                    };
                    if b.occupied().contains(from) || Bitboard::BACKRANKS.contains(from) {
                        continue;
                    }
                    let mut back = b.clone();
                    back.discard_piece_at(to);
                    back.set_piece_at(from, color.pawn());
                    if slack.passes_after_pawn_step(from, to) {
                        seen[4] += 1;
                        assert!(material_side_ok(&back, color), "{}", back.board_fen());
                    }
                }
            }
            // The other side's unmoved pawns stand on one more file.
            let mut blocked = b.clone();
            if add_blocker(&mut blocked, 0) && slack.passes_with_blocked(file) {
                seen[5] += 1;
                assert!(material_side_ok(&blocked, color), "{}", blocked.board_fen());
            }
            // One of its pieces on the far rank is taken back to the pawn it promoted from,
            // straight or with a capture (a piece of the other side put back).
            let far = color.fold_wb(Rank::Eighth, Rank::First);
            for to in b.by_color(color) & !b.pawns() & !b.kings() & Bitboard::from_rank(far) {
                let role = b.role_at(to).expect("occupied");
                let behind = to.offset(-fwd).expect("not on the first rank");
                for from in (attacks::pawn_attacks(!color, to) | Bitboard::from_square(behind))
                    & !b.occupied()
                {
                    let captured = from != behind;
                    let mut back = b.clone();
                    back.discard_piece_at(to);
                    back.set_piece_at(from, color.pawn());
                    if captured {
                        back.set_piece_at(to, Role::Knight.of(!color));
                    }
                    if slack.passes_after_unpromotion(from, role, to, captured) {
                        seen[6] += 1;
                        assert!(material_side_ok(&back, color), "{}", back.board_fen());
                    }
                }
            }
        }
        assert!(seen.iter().all(|&n| n > 500), "{seen:?}");
    }
}
