#!/usr/bin/env python3
"""ns-3 reference runs of crosslayer's studies/fct-ns3.toml (web-search flows over a dumbbell),
for the flow-completion-time comparison of docs/validation/fct-websearch.md.

What it models
--------------
Dumbbell: senders H1 .. H4, each on its own 1 Gb/s, 10 us link to router A; A - B is the
bottleneck, 100 Mb/s and 1 ms; the receiver R on a 1 Gb/s, 10 us link from router B. Every link
is a full-duplex ``PointToPointChannel``. Queues: the A -> B egress has a ``FifoQueueDisc`` of
100 packets (DropTail); every other egress (host NICs, B -> A, routers towards hosts) a
``FifoQueueDisc`` of 1000 packets. The queue discs are installed before the addresses (no
pfifo_fast) and every device's own queue holds 1 packet, so the backlog sits in the queue disc.
Routes: ``Ipv4GlobalRoutingHelper``.

Flows: read from ``--flows``, a JSON file written by validation/fct_compare.py from one
crosslayer run: ``{"flows": [{"name", "sender" (index into H1..H4), "start_ns",
"size_bytes"}, ...]}``. Each flow is one TCP connection from a ``BulkSendApplication``
(MaxBytes = size, SendSize 1448) started at its start time (to the nanosecond) on its sender,
to its own ``PacketSink`` (one port per flow) on R. BulkSend opens the connection (the first SYN
leaves at the start time), writes the flow's bytes and closes the socket (FIN) once they are
all written. TCP: ns-3's default TcpCubic, SegmentSize 1448, 32 MiB buffers (no flow is
window-limited by them: the largest web-search flow is 30 MB), everything else at its 3.44
default (crosslayer's ``[tcp] profile = "ns3"`` takes the same values: min RTO 1 s, SYN timeout
3 s, delayed ACKs of 2 segments / 200 ms, PRR, SACK, no RACK/TLP, HyStart).

Metrics (JSON to stdout or ``--out``)
-------------------------------------
* per flow: ``fct_s`` = the time its PacketSink has received ``size_bytes`` bytes minus the
  flow's start (PacketSink reads the socket, which hands over in-order bytes only: the delivery
  of the last byte), NaN if the flow did not complete within ``--duration``; bytes received;
  data segments retransmitted, retransmission timeouts (changes of the RTO to twice its value
  while established) and SYN retransmissions (seed000.py's ``FlowProbe``).
* the bottleneck queue disc's arrivals, drops and exact time-weighted mean backlog over the run
  (packets in the queue disc; the device queue's one packet is not counted).
* ``run_wall_s``: wall seconds inside ``Simulator::Run()`` only; ``events``.

    ~/ns3env/bin/python validation/ns3/fct_websearch.py \
        --flows validation/results/fct_websearch/flows-1.json \
        --out validation/results/fct_websearch/ns3-1.json --duration 30
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from seed000 import _load, _qstats  # the shared C++ helpers

SENDERS = ["H1", "H2", "H3", "H4"]
RECEIVER = "R"
ACCESS_RATE = "1Gbps"
ACCESS_DELAY = "10us"
BOTTLENECK_RATE = "100Mbps"
BOTTLENECK_DELAY = "1ms"
BOTTLENECK_LIMIT = 100      # packets, A -> B FifoQueueDisc
DEFAULT_LIMIT = 1000        # packets, every other FifoQueueDisc
DEVICE_QUEUE = "1p"
SEGMENT_SIZE = 1448
SOCKET_BUFFER = 32 * 1024 * 1024
BASE_PORT = 10000

_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/applications-module.h"
#include <vector>
#include <memory>
namespace xlfct {
using namespace ns3;
// When a PacketSink has received `size` bytes (its Rx trace fires after GetTotalRx is updated).
class Completion
{
  public:
    Ptr<PacketSink> sink;
    uint64_t size = 0;
    int64_t doneNs = -1;    // simulation time of the last byte's delivery, ns; -1: not yet
    void OnRx(Ptr<const Packet> p, const Address& from)
    {
        if (doneNs < 0 && sink->GetTotalRx() >= size) doneNs = Simulator::Now().GetNanoSeconds();
    }
};
class Completions
{
  public:
    std::vector<std::unique_ptr<Completion>> all;
    Completion* Add(Ptr<Application> app, uint64_t size)
    {
        all.emplace_back(new Completion());
        Completion* c = all.back().get();
        c->sink = DynamicCast<PacketSink>(app);
        c->size = size;
        c->sink->TraceConnectWithoutContext("Rx", MakeCallback(&Completion::OnRx, c));
        return c;
    }
    void Clear() { all.clear(); }
};
}
"""


def load_flows(path: str) -> list[dict[str, Any]]:
    """The flow list: name, sender index, start (ns), size (payload bytes), validated."""
    data = json.loads(Path(path).read_text())
    flows = data["flows"] if isinstance(data, dict) else data
    out = []
    for f in flows:
        sender, start_ns, size = int(f["sender"]), int(f["start_ns"]), int(f["size_bytes"])
        if not 0 <= sender < len(SENDERS):
            raise ValueError(f"{path}: flow {f['name']}: sender {sender} not in 0..{len(SENDERS) - 1}")
        if start_ns < 0 or size < 1:
            raise ValueError(f"{path}: flow {f['name']}: start_ns must be >= 0 and size_bytes >= 1")
        out.append({"name": str(f["name"]), "sender": sender, "start_ns": start_ns, "size_bytes": size})
    if len(out) > 65535 - BASE_PORT:
        raise ValueError(f"{path}: {len(out)} flows: at most {65535 - BASE_PORT} (one port each)")
    return out


