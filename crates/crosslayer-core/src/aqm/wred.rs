//! WRED (Weighted RED): RED with a profile (min_th, max_p) per traffic class, the class taken from
//! the packet's DiffServ codepoint, all classes judged against one average of the whole queue
//! (Cisco) or each against the average of its own backlog (Linux GRED's default).
//!
//! Source: Cisco IOS "Congestion Avoidance Overview" / "Configuring Weighted Random Early
//! Detection" (WRED: per-IP-precedence or per-DSCP min threshold, max threshold and mark
//! probability denominator; one average queue, exponential weighting constant 9, i.e.
//! w_q = 2^-9; above max_th every packet is dropped; default precedence profiles min_th =
//! 20, 22, 24, 26, 28, 31, 33, 35 for precedences 0-7, max_th 40, denominator 10); Linux
//! `net/sched/sch_gred.c` (Generic RED: up to 16 virtual queues, each a RED profile, with its own
//! average, or in RIO mode a shared one) read for behaviour (not copied). The averaging and the
//! decision are RED's `RedCore` (`red.rs`), one per class for its `count`, fed the shared average.
//!
//! * Class: with `classify = "precedence"` (Cisco's default) the IP precedence, `dscp >> 3`
//!   (0-7); with `"drop_precedence"` the AF drop precedence (RFC 2597: AFxy, y = 1, 2, 3 -> class
//!   1, 2, 3; every other codepoint class 0).
//! * Arrival: the average is updated (RED's EWMA with the idle correction) with the whole queue
//!   (`average = "shared"`) or with the class's own backlog (`"per_class"`); the class's RED
//!   decides with its min_th, the common max_th and its max_p (not gentle, as Cisco: above max_th
//!   every arrival of the class is dropped); ECN marks instead of dropping when `ecn`.
//!
//! Deliberate deviations: thresholds in packets; the per-class max_th is common to all classes
//! (Cisco's defaults share it; both Cisco and GRED allow one per class); GRED's RIO mode (the
//! average over this and the higher-priority classes) is not offered; drop spacing is Linux's
//! (`RedSpacing::Linux`, as GRED's `red_action`).

use super::law::fifo::Fifo;
use super::law::red::{Decision, RedCore, RedParams, RedSpacing};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::Time;

crate::choice! {
    /// How a packet's class is found from its DSCP.
    pub enum WredClassify {
        /// IP precedence: dscp >> 3 (classes 0-7); Cisco's default WRED.
        Precedence = "precedence",
        /// AF drop precedence (RFC 2597): AFx1, AFx2, AFx3 -> classes 1, 2, 3; any other codepoint 0.
        DropPrecedence = "drop_precedence",
    }
}

crate::choice! {
    /// Which queue length the average follows.
    pub enum WredAverage {
        /// One average of the whole queue for every class (Cisco WRED).
        Shared = "shared",
        /// Each class's average of its own backlog (Linux GRED without RIO).
        PerClass = "per_class",
    }
}

