//! Results as column-oriented tables (cheap to hand to pandas, Arrow or a CSV writer).

/// A column of a result table.
#[derive(Clone, Debug, PartialEq)]
pub enum Column {
    F64(Vec<f64>),
    U64(Vec<u64>),
    Str(Vec<String>),
    /// Strings from a small set: `labels[codes[i]]` (a pandas Categorical on the Python side).
    Cat { codes: Vec<u32>, labels: Vec<String> },
}

impl Column {
    pub fn len(&self) -> usize {
        match self {
            Column::F64(v) => v.len(),
            Column::U64(v) => v.len(),
            Column::Str(v) => v.len(),
            Column::Cat { codes, .. } => codes.len(),
        }
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    pub fn empty(dtype: crate::report::DType) -> Column {
        match dtype {
            crate::report::DType::F64 => Column::F64(Vec::new()),
            crate::report::DType::U64 => Column::U64(Vec::new()),
            crate::report::DType::Str => Column::Str(Vec::new()),
            crate::report::DType::Cat => Column::Cat { codes: Vec::new(), labels: Vec::new() },
        }
    }
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

    pub fn strs(&self, name: &str) -> &[String] {
        match self.get(name) {
            Some(Column::Str(v)) => v,
            _ => panic!("no str column {name}"),
        }
    }

    /// A string or categorical column as strings.
    pub fn labels(&self, name: &str) -> Vec<String> {
        match self.get(name) {
            Some(Column::Str(v)) => v.clone(),
            Some(Column::Cat { codes, labels }) => codes.iter().map(|&c| labels[c as usize].clone()).collect(),
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

/// A finished run: the summary and the tables described in `report`.
#[derive(Clone, Debug, Default)]
pub struct RunResult {
    pub summary: Summary,
    pub flows: Table,
    pub udp: Table,
    pub queues: Table,
    pub hosts: Table,
    pub drops: Table,
    pub qdisc_stats: Table,
    pub series: Table,
    pub cwnd: Table,
}

impl RunResult {
    /// The tables by name, in the order of `report::tables_json`.
    pub fn tables(&self) -> [(&'static str, &Table); 8] {
        [
            ("flows", &self.flows),
            ("udp", &self.udp),
            ("queues", &self.queues),
            ("hosts", &self.hosts),
            ("drops", &self.drops),
            ("qdisc_stats", &self.qdisc_stats),
            ("series", &self.series),
            ("cwnd", &self.cwnd),
        ]
    }
}
