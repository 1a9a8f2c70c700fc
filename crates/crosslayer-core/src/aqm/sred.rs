//! SRED (Stabilized RED): arrivals are dropped with a probability that grows in steps with the
//! instantaneous queue and with the square of an estimate of the number of active flows, taken
//! from how often an arrival's flow matches a random entry of a "zombie list" of recent flows.
//!
//! Source: T. J. Ott, T. V. Lakshman, L. H. Wong, "SRED: Stabilized RED", IEEE INFOCOM 1999,
//! pp. 1346-1355; the ns-2 contributed `sred.cc` as ported to ns-3 (read for behaviour, not copied)
//! for the constants it uses.
//!
//! * Zombie list of `zombies` (M = 1000) entries (flow, count). While it is not full, each arrival
//!   is appended with count 0. Once full, each arrival is compared with a uniformly chosen entry:
//!   same flow, a hit (the entry's count grows); else a miss, and with probability
//!   `overwrite_prob` (p = 0.25) the entry is replaced by the arrival's flow with count 0.
//! * Hit frequency: `P(t) = (1 - hit_weight) P(t-1) + hit_weight Hit(t)`, with Hit(t) = 1 on a hit,
//!   0 on a miss; `1 / P` estimates the number of active flows (for N equal flows P -> 1/N).
//! * With q the instantaneous queue and B = `limit_pkts`: `p_sred = p_max` for B/3 <= q < B,
//!   `p_max / 4` for B/6 <= q < B/3, 0 below B/6.
//! * Simple SRED: `p_zap = p_sred min(1, 1 / (256 P)^2)`; full SRED multiplies by
//!   `(1 + Hit(t) / P(t))`, so a hit (likely from a flow with many packets) raises its own drop
//!   probability. The arrival is dropped with probability p_zap, and at B packets (tail drop).
//!
//! Deliberate deviations: flows are `Packet::flow` (the paper: a flow identifier from the
//! headers); q and B are counted in packets (the paper's in bytes or packets alike); no ECN (the
//! paper drops). The zombies' timestamps (used only for identifying misbehaving flows) are not kept.

use super::law::fifo::Fifo;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::choice! {
    /// Which SRED: the drop probability without or with the hit term.
    pub enum SredVariant {
        /// p_zap = p_sred min(1, 1/(256 P)^2).
        Simple = "simple",
        /// p_zap = p_sred min(1, 1/(256 P)^2) (1 + Hit / P).
        Full = "full",
    }
}

