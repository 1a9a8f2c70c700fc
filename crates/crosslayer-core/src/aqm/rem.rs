//! REM (Random Exponential Marking): a link "price" integrates the backlog mismatch and the
//! rate mismatch every update interval; arrivals are dropped (or CE-marked) with probability
//! `1 - phi^(-price)`.
//!
//! Source: Athuraliya, Low, Li, Yin, "REM: Active Queue Management", IEEE Network 15(3), 2001;
//! ns-2 `queue/rem.cc` (by S. Athuraliya and V. Li) and the `Queue/REM`
//! defaults in `tcl/lib/ns-default.tcl` (ns-2.35), read for behaviour (not copied). Linux and
//! ns-3 mainline have no REM.
//!
//! Every `update_interval` T (ns-2 `run_updaterule`):
//!
//! * `x_avg = (1 - inw) x_avg + inw x`, with `x` the packets that arrived in the last T
//!   (dropped ones included);
//! * `price = max(0, price + gamma (alpha (b - b_ref) + x_avg - c))`, with `b` the instantaneous
//!   backlog in packets and `c = T x link rate / (8 mean_pkt_size)` the packets the link can send
//!   in T;
//! * `m = 1 - phi^(-price)`.
//!
//! With `queue_in_bytes`, x and b are counted in bytes and divided by `mean_pkt_size`, and the
//! probability for a packet is `m x size / mean_pkt_size` (ns-2 `qib_`). On arrival: tail drop at
//! `limit_pkts`; otherwise drop with probability m; with `ecn`, ECN-capable arrivals are marked
//! instead.
//!
//! Deliberate deviations: ns-2 marks (`markpkts_`) at dequeue and leaves non-ECT packets alone;
//! here `ecn` marks at enqueue and drops non-ECT packets, as the other disciplines do. ns-2
//! admits at most `limit - 1` packets (it drops when the queue including the arrival reaches the
//! limit); here `limit_pkts` packets. The early drop is `u < m` (ns-2 `u <= m`). alpha is a
//! parameter (ns-2 hard-codes 0.1). `mean_pkt_size` defaults to 1500 bytes, this simulator's
//! full segments (ns-2 1000, its TCP packet size), so that c counts the packets actually sent.

use super::law::fifo::Fifo;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur, Time};

