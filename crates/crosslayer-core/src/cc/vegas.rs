//! TCP Vegas: once per round trip, compare the window with the window the measured rate would
//! need at the base RTT, and keep the difference (the sender's packets queued in the network)
//! between alpha and beta.
//!
//! Source: Brakmo, O'Malley, Peterson, "TCP Vegas: New techniques for congestion detection and
//! avoidance", ACM SIGCOMM 1994, and Brakmo & Peterson, IEEE JSAC 13(8), 1995; Linux
//! `net/ipv4/tcp_vegas.c`, read for behaviour (not copied). Defaults are Linux's: alpha 2,
//! beta 4, gamma 1 packets (the paper's alpha 1, beta 3 are a parameter choice away).
//!
//! The rule, as Linux runs it:
//! * every ACK with an RTT sample: `v = rtt + 1 us`; `base_rtt = min(base_rtt, v)` (for the
//!   connection's life); `min_rtt` of the round = the least `v` in it; `cnt_rtt` += 1;
//! * once per round trip (the first ACK beyond the `snd_nxt` saved at the previous round): if
//!   the round had at most 2 RTT samples (one ACK per round is a delayed ACK), Reno's rule;
//!   otherwise, with `rtt` the round's least RTT, `target = cwnd * base_rtt / rtt` and
//!   `diff = cwnd * (rtt - base_rtt) / base_rtt` (segments, integer division):
//!   - in slow start with `diff > gamma`: `cwnd = min(cwnd, target + 1)`, ssthresh = min(ssthresh,
//!     cwnd): slow start ends;
//!   - in slow start otherwise: Linux's slow start;
//!   - in congestion avoidance: `diff > beta`: cwnd - 1 (and ssthresh follows it down);
//!     `diff < alpha`: cwnd + 1; otherwise unchanged;
//!   - cwnd at least 2; then ssthresh = max(ssthresh, 3/4 cwnd) (Linux `tcp_current_ssthresh`);
//!     the round's samples are then cleared;
//! * other ACKs: slow start if below ssthresh (Linux's; the paper's every-other-RTT growth with
//!   `slow_start = "paper"`, below);
//! * outside the Open state (fast recovery, after a timeout) Vegas is off and Reno's rule runs;
//!   back in Open it restarts its round (Linux `tcp_vegas_state`); a loss sets ssthresh as Reno
//!   (half the window).
//!
//! `slow_start = "paper"` (Brakmo & Peterson 1995 section 3.3; ns-2's Agent/TCP/Vegas, the
//! authors' x-kernel code): slow start doubles cwnd only every other round trip - a growing
//! round (one segment per acknowledged segment) then a round at a constant window, so that the
//! round's RTT measures the window it was sent with. At the end of a constant round, `diff >
//! gamma` ends slow start by cutting cwnd by an eighth (at least 2 segments; ns-2 `cwnd_ -=
//! cwnd_/8`, `ssthresh_ = 2`); the decision itself is Linux's `diff` with the round's least RTT.
//! Linux's slow start grows on every ACK and tests once per round, so by the test the window
//! has doubled again past the queue the round measured, and many flows leave slow start with
//! a standing queue that later flows take for their base RTT.
//!
//! `rules = "ns3"` (the ns3 profile's default, unless `slow_start = "paper"`) is ns-3 3.44's
//! `TcpVegas` (`tcp-vegas.cc`, read for behaviour, not copied), which differs from Linux's:
//! * its RTT is the smoothed RTT: `TcpSocketBase::ProcessAck` hands `PktsAcked` the socket's
//!   `m_srtt` (documented in ns-3.43's CHANGES.md; before 3.43 `m_lastRtt` held the same
//!   estimate), on every ACK of new data; base and round minimum are minima of SRTT, in ns;
//! * `diff = cwnd - floor(cwnd x base / rtt)`, so a fraction of a queued segment counts as a
//!   whole one (Linux: `floor(cwnd x (rtt - base) / base)`);
//! * the round closes when the ACK reaches the saved snd_nxt (`>=`; Linux: passes it);
//! * `GetSsThresh = max(min(ssthresh, cwnd - 1 segment), 2 segments)` sets ssthresh at a
//!   slow-start exit and a cut (Linux: min(ssthresh, cwnd)), and at every loss and timeout
//!   (Linux: Reno's half); then ssthresh = max(ssthresh, 3/4 cwnd in bytes);
//! * no floor of 2 segments on cwnd (kept here: with alpha, beta, gamma >= 1 ns-3 cannot go
//!   below it either, short of an RTT doubling within one slow-start round).
//!
//! Alone on a path with no queue, the smoothed RTT still exceeds the base (the handshake's
//! whole-millisecond sample seeds both; later samples average in the serialization and the
//! fraction of a millisecond), so `diff` reaches alpha at a window well under the path's and
//! the window stops there (docs/models/vegas.md, "Next to ns-3").
//!
//! Deliberate deviations: RTTs are in microseconds as in Linux, from the sender's Karn-filtered
//! samples (Linux: every ACK's `rtt_us`, also from SACKed segments); Linux re-initializes Vegas
//! (forgetting base_rtt) when a connection restarts after idle, which a bulk sender never does,
//! so it is not modelled.

