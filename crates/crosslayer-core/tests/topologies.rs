//! Graph topologies: the parking lot of issue 19 as written (every link direction's queue
//! identities and the flows' counts adding up to them, checked by every run), its fairness
//! (each hop busy, the long flow below each one-hop flow), routing (hop count or delay,
//! overrides, asymmetric routes), ECMP on a leaf-spine (balance within the hash's binomial
//! spread, one path per flow: no reordering), the presets, and every bad input named.

use crosslayer_core::spec::ScenarioSpec;
use crosslayer_core::{run, RunResult};
use serde_json::{json, Value as Json};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn droptail(limit: u32) -> Json {
    json!({"kind": "droptail", "limit_pkts": limit})
}

fn edge(rate_bps: u64, delay_ns: u64, qdisc: &Json) -> Json {
    json!({"rate": rate_bps, "delay": delay_ns, "qdisc": qdisc})
}

/// A graph of full-duplex links `(a, b, rate, delay, qdisc)`.
fn graph(hosts: &[&str], routers: &[&str], links: &[(&str, &str, u64, u64, Json)], routing: Json) -> Json {
    let mut nodes: Vec<Json> = hosts.iter().map(|h| json!({"name": h, "host": true})).collect();
    nodes.extend(routers.iter().map(|r| json!({"name": r})));
    let mut out = Vec::new();
    for (a, b, rate, delay, q) in links {
        out.push(json!({"from": a, "to": b, "edge": edge(*rate, *delay, q)}));
        out.push(json!({"from": b, "to": a, "edge": edge(*rate, *delay, q)}));
    }
    json!({"kind": "graph", "nodes": nodes, "links": out, "routing": routing})
}

fn flow(name: &str, src: &str, dst: &str, cc: &str) -> Json {
    json!({"name": name, "src": src, "dst": dst, "cc": {"kind": cc}, "start": {"kind": "fixed", "at": 0}})
}

fn spec(topology: Json, flows: Vec<Json>, duration_s: u64, warmup_s: u64) -> ScenarioSpec {
    let s = json!({"seed": 1, "duration": duration_s * S, "warmup": warmup_s * S, "series_queue": "bottleneck", "sample_interval": 100 * MS,
                   "topology": topology, "flows": flows});
    serde_json::from_value(s).expect("an engine spec")
}

/// The parking lot of issue 19, as written there: 3 CoDel hops of 10 Mb/s and 10 ms, hosts on
/// 100 Mb/s, 1 ms links, the long flow S0 -> D0 and one cross flow per hop.
fn parking_lot(duration_s: u64, warmup_s: u64) -> ScenarioSpec {
    let codel = json!({"kind": "codel"});
    let mut links: Vec<(&str, &str, u64, u64, Json)> = vec![
        ("R1", "R2", 10_000_000, 10 * MS, codel.clone()),
        ("R2", "R3", 10_000_000, 10 * MS, codel.clone()),
        ("R3", "R4", 10_000_000, 10 * MS, codel),
    ];
    for (h, r) in [("S0", "R1"), ("D0", "R4"), ("S1", "R1"), ("D1", "R2"), ("S2", "R2"), ("D2", "R3"), ("S3", "R3"), ("D3", "R4")] {
        links.push((h, r, 100_000_000, MS, droptail(1000)));
    }
    let topo = graph(&["S0", "S1", "S2", "S3", "D0", "D1", "D2", "D3"], &["R1", "R2", "R3", "R4"], &links, json!({}));
    let flows = (0..4).map(|i| flow(&format!("S{i}-D{i}.0"), &format!("S{i}"), &format!("D{i}"), "cubic")).collect();
    spec(topo, flows, duration_s, warmup_s)
}

fn row(t: &crosslayer_core::result::Table, col: &str, value: &str) -> usize {
    t.strs(col).iter().position(|v| v == value).unwrap_or_else(|| panic!("no row with {col} = {value}"))
}

