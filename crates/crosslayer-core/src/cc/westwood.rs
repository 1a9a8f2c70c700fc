//! TCP Westwood+: Reno growth (counted as the TCP profile counts it); after a loss the window is set to the estimated bandwidth times
//! the least RTT (the pipe the path held), rather than halved.
//!
//! Sources: Mascolo, Casetti, Gerla, Sanadidi, Wang, "TCP Westwood: bandwidth estimation for
//! enhanced transport over wireless links", ACM MobiCom 2001; Grieco and Mascolo, "Performance
//! evaluation and comparison of Westwood+, New Reno, and Vegas TCP congestion control", ACM CCR
//! 34(2), 2004 (the "+": one bandwidth sample per RTT); Linux `net/ipv4/tcp_westwood.c`, read
//! for behaviour (not copied). As Linux runs it:
//! * bytes delivered accumulate in `bk`; once more than max(latest RTT sample, 50 ms) has
//!   passed since the last sample, `sample = bk / elapsed` and two 7/8 EWMAs run in series:
//!   `bw_ns = 7/8 bw_ns + 1/8 sample`, `bw = 7/8 bw + 1/8 bw_ns` (the first sample sets both);
//! * `rtt_min` is the least RTT sample (restarted after a timeout);
//! * a loss enters recovery with Reno's ssthresh, max(cwnd / 2, 2); at the end of the recovery
//!   (Linux `CA_EVENT_COMPLETE_CWR`) cwnd = ssthresh = max(bw x rtt_min / MSS, 2);
//! * an ECN echo: the same window at once (the sender's reduction is immediate, the end of
//!   Linux's CWR state); a timeout: ssthresh = max(bw x rtt_min, 2), rtt_min restarts.
//!
//! Deviations: `bk` counts the bytes each ACK newly delivers (cumulatively acknowledged without
//! an earlier SACK, or newly SACKed), where Linux, on its slow path, credits one MSS per
//! duplicate ACK and takes it back from the cumulative ACK that follows - the same total with
//! SACK's precision. Times in nanoseconds (Linux: jiffies, so the 50 ms floor is 12 or 13 ticks).

use super::law::aimd::Aimd;
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Dur, Time};

crate::params! {
    /// Westwood+ has no tunables in Linux; the sampling floor is kept as one.
    pub struct WestwoodConfig {
        /// Shortest interval of a bandwidth sample (also at least the latest RTT).
        rtt_min_sample: Dur = Dur::from_ms(50), Time, range(>= Dur::ZERO, <= Dur::from_secs(10)), "Linux tcp_westwood.c TCP_WESTWOOD_RTT_MIN = HZ/20 (50 ms)";
    }
}

#[derive(Clone, Debug)]
pub struct Westwood {
    floor: Dur,
    /// Growth: Reno's, as the TCP profile counts it (Linux bytes; ns-3's TcpWestwoodPlus, a
    /// TcpNewReno, ACKs).
    reno: Aimd,
    /// Bandwidth estimates, bytes/s (bw_ns: the first filter's output).
    bw_ns: f64,
    bw: f64,
    /// Bytes delivered since `win_start`.
    bk: u64,
    win_start: Option<Time>,
    /// Latest RTT sample and the least one.
    rtt: Option<Dur>,
    rtt_min: Option<Dur>,
    reset_rtt_min: bool,
    last_delivered: u64,
}

impl Algorithm for Westwood {
    type Config = WestwoodConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "westwood",
        aliases: &["westwood+", "westwoodplus"],
        summary: "Westwood+: Reno growth; after a loss, window = estimated bandwidth x least RTT",
        sources: &[
            "Mascolo et al., ACM MobiCom 2001",
            "Grieco, Mascolo, ACM CCR 34(2), 2004",
            "Linux net/ipv4/tcp_westwood.c",
        ],
    };
    fn new(cfg: &WestwoodConfig, env: &CcEnv) -> Westwood {
        Westwood {
            floor: cfg.rtt_min_sample,
            reno: Aimd::for_profile(None, None, env),
            bw_ns: 0.0,
            bw: 0.0,
            bk: 0,
            win_start: None,
            rtt: None,
            rtt_min: None,
            reset_rtt_min: true,
            last_delivered: 0,
        }
    }
}

