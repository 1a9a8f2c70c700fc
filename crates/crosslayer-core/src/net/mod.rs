//! Network: packets, links, and the topology builder that wires nodes with static routes.

pub mod link;
pub mod packet;
pub mod topology;

pub use link::{Link, TxStart};
pub use packet::{Packet, PacketArena, PacketId};
pub use topology::Topology;
