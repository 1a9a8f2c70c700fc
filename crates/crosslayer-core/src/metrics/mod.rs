//! Measurement: histograms, time-weighted integrals, per-flow and per-queue statistics.

pub mod histogram;
pub mod timeavg;

pub use histogram::LogHistogram;
pub use timeavg::TimeAverage;
