//! crosslayer-core: a fast, deterministic packet-level simulator of TCP congestion control and
//! router queue management. Pure Rust; the Python bindings live in `crosslayer-py`.
//!
//! Start at [`sim::run`] with a [`spec::ScenarioSpec`]; see `docs/design.md` for the architecture.

pub mod aqm;
pub mod cc;
pub mod metrics;
pub mod net;
pub mod packet;
pub mod params;
pub mod presets;
pub mod registry;
pub mod report;
pub mod result;
pub mod rng;
pub mod sched;
pub mod sim;
pub mod spec;
pub mod tcp;
pub mod traffic;
pub mod units;

/// FNV-1a over this crate's sources (see `build.rs`): which engine computed a result. Result
/// stores key runs by it, so a changed engine never reuses a stored run.
pub const ENGINE_FINGERPRINT: &str = env!("CROSSLAYER_ENGINE_FINGERPRINT");

pub use result::RunResult;
pub use sim::{run, Sim};
pub use spec::ScenarioSpec;

#[cfg(test)]
mod tests {
    #[test]
    fn the_engine_fingerprint_is_sixteen_hex_digits() {
        assert_eq!(super::ENGINE_FINGERPRINT.len(), 16);
        assert!(super::ENGINE_FINGERPRINT.bytes().all(|b| b.is_ascii_hexdigit()));
    }
}
