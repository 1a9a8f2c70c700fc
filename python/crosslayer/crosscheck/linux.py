"""A crosslayer scenario run in the real Linux kernel (`crosslayer crosscheck --with linux`).

The reference is Linux 6.1 as User-mode Linux with time-travel (:mod:`.linux_kernel` builds it):
the guest is a discrete-event system, so its TCP and qdiscs run with exact virtual time and a
single flow's run is byte-identical from one run to the next. As for ns-3 and ns-2, the
translation reads the engine's description of the run and one crosslayer run of it (flows'
names, hosts, paths, drawn start times), maps every element by name, and refuses what it cannot
express before the kernel starts.

What the guest is given (the guest's init, :func:`program`, is a shell script of ``ip``, ``tc``
and ``sysctl`` commands, then the traffic program)
* one network namespace per crosslayer node, and per link a relay namespace joined to both ends
  by veth pairs: ``a <-> relay <-> b``; every neighbour entry is static (no ARP
  exchange, which would cross netem's delay, before a hop's first packet);
* per direction ``a->b``: on ``a``'s device an htb shaper at the link's rate with a one-packet
  burst (a size table takes the 14-byte Ethernet header off, so rates and byte limits count IP
  packets as crosslayer does), the link's queue discipline as its child; on the relay's device
  toward ``b`` netem with the propagation delay (and Bernoulli loss): delay never sits on a
  sender's own interface, where it would throttle its TCP through TCP small queues;
* htb releases a packet when its tokens allow, the start of its serialization on a real link; the
  relay's netem serializes it again at the link's rate (``netem rate``: each packet leaves its
  own transmission time after the later of its arrival and the previous packet's departure, so a
  packet that htb released at the start of its serialization leaves at its end) and then adds
  the propagation delay: every packet, data or ACK, arrives when it would on crosslayer's link;
* static routes per destination (``ip route``) along crosslayer's paths, with the route options
  Linux has per destination: ``initcwnd``, ``rto_min``, ``quickack`` (no delayed ACKs);
* per namespace the TCP sysctls (``tcp_sack``, ``tcp_timestamps``, ``tcp_ecn``,
  ``tcp_slow_start_after_idle``), TSO/GSO/GRO off on every device (or the qdiscs would see 64 KB
  super-packets), and the congestion controls' module parameters under ``/sys/module``;
* the traffic program (:mod:`.linux_traffic`, Python's standard library only, run by the host's
  Python through the read-only root): a socket per flow with ``TCP_CONGESTION`` and
  ``TCP_MAXSEG``, started at crosslayer's drawn time, bulk or ``size`` bytes; it reads
  ``TCP_INFO``, ``/proc/net/netstat`` and ``tc -s`` at the warm-up's end and at the end, and
  samples the queue and every flow's cwnd.

crosslayer runs with ``[tcp] profile = "linux"`` and Linux's framing (52-byte headers with
timestamps); every TCP option that is not Linux's fixed behaviour is refused with its name.
"""

from __future__ import annotations

import json
import math
import os
import shlex
import sys
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Final

from crosslayer.catalog import catalog
from crosslayer.crosscheck.translate import Translation, Untranslatable, run_times, _algorithm_params, _defaults, _halves, _show, flow_specs, series_link

SIMULATOR: Final = "Linux"
KERNEL_VERSION: Final = "6.1"

CC: Final[dict[str, str]] = {
    "reno": "reno",
    "cubic": "cubic",
    "bic": "bic",
    "highspeed": "highspeed",
    "htcp": "htcp",
    "hybla": "hybla",
    "illinois": "illinois",
    "lp": "lp",
    "scalable": "scalable",
    "vegas": "vegas",
    "veno": "veno",
    "westwood": "westwood",
    "yeah": "yeah",
    "bbr": "bbr",
    "dctcp": "dctcp",
}
"""crosslayer's congestion controls and the Linux 6.1 module each is compared with
(``TCP_CONGESTION``)."""

MODULE: Final[dict[str, str]] = {"highspeed": "tcp_highspeed", "reno": "", "bbr": "tcp_bbr"}
"""The ``/sys/module`` folder of a congestion control whose module is not ``tcp_<name>``."""

CC_PARAMS: Final[dict[str, dict[str, tuple[str, Any]]]] = {
    "cubic": {
        "beta": ("beta", lambda v: round(float(v) * 1024)),
        "fast_convergence": ("fast_convergence", int),
        "tcp_friendliness": ("tcp_friendliness", int),
        "hystart": ("hystart", lambda v: int(v not in ("off", False))),
        "hystart_low_window": ("hystart_low_window", int),
        "hystart_ack_delta": ("hystart_ack_delta_us", lambda v: round(int(v) / 1000)),
    },
    "vegas": {"alpha": ("alpha", int), "beta": ("beta", int), "gamma": ("gamma", int)},
    "bic": {"max_increment": ("max_increment", int), "low_window": ("low_window", int), "beta": ("beta", lambda v: round(float(v) * 1024)), "smooth_part": ("smooth_part", int), "fast_convergence": ("fast_convergence", int)},
    "htcp": {"rtt_scaling": ("use_rtt_scaling", int), "bandwidth_switch": ("use_bandwidth_switch", int)},
    "hybla": {"rtt0": ("rtt0", lambda v: round(int(v) / 1_000_000))},
    "dctcp": {"g": ("dctcp_shift_g", lambda v: round(-math.log2(float(v)))), "alpha_init": ("dctcp_alpha_on_init", lambda v: round(float(v) * 1024))},
}
"""Congestion-control parameters carried into the module's parameter (``/sys/module/tcp_<name>/
parameters/<param>``, in the module's units: CUBIC's beta in 1/1024, DCTCP's g as a shift).
CUBIC's C (``bic_scale``) is read-only once the kernel has booted: only crosslayer's default, 0.4
(Linux's 41/1024 x 10), is accepted. A module's parameters are global: flows of one congestion control with
different parameters are refused."""

