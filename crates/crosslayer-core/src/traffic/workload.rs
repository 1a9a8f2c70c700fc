//! Finite-flow workloads: TCP transfers that arrive as a Poisson process at a target load of a
//! link, each between a host pair drawn uniformly from the group's pairs, of a size drawn from a
//! distribution. A workload is expanded into finite flows (`spec::ArrivalSpec`) when the run is built, from its own random stream of the seed.
//!
//! Sources:
//! * Arrival rate from the load, as the data-center traffic generators compute it (pFabric;
//!   PIAS's TrafficGenerator; HPCC's `traffic_gen.py`): lambda = load x C / (8 E[S]), with C the
//!   link's rate and E[S] the mean payload of a flow. Headers and retransmissions come on top,
//!   so the link's measured utilization is a few percent above the load.
//! * Exponential inter-arrival times (a Poisson process); sizes independent of arrivals.
//! * Empirical CDFs (web search, Alizadeh et al., DCTCP, SIGCOMM 2010; data mining, Greenberg
//!   et al., VL2, SIGCOMM 2009) as the generators above ship them: (bytes, probability) points,
//!   linear interpolation between consecutive points, the result rounded up to whole bytes
//!   (empirical-traffic-gen's `INTER_INTEGRAL`). Their mean is the integral of that piecewise
//!   linear quantile function.
//! * Pareto with shape a > 1 and the given mean (scale x_m = mean (a - 1) / a); lognormal by its
//!   median e^mu and sigma; exponential by its mean. Samples are rounded up to whole bytes (at
//!   least 1) and capped at `MAX_FLOW_BYTES`.

use crate::params::Problem;
use crate::rng::Rng;
use crate::units::{Bytes, Time};
use serde::{Deserialize, Serialize};

/// Largest finite flow, payload bytes.
pub const MAX_FLOW_BYTES: u64 = 1_000_000_000_000;

/// A flow-size distribution (payload bytes).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum SizeDist {
    Fixed { size: Bytes },
    Exponential { mean: Bytes },
    /// Pareto with the given mean and shape (> 1; the smaller, the heavier the tail).
    Pareto { mean: Bytes, shape: f64 },
    /// Lognormal: the median e^mu and sigma of the size's logarithm.
    Lognormal { median: Bytes, sigma: f64 },
    /// An empirical CDF: (bytes, cumulative probability) points, bytes and probabilities
    /// non-decreasing, the last probability 1; linear between points.
    Cdf { points: Vec<[f64; 2]> },
}

impl SizeDist {
    /// The mean flow size, bytes (before rounding up to whole bytes).
    pub fn mean(&self) -> f64 {
        match self {
            SizeDist::Fixed { size } => size.get() as f64,
            SizeDist::Exponential { mean } | SizeDist::Pareto { mean, .. } => mean.get() as f64,
            SizeDist::Lognormal { median, sigma } => median.get() as f64 * (sigma * sigma / 2.0).exp(),
            SizeDist::Cdf { points } => {
                // an atom at the first point below its probability, then trapezoids
                let mut m = points[0][0] * points[0][1];
                for w in points.windows(2) {
                    m += (w[1][1] - w[0][1]) * (w[0][0] + w[1][0]) / 2.0;
                }
                m
            }
        }
    }

