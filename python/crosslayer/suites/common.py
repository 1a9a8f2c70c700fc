"""What the suites' reports share: an expectation with its verdict, a cell with its interval,
units read from a run's scenario, figures and Markdown tables."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from crosslayer.analysis import interval95

if TYPE_CHECKING:
    import pandas as pd

    from crosslayer.store import Store


@dataclass(frozen=True)
class Expectation:
    test: str
    source: str
    statement: str
    rule: str
    measured: str
    verdict: str
    """"holds", "does not hold" or "not run"."""


def cell(values: Any, digits: int = 2) -> str:
    i = interval95(values)
    if i.n == 0:
        return "-"
    return f"{i.mean:.{digits}f}" if i.n == 1 else f"{i.mean:.{digits}f} ± {i.half:.{digits}f}"


def rate_mbps(label: Any) -> float:
    text = str(label)
    for suffix, scale in (("Gbps", 1e3), ("Mbps", 1.0), ("kbps", 1e-3)):
        if text.endswith(suffix):
            return float(text.removesuffix(suffix)) * scale
    return float("nan")


def seconds(text: Any) -> float:
    """A duration as the scenario writes it ("15s", "500ms", "2500us") in seconds."""
    from crosslayer.units import parse_duration_ns

    return parse_duration_ns(text) / 1e9


def bottleneck_mbps(store: Store) -> dict[str, float]:
    """Each run's bottleneck rate (Mb/s), from its scenario."""
    runs = store.runs()
    return {k: rate_mbps(json.loads(sj)["topology"]["bottleneck"]["rate"]) for k, sj in zip(runs.key, runs.scenario_json, strict=True)}


def markdown(frame: pd.DataFrame) -> str:
    return frame.to_markdown(index=False)


def save_figure(fig: Any, out: Path, name: str) -> str:
    import matplotlib.pyplot as plt

    path = out / "figures" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return f"figures/{name}.png"
