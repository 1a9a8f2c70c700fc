"""Topologies: the dumbbell (its links with per-direction overrides, its hosts), any graph of
hosts, routers and full-duplex links with its routing, and the presets the engine declares
(parking lot, leaf-spine, fat-tree); each lowered to its engine spec."""

from __future__ import annotations

import difflib
import functools
import json
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, Union

from pydantic import (
    BaseModel,
    BeforeValidator,
    Discriminator,
    Field,
    Tag,
    model_validator,
)

from crosslayer.catalog import catalog, engine
from crosslayer.scenario.algorithms import _QDISC, AlgorithmConfig, DcfConfig, QdiscConfig, _algorithm_model, _by_kind, _tag_by
from crosslayer.scenario.errors import _TAG, Loc, _error, _Model, _raise_problems
from crosslayer.scenario.fields import Delay, Duration, Flag, Loss, NodeList, NodeName, Rate, read_parsed
from crosslayer.units import (
    format_duration,
    show,
)

# -- links and hosts --------------------------------------------------------------------------


class LossModel(_Model):
    """A loss process on the wire (``crates/.../net/impair.rs``): ``{ kind = "gilbert_elliott",
    p = 0.01, r = 0.3 }`` (netem's p, r, and the loss probabilities ``bad_loss`` = 1-h, default 1,
    and ``good_loss`` = 1-k, default 0), ``{ kind = "periodic", every = 100 }`` or ``{ kind =
    "ber", ber = 1e-6 }``."""

    kind: Literal["gilbert_elliott", "periodic", "ber"]
    p: float | None = None
    r: float | None = None
    bad_loss: float = 1.0
    good_loss: float = 0.0
    every: int | None = None
    ber: float | None = None

    @model_validator(mode="after")
    def _valid(self) -> LossModel:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        if self.kind == "gilbert_elliott":
            for name in ("p", "r", "bad_loss", "good_loss"):
                v = getattr(self, name)
                if v is None:
                    out.append(((name,), "a gilbert_elliott model needs p and r (probabilities)"))
                elif not 0 <= v <= 1:
                    out.append(((name,), f"a probability in [0, 1] (got {v})"))
            if not out and self.p and self.r == 0:
                out.append((("r",), "with r = 0 the bad state never ends: give r > 0"))
        elif self.kind == "periodic" and (self.every is None or self.every < 1):
            out.append((("every",), "a periodic model loses every n-th packet: give every >= 1"))
        elif self.kind == "ber" and (self.ber is None or not 0 <= self.ber < 1):
            out.append((("ber",), f"a bit-error rate in [0, 1) (got {self.ber})"))
        return out

    def engine_spec(self) -> dict[str, Any]:
        if self.kind == "gilbert_elliott":
            return {"kind": self.kind, "p": self.p, "r": self.r, "bad_loss": self.bad_loss, "good_loss": self.good_loss}
        return {"kind": self.kind, "every": self.every} if self.kind == "periodic" else {"kind": self.kind, "ber": self.ber}


class Step(_Model):
    """From ``at`` on, the link's ``rate`` and/or ``delay``."""

    at: Duration
    rate: Rate | None = None
    delay: Delay | None = None


class LinkTrace(_Model):
    """A trace-driven link: ``{ file = "cell.down", repeat = true }`` (or just the file name), a
    trace in mahimahi's format (one delivery opportunity of 1504 bytes per line, its time in
    integer milliseconds, non-decreasing), replayed in a loop of the last time's period unless
    ``repeat = false``."""

    file: str
    """The trace file (relative to the working directory)."""
    repeat: bool = True

    @model_validator(mode="after")
    def _valid(self) -> LinkTrace:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        try:
            self.opportunities()
        except OSError as exc:
            return [(("file",), f"cannot read {show(self.file)}: {exc.strerror or exc}")]
        except ValueError as exc:
            return [(("file",), str(exc))]
        return []

    def opportunities(self) -> list[int]:
        """The trace's opportunities, ms (read again only if the file changed)."""
        return read_parsed(self.file, parse_trace)  # type: ignore[no-any-return]

    def engine_spec(self) -> dict[str, Any]:
        return {"opportunities_ms": self.opportunities(), "repeat": self.repeat}


