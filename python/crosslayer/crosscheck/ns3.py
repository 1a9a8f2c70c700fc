"""A crosslayer scenario translated into an ns-3 3.44 program (`crosslayer crosscheck --with ns3`).

The translation reads the engine's own description of the run (``Scenario.to_engine_spec()``)
and one crosslayer run of it (its flows' names, hosts and drawn start times, so that both
simulators start every flow at the same instant), and writes a description that
``ns3_program.py`` builds in ns-3. Every element is mapped by name with its parameters
translated (the tables below, listed in docs/crosscheck.md); an element ns-3 cannot express, or a
parameter this translation does not carry, is refused before anything runs
(:class:`Untranslatable` names each one).

crosslayer never imports ns-3: the program runs in the Python that has the PyPI ``ns3``
package (:func:`find_python`).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Final

from crosslayer.catalog import catalog
from crosslayer.crosscheck.translate import Translation, Untranslatable, run_times, _algorithm_params, _defaults, _halves, _show, flow_specs, series_link

NS3_VERSION: Final = "3.44"
SIMULATOR: Final = "ns-3"
SOCKET_BUFFER: Final = 32 * 1024 * 1024
"""ns-3's socket buffers (128 KiB by default) would limit the window; crosslayer has no such
limit unless ``[tcp] rwnd`` sets one."""

CC: Final[dict[str, str]] = {
    "reno": "ns3::TcpNewReno",
    "cubic": "ns3::TcpCubic",
    "bic": "ns3::TcpBic",
    "highspeed": "ns3::TcpHighSpeed",
    "htcp": "ns3::TcpHtcp",
    "hybla": "ns3::TcpHybla",
    "illinois": "ns3::TcpIllinois",
    "ledbat": "ns3::TcpLedbat",
    "lp": "ns3::TcpLp",
    "scalable": "ns3::TcpScalable",
    "vegas": "ns3::TcpVegas",
    "veno": "ns3::TcpVeno",
    "westwood": "ns3::TcpWestwoodPlus",
    "yeah": "ns3::TcpYeah",
    "bbr": "ns3::TcpBbr",
    "dctcp": "ns3::TcpDctcp",
}
"""crosslayer's congestion controls and the ns-3 3.44 TypeId each is compared with."""

CC_PARAMS: Final[dict[str, dict[str, str]]] = {
    "cubic": {"beta": "Beta", "c": "C", "fast_convergence": "FastConvergence"},
    "vegas": {"alpha": "Alpha", "beta": "Beta", "gamma": "Gamma"},
    "hybla": {"rtt0": "RRTT"},
    "scalable": {"ai_cnt": "AIFactor", "md_shift": "MDFactor"},
    "bic": {"beta": "Beta", "max_increment": "MaxIncr", "low_window": "LowWnd", "smooth_part": "SmoothPart", "fast_convergence": "FastConvergence"},
}
"""Congestion-control parameters translated to the ns-3 attribute of the same meaning (the others
must keep crosslayer's defaults). Set whatever their value, so that both simulators run the
scenario's where their defaults differ: Hybla's reference RTT is 25 ms in crosslayer (Linux's)
and 50 ms in ns-3 (`RRTT`); Scalable adds a segment every 100 acknowledged (Linux's
`TCP_SCALABLE_AI_CNT` since 4.x) where ns-3's `AIFactor` is 50 (Linux 2.6's); BIC's
`smooth_part` is 20 (Linux's) where ns-3's `SmoothPart` is 5."""

CC_PARAM_FORMAT: Final[dict[tuple[str, str], Callable[[Any], str]]] = {
    ("hybla", "rtt0"): lambda v: _time(v),
    ("scalable", "md_shift"): lambda v: repr(0.5 ** int(v)),
}
"""Translated parameters whose ns-3 form differs: a duration (nanoseconds in the spec, a Time in
ns-3), Scalable's decrease as a shift (crosslayer, Linux) or a factor (ns-3's MDFactor)."""


def _flag(v: Any) -> str:
    return "true" if v else "false"


def _time(ns: Any) -> str:
    return f"{int(ns)}ns"


