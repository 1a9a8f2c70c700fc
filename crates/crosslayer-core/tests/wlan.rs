//! The 802.11 DCF medium (`net::wlan`) in whole runs: N saturated stations against Bianchi's
//! model (IEEE JSAC 18(3), 2000) with a retry limit, the law of one station's exchanges, bad
//! input named, and TCP through an access point (downlink against uplink).

use crosslayer_core::spec::ScenarioSpec;
use crosslayer_core::{run, RunResult};
use serde_json::{json, Value as Json};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

fn droptail(limit: u32) -> Json {
    json!({"kind": "droptail", "limit_pkts": limit})
}

/// Stations S1..Sn on access point AP, AP wired to host D (1 Gb/s, 1 ms); the wireless links
/// carry `qdisc` and no delay.
fn wlan_topology(n: usize, qdisc: Json, dcf: Json) -> Json {
    let stations: Vec<String> = (1..=n).map(|i| format!("S{i}")).collect();
    let mut nodes: Vec<Json> = stations.iter().map(|s| json!({"name": s, "host": true})).collect();
    nodes.push(json!({"name": "D", "host": true}));
    nodes.push(json!({"name": "AP"}));
    let wireless = json!({"rate": 54_000_000, "delay": 0, "qdisc": qdisc});
    let wired = json!({"rate": 1_000_000_000, "delay": MS, "qdisc": droptail(1000)});
    let mut links = Vec::new();
    for s in &stations {
        links.push(json!({"from": s, "to": "AP", "edge": wireless}));
        links.push(json!({"from": "AP", "to": s, "edge": wireless}));
    }
    links.push(json!({"from": "AP", "to": "D", "edge": wired}));
    links.push(json!({"from": "D", "to": "AP", "edge": wired}));
    json!({"kind": "graph", "nodes": nodes, "links": links, "wlans": [{"ap": "AP", "stations": stations, "dcf": dcf}]})
}

/// `n` stations each sending 1500-byte datagrams at 40 Mb/s to D: every station saturated.
fn saturated(n: usize, seed: u64, duration_s: u64) -> ScenarioSpec {
    let udp: Vec<Json> = (1..=n)
        .map(|i| json!({"name": format!("S{i}.udp"), "src": format!("S{i}"), "dst": "D", "rate": 40_000_000, "packet_size": 1500}))
        .collect();
    let s = json!({"seed": seed, "duration": duration_s * S, "warmup": S, "sample_interval": 0,
                   "topology": wlan_topology(n, droptail(50), json!({})), "udp": udp});
    serde_json::from_value(s).expect("an engine spec")
}

/// The stations' rows of the `wlan` table summed: (frames, attempts, collisions, retry drops).
fn station_totals(r: &RunResult) -> (u64, u64, u64, u64) {
    let t = &r.wlan;
    let roles = t.strs("role");
    let sum = |c: &str| t.u64s(c).iter().zip(&roles).filter(|(_, r)| *r == "station").map(|(v, _)| v).sum::<u64>();
    (sum("frames"), sum("attempts"), sum("collisions"), sum("retry_drops"))
}

/// 802.11g timing (the defaults): a 1500-byte packet's data frame, and SIFS + ACK + DIFS.
const T_DATA_US: f64 = 254.0;
const T_REST_US: f64 = 10.0 + 50.0 + 28.0;
const SLOT_US: f64 = 9.0;

/// Bianchi's fixed point with a retry limit: each frame makes at most `retry` attempts, the
/// j-th (from 0) after a backoff uniform in [0, W_j - 1], W_j = min(2^j, 2^m) W; a station
/// attempts in a slot with probability tau = E[attempts] / E[slots of backoff and attempts]
/// and collides with p = 1 - (1 - tau)^(n - 1). Returns (tau, p, saturation throughput in
/// bit/s of 1500-byte packets) with T_s = T_c = DATA + SIFS + ACK + DIFS (the model's EIFS
/// after a collision makes it as long as a success).
fn bianchi(n: usize, w: f64, m: u32, retry: u32) -> (f64, f64, f64) {
    let tau_of = |p: f64| {
        let (mut num, mut den) = (0.0, 0.0);
        for j in 0..retry {
            let wj = w * 2f64.powi(j.min(m) as i32);
            num += p.powi(j as i32);
            den += p.powi(j as i32) * (wj + 1.0) / 2.0;
        }
        num / den
    };
    // p = 1 - (1 - tau(p))^(n-1): the left side rises, the right falls; bisect
    let (mut lo, mut hi) = (0.0f64, 1.0f64);
    for _ in 0..200 {
        let p = (lo + hi) / 2.0;
        if p < 1.0 - (1.0 - tau_of(p)).powi(n as i32 - 1) {
            lo = p;
        } else {
            hi = p;
        }
    }
    let p = (lo + hi) / 2.0;
    let tau = tau_of(p);
    let p_tr = 1.0 - (1.0 - tau).powi(n as i32);
    let p_s = n as f64 * tau * (1.0 - tau).powi(n as i32 - 1) / p_tr;
    let t = T_DATA_US + T_REST_US;
    let slot_time = (1.0 - p_tr) * SLOT_US + p_tr * p_s * t + p_tr * (1.0 - p_s) * t;
    (tau, p, p_s * p_tr * 1500.0 * 8.0 / (slot_time * 1e-6))
}