crate::params! {
    /// REM parameters; the defaults are ns-2's `Queue/REM`.
    pub struct RemConfig {
        /// Step size of the price update.
        gamma: f64 = 0.001, Number("1/pkt"), range(> 0.0, <= 1.0), "Athuraliya et al. 2001; ns-2 Queue/REM gamma_ 0.001";
        /// Base of the marking function m = 1 - phi^(-price).
        phi: f64 = 1.001, Ratio, range(> 1.0, <= 100.0), "Athuraliya et al. 2001; ns-2 Queue/REM phi_ 1.001";
        /// Weight of the backlog mismatch against the rate mismatch.
        alpha: f64 = 0.1, Ratio, range(> 0.0, <= 100.0), "Athuraliya et al. 2001; ns-2 rem.cc (the constant 0.1)";
        /// Target backlog b*.
        b_ref: f64 = 20.0, Number("pkts"), range(>= 0.0), "ns-2 Queue/REM pbo_ 20";
        /// How often the price is updated.
        update_interval: Dur = Dur::from_ms(2), Time, range(>= Dur::from_us(10)), "ns-2 Queue/REM pupdtime_ 0.002";
        /// Weight of the newest input-rate sample in its average (1: no averaging).
        inw: f64 = 1.0, Ratio, range(> 0.0, <= 1.0), "ns-2 Queue/REM inw_ 1";
        /// Count arrivals and backlog in bytes / mean_pkt_size; scale m by size / mean_pkt_size.
        queue_in_bytes: bool = false, Flag, range(), "ns-2 Queue/REM qib_ false";
        /// Packet size that converts the link rate (and byte counts) into packets.
        mean_pkt_size: Bytes = Bytes::new(1500), Size, range(>= 1), "1500-byte packets (ns-2 Queue/REM mean_pktsize_ 1000)";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "ns-2 Queue/REM markpkts_ false";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux txqueuelen 1000 (ns-2 Queue limit_ 50)";
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_REM: u8 = 1;

/// REM's variables (ns-2 names in the comments).
#[derive(Clone, Copy, Debug, Default)]
pub struct RemVars {
    /// The link price (`v_pl`).
    pub price: f64,
    /// Marking/dropping probability 1 - phi^(-price) (`v_prob`).
    pub prob: f64,
    /// Filtered input per update interval, packets (`v_ave`).
    pub in_avg: f64,
    /// Arrivals in the current interval, packets or bytes (`v_count`).
    pub in_count: f64,
}

#[derive(Debug)]
pub struct Rem {
    cfg: RemConfig,
    pub vars: RemVars,
    /// Packets the link sends in one update interval (`p_updtime * p_ptc`).
    c_pkts: f64,
    next_update: Time,
    fifo: Fifo,
    /// The link runs it through `decide` (`QueueDisc::bypass`): `fifo` holds nothing, and the
    /// price update reads the queue's backlog.
    bypassed: bool,
    /// Early drops and marks decided.
    early: u64,
}

impl Algorithm for Rem {
    type Config = RemConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "rem",
        aliases: &[],
        summary: "REM: a link price integrates backlog and rate mismatch every 2 ms; arrivals dropped or marked with probability 1 - phi^(-price)",
        sources: &["Athuraliya, Low, Li, Yin, REM: Active Queue Management, IEEE Network 15(3), 2001", "ns-2 queue/rem.cc"],
    };
    fn new(cfg: &RemConfig, env: &QdiscEnv) -> Rem {
        let ptc = env.link_rate.bps() as f64 / (8.0 * cfg.mean_pkt_size.get() as f64);
        Rem {
            vars: RemVars::default(),
            c_pkts: cfg.update_interval.secs_f64() * ptc,
            next_update: Time::ZERO + cfg.update_interval,
            fifo: Fifo::new(cfg.limit_pkts),
            bypassed: false,
            early: 0,
            cfg: cfg.clone(),
        }
    }
}

impl Rem {
    /// One price update with the backlog at `backlog` packets (ns-2 `run_updaterule`): uses and
    /// clears the arrivals counted since the last one.
    pub fn update(&mut self, backlog: f64) {
        let c = &self.cfg;
        let v = &mut self.vars;
        let x = if c.queue_in_bytes { v.in_count / c.mean_pkt_size.get() as f64 } else { v.in_count };
        v.in_avg = (1.0 - c.inw) * v.in_avg + c.inw * x;
        v.price = (v.price + c.gamma * (c.alpha * (backlog - c.b_ref) + v.in_avg - self.c_pkts)).max(0.0);
        v.prob = 1.0 - c.phi.powf(-v.price);
        v.in_count = 0.0;
    }

    /// The backlog as the price sees it, packets.
    fn backlog_pkts(&self, (pkts, bytes): (u32, u64)) -> f64 {
        if self.cfg.queue_in_bytes {
            bytes as f64 / self.cfg.mean_pkt_size.get() as f64
        } else {
            pkts as f64
        }
    }

    /// The drop/mark probability for an arrival of `size` bytes.
    fn prob_for(&self, size: u32) -> f64 {
        if self.cfg.queue_in_bytes {
            self.vars.prob * size as f64 / self.cfg.mean_pkt_size.get() as f64
        } else {
            self.vars.prob
        }
    }
}

impl QueueDisc for Rem {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "rem", doc: "REM's early drop (or CE mark) with probability 1 - phi^(-price)" },
    ];
    const STATS: &'static [Field] = &[Field { name: "early", unit: FieldUnit::Count, doc: "early drops and marks decided" }];
    const STATE: &'static [Field] = &[
        Field { name: "price", unit: FieldUnit::Ratio, doc: "the link price (congestion measure)" },
        Field { name: "prob", unit: FieldUnit::Ratio, doc: "the drop/mark probability 1 - phi^(-price)" },
        Field { name: "in_avg_pkts", unit: FieldUnit::Pkts, doc: "arrivals per update interval (filtered with weight inw)" },
    ];
    const TIMER: bool = true;
    // An arrival reads the price's probability and the packets queued (the limit); the price
    // update reads the arrivals counted and the backlog at its own time: as PIE (`pie.rs`).
    const DECIDES_AT_ARRIVAL: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let verdict = self.decide(id, self.fifo.backlog(), ctx);
        self.fifo.keep(verdict, id, ctx)
    }

    fn decide(&mut self, id: PacketId, (pkts, _): (u32, u64), ctx: &mut QdiscCtx<'_>) -> Verdict {
        let size = ctx.size(id);
        // every arrival counts towards the input rate, dropped or not (ns-2)
        self.vars.in_count += if self.cfg.queue_in_bytes { size as f64 } else { 1.0 };
        if pkts >= self.cfg.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        if self.vars.prob > 0.0 {
            let p = self.prob_for(size);
            if ctx.rng().next_f64() < p {
                self.early += 1;
                if !(self.cfg.ecn && ctx.mark(id, REASON_REM)) {
                    return Verdict::Dropped(REASON_REM);
                }
            }
        }
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
    fn next_timer(&self) -> Time {
        self.next_update
    }
    fn bypass(&mut self) {
        self.bypassed = true;
    }

    fn fifo_limits(&self) -> (u32, u64) {
        (self.cfg.limit_pkts, u64::MAX)
    }

    fn on_timer(&mut self, ctx: &mut QdiscCtx<'_>) {
        let backlog = if self.bypassed { (ctx.backlog_pkts(), ctx.backlog_bytes()) } else { self.fifo.backlog() };
        while self.next_update <= ctx.now {
            self.update(self.backlog_pkts(backlog));
            self.next_update += self.cfg.update_interval;
        }
    }
    fn stats(&self, out: &mut [u64]) {
        out[0] = self.early;
    }
    fn state(&self, out: &mut [f64]) {
        let v = &self.vars;
        out.copy_from_slice(&[v.price, v.prob, v.in_avg]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Ecn, Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    fn env() -> QdiscEnv {
        QdiscEnv { link_rate: Rate::from_mbps(100) }
    }

    /// The price update against the paper's equation over a grid of (price, backlog, arrivals),
    /// with c = 2 ms x 100 Mb/s / 12,000 bits = 16.67 packets; the marking function against
    /// 1 - phi^(-price) (m = 0 at price 0, ln 2 / ln phi = 693.5 gives one half).
    #[test]
    fn price_update_and_marking_function_follow_the_paper() {
        let c = 0.002 * 100e6 / 12_000.0;
        for price in [0.0, 0.5, 10.0, 300.0] {
            for backlog in [0.0, 5.0, 20.0, 21.0, 150.0] {
                for x in [0.0, 10.0, 16.0, 17.0, 40.0] {
                    let mut r = Rem::new(&RemConfig::default(), &env());
                    r.vars.price = price;
                    r.vars.in_count = x;
                    r.update(backlog);
                    let want = (price + 0.001 * (0.1 * (backlog - 20.0) + x - c)).max(0.0);
                    assert!((r.vars.price - want).abs() < 1e-12, "price {price} b {backlog} x {x}: {} != {want}", r.vars.price);
                    assert!((r.vars.prob - (1.0 - 1.001f64.powf(-want))).abs() < 1e-15);
                    assert_eq!(r.vars.in_count, 0.0, "the arrival count restarts");
                }
            }
        }
        let mut r = Rem::new(&RemConfig::default(), &env());
        r.update(20.0);
        assert_eq!((r.vars.price, r.vars.prob), (0.0, 0.0), "an idle link has no price");
        // no arrivals, backlog at b_ref: the price falls by gamma c and lands on ln 2 / ln phi
        r.vars.price = 2f64.ln() / 1.001f64.ln() + 0.001 * c;
        r.update(20.0);
        assert!((r.vars.prob - 0.5).abs() < 1e-12, "{}", r.vars.prob);
        // input averaging with inw = 0.25: x_avg = 0.75 x_avg + 0.25 x
        let mut r = Rem::new(&RemConfig { inw: 0.25, ..Default::default() }, &env());
        r.vars.in_avg = 8.0;
        r.vars.in_count = 80.0;
        r.update(20.0);
        assert!((r.vars.in_avg - 26.0).abs() < 1e-12);
        assert!((r.vars.price - 0.001 * (26.0 - c)).abs() < 1e-12);
    }

    fn pkt(arena: &mut PacketArena, size: u32, ecn: Ecn) -> PacketId {
        arena.alloc(Packet { size_bytes: size, ecn, ..Default::default() })
    }

    fn vars(q: &Queue) -> RemVars {
        match &q.qdisc {
            Qdisc::Rem(r) => r.vars,
            _ => unreachable!(),
        }
    }

    /// Through the queue: updates every 2 ms, counting every arrival of the interval (including
    /// the ones dropped at the limit) and the instantaneous backlog; byte mode counts bytes.
    #[test]
    fn timer_counts_arrivals_and_backlog_each_interval() {
        for in_bytes in [false, true] {
            let cfg = RemConfig { queue_in_bytes: in_bytes, limit_pkts: 30, ..Default::default() };
            let mut q = Queue::new(&QdiscConfig::Rem(cfg), &env(), Rng::stream(1, StreamKind::Qdisc, 0));
            let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
            let c = 0.002 * 100e6 / 12_000.0;
            let mut price = 0.0f64;
            for k in 1..=10u64 {
                // 40 arrivals of 750 bytes, 4 dequeues per interval: the 30-packet limit is hit
                let t0 = Time::from_ms(2 * (k - 1));
                for i in 0..40 {
                    let id = pkt(&mut arena, 750, Ecn::NotEct);
                    if !q.enqueue(id, t0 + Dur::from_us(10 * i), &mut arena, &mut dropped) {
                        arena.free(id);
                    }
                }
                for _ in 0..4 {
                    if let Some(id) = q.dequeue(t0 + Dur::from_us(500), &mut arena, &mut dropped) {
                        arena.free(id);
                    }
                }
                let now = Time::from_ms(2 * k);
                assert_eq!(q.next_timer(), now);
                q.on_timer(now, &mut arena, &mut dropped);
                let (x, b) = if in_bytes { (40.0 * 750.0 / 1500.0, q.len_bytes() as f64 / 1500.0) } else { (40.0, q.len_pkts() as f64) };
                price = (price + 0.001 * (0.1 * (b - 20.0) + x - c)).max(0.0);
                let v = vars(&q);
                assert!((v.price - price).abs() < 1e-12, "bytes {in_bytes} update {k}: {} != {price}", v.price);
            }
            assert!(q.counters().drops_arrival > 0 && price > 0.0);
            q.check_identities().unwrap();
        }
    }

    /// Arrivals are dropped with probability m (marked instead with ecn if ECT); byte mode
    /// scales m by size / mean_pkt_size.
    #[test]
    fn arrivals_are_dropped_or_marked_with_probability_m() {
        for (in_bytes, size, ecn, expect) in [(false, 1500, false, 0.3), (true, 750, false, 0.15), (false, 1500, true, 0.3)] {
            let cfg = RemConfig { queue_in_bytes: in_bytes, ecn, limit_pkts: 1_000_000, ..Default::default() };
            let mut q = Queue::new(&QdiscConfig::Rem(cfg), &env(), Rng::stream(9, StreamKind::Qdisc, 0));
            if let Qdisc::Rem(r) = &mut q.qdisc {
                r.vars.prob = 0.3;
            }
            let (mut arena, mut dropped) = (PacketArena::new(), vec![]);
            let n = 100_000u64;
            for i in 0..n {
                let e = if ecn { Ecn::Ect0 } else { Ecn::NotEct };
                let id = pkt(&mut arena, size, e);
                if !q.enqueue(id, Time::from_ns(i), &mut arena, &mut dropped) {
                    arena.free(id);
                }
            }
            let cn = q.counters();
            let f = (cn.drops_arrival + cn.marks) as f64 / n as f64;
            let sd = (expect * (1.0 - expect) / n as f64).sqrt();
            assert!((f - expect).abs() < 4.0 * sd, "bytes {in_bytes} ecn {ecn}: {f}");
            assert_eq!(cn.marks > 0, ecn);
            assert_eq!(cn.drops_arrival == 0, ecn);
            q.check_identities().unwrap();
        }
    }
}
