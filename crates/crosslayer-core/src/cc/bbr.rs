//! BBR (version 1): a model of the path, the bottleneck bandwidth (the largest delivery rate of
//! the last 10 round trips) and the round-trip propagation time (the least RTT of the last 10
//! s), paces at gain x bandwidth and caps the data in flight at gain x bandwidth x min RTT.
//!
//! Source: Cardwell, Cheng, Gunn, Hassas Yeganeh, Jacobson, "BBR: congestion-based congestion
//! control", ACM Queue 14(5), 2016; draft-cardwell-iccrg-bbr-congestion-control-00 (2017); Linux
//! `net/ipv4/tcp_bbr.c` (v1), read for behaviour (not copied). The sender gives it delivery-rate
//! samples (`RATE_SAMPLE`), lets it set cwnd on every ACK (`FULL_CONTROL`) and paces at its rate.
//!
//! * Rounds: a round ends when a packet sent after the previous round's end is delivered
//!   (the sample's prior_delivered reaches the delivered count saved at the round's start).
//! * Bandwidth: the largest sample of the last 10 rounds; an app-limited sample only when it
//!   raises the estimate. min RTT: the least sample, replaced by the next sample once 10 s old.
//! * STARTUP: pacing and cwnd gain 2/ln 2 = 2.885; left when the bandwidth grew less than 25 %
//!   in 3 rounds in a row (not counting app-limited rounds): the pipe is full.
//! * DRAIN: pacing gain 1/2.885 until what is in flight is down to one BDP.
//! * PROBE_BW: pacing gains 5/4, 3/4, 1, 1, 1, 1, 1, 1, a phase per min RTT (5/4 lasts until
//!   in flight, with the send quantum about to leave, reaches the cwnd target at 5/4 (below),
//!   or a loss; 3/4 ends early once in flight is down to the cwnd target at 1, as Linux's
//!   `bbr_is_next_cycle_phase` compares with `bbr_inflight`), starting at a random phase other
//!   than 3/4; cwnd gain 2. DRAIN ends when what is in flight after the ACK is down to the
//!   cwnd target at 1.
//! * PROBE_RTT: entered when the min RTT is 10 s old: cwnd 4 packets until 200 ms and a round
//!   have passed at that level, then the min RTT's timestamp is renewed and the previous cwnd
//!   restored (back to PROBE_BW, or STARTUP if the pipe was never full). Every ACK in it marks
//!   the connection app-limited (`take_app_limited`), so its low rate samples do not enter the
//!   bandwidth filter: at short RTTs 200 ms is most of the 10-round window.
//! * cwnd: `gain x BDP + ACK aggregation + 3 x send quantum` (even, + 2 in the 5/4 phase),
//!   approached by adding what each ACK newly delivers (Linux `acked_sacked`: not the segments
//!   SACKed before that a cumulative ACK passes again) once the pipe is full, at least 4
//!   packets. ACK aggregation (Linux 5.1+, `bbr_update_ack_aggregation`): once the pipe is
//!   full, the largest excess of segments delivered since an epoch's start over what the
//!   bandwidth estimate accounts for (the epoch restarts whenever the ACKs fall behind it), a
//!   maximum over two windows of 5 rounds, at most the cwnd and 100 ms at the estimate. Losses
//!   reported by an ACK take that much off; the first round of a fast recovery is
//!   packet-conserving (cwnd = in flight + delivered); leaving recovery, or the Loss state of a
//!   timeout, restores the cwnd from before it (Linux `bbr_set_cwnd_to_recover_or_restore`:
//!   `prev_ca_state >= TCP_CA_Recovery`; a timeout that interrupts a recovery leaves the state
//!   Loss, so nothing is restored until the ACKs leave it). In the ns3 profile the end of the
//!   Loss state restores nothing (ns-3's TcpBbr restores at `CA_EVENT_COMPLETE_CWR`, which
//!   TcpSocketBase raises at the end of a fast recovery only).
//! * Pacing rate `gain x bandwidth x 0.99` (Linux's 1 % margin), lowered only once the pipe was
//!   full. It starts at 2.885 x cwnd / SRTT when the connection opens with the handshake's RTT
//!   (Linux initializes BBR after the handshake, `bbr_init_pacing_rate_from_rtt`), else from a
//!   nominal 1 ms RTT until the first RTT sample, when it is set again the same way. The
//!   sender charges each segment's payload to the pacing clock (`[tcp] pacing_credit` adds
//!   Linux's unpaced first 10 segments and its credit for late sends).
//! * Long-term sampling (Linux v1's policer detection, `bbr_lt_bw_sampling`; on in the linux
//!   profile, off in ns3, whose TcpBbr has none): an interval opens at a loss, counts rounds,
//!   and closes at a loss after 4 rounds (16 at most) if at least 50/256 as many packets were
//!   lost as delivered; two intervals in a row whose rates are within an eighth of each other
//!   make their average the bandwidth estimate, paced at gain 1, for 48 rounds of PROBE_BW.
//!
//! Deliberate deviations: the phase tests do not subtract what the bottleneck delivers before
//! the next paced departure (Linux `bbr_packets_in_net_at_edt`: less than a segment at these
//! gains, which its integer division rounds to zero); the send quantum (Linux's TSO goal) is
//! the bytes of 1 ms at the pacing rate, between 2 segments (1 below 1.2 Mb/s) and 64 KB; a
//! timeout sets cwnd to one segment (Linux: in flight + 1 after marking all lost) and saves
//! the cwnd for the restore; the ACK that ends a timeout's Loss state arrives in it (the
//! sender's state before the ACK), so the restore comes one ACK after Linux's; the long-term
//! rate is kept in bytes/s, not Linux's fixed point (packets per microsecond << 24), and two
//! intervals' average is not truncated.

use super::{AckEvent, CaState, CcEnv, CongestionControl, CongestionEvent, CongestionKind, Window};
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use super::law::bbr::{send_quantum_pkts, RoundMaxFilter, MIN_CWND_PKTS, PACING_MARGIN};
use crate::rng::{Rng, StreamKind};
use crate::stack::Profile;
use crate::units::{Dur, Rate, Time};

crate::params! {
    /// BBR v1 parameters; the defaults are Linux's tcp_bbr.c.
    pub struct BbrConfig {
        /// STARTUP's pacing and cwnd gain.
        high_gain: f64 = 2.885, Number(""), range(> 1.0, <= 10.0), "Linux bbr_high_gain 2885/1000 (2/ln 2)";
        /// PROBE_BW's cwnd gain.
        cwnd_gain: f64 = 2.0, Number(""), range(>= 1.0, <= 10.0), "Linux bbr_cwnd_gain 2";
        /// Rounds over which the bandwidth is the largest sample.
        bw_rounds: u32 = 10, Count, range(>= 1, <= 64), "Linux bbr_bw_rtts = CYCLE_LEN + 2 = 10";
        /// Age at which the min RTT is replaced and PROBE_RTT entered.
        min_rtt_window: Dur = Dur::from_secs(10), Time, range(>= Dur::from_ms(100)), "Linux bbr_min_rtt_win_sec 10";
        /// Time PROBE_RTT holds cwnd at 4 packets.
        probe_rtt_time: Dur = Dur::from_ms(200), Time, range(>= Dur::ZERO), "Linux bbr_probe_rtt_mode_ms 200";
        /// Growth below which a round does not count as growing (STARTUP's exit test).
        full_bw_growth: f64 = 1.25, Number(""), range(> 1.0, <= 4.0), "Linux bbr_full_bw_thresh 1.25";
        /// Rounds without growth that end STARTUP.
        full_bw_rounds: u32 = 3, Count, range(>= 1, <= 100), "Linux bbr_full_bw_cnt 3";
        /// Long-term bandwidth sampling (policer detection): two intervals of 4-16 rounds ending at a loss, each losing at least 50/256 of what it delivered, at delivery rates within an eighth of each other make their average the bandwidth estimate, paced at gain 1, for 48 rounds of PROBE_BW; unset: the TCP profile's (on in linux, off in ns3 and ns2).
        lt_sampling: Option<bool> = None, Flag, range(), "linux: tcp_bbr.c v1 bbr_lt_bw_sampling (lt_intvl_min_rtts 4, lt_loss_thresh 50/256, lt_bw_ratio 1/8, lt_bw_diff 4 kb/s, lt_bw_max_rtts 48); ns3: ns-3 3.44 TcpBbr has none";
    }
}

