//! Blue: one drop/mark probability, raised on buffer overflow and lowered when the link goes
//! idle, each change at most once per `freeze_time`; arrivals are dropped or CE-marked with it.
//!
//! Source: Feng, Kandlur, Saha, Shin, "The BLUE active queue management algorithms", IEEE/ACM
//! ToN 10(4), 2002 (and U. Michigan CSE-TR-387-99, 1999), section 4 and its pseudocode:
//!
//! ```text
//! upon packet loss (or Q_len > L) event:      upon link idle event:
//!   if (now - last_update) > freeze_time        if (now - last_update) > freeze_time
//!     p_m = p_m + d1                              p_m = p_m - d2
//!     last_update = now                           last_update = now
//! ```
//!
//! Defaults are those of Feng's ns-1.1 code as the third-party ns-3 port carries them
//! (`BlueQueueDisc`: increment 0.0025, decrement 0.00025, hold time 100 ms), which is one of
//! the paper's experimental configurations. Neither Linux nor ns-3 mainline has Blue (Linux has
//! only SFB, `sfb.rs`).
//!
//! * Arrival: a full queue (`limit_pkts`) drops it (`overflow`) and is a loss event; with
//!   `threshold_pkts` = L set, an arrival that finds more than L packets queued is also an
//!   increase event. Otherwise the arrival is dropped, or CE-marked if `ecn` and ECN-capable,
//!   with probability p_m (`blue`).
//! * Link idle: a dequeue that leaves the queue empty (the link goes idle once that packet is
//!   sent) is a decrease event.
//! * p_m is kept in [0, 1].
//!
//! Deliberate deviations: the idle event is the dequeue that empties the queue (the engine never
//! asks an empty queue, so an idle period gives one decrease event, not one per freeze_time).
//! The first event always applies (no `last_update` before it). The paper's single
//! `last_update` is the default; `separate_freeze` gives the ns-1.1 code's separate hold times
//! for increases and decreases.

use super::law::fifo::Fifo;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Dur, Time};

