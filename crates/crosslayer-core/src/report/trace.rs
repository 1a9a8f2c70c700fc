//! Time series recorded every `sample_interval`: one queue's length, the sojourn time of what it
//! sent since the previous sample, and its discipline's state,
//! and every flow's window with its congestion control's state. Columns of algorithm state are
//! named after the fields the algorithm declares (`STATE`), so they are known before the run.
//!
//! Every `goodput_interval`, each flow's goodput over the interval (bytes delivered in order to
//! its receiver), from its start until it ends.
//!
//! [`Traces`] is the loop's [`Recorder`]: the loop calls it at every `Sample` and `Goodput`
//! event, and the report moves its columns into the `series`, `cwnd` and `goodput` tables.

use crate::aqm::Queue;
use crate::cc::Cc;
use crate::error::Error;
use crate::net::Topology;
use crate::registry::Field;
use crate::result::{Column, Table};
use crate::sim::{Flow, FlowState, Recorder, Sim};
use crate::tcp::sender::Sender;
use crate::units::Time;

/// The time series of one run: the sampled queue's, and every flow's window when the spec
/// asks for it.
pub struct Traces {
    /// The queue named by `series_queue` (the bottleneck by default).
    pub series: QueueSeries,
    /// Every flow's goodput every `goodput_interval`, when the spec asks for it.
    pub goodput: Option<GoodputTrace>,
    /// Every flow's window, when the spec asks for it.
    pub cwnd: Option<CwndTrace>,
    /// The link whose queue `series` samples.
    series_link: usize,
}

impl Traces {
    /// The recorders of `sim`'s scenario, with room for every row reserved now, so a run never
    /// runs out of memory half-way (the limit `limits.max_trace_rows` was checked by `validate`).
    pub fn new(sim: &Sim) -> Result<Traces, Error> {
        let spec = sim.spec();
        let series_link = sim.series_link().ok_or_else(|| Error::Invalid(format!("series_queue: no link {:?}", spec.series_queue)))?;
        let samples = crate::spec::trace_rows(spec.duration, spec.sample_interval, 0, false) as usize;
        Ok(Traces {
            series: QueueSeries::new(&sim.topo.links[series_link].queue, samples).map_err(Error::OutOfMemory)?,
            cwnd: match spec.cwnd_trace && samples > 0 {
                true => Some(CwndTrace::new(&spec.flows, samples.saturating_mul(sim.flows.len())).map_err(Error::OutOfMemory)?),
                false => None,
            },
            goodput: (spec.goodput_interval > crate::units::Dur::ZERO).then(|| GoodputTrace::new(spec.goodput_interval, sim.flows.len())),
            series_link,
        })
    }
}

/// Each flow's goodput per interval: bytes delivered in order to its receiver in the interval.
#[derive(Debug, Default)]
pub struct GoodputTrace {
    interval_s: f64,
    t_s: Vec<f64>,
    flow: Vec<u32>,
    bytes: Vec<u64>,
    /// Per flow: its delivered bytes at the previous sample, and whether its last row is out.
    last: Vec<u64>,
    done: Vec<bool>,
}

impl GoodputTrace {
    pub fn new(interval: crate::units::Dur, flows: usize) -> GoodputTrace {
        GoodputTrace { interval_s: interval.secs_f64(), last: vec![0; flows], done: vec![false; flows], ..Default::default() }
    }

    /// A row per flow that has started and not yet had its last row (a finite flow has one more
    /// row after it ends: the interval it ended in).
    pub fn sample(&mut self, now: Time, flows: &[Flow]) {
        for (i, fl) in flows.iter().enumerate() {
            if self.done[i] {
                continue;
            }
            let (got, ended) = match &fl.state {
                FlowState::Pending => continue,
                FlowState::Live(ep) => (ep.receiver.rcv_nxt, false),
                FlowState::Ended(s) => (s.rcv_nxt, true),
            };
            self.t_s.push(now.secs_f64());
            self.flow.push(i as u32);
            self.bytes.push(got - self.last[i]);
            self.last[i] = got;
            self.done[i] = ended;
        }
    }

    /// The table (moves the columns out); `flow` is categorical over `flow_names`.
    pub fn take_table(&mut self, flow_names: &[String]) -> Table {
        let mut t = Table::default();
        let goodput: Vec<f64> = self.bytes.iter().map(|&b| b as f64 * 8.0 / self.interval_s).collect();
        t.push("t_s", Column::F64(std::mem::take(&mut self.t_s)));
        t.push("flow", Column::Cat { codes: std::mem::take(&mut self.flow), labels: flow_names.to_vec() });
        t.push("bytes", Column::U64(std::mem::take(&mut self.bytes)));
        t.push("goodput_bps", Column::F64(goodput));
        t
    }
}

