//! A shared IEEE 802.11 medium: the distributed coordination function (DCF, CSMA/CA basic
//! access) of an access point and its stations.
//!
//! **What it models.** Every member of the medium (the access point, whose downlink serves one
//! queue per station in turn, and each station, whose uplink has one queue) contends for the
//! medium by DCF (IEEE 802.11-2012 section 9.3): a member with a frame waits until the medium has
//! been idle for DIFS, then counts down a backoff counter drawn uniformly from [0, CW] slots,
//! one per idle slot, frozen while the medium is busy, and transmits when it reaches 0. Two or
//! more members reaching 0 at the same slot boundary collide: every frame of the collision fails,
//! each collider doubles CW (CW <- 2 CW + 1, up to CWmax) and tries again, and a frame that
//! failed `retry_limit` attempts is dropped (dot11ShortRetryLimit, 9.3.4.4), CW back to CWmin.
//! A success is DATA + SIFS + ACK, and CW goes back to CWmin (9.3.3). After every transmission
//! the member draws a new backoff even with nothing to send (the post-backoff of 9.3.4.3); a frame
//! that comes to a member with no backoff pending, the medium idle for DIFS, goes at once.
//!
//! **Timing** (802.11-2012 clause 19, ERP-OFDM, and 18.4.3): a PSDU of L bytes lasts
//! `preamble + 4 us x ceil((16 + 8 L + 6) / N_DBPS) + signal extension` (16 service bits, 6 tail
//! bits, N_DBPS = rate x 4 us data bits per OFDM symbol); DIFS = SIFS + 2 slots. A data frame
//! is the packet plus `mac_overhead` bytes (MAC header, FCS, LLC/SNAP), at `rate`; its ACK is
//! `ack_bytes` at `basic_rate`. After a collision every member defers EIFS (SIFS + ACK + DIFS,
//! 9.3.2.3.7) from the end of the longest colliding frame, which is also when the colliders' ACK
//! timeouts expire: so a collision occupies the medium as long as a success of the same frame,
//! as in Bianchi's model of basic access with EIFS.
//!
//! **Deliberate deviations** (`docs/models/wlan.md`): no PHY errors, capture, hidden terminals,
//! RTS/CTS, fragmentation, rate adaptation, beacons or management frames; propagation takes no
//! time on the air (a link's `delay` is added after the frame, as ns-2's link-layer delay); a
//! frame that comes within DIFS of the end of a busy period draws a backoff.
//!
//! **Exact and event-driven.** The members' counters count slots from `countdown_from` (the end
//! of the last busy period plus DIFS), so the only event is the next slot boundary where some
//! member's counter expires (`next_decision`); whether that is a success or a collision is known
//! then, since every member due at that instant is decided together (`decide`). When a
//! transmission starts, the counters of the others lose the slots that elapsed (they froze).

use crate::metrics::Counters;
use crate::packet::PacketId;
use crate::rng::Rng;
use crate::sched::TimerSlot;
pub use crate::topo::wlan::DcfConfig;
use crate::units::{Dur, Rate, Time};

/// The durations a medium's exchanges take, from its `DcfConfig`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Timing {
    pub slot: Dur,
    pub sifs: Dur,
    /// SIFS + 2 slots.
    pub difs: Dur,
    /// An ACK frame at the basic rate.
    pub ack: Dur,
    preamble: Dur,
    extension: Dur,
    /// Data bits per OFDM symbol at the data rate.
    n_dbps: u64,
    overhead: u32,
}

/// Length of an OFDM symbol.
const SYMBOL: Dur = Dur::from_us(4);

impl Timing {
    pub fn of(cfg: &DcfConfig) -> Timing {
        let n_dbps = |r: Rate| (r.bps() / 250_000).max(1);
        let mut t = Timing {
            slot: cfg.slot,
            sifs: cfg.sifs,
            difs: cfg.sifs + cfg.slot + cfg.slot,
            ack: Dur::ZERO,
            preamble: cfg.preamble,
            extension: cfg.signal_extension,
            n_dbps: n_dbps(cfg.rate),
            overhead: cfg.mac_overhead,
        };
        t.ack = t.txtime(cfg.ack_bytes, n_dbps(cfg.basic_rate));
        t
    }

