//! TCP Small Queues (`tcp::tsq`, `[tcp] tsq`) in the engine: what the paced flows of seed 000's
//! access link lose at their own host, with and without them, over an eager first link
//! (DropTail, the engine knows the end of each serialization when the packet arrives) and an
//! event-driven one (CoDel: known when the serialization starts). Every run also checks the
//! identity the engine keeps for them (`Sim::check_invariants`): what a sender has charged for
//! segments its first link has not reported is what those packets carry. The numbers are
//! printed (`--nocapture`).

use crosslayer_core::cc::CcConfig;
use crosslayer_core::presets;
use crosslayer_core::spec::TopologySpec;
use crosslayer_core::tcp::{TcpConfig, Tsq};
use crosslayer_core::{run, RunResult};
use std::sync::Arc;

/// Seed 000's access link with 9 BBR flows, 30 s (measured from 9 s), under `tsq`; with the
/// sender hosts' queues CoDel (1000 packets) instead of DropTail when `codel_hosts`.
fn access_bbr(seed: u64, tsq: Tsq, codel_hosts: bool) -> RunResult {
    let mut spec = presets::access_link(9, CcConfig::default_for("bbr").expect("bbr"), 30);
    spec.seed = seed;
    for f in &mut spec.flows {
        f.tcp = Arc::new(TcpConfig { tsq: Some(tsq), ..TcpConfig::default() });
    }
    if codel_hosts {
        let TopologySpec::Dumbbell { senders, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        for h in senders {
            h.up.qdisc = codel();
        }
    }
    run(spec).expect("run")
}

/// A CoDel queue of 1000 packets with its defaults.
fn codel() -> crosslayer_core::aqm::QdiscConfig {
    crosslayer_core::aqm::QdiscConfig::Codel(crosslayer_core::aqm::codel::CodelConfig { limit_pkts: 1000, ..Default::default() })
}

/// Drops at the sender hosts' own queues (`sender_up` links), and the bottleneck's drop ratio.
fn drops(r: &RunResult) -> (u64, f64) {
    let (role, drops, ratio) = (r.queues.strs("role"), r.queues.u64s("drops"), r.queues.f64s("drop_ratio"));
    let host = (0..role.len()).filter(|&i| role[i] == "sender_up").map(|i| drops[i]).sum();
    let b = role.iter().position(|s| s == "forward").expect("A->B");
    (host, ratio[b])
}

/// Without TCP Small Queues, BBR's STARTUP and 5/4 probes (up to 2.89 times its estimate) fill
/// host N1's 1000-packet queue, which its three flows share at the bottleneck's rate, and drop
/// there (seeds 1-3: 21,612, 0 and 7,122 packets); with them (the linux profile's "paced"), a
/// flow keeps a few segments in its host and nothing is lost there. Where those packets go
/// instead is not a property this scenario shows: over 30 seeds the bottleneck's drop ratio
/// is 6.3 % without them and 7.6 % with (before routers took their arrivals late, 6.6 and
/// 6.8 %), and the means of three consecutive seeds range from 0.55 to 1.8 times (0.3 to 2.3
/// before; `docs/models/tcp.md`), so it is not asserted. Seeds 1-3, DropTail hosts.
#[test]
fn paced_flows_lose_nothing_at_their_own_host_under_small_queues() {
    let mut off_host = 0;
    for seed in 1..=3 {
        let (off, on) = (drops(&access_bbr(seed, Tsq::Off, false)), drops(&access_bbr(seed, Tsq::Paced, false)));
        eprintln!("seed {seed}: host drops {} -> {}, bottleneck drop ratio {:.2} % -> {:.2} %", off.0, on.0, off.1 * 100.0, on.1 * 100.0);
        assert_eq!(on.0, 0, "seed {seed}: nothing lost at the hosts");
        off_host += off.0;
    }
    assert!(off_host > 1000, "without them the hosts drop: {off_host}");
}

/// The same with CoDel at the hosts: the first link is event-driven, and the engine reports
/// each TX completion when the serialization starts. Without TCP Small Queues CoDel drops at
/// the hosts as their standing queues exceed 5 ms (seed 1: 13,514 packets, queues of 202 and
/// 367 packets on average); with them the hosts' queues stay short, a few segments for each of
/// a host's three flows (seed 1: 9.3 packets at most; 0 to 15 over seeds 1-8, in this order of
/// events and in the two before it, against 51 to 367 over seeds 1-5 without), and CoDel drops
/// only where three flows pace at several times the link's rate at once (none in seed 1).
#[test]
fn small_queues_work_over_an_event_driven_first_link() {
    let (off, on) = (access_bbr(1, Tsq::Off, true), access_bbr(1, Tsq::Paced, true));
    let host_qlen = |r: &RunResult| -> Vec<f64> {
        let (role, qlen) = (r.queues.strs("role"), r.queues.f64s("qlen_mean_pkts"));
        (0..role.len()).filter(|&i| role[i] == "sender_up").map(|i| qlen[i]).collect()
    };
    let (q_off, q_on) = (host_qlen(&off), host_qlen(&on));
    eprintln!("CoDel hosts, seed 1: host drops {} -> {}, host queues {q_off:?} -> {q_on:?} pkts", drops(&off).0, drops(&on).0);
    assert!(drops(&off).0 > 1000);
    assert!(drops(&on).0 * 100 < drops(&off).0);
    let largest = |q: &[f64]| q.iter().copied().fold(0.0, f64::max);
    assert!(largest(&q_on) * 10.0 < largest(&q_off), "{q_on:?} against {q_off:?}");
}

/// A host whose first link feeds the next one alone (S -> R1 -> R2 -> D, R1 -> R2 at 10 Mb/s
/// with 5 packets of DropTail): the engine decides R1 -> R2 ahead, as S's packets enter S ->
/// R1's pipe, before it reports their completion at S -> R1, so a packet R1 -> R2 drops is
/// still charged then and is reported done at the end of its serialization at S. One BBR flow
/// (the profile's "paced") and one CUBIC flow under tsq = "all", each alone: the bottleneck
/// drops, the host never does, and every run's check of the charges holds.
#[test]
fn small_queues_over_a_first_link_that_feeds_the_next_alone() {
    use serde_json::json;
    let dt = |limit: u32| json!({"kind": "droptail", "limit_pkts": limit});
    let mut links = Vec::new();
    for (a, b, rate, q) in [("S", "R1", 100_000_000u64, dt(1000)), ("R1", "R2", 10_000_000, dt(5)), ("R2", "D", 100_000_000, dt(1000))] {
        for (x, y) in [(a, b), (b, a)] {
            links.push(json!({"from": x, "to": y, "edge": {"rate": rate, "delay": 5_000_000, "qdisc": q}}));
        }
    }
    let nodes = json!([{"name": "S", "host": true}, {"name": "D", "host": true}, {"name": "R1"}, {"name": "R2"}]);
    for (cc, tsq) in [("bbr", "paced"), ("cubic", "all")] {
        let spec: crosslayer_core::spec::ScenarioSpec = serde_json::from_value(json!({
            "seed": 1, "duration": 10_000_000_000u64, "warmup": 2_000_000_000u64,
            "topology": {"kind": "graph", "nodes": nodes, "links": links, "routing": {}},
            "flows": [{"name": "f", "src": "S", "dst": "D", "cc": {"kind": cc}, "tcp": {"tsq": tsq}, "start": {"kind": "fixed", "at": 0}}],
        }))
        .expect("an engine spec");
        let r = run(spec).expect("run");
        let (link, drops) = (r.queues.strs("link"), r.queues.u64s("drops"));
        let at = |name: &str| drops[link.iter().position(|l| l == name).expect(name)];
        eprintln!("{cc}, tsq = {tsq}: drops at S->R1 {}, at R1->R2 {}", at("S->R1"), at("R1->R2"));
        assert_eq!(at("S->R1"), 0, "{cc}");
        assert!(at("R1->R2") > 0, "{cc}: the bottleneck drops");
    }
}
