//! CoDel (Controlled Delay): a FIFO whose head packets are dropped (or CE-marked) by the CoDel
//! control law when their sojourn time stays above `target` for an `interval`.
//!
//! Source: RFC 8289; Nichols & Jacobson, ACM Queue 10(5), 2012; Linux `net/sched/sch_codel.c`
//! (defaults: target 5 ms, interval 100 ms, limit 1000 packets, ECN off, MTU = device MTU +
//! link header). The law itself is in `codel_law.rs` (shared with FQ-CoDel).
//!
//! Tail drop at the hard limit is the only drop at enqueue. The MTU test uses this queue's own
//! backlog after the dequeue, as Linux does. Deviations: those of `codel_law.rs`; no
//! `ce_threshold` marking (a data-centre extension of Linux's fq_codel).

use super::codel_law::{CodelParams, CodelStats, CodelVars};
use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, Verdict, OVERFLOW};
use crate::packet::PacketId;
use crate::params::Problem;
use crate::registry::{Algorithm, Field, Info};
use crate::units::{Bytes, Dur};
use std::collections::VecDeque;

crate::params! {
    /// CoDel parameters; defaults are RFC 8289's and Linux sch_codel's.
    pub struct CodelConfig {
        /// Acceptable standing sojourn time.
        target: Dur = Dur::from_ms(5), Time, range(> Dur::ZERO), "RFC 8289 section 4.4 (TARGET 5 ms); Linux sch_codel";
        /// Window over which the sojourn time must stay above target before dropping starts; about a worst-case RTT.
        interval: Dur = Dur::from_ms(100), Time, range(> Dur::ZERO), "RFC 8289 section 4.5 (INTERVAL 100 ms); Linux sch_codel";
        /// Hard limit: arrivals beyond it are tail-dropped.
        limit_pkts: u32 = 1000, Packets, range(>= 1), "Linux sch_codel DEFAULT_CODEL_LIMIT 1000";
        /// No drop while at most this many bytes are queued (RFC 8289 MAXPACKET).
        mtu: Bytes = Bytes::new(1514), Size, range(>= 1), "Linux psched_mtu: 1500-byte MTU + 14-byte Ethernet header";
        /// CE-mark ECN-capable packets instead of dropping them.
        ecn: bool = false, Flag, range(), "Linux sch_codel (ecn off; fq_codel turns it on)";
    }
    check = CodelConfig::check;
}

impl CodelConfig {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.target >= self.interval {
            out.push(Problem::new("target", format!("must be shorter than interval ({}); RFC 8289 suggests 5-10 % of it", self.interval)));
        }
    }
}

/// `REASONS` indices.
const REASON_OVERFLOW: u8 = 0;
const REASON_CODEL: u8 = 1;

#[derive(Debug)]
pub struct Codel {
    params: CodelParams,
    limit_pkts: u32,
    vars: CodelVars,
    stats: CodelStats,
    /// Queued packets, head first.
    fifo: VecDeque<PacketId>,
    /// Bytes queued.
    bytes: u64,
}

impl Codel {
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl Algorithm for Codel {
    type Config = CodelConfig;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "codel",
        aliases: &[],
        summary: "CoDel: drop at the head when the sojourn time stays above target for an interval",
        sources: &["RFC 8289", "Nichols & Jacobson, Controlling Queue Delay, ACM Queue 10(5), 2012", "Linux net/sched/sch_codel.c, include/net/codel_impl.h"],
    };
    fn new(cfg: &CodelConfig, _env: &QdiscEnv) -> Codel {
        Codel {
            params: CodelParams { target: cfg.target, interval: cfg.interval, mtu_bytes: cfg.mtu.get(), ecn: cfg.ecn },
            limit_pkts: cfg.limit_pkts,
            vars: CodelVars::default(),
            stats: CodelStats::default(),
            fifo: VecDeque::with_capacity(cfg.limit_pkts.min(1 << 16) as usize),
            bytes: 0,
        }
    }
}

impl QueueDisc for Codel {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "codel", doc: "control law: the sojourn time stayed above target for an interval (dropped at the head, or CE-marked)" },
    ];
    const STATS: &'static [Field] = &[Field { name: "dropping_entries", unit: "count", doc: "times the dropping state was entered" }];
    const STATE: &'static [Field] = &[
        Field { name: "count", unit: "count", doc: "drops since entering the dropping state (sets the rate interval/sqrt(count))" },
        Field { name: "lastcount", unit: "count", doc: "count when the dropping state was last entered" },
        Field { name: "dropping", unit: "flag", doc: "1 in the dropping state" },
        Field { name: "ldelay_s", unit: "s", doc: "sojourn time of the last dequeued packet" },
        Field { name: "drop_next_s", unit: "s", doc: "time of the next drop (in the dropping state)" },
    ];

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        if self.fifo.len() as u32 >= self.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.bytes += ctx.size(id) as u64;
        self.fifo.push_back(id);
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        let Codel { params, vars, stats, fifo, bytes, .. } = self;
        vars.dequeue(params, stats, ctx, REASON_CODEL, |ctx| {
            let id = fifo.pop_front()?;
            *bytes -= ctx.size(id) as u64;
            Some((id, *bytes))
        })
    }

    fn len_pkts(&self) -> u32 {
        self.fifo.len() as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn stats(&self, out: &mut [u64]) {
        out[0] = self.stats.dropping_entries;
    }

    fn state(&self, out: &mut [f64]) {
        let v = &self.vars;
        let drop_next = if v.dropping { v.drop_next.secs_f64() } else { f64::NAN };
        out.copy_from_slice(&[v.count as f64, v.lastcount as f64, v.dropping as u8 as f64, v.ldelay.secs_f64(), drop_next]);
    }
}
