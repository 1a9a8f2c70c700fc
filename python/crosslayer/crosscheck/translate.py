"""What the translations to ns-3 and ns-2 share (:mod:`crosslayer.crosscheck.ns3`,
:mod:`crosslayer.crosscheck.ns2`): the refusal, the translation's result, the catalog's
parameters as a study file shows them, the directed links of a topology, the link crosslayer
samples, and the per-flow algorithms of a run (its workload's flows included)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from crosslayer.catalog import catalog


class Untranslatable(ValueError):
    """The scenario has elements the other simulator (or this translation) cannot express;
    ``problems`` names each, with the fix where there is one."""

    def __init__(self, problems: list[str], simulator: str = "ns-3") -> None:
        self.problems = problems
        self.simulator = simulator
        super().__init__(f"{simulator} cannot run this scenario as crosslayer does:\n" + "\n".join(f"  - {p}" for p in problems))


@dataclass(frozen=True)
class Translation:
    """The other simulator's description of one run, and what stands in for what (``notes``)."""

    description: dict[str, Any]
    notes: tuple[str, ...]


def _defaults(family: str, kind: str) -> dict[str, Any]:
    a = catalog().lookup(family, kind)
    return {} if a is None else {p.name: p.default for p in a.params}


def _show(params: Any, name: str, value: Any) -> str:
    """A parameter's value as a study file writes it (``params``: the catalog's declarations)."""
    from crosslayer.catalog import format_value

    param = next((p for p in params if p.name == name), None)
    return repr(value) if param is None or value is None else format_value(param, value)


def _algorithm_params(family: str, kind: str) -> Any:
    a = catalog().lookup(family, kind)
    return () if a is None else a.params


def _halves(topo: Mapping[str, Any], left: str, right: str) -> list[tuple[str, str, Mapping[str, Any]]]:
    """Every directed link of a dumbbell or a graph, in crosslayer's order."""
    if topo["kind"] == "graph":
        return [(link["from"], link["to"], link["edge"]) for link in topo["links"]]
    out = []
    for h in topo["senders"]:
        out += [(h["name"], left, h["up"]), (left, h["name"], h["down"])]
    out += [(left, right, topo["forward"]), (right, left, topo["reverse"])]
    for h in topo["receivers"]:
        out += [(right, h["name"], h["down"]), (h["name"], right, h["up"])]
    return out


def series_link(spec: Mapping[str, Any], links: Any) -> str | None:
    """The link whose queue crosslayer's ``series`` table samples (``series_queue``)."""
    name = spec.get("series_queue", "forward")
    roles = dict(zip(links["role"], links["link"], strict=True))
    if spec["topology"]["kind"] == "dumbbell" and name in ("bottleneck", "forward", "reverse"):
        return roles["forward" if name == "bottleneck" else name]
    if name == "bottleneck":
        counts = [int(c) for c in links["bottleneck_flows"]]
        return str(links["link"].iloc[counts.index(max(counts))]) if counts else None
    return name if name in set(links["link"]) else None


def flow_specs(spec: Mapping[str, Any], flows: Any, problems: list[str], simulator: str) -> list[Mapping[str, Any]]:
    """Each flow of the run (its flows table ``flows``) as the engine spec gives it: the
    ``[[flows]]`` in order, then a workload's (``[arrivals]``) flows, which the engine draws: the
    table has each one's start and size, its congestion control and TCP options are its
    group's. Raises :class:`Untranslatable` (with ``problems`` so far) for a flow from neither."""
    groups = {g["name"]: g for g in spec.get("arrivals") or []}
    specs: list[Mapping[str, Any]] = list(spec["flows"])
    for row in list(flows.itertuples(index=False))[len(specs) :]:
        group = groups.get(str(row.name).rsplit(".", 1)[0])
        if group is None:
            raise Untranslatable([*problems, f"flow {row.name}: neither in [[flows]] nor from an [[arrivals]] group"], simulator)
        specs.append({"cc": group["cc"], "tcp": group["tcp"], "size": int(row.size_bytes)})
    return specs


def run_times(spec: Mapping[str, Any], sample_default_ns: int = 0) -> dict[str, float]:
    """The run's duration, warm-up and sample interval in seconds, as every translation's
    description carries them (``sample_default_ns`` when the study sets no sample interval)."""
    return {
        "duration_s": spec["duration"] / 1e9,
        "warmup_s": spec["warmup"] / 1e9,
        "sample_interval_s": (spec.get("sample_interval") or sample_default_ns) / 1e9,
    }
