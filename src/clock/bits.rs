//! Sets of stored positions, as bits over their indices.

/// A set of positions, one bit per index, that can also grow one index at a time.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bits {
    words: Vec<u64>,
    len: usize,
}

impl Bits {
    /// The empty set over indices `0..len`.
    pub fn new(len: usize) -> Bits {
        Bits {
            words: vec![0; len.div_ceil(64)],
            len,
        }
    }

    /// Appends index `len()`, in the set when `bit` is.
    pub fn push(&mut self, bit: bool) {
        if self.len.is_multiple_of(64) {
            self.words.push(0);
        }
        self.len += 1;
        if bit {
            self.insert(self.len - 1);
        }
    }

    /// Whether `i` is in the set (false beyond `len()`).
    pub fn contains(&self, i: usize) -> bool {
        i < self.len && self.words[i / 64] & (1 << (i % 64)) != 0
    }

    /// Puts `i` (below `len()`) in the set.
    pub fn insert(&mut self, i: usize) {
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Takes `i` out of the set.
    pub fn remove(&mut self, i: usize) {
        if i < self.len {
            self.words[i / 64] &= !(1 << (i % 64));
        }
    }

    /// Adds the members of `other` (a set over the same indices).
    pub fn union_with(&mut self, other: &Bits) {
        for (a, b) in self.words.iter_mut().zip(&other.words) {
            *a |= b;
        }
    }

    /// Whether every member of `other` (a set over the same indices) is in the set.
    pub fn is_superset(&self, other: &Bits) -> bool {
        self.words
            .iter()
            .zip(&other.words)
            .all(|(a, b)| b & !a == 0)
    }

    /// Whether the set has no member.
    pub fn is_empty(&self) -> bool {
        self.words.iter().all(|&w| w == 0)
    }

    /// The number of indices the set is over.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The members, in increasing order.
    pub fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        self.words.iter().enumerate().flat_map(|(w, &bits)| {
            let mut b = bits;
            std::iter::from_fn(move || {
                if b == 0 {
                    return None;
                }
                let t = b.trailing_zeros() as usize;
                b &= b - 1;
                Some(w * 64 + t)
            })
        })
    }

    /// Bytes held, at capacity.
    pub fn bytes(&self) -> usize {
        self.words.capacity() * 8
    }

    /// Gives back spare capacity.
    pub fn shrink_to_fit(&mut self) {
        self.words.shrink_to_fit();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grown_and_made_sets_agree() {
        let members = [0usize, 1, 63, 64, 65, 127, 128, 200];
        let mut grown = Bits::default();
        for i in 0..=200 {
            grown.push(members.contains(&i));
        }
        let mut made = Bits::new(201);
        assert!(made.is_empty());
        for &i in &members {
            made.insert(i);
        }
        assert_eq!(grown, made);
        assert_eq!(made.iter().collect::<Vec<_>>(), members);
        assert!(!made.contains(2) && made.contains(64) && !made.contains(500));
        made.remove(64);
        assert!(!made.contains(64));
        let mut other = Bits::new(201);
        other.insert(64);
        made.union_with(&other);
        assert_eq!(made, grown);
    }
}
