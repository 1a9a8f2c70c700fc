//! The simulation engine: owns the scheduler, the packet arena, the links and the flows, and
//! runs the event loop. Results are assembled afterwards by `report`.
//!
//! Event handling is a `match` over `sched::Event`; endpoints produce packets into a scratch
//! vector that the engine routes after each call, and queue disciplines report the queued packets
//! they discard into another, so the loop allocates nothing per packet. Per-flow packet
//! accounting (sent / delivered / dropped) feeds the conservation check at the end of every run.

use crate::error::Error;
pub use crate::flow::{Endpoints, Flow, FlowState, PktAccount, Route, Summary};
use crate::packet::{PacketArena, PacketId, PktKind, SackBlock, MAX_SACK_BLOCKS};
use crate::tcp::receiver::Segment;
use crate::net::{Topology, TxStart};
use crate::net::link::{LostOnWire, Quiet, Slot};
use crate::rng::{Rng, StreamKind};
use crate::sched::{Event, Scheduler, TimerSlot};
use crate::spec::{ScenarioSpec, StartSpec};
use crate::tcp::sender::{AckInfo, SenderCounters};
use crate::packet::TxCtx;
use crate::metrics::LogHistogram;
use crate::packet::Ecn;
use crate::traffic::cbr::{CbrRecvCounters, CbrSentCounters, CbrSource};
use crate::units::{Dur, Time};
use std::collections::HashSet;
use std::sync::Arc;

pub use crate::net::link::CoreCounters;

mod late;
mod medium;

crate::counters! {
    /// What the flow met at its bottleneck (the lock-out indicators): its data at the
    /// bottleneck of its data path (the slowest link between two routers: A->B for a forward
    /// flow of a dumbbell, B->A for a reverse one), and its ACKs at the bottleneck of their path.
    pub struct BottleneckCounters {
        /// Packets from this flow's sender (data, and the handshake's SYN and ACK) arriving at the queue of its bottleneck (the `bottleneck` link: in a dumbbell A->B for a forward flow, B->A for a reverse flow).
        bottleneck_arrivals: "pkts",
        /// Of those, dropped by the discipline, on arrival (full, or an early AQM drop) or later from the queue (e.g. CoDel's head drops).
        bottleneck_drops: "pkts",
        /// Of those, CE-marked by the discipline.
        bottleneck_marks: "pkts",
        /// This flow's ACKs (and SYN-ACK) dropped at the queue of the bottleneck of their path (in a dumbbell B->A for a forward flow).
        bottleneck_ack_drops: "pkts",
    }
}

impl BottleneckCounters {
    /// From a flow's counts at its data bottleneck and at its ACKs' bottleneck.
    pub fn of(data: CoreCounters, ack: CoreCounters) -> BottleneckCounters {
        BottleneckCounters { bottleneck_arrivals: data.arrivals, bottleneck_drops: data.drops, bottleneck_marks: data.marks, bottleneck_ack_drops: ack.drops }
    }
}

/// An unresponsive constant-bit-rate flow: its source, what its sink received, and its
/// accounting (engine flow id = number of TCP flows + its index).
pub struct UdpFlow {
    pub name: String,
    pub source: CbrSource,
    /// What the sink received.
    pub recv: CbrRecvCounters,
    /// One-way delay (arrival - departure) of datagrams received in the window, ns.
    pub owd: LogHistogram,
    pub data: PktAccount,
    /// Its path.
    pub route: Route,
    timer: TimerSlot,
    /// Counters at the start of the measurement window (the last: datagrams dropped so far).
    pub at_warmup: (CbrSentCounters, CbrRecvCounters, u64),
}

/// What captures packets (`report::pcap`): the loop hands it every packet a link with a
/// capture file starts sending (`Link::capture_tx`) or delivers (`Link::capture_rx`), with
/// the hops it has travelled.
pub trait PacketTap {
    fn packet(&mut self, now: Time, file: u16, p: &crate::packet::Packet, sack: &[crate::packet::SackBlock], hops: u32);
    /// The capture files.
    fn finish(self: Box<Self>) -> Vec<crate::result::CaptureFile>;
}

/// What records the time series: the loop calls it at every `Sample` event (every
/// `sample_interval`), with the links and the flows as they are at that instant
/// (`report::trace::Traces`; `()` records nothing).
pub trait Recorder {
    fn sample(&mut self, now: Time, topo: &mut Topology, flows: &[Flow]);
    /// Every `goodput_interval`: the flows as they are at its end.
    fn goodput(&mut self, _now: Time, _flows: &[Flow]) {}
}

impl Recorder for () {
    fn sample(&mut self, _: Time, _: &mut Topology, _: &[Flow]) {}
}

pub struct Sim {
    spec: ScenarioSpec,
    sched: Scheduler,
    pub(crate) arena: PacketArena,
    pub topo: Topology,
    pub flows: Vec<Flow>,
    pub udp: Vec<UdpFlow>,
    /// Scratch: packets produced by an endpoint call.
    out: Vec<PacketId>,
    /// Scratch: queued packets discarded by a queue discipline call.
    dropped: Vec<PacketId>,
    /// Every flow's path, direction after direction (`Route`): each slot's link, what that
    /// flow and direction met there (the counts plus `hops_before` add up to the queue's at
    /// every link), and whether the next slot's link is decided ahead (`net::link::Slot`).
    pub slots: Vec<Slot>,
    /// The routers that take their arrivals late (`sim::late`).
    late: Vec<late::LateRouter>,
    /// Their pipes, router by router, and each one's head (`sim::late::Head`).
    late_feeders: Vec<u32>,
    late_heads: Vec<late::Head>,
    /// Counts the pipes' heads as they become heads (`late::Head`).
    late_order: u64,
    /// With `tie_break = "random"`: the draws that rank a late router's arrivals of one instant
    /// (`late::Head`), a stream of their own (the heap's draws stay the heap's).
    late_random: Option<Rng>,
    /// Some eager link has kept a packet to discard (`wake_to_discard`): `settle_links` then
    /// looks for those due.
    kept_discards: bool,
    /// Per link: the sum of its slots' counts before the measurement window (what zeroing
    /// the slots' counts took away; the invariants add it back). One entry per link, not per slot: at
    /// 90,000 flows a copy of the counts was 13 MB.
    hops_before: Vec<CoreCounters>,
    /// The packet capture, if any (`set_tap`).
    tap: Option<Box<dyn PacketTap>>,
    /// Per TCP flow, the next byte milestone its receiver's in-order bytes will pass
    /// (`FlowSpec::milestones`; `u64::MAX`: none asked); empty when no flow asks.
    next_milestone: Vec<u64>,
    /// The milestones passed: (flow, bytes, when), in the order they were passed.
    pub milestones: Vec<(u32, u64, Time)>,
    /// Flows started and not ended, now and at most.
    live: u32,
    /// One copy of each distinct sender's and receiver's settings, shared by the live flows
    /// that have them.
    settings: (HashSet<Arc<crate::tcp::sender::Settings>>, HashSet<Arc<crate::tcp::receiver::Settings>>),
    peak_live: u32,
    end: Time,
    warmup: Time,
}

