//! RED's law, under every discipline built on it (RED, Adaptive RED, CHOKe, APD, WRED): the
//! averaged queue, `count` and the early-drop decision ([`RedCore`], Floyd & Jacobson 1993,
//! Figure 2), a FIFO governed by it ([`RedQueue`]: RED and Adaptive RED), the drop spacing rules,
//! and RED's parameter group, declared once ([`red_config!`](crate::red_config)) and embedded in
//! the configurations of RED, CHOKe and APD. See `aqm/red.rs` for the algorithm, its sources and
//! its deviations.

use super::fifo::Fifo;
use crate::aqm::{QdiscCtx, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Field, FieldUnit};
use crate::rng::Rng;
use crate::units::{Rate, Time};

crate::choice! {
    /// How RED spaces its drops at a given p_b.
    pub enum RedSpacing {
        /// Linux `red_action`: a uniform U in [0, 1) is drawn on entering the marking range and
        /// after each mark; the arrival with count * p_b >= U is marked. Gaps are uniform on
        /// 1..1/p_b, the spacing Floyd & Jacobson's section 7 derives.
        Linux = "linux",
        /// The paper's Figure 2 and ns-2/ns-3: p_a = p_b / (1 - count p_b), count counting this
        /// arrival: gaps uniform on 1..1/p_b - 1.
        Paper = "paper",
        /// ns-2's `wait`: p_a = 0 while count p_b < 1, p_b / (2 - count p_b) while < 2, else 1:
        /// gaps uniform on 1/p_b..2/p_b - 1.
        Wait = "wait",
    }
}