fn goodput(r: &RunResult, flow: &str) -> f64 {
    r.flows.f64s("goodput_bps")[row(&r.flows, "name", flow)]
}

#[test]
fn the_parking_lot_runs_and_every_link_adds_up() {
    let r = run(parking_lot(20, 5)).expect("run");
    // 11 full-duplex links: 22 queues, each with its own row.
    assert_eq!(r.queues.rows(), 22);
    assert!(r.queues.strs("role").iter().filter(|&r| r == "router").count() == 6);
    // Routes: the long flow crosses every hop, the cross flows one; ACKs come back the same way.
    let f = &r.flows;
    let k = row(f, "name", "S0-D0.0");
    assert_eq!(f.strs("route")[k], "S0->R1,R1->R2,R2->R3,R3->R4,R4->D0");
    assert_eq!(f.strs("ack_route")[k], "D0->R4,R4->R3,R3->R2,R2->R1,R1->S0");
    assert_eq!(f.strs("bottleneck")[k], "R1->R2", "the first of equal hops");
    let k2 = row(f, "name", "S2-D2.0");
    assert_eq!(f.strs("route")[k2], "S2->R2,R2->R3,R3->D2");
    assert_eq!(f.strs("bottleneck")[k2], "R2->R3");
    // The hops table: per flow and direction, one row per link, summing (over flows) to each
    // queue's arrivals and drops in the window.
    let h = &r.hops;
    assert_eq!(h.rows(), 2 * (5 + 3 + 3 + 3));
    for q in 0..r.queues.rows() {
        let link = &r.queues.strs("link")[q];
        let sum = |col: &str| (0..h.rows()).filter(|&i| &h.strs("link")[i] == link).map(|i| h.u64s(col)[i]).sum::<u64>();
        assert_eq!(sum("arrivals"), r.queues.u64s("arrivals")[q], "{link}");
        assert_eq!(sum("drops"), r.queues.u64s("drops")[q], "{link}");
        assert_eq!(sum("marks"), r.queues.u64s("marks")[q], "{link}");
    }
    // series follows the link most flows have as their bottleneck: R1->R2 (S0 and S1).
    assert_eq!(r.queues.u64s("bottleneck_flows")[row(&r.queues, "link", "R1->R2")], 2);
    assert!(r.series.rows() > 100);
}

#[test]
fn parking_lot_each_hop_is_busy_and_the_long_flow_gets_less_than_each_cross_flow() {
    let r = run(parking_lot(60, 10)).expect("run");
    for hop in ["R1->R2", "R2->R3", "R3->R4"] {
        let u = r.queues.f64s("utilization")[row(&r.queues, "link", hop)];
        assert!(u > 0.9, "{hop}: utilization {u}");
    }
    let long = goodput(&r, "S0-D0.0");
    for i in 1..=3 {
        let cross = goodput(&r, &format!("S{i}-D{i}.0"));
        assert!(long < cross, "long flow {long} vs S{i}: {cross}");
    }
    // Each hop carries close to its capacity in goodput: the long flow plus its cross flow.
    for i in 1..=3 {
        let sum = long + goodput(&r, &format!("S{i}-D{i}.0"));
        assert!(sum > 0.85 * 10e6 && sum < 10e6, "hop {i}: {sum}");
    }
}

#[test]
fn the_parking_lot_preset_expands_to_the_same_network() {
    let topo = json!({"kind": "parking_lot", "hops": 3, "qdisc": {"kind": "codel"}});
    let flows = (0..4).map(|i| flow(&format!("f{i}"), &format!("S{i}"), &format!("D{i}"), "cubic")).collect();
    let r = run(spec(topo, flows, 5, 1)).expect("run");
    assert_eq!(r.queues.rows(), 22);
    assert_eq!(r.flows.strs("route")[0], "S0->R1,R1->R2,R2->R3,R3->R4,R4->D0");
    assert_eq!(r.queues.strs("qdisc")[row(&r.queues, "link", "R2->R3")], "codel");
    assert_eq!(r.queues.strs("qdisc")[row(&r.queues, "link", "S0->R1")], "droptail");
}