const CYCLE: [f64; 8] = [1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
/// Rounds per window of the ACK-aggregation maximum (Linux `bbr_extra_acked_win_rtts`).
const EXTRA_ACKED_WIN_RTTS: u8 = 5;
/// Segments after which an aggregation epoch restarts (Linux `bbr_ack_epoch_acked_reset_thresh`).
const ACK_EPOCH_ACKED_RESET: u64 = 1 << 20;
/// Long-term sampling (Linux `bbr_lt_*`): an interval lasts at least this many rounds, and is
/// abandoned beyond 4 times as many.
const LT_INTVL_MIN_RTTS: u32 = 4;
/// The loss ratio (lost / delivered, of 256) at or above which an interval counts.
const LT_LOSS_THRESH: u64 = 50;
/// Rounds of PROBE_BW spent at the long-term rate before probing again.
const LT_BW_MAX_RTTS: u32 = 48;
/// Two intervals' rates agree within 4 kb/s (Linux `bbr_lt_bw_diff`, bytes/s), at the pacing
/// margin.
const LT_BW_DIFF_BYTES: f64 = 4000.0 / 8.0;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Startup,
    Drain,
    ProbeBw,
    ProbeRtt,
}

#[derive(Clone, Debug)]
pub struct Bbr {
    cfg: BbrConfig,
    rng: Rng,
    mss: u64,
    pub mode: Mode,
    /// Per-round maxima of the delivery rate (bytes/s) for the last `bw_rounds` rounds.
    bw_filter: RoundMaxFilter,
    round: u64,
    next_round_delivered: u64,
    round_start: bool,
    min_rtt: Option<Dur>,
    min_rtt_stamp: Time,
    pacing_gain: f64,
    cwnd_gain: f64,
    pacing_bps: f64,
    full_bw: f64,
    full_bw_cnt: u32,
    full_bw_reached: bool,
    cycle_idx: usize,
    cycle_stamp: Time,
    probe_rtt_done: Option<Time>,
    probe_rtt_round_done: bool,
    /// Set on every ACK in PROBE_RTT; the sender reads and clears it (`take_app_limited`).
    mark_app_limited: bool,
    prior_cwnd: u64,
    /// Restore prior_cwnd at the next ACK (leaving PROBE_RTT).
    restore_cwnd: bool,
    packet_conservation: bool,
    in_recovery: bool,
    /// A timeout put the connection in the Loss state, and no ACK has come outside it since
    /// (Linux `prev_ca_state == TCP_CA_Loss`): the ACK that finds it left restores prior_cwnd.
    in_loss: bool,
    /// Leaving a timeout's Loss state restores prior_cwnd (Linux); ns-3's TcpBbr restores only
    /// at `CA_EVENT_COMPLETE_CWR`, which TcpSocketBase raises when a fast recovery ends, not
    /// the Loss state (the ns3 profile).
    loss_restore: bool,
    /// The pacing rate was set from an RTT sample (Linux `has_seen_rtt`).
    has_seen_rtt: bool,
    /// ACK aggregation (Linux `bbr_update_ack_aggregation`): the largest excess of segments
    /// delivered over `bw x time` since an epoch start, in two windows of 5 rounds.
    extra_acked: [u32; 2],
    extra_acked_win_rtts: u8,
    extra_acked_win_idx: u8,
    ack_epoch_start: Time,
    ack_epoch_acked: u32,
    /// The connection's delivered bytes at the previous ACK: what an ACK newly delivered is the
    /// difference (Linux `rs->acked_sacked`: cumulatively acknowledged without an earlier SACK,
    /// or newly SACKed; not the segments SACKed before that a cumulative ACK passes again).
    delivered_seen: u64,
    /// The last time an ACK delivered data (Linux `tp->delivered_mstamp`).
    delivered_stamp: Time,
    /// Bytes marked lost so far (Linux `tp->lost`: by ACKs, and by timeouts).
    lost_total: u64,
    /// Long-term sampling (Linux `bbr_lt_bw_sampling`), when the profile has it.
    lt: Option<LtSampling>,
}

/// Linux v1's long-term bandwidth sampling, which detects a token-bucket policer: two sampling
/// intervals in a row with a high loss ratio and delivery rates within an eighth of each other.
#[derive(Clone, Copy, Debug, Default)]
struct LtSampling {
    /// An interval is open (it starts at the first loss).
    sampling: bool,
    /// Rounds counted in the interval, or in the use of the long-term rate.
    rtt_cnt: u32,
    /// The long-term rate is the bandwidth estimate.
    use_bw: bool,
    /// The previous interval's delivery rate, then the two intervals' average; bytes/s.
    bw: f64,
    /// At the interval's start: delivered bytes, the time in whole ms, lost bytes.
    last_delivered: u64,
    last_stamp_ms: u64,
    last_lost: u64,
}

/// The connection's counters where a long-term interval starts or ends: the last delivery's
/// time in whole ms (Linux `tp->delivered_mstamp`), delivered and lost bytes (`tp->delivered`,
/// `tp->lost`).
#[derive(Clone, Copy, Debug)]
struct LtMark {
    stamp_ms: u64,
    delivered: u64,
    lost: u64,
}

/// What one long-term sample changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LtOutcome {
    Nothing,
    /// Two intervals alike: the long-term rate is the estimate now, at gain 1.
    Policed,
    /// 48 rounds of PROBE_BW at the long-term rate: sampling starts over, and so does probing.
    Expired,
}

impl LtSampling {
    /// Linux `bbr_reset_lt_bw_sampling_interval`: an interval starts at `at`.
    fn start_interval(&mut self, at: LtMark) {
        (self.last_stamp_ms, self.last_delivered, self.last_lost, self.rtt_cnt) = (at.stamp_ms, at.delivered, at.lost, 0);
    }

    /// Linux `bbr_reset_lt_bw_sampling`: no long-term rate, no interval.
    fn reset(&mut self, at: LtMark) {
        (self.bw, self.use_bw, self.sampling) = (0.0, false, false);
        self.start_interval(at);
    }

