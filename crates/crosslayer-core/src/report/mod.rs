//! Result tables, assembled after the run from the modules' own column declarations.
//!
//! Every column is declared once, here or in the module whose counters it reads (`counters!`
//! gives each counter its column), with its name, unit and doc. The same declarations build the
//! tables of a run and describe them without one ([`tables_json`], exported to Python, which
//! takes its column lists and its test stubs from it).
//!
//! Tables: `flows` (one row per TCP flow), `udp` (one row per unresponsive CBR flow), `queues`
//! (one row per simplex link), `hosts` (one row per host that sends and bottleneck its data
//! crosses), `hops` (one row per flow, direction and link of its path), `drops` (one row per
//! link and declared drop/mark reason of its discipline), `qdisc_stats` (one row per link and
//! counter its discipline declares), `series` (one queue, the bottleneck by default, every
//! `sample_interval`, with its discipline's state), `cwnd` (every flow's window, with its congestion control's state),
//! `wlan` (one row per member of a wireless LAN: what it did on the shared medium).
//! Values cover the measurement window `[warmup, duration]` unless the doc says otherwise.

use crate::aqm::QueueCounters;
use crate::metrics::Counters;
use crate::net::link::{LinkCounters, LinkRole};
use crate::net::wlan::DcfCounters;
use crate::result::{build, build_each, static_columns, Col, Column, ColumnSpec, DType, RunResult, Summary, Table};
use crate::sim::{BottleneckCounters, CoreCounters, Sim};
use crate::tcp::receiver::ReceiverCounters;
use crate::tcp::sender::SenderCounters;
use crate::traffic::cbr::{CbrRecvCounters, CbrSentCounters};
use crate::units::{Dur, Time};

pub mod pcap;
pub mod trace;
use serde_json::{json, Value as Json};

fn nan_or(v: Option<f64>) -> f64 {
    v.unwrap_or(f64::NAN)
}

/// Doc of the `direction` column of the flow tables.
const DIRECTION_DOC: &str = "in a dumbbell, forward: data from a sender host to a receiver host over A->B (the bottleneck); reverse: from a receiver host to a sender host over B->A. In a graph: forward";

fn direction(reverse: bool) -> &'static str {
    if reverse {
        "reverse"
    } else {
        "forward"
    }
}

/// One flow, measured over the window.
pub struct FlowRow<'a> {
    name: &'a str,
    src: &'a str,
    dst: &'a str,
    reverse: bool,
    cc: &'static str,
    start_s: f64,
    stop_s: f64,
    connection: &'static str,
    ecn: &'static str,
    connected_s: f64,
    ended_s: f64,
    base_rtt: Dur,
    route: String,
    ack_route: String,
    bottleneck_link: &'a str,
    span: Dur,
    sender: SenderCounters,
    receiver: ReceiverCounters,
    bottleneck: BottleneckCounters,
    rtt_mean_s: Option<f64>,
    rtt_min_s: Option<f64>,
    rtt_p99_s: Option<f64>,
    rtt_samples: u64,
    cwnd_final_bytes: u64,
    /// A finite flow's size, what its receiver still lacked at the end, its completion time and
    /// ideal completion time.
    size: Option<u64>,
    bytes_left: u64,
    fct: Option<Dur>,
    ideal_fct: Option<Dur>,
}