    /// TXTIME of a PSDU of `bytes` at `n_dbps` data bits per symbol (802.11-2012 19.8.3.2):
    /// preamble and SIGNAL, the symbols of SERVICE (16 bits), the PSDU and the tail (6 bits),
    /// then the signal extension.
    fn txtime(&self, bytes: u32, n_dbps: u64) -> Dur {
        let symbols = (16 + 8 * bytes as u64 + 6).div_ceil(n_dbps);
        self.preamble + Dur::from_ns(symbols * SYMBOL.ns()) + self.extension
    }

    /// The data frame carrying a packet of `bytes` (its MAC overhead added).
    pub fn data(&self, bytes: u32) -> Dur {
        self.txtime(bytes + self.overhead, self.n_dbps)
    }

    /// A successful exchange: DATA + SIFS + ACK.
    pub fn exchange(&self, bytes: u32) -> Dur {
        self.data(bytes) + self.sifs + self.ack
    }
}

crate::counters! {
    /// What one member of a wireless LAN did on the medium.
    pub struct DcfCounters {
        /// Frames delivered (acknowledged).
        frames: "pkts",
        /// Transmission attempts (first attempts and retries).
        attempts: "pkts",
        /// Attempts that collided.
        collisions: "pkts",
        /// Retransmissions: attempts after a collision of the same frame.
        retries: "pkts",
        /// Frames dropped after retry_limit failed attempts.
        retry_drops: "pkts",
        /// Time the medium carried this member's frames, ns: its successful exchanges (DATA + SIFS + ACK) and its collided frames.
        airtime_ns: "ns",
    }
}

/// A frame the MAC holds: its packet, the link it leaves by, its size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    pub id: PacketId,
    pub link: u32,
    pub bytes: u32,
}

/// A member's backoff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Backoff {
    /// None pending: a frame that comes while the medium is idle for DIFS goes at once.
    Idle,
    /// Idle slots still to count from the medium's `countdown_from` (frozen while it is busy).
    Slots(u32),
    /// A frame came with the medium idle for DIFS: it goes at this instant.
    Now(Time),
}

/// A transmitter of the medium: the access point's downlink or one station's uplink.
#[derive(Debug)]
pub struct Member {
    /// Its node (the access point, or the station).
    pub node: u32,
    /// The links it sends on, each with its queue (the access point: one per station, served
    /// in turn; a station: its uplink).
    pub links: Vec<u32>,
    /// The link served next.
    next_link: usize,
    /// The frame it holds between attempts (taken from a queue at its first attempt).
    frame: Option<Frame>,
    backoff: Backoff,
    /// The contention window, slots.
    cw: u32,
    /// Failed attempts of the frame it holds.
    failures: u32,
    /// It has, or may have, a frame: its queues were not empty when last seen.
    ready: bool,
    pub counters: DcfCounters,
    at_warmup: DcfCounters,
}

impl Member {
    /// Its `k`-th link in turn from the one after the last served: (position, link).
    pub fn link_in_turn(&self, k: usize) -> (usize, u32) {
        let i = (self.next_link + k) % self.links.len();
        (i, self.links[i])
    }

    /// The next frame comes from link `i` of `links`: serve the one after it next.
    pub fn served(&mut self, i: usize) {
        self.next_link = (i + 1) % self.links.len();
    }

    /// Its contention window now.
    pub fn cw(&self) -> u32 {
        self.cw
    }

    /// Its backoff counter, if one is pending (slots from the medium's next countdown start).
    pub fn backoff_slots(&self) -> Option<u32> {
        match self.backoff {
            Backoff::Slots(k) => Some(k),
            _ => None,
        }
    }

    /// Counters over the measurement window.
    pub fn measured(&self) -> DcfCounters {
        self.counters.minus(&self.at_warmup)
    }
}

