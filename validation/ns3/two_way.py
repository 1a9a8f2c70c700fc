#!/usr/bin/env python3
"""ns-3 reference runs of crosslayer's two-way test (docs/validation/two_way_ns3.md).

What it models
--------------
crosslayer's ``two_opposite_cubic_flows_share_both_queues`` (crates/crosslayer-core/tests/
two_way.rs) and ``validation/two_way.toml``: a dumbbell S - A - B - R. A <-> B is 100 Mbps with
20 ms each way (RTT 40 ms) and a ``FifoQueueDisc`` of 333 packets (one BDP of 1500-byte packets,
DropTail) on BOTH A -> B and B -> A; S - A and B - R are 1 Gbps, 0 ms, with a 10000-packet
``FifoQueueDisc`` on each egress (crosslayer's preset). As in seed000.py the queue discs are
installed before the addresses (no pfifo_fast) and each device's own queue holds 1 packet.

Cases (``--case``):

* ``alone``: one CUBIC flow S -> R (BulkSend on S, PacketSink on R) from 0 s.
* ``both``: the same plus one CUBIC flow R -> S (BulkSend on R, PacketSink on S) from 5 s
  (``--reverse-start``), so
  A -> B carries the forward data and the reverse flow's ACKs, B -> A the reverse data and the
  forward flow's ACKs.

TCP as in seed000.py: ns-3's TcpCubic, SegmentSize 1448, 32 MiB socket buffers, every other
setting at the ns-3 3.44 default (SACK, timestamps, PRR, MinRto 1 s, delayed ACKs 2 segments /
200 ms, InitialCwnd 10, HyStart on). Compare with crosslayer's ``profile = "ns3"``.

Metrics, over [warmup, duration] (default [10 s, 70 s])
------------------------------------------------------
* per flow: goodput (PacketSink bytes in the window), retransmitted segments, fast recoveries and
  timeouts (seed000.py's FlowProbe), and the mean, min and max of the RTT samples (the socket's
  ``LastRTT`` trace: one value per RTT measurement that changes it; crosslayer averages every
  sample, so repeated equal samples weigh less here).
* ACK compression, per flow: the gaps between consecutive pure ACKs as the last router sends
  them towards the data sender (A -> S for the forward flow, B -> R for the reverse one), in the
  window: their number, mean, and how many are under 10 us (back to back: a 54-66 byte ACK takes
  0.4-0.5 us at 1 Gb/s, and 4.3-5.3 us at 100 Mb/s, so under 10 us means the ACKs left the
  100 Mb/s link one right behind the other) and under 50 us. ACKs clocked by the data are
  about 240 us apart (one ACK per two 1502-byte segments at 100 Mb/s).
* per router link (A->B, B->A): utilization = transmission time of every packet the device
  started sending in the window (PhyTxBegin, wire bytes x 8 / rate) / window; data packets
  (> 200 bytes) and pure ACKs (<= 200 bytes) sent; the queue disc's exact time-weighted mean and
  SD of PacketsInQueue (seed000.py's integrator, at every change, which is the limit of sampling
  it), its max, arrivals and drops in the window; the device queue's mean (at most 1 packet).

Run (one process per case; ns-3's simulator is global)::

    ~/ns3env/bin/python validation/ns3/two_way.py --case both --out r.json
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from typing import Optional, Sequence

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import seed000  # noqa: E402  (shared helpers: _load, _qstats, FlowProbe, QueueIntegrator)

ROUTER_RATE = "100Mbps"
ROUTER_RATE_BPS = 100e6
ROUTER_DELAY = "20ms"
ROUTER_LIMIT = 333          # packets, A -> B and B -> A
HOST_RATE = "1Gbps"
HOST_DELAY = "0ms"
HOST_LIMIT = 10000          # packets, host links (crosslayer's preset)
REVERSE_START_S = 5.0
ACK_MAX_BYTES = 200         # a wire packet this small is a pure ACK (54 B, 66 B with one SACK block)

_CPP = r"""
namespace xltw {
using namespace ns3;

// Wire packets a device starts sending after t0: busy time, data and ACK counts.
class TxCounter
{
  public:
    double t0 = 0.0;
    double rateBps = 0.0;
    uint32_t ackMax = 200;
    uint64_t bytes = 0, data = 0, acks = 0;
    void OnTx(Ptr<const Packet> p)
    {
        if (Simulator::Now().GetSeconds() < t0) return;
        uint32_t s = p->GetSize();
        bytes += s;
        if (s <= ackMax) acks++; else data++;
    }
    bool Connect(Ptr<NetDevice> d)
    {
        return d->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&TxCounter::OnTx, this));
    }
};

