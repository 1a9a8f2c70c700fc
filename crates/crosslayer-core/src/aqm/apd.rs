//! Active Packet Dropping (APD): RED whose drop probability is `n` times larger for the most
//! bandwidth-consuming connection, given (static method) or estimated (dynamic method).
//!
//! Source: Akiyama, Kozu, Yamaguchi, "Active packet dropping for improving performance fairness
//! among modern TCPs", APNOMS 2014 (DOI 10.1109/APNOMS.2014.6996594), as Hanai, Yamaguchi,
//! Kobayashi (seed 003) section II.E and its Fig. 3 describe it: "Both of these methods are based
//! on RED. [...] The static method assumes that the most bandwidth-consuming connection is given
//! for a router. The router drops packets in the connection preferentially using the probability
//! in Fig. 3. The probability is n times greater than the standard RED. The dynamic method does
//! not assume that the most bandwidth-consuming connection is given. The router monitors traffic
//! and estimates the most consuming connection." The APNOMS paper itself was not available; its
//! values of n and its estimation rule are unknown here.
//!
//! * RED as `red.rs` (`RedCore`: average, idle correction, count spacing, gentle, ECN), except
//!   that for an arrival of the heaviest connection RED's p_b is multiplied by `n` (capped at
//!   1): `p_heavy = min(1, n p_b)`, Fig. 3's curve. Other arrivals see RED's p_b. Above the
//!   marking range every arrival is dropped, as in RED.
//! * The count spacing is kept per class: the heaviest connection's arrivals and the others'
//!   each have their own `count` (two `RedCore`s that see the same arrivals and so hold the same
//!   average), so that each class's drops are spaced by its own probability and the heavy
//!   connection is dropped about n times as often per packet. (One shared count would hand
//!   nearly every drop to the heavy connection, whose threshold it crosses first.)
//! * The heaviest connection: the connection of `heavy_flow` (static), or the most frequent
//!   connection in a sampled history of arrivals (dynamic; `heavy_hitter.rs`, the rule of seed
//!   003's modified CoDel, shared).
//!
//! Deliberate choices where the sources are silent: the per-class count above; the dynamic
//! estimation rule is seed 003's (rec_int, hist_len, stat_int);
//! connections are address pairs (seed 003's implementation: MAC addresses) or flows;
//! `n` = 2 is our default (the APNOMS values are not known here). Packet mode only (no byte
//! mode).

use super::law::fifo::Fifo;
use super::law::heavy_hitter::{ConnKey, Heaviest, HeavyMode, HEAVY_STATE};
use super::law::red::{check_thresholds, Decision, RedCore, RED_REASONS};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::red_config! {
    /// Active Packet Dropping parameters: RED's (Floyd's recommended defaults, as `red`) and the
    /// method's.
    pub struct ApdConfig {
        gentle = true, "as red: Floyd 2000";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "as red: Linux txqueuelen 1000";
        /// The heaviest connection's drop probability is n times RED's (capped at 1).
        n: f64 = 2.0, Ratio, range(>= 1.0), "Akiyama, Kozu, Yamaguchi, APNOMS 2014 (via Hanai et al. section II.E, Fig. 3): n times RED's probability; value not known here (ours)";
        /// "dynamic": estimate the heaviest connection (rec_int, hist_len, stat_int); "static": it is the connection of heavy_flow.
        mode: HeavyMode = HeavyMode::Dynamic, Choice, range(), "Hanai et al. section II.E: static and dynamic methods of APD";
        /// Static mode: the flow (index in the scenario's flow list) whose connection is the heaviest.
        heavy_flow: Option<u32> = None, Count, range(), "Hanai et al. section II.E: given to the router";
        /// "pair": a connection is a (sender, receiver) node pair; "flow": a flow (5-tuple).
        key: ConnKey = ConnKey::Pair, Choice, range(), "Hanai et al. section IV.B (their CoDel implementation: MAC address pairs)";
        /// Record the connection of one arrival in rec_int (dynamic mode).
        rec_int: u32 = 10, Count, range(>= 1), "the estimation of Hanai et al. section IV.A (values ours, as fair_codel)";
        /// Records kept in the history (dynamic mode).
        hist_len: u32 = 1000, Count, range(>= 1, <= 1000000), "the estimation of Hanai et al. section IV.A (values ours, as fair_codel)";
        /// Recompute the heaviest connection every stat_int arrivals (dynamic mode).
        stat_int: u32 = 1000, Count, range(>= 1), "the estimation of Hanai et al. section IV.A (values ours, as fair_codel)";
    }
    check = ApdConfig::check;
}

