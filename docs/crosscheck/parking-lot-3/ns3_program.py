#!/usr/bin/env python3
"""The ns-3 side of `crosslayer crosscheck --with ns3`: one scenario, built and run in ns-3 3.44.

This file is not imported by crosslayer: ``crosslayer crosscheck`` writes it out with the
scenario's translation in ``DESCRIPTION`` (see ``crosslayer.crosscheck.ns3``) and runs it with
the Python that has ns-3 (the PyPI ``ns3`` package), so it depends on nothing but ns-3 and the
standard library. It can be run by hand::

    ~/ns3env/bin/python program.py                         # the DESCRIPTION written into it
    ~/ns3env/bin/python program.py desc.json --out r.json  # another description, into a file

and writes one JSON object (the measurements) on stdout or to the ``--out`` file; progress lines
``progress <simulated s> <end s>`` go to stderr.

What it builds (every choice is the description's; nothing is defaulted here)
* nodes; full-duplex point-to-point links, one delay for both directions, a data rate and a
  root queue disc per direction (installed before addresses, so ns-3 adds no pfifo_fast), every
  device's own transmit queue one packet (the backlog sits in the queue disc), a Bernoulli
  loss per direction as a ``RateErrorModel`` (per packet) on the receiving device;
* static host routes along crosslayer's own paths (every node of a flow's data path routes to
  its receiver, every node of its ACKs' path to its sender), so that both take the same paths;
* per UDP (CBR) flow an always-on ``OnOffApplication`` to a UDP ``PacketSink``, datagrams of
  the same wire size at the same intervals;
* per TCP flow a ``BulkSendApplication`` (``MaxBytes`` the flow's size, 0 = unlimited) to its own
  ``PacketSink`` port, started at the flow's start time; its congestion control set on the
  sender node's ``TcpL4Protocol::SocketType`` just before the application starts (events at
  one time run in the order they were scheduled);
* TCP attributes as ``Config::SetDefault`` (they are the same for every flow).

What it measures (window [warmup, duration])
* per flow: goodput (``PacketSink`` bytes in the window; in-order payload), retransmitted data
  segments (``Retransmission`` trace), retransmission timeouts (the ``RTO`` trace value doubled
  while established: ns-3 has no trace for the timer itself), entries into fast recovery;
* per finite flow: its completion time (its start to the instant its ``PacketSink`` has its
  size);
* every bottleneck (a flow's bottleneck as crosslayer reports it): the packets waiting there,
  in its queue disc and its device's transmit queue (crosslayer counts both as its queue):
  exact time-weighted mean and SD of ``PacketsInQueue``, arrivals
  (enqueued + dropped before enqueue), drops, marks, the sojourn time of every packet dequeued
  (``SojournTime``); the queue crosslayer samples (``series``) sampled every ``sample_interval_s``.
"""

from __future__ import annotations

import json
import math
import sys
import time
from typing import Any