/// What `decide` started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Nothing: the members due had no frame after all.
    Nothing,
    /// Member `member` sends `frame`; the receiver has it at `data_end`, the ACK ends at `end`.
    Success { member: usize, frame: Frame, data_end: Time, end: Time },
    /// Two or more members collided; frames that reached the retry limit are in `dropped`.
    Collision,
}

/// A shared medium and its members (module docs).
#[derive(Debug)]
pub struct Wlan {
    /// Its name in the result tables (the access point's node name).
    pub name: String,
    pub timing: Timing,
    cw_min: u32,
    cw_max: u32,
    retry_limit: u32,
    pub members: Vec<Member>,
    /// End of the last busy period plus DIFS (after a collision, EIFS): backoff counters count
    /// idle slots from here.
    countdown_from: Time,
    rng: Rng,
    /// Its one scheduler entry (`Event::Medium`): the next decision.
    pub timer: TimerSlot,
    /// Frames the last `decide` dropped at the retry limit (the engine discards them).
    pub dropped: Vec<Frame>,
    /// Scratch: the members due at a decision.
    due: Vec<usize>,
}

impl Wlan {
    /// A medium named `name` whose members are `(node, links)`, the access point first.
    pub fn new(name: String, cfg: &DcfConfig, members: Vec<(u32, Vec<u32>)>, rng: Rng) -> Wlan {
        Wlan {
            name,
            timing: Timing::of(cfg),
            cw_min: cfg.cw_min,
            cw_max: cfg.cw_max,
            retry_limit: cfg.retry_limit,
            members: members
                .into_iter()
                .map(|(node, links)| Member {
                    node,
                    links,
                    next_link: 0,
                    frame: None,
                    backoff: Backoff::Idle,
                    cw: cfg.cw_min,
                    failures: 0,
                    ready: false,
                    counters: DcfCounters::default(),
                    at_warmup: DcfCounters::default(),
                })
                .collect(),
            countdown_from: Time::ZERO,
            rng,
            timer: TimerSlot::IDLE,
            dropped: Vec::new(),
            due: Vec::new(),
        }
    }

    /// A uniform backoff in [0, cw] slots (9.3.3).
    fn draw(&mut self, cw: u32) -> Backoff {
        Backoff::Slots(self.rng.range_inclusive(0, cw as u64) as u32)
    }

    /// The slot boundary at which a counter of `k` slots expires, if the medium stays idle.
    fn expiry(&self, k: u32) -> Time {
        self.countdown_from + Dur::from_ns(self.timing.slot.ns() * k as u64)
    }

    /// Member `m` has a frame to send at `now` (a packet entered one of its queues). With no
    /// backoff pending (or one that expired while it had nothing to send), it transmits at once if
    /// the medium has been idle for DIFS, else it draws a backoff (9.3.4.2).
    pub fn on_frame_ready(&mut self, now: Time, m: usize) {
        let mb = &self.members[m];
        if mb.ready {
            return;
        }
        let expired = match mb.backoff {
            Backoff::Idle => true,
            Backoff::Slots(k) => self.expiry(k) <= now,
            Backoff::Now(_) => false,
        };
        let backoff = match expired {
            false => mb.backoff,
            true if now >= self.countdown_from => Backoff::Now(now),
            true => self.draw(self.members[m].cw),
        };
        let mb = &mut self.members[m];
        mb.ready = true;
        mb.backoff = backoff;
    }

    /// After a transmission of member `m`: whether its queues still hold packets (the engine
    /// looks), so that it contends with its next backoff.
    pub fn set_ready(&mut self, m: usize, ready: bool) {
        self.members[m].ready = ready || self.members[m].frame.is_some();
    }

    /// When the next decision is due: the earliest instant a member with something to send
    /// transmits if nothing else happens first (NEVER: none).
    pub fn next_decision(&self) -> Time {
        let mut next = Time::NEVER;
        for m in self.members.iter().filter(|m| m.ready) {
            let t = match m.backoff {
                Backoff::Idle => continue,
                Backoff::Slots(k) => self.expiry(k),
                Backoff::Now(t) => t,
            };
            next = next.min(t);
        }
        next
    }

