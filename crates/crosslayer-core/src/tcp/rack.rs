//! RACK-TLP (RFC 8985): time-based loss detection and tail loss probes, Linux's defaults
//! (`net.ipv4.tcp_recovery = 1`, `net.ipv4.tcp_early_retrans = 3`; net/ipv4/tcp_recovery.c and
//! `tcp_schedule_loss_probe` / `tcp_send_loss_probe` in net/ipv4/tcp_output.c, read for
//! behaviour).
//!
//! **RACK** remembers the most recently *sent* segment known to be delivered (cumulatively
//! acknowledged or SACKed; a retransmission counts only when the ACK cannot be for an earlier
//! transmission) and its RTT. Every segment sent before it and outstanding for longer than
//! RACK.rtt + reo_wnd is lost, retransmissions included, so a lost retransmission is repaired
//! without waiting for the RTO. reo_wnd is 0 in recovery, or once three segments are SACKed,
//! unless reordering has been seen; otherwise min_rtt / 4, at most SRTT (no DSACK here, so its
//! multiplier stays 1). Segments not yet due arm the reordering timer. As in Linux, the
//! duplicate-ACK threshold (RFC 6675 IsLost) is not used while RACK is on: recovery starts when
//! RACK has marked a segment lost.
//!
//! **TLP**: in the Open state, with data outstanding, a probe timeout (PTO) of 2 SRTT (plus
//! `min_rto` for a lone segment, which may wait for a delayed ACK; else Linux's 2 ms
//! TCP_TIMEOUT_MIN; 1 s before the first RTT sample), never later than the RTO, is re-armed
//! whenever new data is sent or an ACK advances snd_una. When it fires, one probe goes out: a new
//! segment regardless of cwnd, or else the highest outstanding segment again. No further probe
//! until the ACKs pass the probe's snd_nxt; if the probe was a retransmission and the ACK passing
//! it shows that it repaired a loss, the window is reduced as for a loss (RFC 8985 section 7.4).
//!
//! Deliberate deviations: no DSACK, so reo_wnd never grows and a TLP retransmission is never
//! found spurious; RACK.rtt is that of the newest delivered segment (Linux keeps the last one
//! processed, which is the same segment except when an ACK delivers segments out of send
//! order); the reordering timer fires `RACK_TIMER_SLACK` (Linux's TCP_TIMEOUT_MIN, 2 ms) after
//! the deadline, as Linux rounds it; a reordering timeout in the Loss state retransmits but does
//! not switch to Recovery.

use super::scoreboard::{RackLoss, Scoreboard};
use crate::units::{Dur, Opt, Time};

/// Linux adds TCP_TIMEOUT_MIN (2 jiffies, 2 ms at HZ = 1000) to the reordering timer and to the
/// probe timeout when more than one segment is outstanding.
pub const TIMEOUT_MIN: Dur = Dur::from_ms(2);
/// The duplicate-ACK threshold RACK keeps for its reordering window (Linux `tp->reordering`).
const DUPTHRESH: u64 = 3;

/// RACK state (RFC 8985 section 6.1).
#[derive(Clone, Copy, Debug)]
pub struct Rack {
    /// RACK.xmit_ts and RACK.end_seq (as a segment number): the newest delivered segment
    /// (`segment()`; no segment while `xmit_ts` is none).
    xmit_ts: Opt<Time>,
    end_seq: u64,
    /// RACK.rtt: the RTT of that segment's delivery.
    rtt: Dur,
    /// A newer segment was delivered since the last detection (Linux `rack.advanced`).
    advanced: bool,
    /// Reordering timer (`Time::NEVER` when not armed).
    pub deadline: Time,
}

impl Default for Rack {
    fn default() -> Rack {
        Rack { xmit_ts: Opt::NONE, end_seq: 0, rtt: Dur::ZERO, advanced: false, deadline: Time::NEVER }
    }
}

impl Rack {
    /// RACK.xmit_ts and RACK.end_seq, once a segment was delivered.
    #[inline]
    fn segment(&self) -> Option<(Time, u64)> {
        self.xmit_ts.get().map(|t| (t, self.end_seq))
    }

    /// An ACK delivered `newest` (the newest eligible segment it delivered), at `now` (RFC 8985
    /// section 6.2 step 2).
    pub fn on_delivered(&mut self, newest: Option<(Time, u64)>, now: Time) {
        let Some(d) = newest else { return };
        if self.segment().is_none_or(|r| d > r) {
            (self.xmit_ts, self.end_seq) = (Opt::some(d.0), d.1);
            self.rtt = now - d.0;
            self.advanced = true;
        }
    }

    /// RACK.reo_wnd (RFC 8985 section 6.2 step 4; Linux `tcp_rack_reo_wnd`).
    pub fn reo_wnd(reordering_seen: bool, in_recovery: bool, sacked_out: u64, min_rtt: Option<Dur>, srtt: Option<Dur>) -> Dur {
        if !reordering_seen && (in_recovery || sacked_out >= DUPTHRESH) {
            return Dur::ZERO;
        }
        let quarter = min_rtt.map_or(Dur::ZERO, |m| Dur::from_ns(m.ns() / 4));
        srtt.map_or(quarter, |s| quarter.min(s))
    }