DESCRIPTION: Any = json.loads(r"""
{
 "format": 1,
 "ns3": "3.44",
 "run": 1,
 "duration_s": 30.0,
 "warmup_s": 10.0,
 "sample_interval_s": 0.01,
 "nodes": [
  "S0",
  "S1",
  "S2",
  "S3",
  "D0",
  "D1",
  "D2",
  "D3",
  "R1",
  "R2",
  "R3",
  "R4"
 ],
 "links": [
  {
   "a": "R1",
   "b": "R2",
   "delay_s": 0.01,
   "ab": {
    "name": "R1->R2",
    "rate_bps": 10000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::CoDelQueueDisc",
     "attributes": {
      "Interval": "100000000ns",
      "MaxSize": "999p",
      "MinBytes": "1514",
      "Target": "5000000ns",
      "UseEcn": "false"
     }
    }
   },
   "ba": {
    "name": "R2->R1",
    "rate_bps": 10000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::CoDelQueueDisc",
     "attributes": {
      "Interval": "100000000ns",
      "MaxSize": "999p",
      "MinBytes": "1514",
      "Target": "5000000ns",
      "UseEcn": "false"
     }
    }
   }
  },
  {
   "a": "R2",
   "b": "R3",
   "delay_s": 0.01,
   "ab": {
    "name": "R2->R3",
    "rate_bps": 10000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::CoDelQueueDisc",
     "attributes": {
      "Interval": "100000000ns",
      "MaxSize": "999p",
      "MinBytes": "1514",
      "Target": "5000000ns",
      "UseEcn": "false"
     }
    }
   },
   "ba": {
    "name": "R3->R2",
    "rate_bps": 10000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::CoDelQueueDisc",
     "attributes": {
      "Interval": "100000000ns",
      "MaxSize": "999p",
      "MinBytes": "1514",
      "Target": "5000000ns",
      "UseEcn": "false"
     }
    }
   }
  },
  {
   "a": "R3",
   "b": "R4",
   "delay_s": 0.01,
   "ab": {
    "name": "R3->R4",
    "rate_bps": 10000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::CoDelQueueDisc",
     "attributes": {
      "Interval": "100000000ns",
      "MaxSize": "999p",
      "MinBytes": "1514",
      "Target": "5000000ns",
      "UseEcn": "false"
     }
    }
   },
   "ba": {
    "name": "R4->R3",
    "rate_bps": 10000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::CoDelQueueDisc",
     "attributes": {
      "Interval": "100000000ns",
      "MaxSize": "999p",
      "MinBytes": "1514",
      "Target": "5000000ns",
      "UseEcn": "false"
     }
    }
   }
  },
  {
   "a": "S0",
   "b": "R1",
   "delay_s": 0.001,
   "ab": {
    "name": "S0->R1",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R1->S0",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  },
  {
   "a": "D0",
   "b": "R4",
   "delay_s": 0.001,
   "ab": {
    "name": "D0->R4",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R4->D0",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  },
  {
   "a": "S1",
   "b": "R1",
   "delay_s": 0.001,
   "ab": {
    "name": "S1->R1",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R1->S1",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  },
  {
   "a": "D1",
   "b": "R2",
   "delay_s": 0.001,
   "ab": {
    "name": "D1->R2",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R2->D1",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  },
  {
   "a": "S2",
   "b": "R2",
   "delay_s": 0.001,
   "ab": {
    "name": "S2->R2",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R2->S2",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  },
  {
   "a": "D2",
   "b": "R3",
   "delay_s": 0.001,
   "ab": {
    "name": "D2->R3",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R3->D2",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  },
  {
   "a": "S3",
   "b": "R3",
   "delay_s": 0.001,
   "ab": {
    "name": "S3->R3",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R3->S3",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  },
  {
   "a": "D3",
   "b": "R4",
   "delay_s": 0.001,
   "ab": {
    "name": "D3->R4",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   },
   "ba": {
    "name": "R4->D3",
    "rate_bps": 100000000,
    "loss": 0.0,
    "qdisc": {
     "type": "ns3::FifoQueueDisc",
     "attributes": {
      "MaxSize": "999p"
     }
    }
   }
  }
 ],
 "routes": [
  {
   "node": "S0",
   "dst": "D0",
   "link": "S0->R1"
  },
  {
   "node": "R1",
   "dst": "D0",
   "link": "R1->R2"
  },
  {
   "node": "R2",
   "dst": "D0",
   "link": "R2->R3"
  },
  {
   "node": "R3",
   "dst": "D0",
   "link": "R3->R4"
  },
  {
   "node": "R4",
   "dst": "D0",
   "link": "R4->D0"
  },
  {
   "node": "D0",
   "dst": "S0",
   "link": "D0->R4"
  },
  {
   "node": "R4",
   "dst": "S0",
   "link": "R4->R3"
  },
  {
   "node": "R3",
   "dst": "S0",
   "link": "R3->R2"
  },
  {
   "node": "R2",
   "dst": "S0",
   "link": "R2->R1"
  },
  {
   "node": "R1",
   "dst": "S0",
   "link": "R1->S0"
  },
  {
   "node": "S1",
   "dst": "D1",
   "link": "S1->R1"
  },
  {
   "node": "R1",
   "dst": "D1",
   "link": "R1->R2"
  },
  {
   "node": "R2",
   "dst": "D1",
   "link": "R2->D1"
  },
  {
   "node": "D1",
   "dst": "S1",
   "link": "D1->R2"
  },
  {
   "node": "R2",
   "dst": "S1",
   "link": "R2->R1"
  },
  {
   "node": "R1",
   "dst": "S1",
   "link": "R1->S1"
  },
  {
   "node": "S2",
   "dst": "D2",
   "link": "S2->R2"
  },
  {
   "node": "R2",
   "dst": "D2",
   "link": "R2->R3"
  },
  {
   "node": "R3",
   "dst": "D2",
   "link": "R3->D2"
  },
  {
   "node": "D2",
   "dst": "S2",
   "link": "D2->R3"
  },
  {
   "node": "R3",
   "dst": "S2",
   "link": "R3->R2"
  },
  {
   "node": "R2",
   "dst": "S2",
   "link": "R2->S2"
  },
  {
   "node": "S3",
   "dst": "D3",
   "link": "S3->R3"
  },
  {
   "node": "R3",
   "dst": "D3",
   "link": "R3->R4"
  },
  {
   "node": "R4",
   "dst": "D3",
   "link": "R4->D3"
  },
  {
   "node": "D3",
   "dst": "S3",
   "link": "D3->R4"
  },
  {
   "node": "R4",
   "dst": "S3",
   "link": "R4->R3"
  },
  {
   "node": "R3",
   "dst": "S3",
   "link": "R3->S3"
  }
 ],
 "bottlenecks": [
  "R1->R2",
  "R2->R3",
  "R3->R4"
 ],
 "series": "R1->R2",
 "send_size": 1448,
 "tcp": {
  "ns3::TcpCubic::Beta": "0.7",
  "ns3::TcpCubic::C": "0.4",
  "ns3::TcpCubic::FastConvergence": "true",
  "ns3::TcpSocket::DelAckCount": "2",
  "ns3::TcpSocket::InitialCwnd": "10",
  "ns3::TcpSocket::RcvBufSize": "33554432",
  "ns3::TcpSocket::SegmentSize": "1448",
  "ns3::TcpSocket::SndBufSize": "33554432",
  "ns3::TcpSocketBase::Sack": "true",
  "ns3::TcpSocketBase::Timestamp": "true",
  "ns3::TcpSocketBase::UseEcn": "Off"
 },
 "flows": [
  {
   "name": "S0-D0.0",
   "src": "S0",
   "dst": "D0",
   "cc": "ns3::TcpCubic",
   "start_s": 0.0,
   "size_bytes": 0
  },
  {
   "name": "S1-D1.0",
   "src": "S1",
   "dst": "D1",
   "cc": "ns3::TcpCubic",
   "start_s": 0.0,
   "size_bytes": 0
  },
  {
   "name": "S2-D2.0",
   "src": "S2",
   "dst": "D2",
   "cc": "ns3::TcpCubic",
   "start_s": 0.0,
   "size_bytes": 0
  },
  {
   "name": "S3-D3.0",
   "src": "S3",
   "dst": "D3",
   "cc": "ns3::TcpCubic",
   "start_s": 0.0,
   "size_bytes": 0
  }
 ],
 "udp": []
}
""")

