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
//!   of a normal of standard deviation `jitter` (the added delay never negative); or netem's
//!   `pareto` and `paretonormal` (iproute2 `netem/pareto.c`, `paretonormal.c`, public domain:
//!   the delay is `delay` + jitter X, X a quantile function of one uniform U: Pareto
//!   min(4/3 ((1-U)^(-1/3) - 3/2), 4); paretonormal Phi^-1(U) / 4 + 3/4 of the Pareto's at the same
//!   U, as the table's entries average the two tables' at the same index; the delay never below
//!   0, as netem sends a packet whose time is past at once). netem samples a 4096-entry table
//!   of these functions; here they are computed at U itself (the same distribution, without
//!   the table's steps; Phi^-1 by Acklam's rational approximation, relative error < 1.2e-9,
//!   cut at +-4 as netem's 16-bit table is).
//! * Reordering: off by default, a packet never overtakes the one before it (it waits for it,
//!   as netem with `rate`); with `reorder`, packets arrive in the order of their own times (as
//!   netem's time-ordered queue without `rate`: a large jitter reorders).
//! * Duplication (`duplicate` p, as netem): a packet is copied with probability p; the copy
//!   takes its own loss draw and its own jitter (so it may arrive first, with `reorder`), and
//!   is never copied again; a packet both copied and lost goes through once (netem: count =
//!   1 + dup - loss). Unlike netem, whose copy re-enters the root queue discipline, the copy
//!   does not queue or serialize again: it follows the original on the wire.
//! * Trace-driven links (mahimahi `mm-link`, `src/frontend/link_queue.cc`): delivery
//!   opportunities at integer milliseconds, each carrying 1504 bytes (a packet counts its size
//!   plus mm-link's 4-byte tun header, so a 1500-byte packet takes one); several small packets
//!   share one, a packet larger than what is left spills into the next ones and leaves with
//!   the one carrying its last byte; what an opportunity does not use is lost (never saved);
//!   a packet can use only opportunities after it reached the head of an idle link (mm-link
//!   serves a millisecond's opportunities before taking that millisecond's arrivals), and the
//!   trace repeats with the last opportunity's time as its period unless told not to. Packets
//!   wait in the link's queue (its discipline sees them) until their opportunity.
//! * Outages [from, to): the transmitter stops; packets wait in the queue (its discipline drops
//!   what overflows) and leave when it resumes; what was already serializing or propagating
//!   arrives.
//! * A schedule of rate and delay changes at given times (piecewise constant): a packet is
//!   serialized at the rate in force when its serialization starts and propagates with the delay
//!   in force then; a packet never overtakes the one before it (a delay that drops makes the
//!   next packets wait).

pub use crate::topo::impair::{Impairments, JitterDist, LinkTrace, LossModel, Outage, Step};
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
    pub reorder: bool,
    duplicate: f64,
    pub trace: Option<TraceState>,
    /// Header rewrites of a middlebox (`Impairments::ecn_bleach`, `clear_ae`).
    ecn_bleach: bool,
    clear_ae: bool,
    /// An eager link with outages or a schedule (`Link::arrive_timed`): the rate and delay in
    /// force at the last start it computed, at an accepted arrival.
    pub ahead: (Rate, Dur),
    /// The same: the schedule's changes those starts passed, with the start each first applies
    /// at, not yet applied to the link's `rate` and `delay` (what an event-driven link has
    /// applied by a time: the changes of the starts by then, `Link::settle_all`).
    pending: std::collections::VecDeque<(Time, Option<Rate>, Option<Dur>)>,
}

/// Bytes one delivery opportunity of a trace carries, and what a packet adds to its size.
pub const OPPORTUNITY_BYTES: u32 = 1504;
pub const TRACE_HEADER_BYTES: u32 = 4;

