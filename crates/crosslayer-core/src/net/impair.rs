//! Link impairments beyond Bernoulli loss and uniform jitter (`EdgeSpec::loss`, `jitter`), each
//! link direction with its own random stream:
//!
//! * Loss models, decided when a packet's serialization starts (a lost packet occupies the
//!   transmitter, then never arrives), as Linux netem (`sch_netem.c`, `loss_gilb_ell`, and
//!   `tc-netem(8)`):
//!   - Gilbert-Elliott with netem's four parameters: p = P(good -> bad), r = P(bad -> good),
//!     1-h = the loss probability in the bad state (default 1), 1-k = in the good state (default
//!     0). Per packet the loss is drawn with the state's probability, then the state moves (netem
//!     draws the move first, but decides the loss with the state the packet found). Long-run
//!     loss rate: pi_G (1-k) + pi_B (1-h) with pi_B = p / (p + r); with 1-h = 1 and 1-k = 0 a
//!     burst of losses lasts 1 / r packets on average (geometric).
//!   - Periodic: every n-th packet (the n-th, 2n-th, ...) is lost.
//!   - Bit errors: a packet of s bytes is lost with probability 1 - (1 - ber)^(8 s).
//! * Jitter distribution: uniform in [0, jitter] (the default, as before) or the absolute value
//!   of a normal of standard deviation `jitter` (the added delay never negative); never
//!   reordering: a packet waits for the one before it.
//! * Outages [from, to): the transmitter stops; packets wait in the queue (its discipline drops
//!   what overflows) and leave when it resumes; what was already serializing or propagating
//!   arrives.
//! * A schedule of rate and delay changes at given times (piecewise constant): a packet is
//!   serialized at the rate in force when its serialization starts and propagates with the delay
//!   in force then; a packet never overtakes the one before it (a delay that drops makes the
//!   next packets wait).

pub use crate::topo::impair::{Impairments, JitterDist, LossModel, Outage, Step};
use crate::rng::Rng;
use crate::units::{Dur, Rate, Time};

/// A link's impairments and their state.
#[derive(Debug)]
pub struct Impair {
    loss: Option<LossModel>,
    /// Gilbert-Elliott: in the bad state; periodic: packets since the last loss.
    bad: bool,
    count: u64,
    rng: Rng,
    pub jitter_dist: JitterDist,
    outages: Vec<Outage>,
    next_outage: usize,
    schedule: Vec<Step>,
    next_step: usize,
    /// The link's rate and delay before any step.
    initial: (Rate, Dur),
}

impl Impair {
    pub fn new(loss: Option<LossModel>, jitter_dist: JitterDist, outages: Vec<Outage>, schedule: Vec<Step>, rng: Rng) -> Impair {
        Impair { loss, bad: false, count: 0, rng, jitter_dist, outages, next_outage: 0, schedule, next_step: 0, initial: (Rate::from_bps(0), Dur::ZERO) }
    }

    /// A link's impairments from its spec, its rate and delay before any step.
    pub fn of(spec: &Impairments, rate: Rate, delay: Dur, rng: Rng) -> Impair {
        Impair { initial: (rate, delay), ..Impair::new(spec.loss_model.clone(), spec.jitter_dist, spec.outages.clone(), spec.schedule.clone(), rng) }
    }

    /// Whether the loss model loses a packet of `bytes` starting to serialize now.
    pub fn lose(&mut self, bytes: u32) -> bool {
        match self.loss {
            None => false,
            Some(LossModel::GilbertElliott { p, r, bad_loss, good_loss }) => {
                let lost = self.rng.chance(if self.bad { bad_loss } else { good_loss });
                let flip = self.rng.chance(if self.bad { r } else { p });
                self.bad ^= flip;
                lost
            }
            Some(LossModel::Periodic { every }) => {
                self.count += 1;
                if self.count == every {
                    self.count = 0;
                    true
                } else {
                    false
                }
            }
            Some(LossModel::Ber { ber }) => self.rng.chance(1.0 - (1.0 - ber).powf(8.0 * bytes as f64)),
        }
    }

