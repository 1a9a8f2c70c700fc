//! TCP sender: byte-sequenced, always backlogged between its start and stop times (a bulk
//! transfer), or sending a given number of bytes (a finite flow, `set_size`): its last segment
//! carries the rest (shorter than the MSS) and the FIN flag, as Linux sends a FIN with the last
//! data when the application closes right after its last write.
//!
//! Sources, rule by rule:
//! * Slow start / congestion avoidance: delegated to the congestion control (`cc`), which sees
//!   every ACK with a cwnd-limited flag (Linux `tcp_is_cwnd_limited`: in slow start while cwnd
//!   < 2 x in flight, else while in flight + 1 MSS > cwnd; RFC 7661 motivates it) and grows only
//!   when it is set (`AckEvent::may_grow`).
//! * An ACK is handled in phases (`on_ack`): sample (SACK blocks, cumulative ACK, RTT, delivery
//!   rate), detect (RACK or RFC 6675), react (a repaired tail loss, ECN, the congestion
//!   control), recover (the state machine), then the timers and sending. The common ACK (in
//!   order, in the Open state, nothing SACKed, lost or retransmitted: `in_order_ack`) goes
//!   through the same phases in one pass, without the branches it cannot take.
//! * Connection set-up (RFC 9293): SYN, SYN-ACK, ACK; the SYN timer starts at `syn_timeout`,
//!   stays there for `syn_linear_timeouts` retries (Linux 6.5+ `tcp_syn_linear_timeouts`) and then
//!   doubles per retry; the connection fails after `syn_retries` + `syn_linear_timeouts`
//!   retries (Linux `tcp_write_timeout`); the handshake gives the first RTT
//!   sample (RFC 6298 section 5.7: RTO 3 s if a SYN was lost and no sample exists); after a lost
//!   SYN the initial window is one segment (RFC 5681 section 3.1). `data_retries` consecutive
//!   timeouts of the same data abort the connection.
//! * Loss detection with SACK: RACK-TLP (RFC 8985, `rack` and `tlp`, Linux's default; see
//!   `rack.rs`), or the classic rules: the third duplicate ACK or RFC 6675 `IsLost(HighACK + 1)`.
//! * Fast recovery (`recovery`): RecoveryPoint = HighData; ssthresh from the congestion control;
//!   the first lost segment is retransmitted at once, then NextSeg rule 1 (lowest lost segment)
//!   then rule 2 (new data) while the window allows. The window follows PRR (RFC 6937, Linux's
//!   and ns-3's default; the Linux profile takes RecoverFS = the window before the reduction and
//!   gives the SSRB bonus only when snd_una advanced and nothing was newly marked lost, as
//!   `tcp_cwnd_reduction`), RFC 6675 (cwnd = ssthresh), RFC 6582 NewReno, ns-2 Reno or Tahoe.
//!   Recovery ends when the cumulative ACK reaches RecoveryPoint.
//! * NewReno without SACK, RFC 6582: third duplicate ACK -> ssthresh, retransmit, cwnd =
//!   ssthresh plus 3 SMSS, +1 SMSS per further duplicate ACK; partial ACK -> retransmit the first
//!   unacked segment, deflate cwnd by the amount acked and add back one SMSS if >= SMSS was acked,
//!   reset the RTO on the first partial ACK only ("impatient" variant); full ACK -> cwnd =
//!   min(ssthresh, max(FlightSize, SMSS) + SMSS). Recovery is not re-entered for duplicate ACKs
//!   that do not cover `recover` (section 3.2 step 1). Limited transmit (RFC 3042) on the first
//!   two duplicate ACKs; those segments are not in the FlightSize that sets ssthresh.
//! * RTO (`rto_rule`: Linux's estimator or RFC 6298): timer started when data is sent and none is
//!   outstanding, restarted on every ACK of new data, stopped when all data is acked, re-armed
//!   when the head is retransmitted (Linux rule); on expiry: ssthresh from the congestion control
//!   (held for repeated expiries while snd_una does not advance, RFC 5681 section 3.1; Linux
//!   `icsk_retransmits`), cwnd = 1 SMSS, back off, retransmit the first unacked segment. As Linux
//!   (`tcp_enter_loss`), all unSACKed segments are then considered lost and are retransmitted in
//!   order under the slow-starting cwnd until the ACK passes the highest segment sent before the
//!   timeout (which with SACK off is go-back-N, Tahoe's behaviour after a timeout).
//! * ECN, RFC 3168 section 6.1.2: on ECN-Echo, reduce as for a loss at most once per window, set
//!   CWR on the next new segment; data is sent ECT(0), retransmissions Not-ECT. A congestion
//!   control that needs ECN (DCTCP, Prague) sends every packet ECN-capable - SYN, the
//!   handshake's ACK and retransmissions too - as Linux does (`tcp_assign_congestion_control`
//!   sets the socket's ECT for `TCP_CONG_NEEDS_ECN`; `tcp_ecn_send` clears it on retransmissions
//!   and pure ACKs only for the others), so a queue marking above a threshold does not drop
//!   them (RFC 8257 section 3 leaves control packets open; a marking switch drops Not-ECT
//!   packets above its threshold, which would cost short flows a 1 s SYN timeout).
//! * ECN feedback (`[tcp] ecn_feedback`, else the congestion control's `ECN_FEEDBACK`): with
//!   RFC 3168's or DCTCP's echo the ECE flag is the congestion signal; with AccECN (RFC 9768,
//!   `accecn.rs`) the sender decodes the ACE field and the AccECN option of every ACK into the
//!   packets newly marked CE (with the wrap safety rule), reduces as for ECE when there are any
//!   (RFC 8311 section 2.1: still once per round trip for a Classic control), hands their
//!   bytes to the congestion control (`AckEvent::ce_bytes`) and never sets CWR (RFC 9768
//!   section 3.1.5).
//! * RTT samples (`rtt_samples`): Karn's rule on the oldest newly acknowledged (else SACKed)
//!   segment, else the timestamp echo (Linux), or the echo of every ACK of new data (ns-3); or
//!   for the RTO estimator only one timed segment at a time, in whole ticks (ns-2's
//!   `rtt_active_`, `rtt_update`), the congestion control still getting every ACK's sample.
//!   Timestamps also give the one-way-delay sample of each ACK (TSval - TSecr, in whole ticks
//!   of `ts_granularity`), computed only for algorithms that declare `ONE_WAY_DELAY`.
//! * Delivery-rate samples (Linux `net/ipv4/tcp_rate.c`, draft-cheng-iccrg-delivery-rate-
//!   estimation): every (re)transmission is stamped with the connection's delivered count; each
//!   ACK yields delivered bytes over max(send interval, ACK interval) of the newest packet it
//!   delivered, invalid if shorter than the minimum RTT, and app-limited when that packet was
//!   sent with nothing left to send.
//! * The congestion control sees every ACK (`cc::AckEvent`) and every congestion event with its
//!   kind; in its full-control mode (`cc::CongestionControl::FULL_CONTROL`) the sender never
//!   changes cwnd itself.
//! * The application (`tcp::app`): new data goes out only as it is written (at `app_rate`, in
//!   the on-periods of an on-off source); after an idle period longer than the RTO the window
//!   restarts (`slow_start_after_idle`, Linux `tcp_cwnd_restart`, RFC 5681 section 4.1), and new
//!   data sent with nothing in flight tells the congestion control (`on_tx_start`, Linux
//!   `CA_EVENT_TX_START`).
//! * TCP Small Queues (`tsq`, Linux `tcp_small_queue_check`; see `tsq.rs`): with them, new data
//!   and lost segments (and NextSeg rescues) wait in the sender while its data in its own host's
//!   queue and transmitter exceed the limit (twice the limit for a retransmission), unless at
//!   most one segment is outstanding; the engine reports each segment's TX completion at its
//!   first link, and the sender's timer wakes it at the next one. The RTO's retransmission and
//!   a tail loss probe are not held back.
//! * Teardown (`teardown`): the receiver's FIN comes on its ACK of the last byte; the sender
//!   acknowledges it (and every repetition of it) with a pure ACK and is closed. Abort
//!   (`set_abort`): at that time a RST goes out and the sender stops for good.
//!
//! Deliberate deviations:
//! * NextSeg rules 3 and 4 (retransmitting unSACKed-but-not-lost data, rescue retransmission) are
//!   not implemented: they only act when the sender has no new data to send, which for a bulk
//!   sender happens only after its stop time. Tail losses after the stop time are found by TLP
//!   (Linux profile) or the RTO.
//! * No F-RTO, DSACK or undo of spurious reductions.
//! * A finite flow's FIN occupies no sequence number (the receiver's ACK of the last byte
//!   acknowledges it); TIME-WAIT holds no timer: the flow is complete when its last byte is
//!   delivered (`Receiver::completed_at`). Its short last segment counts as a whole segment in
//!   the pipe and in cwnd (as Linux counts packets).
//! * The application's writes go out in whole segments (a partial one waits for the rest:
//!   no Nagle timing).

use std::sync::Arc;
use super::accecn::AccEcnSender;
use super::negotiation;
use super::rack::{ProbeOutcome, Rack, Tlp};
use super::rtt::RttEstimator;
use super::tsq::SmallQueues;
use super::scoreboard::{later, CumAck, Delivered, RackLoss, Sacked, Scoreboard, TxStamp};
use super::{AckCounting, EcnFeedback, Profile, Recovery, RttSamples, TcpConfig, Tsq, TxCtx};
use crate::cc::{AckEvent, CaState, Cc, CcEnv, CongestionEvent, CongestionKind, RateSample, Window};
use crate::metrics::histogram::LazyHistogram;
use crate::packet::{AccEcnOption, Ecn, Packet, PktKind, SackBlock, MAX_SACK_BLOCKS};
use super::app::OnOffSchedule;
use crate::units::{Dur, Opt, Time};

crate::counters! {
    /// Monotonic sender counters; measurement windows are differences of snapshots.
    pub struct SenderCounters {
        /// Data segments put on the wire (new and retransmitted).
        segments_sent: "pkts",
        /// Bytes put on the wire by data segments, headers and retransmissions included.
        wire_bytes: "bytes",
        /// Segments retransmitted (fast retransmit, recovery, after a timeout).
        retransmits: "pkts",
        /// Retransmission timeouts.
        timeouts: "count",
        /// Fast recoveries entered.
        fast_recoveries: "count",
        /// Window reductions in response to ECN-Echo.
        ecn_reductions: "count",
        /// Segments the ECN feedback reported CE-marked: with AccECN the ACE field's increase (after the wrap safety rule); with a one-bit echo the segments delivered by ACKs with ECE.
        ce_echoed_segs: "pkts",
        /// SYNs sent again after a SYN timeout.
        syn_retransmits: "count",
        /// Tail loss probes sent (RFC 8985 section 7).
        loss_probes: "pkts",
        /// Retransmissions RACK found lost again (Linux TCPLostRetransmit).
        lost_retransmits: "pkts",
        /// Control packets sent: SYNs, the ACK that completes the handshake, the ACK of the receiver's FIN (teardown) and a RST (abort).
        control_pkts: "pkts",
        /// Window restarts after an idle period longer than the RTO (slow_start_after_idle).
        idle_restarts: "count",
    }
}

/// The data sender's side of the connection.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ConnState {
    /// Before its start time.
    Closed,
    /// SYN sent, waiting for the SYN-ACK.
    SynSent,
    Established,
    /// Never connected: every SYN retransmission timed out (`syn_retries`).
    Failed,
    /// Gave up after `data_retries` consecutive timeouts of the same data.
    Aborted,
    /// Reset by its application at its `abort` time (a RST sent, nothing more).
    Reset,
    /// A finite flow whose every byte was acknowledged and whose receiver's FIN it
    /// acknowledged (`teardown`): closed both ways.
    Finished,
}

impl ConnState {
    pub fn name(self) -> &'static str {
        match self {
            ConnState::Closed => "not_started",
            ConnState::SynSent => "connecting",
            ConnState::Established => "established",
            ConnState::Failed => "never_connected",
            ConnState::Aborted => "aborted",
            ConnState::Reset => "reset",
            ConnState::Finished => "closed",
        }
    }
}

/// The handshake's settings (RFC 793/9293; timer as RFC 6298 and Linux).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct HandshakeSettings {
    enabled: bool,
    syn_bytes: u32,
    ack_bytes: u32,
    syn_timeout: Dur,
    syn_retries: u32,
    syn_linear: u32,
}

/// The handshake's progress.
#[derive(Clone, Copy, Debug)]
struct Handshake {
    /// SYN retransmissions so far.
    retries: u32,
    /// When the SYN timer expires.
    deadline: Time,
    /// When the last SYN was sent (Karn sample if it was the only one).
    sent_at: Time,
}

/// What one ACK acknowledged and measured ([`Sender::sample`]), read by the later phases.
struct AckSample {
    /// The cumulative ACK, segments.
    ack_seg: u64,
    /// It advanced snd_una.
    new_una: bool,
    /// Bytes in flight (RFC 6675 pipe) before the ACK.
    prior_pipe: u64,
    /// The state the ACK found.
    ca_state: CaState,
    /// Outside recovery, what Linux calls Disorder or CWR (`AckEvent::disorder`).
    disorder: bool,
    /// What its SACK blocks newly covered.
    sacked: Sacked,
    /// What its cumulative ACK newly covered.
    cum: CumAck,
    /// Its RTT sample.
    rtt: Option<Dur>,
    /// Bytes newly delivered (cumulatively acknowledged without an earlier SACK, or newly SACKed).
    delivered_bytes: u64,
    /// Its delivery-rate sample.
    rate: RateSample,
    /// Its ECN feedback reports CE marks (the ECE flag, or new AccECN marks).
    ece: bool,
    /// AccECN: the bytes it newly reports CE-marked (`AckEvent::ce_bytes`).
    ce_bytes: Option<u64>,
}

/// Fields of an arriving ACK the sender uses.
#[derive(Clone, Copy, Debug)]
pub struct AckInfo<'a> {
    pub ack: u64,
    pub sack: &'a [SackBlock],
    pub ece: bool,
    /// AccECN's ACE field (RFC 9768 section 3.2.2).
    pub ace: u8,
    /// AccECN's option, if the ACK carries one.
    pub accecn: Option<AccEcnOption>,
    /// The receiver's timestamp (when it sent the ACK).
    pub tsval: Time,
    /// The echoed data timestamp.
    pub tsecr: Time,
    /// The receiver's FIN rides on this ACK.
    pub fin: bool,
}

const DUPTHRESH: u32 = 3;

/// Proportional Rate Reduction state (RFC 6937 section 3).
#[derive(Clone, Copy, Debug, Default)]
pub struct Prr {
    /// Bytes delivered to the receiver since recovery began.
    pub delivered: u64,
    /// Bytes sent since recovery began.
    pub out: u64,
    /// RecoverFS: the flight when recovery began (RFC 6937: snd.nxt - snd.una; Linux: the
    /// window before the reduction, `prior_cwnd`).
    pub recover_fs: u64,
}

