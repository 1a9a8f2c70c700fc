//! ECN feedback end to end (RFC 3168, DCTCP's echo, AccECN of RFC 9768). First a sender and
//! its receiver on a scripted path (10 ms each way, a 0.12 ms bottleneck spacing of data,
//! delayed ACKs), Reno with ECN, where the path marks chosen segments CE and may lose chosen
//! ACKs: what the sender's feedback reports (`ce_echoed_segs`) against what the receiver
//! received CE-marked (`ce_pkts`), the closed forms of each feedback. Then TCP Prague through
//! DualPI2 in the engine with each feedback, and with lost ACKs.

use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::cc::{Cc, CcConfig};
use crosslayer_core::packet::{AccEcnOption, Ecn, Packet, PacketArena, PktKind, SackBlock};
use crosslayer_core::presets;
use crosslayer_core::spec::TopologySpec;
use crosslayer_core::{run, RunResult};
use crosslayer_core::tcp::receiver::Receiver;
use crosslayer_core::tcp::sender::{AckInfo, Sender};
use crosslayer_core::tcp::{EcnFeedback, TcpConfig, TxCtx};
use crosslayer_core::units::{Bytes, Dur, Time};
use std::collections::VecDeque;

const MSS: u64 = 1000;

/// An ACK as it travels: the packet, its SACK blocks and its AccECN option.
type Ack = (Time, Packet, Vec<SackBlock>, Option<AccEcnOption>);

/// One ACK the sender processed: the segments it newly acknowledged cumulatively (`from` up
/// to `to`, `acked` of them), and the segments its feedback reported CE-marked.
#[derive(Debug, Clone, Copy)]
struct Seen {
    from: u64,
    to: u64,
    acked: u64,
    marked: u64,
}

/// Run a bulk transfer of `segs` segments with `feedback` (`option`, `safety`: AccECN's
/// settings); `mark(n)`: the path CE-marks segment n; `lose(ack)`: the path loses the ACK whose
/// cumulative ACK is `ack` segments. Returns every processed ACK, the sender and the receiver.
fn transfer(feedback: EcnFeedback, option: bool, safety: bool, segs: u64, mark: &dyn Fn(u64) -> bool, lose: &dyn Fn(u64) -> bool) -> (Vec<Seen>, Sender, Receiver) {
    let cfg = TcpConfig { mss: Bytes::new(MSS), ecn: true, ecn_feedback: Some(feedback), accecn_option: option, accecn_safety: safety, handshake: false, ..Default::default() };
    let cc = Cc::new(&presets::reno(), &Sender::cc_env(&cfg));
    let mut s = Sender::new(0, 0, 1, &cfg, cc, Time::ZERO, Time::NEVER);
    s.set_size(segs * MSS);
    let mut r = Receiver::new(0, 1, 0, &cfg);
    r.feedback = s.ecn_feedback();
    let mut arena = PacketArena::new();
    let (one_way, spacing) = (Dur::from_ms(10), Dur::from_us(120));
    let (mut to_rx, mut to_tx): (VecDeque<(Time, Packet)>, VecDeque<Ack>) = (VecDeque::new(), VecDeque::new());
    let (mut now, mut last_rx) = (Time::ZERO, Time::ZERO);
    let mut seen = Vec::new();
    let mut out = Vec::new();
    s.on_timer(&mut TxCtx { now, arena: &mut arena, out: &mut out });
    for _ in 0..1_000_000 {
        for id in out.drain(..) {
            let mut p = arena.get(id).clone();
            let (blocks, opt) = (arena.sack(id).to_vec(), arena.accecn(id));
            arena.free(id);
            if p.kind.from_sender() {
                if p.kind == PktKind::Data && p.ecn.is_ect() && mark(p.seq / MSS) {
                    p.ecn = Ecn::Ce;
                }
                last_rx = (now + one_way).max(last_rx + spacing);
                to_rx.push_back((last_rx, p));
            } else if !lose(p.ack / MSS) {
                to_tx.push_back((now + one_way, p, blocks, opt));
            }
        }
        let t_rx = to_rx.front().map_or(Time::NEVER, |x| x.0);
        let t_tx = to_tx.front().map_or(Time::NEVER, |x| x.0);
        now = t_rx.min(t_tx).min(s.next_deadline()).min(r.next_deadline());
        if now.is_never() || s.snd_una() >= segs * MSS {
            break;
        }
        let mut ctx = TxCtx { now, arena: &mut arena, out: &mut out };
        if now == t_rx {
            let (_, p) = to_rx.pop_front().unwrap();
            r.on_data(&p, &mut ctx);
        } else if now == t_tx {
            let (_, p, blocks, opt) = to_tx.pop_front().unwrap();
            let (una, marked) = (s.snd_una(), s.counters.ce_echoed_segs);
            s.on_ack(AckInfo { ack: p.ack, sack: &blocks, ece: p.ece, ace: p.ace, accecn: opt, tsval: p.tsval, tsecr: p.tsecr, fin: p.fin }, &mut ctx);
            seen.push(Seen { from: una / MSS, to: s.snd_una() / MSS, acked: (s.snd_una() - una) / MSS, marked: s.counters.ce_echoed_segs - marked });
        } else {
            r.on_timer(&mut ctx);
            s.on_timer(&mut ctx);
        }
    }
    assert_eq!(s.snd_una(), segs * MSS, "the transfer completed");
    (seen, s, r)
}