    /// One size, bytes: at least 1, at most `MAX_FLOW_BYTES`.
    pub fn sample(&self, rng: &mut Rng) -> u64 {
        let x = match self {
            SizeDist::Fixed { size } => return size.get().clamp(1, MAX_FLOW_BYTES),
            SizeDist::Exponential { mean } => -(mean.get() as f64) * (1.0 - rng.next_f64()).ln(),
            SizeDist::Pareto { mean, shape } => {
                let xm = mean.get() as f64 * (shape - 1.0) / shape;
                xm / (1.0 - rng.next_f64()).powf(1.0 / shape)
            }
            SizeDist::Lognormal { median, sigma } => median.get() as f64 * (sigma * rng.normal()).exp(),
            SizeDist::Cdf { points } => quantile(points, rng.next_f64()),
        };
        if x.is_finite() {
            (x.ceil() as u64).clamp(1, MAX_FLOW_BYTES)
        } else {
            MAX_FLOW_BYTES
        }
    }

    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        let bad = |field: &str, msg: String| Problem::new(format!("{path}.{field}"), msg);
        match self {
            SizeDist::Fixed { size: b } | SizeDist::Exponential { mean: b } | SizeDist::Pareto { mean: b, .. } | SizeDist::Lognormal { median: b, .. }
                if b.get() == 0 || b.get() > MAX_FLOW_BYTES =>
            {
                let field = match self {
                    SizeDist::Fixed { .. } => "size",
                    SizeDist::Lognormal { .. } => "median",
                    _ => "mean",
                };
                out.push(bad(field, format!("must be in [1B, {}GB]", MAX_FLOW_BYTES / 1_000_000_000)));
            }
            SizeDist::Pareto { shape, .. } if !(*shape > 1.0 && *shape <= 100.0) => {
                out.push(bad("shape", format!("must be in (1, 100]: at 1 or below the mean is infinite (got {shape})")));
            }
            SizeDist::Lognormal { sigma, .. } if !(*sigma >= 0.0 && *sigma <= 10.0) => {
                out.push(bad("sigma", format!("must be in [0, 10] (got {sigma})")));
            }
            SizeDist::Cdf { points } => cdf_problems(points, &format!("{path}.points"), out),
            _ => {}
        }
    }
}

fn cdf_problems(points: &[[f64; 2]], path: &str, out: &mut Vec<Problem>) {
    if points.len() < 2 {
        out.push(Problem::new(path, "a CDF needs at least two (bytes, probability) points"));
        return;
    }
    for (i, w) in points.windows(2).enumerate() {
        let ([x0, p0], [x1, p1]) = (w[0], w[1]);
        if x1 < x0 || p1 < p0 {
            out.push(Problem::new(format!("{path}[{}]", i + 1), format!("a CDF is non-decreasing: ({x1}, {p1}) follows ({x0}, {p0}); sort the points by size")));
            return;
        }
    }
    for (i, &[x, p]) in points.iter().enumerate() {
        let (size_ok, p_ok) = (x.is_finite() && (0.0..=MAX_FLOW_BYTES as f64).contains(&x), (0.0..=1.0).contains(&p));
        if !size_ok || !p_ok {
            out.push(Problem::new(format!("{path}[{i}]"), format!("({x}, {p}): sizes are in [0, {MAX_FLOW_BYTES}] bytes and probabilities in [0, 1]")));
            return;
        }
    }
    let last = points[points.len() - 1][1];
    if (last - 1.0).abs() > 1e-9 {
        out.push(Problem::new(format!("{path}[{}]", points.len() - 1), format!("a CDF reaches 1 at its last point (got {last}); add the largest size with probability 1")));
    }
    if points[points.len() - 1][0] < 1.0 {
        out.push(Problem::new(path.to_string(), "every size would be 0 bytes: a flow sends at least 1 B"));
    }
}

/// The inverse of a piecewise-linear CDF at `u` in [0, 1).
fn quantile(points: &[[f64; 2]], u: f64) -> f64 {
    let i = points.partition_point(|p| p[1] < u);
    if i == 0 {
        return points[0][0];
    }
    if i >= points.len() {
        return points[points.len() - 1][0];
    }
    let ([x0, p0], [x1, p1]) = (points[i - 1], points[i]);
    if p1 <= p0 {
        x1
    } else {
        x0 + (x1 - x0) * (u - p0) / (p1 - p0)
    }
}

/// A Poisson process of `rate_per_s` arrivals per second from `start` until `stop`.
#[derive(Clone, Copy, Debug)]
pub struct Poisson {
    t: f64,
    rate_per_s: f64,
    stop: Time,
}

