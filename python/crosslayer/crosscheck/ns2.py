"""A crosslayer scenario translated into an ns-2.35 Tcl script (`crosslayer crosscheck --with ns2`).

As for ns-3 (:mod:`crosslayer.crosscheck.ns3`), the translation reads the engine's description
of the run and one crosslayer run of it (its flows' names, hosts, paths and drawn start times),
maps every element by name with its parameters (the tables below, listed in
docs/crosscheck.md), and refuses what ns-2 cannot express before anything runs. crosslayer runs
with ``[tcp] profile = "ns2"``; every TCP option is also written into the script, so an option
the study sets (``mss``, ``initial_cwnd``, ``rwnd``, ...) is the same on both sides.

What ns-2 is given
* one node per crosslayer node; one ``simplex-link`` per direction (its own rate, delay and
  queue, so the two directions may differ); a Bernoulli loss per direction as an
  ``ErrorModel`` (per packet) after the queue (``$ns lossmodel``);
* ns-2's static routing (shortest paths by hop count): a flow whose path is not the only
  shortest one is refused (ns-2 could take another);
* per TCP flow a one-way agent and its sink: ``Agent/TCP`` (Tahoe), ``/Reno``, ``/Newreno``,
  ``/Sack1``, ``/Vegas``, or ``Agent/TCP/Linux`` with one of ns-2's 15 Linux modules; an FTP
  application started at the flow's start time (``advanceby`` its size in segments for a finite
  flow); ``Agent/TCPSink`` (``/Sack1`` with SACK, ``/DelAck`` with delayed ACKs);
* per UDP flow an ``Agent/UDP`` with a CBR source (``random_ 0``) and an ``Agent/LossMonitor``.

Queue limits: ns-2's DropTail and REM drop an arrival when the queue would reach ``limit_``
(``length + 1 >= limit_``: 49 packets wait behind a 50-packet limit), RED and Vq when it would
exceed it; crosslayer's ``limit_pkts`` counts the packets waiting, so DropTail and REM get one
more.
"""

from __future__ import annotations

import json
import math
import os
import shutil
from collections import deque
from collections.abc import Callable, Mapping
from importlib import resources
from typing import Any, Final

from crosslayer.catalog import catalog
from crosslayer.crosscheck.translate import Translation, Untranslatable, run_times, _algorithm_params, _defaults, _halves, _show, flow_specs, series_link

NS2_VERSION: Final = "2.35"
SIMULATOR: Final = "ns-2"

LINUX_CA: Final[dict[str, str]] = {
    "cubic": "cubic",
    "bic": "bic",
    "highspeed": "highspeed",
    "htcp": "htcp",
    "scalable": "scalable",
    "westwood": "westwood",
    "hybla": "hybla",
    "illinois": "illinois",
    "yeah": "yeah",
    "veno": "veno",
    "compound": "compound",
    "lp": "lp",
}
"""crosslayer's congestion controls and the Linux module ns-2.35's ``Agent/TCP/Linux`` runs for
each (``select_ca``); Reno and Vegas are ns-2's own agents without SACK and these modules
(``reno``, ``vegas``) with it."""

NATIVE_VEGAS: Final = {"alpha": "v_alpha_", "beta": "v_beta_", "gamma": "v_gamma_"}
"""Vegas's parameters on ns-2's own ``Agent/TCP/Vegas``."""

LINUX_PARAMS: Final[dict[str, dict[str, tuple[str, Callable[[Any], int]]]]] = {
    "cubic": {
        "beta": ("beta", lambda v: round(float(v) * 1024)),
        "c": ("bic_scale", lambda v: round(float(v) * 1024 / 10)),
        "fast_convergence": ("fast_convergence", int),
        "tcp_friendliness": ("tcp_friendliness", int),
    },
    "vegas": {"alpha": ("alpha", int), "beta": ("beta", int), "gamma": ("gamma", int)},
}
"""Parameters carried into a Linux module (``set_ca_default_param``, the module's own units:
CUBIC's beta in 1/1024, C as bic_scale = C x 1024 / 10). Linux 2.6.22's CUBIC 2.1 defaults to
beta 819 (0.8): the study's beta (crosslayer's default 0.7) is what both run. Other modules run
their Linux 2.6.22 defaults (named in the notes)."""

