//! sfqCoDel: Kathleen Nichols's stochastic-fair-queueing CoDel for ns-2.35 (the discipline seed
//! 001 compares), which differs from FQ-CoDel.
//!
//! Source: ns-2.35 `queue/sfqcodel.cc` (Nichols, 2011-2013, with the CableLabs changes of
//! 2012-2013), read for behaviour (not copied); Nichols & Jacobson, ACM Queue 10(5), 2012 for the
//! CoDel law it uses (`codel_law.rs`, flavour `Ns2`).
//!
//! * Bins: `hash(flow) mod bins`, no perturbation. Each bin is a FIFO with its own CoDel state.
//! * Schedule: a circular list of active bins served packet by packet (one packet per bin per
//!   turn; ns-2's `quantum_` 0). A bin that becomes active is inserted after the other new bins and
//!   before the old ones, counting from the bin whose turn it is; a bin stops being new once it is
//!   served. A bin found empty when its turn comes leaves the schedule; a bin emptied by CoDel's
//!   drops leaves it at once.
//! * Full buffer (`limit_pkts`): before the arrival is queued, the last packet of the bin with
//!   the most packets is dropped (tail drop from the fullest bin; ties go to a bin other than the
//!   last one chosen).
//! * CoDel per bin (ns-2 flavour): droppable from `first_above_time` on, while more than one
//!   maximum-size packet is queued in all bins together and the bin itself is not emptied by the
//!   dequeue; re-entry within 8 intervals resumes at count - 2.
//!
//! Deliberate deviations: the hash is of the simulator's flow id (ns-2 hashes addresses and
//! ports with Jenkins' lookup3); the one-packet minimum is `mtu` (ns-2 tracks the largest packet
//! seen, starting at 256 bytes); ns-2's byte-rounding option (`quantum_` > 0) and its CBR
//! isolation are not modelled.

use super::law::codel::{CodelFlavor, CodelParams, CodelStats, CodelVars};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur};
use std::collections::VecDeque;

crate::params! {
    /// sfqCoDel parameters; defaults are ns-2.35's.
    pub struct SfqCodelConfig {
        /// Number of bins.
        bins: u32 = 1024, Count, range(>= 1, <= 65536), "ns-2.35 sfqCoDel maxbins_ 1024 (MAXBINS)";
        /// Total packet limit; when full the fullest bin loses its last packet.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "ns-2 Queue limit_ (set per link; seed 001 gives its own)";
        /// CoDel target (each bin).
        target: Dur = Dur::from_ms(5), Time, range(> Dur::ZERO), "ns-2.35 sfqCoDel target_ 5 ms";
        /// CoDel interval (each bin).
        interval: Dur = Dur::from_ms(100), Time, range(> Dur::ZERO), "ns-2.35 sfqCoDel interval_ 100 ms";
        /// No CoDel drop while at most this many bytes are queued in all bins.
        mtu: Bytes = Bytes::new(1500), Size, range(>= 1), "ns-2.35 maxpacket_: the largest packet seen";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_CODEL: u8 = 1;

#[derive(Debug)]
struct Bin {
    fifo: VecDeque<PacketId>,
    vars: CodelVars,
    on_sched: bool,
    new: bool,
}

#[derive(Debug)]
pub struct SfqCodel {
    params: CodelParams,
    limit_pkts: u32,
    bins: Vec<Bin>,
    /// Active bins; the front is the bin whose turn it is (ns-2 `binsched_`).
    sched: VecDeque<u32>,
    /// The bin last cut for overflow (ns-2 `maxbinid_`).
    last_cut: usize,
    stats: CodelStats,
    pkts: u32,
    bytes: u64,
}

impl Algorithm for SfqCodel {
    type Config = SfqCodelConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "sfqcodel",
        aliases: &["sfq_codel"],
        summary: "sfqCoDel (ns-2.35): hashed bins served packet by packet round robin, CoDel per bin, tail drop from the fullest bin",
        sources: &["ns-2.35 queue/sfqcodel.cc (K. Nichols)", "Nichols & Jacobson, ACM Queue 10(5), 2012"],
    };
    fn new(cfg: &SfqCodelConfig, _env: &QdiscEnv) -> SfqCodel {
        SfqCodel {
            params: CodelParams { target: cfg.target, interval: cfg.interval, mtu_bytes: cfg.mtu.get(), ecn: false, flavor: CodelFlavor::Ns2, ce_threshold: None },
            limit_pkts: cfg.limit_pkts,
            bins: (0..cfg.bins).map(|_| Bin { fifo: VecDeque::new(), vars: CodelVars::default(), on_sched: false, new: false }).collect(),
            sched: VecDeque::new(),
            last_cut: 0,
            stats: CodelStats::default(),
            pkts: 0,
            bytes: 0,
        }
    }
}

/// splitmix64's finalizer (no perturbation: ns-2's hash is fixed).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl SfqCodel {
    fn bin_of(&self, flow: u32) -> usize {
        (mix(flow as u64 + 1) % self.bins.len() as u64) as usize
    }

    /// ns-2's full-buffer rule: the last packet of the bin with the most packets (a tie goes to
    /// a bin other than the last one cut).
    fn cut_fullest(&mut self, ctx: &mut QdiscCtx<'_>) {
        let mut m = self.last_cut;
        for (j, b) in self.bins.iter().enumerate() {
            if j != self.last_cut && b.on_sched && b.fifo.len() >= self.bins[m].fifo.len() {
                m = j;
            }
        }
        self.last_cut = m;
        if let Some(id) = self.bins[m].fifo.pop_back() {
            let size = ctx.size(id) as u64;
            self.pkts -= 1;
            self.bytes -= size;
            ctx.drop_queued(id, REASON_OVERFLOW);
        }
    }

    /// Take the front bin off the schedule.
    fn remove_front(&mut self) {
        if let Some(i) = self.sched.pop_front() {
            let b = &mut self.bins[i as usize];
            b.on_sched = false;
            b.vars.dropping = false;
        }
    }
}

