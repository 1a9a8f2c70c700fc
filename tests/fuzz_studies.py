"""Fuzzing the front door: mutated study files, each of which must end in a ScenarioError or a run.

A case is a valid study mutated a few times, either as data (a TOML-shaped dict: leaves set to
odd values, keys removed or added, lists grown or emptied) or as text (bytes inserted, deleted or
duplicated in the TOML). ``run_case`` validates it and, if valid, runs it with
``limits.max_events`` lowered to bound the time of a case. The allowed outcomes:

* ``rejected``: a ScenarioError (not one saying the engine refused what validation accepted);
* ``ran``: the run completed; the engine checked queue identities and per-flow conservation;
* ``event-capped``: the run reached the lowered ``max_events`` (EngineError naming it).

Anything else (another exception, an engine failure, a case slower than ``MAX_CASE_S``) is a bug.
The pytest (``tests/test_fuzz.py``) drives ``generate`` from hypothesis; ``make fuzz`` runs many
more cases from a seed and prints the counts::

    python tests/fuzz_studies.py --cases 20000 --seed 1
"""

from __future__ import annotations

import argparse
import collections
import copy
import math
import random
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))

import crosslayer  # noqa: E402
from crosslayer import EngineError, Scenario, ScenarioError  # noqa: E402

MAX_EVENTS = 2_000_000
"""Events a fuzzed run may take (about 0.3 s)."""
MAX_CASE_S = 60.0
"""A case slower than this is a hang."""

BASE_TEXT = """\
name = "fuzz"
duration = "1s"
warmup = "0.2s"
seed = 3
sample_interval = "10ms"
cwnd_trace = true

[topology]
bottleneck = { rate = "10Mbps", delay = "5ms", qdisc = { kind = "droptail", limit_pkts = 50 } }
default_qdisc = { kind = "droptail", limit_pkts = 100 }
senders = [{ name = "N1", rate = "100Mbps", delay = "1ms" }, { name = "N2", rate = "50Mbps", delay = "3ms" }]
receivers = [{ name = "N4", rate = "100Mbps", delay = "1ms" }]

[tcp]
mss = "1448B"
sack = true

[[flows]]
src = ["N1", "N2"]
dst = "N4"
per_pair = 2
cc = "cubic"
start = { uniform = ["0s", "0.1s"] }

[[flows]]
src = "N2"
dst = "N4"
cc = { kind = "reno" }
tcp = { sack = false }
"""

BASE_TEXT_AQM = BASE_TEXT.replace(
    'qdisc = { kind = "droptail", limit_pkts = 50 }', 'qdisc = { kind = "codel", target = "2ms", ecn = true }'
).replace("sack = true", "sack = true\necn = true").replace('duration = "1s"', 'duration = "2s"')
"""A second starting point: CoDel marking ECN-capable flows."""

ODD_STRINGS = [
    "0s", "1ms", "5ms", "100ms", "2s", "1e999999s", "-1s", "0.5ns", "1.5", "10Mbps", "1Gbps", "0bps",
    "1e20bps", "1500B", "64KiB", "0B", "\u0661\u0660\u0660ms", "", " ", "cubic", "reno", "newreno", "codel",
    "droptail", "fifo", "bbr", "inf", "nan", "1e-9999999s", "18446744073.709551615s", "1.0000000000000000000000000001s",
    "N1", "N4", "A", "x" * 120, "kind", "uniform", "\t", "true",
]  # fmt: skip
ODD_NUMBERS = [0, 1, -1, 2, 3, 7, 50, 1000, 2**31, 2**32, 2**63, 2**64, 2**64 + 1, 10**20, 0.0, 0.5, 0.9999999999999999, 1.0, -0.5, 1e300, math.inf, math.nan]
KEYS = ["kind", "rate", "delay", "loss", "qdisc", "limit_pkts", "limit_bytes", "target", "interval", "ecn", "mss", "per_pair", "cc", "start", "stop", "tcp", "flows", "seed", "duration", "warmup", "sample_interval", "limits", "max_events", "max_trace_rows", "beta", "c", "up", "down", "reverse", "bogus", "rat", "dleay"]


