//! BBRv3: BBR's model (max delivery rate and min RTT) with loss- and ECN-bounded upper and
//! lower limits on the data in flight, a PROBE_BW cycle of DOWN, CRUISE, REFILL and UP that
//! probes for bandwidth only every 2-3 s (sooner for small BDPs, to coexist with Reno), and a
//! PROBE_RTT every 5 s at half a BDP.
//!
//! Sources, read for behaviour (nothing copied): draft-ietf-ccwg-bbr-06 (IETF CCWG, tag
//! `draft-ietf-ccwg-bbr-06` of github.com/ietf-wg-ccwg/draft-ietf-ccwg-bbr, 2026-07-06), the
//! specification followed where it speaks; Google's BBRv3 Linux code, github.com/google/bbr branch
//! v3, `net/ipv4/tcp_bbr.c` (BBR_VERSION 3, commit 001a430b3ddb), for what the draft leaves out
//! (ECN, the extra_acked cap) and to check the draft. The sender gives delivery-rate samples
//! (`RATE_SAMPLE`), lets it set cwnd on every ACK (`FULL_CONTROL`) and paces at its rate.
//!
//! * Model: max_bw = the largest delivery rate of this and the previous PROBE_BW cycle (two
//!   slots, advanced when the ACKs of a bandwidth probe have come back); bw = min(max_bw, bw_lo).
//!   min_rtt = the least RTT of 10 s; a second filter of 5 s schedules PROBE_RTT.
//! * Long-term bounds: inflight_hi (draft: inflight_longterm). When the loss rate of the data in
//!   flight during a bandwidth probe exceeds 2 % (or CE marks exceed 50 % of what is delivered),
//!   inflight_hi = max(tx_in_flight at the crossing, 0.7 x target inflight) (draft
//!   HandleInflightTooHigh, target = min(BDP, cwnd)); in PROBE_UP it is raised by 1, 2, 4, ...
//!   segments per round while cwnd-limited by it, and in any phase to a tx_in_flight that
//!   went without excess loss.
//! * Short-term bounds: bw_lo and inflight_lo (draft: *_shortterm), once per round with losses
//!   while not probing: max(latest round's delivery, 0.7 x bound); with ECN, inflight_lo x (1 -
//!   alpha / 3). Reset when a probe starts (REFILL) and after PROBE_RTT.
//! * STARTUP: pacing gain 2.77 (4 ln 2), cwnd gain 2; left when max_bw grew less than 25 % in
//!   3 rounds, or at the end of a round in fast recovery with >= 6 loss events and a loss rate
//!   over 2 %, or after 2 rounds with CE marks on >= 50 % of the data (ECN flows); then
//!   inflight_hi = max(BDP, latest round's delivered).
//! * DRAIN: pacing gain 0.5 until in flight is at most one BDP (or 3 rounds).
//! * PROBE_BW: DOWN (pacing 0.9) until in flight is under both the BDP and inflight_hi less 15 %
//!   headroom; CRUISE (1.0, cwnd capped at inflight_hi less headroom); REFILL (1.0, one round,
//!   short-term bounds reset); UP (1.25, cwnd gain 2.25) until the delivery rate stops growing
//!   25 % a round for 3 rounds, or the loss or ECN threshold is crossed, or (the probe after one
//!   that went too high) in flight reaches inflight_hi. DOWN and CRUISE move to REFILL after a
//!   random 2-3 s, or after min(63, target inflight in packets) rounds plus a random 0-1.
//! * PROBE_RTT when no RTT sample matched the 5-s minimum for 5 s: cwnd = max(0.5 BDP, 4
//!   packets) until 200 ms and a round have passed at that level; then PROBE_BW (CRUISE) or
//!   STARTUP.
//! * cwnd: `gain x BDP + extra_acked`, at least 3 send quanta and 4 packets (+2 in UP), approached
//!   by what each ACK delivers once the pipe is full, then capped by the bounds of the phase.
//!   extra_acked: the most data acknowledged beyond bw x time in an epoch, windowed max over 10
//!   rounds (1 in STARTUP), at most cwnd and 100 ms at bw (Linux). Fast recovery saves cwnd on
//!   entry and restores it on exit; a timeout sets cwnd to one segment and restores the saved
//!   cwnd once the sender is open again.
//! * Pacing `gain x bw x 0.99`, lowered only once the pipe was full; initially 2.77 x initial
//!   cwnd / 1 ms, then / SRTT at the first RTT sample.
//! * ECN: `NEEDS_ECN` is false, as in Linux (BBRv3 uses ECN only where the route says the marks
//!   are shallow-threshold). If the flow negotiated ECN (`[tcp] ecn`), ACKs with ECE count as
//!   CE-marked data: alpha is the per-round EWMA (gain 1/16, initially 1) of the fraction of
//!   bytes delivered by ECE ACKs; the flow uses ECN once it has seen an ECE and its min RTT is
//!   at most `ecn_max_rtt` (Linux bbr_ecn_max_rtt_us 5 ms).
//!
//! Deliberate deviations:
//! * The sender keeps no per-packet `tx_in_flight` or `lost` (Linux's skb->tx state). A rate
//!   sample's tx_in_flight is taken as its delivered bytes plus the bytes marked lost since its
//!   packet was sent (losses and ECE bytes are logged against the connection's delivered count,
//!   and the packet's prior_delivered finds the count at its send). The loss check runs per ACK
//!   (Linux: per lost packet), with the draft's InflightAtLoss taking the packet as one segment.
//! * With the classic RFC 3168 echo (NEEDS_ECN false), ECE stays set on every ACK until CWR, so
//!   one CE mark counts as up to a round of marked data: alpha and the 50 % test over-count.
//! * Not modelled: ECN re-probing (Linux bbr_ecn_reprobe_gain) and PLB; the undo of spurious
//!   recoveries; idle restart (a bulk flow does not idle); Linux's EDT in-network adjustment of
//!   in flight. The send quantum is v1's (1 ms at the pacing rate, 2..44 segments).
//! * PROBE_RTT marks the connection app-limited on every ACK (draft-06
//!   MarkConnectionAppLimited, through `take_app_limited`), as v1 does.
//! * Defaults follow the draft where it and Linux differ: DRAIN gain 0.5 (Linux 1/2.885), DOWN
//!   0.90 (Linux 0.91), extra_acked window 10 rounds (Linux 5-10), cwnd restored on leaving fast
//!   recovery (Linux v3 only after a timeout), cwnd gain 0.5 in PROBE_RTT (Linux 1, same cap).

use super::law::bbr::{send_quantum_pkts, RoundMaxFilter, MIN_CWND_PKTS, PACING_MARGIN};
use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::rng::{Rng, StreamKind};
use crate::units::{Dur, Rate, Time};
use std::collections::VecDeque;

