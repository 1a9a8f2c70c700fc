//! DualPI2 (DualQ Coupled AQM with a PI2 base AQM): an L queue for L4S packets (ECT(1) or CE)
//! and a C queue for the rest, one PI controller for both, coupled probabilities.
//!
//! Sources: RFC 9332 (De Schepper, Briscoe, White, 2023), sections 2-4 and Appendix A (the
//! DualPI2 example); De Schepper et al., "PI2: A Linearized AQM for both Classic and Scalable
//! TCP", ACM CoNEXT 2016; Linux `net/sched/sch_dualpi2.c` (the reference implementation,
//! merged in 6.17), read for behaviour (not copied).
//!
//! * Classification: ECT(1) or CE (ECN field odd) -> L queue, Not-ECT or ECT(0) -> C queue.
//! * Every `tupdate`, the base probability p' of the PI controller:
//!   `p' += alpha (qdelay - target) + beta (qdelay - qdelay_old)`, clamped to [0, 1], where
//!   qdelay is the sojourn time of the head packet(s) at the update.
//! * Classic packets are dropped (Not-ECT) or CE-marked (ECT(0)) with `p_C = p'^2` (two
//!   independent draws, as Linux); L packets are marked with the coupled `p_CL = k p'` and by the
//!   L queue's native step AQM (sojourn > `step_thresh`), i.e. with `max(p_CL, p_step)`.
//! * Overload (`k p' > 1`, i.e. p_C above p_Cmax = 1/k^2): every packet, L ones included, is
//!   dropped with p'^2 regardless of ECN; L packets not dropped are marked.
//! * No mark or drop while fewer than two MTUs are queued in both queues together (Linux).
//! * All drops and marks happen at dequeue (Linux's default `drop_dequeue`); arrivals beyond
//!   `limit_pkts` are tail-dropped.
//!
//! `variant` selects the scheduler and the controller input:
//! * `"linux"` (default): weighted round robin with C-queue protection: a credit starting at
//!   `mtu (wc - wl)`; the L queue is served when the C queue is empty or the credit is <= 0;
//!   serving L with C backlogged adds `wc x size`, serving C with L backlogged subtracts
//!   `wl x size` (wc = `c_protection` %, wl = 100 - wc); the credit resets when both are empty.
//!   qdelay = max(L head sojourn, C head sojourn).
//! * `"rfc9332"`: Appendix A's time-shifted FIFO: the L head goes first when its sojourn plus
//!   `tshift` exceeds the C head's; qdelay = the C head's sojourn.
//!
//! Deliberate deviations: p' is a float (Linux: a 32-bit fixed-point fraction with alpha and beta
//! quantized to 1/256 Hz, so 0.16 and 3.2 Hz are 41/256 and 819/256); the limit is in packets
//! only (Linux also has a memory limit); GSO splitting, the classification filters, the
//! `min_qlen_step` and `any_ect` options and drops at enqueue are not modelled; the RFC's
//! deterministic `recur()` marking (offered as an alternative in Appendix A) is not modelled:
//! both variants draw at random as Linux does.

use super::{QdiscCtx, QdiscEnv, QueueDisc, Reason, ReasonId, Verdict, OVERFLOW};
use crate::packet::{Ecn, PacketId};
use crate::params::Problem;
use crate::registry::{Algorithm, Field, FieldUnit, Info};
use crate::units::{Bytes, Dur, Time};
use std::collections::VecDeque;

crate::choice! {
    /// Which DualPI2: Linux's (WRR scheduler) or RFC 9332 Appendix A's (time-shifted FIFO).
    pub enum DualPi2Variant {
        /// Linux sch_dualpi2: WRR with C protection; controller on max(L, C) head delay.
        Linux = "linux",
        /// RFC 9332 Appendix A: time-shifted FIFO; controller on the C head delay.
        Rfc9332 = "rfc9332",
    }
}

