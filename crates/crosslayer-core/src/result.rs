//! Results as column-oriented tables (cheap to hand to pandas, Arrow or a CSV writer), and the
//! vocabulary to declare them: a column's name, unit, doc and type ([`ColumnSpec`]) and how a
//! row gives its value ([`Col`]). Counters (`counters!`), recorders and the report declare
//! their columns with it, so the same declarations build a run's tables and describe them.

use serde_json::{json, Value as Json};
use std::collections::HashMap;

/// A column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    /// Strings, each distinct one stored once: row `i` is `labels[codes[i]]` (a result table
    /// repeats a few thousand names over up to millions of rows).
    Str { codes: Vec<u32>, labels: Vec<String> },
    /// Strings from a small set: `labels[codes[i]]` (a pandas Categorical on the Python side).
    Cat { codes: Vec<u32>, labels: Vec<String> },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Str { codes, .. } | Column::Cat { codes, .. } => codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn empty(dtype: DType) -> Column {
        match dtype {
            DType::F64 => Column::F64(Vec::new()),
            DType::U64 => Column::U64(Vec::new()),
            DType::Str => Column::Str { codes: Vec::new(), labels: Vec::new() },
            DType::Cat => Column::Cat { codes: Vec::new(), labels: Vec::new() },
        }
    }
}

/// Element type of a column.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DType {
    F64,
    U64,
    Str,
    /// Strings from a small set (codes and labels).
    Cat,
}

impl DType {
    fn name(self) -> &'static str {
        match self {
            DType::F64 => "f64",
            DType::U64 => "u64",
            DType::Str => "str",
            DType::Cat => "category",
        }
    }
}

/// What a column is.
#[derive(Clone, Debug)]
pub struct ColumnSpec {
    pub name: &'static str,
    /// Unit symbol (`s`, `bps`, `bytes`, `pkts`, `count`, `ratio`, `flag`), empty for labels.
    pub unit: &'static str,
    pub doc: String,
    pub dtype: DType,
}

impl ColumnSpec {
    pub fn to_json(&self) -> Json {
        json!({"name": self.name, "unit": self.unit, "doc": self.doc, "dtype": self.dtype.name()})
    }
}

enum Getter<'a, T> {
    F64(Box<dyn Fn(&T) -> f64 + 'a>),
    U64(Box<dyn Fn(&T) -> u64 + 'a>),
    Str(Box<dyn for<'r> Fn(&'r T) -> &'r str + 'a>),
}

/// A declared column of rows of type `T`.
pub struct Col<'a, T> {
    pub spec: ColumnSpec,
    get: Getter<'a, T>,
}

fn doc(lines: &[&str]) -> String {
    crate::params::join_doc(lines)
}

