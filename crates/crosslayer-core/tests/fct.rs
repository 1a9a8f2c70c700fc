//! Finite flows and their completion times: a lone flow that fits in its initial window
//! completes exactly at its ideal FCT (`metrics::fct`), to the nanosecond, on one bottleneck and
//! on a path of several; larger lone flows take longer (slow start); Poisson arrivals at a load
//! arrive as often as the load says and carry it; every completed flow of every run has a
//! slowdown of at least 1 (the engine checks it on every run).

use crosslayer_core::spec::ScenarioSpec;
use crosslayer_core::{run, RunResult};
use serde_json::{json, Value as Json};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// Hosts S and D joined by a chain of `routers` routers; host links 100 Mb/s 1 ms, the
/// routers' links `rate` and 10 ms, DropTail `limit` packets.
fn chain(routers: usize, rate: u64, limit: u32) -> Json {
    let dt = |n: u32| json!({"kind": "droptail", "limit_pkts": n});
    let names: Vec<String> = (1..=routers).map(|i| format!("R{i}")).collect();
    let mut nodes = vec![json!({"name": "S", "host": true}), json!({"name": "D", "host": true})];
    nodes.extend(names.iter().map(|r| json!({"name": r})));
    let mut hops = vec![("S".to_string(), names[0].clone(), 100_000_000u64, MS, dt(1000))];
    for w in names.windows(2) {
        hops.push((w[0].clone(), w[1].clone(), rate, 10 * MS, dt(limit)));
    }
    hops.push((names[routers - 1].clone(), "D".to_string(), 100_000_000, MS, dt(1000)));
    let links: Vec<Json> = hops
        .iter()
        .flat_map(|(a, b, r, d, q)| [json!({"from": a, "to": b, "edge": {"rate": r, "delay": d, "qdisc": q}}), json!({"from": b, "to": a, "edge": {"rate": r, "delay": d, "qdisc": q}})])
        .collect();
    json!({"kind": "graph", "nodes": nodes, "links": links})
}

fn spec(topology: Json, flows: Vec<Json>, arrivals: Vec<Json>, duration_s: u64) -> ScenarioSpec {
    serde_json::from_value(json!({"seed": 3, "duration": duration_s * S, "topology": topology, "flows": flows, "arrivals": arrivals})).expect("an engine spec")
}

fn finite(name: &str, size: u64, cc: &str) -> Json {
    json!({"name": name, "src": "S", "dst": "D", "cc": {"kind": cc}, "start": {"kind": "fixed", "at": 0}, "size": size})
}

fn col(r: &RunResult, c: &str) -> Vec<f64> {
    r.flows.f64s(c).to_vec()
}

#[test]
fn a_lone_flow_within_its_initial_window_completes_at_its_ideal_fct_to_the_nanosecond() {
    // 1 B, one segment, one byte more than a segment, ten full segments (the initial window)
    for routers in [2, 4] {
        for (size, cc) in [(1u64, "cubic"), (1000, "reno"), (1448, "cubic"), (1449, "cubic"), (14_480, "bbr"), (14_480, "dctcp")] {
            let r = run(spec(chain(routers, 10_000_000, 100), vec![finite("f", size, cc)], vec![], 5)).expect("run");
            let (fct, ideal) = (col(&r, "fct_s")[0], col(&r, "ideal_fct_s")[0]);
            assert_eq!((fct * 1e9).round(), (ideal * 1e9).round(), "{routers} routers, {size} B {cc}: fct {fct}, ideal {ideal}");
            assert_eq!(r.flows.u64s("bytes_left")[0], 0);
            assert_eq!(r.flows.u64s("size_bytes")[0], size);
        }
    }
    // by hand for one segment over S-R1-R2-D (12 ms one way): SYN and SYN-ACK (about 60 B:
    // 4.8 us at 100 Mb/s, 48 us at 10 Mb/s) take 24.12 ms; then the handshake ACK and the 1500 B
    // segment: 0.12 ms onto the first link, 1.2 ms at 10 Mb/s, 0.12 ms onto D's link, 12 ms
    let r = run(spec(chain(2, 10_000_000, 100), vec![finite("f", 1448, "cubic")], vec![], 5)).expect("run");
    let ideal = col(&r, "ideal_fct_s")[0];
    assert!(ideal > 0.03750 && ideal < 0.03760, "{ideal}");
}

