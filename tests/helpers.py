"""Test helpers: study paths, a minimal scenario and a fake engine result.

The fake result stands in for the compiled ``crosslayer._core`` so that the CLI and result code
can be tested without Rust; it has the documented columns (docs/design.md) and made-up but
self-consistent numbers. The real engine is exercised in test_engine.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
STUDIES = ROOT / "studies"
ACCESS_LINK = STUDIES / "seed000-access-link.toml"
DATA_CENTER = STUDIES / "seed000-data-center.toml"

MINIMAL: dict[str, Any] = {
    "name": "minimal",
    "duration": "10s",
    "warmup": "2s",
    "topology": {
        "bottleneck": {"rate": "10Mbps", "delay": "5ms", "qdisc": {"kind": "droptail", "limit_pkts": 100}},
        "senders": [
            {"name": "S1", "rate": "100Mbps", "delay": "1ms"},
            {"name": "S2", "rate": "100Mbps", "delay": "2ms"},
        ],
        "receivers": [{"name": "R1", "rate": "100Mbps", "delay": "3ms"}],
    },
    "flows": [{"src": "S1", "dst": "R1", "cc": "cubic"}],
}


def fake_engine_result(spec: dict[str, Any]) -> dict[str, Any]:
    """A result dict in the documented shape, derived deterministically from the spec."""
    topo = spec["topology"]
    flows = spec["flows"]
    n = len(flows)
    measured_s = (spec["duration_ns"] - spec["warmup_ns"]) / 1e9
    rate = topo["forward"]["rate_bps"]
    goodput = [0.9 * rate / n * (1 + 0.1 * (i % 3 - 1)) for i in range(n)]
    flow_rows = {
        "name": [f["name"] for f in flows],
        "src": [topo["senders"][f["src"]]["name"] for f in flows],
        "dst": [topo["receivers"][f["dst"]]["name"] for f in flows],
        "cc": [f["cc"]["kind"] for f in flows],
        "start_s": [
            f["start"].get("at_ns", f["start"].get("from_ns", 0)) / 1e9 + 0.001 * i for i, f in enumerate(flows)
        ],
        "stop_s": [spec["duration_ns"] / 1e9] * n,
        "goodput_bps": goodput,
        "throughput_bps": [g * 1500 / 1448 for g in goodput],
        "delivered_bytes": [int(g * measured_s / 8) for g in goodput],
        "wire_bytes": [int(g * measured_s / 8 * 1500 / 1448) for g in goodput],
        "segments_sent": [1000 + i for i in range(n)],
        "retransmits": [i for i in range(n)],
        "timeouts": [0] * n,
        "fast_recoveries": [1] * n,
        "rtt_mean_s": [0.05] * n,
        "rtt_min_s": [0.04] * n,
        "rtt_p99_s": [0.08] * n,
        "rtt_samples": [500] * n,
        "cwnd_final_bytes": [14480] * n,
    }
    links = [("A->B", "forward", topo["forward"]), ("B->A", "reverse", topo["reverse"])]
    for side, router in (("senders", "A"), ("receivers", "B")):
        for host in topo[side]:
            links.append((f"{host['name']}->{router}", f"{side[:-1]}_up", host["up"]))
            links.append((f"{router}->{host['name']}", f"{side[:-1]}_down", host["down"]))
    m = len(links)
    queues = {
        "link": [name for name, _, _ in links],
        "role": [role for _, role, _ in links],
        "rate_bps": [edge["rate_bps"] for _, _, edge in links],
        "qlen_mean_pkts": [50.0] + [0.0] * (m - 1),
        "qlen_sd_pkts": [10.0] + [0.0] * (m - 1),
        "qlen_mean_bytes": [75000.0] + [0.0] * (m - 1),
        "qlen_sd_bytes": [15000.0] + [0.0] * (m - 1),
        "sojourn_mean_s": [0.004] + [float("nan")] * (m - 1),
        "sojourn_p50_s": [0.004] + [float("nan")] * (m - 1),
        "sojourn_p99_s": [0.009] + [float("nan")] * (m - 1),
        "arrivals": [10000] + [0] * (m - 1),
        "enqueued": [9900] + [0] * (m - 1),
        "dequeued": [9850] + [0] * (m - 1),
        "drops_overflow": [100] + [0] * (m - 1),
        "drops_aqm": [0] * m,
        "drops_head": [0] * m,
        "marks": [0] * m,
        "lost_random": [0] * m,
        "tx_pkts": [9850] + [0] * (m - 1),
        "tx_bytes": [9850 * 1500] + [0] * (m - 1),
        "utilization": [0.95] + [0.0] * (m - 1),
    }
    samples = int(spec["duration_ns"] // spec["sample_interval_ns"])
    step = spec["sample_interval_ns"] / 1e9
    series = {
        "t_s": [i * step for i in range(samples)],
        "qlen_pkts": [i % 100 for i in range(samples)],
        "qlen_bytes": [(i % 100) * 1500 for i in range(samples)],
    }
    cwnd: dict[str, list[Any]] = {"t_s": [], "flow": [], "cwnd_bytes": [], "ssthresh_bytes": []}
    if spec["cwnd_trace"]:
        for i in range(samples):
            for f in flows:
                cwnd["t_s"].append(i * step)
                cwnd["flow"].append(f["name"])
                cwnd["cwnd_bytes"].append(14480)
                cwnd["ssthresh_bytes"].append(None)
    return {
        "summary": {
            "wall_s": 0.25,
            "events": 123456,
            "sim_s": spec["duration_ns"] / 1e9,
            "measured_s": measured_s,
            "delivered_segments": 45678,
            "seed": spec["seed"],
        },
        "flows": flow_rows,
        "queues": queues,
        "series": series,
        "cwnd": cwnd,
    }
