//! Leaving slow start before the first loss: HyStart (Linux CUBIC's default) and HyStart++
//! (RFC 9406).
//!
//! **HyStart** (Ha and Rhee, "Taming the elephants", Computer Networks 2011; Linux
//! `net/ipv4/tcp_cubic.c` `hystart_update`, read for behaviour). A round starts when the ACKs
//! pass the snd_nxt of the previous round's start. Once cwnd is at least `low_window` segments,
//! each RTT sample is checked by two detectors; either one ends slow start (ssthresh = cwnd):
//! * ACK train: ACKs arriving at most `ack_delta` (2 ms) apart continue a train; when the train
//!   has lasted longer than (delay_min + ack_delay) / 2 since the round began, the window is
//!   about one path BDP. ack_delay = min(1 ms, 4 x 64 KiB / pacing rate), the time Linux allows
//!   for a GSO burst, with Linux's default pacing rate (2 cwnd / SRTT in slow start).
//! * Delay increase: the smallest RTT of the round's first `MIN_SAMPLES` (8) samples exceeds
//!   delay_min + clamp(delay_min / 8, 4 ms, 16 ms).
//!
//! `delay_min` is the smallest RTT the algorithm has seen (CUBIC keeps it and uses it in its
//! cubic function too); samples in the first second after a congestion-avoidance epoch starts
//! are ignored, and a timeout resets it, as Linux does.
//!
//! **ns-3's HyStart** (`TcpCubic::HystartUpdate`, ns-3 3.44, as its code reads): the ACK train
//! must last longer than the whole delay_min; the delay test compares the minimum of the round's
//! first 8 samples (not updated afterwards) with delay_min + clamp(delay_min, 4 ms, 1000 ms),
//! i.e. about twice delay_min; and its samples are the smoothed RTT (CUBIC passes SRTT).
//!
//! **HyStart++** (RFC 9406, section 4): per round, the minimum RTT of its first N_RTT_SAMPLE (8)
//! samples is compared with the previous round's; an increase of at least clamp(last / 8, 4 ms,
//! 16 ms) moves to Conservative Slow Start (CSS), where cwnd grows by a quarter of the usual
//! amount; a round whose minimum falls below the CSS baseline returns to slow start; after
//! CSS_ROUNDS (5) rounds in CSS, ssthresh = cwnd. L = 8 segments per ACK (no pacing).

use crate::units::{Dur, Opt, Time};

crate::choice! {
    /// How slow start ends before the first loss.
    pub enum HystartMode {
        /// Linux's HyStart: ACK-train and delay-increase detection (tcp_cubic.c).
        Linux = "linux",
        /// ns-3 3.44's TcpCubic HyStart: the same detectors with its thresholds (see the module
        /// docs).
        Ns3 = "ns3",
        /// RFC 9406 HyStart++: delay increase per round, then Conservative Slow Start.
        HystartPp = "hystart++",
        /// No early exit: slow start ends at the first loss.
        Off = "off",
    }
}

/// Samples per round before the delay test (Linux HYSTART_MIN_SAMPLES, RFC 9406 N_RTT_SAMPLE).
pub const MIN_SAMPLES: u32 = 8;
/// clamp(delay / 8, 4 ms, 16 ms): the delay-increase threshold of both variants.
pub fn delay_thresh(delay_min: Dur) -> Dur {
    Dur::from_ns(delay_min.ns() / 8).clamp(Dur::from_ms(4), Dur::from_ms(16))
}
/// RFC 9406 CSS_GROWTH_DIVISOR and CSS_ROUNDS.
pub const CSS_GROWTH_DIVISOR: u64 = 4;
pub const CSS_ROUNDS: u32 = 5;

/// What an ACK means for slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Keep growing at the normal slow-start rate.
    SlowStart,
    /// HyStart++ conservative slow start: grow by 1/CSS_GROWTH_DIVISOR of the usual amount.
    Conservative,
    /// Leave slow start now: ssthresh = cwnd.
    Exit,
}

/// The per-ACK input of the detectors.
#[derive(Clone, Copy, Debug)]
pub struct Sample {
    pub now: Time,
    /// The RTT sample of this ACK, if any.
    pub rtt: Option<Dur>,
    /// Bytes cumulatively acknowledged (snd_una) and sent (snd_nxt) after this ACK.
    pub snd_una: u64,
    pub snd_nxt: u64,
    /// cwnd in segments.
    pub cwnd_segs: u64,
    /// Smoothed RTT (for Linux's pacing-rate estimate).
    pub srtt: Dur,
    pub mss: u32,
}

#[derive(Clone, Copy, Debug)]
pub struct Hystart {
    mode: HystartMode,
    low_window: u64,
    ack_delta: Dur,
    /// Slow start was ended by a detector (Linux `found`); reset by a timeout.
    pub found: bool,
    /// The round ends when snd_una passes this (Linux `end_seq`, RFC 9406 windowEnd).
    end_seq: Opt<u64>,
    round_start: Time,
    last_ack: Time,
    /// Smallest RTT of the current round (Linux `curr_rtt`, RFC currentRoundMinRTT).
    curr_rtt: Dur,
    samples: u32,
    /// HyStart++: lastRoundMinRTT, cssBaselineMinRtt, rounds spent in CSS.
    last_round_min: Dur,
    css_baseline: Opt<Dur>,
    css_rounds: u32,
}

impl Hystart {
    pub fn new(mode: HystartMode, low_window: u32, ack_delta: Dur) -> Hystart {
        Hystart {
            mode,
            low_window: low_window as u64,
            ack_delta,
            found: false,
            end_seq: Opt::NONE,
            round_start: Time::ZERO,
            last_ack: Time::ZERO,
            curr_rtt: Dur::MAX,
            samples: 0,
            last_round_min: Dur::MAX,
            css_baseline: Opt::NONE,
            css_rounds: 0,
        }
    }

