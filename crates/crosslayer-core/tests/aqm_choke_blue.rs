//! CHOKe, Blue and Stochastic Fair Blue on the seed 000 Access Link (100 Mb/s everywhere, RTT
//! 8-204 ms, CUBIC flows; seed 1, 40 s, the first 12 s discarded). Each property is stated in
//! the test's name; the numbers are printed (`--nocapture`).

use crosslayer_core::aqm::QdiscConfig;
use crosslayer_core::presets;
use crosslayer_core::spec::TopologySpec;
use crosslayer_core::{run, RunResult};

mod common;
use common::bottleneck;

/// Run the Access Link with `n_flows` CUBIC flows (every other one Reno if `mixed`) and `qdisc`
/// at the bottleneck, for 40 s.
fn access(n_flows: usize, qdisc: QdiscConfig, mixed: bool) -> RunResult {
    common::access(n_flows, qdisc, 40, mixed)
}

/// Mean of a sampled state column of the bottleneck over the measurement window (after 12 s).
fn state_mean(r: &RunResult, col: &str) -> f64 {
    let t = r.series.f64s("t_s");
    let v = r.series.f64s(col);
    let xs: Vec<f64> = t.iter().zip(v).filter(|(t, _)| **t >= 12.0).map(|(_, v)| *v).collect();
    xs.iter().sum::<f64>() / xs.len() as f64
}

fn jain(r: &RunResult) -> f64 {
    let g = r.flows.f64s("goodput_bps");
    let (s, s2) = (g.iter().sum::<f64>(), g.iter().map(|x| x * x).sum::<f64>());
    s * s / (g.len() as f64 * s2)
}

fn drops(r: &RunResult, reason: &str) -> u64 {
    let names = r.drops.strs("reason");
    let n = r.drops.u64s("drops");
    names.iter().zip(n).filter(|(s, _)| *s == reason).map(|(_, n)| *n).sum()
}

/// CHOKe and RED with the same thresholds (min_th 30, max_th 90 packets, w_q 0.002, max_p
/// 0.1, not gentle) with 9 and 90 CUBIC flows. Above min_th an arrival matches a drawn packet
/// with about its flow's share of the queue (1/9 to 1/90 here), so the matched drops, not RED's,
/// do most of the work and pin RED's average near min_th: with 90 flows it stays between the
/// thresholds (31.3 packets; RED alone 40.4); with 9 flows the sawtooth of a few large windows
/// takes it below min_th (18.9; RED alone 20.1, the same physics). CHOKe's average is never
/// above RED's, and the link stays busy (> 99 %).
#[test]
fn choke_keeps_reds_average_at_min_th_with_tcp_flows() {
    use crosslayer_core::aqm::choke::ChokeConfig;
    use crosslayer_core::aqm::red::RedConfig;
    let cfg = ChokeConfig { min_th: 30.0, max_th: 90.0, ..Default::default() };
    let red_cfg = RedConfig { min_th: 30.0, max_th: 90.0, gentle: false, ..Default::default() };
    for n in [9, 90] {
        let r = access(n, QdiscConfig::Choke(cfg.clone()), false);
        let red = access(n, QdiscConfig::Red(red_cfg.clone()), false);
        let (avg, avg_red) = (state_mean(&r, "avg_pkts"), state_mean(&red, "avg_pkts"));
        let (matched, early, forced) = (drops(&r, "matched"), drops(&r, "early"), drops(&r, "forced"));
        let util = bottleneck(&r, "utilization");
        eprintln!(
            "{n} flows: CHOKe avg {avg:.1} pkts, queue {:.1} pkts, utilization {util:.4}, drops {:.3} % (matched {matched}, early {early}, forced {forced}), Jain {:.3}; RED avg {avg_red:.1}, utilization {:.4}, drops {:.3} %, Jain {:.3}",
            bottleneck(&r, "qlen_mean_pkts"),
            100.0 * bottleneck(&r, "drop_ratio"),
            jain(&r),
            bottleneck(&red, "utilization"),
            100.0 * bottleneck(&red, "drop_ratio"),
            jain(&red),
        );
        assert!(avg <= avg_red && avg < cfg.max_th && avg > 0.5 * cfg.min_th, "{n} flows: avg {avg}, RED {avg_red}");
        if n == 90 {
            assert!(avg > cfg.min_th, "{n} flows: avg {avg}");
        }
        assert!(matched > early + forced, "{n} flows: matched {matched}, RED's {}", early + forced);
        assert!(util > 0.99, "{n} flows: utilization {util}");
    }
}

