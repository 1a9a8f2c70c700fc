//! The simulation engine: owns the scheduler, the packet arena, the links and the flows, and
//! runs the event loop.
//!
//! Event handling is a `match` over `sched::Event`; endpoints produce packets into a scratch
//! vector that the engine routes after each call, and queue disciplines report drops into another
//! scratch vector, so the loop allocates nothing per packet. Per-flow packet accounting
//! (sent / delivered / dropped) feeds the conservation check at the end of every run.

use crate::aqm::DropReason;
use crate::cc::Cc;
use crate::net::packet::{PacketArena, PacketId, PktKind};
use crate::net::{Link, Topology, TxStart};
use crate::result::{Column, RunResult, Summary, Table};
use crate::rng::{Rng, StreamKind};
use crate::sched::{Event, Scheduler};
use crate::spec::{ScenarioSpec, StartSpec};
use crate::tcp::receiver::{Receiver, ReceiverCounters};
use crate::tcp::sender::{AckInfo, Sender, SenderCounters};
use crate::tcp::TxCtx;
use crate::units::{Dur, Time};

/// Packet accounting of one flow in one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PktAccount {
    pub sent: u64,
    pub delivered: u64,
    pub dropped: u64,
}

/// One scheduler entry per endpoint: `queued` is the earliest pending heap entry (NEVER if none).
/// Moving a deadline later costs nothing; the early entry wakes the endpoint, which re-arms.
#[derive(Clone, Copy, Debug)]
struct TimerSlot {
    queued: Time,
}

impl TimerSlot {
    const IDLE: TimerSlot = TimerSlot { queued: Time::NEVER };

    #[inline]
    fn arm(&mut self, sched: &mut Scheduler, deadline: Time, ev: Event) {
        if deadline < self.queued {
            sched.schedule(deadline, ev);
            self.queued = deadline;
        }
    }

    /// The entry for `t` fired; true if it is the live one.
    #[inline]
    fn fire(&mut self, t: Time) -> bool {
        if t == self.queued {
            self.queued = Time::NEVER;
            true
        } else {
            false
        }
    }
}

pub struct Flow {
    pub name: String,
    pub sender: Sender,
    pub receiver: Receiver,
    pub data: PktAccount,
    pub acks: PktAccount,
    tx_timer: TimerSlot,
    rx_timer: TimerSlot,
    sender_window: SenderCounters,
    receiver_window: ReceiverCounters,
}

pub struct Sim {
    spec: ScenarioSpec,
    sched: Scheduler,
    arena: PacketArena,
    pub topo: Topology,
    pub flows: Vec<Flow>,
    /// Scratch: packets produced by an endpoint call.
    out: Vec<PacketId>,
    /// Scratch: packets discarded by a queue discipline call.
    dropped: Vec<(PacketId, DropReason)>,
    end: Time,
    warmup: Time,
    // queue series of the forward link, and cwnd traces
    series_t: Vec<f64>,
    series_pkts: Vec<u64>,
    series_bytes: Vec<u64>,
    cwnd_t: Vec<f64>,
    cwnd_flow: Vec<String>,
    cwnd_bytes: Vec<u64>,
    cwnd_ssthresh: Vec<u64>,
}

impl Sim {
    /// Build a simulation from a validated spec.
    pub fn new(spec: ScenarioSpec) -> Result<Sim, String> {
        spec.validate()?;
        let topo = Topology::build(&spec.topology, spec.seed);
        let end = Time(spec.duration_ns);
        let mut flows = Vec::with_capacity(spec.flows.len());
        for (i, f) in spec.flows.iter().enumerate() {
            let mut rng = Rng::stream(spec.seed, StreamKind::Flow, i as u64);
            let start = match f.start {
                StartSpec::Fixed { at_ns } => Time(at_ns),
                StartSpec::Uniform { from_ns, to_ns } => Time(rng.range_inclusive(from_ns, to_ns)),
            };
            let stop = f.stop_ns.map_or(Time::NEVER, Time);
            let src = topo.senders[f.src as usize];
            let dst = topo.receivers[f.dst as usize];
            flows.push(Flow {
                name: f.name.clone(),
                sender: Sender::new(i as u32, src, dst, &f.tcp, Cc::new(&f.cc), start, stop),
                receiver: Receiver::new(i as u32, dst, src, &f.tcp),
                data: PktAccount::default(),
                acks: PktAccount::default(),
                tx_timer: TimerSlot::IDLE,
                rx_timer: TimerSlot::IDLE,
                sender_window: SenderCounters::default(),
                receiver_window: ReceiverCounters::default(),
            });
        }
        let mut sim = Sim {
            warmup: Time(spec.warmup_ns),
            spec,
            sched: Scheduler::new(),
            arena: PacketArena::new(),
            topo,
            flows,
            out: Vec::with_capacity(64),
            dropped: Vec::with_capacity(64),
            end,
            series_t: Vec::new(),
            series_pkts: Vec::new(),
            series_bytes: Vec::new(),
            cwnd_t: Vec::new(),
            cwnd_flow: Vec::new(),
            cwnd_bytes: Vec::new(),
            cwnd_ssthresh: Vec::new(),
        };
        for i in 0..sim.flows.len() {
            let t = sim.flows[i].sender.start_at();
            sim.flows[i].tx_timer.arm(&mut sim.sched, t, Event::SenderTimer(i as u32));
        }
        if sim.spec.warmup_ns > 0 {
            sim.sched.schedule(sim.warmup, Event::Warmup);
        }
        if sim.spec.sample_interval_ns > 0 {
            sim.sched.schedule(Time::ZERO, Event::Sample);
        }
        Ok(sim)
    }