impl Recorder for Traces {
    fn goodput(&mut self, now: Time, flows: &[Flow]) {
        if let Some(g) = &mut self.goodput {
            g.sample(now, flows);
        }
    }

    fn sample(&mut self, now: Time, topo: &mut Topology, flows: &[Flow]) {
        self.series.sample(now, &mut topo.links[self.series_link].queue);
        if let Some(cwnd) = &mut self.cwnd {
            for (i, fl) in flows.iter().enumerate() {
                if let Some(ep) = fl.live_ref() {
                    cwnd.sample(now, i as u32, &ep.sender);
                }
            }
        }
    }
}

/// The sampled queue: length and discipline state.
#[derive(Debug, Default)]
pub struct QueueSeries {
    t_s: Vec<f64>,
    pkts: Vec<u64>,
    bytes: Vec<u64>,
    /// Mean and largest sojourn of the packets dequeued since the previous sample (NaN: none).
    sojourn_mean_s: Vec<f64>,
    sojourn_max_s: Vec<f64>,
    fields: &'static [Field],
    /// One vector per state field.
    state: Vec<Vec<f64>>,
    scratch: Vec<f64>,
}

/// Reserve room for `rows` more values, or say how much memory was missing (the allocator's
/// failure would abort the process).
fn reserve<T>(v: &mut Vec<T>, rows: usize) -> Result<(), String> {
    v.try_reserve_exact(rows).map_err(|_| {
        format!("not enough memory for the traces: {rows} rows of {} bytes; sample less often (sample_interval) or lower limits.max_trace_rows", std::mem::size_of::<T>())
    })
}

impl QueueSeries {
    /// A series with room for `rows` samples, reserved now.
    pub fn new(queue: &Queue, rows: usize) -> Result<QueueSeries, String> {
        let fields = queue.qdisc.state_fields();
        let mut s = QueueSeries { fields, state: vec![Vec::new(); fields.len()], scratch: vec![0.0; fields.len()], ..Default::default() };
        reserve(&mut s.t_s, rows)?;
        reserve(&mut s.pkts, rows)?;
        reserve(&mut s.bytes, rows)?;
        reserve(&mut s.sojourn_mean_s, rows)?;
        reserve(&mut s.sojourn_max_s, rows)?;
        for col in &mut s.state {
            reserve(col, rows)?;
        }
        Ok(s)
    }

    /// Sample the queue (and start its next sojourn interval).
    pub fn sample(&mut self, now: Time, queue: &mut Queue) {
        self.t_s.push(now.secs_f64());
        self.pkts.push(queue.len_pkts() as u64);
        self.bytes.push(queue.len_bytes());
        let (sum, n, max) = queue.take_sojourn_since_sample();
        let (mean, max) = if n == 0 { (f64::NAN, f64::NAN) } else { (sum as f64 / n as f64 / 1e9, max as f64 / 1e9) };
        self.sojourn_mean_s.push(mean);
        self.sojourn_max_s.push(max);
        if !self.fields.is_empty() {
            queue.qdisc.state(&mut self.scratch);
            for (col, &v) in self.state.iter_mut().zip(&self.scratch) {
                col.push(v);
            }
        }
    }

    /// The table (moves the columns out).
    pub fn take_table(&mut self) -> Table {
        let mut t = Table::default();
        t.push("t_s", Column::F64(std::mem::take(&mut self.t_s)));
        t.push("qlen_pkts", Column::U64(std::mem::take(&mut self.pkts)));
        t.push("qlen_bytes", Column::U64(std::mem::take(&mut self.bytes)));
        t.push("sojourn_mean_s", Column::F64(std::mem::take(&mut self.sojourn_mean_s)));
        t.push("sojourn_max_s", Column::F64(std::mem::take(&mut self.sojourn_max_s)));
        for (f, col) in self.fields.iter().zip(&mut self.state) {
            t.push(f.name, Column::F64(std::mem::take(col)));
        }
        t
    }
}