/// A square: S - R1 - R2 - D along the bottom (two slow-delay hops), and R1 - R3 - R4 - R2 ...
/// here: R1 -> R2 direct with 50 ms, or R1 -> R3 -> R2 with 2 x 5 ms.
fn square(routing: Json) -> ScenarioSpec {
    let q = droptail(100);
    let links = vec![
        ("S", "R1", 100_000_000, MS, q.clone()),
        ("R1", "R2", 100_000_000, 50 * MS, q.clone()),
        ("R1", "R3", 100_000_000, 5 * MS, q.clone()),
        ("R3", "R2", 100_000_000, 5 * MS, q.clone()),
        ("R2", "D", 100_000_000, MS, q),
    ];
    spec(graph(&["S", "D"], &["R1", "R2", "R3"], &links, routing), vec![flow("f", "S", "D", "reno")], 2, 0)
}

#[test]
fn routes_by_hops_or_by_delay_with_overrides_and_asymmetry() {
    let r = run(square(json!({"metric": "hops"}))).unwrap();
    assert_eq!(r.flows.strs("route")[0], "S->R1,R1->R2,R2->D");
    assert!((r.flows.f64s("base_rtt_s")[0] - 0.104).abs() < 1e-9);
    let r = run(square(json!({"metric": "delay"}))).unwrap();
    assert_eq!(r.flows.strs("route")[0], "S->R1,R1->R3,R3->R2,R2->D");
    assert!((r.flows.f64s("base_rtt_s")[0] - 0.024).abs() < 1e-9);
    // An override for the data only: the ACKs keep the shortest path (asymmetric routes).
    let r = run(square(json!({"metric": "hops", "overrides": [{"at": "R1", "to": ["D"], "via": "R3"}]}))).unwrap();
    assert_eq!(r.flows.strs("route")[0], "S->R1,R1->R3,R3->R2,R2->D");
    assert_eq!(r.flows.strs("ack_route")[0], "D->R2,R2->R1,R1->S");
    assert!((r.flows.f64s("base_rtt_s")[0] - (0.012 + 0.052)).abs() < 1e-9);
}

/// A leaf-spine preset with ECMP: from each host of leaf 1 to each host of leaf 2,
/// `per_pair` TCP flows (sending for 20 ms) and `per_pair` constant-rate UDP flows of 5 Mb/s, on
/// queues that never drop.
fn leaf_spine(spines: u32, per_pair: usize, seed: u64) -> ScenarioSpec {
    let big = droptail(100_000);
    let topo = json!({"kind": "leaf_spine", "leaves": 2, "spines": spines, "hosts_per_leaf": 8, "host_rate": 1_000_000_000u64,
                      "delay": 10_000, "qdisc": big, "host_qdisc": big});
    let (mut flows, mut udp) = (Vec::new(), Vec::new());
    for i in 1..=8 {
        for j in 1..=8 {
            for k in 0..per_pair {
                let (src, dst) = (format!("H1_{i}"), format!("H2_{j}"));
                flows.push(json!({"name": format!("{src}-{dst}.{k}"), "src": src, "dst": dst, "cc": {"kind": "reno"},
                                  "start": {"kind": "fixed", "at": 0}, "stop": 20 * MS}));
                udp.push(json!({"name": format!("{src}-{dst}.udp{k}"), "src": src, "dst": dst, "rate": 5_000_000, "packet_size": 1500}));
            }
        }
    }
    let mut s = spec(topo, flows, 1, 0);
    s.udp = serde_json::from_value(Json::Array(udp)).unwrap();
    s.seed = seed;
    s.series_queue = "LF1->SP1".into();
    s
}

