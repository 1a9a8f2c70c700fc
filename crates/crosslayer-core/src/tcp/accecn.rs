//! AccECN, More Accurate ECN Feedback in TCP (RFC 9768, formerly draft-ietf-tcpm-accurate-ecn):
//! the receiver's counters ([`AccEcnReceiver`]) and the sender's decoding of them
//! ([`AccEcnSender`]), the feedback `[tcp] ecn_feedback = "accecn"` selects.
//!
//! Sources: RFC 9768 sections 3.2 (the counters), 3.2.1 (their initial values), 3.2.2 (the
//! ACE field), 3.2.2.5 (safety against its ambiguity), 3.2.3 (the AccECN option, its encoding
//! and its use), Appendix A.1-A.2 (example algorithms); Linux's implementation
//! (`net/ipv4/tcp_input.c` `__tcp_accecn_process`, `tcp_accecn_process_option`;
//! `net/ipv4/tcp_output.c` `tcp_options_fit_accecn`; as in the L4S team's tree,
//! github.com/L4STeam/linux), read for behaviour, not copied.
//!
//! Receiver (section 3.2):
//! * r.cep starts at 5, r.e0b and r.e1b at 1, r.ceb at 0 (section 3.2.1). Every acceptable data
//!   packet marked CE adds 1 to r.cep and its payload to r.ceb; one marked ECT(0) or ECT(1) its
//!   payload to r.e0b or r.e1b; retransmissions count, a segment wholly below rcv_nxt (not
//!   acceptable, RFC 9293 section 3.10.7.4) does not.
//! * Every ACK carries ACE = r.cep mod 8 (section 3.2.2.2).
//! * Change-Triggered ACKs: a CE data packet after a packet that was not CE is acknowledged at
//!   once. Increment-Triggered ACKs: an ACK goes once n = 2 CE marks arrived since the last
//!   one, there being data to acknowledge (section 3.2.2.5.1).
//! * The option (`[tcp] accecn_option`): on every ACK it fits on (Linux `tcp_ecn_option = 2`),
//!   in Order 1 (EE1B, ECEB, EE0B; Linux sends that order), with as many fields as fit and at
//!   least the counters that ever changed (Linux `accecn_minlen`: 1 once ECT(1) arrived, 2 once
//!   CE, 3 once ECT(0)). Where a SACK option leaves too little room, the SACK option gives up
//!   blocks down to two, else the AccECN option is left out (section 3.2.3.3: SACK keeps two
//!   blocks; Linux `tcp_options_fit_accecn`, which also lets the option's last bytes take the
//!   SACK option's two NOPs).
//!
//! Sender (sections 3.2.2.2, 3.2.2.5.2, 3.2.3.1; Linux `__tcp_accecn_process`):
//! * s.cep, s.e0b, s.ceb, s.e1b start as the receiver's counters. An ACK that made no progress
//!   (nothing newly acknowledged or SACKed, no newer timestamp) may have been superseded: its
//!   feedback is ignored (Appendix A.1).
//! * Option fields: s.x += (field - s.x) mod 2^24 (section 3.2.3.1).
//! * d.cep = (ACE - s.cep) mod 8. If the ACK newly delivered at most 7 packets, that is the
//!   count. Otherwise, with `[tcp] accecn_safety`, the ACE field may have wrapped:
//!   dSafer.cep = pkts - ((pkts - d.cep) mod 8) (Appendix A.2.1, every packet assumed marked),
//!   unless the option says less (A.2.2, Linux): no new CE bytes -> d.cep; at 16 packets or
//!   more, with SACK or in the Open state, min(dSafer.cep, d.cep + the multiple of 8 below
//!   ceil(d.ceb x pkts / bytes)); else d.ceb > d.cep x MSS -> dSafer.cep, d.ceb < dSafer.cep x
//!   MSS / 2 -> d.cep (SAFETY_FACTOR 2), else dSafer.cep. Without the option: d.cep when an EWMA
//!   (gain 1/64) of the packets delivered per ACK exceeds 4 (ACK thinning: "it would be
//!   reasonable to only use dSafer.cep rather than d.cep if the moving average of
//!   newlyAckedPkt was well below 8", A.2.1; Linux's threshold), else dSafer.cep.
//! * s.cep grows by the result: the packets newly marked CE, which the sender hands to the
//!   congestion control (`AckEvent::ce_bytes`, in MSS-sized packets as Linux's `delivered_ce`).
//!
//! Deliberate deviations: no negotiation (both ends use what `[tcp] ecn_feedback` says, for
//! the whole connection) and no handshake encoding of the ACE field on the ACK of the SYN/ACK
//! (section 3.2.2.1); no tests for mangling or zeroing of the fields and no option traversal
//! fallbacks (sections 3.2.2.3, 3.2.2.4, 3.2.3.2: simulated paths do not mangle or strip); on
//! an ACK without the option the sender does not estimate the byte counters as Linux does
//! (`estimate_ecnfield`): it decodes that ACK as an option-less one.

