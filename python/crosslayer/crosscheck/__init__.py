"""`crosslayer crosscheck`: a user's own scenario run by crosslayer and by another simulator, side
by side, with an agreement table (docs/crosscheck.md).

For each seed, crosslayer runs the scenario with the other simulator's TCP profile
(``[tcp] profile = "ns3"`` or ``"ns2"``: its TCP defaults and framing, so that what differs comes
from the models), then the scenario is translated (:mod:`crosslayer.crosscheck.ns3`,
:mod:`crosslayer.crosscheck.ns2`) with crosslayer's drawn start times and run in ns-3 3.44 (that
seed its ``RngRun``) or ns-2.35 (that seed its RNG seed). Each metric gets both simulators' mean and seed range, their
difference and a verdict against a stated bar (:data:`BARS`).
"""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import tempfile
import threading
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from crosslayer.crosscheck import linux as linux_backend
from crosslayer.crosscheck import ns2 as ns2_backend
from crosslayer.crosscheck import ns3 as ns3_backend
from crosslayer.crosscheck.translate import Untranslatable, flow_specs

if TYPE_CHECKING:
    from crosslayer.result import Result
    from crosslayer.scenario import Scenario

__all__ = ["BARS", "SIMULATORS", "Bar", "Crosscheck", "Metric", "OtherSimulatorError", "Untranslatable", "crosscheck", "run_ns2", "run_ns3", "stop", "with_ns3_profile", "with_profile"]

SIMULATORS: Final[dict[str, str]] = {"ns3": "ns-3 3.44", "ns2": "ns-2.35", "linux": "Linux 6.1"}
"""The simulators crosscheck compares with (``--with``), by profile name."""


@dataclass(frozen=True)
class Bar:
    """When two values agree: ``|a - b| <= max(relative * |b|, floor)`` (``relative`` None: an
    absolute bar of ``floor``); a rank correlation agrees at ``>= floor``."""

    relative: float | None
    floor: float
    text: str


BARS: Final[dict[str, Bar]] = {
    "goodput_bps": Bar(0.03, 0.0, "3 %"),
    "cc_goodput_bps": Bar(0.10, 0.0, "10 %"),
    "jain": Bar(None, 0.05, "0.05"),
    "flow_rank_correlation": Bar(None, 0.8, "Spearman >= 0.8"),
    "qlen_mean_pkts": Bar(0.20, 1.0, "20 % (1 packet)"),
    "qlen_sd_pkts": Bar(0.20, 1.0, "20 % (1 packet)"),
    "drop_ratio": Bar(0.25, 1e-4, "25 % (0.01 points)"),
    "sojourn_p99_s": Bar(0.20, 0.5e-3, "20 % (0.5 ms)"),
    "retransmits": Bar(0.25, 3.0, "25 % (3)"),
    "timeouts": Bar(0.25, 3.0, "25 % (3)"),
    "completed": Bar(0.05, 1.0, "5 % (1 flow)"),
    "udp_throughput_bps": Bar(0.03, 0.0, "3 %"),
    "udp_loss_ratio": Bar(0.25, 1e-4, "25 % (0.01 points)"),
    "fct_mean_s": Bar(0.20, 1e-3, "20 % (1 ms)"),
}
"""The agreement bars, one per metric (the bars of the seed pages: goodput 3 %, queue 20 %,
drops 25 %; a floor keeps a bar meaningful near zero). With several congestion controls, each
one's flows' goodput is compared too (10 %: a share, noisier than the sum)."""

LABELS: Final[dict[str, tuple[str, float, int]]] = {
    "goodput_bps": ("aggregate goodput, Mb/s", 1e-6, 2),
    "cc_goodput_bps": ("goodput of the {link} flows, Mb/s", 1e-6, 2),
    "jain": ("Jain's index (goodput)", 1.0, 3),
    "flow_rank_correlation": ("per-flow goodput, rank correlation", 1.0, 3),
    "qlen_mean_pkts": ("queue mean at {link}, pkts", 1.0, 1),
    "qlen_sd_pkts": ("queue SD at {link}, pkts", 1.0, 1),
    "drop_ratio": ("drop ratio at {link}, %", 100.0, 3),
    "sojourn_p99_s": ("sojourn p99 at {link}, ms", 1e3, 2),
    "retransmits": ("retransmissions", 1.0, 0),
    "timeouts": ("retransmission timeouts", 1.0, 0),
    "completed": ("finite flows completed", 1.0, 0),
    "udp_throughput_bps": ("UDP throughput (wire), Mb/s", 1e-6, 2),
    "udp_loss_ratio": ("UDP loss ratio, %", 100.0, 3),
    "fct_mean_s": ("FCT mean, flows {link}, ms", 1e3, 1),
}


