//! The loop's side of a wireless LAN (`net::wlan`): a packet entering a member's queue makes
//! the member contend; at each decision of the medium (`Event::Medium`) the members due take
//! their frames from their queues, and a success puts its frame in its link's pipe, arriving at
//! the end of the data frame plus the link's delay. Frames dropped at the retry limit are lost on
//! the wire (the link's `lost_random`), as a lossy link's are.

use super::Sim;
use crate::net::wlan::{Frame, Outcome};
use crate::sched::Event;
use crate::units::Time;

impl Sim {
    /// A packet waits in the queue of link `l`, a wireless LAN's: its member contends for the
    /// medium unless it does already.
    #[cold]
    #[inline(never)]
    pub(super) fn wlan_enqueued(&mut self, now: Time, l: usize) {
        let link = &self.topo.links[l];
        let Some((w, m)) = link.wlan else { return };
        if link.backlog() == 0 {
            return;
        }
        self.topo.wlans[w as usize].on_frame_ready(now, m as usize);
        self.arm_medium(w as usize);
    }

    /// Make sure medium `w`'s next decision has its event.
    fn arm_medium(&mut self, w: usize) {
        let wl = &mut self.topo.wlans[w];
        let t = wl.next_decision();
        wl.timer.arm(&mut self.sched, t, Event::Medium(w as u32));
    }

    /// A decision of medium `w` (`Wlan::decide`): start what it starts, account for it.
    #[inline(never)]
    pub(super) fn on_medium(&mut self, now: Time, w: usize) {
        if !self.topo.wlans[w].timer.fire(now) {
            return;
        }
        let (links, arena, dropped) = (&mut self.topo.links, &mut self.arena, &mut self.dropped);
        let outcome = self.topo.wlans[w].decide(now, |mb| {
            // the next packet of its queues, in turn (the access point serves its stations'
            // queues round robin)
            for k in 0..mb.links.len() {
                let (i, l) = mb.link_in_turn(k);
                if let Some(id) = links[l as usize].queue.dequeue(now, arena, dropped) {
                    mb.served(i);
                    return Some(Frame { id, link: l, bytes: arena.get(id).size_bytes });
                }
            }
            None
        });
        // what the queues' dequeues dropped or marked, and their timers (a few links: every
        // member's, since a member whose queues held nothing to send may have dropped some)
        for m in 0..self.topo.wlans[w].members.len() {
            for j in 0..self.topo.wlans[w].members[m].links.len() {
                let l = self.topo.wlans[w].members[m].links[j] as usize;
                self.flush_drops(l);
                self.arm_qdisc_timer(l);
            }
        }
        match outcome {
            Outcome::Nothing => {}
            Outcome::Success { member, frame, data_end, end } => {
                let l = frame.link as usize;
                let link = &mut self.topo.links[l];
                link.counters.tx_pkts += 1;
                link.counters.tx_bytes += frame.bytes as u64;
                link.counters.busy_ns += (end - now).ns();
                let capture = link.capture_tx;
                if let Some(t) = link.into_pipe(data_end + link.delay, frame.id, frame.bytes) {
                    self.deliver_at(l, t);
                }
                if capture != 0 {
                    self.capture(now, capture, frame.id);
                }
                if self.arena.get(frame.id).tsq != 0 {
                    // TCP Small Queues: the driver reports the frame done when its ACK came
                    self.tsq_done(frame.id, end);
                }
                self.update_ready(w, member);
            }
            Outcome::Collision => {
                while let Some(f) = self.topo.wlans[w].dropped.pop() {
                    self.topo.links[f.link as usize].counters.lost_random += 1;
                    let (_, m) = self.topo.links[f.link as usize].wlan.expect("a wireless LAN's link");
                    self.discard(f.id);
                    self.update_ready(w, m as usize);
                }
            }
        }
        self.arm_medium(w);
    }

    /// Tell medium `w` whether member `m` still has packets queued.
    fn update_ready(&mut self, w: usize, m: usize) {
        let wl = &mut self.topo.wlans[w];
        let ready = wl.members[m].links.iter().any(|&l| self.topo.links[l as usize].backlog() > 0);
        wl.set_ready(m, ready);
    }
}
