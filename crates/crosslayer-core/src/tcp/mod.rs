//! TCP: a byte-sequenced bulk sender and a receiver.
//!
//! * `rtt`: RTT estimation and the retransmission timeout (Linux's rule or RFC 6298).
//! * `rack`: RACK-TLP (RFC 8985) loss detection and tail loss probes.
//! * `scoreboard`: per-segment state between `snd_una` and `snd_nxt` (SACKed, lost, retransmitted).
//! * `sender`: slow start / congestion avoidance through `cc`, SACK loss recovery (RFC 6675),
//!   NewReno recovery without SACK (RFC 6582), RTO (RFC 6298) with Karn's rule, ECN (RFC 3168),
//!   pacing hook.
//! * `receiver`: cumulative ACK, SACK blocks (RFC 2018), delayed ACKs (RFC 1122, RFC 5681),
//!   the ECN echo.
//! * `accecn`: AccECN feedback (RFC 9768), both ends: the receiver's counters and the sender's
//!   decoding of them.
//! * `negotiation`: ECN negotiation in the handshake (RFC 3168, RFC 9768): which feedback the
//!   SYN's and SYN-ACK's flags settle, and the fallbacks.
//! * `tsq`: TCP Small Queues (Linux `tcp_small_queue_check`): what a sender may keep in its own
//!   host's queue.

pub mod accecn;
pub mod app;
pub mod negotiation;
pub mod rack;
pub mod receiver;
pub mod rtt;
pub mod scoreboard;
pub mod sender;
pub mod tsq;

pub use crate::stack::{EcnFeedback, Profile, Recovery, SlowStart};
use crate::params::{ParamType, Problem, Value};
use std::collections::HashSet;
use std::hash::Hash;
use std::sync::Arc;
use crate::units::{Bytes, Dur, MAX_SPAN};


crate::choice! {
    /// How the retransmission timeout is computed and when its backoff clears.
    pub enum RtoRule {
        /// Linux `tcp_rtt_estimator` / `tcp_set_rto`: RTO = SRTT + max(4 RTTVAR over the last
        /// RTT, min_rto), so at least SRTT + min_rto; the backoff clears on a valid RTT sample;
        /// the timer is re-armed when the head of the queue is retransmitted.
        Linux = "linux",
        /// RFC 6298 as ns-3 implements it: RTO = max(min_rto, SRTT + max(G, 4 RTTVAR)); a new
        /// ACK of data restarts the timer with the unbacked-off RTO; fast retransmissions leave a
        /// running timer alone.
        Rfc6298 = "rfc6298",
    }
}


crate::choice! {
    /// Which flows TCP Small Queues hold back (`tsq`).
    pub enum Tsq {
        /// None: a sender puts everything its window allows into its host's queue at once.
        Off = "off",
        /// Flows whose congestion control paces (`PACED`: BBR, BBRv3, Prague).
        Paced = "paced",
        /// Every flow, as Linux.
        All = "all",
    }
}

crate::choice! {
    /// What the receiving end can do with ECN (`peer_ecn`), which the handshake negotiates with
    /// what the sender asks for (`negotiation.rs`).
    pub enum PeerEcn {
        /// Whatever the sender asks for (its `ecn_feedback`, or its algorithm's).
        Same = "same",
        /// No ECN: it answers an ECN-setup SYN without ECN.
        Off = "off",
        /// RFC 3168: an ECN-setup SYN-ACK to an ECN or AccECN request, and the ECE latch.
        Classic = "classic",
        /// RFC 3168 negotiation, DCTCP's per-segment echo (a receiver running Linux's dctcp).
        Dctcp = "dctcp",
        /// RFC 9768: AccECN to an AccECN request, classic ECN to an RFC 3168 one.
        AccEcn = "accecn",
    }
}

crate::choice! {
    /// How TCP options are aligned in a header.
    pub enum OptionPadding {
        /// Each option padded to 4 bytes with NOPs (Linux, RFC 7323 appendix A).
        Nop = "nop",
        /// Options packed back to back, the whole padded to 4 bytes once (ns-3).
        End = "end",
    }
}

impl OptionPadding {
    /// Bytes a SACK option with `blocks` blocks adds to an ACK that carries a timestamp option
    /// (`timestamps`) or not.
    pub fn sack_bytes(self, blocks: u32, timestamps: bool) -> u32 {
        match self {
            OptionPadding::End if timestamps => 8 * blocks,
            _ => 4 + 8 * blocks,
        }
    }
}

