//! The exploration of the reversible retraction graph: a breadth-first search from the
//! position, in chunks of queued positions, each chunk expanded in parallel while the one
//! before it is stored in a fixed order, so that the graph (and every answer drawn from it) is
//! the same for any number of threads.
//!
//! Stored per position: its code (exact when the pieces fit in 128 bits, else a 64-bit Zobrist
//! key and a 32-bit check: see [`super::identity`]), whether it is a reset origin, and its
//! reversible retractions as indices (a compact adjacency list); distances are level ranges,
//! and the position through which another was first reached is found again from the adjacency
//! when a line is wanted. Positions themselves are not stored: one waiting in the queue to be
//! expanded is read back from its exact code when it is expanded (or kept whole, when its code
//! is hashed), and an edge waiting to be placed is kept as its code and the 4 bytes of its
//! step ([`crate::retract::Step`]).

use std::{
    sync::{
        OnceLock,
        atomic::{AtomicUsize, Ordering},
    },
    time::Instant,
};

use rayon::prelude::*;

use crate::{
    position::Position,
    retract::{Filter, MaterialCache, Step, visit_retractions_checked},
    rules::Convention,
};

use super::{
    adjacency::{Adjacency, Children},
    bits::Bits,
    identity::{Code, Ids, Layout, PositionId, U96, Width},
    origin::{ChainStatus, search_origin_status},
};

/// Slots in one bucket of the key index: one cache line.
const BUCKET: usize = 16;

/// A bucket of the key index: `BUCKET` slots on one cache line, filled from the first.
#[derive(Clone, Copy)]
#[repr(C, align(64))]
struct Bucket([u32; BUCKET]);

impl Bucket {
    const EMPTY: Bucket = Bucket([KeyIndex::EMPTY; BUCKET]);

    /// The slots that are empty, and those whose high bits (outside `index_mask`) are
    /// `fingerprint`, as bit masks (bit `k` for slot `k`), found without a branch per slot.
    #[cfg(target_arch = "x86_64")]
    fn masks(&self, fingerprint: u32, index_mask: u32) -> (u32, u32) {
        use std::arch::x86_64::{
            _mm_and_si128, _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_load_si128, _mm_movemask_ps,
            _mm_set1_epi32,
        };
        // SAFETY: SSE2 is part of every x86-64 processor, and each load reads four slots of
        // the bucket, 16 bytes aligned to 16 (the bucket is aligned to 64), as
        // `_mm_load_si128` needs.
        unsafe {
            let empty_slot = _mm_set1_epi32(KeyIndex::EMPTY as i32);
            let high = _mm_set1_epi32(!index_mask as i32);
            let wanted = _mm_set1_epi32(fingerprint as i32);
            let (mut empty, mut same) = (0u32, 0u32);
            for group in 0..BUCKET / 4 {
                let slots = _mm_load_si128(self.0.as_ptr().add(4 * group).cast());
                let is_empty =
                    _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(slots, empty_slot)));
                let is_same = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpeq_epi32(
                    _mm_and_si128(slots, high),
                    wanted,
                )));
                empty |= (is_empty as u32) << (4 * group);
                same |= (is_same as u32) << (4 * group);
            }
            (empty, same)
        }
    }

    /// As above, one slot at a time.
    #[cfg(not(target_arch = "x86_64"))]
    fn masks(&self, fingerprint: u32, index_mask: u32) -> (u32, u32) {
        self.masks_by_slot(fingerprint, index_mask)
    }

    /// [`Bucket::masks`], one slot at a time: what processors other than x86-64 run, and what
    /// the tests compare the x86-64 version with.
    #[cfg(any(test, not(target_arch = "x86_64")))]
    fn masks_by_slot(&self, fingerprint: u32, index_mask: u32) -> (u32, u32) {
        let (mut empty, mut same) = (0u32, 0u32);
        for (k, &slot) in self.0.iter().enumerate() {
            empty |= u32::from(slot == KeyIndex::EMPTY) << k;
            same |= u32::from(slot & !index_mask == fingerprint) << k;
        }
        (empty, same)
    }
}

/// The index from codes ([`Code`]) to stored positions: an open-addressing table of 4-byte
/// slots in buckets of one cache line, kept at most 80 % full and grown by half when it would
/// be fuller (so it is between 53 % and 80 % full once it holds a few thousand positions; the
/// codes themselves live in [`Graph::ids`]). A key goes to the first free slot of its home
/// bucket, or of the buckets after it when that one is full (linear probing by buckets):
/// a look-up reads one cache line and compares its slots together, and reads the next line
/// only when the first is full. (A slot at a time, a nearly full table made long runs of
/// slots to step through, one unpredictable branch each.)
/// A slot holds a position's index in its low bits and, in the bits the indices do not need
/// yet, a fingerprint of the code's key ([`Code::key`], its top bits), so that a look-up passes
/// over most other positions without reading their codes. A position is found only when its
/// whole stored code matches.
struct KeyIndex {
    buckets: Vec<Bucket>,
    len: usize,
    /// How many low bits of a slot hold the index; the rest hold the fingerprint.
    index_bits: u32,
    /// The mask of those bits (kept with `index_bits`).
    index_mask: u32,
}

impl KeyIndex {
    const EMPTY: u32 = u32::MAX;
    /// Index bits to start with: room for about a million positions before the fingerprint
    /// gives up a bit.
    const START_INDEX_BITS: u32 = 20;

    /// The table is grown when it would be fuller than `MAX_LOAD_TENTHS` tenths.
    const MAX_LOAD_TENTHS: usize = 8;

    fn new() -> KeyIndex {
        KeyIndex {
            buckets: vec![Bucket::EMPTY; 64],
            len: 0,
            index_bits: Self::START_INDEX_BITS,
            index_mask: Self::mask_of(Self::START_INDEX_BITS),
        }
    }