MAX_TRACE_LINES: Final = 50_000_000


def parse_trace(text: str, file: str) -> list[int]:
    """A mahimahi trace's lines as milliseconds; a bad line named by its number."""
    out: list[int] = []
    for n, line in enumerate(text.splitlines(), start=1):
        line = line.strip()
        if not line.isdigit():
            raise ValueError(f"{file} line {n}: {show(line)} is not a time in whole milliseconds (one delivery opportunity per line)")
        ms = int(line)
        if out and ms < out[-1]:
            raise ValueError(f"{file} line {n}: {ms} ms comes before the line before it ({out[-1]} ms): times must not decrease")
        out.append(ms)
        if len(out) > MAX_TRACE_LINES:
            raise ValueError(f"{file}: more than {MAX_TRACE_LINES:,} lines")
    if not out:
        raise ValueError(f"{file}: no line (one delivery opportunity per line, in ms)")
    if out[-1] == 0:
        raise ValueError(f"{file}: the last time must be after 0 ms (it is the trace's period)")
    if out[-1] > 1_000_000_000:
        raise ValueError(f"{file}: times at most 1,000,000,000 ms")
    return out


def _trace_form(value: Any) -> Any:
    return {"file": value} if isinstance(value, str) else value


class _Impaired(_Model):
    """Impairments of a link direction beyond ``loss`` and ``jitter`` (none by default)."""

    loss_model: LossModel | None = None
    """A loss process on the wire (Gilbert-Elliott, periodic, bit errors), on top of ``loss``."""
    jitter_dist: Literal["uniform", "normal", "pareto", "paretonormal"] | None = None
    """The distribution ``jitter`` scales: uniform in [0, jitter] (default), half-normal, or
    netem's pareto and paretonormal (delay + jitter x X, X of mean about 0)."""
    reorder: bool | None = None
    """Jitter may reorder packets (netem without a rate); by default a packet never overtakes."""
    duplicate: Annotated[float, Field(ge=0, le=1)] | None = None
    """Probability that the link sends a packet twice (netem ``duplicate``)."""
    trace: Annotated[LinkTrace, BeforeValidator(_trace_form)] | None = None
    """Delivery opportunities from a mahimahi trace instead of the rate."""
    outages: list[tuple[Duration, Duration]] | None = None
    """Times [from, to) the link is down: packets wait in its queue (which drops what overflows)."""
    schedule: list[Step] | None = None
    """Rate and/or delay changes at given times (piecewise constant)."""
    ecn_bleach: bool | None = None
    """A middlebox zeroes the IP-ECN field of every packet the link sends (ECT and CE become
    Not-ECT): after an AQM its CE marks are lost, before one the AQM drops instead of marking."""
    clear_ae: bool | None = None
    """A middlebox clears the TCP AE flag of every packet the link sends: an AccECN SYN arrives as
    an RFC 3168 one (the connection falls back to classic ECN), an ACK's ACE field loses its top bit."""

    def _impair_checks(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        for i, (a, b) in enumerate(self.outages or []):
            if b <= a:
                out.append((("outages", i), f"ends before it starts ({show(format_duration(b))} <= {show(format_duration(a))}): give [from, to] with from < to"))
            elif i and a < (self.outages or [])[i - 1][1]:
                out.append((("outages", i), "overlaps the outage before it: list outages in time order, apart"))
        steps = self.schedule or []
        for i, step in enumerate(steps):
            if i and step.at <= steps[i - 1].at:
                out.append((("schedule", i), "at the same time as or before the step before it: list steps in time order, one per time"))
            if step.rate is None and step.delay is None:
                out.append((("schedule", i), "changes nothing: give rate and/or delay"))
        return out

    @model_validator(mode="after")
    def _impair_valid(self) -> _Impaired:
        _raise_problems(self._impair_checks())
        return self


def _impair_spec(*layers: _Impaired | None) -> dict[str, Any]:
    """The engine's ``impair`` of a link direction: each field from the last layer that sets it."""
    out: dict[str, Any] = {}
    for layer in layers:
        if layer is None:
            continue
        if layer.loss_model is not None:
            out["loss_model"] = layer.loss_model.engine_spec()
        if layer.jitter_dist is not None:
            out["jitter_dist"] = {"paretonormal": "pareto_normal"}.get(layer.jitter_dist, layer.jitter_dist)
        if layer.reorder is not None:
            out["reorder"] = layer.reorder
        if layer.duplicate is not None:
            out["duplicate"] = layer.duplicate
        if layer.trace is not None:
            out["trace"] = layer.trace.engine_spec()
        if layer.outages is not None:
            out["outages"] = [{"from": a, "to": b} for a, b in layer.outages]
        if layer.schedule is not None:
            out["schedule"] = [{"at": s.at, "rate": s.rate, "delay": s.delay} for s in layer.schedule]
        if layer.ecn_bleach is not None:
            out["ecn_bleach"] = layer.ecn_bleach
        if layer.clear_ae is not None:
            out["clear_ae"] = layer.clear_ae
    return out


class LinkOverride(_Impaired):
    """Per-direction overrides of a link; unset fields keep the edge's value."""

    rate: Rate | None = None
    delay: Delay | None = None
    loss: Loss | None = None
    jitter: Delay | None = None
    qdisc: QdiscConfig | None = None


def _edge_spec(
    rate: int, delay: int, loss: float, jitter: int, qdisc: AlgorithmConfig, override: LinkOverride | None, base: _Impaired | None = None
) -> dict[str, Any]:
    """One simplex link of the engine spec; ``override`` fields win over the arguments (and over
    ``base``'s impairments)."""
    o = override or LinkOverride()
    spec = {
        "rate": rate if o.rate is None else o.rate,
        "delay": delay if o.delay is None else o.delay,
        "loss": loss if o.loss is None else o.loss,
        "jitter": jitter if o.jitter is None else o.jitter,
        "qdisc": (qdisc if o.qdisc is None else o.qdisc).engine_spec(),
    }
    impair = _impair_spec(base, override)
    if impair:
        spec["impair"] = impair
    return spec


class Bottleneck(_Impaired):
    """The A -> B link (data direction): the queue under study."""

    rate: Rate
    delay: Delay
    """One-way propagation delay."""
    loss: Loss = 0.0
    """Random loss probability after serialization."""
    jitter: Delay = 0
    """Extra delay per packet, uniform in [0, jitter], order-preserving (breaks phase effects)."""
    qdisc: QdiscConfig


class Host(_Impaired):
    """A sender (attached to router A) or receiver (attached to router B).

    ``rate``, ``delay``, ``loss`` and ``qdisc`` apply to both directions of the access edge;
    ``up`` (host -> router) and ``down`` (router -> host) override them per direction.
    """

    name: NodeName
    rate: Rate
    delay: Delay
    """One-way propagation delay host <-> router."""
    loss: Loss = 0.0
    jitter: Delay = 0
    """Extra delay per packet on both directions, uniform in [0, jitter], order-preserving."""
    qdisc: QdiscConfig | None = None
    """Egress queue of both directions; default: topology.default_qdisc."""
    up: LinkOverride | None = None
    down: LinkOverride | None = None

    def engine_spec(self, default_qdisc: AlgorithmConfig) -> dict[str, Any]:
        qdisc = self.qdisc or default_qdisc
        return {
            "name": self.name,
            "up": _edge_spec(self.rate, self.delay, self.loss, self.jitter, qdisc, self.up, self),
            "down": _edge_spec(self.rate, self.delay, self.loss, self.jitter, qdisc, self.down, self),
        }


_ROUTERS: Final = ("A", "B")


class Dumbbell(_Model):
    """Senders -- A == bottleneck == B -- receivers."""

    kind: Literal["dumbbell"] = "dumbbell"
    bottleneck: Bottleneck
    reverse: LinkOverride | None = None
    """The B -> A link (ACKs). Default: the bottleneck's rate and delay, no loss, default_qdisc."""
    default_qdisc: QdiscConfig = _QDISC.validate_python({"kind": "droptail", "limit_pkts": 1000})
    """Egress queue of every link that sets none (like Linux net.core.default_qdisc; 1000 packets
    is Linux's default txqueuelen), i.e. all access links and the reverse link."""
    senders: list[Host]
    receivers: list[Host]

    @model_validator(mode="after")
    def _check_nodes(self) -> Dumbbell:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        problems: list[tuple[Loc, str]] = []
        for role in ("senders", "receivers"):
            if not getattr(self, role):
                problems.append(
                    ((role,), 'needs at least one host, e.g. [{ name = "N1", rate = "100Mbps", delay = "1ms" }]')
                )
        seen: set[str] = set()
        for role in ("senders", "receivers"):
            for i, host in enumerate(getattr(self, role)):
                if host.name in _ROUTERS:
                    problems.append(((role, i, "name"), f"{show(host.name)} is reserved for a router (A, B)"))
                elif host.name in seen:
                    problems.append(
                        ((role, i, "name"), f"duplicate node name {show(host.name)}; node names must be unique")
                    )
                seen.add(host.name)
        return problems

    def engine_spec(self) -> dict[str, Any]:
        b = self.bottleneck
        return {
            "kind": self.kind,
            "forward": _edge_spec(b.rate, b.delay, b.loss, b.jitter, b.qdisc, None, b),
            "reverse": _edge_spec(b.rate, b.delay, 0.0, 0, self.default_qdisc, self.reverse),
            "senders": [h.engine_spec(self.default_qdisc) for h in self.senders],
            "receivers": [h.engine_spec(self.default_qdisc) for h in self.receivers],
        }


# -- graphs -----------------------------------------------------------------------------------


class GraphLink(_Impaired):
    """A full-duplex link between two nodes: ``between[0] -> between[1]`` (``forward``) and back
    (``backward``), each direction with the link's values unless overridden."""

    between: tuple[NodeName, NodeName]
    rate: Rate
    delay: Delay
    """One-way propagation delay."""
    loss: Loss = 0.0
    jitter: Delay = 0
    qdisc: QdiscConfig | None = None
    """Egress queue of both directions; default: topology.default_qdisc."""
    forward: LinkOverride | None = None
    """Overrides of the direction between[0] -> between[1]."""
    backward: LinkOverride | None = None
    """Overrides of the direction between[1] -> between[0]."""

    def names(self) -> tuple[str, str]:
        """Its two simplex links' names, ``a->b`` and ``b->a``."""
        a, b = self.between
        return f"{a}->{b}", f"{b}->{a}"


class RouteOverride(_Model):
    """At router ``at``, packets for the hosts ``to`` leave towards the neighbour ``via``."""

    at: NodeName
    to: NodeList
    via: NodeName


class Routing(_Model):
    """Static routes: shortest paths by ``metric``, ECMP over equal-cost next hops (a seeded hash
    of each flow picks one: one flow, one path), and per-destination ``overrides``."""

    metric: Literal["hops", "delay"] = "hops"
    """What a shortest path minimizes: the number of links, or the sum of their delays (ties by hops)."""
    ecmp: Flag = False
    """Spread flows over equal-cost paths (off: the first link declared among them)."""
    overrides: list[RouteOverride] = []

    def engine_spec(self) -> dict[str, Any]:
        return {"metric": self.metric, "ecmp": self.ecmp, "overrides": [o.model_dump() for o in self.overrides]}


def _graph_link_problems(names: dict[str, bool], links: list[GraphLink]) -> list[tuple[Loc, str]]:
    """Unknown nodes, links to themselves and duplicate links (``names``: node -> is a host)."""
    out: list[tuple[Loc, str]] = []
    known = ", ".join(names) if len(names) <= 12 else ", ".join(list(names)[:12]) + ", ..."
    pairs: dict[frozenset[str], int] = {}
    for i, link in enumerate(links):
        a, b = link.between
        for j, node in enumerate((a, b)):
            if node not in names:
                close = difflib.get_close_matches(node, list(names), n=1)
                hint = f" (did you mean {show(close[0])}?)" if close else ""
                out.append((("links", i, "between", j), f"unknown node {show(node)}{hint}; nodes are: {known}"))
        if a == b:
            out.append((("links", i, "between"), f"a link from {show(a)} to itself: a link joins two different nodes"))
        key = frozenset((a, b))
        if key in pairs and a != b:
            out.append((("links", i, "between"), f"duplicate link between {show(a)} and {show(b)} (links[{pairs[key]}] joins them already): a link is full-duplex; set forward/backward for per-direction values"))
        pairs.setdefault(key, i)
    return out


def _routing_problems(names: dict[str, bool], neighbours: set[tuple[str, str]], routing: Routing) -> list[tuple[Loc, str]]:
    out: list[tuple[Loc, str]] = []
    for i, o in enumerate(routing.overrides):
        loc: Loc = ("routing", "overrides", i)
        for field in ("at", "via"):
            node = getattr(o, field)
            if node not in names:
                out.append(((*loc, field), f"unknown node {show(node)}"))
        if names.get(o.at):
            out.append(((*loc, "at"), f"{show(o.at)} is a host: hosts do not forward; an override is for a router"))
        if o.at in names and o.via in names and (o.at, o.via) not in neighbours:
            out.append(((*loc, "via"), f"{show(o.via)} is not a neighbour of {show(o.at)}: no link joins them"))
        if names.get(o.via) and any(t != o.via for t in o.to):
            out.append(((*loc, "via"), f"{show(o.via)} is a host: it can be the next hop only of packets for itself (a host is not a router)"))
        for j, t in enumerate(o.to):
            if t not in names:
                out.append(((*loc, "to", j), f"unknown host {show(t)}"))
            elif not names[t]:
                out.append(((*loc, "to", j), f"{show(t)} is a router: routes lead to hosts"))
    return out


class Wlan(_Model):
    """A wireless LAN: the access point ``ap`` and its ``stations`` share one IEEE 802.11 medium
    (DCF, CSMA/CA; ``docs/models/wlan.md``). Each station gets its links ``station -> ap`` (its
    uplink) and ``ap -> station`` (the access point's queue for it), sent when the medium lets
    their member: the access point serves its stations' queues in turn, each station its own."""

    ap: NodeName
    """The access point (a router, or a host that is the end of the stations' flows)."""
    stations: NodeList
    delay: Delay | list[Delay] = 0
    """One-way delay added to each station's frames in both directions, after the medium (ns-2's
    link-layer delay): one for all stations, or one per station."""
    qdisc: QdiscConfig | None = None
    """Queue of each station's uplink; default: topology.default_qdisc."""
    ap_qdisc: QdiscConfig | None = None
    """Queue of each of the access point's links to its stations (one per station, served in
    turn); default: ``qdisc``."""
    dcf: DcfConfig = DcfConfig()
    """The medium's DCF and PHY: rate, basic_rate, slot, sifs, cw_min, cw_max, retry_limit, ...
    (the catalog's ``wlan`` section, ``docs/models/wlan.md``; defaults 802.11g at 54 Mb/s)."""

    @model_validator(mode="after")
    def _check_wlan(self) -> Wlan:
        problems: list[tuple[Loc, str]] = [(("dcf", *loc), msg) for loc, msg in self.dcf.problems()]
        if not self.stations:
            problems.append((("stations",), 'needs at least one station, e.g. ["N1", "N2"]'))
        if isinstance(self.delay, list) and len(self.delay) != len(self.stations):
            problems.append((("delay",), f"one delay per station: {len(self.stations)} stations, {len(self.delay)} delays (or one delay for all)"))
        _raise_problems(problems)
        return self

    def delays(self) -> list[int]:
        """Each station's delay."""
        return list(self.delay) if isinstance(self.delay, list) else [self.delay] * len(self.stations)

    def link_names(self) -> list[str]:
        """Its simplex links: each station's uplink, then its downlink."""
        return [n for st in self.stations for n in (f"{st}->{self.ap}", f"{self.ap}->{st}")]


def _wlan_problems(names: dict[str, bool], links: list[GraphLink], wlans: list[Wlan]) -> list[tuple[Loc, str]]:
    """Unknown nodes, nodes in two LANs, and stations a wired link joins to their access point."""
    out: list[tuple[Loc, str]] = []
    wired = {frozenset(link.between) for link in links}
    seen: set[str] = set()
    for i, w in enumerate(wlans):
        for loc, node in [(("wlans", i, "ap"), w.ap), *((("wlans", i, "stations", j), st) for j, st in enumerate(w.stations))]:
            if node not in names:
                close = difflib.get_close_matches(node, list(names), n=1)
                hint = f" (did you mean {show(close[0])}?)" if close else ""
                out.append((loc, f"unknown node {show(node)}{hint}"))
            elif node in seen:
                out.append((loc, f"{show(node)} is already in a wireless LAN: a node joins one medium, once"))
            seen.add(node)
        for j, st in enumerate(w.stations):
            if st == w.ap:
                out.append((("wlans", i, "stations", j), f"{show(st)} is the access point: a station is another node"))
            elif frozenset((st, w.ap)) in wired:
                out.append((("wlans", i, "stations", j), f"a wired link joins {show(st)} and {show(w.ap)} already: remove it from links (the LAN makes the station's links)"))
    return out


class Graph(_Model):
    """Any network: hosts (ends of flows, never transit), routers and full-duplex links.

    Each link direction has its own queue; every queue is measured (``queues``), any can be
    sampled (``series_queue``) or captured (``[pcap]``).
    """

    kind: Literal["graph"] = "graph"
    hosts: list[NodeName]
    routers: list[NodeName] = []
    links: list[GraphLink]
    default_qdisc: QdiscConfig = _QDISC.validate_python({"kind": "droptail", "limit_pkts": 1000})
    """Egress queue of every link that sets none (1000 packets: Linux's default txqueuelen)."""
    routing: Routing = Routing()
    wlans: list[Wlan] = []
    """Wireless LANs: access points and stations sharing an 802.11 medium (each station's links
    to and from its access point are the LAN's)."""
    bottleneck: str | None = None
    """The link the headline metrics (utilization, queue, drop ratio) describe, e.g. "R1->R2";
    default: the link most flows have as their bottleneck (the slowest link on their path
    between routers or into or out of a wireless LAN's medium), or a wireless LAN's queue when
    its medium was busier
    (docs/models/wlan.md)."""

    @model_validator(mode="after")
    def _check_graph(self) -> Graph:
        _raise_problems(self._checks())
        return self

    def node_kinds(self) -> dict[str, bool]:
        """Node name -> is a host."""
        return {**{r: False for r in self.routers}, **{h: True for h in self.hosts}}

    def _checks(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        if not self.hosts:
            out.append((("hosts",), 'needs at least two hosts, e.g. ["S1", "D1"]: flows run between hosts'))
        seen: dict[str, str] = {}
        for field in ("hosts", "routers"):
            for i, name in enumerate(getattr(self, field)):
                if name in seen:
                    out.append(((field, i), f"duplicate node name {show(name)} (also one of the {seen[name]}); node names must be unique"))
                seen.setdefault(name, field)
        names = self.node_kinds()
        out += _graph_link_problems(names, self.links)
        out += _wlan_problems(names, self.links, self.wlans)
        neighbours = {p for link in self.links for p in (tuple(link.between), tuple(reversed(link.between)))}
        neighbours |= {p for w in self.wlans for st in w.stations for p in ((st, w.ap), (w.ap, st))}
        out += _routing_problems(names, neighbours, self.routing)
        links = self.link_names()
        if self.bottleneck is not None and self.bottleneck not in links:
            example = show(links[0] if links else "R1->R2")
            out.append((("bottleneck",), f"no link {show(self.bottleneck)}: a link is named <from>-><to>, e.g. {example}"))
        return out

    def link_names(self) -> list[str]:
        """Its simplex links as the engine names them: each link's two directions in order, then
        the wireless LANs' (each station's uplink and downlink)."""
        return [n for link in self.links for n in link.names()] + [n for w in self.wlans for n in w.link_names()]

    def engine_spec(self) -> dict[str, Any]:
        nodes = [{"name": h, "host": True} for h in self.hosts] + [{"name": r, "host": False} for r in self.routers]
        links = []
        for link in self.links:
            qdisc = link.qdisc or self.default_qdisc
            a, b = link.between
            for (src, dst), override in (((a, b), link.forward), ((b, a), link.backward)):
                edge = _edge_spec(link.rate, link.delay, link.loss, link.jitter, qdisc, override, link)
                links.append({"from": src, "to": dst, "edge": edge})
        wlans = []
        for w in self.wlans:
            dcf = w.dcf.engine_spec()
            up = w.qdisc or self.default_qdisc
            down = (w.ap_qdisc or up).engine_spec()
            for st, delay in zip(w.stations, w.delays(), strict=True):
                edge = {"rate": dcf["rate"], "delay": delay, "loss": 0.0, "jitter": 0}
                links += [{"from": st, "to": w.ap, "edge": {**edge, "qdisc": up.engine_spec()}}, {"from": w.ap, "to": st, "edge": {**edge, "qdisc": down}}]
            wlans.append({"ap": w.ap, "stations": list(w.stations), "dcf": dcf})
        spec: dict[str, Any] = {"kind": "graph", "nodes": nodes, "links": links, "routing": self.routing.engine_spec()}
        if wlans:
            spec["wlans"] = wlans
        return spec


# -- presets ----------------------------------------------------------------------------------


class PresetTopology(AlgorithmConfig):
    """A topology preset (``crosslayer list topologies``): parameters the engine declares, its
    routing (default: the preset's own, ECMP in the fabrics) and the headline link."""

    routing: Routing | None = None
    """Replaces the preset's routing (shortest paths by hop count; ECMP in leaf-spine and fat-tree)."""
    bottleneck: str | None = None
    """The link the headline metrics describe (default: the link most flows have as their bottleneck)."""

    def engine_spec(self) -> dict[str, Any]:
        spec = super().engine_spec()
        if self.routing is not None:
            spec["routing"] = self.routing.engine_spec()
        return spec


_PRESET_NAMES: Final = {n: a.name for a in catalog().topology.values() for n in a.names}
TOPOLOGY_KINDS: Final = ("dumbbell", "graph", *catalog().topology)


@functools.cache
def _preset(name: str) -> type[AlgorithmConfig]:
    """The model of the preset ``name``, built when a scenario first uses it."""
    return _algorithm_model(catalog().topology[name], PresetTopology)


def _normalize_topology(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value
    if not isinstance(value, Mapping):
        raise _error("topology_form", f'must be a table with a kind: {", ".join(TOPOLOGY_KINDS)} (got {show(value)})')
    kind = value.get("kind", "dumbbell")
    if not isinstance(kind, str) or (kind.lower() not in ("dumbbell", "graph") and kind.lower() not in _PRESET_NAMES):
        known = list(TOPOLOGY_KINDS)
        close = difflib.get_close_matches(str(kind).lower(), known, n=1)
        hint = f' (did you mean "{close[0]}"?)' if close else ""
        raise _error("unknown_kind", f"unknown topology {show(kind)}{hint}; known: {', '.join(known)}")
    kind = kind.lower()
    return {**value, "kind": _PRESET_NAMES.get(kind, kind)}


def _topology_tag(value: Mapping[str, Any]) -> str:
    """The union member of a topology: dumbbell, graph, or the presets' (one member validates
    every preset, with the model of its kind, so only the presets in use are built)."""
    kind = value.get("kind", "dumbbell")
    return "preset" if isinstance(kind, str) and kind in catalog().topology else kind


Topology = Annotated[
    Union[  # noqa: UP007 (a tagged union)
        Annotated[Dumbbell, Tag(_TAG + "dumbbell")],
        Annotated[Graph, Tag(_TAG + "graph")],
        # the kind is a preset's name already (_normalize_topology)
        Annotated[_by_kind(PresetTopology, {n: n for n in catalog().topology}, _preset, lambda v: v), Tag(_TAG + "preset")],
    ],
    Discriminator(_tag_by(_topology_tag)),
    BeforeValidator(_normalize_topology),
]
"""A topology: a dumbbell (``kind`` may be left out), a graph, or a preset by name."""


def expand(topology: Dumbbell | Graph | PresetTopology) -> dict[str, Any]:
    """The graph the engine builds from ``topology``: ``nodes`` (name, host) and ``links``
    (from, to, edge, role) in the engine's order."""
    raw = json.loads(engine().expand_topology(json.dumps(topology.engine_spec())))
    if "problems" in raw:  # validation ran before: a preset's problems were reported then
        raise ValueError("; ".join(f"{f}: {m}" for f, m in raw["problems"]))
    return dict(raw)