// ACK spacing as the ACKs leave the last router for the data sender (its egress device): gaps
// between consecutive pure ACKs after t0. A back-to-back ACK at 1 Gb/s is 0.4-0.6 us behind the
// previous one; ACKs clocked out by 100 Mb/s data are about 240 us apart (one per 2 segments).
class AckGaps
{
  public:
    double t0 = 0.0;
    uint32_t ackMax = 200;
    double last = -1.0;
    uint64_t n = 0, under10us = 0, under50us = 0;
    double sum = 0.0;
    void OnTx(Ptr<const Packet> p)
    {
        if (p->GetSize() > ackMax) return;
        double t = Simulator::Now().GetSeconds();
        if (t >= t0 && last >= 0)
        {
            double g = t - last;
            n++; sum += g;
            if (g < 10e-6) under10us++;
            if (g < 50e-6) under50us++;
        }
        last = t;
    }
    bool Connect(Ptr<NetDevice> d)
    {
        return d->TraceConnectWithoutContext("PhyTxBegin", MakeCallback(&AckGaps::OnTx, this));
    }
};

// RTT samples of one BulkSend socket (LastRTT), in [t0, end]; attached 1 ns after the start.
class RttProbe
{
  public:
    Ptr<BulkSendApplication> app;
    double t0 = 0.0;
    uint64_t n = 0;
    double sum = 0.0, mn = 1e9, mx = 0.0;
    bool attached = false;
    void Schedule(Ptr<Application> a, double at)
    {
        app = DynamicCast<BulkSendApplication>(a);
        Simulator::Schedule(Seconds(at) + NanoSeconds(1), &RttProbe::Attach, this);
    }
    void Attach()
    {
        Ptr<Socket> s = app->GetSocket();
        if (!s) return;
        attached = s->TraceConnectWithoutContext("LastRTT", MakeCallback(&RttProbe::OnRtt, this));
    }
    void OnRtt(Time o, Time v)
    {
        if (Simulator::Now().GetSeconds() < t0 || v.IsZero()) return;
        double x = v.GetSeconds();
        n++; sum += x; mn = std::min(mn, x); mx = std::max(mx, x);
    }
};
}  // namespace xltw
"""


def run(case: str, duration: float = 70.0, warmup: float = 10.0,
        reverse_start: float = REVERSE_START_S) -> dict:
    if case not in ("alone", "both"):
        raise ValueError("case must be alone or both")
    if not 0 <= warmup < duration:
        raise ValueError("need 0 <= warmup < duration")
    ns, cppyy = seed000._load()
    cppyy.cppdef(_CPP)
    x, tw = cppyy.gbl.xl000, cppyy.gbl.xltw

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(1)
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TcpCubic.GetTypeId()))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(seed000.SEGMENT_SIZE))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(seed000.SOCKET_BUFFER))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(seed000.SOCKET_BUFFER))

    names = ["S", "A", "B", "R"]
    nodes = ns.NodeContainer()
    nodes.Create(len(names))
    node = {n: nodes.Get(i) for i, n in enumerate(names)}
    ns.InternetStackHelper().Install(nodes)

    def fifo(dev, limit):
        ns.Config.SetDefault("ns3::FifoQueueDisc::MaxSize", ns.QueueSizeValue(ns.QueueSize(f"{limit}p")))
        tch = ns.TrafficControlHelper()
        tch.SetRootQueueDisc("ns3::FifoQueueDisc")
        return tch.Install(dev).Get(0)

    links = [("S", "A", HOST_RATE, HOST_DELAY, HOST_LIMIT),
             ("A", "B", ROUTER_RATE, ROUTER_DELAY, ROUTER_LIMIT),
             ("B", "R", HOST_RATE, HOST_DELAY, HOST_LIMIT)]
    qdiscs, devices, ifaces = {}, {}, {}
    addr = ns.Ipv4AddressHelper()
    for i, (a, b, rate, delay, limit) in enumerate(links):
        p2p = ns.PointToPointHelper()
        p2p.SetDeviceAttribute("DataRate", ns.StringValue(rate))
        p2p.SetChannelAttribute("Delay", ns.StringValue(delay))
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue(seed000.DEVICE_QUEUE))
        devs = p2p.Install(node[a], node[b])
        qdiscs[f"{a}->{b}"] = fifo(devs.Get(0), limit)
        qdiscs[f"{b}->{a}"] = fifo(devs.Get(1), limit)
        devices[f"{a}->{b}"], devices[f"{b}->{a}"] = devs.Get(0), devs.Get(1)
        addr.SetBase(ns.Ipv4Address(f"10.0.{i + 1}.0"), ns.Ipv4Mask("255.255.255.0"))
        ifaces[(a, b)] = addr.Assign(devs)
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    for key, qd in qdiscs.items():
        assert x.RootQueueDisc(node[key.split("->")[0]], devices[key]) == qd, key
    host_addr = {"S": ifaces[("S", "A")].GetAddress(0), "R": ifaces[("B", "R")].GetAddress(1)}

    flows = [("S-R.0", "S", "R", 0.0, "forward")]
    if case == "both":
        flows.append(("R-S.0", "R", "S", reverse_start, "reverse"))
    probes = x.Probes()
    rtts, sinks = [], []
    for i, (name, src, dst, start, _) in enumerate(flows):
        port = seed000.BASE_PORT + i
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory",
                                   ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        sapps = sink.Install(node[dst])
        sapps.Start(ns.Seconds(0.0))
        sinks.append(sapps.Get(0))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory",
                                 ns.InetSocketAddress(host_addr[dst], port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(0))
        bulk.SetAttribute("SendSize", ns.UintegerValue(seed000.SEGMENT_SIZE))
        apps = bulk.Install(node[src])
        apps.Start(ns.Seconds(start))
        probes.AddFlow(apps.Get(0), start)
        rp = tw.RttProbe()
        rp.t0 = warmup
        rp.Schedule(apps.Get(0), start)
        rtts.append(rp)

    integ, devint, tx = {}, {}, {}
    for k in ("A->B", "B->A"):
        integ[k] = probes.AddIntegrator(warmup)
        assert integ[k].ConnectQueueDisc(qdiscs[k])
        devint[k] = probes.AddIntegrator(warmup)
        assert devint[k].ConnectDevice(devices[k])
        c = tw.TxCounter()
        c.t0, c.rateBps, c.ackMax = warmup, ROUTER_RATE_BPS, ACK_MAX_BYTES
        assert c.Connect(devices[k])
        tx[k] = c

    gaps = {}
    for direction, dev in (("forward", "A->S"), ("reverse", "B->R")):
        g = tw.AckGaps()
        g.t0, g.ackMax = warmup, ACK_MAX_BYTES
        assert g.Connect(devices[dev])
        gaps[direction] = g

    wall = 0.0
    ns.Simulator.Stop(ns.Seconds(warmup))
    t = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t
    for k in integ:
        integ[k].StartWindow()
        devint[k].StartWindow()
    rx0 = [int(x.SinkRx(s)) for s in sinks]
    pr = [probes.flows[i] for i in range(len(flows))]
    c0 = [(p.retx, p.recoveries, p.rtos) for p in pr]
    qs0 = {k: seed000._qstats(ns, cppyy, q) for k, q in qdiscs.items()}

    ns.Simulator.Stop(ns.Seconds(duration - warmup))
    t = time.perf_counter()
    ns.Simulator.Run()
    wall += time.perf_counter() - t
    window = duration - warmup

    flow_rows = []
    for i, (name, src, dst, start, direction) in enumerate(flows):
        p, r = pr[i], rtts[i]
        flow_rows.append({
            "name": name, "src": src, "dst": dst, "direction": direction, "start_s": start,
            "goodput_bps": (int(x.SinkRx(sinks[i])) - rx0[i]) * 8.0 / window,
            "retransmissions": int(p.retx - c0[i][0]),
            "fast_recoveries": int(p.recoveries - c0[i][1]),
            "rto": int(p.rtos - c0[i][2]),
            "rtt_attached": bool(r.attached),
            "rtt_mean_s": r.sum / r.n if r.n else None,
            "rtt_min_s": r.mn if r.n else None, "rtt_max_s": r.mx if r.n else None,
            "rtt_samples": int(r.n),
            "ack_gaps": int(gaps[direction].n),
            "ack_gap_mean_us": gaps[direction].sum / gaps[direction].n * 1e6 if gaps[direction].n else None,
            "ack_gaps_under_10us": int(gaps[direction].under10us),
            "ack_gaps_under_50us": int(gaps[direction].under50us),
        })
    queues = {}
    for k, qd in qdiscs.items():
        s1, s0 = seed000._qstats(ns, cppyy, qd), qs0[k]
        d = {m: s1[m] - s0[m] for m in s1}
        arrivals = d["enqueued"] + d["dropped_before_enqueue"]
        row = {"arrivals": arrivals, "drops": d["dropped"],
               "drop_ratio": d["dropped"] / arrivals if arrivals else 0.0}
        if k in integ:
            q, dv, c = integ[k], devint[k], tx[k]
            q.Finish(duration)
            dv.Finish(duration)
            mean = q.a1 / window
            row.update({
                "limit_pkts": ROUTER_LIMIT,
                "qlen_mean_pkts": mean,
                "qlen_sd_pkts": math.sqrt(max(q.a2 / window - mean * mean, 0.0)),
                "qlen_max_pkts": int(q.maxInWindow),
                "device_queue_mean_pkts": dv.a1 / window,
                "utilization": int(c.bytes) * 8.0 / ROUTER_RATE_BPS / window,
                "tx_data_pkts": int(c.data), "tx_ack_pkts": int(c.acks),
            })
        queues[k] = row
    result = {
        "simulator": "ns-3 3.44 (PyPI ns3 wheel, cppyy bindings)",
        "case": case, "reverse_start_s": reverse_start if case == "both" else None, "duration_s": duration, "warmup_s": warmup,
        "flows": flow_rows, "queues": queues,
        "run_wall_s": wall, "events": int(ns.Simulator.GetEventCount()),
    }
    probes.Clear()
    ns.Simulator.Destroy()
    return result


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--case", choices=("alone", "both"), required=True)
    ap.add_argument("--duration", type=float, default=70.0)
    ap.add_argument("--warmup", type=float, default=10.0)
    ap.add_argument("--reverse-start", type=float, default=REVERSE_START_S,
                    help="start of the reverse flow, s (default 5, as in crosslayer's test)")
    ap.add_argument("--out", help="write JSON here instead of stdout")
    args = ap.parse_args(argv)
    res = run(args.case, args.duration, args.warmup, args.reverse_start)
    text = json.dumps(res, indent=1)
    if args.out:
        with open(args.out, "w") as fh:
            fh.write(text + "\n")
        for f in res["flows"]:
            print(f"{f['name']}: goodput {f['goodput_bps'] / 1e6:.2f} Mb/s, rtt "
                  f"{(f['rtt_mean_s'] or 0) * 1e3:.1f} ms, retx {f['retransmissions']}, ACK gaps "
                  f"<10us {f['ack_gaps_under_10us']}/{f['ack_gaps']}", file=sys.stderr)
        for k, q in res["queues"].items():
            if "utilization" in q:
                print(f"{k}: util {q['utilization']:.3f}, queue {q['qlen_mean_pkts']:.1f}, drops "
                      f"{q['drops']}, data {q['tx_data_pkts']}, acks {q['tx_ack_pkts']}", file=sys.stderr)
        print(f"wall {res['run_wall_s']:.1f} s", file=sys.stderr)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
