//! BBRv3 in small dumbbells (`presets::single_bottleneck`: one sender, one receiver, the whole
//! propagation delay on the bottleneck, access links ten times faster), against BBR v1 where it
//! tells them apart. The numbers are printed (`--nocapture`).

use crosslayer_core::cc::CcConfig;
use crosslayer_core::presets;
use crosslayer_core::spec::{ScenarioSpec, StartSpec};
use crosslayer_core::tcp::TcpConfig;
use crosslayer_core::units::{Dur, Time};
use crosslayer_core::{run, RunResult};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// `flows` on a `mbps` bottleneck with `rtt_ms` round trip and `buffer` packets, `secs` long,
/// measured after `warmup` seconds (the helper of tests/cc.rs, returning the spec to adjust).
fn dumbbell(mbps: u64, rtt_ms: u64, buffer: u32, flows: Vec<CcConfig>, secs: u64, warmup: u64) -> ScenarioSpec {
    let flows = flows.into_iter().map(|cc| (cc, TcpConfig::default())).collect();
    presets::single_bottleneck(mbps * 1_000_000, rtt_ms * MS, buffer, flows, secs * S, warmup * S)
}

fn bottleneck(r: &RunResult, col: &str) -> f64 {
    let i = r.queues.strs("role").iter().position(|s| s == "forward").unwrap();
    r.queues.f64s(col)[i]
}

fn bottleneck_drops(r: &RunResult) -> u64 {
    let i = r.queues.strs("role").iter().position(|s| s == "forward").unwrap();
    r.queues.u64s("drops")[i]
}

fn bbr3() -> CcConfig {
    CcConfig::Bbr3(Default::default())
}

fn bbr1() -> CcConfig {
    CcConfig::Bbr(Default::default())
}

/// Times (s) at which the traced `state` of flow `prefix` enters `value`.
fn entries(r: &RunResult, col: &str, value: f64) -> Vec<f64> {
    let s = r.cwnd.f64s(col);
    let t = r.cwnd.f64s("t_s");
    (1..t.len()).filter(|&i| s[i] == value && s[i - 1] != value).map(|i| t[i]).collect()
}

/// BBRv3 alone on 100 Mb/s, 40 ms with a 2-BDP buffer (667 packets) keeps the queue a small
/// part of one BDP (333 packets) at high utilization; its trace goes through the four PROBE_BW
/// sub-states and PROBE_RTT about every 5 s. (60 s measured after 5 s: with the payload paced at
/// 99 % of the link, PROBE_RTT comes every 5.2 s and falls between most bandwidth probes; 30 s
/// left two quiet intervals to check.)
#[test]
fn bbr3_alone_keeps_the_queue_well_under_a_bdp() {
    let mut spec = dumbbell(100, 40, 667, vec![bbr3()], 65, 5);
    spec.sample_interval = Dur::from_ms(10);
    spec.cwnd_trace = true;
    let r = run(spec).expect("run");
    let (q, u) = (bottleneck(&r, "qlen_mean_pkts"), bottleneck(&r, "utilization"));
    let states = r.cwnd.f64s("bbr3_state");
    let probe_rtt_at = entries(&r, "bbr3_state", 6.0);
    let up_at = entries(&r, "bbr3_state", 5.0);
    eprintln!(
        "BBRv3: queue {q:.1} pkts (sd {:.1}), utilization {u:.4}, drops {}, retransmits {}, PROBE_RTT at {probe_rtt_at:?} s, PROBE_UP at {up_at:?} s",
        bottleneck(&r, "qlen_sd_pkts"),
        bottleneck_drops(&r),
        r.flows.u64s("retransmits")[0]
    );
    assert!(q < 0.1 * 333.0 && u > 0.93, "queue {q}, utilization {u}");
    for s in [2.0, 3.0, 4.0, 5.0, 6.0] {
        assert!(states.contains(&s), "state {s} never seen");
    }
    // 5 s after the last PROBE_RTT, or later when a lower RTT sample renewed the 5-s minimum
    assert!(probe_rtt_at.len() >= 4 && probe_rtt_at.windows(2).all(|p| p[1] - p[0] > 5.0 && p[1] - p[0] < 8.5), "PROBE_RTT at {probe_rtt_at:?}");
    // a bandwidth probe 2-3 s after the previous one ended (UP and REFILL take a few rounds),
    // unless a PROBE_RTT came between (it restarts the wait)
    let quiet: Vec<f64> = up_at.windows(2).filter(|p| !probe_rtt_at.iter().any(|&t| t > p[0] && t < p[1])).map(|p| p[1] - p[0]).collect();
    assert!(quiet.len() >= 3 && quiet.iter().all(|&d| d > 2.0 && d < 3.6), "PROBE_UP at {up_at:?}");
}