    fn bytes(&self) -> usize {
        self.buckets.capacity() * std::mem::size_of::<Bucket>()
    }

    /// Number of slots.
    fn slots(&self) -> usize {
        self.buckets.len() * BUCKET
    }

    /// The fingerprint of `key` placed in a slot's high bits (zero when indices take all 32).
    #[inline]
    fn fingerprint(&self, key: u64) -> u32 {
        (key >> 32) as u32 & !self.index_mask
    }

    fn index_mask(&self) -> u32 {
        self.index_mask
    }

    /// Gives `index_bits` low bits of a slot to the index (without placing anything again).
    fn set_index_bits(&mut self, index_bits: u32) {
        self.index_bits = index_bits;
        self.index_mask = Self::mask_of(index_bits);
    }

    fn mask_of(index_bits: u32) -> u32 {
        match index_bits {
            32 => u32::MAX,
            bits => (1 << bits) - 1,
        }
    }

    /// The bucket where `key` is looked for first among `buckets`: the key's low half scaled
    /// to the count (its high bits give the fingerprint).
    fn home(key: u64, buckets: usize) -> usize {
        ((u128::from(key.rotate_left(32)) * buckets as u128) >> 64) as usize
    }

    /// Asks the processor to fetch the bucket where `key` is looked for first, without
    /// waiting for it.
    fn prefetch(&self, key: u64) {
        prefetch(&self.buckets[Self::home(key, self.buckets.len())]);
    }

    /// The index stored for `code`, if any.
    #[cfg(test)]
    fn get<C: Code>(&self, code: C, ids: &[C]) -> Option<u32> {
        self.probe(code, ids).ok()
    }

    /// The index stored for `code`, or the empty slot where it belongs (bucket, slot).
    #[inline]
    fn probe<C: Code>(&self, code: C, ids: &[C]) -> Result<u32, (usize, usize)> {
        let key = code.key();
        let count = self.buckets.len();
        let (fingerprint, index_mask) = (self.fingerprint(key), self.index_mask());
        let mut b = Self::home(key, count);
        loop {
            let bucket = &self.buckets[b];
            let (empty, same) = bucket.masks(fingerprint, index_mask);
            // A bucket fills from its first slot: the full slots come before the empty ones.
            let full = empty.trailing_zeros().min(BUCKET as u32);
            let mut candidates = same & ((1u32 << full) - 1);
            while candidates != 0 {
                let index = bucket.0[candidates.trailing_zeros() as usize] & index_mask;
                if ids[index as usize] == code {
                    return Ok(index);
                }
                candidates &= candidates - 1;
            }
            if empty != 0 {
                return Err((b, full as usize));
            }
            b += 1;
            if b == count {
                b = 0;
            }
        }
    }

    /// The index stored for `code`, or inserts `new` and returns None.
    #[inline(always)]
    fn get_or_insert<C: Code>(&mut self, code: C, new: u32, ids: &[C]) -> Option<u32> {
        match self.probe(code, ids) {
            Ok(index) => Some(index),
            Err(mut at) => {
                if new >= self.index_mask()
                    || (self.len + 1) * 10 > self.slots() * Self::MAX_LOAD_TENTHS
                {
                    self.make_room(new, ids);
                    at = self.probe(code, ids).expect_err("not stored yet");
                }
                self.buckets[at.0].0[at.1] = self.fingerprint(code.key()) | new;
                self.len += 1;
                None
            }
        }
    }

    /// Makes room for one more position, with index `new`: grows the table when it would be
    /// fuller than `MAX_LOAD_TENTHS`, and keeps every index below the mask, so that no slot
    /// reads as empty, by giving the fingerprint's lowest bit to the indices when they need it.
    /// (Indices are below `u32::MAX`, the empty slot: 4 G positions would not fit in memory.)
    #[cold]
    fn make_room<C: Code>(&mut self, new: u32, ids: &[C]) {
        while new >= self.index_mask() && self.index_bits < 32 {
            self.set_index_bits(self.index_bits + 1);
            self.rebuild(self.buckets.len(), ids);
        }
        if (self.len + 1) * 10 > self.slots() * Self::MAX_LOAD_TENTHS {
            self.rebuild(self.buckets.len() * 3 / 2, ids);
        }
    }

    /// Places every stored index again, in a table of `count` buckets with the current split.
    /// The index holds exactly the positions of `ids`, which are read in order (the old
    /// slots would send the reads all over `ids`).
    fn rebuild<C: Code>(&mut self, count: usize, ids: &[C]) {
        debug_assert_eq!(self.len, ids.len(), "the index holds every stored position");
        let mut buckets = vec![Bucket::EMPTY; count];
        // How many slots of each bucket are full.
        let mut filled = vec![0u8; count];
        for (index, id) in ids.iter().enumerate() {
            let key = id.key();
            let mut b = Self::home(key, count);
            while usize::from(filled[b]) == BUCKET {
                b += 1;
                if b == count {
                    b = 0;
                }
            }
            buckets[b].0[usize::from(filled[b])] = self.fingerprint(key) | index as u32;
            filled[b] += 1;
        }
        self.buckets = buckets;
    }
}