PLAUSIBLE = [
    "0s", "1ms", "20ms", "0.5s", "3s", "1Mbps", "1Gbps", "20Mbps", "9000B", "1KiB", 1, 2, 4, 10, 100, 0.001, 0.01,
    0.3, True, False, "codel", "droptail", "reno", "cubic", {"kind": "codel", "target": "2ms", "interval": "40ms"},
    {"kind": "codel", "ecn": True}, {"kind": "droptail", "limit_bytes": "30KiB"}, {"kind": "cubic", "beta": 0.5},
    {"uniform": ["0s", "0.5s"]}, {"ecn": True}, {"delayed_ack": False, "initial_cwnd": 1}, ["N1"], ["N1", "N2"],
]  # fmt: skip


def odd_value(rng: random.Random, depth: int = 0) -> Any:
    """A value of any TOML type, often near a boundary or of the wrong kind, sometimes plausible."""
    if depth == 0 and rng.random() < 0.4:
        return copy.deepcopy(rng.choice(PLAUSIBLE))
    pick = rng.random()
    if pick < 0.35:
        return rng.choice(ODD_STRINGS)
    if pick < 0.65:
        return rng.choice(ODD_NUMBERS)
    if pick < 0.72:
        return rng.random() < 0.5
    if pick < 0.80:
        return rng.randint(-(2**70), 2**70)
    if pick < 0.86 and depth < 3:
        return [odd_value(rng, depth + 1) for _ in range(rng.randint(0, 3))]
    if pick < 0.93 and depth < 3:
        return {rng.choice(KEYS): odd_value(rng, depth + 1) for _ in range(rng.randint(0, 3))}
    return "".join(chr(rng.randint(32, 0x2FFF)) for _ in range(rng.randint(0, 8)))


def similar(rng: random.Random, value: Any) -> Any:
    """A value of the same kind as ``value``, usually valid: another duration for a duration,
    a neighbouring integer, another algorithm name."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return max(0, value + rng.choice((-1, 1, value, -value // 2, rng.randint(0, 10))))
    if isinstance(value, float):
        return rng.choice((0.0, rng.random(), value / 2, min(0.99, value * 2)))
    if isinstance(value, str):
        for units, pool in (
            (("bps",), ["1Mbps", "10Mbps", "100Mbps", "1Gbps", "500kbps"]),
            (("B",), ["64B", "100B", "1448B", "9000B", "1KiB", "30KiB"]),
            (("s",), ["0s", "100us", "1ms", "5ms", "20ms", "0.1s", "0.5s", "0.9s"]),
        ):
            if value.endswith(units):
                return rng.choice(pool)
        return rng.choice(["N1", "N2", "N4", "reno", "newreno", "cubic", "codel", "droptail", "fifo", "fuzz"])
    if isinstance(value, list):
        return [similar(rng, v) for v in value]
    if isinstance(value, dict):
        return {k: similar(rng, v) if rng.random() < 0.5 else v for k, v in value.items()}
    return value


def _containers(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every dict and list in the tree, with its path."""
    out = [(path, node)]
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in items:
        if isinstance(child, (dict, list)):
            out += _containers(child, (*path, key))
    return out


def mutate_data(rng: random.Random, data: dict[str, Any]) -> None:
    """One structural mutation, in place."""
    _, node = rng.choice(_containers(data))
    op = rng.random()
    if isinstance(node, dict):
        keys = list(node)
        if op < 0.35 and keys:
            key = rng.choice(keys)
            node[key] = similar(rng, node[key])
        elif op < 0.55 and keys:
            node[rng.choice(keys)] = odd_value(rng)
        elif op < 0.75 and keys:
            del node[rng.choice(keys)]
        else:
            node[rng.choice(KEYS)] = odd_value(rng)
    elif isinstance(node, list):
        if op < 0.4 and node:
            node[rng.randrange(len(node))] = odd_value(rng)
        elif op < 0.6 and node:
            node.pop(rng.randrange(len(node)))
        elif node:
            node.extend(copy.deepcopy(node[: rng.randint(1, 3)]))