/// Closed form: with every segment CE-marked, each ACK's feedback reports exactly the segments
/// it acknowledges, with every feedback (AccECN: the ACE increase of each ACK is the packets
/// it acknowledges, with or without the option), and in total what the receiver received
/// marked.
#[test]
fn with_every_segment_marked_each_ack_reports_the_segments_it_acknowledges() {
    for (feedback, option) in [(EcnFeedback::AccEcn, true), (EcnFeedback::AccEcn, false), (EcnFeedback::Dctcp, false), (EcnFeedback::Classic, false)] {
        let (seen, s, r) = transfer(feedback, option, true, 400, &|_| true, &|_| false);
        let differ: Vec<_> = seen.iter().enumerate().filter(|(_, a)| a.acked != a.marked).collect();
        eprintln!("{feedback:?} option {option}: {} ACKs, {} segments reported marked, {} received marked, {} ACKs differ", seen.len(), s.counters.ce_echoed_segs, r.counters.ce_pkts, differ.len());
        assert!(differ.is_empty(), "{feedback:?}: {differ:?}");
        assert_eq!(s.counters.ce_echoed_segs, r.counters.ce_pkts, "{feedback:?}");
        assert_eq!(r.counters.ce_pkts, 400);
    }
}

/// One segment in three marked (200 of 600): AccECN's count and DCTCP's echo report exactly
/// the marked segments; RFC 3168's sticky ECE reports every segment acknowledged from a mark
/// until the CWR gets through: 404.
#[test]
fn a_third_marked_accecn_and_dctcp_count_exactly_classic_overcounts() {
    let every_third = |n: u64| n % 3 == 1;
    let mut got = vec![];
    for feedback in [EcnFeedback::AccEcn, EcnFeedback::Dctcp, EcnFeedback::Classic] {
        let (_, s, r) = transfer(feedback, true, true, 600, &every_third, &|_| false);
        eprintln!("{feedback:?}: {} reported, {} received marked", s.counters.ce_echoed_segs, r.counters.ce_pkts);
        got.push((s.counters.ce_echoed_segs, r.counters.ce_pkts));
    }
    assert_eq!(got[0].0, got[0].1, "AccECN");
    assert_eq!(got[1].0, got[1].1, "DCTCP");
    assert!(got[2].0 > got[2].1, "classic overcounts: {:?}", got[2]);
}

