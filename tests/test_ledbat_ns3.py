"""LEDBAT under ns-3's rules (``rules = "ns3"``, the ns3 profile's default) next to ns-3 3.44's
TcpLedbat, one flow on the 100 Mb/s, 40 ms, 333-packet path of ``validation/cwnd_ns3.py``. ns-3's
congestion avoidance caps cwnd at the flight before the ACK (no ALLOWED_INCREASE), so the window
slow start left after its loss (half the flight) is kept to the end, although the queue never
nears the 100 ms target (docs/models/ledbat.md). ns-3's numbers are its own run's, stored in
``validation/results/cwnd/`` by ``validation/cwnd_ns3.py``."""

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

NS3 = json.loads((ROOT / "validation" / "results" / "cwnd" / "summary.json").read_text())["ledbat"]["ns3"]
DETAIL = json.loads((ROOT / "validation" / "results" / "cwnd" / "ledbat.ns3.json").read_text())


def _run(**cc: Any) -> tuple[np.ndarray, np.ndarray, Any]:
    sc = cwnd_ns3.scenario("ledbat", "ns3")
    if cc:
        sc["flows"][0]["cc"] = {"kind": "ledbat", **cc}
    r = crosslayer.run(sc)
    return r.cwnd.t_s.to_numpy(dtype=float), r.cwnd.cwnd_bytes.to_numpy(dtype=float) / cwnd_ns3.SEG, r


def test_the_ns3_profile_keeps_the_window_slow_start_left() -> None:
    t, c, r = _run()
    window = t >= cwnd_ns3.WARMUP
    # ns-3: 501 segments from 0.6 s to the end, its ssthresh (500.5, half the flight at the
    # slow-start loss) plus the one segment its slow start still adds after the recovery
    assert c[window].min() == c[window].max(), "the window does not change in the measured window"
    assert c[(t >= 1.0)].min() == c[(t >= 1.0)].max(), "nor from the first second on"
    assert abs(c[window].mean() - NS3["mean_cwnd"]) <= 1.0, (c[window].mean(), NS3["mean_cwnd"])
    assert abs(c.max() - NS3["max_cwnd"]) <= 2.0, (c.max(), NS3["max_cwnd"])
    s = r.cwnd.ssthresh_bytes.to_numpy(dtype=float) / cwnd_ns3.SEG
    after = np.isfinite(s) & (s < 1e6)
    assert abs(s[after][0] - DETAIL["ssthresh"][1][1]) <= 1.0, (s[after][0], DETAIL["ssthresh"][1][1])
    # the window: ssthresh plus slow start's segment, capped at the whole segments in flight
    assert c[window][0] == np.floor(s[after][0] + 1), (c[window][0], s[after][0])
    goodput = float(r.flows.goodput_bps.iloc[0])
    assert abs(goodput / 1e6 - NS3["goodput_mbps"]) <= 0.005 * NS3["goodput_mbps"], (goodput, NS3["goodput_mbps"])


def test_rfc_rules_grow_past_it_in_the_same_stack() -> None:
    # RFC 6817's cap (the flight plus ALLOWED_INCREASE) lets the window grow by a segment per
    # RTT below the target until the buffer overflows
    t, c, _ = _run(rules="rfc6817")
    window = t >= cwnd_ns3.WARMUP
    assert c[window].max() > NS3["max_cwnd_window"] + 100
