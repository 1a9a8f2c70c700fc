"""Test helpers: study paths, a minimal scenario and a fake engine result.

The fake result stands in for the compiled ``crosslayer._core`` so that the CLI and result code
can be tested without Rust; it has the documented columns (docs/design.md) and made-up but
self-consistent numbers. The real engine is exercised in test_engine.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from crosslayer.catalog import catalog

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


def _fill(table: str, rows: int, values: dict[str, list[Any]]) -> dict[str, list[Any]]:
    """Every column the engine declares for ``table``: ``values`` where given, else zeros/blanks."""
    zero = {"f64": 0.0, "u64": 0, "str": "", "category": ""}
    out = {}
    for c in catalog().tables[table].columns:
        out[c.name] = values.get(c.name, [zero[c.dtype]] * rows)
        assert len(out[c.name]) == rows, c.name
    unknown = set(values) - set(out)
    return {**out, **{k: values[k] for k in unknown}}


def expand_grouped_flows(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` with its compact flows (``flow_groups`` + ``flow_runs``) appended to ``flows``
    as the engine expands them (ScenarioSpec::with_flow_groups)."""
    groups = spec.pop("flow_groups", [])
    for prefix, first, count, src, dst, reverse, group in spec.pop("flow_runs", []):
        names = [prefix] if first is None else [f"{prefix}{k}" for k in range(first, first + count)]
        for name in names:
            spec["flows"].append({"name": name, "src": src, "dst": dst, "reverse": reverse, **groups[group]})
    return spec