#[test]
fn ecmp_spreads_flows_over_the_spines_as_the_hash_predicts_and_keeps_each_on_one_path() {
    let spines = 4u32;
    let mut chi2 = 0.0;
    let mut cells = 0;
    for seed in 1..=5 {
        let r = run(leaf_spine(spines, 4, seed)).expect("run");
        // Each flow's data crosses exactly one LF1 -> SPk link: its route names one spine.
        let spine_of = |route: &str| {
            let ups: Vec<&str> = route.split(',').filter(|l| l.starts_with("LF1->SP")).collect();
            assert_eq!(ups.len(), 1, "{route}");
            ups[0][7..].parse::<usize>().unwrap() - 1
        };
        let mut per_spine = vec![0u64; spines as usize];
        for route in r.udp.strs("route") {
            per_spine[spine_of(&route)] += 1;
        }
        // The 256 UDP flows over 4 spines: Binomial(256, 1/4) each, mean 64, SD 6.9.
        let n = r.udp.rows() as f64;
        let (mean, sd) = (n / spines as f64, (n * (1.0 / spines as f64) * (1.0 - 1.0 / spines as f64)).sqrt());
        for &c in &per_spine {
            assert!((c as f64 - mean).abs() < 4.0 * sd, "seed {seed}: {per_spine:?}");
            chi2 += (c as f64 - mean).powi(2) / mean;
            cells += 1;
        }
        // Every UDP flow sends at the same constant rate, so each spine's share of the
        // datagram load is its share of the flows: what the hash predicts, to the packet.
        let h = &r.hops;
        let load = |k: usize| {
            let link = format!("LF1->SP{k}");
            (0..h.rows()).filter(|&i| h.strs("protocol")[i] == "udp" && h.strs("link")[i] == link).map(|i| h.u64s("arrivals")[i]).sum::<u64>() as f64
        };
        let total: f64 = (1..=spines as usize).map(load).sum();
        for k in 1..=spines as usize {
            let (share, expect) = (load(k) / total, per_spine[k - 1] as f64 / n);
            assert!((share - expect).abs() < 0.002, "spine {k}: {share} of the datagrams for {expect} of the flows");
        }
        // No flow ever reorders: nothing is dropped, so a TCP retransmission or a duplicate
        // would come from packets of one flow taking two paths; and each TCP flow's data
        // crossed one spine only (the hops table counts its packets at one LF1 -> SP link).
        assert_eq!(r.queues.u64s("drops").iter().sum::<u64>(), 0);
        assert!(r.flows.u64s("retransmits").iter().all(|&x| x == 0));
        assert!(r.flows.u64s("dup_pkts").iter().all(|&x| x == 0));
        let (flow, link) = (h.strs("flow"), h.strs("link"));
        for f in r.flows.strs("name") {
            let used = (0..h.rows()).filter(|&i| flow[i] == f && link[i].starts_with("LF1->SP") && h.u64s("arrivals")[i] > 0).count();
            assert_eq!(used, 1, "{f}");
        }
    }
    // Over 5 seeds x 4 spines (15 degrees of freedom), the counts fit the uniform hash: the
    // chi-square statistic stays under its 99.9th percentile (37.7).
    assert!(chi2 < 37.7, "chi2 {chi2} over {cells} cells");
}

#[test]
fn fat_tree_routes_over_three_tiers_with_ecmp() {
    let topo = json!({"kind": "fat_tree", "k": 4});
    let flows = vec![flow("a", "H1_1_1", "H4_2_2", "cubic"), flow("b", "H1_1_1", "H1_1_2", "cubic"), flow("c", "H1_1_1", "H1_2_1", "cubic")];
    let r = run(spec(topo, flows, 1, 0)).expect("run");
    let hops = |k: usize| r.flows.strs("route")[k].split(',').count();
    assert_eq!((hops(0), hops(1), hops(2)), (6, 2, 4), "{:?}", r.flows.strs("route"));
    assert_eq!(r.queues.rows(), 2 * (16 + 16 + 16));
}

fn problems(s: &ScenarioSpec) -> String {
    s.validate().expect_err("invalid")
}