crate::params! {
    /// BBRv3 parameters; the defaults are draft-ietf-ccwg-bbr-06's (Linux v3's where the draft has none).
    pub struct Bbr3Config {
        /// STARTUP's pacing gain.
        startup_pacing_gain: f64 = 2.77, Number(""), range(> 1.0, <= 10.0), "draft-06 StartupPacingGain 4 ln 2 = 2.77; Linux 277/100 + 1/256";
        /// DRAIN's pacing gain.
        drain_pacing_gain: f64 = 0.5, Number(""), range(> 0.0, < 1.0), "draft-06 DrainPacingGain 0.5 (Linux bbr_drain_gain 1/2.885)";
        /// PROBE_BW_DOWN's pacing gain.
        probe_down_pacing_gain: f64 = 0.9, Number(""), range(> 0.0, < 1.0), "draft-06 ProbeBW_DOWN: 0.90 (Linux bbr_pacing_gain[DOWN] 91/100)";
        /// PROBE_BW_UP's pacing gain.
        probe_up_pacing_gain: f64 = 1.25, Number(""), range(> 1.0, <= 4.0), "draft-06 ProbeBW_UP: 1.25; Linux bbr_pacing_gain[UP] 5/4";
        /// The cwnd gain in STARTUP, DRAIN and PROBE_BW (UP adds `probe_up_cwnd_gain_extra`).
        cwnd_gain: f64 = 2.0, Number(""), range(>= 1.0, <= 10.0), "draft-06 DefaultCwndGain 2";
        /// What PROBE_BW_UP adds to the cwnd gain.
        probe_up_cwnd_gain_extra: f64 = 0.25, Number(""), range(>= 0.0, <= 1.0), "draft-06: cwnd_gain 2.25 in UP; Linux bbr_bw_probe_cwnd_gain 1 (x 1/4)";
        /// Loss rate of the data in flight that ends a bandwidth probe.
        loss_thresh: f64 = 0.02, Ratio, range(> 0.0, < 1.0), "draft-06 LossThresh 2 %; Linux bbr_loss_thresh 2/100";
        /// Multiplicative decrease of the bounds after loss (the cut keeps this fraction).
        beta: f64 = 0.7, Ratio, range(> 0.0, < 1.0), "draft-06 Beta 0.7; Linux bbr_beta 30/100 taken off";
        /// Fraction of inflight_hi left free in CRUISE and PROBE_RTT.
        headroom: f64 = 0.15, Ratio, range(>= 0.0, < 1.0), "draft-06 Headroom 0.15; Linux bbr_inflight_headroom 15/100";
        /// Fraction of delivered data echoed CE that ends a probe (and, 2 rounds in a row, STARTUP).
        ecn_thresh: f64 = 0.5, Ratio, range(> 0.0, <= 1.0), "Linux bbr_ecn_thresh 1/2 (the draft has no ECN response)";
        /// inflight_lo is cut by ecn_factor x alpha per round with CE marks.
        ecn_factor: f64 = 0.333, Ratio, range(>= 0.0, <= 1.0), "Linux bbr_ecn_factor 1/3";
        /// Largest min RTT at which ECN marks are used.
        ecn_max_rtt: Dur = Dur::from_ms(5), Time, range(>= Dur::ZERO), "Linux bbr_ecn_max_rtt_us 5000";
        /// Age of the min RTT after which it is replaced.
        min_rtt_window: Dur = Dur::from_secs(10), Time, range(>= Dur::from_ms(100)), "draft-06 MinRTTFilterLen 10 s; Linux bbr_min_rtt_win_sec 10";
        /// Interval without a matching RTT sample after which PROBE_RTT is entered.
        probe_rtt_interval: Dur = Dur::from_secs(5), Time, range(>= Dur::from_ms(100)), "draft-06 ProbeRTTInterval 5 s; Linux bbr_probe_rtt_win_ms 5000";
        /// Time PROBE_RTT holds the low cwnd.
        probe_rtt_time: Dur = Dur::from_ms(200), Time, range(>= Dur::ZERO), "draft-06 ProbeRTTDuration 200 ms; Linux bbr_probe_rtt_mode_ms 200";
        /// PROBE_RTT's cwnd, in BDPs.
        probe_rtt_cwnd_gain: f64 = 0.5, Number(""), range(> 0.0, <= 1.0), "draft-06 ProbeRTTCwndGain 0.5; Linux bbr_probe_rtt_cwnd_gain 1/2";
        /// Least wall-clock wait between bandwidth probes.
        bw_probe_base: Dur = Dur::from_secs(2), Time, range(>= Dur::ZERO), "draft-06 PickProbeWait 2 s; Linux bbr_bw_probe_base_us 2 s";
        /// Random extra wait between bandwidth probes, uniform in [0, this).
        bw_probe_rand: Dur = Dur::from_secs(1), Time, range(>= Dur::ZERO), "draft-06 PickProbeWait 0..1 s; Linux bbr_bw_probe_rand_us 1 s";
        /// Most rounds between bandwidth probes (Reno coexistence: min(this, target inflight in packets)).
        bw_probe_max_rounds: u32 = 63, Count, range(>= 1, <= 1000), "draft-06 IsRenoCoexistenceProbeTime 63; Linux bbr_bw_probe_max_rounds 63";
        /// Growth below which a round does not count as growing (STARTUP and UP exit).
        full_bw_growth: f64 = 1.25, Number(""), range(> 1.0, <= 4.0), "draft-06 CheckFullBWReached 1.25; Linux bbr_full_bw_thresh";
        /// Rounds without growth that fill the pipe.
        full_bw_rounds: u32 = 3, Count, range(>= 1, <= 100), "draft-06 CheckFullBWReached 3; Linux bbr_full_bw_cnt 3";
        /// Loss events in a round of fast recovery that (with the loss threshold) end STARTUP.
        full_loss_cnt: u32 = 6, Count, range(>= 1, <= 1000), "draft-06 BBRStartupFullLossCnt 6; Linux bbr_full_loss_cnt 6";
    }
}

/// PROBE_BW's sub-states (draft "ProbeBW"; Linux `bbr_pacing_gain_phase`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Down,
    Cruise,
    Refill,
    Up,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw(Phase),
    ProbeRtt,
}

/// What the incoming ACKs say about bandwidth probing (draft BBR.ack_phase).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AckPhase {
    Init,
    Refilling,
    ProbeStarting,
    ProbeFeedback,
    ProbeStopping,
}

/// A cumulative byte count (lost, or delivered with ECE) logged against the connection's
/// delivered count, to tell how much was added since a packet was sent (Linux keeps the count in
/// each skb at transmission, `tx.lost`).
#[derive(Clone, Debug, Default)]
struct SinceSend {
    /// Bytes counted so far.
    total: u64,
    /// `total` at the newest logged point at or before the last `since` query.
    base: u64,
    /// (delivered count when added, `total` after), oldest first.
    log: VecDeque<(u64, u64)>,
}

impl SinceSend {
    fn add(&mut self, delivered_total: u64, bytes: u64) {
        if bytes > 0 {
            self.total += bytes;
            self.log.push_back((delivered_total, self.total));
        }
    }

    /// Bytes counted after the connection had delivered `prior_delivered` (a packet's send).
    fn since(&mut self, prior_delivered: u64) -> u64 {
        while let Some(&(d, t)) = self.log.front() {
            if d > prior_delivered {
                break;
            }
            self.base = t;
            self.log.pop_front();
        }
        self.total - self.base
    }
}

/// One ACK's rate sample as BBRv3 reads it (Linux `struct rate_sample` fields it uses).
#[derive(Clone, Copy, Debug, Default)]
struct Sample {
    /// Valid delivery-rate sample with data delivered.
    valid: bool,
    /// Delivery rate, bytes/s (0 when invalid).
    bw: f64,
    /// Bytes delivered since the sampled packet was sent.
    delivered: u64,
    /// Bytes marked lost since it was sent.
    lost: u64,
    /// Bytes delivered with ECE since it was sent.
    delivered_ce: u64,
    /// Estimated bytes in flight when it was sent (`delivered + lost`; prior in flight if invalid).
    tx_in_flight: u64,
    is_app_limited: bool,
}

#[derive(Clone, Debug)]
pub struct Bbr3 {
    cfg: Bbr3Config,
    rng: Rng,
    mss: u64,
    /// Initial window, bytes.
    init_cwnd: u64,
    pub mode: Mode,
    /// Connection's delivered bytes at the latest ACK.
    delivered: u64,
    // --- rounds ---
    round: u64,
    /// Delivered count that ends the current round.
    next_round_delivered: u64,
    round_start: bool,
    // --- bandwidth model, bytes/s ---
    /// max_bw filter: [previous cycle, current cycle] (Linux bw_hi[2]).
    bw_hi: [f64; 2],
    /// Short-term bound (draft bw_shortterm); infinite when unset.
    bw_lo: f64,
    /// Largest delivery rate of the latest round.
    bw_latest: f64,
    // --- volume model, bytes (u64::MAX = unset) ---
    /// Long-term bound (draft inflight_longterm).
    pub inflight_hi: u64,
    /// Short-term bound (draft inflight_shortterm).
    pub inflight_lo: u64,
    /// Largest delivered volume of a rate sample in the latest round.
    inflight_latest: u64,
    // --- min RTT and PROBE_RTT ---
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    probe_rtt_min: Option<Dur>,
    probe_rtt_min_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// Set on every ACK in PROBE_RTT; the sender reads and clears it (`take_app_limited`).
    mark_app_limited: bool,
    // --- control ---
    pub pacing_gain: f64,
    cwnd_gain: f64,
    /// Pacing rate, bit/s.
    pacing_bps: f64,
    has_seen_rtt: bool,
    prior_cwnd: u64,
    /// In fast recovery or after a timeout (from `on_congestion` until an ACK finds the sender open).
    in_recovery: bool,
    /// The sender's recovery state at the previous ACK.
    prev_ca_state: CaState,
    // --- full pipe ---
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_now: bool,
    full_bw_reached: bool,
    drain_start_round: u64,
    loss_events_in_round: u32,
    startup_ecn_rounds: u32,
    // --- PROBE_BW ---
    cycle_stamp: Time,
    /// Wall-clock wait before the next probe (2-3 s).
    probe_wait: Dur,
    rounds_since_probe: u64,
    ack_phase: AckPhase,
    /// ACKs now reflect a bandwidth probe (draft is_bw_probe_sample).
    bw_probe_samples: bool,
    prev_probe_too_high: bool,
    /// The last UP stopped at inflight_hi as a precaution (draft prev_probe_precautionary).
    stopped_risky_probe: bool,
    bw_probe_up_rounds: u32,
    /// Bytes to ACK per 1-segment raise of inflight_hi (u64::MAX: not raising).
    bw_probe_up_cnt: u64,
    bw_probe_up_acks: u64,
    // --- congestion signals ---
    loss_round_delivered: u64,
    loss_round_start: bool,
    loss_in_round: bool,
    ecn_in_round: bool,
    lost: SinceSend,
    ce: SinceSend,
    // --- ECN ---
    ecn_seen: bool,
    ecn_eligible: bool,
    /// EWMA of the CE-echoed fraction of delivered bytes per round.
    pub ecn_alpha: f64,
    alpha_last_delivered: u64,
    alpha_last_ce: u64,
    // --- ACK aggregation ---
    extra_acked: RoundMaxFilter,
    ack_epoch_start: Time,
    ack_epoch_acked: u64,
}

