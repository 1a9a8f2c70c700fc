//! DCTCP: cut the window in proportion to the fraction of bytes marked CE, estimated once per
//! window, so that a shallow step-marking queue stays near its threshold at full utilization.
//!
//! Source: RFC 8257 (Bensley et al., 2017), sections 3.2-3.4; Alizadeh et al., "Data Center
//! TCP (DCTCP)", ACM SIGCOMM 2010; Linux `net/ipv4/tcp_dctcp.c`, read for behaviour (not
//! copied). ECN is always negotiated (`NEEDS_ECN`), and the receiver echoes each segment's CE
//! mark (DCTCP's echo, `ECN_FEEDBACK`, `tcp/receiver.rs`); with `[tcp] ecn_feedback = "accecn"`
//! the marked bytes are AccECN's count (`law/marked.rs`).
//!
//! * Once per window of data (when snd_una passes the snd_nxt saved at the previous update):
//!   `F = bytes delivered by ACKs with ECE / bytes delivered`, `alpha = (1 - g) alpha + g F`,
//!   g = 1/16, alpha starting at 1 (Linux `dctcp_alpha_on_init` 1024/1024).
//! * An ECN echo (at most once per window, the sender's rule): ssthresh = cwnd x (1 - alpha / 2),
//!   at least 2 segments.
//! * A loss or a timeout: half the window, as Reno (Linux `dctcp_react_to_loss`). In the `ns3`
//!   profile, cwnd x (1 - alpha / 2) as for an echo: ns-3's `TcpDctcp::GetSsThresh` serves every
//!   reduction, so with alpha decayed towards 0 (no marks: a drop-tail queue) a loss barely
//!   lowers the window there.
//! * Window growth: Reno's with byte counting and Linux's slow start in every profile (Linux;
//!   ns-3's `TcpDctcp` derives from `TcpLinuxReno`, which counts bytes too).
//!
//! Deliberate deviations: alpha in floating point (Linux: 10-bit fixed point); the sender sets
//! cwnd to the new ssthresh at once on the echo (Linux reduces through its CWR state with PRR;
//! the same for every ECN flow here, see docs/models/tcp.md).

use super::law::aimd::Aimd;
use super::law::marked::MarkedFraction;
use super::{AckEvent, CcEnv, CongestionControl, CongestionEvent, CongestionKind, EcnFeedback, Window};
use crate::stack::Profile;
use crate::registry::{Algorithm, Field, FieldUnit, Info};

crate::params! {
    /// DCTCP parameters; the defaults are Linux's (RFC 8257's g).
    pub struct DctcpConfig {
        /// Weight of the newest window's marked fraction in alpha.
        g: f64 = 0.0625, Ratio, range(> 0.0, <= 1.0), "RFC 8257 section 4.2 g = 1/16; Linux dctcp_shift_g = 4";
        /// alpha before the first window (1: cut by half at the first mark).
        alpha_init: f64 = 1.0, Ratio, range(>= 0.0, <= 1.0), "Linux dctcp_alpha_on_init = 1024 (of 1024)";
    }
}

#[derive(Clone, Debug)]
pub struct Dctcp {
    marks: MarkedFraction,
    reno: Aimd,
    /// A loss or timeout halves the window (Linux); false: it cuts by alpha / 2 (ns-3).
    loss_halves: bool,
}

impl Algorithm for Dctcp {
    type Config = DctcpConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "dctcp",
        aliases: &[],
        summary: "DCTCP: alpha = EWMA (g 1/16) of the fraction of bytes marked CE per window; cut cwnd by alpha/2 on an echo",
        sources: &["RFC 8257", "Alizadeh et al., ACM SIGCOMM 2010", "Linux net/ipv4/tcp_dctcp.c"],
    };
    fn new(cfg: &DctcpConfig, env: &CcEnv) -> Dctcp {
        Dctcp { marks: MarkedFraction::new(cfg.g, cfg.alpha_init), reno: Aimd::linux_reno(env), loss_halves: env.profile != Profile::Ns3 }
    }
}

