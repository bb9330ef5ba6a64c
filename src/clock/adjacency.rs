//! The reversible retractions of every expanded position, as compact lists of indices.
//!
//! A position's list is stored in increasing order as variable-length integers (7 bits a
//! byte): its first index as a signed difference from an *anchor*, then each further index as
//! the difference from the one before. Positions are stored in breadth-first order and a
//! retraction leads to the level just above or below, so the differences are small: under 2
//! bytes per retraction instead of 4. Each list's length in bytes is kept in one byte (longer
//! lists are listed apart), and the byte offset of every `CHECKPOINT`-th list, so a list is
//! found by adding at most `CHECKPOINT − 1` lengths.
//!
//! The lists from one checkpoint to the next form a group. The anchor of a group's first list
//! is the position's own index; the anchor of the others is the first index of the group's
//! first list, when that list is not empty (else their own index). Neighbouring positions
//! have neighbouring first children, so this takes fewer bytes than the own index, and a list
//! is still read with one more look at its group's first list.

/// Every how many lists a byte offset is kept.
const CHECKPOINT: usize = 16;

/// The length recorded for a list of this many bytes or more, whose length is kept apart.
const LONG: u8 = u8::MAX;

/// A position's index and its list, while it is appended.
type List<'a> = (usize, &'a mut [u32]);

/// The lists of all expanded positions, in index order.
#[derive(Clone, Debug, Default)]
pub struct Adjacency {
    bytes: Vec<u8>,
    /// Each list's length in bytes, or [`LONG`].
    lens: Vec<u8>,
    /// The lengths of the long lists: (list, length), in list order.
    long: Vec<(usize, usize)>,
    /// The byte offset of list `k · CHECKPOINT`.
    checkpoints: Vec<u64>,
    /// Number of indices in all lists.
    edges: usize,
}

impl Adjacency {
    /// Appends the list of the next position (its index is [`Adjacency::len`]); `children`
    /// may be in any order, and is left sorted.
    pub fn push(&mut self, children: &mut [u32]) {
        let count = children.len() as u32;
        self.extend(&[count], children);
    }

    /// Appends the lists of the next `counts.len()` positions, whose children are `flat` in
    /// turn (`counts[k]` for the `k`-th), each in any order (left sorted). The lists are
    /// sorted and encoded in parallel, by runs of consecutive lists, then laid out in order:
    /// the bytes do not depend on the thread count.
    pub fn extend(&mut self, counts: &[u32], flat: &mut [u32]) {
        use rayon::prelude::*;
        /// Lists handled by one task.
        const RUN: usize = 64;
        let first = self.len();
        let mut lists: Vec<List<'_>> = Vec::with_capacity(counts.len());
        let mut rest = flat;
        for (k, &count) in counts.iter().enumerate() {
            let (list, tail) = std::mem::take(&mut rest).split_at_mut(count as usize);
            lists.push((first + k, list));
            rest = tail;
        }
        lists
            .par_chunks_mut(RUN)
            .for_each(|run| run.iter_mut().for_each(|(_, list)| list.sort_unstable()));
        // Each list's anchor: its group's first list is in this batch or stored already.
        let mut group_first: Option<u32> = None;
        let anchors: Vec<i64> = lists
            .iter()
            .map(|(i, list)| {
                let start = i - i % CHECKPOINT;
                if *i == start {
                    group_first = list.first().copied();
                    *i as i64
                } else {
                    if start < first && *i == first {
                        group_first = self.first_of(start);
                    }
                    group_first.map_or(*i as i64, i64::from)
                }
            })
            .collect();
        // Each run's lists encoded in parallel into a buffer of its own, with their sizes;
        // then laid out in order.
        let runs: Vec<(Vec<u8>, Vec<usize>)> = lists
            .par_chunks(RUN)
            .zip(anchors.par_chunks(RUN))
            .map(|(run, run_anchors)| {
                let edges: usize = run.iter().map(|(_, list)| list.len()).sum();
                let mut bytes = Vec::with_capacity(2 * edges + run.len());
                let mut sizes = Vec::with_capacity(run.len());
                for ((_, list), &anchor) in run.iter().zip(run_anchors) {
                    let before = bytes.len();
                    encode(anchor, list, &mut bytes);
                    sizes.push(bytes.len() - before);
                }
                (bytes, sizes)
            })
            .collect();
        let sizes = runs.iter().flat_map(|(_, sizes)| sizes);
        let mut total = self.bytes.len();
        for (&(i, ref list), &size) in lists.iter().zip(sizes) {
            if i.is_multiple_of(CHECKPOINT) {
                self.checkpoints.push(total as u64);
            }
            if size >= usize::from(LONG) {
                self.lens.push(LONG);
                self.long.push((i, size));
            } else {
                self.lens.push(size as u8);
            }
            self.edges += list.len();
            total += size;
        }
        self.bytes.reserve(total - self.bytes.len());
        for (bytes, _) in &runs {
            self.bytes.extend_from_slice(bytes);
        }
    }