use super::OptionPadding;
use crate::packet::{AccEcnOption, Ecn};
use crate::units::Time;

/// r.cep's and s.cep's initial value (section 3.2.1).
pub const CEP_INIT: u64 = 5;
/// r.e0b's and r.e1b's initial value (section 3.2.1).
pub const EXB_INIT: u64 = 1;
/// The ACE field counts modulo 8 (Appendix A.2: DIVACE).
const DIVACE: u64 = 8;
/// Option fields count modulo 2^24 (Appendix A.1: DIVOPT).
const DIVOPT: u64 = 1 << 24;
/// Increment-Triggered ACKs: n CE marks since the last ACK, with data to acknowledge (section
/// 3.2.2.5.1: SHOULD be 2).
const INCREMENT_ACK: u32 = 2;
/// Without the option, packets delivered per ACK (moving average) above which the ACE field is
/// taken as it is (ACK thinning; Linux `ACK_COMP_THRESH`).
const ACK_THINNING: f64 = 4.0;
/// Gain of that moving average (Linux `PKTS_ACKED_WEIGHT` 6: 1/64).
const EWMA_GAIN: f64 = 1.0 / 64.0;
/// TCP option space, bytes (a 15-word header).
const OPTION_SPACE: u32 = 40;

/// The receiver's AccECN counters (RFC 9768 section 3.2) and its ACK triggers.
#[derive(Clone, Copy, Debug)]
pub struct AccEcnReceiver {
    /// r.cep: CE-marked packets received, from 5.
    pub cep: u64,
    /// r.e0b: payload bytes received ECT(0), from 1.
    pub e0b: u64,
    /// r.ceb: payload bytes received CE, from 0.
    pub ceb: u64,
    /// r.e1b: payload bytes received ECT(1), from 1.
    pub e1b: u64,
    /// CE marks since the last ACK sent (Increment-Triggered ACKs).
    ce_since_ack: u32,
    /// The last data packet received was CE (Change-Triggered ACKs).
    prev_ce: bool,
    /// Counters the option must carry (Order 1): 1 once ECT(1) arrived, 2 once CE, 3 once
    /// ECT(0) (Linux `accecn_minlen`).
    min_fields: u8,
}

impl Default for AccEcnReceiver {
    fn default() -> Self {
        AccEcnReceiver { cep: CEP_INIT, e0b: EXB_INIT, ceb: 0, e1b: EXB_INIT, ce_since_ack: 0, prev_ce: false, min_fields: 0 }
    }
}

impl AccEcnReceiver {
    /// A data segment arrived with codepoint `ecn` and `payload` bytes (`acceptable`: not wholly
    /// below rcv_nxt). Returns whether an ACK must go at once (section 3.2.2.5.1).
    pub fn on_segment(&mut self, ecn: Ecn, payload: u32, acceptable: bool) -> bool {
        let ce = ecn == Ecn::Ce;
        let change = ce && !self.prev_ce;
        self.prev_ce = ce;
        if acceptable {
            let bytes = payload as u64;
            match ecn {
                Ecn::Ce => {
                    self.cep += 1;
                    self.ceb += bytes;
                    self.ce_since_ack += 1;
                    self.min_fields = self.min_fields.max(2);
                }
                Ecn::Ect1 => {
                    self.e1b += bytes;
                    self.min_fields = self.min_fields.max(1);
                }
                Ecn::Ect0 => {
                    self.e0b += bytes;
                    self.min_fields = 3;
                }
                Ecn::NotEct => {}
            }
        }
        change || self.ce_since_ack >= INCREMENT_ACK
    }

