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

pub use result::RunResult;
pub use sim::{run, Sim};
pub use spec::ScenarioSpec;