/// ACK loss and the ACE field's wrap (RFC 9768 section 3.2.2.5): the path marks segments
/// 230-329 and loses every ACK whose cumulative ACK is 250-300, so one ACK acknowledges 51 or
/// more segments at once while the 3-bit ACE field counts their marks mod 8. (Marks over a
/// round trip only, so that Reno's window, halved once, stays far above 50 segments.)
/// * All marked: the safety rule assumes the most the field could have counted, which is
///   right, with or without the option; taken as it is the field loses a multiple of 8.
/// * Every other segment marked: the option's CE bytes give the count; without it the safety
///   rule takes the largest count the field allows, pkts - ((pkts - d.cep) mod 8) (RFC 9768
///   Appendix A.2.1), and the field alone loses a multiple of 8.
#[test]
fn ack_loss_wraps_the_ace_field_and_the_safety_rule_recovers_it() {
    let lost = |ack: u64| (250..=300).contains(&ack);
    let run = |option: bool, safety: bool, mark: &dyn Fn(u64) -> bool| {
        let (seen, s, r) = transfer(EcnFeedback::AccEcn, option, safety, 600, mark, &lost);
        let big = seen.iter().max_by_key(|a| a.acked).copied().unwrap();
        let in_big = (big.from..big.to).filter(|&n| mark(n)).count() as u64;
        (s.counters.ce_echoed_segs as i64 - r.counters.ce_pkts as i64, big, in_big)
    };
    let all = |n: u64| (230..330).contains(&n);
    for (option, safety) in [(true, true), (false, true), (false, false)] {
        let (error, big, in_big) = run(option, safety, &all);
        eprintln!("all marked, option {option}, safety {safety}: error {error}, largest ACK {big:?} ({in_big} marked)");
        assert!(big.acked >= 51 && in_big == big.acked);
        let expected = if safety { 0 } else { -((in_big - in_big % 8) as i64) };
        assert_eq!(error, expected, "option {option}, safety {safety}");
    }
    let half = |n: u64| (230..330).contains(&n) && n.is_multiple_of(2);
    let (with_option, big, in_big) = run(true, true, &half);
    let (without, _, _) = run(false, true, &half);
    let (unsafe_, _, _) = run(false, false, &half);
    eprintln!("half marked: error {with_option} with the option, {without} without, {unsafe_} unsafe; largest ACK {big:?} ({in_big} marked)");
    assert_eq!(with_option, 0);
    let pkts = big.acked;
    let safer = pkts - (pkts - in_big % 8) % 8;
    assert_eq!(without, (safer - in_big) as i64, "Appendix A.2.1's count for the big ACK");
    assert!(without > 0);
    assert_eq!(unsafe_, -((in_big - in_big % 8) as i64));
}

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// Prague alone through DualPI2 (its defaults: a 1 ms step for the L queue), 100 Mb/s, 20 ms,
/// 50 s measured after 10 s, with `tcp`'s feedback settings, the reverse path losing
/// `ack_loss` of the ACKs at random.
fn prague(tcp: TcpConfig, ack_loss: f64) -> RunResult {
    let mut spec = presets::single_bottleneck(100_000_000, 20 * MS, 1000, vec![(CcConfig::Prague(Default::default()), tcp)], 50 * S, 10 * S);
    let TopologySpec::Dumbbell { forward, reverse, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    forward.qdisc = QdiscConfig::DualPi2(Default::default());
    reverse.loss = ack_loss;
    run(spec).expect("run")
}

/// What one run of `prague` gave: (CE packets received, reported by the feedback, ACKs sent,
/// mean sojourn at the bottleneck in s, utilization, goodput in b/s, marks per RTT).
fn outcome(r: &RunResult) -> (u64, u64, u64, f64, f64, f64, f64) {
    let fwd = r.queues.strs("role").iter().position(|x| x == "forward").unwrap();
    let rtts = 40.0 / r.flows.f64s("rtt_mean_s")[0];
    (
        r.flows.u64s("ce_pkts")[0],
        r.flows.u64s("ce_echoed_segs")[0],
        r.flows.u64s("acks_sent")[0],
        r.queues.f64s("sojourn_mean_s")[fwd],
        r.queues.f64s("utilization")[fwd],
        r.flows.f64s("goodput_bps")[0],
        r.queues.u64s("marks")[fwd] as f64 / rtts,
    )
}

/// TCP Prague needs accurate feedback (RFC 9331 section 4.2). Alone through DualPI2 with
/// AccECN (its default, with or without the option) and with DCTCP's per-segment echo, the
/// sender learns of every mark (22,184 and 22,095 CE packets received, as many reported),
/// about 11.6 marks per round trip, the L queue at 0.72 ms on average, the link full. AccECN
/// needs 12 % fewer ACKs than DCTCP's echo (166,791 against 188,592): DCTCP acknowledges every
/// change of the CE state at once, AccECN only a CE arrival after a packet that was not.
/// With RFC 3168's sticky ECE (which the Linux module would refuse, falling back to Reno)
/// every ACK from a mark until the CWR gets through counts as marked: 31,682 reported for
/// 16,032 received, alpha too high, cuts too deep, and the queue lower (0.62 ms).
#[test]
fn prague_learns_every_mark_with_accecn_or_dctcps_echo_and_twice_too_many_with_classic_ecn() {
    let with = |feedback: EcnFeedback, option: bool| prague(TcpConfig { ecn_feedback: Some(feedback), accecn_option: option, ..Default::default() }, 0.0);
    let acc = outcome(&with(EcnFeedback::AccEcn, true));
    let acc_no_option = outcome(&with(EcnFeedback::AccEcn, false));
    let dctcp = outcome(&with(EcnFeedback::Dctcp, true));
    let classic = outcome(&with(EcnFeedback::Classic, true));
    for (label, o) in [("AccECN", acc), ("AccECN without the option", acc_no_option), ("DCTCP's echo", dctcp), ("RFC 3168", classic)] {
        eprintln!("{label}: {} CE received, {} reported, {} ACKs, sojourn {:.3} ms, utilization {:.4}, goodput {:.1} Mb/s, {:.2} marks per RTT", o.0, o.1, o.2, o.3 * 1e3, o.4, o.5 / 1e6, o.6);
    }
    for o in [acc, acc_no_option, dctcp] {
        assert_eq!(o.0, o.1, "every mark reported once");
        assert!(o.3 < 1e-3 && o.4 > 0.99, "sojourn {}, utilization {}", o.3, o.4);
    }
    assert!(acc.2 < dctcp.2, "fewer ACKs: {} and {}", acc.2, dctcp.2);
    assert!(classic.1 > classic.0, "RFC 3168's echo overcounts: {classic:?}");
    assert!(classic.3 < acc.3, "deeper cuts, a lower queue: {} and {}", classic.3, acc.3);
}

/// Half of the ACKs lost at random on the reverse path: ACKs then acknowledge 4 packets on
/// average and sometimes 8 or more, where the ACE field could have wrapped. With the AccECN
/// option the sender still counts every mark (5,346 received, 5,346 reported). Without it the
/// safety rule of RFC 9768 Appendix A.2.1 (as Linux applies it: the moving average of packets
/// per ACK is not above 4) takes an ACK of 8 or more packets as all marked: marks that never
/// happened (2,120 reported, none received), and Prague collapses to 6.2 Mb/s. Taken as it is
/// (`accecn_safety = false`, the L4S team's `tcp_ecn_unsafe_cep = 1`) the field loses what
/// wrapped: 4,608 of 5,608. DCTCP's echo loses the marks of lost ACKs: 5,449 of 5,519.
#[test]
fn with_lost_acks_the_accecn_option_keeps_the_count_and_the_ace_field_alone_misleads() {
    let with = |feedback: EcnFeedback, option: bool, safety: bool| outcome(&prague(TcpConfig { ecn_feedback: Some(feedback), accecn_option: option, accecn_safety: safety, ..Default::default() }, 0.5));
    let option = with(EcnFeedback::AccEcn, true, true);
    let safe = with(EcnFeedback::AccEcn, false, true);
    let unsafe_ = with(EcnFeedback::AccEcn, false, false);
    let dctcp = with(EcnFeedback::Dctcp, true, true);
    for (label, o) in [("AccECN with the option", option), ("ACE field, safety rule", safe), ("ACE field as it is", unsafe_), ("DCTCP's echo", dctcp)] {
        eprintln!("{label}: {} CE received, {} reported, sojourn {:.3} ms, goodput {:.1} Mb/s", o.0, o.1, o.3 * 1e3, o.5 / 1e6);
    }
    assert!(option.0 > 1000 && option.1 == option.0, "{option:?}");
    assert!(safe.1 > safe.0 && safe.5 < 0.5 * option.5, "phantom marks: {safe:?}");
    assert!(unsafe_.1 < unsafe_.0, "wraps lost: {unsafe_:?}");
    assert!(dctcp.1 < dctcp.0, "marks of lost ACKs lost: {dctcp:?}");
}