    /// The decision at `now` (a `next_decision`): every member whose counter expires now (or
    /// that has a frame to send at once) transmits; `take(medium, m)` gives member `m`'s next
    /// frame from its queues (the held one is kept here). One frame: a success; more: a
    /// collision. The other members' counters freeze for the busy period.
    pub fn decide(&mut self, now: Time, mut take: impl FnMut(&mut Member) -> Option<Frame>) -> Outcome {
        let slot = self.timing.slot.ns();
        let elapsed = if now >= self.countdown_from { (now - self.countdown_from).ns() / slot } else { 0 };
        self.due.clear();
        for (i, m) in self.members.iter_mut().enumerate() {
            let due = match m.backoff {
                Backoff::Idle => false,
                Backoff::Now(t) => t <= now,
                Backoff::Slots(k) => {
                    let expired = k as u64 <= elapsed;
                    if expired && !m.ready {
                        m.backoff = Backoff::Idle; // the post-backoff ended with nothing to send
                    }
                    expired && m.ready
                }
            };
            if !due {
                continue;
            }
            if m.frame.is_none() {
                m.frame = take(m);
            }
            if m.frame.is_none() {
                (m.ready, m.backoff) = (false, Backoff::Idle);
                continue;
            }
            self.due.push(i);
        }
        if self.due.is_empty() {
            return Outcome::Nothing;
        }
        // a transmission starts: the others' counters keep what they counted, whole idle slots
        for (i, m) in self.members.iter_mut().enumerate() {
            if let Backoff::Slots(k) = m.backoff {
                if !self.due.contains(&i) {
                    let left = (k as u64).saturating_sub(elapsed) as u32;
                    m.backoff = if left == 0 && !m.ready { Backoff::Idle } else { Backoff::Slots(left) };
                }
            }
        }
        let t = self.timing;
        if let [m] = self.due[..] {
            let frame = self.members[m].frame.take().expect("a frame to send");
            let data_end = now + t.data(frame.bytes);
            let end = data_end + t.sifs + t.ack;
            self.countdown_from = end + t.difs;
            let cw_min = self.cw_min;
            let backoff = self.draw(cw_min); // the post-backoff
            let mb = &mut self.members[m];
            mb.counters.frames += 1;
            mb.counters.attempts += 1;
            mb.counters.airtime_ns += (end - now).ns();
            (mb.cw, mb.failures, mb.backoff) = (cw_min, 0, backoff);
            return Outcome::Success { member: m, frame, data_end, end };
        }
        let longest = self.due.iter().map(|&m| t.data(self.members[m].frame.expect("a frame").bytes)).max().expect("colliders");
        self.countdown_from = now + longest + t.sifs + t.ack + t.difs; // EIFS after the longest
        for k in 0..self.due.len() {
            let m = self.due[k];
            let mb = &mut self.members[m];
            let frame = mb.frame.expect("a frame");
            mb.counters.attempts += 1;
            mb.counters.collisions += 1;
            mb.counters.airtime_ns += t.data(frame.bytes).ns();
            mb.failures += 1;
            if mb.failures >= self.retry_limit {
                mb.counters.retry_drops += 1;
                (mb.frame, mb.failures, mb.cw) = (None, 0, self.cw_min);
                self.dropped.push(frame);
            } else {
                mb.counters.retries += 1;
                mb.cw = (2 * mb.cw + 1).min(self.cw_max);
            }
            let cw = self.members[m].cw;
            self.members[m].backoff = self.draw(cw);
        }
        Outcome::Collision
    }

