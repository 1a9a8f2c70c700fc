//! Run a seed-000 scenario and print per-flow goodput and the bottleneck queue.
//! `cargo run --release --example seed000 -- [access|datacenter] [flows] [seconds] [qdisc] [cc] [tsq]`
//! (qdisc at the bottleneck: droptail (900 packets, the default) or any registered discipline by
//! name, with its defaults; pie, codel and fq_codel with seed 000's 5 ms target at 100 Mb/s,
//! 2 ms at 1 Gb/s; cc: every flow's congestion control by name, with its defaults, CUBIC by
//! default; tsq: every flow's `[tcp] tsq`, off, paced or all, the profile's by default).
use crosslayer_core::aqm::{self, QdiscConfig};
use crosslayer_core::cc;
use crosslayer_core::presets;
use crosslayer_core::spec::TopologySpec;
use crosslayer_core::units::Dur;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let which = args.get(1).map_or("access", String::as_str);
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(9);
    let secs: u64 = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
    let mut spec = match which {
        "access" => presets::access_link(n, presets::cubic(), secs),
        "datacenter" => presets::data_center(n, presets::cubic(), secs),
        other => panic!("unknown scenario {other:?}: use access or datacenter"),
    };
    let target = Dur::from_ms(if which == "access" { 5 } else { 2 });
    // Any registered discipline by its canonical name, with its defaults; pie, codel and
    // fq_codel get seed 000's target.
    let qdisc = match args.get(4).map_or("droptail", String::as_str) {
        "droptail" => None,
        "pie" => Some(QdiscConfig::Pie(crosslayer_core::aqm::pie::PieConfig { target, ..Default::default() })),
        "codel" => Some(QdiscConfig::Codel(crosslayer_core::aqm::codel::CodelConfig { target, ..Default::default() })),
        "fq_codel" => Some(QdiscConfig::FqCodel(crosslayer_core::aqm::fq_codel::FqCodelConfig { target, ..Default::default() })),
        name => Some(aqm::all_defaults().into_iter().find(|c| c.name() == name).unwrap_or_else(|| {
            let known: Vec<&str> = aqm::all_defaults().iter().map(|c| c.name()).collect();
            panic!("unknown qdisc {name:?}: use one of {}", known.join(", "))
        })),
    };
    if let Some(name) = args.get(5) {
        let cc = cc::all_defaults().into_iter().find(|c| c.name() == name.as_str()).unwrap_or_else(|| {
            let known: Vec<&str> = cc::all_defaults().iter().map(|c| c.name()).collect();
            panic!("unknown congestion control {name:?}: use one of {}", known.join(", "))
        });
        for f in &mut spec.flows {
            f.cc = cc.clone().into();
        }
    }
    if let Some(t) = args.get(6) {
        let tsq = match t.as_str() {
            "off" => crosslayer_core::tcp::Tsq::Off,
            "paced" => crosslayer_core::tcp::Tsq::Paced,
            "all" => crosslayer_core::tcp::Tsq::All,
            other => panic!("unknown tsq {other:?}: use off, paced or all"),
        };
        for f in &mut spec.flows {
            f.tcp = std::sync::Arc::new(crosslayer_core::tcp::TcpConfig { tsq: Some(tsq), ..(*f.tcp).clone() });
        }
    }
    if let Some(q) = qdisc {
        let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        forward.qdisc = q;
    }
    let r = crosslayer_core::run(spec).expect("run failed");
    let names = r.flows.strs("name");
    let gp = r.flows.f64s("goodput_bps");
    let rtt = r.flows.f64s("base_rtt_s");
    let retx = r.flows.u64s("retransmits");
    let to = r.flows.u64s("timeouts");
    for i in 0..names.len().min(20) {
        println!("{:<10} rtt {:>6.1} ms goodput {:>8.2} Mb/s retx {:>6} rto {:>4}", names[i], rtt[i] * 1e3, gp[i] / 1e6, retx[i], to[i]);
    }
    let q = &r.queues;
    println!("bottleneck: qlen mean {:.1} sd {:.1} pkts, drop ratio {:.3} %, utilization {:.2} %",
        q.f64s("qlen_mean_pkts")[0], q.f64s("qlen_sd_pkts")[0], q.f64s("drop_ratio")[0] * 100.0, q.f64s("utilization")[0] * 100.0);
    let s = &r.summary;
    println!("{} events, {} delivered segments, wall {:.3} s -> {:.0} seg/s, {:.4} wall-s per sim-s",
        s.events, s.delivered_segments, s.wall_s, s.delivered_segments as f64 / s.wall_s, s.wall_s / s.sim_s);
}
