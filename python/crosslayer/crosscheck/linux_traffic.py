"""The Linux reference's traffic and measuring program: run inside the User-mode Linux guest by the
guest's init (:func:`crosslayer.crosscheck.linux.program`), with the host's Python and nothing but
its standard library (the guest's root is the host's ``/``, read-only).

``python linux_traffic.py DESCRIPTION.json RESULT.json``

One process holds every flow: it enters each flow's namespaces (``setns``) to open the flow's
listening socket in the receiver's namespace and its sending socket in the sender's (a socket
stays in the namespace it was made in), then runs one event loop. The guest runs in virtual time
(time-travel): computation takes none, so the application reads and writes the instant the socket
allows (an application that never limits TCP), and every timer below fires at its exact time.

Measured (the shape ``crosslayer.crosscheck`` reads, as from ns-3 and ns-2)
* a flow's goodput: ``tcpi_bytes_received`` on the receiving socket (in-order payload) at the
  end minus at the warm-up's end, over the window; retransmissions: the sender's
  ``tcpi_total_retrans`` likewise; a finite flow's completion: when the receiving application has
  read ``size`` bytes, from the flow's start;
* retransmission timeouts and fast recoveries: ``TCPTimeouts`` and ``TCPSackRecovery`` +
  ``TCPRenoRecovery`` in the sending host's ``/proc/net/netstat`` (Linux 6.1's ``tcp_info`` has
  no count of them), given to the host's first flow;
* each bottleneck's queue: the rtnetlink counters (``tc -s qdisc``'s) of the link's root (the shaper and its queue): the
  backlog in packets sampled every ``sample_interval_s`` over the window (mean and SD), and the
  queue discipline's drops over its arrivals (sent + dropped + the backlog's change);
* every flow's cwnd (``tcpi_snd_cwnd``) and smoothed RTT sampled alongside.
"""

from __future__ import annotations

import ctypes
import heapq
import json
import math
import os
import selectors
import socket
import struct
import sys
import time

CLONE_NEWNET = 0x40000000
TCP_CONGESTION = 13
TCP_INFO = 11
TCP_MAXSEG = 2
INFO_LEN = 232
_libc = ctypes.CDLL(None, use_errno=True)
PR_SET_TIMERSLACK = 29
# a user's timers may fire up to 50 us late by default (timer slack): 1 ns makes every start and
# sample exact in virtual time
_libc.prctl(PR_SET_TIMERSLACK, 1, 0, 0, 0)
_ROOT = os.open("/proc/self/ns/net", os.O_RDONLY)
CHUNK = b"\0" * 262144


def enter(ns: str | None) -> None:
    """Move this process into namespace ``ns`` (None: the guest's own)."""
    fd = _ROOT if ns is None else os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            raise OSError(ctypes.get_errno(), f"setns {ns}")
    finally:
        if ns is not None:
            os.close(fd)


def tcp_info(sock: socket.socket) -> dict[str, int]:
    """The fields of ``struct tcp_info`` (Linux 6.1) the measurements read."""
    b = sock.getsockopt(socket.IPPROTO_TCP, TCP_INFO, INFO_LEN)
    b = b.ljust(INFO_LEN, b"\0")
    rtt_us, _, ssthresh, cwnd = struct.unpack_from("<4I", b, 68)
    (total_retrans,) = struct.unpack_from("<I", b, 100)
    options = b[5]
    bytes_acked, bytes_received = struct.unpack_from("<2Q", b, 120)
    segs_out, segs_in = struct.unpack_from("<2I", b, 136)
    return {"options": options, "rtt_us": rtt_us, "ssthresh": ssthresh, "cwnd": cwnd, "total_retrans": total_retrans, "bytes_acked": bytes_acked, "bytes_received": bytes_received, "segs_out": segs_out, "segs_in": segs_in}


def netstat(ns: str) -> dict[str, int]:
    """The TcpExt counters of namespace ``ns`` (``/proc/net/netstat``)."""
    enter(ns)
    try:
        with open("/proc/thread-self/net/netstat") as f:
            lines = f.read().splitlines()
    finally:
        enter(None)
    for names, values in zip(lines[::2], lines[1::2]):
        if names.startswith("TcpExt:"):
            return {k: int(v) for k, v in zip(names.split()[1:], values.split()[1:])}
    return {}