/// RFC 6937's sndcnt: how many bytes the sender may send on this ACK.
///
/// * `pipe > ssthresh`: proportional reduction, ceil(prr_delivered x ssthresh / RecoverFS) -
///   prr_out;
/// * otherwise the slow-start reduction bound (PRR-SSRB): min(ssthresh - pipe,
///   max(prr_delivered - prr_out, delivered) + `bonus`), with `bonus` = 1 MSS (RFC 6937), or as
///   Linux 1 MSS only when snd_una advanced and nothing was newly marked lost;
///
/// then at least one segment while nothing was sent yet (the fast retransmission).
pub fn prr_sndcnt(p: &Prr, delivered: u64, pipe: u64, ssthresh: u64, bonus: u64, mss: u64) -> u64 {
    let (pd, po) = (p.delivered as i128, p.out as i128);
    let sndcnt = if pipe > ssthresh {
        let fs = p.recover_fs.max(1) as i128;
        (pd * ssthresh as i128 + fs - 1) / fs - po
    } else {
        let limit = (pd - po).max(delivered as i128) + bonus as i128;
        (ssthresh as i128 - pipe as i128).min(limit)
    };
    let forced = if p.out == 0 { mss as i128 } else { 0 };
    sndcnt.max(forced).max(0) as u64
}

/// ns-3 3.44 TcpPrrRecovery's send count (see `Sender::prr_step_ns3`), bytes. Its proportional
/// branch multiplies prr_delivered by ssthresh in 32 bits, which wraps for windows above about
/// 64 KiB each; reproduced.
pub fn prr_sndcnt_ns3(p: &Prr, delivered: u64, pipe: u64, ssthresh: u64, safe: bool, mss: u64) -> u64 {
    let (pd, po) = (p.delivered as i128, p.out as i128);
    let sndcnt = if pipe > ssthresh {
        let fs = p.recover_fs.max(1) as i128;
        let product = (p.delivered as u32).wrapping_mul(ssthresh as u32) as i128;
        (product + fs - 1) / fs - po
    } else {
        let mut limit = if pd >= po { (pd - po).max(delivered as i128) } else { pd - po };
        if safe {
            limit += mss as i128;
        }
        limit.min(ssthresh as i128 - pipe as i128)
    };
    let forced = if p.out == 0 { mss as i128 } else { 0 };
    sndcnt.max(forced).max(0) as u64
}

/// Connection-level delivery-rate state (Linux `tcp_sock` `delivered`, `delivered_mstamp`,
/// `first_tx_mstamp`, `app_limited`).
#[derive(Clone, Copy, Debug, Default)]
struct RateState {
    /// Bytes delivered (cumulatively acked or SACKed) so far.
    delivered: u64,
    /// When `delivered` last grew.
    delivered_time: Time,
    /// Send time of the first segment of the current sampling flight.
    first_tx_time: Time,
    /// Non-zero while application-limited: the `delivered` value that ends the period.
    app_limited: u64,
}

/// What a sender's settings derive from its TCP configuration and its congestion control's
/// kind, fixed for the connection's life: one copy shared by every flow configured alike
/// (`Sender::share_settings`), not one a flow (issue 21's memory per flow).
#[derive(Debug, PartialEq, Eq, Hash)]
pub struct Settings {
    handshake: HandshakeSettings,
    /// Payload bytes of a full segment, and the headers each packet adds.
    mss: u32,
    header_bytes: u32,
    /// SACK blocks are used for loss detection and NextSeg (SACK on, and a recovery that uses it).
    sack: bool,
    /// The window rule in fast recovery (prr and rfc6675 need SACK; without it, newreno).
    recovery: Recovery,
    profile: Profile,
    ack_counting: AckCounting,
    /// Clock tick of the timestamps option: RTT samples from the echo are whole ticks.
    ts_granularity: Dur,
    /// The timestamps option is on: RTT samples may come from the echo.
    timestamps: bool,
    /// The congestion control reads one-way delays (`AckEvent::owd`) and timestamps are on.
    owd_samples: bool,
    rtt_samples: RttSamples,
    /// Stamp transmissions and form delivery-rate samples (the algorithm asked for them).
    rate_sampling: bool,
    rwnd_bytes: u64,
    /// ns-3's accounting (profile options `disorder_growth`, `exit_ack_growth`,
    /// `lost_head_kept`): no growth on a duplicate ACK with new SACK information; growth on the
    /// ACK that ends recovery (`exited_on_growth`: it did, in `react`); a lost retransmission at
    /// the head kept as retransmitted when recovery starts, and sent again.
    disorder_growth: bool,
    exit_ack_growth: bool,
    lost_head_kept: bool,
    /// The highest RFC 6675 NextSeg rule used (2, 3 or 4), and the bound of rule 3.
    nextseg_rules: u32,
    rule3_bound: super::Rule3Bound,
    /// ns-3: each partial ACK in SACK recovery sends one segment beyond the window.
    partial_ack_retransmit: bool,
    prr_dupack_credit: bool,
    /// Every timeout lowers ssthresh (ns-3), not only the first of an episode.
    rto_every_ssthresh: bool,
    /// SYN retransmissions after which the initial window is one segment (0: never).
    syn_loss_iw_retries: u32,
    /// Linux's pacing rules: the first 10 data segments unpaced, late segments credited.
    pacing_credit: bool,
    /// A retransmitted SYN drops its ECN request (`TcpConfig::syn_ecn_fallback`).
    syn_ecn_fallback: bool,
    /// The slow-start rule, for the Reno an ECN-only algorithm falls back to (`negotiated`).
    slow_start: crate::stack::SlowStart,
    /// An idle connection restarts its window (`TcpConfig::slow_start_after_idle`), from the
    /// initial window `iw_bytes`.
    idle_restart: bool,
    iw_bytes: u64,
    /// Timeouts of the same data after which the connection is given up.
    data_retries: u32,
    /// Acknowledge the receiver's FIN (`TcpConfig::teardown`).
    teardown: bool,
    /// RACK loss detection (RFC 8985) replaces the duplicate-ACK threshold.
    rack_on: bool,
    /// Tail loss probes (RFC 8985 section 7).
    tlp_on: bool,
}

#[derive(Debug)]
pub struct Sender {
    pub flow: u32,
    /// Node the sender sits on.
    pub node: u32,
    /// Node of the receiver (destination of data).
    pub peer: u32,
    /// DiffServ codepoint of every packet it sends.
    pub dscp: u8,
    /// The flow's service port, carried by every packet.
    pub port: u16,
    pub prr: Prr,
    /// ns-3 (`rtt_samples = "timestamps"`): no RTT sample after a timeout until the ACKs pass the
    /// data outstanding at it (TcpSocketBase::ReTxTimeout clears its RTT history).
    rtt_blackout: Opt<u64>,
    /// `rtt_samples = "timed"`: the segment being timed and when it was sent.
    /// (A segment number and a time in 16 bytes: `timed()`; none while `timed_seg` is none.)
    timed_seg: Opt<u64>,
    timed_at: Time,
    ecn: bool,
    /// How the receiver feeds back CE marks (`[tcp] ecn_feedback`, else the algorithm's).
    feedback: EcnFeedback,
    /// AccECN's counters and safety rule (with `feedback` AccEcn).
    accecn: Option<Box<AccEcnSender>>,
    /// The ECN-capable codepoint of data: ECT(0), or ECT(1) for L4S algorithms.
    ect: Ecn,
    /// Every packet is ECN-capable, not only new data (the congestion control needs ECN).
    ect_all: bool,
    /// Its group's settings, fixed for the connection's life (one copy for all its flows).
    cfg: Arc<Settings>,
    pub cc: Cc,
    /// cwnd and ssthresh.
    pub window: Window,
    pub sb: Scoreboard,
    pub rtt: RttEstimator,
    pub state: CaState,
    /// RFC 6675 RecoveryPoint / end of the Loss episode, as a segment number (one past HighData).
    recovery_point: u64,
    /// RFC 6582 `recover` as a segment number (one past the highest segment sent at the last
    /// congestion event); without SACK, duplicate ACKs that do not go beyond it do not start a
    /// new recovery.
    recover: Opt<u64>,
    dupacks: u32,
    /// Timeouts since snd_una last advanced (Linux `icsk_retransmits`): a timeout is a new loss
    /// episode only when it is 0.
    timeouts_since_progress: u32,
    /// Segments sent by limited transmit (RFC 3042) since the duplicate ACKs began; they are not
    /// part of the FlightSize that sets ssthresh (RFC 5681 section 3.2 step 2).
    limited_transmit_segs: u64,
    exited_on_growth: bool,
    /// RFC 6675 RescueRxt (a segment number): no further rescue until snd_una passes it.
    rescue_rxt: Opt<u64>,
    /// NewReno: a partial ACK already reset the RTO in this recovery.
    partial_acked: bool,
    /// ECN: no new reduction until the ACK passes this segment number.
    ecn_recover: u64,
    cwr_pending: bool,
    /// Retransmission timer deadline (`Time::NEVER` when stopped).
    rto_deadline: Time,
    start_at: Time,
    stop_at: Time,
    /// Segments of a finite flow (`u64::MAX`: a bulk transfer) and the payload of its last.
    total_segs: u64,
    last_len: u32,
    /// The start time passed.
    pub started: bool,
    /// Earliest time the next packet may leave when paced.
    pace_next: Time,
    /// try_send stopped at `pace_next` (the sender's timer must release it).
    pace_blocked: bool,
    /// Data segments sent, counted up to 255 (the first-10 rule reads it; `counters` restart
    /// at the measurement window).
    segs_sent: u8,
    /// TCP Small Queues (`tsq.rs`), when they hold this flow back (`TcpConfig::tsq`): its data
    /// in its host's queue and transmitter.
    tsq: Option<Box<SmallQueues>>,
    /// An application writing `app_rate` (payload bytes per second) from the start: new data
    /// goes out only as it is written, in whole segments (the last of a finite flow whole or
    /// not); `app_blocked`: try_send found nothing written to send (the timer wakes it when
    /// the next segment is).
    app_rate: Opt<crate::units::Rate>,
    app_blocked: bool,
    /// When the application next writes what the sender needs, while `app_blocked`.
    app_wake: Time,
    /// The on-periods of an on-off application on this connection (`traffic::onoff`).
    onoff: Option<Box<OnOffSchedule>>,
    /// When data last went out (Linux `lsndtime`), and whether an idle connection restarts
    /// its window (`TcpConfig::slow_start_after_idle`), from the initial window `iw_bytes`.
    last_send: Time,
    rate: RateState,
    pub conn: ConnState,
    hs: Handshake,
    /// When the handshake completed (or the flow started, without a handshake).
    pub connected_at: Opt<Time>,
    /// When the connection failed or was given up.
    pub ended_at: Opt<Time>,
    /// When the application resets the connection (`Time::NEVER`: it does not).
    abort_at: Time,
    rack: Rack,
    tlp: Tlp,
    pub counters: SenderCounters,
    /// RTT samples (ns) in the measurement window.
    pub rtt_hist: LazyHistogram,
    /// Tests: every ACK through the general phases (`in_order_ack` off), to compare the two.
    #[cfg(test)]
    general_only: bool,
}

impl Sender {
    /// `rtt_samples = "timed"`: the segment being timed and when it was sent.
    #[inline]
    fn timed(&self) -> Option<(u64, Time)> {
        self.timed_seg.get().map(|n| (n, self.timed_at))
    }

    /// ns-2's RTT sample (`rtt_samples = "timed"`), on an ACK of new data: the timed segment's,
    /// in ticks of `ts_granularity` (rounded, at least one), once the ACK covers it.
    fn timed_sample(&mut self, now: Time) {
        if let Some((_, sent)) = self.timed().filter(|&(n, _)| self.sb.una() > n) {
            self.timed_seg = Opt::NONE;
            let (g, rtt) = (self.cfg.ts_granularity.ns(), now - sent);
            // rounded to whole ticks, at least one (no granularity: as measured)
            let ticks = (rtt.ns() + g / 2).checked_div(g).map_or(rtt, |k| Dur::from_ns(k * g).max(Dur::from_ns(g)));
            self.rtt.on_sample(ticks, self.sb.una(), self.sb.nxt());
        }
    }

    pub fn new(flow: u32, node: u32, peer: u32, cfg: &TcpConfig, cc: Cc, start_at: Time, stop_at: Time) -> Sender {
        // An algorithm may imply its recovery (Tahoe) where the flow does not set one.
        let implied;
        let cfg = if cfg.recovery.is_none() && cc.implied_recovery().is_some() {
            implied = TcpConfig { recovery: cc.implied_recovery(), ..cfg.clone() };
            &implied
        } else {
            cfg
        };
        let mss = cfg.mss_bytes();
        let rate_sampling = cc.wants_rate_sample();
        let sack = cfg.sack && !matches!(cfg.recovery(), Recovery::Reno | Recovery::Tahoe);
        let rack_on = sack && cfg.rack();
        let sb = Scoreboard::new(rate_sampling);
        let paced = cc.paced();
        let tsq = match cfg.tsq() {
            Tsq::Off => false,
            Tsq::Paced => paced,
            Tsq::All => true,
        };
        let mut s = Sender {
            flow,
            node,
            peer,
            dscp: 0,
            port: 0,
            rtt_blackout: Opt::NONE,
            prr: Prr::default(),
            timed_seg: Opt::NONE,
            timed_at: Time::ZERO,
            ecn: cfg.ecn || cc.needs_ecn(),
            feedback: cfg.ecn_feedback.unwrap_or(cc.ecn_feedback()),
            accecn: (cfg.ecn_feedback.unwrap_or(cc.ecn_feedback()) == EcnFeedback::AccEcn).then(|| Box::new(AccEcnSender::new(cfg.accecn_safety))),
            ect: if cc.ect1() { Ecn::Ect1 } else { Ecn::Ect0 },
            ect_all: cc.needs_ecn(),
            cfg: Arc::new(Settings {
                handshake: HandshakeSettings {
                    enabled: cfg.handshake,
                    syn_bytes: cfg.syn_size().get() as u32,
                    ack_bytes: cfg.ack_size().get() as u32,
                    syn_timeout: cfg.syn_timeout(),
                    syn_retries: cfg.syn_retries(),
                    syn_linear: cfg.syn_linear_timeouts(),
                },
                mss,
                header_bytes: cfg.header_size().get() as u32,
                sack,
                recovery: match (cfg.recovery(), cfg.sack) {
                    (Recovery::Prr | Recovery::Rfc6675, false) => Recovery::NewReno,
                    (r, _) => r,
                },
                profile: cfg.profile,
                ack_counting: cfg.ack_counting(),
                ts_granularity: cfg.ts_granularity(),
                timestamps: cfg.timestamps(),
                owd_samples: cfg.timestamps() && cc.wants_one_way_delay(),
                rtt_samples: cfg.rtt_samples(),
                rate_sampling,
                rwnd_bytes: cfg.rwnd.map_or(u64::MAX, |r| r.get()),
                disorder_growth: cfg.disorder_growth(),
                exit_ack_growth: cfg.exit_ack_growth(),
                lost_head_kept: cfg.lost_head_kept(),
                nextseg_rules: cfg.nextseg_rules(),
                rule3_bound: cfg.nextseg_rule3_bound(),
                partial_ack_retransmit: cfg.partial_ack_retransmit(),
                prr_dupack_credit: cfg.prr_dupack_credit(),
                rto_every_ssthresh: cfg.rto_every_ssthresh(),
                syn_loss_iw_retries: cfg.syn_loss_iw_retries(),
                pacing_credit: cfg.pacing_credit(),
                syn_ecn_fallback: cfg.syn_ecn_fallback(),
                slow_start: cfg.slow_start(),
                idle_restart: cfg.slow_start_after_idle(),
                iw_bytes: cfg.initial_cwnd as u64 * mss as u64,
                data_retries: cfg.data_retries(),
                teardown: cfg.teardown,
                rack_on,
                tlp_on: sack && cfg.tlp(),
            }),
            cc,
            window: Window { cwnd: cfg.initial_cwnd as u64 * mss as u64, ssthresh: cfg.initial_ssthresh.map_or(u64::MAX, |s| s as u64 * mss as u64), mss },
            sb: match (rack_on, cfg.sacked_retransmission_in_flight()) {
                (true, _) => sb.with_rack(),
                (false, true) => sb.with_sacked_retransmissions_in_flight(),
                (false, false) => sb,
            },
            rtt: RttEstimator::new(cfg.rto_rule(), cfg.initial_rto(), cfg.min_rto(), cfg.max_rto(), cfg.rto_granularity()),
            state: CaState::Open,
            recovery_point: 0,
            recover: Opt::NONE,
            dupacks: 0,
            timeouts_since_progress: 0,
            limited_transmit_segs: 0,
            partial_acked: false,
            exited_on_growth: false,
            rescue_rxt: Opt::NONE,
            ecn_recover: 0,
            cwr_pending: false,
            rto_deadline: Time::NEVER,
            start_at,
            stop_at,
            total_segs: u64::MAX,
            last_len: mss,
            started: false,
            pace_next: Time::ZERO,
            pace_blocked: false,
            segs_sent: 0,
            tsq: tsq.then(|| Box::new(SmallQueues::new(paced, mss))),
            app_rate: Opt::NONE,
            app_blocked: false,
            app_wake: Time::NEVER,
            onoff: None,
            last_send: Time::ZERO,
            rate: RateState::default(),
            conn: ConnState::Closed,
            hs: Handshake {
                retries: 0,
                deadline: Time::NEVER,
                sent_at: Time::ZERO,
            },
            connected_at: Opt::NONE,
            ended_at: Opt::NONE,
            abort_at: Time::NEVER,
            rack: Rack::default(),
            tlp: Tlp::default(),
            counters: SenderCounters::default(),
            rtt_hist: LazyHistogram::default(),
            #[cfg(test)]
            general_only: false,
        };
        s.tsq_update_pacing_rate(); // a paced algorithm's initial rate
        s
    }