    /// The ACE field of the next ACK: r.cep mod 8.
    pub fn ace(&self) -> u8 {
        (self.cep % DIVACE) as u8
    }

    /// An ACK went out.
    pub fn on_ack_sent(&mut self) {
        self.ce_since_ack = 0;
    }

    /// The counters an option must carry (Order 1).
    pub fn min_fields(&self) -> u8 {
        self.min_fields
    }

    /// An option with the first `fields` counters of Order 1, each mod 2^24.
    pub fn option(&self, fields: u8) -> AccEcnOption {
        let f = |v: u64| (v % DIVOPT) as u32;
        AccEcnOption { fields, e1b: f(self.e1b), ceb: f(self.ceb), e0b: f(self.e0b) }
    }
}

/// How an AccECN option fits on an ACK beside its timestamps and SACK options (`sack_blocks`
/// chosen): `(fields, bytes it adds on the wire, SACK blocks kept)`, or None when it does not
/// fit with at least `required` fields even with two SACK blocks (Linux
/// `tcp_options_fit_accecn`: the most fields that fit, SACK giving up blocks down to two for
/// the required ones).
pub fn fit_option(required: u8, sack_blocks: u32, timestamps: bool, padding: OptionPadding) -> Option<(u8, u32, u32)> {
    let mut blocks = sack_blocks;
    loop {
        for fields in (required..=3).rev() {
            let size = 2 + 3 * fields as u32;
            let added = match padding {
                // each option NOP-aligned; the option's tail may take the SACK option's two NOPs
                OptionPadding::Nop => {
                    let ts = if timestamps { 12 } else { 0 };
                    let sack = if blocks > 0 { 4 + 8 * blocks } else { 0 };
                    let saving = if blocks > 0 { 2 } else { 0 };
                    let added = if size & 3 > saving { size.next_multiple_of(4) } else { size & !3 };
                    (ts + sack + added <= OPTION_SPACE).then_some(added)
                }
                // options packed, the whole padded once
                OptionPadding::End => {
                    let others = if timestamps { 10 } else { 0 } + if blocks > 0 { 2 + 8 * blocks } else { 0 };
                    let total = (others + size).next_multiple_of(4);
                    (total <= OPTION_SPACE).then(|| total - others.next_multiple_of(4))
                }
            };
            if let Some(bytes) = added {
                return Some((fields, bytes, blocks));
            }
        }
        if blocks > 2 && required > 0 {
            blocks -= 1;
        } else {
            return None;
        }
    }
}

/// The sender's AccECN state (RFC 9768 section 3.2): its copies of the receiver's counters and
/// what the safety rule needs.
#[derive(Clone, Copy, Debug)]
pub struct AccEcnSender {
    /// s.cep: CE-marked packets the feedback reported (with the safety rule's assumptions), from 5.
    pub cep: u64,
    /// s.e0b, s.ceb, s.e1b: the option's byte counters, from 1, 0, 1.
    pub e0b: u64,
    pub ceb: u64,
    pub e1b: u64,
    /// Moving average of the packets newly delivered per ACK (Linux `pkts_acked_ewma`); 0: none yet.
    pkts_per_ack: f64,
    /// Newest timestamp of an ACK decoded (progress test).
    last_tsval: Time,
    /// The safety rule against a wrapped ACE field (`[tcp] accecn_safety`).
    safety: bool,
}

impl AccEcnSender {
    pub fn new(safety: bool) -> AccEcnSender {
        AccEcnSender { cep: CEP_INIT, e0b: EXB_INIT, ceb: 0, e1b: EXB_INIT, pkts_per_ack: 0.0, last_tsval: Time::ZERO, safety }
    }

    /// Whether an ACK with this feedback can report nothing new when it acknowledges at most
    /// 7 packets: its ACE field equals s.cep mod 8 and its option (if any) carries s.ceb.
    pub fn quiet(&self, ace: u8, opt: Option<AccEcnOption>) -> bool {
        ace as u64 == self.cep % DIVACE && opt.and_then(|o| o.ceb()).is_none_or(|c| c as u64 == self.ceb % DIVOPT)
    }

