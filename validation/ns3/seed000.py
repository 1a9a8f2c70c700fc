#!/usr/bin/env python3
"""ns-3 reference runs of seed paper 000's dumbbell (crosslayer studies seed000-access-link and
seed000-data-center), for the simulator-vs-ns-3 comparison.

What it models
--------------
Dumbbell: senders N1, N2, N3 each on its own point-to-point link to router A; A -> B is the
bottleneck; receivers N4, N5, N6 each on its own link from router B. Every link is a full-duplex
``PointToPointChannel`` with the same rate and delay in both directions.

* ``access``: every link 100 Mbps; A-B delay 2 ms; sender access delays N1 0 ms, N2 12 ms,
  N3 25 ms; receiver access delays N4 2 ms, N5 37 ms, N6 75 ms (RTT 8 ... 204 ms).
* ``datacenter``: every link 1 Gbps; A-B delay 0; sender delays N1 10 us, N2 10 us, N3 100 us;
  receiver delays N4 10 us, N5 100 us, N6 100 us (RTT 40 ... 400 us).

Queues (all explicit): the A -> B egress has a ``FifoQueueDisc`` of 900 packets (DropTail; with
``--qdisc pie`` or ``--qdisc codel`` ns-3's PIE or CoDel, their defaults and the same limit); every
other egress (host NICs, B -> A, routers towards hosts) a ``FifoQueueDisc`` of 1000 packets. The
queue discs are installed before ``Ipv4AddressHelper::Assign`` so no pfifo_fast is added, and every
device's own transmit queue (``DropTailQueue<Packet>``) holds 1 packet so the backlog sits in the
queue disc (the device queue can hold one more packet, which the queue-disc backlog excludes; its
mean is reported separately as ``device_queue_mean_pkts``).

Flows: for each sender in N1..N3, for each receiver in N4..N6, ``per_pair`` flows named
``<src>-<dst>.<k>`` (src outer, dst, k inner). Each is one TCP connection from a
``BulkSendApplication`` (MaxBytes 0, unlimited) to its own ``PacketSink`` (one port per flow).
Start times are uniform in [0 s, 3 s], drawn from an ns-3 ``UniformRandomVariable`` on stream 0
with ``RngSeedManager`` seed 1 and the given run number (in flow order), or read from
``--starts`` (a JSON list of start times in seconds, in flow order; a dict with a "starts" key, or
a dict mapping flow names to seconds, is accepted as well) so both simulators can use identical
starts.

TCP: ns-3's default socket type, TcpCubic, with ``TcpSocket::SegmentSize`` 1448 and
``SndBufSize``/``RcvBufSize`` 32 MiB; everything else stays at the ns-3 3.44 defaults (SACK,
timestamps, window scaling, PRR recovery, MinRto 1 s, DelAck 200 ms / 2 segments, InitialCwnd 10,
ConnTimeout 3 s, HyStart on). The output records every attribute of the live TcpSocketBase /
TcpSocket of the first flow, of its congestion control (TcpCubic), its recovery (TcpPrrRecovery), its
Tx/Rx buffers and of the sender's TcpL4Protocol, read back through the TypeId attribute system.

Metrics (window [warmup, duration]; JSON to stdout or ``--out``)
---------------------------------------------------------------
* per flow: ``goodput_bps`` = bytes delivered to its PacketSink in the window / window seconds
  (PacketSink reads the socket, which only hands over in-order bytes, so this is in-order
  payload); start time; whether and when the handshake completed (socket State trace reaching
  ESTABLISHED); retransmitted data segments (``Retransmission`` trace); entries into CA_RECOVERY
  (fast recoveries) and into CA_LOSS (``CongState`` trace); retransmission timeouts (see below);
  SYN retransmissions. Counters are given in the window and over the whole run (``*_total``).
  Also the socket's final state, when the connection was aborted (error-close callback: ns-3
  gives up after DataRetries = 6 consecutive timeouts of the same data, leaving the state
  ESTABLISHED but the socket silent) or closed, the time of the last timeout and the current RTO.
* aggregate goodput (sum), Jain's index of per-flow goodput ((sum x)^2 / (n sum x^2)), number of
  flows with zero goodput in the window, each sender host's share of the goodput.
* bottleneck (A -> B queue disc): exact time-weighted mean, SD and max of ``PacketsInQueue`` over
  the window (integrated in a C++ helper at every change); arrivals = enqueued + dropped before
  enqueue; drops; drop_ratio = drops / arrivals; all in the window. The same counts for every other
  queue disc (host NICs etc.) under ``queues``.
* ``run_wall_s``: wall-clock seconds spent inside ``Simulator::Run()`` only (it is called twice:
  up to the warm-up, then to the end, to read the counters at the window start); ``events``:
  ``Simulator::GetEventCount()``.

Timeouts: ns-3 has no trace for "the retransmission timer fired". ``CongState`` entering CA_LOSS
misses back-to-back timeouts (the state is already CA_LOSS), so ``rto`` counts the changes of the
``RTO`` traced value to exactly min(2 x old, 60 s) while the connection is established
(TcpSocketBase::ReTxTimeout doubles m_rto; an RTT update producing exactly twice the previous RTO
is possible but practically never happens). ``loss_entries`` counts entries into CA_LOSS.

How to run
----------
    ~/ns3env/bin/python seed000.py --scenario access --per-pair 1 --run 1 --out r.json
    ~/ns3env/bin/python seed000.py --scenario datacenter --per-pair 1 --run 1 \
        --starts starts.json --duration 100 --warmup 30 --out r.json

or from Python (once per process: ns-3's simulator is global; ``run`` calls
``Simulator::Destroy`` at the end but a fresh process is the safe way)::

    from seed000 import run
    result = run("access", per_pair=1, run=1)

Deviations from the crosslayer study files that we know of
----------------------------------------------------------
* Framing: ns-3's PointToPointNetDevice adds a 2-byte PPP header, so a full data segment is
  1502 bytes on the wire (IPv4 20 + TCP 20 + timestamp option 12 (10 + 2 padding) + payload 1448
  + PPP 2) and a pure ACK 54 bytes (66 with one SACK block); the study's header_size is 52 B
  (crosslayer's "ns3" TCP profile uses 54 B). The achievable goodput is therefore
  rate x 1448 / 1502 = 96.40 Mb/s (access) instead of 96.53 Mb/s with 1500-byte packets.
* TCP is ns-3's, not Linux's: MinRto 1 s (Linux 200 ms), DelAckTimeout 200 ms (Linux 40 ms
  minimum) and no quick-ACK mode, ConnTimeout 3 s (Linux 1 s), DataRetries 6 (Linux 15), no
  RACK/TLP (duplicate-ACK threshold 3 with SACK scoreboard), max RTO 60 s (Linux 120 s), ns-3's
  CUBIC and HyStart implementation. The study's comment "the remaining TCP parameters keep their
  Linux defaults" therefore does not hold here; compare with crosslayer's ``profile = "ns3"``.
* Start times: the study draws them from crosslayer's own RNG (seed 1). ns-3 draws different
  values unless ``--starts`` is given.
* Buffers: 32 MiB socket buffers (the study has no buffer limit; ns-3's default 128 KiB would
  window-limit the long paths).
* Queue discs measure packets in the queue disc only; ns-3's device transmit queue (1 packet)
  adds at most one packet in service, which crosslayer counts as in transmission, not queued.
* The study's ``sample_interval`` (10 ms queue series) is not produced: the queue statistics are
  exact time integrals instead.
"""
from __future__ import annotations