TC_QDISCS: Final = ("droptail", "codel", "fq_codel", "pie", "fq_pie", "red", "choke")
"""crosslayer's queue disciplines the reference translates to ``tc`` (pfifo or bfifo for
droptail)."""

DESCRIPTION: Final = "/run/crosslayer/description.json"
"""Where the guest's init writes the run's description for the traffic program (the guest's own
tmpfs: the host's /tmp, where the project may live, stays visible)."""

ETHERNET: Final = 14
"""The Ethernet header a veth's qdisc counts; a size table (``stab overhead -14``) takes it off."""

SYSCTLS_LINUX: Final = {"net.ipv4.tcp_rmem": "4096 131072 268435456", "net.ipv4.tcp_wmem": "4096 16384 268435456", "net.core.rmem_max": "268435456", "net.core.wmem_max": "268435456"}
"""Socket buffers allowed to grow far beyond the window (crosslayer's receiver window is unlimited
unless ``[tcp] rwnd`` sets one; Linux's autotuning grows it within ``tcp_rmem``'s maximum)."""

TCP_FIXED: Final = ("initial_rto", "max_rto", "rto_rule", "rto_granularity", "ts_granularity", "rtt_samples", "recovery", "rack", "tlp", "slow_start", "ack_counting", "nextseg_rules", "nextseg_rule3_bound", "option_padding", "partial_ack_retransmit", "prr_dupack_credit", "rto_every_ssthresh", "disorder_growth", "exit_ack_growth", "sacked_retransmission_in_flight", "lost_head_kept", "syn_timeout", "syn_linear_timeouts", "syn_retries", "syn_loss_iw_retries", "data_retries", "quickack", "delack_timeout", "fin_ack", "pacing_credit", "syn_ecn_fallback")
"""TCP options that are Linux's own behaviour: the kernel has the ``linux`` profile's value and
no knob for another."""


