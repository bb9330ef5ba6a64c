//! Square min-cost assignment (Hungarian method with potentials) that can be
//! repaired after one column changes or after a row and a column are removed.
//!
//! Invariants between operations (the classical ones of the method): the
//! potentials are dual feasible, `u[i] + v[j] <= a[i][j]` for every pair, every
//! matched pair is tight, and the matching is perfect. Hence the matching is
//! optimal and its cost equals `u.sum() + v.sum()`; and whenever only dual
//! feasibility holds, `u.sum() + v.sum()` is still a lower bound of the optimum.

/// Largest supported size (units of one side).
pub(crate) const MAX: usize = 16;
/// Matrix entry meaning "impossible".
pub(crate) const NONE: u8 = u8::MAX;
/// Cost of an impossible pair: larger than any total of possible pairs.
pub(crate) const INF: i32 = 1000;

#[derive(Clone, Debug)]
pub(crate) struct Matching {
    /// Size (rows = columns).
    m: usize,
    /// Costs, 1-indexed `a[row][col]`.
    a: [[u8; MAX + 1]; MAX + 1],
    u: [i32; MAX + 1],
    v: [i32; MAX + 1],
    /// Row matched to each column (index 0 is scratch space).
    p: [u8; MAX + 1],
    /// `u.sum() + v.sum()`, kept up to date by every operation.
    value: i32,
}

/// An entry as a cost, without branches (so that loops vectorise).
#[inline]
fn entry_cost(c: u8) -> i32 {
    i32::from(c) + i32::from(c == NONE) * (INF - i32::from(NONE))
}

impl Matching {
    /// An empty matching of size `m` with all costs impossible; fill it with
    /// [`Matching::set`] and call [`Matching::solve`].
    pub(crate) fn new(m: usize) -> Matching {
        debug_assert!(m <= MAX);
        Matching {
            m,
            a: [[NONE; MAX + 1]; MAX + 1],
            u: [0; MAX + 1],
            v: [0; MAX + 1],
            p: [0; MAX + 1],
            value: 0,
        }
    }

    #[inline]
    pub(crate) fn size(&self) -> usize {
        self.m
    }

    #[inline]
    fn cost(&self, i: usize, j: usize) -> i32 {
        entry_cost(self.a[i][j])
    }

    /// Recomputes the cached dual value.
    fn refresh_value(&mut self) {
        self.value =
            self.u[1..=self.m].iter().sum::<i32>() + self.v[1..=self.m].iter().sum::<i32>();
    }

    /// Sets the cost of (row `i`, column `j`), both 0-based.
    #[inline]
    pub(crate) fn set(&mut self, i: usize, j: usize, c: u8) {
        self.a[i + 1][j + 1] = c;
    }

    /// The cost of (row `i`, column `j`), both 0-based.
    #[inline]
    pub(crate) fn get(&self, i: usize, j: usize) -> u8 {
        self.a[i + 1][j + 1]
    }

    /// Row (0-based) matched to column `j` (0-based); `usize::MAX` if none (never
    /// the case between operations).
    #[inline]
    pub(crate) fn row_of(&self, j: usize) -> usize {
        usize::from(self.p[j + 1]).wrapping_sub(1)
    }

    /// Optimal cost (`>= INF` if every perfect matching uses an impossible pair).
    #[inline]
    pub(crate) fn value(&self) -> i32 {
        self.value
    }

    /// Solves from scratch.
    pub(crate) fn solve(&mut self) {
        self.u = [0; MAX + 1];
        self.v = [0; MAX + 1];
        self.p = [0; MAX + 1];
        for i in 1..=self.m {
            self.phase(i);
        }
        self.refresh_value();
        debug_assert!(self.check());
    }

    /// The lower bound after column `j` (0-based) gets the costs `col` (0-based
    /// rows): the potential of that column is lowered until it is feasible again.
    /// Returns the new value of `u.sum() + v.sum()` without changing anything.
    pub(crate) fn column_bound(&self, j: usize, col: &[u8; MAX]) -> i32 {
        let mut v = i32::MAX;
        for (&x, &u) in col.iter().zip(&self.u[1..=self.m]) {
            v = v.min(entry_cost(x) - u);
        }
        self.value() - self.v[j + 1] + v
    }

    /// Replaces column `j` (0-based) by `col` and restores optimality with at most
    /// one augmentation: O(m²), O(m) when the matched pair stays tight.
    pub(crate) fn replace_column(&mut self, j: usize, col: &[u8; MAX]) {
        let j = j + 1;
        let mut v = i32::MAX;
        for i in 1..=self.m {
            self.a[i][j] = col[i - 1];
            v = v.min(self.cost(i, j) - self.u[i]);
        }
        self.v[j] = v;
        let i0 = usize::from(self.p[j]);
        // Still tight on its matched row: the matching stays optimal as it is.
        if self.cost(i0, j) - self.u[i0] != v {
            self.p[j] = 0;
            self.phase(i0);
        }
        self.refresh_value();
        debug_assert!(self.check());
    }

