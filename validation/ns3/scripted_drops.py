#!/usr/bin/env python3
"""ns-3 3.44 reference for scripted losses: one TCP flow of N segments over a single fast link,
with chosen transmissions of chosen segments dropped, and when every data segment reached the
receiver. It checks a recovery rule of crosslayer's ns3 profile against ns-3 itself
(crates/crosslayer-core/tests/recovery.rs scripts the same losses on a wire of the same delay).

What it models
--------------
Two nodes S and D on one full-duplex ``PointToPointChannel`` of 10 Gb/s (serialization is
about a microsecond, so the path is its delay) and ``--delay`` each way (default 10 ms), device
queues of 1000 packets, no queue disc in the way of a single flow. One ``BulkSendApplication``
on S sends ``--segments`` x ``--mss`` bytes (``MaxBytes``) to a ``PacketSink`` on D and closes.
TCP: ``TcpNewReno`` (``--cc``), SegmentSize ``--mss``, InitialCwnd ``--iw``, everything else at
ns-3 3.44's defaults (SACK, PRR, delayed ACKs of 2 segments / 200 ms, min RTO 1 s).

The losses: an ``ErrorModel`` on D's device (written below in C++, compiled by cppyy) reads the
TCP header of each arriving packet with payload and drops the k-th arrival of segment n when
(n, k) is in ``--drop`` (``n:k`` pairs; segment n starts at byte n x mss of the payload). Every
data arrival is logged (time, segment, transmission, dropped).

Output (JSON): the log, each retransmission's time (a second or later transmission of a
segment), and ``done_s``: when the sink had every byte, measured from the first data segment's
arrival minus one delay (the time the first data segment left S), so the handshake is not
counted.

    ~/ns3env/bin/python validation/ns3/scripted_drops.py --segments 20 --iw 20 --drop 12:1 18:1 19:1
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence

_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/applications-module.h"
#include <map>
#include <set>
#include <vector>
namespace xldrop {
using namespace ns3;
// Drops the k-th arrival of segment n for each (n, k) in `drops`; logs every data arrival.
class SeqDrop : public ErrorModel
{
  public:
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("xldrop::SeqDrop").SetParent<ErrorModel>().AddConstructor<SeqDrop>();
        return tid;
    }
    uint32_t mss = 1000;
    uint32_t isn = 0;      // the first payload byte's sequence number (SYN's + 1), from the first data segment
    bool haveIsn = false;
    std::set<std::pair<uint32_t, uint32_t>> drops;
    std::map<uint32_t, uint32_t> seen;
    std::vector<double> t; std::vector<uint32_t> seg, nth; std::vector<int> dropped;
    void Drop(uint32_t n, uint32_t k) { drops.insert({n, k}); }
  private:
    bool DoCorrupt(Ptr<Packet> p) override
    {
        Ptr<Packet> c = p->Copy();
        PppHeader ppp; c->RemoveHeader(ppp);
        Ipv4Header ip; c->RemoveHeader(ip);
        if (ip.GetProtocol() != 6) return false;
        TcpHeader tcp; c->RemoveHeader(tcp);
        if (c->GetSize() == 0) return false;
        uint32_t seq = tcp.GetSequenceNumber().GetValue();
        if (!haveIsn) { isn = seq; haveIsn = true; }   // the first data segment is segment 0
        uint32_t n = (seq - isn) / mss;
        uint32_t k = ++seen[n];
        bool d = drops.count({n, k}) > 0;
        t.push_back(Simulator::Now().GetSeconds()); seg.push_back(n); nth.push_back(k); dropped.push_back(d);
        return d;
    }
    void DoReset() override {}
};
class Done
{
  public:
    Ptr<PacketSink> sink; uint64_t size = 0; double at = -1;
    void OnRx(Ptr<const Packet> p, const Address& a)
    {
        if (at < 0 && sink->GetTotalRx() >= size) at = Simulator::Now().GetSeconds();
    }
    void Watch(Ptr<Application> app, uint64_t bytes)
    {
        sink = DynamicCast<PacketSink>(app); size = bytes;
        sink->TraceConnectWithoutContext("Rx", MakeCallback(&Done::OnRx, this));
    }
};
}
"""