def _qdisc(q: Mapping[str, Any], rate_bps: int, where: str, problems: list[str]) -> list[str]:
    """``tc`` words for queue discipline ``q`` (after ``qdisc add dev D parent P handle H``)."""
    kind = q["kind"]
    if kind not in TC_QDISCS:
        problems.append(f"{where}: queue discipline {kind!r} has no Linux 6.1 qdisc translated here (the reference has {', '.join(TC_QDISCS)})")
        return []
    defaults, params = _defaults("aqm", kind), _algorithm_params("aqm", kind)
    used: set[str] = {"kind"}

    def val(name: str) -> Any:
        used.add(name)
        return q.get(name, defaults.get(name))

    def us(name: str) -> str:
        return f"{round(int(val(name)) / 1000)}us"

    def ecn(name: str = "ecn") -> list[str]:
        return ["ecn"] if val(name) else (["noecn"] if kind in ("codel", "fq_codel", "pie", "fq_pie") else [])

    def ce_threshold() -> list[str]:
        """Linux's ``ce_threshold`` (sch_codel, sch_fq_codel) and, for fq_codel, its selector (5.16+)."""
        th = val("ce_threshold")
        if th is None:
            if kind == "fq_codel":
                val("ce_threshold_selector"), val("ce_threshold_mask")
            return []
        words = ["ce_threshold", f"{round(int(th) / 1000)}us"]
        if kind == "fq_codel" and int(val("ce_threshold_mask")):
            words += ["ce_threshold_selector", f"{int(val('ce_threshold_selector')):#x}/{int(val('ce_threshold_mask')):#x}"]
        return words

    def fixed(name: str, linux: Any, why: str) -> None:
        used.add(name)
        value = q.get(name, defaults.get(name))
        if value != linux:
            problems.append(f"{where}: {kind} {name} = {_show(params, name, value)}: {why} (set it to {_show(params, name, linux)})")

    if kind == "droptail":
        words = ["bfifo", "limit", str(int(val("limit_bytes")))] if val("limit_bytes") else ["pfifo", "limit", str(int(val("limit_pkts")))]
    elif kind == "codel":
        words = ["codel", "limit", str(int(val("limit_pkts"))), "target", us("target"), "interval", us("interval"), *ecn(), *ce_threshold()]
        fixed("mtu", 1514, "Linux's CoDel takes the device's MTU plus its header")
    elif kind == "fq_codel":
        words = ["fq_codel", "limit", str(int(val("limit_pkts"))), "flows", str(int(val("flows"))), "quantum", str(int(val("quantum"))), "target", us("target"), "interval", us("interval"), "drop_batch", str(int(val("drop_batch"))), *ecn(), *ce_threshold()]
        fixed("mtu", 1514, "Linux's FQ-CoDel takes the device's MTU plus its header")
    elif kind in ("pie", "fq_pie"):
        words = [kind, "limit", str(int(val("limit_pkts"))), "target", us("target"), "tupdate", us("tupdate"), "alpha", str(round(float(val("alpha")) * 16)), "beta", str(round(float(val("beta")) * 16)), *ecn()]
        for name in ("alpha", "beta"):
            if abs(float(val(name)) * 16 - round(float(val(name)) * 16)) > 1e-9:
                problems.append(f"{where}: {kind} {name} = {_show(params, name, val(name))}: Linux's PIE takes {name} in sixteenths")
        fixed("max_burst", 150_000_000, "Linux's PIE has a fixed 150 ms burst allowance")
        fixed("derandomize", True, "Linux 6.1's PIE always de-randomizes")
        if kind == "pie":
            words += ["bytemode" if val("bytemode") else "nobytemode"]
            fixed("variant", "linux", "the kernel runs its own PIE")
            fixed("ecn_threshold", 0.1, "Linux's PIE marks below a fixed 10 % probability")
            fixed("mean_pkt_size", 1514, "Linux's PIE scales by the device's MTU")
            fixed("dq_threshold", 16384, "Linux's rate estimator has a fixed 16 KiB threshold")
            fixed("dq_weight", 0.125, "Linux's rate estimator has a fixed weight")
        else:
            words += ["flows", str(int(val("flows"))), "quantum", str(int(val("quantum"))), "ecn_prob", str(round(float(val("ecn_prob")) * 100))]
            fixed("mtu", 1514, "Linux's FQ-PIE takes the device's MTU plus its header")
            fixed("first_update", 500_000_000, "Linux's FQ-PIE has no such knob")
    else:  # red, choke: Linux counts RED's thresholds in bytes, CHOKe's in packets
        size = int(val("mean_pkt_size"))
        limit = int(val("limit_pkts"))
        lo, hi = float(val("min_th")), float(val("max_th"))
        wlog = round(-math.log2(float(val("w_q"))))
        burst = red_burst(lo * size, wlog, size)
        if burst is None or abs(2.0**-wlog - float(val("w_q"))) > 0.03 * float(val("w_q")):
            problems.append(f"{where}: {kind} w_q = {_show(params, 'w_q', val('w_q'))}: Linux's RED averages with w_q a power of 1/2 (the nearest: {2.0**-wlog:g})")
        if kind == "red":
            words = ["red", "limit", str(limit * size), "min", str(round(lo * size)), "max", str(round(hi * size)), "avpkt", str(size)]
        else:
            words = ["choke", "limit", str(limit), "min", str(round(lo)), "max", str(round(hi)), "avpkt", str(size)]
        words += ["burst", str(burst or 1), "probability", repr(float(val("max_p"))), "bandwidth", f"{rate_bps}bit", *ecn()]
        if val("harddrop"):
            words.append("harddrop")
        fixed("gentle", False, "Linux's RED and CHOKe have no gentle region (above max_th every packet is dropped)")
        fixed("spacing", "linux", "the kernel spaces its drops its own way")
        if kind == "choke":
            fixed("draws", 1, "Linux's CHOKe draws one packet")
    for name, value in q.items():
        if name not in used and name not in ("limit_pkts", "limit_bytes") and value != defaults.get(name):
            problems.append(f"{where}: {kind} {name} = {_show(params, name, value)} is not translated to Linux (leave it at its default, {_show(params, name, defaults.get(name))})")
    return words


def red_wlog(qmin_bytes: float, burst: int, avpkt: int) -> int | None:
    """The averaging weight (as ``w_q = 2^-wlog``) that ``tc`` derives from RED's ``burst``: the
    largest weight for which a burst of ``burst`` packets arriving at an empty queue leaves the
    average below ``min``. With weight W the average after n arrivals at queue lengths 1..n is
    about ``(1 - (1-W)^n) / W`` packets short of n; ``tc`` takes the first (largest) W = 2^-wlog,
    wlog = 1, 2, ..., with ``burst + 1 - min/avpkt <= (1 - (1-W)^burst) / W``."""
    a = burst + 1 - qmin_bytes / avpkt
    if a < 1.0:
        return None
    w = 0.5
    for wlog in range(1, 32):
        if a <= (1 - (1 - w) ** burst) / w:
            return wlog
        w /= 2
    return None


def red_burst(qmin_bytes: float, wlog: int, avpkt: int) -> int | None:
    """The smallest ``burst`` for which ``tc`` chooses ``w_q = 2^-wlog`` (:func:`red_wlog`)."""
    for burst in range(1, 100_000):
        got = red_wlog(qmin_bytes, burst, avpkt)
        if got == wlog:
            return burst
        if got is not None and got > wlog:
            return None
    return None