/// Asks the processor to bring `value` into the cache, without waiting for it (nothing on
/// processors without the instruction).
fn prefetch<T>(value: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch only hints the cache, and `value` is a valid reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(
            (value as *const T).cast(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = value;
}

/// Limits of one search. Running out is an answer (`complete: false`), never an error.
#[derive(Clone, Debug)]
pub struct Budget {
    /// The most positions to store.
    pub max_nodes: u64,
    /// Stop expanding at this instant.
    pub deadline: Option<Instant>,
    /// Stop expanding once the search holds this many bytes (its tables, the adjacency, the
    /// key index, the positions waiting to be expanded and the targets waiting to be placed).
    /// Without it, a search past a few thousand positions reserves address space for the
    /// rest of `max_nodes` (memory is taken only as it fills, and the rest is given back at
    /// the end).
    pub max_bytes: Option<u64>,
    /// Depth of the retraction chain a reset predecessor needs to count as an origin.
    pub chain_depth: u32,
    /// Positions generated at most per origin check.
    pub chain_budget: u64,
    /// The deepest chain tried on the origins that decide the minimum: the solver raises the
    /// depth on them, one ply at a time, and drops those whose every line dies (equal to
    /// `chain_depth` switches this off).
    pub max_chain_depth: u32,
    /// Positions generated at most per deeper check.
    pub deep_chain_budget: u64,
    /// The most positions of a reset predecessor's own reversible graph explored to show that
    /// no reset leads into it ([`super::sealed`]), on the origins that decide the minimum and
    /// still stand after the deeper chains; 0 switches the check off.
    pub seal_nodes: u64,
}

impl Default for Budget {
    fn default() -> Budget {
        Budget {
            max_nodes: 2_000_000,
            deadline: None,
            max_bytes: None,
            chain_depth: 2,
            chain_budget: 20_000,
            max_chain_depth: 6,
            deep_chain_budget: 200_000,
            seal_nodes: 300_000,
        }
    }
}

/// How far a search has come, for a progress display.
#[derive(Clone, Copy, Debug)]
pub struct Progress {
    /// Positions stored so far.
    pub nodes: u64,
    /// The level (distance from the position) being expanded.
    pub level: u32,
}

/// The explored part of the reversible retraction graph.
#[derive(Clone, Debug)]
pub struct Graph {
    /// The starting positions (several when the input leaves castling or e.p. open).
    pub roots: Vec<Position>,
    /// The code of each stored position; roots first, then in breadth-first order.
    pub ids: Ids,
    /// The pieces of the positions, when their codes are exact.
    pub layout: Option<Layout>,
    /// `level_start[d]` is the index of the first position at distance `d` from the roots
    /// (positions are stored in breadth-first order, so a level is a range of indices).
    pub level_start: Vec<u32>,
    /// Whether each expanded position is a reset origin (see [`Graph::is_origin`]).
    pub origin: Bits,
    /// Whether each expanded position is no origin because every reset there is impossible,
    /// one at least by the bookkeeping (see [`is_origin`]): the answer counts them among the
    /// refuted candidates.
    pub booked: Bits,
    /// The reversible retractions of each expanded position, as indices.
    pub adjacency: Adjacency,
    /// Whether every position reachable by reversible retractions was expanded.
    pub complete: bool,
    /// Why the search stopped early, if it did.
    pub stopped_by: Option<&'static str>,
    /// Bytes held by the key index.
    pub index_bytes: usize,
}

impl Graph {
    /// Distance of position `i` from the nearest root (number of reversible retractions).
    pub fn dist(&self, i: usize) -> u32 {
        (self
            .level_start
            .partition_point(|&start| start as usize <= i)
            - 1) as u32
    }

    /// The position through which position `j` was first reached (None for a root): the first
    /// position of the level above, in index order, with a retraction to `j`.
    pub fn parent(&self, j: usize) -> Option<usize> {
        let d = self.dist(j) as usize;
        if d == 0 {
            return None;
        }
        let (start, end) = (
            self.level_start[d - 1] as usize,
            self.level_start[d] as usize,
        );
        self.adjacency
            .iter_from(start)
            .take(end.min(self.expanded()).saturating_sub(start))
            .find_map(|(i, mut children)| children.any(|c| c as usize == j).then_some(i))
    }

    /// [`Graph::parent`] of every stored position at once (`u32::MAX` for roots), in one pass
    /// over the adjacency, run in parallel parts.
    pub fn parents(&self) -> Vec<u32> {
        use std::sync::atomic::{AtomicU32, Ordering};
        const PART: usize = 4096;
        let parents: Vec<AtomicU32> = (0..self.len()).map(|_| AtomicU32::new(u32::MAX)).collect();
        let roots = self.level_start.get(1).map_or(self.len(), |&e| e as usize);
        // Breadth-first order: the first position (by index) of the level above that reaches
        // a position is the one through which the search first reached it: the smallest
        // index with an edge to it, whatever order the parts run in.
        (0..self.expanded().div_ceil(PART))
            .into_par_iter()
            .for_each(|part| {
                for (i, children) in self.adjacency.iter_from(part * PART).take(PART) {
                    for j in children {
                        if j as usize >= roots {
                            parents[j as usize].fetch_min(i as u32, Ordering::Relaxed);
                        }
                    }
                }
            });
        parents.into_iter().map(AtomicU32::into_inner).collect()
    }

    /// Whether stored position `i` is `pos`.
    pub fn holds(&self, i: usize, pos: &Position) -> bool {
        self.ids.holds(i, self.layout.as_ref(), pos)
    }

    /// Number of positions stored.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether nothing was stored.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Number of positions whose retractions were generated.
    pub fn expanded(&self) -> usize {
        self.adjacency.len()
    }

    /// Whether position `i` was expanded and found to be a reset origin.
    pub fn is_origin(&self, i: usize) -> bool {
        self.origin.contains(i)
    }

    /// The reversible retractions of expanded position `i`, as indices in increasing order
    /// (none when `i` was not expanded).
    pub fn children(&self, i: usize) -> Children<'_> {
        self.adjacency.children(i)
    }

    /// Bytes per stored position of the position table: key, origin flag, level ranges and
    /// the key index, as held at the end of the search.
    pub fn bytes_per_node(&self) -> f64 {
        if self.ids.is_empty() {
            return 0.0;
        }
        (self.table_bytes() + self.index_bytes) as f64 / self.ids.len() as f64
    }

    /// Bytes held by the position table (not the key index), at capacity.
    fn table_bytes(&self) -> usize {
        self.ids.bytes() + self.level_start.capacity() * 4 + self.origin.bytes()
    }

    /// Bytes held by the position table and the adjacency (not the key index), at capacity.
    fn held_bytes(&self) -> usize {
        self.table_bytes() + self.adjacency.bytes()
    }

    /// Bytes per stored position of the adjacency (its lists and their offsets).
    pub fn edge_bytes_per_node(&self) -> f64 {
        if self.ids.is_empty() {
            return 0.0;
        }
        self.adjacency.bytes() as f64 / self.ids.len() as f64
    }
}

impl Graph {
    /// A graph with `roots` (whose positions have `layout`) and nothing stored yet.
    fn empty(roots: Vec<Position>, layout: Option<Layout>) -> Graph {
        Graph {
            roots,
            ids: Ids::default(),
            layout,
            level_start: vec![0],
            origin: Bits::default(),
            booked: Bits::default(),
            adjacency: Adjacency::default(),
            complete: false,
            stopped_by: None,
            index_bytes: 0,
        }
    }

    /// Reserves room for the rest of the node budget in the identities and the adjacency,
    /// for a search that stores `RESERVE_AFTER` positions or more and has no memory budget:
    /// they then fill in place, instead of being copied to memory touched afresh each time
    /// they double. Room that is never filled is never touched, and is given back by
    /// [`Graph::finish`]. (With a memory budget they grow as they fill, so that the bytes
    /// counted against it are the bytes held.)
    fn reserve_for_budget<C: Code>(&mut self, ids: &mut Vec<C>, budget: &Budget) {
        if budget.max_bytes.is_some() {
            return;
        }
        let wanted = usize::try_from(budget.max_nodes)
            .unwrap_or(usize::MAX)
            .saturating_add(OVERSHOOT)
            .saturating_sub(ids.len());
        let _ = ids.try_reserve_exact(wanted);
        self.adjacency.try_reserve(wanted, RESERVED_ADJACENCY_BYTES);
    }

    /// Ends the search: keeps the codes `ids`, gives back the tables' spare capacity and
    /// records the index's size.
    fn finish<C: Code>(&mut self, ids: Vec<C>, index: &KeyIndex) {
        self.ids = C::into_ids(ids);
        self.ids.shrink_to_fit();
        self.level_start.shrink_to_fit();
        self.origin.shrink_to_fit();
        self.booked.shrink_to_fit();
        self.adjacency.shrink_to_fit();
        self.index_bytes = index.bytes();
    }
}

/// What expanding a run of consecutive queued positions found, in flat vectors (one
/// allocation per run, not per position).
struct Part<C> {
    /// The index of the first position expanded.
    first: u32,
    /// Whether each position is a reset origin, and whether it is none because the
    /// bookkeeping refuted its resets.
    origins: Vec<(bool, bool)>,
    /// How many reversible retractions each position has.
    counts: Vec<u32>,
    /// Each retraction's target: its code and the step to it from its position, in order
    /// (the predecessor is built only when it is new).
    targets: Vec<(C, Step)>,
}

impl<C> Part<C> {
    /// Bytes held by its vectors.
    fn bytes(&self) -> usize {
        self.origins.capacity() * 2
            + self.counts.capacity() * 4
            + self.targets.capacity() * std::mem::size_of::<(C, Step)>()
    }
}

/// The fewest queued positions expanded as one run (but at the end of a chunk).
const MIN_RUN: usize = 8;

/// The most queued positions expanded as one run.
const MAX_RUN: usize = 512;

/// The runs of a chunk of `len` queued positions expanded by `threads` threads, as ranges,
/// from large to small: each takes a share of what is left (guided self-scheduling), so that
/// the threads take few runs, and the last ones, which decide when the chunk is done, are
/// short. (Runs take unlike times: the same number of positions can take ten times as long.)
fn runs(len: usize, threads: usize) -> Vec<std::ops::Range<usize>> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < len {
        let size = ((len - start) / (4 * threads))
            .clamp(MIN_RUN, MAX_RUN)
            .min(len - start);
        out.push(start..start + size);
        start += size;
    }
    out
}