def _pkts(q: Mapping[str, Any]) -> str:
    # ns-3's device queue holds one more packet while the link is busy (crosslayer's limit counts
    # every packet waiting): the queue disc gets one less, so that as many wait in both
    return f"{max(int(q['limit_pkts']) - 1, 1)}p"


def _fifo_size(q: Mapping[str, Any]) -> str:
    """DropTail's limit: in bytes when ``limit_bytes`` is set, else in packets."""
    return f"{int(q['limit_bytes'])}B" if q.get("limit_bytes") else _pkts(q)


# kind -> (ns-3 TypeId, {crosslayer parameter: (ns-3 attribute, translation)}, {parameter:
# values ns-3 can express, when not all}). Every parameter of the kind not in the map must keep
# its default (ns-3's behaviour stands in for it: named in the translation's notes).
_Attr = tuple[str, Callable[[Mapping[str, Any]], str]]
QDISCS: Final[dict[str, tuple[str, dict[str, _Attr], dict[str, tuple[Any, ...]]]]] = {
    "droptail": (
        "ns3::FifoQueueDisc",
        {"limit_pkts": ("MaxSize", lambda q: _fifo_size(q)), "limit_bytes": ("MaxSize", lambda q: _fifo_size(q))},
        {},
    ),
    "codel": (
        "ns3::CoDelQueueDisc",
        {
            "limit_pkts": ("MaxSize", _pkts),
            "target": ("Target", lambda q: _time(q["target"])),
            "interval": ("Interval", lambda q: _time(q["interval"])),
            "mtu": ("MinBytes", lambda q: str(int(q["mtu"]))),
            "ecn": ("UseEcn", lambda q: _flag(q["ecn"])),
        },
        {},
    ),
    "pie": (
        "ns3::PieQueueDisc",
        {
            "limit_pkts": ("MaxSize", _pkts),
            "target": ("QueueDelayReference", lambda q: _time(q["target"])),
            "tupdate": ("Tupdate", lambda q: _time(q["tupdate"])),
            "alpha": ("A", lambda q: repr(float(q["alpha"]))),
            "beta": ("B", lambda q: repr(float(q["beta"]))),
            "max_burst": ("MaxBurstAllowance", lambda q: _time(q["max_burst"])),
            "variant": ("UseDequeueRateEstimator", lambda q: _flag(q["variant"] == "rfc8033")),
            "derandomize": ("UseDerandomization", lambda q: _flag(q["derandomize"])),
            "ecn": ("UseEcn", lambda q: _flag(q["ecn"])),
            "ecn_threshold": ("MarkEcnThreshold", lambda q: repr(float(q["ecn_threshold"]))),
            "mean_pkt_size": ("MeanPktSize", lambda q: str(int(q["mean_pkt_size"]))),
            "dq_threshold": ("DequeueThreshold", lambda q: str(int(q["dq_threshold"]))),
        },
        {"bytemode": (False,)},
    ),
    "red": (
        "ns3::RedQueueDisc",
        {
            "limit_pkts": ("MaxSize", _pkts),
            "min_th": ("MinTh", lambda q: repr(float(q["min_th"]))),
            "max_th": ("MaxTh", lambda q: repr(float(q["max_th"]))),
            "w_q": ("QW", lambda q: repr(float(q["w_q"]))),
            "max_p": ("LInterm", lambda q: repr(1.0 / float(q["max_p"]))),
            "gentle": ("Gentle", lambda q: _flag(q["gentle"])),
            "spacing": ("Wait", lambda q: _flag(q["spacing"] == "wait")),
            "mean_pkt_size": ("MeanPktSize", lambda q: str(int(q["mean_pkt_size"]))),
            "ecn": ("UseEcn", lambda q: _flag(q["ecn"])),
            "harddrop": ("UseHardDrop", lambda q: _flag(q["harddrop"])),
        },
        {"spacing": ("wait", "paper"), "mode": ("packet",)},
    ),
    "fq_codel": (
        "ns3::FqCoDelQueueDisc",
        {
            "limit_pkts": ("MaxSize", _pkts),
            "flows": ("Flows", lambda q: str(int(q["flows"]))),
            "target": ("Target", lambda q: _time(q["target"])),
            "interval": ("Interval", lambda q: _time(q["interval"])),
            "ecn": ("UseEcn", lambda q: _flag(q["ecn"])),
            "drop_batch": ("DropBatchSize", lambda q: str(int(q["drop_batch"]))),
        },
        {},
    ),
}
"""crosslayer's queue disciplines and ns-3 3.44's."""

