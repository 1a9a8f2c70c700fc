#!/usr/bin/env python3
"""ns-3 reference runs of the parking lot (crosslayer's studies/parking-lot-3.toml), for the
multi-bottleneck comparison of docs/validation/parking-lot.md.

What it models
--------------
Routers R1 .. R(n+1) in a chain (``--hops`` n, default 3); each R_i - R_(i+1) link is a
full-duplex ``PointToPointChannel`` of 10 Mb/s and 10 ms with a ``CoDelQueueDisc`` on both
egresses (ns-3 3.44 defaults: Target 5 ms, Interval 100 ms, no ECN; MaxSize set to 1000 packets,
as crosslayer's CoDel and Linux's sch_codel). Hosts: S0 on R1 and D0 on R(n+1) (the long path,
over every hop), and for each hop i, S_i on R_i and D_i on R_(i+1) (a cross path over hop i
alone), each on its own 100 Mb/s, 1 ms link with a 1000-packet ``FifoQueueDisc`` on both
egresses. Queue discs are installed before the addresses (no pfifo_fast) and every device's own
queue holds 1 packet, so the backlog sits in the queue disc. Routes: ``Ipv4GlobalRoutingHelper``
(shortest paths; the parking lot has one path per pair).

Flows: one TCP connection S_i -> D_i per i in 0..n, a ``BulkSendApplication`` (MaxBytes 0) to a
``PacketSink``; each starts at a time uniform in [0, 1 s] from an ns-3 ``UniformRandomVariable``
(stream 0, seed 1, ``--run`` k). TCP: ns-3's default TcpCubic, SegmentSize 1448, 32 MiB buffers,
everything else at its 3.44 default (crosslayer's ``[tcp] profile = "ns3"`` takes the same
values).

Metrics over the window [warmup, duration] (JSON to stdout or ``--out``): per flow goodput (bytes
its PacketSink received in the window, i.e. in-order payload) and retransmissions; per link
direction the queue disc's arrivals, drops, time-weighted mean queue and the device's
utilization (bytes sent at the physical layer, PPP header included, over rate x window); the
aggregate goodput and Jain's index; wall time in ``Simulator::Run()`` and the event count.

    ~/ns3env/bin/python validation/ns3/parking_lot.py --run 1 --out validation/results/parking_lot/ns3-1.json
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed000 import _jain, _load, _qstats  # noqa: E402  (the shared C++ helpers)

BOTTLENECK_RATE = "10Mbps"
BOTTLENECK_DELAY = "10ms"
ACCESS_RATE = "100Mbps"
ACCESS_DELAY = "1ms"
CODEL_LIMIT = 1000
FIFO_LIMIT = 1000
DEVICE_QUEUE = "1p"
SEGMENT_SIZE = 1448
SOCKET_BUFFER = 32 * 1024 * 1024
START_SPREAD_S = 1.0
BASE_PORT = 10000

_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
namespace xlpl {
using namespace ns3;
// Bytes a device starts sending (PhyTxBegin) from t0 on.
class TxBytes
{
  public:
    double t0 = 0.0;
    uint64_t bytes = 0;
    void OnTx(Ptr<const Packet> p)
    {
        if (Simulator::Now().GetSeconds() >= t0) bytes += p->GetSize();
    }
    bool Connect(Ptr<NetDevice> d)
    {
        return d->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&TxBytes::OnTx, this));
    }
};
}
"""