/// Columns of the `flows` table.
pub fn flow_columns<'a>() -> Vec<Col<'a, FlowRow<'a>>> {
    let mut c = vec![
        Col::str("name", "flow name: <src>-<dst>.<k>", |r: &FlowRow| r.name),
        Col::str("src", "the host sending the data (in a dumbbell a sender host, or a receiver host for a reverse flow)", |r: &FlowRow| r.src),
        Col::str("dst", "the host receiving the data (in a dumbbell a receiver host, or a sender host for a reverse flow)", |r: &FlowRow| r.dst),
        Col::str("direction", DIRECTION_DOC, |r: &FlowRow| direction(r.reverse)),
        Col::str("cc", "congestion control (canonical name)", |r: &FlowRow| r.cc),
        Col::f64("start_s", "s", "start time (whole run)", |r: &FlowRow| r.start_s),
        Col::f64("stop_s", "s", "time the sender stopped sending new data; NaN = ran to the end", |r: &FlowRow| r.stop_s),
        Col::str("connection", "the connection at the end: established, closed (a finite flow that completed and closed both ways), never_connected (every SYN timed out), aborted (data_retries timeouts), reset (its application aborted it at its abort time), connecting, not_started", |r: &FlowRow| r.connection),
        Col::str("ecn_negotiated", "the ECN feedback its connection uses, as the handshake negotiated it (tcp peer_ecn; a middlebox's clear_ae) and the sender reads it: off, classic (RFC 3168), dctcp (RFC 8257's echo) or accecn (RFC 9768); off for an algorithm that needs ECN means it ran Reno (Linux's dctcp and tcp_prague fall back so)", |r: &FlowRow| r.ecn),
        Col::f64("connected_s", "s", "when the handshake completed (the start time without a handshake); NaN = never", |r: &FlowRow| r.connected_s),
        Col::f64("ended_s", "s", "when the connection failed or was given up; NaN = it did not", |r: &FlowRow| r.ended_s),
        Col::f64("base_rtt_s", "s", "propagation round-trip time (no queueing, no serialization): the delays of its data path and of its ACKs' path", |r: &FlowRow| r.base_rtt.secs_f64()),
        Col::f64("goodput_bps", "bps", "payload bytes the receiver got for the first time during the window (counted when they arrive), per second of the window", |r: &FlowRow| {
            r.receiver.received_bytes as f64 * 8.0 / r.span.secs_f64()
        }),
        Col::f64("throughput_bps", "bps", "bytes the sender put on the wire (headers and retransmissions included), per second of the window", |r: &FlowRow| {
            r.sender.wire_bytes as f64 * 8.0 / r.span.secs_f64()
        }),
    ];
    c.extend(ReceiverCounters::columns(|r: &FlowRow| r.receiver));
    c.extend(SenderCounters::columns(|r: &FlowRow| r.sender));
    c.extend(BottleneckCounters::columns(|r: &FlowRow| r.bottleneck));
    c.extend([
        Col::f64("rtt_mean_s", "s", "mean RTT sample in the window (Karn's rule)", |r: &FlowRow| nan_or(r.rtt_mean_s)),
        Col::f64("rtt_min_s", "s", "smallest RTT sample in the window", |r: &FlowRow| nan_or(r.rtt_min_s)),
        Col::f64("rtt_p99_s", "s", "99th percentile of RTT samples in the window", |r: &FlowRow| nan_or(r.rtt_p99_s)),
        Col::u64("rtt_samples", "count", &["RTT samples in the window"], |r: &FlowRow| r.rtt_samples),
        Col::u64("cwnd_final_bytes", "bytes", &["congestion window at the end of the run"], |r: &FlowRow| r.cwnd_final_bytes),
        Col::str("route", ROUTE_DOC, |r: &FlowRow| &r.route),
        Col::str("ack_route", "the links its ACKs cross, in order, joined by commas (may differ from the data's: asymmetric routes)", |r: &FlowRow| &r.ack_route),
        Col::str("bottleneck", BOTTLENECK_DOC, |r: &FlowRow| r.bottleneck_link),
        Col::u64("size_bytes", "bytes", &["payload bytes of a finite flow; 0 = a bulk transfer"], |r: &FlowRow| r.size.unwrap_or(0)),
        Col::u64("bytes_left", "bytes", &["bytes of a finite flow its receiver had not got in order when the run ended (0 once complete; 0 for a bulk transfer)"], |r: &FlowRow| r.bytes_left),
        Col::f64("fct_s", "s", "flow completion time: from its start (the first SYN) to the delivery of its last byte to the receiver; NaN = not completed (or a bulk transfer)", |r: &FlowRow| {
            r.fct.map_or(f64::NAN, Dur::secs_f64)
        }),
        Col::f64("ideal_fct_s", "s", IDEAL_DOC, |r: &FlowRow| r.ideal_fct.map_or(f64::NAN, Dur::secs_f64)),
        Col::f64("slowdown", "ratio", "fct_s / ideal_fct_s (>= 1; NaN = not completed)", |r: &FlowRow| match (r.fct, r.ideal_fct) {
            (Some(f), Some(i)) if i > Dur::ZERO => f.secs_f64() / i.secs_f64(),
            _ => f64::NAN,
        }),
    ]);
    c
}

const IDEAL_DOC: &str = "a finite flow's completion time alone on its path with an unlimited window: the handshake, then its packets back to back through every link (serialization at each link's rate, store and forward, propagation delays); NaN for a bulk transfer";

const ROUTE_DOC: &str = "the links its data crosses, in order, joined by commas (e.g. S0->R1,R1->R2,R2->D0; split on ',' for a list); the hops table has its counts at each";
const BOTTLENECK_DOC: &str = "the link its bottleneck_* columns count at: the slowest link on its data path between two routers or into or out of a wireless LAN's medium (the first of equals), or the slowest link if it crosses none";

/// One unresponsive (CBR) flow, measured over the window.
pub struct UdpRow<'a> {
    name: &'a str,
    src: &'a str,
    dst: &'a str,
    reverse: bool,
    rate_bps: u64,
    packet_bytes: u64,
    start_s: f64,
    stop_s: f64,
    base_owd: Dur,
    route: String,
    bottleneck_link: &'a str,
    sent: CbrSentCounters,
    recv: CbrRecvCounters,
    bottleneck: BottleneckCounters,
    dropped_pkts: u64,
    owd: [Option<f64>; 4],
    span: Dur,
}

