//! crosslayer-core: a fast, deterministic packet-level simulator of TCP congestion control and
//! router queue management. Pure Rust; the Python bindings live in `crosslayer-py`.
//!
//! Start at [`run`] with a [`spec::ScenarioSpec`]; see `docs/design.md` for the architecture.

pub mod aqm;
pub mod catalog;
pub mod cc;
pub mod error;
pub mod flow;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod params;
pub mod presets;
pub mod registry;
pub mod report;
pub mod result;
pub mod ring;
pub mod rng;
pub mod sched;
pub mod sim;
pub mod spec;
pub mod stack;
pub mod tcp;
pub mod topo;
pub mod traffic;
pub mod units;

/// FNV-1a over this crate's sources (see `build.rs`): which engine computed a result. Result
/// stores key runs by it, so a changed engine never reuses a stored run.
pub const ENGINE_FINGERPRINT: &str = env!("CROSSLAYER_ENGINE_FINGERPRINT");

pub use error::Error;
pub use result::RunResult;
pub use sim::Sim;
pub use spec::ScenarioSpec;

/// Run a spec to completion: build the simulation, run the event loop, check the invariants
/// (queue identities, per-flow conservation, the flows' counts at the router links against the
/// queues'), and assemble the result tables.
pub fn run(spec: ScenarioSpec) -> Result<RunResult, Error> {
    run_checked(spec, &mut |_| false)
}

/// [`run`], asking `stop(now)` every [`sim::CHECK_EVERY`] events whether to give up (then the
/// error is [`Error::Interrupted`]). A limit the hot path meets (packets alive at once, memory
/// for them) unwinds with its [`Error`] (see [`Error::raise`]); the caller that catches the
/// unwind gets it back with [`Error::from_panic`].
pub fn run_checked(spec: ScenarioSpec, stop: &mut dyn FnMut(units::Time) -> bool) -> Result<RunResult, Error> {
    let mut sim = Sim::new(spec)?;
    if let Some(pcap) = &sim.spec().pcap {
        let names = pcap.files(&sim.spec().topology.graph()).into_iter().map(|(name, _)| name).collect();
        let mss = sim.spec().flows.iter().map(|f| report::pcap::TcpOptions { mss: f.tcp.mss.get() as u16, sack: f.tcp.sack, timestamps: f.tcp.timestamps() }).collect();
        sim.set_tap(Box::new(report::pcap::Capture::new(names, pcap.snaplen, pcap.max_bytes, mss)));
    }
    let mut traces = report::trace::Traces::new(&sim)?;
    let wall_s = sim.run_to_end(&mut traces, stop)?;
    sim.check_invariants()?;
    Ok(report::results(&mut sim, Some(traces), wall_s))
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_engine_fingerprint_is_sixteen_hex_digits() {
        assert_eq!(super::ENGINE_FINGERPRINT.len(), 16);
        assert!(super::ENGINE_FINGERPRINT.bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
