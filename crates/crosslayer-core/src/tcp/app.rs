//! The application above a TCP sender: what it has written, and when. By default it keeps
//! the socket full (a bulk transfer, or a finite one written at once); it may write at a rate
//! (`app_rate`) and only in on-periods (an on-off source, `traffic::onoff` draws the periods).
//! The sender sends new data only as it is written (`tcp::sender`).

use crate::units::{Dur, Time};

/// A drawn schedule of on-periods and the on-time before each (for the writes of an
/// application with a rate).
#[derive(Clone, Debug)]
pub struct OnOffSchedule {
    /// On-periods `[from, to)`, in order, disjoint.
    periods: Vec<(Time, Time)>,
    /// On-time before each period, ns.
    before: Vec<u64>,
}

impl OnOffSchedule {
    pub fn new(periods: Vec<(Time, Time)>) -> OnOffSchedule {
        let mut acc = 0;
        let before = periods
            .iter()
            .map(|&(a, b)| {
                let x = acc;
                acc += b.since(a).ns();
                x
            })
            .collect();
        OnOffSchedule { periods, before }
    }

    /// The period containing `t` or the last before it.
    fn at(&self, t: Time) -> Option<usize> {
        self.periods.partition_point(|&(a, _)| a <= t).checked_sub(1)
    }

    /// The application is writing at `t`.
    pub fn is_on(&self, t: Time) -> bool {
        self.at(t).is_some_and(|k| t < self.periods[k].1)
    }

    /// On-time in `[start, t)`.
    pub fn on_time(&self, t: Time) -> Dur {
        Dur::from_ns(self.at(t).map_or(0, |k| self.before[k] + t.min(self.periods[k].1).since(self.periods[k].0).ns()))
    }

    /// When the on-time reaches `d` (`Time::NEVER` if it never does).
    pub fn when_on_time(&self, d: Dur) -> Time {
        let k = self.before.partition_point(|&b| b < d.ns());
        // period k - 1 is the last that starts with less than d before it
        match k.checked_sub(1) {
            None => self.periods.first().map_or(Time::NEVER, |p| p.0),
            Some(k) => {
                let (a, b) = self.periods[k];
                let t = a + Dur::from_ns(d.ns() - self.before[k]);
                if t <= b {
                    t
                } else {
                    self.periods.get(k + 1).map_or(Time::NEVER, |p| p.0)
                }
            }
        }
    }

    /// The start of the first on-period after `t` (`Time::NEVER`: none).
    pub fn next_on(&self, t: Time) -> Time {
        self.periods.get(self.periods.partition_point(|&(a, _)| a <= t)).map_or(Time::NEVER, |p| p.0)
    }

    pub fn periods(&self) -> &[(Time, Time)] {
        &self.periods
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On-time adds up, is flat while off, and `when_on_time` inverts it.
    #[test]
    fn on_time_adds_up_and_inverts() {
        let ms = Time::from_ms;
        let periods = vec![(ms(100), ms(300)), (ms(1000), ms(1050)), (ms(2000), ms(2400))];
        let s = OnOffSchedule::new(periods.clone());
        assert_eq!(s.on_time(ms(50)), Dur::ZERO);
        assert_eq!(s.on_time(ms(200)), Dur::from_ms(100));
        assert_eq!(s.on_time(ms(700)), Dur::from_ms(200), "flat while off");
        assert_eq!(s.on_time(ms(3000)), Dur::from_ms(650));
        assert!(s.is_on(ms(100)) && !s.is_on(ms(300)) && s.is_on(ms(1049)) && !s.is_on(ms(50)));
        assert_eq!((s.next_on(ms(50)), s.next_on(ms(500)), s.next_on(ms(2000))), (ms(100), ms(1000), Time::NEVER));
        assert_eq!(s.when_on_time(Dur::ZERO), ms(100));
        assert_eq!(s.when_on_time(Dur::from_ms(200)), ms(300), "the earliest time it is reached");
        assert_eq!(s.when_on_time(Dur::from_ms(201)), ms(1001));
        assert_eq!(s.when_on_time(Dur::from_ms(650)), ms(2400));
        assert_eq!(s.when_on_time(Dur::from_ms(651)), Time::NEVER);
        for t in (100..3000).step_by(7).map(ms) {
            let d = s.on_time(t);
            assert!(s.when_on_time(d) <= t && s.on_time(s.when_on_time(d)) == d, "{t}");
        }
    }
}
