//! Congestion controls in small dumbbells (`presets::single_bottleneck`: one sender, one
//! receiver, the whole propagation delay on the bottleneck, access links ten times faster).
//! Each property is in the test's name; the numbers are printed (`--nocapture`).

use crosslayer_core::cc::CcConfig;
use crosslayer_core::presets;
use crosslayer_core::tcp::TcpConfig;
use crosslayer_core::{run, RunResult};

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// `flows` on a `mbps` bottleneck with `rtt_ms` round trip and `buffer` packets, `secs` long,
/// measured after `warmup` seconds.
fn dumbbell(mbps: u64, rtt_ms: u64, buffer: u32, flows: Vec<CcConfig>, secs: u64, warmup: u64) -> RunResult {
    let flows = flows.into_iter().map(|cc| (cc, TcpConfig::default())).collect();
    run(presets::single_bottleneck(mbps * 1_000_000, rtt_ms * MS, buffer, flows, secs * S, warmup * S)).expect("run")
}

fn bottleneck(r: &RunResult, col: &str) -> f64 {
    let i = r.queues.strs("role").iter().position(|s| s == "forward").unwrap();
    r.queues.f64s(col)[i]
}

/// Vegas alone keeps between alpha (2) and beta (4) of its packets queued at the bottleneck,
/// at full utilization, where Reno fills the buffer; with the paper's alpha 1, beta 3 it holds
/// fewer. (100 Mb/s, 40 ms, a 2-BDP buffer of 667 packets.) Linux's Vegas leaves slow start
/// late: it doubles cwnd every round and compares rates once per round, when the round's
/// least RTT still comes from packets sent into an empty queue; it overflows the buffer at
/// about 4 BDP, halves, and then takes off one packet per round trip, about 20 s here. The
/// measurement starts at 30 s. Both settings end at diff = 3 (in range for both): 1.88 packets
/// queued plus the one in transmission, nothing dropped.
#[test]
fn vegas_alone_keeps_alpha_to_beta_packets_queued() {
    use crosslayer_core::cc::vegas::VegasConfig;
    for (label, cfg, lo, hi) in [("Linux 2/4", VegasConfig::default(), 2.0, 4.0), ("paper 1/3", VegasConfig { alpha: 1, beta: 3, ..Default::default() }, 1.0, 3.0)] {
        let r = dumbbell(100, 40, 667, vec![CcConfig::Vegas(cfg)], 60, 30);
        let (q, util) = (bottleneck(&r, "qlen_mean_pkts"), bottleneck(&r, "utilization"));
        eprintln!("Vegas {label}: mean queue {q:.2} pkts (sd {:.2}), utilization {util:.4}, drops {}", bottleneck(&r, "qlen_sd_pkts"), r.queues.u64s("drops")[0]);
        // qlen_mean_pkts leaves out the packet being sent; Vegas's diff counts it
        assert!(q + 1.0 >= lo && q + 1.0 <= hi, "{label}: queue {q} + 1 in service");
        assert!(util > 0.98, "{label}: utilization {util}");
    }
    let reno = dumbbell(100, 40, 667, vec![presets::reno()], 60, 30);
    eprintln!("Reno: mean queue {:.1} pkts", bottleneck(&reno, "qlen_mean_pkts"));
    assert!(bottleneck(&reno, "qlen_mean_pkts") > 100.0);
}

/// A high bandwidth-delay path (1 Gb/s, 100 ms: 8,333 packets) with rare random loss (1 in
/// 10^6 packets, as a long path's bit errors): Reno's window stays near 1.22 / sqrt(p) = 1,220
/// packets (the Mathis et al. bound), a small part of the path; Compound's delay window fills
/// it, since the queue stays short. `seconds` long, measured after 10 s.
fn long_fat(cc: CcConfig, seconds: u64, loss: f64, buffer: u32) -> RunResult {
    use crosslayer_core::spec::TopologySpec;
    let mut spec = presets::single_bottleneck(1_000_000_000, 100 * MS, buffer, vec![(cc, TcpConfig::default())], seconds * S, 10 * S);
    let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    forward.loss = loss;
    run(spec).expect("run")
}

