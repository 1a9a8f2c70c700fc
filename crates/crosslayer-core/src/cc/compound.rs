//! Compound TCP (CTCP): Reno's loss window plus a delay window that grows scalably while the
//! network holds fewer than gamma of the flow's packets and shrinks by the estimated backlog
//! once it holds more.
//!
//! Source: draft-sridharan-tcpm-ctcp-02 (Sridharan, Tan, Bansal, Thaler, November 2008), the
//! behaviour of Windows' Compound TCP that seed papers 000, 001 and 003 measured; Tan, Song,
//! Zhang, Sridharan, "A Compound TCP approach for high-speed and long distance networks", IEEE
//! INFOCOM 2006. Linux has no Compound module and ns-3 mainline has none either.
//!
//! The window that limits sending is `win = lwnd + dwnd` (segments; `Window::cwnd` holds it in
//! bytes, the receiver window applies on top as for every flow):
//! * slow start: Reno's (`[tcp] slow_start`), with `dwnd = 0`;
//! * congestion avoidance, per segment acknowledged: `lwnd += 1 / win` (Reno's loss window grows
//!   by one segment per round trip of the whole window);
//! * once per round trip, from the round's least RTT sample `rtt` and the connection's least
//!   `base_rtt`, Vegas's backlog estimate `diff = win x (1 - base_rtt / rtt)`
//!   (`= (expected - actual) x base_rtt`); only while `win >= low_wnd`:
//!   `diff < gamma`: `dwnd += max(alpha x win^k - 1, 0)`; otherwise `dwnd = max(dwnd - eta x
//!   diff, 0)`;
//! * loss (fast retransmit, or an ECN echo): `lwnd = lwnd / 2`, `dwnd = max(win x (1 - beta) -
//!   lwnd / 2, 0)` with `lwnd` before the halving: the whole window becomes `win x (1 - beta)`
//!   (half of it with beta 1/2), never less than the halved loss window;
//! * timeout: `dwnd = 0` and Reno's rules (ssthresh half the window, slow start from one
//!   segment).
//!
//! When the sender changes the window itself (the recovery's reductions, the loss window after a
//! timeout), the delay window keeps its size up to that window and the loss window is the rest.
//!
//! Options: `gamma_tuning` (the draft's automatic gamma, off by default): at each loss the
//! backlog estimate of the last round gives a sample `3/4 x diff`, gamma moves to
//! `lambda x gamma + (1 - lambda) x sample` and is kept in [gamma_low, gamma_high].
//!
//! Deliberate deviations: windows in fractional segments (the draft's pseudocode uses segments;
//! Windows keeps bytes); the RTT of the round is the least sample, as Vegas's (the draft speaks
//! of the measured RTT without naming a filter); `low_wnd` is a parameter (41 segments, the
//! window below which the draft keeps the delay window off, the value HighSpeed TCP's 38 also
//! approximates).

use super::law::{slow_start};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, SsRule, Window};
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::params! {
    /// Compound TCP parameters; the defaults are the draft's.
    pub struct CompoundConfig {
        /// Scale of the delay window's growth per round trip: alpha x win^k.
        alpha: f64 = 0.125, Number("segments^(1-k)"), range(> 0.0, <= 10.0), "draft-sridharan-tcpm-ctcp-02 section 3 (alpha = 1/8)";
        /// Multiplicative decrease of the whole window on a loss.
        beta: f64 = 0.5, Ratio, range(> 0.0, < 1.0), "draft-sridharan-tcpm-ctcp-02 section 3 (beta = 1/2)";
        /// Exponent of the delay window's growth (0.75: HighSpeed TCP's aggressiveness).
        k: f64 = 0.75, Number(""), range(> 0.0, < 1.0), "draft-sridharan-tcpm-ctcp-02 section 3 (k = 0.75)";
        /// How much of the estimated backlog the delay window gives back per round trip.
        eta: f64 = 1.0, Number(""), range(> 0.0, <= 10.0), "draft-sridharan-tcpm-ctcp-02 section 3 (eta = 1)";
        /// Backlog (segments) at which the delay window stops growing and starts shrinking.
        gamma: f64 = 30.0, Number("pkts"), range(> 0.0), "draft-sridharan-tcpm-ctcp-02 section 3 (gamma = 30 packets)";
        /// Window (segments) below which the delay window is not used.
        low_wnd: f64 = 41.0, Number("pkts"), range(>= 0.0), "draft-sridharan-tcpm-ctcp-02 (delay component off for small windows; 41 segments)";
        /// Tune gamma from the backlog seen at each loss (the draft's automatic tuning).
        gamma_tuning: bool = false, Flag, range(), "draft-sridharan-tcpm-ctcp-02 (gamma auto-tuning is optional)";
        /// With gamma_tuning: weight of the old gamma.
        lambda: f64 = 0.8, Ratio, range(>= 0.0, < 1.0), "draft-sridharan-tcpm-ctcp-02 gamma tuning (lambda = 0.8)";
        /// With gamma_tuning: lowest gamma.
        gamma_low: f64 = 5.0, Number("pkts"), range(> 0.0), "draft-sridharan-tcpm-ctcp-02 gamma tuning (gamma_low = 5)";
        /// With gamma_tuning: highest gamma.
        gamma_high: f64 = 30.0, Number("pkts"), range(> 0.0), "draft-sridharan-tcpm-ctcp-02 gamma tuning (gamma_high = 30)";
    }
    check = CompoundConfig::check;
}