    /// Linux `bbr_lt_bw_sampling` and `bbr_lt_bw_interval_done`: an interval opens at a loss,
    /// counts rounds, and closes at a loss once it has 4 rounds (16 at most) and a loss ratio of
    /// at least 50/256; two intervals in a row whose rates are within an eighth (or 4 kb/s) of
    /// each other make their average the bandwidth estimate, until 48 rounds of PROBE_BW have
    /// passed.
    fn sample(&mut self, at: LtMark, round_start: bool, probe_bw: bool, losses: bool, app_limited: bool, mss: u64) -> LtOutcome {
        if self.use_bw {
            if probe_bw && round_start {
                self.rtt_cnt += 1;
                if self.rtt_cnt >= LT_BW_MAX_RTTS {
                    self.reset(at);
                    return LtOutcome::Expired;
                }
            }
            return LtOutcome::Nothing;
        }
        if !self.sampling {
            if !losses {
                return LtOutcome::Nothing;
            }
            self.start_interval(at);
            self.sampling = true;
        }
        if app_limited {
            self.reset(at);
            return LtOutcome::Nothing;
        }
        if round_start {
            self.rtt_cnt += 1;
        }
        if self.rtt_cnt < LT_INTVL_MIN_RTTS {
            return LtOutcome::Nothing;
        }
        if self.rtt_cnt > 4 * LT_INTVL_MIN_RTTS {
            self.reset(at);
            return LtOutcome::Nothing;
        }
        if !losses {
            return LtOutcome::Nothing;
        }
        let lost = (at.lost - self.last_lost) / mss;
        let delivered = at.delivered.saturating_sub(self.last_delivered) / mss;
        if delivered == 0 || (lost << 8) < LT_LOSS_THRESH * delivered {
            return LtOutcome::Nothing;
        }
        // whole milliseconds, as Linux keeps the interval's start
        let t_ms = at.stamp_ms as i64 - self.last_stamp_ms as i64;
        if t_ms < 1 {
            return LtOutcome::Nothing;
        }
        let bw = (delivered * mss * 1000) as f64 / t_ms as f64;
        if self.bw > 0.0 {
            let diff = (bw - self.bw).abs();
            if diff <= self.bw / 8.0 || diff * PACING_MARGIN <= LT_BW_DIFF_BYTES {
                (self.bw, self.use_bw, self.rtt_cnt) = ((bw + self.bw) / 2.0, true, 0);
                return LtOutcome::Policed;
            }
        }
        self.bw = bw;
        self.start_interval(at);
        LtOutcome::Nothing
    }
}

impl Algorithm for Bbr {
    type Config = BbrConfig;
    type Env = CcEnv;
    const INFO: Info = Info {
        name: "bbr",
        aliases: &["bbr1"],
        summary: "BBR v1: pace at gain x max delivery rate (10 rounds), cap in flight at gain x rate x min RTT (10 s); STARTUP, DRAIN, PROBE_BW, PROBE_RTT",
        sources: &["Cardwell et al., ACM Queue 14(5), 2016", "draft-cardwell-iccrg-bbr-congestion-control-00", "Linux net/ipv4/tcp_bbr.c (v1)"],
    };
    fn new(cfg: &BbrConfig, env: &CcEnv) -> Bbr {
        let mss = env.mss as u64;
        // 1 ms RTT before any sample (Linux bbr_init_pacing_rate_from_rtt)
        let init_rate = cfg.high_gain * env.initial_cwnd as f64 / 1e-3;
        Bbr {
            cfg: cfg.clone(),
            rng: Rng::stream(env.rng_seed, StreamKind::Flow, 0),
            mss,
            mode: Mode::Startup,
            bw_filter: RoundMaxFilter::new(cfg.bw_rounds as usize),
            round: 0,
            next_round_delivered: 0,
            round_start: false,
            min_rtt: None,
            min_rtt_stamp: Time::ZERO,
            pacing_gain: cfg.high_gain,
            cwnd_gain: cfg.high_gain,
            pacing_bps: init_rate * 8.0 * PACING_MARGIN,
            full_bw: 0.0,
            full_bw_cnt: 0,
            full_bw_reached: false,
            cycle_idx: 0,
            cycle_stamp: Time::ZERO,
            probe_rtt_done: None,
            probe_rtt_round_done: false,
            mark_app_limited: false,
            prior_cwnd: 0,
            restore_cwnd: false,
            packet_conservation: false,
            in_recovery: false,
            in_loss: false,
            loss_restore: env.profile != Profile::Ns3,
            has_seen_rtt: false,
            extra_acked: [0; 2],
            extra_acked_win_rtts: 0,
            extra_acked_win_idx: 0,
            ack_epoch_start: Time::ZERO,
            ack_epoch_acked: 0,
            delivered_seen: 0,
            delivered_stamp: Time::ZERO,
            lost_total: 0,
            lt: cfg.lt_sampling.unwrap_or(env.profile == Profile::Linux).then(LtSampling::default),
        }
    }
}

impl Bbr {
    /// The bandwidth estimate, bytes/s: the largest per-round maximum of the last rounds.
    #[inline]
    pub fn max_bw(&self) -> f64 {
        self.bw_filter.get()
    }

    /// The bandwidth the model paces and sizes cwnd by, bytes/s (Linux `bbr_bw`): the
    /// long-term rate while a policer is estimated, the filter's maximum otherwise.
    #[inline]
    pub fn bw(&self) -> f64 {
        match self.lt {
            Some(lt) if lt.use_bw => lt.bw,
            _ => self.max_bw(),
        }
    }

    fn add_bw_sample(&mut self, bw: f64) {
        self.bw_filter.update(self.round, bw);
    }

    /// BDP at `bw` and `gain`, bytes (0 before samples).
    fn bdp(&self, bw: f64, gain: f64) -> f64 {
        match self.min_rtt {
            Some(rtt) => gain * bw * rtt.secs_f64(),
            None => 0.0,
        }
    }

    /// Linux bbr_inflight with the quantization budget: the cwnd target at `gain` for the
    /// filter's maximum (the phase and DRAIN tests use it, even at a long-term rate), bytes.
    fn target_cwnd(&self, gain: f64) -> u64 {
        self.budgeted(self.max_bw(), gain, 0)
    }

    /// The BDP at `bw` and `gain` in whole segments plus `extra` segments, with Linux's
    /// quantization budget (`bbr_quantization_budget`): 3 send quanta, even, +2 in the 5/4
    /// phase; bytes.
    fn budgeted(&self, bw: f64, gain: f64, extra: u64) -> u64 {
        if self.min_rtt.is_none() || bw == 0.0 {
            return 0;
        }
        let mss = self.mss;
        let bdp_pkts = (self.bdp(bw, gain) / mss as f64).ceil() as u64;
        let mut pkts = bdp_pkts + extra + 3 * self.send_quantum_pkts();
        pkts = (pkts + 1) & !1;
        if self.mode == Mode::ProbeBw && self.cycle_idx == 0 {
            pkts += 2;
        }
        pkts * mss
    }

    /// Linux bbr_ack_aggregation_cwnd: once the pipe is full, the recent maximum of excess
    /// delivered segments, at most 100 ms at the bandwidth estimate; segments.
    fn aggregation_pkts(&self) -> u64 {
        if !self.full_bw_reached {
            return 0;
        }
        let cap = (self.bw() / self.mss as f64 * 0.1) as u64;
        (self.extra_acked[0].max(self.extra_acked[1]) as u64).min(cap)
    }