#[test]
fn a_lone_flow_beyond_its_initial_window_waits_for_slow_start() {
    let r = run(spec(chain(2, 10_000_000, 100), vec![finite("f", 1_000_000, "cubic")], vec![], 10)).expect("run");
    let (fct, ideal, slowdown) = (col(&r, "fct_s")[0], col(&r, "ideal_fct_s")[0], col(&r, "slowdown")[0]);
    assert!(slowdown > 1.0 && fct > ideal, "fct {fct} ideal {ideal}");
    // 1 MB at 10 Mb/s is 0.83 s of serialization: the ideal holds it and the handshake
    assert!(ideal > 0.83 && ideal < 0.9, "{ideal}");
}

#[test]
fn an_unfinished_flow_reports_the_bytes_it_lacked() {
    let r = run(spec(chain(2, 10_000_000, 100), vec![finite("f", 100_000_000, "cubic")], vec![], 2)).expect("run");
    assert!(col(&r, "fct_s")[0].is_nan() && col(&r, "slowdown")[0].is_nan());
    let left = r.flows.u64s("bytes_left")[0];
    assert!(left > 97_000_000 && left < 100_000_000, "{left}");
}

/// Poisson arrivals of fixed-size flows at load 0.5 of a 10 Mb/s link over 400 s: lambda = 0.5 x
/// 10 Mb/s / (8 x 50 kB) = 12.5 per second.
#[test]
fn poisson_arrivals_come_at_the_rate_the_load_sets_and_carry_the_load() {
    let arrivals = vec![json!({"name": "web", "pairs": [["S", "D"]], "cc": {"kind": "cubic"}, "load": 0.5, "link": "R1->R2",
                               "sizes": {"kind": "fixed", "size": 50_000}})];
    let r = run(spec(chain(2, 10_000_000, 100), vec![], arrivals, 400)).expect("run");
    let n = r.flows.rows() as f64;
    let expect = 12.5 * 400.0;
    assert!((n - expect).abs() < 3.0 * expect.sqrt(), "{n} arrivals, expected {expect} +- {}", 3.0 * expect.sqrt());
    let starts = col(&r, "start_s");
    assert!(starts.windows(2).all(|w| w[0] <= w[1]) && starts[0] >= 0.0 && *starts.last().unwrap() < 400.0);
    // the payload delivered over the link, per second of the run, is the load (the last
    // flows' unfinished bytes aside)
    let delivered: f64 = r.flows.u64s("size_bytes").iter().zip(r.flows.u64s("bytes_left")).map(|(s, l)| (s - l) as f64).sum();
    let load = delivered * 8.0 / (10e6 * 400.0);
    assert!((load - 0.5).abs() < 0.05 * 0.5, "achieved load {load}");
    let slowdowns: Vec<f64> = col(&r, "slowdown").into_iter().filter(|s| !s.is_nan()).collect();
    assert!(slowdowns.len() as f64 > 0.99 * n && slowdowns.iter().all(|&s| s >= 1.0));
}

/// Web-search sizes at load 0.6: every completed flow's slowdown is at least 1 (also checked
/// by the engine after every run), and the largest flows' is above the small ones'.
#[test]
fn web_search_flows_at_load_0_6_complete_with_slowdowns_of_at_least_1() {
    let p = [(0.0, 0.0), (10e3, 0.15), (20e3, 0.2), (30e3, 0.3), (50e3, 0.4), (80e3, 0.53), (200e3, 0.6), (1e6, 0.7), (2e6, 0.8), (5e6, 0.9), (10e6, 0.97), (30e6, 1.0)];
    let points: Vec<[f64; 2]> = p.iter().map(|&(x, p)| [x, p]).collect();
    let arrivals = vec![json!({"name": "web", "pairs": [["S", "D"]], "cc": {"kind": "dctcp"}, "tcp": {"ecn": true}, "load": 0.6, "link": "R1->R2",
                               "sizes": {"kind": "cdf", "points": points}, "stop": 50 * S})];
    let mut s = spec(chain(2, 100_000_000, 1000), vec![], arrivals, 60);
    s.seed = 5;
    let r = run(s).expect("run");
    let slow = col(&r, "slowdown");
    let done: Vec<f64> = slow.iter().copied().filter(|s| !s.is_nan()).collect();
    assert!(done.len() > 200 && done.iter().all(|&s| s >= 1.0), "{} completed", done.len());
}