crate::params! {
    /// DualPI2 parameters; defaults are Linux sch_dualpi2's.
    pub struct DualPi2Config {
        /// Target queueing delay of the Classic queue.
        target: Dur = Dur::from_ms(15), Time, range(> Dur::ZERO), "RFC 9332 A.1 target 15 ms; Linux pi2_target 15 ms";
        /// How often p' is updated.
        tupdate: Dur = Dur::from_ms(16), Time, range(>= Dur::from_us(100)), "Linux pi2_tupdate 16 ms (RFC 9332 A.1: min(target, RTT_max/3) = 15 ms)";
        /// Integral gain, 1/s.
        alpha: f64 = 0.16, Number("1/s"), range(>= 0.0, <= 100.0), "Linux alpha 41/256 (~0.16 Hz) (RFC 9332 A.1: 0.1 Tupdate/RTT_max^2 = 0.15 Hz)";
        /// Proportional gain, 1/s.
        beta: f64 = 3.2, Number("1/s"), range(>= 0.0, <= 100.0), "Linux beta 819/256 (~3.2 Hz) (RFC 9332 A.1: 0.3/RTT_max = 3 Hz)";
        /// Coupling factor k: p_CL = k p'.
        coupling: f64 = 2.0, Ratio, range(>= 1.0, <= 255.0), "RFC 9332 section 2.4 and A.1 k = 2; Linux coupling_factor 2";
        /// L queue step AQM: mark L packets whose sojourn exceeds this.
        step_thresh: Dur = Dur::from_ms(1), Time, range(> Dur::ZERO), "Linux step_thresh 1 ms";
        /// Linux scheduler: the C queue's WRR weight in percent (the L queue gets the rest).
        c_protection: u32 = 10, Count, range(<= 100), "Linux c_protection wc 10 %";
        /// RFC 9332 scheduler: the time shift favouring the L queue.
        tshift: Dur = Dur::from_ms(50), Time, range(>= Dur::ZERO), "ns-3 port of the RFC 9332 draft Appendix A Tshift 50 ms";
        /// Hard limit of both queues together, packets.
        limit_pkts: u32 = 10000, Packets, range(>= 1), "Linux limit 10000";
        /// MTU for the two-MTU minimum backlog and the WRR credit.
        mtu: Bytes = Bytes::new(1514), Size, range(>= 1, <= Bytes::new(1 << 20)), "Linux psched_mtu: 1500 + 14 (crosslayer: at most 1 MiB)";
        /// "linux" (WRR, qdelay = max of the heads) or "rfc9332" (time-shifted FIFO, qdelay = C head).
        variant: DualPi2Variant = DualPi2Variant::Linux, Choice, range(), "Linux sch_dualpi2; RFC 9332 Appendix A";
    }
    check = DualPi2Config::check;
}

impl DualPi2Config {
    fn check(&self, out: &mut Vec<Problem>) {
        if self.tupdate.ns() > self.target.ns().saturating_mul(100) {
            out.push(Problem::new("tupdate", format!("should not be far above target ({}); Linux uses 16 ms with 15 ms", self.target)));
        }
    }
}

/// `REASONS` indices.
const REASON_OVERFLOW: ReasonId = 0;
const REASON_CLASSIC: ReasonId = 1;
const REASON_COUPLED: ReasonId = 2;
const REASON_STEP: ReasonId = 3;

/// The PI controller and the coupled probabilities.
#[derive(Clone, Copy, Debug, Default)]
pub struct Pi2Vars {
    /// Base probability p' (Linux `pi2_prob`).
    pub p_prime: f64,
    /// Controller input at the last update.
    pub qdelay_old: Dur,
    /// Head sojourn times of the C and L queues at the last update.
    pub qdelay_c: Dur,
    pub qdelay_l: Dur,
}

impl Pi2Vars {
    /// Classic probability p_C = p'^2.
    pub fn p_c(&self) -> f64 {
        self.p_prime * self.p_prime
    }
    /// Coupled L probability p_CL = k p' (capped at 1).
    pub fn p_cl(&self, k: f64) -> f64 {
        (k * self.p_prime).min(1.0)
    }
}

/// Which queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Which {
    L,
    C,
}

/// The L4S classifier (RFC 9332 section 2.3 and A.1): ECT(1) or CE.
pub fn classify(ecn: Ecn) -> Which {
    match ecn {
        Ecn::Ect1 | Ecn::Ce => Which::L,
        Ecn::NotEct | Ecn::Ect0 => Which::C,
    }
}