use super::law::aimd::Aimd;
use super::law::{slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, SsRule, Window};
use super::law::vegas_rtt::{SrttMinima, VegasRtt};
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::stack::Profile;

crate::params! {
    /// Vegas parameters: the bounds of `diff`, the sender's packets queued in the network.
    pub struct VegasConfig {
        /// Below this many queued packets, cwnd grows by one per round trip.
        alpha: u32 = 2, Packets, range(>= 0, <= 10000), "Linux tcp_vegas.c alpha = 2 (Brakmo & Peterson 1995: 1)";
        /// Above this many queued packets, cwnd shrinks by one per round trip.
        beta: u32 = 4, Packets, range(>= 0, <= 10000), "Linux tcp_vegas.c beta = 4 (Brakmo & Peterson 1995: 3)";
        /// In slow start, more than this many queued packets end slow start.
        gamma: u32 = 1, Packets, range(>= 0, <= 10000), "Linux tcp_vegas.c gamma = 1 (Brakmo & Peterson 1995: 1)";
        /// Slow start: "linux" (grow on every ACK, test gamma once per round; cut to the rate-matched window) or "paper" (grow every other round trip, test at the end of a constant round, cut by an eighth).
        slow_start: VegasSlowStart = VegasSlowStart::Linux, Choice, range(), "linux: tcp_vegas.c tcp_vegas_cong_avoid; paper: Brakmo & Peterson 1995 section 3.3, ns-2 tcp-vegas.cc (v_inc_flag_, cwnd_ -= cwnd_/8)";
        /// Whose Vegas: "linux" (each ACK's RTT sample; diff = cwnd (rtt - base) / base; a loss halves) or "ns3" (ns-3's TcpVegas: the smoothed RTT; diff = cwnd - cwnd base / rtt; a loss or a cut leaves ssthresh at cwnd - 1); unset: the TCP profile's (ns3 in the ns3 profile unless slow_start is "paper", linux otherwise).
        rules: Option<VegasRules> = None, Choice, range(), "linux: tcp_vegas.c (tcp_vegas_pkts_acked, tcp_vegas_cong_avoid, tcp_reno_ssthresh); ns3: ns-3 3.44 tcp-vegas.cc (PktsAcked is handed TcpSocketBase's m_srtt; IncreaseWindow: targetCwnd = segCwnd x baseRtt / minRtt truncated, diff = segCwnd - targetCwnd, round closed by m_lastAckedSeq >= m_begSndNxt; GetSsThresh = max(min(ssThresh, cWnd - MSS), 2 MSS))";
    }
    check = VegasConfig::check;
}

crate::choice! {
    /// Whose Vegas rules.
    pub enum VegasRules {
        /// Linux `tcp_vegas.c`.
        Linux = "linux",
        /// ns-3 3.44 `TcpVegas`.
        Ns3 = "ns3",
    }
}

crate::choice! {
    /// Vegas's slow start.
    pub enum VegasSlowStart {
        /// Linux's: grow on every ACK, test gamma once per round trip.
        Linux = "linux",
        /// The paper's: grow every other round trip, test gamma after a round at a constant window.
        Paper = "paper",
    }
}