/// M/G/1 processor sharing: a flow of size x at load rho takes x / (C (1 - rho)) on average,
/// whatever the size distribution, so every flow's mean slowdown is 1 / (1 - rho) (Kleinrock,
/// Queueing Systems vol. 2, 1976, section 4.4). TCP flows sharing one bottleneck approach it
/// for the largest flows; the short ones do worse (the handshake and slow start's round trips
/// are not shared capacity), and the long ones a little better than PS, since the capacity the
/// short flows leave unused while they slow-start goes to them. Exponential sizes of mean 1 MB
/// from 4 hosts over a 100 Mb/s bottleneck (base RTT 0.54 ms, 500-packet DropTail), 1000 s of
/// arrivals: the largest decile's mean slowdown is within 15 % of 1 / (1 - rho) at the load
/// the arrivals actually offered (measured 1.42 vs 1.43 at 0.3, 1.79-1.87 vs 2.0 at 0.5 over
/// three seeds) and not above it by more than 2 %; the flows as a whole are slower than PS.
#[test]
fn the_largest_flows_approach_processor_sharing_1_over_1_minus_rho() {
    let hosts = ["S1", "S2", "S3", "S4"];
    let dt = |n: u32| json!({"kind": "droptail", "limit_pkts": n});
    let mut nodes: Vec<Json> = hosts.iter().chain(&["D"]).map(|h| json!({"name": h, "host": true})).collect();
    nodes.extend([json!({"name": "R1"}), json!({"name": "R2"})]);
    let mut links = Vec::new();
    let mut duplex = |a: &str, b: &str, rate: u64, delay: u64, q: Json| {
        links.push(json!({"from": a, "to": b, "edge": {"rate": rate, "delay": delay, "qdisc": q}}));
        links.push(json!({"from": b, "to": a, "edge": {"rate": rate, "delay": delay, "qdisc": q}}));
    };
    for h in hosts {
        duplex(h, "R1", 10_000_000_000, 10_000, dt(1000));
    }
    duplex("R1", "R2", 100_000_000, 250_000, dt(500));
    duplex("R2", "D", 10_000_000_000, 10_000, dt(1000));
    let topo = json!({"kind": "graph", "nodes": nodes, "links": links});
    for rho in [0.3, 0.5] {
        let pairs: Vec<Json> = hosts.iter().map(|h| json!([h, "D"])).collect();
        let arrivals = vec![json!({"name": "ps", "pairs": pairs, "cc": {"kind": "cubic"}, "tcp": {"min_rto": 10 * MS}, "load": rho, "link": "R1->R2",
                                   "sizes": {"kind": "exponential", "mean": 1_000_000}, "stop": 1000 * S})];
        let r = run(spec(topo.clone(), vec![], arrivals, 1020)).expect("run");
        let sizes: Vec<u64> = r.flows.u64s("size_bytes").to_vec();
        let slow = col(&r, "slowdown");
        assert!(slow.iter().all(|s| !s.is_nan()), "every flow completes");
        let offered = sizes.iter().sum::<u64>() as f64 * 8.0 / (100e6 * 1000.0);
        let ps = 1.0 / (1.0 - offered);
        let mut by_size: Vec<(u64, f64)> = sizes.iter().copied().zip(slow.iter().copied()).collect();
        by_size.sort_by_key(|p| p.0);
        let top = &by_size[by_size.len() * 9 / 10..];
        let big = top.iter().map(|p| p.1).sum::<f64>() / top.len() as f64;
        let all = slow.iter().sum::<f64>() / slow.len() as f64;
        assert!((big - ps).abs() < 0.15 * ps && big < 1.02 * ps, "rho {rho} (offered {offered:.3}): largest decile {big:.3}, PS {ps:.3}");
        assert!(all > ps, "rho {rho}: all flows {all:.3} vs PS {ps:.3}");
    }
}

