//! A FIFO that drops its head packet every `period`: the example of how a queue discipline is
//! added (this file and one line in the registry of `aqm/mod.rs`, under `#[cfg(test)]` because it
//! exists only to show and test that path). It uses every optional part of the contract: a timer,
//! its own reasons, a counter and a state variable.
//!
//! Source: none (a test fixture). Deviations: not a real discipline.

use super::law::fifo::Fifo;
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Dur, Time};

crate::params! {
    /// The drop period.
    pub struct PeriodicDropConfig {
        /// Time between head drops.
        period: Dur = Dur::from_ms(10), Time, range(> Dur::ZERO), "test fixture";
        /// Hard limit.
        limit_pkts: u32 = 100, Packets, range(>= 1), "test fixture";
    }
}

#[derive(Debug)]
pub struct PeriodicDrop {
    period: Dur,
    limit_pkts: u32,
    fifo: Fifo,
    /// Next timer expiry.
    next: Time,
    /// Timer expiries so far.
    ticks: u64,
}

impl Algorithm for PeriodicDrop {
    type Config = PeriodicDropConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "periodic_drop",
        aliases: &[],
        summary: "FIFO dropping its head every period (test fixture)",
        sources: &["none: an example of adding a discipline"],
    };
    fn new(cfg: &PeriodicDropConfig, _env: &QdiscEnv) -> PeriodicDrop {
        PeriodicDrop { period: cfg.period, limit_pkts: cfg.limit_pkts, fifo: Fifo::new(cfg.limit_pkts), next: Time::ZERO + cfg.period, ticks: 0 }
    }
}

const REASON_OVERFLOW: u8 = 0;
const REASON_TICK: u8 = 1;

impl QueueDisc for PeriodicDrop {
    const REASONS: &'static [Reason] = &[OVERFLOW, Reason { name: "tick", doc: "the periodic head drop" }];
    const STATS: &'static [Field] = &[Field { name: "ticks", unit: FieldUnit::Count, doc: "timer expiries" }];
    const STATE: &'static [Field] = &[Field { name: "next_tick_s", unit: FieldUnit::Seconds, doc: "time of the next head drop" }];
    const TIMER: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        if self.fifo.len_pkts() >= self.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.fifo.push(id, ctx.size(id));
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let id = self.fifo.pop(ctx)?;
        Some(id)
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len_pkts()
    }

    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }

    fn next_timer(&self) -> Time {
        self.next
    }

    fn on_timer(&mut self, ctx: &mut QdiscCtx<'_>) {
        self.ticks += 1;
        self.next = ctx.now + self.period;
        if let Some(id) = self.fifo.pop(ctx) {
            ctx.drop_queued(id, REASON_TICK);
        }
    }

    fn stats(&self, out: &mut [u64]) {
        out[0] = self.ticks;
    }

    fn state(&self, out: &mut [f64]) {
        out[0] = self.next.secs_f64();
    }
}
