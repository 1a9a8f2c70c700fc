//! Class-based scheduling (`classes`) at the bottleneck of the seed 000 Access Link (100 Mb/s,
//! RTT 8-204 ms, CUBIC): two groups of flows told apart by DSCP, as a WAN emulator's "priority
//! or round robin queuing" would serve them. Each property is stated in the test's name; the
//! numbers are printed (`--nocapture`).

use crosslayer_core::aqm::classes::{ClassSpec, ClassesConfig};
use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::presets;
use crosslayer_core::spec::{ScenarioSpec, TopologySpec};
use crosslayer_core::units::Bytes;
use crosslayer_core::{run, RunResult};

/// The group of flow `i`: even flows are group A (DSCP 10), odd ones group B (DSCP 0); with 18
/// flows each group has one flow on each of the nine (sender, receiver) pairs.
fn in_a(i: usize) -> bool {
    i.is_multiple_of(2)
}

fn scenario(n: usize, qdisc: QdiscConfig, seconds: u64) -> ScenarioSpec {
    let mut spec = presets::access_link(n, presets::cubic(), seconds);
    for (i, f) in spec.flows.iter_mut().enumerate() {
        f.dscp = if in_a(i) { 10 } else { 0 };
    }
    let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    forward.qdisc = qdisc;
    spec
}

/// Goodput of groups A and B (bit/s) and the bottleneck utilization.
fn groups(r: &RunResult) -> (f64, f64, f64) {
    let g = r.flows.f64s("goodput_bps");
    let a: f64 = g.iter().enumerate().filter(|&(i, _)| in_a(i)).map(|(_, x)| x).sum();
    let b: f64 = g.iter().enumerate().filter(|&(i, _)| !in_a(i)).map(|(_, x)| x).sum();
    let q = &r.queues;
    let k = q.strs("role").iter().position(|s| s == "forward").unwrap();
    (a, b, q.f64s("utilization")[k])
}

/// Class `k`'s bytes sent at the bottleneck in the window (the discipline's counter).
fn class_bytes(r: &RunResult, k: usize) -> u64 {
    let s = &r.qdisc_stats;
    let name = format!("class{k}_bytes");
    (0..s.rows()).find(|&i| s.strs("role")[i] == "forward" && s.strs("stat")[i] == name).map(|i| s.u64s("value")[i]).unwrap()
}

fn class(priority: u32, quantum: u64, dscp: Vec<u8>, limit_pkts: u32) -> ClassSpec {
    ClassSpec { priority, quantum: Bytes::new(quantum), dscp, qdisc: presets::droptail(limit_pkts), ..ClassSpec::default() }
}

/// DRR with quanta 3:1 (4542 and 1514 bytes), each class a 450-packet FIFO: 9 CUBIC flows per
/// group get 3:1 of the goodput, where one shared 900-packet FIFO gives A less than B (seed 1,
/// 30 s).
#[test]
fn drr_with_quanta_three_to_one_gives_three_to_one_goodput() {
    let drr = ClassesConfig { classes: vec![class(0, 4542, vec![10], 450), class(0, 1514, vec![], 450)], default_class: 1 };
    let r = run(scenario(18, QdiscConfig::Classes(drr), 30)).expect("run");
    let (a, b, util) = groups(&r);
    let (ca, cb) = (class_bytes(&r, 0), class_bytes(&r, 1));
    eprintln!(
        "DRR 3:1: goodput A {:.2} Mb/s, B {:.2} Mb/s, ratio {:.3}; class bytes ratio {:.3}; utilization {util:.4}",
        a / 1e6,
        b / 1e6,
        a / b,
        ca as f64 / cb as f64
    );
    let (fa, fb, _) = groups(&run(scenario(18, presets::droptail(900), 30)).expect("run"));
    eprintln!("one FIFO: goodput A {:.2} Mb/s, B {:.2} Mb/s, ratio {:.3}", fa / 1e6, fb / 1e6, fa / fb);
    assert!((a / b - 3.0).abs() < 0.15, "goodput ratio {}", a / b);
    assert!((ca as f64 / cb as f64 - 3.0).abs() < 0.1);
    assert!(util > 0.97);
    assert!(fa / fb < 1.5, "one FIFO does not favour A: {}", fa / fb);
}

/// Strict priority, group A (DSCP 10) first. With A's flows limited by a 64 KB receive window
/// (they want about 19 Mb/s), A gets what it wants - more than in one shared FIFO, where the
/// standing queue inflates its RTT - and B takes all the rest: the link stays busy, nothing A
/// leaves is lost. With A unlimited, A takes the link and B is starved (seed 1, 30 s).
#[test]
fn strict_priority_starves_nothing_the_high_class_does_not_use() {
    let prio = || QdiscConfig::Classes(ClassesConfig { classes: vec![class(0, 1514, vec![10], 1000), class(1, 1514, vec![], 1000)], default_class: 1 });
    let limited = |qdisc: QdiscConfig| {
        let mut spec = scenario(18, qdisc, 30);
        for (i, f) in spec.flows.iter_mut().enumerate() {
            if in_a(i) {
                std::sync::Arc::make_mut(&mut f.tcp).rwnd = Some(Bytes::new(16 * 1024));
            }
        }
        run(spec).expect("run")
    };
    let r = limited(prio());
    let (a, b, util) = groups(&r);
    // What A's windows allow: A alone on the link (no queue builds: it wants less than the link).
    let alone = {
        let mut spec = scenario(18, presets::droptail(900), 30);
        spec.flows = spec.flows.into_iter().enumerate().filter(|&(i, _)| in_a(i)).map(|(_, f)| f).collect();
        for f in &mut spec.flows {
            std::sync::Arc::make_mut(&mut f.tcp).rwnd = Some(Bytes::new(16 * 1024));
        }
        run(spec).expect("run").flows.f64s("goodput_bps").iter().sum::<f64>()
    };
    eprintln!("priority, A window-limited: A {:.2} Mb/s (alone {:.2}), B {:.2} Mb/s, utilization {util:.4}", a / 1e6, alone / 1e6, b / 1e6);
    let (fa, fb, futil) = groups(&limited(presets::droptail(900)));
    eprintln!("one FIFO, A window-limited: A {:.2} Mb/s, B {:.2} Mb/s, utilization {futil:.4}", fa / 1e6, fb / 1e6);
    assert!(a > 0.97 * alone && a < 1.01 * alone, "A {a}, alone {alone}");
    assert!(a > 1.5 * fa, "priority {a} vs FIFO {fa}");
    assert!(util > 0.97, "B takes what A leaves: utilization {util}");
    assert!(b > 0.9 * (0.95e8 - a), "B {b}");

    let (ua, ub, uutil) = groups(&run(scenario(18, prio(), 30)).expect("run"));
    eprintln!("priority, A unlimited: A {:.2} Mb/s, B {:.2} Mb/s, utilization {uutil:.4}", ua / 1e6, ub / 1e6);
    assert!(ub < 0.05 * ua, "B {ub} A {ua}");
}
