#!/usr/bin/env python3
"""ns-3 reference: one TCP flow's congestion window on a 100 Mb/s, 40 ms, 1-BDP dumbbell.

The ns-3 half of the single-flow cwnd comparison (``validation/cwnd_ns3.py``,
``docs/validation/cwnd_ns3.md``).

What it models
--------------
Dumbbell S -- A == B -- R, every link a full-duplex ``PointToPointChannel``:

* S -> A and B -> R (access): 1 Gb/s, 1 ms each way;
* A -> B (bottleneck): 100 Mb/s, 18 ms each way; RTT = 2 (1 + 18 + 1) = 40 ms plus serialization
  (0.12 ms per 1502-byte packet at 100 Mb/s, 0.012 ms at 1 Gb/s);
* A -> B queue: ``FifoQueueDisc`` of 333 packets (1 BDP: 100 Mb/s x 40 ms / 1500 B = 333),
  DropTail. For TcpDctcp instead a step-marking ``RedQueueDisc``: MinTh 20, MaxTh 21, QW 1 (the
  instantaneous queue), LInterm 1 (max_p 1), Gentle off, UseEcn on, UseHardDrop off, MaxSize 333
  packets (DCTCP paper's K = 20 marking; crosslayer's ``docs/models/dctcp.md`` step queue).
* every other egress: ``FifoQueueDisc`` of 1000 packets; every device's own transmit queue 1
  packet so the backlog sits in the queue disc; queue discs installed before addresses (no
  pfifo_fast).

One ``BulkSendApplication`` (unlimited, 1448-byte writes) from S to a ``PacketSink`` on R, starting
at t = 0; the simulation runs ``--duration`` seconds (30).

TCP (``Config::SetDefault``, so both the sender's and the receiver's socket): ``SocketType`` = the
given ns-3 type (``TcpNewReno``, ``TcpCubic``, ...), ``SegmentSize`` 1448, ``SndBufSize`` and
``RcvBufSize`` 32 MiB; everything else at the ns-3 3.44 defaults, which match crosslayer's settings
for this comparison: SACK on, timestamps on, window scaling on, ``DelAckCount`` 2, ``InitialCwnd``
10, PRR recovery. TcpBbr: ``TcpSocketState::EnablePacing`` on (BBR paces). TcpDctcp:
``TcpSocketBase::UseEcn`` On (TcpDctcp also asks for ECN itself).

Where ns-3 cannot match crosslayer's Linux defaults (crosslayer's ``profile = "ns3"`` matches each
of these): MinRto 1 s (Linux 200 ms), DelAckTimeout 200 ms (40 ms) and no quick-ACK mode, no
RACK/TLP (duplicate-ACK threshold 3), each congestion control's own ns-3 slow-start and ACK-counting
rule, 2-byte PPP header (1502-byte data packets, 96.40 Mb/s of goodput at most).

Output
------
* ``--csv``: the ``CongestionWindow`` trace source, one row per change: ``time_s,cwnd_pkts``
  (cwnd in bytes / 1448), starting with the initial window at the handshake.
* ``--out`` (JSON) or stdout: throughput (goodput = bytes delivered to the PacketSink in
  [``--warmup``, duration] / window) over the window and over the whole run, bottleneck drops and
  ECN marks (window and total), entries into CA_RECOVERY / CA_LOSS / CA_CWR with their times,
  retransmitted segments, ssthresh changes (time, value), wall seconds in ``Simulator::Run()``,
  ``Simulator::GetEventCount()``, and every attribute of the live socket and its congestion
  control, read back through the attribute system.

How to run
----------
    ~/ns3env/bin/python validation/ns3/cwnd_single.py --tcp TcpCubic --csv cubic.csv --out cubic.json
"""
from __future__ import annotations

import argparse
import csv
import json
import sys
import time
import os
from typing import Any, Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed000  # noqa: E402  (shared: _load, the xl000 C++ helpers, _attributes, _qstats)

TCP_TYPES = ["TcpNewReno", "TcpCubic", "TcpVegas", "TcpHighSpeed", "TcpScalable", "TcpHtcp",
             "TcpBic", "TcpWestwoodPlus", "TcpVeno", "TcpHybla", "TcpIllinois", "TcpYeah",
             "TcpLp", "TcpLedbat", "TcpDctcp", "TcpBbr"]