impl Sim {
    /// Build a simulation from a validated spec.
    pub fn new(spec: ScenarioSpec) -> Result<Sim, Error> {
        let invalid = |p: Vec<crate::params::Problem>| Error::Invalid(crate::params::describe_problems("", &p));
        let expand = !spec.arrivals.is_empty() || spec.flows.iter().any(|f| f.on_off.as_ref().is_some_and(|o| o.connection == crate::traffic::onoff::OnOffConnection::New));
        let spec = if !expand {
            spec
        } else {
            match spec.problems() {
                p if !p.is_empty() => return Err(invalid(p)),
                _ => spec.with_on_off_connections().and_then(ScenarioSpec::with_arrivals).map_err(invalid)?,
            }
        };
        let plan = match spec.problems_and_plan() {
            (problems, Some(plan)) if problems.is_empty() => plan,
            (problems, _) => return Err(invalid(problems)),
        };
        let topo = Topology::build(&plan.net.graph, plan.net.dumbbell.clone(), spec.seed);
        let end = Time::ZERO + spec.duration;
        // exactly as long as the paths (a flow's six hops: 24 bytes a flow, not 48 after doubling)
        let mut hop_link = Vec::with_capacity(plan.flows.iter().map(|(_, _, [data, ack])| data.len() + ack.len()).sum());
        let mut route = |path: &[u32]| {
            let r = Route { base: hop_link.len() as u32, len: path.len() as u32, bottleneck: topo.bottleneck(path) as u32 };
            hop_link.extend_from_slice(path);
            r
        };
        let routes: Vec<[Route; 2]> = plan.flows.iter().map(|(_, _, [data, ack])| [route(data), route(ack)]).collect();
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let mut rng = Rng::stream(spec.seed, StreamKind::Flow, i as u64);
            let start = match f.start {
                StartSpec::Fixed { at } => at,
                StartSpec::Uniform { from, to } => Time::from_ns(rng.range_inclusive(from.ns(), to.ns())),
            };
            let (src, dst, _) = plan.flows[i];
            flows.push(Flow {
                id: i as u32,
                src,
                dst,
                start,
                finite: f.size.is_some(),
                ends: f.size.is_some() || f.abort.is_some(),
                state: FlowState::Pending,
                data: PktAccount::default(),
                acks: PktAccount::default(),
                route: routes[i],
                sent_before: 0,
            });
        }
        let n_tcp = flows.len() as u32;
        let udp = spec
            .udp
            .iter()
            .enumerate()
            .map(|(j, u)| {
                let (src, dst, _) = plan.flows[n_tcp as usize + j];
                let ecn = if u.ect1 { Ecn::Ect1 } else if u.ecn { Ecn::Ect0 } else { Ecn::NotEct };
                let source = CbrSource::new(n_tcp + j as u32, src, dst, u.rate, u.packet_size.get() as u32, u.start, u.stop.unwrap_or(Time::NEVER), ecn, u.dscp, u.port);
                UdpFlow {
                    name: u.name.clone(),
                    source,
                    recv: CbrRecvCounters::default(),
                    owd: LogHistogram::new(),
                    data: PktAccount::default(),
                    route: routes[n_tcp as usize + j][0],
                    timer: TimerSlot::IDLE,
                    at_warmup: Default::default(),
                }
            })
            .collect();
        let mut sim = Sim {
            warmup: Time::ZERO + spec.warmup,
            sched: match spec.tie_break {
                crate::spec::TieBreak::Fifo => Scheduler::new(),
                crate::spec::TieBreak::Random => Scheduler::with_random_ties(Rng::stream(spec.seed, StreamKind::Scheduler, 0)),
            },
            spec,
            arena: PacketArena::new(),
            topo,
            flows,
            udp,
            out: Vec::with_capacity(64),
            dropped: Vec::with_capacity(64),
            slots: hop_link.iter().map(|&link| Slot { link, ..Slot::default() }).collect(),
            late: Vec::new(),
            late_feeders: Vec::new(),
            late_heads: Vec::new(),
            late_order: 0,
            late_random: None,
            kept_discards: false,
            hops_before: Vec::new(),
            tap: None,
            next_milestone: Vec::new(),
            milestones: Vec::new(),
            live: 0,
            settings: Default::default(),
            peak_live: 0,
            end,
        };
        if sim.spec.flows.iter().any(|f| f.milestones) {
            sim.next_milestone = sim.spec.flows.iter().map(|f| if f.milestones { crate::spec::FIRST_MILESTONE } else { u64::MAX }).collect();
        }
        sim.sched.flow_timers(sim.flows.len(), !sim.spec.departure_events);
        for i in 0..sim.flows.len() {
            let t = sim.flows[i].start;
            sim.sched.arm_flow(Event::SenderTimer(i as u32), t);
        }
        for j in 0..sim.udp.len() {
            let u = &mut sim.udp[j];
            u.timer.arm(&mut sim.sched, u.source.next_deadline(), Event::SourceTimer(j as u32));
        }
        for l in 0..sim.topo.links.len() {
            sim.arm_qdisc_timer(l);
        }
        // TCP Small Queues: the first links of the flows they hold back report when each of
        // those flows' packets ends its serialization there
        for (f, fs) in sim.flows.iter().zip(&sim.spec.flows) {
            let on = match fs.tcp.tsq() {
                crate::tcp::Tsq::Off => false,
                crate::tcp::Tsq::All => true,
                crate::tcp::Tsq::Paced => crate::cc::Cc::new(&fs.cc, &crate::tcp::sender::Sender::cc_env(&fs.tcp)).paced(),
            };
            if on {
                sim.topo.links[sim.slots[f.route[0].base as usize].link as usize].tsq_first = true;
            }
        }
        if let Some(pcap) = &sim.spec.pcap {
            for (k, (_, points)) in pcap.files(&plan.net.graph).iter().enumerate() {
                for (link, tx) in points {
                    let l = sim.topo.link_index(link).expect("validated");
                    let file = (k + 1) as u16;
                    match tx {
                        true => sim.topo.links[l].capture_tx = file,
                        false => sim.topo.links[l].capture_rx = file,
                    }
                }
            }
        }
        if !sim.spec.departure_events {
            for l in sim.topo.links.iter_mut().filter(|l| l.may_know_departures()) {
                l.make_eager();
            }
            let fused = sim.fused_slots();
            for k in (0..fused.len()).filter(|&k| fused[k]) {
                sim.slots[k - 1].next_fused = true;
                let feeder = &mut sim.topo.links[sim.slots[k - 1].link as usize];
                feeder.feeds_ahead = !(feeder.eager || feeder.decides);
            }
            sim.find_late_routers();
            if sim.spec.tie_break == crate::spec::TieBreak::Random {
                sim.late_random = Some(Rng::stream(sim.spec.seed, StreamKind::Scheduler, 1));
            }
        }
        if sim.spec.warmup > Dur::ZERO {
            sim.sched.schedule(sim.warmup, Event::Warmup);
        }
        if sim.spec.sample_interval > Dur::ZERO {
            sim.sched.schedule(Time::ZERO, Event::Sample);
        }
        if sim.spec.goodput_interval > Dur::ZERO && Time::ZERO + sim.spec.goodput_interval <= sim.end {
            sim.sched.schedule(Time::ZERO + sim.spec.goodput_interval, Event::Goodput);
        }
        Ok(sim)
    }

    /// Capture packets into `tap` at the links whose `capture_tx` / `capture_rx` the spec's
    /// `pcap` set (`Sim::new`).
    pub fn set_tap(&mut self, tap: Box<dyn PacketTap>) {
        self.tap = Some(tap);
    }

    /// The capture files, once the run is over.
    pub fn take_captures(&mut self) -> Vec<crate::result::CaptureFile> {
        self.tap.take().map_or_else(Vec::new, |t| t.finish())
    }

    /// Capture what link `l` just started sending, then go on as `start_tx` does: schedule its
    /// delivery (`first_in_pipe`) or discard it (`lost`).
    #[cold]
    #[inline(never)]
    fn capture_started(&mut self, now: Time, l: usize, id: PacketId, first_in_pipe: Option<Time>, lost: bool) {
        self.capture(now, self.topo.links[l].capture_tx, id);
        if lost {
            self.discard(id);
        } else if let Some(t) = first_in_pipe {
            self.deliver_at(l, t);
        }
    }

    /// Link `l` duplicated a packet (`net::impair`): count the copy against its flow; `Some(t)`:
    /// schedule a `Deliver` at `t`.
    #[cold]
    #[inline(never)]
    fn copied(&mut self, l: usize, first_in_pipe: Option<Time>, copy: PacketId) {
        if let Some(t) = first_in_pipe {
            self.deliver_at(l, t);
        }
        let p = self.arena.get(copy);
        let f = p.flow as usize;
        match p.kind {
            PktKind::Datagram => self.udp[f - self.flows.len()].data.copies += 1,
            k if k.from_sender() => self.flows[f].data.copies += 1,
            _ => self.flows[f].acks.copies += 1,
        }
    }

    /// Hand packet `id` to the tap: into capture file `file` (1-based).
    #[cold]
    #[inline(never)]
    fn capture(&mut self, now: Time, file: u16, id: PacketId) {
        let p = self.arena.get(id);
        let f = p.flow as usize;
        let base = match p.kind {
            PktKind::Datagram => self.udp[f - self.flows.len()].route.base,
            k => self.flows[f].route[!k.from_sender() as usize].base,
        };
        if let Some(tap) = self.tap.as_mut() {
            tap.packet(now, file - 1, p, self.arena.sack(id), p.hop - base);
        }
    }

    /// The links of route `r`, in order.
    pub fn path(&self, r: Route) -> Vec<u32> {
        self.slots[r.slots()].iter().map(|s| s.link).collect()
    }

    /// The (rate, delay) of the links of a path, each at its best (`metrics::fct`).
    fn path_hops(&self, r: Route) -> Vec<crate::metrics::fct::Hop> {
        self.slots[r.slots()].iter().map(|s| self.topo.links[s.link as usize].best_rate_delay()).collect()
    }

    /// The name of TCP flow `i`.
    pub fn flow_name(&self, i: usize) -> &str {
        &self.spec.flows[i].name
    }

    /// What flow `i`'s result row needs: kept when it ended, else taken from its endpoints now
    /// (from endpoints as they would start, for a flow that has not started).
    pub fn summary(&self, i: usize) -> std::borrow::Cow<'_, Summary> {
        let f = &self.flows[i];
        let of = |ep: &Endpoints| {
            let hops = f.route.map(|r| self.path_hops(r));
            Summary::of(ep, [&hops[0], &hops[1]])
        };
        match &f.state {
            FlowState::Ended(s) => std::borrow::Cow::Borrowed(s),
            FlowState::Live(ep) => std::borrow::Cow::Owned(of(ep)),
            FlowState::Pending => std::borrow::Cow::Owned(of(&f.endpoints(&self.spec.flows[i], self.spec.seed, self.end))),
        }
    }

    /// A finite flow's completion time: from its start (its first SYN) to the delivery of its
    /// last byte; `None` if it did not complete (or is a bulk transfer).
    pub fn fct(&self, i: usize, s: &Summary) -> Option<Dur> {
        s.completed_at.map(|t| t.since(self.flows[i].start))
    }

    /// How many flows (TCP and UDP) have each link as the bottleneck of their data path.
    pub fn bottleneck_flows(&self) -> Vec<u64> {
        let mut n = vec![0u64; self.topo.links.len()];
        for r in self.flows.iter().map(|f| f.route[0]).chain(self.udp.iter().map(|u| u.route)) {
            n[self.slots[(r.base + r.bottleneck) as usize].link as usize] += 1;
        }
        n
    }

    /// The link `series_queue` names: `bottleneck` is a dumbbell's A->B, a graph's link most
    /// flows have as their bottleneck (the first of equals); see `Topology::link_index` for the
    /// others.
    pub fn series_link(&self) -> Option<usize> {
        match self.spec.series_queue.as_str() {
            "bottleneck" if self.topo.dumbbell.is_some() => self.topo.link_index("forward"),
            "bottleneck" => {
                let n = self.bottleneck_flows();
                let max = n.iter().copied().max()?;
                n.iter().position(|&c| c == max)
            }
            name => self.topo.link_index(name),
        }
    }

    /// The scenario it runs.
    pub fn spec(&self) -> &ScenarioSpec {
        &self.spec
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    pub fn end(&self) -> Time {
        self.end
    }

    pub fn warmup(&self) -> Time {
        self.warmup
    }

    pub fn events(&self) -> u64 {
        self.sched.executed()
    }

    /// Run until `t` (inclusive) or the end of the scenario, whichever is first, recording no
    /// time series. Stops early, with the reason, when the run reaches `limits.max_events`.
    pub fn run_until(&mut self, t: Time) -> Result<(), Error> {
        self.run_until_checked(t, &mut (), &mut |_| false)
    }

    /// `run_until` with `rec` recording the time series, asking `stop(now)` every
    /// [`CHECK_EVERY`] events whether to give up (a user's interrupt; `now` also serves progress
    /// reports): then it returns `Err(Error::Interrupted)` with the simulation left where it was.
    pub fn run_until_checked(&mut self, t: Time, rec: &mut dyn Recorder, stop: &mut dyn FnMut(Time) -> bool) -> Result<(), Error> {
        let until = t.min(self.end);
        let max_events = self.spec.limits.max_events;
        while let Some((now, ev)) = self.sched.pop_until(until) {
            self.handle(now, ev, rec);
            let executed = self.sched.executed();
            if executed >= max_events {
                self.settle_links(now);
                return Err(Error::Limit(format!(
                    "the run reached limits.max_events = {max_events} at t = {} of {}: raise the limit if this is expected \
                     (a retransmission timer of a few microseconds, or a very long or fast scenario, need many events)",
                    now, self.spec.duration
                )));
            }
            if executed.is_multiple_of(CHECK_EVERY) && stop(now) {
                self.settle_links(now);
                return Err(Error::Interrupted);
            }
        }
        self.sched.advance_to(until);
        self.settle_links(until);
        Ok(())
    }

    /// Run to the end of the scenario, asking `stop` every [`CHECK_EVERY`] events whether to
    /// give up (the Python binding checks for Ctrl-C there, so an interrupt takes effect within
    /// milliseconds); returns the wall time the loop took, seconds.
    pub fn run_to_end(&mut self, rec: &mut dyn Recorder, stop: &mut dyn FnMut(Time) -> bool) -> Result<f64, Error> {
        let wall = std::time::Instant::now();
        self.run_until_checked(self.end, rec, stop)?;
        Ok(wall.elapsed().as_secs_f64())
    }

    #[inline]
    fn handle(&mut self, now: Time, ev: Event, rec: &mut dyn Recorder) {
        match ev {
            Event::TxDone(l) => {
                let link = &self.topo.links[l as usize];
                if link.quiet && link.late_from {
                    // the arrivals due by now that a router taking them late still holds join
                    // the packets the discipline holds (the `TxDone` still pending) first
                    self.take_all_late(now);
                }
                self.topo.links[l as usize].tx_done_pending = false;
                self.start_tx(now, l as usize);
            }
            Event::Deliver(l) => {
                let link = &mut self.topo.links[l as usize];
                if link.eager && !link.late_from {
                    // the accounting due by now, in batches (for a link fed ahead, the one
                    // place it is settled between samples: its rings stay short)
                    link.settle_some(now, &mut self.slots);
                }
                let Some((id, next)) = link.deliver(now) else { return };
                let (node, capture) = (link.to, link.capture_rx);
                if let Some(t) = next {
                    self.sched.schedule(t, Event::Deliver(l));
                }
                if capture != 0 {
                    self.capture(now, capture, id);
                }
                self.arrive(now, node, id);
            }
            Event::SenderTimer(f) => {
                let fl = &mut self.flows[f as usize];
                if self.sched.fire_flow(Event::SenderTimer(f), now) {
                    match fl.state {
                        FlowState::Live(_) => {}
                        FlowState::Pending => self.start_flow(f as usize),
                        FlowState::Ended(_) => return, // an entry from before it ended
                    }
                    let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
                    self.flows[f as usize].live().sender.on_timer(&mut ctx);
                    self.after_sender(now, f as usize);
                }
            }
            Event::ReceiverTimer(f) => {
                let fl = &mut self.flows[f as usize];
                if self.sched.fire_flow(Event::ReceiverTimer(f), now) && matches!(fl.state, FlowState::Live(_)) {
                    let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
                    fl.live().receiver.on_timer(&mut ctx);
                    self.after_receiver(now, f as usize);
                }
            }
            Event::QdiscTimer(l) => self.on_qdisc_timer(now, l as usize),
            Event::SourceTimer(j) => self.on_source_timer(now, j as usize),
            Event::Medium(w) => self.on_medium(now, w as usize),
            Event::Router(r) => self.on_router(now, r as usize),
            Event::Discard(l) => {
                // (one scheduled later, before a packet due earlier was kept, comes for nothing)
                if now == self.topo.links[l as usize].discard_at {
                    self.discard_due(now, l as usize);
                    self.topo.links[l as usize].discard_at = Time::NEVER;
                    self.wake_to_discard(l as usize);
                }
            }
            Event::Sample => self.on_sample(now, rec),
            Event::Warmup => self.start_measurement(now),
            Event::Goodput => self.on_goodput(now, rec),
        }
    }

    // The events that are not a packet's own, out of the loop's line (the code every packet
    // runs stays together).

    /// Flow `f`'s sender timer fired for its start: its endpoints made, sharing their settings.
    #[cold]
    #[inline(never)]
    fn start_flow(&mut self, f: usize) {
        let fl = &mut self.flows[f];
        let mut ep = Box::new(fl.endpoints(&self.spec.flows[f], self.spec.seed, self.end));
        ep.sender.share_settings(&mut self.settings.0);
        ep.receiver.share_settings(&mut self.settings.1);
        fl.state = FlowState::Live(ep);
        self.live += 1;
        self.peak_live = self.peak_live.max(self.live);
    }

    #[inline(never)]
    fn on_qdisc_timer(&mut self, now: Time, l: usize) {
        if self.topo.links[l].queue.timer.fire(now) {
            let decides = self.topo.links[l].decides;
            if decides {
                // a discipline deciding at arrival: its timer reads the queue as of now, after
                // the arrivals before now that a router taking them late still holds, and
                // those of now whose `Deliver` the events would have scheduled before this
                // timer (`late::Head`): it was scheduled when it last fired
                if self.topo.links[l].late_from {
                    self.take_all_late_before(late::head(now, self.topo.links[l].queue.timer_set, 0));
                }
                self.topo.links[l].settle(now, &mut self.slots);
            }
            self.topo.links[l].queue.on_timer(now, &mut self.arena, &mut self.dropped);
            self.flush_drops(l);
            self.arm_qdisc_timer(l);
            if decides {
                self.topo.links[l].queue.timer_set = now;
                return; // its link sends what it decided at arrival (no held packets)
            }
            // A timer may release packets a non-work-conserving discipline held.
            let link = &self.topo.links[l];
            if !link.tx_done_pending && now >= link.busy_until() {
                self.start_tx(now, l);
            } else if link.wlan.is_some() {
                self.wlan_enqueued(now, l);
            }
        }
    }

    #[inline(never)]
    fn on_source_timer(&mut self, now: Time, j: usize) {
        if self.udp[j].timer.fire(now) {
            let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
            self.udp[j].source.on_timer(&mut ctx);
            let (node, base) = (self.udp[j].source.node, self.udp[j].route.base);
            self.udp[j].data.sent += self.out.len() as u64;
            self.route_out(now, node, base);
            let u = &mut self.udp[j];
            u.timer.arm(&mut self.sched, u.source.next_deadline(), Event::SourceTimer(j as u32));
        }
    }

    #[cold]
    #[inline(never)]
    fn on_goodput(&mut self, now: Time, rec: &mut dyn Recorder) {
        rec.goodput(now, &self.flows);
        let next = now + self.spec.goodput_interval;
        if next <= self.end {
            self.sched.schedule(next, Event::Goodput);
        }
    }

    #[inline(always)]
    fn arm_qdisc_timer(&mut self, l: usize) {
        let q = &mut self.topo.links[l].queue;
        q.timer.arm(&mut self.sched, q.next_timer(), Event::QdiscTimer(l as u32));
    }

    /// The transmitter of link `l` is free at `now`: send the next queued packet, and if more
    /// wait behind it, wake up when its serialization ends.
    #[inline]
    fn start_tx(&mut self, now: Time, l: usize) {
        if self.topo.links[l].quiet {
            return self.start_tx_quiet(now, l);
        }
        let link = &mut self.topo.links[l];
        let started = link.start_tx(now, &mut self.arena, &mut self.dropped);
        // the first link of a flow under TCP Small Queues: its serialization's end wakes the
        // sender it completes for, whose next packet then finds the transmitter free and the
        // packet after this one started; the link's `TxDone` is scheduled before that wake-up
        // (`tsq_started`), so that at their instant it runs first, queue or not (a wireless
        // station's link is the medium's to wake: `net::wlan`)
        let tsq = link.tsq_first && !matches!(started, TxStart::Idle | TxStart::Held);
        let tx_done_first = tsq && link.wlan.is_none();
        if started != TxStart::Idle && (link.backlog() > 0 || tx_done_first) {
            link.tx_done_pending = true;
            self.sched.schedule(link.busy_until(), Event::TxDone(l as u32));
        }
        if tsq {
            self.tsq_started(l);
        }
        match started {
            TxStart::Sent { first_in_pipe } => {
                // the next link decided ahead takes the packet now (a `Deliver` asked for by an
                // empty pipe is then not due: the pipe is empty again); a CE mark the dequeue
                // made counts at this link first
                let ahead = self.topo.links[l].feeds_ahead && {
                    self.flush_drops(l);
                    self.hand_ahead(l)
                };
                if let (false, Some(t)) = (ahead, first_in_pipe) {
                    self.deliver_at(l, t);
                }
            }
            TxStart::Lost(id) => self.discard(id),
            TxStart::Copied { first_in_pipe, copy } => self.copied(l, first_in_pipe, copy),
            TxStart::Captured { id, first_in_pipe, lost } => {
                if let Some(c) = self.topo.links[l].captured_copy.take() {
                    self.copied(l, None, c);
                }
                self.capture_started(now, l, id, first_in_pipe, lost)
            }
            _ => {}
        }
        self.flush_drops(l);
        self.arm_qdisc_timer(l);
    }

    /// A packet reached `node`: hand it to its endpoint or forward it to the next link of its
    /// path.
    #[inline]
    fn arrive(&mut self, now: Time, node: u32, id: PacketId) {
        let p = self.arena.get_mut(id);
        if p.dst != node {
            p.hop += 1;
            let (h, size) = (p.hop as usize, p.size_bytes);
            self.forward_at(now, node, id, h, size);
            return;
        }
        let f = p.flow as usize;
        if p.kind == PktKind::Datagram {
            return self.datagram_arrived(now, id);
        }
        // what the endpoint reads is copied out, and the slot freed (the endpoint may reuse it)
        let kind = p.kind;
        if kind.from_sender() {
            let seg = Segment::from(&*p);
            self.arena.free(id);
            let fl = &mut self.flows[f];
            fl.data.delivered += 1;
            let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
            match kind {
                PktKind::Data => fl.live().receiver.on_data(seg, &mut ctx),
                PktKind::Syn => fl.live().receiver.on_syn(seg, &mut ctx),
                PktKind::Rst => fl.live().receiver.on_rst(),
                _ => {} // the handshake's ACK, the ACK of the receiver's FIN: nothing to do
            }
            if !self.next_milestone.is_empty() {
                self.pass_milestones(now, f);
            }
            self.after_receiver(now, f);
        } else {
            let (ack, ece, ace, tsval, tsecr, fin, n) = (p.ack, p.ece, p.ace, p.tsval, p.tsecr, p.fin, p.n_sack as usize);
            let mut blocks = [SackBlock::default(); MAX_SACK_BLOCKS];
            if n > 0 {
                blocks[..n].copy_from_slice(self.arena.sack(id));
            }
            let accecn = self.arena.accecn(id);
            self.arena.free(id);
            let fl = &mut self.flows[f];
            fl.acks.delivered += 1;
            let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
            let info = AckInfo { ack, sack: &blocks[..n], ece, ace, accecn, tsval, tsecr, fin };
            match kind {
                PktKind::SynAck => fl.live().sender.on_synack(info, &mut ctx),
                _ => fl.live().sender.on_ack(info, &mut ctx),
            }
            self.after_sender(now, f);
        }
    }

    /// A datagram of an unresponsive source reached its sink.
    #[inline(never)]
    fn datagram_arrived(&mut self, now: Time, id: PacketId) {
        let p = self.arena.get(id);
        let u = &mut self.udp[p.flow as usize - self.flows.len()];
        u.data.delivered += 1;
        u.recv.delivered_pkts += 1;
        u.recv.delivered_bytes += p.size_bytes as u64;
        u.recv.ce_pkts += (p.ecn == Ecn::Ce) as u64;
        u.owd.record(now.since(p.tsval).ns());
        self.arena.free(id);
    }

    /// Record the byte milestones flow `f`'s receiver passed (`FlowSpec::milestones`): each
    /// 1500 x 10^n bytes in order, at the arrival that brought them (several at once when a
    /// retransmission fills a hole).
    #[inline]
    fn pass_milestones(&mut self, now: Time, f: usize) {
        let next = self.next_milestone[f];
        let FlowState::Live(ep) = &self.flows[f].state else { return };
        let have = ep.receiver.rcv_nxt;
        if have < next {
            return;
        }
        let mut m = next;
        while have >= m {
            self.milestones.push((f as u32, m, now));
            m = m.saturating_mul(10);
        }
        self.next_milestone[f] = m;
    }

    /// Put a packet of `size` bytes on the egress link of `node` its path takes: the link of
    /// its slot `h` (the caller read both from the packet, where it also set the slot).
    #[inline]
    fn forward_at(&mut self, now: Time, node: u32, id: PacketId, h: usize, size: u32) {
        let l = self.slots[h].link as usize;
        debug_assert_eq!(self.topo.links[l].from, node, "a packet left its path");
        let link = &mut self.topo.links[l];
        if link.eager {
            link.settle_fifo(now, &mut self.slots);
            if link.draws() {
                return self.forward_drawn(now, id, h, size);
            }
            let end = link.arrive_eager(now, size);
            let slot = &mut self.slots[h];
            slot.counts.arrivals += 1;
            let Some(end) = end else {
                slot.counts.drops += 1;
                self.discard(id);
                return;
            };
            let at = end.plus(link.delay);
            if slot.next_fused {
                self.arrive_ahead(at, id, h + 1, size);
            } else if let Some(t) = link.into_pipe(at, id, size) {
                self.deliver_at(l, t);
            }
            return;
        }
        if link.quiet {
            return self.forward_quiet(now, id, h, l);
        }
        if link.decides {
            return self.forward_deciding(now, id, h, l);
        }
        self.forward_queued(now, id, h, l);
    }

    /// `forward_at` onto an eager link with a jitter, a random loss or impairments (a FIFO's:
    /// `Link::may_know_departures`), settled to `now` there: as onto one without (`forward_at`
    /// writes that path out), its start after any outage at the rate in force if the link has
    /// outages or a schedule (`Link::arrive_timed`), its loss and its arrival at the far node
    /// drawn when its start is known (`Link::draw`). Out of line: the eager links without either pay one test
    /// (docs/PERFORMANCE.md, part 26: the two paths as one generic function cost those links
    /// 0.8 % more instructions; its last lines as a call of `send_known`, which they repeat,
    /// cost the jittered runs 1.7 %).
    #[cold]
    #[inline(never)]
    fn forward_drawn(&mut self, now: Time, id: PacketId, h: usize, size: u32) {
        let l = self.slots[h].link as usize;
        let link = &mut self.topo.links[l];
        let end = if link.timed() { link.arrive_timed(now, size) } else { link.arrive_eager(now, size) };
        let slot = &mut self.slots[h];
        slot.counts.arrivals += 1;
        let Some(end) = end else {
            slot.counts.drops += 1;
            self.discard(id);
            return;
        };
        self.send_drawn(end, id, h, size);
    }

    /// `forward_at` onto an eager link `l` whose discipline decides at arrival (`Link::decides`):
    /// settled to `now`, the discipline decides, and an accepted packet enters the pipe.
    #[inline(never)]
    fn forward_deciding(&mut self, now: Time, id: PacketId, h: usize, l: usize) {
        let size = self.arena.get(id).size_bytes;
        let link = &mut self.topo.links[l];
        link.settle(now, &mut self.slots);
        let end = link.arrive_deciding(now, id, size, &mut self.arena, &mut self.dropped);
        let c = &mut self.slots[h].counts;
        c.arrivals += 1;
        if link.queue.has_marks() {
            c.marks += link.queue.drain_marks().count() as u64;
        }
        // (its timer is moved by the timer alone: `QueueDisc::DECIDES_AT_ARRIVAL`)
        let Some(end) = end else {
            self.slots[h].counts.drops += 1;
            self.discard(id);
            return;
        };
        debug_assert!(!self.slots[h].next_fused || !self.topo.links[self.slots[h + 1].link as usize].decides);
        let link = &mut self.topo.links[l];
        if link.draws() {
            return self.send_drawn_cold(end, id, h, size);
        }
        let at = end.plus(link.delay);
        if self.slots[h].next_fused {
            self.arrive_ahead(at, id, h + 1, size);
        } else if let Some(t) = link.into_pipe(at, id, size) {
            self.deliver_at(l, t);
        }
    }

    /// `forward_at` onto a link `l` whose discipline is quiet until a time (`Link::quiet`):
    /// settled to `now`, a packet whose departure is known enters the pipe; one the discipline
    /// holds waits for its `TxDone`, or is dequeued now if the transmitter is free.
    #[inline(never)]
    fn forward_quiet(&mut self, now: Time, id: PacketId, h: usize, l: usize) {
        let size = self.arena.get(id).size_bytes;
        let link = &mut self.topo.links[l];
        link.settle(now, &mut self.slots);
        let quiet = link.arrive_quiet(now, id, size, &mut self.arena, &mut self.dropped);
        let (delay, draws) = (link.delay, link.draws());
        let c = &mut self.slots[h].counts;
        c.arrivals += 1;
        match quiet {
            Quiet::Dropped => {
                c.drops += 1;
                self.discard(id);
            }
            Quiet::Known(end) if draws => self.send_drawn_cold(end, id, h, size),
            Quiet::Known(end) => self.send_known(l, id, h, end.plus(delay), size),
            Quiet::Held => {
                let link = &mut self.topo.links[l];
                if !link.tx_done_pending {
                    if now >= link.busy_until() {
                        self.start_tx_quiet(now, l);
                    } else {
                        link.tx_done_pending = true;
                        self.sched.schedule(link.busy_until(), Event::TxDone(l as u32));
                    }
                }
            }
        }
    }

    /// Packet `id` on slot `h` of link `l`, whose arrival at the link's far node at `at` is
    /// known now: into the next link decided ahead, or into the pipe.
    #[inline]
    fn send_known(&mut self, l: usize, id: PacketId, h: usize, at: Time, size: u32) {
        if self.slots[h].next_fused {
            self.arrive_ahead(at, id, h + 1, size);
        } else if let Some(t) = self.topo.links[l].into_pipe(at, id, size) {
            self.deliver_at(l, t);
        }
    }

    /// The transmitter of link `l`, whose discipline is quiet until a time, is free at `now`
    /// and its discipline holds packets: settled to `now`, the discipline dequeues (and may
    /// drop at the head); the packets after it that start no later than the time it is then
    /// quiet until leave it with their departures known; a `TxDone` for the rest.
    #[inline(never)]
    fn start_tx_quiet(&mut self, now: Time, l: usize) {
        let link = &mut self.topo.links[l];
        link.settle(now, &mut self.slots);
        debug_assert_eq!(link.queue.told_pkts(), 0, "a held packet dequeued before a known one");
        match link.start_tx(now, &mut self.arena, &mut self.dropped) {
            TxStart::Sent { first_in_pipe } => {
                self.flush_drops(l);
                if let (false, Some(t)) = (self.hand_ahead(l), first_in_pipe) {
                    self.deliver_at(l, t);
                }
            }
            TxStart::Idle => {}
            // lost on the wire at its start (a random loss, a loss model: `Link::draw` for the
            // packets whose start is known)
            TxStart::Lost(id) => {
                self.topo.links[l].lost_at_start();
                self.discard(id);
            }
            other => unreachable!("a link quiet until a time has no outage, schedule, trace, duplication or capture: {other:?}"),
        }
        self.flush_drops(l);
        let (delay, draws) = (self.topo.links[l].delay, self.topo.links[l].draws());
        while let Some((id, end, size)) = self.topo.links[l].release(now, &mut self.arena, &mut self.dropped) {
            let h = self.arena.get(id).hop as usize;
            if draws {
                self.send_drawn_cold(end, id, h, size);
            } else {
                self.send_known(l, id, h, end.plus(delay), size);
            }
        }
        let link = &mut self.topo.links[l];
        if link.held() > 0 {
            link.tx_done_pending = true;
            self.sched.schedule(link.busy_until(), Event::TxDone(l as u32));
        }
    }

    /// `forward_at` onto an event-driven link `l`: its discipline enqueues the packet (a link
    /// whose discipline decides at arrival, or is quiet until a time, has its own path:
    /// `forward_deciding`, `forward_quiet`).
    #[inline(never)]
    fn forward_queued(&mut self, now: Time, id: PacketId, h: usize, l: usize) {
        debug_assert!(!self.topo.links[l].quiet && !self.topo.links[l].decides, "forward_at sends a packet for a link deciding at arrival, or quiet until a time, on its own path");
        let link = &mut self.topo.links[l];
        let accepted = link.queue.enqueue(id, now, &mut self.arena, &mut self.dropped);
        // Every packet counts against its flow and direction at every link: with the drops and
        // marks counted in `count_discards`, the flows' counts add up to the queue's.
        let c = &mut self.slots[h].counts;
        c.arrivals += 1;
        c.drops += !accepted as u64;
        if !accepted {
            self.discard(id);
        }
        self.flush_drops(l);
        let link = &mut self.topo.links[l];
        if !link.tx_done_pending {
            if now >= link.busy_until() {
                self.start_tx(now, l);
                return;
            } else if link.backlog() > 0 {
                link.tx_done_pending = true;
                self.sched.schedule(link.busy_until(), Event::TxDone(l as u32));
            }
        } else if link.wlan.is_some() {
            self.wlan_enqueued(now, l);
        }
        self.arm_qdisc_timer(l);
    }

    /// Route what a sender produced and re-arm its timer.
    ///
    /// Routing may end the flow: a packet lost or dropped at its first link can be the flow's
    /// last one in the network (`discard` ends it then, having checked that neither endpoint
    /// has a deadline), so the timer is re-armed only if it is still live.
    #[inline]
    fn after_sender(&mut self, now: Time, f: usize) {
        let (node, base) = (self.flows[f].src, self.flows[f].route[0].base);
        self.flows[f].data.sent += self.out.len() as u64;
        self.route_out(now, node, base);
        let fl = &mut self.flows[f];
        if let FlowState::Live(ep) = &fl.state {
            let t = ep.sender.next_deadline();
            self.sched.arm_flow(Event::SenderTimer(f as u32), t);
            self.maybe_end(f);
        }
    }

    /// Route what a receiver produced and re-arm its timer (as `after_sender`: routing may end
    /// the flow).
    #[inline]
    fn after_receiver(&mut self, now: Time, f: usize) {
        let (node, base) = (self.flows[f].dst, self.flows[f].route[1].base);
        self.flows[f].acks.sent += self.out.len() as u64;
        self.route_out(now, node, base);
        let fl = &mut self.flows[f];
        if let FlowState::Live(ep) = &fl.state {
            let t = ep.receiver.next_deadline();
            self.sched.arm_flow(Event::ReceiverTimer(f as u32), t);
            self.maybe_end(f);
        }
    }

    /// End flow `f` if nothing can happen to it any more (`Flow::may_end`): keep its summary,
    /// free its endpoints.
    #[inline]
    fn maybe_end(&mut self, f: usize) {
        if self.flows[f].may_end() {
            self.end_flow(f);
        }
    }

    #[cold]
    #[inline(never)]
    fn end_flow(&mut self, f: usize) {
        let mut s = self.summary(f).into_owned();
        if self.now() < self.warmup {
            s.rtt = Default::default(); // as `start_measurement` clears a live flow's samples
        }
        self.flows[f].state = FlowState::Ended(Box::new(s));
        self.live -= 1;
    }

    /// The most flows live (started, not ended) at once so far: what the memory of the flows'
    /// endpoints follows.
    pub fn peak_live_flows(&self) -> u32 {
        self.peak_live
    }

    /// Forward the packets an endpoint on `node` just produced onto their path, whose first
    /// slot is `base`. The caller counts them as sent first: forwarding may drop one, and a
    /// flow's packets in flight must include the others when `discard` asks whether it may end.
    #[inline]
    fn route_out(&mut self, now: Time, node: u32, base: u32) {
        for k in 0..self.out.len() {
            let id = self.out[k];
            let p = self.arena.get_mut(id);
            p.hop = base;
            let (charged, size) = (p.tsq != 0, p.size_bytes);
            self.forward_at(now, node, id, base as usize, size);
            if charged {
                self.tsq_routed(id, base);
            }
        }
        self.out.clear();
    }

    /// TCP Small Queues: packet `id`, charged to its sender's host queue, was just forwarded
    /// onto its first link (slot `base`). Dropped there, `discard` reported it; on an
    /// event-driven link it is reported when its serialization starts (`tsq_started`: perhaps
    /// already); on an eager link its serialization ends when the link's transmitter is next
    /// free (`Link::arrive_eager` made it so): known now.
    #[inline(never)]
    fn tsq_routed(&mut self, id: PacketId, base: u32) {
        if self.arena.get(id).tsq == 0 {
            return; // reported already (and perhaps freed: reporting cleared it first)
        }
        let link = &self.topo.links[self.slots[base as usize].link as usize];
        if link.eager || link.decides {
            let end = link.busy_until();
            self.tsq_done(id, end);
        }
    }

    /// Count a dropped or lost packet against its flow and free it.
    #[inline]
    fn discard(&mut self, id: PacketId) {
        let p = self.arena.get(id);
        if p.tsq != 0 {
            return self.discard_charged(id);
        }
        if p.kind == PktKind::Datagram {
            self.udp[p.flow as usize - self.flows.len()].data.dropped += 1;
            self.arena.free(id);
            return;
        }
        let f = p.flow as usize;
        let fl = &mut self.flows[f];
        if p.kind.from_sender() {
            fl.data.dropped += 1;
        } else {
            fl.acks.dropped += 1;
        }
        self.arena.free(id);
        self.maybe_end(f);
    }

    /// `discard` for a packet still charged to its sender's host queue (TCP Small Queues):
    /// dropped at its first link, that queue no longer holds it; dropped beyond it (a hop
    /// decided ahead, as `forward_at` hands it on from an eager first link before `route_out`
    /// reports it), it completed there when that link's current serialization ends.
    #[cold]
    #[inline(never)]
    fn discard_charged(&mut self, id: PacketId) {
        let p = self.arena.get(id);
        let base = self.flows[p.flow as usize].route[0].base;
        let at = if p.hop == base { self.sched.now() } else { self.topo.links[self.slots[base as usize].link as usize].busy_until() };
        self.tsq_done(id, at);
        self.discard(id);
    }

    /// TCP Small Queues: packet `id`, data of a flow they hold back, is done at its first link
    /// at `at` (the end of its serialization there, or now when a queue drops it): tell its
    /// sender (Linux `tcp_wfree`), and re-arm the sender's timer if that wakes it earlier.
    #[inline(never)]
    fn tsq_done(&mut self, id: PacketId, at: Time) {
        let now = self.sched.now();
        let p = self.arena.get_mut(id);
        let (f, size) = (p.flow as usize, p.len_bytes + std::mem::take(&mut p.tsq) as u32);
        if let FlowState::Live(ep) = &mut self.flows[f].state {
            if ep.sender.tsq_done(at, size, now) {
                let t = ep.sender.next_deadline();
                self.sched.arm_flow(Event::SenderTimer(f as u32), t);
            }
        }
    }

    /// An event-driven first link of a flow under TCP Small Queues (`Link::tsq_first`) started
    /// serializing a packet: if it is such a flow's, its TX completion is known now.
    #[cold]
    #[inline(never)]
    fn tsq_started(&mut self, l: usize) {
        let (id, end) = self.topo.links[l].started();
        if self.arena.get(id).tsq != 0 {
            self.tsq_done(id, end);
        }
    }

    /// After a call into the queue of link `l`: count the queued packets its discipline
    /// discarded and the packets it CE-marked against their flows, and free the discarded ones.
    /// Most calls neither drop nor mark: two tests.
    #[inline(always)]
    fn flush_drops(&mut self, l: usize) {
        if !self.dropped.is_empty() || self.topo.links[l].queue.has_marks() {
            self.count_discards(l);
        }
    }

    #[inline(never)]
    fn count_discards(&mut self, l: usize) {
        for id in self.topo.links[l].queue.drain_marks() {
            self.slots[self.arena.get(id).hop as usize].counts.marks += 1;
        }
        for &id in &self.dropped {
            self.slots[self.arena.get(id).hop as usize].counts.drops += 1;
        }
        while let Some(id) = self.dropped.pop() {
            self.discard(id);
        }
    }

    /// Whether slot `k`'s link is decided ahead (the slot before says: `Slot::next_fused`; a
    /// route's first slot never is).
    #[inline(always)]
    fn is_fused(&self, k: usize) -> bool {
        k > 0 && self.slots[k - 1].next_fused
    }

    /// An event-driven link `l` that feeds ahead started serializing the packet now last in its
    /// pipe: if that packet's next slot is decided ahead, hand it on (true).
    #[inline(never)]
    fn hand_ahead(&mut self, l: usize) -> bool {
        let Some((at, id)) = self.topo.links[l].pipe_back() else { return false };
        let hop = self.arena.get(id).hop as usize;
        if !self.slots[hop].next_fused {
            return false;
        }
        let next = hop + 1;
        self.topo.links[l].pop_pipe_back();
        let size = self.arena.get(id).size_bytes;
        self.arrive_ahead(at, id, next, size);
        true
    }

    /// The slots whose link takes its packets straight from the pipe of the link before
    /// (`net::link`, hops decided ahead): the link eager, the one before knowing each packet's
    /// arrival when it starts sending it (`Link::may_feed_ahead`: eager, or event-driven without
    /// impairments that reorder or decide later) and delivering without a capture, and no packet
    /// reaching the link any other way (no path starts on it or comes to it from another link).
    fn fused_slots(&self) -> Vec<bool> {
        const NONE: u32 = u32::MAX;
        const MANY: u32 = u32::MAX - 1;
        let links = &self.topo.links;
        let mut feeder = vec![NONE; links.len()];
        let routes = self.flows.iter().flat_map(|f| f.route).chain(self.udp.iter().map(|u| u.route));
        for r in routes.clone() {
            for k in r.slots() {
                let l = self.slots[k].link as usize;
                let from = if k == r.base as usize { MANY } else { self.slots[k - 1].link };
                feeder[l] = match feeder[l] {
                    NONE => from,
                    f if f == from => f,
                    _ => MANY,
                };
            }
        }
        let fusable = |l: usize| {
            let b = feeder[l];
            b < MANY && links[l].eager && !links[l].timed() && links[b as usize].may_feed_ahead()
        };
        let mut fused = vec![false; self.slots.len()];
        for r in routes {
            for k in r.slots().skip(1) {
                fused[k] = fusable(self.slots[k].link as usize);
            }
        }
        fused
    }

    /// Hops decided ahead: packet `id`, which link `l` (slot `slot - 1`) has serialized, arrives
    /// at its far node at `at` and goes on at once to the link of `slot`, and on through every
    /// fused slot after it, into the first pipe it then stays in.
    #[inline(never)]
    fn arrive_ahead(&mut self, mut at: Time, id: PacketId, mut slot: usize, size: u32) {
        loop {
            let Slot { link: l, next_fused, .. } = self.slots[slot];
            let l = l as usize;
            self.arena.get_mut(id).hop = slot as u32;
            let link = &mut self.topo.links[l];
            let Some(arrival) = link.arrive_ahead(at, size, slot as u32) else {
                // refused at its arrival, discarded then (as `forward_queued` discards it)
                if at <= self.sched.now() {
                    return self.discard(id);
                }
                link.keep_refused(at, id);
                return self.wake_to_discard(l);
            };
            if link.draws() {
                return self.send_drawn_ahead(arrival, id, slot, size);
            }
            if next_fused {
                (at, slot) = (arrival, slot + 1);
                continue;
            }
            if let Some(t) = self.topo.links[l].into_pipe(arrival, id, size) {
                self.deliver_at(l, t);
            }
            return;
        }
    }

    /// `send_drawn` for `arrive_ahead`, out of its loop: the packet would arrive at the far
    /// node at `arrival` but for what the link draws.
    #[cold]
    #[inline(never)]
    fn send_drawn_ahead(&mut self, arrival: Time, id: PacketId, slot: usize, size: u32) {
        let end = Time::from_ns(arrival.ns() - self.topo.links[self.slots[slot].link as usize].delay.ns());
        self.send_drawn(end, id, slot, size);
    }

    /// `send_drawn` out of line, for the links whose discipline decides at arrival or is quiet
    /// until a time (`forward_deciding`, `forward_quiet`, `start_tx_quiet`): those without a
    /// jitter or a loss pay one test.
    #[cold]
    #[inline(never)]
    fn send_drawn_cold(&mut self, end: Time, id: PacketId, slot: usize, size: u32) {
        self.send_drawn(end, id, slot, size);
    }

    /// Packet `id`, accepted by the link of `slot` that draws (`Link::draw`), its serialization
    /// ending at `end`: lost on the wire, or on to the far node at the arrival drawn (the next
    /// fused slot's link, else the pipe). The tail of `forward_drawn` and of `arrive_ahead` onto
    /// such a link (`send_drawn_ahead`, out of the loop: the links that do not draw pay one
    /// test there). Inlined in both: a call of its own costs the runs that draw 1.1-1.7 %
    /// (docs/PERFORMANCE.md, part 27).
    #[inline(always)]
    fn send_drawn(&mut self, end: Time, id: PacketId, slot: usize, size: u32) {
        let Slot { link: l, next_fused, .. } = self.slots[slot];
        let l = l as usize;
        let link = &mut self.topo.links[l];
        let arrival = match link.draw(end, id, size) {
            Ok(a) => a,
            Err(lost) => return self.lose_on_wire(l, lost),
        };
        if next_fused {
            self.arrive_ahead(arrival, id, slot + 1, size);
        } else if let Some(t) = link.into_pipe(arrival, id, size) {
            self.deliver_at(l, t);
        }
    }

    /// Bring every eager link's accounting up to `t` (`net::link`), the packets that passed
    /// through counted, after the arrivals due by `t` at the routers that take them late
    /// (`sim::late`): before anything reads the links.
    fn settle_links(&mut self, t: Time) {
        if !self.late.is_empty() {
            self.take_all_late(t);
        }
        for l in self.topo.links.iter_mut().filter(|l| l.eager || l.decides || l.quiet) {
            l.settle_all(t, &mut self.slots);
        }
        if self.kept_discards {
            for l in 0..self.topo.links.len() {
                if self.topo.links[l].next_discard().is_some_and(|s| s <= t) {
                    self.discard_due(t, l);
                }
            }
        }
    }

    /// Eager link `l` lost packet `lost` on the wire (`Link::draw`): discarded at its start,
    /// as `start_tx` discards it, now if it starts by now, else kept until then. (A router that
    /// takes its arrivals late, `sim::late`, forwards them at their past times: a packet it
    /// sends that starts before the engine's time is discarded at once, as that router frees a
    /// packet refused; every count is right when read, as `settle_links` takes those arrivals
    /// first.)
    #[cold]
    #[inline(never)]
    fn lose_on_wire(&mut self, l: usize, lost: LostOnWire) {
        let now = self.sched.now();
        let link = &mut self.topo.links[l];
        if lost.start <= now {
            link.count_lost(lost);
            return self.discard(lost.id);
        }
        link.keep_lost(lost);
        self.wake_to_discard(l);
    }

    /// An `Event::Discard` for eager link `l` at the first packet it keeps to discard, unless
    /// one comes no later (the lost and the refused are each kept in order, but a packet
    /// refused may be due before one lost earlier).
    #[cold]
    #[inline(never)]
    fn wake_to_discard(&mut self, l: usize) {
        self.kept_discards = true;
        let link = &mut self.topo.links[l];
        if let Some(t) = link.next_discard().filter(|&t| t < link.discard_at) {
            link.discard_at = t;
            self.sched.schedule(t, Event::Discard(l as u32));
        }
    }

    /// Eager link `l`'s packets kept to discard that are due by `t`: those lost on the wire
    /// whose serialization starts by `t`, counted, and those its queue refused ahead that
    /// arrive by `t` (the two sets touch nothing in common but their flows' counters).
    #[cold]
    #[inline(never)]
    fn discard_due(&mut self, t: Time, l: usize) {
        while let Some(lost) = self.topo.links[l].lost_by(t) {
            self.topo.links[l].count_lost(lost);
            self.discard(lost.id);
        }
        while let Some(id) = self.topo.links[l].refused_by(t) {
            self.discard(id);
        }
    }

    fn on_sample(&mut self, now: Time, rec: &mut dyn Recorder) {
        self.settle_links(now);
        rec.sample(now, &mut self.topo, &self.flows);
        let next = now + self.spec.sample_interval;
        if next <= self.end && next > now {
            self.sched.schedule(next, Event::Sample);
        }
    }

    fn start_measurement(&mut self, now: Time) {
        self.settle_links(now);
        for l in &mut self.topo.links {
            l.start_measurement(now);
        }
        for w in &mut self.topo.wlans {
            w.start_measurement();
        }
        for fl in &mut self.flows {
            match &mut fl.state {
                FlowState::Pending => {}
                // the counters restart from zero (a copy to subtract was 152 bytes a flow)
                FlowState::Live(ep) => {
                    let c = std::mem::take(&mut ep.sender.counters);
                    fl.sent_before = c.segments_sent + c.control_pkts;
                    ep.receiver.counters = Default::default();
                    ep.sender.rtt_hist.clear();
                }
                FlowState::Ended(s) => {
                    fl.sent_before = s.sender.segments_sent + s.sender.control_pkts;
                    (s.sender, s.receiver) = Default::default();
                    s.rtt = Default::default();
                }
            }
        }
        for u in &mut self.udp {
            u.at_warmup = (u.source.counters, u.recv, u.data.dropped);
            u.owd.clear();
        }
        self.hops_before = self.hops_per_link(vec![CoreCounters::default(); self.topo.links.len()]);
        self.slots.iter_mut().for_each(|s| s.counts = CoreCounters::default());
    }

    /// `sums` (one per link) plus every slot's counts added to its link's.
    fn hops_per_link(&self, mut sums: Vec<CoreCounters>) -> Vec<CoreCounters> {
        for s in &self.slots {
            let (c, sum) = (&s.counts, &mut sums[s.link as usize]);
            (sum.arrivals, sum.drops, sum.marks) = (sum.arrivals + c.arrivals, sum.drops + c.drops, sum.marks + c.marks);
        }
        sums
    }

    /// Queue identities on every link, per-flow packet conservation (sent = delivered +
    /// dropped + in flight, for data and for ACKs), and the flows' counts at each link adding
    /// up to its queue's arrivals, drops and marks.
    pub fn check_invariants(&self) -> Result<(), Error> {
        self.invariants().map_err(Error::Bug)
    }

    fn invariants(&self) -> Result<(), String> {
        for l in &self.topo.links {
            l.queue.check_identities().map_err(|e| format!("queue identity violated on link {}: {e}", l.name))?;
        }
        let mut before = self.hops_before.clone();
        before.resize(self.topo.links.len(), CoreCounters::default());
        let sums = self.hops_per_link(before);
        for (l, sum) in sums.iter().enumerate() {
            let q = self.topo.links[l].queue.counters();
            if (sum.arrivals, sum.drops, sum.marks) != (q.arrivals, q.drops(), q.marks) {
                return Err(format!(
                    "per-flow counts at link {} (arrivals {}, drops {}, marks {}) differ from its queue's (arrivals {}, drops {}, marks {})",
                    self.topo.links[l].name, sum.arrivals, sum.drops, sum.marks, q.arrivals, q.drops(), q.marks
                ));
            }
        }
        let mut in_flight = vec![(0u64, 0u64); self.flows.len() + self.udp.len()];
        let mut charged = vec![0u64; self.flows.len()];
        for p in self.arena.iter_live() {
            let e = &mut in_flight[p.flow as usize];
            if p.kind.from_sender() {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
            if p.tsq != 0 {
                charged[p.flow as usize] += (p.len_bytes + p.tsq as u32) as u64;
            }
        }
        // TCP Small Queues: a sender's charge for segments not yet done at their first link is
        // what the packets still waiting for that carry
        for ((fl, &c), spec) in self.flows.iter().zip(&charged).zip(&self.spec.flows) {
            let unreported = match &fl.state {
                FlowState::Live(ep) => ep.sender.tsq_unreported().unwrap_or(0),
                _ => 0,
            };
            if unreported != c {
                return Err(format!("flow {}: TCP small queues charged {unreported} bytes its first link has not reported, its packets carry {c}", spec.name));
            }
        }
        for ((fl, &(d, a)), spec) in self.flows.iter().zip(&in_flight).zip(&self.spec.flows) {
            for (what, acc, fly) in [("data", fl.data, d), ("ACK", fl.acks, a)] {
                if acc.sent + acc.copies != acc.delivered + acc.dropped + fly {
                    return Err(format!(
                        "conservation violated for flow {} ({what}): sent {} + copies {} != delivered {} + dropped {} + in flight {}",
                        spec.name, acc.sent, acc.copies, acc.delivered, acc.dropped, fly
                    ));
                }
            }
            let counters = match &fl.state {
                FlowState::Pending => SenderCounters::default(),
                FlowState::Live(ep) => {
                    ep.sender.sb.check().map_err(|e| format!("flow {}: {e}", spec.name))?;
                    ep.sender.counters
                }
                FlowState::Ended(s) => s.sender,
            };
            let sent = counters.segments_sent + counters.control_pkts + fl.sent_before;
            if fl.data.sent != sent {
                return Err(format!("flow {}: engine counted {} packets from the sender, the sender {sent}", spec.name, fl.data.sent));
            }
        }
        for i in 0..self.flows.len() {
            let s = self.summary(i);
            if let (Some(fct), Some(ideal)) = (self.fct(i, &s), s.ideal_fct) {
                if fct < ideal {
                    return Err(format!("flow {} completed in {fct}, faster than alone with an unlimited window ({ideal}): slowdown below 1", self.flow_name(i)));
                }
            }
        }
        for (u, &(d, _)) in self.udp.iter().zip(&in_flight[self.flows.len()..]) {
            if u.data.sent + u.data.copies != u.data.delivered + u.data.dropped + d {
                return Err(format!(
                    "conservation violated for UDP flow {}: sent {} != delivered {} + dropped {} + in flight {d}",
                    u.name, u.data.sent, u.data.delivered, u.data.dropped
                ));
            }
            if u.data.sent != u.source.counters.sent_pkts || u.data.delivered != u.recv.delivered_pkts {
                return Err(format!("UDP flow {}: engine and endpoint counts differ", u.name));
            }
        }
        Ok(())
    }
}

/// Events between two interrupt checks of [`Sim::run_to_end`] (tens of milliseconds of wall time).
pub const CHECK_EVERY: u64 = 1 << 16;
/// The message of a run stopped by its `stop` callback (`Error::Interrupted`).
pub const INTERRUPTED: &str = "interrupted";