/// Columns of the `udp` table.
pub fn udp_columns<'a>() -> Vec<Col<'a, UdpRow<'a>>> {
    let mut c = vec![
        Col::str("name", "flow name: <src>-<dst>.udp<k>", |r: &UdpRow| r.name),
        Col::str("src", "the source host (in a dumbbell a sender host, or a receiver host for a reverse flow)", |r: &UdpRow| r.src),
        Col::str("dst", "the sink host (in a dumbbell a receiver host, or a sender host for a reverse flow)", |r: &UdpRow| r.dst),
        Col::str("direction", DIRECTION_DOC, |r: &UdpRow| direction(r.reverse)),
        Col::u64("rate_bps", "bps", &["configured sending rate (wire bytes)"], |r: &UdpRow| r.rate_bps),
        Col::u64("packet_bytes", "bytes", &["wire size of each datagram"], |r: &UdpRow| r.packet_bytes),
        Col::f64("start_s", "s", "first datagram (whole run)", |r: &UdpRow| r.start_s),
        Col::f64("stop_s", "s", "no datagram from this time; NaN = ran to the end", |r: &UdpRow| r.stop_s),
        Col::f64("base_owd_s", "s", "propagation delay from source to sink (no queueing, no serialization)", |r: &UdpRow| r.base_owd.secs_f64()),
        Col::f64("offered_bps", "bps", "wire bytes sent in the window, per second of the window", |r: &UdpRow| r.sent.sent_bytes as f64 * 8.0 / r.span.secs_f64()),
        Col::f64("throughput_bps", "bps", "wire bytes delivered to the sink in the window, per second of the window", |r: &UdpRow| {
            r.recv.delivered_bytes as f64 * 8.0 / r.span.secs_f64()
        }),
    ];
    c.extend(CbrSentCounters::columns(|r: &UdpRow| r.sent));
    c.extend(CbrRecvCounters::columns(|r: &UdpRow| r.recv));
    c.extend([
        Col::u64("dropped_pkts", "pkts", &["datagrams dropped (by any queue) or lost on a link in the window"], |r: &UdpRow| r.dropped_pkts),
        Col::f64("loss_ratio", "ratio", "dropped_pkts / sent_pkts in the window", |r: &UdpRow| {
            if r.sent.sent_pkts == 0 {
                f64::NAN
            } else {
                r.dropped_pkts as f64 / r.sent.sent_pkts as f64
            }
        }),
    ]);
    c.extend(BottleneckCounters::columns(|r: &UdpRow| r.bottleneck));
    c.extend([
        Col::f64("owd_mean_s", "s", "mean one-way delay (arrival - departure) of datagrams delivered in the window", |r: &UdpRow| nan_or(r.owd[0])),
        Col::f64("owd_min_s", "s", "smallest one-way delay in the window", |r: &UdpRow| nan_or(r.owd[1])),
        Col::f64("owd_p50_s", "s", "median one-way delay in the window", |r: &UdpRow| nan_or(r.owd[2])),
        Col::f64("owd_p99_s", "s", "99th percentile of the one-way delay in the window", |r: &UdpRow| nan_or(r.owd[3])),
        Col::str("route", ROUTE_DOC, |r: &UdpRow| &r.route),
        Col::str("bottleneck", BOTTLENECK_DOC, |r: &UdpRow| r.bottleneck_link),
    ]);
    c
}

/// One simplex link and its queue, measured over the window.
pub struct LinkRow<'a> {
    name: &'a str,
    role: LinkRole,
    qdisc: &'static str,
    rate_bps: u64,
    delay: Dur,
    qlen_pkts: (f64, f64),
    qlen_bytes: (f64, f64),
    sojourn: [Option<f64>; 3],
    queue: QueueCounters,
    link: LinkCounters,
    bottleneck_flows: u64,
    span: Dur,
}

/// Columns of the `queues` table.
pub fn queue_columns<'a>() -> Vec<Col<'a, LinkRow<'a>>> {
    let mut c = vec![
        Col::str("link", "link name: <from>-><to>", |r: &LinkRow| r.name),
        Col::str("role", "in a dumbbell: forward (A->B, the bottleneck), reverse (B->A), sender_up, sender_down, receiver_up, receiver_down; in a graph: router (between two routers), host_up (from a host), host_down (to a host), wlan_up / wlan_down (a wireless LAN's, from a station / from its access point), or the role the link declares", |r: &LinkRow| r.role.name()),
        Col::str("qdisc", "queue discipline (canonical name)", |r: &LinkRow| r.qdisc),
        Col::u64("rate_bps", "bps", &["link rate"], |r: &LinkRow| r.rate_bps),
        Col::f64("delay_s", "s", "propagation delay", |r: &LinkRow| r.delay.secs_f64()),
        Col::f64("qlen_mean_pkts", "pkts", "exact time-average of the queue length (the packet in transmission not counted)", |r: &LinkRow| r.qlen_pkts.0),
        Col::f64("qlen_sd_pkts", "pkts", "time-weighted standard deviation of the queue length", |r: &LinkRow| r.qlen_pkts.1),
        Col::f64("qlen_mean_bytes", "bytes", "exact time-average of the queued bytes", |r: &LinkRow| r.qlen_bytes.0),
        Col::f64("qlen_sd_bytes", "bytes", "time-weighted standard deviation of the queued bytes", |r: &LinkRow| r.qlen_bytes.1),
        Col::f64("sojourn_mean_s", "s", "mean sojourn time (dequeue - enqueue) of dequeued packets", |r: &LinkRow| nan_or(r.sojourn[0])),
        Col::f64("sojourn_p50_s", "s", "median sojourn time", |r: &LinkRow| nan_or(r.sojourn[1])),
        Col::f64("sojourn_p99_s", "s", "99th percentile of the sojourn time", |r: &LinkRow| nan_or(r.sojourn[2])),
    ];
    c.extend(QueueCounters::columns(|r: &LinkRow| r.queue));
    c.extend([
        Col::u64("drops", "pkts", &["packets the discipline dropped (drops_arrival + drops_queued); per reason in the drops table"], |r: &LinkRow| r.queue.drops()),
        Col::f64("drop_ratio", "ratio", "drops / arrivals (random wire loss is not a queue drop)", |r: &LinkRow| {
            if r.queue.arrivals == 0 {
                0.0
            } else {
                r.queue.drops() as f64 / r.queue.arrivals as f64
            }
        }),
    ]);
    c.extend(LinkCounters::columns(|r: &LinkRow| r.link));
    c.push(Col::f64("utilization", "ratio", "busy_ns / window: the fraction of the window the transmitter was serializing", |r: &LinkRow| {
        r.link.busy_ns as f64 / r.span.ns() as f64
    }));
    c.push(Col::u64("bottleneck_flows", "count", &["flows (TCP and UDP) whose data path has this link as its bottleneck (their bottleneck column)"], |r: &LinkRow| r.bottleneck_flows));
    c
}