    /// Share its settings with the senders configured alike before it: `pool` holds one copy
    /// of each distinct [`Settings`].
    pub fn share_settings(&mut self, pool: &mut std::collections::HashSet<Arc<Settings>>) {
        super::intern(pool, &mut self.cfg)
    }

    /// What a congestion control of this flow is built with.
    pub fn cc_env(cfg: &TcpConfig) -> CcEnv {
        CcEnv { mss: cfg.mss_bytes(), initial_cwnd: cfg.initial_cwnd as u64 * cfg.mss_bytes() as u64, profile: cfg.profile, slow_start: cfg.slow_start(), rng_seed: 1, ts_tick: cfg.ts_granularity() }
    }

    pub fn start_at(&self) -> Time {
        self.start_at
    }

    /// Make this a finite flow of `bytes` (> 0) of payload.
    pub fn set_size(&mut self, bytes: u64) {
        let mss = self.cfg.mss as u64;
        self.total_segs = bytes.div_ceil(mss);
        self.last_len = (bytes - (self.total_segs - 1) * mss) as u32;
    }

    /// Make its application reset the connection at `at`: a RST goes out and the sender stops
    /// (no more data, retransmissions or timers); before the start it never starts.
    pub fn set_abort(&mut self, at: Time) {
        self.abort_at = at;
    }

    /// Make this an application-limited flow: its application writes `rate` (payload) from the
    /// start.
    pub fn set_app_rate(&mut self, rate: crate::units::Rate) {
        self.app_rate = Opt::some(rate);
    }

    /// Make its application an on-off source writing only in these on-periods
    /// (`traffic::onoff`, one connection).
    pub fn set_on_off(&mut self, schedule: OnOffSchedule) {
        self.onoff = Some(Box::new(schedule));
    }

    /// The application does not simply keep the socket full: it writes at a rate or in
    /// on-periods.
    #[inline(always)]
    fn paced_writer(&self) -> bool {
        self.app_rate.is_some() || self.onoff.is_some()
    }

    /// Segments the application has written by `now` (`u64::MAX`: as many as the sender takes).
    fn written_segs(&self, now: Time) -> u64 {
        match self.app_rate.get() {
            // an on-off source without a rate writes while on, as fast as the sender takes it
            None => match &self.onoff {
                Some(s) if !s.is_on(now) => 0,
                _ => u64::MAX,
            },
            Some(r) => {
                let active = self.onoff.as_ref().map_or_else(|| now.since(self.start_at), |s| s.on_time(now));
                let bytes = r.bps() as u128 * active.ns() as u128 / 8_000_000_000;
                let segs = (bytes / self.cfg.mss as u128) as u64;
                // the last segment of a finite flow once all its bytes are written
                if self.total_segs != u64::MAX && bytes >= self.size().unwrap_or(0) as u128 { self.total_segs } else { segs }
            }
        }
    }

    /// When the application next writes what the sender needs (`Time::NEVER`: it never does):
    /// the next segment at its rate, or the next on-period.
    fn next_write(&self, now: Time) -> Time {
        match self.app_rate.get() {
            None => self.onoff.as_ref().map_or(Time::NEVER, |s| s.next_on(now)),
            Some(r) => {
                let bytes = ((self.sb.nxt() + 1) * self.cfg.mss as u64).min(self.size().unwrap_or(u64::MAX));
                let active = Dur::from_ns((bytes as u128 * 8_000_000_000).div_ceil(r.bps() as u128).min(u64::MAX as u128) as u64);
                match &self.onoff {
                    None => self.start_at + active,
                    Some(s) => s.when_on_time(active),
                }
            }
        }
    }

    /// When the application of a finite flow that writes at a rate has written its last byte
    /// (`None`: it writes everything at once).
    pub fn all_written_at(&self) -> Option<Time> {
        let (r, size) = (self.app_rate.get()?, self.size()?);
        let active = Dur::from_ns((size as u128 * 8_000_000_000).div_ceil(r.bps() as u128).min(u64::MAX as u128) as u64);
        Some(match &self.onoff {
            None => self.start_at + active,
            Some(s) => s.when_on_time(active),
        })
    }

    /// The sequence number (bytes) after the highest byte sent.
    fn nxt_bytes(&self) -> u64 {
        match self.size() {
            Some(size) if self.sb.nxt() >= self.total_segs => size,
            _ => self.sb.nxt() * self.cfg.mss as u64,
        }
    }

    /// Payload bytes of a finite flow (`None`: a bulk transfer).
    pub fn size(&self) -> Option<u64> {
        (self.total_segs != u64::MAX).then(|| (self.total_segs - 1) * self.cfg.mss as u64 + self.last_len as u64)
    }

    /// Every byte of a finite flow is cumulatively acknowledged.
    pub fn all_acked(&self) -> bool {
        self.sb.una() >= self.total_segs
    }

    /// Wire sizes of what a lone finite flow sends, in order, for its ideal completion time
    /// (`report::ideal_fct`): the SYN and the handshake's ACK (`None` without a handshake), then
    /// the data as (full segments, wire size of each, wire size of the last).
    pub fn wire_train(&self) -> (Option<(u32, u32)>, u64, u32, u32) {
        let hs = self.cfg.handshake.enabled.then_some((self.cfg.handshake.syn_bytes, self.cfg.handshake.ack_bytes));
        let full = self.total_segs.saturating_sub(1);
        (hs, full, self.cfg.mss + self.cfg.header_bytes, self.last_len + self.cfg.header_bytes)
    }

    /// Bytes acknowledged cumulatively so far (snd_una).
    pub fn snd_una(&self) -> u64 {
        self.sb.una() * self.cfg.mss as u64
    }

    /// RFC 6675 pipe, bytes.
    pub fn pipe_bytes(&self) -> u64 {
        self.sb.pipe() * self.cfg.mss as u64
    }

    /// Bytes delivered (acked or SACKed) so far.
    pub fn delivered_bytes(&self) -> u64 {
        self.rate.delivered
    }

    /// Earliest time this sender needs its timer.
    pub fn next_deadline(&self) -> Time {
        let t = match self.conn {
            ConnState::Closed => self.start_at,
            ConnState::SynSent => self.hs.deadline,
            ConnState::Failed | ConnState::Aborted | ConnState::Reset | ConnState::Finished => return Time::NEVER,
            ConnState::Established => {
                let mut t = self.rto_deadline.min(self.rack.deadline).min(self.tlp.deadline);
                // the pacing release, only while pacing holds back a segment cwnd allows (a
                // release time in the past with nothing to send would fire again and again)
                if self.pace_blocked {
                    t = t.min(self.pace_next);
                }
                if self.app_blocked {
                    t = t.min(self.app_wake);
                }
                if self.tsq.is_some() {
                    t = t.min(self.tsq_wake());
                }
                t
            }
        };
        t.min(self.abort_at)
    }

    /// The timer fired (possibly early or late: the sender checks its own deadlines).
    pub fn on_timer(&mut self, ctx: &mut TxCtx<'_>) {
        let now = ctx.now;
        if now >= self.abort_at && !matches!(self.conn, ConnState::Failed | ConnState::Aborted | ConnState::Reset | ConnState::Finished) {
            self.reset(ctx);
            return;
        }
        match self.conn {
            ConnState::Closed => {
                if now < self.start_at {
                    return;
                }
                self.started = true;
                if self.cfg.handshake.enabled {
                    self.send_syn(ctx);
                } else {
                    self.conn = ConnState::Established;
                    self.connected_at = Opt::some(now);
                    self.last_send = now; // Linux tcp_finish_connect sets lsndtime
                    self.try_send(ctx);
                }
            }
            ConnState::SynSent => {
                if now < self.hs.deadline {
                    return;
                }
                if self.hs.retries >= self.cfg.handshake.syn_retries + self.cfg.handshake.syn_linear {
                    self.conn = ConnState::Failed; // every SYN timed out: the flow never connects
                    self.ended_at = Opt::some(now);
                    return;
                }
                self.hs.retries += 1;
                self.counters.syn_retransmits += 1;
                self.send_syn(ctx);
            }
            ConnState::Established => {
                if now >= self.rack.deadline {
                    self.rack_timeout(ctx);
                }
                if now >= self.tlp.deadline {
                    self.send_probe(ctx);
                }
                if now >= self.rto_deadline {
                    self.on_rto(ctx);
                }
                if self.conn == ConnState::Established {
                    self.try_send(ctx);
                }
            }
            ConnState::Failed | ConnState::Aborted | ConnState::Reset | ConnState::Finished => {}
        }
    }

    /// The application aborts: a RST if a SYN or data went out (its sequence number the next
    /// byte, RFC 9293 section 3.10.7.x: the RST of ABORT), then nothing more.
    fn reset(&mut self, ctx: &mut TxCtx<'_>) {
        if self.conn != ConnState::Closed {
            let p = Packet { flow: self.flow, kind: PktKind::Rst, dst: self.peer, src: self.node, dscp: self.dscp, port: self.port, size_bytes: self.cfg.handshake.ack_bytes, seq: self.nxt_bytes(), tsval: ctx.now, ecn: self.control_ecn(), ..Default::default() };
            ctx.out.push(ctx.arena.alloc(p));
            self.counters.control_pkts += 1;
        }
        self.conn = ConnState::Reset;
        self.ended_at = Opt::some(ctx.now);
        self.rto_deadline = Time::NEVER;
        self.rack.deadline = Time::NEVER;
        self.tlp.deadline = Time::NEVER;
        self.pace_blocked = false;
        self.app_blocked = false;
    }

    /// Send a SYN and arm its timer: syn_timeout for the first `syn_linear_timeouts` retries,
    /// then doubled at each retry.
    fn send_syn(&mut self, ctx: &mut TxCtx<'_>) {
        let now = ctx.now;
        self.conn = ConnState::SynSent;
        self.hs.sent_at = now;
        let doublings = self.hs.retries.saturating_sub(self.cfg.handshake.syn_linear);
        self.hs.deadline = now + self.cfg.handshake.syn_timeout.mul(1u64.checked_shl(doublings).unwrap_or(u64::MAX));
        self.send_control(PktKind::Syn, self.cfg.handshake.syn_bytes, Time::ZERO, ctx);
        // its ECN request (AE, CWR, ECE), dropped from retransmissions where the profile says
        let flags = negotiation::syn_flags(self.ecn_mode(), self.hs.retries, self.cfg.syn_ecn_fallback);
        ctx.arena.get_mut(*ctx.out.last().expect("the SYN")).ace = flags;
    }

    /// The ECN feedback in use (before the handshake: the one it asks for); `None`: no ECN.
    pub fn ecn_mode(&self) -> negotiation::EcnMode {
        self.ecn.then_some(self.feedback)
    }

    /// The handshake (or, without one, the ends' abilities) settled the ECN feedback: `mode`,
    /// which is the one asked for, classic ECN in place of AccECN, or none. Without ECN an
    /// algorithm that needs it runs Reno (Linux's dctcp_reno and tcp_prague's prague_reno), its
    /// packets Not-ECT.
    pub fn negotiated(&mut self, mode: negotiation::EcnMode) {
        debug_assert!(mode.is_none() || self.ecn, "negotiation cannot turn ECN on");
        if mode == self.ecn_mode() {
            return;
        }
        match mode {
            None => {
                self.ecn = false;
                self.ect_all = false;
                self.accecn = None;
                if self.cc.needs_ecn() {
                    let env = CcEnv { mss: self.cfg.mss, initial_cwnd: self.cfg.iw_bytes, profile: self.cfg.profile, slow_start: self.cfg.slow_start, rng_seed: 1, ts_tick: self.cfg.ts_granularity };
                    self.cc = Cc::new(&crate::cc::CcConfig::Reno(Default::default()), &env);
                }
            }
            Some(f) => {
                self.feedback = f;
                if f != EcnFeedback::AccEcn {
                    self.accecn = None;
                }
            }
        }
    }

    fn send_control(&mut self, kind: PktKind, size: u32, tsecr: Time, ctx: &mut TxCtx<'_>) {
        let p = Packet { flow: self.flow, kind, dst: self.peer, src: self.node, dscp: self.dscp, port: self.port, size_bytes: size, tsval: ctx.now, tsecr, ecn: self.control_ecn(), ..Default::default() };
        ctx.out.push(ctx.arena.alloc(p));
        self.counters.control_pkts += 1;
    }

    /// How its receiver feeds back CE marks (`[tcp] ecn_feedback`, else the congestion
    /// control's).
    pub fn ecn_feedback(&self) -> EcnFeedback {
        self.feedback
    }

    /// The codepoint of packets other than new data (SYN, pure ACKs, retransmissions):
    /// ECN-capable when the congestion control needs ECN, else Not-ECT.
    pub fn control_ecn(&self) -> Ecn {
        if self.ect_all {
            self.ect
        } else {
            Ecn::NotEct
        }
    }

