//! RED (Random Early Detection): drop or CE-mark arrivals with a probability that grows with an
//! exponentially weighted average of the queue length.
//!
//! Source: Floyd & Jacobson, "Random Early Detection Gateways for Congestion Avoidance", IEEE/ACM
//! ToN 1(4), 1993 (the algorithm of its Figure 2, with `count` spacing the drops uniformly);
//! Floyd, "Recommendation on using the gentle variant of RED" (2000); Floyd, "RED: Discussions of
//! Setting Parameters" (1997) for the defaults (w_q 0.002, max_p 0.1, max_th = 3 min_th). Linux
//! `net/sched/sch_red.c` and `include/net/red.h`, ns-2 `queue/red.cc` and ns-3
//! `red-queue-disc.cc` were read for behaviour (not copied).
//!
//! * On every arrival: if the queue is not empty, or its last packet is still being sent,
//!   `avg = (1 - w_q) avg + w_q q`; if the link has been idle since `t0`,
//!   `avg = (1 - w_q)^m avg` with `m = (now - t0) / s`, `s` the transmission time of a
//!   `mean_pkt_size` packet at the link rate (the paper's idle correction).
//! * `avg < min_th`: accept, `count = -1`. `min_th <= avg < max_th`: `count += 1`,
//!   `p_b = max_p (avg - min_th) / (max_th - min_th)`, and a drop (or mark) spaced by `count`
//!   (`spacing`, below), then `count = 0`. Gentle: for `max_th <= avg < 2 max_th`,
//!   `p_b = max_p + (1 - max_p) (avg - max_th) / max_th`. Above (`max_th`, or `2 max_th` when
//!   gentle): drop every arrival (a forced drop), `count = 0`.
//! * Byte mode (ns-2 `bytes_`): q is the backlog in bytes / `mean_pkt_size`, and `p_b` is scaled
//!   by the packet's size / `mean_pkt_size`.
//! * ECN: an ECN-capable arrival is CE-marked instead of early-dropped; forced drops mark too
//!   unless `harddrop` (Linux `TC_RED_HARDDROP`).
//!
//! * Spacing: Linux's by default (a uniform U drawn on entering the marking range and after each
//!   mark; mark once `count p_b >= U`), which gives the gaps uniform on 1..1/p_b that the paper's
//!   section 7 derives. The paper's Figure 2 (`p_a = p_b / (1 - count p_b)`, count including
//!   this arrival, as ns-2 and ns-3 compute it) gives 1..1/p_b - 1: `spacing = "paper"`; ns-2's
//!   and ns-3's default `wait`: `spacing = "wait"`.
//!
//! Deliberate deviations: thresholds are in packets (Linux takes bytes). ns-3 never early-drops when at most one packet is
//! queued; Linux's idle decay uses a lookup table; neither is reproduced. The link-idle time is
//! the end of the last dequeued packet's transmission (this queue feeds one link).
//!
//! The averaging and the decision (`RedCore`), the FIFO they govern and RED's parameter group are
//! RED's law (`aqm/law/red.rs`), shared with Adaptive RED, CHOKe, APD and WRED.

use super::law::red::{check_thresholds, RedCore, RedQueue, RED_REASONS, RED_STATE};
pub use super::law::red::RedSpacing;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, Info};

crate::choice! {
    /// How RED measures the queue and weighs a packet.
    pub enum RedMode {
        /// q in packets; every packet has the same drop probability.
        Packet = "packet",
        /// q in bytes / mean_pkt_size; the probability is scaled by size / mean_pkt_size.
        Byte = "byte",
    }
}

crate::red_config! {
    /// RED parameters. The defaults are Floyd's recommendations (1997, 2000); Linux requires the
    /// user to give every value.
    pub struct RedConfig {
        gentle = true, "Floyd 2000 (recommended); ns-3 Gentle true; Linux has no gentle mode";
        /// "packet" or "byte" (probability scaled by packet size).
        mode: RedMode = RedMode::Packet, Choice, range(), "Floyd & Jacobson 1993 section 4 (both modes); ns-2 bytes_ false";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux txqueuelen 1000 (tc red needs a limit)";
    }
    check = RedConfig::check;
}

