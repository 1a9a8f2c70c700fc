//! FQ-PIE, SRED and WRED in a dumbbell: the seed 000 Access Link (100 Mb/s, RTT 8-204 ms, 9 and
//! 90 flows). Each property is stated in the test's name; the numbers are printed (`--nocapture`).

use crosslayer_core::aqm::fq_pie::FqPieConfig;
use crosslayer_core::aqm::sred::{SredConfig, SredVariant};
use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::presets;
use crosslayer_core::spec::TopologySpec;
use crosslayer_core::units::Dur;
use crosslayer_core::run;

mod common;
use common::{forward_row as forward, jain};

/// Mixed CUBIC and Reno flows (alternating) over RTTs of 8-204 ms: FQ-PIE shares the link
/// fairly (Jain >= 0.95; seed 1: 0.985 with 9 flows, 0.970 with 90), as FQ-CoDel does, where
/// DropTail's 900 packets share less evenly (0.887 and 0.909; its CUBIC flows get more than its
/// Reno flows); the link stays busy.
#[test]
fn fq_pie_shares_fairly_between_cubic_and_reno_at_different_rtts() {
    for n in [9, 90] {
        let mixed = |qdisc: QdiscConfig| common::access(n, qdisc, 40, true);
        let jd = jain(&mixed(presets::droptail(900)));
        let r = mixed(QdiscConfig::FqPie(FqPieConfig::default()));
        let i = forward(&r);
        let (jf, util) = (jain(&r), r.queues.f64s("utilization")[i]);
        eprintln!("{n} flows, CUBIC + Reno: Jain FQ-PIE {jf:.3} (utilization {util:.4}), DropTail {jd:.3}");
        assert!(jf >= 0.95, "{n} flows: FQ-PIE Jain {jf}");
        assert!(jf > jd && util > 0.95, "{n} flows: Jain {jf} vs DropTail {jd}, utilization {util}");
    }
}

