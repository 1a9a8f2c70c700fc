//! The queue-discipline laws: what several disciplines share, below them all, as Linux keeps
//! `include/net/red.h`, `pie.h` and `codel_impl.h` under the qdiscs that use them. A registered
//! discipline (one file of `aqm/`) imports only the family's contract (`aqm/mod.rs`), the
//! registry and this floor - never a sibling discipline.
//!
//! * [`fifo`]: the FIFO with its byte count (every single-queue discipline);
//! * [`red`]: RED's average, count and decision, its FIFO and its parameter group (RED, Adaptive
//!   RED, CHOKe, APD, WRED);
//! * [`pie`]: PIE's parameters and controller (PIE, FQ-PIE);
//! * [`codel`]: CoDel's control law (CoDel, FQ-CoDel, sfqCoDel, the fairness-oriented CoDel,
//!   COBALT's law);
//! * [`flow_queues`]: hashing into flow queues and their deficit round robin with new and old
//!   lists (FQ-CoDel, FQ-PIE);
//! * [`heavy_hitter`]: estimating the heaviest connection (the fairness-oriented CoDel, APD).

pub mod codel;
pub mod fifo;
pub mod flow_queues;
pub mod heavy_hitter;
pub mod pie;
pub mod red;