LINUX_FIXED: Final[dict[str, dict[str, Any]]] = {
    "cubic": {"hystart": ("off", None)},
    "scalable": {"ai_cnt": (50,), "md_shift": (3,)},
    "illinois": {"decrease": ("to_beta", None)},
}
"""Parameters a Linux 2.6.22 module cannot change: the values it has (None: unset, which the ns2
profile gives that value). CUBIC 2.1 has no HyStart; Scalable's increase is compiled in,
TCP_SCALABLE_AI_CNT 50 in 2.6.22, where Linux since 4.x and crosslayer's default have 100;
Illinois's ``tcp_illinois_ssthresh`` returns beta x cwnd (later kernels cwnd - beta x cwnd)."""


def _flag(v: Any) -> str:
    return "true" if v else "false"


def _num(v: Any) -> str:
    return repr(float(v)) if isinstance(v, float) else str(v)


def _secs(ns: Any) -> str:
    return repr(int(ns) / 1e9)


def _auto(v: Any) -> str:
    """A RED threshold or weight; unset (ARED's automatic value) is ns-2's 0, which asks for its
    own automatic one: thresh_ max(5, targetdelay C / 2), maxthresh_ 3 thresh_, q_weight_
    1 - exp(-1/C), crosslayer's formulas (ns-2's q_weight_ -1 would scale it by the link
    delay)."""
    return _num(float(v if v is not None else 0))


_Attr = tuple[str, Callable[[Mapping[str, Any]], str]]
_RED: Final[dict[str, _Attr]] = {
    "min_th": ("thresh_", lambda q: _auto(q["min_th"])),
    "max_th": ("maxthresh_", lambda q: _auto(q["max_th"])),
    "w_q": ("q_weight_", lambda q: _auto(q["w_q"])),
    "max_p": ("linterm_", lambda q: _num(1.0 / float(q["max_p"]))),
    "spacing": ("wait_", lambda q: _flag(q["spacing"] == "wait")),
    "mean_pkt_size": ("mean_pktsize_", lambda q: str(int(q["mean_pkt_size"]))),
    "ecn": ("setbit_", lambda q: _flag(q["ecn"])),
}
"""RED's parameters as classic RED and Adaptive RED both have them."""

# kind -> (ns-2 queue class, {crosslayer parameter: (ns-2 variable, translation)}, {parameter:
# values ns-2 can express, when not all}, extra on the limit). Every parameter not in the map
# must keep its default (ns-2's behaviour stands in for it: named in the notes).
QDISCS: Final[dict[str, tuple[str, dict[str, _Attr], dict[str, tuple[Any, ...]], int]]] = {
    "droptail": ("DropTail", {}, {}, 1),
    "red": (
        "RED",
        {
            **_RED,
            "gentle": ("gentle_", lambda q: _flag(q["gentle"])),
            "mode": ("queue_in_bytes_", lambda q: _flag(q["mode"] == "bytes")),
        },
        {"spacing": ("wait", "paper"), "mode": ("packet",), "harddrop": (False,)},
        0,
    ),
    "ared": (
        "RED",
        {
            **_RED,
            "target_delay": ("targetdelay_", lambda q: _secs(q["target_delay"])),
            "interval": ("interval_", lambda q: _secs(q["interval"])),
            "beta": ("beta_", lambda q: _num(float(q["beta"]))),
        },
        {"spacing": ("wait", "paper"), "harddrop": (False,)},
        0,
    ),
    "rem": (
        "REM",
        {
            "gamma": ("gamma_", lambda q: _num(float(q["gamma"]))),
            "phi": ("phi_", lambda q: _num(float(q["phi"]))),
            "b_ref": ("pbo_", lambda q: _num(float(q["b_ref"]))),
            "update_interval": ("pupdtime_", lambda q: _secs(q["update_interval"])),
            "inw": ("inw_", lambda q: _num(float(q["inw"]))),
            "queue_in_bytes": ("qib_", lambda q: _flag(q["queue_in_bytes"])),
            "mean_pkt_size": ("mean_pktsize_", lambda q: str(int(q["mean_pkt_size"]))),
            "ecn": ("markpkts_", lambda q: _flag(q["ecn"])),
        },
        {"alpha": (0.1,), "queue_in_bytes": (False,)},
        1,
    ),
    "avq": (
        "Vq",
        {
            "gamma": ("gamma_", lambda q: _num(float(q["gamma"]))),
            "initial_ratio": ("ecnlim_", lambda q: _num(float(q["initial_ratio"]))),
            "buflim": ("buflim_", lambda q: _num(float(q["buflim"]))),
            "queue_in_bytes": ("queue_in_bytes_", lambda q: _flag(q["queue_in_bytes"])),
            "mean_pkt_size": ("mean_pktsize_", lambda q: str(int(q["mean_pkt_size"]))),
            "ecn": ("markpkts_", lambda q: _flag(q["ecn"])),
        },
        {"alpha": (0.15,)},
        0,
    ),
}
"""crosslayer's queue disciplines and ns-2.35's (``Queue/<class>``); the last field is what the
limit gains (DropTail and REM keep one packet less than their ``limit_``)."""