    pub fn now(&self) -> Time {
        self.sched.now()
    }

    pub fn events(&self) -> u64 {
        self.sched.executed()
    }

    /// Run until `t` (inclusive) or the end of the scenario, whichever is first.
    pub fn run_until(&mut self, t: Time) {
        let until = t.min(self.end);
        while let Some((now, ev)) = self.sched.pop_until(until) {
            self.handle(now, ev);
        }
        self.sched.advance_to(until);
    }

    /// Run the whole scenario and compute the results (checks identities and conservation).
    pub fn run(mut self) -> Result<RunResult, String> {
        let wall = std::time::Instant::now();
        self.run_until(self.end);
        let wall_s = wall.elapsed().as_secs_f64();
        self.check_invariants()?;
        Ok(self.results(wall_s))
    }

    #[inline]
    fn handle(&mut self, now: Time, ev: Event) {
        match ev {
            Event::TxDone(l) => self.on_tx_done(now, l as usize),
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
            Event::Sample => self.on_sample(now),
            Event::Warmup => self.start_window(now),
        }
    }

    fn on_tx_done(&mut self, now: Time, l: usize) {
        self.topo.links[l].tx_done_pending = false;
        self.start_tx(now, l);
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
        self.flush_drops();
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
        let pkt = p.clone();
        self.arena.free(id);
        let fl = &mut self.flows[f];
        let mut ctx = TxCtx { now, arena: &mut self.arena, out: &mut self.out };
        match pkt.kind {
            PktKind::Data => {
                fl.data.delivered += 1;
                fl.receiver.on_data(&pkt, &mut ctx);
                self.after_receiver(now, f);
            }
            PktKind::Ack => {
                fl.acks.delivered += 1;
                let info = AckInfo { ack: pkt.ack, sack: &pkt.sack[..pkt.n_sack as usize], ece: pkt.ece };
                fl.sender.on_ack(info, &mut ctx);
                self.after_sender(now, f);
            }
        }
    }

    /// Put a packet on the egress link of `node` towards its destination.
    #[inline]
    fn forward(&mut self, now: Time, node: u32, id: PacketId) {
        let dst = self.arena.get(id).dst;
        let l = self.topo.routes[node as usize][dst as usize] as usize;
        debug_assert!(l != u32::MAX as usize, "no route from {node} to {dst}");
        let link = &mut self.topo.links[l];
        let accepted = link.queue.enqueue(id, now, &mut self.arena, &mut self.dropped);
        if !accepted {
            self.discard(id);
        }
        self.flush_drops();
        let link = &mut self.topo.links[l];
        if !link.tx_done_pending {
            if now >= link.busy_until() {
                self.start_tx(now, l);
            } else if link.backlog() > 0 {
                link.tx_done_pending = true;
                self.sched.schedule(link.busy_until(), Event::TxDone(l as u32));
            }
        }
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
        let fl = &mut self.flows[p.flow as usize];
        match p.kind {
            PktKind::Data => fl.data.dropped += 1,
            PktKind::Ack => fl.acks.dropped += 1,
        }
        self.arena.free(id);
    }

    #[inline]
    fn flush_drops(&mut self) {
        while let Some((id, _)) = self.dropped.pop() {
            self.discard(id);
        }
    }

    fn on_sample(&mut self, now: Time) {
        let q = &self.topo.links[self.topo.forward].queue.qdisc;
        let t = now.secs_f64();
        self.series_t.push(t);
        self.series_pkts.push(q.len_pkts() as u64);
        self.series_bytes.push(q.len_bytes());
        if self.spec.cwnd_trace {
            for fl in &self.flows {
                if now >= fl.sender.start_at() {
                    self.cwnd_t.push(t);
                    self.cwnd_flow.push(fl.name.clone());
                    self.cwnd_bytes.push(fl.sender.cs.cwnd);
                    self.cwnd_ssthresh.push(fl.sender.cs.ssthresh);
                }
            }
        }
        let next = now + Dur(self.spec.sample_interval_ns);
        if next <= self.end {
            self.sched.schedule(next, Event::Sample);
        }
    }