#[derive(Debug)]
pub struct DualPi2 {
    cfg: DualPi2Config,
    pub vars: Pi2Vars,
    next_update: Time,
    lq: VecDeque<PacketId>,
    cq: VecDeque<PacketId>,
    bytes: u64,
    /// WRR credit (Linux `c_protection_credit`): the sign says which queue is next.
    credit: i64,
    credit_init: i64,
    /// Marks by the step AQM, by the coupled probability; Classic drops and marks.
    step_marks: u64,
    coupled_marks: u64,
    classic_signals: u64,
}

impl Algorithm for DualPi2 {
    type Config = DualPi2Config;
    type Env = QdiscEnv;
    const INFO: Info = Info {
        name: "dualpi2",
        aliases: &["dualq"],
        summary: "DualPI2: L4S (ECT(1)/CE) and Classic queues coupled through one PI controller (p_C = p'^2, p_CL = k p')",
        sources: &["RFC 9332", "De Schepper et al., PI2, ACM CoNEXT 2016", "Linux net/sched/sch_dualpi2.c"],
    };
    fn new(cfg: &DualPi2Config, _env: &QdiscEnv) -> DualPi2 {
        let wc = cfg.c_protection.min(100) as i64;
        let credit_init = cfg.mtu.get() as i64 * (wc - (100 - wc));
        DualPi2 {
            vars: Pi2Vars::default(),
            next_update: Time::ZERO + cfg.tupdate,
            lq: VecDeque::with_capacity(1024),
            cq: VecDeque::with_capacity(cfg.limit_pkts.min(1 << 16) as usize),
            bytes: 0,
            credit: credit_init,
            credit_init,
            step_marks: 0,
            coupled_marks: 0,
            classic_signals: 0,
            cfg: cfg.clone(),
        }
    }
}

impl DualPi2 {
    fn head_sojourn(q: &VecDeque<PacketId>, ctx: &QdiscCtx<'_>) -> Dur {
        q.front().map_or(Dur::ZERO, |&id| ctx.now.since(ctx.arena.get(id).enq_time))
    }

    /// One controller update with head sojourns `qdelay_c`, `qdelay_l` (RFC 9332 A.1
    /// dualpi2_update; Linux calculate_probability).
    pub fn update(&mut self, qdelay_c: Dur, qdelay_l: Dur) {
        let v = &mut self.vars;
        let qdelay = match self.cfg.variant {
            DualPi2Variant::Linux => qdelay_c.max(qdelay_l),
            DualPi2Variant::Rfc9332 => qdelay_c,
        };
        let (q, q_old, target) = (qdelay.secs_f64(), v.qdelay_old.secs_f64(), self.cfg.target.secs_f64());
        let delta = self.cfg.alpha * (q - target) + self.cfg.beta * (q - q_old);
        v.p_prime = (v.p_prime + delta).clamp(0.0, 1.0);
        v.qdelay_old = qdelay;
        v.qdelay_c = qdelay_c;
        v.qdelay_l = qdelay_l;
    }

    /// The next queue to serve (at least one is non-empty).
    fn pick(&self, ctx: &QdiscCtx<'_>) -> Which {
        debug_assert!(!(self.lq.is_empty() && self.cq.is_empty()));
        if self.lq.is_empty() {
            return Which::C;
        }
        if self.cq.is_empty() {
            return Which::L;
        }
        match self.cfg.variant {
            DualPi2Variant::Linux => {
                if self.credit <= 0 {
                    Which::L
                } else {
                    Which::C
                }
            }
            DualPi2Variant::Rfc9332 => {
                let (lt, ct) = (Self::head_sojourn(&self.lq, ctx), Self::head_sojourn(&self.cq, ctx));
                if lt + self.cfg.tshift > ct {
                    Which::L
                } else {
                    Which::C
                }
            }
        }
    }
}

/// What the AQM decided for a dequeued packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Deliver,
    Mark(ReasonId),
    Drop(ReasonId),
}