def run(run: int, hops: int = 3, duration: float = 60.0, warmup: float = 10.0) -> dict[str, Any]:
    ns, cppyy = _load()
    if not hasattr(cppyy.gbl, "xlpl"):
        cppyy.cppdef(_CPP)
    x, pl = cppyy.gbl.xl000, cppyy.gbl.xlpl
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(run)
    flows = [(f"S{i}-D{i}.0", f"S{i}", f"D{i}") for i in range(hops + 1)]
    rv = ns.CreateObject[ns.UniformRandomVariable]()
    rv.SetStream(0)
    starts = [float(rv.GetValue(0.0, START_SPREAD_S)) for _ in flows]

    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpCubic.GetTypeId()))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_SIZE))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER))

    routers = [f"R{i}" for i in range(1, hops + 2)]
    hosts = [f"S{i}" for i in range(hops + 1)] + [f"D{i}" for i in range(hops + 1)]
    names = routers + hosts
    nodes = ns.NodeContainer()
    nodes.Create(len(names))
    node = {n: nodes.Get(i) for i, n in enumerate(names)}
    ns.InternetStackHelper().Install(nodes)

    links = [(routers[i], routers[i + 1], BOTTLENECK_RATE, BOTTLENECK_DELAY, True) for i in range(hops)]
    links += [("S0", "R1", ACCESS_RATE, ACCESS_DELAY, False), ("D0", routers[-1], ACCESS_RATE, ACCESS_DELAY, False)]
    for i in range(1, hops + 1):
        links += [(f"S{i}", routers[i - 1], ACCESS_RATE, ACCESS_DELAY, False), (f"D{i}", routers[i], ACCESS_RATE, ACCESS_DELAY, False)]

    def qdisc(dev: Any, codel: bool) -> Any:
        type_id = "ns3::CoDelQueueDisc" if codel else "ns3::FifoQueueDisc"
        limit = CODEL_LIMIT if codel else FIFO_LIMIT
        ns.Config.SetDefault(f"{type_id}::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")))
        tch = ns.TrafficControlHelper()
        tch.SetRootQueueDisc(type_id)
        return tch.Install(dev).Get(0)

    qdiscs: dict[str, Any] = {}
    devices: dict[str, Any] = {}
    rates: dict[str, float] = {}
    address: dict[str, Any] = {}
    addr = ns.Ipv4AddressHelper()
    for k, (a, b, rate, delay, codel) in enumerate(links):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(DEVICE_QUEUE))
        devs = p2p.Install(node[a], node[b])
        for j, (src, dst) in enumerate(((a, b), (b, a))):
            key = f"{src}->{dst}"
            qdiscs[key] = qdisc(devs.Get(j), codel)
            devices[key] = devs.Get(j)
            rates[key] = float(rate.removesuffix("Mbps")) * 1e6
        addr.SetBase(ns.Ipv4Address(f"10.{k // 250}.{k % 250 + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
        iface = addr.Assign(devs)
        if a in hosts:
            address[a] = iface.GetAddress(0)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    for key, qd in qdiscs.items():
        src = key.split("->")[0]
        assert x.RootQueueDisc(node[src], devices[key]) == qd, key

    probes = x.Probes()
    sinks = []
    for i, ((name, src, dst), st) in enumerate(zip(flows, starts)):
        port = BASE_PORT + i
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()).Install(node[dst])
        sink.Start(ns.Seconds(0.0))
        sinks.append(sink.Get(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(address[dst], port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_SIZE))
        apps = bulk.Install(node[src])
        apps.Start(ns.Seconds(st))
        probes.AddFlow(apps.Get(0), st)
    integrators = {}
    counters = {}
    for key in qdiscs:
        if key.split("->")[0] in routers and key.split("->")[1] in routers:
            integrators[key] = probes.AddIntegrator(warmup)
            assert integrators[key].ConnectQueueDisc(qdiscs[key])
            counters[key] = pl.TxBytes()
            counters[key].t0 = warmup
            assert counters[key].Connect(devices[key])

    wall = 0.0
    ns.Simulator.Stop(ns.Seconds(warmup))
    t = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t
    for q in integrators.values():
        q.StartWindow()
    rx0 = [int(x.SinkRx(s)) for s in sinks]
    retx0 = [int(probes.flows[i].retx) for i in range(len(flows))]
    qs0 = {k: _qstats(ns, cppyy, q) for k, q in qdiscs.items()}
    ns.Simulator.Stop(ns.Seconds(duration - warmup))
    t = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t
    events = int(ns.Simulator.GetEventCount())
    window = duration - warmup

    flow_rows = []
    for i, ((name, src, dst), st) in enumerate(zip(flows, starts)):
        flow_rows.append({
            "name": name, "src": src, "dst": dst, "start_s": st,
            "goodput_bps": (int(x.SinkRx(sinks[i])) - rx0[i]) * 8.0 / window,
            "retransmissions": int(probes.flows[i].retx) - retx0[i],
        })
    queues = {}
    for key, qd in qdiscs.items():
        s1, s0 = _qstats(ns, cppyy, qd), qs0[key]
        d = {m: s1[m] - s0[m] for m in s1}
        arrivals = d["enqueued"] + d["dropped_before_enqueue"]
        row: dict[str, Any] = {"arrivals": arrivals, "drops": d["dropped"], "drop_ratio": d["dropped"] / arrivals if arrivals else 0.0}
        if key in integrators:
            q = integrators[key]
            q.Finish(duration)
            mean = q.a1 / window
            row.update(mean_pkts=mean, sd_pkts=math.sqrt(max(q.a2 / window - mean * mean, 0.0)),
                       utilization=int(counters[key].bytes) * 8.0 / (rates[key] * window))
        queues[key] = row
    g = [f["goodput_bps"] for f in flow_rows]
    result = {
        "simulator": "ns-3 3.44 (PyPI ns3 wheel, cppyy bindings)",
        "run": run, "hops": hops, "duration_s": duration, "warmup_s": warmup,
        "flows": flow_rows,
        "aggregate": {"goodput_bps": sum(g), "jain": _jain(g)},
        "queues": queues,
        "run_wall_s": wall, "events": events,
        "notes": {
            "goodput": "PacketSink GetTotalRx difference over the window: in-order payload bytes",
            "utilization": "PhyTxBegin bytes (PPP header included) over rate x window",
        },
    }
    probes.Clear()
    ns.Simulator.Destroy()
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", type=int, default=1, help="ns-3 run number (the start times' stream)")
    ap.add_argument("--hops", type=int, default=3)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    args = ap.parse_args(argv)
    result = run(args.run, args.hops, args.duration, args.warmup)
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
