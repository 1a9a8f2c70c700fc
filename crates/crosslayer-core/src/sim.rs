//! The simulation engine: owns the scheduler, the packet arena, the links and the flows, and
//! runs the event loop. Results are assembled afterwards by `report`.
//!
//! Event handling is a `match` over `sched::Event`; endpoints produce packets into a scratch
//! vector that the engine routes after each call, and queue disciplines report the queued packets
//! they discard into another, so the loop allocates nothing per packet. Per-flow packet
//! accounting (sent / delivered / dropped) feeds the conservation check at the end of every run.

use crate::cc::{Cc, CcEnv};
use crate::error::Error;
use crate::packet::{PacketArena, PacketId, PktKind};
use crate::net::topology::CORE_LINKS;
use crate::net::{Topology, TxStart};
use crate::rng::{Rng, StreamKind};
use crate::sched::{Event, Scheduler, TimerSlot};
use crate::spec::{ScenarioSpec, StartSpec};
use crate::tcp::receiver::{Receiver, ReceiverCounters};
use crate::tcp::sender::{AckInfo, Sender, SenderCounters};
use crate::packet::TxCtx;
use crate::metrics::LogHistogram;
use crate::packet::Ecn;
use crate::traffic::cbr::{CbrRecvCounters, CbrSentCounters, CbrSource};
use crate::units::{Dur, Time};

/// Packet accounting of one flow in one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PktAccount {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
}

crate::counters! {
    /// What one flow's packets met at the queue of one of the two router links (A->B, B->A),
    /// whatever the discipline did and whenever it did it.
    pub struct CoreCounters {
        /// Packets of the flow offered to the queue.
        arrivals: "pkts",
        /// Of those, dropped by the discipline: on arrival (full, or an early AQM drop) or later from the queue (CoDel's head drops, push-outs, a class's AQM).
        drops: "pkts",
        /// Of those, CE-marked by the discipline (at enqueue or at dequeue).
        marks: "pkts",
    }
}

crate::counters! {
    /// What the flow met at the queue between the routers it crosses (the lock-out indicators):
    /// its data at the bottleneck A -> B for a forward flow (B -> A for a reverse flow), and its
    /// ACKs at the other router link.
    pub struct BottleneckCounters {
        /// Packets from this flow's sender (data, and the handshake's SYN and ACK) arriving at the queue between the routers on its data path: A->B (the bottleneck) for a forward flow, B->A for a reverse flow.
        bottleneck_arrivals: "pkts",
        /// Of those, dropped by the discipline, on arrival (full, or an early AQM drop) or later from the queue (e.g. CoDel's head drops).
        bottleneck_drops: "pkts",
        /// Of those, CE-marked by the discipline.
        bottleneck_marks: "pkts",
        /// This flow's ACKs (and SYN-ACK) dropped at the queue between the routers on its ACK path (B->A for a forward flow).
        bottleneck_ack_drops: "pkts",
    }
}

impl BottleneckCounters {
    /// From a flow's counts at the two router links; `data_link` is the one its data crosses.
    pub fn of(core: &[CoreCounters; CORE_LINKS], data_link: usize) -> BottleneckCounters {
        let (d, a) = (core[data_link], core[1 - data_link]);
        BottleneckCounters { bottleneck_arrivals: d.arrivals, bottleneck_drops: d.drops, bottleneck_marks: d.marks, bottleneck_ack_drops: a.drops }
    }
}

pub struct Flow {
    pub name: String,
    pub sender: Sender,
    pub receiver: Receiver,
    pub data: PktAccount,
    pub acks: PktAccount,
    /// Its packets at the queues of the router links A->B (0) and B->A (1).
    pub core: [CoreCounters; CORE_LINKS],
    tx_timer: TimerSlot,
    rx_timer: TimerSlot,
    /// Counters at the start of the measurement window.
    pub at_warmup: (SenderCounters, ReceiverCounters, [CoreCounters; CORE_LINKS]),
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
    /// Its datagrams at the queues of the router links A->B (0) and B->A (1).
    pub core: [CoreCounters; CORE_LINKS],
    timer: TimerSlot,
    /// Counters at the start of the measurement window (the last: datagrams dropped so far).
    pub at_warmup: (CbrSentCounters, CbrRecvCounters, [CoreCounters; CORE_LINKS], u64),
}