impl RedConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        check_thresholds(self.min_th, self.max_th, out);
    }
}

#[derive(Debug)]
pub struct Red {
    pub q: RedQueue,
}

impl Algorithm for Red {
    type Config = RedConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "red",
        aliases: &[],
        summary: "RED: early drop (or ECN mark) with a probability rising with the averaged queue; gentle and byte modes",
        sources: &[
            "Floyd & Jacobson, IEEE/ACM ToN 1(4), 1993",
            "Floyd, Recommendation on using the gentle variant of RED, 2000",
            "Linux net/sched/sch_red.c, include/net/red.h",
            "ns-2 queue/red.cc; ns-3 RedQueueDisc",
        ],
    };
    fn new(cfg: &RedConfig, env: &QdiscEnv) -> Red {
        let p = cfg.red_params(cfg.mode == RedMode::Byte);
        Red { q: RedQueue::new(RedCore::new(p, env.link_rate), cfg.ecn, cfg.harddrop, cfg.limit_pkts) }
    }
}

impl QueueDisc for Red {
    const REASONS: &'static [Reason] = RED_REASONS;
    const STATE: &'static [Field] = RED_STATE;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        self.q.enqueue(id, ctx)
    }
    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        self.q.dequeue(ctx)
    }
    fn len_pkts(&self) -> u32 {
        self.q.len_pkts()
    }
    fn len_bytes(&self) -> u64 {
        self.q.len_bytes()
    }
    fn state(&self, out: &mut [f64]) {
        self.q.state(out)
    }
}

