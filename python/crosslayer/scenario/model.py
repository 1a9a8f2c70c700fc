"""The scenario: one simulation run, validated as a whole and lowered to the engine spec."""

from __future__ import annotations

import functools
import json
import re
import tomllib
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import (
    ValidationError,
    model_validator,
)

from crosslayer.catalog import engine
from crosslayer.paths import set_path, toml_refusal
from crosslayer.scenario.algorithms import RunLimits, TcpConfig
from crosslayer.scenario.errors import (
    MS,
    Loc,
    ScenarioError,
    _Model,
    _problems_from,
    _raise_problems,
)
from crosslayer.scenario.fields import (
    MAX_DURATION,
    MAX_FLOWS,
    Duration,
    Flag,
    NodeList,
    ScenarioName,
    Seed,
    Size,
    _got,
)
from crosslayer.scenario.flows import (
    ExpandedFlow,
    FlowGroup,
    UdpGroup,
    _pair_count,
    group_pairs,
)
from crosslayer.scenario.topology import Dumbbell, Graph, PresetTopology, Topology, expand
from crosslayer.scenario.workload import MAX_OVERLOAD, ArrivalGroup, ArrivalList, Arrivals, ListedFlow
from crosslayer.units import (
    format_duration,
    format_size,
    show,
)

# -- packet capture ---------------------------------------------------------------------------

MAX_PCAP_BYTES: Final = 8 << 30
"""Largest ``[pcap] max_bytes``: captures are held in memory until the run ends."""


class Pcap(_Model):
    """Packet capture to pcap files that Wireshark and tshark open (``pcap/`` in the results):
    the packets chosen links start sending (after their queue), and what chosen hosts send and
    receive; IPv4 + TCP with its options (SACK, timestamps, window scale, ECN) or UDP, headers
    only (the payload is not modelled)."""

    links: list[str] = []
    """Links to capture, e.g. ["A->B"]: a file ``A-B.pcap`` each."""
    hosts: NodeList = []
    """Hosts whose interface to capture (what they send and receive): a file ``<host>.pcap`` each."""
    snaplen: Size = 128
    """Bytes kept of each packet (its headers, then zeros): 128 B holds every header."""
    max_bytes: Size = 100_000_000
    """The most the files hold together; packets beyond are counted, not written (summary:
    pcap_missed)."""


# -- scenario ---------------------------------------------------------------------------------


