//! Measurement primitives: counters and their windows, histograms, time-weighted integrals.
//! What records a run's time series from the sender and the queues sits above the loop, beside
//! the report (`report::trace`).

pub mod counters;
pub mod fct;
pub mod histogram;
pub mod timeavg;

pub use counters::Counters;
pub use histogram::LogHistogram;
pub use timeavg::TimeAverage;