    pub fn mode(&self) -> HystartMode {
        self.mode
    }

    /// In conservative slow start (HyStart++).
    pub fn in_css(&self) -> bool {
        self.css_baseline.is_some()
    }

    /// A timeout: start over (Linux `bictcp_reset` clears `found` and `cubictcp_state` resets the
    /// round; RFC 9406 section 4.2: after a timeout, slow start uses HyStart++ again).
    pub fn reset(&mut self) {
        *self = Hystart::new(self.mode, self.low_window as u32, self.ack_delta);
    }

    fn new_round(&mut self, s: &Sample) {
        self.round_start = s.now;
        self.last_ack = s.now;
        self.end_seq = Opt::some(s.snd_nxt);
        if self.mode == HystartMode::HystartPp {
            self.last_round_min = self.curr_rtt;
            if self.in_css() {
                self.css_rounds += 1;
            }
        }
        self.curr_rtt = Dur::MAX;
        self.samples = 0;
    }

    /// Linux: the detectors run on the RTT sample (`cubictcp_acked`, before the window grows);
    /// then a new round starts if the ACK passed `end_seq` (`cubictcp_cong_avoid`).
    /// `delay_min`: CUBIC's smallest RTT, if known. Returns what slow start should do.
    pub fn on_ack(&mut self, s: &Sample, delay_min: Option<Dur>) -> Verdict {
        match self.mode {
            HystartMode::Off => Verdict::SlowStart,
            HystartMode::Linux | HystartMode::Ns3 => self.linux(s, delay_min),
            HystartMode::HystartPp => self.rfc9406(s),
        }
    }

    fn linux(&mut self, s: &Sample, delay_min: Option<Dur>) -> Verdict {
        if self.end_seq.is_none() {
            self.new_round(s); // bictcp_hystart_reset at init
        }
        if !self.found && s.cwnd_segs >= self.low_window {
            if let (Some(rtt), Some(min)) = (s.rtt, delay_min) {
                let ns3 = self.mode == HystartMode::Ns3;
                // ACK train.
                if s.now.since(self.last_ack) <= self.ack_delta {
                    self.last_ack = s.now;
                    let threshold = if ns3 { min } else { Dur::from_ns((min + self.ack_delay(s)).ns() / 2) };
                    if s.now.since(self.round_start) > threshold {
                        self.found = true;
                    }
                }
                // Delay increase.
                if self.samples < MIN_SAMPLES {
                    self.curr_rtt = self.curr_rtt.min(rtt);
                    self.samples += 1;
                } else {
                    if !ns3 {
                        self.curr_rtt = self.curr_rtt.min(rtt);
                    }
                    let thresh = if ns3 { min.clamp(Dur::from_ms(4), Dur::from_secs(1)) } else { delay_thresh(min) };
                    if self.curr_rtt > min + thresh {
                        self.found = true;
                    }
                }
                if self.found {
                    return Verdict::Exit;
                }
            }
        }
        if self.end_seq.get().is_some_and(|e| s.snd_una > e) {
            self.new_round(s);
        }
        Verdict::SlowStart
    }

    /// Linux `hystart_ack_delay`: min(1 ms, 4 x GSO max size / pacing rate), pacing rate = 2 x
    /// cwnd / SRTT in slow start (`tcp_update_pacing_rate`, sysctl_tcp_pacing_ss_ratio 200).
    fn ack_delay(&self, s: &Sample) -> Dur {
        let cwnd_bytes = s.cwnd_segs as u128 * s.mss as u128;
        let srtt = s.srtt.ns().max(1) as u128;
        // 4 * 65536 bytes / (2 cwnd / srtt) = 131072 * srtt / cwnd
        let t = (131_072u128 * srtt / cwnd_bytes.max(1)).min(u64::MAX as u128) as u64;
        Dur::from_ns(t).min(Dur::from_ms(1))
    }

    fn rfc9406(&mut self, s: &Sample) -> Verdict {
        if self.end_seq.is_none() {
            self.new_round(s);
        } else if self.end_seq.get().is_some_and(|e| s.snd_una >= e) {
            // RFC 9406 section 4.2: the round ends when the ACK reaches windowEnd.
            self.new_round(s);
            if self.in_css() && self.css_rounds >= CSS_ROUNDS {
                return Verdict::Exit;
            }
        }
        if let Some(rtt) = s.rtt {
            self.curr_rtt = self.curr_rtt.min(rtt);
            self.samples += 1;
        }
        let enough = self.samples >= MIN_SAMPLES && self.curr_rtt != Dur::MAX;
        match self.css_baseline.get() {
            None => {
                if enough && self.last_round_min != Dur::MAX && self.curr_rtt >= self.last_round_min + delay_thresh(self.last_round_min) {
                    self.css_baseline = Opt::some(self.curr_rtt);
                    self.css_rounds = 0;
                    return Verdict::Conservative;
                }
                Verdict::SlowStart
            }
            Some(base) => {
                if enough && self.curr_rtt < base {
                    self.css_baseline = Opt::NONE; // the increase was spurious: back to slow start
                    return Verdict::SlowStart;
                }
                Verdict::Conservative
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn delay_threshold_is_an_eighth_clamped_to_4_16_ms() {
        assert_eq!(delay_thresh(Dur::from_ms(10)), Dur::from_ms(4));
        assert_eq!(delay_thresh(Dur::from_ms(80)), Dur::from_ms(10));
        assert_eq!(delay_thresh(Dur::from_ms(400)), Dur::from_ms(16));
    }
}