/// A finite flow that is over keeps only its summary: every completed flow ends (its endpoints
/// freed) once nothing of it is left in the network, flows live at once stay few while
/// thousands come and go, and its row is the same as if it had been kept live (the endpoints
/// summarized at the end of the run: checked here on the flows still live when the run stops,
/// and on every study by `validation/snapshot.py studies` before and after, docs/PERFORMANCE.md).
#[test]
fn finished_flows_free_their_endpoints_and_live_flows_stay_few() {
    use crosslayer_core::sim::FlowState;
    let arrivals = vec![json!({"name": "w", "pairs": [["S", "D"]], "cc": {"kind": "cubic"}, "tcp": {"min_rto": 10 * MS}, "load": 0.5, "link": "R1->R2",
                               "sizes": {"kind": "exponential", "mean": 20_000}, "stop": 9 * S})];
    let mut sim = crosslayer_core::Sim::new(spec(chain(2, 100_000_000, 200), vec![], arrivals, 10)).expect("a sim");
    // before its start a flow holds no endpoints
    assert!(sim.flows.iter().all(|f| matches!(f.state, FlowState::Pending)));
    sim.run_to_end(&mut (), &mut |_| false).expect("run");
    sim.check_invariants().expect("invariants");
    let n = sim.flows.len();
    let ended = sim.flows.iter().filter(|f| matches!(f.state, FlowState::Ended(_))).count();
    let live = sim.flows.iter().filter(|f| matches!(f.state, FlowState::Live(_))).count();
    let completed = (0..n).filter(|&i| sim.summary(i).completed_at.is_some()).count();
    assert!(n > 2500, "{n} flows");
    // every completed flow ended, bar those whose last ACKs were still on their way at the end
    assert!(ended + live == n && completed >= ended && completed - ended <= 3, "{n} flows, {completed} completed, {ended} ended, {live} live");
    assert!(sim.peak_live_flows() < 60, "{} flows live at once", sim.peak_live_flows());
    for i in 0..n {
        let s = sim.summary(i);
        if let FlowState::Ended(_) = sim.flows[i].state {
            assert_eq!(s.rcv_nxt, s.size.expect("finite"));
            assert_eq!(sim.flows[i].data.in_flight() + sim.flows[i].acks.in_flight(), 0);
        }
    }
}

/// The goodput series: a row per started flow and interval until the interval a finite flow
/// ends in; each flow's rows add up to the bytes it delivered in order (all of a completed
/// flow's), and none comes before its start.
#[test]
fn the_goodput_series_adds_up_to_what_each_flow_delivered() {
    let bulk = json!({"name": "bulk", "src": "S", "dst": "D", "cc": {"kind": "cubic"}, "start": {"kind": "fixed", "at": 0}});
    let mut late = finite("late", 400_000, "bbr");
    late["start"] = json!({"kind": "fixed", "at": S});
    let mut s = spec(chain(2, 10_000_000, 100), vec![bulk, late], vec![], 4);
    s.goodput_interval = crosslayer_core::units::Dur::from_ms(250);
    let r = run(s).expect("run");
    let g = &r.goodput;
    let (t, flow, bytes) = (g.f64s("t_s"), g.labels("flow"), g.u64s("bytes"));
    for (i, name) in ["bulk", "late"].iter().enumerate() {
        let rows: Vec<usize> = (0..g.rows()).filter(|&k| flow[k] == *name).collect();
        let total: u64 = rows.iter().map(|&k| bytes[k]).sum();
        if i == 1 {
            assert_eq!(total, 400_000, "the finite flow's rows add up to its size");
            let fct_end = 1.0 + r.flows.f64s("fct_s")[1];
            let last = t[*rows.last().expect("rows")];
            assert!(last >= fct_end && last < fct_end + 0.25, "its last row is the interval it ended in: {last} for an end at {fct_end}");
            assert!(t[rows[0]] >= 1.0, "no row before its start");
        } else {
            assert_eq!(rows.len(), 16, "a row every 250 ms for 4 s");
            // the bottleneck's 10 Mb/s for 4 s bounds what it delivered
            assert!(total > 1_000_000 && total <= 5_000_000, "{total}");
        }
    }
}

