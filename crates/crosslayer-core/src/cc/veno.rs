//! TCP Veno: Reno whose increase and decrease read Vegas's backlog estimate. With few of its
//! packets queued (diff < beta) a loss is taken as random (wireless) and cuts only to 4/5; with
//! more, the loss is congestive and halves, and the window grows one segment every other RTT.
//!
//! Source: Fu and Liew, "TCP Veno: TCP enhancement for transmission over wireless access
//! networks", IEEE JSAC 21(2), 2003; Linux `net/ipv4/tcp_veno.c`, read for behaviour (not
//! copied). As Linux runs it:
//! * every RTT sample `v = rtt + 1 us` updates `base_rtt` (life of the connection) and the
//!   least RTT since the previous ACK;
//! * on each ACK that may grow the window, once 3 samples were seen: with `rtt` that least RTT,
//!   `diff = cwnd - cwnd x base_rtt / rtt` (segments, half-segment resolution); slow start
//!   as Linux's; then `diff < beta` (3): Reno's +1 per window; otherwise +1 every other window;
//!   with 2 samples or fewer, Reno. The least RTT restarts after each ACK (so Veno reads the
//!   RTT of the latest ACK, not of a round as Vegas does);
//! * a loss: ssthresh = max(cwnd x 4/5, 2) if `diff < beta`, else max(cwnd / 2, 2);
//! * outside the Open state Reno's rule runs (Linux `tcp_veno_state`).
//!
//! Deviations: RTT samples are the sender's Karn-filtered ones (Linux: every ACK's, also from
//! SACKed segments).

use super::law::{cong_avoid_ai, slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, SsRule, Window, };
use super::law::vegas_rtt::{VegasRtt, NONE_US};
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::params! {
    /// Veno's backlog threshold.
    pub struct VenoConfig {
        /// Below this many queued packets (diff) a loss is random: cut to 4/5, grow as Reno.
        beta: u32 = 3, Packets, range(>= 0, <= 10000), "Linux tcp_veno.c beta = 3 << V_PARAM_SHIFT (Fu & Liew 2003: beta = 3)";
    }
}

/// Linux V_PARAM_SHIFT: diff in half segments.
const SHIFT: u32 = 1;

#[derive(Clone, Debug)]
pub struct Veno {
    /// beta << SHIFT.
    beta: u64,
    ss: SsRule,
    /// RTT samples (Vegas's bookkeeping; Veno never resets the count).
    rtt: VegasRtt,
    /// Backlog estimate << SHIFT.
    diff: u64,
    /// The congestive state's every-other-window toggle.
    inc: bool,
    /// Segments acknowledged toward the next increment (Linux snd_cwnd_cnt).
    acc: u64,
}

impl Algorithm for Veno {
    type Config = VenoConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "veno",
        aliases: &[],
        summary: "Veno: Reno that reads Vegas's backlog: x4/5 on a loss with few packets queued, +1 every other RTT with many",
        sources: &["Fu, Liew, IEEE JSAC 21(2), 2003", "Linux net/ipv4/tcp_veno.c"],
    };
    fn new(cfg: &VenoConfig, env: &CcEnv) -> Veno {
        Veno {
            beta: (cfg.beta as u64) << SHIFT,
            ss: env.slow_start.rule(SsRule::PerAck),
            rtt: VegasRtt::new(),
            diff: 0,
            inc: true,
            acc: 0,
        }
    }
}

impl Veno {
    fn reno(&mut self, w: &mut Window, a: &AckEvent) {
        let left = slow_start(w, a.growth_bytes, self.ss);
        if left > 0 {
            cong_avoid_ai(w, &mut self.acc, w.cwnd / w.mss as u64, left);
        }
    }
}