crate::params! {
    /// WRED parameters; defaults are Cisco's IP-precedence WRED profile.
    pub struct WredConfig {
        /// How the class is derived from the DSCP.
        classify: WredClassify = WredClassify::Precedence, Choice, range(), "Cisco random-detect (precedence-based by default); dscp-based: random-detect dscp-based";
        /// Shared average (Cisco) or one per class (GRED).
        average: WredAverage = WredAverage::Shared, Choice, range(), "Cisco: the average queue of the interface; Linux GRED: per virtual queue unless RIO/grio";
        /// Average queue (packets) at which every class's probability reaches its max_p; above it all arrivals are dropped.
        max_th: f64 = 40.0, Number("pkts"), range(> 0.0), "Cisco default max threshold 40 (all precedences)";
        /// Weight of the newest queue sample in the average.
        w_q: f64 = 0.001953125, Ratio, range(> 0.0, <= 1.0), "Cisco exponential-weighting-constant 9: 2^-9";
        /// Class 0 min_th (precedence 0 / best effort), packets.
        class0_min_th: f64 = 20.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 0";
        class1_min_th: f64 = 22.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 1";
        class2_min_th: f64 = 24.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 2";
        class3_min_th: f64 = 26.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 3";
        class4_min_th: f64 = 28.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 4";
        class5_min_th: f64 = 31.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 5";
        class6_min_th: f64 = 33.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 6";
        class7_min_th: f64 = 35.0, Number("pkts"), range(>= 0.0), "Cisco default, precedence 7";
        /// Class 0 drop probability at max_th (1 / mark probability denominator).
        class0_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        class1_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        class2_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        class3_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        class4_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        class5_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        class6_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        class7_max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Cisco mark-probability-denominator 10";
        /// CE-mark ECN-capable packets instead of early-dropping them.
        ecn: bool = false, Flag, range(), "Cisco random-detect ecn off by default";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux txqueuelen 1000";
    }
    check = WredConfig::check;
}

impl WredConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        for (i, m) in self.min_ths().iter().enumerate() {
            if *m >= self.max_th {
                out.push(Problem::new(format!("class{i}_min_th"), format!("must be below max_th ({})", crate::params::num(self.max_th))));
            }
        }
    }

    fn min_ths(&self) -> [f64; CLASSES] {
        [
            self.class0_min_th,
            self.class1_min_th,
            self.class2_min_th,
            self.class3_min_th,
            self.class4_min_th,
            self.class5_min_th,
            self.class6_min_th,
            self.class7_min_th,
        ]
    }

    fn max_ps(&self) -> [f64; CLASSES] {
        [
            self.class0_max_p,
            self.class1_max_p,
            self.class2_max_p,
            self.class3_max_p,
            self.class4_max_p,
            self.class5_max_p,
            self.class6_max_p,
            self.class7_max_p,
        ]
    }
}

/// Number of classes.
pub const CLASSES: usize = 8;

const REASON_OVERFLOW: u8 = 0;
const REASON_EARLY: u8 = 1;
const REASON_FORCED: u8 = 2;

/// The class of a DSCP.
pub fn class_of(dscp: u8, how: WredClassify) -> usize {
    match how {
        WredClassify::Precedence => (dscp >> 3) as usize & 7,
        WredClassify::DropPrecedence => {
            // AFxy = 8x + 2y, x in 1..=4, y in 1..=3
            let (x, y) = (dscp >> 3, (dscp >> 1) & 3);
            if (1..=4).contains(&x) && (1..=3).contains(&y) && dscp & 1 == 0 {
                y as usize
            } else {
                0
            }
        }
    }
}

#[derive(Debug)]
pub struct Wred {
    classify: WredClassify,
    average: WredAverage,
    ecn: bool,
    limit_pkts: u32,
    /// The shared average (its params are class 0's; only `update_avg` and `on_empty` are used).
    shared: RedCore,
    /// Each class's RED: its profile and `count` (and, per class, its own average).
    classes: Vec<RedCore>,
    /// Packets and bytes queued per class.
    class_pkts: [u32; CLASSES],
    class_bytes: [u64; CLASSES],
    fifo: Fifo,
    /// Early and forced drops (or marks) per class.
    early: [u64; CLASSES],
}

