//! Link impairments in runs (`net::impair`; the laws are its unit tests): an outage holds
//! exactly what arrives during it (the queue keeps what fits, its discipline drops the rest, and
//! all of it leaves when the link is back); a rate schedule carries exactly its rates; normal
//! jitter never reorders; Gilbert-Elliott loss on a link loses at its long-run rate; bad
//! impairments are named in validation; jitter reorders only when told to; a duplicating link
//! copies at its rate; a trace-driven link carries exactly its trace's opportunities.

mod common;

use crosslayer_core::spec::ScenarioSpec;
use crosslayer_core::{run, RunResult};
use serde_json::{json, Value as Json};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// S - R1 - R2 - D (`common::line`); the R1 -> R2 link at 10 Mb/s and 10 ms with `impair`, a
/// jitter and a DropTail of `limit` packets; host links 100 Mb/s, 1 ms.
fn net(impair: Json, limit: u32, jitter: u64) -> Json {
    common::line(json!({"impair": impair, "jitter": jitter}), limit)
}

fn spec(topology: Json, flows: Vec<Json>, udp: Vec<Json>, duration_s: u64) -> ScenarioSpec {
    serde_json::from_value(json!({"seed": 2, "duration": duration_s * S, "topology": topology, "flows": flows, "udp": udp})).expect("an engine spec")
}

fn cbr(rate: u64) -> Json {
    json!({"name": "u", "src": "S", "dst": "D", "rate": rate, "packet_size": 1250})
}

fn link(r: &RunResult, name: &str, col: &str) -> u64 {
    let i = r.queues.strs("link").iter().position(|l| l == name).expect("the link");
    r.queues.u64s(col)[i]
}

/// 1 Mb/s of 1250-byte datagrams is 100 a second: an outage of R1->R2 in [1 s, 2 s) meets 100
/// of them; a 30-packet queue keeps 30 and drops 70, which is all that is lost; with a queue of
/// 1000 nothing is lost and every datagram arrives.
#[test]
fn an_outage_holds_what_fits_in_the_queue_and_drops_the_rest() {
    let outage = json!({"outages": [{"from": S, "to": 2 * S}]});
    let r = run(spec(net(outage.clone(), 30, 0), vec![], vec![cbr(1_000_000)], 4)).expect("run");
    assert_eq!(link(&r, "R1->R2", "drops"), 70);
    let (sent, got) = (r.udp.u64s("sent_pkts")[0], r.udp.u64s("delivered_pkts")[0]);
    assert!(sent - got - 70 <= 2, "sent {sent}, delivered {got}: only the 70 drops and what was in flight at the end are missing");
    let r = run(spec(net(outage, 1000, 0), vec![], vec![cbr(1_000_000)], 4)).expect("run");
    assert_eq!(link(&r, "R1->R2", "drops"), 0);
    // the datagrams held for the outage waited up to its whole second
    let owd_p99 = r.udp.f64s("owd_p99_s")[0];
    assert!(owd_p99 > 0.5, "{owd_p99}");
}

/// A saturating CBR over R1 -> R2 (10 Mb/s, then 5 Mb/s from 2 s, then 20 Mb/s from 3 s): the
/// link carries exactly 10 Mb/s x 2 s + 5 Mb/s x 1 s + 20 Mb/s x 1 s, to a packet.
#[test]
fn a_rate_schedule_carries_its_rates() {
    let schedule = json!({"schedule": [{"at": 2 * S, "rate": 5_000_000}, {"at": 3 * S, "rate": 20_000_000}]});
    let r = run(spec(net(schedule, 1000, 0), vec![], vec![cbr(50_000_000)], 4)).expect("run");
    let bytes = link(&r, "R1->R2", "tx_bytes") as f64;
    let expect = (10e6 * 2.0 + 5e6 + 20e6) / 8.0;
    assert!((bytes - expect).abs() <= 2.0 * 1250.0, "{bytes} vs {expect}");
}

/// Half-normal jitter of scale 2 ms on a 10 Mb/s link: a TCP flow sees no reordering (no
/// duplicate ACK, no retransmission with a queue that never fills).
#[test]
fn normal_jitter_never_reorders() {
    let flow = json!({"name": "f", "src": "S", "dst": "D", "cc": {"kind": "cubic"}, "start": {"kind": "fixed", "at": 0}, "tcp": {"rwnd": 100_000}});
    let r = run(spec(net(json!({"jitter_dist": "normal"}), 1000, 2 * MS), vec![flow], vec![], 10)).expect("run");
    assert_eq!(r.flows.u64s("dup_acks")[0], 0);
    assert_eq!(r.flows.u64s("retransmits")[0], 0);
    assert!(r.flows.f64s("rtt_mean_s")[0] > 0.0445, "the jitter adds delay");
}

