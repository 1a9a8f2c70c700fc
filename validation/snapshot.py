"""Fingerprints of the engine's result tables over a fixed set of runs: every registered
congestion control and queue discipline on a small dumbbell, seed 000's Access Link (9 CUBIC
flows, 30 s) and a two-way run. A refactor that must not change behaviour writes them before
and after and compares (every column of every table byte for byte; only the wall time is left
out). A change that adds columns or tables compares those both have, and lists the new ones.

    python validation/snapshot.py write before.json
    python validation/snapshot.py write after.json
    python validation/snapshot.py compare before.json after.json

``studies`` writes the fingerprints of every point of every study in studies/ instead (durations
cut to 6 s with a 2 s warm-up; a point that cannot be cut, e.g. a flow starting at 50 s, runs
whole, the first 3 of its study): about 800 runs, 10 minutes on one core.

    python validation/snapshot.py studies before.json

``study-ends`` does the same for the first and last point of each study, cut to 3 s with a 1 s
warm-up (35 runs, under a minute): tests/data/study-ends-4a9a152.json holds them as computed
before graph topologies, and tests/test_unchanged.py checks the engine still gives them.
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
        elif isinstance(v, dict) and v.get("strings"):
            # a string column crosses as codes and labels: digested as the strings it holds
            labels = v["labels"]
            feed([labels[c] for c in v["codes"]])
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


def study_fingerprints(ends: bool = False, cut: str = "6s", warmup: str = "2s") -> dict[str, dict[str, str]]:
    """Fingerprints of every point of every study in studies/ (only its first and last with
    ``ends``), its duration cut to ``cut`` with a warm-up of ``warmup``."""
    from crosslayer import _core
    from crosslayer.scenario import Scenario, ScenarioError
    from crosslayer.study import Study

    from crosslayer.units import parse_duration_ns

    cut_ns = parse_duration_ns(cut)
    out: dict[str, dict[str, str]] = {}
    for path in sorted((ROOT / "studies").glob("*.toml")):
        text = path.read_text()
        try:
            scenarios = [p.scenario for p in Study.from_toml(path).points()] if "[study" in text else [Scenario.from_toml(path)]
        except (ScenarioError, ValueError) as e:  # a study this version cannot read (an older engine)
            print(f"{path.name}: skipped ({str(e).splitlines()[0]})", file=sys.stderr, flush=True)
            continue
        chosen = sorted({0, len(scenarios) - 1}) if ends else range(len(scenarios))
        whole = 0
        for i in chosen:
            sc = scenarios[i]
            try:
                short = sc.with_overrides(duration=cut, warmup=warmup) if sc.duration > cut_ns else sc
            except (ScenarioError, ValueError):
                whole += 1
                if whole > 3:
                    continue
                short = sc
            raw = _core.run_json(json.dumps(short.to_engine_spec()))
            summary = {k: v for k, v in raw["summary"].items() if k not in ("wall_s", "engine_version")}
            out[f"{path.name}#{i}"] = {"summary": _digest(summary)}
            for t, table in raw.items():
                if t != "summary" and isinstance(table, dict):
                    out[f"{path.name}#{i}"].update({f"{t}.{c}": _digest(v) for c, v in table.items()})
        print(f"{path.name}: {len(chosen)} of {len(scenarios)} points", file=sys.stderr, flush=True)
    return out


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "studies":
        Path(argv[1]).write_text(json.dumps(study_fingerprints(), indent=1, sort_keys=True))
        print(f"wrote {argv[1]}")
        return 0
    if len(argv) == 2 and argv[0] == "study-ends":
        Path(argv[1]).write_text(json.dumps(study_fingerprints(ends=True, cut="3s", warmup="1s"), indent=1, sort_keys=True))
        print(f"wrote {argv[1]}")
        return 0
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