/// The AQM decision for a packet from queue `which` with sojourn `sojourn` (Linux must_drop +
/// do_step_aqm; RFC 9332 A.1 dequeue). `draw` gives uniform numbers in [0, 1).
pub fn decide(cfg: &DualPi2Config, v: &Pi2Vars, which: Which, ect: bool, sojourn: Dur, backlog_bytes: u64, mut draw: impl FnMut() -> f64) -> Decision {
    let mut coupled = None;
    if backlog_bytes >= 2 * cfg.mtu.get() {
        let p = v.p_prime;
        let overload = cfg.coupling * p > 1.0;
        // p_C = p'^2 as two independent draws below p' (Linux dualpi2_roll twice)
        let mut squared = || draw() < p && draw() < p;
        match which {
            Which::C => {
                if squared() {
                    return if overload || !ect { Decision::Drop(REASON_CLASSIC) } else { Decision::Mark(REASON_CLASSIC) };
                }
            }
            Which::L => {
                if overload {
                    if squared() {
                        return Decision::Drop(REASON_CLASSIC);
                    }
                    coupled = Some(REASON_COUPLED); // overload: mark every L packet not dropped
                } else if draw() < cfg.coupling * p {
                    coupled = Some(REASON_COUPLED);
                }
            }
        }
    }
    if let Some(r) = coupled {
        return if ect { Decision::Mark(r) } else { Decision::Drop(r) };
    }
    if which == Which::L && sojourn > cfg.step_thresh {
        return if ect { Decision::Mark(REASON_STEP) } else { Decision::Drop(REASON_STEP) };
    }
    Decision::Deliver
}

