//! Congestion control: the `CongestionControl` contract and the algorithms behind it.
//!
//! The sender owns loss detection and recovery (RFC 6675 / RFC 6582 / RFC 6298); a congestion
//! control only decides window sizes, through these hooks (all take `now`; nothing reads a clock):
//!
//! | hook               | when                                                   | required |
//! |--------------------|--------------------------------------------------------|----------|
//! | `on_ack`           | an ACK of new data outside recovery: grow `cwnd`       | yes      |
//! | `ssthresh`         | congestion event (fast retransmit, ECN echo): new ssthresh; the sender then sets cwnd | yes |
//! | `on_rto`           | retransmission timeout: new ssthresh; sender sets cwnd = 1 MSS | yes |
//! | `on_recovery_exit` | the cumulative ACK passed the recovery point           | no       |
//! | `on_rtt`           | every valid RTT sample (Karn's rule applied)           | no       |
//! | `pacing_rate`      | before each transmission; `None` = not paced (BBR uses it) | no   |
//!
//! Windows are in bytes (`CcState`); algorithms defined in segments convert with `mss`.
//! Dispatch is static: `Cc` is an enum over the algorithms.

pub mod cubic;
pub mod reno;

use crate::units::{Dur, Rate, Time};
use serde::{Deserialize, Serialize};

pub use cubic::{Cubic, CubicConfig};
pub use reno::Reno;

/// Window state shared by the sender and its congestion control.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CcState {
    /// Congestion window, bytes.
    pub cwnd: u64,
    /// Slow-start threshold, bytes (`u64::MAX` = "arbitrarily high", RFC 5681).
    pub ssthresh: u64,
    /// Sender maximum segment size, bytes.
    pub mss: u32,
}

impl CcState {
    pub fn in_slow_start(&self) -> bool {
        self.cwnd < self.ssthresh
    }
    pub fn cwnd_segs(&self) -> f64 {
        self.cwnd as f64 / self.mss as f64
    }
}

/// What an ACK tells the congestion control.
#[derive(Clone, Copy, Debug)]
pub struct AckSample {
    pub now: Time,
    /// Bytes newly acknowledged cumulatively by this ACK.
    pub acked_bytes: u64,
    /// Smoothed RTT (RFC 6298), or the latest sample before the first smoothing.
    pub srtt: Dur,
    /// Minimum RTT seen by the connection.
    pub min_rtt: Dur,
    /// Bytes in flight before this ACK.
    pub in_flight: u64,
}

/// The congestion-control contract (see the module docs for when each hook runs).
pub trait CongestionControl {
    fn on_ack(&mut self, s: &mut CcState, a: &AckSample);
    fn ssthresh(&mut self, s: &CcState, now: Time, in_flight: u64) -> u64;
    fn on_rto(&mut self, s: &CcState, now: Time, in_flight: u64) -> u64;
    fn on_recovery_exit(&mut self, _s: &mut CcState, _now: Time) {}
    fn on_rtt(&mut self, _rtt: Dur, _now: Time) {}
    fn pacing_rate(&self, _s: &CcState) -> Option<Rate> {
        None
    }
}

/// Congestion control selection as given in a scenario.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum CcConfig {
    #[serde(alias = "newreno")]
    Reno,
    Cubic(CubicConfig),
}

impl CcConfig {
    pub fn name(&self) -> &'static str {
        match self {
            CcConfig::Reno => "reno",
            CcConfig::Cubic(_) => "cubic",
        }
    }

    pub fn validate(&self, path: &str) -> Result<(), String> {
        match self {
            CcConfig::Reno => Ok(()),
            CcConfig::Cubic(c) => c.validate(path),
        }
    }
}

/// Static dispatch over the algorithms.
#[derive(Clone, Debug)]
pub enum Cc {
    Reno(Reno),
    Cubic(Cubic),
}

impl Cc {
    pub fn new(cfg: &CcConfig) -> Cc {
        match cfg {
            CcConfig::Reno => Cc::Reno(Reno::default()),
            CcConfig::Cubic(c) => Cc::Cubic(Cubic::new(c.clone())),
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $c:ident => $e:expr) => {
        match $self {
            Cc::Reno($c) => $e,
            Cc::Cubic($c) => $e,
        }
    };
}

impl CongestionControl for Cc {
    #[inline]
    fn on_ack(&mut self, s: &mut CcState, a: &AckSample) {
        dispatch!(self, c => c.on_ack(s, a))
    }
    fn ssthresh(&mut self, s: &CcState, now: Time, in_flight: u64) -> u64 {
        dispatch!(self, c => c.ssthresh(s, now, in_flight))
    }
    fn on_rto(&mut self, s: &CcState, now: Time, in_flight: u64) -> u64 {
        dispatch!(self, c => c.on_rto(s, now, in_flight))
    }
    fn on_recovery_exit(&mut self, s: &mut CcState, now: Time) {
        dispatch!(self, c => c.on_recovery_exit(s, now))
    }
    #[inline]
    fn on_rtt(&mut self, rtt: Dur, now: Time) {
        dispatch!(self, c => c.on_rtt(rtt, now))
    }
    #[inline]
    fn pacing_rate(&self, s: &CcState) -> Option<Rate> {
        dispatch!(self, c => c.pacing_rate(s))
    }
}

/// Standard slow start with Appropriate Byte Counting (RFC 3465, L = 2): while in slow start,
/// cwnd grows by the bytes acknowledged, at most 2 MSS per ACK, and never past ssthresh. Returns
/// the acked bytes left for congestion avoidance: all of them outside slow start, the remainder
/// once cwnd reached ssthresh (as Linux does), 0 if slow start used them up.
pub fn slow_start(s: &mut CcState, acked_bytes: u64) -> u64 {
    if !s.in_slow_start() {
        return acked_bytes;
    }
    let inc = acked_bytes.min(2 * s.mss as u64);
    let room = s.ssthresh.saturating_sub(s.cwnd);
    if inc <= room {
        s.cwnd += inc;
        acked_bytes - inc
    } else {
        s.cwnd += room;
        acked_bytes - room
    }
}
