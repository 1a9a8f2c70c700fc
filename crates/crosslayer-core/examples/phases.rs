//! Where a run's time goes outside and inside the event loop, for a spec given as a JSON file
//! (e.g. one `crosslayer` wrote with `Scenario.to_engine_spec()`):
//!
//!     cargo run --release --example phases -- spec.json
//!
//! prints the seconds of each phase (parse, validate and build, trace setup, event loop,
//! invariants, result tables) and the peak memory after each. With `--loop-only` it stops after
//! the event loop, so that a heap profiler's peak (`valgrind --tool=dhat`) is the loop's.

#[path = "common/peak.rs"]
mod peak;
use peak::peak_rss_mib;

use crosslayer_core::spec::ScenarioSpec;
use std::time::Instant;

fn main() {
    let path = std::env::args().nth(1).expect("a spec JSON file");
    let loop_only = std::env::args().nth(2).as_deref() == Some("--loop-only");
    let text = std::fs::read_to_string(&path).expect("readable");
    let mut t = Instant::now();
    let mut lap = |what: &str| {
        println!("{what:<24} {:>8.3} s   peak {:>7.0} MiB", t.elapsed().as_secs_f64(), peak_rss_mib());
        t = Instant::now();
    };
    let spec = ScenarioSpec::parse(&text).unwrap_or_else(|e| panic!("{e}"));
    let flows = spec.flows.len();
    lap("parse");
    let mut sim = crosslayer_core::Sim::new(spec).unwrap_or_else(|e| panic!("{e}"));
    lap("validate and build");
    let mut traces = crosslayer_core::report::trace::Traces::new(&sim).unwrap_or_else(|e| panic!("{e}"));
    lap("trace setup");
    let wall = sim.run_to_end(&mut traces, &mut |_| false).unwrap_or_else(|e| panic!("{e}"));
    lap("event loop");
    if loop_only {
        return;
    }
    sim.check_invariants().unwrap_or_else(|e| panic!("{e}"));
    lap("invariants");
    let r = crosslayer_core::report::results(&mut sim, Some(traces), wall);
    lap("result tables");
    println!("{flows} flows, {} events, {} delivered segments", r.summary.events, r.summary.delivered_segments);
}