    /// Run the detection if the RACK segment advanced (`force`: the reordering timer fired) and
    /// re-arm the reordering timer. `reo_wnd` gives the reordering window of the board; it is
    /// asked only when the scoreboard must be scanned: when nothing sent before the RACK segment
    /// is outstanding (`Scoreboard::rack_finds_nothing`, most ACKs) nothing can be lost or
    /// pending, whatever the window.
    #[inline]
    pub fn detect(&mut self, sb: &mut Scoreboard, reo_wnd: impl FnOnce(&Scoreboard) -> Dur, now: Time, force: bool) -> RackLoss {
        let Some(seg) = self.segment() else { return RackLoss::default() };
        if !(self.advanced || force) {
            return RackLoss::default();
        }
        self.advanced = false;
        if sb.rack_finds_nothing(seg) {
            self.deadline = Time::NEVER;
            return RackLoss::default();
        }
        let wait = self.rtt + reo_wnd(sb);
        let found = sb.rack_detect(seg, wait, now);
        self.deadline = if found.deadline > Time::ZERO { found.deadline + TIMEOUT_MIN } else { Time::NEVER };
        found
    }
}

/// Tail loss probe state (RFC 8985 section 7).
#[derive(Clone, Copy, Debug)]
pub struct Tlp {
    /// TLP.end_seq: snd_nxt (segment number) when the outstanding probe was sent.
    pub high_seq: Opt<u64>,
    /// The outstanding probe was a retransmission.
    pub retrans: bool,
    /// Probe timer (`Time::NEVER` when not armed).
    pub deadline: Time,
}

impl Default for Tlp {
    fn default() -> Tlp {
        Tlp { high_seq: Opt::NONE, retrans: false, deadline: Time::NEVER }
    }
}

/// What an ACK tells about the outstanding probe.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProbeOutcome {
    /// No probe outstanding, or the ACK does not reach it yet.
    Pending,
    /// The probe episode ended without a loss to respond to.
    Done,
    /// The probe was a retransmission that repaired a loss: reduce the window.
    RepairedLoss,
}

impl Tlp {
    /// The probe timeout (RFC 8985 section 7.2; Linux `tcp_schedule_loss_probe`), capped by the
    /// time left until the RTO (`rto_left`).
    pub fn pto(srtt: Option<Dur>, packets_out: u64, min_rto: Dur, rto_left: Dur) -> Dur {
        let pto = match srtt {
            Some(s) => s.mul(2) + if packets_out == 1 { min_rto } else { TIMEOUT_MIN },
            None => Dur::from_secs(1),
        };
        pto.min(rto_left)
    }

    /// An ACK up to segment `ack` arrived (Linux `tcp_process_tlp_ack`): `dup` = it neither
    /// advanced snd_una nor SACKed anything.
    pub fn on_ack(&mut self, ack: u64, dup: bool) -> ProbeOutcome {
        let Some(high) = self.high_seq.get() else { return ProbeOutcome::Pending };
        if ack < high {
            return ProbeOutcome::Pending;
        }
        if !self.retrans {
            self.high_seq = Opt::NONE;
            return ProbeOutcome::Done;
        }
        if ack > high {
            self.high_seq = Opt::NONE;
            return ProbeOutcome::RepairedLoss;
        }
        if dup {
            // Both the original and the probe arrived: there was no loss.
            self.high_seq = Opt::NONE;
            return ProbeOutcome::Done;
        }
        ProbeOutcome::Pending
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reo_wnd_rules() {
        let (min, srtt) = (Some(Dur::from_ms(40)), Some(Dur::from_ms(60)));
        assert_eq!(Rack::reo_wnd(false, false, 1, min, srtt), Dur::from_ms(10), "min_rtt / 4 before three SACKs");
        assert_eq!(Rack::reo_wnd(false, false, 3, min, srtt), Dur::ZERO, "dupthresh reached");
        assert_eq!(Rack::reo_wnd(false, true, 0, min, srtt), Dur::ZERO, "in recovery");
        assert_eq!(Rack::reo_wnd(true, true, 5, min, srtt), Dur::from_ms(10), "reordering seen");
        assert_eq!(Rack::reo_wnd(true, true, 5, min, Some(Dur::from_ms(8))), Dur::from_ms(8), "at most SRTT");
    }

    #[test]
    fn pto_rules() {
        let s = Some(Dur::from_ms(50));
        let (min_rto, far) = (Dur::from_ms(200), Dur::from_secs(10));
        assert_eq!(Tlp::pto(s, 10, min_rto, far), Dur::from_ms(102));
        assert_eq!(Tlp::pto(s, 1, min_rto, far), Dur::from_ms(300), "a lone segment may wait for a delayed ACK");
        assert_eq!(Tlp::pto(None, 10, min_rto, far), Dur::from_secs(1));
        assert_eq!(Tlp::pto(s, 10, min_rto, Dur::from_ms(70)), Dur::from_ms(70), "never after the RTO");
    }

    #[test]
    fn probe_outcomes() {
        let mut t = Tlp { high_seq: Opt::some(10), retrans: false, deadline: Time::NEVER };
        assert_eq!(t.on_ack(9, false), ProbeOutcome::Pending);
        assert_eq!(t.on_ack(10, false), ProbeOutcome::Done);
        assert_eq!(t.high_seq.get(), None);
        let mut t = Tlp { high_seq: Opt::some(10), retrans: true, deadline: Time::NEVER };
        assert_eq!(t.on_ack(10, false), ProbeOutcome::Pending);
        assert_eq!(t.on_ack(11, false), ProbeOutcome::RepairedLoss);
        let mut t = Tlp { high_seq: Opt::some(10), retrans: true, deadline: Time::NEVER };
        assert_eq!(t.on_ack(10, true), ProbeOutcome::Done, "original and probe both arrived");
    }
}