impl CongestionControl for Dctcp {
    const NEEDS_ECN: bool = true;
    const ECN_FEEDBACK: EcnFeedback = EcnFeedback::Dctcp;
    const STATE: &'static [Field] = &[
        Field { name: "alpha", unit: FieldUnit::Ratio, doc: "alpha: the smoothed fraction of marked bytes" },
        Field { name: "marked_fraction", unit: FieldUnit::Ratio, doc: "F: the fraction of bytes echoed as marked in the last window" },
    ];

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        self.marks.count(a);
        if self.marks.round_done(a) {
            self.marks.close(a, false);
        }
        self.reno.on_ack(w, a);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        let mss = w.mss as u64;
        match e.kind {
            CongestionKind::Loss | CongestionKind::Timeout if self.loss_halves => (w.cwnd / 2).max(2 * mss),
            _ => ((w.cwnd as f64 * (1.0 - self.marks.alpha / 2.0)) as u64).max(2 * mss),
        }
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        out.copy_from_slice(&[self.marks.alpha, self.marks.last_f]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::units::Time;

    /// Windows of 10 segments with 0, 5 and 10 of them echoed: alpha follows
    /// (1 - 1/16) alpha + F / 16 with F = 0, 0.5, 1.
    #[test]
    fn alpha_is_an_ewma_of_the_marked_fraction_per_window() {
        let mut d = Dctcp::new(&DctcpConfig::default(), &CcEnv::linux(1000, 10));
        let mut w = Window { cwnd: 10_000, ssthresh: 5_000, mss: 1000 };
        let mut total = 0u64;
        let mut expect = 1.0f64;
        // the first ACK closes the initial (empty) window
        d.on_ack(&mut w, &AckEvent { snd_una: 0, snd_nxt: 10_000, delivered_total: 0, cwnd_limited: false, ..ack(0) });
        for (k, marked) in [0u64, 5, 10, 10, 0].into_iter().enumerate() {
            let base = 10_000 * k as u64;
            for s in 0..10u64 {
                total += 1000;
                let una = base + (s + 1) * 1000;
                d.on_ack(&mut w, &AckEvent { snd_una: una, snd_nxt: una + 10_000, delivered_total: total, ece: s < marked, cwnd_limited: false, ..ack(1000) });
            }
            let f = marked as f64 / 10.0;
            expect = (1.0 - 0.0625) * expect + 0.0625 * f;
            assert!((d.marks.alpha - expect).abs() < 1e-12, "window {k}: alpha {} expected {expect}", d.marks.alpha);
            assert_eq!(d.marks.last_f, f);
        }
    }

    /// An echo cuts cwnd by alpha / 2; a loss halves.
    #[test]
    fn echo_cuts_by_half_alpha_and_loss_halves() {
        let ev = |kind| CongestionEvent { now: Time::ZERO, kind, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let mut d = Dctcp::new(&DctcpConfig::default(), &CcEnv::linux(1000, 10));
        let mut w = Window { cwnd: 100_000, ssthresh: 5_000, mss: 1000 };
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Ecn)), 50_000, "alpha 1: half");
        d.marks.alpha = 0.1;
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Ecn)), 95_000);
        d.marks.alpha = 0.0;
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Ecn)), 100_000);
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Loss)), 50_000);
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Timeout)), 50_000);
    }

    /// ns-3's `TcpDctcp` cuts by alpha / 2 on a loss or timeout too (its `GetSsThresh`): with
    /// alpha decayed to 0.1, a loss keeps 95 % of the window, where Linux halves it.
    #[test]
    fn ns3_cuts_a_loss_by_half_alpha() {
        let ev = |kind| CongestionEvent { now: Time::ZERO, kind, flight_size: 0, new_episode: true, lost_bytes: 0 };
        let mut d = Dctcp::new(&DctcpConfig::default(), &CcEnv { profile: Profile::Ns3, ..CcEnv::linux(1000, 10) });
        let mut w = Window { cwnd: 100_000, ssthresh: 5_000, mss: 1000 };
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Loss)), 50_000, "alpha 1: half");
        d.marks.alpha = 0.1;
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Loss)), 95_000);
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Timeout)), 95_000);
        assert_eq!(d.on_congestion(&mut w, &ev(CongestionKind::Ecn)), 95_000);
    }
}