impl QueueDisc for DualPi2 {
    const REASONS: &'static [Reason] = &[
        OVERFLOW,
        Reason { name: "classic", doc: "PI2 Classic signal with p_C = p'^2 (C queue; both queues on overload, then always a drop)" },
        Reason { name: "coupled", doc: "L queue mark with the coupled p_CL = k p'" },
        Reason { name: "step", doc: "L queue native step AQM: sojourn above step_thresh" },
    ];
    const STATS: &'static [Field] = &[
        Field { name: "step_marks", unit: FieldUnit::Count, doc: "L packets marked by the step AQM" },
        Field { name: "coupled_marks", unit: FieldUnit::Count, doc: "L packets marked with p_CL" },
        Field { name: "classic_signals", unit: FieldUnit::Count, doc: "packets dropped or marked with p_C" },
    ];
    const STATE: &'static [Field] = &[
        Field { name: "p_prime", unit: FieldUnit::Ratio, doc: "base probability p' of the PI controller" },
        Field { name: "p_c", unit: FieldUnit::Ratio, doc: "Classic drop/mark probability p'^2" },
        Field { name: "p_cl", unit: FieldUnit::Ratio, doc: "coupled L marking probability k p' (capped at 1)" },
        Field { name: "qdelay_c_s", unit: FieldUnit::Seconds, doc: "C queue head sojourn at the last update" },
        Field { name: "qdelay_l_s", unit: FieldUnit::Seconds, doc: "L queue head sojourn at the last update" },
    ];
    const TIMER: bool = true;

    fn enqueue(&mut self, id: PacketId, ctx: &mut QdiscCtx<'_>) -> Verdict {
        if (self.lq.len() + self.cq.len()) as u32 >= self.cfg.limit_pkts {
            return Verdict::Dropped(REASON_OVERFLOW);
        }
        self.bytes += ctx.size(id) as u64;
        match classify(ctx.arena.get(id).ecn) {
            Which::L => self.lq.push_back(id),
            Which::C => self.cq.push_back(id),
        }
        Verdict::Enqueued
    }

    fn dequeue(&mut self, ctx: &mut QdiscCtx<'_>) -> Option<PacketId> {
        loop {
            if self.lq.is_empty() && self.cq.is_empty() {
                self.credit = self.credit_init;
                return None;
            }
            let which = self.pick(ctx);
            let both = !self.lq.is_empty() && !self.cq.is_empty();
            let id = match which {
                Which::L => self.lq.pop_front(),
                Which::C => self.cq.pop_front(),
            }
            .expect("picked a non-empty queue");
            let (size, enq, ecn) = {
                let p = ctx.arena.get(id);
                (p.size_bytes as u64, p.enq_time, p.ecn)
            };
            self.bytes -= size; // the two-MTU test sees the backlog after this packet left (Linux)
            let sojourn = ctx.now.since(enq);
            let rng = ctx.rng();
            let decision = decide(&self.cfg, &self.vars, which, ecn.is_ect(), sojourn, self.bytes, || rng.next_f64());
            match decision {
                Decision::Drop(r) => {
                    if r == REASON_CLASSIC {
                        self.classic_signals += 1;
                    }
                    ctx.drop_queued(id, r);
                    continue;
                }
                Decision::Mark(r) => {
                    let marked = ctx.mark(id, r);
                    debug_assert!(marked);
                    match r {
                        REASON_STEP => self.step_marks += 1,
                        REASON_COUPLED => self.coupled_marks += 1,
                        _ => self.classic_signals += 1,
                    }
                }
                Decision::Deliver => {}
            }
            if both {
                let (wc, wl) = (self.cfg.c_protection.min(100) as i64, 100 - self.cfg.c_protection.min(100) as i64);
                self.credit += match which {
                    Which::L => wc * size as i64,
                    Which::C => -wl * size as i64,
                };
            }
            return Some(id);
        }
    }

    fn len_pkts(&self) -> u32 {
        (self.lq.len() + self.cq.len()) as u32
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    fn next_timer(&self) -> Time {
        self.next_update
    }

    fn on_timer(&mut self, ctx: &mut QdiscCtx<'_>) {
        while self.next_update <= ctx.now {
            let (c, l) = (Self::head_sojourn(&self.cq, ctx), Self::head_sojourn(&self.lq, ctx));
            self.update(c, l);
            self.next_update += self.cfg.tupdate;
        }
    }

    fn stats(&self, out: &mut [u64]) {
        out.copy_from_slice(&[self.step_marks, self.coupled_marks, self.classic_signals]);
    }

    fn state(&self, out: &mut [f64]) {
        let v = &self.vars;
        out.copy_from_slice(&[v.p_prime, v.p_c(), v.p_cl(self.cfg.coupling), v.qdelay_c.secs_f64(), v.qdelay_l.secs_f64()]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::aqm::{Qdisc, QdiscConfig, Queue};
    use crate::packet::{Packet, PacketArena};
    use crate::rng::{Rng, StreamKind};
    use crate::units::Rate;

    const ENV: QdiscEnv = QdiscEnv { link_rate: Rate::from_mbps(100) };

    fn dualpi2(variant: DualPi2Variant) -> DualPi2 {
        DualPi2::new(&DualPi2Config { variant, ..Default::default() }, &ENV)
    }

    fn queue(cfg: DualPi2Config) -> Queue {
        Queue::new(&QdiscConfig::DualPi2(cfg), &ENV, Rng::stream(1, StreamKind::Qdisc, 0))
    }

    fn inner(q: &mut Queue) -> &mut DualPi2 {
        match &mut q.qdisc {
            Qdisc::DualPi2(d) => d,
            _ => unreachable!(),
        }
    }

    /// RFC 9332 A.1 dualpi2_update, written from the RFC: p' += alpha (curq - target) +
    /// beta (curq - prevq), clamped to [0, 1]; p_C = p'^2, p_CL = k p'. Linux feeds it the larger
    /// head delay of the two queues, the RFC the Classic one.
    #[test]
    fn pi_update_and_coupling_follow_the_rfc_formula() {
        for variant in [DualPi2Variant::Linux, DualPi2Variant::Rfc9332] {
            let mut d = dualpi2(variant);
            d.vars.p_prime = 0.1;
            d.vars.qdelay_old = Dur::from_ms(18);
            d.update(Dur::from_ms(20), Dur::from_ms(30));
            let curq = if variant == DualPi2Variant::Linux { 0.030 } else { 0.020 };
            let expect = 0.1 + 0.16 * (curq - 0.015) + 3.2 * (curq - 0.018);
            assert!((d.vars.p_prime - expect).abs() < 1e-12, "{variant:?}: {} vs {expect}", d.vars.p_prime);
            assert!((d.vars.p_c() - expect * expect).abs() < 1e-12);
            assert!((d.vars.p_cl(2.0) - 2.0 * expect).abs() < 1e-12);
            assert_eq!(d.vars.qdelay_old, Dur::from_ns((curq * 1e9).round() as u64));
            // clamps
            d.update(Dur::from_secs(2), Dur::ZERO);
            assert_eq!(d.vars.p_prime, 1.0);
            assert_eq!(d.vars.p_cl(2.0), 1.0);
            d.vars.qdelay_old = Dur::from_secs(2);
            d.update(Dur::ZERO, Dur::ZERO);
            assert_eq!(d.vars.p_prime, 0.0);
        }
    }

    /// The timer runs the update every tupdate (16 ms) on the head sojourns.
    #[test]
    fn the_controller_runs_every_tupdate_on_head_sojourns() {
        let mut q = queue(DualPi2Config::default());
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        for (t_ms, ecn) in [(0, Ecn::NotEct), (4, Ecn::Ect1)] {
            let id = arena.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() });
            assert!(q.enqueue(id, Time::from_ms(t_ms), &mut arena, &mut dropped));
        }
        assert_eq!(q.next_timer(), Time::from_ms(16));
        q.on_timer(Time::from_ms(16), &mut arena, &mut dropped);
        let v = inner(&mut q).vars;
        assert_eq!((v.qdelay_c, v.qdelay_l), (Dur::from_ms(16), Dur::from_ms(12)));
        let expect = 0.16 * (0.016 - 0.015) + 3.2 * 0.016;
        assert!((v.p_prime - expect).abs() < 1e-12);
        assert_eq!(q.next_timer(), Time::from_ms(32));
    }

    /// RFC 9332 section 2.3 / A.1 classifier: ECN field odd (ECT(1), CE) -> L, else C.
    #[test]
    fn ect1_and_ce_go_to_the_l_queue() {
        assert_eq!(classify(Ecn::Ect1), Which::L);
        assert_eq!(classify(Ecn::Ce), Which::L);
        assert_eq!(classify(Ecn::Ect0), Which::C);
        assert_eq!(classify(Ecn::NotEct), Which::C);
        let mut q = queue(DualPi2Config::default());
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        for ecn in [Ecn::Ect1, Ecn::Ce, Ecn::Ect0, Ecn::NotEct, Ecn::Ect1] {
            let id = arena.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() });
            q.enqueue(id, Time::ZERO, &mut arena, &mut dropped);
        }
        let d = inner(&mut q);
        assert_eq!((d.lq.len(), d.cq.len()), (3, 2));
    }

    /// Coupling (RFC 9332 section 2.4): at p' = 0.3, Not-ECT Classic packets are dropped with
    /// p'^2 = 0.09, ECT(0) ones marked with 0.09, L packets marked with k p' = 0.6; at p' = 0.6
    /// (k p' > 1: overload) every packet is dropped with 0.36 regardless of ECN, and the L ones
    /// not dropped are all marked. 100,000 decisions each, within 4 standard deviations.
    #[test]
    fn classic_gets_p_squared_and_l_gets_k_p() {
        let cfg = DualPi2Config::default();
        let mut rng = Rng::stream(7, StreamKind::Qdisc, 0);
        let n = 100_000;
        let soj = Dur::from_us(500); // below the step threshold
        let cases = [
            (0.3, Which::C, false, 0.09, 0.0),
            (0.3, Which::C, true, 0.0, 0.09),
            (0.3, Which::L, true, 0.0, 0.6),
            (0.6, Which::C, true, 0.36, 0.0),
            (0.6, Which::L, true, 0.36, 0.64),
        ];
        for (p, which, ect, p_drop, p_mark) in cases {
            let v = Pi2Vars { p_prime: p, ..Default::default() };
            let (mut drops, mut marks) = (0, 0);
            for _ in 0..n {
                match decide(&cfg, &v, which, ect, soj, 100_000, || rng.next_f64()) {
                    Decision::Drop(_) => drops += 1,
                    Decision::Mark(_) => marks += 1,
                    Decision::Deliver => {}
                }
            }
            let (fd, fm) = (drops as f64 / n as f64, marks as f64 / n as f64);
            let tol = |q: f64| 4.0 * (q * (1.0 - q) / n as f64).sqrt() + 1e-12;
            eprintln!("p' {p} {which:?} ect {ect}: dropped {fd:.4} (expect {p_drop}), marked {fm:.4} (expect {p_mark})");
            assert!((fd - p_drop).abs() <= tol(p_drop) && (fm - p_mark).abs() <= tol(p_mark));
        }
    }

    /// The L queue's native step AQM marks every L packet whose sojourn exceeds 1 ms (even at
    /// p' = 0); Classic packets are not affected; below two MTUs of backlog nothing is signalled.
    #[test]
    fn step_marking_and_the_two_mtu_floor() {
        let cfg = DualPi2Config::default();
        let zero = Pi2Vars::default();
        let mut never = || panic!("no draw needed");
        assert_eq!(decide(&cfg, &zero, Which::L, true, Dur::from_us(1001), 0, &mut never), Decision::Mark(REASON_STEP));
        assert_eq!(decide(&cfg, &zero, Which::L, true, Dur::from_ms(1), 0, &mut never), Decision::Deliver);
        assert_eq!(decide(&cfg, &zero, Which::C, false, Dur::from_ms(50), 0, &mut never), Decision::Deliver);
        let one = Pi2Vars { p_prime: 1.0, ..Default::default() };
        assert_eq!(decide(&cfg, &one, Which::C, false, Dur::from_ms(50), 2 * 1514 - 1, &mut never), Decision::Deliver);
        assert_eq!(decide(&cfg, &one, Which::C, false, Dur::from_ms(50), 2 * 1514, || 0.5), Decision::Drop(REASON_CLASSIC));
    }

    /// Schedulers with both queues backlogged (1500-byte packets, p' = 0, sojourns below 1 ms).
    /// Linux WRR: the L queue gets 90 % and the C queue 10 % of the dequeues (c_protection 10 %),
    /// starting with L. RFC 9332 time-shifted FIFO: the L head goes first iff its sojourn plus
    /// tshift (50 ms) exceeds the C head's.
    #[test]
    fn wrr_weights_and_time_shifted_fifo_order() {
        let mut q = queue(DualPi2Config::default());
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        for i in 0..2000u64 {
            for ecn in [Ecn::Ect1, Ecn::NotEct] {
                let id = arena.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() });
                assert!(q.enqueue(id, Time::from_ns(i), &mut arena, &mut dropped));
            }
        }
        let mut order = vec![];
        for k in 0..1000u64 {
            let id = q.dequeue(Time::from_ns(3000 + k), &mut arena, &mut dropped).unwrap();
            order.push(classify(arena.get(id).ecn));
            arena.free(id);
        }
        let l = order.iter().filter(|&&w| w == Which::L).count();
        eprintln!("WRR: {l} of 1000 dequeues from L; first 12: {:?}", &order[..12]);
        assert_eq!(order[0], Which::L);
        assert!((895..=905).contains(&l), "L share {l}");
        assert!(dropped.is_empty());

        let mut q = queue(DualPi2Config { variant: DualPi2Variant::Rfc9332, ..Default::default() });
        let c0 = arena.alloc(Packet { size_bytes: 1500, ..Default::default() });
        let l0 = arena.alloc(Packet { size_bytes: 1500, ecn: Ecn::Ect1, ..Default::default() });
        q.enqueue(c0, Time::ZERO, &mut arena, &mut dropped);
        q.enqueue(l0, Time::from_ms(20), &mut arena, &mut dropped);
        // at 60 ms: L 40 + 50 > C 60: L first
        assert_eq!(q.dequeue(Time::from_ms(60), &mut arena, &mut dropped), Some(l0));
        let l1 = arena.alloc(Packet { size_bytes: 1500, ecn: Ecn::Ect1, ..Default::default() });
        q.enqueue(l1, Time::from_ms(65), &mut arena, &mut dropped);
        // at 66 ms: L 1 + 50 = 51 < C 66: C first, then L
        assert_eq!(q.dequeue(Time::from_ms(66), &mut arena, &mut dropped), Some(c0));
        assert_eq!(q.dequeue(Time::from_ms(66), &mut arena, &mut dropped), Some(l1));
        q.check_identities().unwrap();
    }

    /// Through the queue (arrivals every 10 us, p' held at 0.3): 20,000 ECT(1) packets
    /// dequeued 100 us after arriving are CE-marked with p_CL = 0.6 under the `coupled` reason;
    /// from a standing queue, Not-ECT packets are dropped with p_C = 0.09 under `classic`
    /// (within 4 standard deviations);
    /// ECT(1) packets that waited 2 ms are all marked (the step, which the two-MTU floor does
    /// not gate, as in Linux).
    #[test]
    fn marks_and_drops_reach_the_queue_accounting() {
        for (ecn, wait_us) in [(Ecn::Ect1, 100u64), (Ecn::Ect1, 2000)] {
            let mut q = queue(DualPi2Config { tupdate: Dur::from_secs(100), ..Default::default() });
            inner(&mut q).vars.p_prime = 0.3;
            let mut arena = PacketArena::new();
            let mut dropped = vec![];
            let n = 20_000u64;
            // arrivals every 10 us; packet i is dequeued wait_us after it arrived (FIFO order)
            let (mut next_arr, mut sent) = (0u64, 0u64);
            for i in 0..n {
                let t_deq = i * 10_000 + wait_us * 1000;
                while next_arr < n && next_arr * 10_000 <= t_deq {
                    let id = arena.alloc(Packet { size_bytes: 1500, ecn, ..Default::default() });
                    assert!(q.enqueue(id, Time::from_ns(next_arr * 10_000), &mut arena, &mut dropped));
                    next_arr += 1;
                }
                if let Some(id) = q.dequeue(Time::from_ns(t_deq), &mut arena, &mut dropped) {
                    sent += 1;
                    arena.free(id);
                }
            }
            q.check_identities().unwrap();
            let r = q.reasons();
            let (marks, drops) = (r.marks[REASON_COUPLED as usize] + r.marks[REASON_STEP as usize], r.drops[REASON_CLASSIC as usize]);
            eprintln!("{ecn:?} after {wait_us} us: marked {marks}, dropped {drops} of {n} (sent {sent})");
            let within = |count: u64, p: f64, trials: u64| ((count as f64 / trials as f64) - p).abs() <= 4.0 * (p * (1.0 - p) / trials as f64).sqrt();
            if wait_us == 100 {
                assert!(within(r.marks[REASON_COUPLED as usize], 0.6, n) && drops == 0);
            } else {
                assert!(marks == n && drops == 0, "every L packet over the step threshold is marked");
            }
        }
        // Classic drops remove packets: a standing queue of 40,000 Not-ECT packets, 20,000 sent
        let mut q = queue(DualPi2Config { tupdate: Dur::from_secs(100), limit_pkts: 100_000, ..Default::default() });
        inner(&mut q).vars.p_prime = 0.3;
        let mut arena = PacketArena::new();
        let mut dropped = vec![];
        for _ in 0..40_000 {
            let id = arena.alloc(Packet { size_bytes: 1500, ..Default::default() });
            assert!(q.enqueue(id, Time::ZERO, &mut arena, &mut dropped));
        }
        for k in 0..20_000u64 {
            let id = q.dequeue(Time::from_ns(1_000_000 + k), &mut arena, &mut dropped).unwrap();
            arena.free(id);
        }
        let drops = q.reasons().drops[REASON_CLASSIC as usize];
        let judged = 20_000 + drops;
        eprintln!("NotEct: dropped {drops} of {judged} judged");
        assert!(((drops as f64 / judged as f64) - 0.09).abs() <= 4.0 * (0.09f64 * 0.91 / judged as f64).sqrt());
        assert_eq!(q.counters().marks, 0);
        q.check_identities().unwrap();
    }
}
