"""Vegas under ns-3's rules (``rules = "ns3"``, the ns3 profile's default) next to ns-3 3.44's
TcpVegas, one flow on the 100 Mb/s, 40 ms path of ``validation/cwnd_ns3.py``. ns-3's window
freezes at 60 % of the path with no queue (its ``PktsAcked`` gets the smoothed RTT, and its
``diff`` counts a fraction of a queued segment as a whole one: docs/models/vegas.md, "Next to
ns-3"); the ns3 profile freezes where it does. ns-3's numbers are its own run's, stored in
``validation/results/cwnd/summary.json`` by ``validation/cwnd_ns3.py``."""

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

NS3 = json.loads((ROOT / "validation" / "results" / "cwnd" / "summary.json").read_text())["vegas"]["ns3"]


def _run(profile: str, **cc: Any) -> tuple[np.ndarray, np.ndarray, float]:
    sc = cwnd_ns3.scenario("vegas", profile)
    if cc:
        sc["flows"][0]["cc"] = {"kind": "vegas", **cc}
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