impl<'a, T> Col<'a, T> {
    pub fn u64(name: &'static str, unit: &'static str, d: &[&str], f: impl Fn(&T) -> u64 + 'a) -> Col<'a, T> {
        Col { spec: ColumnSpec { name, unit, doc: doc(d), dtype: DType::U64 }, get: Getter::U64(Box::new(f)) }
    }
    pub fn f64(name: &'static str, unit: &'static str, d: &str, f: impl Fn(&T) -> f64 + 'a) -> Col<'a, T> {
        Col { spec: ColumnSpec { name, unit, doc: doc(&[d]), dtype: DType::F64 }, get: Getter::F64(Box::new(f)) }
    }
    pub fn str(name: &'static str, d: &str, f: impl for<'r> Fn(&'r T) -> &'r str + 'a) -> Col<'a, T> {
        Col { spec: ColumnSpec { name, unit: "", doc: doc(&[d]), dtype: DType::Str }, get: Getter::Str(Box::new(f)) }
    }
}

/// Build a table from rows.
pub fn build<T>(cols: &[Col<'_, T>], rows: &[T]) -> Table {
    let mut b = Builder::new(cols, rows.len());
    rows.iter().for_each(|r| b.push(r));
    b.finish()
}

/// Build a table of `count` rows made one at a time, none kept: for tables of many rows (the
/// `hops` table has one per flow and link of its path).
pub fn build_each<T>(cols: &[Col<'_, T>], count: usize, rows: impl Iterator<Item = T>) -> Table {
    let mut b = Builder::new(cols, count);
    rows.for_each(|r| b.push(&r));
    b.finish()
}

/// Columns filled a row at a time; a string column keeps each distinct string once.
struct Builder<'c, 'a, T> {
    cols: &'c [Col<'a, T>],
    out: Vec<Column>,
    index: Vec<HashMap<String, u32>>,
}

impl<'c, 'a, T> Builder<'c, 'a, T> {
    fn new(cols: &'c [Col<'a, T>], rows: usize) -> Self {
        let out = cols
            .iter()
            .map(|c| match c.get {
                Getter::F64(_) => Column::F64(Vec::with_capacity(rows)),
                Getter::U64(_) => Column::U64(Vec::with_capacity(rows)),
                Getter::Str(_) => Column::Str { codes: Vec::with_capacity(rows), labels: Vec::new() },
            })
            .collect();
        Builder { cols, out, index: cols.iter().map(|_| HashMap::new()).collect() }
    }

    fn push(&mut self, r: &T) {
        for ((c, out), index) in self.cols.iter().zip(&mut self.out).zip(&mut self.index) {
            match (&c.get, out) {
                (Getter::F64(f), Column::F64(v)) => v.push(f(r)),
                (Getter::U64(f), Column::U64(v)) => v.push(f(r)),
                (Getter::Str(f), Column::Str { codes, labels }) => {
                    let s = f(r);
                    let code = match index.get(s) {
                        Some(&k) => k,
                        None => {
                            labels.push(s.to_string());
                            index.insert(s.to_string(), (labels.len() - 1) as u32);
                            (labels.len() - 1) as u32
                        }
                    };
                    codes.push(code);
                }
                _ => unreachable!("a column made for its getter"),
            }
        }
    }

    fn finish(self) -> Table {
        let mut t = Table::default();
        for (c, col) in self.cols.iter().zip(self.out) {
            t.push(c.spec.name, col);
        }
        t
    }
}

pub fn static_columns(cols: &[(&'static str, &'static str, &'static str, DType)]) -> Vec<ColumnSpec> {
    cols.iter().map(|&(name, unit, d, dtype)| ColumnSpec { name, unit, doc: d.into(), dtype }).collect()
}

/// Named columns of equal length.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Table {
    pub columns: Vec<(String, Column)>,
}

impl Table {
    pub fn push(&mut self, name: &str, c: Column) {
        debug_assert!(self.columns.first().is_none_or(|(_, f)| f.len() == c.len()), "ragged table at {name}");
        self.columns.push((name.to_string(), c));
    }

    pub fn get(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|(n, _)| n == name).map(|(_, c)| c)
    }

    pub fn f64s(&self, name: &str) -> &[f64] {
        match self.get(name) {
            Some(Column::F64(v)) => v,
            _ => panic!("no f64 column {name}"),
        }
    }

    pub fn u64s(&self, name: &str) -> &[u64] {
        match self.get(name) {
            Some(Column::U64(v)) => v,
            _ => panic!("no u64 column {name}"),
        }
    }

    /// A string column, row by row (a copy: for tests and small tables).
    pub fn strs(&self, name: &str) -> Vec<String> {
        match self.get(name) {
            Some(Column::Str { codes, labels }) => codes.iter().map(|&c| labels[c as usize].clone()).collect(),
            _ => panic!("no str column {name}"),
        }
    }

    /// A string or categorical column as strings.
    pub fn labels(&self, name: &str) -> Vec<String> {
        match self.get(name) {
            Some(Column::Str { codes, labels } | Column::Cat { codes, labels }) => codes.iter().map(|&c| labels[c as usize].clone()).collect(),
            _ => panic!("no str column {name}"),
        }
    }

    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |(_, c)| c.len())
    }

    pub fn names(&self) -> Vec<&str> {
        self.columns.iter().map(|(n, _)| n.as_str()).collect()
    }
}

/// Scalar summary values.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub seed: u64,
    pub sim_s: f64,
    pub measured_s: f64,
    pub wall_s: f64,
    pub events: u64,
    /// Data segments that reached their receivers over the whole run.
    pub delivered_segments: u64,
    pub flows: u64,
    /// Peak number of packets alive at once (arena high-water mark).
    pub peak_packets: u64,
}

/// One packet-capture file of a run (`report::pcap`): its name and its pcap bytes.
#[derive(Clone, Debug, Default)]
pub struct CaptureFile {
    pub name: String,
    pub bytes: Vec<u8>,
    /// Packets written.
    pub packets: u64,
    /// Packets not written because the capture reached its size cap.
    pub missed: u64,
}

/// A finished run: the summary and the tables described in `report`.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub summary: Summary,
    pub flows: Table,
    pub udp: Table,
    pub queues: Table,
    pub hosts: Table,
    pub hops: Table,
    pub drops: Table,
    pub qdisc_stats: Table,
    pub series: Table,
    pub cwnd: Table,
    pub goodput: Table,
    /// The byte milestones flows passed (`FlowSpec::milestones`).
    pub milestones: Table,
    /// The members of the wireless LANs (`net::wlan`), if any.
    pub wlan: Table,
    /// The packet captures (`pcap`), if the scenario asked for them.
    pub pcap: Vec<CaptureFile>,
}

impl RunResult {
    /// The tables by name, in the order of `report::tables_json`.
    pub fn tables(&self) -> [(&'static str, &Table); 12] {
        [
            ("flows", &self.flows),
            ("udp", &self.udp),
            ("queues", &self.queues),
            ("hosts", &self.hosts),
            ("hops", &self.hops),
            ("drops", &self.drops),
            ("qdisc_stats", &self.qdisc_stats),
            ("series", &self.series),
            ("cwnd", &self.cwnd),
            ("goodput", &self.goodput),
            ("milestones", &self.milestones),
            ("wlan", &self.wlan),
        ]
    }
}
