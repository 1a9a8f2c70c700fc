#!/usr/bin/env python3
"""The phase-effect reproduction of docs/phase-effects.md: goodput of host N2 (Mb/s) in
tests/repros/fidelity/lockout-min.toml, seeds 1-5, with every link at 100 Mb/s, with 200 Mb/s
sender uplinks, with one packet time of jitter on the sender links, and with random tie-breaks.

    python validation/phase_effects.py
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import crosslayer
from crosslayer import Scenario

LOCKOUT = Path(__file__).resolve().parents[1] / "tests" / "repros" / "fidelity" / "lockout-min.toml"


def n2_goodput(seed: int, top: dict[str, Any] | None = None, senders: dict[str, Any] | None = None) -> float:
    data = Scenario.from_toml(LOCKOUT).model_dump(mode="json", exclude_none=True)
    data["seed"] = seed
    data.update(top or {})
    for h in data["topology"]["senders"]:
        h.update(senders or {})
    r = crosslayer.run(data)
    return float(r.hosts.set_index("host").loc["N2", "goodput_bps"]) / 1e6


VARIANTS: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("every link 100 Mb/s", {}, {}),
    ("sender uplinks 200 Mb/s", {}, {"up": {"rate": "200Mbps"}}),
    ('`jitter = "120us"` on the sender links (one packet time)', {}, {"jitter": "120us"}),
    ('`tie_break = "random"`', {"tie_break": "random"}, {}),
]

if __name__ == "__main__":
    print("| variant | seed 1 | 2 | 3 | 4 | 5 |")
    print("|---|---|---|---|---|---|")
    for name, top, senders in VARIANTS:
        cells = " | ".join(f"{n2_goodput(s, top, senders):.1f}" for s in range(1, 6))
        print(f"| {name} | {cells} |")