/// A trace-driven link's opportunities and how far it has used them.
#[derive(Debug)]
pub struct TraceState {
    at_ns: Vec<u64>,
    period_ns: u64,
    repeat: bool,
    /// The next unused opportunity: index into `at_ns`, and the periods gone by.
    next: usize,
    round: u64,
    /// Bytes left of the opportunity last used, usable at its time `credit_at` only.
    credit: u32,
    credit_at: Time,
    /// The packet in service: its start and the busy time counted for it.
    pub in_service: (Time, Dur),
}

impl TraceState {
    pub fn new(t: &LinkTrace) -> TraceState {
        let at_ns: Vec<u64> = t.opportunities_ms.iter().map(|ms| ms * 1_000_000).collect();
        let period_ns = *at_ns.last().expect("validated: not empty");
        TraceState { at_ns, period_ns, repeat: t.repeat, next: 0, round: 0, credit: 0, credit_at: Time::NEVER, in_service: (Time::ZERO, Dur::ZERO) }
    }

    /// Time of the next unused opportunity (NEVER after the last of a trace that does not repeat).
    fn peek(&self) -> Time {
        if self.next == self.at_ns.len() {
            return Time::NEVER;
        }
        Time::from_ns(self.round * self.period_ns + self.at_ns[self.next])
    }

    fn advance(&mut self) {
        self.next += 1;
        if self.next == self.at_ns.len() && self.repeat {
            self.next = 0;
            self.round += 1;
        }
    }

    /// When the head packet of a link may leave, if not at `now`: `None` if it may leave now,
    /// else the time of its first usable opportunity. `fresh`: the link was idle before `now`
    /// (a packet arriving at an idle link cannot use an opportunity of the same instant).
    pub fn wait(&mut self, now: Time, fresh: bool) -> Option<Time> {
        if self.credit > 0 && self.credit_at == now && !fresh {
            return None;
        }
        loop {
            let t = self.peek();
            if t > now || (t == now && !fresh) {
                return (t != now).then_some(t);
            }
            self.advance(); // passed unused: lost
        }
    }

    /// Carry a packet of `bytes` (wire size) from `now`, when it may leave: the time it leaves
    /// (with the opportunity carrying its last byte).
    pub fn carry(&mut self, now: Time, bytes: u32) -> Time {
        let mut need = bytes + TRACE_HEADER_BYTES;
        let mut at = now;
        if self.credit_at != now {
            self.credit = 0;
        }
        loop {
            if self.credit >= need {
                self.credit -= need;
                self.credit_at = at;
                return at;
            }
            need -= self.credit;
            at = self.peek();
            if at == Time::NEVER {
                self.credit = 0;
                return Time::NEVER;
            }
            self.advance();
            self.credit = OPPORTUNITY_BYTES;
        }
    }

    /// The bytes its opportunities offer per period, as a rate (bit/s).
    pub fn mean_rate(&self) -> Rate {
        Rate::from_bps((self.at_ns.len() as u128 * OPPORTUNITY_BYTES as u128 * 8 * 1_000_000_000 / self.period_ns as u128).max(1) as u64)
    }

    /// The most bytes the trace carries in any one millisecond, as a rate (bit/s).
    pub fn peak_rate(&self) -> Rate {
        let mut best = 0u64;
        let mut i = 0;
        while i < self.at_ns.len() {
            let j = self.at_ns[i..].iter().position(|&t| t != self.at_ns[i]).map_or(self.at_ns.len(), |k| i + k);
            best = best.max((j - i) as u64);
            i = j;
        }
        Rate::from_bps(best * OPPORTUNITY_BYTES as u64 * 8 * 1000)
    }
}

impl Impair {
    pub fn new(loss: Option<LossModel>, jitter_dist: JitterDist, outages: Vec<Outage>, schedule: Vec<Step>, rng: Rng) -> Impair {
        Impair {
            loss,
            bad: false,
            count: 0,
            rng,
            jitter_dist,
            outages,
            next_outage: 0,
            schedule,
            next_step: 0,
            initial: (Rate::from_bps(0), Dur::ZERO),
            reorder: false,
            duplicate: 0.0,
            trace: None,
            ecn_bleach: false,
            clear_ae: false,
            ahead: (Rate::from_bps(0), Dur::ZERO),
            pending: Default::default(),
        }
    }