def fake_engine_result(spec: dict[str, Any]) -> dict[str, Any]:
    """A result dict in the documented shape (the engine's declared columns, from the catalog),
    derived deterministically from the spec."""
    topo = spec["topology"]
    flows = spec["flows"]
    n = len(flows)
    measured_s = (spec["duration"] - spec["warmup"]) / 1e9
    rate = topo["forward"]["rate"]
    goodput = [0.9 * rate / n * (1 + 0.1 * (i % 3 - 1)) for i in range(n)]
    flow_rows = _fill("flows", n, {
        "name": [f["name"] for f in flows],
        "src": [topo["receivers" if f.get("reverse") else "senders"][f["src"]]["name"] for f in flows],
        "dst": [topo["senders" if f.get("reverse") else "receivers"][f["dst"]]["name"] for f in flows],
        "direction": ["reverse" if f.get("reverse") else "forward" for f in flows],
        "cc": [f["cc"]["kind"] for f in flows],
        "start_s": [f["start"].get("at", f["start"].get("from", 0)) / 1e9 + 0.001 * i for i, f in enumerate(flows)],
        "stop_s": [spec["duration"] / 1e9] * n,
        "base_rtt_s": [0.05] * n,
        "goodput_bps": goodput,
        "throughput_bps": [g * 1500 / 1448 for g in goodput],
        "delivered_bytes": [int(g * measured_s / 8) for g in goodput],
        "wire_bytes": [int(g * measured_s / 8 * 1500 / 1448) for g in goodput],
        "segments_sent": [1000 + i for i in range(n)],
        "retransmits": [i for i in range(n)],
        "fast_recoveries": [1] * n,
        "rtt_mean_s": [0.05] * n,
        "rtt_min_s": [0.04] * n,
        "rtt_p99_s": [0.08] * n,
        "rtt_samples": [500] * n,
        "cwnd_final_bytes": [14480] * n,
    })  # fmt: skip
    links = [("A->B", "forward", topo["forward"]), ("B->A", "reverse", topo["reverse"])]
    for side, router in (("senders", "A"), ("receivers", "B")):
        for host in topo[side]:
            links.append((f"{host['name']}->{router}", f"{side[:-1]}_up", host["up"]))
            links.append((f"{router}->{host['name']}", f"{side[:-1]}_down", host["down"]))
    m = len(links)
    rest = [0.0] * (m - 1)
    queues = _fill("queues", m, {
        "link": [name for name, _, _ in links],
        "role": [role for _, role, _ in links],
        "qdisc": [edge["qdisc"]["kind"] for _, _, edge in links],
        "rate_bps": [edge["rate"] for _, _, edge in links],
        "delay_s": [edge["delay"] / 1e9 for _, _, edge in links],
        "qlen_mean_pkts": [50.0] + rest,
        "qlen_sd_pkts": [10.0] + rest,
        "qlen_mean_bytes": [75000.0] + rest,
        "qlen_sd_bytes": [15000.0] + rest,
        "sojourn_mean_s": [0.004] + [float("nan")] * (m - 1),
        "sojourn_p50_s": [0.004] + [float("nan")] * (m - 1),
        "sojourn_p99_s": [0.009] + [float("nan")] * (m - 1),
        "arrivals": [10000] + [0] * (m - 1),
        "enqueued": [9900] + [0] * (m - 1),
        "dequeued": [9850] + [0] * (m - 1),
        "drops_arrival": [100] + [0] * (m - 1),
        "drops": [100] + [0] * (m - 1),
        "drop_ratio": [0.01] + rest,
        "tx_pkts": [9850] + [0] * (m - 1),
        "tx_bytes": [9850 * 1500] + [0] * (m - 1),
        "utilization": [0.95] + rest,
    })  # fmt: skip
    senders = [h["name"] for h in topo["senders"]]
    hosts = _fill("hosts", len(senders), {
        "host": senders,
        "direction": ["forward"] * len(senders),
        "flows": [sum(1 for f in flows if not f.get("reverse") and topo["senders"][f["src"]]["name"] == h) for h in senders],
        "goodput_share": [1 / len(senders)] * len(senders),
        "bottleneck_drop_share": [0.01] * len(senders),
    })  # fmt: skip
    reasons = [
        (name, role, edge["qdisc"]["kind"], r["name"])
        for name, role, edge in links
        for r in catalog().aqm[edge["qdisc"]["kind"]].extras["reasons"]
    ]
    drops = _fill("drops", len(reasons), {
        "link": [r[0] for r in reasons], "role": [r[1] for r in reasons],
        "qdisc": [r[2] for r in reasons], "reason": [r[3] for r in reasons],
        "drops": [100 if r[0] == "A->B" and r[3] == "overflow" else 0 for r in reasons],
    })  # fmt: skip
    samples = int(spec["duration"] // spec["sample_interval"])
    step = spec["sample_interval"] / 1e9
    bottleneck_state = [f["name"] for f in catalog().aqm[topo["forward"]["qdisc"]["kind"]].extras["state"]]
    series = _fill("series", samples, {
        "t_s": [i * step for i in range(samples)],
        "qlen_pkts": [i % 100 for i in range(samples)],
        "qlen_bytes": [(i % 100) * 1500 for i in range(samples)],
        **{name: [0.0] * samples for name in bottleneck_state},
    })  # fmt: skip
    rows = samples * n if spec["cwnd_trace"] else 0
    cwnd = _fill("cwnd", rows, {
        "t_s": [i * step for i in range(samples) for _ in flows][:rows],
        "flow": [f["name"] for _ in range(samples) for f in flows][:rows],
        "cwnd_bytes": [14480] * rows,
        "ssthresh_bytes": [float("nan")] * rows,
        "acked_bytes": [1448 * i for i in range(rows)],
    })  # fmt: skip
    return {
        "summary": {
            "wall_s": 0.25,
            "events": 123456,
            "sim_s": spec["duration"] / 1e9,
            "measured_s": measured_s,
            "delivered_segments": 45678,
            "seed": spec["seed"],
        },
        "flows": flow_rows,
        "udp": _fill("udp", len(spec.get("udp", [])), {"name": [u["name"] for u in spec.get("udp", [])]}),
        "queues": queues,
        "hosts": hosts,
        "hops": _fill("hops", 0, {}),
        "drops": drops,
        "qdisc_stats": _fill("qdisc_stats", 0, {}),
        "series": series,
        "cwnd": cwnd,
        "goodput": _fill("goodput", 2, {"t_s": [1.0, 2.0], "flow": [spec["flows"][0]["name"]] * 2, "bytes": [1448, 2896], "goodput_bps": [11584.0, 23168.0]}) if spec["flows"] else _fill("goodput", 0, {}),
        "milestones": _fill("milestones", 0, {}),
        "wlan": _fill("wlan", 0, {}),
    }
