//! Traffic sources other than TCP: each is an endpoint pair the engine drives like a TCP flow
//! (a timer per source, packets through `TxCtx`), with its own per-flow accounting.

pub mod cbr;
pub mod onoff;
pub mod workload;