    /// Linux bbr_update_ack_aggregation: how many more segments were delivered since the
    /// epoch's start than the bandwidth estimate accounts for; the epoch restarts whenever the
    /// ACKs fall behind the estimate.
    fn update_ack_aggregation(&mut self, w: &Window, a: &AckEvent, acked_sacked: u64) {
        let acked = (acked_sacked / self.mss) as u32;
        if acked == 0 || a.rate.interval == Dur::ZERO {
            return;
        }
        if self.round_start {
            self.extra_acked_win_rtts = (self.extra_acked_win_rtts + 1).min(31);
            if self.extra_acked_win_rtts >= EXTRA_ACKED_WIN_RTTS {
                self.extra_acked_win_rtts = 0;
                self.extra_acked_win_idx ^= 1;
                self.extra_acked[self.extra_acked_win_idx as usize] = 0;
            }
        }
        let epoch_s = a.now.since(self.ack_epoch_start).secs_f64();
        let mut expected = (self.bw() / self.mss as f64 * epoch_s).min(u32::MAX as f64) as u32;
        if self.ack_epoch_acked <= expected || self.ack_epoch_acked as u64 + acked as u64 >= ACK_EPOCH_ACKED_RESET {
            self.ack_epoch_acked = 0;
            self.ack_epoch_start = a.now;
            expected = 0;
        }
        self.ack_epoch_acked = (self.ack_epoch_acked + acked).min(0xF_FFFF);
        let extra = (self.ack_epoch_acked - expected).min((w.cwnd / self.mss).min(u32::MAX as u64) as u32);
        let slot = &mut self.extra_acked[self.extra_acked_win_idx as usize];
        *slot = (*slot).max(extra);
    }

    /// Segments sent back to back at the pacing rate (Linux's TSO goal): 1 ms worth, 2..44
    /// segments (1 below 1.2 Mb/s).
    fn send_quantum_pkts(&self) -> u64 {
        send_quantum_pkts(self.pacing_bps, self.mss)
    }

    /// Linux bbr_init_pacing_rate_from_rtt: STARTUP's rate from the window and the smoothed RTT
    /// (whole microseconds, at least 1).
    fn init_pacing_from_rtt(&mut self, cwnd: u64, srtt: Dur) {
        let rtt_s = (srtt.ns() / 1_000).max(1) as f64 * 1e-6;
        self.pacing_bps = self.cfg.high_gain * cwnd as f64 / rtt_s * 8.0 * PACING_MARGIN;
        self.has_seen_rtt = true;
    }

    fn set_pacing(&mut self, gain: f64) {
        let rate = gain * self.bw() * 8.0 * PACING_MARGIN;
        if rate > 0.0 && (self.full_bw_reached || rate > self.pacing_bps) {
            self.pacing_bps = rate;
        }
    }

    fn enter_probe_bw(&mut self, now: Time) {
        self.mode = Mode::ProbeBw;
        self.cwnd_gain = self.cfg.cwnd_gain;
        // a random phase other than 3/4 (Linux: CYCLE_LEN - 1 - rand(7), then advanced)
        let r = self.rng.range_inclusive(0, 6) as usize;
        self.cycle_idx = (CYCLE.len() - 1 - r + 1) % CYCLE.len();
        self.pacing_gain = self.cycle_gain();
        self.cycle_stamp = now;
    }

    /// PROBE_BW's pacing gain: the phase's, or 1 at a long-term rate (Linux `bbr_update_gains`).
    fn cycle_gain(&self) -> f64 {
        match self.lt {
            Some(lt) if lt.use_bw => 1.0,
            _ => CYCLE[self.cycle_idx],
        }
    }

    /// Linux `bbr_lt_bw_sampling`, at an ACK with a valid rate sample (after the round test)
    /// and at a timeout (`losses`, not app-limited, a round start): [`LtSampling::sample`], and
    /// what its outcome does to the mode's gains.
    fn lt_sampling(&mut self, now: Time, losses: bool, app_limited: bool, delivered_total: u64) {
        let Some(mut lt) = self.lt else { return };
        let at = LtMark { stamp_ms: self.delivered_stamp.ns() / 1_000_000, delivered: delivered_total, lost: self.lost_total };
        let outcome = lt.sample(at, self.round_start, self.mode == Mode::ProbeBw, losses, app_limited, self.mss);
        self.lt = Some(lt);
        match outcome {
            LtOutcome::Nothing => {}
            LtOutcome::Policed if self.mode == Mode::ProbeBw => self.pacing_gain = 1.0,
            LtOutcome::Policed => {}
            // probing again, from a random phase (Linux bbr_reset_probe_bw_mode)
            LtOutcome::Expired => self.enter_probe_bw(now),
        }
    }

    fn update_cycle(&mut self, now: Time, a: &AckEvent) {
        if self.mode != Mode::ProbeBw {
            return;
        }
        let full_length = match self.min_rtt {
            Some(rtt) => now.since(self.cycle_stamp) > rtt,
            None => true,
        };
        // Linux bbr_is_next_cycle_phase: what is in flight (with the send quantum about to
        // leave, when probing) against bbr_inflight, the cwnd target at the gain
        let inflight = a.prior_in_flight;
        let next = match self.pacing_gain {
            g if g > 1.0 => full_length && (a.lost_bytes > 0 || inflight + self.send_quantum_pkts() * self.mss >= self.target_cwnd(g)),
            g if g < 1.0 => full_length || inflight <= self.target_cwnd(1.0),
            _ => full_length,
        };
        if next {
            self.cycle_idx = (self.cycle_idx + 1) % CYCLE.len();
            self.cycle_stamp = now;
            self.pacing_gain = self.cycle_gain();
        }
    }

    fn check_full_bw(&mut self, app_limited: bool) {
        if self.full_bw_reached || !self.round_start || app_limited {
            return;
        }
        let bw = self.max_bw();
        if bw >= self.full_bw * self.cfg.full_bw_growth {
            self.full_bw = bw;
            self.full_bw_cnt = 0;
            return;
        }
        self.full_bw_cnt += 1;
        self.full_bw_reached = self.full_bw_cnt >= self.cfg.full_bw_rounds;
    }

    fn check_drain(&mut self, now: Time, a: &AckEvent, acked_sacked: u64) {
        if self.mode == Mode::Startup && self.full_bw_reached {
            self.mode = Mode::Drain;
            self.pacing_gain = 1.0 / self.cfg.high_gain;
            self.cwnd_gain = self.cfg.high_gain;
        }
        // what is in flight once this ACK is counted (Linux tcp_packets_in_flight)
        let inflight = a.prior_in_flight.saturating_sub(acked_sacked + a.lost_bytes);
        if self.mode == Mode::Drain && inflight <= self.target_cwnd(1.0) {
            self.enter_probe_bw(now);
        }
    }

    fn update_min_rtt(&mut self, w: &Window, a: &AckEvent, acked_sacked: u64) {
        let now = a.now;
        let expired = now > self.min_rtt_stamp + self.cfg.min_rtt_window;
        if let Some(rtt) = a.rtt {
            if self.min_rtt.is_none_or(|m| rtt < m) || expired {
                self.min_rtt = Some(rtt);
                self.min_rtt_stamp = now;
            }
        }
        if expired && self.mode != Mode::ProbeRtt && self.min_rtt.is_some() {
            self.mode = Mode::ProbeRtt;
            self.pacing_gain = 1.0;
            self.cwnd_gain = 1.0;
            self.save_cwnd(w);
            self.probe_rtt_done = None;
        }
        if self.mode == Mode::ProbeRtt {
            // Linux: ignore the low rate samples of this mode (the connection is marked
            // app-limited until what is in flight now is delivered)
            self.mark_app_limited = true;
            let inflight_after = a.prior_in_flight.saturating_sub(acked_sacked);
            match self.probe_rtt_done {
                None if inflight_after <= MIN_CWND_PKTS * self.mss => {
                    self.probe_rtt_done = Some(now + self.cfg.probe_rtt_time);
                    self.probe_rtt_round_done = false;
                    self.next_round_delivered = a.delivered_total;
                }
                Some(done) => {
                    if self.round_start {
                        self.probe_rtt_round_done = true;
                    }
                    if self.probe_rtt_round_done && now > done {
                        self.min_rtt_stamp = now;
                        if self.full_bw_reached {
                            self.enter_probe_bw(now);
                        } else {
                            self.mode = Mode::Startup;
                            self.pacing_gain = self.cfg.high_gain;
                            self.cwnd_gain = self.cfg.high_gain;
                        }
                        self.restore_cwnd = true;
                    }
                }
                None => {}
            }
        }
    }