def run(flows: Sequence[dict[str, Any]], duration: float = 30.0) -> dict[str, Any]:
    ns, cppyy = _load()
    if not hasattr(cppyy.gbl, "xlfct"):
        cppyy.cppdef(_CPP)
    x, fx = cppyy.gbl.xl000, cppyy.gbl.xlfct

    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpCubic.GetTypeId()))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(SEGMENT_SIZE))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(SOCKET_BUFFER))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(SOCKET_BUFFER))

    names = SENDERS + [RECEIVER, "A", "B"]
    nodes = ns.NodeContainer()
    nodes.Create(len(names))
    node = {n: nodes.Get(i) for i, n in enumerate(names)}
    ns.InternetStackHelper().Install(nodes)

    links = [(s, "A", ACCESS_RATE, ACCESS_DELAY) for s in SENDERS]
    links += [("A", "B", BOTTLENECK_RATE, BOTTLENECK_DELAY), ("B", RECEIVER, ACCESS_RATE, ACCESS_DELAY)]

    def fifo(dev: Any, limit: int) -> Any:
        ns.Config.SetDefault("ns3::FifoQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")))
        tch = ns.TrafficControlHelper()
        tch.SetRootQueueDisc("ns3::FifoQueueDisc")
        return tch.Install(dev).Get(0)

    qdiscs: dict[str, Any] = {}
    devices: dict[str, Any] = {}
    receiver_address = None
    addr = ns.Ipv4AddressHelper()
    for k, (a, b, rate, delay) in enumerate(links):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(DEVICE_QUEUE))
        devs = p2p.Install(node[a], node[b])
        # queue discs before addresses, so Ipv4AddressHelper adds no pfifo_fast
        for j, (src, dst) in enumerate(((a, b), (b, a))):
            key = f"{src}->{dst}"
            qdiscs[key] = fifo(devs.Get(j), BOTTLENECK_LIMIT if key == "A->B" else DEFAULT_LIMIT)
            devices[key] = devs.Get(j)
        addr.SetBase(ns.Ipv4Address(f"10.0.{k + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
        iface = addr.Assign(devs)
        if b == RECEIVER:
            receiver_address = iface.GetAddress(1)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    for key, qd in qdiscs.items():
        assert x.RootQueueDisc(node[key.split("->")[0]], devices[key]) == qd, key

    probes = x.Probes()
    done = fx.Completions()
    completions = []
    for i, f in enumerate(flows):
        port = BASE_PORT + i
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()).Install(node[RECEIVER])
        sink.Start(ns.Seconds(0.0))
        completions.append(done.Add(sink.Get(0), f["size_bytes"]))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(receiver_address, port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(f["size_bytes"]))
        bulk.SetAttribute("SendSize", ns.UintegerValue(SEGMENT_SIZE))
        apps = bulk.Install(node[SENDERS[f["sender"]]])
        apps.Start(ns.NanoSeconds(f["start_ns"]))
        # the probe attaches to the socket 1 ns after the start (BulkSend creates it then)
        probes.AddFlow(apps.Get(0), f["start_ns"] * 1e-9)

    backlog = probes.AddIntegrator(0.0)
    assert backlog.ConnectQueueDisc(qdiscs["A->B"])

    ns.Simulator.Stop(ns.Seconds(duration))
    t = time.perf_counter()
    ns.Simulator.Run()
    wall = time.perf_counter() - t
    events = int(ns.Simulator.GetEventCount())

    rows = []
    for i, (f, c) in enumerate(zip(flows, completions)):
        p = probes.flows[i]
        done_ns = int(c.doneNs)
        rows.append({
            "name": f["name"], "src": SENDERS[f["sender"]], "start_s": f["start_ns"] * 1e-9,
            "size_bytes": f["size_bytes"],
            "fct_s": (done_ns - f["start_ns"]) * 1e-9 if done_ns >= 0 else math.nan,
            "received_bytes": int(c.sink.GetTotalRx()),
            "retransmissions": int(p.retx), "timeouts": int(p.rtos), "syn_retransmissions": int(p.synRetx),
        })
    bq = _qstats(ns, cppyy, qdiscs["A->B"])
    backlog.Finish(duration)
    result = {
        "simulator": "ns-3 3.44 (PyPI ns3 wheel, cppyy bindings)",
        "duration_s": duration,
        "flows": rows,
        "completed": sum(not math.isnan(r["fct_s"]) for r in rows),
        "bottleneck": {"arrivals": bq["enqueued"] + bq["dropped_before_enqueue"], "drops": bq["dropped"],
                       "mean_pkts": backlog.a1 / duration},
        "run_wall_s": wall, "events": events,
        "notes": {"fct_s": "PacketSink GetTotalRx reaching size_bytes (in-order delivery of the last byte) minus the start (first SYN)"},
    }
    probes.Clear()
    ns.Simulator.Destroy()
    done.Clear()
    return result


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--flows", required=True, help="JSON flow list (name, sender, start_ns, size_bytes)")
    ap.add_argument("--duration", type=float, default=30.0, help="simulated seconds")
    ap.add_argument("--out", help="write the JSON here instead of stdout")
    args = ap.parse_args(argv)
    result = run(load_flows(args.flows), args.duration)
    text = json.dumps(result, indent=1)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