crate::choice! {
    /// The upper bound of RFC 6675 NextSeg rule 3 (criterion 1.b: below the highest SACKed byte).
    pub enum Rule3Bound {
        /// Always the highest SACKed segment: with no SACKed segment left above the cumulative
        /// ACK, rule 3 has no candidate (RFC 6675 section 4).
        HighestSack = "highest_sack",
        /// The highest SACKed segment while one is outstanding; once the cumulative ACK has
        /// passed every SACKed segment, any unSACKed segment not yet retransmitted up to the
        /// highest sent (ns-3: `TcpTxBuffer::DiscardUpTo` forgets the SACKs it passed, and
        /// `NextSeg` applies 1.b only while it has seen one).
        WhileSacked = "while_sacked",
    }
}

crate::choice! {
    /// How the receiver answers the sender's FIN when its application closes at end of file.
    pub enum FinAck {
        /// One packet: its FIN rides on the ACK of the sender's FIN (Linux: the ACK waits in
        /// ping-pong mode for the application's close).
        Piggyback = "piggyback",
        /// A pure ACK of the FIN, then FIN|ACK (ns-3: `ReceivedData` acknowledges, then
        /// `DoPeerClose` closes).
        Separate = "separate",
    }
}

crate::choice! {
    /// What window growth counts per ACK.
    pub enum AckCounting {
        /// Segments newly delivered: cumulatively acknowledged without an earlier SACK, or newly
        /// SACKed (Linux).
        Delivered = "delivered",
        /// The advance of the cumulative ACK (ns-3).
        Cumulative = "cumulative",
    }
}

crate::choice! {
    /// Where RTT samples come from.
    pub enum RttSamples {
        /// Karn's rule on the oldest newly acknowledged (else SACKed) segment; the timestamp echo
        /// when every acknowledged segment was retransmitted (Linux `tcp_ack_update_rtt`).
        KarnThenTimestamps = "karn_then_timestamps",
        /// The timestamp echo of every ACK of new data (ns-3 `EstimateRtt` with timestamps).
        Timestamps = "timestamps",
        /// One segment timed at a time (ns-2's `rtt_active_`): timing starts when new data is
        /// sent with none timed, the sample is taken when the cumulative ACK passes it, rounded
        /// to whole ticks of `ts_granularity` (ns-2's tcpTick_, at least one), and any
        /// retransmission cancels it (Karn). Only these samples feed the RTO estimator (about
        /// one per RTT, so RTTVAR keeps the RTT's swings) and only they clear the timer's
        /// backoff (Karn's algorithm, ns-2's `t_backoff_`: a new ACK alone does not);
        /// congestion controls still see every ACK's Karn sample.
        Timed = "timed",
    }
}

