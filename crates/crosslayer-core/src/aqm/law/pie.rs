//! PIE's law (RFC 8033; Linux `include/net/pie.h`), under PIE and FQ-PIE: its parameters and
//! the controller (`PieVars`: the delay estimate, the burst allowance, the drop probability and
//! its update, the early-drop decision with derandomization). See `aqm/pie.rs` for the
//! algorithm, its sources and deviations.

use crate::params::Problem;
use crate::units::{Bytes, Dur, Time};

crate::choice! {
    /// Which PIE: Linux's (delay from timestamps) or RFC 8033's (delay from the dequeue rate).
    pub enum PieVariant {
        /// Linux sch_pie with dq_rate_estimator off (its default).
        Linux = "linux",
        /// RFC 8033's pseudocode: Little's law with a measured dequeue rate.
        Rfc8033 = "rfc8033",
    }
}

crate::params! {
    /// PIE parameters; the defaults are RFC 8033's and Linux's (they agree).
    pub struct PieConfig {
        /// Target queueing delay (QDELAY_REF).
        target: Dur = Dur::from_ms(15), Time, range(> Dur::ZERO), "RFC 8033 section 5 QDELAY_REF 15 ms; Linux target 15 ms";
        /// How often the drop probability is updated (T_UPDATE).
        tupdate: Dur = Dur::from_ms(15), Time, range(>= Dur::from_us(100)), "RFC 8033 T_UPDATE 15 ms; Linux tupdate 15 ms";
        /// Weight of the delay error, 1/s.
        alpha: f64 = 0.125, Number("1/s"), range(>= 0.0, <= 2.0), "RFC 8033 alpha 0.125 Hz; Linux alpha 2/16";
        /// Weight of the delay trend, 1/s.
        beta: f64 = 1.25, Number("1/s"), range(>= 0.0, <= 2.0), "RFC 8033 beta 1.25 Hz; Linux beta 20/16";
        /// Burst allowance: no early drop for this long after the queue was quiet.
        max_burst: Dur = Dur::from_ms(150), Time, range(>= Dur::ZERO), "RFC 8033 MAX_BURST 150 ms; Linux burst_time 150 ms";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux sch_pie limit 1000";
        /// "linux" (delay from timestamps) or "rfc8033" (delay from the dequeue rate).
        variant: PieVariant = PieVariant::Linux, Choice, range(), "Linux dq_rate_estimator off; RFC 8033 section 4.2 (dequeue rate)";
        /// Accumulate the probability between drops (RFC 8033 section 5.1).
        derandomize: bool = true, Flag, range(), "RFC 8033 section 5.1; Linux accu_prob (since 5.1)";
        /// CE-mark ECN-capable packets instead of dropping them while the probability is at most ecn_threshold.
        ecn: bool = false, Flag, range(), "Linux ecn off unless asked";
        /// Highest probability at which ECN-capable packets are marked rather than dropped.
        ecn_threshold: f64 = 0.1, Ratio, range(>= 0.0, <= 1.0), "RFC 8033 section 5.1 mark_ecnth 10 %; Linux MAX_PROB / 10";
        /// Scale the probability by packet size / mean_pkt_size.
        bytemode: bool = false, Flag, range(), "Linux bytemode off";
        /// Packet size for the two-packet minimum backlog and for byte mode.
        mean_pkt_size: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 20)), "Linux psched_mtu (1500 + 14); RFC 8033 MEAN_PKTSIZE (crosslayer: at most 1 MiB)";
        /// rfc8033 variant: bytes over which the dequeue rate is measured.
        dq_threshold: Bytes = Bytes::new(16384), Size, range(>= 1), "RFC 8033 DQ_THRESHOLD 2^14 bytes; Linux QUEUE_THRESHOLD 16384";
        /// rfc8033 variant: weight of a new dequeue-rate measurement in its average.
        dq_weight: f64 = 0.125, Ratio, range(> 0.0, <= 1.0), "Linux avg_dq_rate = 7/8 avg + 1/8 rate; ns-3 1/2";
    }
    check = PieConfig::check;
}

impl PieConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.tupdate.ns() > self.target.ns().saturating_mul(100) {
            out.push(Problem::new("tupdate", format!("should not be far above target ({}); RFC 8033 uses 15 ms for both", self.target)));
        }
    }
}

/// PIE's controller variables (RFC 8033 section 5 names).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PieVars {
    pub drop_prob: f64,
    /// The current queueing delay estimate.
    pub qdelay: Dur,
    pub qdelay_old: Dur,
    /// Time left with no early drops.
    pub burst_allowance: Dur,
    pub accu_prob: f64,
    /// Dequeue rate, bytes per second (rfc8033 variant); 0 until measured.
    pub avg_dq_rate: f64,
    /// A dequeue-rate measurement in progress: (start, bytes so far).
    dq_measure: Option<(Time, u64)>,
    /// Last dequeue (linux variant: burst allowance consumed between dequeues).
    last_dq: Option<Time>,
}

impl PieVars {
    /// RFC 8033's dequeue-rate estimation (section 4.2, the rfc8033 variant): a measurement starts
    /// when `dq_threshold` bytes are queued, ends when that many have left, and feeds the
    /// averaged rate; `size` bytes just left, with `before` queued before and `after` after.
    pub fn on_dequeue_rfc8033(&mut self, cfg: &PieConfig, now: Time, size: u64, before: u64, after: u64) {
        let th = cfg.dq_threshold.get();
        if self.dq_measure.is_none() && before >= th {
            self.dq_measure = Some((now, 0));
        }
        if let Some((start, count)) = self.dq_measure.as_mut() {
            *count += size;
            if *count >= th {
                let dt = now.since(*start).secs_f64();
                if dt > 0.0 {
                    let rate = *count as f64 / dt;
                    let w = cfg.dq_weight;
                    self.avg_dq_rate = if self.avg_dq_rate == 0.0 { rate } else { (1.0 - w) * self.avg_dq_rate + w * rate };
                }
                self.dq_measure = if after >= th { Some((now, 0)) } else { None };
            }
        }
    }