impl ApdConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        check_thresholds(self.min_th, self.max_th, out);
        if self.mode == HeavyMode::Static && self.heavy_flow.is_none() {
            out.push(Problem::new("heavy_flow", "static mode needs the heaviest connection: give the index of one of its flows"));
        }
        crate::aqm::law::heavy_hitter::check_cost(self.hist_len, self.stat_int, out);
    }
}

/// `REASONS` indices: RED's three, then the heaviest connection's early drops.
const REASON_OVERFLOW: u8 = 0;
const REASON_EARLY: u8 = 1;
const REASON_FORCED: u8 = 2;
pub const REASON_EARLY_HEAVY: u8 = 3;

#[derive(Debug)]
pub struct Apd {
    /// RED for the other connections' arrivals (its count counts their arrivals).
    light: RedCore,
    /// RED for the heaviest connection's arrivals, p_b scaled by n (same average: both see every
    /// arrival; its own count).
    heavy: RedCore,
    n: f64,
    ecn: bool,
    harddrop: bool,
    limit_pkts: u32,
    heaviest: Heaviest,
    fifo: Fifo,
}

impl Apd {
    pub fn core(&self) -> &RedCore {
        &self.light
    }
    pub fn heaviest(&self) -> &Heaviest {
        &self.heaviest
    }
}

impl Algorithm for Apd {
    type Config = ApdConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "apd",
        aliases: &["active_packet_dropping"],
        summary: "Active Packet Dropping: RED with n times the drop probability for the heaviest connection (given, or estimated from sampled arrivals)",
        sources: &[
            "Akiyama, Kozu, Yamaguchi, Active packet dropping for improving performance fairness among modern TCPs, APNOMS 2014",
            "Hanai, Yamaguchi, Kobayashi, Modified Controlling Queue Delay for TCP Fairness Improvement, section II.E",
            "Floyd & Jacobson, IEEE/ACM ToN 1(4), 1993",
        ],
    };
    fn new(cfg: &ApdConfig, env: &QdiscEnv) -> Apd {
        let p = cfg.red_params(false);
        Apd {
            light: RedCore::new(p, env.link_rate),
            heavy: RedCore::new(p, env.link_rate),
            n: cfg.n,
            ecn: cfg.ecn,
            harddrop: cfg.harddrop,
            limit_pkts: cfg.limit_pkts,
            heaviest: Heaviest::new(cfg.key, cfg.mode, cfg.heavy_flow, cfg.rec_int, cfg.hist_len, cfg.stat_int),
            fifo: Fifo::new(cfg.limit_pkts),
        }
    }
}