impl VegasConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.alpha > self.beta {
            out.push(Problem::new("alpha", format!("must not exceed beta ({}): Vegas holds diff between alpha and beta", self.beta)));
        }
        if self.rules == Some(VegasRules::Ns3) && self.slow_start == VegasSlowStart::Paper {
            out.push(Problem::new("slow_start", "\"paper\" runs with Linux's rules: ns-3's TcpVegas has only Linux's slow start (leave rules unset or set it to \"linux\")".to_string()));
        }
    }
}

#[derive(Clone, Debug)]
pub struct Vegas {
    alpha: u64,
    beta: u64,
    gamma: u64,
    /// Reno's rule, used outside the Vegas path.
    reno: Aimd,
    ss: SsRule,
    /// Vegas is on (Open state).
    on: bool,
    /// snd_nxt (bytes) when the current round began.
    beg_snd_nxt: u64,
    /// RTT samples: the connection's least, the round's least and count.
    rtt: VegasRtt,
    /// `diff` of the last Vegas decision, segments.
    last_diff: f64,
    /// The paper's slow start, and whether the current round grows the window.
    paper_ss: bool,
    growing: bool,
    /// ns-3's TcpVegas (`rules = "ns3"`), and its minima of the smoothed RTT.
    ns3: bool,
    srtt: SrttMinima,
}

impl Algorithm for Vegas {
    type Config = VegasConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "vegas",
        aliases: &[],
        summary: "Vegas: once per RTT, keep the packets queued in the network (cwnd - rate x base RTT) between alpha and beta",
        sources: &["Brakmo, O'Malley, Peterson, ACM SIGCOMM 1994", "Brakmo, Peterson, IEEE JSAC 13(8), 1995", "Linux net/ipv4/tcp_vegas.c"],
    };
    fn new(cfg: &VegasConfig, env: &CcEnv) -> Vegas {
        Vegas {
            alpha: cfg.alpha as u64,
            beta: cfg.beta as u64,
            gamma: cfg.gamma as u64,
            reno: Aimd::for_profile(None, None, env),
            ss: env.slow_start.rule(SsRule::PerAck),
            on: true,
            beg_snd_nxt: 0,
            rtt: VegasRtt::new(),
            last_diff: f64::NAN,
            paper_ss: cfg.slow_start == VegasSlowStart::Paper,
            growing: true,
            // the paper's slow start is a variant of Linux's rules (ns-3 has only Linux's)
            ns3: cfg.rules.unwrap_or(match env.profile {
                Profile::Ns3 if cfg.slow_start != VegasSlowStart::Paper => VegasRules::Ns3,
                _ => VegasRules::Linux,
            }) == VegasRules::Ns3,
            srtt: SrttMinima::default(),
        }
    }
}

impl Vegas {
    /// Start a new round (Linux `vegas_enable`).
    fn enable(&mut self, snd_nxt: u64) {
        self.on = true;
        self.beg_snd_nxt = snd_nxt;
        self.rtt.reset();
        self.srtt.reset();
    }

    /// ns-3's `TcpVegas::GetSsThresh`: one segment below cwnd, unless ssthresh is lower already
    /// (at least 2 segments). It serves the cuts below and every loss and timeout.
    fn ns3_ssthresh(w: &Window) -> u64 {
        let mss = w.mss as u64;
        w.ssthresh.min(w.cwnd.saturating_sub(mss)).max(2 * mss)
    }

    /// ns-3's once-per-round decision (`TcpVegas::IncreaseWindow`), with the round's least
    /// smoothed RTT against the connection's: the same branches as Linux's, but `diff = cwnd -
    /// floor(cwnd x base / rtt)` (Linux: `floor(cwnd x (rtt - base) / base)`, smaller by the
    /// ratio rtt / base and rounded down instead of up), ssthresh one segment below cwnd at a
    /// cut (Linux: cwnd), then at least 3/4 of cwnd in bytes.
    fn adjust_ns3(&mut self, w: &mut Window, a: &AckEvent) {
        let mss = w.mss as u64;
        let (Some(base), Some(rtt)) = (self.srtt.base, self.srtt.min) else { return };
        let mut segs = w.cwnd / mss;
        let target = (segs as f64 * (base.secs_f64() / rtt.secs_f64())) as u64;
        let diff = segs.saturating_sub(target);
        self.last_diff = diff as f64;
        if diff > self.gamma && w.in_slow_start() {
            segs = segs.min(target + 1).max(2);
            w.cwnd = segs * mss;
            w.ssthresh = Self::ns3_ssthresh(w);
        } else if w.in_slow_start() {
            slow_start(w, a.growth_bytes, self.ss);
        } else if diff > self.beta {
            // ns-3 has no floor here; with beta >= 1 diff > beta needs cwnd >= 3 segments
            w.cwnd = (segs - 1).max(2) * mss;
            w.ssthresh = Self::ns3_ssthresh(w);
        } else if diff < self.alpha {
            w.cwnd = (segs + 1) * mss;
        }
        w.ssthresh = w.ssthresh.max(3 * w.cwnd / 4);
    }