import argparse
import json
import math
import sys
import time
from typing import Any, Optional, Sequence

SCENARIOS: dict[str, dict[str, Any]] = {
    "access": {
        "rate": "100Mbps",
        "bottleneck_delay": "2ms",
        "senders": [("N1", "0ms"), ("N2", "12ms"), ("N3", "25ms")],
        "receivers": [("N4", "2ms"), ("N5", "37ms"), ("N6", "75ms")],
    },
    "datacenter": {
        "rate": "1Gbps",
        "bottleneck_delay": "0ms",
        "senders": [("N1", "10us"), ("N2", "10us"), ("N3", "100us")],
        "receivers": [("N4", "10us"), ("N5", "100us"), ("N6", "100us")],
    },
}
BOTTLENECK_LIMIT = 900      # packets, A -> B queue disc
BOTTLENECK_QDISCS = {"fifo": "ns3::FifoQueueDisc", "pie": "ns3::PieQueueDisc",
                     "codel": "ns3::CoDelQueueDisc"}
DEFAULT_LIMIT = 1000        # packets, every other FifoQueueDisc
DEVICE_QUEUE = "1p"         # PointToPointNetDevice transmit queue
SEGMENT_SIZE = 1448
SOCKET_BUFFER = 32 * 1024 * 1024
START_SPREAD_S = 3.0
BASE_PORT = 10000
_TCP_STATES = dict(enumerate(["CLOSED", "LISTEN", "SYN_SENT", "SYN_RCVD", "ESTABLISHED",
                              "CLOSE_WAIT", "LAST_ACK", "FIN_WAIT_1", "FIN_WAIT_2", "CLOSING",
                              "TIME_WAIT"]))

_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include "ns3/traffic-control-module.h"
#include <vector>
#include <memory>
#include <cmath>