    /// Decode one ACK: its ACE field `ace` and option `opt`, given what it newly delivered
    /// (`pkts` packets of `bytes`, cumulatively acknowledged or SACKed), its timestamp (`tsval`,
    /// with the timestamps option: a newer one is progress), whether SACK is on or the sender is
    /// in the Open state (`sack_or_open`), and the MSS. Returns the packets newly marked CE.
    #[allow(clippy::too_many_arguments)]
    pub fn on_ack(&mut self, ace: u8, opt: Option<AccEcnOption>, pkts: u64, bytes: u64, tsval: Option<Time>, sack_or_open: bool, mss: u64) -> u64 {
        let ts_progress = tsval.is_some_and(|t| t > self.last_tsval);
        if let Some(t) = tsval {
            self.last_tsval = self.last_tsval.max(t);
        }
        if pkts == 0 && !ts_progress {
            return 0; // possibly superseded (Appendix A.1; Linux: no FLAG_FORWARD_PROGRESS)
        }
        let old_ceb = self.ceb;
        let opt_valid = opt.is_some_and(|o| {
            let step = |s: &mut u64, field: u32| *s += (field as u64 + DIVOPT - *s % DIVOPT) % DIVOPT;
            if o.fields >= 1 {
                step(&mut self.e1b, o.e1b);
            }
            if o.fields >= 2 {
                step(&mut self.ceb, o.ceb);
            }
            if o.fields >= 3 {
                step(&mut self.e0b, o.e0b);
            }
            o.fields >= 2
        });
        if pkts > 0 {
            let p = pkts as f64;
            self.pkts_per_ack = if self.pkts_per_ack == 0.0 { p } else { self.pkts_per_ack + EWMA_GAIN * (p - self.pkts_per_ack) };
        }
        let d_cep = (ace as u64 + DIVACE - self.cep % DIVACE) % DIVACE;
        let count = if pkts < DIVACE || !self.safety {
            d_cep
        } else {
            self.safer(d_cep, pkts, bytes, opt_valid.then(|| self.ceb - old_ceb), sack_or_open, mss)
        };
        self.cep += count;
        count
    }

