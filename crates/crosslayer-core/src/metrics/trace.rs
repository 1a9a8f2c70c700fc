//! Time series recorded every `sample_interval`: one queue's length and its discipline's state,
//! and every flow's window with its congestion control's state. Columns of algorithm state are
//! named after the fields the algorithm declares (`STATE`), so they are known before the run.

use crate::aqm::Queue;
use crate::cc::{Cc, Window};
use crate::registry::Field;
use crate::result::{Column, Table};
use crate::units::Time;

/// The sampled queue: length and discipline state.
#[derive(Debug, Default)]
pub struct QueueSeries {
    t_s: Vec<f64>,
    pkts: Vec<u64>,
    bytes: Vec<u64>,
    fields: &'static [Field],
    /// One vector per state field.
    state: Vec<Vec<f64>>,
    scratch: Vec<f64>,
}

impl QueueSeries {
    pub fn new(queue: &Queue) -> QueueSeries {
        let fields = queue.qdisc.state_fields();
        QueueSeries { fields, state: vec![Vec::new(); fields.len()], scratch: vec![0.0; fields.len()], ..Default::default() }
    }

    pub fn sample(&mut self, now: Time, queue: &Queue) {
        self.t_s.push(now.secs_f64());
        self.pkts.push(queue.len_pkts() as u64);
        self.bytes.push(queue.len_bytes());
        if !self.fields.is_empty() {
            queue.qdisc.state(&mut self.scratch);
            for (col, &v) in self.state.iter_mut().zip(&self.scratch) {
                col.push(v);
            }
        }
    }

    pub fn table(&self) -> Table {
        let mut t = Table::default();
        t.push("t_s", Column::F64(self.t_s.clone()));
        t.push("qlen_pkts", Column::U64(self.pkts.clone()));
        t.push("qlen_bytes", Column::U64(self.bytes.clone()));
        for (f, col) in self.fields.iter().zip(&self.state) {
            t.push(f.name, Column::F64(col.clone()));
        }
        t
    }
}

/// Every started flow's cwnd and ssthresh, plus its congestion control's state in columns
/// `<algorithm>_<field>` (NaN for flows of other algorithms).
#[derive(Debug, Default)]
pub struct CwndTrace {
    t_s: Vec<f64>,
    flow: Vec<u32>,
    cwnd: Vec<u64>,
    ssthresh: Vec<u64>,
    /// Column names of algorithm state, in first-seen order.
    names: Vec<String>,
    values: Vec<Vec<f64>>,
    /// Per flow: the columns its algorithm's state fills, in `STATE` order.
    flow_cols: Vec<Vec<usize>>,
    scratch: Vec<f64>,
}

impl CwndTrace {
    /// `ccs`: each flow's congestion control, in flow order.
    pub fn new<'a>(ccs: impl Iterator<Item = &'a Cc>) -> CwndTrace {
        let mut t = CwndTrace::default();
        for cc in ccs {
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
        t
    }

    pub fn sample(&mut self, now: Time, flow: u32, w: &Window, cc: &Cc) {
        self.t_s.push(now.secs_f64());
        self.flow.push(flow);
        self.cwnd.push(w.cwnd);
        self.ssthresh.push(w.ssthresh);
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

    pub fn table(&self, flow_names: &[String]) -> Table {
        let mut t = Table::default();
        t.push("t_s", Column::F64(self.t_s.clone()));
        t.push("flow", Column::Str(self.flow.iter().map(|&f| flow_names[f as usize].clone()).collect()));
        t.push("cwnd_bytes", Column::U64(self.cwnd.clone()));
        t.push("ssthresh_bytes", Column::U64(self.ssthresh.clone()));
        for (name, col) in self.names.iter().zip(&self.values) {
            t.push(name, Column::F64(col.clone()));
        }
        t
    }
}