NLM_F_REQUEST, NLM_F_DUMP, NLMSG_DONE, NLMSG_ERROR = 0x1, 0x300, 3, 2
RTM_GETQDISC, TCA_KIND, TCA_STATS2, TCA_STATS_BASIC, TCA_STATS_QUEUE = 38, 1, 7, 1, 3


class Qdiscs:
    """The counters of one device's qdiscs, read over rtnetlink (a ``tc -s`` would cost a process
    per sample: tens of milliseconds of the host's time each, in UML)."""

    def __init__(self, ns: str, dev: str) -> None:
        enter(ns)
        try:
            self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)  # NETLINK_ROUTE
            self.ifindex = socket.if_nametoindex(dev)
        finally:
            enter(None)
        self.seq = 0

    def stats(self) -> dict[str, dict[str, int]]:
        """By handle (``"1:"``, ``"10:"``): packets and bytes sent, drops, qlen, backlog."""
        self.seq += 1
        tcmsg = struct.pack("<BxxxiIII", socket.AF_UNSPEC, 0, 0, 0, 0)
        self.sock.send(struct.pack("<IHHII", 16 + len(tcmsg), RTM_GETQDISC, NLM_F_REQUEST | NLM_F_DUMP, self.seq, 0) + tcmsg)
        out: dict[str, dict[str, int]] = {}
        while True:
            data = self.sock.recv(1 << 16)
            pos = 0
            while pos + 16 <= len(data):
                length, kind, _, _, _ = struct.unpack_from("<IHHII", data, pos)
                if kind == NLMSG_DONE:
                    return out
                if kind == NLMSG_ERROR:
                    raise OSError(-struct.unpack_from("<i", data, pos + 16)[0], "RTM_GETQDISC")
                _, ifindex, handle, _, _ = struct.unpack_from("<BxxxiIII", data, pos + 16)
                if ifindex == self.ifindex:
                    out[f"{handle >> 16:x}:"] = self._attrs(data[pos + 36 : pos + length])
                pos += (length + 3) & ~3

    @staticmethod
    def _attrs(b: bytes) -> dict[str, int]:
        got: dict[str, int] = {}
        pos = 0
        while pos + 4 <= len(b):
            alen, atype = struct.unpack_from("<HH", b, pos)
            if atype == TCA_STATS2:
                inner, ipos = b[pos + 4 : pos + alen], 0
                while ipos + 4 <= len(inner):
                    ilen, itype = struct.unpack_from("<HH", inner, ipos)
                    if itype == TCA_STATS_BASIC:
                        got["bytes"], got["packets"] = struct.unpack_from("<QI", inner, ipos + 4)
                    elif itype == TCA_STATS_QUEUE:
                        got["qlen"], got["backlog"], got["drops"], _, _ = struct.unpack_from("<5I", inner, ipos + 4)
                    ipos += (ilen + 3) & ~3
            pos += (alen + 3) & ~3
        return got


