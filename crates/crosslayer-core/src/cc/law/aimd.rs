//! Reno's AIMD: +1 MSS per RTT, halve on a loss, with each stack's counting and halving rules.
//! Reno is this law registered (`cc/reno.rs`); Tahoe, Vegas, Westwood+ and DCTCP fall back to it.
//!
//! Source: RFC 5681 section 3.1, RFC 3465 section 2 (see `cc/reno.rs` for the rules and what
//! Linux and ns-3 each do).

use crate::cc::{AckEvent, CcEnv, CongestionControl, CongestionEvent, Window};
use crate::cc::law::slow_start;
use crate::stack::{Profile, SsRule};

crate::choice! {
    /// What congestion avoidance counts.
    pub enum Counting {
        /// Acknowledged bytes: one SMSS per cwnd acknowledged (RFC 3465; Linux).
        Bytes = "bytes",
        /// ACKs: SMSS^2 / cwnd per ACK of new data (RFC 5681 eq. 3; ns-3 TcpNewReno).
        Acks = "acks",
    }
}

crate::choice! {
    /// What a loss halves for the new ssthresh.
    pub enum Halve {
        /// cwnd (Linux tcp_reno_ssthresh).
        Cwnd = "cwnd",
        /// FlightSize, the data outstanding (RFC 5681 eq. (4); ns-3 TcpNewReno::GetSsThresh).
        FlightSize = "flight_size",
    }
}

#[derive(Clone, Debug)]
pub struct Aimd {
    /// Bytes acknowledged since cwnd last grew in congestion avoidance (RFC 3465 `bytes_acked`).
    pub(crate) bytes_acked: u64,
    pub(crate) counting: Counting,
    pub(crate) halve: Halve,
    pub(crate) ss: SsRule,
}

impl Default for Aimd {
    fn default() -> Aimd {
        Aimd { bytes_acked: 0, counting: Counting::Bytes, halve: Halve::Cwnd, ss: SsRule::Linux }
    }
}

impl Aimd {
    /// ns-3's `TcpLinuxReno` (the base of ns-3's `TcpDctcp`): byte counting and Linux's slow
    /// start in every profile (under `[tcp] slow_start = "ns3"` too).
    pub fn linux_reno(env: &CcEnv) -> Aimd {
        let halve = match env.profile {
            Profile::Linux | Profile::Ns2 => Halve::Cwnd,
            Profile::Ns3 => Halve::FlightSize,
        };
        Aimd { bytes_acked: 0, counting: Counting::Bytes, halve, ss: env.slow_start.rule(SsRule::Linux) }
    }
}

impl Aimd {
    /// Reno's rules under the flow's profile, unless given: byte counting and halving cwnd
    /// (Linux), ACK counting and halving FlightSize (ns-3), or ACK counting and halving cwnd
    /// (ns-2); slow start per `[tcp] slow_start` (ns-3: one segment per ACK).
    pub fn for_profile(counting: Option<Counting>, halve: Option<Halve>, env: &CcEnv) -> Aimd {
        let counting = counting.unwrap_or(match env.profile {
            Profile::Linux => Counting::Bytes,
            // ns-2's opencwnd: cwnd += 1/cwnd per new ACK
            Profile::Ns3 | Profile::Ns2 => Counting::Acks,
        });
        let halve = halve.unwrap_or(match env.profile {
            // ns-2's slowdown(CLOSE_SSTHRESH_HALF): half of min(cwnd, window_)
            Profile::Linux | Profile::Ns2 => Halve::Cwnd,
            Profile::Ns3 => Halve::FlightSize,
        });
        Aimd { bytes_acked: 0, counting, halve, ss: env.slow_start.rule(SsRule::PerAck) }
    }
}

impl CongestionControl for Aimd {
    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        if !a.may_grow() {
            return;
        }
        let acked = slow_start(w, a.growth_bytes, self.ss);
        if acked == 0 {
            return;
        }
        match self.counting {
            Counting::Bytes => {
                self.bytes_acked += acked;
                if self.bytes_acked >= w.cwnd {
                    self.bytes_acked -= w.cwnd;
                    w.cwnd += w.mss as u64;
                }
            }
            Counting::Acks => {
                let mss = w.mss as u64;
                w.cwnd += (mss * mss / w.cwnd).max(1);
            }
        }
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        self.bytes_acked = 0;
        let base = match self.halve {
            Halve::Cwnd => w.cwnd,
            Halve::FlightSize => e.flight_size,
        };
        (base / 2).max(2 * w.mss as u64)
    }
}