/// Blue with its defaults (d1 0.0025, d2 0.00025, freeze_time 100 ms, limit 1000 packets) and 90
/// CUBIC flows learns a marking probability (mean 0.031) at which the buffer no longer
/// overflows in the measurement window: the queue stays at a few percent of the limit (44.7
/// packets) and the link busy. With 9 flows the probability it needs is tiny (0.001), the queue
/// swings through the buffer (mean 318 packets) and overflows now and then; the link stays busy.
#[test]
fn blue_learns_a_probability_that_avoids_overflow() {
    use crosslayer_core::aqm::blue::BlueConfig;
    let cfg = BlueConfig::default();
    for n in [9, 90] {
        let r = access(n, QdiscConfig::Blue(cfg.clone()), false);
        let (q, util, p) = (bottleneck(&r, "qlen_mean_pkts"), bottleneck(&r, "utilization"), state_mean(&r, "p_mark"));
        let (overflow, early) = (drops(&r, "overflow"), drops(&r, "blue"));
        eprintln!(
            "Blue, {n} flows: queue {q:.1} pkts, utilization {util:.4}, drops {:.3} % (overflow {overflow}, blue {early}), mean p_mark {p:.4}, Jain {:.3}",
            100.0 * bottleneck(&r, "drop_ratio"),
            jain(&r)
        );
        assert!(util > 0.95 && q < cfg.limit_pkts as f64 && p > 0.0, "{n} flows");
        if n == 90 {
            assert!(overflow == 0 && early > 0 && q < 0.1 * cfg.limit_pkts as f64 && util > 0.99, "{n} flows: overflow {overflow}, queue {q}");
        }
    }
}

/// SFB with Linux's defaults (8 x 16 bins, bin_size 20, max 25, increment 0.001, decrement
/// 1/6000, limit 1000) and CUBIC and Reno flows alternating over RTTs of 8-204 ms. The queue
/// stays bounded (34.5 and 95.1 packets where DropTail's 900 holds 660 and 827) and the link
/// busy. Fairness: with 9 flows, over seeds 1-10, SFB is at least as fair as DropTail (mean
/// Jain's index 0.81 against 0.64; seed by seed the two swap places: 0.58-0.93 and 0.18-0.89,
/// so one seed says little: seed 1 gave 0.890 against 0.887 before links knew their
/// departures at arrival and 0.857 against 0.887 after, an order of simultaneous events);
/// with 90 flows it is well below it (0.518 against 0.909): the bins are crowded (90 flows in 16
/// bins per level), SFB is a FIFO with no scheduler, and a short queue leaves the RTT unfairness
/// of 8-204 ms to TCP, which DropTail's 100 ms of queueing dilutes. Against RED (gentle, 30/90),
/// another short FIFO, SFB is fairer with both loads (RED: 0.330 and 0.404). No flow is sent
/// to the penalty box.
#[test]
fn sfb_bounds_the_queue_and_its_fairness_against_droptail() {
    use crosslayer_core::aqm::red::RedConfig;
    use crosslayer_core::aqm::sfb::SfbConfig;
    for n in [9, 90] {
        let r = access(n, QdiscConfig::Sfb(SfbConfig::default()), true);
        let dt = access(n, presets::droptail(900), true);
        let red = access(n, QdiscConfig::Red(RedConfig { min_th: 30.0, max_th: 90.0, ..Default::default() }), true);
        let (q, util, j, jd) = (bottleneck(&r, "qlen_mean_pkts"), bottleneck(&r, "utilization"), jain(&r), jain(&dt));
        eprintln!(
            "SFB, {n} flows, CUBIC + Reno: Jain {j:.3} (DropTail {jd:.3}, RED {:.3}), queue {q:.1} pkts (DropTail {:.1}, RED {:.1}), utilization {util:.4}, drops {:.3} % (early {}, bin_full {}, penalty {}, overflow {}), max p_mark {:.4}, mean p_mark {:.5}, penalty-box flows {:.2}",
            jain(&red),
            bottleneck(&dt, "qlen_mean_pkts"),
            bottleneck(&red, "qlen_mean_pkts"),
            100.0 * bottleneck(&r, "drop_ratio"),
            drops(&r, "early"),
            drops(&r, "bin_full"),
            drops(&r, "penalty"),
            drops(&r, "overflow"),
            state_mean(&r, "max_p_mark"),
            state_mean(&r, "mean_p_mark"),
            state_mean(&r, "penalty_box_flows"),
        );
        assert!(q < 0.15 * bottleneck(&dt, "qlen_mean_pkts") && util > 0.95, "{n} flows: queue {q}, utilization {util}");
        assert_eq!(drops(&r, "overflow") + drops(&r, "penalty"), 0);
        assert!(j > jain(&red), "{n} flows: Jain {j}, RED {}", jain(&red));
        if n == 9 {
            // at least as fair as DropTail over ten seeds (one seed is a coin toss, above)
            let mean_jain = |q: &dyn Fn() -> QdiscConfig| -> f64 {
                (1..=10u64)
                    .map(|seed| {
                        let mut spec = presets::access_link(9, presets::cubic(), 40);
                        for f in spec.flows.iter_mut().skip(1).step_by(2) {
                            f.cc = presets::reno().into();
                        }
                        common::set_bottleneck(&mut spec, q());
                        spec.seed = seed;
                        jain(&run(spec).expect("run"))
                    })
                    .sum::<f64>()
                    / 10.0
            };
            let (ms, md) = (mean_jain(&|| QdiscConfig::Sfb(SfbConfig::default())), mean_jain(&|| presets::droptail(900)));
            eprintln!("9 flows, seeds 1-10: mean Jain SFB {ms:.3}, DropTail {md:.3} (seed 1: {j:.3}, {jd:.3})");
            assert!(ms >= md - 0.02, "{n} flows: mean Jain SFB {ms}, DropTail {md}");
        }
    }
}