def run(segments: int, mss: int, iw: int, delay_ms: float, drops: Sequence[tuple[int, int]], cc: str = "TcpNewReno", duration: float = 20.0) -> dict:
    from ns import ns  # noqa: PLC0415  (heavy import, on demand)
    import cppyy  # noqa: PLC0415

    cppyy.cppdef(_CPP)
    x = cppyy.gbl.xldrop
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", ns.TypeIdValue(ns.TypeId.LookupByName(f"ns3::{cc}")))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", ns.UintegerValue(mss))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", ns.UintegerValue(iw))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", ns.UintegerValue(1 << 24))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", ns.UintegerValue(1 << 24))
    nodes = ns.NodeContainer()
    nodes.Create(2)
    ns.InternetStackHelper().Install(nodes)
    p2p = ns.PointToPointHelper()
    p2p.SetDeviceAttribute("DataRate", ns.StringValue("10Gbps"))
    p2p.SetChannelAttribute("Delay", ns.StringValue(f"{delay_ms}ms"))
    p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("1000p"))
    devs = p2p.Install(nodes.Get(0), nodes.Get(1))
    addr = ns.Ipv4AddressHelper()
    addr.SetBase(ns.Ipv4Address("10.0.0.0"), ns.Ipv4Mask("255.255.255.0"))
    iface = addr.Assign(devs)
    em = ns.CreateObject[x.SeqDrop]()
    em.mss = mss
    for n, k in drops:
        em.Drop(n, k)
    devs.Get(1).SetAttribute("ReceiveErrorModel", ns.PointerValue(em))
    sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), 9).ConvertTo()).Install(nodes.Get(1))
    done = x.Done()
    done.Watch(sink.Get(0), segments * mss)
    bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(iface.GetAddress(1), 9).ConvertTo())
    bulk.SetAttribute("MaxBytes", ns.UintegerValue(segments * mss))
    bulk.SetAttribute("SendSize", ns.UintegerValue(mss))
    bulk.Install(nodes.Get(0)).Start(ns.Seconds(0.0))
    ns.Simulator.Stop(ns.Seconds(duration))
    ns.Simulator.Run()
    log = [{"t_s": float(em.t[i]), "seg": int(em.seg[i]), "nth": int(em.nth[i]), "dropped": bool(em.dropped[i])} for i in range(len(em.t))]
    t0 = log[0]["t_s"] - delay_ms / 1e3 if log else 0.0
    out = {
        "simulator": "ns-3 3.44 (PyPI ns3 wheel)", "cc": cc, "segments": segments, "mss": mss, "iw": iw,
        "delay_ms": delay_ms, "drops": [list(d) for d in drops],
        "retransmissions": [{"t_s": round(e["t_s"] - delay_ms / 1e3 - t0, 9), "seg": e["seg"]} for e in log if e["nth"] > 1],
        "done_s": round(float(done.at) - t0, 9) if done.at >= 0 else None,
        "log": log,
    }
    ns.Simulator.Destroy()
    return out


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--segments", type=int, default=20)
    ap.add_argument("--mss", type=int, default=1000)
    ap.add_argument("--iw", type=int, default=20)
    ap.add_argument("--delay-ms", type=float, default=10.0, help="one-way delay")
    ap.add_argument("--cc", default="TcpNewReno")
    ap.add_argument("--drop", nargs="*", default=[], help="n:k pairs: drop the k-th arrival of segment n")
    ap.add_argument("--log", action="store_true", help="include every data arrival")
    args = ap.parse_args(argv)
    drops = [tuple(int(v) for v in d.split(":")) for d in args.drop]
    out = run(args.segments, args.mss, args.iw, args.delay_ms, drops, args.cc)
    if not args.log:
        out.pop("log")
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