/// An application writing 2 Mb/s over a 10 Mb/s path: the flow carries what is written and no
/// more (its goodput is the app's rate, to a segment per second), and a finite one completes
/// when its last byte is written and delivered: no earlier than size / rate. BBR on it is
/// application-limited (its rate samples are marked so) and still delivers the app's rate.
#[test]
fn an_application_limited_flow_sends_what_its_application_writes() {
    for cc in ["cubic", "bbr"] {
        let mut f = json!({"name": "app", "src": "S", "dst": "D", "cc": {"kind": cc}, "start": {"kind": "fixed", "at": 0}, "app_rate": 2_000_000});
        let r = run(spec(chain(2, 10_000_000, 100), vec![f.clone()], vec![], 10)).expect("run");
        let goodput = r.flows.f64s("goodput_bps")[0];
        assert!((goodput - 2e6).abs() < 2.0 * 1448.0 * 8.0 / 10.0 + 1e4, "{cc}: {goodput}");
        f["size"] = json!(500_000);
        let r = run(spec(chain(2, 10_000_000, 100), vec![f], vec![], 10)).expect("run");
        let fct = r.flows.f64s("fct_s")[0];
        assert!((2.0..2.1).contains(&fct), "{cc}: 500 KB written at 2 Mb/s take 2 s: {fct}");
    }
}

fn link_count(r: &RunResult, name: &str, col: &str) -> u64 {
    let i = r.queues.strs("link").iter().position(|l| l == name).expect("the link");
    r.queues.u64s(col)[i]
}

/// A finite flow closes both ways (`teardown`, on by default): the receiver's FIN rides on its
/// ACK of the sender's FIN, and the sender acknowledges it with one more packet, which crosses
/// the data path after the last segment (so a lone flow's completion time is unchanged, to the
/// nanosecond). Without teardown that packet is not sent and the connection stays
/// "established".
#[test]
fn a_finite_flow_closes_both_ways_and_its_last_ack_crosses_the_data_path() {
    let mut counts = vec![];
    for teardown in [true, false] {
        let mut f = finite("f", 14_480, "cubic");
        f["tcp"] = json!({"teardown": teardown, "delayed_ack": false});
        let r = run(spec(chain(2, 10_000_000, 100), vec![f], vec![], 5)).expect("run");
        let (fct, ideal) = (col(&r, "fct_s")[0], col(&r, "ideal_fct_s")[0]);
        assert_eq!((fct * 1e9).round(), (ideal * 1e9).round(), "teardown {teardown}");
        let conn = r.flows.strs("connection")[0].clone();
        assert_eq!(conn, if teardown { "closed" } else { "established" });
        counts.push((link_count(&r, "R1->R2", "arrivals"), link_count(&r, "R2->R1", "arrivals")));
    }
    // data path: SYN, handshake ACK, 10 segments (+ the last ACK); ACK path: SYN-ACK, 10 ACKs
    assert_eq!(counts, [(13, 11), (12, 11)]);
}