    fn save_cwnd(&mut self, w: &Window) {
        self.prior_cwnd = if self.in_recovery || self.in_loss || self.mode == Mode::ProbeRtt { self.prior_cwnd.max(w.cwnd) } else { w.cwnd };
    }
}

impl CongestionControl for Bbr {
    const FULL_CONTROL: bool = true;
    const PACED: bool = true;
    const RATE_SAMPLE: bool = true;
    const TIMEOUT_LOSSES: bool = true;
    const STATE: &'static [Field] = &[
        Field { name: "mode", unit: FieldUnit::Code, doc: "0 STARTUP, 1 DRAIN, 2 PROBE_BW, 3 PROBE_RTT" },
        Field { name: "btl_bw_bps", unit: FieldUnit::Bps, doc: "the bottleneck bandwidth estimate (largest delivery rate of the last 10 rounds, or the long-term rate while lt_use_bw)" },
        Field { name: "min_rtt_s", unit: FieldUnit::Seconds, doc: "the round-trip propagation time estimate (least RTT of the last 10 s)" },
        Field { name: "pacing_gain", unit: FieldUnit::Ratio, doc: "the pacing gain in use" },
        Field { name: "cwnd_gain", unit: FieldUnit::Ratio, doc: "the cwnd gain in use" },
        Field { name: "round", unit: FieldUnit::Count, doc: "round trips counted" },
        Field { name: "full_bw_reached", unit: FieldUnit::Flag, doc: "1 once STARTUP found the pipe full" },
        Field { name: "lt_use_bw", unit: FieldUnit::Flag, doc: "1 while the long-term rate is the estimate (a policer estimated; Linux lt_use_bw)" },
    ];

    fn take_app_limited(&mut self) -> bool {
        std::mem::take(&mut self.mark_app_limited)
    }

    fn on_ack(&mut self, w: &mut Window, a: &AckEvent) {
        let acked_sacked = a.delivered_total.saturating_sub(self.delivered_seen);
        self.delivered_seen = self.delivered_seen.max(a.delivered_total);
        if acked_sacked > 0 {
            self.delivered_stamp = a.now;
        }
        self.lost_total += a.lost_bytes;
        // Linux bbr_update_bw
        self.round_start = false;
        let rs = a.rate;
        if rs.delivered > 0 && rs.interval > Dur::ZERO {
            if rs.prior_delivered >= self.next_round_delivered {
                self.next_round_delivered = a.delivered_total;
                self.round += 1;
                self.round_start = true;
                self.packet_conservation = false;
                self.bw_filter.advance(self.round);
            }
            self.lt_sampling(a.now, a.lost_bytes > 0, rs.is_app_limited, a.delivered_total);
            let bw = rs.delivered as f64 / rs.interval.secs_f64();
            if !rs.is_app_limited || bw >= self.max_bw() {
                self.add_bw_sample(bw);
            }
        }
        self.update_ack_aggregation(w, a, acked_sacked);
        self.update_cycle(a.now, a);
        self.check_full_bw(rs.is_app_limited);
        self.check_drain(a.now, a, acked_sacked);
        self.update_min_rtt(w, a, acked_sacked);
        if !self.has_seen_rtt && a.rtt.is_some() {
            self.init_pacing_from_rtt(w.cwnd, a.srtt);
        }
        self.set_pacing(self.pacing_gain);

        // Linux bbr_set_cwnd
        let mss = self.mss;
        let acked = acked_sacked;
        let mut cwnd = w.cwnd;
        if acked > 0 {
            cwnd = cwnd.saturating_sub(a.lost_bytes).max(mss);
            // Linux bbr_set_cwnd_to_recover_or_restore, with the state the ACK found (Linux reads
            // the state after the ACK's own transitions: the ACK that ends a timeout's Loss state
            // restores there, here at the next one)
            let (in_recovery, in_loss) = (a.ca_state == CaState::Recovery, a.ca_state == CaState::Loss);
            if in_recovery && !self.in_recovery {
                self.packet_conservation = true;
                self.next_round_delivered = a.delivered_total;
                cwnd = a.prior_in_flight.saturating_sub(acked) + acked;
            } else if !in_recovery && !in_loss && (self.in_recovery || self.in_loss) {
                cwnd = cwnd.max(self.prior_cwnd);
                self.packet_conservation = false;
            }
            (self.in_recovery, self.in_loss) = (in_recovery, in_loss && self.loss_restore);
            if std::mem::take(&mut self.restore_cwnd) {
                cwnd = cwnd.max(self.prior_cwnd);
            }
            if self.packet_conservation {
                cwnd = cwnd.max(a.prior_in_flight.saturating_sub(acked) + acked);
            } else {
                // Linux bbr_set_cwnd: the BDP at the cwnd gain plus the ACK-aggregation allowance
                let target = self.budgeted(self.bw(), self.cwnd_gain, self.aggregation_pkts());
                if self.full_bw_reached {
                    cwnd = (cwnd + acked).min(target.max(MIN_CWND_PKTS * mss));
                } else if cwnd < target || a.delivered_total < 10 * mss {
                    cwnd += acked;
                }
                cwnd = cwnd.max(MIN_CWND_PKTS * mss);
            }
        }
        if self.mode == Mode::ProbeRtt {
            cwnd = cwnd.min(MIN_CWND_PKTS * mss);
        }
        w.cwnd = cwnd;
    }

    fn on_established(&mut self, w: &Window, srtt: Option<Dur>) {
        if let Some(srtt) = srtt {
            self.init_pacing_from_rtt(w.cwnd, srtt);
        }
    }

    fn on_congestion(&mut self, w: &mut Window, e: &CongestionEvent) -> u64 {
        if e.new_episode {
            self.save_cwnd(w);
        }
        if e.kind == CongestionKind::Timeout {
            // the round ends; the pipe's fullness is measured again; what the timeout marks
            // lost is a loss for the long-term sampling (Linux bbr_set_state)
            self.lost_total += e.lost_bytes;
            self.full_bw = 0.0;
            self.round_start = true;
            self.lt_sampling(e.now, true, false, self.delivered_seen);
            // the state is Loss now, not Recovery: the cwnd from before is restored when the
            // ACKs leave it, not at the next ACK (Linux prev_ca_state = TCP_CA_Loss)
            (self.in_recovery, self.in_loss) = (false, self.loss_restore);
            w.cwnd = self.mss;
        }
        w.ssthresh
    }

    fn on_marked_lost(&mut self, lost_bytes: u64) {
        self.lost_total += lost_bytes;
    }

    fn on_recovery_exit(&mut self, w: &mut Window, _now: Time) {
        w.cwnd = w.cwnd.max(self.prior_cwnd);
        self.in_recovery = false;
        self.packet_conservation = false;
    }

    fn pacing_rate(&self, _w: &Window) -> Option<Rate> {
        Some(Rate::from_bps(self.pacing_bps.max(1.0) as u64))
    }

    fn state(&self, _w: &Window, out: &mut [f64]) {
        let mode = match self.mode {
            Mode::Startup => 0.0,
            Mode::Drain => 1.0,
            Mode::ProbeBw => 2.0,
            Mode::ProbeRtt => 3.0,
        };
        let rtt = self.min_rtt.map_or(f64::NAN, |d| d.secs_f64());
        out.copy_from_slice(&[mode, self.bw() * 8.0, rtt, self.pacing_gain, self.cwnd_gain, self.round as f64, self.full_bw_reached as u8 as f64, self.lt.is_some_and(|lt| lt.use_bw) as u8 as f64]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::testing::ack;
    use crate::cc::RateSample;

    const MSS: u64 = 1000;

    fn bbr() -> Bbr {
        Bbr::new(&BbrConfig::default(), &CcEnv::linux(MSS as u32, 10))
    }

    /// An ACK at `t_ms` delivering one segment, with a rate sample of `bw` bytes/s that starts a
    /// new round when `new_round`.
    fn sample(b: &Bbr, t_ms: u64, bw: f64, new_round: bool, in_flight: u64) -> AckEvent {
        let delivered_total = b.delivered_seen + MSS;
        let prior = if new_round { b.next_round_delivered } else { b.next_round_delivered.saturating_sub(1) };
        AckEvent {
            now: Time::from_ms(t_ms),
            rtt: None,
            prior_in_flight: in_flight,
            delivered_total,
            rate: RateSample { delivered: (bw * 0.01) as u64, interval: Dur::from_ms(10), is_app_limited: false, prior_delivered: prior },
            ..ack(MSS)
        }
    }

    /// STARTUP's pacing rate: 2.885 x cwnd / SRTT x 0.99, from the handshake's RTT when the
    /// connection opens (Linux `bbr_init` after the handshake); without one, from a nominal 1
    /// ms until the first ACK with an RTT sample, then from its SRTT and the cwnd before it.
    #[test]
    fn startup_pacing_starts_from_the_rtt() {
        let mut b = bbr();
        let nominal = 2.885 * 10.0 * MSS as f64 / 1e-3 * 8.0 * PACING_MARGIN;
        assert!((b.pacing_bps - nominal).abs() < 1e-3);
        let w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        b.on_established(&w, Some(Dur::from_ms(40)));
        let want = 2.885 * 10.0 * MSS as f64 / 0.040 * 8.0 * PACING_MARGIN;
        assert!((b.pacing_bps - want).abs() < 1e-3, "{} vs {want}", b.pacing_bps);
        // no handshake sample: the first ACK with an RTT sample sets it (16 segments then)
        let mut b = bbr();
        b.on_established(&w, None);
        let mut w = Window { cwnd: 16 * MSS, ..w };
        let mut a = sample(&b, 50, 1000.0, true, 10 * MSS);
        b.on_ack(&mut w, &a);
        assert!((b.pacing_bps - nominal).abs() < 1e-3, "no RTT sample yet");
        a = sample(&b, 60, 1000.0, true, 10 * MSS);
        a.rtt = Some(Dur::from_ms(50));
        a.srtt = Dur::from_ms(50);
        let cwnd = w.cwnd; // 17 segments: the first ACK grew it (fewer than 10 delivered)
        b.on_ack(&mut w, &a);
        let want = 2.885 * cwnd as f64 / 0.050 * 8.0 * PACING_MARGIN;
        assert!((b.pacing_bps - want).abs() < 1e-3, "{} vs {want}", b.pacing_bps);
    }

    /// The bandwidth is the largest sample of the last 10 rounds: a 100 kB/s round, then
    /// rounds of 50 kB/s: 100 until the 10th round after it, 50 from then on.
    #[test]
    fn max_filter_spans_ten_rounds() {
        let mut b = bbr();
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        b.on_ack(&mut w, &sample(&b, 1, 100_000.0, true, 0));
        assert_eq!((b.round, b.max_bw()), (1, 100_000.0));
        for r in 2..=12u64 {
            b.on_ack(&mut w, &sample(&b, r, 50_000.0, true, 0));
            let want = if r <= 10 { 100_000.0 } else { 50_000.0 };
            assert_eq!((b.round, b.max_bw()), (r, want), "round {r}");
        }
    }

    /// STARTUP ends after 3 rounds in a row without 25 % growth, then DRAIN (gain 1/2.885)
    /// until in flight is down to the BDP, then PROBE_BW.
    #[test]
    fn startup_exits_after_three_rounds_without_growth() {
        let mut b = bbr();
        b.min_rtt = Some(Dur::from_ms(100));
        let mut w = Window { cwnd: 10 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        let mut t = 1;
        for bw in [100_000.0, 200_000.0, 400_000.0, 450_000.0, 480_000.0, 490_000.0] {
            assert_eq!(b.mode, Mode::Startup, "bw {bw}");
            b.on_ack(&mut w, &sample(&b, t, bw, true, 400 * MSS));
            t += 1;
        }
        // 400k grew; 450k, 480k, 490k are under 1.25 x 400k: full after the third
        assert!(b.full_bw_reached);
        assert_eq!(b.mode, Mode::Drain);
        assert!((b.pacing_gain - 1.0 / 2.885).abs() < 1e-12);
        // in flight at the BDP (490 kB/s x 100 ms = 49 kB, plus the quantum): PROBE_BW
        b.on_ack(&mut w, &sample(&b, t, 490_000.0, false, 40 * MSS));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_ne!(b.cycle_idx, 1, "never starts in the 3/4 phase");
    }

    /// PROBE_BW's pacing gains follow 5/4, 3/4, 1 x 6, each phase one min RTT (the 5/4 phase
    /// also needs in flight, with the send quantum about to leave, at the cwnd target for 5/4:
    /// Linux `bbr_inflight`, 12.5 segments rounded up to 13, + 3 quanta of 2, even, + 2 = 22; the
    /// 3/4 phase here lasts its full min RTT, in flight staying above the target for 1, 16).
    #[test]
    fn pacing_gain_cycle() {
        let mut b = bbr();
        b.min_rtt = Some(Dur::from_ms(10));
        b.min_rtt_stamp = Time::ZERO;
        b.full_bw_reached = true;
        b.add_bw_sample(1_000_000.0); // BDP 10 kB
        b.mode = Mode::ProbeBw;
        b.cycle_idx = 0;
        b.pacing_gain = CYCLE[0];
        b.pacing_bps = 1.25 * 8e6 * PACING_MARGIN;
        b.cwnd_gain = 2.0;
        let mut w = Window { cwnd: 40 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        assert_eq!((b.send_quantum_pkts(), b.target_cwnd(1.25)), (2, 22 * MSS));
        // a min RTT passed, but 19 segments in flight + 2 about to leave are short of 22
        b.on_ack(&mut w, &sample(&b, 11, 1_000_000.0, false, 19 * MSS));
        assert_eq!(b.pacing_gain, 1.25);
        let mut gains = vec![b.pacing_gain];
        for k in 1..=9u64 {
            // 11 ms later, 20 segments in flight: the 5/4 phase may end, the 3/4 one does by time
            b.on_ack(&mut w, &sample(&b, 11 * k + 1, 1_000_000.0, false, 20 * MSS));
            gains.push(b.pacing_gain);
        }
        assert_eq!(gains, vec![1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25, 0.75]);
        assert!((b.pacing_bps - 0.75 * 8e6 * 0.99).abs() < 1.0, "pacing {}", b.pacing_bps);
    }

    /// ACK aggregation (Linux bbr_update_ack_aggregation): at 1,000 segments/s, 5 segments
    /// delivered at 0, 1 and 2 ms are 5, 9 and 13 beyond what the estimate accounts for (0, 1,
    /// 2); an ACK at 50 ms (50 expected, 16 delivered) starts a new epoch; the allowance is the
    /// maximum, 13, and the cwnd target grows by it. Segments SACKed before that a cumulative
    /// ACK passes again do not count.
    #[test]
    fn ack_aggregation_allowance() {
        let mut b = bbr();
        b.min_rtt = Some(Dur::from_ms(40));
        b.full_bw_reached = true;
        b.add_bw_sample(1_000_000.0); // 1,000 segments of 1,000 B per second
        b.enter_probe_bw(Time::ZERO);
        b.cycle_idx = 2;
        b.pacing_gain = 1.0;
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        for (us, segs, want) in [(0u64, 5u64, 5u32), (1_000, 5, 9), (2_000, 5, 13), (50_000, 1, 13)] {
            let mut a = sample(&b, 0, 1_000_000.0, false, 50 * MSS);
            a.now = Time::from_ns(us * 1_000);
            a.delivered_total = b.delivered_seen + segs * MSS;
            b.on_ack(&mut w, &a);
            assert_eq!(b.extra_acked[b.extra_acked_win_idx as usize], want, "at {us} us");
        }
        assert_eq!((b.ack_epoch_acked, b.ack_epoch_start), (1, Time::from_ns(50_000_000)));
        assert_eq!(b.aggregation_pkts(), 13);
        // 2 x 40 segments + 3 quanta of 2 = 86; + 13 = 99, rounded up to even
        assert_eq!((b.budgeted(b.bw(), 2.0, 0), b.budgeted(b.bw(), 2.0, b.aggregation_pkts())), (86 * MSS, 100 * MSS));
        // a cumulative ACK over 20 segments SACKed before delivers nothing new
        let mut a = sample(&b, 0, 1_000_000.0, false, 50 * MSS);
        a.now = Time::from_ns(50_500_000);
        a.acked_bytes = 20 * MSS;
        a.delivered_total = b.delivered_seen;
        let cwnd = w.cwnd;
        b.on_ack(&mut w, &a);
        assert_eq!(w.cwnd, cwnd, "nothing newly delivered, no growth");
    }

    /// A flow in PROBE_BW at 1 MB/s, 10 ms min RTT, and an ACK a millisecond.
    fn probing() -> (Bbr, Window) {
        let mut b = bbr();
        b.min_rtt = Some(Dur::from_ms(10));
        b.full_bw_reached = true;
        b.add_bw_sample(1_000_000.0);
        b.enter_probe_bw(Time::ZERO);
        (b, Window { cwnd: 100 * MSS, ssthresh: u64::MAX, mss: MSS as u32 })
    }

    /// ACKs at 1..=`to` ms after `from` ms, each delivering `per_ack` bytes, a round every 10th,
    /// one segment marked lost every 4th (a loss ratio of 1/4 of what is delivered, above Linux's
    /// 50/256).
    fn lossy(b: &mut Bbr, w: &mut Window, from: u64, to: u64, per_ack: u64) {
        for k in from + 1..=to {
            let mut a = sample(b, k, 1_000_000.0, k % 10 == 0, 50 * MSS);
            a.delivered_total = b.delivered_seen + per_ack;
            a.lost_bytes = if k % 4 == 0 { MSS } else { 0 };
            b.on_ack(w, &a);
        }
    }

    /// Linux v1's long-term sampling (`bbr_lt_bw_sampling`): the interval opens at the first
    /// loss (4 ms), closes at the first loss after 4 rounds (40 ms: 9 lost of 36 delivered, 1
    /// MB/s over 36 ms); the next (40 to 80 ms: 10 of 40, 1.1 MB/s) is within an eighth of it,
    /// so their average, 1.05 MB/s, becomes the estimate, paced at gain 1 and sizing cwnd,
    /// for 48 rounds of PROBE_BW, after which the gains cycle again from a random phase.
    #[test]
    fn long_term_rate_after_two_lossy_intervals_alike() {
        let (mut b, mut w) = probing();
        lossy(&mut b, &mut w, 0, 40, MSS);
        let lt = b.lt.unwrap();
        assert!(!lt.use_bw && lt.sampling);
        assert_eq!((lt.bw, lt.last_stamp_ms, lt.last_delivered, lt.last_lost), (1_000_000.0, 40, 40 * MSS, 10 * MSS));
        lossy(&mut b, &mut w, 40, 80, 1_100);
        let lt = b.lt.unwrap();
        assert!(lt.use_bw);
        assert!((lt.bw - 1_050_000.0).abs() < 1e-6, "{}", lt.bw);
        assert_eq!((b.bw(), b.max_bw()), (lt.bw, 1_000_000.0));
        assert_eq!(b.pacing_gain, 1.0);
        let mut gains = vec![];
        let mut t = 80;
        for r in 1..=48u64 {
            for _ in 0..10 {
                t += 1;
                let a = sample(&b, t, 1_000_000.0, t % 10 == 0, 50 * MSS);
                b.on_ack(&mut w, &a);
                gains.push(b.pacing_gain);
            }
            assert_eq!(b.lt.unwrap().use_bw, r < 48, "round {r}");
        }
        assert!(gains[..gains.len() - 1].iter().all(|&g| g == 1.0), "gain 1 at the long-term rate");
        assert!((b.pacing_bps - 1_000_000.0 * 8.0 * PACING_MARGIN * b.pacing_gain).abs() < 1e-3, "the filter's rate again");
        assert_eq!(b.pacing_gain, CYCLE[b.cycle_idx]);
        // while it held, cwnd was sized by 1.05 MB/s: 2 x 10.5 segments, 21, + 3 quanta of 2
        let mut c = probing();
        lossy(&mut c.0, &mut c.1, 0, 40, MSS);
        lossy(&mut c.0, &mut c.1, 40, 80, 1_100);
        assert_eq!(c.0.budgeted(c.0.bw(), 2.0, 0), (21 + 6 + 1) * MSS);
    }

    /// Intervals that do not count: rates more than an eighth apart start over from the newer
    /// one; too little loss waits; an app-limited sample or more than 16 rounds abandons the
    /// interval; the ns3 profile (ns-3's TcpBbr) and `lt_sampling = false` have none.
    #[test]
    fn long_term_intervals_that_do_not_count() {
        let (mut b, mut w) = probing();
        lossy(&mut b, &mut w, 0, 40, MSS);
        lossy(&mut b, &mut w, 40, 80, 1_200); // 1.2 MB/s: 20 % apart
        let lt = b.lt.unwrap();
        assert!(!lt.use_bw);
        assert_eq!((lt.bw, lt.last_stamp_ms), (1_200_000.0, 80));
        // one loss in 40 ACKs: 1/40 is below 50/256; after 16 rounds the interval is abandoned
        let (mut b, mut w) = probing();
        for k in 1..=200u64 {
            let mut a = sample(&b, k, 1_000_000.0, k % 10 == 0, 50 * MSS);
            a.lost_bytes = if k % 40 == 1 { MSS } else { 0 };
            b.on_ack(&mut w, &a);
            let lt = b.lt.unwrap();
            assert!(!lt.use_bw && lt.bw == 0.0, "at {k} ms");
            // the interval opens at 1 ms, which starts a round (the first ACK), and its 17th
            // round, at 160 ms, abandons it; the next loss, at 161 ms, opens another
            assert_eq!(lt.sampling, k != 160, "at {k} ms");
        }
        // an app-limited sample ends the interval
        let (mut b, mut w) = probing();
        lossy(&mut b, &mut w, 0, 20, MSS);
        let mut a = sample(&b, 21, 1_000_000.0, false, 50 * MSS);
        a.rate.is_app_limited = true;
        b.on_ack(&mut w, &a);
        assert!(!b.lt.unwrap().sampling);
        // a timeout is a loss and a round's end (Linux bbr_set_state): it opens an interval
        let (mut b, mut w) = probing();
        let to = CongestionEvent { now: Time::from_ms(5), kind: CongestionKind::Timeout, flight_size: 50 * MSS, new_episode: true, lost_bytes: 50 * MSS };
        b.on_congestion(&mut w, &to);
        assert!(b.lt.unwrap().sampling);
        assert_eq!(b.lost_total, 50 * MSS);
        // none in ns-3's BBR or when turned off
        let ns3 = CcEnv { profile: Profile::Ns3, ..CcEnv::linux(MSS as u32, 10) };
        assert!(Bbr::new(&BbrConfig::default(), &ns3).lt.is_none());
        assert!(Bbr::new(&BbrConfig { lt_sampling: Some(false), ..Default::default() }, &CcEnv::linux(MSS as u32, 10)).lt.is_none());
        assert!(Bbr::new(&BbrConfig { lt_sampling: Some(true), ..Default::default() }, &ns3).lt.is_some());
    }

    /// A timeout (Linux `bbr_set_state`, `bbr_set_cwnd_to_recover_or_restore`): cwnd 1 segment,
    /// the cwnd from before saved; ACKs in the Loss state grow it by what they deliver (never
    /// restoring it, even when the timeout interrupted a fast recovery), and the first ACK
    /// outside Loss and Recovery restores it. The cwnd saved is the one before the recovery the
    /// timeout interrupted (a recovery's reduced cwnd is not "good enough").
    #[test]
    fn a_timeout_restores_the_cwnd_when_loss_ends() {
        let (mut b, mut w) = probing();
        w.cwnd = 20 * MSS; // under the cwnd target (28 segments), which caps any restore
        let loss = CongestionEvent { now: Time::from_ms(1), kind: CongestionKind::Loss, flight_size: 20 * MSS, new_episode: true, lost_bytes: 0 };
        b.on_congestion(&mut w, &loss);
        assert_eq!(b.prior_cwnd, 20 * MSS);
        let mut a = sample(&b, 2, 1_000_000.0, false, 20 * MSS);
        a.ca_state = CaState::Recovery;
        b.on_ack(&mut w, &a);
        assert!(b.in_recovery && b.packet_conservation);
        w.cwnd = 12 * MSS;
        let to = CongestionEvent { now: Time::from_ms(3), kind: CongestionKind::Timeout, flight_size: 12 * MSS, new_episode: false, lost_bytes: 12 * MSS };
        b.on_congestion(&mut w, &to);
        assert_eq!((w.cwnd, b.prior_cwnd, b.in_loss, b.in_recovery), (MSS, 20 * MSS, true, false));
        for t in 4..8 {
            let mut a = sample(&b, t, 1_000_000.0, false, 2 * MSS);
            a.ca_state = CaState::Loss;
            b.on_ack(&mut w, &a);
            assert!(w.cwnd < 10 * MSS, "not restored in Loss: {} at {t} ms", w.cwnd / MSS);
        }
        b.on_ack(&mut w, &sample(&b, 9, 1_000_000.0, false, 4 * MSS));
        assert!(!b.in_loss);
        assert_eq!(w.cwnd, 21 * MSS, "restored when the ACKs leave Loss (20), and grown by the segment delivered");
        // ns-3's TcpBbr restores at CA_EVENT_COMPLETE_CWR only, which the end of Loss does not
        // raise: the ns3 profile grows on from where the Loss state left it
        let ns3 = CcEnv { profile: Profile::Ns3, ..CcEnv::linux(MSS as u32, 10) };
        let mut b = Bbr::new(&BbrConfig::default(), &ns3);
        (b.min_rtt, b.full_bw_reached) = (Some(Dur::from_ms(10)), true);
        b.add_bw_sample(1_000_000.0);
        b.enter_probe_bw(Time::ZERO);
        let mut w = Window { cwnd: 20 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        b.on_congestion(&mut w, &CongestionEvent { now: Time::from_ms(3), kind: CongestionKind::Timeout, flight_size: 20 * MSS, new_episode: true, lost_bytes: 20 * MSS });
        let mut a = sample(&b, 4, 1_000_000.0, false, 2 * MSS);
        a.ca_state = CaState::Loss;
        b.on_ack(&mut w, &a);
        b.on_ack(&mut w, &sample(&b, 5, 1_000_000.0, false, 4 * MSS));
        assert_eq!(w.cwnd, 5 * MSS, "ns3: the floor of 4 packets + 1 delivered, no restore");
    }

    /// 10 s without a lower RTT: PROBE_RTT, cwnd 4 packets; once in flight is down to 4, 200
    /// ms and a round later it returns to PROBE_BW with the cwnd from before and a fresh min
    /// RTT timestamp.
    #[test]
    fn probe_rtt_after_ten_seconds() {
        let mut b = bbr();
        b.min_rtt = Some(Dur::from_ms(40));
        b.full_bw_reached = true;
        b.add_bw_sample(1_000_000.0);
        b.enter_probe_bw(Time::ZERO);
        let mut w = Window { cwnd: 100 * MSS, ssthresh: u64::MAX, mss: MSS as u32 };
        let mut a = sample(&b, 9_999, 1_000_000.0, false, 80 * MSS);
        a.rtt = Some(Dur::from_ms(45));
        b.on_ack(&mut w, &a);
        assert_eq!(b.mode, Mode::ProbeBw, "under 10 s");
        let before = w.cwnd; // 2 x BDP + quantum budget
        let mut a = sample(&b, 10_001, 1_000_000.0, false, 80 * MSS);
        a.rtt = Some(Dur::from_ms(45));
        b.on_ack(&mut w, &a);
        assert_eq!(b.mode, Mode::ProbeRtt);
        assert_eq!(b.min_rtt, Some(Dur::from_ms(45)), "the expired minimum is replaced");
        assert_eq!(w.cwnd, 4 * MSS);
        b.on_ack(&mut w, &sample(&b, 10_050, 1_000_000.0, false, 4 * MSS));
        assert_eq!(b.probe_rtt_done, Some(Time::from_ms(10_250)));
        b.on_ack(&mut w, &sample(&b, 10_200, 1_000_000.0, true, 4 * MSS));
        assert_eq!(b.mode, Mode::ProbeRtt, "the round is done, 200 ms are not");
        b.on_ack(&mut w, &sample(&b, 10_260, 1_000_000.0, false, 4 * MSS));
        assert_eq!(b.mode, Mode::ProbeBw);
        assert_eq!(b.min_rtt_stamp, Time::from_ms(10_260));
        assert!(w.cwnd >= before, "cwnd restored: {} < {}", w.cwnd / MSS, before / MSS);
    }
}
