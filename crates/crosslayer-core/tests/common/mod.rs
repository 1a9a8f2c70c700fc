//! What the integration tests share: the seed 000 Access Link with a chosen discipline at the
//! bottleneck (every flow CUBIC, or CUBIC and Reno alternating), the bottleneck's row of the
//! queues table, Jain's index of the flows' goodput, and a two-sample test of whether runs with
//! and without the departure events give the same distributions over seeds. Each test file includes it with
//! `mod common;` and uses what it needs.
#![allow(dead_code)]

use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::presets;
use crosslayer_core::spec::{ScenarioSpec, TopologySpec};
use crosslayer_core::{run, RunResult};

/// Every result table of `a` (the run with the departure events) is `b`'s: where they part,
/// named by table and column, without printing the whole tables.
pub fn assert_same_tables(a: &RunResult, b: &RunResult, what: &str) {
    for (name, x, y) in [("flows", &a.flows, &b.flows), ("udp", &a.udp, &b.udp), ("queues", &a.queues, &b.queues), ("hops", &a.hops, &b.hops), ("series", &a.series, &b.series), ("drops", &a.drops, &b.drops)] {
        let (x, y) = (format!("{x:?}"), format!("{y:?}"));
        if x != y {
            let at = x.bytes().zip(y.bytes()).position(|(p, q)| p != q).unwrap_or(x.len().min(y.len()));
            let column = x[..at].rfind("(\"").map_or("", |c| x[c + 2..].split('"').next().unwrap_or(""));
            let around = |s: &str| s[at.saturating_sub(80).min(s.len())..(at + 80).min(s.len())].to_string();
            panic!("{what}: table {name}, column {column}: the events' run has ...{}... where the eager run has ...{}...", around(&x), around(&y));
        }
    }
}

/// Put `qdisc` on the bottleneck (A -> B) of a dumbbell spec.
pub fn set_bottleneck(spec: &mut ScenarioSpec, qdisc: QdiscConfig) {
    let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    forward.qdisc = qdisc;
}

/// The Access Link (100 Mb/s everywhere, RTT 8-204 ms) with `n_flows` CUBIC flows - every other
/// one Reno if `mixed` - and `qdisc` at the bottleneck, run for `seconds`.
pub fn access(n_flows: usize, qdisc: QdiscConfig, seconds: u64, mixed: bool) -> RunResult {
    let mut spec = presets::access_link(n_flows, presets::cubic(), seconds);
    if mixed {
        for (i, f) in spec.flows.iter_mut().enumerate() {
            if i % 2 == 1 {
                f.cc = presets::reno().into();
            }
        }
    }
    set_bottleneck(&mut spec, qdisc);
    run(spec).expect("run")
}

/// The row of the bottleneck (role "forward") in the queues table.
pub fn forward_row(r: &RunResult) -> usize {
    r.queues.strs("role").iter().position(|s| s == "forward").expect("a forward link")
}

/// A column of the bottleneck's row.
pub fn bottleneck(r: &RunResult, col: &str) -> f64 {
    r.queues.f64s(col)[forward_row(r)]
}

/// The bottleneck's headline numbers.
pub struct Bottleneck {
    pub qlen_mean: f64,
    pub sojourn_mean: f64,
    pub utilization: f64,
    pub drop_ratio: f64,
}

impl Bottleneck {
    pub fn of(r: &RunResult) -> Bottleneck {
        Bottleneck {
            qlen_mean: bottleneck(r, "qlen_mean_pkts"),
            sojourn_mean: bottleneck(r, "sojourn_mean_s"),
            utilization: bottleneck(r, "utilization"),
            drop_ratio: bottleneck(r, "drop_ratio"),
        }
    }

    /// Print it (`--nocapture`), labelled.
    pub fn print(&self, label: &str) {
        eprintln!(
            "{label}: queue {:.1} pkts, sojourn {:.2} ms, utilization {:.4}, drops {:.3} %",
            self.qlen_mean,
            self.sojourn_mean * 1e3,
            self.utilization,
            100.0 * self.drop_ratio
        );
    }
}

/// Jain's index of the flows' goodput.
pub fn jain(r: &RunResult) -> f64 {
    let g = r.flows.f64s("goodput_bps");
    let (s, s2) = (g.iter().sum::<f64>(), g.iter().map(|x| x * x).sum::<f64>());
    s * s / (g.len() as f64 * s2)
}