STALL_EXCESS: Final = 1.10
"""A seed whose goodput through a link exceeds the link's rate by more than this factor in the
measured window is left out: a backlog held behind a hole for seconds, not a rate."""

RANK_MIN_FLOWS: Final = 5
"""Below this many flows the rank correlation is not computed (a few flows of about equal
goodput rank by noise)."""


class OtherSimulatorError(RuntimeError):
    """The other simulator failed; the message is its own (the end of its error output)."""


def with_profile(scenario: Scenario, profile: str) -> Scenario:
    """``scenario`` with ``[tcp] profile = <profile>`` everywhere, the way crosscheck runs
    crosslayer. Under ``ns3`` the packet sizes are the profile's (ns-3's framing cannot be set);
    ns-2 sets its header and ACK sizes per agent, so a study's stay; under ``ns2`` a flow ns-2
    runs on its Linux agent recovers with PRR, and a Vegas flow on its Vegas agent slow-starts
    as the paper does, unless the study chose (:func:`crosslayer.crosscheck.ns2.align`)."""
    from crosslayer.scenario import Scenario

    data = scenario.model_dump(mode="json", exclude_none=True)

    def set_profile(tcp: dict[str, Any]) -> dict[str, Any]:
        if profile in ("ns3", "linux"):
            tcp = {k: v for k, v in tcp.items() if k not in ("header_size", "ack_size", "syn_size")}
        return {**tcp, "profile": profile}

    data["tcp"] = set_profile(data.get("tcp", {}))
    for key in ("flows", "arrivals"):
        for group in data.get(key) or []:
            if "tcp" in group:
                group["tcp"] = set_profile(group["tcp"])
    if profile == "ns2":
        chosen = {(key, i): frozenset(getattr(g.cc, "model_fields_set", ())) for key in ("flows", "arrivals") for i, g in enumerate(getattr(scenario, key) or [])}
        ns2_backend.align(data, chosen)
    return Scenario.from_dict(data, source=f"{scenario.name} ({profile} profile)")


def with_ns3_profile(scenario: Scenario) -> Scenario:
    """``scenario`` with ``[tcp] profile = "ns3"`` everywhere and ns-3's packet sizes."""
    return with_profile(scenario, "ns3")


QUEUE_METRICS: Final = ("qlen_mean_pkts", "qlen_sd_pkts", "drop_ratio", "sojourn_p99_s")
"""Measured at every bottleneck (as ``<metric>@<link>``)."""


def _fct_metrics(sizes: Sequence[int], fcts: Sequence[float | None]) -> dict[str, float | None]:
    """Finite flows: how many completed, and the mean completion time of those completed per
    size bin (``fct_mean_s@<bin>``, crosslayer's bins: ``crosslayer.fct.SIZE_BINS``)."""
    from crosslayer.fct import SIZE_BINS, _bin_label

    finite = [(size, fct) for size, fct in zip(sizes, fcts, strict=True) if size > 0]
    if not finite:
        return {}
    out: dict[str, float | None] = {"completed": float(sum(1 for _, fct in finite if fct is not None))}
    for lo, hi in zip(SIZE_BINS, SIZE_BINS[1:]):
        done = [fct for size, fct in finite if lo <= size < hi and fct is not None]
        if any(lo <= size < hi for size, _ in finite):
            out[f"fct_mean_s@{_bin_label(lo, hi)}"] = sum(done) / len(done) if done else None
    return out


@dataclass
class Side:
    """One simulator's measurements of one seed, in the shape the comparison reads."""

    flows: list[tuple[str, float]]
    """(flow name, goodput b/s)"""
    metrics: dict[str, float | None]
    """Aggregates by name; queue metrics as ``<metric>@<link>``."""
    series: tuple[list[float], list[float]]
    """The queue crosslayer samples (its ``series`` table), sampled: (t s, packets)."""
    wall_s: float
    events: int
    cwnd: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)
    """Per flow, sampled: (t s, cwnd in segments); crosslayer's with ``cwnd_trace``, the Linux
    reference's always."""


def _nan_none(v: Any) -> float | None:
    return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)


