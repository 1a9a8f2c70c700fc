//! Stochastic Fair Blue (SFB): Blue's probability kept per bin of an L x N array of counting
//! bins; a packet is hashed to one bin per level, and its flow is marked with the smallest
//! probability among its bins; a flow whose bins are all at probability 1 is unresponsive and
//! goes to a rate-limited penalty box.
//!
//! Source: Feng, Kandlur, Saha, Shin, "Stochastic Fair Blue: A Queue Management Algorithm for
//! Enforcing Fairness", IEEE INFOCOM 2001 (section 4: the bins, the min rule, the penalty box,
//! moving hash functions with double buffering); Linux `net/sched/sch_sfb.c` (Chroboczek and
//! Dumazet, 2011) and tc-sfb(8), read for behaviour (not copied), whose defaults are used:
//! 8 levels x 16 bins, bin_size (target) 20 packets, max 25 packets, increment 0.001 and
//! decrement 1/6000 (of SFB_MAX_PROB = 0xFFFF, i.e. 66 and 11 in Q0.16), penalty rate 10
//! packets/s with burst 20, rehash every 600 s with 60 s of warm-up, limit = txqueuelen (1000).
//!
//! Per arrival (Linux `sfb_enqueue`):
//! * over `limit_pkts`: drop (`overflow`);
//! * rehash: `rehash_interval` after the last swap the standby hash set becomes the active one
//!   and the old one gets a new perturbation (its bins are not cleared); from `warmup_time`
//!   before the swap the standby set is "double buffered";
//! * the packet's 32-bit hash (of its flow and the active set's perturbation) gives one 4-bit
//!   bin index per level; in each of its bins: `p_mark -= decrement` if the bin is empty,
//!   `p_mark += increment` if it holds `bin_size` packets or more (saturating in [0, 0xFFFF]);
//!   p_min = the smallest p_mark of its bins, minqlen the smallest bin length;
//! * `minqlen >= max`: drop (`bin_full`);
//! * `p_min = 0xFFFF` (the flow is inelastic): while double buffering, its standby bins are
//!   hashed and updated too; it is admitted only with a token of the penalty bucket, else
//!   dropped (`penalty`); no marking;
//! * otherwise with r uniform in [0, 0xFFFF]: if r < p_min the packet is CE-marked when
//!   ECN-capable, else dropped (`early`); above half of the maximum it is dropped anyway when
//!   r < 2 (p_min - 0xFFFF/2) ("either this flow is unresponsive, or we're badly congested");
//! * admitted packets count +1 in each of their bins (both sets when double buffered), -1 when
//!   dequeued.
//!
//! Linux's penalty bucket is shared by all inelastic flows and, as Linux does, is refilled only
//! when empty, by `age * penalty_rate` whole tokens with `age` the time since the last refill
//! attempt (at most 10 s), capped at `penalty_burst`; an attempt resets the clock even when it
//! yields no token, so inelastic traffic arriving more often than every 1 / penalty_rate gets
//! nothing once the burst is spent.
//!
//! Deliberate deviations: the hash is a 64-bit mix of the flow id and the set's perturbation
//! (Linux: siphash of the flow's 5-tuple), the perturbations are drawn from the queue's random
//! stream; times are in ns (Linux: jiffies). No external classifier. ECN marking is always on,
//! as in Linux (an ECN-capable packet is marked rather than early-dropped).

use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Dur, Time};
use std::collections::VecDeque;

/// Levels (hash functions), Linux SFB_LEVELS.
pub const LEVELS: usize = 8;
/// Bins per level, Linux SFB_NUMBUCKETS.
pub const BINS: usize = 16;
/// Bits of the hash per level.
const BIN_SHIFT: u32 = 4;
/// Probability 1 in Q0.16 (Linux SFB_MAX_PROB).
pub const MAX_PROB: u32 = 0xFFFF;

