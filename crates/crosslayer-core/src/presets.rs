//! Ready-made specs: the seed-000 scenarios (Piotrowska, Appl. Sci. 2021, section 5) and a
//! single-bottleneck dumbbell for model tests. The Python package builds the same scenarios from
//! `studies/*.toml`; these exist for Rust tests and benches.

use crate::aqm::droptail::DropTailConfig;
use crate::aqm::QdiscConfig;
use crate::cc::cubic::CubicConfig;
use crate::cc::CcConfig;
use crate::spec::{EdgeSpec, FlowSpec, HostSpec, ScenarioSpec, StartSpec, TopologySpec, UdpFlowSpec};
use crate::tcp::TcpConfig;
use crate::units::{Bytes, Dur, Opt, Rate, Time};

const MS: u64 = 1_000_000;
const US: u64 = 1_000;
const S: u64 = 1_000_000_000;

pub fn droptail(limit_pkts: u32) -> QdiscConfig {
    QdiscConfig::DropTail(DropTailConfig { limit_pkts: Some(limit_pkts), limit_bytes: None })
}

pub fn cubic() -> CcConfig {
    CcConfig::Cubic(CubicConfig::default())
}

pub fn reno() -> CcConfig {
    CcConfig::default_for("reno").expect("reno is registered")
}

fn edge(rate_bps: u64, delay_ns: u64, qdisc: QdiscConfig) -> EdgeSpec {
    EdgeSpec { rate: Rate::from_bps(rate_bps), delay: Dur::from_ns(delay_ns), loss: 0.0, jitter: Dur::ZERO, qdisc, impair: Default::default() }
}

fn host(name: &str, rate_bps: u64, delay_ns: u64) -> HostSpec {
    let e = edge(rate_bps, delay_ns, droptail(1000));
    HostSpec { name: name.into(), up: e.clone(), down: e }
}

/// Three senders and three receivers with the given one-way access delays; `n_flows` flows spread
/// round-robin over the nine (sender, receiver) pairs, starting uniformly in [0, 3 s].
fn three_by_three(rate_bps: u64, bottleneck_delay_ns: u64, sender_delays: [u64; 3], receiver_delays: [u64; 3], n_flows: usize, cc: CcConfig, duration_s: u64) -> ScenarioSpec {
    let bottleneck = edge(rate_bps, bottleneck_delay_ns, droptail(900));
    let senders = (0..3).map(|i| host(&format!("N{}", i + 1), rate_bps, sender_delays[i])).collect();
    let receivers = (0..3).map(|i| host(&format!("N{}", i + 4), rate_bps, receiver_delays[i])).collect();
    let flows = (0..n_flows)
        .map(|i| {
            let pair = i % 9;
            let (src, dst) = ((pair / 3) as u32, (pair % 3) as u32);
            FlowSpec {
                name: format!("N{}-N{}.{}", src + 1, dst + 4, i / 9).into(),
                src: src.into(),
                dst: dst.into(),
                reverse: false,
                cc: cc.clone().into(),
                tcp: TcpConfig::default().into(),
                start: StartSpec::Uniform { from: Time::ZERO, to: Time::from_secs(3) },
                stop: Opt::NONE,
                size: Opt::NONE,
                app_rate: Opt::NONE, abort: Opt::NONE, on_off: None,
                dscp: 0,
                port: 0,
                milestones: false,
            }
        })
        .collect();
    ScenarioSpec {
        seed: 1,
        duration: Dur::from_secs(duration_s),
        warmup: Dur::from_ns((duration_s * S * 3 / 10).min(30 * S)),
        sample_interval: Dur::from_ms(10),
        cwnd_trace: false,
        goodput_interval: Dur::ZERO,
        series_queue: "forward".into(),
        limits: Default::default(),
        tie_break: Default::default(),
        departure_events: false,
        topology: TopologySpec::Dumbbell { forward: bottleneck.clone(), reverse: bottleneck, senders, receivers },
        flows,
        udp: vec![],
        arrivals: vec![],
        pcap: None,
        flow_groups: Vec::new(),
        flow_runs: Vec::new(),
        own_flows: None,
    }
}