/// On a shallow buffer (0.1 BDP: 33 packets at 100 Mb/s, 40 ms) BBR v1 keeps its 2-BDP cwnd and
/// 5/4 probes regardless of loss; BBRv3 bounds its in flight by the loss it sees (inflight_hi,
/// inflight_lo) and probes every 2-3 s, so its loss rate stays low at high utilization.
/// (30 s after 5 s.)
#[test]
fn bbr3_loses_little_on_a_shallow_buffer_where_bbr1_loses_much() {
    let go = |cc: CcConfig| run(dumbbell(100, 40, 33, vec![cc], 35, 5)).expect("run");
    let (v3, v1) = (go(bbr3()), go(bbr1()));
    for (name, r) in [("BBRv3", &v3), ("BBR v1", &v1)] {
        eprintln!(
            "{name}: drop ratio {:.5}, drops {}, retransmits {}, utilization {:.4}, queue {:.1} pkts",
            bottleneck(r, "drop_ratio"),
            bottleneck_drops(r),
            r.flows.u64s("retransmits")[0],
            bottleneck(r, "utilization"),
            bottleneck(r, "qlen_mean_pkts")
        );
    }
    let (l3, l1) = (bottleneck(&v3, "drop_ratio"), bottleneck(&v1, "drop_ratio"));
    assert!(l3 < 0.01 && l3 < l1 / 5.0, "BBRv3 drop ratio {l3}, v1 {l1}");
    assert!(bottleneck(&v3, "utilization") > 0.85, "BBRv3 utilization {}", bottleneck(&v3, "utilization"));
}

/// Jain's index of `x`.
fn jain(x: &[f64]) -> f64 {
    let s: f64 = x.iter().sum();
    s * s / (x.len() as f64 * x.iter().map(|v| v * v).sum::<f64>())
}

/// Two BBRv3 flows, the second starting 5 s after the first, on 100 Mb/s, 40 ms with a 1-BDP
/// buffer (333 packets) converge to an even share, slowly: measured from 100 s to 300 s, Jain's
/// index is 0.986-0.9998 over seeds 1-5. From 45 s to 90 s the first flow still leads in every
/// seed (61-70 / 24-34 Mb/s, Jain 0.81-0.92): both flows are mostly bounded by their loss-based
/// `inflight_lo`, which scales with their own bandwidth estimates, so the split moves only with
/// the probes. That slowness came with Linux's pacing credit (`[tcp] pacing_credit`: a segment
/// sent late is charged at most half its time, `tcp_update_skb_after_send`); without it, the
/// 45-90 s window gave Jain 0.979-1.0 (the earlier version of this test asserted 0.95 there,
/// for seed 1). BBRv3 has no reference here (the reference kernel, 6.1, has BBR v1 only).
/// PROBE_RTT marks the connection app-limited (draft-06 MarkConnectionAppLimited, Linux).
#[test]
fn two_bbr3_flows_started_apart_converge() {
    let mut jains = Vec::new();
    for seed in 1..=5 {
        let mut spec = dumbbell(100, 40, 333, vec![bbr3(), bbr3()], 300, 100);
        spec.seed = seed;
        spec.flows[1].start = StartSpec::Fixed { at: Time::from_secs(5) };
        let r = run(spec).expect("run");
        let g = r.flows.f64s("goodput_bps").to_vec();
        let j = jain(&g);
        eprintln!(
            "two BBRv3 (second 5 s later), seed {seed}: goodput {:.1} / {:.1} Mb/s, Jain {j:.4}, utilization {:.4}, queue {:.1} pkts, drop ratio {:.5}",
            g[0] / 1e6,
            g[1] / 1e6,
            bottleneck(&r, "utilization"),
            bottleneck(&r, "qlen_mean_pkts"),
            bottleneck(&r, "drop_ratio")
        );
        jains.push(j);
    }
    assert!(jains.iter().all(|&j| j > 0.95), "Jain over seeds 1-5: {jains:?}");
}

/// Two flows of one algorithm with 40 and 80 ms round trips (the second sender's access link
/// adds 20 ms each way) on 100 Mb/s with a 333-packet buffer (1 BDP at 40 ms), 30 s after 10 s:
/// the goodputs and Jain's index, BBRv3 against v1.
fn rtt_pair(cc: CcConfig) -> RunResult {
    rtt_pair_seed(cc, 1)
}