/// Gilbert-Elliott (p = 0.01, r = 0.25, loss 1 in the bad state): 3.85 % of the packets the link
/// sends are lost in the long run; 40,000 datagrams land within 1 point of it.
#[test]
fn gilbert_elliott_loses_at_its_long_run_rate_in_a_run() {
    let ge = json!({"loss_model": {"kind": "gilbert_elliott", "p": 0.01, "r": 0.25}});
    let r = run(spec(net(ge, 1000, 0), vec![], vec![cbr(5_000_000)], 80)).expect("run");
    let rate = link(&r, "R1->R2", "lost_random") as f64 / link(&r, "R1->R2", "tx_pkts") as f64;
    assert!((rate - 0.01 / 0.26).abs() < 0.01, "{rate}");
}

fn datagrams(rate: u64, size: u32) -> Json {
    json!({"name": "u", "src": "S", "dst": "D", "rate": rate, "packet_size": size})
}

/// Pareto-normal jitter of scale 5 ms on the 10 Mb/s link (a full segment every 1.2 ms): with
/// `reorder`, segments overtake each other and the receiver's out-of-order arrivals make
/// duplicate ACKs; without, a segment waits for the one before it and there is none.
#[test]
fn jitter_reorders_only_when_told_to() {
    let flow = json!({"name": "f", "src": "S", "dst": "D", "cc": {"kind": "cubic"}, "start": {"kind": "fixed", "at": 0}, "tcp": {"rwnd": 100_000}});
    for (reorder, dist) in [(false, "pareto_normal"), (true, "pareto_normal"), (true, "pareto")] {
        let impair = json!({"jitter_dist": dist, "reorder": reorder});
        let r = run(spec(net(impair, 1000, 5 * MS), vec![flow.clone()], vec![], 10)).expect("run");
        let dup_acks = r.flows.u64s("dup_acks")[0];
        match reorder {
            false => assert_eq!(dup_acks, 0, "{dist}"),
            true => assert!(dup_acks > 100, "{dist}: {dup_acks} duplicate ACKs"),
        }
    }
}

/// A link that duplicates 10 % of what it sends: 50,000 datagrams arrive 1.1 times each on
/// average (within 3 standard deviations of the binomial), and every copy is accounted for
/// (the run's conservation check counts copies).
#[test]
fn a_duplicating_link_copies_at_its_rate() {
    let r = run(spec(net(json!({"duplicate": 0.1}), 1000, 0), vec![], vec![cbr(5_000_000)], 101)).expect("run");
    let (sent, got) = (r.udp.u64s("sent_pkts")[0] as f64, r.udp.u64s("delivered_pkts")[0] as f64);
    let copies = got - sent;
    let sd = (sent * 0.1 * 0.9).sqrt();
    assert!((copies - 0.1 * sent).abs() < 3.0 * sd + 2.0, "{sent} sent, {got} delivered");
    // a TCP flow over it completes its transfer, duplicate ACKs and all
    let flow = json!({"name": "f", "src": "S", "dst": "D", "cc": {"kind": "cubic"}, "start": {"kind": "fixed", "at": 0}, "size": 2_000_000});
    let r = run(spec(net(json!({"duplicate": 0.1}), 1000, 0), vec![flow], vec![], 10)).expect("run");
    assert_eq!(r.flows.u64s("bytes_left")[0], 0);
}