    /// The SYN-ACK arrived: the connection is established; complete the handshake and send.
    pub fn on_synack(&mut self, a: AckInfo<'_>, ctx: &mut TxCtx<'_>) {
        if self.conn != ConnState::SynSent {
            return; // a duplicate SYN-ACK
        }
        // its flags (AE, CWR, ECE) say what the receiver agreed to (RFC 9768 Table 2)
        self.negotiated(negotiation::client_mode(self.ecn_mode(), a.ace, self.cc.no_classic_fallback()));
        let now = ctx.now;
        self.conn = ConnState::Established;
        self.connected_at = Opt::some(now);
        self.last_send = now; // Linux tcp_finish_connect sets lsndtime
        // The handshake's RTT: the timestamp echo, or Karn's rule on the SYN.
        let sample = match (self.cfg.timestamps, self.hs.retries) {
            (true, _) if a.tsecr <= now => Some(self.echo_sample(now, a.tsecr)),
            (_, 0) => Some(now - self.hs.sent_at),
            _ => None,
        };
        match sample {
            Some(r) => {
                self.rtt.on_sample(r, 0, 0);
                self.rtt_hist.record(r.ns());
            }
            // RFC 6298 section 5.7: after a SYN timeout and with no sample, RTO = 3 s.
            None => self.rtt.set_rto(Dur::from_secs(3)),
        }
        if self.cfg.syn_loss_iw_retries > 0 && self.hs.retries >= self.cfg.syn_loss_iw_retries {
            // RFC 5681 section 3.1 (and RFC 6928): a lost SYN leaves an initial window of one
            // segment (Linux: only after more than one retransmission; ns-3: never).
            self.window.cwnd = self.cfg.mss as u64;
        }
        self.cc.on_established(&self.window, self.rtt.srtt.get());
        // Linux: the SYN-ACK's tcp_ack ends in tcp_cong_control; BBR sets its rate at init
        self.tsq_update_pacing_rate();
        self.send_control(PktKind::HandshakeAck, self.cfg.handshake.ack_bytes, a.tsval, ctx);
        self.try_send(ctx);
    }

    /// An RTT sample from a timestamp echo: whole ticks of the timestamp clock (Linux
    /// `tcp_rtt_tsopt_us` counts a zero difference as one tick; ns-3 `ElapsedTimeFromTsValue`
    /// as 1 us).
    fn echo_sample(&self, now: Time, tsecr: Time) -> Dur {
        let g = self.cfg.ts_granularity.ns();
        if g <= 1 {
            return now - tsecr;
        }
        match now.ns() / g - tsecr.ns() / g {
            0 if self.cfg.profile == Profile::Ns3 => Dur::from_us(1),
            0 => self.cfg.ts_granularity,
            ticks => Dur::from_ns(ticks * g),
        }
    }

    /// `later - earlier` as two timestamps carry it: the difference of their ticks of the
    /// timestamp clock (TSval - TSecr), in time. Out of line: only TCP-LP and LEDBAT ask.
    #[inline(never)]
    fn ts_difference(&self, earlier: Time, later: Time) -> Dur {
        let g = self.cfg.ts_granularity.ns();
        if g <= 1 {
            return later - earlier;
        }
        Dur::from_ns((later.ns() / g - earlier.ns() / g) * g)
    }

    /// The FlightSize a congestion control divides for ssthresh: sent and not cumulatively
    /// acknowledged, less limited-transmit segments (RFC 5681); ns-3 passes its pipe
    /// (BytesInFlight).
    fn flight_for_ssthresh(&self) -> u64 {
        match self.cfg.profile {
            Profile::Ns3 => self.sb.pipe(),
            Profile::Linux | Profile::Ns2 => self.sb.packets_out() - self.limited_transmit_segs.min(self.sb.packets_out()),
        }
    }

    fn arm_rto(&mut self, now: Time) {
        self.rto_deadline = now + self.rtt.rto();
    }

    fn congestion_event(&mut self, now: Time, kind: CongestionKind, new_episode: bool) -> u64 {
        let flight = self.flight_for_ssthresh();
        // (a pass over the whole scoreboard: only for an algorithm that reads it)
        let counted = kind == CongestionKind::Timeout && self.cc.wants_timeout_losses();
        let lost_bytes = if counted { self.sb.timeout_losses() * self.cfg.mss as u64 } else { 0 };
        let ev = CongestionEvent { now, kind, flight_size: flight * self.cfg.mss as u64, new_episode, lost_bytes };
        self.cc.on_congestion(&mut self.window, &ev)
    }

    fn on_rto(&mut self, ctx: &mut TxCtx<'_>) {
        let now = ctx.now;
        if self.sb.packets_out() == 0 {
            self.rto_deadline = Time::NEVER;
            return;
        }
        self.counters.timeouts += 1;
        // The congestion control always learns of the timeout (it resets its state), but ssthresh
        // is only lowered for a new loss episode: not again for a repeated expiry while snd_una
        // has not advanced (RFC 5681 section 3.1, note after eq. 4; Linux `tcp_enter_loss`
        // recomputes it only when `icsk_retransmits`, reset when snd_una advances, is 0), and
        // not when the timeout interrupts a fast recovery that already reduced it - there
        // FlightSize counts the SACKed data and would *raise* ssthresh (Linux keeps it likewise).
        if self.timeouts_since_progress >= self.cfg.data_retries {
            // data_retries retransmissions of the same data timed out: give up the connection
            // (Linux tcp_retries2, ns-3 DataRetries).
            self.conn = ConnState::Aborted;
            self.ended_at = Opt::some(now);
            self.rto_deadline = Time::NEVER;
            return;
        }
        let new_episode = self.cfg.rto_every_ssthresh
            || match self.state {
                CaState::Open | CaState::Disorder => true,
                CaState::Recovery => false,
                CaState::Loss => self.timeouts_since_progress == 0,
            };
        self.timeouts_since_progress += 1;
        if self.state == CaState::Recovery && matches!(self.cfg.recovery, Recovery::NewReno | Recovery::Reno) {
            // Reno's and NewReno's window inflation (one MSS per duplicate ACK) stands for
            // segments that left the network, not for a window: a rule that halves cwnd
            // halves the window without it (ns-2 RenoTcpAgent::timeout zeroes dupwnd_ before
            // TcpAgent::timeout halves cwnd_; RFC 5681 halves FlightSize). Without this, a
            // timeout late in a long recovery set ssthresh to half the inflated window - on a
            // 150-packet path, 250 segments - and the slow start after it overflowed the buffer.
            self.window.cwnd = self.window.cwnd.min(self.window.ssthresh.max(self.cfg.mss as u64));
        }
        let ssthresh = self.congestion_event(now, CongestionKind::Timeout, new_episode);
        if new_episode {
            self.window.ssthresh = ssthresh;
        }
        if !self.cc.full_control() {
            self.window.cwnd = self.cfg.mss as u64;
        }
        self.state = CaState::Loss;
        self.recovery_point = self.sb.nxt();
        self.recover = Opt::some(self.sb.nxt());
        self.dupacks = 0;
        self.sb.mark_all_lost();
        if self.cfg.rtt_samples == RttSamples::Timestamps {
            self.rtt_blackout = Opt::some(self.sb.nxt());
        }
        self.rack.deadline = Time::NEVER;
        self.tlp = Tlp::default();
        self.rtt.on_timeout();
        self.arm_rto(now);
        if let Some(n) = self.sb.next_lost() {
            self.retransmit(n, ctx);
        }
    }

    /// Linux `tcp_rate_gen`: account the bytes this ACK delivered and form the rate sample from
    /// the newest segment it delivered.
    fn rate_sample(&mut self, now: Time, delivered_segs: u64, newest: Option<Delivered>) -> RateSample {
        let r = &mut self.rate;
        r.delivered += delivered_segs * self.cfg.mss as u64;
        if !self.cfg.rate_sampling {
            return RateSample::default();
        }
        if delivered_segs > 0 {
            r.delivered_time = now;
        }
        if r.app_limited != 0 && r.delivered > r.app_limited {
            r.app_limited = 0;
        }
        let Some(d) = newest else { return RateSample::default() };
        r.first_tx_time = d.sent;
        let send_interval = d.sent.since(d.tx.first_tx_time);
        let ack_interval = now.since(d.tx.delivered_time);
        let interval = send_interval.max(ack_interval);
        let sample = RateSample {
            delivered: r.delivered - d.tx.delivered,
            interval,
            is_app_limited: d.tx.app_limited,
            prior_delivered: d.tx.delivered,
        };
        // Shorter than the minimum RTT: ACK compression, not the path rate (Linux drops it).
        match self.rtt.min_rtt.get() {
            Some(min) if interval < min => RateSample { delivered: 0, interval: Dur::ZERO, ..sample },
            _ => sample,
        }
    }

    /// Process an ACK, in the order of its own phases (Linux `tcp_ack`): [`sample`](Self::sample)
    /// what it acknowledges and measures, [`detect`](Self::detect) losses,
    /// [`react`](Self::react) (a repaired tail loss, an ECN echo, the congestion control's
    /// growth), [`recover`](Self::recover) (the recovery state machine), then re-arm the timers
    /// and [`try_send`](Self::try_send).
    pub fn on_ack(&mut self, a: AckInfo<'_>, ctx: &mut TxCtx<'_>) {
        if self.conn != ConnState::Established {
            if self.conn == ConnState::Finished && a.fin {
                self.close_ack(a.tsval, ctx); // TIME-WAIT: the receiver's FIN again
            }
            return; // ACKs of data sent before the connection was given up
        }
        let mss = self.cfg.mss as u64;
        // whole segments, but for a finite flow's last, whose end rounds up to the segment
        let ack_seg = a.ack.div_ceil(mss);
        if ack_seg > self.sb.nxt() || ack_seg < self.sb.una() {
            return; // acknowledges data never sent, or an old ACK reordered: ignore
        }
        let new_una = if !self.in_order_ack(&a, ack_seg, ctx) {
            let s = self.sample(&a, ack_seg, ctx.now);
            let lost_segs = self.detect(&s, ctx.now);
            self.react(&a, &s, lost_segs, ctx.now);
            self.recover(&s, lost_segs, ctx);
            s.new_una
        } else {
            true
        };
        // RFC 6298 5.2 / 5.3 (NewReno recovery resets the timer only on the first partial ACK).
        let now = ctx.now;
        if self.sb.packets_out() == 0 {
            self.rto_deadline = Time::NEVER;
        } else if new_una && !(self.cfg.recovery == Recovery::NewReno && self.state == CaState::Recovery) {
            self.arm_rto(now);
        }
        if self.cfg.tlp_on && (new_una || self.state != CaState::Open) {
            self.schedule_probe(now, true); // Linux tcp_set_xmit_timer
        }
        if self.tsq.is_some() {
            self.tsq_update_pacing_rate(); // Linux tcp_cong_control
        }
        if a.fin && self.cfg.teardown && self.all_acked() {
            self.conn = ConnState::Finished;
            self.close_ack(a.tsval, ctx);
            return;
        }
        self.try_send(ctx);
    }

    /// The common ACK, in one pass: in the Open state, it advances snd_una over segments never
    /// retransmitted, SACKed or marked lost, carries no SACK block and no ECN echo to react to,
    /// with nothing SACKed, lost or retransmitted outstanding, no probe outstanding and no
    /// delivery-rate sampling (RTT samples by Karn's rule, from timestamps, or ns-2's timed
    /// segment). Its effects are exactly those of `sample`, `detect`, `react` and `recover` for
    /// such an ACK (those phases' branches that such an ACK cannot take are left out;
    /// `Scoreboard::ack_in_order` is `ack_cumulative` for it). Loss detection by RACK runs as
    /// `detect` runs it; RFC 6675's (SACK without RACK: the ns-3 and ns-2 profiles) marks
    /// nothing with nothing SACKed outstanding, and its `IsLost(HighACK + 1)` in `recover` is
    /// then false, so both are left out, as with no SACK. False if the ACK is not such a one:
    /// then nothing has changed.
    #[inline]
    fn in_order_ack(&mut self, a: &AckInfo<'_>, ack_seg: u64, ctx: &mut TxCtx<'_>) -> bool {
        let eligible = self.state == CaState::Open
            && a.sack.is_empty()
            && ack_seg > self.sb.una()
            && !(self.ecn && a.ece)
            && (self.feedback != EcnFeedback::AccEcn || (ack_seg - self.sb.una() < 8 && self.accecn.as_ref().is_some_and(|e| e.quiet(a.ace, a.accecn))))
            && self.rtt_blackout.is_none()
            && !self.exited_on_growth
            && (!self.cfg.tlp_on || self.tlp.high_seq.is_none());
        #[cfg(test)]
        let eligible = eligible && !self.general_only;
        if !eligible {
            return false;
        }
        let (now, mss) = (ctx.now, self.cfg.mss as u64);
        // sample: what the ACK acknowledges and measures (as `sample`)
        let prior_pipe = self.pipe_bytes();
        let (una, nxt) = (self.sb.una(), self.sb.nxt());
        let Some(cum) = self.sb.ack_in_order(ack_seg) else { return false };
        let disorder = una < self.ecn_recover;
        if self.cfg.rack_on {
            let mut limit = self.rtt.min_rtt.get().map_or(Time::ZERO, |m| now.earlier_by(m));
            if self.cfg.timestamps {
                limit = limit.min(a.tsecr);
            }
            self.sb.set_rack_ambiguity(limit);
        }
        self.timeouts_since_progress = 0;
        // timed (ns-2): the backoff stays until the timed segment's sample (Karn, t_backoff_)
        let timed = self.cfg.rtt_samples == RttSamples::Timed;
        if !timed {
            self.rtt.on_new_ack();
        }
        let echo = (self.cfg.timestamps && a.tsecr <= now).then(|| self.echo_sample(now, a.tsecr));
        let rtt = match self.cfg.rtt_samples {
            RttSamples::Timestamps if self.cfg.timestamps => echo,
            _ => Some(now - cum.first_sent),
        };
        if let Some(r) = rtt {
            if !timed {
                self.rtt.on_sample(r, ack_seg, nxt);
            }
            self.rtt_hist.record(r.ns());
        }
        if timed {
            self.timed_sample(now);
        }
        let delivered_bytes = cum.segs * mss;
        self.rate.delivered += delivered_bytes;
        let (ece, ce_bytes) = self.ecn_echo(a, cum.segs);
        debug_assert!(!(self.ecn && ece), "an in-order ACK reports no CE mark");
        // detect (RACK; RFC 6675 and no SACK find nothing here)
        let lost_segs = if self.cfg.rack_on {
            self.rack.on_delivered(cum.rack, now);
            self.rack_detect(now, false).newly_lost
        } else {
            0
        };
        // react: the congestion control's growth (no probe outstanding, no echo to react to)
        let cwnd_limited = if self.window.in_slow_start() { self.window.cwnd < 2 * prior_pipe } else { prior_pipe + mss > self.window.cwnd };
        let ev = AckEvent {
            now,
            ca_state: CaState::Open,
            disorder,
            acked_bytes: delivered_bytes,
            sacked_bytes: 0,
            growth_bytes: delivered_bytes,
            lost_bytes: lost_segs * mss,
            prior_in_flight: prior_pipe,
            cwnd_limited,
            ece,
            ce_bytes,
            rtt,
            owd: (self.cfg.owd_samples && a.tsval >= a.tsecr).then(|| self.ts_difference(a.tsecr, a.tsval)),
            srtt: self.rtt.srtt_or(Dur::from_ms(100)),
            min_rtt: self.rtt.min_rtt.get().unwrap_or(Dur::from_ms(100)),
            delivered_total: self.rate.delivered,
            snd_una: ack_seg * mss,
            snd_nxt: nxt * mss,
            rate: RateSample::default(),
        };
        self.cc.on_ack(&mut self.window, &ev);
        // recover: in Open, a new ACK; recovery starts only if RACK marked a segment lost
        if self.cfg.rack_on && self.sb.lost_out() > 0 {
            let s = AckSample {
                ack_seg,
                new_una: true,
                prior_pipe,
                ca_state: CaState::Open,
                disorder,
                sacked: Sacked::default(),
                cum: CumAck { segs: cum.segs, rtt_from: Some(cum.first_sent), rack: cum.rack, ..CumAck::default() },
                rtt,
                delivered_bytes,
                rate: RateSample::default(),
                ece,
                ce_bytes,
            };
            self.recover(&s, lost_segs, ctx);
        } else {
            self.dupacks = 0;
            self.limited_transmit_segs = 0;
        }
        true
    }