#[test]
fn one_saturated_station_runs_at_the_law_of_its_exchanges() {
    // DIFS + a mean backoff of 7.5 slots + DATA + SIFS + ACK per frame: 409.5 us for 1500 bytes
    let r = run(saturated(1, 1, 21)).expect("run");
    let (frames, attempts, collisions, drops) = station_totals(&r);
    assert_eq!((collisions, drops), (0, 0));
    assert_eq!(frames, attempts);
    let expected = 20.0 / ((T_DATA_US + T_REST_US + 7.5 * SLOT_US) * 1e-6);
    let err = (frames as f64 - expected) / expected;
    // the mean of ~48,800 draws uniform in [0, 15] (sd 4.6 slots each): the mean idle time per
    // frame is within 0.02 slots (0.05 % of the frame time) of 7.5 at 1 sd
    assert!(err.abs() < 0.002, "{frames} frames in 20 s, expected {expected:.0} ({:+.3} %)", 100.0 * err);
    // every datagram the medium carried reached D (but those on their way at the end)
    assert!((r.udp.u64s("delivered_pkts")[0] as i64 - frames as i64).abs() <= 2);
}

/// N saturated stations against Bianchi's model: the table of docs/models/wlan.md.
#[test]
fn saturated_stations_agree_with_bianchi() {
    eprintln!("| N | p model | p sim | tau model | S model Mb/s | S sim Mb/s | S error |");
    for n in [1usize, 5, 10, 20] {
        let (tau, p, s_model) = bianchi(n, 16.0, 6, 7);
        let (mut frames, mut attempts, mut collisions) = (0u64, 0u64, 0u64);
        for seed in 1..=3 {
            let r = run(saturated(n, seed, 31)).expect("run");
            let (f, a, c, _) = station_totals(&r);
            (frames, attempts, collisions) = (frames + f, attempts + a, collisions + c);
        }
        let s_sim = frames as f64 * 1500.0 * 8.0 / (3.0 * 30.0);
        let p_sim = collisions as f64 / attempts.max(1) as f64;
        let err = (s_sim - s_model) / s_model;
        eprintln!("| {n} | {p:.4} | {p_sim:.4} | {tau:.4} | {:.2} | {:.2} | {:+.2} % |", s_model / 1e6, s_sim / 1e6, 100.0 * err);
        assert!(err.abs() < 0.03, "N = {n}: throughput {s_sim:.0} against Bianchi's {s_model:.0}");
        assert!((p_sim - p).abs() < 0.03, "N = {n}: collision probability {p_sim:.4} against Bianchi's {p:.4}");
    }
}

#[test]
fn bad_wireless_lans_are_named() {
    let mut topo = wlan_topology(2, droptail(50), json!({"cw_min": 16, "rate": 54_100_000}));
    topo["wlans"][0]["stations"] = json!(["S1", "S2", "S1", "AP", "Z"]);
    topo["links"][0]["edge"]["loss"] = json!(0.01);
    let s = json!({"seed": 1, "duration": S, "topology": topo, "udp": []});
    let spec: ScenarioSpec = serde_json::from_value(s).expect("an engine spec");
    let err = run(spec).expect_err("invalid");
    for needle in [
        "topology.wlans[0].stations[0]: the link S1->AP of a wireless LAN takes no loss",
        "topology.wlans[0].stations[2]: \"S1\" is already in a wireless LAN",
        "topology.wlans[0].stations[3]: \"AP\" is the access point",
        "topology.wlans[0].stations[4]: unknown node \"Z\"",
        "topology.wlans[0].dcf.rate: must be a multiple of 250 kb/s",
        "topology.wlans[0].dcf.cw_min: CW + 1 must be a power of two",
    ] {
        assert!(err.to_string().contains(needle), "{needle:?} not in {err}");
    }
}
