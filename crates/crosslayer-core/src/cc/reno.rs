//! Reno / NewReno congestion avoidance: AIMD(1 MSS per RTT, 1/2).
//!
//! Source: RFC 5681 section 3.1 (slow start, congestion avoidance, ssthresh after loss) with
//! Appropriate Byte Counting, RFC 3465 section 2 (L = 2 in slow start; in congestion avoidance
//! `bytes_acked` accumulates and cwnd grows by one MSS each time it reaches cwnd).
//! NewReno (RFC 6582) is a loss-recovery procedure, implemented by the sender when SACK is off;
//! "newreno" names this same window rule.
//!
//! Congestion avoidance counts acknowledged bytes (`counting = "bytes"`: RFC 3465, and Linux's
//! `tcp_cong_avoid_ai`, which counts acknowledged segments) or ACKs (`"acks"`: cwnd += SMSS^2 /
//! cwnd per ACK, RFC 5681 eq. (3), as ns-3's `TcpNewReno::CongestionAvoidance`; with delayed ACKs
//! this grows about half as fast). Slow start follows `[tcp] slow_start` (ns-3: one segment per
//! ACK).
//!
//! ssthresh after a loss (`halve`): half of cwnd (Linux `tcp_reno_ssthresh`; the Linux profile's
//! default) or half of FlightSize (RFC 5681 eq. (4); the ns3 profile, where the sender passes
//! ns-3's BytesInFlight). The two coincide for a cwnd-limited sender without loss, but not under
//! heavy loss with SACK: FlightSize counts every SACKed and lost segment still outstanding, so it
//! can be several times cwnd, and halving it leaves ssthresh above cwnd after the recovery - the
//! flow slow-starts straight back into the losses (at 17 % PIE drops one NewReno flow took 76 of
//! 100 Mb/s that way). Slow start hands the bytes left over at ssthresh to congestion avoidance
//! (Linux `tcp_slow_start`), which RFC 5681 leaves open.

use super::law::aimd::Aimd;
pub use super::law::aimd::{Counting, Halve};
use super::CcEnv;
use crate::registry::{Algorithm, Info};

crate::params! {
    /// Reno: AIMD(1, 1/2) is the standard; how congestion avoidance counts and what a loss halves differ between stacks.
    pub struct RenoConfig {
        /// What congestion avoidance counts: "bytes" or "acks"; unset: the TCP profile's (linux: bytes, ns3: acks).
        counting: Option<Counting> = None, Choice, range(), "linux: tcp_cong_avoid_ai (bytes); ns3: TcpNewReno::CongestionAvoidance (acks)";
        /// What a loss halves: "cwnd" or "flight_size"; unset: the TCP profile's (linux: cwnd, ns3: flight_size).
        halve: Option<Halve> = None, Choice, range(), "linux: tcp_reno_ssthresh (cwnd / 2); ns3: TcpNewReno::GetSsThresh (BytesInFlight / 2); RFC 5681 eq. (4) (FlightSize / 2)";
    }
}

/// Reno is the AIMD law itself (`cc/law/aimd.rs`), registered: its parameters choose the counting
/// and halving rules, which otherwise follow the flow's profile.
pub type Reno = Aimd;