    /// A link's impairments from its spec, its rate and delay before any step.
    pub fn of(spec: &Impairments, rate: Rate, delay: Dur, rng: Rng) -> Impair {
        Impair {
            initial: (rate, delay),
            ahead: (rate, delay),
            reorder: spec.reorder,
            duplicate: spec.duplicate,
            trace: spec.trace.as_ref().map(TraceState::new),
            ecn_bleach: spec.ecn_bleach,
            clear_ae: spec.clear_ae,
            ..Impair::new(spec.loss_model.clone(), spec.jitter_dist, spec.outages.clone(), spec.schedule.clone(), rng)
        }
    }

    /// Whether a FIFO's link with these impairments knows each accepted packet's start, rate,
    /// delay and draws at its arrival: a loss model and a jitter distribution that keeps the
    /// order, each drawn once a packet in the order the packets start, outages and a schedule,
    /// which depend on the start alone (no trace, duplication, reordering or rewrite). An eager
    /// link then draws them at the packet's arrival (`Link::draw`) and starts it after the
    /// outages at the rate in force (`Link::arrive_timed`).
    pub fn known_at_arrival(&self) -> bool {
        self.trace.is_none() && self.duplicate == 0.0 && !self.reorder && !self.ecn_bleach && !self.clear_ae
    }

    /// Outages or a schedule: a start that depends on more than the transmitter
    /// (`Link::arrive_timed`).
    pub fn timed(&self) -> bool {
        !self.outages.is_empty() || !self.schedule.is_empty()
    }

    /// A schedule of rate or delay changes.
    pub fn steps(&self) -> bool {
        !self.schedule.is_empty()
    }

    /// An eager link: the first time from `t` on outside every outage, when a packet the
    /// transmitter is free for at `t` starts (as `start_tx` holds it to each outage's end).
    /// Called with non-decreasing times, for packets its queue may still refuse: it passes for
    /// good only the outages over by `t` (a packet refused must leave the outage it would have
    /// waited for to the next one: skipped, the next packet accepted started inside it, found
    /// by a review on 2026-11-29).
    pub fn start_after(&mut self, mut t: Time) -> Time {
        self.down_until(t);
        for o in &self.outages[self.next_outage..] {
            if o.from > t {
                break;
            }
            t = t.max(o.to);
        }
        t
    }

    /// An eager link: the rate and delay in force at `start`, a packet's start (non-decreasing
    /// from call to call), as `start_tx` applies the steps due at each start; a change it
    /// passes is kept for `applied_by`.
    pub fn in_force_at(&mut self, start: Time) -> (Rate, Dur) {
        let (rate, delay) = self.due(start);
        if rate.is_some() || delay.is_some() {
            self.ahead = (rate.unwrap_or(self.ahead.0), delay.unwrap_or(self.ahead.1));
            self.pending.push_back((start, rate, delay));
        }
        self.ahead
    }

    /// An eager link: the rate and delay changes applied at its starts by `t` and not taken
    /// yet, the last of each.
    pub fn applied_by(&mut self, t: Time) -> (Option<Rate>, Option<Dur>) {
        let (mut rate, mut delay) = (None, None);
        while self.pending.front().is_some_and(|p| p.0 <= t) {
            let (_, r, d) = self.pending.pop_front().expect("a change");
            rate = r.or(rate);
            delay = d.or(delay);
        }
        (rate, delay)
    }

    /// What a middlebox on this link rewrites in a packet it sends: the IP-ECN field zeroed,
    /// the TCP AE flag cleared (a SYN's or SYN-ACK's negotiation flags, an ACK's ACE field).
    pub fn rewrite(&self, p: &mut crate::packet::Packet) {
        if self.ecn_bleach {
            p.ecn = crate::packet::Ecn::NotEct;
        }
        if self.clear_ae {
            p.ace &= !crate::tcp::negotiation::AE;
        }
    }