impl Algorithm for Wred {
    type Config = WredConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "wred",
        aliases: &["gred"],
        summary: "WRED: RED with a profile per DSCP class (IP precedence or AF drop precedence) against one shared average queue (Cisco) or per-class averages (GRED)",
        sources: &["Cisco IOS WRED (Congestion Avoidance Overview)", "Linux net/sched/sch_gred.c", "RFC 2597 (AF drop precedence)"],
    };
    fn new(cfg: &WredConfig, env: &QdiscEnv) -> Wred {
        let (mins, maxps) = (cfg.min_ths(), cfg.max_ps());
        let params = |i: usize| RedParams {
            min_th: mins[i],
            max_th: cfg.max_th,
            w_q: cfg.w_q,
            max_p: maxps[i],
            gentle: false,
            byte_mode: false,
            mean_pkt_size: 1500,
            spacing: RedSpacing::Linux,
        };
        Wred {
            classify: cfg.classify,
            average: cfg.average,
            ecn: cfg.ecn,
            limit_pkts: cfg.limit_pkts,
            shared: RedCore::new(params(0), env.link_rate),
            classes: (0..CLASSES).map(|i| RedCore::new(params(i), env.link_rate)).collect(),
            class_pkts: [0; CLASSES],
            class_bytes: [0; CLASSES],
            fifo: Fifo::new(cfg.limit_pkts),
            early: [0; CLASSES],
        }
    }
}

impl Wred {
    /// The average a class is judged against.
    pub fn avg(&self, class: usize) -> f64 {
        match self.average {
            WredAverage::Shared => self.shared.avg,
            WredAverage::PerClass => self.classes[class].avg,
        }
    }

    /// The class RED's drop probability (before count spacing) at the average it sees.
    pub fn p_b(&self, class: usize) -> f64 {
        let mut c = self.classes[class].clone();
        c.avg = self.avg(class);
        c.p_b(1500)
    }

    fn update(&mut self, now: Time, class: usize) {
        match self.average {
            WredAverage::Shared => {
                self.shared.update_avg(now, self.fifo.len_pkts(), self.fifo.len_bytes());
                self.classes[class].avg = self.shared.avg;
            }
            WredAverage::PerClass => self.classes[class].update_avg(now, self.class_pkts[class], self.class_bytes[class]),
        }
    }
}