fn rtt_pair_seed(cc: CcConfig, seed: u64) -> RunResult {
    use crosslayer_core::spec::TopologySpec;
    let mut spec = dumbbell(100, 40, 333, vec![cc.clone(), cc], 40, 10);
    let TopologySpec::Dumbbell { senders, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    let mut far = senders[0].clone();
    far.name = "S2".into();
    far.up.delay = far.up.delay + Dur::from_ms(20);
    far.down.delay = far.down.delay + Dur::from_ms(20);
    senders.push(far);
    spec.flows[1].src = (1u32).into();
    spec.seed = seed;
    run(spec).expect("run")
}

/// BBRv3 flows with 40 and 80 ms round trips: the shorter one gets about three quarters of the
/// link (seed 1: 67.3 / 27.1 Mb/s, Jain 0.85), where v1 shares more evenly (60.2 / 33.9, 0.93)
/// with 1.6 times the queue and 17 times the loss. v3's in-flight bounds come from losses and grow per round (inflight_hi doubling its
/// step each round of UP, the short-term bounds cut per round with loss), so the flow with
/// shorter rounds adapts faster, as loss-based Reno does. A measured property of this model,
/// not a number checked against Linux. One seed says little (seeds 1-8: Jain 0.73-0.92, mean
/// 0.81, when every link scheduled its departures; 0.68-0.86, mean 0.77, since links know them
/// at arrival, which reorders simultaneous events; 0.59-0.85, mean 0.72, since the pacing
/// clock charges the payload with Linux's credit), so the share is checked over seeds 1-8:
/// the shorter flow ahead in every one, Jain above 0.7 on average.
#[test]
fn bbr3_flows_with_different_rtts_favour_the_shorter_one() {
    let jains: Vec<f64> = (1..=8u64)
        .map(|seed| {
            let r = rtt_pair_seed(bbr3(), seed);
            let g = r.flows.f64s("goodput_bps");
            assert!(g[0] > g[1], "seed {seed}: goodput {g:?}");
            jain(g)
        })
        .collect();
    let mean = jains.iter().sum::<f64>() / jains.len() as f64;
    eprintln!("BBRv3, 40 / 80 ms, seeds 1-8: Jain {jains:.3?}, mean {mean:.3}");
    assert!(mean > 0.7, "BBRv3 mean Jain {mean} ({jains:?})");
    let (v3, v1) = (rtt_pair(bbr3()), rtt_pair(bbr1()));
    let mut js = vec![];
    for (name, r) in [("BBRv3", &v3), ("BBR v1", &v1)] {
        let g = r.flows.f64s("goodput_bps").to_vec();
        let rtt = r.flows.f64s("base_rtt_s").to_vec();
        let j = jain(&g);
        js.push(j);
        eprintln!(
            "{name}, RTT {:.0} / {:.0} ms: goodput {:.1} / {:.1} Mb/s, Jain {j:.4}, utilization {:.4}, queue {:.1} pkts, drop ratio {:.5}",
            rtt[0] * 1e3,
            rtt[1] * 1e3,
            g[0] / 1e6,
            g[1] / 1e6,
            bottleneck(r, "utilization"),
            bottleneck(r, "qlen_mean_pkts"),
            bottleneck(r, "drop_ratio")
        );
    }
    assert!(bottleneck(&v3, "drop_ratio") < bottleneck(&v1, "drop_ratio") / 2.0);
}

/// ECN (the flow negotiates it with `[tcp] ecn`; classic RFC 3168 echo): two flows on a
/// step-marking queue (RED with K = 20 packets, 100 Mb/s, 4 ms: a 33-packet BDP, 200-packet
/// buffer; 10 s after 2). BBRv3's min RTT is under 5 ms, so ECE counts: the queue stays under
/// K with nothing dropped; without ECN the same queue drops at K; v1 ignores the marks and
/// holds about 5 times the queue. BBRv3 + ECN: 10.5 packets, utilization 0.977, no drop;
/// without ECN: 8.7, 0.983, 1121 drops; v1 + ECN: 71.6, 0.984.
#[test]
fn bbr3_with_ecn_holds_a_step_marking_queue_without_loss() {
    use crosslayer_core::aqm::red::RedConfig;
    use crosslayer_core::aqm::QdiscConfig;
    use crosslayer_core::spec::TopologySpec;
    let go = |cc: CcConfig, ecn: bool| {
        let tcp = TcpConfig { ecn, ..TcpConfig::default() };
        let mut spec = presets::single_bottleneck(100_000_000, 4 * MS, 200, vec![(cc.clone(), tcp.clone()), (cc, tcp)], 12 * S, 2 * S);
        let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        forward.qdisc = QdiscConfig::Red(RedConfig { min_th: 20.0, max_th: 21.0, w_q: 1.0, max_p: 1.0, gentle: false, ecn: true, limit_pkts: 200, ..Default::default() });
        run(spec).expect("run")
    };
    let (v3, plain, v1) = (go(bbr3(), true), go(bbr3(), false), go(bbr1(), true));
    for (name, r) in [("BBRv3 + ECN", &v3), ("BBRv3 without ECN", &plain), ("BBR v1 + ECN", &v1)] {
        let g = r.flows.f64s("goodput_bps");
        eprintln!(
            "{name}: queue {:.1} pkts, utilization {:.4}, drops {}, goodput {:.1} / {:.1} Mb/s",
            bottleneck(r, "qlen_mean_pkts"),
            bottleneck(r, "utilization"),
            bottleneck_drops(r),
            g[0] / 1e6,
            g[1] / 1e6
        );
    }
    let q = bottleneck(&v3, "qlen_mean_pkts");
    assert!(q < 20.0 && bottleneck_drops(&v3) == 0 && bottleneck(&v3, "utilization") > 0.95, "BBRv3 + ECN queue {q}");
    assert!(bottleneck_drops(&plain) > 0);
    assert!(bottleneck(&v1, "qlen_mean_pkts") > 2.0 * q);
    assert!(jain(v3.flows.f64s("goodput_bps")) > 0.95);
}