BOTTLENECK_RATE = "100Mbps"
BOTTLENECK_DELAY = "18ms"
ACCESS_RATE = "1Gbps"
ACCESS_DELAY = "1ms"
BDP_PKTS = 333                  # 100 Mb/s x 40 ms / 1500 B
DEFAULT_LIMIT = 1000
DEVICE_QUEUE = "1p"
SEGMENT_SIZE = 1448
SOCKET_BUFFER = 32 * 1024 * 1024
DCTCP_K = 20                    # step-marking threshold, packets
PORT = 9000

_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include "ns3/traffic-control-module.h"
#include <vector>

namespace xlcwnd {
using namespace ns3;

class Probe
{
  public:
    Ptr<BulkSendApplication> app;
    Ptr<TcpSocketBase> sock;
    bool attached = false;
    std::vector<double> t, cwnd;         // CongestionWindow changes (bytes)
    std::vector<double> sst, ssthresh;   // SlowStartThreshold changes (bytes)
    std::vector<double> recT, lossT, cwrT;
    std::vector<double> rttT, srtt;      // RTT (smoothed RTT, m_srtt) changes (s)
    uint64_t retx = 0;

    void SetApp(Ptr<Application> a) { app = DynamicCast<BulkSendApplication>(a); }
    void ScheduleAttach(double at)
    {
        Simulator::Schedule(Seconds(at) + NanoSeconds(1), &Probe::Attach, this);
    }
    void Attach()
    {
        sock = DynamicCast<TcpSocketBase>(app->GetSocket());
        if (!sock) return;
        sock->TraceConnectWithoutContext("CongestionWindow", MakeCallback(&Probe::OnCwnd, this));
        sock->TraceConnectWithoutContext("SlowStartThreshold", MakeCallback(&Probe::OnSst, this));
        sock->TraceConnectWithoutContext("CongState", MakeCallback(&Probe::OnCong, this));
        sock->TraceConnectWithoutContext("Retransmission", MakeCallback(&Probe::OnRetx, this));
        sock->TraceConnectWithoutContext("RTT", MakeCallback(&Probe::OnRtt, this));
        attached = true;
    }
    void OnCwnd(uint32_t o, uint32_t n)
    {
        t.push_back(Simulator::Now().GetSeconds());
        cwnd.push_back(n);
    }
    void OnSst(uint32_t o, uint32_t n)
    {
        sst.push_back(Simulator::Now().GetSeconds());
        ssthresh.push_back(n);
    }
    void OnRtt(Time o, Time n)
    {
        rttT.push_back(Simulator::Now().GetSeconds());
        srtt.push_back(n.GetSeconds());
    }
    void OnCong(TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
    {
        double now = Simulator::Now().GetSeconds();
        if (n == TcpSocketState::CA_RECOVERY && o != TcpSocketState::CA_RECOVERY) recT.push_back(now);
        if (n == TcpSocketState::CA_LOSS && o != TcpSocketState::CA_LOSS) lossT.push_back(now);
        if (n == TcpSocketState::CA_CWR && o != TcpSocketState::CA_CWR) cwrT.push_back(now);
    }
    void OnRetx(Ptr<const Packet> p, const TcpHeader& h, const Address& a, const Address& b,
                Ptr<const TcpSocketBase> s)
    {
        retx++;
    }
};

}  // namespace xlcwnd
"""


def _load():
    """ns-3 with seed000.py's C++ helpers (queue stats, attributes) and this script's probe."""
    ns, cppyy = seed000._load()
    if not hasattr(cppyy.gbl, "xlcwnd"):
        cppyy.cppdef(_CPP)
    return ns, cppyy


def run(tcp: str, duration: float = 30.0, warmup: float = 10.0,
        overrides: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """One flow of ns-3 type ``tcp``; returns the metrics and the raw traces. ``overrides``:
    (attribute path, value) pairs given to ``Config::SetDefault`` last (experiments only)."""
    if tcp not in TCP_TYPES:
        raise ValueError(f"tcp must be one of {TCP_TYPES}")
    ns, cppyy = _load()
    x, h = cppyy.gbl.xlcwnd, cppyy.gbl.xl000  # this script's probe, seed000.py's helpers
    dctcp = tcp == "TcpDctcp"

    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType",
                         ns.TypeIdValue(ns.TypeId.LookupByName(f"ns3::{tcp}")))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_SIZE))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER))
    if tcp == "TcpBbr":
        ns.Config.SetDefault("ns3::TcpSocketState::EnablePacing", ns.BooleanValue(True))
    if dctcp:
        ns.Config.SetDefault("ns3::TcpSocketBase::UseEcn", ns.StringValue("On"))
    for path, value in overrides:
        ns.Config.SetDefault(path, ns.StringValue(value))

    names = ["S", "A", "B", "R"]
    nodes = ns.NodeContainer()
    nodes.Create(len(names))
    node = {n: nodes.Get(i) for i, n in enumerate(names)}
    ns.InternetStackHelper().Install(nodes)

    p2p = ns.PointToPointHelper()
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(DEVICE_QUEUE))

    def fifo(dev, limit):
        ns.Config.SetDefault("ns3::FifoQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")))
        tch = ns.TrafficControlHelper()
        tch.SetRootQueueDisc("ns3::FifoQueueDisc")
        return tch.Install(dev).Get(0)

    def step_red(dev):
        for attr, val in [("MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{BDP_PKTS}p"))),
                          ("MinTh", ns.DoubleValue(DCTCP_K)), ("MaxTh", ns.DoubleValue(DCTCP_K + 1)),
                          ("QW", ns.DoubleValue(1.0)), ("LInterm", ns.DoubleValue(1.0)),
                          ("Gentle", ns.BooleanValue(False)), ("UseEcn", ns.BooleanValue(True)),
                          ("UseHardDrop", ns.BooleanValue(False)),
                          ("MeanPktSize", ns.UintegerValue(1500)),
                          ("LinkBandwidth", ns.DataRateValue(ns.DataRate(BOTTLENECK_RATE))),
                          ("LinkDelay", ns.TimeValue(ns.Time(BOTTLENECK_DELAY)))]:
            ns.Config.SetDefault(f"ns3::RedQueueDisc::{attr}", val)
        tch = ns.TrafficControlHelper()
        tch.SetRootQueueDisc("ns3::RedQueueDisc")
        return tch.Install(dev).Get(0)

    links = [("S", "A", ACCESS_RATE, ACCESS_DELAY), ("A", "B", BOTTLENECK_RATE, BOTTLENECK_DELAY),
             ("B", "R", ACCESS_RATE, ACCESS_DELAY)]
    qdiscs, devices, ifaces = {}, {}, {}
    addr = ns.Ipv4AddressHelper()
    for i, (a, b, rate, delay) in enumerate(links):
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        devs = p2p.Install(node[a], node[b])
        if (a, b) == ("A", "B"):
            qdiscs["A->B"] = step_red(devs.Get(0)) if dctcp else fifo(devs.Get(0), BDP_PKTS)
        else:
            qdiscs[f"{a}->{b}"] = fifo(devs.Get(0), DEFAULT_LIMIT)
        qdiscs[f"{b}->{a}"] = fifo(devs.Get(1), DEFAULT_LIMIT)
        devices[f"{a}->{b}"], devices[f"{b}->{a}"] = devs.Get(0), devs.Get(1)
        addr.SetBase(ns.Ipv4Address(f"10.0.{i + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
        ifaces[(a, b)] = addr.Assign(devs)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    for key, qd in qdiscs.items():
        assert h.RootQueueDisc(node[key.split("->")[0]], devices[key]) == qd, key

    sink_apps = ns.PacketSinkHelper(
        "ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), PORT).ConvertTo()
    ).Install(node["R"])
    sink_apps.Start(ns.Seconds(0.0))
    sink = sink_apps.Get(0)
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory",
                             ns.InetSocketAddress(ifaces[("B", "R")].GetAddress(1), PORT).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
    bulk.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_SIZE))
    apps = bulk.Install(node["S"])
    apps.Start(ns.Seconds(0.0))
    probe = x.Probe()
    probe.SetApp(apps.Get(0))
    probe.ScheduleAttach(0.0)

    wall = 0.0
    ns.Simulator.Stop(ns.Seconds(warmup))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t0
    rx0 = int(h.SinkRx(sink))
    q0 = seed000._qstats(ns, cppyy, qdiscs["A->B"])
    ns.Simulator.Stop(ns.Seconds(duration - warmup))
    t0 = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t0
    rx1 = int(h.SinkRx(sink))
    q1 = seed000._qstats(ns, cppyy, qdiscs["A->B"])
    events = int(ns.Simulator.GetEventCount())
    assert probe.attached, "the BulkSend socket was not found"

    cfg = {"socket": seed000._attributes(ns, cppyy, probe.sock)}
    for attr in ("CongestionOps", "RecoveryOps"):
        tgt = h.PointerTarget(probe.sock, attr)
        cfg[attr] = ({"type": str(tgt.GetInstanceTypeId().GetName()), "attributes": seed000._attributes(ns, cppyy, tgt)}
                     if tgt else None)
    cfg["bottleneck_qdisc"] = {"type": str(qdiscs["A->B"].GetInstanceTypeId().GetName()),
                               "attributes": seed000._attributes(ns, cppyy, qdiscs["A->B"])}

    window = duration - warmup
    res = {
        "simulator": "ns-3 3.44 (PyPI ns3 wheel, cppyy bindings)",
        "tcp": tcp, "duration_s": duration, "warmup_s": warmup,
        "overrides": [list(o) for o in overrides],
        "goodput_bps": (rx1 - rx0) * 8.0 / window,
        "goodput_total_bps": rx1 * 8.0 / duration,
        "bottleneck": {
            "drops": q1["dropped"] - q0["dropped"], "marks": q1["marked"] - q0["marked"],
            "drops_total": q1["dropped"], "marks_total": q1["marked"],
            "enqueued": q1["enqueued"] - q0["enqueued"],
        },
        "recovery_times_s": [float(v) for v in probe.recT],
        "loss_times_s": [float(v) for v in probe.lossT],
        "cwr_times_s": [float(v) for v in probe.cwrT],
        "retransmissions_total": int(probe.retx),
        "ssthresh": [[float(a), float(b) / SEGMENT_SIZE] for a, b in zip(probe.sst, probe.ssthresh)],
        "run_wall_s": wall,
        "events": events,
        "tcp_configuration": cfg,
    }
    trace = (list(probe.t), [c / SEGMENT_SIZE for c in probe.cwnd])
    srtt = (list(probe.rttT), list(probe.srtt))
    ns.Simulator.Destroy()
    return {"result": res, "trace": trace, "srtt": srtt}


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tcp", choices=TCP_TYPES, required=True, help="ns-3 TCP type")
    ap.add_argument("--duration", type=float, default=30.0)
    ap.add_argument("--warmup", type=float, default=10.0, help="start of the throughput window (s)")
    ap.add_argument("--csv", help="write the cwnd trace (time_s, cwnd_pkts) here")
    ap.add_argument("--out", help="write the JSON result here instead of stdout")
    ap.add_argument("--srtt-csv", help="write the smoothed-RTT trace (the socket's RTT trace "
                    "source, m_srtt, what ns-3 hands PktsAcked: time_s, srtt_s) here")
    ap.add_argument("--set", action="append", default=[], metavar="PATH=VALUE",
                    help="extra Config::SetDefault, e.g. ns3::TcpSocketBase::Timestamp=false "
                         "(experiments; repeatable)")
    args = ap.parse_args(argv)
    overrides = [tuple(kv.split("=", 1)) for kv in args.set]
    r = run(args.tcp, args.duration, args.warmup, overrides)
    res, (ts, cw) = r["result"], r["trace"]
    if args.csv:
        with open(args.csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["time_s", "cwnd_pkts"])
            for a, b in zip(ts, cw):
                w.writerow([f"{a:.9f}", f"{b:.4f}"])
    if args.srtt_csv:
        with open(args.srtt_csv, "w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(["time_s", "srtt_s"])
            for a, b in zip(*r["srtt"]):
                w.writerow([f"{a:.9f}", f"{b:.9f}"])
    text = json.dumps(res, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
        b = res["bottleneck"]
        print(f"{args.tcp}: goodput {res['goodput_bps'] / 1e6:.2f} Mb/s, drops {b['drops']}, marks "
              f"{b['marks']}, recoveries {len(res['recovery_times_s'])}, RTOs {len(res['loss_times_s'])}, "
              f"wall {res['run_wall_s']:.1f} s, events {res['events']}", file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