/// Positions stored before [`Graph::reserve_for_budget`] reserves room for the rest of the
/// budget (a small search never reserves any).
const RESERVE_AFTER: usize = 1 << 12;

/// Positions the last chunk placed may store beyond the node budget, reserved for too (the
/// budget is checked between chunks): beyond it, the tables grow as they fill.
const OVERSHOOT: usize = 1 << 16;

/// Adjacency bytes reserved per position (a sparse endgame takes about 20).
const RESERVED_ADJACENCY_BYTES: usize = 32;

/// Queued positions expanded together, while the chunk before them is placed.
const BATCH: usize = 4096;

/// A position stored but not yet expanded: its index, its code and the position.
type Queued<C> = (u32, C, <C as Code>::Kept);

/// A chunk of queued positions with what expanding it found, waiting to be placed.
type Expanded<C> = (Vec<Queued<C>>, Vec<Part<C>>);

/// The positions waiting to be expanded, in order, in blocks of `BATCH` (the last one may
/// hold fewer): a chunk is taken off whole, without copying.
struct Queue<C: Code> {
    blocks: std::collections::VecDeque<Vec<Queued<C>>>,
}

impl<C: Code> Queue<C> {
    /// An empty queue.
    fn new() -> Queue<C> {
        Queue {
            blocks: std::collections::VecDeque::new(),
        }
    }

    /// Queues a position after the others.
    fn push(&mut self, queued: Queued<C>) {
        match self.blocks.back_mut() {
            Some(block) if block.len() < BATCH => block.push(queued),
            _ => {
                let mut block = Vec::with_capacity(BATCH);
                block.push(queued);
                self.blocks.push_back(block);
            }
        }
    }

