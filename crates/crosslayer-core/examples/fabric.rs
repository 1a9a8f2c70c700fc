//! A fat-tree fabric under many flows, for the scale numbers of docs/PERFORMANCE.md.
//! `cargo run --release --example fabric -- [k] [flows] [simulated ms] [cc] [rate Gb/s]`
//! (defaults: k = 8, i.e. 128 hosts and 80 switches; 1000 flows; 100 ms; dctcp on RED-marking
//! ports (ECN at 65 packets, the DCTCP paper's K for 10 Gb/s) or any other congestion control
//! on 1000-packet DropTail ports; 10 Gb/s links). Each flow runs between two hosts drawn at
//! random (seeded, never a host with itself) and starts in the first millisecond. Prints the
//! network's size, wall time, events, delivered segments and the process's peak memory (VmHWM).
use crosslayer_core::spec::ScenarioSpec;
use serde_json::json;

#[path = "common/peak.rs"]
mod peak;
use peak::peak_rss_mib;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let k: u64 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(8);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(1000);
    let ms: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
    let cc = args.get(4).map_or("dctcp", String::as_str);
    let gbps: u64 = args.get(5).and_then(|s| s.parse().ok()).unwrap_or(10);
    let hosts: Vec<String> = (1..=k).flat_map(|p| (1..=k / 2).flat_map(move |e| (1..=k / 2).map(move |h| format!("H{p}_{e}_{h}")))).collect();
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = |m: usize| {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        (rng % m as u64) as usize
    };
    let qdisc = if cc == "dctcp" { json!({"kind": "red", "min_th": 65, "max_th": 66, "max_p": 1.0, "w_q": 1.0, "gentle": false, "ecn": true, "limit_pkts": 1000}) } else { json!({"kind": "droptail", "limit_pkts": 1000}) };
    let flows: Vec<_> = (0..n)
        .map(|i| {
            let a = next(hosts.len());
            let b = (a + 1 + next(hosts.len() - 1)) % hosts.len();
            json!({"name": format!("f{i}"), "src": hosts[a], "dst": hosts[b], "cc": {"kind": cc}, "tcp": {"ecn": cc == "dctcp"},
                   "start": {"kind": "uniform", "from": 0, "to": 1_000_000}})
        })
        .collect();
    let spec: ScenarioSpec = serde_json::from_value(json!({
        "seed": 1, "duration": ms * 1_000_000,
        "topology": {"kind": "fat_tree", "k": k, "rate": gbps * 1_000_000_000, "qdisc": qdisc},
        "flows": flows,
    }))
    .expect("a spec");
    let wall = std::time::Instant::now();
    let r = crosslayer_core::run(spec).unwrap_or_else(|e| panic!("{e}"));
    let wall_s = wall.elapsed().as_secs_f64();
    let s = &r.summary;
    println!(
        "fat-tree k={k}: {} hosts, {} switches, {} simplex links; {n} {cc} flows, {ms} ms at {gbps} Gb/s",
        hosts.len(),
        5 * k * k / 4,
        r.queues.rows()
    );
    println!(
        "wall {wall_s:.2} s (engine loop {:.2} s), {} events, {} delivered segments, {:.2} events per delivered segment, {:.0} segments per wall-s, peak memory {:.0} MiB",
        s.wall_s,
        s.events,
        s.delivered_segments,
        s.events as f64 / s.delivered_segments as f64,
        s.delivered_segments as f64 / s.wall_s,
        peak_rss_mib()
    );
}