class Flow:
    """One TCP flow: its listening, receiving and sending sockets and what it has done."""

    def __init__(self, k: int, f: dict, sel: selectors.BaseSelector) -> None:
        self.k, self.f, self.sel = k, f, sel
        self.size = int(f["size_bytes"])
        self.sent = 0
        self.read = 0
        self.fct: float | None = None
        self.options: int | None = None
        self.sender: socket.socket | None = None
        self.receiver: socket.socket | None = None
        enter(f["dst"])
        try:
            self.listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            # the receiver runs the flow's congestion control too: a DCTCP SYN is ECT, which a
            # listener accepts as ECN only if it needs ECN itself (RFC 3168 forbids ECT SYNs)
            self.listener.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, f["cc"].encode())
            self._options(self.listener)
            self.listener.bind((f["dst_addr"], int(f["port"])))
            self.listener.listen(4)
            self.listener.setblocking(False)
        finally:
            enter(None)
        sel.register(self.listener, selectors.EVENT_READ, ("accept", self))

    def _options(self, s: socket.socket) -> None:
        s.setsockopt(socket.IPPROTO_TCP, TCP_MAXSEG, int(self.f["maxseg"]))
        if self.f["rcvbuf"]:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, int(self.f["rcvbuf"]))

    def start(self, t0: float) -> None:
        self.t_start = time.monotonic() - t0
        enter(self.f["src"])
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, self.f["cc"].encode())
            self._options(s)
            s.bind((self.f["src_addr"], 0))
            s.setblocking(False)
            s.connect_ex((self.f["dst_addr"], int(self.f["port"])))
        finally:
            enter(None)
        self.sender = s
        self.cc = s.getsockopt(socket.IPPROTO_TCP, TCP_CONGESTION, 16).rstrip(b"\0").decode()
        self.sel.register(s, selectors.EVENT_WRITE, ("send", self))

    def on_send(self) -> None:
        assert self.sender is not None
        while self.size == 0 or self.sent < self.size:
            want = len(CHUNK) if self.size == 0 else min(len(CHUNK), self.size - self.sent)
            try:
                n = self.sender.send(CHUNK[:want] if want < len(CHUNK) else CHUNK)
            except BlockingIOError:
                return
            except OSError as e:
                raise SystemExit(f"flow {self.f['name']}: send: {e}") from None
            self.sent += n
        self.sel.unregister(self.sender)
        self.sender.shutdown(socket.SHUT_WR)

    def on_accept(self) -> None:
        conn, _ = self.listener.accept()
        conn.setblocking(False)
        self.receiver = conn
        self.sel.unregister(self.listener)
        self.sel.register(conn, selectors.EVENT_READ, ("recv", self))

    def on_recv(self, t0: float) -> None:
        assert self.receiver is not None
        while True:
            try:
                data = self.receiver.recv(1 << 20)
            except BlockingIOError:
                return
            if not data:
                self.sel.unregister(self.receiver)
                return
            self.read += len(data)
            if self.size and self.fct is None and self.read >= self.size:
                self.fct = time.monotonic() - t0 - float(self.f["start_s"])

    def snapshot(self) -> dict[str, int]:
        rx = tcp_info(self.receiver) if self.receiver is not None else {"bytes_received": 0, "segs_out": 0}
        tx = tcp_info(self.sender) if self.sender is not None else {"total_retrans": 0, "segs_out": 0}
        if self.sender is not None:
            self.options = tx["options"]
        return {"bytes_received": rx["bytes_received"], "total_retrans": tx["total_retrans"], "segments_sent": tx["segs_out"], "acks_sent": rx["segs_out"]}