crate::params! {
    /// Blue parameters; defaults from Feng's ns-1.1 code (via the ns-3 port).
    pub struct BlueConfig {
        /// Increase of p_m on a loss (or queue > L) event (the paper's d1, delta_1).
        d1: f64 = 0.0025, Ratio, range(> 0.0, <= 1.0), "Feng ns-1.1 Blue (ns-3 port BlueQueueDisc increment 0.0025); Feng et al. 2002 use 0.0025 and 0.02";
        /// Decrease of p_m on a link-idle event (the paper's d2, delta_2).
        d2: f64 = 0.00025, Ratio, range(>= 0.0, <= 1.0), "Feng ns-1.1 Blue (ns-3 port decrement 0.00025); Feng et al. 2002: d1 an order of magnitude above d2";
        /// Least time between two changes of p_m.
        freeze_time: Dur = Dur::from_ms(100), Time, range(>= Dur::ZERO), "Feng ns-1.1 Blue hold time 100 ms (ns-3 port iholdtime/dholdtime 0.1 s); Feng et al. 2002 use 10 and 100 ms";
        /// Queue length L whose excess is also an increase event (unset: buffer overflow only).
        threshold_pkts: Option<u32> = None, Packets, range(>= 1), "Feng et al. 2002 section 4: loss or Q_len > L; unset (loss only) as in ns-1.1";
        /// Keep separate hold times for increases and decreases (Feng's ns-1.1 code) instead of the paper's single last_update.
        separate_freeze: bool = false, Flag, range(), "Feng et al. 2002 pseudocode (one last_update); ns-1.1 keeps two";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "Feng et al. 2002 evaluate Blue with ECN; off here as in other disciplines unless asked";
        /// Hard limit: arrivals beyond it are dropped (and raise p_m).
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux txqueuelen 1000 (as red)";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_BLUE: u8 = 1;

#[derive(Debug)]
pub struct Blue {
    d1: f64,
    d2: f64,
    freeze_time: Dur,
    threshold_pkts: Option<u32>,
    separate_freeze: bool,
    ecn: bool,
    limit_pkts: u32,
    /// The marking probability p_m.
    pub p_mark: f64,
    /// Time of the last increase (and of the last change, unless `separate_freeze`).
    last_increase: Option<Time>,
    /// Time of the last decrease (and of the last change, unless `separate_freeze`).
    last_decrease: Option<Time>,
    fifo: Fifo,
    /// Increases and decreases applied (events within freeze_time of the last change excluded).
    increases: u64,
    decreases: u64,
}

impl Algorithm for Blue {
    type Config = BlueConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "blue",
        aliases: &[],
        summary: "Blue: drop/mark arrivals with a probability raised on overflow and lowered when the link idles, at most once per freeze_time",
        sources: &["Feng, Kandlur, Saha, Shin, IEEE/ACM ToN 10(4), 2002", "Feng, ns-1.1 Blue code (as ported to ns-3 by NITK)"],
    };
    fn new(cfg: &BlueConfig, _env: &QdiscEnv) -> Blue {
        Blue {
            d1: cfg.d1,
            d2: cfg.d2,
            freeze_time: cfg.freeze_time,
            threshold_pkts: cfg.threshold_pkts,
            separate_freeze: cfg.separate_freeze,
            ecn: cfg.ecn,
            limit_pkts: cfg.limit_pkts,
            p_mark: 0.0,
            last_increase: None,
            last_decrease: None,
            fifo: Fifo::new(cfg.limit_pkts),
            increases: 0,
            decreases: 0,
        }
    }
}

impl Blue {
    /// The last change that gates an event of this kind (`increase` or not).
    fn last_update(&self, increase: bool) -> Option<Time> {
        if self.separate_freeze {
            if increase {
                self.last_increase
            } else {
                self.last_decrease
            }
        } else {
            self.last_increase.max(self.last_decrease)
        }
    }

    /// Whether more than freeze_time has passed since the last change gating this event.
    fn unfrozen(&self, now: Time, increase: bool) -> bool {
        self.last_update(increase).is_none_or(|t| now.since(t) > self.freeze_time)
    }

    /// Loss (or Q_len > L) event.
    fn on_congestion(&mut self, now: Time) {
        if self.unfrozen(now, true) {
            self.p_mark = (self.p_mark + self.d1).min(1.0);
            self.last_increase = Some(now);
            self.increases += 1;
        }
    }

    /// Link idle event.
    fn on_idle(&mut self, now: Time) {
        if self.unfrozen(now, false) {
            self.p_mark = (self.p_mark - self.d2).max(0.0);
            self.last_decrease = Some(now);
            self.decreases += 1;
        }
    }
}

impl QueueDisc for Blue {
    const REASONS: &'static [Reason] = &[OVERFLOW, Reason { name: "blue", doc: "Blue's probabilistic drop (or CE mark) with p_mark" }];
    const STATS: &'static [Field] = &[
        Field { name: "increases", unit: FieldUnit::Count, doc: "p_mark increases applied (loss or queue > L events outside freeze_time)" },
        Field { name: "decreases", unit: FieldUnit::Count, doc: "p_mark decreases applied (link-idle events outside freeze_time)" },
    ];
    const STATE: &'static [Field] = &[Field { name: "p_mark", unit: FieldUnit::Ratio, doc: "Blue's drop/mark probability" }];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let now = ctx.now;
        let q = self.fifo.len_pkts();
        if q >= self.limit_pkts {
            self.on_congestion(now);
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        if self.threshold_pkts.is_some_and(|l| q > l) {
            self.on_congestion(now);
        }
        if ctx.rng().chance(self.p_mark) && !(self.ecn && ctx.mark(id, REASON_BLUE)) {
            return Verdict::Dropped(REASON_BLUE);
        }
        self.fifo.push(id, ctx.size(id));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        if self.fifo.is_empty() {
            self.on_idle(ctx.now);
        }
        Some(id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.increases, self.decreases]);
    }

    fn state(&self, out: &mut [f64]) {
        out[0] = self.p_mark;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    fn queue(cfg: BlueConfig) -> Queue {
        Queue::new(&QdiscConfig::Blue(cfg), &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(4, StreamKind::Qdisc, 0))
    }

    fn blue(q: &Queue) -> &Blue {
        match &q.qdisc {
            crate::aqm::Qdisc::Blue(b) => b,
            _ => unreachable!(),
        }
    }

    fn pkt(a: &mut PacketArena, ecn: Ecn) -> PacketId {
        a.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() })
    }

    fn ms(x: u64) -> Time {
        Time::from_ms(x)
    }

    /// Offer one ECN-capable packet at `t` (with `ecn` on, Blue marks instead of dropping, so
    /// only overflow drops it); free it if dropped.
    fn offer(q: &mut Queue, a: &mut PacketArena, t: Time) -> bool {
        let id = pkt(a, Ecn::Ect0);
        let ok = q.enqueue(id, t, a, &mut vec![]);
        if !ok {
            a.free(id);
        }
        ok
    }

    /// Feng et al. 2002, section 4: each overflow raises p_m by d1, but not within freeze_time
    /// (100 ms) of the last change; each link-idle event (a dequeue emptying the queue) lowers it
    /// by d2 under the same rule; with the paper's single last_update an increase also freezes
    /// the next decrease.
    #[test]
    fn p_mark_steps_by_d1_on_overflow_and_d2_on_idle_at_most_once_per_freeze_time() {
        let cfg = BlueConfig { d1: 0.02, d2: 0.002, limit_pkts: 2, ecn: true, ..Default::default() };
        let mut q = queue(cfg);
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        assert!(offer(&mut q, &mut a, ms(0)) && offer(&mut q, &mut a, ms(0)));
        // overflows at 0, 50, 100 ms: only the first applies (100 ms is not more than freeze_time)
        for t in [0, 50, 100] {
            assert!(!offer(&mut q, &mut a, ms(t)));
        }
        assert!((blue(&q).p_mark - 0.02).abs() < 1e-15);
        // 101 ms: applies; 150: frozen; 202: applies
        for t in [101, 150, 202] {
            assert!(!offer(&mut q, &mut a, ms(t)));
        }
        assert!((blue(&q).p_mark - 0.06).abs() < 1e-12, "p_m {}", blue(&q).p_mark);
        assert_eq!(q.reasons().drops[REASON_OVERFLOW as usize], 6);
        // the queue empties at 250 ms, within 100 ms of the increase at 202: frozen
        while let Some(id) = q.dequeue(ms(250), &mut a, &mut dropped) {
            a.free(id);
        }
        assert!((blue(&q).p_mark - 0.06).abs() < 1e-12);
        // idle events 101 ms apart: each takes d2; one 50 ms after does not
        let mut t = 303;
        for k in 1..=5 {
            for dt in [0, 50] {
                assert!(offer(&mut q, &mut a, ms(t + dt)));
                let id = q.dequeue(ms(t + dt), &mut a, &mut dropped).unwrap();
                a.free(id);
            }
            let expect = 0.06 - 0.002 * k as f64;
            assert!((blue(&q).p_mark - expect).abs() < 1e-12, "after {k} idle events p_m {}", blue(&q).p_mark);
            t += 101;
        }
        // a dequeue that leaves packets queued is no idle event
        assert!(offer(&mut q, &mut a, ms(t)) && offer(&mut q, &mut a, ms(t)));
        let id = q.dequeue(ms(t), &mut a, &mut dropped).unwrap();
        a.free(id);
        assert!((blue(&q).p_mark - 0.05).abs() < 1e-12);
        assert_eq!((blue(&q).increases, blue(&q).decreases), (3, 5));
        q.check_identities().unwrap();
    }

    /// p_m stays in [0, 1]; with `separate_freeze` (ns-1.1) an increase does not freeze a
    /// decrease; with the queue threshold L, an arrival finding more than L packets queued is an
    /// increase event without any loss.
    #[test]
    fn clamps_separate_freeze_and_threshold() {
        let mut b = Blue::new(&BlueConfig { d1: 0.6, d2: 0.7, ..Default::default() }, &QdiscEnv { link_rate: Rate::from_mbps(100) });
        b.on_congestion(ms(0));
        b.on_congestion(ms(200));
        assert_eq!(b.p_mark, 1.0);
        b.on_idle(ms(250)); // frozen: one last_update
        assert_eq!(b.p_mark, 1.0);
        b.on_idle(ms(301));
        b.on_idle(ms(402));
        assert_eq!(b.p_mark, 0.0);

        let mut s = Blue::new(&BlueConfig { d1: 0.1, d2: 0.01, separate_freeze: true, ..Default::default() }, &QdiscEnv { link_rate: Rate::from_mbps(100) });
        s.on_congestion(ms(0));
        s.on_idle(ms(10)); // its own hold time: applies
        s.on_congestion(ms(50)); // frozen
        s.on_idle(ms(60)); // frozen
        assert!((s.p_mark - 0.09).abs() < 1e-15);

        let mut q = queue(BlueConfig { d1: 0.01, threshold_pkts: Some(3), ecn: true, ..Default::default() });
        let mut a = PacketArena::new();
        for i in 0..5u64 {
            assert!(offer(&mut q, &mut a, ms(200 * i)));
        }
        // arrivals found 0, 1, 2, 3, 4 queued: only the last one found more than 3
        assert!((blue(&q).p_mark - 0.01).abs() < 1e-15);
        assert_eq!(q.reasons().drops.iter().sum::<u64>(), 0);
    }

    /// Arrivals are dropped with probability p_m (no ECN), or CE-marked with it (ECN-capable,
    /// `ecn` on): at p_m = 0.3, 0.3 of 100,000 arrivals within 4 standard deviations (0.0058).
    #[test]
    fn arrivals_are_dropped_or_marked_with_p_mark() {
        for ecn in [false, true] {
            let mut q = queue(BlueConfig { ecn, limit_pkts: 1_000_000, ..Default::default() });
            if let crate::aqm::Qdisc::Blue(b) = &mut q.qdisc {
                b.p_mark = 0.3;
            }
            let mut a = PacketArena::new();
            let n = 100_000;
            for i in 0..n {
                let id = pkt(&mut a, if ecn { Ecn::Ect0 } else { Ecn::NotEct });
                if q.enqueue(id, Time::from_ns(i), &mut a, &mut vec![]) {
                    let id = q.dequeue(Time::from_ns(i), &mut a, &mut vec![]).unwrap();
                    a.free(id);
                } else {
                    a.free(id);
                }
            }
            let r = q.reasons();
            let k = if ecn { r.marks[REASON_BLUE as usize] } else { r.drops[REASON_BLUE as usize] };
            let frac = k as f64 / n as f64;
            eprintln!("ecn {ecn}: fraction {frac:.4} at p_m 0.3");
            assert!((frac - 0.3).abs() < 4.0 * (0.3f64 * 0.7 / n as f64).sqrt(), "ecn {ecn}: {frac}");
            q.check_identities().unwrap();
        }
    }
}