impl CongestionControl for Veno {
    const STATE: &'static [Field] = &[
        Field {
            name: "base_rtt_s",
            unit: FieldUnit::Seconds,
            doc: "the smallest RTT seen",
        },
        Field {
            name: "diff_pkts",
            unit: FieldUnit::Pkts,
            doc: "backlog estimate cwnd - cwnd x base_rtt / rtt at the last ACK",
        },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        // Linux tcp_veno_pkts_acked
        self.rtt.sample(a.rtt);
        if !a.may_grow() {
            return;
        }
        let mss = w.mss as u64;
        // Linux's two Reno fallbacks, kept apart as it writes them
        #[allow(clippy::if_same_then_else)]
        if a.ca_state != CaState::Open {
            self.reno(w, a);
        } else if self.rtt.cnt <= 2 {
            self.reno(w, a);
        } else {
            let cwnd = w.cwnd / mss;
            let target = ((cwnd * self.rtt.base_us) << SHIFT) / self.rtt.min_us;
            self.diff = (cwnd << SHIFT).saturating_sub(target);
            let left = slow_start(w, a.growth_bytes, self.ss);
            if left > 0 {
                if self.diff < self.beta {
                    cong_avoid_ai(w, &mut self.acc, cwnd, left);
                } else if self.acc >= cwnd {
                    // congestive: one segment every other window
                    if self.inc {
                        w.cwnd += mss;
                        self.inc = false;
                    } else {
                        self.inc = true;
                    }
                    self.acc = 0;
                } else {
                    self.acc += left / mss;
                }
            }
            w.cwnd = w.cwnd.max(2 * mss);
        }
        self.rtt.min_us = NONE_US;
    }

    fn on_congestion(&mut self, w: &mut Window, _e: &CongestionEvent) -> u64 {
        let cwnd = w.cwnd / w.mss as u64;
        let s = if self.diff < self.beta {
            cwnd * 4 / 5
        } else {
            cwnd / 2
        };
        s.max(2) * w.mss as u64
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let base = self.rtt.base_s();
        out.copy_from_slice(&[base, self.diff as f64 / (1 << SHIFT) as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::cc::CongestionKind;
    use crate::units::{Dur, Time};

    const MSS: u64 = 1000;

    fn veno() -> Veno {
        Veno::new(&VenoConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// One window of ACKs (one segment each) with RTT `rtt_ms` over a 100 ms base: returns the
    /// segments added.
    fn window_growth(v: &mut Veno, w: &mut Window, rtt_ms: u64) -> u64 {
        let before = w.cwnd / MSS;
        for _ in 0..before {
            v.on_ack(
                w,
                &AckEvent {
                    rtt: Some(Dur::from_ms(rtt_ms)),
                    ..ack(MSS)
                },
            );
        }
        w.cwnd / MSS - before
    }

    /// diff = cwnd (rtt - base) / rtt: with cwnd 100, base 100 ms, rtt 102 ms diff is 1.96
    /// (non-congestive: +1 per window, loss x4/5); at rtt 110 ms 9.1 (congestive: +1 every
    /// other window, loss halves).
    #[test]
    fn backlog_picks_the_increase_and_the_decrease() {
        let mut v = veno();
        v.rtt.base_us = 100_001;
        v.rtt.cnt = 3;
        let mut w = Window {
            cwnd: 100 * MSS,
            ssthresh: 50 * MSS,
            mss: MSS as u32,
        };
        let grown: Vec<u64> = (0..4).map(|_| window_growth(&mut v, &mut w, 102)).collect();
        assert_eq!(grown, vec![1, 1, 1, 1]);
        assert!(v.diff < 6, "diff {} (half segments) below beta", v.diff);
        let ev = CongestionEvent {
            now: Time::ZERO,
            kind: CongestionKind::Loss,
            flight_size: 0,
            new_episode: true,
            lost_bytes: 0,
        };
        assert_eq!(v.on_congestion(&mut w, &ev), 104 * 4 / 5 * MSS);
        let mut w = Window {
            cwnd: 100 * MSS,
            ssthresh: 50 * MSS,
            mss: MSS as u32,
        };
        v.acc = 0;
        let grown: u64 = (0..4).map(|_| window_growth(&mut v, &mut w, 110)).sum();
        assert_eq!(grown, 2, "one segment every other window");
        assert!(v.diff >= 2 * 9, "{}", v.diff);
        assert_eq!(v.on_congestion(&mut w, &ev), 51 * MSS);
    }

    #[test]
    fn reno_until_three_samples_and_outside_open() {
        let mut v = veno();
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 5 * MSS,
            mss: MSS as u32,
        };
        assert_eq!(
            window_growth(&mut v, &mut w, 150),
            1,
            "no base yet: Reno (the first samples set base to 150)"
        );
        let mut v = veno();
        v.rtt.base_us = 100_001;
        v.rtt.cnt = 3;
        let mut w = Window {
            cwnd: 10 * MSS,
            ssthresh: 5 * MSS,
            mss: MSS as u32,
        };
        for _ in 0..20 {
            v.on_ack(
                &mut w,
                &AckEvent {
                    ca_state: CaState::Loss,
                    rtt: Some(Dur::from_ms(200)),
                    ..ack(MSS)
                },
            );
        }
        assert_eq!(w.cwnd, 11 * MSS, "after a timeout: Reno's +1 per window");
    }
}