impl CompoundConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.gamma_low > self.gamma_high {
            out.push(Problem::new("gamma_low", format!("must not exceed gamma_high ({})", crate::params::num(self.gamma_high))));
        }
    }
}

#[derive(Clone, Debug)]
pub struct Compound {
    cfg: CompoundConfig,
    ss: SsRule,
    /// Loss window (Reno's), segments.
    lwnd: f64,
    /// Delay window, segments.
    dwnd: f64,
    /// gamma in use (tuned when gamma_tuning).
    gamma: f64,
    /// The window last written to `Window::cwnd`, bytes (to notice the sender's own changes).
    written: u64,
    beg_snd_nxt: u64,
    base_rtt_s: f64,
    round_min_rtt_s: f64,
    /// Backlog estimate of the last round, segments.
    diff: f64,
}

impl Algorithm for Compound {
    type Config = CompoundConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "compound",
        aliases: &["ctcp"],
        summary: "Compound TCP: Reno's loss window plus a delay window growing as alpha x win^k while fewer than gamma packets are queued",
        sources: &["draft-sridharan-tcpm-ctcp-02 (2008)", "Tan, Song, Zhang, Sridharan, IEEE INFOCOM 2006"],
    };
    fn new(cfg: &CompoundConfig, env: &CcEnv) -> Compound {
        let mss = env.mss as f64;
        Compound {
            cfg: cfg.clone(),
            ss: env.slow_start.rule(SsRule::PerAck),
            lwnd: env.initial_cwnd as f64 / mss,
            dwnd: 0.0,
            gamma: cfg.gamma,
            written: env.initial_cwnd,
            beg_snd_nxt: 0,
            base_rtt_s: f64::INFINITY,
            round_min_rtt_s: f64::INFINITY,
            diff: f64::NAN,
        }
    }
}

impl Compound {
    /// Take over a window the sender set (recovery, timeout): the delay window keeps what fits.
    fn sync(&mut self, w: &Window) {
        if w.cwnd != self.written {
            let total = w.cwnd as f64 / w.mss as f64;
            self.dwnd = self.dwnd.min(total);
            self.lwnd = total - self.dwnd;
            self.written = w.cwnd;
        }
    }

    fn write(&mut self, w: &mut Window) {
        let mss = w.mss as f64;
        w.cwnd = (((self.lwnd + self.dwnd) * mss) as u64).max(w.mss as u64);
        self.written = w.cwnd;
    }

    /// The once-per-round update of the delay window.
    fn round(&mut self, w: &Window) {
        let rtt = self.round_min_rtt_s;
        if !rtt.is_finite() {
            return;
        }
        let win = self.lwnd + self.dwnd;
        self.diff = win * (1.0 - self.base_rtt_s / rtt);
        if w.in_slow_start() || win < self.cfg.low_wnd {
            return;
        }
        if self.diff < self.gamma {
            self.dwnd += (self.cfg.alpha * win.powf(self.cfg.k) - 1.0).max(0.0);
        } else {
            self.dwnd = (self.dwnd - self.cfg.eta * self.diff).max(0.0);
        }
    }
}

