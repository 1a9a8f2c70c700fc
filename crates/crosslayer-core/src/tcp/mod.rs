//! TCP: a byte-sequenced bulk sender and a receiver.
//!
//! * `rtt`: RFC 6298 estimator and retransmission timer value.
//! * `scoreboard`: per-segment state between `snd_una` and `snd_nxt` (SACKed, lost, retransmitted).
//! * `sender`: slow start / congestion avoidance through `cc`, SACK loss recovery (RFC 6675),
//!   NewReno recovery without SACK (RFC 6582), RTO (RFC 6298) with Karn's rule, ECN (RFC 3168),
//!   pacing hook.
//! * `receiver`: cumulative ACK, SACK blocks (RFC 2018), delayed ACKs (RFC 1122, RFC 5681).

pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;

use serde::{Deserialize, Serialize};

/// Per-flow TCP options. Defaults follow Linux where the RFCs leave a choice (see field docs).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields, default)]
pub struct TcpConfig {
    /// Maximum segment size (payload), bytes. 1448 = 1500 - 20 (IP) - 20 (TCP) - 12 (timestamps).
    pub mss_bytes: u32,
    /// Header bytes added to every data segment on the wire.
    pub header_bytes: u32,
    /// Size of a pure ACK on the wire, bytes, before SACK options.
    pub ack_bytes: u32,
    /// Selective acknowledgments (RFC 2018) and SACK-based recovery (RFC 6675); off = NewReno.
    pub sack: bool,
    /// Delayed ACKs: ACK every second full segment or after `delack_timeout_ns`.
    pub delayed_ack: bool,
    /// Delayed-ACK timer, ns. Default 40 ms = Linux `TCP_DELACK_MIN` (RFC 1122 allows < 500 ms; ns-3 uses 200 ms).
    pub delack_timeout_ns: u64,
    /// Initial window, segments (RFC 6928 IW10, Linux `TCP_INIT_CWND`).
    pub initial_cwnd_pkts: u32,
    /// Lower bound on the RTO, ns. Default 200 ms = Linux `TCP_RTO_MIN` (RFC 6298 says 1 s).
    pub min_rto_ns: u64,
    /// RTO before the first RTT sample, ns (RFC 6298: 1 s).
    pub initial_rto_ns: u64,
    /// Upper bound on the backed-off RTO, ns (RFC 6298 allows >= 60 s).
    pub max_rto_ns: u64,
    /// Negotiate ECN (RFC 3168): data is sent ECT(0) and ECN-Echo halves the window.
    pub ecn: bool,
    /// Receiver window, bytes; `None` = unlimited.
    pub rwnd_bytes: Option<u64>,
}

impl Default for TcpConfig {
    fn default() -> Self {
        TcpConfig {
            mss_bytes: 1448,
            header_bytes: 52,
            ack_bytes: 52,
            sack: true,
            delayed_ack: true,
            delack_timeout_ns: 40_000_000,
            initial_cwnd_pkts: 10,
            min_rto_ns: 200_000_000,
            initial_rto_ns: 1_000_000_000,
            max_rto_ns: 60_000_000_000,
            ecn: false,
            rwnd_bytes: None,
        }
    }
}

impl TcpConfig {
    pub fn validate(&self, path: &str) -> Result<(), String> {
        if !(64..=65_000).contains(&self.mss_bytes) {
            return Err(format!("{path}.mss_bytes: must be in 64..=65000 bytes, got {}", self.mss_bytes));
        }
        if self.header_bytes < 20 || self.header_bytes > 120 {
            return Err(format!("{path}.header_bytes: must be in 20..=120, got {}", self.header_bytes));
        }
        if self.ack_bytes < 20 || self.ack_bytes > 120 {
            return Err(format!("{path}.ack_bytes: must be in 20..=120, got {}", self.ack_bytes));
        }
        if self.initial_cwnd_pkts == 0 || self.initial_cwnd_pkts > 1000 {
            return Err(format!("{path}.initial_cwnd_pkts: must be in 1..=1000, got {}", self.initial_cwnd_pkts));
        }
        if self.min_rto_ns == 0 || self.min_rto_ns > self.max_rto_ns {
            return Err(format!("{path}.min_rto_ns: must be > 0 and <= max_rto_ns"));
        }
        if self.initial_rto_ns == 0 {
            return Err(format!("{path}.initial_rto_ns: must be > 0"));
        }
        if self.delayed_ack && self.delack_timeout_ns == 0 {
            return Err(format!("{path}.delack_timeout_ns: must be > 0 when delayed_ack is on"));
        }
        if let Some(r) = self.rwnd_bytes {
            if r < self.mss_bytes as u64 {
                return Err(format!("{path}.rwnd_bytes: must be at least one MSS ({}), got {r}", self.mss_bytes));
            }
        }
        Ok(())
    }
}

use crate::net::packet::{PacketArena, PacketId};
use crate::units::Time;

/// What an endpoint may touch while handling an event: it allocates packets in the arena and
/// appends them to `out`; the engine routes them after the call.
pub struct TxCtx<'a> {
    pub now: Time,
    pub arena: &'a mut PacketArena,
    pub out: &'a mut Vec<PacketId>,
}