def _crosslayer_side(result: Result, mss: Sequence[int] = ()) -> Side:
    from crosslayer.result import jain_index

    f, q = result.flows, result.queues
    # in-order payload delivered to the application in the window: what ns-3's PacketSink and
    # ns-2's cumulative ACK count
    # (crosslayer's goodput_bps counts bytes when they first arrive, in order or not)
    goodput = [float(v) * 8 / float(result.summary["measured_s"]) for v in f.delivered_bytes]
    metrics: dict[str, float | None] = {
        "goodput_bps": sum(goodput),
        "jain": float(jain_index(goodput)) if any(goodput) else None,
        "retransmits": float(f.retransmits.sum()),
        "timeouts": float(f.timeouts.sum()),
    }
    metrics.update(_fct_metrics([int(v) for v in f.size_bytes], [None if math.isnan(float(v)) else float(v) for v in f.fct_s]))
    u = result.udp
    if len(u):
        window = float(result.summary["measured_s"])
        sent = sum(float(o) * window / 8 / float(b) for o, b in zip(u.offered_bps, u.packet_bytes, strict=True))
        metrics["udp_throughput_bps"] = float(u.throughput_bps.sum())
        metrics["udp_loss_ratio"] = float(u.dropped_pkts.sum()) / sent if sent else None
    by_link = q.set_index("link")
    for link in dict.fromkeys(str(b) for b in f.bottleneck):
        row = by_link.loc[link]
        for m in QUEUE_METRICS:
            metrics[f"{m}@{link}"] = _nan_none(float(row[m]))
    s = result.series
    return Side(
        flows=list(zip([str(n) for n in f.name], goodput, strict=True)),
        metrics=metrics,
        series=([float(t) for t in s.t_s], [float(v) for v in s.qlen_pkts]) if len(s) else ([], []),
        wall_s=float(result.summary["wall_s"]),
        events=int(result.summary["events"]),
        cwnd=_crosslayer_cwnd(result, mss),
    )


def _crosslayer_cwnd(result: Result, mss: Sequence[int]) -> dict[str, tuple[list[float], list[float]]]:
    """crosslayer's cwnd trace (with ``cwnd_trace``) per flow, in segments of its mss."""
    c = result.cwnd
    if not len(c) or not mss:
        return {}
    out = {}
    for name, size in zip((str(n) for n in result.flows.name), mss, strict=True):
        rows = c[c.flow == name]
        out[name] = ([float(t) for t in rows.t_s], [float(b) / size for b in rows.cwnd_bytes])
    return out


def _total(values: Sequence[float | None]) -> float | None:
    """A count summed over flows; unknown if any flow's is (ns-2's Linux agent counts no
    timeouts)."""
    return None if any(v is None for v in values) else float(sum(v for v in values if v is not None))


def _other_side(raw: dict[str, Any], sizes: Sequence[int]) -> Side:
    from crosslayer.result import jain_index

    goodput = [float(f["goodput_bps"]) for f in raw["flows"]]
    metrics: dict[str, float | None] = {
        "goodput_bps": sum(goodput),
        "jain": float(jain_index(goodput)) if any(goodput) else None,
        "retransmits": _total([f["retransmits"] for f in raw["flows"]]),
        "timeouts": _total([f["timeouts"] for f in raw["flows"]]),
    }
    metrics.update(_fct_metrics(sizes, [f.get("fct_s") for f in raw["flows"]]))
    if raw.get("udp"):
        window = float(raw["window_s"])
        sent = sum(u["sent_pkts"] for u in raw["udp"])
        metrics["udp_throughput_bps"] = sum(u["received_pkts"] * u["packet_bytes"] * 8 / window for u in raw["udp"])
        metrics["udp_loss_ratio"] = (sent - sum(u["received_pkts"] for u in raw["udp"])) / sent if sent else None
    for link, q in raw["queues"].items():
        for m in QUEUE_METRICS:
            metrics[f"{m}@{link}"] = _nan_none(q[m])
    series = raw.get("series") or {"t_s": [], "qlen_pkts": []}
    return Side(
        flows=[(f["name"], float(f["goodput_bps"])) for f in raw["flows"]],
        metrics=metrics,
        series=(series["t_s"], [float(v) for v in series["qlen_pkts"]]),
        wall_s=float(raw["run_wall_s"]),
        events=int(raw["events"]),
        cwnd={name: (c["t_s"], [float(v) for v in c["cwnd_pkts"]]) for name, c in (raw.get("cwnd") or {}).items()},
    )


@dataclass(frozen=True)
class Metric:
    """One row of the agreement table."""

    name: str
    label: str
    ours: tuple[float, float, float] | None
    """crosslayer's mean, min and max over the seeds (None: not measured)"""
    theirs: tuple[float, float, float] | None
    difference: float | None
    """crosslayer - other, relative to the other's mean where the bar is relative"""
    bar: str
    verdict: str
    """"agrees", "agrees within the seed spread", "differs" or "not measured"."""


