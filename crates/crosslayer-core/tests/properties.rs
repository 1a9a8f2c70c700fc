//! Properties over random scenarios: every run ends with the queue identities and per-flow
//! conservation intact (`Sim::run` checks them and fails otherwise), time never goes backwards,
//! and determinism: same seed -> identical results, a new flow does not perturb the others'
//! random start times.

use crosslayer_core::aqm::{DropTailConfig, QdiscConfig};
use crosslayer_core::cc::{CcConfig, CubicConfig};
use crosslayer_core::presets;
use crosslayer_core::result::{Column, RunResult};
use crosslayer_core::spec::{EdgeSpec, FlowSpec, HostSpec, ScenarioSpec, StartSpec, TopologySpec};
use crosslayer_core::tcp::TcpConfig;
use crosslayer_core::{run, Sim};
use proptest::prelude::*;

const MS: u64 = 1_000_000;

fn edge(rate_mbps: u64, delay_ms: u64, loss: f64, limit: (Option<u32>, Option<u64>)) -> EdgeSpec {
    EdgeSpec {
        rate_bps: rate_mbps * 1_000_000,
        delay_ns: delay_ms * MS,
        loss,
        qdisc: QdiscConfig::Droptail(DropTailConfig { limit_pkts: limit.0, limit_bytes: limit.1 }),
    }
}

prop_compose! {
    fn arb_edge()(rate in 1u64..200, delay in 0u64..40, lossy in 0u8..4, loss in 0.0f64..0.05,
                  pkts in 2u32..300, bytes in prop::option::of(3000u64..400_000)) -> EdgeSpec {
        edge(rate, delay, if lossy == 0 { loss } else { 0.0 }, (Some(pkts), bytes))
    }
}

prop_compose! {
    fn arb_flow(n_s: u32, n_r: u32)(src in 0..n_s, dst in 0..n_r, cubic in any::<bool>(), sack in any::<bool>(),
                  delack in any::<bool>(), iw in 1u32..20, start in 0u64..500, stop in prop::option::of(1000u64..3000)) -> FlowSpec {
        FlowSpec {
            name: String::new(),
            src,
            dst,
            cc: if cubic { CcConfig::Cubic(CubicConfig::default()) } else { CcConfig::Reno },
            tcp: TcpConfig { sack, delayed_ack: delack, initial_cwnd_pkts: iw, ..Default::default() },
            start: StartSpec::Uniform { from_ns: 0, to_ns: start * MS },
            stop_ns: stop.map(|s| s * MS),
        }
    }
}

fn arb_scenario() -> impl Strategy<Value = ScenarioSpec> {
    (1u32..4, 1u32..4, any::<u64>()).prop_flat_map(|(n_s, n_r, seed)| {
        (
            arb_edge(),
            arb_edge(),
            prop::collection::vec((arb_edge(), arb_edge()), n_s as usize),
            prop::collection::vec((arb_edge(), arb_edge()), n_r as usize),
            prop::collection::vec(arb_flow(n_s, n_r), 1..8),
        )
            .prop_map(move |(forward, reverse, s, r, mut flows)| {
                let hosts = |v: Vec<(EdgeSpec, EdgeSpec)>, p: &str| {
                    v.into_iter().enumerate().map(|(i, (up, down))| HostSpec { name: format!("{p}{i}"), up, down }).collect()
                };
                for (i, f) in flows.iter_mut().enumerate() {
                    f.name = format!("f{i}");
                }
                ScenarioSpec {
                    seed,
                    duration_ns: 4000 * MS,
                    warmup_ns: 1000 * MS,
                    sample_interval_ns: 50 * MS,
                    cwnd_trace: true,
                    topology: TopologySpec::Dumbbell { forward, reverse, senders: hosts(s, "s"), receivers: hosts(r, "r") },
                    flows,
                }
            })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 48, ..ProptestConfig::default() })]

    #[test]
    fn identities_and_conservation_hold(spec in arb_scenario()) {
        let mut sim = Sim::new(spec).unwrap();
        let mut last = sim.now();
        // step through the run checking invariants and monotonic time at several points
        for k in 1..=8u64 {
            sim.run_until(crosslayer_core::units::Time(k * 500 * MS));
            prop_assert!(sim.now() >= last);
            last = sim.now();
            if let Err(e) = sim.check_invariants() { return Err(TestCaseError::fail(e)); }
        }
        let r = sim.results(0.0);
        let q = &r.queues;
        for i in 0..q.rows() {
            let arr = q.u64s("arrivals")[i];
            let enq = q.u64s("enqueued")[i];
            let before = q.u64s("drops_overflow")[i] + q.u64s("drops_aqm")[i];
            prop_assert_eq!(arr, enq + before);
        }
        for &g in r.flows.f64s("goodput_bps") {
            prop_assert!(g.is_finite() && g >= 0.0);
        }
    }
}

fn strip_wall(mut r: RunResult) -> RunResult {
    r.summary.wall_s = 0.0;
    r
}

fn small_access(n: usize, seed: u64) -> ScenarioSpec {
    let mut s = presets::access_link(n, presets::cubic(), 8);
    s.seed = seed;
    s.warmup_ns = 2000 * MS;
    s.cwnd_trace = true;
    s
}

#[test]
fn same_seed_is_bit_identical_and_other_seeds_differ() {
    let a = strip_wall(run(small_access(9, 7)).unwrap());
    let b = strip_wall(run(small_access(9, 7)).unwrap());
    // Debug output round-trips every f64 exactly and prints NaN equal to NaN.
    let same = |x: &dyn std::fmt::Debug, y: &dyn std::fmt::Debug| format!("{x:?}") == format!("{y:?}");
    assert!(same(&a.flows, &b.flows));
    assert!(same(&a.queues, &b.queues));
    assert!(same(&a.series, &b.series));
    assert!(same(&a.cwnd, &b.cwnd));
    assert_eq!(a.summary, b.summary);
    let c = strip_wall(run(small_access(9, 8)).unwrap());
    assert_ne!(a.flows.f64s("start_s"), c.flows.f64s("start_s"));
    assert_ne!(a.flows.u64s("delivered_bytes"), c.flows.u64s("delivered_bytes"));
}

#[test]
fn adding_a_flow_keeps_the_others_start_times() {
    let nine = run(small_access(9, 3)).unwrap();
    let ten = run(small_access(10, 3)).unwrap();
    let s9 = nine.flows.f64s("start_s");
    let s10 = ten.flows.f64s("start_s");
    assert_eq!(s9, &s10[..9]);
    let Some(Column::Str(names)) = ten.flows.get("name") else { panic!() };
    assert_eq!(names.len(), 10);
}