/// Over 10-40 s: Reno 0.046 of the link (after an early loss it adds one packet per 100 ms
/// round trip), Compound 0.716: its delay window takes the window from 143 to the BDP in about
/// 20 s and comes back within 5 s after each random loss, keeping under 260 packets queued.
#[test]
fn compound_fills_a_long_fat_path_where_reno_does_not() {
    use crosslayer_core::cc::compound::CompoundConfig;
    let reno = long_fat(presets::reno(), 40, 1e-6, 8333);
    let ctcp = long_fat(CcConfig::Compound(CompoundConfig::default()), 40, 1e-6, 8333);
    let (ur, uc) = (bottleneck(&reno, "utilization"), bottleneck(&ctcp, "utilization"));
    eprintln!(
        "1 Gb/s, 100 ms, loss 1e-6: utilization Reno {ur:.3}, Compound {uc:.3}; mean queue Reno {:.0}, Compound {:.0} pkts; wall {:.1} + {:.1} s",
        bottleneck(&reno, "qlen_mean_pkts"),
        bottleneck(&ctcp, "qlen_mean_pkts"),
        reno.summary.wall_s,
        ctcp.summary.wall_s
    );
    assert!(uc > 0.6 && uc > 10.0 * ur, "Compound {uc}, Reno {ur}");
}

/// Mean of a flow's sampled cwnd-trace column after `from` seconds.
fn trace_mean(r: &RunResult, flow: &str, col: &str, from: f64) -> f64 {
    let (t, f, v) = (r.cwnd.f64s("t_s"), r.cwnd.labels("flow"), r.cwnd.f64s(col));
    let xs: Vec<f64> = (0..t.len()).filter(|&i| t[i] >= from && f[i] == flow).map(|i| v[i]).collect();
    xs.iter().sum::<f64>() / xs.len() as f64
}