def _stats(values: Sequence[float | None]) -> tuple[float, float, float] | None:
    v = [x for x in values if x is not None and not math.isnan(x)]
    if not v:
        return None
    return (sum(v) / len(v), min(v), max(v))


def _verdict(name: str, ours: tuple[float, float, float] | None, theirs: tuple[float, float, float] | None) -> tuple[float | None, str]:
    if ours is None or theirs is None:
        return None, "not measured"
    bar = BARS[name.split("@")[0]]
    diff = ours[0] - theirs[0]
    allowed = bar.floor if bar.relative is None else max(bar.relative * abs(theirs[0]), bar.floor)
    shown = diff / theirs[0] if bar.relative is not None and theirs[0] else diff
    if abs(diff) <= allowed:
        return shown, "agrees"
    if ours[1] <= theirs[2] and theirs[1] <= ours[2] and (ours[1], ours[2]) != (theirs[1], theirs[2]):
        return shown, "agrees within the seed spread"
    return shown, "differs"


def _rank_correlation(a: Sequence[float], b: Sequence[float]) -> float | None:
    import numpy as np
    import pandas as pd

    if len(a) < RANK_MIN_FLOWS:
        return None
    ra, rb = pd.Series(a).rank().to_numpy(), pd.Series(b).rank().to_numpy()
    if np.std(ra) == 0 or np.std(rb) == 0:
        return None
    # Pearson's formula over ranks leaves float noise: with 9 flows, ranks whose squared
    # differences sum to 24 give 0.7999999999999999 for Spearman's exact 1 - 6 x 24 / 720 = 0.8.
    return round(float(np.corrcoef(ra, rb)[0, 1]), 12)


