//! Network: links and the topology builder that wires nodes with static routes. Packets live
//! in `crate::packet` (below both this module and `aqm`).

pub mod impair;
pub mod link;
pub mod topology;
pub mod wlan;

pub use link::{Link, TxStart};
pub use topology::Topology;