impl Algorithm for Reno {
    type Config = RenoConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "reno",
        aliases: &["newreno"],
        summary: "Reno/NewReno AIMD: +1 MSS per RTT, halve on loss, with byte counting",
        sources: &["RFC 5681 section 3.1", "RFC 3465 section 2 (ABC)", "RFC 6582 (NewReno recovery, in the sender)", "Linux net/ipv4/tcp_cong.c tcp_reno_*"],
    };
    fn new(cfg: &RenoConfig, env: &CcEnv) -> Reno {
        Aimd::for_profile(cfg.counting, cfg.halve, env)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::cc::{AckEvent, CaState, CongestionControl, CongestionEvent, CongestionKind, Window};
    use crate::stack::Profile;
    use crate::units::Time;

    #[test]
    fn slow_start_doubles_per_window_and_stops_at_ssthresh() {
        let mss = 1000;
        let mut w = Window { cwnd: 10 * mss, ssthresh: 15 * mss, mss: mss as u32 };
        let mut r = Reno::default();
        for _ in 0..10 {
            r.on_ack(&mut w, &ack(mss));
        }
        // 5 MSS reach ssthresh, the other 5 MSS of acks go to byte counting (< cwnd)
        assert_eq!(w.cwnd, 15 * mss);
        assert_eq!(r.bytes_acked, 5 * mss);
    }

    #[test]
    fn congestion_avoidance_one_mss_per_window() {
        let mss = 1000;
        let mut w = Window { cwnd: 20 * mss, ssthresh: 10 * mss, mss: mss as u32 };
        let mut r = Reno::default();
        for _ in 0..20 {
            r.on_ack(&mut w, &ack(mss));
        }
        assert_eq!(w.cwnd, 21 * mss);
        // delayed ACKs (2 MSS each) give the same growth per byte
        for _ in 0..11 {
            r.on_ack(&mut w, &ack(2 * mss));
        }
        assert_eq!(w.cwnd, 22 * mss);
    }

    /// ns-3's TcpNewReno counts ACKs in congestion avoidance (SMSS^2 / cwnd per ACK): with
    /// delayed ACKs (two segments each) dW/dACK = 1/W, so after N ACKs W^2 = W0^2 + 2N; byte
    /// counting (Linux) grows twice as fast per ACK, W^2 = W0^2 + 4N.
    #[test]
    fn ack_counting_grows_half_as_fast_with_delayed_acks() {
        let mss = 1000u64;
        let grow = |counting| {
            let mut r = Reno { counting, ..Reno::default() };
            let mut w = Window { cwnd: 20 * mss, ssthresh: 10 * mss, mss: mss as u32 };
            for _ in 0..1000 {
                r.on_ack(&mut w, &ack(2 * mss));
            }
            w.cwnd as f64 / mss as f64
        };
        let (bytes, acks) = (grow(Counting::Bytes), grow(Counting::Acks));
        assert!((bytes - (400.0f64 + 4000.0).sqrt()).abs() < 1.0, "bytes: {bytes}");
        assert!((acks - (400.0f64 + 2000.0).sqrt()).abs() < 1.0, "acks: {acks}");
    }

    #[test]
    fn no_growth_in_recovery_or_when_not_cwnd_limited() {
        let mut w = Window { cwnd: 20_000, ssthresh: 10_000, mss: 1000 };
        let mut r = Reno::default();
        for gate in [AckEvent { ca_state: CaState::Recovery, ..ack(1000) }, AckEvent { cwnd_limited: false, ..ack(1000) }] {
            for _ in 0..100 {
                r.on_ack(&mut w, &gate);
            }
        }
        assert_eq!(w.cwnd, 20_000);
    }

    /// Linux halves cwnd, RFC 5681 and ns-3 halve FlightSize (floor 2 segments). With SACKed
    /// and lost data outstanding FlightSize is larger than cwnd: 60 segments outstanding at cwnd
    /// 20 give ssthresh 10 (Linux) or 30 (RFC 5681), above the window the recovery leaves.
    #[test]
    fn ssthresh_halves_cwnd_or_flight_size_with_a_floor() {
        let ev = |flight| CongestionEvent { now: Time::ZERO, kind: CongestionKind::Loss, flight_size: flight, new_episode: true, lost_bytes: 0 };
        let mut w = Window { cwnd: 20_000, ssthresh: u64::MAX, mss: 1000 };
        let mut linux = Reno::new(&RenoConfig::default(), &CcEnv::linux(1000, 10));
        assert_eq!(linux.on_congestion(&mut w, &ev(60_000)), 10_000);
        let mut rfc = Reno::new(&RenoConfig { halve: Some(Halve::FlightSize), ..Default::default() }, &CcEnv::linux(1000, 10));
        assert_eq!(rfc.on_congestion(&mut w, &ev(60_000)), 30_000);
        assert_eq!(rfc.on_congestion(&mut w, &ev(3_000)), 2_000);
        let ns3 = CcEnv { profile: Profile::Ns3, ..CcEnv::linux(1000, 10) };
        assert_eq!(Reno::new(&RenoConfig::default(), &ns3).on_congestion(&mut w, &ev(60_000)), 30_000);
        let mut small = Window { cwnd: 3_000, ..w };
        assert_eq!(linux.on_congestion(&mut small, &ev(3_000)), 2_000);
    }
}