/// Seed 000 Access Link: 100 Mb/s everywhere, A-B 2 ms, access delays N1 0, N2 12, N3 25,
/// N4 2, N5 37, N6 75 ms (they reproduce the nine RTTs of its Table 1, 8-204 ms); 900-packet
/// DropTail bottleneck.
pub fn access_link(n_flows: usize, cc: CcConfig, duration_s: u64) -> ScenarioSpec {
    three_by_three(100_000_000, 2 * MS, [0, 12 * MS, 25 * MS], [2 * MS, 37 * MS, 75 * MS], n_flows, cc, duration_s)
}

/// Seed 000 Data Center: 1 Gb/s everywhere, N1, N2, N4 10 us, N3, N5, N6 100 us, A-B 0 delay;
/// 900-packet DropTail bottleneck.
pub fn data_center(n_flows: usize, cc: CcConfig, duration_s: u64) -> ScenarioSpec {
    three_by_three(1_000_000_000, 0, [10 * US, 10 * US, 100 * US], [10 * US, 100 * US, 100 * US], n_flows, cc, duration_s)
}

/// One sender, one receiver, a bottleneck of `rate_bps` with the whole propagation delay on it
/// (`rtt_ns` round trip), a DropTail buffer of `buffer_pkts`, and fast (10x) access links.
pub fn single_bottleneck(rate_bps: u64, rtt_ns: u64, buffer_pkts: u32, flows: Vec<(CcConfig, TcpConfig)>, duration_ns: u64, warmup_ns: u64) -> ScenarioSpec {
    let fwd = edge(rate_bps, rtt_ns / 2, droptail(buffer_pkts));
    let access = edge(rate_bps * 10, 0, droptail(10_000));
    let h = |name: &str| HostSpec { name: name.into(), up: access.clone(), down: access.clone() };
    ScenarioSpec {
        seed: 1,
        duration: Dur::from_ns(duration_ns),
        warmup: Dur::from_ns(warmup_ns),
        sample_interval: Dur::ZERO,
        cwnd_trace: false,
        goodput_interval: Dur::ZERO,
        series_queue: "forward".into(),
        limits: Default::default(),
        tie_break: Default::default(),
        departure_events: false,
        topology: TopologySpec::Dumbbell { forward: fwd.clone(), reverse: EdgeSpec { qdisc: droptail(10_000), ..fwd }, senders: vec![h("S")], receivers: vec![h("R")] },
        flows: flows
            .into_iter()
            .enumerate()
            .map(|(i, (cc, tcp))| FlowSpec { name: format!("f{i}").into(), src: 0.into(), dst: 0.into(), reverse: false, cc: cc.into(), tcp: tcp.into(), size: Opt::NONE, app_rate: Opt::NONE, abort: Opt::NONE, on_off: None, start: StartSpec::Fixed { at: Time::ZERO }, stop: Opt::NONE, dscp: 0, port: 0, milestones: false })
            .collect(),
        udp: vec![],
        arrivals: vec![],
        pcap: None,
        flow_groups: Vec::new(),
        flow_runs: Vec::new(),
        own_flows: None,
    }
}

/// An unresponsive constant-bit-rate source from a dumbbell's sender `src` to its receiver
/// `dst` at `rate` (wire bytes), datagrams of `packet_size` wire bytes, from t = 0 to the end;
/// not ECN-capable, DSCP 0 (set the other fields with `UdpFlowSpec { .., ..cbr(..) }`).
pub fn cbr(name: &str, src: u32, dst: u32, rate: Rate, packet_size: Bytes) -> UdpFlowSpec {
    UdpFlowSpec { name: name.into(), src: src.into(), dst: dst.into(), reverse: false, rate, packet_size, start: Time::ZERO, stop: None, ecn: false, ect1: false, dscp: 0, port: 0 }
}