    /// Fresh controller state (Linux pie_vars_init): the full burst allowance, the rest zero.
    pub fn new(cfg: &PieConfig) -> PieVars {
        PieVars { burst_allowance: cfg.max_burst, ..Default::default() }
    }

    /// The early-drop decision for an arrival of `size` bytes to a queue holding `backlog` bytes
    /// (RFC 8033 drop_early; Linux pie_drop_early, whose backlog is the flow's in FQ-PIE).
    pub fn drop_early(&mut self, cfg: &PieConfig, backlog: u64, size: u32, u: impl FnOnce() -> f64) -> bool {
        let v = self;
        let half = Dur::from_ns(cfg.target.ns() / 2);
        if v.burst_allowance != Dur::ZERO {
            return false;
        }
        let delay = match cfg.variant {
            PieVariant::Linux => v.qdelay,
            PieVariant::Rfc8033 => v.qdelay_old,
        };
        if delay < half && v.drop_prob < 0.2 {
            return false;
        }
        let mean = cfg.mean_pkt_size.get();
        if backlog < 2 * mean {
            return false;
        }
        let p = if cfg.bytemode { (v.drop_prob * size as f64 / mean as f64).min(1.0) } else { v.drop_prob };
        if cfg.derandomize {
            if p == 0.0 {
                v.accu_prob = 0.0;
            } else {
                v.accu_prob += p;
            }
            if v.accu_prob < 0.85 {
                return false;
            }
            if v.accu_prob >= 8.5 {
                return true;
            }
        }
        if u() < p {
            v.accu_prob = 0.0;
            true
        } else {
            false
        }
    }

    /// The linux variant's dequeue bookkeeping (Linux pie_process_dequeue with the rate estimator
    /// off): the delay is the sojourn of the packet leaving (0 if `backlog_after` is 0), and the
    /// burst allowance is spent by the time since the previous dequeue.
    pub fn on_dequeue_linux(&mut self, now: Time, enq_time: Time, backlog_after: u64) {
        self.qdelay = if backlog_after == 0 { Dur::ZERO } else { now.since(enq_time) };
        let dtime = self.last_dq.map_or(Dur::ZERO, |t| now.since(t));
        self.last_dq = Some(now);
        self.burst_allowance = Dur::from_ns(self.burst_allowance.ns().saturating_sub(dtime.ns()));
    }

    /// One controller update of a queue holding `backlog` bytes (RFC 8033 calculate_drop_prob;
    /// Linux pie_calculate_probability).
    pub fn update(&mut self, cfg: &PieConfig, backlog: u64) {
        let c = cfg;
        let v = self;
        let (qdelay, qdelay_old) = match c.variant {
            PieVariant::Linux => (v.qdelay, v.qdelay_old),
            PieVariant::Rfc8033 => {
                let q = if v.avg_dq_rate > 0.0 { Dur::from_ns((backlog as f64 / v.avg_dq_rate * 1e9) as u64) } else { Dur::ZERO };
                (q, v.qdelay)
            }
        };
        let (qd, qo, target) = (qdelay.secs_f64(), qdelay_old.secs_f64(), c.target.secs_f64());
        let mut delta = c.alpha * (qd - target) + c.beta * (qd - qo);
        let p = v.drop_prob;
        // auto-scaling (RFC 8033 section 4.2, Linux's shifts)
        let scale = if p < 1e-6 {
            2048.0
        } else if p < 1e-5 {
            512.0
        } else if p < 1e-4 {
            128.0
        } else if p < 1e-3 {
            32.0
        } else if p < 1e-2 {
            8.0
        } else if p < 0.1 {
            2.0
        } else {
            1.0
        };
        delta /= scale;
        if p >= 0.1 && delta > 0.02 {
            delta = 0.02;
        }
        let linux = c.variant == PieVariant::Linux;
        if linux && qdelay > Dur::from_ms(250) {
            delta += 0.02;
        }
        v.drop_prob = (p + delta).clamp(0.0, 1.0);
        let decay_allowed = !(linux && qdelay == Dur::ZERO && backlog != 0);
        if qdelay == Dur::ZERO && qdelay_old == Dur::ZERO && decay_allowed {
            v.drop_prob *= if linux { 63.0 / 64.0 } else { 0.98 };
        }
        let half = Dur::from_ns(c.target.ns() / 2);
        if linux {
            v.qdelay_old = qdelay;
            if qdelay < half && qdelay_old < half && v.drop_prob == 0.0 {
                // pie_vars_init: the burst allowance is restored, the rest reset
                v.burst_allowance = c.max_burst;
                v.accu_prob = 0.0;
                v.last_dq = None;
            }
        } else {
            v.burst_allowance = Dur::from_ns(v.burst_allowance.ns().saturating_sub(c.tupdate.ns()));
            v.qdelay_old = qdelay;
            v.qdelay = qdelay;
            if v.drop_prob == 0.0 && qdelay < half && qdelay_old < half {
                v.burst_allowance = c.max_burst;
            }
        }
    }
}