    /// Start the measurement window.
    pub fn start_measurement(&mut self) {
        for m in &mut self.members {
            m.at_warmup = m.counters;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::StreamKind;

    fn rng() -> Rng {
        Rng::stream(7, StreamKind::Medium, 0)
    }

    /// A medium of `n` members, each with one link (its index) and an endless queue of
    /// 1500-byte packets.
    fn medium(n: usize, cfg: &DcfConfig) -> Wlan {
        Wlan::new("AP".into(), cfg, (0..n).map(|i| (i as u32, vec![i as u32])).collect(), rng())
    }

    fn endless(m: &mut Member) -> Option<Frame> {
        Some(Frame { id: 0, link: m.links[0], bytes: 1500 })
    }

    #[test]
    fn timing_is_802_11g() {
        let t = Timing::of(&DcfConfig::default());
        assert_eq!(t.difs, Dur::from_us(28));
        // ACK: 16 + 112 + 6 = 134 bits in 24-bit symbols: 6 symbols, 20 + 24 + 6 us
        assert_eq!(t.ack, Dur::from_us(50));
        // 1536 bytes: 16 + 12,288 + 6 = 12,310 bits in 216-bit symbols: 57 symbols, 20 + 228 + 6 us
        assert_eq!(t.data(1500), Dur::from_us(254));
        assert_eq!(t.exchange(1500), Dur::from_us(314));
    }

    #[test]
    fn a_saturated_member_exchanges_after_difs_and_its_drawn_backoff() {
        let cfg = DcfConfig::default();
        let mut w = medium(1, &cfg);
        let mut draws = rng();
        let t = w.timing;
        w.on_frame_ready(Time::ZERO, 0);
        // the medium has been idle forever: the first frame goes at once
        assert_eq!(w.next_decision(), Time::ZERO);
        let mut now = Time::ZERO;
        for _ in 0..1000 {
            assert_eq!(w.next_decision(), now);
            let Outcome::Success { data_end, end, .. } = w.decide(now, endless) else { panic!("one member cannot collide") };
            assert_eq!(data_end, now + t.data(1500));
            assert_eq!(end, data_end + t.sifs + t.ack);
            let k = draws.range_inclusive(0, 15);
            assert!(k <= 15);
            assert_eq!(w.members[0].backoff_slots(), Some(k as u32));
            // DIFS + backoff + T_data + SIFS + T_ack, exactly
            now = end + t.difs + Dur::from_ns(k * t.slot.ns());
        }
        assert_eq!(w.members[0].counters.frames, 1000);
        assert_eq!(w.members[0].counters.collisions, 0);
    }

    #[test]
    fn backoff_draws_cover_0_to_cw_uniformly() {
        let mut w = medium(1, &DcfConfig::default());
        let mut seen = [0u32; 16];
        w.on_frame_ready(Time::ZERO, 0);
        for _ in 0..16_000 {
            let now = w.next_decision();
            w.decide(now, endless);
            seen[w.members[0].backoff_slots().unwrap() as usize] += 1;
        }
        // every value of [0, 15] about 1,000 times (a binomial's sd is 31)
        assert!(seen.iter().all(|&c| (850..1150).contains(&c)), "{seen:?}");
    }

    #[test]
    fn colliders_double_cw_up_to_cw_max_and_drop_at_the_retry_limit() {
        // CW 0 forever: two saturated members always pick the same slot
        let cfg = DcfConfig { cw_min: 0, cw_max: 0, ..DcfConfig::default() };
        let mut w = medium(2, &cfg);
        let t = w.timing;
        w.on_frame_ready(Time::ZERO, 0);
        w.on_frame_ready(Time::ZERO, 1);
        let mut now = Time::ZERO;
        for attempt in 1..=14 {
            assert_eq!(w.next_decision(), now);
            assert_eq!(w.decide(now, endless), Outcome::Collision);
            // every 7th attempt drops the frame of each member
            assert_eq!(w.dropped.len(), if attempt % 7 == 0 { 2 } else { 0 }, "attempt {attempt}");
            w.dropped.clear();
            // EIFS after the longest frame, then slot 0
            now = now + t.data(1500) + t.sifs + t.ack + t.difs;
        }
        for m in &w.members {
            assert_eq!((m.counters.attempts, m.counters.collisions, m.counters.retries, m.counters.retry_drops), (14, 14, 12, 2));
            assert_eq!(m.counters.airtime_ns, 14 * t.data(1500).ns());
        }
        // CW doubles from CWmin to CWmax, and back to CWmin after a drop or a success
        let cfg = DcfConfig { cw_min: 0, cw_max: 7, ..DcfConfig::default() };
        let mut w = medium(2, &cfg);
        w.on_frame_ready(Time::ZERO, 0);
        w.on_frame_ready(Time::ZERO, 1);
        let mut cws = Vec::new();
        loop {
            let now = w.next_decision();
            match w.decide(now, endless) {
                Outcome::Collision => cws.push(w.members[0].cw()),
                Outcome::Success { member, .. } => {
                    assert_eq!(w.members[member].cw(), 0);
                    break;
                }
                Outcome::Nothing => unreachable!(),
            }
        }
        assert_eq!(cws[..], [1, 3, 7, 7, 7, 7][..cws.len()]);
    }

    #[test]
    fn a_counter_freezes_while_the_medium_is_busy() {
        let cfg = DcfConfig::default();
        let mut frozen = 0;
        for seed in 0..200 {
            let mut w = Wlan::new("AP".into(), &cfg, vec![(0, vec![0]), (1, vec![1])], Rng::stream(seed, StreamKind::Medium, 0));
            let t = w.timing;
            w.on_frame_ready(Time::ZERO, 0);
            let Outcome::Success { end, .. } = w.decide(Time::ZERO, endless) else { panic!() };
            // member 1's frame comes while member 0 transmits: it draws a backoff
            w.on_frame_ready(Time::from_ns(1000), 1);
            let mut left = w.members[1].backoff_slots().expect("a backoff") as u64;
            let mut countdown = end + t.difs;
            loop {
                let now = w.next_decision();
                let idle = (now - countdown).ns() / t.slot.ns();
                assert_eq!((now - countdown).ns() % t.slot.ns(), 0, "decisions fall on slot boundaries");
                match w.decide(now, endless) {
                    // it sent (or collided) after counting exactly its drawn slots of idle medium
                    Outcome::Success { member: 1, .. } | Outcome::Collision => {
                        assert_eq!(idle, left);
                        break;
                    }
                    Outcome::Success { member: 0, end, .. } => {
                        left -= idle;
                        frozen += 1;
                        assert_eq!(w.members[1].backoff_slots(), Some(left as u32), "frozen at what it had left");
                        countdown = end + t.difs;
                    }
                    Outcome::Success { .. } | Outcome::Nothing => unreachable!(),
                }
            }
        }
        assert!(frozen > 100, "member 0 went first {frozen} times");
    }

    #[test]
    fn a_frame_after_the_post_backoff_goes_at_once_when_the_medium_is_idle() {
        let mut w = medium(1, &DcfConfig::default());
        w.on_frame_ready(Time::ZERO, 0);
        let mut one = |m: &mut Member| Some(Frame { id: 1, link: m.links[0], bytes: 100 });
        w.decide(Time::ZERO, &mut one);
        w.set_ready(0, false);
        // nothing to send: no decision is due, the post-backoff expires silently
        assert_eq!(w.next_decision(), Time::NEVER);
        let later = Time::from_ms(5);
        w.on_frame_ready(later, 0);
        assert_eq!(w.next_decision(), later);
        assert!(matches!(w.decide(later, &mut one), Outcome::Success { .. }));
    }

    #[test]
    fn config_checks_name_the_field() {
        let bad = DcfConfig { rate: Rate::from_bps(54_100_000), cw_min: 16, cw_max: 7, ..DcfConfig::default() };
        let msgs: Vec<String> = crate::params::Params::validate(&bad).iter().map(|p| p.to_string()).collect();
        assert!(msgs.iter().any(|m| m.starts_with("rate: must be a multiple of 250 kb/s")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.starts_with("cw_min: CW + 1 must be a power of two")), "{msgs:?}");
        assert!(msgs.iter().any(|m| m.starts_with("cw_max: must be >= cw_min")), "{msgs:?}");
    }
}
