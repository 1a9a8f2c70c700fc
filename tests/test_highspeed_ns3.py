"""HighSpeed under ns-3's rule (``rule = "ns3"``, the ns3 profile's default: RFC 3649 Appendix B's
table, each window taking the row at or above it, the cut from the flight) next to ns-3 3.44's
TcpHighSpeed, one flow on the 100 Mb/s, 40 ms path of ``validation/cwnd_ns3.py``
(docs/models/highspeed.md). ns-3's numbers are its own run's, stored in
``validation/results/cwnd/summary.json`` by ``validation/cwnd_ns3.py``."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import crosslayer

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "validation"))
import cwnd_ns3  # noqa: E402  (the comparison's scenario)

NS3 = json.loads((ROOT / "validation" / "results" / "cwnd" / "summary.json").read_text())["highspeed"]["ns3"]


def _sawtooth(**cc: str) -> tuple[float, float]:
    sc = cwnd_ns3.scenario("highspeed", "ns3")
    if cc:
        sc["flows"][0]["cc"] = {"kind": "highspeed", **cc}
    r = crosslayer.run(sc)
    m = cwnd_ns3.metrics({"t": r.cwnd.t_s.to_numpy(dtype=float), "cwnd": r.cwnd.cwnd_bytes.to_numpy(dtype=float) / cwnd_ns3.SEG,
                          "loss_events": 0, "loss_detail": "", "goodput_bps": float(r.flows.goodput_bps.iloc[0]),
                          "drops": 0, "marks": 0, "wall_s": 0.0, "events": 0})
    return m["mean_cwnd"], m["period_s"]


def test_the_ns3_profile_climbs_the_sawtooth_as_ns3_does() -> None:
    mean, period = _sawtooth()
    # ns-3: mean 562.1 segments over 10-30 s, a loss every 2.73 s
    assert abs(mean - NS3["mean_cwnd"]) <= 0.01 * NS3["mean_cwnd"], (mean, NS3["mean_cwnd"])
    assert abs(period - NS3["period_s"]) <= 0.05 * NS3["period_s"], (period, NS3["period_s"])
    # the rounded formulas (the linux rule) in the same stack climb more slowly
    _, linux_period = _sawtooth(rule="linux")
    assert linux_period > 1.05 * NS3["period_s"], linux_period