def _qdisc(q: Mapping[str, Any], where: str, problems: list[str], notes: set[str]) -> dict[str, Any]:
    kind = q["kind"]
    if kind not in QDISCS:
        problems.append(f"{where}: queue discipline {kind!r} has no ns-2.35 counterpart here (ns-2 has {', '.join(sorted(QDISCS))})")
        return {"class": "", "limit": 0, "vars": {}}
    cls, mapped, allowed, extra = QDISCS[kind]
    defaults = _defaults("aqm", kind)
    params = _algorithm_params("aqm", kind)
    out: dict[str, str] = {}
    limit = int(q.get("limit_pkts") or 0) + extra
    for name, value in q.items():
        if name in ("kind", "limit_pkts"):
            continue
        shown = _show(params, name, value)
        if name == "limit_bytes":
            if value:
                # ns-2 counts bytes as limit_ x mean_pktsize_: 1-byte "packets"
                out.update({"queue_in_bytes_": "true", "mean_pktsize_": "1"})
                limit = int(value)
            continue
        if name in allowed and value not in allowed[name]:
            problems.append(f"{where}: {kind} {name} = {shown} has no ns-2 counterpart (ns-2 can: {', '.join(map(str, allowed[name]))})")
        elif name in mapped:
            var, translate = mapped[name]
            out[var] = translate(q)
        elif value != defaults.get(name):
            problems.append(f"{where}: {kind} {name} = {shown} is not translated to ns-2 (leave it at its default, {_show(params, name, defaults.get(name))})")
    if kind == "ared":
        out["adaptive_"] = "1"
    if kind in ("red", "ared") and "queue_in_bytes_" in out:
        out["bytes_"] = out["queue_in_bytes_"]
    if kind == "avq" and q.get("queue_in_bytes"):
        notes.add("avq queue_in_bytes: ns-2's Vq then limits its real queue to limit x mean_pkt_size bytes, crosslayer to limit_pkts packets")
    return {"class": cls, "limit": limit, "vars": dict(sorted(out.items()))}


def _shortest_paths(nodes: list[str], halves: list[tuple[str, str, Any]], src: str) -> tuple[dict[str, int], dict[str, int]]:
    """Hop counts from ``src`` and how many shortest paths reach each node."""
    adj: dict[str, list[str]] = {n: [] for n in nodes}
    for a, b, _ in halves:
        adj.setdefault(a, []).append(b)
    dist, count = {src: 0}, {src: 1}
    todo = deque([src])
    while todo:
        n = todo.popleft()
        for m in adj.get(n, []):
            if m not in dist:
                dist[m], count[m] = dist[n] + 1, count[n]
                todo.append(m)
            elif dist[m] == dist[n] + 1:
                count[m] += count[n]
    return dist, count


def _check_routes(nodes: list[str], halves: list[tuple[str, str, Any]], legs: list[tuple[str, str, str, str]], problems: list[str]) -> None:
    """ns-2's static routing takes a shortest path by hop count: each leg (name, from, to, path)
    must be the only one."""
    cache: dict[str, tuple[dict[str, int], dict[str, int]]] = {}
    for name, a, b, path in legs:
        if a not in cache:
            cache[a] = _shortest_paths(nodes, halves, a)
        dist, count = cache[a]
        hops = len(str(path).split(","))
        if dist.get(b) != hops or count.get(b, 0) != 1:
            problems.append(f"flow {name}: its path {a} to {b} ({hops} links) is not the only shortest path, which ns-2's static routing would take")


def _tcp_value(tcp: Mapping[str, Any], name: str) -> Any:
    """An option in effect under the ns2 profile: the study's, else the profile's."""
    value = tcp.get(name)
    return catalog().tcp_profiles["ns2"][name] if value is None and name in catalog().tcp_profiles["ns2"] else value