namespace xl000 {
using namespace ns3;

// Exact time integral of a packet count (a TracedValue<uint32_t>) over [t0, end].
class QueueIntegrator
{
  public:
    double t0 = 0.0;       // window start, seconds
    double last = 0.0;     // time of the last change
    uint32_t cur = 0;      // current value
    uint32_t maxInWindow = 0;
    double a1 = 0.0;       // integral of q dt over the window
    double a2 = 0.0;       // integral of q^2 dt over the window

    void Advance(double t)
    {
        double from = std::max(last, t0);
        if (t > from)
        {
            double dt = t - from;
            a1 += dt * cur;
            a2 += dt * double(cur) * double(cur);
        }
        last = t;
    }
    void OnChange(uint32_t oldValue, uint32_t newValue)
    {
        double t = Simulator::Now().GetSeconds();
        Advance(t);
        cur = newValue;
        if (t >= t0 && newValue > maxInWindow) maxInWindow = newValue;
    }
    void StartWindow()  // called at t0: the max starts from the current value
    {
        Advance(Simulator::Now().GetSeconds());
        maxInWindow = cur;
    }
    void Finish(double t) { Advance(t); }
    bool ConnectQueueDisc(Ptr<QueueDisc> q)
    {
        return q->TraceConnectWithoutContext("PacketsInQueue",
                                             MakeCallback(&QueueIntegrator::OnChange, this));
    }
    bool ConnectDevice(Ptr<NetDevice> d)
    {
        Ptr<PointToPointNetDevice> p = DynamicCast<PointToPointNetDevice>(d);
        return p->GetQueue()->TraceConnectWithoutContext(
            "PacketsInQueue", MakeCallback(&QueueIntegrator::OnChange, this));
    }
};

// Per-flow counters, connected to the BulkSendApplication's socket 1 ns after it starts (the
// socket is created in StartApplication, which sends the first SYN synchronously).
class FlowProbe
{
  public:
    Ptr<BulkSendApplication> app;
    Ptr<TcpSocketBase> sock;
    bool attached = false;
    bool established = false;
    double connectedAt = -1.0;
    uint64_t retx = 0;          // data segments retransmitted
    uint64_t recoveries = 0;    // entries into CA_RECOVERY
    uint64_t lossEntries = 0;   // entries into CA_LOSS
    uint64_t rtos = 0;          // retransmission timer expirations (RTO doubled)
    uint64_t synRetx = 0;       // SYNs sent after the first one
    int lastState = -1;         // TcpSocket::TcpStates_t, last value seen
    double closedAt = -1.0;     // time of a normal close (state CLOSED or close callback)
    double abortedAt = -1.0;    // time of an error close (DataRetries exhausted, RST ...)
    double lastRtoAt = -1.0;    // time of the last retransmission timeout
    double rtoValue = 0.0;      // current RTO (s), last value of the RTO trace