impl QueueDisc for Wred {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "early", doc: "the class's RED probabilistic drop (or CE mark): min_th <= avg < max_th" },
        Reason { name: "forced", doc: "the average at or above max_th: every arrival dropped" },
    ];
    const STATS: &'static [Field] = &[
        Field { name: "early_class0", unit: FieldUnit::Count, doc: "early and forced drops (or marks), class 0" },
        Field { name: "early_class1", unit: FieldUnit::Count, doc: "class 1" },
        Field { name: "early_class2", unit: FieldUnit::Count, doc: "class 2" },
        Field { name: "early_class3", unit: FieldUnit::Count, doc: "class 3" },
        Field { name: "early_class4", unit: FieldUnit::Count, doc: "class 4" },
        Field { name: "early_class5", unit: FieldUnit::Count, doc: "class 5" },
        Field { name: "early_class6", unit: FieldUnit::Count, doc: "class 6" },
        Field { name: "early_class7", unit: FieldUnit::Count, doc: "class 7" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "avg_pkts", unit: FieldUnit::Pkts, doc: "the shared average queue (shared mode; 0 per class)" },
        Field { name: "avg_class0_pkts", unit: FieldUnit::Pkts, doc: "the average class 0 is judged against" },
        Field { name: "avg_class1_pkts", unit: FieldUnit::Pkts, doc: "the average class 1 is judged against" },
        Field { name: "p_b_class0", unit: FieldUnit::Ratio, doc: "class 0's drop probability at its average, before count spacing" },
        Field { name: "p_b_class1", unit: FieldUnit::Ratio, doc: "class 1's drop probability at its average, before count spacing" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let (dscp, size) = {
            let p = ctx.arena.get(id);
            (p.dscp, p.size_bytes)
        };
        let class = class_of(dscp, self.classify);
        self.update(ctx.now, class);
        let decision = self.classes[class].decide(size, ctx.rng());
        match decision {
            Decision::Accept => {}
            Decision::Early | Decision::Forced => {
                self.early[class] += 1;
                let reason = if decision == Decision::Early { REASON_EARLY } else { REASON_FORCED };
                // Cisco's ECN WRED marks in the random range only; above max_th it drops
                if !(self.ecn && decision == Decision::Early && ctx.mark(id, reason)) {
                    match self.average {
                        WredAverage::Shared => self.shared.still_idle(ctx.now, self.fifo.len_pkts()),
                        WredAverage::PerClass => self.classes[class].still_idle(ctx.now, self.class_pkts[class]),
                    }
                    return Verdict::Dropped(reason);
                }
            }
        }
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.fifo.push(id, size);
        self.class_pkts[class] += 1;
        self.class_bytes[class] += size as u64;
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        let (dscp, size) = {
            let p = ctx.arena.get(id);
            (p.dscp, p.size_bytes)
        };
        let class = class_of(dscp, self.classify);
        self.class_pkts[class] -= 1;
        self.class_bytes[class] -= size as u64;
        match self.average {
            WredAverage::Shared if self.fifo.is_empty() => self.shared.on_empty(ctx.now, size),
            WredAverage::PerClass if self.class_pkts[class] == 0 => self.classes[class].on_empty(ctx.now, size),
            _ => {}
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
        out.copy_from_slice(&self.early);
    }
    fn state(&self, out: &mut [f64]) {
        let shared = if self.average == WredAverage::Shared { self.shared.avg } else { 0.0 };
        out.copy_from_slice(&[shared, self.avg(0), self.avg(1), self.p_b(0), self.p_b(1)]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    fn queue(cfg: WredConfig) -> Queue {
        Queue::new(&QdiscConfig::Wred(cfg), &QdiscEnv { link_rate: Rate::from_bps(100_000_000) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn wred(q: &mut Queue) -> &mut Wred {
        match &mut q.qdisc {
            Qdisc::Wred(w) => w,
            _ => unreachable!(),
        }
    }

    fn pkt(a: &mut PacketArena, dscp: u8) -> PacketId {
        a.alloc(Packet { dscp, size_bytes: 1500, ..Default::default() })
    }

    /// DSCP -> class: IP precedence (dscp >> 3), or the AF drop precedence of RFC 2597.
    #[test]
    fn classes_follow_precedence_or_af_drop_precedence() {
        use WredClassify::*;
        for (dscp, prec, dp) in [(0u8, 0, 0), (8, 1, 0), (10, 1, 1), (12, 1, 2), (14, 1, 3), (18, 2, 1), (22, 2, 3), (34, 4, 1), (38, 4, 3), (46, 5, 0), (48, 6, 0), (56, 7, 0)] {
            assert_eq!(class_of(dscp, Precedence), prec, "dscp {dscp}");
            assert_eq!(class_of(dscp, DropPrecedence), dp, "dscp {dscp}");
        }
    }

    /// One shared average, every class judged against it with its own profile: after arrivals of
    /// classes 0 and 5 alternately with the queue held at up to 30 packets the shared average is the
    /// EWMA of the whole queue, and each class's probability is RED's
    /// max_p (avg - min_th_i) / (max_th - min_th_i), 0 below its min_th (Cisco's precedence
    /// defaults 20-35, max_th 40, max_p 0.1).
    #[test]
    fn each_class_follows_red_with_the_shared_average() {
        let mut q = queue(WredConfig { w_q: 0.01, limit_pkts: 10_000, ..Default::default() });
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        // fill to 30 with w_q so that the average is still small (no drops below min_th 20)
        let w = 0.01;
        let mut expect = 0.0f64;
        let mut t = 0u64;
        while q.len_pkts() < 30 {
            let before = q.len_pkts() as f64;
            assert!(q.enqueue(pkt(&mut a, 0), Time::from_ns(t), &mut a, &mut dropped));
            expect = (1.0 - w) * expect + w * before;
            t += 1;
        }
        for k in 0..150u32 {
            let dscp = if k % 2 == 0 { 0 } else { 40 }; // precedence 0 and 5
            let id = pkt(&mut a, dscp);
            expect = (1.0 - w) * expect + w * q.len_pkts() as f64;
            if q.enqueue(id, Time::from_ns(t), &mut a, &mut dropped) {
                if q.len_pkts() > 30 {
                    let out = q.dequeue(Time::from_ns(t), &mut a, &mut dropped).unwrap();
                    a.free(out);
                }
            } else {
                a.free(id);
            }
            t += 1;
        }
        let wr = wred(&mut q);
        let avg = wr.avg(0);
        assert!((avg - expect).abs() < 1e-9, "avg {avg} expected {expect}");
        let mins = [20.0, 22.0, 24.0, 26.0, 28.0, 31.0, 33.0, 35.0];
        for (i, m) in mins.iter().enumerate() {
            assert_eq!(wr.avg(i), avg, "class {i} sees the shared average");
            let p = if avg < *m { 0.0 } else { 0.1 * (avg - m) / (40.0 - m) };
            assert!((wr.p_b(i) - p).abs() < 1e-12, "class {i}: {} vs {p}", wr.p_b(i));
        }
        eprintln!("avg {avg:.3}: p_b {:?}", (0..8).map(|i| wr.p_b(i)).collect::<Vec<_>>());
        q.check_identities().unwrap();
    }

    /// Drops per class at a fixed average of 34 packets (w_q = 1e-12 keeps it there): with
    /// Linux's spacing the gaps are uniform on 1..1/p_b, so a class drops a fraction
    /// 2 p_b / (1 + p_b) of its arrivals: class 0 (p_b 0.07) 13.1 %, class 3 (0.0571) 10.8 %,
    /// class 7 (min_th 35, above the average) nothing.
    #[test]
    fn drop_fractions_follow_each_class_profile() {
        let mut q = queue(WredConfig { w_q: 1e-12, limit_pkts: 10_000, ..Default::default() });
        wred(&mut q).shared.avg = 34.0;
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut n = [[0u64; 2]; 8];
        for k in 0..300_000u64 {
            let class = [0usize, 3, 7][(k % 3) as usize];
            let id = pkt(&mut a, (class as u8) << 3);
            n[class][0] += 1;
            if q.enqueue(id, Time::from_ns(k), &mut a, &mut dropped) {
                if q.len_pkts() > 34 {
                    let out = q.dequeue(Time::from_ns(k), &mut a, &mut dropped).unwrap();
                    a.free(out);
                }
            } else {
                n[class][1] += 1;
                a.free(id);
            }
        }
        for (class, pb) in [(0usize, 0.07), (3, 0.1 * 8.0 / 14.0)] {
            let got = n[class][1] as f64 / n[class][0] as f64;
            let expect = 2.0 * pb / (1.0 + pb);
            eprintln!("class {class}: drop fraction {got:.4} (expected {expect:.4})");
            assert!((got / expect - 1.0).abs() < 0.05, "class {class}: {got} vs {expect}");
        }
        assert_eq!(n[7][1], 0);
        q.check_identities().unwrap();
    }

    /// Per-class averages (GRED): a backlog of class 1 raises class 1's average only; with the
    /// shared average (Cisco) class 0 sees it too.
    #[test]
    fn per_class_averages_follow_their_own_backlog() {
        for average in [WredAverage::Shared, WredAverage::PerClass] {
            let mut q = queue(WredConfig { average, w_q: 1.0, class1_min_th: 39.0, limit_pkts: 10_000, ..Default::default() });
            let mut a = PacketArena::new();
            let mut dropped = vec![];
            for t in 0..30u64 {
                assert!(q.enqueue(pkt(&mut a, 8), Time::from_ns(t), &mut a, &mut dropped));
            }
            let w = wred(&mut q);
            assert_eq!(w.avg(1), 29.0, "{average:?}: the 30th arrival found 29 of its class");
            let class0 = if average == WredAverage::Shared { 29.0 } else { 0.0 };
            assert_eq!(w.avg(0), class0, "{average:?}");
        }
    }
}