const ECN_ALPHA_GAIN: f64 = 1.0 / 16.0; // Linux bbr_ecn_alpha_gain
const FULL_ECN_ROUNDS: u32 = 2; // Linux bbr_full_ecn_cnt
const EXTRA_ACKED_ROUNDS: usize = 10; // draft-06 ExtraAckedFilterLen
const EXTRA_ACKED_MAX: Dur = Dur::from_ms(100); // Linux bbr_extra_acked_max_us

impl Algorithm for Bbr3 {
    type Config = Bbr3Config;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "bbr3",
        aliases: &["bbrv3"],
        summary: "BBRv3: BBR's bandwidth and min-RTT model bounded by loss (2 %) and ECN (50 %) signals (inflight_hi/lo, beta 0.7, 15 % headroom); PROBE_BW DOWN/CRUISE/REFILL/UP every 2-3 s; PROBE_RTT every 5 s at 0.5 BDP",
        sources: &["draft-ietf-ccwg-bbr-06", "Google BBRv3 Linux net/ipv4/tcp_bbr.c (github google/bbr, branch v3)"],
    };
    fn new(cfg: &Bbr3Config, env: &CcEnv) -> Bbr3 {
        let mss = env.mss as u64;
        // 1 ms RTT before any sample (draft BBRInitPacingRate, Linux bbr_init_pacing_rate_from_rtt)
        let init_rate = cfg.startup_pacing_gain * env.initial_cwnd as f64 / 1e-3;
        Bbr3 {
            cfg: cfg.clone(),
            rng: Rng::stream(env.rng_seed, StreamKind::Flow, 0),
            mss,
            init_cwnd: env.initial_cwnd,
            mode: Mode::Startup,
            delivered: 0,
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            bw_hi: [0.0; 2],
            bw_lo: f64::INFINITY,
            bw_latest: 0.0,
            inflight_hi: u64::MAX,
            inflight_lo: u64::MAX,
            inflight_latest: 0,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            probe_rtt_min: None,
            probe_rtt_min_stamp: Time::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            mark_app_limited: false,
            pacing_gain: cfg.startup_pacing_gain,
            cwnd_gain: cfg.cwnd_gain,
            pacing_bps: init_rate * 8.0 * PACING_MARGIN,
            has_seen_rtt: false,
            prior_cwnd: 0,
            in_recovery: false,
            prev_ca_state: CaState::Open,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_now: false,
            full_bw_reached: false,
            drain_start_round: 0,
            loss_events_in_round: 0,
            startup_ecn_rounds: 0,
            cycle_stamp: Time::ZERO,
            probe_wait: Dur::ZERO,
            rounds_since_probe: 0,
            ack_phase: AckPhase::Init,
            bw_probe_samples: false,
            prev_probe_too_high: false,
            stopped_risky_probe: false,
            bw_probe_up_rounds: 0,
            bw_probe_up_cnt: u64::MAX,
            bw_probe_up_acks: 0,
            // sample loss rounds only after the first flight is delivered (Linux bbr_init)
            loss_round_delivered: 1,
            loss_round_start: false,
            loss_in_round: false,
            ecn_in_round: false,
            lost: SinceSend::default(),
            ce: SinceSend::default(),
            ecn_seen: false,
            ecn_eligible: false,
            ecn_alpha: 1.0, // Linux bbr_ecn_alpha_init
            alpha_last_delivered: 0,
            alpha_last_ce: 0,
            extra_acked: RoundMaxFilter::new(EXTRA_ACKED_ROUNDS),
            ack_epoch_start: Time::ZERO,
            ack_epoch_acked: 0,
        }
    }
}

impl Bbr3 {
    /// max_bw: the largest sample of this and the previous cycle, bytes/s.
    #[inline]
    pub fn max_bw(&self) -> f64 {
        self.bw_hi[0].max(self.bw_hi[1])
    }

    /// bw = min(max_bw, bw_lo), bytes/s.
    #[inline]
    pub fn bw(&self) -> f64 {
        self.max_bw().min(self.bw_lo)
    }

    fn min_cwnd(&self) -> u64 {
        MIN_CWND_PKTS * self.mss
    }

    /// gain x bw x min_rtt, bytes (the initial cwnd before an RTT sample; draft BDPMultiple).
    fn bdp(&self, bw: f64, gain: f64) -> u64 {
        match self.min_rtt {
            Some(rtt) => (gain * bw * rtt.secs_f64()).ceil() as u64,
            None => self.init_cwnd,
        }
    }

    /// At least 3 send quanta and 4 packets; +2 packets in UP (draft QuantizationBudget).
    fn quantization_budget(&self, inflight: u64) -> u64 {
        let mss = self.mss;
        let mut cap = inflight.max(3 * send_quantum_pkts(self.pacing_bps, mss) * mss).max(self.min_cwnd());
        if self.mode == Mode::ProbeBw(Phase::Up) {
            cap += 2 * mss;
        }
        cap
    }

    /// draft Inflight(gain): the BDP at `gain` with the quantization budget, bytes.
    fn inflight(&self, bw: f64, gain: f64) -> u64 {
        self.quantization_budget(self.bdp(bw, gain))
    }

    /// draft TargetInflight: min(BDP, cwnd), bytes.
    fn target_inflight(&self, w: &Window) -> u64 {
        self.bdp(self.bw(), 1.0).min(w.cwnd)
    }

    /// draft InflightWithHeadroom: inflight_hi less 15 % (at least one segment), at least 4 packets.
    fn inflight_with_headroom(&self) -> u64 {
        if self.inflight_hi == u64::MAX {
            return u64::MAX;
        }
        let headroom = ((self.cfg.headroom * self.inflight_hi as f64) as u64).max(self.mss);
        self.inflight_hi.saturating_sub(headroom).max(self.min_cwnd())
    }

    fn probe_rtt_cwnd(&self) -> u64 {
        self.bdp(self.bw(), self.cfg.probe_rtt_cwnd_gain).max(self.min_cwnd())
    }

    fn is_probing_bw(&self) -> bool {
        matches!(self.mode, Mode::Startup | Mode::ProbeBw(Phase::Refill) | Mode::ProbeBw(Phase::Up))
    }

    /// The current extra_acked allowance, bytes: the windowed max (1 round in STARTUP), at most
    /// 100 ms at bw.
    fn aggregation_cwnd(&self) -> u64 {
        let extra = if self.full_bw_reached { self.extra_acked.get() } else { self.extra_acked.current(self.round) };
        extra.min(self.bw() * EXTRA_ACKED_MAX.secs_f64()) as u64
    }

    fn start_round(&mut self) {
        self.next_round_delivered = self.delivered;
    }

    fn reset_full_bw(&mut self) {
        self.full_bw = 0.0;
        self.full_bw_cnt = 0;
        self.full_bw_now = false;
    }

    fn reset_lower_bounds(&mut self) {
        self.bw_lo = f64::INFINITY;
        self.inflight_lo = u64::MAX;
    }

