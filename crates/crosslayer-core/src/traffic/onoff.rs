//! On-off sources over TCP: the application alternates on-periods, in which it writes (at the
//! flow's `app_rate`, or as fast as TCP takes the data when it has none), and off-periods, in
//! which it writes nothing. Periods are drawn independently from their distributions, on-period
//! first at the flow's start, from the flow's own random stream of the seed.
//!
//! Sources: the on-off model of ns-2's `Application/Traffic/Exponential` and `.../Pareto`
//! (burst_time, idle_time, rate: on and off periods drawn from the distribution with the given
//! means, Pareto by its shape) and of ns-3's `OnOffApplication` (`OnTime`, `OffTime`, `DataRate`:
//! the application sends at the rate while on); both run over one connection. Pareto by its
//! mean and shape a > 1 (scale x_m = mean (a - 1) / a), as the flow sizes
//! (`traffic::workload`).
//!
//! Two ways to carry the on-periods (`OnOffConnection`):
//! * `same` (ns-2's and ns-3's): one connection for the whole run; the sender goes idle while
//!   the application is off and resumes with the window it has (the `linux` profile restarts
//!   the window after an idle period longer than the RTO, as Linux does; `tcp::sender`).
//!   Without an `app_rate` the application writes only while on, as much as the sender can
//!   send: what was not sent when the on-period ends is not written.
//! * `new`: each on-period opens a new connection that carries what the application writes in
//!   it, `app_rate` x its duration (at least one byte), and closes (a finite flow with its own
//!   row and completion time, named `<flow>.<k>`); it needs an `app_rate`. The next on-period
//!   starts after the off-period whether or not the transfer has completed.

use crate::params::Problem;
use crate::rng::Rng;
use crate::units::{Dur, Time};
use serde::{Deserialize, Serialize};

/// The distribution of on- or off-period durations.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum PeriodDist {
    Fixed { value: Dur },
    Exponential { mean: Dur },
    /// Pareto with the given mean and shape (> 1; the smaller, the heavier the tail).
    Pareto { mean: Dur, shape: f64 },
}

/// Periods are at least 1 us and at most this long (a Pareto tail is cut here).
pub const MAX_PERIOD: Dur = Dur::from_secs(1_000_000);

impl PeriodDist {
    /// The mean duration, ns.
    pub fn mean_ns(&self) -> f64 {
        match self {
            PeriodDist::Fixed { value: d } | PeriodDist::Exponential { mean: d } | PeriodDist::Pareto { mean: d, .. } => d.ns() as f64,
        }
    }

    /// One period: rounded to whole nanoseconds, within [1 us, `MAX_PERIOD`].
    pub fn sample(&self, rng: &mut Rng) -> Dur {
        let x = match self {
            PeriodDist::Fixed { value } => value.ns() as f64,
            PeriodDist::Exponential { mean } => -(mean.ns() as f64) * (1.0 - rng.next_f64()).ln(),
            PeriodDist::Pareto { mean, shape } => mean.ns() as f64 * (shape - 1.0) / shape / (1.0 - rng.next_f64()).powf(1.0 / shape),
        };
        let x = if x.is_finite() { x.round() as u64 } else { u64::MAX };
        Dur::from_ns(x.clamp(1_000, MAX_PERIOD.ns()))
    }

    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        let (field, d) = match self {
            PeriodDist::Fixed { value } => ("value", value),
            PeriodDist::Exponential { mean } | PeriodDist::Pareto { mean, .. } => ("mean", mean),
        };
        if *d < Dur::from_us(1) || *d > MAX_PERIOD {
            out.push(Problem::new(format!("{path}.{field}"), format!("must be in [1us, {MAX_PERIOD}]")));
        }
        if let PeriodDist::Pareto { shape, .. } = self {
            if !(*shape > 1.0 && *shape <= 100.0) {
                out.push(Problem::new(format!("{path}.shape"), format!("must be in (1, 100]: at 1 or below the mean is infinite (got {shape})")));
            }
        }
    }
}

crate::choice! {
    /// How an on-off source carries its on-periods.
    #[derive(Default)]
    pub enum OnOffConnection {
        /// One connection for the whole run, idle while the application is off.
        #[default]
        Same = "same",
        /// A new connection per on-period, carrying what was written in it, then closed.
        New = "new",
    }
}

/// An on-off application (`FlowSpec::on_off`).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct OnOffSpec {
    pub on: PeriodDist,
    pub off: PeriodDist,
    #[serde(default)]
    pub connection: OnOffConnection,
}

impl OnOffSpec {
    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        self.on.problems(&format!("{path}.on"), out);
        self.off.problems(&format!("{path}.off"), out);
    }

    /// The on-periods `[from, to)` from `start` until `end`, on first, drawn from `rng`.
    pub fn draw(&self, start: Time, end: Time, rng: &mut Rng) -> Vec<(Time, Time)> {
        let mut out = Vec::new();
        let mut t = start;
        while t < end {
            let to = (t + self.on.sample(rng)).min(end);
            out.push((t, to));
            t = to + self.off.sample(rng);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    /// Exponential and Pareto periods have their means (within 4 standard errors); a drawn
    /// schedule starts on at the start, alternates, and is on about on / (on + off) of the time.
    #[test]
    fn periods_have_their_means_and_schedules_alternate() {
        let mut rng = Rng::stream(1, StreamKind::OnOff, 0);
        for (d, sd_over_mean) in [(PeriodDist::Exponential { mean: Dur::from_ms(100) }, 1.0), (PeriodDist::Pareto { mean: Dur::from_ms(100), shape: 2.5 }, (2.5f64 / (2.5 - 2.0)).sqrt() / 1.5)] {
            let n = 200_000;
            let m = (0..n).map(|_| d.sample(&mut rng).ns() as f64).sum::<f64>() / n as f64;
            let se = 1e8 * sd_over_mean / (n as f64).sqrt();
            assert!((m - 1e8).abs() < 4.0 * se, "{d:?}: mean {m}");
        }
        let spec = OnOffSpec { on: PeriodDist::Exponential { mean: Dur::from_ms(300) }, off: PeriodDist::Pareto { mean: Dur::from_ms(700), shape: 1.5 }, connection: OnOffConnection::Same };
        let periods = spec.draw(Time::from_secs(1), Time::from_secs(1000), &mut rng);
        assert_eq!(periods[0].0, Time::from_secs(1), "on first, at the start");
        assert!(periods.windows(2).all(|w| w[0].0 < w[0].1 && w[0].1 < w[1].0), "on, then off, in order");
        let frac = periods.iter().map(|&(a, b)| b.since(a).ns()).sum::<u64>() as f64 / 999e9;
        assert!((frac - 0.3).abs() < 0.05, "{frac}");
    }
}
