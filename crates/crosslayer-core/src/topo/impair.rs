//! Link impairments as data (the study's `impair` of a link direction): loss models, the
//! jitter's distribution, outages and a rate/delay schedule, with their checks. What they do to
//! packets, and their sources, is `net::impair`.

use crate::params::Problem;
use crate::units::{Dur, Rate, Time};
use serde::{Deserialize, Serialize};

/// A loss process on the wire.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
#[serde(tag = "kind", rename_all = "snake_case", deny_unknown_fields)]
pub enum LossModel {
    /// netem `loss gemodel p r 1-h 1-k` (probabilities in [0, 1]).
    GilbertElliott {
        p: f64,
        r: f64,
        #[serde(default = "one")]
        bad_loss: f64,
        #[serde(default)]
        good_loss: f64,
    },
    /// Every `every`-th packet is lost.
    Periodic { every: u64 },
    /// Independent bit errors at this rate.
    Ber { ber: f64 },
}

fn one() -> f64 {
    1.0
}

/// The distribution of the extra delay `jitter` scales.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum JitterDist {
    /// Uniform in [0, jitter].
    #[default]
    Uniform,
    /// |N(0, jitter^2)|: a half-normal of scale `jitter`.
    Normal,
    /// netem's `distribution pareto`: delay + jitter X, X = min(4/3 ((1-U)^(-1/3) - 3/2), 4)
    /// (a Pareto of shape 3 shifted to mean 0, scaled by 4/3, cut at 4): mostly below the
    /// delay, now and then far above it.
    Pareto,
    /// netem's `distribution paretonormal`: X = Phi^-1(U) / 4 + 3/4 of the Pareto's X at the
    /// same U (the average of the two quantile functions, as iproute2 builds its table).
    ParetoNormal,
}

impl JitterDist {
    /// Whether the extra delay may be negative (netem's tables: the delay is `delay` + jitter
    /// X with X of mean about 0; a packet never arrives before it was sent).
    pub fn centered(self) -> bool {
        matches!(self, JitterDist::Pareto | JitterDist::ParetoNormal)
    }
}

/// A trace-driven link (mahimahi's `mm-link` traces): delivery opportunities at integer
/// milliseconds, one per line of the trace, each carrying up to 1504 bytes.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct LinkTrace {
    /// The opportunities, ms from the start of the run, non-decreasing; the last > 0.
    pub opportunities_ms: Vec<u64>,
    /// Start again after the last one (the period: the last's time), as mm-link does unless
    /// `--once`.
    #[serde(default = "yes")]
    pub repeat: bool,
}

fn yes() -> bool {
    true
}

/// Most opportunities in a trace.
pub const MAX_TRACE_OPPORTUNITIES: usize = 50_000_000;

/// The link is down in [from, to).
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Outage {
    pub from: Time,
    pub to: Time,
}

/// From `at` on, the link's rate and/or delay.
#[derive(Clone, Copy, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(deny_unknown_fields)]
pub struct Step {
    pub at: Time,
    #[serde(default)]
    pub rate: Option<Rate>,
    #[serde(default)]
    pub delay: Option<Dur>,
}

impl LossModel {
    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        let prob = |name: &str, v: f64, out: &mut Vec<Problem>| {
            if !(0.0..=1.0).contains(&v) {
                out.push(Problem::new(format!("{path}.{name}"), format!("a probability in [0, 1] (got {v})")));
            }
        };
        match *self {
            LossModel::GilbertElliott { p, r, bad_loss, good_loss } => {
                prob("p", p, out);
                prob("r", r, out);
                prob("bad_loss", bad_loss, out);
                prob("good_loss", good_loss, out);
                if p > 0.0 && r == 0.0 {
                    out.push(Problem::new(format!("{path}.r"), "with r = 0 the bad state never ends: give r > 0"));
                }
            }
            LossModel::Periodic { every: 0 } => out.push(Problem::new(format!("{path}.every"), "must be at least 1 (every = 1 loses every packet)")),
            LossModel::Ber { ber } if !(0.0..1.0).contains(&ber) => out.push(Problem::new(format!("{path}.ber"), format!("a bit-error rate in [0, 1) (got {ber})"))),
            _ => {}
        }
    }
}

