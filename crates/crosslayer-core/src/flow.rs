//! A TCP flow's life in the engine: *pending* until its start time (nothing but where and when
//! it starts), *live* while it runs (its sender and receiver, boxed), *ended* once a finite
//! flow is over (its summary: what its result row needs; the endpoints are freed). Memory is
//! thus bounded by the flows active at once plus a summary per ended flow, whatever the number
//! of flows a workload brings (docs/PERFORMANCE.md, "Memory with many finite flows").
//!
//! A flow ends when nothing it does can change any more: its sender has every byte
//! acknowledged (or gave up), neither endpoint has a timer due, and none of its packets is
//! left in the network (`Flow::may_end`). Results are then the same as if it had been kept.

use crate::cc::{Cc, CcEnv};
use crate::metrics::fct::Hop;
use crate::rng::{Rng, StreamKind};
use crate::spec::FlowSpec;
use crate::tcp::negotiation;
use crate::tcp::{EcnFeedback, PeerEcn};
use crate::tcp::receiver::{Receiver, ReceiverCounters};
use crate::tcp::sender::{ConnState, Sender, SenderCounters};
use crate::units::{Dur, Time};

/// Packet accounting of one flow in one direction.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PktAccount {
    pub sent: u64,
    /// Copies a link made (`duplicate`).
    pub copies: u64,
    pub delivered: u64,
    pub dropped: u64,
}

impl PktAccount {
    /// Packets sent (or copied on the way) and neither delivered nor dropped yet.
    pub fn in_flight(&self) -> u64 {
        self.sent + self.copies - self.delivered - self.dropped
    }
}

/// A flow's path in one direction: its links are `Sim::hop_link[base..base + len]`, and its
/// packets at each are counted in `Sim::hops` at the same slots.
#[derive(Clone, Copy, Debug, Default)]
pub struct Route {
    pub base: u32,
    pub len: u32,
    /// Position of its bottleneck in the path (`Topology::bottleneck`).
    pub bottleneck: u32,
}

impl Route {
    /// The slots of its links.
    pub fn slots(&self) -> std::ops::Range<usize> {
        self.base as usize..(self.base + self.len) as usize
    }
}

/// A live flow's endpoints.
pub struct Endpoints {
    pub sender: Sender,
    pub receiver: Receiver,
}

/// RTT statistics of a flow's samples in the measurement window, seconds.
#[derive(Clone, Copy, Debug, Default)]
pub struct RttStats {
    pub mean_s: Option<f64>,
    pub min_s: Option<f64>,
    pub p99_s: Option<f64>,
    pub samples: u64,
}

/// What a flow's result row needs from its endpoints, taken when it ends (or at the end of the
/// run for the others).
#[derive(Clone, Debug)]
pub struct Summary {
    pub conn: ConnState,
    pub connected_at: Option<Time>,
    pub ended_at: Option<Time>,
    pub sender: SenderCounters,
    pub receiver: ReceiverCounters,
    pub rtt: RttStats,
    pub cwnd_final_bytes: u64,
    /// Payload bytes of a finite flow (`None`: bulk).
    pub size: Option<u64>,
    /// Bytes delivered in order to the receiver.
    pub rcv_nxt: u64,
    /// When its last byte was delivered (a finite flow that completed).
    pub completed_at: Option<Time>,
    /// Alone on its path with an unlimited window (`metrics::fct`), a finite flow.
    pub ideal_fct: Option<Dur>,
    /// The ECN feedback its sender uses (negotiated; before the handshake, the one it asks for).
    pub ecn: negotiation::EcnMode,
}

impl Summary {
    /// `hops`: the (rate, delay) of the links of its data path and of its ACKs' path.
    pub fn of(ep: &Endpoints, hops: [&[Hop]; 2]) -> Summary {
        let (s, r) = (&ep.sender, &ep.receiver);
        let h = s.rtt_hist.get();
        let ideal_fct = s.size().map(|_| {
            let (hs, full, full_size, last) = s.wire_train();
            let hs = hs.map(|(syn, ack)| (syn, r.synack_bytes(), ack));
            let ideal = crate::metrics::fct::ideal_fct(hops[0], hops[1], hs, full, full_size, last);
            // an application writing at a rate: the last byte leaves once written, then
            // crosses the path alone at best
            match s.all_written_at() {
                Some(t) if t != Time::NEVER => {
                    let one_way = hops[0].iter().fold(Dur::ZERO, |d, &(rate, delay)| d + rate.tx_time(last) + delay);
                    ideal.max(t.since(s.start_at()) + one_way)
                }
                _ => ideal,
            }
        });
        Summary {
            conn: s.conn,
            connected_at: s.connected_at.get(),
            ended_at: s.ended_at.get(),
            sender: s.counters,
            receiver: r.counters,
            rtt: RttStats { mean_s: h.mean().map(|v| v / 1e9), min_s: h.min().map(|v| v as f64 / 1e9), p99_s: h.quantile(0.99).map(|v| v / 1e9), samples: h.count() },
            cwnd_final_bytes: s.window.cwnd,
            size: s.size(),
            rcv_nxt: r.rcv_nxt,
            completed_at: r.completed_at.get(),
            ideal_fct,
            ecn: s.ecn_mode(),
        }
    }
}

/// Where a flow is in its life.
pub enum FlowState {
    /// Before its start time.
    Pending,
    Live(Box<Endpoints>),
    /// A finite flow that is over (done, or given up), its endpoints freed.
    Ended(Box<Summary>),
}