/// Two-sample Kolmogorov-Smirnov statistic: the largest gap between the empirical CDFs.
pub fn ks(a: &[f64], b: &[f64]) -> f64 {
    let cdf = |xs: &[f64], t: f64| xs.iter().filter(|&&x| x <= t).count() as f64 / xs.len() as f64;
    a.iter().chain(b).map(|&t| (cdf(a, t) - cdf(b, t)).abs()).fold(0.0, f64::max)
}

/// Seeds each distribution is drawn over.
pub const SEEDS: u64 = 20;

/// Each of the `N` metrics `measure(seed, departure_events)` gives is distributed over `SEEDS`
/// seeds with the events (`departure_events = true`) as without: a two-sample KS test does not
/// reject at 1 %.
pub fn assert_same_distributions<const N: usize>(label: &str, names: [&str; N], measure: impl Fn(u64, bool) -> [f64; N]) {
    // critical value at alpha = 0.01 for n = m = SEEDS: 1.628 * sqrt((n + m) / (n m))
    let critical = 1.628 * (2.0 / SEEDS as f64).sqrt();
    let sample = |events: bool| -> Vec<[f64; N]> { (1..=SEEDS).map(|s| measure(s, events)).collect() };
    let (old, new) = (sample(true), sample(false));
    for (k, what) in names.iter().enumerate() {
        let a: Vec<f64> = old.iter().map(|m| m[k]).collect();
        let b: Vec<f64> = new.iter().map(|m| m[k]).collect();
        let d = ks(&a, &b);
        let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
        println!("{label}: {what}: means {:.6} vs {:.6}, KS D = {d:.3} (critical {critical:.3})", mean(&a), mean(&b));
        assert!(d < critical, "{label}: {what} differs: KS D = {d:.3} >= {critical:.3}");
    }
}

/// S - R1 - R2 - D as a graph topology (JSON): R1 -> R2 at 10 Mb/s and 10 ms with a DropTail of
/// `limit` packets and the edge settings of `bottleneck` (a loss, a jitter, impairments), R2 -> R1
/// at 10 Mb/s and 10 ms, the host links 100 Mb/s and 1 ms, their queues 1000 packets.
pub fn line(bottleneck: serde_json::Value, limit: u32) -> serde_json::Value {
    const MS: u64 = 1_000_000;
    let mut r1_r2 = serde_json::json!({"rate": 10_000_000u64, "delay": 10 * MS, "qdisc": {"kind": "droptail", "limit_pkts": limit}});
    r1_r2.as_object_mut().expect("an object").extend(bottleneck.as_object().expect("an object").clone());
    line_of(r1_r2, [(100_000_000, MS); 2], (10_000_000, 10 * MS), [(100_000_000, MS); 2])
}

/// S - R1 - R2 - D with the edge `r1_r2` (JSON) for R1 -> R2 and the other links' (rate b/s,
/// delay ns): S -> R1 and R1 -> S, R2 -> R1, R2 -> D and D -> R2, each with a DropTail of 1000
/// packets.
pub fn line_of(r1_r2: serde_json::Value, s_r1: [(u64, u64); 2], r2_r1: (u64, u64), r2_d: [(u64, u64); 2]) -> serde_json::Value {
    use serde_json::json;
    let e = |(rate, delay): (u64, u64)| json!({"rate": rate, "delay": delay, "qdisc": {"kind": "droptail", "limit_pkts": 1000}});
    let links = vec![
        json!({"from": "S", "to": "R1", "edge": e(s_r1[0])}),
        json!({"from": "R1", "to": "S", "edge": e(s_r1[1])}),
        json!({"from": "R1", "to": "R2", "edge": r1_r2}),
        json!({"from": "R2", "to": "R1", "edge": e(r2_r1)}),
        json!({"from": "R2", "to": "D", "edge": e(r2_d[0])}),
        json!({"from": "D", "to": "R2", "edge": e(r2_d[1])}),
    ];
    json!({"kind": "graph", "nodes": [{"name": "S", "host": true}, {"name": "D", "host": true}, {"name": "R1"}, {"name": "R2"}], "links": links})
}