crate::params! {
    /// SRED parameters; the defaults are the paper's (Ott, Lakshman, Wong 1999).
    pub struct SredConfig {
        /// The buffer B, packets: p_sred's steps are at B/6 and B/3, arrivals beyond B are dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 6), "B: no value fixed by the paper; 1000 as Linux txqueuelen";
        /// Entries of the zombie list (M).
        zombies: u32 = 1000, Count, range(>= 1, <= 1_000_000), "Ott et al. 1999: M = 1000";
        /// Probability that a miss overwrites the compared zombie (p).
        overwrite_prob: f64 = 0.25, Ratio, range(> 0.0, <= 1.0), "Ott et al. 1999: p = 0.25";
        /// Weight of a new hit in the hit frequency P (alpha).
        hit_weight: f64 = 0.00025, Ratio, range(>= 1e-9, <= 1.0), "alpha = p / M = 0.25 / 1000 (ns-2 sred.cc as ported to ns-3; the paper's order p/M, unverified against its text)";
        /// p_max: the drop probability (before the flow term) with the queue in [B/3, B).
        p_max: f64 = 0.15, Ratio, range(>= 0.0, <= 1.0), "Ott et al. 1999: p_max = 0.15";
        /// "simple" or "full" SRED.
        variant: SredVariant = SredVariant::Simple, Choice, range(), "Ott et al. 1999: simple SRED (full SRED as the variant with the hit term)";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_SRED: u8 = 1;

/// One zombie: a recently seen flow and its hits since it was written.
#[derive(Clone, Copy, Debug)]
struct Zombie {
    flow: u32,
    count: u32,
}

#[derive(Debug)]
pub struct Sred {
    cfg: SredConfig,
    /// The zombie list (filled to `zombies` entries, then overwritten in place).
    zombies: Vec<Zombie>,
    /// Hit frequency P(t).
    hit_freq: f64,
    /// p_zap of the last arrival.
    p_zap: f64,
    fifo: Fifo,
    /// Hits and early drops since the start.
    hits: u64,
    early: u64,
}

impl Algorithm for Sred {
    type Config = SredConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "sred",
        aliases: &[],
        summary: "SRED: drop with a probability stepped by the instantaneous queue and scaled by the square of the active-flow count estimated from zombie-list hits",
        sources: &["Ott, Lakshman, Wong, \"SRED: Stabilized RED\", IEEE INFOCOM 1999"],
    };
    fn new(cfg: &SredConfig, _env: &QdiscEnv) -> Sred {
        Sred {
            zombies: Vec::with_capacity(cfg.zombies as usize),
            hit_freq: 0.0,
            p_zap: 0.0,
            fifo: Fifo::new(cfg.limit_pkts),
            hits: 0,
            early: 0,
            cfg: cfg.clone(),
        }
    }
}

impl Sred {
    /// p_sred(q): p_max from B/3, p_max / 4 from B/6, 0 below.
    pub fn p_sred(&self, q_pkts: u32) -> f64 {
        let b = self.cfg.limit_pkts as f64;
        let q = q_pkts as f64;
        if q >= b / 3.0 {
            self.cfg.p_max
        } else if q >= b / 6.0 {
            self.cfg.p_max / 4.0
        } else {
            0.0
        }
    }

    /// p_zap for a queue of `q_pkts` and the current hit frequency; `hit` is this arrival's Hit(t)
    /// (used by full SRED only).
    pub fn p_zap(&self, q_pkts: u32, hit: bool) -> f64 {
        let p = self.hit_freq;
        let f = 256.0 * p;
        let flows = if f * f > 1.0 { 1.0 / (f * f) } else { 1.0 };
        let mut pz = self.p_sred(q_pkts) * flows;
        if self.cfg.variant == SredVariant::Full && hit && p > 0.0 {
            pz *= 1.0 + 1.0 / p;
        }
        pz.min(1.0)
    }

    /// The zombie-list step for an arrival of `flow`: Some(hit) once the list is full, None
    /// while it fills.
    fn compare(&mut self, flow: u32, ctx: &mut QdiscCtx<'_>) -> Option<bool> {
        let m = self.cfg.zombies as usize;
        if self.zombies.len() < m {
            self.zombies.push(Zombie { flow, count: 0 });
            return None;
        }
        let rng = ctx.rng();
        let i = rng.range_inclusive(0, m as u64 - 1) as usize;
        let z = &mut self.zombies[i];
        let hit = z.flow == flow;
        if hit {
            z.count = z.count.saturating_add(1);
            self.hits += 1;
        } else if rng.chance(self.cfg.overwrite_prob) {
            *z = Zombie { flow, count: 0 };
        }
        let a = self.cfg.hit_weight;
        self.hit_freq = (1.0 - a) * self.hit_freq + a * hit as u8 as f64;
        Some(hit)
    }

    /// Hit frequency P(t).
    pub fn hit_frequency(&self) -> f64 {
        self.hit_freq
    }
}

impl QueueDisc for Sred {
    const REASONS: &'static [Reason] = &[OVERFLOW, Reason { name: "sred", doc: "SRED's early drop with probability p_zap" }];
    const STATS: &'static [Field] = &[
        Field { name: "hits", unit: FieldUnit::Count, doc: "arrivals whose flow matched the compared zombie" },
        Field { name: "early", unit: FieldUnit::Count, doc: "early drops with probability p_zap" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "hit_frequency", unit: FieldUnit::Ratio, doc: "the hit frequency P(t)" },
        Field { name: "flows_estimate", unit: FieldUnit::Count, doc: "1 / P(t), the estimated number of active flows (0 before the first hit)" },
        Field { name: "p_zap", unit: FieldUnit::Ratio, doc: "the drop probability of the last arrival" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let flow = ctx.arena.get(id).flow;
        let hit = self.compare(flow, ctx).unwrap_or(false);
        let q = self.fifo.len_pkts();
        self.p_zap = self.p_zap(q, hit);
        if ctx.rng().chance(self.p_zap) {
            self.early += 1;
            return Verdict::Dropped(REASON_SRED);
        }
        if q >= self.cfg.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.fifo.push(id, ctx.size(id));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        Some(id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.hits, self.early]);
    }
    fn state(&self, out: &mut [f64]) {
        let n = if self.hit_freq > 0.0 { 1.0 / self.hit_freq } else { 0.0 };
        out.copy_from_slice(&[self.hit_freq, n, self.p_zap]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Rate, Time};

    fn queue(cfg: SredConfig) -> Queue {
        Queue::new(&QdiscConfig::Sred(cfg), &QdiscEnv { link_rate: Rate::from_bps(100_000_000) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn sred(q: &mut Queue) -> &mut Sred {
        match &mut q.qdisc {
            Qdisc::Sred(s) => s,
            _ => unreachable!(),
        }
    }

    /// Offer `n` arrivals whose flows `pick` draws, holding the queue at `level` packets (one
    /// dequeue per accepted arrival once there); returns (arrivals, drops) per flow and the
    /// mean hit frequency over the second half.
    fn drive(q: &mut Queue, n: u32, level: u32, flows: usize, mut pick: impl FnMut() -> u32) -> (Vec<[u64; 2]>, f64) {
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut per = vec![[0u64; 2]; flows];
        let mut p_sum = 0.0;
        for i in 0..n {
            let flow = pick();
            let id = a.alloc(Packet { flow, size_bytes: 1500, ..Default::default() });
            per[flow as usize][0] += 1;
            if !q.enqueue(id, Time::from_ns(i as u64), &mut a, &mut dropped) {
                per[flow as usize][1] += 1;
                a.free(id);
            } else if q.len_pkts() > level {
                let out = q.dequeue(Time::from_ns(i as u64), &mut a, &mut dropped).unwrap();
                a.free(out);
            }
            if i >= n / 2 {
                p_sum += sred(q).hit_freq;
            }
        }
        q.check_identities().unwrap();
        (per, p_sum / (n - n / 2) as f64)
    }

    /// For N flows with equal shares (each arrival's flow uniform), P(t) converges to 1/N: a
    /// zombie holds flow i with probability 1/N, so a hit has probability sum_i (1/N)^2 = 1/N.
    /// The queue is kept empty, so nothing is dropped early. (N = 2, 10, 50; 400,000 arrivals,
    /// alpha = 1/4000: the mean over the second half is within 5 % of 1/N.)
    #[test]
    fn hit_frequency_converges_to_one_over_n() {
        for n in [2u32, 10, 50] {
            let mut q = queue(SredConfig::default());
            let mut rng = Rng::stream(7, StreamKind::Qdisc, n as u64);
            let (per, p) = drive(&mut q, 400_000, 0, n as usize, || rng.range_inclusive(0, n as u64 - 1) as u32);
            eprintln!("N = {n}: P = {p:.5} (1/N = {:.5}), 1/P = {:.2}", 1.0 / n as f64, 1.0 / p);
            assert!((p * n as f64 - 1.0).abs() < 0.05, "N = {n}: P = {p}");
            assert!(per.iter().all(|f| f[1] == 0));
        }
    }

    /// p_zap against the paper's formulas over a grid of queue lengths (B = 600) and hit
    /// frequencies, for both variants, a hit and a miss.
    #[test]
    fn p_zap_follows_the_paper() {
        for variant in [SredVariant::Simple, SredVariant::Full] {
            let mut q = queue(SredConfig { limit_pkts: 600, variant, ..Default::default() });
            let s = sred(&mut q);
            for qlen in [0u32, 50, 99, 100, 150, 199, 200, 400, 599] {
                for p in [0.0, 0.001, 1.0 / 256.0, 0.01, 0.1, 0.5] {
                    for hit in [false, true] {
                        s.hit_freq = p;
                        let p_sred = if qlen >= 200 { 0.15 } else if qlen >= 100 { 0.0375 } else { 0.0 };
                        let mut expect = p_sred * if p == 0.0 { 1.0 } else { (1.0 / (256.0 * p * 256.0 * p)).min(1.0) };
                        if variant == SredVariant::Full && hit && p > 0.0 {
                            expect *= 1.0 + 1.0 / p;
                        }
                        let got = s.p_zap(qlen, hit);
                        assert!((got - expect.min(1.0)).abs() < 1e-15, "{variant:?} q {qlen} P {p} hit {hit}: {got} vs {expect}");
                    }
                }
            }
        }
    }

    /// Hit-triggered drops: one heavy flow sends 10 % of the arrivals, 200 light flows the rest,
    /// the queue held at B/2 (p_sred = p_max). P ~ 0.1^2 + 200 x 0.0045^2 = 0.014, so the simple
    /// drop probability is 0.15 / (256 P)^2 ~ 0.012 for every packet; full SRED multiplies a hit's by
    /// 1 + 1/P ~ 72, and the heavy flow, hitting 10 % of the time, loses several times the light
    /// flows' share. Simple SRED drops both alike.
    #[test]
    fn full_sred_drops_the_flow_that_hits() {
        for variant in [SredVariant::Simple, SredVariant::Full] {
            let mut q = queue(SredConfig { limit_pkts: 120, variant, ..Default::default() });
            let mut rng = Rng::stream(11, StreamKind::Qdisc, 0);
            let (per, p) = drive(&mut q, 400_000, 60, 201, || if rng.chance(0.1) { 0 } else { 1 + rng.range_inclusive(0, 199) as u32 });
            let heavy = per[0][1] as f64 / per[0][0] as f64;
            let (la, ld) = per[1..].iter().fold((0u64, 0u64), |(a, d), f| (a + f[0], d + f[1]));
            let light = ld as f64 / la as f64;
            eprintln!("{variant:?}: P {p:.4}, drop ratio heavy {heavy:.4}, light {light:.4} ({:.2}x)", heavy / light);
            match variant {
                SredVariant::Simple => assert!((heavy / light - 1.0).abs() < 0.15, "{heavy} {light}"),
                SredVariant::Full => assert!(heavy / light > 3.0, "{heavy} {light}"),
            }
        }
    }
}
