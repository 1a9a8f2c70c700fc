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
//! `rules = "ns3"` (the ns3 profile's default) is ns-3 3.44's `TcpWestwoodPlus`
//! (`tcp-westwood-plus.cc` with `tcp-socket-base.cc`, read for behaviour, not copied), which
//! differs from Linux's:
//! * the count is of segments as `TcpSocketBase::ProcessAck` reports them to `PktsAcked`: one
//!   for every ACK that does not move snd_una (a duplicate ACK, "after all, one segment has been
//!   ACKed"), one for a partial ACK in fast recovery, the cumulative advance (segments SACKed
//!   before included, so counted twice) for the ACK that ends the recovery, the segments newly
//!   delivered otherwise;
//! * one sample per smoothed RTT, by a timer: the first `PktsAcked` after a sample schedules the
//!   next at now + SRTT (the SRTT `PktsAcked` is handed), and the sample is the segments counted
//!   until then over that SRTT (not the elapsed time to an ACK, no 50 ms floor);
//! * one filter, Tustin's approximation with 0.9: `bw = 0.9 bw + 0.05 (sample + previous
//!   sample)`, starting from zero (so the first sample gives a twentieth of itself);
//! * the window is cut at the loss itself (`GetSsThresh`, for a loss, an ECN echo and a timeout):
//!   ssthresh = max(bw x min RTT, 2 segments) in bytes, not whole segments; the recovery (PRR)
//!   brings cwnd down to it and its end sets cwnd = ssthresh. The min RTT is the socket's
//!   `m_minRtt`, the least *smoothed* RTT of the connection (the handshake's included), never
//!   restarted.
//!
//! Deviations: `bk` counts the bytes each ACK newly delivers (cumulatively acknowledged without
//! an earlier SACK, or newly SACKed), where Linux, on its slow path, credits one MSS per
//! duplicate ACK and takes it back from the cumulative ACK that follows - the same total with
//! SACK's precision. Times in nanoseconds (Linux: jiffies, so the 50 ms floor is 12 or 13 ticks).
//! Under ns-3's rules, an ACK that moves snd_una after one or two duplicate ACKs counts its
//! delivered segments (ns-3, in its Disorder state, subtracts the duplicate ACKs seen), and
//! ns-3's bandwidth in whole bits per second is kept in floating point.

use super::law::aimd::Aimd;
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;
use crate::units::{Dur, Time};

crate::choice! {
    /// Whose Westwood+ rules.
    pub enum WestwoodRules {
        /// Linux `tcp_westwood.c`.
        Linux = "linux",
        /// ns-3 3.44 `TcpWestwoodPlus`.
        Ns3 = "ns3",
    }
}

crate::params! {
    /// Westwood+ has no tunables in Linux; the sampling floor is kept as one.
    pub struct WestwoodConfig {
        /// Shortest interval of a bandwidth sample (also at least the latest RTT).
        rtt_min_sample: Dur = Dur::from_ms(50), Time, range(>= Dur::ZERO, <= Dur::from_secs(10)), "Linux tcp_westwood.c TCP_WESTWOOD_RTT_MIN = HZ/20 (50 ms)";
        /// Whose Westwood+: "linux" (bytes delivered over max(RTT, 50 ms), two 7/8 filters, the window set at the end of the recovery) or "ns3" (ns-3's TcpWestwoodPlus: segments as PktsAcked counts them over one smoothed RTT by a timer, Tustin's filter, ssthresh = bw x least smoothed RTT at the loss); unset: the TCP profile's (ns3 in the ns3 profile, linux otherwise).
        rules: Option<WestwoodRules> = None, Choice, range(), "linux: tcp_westwood.c (westwood_update_window, westwood_filter, tcp_westwood_event CA_EVENT_COMPLETE_CWR); ns3: ns-3 3.44 tcp-westwood-plus.cc (PktsAcked schedules EstimateBW one m_srtt later; Tustin filter ALPHA 0.9; GetSsThresh = max(2 MSS, bw x m_minRtt)) with tcp-socket-base.cc's PktsAcked counts";
    }
}