def _tcp(name: str, cc: Mapping[str, Any], tcp: Mapping[str, Any], problems: list[str], notes: set[str]) -> dict[str, Any]:
    """One flow's socket options and the module parameters its congestion control needs."""
    kind = cc["kind"]
    if kind not in CC:
        problems.append(f"flow {name}: congestion control {kind!r} has no Linux 6.1 module (Linux has {', '.join(sorted(CC))})")
        return {}
    linux = catalog().tcp_profiles["linux"]
    tcp_params = catalog().tcp

    def opt(option: str) -> Any:
        value = tcp.get(option)
        return linux.get(option) if value is None else value

    for option in TCP_FIXED:
        value = tcp.get(option)
        if value is not None and value != linux.get(option):
            problems.append(f"flow {name}: [tcp] {option} = {_show(tcp_params, option, value)} is not Linux's (the kernel has {_show(tcp_params, option, linux.get(option))}): leave it unset")
    # Linux 6.1 feeds back as the congestion control says (dctcp per segment, RFC 3168 for the
    # others) and has no AccECN (RFC 9768)
    own = "dctcp" if kind == "dctcp" else "classic"
    feedback = tcp.get("ecn_feedback")
    if feedback is not None and feedback != own:
        problems.append(f"flow {name}: [tcp] ecn_feedback = {feedback}: Linux 6.1's receiver feeds back {kind}'s own way ({own}){' and has no AccECN' if feedback == 'accecn' else ''}: leave it unset")
    for option in ("accecn_option", "accecn_safety"):
        if tcp.get(option) is False:
            problems.append(f"flow {name}: [tcp] {option} = false: an AccECN setting, and Linux 6.1 has no AccECN: leave it unset")
    if tcp.get("initial_ssthresh") is not None:
        # a route's ssthresh metric is ignored while net.ipv4.tcp_no_ssthresh_metrics_save = 1
        # (its default in 6.1): the translation has no per-flow initial ssthresh
        problems.append(f"flow {name}: [tcp] initial_ssthresh = {tcp['initial_ssthresh']} is not translated to Linux (a route's ssthresh metric is ignored under the default tcp_no_ssthresh_metrics_save = 1): leave it unset")
    tsq = opt("tsq")
    if tsq == "off":
        problems.append(f"flow {name}: [tcp] tsq = off: the kernel holds every socket back with TCP small queues: leave it unset or set \"all\"")
    elif tsq == "paced" and not catalog().cc[kind].extras.get("paced"):
        notes.add(f"TCP small queues: the kernel applies them to every socket, the linux profile to paced flows only ([tcp] tsq = \"paced\"; window-limited CUBIC measures the same with and without them, docs/models/tcp.md): {kind} flows are not held back; tsq = \"all\" is the kernel's rule")
    if tcp.get("peer_ecn") not in (None, "same"):
        problems.append(f"flow {name}: [tcp] peer_ecn = {tcp['peer_ecn']} is not translated to Linux yet (the receiving host's net.ipv4.tcp_ecn): leave it unset")
    if tcp.get("handshake") is False:
        problems.append(f"flow {name}: [tcp] handshake = false: Linux always opens with a handshake")
    if tcp.get("teardown") is False:
        problems.append(f"flow {name}: [tcp] teardown = false: Linux always closes")
    timestamps = bool(opt("timestamps"))
    header = 40 + (12 if timestamps else 0)
    for option, fixed in (("header_size", header), ("ack_size", header)):
        value = tcp.get(option)
        if value is not None and int(value) != fixed:
            problems.append(f"flow {name}: [tcp] {option} = {value} B: Linux's is {fixed} B (IP and TCP headers{' with timestamps' if timestamps else ''}): leave it unset")
    if tcp.get("syn_size") is not None and int(tcp["syn_size"]) != linux["syn_size"]:
        problems.append(f"flow {name}: [tcp] syn_size = {tcp['syn_size']} B: Linux's SYN is {linux['syn_size']} B: leave it unset")
    module = MODULE.get(kind, f"tcp_{kind}")
    params: dict[str, int] = {}
    mapped = CC_PARAMS.get(kind, {})
    defaults = _defaults("cc", kind)
    # every mapped parameter is written, the study's value or crosslayer's default, so that the
    # kernel runs crosslayer's values and two flows of one algorithm can be seen to differ
    for p, (sysfs, convert) in mapped.items():
        value = cc.get(p, defaults.get(p))
        if value is not None:
            params[f"{module}/parameters/{sysfs}"] = convert(value)
    for p, value in cc.items():
        if p == "kind" or value is None or p in mapped:
            continue
        if value != defaults.get(p):
            problems.append(f"flow {name}: {kind} {p} = {_show(_algorithm_params('cc', kind), p, value)} is not translated to Linux (leave it at its default, {_show(_algorithm_params('cc', kind), p, defaults.get(p))})")
    if tcp.get("min_rto") is not None and int(tcp["min_rto"]) % 1_000_000:
        problems.append(f"flow {name}: [tcp] min_rto = {_show(tcp_params, 'min_rto', tcp['min_rto'])}: a Linux route keeps rto_min in whole milliseconds")
    mss = int(tcp["mss"])
    rwnd = tcp.get("rwnd")
    if rwnd:
        notes.add("rwnd: the receiving socket's SO_RCVBUF is set to rwnd (the kernel doubles it and advertises about half: a window near rwnd, in window-scale steps)")
    return {
        "cc": CC[kind],
        "module_params": params,
        # TCP_MAXSEG counts the timestamps option: the payload per segment is mss
        "maxseg": mss + (12 if timestamps else 0),
        "wire": mss + header,
        "rcvbuf": int(rwnd) if rwnd else 0,
        "sysctl": {
            "net.ipv4.tcp_sack": int(bool(opt("sack"))),
            "net.ipv4.tcp_timestamps": int(timestamps),
            "net.ipv4.tcp_ecn": 1 if opt("ecn") or kind == "dctcp" else 2,
            "net.ipv4.tcp_slow_start_after_idle": int(bool(opt("slow_start_after_idle"))),
        },
        "route": {
            "initcwnd": int(tcp.get("initial_cwnd") or 10),
            # the route's rto_min is kept in whole milliseconds
            **({"rto_min": f"{round(int(tcp['min_rto']) / 1_000_000)}ms"} if tcp.get("min_rto") is not None and int(tcp["min_rto"]) != linux["min_rto"] else {}),
        },
        "quickack": not bool(opt("delayed_ack")),
    }