/// Compound's delay window backs off when a queue builds. 100 Mb/s, 40 ms, a 2-BDP buffer
/// (667 packets); the Compound sender's own link loses 1 packet in 10^4, which holds its loss
/// window under the 333-packet BDP. Alone, its delay window makes up most of the rest (mean
/// dwnd 230, lwnd 62 packets; 13.9 packets queued, below gamma = 30; utilization 0.83, each
/// random loss halving the whole window). Next to a Reno flow from another host, whose window
/// fills the buffer (501 packets queued), the backlog estimate stays above gamma and the delay
/// window is 0.32 packets on average: Compound competes with its loss window only (12.3
/// against Reno's 84.3 Mb/s, its own link still losing 1 in 10^4). (60 s, the last 30.)
#[test]
fn compound_backs_its_delay_window_off_when_a_queue_builds() {
    use crosslayer_core::cc::compound::CompoundConfig;
    use crosslayer_core::spec::TopologySpec;
    use crosslayer_core::units::Dur;
    let go = |with_reno: bool| {
        let mut flows = vec![(CcConfig::Compound(CompoundConfig::default()), TcpConfig::default())];
        if with_reno {
            flows.push((presets::reno(), TcpConfig::default()));
        }
        let mut spec = presets::single_bottleneck(100_000_000, 40 * MS, 667, flows, 60 * S, 30 * S);
        spec.sample_interval = Dur::from_ms(100);
        spec.cwnd_trace = true;
        let TopologySpec::Dumbbell { senders, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        let mut lossy = senders[0].clone();
        lossy.name = "lossy".into();
        lossy.up.loss = 1e-4;
        senders.push(lossy);
        spec.flows[0].src = (1u32).into();
        run(spec).expect("run")
    };
    let alone = go(false);
    let (dw, lw, q) = (trace_mean(&alone, "f0", "compound_dwnd_pkts", 30.0), trace_mean(&alone, "f0", "compound_lwnd_pkts", 30.0), bottleneck(&alone, "qlen_mean_pkts"));
    eprintln!("Compound alone: mean dwnd {dw:.1} pkts, lwnd {lw:.1}, queue {q:.1} pkts, utilization {:.4}", bottleneck(&alone, "utilization"));
    let mixed = go(true);
    let dw2 = trace_mean(&mixed, "f0", "compound_dwnd_pkts", 30.0);
    let g = mixed.flows.f64s("goodput_bps");
    eprintln!(
        "Compound + Reno: mean dwnd {dw2:.2} pkts, lwnd {:.1}, queue {:.1} pkts, goodput Compound {:.1} Mb/s, Reno {:.1} Mb/s",
        trace_mean(&mixed, "f0", "compound_lwnd_pkts", 30.0),
        bottleneck(&mixed, "qlen_mean_pkts"),
        g[0] / 1e6,
        g[1] / 1e6
    );
    assert!(dw > lw && q < 60.0, "alone: dwnd {dw}, lwnd {lw}, queue {q}");
    assert!(dw2 < 0.05 * dw, "with Reno: dwnd {dw2} (alone {dw})");
}

/// HighSpeed TCP, Scalable TCP and H-TCP on the long fat path (1 Gb/s, 100 ms, BDP buffer,
/// random loss 1 in 10^6, 40 s measured after 10 s) use several times more of it than Reno
/// (0.046): HighSpeed 0.221, Scalable 0.443, H-TCP 0.742, each growing faster than one segment
/// per round trip once its window is large (HighSpeed's a(w) is small until the window is).
#[test]
fn high_speed_variants_fill_a_long_fat_path_where_reno_does_not() {
    let reno = bottleneck(&long_fat(presets::reno(), 40, 1e-6, 8333), "utilization");
    for cc in [CcConfig::HighSpeed(Default::default()), CcConfig::Scalable(Default::default()), CcConfig::Htcp(Default::default())] {
        let name = cc.name();
        let r = long_fat(cc, 40, 1e-6, 8333);
        let u = bottleneck(&r, "utilization");
        eprintln!("{name}: utilization {u:.3} (Reno {reno:.3}), mean queue {:.0} pkts, retransmits {}", bottleneck(&r, "qlen_mean_pkts"), r.flows.u64s("retransmits")[0]);
        assert!(u > 3.0 * reno, "{name}: {u}");
    }
}

/// H-TCP's adaptive backoff: with a buffer of half the BDP (100 Mb/s, 40 ms, 167 packets) the
/// RTT runs from 40 ms (empty) to about 60 ms (full), so beta = min_rtt / max_rtt is about 2/3
/// at each loss after the first, where Reno halves: mean beta 0.664 with min/max RTT 40.0/59.2
/// ms; utilization 1.000 against Reno's 0.966.
#[test]
fn htcp_backs_off_by_min_rtt_over_max_rtt() {
    use crosslayer_core::units::Dur;
    let go = |cc: CcConfig| {
        let mut spec = presets::single_bottleneck(100_000_000, 40 * MS, 167, vec![(cc, TcpConfig::default())], 60 * S, 20 * S);
        spec.sample_interval = Dur::from_ms(100);
        spec.cwnd_trace = true;
        run(spec).expect("run")
    };
    let r = go(CcConfig::Htcp(Default::default()));
    let reno = go(presets::reno());
    let beta = trace_mean(&r, "f0", "htcp_beta", 20.0);
    let (min, max) = (trace_mean(&r, "f0", "htcp_min_rtt_s", 20.0), trace_mean(&r, "f0", "htcp_max_rtt_s", 20.0));
    let (u, ur) = (bottleneck(&r, "utilization"), bottleneck(&reno, "utilization"));
    eprintln!("H-TCP: mean beta {beta:.3}, min RTT {:.1} ms, max RTT {:.1} ms, utilization {u:.4} (Reno {ur:.4})", min * 1e3, max * 1e3);
    assert!((beta - min / max).abs() < 0.03 && beta > 0.6 && beta < 0.72, "beta {beta}, min/max {}", min / max);
    assert!(u > ur, "H-TCP {u}, Reno {ur}");
}

/// `cc = "tahoe"` is Reno's window rule with Tahoe's recovery: the same run as Reno with
/// `[tcp] recovery = "tahoe"`, bit for bit, and not the same as Reno's own recovery (10 Mb/s,
/// 40 ms, a 20-packet buffer, 20 s); a recovery the flow sets wins over the implied one.
#[test]
fn tahoe_is_reno_with_tahoe_recovery() {
    use crosslayer_core::tcp::Recovery;
    let go = |cc: CcConfig, recovery: Option<Recovery>| {
        let tcp = TcpConfig { recovery, ..TcpConfig::default() };
        let r = run(presets::single_bottleneck(10_000_000, 40 * MS, 20, vec![(cc.clone(), tcp.clone()), (cc, tcp)], 20 * S, 5 * S)).expect("run");
        (r.flows.f64s("goodput_bps").to_vec(), r.flows.u64s("retransmits").to_vec())
    };
    let tahoe = go(CcConfig::Tahoe(Default::default()), None);
    let reno_as_tahoe = go(presets::reno(), Some(Recovery::Tahoe));
    let reno = go(presets::reno(), None);
    let tahoe_prr = go(CcConfig::Tahoe(Default::default()), Some(Recovery::Prr));
    eprintln!("goodput (Mb/s), retransmits: tahoe {:?} {:?}; reno {:?} {:?}", tahoe.0.iter().map(|g| g / 1e6).collect::<Vec<_>>(), tahoe.1, reno.0.iter().map(|g| g / 1e6).collect::<Vec<_>>(), reno.1);
    assert_eq!(tahoe, reno_as_tahoe);
    assert_ne!(tahoe, reno);
    assert_eq!(tahoe_prr, reno);
}

/// DCTCP with a step-marking queue (RED with w_q = 1 and min_th K, max_th K + 1, marking: the
/// DCTCP paper's configuration) holds the queue near K at full utilization and the two flows
/// share evenly; Reno with classic ECN on the same queue halves at each mark and leaves the
/// link idle part of the time. (100 Mb/s, 4 ms: a 33-packet BDP; K = 20; 2 flows; 10 s after 2.)
/// DCTCP: queue 18.9 packets (SD 2.2), utilization 1.000, 47.2 and 49.3 Mb/s, nothing dropped;
/// Reno + ECN: 8.8 packets (SD 7.3), utilization 0.950.
#[test]
fn dctcp_holds_a_step_marking_queue_near_its_threshold() {
    use crosslayer_core::aqm::red::RedConfig;
    use crosslayer_core::aqm::QdiscConfig;
    use crosslayer_core::spec::TopologySpec;
    let k = 20.0;
    let go = |cc: CcConfig, ecn: bool| {
        let tcp = TcpConfig { ecn, ..TcpConfig::default() };
        let mut spec = presets::single_bottleneck(100_000_000, 4 * MS, 200, vec![(cc.clone(), tcp.clone()), (cc, tcp)], 12 * S, 2 * S);
        let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        forward.qdisc = QdiscConfig::Red(RedConfig { min_th: k, max_th: k + 1.0, w_q: 1.0, max_p: 1.0, gentle: false, ecn: true, limit_pkts: 200, ..Default::default() });
        run(spec).expect("run")
    };
    let d = go(CcConfig::Dctcp(Default::default()), false);
    let reno = go(presets::reno(), true);
    let show = |name: &str, r: &RunResult| {
        let g = r.flows.f64s("goodput_bps");
        eprintln!(
            "{name}: queue {:.1} pkts (sd {:.1}), utilization {:.4}, drops {}, goodput {:.1} / {:.1} Mb/s",
            bottleneck(r, "qlen_mean_pkts"),
            bottleneck(r, "qlen_sd_pkts"),
            bottleneck(r, "utilization"),
            r.queues.u64s("drops")[0],
            g[0] / 1e6,
            g[1] / 1e6
        );
    };
    show("DCTCP", &d);
    show("Reno + ECN", &reno);
    let (q, util) = (bottleneck(&d, "qlen_mean_pkts"), bottleneck(&d, "utilization"));
    let g = d.flows.f64s("goodput_bps");
    assert!((q - k).abs() < 5.0 && bottleneck(&d, "qlen_sd_pkts") < 5.0, "DCTCP queue {q}");
    assert!(util > 0.99, "DCTCP utilization {util}");
    assert!((g[0] / g[1] - 1.0).abs() < 0.1, "DCTCP shares {g:?}");
    assert!(bottleneck(&reno, "utilization") < util, "Reno + ECN {}", bottleneck(&reno, "utilization"));
}

/// BBR alone on 100 Mb/s, 40 ms with a 2-BDP buffer (667 packets) keeps the queue a small part
/// of one BDP (333 packets) at high utilization, where CUBIC fills the buffer; its trace shows
/// the gain cycle (5/4 and 3/4 phases between cruising at 1) and PROBE_RTT every 10 s.
/// (30 s measured after 5 s.) BBR: 22.1 packets queued, utilization 0.976 (it paces the
/// payload at 99 % of its estimate, as Linux), no loss, PROBE_RTT at 10.1, 20.4 and 30.6 s;
/// CUBIC: 524.5 packets, 1.000. (Before the pacing clock charged only the payload and the
/// phase tests used Linux's cwnd target: 10.4 packets, 0.953.)
#[test]
fn bbr_alone_keeps_the_queue_well_under_a_bdp() {
    use crosslayer_core::units::Dur;
    let go = |cc: CcConfig| {
        let mut spec = presets::single_bottleneck(100_000_000, 40 * MS, 667, vec![(cc, TcpConfig::default())], 35 * S, 5 * S);
        spec.sample_interval = Dur::from_ms(10);
        spec.cwnd_trace = true;
        run(spec).expect("run")
    };
    let r = go(CcConfig::Bbr(Default::default()));
    let cubic = go(presets::cubic());
    let (q, u) = (bottleneck(&r, "qlen_mean_pkts"), bottleneck(&r, "utilization"));
    let gains: Vec<f64> = r.cwnd.f64s("bbr_pacing_gain").to_vec();
    let modes = r.cwnd.f64s("bbr_mode");
    let t = r.cwnd.f64s("t_s");
    let probe_rtt_at: Vec<f64> = (1..t.len()).filter(|&i| modes[i] == 3.0 && modes[i - 1] != 3.0).map(|i| t[i]).collect();
    eprintln!(
        "BBR: queue {q:.1} pkts (CUBIC {:.1}), utilization {u:.4} (CUBIC {:.4}), retransmits {}, PROBE_RTT at {probe_rtt_at:?} s",
        bottleneck(&cubic, "qlen_mean_pkts"),
        bottleneck(&cubic, "utilization"),
        r.flows.u64s("retransmits")[0]
    );
    assert!(q < 0.1 * 333.0 && u > 0.93, "queue {q}, utilization {u}");
    assert!(bottleneck(&cubic, "qlen_mean_pkts") > 100.0);
    for g in [1.25, 0.75, 1.0] {
        assert!(gains.contains(&g), "gain {g} never used");
    }
    assert!(probe_rtt_at.len() >= 2 && probe_rtt_at.windows(2).all(|p| (p[1] - p[0] - 10.0).abs() < 1.0), "PROBE_RTT at {probe_rtt_at:?}");
}

/// CUBIC on the long fat path (1 Gb/s, 100 ms, BDP buffer, random loss 1 in 10^6, 40 s
/// measured after 10 s): its cubic growth, independent of the RTT, regains the window after
/// each random loss in seconds where Reno adds one segment per 100 ms round trip; and sharing
/// the path with a Reno flow it takes most of it (RFC 9438's scalability goal; the
/// Reno-friendly region only binds at small BDPs). Alone: CUBIC 0.447, Reno 0.046; together
/// 922 and 20 Mb/s.
#[test]
fn cubic_beats_reno_on_a_long_fat_path() {
    let reno = bottleneck(&long_fat(presets::reno(), 40, 1e-6, 8333), "utilization");
    let cubic = bottleneck(&long_fat(presets::cubic(), 40, 1e-6, 8333), "utilization");
    use crosslayer_core::spec::TopologySpec;
    let mut spec = presets::single_bottleneck(1_000_000_000, 100 * MS, 8333, vec![(presets::cubic(), TcpConfig::default()), (presets::reno(), TcpConfig::default())], 40 * S, 10 * S);
    let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
    forward.loss = 1e-6;
    let both = run(spec).expect("run");
    let g = both.flows.f64s("goodput_bps");
    eprintln!("1 Gb/s, 100 ms, loss 1e-6: utilization alone CUBIC {cubic:.3}, Reno {reno:.3}; together {:.0} / {:.0} Mb/s", g[0] / 1e6, g[1] / 1e6);
    assert!(cubic > 3.0 * reno, "CUBIC {cubic}, Reno {reno}");
    assert!(g[0] > 2.0 * g[1], "together: CUBIC {} Reno {}", g[0], g[1]);
}

/// BBR (v1 and v3) at a short RTT: PROBE_RTT's 200 ms is 10 round trips at 20 ms, the whole
/// window of v1's bandwidth filter, so its low delivery rates replaced the estimate and the
/// flow restarted from 2 Mb/s after every PROBE_RTT (found with seed 004's setting). Two
/// Linux behaviours were missing, and v1 needs both: the connection is marked app-limited in
/// PROBE_RTT so those samples are ignored (`take_app_limited`), and the max filter changes
/// only when a sample is taken (Linux `minmax`; ours aged a sample-less window to zero, so
/// any app-limited sample then passed the `bw >= max_bw` test). 1 Gb/s, 20 ms, a 2.5 MB
/// buffer, 60 s measured after 5 s. Utilization: v1 0.752 before, 0.752 with either fix
/// alone, 0.955 with both; v3 0.951 before and after (printed with --nocapture). With the
/// payload-charged pacing clock: v1 0.978, v3 0.970.
#[test]
fn bbr_keeps_its_bandwidth_estimate_through_probe_rtt_at_a_short_rtt() {
    for (name, cc) in [("BBR v1", CcConfig::Bbr(Default::default())), ("BBRv3", CcConfig::Bbr3(Default::default()))] {
        let r = dumbbell(1000, 20, 1667, vec![cc], 65, 5);
        let u = bottleneck(&r, "utilization");
        eprintln!("{name} alone at 1 Gb/s, 20 ms: utilization {u:.3}");
        assert!(u > 0.93, "{name}: utilization {u}");
    }
}

/// BBR v1's long-term sampling (Linux `bbr_lt_bw_sampling`, meant for token-bucket policers)
/// also takes heavy random loss for a policer: a flow alone on 100 Mb/s, 40 ms, with 18 % of
/// packets lost on the wire (0.22 lost per packet delivered, above Linux's 50/256) spends most
/// of the run at its long-term rate, gain 1 (0.79 of the samples; goodput 13.1 Mb/s against
/// 32.7 without the sampling); with 1 % lost it never does (92.9 Mb/s); turned off
/// (`lt_sampling = false`, as ns-3's TcpBbr) it never does either.
#[test]
fn bbr_takes_heavy_random_loss_for_a_policer() {
    use crosslayer_core::cc::bbr::BbrConfig;
    use crosslayer_core::spec::TopologySpec;
    use crosslayer_core::units::Dur;
    let go = |loss: f64, lt: Option<bool>| {
        let cc = CcConfig::Bbr(BbrConfig { lt_sampling: lt, ..Default::default() });
        let mut spec = presets::single_bottleneck(100_000_000, 40 * MS, 333, vec![(cc, TcpConfig::default())], 30 * S, 5 * S);
        let TopologySpec::Dumbbell { forward, .. } = &mut spec.topology else { unreachable!("a dumbbell") };
        forward.loss = loss;
        spec.sample_interval = Dur::from_ms(10);
        spec.cwnd_trace = true;
        let r = run(spec).expect("run");
        let lt = r.cwnd.f64s("bbr_lt_use_bw");
        (lt.iter().sum::<f64>() / lt.len() as f64, r.flows.f64s("goodput_bps")[0] / 1e6)
    };
    let (heavy, g_heavy) = go(0.18, None);
    let (off, g_off) = go(0.18, Some(false));
    let (light, g_light) = go(0.01, None);
    eprintln!("BBR v1, 18 % loss: at the long-term rate {heavy:.3} of the time, goodput {g_heavy:.1} Mb/s (sampling off: {off:.3}, {g_off:.1}); 1 % loss: {light:.3}, {g_light:.1}");
    assert!(heavy > 0.5, "share at the long-term rate {heavy}");
    assert!(g_heavy < g_off, "goodput {g_heavy} vs {g_off} without the sampling");
    assert_eq!((off, light), (0.0, 0.0));
}