/// A trace-driven R1 -> R2 (mahimahi's format: an opportunity of 1504 bytes per line), fed more
/// than it carries: 1500-byte datagrams take one opportunity each, so the link carries exactly
/// the trace's opportunities (here 4 per 4 ms: 12 Mb/s, repeating); 720-byte ones share them
/// (724 bytes each with the tun header; what one opportunity leaves, the next packet starts with
/// and finishes at the next), so the link carries its 1504 bytes per opportunity of them.
#[test]
fn a_trace_driven_link_delivers_the_traces_capacity() {
    let trace = json!({"opportunities_ms": [1, 1, 3, 4]}); // period 4 ms: at 1, 1, 3, 4, 5, 5, 7, 8, ...
    for size in [1500u32, 720] {
        let r = run(spec(net(json!({"trace": trace}), 1000, 0), vec![], vec![datagrams(20_000_000, size)], 4)).expect("run");
        let carried = link(&r, "R1->R2", "tx_pkts");
        // 4 s: 1000 periods of 4 opportunities, but the first datagram reaches R1 after the two
        // at 1 ms (1 ms of propagation and its serialization): those two go unused
        let opportunities = 4000 / 4 * 4 - 2;
        let expect = opportunities * 1504 / (size as u64 + 4);
        assert!(carried.abs_diff(expect) <= 1, "{size}-byte packets: {carried} carried, {opportunities} opportunities: {expect}");
    }
    // no repeat: after the trace's 4 ms nothing more passes
    let once = json!({"trace": {"opportunities_ms": [1, 1, 3, 4], "repeat": false}});
    let r = run(spec(net(once, 1000, 0), vec![], vec![datagrams(20_000_000, 1500)], 1)).expect("run");
    assert!(r.udp.u64s("delivered_pkts")[0] <= 4);
}

#[test]
fn bad_impairments_are_named() {
    let bad = [
        (json!({"outages": [{"from": 2 * S, "to": S}]}), "topology.links[2].edge.impair.outages[0]: ends"),
        (json!({"outages": [{"from": S, "to": 3 * S}, {"from": 2 * S, "to": 4 * S}]}), "overlaps"),
        (json!({"schedule": [{"at": 2 * S, "rate": 1000}, {"at": S, "delay": MS}]}), "impair.schedule[1]: at the same time as or before"),
        (json!({"loss_model": {"kind": "gilbert_elliott", "p": 0.1, "r": 0.0}}), "impair.loss_model.r"),
        (json!({"loss_model": {"kind": "periodic", "every": 0}}), "impair.loss_model.every"),
        (json!({"loss_model": {"kind": "ber", "ber": 1.5}}), "impair.loss_model.ber"),
        (json!({"duplicate": 1.5}), "impair.duplicate: a probability"),
        (json!({"trace": {"opportunities_ms": [3, 2]}}), "impair.trace: opportunity 1 (2 ms) comes before"),
        (json!({"trace": {"opportunities_ms": [0, 0]}}), "impair.trace: the last opportunity must be after 0 ms"),
        (json!({"trace": {"opportunities_ms": [1]}, "schedule": [{"at": S, "rate": 1000}]}), "no rate to schedule"),
    ];
    for (impair, expect) in bad {
        let s = spec(net(impair, 100, 0), vec![], vec![cbr(1_000_000)], 4);
        let msg = s.problems().iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; ");
        assert!(msg.contains(expect), "{expect}: {msg}");
    }
}

/// A finite flow over a link that duplicates and reorders its data, whose receiver's first
/// link loses half of what it sends: late copies of data reach the receiver after the sender
/// has everything acknowledged, and the duplicate ACK they cause is lost at once, the flow's
/// last packet in the network. The flow ends there, inside the receiver's turn, and the run
/// goes on (a review's property run found it stopping with "outside its life").
#[test]
fn a_flow_whose_last_packet_is_lost_as_its_receiver_sends_it_ends_cleanly() {
    let lossy = |v: &mut Json| {
        let links = v["links"].as_array_mut().unwrap();
        links[5]["edge"]["loss"] = json!(0.5); // D -> R2: the ACKs' first link
    };
    let mut ended = 0;
    for seed in 1..=40u64 {
        let mut topo = net(json!({"duplicate": 0.5, "jitter_dist": "pareto", "reorder": true}), 1000, 20 * MS);
        lossy(&mut topo);
        let flows: Vec<Json> = (0..4).map(|k| json!({"name": format!("f{k}"), "src": "S", "dst": "D", "cc": {"kind": "cubic"}, "start": {"kind": "fixed", "at": k * 100 * MS}, "size": 3000 + 7000 * k})).collect();
        let mut s = spec(topo, flows, vec![], 20);
        s.seed = seed;
        let r = run(s).expect("the run ends with its checks passed");
        ended += r.flows.u64s("bytes_left").iter().filter(|&&b| b == 0).count();
    }
    assert!(ended > 100, "{ended} of 160 flows completed");
}