TCP: Final[dict[str, _Attr]] = {
    "mss": ("ns3::TcpSocket::SegmentSize", lambda t: str(int(t["mss"]))),
    "sack": ("ns3::TcpSocketBase::Sack", lambda t: _flag(t["sack"])),
    "timestamps": ("ns3::TcpSocketBase::Timestamp", lambda t: _flag(t["timestamps"])),
    "delayed_ack": ("ns3::TcpSocket::DelAckCount", lambda t: "2" if t["delayed_ack"] else "1"),
    "delack_timeout": ("ns3::TcpSocket::DelAckTimeout", lambda t: _time(t["delack_timeout"])),
    "initial_cwnd": ("ns3::TcpSocket::InitialCwnd", lambda t: str(int(t["initial_cwnd"]))),
    "initial_ssthresh": ("ns3::TcpSocket::InitialSlowStartThreshold", lambda t: str(int(t["initial_ssthresh"]) * int(t["mss"]))),
    "min_rto": ("ns3::TcpSocketBase::MinRto", lambda t: _time(t["min_rto"])),
    "rto_granularity": ("ns3::TcpSocketBase::ClockGranularity", lambda t: _time(t["rto_granularity"])),
    "syn_timeout": ("ns3::TcpSocket::ConnTimeout", lambda t: _time(t["syn_timeout"])),
    "syn_retries": ("ns3::TcpSocket::ConnCount", lambda t: str(int(t["syn_retries"]))),
    "data_retries": ("ns3::TcpSocket::DataRetries", lambda t: str(int(t["data_retries"]))),
    "ecn": ("ns3::TcpSocketBase::UseEcn", lambda t: "On" if t["ecn"] else "Off"),
    "rwnd": ("ns3::TcpSocket::RcvBufSize", lambda t: str(int(t["rwnd"]))),
}
"""``[tcp]`` options translated (crosslayer runs with ``profile = "ns3"``, whose defaults are
ns-3's, so an option left unset is ns-3's default on both sides)."""

TCP_IGNORED: Final = frozenset({"profile", "header_size", "ack_size", "syn_size", "handshake", "teardown", "fin_ack", "accecn_option", "accecn_safety"})
"""Options that do not need translating: the profile and the sizes of packets on the wire are the
``ns3`` profile's (ns-3's framing), a handshake and a teardown are what ns-3 does; AccECN's two
settings act only with AccECN feedback, which is refused (:func:`_tcp`)."""


CE_THRESHOLD: Final = ("ce_threshold", "ce_threshold_selector", "ce_threshold_mask")
"""CoDel's and FQ-CoDel's ``ce_threshold`` options, translated together (:func:`_ce_threshold`)."""


def _ce_threshold(q: Mapping[str, Any], kind: str, where: str, attributes: dict[str, str], problems: list[str], notes: set[str]) -> None:
    """Linux's ``ce_threshold`` as ns-3 3.44's CoDel (and FqCoDel, which passes both on to its
    CoDel queues) has it: ``CeThreshold`` marks an ECT packet whose sojourn is above it, only
    with ``UseEcn`` (Linux marks with or without ``ecn``); with ``UseL4s`` only ECT(1) and CE
    packets, which then skip CoDel's law (Linux applies the law to them as well)."""
    threshold = q.get("ce_threshold")
    selector, mask = int(q.get("ce_threshold_selector") or 0), int(q.get("ce_threshold_mask") or 0)
    if threshold is None:
        return  # off: ns-3's default CeThreshold (Time::Max()) is off too
    attributes["CeThreshold"] = _time(threshold)
    if (selector, mask) == (1, 1):
        attributes["UseL4s"] = "true"
        notes.add(f"{kind} ce_threshold_selector 0x1/0x1 as UseL4s: ns-3 exempts ECT(1) and CE packets from CoDel's law (Linux and crosslayer apply both; with a threshold below the target the law seldom reaches them)")
    elif (selector, mask) != (0, 0):
        problems.append(f"{where}: {kind} ce_threshold_selector = {selector:#x}/{mask:#x}: ns-3's CoDel selects every ECT packet (mask 0) or ECT(1) and CE (UseL4s, 0x1/0x1) only")
    elif not q.get("ecn"):
        problems.append(f"{where}: {kind} ce_threshold with ecn = false: ns-3's CoDel marks above CeThreshold only with UseEcn (Linux marks ECT packets either way): set ecn = true")