_CPP = r"""
#include "ns3/core-module.h"
#include "ns3/network-module.h"
#include "ns3/internet-module.h"
#include "ns3/applications-module.h"
#include "ns3/point-to-point-module.h"
#include "ns3/traffic-control-module.h"
#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace xlcc {
using namespace ns3;

// Exact time integral of the packets waiting at a link (its queue disc's and its device's
// transmit queue's) over [t0, end], the sojourn times of the packets the queue disc dequeued in
// the window, and the count sampled every `every` seconds.
class QueueProbe
{
  public:
    double t0 = 0.0;
    double last = 0.0;
    uint32_t cur = 0;   // queue disc + device queue
    uint32_t inDisc = 0;
    uint32_t inDevice = 0;
    double a1 = 0.0;
    double a2 = 0.0;
    std::vector<double> sojourn;
    std::vector<double> sampleT;
    std::vector<uint32_t> sampleQ;
    double every = 0.0;
    double until = 0.0;
    Ptr<QueueDisc> q;

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
    void OnChange(uint32_t, uint32_t v)
    {
        Advance(Simulator::Now().GetSeconds());
        inDisc = v;
        cur = inDisc + inDevice;
    }
    void OnDeviceChange(uint32_t, uint32_t v)
    {
        Advance(Simulator::Now().GetSeconds());
        inDevice = v;
        cur = inDisc + inDevice;
    }
    void OnSojourn(Time s)
    {
        if (Simulator::Now().GetSeconds() >= t0) sojourn.push_back(s.GetSeconds());
    }
    void Sample()
    {
        sampleT.push_back(Simulator::Now().GetSeconds());
        sampleQ.push_back(cur);
        if (Simulator::Now().GetSeconds() + every <= until + 1e-12)
            Simulator::Schedule(Seconds(every), &QueueProbe::Sample, this);
    }
    bool Connect(Ptr<QueueDisc> disc, Ptr<NetDevice> dev, double from, double sampleEvery, double end)
    {
        q = disc;
        t0 = from;
        every = sampleEvery;
        until = end;
        if (every > 0) Simulator::Schedule(Seconds(every), &QueueProbe::Sample, this);
        Ptr<PointToPointNetDevice> p2p = DynamicCast<PointToPointNetDevice>(dev);
        return q->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueProbe::OnChange, this))
            && q->TraceConnectWithoutContext("SojournTime", MakeCallback(&QueueProbe::OnSojourn, this))
            && p2p->GetQueue()->TraceConnectWithoutContext("PacketsInQueue", MakeCallback(&QueueProbe::OnDeviceChange, this));
    }
    void Finish(double t) { Advance(t); }
    // nearest rank; -1 when no packet left the queue in the window
    double SojournQuantile(double p)
    {
        if (sojourn.empty()) return -1.0;
        std::vector<double> v(sojourn);
        std::sort(v.begin(), v.end());
        size_t k = size_t(std::ceil(p * double(v.size())));
        return v[std::min(std::max(k, size_t(1)), v.size()) - 1];
    }
};

// A flow's counters, attached to its BulkSendApplication's socket 1 ns after it starts.
class FlowProbe
{
  public:
    Ptr<BulkSendApplication> app;
    bool attached = false;
    bool established = false;
    uint64_t retx = 0;
    uint64_t recoveries = 0;
    uint64_t rtos = 0;

    void Attach()
    {
        Ptr<TcpSocketBase> sock = DynamicCast<TcpSocketBase>(app->GetSocket());
        if (!sock) return;
        sock->TraceConnectWithoutContext("State", MakeCallback(&FlowProbe::OnState, this));
        sock->TraceConnectWithoutContext("CongState", MakeCallback(&FlowProbe::OnCong, this));
        sock->TraceConnectWithoutContext("RTO", MakeCallback(&FlowProbe::OnRto, this));
        sock->TraceConnectWithoutContext("Retransmission", MakeCallback(&FlowProbe::OnRetx, this));
        attached = true;
    }
    void OnState(TcpSocket::TcpStates_t, TcpSocket::TcpStates_t n)
    {
        if (n == TcpSocket::ESTABLISHED) established = true;
    }
    void OnCong(TcpSocketState::TcpCongState_t o, TcpSocketState::TcpCongState_t n)
    {
        if (n == TcpSocketState::CA_RECOVERY && o != TcpSocketState::CA_RECOVERY) recoveries++;
    }
    void OnRto(Time o, Time n)
    {
        if (established && n != o && n == Min(o + o, Seconds(60))) rtos++;
    }
    void OnRetx(Ptr<const Packet>, const TcpHeader&, const Address&, const Address&, Ptr<const TcpSocketBase>)
    {
        retx++;
    }
};

// When a finite flow's last byte reached its PacketSink (in-order bytes).
class SinkProbe
{
  public:
    uint64_t size = 0;
    uint64_t got = 0;
    double done = -1.0;
    void OnRx(Ptr<const Packet> p, const Address&)
    {
        got += p->GetSize();
        if (done < 0 && got >= size) done = Simulator::Now().GetSeconds();
    }
};

// A CBR flow's datagrams: sent (the OnOffApplication's Tx) and received (its PacketSink's Rx).
class UdpProbe
{
  public:
    uint64_t sent = 0;
    uint64_t received = 0;
    void OnTx(Ptr<const Packet>) { sent++; }
    void OnRx(Ptr<const Packet>, const Address&) { received++; }
};

class Probes
{
  public:
    std::vector<std::unique_ptr<UdpProbe>> udp;
    std::vector<std::unique_ptr<SinkProbe>> sinks;
    std::vector<std::unique_ptr<FlowProbe>> flows;
    std::vector<std::unique_ptr<QueueProbe>> queues;
    FlowProbe* AddFlow(Ptr<Application> app, double start)
    {
        flows.emplace_back(new FlowProbe());
        FlowProbe* f = flows.back().get();
        f->app = DynamicCast<BulkSendApplication>(app);
        Simulator::Schedule(Seconds(start) + NanoSeconds(1), &FlowProbe::Attach, f);
        return f;
    }
    UdpProbe* AddUdp(Ptr<Application> source, Ptr<Application> sink)
    {
        udp.emplace_back(new UdpProbe());
        UdpProbe* u = udp.back().get();
        source->TraceConnectWithoutContext("Tx", MakeCallback(&UdpProbe::OnTx, u));
        sink->TraceConnectWithoutContext("Rx", MakeCallback(&UdpProbe::OnRx, u));
        return u;
    }
    SinkProbe* AddSink(Ptr<Application> sink, uint64_t size)
    {
        sinks.emplace_back(new SinkProbe());
        SinkProbe* s = sinks.back().get();
        s->size = size;
        sink->TraceConnectWithoutContext("Rx", MakeCallback(&SinkProbe::OnRx, s));
        return s;
    }
    QueueProbe* AddQueue()
    {
        queues.emplace_back(new QueueProbe());
        return queues.back().get();
    }
    void Clear()
    {
        flows.clear();
        queues.clear();
        sinks.clear();
        udp.clear();
    }
};

// The congestion control of the next socket created on node n, set at `at` (before the
// application that starts then creates its socket).
inline void SetSocketTypeAt(Ptr<Node> n, std::string type, double at)
{
    Ptr<TcpL4Protocol> l4 = n->GetObject<TcpL4Protocol>();
    TypeId tid = TypeId::LookupByName(type);
    Simulator::Schedule(Seconds(at), [l4, tid]() { l4->SetAttribute("SocketType", TypeIdValue(tid)); });
}
inline bool HasType(std::string type)
{
    TypeId tid;
    return TypeId::LookupByNameFailSafe(type, &tid);
}
inline void AddHostRoute(Ptr<Node> n, Ipv4Address dst, Ipv4Address nextHop, Ptr<NetDevice> d)
{
    Ptr<Ipv4> ip = n->GetObject<Ipv4>();
    Ipv4StaticRoutingHelper helper;
    helper.GetStaticRouting(ip)->AddHostRouteTo(dst, nextHop, ip->GetInterfaceForDevice(d));
}
inline Ptr<QueueDisc> RootQueueDisc(Ptr<Node> n, Ptr<NetDevice> d)
{
    return n->GetObject<TrafficControlLayer>()->GetRootQueueDiscOnDevice(d);
}
inline QueueDisc::Stats QdiscStats(Ptr<QueueDisc> q) { return q->GetStats(); }
inline uint64_t SinkRx(Ptr<Application> a) { return DynamicCast<PacketSink>(a)->GetTotalRx(); }
inline void SetLoss(Ptr<NetDevice> d, double p)
{
    Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
    em->SetAttribute("ErrorUnit", StringValue("ERROR_UNIT_PACKET"));
    em->SetAttribute("ErrorRate", DoubleValue(p));
    d->SetAttribute("ReceiveErrorModel", PointerValue(em));
}
}  // namespace xlcc
"""