def _pairs(halves: list[tuple[str, str, Mapping[str, Any]]], problems: list[str]) -> list[tuple[str, str, Mapping[str, Any], Mapping[str, Any]]]:
    """The links as (a, b, edge a->b, edge b->a): a veth pair carries both directions."""
    by = {(a, b): e for a, b, e in halves}
    out, seen = [], set()
    for a, b, e in halves:
        if (a, b) in seen:
            continue
        back = by.get((b, a))
        if back is None:
            problems.append(f"link {a}->{b} has no {b}->{a}: a veth pair carries both directions (give the link both)")
            continue
        seen |= {(a, b), (b, a)}
        out.append((a, b, e, back))
    return out


def _addr(k: int, base: int) -> str:
    v = base + k
    return f"{v >> 24 & 255}.{v >> 16 & 255}.{v >> 8 & 255}.{v & 255}"


LINK_BASE: Final = 10 << 24
"""Veth pairs take /30 subnets from 10.0.0.0/8 (4 addresses each)."""
NODE_BASE: Final = (172 << 24) | (16 << 16)
"""Each node's own address (on its loopback) comes from 172.16.0.0/12: the flows' ends."""


def translate(spec: Mapping[str, Any], flows: Any, links: Any, udp: Any = None) -> Translation:
    """The Linux description of the engine spec ``spec`` given one crosslayer run of it (as
    :func:`crosslayer.crosscheck.ns3.translate`). Raises :class:`Untranslatable`."""
    problems: list[str] = []
    notes: set[str] = set()
    topo = spec["topology"]
    if topo.get("kind") not in ("dumbbell", "graph"):
        raise Untranslatable([f"topology kind {topo.get('kind')!r}: crosscheck translates dumbbells and graphs"], SIMULATOR)
    if spec.get("udp"):
        problems.append(f"{len(spec['udp'])} UDP flows: the Linux reference carries TCP flows only for now")
    if topo["kind"] == "dumbbell":
        left, right = dict(zip(links["role"], links["link"], strict=True))["forward"].split("->")
        nodes = [*(h["name"] for h in topo["senders"]), left, right, *(h["name"] for h in topo["receivers"])]
    else:
        left = right = ""
        nodes = [n["name"] for n in topo["nodes"]]
    ns = {n: f"n{k}" for k, n in enumerate(nodes)}
    node_addr = {n: _addr(k + 1, NODE_BASE) for k, n in enumerate(nodes)}
    halves = _halves(topo, left, right)
    specs = flow_specs(spec, flows, problems, SIMULATOR)
    rows = list(flows.itertuples(index=False))
    tcps = []
    for f, row in zip(specs, rows, strict=True):
        for key in ("stop", "app_rate", "abort", "on_off"):
            if f.get(key) is not None:
                problems.append(f"flow {row.name}: {key} is not translated to Linux yet")
        if f.get("dscp"):
            problems.append(f"flow {row.name}: dscp {f['dscp']} is not translated to Linux")
        tcps.append(_tcp(str(row.name), f["cc"], f["tcp"], problems, notes))
    wire = max([t["wire"] for t in tcps if t] or [1500])
    mtu = max(1500, wire)

    namespaces = list(ns.values())
    veths: list[dict[str, Any]] = []
    egress: list[dict[str, Any]] = []
    hop: dict[str, list[tuple[str, str, str]]] = {}  # "a->b": [(namespace, device, next hop address)]
    device: dict[str, tuple[str, str]] = {}  # "a->b": the namespace and device whose qdisc is the link's queue
    where_is = {v: k for k, v in ns.items()}  # a namespace as a message names it

    def veth(a_ns: str, b_ns: str) -> tuple[str, str, str, str]:
        k = len(veths)
        a_dev, b_dev = f"v{k}a", f"v{k}b"
        a_ip, b_ip = _addr(4 * k + 1, LINK_BASE), _addr(4 * k + 2, LINK_BASE)
        mac = lambda side: "02:00:" + ":".join(f"{b:02x}" for b in (2 * k + side).to_bytes(4, "big"))  # noqa: E731 - locally administered
        veths.append({"a": a_ns, "b": b_ns, "a_dev": a_dev, "b_dev": b_dev, "a_addr": a_ip, "b_addr": b_ip, "a_mac": mac(0), "b_mac": mac(1)})
        return a_dev, b_dev, a_ip, b_ip

    for k, (a, b, ab, ba) in enumerate(_pairs(halves, problems)):
        for e, (x, y) in ((ab, (a, b)), (ba, (b, a))):
            for key, value in e.items():
                if key not in ("rate", "delay", "loss", "qdisc") and value:
                    problems.append(f"link {x}->{y}: {key} has no Linux translation here (rate, delay, Bernoulli loss and the queue are)")
        # every link has its relay: its netem carries the serialization htb does not add and the
        # propagation delay (zero or not)
        relay = f"r{k}"
        namespaces.append(relay)
        where_is[relay] = f"the relay of link {a}<->{b}"
        a_dev, ra_dev, a_ip, ra_ip = veth(ns[a], relay)
        rb_dev, b_dev, rb_ip, b_ip = veth(relay, ns[b])
        hop[f"{a}->{b}"] = [(ns[a], a_dev, ra_ip), (relay, rb_dev, b_ip)]
        hop[f"{b}->{a}"] = [(ns[b], b_dev, rb_ip), (relay, ra_dev, a_ip)]
        device[f"{a}->{b}"], device[f"{b}->{a}"] = (ns[a], a_dev), (ns[b], b_dev)
        for e, (x, y) in ((ab, (a, b)), (ba, (b, a))):
            name = f"{x}->{y}"
            rate = int(e["rate"])
            q_ns, q_dev = device[name]
            entry: dict[str, Any] = {"link": name, "ns": q_ns, "dev": q_dev, "rate_bps": rate, "burst": mtu + ETHERNET, "qdisc": _qdisc(e["qdisc"], rate, f"link {name}", problems)}
            entry["delay"] = {"ns": relay, "dev": hop[name][1][1], "delay_us": round(int(e.get("delay") or 0) / 1000), "rate_bps": rate, "loss": float(e.get("loss") or 0.0)}
            egress.append(entry)
    if any(int(e["delay"]) % 1000 for _, _, e in halves):
        notes.add("delays: netem takes whole microseconds; the links' delays are rounded to them")

    routes: dict[tuple[str, str], tuple[str, str]] = {}
    route_opts: dict[tuple[str, str], dict[str, Any]] = {}
    for row, t in zip(rows, tcps, strict=True):
        for path, dst in ((str(row.route), str(row.dst)), (str(row.ack_route), str(row.src))):
            for leg in path.split(","):
                if leg not in hop:
                    problems.append(f"flow {row.name}: its path uses {leg}, which is not a link")
                    continue
                for where, dev, via in hop[leg]:
                    key = (where, node_addr[dst])
                    if routes.setdefault(key, (via, dev)) != (via, dev):
                        problems.append(f"flow {row.name}: {where_is[where]} reaches {dst} by two paths (Linux routes by destination): give the flows to one host one path")
        if t:
            # the route options sit on the first hop's route: the sender's (and the receiver's ACKs)
            first_fwd = hop.get(str(row.route).split(",")[0], [None])[0]
            first_back = hop.get(str(row.ack_route).split(",")[0], [None])[0]
            if first_fwd:
                opts = dict(t["route"])
                if route_opts.setdefault((first_fwd[0], node_addr[str(row.dst)]), opts) != opts:
                    problems.append(f"flow {row.name}: flows from one host to one host with different initial_cwnd or min_rto (Linux sets them per route)")
            if first_back and t["quickack"]:
                route_opts.setdefault((first_back[0], node_addr[str(row.src)]), {})["quickack"] = 1
    sysctl: dict[str, dict[str, int]] = {}
    module_params: dict[str, int] = {}
    out_flows = []
    for k, (row, t) in enumerate(zip(rows, tcps, strict=True)):
        if not t:
            continue
        for host in (str(row.src), str(row.dst)):
            mine = sysctl.setdefault(ns[host], dict(t["sysctl"]))
            if mine != t["sysctl"]:
                problems.append(f"flow {row.name}: host {host} has flows with different sack, timestamps, ecn or slow_start_after_idle (Linux sets them per host)")
        for p, v in t["module_params"].items():
            if module_params.setdefault(p, v) != v:
                problems.append(f"flow {row.name}: flows of {t['cc']} with different parameters (a Linux module's parameters are global: {p})")
        out_flows.append({
            "name": str(row.name), "src": ns[str(row.src)], "dst": ns[str(row.dst)], "src_addr": node_addr[str(row.src)], "dst_addr": node_addr[str(row.dst)],
            "port": 5001 + k, "cc": t["cc"], "ecn": t["sysctl"]["net.ipv4.tcp_ecn"] == 1, "start_s": float(row.start_s), "size_bytes": int(row.size_bytes), "maxseg": t["maxseg"], "rcvbuf": t["rcvbuf"],
        })  # fmt: skip
    if problems:
        raise Untranslatable(problems, SIMULATOR)
    notes.add("timeouts: counted per sending host (TCPTimeouts in /proc/net/netstat); a host's count is given to its first flow")
    notes.add("sojourn time: not measured in Linux (its qdiscs keep no per-packet delay statistics)")
    notes.add("UML's clock ticks at HZ = 100: delayed-ACK and retransmission timers fire on 10 ms jiffies (a kernel with HZ = 1000 rounds to 1 ms)")
    notes.add("randomness: the guest's (initial sequence numbers, hash perturbations, netem's loss) is not seeded from crosslayer's seed; repeated runs with several flows differ a little")
    bottlenecks = list(dict.fromkeys(str(b) for b in flows["bottleneck"]))
    description = {
        "format": 1,
        "linux": KERNEL_VERSION,
        "seed": int(spec["seed"]),
        **run_times(spec, 10_000_000),
        "mtu": mtu,
        "namespaces": namespaces,
        "node_addrs": {ns[n]: node_addr[n] for n in nodes},
        "veths": veths,
        "egress": egress,
        "routes": [{"ns": where, "dst": dst, "via": via, "dev": dev, **route_opts.get((where, dst), {})} for (where, dst), (via, dev) in sorted(routes.items())],
        "sysctl": {k: dict(sorted(v.items())) for k, v in sorted(sysctl.items())},
        "module_params": dict(sorted(module_params.items())),
        "bottlenecks": {name: {"ns": device[name][0], "dev": device[name][1]} for name in bottlenecks},
        "series": series_link(spec, links),
        "flows": out_flows,
    }
    return Translation(description, tuple(sorted(notes)))