/// An aborted flow: its application resets the connection at 1 s. A bulk flow sends nothing
/// after its RST (the bottleneck carries nothing of it past its last round trip), ends (its
/// endpoints are freed: no live flow at the end), and its row says "reset"; a finite flow
/// aborted before it completes keeps the bytes it lacked, with no completion time; a flow
/// whose abort comes before its start never starts.
#[test]
fn an_aborted_flow_sends_a_rst_and_nothing_more() {
    let mut bulk = json!({"name": "bulk", "src": "S", "dst": "D", "cc": {"kind": "cubic"}, "start": {"kind": "fixed", "at": 0}, "abort": S});
    let mut big = finite("big", 50_000_000, "reno");
    big["abort"] = json!(S);
    let mut late = finite("late", 1000, "reno");
    late["start"] = json!({"kind": "fixed", "at": 2 * S});
    late["abort"] = json!(S);
    bulk["tcp"] = json!({"delayed_ack": false});
    let mut s = spec(chain(2, 10_000_000, 100), vec![bulk, big, late], vec![], 6);
    s.goodput_interval = crosslayer_core::units::Dur::from_ms(100);
    let r = run(s).expect("run");
    assert_eq!(r.flows.strs("connection").to_vec(), ["reset", "reset", "reset"]);
    let left = r.flows.u64s("bytes_left");
    assert!(left[1] > 40_000_000 && left[1] < 50_000_000, "{}", left[1]);
    assert!(col(&r, "fct_s")[1].is_nan());
    assert_eq!(r.flows.u64s("segments_sent")[2], 0, "aborted before it started");
    // nothing delivered to either flow after 1 s + one trip across (the last segments in flight)
    let g = &r.goodput;
    let (t, flow, bytes) = (g.f64s("t_s"), g.labels("flow"), g.u64s("bytes"));
    for k in 0..t.len() {
        if t[k] > 1.2 {
            assert_eq!(bytes[k], 0, "{} got {} bytes in the interval ending at {}", flow[k], bytes[k], t[k]);
        }
    }
}

fn on_off_flow(name: &str, on_off: Json, app_rate: Option<u64>, profile: &str) -> Json {
    let mut f = json!({"name": name, "src": "S", "dst": "D", "cc": {"kind": "cubic"}, "start": {"kind": "fixed", "at": 0}, "on_off": on_off, "tcp": {"profile": profile}});
    if let Some(r) = app_rate {
        f["app_rate"] = json!(r);
    }
    f
}

/// On-off sources over one connection, on 1 s then off 1 s (fixed periods): the goodput series
/// shows the on-periods at the rate the application writes (2 Mb/s: 250 kB a second, to a
/// segment or two) and silence in the off-periods once what was in flight is delivered; with
/// no rate the flow fills the 10 Mb/s bottleneck while on. After each 1 s pause (longer than the
/// RTO) the Linux profile restarts the window (RFC 5681 section 4.1), the ns-3 profile does not.
#[test]
fn an_on_off_source_sends_in_its_on_periods_and_restarts_its_window_after_idling() {
    let fixed = json!({"on": {"kind": "fixed", "value": S}, "off": {"kind": "fixed", "value": S}});
    let mut s = spec(chain(2, 10_000_000, 100), vec![on_off_flow("rate", fixed.clone(), Some(2_000_000), "linux")], vec![], 10);
    s.goodput_interval = crosslayer_core::units::Dur::from_ms(500);
    let r = run(s).expect("run");
    let g = &r.goodput;
    let (t, bytes) = (g.f64s("t_s"), g.u64s("bytes"));
    assert_eq!(g.rows(), 20);
    // whole segments go out as they are written: 1.25 MB written is 863 segments of 1448 B
    assert_eq!(bytes.iter().sum::<u64>(), 1_250_000 / 1448 * 1448);
    for cycle in bytes.chunks(4) {
        // (0, 0.5], (0.5, 1]: on; (1, 1.5]: the last segments in flight; (1.5, 2]: silence
        assert!(cycle.iter().sum::<u64>().abs_diff(250_000) < 1448, "a cycle carries what was written in it: {cycle:?}");
        assert!(cycle[0] > 115_000 && cycle[1].abs_diff(125_000) <= 2 * 1448, "{cycle:?}");
        assert!(cycle[2] < 10_000 && cycle[3] == 0, "{cycle:?}");
    }
    assert!((t[19] - 10.0).abs() < 1e-9);
    for (profile, restarts) in [("linux", true), ("ns3", false)] {
        // a receiver window of 100 kB (69 segments) keeps the 100-packet queue from overflowing
        let mut f = on_off_flow("bulk", fixed.clone(), None, profile);
        f["tcp"]["rwnd"] = json!(100_000);
        let mut s = spec(chain(2, 10_000_000, 100), vec![f], vec![], 10);
        s.goodput_interval = crosslayer_core::units::Dur::from_ms(500);
        let r = run(s).expect("run");
        let got = r.flows.u64s("idle_restarts")[0];
        assert_eq!(got > 0, restarts, "{profile}: {got} restarts");
        if restarts {
            assert_eq!(got, 4, "one restart per on-period after the first");
        }
        // while on, most of the 10 Mb/s (1.25 MB a second; slow start after each restart in
        // the Linux profile); what is queued and in flight drains early in the off-period
        for cycle in r.goodput.u64s("bytes").chunks(4) {
            assert!(cycle[0] + cycle[1] > 900_000 && cycle[3] == 0, "{profile}: {cycle:?}");
        }
    }
}