/// FQ-PIE with CUBIC flows: with 9 flows and the 5 ms target that seed 000 gives PIE at
/// 100 Mb/s the mean sojourn is at the target (5.2 ms; the band of PIE's own test, 2.5-7.5 ms);
/// with Linux's 15 ms it stays below it (9.9 ms: each flow's PIE holds its own queue at or below
/// 15 ms, and queues of flows with small windows are shorter). With 90 flows the target no longer
/// decides: PIE's two-MTU minimum backlog (no early drop while a flow queue holds under
/// 2 x 1514 bytes) sets a floor of 2 x 1514 x 8 N / C on each flow's delay at its fair share
/// (21.8 ms), and the sojourn is 23.1 ms with the 15 ms target and 15.5 ms with 5 ms (not all
/// queues are backlogged at once). Asserted for all four: sojourn within [0.5, 1.5] x
/// max(target, floor), utilization > 0.95 (seed 1, 40 s).
#[test]
fn fq_pie_holds_the_sojourn_near_its_target() {
    let mut results = vec![];
    for target_ms in [15, 5] {
        for n in [9, 90] {
            let mut spec = presets::access_link(n, presets::cubic(), 40);
            let TopologySpec::Dumbbell { forward: fwd, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
            fwd.qdisc = QdiscConfig::FqPie(FqPieConfig { target: Dur::from_ms(target_ms), ..Default::default() });
            let r = run(spec).expect("run");
            let i = forward(&r);
            let q = &r.queues;
            let (sojourn, util, drops) = (q.f64s("sojourn_mean_s")[i], q.f64s("utilization")[i], q.f64s("drop_ratio")[i]);
            eprintln!(
                "FQ-PIE target {target_ms} ms (2-MTU floor {:.1} ms), {n} flows: sojourn {:.2} ms, queue {:.1} pkts, utilization {util:.4}, drops {:.3} %, Jain {:.3}",
                2.0 * 1514.0 * 8.0 * n as f64 / 100e6 * 1e3,
                sojourn * 1e3,
                q.f64s("qlen_mean_pkts")[i],
                100.0 * drops,
                jain(&r)
            );
            let floor = 2.0 * 1514.0 * 8.0 * n as f64 / 100e6;
            let t = (target_ms as f64 * 1e-3).max(floor);
            results.push((target_ms, n, sojourn, t, util));
        }
    }
    for (target_ms, n, sojourn, t, util) in results {
        assert!(sojourn > 0.5 * t && sojourn < 1.5 * t, "target {target_ms} ms, {n} flows: sojourn {sojourn}, expected near {t}");
        if (target_ms, n) == (5, 9) {
            assert!(sojourn > 0.0025 && sojourn < 0.0075, "target 5 ms, 9 flows: sojourn {sojourn}");
        }
        assert!(util > 0.95, "target {target_ms} ms, {n} flows: utilization {util}");
    }
}

/// The bottleneck's mean queue (packets), utilization and drop ratio with `qdisc` and `n` CUBIC
/// flows.
fn access(n: usize, qdisc: QdiscConfig) -> (f64, f64, f64) {
    access_cc(n, qdisc, false)
}

/// As `access`, with Reno flows when `reno`.
fn access_cc(n: usize, qdisc: QdiscConfig, reno: bool) -> (f64, f64, f64) {
    let mut spec = presets::access_link(n, if reno { presets::reno() } else { presets::cubic() }, 40);
    let TopologySpec::Dumbbell { forward: fwd, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    fwd.qdisc = qdisc;
    let r = run(spec).expect("run");
    let i = forward(&r);
    let q = &r.queues;
    (q.f64s("qlen_mean_pkts")[i], q.f64s("utilization")[i], q.f64s("drop_ratio")[i])
}

/// SRED's claim (Ott et al. 1999): the buffer occupation is stabilized at a level independent
/// of the number of active flows, since p_zap grows as the square of the estimated number. On the
/// seed 000 Access Link (B = 900) it does not hold from 9 to 90 CUBIC flows. With 90 flows both
/// variants hold the queue in p_max's band [B/3, B) well below DropTail's (CUBIC: simple 381,
/// full 294 packets; DropTail 854). With 9 flows p_zap is at most 0.15 (9/256)^2 = 1.9e-4, too
/// small to hold CUBIC's queue: simple SRED's is 724 packets (DropTail: 735); full SRED's, which
/// adds the hit term, 436. Reno (the paper's TCP) needs a lower loss rate, and simple SRED holds
/// it in the band with 9 flows and 90 alike (441 and 400 packets). (Seed 1, 40 s.)
#[test]
fn sred_queue_is_not_independent_of_the_number_of_flows_on_the_access_link() {
    let mut q = std::collections::HashMap::new();
    for variant in [SredVariant::Simple, SredVariant::Full] {
        for n in [9, 90] {
            let (qlen, util, drops) = access(n, QdiscConfig::Sred(SredConfig { limit_pkts: 900, variant, ..Default::default() }));
            eprintln!("SRED {variant:?} (B = 900), {n} CUBIC flows: queue {qlen:.1} pkts, utilization {util:.4}, drops {:.3} %", 100.0 * drops);
            assert!(util > 0.95);
            q.insert((variant == SredVariant::Full, n), qlen);
        }
    }
    let mut reno = [0.0; 2];
    for (k, n) in [9, 90].into_iter().enumerate() {
        let (qlen, util, drops) = access_cc(n, QdiscConfig::Sred(SredConfig { limit_pkts: 900, ..Default::default() }), true);
        eprintln!("SRED Simple (B = 900), {n} Reno flows: queue {qlen:.1} pkts, utilization {util:.4}, drops {:.3} %", 100.0 * drops);
        reno[k] = qlen;
    }
    let (dt90, _, _) = access(90, presets::droptail(900));
    eprintln!("DropTail 900, 90 CUBIC flows: queue {dt90:.1} pkts");
    for full in [false, true] {
        let q90 = q[&(full, 90)];
        assert!(q90 >= 150.0 && q90 < 0.7 * dt90, "full {full}: 90 flows, queue {q90} (DropTail {dt90})");
    }
    assert!(q[&(false, 9)] > 1.5 * q[&(false, 90)], "simple SRED: 9 flows {} vs 90 flows {}", q[&(false, 9)], q[&(false, 90)]);
    for (k, n) in [9, 90].into_iter().enumerate() {
        assert!(reno[k] >= 300.0 && reno[k] < 900.0, "simple SRED, {n} Reno flows: queue {} outside [B/3, B)", reno[k]);
    }
}

/// WRED with AF drop precedence (RFC 2597) and Cisco's DSCP-based profiles (AFx1 min_th 32,
/// AFx3 min_th 24, max_th 40, max_p 0.1, one shared average): half the CUBIC flows send AF11
/// (low drop precedence), half AF13 (high); the AF11 flows get at least 1.5 times the AF13
/// flows' throughput per flow (9 flows: 10.9x and 4.1x, 90 flows: 2.2x and 2.3x; utilization
/// 0.976-0.998, mean queue 17-30 packets). Each run is repeated with the codepoints swapped
/// between the even and odd flows so that the RTT mix of the two groups does not decide.
/// (Seed 1, 40 s.)
#[test]
fn wred_gives_the_low_drop_precedence_group_more_throughput() {
    use crosslayer_core::aqm::wred::{WredClassify, WredConfig};
    let wred = WredConfig { classify: WredClassify::DropPrecedence, class1_min_th: 32.0, class2_min_th: 28.0, class3_min_th: 24.0, ..Default::default() };
    for n in [9, 90] {
        for swap in [false, true] {
            let mut spec = presets::access_link(n, presets::cubic(), 40);
            for (i, f) in spec.flows.iter_mut().enumerate() {
                f.dscp = if (i % 2 == 0) != swap { 10 } else { 14 };
            }
            let TopologySpec::Dumbbell { forward: fwd, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
            fwd.qdisc = QdiscConfig::Wred(wred.clone());
            let dscps: Vec<u8> = spec.flows.iter().map(|f| f.dscp).collect();
            let r = run(spec).expect("run");
            let g = r.flows.f64s("goodput_bps");
            let mean = |d: u8| {
                let v: Vec<f64> = g.iter().zip(&dscps).filter(|(_, x)| **x == d).map(|(g, _)| *g).collect();
                v.iter().sum::<f64>() / v.len() as f64
            };
            let (low, high) = (mean(10), mean(14));
            let i = forward(&r);
            let q = &r.queues;
            eprintln!(
                "WRED, {n} flows (swap {swap}): per-flow goodput AF11 {:.2} Mb/s, AF13 {:.2} Mb/s ({:.2}x); queue {:.1} pkts, utilization {:.4}",
                low / 1e6,
                high / 1e6,
                low / high,
                q.f64s("qlen_mean_pkts")[i],
                q.f64s("utilization")[i]
            );
            assert!(low > 1.5 * high, "{n} flows, swap {swap}: AF11 {low} vs AF13 {high}");
        }
    }
}