    /// FIN-WAIT-2 / TIME-WAIT: acknowledge the receiver's FIN (each time it comes).
    fn close_ack(&mut self, tsecr: Time, ctx: &mut TxCtx<'_>) {
        let p = Packet { flow: self.flow, kind: PktKind::CloseAck, dst: self.peer, src: self.node, dscp: self.dscp, port: self.port, size_bytes: self.cfg.handshake.ack_bytes, seq: self.size().unwrap_or(0), tsval: ctx.now, tsecr, ecn: self.control_ecn(), ..Default::default() };
        ctx.out.push(ctx.arena.alloc(p));
        self.counters.control_pkts += 1;
    }

    /// What an ACK acknowledges and measures, before anything reacts to it: the SACK blocks and
    /// the cumulative ACK applied to the scoreboard, the RTT sample, what was newly delivered and
    /// the delivery-rate sample.
    fn sample(&mut self, a: &AckInfo<'_>, ack_seg: u64, now: Time) -> AckSample {
        let mss = self.cfg.mss as u64;
        let prior_pipe = self.pipe_bytes();
        let new_una = ack_seg > self.sb.una();
        let ca_state = self.state;
        let disorder = ca_state == CaState::Open
            && (self.sb.sacked_out() > 0 || self.sb.lost_out() > 0 || self.sb.retrans_out() > 0 || self.sb.una() < self.ecn_recover);

        if self.cfg.rack_on {
            // RACK ignores a retransmission the ACK may not be for (see set_rack_ambiguity).
            let mut limit = self.rtt.min_rtt.get().map_or(Time::ZERO, |m| now.earlier_by(m));
            if self.cfg.timestamps {
                limit = limit.min(a.tsecr);
            }
            self.sb.set_rack_ambiguity(limit);
        }
        let mut sacked = Sacked::default();
        if self.cfg.sack && !a.sack.is_empty() {
            let mut blocks = [(0u64, 0u64); MAX_SACK_BLOCKS];
            for (dst, b) in blocks.iter_mut().zip(a.sack) {
                *dst = (b.start / mss, b.end.div_ceil(mss));
            }
            sacked = self.sb.sack_blocks(&blocks[..a.sack.len()]);
        }
        let mut newest = sacked.newest;
        let mut cum = CumAck::default();
        if new_una {
            self.timeouts_since_progress = 0;
            cum = self.sb.ack_cumulative(ack_seg);
            newest = Delivered::newest(newest, cum.newest);
            if self.cfg.rtt_samples != RttSamples::Timed {
                self.rtt.on_new_ack();
            } // timed (ns-2): the backoff stays until the timed segment's sample (Karn, t_backoff_)
        }
        // RTT sample: Karn's rule on the oldest newly acknowledged segment, else the oldest newly
        // SACKed one, else the timestamp echo of an ACK of new data (Linux `tcp_ack_update_rtt`);
        // or, as ns-3, the echo of every ACK of new data.
        let echo = (self.cfg.timestamps && new_una && a.tsecr <= now).then(|| self.echo_sample(now, a.tsecr));
        if self.rtt_blackout.get().is_some_and(|end| self.sb.una() > end) {
            self.rtt_blackout = Opt::NONE;
        }
        let rtt = match self.cfg.rtt_samples {
            RttSamples::Timestamps if self.rtt_blackout.is_some() => None,
            RttSamples::Timestamps if self.cfg.timestamps => echo,
            _ => cum.rtt_from.or(sacked.rtt_from.map(|(_, t)| t)).map(|t| now - t).or(echo),
        };
        if let Some(r) = rtt {
            if self.cfg.rtt_samples != RttSamples::Timed {
                self.rtt.on_sample(r, self.sb.una(), self.sb.nxt());
            }
            self.rtt_hist.record(r.ns());
        }
        if self.cfg.rtt_samples == RttSamples::Timed && new_una {
            self.timed_sample(now);
        }
        // Newly delivered: cumulatively acknowledged without an earlier SACK, or newly SACKed.
        let delivered_segs = sacked.newly + cum.segs - cum.were_sacked;
        let rate = self.rate_sample(now, delivered_segs, newest);
        let (ece, ce_bytes) = self.ecn_echo(a, delivered_segs);
        AckSample { ack_seg, new_una, prior_pipe, ca_state, disorder, sacked, cum, rtt, delivered_bytes: delivered_segs * mss, rate, ece, ce_bytes }
    }

    /// What the ACK's ECN feedback reports, given the segments it newly delivered: the ECE
    /// flag (RFC 3168, DCTCP), or AccECN's decoding of its ACE field and option into the
    /// segments newly marked CE (RFC 9768; `accecn.rs`), as `(ece, bytes newly marked)`.
    fn ecn_echo(&mut self, a: &AckInfo<'_>, delivered_segs: u64) -> (bool, Option<u64>) {
        let mss = self.cfg.mss as u64;
        // the AccECN state exists exactly when the feedback is AccECN (`new`)
        let Some(accecn) = self.accecn.as_deref_mut() else {
            if self.ecn && a.ece {
                self.counters.ce_echoed_segs += delivered_segs;
            }
            return (a.ece, None);
        };
        let tsval = self.cfg.timestamps.then_some(a.tsval);
        let sack_or_open = self.cfg.sack || self.state == CaState::Open;
        let marked = accecn.on_ack(a.ace, a.accecn, delivered_segs, delivered_segs * mss, tsval, sack_or_open, mss);
        self.counters.ce_echoed_segs += marked;
        (marked > 0, Some(marked * mss))
    }

    /// Losses the ACK reveals: RACK's (RFC 8985) or RFC 6675's `IsLost`; the segments newly
    /// marked lost.
    fn detect(&mut self, s: &AckSample, now: Time) -> u64 {
        if self.cfg.rack_on {
            self.rack.on_delivered(later(s.sacked.rack, s.cum.rack), now);
            self.rack_detect(now, false).newly_lost
        } else if self.cfg.sack {
            self.sb.mark_lost_by_sack()
        } else {
            0
        }
    }

    /// The reactions to the ACK outside recovery's state machine: a tail-loss probe that
    /// repaired a loss, an ECN echo (RFC 3168 section 6.1.2), and the congestion control's own
    /// growth (`on_ack`, every ACK, with the cwnd-limited flag it gates growth by).
    fn react(&mut self, a: &AckInfo<'_>, s: &AckSample, lost_segs: u64, now: Time) {
        let mss = self.cfg.mss as u64;
        if self.cfg.tlp_on && self.tlp.on_ack(s.ack_seg, !s.new_una && s.sacked.newly == 0) == ProbeOutcome::RepairedLoss && self.state == CaState::Open {
            // The probe retransmission repaired a loss: reduce as for one (RFC 8985 section
            // 7.4.2; Linux tcp_process_tlp_ack: CWR, cwnd = ssthresh).
            self.window.ssthresh = self.congestion_event(now, CongestionKind::Loss, true);
            if !self.cc.full_control() {
                self.window.cwnd = self.window.ssthresh;
            }
        }

        if self.ecn && s.ece && self.state == CaState::Open && s.ack_seg >= self.ecn_recover {
            self.counters.ecn_reductions += 1;
            self.window.ssthresh = self.congestion_event(now, CongestionKind::Ecn, true);
            if !self.cc.full_control() {
                self.window.cwnd = self.window.ssthresh.max(2 * mss);
            }
            self.ecn_recover = self.sb.nxt();
            // RFC 9768 section 3.1.5: an AccECN sender MUST NOT set CWR
            self.cwr_pending = self.feedback != EcnFeedback::AccEcn;
        }

        // Linux tcp_is_cwnd_limited: in slow start, grow while cwnd < 2 * in flight.
        let cwnd_limited = if self.window.in_slow_start() {
            self.window.cwnd < 2 * s.prior_pipe
        } else {
            s.prior_pipe + mss > self.window.cwnd
        };
        let mut ca_state = s.ca_state;
        let mut growth_bytes = match self.cfg.ack_counting {
            AckCounting::Delivered => s.delivered_bytes,
            AckCounting::Cumulative => s.cum.segs * mss,
        };
        if ca_state == CaState::Open && s.sacked.newly > 0 && !self.cfg.disorder_growth {
            ca_state = CaState::Disorder; // ns-3: a duplicate ACK, no growth on it
        }
        if self.cfg.exit_ack_growth
            && self.state == CaState::Recovery
            && matches!(self.cfg.recovery, Recovery::Prr | Recovery::Rfc6675)
            && !self.cc.full_control()
            && self.sb.una() >= self.recovery_point
        {
            // ns-3 ProcessAck: the ACK that ends recovery sets cwnd = ssthresh, then grows it in
            // CA_OPEN by the cumulative advance, segments SACKed before included
            self.exit_recovery(now);
            self.exited_on_growth = true;
            ca_state = CaState::Open;
            growth_bytes = s.cum.segs * mss;
        }
        let ev = AckEvent {
            now,
            ca_state,
            disorder: s.disorder,
            acked_bytes: s.cum.segs * mss,
            sacked_bytes: s.sacked.newly * mss,
            growth_bytes,
            lost_bytes: lost_segs * mss,
            prior_in_flight: s.prior_pipe,
            cwnd_limited,
            ece: s.ece,
            ce_bytes: s.ce_bytes,
            rtt: s.rtt,
            owd: (self.cfg.owd_samples && a.tsval >= a.tsecr).then(|| self.ts_difference(a.tsecr, a.tsval)),
            srtt: self.rtt.srtt_or(Dur::from_ms(100)),
            min_rtt: self.rtt.min_rtt.get().unwrap_or(Dur::from_ms(100)),
            delivered_total: self.rate.delivered,
            snd_una: self.sb.una() * mss,
            snd_nxt: self.sb.nxt() * mss,
            rate: s.rate,
        };
        self.cc.on_ack(&mut self.window, &ev);
        if self.cfg.rate_sampling && self.cc.take_app_limited() {
            // Linux tcp_bbr.c in PROBE_RTT: tp->app_limited = delivered + in flight
            self.rate.app_limited = (self.rate.delivered + self.pipe_bytes()).max(1);
        }
    }

    /// The recovery state machine on an ACK (Linux `tcp_fastretrans_alert`): in Open, count
    /// duplicate ACKs and enter recovery when it is time; in Recovery, run the chosen recovery's
    /// window rule and leave at RecoveryPoint; in Loss, leave once the timeout's data is
    /// acknowledged.
    fn recover(&mut self, s: &AckSample, lost_segs: u64, ctx: &mut TxCtx<'_>) {
        let now = ctx.now;
        let mss = self.cfg.mss as u64;
        let (new_una, sacked, cum, delivered_bytes) = (s.new_una, &s.sacked, &s.cum, s.delivered_bytes);
        let full = self.cc.full_control();
        if self.exited_on_growth {
            // recovery ended in `react` on this ACK (exit_ack_growth): as a new ACK in Open
            self.exited_on_growth = false;
            self.dupacks = 0;
            self.limited_transmit_segs = 0;
            return;
        }
        match self.state {
            CaState::Disorder => unreachable!("Disorder is reported to the congestion control only"),
            CaState::Open => {
                if new_una {
                    self.dupacks = 0;
                    self.limited_transmit_segs = 0;
                } else if self.sb.packets_out() > 0 && (!self.cfg.sack || sacked.newly > 0) {
                    self.dupacks += 1;
                }
                // RACK: recovery starts when it marked a segment lost (Linux tcp_time_to_recover);
                // otherwise the third duplicate ACK or RFC 6675's IsLost(HighACK + 1).
                let time_to_recover = if self.cfg.rack_on {
                    self.sb.lost_out() > 0
                } else {
                    self.dupacks >= DUPTHRESH || (self.cfg.sack && self.sb.packets_out() > 0 && self.sb.is_lost(self.sb.una()))
                };
                // Without SACK, RFC 6582 `recover` (and ns-2's bugFix_): no new fast retransmit
                // for duplicate ACKs that do not cover more than the highest segment sent at the
                // last episode (they may come from segments retransmitted needlessly after a
                // timeout). With SACK such duplicates SACK nothing and are not counted.
                let guard = self.cfg.sack || self.recover.get().is_none_or(|r| self.sb.una() > r);
                if time_to_recover && guard {
                    let head_again = self.lost_head_again();
                    self.enter_recovery(ctx);
                    if self.cfg.recovery == Recovery::Prr && !full {
                        match self.cfg.profile {
                            Profile::Linux | Profile::Ns2 => self.prr_step(delivered_bytes, new_una, lost_segs > 0),
                            // ns-3: TcpPrrRecovery::EnterRecovery calls DoRecovery as for a dupack
                            Profile::Ns3 => self.prr_step_ns3(delivered_bytes, false, true),
                        }
                    }
                    if head_again {
                        let una = self.sb.una();
                        self.retransmit(una, ctx); // RFC 6675 step 4.3, whatever the window
                    }
                }
            }
            CaState::Recovery => {
                if self.sb.una() >= self.recovery_point {
                    self.exit_recovery(now);
                } else {
                    match self.cfg.recovery {
                        Recovery::Prr if !full && self.cfg.profile == Profile::Ns3 => {
                            // ns-3 runs DoRecovery for an ACK that SACKs new data (as a dupack)
                            // and again for a partial ACK of at least a segment: an ACK that
                            // does both counts its delivery twice (TcpSocketBase::ProcessAck).
                            if sacked.newly > 0 {
                                self.prr_step_ns3(delivered_bytes, cum.retransmitted, true);
                            }
                            if new_una && delivered_bytes >= mss {
                                self.prr_step_ns3(delivered_bytes, cum.retransmitted, false);
                            }
                            if new_una && self.cfg.partial_ack_retransmit {
                                self.partial_ack_retransmission(ctx);
                            }
                        }
                        Recovery::Prr if !full => self.prr_step(delivered_bytes, new_una, lost_segs > 0),
                        Recovery::Prr | Recovery::Rfc6675 => {} // cwnd = ssthresh; NextSeg does the work
                        Recovery::NewReno => self.newreno_ack(new_una, cum.segs * mss, full, ctx),
                        Recovery::Reno => {
                            if new_una {
                                self.exit_recovery(now); // ns-2 Reno: any new ACK ends recovery
                            } else if !full {
                                self.window.cwnd += mss; // window inflation per duplicate ACK
                            }
                        }
                        Recovery::Tahoe => unreachable!("Tahoe has no fast recovery"),
                    }
                }
            }
            CaState::Loss => {
                if self.sb.una() >= self.recovery_point {
                    self.state = CaState::Open;
                    self.dupacks = 0;
                }
            }
        }
    }

    /// RACK's loss detection with the current reordering window.
    fn rack_detect(&mut self, now: Time, force: bool) -> RackLoss {
        let (state, rtt) = (self.state, &self.rtt);
        let reo_wnd = |sb: &Scoreboard| Rack::reo_wnd(sb.reordering_seen, state != CaState::Open, sb.sacked_out(), rtt.min_rtt.get(), rtt.srtt.get());
        let found = self.rack.detect(&mut self.sb, reo_wnd, now, force);
        self.counters.lost_retransmits += found.lost_retransmits;
        found
    }