/// On-off with a new connection per on-period: over 10 s of fixed 1 s on / 1 s off at 2 Mb/s
/// the flow becomes five finite flows (`f.0` .. `f.4`) starting at 0, 2, 4, 6 and 8 s, each
/// carrying 250 kB, each completing after its application's second of writing (its ideal FCT
/// holds that second). A "new" source without an app_rate is refused, naming the field.
#[test]
fn an_on_off_source_with_new_connections_opens_one_per_on_period() {
    let fixed = json!({"on": {"kind": "fixed", "value": S}, "off": {"kind": "fixed", "value": S}, "connection": "new"});
    let r = run(spec(chain(2, 10_000_000, 100), vec![on_off_flow("f", fixed.clone(), Some(2_000_000), "linux")], vec![], 10)).expect("run");
    assert_eq!(r.flows.strs("name").to_vec(), ["f.0", "f.1", "f.2", "f.3", "f.4"]);
    assert_eq!(r.flows.u64s("size_bytes").to_vec(), [250_000; 5]);
    let starts = col(&r, "start_s");
    assert_eq!(starts, [0.0, 2.0, 4.0, 6.0, 8.0]);
    for (fct, ideal) in col(&r, "fct_s").iter().zip(col(&r, "ideal_fct_s")) {
        assert!(ideal > 1.0 && *fct >= ideal && *fct < 1.1, "fct {fct}, ideal {ideal}");
    }
    let bad = spec(chain(2, 10_000_000, 100), vec![on_off_flow("f", fixed, None, "linux")], vec![], 10);
    let msg = bad.problems().iter().map(|p| p.to_string()).collect::<Vec<_>>().join("; ");
    assert!(msg.contains("flows[0].on_off.connection") && msg.contains("app_rate"), "{msg}");
}

/// Byte milestones (`milestones`, draft-irtf-iccrg-tcpeval-01 section 5.2.3): a flow of exactly
/// 1.5 MB passes 15 kB, 150 kB and 1.5 MB, the last at its completion to the nanosecond (both
/// are "the receiver holds every byte in order"); the times rise with the bytes, none comes
/// before the flow's start, and a flow that did not ask has none.
#[test]
fn byte_milestones_come_in_order_and_the_last_at_completion() {
    let mut f = finite("m", 1_500_000, "cubic");
    f["milestones"] = json!(true);
    f["start"] = json!({"kind": "fixed", "at": S / 2});
    let other = finite("quiet", 200_000, "reno");
    let r = run(spec(chain(2, 10_000_000, 100), vec![f, other], vec![], 10)).expect("run");
    let m = &r.milestones;
    assert_eq!(m.labels("flow"), vec!["m"; 3], "only the flow that asked");
    assert_eq!(m.u64s("bytes"), &[15_000, 150_000, 1_500_000]);
    let (t, since) = (m.f64s("t_s"), m.f64s("since_start_s"));
    assert!(t.windows(2).all(|w| w[0] < w[1]), "{t:?}");
    for k in 0..3 {
        assert!((t[k] - 0.5 - since[k]).abs() < 1e-12 && since[k] > 0.0, "{t:?} {since:?}");
    }
    let fct = r.flows.f64s("fct_s")[0];
    assert_eq!((since[2] * 1e9).round(), (fct * 1e9).round(), "1.5 MB reached at completion: {since:?} fct {fct}");
    // 15 kB is more than the initial window (14,480 B): it needs a second round trip
    let rtt = r.flows.f64s("base_rtt_s")[0];
    assert!(since[0] > 2.0 * rtt, "{} vs RTT {rtt}", since[0]);
}