def _qdisc(q: Mapping[str, Any], where: str, problems: list[str], notes: set[str]) -> dict[str, Any]:
    kind = q["kind"]
    if kind not in QDISCS:
        problems.append(f"{where}: queue discipline {kind!r} has no ns-3 counterpart here (ns-3 has {', '.join(sorted(QDISCS))})")
        return {"type": "", "attributes": {}}
    type_id, mapped, allowed = QDISCS[kind]
    defaults = _defaults("aqm", kind)
    attributes: dict[str, str] = {}
    if "limit_pkts" in q and int(q["limit_pkts"]) < 2:
        problems.append(f"{where}: {kind} limit_pkts = {q['limit_pkts']}: ns-3's device queue holds one packet besides its queue disc, so the least it can hold is 2")
    if kind in ("codel", "fq_codel"):
        _ce_threshold(q, kind, where, attributes, problems, notes)
    for name, value in q.items():
        if name == "kind" or (name in CE_THRESHOLD and kind in ("codel", "fq_codel")):
            continue
        shown = _show(_algorithm_params("aqm", kind), name, value)
        if name in allowed and value not in allowed[name]:
            problems.append(f"{where}: {kind} {name} = {shown} has no ns-3 counterpart (ns-3 can: {', '.join(map(str, allowed[name]))})")
        elif name in mapped:
            attr, translate = mapped[name]
            attributes[attr] = translate(q)
        elif value != defaults.get(name):
            default = _show(_algorithm_params("aqm", kind), name, defaults.get(name))
            problems.append(f"{where}: {kind} {name} = {shown} is not translated to ns-3 (leave it at its default, {default})")
        else:
            notes.add(f"{kind} {name} (default {shown}): ns-3's own behaviour stands in for it")
    return {"type": type_id, "attributes": dict(sorted(attributes.items()))}


def _half(name: str, edge: Mapping[str, Any], problems: list[str], notes: set[str]) -> dict[str, Any]:
    for key in edge:
        if key not in ("rate", "delay", "loss", "jitter", "qdisc"):
            named = ", ".join(edge[key]) if key == "impair" and isinstance(edge[key], dict) else key
            problems.append(f"link {name}: {named} (impairments other than Bernoulli loss) has no ns-3 translation here")
    if edge.get("jitter"):
        problems.append(f"link {name}: jitter has no ns-3 translation here (a point-to-point channel has one delay)")
    return {"name": name, "rate_bps": int(edge["rate"]), "loss": float(edge.get("loss") or 0.0), "qdisc": _qdisc(edge["qdisc"], f"link {name}", problems, notes)}


def _links(halves: list[tuple[str, str, Mapping[str, Any]]], problems: list[str], notes: set[str]) -> list[dict[str, Any]]:
    """Directed links (from, to, edge) paired into ns-3's full-duplex point-to-point links."""
    by_pair = {(a, b): edge for a, b, edge in halves}
    out, done = [], set()
    for a, b, ab in halves:
        if frozenset((a, b)) in done:
            continue  # the link back came first
        done.add(frozenset((a, b)))
        ba = by_pair.get((b, a))
        if ba is None:
            problems.append(f"link {a}->{b} has no link back: an ns-3 point-to-point link is full-duplex")
            continue
        if ab["delay"] != ba["delay"]:
            problems.append(f"links {a}->{b} and {b}->{a}: different delays ({ab['delay']} and {ba['delay']} ns) but an ns-3 point-to-point channel has one")
        out.append({"a": a, "b": b, "delay_s": ab["delay"] / 1e9, "ab": _half(f"{a}->{b}", ab, problems, notes), "ba": _half(f"{b}->{a}", ba, problems, notes)})
    return out