def commands(d: Mapping[str, Any]) -> list[str]:
    """The guest's set-up, one shell command per line: namespaces, veths, addresses, qdiscs,
    routes, sysctls, module parameters."""
    q = shlex.quote
    out = [f"ip netns add {n}" for n in d["namespaces"]]
    for n in d["namespaces"]:
        out.append(f"ip -n {n} link set lo up")
        for key in ("net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0", *(f"{k}={q(v)}" for k, v in SYSCTLS_LINUX.items() if not k.startswith("net.core"))):
            out.append(f"ip netns exec {n} sysctl -qw {key}")
    for n, addr in d["node_addrs"].items():
        out.append(f"ip -n {n} addr add {addr}/32 dev lo")
    for v in d["veths"]:
        out.append(f"ip link add {v['a_dev']} netns {v['a']} address {v['a_mac']} mtu {d['mtu']} type veth peer name {v['b_dev']} netns {v['b']} address {v['b_mac']} mtu {d['mtu']}")
        for side, peer in (("a", "b"), ("b", "a")):
            n, dev, addr = v[side], v[f"{side}_dev"], v[f"{side}_addr"]
            out.append(f"ip -n {n} addr add {addr}/30 dev {dev}")
            # the neighbour is known: no ARP exchange (through netem's delay) before a hop's first packet
            out.append(f"ip -n {n} neigh replace {v[f'{peer}_addr']} lladdr {v[f'{peer}_mac']} dev {dev} nud permanent")
            out.append(f"ip netns exec {n} ethtool -K {dev} tso off gso off gro off")
            out.append(f"ip -n {n} link set {dev} up")
    for e in d["egress"]:
        n, dev = e["ns"], e["dev"]
        out.append(f"tc -n {n} qdisc add dev {dev} root handle 1: stab overhead -{ETHERNET} htb default 1")
        out.append(f"tc -n {n} class add dev {dev} parent 1: classid 1:1 htb rate {e['rate_bps']}bit ceil {e['rate_bps']}bit burst {e['burst']}b cburst {e['burst']}b")
        out.append(f"tc -n {n} qdisc add dev {dev} parent 1:1 handle 10: {' '.join(e['qdisc'])}")
        if "delay" in e:
            dl = e["delay"]
            loss = f" loss random {dl['loss'] * 100!r}%" if dl["loss"] else ""
            out.append(f"tc -n {dl['ns']} qdisc add dev {dl['dev']} root stab overhead -{ETHERNET} netem delay {dl['delay_us']}us rate {dl['rate_bps']}bit limit 1000000{loss}")
    for r in d["routes"]:
        opts = "".join(f" {k} {r[k]}" for k in ("initcwnd", "rto_min", "quickack") if k in r)
        out.append(f"ip -n {r['ns']} route replace {r['dst']}/32 via {r['via']} dev {r['dev']}{opts}")
    for n, values in d["sysctl"].items():
        for k, v in values.items():
            out.append(f"ip netns exec {n} sysctl -qw {k}={v}")
    for k, v in SYSCTLS_LINUX.items():
        if k.startswith("net.core"):
            out.append(f"sysctl -qw {k}={v}")
    for path, v in d["module_params"].items():
        out.append(f"echo {int(v)} > /sys/module/{path}")
    return out