    /// The reordering timer fired (RFC 8985 section 6.3; Linux `tcp_rack_reo_timeout`).
    fn rack_timeout(&mut self, ctx: &mut TxCtx<'_>) {
        self.rack.deadline = Time::NEVER;
        let found = self.rack_detect(ctx.now, true);
        if found.newly_lost == 0 {
            return;
        }
        self.cc.on_marked_lost(found.newly_lost * self.cfg.mss as u64);
        if self.state == CaState::Open {
            self.enter_recovery(ctx);
            if self.cfg.recovery == Recovery::Prr && !self.cc.full_control() {
                self.prr_step(self.cfg.mss as u64, false, true);
            }
        }
        self.try_send(ctx);
    }

    /// (Re-)arm the probe timer (Linux `tcp_schedule_loss_probe`): in the Open state with data
    /// outstanding; `advancing_rto`: the RTO is being restarted now (else the time left on it
    /// caps the PTO).
    fn schedule_probe(&mut self, now: Time, advancing_rto: bool) {
        if self.state != CaState::Open || self.sb.packets_out() == 0 {
            self.tlp.deadline = Time::NEVER;
            return;
        }
        let rto_left = if advancing_rto || self.rto_deadline.is_never() { self.rtt.rto() } else { self.rto_deadline.since(now) };
        self.tlp.deadline = now + Tlp::pto(self.rtt.srtt.get(), self.sb.packets_out(), self.rtt.min_rto(), rto_left);
    }

    /// The probe timer fired (RFC 8985 section 7.3; Linux `tcp_send_loss_probe`): one new
    /// segment regardless of cwnd, else the highest outstanding segment again; one probe per
    /// tail-loss episode.
    fn send_probe(&mut self, ctx: &mut TxCtx<'_>) {
        self.tlp.deadline = Time::NEVER;
        if self.tlp.high_seq.is_some() || self.state != CaState::Open || self.sb.packets_out() == 0 {
            return;
        }
        if self.can_send_new(ctx.now) {
            self.send_new(false, ctx);
            self.tlp.retrans = false;
        } else {
            let n = self.sb.nxt() - 1;
            if self.sb.is_sacked(n) {
                return;
            }
            self.retransmit(n, ctx);
            self.tlp.retrans = true;
        }
        self.tlp.high_seq = Opt::some(self.sb.nxt());
        self.counters.loss_probes += 1;
        self.arm_rto(ctx.now);
    }

    /// RFC 6582 in recovery: a partial ACK retransmits the next hole and deflates the window by
    /// what it acknowledged (adding back one MSS if that was at least one); a duplicate ACK
    /// inflates it by one MSS.
    fn newreno_ack(&mut self, new_una: bool, acked_bytes: u64, full: bool, ctx: &mut TxCtx<'_>) {
        let mss = self.cfg.mss as u64;
        if new_una {
            self.sb.mark_head_lost();
            if !full {
                self.window.cwnd = self.window.cwnd.saturating_sub(acked_bytes);
                if acked_bytes >= mss {
                    self.window.cwnd += mss;
                }
                self.window.cwnd = self.window.cwnd.max(mss);
            }
            if let Some(n) = self.sb.next_lost() {
                self.retransmit_lost(n, ctx);
            }
            if !self.partial_acked {
                self.partial_acked = true;
                self.arm_rto(ctx.now);
            }
        } else if !full {
            self.window.cwnd += mss; // RFC 6582 step 4: inflate per duplicate ACK
        }
    }

    /// One ACK of PRR: cwnd = pipe + sndcnt (RFC 6937 section 3; Linux `tcp_cwnd_reduction`).
    fn prr_step(&mut self, delivered: u64, snd_una_advanced: bool, newly_lost: bool) {
        if delivered == 0 {
            return; // nothing delivered: the window stays (Linux tcp_cwnd_reduction)
        }
        let mss = self.cfg.mss as u64;
        self.prr.delivered += delivered;
        let bonus = match self.cfg.profile {
            Profile::Linux | Profile::Ns2 if !snd_una_advanced || newly_lost => 0,
            _ => mss,
        };
        let pipe = self.pipe_bytes();
        let sndcnt = prr_sndcnt(&self.prr, delivered, pipe, self.window.ssthresh, bonus, mss);
        self.window.cwnd = pipe + sndcnt;
    }

    /// One DoRecovery of ns-3's TcpPrrRecovery (3.44): below ssthresh the limit is
    /// max(prr_delivered - prr_out, delivered), plus one segment on an ACK that cumulatively
    /// acknowledges retransmitted data (its "safe ACK"), except that when prr_out exceeds
    /// prr_delivered its unsigned arithmetic makes the limit prr_delivered - prr_out.
    ///
    /// `dupack`: the ACK brought new SACK information, or starts the recovery. ns-3 3.44 then
    /// adds one segment to DeliveredData while prr_delivered < RecoverFS (`prr_dupack_credit`,
    /// on in the ns3 profile), although its DeliveredData already counts the SACKed bytes (the
    /// addition is meant for ACKs without SACK; ns-3 after 3.44 changed RecoverFS too).
    fn prr_step_ns3(&mut self, mut delivered: u64, safe: bool, dupack: bool) {
        let mss = self.cfg.mss as u64;
        if dupack && self.cfg.prr_dupack_credit && self.prr.delivered < self.prr.recover_fs {
            delivered += mss;
        }
        if delivered == 0 {
            return;
        }
        self.prr.delivered += delivered;
        let pipe = self.pipe_bytes();
        let sndcnt = prr_sndcnt_ns3(&self.prr, delivered, pipe, self.window.ssthresh, safe, mss);
        self.window.cwnd = pipe + sndcnt;
    }

    /// ns-3's partial ACK in SACK recovery (`TcpSocketBase::ProcessAck` -> `DoRetransmit`):
    /// unless the new head segment was already retransmitted, one segment goes out beyond the
    /// window: the lowest lost one (NextSeg rule 1), else new data, else the head again.
    fn partial_ack_retransmission(&mut self, ctx: &mut TxCtx<'_>) {
        if self.sb.is_retransmitted(self.sb.una()) {
            return;
        }
        if let Some(n) = self.sb.next_lost() {
            self.retransmit(n, ctx);
        } else if self.can_send_new(ctx.now) {
            self.send_new(false, ctx);
        } else if self.sb.packets_out() > 0 && !self.sb.is_sacked(self.sb.una()) {
            self.retransmit(self.sb.una(), ctx);
        }
    }

    /// `lost_head_kept`: recovery starts while the head is a retransmission already marked lost
    /// (ns-3's EnterRecovery leaves it retransmitted, in flight, and sends it again).
    fn lost_head_again(&self) -> bool {
        self.cfg.lost_head_kept && !self.cfg.rack_on && self.sb.packets_out() > 0 && self.sb.is_lost(self.sb.una()) && self.sb.is_retransmitted(self.sb.una())
    }

    fn enter_recovery(&mut self, ctx: &mut TxCtx<'_>) {
        let mss = self.cfg.mss as u64;
        self.counters.fast_recoveries += 1;
        let prior_cwnd = self.window.cwnd;
        if !self.cfg.rack_on && self.cfg.recovery != Recovery::Tahoe && !self.lost_head_again() {
            self.sb.mark_head_lost(); // (with RACK, RACK marked what is lost)
        }
        // RecoverFS: Linux the window before the reduction; ns-3 its pipe, the head marked lost.
        let recover_fs = match self.cfg.profile {
            Profile::Linux | Profile::Ns2 => prior_cwnd,
            Profile::Ns3 => self.pipe_bytes(),
        };
        self.window.ssthresh = self.congestion_event(ctx.now, CongestionKind::Loss, true);
        self.recovery_point = self.sb.nxt();
        self.recover = Opt::some(self.sb.nxt());
        self.partial_acked = false;
        self.limited_transmit_segs = 0;
        let full = self.cc.full_control();
        if self.cfg.recovery == Recovery::Tahoe {
            // Tahoe: no fast recovery. Retransmit the loss and go back N under slow start, as
            // after a timeout (ns-2 TCP agent: slowdown to cwnd 1, t_seqno_ = highest_ack_ + 1).
            self.state = CaState::Loss;
            self.sb.mark_all_lost();
            if !full {
                self.window.cwnd = mss;
            }
            if let Some(n) = self.sb.next_lost() {
                self.retransmit_lost(n, ctx);
            }
            return;
        }
        self.state = CaState::Recovery;
        self.tlp.deadline = Time::NEVER;
        self.prr = Prr { delivered: 0, out: 0, recover_fs };
        if !full {
            self.window.cwnd = match self.cfg.recovery {
                Recovery::NewReno | Recovery::Reno => self.window.ssthresh + 3 * mss,
                _ => self.window.ssthresh,
            };
        }
        // Fast retransmit regardless of cwnd (RFC 6675 section 5 step 4.3, RFC 6582 step 2).
        // With PRR the window set on this ACK (at least one segment while nothing was sent in
        // the recovery) lets it out, after the reduction is computed, as Linux and ns-3 do.
        if self.cfg.recovery == Recovery::Prr && !full {
            return;
        }
        if let Some(n) = self.sb.next_lost() {
            self.retransmit_lost(n, ctx);
        }
    }

    fn exit_recovery(&mut self, now: Time) {
        let mss = self.cfg.mss as u64;
        self.state = CaState::Open;
        self.dupacks = 0;
        if !self.cc.full_control() {
            self.window.cwnd = if self.cfg.recovery == Recovery::NewReno {
                // RFC 6582 section 3.2 step 5, option 1
                self.window.ssthresh.min((self.sb.packets_out() * mss).max(mss) + mss)
            } else {
                self.window.ssthresh // RFC 6675, RFC 6937, ns-2 Reno's deflation
            };
        }
        self.cc.on_recovery_exit(&mut self.window, now);
    }

    /// Send as much as cwnd, the receiver window and pacing allow.
    pub fn try_send(&mut self, ctx: &mut TxCtx<'_>) {
        if self.conn != ConnState::Established {
            return;
        }
        let mss = self.cfg.mss as u64;
        let mut sent_new = false;
        self.pace_blocked = false;
        self.app_blocked = false;
        if self.tsq.is_some() {
            self.tsq_unthrottle();
        }
        loop {
            let allowance = if !self.cfg.sack && self.state == CaState::Open {
                self.dupacks.min(2) as u64 * mss // RFC 3042 limited transmit
            } else {
                0
            };
            let pipe = self.pipe_bytes();
            if pipe + mss > self.window.cwnd + allowance {
                break;
            }
            if ctx.now < self.pace_next && self.cc.pacing_rate(&self.window).is_some() {
                self.pace_blocked = true;
                break;
            }
            let limited_transmit = pipe + mss > self.window.cwnd;
            // TCP Small Queues: lost segments and rescues with factor 1
            // (tcp_xmit_retransmit_queue), new data with factor 0 (tcp_write_xmit); nothing
            // marked lost, no lost segment to find (its scan's cursor is only a bound)
            if let Some(n) = if self.sb.lost_out() == 0 { None } else { self.sb.next_lost() } {
                if self.tsq_holds(n, 1, ctx.now) {
                    break;
                }
                self.retransmit(n, ctx);
            } else if self.can_send_new(ctx.now) {
                if self.tsq_holds(self.sb.nxt(), 0, ctx.now) {
                    break;
                }
                self.send_new(limited_transmit, ctx);
                sent_new = true;
            } else if let Some(r) = self.rescue_candidate() {
                if self.tsq_holds(r.0, 1, ctx.now) {
                    break;
                }
                self.rescue(r, ctx);
            } else {
                let unwritten = self.sb.nxt() < self.total_segs && self.paced_writer() && self.sb.nxt() >= self.written_segs(ctx.now);
                self.app_blocked = unwritten && ctx.now < self.stop_at;
                if self.app_blocked {
                    self.app_wake = self.next_write(ctx.now);
                }
                if self.cfg.rate_sampling && (ctx.now >= self.stop_at || self.sb.nxt() >= self.total_segs || unwritten) {
                    // Nothing left to send with room in cwnd: application-limited (Linux
                    // tcp_rate_check_app_limited) until what is in flight is delivered.
                    self.rate.app_limited = (self.rate.delivered + self.pipe_bytes()).max(1);
                }
                break;
            }
        }
        if sent_new && self.cfg.tlp_on {
            self.schedule_probe(ctx.now, false);
        }
    }

    /// TCP Small Queues hold back segment `n` now (`factor` 1 for a retransmission)? Never
    /// without them.
    #[inline(always)]
    fn tsq_holds(&mut self, n: u64, factor: u32, now: Time) -> bool {
        self.tsq.is_some() && self.tsq_check(n, factor, now)
    }

    #[inline(never)]
    fn tsq_check(&mut self, n: u64, factor: u32, now: Time) -> bool {
        let len = if n + 1 == self.total_segs { self.last_len } else { self.cfg.mss };
        let rtx_skbs = self.sb.packets_out();
        self.tsq.as_deref_mut().expect("tsq").holds(now, len, factor, rtx_skbs)
    }

    /// TCP Small Queues held it back: when it wakes (the next TX completion of its own packets).
    #[inline(never)]
    fn tsq_wake(&self) -> Time {
        let q = self.tsq.as_deref().expect("tsq");
        if q.throttled() { q.wake() } else { Time::NEVER }
    }

    #[inline(never)]
    fn tsq_unthrottle(&mut self) {
        self.tsq.as_deref_mut().expect("tsq").unthrottle();
    }

    /// TCP Small Queues: `sk_pacing_rate` after an ACK (Linux `tcp_cong_control`) or when the
    /// connection is established: the algorithm's (bytes/s, unlimited before it sets one) if it
    /// paces, else `tcp_update_pacing_rate`'s; with it the size of Linux's skbs (`tcp_tso_segs`).
    #[inline(never)]
    fn tsq_update_pacing_rate(&mut self) {
        let Some(q) = self.tsq.as_deref_mut() else { return };
        let mss = self.cfg.mss as u64;
        let rate = if q.paced() {
            self.cc.pacing_rate(&self.window).map_or(u64::MAX, |r| r.bps() / 8)
        } else {
            super::tsq::linux_pacing_rate(self.cfg.mss, self.window.cwnd / mss, self.window.ssthresh / mss, self.sb.packets_out(), self.rtt.srtt.get())
        };
        q.set_pacing_rate(rate, self.rtt.min_rtt.get(), self.cfg.mss);
    }

    /// The engine: a data segment this sender sent, charged `size` (its payload and
    /// `Packet::tsq`), is done at its first link at `at` (TX completion; dropped: `at` =
    /// `now`). True if the sender's timer must be re-armed (TCP Small Queues held it back and
    /// it may now go on earlier).
    pub fn tsq_done(&mut self, at: Time, size: u32, now: Time) -> bool {
        self.tsq.as_deref_mut().is_some_and(|q| q.complete(at, size, now))
    }

    /// TCP Small Queues: what this sender has charged for segments its first link has not
    /// reported yet (`None`: not under them).
    pub fn tsq_unreported(&self) -> Option<u64> {
        self.tsq.as_deref().map(SmallQueues::unreported)
    }

    /// A segment marked lost goes out at once (a fast retransmission), unless TCP Small Queues
    /// hold it back (Linux's goes through `tcp_xmit_retransmit_queue`, factor 1): then
    /// `try_send` sends it when they wake the sender.
    fn retransmit_lost(&mut self, n: u64, ctx: &mut TxCtx<'_>) {
        if !self.tsq_holds(n, 1, ctx.now) {
            self.retransmit(n, ctx);
        }
    }