def _routes(flows: Any, halves: dict[str, tuple[str, str]], problems: list[str], udp: Any = None) -> list[dict[str, str]]:
    """Static host routes that make ns-3 take crosslayer's paths: at every node of a flow's data
    path a route to its receiver, and of its ACKs' path a route to its sender; of a UDP flow's
    path a route to its sink (``halves``: link name -> (from, to))."""
    legs = [(row.name, path, dest) for row in flows.itertuples(index=False) for path, dest in ((row.route, row.dst), (row.ack_route, row.src))]
    if udp is not None:
        legs += [(row.name, row.route, row.dst) for row in udp.itertuples(index=False)]
    via: dict[tuple[str, str], str] = {}
    for name, path, dest in legs:
        for link in str(path).split(","):
            if link not in halves:
                problems.append(f"flow {name}: its path crosses {link}, which the translation has no link for")
                continue
            node = halves[link][0]
            known = via.setdefault((node, str(dest)), link)
            if known != link:
                problems.append(f"flows to {dest} leave {node} by {known} and by {link}: ns-3's routes are per destination (route such flows alike, e.g. routing.ecmp = false)")
    return [{"node": node, "dst": dest, "link": link} for (node, dest), link in via.items()]


def _tcp(tcp: Mapping[str, Any], problems: list[str]) -> dict[str, str]:
    out = {"ns3::TcpSocket::SndBufSize": str(SOCKET_BUFFER), "ns3::TcpSocket::RcvBufSize": str(SOCKET_BUFFER)}
    profile = catalog().tcp_profiles["ns3"]
    params = catalog().tcp
    # profiled options the program sets explicitly: unset, the ns3 profile's value (ns-3's own)
    tcp = {**tcp, **{k: profile[k] for k in ("delayed_ack", "timestamps") if tcp.get(k) is None}}
    if tcp.get("ecn_feedback") is not None:
        problems.append(f"[tcp] ecn_feedback = {tcp['ecn_feedback']}: ns-3 3.44's receiver feeds back as its congestion control says (TcpDctcp per segment, RFC 3168 for the others; it has no AccECN): leave it unset")
    if tcp.get("peer_ecn") not in (None, "same"):
        problems.append(f"[tcp] peer_ecn = {tcp['peer_ecn']} is not translated to ns-3 (its receiver's UseEcn): leave it unset")
    for name, value in tcp.items():
        if value is None or name in TCP_IGNORED or name in ("ecn_feedback", "peer_ecn"):
            continue
        if name in TCP:
            attr, translate = TCP[name]
            out[attr] = translate(tcp)
        elif name in profile and value == profile[name]:
            continue  # the ns3 profile's own value: ns-3's
        else:
            default = f" (ns-3's: {_show(params, name, profile[name])})" if name in profile else ""
            problems.append(f"[tcp] {name} = {_show(params, name, value)} is not translated to ns-3{default}: crosscheck runs the ns3 profile, leave it unset")
    if tcp.get("handshake") is False:
        problems.append("[tcp] handshake = false: ns-3's TCP always opens with a handshake")
    return dict(sorted(out.items()))


UDP_OVERHEAD: Final = 30
"""Bytes of a datagram on an ns-3 point-to-point link besides its payload: UDP 8, IPv4 20, PPP 2
(crosslayer's ``packet_size`` is the wire size)."""


def _udp(spec: Mapping[str, Any], udp: Any, problems: list[str]) -> list[dict[str, Any]]:
    """CBR flows as ns-3 ``OnOffApplication``s, always on, sending the same datagrams at the same
    intervals (its ``DataRate`` counts payload bits)."""
    out = []
    for u, row in zip(spec.get("udp") or [], udp.itertuples(index=False), strict=True):
        size = int(u["packet_size"])
        if size <= UDP_OVERHEAD:
            problems.append(f"UDP flow {row.name}: packet_size {size} B leaves no payload after ns-3's {UDP_OVERHEAD} bytes of headers")
            continue
        if u.get("ecn"):
            problems.append(f"UDP flow {row.name}: ECN-capable datagrams are not translated to ns-3")
        if u.get("dscp"):
            problems.append(f"UDP flow {row.name}: dscp {u['dscp']} is not translated to ns-3")
        payload = size - UDP_OVERHEAD
        out.append({
            "name": str(row.name), "src": str(row.src), "dst": str(row.dst), "start_s": u["start"] / 1e9,
            "stop_s": None if u.get("stop") is None else u["stop"] / 1e9, "packet_bytes": size, "payload_bytes": payload,
            "data_rate_bps": round(int(u["rate"]) * payload / size),
        })  # fmt: skip
    return out