/// The setting of Pan, Prabhakar and Psounis (INFOCOM 2000, section 3), as far as the paper
/// gives it: 32 TCP (Reno) flows and one constant-bit-rate UDP flow through a 1 Mb/s bottleneck
/// with a 300-packet buffer, min_th 100 and max_th 200, 1000-byte packets, short propagation
/// delays (6 ms round trip here). UDP's share of what the bottleneck carries, 200 s measured
/// after 50 s:
///
/// | UDP rate | 1 Mb/s | 2 Mb/s | 5 Mb/s | 10 Mb/s |
/// |---|---|---|---|---|
/// | DropTail | 0.987 | 0.999 | 1.000 | 0.999 |
/// | RED      | 0.751 | 0.984 | 0.999 | 1.000 |
/// | CHOKe    | 0.251 | 0.234 | 0.114 | 0.019 |
///
/// (seed 1; with seeds 2 and 3 CHOKe and DropTail are within 0.003, RED within 0.011.)
///
/// As in the paper (and Tang, Wang and Low's analysis), CHOKe's UDP share falls as the UDP flow
/// sends faster, because the queue holds more of its packets and more arrivals draw a match,
/// while RED and DropTail hand it the link. On the seed 000 Access Link (min_th 5 on 100 Mb/s,
/// 9 flows; `aqm.rs`) CHOKe only trims the UDP flow: there the average queue is pushed below
/// min_th by the matched drops, and everything is admitted while it is.
#[test]
fn choke_squeezes_a_faster_udp_flow_harder_in_pan_et_al_s_setting() {
    use crosslayer_core::aqm::choke::ChokeConfig;
    use crosslayer_core::aqm::red::RedConfig;
    use crosslayer_core::tcp::TcpConfig;
    use crosslayer_core::units::{Bytes, Rate};
    let share = |qdisc: QdiscConfig, udp_mbps: u64| {
        let tcp = TcpConfig { mss: Bytes::new(948), ..TcpConfig::default() };
        let flows = (0..32).map(|_| (presets::reno(), tcp.clone())).collect();
        let mut spec = presets::single_bottleneck(1_000_000, 6_000_000, 300, flows, 250_000_000_000, 50_000_000_000);
        spec.udp.push(presets::cbr("udp", 0, 0, Rate::from_mbps(udp_mbps), Bytes::new(1000)));
        let TopologySpec::Dumbbell { forward, senders, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        forward.qdisc = qdisc;
        senders[0].up.rate = Rate::from_mbps(100);
        let r = run(spec).expect("run");
        r.udp.f64s("throughput_bps")[0] / (bottleneck(&r, "utilization") * 1e6)
    };
    let choke = || QdiscConfig::Choke(ChokeConfig { min_th: 100.0, max_th: 200.0, limit_pkts: 300, ..Default::default() });
    let red = || QdiscConfig::Red(RedConfig { min_th: 100.0, max_th: 200.0, gentle: false, limit_pkts: 300, ..Default::default() });
    let mut last = f64::INFINITY;
    for mbps in [1, 2, 5, 10] {
        let (c, r, d) = (share(choke(), mbps), share(red(), mbps), share(presets::droptail(300), mbps));
        eprintln!("UDP at {mbps} Mb/s: share with CHOKe {c:.3}, RED {r:.3}, DropTail {d:.3}");
        assert!(c < 0.3 && c < r / 2.5 && c < d / 2.5, "{mbps} Mb/s: CHOKe {c}, RED {r}, DropTail {d}");
        assert!(r > 0.65 && d > 0.8, "{mbps} Mb/s: RED {r}, DropTail {d}");
        if mbps >= 2 {
            assert!(c < last, "{mbps} Mb/s: CHOKe gives {c}, more than {last} at a lower rate");
        }
        last = c;
    }
    assert!(last < 0.05, "UDP at 10 Mb/s keeps {last} through CHOKe");
}