#[test]
fn bad_graphs_are_named_in_validation() {
    let base = || parking_lot(5, 1);
    let set = |f: &dyn Fn(&mut Json)| {
        let mut v = serde_json::to_value(base()).unwrap();
        f(&mut v);
        serde_json::from_value::<ScenarioSpec>(v).unwrap()
    };
    // an unknown node
    let e = problems(&set(&|v| v["topology"]["links"][0]["to"] = json!("R9")));
    assert!(e.contains("topology.links[0].to: unknown node \"R9\""), "{e}");
    // a role the result tables do not know (it was an internal error)
    let e = problems(&set(&|v| v["topology"]["links"][0]["role"] = json!("uplink")));
    assert!(e.contains("topology.links[0].role: unknown role \"uplink\": one of forward, reverse,"), "{e}");
    // a link to itself
    let e = problems(&set(&|v| v["topology"]["links"][0]["to"] = json!("R1")));
    assert!(e.contains("topology.links[0]: a link from \"R1\" to itself"), "{e}");
    // a duplicate link
    let e = problems(&set(&|v| {
        let l = v["topology"]["links"][0].clone();
        v["topology"]["links"].as_array_mut().unwrap().push(l);
    }));
    assert!(e.contains("duplicate link R1->R2"), "{e}");
    // a disconnected graph: D3's links removed; which hosts cannot reach which
    let e = problems(&set(&|v| {
        let links = v["topology"]["links"].as_array_mut().unwrap();
        links.retain(|l| l["from"] != "D3" && l["to"] != "D3");
    }));
    assert!(e.contains("the graph is disconnected") && e.contains("S0 cannot reach D3"), "{e}");
    // a one-way link: R3 -> R4 only; D0 unreachable from S0, and the message says so
    let e = problems(&set(&|v| {
        let links = v["topology"]["links"].as_array_mut().unwrap();
        links.retain(|l| !(l["from"] == "R4" && l["to"] == "R3"));
    }));
    assert!(e.contains("cannot reach"), "{e}");
    // a flow to a router, to an unknown host, between the same host, by index
    let e = problems(&set(&|v| v["flows"][1]["dst"] = json!("R2")));
    assert!(e.contains("flows[1].dst: \"R2\" is a router: a flow runs between two hosts"), "{e}");
    let e = problems(&set(&|v| v["flows"][1]["dst"] = json!("D9")));
    assert!(e.contains("flows[1].dst: unknown host \"D9\""), "{e}");
    let e = problems(&set(&|v| v["flows"][1]["dst"] = json!("S1")));
    assert!(e.contains("flows[1].dst: the flow's source and sink are the same host"), "{e}");
    let e = problems(&set(&|v| v["flows"][1]["dst"] = json!(0)));
    assert!(e.contains("flows[1].dst: in a graph a flow names its hosts"), "{e}");
    // a route override that loops: R2 sends D0's packets back to R1, which sends them to R2
    let e = problems(&set(&|v| v["topology"]["routing"] = json!({"overrides": [{"at": "R2", "to": ["D0"], "via": "R1"}]})));
    assert!(e.contains("flows[0].dst: the route from S0 to D0 loops (S0 -> R1 -> R2 -> R1)"), "{e}");
    // a host used as a router: in an override's `at`, or as `via` for another host
    let e = problems(&set(&|v| v["topology"]["routing"] = json!({"overrides": [{"at": "S1", "to": ["D1"], "via": "R1"}]})));
    assert!(e.contains("topology.routing.overrides[0].at: \"S1\" is a host: hosts do not forward"), "{e}");
    let e = problems(&set(&|v| v["topology"]["routing"] = json!({"overrides": [{"at": "R1", "to": ["D0"], "via": "S1"}]})));
    assert!(e.contains("topology.routing.overrides[0].via: \"S1\" is a host"), "{e}");
    // an override over a link that does not exist
    let e = problems(&set(&|v| v["topology"]["routing"] = json!({"overrides": [{"at": "R1", "to": ["D0"], "via": "R3"}]})));
    assert!(e.contains("there is no link R1->R3"), "{e}");
    // series_queue names a link of the graph
    let e = problems(&set(&|v| v["series_queue"] = json!("forward")));
    assert!(e.contains("series_queue: no such queue \"forward\""), "{e}");
    // a preset's parameters are checked like an algorithm's
    let e = problems(&set(&|v| v["topology"] = json!({"kind": "parking_lot", "hops": 0})));
    assert!(e.contains("topology.hops: must be in [1, 64]"), "{e}");
}