    /// Appendix A.2's safety rule where the ACE field may have wrapped (`pkts` >= 8), as Linux
    /// applies it; `d_ceb`: the option's new CE bytes, if it came.
    fn safer(&self, d_cep: u64, pkts: u64, bytes: u64, d_ceb: Option<u64>, sack_or_open: bool, mss: u64) -> u64 {
        // every packet marked: the most the ACE field could have counted (A.2.1)
        let safe = pkts - (pkts - d_cep.min(pkts)) % DIVACE;
        let Some(d_ceb) = d_ceb else {
            // no option: trust d.cep only when ACKs are thinned (moving average above 4)
            return if self.pkts_per_ack > ACK_THINNING { d_cep } else { safe };
        };
        if d_ceb == 0 {
            return d_cep;
        }
        if pkts >= 2 * DIVACE && sack_or_open {
            if bytes <= d_ceb {
                return safe;
            }
            // the marked fraction of the bytes, in packets, rounded up; wraps of 8 only
            let est = (d_ceb * pkts).div_ceil(bytes);
            return safe.min(d_cep + (est & !(DIVACE - 1)));
        }
        if d_ceb > d_cep * mss {
            safe // d.cep cannot be right: more CE bytes than its packets could carry
        } else if d_ceb < safe * mss / 2 {
            d_cep // the safe count would mean segments under half an MSS: d.cep is safe enough
        } else {
            safe
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MSS: u64 = 1448;

    /// Section 3.2.1's initial values and section 3.2.2's encoding: ACE = r.cep mod 8; the
    /// byte counters by codepoint; a segment wholly below rcv_nxt is not counted.
    #[test]
    fn the_receiver_counts_packets_and_bytes_per_codepoint() {
        let mut r = AccEcnReceiver::default();
        assert_eq!((r.cep, r.e0b, r.ceb, r.e1b, r.ace()), (5, 1, 0, 1, 5));
        r.on_segment(Ecn::Ect1, 1000, true);
        r.on_segment(Ecn::Ce, 1000, true);
        r.on_segment(Ecn::Ce, 500, true);
        r.on_segment(Ecn::Ce, 1000, false); // a duplicate: not acceptable
        r.on_segment(Ecn::Ect0, 100, true);
        r.on_segment(Ecn::NotEct, 100, true);
        assert_eq!((r.cep, r.e0b, r.ceb, r.e1b), (7, 101, 1500, 1001));
        assert_eq!(r.ace(), 7);
        r.on_segment(Ecn::Ce, 1000, true);
        assert_eq!(r.ace(), 0, "8 mod 8: the field wraps");
        assert_eq!(r.option(3), AccEcnOption { fields: 3, e1b: 1001, ceb: 2500, e0b: 101 });
        assert_eq!(r.min_fields(), 3);
    }

    /// Section 3.2.2.5.1: a CE packet after a non-CE one is acknowledged at once (a change), and
    /// so is the second CE mark since the last ACK (an increment); a run of CE marks with an
    /// ACK every second segment sends nothing extra.
    #[test]
    fn change_and_increment_triggered_acks() {
        let mut r = AccEcnReceiver::default();
        let now = |r: &mut AccEcnReceiver, ecn: Ecn| r.on_segment(ecn, 1000, true);
        assert!(!now(&mut r, Ecn::Ect1));
        assert!(now(&mut r, Ecn::Ce), "change: CE after ECT(1)");
        r.on_ack_sent();
        assert!(!now(&mut r, Ecn::Ce), "one CE mark since the ACK");
        assert!(now(&mut r, Ecn::Ce), "increment: the second");
        r.on_ack_sent();
        assert!(!now(&mut r, Ecn::Ect1));
        assert!(!now(&mut r, Ecn::Ect1));
        assert!(now(&mut r, Ecn::Ce));
    }

    /// Linux's fit: 12 bytes (3 fields) beside the timestamps, 8 (2 fields) beside two SACK
    /// blocks, and with three blocks the SACK option keeps two for the 2 required fields.
    #[test]
    fn the_option_fits_beside_sack_as_linux_fits_it() {
        let p = OptionPadding::Nop;
        assert_eq!(fit_option(2, 0, true, p), Some((3, 12, 0)));
        assert_eq!(fit_option(2, 1, true, p), Some((3, 12, 1)));
        assert_eq!(fit_option(2, 2, true, p), Some((2, 8, 2)));
        assert_eq!(fit_option(2, 3, true, p), Some((2, 8, 2)), "SACK gives up its third block");
        assert_eq!(fit_option(1, 3, true, p), Some((2, 8, 2)), "as many fields as fit once SACK made room");
        assert_eq!(fit_option(3, 3, true, p), None, "3 fields never fit beside 2 SACK blocks and timestamps");
        // without timestamps there is room for everything
        assert_eq!(fit_option(2, 3, false, p), Some((3, 12, 3)));
        // ns-3's packing (ns-3 has no AccECN; the same rule with options packed): three blocks
        // leave 4 bytes (10 + 26), two leave room for all three fields (10 + 18 + 11 = 39)
        assert_eq!(fit_option(2, 3, true, OptionPadding::End), Some((3, 12, 2)));
    }

    /// Decode ACKs scripted as a receiver would send them, marks counted exactly while fewer
    /// than 8 packets are acknowledged per ACK: the sum of the deltas is the receiver's count.
    #[test]
    fn deltas_follow_the_receivers_count() {
        let mut r = AccEcnReceiver::default();
        let mut s = AccEcnSender::new(true);
        let marks = [false, true, true, false, true, true, true, false, false, true, true, true, true, true, true, true, true, false];
        let mut total = 0;
        for (k, pair) in marks.chunks(2).enumerate() {
            for &ce in pair {
                r.on_segment(if ce { Ecn::Ce } else { Ecn::Ect1 }, MSS as u32, true);
            }
            let d = s.on_ack(r.ace(), Some(r.option(2)), 2, 2 * MSS, Some(Time::from_ns(k as u64 + 1)), true, MSS);
            assert_eq!(d, pair.iter().filter(|&&c| c).count() as u64, "ACK {k}");
            total += d;
        }
        assert_eq!(total, marks.iter().filter(|&&c| c).count() as u64);
        assert_eq!(s.cep, r.cep);
        assert_eq!(s.ceb, r.ceb);
    }

    /// ACK loss: one ACK arrives for 10 packets, all CE-marked, so r.cep grew by 10 and the
    /// ACE field by 2 (mod 8). Appendix A.2.1: dSafer.cep = 10 - ((10 - 2) mod 8) = 10, with
    /// or without the option (whose 10 x MSS CE bytes exceed 2 x MSS); the unsafe decoding
    /// counts 2. If only 2 of the 10 were marked, the option tells (d.ceb = 2 MSS < 10 MSS / 2:
    /// d.cep is safe enough) and the ACE field alone cannot (10). With 9 packets the field
    /// cannot have wrapped past 2 marks: 9 - 7 = 2.
    #[test]
    fn the_safety_rule_counts_a_wrapped_ace_field() {
        let run = |marked: usize, pkts: u64, option: bool, safety: bool| {
            let mut r = AccEcnReceiver::default();
            let mut s = AccEcnSender::new(safety);
            // an earlier ACK in steady state (2 packets per ACK), then the lost ones
            for _ in 0..2 {
                r.on_segment(Ecn::Ect1, MSS as u32, true);
            }
            s.on_ack(r.ace(), option.then(|| r.option(2)), 2, 2 * MSS, Some(Time::from_ns(1)), true, MSS);
            for k in 0..pkts as usize {
                r.on_segment(if k < marked { Ecn::Ce } else { Ecn::Ect1 }, MSS as u32, true);
            }
            s.on_ack(r.ace(), option.then(|| r.option(2)), pkts, pkts * MSS, Some(Time::from_ns(2)), true, MSS)
        };
        assert_eq!(run(10, 10, false, true), 10);
        assert_eq!(run(10, 10, true, true), 10);
        assert_eq!(run(10, 10, false, false), 2, "unsafe: the ACE increase mod 8");
        assert_eq!(run(2, 10, true, true), 2, "the option shows few CE bytes");
        assert_eq!(run(2, 10, false, true), 10, "without it the safe count assumes the wrap");
        assert_eq!(run(2, 9, false, true), 2);
        assert_eq!(run(9, 9, false, true), 9);
        // 20 packets, 11 marked: ACE +11 = +3 (mod 8); the option's 11 MSS of CE bytes estimate
        // 11 packets, so 3 + 8 = 11, not the 19 the ACE field alone allows
        assert_eq!(run(11, 20, true, true), 11);
        assert_eq!(run(11, 20, false, true), 19);
    }

    /// ACK thinning (A.2.1, Linux): when ACKs usually cover more than 4 packets, a large ACK
    /// without the option is taken as the ACE field says.
    #[test]
    fn thinned_acks_are_taken_at_their_word() {
        let mut r = AccEcnReceiver::default();
        let mut s = AccEcnSender::new(true);
        for k in 0..20u64 {
            for _ in 0..6 {
                r.on_segment(Ecn::Ect1, MSS as u32, true);
            }
            s.on_ack(r.ace(), None, 6, 6 * MSS, Some(Time::from_ns(k + 1)), true, MSS);
        }
        for _ in 0..2 {
            r.on_segment(Ecn::Ce, MSS as u32, true);
        }
        for _ in 0..8 {
            r.on_segment(Ecn::Ect1, MSS as u32, true);
        }
        assert_eq!(s.on_ack(r.ace(), None, 10, 10 * MSS, Some(Time::from_ns(100)), true, MSS), 2);
    }

    /// An ACK that acknowledges nothing new and has no newer timestamp may be superseded: its
    /// feedback is ignored (Appendix A.1), and counted by the next ACK.
    #[test]
    fn a_superseded_ack_is_ignored() {
        let mut r = AccEcnReceiver::default();
        let mut s = AccEcnSender::new(true);
        r.on_segment(Ecn::Ce, MSS as u32, true);
        assert_eq!(s.on_ack(r.ace(), None, 0, 0, Some(Time::ZERO), true, MSS), 0);
        assert_eq!(s.on_ack(r.ace(), None, 1, MSS, Some(Time::from_ns(5)), true, MSS), 1);
    }
}