    /// Whether no position waits.
    fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    /// The next `BATCH` positions, or all when fewer wait.
    fn take_chunk(&mut self) -> Vec<Queued<C>> {
        self.blocks.pop_front().unwrap_or_default()
    }

    /// Bytes held.
    fn bytes(&self) -> usize {
        self.blocks
            .iter()
            .map(|block| block.capacity() * std::mem::size_of::<Queued<C>>())
            .sum()
    }
}

/// Expands `run` (queued positions): their reversible retractions, and whether each is an
/// origin. Nothing stored is read, so this runs while the chunk before is being placed.
fn expand_part<C: Code>(
    run: &[Queued<C>],
    layout: Option<&Layout>,
    convention: Convention,
    budget: &Budget,
) -> Part<C> {
    let mut part = Part {
        first: run.first().map_or(0, |q| q.0),
        origins: Vec::with_capacity(run.len()),
        counts: Vec::with_capacity(run.len()),
        targets: Vec::with_capacity(run.len() * 16),
    };
    // The positions of one graph have the same material and pawns: the material verdicts of
    // their reset retractions are found once.
    let mut material = MaterialCache::for_one_graph();
    for &(_, code, ref kept) in run {
        let pos = &*C::position(layout, code, kept);
        let before = part.targets.len();
        visit_retractions_checked(pos, Filter::Reversible(convention), |r| {
            let target = C::of_predecessor(layout, pos, code, r);
            let step = r.step().expect("reversible retractions are steps");
            debug_assert_eq!(step.predecessor(pos), r.predecessor);
            part.targets.push((target, step));
            true
        });
        part.counts.push((part.targets.len() - before) as u32);
        part.origins
            .push(origin_check(pos, convention, budget, &mut material));
    }
    part
}

/// The fewest pawns with which the search's origin checks apply the bookkeeping themselves
/// (with fewer, the bookkeeping seldom refutes a reset, and the pawns that un-captures put back
/// anywhere make many structures to judge: it is left to the refinement of the nearest origins).
const BOOKKEEPING_PAWNS: usize = 10;

/// Whether `pos` counts as a reset origin: the initial array, or a reset retraction leads to a
/// predecessor that passes the necessary conditions with a chain `budget.chain_depth` deep
/// (and, in a position with [`BOOKKEEPING_PAWNS`] pawns or more, that the bookkeeping of its
/// pawns and material does not refute). A candidate whose check runs
/// out of budget is kept (it is not refuted), so that the proven bounds rest only on
/// refutations.
pub fn is_origin(pos: &Position, convention: Convention, budget: &Budget) -> bool {
    origin_check(pos, convention, budget, &mut MaterialCache::new()).0
}

/// [`is_origin`], and whether a position that is none was refuted by the bookkeeping, with the
/// material verdicts of the reset retractions kept in `cache` for the next positions with the
/// same material and pawns.
fn origin_check(
    pos: &Position,
    convention: Convention,
    budget: &Budget,
    cache: &mut MaterialCache,
) -> (bool, bool) {
    // Every position of one search has the pawns of its roots: the choice is the search's.
    let bookkeeping = pos.board.pawns().count() >= BOOKKEEPING_PAWNS;
    let (status, booked) = search_origin_status(
        pos,
        convention,
        budget.chain_depth,
        budget.chain_budget,
        cache,
        bookkeeping,
    );
    (status != ChainStatus::Dead, booked)
}

/// The adjacency lists of a placed chunk, waiting to be added to the graph's adjacency
/// ([`Adjacency::extend`]): each position's count of targets, and the targets in turn.
type Lists = (Vec<u32>, Vec<u32>);

/// Stores an expanded chunk, in order: each position's origin flag, and each target not
/// stored yet as a new position (numbered in order, at the distance one more than its first
/// parent's, and queued). Returns the chunk's adjacency lists, which the caller adds to the
/// adjacency in order (while the next chunk is expanded).
fn place<C: Code>(
    chunk: &[Queued<C>],
    parts: Vec<Part<C>>,
    graph: &mut Graph,
    ids: &mut Vec<C>,
    index: &mut KeyIndex,
    queue: &mut Queue<C>,
) -> Lists {
    /// Targets looked ahead: their home buckets are fetched from memory while the ones before are
    /// placed (the table is large and probed at random).
    const AHEAD: usize = 8;
    let mut flat = Vec::with_capacity(parts.iter().map(|p| p.targets.len()).sum());
    let mut counts = Vec::with_capacity(chunk.len());
    // The parts expanded the chunk's positions, in order.
    let mut expanded = chunk.iter();
    // The level of the parent being placed.
    let mut parent_level = chunk
        .first()
        .map_or(0, |&(first, _, _)| graph.dist(first as usize) as usize);
    for part in parts {
        debug_assert_eq!(
            part.first as usize,
            graph.origin.len(),
            "parts come in order"
        );
        let targets = &part.targets;
        let mut t = 0;
        for ((origin, booked), count) in part.origins.into_iter().zip(part.counts) {
            let (parent, _, parent_kept) = expanded.next().expect("a part per queued run");
            let parent = *parent as usize;
            debug_assert_eq!(parent, graph.origin.len(), "positions come in order");
            // Parents come in index order: their level only grows.
            while graph
                .level_start
                .get(parent_level + 1)
                .is_some_and(|&start| start as usize <= parent)
            {
                parent_level += 1;
            }
            debug_assert_eq!(parent_level as u32, graph.dist(parent));
            let child_level = parent_level as u32 + 1;
            graph.origin.push(origin);
            graph.booked.push(booked);
            counts.push(count);
            for _ in 0..count {
                if let Some((ahead, _)) = targets.get(t + AHEAD) {
                    index.prefetch(ahead.key());
                }
                let (code, step) = targets[t];
                t += 1;
                let new = ids.len() as u32;
                let j = match index.get_or_insert(code, new, ids) {
                    Some(j) => j,
                    None => {
                        if graph.level_start.len() as u32 == child_level {
                            graph.level_start.push(new);
                        }
                        ids.push(code);
                        queue.push((new, code, C::keep_step(step, parent_kept)));
                        new
                    }
                };
                flat.push(j);
            }
        }
    }
    (counts, flat)
}