    /// RFC 6675 NextSeg rules 3 and 4, in SACK fast recovery when neither a lost segment nor new
    /// data can be sent (`nextseg_rules`): (3) the lowest unSACKed segment above HighRxt and
    /// below the highest SACK; else (4) once per recovery, the highest outstanding unSACKed
    /// segment. Returns (segment, is_rule_4).
    fn rescue_candidate(&self) -> Option<(u64, bool)> {
        if self.cfg.nextseg_rules < 3 || self.state != CaState::Recovery || !self.cfg.sack {
            return None;
        }
        if let Some(n) = self.sb.next_seg_rule3(self.cfg.rule3_bound) {
            return Some((n, false));
        }
        if self.cfg.nextseg_rules >= 4 && self.rescue_rxt.get().is_none_or(|r| self.sb.una() > r) {
            return self.sb.highest_unsacked().map(|n| (n, true));
        }
        None
    }

    fn rescue(&mut self, (n, rule4): (u64, bool), ctx: &mut TxCtx<'_>) {
        let tx = self.tx_stamp(ctx.now);
        if rule4 {
            self.sb.on_rescue_retransmit(n, ctx.now, tx);
            self.rescue_rxt = Opt::some(self.recovery_point);
        } else {
            self.sb.on_retransmit(n, ctx.now, tx);
        }
        self.counters.retransmits += 1;
        self.transmit(n, true, ctx);
    }

    /// New data may go out: before the stop time, while a finite flow has some left, and within
    /// the receiver window.
    #[inline]
    fn can_send_new(&self, now: Time) -> bool {
        now < self.stop_at
            && self.sb.nxt() < self.total_segs
            && (self.sb.nxt() + 1 - self.sb.una()) * self.cfg.mss as u64 <= self.cfg.rwnd_bytes
            && (!self.paced_writer() || self.sb.nxt() < self.written_segs(now))
    }

    /// Send the next new segment (`limited_transmit`: sent beyond cwnd by RFC 3042).
    #[inline(always)]
    fn send_new(&mut self, limited_transmit: bool, ctx: &mut TxCtx<'_>) {
        if self.sb.pipe() == 0 {
            self.tx_start(ctx.now);
        }
        let tx = self.tx_stamp(ctx.now);
        self.sb.on_send_new(ctx.now, tx);
        let n = self.sb.nxt() - 1;
        self.limited_transmit_segs += limited_transmit as u64;
        self.transmit(n, false, ctx);
    }

    /// New data goes out with nothing in flight: after an idle period longer than the RTO with
    /// nothing outstanding, the window restarts (`slow_start_after_idle`); the congestion control
    /// hears of it (Linux `CA_EVENT_TX_START`).
    #[cold]
    #[inline(never)]
    fn tx_start(&mut self, now: Time) {
        let idle = now.since(self.last_send);
        if self.sb.packets_out() == 0 && self.cfg.idle_restart && !self.cc.full_control() && idle > self.rtt.rto() {
            self.restart_window(idle);
        }
        self.cc.on_tx_start(idle, now);
    }

    /// The window after `idle` without sending (Linux `tcp_cwnd_restart`, RFC 5681 section 4.1):
    /// ssthresh at least 3/4 cwnd (`tcp_current_ssthresh`), cwnd halved for each RTO of the
    /// idle time but not below the restart window min(initial window, cwnd), in whole segments.
    #[cold]
    fn restart_window(&mut self, idle: Dur) {
        let mss = self.cfg.mss as u64;
        let cwnd = self.window.cwnd / mss;
        if self.state == CaState::Open {
            self.window.ssthresh = self.window.ssthresh.max((cwnd / 2 + cwnd / 4) * mss);
        }
        let restart = (self.cfg.iw_bytes / mss).min(cwnd);
        let (mut w, mut left, rto) = (cwnd, idle.ns() as i128, self.rtt.rto().ns() as i128);
        loop {
            left -= rto;
            if left <= 0 || w <= restart {
                break;
            }
            w >>= 1;
        }
        self.window.cwnd = w.max(restart).max(1) * mss;
        self.counters.idle_restarts += 1;
    }

    /// Linux `tcp_rate_skb_sent`: the stamp of a segment sent now (empty unless sampling).
    #[inline]
    fn tx_stamp(&mut self, now: Time) -> TxStamp {
        if !self.cfg.rate_sampling {
            return TxStamp::default();
        }
        if self.sb.packets_out() == 0 {
            self.rate.first_tx_time = now;
            self.rate.delivered_time = now;
        }
        TxStamp {
            delivered: self.rate.delivered,
            delivered_time: self.rate.delivered_time,
            first_tx_time: self.rate.first_tx_time,
            app_limited: self.rate.app_limited != 0,
        }
    }

    fn retransmit(&mut self, n: u64, ctx: &mut TxCtx<'_>) {
        let tx = self.tx_stamp(ctx.now);
        self.sb.on_retransmit(n, ctx.now, tx);
        self.counters.retransmits += 1;
        self.transmit(n, true, ctx);
        // Linux re-arms the timer when it retransmits the head (tcp_xmit_retransmit_queue), so a
        // fast retransmission gets a whole RTO to be acknowledged.
        if n == self.sb.una() && self.rtt.rearm_on_head_retransmit() {
            self.arm_rto(ctx.now);
        }
    }

    #[inline(always)]
    fn transmit(&mut self, n: u64, retx: bool, ctx: &mut TxCtx<'_>) {
        let mss = self.cfg.mss;
        let fin = n + 1 == self.total_segs;
        let len = if fin { self.last_len } else { mss };
        let size = len + self.cfg.header_bytes;
        let cwr = !retx && std::mem::take(&mut self.cwr_pending);
        // TCP Small Queues: charged to the host's queue (`__tcp_transmit_skb`), the packet
        // carrying its share of its skb's overhead
        let tsq = match self.tsq.as_deref_mut() {
            None => 0,
            Some(q) => q.charge(len) as u16,
        };
        let ecn = if self.ecn && !retx { self.ect } else { self.control_ecn() };
        let (flow, dst, src, dscp, port, now) = (self.flow, self.peer, self.node, self.dscp, self.port, ctx.now);
        let id = ctx.arena.alloc_with(|p| {
            *p = Packet {
                flow,
                kind: PktKind::Data,
                dst, src, dscp, port,
                size_bytes: size,
                seq: n * mss as u64,
                len_bytes: len,
                fin,
                ecn,
                cwr,
                retx,
                tsval: now,
                tsq,
                ..Default::default()
            }
        });
        ctx.out.push(id);
        self.last_send = ctx.now;
        if self.cfg.rtt_samples == RttSamples::Timed {
            // ns-2: a retransmission cancels the timing (Karn); new data starts one if none runs
            if retx {
                self.timed_seg = Opt::NONE;
            } else if self.timed_seg.is_none() {
                (self.timed_seg, self.timed_at) = (Opt::some(n), ctx.now);
            }
        }
        if self.state == CaState::Recovery {
            self.prr.out += mss as u64;
        }
        self.counters.segments_sent += 1;
        self.segs_sent = self.segs_sent.saturating_add(1);
        self.counters.wire_bytes += size as u64;
        if self.rto_deadline.is_never() {
            self.arm_rto(ctx.now);
        }
        if let Some(rate) = self.cc.pacing_rate(&self.window) {
            self.pace_after_send(rate, len, ctx.now);
        }
    }