    /// The once-per-round decision with `rtt_us` the round's least RTT.
    fn adjust(&mut self, w: &mut Window, a: &AckEvent) {
        let mss = w.mss as u64;
        let cwnd = w.cwnd / mss;
        let (base, rtt) = (self.rtt.base_us, self.rtt.min_us);
        let target = cwnd * base / rtt;
        let diff = cwnd * (rtt - base) / base;
        self.last_diff = diff as f64;
        let mut segs = cwnd;
        let mut ssthresh = w.ssthresh;
        if w.in_slow_start() && self.paper_ss {
            // grow every other round; the test closes a round at a constant window
            let tested = !self.growing;
            self.growing = !self.growing;
            if tested && diff > self.gamma {
                segs -= segs / 8;
                ssthresh = ssthresh.min(segs.max(2) * mss);
                self.growing = false;
            } else if self.growing {
                slow_start(w, a.growth_bytes, self.ss);
                segs = w.cwnd / mss;
            }
        } else if diff > self.gamma && w.in_slow_start() {
            segs = segs.min(target + 1);
            ssthresh = ssthresh.min(segs * mss);
        } else if w.in_slow_start() {
            slow_start(w, a.growth_bytes, self.ss);
            segs = w.cwnd / mss;
        } else if diff > self.beta {
            segs -= 1;
            ssthresh = ssthresh.min(segs * mss);
        } else if diff < self.alpha {
            segs += 1;
        }
        segs = segs.max(2);
        w.cwnd = segs * mss;
        // Linux tcp_current_ssthresh (Vegas runs only in the Open state)
        w.ssthresh = ssthresh.max((segs / 2 + segs / 4) * mss);
    }
}

impl CongestionControl for Vegas {
    const STATE: &'static [Field] = &[
        Field { name: "base_rtt_s", unit: FieldUnit::Seconds, doc: "the smallest RTT seen (the propagation delay estimate)" },
        Field { name: "diff_pkts", unit: FieldUnit::Pkts, doc: "diff at the last once-per-RTT decision: cwnd x (rtt - base_rtt) / base_rtt" },
        Field { name: "vegas_on", unit: FieldUnit::Flag, doc: "1 while Vegas runs (Open state); 0 in recovery, when Reno's rule runs" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        // Linux tcp_vegas_pkts_acked: the ACK's RTT sample; ns-3 TcpVegas::PktsAcked: the
        // smoothed RTT, on every ACK of new data (TcpSocketBase::ProcessAck)
        if self.ns3 {
            if a.acked_bytes > 0 {
                self.srtt.sample(a.srtt);
            }
        } else {
            self.rtt.sample(a.rtt);
        }
        // Linux tcp_vegas_state: off outside Open, a fresh round on returning to it
        if a.ca_state != CaState::Open {
            self.on = false;
        } else if !self.on {
            self.enable(a.snd_nxt);
        }
        if !self.on {
            self.reno.on_ack(w, a);
            return;
        }
        // Linux calls cong_avoid when new data is acknowledged (tcp_may_raise_cwnd)
        if a.acked_bytes == 0 {
            return;
        }
        if self.ns3 {
            // ns-3 closes the round when the ACK reaches the saved snd_nxt (Linux: passes it)
            if a.snd_una >= self.beg_snd_nxt {
                self.beg_snd_nxt = a.snd_nxt;
                if self.srtt.cnt <= 2 {
                    self.reno.on_ack(w, a);
                } else {
                    self.adjust_ns3(w, a);
                }
                self.srtt.reset();
            } else if w.in_slow_start() {
                slow_start(w, a.growth_bytes, self.ss);
            }
            return;
        }
        if a.snd_una > self.beg_snd_nxt {
            self.beg_snd_nxt = a.snd_nxt;
            if self.rtt.cnt <= 2 {
                self.reno.on_ack(w, a);
            } else {
                self.adjust(w, a);
            }
            self.rtt.reset();
        } else if w.in_slow_start() && (self.growing || !self.paper_ss) {
            slow_start(w, a.growth_bytes, self.ss);
        }
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        self.on = false;
        if self.ns3 {
            // ns-3's TcpVegas::GetSsThresh at a loss or a timeout too, not Reno's half
            return Self::ns3_ssthresh(w);
        }
        self.reno.on_congestion(w, e)
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let base = if self.ns3 { self.srtt.base.map_or(f64::NAN, |b| b.secs_f64()) } else { self.rtt.base_s() };
        out.copy_from_slice(&[base, self.last_diff, self.on as u8 as f64]);
    }
}