/// Bytes held by adjacency lists waiting to be added.
fn lists_bytes(lists: &Option<Lists>) -> usize {
    lists.as_ref().map_or(0, |(counts, flat)| {
        (counts.capacity() + flat.capacity()) * 4
    })
}

/// Explores the reversible retractions from `roots` within `budget`. `progress` is called after
/// every batch of expansions.
///
/// Positions are expanded in the order they were stored (breadth-first), in chunks of up to
/// 4,096 (`BATCH`): each chunk is expanded in parallel while the chunk before it is placed (looked
/// up and stored, in order), so the stored graph is the same for any number of threads.
/// Positions are told apart by exact codes when their pieces fit (see [`super::identity`]).
pub fn explore(
    roots: Vec<Position>,
    convention: Convention,
    budget: &Budget,
    progress: &(dyn Fn(Progress) + Sync),
) -> Graph {
    let layout = Layout::of(&roots);
    match Layout::width(layout.as_ref()) {
        Width::Exact32 => explore_as::<u32>(roots, layout, convention, budget, progress),
        Width::Exact64 => explore_as::<u64>(roots, layout, convention, budget, progress),
        Width::Exact96 => explore_as::<U96>(roots, layout, convention, budget, progress),
        Width::Exact128 => explore_as::<u128>(roots, layout, convention, budget, progress),
        Width::Hashed => explore_as::<PositionId>(roots, None, convention, budget, progress),
    }
}

/// [`explore`], telling positions apart by codes of type `C` (exact ones need `layout`).
fn explore_as<C: Code>(
    roots: Vec<Position>,
    layout: Option<Layout>,
    convention: Convention,
    budget: &Budget,
    progress: &(dyn Fn(Progress) + Sync),
) -> Graph {
    let mut index = KeyIndex::new();
    let mut graph = Graph::empty(roots.clone(), layout.clone());
    let layout = layout.as_ref();
    let mut ids: Vec<C> = Vec::new();
    let mut queue = Queue::new();
    for root in roots {
        let code = C::of(layout, &root);
        let i = ids.len() as u32;
        if index.get_or_insert(code, i, &ids).is_some() {
            continue;
        }
        ids.push(code);
        queue.push((i, code, C::keep(root)));
    }
    // The last chunk expanded, with what expanding it found, waiting to be placed.
    let mut pending: Option<Expanded<C>> = None;
    // The adjacency lists of the last chunk placed, waiting to be added to the adjacency.
    let mut lists: Option<Lists> = None;
    // Whether room was reserved for the rest of the budget (once).
    let mut reserved = false;
    loop {
        if queue.is_empty() && pending.is_none() {
            break;
        }
        let stop = if ids.len() as u64 >= budget.max_nodes {
            Some("node budget")
        } else if budget.deadline.is_some_and(|d| Instant::now() >= d) {
            Some("time budget")
        } else {
            // Positions waiting to be expanded, the targets waiting to be placed, and the lists
            // waiting to be added.
            let waiting = queue.bytes()
                + pending.as_ref().map_or(0, |(chunk, parts)| {
                    chunk.capacity() * std::mem::size_of::<Queued<C>>()
                        + parts.iter().map(Part::bytes).sum::<usize>()
                })
                + lists_bytes(&lists);
            budget
                .max_bytes
                .is_some_and(|max| {
                    let ids_bytes = ids.capacity() * std::mem::size_of::<C>();
                    (graph.held_bytes() + ids_bytes + index.bytes() + waiting) as u64 >= max
                })
                .then_some("memory budget")
        };
        if let Some(reason) = stop {
            add_lists(&mut graph.adjacency, lists.take());
            graph.stopped_by = Some(reason);
            graph.finish(ids, &index);
            return graph;
        }
        if !reserved && ids.len() >= RESERVE_AFTER {
            graph.reserve_for_budget(&mut ids, budget);
            reserved = true;
        }
        let chunk = queue.take_chunk();
        // The chunk is expanded while the one before it is placed and the lists of the one
        // before that are added to the adjacency (which placing does not read). The parts come
        // back in the order of the runs, whichever thread expanded them.
        let mut adjacency = std::mem::take(&mut graph.adjacency);
        let waiting_lists = lists.take();
        let threads = rayon::current_num_threads();
        let runs = runs(chunk.len(), threads);
        let expanded: Vec<OnceLock<Part<C>>> = runs.iter().map(|_| OnceLock::new()).collect();
        let next_run = AtomicUsize::new(0);
        let mut placed = None;
        rayon::scope(|s| {
            // Placing and adding the lists are one task each; every thread takes runs in
            // turn, when it has nothing else to do, until the chunk is expanded.
            s.spawn(|_| {
                placed = pending.take().map(|(chunk, parts)| {
                    place(&chunk, parts, &mut graph, &mut ids, &mut index, &mut queue)
                });
            });
            s.spawn(|_| add_lists(&mut adjacency, waiting_lists));
            for _ in 0..threads {
                s.spawn(|_| {
                    loop {
                        let r = next_run.fetch_add(1, Ordering::Relaxed);
                        let Some(run) = runs.get(r) else { break };
                        let part = expand_part(&chunk[run.clone()], layout, convention, budget);
                        assert!(expanded[r].set(part).is_ok(), "each run is taken once");
                    }
                });
            }
        });
        let parts: Vec<Part<C>> = expanded
            .into_iter()
            .map(|part| part.into_inner().expect("every run is expanded"))
            .collect();
        graph.adjacency = adjacency;
        lists = placed;
        pending = (!chunk.is_empty()).then_some((chunk, parts));
        progress(Progress {
            nodes: ids.len() as u64,
            level: graph.dist(graph.expanded().saturating_sub(1)),
        });
    }
    add_lists(&mut graph.adjacency, lists.take());
    graph.complete = true;
    graph.finish(ids, &index);
    graph
}