/// Problems of outages and a schedule (sorted, not overlapping, within the run).
pub fn timing_problems(outages: &[Outage], schedule: &[Step], path: &str, out: &mut Vec<Problem>) {
    for (i, o) in outages.iter().enumerate() {
        if o.to <= o.from {
            out.push(Problem::new(format!("{path}.outages[{i}]"), format!("ends ({}) before it starts ({}): give from < to", o.to, o.from)));
        } else if i > 0 && o.from < outages[i - 1].to {
            out.push(Problem::new(format!("{path}.outages[{i}]"), "overlaps the outage before it: list outages in time order, apart"));
        }
    }
    for (i, s) in schedule.iter().enumerate() {
        if i > 0 && s.at <= schedule[i - 1].at {
            out.push(Problem::new(format!("{path}.schedule[{i}]"), "at the same time as or before the step before it: list steps in time order, one per time"));
        }
        if s.rate.is_none() && s.delay.is_none() {
            out.push(Problem::new(format!("{path}.schedule[{i}]"), "changes nothing: give rate and/or delay"));
        }
        if s.rate.is_some_and(|r| r.bps() == 0) {
            out.push(Problem::new(format!("{path}.schedule[{i}].rate"), "must be positive (an outage stops a link)"));
        }
    }
}

/// A link direction's impairments (`EdgeSpec::impair`); none by default.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Impairments {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_model: Option<LossModel>,
    #[serde(default)]
    pub jitter_dist: JitterDist,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outages: Vec<Outage>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub schedule: Vec<Step>,
    /// Jitter may reorder packets (a packet whose delay is shorter overtakes the one before,
    /// as netem's time-ordered queue without `rate`); by default a packet never overtakes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub reorder: bool,
    /// Probability that a packet is duplicated (netem `duplicate`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub duplicate: f64,
    /// Delivery opportunities instead of a fixed rate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<LinkTrace>,
    /// A middlebox that zeroes the IP-ECN field of every packet it sends (ECT and CE become
    /// Not-ECT: "bleaching", RFC 9768 section 3.2.2.3).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub ecn_bleach: bool,
    /// A middlebox that clears the TCP header's AE flag (a reserved bit before RFC 9768) of every
    /// packet it sends: an AccECN SYN arrives as an RFC 3168 one, an ACK's ACE field loses its
    /// top bit (RFC 9768 section 3.1.5).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub clear_ae: bool,
}

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

impl Impairments {
    pub fn is_none(&self) -> bool {
        self == &Impairments::default()
    }

    pub fn problems(&self, path: &str, out: &mut Vec<Problem>) {
        if let Some(m) = &self.loss_model {
            m.problems(&format!("{path}.loss_model"), out);
        }
        timing_problems(&self.outages, &self.schedule, path, out);
        if !(0.0..=1.0).contains(&self.duplicate) {
            out.push(Problem::new(format!("{path}.duplicate"), format!("a probability in [0, 1] (got {})", self.duplicate)));
        }
        if let Some(t) = &self.trace {
            let at = format!("{path}.trace");
            if t.opportunities_ms.is_empty() || t.opportunities_ms.len() > MAX_TRACE_OPPORTUNITIES {
                out.push(Problem::new(&at, format!("from 1 to {MAX_TRACE_OPPORTUNITIES} delivery opportunities")));
            } else if let Some(i) = t.opportunities_ms.windows(2).position(|w| w[1] < w[0]) {
                out.push(Problem::new(&at, format!("opportunity {} ({} ms) comes before the one before it ({} ms): times must not decrease", i + 1, t.opportunities_ms[i + 1], t.opportunities_ms[i])));
            } else if t.opportunities_ms.last() == Some(&0) {
                out.push(Problem::new(&at, "the last opportunity must be after 0 ms (it is the trace's period)"));
            } else if t.opportunities_ms[t.opportunities_ms.len() - 1] > 1_000_000_000 {
                out.push(Problem::new(&at, "opportunities at most 1,000,000,000 ms (11.6 days)"));
            }
            if self.schedule.iter().any(|s| s.rate.is_some()) {
                out.push(Problem::new(&at, "a trace-driven link has no rate to schedule: give the schedule delays only"));
            }
        }
    }
}