#[cfg(test)]
mod tests {
    use crate::cc::law::vegas_rtt::NONE_US;
    use super::*;
    use crate::cc::testing::ack;
    use crate::units::Dur;

    const MSS: u64 = 1000;

    fn vegas() -> Vegas {
        Vegas::new(&VegasConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// The ACK that closes a round whose least RTT was `rtt_us` (with `samples` samples), with
    /// base RTT `base_us`: returns the window after Vegas's decision.
    fn close_round(cwnd: u64, ssthresh: u64, base_us: u64, rtt_us: u64, samples: u32) -> (Window, Vegas) {
        let mut v = vegas();
        v.rtt.base_us = base_us;
        v.rtt.min_us = rtt_us;
        v.rtt.cnt = samples;
        v.beg_snd_nxt = 0;
        let mut w = Window { cwnd: cwnd * MSS, ssthresh, mss: MSS as u32 };
        v.on_ack(&mut w, &AckEvent { snd_una: MSS, snd_nxt: cwnd * MSS, ..ack(MSS) });
        (w, v)
    }

    /// Congestion avoidance, base RTT 100 ms, cwnd 40: diff = 40 (rtt - base) / base, in whole
    /// segments. Below alpha (2) +1, from alpha to beta (4) hold, above beta -1 with ssthresh
    /// following cwnd down (then at least 3/4 cwnd, Linux tcp_current_ssthresh).
    #[test]
    fn plus_one_hold_minus_one_around_alpha_and_beta() {
        let base = 100_000;
        for (rtt, diff, want) in [(100_000, 0, 41), (104_999, 1, 41), (105_000, 2, 40), (112_499, 4, 40), (112_500, 5, 39), (150_000, 20, 39)] {
            let (w, v) = close_round(40, 20 * MSS, base, rtt, 3);
            assert_eq!(v.last_diff, diff as f64, "rtt {rtt} us");
            assert_eq!(w.cwnd, want * MSS, "rtt {rtt} us, diff {diff}");
            // ssthresh: min(20, cwnd) on a cut, then at least 3/4 cwnd
            assert_eq!(w.ssthresh, 20.max(want / 2 + want / 4) * MSS, "rtt {rtt} us");
        }
    }

    /// The paper's alpha 1, beta 3: diff 1 holds, diff 0 grows, diff 4 shrinks.
    #[test]
    fn the_papers_alpha_and_beta() {
        let cfg = VegasConfig { alpha: 1, beta: 3, ..Default::default() };
        for (rtt, want) in [(100_000, 41), (102_500, 40), (107_500, 40), (110_000, 39)] {
            let mut v = Vegas::new(&cfg, &CcEnv::linux(MSS as u32, 10));
            v.rtt.base_us = 100_000;
            v.rtt.min_us = rtt;
            v.rtt.cnt = 3;
            let mut w = Window { cwnd: 40 * MSS, ssthresh: 20 * MSS, mss: MSS as u32 };
            v.on_ack(&mut w, &AckEvent { snd_una: MSS, snd_nxt: 40 * MSS, ..ack(MSS) });
            assert_eq!(w.cwnd, want * MSS, "rtt {rtt}");
        }
    }

    /// Slow start: diff 1 (= gamma) keeps slow start going; diff 4 > gamma sets cwnd to
    /// min(cwnd, target + 1) with target = cwnd x base / rtt, and ends slow start.
    #[test]
    fn slow_start_exits_when_diff_exceeds_gamma() {
        let (w, _) = close_round(40, u64::MAX, 100_000, 103_000, 3);
        assert!(w.in_slow_start() && w.cwnd == 41 * MSS, "diff 1: slow start goes on ({} segments)", w.cwnd / MSS);
        let (w, v) = close_round(40, u64::MAX, 100_000, 110_000, 3);
        assert_eq!(v.last_diff, 4.0);
        assert_eq!(w.cwnd, (40 * 100_000 / 110_000 + 1) * MSS); // 37
        assert!(!w.in_slow_start());
        assert_eq!(w.ssthresh, 37 * MSS);
    }

    /// The paper's slow start: a growing round, then a round at a constant window; the test of
    /// gamma closes the constant round, and diff > gamma cuts cwnd by an eighth and ends slow
    /// start. Linux's grows on every ACK of every round.
    #[test]
    fn the_papers_slow_start_grows_every_other_round_and_cuts_an_eighth() {
        let cfg = VegasConfig { slow_start: VegasSlowStart::Paper, ..Default::default() };
        let mut v = Vegas::new(&cfg, &CcEnv::linux(MSS as u32, 10));
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        let mut una = 0;
        let mut round = |v: &mut Vegas, w: &mut Window, rtt_ms: u64, acks: u64| {
            // a round trip: an ACK per segment of the window; the first closes the last round
            let (start, from) = (w.cwnd, una);
            for _ in 0..acks.min(w.cwnd / MSS) {
                una += MSS;
                v.on_ack(w, &AckEvent { rtt: Some(Dur::from_ms(rtt_ms)), snd_una: una, snd_nxt: from + start, ..ack(MSS) });
            }
        };
        let mut sizes = vec![];
        for _ in 0..4 {
            round(&mut v, &mut w, 100, u64::MAX);
            sizes.push(w.cwnd / MSS);
        }
        // growing, constant, growing, constant (no queue: diff 0)
        assert_eq!(sizes, vec![20, 20, 40, 40], "windows after each round");
        // a growing round to 80 and a constant one, both measuring 110 ms against the 100 ms
        // base: the ACK that closes the constant round finds diff = 80 x 10 / 100 (7 in whole
        // segments, with Linux's 1 us added to each RTT) > gamma
        round(&mut v, &mut w, 110, u64::MAX);
        round(&mut v, &mut w, 110, u64::MAX);
        assert_eq!(w.cwnd, 80 * MSS);
        assert!(w.in_slow_start());
        round(&mut v, &mut w, 110, 1);
        assert_eq!(v.last_diff, 7.0);
        assert_eq!(w.cwnd, 70 * MSS, "80 - 80 / 8");
        assert!(!w.in_slow_start());
    }

    /// Two samples in a round (one delayed ACK per RTT) are not enough: Reno's rule decides.
    #[test]
    fn too_few_samples_fall_back_to_reno() {
        let (w, v) = close_round(10, 5 * MSS, 100_000, 900_000, 2);
        assert!(v.last_diff.is_nan());
        assert_eq!(w.cwnd, 10 * MSS, "Reno's byte counting: not yet a window's worth");
        let (w, _) = close_round(10, 5 * MSS, 100_000, 900_000, 3);
        assert_eq!(w.cwnd, 9 * MSS, "with 3 samples Vegas cuts");
    }

    fn ns3_vegas(cfg: VegasConfig) -> Vegas {
        Vegas::new(&cfg, &CcEnv { profile: Profile::Ns3, ..CcEnv::linux(MSS as u32, 10) })
    }

    /// The ACK that closes a round under ns-3's rules, the round's least smoothed RTT `rtt_us`
    /// (3 reports) against a base of `base_us`.
    fn close_round_ns3(cwnd: u64, ssthresh: u64, base_us: u64, rtt_us: u64) -> (Window, Vegas) {
        let mut v = ns3_vegas(VegasConfig::default());
        v.srtt = SrttMinima { base: Some(Dur::from_us(base_us)), min: Some(Dur::from_us(rtt_us)), cnt: 3 };
        let mut w = Window { cwnd: cwnd * MSS, ssthresh, mss: MSS as u32 };
        // the ACK reaches the saved snd_nxt exactly: ns-3 closes the round (>=)
        v.beg_snd_nxt = MSS;
        v.on_ack(&mut w, &AckEvent { snd_una: MSS, snd_nxt: cwnd * MSS, srtt: Dur::from_us(rtt_us), ..ack(MSS) });
        (w, v)
    }

    /// The rules follow the profile: ns-3's in the ns3 profile (unless the paper's slow start is
    /// asked for, which runs with Linux's), Linux's elsewhere; ns-3's rules with the paper's slow
    /// start are refused.
    #[test]
    fn the_rules_follow_the_profile() {
        let env = |profile| CcEnv { profile, ..CcEnv::linux(MSS as u32, 10) };
        assert!(Vegas::new(&VegasConfig::default(), &env(Profile::Ns3)).ns3);
        assert!(!Vegas::new(&VegasConfig::default(), &env(Profile::Linux)).ns3);
        assert!(!Vegas::new(&VegasConfig::default(), &env(Profile::Ns2)).ns3);
        let paper = VegasConfig { slow_start: VegasSlowStart::Paper, ..Default::default() };
        assert!(!Vegas::new(&paper, &env(Profile::Ns3)).ns3);
        let linux_rules = VegasConfig { rules: Some(VegasRules::Linux), ..Default::default() };
        assert!(!Vegas::new(&linux_rules, &env(Profile::Ns3)).ns3);
        let mut out = vec![];
        VegasConfig { rules: Some(VegasRules::Ns3), ..paper }.check(&mut out);
        assert_eq!(out.len(), 1);
    }

    /// ns-3's TcpVegas takes the smoothed RTT that TcpSocketBase hands PktsAcked, on every ACK
    /// of new data, whether or not the ACK gave a sample, with no microsecond added; the base is
    /// the least of them.
    #[test]
    fn ns3_takes_the_smoothed_rtt_of_every_ack() {
        let mut v = ns3_vegas(VegasConfig::default());
        let mut w = Window { cwnd: 20 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        v.beg_snd_nxt = 100 * MSS;
        for (i, (srtt_us, sample)) in [(40_000, Some(40)), (40_125, None), (40_109, Some(41))].into_iter().enumerate() {
            let a = AckEvent { rtt: sample.map(Dur::from_ms), srtt: Dur::from_us(srtt_us), snd_una: (i as u64 + 1) * MSS, snd_nxt: 30 * MSS, ..ack(MSS) };
            v.on_ack(&mut w, &a);
        }
        assert_eq!((v.srtt.base, v.srtt.min, v.srtt.cnt), (Some(Dur::from_us(40_000)), Some(Dur::from_us(40_000)), 3));
        // an ACK of no new data (a duplicate) reports nothing
        v.on_ack(&mut w, &AckEvent { srtt: Dur::from_us(39_000), snd_una: 3 * MSS, snd_nxt: 30 * MSS, ..ack(0) });
        assert_eq!(v.srtt.cnt, 3);
    }

    /// ns-3's diff is cwnd - floor(cwnd x base / rtt): a queue of a fraction of a segment counts
    /// as a whole one, so diff reaches alpha (2) once cwnd x (rtt - base) / rtt passes 1. Base
    /// 40 ms (the handshake's whole-millisecond sample), the round's least SRTT 40.23 ms with no
    /// queue (SRTT averaging whole-millisecond samples of a 40.2 ms path): at 209 segments diff
    /// = 209 - 207 = 2 and the window holds (Linux: floor(209 x 0.23 / 40) = 1, it grows); up to
    /// 174 segments diff is 1 and it grows, from 176 it holds. This is ns-3's single flow frozen
    /// at 209 segments, 60 % of the path (docs/models/vegas.md).
    #[test]
    fn ns3_rounds_diff_up_and_holds_without_a_queue() {
        for (cwnd, diff, want) in [(150, 1, 151), (174, 1, 175), (176, 2, 176), (209, 2, 209), (352, 3, 352), (400, 3, 400)] {
            let (w, v) = close_round_ns3(cwnd, 20 * MSS, 40_000, 40_230);
            assert_eq!(v.last_diff, diff as f64, "cwnd {cwnd}");
            assert_eq!(w.cwnd, want * MSS, "cwnd {cwnd}");
        }
        // Linux's rules on the same RTTs grow at 209
        let (w, v) = close_round(209, 20 * MSS, 40_000, 40_230, 3);
        assert_eq!((v.last_diff, w.cwnd), (1.0, 210 * MSS));
    }

    /// ns-3's cuts: diff > beta removes a segment and sets ssthresh one segment below the new
    /// cwnd (TcpVegas::GetSsThresh), then at least 3/4 of cwnd; diff > gamma in slow start sets
    /// cwnd to target + 1 and ssthresh to cwnd - 1 segment, which ends slow start.
    #[test]
    fn ns3_cuts_leave_ssthresh_a_segment_below_cwnd() {
        // base 100 ms, rtt 115 ms, cwnd 40: target = floor(40 / 1.15) = 34, diff 6 > beta
        let (w, v) = close_round_ns3(40, 40 * MSS, 100_000, 115_000);
        assert_eq!(v.last_diff, 6.0);
        assert_eq!((w.cwnd, w.ssthresh), (39 * MSS, 38 * MSS));
        // ssthresh below 3/4 cwnd is raised to it: 29.25 segments, in bytes
        let (w, _) = close_round_ns3(40, 10 * MSS, 100_000, 115_000);
        assert_eq!((w.cwnd, w.ssthresh), (39 * MSS, 3 * 39 * MSS / 4));
        // slow start: target 34, diff 6 > gamma: cwnd 35, ssthresh 34, slow start over
        let (w, _) = close_round_ns3(40, u64::MAX, 100_000, 115_000);
        assert_eq!((w.cwnd, w.ssthresh), (35 * MSS, 34 * MSS));
        assert!(!w.in_slow_start());
        // diff 1 = gamma: slow start goes on (one segment per ACK)
        let (w, v) = close_round_ns3(40, u64::MAX, 100_000, 102_000);
        assert_eq!((v.last_diff, w.cwnd), (1.0, 41 * MSS));
    }

    /// ns-3's loss response is TcpVegas::GetSsThresh as well: ssthresh one segment below cwnd
    /// (or the lower ssthresh Vegas kept), not Reno's half.
    #[test]
    fn ns3_loss_keeps_all_but_a_segment() {
        use crate::cc::CongestionKind;
        let mut v = ns3_vegas(VegasConfig::default());
        let e = CongestionEvent { now: crate::units::Time::ZERO, kind: CongestionKind::Loss, flight_size: 100 * MSS, new_episode: true, lost_bytes: 0 };
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        assert_eq!(v.on_congestion(&mut w, &e), 99 * MSS);
        let mut w = Window { cwnd: 100 * MSS, ssthresh: 80 * MSS, mss: MSS as u32 };
        assert_eq!(v.on_congestion(&mut w, &e), 80 * MSS);
        assert!(!v.on);
        let mut linux = vegas();
        assert_eq!(linux.on_congestion(&mut w, &e), 50 * MSS);
    }

    /// Per-ACK samples: base RTT is the least ever seen (+1 us), the round's minimum restarts
    /// each round; outside Open Vegas is off and Reno runs; back in Open a new round starts.
    #[test]
    fn samples_rounds_and_recovery() {
        let mut v = vegas();
        let mut w = Window { cwnd: 20 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 };
        let mut una = 0;
        for rtt in [120, 110, 130] {
            una += MSS;
            v.on_ack(&mut w, &AckEvent { rtt: Some(Dur::from_ms(rtt)), snd_una: una, snd_nxt: una + 20 * MSS, ..ack(MSS) });
        }
        // the first ACK closed round 0 (with one sample: Reno); 110 ms and 130 ms are this round's
        assert_eq!(v.rtt.base_us, 110_001);
        assert_eq!((v.rtt.min_us, v.rtt.cnt), (110_001, 2));
        v.on_ack(&mut w, &AckEvent { ca_state: CaState::Recovery, snd_una: una, snd_nxt: una + 20 * MSS, ..ack(0) });
        assert!(!v.on);
        una += MSS;
        v.on_ack(&mut w, &AckEvent { snd_una: una, snd_nxt: una + 5 * MSS, ..ack(MSS) });
        assert!(v.on);
        assert_eq!((v.beg_snd_nxt, v.rtt.cnt, v.rtt.min_us), (una + 5 * MSS, 0, NONE_US));
    }
}
