//! Control-theoretic queue disciplines (PI, REM, AVQ) in the seed 000 Access Link (100 Mb/s
//! everywhere, RTT 8-204 ms, 9 and 90 CUBIC flows, seed 1, 40 s with a 12 s warm-up) at the
//! bottleneck. Each property is stated in the test's name; the numbers are printed
//! (`--nocapture`).

use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::{presets, run, RunResult};

mod common;
use common::Bottleneck;

fn access(name: &str, n_flows: usize, qdisc: QdiscConfig, seconds: u64) -> (Bottleneck, RunResult) {
    let r = common::access(n_flows, qdisc, seconds, false);
    let b = Bottleneck::of(&r);
    // spread of the queue: standard deviation of the 10 ms samples after the warm-up
    let warmup_s = (seconds as f64 * 0.3).min(30.0);
    let t = r.series.f64s("t_s");
    let ql: Vec<f64> = r.series.u64s("qlen_pkts").iter().zip(t).filter(|(_, &t)| t >= warmup_s).map(|(&q, _)| q as f64).collect();
    let m = ql.iter().sum::<f64>() / ql.len() as f64;
    let sd = (ql.iter().map(|q| (q - m) * (q - m)).sum::<f64>() / ql.len() as f64).sqrt();
    eprintln!(
        "{name}, {n_flows} flows: queue {:.1} pkts (sd of 10 ms samples {sd:.1}), sojourn {:.2} ms, utilization {:.4}, drops {:.3} %",
        b.qlen_mean,
        b.sojourn_mean * 1e3,
        b.utilization,
        100.0 * b.drop_ratio
    );
    (b, r)
}

/// PI with ns-2's controller (a = 1.822e-5, b = 1.816e-5, 170 Hz, q_ref = 50 packets): its
/// integral action brings the mean queue to q_ref with 9 and 90 flows (within 30 %), and the
/// link stays busy.
#[test]
fn pi_mean_queue_settles_near_q_ref() {
    use crosslayer_core::aqm::pi::PiConfig;
    for n in [9, 90] {
        let (b, _) = access("PI", n, QdiscConfig::Pi(PiConfig::default()), 40);
        assert!((b.qlen_mean - 50.0).abs() < 15.0, "PI, {n} flows: queue {}", b.qlen_mean);
        assert!(b.utilization > 0.95, "PI, {n} flows: utilization {}", b.utilization);
    }
}

/// REM with ns-2's defaults (gamma 0.001, phi 1.001, alpha 0.1, b* = 20 packets, 2 ms): the mean
/// queue settles near b* (within 10 packets) with 9 and 90 flows, and the link stays busy. The
/// price overshoots in slow start (to ~75 with 90 flows) and takes some 25 s to come down at
/// gamma = 0.001, so these runs last 100 s (30 s warm-up). Since x counts every arrival, the
/// price is still when alpha (b - b*) + x - c averages zero: the mean queue is
/// b* - (x - c) / alpha with x / c = utilization / (1 - drop ratio), below b* when drops make the
/// offered load exceed the capacity; the measured mean is asserted within 3 packets of that.
#[test]
fn rem_mean_queue_settles_near_b_ref() {
    use crosslayer_core::aqm::rem::RemConfig;
    let c = 0.002 * 100e6 / 12_000.0; // packets per update interval
    for n in [9, 90] {
        let (b, _) = access("REM", n, QdiscConfig::Rem(RemConfig::default()), 100);
        let x = c * b.utilization / (1.0 - b.drop_ratio);
        let b_eq = 20.0 - (x - c) / 0.1;
        eprintln!("REM, {n} flows: x - c = {:.3} pkts per 2 ms, predicted mean queue {b_eq:.1}", x - c);
        assert!((b.qlen_mean - 20.0).abs() < 10.0, "REM, {n} flows: queue {}", b.qlen_mean);
        assert!((b.qlen_mean - b_eq).abs() < 3.0, "REM, {n} flows: queue {} vs b* - (x - c) / alpha = {b_eq}", b.qlen_mean);
        assert!(b.utilization > 0.95, "REM, {n} flows: utilization {}", b.utilization);
    }
}

/// AVQ with ns-2's defaults (gamma 0.98, alpha 0.15, byte mode, C~ from 0.8 C; virtual buffer =
/// the real 1000 packets): the virtual capacity steers the arrival rate to gamma C, so the link
/// runs near 98 % busy (within 2 points) while the real queue stays short (mean under 25
/// packets over seeds 1-20) with 9 and 90 flows. With 9 flows one seed's mean queue ranges over
/// 16-38 packets, and simultaneous events reorder it. Over seeds 1-6: 22.2 when every link
/// scheduled its departures, 22.7 once Drop Tail's links knew them at arrival, 26.6 since AVQ's
/// does too (docs/PERFORMANCE.md, part 24). Over 20 seeds of this run, with and without the
/// departure events: 22.9 and 23.6 packets, the same distribution (two-sample KS D = 0.10). So
/// the bound is on the mean over 20 seeds, where a seed's spread no longer decides it.
#[test]
fn avq_holds_utilization_near_gamma_with_a_short_real_queue() {
    use crosslayer_core::aqm::avq::AvqConfig;
    for n in [9, 90] {
        let mut queues = Vec::new();
        for seed in 1..=20u64 {
            let mut spec = presets::access_link(n, presets::cubic(), 40);
            common::set_bottleneck(&mut spec, QdiscConfig::Avq(AvqConfig::default()));
            spec.seed = seed;
            let b = Bottleneck::of(&run(spec).expect("run"));
            assert!((b.utilization - 0.98).abs() < 0.02, "AVQ, {n} flows, seed {seed}: utilization {}", b.utilization);
            queues.push(b.qlen_mean);
        }
        let mean = queues.iter().sum::<f64>() / queues.len() as f64;
        eprintln!("AVQ, {n} flows: mean queue {mean:.1} pkts over seeds 1-20 ({queues:.1?})");
        assert!(mean < 25.0, "AVQ, {n} flows: queue {mean} ({queues:?})");
    }
}