/// One host that sends TCP data and one bottleneck its flows cross: how they fared there (the
/// lock-out indicators).
pub struct HostRow {
    host: String,
    reverse: bool,
    bottleneck_link: String,
    flows: u64,
    goodput_bps: f64,
    total_goodput_bps: f64,
    zero_goodput_flows: u64,
    never_connected_flows: u64,
    bottleneck: BottleneckCounters,
}

/// Columns of the `hosts` table.
pub fn host_columns() -> Vec<Col<'static, HostRow>> {
    let mut c = vec![
        Col::str("host", "a sender host, or a receiver host that sends reverse flows", |r: &HostRow| &r.host),
        Col::str("direction", "in a dumbbell, forward (a sender host: its flows cross A->B) or reverse (a receiver host: its reverse flows cross B->A); in a graph: forward", |r: &HostRow| direction(r.reverse)),
        Col::u64("flows", "count", &["TCP flows sending data from this host (through this bottleneck)"], |r: &HostRow| r.flows),
        Col::f64("goodput_bps", "bps", "sum of its flows' goodput", |r: &HostRow| r.goodput_bps),
        Col::f64("goodput_share", "ratio", "its share of the goodput of all flows with the same bottleneck (in a dumbbell: all flows in its direction): near 1 for one host and 0 for the others is a lock-out", |r: &HostRow| {
            if r.total_goodput_bps > 0.0 {
                r.goodput_bps / r.total_goodput_bps
            } else {
                f64::NAN
            }
        }),
        Col::u64("zero_goodput_flows", "count", &["its flows that delivered nothing in the window"], |r: &HostRow| r.zero_goodput_flows),
        Col::u64("never_connected_flows", "count", &["its flows whose every SYN timed out"], |r: &HostRow| r.never_connected_flows),
    ];
    c.extend(BottleneckCounters::columns(|r: &HostRow| r.bottleneck));
    c.push(Col::f64("bottleneck_drop_share", "ratio", "bottleneck_drops / bottleneck_arrivals: how often its packets were dropped at the queue of the bottleneck (A->B, or B->A for a receiver host's reverse flows), on arrival or from the queue", |r: &HostRow| {
        if r.bottleneck.bottleneck_arrivals > 0 {
            r.bottleneck.bottleneck_drops as f64 / r.bottleneck.bottleneck_arrivals as f64
        } else {
            f64::NAN
        }
    }));
    c.push(Col::str("bottleneck", "the link its flows' bottleneck_* columns count at", |r: &HostRow| &r.bottleneck_link));
    c
}

/// One link of one flow's path in one direction, measured over the window.
pub struct HopRow<'a> {
    flow: &'a str,
    udp: bool,
    ack: bool,
    hop: u64,
    link: &'a str,
    bottleneck: bool,
    counts: CoreCounters,
}

/// Columns of the `hops` table.
pub fn hop_columns<'a>() -> Vec<Col<'a, HopRow<'a>>> {
    let mut c = vec![
        Col::str("flow", "flow name (of the flows or the udp table)", |r: &HopRow| r.flow),
        Col::str("protocol", "tcp or udp", |r: &HopRow| if r.udp { "udp" } else { "tcp" }),
        Col::str("direction", "data (the flow's data, SYN and handshake ACK, or a UDP flow's datagrams) or ack (its ACKs and SYN-ACK)", |r: &HopRow| if r.ack { "ack" } else { "data" }),
        Col::u64("hop", "count", &["position of the link on the path, from 0 (the source's own link)"], |r: &HopRow| r.hop),
        Col::str("link", "link name", |r: &HopRow| r.link),
        Col::u64("is_bottleneck", "flag", &["1 if this is the link the flow's bottleneck_* columns count at (the bottleneck of this direction's path)"], |r: &HopRow| r.bottleneck as u64),
    ];
    c.extend(CoreCounters::columns(|r: &HopRow| r.counts));
    c
}

/// One (link, reason) pair: what the discipline dropped and marked for that reason.
pub struct ReasonRow<'a> {
    link: &'a str,
    role: LinkRole,
    qdisc: &'static str,
    reason: &'static str,
    drops: u64,
    marks: u64,
}