TCP_VARS: Final[dict[str, tuple[str, Callable[[Mapping[str, Any]], str]]]] = {
    "mss": ("packetSize_", lambda t: str(int(t["mss"]))),
    "header_size": ("tcpip_base_hdr_size_", lambda t: str(int(_tcp_value(t, "header_size")))),
    "timestamps": ("timestamps_", lambda t: _flag(_tcp_value(t, "timestamps"))),
    "initial_cwnd": ("windowInit_", lambda t: str(int(t["initial_cwnd"]))),
    "min_rto": ("minrto_", lambda t: _secs(_tcp_value(t, "min_rto"))),
    "initial_rto": ("rtxcur_init_", lambda t: _secs(_tcp_value(t, "initial_rto"))),
    "max_rto": ("maxrto_", lambda t: _secs(_tcp_value(t, "max_rto"))),
    "rto_granularity": ("tcpTick_", lambda t: _secs(_tcp_value(t, "rto_granularity"))),
    "handshake": ("syn_", lambda t: _flag(t["handshake"])),
    "ecn": ("ecn_", lambda t: "1" if t["ecn"] else "0"),
    "rwnd": ("window_", lambda t: str(int(t["rwnd"]) // int(t["mss"]) if t.get("rwnd") else 1_000_000)),
}
"""``[tcp]`` options written on every agent (the ns2 profile's value when the study leaves one
unset); ``rwnd`` unset is a window of 10^6 segments (ns-2's ``window_`` 20 would cap it)."""

TCP_ELSEWHERE: Final = frozenset({"profile", "sack", "delayed_ack", "delack_timeout", "ack_size", "recovery", "teardown", "fin_ack", "quickack"})
"""Options the translation reads elsewhere (agent and sink classes, the sink's ACK size) or that
one-way agents do not have (a FIN exchange)."""


def on_linux_agent(kind: str, sack: bool, recovery: Any) -> bool:
    """Whether ns-2 runs a flow of congestion control ``kind`` on ``Agent/TCP/Linux`` (Tahoe,
    Reno and Vegas without SACK, and Reno with RFC 6675 recovery, run on ns-2's own agents)."""
    if kind == "tahoe" or (kind in ("reno", "vegas") and not sack) or (kind == "reno" and recovery == "rfc6675"):
        return False
    return kind in LINUX_CA or kind in ("reno", "vegas")


LINUX_AGENT_RECOVERY: Final = "prr"
"""crosslayer's recovery for a flow ns-2 runs on ``Agent/TCP/Linux`` when the study sets none:
that agent recovers with its own SACK scoreboard, sets cwnd to ssthresh at once and halves its
sending over the recovery (``next_pkts_in_flight_``: one segment per two ACKs until the data in
flight is down to cwnd, tcp-linux.cc), and at its end sets cwnd to ssthresh - PRR's behaviour
(RFC 6937) for a halving. The ns2 profile's own default, NewReno (ns-2's Agent/TCP/Newreno),
inflates the window instead."""


def align(data: dict[str, Any], chosen: Mapping[tuple[str, int], frozenset[str]] | None = None) -> None:
    """crosslayer's side of an ns-2 crosscheck (a scenario as ``Scenario.model_dump`` gives it,
    already under the ns2 profile): each flow group that ns-2 runs on ``Agent/TCP/Linux``
    recovers with :data:`LINUX_AGENT_RECOVERY` unless the study chose a recovery, and a Vegas flow
    that ns-2 runs on its own ``Agent/TCP/Vegas`` (the authors' code) slow-starts as the paper
    does (``slow_start = "paper"``) unless the study chose. ``chosen``: the congestion-control
    parameters each group sets (``("flows", i)`` -> names), which the dump cannot tell from
    defaults; without it, every parameter present counts as chosen."""
    base = data.get("tcp") or {}
    for key in ("flows", "arrivals"):
        for i, group in enumerate(data.get(key) or []):
            tcp = {**base, **(group.get("tcp") or {})}
            cc = group.get("cc") or {}
            kind = cc.get("kind") if isinstance(cc, Mapping) else cc
            sack = bool(tcp.get("sack", True))
            if tcp.get("recovery") is None and on_linux_agent(str(kind), sack, None):
                group["tcp"] = {**(group.get("tcp") or {}), "recovery": LINUX_AGENT_RECOVERY}
            set_params = chosen.get((key, i), frozenset()) if chosen is not None else frozenset(cc if isinstance(cc, Mapping) else ())
            if kind == "vegas" and not sack and "slow_start" not in set_params:
                # Agent/TCP/Vegas is the authors' code: the paper's slow start
                group["cc"] = {**(cc if isinstance(cc, Mapping) else {"kind": kind}), "slow_start": "paper"}


def _tcp(name: str, cc: Mapping[str, Any], tcp: Mapping[str, Any], problems: list[str], notes: set[str]) -> dict[str, Any]:
    """The agent, its variables and the sink of one flow."""
    kind = cc["kind"]
    sack = bool(tcp["sack"])
    recovery = _tcp_value(tcp, "recovery")
    ca = None
    if kind == "tahoe":
        agent = "Agent/TCP"
    elif kind in ("reno", "vegas") and not sack:
        agent = {"reno": {"reno": "Agent/TCP/Reno", "newreno": "Agent/TCP/Newreno"}, "vegas": {"reno": "Agent/TCP/Vegas", "newreno": "Agent/TCP/Vegas"}}[kind].get(str(recovery), "")
        if not agent:
            problems.append(f"flow {name}: {kind} without SACK and recovery = {recovery!r}: ns-2's agents recover as reno or newreno")
        if kind == "vegas":
            notes.add("vegas: ns-2's Agent/TCP/Vegas adds the paper's fine-grained retransmission (on a duplicate ACK when the oldest segment is overdue) and window cut (a quarter) to Reno's recovery; crosslayer's Vegas has neither")
            notes.add("vegas: ns-2's Agent/TCP/Vegas measures diff with the round's mean RTT and the data in flight (crosslayer: Linux's, with the round's least RTT)")
            if cc.get("slow_start", "linux") != "paper":
                notes.add("vegas: ns-2's Agent/TCP/Vegas slow-starts as the paper (every other round trip); crosslayer's flow has slow_start = \"linux\" (crosscheck's choice when unset is \"paper\")")
    elif kind == "reno" and recovery == "rfc6675":
        agent = "Agent/TCP/Sack1"
    elif on_linux_agent(kind, sack, recovery):
        agent, ca = "Agent/TCP/Linux", LINUX_CA.get(kind, kind)
        notes.add(f"{kind}: ns-2's Agent/TCP/Linux runs its {ca} module (TCP-Linux: Linux 2.6.22's modules, and Compound written for it) with its own loss recovery (a SACK scoreboard, cwnd set to ssthresh at once and the sending halved, tcp-linux.cc's rate halving)")
        if recovery != LINUX_AGENT_RECOVERY:
            notes.add(f"{kind}: crosslayer recovers with recovery = {recovery!r} (the study's), ns-2's Linux agent with rate halving: set recovery = {LINUX_AGENT_RECOVERY!r} (crosscheck's choice when unset) for the closest")
    else:
        problems.append(f"flow {name}: congestion control {kind!r} has no ns-2.35 model (ns-2 has tahoe, reno, vegas and {', '.join(sorted(LINUX_CA))})")
        return {}
    variables = {var: translate(tcp) for var, translate in TCP_VARS.values()}
    if agent == "Agent/TCP/Vegas":
        # VegasTcpAgent::output sends packetSize_ bytes on the wire, without
        # tcpip_base_hdr_size_ (TcpAgent::output adds it): the segment grows by the header so
        # that the wire sizes match; goodput counts the mss
        variables["packetSize_"] = str(int(tcp["mss"]) + int(_tcp_value(tcp, "header_size")))
        notes.add("vegas: ns-2's Agent/TCP/Vegas puts no TCP/IP header on its packets, so its packetSize_ is mss + header_size (the same wire size) and its goodput counts mss bytes per segment")
    if agent == "Agent/TCP/Linux" and not sack:
        problems.append(f"flow {name}: {kind} without SACK: ns-2's Agent/TCP/Linux needs [tcp] sack = true")
    if agent in ("Agent/TCP", "Agent/TCP/Reno", "Agent/TCP/Newreno", "Agent/TCP/Vegas") and sack:
        problems.append(f"flow {name}: {agent} has no SACK: set [tcp] sack = false")
    params = _algorithm_params("cc", kind)
    defaults = _defaults("cc", kind)
    ca_params: dict[str, int] = {}
    linux_params = LINUX_PARAMS.get(kind, {}) if ca else {}
    fixed = LINUX_FIXED.get(kind, {}) if ca else {}
    if ca and not linux_params:
        notes.add(f"{kind}: ns-2's {ca} module runs its own default parameters")
    for p, value in cc.items():
        if p == "kind":
            continue
        if agent == "Agent/TCP/Vegas" and p in NATIVE_VEGAS:
            variables[NATIVE_VEGAS[p]] = _num(value)
        elif agent == "Agent/TCP/Vegas" and p == "slow_start":
            continue  # the agent slow-starts as the paper; a note says when crosslayer's does not
        elif p in linux_params:
            var, convert = linux_params[p]
            ca_params[var] = convert(value)
        elif p in fixed:
            if value not in fixed[p]:
                values = [v for v in fixed[p] if v is not None]
                if values == ["off"]:
                    has, fix = "none", "leave it unset, or \"off\""
                else:
                    has = "it fixed at " + ", ".join(str(v) for v in values)
                    fix = ("leave it unset, or " if None in fixed[p] else "") + "set " + " or ".join(f"{p} = {_show(params, p, v)}" for v in values) + " to compare with it"
                problems.append(f"flow {name}: {kind} {p} = {_show(params, p, value)}: ns-2's {ca} module (Linux 2.6.22) has {has} ({fix})")
        elif value != defaults.get(p):
            problems.append(f"flow {name}: {kind} {p} = {_show(params, p, value)} is not translated to ns-2 (leave it at its default, {_show(params, p, defaults.get(p))})")
    for option in ("rto_rule", "slow_start", "rtt_samples", "rack", "tlp"):
        value, ns2 = tcp.get(option), catalog().tcp_profiles["ns2"][option]
        if value is not None and value != ns2:
            problems.append(f"flow {name}: [tcp] {option} = {_show(catalog().tcp, option, value)} is not ns-2's (its: {_show(catalog().tcp, option, ns2)}): leave it unset")
    if tcp.get("peer_ecn") not in (None, "same"):
        problems.append(f"flow {name}: [tcp] peer_ecn = {tcp['peer_ecn']} is not translated to ns-2 (its agents negotiate no ECN: both ends take the flow's settings): leave it unset")
    for option, ns2 in catalog().tcp_profiles["ns2"].items():
        if option in TCP_VARS or option in TCP_ELSEWHERE or option in ("rto_rule", "slow_start", "rtt_samples", "rack", "tlp", "ts_granularity", "syn_size", "syn_timeout"):
            continue
        value = tcp.get(option)
        if value is not None and value != ns2:
            problems.append(f"flow {name}: [tcp] {option} = {_show(catalog().tcp, option, value)} is not translated to ns-2 (ns-2's: {_show(catalog().tcp, option, ns2)}): leave it unset")
    if _tcp_value(tcp, "syn_size") != _tcp_value(tcp, "header_size") and tcp["handshake"]:
        notes.add(f"SYN: ns-2's is tcpip_base_hdr_size_ ({_tcp_value(tcp, 'header_size')} B), crosslayer's syn_size {_tcp_value(tcp, 'syn_size')} B (one packet per flow)")
    delayed = bool(_tcp_value(tcp, "delayed_ack"))
    sink = "Agent/TCPSink" + ("/Sack1" if sack else "") + ("/DelAck" if delayed else "")
    sink_vars = {"packetSize_": str(int(_tcp_value(tcp, "ack_size")))}
    if delayed:
        sink_vars["interval_"] = _secs(_tcp_value(tcp, "delack_timeout"))
    if _tcp_value(tcp, "timestamps"):
        sink_vars["ts_echo_rfc1323_"] = "true"
    return {"agent": agent, "ca": ca, "ca_params": dict(sorted(ca_params.items())), "vars": dict(sorted(variables.items())), "sink": sink, "sink_vars": sink_vars}


def translate(spec: Mapping[str, Any], flows: Any, links: Any, udp: Any = None) -> Translation:
    """The ns-2 description of the engine spec ``spec`` given one crosslayer run of it (as
    :func:`crosslayer.crosscheck.ns3.translate`). Raises :class:`Untranslatable`."""
    problems: list[str] = []
    notes: set[str] = set()
    topo = spec["topology"]
    if topo.get("kind") not in ("dumbbell", "graph"):
        raise Untranslatable([f"topology kind {topo.get('kind')!r}: crosscheck translates dumbbells and graphs"], SIMULATOR)
    if spec.get("udp") and udp is None:
        raise Untranslatable([f"{len(spec['udp'])} UDP flows: translating them needs the run's udp table"], SIMULATOR)
    if topo["kind"] == "dumbbell":
        left, right = dict(zip(links["role"], links["link"], strict=True))["forward"].split("->")
        nodes = [*(h["name"] for h in topo["senders"]), left, right, *(h["name"] for h in topo["receivers"])]
    else:
        left = right = ""
        nodes = [n["name"] for n in topo["nodes"]]
    halves = _halves(topo, left, right)
    out_links = []
    for a, b, edge in halves:
        for key in edge:
            if key not in ("rate", "delay", "loss", "jitter", "qdisc"):
                named = ", ".join(edge[key]) if key == "impair" and isinstance(edge[key], dict) else key
                problems.append(f"link {a}->{b}: {named} (impairments other than Bernoulli loss) has no ns-2 translation here")
        if edge.get("jitter"):
            problems.append(f"link {a}->{b}: jitter has no ns-2 translation here")
        out_links.append({"from": a, "to": b, "rate_bps": int(edge["rate"]), "delay_s": edge["delay"] / 1e9, "loss": float(edge.get("loss") or 0.0), "queue": _qdisc(edge["qdisc"], f"link {a}->{b}", problems, notes)})
    legs = [(str(r.name), str(r.src), str(r.dst), str(r.route)) for r in flows.itertuples(index=False)]
    legs += [(str(r.name), str(r.dst), str(r.src), str(r.ack_route)) for r in flows.itertuples(index=False)]
    if udp is not None and len(udp):
        legs += [(str(r.name), str(r.src), str(r.dst), str(r.route)) for r in udp.itertuples(index=False)]
    _check_routes(nodes, halves, legs, problems)
    edges = {f"{a}->{b}": edge for a, b, edge in halves}

    specs = flow_specs(spec, flows, problems, SIMULATOR)
    out_flows = []
    module_params: dict[str, dict[str, int]] = {}
    for f, row in zip(specs, flows.itertuples(index=False), strict=True):
        for key in ("stop", "app_rate", "abort", "on_off"):
            if f.get(key) is not None:
                problems.append(f"flow {row.name}: {key} is not translated to ns-2 yet")
        if f.get("dscp"):
            problems.append(f"flow {row.name}: dscp {f['dscp']} is not translated to ns-2")
        agent = _tcp(str(row.name), f["cc"], f["tcp"], problems, notes)
        if agent.get("ca") and module_params.setdefault(agent["ca"], agent["ca_params"]) != agent["ca_params"]:
            problems.append(f"flows of {agent['ca']} with different parameters: ns-2 sets a Linux module's parameters for every flow (set_ca_default_param)")
        size = int(f.get("size") or 0)
        mss = int(f["tcp"]["mss"])
        ack_bytes = int(_tcp_value(f["tcp"], "ack_size"))
        # ns-2's `done` fires when the last ACK reaches the sender; the FCT ends when the last
        # byte reaches the receiver: the ACK path's propagation and serialization come off
        ack_path = str(row.ack_route).split(",")
        ack_delay = sum(edges[link]["delay"] / 1e9 + ack_bytes * 8 / int(edges[link]["rate"]) for link in ack_path if link in edges)
        out_flows.append({
            "name": str(row.name), "src": str(row.src), "dst": str(row.dst), "start_s": float(row.start_s),
            "segments": math.ceil(size / mss) if size else 0, "size_bytes": size, "mss": mss, "ack_delay_s": ack_delay, **agent,
        })  # fmt: skip
        if size and size % mss:
            notes.add("finite flows: ns-2 sends whole segments, so a size that is not a multiple of the mss ends with a full last segment")
    out_udp = []
    for u, row in zip(spec.get("udp") or [], udp.itertuples(index=False) if udp is not None else [], strict=True):
        if u.get("ecn"):
            problems.append(f"UDP flow {row.name}: ECN-capable datagrams are not translated to ns-2")
        if u.get("dscp"):
            problems.append(f"UDP flow {row.name}: dscp {u['dscp']} is not translated to ns-2")
        out_udp.append({"name": str(row.name), "src": str(row.src), "dst": str(row.dst), "start_s": u["start"] / 1e9, "stop_s": None if u.get("stop") is None else u["stop"] / 1e9, "packet_bytes": int(u["packet_size"]), "rate_bps": int(u["rate"])})
    if problems:
        raise Untranslatable(problems, SIMULATOR)
    notes.add("sojourn time: not measured in ns-2 (its queue monitor has no per-packet delay without a trace)")
    notes.add("queue SD: from the queue sampled every 10 ms (the mean is exact, from ns-2's integrator)")
    bottlenecks = list(dict.fromkeys([str(b) for b in flows["bottleneck"]] + ([str(b) for b in udp["bottleneck"]] if out_udp else [])))
    description = {
        "format": 1,
        "ns2": NS2_VERSION,
        "seed": int(spec["seed"]),
        **run_times(spec),
        "nodes": nodes,
        "links": out_links,
        "bottlenecks": bottlenecks,
        "series": series_link(spec, links),
        "flows": out_flows,
        "udp": out_udp,
    }
    return Translation(description, tuple(sorted(notes)))


def _tcl_str(s: str) -> str:
    """A Tcl word in braces (names are study-file names: no braces or backslashes)."""
    if any(c in s for c in "{}\\\n"):
        raise Untranslatable([f"name {s!r}: braces, backslashes and newlines cannot go into an ns-2 script"], SIMULATOR)
    return "{" + s + "}"


def template() -> str:
    """The Tcl runtime every script starts with (its measuring procedures)."""
    return resources.files("crosslayer.crosscheck").joinpath("ns2_runtime.tcl").read_text(encoding="utf-8")


def program(d: Mapping[str, Any]) -> str:
    """The ns-2 script for description ``d``: the runtime, then the scenario. Run as ``ns
    script.tcl result.json``."""
    node = {n: f"n({k})" for k, n in enumerate(d["nodes"])}
    out = [template().rstrip("\n"), "", f"# {json.dumps({k: d[k] for k in ('format', 'ns2', 'seed', 'duration_s', 'warmup_s')})}", "set ns [new Simulator]", f"$defaultRNG seed {int(d['seed'])}"]
    out += [f"set {node[n]} [$ns node]  ;# {n}" for n in d["nodes"]]
    for link in d["links"]:
        a, b, q = node[link["from"]], node[link["to"]], link["queue"]
        out.append(f"$ns simplex-link ${a} ${b} {int(link['rate_bps'])}b {link['delay_s']!r}s {q['class']}")
        out.append(f"$ns queue-limit ${a} ${b} {int(q['limit'])}")
        for var, value in q["vars"].items():
            out.append(f"[[$ns link ${a} ${b}] queue] set {var} {value}")
        if link["loss"]:
            out.append(f"xl_loss ${a} ${b} {link['loss']!r}")
    for k, name in enumerate(d["bottlenecks"]):
        a, b = name.split("->")
        out.append(f"xl_monitor {_tcl_str(name)} ${node[a]} ${node[b]} {1 if name == d['series'] else 0}")
    for k, f in enumerate(d["flows"]):
        out.append(f"set tcp [new {f['agent']}]")
        out += [f"$tcp set {var} {value}" for var, value in f["vars"].items()]
        out.append(f"set sink [new {f['sink']}]")
        out += [f"$sink set {var} {value}" for var, value in f["sink_vars"].items()]
        out += [f"$tcp set_ca_default_param {f['ca']} {var} {value}" for var, value in f["ca_params"].items()]
        ca = _tcl_str(f["ca"]) if f["ca"] else "{}"
        out.append(f"xl_flow {k} {_tcl_str(f['name'])} $tcp $sink ${node[f['src']]} ${node[f['dst']]} {f['start_s']!r} {int(f['segments'])} {int(f['mss'])} {f['ack_delay_s']!r} {ca}")
    for k, u in enumerate(d["udp"]):
        stop = repr(u["stop_s"]) if u["stop_s"] is not None else "{}"
        out.append(f"xl_udp {k} {_tcl_str(u['name'])} ${node[u['src']]} ${node[u['dst']]} {u['start_s']!r} {stop} {int(u['packet_bytes'])} {int(u['rate_bps'])}")
    out.append(f"xl_run {d['warmup_s']!r} {d['duration_s']!r} {d['sample_interval_s']!r}")
    return "\n".join(out) + "\n"


INSTALL_HINT: Final = (
    "ns-2.35 is not installed: crosscheck --with ns2 runs its `ns` program. On Debian or Ubuntu:\n"
    "    sudo apt-get install ns2\n"
    "or pass --ns2 PATH (or set CROSSLAYER_NS2)."
)


def find_ns(given: str | os.PathLike[str] | None = None) -> str:
    """The ns-2 program: ``given``, else ``$CROSSLAYER_NS2``, else ``ns`` on the PATH. Raises
    ``FileNotFoundError`` with how to install it."""
    for candidate in (given, os.environ.get("CROSSLAYER_NS2"), "ns"):
        if candidate is None or str(candidate) == "":
            continue
        path = shutil.which(str(candidate))
        if path is not None:
            return path
        if candidate == given:
            raise FileNotFoundError(f"--ns2 {given}: no such program.\n{INSTALL_HINT}")
    raise FileNotFoundError(INSTALL_HINT)