def translate(spec: Mapping[str, Any], flows: Any, links: Any, udp: Any = None) -> Translation:
    """The ns-3 description of the engine spec ``spec`` (``Scenario.to_engine_spec()``) given
    one crosslayer run of it: ``flows`` its flows table (names, hosts, start times, paths, in
    flow order), ``links`` its queues table (link names and roles), ``udp`` its udp table when
    it has UDP flows. Raises :class:`Untranslatable` naming everything ns-3 (or this
    translation) cannot express."""
    problems: list[str] = []
    notes: set[str] = set()
    topo = spec["topology"]
    if topo.get("kind") not in ("dumbbell", "graph"):
        raise Untranslatable([f"topology kind {topo.get('kind')!r}: crosscheck translates dumbbells and graphs"])
    if spec.get("udp") and udp is None:
        raise Untranslatable([f"{len(spec['udp'])} UDP flows: translating them needs the run's udp table"])
    out_udp = _udp(spec, udp, problems) if spec.get("udp") else []
    if topo["kind"] == "dumbbell":
        left, right = dict(zip(links["role"], links["link"], strict=True))["forward"].split("->")
        senders, receivers = [h["name"] for h in topo["senders"]], [h["name"] for h in topo["receivers"]]
        nodes = [*senders, left, right, *receivers]
    else:
        left = right = ""
        nodes = [n["name"] for n in topo["nodes"]]
    halves = _halves(topo, left, right)
    out_links = _links(halves, problems, notes)
    routes = _routes(flows, {f"{a}->{b}": (a, b) for a, b, _ in halves}, problems, udp if spec.get("udp") else None)
    degree: dict[str, int] = {}
    for a, b, _ in halves:
        degree[a] = degree.get(a, 0) + 1
    hosts = set(flows["src"]) | set(flows["dst"]) | ({str(h) for h in udp["src"]} | {str(h) for h in udp["dst"]} if udp is not None and len(udp) else set())
    for host in sorted(h for h in hosts if degree.get(h, 0) > 1):
        problems.append(f"host {host} has {degree[host]} links: a host with several addresses is not translated (its replies could leave from another address)")
    specs = flow_specs(spec, flows, problems, SIMULATOR)

    tcp_configs = {json.dumps(f["tcp"], sort_keys=True) for f in specs}
    if len(tcp_configs) > 1:
        problems.append("flow groups with different [tcp] options: ns-3's are the same for every socket (Config::SetDefault)")
    tcp = _tcp(specs[0]["tcp"], problems) if specs else {}
    cc_params: dict[str, dict[str, str]] = {}
    out_flows = []
    started: dict[tuple[str, float], str] = {}
    for f, row in zip(specs, flows.itertuples(index=False), strict=True):
        cc = f["cc"]
        kind = cc["kind"]
        if kind not in CC:
            problems.append(f"flow {row.name}: congestion control {kind!r} has no ns-3 3.44 model (ns-3 has {', '.join(sorted(CC))})")
            continue
        defaults = _defaults("cc", kind)
        mapped = CC_PARAMS.get(kind, {})
        attrs = {}
        for name, value in cc.items():
            if name == "kind":
                continue
            if name in mapped:
                fmt = CC_PARAM_FORMAT.get((kind, name))
                attrs[f"{CC[kind]}::{mapped[name]}"] = fmt(value) if fmt else _flag(value) if isinstance(value, bool) else repr(value)
            elif value != defaults.get(name):
                params = _algorithm_params("cc", kind)
                problems.append(f"flow {row.name}: {kind} {name} = {_show(params, name, value)} is not translated to ns-3 (leave it at its default, {_show(params, name, defaults.get(name))})")
        if cc_params.setdefault(kind, attrs) != attrs:
            problems.append(f"flows of {kind} with different parameters: ns-3 sets them per type (Config::SetDefault)")
        for key in ("stop", "app_rate", "abort", "on_off"):
            if f.get(key) is not None:
                problems.append(f"flow {row.name}: {key} is not translated to ns-3 yet")
        if f.get("dscp"):
            problems.append(f"flow {row.name}: dscp {f['dscp']} is not translated to ns-3")
        key = (row.src, float(row.start_s))
        if started.setdefault(key, CC[kind]) != CC[kind]:
            problems.append(f"flows from {row.src} starting at the same instant with different congestion controls: ns-3 sets it per node")
        out_flows.append({"name": row.name, "src": row.src, "dst": row.dst, "cc": CC[kind], "start_s": float(row.start_s), "size_bytes": int(f.get("size") or 0)})
    if problems:
        raise Untranslatable(problems)
    for attrs in cc_params.values():
        tcp.update(attrs)
    bottlenecks = list(dict.fromkeys([str(b) for b in flows["bottleneck"]] + ([str(b) for b in udp["bottleneck"]] if out_udp else [])))
    description = {
        "format": 1,
        "ns3": NS3_VERSION,
        "run": int(spec["seed"]),
        **run_times(spec),
        "nodes": nodes,
        "links": out_links,
        "routes": routes,
        "bottlenecks": bottlenecks,
        "series": series_link(spec, links),
        "send_size": int(tcp.get("ns3::TcpSocket::SegmentSize", 536)),
        "tcp": dict(sorted(tcp.items())),
        "flows": out_flows,
        "udp": out_udp,
    }
    return Translation(description, tuple(sorted(notes)))