#[cfg(test)]
mod tests {
    use crate::aqm::law::red::REASON_EARLY;
    use crate::aqm::law::red::REASON_FORCED;
    use crate::rng::Rng;
    use crate::units::Rate;
    use crate::units::Time;
    use super::*;
    use crate::aqm::law::red::{Decision, RedParams};
    use crate::aqm::{QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::StreamKind;
    use crate::units::Dur;

    /// The senders went quiet with the average above max_th: the first arrival ends the idle
    /// period and is dropped, the queue is still empty, and the average must keep decaying with
    /// the idle time (Linux restarts the idle period at the dequeue attempt that follows), not
    /// only by w_q per dropped arrival.
    #[test]
    fn a_drop_on_an_empty_queue_keeps_the_idle_decay() {
        let p = RedParams { min_th: 5.0, max_th: 15.0, w_q: 0.002, max_p: 0.1, gentle: false, byte_mode: false, mean_pkt_size: 1500, spacing: RedSpacing::Linux };
        let mut rng = Rng::stream(1, StreamKind::Qdisc, 0);
        for keep_idle in [true, false] {
            let mut core = RedCore::new(p, Rate::from_mbps(100));
            core.update_avg(Time::from_ms(1), 0, 0); // ends the idle period that starts at 0
            core.avg = 50.0;
            let mut t = Time::from_ms(1);
            for _ in 0..10 {
                t += Dur::from_ms(200); // an RTO later, another arrival on the empty queue
                core.update_avg(t, 0, 0);
                assert_eq!(core.decide(1500, &mut rng), if core.avg >= 15.0 { Decision::Forced } else { Decision::Accept });
                if keep_idle {
                    core.still_idle(t, 0);
                }
            }
            // 200 ms idle at 100 Mb/s is 1,667 packet times: the average falls below min_th at
            // the next arrival; without the idle restart it has only lost 2 % in 10 arrivals.
            if keep_idle {
                assert!(core.avg < 1.0, "{}", core.avg);
            } else {
                assert!((core.avg - 50.0 * 0.998f64.powi(10)).abs() < 1e-9, "{}", core.avg);
            }
        }
    }

    const MBPS100: Rate = Rate::from_bps(100_000_000);

    fn queue(cfg: RedConfig) -> Queue {
        Queue::new(&QdiscConfig::Red(cfg), &QdiscEnv { link_rate: MBPS100 }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn core(q: &Queue) -> &RedCore {
        match &q.qdisc {
            crate::aqm::Qdisc::Red(r) => &r.q.core,
            _ => unreachable!(),
        }
    }

    fn pkt(a: &mut PacketArena, ecn: Ecn) -> PacketId {
        a.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() })
    }

    /// The average (Floyd & Jacobson 1993, section 4 and Figure 2): with the queue held at Q
    /// packets for n arrivals, avg_n = Q + (avg_0 - Q) (1 - w_q)^n; after the link has been idle
    /// for T, the next arrival finds avg (1 - w_q)^(T / s), s = 1500 B / 100 Mb/s = 120 us; an
    /// arrival while the last packet is still being sent sees q = 0 in the usual update.
    #[test]
    fn average_follows_the_ewma_and_decays_over_idle_time() {
        let w = 0.002;
        let mut q = queue(RedConfig { min_th: 1e6, max_th: 2e6, w_q: w, limit_pkts: 100_000, ..Default::default() });
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut t = 0u64;
        for _ in 0..10 {
            assert!(q.enqueue(pkt(&mut a, Ecn::NotEct), Time::from_ns(t), &mut a, &mut dropped));
            t += 1000;
        }
        let avg0 = core(&q).avg;
        let n = 500;
        for _ in 0..n {
            let id = q.dequeue(Time::from_ns(t), &mut a, &mut dropped).unwrap();
            a.free(id);
            // the arrival finds 9 queued
            assert!(q.enqueue(pkt(&mut a, Ecn::NotEct), Time::from_ns(t), &mut a, &mut dropped));
            t += 1000;
        }
        let expect = 9.0 + (avg0 - 9.0) * (1.0 - w).powi(n);
        assert!((core(&q).avg - expect).abs() < 1e-9, "avg {} expected {expect}", core(&q).avg);

        // drain: the last dequeue at t; its transmission ends 120 us later
        while let Some(id) = q.dequeue(Time::from_ns(t), &mut a, &mut dropped) {
            a.free(id);
        }
        let before = core(&q).avg;
        let busy = Time::from_ns(t + 60_000); // still sending the last packet: q = 0 in the EWMA
        assert!(q.enqueue(pkt(&mut a, Ecn::NotEct), busy, &mut a, &mut dropped));
        assert!((core(&q).avg - before * (1.0 - w)).abs() < 1e-12);
        let id = q.dequeue(busy, &mut a, &mut dropped).unwrap();
        a.free(id);
        let before = core(&q).avg;
        let idle = Dur::from_ms(50);
        let arrival = busy + MBPS100.tx_time(1500) + idle;
        assert!(q.enqueue(pkt(&mut a, Ecn::NotEct), arrival, &mut a, &mut dropped));
        let m = idle.ns() as f64 / 120_000.0;
        let expect = before * (1.0 - w).powf(m);
        assert!((core(&q).avg - expect).abs() < 1e-9 * before, "after idle {} expected {expect}", core(&q).avg);
        q.check_identities().unwrap();
    }

    /// Gaps, in arrivals, between successive drops at a constant average with p_b = 0.05
    /// (min_th 5, max_th 15, max_p 0.1, avg 10): Linux's spacing gives gaps uniform on
    /// 1..1/p_b = 1..20 (mean 10.5; a geometric gap, without count, would exceed 20 about a third
    /// of the time); the paper's Figure 2 (ns-2, ns-3) 1..19 (mean 10); ns-2's `wait` 20..39
    /// (mean 29.5).
    fn gaps(spacing: RedSpacing) -> Vec<u32> {
        let p = RedParams { min_th: 5.0, max_th: 15.0, w_q: 0.002, max_p: 0.1, gentle: true, byte_mode: false, mean_pkt_size: 1500, spacing };
        let mut c = RedCore::new(p, MBPS100);
        c.avg = 10.0;
        let mut rng = Rng::stream(7, StreamKind::Qdisc, 0);
        let (mut out, mut since) = (vec![], 0);
        for i in 0..400_000 {
            since += 1;
            if c.decide(1500, &mut rng) == Decision::Early && i > 100 {
                out.push(since);
            }
            if c.count == 0 {
                since = 0;
            }
        }
        out
    }

    fn check_uniform(g: &[u32], lo: u32, hi: u32) {
        assert_eq!((*g.iter().min().unwrap(), *g.iter().max().unwrap()), (lo, hi));
        let mean = g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64;
        let expect = (lo + hi) as f64 / 2.0;
        assert!((mean - expect).abs() < 0.1, "mean gap {mean}, expected {expect}");
        let share = 1.0 / (hi - lo + 1) as f64;
        for k in lo..=hi {
            let s = g.iter().filter(|&&x| x == k).count() as f64 / g.len() as f64;
            assert!((s - share).abs() < 0.1 * share, "gap {k}: share {s}, expected {share}");
        }
    }

    #[test]
    fn drops_are_spaced_uniformly_by_count() {
        check_uniform(&gaps(RedSpacing::Linux), 1, 20);
        check_uniform(&gaps(RedSpacing::Paper), 1, 19);
        check_uniform(&gaps(RedSpacing::Wait), 20, 39);
    }

    #[test]
    fn gentle_and_byte_mode_probabilities() {
        let p = RedParams { min_th: 5.0, max_th: 15.0, w_q: 0.002, max_p: 0.1, gentle: true, byte_mode: false, mean_pkt_size: 1500, spacing: RedSpacing::Linux };
        let mut c = RedCore::new(p, MBPS100);
        let mut rng = Rng::stream(1, StreamKind::Qdisc, 0);
        for (avg, pb) in [(4.0, 0.0), (5.0, 0.0), (10.0, 0.05), (15.0, 0.1), (22.5, 0.55), (29.9, 0.1 + 0.9 * 14.9 / 15.0)] {
            c.avg = avg;
            assert!((c.p_b(1500) - pb).abs() < 1e-12, "gentle p_b({avg}) = {}, expected {pb}", c.p_b(1500));
        }
        c.avg = 30.0;
        assert_eq!(c.decide(1500, &mut rng), Decision::Forced);
        c.p.gentle = false;
        c.avg = 15.0;
        assert_eq!(c.decide(1500, &mut rng), Decision::Forced);
        c.avg = 10.0;
        c.p.byte_mode = true;
        assert!((c.p_b(750) - 0.025).abs() < 1e-12 && (c.p_b(3000) - 0.1).abs() < 1e-12);
        c.avg = 4.0;
        assert_eq!(c.decide(1500, &mut rng), Decision::Accept);
        assert_eq!(c.count, -1);
    }

    /// With ecn: ECT arrivals are marked where others are dropped; above the marking range they
    /// are marked too unless harddrop.
    #[test]
    fn ecn_marks_instead_of_dropping() {
        for harddrop in [false, true] {
            // w_q = 1: the average is the instantaneous queue
            let cfg = RedConfig { min_th: 5.0, max_th: 15.0, w_q: 1.0, max_p: 0.1, gentle: false, ecn: true, harddrop, limit_pkts: 1000, ..Default::default() };
            let mut q = queue(cfg);
            let mut a = PacketArena::new();
            let mut dropped = vec![];
            let mut early_lost = 0;
            for i in 0..14u64 {
                // ECT and not-ECT alternate while the queue grows from 0 to 13
                let e = if i % 2 == 0 { Ecn::Ect0 } else { Ecn::NotEct };
                let id = pkt(&mut a, e);
                if !q.enqueue(id, Time::from_ns(i), &mut a, &mut dropped) {
                    assert_eq!(e, Ecn::NotEct, "an ECT packet was dropped in the early range");
                    early_lost += 1;
                }
            }
            let r = q.reasons();
            assert_eq!(r.drops[REASON_EARLY as usize], early_lost);
            // fill the queue past max_th with ECT packets
            let mut forced_drops = 0;
            for i in 0..10u64 {
                let id = pkt(&mut a, Ecn::Ect0);
                if !q.enqueue(id, Time::from_ns(100 + i), &mut a, &mut dropped) {
                    forced_drops += 1;
                }
            }
            let r = q.reasons();
            if harddrop {
                assert!(forced_drops > 0 && r.drops[REASON_FORCED as usize] == forced_drops);
            } else {
                assert_eq!(forced_drops, 0);
                assert!(r.marks[REASON_FORCED as usize] > 0);
            }
            assert!(r.marks[REASON_EARLY as usize] + r.marks[REASON_FORCED as usize] > 0);
            q.check_identities().unwrap();
        }
    }
}