    void ScheduleAttach(double at)
    {
        Simulator::Schedule(Seconds(at) + NanoSeconds(1), &FlowProbe::Attach, this);
    }
    void Attach()
    {
        sock = DynamicCast<TcpSocketBase>(app->GetSocket());
        if (!sock) return;
        sock->TraceConnectWithoutContext("State", MakeCallback(&FlowProbe::OnState, this));
        sock->TraceConnectWithoutContext("CongState", MakeCallback(&FlowProbe::OnCong, this));
        sock->TraceConnectWithoutContext("RTO", MakeCallback(&FlowProbe::OnRto, this));
        sock->TraceConnectWithoutContext("Retransmission", MakeCallback(&FlowProbe::OnRetx, this));
        sock->TraceConnectWithoutContext("Tx", MakeCallback(&FlowProbe::OnTx, this));
        // BulkSendApplication sets no close callbacks, so these are free for us
        sock->SetCloseCallbacks(MakeCallback(&FlowProbe::OnNormalClose, this),
                                MakeCallback(&FlowProbe::OnErrorClose, this));
        attached = true;
    }
    void OnState(TcpSocket::TcpStates_t o, TcpSocket::TcpStates_t n)
    {
        lastState = int(n);
        if (n == TcpSocket::ESTABLISHED && !established)
        {
            established = true;
            connectedAt = Simulator::Now().GetSeconds();
        }
        if (n == TcpSocket::CLOSED && closedAt < 0)
        {
            closedAt = Simulator::Now().GetSeconds();
        }
    }
    void OnNormalClose(Ptr<Socket> s)
    {
        if (closedAt < 0) closedAt = Simulator::Now().GetSeconds();
    }
    void OnErrorClose(Ptr<Socket> s)  // e.g. ReTxTimeout after DataRetries timeouts
    {
        if (abortedAt < 0) abortedAt = Simulator::Now().GetSeconds();
    }
    void OnCong(TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
    {
        if (n == TcpSocketState::CA_RECOVERY && o != TcpSocketState::CA_RECOVERY) recoveries++;
        if (n == TcpSocketState::CA_LOSS && o != TcpSocketState::CA_LOSS) lossEntries++;
    }
    void OnRto(Time o, Time n)
    {
        rtoValue = n.GetSeconds();
        if (!established) return;
        Time doubled = Min(o + o, Seconds(60));
        if (n == doubled && n != o)
        {
            rtos++;
            lastRtoAt = Simulator::Now().GetSeconds();
        }
    }
    void OnRetx(Ptr<const Packet> p, const TcpHeader& h, const Address& a, const Address& b,
                Ptr<const TcpSocketBase> s)
    {
        retx++;
    }
    void OnTx(Ptr<const Packet> p, const TcpHeader& h, Ptr<const TcpSocketBase> s)
    {
        uint8_t f = h.GetFlags();
        if ((f & TcpHeader::SYN) && !(f & TcpHeader::ACK)) synRetx++;
    }
};

class Probes
{
  public:
    std::vector<std::unique_ptr<FlowProbe>> flows;
    std::vector<std::unique_ptr<QueueIntegrator>> queues;
    FlowProbe* AddFlow(Ptr<Application> app, double start)
    {
        flows.emplace_back(new FlowProbe());
        FlowProbe* f = flows.back().get();
        f->app = DynamicCast<BulkSendApplication>(app);
        f->ScheduleAttach(start);
        return f;
    }
    QueueIntegrator* AddIntegrator(double t0)
    {
        queues.emplace_back(new QueueIntegrator());
        queues.back()->t0 = t0;
        return queues.back().get();
    }
    void Clear() { flows.clear(); queues.clear(); }
};

// Wire sizes of the first packets of each kind seen on one device (PhyTxBegin): used to check
// the header bytes of a SYN, a pure ACK and a full data segment.
class SizeProbe
{
  public:
    uint32_t maxSize = 0;
    uint32_t minSize = 1000000;
    uint64_t count = 0;
    void OnTx(Ptr<const Packet> p)
    {
        uint32_t s = p->GetSize();
        if (s > maxSize) maxSize = s;
        if (s < minSize) minSize = s;
        count++;
    }
    bool Connect(Ptr<NetDevice> d)
    {
        return d->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&SizeProbe::OnTx, this));
    }
};

inline Ptr<TcpL4Protocol> GetTcp(Ptr<Node> n) { return n->GetObject<TcpL4Protocol>(); }
inline Ptr<QueueDisc> RootQueueDisc(Ptr<Node> n, Ptr<NetDevice> d)
{
    return n->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(d);
}
inline QueueDisc::Stats QdiscStats(Ptr<QueueDisc> q) { return q->GetStats(); }
inline uint64_t SinkRx(Ptr<Application> a) { return DynamicCast<PacketSink>(a)->GetTotalRx(); }
inline Ptr<Object> PointerTarget(Ptr<Object> obj, std::string name)
{
    PointerValue v;
    obj->GetAttribute(name, v);
    return v.GetObject();
}
inline std::string AttributeString(Ptr<Object> obj, const TypeId::AttributeInformation& info)
{
    Ptr<AttributeValue> v = info.checker->Create();
    if (!obj->GetAttributeFailSafe(info.name, *v))
    {   // no getter (e.g. TcpSocketBase::UseEcn): report the construction value
        return info.initialValue->SerializeToString(info.checker) + " (construction value; no getter)";
    }
    if (auto* pv = dynamic_cast<PointerValue*>(PeekPointer(v)))
    {
        Ptr<Object> o = pv->GetObject();
        return o ? o->GetInstanceTypeId().GetName() : std::string("null");
    }
    if (auto* cv = dynamic_cast<ObjectPtrContainerValue*>(PeekPointer(v)))
    {
        return std::to_string(cv->GetN()) + " objects";
    }
    return v->SerializeToString(info.checker);
}
inline std::string InitialString(const TypeId::AttributeInformation& info)
{
    return info.initialValue->SerializeToString(info.checker);
}
}  // namespace xl000
"""

_ns = None
_cppyy = None


def _load():
    """Import ns-3 (about 10-20 s of cling parsing) and compile the C++ helpers, once."""
    global _ns, _cppyy
    if _ns is None:
        from ns import ns  # noqa: PLC0415  (heavy import, on demand)
        import cppyy  # noqa: PLC0415

        cppyy.cppdef(_CPP)
        _ns, _cppyy = ns, cppyy
    return _ns, _cppyy


def flow_names(per_pair: int) -> list[tuple[str, str, str]]:
    """(name, src, dst) in flow order: src outer, dst, k inner."""
    out = []
    for src in ("N1", "N2", "N3"):
        for dst in ("N4", "N5", "N6"):
            for k in range(per_pair):
                out.append((f"{src}-{dst}.{k}", src, dst))
    return out


def load_starts(path: str, names: Sequence[str]) -> list[float]:
    """Start times (s) in flow order from a JSON file: a list, {"starts": [...]}, or {name: s}."""
    with open(path) as fh:
        data = json.load(fh)
    if isinstance(data, dict) and "starts" in data:
        data = data["starts"]
    if isinstance(data, dict):
        starts = [float(data[n]) for n in names]
    else:
        starts = [float(x) for x in data]
    if len(starts) != len(names):
        raise ValueError(f"{path}: {len(starts)} start times for {len(names)} flows")
    if any(not math.isfinite(s) or s < 0 for s in starts):
        raise ValueError(f"{path}: start times must be finite and >= 0")
    return starts


def _attributes(ns, cppyy, obj) -> dict[str, str]:
    """Every attribute of obj's TypeId and its parents, read from the live object."""
    out: dict[str, str] = {}
    tid = obj.GetInstanceTypeId()
    while True:
        tname = str(tid.GetName())
        for i in range(tid.GetAttributeN()):
            info = tid.GetAttribute(i)
            name = str(info.name)
            if "Callback" in name:
                continue
            out[f"{tname}::{name}"] = str(cppyy.gbl.xl000.AttributeString(obj, info))
        if tname == "ns3::Object" or tid.GetParent() == tid:
            break
        tid = tid.GetParent()
    return out


