"""Fingerprints of the engine's result tables over a fixed set of runs: every registered
congestion control and queue discipline on a small dumbbell, seed 000's Access Link (9 CUBIC
flows, 30 s) and a two-way run. A refactor that must not change behaviour writes them before
and after and compares (every column of every table byte for byte; only the wall time is left
out). A change that adds columns or tables compares those both have, and lists the new ones.

    python validation/snapshot.py write before.json
    python validation/snapshot.py write after.json
    python validation/snapshot.py compare before.json after.json
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]


def cases() -> dict[str, dict[str, Any]]:
    from crosslayer.catalog import catalog

    base: dict[str, Any] = {
        "name": "snap",
        "duration": "6s",
        "warmup": "1s",
        "sample_interval": "100ms",
        "cwnd_trace": True,
        "topology": {
            "bottleneck": {"rate": "20Mbps", "delay": "5ms", "qdisc": {"kind": "droptail", "limit_pkts": 60}},
            "senders": [{"name": "S1", "rate": "100Mbps", "delay": "1ms"}, {"name": "S2", "rate": "100Mbps", "delay": "15ms"}],
            "receivers": [{"name": "R1", "rate": "100Mbps", "delay": "2ms"}],
        },
        "flows": [{"src": ["S1", "S2"], "dst": "R1", "per_pair": 2, "cc": "cubic", "start": {"uniform": ["0s", "0.5s"]}}],
        "udp": [{"src": "S1", "dst": "R1", "rate": "2Mbps", "ecn": True}],
    }
    out: dict[str, dict[str, Any]] = {}
    cat = catalog()
    for name in cat.cc:
        sc = json.loads(json.dumps(base))
        sc["flows"][0]["cc"] = name
        sc["tcp"] = {"ecn": True}
        sc["topology"]["bottleneck"]["qdisc"] = {"kind": "codel", "ecn": True}
        out[f"cc:{name}"] = sc
    for name in cat.aqm:
        sc = json.loads(json.dumps(base))
        sc["topology"]["bottleneck"]["qdisc"] = name
        sc["series_queue"] = "bottleneck"
        out[f"aqm:{name}"] = sc
    import tomllib

    access = tomllib.loads((ROOT / "studies" / "seed000-access-link.toml").read_text())
    access.update(duration="30s", warmup="10s")
    out["seed000-access-link"] = access
    two_way = json.loads(json.dumps(base))
    two_way["flows"].append({"src": "R1", "dst": "S2", "per_pair": 2, "cc": "reno", "start": "1s"})
    out["two-way"] = two_way
    return out


def _digest(value: Any) -> str:
    h = hashlib.sha256()

    def feed(v: Any) -> None:
        if isinstance(v, np.ndarray):
            h.update(str(v.dtype).encode())
            h.update(np.ascontiguousarray(v).tobytes())
        elif isinstance(v, dict):
            for k in sorted(v):
                h.update(k.encode())
                feed(v[k])
        elif isinstance(v, (list, tuple)):
            for x in v:
                feed(x)
        else:
            h.update(repr(v).encode())

    feed(value)
    return h.hexdigest()[:24]


def fingerprints() -> dict[str, dict[str, str]]:
    from crosslayer import _core
    from crosslayer.scenario import Scenario

    out: dict[str, dict[str, str]] = {}
    for name, sc in cases().items():
        raw = _core.run_json(json.dumps(Scenario.from_dict(sc).to_engine_spec()))
        summary = {k: v for k, v in raw["summary"].items() if k not in ("wall_s", "engine_version")}
        out[name] = {"summary": _digest(summary)}
        for t, table in raw.items():
            if t != "summary":
                out[name].update({f"{t}.{c}": _digest(v) for c, v in table.items()})
    return out


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        Path(argv[1]).write_text(json.dumps(fingerprints(), indent=1, sort_keys=True))
        print(f"wrote {argv[1]}")
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        a, b = (json.loads(Path(p).read_text()) for p in argv[1:])
        diffs = [(case, t) for case in sorted(set(a) | set(b)) for t in sorted(set(a.get(case, {}))) if a.get(case, {}).get(t) != b.get(case, {}).get(t)]
        for case, t in diffs:
            print(f"differs: {case} {t}" if t in b.get(case, {}) else f"missing: {case} {t}")
        new = sorted({t for case in b for t in b[case] if t not in a.get(case, {})})
        if new:
            print(f"new columns (not compared): {', '.join(new)}")
        print(f"{len(a)} runs, {sum(len(v) for v in a.values())} columns: {'identical' if not diffs else f'{len(diffs)} differ'}")
        return 1 if diffs else 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