/// Declare the configuration of a discipline built on RED: RED's parameter group (thresholds,
/// weight, max_p, gentle, spacing, packet size, ECN), declared here once, then the discipline's
/// own fields. `gentle` is the one default that differs between them (Linux's CHOKe has no
/// gentle mode). The macro also gives the config `red_params(byte_mode)`; the discipline's
/// `check` should call [`check_thresholds`].
#[macro_export]
macro_rules! red_config {
    (
        $(#[$smeta:meta])*
        pub struct $name:ident {
            gentle = $gentle:expr, $gentle_src:literal;
            $($own:tt)*
        }
        check = $check:path;
    ) => {
        $crate::params! {
            $(#[$smeta])*
            pub struct $name {
                /// Average queue (packets) below which nothing is dropped.
                min_th: f64 = 5.0, Number("pkts"), range(>= 0.0), "Floyd & Jacobson 1993 (5 packets in their simulations); ns-2 thresh_ 5, ns-3 MinTh 5";
                /// Average queue (packets) at which the drop probability reaches max_p.
                max_th: f64 = 15.0, Number("pkts"), range(> 0.0), "Floyd 1997: max_th = 3 min_th; ns-2 maxthresh_ 15, ns-3 MaxTh 15";
                /// Weight of the newest queue sample in the average.
                w_q: f64 = 0.002, Ratio, range(> 0.0, <= 1.0), "Floyd & Jacobson 1993 section 11; ns-2 q_weight_ 0.002, ns-3 QW 0.002";
                /// Drop probability at avg = max_th.
                max_p: f64 = 0.1, Ratio, range(> 0.0, <= 1.0), "Floyd 1997: 0.1; ns-2 linterm_ 10 (0.1); ns-3 LInterm 50 (0.02)";
                /// Gentle RED: between max_th and 2 max_th the probability rises from max_p to 1.
                gentle: bool = $gentle, Flag, range(), $gentle_src;
                /// How drops are spaced: "linux" (uniform gaps of 1..1/p_b arrivals), "paper" (p_a = p_b / (1 - count p_b) as ns-2 and ns-3 without wait) or "wait" (ns-2 and ns-3 with wait, their default).
                spacing: $crate::aqm::law::red::RedSpacing = $crate::aqm::law::red::RedSpacing::Linux, Choice, range(), "Linux red_action / red_mark_probability; ns-2 wait_ and ns-3 Wait true give \"wait\"";
                /// Packet size for the idle-time correction (and RED's byte mode).
                mean_pkt_size: $crate::units::Bytes = $crate::units::Bytes::new(1500), Size, range(>= 1, <= $crate::units::Bytes::new(1 << 20)), "1500-byte packets (ns-2 mean_pktsize_ and ns-3 MeanPktSize are 500); at most 1 MiB";
                /// CE-mark ECN-capable packets instead of dropping them (RFC 3168).
                ecn: bool = false, Flag, range(), "Linux TC_RED_ECN off unless asked";
                /// With ecn: still drop (not mark) when the average is above the marking range.
                harddrop: bool = false, Flag, range(), "Linux TC_RED_HARDDROP off; ns-3 UseHardDrop true";
                $($own)*
            }
            check = $check;
        }

        impl $name {
            /// RED's parameters as its core uses them.
            pub fn red_params(&self, byte_mode: bool) -> $crate::aqm::law::red::RedParams {
                $crate::aqm::law::red::RedParams {
                    min_th: self.min_th,
                    max_th: self.max_th,
                    w_q: self.w_q,
                    max_p: self.max_p,
                    gentle: self.gentle,
                    byte_mode,
                    mean_pkt_size: self.mean_pkt_size.get() as u32,
                    spacing: self.spacing,
                }
            }
        }
    };
}

/// The relation RED's thresholds keep (every discipline with RED's group checks it).
pub fn check_thresholds(min_th: f64, max_th: f64, out: &mut Vec<Problem>) {
    if min_th >= max_th {
        out.push(Problem::new("min_th", format!("must be below max_th ({}); Floyd recommends max_th = 3 min_th", crate::params::num(max_th))));
    }
}

/// What RED decided for an arrival.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Accept,
    /// Probabilistic (early) drop or mark.
    Early,
    /// The average is above the marking range: drop (or mark unless hard drop).
    Forced,
}

/// RED's parameters as the core uses them (Adaptive RED changes `max_p` and may derive the rest).
#[derive(Clone, Copy, Debug)]
pub struct RedParams {
    pub min_th: f64,
    pub max_th: f64,
    pub w_q: f64,
    pub max_p: f64,
    pub gentle: bool,
    pub byte_mode: bool,
    pub mean_pkt_size: u32,
    pub spacing: RedSpacing,
}

/// The average queue, the count since the last drop, and the decision (Floyd & Jacobson 1993,
/// Figure 2).
#[derive(Clone, Debug)]
pub struct RedCore {
    pub p: RedParams,
    /// The average queue length, packets (or bytes / mean_pkt_size in byte mode).
    pub avg: f64,
    /// Arrivals since the last drop or mark (-1: the average was below min_th).
    pub count: i64,
    /// The link is idle from this time (no packet queued or in transmission); `None` while busy.
    idle_since: Option<Time>,
    /// Transmission time of a mean-size packet, ns (the paper's `s`).
    s_ns: f64,
    /// The link rate (to find when the last dequeued packet's transmission ends).
    rate: Rate,
    /// Linux spacing: the cached uniform draw the next mark waits for.
    u: f64,
    /// p_b of the last arrival in the marking range.
    pub last_pb: f64,
}

impl RedCore {
    pub fn new(p: RedParams, rate: Rate) -> RedCore {
        let s_ns = (rate.tx_time(p.mean_pkt_size).ns() as f64).max(1.0);
        RedCore { p, avg: 0.0, count: -1, idle_since: Some(Time::ZERO), s_ns, rate, u: 0.0, last_pb: 0.0 }
    }

    /// Update the average for an arrival that finds `q_pkts` packets and `q_bytes` bytes queued.
    pub fn update_avg(&mut self, now: Time, q_pkts: u32, q_bytes: u64) {
        let q = if self.p.byte_mode { q_bytes as f64 / self.p.mean_pkt_size as f64 } else { q_pkts as f64 };
        match self.idle_since {
            Some(t0) if q_pkts == 0 && now >= t0 => {
                let m = now.since(t0).ns() as f64 / self.s_ns;
                self.avg *= (1.0 - self.p.w_q).powf(m);
            }
            _ => self.avg = (1.0 - self.p.w_q) * self.avg + self.p.w_q * q,
        }
        self.idle_since = None;
    }

    /// The marking probability before count spacing for a packet of `size` bytes at the current
    /// average (0 below min_th; 1 above the marking range).
    pub fn p_b(&self, size: u32) -> f64 {
        let p = &self.p;
        let pb = if self.avg < p.min_th {
            0.0
        } else if self.avg < p.max_th {
            p.max_p * (self.avg - p.min_th) / (p.max_th - p.min_th)
        } else if p.gentle && self.avg < 2.0 * p.max_th {
            p.max_p + (1.0 - p.max_p) * (self.avg - p.max_th) / p.max_th
        } else {
            1.0
        };
        if p.byte_mode {
            (pb * size as f64 / p.mean_pkt_size as f64).min(1.0)
        } else {
            pb
        }
    }

    /// Decide for an arrival of `size` bytes (after `update_avg`).
    pub fn decide(&mut self, size: u32, rng: &mut Rng) -> Decision {
        self.decide_scaled(size, 1.0, rng)
    }

    /// `decide` with p_b multiplied by `factor` (capped at 1) for this arrival (Active Packet
    /// Dropping's n for the heaviest connection, `apd.rs`); `factor` 1 is RED.
    pub fn decide_scaled(&mut self, size: u32, factor: f64, rng: &mut Rng) -> Decision {
        let p = self.p;
        let top = if p.gentle { 2.0 * p.max_th } else { p.max_th };
        if self.avg < p.min_th {
            self.count = -1;
            return Decision::Accept;
        }
        if self.avg >= top {
            self.count = 0;
            return Decision::Forced;
        }
        self.count += 1;
        let pb = if factor == 1.0 { self.p_b(size) } else { (self.p_b(size) * factor).min(1.0) };
        self.last_pb = pb;
        let c = self.count as f64 * pb;
        let mark = match p.spacing {
            RedSpacing::Linux => {
                if self.count == 0 {
                    // entering the marking range: draw the threshold, no mark
                    self.u = rng.next_f64();
                    false
                } else {
                    c >= self.u
                }
            }
            RedSpacing::Paper => c >= 1.0 || rng.next_f64() < pb / (1.0 - c),
            RedSpacing::Wait => c >= 2.0 || (c >= 1.0 && rng.next_f64() < pb / (2.0 - c)),
        };
        if mark {
            self.count = 0;
            if p.spacing == RedSpacing::Linux {
                self.u = rng.next_f64();
            }
            Decision::Early
        } else {
            Decision::Accept
        }
    }

    /// A dequeue left the queue empty: the link goes idle once this packet is sent.
    pub fn on_empty(&mut self, now: Time, size: u32) {
        self.idle_since = Some(now + self.rate.tx_time(size));
    }

    /// An arrival found the queue empty and was dropped: the queue is still idle, from `now`.
    /// (Linux: the arrival ends the idle period in `red_calc_qavg`, and the dequeue attempt that
    /// follows finds nothing and starts a new one, `red_start_of_idle_period`.) Without this an
    /// average above max_th would decay only by w_q per dropped arrival while the queue stays
    /// empty, and a queue whose senders are in RTO backoff would drop every arrival for seconds.
    #[inline]
    pub fn still_idle(&mut self, now: Time, q_pkts: u32) {
        if q_pkts == 0 {
            self.idle_since = Some(now);
        }
    }
}

/// A FIFO governed by a [`RedCore`]: the part RED and Adaptive RED share.
#[derive(Debug)]
pub struct RedQueue {
    pub core: RedCore,
    ecn: bool,
    harddrop: bool,
    limit_pkts: u32,
    fifo: Fifo,
}

/// `REASONS` indices (shared with Adaptive RED).
pub const REASON_OVERFLOW: u8 = 0;
pub const REASON_EARLY: u8 = 1;
pub const REASON_FORCED: u8 = 2;

pub const RED_REASONS: &[Reason] = &[
    OVERFLOW,
    Reason { name: "early", doc: "RED's probabilistic drop (or CE mark): min_th <= avg < max_th (2 max_th when gentle)" },
    Reason { name: "forced", doc: "RED's average above max_th (2 max_th when gentle): every arrival dropped (or marked without harddrop)" },
];

pub const RED_STATE: &[Field] = &[
    Field { name: "avg_pkts", unit: FieldUnit::Pkts, doc: "RED's average queue length" },
    Field { name: "count", unit: FieldUnit::Count, doc: "arrivals since the last drop or mark (-1 below min_th)" },
    Field { name: "p_b", unit: FieldUnit::Ratio, doc: "drop probability of the last arrival in the marking range, before count spacing" },
    Field { name: "max_p", unit: FieldUnit::Ratio, doc: "drop probability at max_th (fixed in RED, adapted by Adaptive RED)" },
];

impl RedQueue {
    pub fn new(core: RedCore, ecn: bool, harddrop: bool, limit_pkts: u32) -> RedQueue {
        RedQueue { core, ecn, harddrop, limit_pkts, fifo: Fifo::new(limit_pkts) }
    }

    pub fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        let size = ctx.size(id);
        self.core.update_avg(ctx.now, self.fifo.len_pkts(), self.fifo.len_bytes());
        match self.core.decide(size, ctx.rng()) {
            Decision::Accept => {}
            Decision::Early => {
                if !(self.ecn && ctx.mark(id, REASON_EARLY)) {
                    self.core.still_idle(ctx.now, self.fifo.len_pkts());
                    return Verdict::Dropped(REASON_EARLY);
                }
            }
            Decision::Forced => {
                if !(self.ecn && !self.harddrop && ctx.mark(id, REASON_FORCED)) {
                    self.core.still_idle(ctx.now, self.fifo.len_pkts());
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

    pub fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        let size = ctx.size(id);
        if self.fifo.is_empty() {
            self.core.on_empty(ctx.now, size);
        }
        Some(id)
    }

    pub fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    pub fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    pub fn state(&self, out: &mut [f64]) {
        let c = &self.core;
        out.copy_from_slice(&[c.avg, c.count as f64, c.last_pb, c.p.max_p]);
    }
}