    /// Whether the packet starting to serialize now is also copied (drawn before its loss, as
    /// netem).
    pub fn copy(&mut self) -> bool {
        self.duplicate > 0.0 && self.rng.chance(self.duplicate)
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
    /// transfer's time (the ideal FCT) must use. A trace-driven link has no rate: a lower bound
    /// takes none (serialization in no time), as its packets may all leave at one instant.
    pub fn best(&self) -> (Rate, Dur) {
        let (r, d) = self.schedule.iter().fold(self.initial, |(r, d), s| (s.rate.map_or(r, |x| x.max(r)), s.delay.map_or(d, |x| x.min(d))));
        (if self.trace.is_some() { Rate::from_bps(u64::MAX) } else { r }, d)
    }

    /// An extra delay of scale `jitter` from the link's jitter stream `rng`, ns (negative only
    /// for the `centered` distributions).
    pub fn jitter(dist: JitterDist, jitter: Dur, rng: &mut Rng) -> i64 {
        let j = jitter.ns() as f64;
        match dist {
            JitterDist::Uniform => rng.range_inclusive(0, jitter.ns()) as i64,
            JitterDist::Normal => (rng.normal().abs() * j).round() as i64,
            JitterDist::Pareto => (pareto_x(rng.next_f64()) * j).round() as i64,
            JitterDist::ParetoNormal => {
                let u = rng.next_f64();
                ((0.25 * inv_normal_cdf(u).clamp(-4.0, 4.0) + 0.75 * pareto_x(u)) * j).round() as i64
            }
        }
    }
}

impl Impair {
    /// The lowest extra delay `jitter` can draw, ns (0, or negative for netem's centred
    /// distributions: both quantile functions grow with U, so their least value is at U = 0).
    pub fn least_jitter(dist: JitterDist, jitter: Dur) -> i64 {
        let j = jitter.ns() as f64;
        match dist {
            JitterDist::Uniform | JitterDist::Normal => 0,
            JitterDist::Pareto => (pareto_x(0.0) * j).round() as i64,
            JitterDist::ParetoNormal => ((0.25 * -4.0 + 0.75 * pareto_x(0.0)) * j).round() as i64,
        }
    }
}

/// netem's Pareto table at U (iproute2 `netem/pareto.c`): shape 3, shifted to mean 0, scaled by
/// 4/3, cut at 4 (its 16-bit entries' largest).
pub fn pareto_x(u: f64) -> f64 {
    ((4.0 / 3.0) * ((1.0 - u).powf(-1.0 / 3.0) - 1.5)).min(4.0)
}

/// The standard normal's quantile function (Acklam's algorithm: rational approximations in
/// the centre and the tails, relative error below 1.2e-9); +-infinity at 0 and 1.
pub fn inv_normal_cdf(p: f64) -> f64 {
    const A: [f64; 6] = [-3.969_683_028_665_376e1, 2.209_460_984_245_205e2, -2.759_285_104_469_687e2, 1.383_577_518_672_69e2, -3.066_479_806_614_716e1, 2.506_628_277_459_239];
    const B: [f64; 5] = [-5.447_609_879_822_406e1, 1.615_858_368_580_409e2, -1.556_989_798_598_866e2, 6.680_131_188_771_972e1, -1.328_068_155_288_572e1];
    const C: [f64; 6] = [-7.784_894_002_430_293e-3, -3.223_964_580_411_365e-1, -2.400_758_277_161_838, -2.549_732_539_343_734, 4.374_664_141_464_968, 2.938_163_982_698_783];
    const D: [f64; 4] = [7.784_695_709_041_462e-3, 3.224_671_290_700_398e-1, 2.445_134_137_142_996, 3.754_408_661_907_416];
    const LOW: f64 = 0.024_25;
    if p <= 0.0 {
        return f64::NEG_INFINITY;
    }
    if p >= 1.0 {
        return f64::INFINITY;
    }
    let tail = |q: f64| (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5]) / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0);
    if p < LOW {
        tail((-2.0 * p.ln()).sqrt())
    } else if p > 1.0 - LOW {
        -tail((-2.0 * (1.0 - p).ln()).sqrt())
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
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
        let mut xs: Vec<f64> = (0..n).map(|_| Impair::jitter(JitterDist::Normal, sigma, &mut rng) as f64 / sigma.ns() as f64).collect();
        xs.sort_by(f64::total_cmp);
        let cdf = |x: f64| erf(x / std::f64::consts::SQRT_2);
        let d = xs.iter().enumerate().map(|(i, &x)| ((i + 1) as f64 / n as f64 - cdf(x)).abs().max((cdf(x) - i as f64 / n as f64).abs())).fold(0.0, f64::max);
        assert!(d < 1.63 / (n as f64).sqrt(), "KS distance {d}");
    }

    /// netem's Pareto and Pareto-normal jitter: samples of X = (extra delay) / jitter follow the
    /// quantile functions of iproute2's tables (Kolmogorov-Smirnov at 1 % against the CDF, got by
    /// bisection of the quantile function), and their mean and standard deviation are those of
    /// the tables iproute2 generates (pareto.dist: -0.0335, 0.8197; paretonormal.dist: -0.0253,
    /// 0.8339, computed from its 4096 entries; the continuous forms: -0.0329, 0.8209 and -0.0247,
    /// 0.8350), within their sampling error.
    #[test]
    fn pareto_jitters_follow_netems_tables() {
        let pn = |u: f64| 0.25 * inv_normal_cdf(u).clamp(-4.0, 4.0) + 0.75 * pareto_x(u);
        for (dist, q, mean, sd) in [(JitterDist::Pareto, &pareto_x as &dyn Fn(f64) -> f64, -0.0329, 0.8209), (JitterDist::ParetoNormal, &pn, -0.0247, 0.8350)] {
            let mut rng = Rng::stream(6, StreamKind::LinkJitter, 0);
            let n = 50_000;
            let sigma = Dur::from_ms(10);
            let mut xs: Vec<f64> = (0..n).map(|_| Impair::jitter(dist, sigma, &mut rng) as f64 / sigma.ns() as f64).collect();
            // never below the least jitter (the ideal FCT's bound takes it off the delay)
            let least = Impair::least_jitter(dist, sigma) as f64 / sigma.ns() as f64;
            assert!(xs.iter().all(|&x| x >= least), "{dist:?}: a draw below {least}");
            assert!(xs.iter().cloned().fold(f64::MAX, f64::min) < least + 0.01, "{dist:?}: the least jitter is not tight");
            let m = xs.iter().sum::<f64>() / n as f64;
            let s = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1) as f64).sqrt();
            assert!((m - mean).abs() < 3.0 * sd / (n as f64).sqrt(), "{dist:?}: mean {m} vs {mean}");
            assert!((s - sd).abs() < 0.02, "{dist:?}: sd {s} vs {sd}");
            // the CDF at x: the u with q(u) = x (q increasing), by bisection
            let cdf = |x: f64| {
                let (mut lo, mut hi) = (0.0, 1.0);
                for _ in 0..60 {
                    let mid = (lo + hi) / 2.0;
                    if q(mid) <= x {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                lo
            };
            xs.sort_by(f64::total_cmp);
            let d = xs.iter().enumerate().filter(|(_, &x)| x < 3.99).map(|(i, &x)| ((i + 1) as f64 / n as f64 - cdf(x)).abs().max((cdf(x) - i as f64 / n as f64).abs())).fold(0.0, f64::max);
            assert!(d < 1.63 / (n as f64).sqrt(), "{dist:?}: KS distance {d}");
        }
        // the Pareto table's cut: 1.1 % of its entries are at 4 (1 - U < 4.5^-3)
        let mut rng = Rng::stream(7, StreamKind::LinkJitter, 0);
        let at_cut = (0..100_000).filter(|_| Impair::jitter(JitterDist::Pareto, Dur::from_ms(1), &mut rng) == 4_000_000).count() as f64 / 1e5;
        assert!((at_cut - 4.5f64.powi(-3)).abs() < 0.002, "{at_cut}");
    }

    #[test]
    fn the_normal_quantile_is_accurate() {
        for (p, x) in [(0.5, 0.0), (0.975, 1.959_963_984_540_054), (0.001, -3.090_232_306_167_813), (0.841_344_746_068_542_9, 1.0), (1e-10, -6.361_340_902_404_056)] {
            assert!((inv_normal_cdf(p) - x).abs() < 1e-8 * x.abs().max(1.0), "{p}: {} vs {x}", inv_normal_cdf(p));
        }
    }

    /// mm-link's law on a trace of opportunities at 1, 1, 3 ms (period 3): 1500-byte packets take
    /// one each; smaller ones share one and spill into the next; a packet that reaches an idle
    /// link at an opportunity's instant waits for the next; a repeating trace starts again.
    #[test]
    fn a_trace_carries_1504_bytes_per_opportunity() {
        let ms = Time::from_ms;
        let mut t = TraceState::new(&LinkTrace { opportunities_ms: vec![1, 1, 3], repeat: true });
        assert_eq!(t.wait(ms(0), true), Some(ms(1)));
        assert_eq!(t.wait(ms(1), false), None);
        assert_eq!(t.carry(ms(1), 1500), ms(1));
        assert_eq!(t.wait(ms(1), false), None); // the second opportunity at 1 ms
        assert_eq!(t.carry(ms(1), 700), ms(1)); // 704 of it
        assert_eq!(t.carry(ms(1), 700), ms(1)); // 704 more: 96 left
        assert_eq!(t.carry(ms(1), 700), ms(3)); // 96 here, the rest at 3 ms: 896 left there
        assert_eq!(t.wait(ms(3), false), None);
        assert_eq!(t.carry(ms(3), 800), ms(3));
        assert_eq!(t.wait(ms(3), false), None); // 92 bytes left: a packet starts with them
        // period 3 ms: the next opportunities are at 4, 4 and 6 ms
        assert_eq!(t.carry(ms(3), 1500), ms(4));
        // an idle link's packet that arrives at 4 ms cannot use what is left at 4 ms
        assert_eq!(t.wait(ms(4), true), Some(ms(6)));
        assert_eq!(t.peak_rate(), Rate::from_bps(2 * 1504 * 8 * 1000));
        let mut once = TraceState::new(&LinkTrace { opportunities_ms: vec![1], repeat: false });
        assert_eq!(once.carry(ms(1), 1500), ms(1));
        assert_eq!(once.wait(ms(1), false), Some(Time::NEVER));
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
        // an eager link's starts: past each outage, back to back too; a start that is asked
        // for and not taken (a packet refused) passes no outage a later one needs
        let back_to_back = vec![Outage { from: Time::from_secs(1), to: Time::from_secs(2) }, Outage { from: Time::from_secs(2), to: Time::from_secs(3) }, Outage { from: Time::from_secs(5), to: Time::from_secs(6) }];
        let mut eager = Impair::of(&Impairments { outages: back_to_back, ..Default::default() }, Rate::from_bps(10), Dur::from_ms(5), Rng::stream(1, StreamKind::LinkLoss, 0));
        assert_eq!(eager.start_after(Time::from_ms(500)), Time::from_ms(500));
        assert_eq!(eager.start_after(Time::from_ms(1500)), Time::from_secs(3));
        assert_eq!(eager.start_after(Time::from_ms(1600)), Time::from_secs(3));
        assert_eq!(eager.start_after(Time::from_secs(3)), Time::from_secs(3));
        assert_eq!(eager.start_after(Time::from_ms(5999)), Time::from_secs(6));
        assert_eq!(eager.start_after(Time::from_secs(7)), Time::from_secs(7));
        let mut bad = Vec::new();
        crate::topo::impair::timing_problems(&[Outage { from: Time::from_secs(2), to: Time::from_secs(1) }], &[], "e", &mut bad);
        assert!(bad[0].message.contains("before it starts"), "{bad:?}");
    }
}