/// ns-3's Tustin filter: `bw = ALPHA bw + (1 - ALPHA) (sample + previous sample) / 2`.
const NS3_ALPHA: f64 = 0.9;

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
    /// ns-3's TcpWestwoodPlus (`rules = "ns3"`).
    ns3: bool,
    /// ns-3: segments counted since the last sample (`m_ackedSegments`).
    acked_segs: u64,
    /// ns-3: when the pending sample is taken, and the smoothed RTT it divides by (the
    /// `EstimateBW` event `PktsAcked` scheduled; None while no sample is pending).
    due: Option<(Time, Dur)>,
    /// ns-3: the previous unfiltered sample, bytes/s (`m_lastSampleBW`).
    last_sample: f64,
    /// ns-3: the least smoothed RTT of the connection (`TcpSocketState::m_minRtt`).
    min_srtt: Option<Dur>,
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
            ns3: cfg.rules.unwrap_or(match env.profile {
                Profile::Ns3 => WestwoodRules::Ns3,
                Profile::Linux | Profile::Ns2 => WestwoodRules::Linux,
            }) == WestwoodRules::Ns3,
            acked_segs: 0,
            due: None,
            last_sample: 0.0,
            min_srtt: None,
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

    /// max(bw x rtt_min, 2 segments), bytes, in whole segments (Linux `tcp_westwood_bw_rttmin`);
    /// under ns-3's rules max(bw x least SRTT, 2 segments) in bytes (`TcpWestwoodPlus::GetSsThresh`).
    pub fn bw_rttmin(&self, mss: u32) -> u64 {
        if self.ns3 {
            let rtt = self.min_srtt.map_or(0.0, |d| d.secs_f64());
            return ((self.bw * rtt) as u64).max(2 * mss as u64);
        }
        let rtt = self.rtt_min.map_or(0.0, |d| d.secs_f64());
        let segs = (self.bw * rtt / mss as f64) as u64;
        segs.max(2) * mss as u64
    }

    /// ns-3's `EstimateBW`, if its time has come by `now` (the event runs before an ACK that
    /// arrives at the same instant): the segments counted over the SRTT it was scheduled with,
    /// through Tustin's filter.
    fn ns3_estimate(&mut self, now: Time, mss: u32) {
        let Some((at, rtt)) = self.due else { return };
        if now < at {
            return;
        }
        let sample = (self.acked_segs * mss as u64) as f64 / rtt.secs_f64();
        self.bw = NS3_ALPHA * self.bw + (1.0 - NS3_ALPHA) * 0.5 * (sample + self.last_sample);
        self.last_sample = sample;
        self.acked_segs = 0;
        self.due = None;
    }

    /// ns-3's rules on an ACK: the segment count `TcpSocketBase::ProcessAck` hands `PktsAcked`,
    /// and a sample scheduled one SRTT ahead if none is pending.
    fn ns3_on_ack(&mut self, w: &Window, a: &AckEvent) {
        let mss = w.mss as u64;
        self.ns3_estimate(a.now, w.mss);
        // TcpSocketBase::EstimateRtt: m_minRtt = min(m_minRtt, m_srtt) at each RTT sample
        if a.rtt.is_some() {
            self.min_srtt = Some(self.min_srtt.map_or(a.srtt, |m| m.min(a.srtt)));
        }
        let segs = if a.acked_bytes == 0 {
            // a duplicate ACK counts one segment; none when nothing is outstanding
            u64::from(a.snd_una < a.snd_nxt)
        } else if a.ca_state == CaState::Recovery {
            1 // a partial ACK: "one segment has been previously lost and now received"
        } else {
            // Open: the segments delivered; the ACK that ends the recovery: the cumulative
            // advance (the profile's growth count, `[tcp] exit_ack_growth`)
            a.growth_bytes / mss
        };
        self.acked_segs += segs;
        if self.due.is_none() && a.srtt > Dur::ZERO {
            self.due = Some((a.now + a.srtt, a.srtt));
        }
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
            doc: "the least RTT sample since the last timeout (ns-3's rules: the least smoothed RTT)",
        },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if self.ns3 {
            self.ns3_on_ack(w, a);
            // ns-3 TcpNewReno::IncreaseWindow
            self.reno.on_ack(w, a);
            return;
        }
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
        if self.ns3 {
            // TcpWestwoodPlus::GetSsThresh, for a loss, an ECN echo and a timeout alike (the
            // sender decides whether a timeout's applies)
            self.ns3_estimate(e.now, w.mss);
            return self.bw_rttmin(w.mss);
        }
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
        if self.ns3 {
            return; // ns-3: the sender's cwnd = ssthresh, set at the loss
        }
        w.ssthresh = self.bw_rttmin(w.mss);
        w.cwnd = w.ssthresh;
    }

    fn on_established(&mut self, _w: &Window, srtt: Option<Dur>) {
        // ns-3: the handshake's RTT sample seeds m_srtt, and m_minRtt with it
        if self.ns3 {
            if let Some(s) = srtt {
                self.min_srtt = Some(self.min_srtt.map_or(s, |m| m.min(s)));
            }
        }
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let rtt_min = if self.ns3 { self.min_srtt } else { self.rtt_min };
        out.copy_from_slice(&[self.bw * 8.0, rtt_min.map_or(f64::NAN, |d| d.secs_f64())]);
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

    /// ACKs delivering `per_ack` bytes every `gap` from `from` to `to`, with RTT `rtt` (a test
    /// helper whose arguments are the ACK stream's parameters, each named at its call).
    #[allow(clippy::too_many_arguments)]
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
            lost_bytes: 0,
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

    fn env(profile: Profile) -> CcEnv {
        CcEnv { profile, ..CcEnv::linux(MSS as u32, 10) }
    }

    fn ns3_westwood() -> Westwood {
        Westwood::new(&WestwoodConfig::default(), &env(Profile::Ns3))
    }

    /// The rules follow the profile: ns-3's in the ns3 profile, Linux's elsewhere, unless set.
    #[test]
    fn the_rules_follow_the_profile() {
        assert!(ns3_westwood().ns3);
        assert!(!Westwood::new(&WestwoodConfig::default(), &env(Profile::Linux)).ns3);
        assert!(!Westwood::new(&WestwoodConfig::default(), &env(Profile::Ns2)).ns3);
        let linux = WestwoodConfig { rules: Some(WestwoodRules::Linux), ..Default::default() };
        assert!(!Westwood::new(&linux, &env(Profile::Ns3)).ns3);
        let ns3 = WestwoodConfig { rules: Some(WestwoodRules::Ns3), ..Default::default() };
        assert!(Westwood::new(&ns3, &env(Profile::Linux)).ns3);
    }

    /// One ACK of one segment every ms, a smoothed RTT of 100 ms: the first ACK schedules the
    /// sample at 100 ms, which counts the ACKs of 0-99 ms (the one at 100 ms comes after it and
    /// schedules the next): 100 segments / 100 ms = 1e6 bytes/s. Tustin's filter from zero
    /// gives a twentieth of it, then 0.9 x that + 0.05 x (two samples).
    #[test]
    fn ns3_samples_once_per_srtt_by_a_timer_through_tustins_filter() {
        let mut ww = ns3_westwood();
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS as u32 };
        let srtt = Dur::from_ms(100);
        let ack_at = |ww: &mut Westwood, w: &mut Window, ms: u64| {
            let a = AckEvent { now: Time::from_ms(ms), srtt, snd_una: ms * MSS, snd_nxt: (ms + 100) * MSS, ..ack(MSS) };
            ww.on_ack(w, &a);
        };
        for ms in 0..=100 {
            ack_at(&mut ww, &mut w, ms);
        }
        assert!((ww.bw - 0.05e6).abs() < 1e-6, "{}", ww.bw);
        assert_eq!((ww.acked_segs, ww.due), (1, Some((Time::from_ms(200), srtt))));
        for ms in 101..=200 {
            ack_at(&mut ww, &mut w, ms);
        }
        let want = 0.9 * 0.05e6 + 0.05 * 2e6;
        assert!((ww.bw - want).abs() < 1e-6, "{} vs {want}", ww.bw);
        // the timer due at 300 ms fires with only the ACK of 200 ms counted (1e4 bytes/s):
        // the next event after it, a loss at 400 ms, sees that sample taken
        let loss = CongestionEvent { now: Time::from_ms(400), kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 };
        ww.on_congestion(&mut w, &loss);
        let want = 0.9 * want + 0.05 * (1e4 + 1e6);
        assert!((ww.bw - want).abs() < 1e-6, "{} vs {want}", ww.bw);
        assert_eq!((ww.acked_segs, ww.due), (0, None));
    }

    /// What `PktsAcked` counts under ns-3's rules: one segment for a duplicate ACK (none with
    /// nothing outstanding) and for a partial ACK in recovery whatever it acknowledges; the ACK
    /// that ends the recovery counts its cumulative advance, the segments SACKed (and counted as
    /// duplicate ACKs) included.
    #[test]
    fn ns3_counts_duplicate_acks_and_the_recovery_exit_again() {
        let mut ww = ns3_westwood();
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 50 * MSS, mss: MSS as u32 };
        let base = AckEvent { snd_una: 10 * MSS, snd_nxt: 110 * MSS, ..ack(0) };
        ww.on_ack(&mut w, &AckEvent { sacked_bytes: MSS, growth_bytes: 0, ..base });
        assert_eq!(ww.acked_segs, 1, "a duplicate ACK");
        ww.on_ack(&mut w, &AckEvent { snd_nxt: 10 * MSS, growth_bytes: 0, ..base });
        assert_eq!(ww.acked_segs, 1, "nothing outstanding: not counted");
        ww.on_ack(&mut w, &AckEvent { ca_state: CaState::Recovery, acked_bytes: 5 * MSS, growth_bytes: 0, ..base });
        assert_eq!(ww.acked_segs, 2, "a partial ACK: one segment");
        ww.on_ack(&mut w, &AckEvent { acked_bytes: 40 * MSS, growth_bytes: 40 * MSS, ..base });
        assert_eq!(ww.acked_segs, 42, "the recovery's end: its cumulative advance");
    }

    /// ns-3 cuts at the loss: ssthresh = bw x the least smoothed RTT, in bytes (not whole
    /// segments), and the end of the recovery leaves the sender's cwnd = ssthresh alone; the
    /// least SRTT (not the least sample) is kept through a timeout.
    #[test]
    fn ns3_cuts_at_the_loss_to_bw_times_the_least_srtt() {
        let mut ww = ns3_westwood();
        ww.on_established(&Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 }, Some(Dur::from_ms(40)));
        let mut w = Window { cwnd: 200 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        // samples of 38 ms lower the smoothed RTT only to 41 ms: the least SRTT is the handshake's
        let a = AckEvent { rtt: Some(Dur::from_ms(38)), srtt: Dur::from_ms(41), snd_nxt: 100 * MSS, ..ack(MSS) };
        ww.on_ack(&mut w, &a);
        assert_eq!(ww.min_srtt, Some(Dur::from_ms(40)));
        ww.bw = 1_234_567.0;
        let loss = CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 200 * MSS, new_episode: true, lost_bytes: 0 };
        assert_eq!(ww.on_congestion(&mut w, &loss), 49_382, "1,234,567 bytes/s x 40 ms");
        w.cwnd = 49_382;
        ww.on_recovery_exit(&mut w, Time::ZERO);
        assert_eq!(w.cwnd, 49_382);
        let to = CongestionEvent { kind: CongestionKind::Timeout, ..loss };
        assert_eq!(ww.on_congestion(&mut w, &to), 49_382);
        assert_eq!(ww.min_srtt, Some(Dur::from_ms(40)), "not restarted by a timeout");
        ww.bw = 10_000.0;
        assert_eq!(ww.on_congestion(&mut w, &loss), 2 * MSS, "at least two segments");
    }
}