impl Poisson {
    pub fn new(rate_per_s: f64, start: Time, stop: Time) -> Poisson {
        Poisson { t: start.ns() as f64, rate_per_s, stop }
    }

    /// The next arrival time (one exponential draw from `rng`), or `None` once it is at or past
    /// `stop`.
    pub fn next(&mut self, rng: &mut Rng) -> Option<Time> {
        self.t += -(1.0 - rng.next_f64()).ln() / self.rate_per_s * 1e9;
        (self.t < self.stop.ns() as f64).then(|| Time::from_ns(self.t as u64))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn websearch() -> SizeDist {
        let p = [(0.0, 0.0), (10e3, 0.15), (20e3, 0.2), (30e3, 0.3), (50e3, 0.4), (80e3, 0.53), (200e3, 0.6), (1e6, 0.7), (2e6, 0.8), (5e6, 0.9), (10e6, 0.97), (30e6, 1.0)];
        SizeDist::Cdf { points: p.iter().map(|&(x, p)| [x, p]).collect() }
    }

    /// Each distribution's sample mean is within 4 standard errors of its stated mean.
    #[test]
    fn sample_means_match_the_closed_forms() {
        let dists = [
            SizeDist::Fixed { size: Bytes::new(1000) },
            SizeDist::Exponential { mean: Bytes::new(100_000) },
            SizeDist::Pareto { mean: Bytes::new(100_000), shape: 2.5 },
            SizeDist::Lognormal { median: Bytes::new(10_000), sigma: 1.0 },
            websearch(),
        ];
        for d in &dists {
            let mut rng = Rng::stream(7, StreamKind::Flow, 3);
            let n = 400_000;
            let xs: Vec<f64> = (0..n).map(|_| d.sample(&mut rng) as f64).collect();
            let m = xs.iter().sum::<f64>() / n as f64;
            let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64).sqrt();
            let se = sd / (n as f64).sqrt();
            // rounding up adds half a byte on average
            assert!((m - d.mean() - 0.5).abs() <= 4.0 * se + 0.5, "{d:?}: sample mean {m}, closed form {} (se {se})", d.mean());
        }
        // 0.15 x 5 kB + 0.05 x 15 kB + ... + 0.03 x 20 MB, the trapezoids of the points
        assert!((websearch().mean() - 1_711_250.0).abs() < 1e-6, "{}", websearch().mean());
    }

    /// The empirical CDF is reproduced at its points (Kolmogorov distance of 200,000 samples).
    #[test]
    fn cdf_samples_follow_the_points() {
        let d = websearch();
        let SizeDist::Cdf { points } = &d else { unreachable!() };
        let mut rng = Rng::stream(1, StreamKind::Flow, 0);
        let n = 200_000;
        let mut xs: Vec<u64> = (0..n).map(|_| d.sample(&mut rng)).collect();
        xs.sort_unstable();
        for &[x, p] in points {
            let below = xs.partition_point(|&v| (v as f64) <= x) as f64 / n as f64;
            assert!((below - p).abs() < 0.005, "P(S <= {x}) = {below}, CDF {p}");
        }
        assert!((quantile(points, 0.15) - 10e3).abs() < 1e-6);
        assert!((quantile(points, 0.175) - 15e3).abs() < 1e-6);
    }

    #[test]
    fn bad_cdfs_name_the_point() {
        let mut out = Vec::new();
        SizeDist::Cdf { points: vec![[0.0, 0.0], [100.0, 0.5], [50.0, 0.6], [200.0, 1.0]] }.problems("sizes", &mut out);
        assert_eq!(out[0].field, "sizes.points[2]");
        out.clear();
        SizeDist::Cdf { points: vec![[0.0, 0.0], [100.0, 0.9]] }.problems("sizes", &mut out);
        assert!(out[0].message.contains("reaches 1"), "{:?}", out);
        out.clear();
        SizeDist::Pareto { mean: Bytes::new(1000), shape: 1.0 }.problems("sizes", &mut out);
        assert_eq!(out[0].field, "sizes.shape");
    }
}