impl QueueDisc for Apd {
    const REASONS: &'static [Reason] = &[
        RED_REASONS[0],
        RED_REASONS[1],
        RED_REASONS[2],
        Reason { name: "early_heavy", doc: "RED's probabilistic drop (or CE mark) of a packet of the heaviest connection, at n times RED's probability" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "avg_pkts", unit: FieldUnit::Pkts, doc: "RED's average queue length" },
        Field { name: "count", unit: FieldUnit::Count, doc: "other connections' arrivals since their last drop or mark (-1 below min_th)" },
        Field { name: "count_heavy", unit: FieldUnit::Count, doc: "the heaviest connection's arrivals since its last drop or mark (-1 below min_th)" },
        Field { name: "p_b", unit: FieldUnit::Ratio, doc: "RED's drop probability, before count spacing, of the last other arrival in the marking range" },
        HEAVY_STATE[0],
        HEAVY_STATE[1],
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let pkt = ctx.arena.get(id);
        let size = pkt.size_bytes;
        self.heaviest.on_arrival(pkt);
        let is_heavy = self.heaviest.is_heavy(pkt);
        let (q_pkts, now) = (self.fifo.len_pkts(), ctx.now);
        self.light.update_avg(now, q_pkts, self.fifo.len_bytes());
        self.heavy.update_avg(now, q_pkts, self.fifo.len_bytes());
        debug_assert_eq!(self.light.avg, self.heavy.avg);
        let (decision, early) = if is_heavy {
            (self.heavy.decide_scaled(size, self.n, ctx.rng()), REASON_EARLY_HEAVY)
        } else {
            (self.light.decide(size, ctx.rng()), REASON_EARLY)
        };
        match decision {
            Decision::Accept => {}
            Decision::Early => {
                if !(self.ecn && ctx.mark(id, early)) {
                    self.light.still_idle(now, q_pkts);
                    self.heavy.still_idle(now, q_pkts);
                    return Verdict::Dropped(early);
                }
            }
            Decision::Forced => {
                if !(self.ecn && !self.harddrop && ctx.mark(id, REASON_FORCED)) {
                    self.light.still_idle(now, q_pkts);
                    self.heavy.still_idle(now, q_pkts);
                    return Verdict::Dropped(REASON_FORCED);
                }
            }
        }
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.fifo.push(id, size);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        let size = ctx.size(id);
        if self.fifo.is_empty() {
            self.light.on_empty(ctx.now, size);
            self.heavy.on_empty(ctx.now, size);
        }
        Some(id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn state(&self, out: &mut [f64]) {
        let c = &self.light;
        let [heavy, share] = self.heaviest.state();
        out.copy_from_slice(&[c.avg, c.count as f64, self.heavy.count as f64, c.last_pb, heavy, share]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::red::RedConfig;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::{Rate, Time};

    fn queue(cfg: QdiscConfig) -> Queue {
        Queue::new(&cfg, &QdiscEnv { link_rate: Rate::from_mbps(100) }, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    /// The queue held at `hold` packets (w_q = 1: the average is the queue an arrival finds):
    /// arrivals of flow `flow_of(k)`, each accepted one followed by a dequeue. Returns the gaps,
    /// in arrivals of its own class, between successive early drops of flow 0 and of the others,
    /// and the queue.
    fn held(cfg: ApdConfig, hold: u32, arrivals: u64, flow_of: impl Fn(u64) -> u32) -> ([Vec<u32>; 2], Queue) {
        let mut q = queue(QdiscConfig::Apd(cfg));
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut k = 0;
        while q.len_pkts() < hold {
            let id = a.alloc(Packet { flow: 99, src: 99, size_bytes: 1500, ..Default::default() });
            if !q.enqueue(id, Time::from_ns(k), &mut a, &mut dropped) {
                a.free(id); // an early drop on the way up
            }
            k += 1;
        }
        let (mut gaps, mut since) = ([vec![], vec![]], [0u32; 2]);
        for k in 0..arrivals {
            let now = Time::from_ns(1000 + k);
            let flow = flow_of(k);
            let class = (flow != 0) as usize;
            since[class] += 1;
            let id = a.alloc(Packet { flow, src: flow, size_bytes: 1500, ..Default::default() });
            if q.enqueue(id, now, &mut a, &mut dropped) {
                let out = q.dequeue(now, &mut a, &mut dropped).unwrap();
                a.free(out);
            } else {
                a.free(id);
                if k > 1000 {
                    gaps[class].push(since[class]);
                }
                since[class] = 0;
            }
        }
        q.check_identities().unwrap();
        (gaps, q)
    }

    fn mean(g: &[u32]) -> f64 {
        g.iter().map(|&x| x as f64).sum::<f64>() / g.len() as f64
    }

    /// min_th 5, max_th 15, max_p 0.1, queue held at 10: RED's p_b = 0.05. The heaviest
    /// connection (static, flow 0, half of the arrivals) has p_b = n 0.05 = 0.1 with its own
    /// count: its gaps (in its own arrivals) are uniform on 1..10 (mean 5.5), the others' on
    /// 1..20 (mean 10.5), Linux's spacing at each class's probability. With n = 4 (p 0.2): 1..5.
    #[test]
    fn heavy_connection_gets_n_times_reds_probability() {
        for (n, hi_heavy) in [(2.0, 10u32), (4.0, 5)] {
            let cfg = ApdConfig { w_q: 1.0, n, mode: HeavyMode::Static, heavy_flow: Some(0), key: ConnKey::Flow, limit_pkts: 1000, ..Default::default() };
            let ([heavy, light], q) = held(cfg, 10, 400_000, |k| (k % 2) as u32);
            let (mh, ml) = (mean(&heavy), mean(&light));
            eprintln!("n = {n}: heavy gaps {}..{} mean {mh:.2} ({} drops), others {}..{} mean {ml:.2} ({} drops)", heavy.iter().min().unwrap(), heavy.iter().max().unwrap(), heavy.len(), light.iter().min().unwrap(), light.iter().max().unwrap(), light.len());
            assert_eq!((*heavy.iter().min().unwrap(), *heavy.iter().max().unwrap()), (1, hi_heavy));
            assert_eq!((*light.iter().min().unwrap(), *light.iter().max().unwrap()), (1, 20));
            assert!((mh - (1.0 + hi_heavy as f64) / 2.0).abs() < 0.1 && (ml - 10.5).abs() < 0.15, "means {mh} {ml}");
            let r = q.reasons();
            assert!(r.drops[REASON_EARLY_HEAVY as usize] as usize >= heavy.len() && r.drops[REASON_EARLY as usize] as usize >= light.len());
            assert!(r.drops[REASON_FORCED as usize] == 0 && r.drops[REASON_OVERFLOW as usize] == 0);
        }
    }

    /// Without a heaviest connection (static, a flow that never sends) APD is RED: the same
    /// drops, arrival by arrival, with the same random stream.
    #[test]
    fn without_a_heavy_connection_apd_is_red() {
        let apd = ApdConfig { mode: HeavyMode::Static, heavy_flow: Some(7), limit_pkts: 60, ..Default::default() };
        let red = RedConfig { limit_pkts: 60, ..Default::default() };
        let (mut qa, mut qr) = (queue(QdiscConfig::Apd(apd)), queue(QdiscConfig::Red(red)));
        let mut a = PacketArena::new();
        let mut dropped = vec![];
        let mut rng = Rng::stream(3, StreamKind::Flow, 0);
        let (mut t, mut drops) = (0u64, 0);
        for _ in 0..200_000 {
            t += 1 + rng.range_inclusive(0, 200);
            if rng.next_f64() < 0.55 {
                let p = Packet { flow: rng.range_inclusive(0, 3) as u32, size_bytes: 1500, ..Default::default() };
                let (ia, ir) = (a.alloc(p.clone()), a.alloc(p));
                let (va, vr) = (qa.enqueue(ia, Time::from_ns(t), &mut a, &mut dropped), qr.enqueue(ir, Time::from_ns(t), &mut a, &mut dropped));
                assert_eq!(va, vr, "at {t}");
                if !va {
                    a.free(ia);
                    a.free(ir);
                    drops += 1;
                }
            } else {
                match (qa.dequeue(Time::from_ns(t), &mut a, &mut dropped), qr.dequeue(Time::from_ns(t), &mut a, &mut dropped)) {
                    (Some(x), Some(y)) => {
                        a.free(x);
                        a.free(y);
                    }
                    (None, None) => {}
                    _ => panic!("backlogs differ"),
                }
            }
        }
        assert!(drops > 100, "{drops} drops");
        assert_eq!(qa.reasons().drops[..3], qr.reasons().drops[..3]);
    }

    /// Dynamic mode (key flow, every arrival recorded, history 100, statistics every 100): flow
    /// 0 sends 3 of every 4 arrivals and becomes the estimate; its early drops are the
    /// `early_heavy` ones, spaced at n times RED's probability; flow 1's stay `early`.
    #[test]
    fn dynamic_mode_finds_the_dominant_flow_and_drops_it_n_times_as_often() {
        let cfg = ApdConfig { w_q: 1.0, n: 2.0, key: ConnKey::Flow, rec_int: 1, hist_len: 100, stat_int: 100, limit_pkts: 1000, ..Default::default() };
        let ([heavy, light], q) = held(cfg, 10, 400_000, |k| (k % 4 == 3) as u32);
        let Qdisc::Apd(apd) = &q.qdisc else { unreachable!() };
        assert_eq!(apd.heaviest().heavy(), Some(0));
        assert!((apd.heaviest().hh.share - 0.75).abs() < 1e-12);
        let (mh, ml) = (mean(&heavy), mean(&light));
        eprintln!("dynamic: flow 0 gaps mean {mh:.2} ({} drops), flow 1 mean {ml:.2} ({} drops)", heavy.len(), light.len());
        assert!((mh - 5.5).abs() < 0.1 && (ml - 10.5).abs() < 0.2, "means {mh} {ml}");
        assert!(q.reasons().drops[REASON_EARLY_HEAVY as usize] > 0);
    }
}