crate::params! {
    /// Per-flow TCP options. Options marked "profile" take the value of the chosen `profile`
    /// (Linux or ns-3) unless set. With the Linux defaults a full segment is 1448 + 52 = 1500
    /// bytes on the wire (a 1500 B MTU; 52 B = IPv4 20 + TCP 20 + timestamps option 12).
    pub struct TcpConfig {
        /// Whose defaults the options left unset take: "linux", "ns3" (ns-3 3.44) or "ns2" (ns-2.35's one-way Agent/TCP and TCPSink; mss, sack and initial_cwnd are not profiled: a study sets ns-2's 1000 B, false and 2 itself).
        profile: Profile = Profile::Linux, Choice, range(), "crosslayer: Linux, the system the seed studies measured";
        /// Payload bytes per segment (SMSS).
        mss: Bytes = Bytes::new(1448), Size, range(>= 64, <= 65_000), "1500 B MTU - 52 B of headers (Linux with timestamps)";
        /// IP + TCP header bytes added to every data segment on the wire (profile).
        header_size: Option<Bytes> = None, Size, range(>= 20, <= 120), "linux: IPv4 20 + TCP 20 + timestamps 12; ns3: the same + PPP 2; ns2: Agent/TCP tcpip_base_hdr_size_ 40 (no link-layer framing)";
        /// Bytes of a pure ACK on the wire, before SACK options (profile).
        ack_size: Option<Bytes> = None, Size, range(>= 20, <= 120), "linux: IPv4 20 + TCP 20 + timestamps 12; ns3: the same + PPP 2; ns2: Agent/TCPSink packetSize_ 40";
        /// Selective acknowledgments (RFC 2018); false: no SACK blocks, NewReno-style loss detection.
        sack: bool = true, Flag, range(), "Linux net.ipv4.tcp_sack = 1; ns-3 TcpSocketBase::Sack true";
        /// Timestamps option (RFC 7323): RTT samples from the echo, one-way delay samples.
        timestamps: Option<bool> = None, Flag, range(), "linux: net.ipv4.tcp_timestamps = 1; ns3: TcpSocketBase::Timestamp true; ns2: Agent/TCP timestamps_ false";
        /// ACK every second full segment or when delack_timeout expires (RFC 1122, RFC 5681).
        delayed_ack: Option<bool> = None, Flag, range(), "linux: RFC 1122 section 4.2.3.2; ns3: DelAckCount 2; ns2: false (Agent/TCPSink acknowledges every segment; Agent/TCPSink/DelAck is the other sink)";
        /// Segments the receiver acknowledges at once at the start of a connection and after a duplicate segment, before delaying ACKs (profile; Linux quick-ACK mode).
        quickack: Option<u32> = None, Count, range(<= 1000), "linux: TCP_MAX_QUICKACKS 16 (tcp_incr_quickack); ns3: 1 (the first data segment after the handshake is acknowledged at once: m_delAckCount = m_delAckMaxCount; no quick-ACK mode); ns2: none (0)";
        /// Delayed-ACK timer (profile; RFC 1122 allows up to 500 ms).
        delack_timeout: Option<Dur> = None, Time, range(<= Dur::from_ms(500)), "linux: TCP_DELACK_MIN 40 ms; ns3: TcpSocket::DelAckTimeout 200 ms; ns2: Agent/TCPSink/DelAck interval_ 100 ms";
        /// Initial window, segments.
        initial_cwnd: u32 = 10, Packets, range(>= 1, <= 1000), "RFC 6928 IW10; Linux TCP_INIT_CWND; ns-3 TcpSocket::InitialCwnd 10";
        /// Initial slow-start threshold, segments; unset: arbitrarily high (RFC 5681 section 3.1). Set to initial_cwnd, a connection starts in congestion avoidance: no slow start (draft-irtf-iccrg-tcpeval-01 section 5.2.2's new flow).
        initial_ssthresh: Option<u32> = None, Packets, range(>= 1, <= 100_000_000), "RFC 5681 section 3.1: arbitrarily high; Linux: a route's locked ssthresh metric (tcp_init_metrics); ns-3 TcpSocket::InitialSlowStartThreshold (bytes); ns-2 Agent/TCP ssthresh_";
        /// Lower bound of the retransmission timeout (profile). At least 1 us: a timer firing every few nanoseconds makes a run take hours.
        min_rto: Option<Dur> = None, Time, range(>= Dur::from_us(1), <= MAX_SPAN), "linux: TCP_RTO_MIN 200 ms; ns3: TcpSocketBase::MinRto 1 s (RFC 6298 2.4); ns2: Agent/TCP minrto_ 0.2";
        /// Retransmission timeout before the first RTT sample (profile).
        initial_rto: Option<Dur> = None, Time, range(>= Dur::from_us(1), <= MAX_SPAN), "linux: TCP_TIMEOUT_INIT 1 s; ns3: RttEstimator::InitialEstimation 1 s (RFC 6298 2.1); ns2: Agent/TCP rtxcur_init_ 3.0";
        /// Upper bound of the backed-off retransmission timeout (profile).
        max_rto: Option<Dur> = None, Time, range(>= Dur::from_us(1), <= MAX_SPAN), "linux: TCP_RTO_MAX 120 s; ns3: 60 s in TcpSocketBase::ReTxTimeout; ns2: Agent/TCP maxrto_ 60";
        /// How the RTO is computed, when its backoff clears and whether retransmitting the head re-arms it (profile): "linux" or "rfc6298".
        rto_rule: Option<RtoRule> = None, Choice, range(), "linux: tcp_rtt_estimator, tcp_set_rto; ns3: TcpSocketBase::NewAck / RttMeanDeviation; ns2: rfc6298 stands in for TcpAgent::rtt_timeout (SRTT + 4 RTTVAR in tcpTick_ ticks, backoff kept until a valid RTT sample)";
        /// Clock granularity G of the RFC 6298 rule: RTO = SRTT + max(G, 4 RTTVAR) (profile).
        rto_granularity: Option<Dur> = None, Time, range(<= MAX_SPAN), "linux: not used; ns3: TcpSocketBase::ClockGranularity 1 ms; ns2: Agent/TCP tcpTick_ 0.01";
        /// Tick of the timestamps clock: RTT samples taken from the echo are whole ticks (profile).
        ts_granularity: Option<Dur> = None, Time, range(<= Dur::from_secs(1)), "linux: 1 ms (TCP_TS_HZ 1000); ns3: 1 ms (TcpOptionTS::NowToTsValue: milliseconds); ns2: tcpTick_ 0.01";
        /// Where RTT samples come from (profile): "karn_then_timestamps", "timestamps" or "timed" (one timed segment per RTT feeds the RTO estimator, as ns-2).
        rtt_samples: Option<RttSamples> = None, Choice, range(), "linux: tcp_ack_update_rtt; ns3: TcpSocketBase::EstimateRtt; ns2: timed (TcpAgent rtt_active_: one timed segment per RTT, Karn's rule, samples in tcpTick_ ticks)";
        /// Open each connection with a SYN / SYN-ACK / ACK handshake before sending data; false: flows start established, sending their initial window at once.
        handshake: bool = true, Flag, range(), "Linux and ns-3 open every connection with a handshake";
        /// Bytes of a SYN and of a SYN-ACK on the wire (profile).
        syn_size: Option<Bytes> = None, Size, range(>= 20, <= 120), "linux: IPv4 20 + TCP 20 + options 20 (MSS, SACK-permitted, timestamps, window scale); ns3: see the profile table; ns2: tcpip_base_hdr_size_ 40 (syn_ true: the first packet is a 40-byte SYN)";
        /// SYN retransmission timeout; it doubles at each retry (profile).
        syn_timeout: Option<Dur> = None, Time, range(>= Dur::from_us(1), <= MAX_SPAN), "linux: TCP_TIMEOUT_INIT 1 s; ns3: TcpSocket::ConnTimeout 3 s; ns2: rtxcur_init_ 3.0";
        /// SYN retries at the initial syn_timeout before the timer starts doubling; they come on top of syn_retries (profile).
        syn_linear_timeouts: Option<u32> = None, Count, range(<= 100), "linux: net.ipv4.tcp_syn_linear_timeouts 4 (Linux 6.5+); ns3: none (0); ns2: 0";
        /// SYN retransmissions before the connection fails (profile).
        syn_retries: Option<u32> = None, Count, range(<= 100), "linux: net.ipv4.tcp_syn_retries 6; ns3: TcpSocket::ConnCount 6 counts every SYN, so 5 retries (TcpSocketBase::SendEmptyPacket); ns2: never gives up (100)";
        /// After this many SYN retransmissions the connection starts with a one-segment window; 0: never (profile).
        syn_loss_iw_retries: Option<u32> = None, Count, range(<= 100), "linux: 2 (tcp_init_transfer: more than one retransmission); ns3: 0 (cwnd is set to InitialCwnd when the SYN-ACK arrives, whatever was lost); RFC 5681 3.1: 1; ns2: 0";
        /// Consecutive retransmission timeouts of the same data before the connection is given up (profile).
        data_retries: Option<u32> = None, Count, range(>= 1, <= 1000), "linux: net.ipv4.tcp_retries2 15; ns3: TcpSocket::DataRetries 6; ns2: never gives up (1000)";
        /// How the window evolves in fast recovery (profile): "prr", "rfc6675", "newreno", "reno" (ns-2) or "tahoe" (ns-2). Without SACK, prr and rfc6675 fall back to newreno.
        recovery: Option<Recovery> = None, Choice, range(), "linux: PRR (tcp_cwnd_reduction, since 3.2); ns3: TcpL4Protocol::RecoveryType TcpPrrRecovery; ns2: newreno (Agent/TCP/Newreno; a study picks reno or tahoe for Agent/TCP/Reno and Agent/TCP)";
        /// RACK loss detection (RFC 8985): a segment is lost once a segment sent after it was delivered and a reordering window has passed; lost retransmissions are found too. Replaces the duplicate-ACK threshold. Needs SACK and prr or rfc6675 recovery (profile).
        rack: Option<bool> = None, Flag, range(), "linux: net.ipv4.tcp_recovery = 1 (RACK, since 4.18 the only loss detection with SACK); ns3: not implemented in ns-3 3.44; ns2: none";
        /// Tail loss probes (RFC 8985 section 7): after 2 SRTT without an ACK, send one probe segment so a tail loss is found by SACK instead of the RTO. Needs SACK (profile).
        tlp: Option<bool> = None, Flag, range(), "linux: net.ipv4.tcp_early_retrans = 3 (TLP); ns3: not implemented in ns-3 3.44; ns2: none";
        /// How slow start grows the window per ACK (profile): "linux" (every acknowledged segment, up to ssthresh), "rfc3465" (at most 2 segments per ACK), "ns3" (ns-3's rule for each algorithm) or "ns2" (one segment per ACK).
        slow_start: Option<SlowStart> = None, Choice, range(), "linux: tcp_slow_start; ns3: TcpNewReno::SlowStart (one segment per ACK), TcpCubic::IncreaseWindow (every segment, past ssthresh); ns2: one segment per ACK (TcpAgent::opencwnd)";
        /// What window growth counts per ACK (profile): "delivered" (segments newly acknowledged or SACKed) or "cumulative" (how far the cumulative ACK advanced, counting again what was SACKed before).
        ack_counting: Option<AckCounting> = None, Choice, range(), "linux: tcp_cong_control acked_sacked; ns3: TcpSocketBase::ProcessAck segsAcked from the rate estimator's currentDelivered (3.44; older ns-3 counted the cumulative advance); ns2: cumulative (window growth per new ACK)";
        /// The highest RFC 6675 NextSeg rule SACK recovery uses when neither a lost segment nor new data can be sent: 2 (none), 3 (retransmit unSACKed data above the highest retransmission and below the highest SACK) or 4 (then one "rescue" retransmission of the highest outstanding segment per recovery) (profile).
        nextseg_rules: Option<u32> = None, Count, range(>= 2, <= 4), "linux: 2 (it retransmits only segments marked lost; TLP covers tails); ns3: 3 (TcpTxBuffer::NextSeg: rule 4 'we choose to not respect the SHOULD'); ns2: 2";
        /// The upper bound of NextSeg rule 3 (with nextseg_rules >= 3): "highest_sack" (RFC 6675: below the highest SACKed segment, so nothing once the cumulative ACK passed every SACK) or "while_sacked" (that bound only while a SACKed segment is outstanding, else any unSACKed segment not yet retransmitted: a tail lost after the last SACK goes out at the partial ACK when the window allows) (profile).
        nextseg_rule3_bound: Option<Rule3Bound> = None, Choice, range(), "linux: highest_sack (unused: nextseg_rules 2); ns3: while_sacked (TcpTxBuffer::NextSeg tests 1.b only while it holds a SACK above SND.UNA; scripted drops in ns-3 3.44 send the tail at the partial ACK, tests/recovery.rs); ns2: highest_sack";
        /// How TCP options are aligned, which sets the size of a SACK option on an ACK (profile): "nop" (each option padded with NOPs: 4 + 8 bytes per block) or "end" (options packed, the total padded once: 8 bytes per block after a timestamp option's 2 padding bytes, else 4 + 8).
        option_padding: Option<OptionPadding> = None, Choice, range(), "linux: nop (tcp_options_write, TCPOLEN_SACK_BASE_ALIGNED); ns3: end (TcpHeader: 'does not presently try to align options', ACKs of 54 + 8 n bytes); ns2: nop (ns-2 sizes no options)";
        /// Each partial ACK in SACK fast recovery sends one segment beyond the window, unless the new first unacknowledged segment was already retransmitted: the lowest lost segment, else new data, else that segment (profile).
        partial_ack_retransmit: Option<bool> = None, Flag, range(), "linux: false; ns3: true (TcpSocketBase::ProcessAck calls DoRetransmit on partial ACKs in CA_RECOVERY, with SACK too); ns2: false";
        /// ns-3's PRR counts one more segment delivered for each duplicate ACK (an ACK with new SACK information, and the one that starts recovery) while prr_delivered < RecoverFS, on top of the SACKed bytes; only with recovery = "prr" in the ns3 profile (profile).
        prr_dupack_credit: Option<bool> = None, Flag, range(), "linux: false (tcp_cwnd_reduction counts newly_acked_sacked); ns3: true (TcpPrrRecovery::DoRecovery: 'if (isDupAck && m_prrDelivered < m_recoveryFlightSize) deliveredBytes += m_segmentSize', the rate estimator's delivered already counting the SACKed bytes); ns2: false";
        /// ssthresh is lowered at every retransmission timeout, not only at the first of a loss episode (profile).
        rto_every_ssthresh: Option<bool> = None, Flag, range(), "linux: false (tcp_enter_loss); ns3: true (TcpSocketBase::ReTxTimeout: its guard tests IsHeadRetransmitted after SetSentListLost cleared it); ns2: true (TcpAgent::timeout: slowdown(CLOSE_SSTHRESH_HALF) at every timeout)";
        /// After an idle period longer than the RTO (nothing in flight, nothing sent), the window restarts: ssthresh is raised to at least 3/4 cwnd, cwnd halves per RTO of idleness down to min(initial window, cwnd) (RFC 5681 section 4.1, RFC 7661; algorithms that set cwnd themselves, as BBR, are left alone) (profile).
        slow_start_after_idle: Option<bool> = None, Flag, range(), "linux: true (net.ipv4.tcp_slow_start_after_idle = 1; tcp_cwnd_restart, skipped for cong_control); ns3: false (TcpSocketBase never restarts the window; CA_EVENT_CWND_RESTART 'Not triggered'); ns2: Agent/TCP slow_start_restart_ true";
        /// A finite flow closes both ways: the receiving application closes once it has read everything, so the receiver's FIN rides on its ACK of the sender's FIN, and the sender acknowledges it with one more packet; false: the flow is over when its last byte is delivered, with nothing sent after the ACK of it.
        teardown: bool = true, Flag, range(), "ns-3: PacketSink's sockets have ShutdownSend, so TcpSocketBase::DoPeerClose answers the FIN with FIN|ACK and the sender's TIME_WAIT an ACK; Linux: the same exchange when the receiving application closes at end of file (RFC 9293 section 3.6)";
        /// How the receiver's FIN goes out (with teardown): "piggyback" (on its ACK of the sender's FIN) or "separate" (a pure ACK of the FIN, then FIN|ACK) (profile).
        fin_ack: Option<FinAck> = None, Choice, range(), "linux: piggyback (tcp_fin enters ping-pong mode, so the ACK waits for the application's close and carries its FIN); ns3: separate (TcpSocketBase::ReceivedData acknowledges the in-order FIN, then DoPeerClose -> Close sends FIN|ACK); ns2: one-way agents send no FIN (unused)";
        /// The window grows on an ACK that SACKs new data outside recovery, if it also advances snd.una (false: such an ACK is a duplicate ACK and the window does not grow on it) (profile).
        disorder_growth: Option<bool> = None, Flag, range(), "linux: true (tcp_may_raise_cwnd: FLAG_DATA_ACKED); ns3: false (ProcessAck: an ACK that updates the SACK scoreboard is a dupack, CA_OPEN -> CA_DISORDER, and IncreaseWindow runs only in CA_OPEN); ns2: false (no SACK in Agent/TCP/Newreno)";
        /// The ACK that ends fast recovery also grows the window, after cwnd = ssthresh, by the cumulative advance in segments (those SACKed before included) (profile).
        exit_ack_growth: Option<bool> = None, Flag, range(), "linux: false (tcp_cong_control is in CWR/Recovery on that ACK); ns3: true (ProcessAck leaves CA_RECOVERY, then IncreaseWindow(segsAcked = (ack - old head) / MSS)); ns2: false";
        /// A retransmission that is SACKed stays in the pipe (bytes in flight) until the cumulative ACK passes it; without RACK (profile).
        sacked_retransmission_in_flight: Option<bool> = None, Flag, range(), "linux: false (tcp_sacktag_one clears TCPCB_SACKED_RETRANS and retrans_out); ns3: true (TcpTxBuffer::Update clears m_lost but keeps m_retrans; BytesInFlight = sent - sacked - lost + retrans); ns2: false";
        /// Entering fast recovery when the first unacknowledged segment is a retransmission already marked lost: it stays counted as retransmitted (in flight and in RecoverFS) and is sent again at once (profile).
        lost_head_kept: Option<bool> = None, Flag, range(), "linux: false; ns3: true (TcpSocketBase::EnterRecovery calls MarkHeadAsLost only if the head is not lost yet, then retransmits it unconditionally, RFC 6675 step 4.3); ns2: false";
        /// Paced algorithms (BBR, BBRv3, Prague): the first 10 data segments go unpaced, and a segment sent later than its pacing time is charged its time less the lateness, at most halved (profile).
        pacing_credit: Option<bool> = None, Flag, range(), "linux: true (tcp_update_skb_after_send: 'Original sch_fq does not pace first 10 MSS', 'take into account OS jitter'); ns3: false (TcpSocketBase::SendPendingData schedules the pacing timer for each packet's bytes); ns2: false (no pacing)";
        /// TCP Small Queues (profile): a sender keeps at most max(2 segments' truesize, 1/1024 s of its pacing rate) in its own host's queue and transmitter, twice that for a retransmission, and sends the rest as its packets leave the host; "off", "paced" (flows whose congestion control paces: BBR, BBRv3, Prague) or "all".
        tsq: Option<Tsq> = None, Choice, range(), "linux: paced (Linux 6.1 holds every socket back in tcp_small_queue_check, but window-limited CUBIC measures the same with and without it, docs/models/tcp.md: the profile holds back the paced flows, where it changes results, and \"all\" is the kernel's rule); ns3: off (ns-3 3.44's TcpSocketBase sends whatever the window and its pacing timer allow); ns2: off (none)";
        /// Negotiate ECN (RFC 3168): data is sent ECT(0), and an ECN-Echo reduces the window. Algorithms that need ECN (DCTCP) turn it on themselves.
        ecn: bool = false, Flag, range(), "Linux net.ipv4.tcp_ecn = 2 (not requested by default); ns-3 UseEcn Off";
        /// How the receiver feeds back CE marks: "classic" (RFC 3168: ECE until CWR, one signal per round trip), "dctcp" (RFC 8257: each ACK's ECE is the mark of the segments it covers) or "accecn" (RFC 9768: CE packets counted in the ACE field of every ACK, bytes per codepoint in the AccECN option); unset: the congestion control's own (DCTCP's dctcp, TCP Prague's accecn, classic for the others).
        ecn_feedback: Option<EcnFeedback> = None, Choice, range(), "the congestion control's (CongestionControl::ECN_FEEDBACK): Linux's dctcp module echoes per segment (dctcp_ece_ack_update); the L4S team's tcp_prague requires AccECN (TCP_CONG_NEEDS_ACCECN); Linux's RFC 3168 otherwise (AccECN: net.ipv4.tcp_ecn = 3 in kernels that have it)";
        /// With AccECN feedback: the receiver adds the AccECN option to every ACK it fits on (as many counters as fit, at least those that ever changed; a SACK option keeps at least two blocks); false: the ACE field alone.
        accecn_option: bool = true, Flag, range(), "RFC 9768 section 3.2.3 (sending the option RECOMMENDED), section 3.2.3.3 (SACK precedence); Linux net.ipv4.tcp_ecn_option = 2 (on every packet it fits into), tcp_options_fit_accecn";
        /// With AccECN feedback: the sender's safety rule against a wrapped ACE field (an ACK that acknowledges 8 or more packets counts as many CE marks as the ACE field could have wrapped to, unless the AccECN option or ACK thinning says otherwise); false: the ACE increase mod 8 as it is.
        accecn_safety: bool = true, Flag, range(), "RFC 9768 section 3.2.2.5.2 (SHOULD) and Appendix A.2; Linux __tcp_accecn_process (the L4S team's tree turns it off with net.ipv4.tcp_ecn_unsafe_cep = 1)";
        /// What the receiving host can do with ECN, negotiated in the handshake with what the sender asks for (RFC 3168 section 6.1.1, RFC 9768 section 3.1): "same" (whatever the sender asks), "off", "classic" (RFC 3168), "dctcp" (RFC 3168 negotiation, DCTCP's echo) or "accecn" (RFC 9768, classic ECN to an RFC 3168 request). An AccECN sender with a classic peer falls back to classic ECN (TCP Prague to none, as Linux's tcp_prague), with "off" to none; an algorithm that needs ECN runs Reno without it (Linux's dctcp and tcp_prague).
        peer_ecn: PeerEcn = PeerEcn::Same, Choice, range(), "same: both ends alike (every ECN-capable host in a study agrees unless told); Linux net.ipv4.tcp_ecn on the receiving host: 0 off, 1 or 2 classic, 3 to 5 AccECN (kernels that have it)";
        /// A retransmitted SYN drops its ECN request (RFC 3168 section 6.1.1.1: a middlebox may drop ECN-setup SYNs): from the first retransmission of an RFC 3168 SYN, the second of an AccECN one (profile).
        syn_ecn_fallback: Option<bool> = None, Flag, range(), "linux: true (net.ipv4.tcp_ecn_fallback = 1, __tcp_retransmit_skb -> tcp_ecn_clear_syn); ns3: false (TcpSocketBase::ReTxTimeout resends SYN | ECE | CWR); ns2: false";
        /// Receiver window; unset: unlimited.
        rwnd: Option<Bytes> = None, Size, range(>= 1), "unset (autotuning lets a bulk flow's window grow)";
    }
    check = TcpConfig::relations_check;
}