def mutate_text(rng: random.Random, text: bytes) -> bytes:
    """One byte-level mutation."""
    pos = rng.randrange(len(text) + 1)
    op = rng.random()
    if op < 0.3:
        return text[:pos] + bytes(rng.randrange(256) for _ in range(rng.randint(1, 4))) + text[pos:]
    if op < 0.6:
        return text[:pos] + text[pos + rng.randint(1, 20) :]
    if op < 0.8:
        chunk = text[pos : pos + rng.randint(1, 40)]
        return text[:pos] + chunk + text[pos:]
    lines = text.split(b"\n")
    i = rng.randrange(len(lines))
    lines.insert(i, lines[rng.randrange(len(lines))])
    return b"\n".join(lines)


@dataclass
class Case:
    kind: str
    """``data`` or ``text``."""
    payload: Any


def generate(rng: random.Random) -> Case:
    import tomllib

    base = rng.choice((BASE_TEXT, BASE_TEXT_AQM))
    if rng.random() < 0.7:
        data = tomllib.loads(base)
        for _ in range(rng.choice((1, 1, 1, 2, 2, 3, 4))):
            mutate_data(rng, data)
        return Case("data", data)
    text = base.encode()
    for _ in range(rng.randint(1, 3)):
        text = mutate_text(rng, text)
    return Case("text", text)


def run_case(case: Case) -> tuple[str, float]:
    """Validate and run one case; returns (outcome, seconds). Raises AssertionError on a bug."""
    start = time.perf_counter()
    try:
        if case.kind == "data":
            scenario = Scenario.from_dict(case.payload)
        else:
            with tempfile.NamedTemporaryFile(suffix=".toml") as f:
                f.write(case.payload)
                f.flush()
                scenario = Scenario.from_toml(Path(f.name))
    except ScenarioError as exc:
        assert "engine refused" not in str(exc), f"validation accepted what the engine refuses: {exc}"
        assert exc.problems and all(isinstance(p, str) and isinstance(m, str) and m for p, m in exc.problems)
        str(exc).encode("utf-8")
        return "rejected", time.perf_counter() - start
    capped = scenario.model_copy(update={"limits": scenario.limits.model_copy(update={"max_events": min(MAX_EVENTS, scenario.limits.max_events)})})
    try:
        result = crosslayer.run(capped)
    except EngineError as exc:
        assert "limits.max_events" in str(exc), f"engine failure: {exc}"
        outcome = "event-capped"
    else:
        assert len(result.flows) == scenario.flow_count()
        outcome = "ran"
    elapsed = time.perf_counter() - start
    assert elapsed < MAX_CASE_S, f"case took {elapsed:.1f} s"
    return outcome, elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts: collections.Counter[str] = collections.Counter()
    slowest: tuple[float, int, str] = (0.0, -1, "")
    started = time.perf_counter()
    for i in range(args.cases):
        case = generate(rng)
        try:
            outcome, seconds = run_case(case)
        except AssertionError as exc:
            counts["BUG"] += 1
            print(f"case {i}: BUG: {exc}\n{case.payload!r}"[:3000], file=sys.stderr)
            continue
        counts[f"{case.kind}:{outcome}"] += 1
        if seconds > slowest[0]:
            slowest = (seconds, i, outcome)
        if (i + 1) % 1000 == 0:
            print(f"{i + 1} cases, {time.perf_counter() - started:.0f} s: {dict(counts)}", file=sys.stderr)
    total = time.perf_counter() - started
    print(f"cases: {args.cases} (seed {args.seed}), wall {total:.0f} s")
    for key in sorted(counts):
        print(f"  {key:<20} {counts[key]:>7}  ({100 * counts[key] / args.cases:.1f} %)")
    print(f"slowest case: #{slowest[1]} ({slowest[2]}), {slowest[0]:.2f} s")


if __name__ == "__main__":
    main()