def _type_defaults(ns, cppyy, type_name: str) -> dict[str, str]:
    tid = ns.TypeId.LookupByName(type_name)
    return {
        f"{type_name}::{str(tid.GetAttribute(i).name)}": str(
            cppyy.gbl.xl000.InitialString(tid.GetAttribute(i)))
        for i in range(tid.GetAttributeN())
    }


def _tcp_configuration(ns, cppyy, sock, l4) -> dict[str, Any]:
    x = cppyy.gbl.xl000
    cfg: dict[str, Any] = {"socket": _attributes(ns, cppyy, sock)}
    for attr in ("CongestionOps", "RecoveryOps", "TxBuffer", "RxBuffer"):
        target = x.PointerTarget(sock, attr)
        if target:
            cfg[attr] = {"type": str(target.GetInstanceTypeId().GetName()),
                         "attributes": _attributes(ns, cppyy, target)}
        else:
            cfg[attr] = None
    cfg["TcpL4Protocol"] = _attributes(ns, cppyy, l4)
    cfg["TcpSocketState (type defaults)"] = _type_defaults(ns, cppyy, "ns3::TcpSocketState")
    cfg["RttMeanDeviation (type defaults)"] = {
        **_type_defaults(ns, cppyy, "ns3::RttEstimator"),
        **_type_defaults(ns, cppyy, "ns3::RttMeanDeviation"),
    }
    return cfg


def _jain(x: Sequence[float]) -> float:
    s = sum(x)
    s2 = sum(v * v for v in x)
    return (s * s) / (len(x) * s2) if s2 > 0 else float("nan")


def _qstats(ns, cppyy, qd) -> dict[str, int]:
    st = cppyy.gbl.xl000.QdiscStats(qd)
    return {
        "received": int(st.nTotalReceivedPackets),
        "enqueued": int(st.nTotalEnqueuedPackets),
        "dropped": int(st.nTotalDroppedPackets),
        "marked": int(st.nTotalMarkedPackets),
        "dropped_before_enqueue": int(st.nTotalDroppedPacketsBeforeEnqueue),
        "dequeued": int(st.nTotalDequeuedPackets),
    }