def traffic_program() -> str:
    """The host path of the traffic program the guest runs (visible through its read-only root)."""
    return str(resources.files("crosslayer.crosscheck").joinpath("linux_traffic.py"))


def program(d: Mapping[str, Any], python: str | None = None, traffic: str | None = None) -> str:
    """The guest's init for description ``d``: a shell script that mounts what it needs, builds
    the topology (:func:`commands`), runs the traffic program, writes ``result.json`` beside
    itself (the host's folder of the script, mounted read-write on the guest's ``/mnt``) and
    powers the guest off. A failing command ends the run with its name."""
    python = python or sys.executable
    traffic = traffic or traffic_program()
    lines = [
        "#!/bin/sh",
        f"# crosslayer crosscheck --with linux: the User-mode Linux guest's init (Linux {KERNEL_VERSION}, time-travel)",
        "export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C HOME=/run/crosslayer",
        'HERE=$(dirname "$0")',
        # power off: the kernel's sysrq (no program needed), else the host's Python
        "off() { echo o > /proc/sysrq-trigger; sleep 1; exec " + shlex.quote(python) + " -I -c 'import ctypes; ctypes.CDLL(None).sync(); ctypes.CDLL(None).reboot(0x4321FEDC)'; }",
        'fail() { echo "crosslayer-guest: failed: $*" >&2; off; }',
        'run() { "$@" 2>/run/crosslayer/err || { cat /run/crosslayer/err >&2; fail "$*"; }; }',
        # /tmp stays the host's (read-only): the project and its Python may live under it
        "mount -t proc proc /proc && mount -t sysfs sysfs /sys && mount -t tmpfs tmpfs /run && mkdir -p /run/crosslayer || { echo 'crosslayer-guest: cannot mount /proc, /sys, /run' >&2; off; }",
        'mount -t hostfs hostfs /mnt -o "$HERE" || fail "mount the results folder (the host\'s $HERE) on /mnt"',
        f"cat > {DESCRIPTION} <<'CROSSLAYER_EOF'",
        json.dumps(d, indent=None, sort_keys=True),
        "CROSSLAYER_EOF",
    ]
    lines += [f"run {c}" if ">" not in c else f"{c} || fail {shlex.quote(c)}" for c in commands(d)]
    lines.append(f"{shlex.quote(python)} -I {shlex.quote(traffic)} {DESCRIPTION} /mnt/result.json || fail 'the traffic program'")
    lines.append("off")
    return "\n".join(lines) + "\n"