def main(description: str, result_path: str) -> None:
    d = json.load(open(description))
    warmup, end, every = float(d["warmup_s"]), float(d["duration_s"]), float(d["sample_interval_s"])
    sel = selectors.DefaultSelector()
    flows = [Flow(k, f, sel) for k, f in enumerate(d["flows"])]
    senders = list(dict.fromkeys(f["src"] for f in d["flows"]))
    first_of = {ns: next(k for k, f in enumerate(d["flows"]) if f["src"] == ns) for ns in senders}
    bottlenecks = d["bottlenecks"]
    qdiscs = {name: Qdiscs(b["ns"], b["dev"]) for name, b in bottlenecks.items()}
    samples: dict[str, list[int]] = {name: [] for name in bottlenecks}
    series: dict[str, list[float]] = {"t_s": [], "qlen_pkts": []}
    cwnd: dict[str, dict[str, list[float]]] = {f["name"]: {"t_s": [], "cwnd_pkts": [], "srtt_s": []} for f in d["flows"]}
    marks: dict[str, dict] = {}
    timers: list[tuple[float, int, str, int]] = []
    seq = 0

    def at(t: float, what: str, k: int = 0) -> None:
        nonlocal seq
        heapq.heappush(timers, (t, seq, what, k))
        seq += 1

    for k, f in enumerate(d["flows"]):
        at(float(f["start_s"]), "start", k)
    at(warmup, "warm")
    # samples from the start, every sample_interval_s as crosslayer's series and cwnd trace;
    # the queue's mean and SD take those in the window
    for i in range(int(math.floor(end / every + 1e-9))):
        at(i * every, "sample")
    at(end, "end")
    for s in range(1, int(end) + 1):
        at(float(s), "progress")

    def mark() -> dict:
        return {
            "flows": [fl.snapshot() for fl in flows],
            "netstat": {ns: netstat(ns) for ns in senders},
            "queues": {name: q.stats() for name, q in qdiscs.items()},
        }

    t0 = time.monotonic()
    wall0 = time.perf_counter()
    while True:
        now = time.monotonic() - t0
        while timers and timers[0][0] <= now:
            t, _, what, k = heapq.heappop(timers)
            if what == "start":
                flows[k].start(t0)
            elif what == "warm":
                marks["warm"] = mark()
            elif what == "sample":
                for name, q in qdiscs.items():
                    qlen = int(q.stats()["1:"].get("qlen", 0))
                    if t >= warmup:
                        samples[name].append(qlen)
                    if name == d["series"]:
                        series["t_s"].append(round(t, 6))
                        series["qlen_pkts"].append(qlen)
                for fl in flows:
                    if fl.sender is not None:
                        info = tcp_info(fl.sender)
                        c = cwnd[fl.f["name"]]
                        c["t_s"].append(round(t, 6))
                        c["cwnd_pkts"].append(info["cwnd"])
                        c["srtt_s"].append(info["rtt_us"] / 1e6)
            elif what == "progress":
                print(f"progress {t:g} {end:g}", file=sys.stderr, flush=True)
            elif what == "end":
                marks["end"] = mark()
                break
        if "end" in marks:
            break
        timeout = max(0.0, timers[0][0] - (time.monotonic() - t0)) if timers else None
        for key, _ in sel.select(timeout):
            kind, fl = key.data
            if kind == "send":
                fl.on_send()
            elif kind == "accept":
                fl.on_accept()
            else:
                fl.on_recv(t0)
    window = end - warmup
    w, e = marks["warm"], marks["end"]
    out_flows = []
    for k, fl in enumerate(flows):
        a, b = w["flows"][k], e["flows"][k]
        host = fl.f["src"]
        out_flows.append({
            "name": fl.f["name"],
            "goodput_bps": (b["bytes_received"] - a["bytes_received"]) * 8 / window,
            "retransmits": b["total_retrans"] - a["total_retrans"],
            "timeouts": e["netstat"][host].get("TCPTimeouts", 0) - w["netstat"][host].get("TCPTimeouts", 0) if first_of[host] == k else 0,
            # fast recoveries (SACK recovery episodes), counted per host as the timeouts
            "recoveries": sum(e["netstat"][host].get(c, 0) - w["netstat"][host].get(c, 0) for c in ("TCPSackRecovery", "TCPRenoRecovery")) if first_of[host] == k else 0,
            "fct_s": fl.fct,
            # segments the sender sent and segments (ACKs) the receiver sent in the window
            "segments_sent": b["segments_sent"] - a["segments_sent"],
            "acks_sent": b["acks_sent"] - a["acks_sent"],
            # what the kernel ran: the congestion control the socket has, and the options the
            # handshake agreed (tcpi_options: 1 timestamps, 2 SACK, 8 ECN)
            "cc": getattr(fl, "cc", None),
            "options": {k: bool(fl.options & bit) for k, bit in (("timestamps", 1), ("sack", 2), ("ecn", 8))} if fl.options is not None else None,
        })  # fmt: skip
    queues = {}
    for name in bottlenecks:
        qa, qb = w["queues"][name], e["queues"][name]
        leaf_a, leaf_b = qa["10:"], qb["10:"]
        drops = leaf_b["drops"] - leaf_a["drops"]
        arrivals = (leaf_b["packets"] - leaf_a["packets"]) + drops + (leaf_b.get("qlen", 0) - leaf_a.get("qlen", 0))
        v = samples[name]
        mean = sum(v) / len(v) if v else None
        sd = math.sqrt(sum((x - mean) ** 2 for x in v) / len(v)) if v and mean is not None else None
        queues[name] = {"qlen_mean_pkts": mean, "qlen_sd_pkts": sd, "drop_ratio": drops / arrivals if arrivals else None, "sojourn_p99_s": None, "arrivals": arrivals, "drops": drops}
    result = {
        "format": 1,
        "window_s": window,
        "flows": out_flows,
        "queues": queues,
        "series": series,
        "cwnd": cwnd,
        # each sending host's TcpExt counters that moved in the window (for diagnosis)
        "netstat": {ns: {k: v - w["netstat"][ns].get(k, 0) for k, v in e["netstat"][ns].items() if v != w["netstat"][ns].get(k, 0)} for ns in senders},
        "run_wall_s": time.perf_counter() - wall0,
        "events": 0,
    }
    with open(result_path + ".part", "w") as f:
        json.dump(result, f)
    os.replace(result_path + ".part", result_path)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