BASE_PORT = 10000


def _load() -> tuple[Any, Any]:
    from ns import ns  # noqa: PLC0415  (ns-3's bindings: seconds of parsing)
    import cppyy  # noqa: PLC0415

    cppyy.cppdef(_CPP)
    return ns, cppyy


def _qstats(x: Any, qd: Any) -> dict[str, int]:
    st = x.QdiscStats(qd)
    return {
        "enqueued": int(st.nTotalEnqueuedPackets),
        "dropped": int(st.nTotalDroppedPackets),
        "dropped_before_enqueue": int(st.nTotalDroppedPacketsBeforeEnqueue),
        "marked": int(st.nTotalMarkedPackets),
    }


def _progress(t: float, end: float) -> None:
    print(f"progress {t:.6g} {end:.6g}", file=sys.stderr, flush=True)


def run(d: dict[str, Any]) -> dict[str, Any]:
    """Build the description's scenario in ns-3, run it, return the measurements."""
    ns, cppyy = _load()
    x = cppyy.gbl.xlcc
    duration, warmup = float(d["duration_s"]), float(d["warmup_s"])
    missing = sorted({f["cc"] for f in d["flows"]} | {q["type"] for link in d["links"] for q in (link["ab"]["qdisc"], link["ba"]["qdisc"])})
    missing = [t for t in missing if not x.HasType(t)]
    if missing:
        raise SystemExit(f"this ns-3 has no {', '.join(missing)}")

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(int(d["run"]))
    for name, value in d["tcp"].items():
        ns.Config.SetDefault(name, ns.StringValue(str(value)))

    nodes = ns.NodeContainer()
    nodes.Create(len(d["nodes"]))
    node = {n: nodes.Get(i) for i, n in enumerate(d["nodes"])}
    ns.InternetStackHelper().Install(nodes)

    qdiscs: dict[str, Any] = {}
    devices: dict[str, Any] = {}
    addr = ns.Ipv4AddressHelper()
    address_of: dict[str, Any] = {}  # a host's address: the one of its first link
    peer_of: dict[str, Any] = {}  # a direction's next hop: the address at its far end
    for i, link in enumerate(d["links"]):
        a, b = link["a"], link["b"]
        p2p = ns.PointToPointHelper()
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", ns.StringValue("1p"))
        p2p.SetChannelAttribute("Delay", ns.StringValue(f"{round(link['delay_s'] * 1e9)}ns"))
        devs = p2p.Install(node[a], node[b])
        for k, (side, dev, rx) in enumerate((("ab", devs.Get(0), devs.Get(1)), ("ba", devs.Get(1), devs.Get(0)))):
            half = link[side]
            dev.SetAttribute("DataRate", ns.StringValue(f"{int(half['rate_bps'])}bps"))
            q = half["qdisc"]
            for attr, value in q["attributes"].items():
                ns.Config.SetDefault(f"{q['type']}::{attr}", ns.StringValue(str(value)))
            tch = ns.TrafficControlHelper()
            tch.SetRootQueueDisc(q["type"])
            qdiscs[half["name"]] = tch.Install(dev).Get(0)
            devices[half["name"]] = dev
            if half["loss"] > 0:
                x.SetLoss(rx, float(half["loss"]))
        addr.SetBase(ns.Ipv4Address(f"10.{(i + 1) // 256}.{(i + 1) % 256}.0"), ns.Ipv4Mask("255.255.255.0"))
        ifc = addr.Assign(devs)
        address_of.setdefault(a, ifc.GetAddress(0))
        address_of.setdefault(b, ifc.GetAddress(1))
        peer_of[link["ab"]["name"]], peer_of[link["ba"]["name"]] = ifc.GetAddress(1), ifc.GetAddress(0)
    for r in d["routes"]:  # crosslayer's paths, as host routes
        x.AddHostRoute(node[r["node"]], address_of[r["dst"]], peer_of[r["link"]], devices[r["link"]])
    for name, qd in qdiscs.items():
        a = name.split("->")[0]
        assert x.RootQueueDisc(node[a], devices[name]) == qd, f"unexpected root queue disc on {name}"

    probes = x.Probes()
    sinks, probe, done = [], [], []
    for i, f in enumerate(d["flows"]):
        port = BASE_PORT + i
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo())
        apps = sink.Install(node[f["dst"]])
        apps.Start(ns.Seconds(0.0))
        sinks.append(apps.Get(0))
        done.append(probes.AddSink(apps.Get(0), int(f["size_bytes"])) if f["size_bytes"] else None)
        x.SetSocketTypeAt(node[f["src"]], f["cc"], float(f["start_s"]))
        bulk = ns.BulkSendHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(address_of[f["dst"]], port).ConvertTo())
        bulk.SetAttribute("MaxBytes", ns.UintegerValue(int(f["size_bytes"])))
        bulk.SetAttribute("SendSize", ns.UintegerValue(int(d["send_size"])))
        src_apps = bulk.Install(node[f["src"]])
        src_apps.Start(ns.Seconds(float(f["start_s"])))
        probe.append(probes.AddFlow(src_apps.Get(0), float(f["start_s"])))

    udp_probes = []
    for i, u in enumerate(d.get("udp", [])):  # CBR: always on, the same datagrams at the same intervals
        port = BASE_PORT + len(d["flows"]) + i
        sink = ns.PacketSinkHelper("ns3::UdpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port).ConvertTo()).Install(node[u["dst"]])
        sink.Start(ns.Seconds(0.0))
        onoff = ns.OnOffHelper("ns3::UdpSocketFactory", ns.InetSocketAddress(address_of[u["dst"]], port).ConvertTo())
        onoff.SetAttribute("OnTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=1e9]"))
        onoff.SetAttribute("OffTime", ns.StringValue("ns3::ConstantRandomVariable[Constant=0]"))
        onoff.SetAttribute("PacketSize", ns.UintegerValue(int(u["payload_bytes"])))
        onoff.SetAttribute("DataRate", ns.StringValue(f"{int(u['data_rate_bps'])}bps"))
        source = onoff.Install(node[u["src"]])
        source.Start(ns.Seconds(float(u["start_s"])))
        source.Stop(ns.Seconds(float(u["stop_s"]) if u["stop_s"] is not None else duration + 1.0))
        udp_probes.append(probes.AddUdp(source.Get(0), sink.Get(0)))

    queue_probes = {}
    for name in dict.fromkeys([*d["bottlenecks"], *([d["series"]] if d["series"] else [])]):
        qp = probes.AddQueue()
        assert qp.Connect(qdiscs[name], devices[name], warmup, float(d["sample_interval_s"]) if name == d["series"] else 0.0, duration)
        queue_probes[name] = qp

    wall = 0.0
    marks = sorted({warmup, duration} | {duration * k / 20 for k in range(1, 20)})
    rx0: list[int] = []
    u0: list[tuple[int, int]] = []
    c0: list[tuple[int, int, int]] = []
    qs0: dict[str, int] = {}
    now = 0.0
    for t in marks:
        if t <= now:
            continue
        ns.Simulator.Stop(ns.Seconds(t - now))
        t_wall = time.perf_counter()
        ns.Simulator.Run()
        wall += time.perf_counter() - t_wall
        now = t
        _progress(now, duration)
        if t == warmup:
            rx0 = [int(x.SinkRx(s)) for s in sinks]
            c0 = [(p.retx, p.recoveries, p.rtos) for p in probe]
            u0 = [(int(u.sent), int(u.received)) for u in udp_probes]
            qs0 = {name: _qstats(x, qdiscs[name]) for name in queue_probes}
    if warmup == 0:
        zero = {k: 0 for k in ("enqueued", "dropped", "dropped_before_enqueue", "marked")}
        rx0, c0, qs0 = [0] * len(sinks), [(0, 0, 0)] * len(sinks), {name: zero for name in queue_probes}
        u0 = [(0, 0)] * len(udp_probes)
    for qp in queue_probes.values():
        qp.Finish(duration)
    window = duration - warmup

    flows = []
    for i, f in enumerate(d["flows"]):
        p = probe[i]
        rx = int(x.SinkRx(sinks[i]))
        flows.append({
            "name": f["name"],
            "connected": bool(p.established),
            "goodput_bps": (rx - rx0[i]) * 8.0 / window,
            "retransmits": int(p.retx) - c0[i][0],
            "fast_recoveries": int(p.recoveries) - c0[i][1],
            "timeouts": int(p.rtos) - c0[i][2],
            "fct_s": done[i].done - float(f["start_s"]) if done[i] is not None and done[i].done >= 0 else None,
        })
    queues = {}
    for name, qp in queue_probes.items():
        s1 = _qstats(x, qdiscs[name])
        delta = {k: s1[k] - qs0[name][k] for k in s1}
        arrivals = delta["enqueued"] + delta["dropped_before_enqueue"]
        mean = qp.a1 / window
        p99 = float(qp.SojournQuantile(0.99))
        queues[name] = {
            "qlen_mean_pkts": mean,
            "qlen_sd_pkts": math.sqrt(max(qp.a2 / window - mean * mean, 0.0)),
            "arrivals": arrivals,
            "drops": delta["dropped"],
            "marks": delta["marked"],
            "drop_ratio": delta["dropped"] / arrivals if arrivals else 0.0,
            "sojourn_p99_s": p99 if p99 >= 0 else None,
        }
    udp = [
        {"name": u["name"], "sent_pkts": int(p.sent) - u0[i][0], "received_pkts": int(p.received) - u0[i][1], "packet_bytes": int(u["packet_bytes"])}
        for i, (u, p) in enumerate(zip(d.get("udp", []), udp_probes))
    ]
    series = queue_probes.get(d["series"])
    result = {
        "simulator": "ns-3 3.44",
        "run": int(d["run"]),
        "window_s": window,
        "flows": flows,
        "udp": udp,
        "queues": queues,
        "series": {"link": d["series"], "t_s": [float(t) for t in series.sampleT], "qlen_pkts": [int(q) for q in series.sampleQ]} if series else None,
        "events": int(ns.Simulator.GetEventCount()),
        "run_wall_s": wall,
    }
    probes.Clear()
    ns.Simulator.Destroy()
    return result


def main(argv: list[str]) -> int:
    args = argv[1:]
    out = None
    if len(args) >= 2 and args[-2] == "--out":
        out, args = args[-1], args[:-2]
    if args:
        with open(args[0], encoding="utf-8") as fh:
            description = json.load(fh)
    elif DESCRIPTION is not None:
        description = DESCRIPTION
    else:
        print("usage: program.py [description.json] [--out result.json] (this copy has no DESCRIPTION)", file=sys.stderr)
        return 2
    result = run(description)
    if out is None:
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
    else:
        with open(out, "w", encoding="utf-8") as fh:
            json.dump(result, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