/// Options whose default depends on the profile: `TcpConfig::<name>()` is the value in effect
/// (the option if set, else the profile's). Declared once here, with both stacks' values.
macro_rules! profiled {
    ($( $field:ident : $ty:ty { linux: $linux:expr, ns3: $ns3:expr, ns2: $ns2:expr } ),* $(,)?) => {
        impl TcpConfig {
            $(
                #[doc = concat!("`", stringify!($field), "` in effect: the option if set, else the profile's.")]
                pub fn $field(&self) -> $ty {
                    self.$field.unwrap_or(match self.profile {
                        Profile::Linux => $linux,
                        Profile::Ns3 => $ns3,
                        Profile::Ns2 => $ns2,
                    })
                }
            )*

            /// The value of every profile-dependent option under `profile` (for the catalog).
            pub fn profile_values(profile: Profile) -> Vec<(&'static str, Value)> {
                let c = TcpConfig { profile, ..Default::default() };
                vec![ $( (stringify!($field), ParamType::value(&c.$field())) ),* ]
            }
        }
    };
}

profiled! {
    timestamps: bool { linux: true, ns3: true, ns2: false },
    delayed_ack: bool { linux: true, ns3: true, ns2: false },
    header_size: Bytes { linux: Bytes::new(52), ns3: Bytes::new(54), ns2: Bytes::new(40) },
    ack_size: Bytes { linux: Bytes::new(52), ns3: Bytes::new(54), ns2: Bytes::new(40) },
    delack_timeout: Dur { linux: Dur::from_ms(40), ns3: Dur::from_ms(200), ns2: Dur::from_ms(100) },
    min_rto: Dur { linux: Dur::from_ms(200), ns3: Dur::from_secs(1), ns2: Dur::from_ms(200) },
    initial_rto: Dur { linux: Dur::from_secs(1), ns3: Dur::from_secs(1), ns2: Dur::from_secs(3) },
    max_rto: Dur { linux: Dur::from_secs(120), ns3: Dur::from_secs(60), ns2: Dur::from_secs(60) },
    rto_rule: RtoRule { linux: RtoRule::Linux, ns3: RtoRule::Rfc6298, ns2: RtoRule::Rfc6298 },
    rto_granularity: Dur { linux: Dur::ZERO, ns3: Dur::from_ms(1), ns2: Dur::from_ms(10) },
    rtt_samples: RttSamples { linux: RttSamples::KarnThenTimestamps, ns3: RttSamples::Timestamps, ns2: RttSamples::Timed },
    ts_granularity: Dur { linux: Dur::from_ms(1), ns3: Dur::from_ms(1), ns2: Dur::from_ms(10) },
    recovery: Recovery { linux: Recovery::Prr, ns3: Recovery::Prr, ns2: Recovery::NewReno },
    syn_size: Bytes { linux: Bytes::new(60), ns3: Bytes::new(58), ns2: Bytes::new(40) },
    syn_timeout: Dur { linux: Dur::from_secs(1), ns3: Dur::from_secs(3), ns2: Dur::from_secs(3) },
    syn_retries: u32 { linux: 6, ns3: 5, ns2: 100 },
    syn_loss_iw_retries: u32 { linux: 2, ns3: 0, ns2: 0 },
    syn_linear_timeouts: u32 { linux: 4, ns3: 0, ns2: 0 },
    data_retries: u32 { linux: 15, ns3: 6, ns2: 1000 },
    rack: bool { linux: true, ns3: false, ns2: false },
    tlp: bool { linux: true, ns3: false, ns2: false },
    slow_start: SlowStart { linux: SlowStart::Linux, ns3: SlowStart::Ns3, ns2: SlowStart::Ns2 },
    quickack: u32 { linux: 16, ns3: 1, ns2: 0 },
    nextseg_rules: u32 { linux: 2, ns3: 3, ns2: 2 },
    slow_start_after_idle: bool { linux: true, ns3: false, ns2: true },
    fin_ack: FinAck { linux: FinAck::Piggyback, ns3: FinAck::Separate, ns2: FinAck::Separate },
    disorder_growth: bool { linux: true, ns3: false, ns2: false },
    exit_ack_growth: bool { linux: false, ns3: true, ns2: false },
    sacked_retransmission_in_flight: bool { linux: false, ns3: true, ns2: false },
    lost_head_kept: bool { linux: false, ns3: true, ns2: false },
    nextseg_rule3_bound: Rule3Bound { linux: Rule3Bound::HighestSack, ns3: Rule3Bound::WhileSacked, ns2: Rule3Bound::HighestSack },
    option_padding: OptionPadding { linux: OptionPadding::Nop, ns3: OptionPadding::End, ns2: OptionPadding::Nop },
    rto_every_ssthresh: bool { linux: false, ns3: true, ns2: true },
    partial_ack_retransmit: bool { linux: false, ns3: true, ns2: false },
    prr_dupack_credit: bool { linux: false, ns3: true, ns2: false },
    pacing_credit: bool { linux: true, ns3: false, ns2: false },
    tsq: Tsq { linux: Tsq::Paced, ns3: Tsq::Off, ns2: Tsq::Off },
    ack_counting: AckCounting { linux: AckCounting::Delivered, ns3: AckCounting::Delivered, ns2: AckCounting::Cumulative },
    syn_ecn_fallback: bool { linux: true, ns3: false, ns2: false },
}

impl TcpConfig {
    fn relations_check(&self, out: &mut Vec<Problem>) {
        let (min, init, max) = (self.min_rto(), self.initial_rto(), self.max_rto());
        if min > max {
            out.push(Problem::new("min_rto", format!("must not exceed max_rto ({max})")));
        } else if !(min <= init && init <= max) {
            out.push(Problem::new("initial_rto", format!("must be within [min_rto, max_rto] = [{min}, {max}]")));
        }
        if self.delayed_ack() && self.delack_timeout() == Dur::ZERO {
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

pub use crate::packet::TxCtx;


/// Share `settings` with the endpoints configured alike before it: replaced by `pool`'s copy
/// of an equal value, or added to the pool (one copy of each distinct value: a sender's and a
/// receiver's `Settings`, issue 21's memory per flow).
pub fn intern<T: Hash + Eq>(pool: &mut HashSet<Arc<T>>, settings: &mut Arc<T>) {
    match pool.get(&**settings) {
        Some(same) => *settings = same.clone(),
        None => {
            pool.insert(settings.clone());
        }
    }
}