    /// The end of the outage `now` is in, if any.
    pub fn down_until(&mut self, now: Time) -> Option<Time> {
        while self.next_outage < self.outages.len() && self.outages[self.next_outage].to <= now {
            self.next_outage += 1;
        }
        self.outages.get(self.next_outage).filter(|o| o.from <= now).map(|o| o.to)
    }

    /// The rate and delay changes in force at `now` not yet applied, the last of each.
    pub fn due(&mut self, now: Time) -> (Option<Rate>, Option<Dur>) {
        let (mut rate, mut delay) = (None, None);
        while self.next_step < self.schedule.len() && self.schedule[self.next_step].at <= now {
            let s = self.schedule[self.next_step];
            rate = s.rate.or(rate);
            delay = s.delay.or(delay);
            self.next_step += 1;
        }
        (rate, delay)
    }

    /// The highest rate and the lowest delay the link ever has: what a lower bound on a
    /// transfer's time (the ideal FCT) must use.
    pub fn best(&self) -> (Rate, Dur) {
        self.schedule.iter().fold(self.initial, |(r, d), s| (s.rate.map_or(r, |x| x.max(r)), s.delay.map_or(d, |x| x.min(d))))
    }

    /// An extra delay of scale `jitter` from the link's jitter stream `rng`.
    pub fn jitter(dist: JitterDist, jitter: Dur, rng: &mut Rng) -> Dur {
        match dist {
            JitterDist::Uniform => Dur::from_ns(rng.range_inclusive(0, jitter.ns())),
            JitterDist::Normal => Dur::from_ns((rng.normal().abs() * jitter.ns() as f64).round() as u64),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn ge(p: f64, r: f64, bad_loss: f64, good_loss: f64) -> Impair {
        Impair::new(Some(LossModel::GilbertElliott { p, r, bad_loss, good_loss }), JitterDist::Uniform, vec![], vec![], Rng::stream(9, StreamKind::LinkLoss, 1))
    }

    /// Long-run loss rate and mean burst length against the closed forms, within 3 standard
    /// errors (batch means over 100 batches for the loss rate: losses are correlated).
    #[test]
    fn gilbert_elliott_matches_its_closed_forms() {
        for (p, r, h1, k1) in [(0.01, 0.3, 1.0, 0.0), (0.05, 0.5, 0.7, 0.001), (0.002, 0.1, 1.0, 0.0)] {
            let mut g = ge(p, r, h1, k1);
            let (batches, per) = (100, 200_000);
            let mut rates = Vec::new();
            let (mut bursts, mut burst_len, mut run) = (0u64, 0u64, 0u64);
            for _ in 0..batches {
                let mut lost = 0u64;
                for _ in 0..per {
                    if g.lose(1500) {
                        lost += 1;
                        run += 1;
                    } else if run > 0 {
                        bursts += 1;
                        burst_len += run;
                        run = 0;
                    }
                }
                rates.push(lost as f64 / per as f64);
            }
            let pib = p / (p + r);
            let expect = (1.0 - pib) * k1 + pib * h1;
            let m = rates.iter().sum::<f64>() / batches as f64;
            let sd = (rates.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (batches - 1) as f64).sqrt();
            assert!((m - expect).abs() < 3.0 * sd / (batches as f64).sqrt(), "p {p} r {r}: loss {m}, closed form {expect} (se {})", sd / (batches as f64).sqrt());
            if h1 == 1.0 && k1 == 0.0 {
                // a burst is the bad state's sojourn: geometric of mean 1/r, sd sqrt(1-r)/r
                let mean = burst_len as f64 / bursts as f64;
                let se = (1.0 - r).sqrt() / r / (bursts as f64).sqrt();
                assert!((mean - 1.0 / r).abs() < 3.0 * se, "p {p} r {r}: bursts {mean}, closed form {} (se {se})", 1.0 / r);
            }
        }
    }

    #[test]
    fn periodic_and_bit_error_losses() {
        let mut per = Impair::new(Some(LossModel::Periodic { every: 4 }), JitterDist::Uniform, vec![], vec![], Rng::stream(1, StreamKind::LinkLoss, 0));
        let pattern: Vec<bool> = (0..12).map(|_| per.lose(100)).collect();
        assert_eq!(pattern, [false, false, false, true, false, false, false, true, false, false, false, true]);
        let mut ber = Impair::new(Some(LossModel::Ber { ber: 1e-5 }), JitterDist::Uniform, vec![], vec![], Rng::stream(1, StreamKind::LinkLoss, 0));
        let n = 200_000;
        let lost = (0..n).filter(|_| ber.lose(1500)).count() as f64 / n as f64;
        let expect = 1.0 - (1.0f64 - 1e-5).powf(12_000.0);
        assert!((lost - expect).abs() < 3.0 * (expect * (1.0 - expect) / n as f64).sqrt(), "{lost} vs {expect}");
        let small = (0..n).filter(|_| ber.lose(64)).count() as f64 / n as f64;
        assert!(small < lost / 10.0, "a small packet is lost less often: {small} vs {lost}");
    }

    /// The half-normal's samples follow its CDF 2 Phi(x / sigma) - 1 (Kolmogorov-Smirnov at 1 %).
    #[test]
    fn normal_jitter_follows_the_half_normal() {
        let mut rng = Rng::stream(4, StreamKind::LinkJitter, 0);
        let n = 20_000;
        let sigma = Dur::from_ms(2);
        let mut xs: Vec<f64> = (0..n).map(|_| Impair::jitter(JitterDist::Normal, sigma, &mut rng).ns() as f64 / sigma.ns() as f64).collect();
        xs.sort_by(f64::total_cmp);
        let cdf = |x: f64| erf(x / std::f64::consts::SQRT_2);
        let d = xs.iter().enumerate().map(|(i, &x)| ((i + 1) as f64 / n as f64 - cdf(x)).abs().max((cdf(x) - i as f64 / n as f64).abs())).fold(0.0, f64::max);
        assert!(d < 1.63 / (n as f64).sqrt(), "KS distance {d}");
    }

    /// erf by Abramowitz and Stegun 7.1.26 (|error| < 1.5e-7).
    fn erf(x: f64) -> f64 {
        let t = 1.0 / (1.0 + 0.327_591_1 * x);
        let y = 1.0 - (((((1.061_405_429 * t - 1.453_152_027) * t) + 1.421_413_741) * t - 0.284_496_736) * t + 0.254_829_592) * t * (-x * x).exp();
        if x >= 0.0 {
            y
        } else {
            -y
        }
    }

    #[test]
    fn outages_and_schedules_are_found_in_order() {
        let o = vec![Outage { from: Time::from_secs(1), to: Time::from_secs(2) }, Outage { from: Time::from_secs(5), to: Time::from_secs(6) }];
        let s = vec![Step { at: Time::from_secs(1), rate: Some(Rate::from_bps(5)), delay: None }, Step { at: Time::from_secs(3), rate: None, delay: Some(Dur::from_ms(1)) }];
        let spec = Impairments { outages: o, schedule: s, ..Default::default() };
        let mut imp = Impair::of(&spec, Rate::from_bps(10), Dur::from_ms(5), Rng::stream(1, StreamKind::LinkLoss, 0));
        assert_eq!(imp.down_until(Time::from_ms(500)), None);
        assert_eq!(imp.down_until(Time::from_ms(1500)), Some(Time::from_secs(2)));
        assert_eq!(imp.down_until(Time::from_secs(2)), None);
        assert_eq!(imp.down_until(Time::from_secs(5)), Some(Time::from_secs(6)));
        assert_eq!(imp.due(Time::from_ms(999)), (None, None));
        assert_eq!(imp.due(Time::from_secs(4)), (Some(Rate::from_bps(5)), Some(Dur::from_ms(1))));
        assert_eq!(imp.due(Time::from_secs(9)), (None, None));
        assert_eq!(imp.best(), (Rate::from_bps(10), Dur::from_ms(1)));
        let mut bad = Vec::new();
        crate::topo::impair::timing_problems(&[Outage { from: Time::from_secs(2), to: Time::from_secs(1) }], &[], "e", &mut bad);
        assert!(bad[0].message.contains("before it starts"), "{bad:?}");
    }
}