/// What records the time series: the loop calls it at every `Sample` event (every
/// `sample_interval`), with the links and the flows as they are at that instant
/// (`report::trace::Traces`; `()` records nothing).
pub trait Recorder {
    fn sample(&mut self, now: Time, topo: &mut Topology, flows: &[Flow]);
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
    end: Time,
    warmup: Time,
}

impl Sim {
    /// Build a simulation from a validated spec.
    pub fn new(spec: ScenarioSpec) -> Result<Sim, Error> {
        spec.validate().map_err(Error::Invalid)?;
        let topo = Topology::build(&spec.topology, spec.seed);
        let end = Time::ZERO + spec.duration;
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let mut rng = Rng::stream(spec.seed, StreamKind::Flow, i as u64);
            let start = match f.start {
                StartSpec::Fixed { at } => at,
                StartSpec::Uniform { from, to } => Time::from_ns(rng.range_inclusive(from.ns(), to.ns())),
            };
            let stop = f.stop.unwrap_or(Time::NEVER);
            let (src, dst) = topo.endpoints(f.src, f.dst, f.reverse);
            let env = CcEnv { rng_seed: Rng::stream(spec.seed, StreamKind::Flow, i as u64 | 1 << 40).next_u64(), ..Sender::cc_env(&f.tcp) };
            let cc = Cc::new(&f.cc, &env);
            let mut sender = Sender::new(i as u32, src, dst, &f.tcp, cc, start, stop);
            let mut receiver = Receiver::new(i as u32, dst, src, &f.tcp);
            receiver.dctcp_echo = sender.cc.needs_ecn();
            (sender.dscp, sender.port, receiver.dscp, receiver.port) = (f.dscp, f.port, f.dscp, f.port);
            flows.push(Flow {
                name: f.name.clone(),
                sender,
                receiver,
                data: PktAccount::default(),
                acks: PktAccount::default(),
                core: Default::default(),
                tx_timer: TimerSlot::IDLE,
                rx_timer: TimerSlot::IDLE,
                at_warmup: Default::default(),
            });
        }
        let n_tcp = flows.len() as u32;
        let udp = spec
            .udp
            .iter()
            .enumerate()
            .map(|(j, u)| {
                let (src, dst) = topo.endpoints(u.src, u.dst, u.reverse);
                let ecn = if u.ecn { Ecn::Ect0 } else { Ecn::NotEct };
                let source = CbrSource::new(n_tcp + j as u32, src, dst, u.rate, u.packet_size.get() as u32, u.start, u.stop.unwrap_or(Time::NEVER), ecn, u.dscp, u.port);
                UdpFlow {
                    name: u.name.clone(),
                    source,
                    recv: CbrRecvCounters::default(),
                    owd: LogHistogram::new(),
                    data: PktAccount::default(),
                    core: Default::default(),
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
            end,
        };
        for i in 0..sim.flows.len() {
            let t = sim.flows[i].sender.start_at();
            sim.flows[i].tx_timer.arm(&mut sim.sched, t, Event::SenderTimer(i as u32));
        }
        for j in 0..sim.udp.len() {
            let u = &mut sim.udp[j];
            u.timer.arm(&mut sim.sched, u.source.next_deadline(), Event::SourceTimer(j as u32));
        }
        for l in 0..sim.topo.links.len() {
            sim.arm_qdisc_timer(l);
        }
        if sim.spec.warmup > Dur::ZERO {
            sim.sched.schedule(sim.warmup, Event::Warmup);
        }
        if sim.spec.sample_interval > Dur::ZERO {
            sim.sched.schedule(Time::ZERO, Event::Sample);
        }
        Ok(sim)
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
                return Err(Error::Limit(format!(
                    "the run reached limits.max_events = {max_events} at t = {} of {}: raise the limit if this is expected \
                     (a retransmission timer of a few microseconds, or a very long or fast scenario, need many events)",
                    now, self.spec.duration
                )));
            }
            if executed % CHECK_EVERY == 0 && stop(now) {
                return Err(Error::Interrupted);
            }
        }
        self.sched.advance_to(until);
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
                self.topo.links[l as usize].tx_done_pending = false;
                self.start_tx(now, l as usize);
            }
            Event::Deliver(l) => {
                let (id, next) = self.topo.links[l as usize].deliver(now);
                if let Some(t) = next {
                    self.sched.schedule(t, Event::Deliver(l));
                }
                let node = self.topo.links[l as usize].to;
                self.arrive(now, node, id);
            }
            Event::SenderTimer(f) => {
                if self.flows[f as usize].tx_timer.fire(now) {
                    let fl = &mut self.flows[f as usize];
                    let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
                    fl.sender.on_timer(&mut ctx);
                    self.after_sender(now, f as usize);
                }
            }
            Event::ReceiverTimer(f) => {
                if self.flows[f as usize].rx_timer.fire(now) {
                    let fl = &mut self.flows[f as usize];
                    let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
                    fl.receiver.on_timer(&mut ctx);
                    self.after_receiver(now, f as usize);
                }
            }
            Event::QdiscTimer(l) => {
                let l = l as usize;
                if self.topo.links[l].queue.timer.fire(now) {
                    self.topo.links[l].queue.on_timer(now, &mut self.arena, &mut self.dropped);
                    self.flush_drops(l);
                    self.arm_qdisc_timer(l);
                    // A timer may release packets a non-work-conserving discipline held.
                    let link = &self.topo.links[l];
                    if !link.tx_done_pending && now >= link.busy_until() {
                        self.start_tx(now, l);
                    }
                }
            }
            Event::SourceTimer(j) => {
                let j = j as usize;
                if self.udp[j].timer.fire(now) {
                    let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
                    self.udp[j].source.on_timer(&mut ctx);
                    let node = self.udp[j].source.node;
                    self.udp[j].data.sent += self.route_out(now, node);
                    let u = &mut self.udp[j];
                    u.timer.arm(&mut self.sched, u.source.next_deadline(), Event::SourceTimer(j as u32));
                }
            }
            Event::Sample => self.on_sample(now, rec),
            Event::Warmup => self.start_measurement(now),
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
        let link = &mut self.topo.links[l];
        let started = link.start_tx(now, &mut self.arena, &mut self.dropped);
        if started != TxStart::Idle && link.backlog() > 0 {
            link.tx_done_pending = true;
            self.sched.schedule(link.busy_until(), Event::TxDone(l as u32));
        }
        match started {
            TxStart::Sent { first_in_pipe: Some(t) } => self.sched.schedule(t, Event::Deliver(l as u32)),
            TxStart::Lost(id) => self.discard(id),
            _ => {}
        }
        self.flush_drops(l);
        self.arm_qdisc_timer(l);
    }

    /// A packet reached `node`: hand it to its endpoint or forward it.
    #[inline]
    fn arrive(&mut self, now: Time, node: u32, id: PacketId) {
        let p = self.arena.get(id);
        if p.dst != node {
            self.forward(now, node, id);
            return;
        }
        let f = p.flow as usize;
        if p.kind == PktKind::Datagram {
            let u = &mut self.udp[f - self.flows.len()];
            u.data.delivered += 1;
            u.recv.delivered_pkts += 1;
            u.recv.delivered_bytes += p.size_bytes as u64;
            u.recv.ce_pkts += (p.ecn == Ecn::Ce) as u64;
            u.owd.record(now.since(p.tsval).ns());
            self.arena.free(id);
            return;
        }
        let pkt = p.clone();
        self.arena.free(id);
        let fl = &mut self.flows[f];
        let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
        if pkt.kind.from_sender() {
            fl.data.delivered += 1;
            match pkt.kind {
                PktKind::Data => fl.receiver.on_data(&pkt, &mut ctx),
                PktKind::Syn => fl.receiver.on_syn(&pkt, &mut ctx),
                _ => {} // the handshake's ACK: nothing to do
            }
            self.after_receiver(now, f);
        } else {
            fl.acks.delivered += 1;
            let info = AckInfo { ack: pkt.ack, sack: &pkt.sack[..pkt.n_sack as usize], ece: pkt.ece, tsval: pkt.tsval, tsecr: pkt.tsecr };
            match pkt.kind {
                PktKind::SynAck => fl.sender.on_synack(info, &mut ctx),
                _ => fl.sender.on_ack(info, &mut ctx),
            }
            self.after_sender(now, f);
        }
    }

    /// Put a packet on the egress link of `node` towards its destination.
    #[inline]
    fn forward(&mut self, now: Time, node: u32, id: PacketId) {
        let p = self.arena.get(id);
        let (dst, flow, kind) = (p.dst, p.flow as usize, p.kind);
        let l = self.topo.routes[node as usize][dst as usize] as usize;
        debug_assert!(l != u32::MAX as usize, "no route from {node} to {dst}");
        let link = &mut self.topo.links[l];
        let accepted = link.queue.enqueue(id, now, &mut self.arena, &mut self.dropped);
        if l < CORE_LINKS {
            // Every packet at a router link counts against its flow at that link (data of forward
            // flows and ACKs of reverse flows at A->B, the others at B->A): with the drops and
            // marks counted below, the flows' counts add up to the queue's.
            let c = match kind {
                PktKind::Datagram => &mut self.udp[flow - self.flows.len()].core[l],
                _ => &mut self.flows[flow].core[l],
            };
            c.arrivals += 1;
            c.drops += !accepted as u64;
        }
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
        }
        self.arm_qdisc_timer(l);
    }

    /// Route what a sender produced and re-arm its timer.
    #[inline]
    fn after_sender(&mut self, now: Time, f: usize) {
        let node = self.flows[f].sender.node;
        self.flows[f].data.sent += self.route_out(now, node);
        let fl = &mut self.flows[f];
        fl.tx_timer.arm(&mut self.sched, fl.sender.next_deadline(), Event::SenderTimer(f as u32));
    }

    /// Route what a receiver produced and re-arm its timer.
    #[inline]
    fn after_receiver(&mut self, now: Time, f: usize) {
        let node = self.flows[f].receiver.node;
        self.flows[f].acks.sent += self.route_out(now, node);
        let fl = &mut self.flows[f];
        fl.rx_timer.arm(&mut self.sched, fl.receiver.next_deadline(), Event::ReceiverTimer(f as u32));
    }

    /// Forward the packets an endpoint on `node` just produced; returns how many.
    #[inline]
    fn route_out(&mut self, now: Time, node: u32) -> u64 {
        let n = self.out.len();
        for k in 0..n {
            let id = self.out[k];
            self.forward(now, node, id);
        }
        self.out.clear();
        n as u64
    }

    /// Count a dropped or lost packet against its flow and free it.
    #[inline]
    fn discard(&mut self, id: PacketId) {
        let p = self.arena.get(id);
        if p.kind == PktKind::Datagram {
            self.udp[p.flow as usize - self.flows.len()].data.dropped += 1;
            self.arena.free(id);
            return;
        }
        let fl = &mut self.flows[p.flow as usize];
        if p.kind.from_sender() {
            fl.data.dropped += 1;
        } else {
            fl.acks.dropped += 1;
        }
        self.arena.free(id);
    }

    /// After a call into the queue of link `l`: count the queued packets its discipline
    /// discarded and the packets it CE-marked against their flows (at the router links), and
    /// free the discarded ones. Most calls neither drop nor mark: two tests.
    #[inline(always)]
    fn flush_drops(&mut self, l: usize) {
        if !self.dropped.is_empty() || self.topo.links[l].queue.has_marks() {
            self.count_discards(l);
        }
    }

    #[inline(never)]
    fn count_discards(&mut self, l: usize) {
        let n_tcp = self.flows.len();
        let core = l < CORE_LINKS;
        for id in self.topo.links[l].queue.drain_marks() {
            let f = self.arena.get(id).flow as usize;
            match (core, f < n_tcp) {
                (false, _) => {}
                (true, true) => self.flows[f].core[l].marks += 1,
                (true, false) => self.udp[f - n_tcp].core[l].marks += 1,
            }
        }
        if core {
            for &id in &self.dropped {
                let f = self.arena.get(id).flow as usize;
                match f < n_tcp {
                    true => self.flows[f].core[l].drops += 1,
                    false => self.udp[f - n_tcp].core[l].drops += 1,
                }
            }
        }
        while let Some(id) = self.dropped.pop() {
            self.discard(id);
        }
    }

    fn on_sample(&mut self, now: Time, rec: &mut dyn Recorder) {
        rec.sample(now, &mut self.topo, &self.flows);
        let next = now + self.spec.sample_interval;
        if next <= self.end && next > now {
            self.sched.schedule(next, Event::Sample);
        }
    }

    fn start_measurement(&mut self, now: Time) {
        for l in &mut self.topo.links {
            l.start_measurement(now);
        }
        for fl in &mut self.flows {
            fl.at_warmup = (fl.sender.counters, fl.receiver.counters, fl.core);
            fl.sender.rtt_hist.clear();
        }
        for u in &mut self.udp {
            u.at_warmup = (u.source.counters, u.recv, u.core, u.data.dropped);
            u.owd.clear();
        }
    }

    /// Queue identities on every link, per-flow packet conservation (sent = delivered +
    /// dropped + in flight, for data and for ACKs), and the flows' counts at each router link
    /// adding up to its queue's arrivals, drops and marks.
    pub fn check_invariants(&self) -> Result<(), Error> {
        self.invariants().map_err(Error::Bug)
    }

    fn invariants(&self) -> Result<(), String> {
        for l in &self.topo.links {
            l.queue.check_identities().map_err(|e| format!("queue identity violated on link {}: {e}", l.name))?;
        }
        for l in 0..CORE_LINKS {
            let mut sum = CoreCounters::default();
            for c in self.flows.iter().map(|f| &f.core[l]).chain(self.udp.iter().map(|u| &u.core[l])) {
                (sum.arrivals, sum.drops, sum.marks) = (sum.arrivals + c.arrivals, sum.drops + c.drops, sum.marks + c.marks);
            }
            let q = self.topo.links[l].queue.counters();
            if (sum.arrivals, sum.drops, sum.marks) != (q.arrivals, q.drops(), q.marks) {
                return Err(format!(
                    "per-flow counts at link {} (arrivals {}, drops {}, marks {}) differ from its queue's (arrivals {}, drops {}, marks {})",
                    self.topo.links[l].name, sum.arrivals, sum.drops, sum.marks, q.arrivals, q.drops(), q.marks
                ));
            }
        }
        let mut in_flight = vec![(0u64, 0u64); self.flows.len() + self.udp.len()];
        for p in self.arena.iter_live() {
            let e = &mut in_flight[p.flow as usize];
            if p.kind.from_sender() {
                e.0 += 1;
            } else {
                e.1 += 1;
            }
        }
        for (fl, &(d, a)) in self.flows.iter().zip(&in_flight) {
            for (what, acc, fly) in [("data", fl.data, d), ("ACK", fl.acks, a)] {
                if acc.sent != acc.delivered + acc.dropped + fly {
                    return Err(format!(
                        "conservation violated for flow {} ({what}): sent {} != delivered {} + dropped {} + in flight {}",
                        fl.name, acc.sent, acc.delivered, acc.dropped, fly
                    ));
                }
            }
            let sent = fl.sender.counters.segments_sent + fl.sender.counters.control_pkts;
            if fl.data.sent != sent {
                return Err(format!("flow {}: engine counted {} packets from the sender, the sender {sent}", fl.name, fl.data.sent));
            }
            fl.sender.sb.check().map_err(|e| format!("flow {}: {e}", fl.name))?;
        }
        for (u, &(d, _)) in self.udp.iter().zip(&in_flight[self.flows.len()..]) {
            if u.data.sent != u.data.delivered + u.data.dropped + d {
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