    fn reset_congestion_signals(&mut self) {
        self.loss_in_round = false;
        self.ecn_in_round = false;
        self.bw_latest = 0.0;
        self.inflight_latest = 0;
    }

    /// The loss (or CE) rate of this sample says in flight was too high (draft IsInflightTooHigh).
    fn is_inflight_too_high(&self, s: &Sample) -> bool {
        if s.lost > 0 && s.tx_in_flight > 0 && s.lost as f64 > self.cfg.loss_thresh * s.tx_in_flight as f64 {
            return true;
        }
        self.ecn_eligible && s.delivered_ce > 0 && s.delivered > 0 && s.delivered_ce as f64 > self.cfg.ecn_thresh * s.delivered as f64
    }

    /// The in flight at which the loss rate crossed the threshold (draft InflightAtLoss, the
    /// sampled packet taken as one segment).
    fn inflight_at_loss(&self, s: &Sample) -> u64 {
        let t = self.cfg.loss_thresh;
        let inflight_prev = s.tx_in_flight.saturating_sub(self.mss) as f64;
        let lost_prev = s.lost.saturating_sub(self.mss) as f64;
        let lost_prefix = ((t * inflight_prev - lost_prev) / (1.0 - t)).max(0.0);
        (inflight_prev + lost_prefix) as u64
    }

    /// draft HandleInflightTooHigh: inflight_hi = max(tx_in_flight, beta x target inflight).
    fn handle_inflight_too_high(&mut self, now: Time, w: &Window, s: &Sample) {
        self.prev_probe_too_high = true;
        self.bw_probe_samples = false; // react once per probe
        if !s.is_app_limited {
            let tx = if s.lost as f64 > self.cfg.loss_thresh * s.tx_in_flight as f64 { self.inflight_at_loss(s) } else { s.tx_in_flight };
            self.inflight_hi = tx.max((self.target_inflight(w) as f64 * self.cfg.beta) as u64);
        }
        if self.mode == Mode::ProbeBw(Phase::Up) {
            self.start_probe_down(now);
        }
    }

    fn handle_queue_too_high_in_startup(&mut self) {
        self.full_bw_reached = true;
        self.inflight_hi = self.inflight(self.max_bw(), 1.0).max(self.inflight_latest);
    }

    /// Per round: alpha, and STARTUP's exit after rounds with >= 50 % CE (Linux bbr_update_ecn_alpha).
    fn update_ecn_alpha(&mut self) {
        let delivered = self.delivered - self.alpha_last_delivered;
        if delivered == 0 {
            return;
        }
        let ratio = (self.ce.total - self.alpha_last_ce) as f64 / delivered as f64;
        self.ecn_alpha = ((1.0 - ECN_ALPHA_GAIN) * self.ecn_alpha + ECN_ALPHA_GAIN * ratio).min(1.0);
        self.alpha_last_delivered = self.delivered;
        self.alpha_last_ce = self.ce.total;
        if self.ecn_eligible && !self.full_bw_reached {
            self.startup_ecn_rounds = if ratio >= self.cfg.ecn_thresh { self.startup_ecn_rounds + 1 } else { 0 };
            if self.startup_ecn_rounds >= FULL_ECN_ROUNDS {
                self.handle_queue_too_high_in_startup();
            }
        }
    }

    /// Once per round with loss or ECN while not probing: cut the short-term bounds (draft
    /// AdaptLowerBoundsFromCongestion; Linux bbr_adapt_lower_bounds for ECN).
    fn adapt_lower_bounds(&mut self, w: &Window) {
        if self.is_probing_bw() {
            return;
        }
        let mut ecn_inflight_lo = u64::MAX;
        if self.ecn_in_round && self.cfg.ecn_factor > 0.0 {
            if self.inflight_lo == u64::MAX {
                self.inflight_lo = w.cwnd;
            }
            ecn_inflight_lo = (self.inflight_lo as f64 * (1.0 - self.ecn_alpha * self.cfg.ecn_factor)) as u64;
        }
        if self.loss_in_round {
            if self.bw_lo == f64::INFINITY {
                self.bw_lo = self.max_bw();
            }
            if self.inflight_lo == u64::MAX {
                self.inflight_lo = w.cwnd;
            }
            self.bw_lo = self.bw_latest.max(self.cfg.beta * self.bw_lo);
            self.inflight_lo = self.inflight_latest.max((self.cfg.beta * self.inflight_lo as f64) as u64);
        }
        self.inflight_lo = self.inflight_lo.min(ecn_inflight_lo);
    }

    fn update_congestion_signals(&mut self, w: &Window, s: &Sample, acked: u64) {
        if !s.valid || acked == 0 {
            return;
        }
        if !s.is_app_limited || s.bw >= self.max_bw() {
            self.bw_hi[1] = self.bw_hi[1].max(s.bw);
        }
        if !self.loss_round_start {
            return;
        }
        self.adapt_lower_bounds(w);
        self.loss_in_round = false;
        self.ecn_in_round = false;
    }

    /// draft UpdateACKAggregation.
    fn update_ack_aggregation(&mut self, now: Time, w: &Window, s: &Sample, acked: u64) {
        if acked == 0 || !s.valid {
            return;
        }
        if self.round_start {
            self.extra_acked.advance(self.round);
        }
        let mut expected = (self.bw() * now.since(self.ack_epoch_start).secs_f64()) as u64;
        if self.ack_epoch_acked <= expected {
            self.ack_epoch_acked = 0;
            self.ack_epoch_start = now;
            expected = 0;
        }
        self.ack_epoch_acked += acked;
        let extra = (self.ack_epoch_acked - expected).min(w.cwnd);
        self.extra_acked.update(self.round, extra as f64);
    }

    /// draft CheckStartupHighLoss (Linux bbr_check_loss_too_high_in_startup).
    fn check_loss_too_high_in_startup(&mut self, a: &AckEvent, s: &Sample) {
        if self.full_bw_reached {
            return;
        }
        if a.lost_bytes > 0 {
            self.loss_events_in_round = (self.loss_events_in_round + 1).min(15);
        }
        if self.loss_round_start && a.ca_state == CaState::Recovery && self.loss_events_in_round >= self.cfg.full_loss_cnt && self.is_inflight_too_high(s) {
            self.handle_queue_too_high_in_startup();
            return;
        }
        if self.loss_round_start {
            self.loss_events_in_round = 0;
        }
    }

    /// draft CheckFullBWReached: three rounds without 25 % growth of the delivery rate.
    fn check_full_bw_reached(&mut self, s: &Sample) {
        if self.full_bw_now || !self.round_start || s.is_app_limited {
            return;
        }
        if s.bw >= self.full_bw * self.cfg.full_bw_growth {
            self.reset_full_bw();
            self.full_bw = s.bw;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_now = self.full_bw_cnt >= self.cfg.full_bw_rounds;
        self.full_bw_reached |= self.full_bw_now;
    }

    fn check_drain(&mut self, now: Time, w: &mut Window, inflight_now: u64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.drain_start_round = self.round;
            // exported for monitoring, as Linux; the sender then tests cwnd-limitation outside slow start
            w.ssthresh = self.inflight(self.max_bw(), 1.0);
            self.reset_congestion_signals();
        }
        if self.mode == Mode::Drain && (inflight_now <= self.inflight(self.max_bw(), 1.0) || self.round > self.drain_start_round + 3) {
            self.mode = Mode::ProbeBw(Phase::Down);
            self.start_probe_down(now);
        }
    }

    fn pick_probe_wait(&mut self) {
        self.rounds_since_probe = self.rng.range_inclusive(0, 1);
        let extra = (self.rng.next_f64() * self.cfg.bw_probe_rand.ns() as f64) as u64;
        self.probe_wait = self.cfg.bw_probe_base + Dur::from_ns(extra);
    }

    fn start_probe_down(&mut self, now: Time) {
        self.reset_congestion_signals();
        self.bw_probe_up_cnt = u64::MAX;
        self.pick_probe_wait();
        self.cycle_stamp = now;
        self.ack_phase = AckPhase::ProbeStopping;
        self.start_round();
        self.mode = Mode::ProbeBw(Phase::Down);
    }

    fn start_probe_cruise(&mut self) {
        if self.inflight_lo != u64::MAX {
            self.inflight_lo = self.inflight_lo.min(self.inflight_hi);
        }
        self.mode = Mode::ProbeBw(Phase::Cruise);
    }