/// `initial_ssthresh` = `initial_cwnd`: the connection starts in congestion avoidance (no slow
/// start: draft-irtf-iccrg-tcpeval-01 section 5.2.2's new flow), so it grows by about a segment
/// per round trip: 1.5 MB (1,036 segments) over a 100 Mb/s, 24 ms path (a BDP of 207 segments)
/// takes about 36 round trips against about 7 with slow start; five round trips in, slow start
/// has passed 60 segments and congestion avoidance about 14.
#[test]
fn an_initial_ssthresh_at_the_initial_window_starts_in_congestion_avoidance() {
    let fast = finite("ss", 1_500_000, "reno");
    let mut slow = fast.clone();
    slow["tcp"] = json!({"initial_ssthresh": 10});
    let traced = |f: Json| {
        let mut s = spec(chain(2, 100_000_000, 1000), vec![f], vec![], 20);
        s.sample_interval = crosslayer_core::units::Dur::from_ms(1);
        s.cwnd_trace = true;
        run(s).expect("run")
    };
    let (a, b) = (traced(fast), traced(slow));
    let (fa, fb) = (a.flows.f64s("fct_s")[0], b.flows.f64s("fct_s")[0]);
    assert!(fb > 2.5 * fa, "slow start {fa} s, congestion avoidance {fb} s");
    let rtt = b.flows.f64s("base_rtt_s")[0];
    let cwnd_at = |r: &RunResult, t: f64| {
        let (ts, w) = (r.cwnd.f64s("t_s"), r.cwnd.u64s("cwnd_bytes"));
        w[ts.iter().position(|&x| x >= t).expect("a sample")] / 1448
    };
    let (wa, wb) = (cwnd_at(&a, 5.0 * rtt), cwnd_at(&b, 5.0 * rtt));
    assert!(wa >= 60, "slow start: {wa} segments");
    assert!((11..=16).contains(&wb), "congestion avoidance from 10 segments: {wb}");
    let first = |r: &RunResult| r.cwnd.f64s("ssthresh_bytes").iter().copied().find(|v| !v.is_nan());
    assert_eq!(first(&b), Some(14_480.0), "ssthresh starts at the initial window");
    assert_eq!(first(&a), None, "unset: no ssthresh until a loss");
}

/// An overload on purpose (`overload = true`): Poisson arrivals at 1.2 times the link's rate
/// run, the link stays busy and flows are still open at the end; without the flag the same
/// load is refused, naming the field.
#[test]
fn an_overload_runs_only_when_asked_and_keeps_flows_open() {
    let arrival = |overload: bool| {
        json!({"name": "o", "pairs": [["S", "D"]], "cc": {"kind": "cubic"}, "load": 1.2, "overload": overload, "link": "R1->R2",
               "sizes": {"kind": "exponential", "mean": 100_000}})
    };
    let refused = crosslayer_core::Sim::new(spec(chain(2, 10_000_000, 100), vec![], vec![arrival(false)], 20)).err().expect("refused");
    let text = refused.to_string();
    assert!(text.contains("arrivals[0].load") && text.contains("overload = true"), "{text}");
    let r = run(spec(chain(2, 10_000_000, 100), vec![], vec![arrival(true)], 20)).expect("run");
    let open = r.flows.f64s("fct_s").iter().filter(|f| f.is_nan()).count();
    let n = r.flows.rows();
    // 1.2 x 10 Mb/s / 800 kb = 15 flows a second over 20 s
    assert!((250..350).contains(&n), "{n} flows arrived");
    assert!(open > 20, "{open} of {n} flows still open");
    let util = r.queues.f64s("utilization")[r.queues.strs("link").iter().position(|l| l == "R1->R2").expect("the link")];
    assert!(util > 0.95, "{util}");
}
