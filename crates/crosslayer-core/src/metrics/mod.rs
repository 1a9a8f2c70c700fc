//! Measurement: counters and windows, histograms, time-weighted integrals, trace recorders.

pub mod counters;
pub mod histogram;
pub mod timeavg;
pub mod trace;

pub use counters::Counters;
pub use histogram::LogHistogram;
pub use timeavg::TimeAverage;