    fn start_probe_refill(&mut self) {
        self.reset_lower_bounds();
        self.bw_probe_up_rounds = 0;
        self.bw_probe_up_acks = 0;
        self.stopped_risky_probe = false;
        self.ack_phase = AckPhase::Refilling;
        self.start_round();
        self.mode = Mode::ProbeBw(Phase::Refill);
    }

    fn start_probe_up(&mut self, now: Time, w: &Window, s: &Sample) {
        self.ack_phase = AckPhase::ProbeStarting;
        self.start_round();
        self.cycle_stamp = now;
        self.reset_full_bw();
        self.full_bw = s.bw;
        self.mode = Mode::ProbeBw(Phase::Up);
        self.raise_inflight_hi_slope(w);
    }

    /// Each round of UP doubles the growth of inflight_hi: 1, 2, 4, ... segments a round.
    fn raise_inflight_hi_slope(&mut self, w: &Window) {
        let growth = 1u64 << self.bw_probe_up_rounds;
        self.bw_probe_up_rounds = (self.bw_probe_up_rounds + 1).min(30);
        self.bw_probe_up_cnt = (w.cwnd / growth).max(self.mss);
    }

    fn probe_inflight_hi_upward(&mut self, w: &Window, a: &AckEvent, acked: u64) {
        if !a.cwnd_limited || w.cwnd < self.inflight_hi {
            return; // not using inflight_hi in full: don't grow it
        }
        self.bw_probe_up_acks += acked;
        if self.bw_probe_up_acks >= self.bw_probe_up_cnt {
            let delta = self.bw_probe_up_acks / self.bw_probe_up_cnt;
            self.bw_probe_up_acks -= delta * self.bw_probe_up_cnt;
            self.inflight_hi = self.inflight_hi.saturating_add(delta * self.mss);
        }
        if self.round_start {
            self.raise_inflight_hi_slope(w);
        }
    }

    /// draft AdaptLongTermModel; true when it decided a state transition.
    fn adapt_upper_bounds(&mut self, now: Time, w: &Window, a: &AckEvent, s: &Sample, acked: u64) -> bool {
        if self.ack_phase == AckPhase::ProbeStarting && self.round_start {
            self.ack_phase = AckPhase::ProbeFeedback;
        }
        if self.ack_phase == AckPhase::ProbeStopping && self.round_start {
            // the ACKs of the probe are back: forget the older cycle's bandwidth
            self.bw_probe_samples = false;
            self.ack_phase = AckPhase::Init;
            let in_probe_bw = matches!(self.mode, Mode::ProbeBw(_));
            if in_probe_bw && !s.is_app_limited && self.bw_hi[1] > 0.0 {
                self.bw_hi = [self.bw_hi[1], 0.0];
            }
            if in_probe_bw && self.stopped_risky_probe && !self.prev_probe_too_high {
                self.start_probe_refill();
                return true;
            }
        }
        if self.is_inflight_too_high(s) {
            if self.bw_probe_samples {
                self.handle_inflight_too_high(now, w, s);
            }
        } else {
            if self.inflight_hi == u64::MAX {
                return false;
            }
            if s.valid && s.tx_in_flight > self.inflight_hi {
                self.inflight_hi = s.tx_in_flight;
            }
            if self.mode == Mode::ProbeBw(Phase::Up) {
                self.probe_inflight_hi_upward(w, a, acked);
            }
        }
        false
    }

    /// DOWN or CRUISE: time for REFILL after the random wall-clock wait or the Reno-coexistence
    /// round count (draft IsTimeToProbeBW).
    fn check_time_to_probe_bw(&mut self, now: Time, w: &Window) -> bool {
        let reno_rounds = (self.target_inflight(w) / self.mss).min(self.cfg.bw_probe_max_rounds as u64);
        if now > self.cycle_stamp + self.probe_wait || self.rounds_since_probe >= reno_rounds {
            self.start_probe_refill();
            return true;
        }
        false
    }

    fn update_cycle_phase(&mut self, now: Time, w: &Window, a: &AckEvent, s: &Sample, acked: u64) {
        if !self.full_bw_reached {
            return;
        }
        if self.adapt_upper_bounds(now, w, a, s, acked) {
            return;
        }
        let Mode::ProbeBw(phase) = self.mode else {
            return;
        };
        let inflight = a.prior_in_flight;
        match phase {
            Phase::Cruise => {
                self.check_time_to_probe_bw(now, w);
            }
            Phase::Refill => {
                if self.round_start {
                    self.bw_probe_samples = true;
                    self.start_probe_up(now, w, s);
                }
            }
            Phase::Up => {
                let mut done = false;
                if self.prev_probe_too_high && inflight >= self.inflight_hi {
                    self.stopped_risky_probe = true;
                    done = true;
                } else if a.cwnd_limited && w.cwnd >= self.inflight_hi {
                    // inflight_hi limits the probe: the plateau test starts over
                    self.reset_full_bw();
                    self.full_bw = s.bw;
                } else if self.full_bw_now {
                    done = true;
                }
                if done {
                    self.prev_probe_too_high = false;
                    self.start_probe_down(now);
                }
            }
            Phase::Down => {
                if self.check_time_to_probe_bw(now, w) {
                    return;
                }
                if inflight <= self.inflight_with_headroom() && inflight <= self.inflight(self.max_bw(), 1.0) {
                    self.start_probe_cruise();
                }
            }
        }
    }

    fn save_cwnd(&mut self, w: &Window) {
        self.prior_cwnd = if !self.in_recovery && self.mode != Mode::ProbeRtt { w.cwnd } else { self.prior_cwnd.max(w.cwnd) };
    }

    /// draft UpdateMinRTT and CheckProbeRTT.
    fn update_min_rtt(&mut self, now: Time, w: &mut Window, a: &AckEvent, inflight_now: u64) {
        let probe_rtt_expired = now > self.probe_rtt_min_stamp + self.cfg.probe_rtt_interval;
        if let Some(rtt) = a.rtt {
            if self.probe_rtt_min.is_none_or(|m| rtt < m) || probe_rtt_expired {
                self.probe_rtt_min = Some(rtt);
                self.probe_rtt_min_stamp = now;
            }
        }
        let min_rtt_expired = now > self.min_rtt_stamp + self.cfg.min_rtt_window;
        if let Some(p) = self.probe_rtt_min {
            if self.min_rtt.is_none_or(|m| p <= m) || min_rtt_expired {
                self.min_rtt = Some(p);
                self.min_rtt_stamp = self.probe_rtt_min_stamp;
            }
        }
        if probe_rtt_expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.save_cwnd(w);
            self.mode = Mode::ProbeRtt;
            self.probe_rtt_done = None;
            self.ack_phase = AckPhase::ProbeStopping;
            self.start_round();
        }
        if self.mode == Mode::ProbeRtt {
            // draft-06 BBRHandleProbeRTT: MarkConnectionAppLimited() (Linux: tp->app_limited)
            self.mark_app_limited = true;
            match self.probe_rtt_done {
                None if inflight_now <= self.probe_rtt_cwnd() => {
                    self.probe_rtt_done = Some(now + self.cfg.probe_rtt_time);
                    self.probe_rtt_round_done = false;
                    self.start_round();
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        self.probe_rtt_min_stamp = now; // next PROBE_RTT in 5 s
                        w.cwnd = w.cwnd.max(self.prior_cwnd);
                        self.reset_lower_bounds();
                        if self.full_bw_reached {
                            self.start_probe_down(now);
                            self.start_probe_cruise();
                        } else {
                            self.mode = Mode::Startup;
                        }
                    }
                }
                None => {}
            }
        }
    }

    fn update_gains(&mut self) {
        let c = &self.cfg;
        (self.pacing_gain, self.cwnd_gain) = match self.mode {
            Mode::Startup => (c.startup_pacing_gain, c.cwnd_gain),
            Mode::Drain => (c.drain_pacing_gain, c.cwnd_gain),
            Mode::ProbeBw(Phase::Down) => (c.probe_down_pacing_gain, c.cwnd_gain),
            Mode::ProbeBw(Phase::Cruise | Phase::Refill) => (1.0, c.cwnd_gain),
            Mode::ProbeBw(Phase::Up) => (c.probe_up_pacing_gain, c.cwnd_gain + c.probe_up_cwnd_gain_extra),
            Mode::ProbeRtt => (1.0, c.probe_rtt_cwnd_gain),
        };
    }

    fn set_pacing(&mut self, a: &AckEvent) {
        if !self.has_seen_rtt && a.rtt.is_some() {
            self.has_seen_rtt = true;
            let srtt = a.srtt.secs_f64().max(1e-6);
            self.pacing_bps = self.cfg.startup_pacing_gain * self.init_cwnd as f64 / srtt * 8.0 * PACING_MARGIN;
        }
        let rate = self.pacing_gain * self.bw() * 8.0 * PACING_MARGIN;
        if rate > 0.0 && (self.full_bw_reached || rate > self.pacing_bps) {
            self.pacing_bps = rate;
        }
    }

    /// draft SetCwnd, BoundCwndForProbeRTT and BoundCwndForModel.
    fn set_cwnd(&mut self, w: &mut Window, a: &AckEvent, acked: u64) {
        let mut cwnd = w.cwnd;
        if acked > 0 {
            let target = self.quantization_budget(self.bdp(self.bw(), self.cwnd_gain) + self.aggregation_cwnd());
            if self.full_bw_reached {
                cwnd = (cwnd + acked).min(target);
            } else if cwnd < target || a.delivered_total < self.init_cwnd {
                cwnd += acked;
            }
            cwnd = cwnd.max(self.min_cwnd());
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(self.probe_rtt_cwnd());
        }
        let cap = match self.mode {
            Mode::ProbeBw(Phase::Cruise) | Mode::ProbeRtt => self.inflight_with_headroom(),
            Mode::ProbeBw(_) => self.inflight_hi,
            _ => u64::MAX,
        };
        let cap = cap.min(self.inflight_lo).max(self.min_cwnd());
        w.cwnd = cwnd.min(cap);
    }
}

