//! Many finite flows through one bottleneck, for the memory figure of docs/PERFORMANCE.md.
//! `cargo run --release --example workload -- [flows] [load] [mean bytes] [cc]`
//! (defaults: 200,000 flows; load 0.5 of a 1 Gb/s DropTail bottleneck (250 packets) from 8
//! hosts at 10 Gb/s to one; exponential sizes of 20,000 bytes mean; cubic; min RTO 10 ms).
//! Flows arrive as a Poisson process for as long as it takes `flows` of them to arrive on
//! average, then the run goes on 2 s. Prints the flows, how many were live at most, wall time
//! and the process's peak memory (VmHWM), with and without assembling the result tables.
use crosslayer_core::spec::ScenarioSpec;
use serde_json::json;

#[path = "common/peak.rs"]
mod peak;
use peak::peak_rss_mib;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let n: f64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200_000.0);
    let load: f64 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(0.5);
    let mean: f64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(20_000.0);
    let cc = args.get(4).map_or("cubic", String::as_str);
    let rate = 1e9;
    let lambda = load * rate / (8.0 * mean);
    let arrive_ns = (n / lambda * 1e9) as u64;
    let host = |name: String| json!({"name": name, "up": {"rate": 10_000_000_000u64, "delay": 5_000}, "down": {"rate": 10_000_000_000u64, "delay": 5_000}});
    let edge = json!({"rate": 1_000_000_000u64, "delay": 20_000, "qdisc": {"kind": "droptail", "limit_pkts": 250}});
    let senders: Vec<_> = (1..=8).map(|i| host(format!("H{i}"))).collect();
    let pairs: Vec<_> = (0..8).map(|i| json!([i, 0])).collect();
    let spec: ScenarioSpec = serde_json::from_value(json!({
        "seed": 1, "duration": arrive_ns + 2_000_000_000,
        "topology": {"kind": "dumbbell", "forward": edge, "reverse": edge, "senders": senders, "receivers": [host("R".into())]},
        "flows": [],
        "arrivals": [{"name": "w", "pairs": pairs, "cc": {"kind": cc}, "tcp": {"min_rto": 10_000_000}, "load": load, "link": "A->B",
                      "sizes": {"kind": "exponential", "mean": mean as u64}, "stop": arrive_ns}],
    }))
    .expect("a spec");
    let wall = std::time::Instant::now();
    let mut sim = crosslayer_core::Sim::new(spec).unwrap_or_else(|e| panic!("{e}"));
    let built = peak_rss_mib();
    let loop_s = sim.run_to_end(&mut (), &mut |_| false).unwrap_or_else(|e| panic!("{e}"));
    sim.check_invariants().unwrap_or_else(|e| panic!("{e}"));
    let looped = peak_rss_mib();
    let ended = sim.flows.iter().filter(|f| matches!(f.state, crosslayer_core::sim::FlowState::Ended(_))).count();
    let flows = sim.flows.len();
    let r = crosslayer_core::report::results(&mut sim, None, loop_s);
    println!(
        "{flows} {cc} flows (exponential sizes, mean {mean:.0} B) at load {load} of 1 Gb/s for {:.1} s: {ended} ended, at most {} live at once, {} delivered segments",
        arrive_ns as f64 / 1e9,
        sim.peak_live_flows(),
        r.summary.delivered_segments
    );
    println!(
        "wall {:.2} s (event loop {loop_s:.2} s); peak memory {built:.0} MiB built, {looped:.0} MiB after the loop, {:.0} MiB with the result tables",
        wall.elapsed().as_secs_f64(),
        peak_rss_mib()
    );
}