    /// The earliest time the next segment may leave, after one of `len` payload bytes went out
    /// at `now`. Both stacks charge the payload (Linux `tcp_update_skb_after_send`: the original
    /// skb's `len`; ns-3 `SendPendingData`: the bytes `SendDataPacket` sent). With
    /// `pacing_credit` (Linux), the first 10 data segments go unpaced (as sch_fq), and a segment
    /// sent late is charged its time less the lateness, at most halved ("OS jitter").
    fn pace_after_send(&mut self, rate: crate::units::Rate, len: u32, now: Time) {
        let prior = self.pace_next;
        let start = prior.max(now);
        let mut gap = rate.tx_time(len);
        if self.cfg.pacing_credit {
            if self.segs_sent < 10 {
                self.pace_next = start;
                return;
            }
            let credit = start - prior;
            gap = Dur::from_ns(gap.ns() - (gap.ns() / 2).min(credit.ns()));
        }
        self.pace_next = start + gap;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// RFC 6937 section 3 pseudocode, ported literally (bytes, PRR-SSRB), as the reference.
    fn rfc6937(prr_delivered: &mut i64, prr_out: &mut i64, recover_fs: i64, ssthresh: i64, delivered: i64, pipe: i64, mss: i64) -> i64 {
        *prr_delivered += delivered;
        let sndcnt = if pipe > ssthresh {
            (*prr_delivered * ssthresh + recover_fs - 1) / recover_fs - *prr_out // CEIL
        } else {
            let limit = (*prr_delivered - *prr_out).max(delivered) + mss;
            (ssthresh - pipe).min(limit)
        };
        sndcnt.max(0)
    }

    /// One sender and its receiver over a path of `one_way` each way whose data arrive at least
    /// `spacing` apart (a bottleneck's serialization), the transmissions `lose` names dropped;
    /// returns the sender's whole state (`Debug`) after every ACK, hashed, or in full at ACK
    /// `show` (then the run stops there).
    fn exchange(cfg: &TcpConfig, cc: &crate::cc::CcConfig, general_only: bool, lose: &dyn Fn(u64, u32) -> bool, show: Option<usize>) -> Vec<String> {
        use std::hash::{Hash, Hasher};
        use crate::packet::PacketArena;
        use crate::tcp::receiver::Receiver;
        use std::collections::VecDeque;
        let (one_way, spacing) = (Dur::from_ms(20), Dur::from_us(300));
        let mut s = Sender::new(0, 0, 1, cfg, Cc::new(cc, &Sender::cc_env(cfg)), Time::ZERO, Time::from_ns(5_000_000_000));
        s.general_only = general_only;
        let mut r = Receiver::new(0, 1, 0, cfg);
        let mut arena = PacketArena::new();
        let (mut to_rx, mut to_tx) = (VecDeque::new(), VecDeque::new());
        let (mut now, mut last_rx, mut sent) = (Time::ZERO, Time::ZERO, std::collections::HashMap::<u64, u32>::new());
        let mut states = Vec::new();
        let mut out = Vec::new();
        for _ in 0..200_000 {
            for id in out.drain(..) {
                let p = arena.get(id).clone();
                let blocks = arena.sack(id).to_vec();
                let option = arena.accecn(id);
                arena.free(id);
                if p.kind.from_sender() {
                    let k = sent.entry(p.seq).or_insert(0);
                    *k += 1;
                    if p.kind == PktKind::Data && lose(p.seq / s.cfg.mss as u64, *k) {
                        continue;
                    }
                    last_rx = (now + one_way).max(last_rx + spacing);
                    to_rx.push_back((last_rx, p));
                } else {
                    to_tx.push_back((now + one_way, p, blocks, option));
                }
            }
            let t_rx = to_rx.front().map_or(Time::NEVER, |x: &(Time, Packet)| x.0);
            let t_tx = to_tx.front().map_or(Time::NEVER, |x: &(Time, Packet, Vec<SackBlock>, Option<AccEcnOption>)| x.0);
            now = t_rx.min(t_tx).min(s.next_deadline()).min(r.next_deadline());
            if now.is_never() {
                break;
            }
            let mut ctx = TxCtx { now, arena: &mut arena, out: &mut out };
            if now == t_rx {
                let (_, p) = to_rx.pop_front().unwrap();
                match p.kind {
                    PktKind::Syn => r.on_syn(&p, &mut ctx),
                    PktKind::Data => r.on_data(&p, &mut ctx),
                    _ => {}
                }
            } else if now == t_tx {
                let (_, p, blocks, option) = to_tx.pop_front().unwrap();
                let info = AckInfo { ack: p.ack, sack: &blocks, ece: p.ece, ace: p.ace, accecn: option, tsval: p.tsval, tsecr: p.tsecr, fin: p.fin };
                match p.kind {
                    PktKind::SynAck => s.on_synack(info, &mut ctx),
                    _ => s.on_ack(info, &mut ctx),
                }
                // everything the sender holds (the switch under test aside)
                let state = format!("{now} {s:?}").replace("general_only: true", "general_only: false");
                if show == Some(states.len()) {
                    return vec![state];
                }
                let mut h = std::collections::hash_map::DefaultHasher::new();
                state.hash(&mut h);
                states.push(format!("{:016x}", h.finish()));
            } else if now >= s.next_deadline() {
                s.on_timer(&mut ctx);
            } else {
                r.on_timer(&mut ctx);
            }
        }
        states
    }

    /// The in-order ACK in one pass (`in_order_ack`) leaves the sender exactly as the general
    /// phases do, ACK after ACK, through slow start, losses, recoveries, timeouts and back: for
    /// CUBIC, Reno and Vegas, in the Linux (RACK, TLP, timestamps), ns-3 and ns-2 profiles (no
    /// RACK: RFC 6675's loss detection with SACK), each with SACK and without, and the Linux
    /// profile without RACK too, with single losses, bursts and a lost retransmission.
    #[test]
    fn the_in_order_ack_is_the_general_phases() {
        use crate::cc::CcConfig;
        /// Whether the `k`-th transmission of segment `n` is lost.
        type Loss<'a> = &'a dyn Fn(u64, u32) -> bool;
        let losses: [(&str, Loss); 3] = [
            ("every 97th", &|n, k| k == 1 && n % 97 == 13),
            ("a burst", &|n, k| k == 1 && (300..306).contains(&n)),
            ("a retransmission", &|n, k| (n == 150 && k <= 2) || (k == 1 && n % 211 == 5)),
        ];
        let variants = [
            TcpConfig { profile: Profile::Linux, ..Default::default() },
            TcpConfig { profile: Profile::Linux, rack: Some(false), ..Default::default() },
            TcpConfig { profile: Profile::Linux, sack: false, ..Default::default() },
            TcpConfig { profile: Profile::Ns3, ..Default::default() },
            TcpConfig { profile: Profile::Ns3, sack: false, ..Default::default() },
            TcpConfig { profile: Profile::Ns2, ..Default::default() },
            TcpConfig { profile: Profile::Ns2, sack: false, ..Default::default() },
        ];
        for cfg in variants {
            let profile = (cfg.profile, cfg.sack, cfg.rack);
            for cc in [CcConfig::Cubic(Default::default()), CcConfig::Reno(Default::default()), CcConfig::Vegas(Default::default())] {
                for (what, lose) in losses {
                    let fast = exchange(&cfg, &cc, false, lose, None);
                    let general = exchange(&cfg, &cc, true, lose, None);
                    assert!(fast.len() > 300, "{profile:?} {cc:?} {what}: {} ACKs", fast.len());
                    if let Some(k) = (0..fast.len().max(general.len())).find(|&k| fast.get(k) != general.get(k)) {
                        let (a, b) = (exchange(&cfg, &cc, false, lose, Some(k)), exchange(&cfg, &cc, true, lose, Some(k)));
                        panic!("{profile:?} {cc:?} {what}: the sender differs after ACK {k}:\n  in order {a:?}\n  general  {b:?}");
                    }
                }
            }
        }
    }

    fn paced_sender(profile: Profile) -> Sender {
        let cfg = TcpConfig { profile, ..Default::default() };
        let cc = Cc::new(&crate::cc::CcConfig::Bbr(Default::default()), &Sender::cc_env(&cfg));
        Sender::new(0, 0, 1, &cfg, cc, Time::ZERO, Time::NEVER)
    }

    /// The pacing clock charges the payload (1,448 B at 11.584 Mb/s: 1 ms). With Linux's rules
    /// the first 9 data segments add nothing, and a segment sent 0.3 ms after its time is
    /// charged 0.7 ms, one sent 5 ms late half of its time; ns-3's charge is always the whole.
    #[test]
    fn pacing_clock_follows_each_stack() {
        let rate = crate::units::Rate::from_bps(11_584_000);
        let ms = |x: f64| Time::from_ns((x * 1e6) as u64);
        let mut l = paced_sender(Profile::Linux);
        for k in 1..=9 {
            l.segs_sent = k;
            l.pace_after_send(rate, 1448, ms(0.0));
            assert_eq!(l.pace_next, ms(0.0), "segment {k}");
        }
        l.segs_sent = 10;
        l.pace_after_send(rate, 1448, ms(0.0));
        assert_eq!(l.pace_next, ms(1.0));
        l.pace_after_send(rate, 1448, ms(1.3)); // 0.3 ms late
        assert_eq!(l.pace_next, ms(2.0));
        l.pace_after_send(rate, 1448, ms(7.0)); // 5 ms late: half the segment's time
        assert_eq!(l.pace_next, ms(7.5));
        l.pace_after_send(rate, 1448, ms(7.2)); // early (sent ahead of its time): no credit
        assert_eq!(l.pace_next, ms(8.5));
        let mut n = paced_sender(Profile::Ns3);
        n.pace_after_send(rate, 1448, ms(0.0));
        assert_eq!(n.pace_next, ms(1.0));
        n.pace_after_send(rate, 1448, ms(6.0));
        assert_eq!(n.pace_next, ms(7.0));
        n.pace_after_send(rate, 724, ms(6.5));
        assert_eq!(n.pace_next, ms(7.5));
    }

    /// What `small_queues_over_a_slow_host_link` saw: for each new segment and each
    /// retransmission, how many of the flow's segments were in the host (queued or serializing)
    /// just before it left the sender; the host link's busy time in [5 s, 20 s]; the payload
    /// delivered in that window; the most segments in the host at once; the timeouts.
    struct HostRun {
        before_new: Vec<usize>,
        before_retx: Vec<usize>,
        busy: Dur,
        delivered: u64,
        most: usize,
        timeouts: u64,
    }

    /// A Reno flow (rwnd 45 segments) whose own host link (2 Mb/s: 6 ms a segment) is its
    /// bottleneck, then 20 ms each way; the data transmissions `lose` names (by segment
    /// number, and whether a retransmission) are lost after the host link. The harness plays
    /// the engine's part of TCP Small Queues: it reports each segment's TX completion (the end
    /// of its serialization) to the sender as it is sent.
    fn small_queues_over_a_slow_host_link(tsq: Tsq, lose: &dyn Fn(u64, bool) -> bool) -> HostRun {
        use crate::packet::PacketArena;
        use crate::tcp::receiver::Receiver;
        use std::collections::VecDeque;
        let (rate, one_way) = (crate::units::Rate::from_bps(2_000_000), Dur::from_ms(20));
        let cfg = TcpConfig { tsq: Some(tsq), rwnd: Some(crate::units::Bytes::new(45 * 1448)), ..Default::default() };
        let cc = crate::cc::CcConfig::Reno(Default::default());
        let mut s = Sender::new(0, 0, 1, &cfg, Cc::new(&cc, &Sender::cc_env(&cfg)), Time::ZERO, Time::from_ns(20_000_000_000));
        let mut r = Receiver::new(0, 1, 0, &cfg);
        let mut arena = PacketArena::new();
        let (mut to_rx, mut to_tx) = (VecDeque::new(), VecDeque::new());
        // the host link: the ends of the serializations of the flow's segments still in it
        let mut host: VecDeque<Time> = VecDeque::new();
        let (mut now, mut link_free) = (Time::ZERO, Time::ZERO);
        let window = (Time::from_ns(5_000_000_000), Time::from_ns(20_000_000_000));
        let mut run = HostRun { before_new: vec![], before_retx: vec![], busy: Dur::ZERO, delivered: 0, most: 0, timeouts: 0 };
        let mut delivered_at_start = None;
        let mut out = Vec::new();
        while now < window.1 {
            for id in out.drain(..) {
                let p = arena.get(id).clone();
                let blocks = arena.sack(id).to_vec();
                arena.free(id);
                if !p.kind.from_sender() {
                    to_tx.push_back((now + one_way, p, blocks));
                    continue;
                }
                if p.kind != PktKind::Data {
                    to_rx.push_back((now + one_way, p));
                    continue;
                }
                while host.front().is_some_and(|&e| e <= now) {
                    host.pop_front();
                }
                if p.retx { run.before_retx.push(host.len()) } else { run.before_new.push(host.len()) }
                let start = now.max(link_free);
                let end = start + rate.tx_time(p.size_bytes);
                link_free = end;
                let (a, b) = (start.max(window.0), end.min(window.1));
                if a < b {
                    run.busy = run.busy + (b - a);
                }
                host.push_back(end);
                run.most = run.most.max(host.len());
                // the engine's report: done at its first link at the end of its serialization
                assert_eq!(p.tsq > 0, tsq == Tsq::All, "a charged segment carries its share of the overhead");
                if p.tsq > 0 {
                    s.tsq_done(end, p.len_bytes + p.tsq as u32, now);
                }
                if !lose(p.seq / 1448, p.retx) {
                    to_rx.push_back((end + one_way, p));
                }
            }
            let t_rx = to_rx.front().map_or(Time::NEVER, |x: &(Time, Packet)| x.0);
            let t_tx = to_tx.front().map_or(Time::NEVER, |x: &(Time, Packet, Vec<SackBlock>)| x.0);
            now = t_rx.min(t_tx).min(s.next_deadline()).min(r.next_deadline());
            if delivered_at_start.is_none() && now >= window.0 {
                delivered_at_start = Some(r.counters.delivered_bytes);
            }
            let mut ctx = TxCtx { now, arena: &mut arena, out: &mut out };
            if now == t_rx {
                let (_, p) = to_rx.pop_front().unwrap();
                match p.kind {
                    PktKind::Syn => r.on_syn(&p, &mut ctx),
                    PktKind::Data => r.on_data(&p, &mut ctx),
                    _ => {}
                }
            } else if now == t_tx {
                let (_, p, blocks) = to_tx.pop_front().unwrap();
                let info = AckInfo { ack: p.ack, sack: &blocks, ece: p.ece, ace: p.ace, accecn: None, tsval: p.tsval, tsecr: p.tsecr, fin: p.fin };
                match p.kind {
                    PktKind::SynAck => s.on_synack(info, &mut ctx),
                    _ => s.on_ack(info, &mut ctx),
                }
            } else if now >= s.next_deadline() {
                s.on_timer(&mut ctx);
            } else {
                r.on_timer(&mut ctx);
            }
        }
        run.delivered = r.counters.delivered_bytes - delivered_at_start.unwrap_or(0);
        run.timeouts = s.counters.timeouts;
        run
    }

    /// TCP Small Queues (`tsq.rs`), the law: with the limit at two skbs of two segments (8,352
    /// bytes: the pacing rate of this 2 Mb/s flow is far below 8 MB/s), a new segment leaves
    /// the sender only while at most 3 of its segments (3 x 2,088 bytes) are in its host, a
    /// retransmission while at most 7 are (factor 1); the sender wakes at each TX completion,
    /// so its host link stays busy; without them, the window's 45 segments wait in the host.
    #[test]
    fn small_queues_keep_the_host_queue_short_and_the_link_busy() {
        let secs = 15.0;
        let on = small_queues_over_a_slow_host_link(Tsq::All, &|_, _| false);
        assert_eq!(on.before_new.iter().max(), Some(&3), "never more than the limit in the host");
        assert_eq!(on.most, 4);
        assert!(on.before_new.iter().filter(|&&k| k == 3).count() > 1000, "the limit binds");
        let busy = on.busy.ns() as f64 / 1e9 / secs;
        assert!(busy > 0.999, "woken at each completion, the sender keeps its link busy: {busy}");
        let goodput = on.delivered as f64 * 8.0 / secs;
        assert!((goodput / (2e6 * 1448.0 / 1500.0) - 1.0).abs() < 0.01, "goodput {goodput}");
        let off = small_queues_over_a_slow_host_link(Tsq::Off, &|_, _| false);
        // 45 segments less the 7 or so the 40 ms round trip holds
        assert!(off.most >= 35, "without them the window waits in the host: {}", off.most);
        let off_goodput = off.delivered as f64 * 8.0 / secs;
        assert!((goodput / off_goodput - 1.0).abs() < 0.01, "{goodput} / {off_goodput}");
        // "paced": a Reno flow is not held back
        assert_eq!(small_queues_over_a_slow_host_link(Tsq::Paced, &|_, _| false).most, off.most);
        // 20 segments lost in a row: SACK recovery retransmits them as RACK marks them, and a
        // retransmission may find up to 7 segments in the host where new data waits at 3
        let lossy = small_queues_over_a_slow_host_link(Tsq::All, &|n, retx| !retx && (3000..3020).contains(&n));
        assert_eq!((lossy.timeouts, lossy.before_retx.len()), (0, 20));
        assert_eq!(lossy.before_new.iter().max(), Some(&3));
        let most_retx = *lossy.before_retx.iter().max().unwrap();
        assert!((4..=7).contains(&most_retx), "retransmissions with factor 1: {most_retx} in the host before one");
    }

    #[test]
    fn prr_sndcnt_follows_rfc6937_in_both_branches() {
        // One loss in a flight of 20 segments, ssthresh 10 (a halving): ACKs arrive, each
        // delivering one segment; the sender sends exactly what PRR allows. Then a second phase
        // where pipe falls below ssthresh (more losses): the slow-start reduction bound.
        let mss = 1000i64;
        let (recover_fs, ssthresh) = (20 * mss, 10 * mss);
        let mut model = Prr { delivered: 0, out: mss as u64, recover_fs: recover_fs as u64 }; // the fast retransmission
        let (mut rd, mut ro) = (0i64, mss);
        let mut pipe = 19 * mss + mss; // 19 outstanding after the loss, plus the retransmission
        let (mut proportional, mut bounded) = (0, 0);
        for step in 0..30 {
            let delivered = if step == 12 { 3 * mss } else { mss };
            pipe -= delivered;
            if step == 12 {
                pipe -= 4 * mss; // four more segments marked lost: pipe drops below ssthresh
            }
            pipe = pipe.max(0);
            let expect = rfc6937(&mut rd, &mut ro, recover_fs, ssthresh, delivered, pipe, mss);
            model.delivered += delivered as u64;
            let got = prr_sndcnt(&model, delivered as u64, pipe as u64, ssthresh as u64, mss as u64, mss as u64) as i64;
            assert_eq!(got, expect, "step {step}: pipe {pipe}, prr_delivered {rd}, prr_out {ro}");
            if pipe > ssthresh {
                proportional += 1;
            } else {
                bounded += 1;
            }
            // the sender sends what it may
            ro += got;
            model.out += got as u64;
            pipe += got;
        }
        assert!(proportional >= 5 && bounded >= 5, "both branches exercised: {proportional} and {bounded}");
        // In the proportional phase PRR sends one segment for every two delivered: after 8
        // deliveries, 4 segments in all (the fast retransmission and 3 more).
        let sent_by_step_8 = {
            let mut m = Prr { delivered: 0, out: mss as u64, recover_fs: recover_fs as u64 };
            let mut p = 20 * mss;
            for _ in 0..8 {
                p -= mss;
                m.delivered += mss as u64;
                let c = prr_sndcnt(&m, mss as u64, p as u64, ssthresh as u64, mss as u64, mss as u64);
                m.out += c;
                p += c as i64;
            }
            m.out as i64
        };
        assert_eq!(sent_by_step_8, 4 * mss);
    }

    /// ns-3's PRR below ssthresh: max(prr_delivered - prr_out, delivered), one more segment on a
    /// "safe" ACK, and prr_delivered - prr_out (negative: nothing) once more was sent than delivered.
    #[test]
    fn ns3_prr_reduction_bound() {
        let mss = 1000;
        let p = Prr { delivered: 5000, out: 2000, recover_fs: 20_000 };
        // pipe 6000 <= ssthresh 10000: limit max(3000, 1000) = 3000, room 4000
        assert_eq!(prr_sndcnt_ns3(&p, 1000, 6000, 10_000, false, mss), 3000);
        assert_eq!(prr_sndcnt_ns3(&p, 1000, 6000, 10_000, true, mss), 4000, "safe ACK: one more segment");
        assert_eq!(prr_sndcnt_ns3(&p, 1000, 9500, 10_000, true, mss), 500, "at most ssthresh - pipe");
        let behind = Prr { delivered: 5000, out: 7000, recover_fs: 20_000 };
        assert_eq!(prr_sndcnt_ns3(&behind, 1000, 6000, 10_000, true, mss), 0, "-2000 + 1000 < 0");
        // RFC 6937's SSRB would allow max(-2000, 1000) + 1000 = 2000 here
        assert_eq!(prr_sndcnt(&behind, 1000, 6000, 10_000, mss, mss), 2000);
        // above ssthresh both are proportional
        assert_eq!(prr_sndcnt_ns3(&p, 1000, 15_000, 10_000, false, mss), prr_sndcnt(&p, 1000, 15_000, 10_000, mss, mss));
        // ... until prr_delivered x ssthresh passes 2^32 (ns-3's 32-bit product wraps)
        let big = Prr { delivered: 100_000, out: 0, recover_fs: 200_000 };
        assert_eq!(prr_sndcnt(&big, 1000, 200_000, 100_000, mss, mss), 50_000);
        let wrapped = (100_000u64 * 100_000 % (1 << 32)).div_ceil(200_000);
        assert_eq!(prr_sndcnt_ns3(&big, 1000, 200_000, 100_000, false, mss), wrapped);
    }

    #[test]
    fn prr_forces_the_fast_retransmission() {
        let p = Prr { delivered: 0, out: 0, recover_fs: 20_000 };
        // pipe far above ssthresh, nothing delivered: the proportional rule gives 0, PRR 1 MSS
        assert_eq!(prr_sndcnt(&p, 0, 19_000, 10_000, 1000, 1000), 1000);
    }

    /// Senders configured alike share one copy of their settings (issue 21's memory per flow);
    /// one configured otherwise keeps its own.
    #[test]
    fn senders_configured_alike_share_their_settings() {
        let cubic = crate::cc::CcConfig::Cubic(Default::default());
        let make = |cfg: &TcpConfig| Sender::new(0, 0, 1, cfg, Cc::new(&cubic, &Sender::cc_env(cfg)), Time::ZERO, Time::NEVER);
        let linux = TcpConfig::default();
        let ns3 = TcpConfig { profile: Profile::Ns3, ..TcpConfig::default() };
        let mut senders: Vec<Sender> = [&linux, &linux, &ns3, &linux].into_iter().map(make).collect();
        let mut pool = std::collections::HashSet::new();
        for s in &mut senders {
            s.share_settings(&mut pool);
        }
        assert_eq!(pool.len(), 2);
        assert!(Arc::ptr_eq(&senders[0].cfg, &senders[1].cfg) && Arc::ptr_eq(&senders[0].cfg, &senders[3].cfg));
        assert!(!Arc::ptr_eq(&senders[0].cfg, &senders[2].cfg));
        assert_eq!((senders[0].cfg.profile, senders[2].cfg.profile), (Profile::Linux, Profile::Ns3));
    }
}