class Scenario(_Model):
    """One simulation run. See module docstring and studies/*.toml."""

    name: ScenarioName
    description: str = ""
    duration: Duration
    """Simulated time."""
    warmup: Duration = 0
    """Measurements cover [warmup, duration]."""
    seed: Seed = 1
    sample_interval: Duration = 10 * MS
    """Period of the queue-length (and cwnd) time series."""
    cwnd_trace: Flag = False
    """Record every flow's cwnd and ssthresh each sample_interval."""
    goodput_interval: Duration = 0
    """Period of the per-flow goodput series (the goodput table); 0 (the default): none."""
    series_queue: str = "bottleneck"
    """The queue the series table samples: "bottleneck" (a dumbbell's A->B; in a graph the
    topology's bottleneck link, or the link most flows have as their bottleneck), "reverse"
    (a dumbbell's B->A) or a link name such as "N1->A", "B->N4" or "R1->R2"."""
    tie_break: Literal["fifo", "random"] = "fifo"
    """Order of events at the same nanosecond: as scheduled, or a seeded random order."""
    topology: Topology
    tcp: TcpConfig = TcpConfig()
    """Defaults for every flow."""
    limits: RunLimits = RunLimits()
    """Safety limits: trace rows, events."""
    flows: list[FlowGroup] = []
    udp: list[UdpGroup] = []
    """Unresponsive constant-bit-rate flows."""
    arrivals: list[Arrivals] = []
    """Finite TCP flows arriving as Poisson processes, or listed in a CSV file (their completion
    times: the fct table)."""
    pcap: Pcap | None = None
    """Packet capture (none by default)."""

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        _raise_problems(self._problems())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        return self._problems()

    def flow_count(self) -> int:
        """How many flows the groups expand to (computed without expanding them)."""
        return sum(_pair_count(g) * g.per_pair for g in [*self.flows, *self.udp])

    def trace_rows(self) -> int:
        """Rows the series and (with cwnd_trace) the cwnd trace will hold at most."""
        if self.sample_interval == 0:
            return 0
        samples = self.duration // self.sample_interval + 1
        tcp_flows = sum(_pair_count(g) * g.per_pair for g in self.flows)
        goodput = (self.duration // self.goodput_interval) * tcp_flows if self.goodput_interval else 0
        return samples * (1 + tcp_flows if self.cwnd_trace else 1) + goodput

    def _problems(self) -> list[tuple[Loc, str]]:
        out = self._field_problems()
        if not out and isinstance(self.topology, Dumbbell):
            # The engine's own check of the lowered spec: what validates here runs there. It
            # finds nothing the checks above missed unless crosslayer has a bug.
            try:
                engine().validate_json(json.dumps(self.to_engine_spec(compact=True)))
            except ValueError as exc:
                out.append(((), f"the engine refused this scenario, which crosslayer's validation accepted (a bug: please report it with the study file): {exc}"))
        elif not out:
            # A graph's connectivity and the flows' routes (no route, a loop through the
            # overrides) are the engine's to find: its plan names them by engine field.
            out += self._engine_plan_problems(self.plan().get("problems", []))
        return out

    def _engine_plan_problems(self, problems: list[list[str]]) -> list[tuple[Loc, str]]:
        """The engine's problems of a graph scenario, as the study file's fields."""
        out: list[tuple[Loc, str]] = []
        flows, udp = self.expand_flows(), self.expand_udp()
        for field, message in problems:
            m = re.match(r"^(flows|udp)\[(\d+)\]\.?(.*)$", field)
            if m:
                table, k, rest = m.group(1), int(m.group(2)), m.group(3)
                flow = (flows if table == "flows" else udp)[k]
                out.append(((table, flow.group, *(rest.split(".") if rest else ())), f"flow {flow.name}: {message}"))
            elif field == "topology" or field.startswith("topology."):
                rest = field[len("topology.") :] if field != "topology" else ""
                out.append((("topology",), f"{rest}: {message}" if rest else message))
            else:
                out.append(((), f"the engine refused this scenario, which crosslayer's validation accepted (a bug: please report it with the study file): {field}: {message}"))
        return out

    def _field_problems(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        duration = format_duration(self.duration)
        if self.duration == 0:
            out.append((("duration",), 'must be positive, e.g. "100s"'))
        elif self.duration > MAX_DURATION:
            out.append((("duration",), f"must be at most {format_duration(MAX_DURATION)} {_got(self.duration)}"))
        if self.warmup >= self.duration:
            out.append((("warmup",), f"must be shorter than duration ({duration}) {_got(self.warmup)}"))
        if not 0 < self.sample_interval <= self.duration:
            out.append((("sample_interval",), f"must be in (0, duration = {duration}] {_got(self.sample_interval)}"))
        out += [(("tcp", *loc), msg) for loc, msg in self.tcp.problems()]
        links = self.link_names()
        named = ("bottleneck", "reverse") if isinstance(self.topology, Dumbbell) else ("bottleneck",)
        if self.series_queue not in (*named, *links):
            shown = ", ".join(links[:12]) + (", ..." if len(links) > 12 else "")
            choices = '"bottleneck", "reverse"' if len(named) == 2 else '"bottleneck"'
            out.append((("series_queue",), f"no such queue: {choices} or a link name ({shown}) (got {show(self.series_queue)})"))
        if not self.flows and not self.udp and not self.arrivals:
            out.append((("flows",), 'needs at least one [[flows]] group, e.g. src = "N1", dst = "N4", cc = "cubic" (or a [[udp]] or [[arrivals]] group)'))
        flows = self.flow_count()
        if flows > MAX_FLOWS:
            counts = " + ".join(f"{len(g.src)} x {len(g.dst)} x {g.per_pair}" if g.pairs == "all" else f"{_pair_count(g)} pairs x {g.per_pair}" for g in [*self.flows, *self.udp])
            out.append((("flows",), f"expand to {flows} flows ({counts}), more than {MAX_FLOWS}; lower per_pair"))
            return out  # the per-group checks below would walk every one of them
        for i, group in enumerate(self.flows):
            out += [(("flows", i, *loc), msg) for loc, msg in self._group_problems(group)]
        for i, udp in enumerate(self.udp):
            out += [(("udp", i, *loc), msg) for loc, msg in self._udp_problems(udp)]
        expected = float(flows)
        for i, group in enumerate(self.arrivals):
            if isinstance(group, ArrivalList):
                listed = group.flows()
                out += [(("arrivals", i, *loc), msg) for loc, msg in self._listed_problems(group, listed)]
                expected += len(listed)
                if expected > MAX_FLOWS:
                    out.append((("arrivals", i, "file"), f"{len(listed):,} flows; a run holds at most {MAX_FLOWS:,} flows"))
                continue
            problems = self._arrival_problems(group)
            out += [(("arrivals", i, *loc), msg) for loc, msg in problems]
            if not problems:
                n = self.expected_arrivals(group)
                expected += n
                if expected + 6 * expected**0.5 > MAX_FLOWS:
                    out.append(
                        (("arrivals", i, "load"), f"about {n:,.0f} flows would arrive; a run holds at most {MAX_FLOWS:,} flows: shorten the arrivals (stop) or lower the load")
                    )
        if self.pcap is not None:
            out += [(("pcap", *loc), msg) for loc, msg in self._pcap_problems(self.pcap)]
        rows, limit = self.trace_rows(), self.limits.max_trace_rows
        if rows > limit and not out:
            what = "series and cwnd traces" if self.cwnd_trace else "series"
            out.append(
                (
                    ("sample_interval",),
                    f"the {what} would hold {rows:,} rows (about {rows * 80 / 1e9:.1f} GB), more than "
                    f"limits.max_trace_rows = {limit:,}: sample less often, or raise [limits] max_trace_rows "
                    f"{_got(self.sample_interval)}",
                )
            )
        return out

    def _pcap_problems(self, pcap: Pcap) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        links = self.link_names()
        nodes = self.nodes()
        if not pcap.links and not pcap.hosts:
            out.append(((), 'name what to capture: links = ["A->B"] or hosts = ["N1"]'))
        for i, link in enumerate(pcap.links):
            if link not in links:
                shown = ", ".join(links[:12]) + (", ..." if len(links) > 12 else "")
                out.append((("links", i), f"no link {show(link)}; links are: {shown}"))
        for i, host in enumerate(pcap.hosts):
            if not nodes.get(host):
                hosts = [n for n, h in nodes.items() if h]
                out.append((("hosts", i), f"{show(host)} is not a host; hosts are: {', '.join(hosts[:12])}{', ...' if len(hosts) > 12 else ''}"))
        if not 64 <= pcap.snaplen <= 65535:
            out.append((("snaplen",), f"must be in [64B, 65535B] (64 B holds every header) (got {show(format_size(pcap.snaplen))})"))
        if not 1024 <= pcap.max_bytes <= MAX_PCAP_BYTES:
            out.append((("max_bytes",), f"must be in [1KiB, 8GiB]: captures are held in memory until the run ends (got {show(format_size(pcap.max_bytes))})"))
        if out:
            return out
        points: dict[tuple[str, bool], str] = {}
        files = [(link.replace("->", "-"), [(link, True)]) for link in pcap.links]
        for host in pcap.hosts:
            files.append((host, [(link, True) for link in links if link.split("->")[0] == host] + [(link, False) for link in links if link.split("->")[1] == host]))
        for name, where in files:
            for point in where:
                if point in points:
                    verb = "sends" if point[1] else "delivers"
                    out.append(((), f"what {point[0]} {verb} would be in two files ({points[point]}.pcap and {name}.pcap): capture it once"))
                points.setdefault(point, name)
        return out

    def arrival_link(self, group: ArrivalGroup) -> str:
        """The link an arrival group's load is of, by name."""
        if group.link != "bottleneck":
            return group.link
        return "A->B" if isinstance(self.topology, Dumbbell) else self.bottleneck_link()

    def expected_arrivals(self, group: ArrivalGroup) -> float:
        """How many flows a group's Poisson process brings on average."""
        rate = self.link_rate(self.arrival_link(group))
        span = (min(group.stop or self.duration, self.duration) - group.start) / 1e9
        return group.load * rate / (8 * group.sizes.mean_bytes()) * span

    def _arrival_problems(self, group: ArrivalGroup) -> list[tuple[Loc, str]]:
        out = self._endpoint_problems(group)  # type: ignore[arg-type]
        duration = format_duration(self.duration)
        if group.overload and not 0 < group.load <= MAX_OVERLOAD:
            out.append((("load",), f"must be in (0, {MAX_OVERLOAD:g}] with overload = true (got {group.load})"))
        elif not group.overload and not 0 < group.load < 1:
            out.append(
                (
                    ("load",),
                    f"must be in (0, 1) (got {group.load}): at a load of 1 or more flows arrive faster than the link carries them, "
                    "and the backlog and the open flows grow until the run ends; set overload = true to run such an overload on purpose",
                )
            )
        links = self.link_names()
        shown = ", ".join(links[:12]) + (", ..." if len(links) > 12 else "")
        if group.link != "bottleneck" and group.link not in links:
            out.append((("link",), f"no link {show(group.link)}: \"bottleneck\" or a link name ({shown})"))
        elif not out and self.arrival_link(group) not in links:
            out.append((("link",), f"this topology names no bottleneck and has no bulk flows to find one: name the link, one of {shown}"))
        if group.start >= self.duration:
            out.append((("start",), f"must be before duration ({duration}) {_got(group.start)}"))
        if group.stop is not None and not group.start < group.stop <= self.duration:
            out.append((("stop",), f"must be in ({format_duration(group.start)}, duration = {duration}] {_got(group.stop)}; omit it to run to the end"))
        if group.tcp is not None:
            inherited = self.tcp.problems()
            out += [(("tcp", *p[0]), p[1]) for p in self.tcp_for(group).problems() if p not in inherited]  # type: ignore[arg-type]
        return out

    def _udp_problems(self, group: UdpGroup) -> list[tuple[Loc, str]]:
        out = self._endpoint_problems(group)
        duration = format_duration(self.duration)
        if group.start >= self.duration:
            out.append((("start",), f"must be before duration ({duration}) {_got(group.start)}"))
        if group.stop is not None and not group.start < group.stop <= self.duration:
            out.append((("stop",), f"must be in ({format_duration(group.start)}, duration = {duration}] {_got(group.stop)}; omit it to run to the end"))
        if not 28 <= group.packet_size <= 65535:
            out.append((("packet_size",), f"must be in [28B, 65535B]: IPv4 and UDP headers at least, IPv4's limit at most (got {show(format_size(group.packet_size))})"))
        return out

    def is_reverse(self, group: FlowGroup | UdpGroup) -> bool:
        """Whether a group sends from receivers to senders (over B -> A): its first src host that
        is a node of the dumbbell is a receiver. Validation requires every src on that side and
        every dst on the other. Never in a graph."""
        if not isinstance(self.topology, Dumbbell):
            return False
        receivers = {h.name for h in self.topology.receivers}
        senders = {h.name for h in self.topology.senders}
        first = next((name for name in group.src if name in receivers or name in senders), None)
        return first in receivers

    def _endpoint_problems(self, group: FlowGroup | UdpGroup) -> list[tuple[Loc, str]]:
        if not isinstance(self.topology, Dumbbell):
            return self._graph_endpoint_problems(group)
        out: list[tuple[Loc, str]] = []
        sides = {"senders": [h.name for h in self.topology.senders], "receivers": [h.name for h in self.topology.receivers]}
        reverse = self.is_reverse(group)
        roles = (("src", "receivers", "senders"), ("dst", "senders", "receivers")) if reverse else (("src", "senders", "receivers"), ("dst", "receivers", "senders"))
        first_src = next((n for n in group.src if n in sides["senders"] or n in sides["receivers"]), "")
        for field, role, other in roles:
            names: list[str] = getattr(group, field)
            defined = ", ".join(sides[role])
            if not names:
                out.append(((field,), f"needs at least one of the {role}: {defined}"))
            for j, name in enumerate(names):
                if name in sides[other]:
                    if field == "src":
                        problem = (
                            f"{show(name)} is one of the {other}, but {show(first_src)} (the first) is one of the {role}: "
                            f"a group's src hosts must all be senders (data towards the receivers) or all receivers "
                            f"(a reverse group, data towards the senders); put {show(name)} in a group of its own"
                        )
                    else:
                        problem = (
                            f"{show(name)} is one of the {other}, as src is: data crosses between the routers, "
                            f"so dst must be one of the {role}: {defined}"
                        )
                    out.append(((field, j), problem))
                elif name not in sides[role]:
                    out.append(((field, j), f"unknown node {show(name)}; {role} are: {defined}"))
                elif name in names[:j] and group.pairs == "all":
                    out.append(((field, j), f"{show(name)} is listed twice; use per_pair for several flows per pair"))
        if group.pairs == "zip":
            if len(group.src) != len(group.dst):
                out.append(((
                    "dst",
                ), f'pairs = "zip" pairs src[i] with dst[i], but src has {len(group.src)} hosts and dst {len(group.dst)}: list as many of each, or use pairs = "all" (src x dst)'))
            seen: set[tuple[str, str]] = set()
            for j, pair in enumerate(zip(group.src, group.dst)):
                if pair in seen:
                    out.append((("dst", j), f"the pair {show(pair[0])} -> {show(pair[1])} is listed twice; use per_pair for several flows per pair"))
                seen.add(pair)
        return out

    def _listed_ends(self, flow: ListedFlow) -> tuple[int | str, int | str, bool] | str:
        """A listed flow's endpoints as the engine takes them (a dumbbell's as indices, and
        whether it runs from a receiver to a sender), or what is wrong with them."""
        if isinstance(self.topology, Dumbbell):
            senders = {h.name: k for k, h in enumerate(self.topology.senders)}
            receivers = {h.name: k for k, h in enumerate(self.topology.receivers)}
            if flow.src in senders and flow.dst in receivers:
                return senders[flow.src], receivers[flow.dst], False
            if flow.src in receivers and flow.dst in senders:
                return receivers[flow.src], senders[flow.dst], True
            return f"{show(flow.src)} -> {show(flow.dst)} is not a sender and a receiver of the dumbbell (senders: {', '.join(senders)}; receivers: {', '.join(receivers)})"
        nodes = self.nodes()
        for name in (flow.src, flow.dst):
            if not nodes.get(name, False):
                hosts = [n for n, host in nodes.items() if host]
                what = "a router" if name in nodes else "no node"
                return f"{show(name)} is {what}: flows run between hosts ({', '.join(hosts[:12])}{', ...' if len(hosts) > 12 else ''})"
        if flow.src == flow.dst:
            return f"{show(flow.src)} is paired with itself: a flow runs between two hosts"
        return flow.src, flow.dst, False

    def _listed_problems(self, group: ArrivalList, flows: list[ListedFlow]) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        for f in flows:
            ends = self._listed_ends(f)
            problem = ends if isinstance(ends, str) else None
            if problem is None and f.start >= self.duration:
                problem = f"start {format_duration(f.start)} is not before the end of the run ({format_duration(self.duration)})"
            if problem is not None:
                out.append((("file",), f"{group.file} line {f.line}: {problem}"))
                if len(out) >= 20:
                    break
        return out

    def _listed_specs(self, i: int, group: ArrivalList) -> list[dict[str, Any]]:
        """A flow list's flows as engine flows (validated)."""
        tcp = self.tcp_for(group).engine_spec()  # type: ignore[arg-type]
        out = []
        for k, f in enumerate(group.flows()):
            src, dst, reverse = self._listed_ends(f)  # type: ignore[misc]
            out.append(
                {
                    "name": f"{group.name or f'arrivals{i}'}.{k}",
                    "src": src,
                    "dst": dst,
                    "reverse": reverse,
                    "cc": group.cc_of(f).engine_spec(),
                    "tcp": tcp,
                    "start": {"kind": "fixed", "at": f.start},
                    "stop": None,
                    "dscp": group.dscp,
                    "port": group.port,
                    "size": f.size,
                }
            )
        return out

    def _graph_endpoint_problems(self, group: FlowGroup | UdpGroup) -> list[tuple[Loc, str]]:
        """Every src and dst a host of the graph; "zip" pairs of equal lengths and no host
        paired with itself ("all" skips those pairs)."""
        out: list[tuple[Loc, str]] = []
        nodes = self.nodes()
        hosts = [n for n, host in nodes.items() if host]
        shown = ", ".join(hosts[:12]) + (", ..." if len(hosts) > 12 else "")
        for field in ("src", "dst"):
            names: list[str] = getattr(group, field)
            if not names:
                out.append(((field,), f"needs at least one host: {shown}"))
            for j, name in enumerate(names):
                if name not in nodes:
                    out.append(((field, j), f"unknown host {show(name)}; hosts are: {shown}"))
                elif not nodes[name]:
                    out.append(((field, j), f"{show(name)} is a router: flows run between hosts ({shown})"))
                elif name in names[:j] and group.pairs == "all":
                    out.append(((field, j), f"{show(name)} is listed twice; use per_pair for several flows per pair"))
        if group.pairs == "zip":
            if len(group.src) != len(group.dst):
                out.append((("dst",), f'pairs = "zip" pairs src[i] with dst[i], but src has {len(group.src)} hosts and dst {len(group.dst)}: list as many of each, or use pairs = "all" (src x dst)'))
            seen: set[tuple[str, str]] = set()
            for j, pair in enumerate(zip(group.src, group.dst)):
                if pair[0] == pair[1]:
                    out.append((("dst", j), f"{show(pair[0])} is paired with itself: a flow runs between two hosts"))
                elif pair in seen:
                    out.append((("dst", j), f"the pair {show(pair[0])} -> {show(pair[1])} is listed twice; use per_pair for several flows per pair"))
                seen.add(pair)
        elif group.src and group.dst and not group_pairs(group):
            out.append((("dst",), f"every (src, dst) pair is a host with itself: no flow; name other hosts in dst"))
        return out

    def _group_problems(self, group: FlowGroup) -> list[tuple[Loc, str]]:
        out = self._endpoint_problems(group)
        latest_start = group.start.bounds[1]
        duration = format_duration(self.duration)
        if latest_start >= self.duration:
            out.append((("start",), f"must be before duration ({duration}) {_got(latest_start)}"))
        if group.stop is not None and not latest_start < group.stop <= self.duration:
            window = f"({format_duration(latest_start)}, duration = {duration}]"
            out.append((("stop",), f"must be in {window} {_got(group.stop)}; omit it to run to the end"))
        if group.on_off is not None and group.on_off.connection == "new":
            if group.app_rate is None:
                out.append((("on_off", "connection"), '"new" opens a connection per on-period carrying what the application writes in it: give the group an app_rate, or use "same"'))
            if group.size is not None:
                out.append((("size",), 'with on_off.connection = "new" each on-period\'s connection carries app_rate x its duration: leave size out'))
        if group.abort is not None and not latest_start < group.abort <= self.duration:
            window = f"({format_duration(latest_start)}, duration = {duration}]"
            out.append((("abort",), f"must be in {window}, after the latest start {_got(group.abort)}; omit it for a flow that is not aborted"))
        if group.tcp is not None:  # problems of [tcp] itself are reported once, under "tcp"
            inherited = self.tcp.problems()
            out += [(("tcp", *p[0]), p[1]) for p in self.tcp_for(group).problems() if p not in inherited]
        return out

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str | None = None) -> Scenario:
        """Validate a TOML-shaped mapping; raise ScenarioError listing every problem."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ScenarioError(_problems_from(exc), source) from None
        except RecursionError:
            raise ScenarioError([("", "values are nested too deeply to be a scenario")], source) from None

    @classmethod
    def from_toml(cls, source: str | Path) -> Scenario:
        """Load a study file: a ``Path``, a ``str`` ending in ``.toml`` (a path) or TOML text.

        Raises ScenarioError for anything that is not a valid study (bytes that are not UTF-8,
        invalid TOML, nesting deeper than the TOML reader follows, integers too long to read)
        and OSError if the file cannot be read.
        """
        label, _, data = read_toml(source, "<string>")
        return cls.from_dict(data, label)

    @classmethod
    def coerce(cls, source: Scenario | Mapping[str, Any] | str | Path) -> Scenario:
        """A Scenario from a Scenario, a TOML-shaped mapping, a TOML file path or TOML text."""
        if isinstance(source, Scenario):
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        return cls.from_toml(source)

    def with_overrides(self, **changes: Any) -> Scenario:
        """A re-validated copy with fields replaced: top-level names or paths as a study file's
        axes take them, e.g. ``with_overrides(seed=2, duration="5s")`` or
        ``with_overrides(**{"topology.bottleneck.qdisc.kind": "codel", "flows[*].cc": "reno"})``
        (see :mod:`crosslayer.paths`)."""
        return self.with_paths(changes, source=f"{self.name} with overrides")

    def with_paths(self, overrides: Mapping[str, Any], source: str | None = None) -> Scenario:
        """A re-validated copy with every ``path = value`` of ``overrides`` set
        (:func:`crosslayer.paths.set_path`); ``source`` names it in error messages."""
        data = self.model_dump()
        for path, value in overrides.items():
            set_path(data, path, value)
        return Scenario.from_dict(data, source=source or f"{self.name} with {', '.join(overrides)}")

    # -- lowering ---------------------------------------------------------------------------

    def tcp_for(self, group: FlowGroup) -> TcpConfig:
        """The effective TCP config of a flow group: [tcp] with the group's overrides applied."""
        if group.tcp is None:
            return self.tcp
        return self.tcp.model_copy(update={k: getattr(group.tcp, k) for k in group.tcp.model_fields_set})

    @functools.cached_property
    def graph(self) -> dict[str, Any]:
        """The graph the engine builds from the topology: ``nodes`` (name, host) and ``links``
        (from, to, edge) in its order (a dumbbell's too: senders, A, B, receivers)."""
        return expand(self.topology)

    def nodes(self) -> dict[str, bool]:
        """Every node of the topology: name -> is a host."""
        if isinstance(self.topology, Graph):
            return self.topology.node_kinds()
        return {n["name"]: bool(n.get("host")) for n in self.graph["nodes"]}

    @functools.cached_property
    def _plan(self) -> dict[str, Any]:
        # without the arrival groups: their link may be "bottleneck", which this plan names
        spec = self.to_engine_spec(arrivals=False, compact=True)
        if not spec["flows"] and not spec.get("flow_runs") and not spec["udp"]:
            return {"links": [], "flows": [], "udp": []}
        return dict(json.loads(engine().plan_json(json.dumps(spec))))

    def link_rate(self, name: str) -> int:
        """The rate of a link (bit/s), by name; 0 if there is none."""
        for link in self.graph["links"]:
            if f"{link['from']}->{link['to']}" == name:
                return int(link["edge"]["rate"])
        return 0

    def plan(self) -> dict[str, Any]:
        """The engine's plan: every flow's ``route``, ``ack_route`` and ``bottleneck`` (link
        names), the graph's ``nodes`` and ``links``; or ``problems`` if it has any."""
        return self._plan

    def bottleneck_link(self) -> str:
        """The link the headline metrics describe: a dumbbell's A->B; a graph's or preset's
        ``bottleneck`` if set, else the link most flows have as their bottleneck (the first of
        equals in link order, as the engine's ``series_queue = "bottleneck"``); with arrivals
        only, the link the first arrival group's load is of."""
        if isinstance(self.topology, Dumbbell):
            return "A->B"
        if self.topology.bottleneck is not None:
            return self.topology.bottleneck
        plan = self.plan()
        counts = Counter(f["bottleneck"] for f in [*plan.get("flows", []), *plan.get("udp", [])])
        if not counts:
            # only arrivals, which the plan does not hold: the link the first group's load is of
            groups = [g for g in self.arrivals if isinstance(g, ArrivalGroup) and g.link != "bottleneck"]
            if groups:
                return groups[0].link
        best = max(counts.values(), default=0)
        return next((link["name"] for link in plan.get("links", []) if counts.get(link["name"]) == best), "")

    def link_names(self) -> list[str]:
        """The simplex links, as the engine names them (``queues.link``)."""
        if isinstance(self.topology, Graph):
            return self.topology.link_names()
        if isinstance(self.topology, PresetTopology):
            return [f"{link['from']}->{link['to']}" for link in self.graph["links"]]
        names = ["A->B", "B->A"]
        for h in self.topology.senders:
            names += [f"{h.name}->A", f"A->{h.name}"]
        for h in self.topology.receivers:
            names += [f"{h.name}->B", f"B->{h.name}"]
        return names

    def series_link(self) -> str:
        """The link the ``series`` table samples."""
        if isinstance(self.topology, Dumbbell):
            return {"bottleneck": "A->B", "reverse": "B->A"}.get(self.series_queue, self.series_queue)
        return self.bottleneck_link() if self.series_queue == "bottleneck" else self.series_queue

    def series_qdisc(self) -> dict[str, Any]:
        """The engine spec of the discipline on the queue ``series`` samples."""
        if not isinstance(self.topology, Dumbbell):
            name = self.series_link()
            for link in self.graph["links"]:
                if f"{link['from']}->{link['to']}" == name:
                    return dict(link["edge"]["qdisc"])
            raise LookupError(f"no queue {name!r}")
        topo = self.topology.engine_spec()
        name = self.series_queue
        if name in ("bottleneck", "A->B"):
            return dict(topo["forward"]["qdisc"])
        if name in ("reverse", "B->A"):
            return dict(topo["reverse"]["qdisc"])
        for role, router in (("senders", "A"), ("receivers", "B")):
            for h in topo[role]:
                if name == f"{h['name']}->{router}":
                    return dict(h["up"]["qdisc"])
                if name == f"{router}->{h['name']}":
                    return dict(h["down"]["qdisc"])
        raise LookupError(f"no queue {name!r}")

    def _runs(self, groups: Sequence[FlowGroup | UdpGroup], suffix: str) -> Iterator[tuple[int, str, int | str, int | str, bool, int, int]]:
        """The flows of ``groups`` in engine order (group, then pair as listed, then index), a
        run per pair of a group: (group, name prefix ``<src>-<dst>.<suffix>``, src, dst,
        reverse, first k, count); flow ``k`` of the pair is named ``<prefix><k>``, ``k``
        counting that pair's flows over the groups. A dumbbell's flows give their hosts as
        indices into its senders and receivers, a graph's as names."""
        count: dict[tuple[str, str], int] = {}
        dumbbell = isinstance(self.topology, Dumbbell)
        senders = {h.name: i for i, h in enumerate(self.topology.senders)} if isinstance(self.topology, Dumbbell) else {}
        receivers = {h.name: i for i, h in enumerate(self.topology.receivers)} if isinstance(self.topology, Dumbbell) else {}
        for g, group in enumerate(groups):
            reverse = self.is_reverse(group)
            src_index, dst_index = (receivers, senders) if reverse else (senders, receivers)
            for src, dst in group_pairs(group):
                k = count.get((src, dst), 0)
                count[(src, dst)] = k + group.per_pair
                ends: tuple[int | str, int | str] = (src_index[src], dst_index[dst]) if dumbbell else (src, dst)
                yield g, f"{src}-{dst}.{suffix}", *ends, reverse, k, group.per_pair

    def _expand(self, groups: Sequence[FlowGroup | UdpGroup], suffix: str) -> Iterator[ExpandedFlow]:
        """Every flow of ``groups`` in engine order (``_runs``)."""
        for g, prefix, src, dst, reverse, first, n in self._runs(groups, suffix):
            for k in range(first, first + n):
                yield ExpandedFlow(f"{prefix}{k}", g, src, dst, reverse)

    def expand_flows(self) -> list[ExpandedFlow]:
        """All flows in engine order: group order, then src, then dst (as listed), then index."""
        return list(self._expand(self.flows, ""))

    def expand_udp(self) -> list[ExpandedFlow]:
        """All UDP flows in engine order, as :meth:`expand_flows`."""
        return list(self._expand(self.udp, "udp"))

    def _arrival_spec(self, i: int, group: ArrivalGroup) -> dict[str, Any]:
        reverse = self.is_reverse(group)  # type: ignore[arg-type]
        pairs: list[list[int | str]] = []
        if isinstance(self.topology, Dumbbell):
            senders = {h.name: k for k, h in enumerate(self.topology.senders)}
            receivers = {h.name: k for k, h in enumerate(self.topology.receivers)}
            src_index, dst_index = (receivers, senders) if reverse else (senders, receivers)
            pairs = [[src_index[a], dst_index[b]] for a, b in group_pairs(group)]  # type: ignore[arg-type]
        else:
            pairs = [[a, b] for a, b in group_pairs(group)]  # type: ignore[arg-type]
        return {
            "name": group.name or f"arrivals{i}",
            "pairs": pairs,
            "reverse": reverse,
            "cc": group.cc.engine_spec(),
            "tcp": self.tcp_for(group).engine_spec(),  # type: ignore[arg-type]
            "load": group.load,
            **({"overload": True} if group.overload else {}),
            "link": self.arrival_link(group),
            "sizes": group.sizes.engine_spec(),
            "start": group.start,
            "stop": group.stop,
            "dscp": group.dscp,
            "port": group.port,
        }

    def _flow_template(self, group: FlowGroup) -> dict[str, Any]:
        """What every flow of ``group`` has in the engine spec but its name and ends."""
        return {
            "cc": group.cc.engine_spec(),
            "tcp": self.tcp_for(group).engine_spec(),
            "start": group.start.engine_spec(),
            "stop": group.stop,
            "dscp": group.dscp,
            "port": group.port,
            **({"size": group.size} if group.size is not None else {}),
            **({"app_rate": group.app_rate} if group.app_rate is not None else {}),
            **({"abort": group.abort} if group.abort is not None else {}),
            **({"on_off": group.on_off.engine_spec()} if group.on_off is not None else {}),
            **({"milestones": True} if group.milestones else {}),
        }

    def to_engine_spec(self, arrivals: bool = True, compact: bool = False) -> dict[str, Any]:
        """The engine spec (docs/design.md "Engine interface"): JSON-ready, SI integers.
        ``compact``: the flows as ``flow_groups`` (each group's settings once) and
        ``flow_runs`` ([prefix, first, count, src, dst, reverse, group], one per pair of a group:
        ``count`` flows named ``<prefix><first>``, ...; a listed flow's is [name, None, 1, ...]) instead of ``flows`` (the engine expands
        them, in the same order): what runs, validation and store keys use, as
        a run of many flows would otherwise spell every flow's settings out."""
        templates = [self._flow_template(g) for g in self.flows]
        flows: list[dict[str, Any]] = []
        runs: list[list[Any]] = []
        if compact:
            # one list per pair of a group (90,000 flows of 9 pairs: 9 lists)
            runs.extend([prefix, first, n, src, dst, reverse, g] for g, prefix, src, dst, reverse, first, n in self._runs(self.flows, ""))
        else:
            for flow in self.expand_flows():
                flows.append({"name": flow.name, "src": flow.src, "dst": flow.dst, "reverse": flow.reverse, **templates[flow.group]})
        udp: list[dict[str, Any]] = []
        for u in self._expand(self.udp, "udp"):
            group = self.udp[u.group]
            udp.append(
                {
                    "name": u.name,
                    "src": u.src,
                    "dst": u.dst,
                    "reverse": u.reverse,
                    "rate": group.rate,
                    "packet_size": group.packet_size,
                    "start": group.start,
                    "stop": group.stop,
                    "ecn": group.ecn,
                    **({"ect1": True} if group.ect1 else {}),
                    "dscp": group.dscp,
                    "port": group.port,
                }
            )
        spec: dict[str, Any] = {
            "seed": self.seed,
            "duration": self.duration,
            "warmup": self.warmup,
            "sample_interval": self.sample_interval,
            "cwnd_trace": self.cwnd_trace,
            "goodput_interval": self.goodput_interval,
            "series_queue": {"bottleneck": "forward"}.get(self.series_queue, self.series_queue) if isinstance(self.topology, Dumbbell) else self.series_queue,
            "limits": self.limits.engine_spec(),
            "tie_break": self.tie_break,
            "topology": self.topology.engine_spec(),
            "flows": flows,
            "udp": udp,
        }
        for i, g in enumerate(self.arrivals):
            if isinstance(g, ArrivalList):
                listed = self._listed_specs(i, g)
                if compact:
                    for f in listed:
                        runs.append([f.pop("name"), None, 1, f.pop("src"), f.pop("dst"), f.pop("reverse"), len(templates)])
                        templates.append(f)
                else:
                    spec["flows"] += listed
        if compact and runs:
            spec["flow_groups"] = templates
            spec["flow_runs"] = runs
        if arrivals and any(isinstance(g, ArrivalGroup) for g in self.arrivals):
            spec["arrivals"] = [self._arrival_spec(i, g) for i, g in enumerate(self.arrivals) if isinstance(g, ArrivalGroup)]
        if self.pcap is not None:
            spec["pcap"] = {"links": self.pcap.links, "hosts": self.pcap.hosts, "snaplen": self.pcap.snaplen, "max_bytes": self.pcap.max_bytes}
        return spec


def read_toml(source: str | Path, text_label: str) -> tuple[str, str, dict[str, Any]]:
    """A study file's (label, text, data): ``source`` is a ``Path``, a ``str`` ending in
    ``.toml`` (a path) or TOML text (labelled ``text_label``). The one reader of study files
    (scenarios and studies alike): ScenarioError for bytes that are not UTF-8, invalid TOML,
    nesting deeper than the TOML reader follows and integers too long to read; OSError if the
    file cannot be read."""
    if isinstance(source, Path) or ("\n" not in source and source.strip().endswith(".toml")):
        label = str(source)
        raw = Path(source).read_bytes()
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
            problem = f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at line {line}, column {column}; save the file as UTF-8"
            raise ScenarioError([("", problem)], label) from None
    else:
        label, text = text_label, source
    try:
        return label, text, tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError([("", f"invalid TOML: {exc}")], label) from None
    except (RecursionError, ValueError) as exc:
        raise ScenarioError([("", f"invalid TOML: {toml_refusal(exc)}")], label) from None