impl Westwood {
    /// One bandwidth sample of `bytes` over `elapsed` (Linux `westwood_filter`).
    fn filter(&mut self, bytes: u64, elapsed: Dur) {
        let sample = bytes as f64 / elapsed.secs_f64();
        if self.bw == 0.0 && self.bw_ns == 0.0 {
            self.bw_ns = sample;
            self.bw = sample;
        } else {
            self.bw_ns = (7.0 * self.bw_ns + sample) / 8.0;
            self.bw = (7.0 * self.bw + self.bw_ns) / 8.0;
        }
    }

    /// Bandwidth estimate, bytes/s.
    pub fn bandwidth(&self) -> f64 {
        self.bw
    }

    /// max(bw x rtt_min, 2 segments), bytes, in whole segments (Linux `tcp_westwood_bw_rttmin`).
    pub fn bw_rttmin(&self, mss: u32) -> u64 {
        let rtt = self.rtt_min.map_or(0.0, |d| d.secs_f64());
        let segs = (self.bw * rtt / mss as f64) as u64;
        segs.max(2) * mss as u64
    }
}

impl CongestionControl for Westwood {
    const STATE: &'static [Field] = &[
        Field {
            name: "bw_bps",
            unit: FieldUnit::Bps,
            doc: "the filtered bandwidth estimate",
        },
        Field {
            name: "rtt_min_s",
            unit: FieldUnit::Seconds,
            doc: "the least RTT sample (since the last timeout)",
        },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        // Linux westwood_update_window, then the delivered bytes and rtt_min
        let start = *self.win_start.get_or_insert(a.now);
        let elapsed = a.now - start;
        if let Some(rtt) = self.rtt {
            if elapsed > rtt.max(self.floor) {
                self.filter(self.bk, elapsed);
                self.bk = 0;
                self.win_start = Some(a.now);
            }
        }
        self.bk += a.delivered_total - self.last_delivered;
        self.last_delivered = a.delivered_total;
        if let Some(rtt) = a.rtt {
            self.rtt = Some(rtt);
        }
        if let Some(rtt) = self.rtt {
            self.rtt_min = Some(match self.rtt_min {
                Some(m) if !self.reset_rtt_min => m.min(rtt),
                _ => rtt,
            });
            self.reset_rtt_min = false;
        }
        // Linux tcp_reno_cong_avoid (ns-3: TcpNewReno::IncreaseWindow)
        self.reno.on_ack(w, a);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        match e.kind {
            // Reno's ssthresh for the recovery; on_recovery_exit sets the window
            CongestionKind::Loss => (w.cwnd / 2).max(2 * w.mss as u64),
            CongestionKind::Ecn => self.bw_rttmin(w.mss),
            CongestionKind::Timeout => {
                self.reset_rtt_min = true;
                if e.new_episode {
                    self.bw_rttmin(w.mss)
                } else {
                    w.ssthresh
                }
            }
        }
    }

    fn on_recovery_exit(&mut self, w: &mut Window, _now: Time) {
        w.ssthresh = self.bw_rttmin(w.mss);
        w.cwnd = w.ssthresh;
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[
            self.bw * 8.0,
            self.rtt_min.map_or(f64::NAN, |d| d.secs_f64()),
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;

    const MSS: u64 = 1000;

    fn westwood() -> Westwood {
        Westwood::new(&WestwoodConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// ACKs delivering `per_ack` bytes every `gap` from `from` to `to`, with RTT `rtt`.
    fn feed(
        ww: &mut Westwood,
        w: &mut Window,
        delivered: &mut u64,
        from: Time,
        to: Time,
        gap: Dur,
        per_ack: u64,
        rtt: Dur,
    ) {
        let mut t = from;
        while t < to {
            *delivered += per_ack;
            ww.on_ack(
                w,
                &AckEvent {
                    now: t,
                    rtt: Some(rtt),
                    delivered_total: *delivered,
                    cwnd_limited: false,
                    ..ack(per_ack)
                },
            );
            t += gap;
        }
    }

    /// Delivery at 1,000 bytes per ms (8 Mb/s) with a 100 ms RTT: one sample per RTT, and the
    /// two filters in series converge on the rate: after the first sample both equal it; a step
    /// to 2,000 bytes/ms moves bw_ns by 1/8 of the step per sample and bw by 1/8 of bw_ns's lead.
    #[test]
    fn two_filters_in_series_follow_the_delivery_rate() {
        let (mut ww, mut d) = (westwood(), 0);
        let mut w = Window {
            cwnd: 100 * MSS,
            ssthresh: 50 * MSS,
            mss: MSS as u32,
        };
        let rtt = Dur::from_ms(100);
        feed(
            &mut ww,
            &mut w,
            &mut d,
            Time::ZERO,
            Time::from_ms(1010),
            Dur::from_ms(1),
            1000,
            rtt,
        );
        // samples close 101 ms apart (strictly more than an RTT): 101 ACKs each
        assert!((ww.bandwidth() - 1e6).abs() < 1.0, "{}", ww.bandwidth());
        let (bw0, ns0) = (ww.bw, ww.bw_ns);
        // the ACK at 1,010 ms closes the last 1,000-byte window; the one at 1,111 ms the first
        // window of 2,000-byte ACKs: a sample of 2e6 bytes/s
        feed(
            &mut ww,
            &mut w,
            &mut d,
            Time::from_ms(1010),
            Time::from_ms(1112),
            Dur::from_ms(1),
            2000,
            rtt,
        );
        let ns1 = (7.0 * ns0 + 2e6) / 8.0;
        assert!((ww.bw_ns - ns1).abs() < 1e-3, "{} vs {ns1}", ww.bw_ns);
        assert!((ww.bw - (7.0 * bw0 + ns1) / 8.0).abs() < 1e-3, "{}", ww.bw);
        assert_eq!(ww.rtt_min, Some(rtt));
    }

    /// After a loss: ssthresh = cwnd / 2 during the recovery, then at its end cwnd = ssthresh =
    /// bw x rtt_min: 1 MB/s x 60 ms = 60 segments, whatever cwnd was (here 200, so not 100).
    #[test]
    fn recovery_ends_at_bandwidth_times_min_rtt() {
        let (mut ww, mut d) = (westwood(), 0);
        let mut w = Window {
            cwnd: 200 * MSS,
            ssthresh: 50 * MSS,
            mss: MSS as u32,
        };
        feed(
            &mut ww,
            &mut w,
            &mut d,
            Time::ZERO,
            Time::from_ms(2000),
            Dur::from_ms(1),
            1000,
            Dur::from_ms(60),
        );
        let loss = CongestionEvent {
            now: Time::from_ms(2000),
            kind: CongestionKind::Loss,
            flight_size: 200 * MSS,
            new_episode: true,
        };
        assert_eq!(ww.on_congestion(&mut w, &loss), 100 * MSS);
        ww.on_recovery_exit(&mut w, Time::from_ms(2100));
        assert_eq!((w.cwnd, w.ssthresh), (60 * MSS, 60 * MSS));
        // a timeout sets ssthresh to the same, and rtt_min restarts at the next sample
        let to = CongestionEvent {
            kind: CongestionKind::Timeout,
            ..loss
        };
        assert_eq!(ww.on_congestion(&mut w, &to), 60 * MSS);
        feed(
            &mut ww,
            &mut w,
            &mut d,
            Time::from_ms(3000),
            Time::from_ms(3001),
            Dur::from_ms(1),
            1000,
            Dur::from_ms(90),
        );
        assert_eq!(ww.rtt_min, Some(Dur::from_ms(90)));
        // no estimate yet: two segments
        assert_eq!(westwood().bw_rttmin(MSS as u32), 2 * MSS);
    }
}