impl QueueDisc for SfqCodel {
    const REASONS: &'static [Reason] = &[
        Reason { name: "overflow", doc: "buffer full: the last packet of the fullest bin was dropped" },
        Reason { name: "codel", doc: "a bin's CoDel control law (ns-2 flavour)" },
    ];
    const STATS: &'static [Field] = &[Field { name: "dropping_entries", unit: FieldUnit::Count, doc: "times a bin's CoDel entered the dropping state" }];
    const STATE: &'static [Field] = &[Field { name: "active_bins", unit: FieldUnit::Count, doc: "bins on the schedule" }];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        if self.pkts >= self.limit_pkts {
            self.cut_fullest(ctx);
        }
        let i = self.bin_of(ctx.arena.get(id).flow);
        self.bins[i].fifo.push_back(id);
        self.pkts += 1;
        self.bytes += ctx.size(id) as u64;
        if !self.bins[i].on_sched {
            // after the new bins, before the old ones, counting from the current turn
            let pos = self.sched.iter().position(|&b| !self.bins[b as usize].new).unwrap_or(self.sched.len());
            self.sched.insert(pos, i as u32);
            let b = &mut self.bins[i];
            b.on_sched = true;
            b.new = true;
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        loop {
            // ready bin: skip (and unschedule) empty ones
            while let Some(&i) = self.sched.front() {
                if self.bins[i as usize].fifo.is_empty() {
                    self.remove_front();
                } else {
                    break;
                }
            }
            let i = *self.sched.front()? as usize;
            let (pkts, total) = (&mut self.pkts, &mut self.bytes);
            let bin = &mut self.bins[i];
            bin.new = false;
            let Bin { fifo, vars, .. } = bin;
            let out = vars.dequeue(&self.params, &mut self.stats, ctx, REASON_CODEL, |ctx| {
                let id = fifo.pop_front()?;
                let size = ctx.size(id) as u64;
                *pkts -= 1;
                *total -= size;
                // ns-2: not droppable when the dequeue empties the bin, else the total backlog
                Some((id, if fifo.is_empty() { 0 } else { *total }))
            });
            match out {
                Some(id) => {
                    // packet by packet: the next bin's turn
                    self.sched.rotate_left(1);
                    return Some(id);
                }
                None => self.remove_front(), // emptied by drops: off the schedule, next bin
            }
        }
    }

    fn len_pkts(&self) -> u32 {
        self.pkts
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
    fn stats(&self, out: &mut [u64]) {
        out[0] = self.stats.dropping_entries;
    }
    fn state(&self, out: &mut [f64]) {
        out[0] = self.sched.len() as f64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Rate, Time};

    fn queue(cfg: SfqCodelConfig) -> Queue {
        Queue::new(&QdiscConfig::SfqCodel(cfg), &QdiscEnv { link_rate: Rate::from_bps(100_000_000) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn sfq(q: &Queue) -> &SfqCodel {
        match &q.qdisc {
            crate::aqm::Qdisc::SfqCodel(s) => s,
            _ => unreachable!(),
        }
    }

    fn pkt(a: &mut PacketArena, flow: u32, size: u32) -> PacketId {
        a.alloc(Packet { flow, size_bytes: size, ..Default::default() })
    }

    fn relaxed() -> SfqCodelConfig {
        SfqCodelConfig { target: Dur::from_secs(10), interval: Dur::from_secs(20), ..Default::default() }
    }

    /// Flows 1-4 map to four different bins with 1024 bins.
    #[test]
    fn test_flows_use_distinct_bins() {
        let q = queue(SfqCodelConfig::default());
        let s = sfq(&q);
        let bins: std::collections::HashSet<_> = (1..=4).map(|f| s.bin_of(f)).collect();
        assert_eq!(bins.len(), 4);
    }

    /// Packet-by-packet round robin (ns-2 quantum_ 0): two backlogged bins alternate packets,
    /// whatever their sizes (unlike FQ-CoDel's byte deficit).
    #[test]
    fn bins_take_turns_packet_by_packet() {
        let mut q = queue(relaxed());
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        for i in 0..50 {
            q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(i), &mut a, &mut dropped);
            q.enqueue(pkt(&mut a, 2, 500), Time::from_ns(i), &mut a, &mut dropped);
        }
        let order: Vec<u32> = (0..20)
            .map(|k| {
                let id = q.dequeue(Time::from_ns(100 + k), &mut a, &mut dropped).unwrap();
                let f = a.get(id).flow;
                a.free(id);
                f
            })
            .collect();
        assert_eq!(order, [1, 2].repeat(10));
    }

    /// A bin that becomes active goes after the other new bins and before the old ones.
    #[test]
    fn new_bins_go_after_new_bins_and_before_old_ones() {
        let mut q = queue(relaxed());
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        for i in 0..5 {
            q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(i), &mut a, &mut dropped);
            q.enqueue(pkt(&mut a, 2, 1500), Time::from_ns(i), &mut a, &mut dropped);
        }
        for k in 0..2 {
            // serve 1 and 2 once: both old now
            let id = q.dequeue(Time::from_ns(10 + k), &mut a, &mut dropped).unwrap();
            a.free(id);
        }
        q.enqueue(pkt(&mut a, 3, 1500), Time::from_ns(20), &mut a, &mut dropped);
        q.enqueue(pkt(&mut a, 4, 1500), Time::from_ns(21), &mut a, &mut dropped);
        let order: Vec<u32> = (0..4)
            .map(|k| {
                let id = q.dequeue(Time::from_ns(30 + k), &mut a, &mut dropped).unwrap();
                let f = a.get(id).flow;
                a.free(id);
                f
            })
            .collect();
        assert_eq!(order, [3, 4, 1, 2]);
        q.check_identities().unwrap();
    }

    /// A full buffer drops the last packet of the fullest bin, then queues the arrival.
    #[test]
    fn full_buffer_tail_drops_the_fullest_bin() {
        let mut q = queue(SfqCodelConfig { limit_pkts: 10, ..relaxed() });
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut last1 = None;
        for i in 0..8 {
            let id = pkt(&mut a, 1, 1500);
            last1 = Some(id);
            q.enqueue(id, Time::from_ns(i), &mut a, &mut dropped);
        }
        for i in 0..2 {
            q.enqueue(pkt(&mut a, 2, 1500), Time::from_ns(10 + i), &mut a, &mut dropped);
        }
        let arrival = pkt(&mut a, 2, 1500);
        assert!(q.enqueue(arrival, Time::from_ns(20), &mut a, &mut dropped));
        assert_eq!(dropped, vec![last1.unwrap()], "the fullest bin's last packet");
        assert_eq!(q.len_pkts(), 10);
        q.check_identities().unwrap();
    }

    /// The ns-2 CoDel flavour: a bin 2 % overloaded for 1 s climbs to some count n; after a
    /// 50 ms pause that empties it, its next dropping period starts at n - 2 (within 8 intervals).
    #[test]
    fn reentry_resumes_at_count_minus_two() {
        let mut q = queue(SfqCodelConfig::default());
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let bin = sfq(&q).bin_of(1);
        let gap = 120_000u64; // 1500 B at 100 Mb/s
        let mut t = 0u64;
        let mut arrivals = 0u64;
        // arrivals 2 % faster than dequeues for 1 s
        while t < 1_000_000_000 {
            while arrivals * gap * 100 / 102 <= t {
                q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(t), &mut a, &mut dropped);
                arrivals += 1;
            }
            if let Some(id) = q.dequeue(Time::from_ns(t), &mut a, &mut dropped) {
                a.free(id);
            }
            t += gap;
        }
        let before = sfq(&q).bins[bin].vars.count;
        assert!(before > 3, "count {before}");
        // drain: dequeues only for 50 ms
        let end = t + 50_000_000;
        while t < end {
            if let Some(id) = q.dequeue(Time::from_ns(t), &mut a, &mut dropped) {
                a.free(id);
            }
            t += gap;
        }
        assert_eq!(q.len_pkts(), 0);
        // overload again until the bin re-enters the dropping state
        let entries = sfq(&q).stats.dropping_entries;
        let mut k = 0u64;
        while sfq(&q).stats.dropping_entries == entries {
            for _ in 0..2 {
                q.enqueue(pkt(&mut a, 1, 1500), Time::from_ns(t), &mut a, &mut dropped);
            }
            if let Some(id) = q.dequeue(Time::from_ns(t), &mut a, &mut dropped) {
                a.free(id);
            }
            t += gap;
            k += 1;
            assert!(k < 100_000);
        }
        assert_eq!(sfq(&q).bins[bin].vars.count, before - 2, "re-entry at count - 2");
    }
}