/// Columns of the `drops` table.
pub fn drop_columns<'a>() -> Vec<Col<'a, ReasonRow<'a>>> {
    vec![
        Col::str("link", "link name", |r: &ReasonRow| r.link),
        Col::str("role", "link role", |r: &ReasonRow| r.role.name()),
        Col::str("qdisc", "queue discipline", |r: &ReasonRow| r.qdisc),
        Col::str("reason", "a reason the discipline declares (see `crosslayer list aqm`)", |r: &ReasonRow| r.reason),
        Col::u64("drops", "pkts", &["packets dropped for this reason"], |r: &ReasonRow| r.drops),
        Col::u64("marks", "pkts", &["packets CE-marked for this reason"], |r: &ReasonRow| r.marks),
    ]
}

/// One counter a discipline declares.
pub struct StatRow<'a> {
    link: &'a str,
    role: LinkRole,
    qdisc: &'static str,
    stat: &'static str,
    value: u64,
}

/// Columns of the `qdisc_stats` table.
pub fn stat_columns<'a>() -> Vec<Col<'a, StatRow<'a>>> {
    vec![
        Col::str("link", "link name", |r: &StatRow| r.link),
        Col::str("role", "link role", |r: &StatRow| r.role.name()),
        Col::str("qdisc", "queue discipline", |r: &StatRow| r.qdisc),
        Col::str("stat", "a counter the discipline declares (see `crosslayer list aqm`)", |r: &StatRow| r.stat),
        Col::u64("value", "count", &["its increase over the window"], |r: &StatRow| r.value),
    ]
}


/// One member of a wireless LAN (`net::wlan`) over the window.
pub struct WlanRow<'a> {
    wlan: &'a str,
    member: &'a str,
    role: &'static str,
    links: String,
    counters: DcfCounters,
    span: Dur,
}

/// Columns of the `wlan` table.
pub fn wlan_columns<'a>() -> Vec<Col<'a, WlanRow<'a>>> {
    let mut c = vec![
        Col::str("wlan", "the wireless LAN: its access point's name", |r: &WlanRow| r.wlan),
        Col::str("member", "the transmitter: the access point (sending to every station) or a station (sending to the access point)", |r: &WlanRow| r.member),
        Col::str("role", "ap or station", |r: &WlanRow| r.role),
        Col::str("links", "the links it sends on, comma-separated (the access point serves their queues in turn)", |r: &WlanRow| &r.links),
    ];
    c.extend(DcfCounters::columns(|r: &WlanRow| r.counters));
    c.push(Col::f64("airtime", "ratio", "airtime_ns / window: the fraction of the window the medium carried its frames", |r: &WlanRow| {
        r.counters.airtime_ns as f64 / r.span.ns() as f64
    }));
    c.push(Col::f64("collision_ratio", "ratio", "collisions / attempts: the conditional collision probability (NaN: no attempt)", |r: &WlanRow| {
        if r.counters.attempts == 0 { f64::NAN } else { r.counters.collisions as f64 / r.counters.attempts as f64 }
    }));
    c
}

/// The rows of the `wlan` table.
fn wlan_rows(sim: &Sim, span: Dur) -> Vec<WlanRow<'_>> {
    let topo = &sim.topo;
    let mut rows = Vec::new();
    for w in &topo.wlans {
        for (k, m) in w.members.iter().enumerate() {
            rows.push(WlanRow {
                wlan: &w.name,
                member: &topo.node_names[m.node as usize],
                role: if k == 0 { "ap" } else { "station" },
                links: m.links.iter().map(|&l| topo.links[l as usize].name.as_str()).collect::<Vec<_>>().join(","),
                counters: m.measured(),
                span,
            });
        }
    }
    rows
}

/// Fixed columns of `series` (then the sampled discipline's `state` fields, f64).
pub fn series_columns() -> Vec<ColumnSpec> {
    static_columns(&[
        ("t_s", "s", "sample time (whole run)", DType::F64),
        ("qlen_pkts", "pkts", "queue length", DType::U64),
        ("qlen_bytes", "bytes", "queued bytes", DType::U64),
        ("sojourn_mean_s", "s", "mean sojourn time of the packets dequeued since the previous sample (NaN: none)", DType::F64),
        ("sojourn_max_s", "s", "largest sojourn time of the packets dequeued since the previous sample (NaN: none)", DType::F64),
    ])
}

/// Columns of `goodput`.
pub fn goodput_columns() -> Vec<ColumnSpec> {
    static_columns(&[
        ("t_s", "s", "end of the interval (whole run)", DType::F64),
        ("flow", "", "flow name", DType::Cat),
        ("bytes", "bytes", "payload bytes delivered in order to the receiver in the interval", DType::U64),
        ("goodput_bps", "bps", "those bytes x 8 over goodput_interval", DType::F64),
    ])
}

/// Columns of `milestones`.
pub fn milestone_columns() -> Vec<ColumnSpec> {
    static_columns(&[
        ("flow", "", "flow name", DType::Cat),
        ("bytes", "bytes", "the milestone: 1500 x 10^n payload bytes in order at the receiver (15 kB, 150 kB, 1.5 MB, ...)", DType::U64),
        ("t_s", "s", "when the receiver first held them (whole run)", DType::F64),
        ("since_start_s", "s", "the same from the flow's start (its first SYN): draft-irtf-iccrg-tcpeval-01 section 5.2.3's ramp-up time", DType::F64),
    ])
}