    /// Number of lists (expanded positions).
    pub fn len(&self) -> usize {
        self.lens.len()
    }

    /// Whether no list is stored.
    pub fn is_empty(&self) -> bool {
        self.lens.is_empty()
    }

    /// Number of indices in all lists (reversible retractions stored).
    pub fn edges(&self) -> usize {
        self.edges
    }

    /// Bytes held, at capacity.
    pub fn bytes(&self) -> usize {
        self.bytes.capacity()
            + self.lens.capacity()
            + self.long.capacity() * std::mem::size_of::<(usize, usize)>()
            + self.checkpoints.capacity() * 8
    }

    /// Reserves room for the lists of `positions` more positions, at `bytes_each` bytes each,
    /// if the memory can be had (otherwise the lists grow as they are added).
    pub fn try_reserve(&mut self, positions: usize, bytes_each: usize) {
        let _ = self
            .bytes
            .try_reserve_exact(positions.saturating_mul(bytes_each));
        let _ = self.lens.try_reserve_exact(positions);
    }

    /// Gives back spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.bytes.shrink_to_fit();
        self.lens.shrink_to_fit();
        self.long.shrink_to_fit();
        self.checkpoints.shrink_to_fit();
    }

    /// The length in bytes of list `i`.
    fn len_of(&self, i: usize) -> usize {
        match self.lens[i] {
            LONG => {
                let k = self
                    .long
                    .binary_search_by_key(&i, |&(j, _)| j)
                    .expect("every long list is recorded");
                self.long[k].1
            }
            len => usize::from(len),
        }
    }

    /// The byte offset of list `i`.
    fn offset_of(&self, i: usize) -> usize {
        let first = i - i % CHECKPOINT;
        self.checkpoints[first / CHECKPOINT] as usize
            + (first..i).map(|k| self.len_of(k)).sum::<usize>()
    }

    /// The first index of list `i`, if it is not empty.
    fn first_of(&self, i: usize) -> Option<u32> {
        let offset = self.offset_of(i);
        (self.len_of(i) > 0).then(|| {
            let (code, _) = read_varint(&self.bytes[offset..]);
            (self.anchor(i) + unzigzag(code)) as u32
        })
    }

    /// The anchor of list `i`'s first code (see the module's documentation).
    fn anchor(&self, i: usize) -> i64 {
        let start = i - i % CHECKPOINT;
        if i == start {
            return i as i64;
        }
        self.first_of(start).map_or(i as i64, i64::from)
    }

    /// List `i` read from byte `offset`, its first code taken from `anchor`.
    fn list_at(&self, i: usize, offset: usize, anchor: i64) -> Children<'_> {
        Children {
            bytes: &self.bytes[offset..offset + self.len_of(i)],
            prev: anchor,
            first: true,
        }
    }

    /// The list of position `i`, in increasing order (empty when `i` was not expanded).
    pub fn children(&self, i: usize) -> Children<'_> {
        if i >= self.len() {
            return Children {
                bytes: &[],
                prev: i as i64,
                first: true,
            };
        }
        self.list_at(i, self.offset_of(i), self.anchor(i))
    }

    /// The lists of positions `start..` in turn, with their indices.
    pub fn iter_from(&self, start: usize) -> impl Iterator<Item = (usize, Children<'_>)> + '_ {
        let (mut offset, mut group_first) = if start < self.len() {
            let group = start - start % CHECKPOINT;
            (self.offset_of(start), self.first_of(group))
        } else {
            (self.bytes.len(), None)
        };
        (start..self.len()).map(move |i| {
            let anchor = if i.is_multiple_of(CHECKPOINT) {
                let children = self.list_at(i, offset, i as i64);
                group_first = children.clone().next();
                i as i64
            } else {
                group_first.map_or(i as i64, i64::from)
            };
            let children = self.list_at(i, offset, anchor);
            offset += self.len_of(i);
            (i, children)
        })
    }

    /// The lists of the positions in `indices` (increasing), with their indices: found from
    /// the one before when it is near, so that a sorted set is read in one pass.
    pub fn iter_of(
        &self,
        indices: impl Iterator<Item = usize>,
    ) -> impl Iterator<Item = (usize, Children<'_>)> {
        // The next list in order and its offset.
        let mut at = (usize::MAX, 0usize);
        indices.filter(|&i| i < self.len()).map(move |i| {
            let offset = if at.0 <= i && i - at.0 < CHECKPOINT {
                at.1 + (at.0..i).map(|k| self.len_of(k)).sum::<usize>()
            } else {
                self.offset_of(i)
            };
            at = (i + 1, offset + self.len_of(i));
            (i, self.list_at(i, offset, self.anchor(i)))
        })
    }

    /// The reversed lists: for each of the `n` positions, the positions whose lists hold it,
    /// in increasing order (an empty list for a position no list holds). Built in two passes
    /// over the lists, the first measuring each reversed list, the second writing it.
    pub fn reversed(&self, n: usize) -> Adjacency {
        const NONE: u32 = u32::MAX;
        // The first index of each reversed list, then the lengths of the differences after it.
        let mut first = vec![NONE; n];
        let mut last = vec![NONE; n];
        let mut len = vec![0usize; n];
        for (i, children) in self.iter() {
            for j in children {
                let j = j as usize;
                if last[j] == NONE {
                    first[j] = i as u32;
                } else {
                    len[j] += varint_size((i - last[j] as usize) as u64);
                }
                last[j] = i as u32;
            }
        }
        drop(last);
        // Each list's anchor, as in `extend`.
        let anchor = |j: usize| {
            let start = j - j % CHECKPOINT;
            match first[start] {
                f if j != start && f != NONE => i64::from(f),
                _ => j as i64,
            }
        };
        for (j, l) in len.iter_mut().enumerate() {
            if first[j] != NONE {
                *l += varint_size(zigzag(i64::from(first[j]) - anchor(j)));
            }
        }
        // The code of `i` in `j`'s reversed list, given the one before it there (`last`).
        let code = |i: usize, j: usize, last: u32| {
            if last == NONE {
                zigzag(i as i64 - anchor(j))
            } else {
                (i - last as usize) as u64
            }
        };
        let mut out = Adjacency {
            bytes: Vec::new(),
            lens: Vec::with_capacity(n),
            long: Vec::new(),
            checkpoints: Vec::with_capacity(n.div_ceil(CHECKPOINT)),
            edges: self.edges,
        };
        // `len` becomes each reversed list's write position.
        let mut offset = 0usize;
        for (j, l) in len.iter_mut().enumerate() {
            if j.is_multiple_of(CHECKPOINT) {
                out.checkpoints.push(offset as u64);
            }
            if *l >= usize::from(LONG) {
                out.lens.push(LONG);
                out.long.push((j, *l));
            } else {
                out.lens.push(*l as u8);
            }
            let start = offset;
            offset += *l;
            *l = start;
        }
        out.bytes = vec![0; offset];
        let mut last = vec![NONE; n];
        for (i, children) in self.iter() {
            for j in children {
                let j = j as usize;
                len[j] += write_varint_at(&mut out.bytes[len[j]..], code(i, j, last[j]));
                last[j] = i as u32;
            }
        }
        out
    }

    /// The lists of every position, with their indices, from the last to the first.
    pub fn iter_rev(&self) -> impl Iterator<Item = (usize, Children<'_>)> + '_ {
        // The lists of one checkpoint's group are found forwards, then given out backwards.
        let mut group: Vec<(usize, Children<'_>)> = Vec::with_capacity(CHECKPOINT);
        let mut next_group = self.checkpoints.len();
        std::iter::from_fn(move || {
            if group.is_empty() {
                if next_group == 0 {
                    return None;
                }
                next_group -= 1;
                let first = next_group * CHECKPOINT;
                group.extend(self.iter_from(first).take(CHECKPOINT));
            }
            group.pop()
        })
    }

    /// The lists of every position, with their indices.
    pub fn iter(&self) -> impl Iterator<Item = (usize, Children<'_>)> + '_ {
        self.iter_from(0)
    }
}

/// Appends the codes of a sorted list to `out`, as variable-length integers: its first index
/// as a signed difference from `anchor`, each further one as the difference from the one
/// before.
#[inline]
fn encode(anchor: i64, sorted: &[u32], out: &mut Vec<u8>) {
    let Some((&first, rest)) = sorted.split_first() else {
        return;
    };
    push_varint(out, zigzag(i64::from(first) - anchor));
    let mut prev = first;
    for &c in rest {
        push_varint(out, u64::from(c - prev));
        prev = c;
    }
}

/// Appends `v` to `out` as a variable-length integer.
#[inline]
fn push_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The indices of one list, in increasing order.
#[derive(Clone, Debug)]
pub struct Children<'a> {
    bytes: &'a [u8],
    prev: i64,
    first: bool,
}

impl Iterator for Children<'_> {
    type Item = u32;

    fn next(&mut self) -> Option<u32> {
        if self.bytes.is_empty() {
            return None;
        }
        let (code, used) = read_varint(self.bytes);
        self.bytes = &self.bytes[used..];
        self.prev += if self.first {
            self.first = false;
            unzigzag(code)
        } else {
            code as i64
        };
        Some(self.prev as u32)
    }
}

fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

fn unzigzag(v: u64) -> i64 {
    ((v >> 1) as i64) ^ -((v & 1) as i64)
}

/// Writes `v` at the start of `out`; returns the number of bytes written.
#[inline]
fn write_varint_at(out: &mut [u8], mut v: u64) -> usize {
    let mut k = 0;
    while v >= 0x80 {
        out[k] = (v as u8) | 0x80;
        v >>= 7;
        k += 1;
    }
    out[k] = v as u8;
    k + 1
}

/// The number of bytes `v` takes.
#[inline]
fn varint_size(v: u64) -> usize {
    // 1 + one more byte for each 7 bits above the first 7.
    1 + (63 - (v | 1).leading_zeros() as usize) / 7
}

/// The value at the start of `bytes` and the number of bytes it takes.
#[inline]
fn read_varint(bytes: &[u8]) -> (u64, usize) {
    if bytes[0] < 0x80 {
        return (u64::from(bytes[0]), 1);
    }
    let mut v = 0u64;
    for (k, &b) in bytes.iter().enumerate() {
        v |= u64::from(b & 0x7f) << (7 * k);
        if b < 0x80 {
            return (v, k + 1);
        }
    }
    unreachable!("a list is always written whole")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_read_back_sorted_from_any_start() {
        // Lists of many lengths, with indices far below and above their own.
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut adjacency = Adjacency::default();
        let mut expected: Vec<Vec<u32>> = Vec::new();
        for i in 0..200u64 {
            // Some lists longer than a length byte can say.
            let len = if i % 37 == 5 {
                300
            } else {
                (next() % 12) as usize
            };
            let mut list: Vec<u32> = (0..len)
                .map(|_| match next() % 3 {
                    0 => (next() % (i + 1)) as u32,
                    1 => (i + next() % 50) as u32,
                    _ => (next() % u64::from(u32::MAX)) as u32,
                })
                .collect();
            adjacency.push(&mut list);
            expected.push(list);
        }
        assert_eq!(adjacency.len(), 200);
        // The same lists appended in batches of uneven sizes give the same bytes.
        let mut batched = Adjacency::default();
        let mut at = 0;
        for size in [3usize, 13, 16, 1, 40, 127] {
            let lists = &expected[at..at + size];
            let counts: Vec<u32> = lists.iter().map(|l| l.len() as u32).collect();
            // Each list reversed: the order within a list must not matter.
            let mut flat: Vec<u32> = lists.iter().flat_map(|l| l.iter().rev().copied()).collect();
            batched.extend(&counts, &mut flat);
            at += size;
        }
        assert_eq!(at, 200);
        assert_eq!(batched.bytes, adjacency.bytes);
        assert_eq!(batched.lens, adjacency.lens);
        assert_eq!(batched.long, adjacency.long);
        assert_eq!(batched.checkpoints, adjacency.checkpoints);
        assert_eq!(
            adjacency.edges(),
            expected.iter().map(Vec::len).sum::<usize>()
        );
        for (i, list) in expected.iter().enumerate() {
            assert!(list.is_sorted());
            assert_eq!(adjacency.children(i).collect::<Vec<_>>(), *list, "list {i}");
        }
        for start in [0, 1, 15, 16, 17, 199, 200, 250] {
            let read: Vec<(usize, Vec<u32>)> = adjacency
                .iter_from(start)
                .map(|(i, c)| (i, c.collect()))
                .collect();
            let want: Vec<(usize, Vec<u32>)> = expected
                .iter()
                .enumerate()
                .skip(start)
                .map(|(i, l)| (i, l.clone()))
                .collect();
            assert_eq!(read, want, "from {start}");
        }
        assert_eq!(adjacency.children(500).count(), 0);
        let backwards: Vec<(usize, Vec<u32>)> = adjacency
            .iter_rev()
            .map(|(i, c)| (i, c.collect()))
            .collect();
        let want: Vec<(usize, Vec<u32>)> = expected.iter().cloned().enumerate().rev().collect();
        assert_eq!(backwards, want);
        // The reversed lists, against the lists reversed by hand (indices up to u32::MAX
        // are kept to 1000 positions here).
        let mut small = Adjacency::default();
        let mut lists = Vec::new();
        for (i, list) in expected.iter().enumerate() {
            let mut l: Vec<u32> = list.iter().map(|&c| c % 1000).collect();
            l.sort_unstable();
            l.dedup();
            small.push(&mut l);
            lists.push((i, l));
        }
        let reversed = small.reversed(1000);
        assert_eq!(reversed.len(), 1000);
        assert_eq!(reversed.edges(), small.edges());
        for j in 0..1000u32 {
            let want: Vec<u32> = lists
                .iter()
                .filter(|(_, l)| l.contains(&j))
                .map(|&(i, _)| i as u32)
                .collect();
            assert_eq!(
                reversed.children(j as usize).collect::<Vec<_>>(),
                want,
                "{j}"
            );
        }
        let picked = [0usize, 3, 4, 17, 18, 40, 41, 42, 99, 150, 199, 300];
        let read: Vec<(usize, Vec<u32>)> = adjacency
            .iter_of(picked.into_iter())
            .map(|(i, c)| (i, c.collect()))
            .collect();
        let want: Vec<(usize, Vec<u32>)> = picked
            .iter()
            .filter(|&&i| i < 200)
            .map(|&i| (i, expected[i].clone()))
            .collect();
        assert_eq!(read, want);
    }

    #[test]
    fn neighbours_first_children_are_coded_from_their_groups_first_list() {
        // Positions far from their children, with neighbouring first children (as in a
        // breadth-first search): a group's later lists take one byte for their first code
        // where their own index would need three.
        let mut adjacency = Adjacency::default();
        let mut expected = Vec::new();
        for i in 0..64u32 {
            let mut list = if i % 5 == 3 {
                Vec::new()
            } else {
                vec![400_000 + i, 400_100 + i]
            };
            adjacency.push(&mut list);
            expected.push(list);
        }
        for (i, list) in expected.iter().enumerate() {
            assert_eq!(adjacency.children(i).collect::<Vec<_>>(), *list, "list {i}");
        }
        let own_index: usize = expected
            .iter()
            .enumerate()
            .map(|(i, l)| {
                let mut out = Vec::new();
                encode(i as i64, l, &mut out);
                out.len()
            })
            .sum();
        // Each non-empty list: a first code and a 1-byte difference. The first code takes 3
        // bytes from the own index; from the group's first list, 1. Lists 0, 16 and 32 start
        // their groups; list 48 is empty, so its group's 12 other lists keep their own index.
        let non_empty = expected.iter().filter(|l| !l.is_empty()).count();
        assert_eq!(non_empty, 51);
        assert_eq!(own_index, non_empty * (3 + 1));
        let own_coded = 3 + 12;
        assert_eq!(
            adjacency.bytes.len(),
            own_coded * 3 + (non_empty - own_coded) + non_empty
        );
    }

    #[test]
    fn varints_round_trip() {
        for v in [0, 1, 127, 128, 300, u64::from(u32::MAX), u64::MAX] {
            let mut out = Vec::new();
            push_varint(&mut out, v);
            assert_eq!(read_varint(&out), (v, out.len()));
            assert_eq!(varint_size(v), out.len());
            let mut at = vec![0u8; 12];
            assert_eq!(write_varint_at(&mut at, v), out.len());
            assert_eq!(at[..out.len()], out[..]);
        }
        for v in [0, 1, -1, 63, -64, i64::from(i32::MAX), i64::from(i32::MIN)] {
            assert_eq!(unzigzag(zigzag(v)), v);
        }
    }
}
