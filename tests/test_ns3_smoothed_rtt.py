"""Vegas, YeAH and Westwood+ under ns-3's rules (``rules = "ns3"``, the ns3 profile's default) next
to ns-3 3.44's TcpVegas, TcpYeah and TcpWestwoodPlus, one flow on the 100 Mb/s, 40 ms path of
``validation/cwnd_ns3.py``.
Both get the smoothed RTT from ns-3's ``PktsAcked``, which stays a fraction of a millisecond
above the handshake's whole-millisecond base with no queue. ns-3's Vegas window freezes at 60 %
of the path (its ``diff`` counts that fraction of a segment as a whole one:
docs/models/vegas.md); ns-3's YeAH is in its slow (Reno) mode in every round (``1 / m_phy`` is
0 in integers: docs/models/yeah.md). ns-3's Westwood+ samples the bandwidth once per smoothed RTT
and cuts to it times the least smoothed RTT at the loss (docs/models/westwood.md). The ns3
profile gives ns-3's traces. ns-3's numbers are
its own run's, stored in ``validation/results/cwnd/summary.json`` by ``validation/cwnd_ns3.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import crosslayer
import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))
import cwnd_ns3  # noqa: E402  (the comparison's scenario)

SUMMARY = json.loads((ROOT / "validation" / "results" / "cwnd" / "summary.json").read_text())
NS3 = SUMMARY["vegas"]["ns3"]


def _run(profile: str, kind: str = "vegas", **cc: Any) -> tuple[np.ndarray, np.ndarray, float]:
    sc = cwnd_ns3.scenario(kind, profile)
    if cc:
        sc["flows"][0]["cc"] = {"kind": kind, **cc}
    r = crosslayer.run(sc)
    t = r.cwnd.t_s.to_numpy(dtype=float)
    return t, r.cwnd.cwnd_bytes.to_numpy(dtype=float) / cwnd_ns3.SEG, float(r.flows.goodput_bps.iloc[0])


def test_the_ns3_profile_freezes_a_single_vegas_flow_where_ns3_does() -> None:
    t, c, goodput = _run("ns3")
    window = t >= cwnd_ns3.WARMUP
    # ns-3: 209 segments from 8.73 s to the end, 60.02 Mb/s
    assert abs(c[window].mean() - NS3["mean_cwnd"]) <= 1.0, (c[window].mean(), NS3["mean_cwnd"])
    assert abs(c.max() - NS3["max_cwnd"]) <= 1.0, (c.max(), NS3["max_cwnd"])
    assert abs(goodput / 1e6 - NS3["goodput_mbps"]) <= 0.005 * NS3["goodput_mbps"], (goodput, NS3["goodput_mbps"])
    assert c[window].min() == c[window].max(), "the window does not change in the measured window"


def test_linux_rules_fill_the_path_in_the_same_stack() -> None:
    # the same ns-3 TCP stack with Linux's Vegas: each ACK's (whole-millisecond) sample, whose
    # round minimum is the base RTT until a millisecond of queue stands: BDP plus a few segments
    t, c, goodput = _run("ns3", rules="linux")
    assert c[t >= cwnd_ns3.WARMUP].mean() > 1.5 * NS3["mean_cwnd"]
    assert goodput > 96e6


def test_the_ns3_profile_gives_ns3s_yeah_trace() -> None:
    ns3 = SUMMARY["yeah"]["ns3"]
    t, c, goodput = _run("ns3", "yeah")
    window = t >= cwnd_ns3.WARMUP
    # ns-3: decongestion to 194 segments in the first second, then Reno's growth with no cut
    # (194 -> 484, mean 396.2 over 10-30 s), 95.44 Mb/s
    assert abs(c[window].mean() - ns3["mean_cwnd"]) <= 1.0, (c[window].mean(), ns3["mean_cwnd"])
    assert abs(c.max() - ns3["max_cwnd"]) <= 1.0 and abs(c[window].max() - ns3["max_cwnd_window"]) <= 1.0
    assert abs(goodput / 1e6 - ns3["goodput_mbps"]) <= 0.005 * ns3["goodput_mbps"], (goodput, ns3["goodput_mbps"])
    assert not cwnd_ns3.reductions(t[window], c[window]), "no reduction in the measured window, as ns-3"
    # Linux's rules in the same stack: fast mode while the queue is short, decongestion cycles
    t, c, _ = _run("ns3", "yeah", rules="linux")
    assert len(cwnd_ns3.reductions(t[t >= cwnd_ns3.WARMUP], c[t >= cwnd_ns3.WARMUP])) >= 5


def test_the_ns3_profile_gives_ns3s_westwood_trace() -> None:
    ns3 = SUMMARY["westwood"]["ns3"]
    detail = json.loads((ROOT / "validation" / "results" / "cwnd" / "westwood.ns3.json").read_text())
    sc = cwnd_ns3.scenario("westwood", "ns3")
    r = crosslayer.run(sc)
    t = r.cwnd.t_s.to_numpy(dtype=float)
    c = r.cwnd.cwnd_bytes.to_numpy(dtype=float) / cwnd_ns3.SEG
    s = r.cwnd.ssthresh_bytes.to_numpy(dtype=float) / cwnd_ns3.SEG
    # the slow-start loss: ssthresh = bw x least SRTT, ns-3 104.271 segments at 0.595 s
    set_at, value = detail["ssthresh"][1]
    after = np.isfinite(s) & (s < 1e6)
    assert abs(t[after][0] - set_at) < 0.002 and abs(s[after][0] - value) < 0.01, (t[after][0], s[after][0], value)
    assert len(set(s[after])) == 1, "no later cut, as ns-3"
    # then NewReno's growth to the end: mean 319.9, 417.8 at 30 s, 86.34 Mb/s in ns-3
    window = t >= cwnd_ns3.WARMUP
    assert abs(c[window].mean() - ns3["mean_cwnd"]) <= 1.0, (c[window].mean(), ns3["mean_cwnd"])
    assert abs(c[window].max() - ns3["max_cwnd_window"]) <= 1.0, (c[window].max(), ns3["max_cwnd_window"])
    goodput = float(r.flows.goodput_bps.iloc[0])
    assert abs(goodput / 1e6 - ns3["goodput_mbps"]) <= 0.005 * ns3["goodput_mbps"], (goodput, ns3["goodput_mbps"])
    # Linux's rules in the same stack: two 7/8 filters, the window set at the recovery's end
    sc["flows"][0]["cc"] = {"kind": "westwood", "rules": "linux"}
    r = crosslayer.run(sc)
    c = r.cwnd.cwnd_bytes.to_numpy(dtype=float) / cwnd_ns3.SEG
    assert abs(c[window].mean() - ns3["mean_cwnd"]) > 10.0