@dataclass
class Crosscheck:
    """A crosscheck's runs and its agreement table."""

    scenario: str
    other: str
    seeds: list[int]
    ours: list[Side]
    theirs: list[Side]
    notes: tuple[str, ...]
    program: str
    """The other simulator's program (for the first seed)."""
    series_link: str | None = None
    """The link whose queue the figure shows (crosslayer's ``series`` table)."""
    metrics: list[Metric] = field(default_factory=list)
    left_out: tuple[str, ...] = ()
    """Seeds left out of the comparison, each with why (goodput through a link more than
    :data:`STALL_EXCESS` above its rate in the measured window, in either simulator); ``seeds``
    holds the ones compared."""
    warnings: tuple[str, ...] = ()
    """Goodput through a link above its rate in the window, but by less: kept, said."""
    cached: tuple[int, ...] = ()
    """Seeds whose run of the other simulator was read back from the cache (``cache``: the same
    program on the same installation), not run again; their wall time is the kept run's."""

    def __post_init__(self) -> None:
        if not self.metrics:
            self.metrics = self._table()

    def flow_goodput(self) -> list[tuple[str, float, float]]:
        """Per flow: name, crosslayer's and the other's goodput (b/s), means over the seeds."""
        names = [n for n, _ in self.ours[0].flows]
        mean = lambda sides, i: sum(s.flows[i][1] for s in sides) / len(sides)  # noqa: E731
        return [(n, mean(self.ours, i), mean(self.theirs, i)) for i, n in enumerate(names)]

    def _table(self) -> list[Metric]:
        links = [k.split("@", 1)[1] for k in self.ours[0].metrics if k.startswith(QUEUE_METRICS[0] + "@")]
        bins = [k.split("@", 1)[1] for k in self.ours[0].metrics if k.startswith("fct_mean_s@")]
        rows = []
        for base, (label, _, _) in LABELS.items():
            if base == "flow_rank_correlation":
                per = self.flow_goodput()
                rho = _rank_correlation([o for _, o, _ in per], [t for _, _, t in per])
                verdict = "not measured" if rho is None else ("agrees" if rho >= BARS[base].floor else "differs")
                rows.append(Metric(base, label, None if rho is None else (rho, rho, rho), None, None, BARS[base].text, verdict))
                continue
            if base in QUEUE_METRICS:
                names = [(f"{base}@{link}", label.format(link=link)) for link in links]
            elif base == "fct_mean_s":
                names = [(f"{base}@{b}", label.format(link=b)) for b in bins]
            elif base == "cc_goodput_bps":
                names = [(k, label.format(link=k.split("@", 1)[1])) for k in self.ours[0].metrics if k.startswith(base + "@")]
            elif base in ("completed", "udp_throughput_bps", "udp_loss_ratio") and base not in self.ours[0].metrics:
                names = []
            else:
                names = [(base, label)]
            for name, text in names:
                ours = _stats([s.metrics.get(name) for s in self.ours])
                theirs = _stats([s.metrics.get(name) for s in self.theirs])
                diff, verdict = _verdict(name, ours, theirs)
                rows.append(Metric(name, text, ours, theirs, diff, BARS[base].text, verdict))
        return rows

    @property
    def agrees(self) -> bool:
        return all(m.verdict != "differs" for m in self.metrics)

    def to_json(self) -> dict[str, Any]:
        return {
            "scenario": self.scenario,
            "with": self.other,
            "series_link": self.series_link,
            "seeds": self.seeds,
            "agrees": self.agrees,
            "metrics": [
                {
                    "metric": m.name, "label": m.label,
                    "crosslayer": None if m.ours is None else dict(zip(("mean", "min", "max"), m.ours, strict=True)),
                    self.other: None if m.theirs is None else dict(zip(("mean", "min", "max"), m.theirs, strict=True)),
                    "difference": m.difference, "bar": m.bar, "verdict": m.verdict,
                }
                for m in self.metrics
            ],
            "flows": [{"name": n, "crosslayer_goodput_bps": o, f"{self.other}_goodput_bps": t} for n, o, t in self.flow_goodput()],
            "wall_s": {"crosslayer": [s.wall_s for s in self.ours], self.other: [s.wall_s for s in self.theirs]},
            "events": {"crosslayer": [s.events for s in self.ours], self.other: [s.events for s in self.theirs]},
            "notes": list(self.notes),
            "left_out": list(self.left_out),
            "warnings": list(self.warnings),
            "cached": list(self.cached),
            **({"cwnd": {"seed": self.seeds[0], "crosslayer": _cwnd_json(self.ours[0].cwnd), self.other: _cwnd_json(self.theirs[0].cwnd)}} if self.ours[0].cwnd or self.theirs[0].cwnd else {}),
        }  # fmt: skip

    @staticmethod
    def _relative(m: Metric) -> bool:
        """The difference is shown relative (the relative bar governs, not its floor)."""
        bar = BARS[m.name.split("@")[0]]
        return bar.relative is not None and m.theirs is not None and bar.relative * abs(m.theirs[0]) >= bar.floor

    def cells(self, m: Metric) -> tuple[str, str, str]:
        """The table's text for a metric: crosslayer, the other, the difference."""
        _, scale, digits = LABELS[m.name.split("@")[0]]
        if digits == 0 and len(self.seeds) > 1:
            digits = 1  # a count's mean over seeds

        def show(s: tuple[float, float, float] | None) -> str:
            if s is None:
                return "-"
            text = f"{s[0] * scale:,.{digits}f}"
            return text if len(self.seeds) == 1 or s[1] == s[2] else f"{text} ({s[1] * scale:,.{digits}f}..{s[2] * scale:,.{digits}f})"

        if m.difference is None:
            diff = "-"
        elif self._relative(m):
            diff = f"{100 * m.difference:+.1f} %"
        else:  # an absolute bar, or the floor governs: the difference in the metric's unit
            assert m.ours is not None and m.theirs is not None
            diff = f"{(m.ours[0] - m.theirs[0]) * scale:+,.{digits}f}"
        return show(m.ours), show(m.theirs), diff

    def markdown(self, figure: str | None = None, command: str | None = None) -> str:
        from crosslayer import __version__

        other = SIMULATORS.get(self.other, self.other)
        lines = [
            f"# crosscheck: {self.scenario} against {other}",
            "",
            f"crosslayer {__version__}; " + (f"made by `{command}`." if command else "made by `crosslayer crosscheck`."),
            "",
            f"Seeds {', '.join(map(str, self.seeds))}; crosslayer with `[tcp] profile = \"{self.other}\"`; the same start times in both. "
            "Values are means over the seeds (range in brackets); the difference is crosslayer's minus the other's.",
            "",
            f"| metric | crosslayer | {other} | difference | bar | verdict |",
            "|---|---|---|---|---|---|",
        ]
        for m in self.metrics:
            a, b, d = self.cells(m)
            lines.append(f"| {m.label} | {a} | {b} | {d} | {m.bar} | {m.verdict} |")
        lines += ["", f"Overall: {'every metric agrees' if self.agrees else 'some metrics differ'}.", ""]
        if figure:
            lines += [f"![per-flow goodput and the bottleneck queue]({figure})", ""]
        kept = f" ({other}'s runs of seeds {', '.join(map(str, self.cached))} read back from the cache of earlier runs of the same program)" if self.cached else ""
        lines += [f"Wall time per run: crosslayer {_mean([s.wall_s for s in self.ours]):.3f} s, {other} {_mean([s.wall_s for s in self.theirs]):.1f} s{kept}.", ""]
        if self.left_out or self.warnings:
            lines += ["Left out and warnings:", "", *[f"- {n}" for n in (*self.left_out, *self.warnings)], ""]
        if self.notes:
            lines += ["What stands in for what:", "", *[f"- {n}" for n in self.notes], ""]
        return "\n".join(lines)

    def figure(self) -> Any:
        """Per-flow goodput side by side, and the bottleneck queue of the first seed overlaid."""
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        other = SIMULATORS.get(self.other, self.other).split()[0]
        per = self.flow_goodput()
        fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(9, 7), layout="constrained")
        x = range(len(per))
        width = 0.4
        ax1.bar([i - width / 2 for i in x], [o / 1e6 for _, o, _ in per], width, label="crosslayer")
        ax1.bar([i + width / 2 for i in x], [t / 1e6 for _, _, t in per], width, label=other)
        ax1.set_xticks(list(x), [n for n, _, _ in per], rotation=90 if len(per) > 12 else 0, fontsize=7 if len(per) > 12 else 9)
        ax1.set_ylabel("goodput, Mb/s")
        ax1.set_title(f"Per-flow goodput (mean over seeds {', '.join(map(str, self.seeds))})")
        ax1.legend()
        for side, label in ((self.ours[0], "crosslayer"), (self.theirs[0], other)):
            ax2.plot(side.series[0], side.series[1], label=label, linewidth=0.8)
        ax2.set_xlabel("time, s")
        ax2.set_ylabel("queue, packets")
        ax2.set_title(f"Queue at {self.series_link or 'the bottleneck'}, seed {self.seeds[0]}")
        ax2.legend()
        return fig


