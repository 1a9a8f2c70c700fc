//! Speed benchmark: delivered segments per wall-second and wall seconds per simulated second on
//! seed 000's canonical scenarios (CUBIC, DropTail). Prints numbers; asserts nothing.
//!
//! `cargo bench -p crosslayer-core --bench throughput [-- --quick]`
//!
//! The ns-3 reference figures are ns-3 3.44's `Simulator::Run()` on the same scenarios, measured
//! side by side on this machine class by `validation/compare.py bench` (docs/PERFORMANCE.md,
//! part 21's re-measured table), the same as `crosslayer bench`'s (`python/crosslayer/bench.py`, which a
//! test holds equal to these). A ratio against a stored figure moves with the machine's speed on
//! the day: `validation/compare.py bench` gives the side-by-side one.

use crosslayer_core::presets;
use crosslayer_core::ScenarioSpec;

struct Case {
    name: &'static str,
    spec: ScenarioSpec,
    /// ns-3 wall seconds per simulated second on the same scenario, if known.
    ns3_wall_per_sim: Option<f64>,
}

fn main() {
    let quick = std::env::args().any(|a| a == "--quick");
    let secs = if quick { 20 } else { 100 };
    let cases = vec![
        Case { name: "access-link 9 cubic droptail", spec: presets::access_link(9, presets::cubic(), secs), ns3_wall_per_sim: Some(0.566) },
        Case { name: "access-link 90 cubic droptail", spec: presets::access_link(90, presets::cubic(), secs), ns3_wall_per_sim: None },
        Case { name: "data-center 9 cubic droptail", spec: presets::data_center(9, presets::cubic(), secs), ns3_wall_per_sim: Some(4.027) },
    ];
    println!(
        "{:<32} {:>7} {:>8} {:>12} {:>13} {:>13} {:>11} {:>10}",
        "scenario", "sim s", "wall s", "delivered", "segs/wall-s", "wall-s/sim-s", "events/s", "vs ns-3"
    );
    for c in cases {
        let r = crosslayer_core::run(c.spec).expect("run");
        let s = &r.summary;
        let wps = s.wall_s / s.sim_s;
        let ratio = c.ns3_wall_per_sim.map_or("-".to_string(), |n| format!("{:.0}x", n / wps));
        println!(
            "{:<32} {:>7.0} {:>8.3} {:>12} {:>13.0} {:>13.5} {:>11.0} {:>10}",
            c.name,
            s.sim_s,
            s.wall_s,
            s.delivered_segments,
            s.delivered_segments as f64 / s.wall_s,
            wps,
            s.events as f64 / s.wall_s,
            ratio
        );
    }
}