impl CongestionControl for Bbr3 {
    const FULL_CONTROL: bool = true;
    const PACED: bool = true;
    const RATE_SAMPLE: bool = true;
    const STATE: &'static [Field] = &[
        Field { name: "state", unit: FieldUnit::Code, doc: "0 STARTUP, 1 DRAIN, 2 PROBE_BW_DOWN, 3 PROBE_BW_CRUISE, 4 PROBE_BW_REFILL, 5 PROBE_BW_UP, 6 PROBE_RTT" },
        Field { name: "max_bw_bps", unit: FieldUnit::Bps, doc: "max_bw: the largest delivery rate of this and the previous PROBE_BW cycle" },
        Field { name: "bw_bps", unit: FieldUnit::Bps, doc: "bw = min(max_bw, bw_lo), the rate paced at (x gain)" },
        Field { name: "min_rtt_s", unit: FieldUnit::Seconds, doc: "min_rtt: the least RTT of the last 10 s" },
        Field { name: "inflight_hi_pkts", unit: FieldUnit::Pkts, doc: "inflight_hi (draft inflight_longterm), NaN while unset" },
        Field { name: "inflight_lo_pkts", unit: FieldUnit::Pkts, doc: "inflight_lo (draft inflight_shortterm), NaN while unset" },
        Field { name: "pacing_gain", unit: FieldUnit::Ratio, doc: "the pacing gain in use" },
        Field { name: "cwnd_gain", unit: FieldUnit::Ratio, doc: "the cwnd gain in use" },
        Field { name: "ecn_alpha", unit: FieldUnit::Ratio, doc: "EWMA of the fraction of delivered bytes echoed CE, per round" },
        Field { name: "round", unit: FieldUnit::Count, doc: "round trips counted" },
    ];

    fn take_app_limited(&mut self) -> bool {
        std::mem::take(&mut self.mark_app_limited)
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        let now = a.now;
        let acked = a.acked_bytes + a.sacked_bytes;
        self.delivered = a.delivered_total;
        let rs = a.rate;
        let valid = rs.delivered > 0 && rs.interval > Dur::ZERO;
        // Losses are marked, and CE counted, before the congestion control runs (Linux
        // bbr_skb_marked_lost precedes bbr_main); the first loss of a round starts a loss round.
        if a.lost_bytes > 0 {
            if !self.loss_in_round {
                self.loss_round_delivered = a.delivered_total;
            }
            self.loss_in_round = true;
            self.lost.add(a.delivered_total, a.lost_bytes);
        }
        if a.ece {
            self.ecn_seen = true;
            self.ce.add(a.delivered_total, acked);
        }
        if !self.ecn_eligible && self.ecn_seen && self.min_rtt.is_some_and(|m| m <= self.cfg.ecn_max_rtt) {
            self.ecn_eligible = true;
        }
        // Per-packet figures need a delivered packet; a sample the sender rejected as shorter than
        // the min RTT still knows what was delivered since its packet was sent.
        let (since_send, lost, delivered_ce) = if acked > 0 {
            let since_send = if valid { rs.delivered } else { a.delivered_total.saturating_sub(rs.prior_delivered) };
            (since_send, self.lost.since(rs.prior_delivered), self.ce.since(rs.prior_delivered))
        } else {
            (0, 0, 0)
        };
        let s = Sample {
            valid,
            bw: if valid { rs.delivered as f64 / rs.interval.secs_f64() } else { 0.0 },
            delivered: since_send,
            lost,
            delivered_ce,
            tx_in_flight: if since_send > 0 { since_send + lost } else { a.prior_in_flight },
            is_app_limited: rs.is_app_limited,
        };
        // Leaving the timeout's recovery restores the cwnd from before it (Linux bbr_set_state;
        // fast recovery restores in on_recovery_exit).
        if self.prev_ca_state == CaState::Loss && a.ca_state == CaState::Open {
            w.cwnd = w.cwnd.max(self.prior_cwnd);
        }
        if a.ca_state == CaState::Open {
            self.in_recovery = false;
        }
        self.prev_ca_state = a.ca_state;

        // rounds (Linux bbr_update_round_start)
        self.round_start = false;
        if valid && rs.prior_delivered >= self.next_round_delivered {
            self.next_round_delivered = a.delivered_total;
            self.round += 1;
            self.round_start = true;
            self.rounds_since_probe += 1;
            self.update_ecn_alpha();
        }
        self.ecn_in_round |= self.ecn_eligible && a.ece;

        // draft UpdateLatestDeliverySignals
        self.loss_round_start = false;
        if valid && acked > 0 {
            self.bw_latest = self.bw_latest.max(s.bw);
            self.inflight_latest = self.inflight_latest.max(rs.delivered);
            if rs.prior_delivered >= self.loss_round_delivered {
                self.loss_round_delivered = a.delivered_total;
                self.loss_round_start = true;
            }
        }

        let inflight_now = a.prior_in_flight.saturating_sub(acked + a.lost_bytes);
        self.update_congestion_signals(w, &s, acked);
        self.update_ack_aggregation(now, w, &s, acked);
        self.check_loss_too_high_in_startup(a, &s);
        self.check_full_bw_reached(&s);
        self.check_drain(now, w, inflight_now);
        self.update_cycle_phase(now, w, a, &s, acked);
        self.update_min_rtt(now, w, a, inflight_now);
        // draft AdvanceLatestDeliverySignals
        if self.loss_round_start {
            self.bw_latest = s.bw;
            self.inflight_latest = rs.delivered;
        }

        self.update_gains();
        self.set_pacing(a);
        self.set_cwnd(w, a, acked);
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        match e.kind {
            CongestionKind::Loss if e.new_episode => {
                // draft OnEnterFastRecovery
                self.save_cwnd(w);
                self.in_recovery = true;
            }
            CongestionKind::Timeout => {
                // draft OnEnterRTO (cwnd = in flight + 1: one segment once all is marked lost);
                // Linux bbr_set_state(TCP_CA_Loss)
                if e.new_episode {
                    self.save_cwnd(w);
                }
                self.in_recovery = true;
                self.reset_full_bw();
                if !self.is_probing_bw() && self.inflight_lo == u64::MAX {
                    self.inflight_lo = w.cwnd.max(self.prior_cwnd);
                }
                w.cwnd = self.mss;
            }
            // ECN acts through the model (alpha, inflight_lo), not through the sender's reduction
            _ => {}
        }
        w.ssthresh
    }

    fn on_recovery_exit(&mut self, w: &mut Window, _now: Time) {
        // draft RestoreCwnd; the next ACK bounds it by the model
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.in_recovery = false;
    }

    fn pacing_rate(&self, _w: &Window) -> Option<Rate> {
        Some(Rate::from_bps(self.pacing_bps.max(1.0) as u64))
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let state = match self.mode {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw(Phase::Down) => 2.0,
            Mode::ProbeBw(Phase::Cruise) => 3.0,
            Mode::ProbeBw(Phase::Refill) => 4.0,
            Mode::ProbeBw(Phase::Up) => 5.0,
            Mode::ProbeRtt => 6.0,
        };
        let pkts = |b: u64| if b == u64::MAX { f64::NAN } else { b as f64 / self.mss as f64 };
        let rtt = self.min_rtt.map_or(f64::NAN, |d| d.secs_f64());
        let bw = if self.bw().is_finite() { self.bw() * 8.0 } else { f64::NAN };
        out.copy_from_slice(&[
            state,
            self.max_bw() * 8.0,
            bw,
            rtt,
            pkts(self.inflight_hi),
            pkts(self.inflight_lo),
            self.pacing_gain,
            self.cwnd_gain,
            self.ecn_alpha,
            self.round as f64,
        ]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::cc::RateSample;

    const MSS: u64 = 1000;

    /// A flow past STARTUP: min RTT 10 ms, max_bw 1 MB/s (BDP 10 kB = 10 packets), cwnd 20
    /// packets, in PROBE_BW_DOWN from t = 0.
    fn probing() -> (Bbr3, Window) {
        let mut b = Bbr3::new(&Bbr3Config::default(), &CcEnv::linux(MSS as u32, 10));
        b.min_rtt = Some(Dur::from_ms(10));
        b.probe_rtt_min = Some(Dur::from_ms(10));
        b.full_bw_reached = true;
        b.full_bw_now = true;
        b.bw_hi = [1_000_000.0, 1_000_000.0]; // this and the previous cycle
        b.pacing_bps = 8e6; // send quantum 2 packets
        b.delivered = 1_000_000;
        b.next_round_delivered = b.delivered;
        b.loss_round_delivered = b.delivered;
        b.start_probe_down(Time::ZERO);
        (b, Window { cwnd: 20 * MSS, ssthresh: 10 * MSS, mss: MSS as u32 })
    }

    /// An ACK at `t_ms` delivering one segment, whose rate sample delivered `delivered` bytes at
    /// `bw` bytes/s; it ends the round (and the loss round) when `new_round`.
    fn sample(b: &Bbr3, t_ms: u64, bw: f64, delivered: u64, new_round: bool, in_flight: u64) -> AckEvent {
        let prior = if new_round { b.delivered } else { b.next_round_delivered.min(b.loss_round_delivered).saturating_sub(1) };
        AckEvent {
            now: Time::from_ms(t_ms),
            prior_in_flight: in_flight,
            delivered_total: b.delivered + MSS,
            rate: RateSample { delivered, interval: Dur::from_ns((delivered as f64 / bw * 1e9) as u64), is_app_limited: false, prior_delivered: prior },
            ..ack(MSS)
        }
    }

    /// PROBE_BW: DOWN (pacing 0.9) until in flight is at most one BDP; CRUISE (1.0) until the
    /// 2-3 s wait is over; REFILL (1.0) for one round; UP (1.25, cwnd gain 2.25) until the
    /// delivery rate has not grown 25 % in 3 rounds; DOWN again.
    #[test]
    fn probe_bw_cycles_down_cruise_refill_up() {
        let (mut b, mut w) = probing();
        let bw = 1_000_000.0;
        assert!(b.probe_wait >= Dur::from_secs(2) && b.probe_wait < Dur::from_secs(3), "wait {:?}", b.probe_wait);
        let mut seen = vec![];
        let mut step = |b: &mut Bbr3, w: &mut Window, t: u64, new_round: bool, in_flight_pkts: u64| {
            let a = sample(b, t, bw, 10 * MSS, new_round, in_flight_pkts * MSS);
            b.on_ack(w, &a);
            seen.push((b.mode, b.pacing_gain, b.cwnd_gain));
        };
        step(&mut b, &mut w, 1, false, 12); // 12 packets > BDP: still DOWN
        step(&mut b, &mut w, 2, false, 9); // at most a BDP (and no inflight_hi): CRUISE
        step(&mut b, &mut w, 2_000, false, 10); // before the wait: CRUISE
        step(&mut b, &mut w, 3_001, false, 10); // the wait is at most 3 s: REFILL
        step(&mut b, &mut w, 3_010, true, 10); // a round of REFILL: UP
        for k in 1..=3 {
            step(&mut b, &mut w, 3_010 + 10 * k, true, 12); // rounds without 25 % growth
        }
        use Phase::*;
        let want = [
            (Mode::ProbeBw(Down), 0.9, 2.0),
            (Mode::ProbeBw(Cruise), 1.0, 2.0),
            (Mode::ProbeBw(Cruise), 1.0, 2.0),
            (Mode::ProbeBw(Refill), 1.0, 2.0),
            (Mode::ProbeBw(Up), 1.25, 2.25),
            (Mode::ProbeBw(Up), 1.25, 2.25),
            (Mode::ProbeBw(Up), 1.25, 2.25),
            (Mode::ProbeBw(Down), 0.9, 2.0),
        ];
        assert_eq!(seen, want);
        assert!((b.pacing_bps - 0.9 * 8e6 * 0.99).abs() < 1.0, "pacing {}", b.pacing_bps);
    }

    /// In UP, a loss rate of the data in flight above 2 % sets inflight_hi = max(the in flight at
    /// which the loss rate crossed 2 %, 0.7 x min(BDP, cwnd)) (draft-ietf-ccwg-bbr-06
    /// HandleInflightTooHigh; the brief's "max(inflight, target) x 0.7" is not the draft's) and
    /// ends the probe (DOWN). At 1.6 % nothing happens.
    #[test]
    fn loss_over_two_percent_in_a_probe_cuts_inflight_hi() {
        let up = || {
            let (mut b, mut w) = probing();
            b.start_probe_refill();
            let a = sample(&b, 1, 1_000_000.0, 10 * MSS, true, 10 * MSS);
            b.on_ack(&mut w, &a);
            assert_eq!((b.mode, b.bw_probe_samples), (Mode::ProbeBw(Phase::Up), true));
            (b, w)
        };
        // 60 segments delivered since the sampled packet was sent: 1 lost (1.6 %), then 2 (3.2 %)
        let (mut b, mut w) = up();
        let prior = b.delivered;
        let lossy = |b: &Bbr3, t| AckEvent { lost_bytes: MSS, rate: RateSample { prior_delivered: prior, ..sample(b, t, 1_000_000.0, 60 * MSS, false, 62 * MSS).rate }, ..sample(b, t, 1_000_000.0, 60 * MSS, false, 62 * MSS) };
        let a = lossy(&b, 2);
        b.on_ack(&mut w, &a);
        assert_eq!((b.mode, b.inflight_hi), (Mode::ProbeBw(Phase::Up), u64::MAX), "1/61 is under 2 %");
        let a = lossy(&b, 3);
        b.on_ack(&mut w, &a);
        // tx_in_flight 62 segments; 61 before the packet with 1 lost: the rate crosses 2 % at
        // 61 + (0.02 x 61 - 1) / 0.98 = 61.22 segments (draft InflightAtLoss)
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Down));
        assert!(b.prev_probe_too_high && !b.bw_probe_samples);
        assert_eq!(b.inflight_hi, 61_224);
        // little in flight: the 0.7 x target bound holds (target = min(BDP 10 kB, cwnd))
        let (mut b, mut w) = up();
        let a = AckEvent { lost_bytes: MSS, ..sample(&b, 2, 1_000_000.0, 5 * MSS, true, 6 * MSS) };
        b.on_ack(&mut w, &a);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Down));
        assert_eq!(b.inflight_hi, 7_000, "0.7 x 10 kB");
        // the cap now holds in DOWN; CRUISE leaves 15 % headroom
        assert!(w.cwnd <= 7_000);
        assert_eq!(b.inflight_with_headroom(), 7_000 - 1_050);
    }

    /// Not probing (CRUISE), a round with losses cuts the short-term bounds at its end:
    /// inflight_lo = max(latest round's delivered, 0.7 x cwnd), bw_lo = max(latest rate, 0.7 x
    /// max_bw); REFILL resets them.
    #[test]
    fn loss_while_cruising_cuts_the_short_term_bounds_by_beta() {
        let (mut b, mut w) = probing();
        b.start_probe_cruise();
        let bw = 1_000_000.0;
        let a = sample(&b, 1, 0.5 * bw, 5 * MSS, true, 10 * MSS); // a round starts: latest 500 kB/s, 5 kB
        b.on_ack(&mut w, &a);
        let a = AckEvent { lost_bytes: MSS, ..sample(&b, 2, 0.5 * bw, 5 * MSS, false, 10 * MSS) };
        b.on_ack(&mut w, &a);
        assert_eq!(b.inflight_lo, u64::MAX, "the round with the loss has not ended");
        let cwnd = w.cwnd; // inflight_lo starts from the cwnd when the round ends
        let a = sample(&b, 12, 0.5 * bw, 5 * MSS, true, 10 * MSS);
        b.on_ack(&mut w, &a);
        assert_eq!(b.inflight_lo, ((0.7 * cwnd as f64) as u64).max(5 * MSS));
        assert!((b.bw_lo - 0.7 * bw).abs() < 1e-6, "bw_lo {}", b.bw_lo);
        assert!(w.cwnd <= b.inflight_lo);
        b.start_probe_refill();
        assert_eq!((b.inflight_lo, b.bw_lo), (u64::MAX, f64::INFINITY));
    }

    /// 5 s without an RTT sample under the 5-s minimum: PROBE_RTT with cwnd 0.5 BDP; once in
    /// flight is down to that, 200 ms and a round later it cruises with the cwnd from before.
    #[test]
    fn probe_rtt_every_five_seconds_at_half_a_bdp() {
        let (mut b, mut w) = probing();
        b.start_probe_cruise();
        b.probe_wait = Dur::from_secs(60); // no bandwidth probe in the way
        let bw = 1_000_000.0;
        let with_rtt = |b: &Bbr3, t, in_flight| AckEvent { rtt: Some(Dur::from_ms(12)), ..sample(b, t, bw, 10 * MSS, false, in_flight) };
        let a = with_rtt(&b, 4_999, 20 * MSS);
        b.on_ack(&mut w, &a);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise), "under 5 s");
        let before = w.cwnd;
        let a = with_rtt(&b, 5_001, 20 * MSS);
        b.on_ack(&mut w, &a);
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert_eq!(w.cwnd, 5 * MSS, "0.5 x BDP of 10 packets");
        assert_eq!(b.min_rtt, Some(Dur::from_ms(10)), "the 10-s min RTT is kept");
        let a = with_rtt(&b, 5_020, 6 * MSS); // 5 packets left after this ACK
        b.on_ack(&mut w, &a);
        assert_eq!(b.probe_rtt_done, Some(Time::from_ms(5_220)));
        let a = AckEvent { rtt: Some(Dur::from_ms(10)), ..sample(&b, 5_100, bw, 5 * MSS, true, 5 * MSS) };
        b.on_ack(&mut w, &a);
        assert_eq!(b.mode, Mode::ProbeRtt, "a round, not 200 ms");
        let a = with_rtt(&b, 5_221, 5 * MSS);
        b.on_ack(&mut w, &a);
        assert_eq!(b.mode, Mode::ProbeBw(Phase::Cruise));
        assert_eq!(b.probe_rtt_min_stamp, Time::from_ms(5_221), "next PROBE_RTT 5 s from now");
        assert!(w.cwnd >= before, "cwnd restored: {} < {}", w.cwnd, before);
    }

    /// STARTUP ends on loss at the end of a round of fast recovery with at least 6 loss events
    /// and a loss rate over 2 %; inflight_hi = max(BDP, latest round's delivered).
    #[test]
    fn startup_exits_on_high_loss() {
        let mut b = Bbr3::new(&Bbr3Config::default(), &CcEnv::linux(MSS as u32, 10));
        b.min_rtt = Some(Dur::from_ms(10));
        b.bw_hi = [0.0, 1_000_000.0];
        b.pacing_bps = 8e6; // send quantum 2 packets
        b.delivered = 1_000_000;
        b.next_round_delivered = b.delivered;
        b.loss_round_delivered = b.delivered;
        let mut w = Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        let prior = b.delivered;
        for t in 1..=6 {
            let a = AckEvent { ca_state: CaState::Recovery, lost_bytes: MSS, rate: RateSample { prior_delivered: prior, ..sample(&b, t, 1_000_000.0, 30 * MSS, false, 40 * MSS).rate }, ..sample(&b, t, 1_000_000.0, 30 * MSS, false, 40 * MSS) };
            b.on_ack(&mut w, &a);
            assert_eq!(b.mode, Mode::Startup, "the loss round has not ended");
        }
        // the loss round ends with the packet sent when the first loss was marked: 6 events, 5
        // segments lost since it was sent, of 35 then in flight
        let first_loss = b.loss_round_delivered;
        let end = sample(&b, 12, 1_000_000.0, 30 * MSS, true, 40 * MSS);
        let a = AckEvent { ca_state: CaState::Recovery, rate: RateSample { prior_delivered: first_loss, ..end.rate }, ..end };
        b.on_ack(&mut w, &a);
        assert!(b.full_bw_reached);
        assert_eq!(b.mode, Mode::Drain);
        assert_eq!(b.inflight_hi, 30 * MSS, "latest round's delivered (BDP 10 kB)");
    }

    /// ECN (a flow that negotiated it, min RTT <= 5 ms): alpha is the per-round EWMA (1/16) of
    /// the fraction of bytes delivered by ECE ACKs; 2 rounds with >= 50 % end STARTUP; while
    /// cruising, a round with ECE cuts inflight_lo by alpha / 3. At 10 ms min RTT ECE is ignored.
    #[test]
    fn ecn_marks_end_startup_and_cut_inflight_lo() {
        let fresh = |rtt_ms| {
            let mut b = Bbr3::new(&Bbr3Config::default(), &CcEnv::linux(MSS as u32, 10));
            b.min_rtt = Some(Dur::from_ms(rtt_ms));
            b.bw_hi = [0.0, 1_000_000.0];
            b.pacing_bps = 8e6;
            b.delivered = 1_000_000;
            b.next_round_delivered = b.delivered;
            b.alpha_last_delivered = b.delivered;
            (b, Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 })
        };
        // every ACK echoes ECE: ratio 1 per round; STARTUP ends at the second round end (the
        // first ACK here ends round 1)
        let (mut b, mut w) = fresh(4);
        let mut t = 1;
        for round in 0..3 {
            for k in 0..4 {
                let a = AckEvent { ece: true, ..sample(&b, t, 1_000_000.0, 4 * MSS, k == 0, 40 * MSS) };
                b.on_ack(&mut w, &a);
                t += 1;
            }
            assert_eq!(b.full_bw_reached, round >= 1, "round {round}: alpha {}", b.ecn_alpha);
        }
        assert!(b.ecn_eligible && (b.ecn_alpha - 1.0).abs() < 1e-12);
        assert_eq!(b.inflight_hi, 6 * MSS, "max(BDP 4 kB raised to the 6-packet quantization budget, latest delivered 4 kB)");
        // the same marks at 10 ms: not eligible, STARTUP goes on
        let (mut b, mut w) = fresh(10);
        for k in 0..12 {
            let a = AckEvent { ece: true, ..sample(&b, k + 1, 1_000_000.0, 4 * MSS, k % 4 == 0, 40 * MSS) };
            b.on_ack(&mut w, &a);
        }
        assert!(!b.ecn_eligible && !b.full_bw_reached && b.mode == Mode::Startup);
        // cruising: one round with ECE, alpha 0.5: inflight_lo = cwnd x (1 - 0.5 / 3)
        let (mut b, mut w) = probing();
        b.min_rtt = Some(Dur::from_ms(4));
        b.probe_rtt_min = Some(Dur::from_ms(4));
        b.start_probe_cruise();
        b.ecn_alpha = 0.5;
        b.alpha_last_delivered = b.delivered;
        let a = AckEvent { ece: true, ..sample(&b, 1, 1_000_000.0, 4 * MSS, false, 8 * MSS) };
        b.on_ack(&mut w, &a);
        let cwnd = w.cwnd;
        let alpha_then = b.ecn_alpha;
        let a = sample(&b, 5, 1_000_000.0, 4 * MSS, true, 8 * MSS);
        b.on_ack(&mut w, &a);
        // the round end updates alpha first (1 of 2 segments marked), then cuts
        let alpha = 15.0 / 16.0 * alpha_then + 1.0 / 16.0 * 0.5;
        assert!((b.ecn_alpha - alpha).abs() < 1e-12, "alpha {}", b.ecn_alpha);
        assert_eq!(b.inflight_lo, (cwnd as f64 * (1.0 - alpha * 0.333)) as u64);
    }
}