/// Adds placed lists, if any, to `adjacency`.
fn add_lists(adjacency: &mut Adjacency, lists: Option<Lists>) {
    if let Some((counts, mut flat)) = lists {
        adjacency.extend(&counts, &mut flat);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Inserts `n` pseudo-random keys, some of them twice and some differing only in the
    /// check, into an index whose indices start with `index_bits` bits, and finds them all.
    fn round_trip(index_bits: u32, n: u32) {
        let mut index = KeyIndex::new();
        index.set_index_bits(index_bits);
        let mut ids: Vec<PositionId> = Vec::new();
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        let mut stored = Vec::new();
        for i in 0..n {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            // Every fifth key repeats the one before (a fresh one) with another check: a
            // different position.
            let (key, check) = match stored.last() {
                Some(&(key, check, _)) if i % 5 == 0 => (key, check ^ 1),
                _ => (state, (state >> 17) as u32),
            };
            let new = ids.len() as u32;
            let id = PositionId::new(key, check);
            assert_eq!(index.get_or_insert(id, new, &ids), None);
            ids.push(id);
            stored.push((key, check, new));
            // Asking again finds it and inserts nothing.
            assert_eq!(index.get_or_insert(id, new + 1, &ids), Some(new));
        }
        for &(key, check, at) in &stored {
            assert_eq!(index.get(PositionId::new(key, check), &ids), Some(at));
        }
        assert_eq!(index.get(PositionId::new(0x1234_5678, 7), &ids), None);
        assert_eq!(index.len, n as usize);
        assert!(index.index_bits >= 32 - (n.leading_zeros()));
    }

    /// Everything a search stores, for comparing two searches.
    fn stored(graph: &Graph) -> impl PartialEq + std::fmt::Debug {
        (graph.ids.clone(), shape(graph))
    }

    /// Everything a search stores but the positions' codes.
    fn shape(graph: &Graph) -> impl PartialEq + std::fmt::Debug {
        let lists: Vec<Vec<u32>> = (0..graph.expanded())
            .map(|i| graph.children(i).collect())
            .collect();
        (
            graph.level_start.clone(),
            graph.origin.clone(),
            lists,
            graph.complete,
            graph.stopped_by,
        )
    }

    #[test]
    fn runs_cover_a_chunk_in_order_from_large_to_small() {
        for threads in 1..=4 {
            for len in [0, 1, 7, 8, 9, 100, 1339, 4096] {
                let runs = runs(len, threads);
                let mut start = 0;
                for run in &runs {
                    assert_eq!(run.start, start, "{len} {threads}");
                    assert!(run.len() <= MAX_RUN && (run.len() >= MIN_RUN || run.end == len));
                    start = run.end;
                }
                assert_eq!(start, len);
                assert!(runs.windows(2).all(|w| w[0].len() >= w[1].len()));
                // The last run, which decides when the chunk is done, is short.
                assert!(runs.last().is_none_or(|run| run.len() <= MIN_RUN));
            }
        }
    }

    #[test]
    fn the_graph_is_the_same_for_any_number_of_threads() {
        // A search that completes, and one stopped by the node budget in the middle of a
        // level (expansion and bookkeeping of consecutive chunks overlap).
        for (fen, max_nodes) in [
            ("8/8/8/4k3/8/8/2N5/4K2R b K -", 2_000_000),
            ("8/5k2/8/8/8/2K5/8/7R b - -", 30_000),
        ] {
            let pos = crate::position::PositionInput::parse(fen)
                .expect("valid FEN")
                .candidates()
                .remove(0);
            let budget = Budget {
                max_nodes,
                ..Budget::default()
            };
            let graphs: Vec<Graph> = [1, 2, 3]
                .into_iter()
                .map(|threads| {
                    rayon::ThreadPoolBuilder::new()
                        .num_threads(threads)
                        .build()
                        .expect("thread pool")
                        .install(|| explore(vec![pos.clone()], Convention::Fide, &budget, &|_| {}))
                })
                .collect();
            assert!(graphs[0].len() > 5_000, "{fen}: {}", graphs[0].len());
            assert_eq!(graphs[0].complete, max_nodes == 2_000_000, "{fen}");
            for g in &graphs[1..] {
                assert_eq!(stored(g), stored(&graphs[0]), "{fen}");
            }
        }
    }

    #[test]
    fn exact_codes_store_the_graph_that_hashed_identities_store() {
        // Each width of exact code, with castling rights, unknown rights (several roots) and
        // e.p. squares; searches that complete and searches stopped by the budget.
        for (fen, max_nodes, width) in [
            ("8/5k2/8/8/8/2K5/8/7R b - -", 30_000, Width::Exact32),
            ("8/8/8/4k3/8/8/2N5/4K2R b K -", 2_000_000, Width::Exact64),
            ("r3k2r/8/8/8/8/8/8/R3K2R b ? -", 30_000, Width::Exact64),
            ("4k3/8/8/3pP3/8/8/8/R3K2R w ? ?", 30_000, Width::Exact64),
            (
                "rnbqk2r/pppp1ppp/8/8/8/8/PPPP1PPP/RNBQK2R b KQkq -",
                20_000,
                Width::Exact96,
            ),
            (
                "rnbqkbnr/pppp1ppp/8/8/8/8/PPPP1PPP/RNBQKBNR b KQkq -",
                20_000,
                Width::Exact128,
            ),
        ] {
            let roots = crate::position::PositionInput::parse(fen)
                .expect("valid FEN")
                .candidates();
            let layout = Layout::of(&roots);
            assert_eq!(Layout::width(layout.as_ref()), width, "{fen}");
            let budget = Budget {
                max_nodes,
                ..Budget::default()
            };
            let exact = explore(roots.clone(), Convention::Retro, &budget, &|_| {});
            let hashed =
                explore_as::<PositionId>(roots.clone(), None, Convention::Retro, &budget, &|_| {});
            assert!(exact.len() > 1_000, "{fen}: {}", exact.len());
            assert!(matches!(hashed.ids, Ids::Hashed(_)), "{fen}");
            assert!(!matches!(exact.ids, Ids::Hashed(_)), "{fen}");
            assert_eq!(shape(&exact), shape(&hashed), "{fen}");
            // The first root is position 0; the root with one unit fewer is no position.
            let root = &roots[0];
            let mut fewer = root.clone();
            let unit = (fewer.board.occupied() & !fewer.board.kings()).first();
            fewer
                .board
                .discard_piece_at(unit.expect("a unit besides the kings"));
            for graph in [&exact, &hashed] {
                assert!(graph.holds(0, root), "{fen}");
                assert!(!graph.holds(0, &fewer) && !graph.holds(1, root), "{fen}");
            }
            // Exact codes take fewer bytes than hashed identities up to 64 bits, as many up to
            // 96, and more beyond.
            let (e, h) = (exact.bytes_per_node(), hashed.bytes_per_node());
            match width {
                Width::Exact32 | Width::Exact64 => assert!(e < h, "{fen}"),
                Width::Exact96 => assert_eq!(e, h, "{fen}"),
                _ => assert!(e > h, "{fen}"),
            }
        }
    }

    #[test]
    fn room_reserved_for_the_budget_changes_nothing_stored_and_is_given_back() {
        // Without a memory budget, room for the rest of the node budget is reserved once
        // `RESERVE_AFTER` positions are stored; with one, the tables grow as they fill.
        let pos = crate::position::PositionInput::parse("8/5k2/8/8/8/2K5/8/7R b - -")
            .expect("valid FEN")
            .candidates()
            .remove(0);
        let search = |max_bytes| {
            explore(
                vec![pos.clone()],
                Convention::Fide,
                &Budget {
                    max_nodes: 40_000,
                    max_bytes,
                    ..Budget::default()
                },
                &|_| {},
            )
        };
        let reserving = search(None);
        let growing = search(Some(1 << 40));
        assert!(reserving.len() > RESERVE_AFTER, "{}", reserving.len());
        assert_eq!(stored(&reserving), stored(&growing));
        assert_eq!(
            reserving.ids.bytes(),
            reserving.ids.len() * 4,
            "exact 4-byte codes"
        );
        assert_eq!(reserving.bytes_per_node(), growing.bytes_per_node());
        assert_eq!(
            reserving.edge_bytes_per_node(),
            growing.edge_bytes_per_node()
        );
    }

    #[test]
    fn index_finds_every_position_as_the_fingerprint_shrinks() {
        // Starting with 3 index bits, the split moves many times while the table grows.
        round_trip(3, 5000);
    }

    #[test]
    fn bucket_masks_are_those_found_one_slot_at_a_time() {
        // Buckets with empty slots, slots with the fingerprint, and others, for several splits
        // between index and fingerprint.
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for round in 0..2000u32 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let index_mask = KeyIndex::mask_of(3 + round % 30);
            let fingerprint = (state >> 32) as u32 & !index_mask;
            let mut bucket = Bucket::EMPTY;
            for (k, slot) in bucket.0.iter_mut().enumerate() {
                let bits = (state >> (2 * k)) & 3;
                let index = (state as u32).rotate_left(k as u32) & index_mask;
                *slot = match bits {
                    0 => KeyIndex::EMPTY,
                    1 => fingerprint | index,
                    _ => (fingerprint ^ !index_mask) | index,
                };
            }
            assert_eq!(
                bucket.masks(fingerprint, index_mask),
                bucket.masks_by_slot(fingerprint, index_mask),
                "{:x?}",
                bucket.0
            );
        }
    }

    #[test]
    fn keys_of_one_full_bucket_go_on_to_the_next_ones_wrapping_around() {
        // Keys whose low half is all ones have the last bucket as their home: 40 of them fill
        // it, then the first two buckets.
        let mut index = KeyIndex::new();
        let mut ids = Vec::new();
        let key = |i: u64| (i.wrapping_mul(0x9E37_79B9) << 32) | 0xFFFF_FFFF;
        let last = index.buckets.len() - 1;
        for i in 0..40u64 {
            assert_eq!(KeyIndex::home(key(i), index.buckets.len()), last);
            let new = ids.len() as u32;
            assert_eq!(
                index.get_or_insert(PositionId::new(key(i), 7), new, &ids),
                None
            );
            ids.push(PositionId::new(key(i), 7));
        }
        let full = |b: usize| {
            index.buckets[b]
                .0
                .iter()
                .filter(|&&slot| slot != KeyIndex::EMPTY)
                .count()
        };
        assert_eq!((full(last), full(0), full(1), full(2)), (16, 16, 8, 0));
        for i in 0..40u64 {
            assert_eq!(index.get(PositionId::new(key(i), 7), &ids), Some(i as u32));
            // The same key with another check is another position.
            assert_eq!(index.get(PositionId::new(key(i), 8), &ids), None);
        }
        assert_eq!(index.get(PositionId::new(key(40), 7), &ids), None);
    }

    #[test]
    fn index_works_with_indices_taking_every_bit() {
        round_trip(31, 3000);
        round_trip(32, 3000);
    }
}