/// Every started flow's cwnd, ssthresh, bytes in flight, bytes acknowledged, smoothed RTT and
/// pacing rate, plus its
/// congestion control's state in columns `<algorithm>_<field>` (NaN for flows of other
/// algorithms).
#[derive(Debug, Default)]
pub struct CwndTrace {
    t_s: Vec<f64>,
    flow: Vec<u32>,
    cwnd: Vec<u64>,
    /// NaN while ssthresh is not set ("arbitrarily high", RFC 5681).
    ssthresh: Vec<f64>,
    in_flight: Vec<u64>,
    /// snd_una: bytes the receiver has in order (its differences give goodput over time).
    acked: Vec<u64>,
    srtt_s: Vec<f64>,
    pacing_bps: Vec<f64>,
    /// Column names of algorithm state, in first-seen order.
    names: Vec<String>,
    values: Vec<Vec<f64>>,
    /// Per flow: the columns its algorithm's state fills, in `STATE` order.
    flow_cols: Vec<Vec<usize>>,
    scratch: Vec<f64>,
}

impl CwndTrace {
    /// `flows`: the run's flows, in order; room for `rows` rows is reserved.
    pub fn new(flows: &[crate::spec::FlowSpec], rows: usize) -> Result<CwndTrace, String> {
        let mut t = CwndTrace::default();
        let mut kinds: Vec<(&crate::cc::CcConfig, Cc)> = Vec::new();
        for f in flows {
            // one congestion control of each configuration tells which state fields it has
            let at = kinds.iter().position(|(c, _)| *c == &*f.cc).unwrap_or_else(|| {
                kinds.push((&f.cc, Cc::new(&f.cc, &crate::tcp::sender::Sender::cc_env(&f.tcp))));
                kinds.len() - 1
            });
            let cc = &kinds[at].1;
            let algo = cc.info().name;
            let cols = cc
                .state_fields()
                .iter()
                .map(|f| {
                    let name = format!("{algo}_{}", f.name);
                    t.names.iter().position(|n| *n == name).unwrap_or_else(|| {
                        t.names.push(name);
                        t.names.len() - 1
                    })
                })
                .collect();
            t.flow_cols.push(cols);
        }
        t.values = vec![Vec::new(); t.names.len()];
        reserve(&mut t.t_s, rows)?;
        reserve(&mut t.flow, rows)?;
        reserve(&mut t.cwnd, rows)?;
        reserve(&mut t.ssthresh, rows)?;
        reserve(&mut t.in_flight, rows)?;
        reserve(&mut t.acked, rows)?;
        reserve(&mut t.srtt_s, rows)?;
        reserve(&mut t.pacing_bps, rows)?;
        for col in &mut t.values {
            reserve(col, rows)?;
        }
        Ok(t)
    }

    pub fn sample(&mut self, now: Time, flow: u32, sender: &Sender) {
        let (w, cc) = (&sender.window, &sender.cc);
        self.t_s.push(now.secs_f64());
        self.flow.push(flow);
        self.cwnd.push(w.cwnd);
        self.ssthresh.push(if w.ssthresh == u64::MAX { f64::NAN } else { w.ssthresh as f64 });
        self.in_flight.push(sender.pipe_bytes());
        self.acked.push(sender.snd_una());
        self.srtt_s.push(sender.rtt.srtt.get().map_or(f64::NAN, |d| d.secs_f64()));
        self.pacing_bps.push(cc.pacing_rate(w).map_or(f64::NAN, |r| r.bps() as f64));
        if self.values.is_empty() {
            return;
        }
        let cols = &self.flow_cols[flow as usize];
        self.scratch.clear();
        self.scratch.resize(cols.len(), f64::NAN);
        cc.state(w, &mut self.scratch);
        for col in self.values.iter_mut() {
            col.push(f64::NAN);
        }
        for (&c, &v) in cols.iter().zip(&self.scratch) {
            *self.values[c].last_mut().expect("pushed above") = v;
        }
    }

    /// The table (moves the columns out); `flow` is categorical over `flow_names`.
    pub fn take_table(&mut self, flow_names: &[String]) -> Table {
        let mut t = Table::default();
        t.push("t_s", Column::F64(std::mem::take(&mut self.t_s)));
        t.push("flow", Column::Cat { codes: std::mem::take(&mut self.flow), labels: flow_names.to_vec() });
        t.push("cwnd_bytes", Column::U64(std::mem::take(&mut self.cwnd)));
        t.push("ssthresh_bytes", Column::F64(std::mem::take(&mut self.ssthresh)));
        t.push("in_flight_bytes", Column::U64(std::mem::take(&mut self.in_flight)));
        t.push("acked_bytes", Column::U64(std::mem::take(&mut self.acked)));
        t.push("srtt_s", Column::F64(std::mem::take(&mut self.srtt_s)));
        t.push("pacing_rate_bps", Column::F64(std::mem::take(&mut self.pacing_bps)));
        for (name, col) in self.names.iter().zip(&mut self.values) {
            t.push(name, Column::F64(std::mem::take(col)));
        }
        t
    }
}
