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

use crate::params::Problem;
use crate::units::{Bytes, Dur};

crate::params! {
    /// Per-flow TCP options. Defaults follow Linux where the RFCs leave a choice (see each
    /// source). With the defaults a full segment is 1448 + 52 = 1500 bytes on the wire (a 1500 B
    /// MTU; 52 B = IPv4 20 + TCP 20 + timestamps option 12).
    pub struct TcpConfig {
        /// Payload bytes per segment (SMSS).
        mss: Bytes = Bytes::new(1448), Size, range(>= 64, <= 65_000), "1500 B MTU - 52 B of headers (Linux with timestamps)";
        /// IP + TCP header bytes added to every data segment on the wire.
        header_size: Bytes = Bytes::new(52), Size, range(>= 20, <= 120), "IPv4 20 + TCP 20 + timestamps 12 (RFC 7323)";
        /// Bytes of a pure ACK on the wire, before SACK options.
        ack_size: Bytes = Bytes::new(52), Size, range(>= 20, <= 120), "IPv4 20 + TCP 20 + timestamps 12 (RFC 7323)";
        /// Selective acknowledgments (RFC 2018) with RFC 6675 recovery; false: NewReno recovery (RFC 6582).
        sack: bool = true, Flag, range(), "Linux net.ipv4.tcp_sack = 1";
        /// ACK every second full segment or when delack_timeout expires (RFC 1122, RFC 5681).
        delayed_ack: bool = true, Flag, range(), "RFC 1122 section 4.2.3.2; Linux";
        /// Delayed-ACK timer (RFC 1122 allows up to 500 ms; ns-3 uses 200 ms).
        delack_timeout: Dur = Dur::from_ms(40), Time, range(<= Dur::from_ms(500)), "Linux TCP_DELACK_MIN 40 ms";
        /// Initial window, segments.
        initial_cwnd: u32 = 10, Packets, range(>= 1, <= 1000), "RFC 6928 IW10; Linux TCP_INIT_CWND";
        /// Lower bound of the retransmission timeout (RFC 6298 says 1 s). At least 1 us: a timer firing every few nanoseconds makes a run take hours.
        min_rto: Dur = Dur::from_ms(200), Time, range(>= Dur::from_us(1)), "Linux TCP_RTO_MIN 200 ms";
        /// Retransmission timeout before the first RTT sample.
        initial_rto: Dur = Dur::from_secs(1), Time, range(>= Dur::from_us(1)), "RFC 6298 section 2.1; Linux TCP_TIMEOUT_INIT";
        /// Upper bound of the backed-off retransmission timeout (RFC 6298 allows >= 60 s; Linux 120 s).
        max_rto: Dur = Dur::from_secs(60), Time, range(>= Dur::from_us(1)), "RFC 6298 section 2.5";
        /// Negotiate ECN (RFC 3168): data is sent ECT(0), and an ECN-Echo reduces the window. Algorithms that need ECN (DCTCP) turn it on themselves.
        ecn: bool = false, Flag, range(), "Linux net.ipv4.tcp_ecn = 2 (not requested by default)";
        /// Receiver window; unset: unlimited.
        rwnd: Option<Bytes> = None, Size, range(>= 1), "unset (autotuning lets a bulk flow's window grow)";
    }
    check = TcpConfig::relations_check;
}

impl TcpConfig {
    fn relations_check(&self, out: &mut Vec<Problem>) {
        if self.min_rto > self.max_rto {
            out.push(Problem::new("min_rto", format!("must not exceed max_rto ({})", self.max_rto)));
        } else if !(self.min_rto <= self.initial_rto && self.initial_rto <= self.max_rto) {
            out.push(Problem::new("initial_rto", format!("must be within [min_rto, max_rto] = [{}, {}]", self.min_rto, self.max_rto)));
        }
        if self.delayed_ack && self.delack_timeout == Dur::ZERO {
            out.push(Problem::new("delack_timeout", "must be positive when delayed_ack = true, e.g. \"40ms\""));
        }
        if let Some(r) = self.rwnd {
            if r < self.mss {
                out.push(Problem::new("rwnd", format!("must be at least one mss ({})", self.mss)));
            }
        }
    }

    /// MSS in bytes, as the sender's integer type (the range keeps it below 2^16).
    pub fn mss_bytes(&self) -> u32 {
        self.mss.get() as u32
    }
}

use crate::packet::{PacketArena, PacketId};
use crate::units::Time;

/// What an endpoint may touch while handling an event: it allocates packets in the arena and
/// appends them to `out`; the engine routes them after the call.
pub struct TxCtx<'a> {
    pub now: Time,
    pub arena: &'a mut PacketArena,
    pub out: &'a mut Vec<PacketId>,
}