def run(scenario: str, per_pair: int, run: int, starts: Optional[Sequence[float]] = None,
        duration: float = 100.0, warmup: float = 30.0, bottleneck_qdisc: str = "fifo",
        qdisc_target: Optional[str] = None) -> dict:
    """Build and run one scenario; return the metrics as a JSON-serializable dict.

    ``bottleneck_qdisc``: the A -> B queue disc, ``fifo`` (DropTail), ``pie`` (PieQueueDisc) or
    ``codel`` (CoDelQueueDisc), each with ns-3 3.44's default parameters (PIE: target 15 ms,
    tupdate 15 ms, burst 150 ms, no derandomization; CoDel: target 5 ms, interval 100 ms) and
    the same 900-packet limit, as crosslayer's ``{ kind = "pie", limit_pkts = 900 }`` and
    ``{ kind = "codel", limit_pkts = 900 }`` in studies/seed000-matrix.toml. ``qdisc_target``
    (an ns-3 time string such as "5ms") sets PIE's QueueDelayReference or CoDel's Target."""
    if bottleneck_qdisc not in BOTTLENECK_QDISCS:
        raise ValueError(f"bottleneck_qdisc must be one of {sorted(BOTTLENECK_QDISCS)}")
    if qdisc_target is not None and bottleneck_qdisc == "fifo":
        raise ValueError("qdisc_target needs bottleneck_qdisc pie or codel")
    if scenario not in SCENARIOS:
        raise ValueError(f"scenario must be one of {sorted(SCENARIOS)}")
    if per_pair < 1 or run < 1:
        raise ValueError("per_pair and run must be >= 1")
    if not 0 <= warmup < duration:
        raise ValueError("need 0 <= warmup < duration")
    ns, cppyy = _load()
    x = cppyy.gbl.xl000
    sc = SCENARIOS[scenario]
    flows = flow_names(per_pair)

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run)
    if starts is None:
        rv = ns.CreateObject[ns.UniformRandomVariable]()
        rv.SetStream(0)
        starts = [float(rv.GetValue(0.0, START_SPREAD_S)) for _ in flows]
        start_source = f"ns-3 UniformRandomVariable(0, {START_SPREAD_S}) stream 0, seed 1, run {run}"
    else:
        starts = [float(s) for s in starts]
        if len(starts) != len(flows):
            raise ValueError(f"{len(starts)} start times for {len(flows)} flows")
        start_source = "given"

    if qdisc_target is not None:
        attr = "QueueDelayReference" if bottleneck_qdisc == "pie" else "Target"
        ns.Config.SetDefault(f"{BOTTLENECK_QDISCS[bottleneck_qdisc]}::{attr}",
                             ns.TimeValue(ns.Time(qdisc_target)))

    # TCP: CUBIC (default socket type), 1448-byte segments, 32 MiB buffers, the rest default.
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpCubic.GetTypeId()))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_SIZE))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER))

    names = ["N1", "N2", "N3", "N4", "N5", "N6", "A", "B"]
    nodes = ns.NodeContainer()
    nodes.Create(len(names))
    node = {n: nodes.Get(i) for i, n in enumerate(names)}
    inet = ns.InternetStackHelper()
    inet.Install(nodes)

    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue(sc["rate"]))
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(DEVICE_QUEUE))

    def fifo(dev, limit, type_id="ns3::FifoQueueDisc"):
        ns.Config.SetDefault(f"{type_id}::MaxSize",
                             ns.QueueSizeValue(ns.QueueSize(f"{limit}p")))
        tch = ns.TrafficControlHelper()
        tch.SetRootQueueDisc(type_id)
        return tch.Install(dev).Get(0)

    links = []  # (a, b, delay): device 0 on a, device 1 on b
    for s, d in sc["senders"]:
        links.append((s, "A", d))
    links.append(("A", "B", sc["bottleneck_delay"]))
    for r, d in sc["receivers"]:
        links.append(("B", r, d))

    qdiscs: dict[str, Any] = {}
    devices: dict[str, Any] = {}
    ifaces: dict[tuple[str, str], Any] = {}
    addr = ns.Ipv4AddressHelper()
    for i, (a, b, delay) in enumerate(links):
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        devs = p2p.Install(node[a], node[b])
        # queue discs before addresses, so Ipv4AddressHelper adds no pfifo_fast
        if (a, b) == ("A", "B"):
            qdiscs[f"{a}->{b}"] = fifo(devs.Get(0), BOTTLENECK_LIMIT, BOTTLENECK_QDISCS[bottleneck_qdisc])
        else:
            qdiscs[f"{a}->{b}"] = fifo(devs.Get(0), DEFAULT_LIMIT)
        qdiscs[f"{b}->{a}"] = fifo(devs.Get(1), DEFAULT_LIMIT)
        devices[f"{a}->{b}"], devices[f"{b}->{a}"] = devs.Get(0), devs.Get(1)
        addr.SetBase(ns.Ipv4Address(f"10.0.{i + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
        ifaces[(a, b)] = addr.Assign(devs)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()

    # explicit-size check: every device has exactly our queue disc
    for key, qd in qdiscs.items():
        a, b = key.split("->")
        dev = devices[key]
        root = x.RootQueueDisc(node[a], dev)
        assert root == qd, f"unexpected root queue disc on {key}"
    recv_addr = {r: ifaces[("B", r)].GetAddress(1) for r, _ in sc["receivers"]}

    probes = x.Probes()
    sinks, sources = [], []
    for i, ((name, src, dst), st) in enumerate(zip(flows, starts)):
        port = BASE_PORT + i
        sink_helper = ns.PacketSinkHelper(
            "ns3::TcpSocketFactory",
            ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        sink_apps = sink_helper.Install(node[dst])
        sink_apps.Start(ns.Seconds(0.0))
        sinks.append(sink_apps.Get(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory",
                                 ns.InetSocketAddress(recv_addr[dst], port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_SIZE))
        apps = bulk.Install(node[src])
        apps.Start(ns.Seconds(st))
        sources.append(apps.Get(0))
        probes.AddFlow(apps.Get(0), st)

    # queue integrators on the bottleneck: queue disc and device queue
    q_int = probes.AddIntegrator(warmup)
    assert q_int.ConnectQueueDisc(qdiscs["A->B"])
    dev_int = probes.AddIntegrator(warmup)
    assert dev_int.ConnectDevice(devices["A->B"])
    size_probe = x.SizeProbe()
    size_probe.Connect(devices["A->B"])
    ack_probe = x.SizeProbe()
    ack_probe.Connect(devices["B->A"])

    # run to the window start, snapshot the counters, run to the end
    wall = 0.0
    ns.Simulator.Stop(ns.Seconds(warmup))
    t = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t
    q_int.StartWindow()
    dev_int.StartWindow()
    rx0 = [int(x.SinkRx(s)) for s in sinks]
    pr = [probes.flows[i] for i in range(len(flows))]
    c0 = [(p.retx, p.recoveries, p.lossEntries, p.rtos, p.synRetx) for p in pr]
    qs0 = {k: _qstats(ns, cppyy, q) for k, q in qdiscs.items()}
    dev_drops0 = {k: int(d.GetQueue().GetTotalDroppedPackets()) for k, d in devices.items()}

    ns.Simulator.Stop(ns.Seconds(duration - warmup))
    t = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t
    now = ns.Simulator.Now().GetSeconds()
    events = int(ns.Simulator.GetEventCount())
    q_int.Finish(duration)
    dev_int.Finish(duration)
    tcp_cfg = None  # attributes of the first flow whose socket exists, read back from the objects
    for i, (_, src, _) in enumerate(flows):
        if pr[i].attached:
            tcp_cfg = {"flow": flows[i][0],
                       **_tcp_configuration(ns, cppyy, pr[i].sock, x.GetTcp(node[src]))}
            break

    window = duration - warmup
    flow_rows = []
    for i, ((name, src, dst), st) in enumerate(zip(flows, starts)):
        p = pr[i]
        rx = int(x.SinkRx(sinks[i]))
        c = (p.retx, p.recoveries, p.lossEntries, p.rtos, p.synRetx)
        flow_rows.append({
            "name": name, "src": src, "dst": dst, "start_s": st,
            "connected": bool(p.established),
            "connected_at_s": p.connectedAt if p.established else None,
            "goodput_bps": (rx - rx0[i]) * 8.0 / window,
            "rx_bytes_window": rx - rx0[i], "rx_bytes_total": rx,
            "retransmissions": c[0] - c0[i][0], "fast_recoveries": c[1] - c0[i][1],
            "loss_entries": c[2] - c0[i][2], "rto": c[3] - c0[i][3],
            "retransmissions_total": c[0], "fast_recoveries_total": c[1],
            "loss_entries_total": c[2], "rto_total": c[3], "syn_retransmissions": c[4],
            "final_state": _TCP_STATES.get(int(p.lastState), str(p.lastState)),
            "closed_at_s": p.closedAt if p.closedAt >= 0 else None,
            "aborted_at_s": p.abortedAt if p.abortedAt >= 0 else None,
            "last_rto_at_s": p.lastRtoAt if p.lastRtoAt >= 0 else None,
            "rto_value_s": float(p.rtoValue),
        })
    g = [f["goodput_bps"] for f in flow_rows]
    agg = sum(g)
    hosts = {s: sum(f["goodput_bps"] for f in flow_rows if f["src"] == s) for s, _ in sc["senders"]}

    queues = {}
    for k, qd in qdiscs.items():
        s1, s0 = _qstats(ns, cppyy, qd), qs0[k]
        d = {m: s1[m] - s0[m] for m in s1}
        arrivals = d["enqueued"] + d["dropped_before_enqueue"]
        queues[k] = {
            "limit_pkts": BOTTLENECK_LIMIT if k == "A->B" else DEFAULT_LIMIT,
            "arrivals": arrivals, "drops": d["dropped"],
            "drop_ratio": d["dropped"] / arrivals if arrivals else 0.0,
            "enqueued": d["enqueued"], "dequeued": d["dequeued"],
            "device_queue_drops": int(devices[k].GetQueue().GetTotalDroppedPackets()) - dev_drops0[k],
        }
    mean = q_int.a1 / window
    var = max(q_int.a2 / window - mean * mean, 0.0)
    dmean = dev_int.a1 / window
    bott = dict(queues["A->B"])
    bott.update({
        "mean_pkts": mean, "sd_pkts": math.sqrt(var), "max_pkts": int(q_int.maxInWindow),
        "device_queue_mean_pkts": dmean,
        "wire_bytes_max": int(size_probe.maxSize), "wire_bytes_min": int(size_probe.minSize),
        "ack_wire_bytes_min": int(ack_probe.minSize),
    })
    per_flow_tot = {m: sum(f[m] for f in flow_rows)
                    for m in ("retransmissions", "fast_recoveries", "loss_entries", "rto")}

    result = {
        "simulator": "ns-3 3.44 (PyPI ns3 wheel, cppyy bindings)",
        "scenario": scenario, "per_pair": per_pair, "run": run, "n_flows": len(flows),
        "bottleneck_qdisc": BOTTLENECK_QDISCS[bottleneck_qdisc], "qdisc_target": qdisc_target,
        "duration_s": duration, "warmup_s": warmup, "sim_end_s": now,
        "start_source": start_source,
        "aggregate": {
            "goodput_bps": agg,
            "jain": _jain(g),
            "zero_goodput_flows": sum(1 for v in g if v == 0),
            "never_connected_flows": sum(1 for f in flow_rows if not f["connected"]),
            "closed_flows": sum(1 for f in flow_rows if f["closed_at_s"] is not None),
            "aborted_flows": sum(1 for f in flow_rows if f["aborted_at_s"] is not None),
            "host_goodput_share": {h: (v / agg if agg > 0 else None) for h, v in hosts.items()},
            "max_host_goodput_share": (max(hosts.values()) / agg) if agg > 0 else None,
            **per_flow_tot,
        },
        "bottleneck": bott,
        "queues": queues,
        "run_wall_s": wall,
        "events": events,
        "flows": flow_rows,
        "tcp_configuration": tcp_cfg,
        "notes": {
            "goodput": "PacketSink GetTotalRx difference over the window: in-order payload bytes",
            "queue": "time-weighted over the window of the A->B FifoQueueDisc PacketsInQueue; "
                     "the 1-packet device queue is extra (device_queue_mean_pkts)",
            "arrivals": "enqueued + dropped before enqueue, in the window",
            "rto": "RTO traced value doubled (min(2 old, 60 s)) while established",
            "run_wall_s": "perf_counter around Simulator::Run() (two calls: to warmup, to end)",
        },
    }
    probes.Clear()
    ns.Simulator.Destroy()
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--scenario", choices=sorted(SCENARIOS), required=True)
    ap.add_argument("--per-pair", type=int, default=1)
    ap.add_argument("--run", type=int, default=1, help="ns-3 RngRun (seed is 1)")
    ap.add_argument("--starts", help="JSON file of start times (s) in flow order")
    ap.add_argument("--duration", type=float, default=100.0)
    ap.add_argument("--warmup", type=float, default=30.0)
    ap.add_argument("--out", help="write JSON here instead of stdout")
    ap.add_argument("--qdisc", choices=sorted(BOTTLENECK_QDISCS), default="fifo",
                    help="A -> B queue disc (ns-3 defaults, 900 packets); default fifo")
    ap.add_argument("--qdisc-target", help="PIE QueueDelayReference or CoDel Target, e.g. 5ms")
    ap.add_argument("--no-config", action="store_true",
                    help="omit the TCP attribute dump from the output")
    args = ap.parse_args(argv)
    starts = None
    if args.starts:
        starts = load_starts(args.starts, [n for n, _, _ in flow_names(args.per_pair)])
    res = run(args.scenario, args.per_pair, args.run, starts, args.duration, args.warmup,
              args.qdisc, args.qdisc_target)
    if args.no_config:
        res.pop("tcp_configuration", None)
    text = json.dumps(res, indent=1, sort_keys=False)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
        a, b = res["aggregate"], res["bottleneck"]
        print(f"{args.scenario} pp={args.per_pair} run={args.run}: goodput "
              f"{a['goodput_bps'] / 1e6:.2f} Mb/s, jain {a['jain']:.3f}, zero {a['zero_goodput_flows']}, "
              f"queue {b['mean_pkts']:.1f}+-{b['sd_pkts']:.1f}, drops {b['drop_ratio']:.4%}, "
              f"wall {res['run_wall_s']:.1f} s, events {res['events']}", file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