pub struct Flow {
    /// Its index (its name is its spec's, `Sim::flow_name`): the flow id its packets carry.
    pub id: u32,
    /// Source and sink nodes.
    pub src: u32,
    pub dst: u32,
    /// When it starts (its first SYN).
    pub start: Time,
    /// It has a size (`finite`), or an abort time: only those end before the run does (`ends`).
    pub finite: bool,
    pub ends: bool,
    pub state: FlowState,
    pub data: PktAccount,
    pub acks: PktAccount,
    /// Its data path (0) and its ACKs' path (1).
    pub route: [Route; 2],
    /// Packets its sender sent before the measurement window, whose start zeroes the
    /// endpoints' counters (the engine's count `data.sent` is the whole run's).
    pub sent_before: u64,
}

impl Flow {
    /// Its endpoints, as they are when it starts (`seed`: the run's; `end`: the run's end, up
    /// to which an on-off application's periods are drawn).
    pub fn endpoints(&self, spec: &FlowSpec, seed: u64, end: Time) -> Endpoints {
        let i = self.id;
        let env = CcEnv { rng_seed: Rng::stream(seed, StreamKind::Flow, i as u64 | 1 << 40).next_u64(), ..Sender::cc_env(&spec.tcp) };
        let cc = Cc::new(&spec.cc, &env);
        let mut sender = Sender::new(i, self.src, self.dst, &spec.tcp, cc, self.start, spec.stop.get().unwrap_or(Time::NEVER));
        if let Some(size) = spec.size.get() {
            sender.set_size(size.get());
        }
        if let Some(rate) = spec.app_rate.get() {
            sender.set_app_rate(rate);
        }
        if let Some(at) = spec.abort.get() {
            sender.set_abort(at);
        }
        if let Some(o) = &spec.on_off {
            // one connection (`new` ones were expanded into finite flows before the run)
            let mut rng = Rng::stream(seed, StreamKind::OnOff, i as u64);
            sender.set_on_off(crate::tcp::app::OnOffSchedule::new(o.draw(self.start, end, &mut rng)));
        }
        let mut receiver = Receiver::new(i, self.dst, self.src, &spec.tcp);
        receiver.feedback = sender.ecn_feedback();
        receiver.ect = sender.control_ecn();
        // ECN: what the receiving end can do, negotiated with what the sender asks for in the
        // handshake (`tcp::negotiation`); without a handshake, as a SYN and SYN-ACK that nothing
        // on the path changed would settle it
        let wanted = sender.ecn_mode();
        receiver.able = match spec.tcp.peer_ecn {
            PeerEcn::Same => wanted,
            PeerEcn::Off => None,
            PeerEcn::Classic => Some(EcnFeedback::Classic),
            PeerEcn::Dctcp => Some(EcnFeedback::Dctcp),
            PeerEcn::AccEcn => Some(EcnFeedback::AccEcn),
        };
        if !spec.tcp.handshake {
            let (server, client) = negotiation::handshake(wanted, receiver.able, sender.control_ecn(), sender.cc.no_classic_fallback());
            receiver.set_mode(server);
            sender.negotiated(client);
        }
        (sender.dscp, sender.port, receiver.dscp, receiver.port) = (spec.dscp, spec.port, spec.dscp, spec.port);
        Endpoints { sender, receiver }
    }

    /// Its live endpoints (every packet and timer event of a started flow that has not ended).
    #[inline(always)]
    pub fn live(&mut self) -> &mut Endpoints {
        match &mut self.state {
            FlowState::Live(ep) => ep,
            _ => outside_life(self.id),
        }
    }

    /// Its live endpoints, if it is live.
    #[inline]
    pub fn live_ref(&self) -> Option<&Endpoints> {
        match &self.state {
            FlowState::Live(ep) => Some(ep),
            _ => None,
        }
    }

    /// Nothing can happen to it any more: its sender is done (every byte of a finite flow
    /// acknowledged, or the connection failed, was given up or reset), neither endpoint has a
    /// deadline, and none of its packets is in the network. (A bulk flow whose connection is
    /// still open stays live to the end.)
    #[inline(always)]
    pub fn may_end(&self) -> bool {
        if !self.ends {
            return false;
        }
        match &self.state {
            FlowState::Live(ep) => {
                let s = &ep.sender;
                (s.all_acked() || s.ended_at.is_some())
                    && s.next_deadline() == Time::NEVER
                    && ep.receiver.next_deadline() == Time::NEVER
                    && self.data.in_flight() == 0
                    && self.acks.in_flight() == 0
            }
            _ => false,
        }
    }
}

#[cold]
#[inline(never)]
fn outside_life(id: u32) -> ! {
    unreachable!("a packet or timer of flow #{id} outside its life")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What a flow holds at least, whatever it does (issue 21: 2 KiB a flow at 90,000 flows,
    /// `docs/PERFORMANCE.md`); a field that grows them should be shared, boxed when rare, or
    /// weighed against that figure.
    #[test]
    fn a_flow_stays_small() {
        use std::mem::size_of;
        assert!(size_of::<Endpoints>() <= 1184, "Endpoints is {} bytes", size_of::<Endpoints>());
        assert!(size_of::<Flow>() <= 136, "Flow is {} bytes", size_of::<Flow>());
        assert!(size_of::<FlowSpec>() <= 136, "FlowSpec is {} bytes", size_of::<FlowSpec>());
    }
}
