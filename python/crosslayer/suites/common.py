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


def alternating(t_s: float, period_s: float, even: str, odd: str) -> str:
    """The phase of a link that alternates every ``period_s`` a sample ending at ``t_s`` belongs
    to: ``even`` in periods 0, 2, 4, ..., ``odd`` in 1, 3, ... (a sample ending on a boundary
    counts with the period it ends)."""
    return odd if int((t_s - 1e-9) // period_s) % 2 else even


def bottleneck_mbps(store: Store) -> dict[str, float]:
    """Each run's bottleneck rate (Mb/s), from its scenario."""
    runs = store.runs()
    return {k: rate_mbps(json.loads(sj)["topology"]["bottleneck"]["rate"]) for k, sj in zip(runs.key, runs.scenario_json, strict=True)}


def write_report(out: Path, title: str, intro: str, heading: str, expectations: list[Expectation], sections: list[str], runs: int) -> Path:
    """``out/report.md`` (the title, ``runs`` and ``intro``, the expectations' table under
    ``heading``, then ``sections``) and ``out/expectations.json``; returns the report's path."""
    from dataclasses import asdict

    table = ["| test | source | expectation | rule | measured | verdict |", "|---|---|---|---|---|---|"]
    table += [f"| {e.test} | {e.source} | {e.statement} | {e.rule} | {e.measured} | **{e.verdict}** |" for e in expectations]
    head = f"# {title}\n\n{runs} runs from the stores in this folder. {intro}\n\n## {heading}\n\n" + "\n".join(table) + "\n"
    (out / "report.md").write_text(head + "\n" + "\n".join(sections))
    (out / "expectations.json").write_text(json.dumps([asdict(e) for e in expectations], indent=1) + "\n")
    return out / "report.md"


def section(out: Path, name: str, heading: str, intro: str, table: pd.DataFrame, figures: tuple[str, ...] = (), after: str = "") -> str:
    """One section of a report: its heading, intro, figures and table (columns whose name starts
    with ``_`` are the report's own, left out), the table also written to ``tables/<name>.csv``."""
    shown = table[[c for c in table.columns if not str(c).startswith("_")]]
    shown.to_csv(out / "tables" / f"{name}.csv", index=False)
    images = "".join(f"![{name}]({f})\n\n" for f in figures if f)
    return f"## {heading}\n\n{intro}\n\n{images}{markdown(shown)}{after}\n"


def markdown(frame: pd.DataFrame) -> str:
    return frame.to_markdown(index=False)


def save_figure(fig: Any, out: Path, name: str) -> str:
    import matplotlib.pyplot as plt

    path = out / "figures" / f"{name}.png"
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return f"figures/{name}.png"