/// The `milestones` table: a row per byte milestone a flow that asked for them passed
/// (`FlowSpec::milestones`), in the order they were passed.
fn milestone_table(sim: &Sim, flow_names: &[String]) -> Table {
    let m = &sim.milestones;
    let mut t = Table::default();
    t.push("flow", Column::Cat { codes: m.iter().map(|r| r.0).collect(), labels: flow_names.to_vec() });
    t.push("bytes", Column::U64(m.iter().map(|r| r.1).collect()));
    t.push("t_s", Column::F64(m.iter().map(|r| r.2.secs_f64()).collect()));
    t.push("since_start_s", Column::F64(m.iter().map(|r| r.2.since(sim.flows[r.0 as usize].start).secs_f64()).collect()));
    t
}

/// Fixed columns of `cwnd` (then `<cc>_<field>` for each congestion control's `state`, f64).
pub fn cwnd_columns() -> Vec<ColumnSpec> {
    static_columns(&[
        ("t_s", "s", "sample time (whole run)", DType::F64),
        ("flow", "", "flow name", DType::Cat),
        ("cwnd_bytes", "bytes", "congestion window", DType::U64),
        ("ssthresh_bytes", "bytes", "slow-start threshold (NaN = not yet set)", DType::F64),
        ("in_flight_bytes", "bytes", "bytes in flight (RFC 6675 pipe)", DType::U64),
        ("acked_bytes", "bytes", "bytes acknowledged cumulatively since the start (snd_una): its increase per sample interval is the flow's goodput then", DType::U64),
        ("srtt_s", "s", "smoothed RTT (RFC 6298; NaN before the first sample)", DType::F64),
        ("pacing_rate_bps", "bps", "pacing rate the congestion control asks for (NaN: not paced)", DType::F64),
    ])
}

fn specs<T>(cols: Vec<Col<'_, T>>) -> Vec<Json> {
    cols.iter().map(|c| c.spec.to_json()).collect()
}

/// Description of every table (for Python and the docs).
pub fn tables_json() -> Json {
    let fixed = |c: Vec<ColumnSpec>| c.iter().map(ColumnSpec::to_json).collect::<Vec<_>>();
    json!({
        "flows": {"doc": "one row per flow", "columns": specs(flow_columns())},
        "udp": {"doc": "one row per unresponsive constant-bit-rate (UDP) flow", "columns": specs(udp_columns())},
        "queues": {"doc": "one row per simplex link", "columns": specs(queue_columns())},
        "hosts": {"doc": "one row per host that sends TCP data and bottleneck its flows cross: its share there (lock-out indicators); in a dumbbell one per sender host, then one per receiver host that sends reverse flows", "columns": specs(host_columns())},
        "hops": {"doc": "one row per flow, direction (data, ack) and link of its path: what its packets met at that link's queue in the window", "columns": specs(hop_columns())},
        "drops": {"doc": "one row per link and drop/mark reason its discipline declares", "columns": specs(drop_columns())},
        "qdisc_stats": {"doc": "one row per link and counter its discipline declares", "columns": specs(stat_columns())},
        "series": {"doc": "the queue named by series_queue (the bottleneck unless told otherwise) every sample_interval", "columns": fixed(series_columns()),
                   "dynamic": "then one f64 column per state field of that queue's discipline (its `state` in the catalog)"},
        "goodput": {"doc": "every flow's goodput over each goodput_interval, from its start to the interval it ends in, when goodput_interval is set", "columns": fixed(goodput_columns())},
        "milestones": {"doc": "a row per byte milestone (1500 x 10^n bytes in order at the receiver) passed by a flow whose group sets milestones", "columns": fixed(milestone_columns())},
        "cwnd": {"doc": "every started flow's window every sample_interval, when cwnd_trace is on", "columns": fixed(cwnd_columns()),
                 "dynamic": "then one f64 column <cc>_<field> per state field of each congestion control in the run (NaN for other flows)"},
        "wlan": {"doc": "one row per member of a wireless LAN (its access point, then its stations): what it did on the shared 802.11 medium", "columns": specs(wlan_columns())},
    })
}

/// What the packets of one slot (a flow, a direction, a link) met over the measurement window
/// (the counts are zeroed when it starts).
fn measured(sim: &Sim, slot: usize) -> CoreCounters {
    sim.slots[slot].counts
}