    /// Removes row `r` and column `c` (0-based) and restores optimality (one
    /// augmentation when they were not matched together).
    ///
    /// Returns the position changes caused by moving the last row into `r` and the
    /// last column into `c`: the caller mirrors them in its own row and column
    /// tables (`swap_remove` semantics on both).
    pub(crate) fn remove(&mut self, r: usize, c: usize) {
        let (r, c) = (r + 1, c + 1);
        let m = self.m;
        // Unmatch column c and row r.
        let mut free_row = usize::from(self.p[c]);
        self.p[c] = 0;
        if free_row == r {
            free_row = 0;
        } else if let Some(jr) = (1..=m).find(|&j| usize::from(self.p[j]) == r) {
            self.p[jr] = 0;
        }
        // Column m moves into c.
        if c != m {
            for i in 1..=m {
                self.a[i][c] = self.a[i][m];
            }
            self.v[c] = self.v[m];
            self.p[c] = self.p[m];
        }
        // Row m moves into r.
        if r != m {
            self.a[r] = self.a[m];
            self.u[r] = self.u[m];
            for j in 1..m {
                if usize::from(self.p[j]) == m {
                    self.p[j] = r as u8;
                }
            }
            if free_row == m {
                free_row = r;
            }
        }
        for i in 1..=m {
            self.a[i][m] = NONE;
        }
        self.a[m] = [NONE; MAX + 1];
        self.u[m] = 0;
        self.v[m] = 0;
        self.p[m] = 0;
        self.m = m - 1;
        if free_row != 0 {
            self.phase(free_row);
        }
        self.refresh_value();
        debug_assert!(self.check());
    }

    /// One phase of the method: matches the free row `i0` along a shortest
    /// augmenting path in reduced costs, updating the potentials.
    fn phase(&mut self, i0: usize) {
        const BIG: i32 = i32::MAX / 4;
        let m = self.m;
        let mut minv = [BIG; MAX + 1];
        let mut used = [false; MAX + 1];
        let mut way = [0usize; MAX + 1];
        self.p[0] = i0 as u8;
        let mut j0 = 0usize;
        loop {
            used[j0] = true;
            let i = usize::from(self.p[j0]);
            let mut delta = BIG;
            let mut j1 = 0usize;
            for j in 1..=m {
                if !used[j] {
                    let cur = self.cost(i, j) - self.u[i] - self.v[j];
                    if cur < minv[j] {
                        minv[j] = cur;
                        way[j] = j0;
                    }
                    if minv[j] < delta {
                        delta = minv[j];
                        j1 = j;
                    }
                }
            }
            if j1 == 0 {
                // No free column (cannot happen for a square matching with one free
                // row); leave the state as it is.
                return;
            }
            for j in 0..=m {
                if used[j] {
                    self.u[usize::from(self.p[j])] += delta;
                    self.v[j] -= delta;
                } else {
                    minv[j] -= delta;
                }
            }
            j0 = j1;
            if self.p[j0] == 0 {
                break;
            }
        }
        loop {
            let j1 = way[j0];
            self.p[j0] = self.p[j1];
            j0 = j1;
            if j0 == 0 {
                break;
            }
        }
        // v[0] absorbed the phase's deltas; it is scratch space.
        self.v[0] = 0;
        self.u[0] = 0;
    }

    /// The invariants (debug builds).
    fn check(&self) -> bool {
        let m = self.m;
        let mut seen = [false; MAX + 1];
        for j in 1..=m {
            let i = usize::from(self.p[j]);
            if i == 0 || i > m || seen[i] {
                return false;
            }
            seen[i] = true;
            if self.u[i] + self.v[j] != self.cost(i, j) {
                return false;
            }
        }
        for i in 1..=m {
            for j in 1..=m {
                if self.u[i] + self.v[j] > self.cost(i, j) {
                    return false;
                }
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force over permutations.
    fn brute(a: &[Vec<u8>]) -> i32 {
        fn go(a: &[Vec<u8>], i: usize, used: &mut Vec<bool>) -> i32 {
            if i == a.len() {
                return 0;
            }
            let mut best = i32::MAX;
            for j in 0..a.len() {
                if !used[j] {
                    used[j] = true;
                    let c = if a[i][j] == NONE {
                        INF
                    } else {
                        i32::from(a[i][j])
                    };
                    best = best.min(c + go(a, i + 1, used));
                    used[j] = false;
                }
            }
            best
        }
        go(a, 0, &mut vec![false; a.len()])
    }

    fn load(a: &[Vec<u8>]) -> Matching {
        let mut mt = Matching::new(a.len());
        for (i, row) in a.iter().enumerate() {
            for (j, &c) in row.iter().enumerate() {
                mt.set(i, j, c);
            }
        }
        mt.solve();
        mt
    }

    /// Deterministic pseudo-random costs, some impossible.
    fn matrix(seed: &mut u64, m: usize) -> Vec<Vec<u8>> {
        let mut next = || {
            *seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (*seed >> 33) as u32
        };
        (0..m)
            .map(|_| {
                (0..m)
                    .map(|_| {
                        if next() % 7 == 0 {
                            NONE
                        } else {
                            (next() % 9) as u8
                        }
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn solve_replace_remove_agree_with_brute_force() {
        let mut seed = 7u64;
        for round in 0..300 {
            let m = 1 + round % 7;
            let mut a = matrix(&mut seed, m);
            let mut mt = load(&a);
            assert_eq!(mt.value(), brute(&a), "solve {a:?}");
            // Replace a column.
            let j = round % m;
            let fresh = matrix(&mut seed, m);
            let mut col = [NONE; MAX];
            for i in 0..m {
                col[i] = fresh[i][0];
                a[i][j] = fresh[i][0];
            }
            let bound = mt.column_bound(j, &col);
            mt.replace_column(j, &col);
            let best = brute(&a);
            assert!(bound <= best);
            assert_eq!(mt.value(), best, "replace {a:?}");
            // Remove a row and a column.
            if m > 1 {
                let (r, c) = ((round * 3) % m, (round * 5) % m);
                mt.remove(r, c);
                a.swap_remove(r);
                for row in &mut a {
                    row.swap_remove(c);
                }
                assert_eq!(mt.value(), brute(&a), "remove {a:?}");
            }
        }
    }
}