    fn start_window(&mut self, now: Time) {
        for l in &mut self.topo.links {
            l.start_window(now);
        }
        for fl in &mut self.flows {
            fl.sender_window = fl.sender.counters;
            fl.receiver_window = fl.receiver.counters;
            fl.sender.rtt_hist.clear();
        }
    }

    /// Queue identities on every link and per-flow packet conservation:
    /// sent = delivered + dropped + in flight, for data and for ACKs.
    pub fn check_invariants(&self) -> Result<(), String> {
        for l in &self.topo.links {
            l.queue.check_identities().map_err(|e| format!("queue identity violated on link {}: {e}", l.name))?;
        }
        let mut in_flight = vec![(0u64, 0u64); self.flows.len()];
        for p in self.arena.iter_live() {
            let e = &mut in_flight[p.flow as usize];
            match p.kind {
                PktKind::Data => e.0 += 1,
                PktKind::Ack => e.1 += 1,
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
            if fl.data.sent != fl.sender.counters.segments_sent {
                return Err(format!("flow {}: engine counted {} data packets, sender {}", fl.name, fl.data.sent, fl.sender.counters.segments_sent));
            }
            fl.sender.sb.check().map_err(|e| format!("flow {}: {e}", fl.name))?;
        }
        Ok(())
    }

    fn measured(&self) -> Dur {
        self.end - self.warmup
    }

    /// Assemble result tables (the run must have reached its end).
    pub fn results(&self, wall_s: f64) -> RunResult {
        let span = self.measured().secs_f64();
        let mut flows = Table::default();
        let n = self.flows.len();
        let mut c_name = Vec::with_capacity(n);
        let (mut c_src, mut c_dst, mut c_cc) = (Vec::new(), Vec::new(), Vec::new());
        let (mut c_start, mut c_stop, mut c_base_rtt) = (Vec::new(), Vec::new(), Vec::new());
        let (mut c_goodput, mut c_thr) = (Vec::new(), Vec::new());
        let (mut c_deliv, mut c_wire, mut c_segs, mut c_retx, mut c_to, mut c_fr) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut c_rtt_mean, mut c_rtt_min, mut c_rtt_p99, mut c_rtt_n, mut c_cwnd) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for (fl, fs) in self.flows.iter().zip(&self.spec.flows) {
            let s = fl.sender.counters.minus(&fl.sender_window);
            let r = fl.receiver.counters.minus(&fl.receiver_window);
            c_name.push(fl.name.clone());
            c_src.push(self.topo.node_names[fl.sender.node as usize].clone());
            c_dst.push(self.topo.node_names[fl.receiver.node as usize].clone());
            c_cc.push(fs.cc.name().to_string());
            c_start.push(fl.sender.start_at().secs_f64());
            c_stop.push(fs.stop_ns.map_or(f64::NAN, |t| t as f64 / 1e9));
            let rtt = self.topo.path_delay(fl.sender.node, fl.receiver.node) + self.topo.path_delay(fl.receiver.node, fl.sender.node);
            c_base_rtt.push(rtt.secs_f64());
            c_goodput.push(r.delivered_bytes as f64 * 8.0 / span);
            c_thr.push(s.wire_bytes as f64 * 8.0 / span);
            c_deliv.push(r.delivered_bytes);
            c_wire.push(s.wire_bytes);
            c_segs.push(s.segments_sent);
            c_retx.push(s.retransmits);
            c_to.push(s.timeouts);
            c_fr.push(s.fast_recoveries);
            let h = &fl.sender.rtt_hist;
            c_rtt_mean.push(h.mean().map_or(f64::NAN, |v| v / 1e9));
            c_rtt_min.push(h.min().map_or(f64::NAN, |v| v as f64 / 1e9));
            c_rtt_p99.push(h.quantile(0.99).map_or(f64::NAN, |v| v / 1e9));
            c_rtt_n.push(h.count());
            c_cwnd.push(fl.sender.cs.cwnd);
        }
        flows.push("name", Column::Str(c_name));
        flows.push("src", Column::Str(c_src));
        flows.push("dst", Column::Str(c_dst));
        flows.push("cc", Column::Str(c_cc));
        flows.push("start_s", Column::F64(c_start));
        flows.push("stop_s", Column::F64(c_stop));
        flows.push("base_rtt_s", Column::F64(c_base_rtt));
        flows.push("goodput_bps", Column::F64(c_goodput));
        flows.push("throughput_bps", Column::F64(c_thr));
        flows.push("delivered_bytes", Column::U64(c_deliv));
        flows.push("wire_bytes", Column::U64(c_wire));
        flows.push("segments_sent", Column::U64(c_segs));
        flows.push("retransmits", Column::U64(c_retx));
        flows.push("timeouts", Column::U64(c_to));
        flows.push("fast_recoveries", Column::U64(c_fr));
        flows.push("rtt_mean_s", Column::F64(c_rtt_mean));
        flows.push("rtt_min_s", Column::F64(c_rtt_min));
        flows.push("rtt_p99_s", Column::F64(c_rtt_p99));
        flows.push("rtt_samples", Column::U64(c_rtt_n));
        flows.push("cwnd_final_bytes", Column::U64(c_cwnd));

        let now = self.sched.now();
        let mut queues = Table::default();
        let links = &self.topo.links;
        let col_s = |f: &dyn Fn(&Link) -> String| Column::Str(links.iter().map(f).collect());
        let col_f = |f: &dyn Fn(&Link) -> f64| Column::F64(links.iter().map(f).collect());
        let col_u = |f: &dyn Fn(&Link) -> u64| Column::U64(links.iter().map(f).collect());
        let sojourn = |l: &Link, q: Option<f64>| match q {
            Some(q) => l.queue.sojourn.quantile(q).map_or(f64::NAN, |v| v / 1e9),
            None => l.queue.sojourn.mean().map_or(f64::NAN, |v| v / 1e9),
        };
        queues.push("link", col_s(&|l| l.name.clone()));
        queues.push("role", col_s(&|l| l.role.to_string()));
        queues.push("rate_bps", col_u(&|l| l.rate.bps()));
        queues.push("delay_s", col_f(&|l| l.delay.secs_f64()));
        queues.push("qlen_mean_pkts", col_f(&|l| l.queue.backlog_pkts.mean_sd(now).0));
        queues.push("qlen_sd_pkts", col_f(&|l| l.queue.backlog_pkts.mean_sd(now).1));
        queues.push("qlen_mean_bytes", col_f(&|l| l.queue.backlog_bytes.mean_sd(now).0));
        queues.push("qlen_sd_bytes", col_f(&|l| l.queue.backlog_bytes.mean_sd(now).1));
        queues.push("sojourn_mean_s", col_f(&|l| sojourn(l, None)));
        queues.push("sojourn_p50_s", col_f(&|l| sojourn(l, Some(0.5))));
        queues.push("sojourn_p99_s", col_f(&|l| sojourn(l, Some(0.99))));
        queues.push("arrivals", col_u(&|l| l.queue.window().arrivals));
        queues.push("enqueued", col_u(&|l| l.queue.window().enqueued));
        queues.push("dequeued", col_u(&|l| l.queue.window().dequeued));
        queues.push("drops_overflow", col_u(&|l| l.queue.window().drops_overflow));
        queues.push("drops_aqm", col_u(&|l| l.queue.window().drops_aqm));
        queues.push("drops_head", col_u(&|l| l.queue.window().drops_head));
        queues.push("drops_pushout", col_u(&|l| l.queue.window().drops_pushout));
        queues.push("marks", col_u(&|l| l.queue.window().marks));
        queues.push("drop_ratio", col_f(&|l| {
            let w = l.queue.window();
            if w.arrivals == 0 { 0.0 } else { w.drops() as f64 / w.arrivals as f64 }
        }));
        queues.push("lost_random", col_u(&|l| l.window().lost_random));
        queues.push("tx_pkts", col_u(&|l| l.window().tx_pkts));
        queues.push("tx_bytes", col_u(&|l| l.window().tx_bytes));
        queues.push("utilization", col_f(&|l| l.window().tx_bytes as f64 * 8.0 / (l.rate.bps() as f64 * span)));

        let mut series = Table::default();
        series.push("t_s", Column::F64(self.series_t.clone()));
        series.push("qlen_pkts", Column::U64(self.series_pkts.clone()));
        series.push("qlen_bytes", Column::U64(self.series_bytes.clone()));
        let mut cwnd = Table::default();
        cwnd.push("t_s", Column::F64(self.cwnd_t.clone()));
        cwnd.push("flow", Column::Str(self.cwnd_flow.clone()));
        cwnd.push("cwnd_bytes", Column::U64(self.cwnd_bytes.clone()));
        cwnd.push("ssthresh_bytes", Column::U64(self.cwnd_ssthresh.clone()));

        RunResult {
            summary: Summary {
                seed: self.spec.seed,
                sim_s: self.end.secs_f64(),
                measured_s: span,
                wall_s,
                events: self.sched.executed(),
                delivered_segments: self.flows.iter().map(|f| f.data.delivered).sum(),
                flows: self.flows.len() as u64,
                peak_packets: self.arena.capacity() as u64,
            },
            flows,
            queues,
            series,
            cwnd,
        }
    }
}

/// Run a spec to completion.
pub fn run(spec: ScenarioSpec) -> Result<RunResult, String> {
    Sim::new(spec)?.run()
}