crate::params! {
    /// SFB parameters; defaults are Linux sch_sfb.c's (`sfb_default_ops`).
    pub struct SfbConfig {
        /// Hard limit on queued packets (Linux: 0 means the device's txqueuelen).
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux sfb limit 0 = txqueuelen 1000";
        /// Packets in a bin at or above which its p_mark is increased (the paper's bin size).
        bin_size: u32 = 20, Packets, range(>= 1, <= 65535), "Linux sfb_default_ops bin_size 20 (tc-sfb target)";
        /// Arrivals whose bins all hold this many packets are dropped.
        max_pkts: u32 = 25, Packets, range(>= 1, <= 65535), "Linux sfb_default_ops max 25";
        /// Increase of a bin's p_mark per arrival finding it at bin_size or more (the paper's d1).
        increment: f64 = 0.001, Ratio, range(> 0.0, <= 1.0), "Linux (SFB_MAX_PROB + 500) / 1000 = 66 / 65535";
        /// Decrease of a bin's p_mark per arrival finding it empty (the paper's d2).
        decrement: f64 = 1.0 / 6000.0, Ratio, range(>= 0.0, <= 1.0), "Linux (SFB_MAX_PROB + 3000) / 6000 = 11 / 65535";
        /// Packets per second admitted, for all inelastic flows together.
        penalty_rate: u32 = 10, Count, range(), "Linux sfb_default_ops penalty_rate 10 pkt/s";
        /// Tokens the penalty bucket holds at most.
        penalty_burst: u32 = 20, Count, range(), "Linux sfb_default_ops penalty_burst 20";
        /// Time between hash changes (0: never).
        rehash_interval: Dur = Dur::from_secs(600), Time, range(>= Dur::ZERO), "Linux sfb_default_ops rehash_interval 600 s";
        /// Time before a hash change during which the standby set is also fed (double buffering).
        warmup_time: Dur = Dur::from_secs(60), Time, range(>= Dur::ZERO), "Linux sfb_default_ops warmup_time 60 s";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_BIN_FULL: u8 = 1;
const REASON_PENALTY: u8 = 2;
const REASON_EARLY: u8 = 3;

/// Distinct inelastic flows remembered for the `penalty_box_flows` state.
const RECENT_INELASTIC: usize = 64;

/// A bin: a virtual queue and its marking probability (Linux `struct sfb_bucket`).
#[derive(Clone, Copy, Debug, Default)]
pub struct Bin {
    /// Packets of the flows hashed here, queued.
    pub qlen: u32,
    /// Marking probability in Q0.16 (MAX_PROB = 1).
    pub p_mark: u32,
}

/// One hash set: its perturbation and its bins.
#[derive(Clone, Debug)]
struct BinSet {
    perturbation: u64,
    bins: [[Bin; BINS]; LEVELS],
}

/// A queued packet and its hashes in the two sets (0: not counted in that set).
#[derive(Clone, Copy, Debug)]
struct Entry {
    id: PacketId,
    hashes: [u32; 2],
}

#[derive(Debug)]
pub struct Sfb {
    limit_pkts: u32,
    bin_size: u32,
    max_pkts: u32,
    increment: u32,
    decrement: u32,
    penalty_rate: u64,
    penalty_burst: u64,
    rehash_interval: Dur,
    warmup_time: Dur,
    /// The two hash sets; `slot` is the active one.
    sets: [BinSet; 2],
    slot: usize,
    double_buffering: bool,
    /// Perturbations drawn (on the first arrival).
    seeded: bool,
    /// Last swap of the sets.
    rehash_time: Time,
    /// Penalty bucket: whole tokens and the time of the last refill attempt.
    tokens_avail: u64,
    token_time: Time,
    fifo: VecDeque<Entry>,
    bytes: u64,
    /// Arrivals admitted through the penalty box, and hash swaps.
    penalized: u64,
    rehashes: u64,
    /// Recently seen inelastic flows and when (for the state).
    recent: [(u32, Time); RECENT_INELASTIC],
    n_recent: usize,
    last_arrival: Time,
}

impl Algorithm for Sfb {
    type Config = SfbConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "sfb",
        aliases: &["stochastic_fair_blue"],
        summary: "Stochastic Fair Blue: Blue probabilities in 8 x 16 hashed bins, a flow marked with the least of its bins', flows at probability 1 rate-limited",
        sources: &["Feng, Kandlur, Saha, Shin, IEEE INFOCOM 2001", "Linux net/sched/sch_sfb.c; tc-sfb(8)"],
    };
    fn new(cfg: &SfbConfig, _env: &QdiscEnv) -> Sfb {
        let set = BinSet { perturbation: 0, bins: [[Bin::default(); BINS]; LEVELS] };
        Sfb {
            limit_pkts: cfg.limit_pkts,
            bin_size: cfg.bin_size,
            max_pkts: cfg.max_pkts,
            increment: to_q16(cfg.increment),
            decrement: to_q16(cfg.decrement),
            penalty_rate: cfg.penalty_rate as u64,
            penalty_burst: cfg.penalty_burst as u64,
            rehash_interval: cfg.rehash_interval,
            warmup_time: cfg.warmup_time,
            sets: [set.clone(), set],
            slot: 0,
            double_buffering: false,
            seeded: false,
            rehash_time: Time::ZERO,
            tokens_avail: cfg.penalty_burst as u64,
            token_time: Time::ZERO,
            fifo: VecDeque::with_capacity(cfg.limit_pkts.min(1 << 16) as usize),
            bytes: 0,
            penalized: 0,
            rehashes: 0,
            recent: [(0, Time::ZERO); RECENT_INELASTIC],
            n_recent: 0,
            last_arrival: Time::ZERO,
        }
    }
}

/// A probability as Q0.16, rounded as Linux rounds its defaults.
fn to_q16(p: f64) -> u32 {
    (p * MAX_PROB as f64).round() as u32
}

/// splitmix64's finalizer: a well-mixed 64-bit hash.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Bin indices of a hash, level by level (4 bits each, lowest first).
#[inline]
fn bin_of(hash: u32, level: usize) -> usize {
    ((hash >> (BIN_SHIFT * level as u32)) & (BINS as u32 - 1)) as usize
}

impl Sfb {
    /// The flow's hash in set `slot` (never 0: 0 means "not counted").
    fn hash(&self, flow: u32, slot: usize) -> u32 {
        let h = (mix(flow as u64 ^ self.sets[slot].perturbation) >> 32) as u32;
        h.max(1)
    }

    /// Update the bins of `hash` in set `slot` for an arrival (decrement if empty, increment
    /// at bin_size or more); returns (p_min, minqlen).
    fn touch_bins(&mut self, hash: u32, slot: usize) -> (u32, u32) {
        let (inc, dec, bin_size) = (self.increment, self.decrement, self.bin_size);
        let (mut p_min, mut minqlen) = (u32::MAX, u32::MAX);
        for (level, row) in self.sets[slot].bins.iter_mut().enumerate() {
            let b = &mut row[bin_of(hash, level)];
            if b.qlen == 0 {
                b.p_mark = b.p_mark.saturating_sub(dec);
            } else if b.qlen >= bin_size {
                b.p_mark = (b.p_mark + inc).min(MAX_PROB);
            }
            minqlen = minqlen.min(b.qlen);
            p_min = p_min.min(b.p_mark);
        }
        (p_min, minqlen)
    }

    /// Add `delta` (+1 or -1) to the bins of a queued packet in every set it is counted in.
    fn count(&mut self, hashes: [u32; 2], add: bool) {
        for (slot, &h) in hashes.iter().enumerate() {
            if h == 0 {
                continue;
            }
            for (level, row) in self.sets[slot].bins.iter_mut().enumerate() {
                let b = &mut row[bin_of(h, level)];
                if add {
                    b.qlen = (b.qlen + 1).min(0xFFFF);
                } else {
                    b.qlen = b.qlen.saturating_sub(1);
                }
            }
        }
    }

    /// Linux `sfb_rate_limit`: true if the penalty bucket has no token for this arrival.
    fn rate_limited(&mut self, now: Time) -> bool {
        if self.penalty_rate == 0 || self.penalty_burst == 0 {
            return true;
        }
        if self.tokens_avail < 1 {
            let age_ns = now.since(self.token_time).ns().min(10 * crate::units::NS_PER_S);
            self.tokens_avail = ((age_ns as u128 * self.penalty_rate as u128) / crate::units::NS_PER_S as u128) as u64;
            self.tokens_avail = self.tokens_avail.min(self.penalty_burst);
            self.token_time = now;
            if self.tokens_avail < 1 {
                return true;
            }
        }
        self.tokens_avail -= 1;
        false
    }

    fn note_inelastic(&mut self, flow: u32, now: Time) {
        if let Some(e) = self.recent[..self.n_recent].iter_mut().find(|e| e.0 == flow) {
            e.1 = now;
        } else if self.n_recent < RECENT_INELASTIC {
            self.recent[self.n_recent] = (flow, now);
            self.n_recent += 1;
        } else if let Some(e) = self.recent.iter_mut().min_by_key(|e| e.1) {
            *e = (flow, now);
        }
    }

    /// The active set's bins.
    pub fn bins(&self) -> &[[Bin; BINS]; LEVELS] {
        &self.sets[self.slot].bins
    }

    /// The smallest p_mark (Q0.16) among `flow`'s bins in the active set.
    pub fn p_min_of(&self, flow: u32) -> u32 {
        let h = self.hash(flow, self.slot);
        (0..LEVELS).map(|l| self.sets[self.slot].bins[l][bin_of(h, l)].p_mark).min().unwrap_or(0)
    }
}

impl QueueDisc for Sfb {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "bin_full", doc: "every bin of the packet's flow holds max_pkts packets (Linux bucketdrop)" },
        Reason { name: "penalty", doc: "an inelastic flow (all its bins at probability 1) without a token of the penalty bucket (Linux penaltydrop)" },
        Reason { name: "early", doc: "SFB's drop (or CE mark) with the least probability of the flow's bins (Linux earlydrop / marked)" },
    ];
    const STATS: &'static [Field] = &[
        Field { name: "penalized", unit: FieldUnit::Pkts, doc: "arrivals of inelastic flows admitted with a penalty token" },
        Field { name: "rehashes", unit: FieldUnit::Count, doc: "swaps of the hash sets" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "max_p_mark", unit: FieldUnit::Ratio, doc: "largest p_mark over the active set's bins" },
        Field { name: "mean_p_mark", unit: FieldUnit::Ratio, doc: "mean p_mark over the active set's bins" },
        Field { name: "max_bin_qlen", unit: FieldUnit::Pkts, doc: "largest bin length in the active set" },
        Field { name: "penalty_box_flows", unit: FieldUnit::Count, doc: "flows with an arrival treated as inelastic in the last second (at most 64 tracked)" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let now = ctx.now;
        self.last_arrival = now;
        if self.fifo.len() as u32 >= self.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        if !self.seeded {
            self.sets[0].perturbation = ctx.rng().next_u64();
            self.sets[1].perturbation = ctx.rng().next_u64();
            self.seeded = true;
        }
        if self.rehash_interval > Dur::ZERO {
            let limit = self.rehash_time + self.rehash_interval;
            if now > limit {
                // Linux sfb_swap_slot: the active set gets a new perturbation and becomes standby
                self.sets[self.slot].perturbation = ctx.rng().next_u64();
                self.slot ^= 1;
                self.double_buffering = false;
                self.rehash_time = now;
                self.rehashes += 1;
            } else if !self.double_buffering && self.warmup_time > Dur::ZERO && now > limit.earlier_by(self.warmup_time) {
                self.double_buffering = true;
            }
        }
        let flow = ctx.arena.get(id).flow;
        let slot = self.slot;
        let mut hashes = [0u32; 2];
        hashes[slot] = self.hash(flow, slot);
        let (p_min, minqlen) = self.touch_bins(hashes[slot], slot);
        if minqlen >= self.max_pkts {
            return Verdict::Dropped(REASON_BIN_FULL);
        }
        if p_min >= MAX_PROB {
            // inelastic flow
            if self.double_buffering {
                let other = slot ^ 1;
                hashes[other] = self.hash(flow, other);
                self.touch_bins(hashes[other], other);
            }
            self.note_inelastic(flow, now);
            if self.rate_limited(now) {
                return Verdict::Dropped(REASON_PENALTY);
            }
            self.penalized += 1;
        } else {
            let r = (ctx.rng().next_u64() & MAX_PROB as u64) as u32;
            if r < p_min {
                let unresponsive = p_min > MAX_PROB / 2 && r < (p_min - MAX_PROB / 2) * 2;
                if unresponsive || !ctx.mark(id, REASON_EARLY) {
                    return Verdict::Dropped(REASON_EARLY);
                }
            }
        }
        self.count(hashes, true);
        self.bytes += ctx.size(id) as u64;
        self.fifo.push_back(Entry { id, hashes });
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let e = self.fifo.pop_front()?;
        self.bytes -= ctx.size(e.id) as u64;
        self.count(e.hashes, false);
        Some(e.id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len() as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.penalized, self.rehashes]);
    }

    fn state(&self, out: &mut [f64]) {
        let bins = self.bins().iter().flatten();
        let (mut max_p, mut sum_p, mut max_q) = (0u32, 0u64, 0u32);
        for b in bins {
            max_p = max_p.max(b.p_mark);
            sum_p += b.p_mark as u64;
            max_q = max_q.max(b.qlen);
        }
        let recent = self.recent[..self.n_recent].iter().filter(|e| self.last_arrival.since(e.1) <= Dur::from_secs(1)).count();
        let m = MAX_PROB as f64;
        out.copy_from_slice(&[max_p as f64 / m, sum_p as f64 / (LEVELS * BINS) as f64 / m, max_q as f64, recent as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    fn queue(cfg: SfbConfig, seed: u64) -> Queue {
        Queue::new(&QdiscConfig::Sfb(cfg), &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(seed, StreamKind::Qdisc, 0))
    }

    fn sfb(q: &Queue) -> &Sfb {
        match &q.qdisc {
            crate::aqm::Qdisc::Sfb(s) => s,
            _ => unreachable!(),
        }
    }

    fn sfb_mut(q: &mut Queue) -> &mut Sfb {
        match &mut q.qdisc {
            crate::aqm::Qdisc::Sfb(s) => s,
            _ => unreachable!(),
        }
    }

    fn pkt(a: &mut PacketArena, flow: u32, ecn: Ecn) -> PacketId {
        a.alloc(Packet { flow, size_bytes: 1500, ecn, ..Default::default() })
    }

    /// Offer a packet; free it if dropped.
    fn offer(q: &mut Queue, a: &mut PacketArena, flow: u32, ecn: Ecn, t: Time) -> bool {
        let id = pkt(a, flow, ecn);
        let ok = q.enqueue(id, t, a, &mut vec![]);
        if !ok {
            a.free(id);
        }
        ok
    }

    /// Linux's default increment and decrement in Q0.16: 66 and 11.
    #[test]
    fn defaults_in_q16_are_linux_values() {
        let s = Sfb::new(&SfbConfig::default(), &QdiscEnv { link_rate: Rate::from_mbps(100) });
        assert_eq!((s.increment, s.decrement), ((MAX_PROB + 500) / 1000, (MAX_PROB + 3000) / 6000));
        assert_eq!((s.increment, s.decrement), (66, 11));
    }

    /// Per-bin Blue (Feng et al. 2001, Figure 3; Linux `sfb_enqueue`): an arrival raises by the
    /// increment the p_mark of each of its bins holding bin_size packets or more, lowers that of
    /// each empty one (not below 0), and leaves the others; the bins' lengths count the queued
    /// packets of the flows hashed there, per level.
    #[test]
    fn each_arrival_moves_its_bins_p_mark_by_the_bin_rule() {
        let mut q = queue(SfbConfig { bin_size: 3, max_pkts: 1000, rehash_interval: Dur::ZERO, ..Default::default() }, 1);
        let mut a = PacketArena::new();
        let t = Time::ZERO;
        // flow 7 alone: its bins hold 0, 1, 2 packets at its first three arrivals (no change
        // but the first, a decrement at 0 which saturates), then 3, 4: +66 each
        for k in 0..5 {
            assert!(offer(&mut q, &mut a, 7, Ecn::Ect0, t)); // ECT: marked rather than dropped
            let s = sfb(&q);
            let h = s.hash(7, s.slot);
            for l in 0..LEVELS {
                let b = s.bins()[l][bin_of(h, l)];
                assert_eq!(b.qlen, k + 1);
                let expect = if k >= 3 { 66 * (k - 2) } else { 0 };
                assert_eq!(b.p_mark, expect, "level {l} after {} arrivals", k + 1);
            }
            assert_eq!(s.p_min_of(7), if k >= 3 { 66 * (k - 2) } else { 0 });
        }
        // drain: the bins go back to 0 packets, then an arrival finds them empty: -11
        while let Some(id) = q.dequeue(t, &mut a, &mut vec![]) {
            a.free(id);
        }
        let s = sfb(&q);
        assert!(s.bins().iter().flatten().all(|b| b.qlen == 0));
        assert!(offer(&mut q, &mut a, 7, Ecn::Ect0, t));
        let s = sfb(&q);
        let h = s.hash(7, s.slot);
        for l in 0..LEVELS {
            assert_eq!(s.bins()[l][bin_of(h, l)].p_mark, 132 - 11);
        }
        q.check_identities().unwrap();
    }

    /// The min rule (Feng et al. 2001, section 4): a flow is marked with the least p_mark of
    /// its bins, so a light flow sharing one bin per level with heavy flows is protected by the
    /// others. Bins set by hand: p_mark 1 in every bin of the flow except one at 0.1: the
    /// arrival drop/mark fraction is 0.1 (100,000 arrivals, within 4 sd), not 1.
    #[test]
    fn a_flow_is_marked_with_the_least_probability_of_its_bins() {
        let mut q = queue(SfbConfig { max_pkts: 1000, rehash_interval: Dur::ZERO, ..Default::default() }, 2);
        let mut a = PacketArena::new();
        // draw the perturbations
        assert!(offer(&mut q, &mut a, 99, Ecn::NotEct, Time::ZERO));
        let id = q.dequeue(Time::ZERO, &mut a, &mut vec![]).unwrap();
        a.free(id);
        let s = sfb_mut(&mut q);
        let h = s.hash(5, s.slot);
        let slot = s.slot;
        // qlen 1 in each of its bins (not empty, below bin_size): arrivals leave p_mark alone
        for l in 0..LEVELS {
            let b = &mut s.sets[slot].bins[l][bin_of(h, l)];
            b.p_mark = if l == 3 { to_q16(0.1) } else { MAX_PROB };
            b.qlen = 1;
        }
        let n = 100_000;
        let mut lost = 0;
        for i in 0..n {
            let t = Time::from_ns(i);
            if offer(&mut q, &mut a, 5, Ecn::NotEct, t) {
                let id = q.dequeue(t, &mut a, &mut vec![]).unwrap();
                a.free(id);
            } else {
                lost += 1;
            }
        }
        let frac = lost as f64 / n as f64;
        let p = to_q16(0.1) as f64 / 65536.0;
        eprintln!("min rule: lost fraction {frac:.4}, p_min {p:.4}");
        assert!((frac - p).abs() < 4.0 * (p * (1.0 - p) / n as f64).sqrt());
        assert_eq!(sfb(&q).p_min_of(5), to_q16(0.1));
        q.check_identities().unwrap();
    }

    /// Containment (Feng et al. 2001, section 4.1): one constant-rate flow sending 10 packets
    /// per 1 ms slot and 15 light constant-rate flows of 1 packet per slot, served 15 packets per
    /// slot: the light flows fill the link, so whatever the heavy flow gets is overload. Its bins
    /// fill (one is at p_mark 1 after 94 ms) and its least p_mark climbs to about 0.9 (mean 0.90 over the second 10 s), where it
    /// hovers: whenever its packets have left its bins empty, its own arrivals take 1/6000 off,
    /// so here it never sits at exactly 1 and the penalty box is not used; SFB's drops above
    /// one half ("unresponsive or badly congested") contain it: its share of departures falls
    /// from the offered 0.4 to 0.065. The light flows' least p_mark stays below 0.1 (each
    /// shares at most a few of its 8 bins with the heavy flow). The penalty box is exercised in
    /// the rehash test below.
    #[test]
    fn a_heavy_flow_is_contained_by_its_bins_while_light_flows_stay_low() {
        let mut q = queue(SfbConfig::default(), 3);
        let mut a = PacketArena::new();
        let mut order = Rng::stream(5, StreamKind::Flow, 0);
        let (mut out, mut heavy_out) = (0u64, 0u64);
        let mut t = 0u64;
        let mut arrivals: Vec<u32> = Vec::with_capacity(25);
        let mut dropped = vec![];
        let (mut reached_one_at, mut bin_at_one_at, mut p_sum, mut p_n) = (None, None, 0.0, 0);
        for slot in 0..20_000u64 {
            arrivals.clear();
            arrivals.extend(std::iter::repeat_n(0, 10));
            arrivals.extend(1..=15);
            for i in (1..arrivals.len()).rev() {
                let j = order.range_inclusive(0, i as u64) as usize;
                arrivals.swap(i, j);
            }
            for (i, &f) in arrivals.iter().enumerate() {
                t += 1_000_000 / 25;
                let id = pkt(&mut a, f, Ecn::NotEct);
                if !q.enqueue(id, Time::from_ns(t), &mut a, &mut dropped) {
                    a.free(id);
                }
                // 15 departures per 25 arrivals
                if i % 5 < 3 {
                    if let Some(id) = q.dequeue(Time::from_ns(t), &mut a, &mut dropped) {
                        if slot >= 10_000 {
                            out += 1;
                            heavy_out += (a.get(id).flow == 0) as u64;
                        }
                        a.free(id);
                    }
                }
            }
            let p0 = sfb(&q).p_min_of(0);
            let s = sfb(&q);
            let h = s.hash(0, s.slot);
            let heavy_max = (0..LEVELS).map(|l| s.bins()[l][bin_of(h, l)].p_mark).max().unwrap();
            if heavy_max == MAX_PROB && bin_at_one_at.is_none() {
                bin_at_one_at = Some(slot);
            }
            if p0 == MAX_PROB && reached_one_at.is_none() {
                reached_one_at = Some(slot);
            }
            if slot >= 10_000 {
                p_sum += p0 as f64 / MAX_PROB as f64;
                p_n += 1;
            }
        }
        let s = sfb(&q);
        let light_p: Vec<f64> = (1..=15).map(|f| s.p_min_of(f) as f64 / MAX_PROB as f64).collect();
        let light_max = light_p.iter().cloned().fold(0.0, f64::max);
        let share = heavy_out as f64 / out as f64;
        let heavy_mean = p_sum / p_n as f64;
        let r = q.reasons();
        eprintln!(
            "heavy p_min reached 1 at {reached_one_at:?} ms (one of its bins at {bin_at_one_at:?} ms), mean {heavy_mean:.4} over the second half; light p_min max {light_max:.4}; heavy share of departures {share:.4} (offered 0.4); drops: penalty {}, early {}, bin_full {}, overflow {}; admitted with a penalty token {}",
            r.drops[REASON_PENALTY as usize],
            r.drops[REASON_EARLY as usize],
            r.drops[REASON_BIN_FULL as usize],
            r.drops[REASON_OVERFLOW as usize],
            s.penalized,
        );
        assert!(bin_at_one_at.is_some() && heavy_mean > 0.85, "heavy p_min mean {heavy_mean}");
        assert!(light_max < 0.1, "a light flow's p_min {light_max}");
        assert!(share < 0.1, "heavy share {share}");
        q.check_identities().unwrap();
    }

    /// Moving hash functions (Feng et al. 2001, section 4.4; Linux double buffering): the
    /// sets swap at the first arrival after rehash_interval (10 s here); from warmup_time (2 s)
    /// before it, arrivals of an inelastic flow are also hashed into the standby set, and no
    /// other arrival is. A flow at 10 packets per ms against five at 1 per ms that fill the
    /// 5-per-ms link: the heavy flow reaches p_min = 1 and meets the penalty box (penalty
    /// drops); after the swap it lands in other bins and is identified again (p_min = 1)
    /// within half a second (103 ms here); the light flows' least p_mark stays below one half
    /// (0.14-0.17 at the end: the heavy flow's admitted packets overload a link the light flows
    /// fill, so their bins fill too). With
    /// Linux's penalty bucket no packet of a flow this fast is admitted during the warm-up, so
    /// none is counted in the standby bins and they learn nothing of it (their p_mark only
    /// decreases): re-identification starts from scratch.
    #[test]
    fn rehash_swaps_sets_after_a_warm_up_and_the_heavy_flow_is_identified_again() {
        let cfg = SfbConfig { rehash_interval: Dur::from_secs(10), warmup_time: Dur::from_secs(2), ..Default::default() };
        let mut q = queue(cfg, 4);
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        // flow 0 at 10 packets per ms, flows 1-5 at 1 per ms each, served 5 per ms
        let (mut swapped_at, mut reidentified_at) = (None, None);
        let mut standby_counted = 0u64;
        for ms in 0..12_000u64 {
            for k in 0..15u64 {
                let t = Time::from_ns(ms * 1_000_000 + k * 60_000);
                let flow = if k % 3 == 2 { 1 + (k / 3) as u32 } else { 0 };
                let id = pkt(&mut a, flow, Ecn::NotEct);
                if q.enqueue(id, t, &mut a, &mut dropped) {
                    let s = sfb(&q);
                    let e = s.fifo.back().unwrap();
                    let standby = e.hashes[s.slot ^ 1];
                    if standby != 0 {
                        assert!(s.double_buffering && flow == 0, "standby hash only for the inelastic flow while double buffering");
                        standby_counted += 1;
                    }
                    assert_eq!(s.double_buffering, (8_000..10_000).contains(&ms) || (ms == 10_000 && k == 0), "double buffering at {ms} ms");
                } else {
                    a.free(id);
                }
                if k % 3 == 2 {
                    if let Some(id) = q.dequeue(t, &mut a, &mut dropped) {
                        a.free(id);
                    }
                }
            }
            let s = sfb(&q);
            if swapped_at.is_none() && s.rehashes == 1 {
                swapped_at = Some(ms);
            }
            if swapped_at.is_some() && reidentified_at.is_none() && s.p_min_of(0) == MAX_PROB {
                reidentified_at = Some(ms);
            }
        }
        let r = q.reasons();
        eprintln!(
            "swap at {swapped_at:?} ms, flow identified again at {reidentified_at:?} ms; {standby_counted} packets counted in the standby set; penalty drops {}, admitted with a token {}",
            r.drops[REASON_PENALTY as usize],
            sfb(&q).penalized
        );
        assert_eq!(swapped_at, Some(10_000));
        assert!(r.drops[REASON_PENALTY as usize] > 0);
        assert!(reidentified_at.is_some_and(|t| t < 10_500));
        let light: Vec<f64> = (1..=5).map(|f| sfb(&q).p_min_of(f) as f64 / MAX_PROB as f64).collect();
        eprintln!("light flows' p_min at the end: {light:?}");
        assert!(light.iter().all(|&p| p < 0.5));
        q.check_identities().unwrap();
    }
}