impl CongestionControl for Compound {
    const STATE: &'static [Field] = &[
        Field { name: "lwnd_pkts", unit: FieldUnit::Pkts, doc: "the loss window (Reno's part)" },
        Field { name: "dwnd_pkts", unit: FieldUnit::Pkts, doc: "the delay window" },
        Field { name: "diff_pkts", unit: FieldUnit::Pkts, doc: "backlog estimate of the last round: win x (1 - base_rtt / rtt)" },
        Field { name: "gamma_pkts", unit: FieldUnit::Pkts, doc: "gamma in use (tuned with gamma_tuning)" },
        Field { name: "base_rtt_s", unit: FieldUnit::Seconds, doc: "the least RTT seen" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        self.sync(w);
        if let Some(rtt) = a.rtt {
            let r = rtt.secs_f64();
            self.base_rtt_s = self.base_rtt_s.min(r);
            self.round_min_rtt_s = self.round_min_rtt_s.min(r);
        }
        if a.snd_una > self.beg_snd_nxt {
            self.beg_snd_nxt = a.snd_nxt;
            if a.ca_state == CaState::Open {
                self.round(w);
            }
            self.round_min_rtt_s = f64::INFINITY;
        }
        if a.may_grow() {
            let mss = w.mss as f64;
            let left = if w.in_slow_start() {
                // Reno's slow start on the loss window (the delay window is 0 below ssthresh)
                let before = w.cwnd;
                let left = slow_start(w, a.growth_bytes, self.ss);
                self.lwnd += (w.cwnd - before) as f64 / mss;
                left
            } else {
                a.growth_bytes
            };
            if left > 0 {
                self.lwnd += left as f64 / mss / (self.lwnd + self.dwnd);
            }
        }
        self.write(w);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        self.sync(w);
        let mss = w.mss as f64;
        let win = self.lwnd + self.dwnd;
        if e.kind == CongestionKind::Timeout {
            if e.new_episode {
                self.lwnd = win;
                self.dwnd = 0.0;
            }
            return ((win / 2.0).max(2.0) * mss) as u64;
        }
        if self.cfg.gamma_tuning && self.diff.is_finite() {
            let sample = 0.75 * self.diff;
            let l = self.cfg.lambda;
            self.gamma = (l * self.gamma + (1.0 - l) * sample).clamp(self.cfg.gamma_low, self.cfg.gamma_high);
        }
        let half = self.lwnd / 2.0;
        self.dwnd = (win * (1.0 - self.cfg.beta) - half).max(0.0);
        self.lwnd = half;
        let total = (self.lwnd + self.dwnd).max(2.0);
        // the sender sets cwnd to the returned ssthresh when recovery starts
        self.written = (total * mss) as u64;
        self.written
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let base = if self.base_rtt_s.is_finite() { self.base_rtt_s } else { f64::NAN };
        out.copy_from_slice(&[self.lwnd, self.dwnd, self.diff, self.gamma, base]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::units::Time;

    const MSS: u64 = 1000;

    fn compound(cfg: CompoundConfig) -> Compound {
        Compound::new(&cfg, &CcEnv::linux(MSS as u32, 10))
    }

    /// A Compound flow in congestion avoidance with `lwnd` + `dwnd` segments and base RTT
    /// 100 ms.
    fn at(lwnd: f64, dwnd: f64, cfg: CompoundConfig) -> (Compound, Window) {
        let mut c = compound(cfg);
        c.lwnd = lwnd;
        c.dwnd = dwnd;
        c.base_rtt_s = 0.1;
        let w = Window { cwnd: ((lwnd + dwnd) * MSS as f64) as u64, ssthresh: 10 * MSS, mss: MSS as u32 };
        c.written = w.cwnd;
        (c, w)
    }

    /// One round: the ACK closing it carries no new data growth (not cwnd-limited), so only
    /// the delay window moves; the round's least RTT is `rtt_ms`.
    fn close_round(c: &mut Compound, w: &mut Window, una: &mut u64, rtt_ms: f64) {
        c.round_min_rtt_s = rtt_ms / 1e3;
        *una = c.beg_snd_nxt + MSS;
        c.on_ack(w, &AckEvent { snd_una: *una, snd_nxt: *una + w.cwnd, cwnd_limited: false, rtt: None, now: Time::ZERO, ..ack(MSS) });
    }

    /// diff < gamma: dwnd grows by alpha x win^k - 1 per round; the growth compounds (win
    /// includes dwnd).
    #[test]
    fn delay_window_grows_as_alpha_win_to_the_k_minus_one() {
        let (mut c, mut w) = at(100.0, 0.0, CompoundConfig::default());
        let mut una = 0;
        let mut dwnd = 0.0f64;
        for _ in 0..10 {
            let win: f64 = 100.0 + dwnd;
            dwnd += (0.125 * win.powf(0.75) - 1.0).max(0.0);
            close_round(&mut c, &mut w, &mut una, 100.0); // no queue: diff 0
            assert!((c.dwnd - dwnd).abs() < 1e-9, "dwnd {} expected {dwnd}", c.dwnd);
            assert_eq!(c.diff, 0.0);
        }
        assert_eq!(w.cwnd, ((100.0 + dwnd) * MSS as f64) as u64, "the sender's window is lwnd + dwnd");
        // below the growth threshold alpha win^k <= 1 (win <= 16) nothing is added; below low_wnd neither
        let (mut c, mut w) = at(30.0, 0.0, CompoundConfig::default());
        close_round(&mut c, &mut w, &mut una, 100.0);
        assert_eq!(c.dwnd, 0.0, "win 30 < low_wnd 41");
    }

    /// diff >= gamma: dwnd falls by eta x diff (not below 0). win 200 (100 + 100), base 100 ms,
    /// rtt 125 ms: diff = 200 x (1 - 100/125) = 40 >= 30: dwnd = 100 - 40 = 60; then with eta 2
    /// and rtt 200 ms (diff 100) it goes to 0.
    #[test]
    fn delay_window_shrinks_by_eta_diff_above_gamma() {
        let (mut c, mut w) = at(100.0, 100.0, CompoundConfig::default());
        let mut una = 0;
        close_round(&mut c, &mut w, &mut una, 125.0);
        assert!((c.diff - 40.0).abs() < 1e-9);
        assert!((c.dwnd - 60.0).abs() < 1e-9, "dwnd {}", c.dwnd);
        // diff just under gamma: growth again
        let (mut c, mut w) = at(100.0, 100.0, CompoundConfig::default());
        close_round(&mut c, &mut w, &mut una, 100.0 / (1.0 - 29.9 / 200.0));
        assert!(c.dwnd > 100.0);
        let (mut c, mut w) = at(100.0, 100.0, CompoundConfig { eta: 2.0, ..Default::default() });
        close_round(&mut c, &mut w, &mut una, 200.0);
        assert_eq!(c.dwnd, 0.0);
    }

    /// Per segment acknowledged in congestion avoidance the loss window grows by 1/win: one
    /// segment per round trip of the whole window, whatever its split.
    #[test]
    fn loss_window_grows_one_per_window() {
        let (mut c, mut w) = at(100.0, 60.0, CompoundConfig::default());
        c.beg_snd_nxt = u64::MAX; // no round ends
        for _ in 0..160 {
            c.on_ack(&mut w, &AckEvent { snd_una: 0, ..ack(MSS) });
        }
        assert!((c.lwnd - 101.0).abs() < 0.01, "lwnd {}", c.lwnd);
        assert_eq!(c.dwnd, 60.0);
    }

    /// Loss: lwnd halves, dwnd = max(win (1 - beta) - lwnd / 2, 0): the whole window halves
    /// (beta 1/2); ssthresh is that window. A timeout drops the delay window.
    #[test]
    fn loss_halves_the_whole_window_and_timeout_clears_the_delay_window() {
        let ev = |kind| CongestionEvent { now: Time::ZERO, kind, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let (mut c, mut w) = at(100.0, 60.0, CompoundConfig::default());
        let ss = c.on_congestion(&mut w, &ev(CongestionKind::Loss));
        assert_eq!((c.lwnd, c.dwnd), (50.0, 30.0));
        assert_eq!(ss, 80 * MSS);
        // dwnd small: the halved loss window is the floor
        let (mut c, mut w) = at(100.0, 4.0, CompoundConfig { beta: 0.7, ..Default::default() });
        c.on_congestion(&mut w, &ev(CongestionKind::Loss));
        assert_eq!((c.lwnd, c.dwnd), (50.0, 0.0));
        let (mut c, mut w) = at(100.0, 60.0, CompoundConfig::default());
        assert_eq!(c.on_congestion(&mut w, &ev(CongestionKind::Timeout)), 80 * MSS);
        assert_eq!(c.dwnd, 0.0);
        // after the timeout the sender sets cwnd to 1 MSS: the loss window takes it
        w.cwnd = MSS;
        w.ssthresh = 80 * MSS;
        c.on_ack(&mut w, &AckEvent { snd_una: 0, ca_state: CaState::Open, ..ack(MSS) });
        assert_eq!((c.lwnd, c.dwnd), (2.0, 0.0), "slow start from the loss window");
    }

    /// gamma tuning: gamma moves toward 3/4 of the backlog seen at a loss, within its bounds.
    #[test]
    fn gamma_tuning_follows_the_backlog_at_loss() {
        let cfg = CompoundConfig { gamma_tuning: true, ..Default::default() };
        let (mut c, mut w) = at(100.0, 0.0, cfg);
        c.diff = 12.0;
        c.on_congestion(&mut w, &CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 });
        assert!((c.gamma - (0.8 * 30.0 + 0.2 * 9.0)).abs() < 1e-9);
        c.diff = 0.0;
        for _ in 0..50 {
            c.on_congestion(&mut w, &CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: 0, new_episode: true, lost_bytes: 0 });
        }
        assert_eq!(c.gamma, 5.0);
    }
}