/// The TCP evaluation suite's parking lot (three Drop Tail hops of 100 Mb/s and 10 ms, 500
/// packets, hosts on 1 Gb/s), flows both ways: routers in a row that each take their arrivals
/// late (`sim::late`), R1->R2 both R1's out-link and R2's in-link. A router taking an arrival
/// from its in-link once settled that link to the arrival's time; when the link's own router
/// still had earlier arrivals to take, those then changed the link's queue before the time it
/// was settled to: its time average ran backwards (mean queues of 10^13 packets, SD 0, and its
/// backlog too short at those arrivals). Every queue's mean is now within its buffer, and each
/// hop's mean queue is the events' (`departure_events`) within a fifth (or 5 packets).
#[test]
fn routers_in_a_row_that_take_their_arrivals_late_keep_each_queue_in_time_order() {
    let make = |events: bool| {
        let mut links: Vec<(&str, &str, u64, u64, Json)> = vec![
            ("R1", "R2", 100_000_000, 10 * MS, droptail(500)),
            ("R2", "R3", 100_000_000, 10 * MS, droptail(500)),
            ("R3", "R4", 100_000_000, 10 * MS, droptail(500)),
        ];
        for (h, r, d) in [("S0", "R1", 0), ("D0", "R4", 0), ("S1", "R1", 10 * MS), ("D1", "R2", 10 * MS), ("S2", "R2", 10 * MS), ("D2", "R3", 10 * MS), ("S3", "R3", 10 * MS), ("D3", "R4", 10 * MS)] {
            links.push((h, r, 1_000_000_000, d, droptail(1000)));
        }
        let topo = graph(&["S0", "S1", "S2", "S3", "D0", "D1", "D2", "D3"], &["R1", "R2", "R3", "R4"], &links, json!({}));
        let mut flows = Vec::new();
        for i in 0..4 {
            for k in 0..3 {
                flows.push(flow(&format!("S{i}-D{i}.{k}"), &format!("S{i}"), &format!("D{i}"), "cubic"));
                flows.push(flow(&format!("D{i}-S{i}.{k}"), &format!("D{i}"), &format!("S{i}"), "reno"));
            }
        }
        let mut s = spec(topo, flows, 20, 5);
        s.departure_events = events;
        s
    };
    let (events, eager) = (run(make(true)).expect("run"), run(make(false)).expect("run"));
    let q = &eager.queues;
    for k in 0..q.rows() {
        let (link, mean, sd) = (&q.strs("link")[k], q.f64s("qlen_mean_pkts")[k], q.f64s("qlen_sd_pkts")[k]);
        let limit = if link.starts_with('R') && link.as_bytes()[3] == b'R' { 500.0 } else { 1000.0 };
        assert!((0.0..=limit).contains(&mean) && sd.is_finite() && sd <= limit, "{link}: mean {mean}, SD {sd} packets");
    }
    for hop in ["R1->R2", "R2->R3", "R3->R4", "R2->R1", "R3->R2", "R4->R3"] {
        let (a, b) = (events.queues.f64s("qlen_mean_pkts")[row(&events.queues, "link", hop)], q.f64s("qlen_mean_pkts")[row(q, "link", hop)]);
        assert!(b > 1.0 && (a - b).abs() < 0.2 * a.max(b) + 5.0, "{hop}: mean queue {b} packets, {a} with the events");
    }
}