/// Assemble the result tables of a finished run (the traces move into them).
pub fn results(sim: &mut Sim, traces: Option<trace::Traces>, wall_s: f64) -> RunResult {
    let pcap = sim.take_captures();
    let sim: &Sim = sim;
    let span = sim.end() - sim.warmup();
    let topo = &sim.topo;
    let now = sim.now();

    let flow_rows: Vec<FlowRow> = sim
        .flows
        .iter()
        .zip(&sim.spec().flows)
        .enumerate()
        .map(|(i, (fl, fs))| {
            let s = sim.summary(i);
            let [data, ack] = fl.route.map(|r| sim.path(r));
            let [data, ack] = [&data[..], &ack[..]];
            let rtt = topo.path_delay(data) + topo.path_delay(ack);
            let [bd, ba] = fl.route.map(|r| measured(sim, (r.base + r.bottleneck) as usize));
            FlowRow {
                name: &fs.name,
                src: &topo.node_names[fl.src as usize],
                dst: &topo.node_names[fl.dst as usize],
                reverse: topo.links[data[fl.route[0].bottleneck as usize] as usize].role == LinkRole::Reverse,
                cc: fs.cc.name(),
                start_s: fl.start.secs_f64(),
                stop_s: fs.stop.get().map_or(f64::NAN, |t| t.secs_f64()),
                connection: s.conn.name(),
                ecn: crate::tcp::negotiation::mode_name(s.ecn),
                connected_s: s.connected_at.map_or(f64::NAN, Time::secs_f64),
                ended_s: s.ended_at.map_or(f64::NAN, Time::secs_f64),
                base_rtt: rtt,
                route: topo.path_names(data),
                ack_route: topo.path_names(ack),
                bottleneck_link: &topo.links[data[fl.route[0].bottleneck as usize] as usize].name,
                span,
                sender: s.sender,
                receiver: s.receiver,
                bottleneck: BottleneckCounters::of(bd, ba),
                rtt_mean_s: s.rtt.mean_s,
                rtt_min_s: s.rtt.min_s,
                rtt_p99_s: s.rtt.p99_s,
                rtt_samples: s.rtt.samples,
                cwnd_final_bytes: s.cwnd_final_bytes,
                size: s.size,
                bytes_left: s.size.map_or(0, |n| n.saturating_sub(s.rcv_nxt)),
                fct: sim.fct(i, &s),
                ideal_fct: s.ideal_fct,
            }
        })
        .collect();

    let udp_rows: Vec<UdpRow> = sim
        .udp
        .iter()
        .zip(&sim.spec().udp)
        .map(|(u, us)| {
            let s = &u.source;
            let h = &u.owd;
            let path = &sim.path(u.route)[..];
            let b = path[u.route.bottleneck as usize] as usize;
            UdpRow {
                name: &u.name,
                src: &topo.node_names[s.node as usize],
                dst: &topo.node_names[s.peer as usize],
                reverse: topo.links[b].role == LinkRole::Reverse,
                rate_bps: s.rate().bps(),
                packet_bytes: s.size_bytes() as u64,
                start_s: s.start_at().secs_f64(),
                stop_s: us.stop.map_or(f64::NAN, |t| t.secs_f64()),
                base_owd: topo.path_delay(path),
                route: topo.path_names(path),
                bottleneck_link: &topo.links[b].name,
                sent: s.counters.minus(&u.at_warmup.0),
                recv: u.recv.minus(&u.at_warmup.1),
                bottleneck: BottleneckCounters::of(measured(sim, (u.route.base + u.route.bottleneck) as usize), CoreCounters::default()),
                dropped_pkts: u.data.dropped - u.at_warmup.2,
                owd: [h.mean().map(|v| v / 1e9), h.min().map(|v| v as f64 / 1e9), h.quantile(0.5).map(|v| v / 1e9), h.quantile(0.99).map(|v| v / 1e9)],
                span,
            }
        })
        .collect();

    let host_rows = host_rows(sim, &flow_rows, span);

    // One row per flow and link of its paths, built as the table fills (540,000 at 90,000 flows).
    let tcp = sim.flows.iter().zip(&sim.spec().flows).map(|(f, s)| (&*s.name, false, &f.route[..]));
    let udp = sim.udp.iter().map(|u| (u.name.as_str(), true, std::slice::from_ref(&u.route)));
    let flows = tcp.chain(udp);
    let hop_count = flows.clone().map(|(_, _, routes)| routes.iter().map(|r| r.slots().len()).sum::<usize>()).sum();
    let hop_rows = flows.flat_map(|(name, udp, routes)| {
        routes.iter().enumerate().flat_map(move |(dir, r)| {
            r.slots().enumerate().map(move |(i, slot)| HopRow {
                flow: name,
                udp,
                ack: dir == 1,
                hop: i as u64,
                link: &topo.links[sim.slots[slot].link as usize].name,
                bottleneck: i as u32 == r.bottleneck,
                counts: measured(sim, slot),
            })
        })
    });
    let hops = build_each(&hop_columns(), hop_count, hop_rows);

    let bottleneck_flows = sim.bottleneck_flows();
    let mut link_rows = Vec::new();
    let mut reason_rows = Vec::new();
    let mut stat_rows = Vec::new();
    for (k, l) in topo.links.iter().enumerate() {
        let q = &l.queue;
        let qdisc = q.qdisc.info().name;
        let sojourn = |p: Option<f64>| match p {
            Some(p) => q.sojourn.quantile(p).map(|v| v / 1e9),
            None => q.sojourn.mean().map(|v| v / 1e9),
        };
        link_rows.push(LinkRow {
            name: &l.name,
            role: l.role,
            qdisc,
            rate_bps: l.rate.bps(),
            delay: l.delay,
            qlen_pkts: q.backlog.mean_sd(0, now),
            qlen_bytes: q.backlog.mean_sd(1, now),
            sojourn: [sojourn(None), sojourn(Some(0.5)), sojourn(Some(0.99))],
            queue: q.measured(),
            link: l.measured(now),
            bottleneck_flows: bottleneck_flows[k],
            span,
        });
        let counts = q.reasons_measured();
        for (i, reason) in q.qdisc.reasons().iter().enumerate() {
            reason_rows.push(ReasonRow { link: &l.name, role: l.role, qdisc, reason: reason.name, drops: counts.drops[i], marks: counts.marks[i] });
        }
        for (f, value) in q.qdisc.stat_fields().iter().zip(q.stats_measured()) {
            stat_rows.push(StatRow { link: &l.name, role: l.role, qdisc, stat: f.name, value });
        }
    }

    let flow_names: Vec<String> = sim.spec().flows.iter().map(|f| f.name.to_string()).collect();
    let empty = |cols: Vec<ColumnSpec>| {
        let mut t = Table::default();
        for c in cols {
            t.push(c.name, Column::empty(c.dtype));
        }
        t
    };
    let (series, cwnd, goodput) = match traces {
        Some(mut tr) => (
            tr.series.take_table(),
            tr.cwnd.as_mut().map_or_else(|| empty(cwnd_columns()), |t| t.take_table(&flow_names)),
            tr.goodput.as_mut().map_or_else(|| empty(goodput_columns()), |t| t.take_table(&flow_names)),
        ),
        None => (empty(series_columns()), empty(cwnd_columns()), empty(goodput_columns())),
    };

    RunResult {
        summary: Summary {
            seed: sim.spec().seed,
            sim_s: sim.end().secs_f64(),
            measured_s: span.secs_f64(),
            wall_s,
            events: sim.events(),
            delivered_segments: sim.flows.iter().map(|f| f.data.delivered).sum(),
            flows: sim.flows.len() as u64,
            peak_packets: sim.arena.capacity() as u64,
        },
        flows: build(&flow_columns(), &flow_rows),
        udp: build(&udp_columns(), &udp_rows),
        queues: build(&queue_columns(), &link_rows),
        hosts: build(&host_columns(), &host_rows),
        hops,
        drops: build(&drop_columns(), &reason_rows),
        qdisc_stats: build(&stat_columns(), &stat_rows),
        series,
        cwnd,
        goodput,
        milestones: milestone_table(sim, &flow_names),
        wlan: build(&wlan_columns(), &wlan_rows(sim, span)),
        pcap,
    }
}