def _cwnd_json(cwnd: dict[str, tuple[list[float], list[float]]]) -> dict[str, dict[str, list[float]]]:
    return {name: {"t_s": t, "cwnd_pkts": v} for name, (t, v) in cwnd.items()}


def _mean(v: Sequence[float]) -> float:
    return sum(v) / len(v) if v else float("nan")


def run_ns3(
    program: str,
    python: str,
    progress: Callable[[float, float], None] | None = None,
    running: list[subprocess.Popen[str]] | None = None,
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """Run an ns-3 program (``ns3.program(...)``) with ``python``; its JSON result. An interrupt
    stops it; its failure raises :class:`OtherSimulatorError` with its own message, and so does
    running longer than ``timeout_s`` wall seconds. ``running`` collects the process while it
    runs (so that another thread can stop it)."""
    return _run(program, "crosscheck_ns3.py", lambda path, result: [python, path, "--out", result], "ns-3", progress, running, timeout_s)


def run_ns2(
    program: str,
    ns: str,
    progress: Callable[[float, float], None] | None = None,
    running: list[subprocess.Popen[str]] | None = None,
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """Run an ns-2 script (``ns2.program(...)``) with the ``ns`` program; as :func:`run_ns3`."""
    return _run(program, "crosscheck_ns2.tcl", lambda path, result: [ns, path, result], "ns-2", progress, running, timeout_s)


def run_linux(
    program: str,
    kernel: str,
    progress: Callable[[float, float], None] | None = None,
    running: list[subprocess.Popen[str]] | None = None,
    timeout_s: float | None = None,
) -> dict[str, Any]:
    """Boot the reference kernel (``linux.find_kernel()``) with a guest init (``linux.program(...)``)
    as its first process; as :func:`run_ns3`. The guest's memory file goes to the temporary
    folder (not ``/dev/shm``, often small)."""
    import tempfile

    def argv(path: str, result: str) -> list[str]:
        os.chmod(path, 0o755)
        return ["env", f"TMPDIR={tempfile.gettempdir()}", *linux_backend.kernel_argv(kernel, path)]

    import time

    t0 = time.perf_counter()
    raw = _run(program, "crosscheck_linux.sh", argv, "Linux", progress, running, timeout_s)
    raw["run_wall_s"] = time.perf_counter() - t0  # the guest's own clock is virtual
    try:
        linux_backend.check_run(program, raw)
    except ValueError as exc:
        raise OtherSimulatorError(f"Linux did not run the scenario as translated: {exc}") from None
    return raw


def _run(
    program: str,
    filename: str,
    argv: Callable[[str, str], list[str]],
    name: str,
    progress: Callable[[float, float], None] | None,
    running: list[subprocess.Popen[str]] | None,
    timeout_s: float | None,
) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        path, result = Path(tmp) / filename, Path(tmp) / "result.json"
        path.write_text(program, encoding="utf-8")
        proc = subprocess.Popen(argv(str(path), str(result)), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tmp, start_new_session=True)
        if running is not None:
            running.append(proc)
        timer = threading.Timer(timeout_s, stop, [proc]) if timeout_s else None
        if timer is not None:
            timer.daemon = True
            timer.start()
        err: deque[str] = deque(maxlen=200)
        panic = ""
        try:
            assert proc.stderr is not None
            for line in proc.stderr:
                if PANIC in line and not panic:
                    # a panicked kernel may hang instead of exiting: stop it now
                    panic = line.strip()
                    err.append(line)
                    stop(proc)
                elif line.startswith("progress "):
                    if progress is not None:
                        _, now, end = line.split()
                        progress(float(now), float(end))
                elif not line.startswith("[runStaticInitializersOnce]"):
                    err.append(line)
            code = proc.wait()
            out = result.read_text(encoding="utf-8") if code == 0 and result.exists() else ""
        except BaseException:
            stop(proc)
            raise
        finally:
            if timer is not None:
                timer.cancel()
            if running is not None and proc in running:
                running.remove(proc)
    if panic:
        tail = "".join(list(err)[-20:]).strip()
        raise OtherSimulatorError(f"{name}'s kernel panicked ({panic}); the end of its console:\n{tail}")
    if code != 0:
        tail = "".join(list(err)[-20:]).strip()
        if code < 0 and timer is not None and timer.finished.is_set():
            raise OtherSimulatorError(f"{name} took longer than {timeout_s:g} s and was stopped")
        if code < 0:
            raise OtherSimulatorError(f"{name} was stopped (signal {-code})")
        raise OtherSimulatorError(f"{name} failed (exit {code}):\n{tail}")
    try:
        return json.loads(out)
    except json.JSONDecodeError:
        raise OtherSimulatorError(f"{name} printed no result:\n{''.join(list(err)[-20:]).strip()}") from None


PANIC = "Kernel panic - not syncing"
"""What the reference kernel prints when it panics (it may then hang rather than exit)."""


def stop(proc: subprocess.Popen[str]) -> None:
    """Stop the other simulator's process and everything it started."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(timeout=5)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            proc.kill()


def crosscheck(
    scenario: Scenario,
    other: str = "ns3",
    seeds: Sequence[int] = (1,),
    ns3_python: str | os.PathLike[str] | None = None,
    progress: Callable[[str], None] | None = None,
    jobs: int = 1,
    timeout_s: float | None = None,
    ns2: str | os.PathLike[str] | None = None,
    kernel: str | os.PathLike[str] | None = None,
    fresh: bool = False,
) -> Crosscheck:
    """Run ``scenario`` in crosslayer and in ``other`` for each seed (``jobs`` of the other
    simulator's runs at once, each stopped after ``timeout_s`` wall seconds) and compare them.
    A run of the other simulator with the same program on the same installation as an earlier
    one is read back from the cache (``crosscheck.cache``) unless ``fresh``. Raises
    :class:`Untranslatable` before the other simulator starts if it cannot express the
    scenario, ``FileNotFoundError`` if it is not installed, :class:`OtherSimulatorError` if it
    fails."""
    import crosslayer

    from crosslayer.crosscheck import cache

    if other not in SIMULATORS:
        raise ValueError(f"crosscheck --with {other}: choose one of {', '.join(SIMULATORS)}")
    if not seeds:
        raise ValueError("crosscheck needs at least one seed")
    backend = {"ns3": ns3_backend, "ns2": ns2_backend, "linux": linux_backend}[other]
    label = SIMULATORS[other].split()[0]
    scenario = with_profile(scenario, other)
    state = {seed: "waiting" for seed in seeds}
    lock = threading.Lock()

    def show(seed: int, text: str) -> None:
        if progress is None:
            return
        with lock:
            state[seed] = text
            progress("; ".join(f"seed {s}: {t}" for s, t in state.items()))

    # crosslayer's runs and the translations first (seconds): a scenario the other simulator
    # cannot express, or a missing simulator, is reported before anything long starts
    ours, programs, notes, series = [], [], (), None
    ccs: list[list[str]] = []
    capacity: list[dict[str, float]] = []  # per seed: bottleneck -> rate, b/s
    through: list[list[str]] = []  # per seed: each flow's bottleneck
    sizes: list[list[int]] = []
    for seed in seeds:
        show(seed, "crosslayer")
        sc = scenario.with_overrides(seed=seed)
        result = crosslayer.run(sc)
        spec = sc.to_engine_spec()
        t = backend.translate(spec, result.flows, result.queues, result.udp)
        notes, series = t.notes, t.description["series"]
        programs.append(backend.program(t.description))
        sizes.append([f["size_bytes"] for f in t.description["flows"]])
        ours.append(_crosslayer_side(result, [int(f["tcp"]["mss"]) for f in flow_specs(spec, result.flows, [], label)]))
        show(seed, f"waiting for {label}")
        ccs.append([str(c) for c in result.flows.cc])
        capacity.append({str(link): float(rate) for link, rate in zip(result.queues.link, result.queues.rate_bps, strict=True)})
        through.append([str(b) for b in result.flows.bottleneck])
    if other == "ns3":
        python = ns3_backend.find_python(ns3_python)
        runner = lambda program, *args, **kw: run_ns3(program, python, *args, **kw)  # noqa: E731
        identity = cache.ns3_identity(python)
    elif other == "ns2":
        ns = ns2_backend.find_ns(ns2)
        runner = lambda program, *args, **kw: run_ns2(program, ns, *args, **kw)  # noqa: E731
        identity = cache.file_identity(ns)
    else:
        path = linux_backend.find_kernel(kernel)
        runner = lambda program, *args, **kw: run_linux(program, path, *args, **kw)  # noqa: E731
        identity = cache.linux_identity(path, linux_backend.traffic_program())
    running: list[subprocess.Popen[str]] = []
    cached: list[int] = []

    def one(k: int) -> Side:
        seed = seeds[k]
        kept_key = None if identity is None else cache.key(other, identity, programs[k])
        kept = None if fresh or kept_key is None else cache.get(kept_key)
        if kept is not None:
            try:
                side = _other_side(kept, sizes[k])
            except (KeyError, TypeError, ValueError, IndexError):  # a kept file edited or damaged: run again
                side = None
            if side is not None:
                with lock:
                    cached.append(seed)
                show(seed, "from the cache")
                return side
        show(seed, f"{label} starting")
        raw = runner(programs[k], lambda now, end: show(seed, f"{label} at {now:g} of {end:g} s"), running=running, timeout_s=timeout_s)
        side = _other_side(raw, sizes[k])
        if kept_key is not None:
            cache.put(kept_key, raw)
        show(seed, "done")
        return side

    pool = ThreadPoolExecutor(max_workers=max(1, min(jobs, len(seeds))))
    try:
        theirs = list(pool.map(one, range(len(seeds))))
    except BaseException:
        for proc in list(running):
            stop(proc)
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    # goodput through a link above its rate in the measured window: data held behind a lost
    # segment was delivered at once when the hole closed. A little above (a short window after
    # slow start's losses) is a warning; more than STALL_EXCESS above is a cumulative ACK
    # stalled for seconds (ns-2's Linux agent with BIC or Hybla at thousands of segments): the
    # window's goodput says nothing then, and that seed is left out
    keep, dropped, warnings = [], [], []
    for k in range(len(seeds)):
        stalled = False
        for who, side in (("crosslayer", ours[k]), (label, theirs[k])):
            load: dict[str, float] = {}
            for (_, goodput), link in zip(side.flows, through[k], strict=True):
                load[link] = load.get(link, 0.0) + goodput
            for link, v in load.items():
                rate = capacity[k].get(link)
                if rate is None or v <= rate * 1.001:
                    continue
                text = f"seed {seeds[k]}: {who}'s flows through {link} delivered {v / 1e6:.2f} Mb/s in the measured window, more than the link's {rate / 1e6:g} Mb/s (data held behind a hole, delivered at once)"
                if v > rate * STALL_EXCESS:
                    stalled = True
                    dropped.append(text + ": left out")
                else:
                    warnings.append(text + ": a longer warm-up measures a rate")
        if not stalled:
            keep.append(k)
    if not keep:
        raise OtherSimulatorError("no seed left to compare:\n" + "\n".join(dropped))
    if dropped:
        seeds = [seeds[k] for k in keep]
        ours, theirs, ccs = [ours[k] for k in keep], [theirs[k] for k in keep], [ccs[k] for k in keep]
    for k, kinds in enumerate(ccs):
        if len(set(kinds)) > 1:
            for side in (ours[k], theirs[k]):
                for kind in dict.fromkeys(kinds):
                    side.metrics[f"cc_goodput_bps@{kind}"] = sum(g for (_, g), c in zip(side.flows, kinds, strict=True) if c == kind)
    return Crosscheck(
        scenario.name, other, list(seeds), ours, theirs, notes, programs[0], series, left_out=tuple(dropped), warnings=tuple(warnings),
        cached=tuple(sorted(x for x in cached if x in seeds)),
    )  # fmt: skip