def check_run(program_text: str, raw: Mapping[str, Any]) -> None:
    """That the kernel ran what was asked: each flow's congestion control (read back from its
    socket) and ECN where the flow asked for it. Raises ``ValueError`` naming the flow."""
    head = f"cat > {DESCRIPTION} <<'CROSSLAYER_EOF'\n"
    d = json.loads(program_text.split(head, 1)[1].split("\nCROSSLAYER_EOF", 1)[0])
    for want, got in zip(d["flows"], raw["flows"], strict=True):
        if got.get("cc") != want["cc"]:
            raise ValueError(f"flow {want['name']}: the kernel ran congestion control {got.get('cc')!r}, not {want['cc']!r}")
        if want.get("ecn") and got.get("options") is not None and not got["options"]["ecn"]:
            raise ValueError(f"flow {want['name']}: ECN was asked for but the handshake did not agree it")


def kernel_argv(kernel: str | os.PathLike[str], init: str, memory_mb: int = 1024) -> list[str]:
    """The command line that boots the reference kernel with ``init`` as its first process:
    the host's ``/`` read-only as its root, virtual time, the console on standard error."""
    return [str(kernel), f"mem={memory_mb}M", "rootfstype=hostfs", "rootflags=/", "ro", f"init={init}", "time-travel=inf-cpu", "con=null", "con0=null,fd:2", "quiet"]


GUEST_TOOLS = {"ip": "iproute2", "tc": "iproute2", "ethtool": "ethtool"}
"""The host programs the guest's init runs (the guest sees the host's files), and their Debian
packages."""


def guest_tools_missing() -> list[str]:
    """The Debian packages of the guest's programs (:data:`GUEST_TOOLS`) this host lacks."""
    import shutil

    return sorted({pkg for prog, pkg in GUEST_TOOLS.items() if shutil.which(prog) is None})


def find_kernel(given: str | os.PathLike[str] | None = None) -> str:
    """The reference kernel: ``given``, else ``$CROSSLAYER_LINUX``, else the one ``crosslayer
    linux-ref build`` cached. Raises ``FileNotFoundError`` with how to build it, or naming the
    packages of the guest's programs the host lacks."""
    from crosslayer.crosscheck import linux_kernel

    missing = guest_tools_missing()
    if missing:
        raise FileNotFoundError(
            f"the reference kernel's guest runs this host's {', '.join(sorted(GUEST_TOOLS))}; missing here: "
            f"install them with `apt-get install {' '.join(missing)}`"
        )

    for candidate in (given, os.environ.get("CROSSLAYER_LINUX")):
        if candidate:
            if Path(candidate).is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
            raise FileNotFoundError(f"{candidate}: no such kernel (build one with `crosslayer linux-ref build`)")
    cached = linux_kernel.find_kernel()
    if cached is None:
        raise FileNotFoundError(
            "the Linux reference kernel is not built: run `crosslayer linux-ref build` (Debian's linux-source-6.1 package, "
            f"about {linux_kernel.MINUTES} minutes on 2 cores, cached under {linux_kernel.cache_dir()}), or pass --kernel PATH"
        )
    return str(cached)