/// The rows of the `hosts` table: per host that sends TCP data, one per bottleneck its flows
/// cross, its share of the goodput of all flows with that bottleneck. A dumbbell has a row for
/// every sender host (its bottleneck A->B), then for each receiver host that sends reverse
/// flows (B->A).
fn host_rows(sim: &Sim, flow_rows: &[FlowRow], span: Dur) -> Vec<HostRow> {
    let topo = &sim.topo;
    let goodput = |f: &FlowRow| f.receiver.received_bytes as f64 * 8.0 / span.secs_f64();
    let mut keys: Vec<(String, String, bool)> = Vec::new(); // (host, bottleneck, reverse)
    if let Some((senders, receivers)) = &topo.dumbbell {
        let (fwd, rev) = (&topo.links[topo.link_index("forward").expect("a dumbbell")].name, &topo.links[topo.link_index("reverse").expect("a dumbbell")].name);
        keys.extend(senders.iter().map(|&n| (topo.node_names[n as usize].clone(), fwd.clone(), false)));
        for &n in receivers {
            let name = &topo.node_names[n as usize];
            if flow_rows.iter().any(|f| f.reverse && f.src == name) {
                keys.push((name.clone(), rev.clone(), true));
            }
        }
    } else {
        let mut seen = std::collections::HashSet::new();
        let mut by_host: Vec<Vec<&FlowRow>> = vec![Vec::new(); topo.node_names.len()];
        let node = |name: &str| topo.node_names.iter().position(|n| n == name).expect("a node");
        for f in flow_rows {
            by_host[node(f.src)].push(f);
        }
        for (n, flows) in by_host.iter().enumerate() {
            for f in flows {
                if seen.insert((n, f.bottleneck_link)) {
                    keys.push((topo.node_names[n].clone(), f.bottleneck_link.to_string(), false));
                }
            }
        }
    }
    keys.into_iter()
        .map(|(host, link, reverse)| {
            let mine: Vec<&FlowRow> = flow_rows.iter().filter(|f| f.src == host && f.bottleneck_link == link).collect();
            let mut b = BottleneckCounters::default();
            for f in &mine {
                b.bottleneck_arrivals += f.bottleneck.bottleneck_arrivals;
                b.bottleneck_drops += f.bottleneck.bottleneck_drops;
                b.bottleneck_marks += f.bottleneck.bottleneck_marks;
                b.bottleneck_ack_drops += f.bottleneck.bottleneck_ack_drops;
            }
            HostRow {
                reverse,
                flows: mine.len() as u64,
                goodput_bps: mine.iter().map(|f| goodput(f)).sum(),
                total_goodput_bps: flow_rows.iter().filter(|f| f.bottleneck_link == link).map(goodput).sum(),
                zero_goodput_flows: mine.iter().filter(|f| f.receiver.received_bytes == 0).count() as u64,
                never_connected_flows: mine.iter().filter(|f| f.connection == "never_connected").count() as u64,
                bottleneck: b,
                host,
                bottleneck_link: link,
            }
        })
        .collect()
}