def template() -> str:
    """The ns-3 program's source, without a description."""
    return resources.files("crosslayer.crosscheck").joinpath("ns3_program.py").read_text(encoding="utf-8")


def program(description: Mapping[str, Any]) -> str:
    """The ns-3 program for ``description``: the template with its ``DESCRIPTION`` filled in."""
    text = template()
    marker = "DESCRIPTION: Any = None  # the generated program puts the scenario's description here\n"
    if marker not in text:
        raise RuntimeError("the ns-3 program template lost its DESCRIPTION line")
    body = json.dumps(description, indent=1, sort_keys=False)
    return text.replace(marker, f'DESCRIPTION: Any = json.loads(r"""\n{body}\n""")\n', 1)


INSTALL_HINT: Final = (
    "ns-3 3.44 is not installed for any Python crosscheck can find. Install it in its own environment "
    "(a few minutes: it builds cppyy):\n"
    "    python3 -m venv ~/ns3env && ~/ns3env/bin/pip install ns3==3.44.post0\n"
    "then pass --ns3-python ~/ns3env/bin/python (or set CROSSLAYER_NS3_PYTHON)."
)


def find_python(given: str | os.PathLike[str] | None = None) -> str:
    """The Python interpreter that has ns-3: ``given``, else ``$CROSSLAYER_NS3_PYTHON``, else
    ``~/ns3env/bin/python`` if it exists. Raises ``FileNotFoundError`` with how to install ns-3."""
    for candidate in (given, os.environ.get("CROSSLAYER_NS3_PYTHON"), Path.home() / "ns3env" / "bin" / "python"):
        if candidate is None or str(candidate) == "":
            continue
        path = shutil.which(str(candidate)) or (str(candidate) if Path(candidate).is_file() else None)
        if path is None:
            if candidate == given:
                raise FileNotFoundError(f"--ns3-python {given}: no such interpreter.\n{INSTALL_HINT}")
            continue
        check = subprocess.run([path, "-c", "import importlib.util, sys; sys.exit(importlib.util.find_spec('ns') is None)"], capture_output=True, check=False)
        if check.returncode == 0:
            return path
        if candidate == given:
            raise FileNotFoundError(f"{given} has no ns-3 (`import ns` fails).\n{INSTALL_HINT}")
    raise FileNotFoundError(INSTALL_HINT)
