"""Packet capture: the pcap files of a lossy run with SACK recovery, read back by tshark, agree
with the engine's own counters for those links and flows (packets, retransmissions, duplicate
ACKs, SACK blocks); the files are well-formed pcap without tshark too; the size cap holds; bad
[pcap] tables are named. ``make test`` installs Debian's tshark when it can, so CI runs the
tshark test."""

from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import pytest
from crosslayer import run
from crosslayer.scenario import Scenario, ScenarioError


def lossy(**pcap: Any) -> dict[str, Any]:
    """One CUBIC flow (SACK, timestamps, delayed ACKs) over 10 Mb/s with 1 % random loss on the
    bottleneck, stopping before the end so that every link is idle when the run ends."""
    return {
        "name": "pcap",
        "duration": "10s",
        "topology": {
            "bottleneck": {"rate": "10Mbps", "delay": "10ms", "loss": 0.01, "qdisc": {"kind": "droptail", "limit_pkts": 100}},
            "senders": [{"name": "S", "rate": "100Mbps", "delay": "1ms"}],
            "receivers": [{"name": "R", "rate": "100Mbps", "delay": "1ms"}],
        },
        "flows": [{"src": "S", "dst": "R", "cc": "cubic", "stop": "8s"}, {"src": "S", "dst": "R", "cc": "reno", "stop": "8s"}],
        "pcap": pcap or {"hosts": ["S", "R"], "links": ["A->B"]},
    }


def records(data: bytes) -> list[tuple[int, int, int, bytes]]:
    """(ns timestamp, captured length, original length, bytes) of each record of a pcap file."""
    magic, major, minor, _, _, snaplen, linktype = struct.unpack("<IHHiIII", data[:24])
    assert (magic, major, minor, linktype) == (0xA1B23C4D, 2, 4, 101)  # nanosecond pcap, raw IPv4
    out, k = [], 24
    while k < len(data):
        sec, nsec, incl, orig = struct.unpack("<IIII", data[k : k + 16])
        assert incl <= snaplen and incl <= orig
        out.append((sec * 10**9 + nsec, incl, orig, data[k + 16 : k + 16 + incl]))
        k += 16 + incl
    return out


def test_the_files_hold_every_packet_the_links_sent_in_order_with_valid_headers(tmp_path: Path) -> None:
    r = run(lossy())
    assert set(r.captures) == {"A-B.pcap", "S.pcap", "R.pcap"}
    q = r.queues.set_index("link")
    tx = lambda link: int(q.loc[link, "tx_pkts"])  # noqa: E731 (the run's whole window: no warm-up)
    assert len(records(r.captures["A-B.pcap"])) == tx("A->B")  # wire losses included: they left
    # a host's interface: what it sent, and what its link delivered to it (no loss on those)
    assert len(records(r.captures["S.pcap"])) == tx("S->A") + tx("A->S")
    assert len(records(r.captures["R.pcap"])) == tx("R->B") + tx("B->R")
    for rec in records(r.captures["A-B.pcap"])[:500]:
        _, incl, orig, b = rec
        assert b[0] == 0x45 and b[9] == 6 and struct.unpack(">H", b[2:4])[0] == orig
        words = struct.unpack(">10H", b[:20])
        total = sum(words)
        while total > 0xFFFF:
            total = (total & 0xFFFF) + (total >> 16)
        assert total == 0xFFFF, "IPv4 header checksum"
    times = [t for t, *_ in records(r.captures["S.pcap"])]
    assert times == sorted(times)
    r.save(tmp_path / "out")
    assert sorted(p.name for p in (tmp_path / "out" / "pcap").iterdir()) == ["A-B.pcap", "R.pcap", "S.pcap"]


def test_the_size_cap_is_never_exceeded_and_what_it_missed_is_counted() -> None:
    r = run(lossy(links=["A->B"], max_bytes="64KiB"))
    data = r.captures["A-B.pcap"]
    assert len(data) <= 64 * 1024
    written = len(records(data))
    assert written + r.summary["pcap_missed"] == int(r.queues.set_index("link").loc["A->B", "tx_pkts"])
    assert r.summary["pcap_missed"] > 0 and r.summary["pcap_packets"] == written


def test_no_capture_by_default() -> None:
    r = run({k: v for k, v in lossy().items() if k != "pcap"})
    assert r.captures == {} and "pcap_packets" not in r.summary


@pytest.mark.parametrize(
    ("pcap", "expected"),
    [
        ({"links": ["A->C"]}, 'pcap.links[0]: no link "A->C"; links are: A->B, B->A'),
        ({"hosts": ["A"]}, 'pcap.hosts[0]: "A" is not a host'),
        ({"links": ["A->B"], "snaplen": "32B"}, "pcap.snaplen: must be in [64B, 65535B]"),
        ({"links": ["A->B"], "max_bytes": "9GiB"}, "pcap.max_bytes: must be in [1KiB, 8GiB]"),
        ({"links": ["S->A"], "hosts": ["S"]}, "pcap: what S->A sends would be in two files (S-A.pcap and S.pcap)"),
        ({"links": []}, 'pcap: name what to capture: links = ["A->B"] or hosts = ["N1"]'),
    ],
)
def test_bad_pcap_tables_are_named(pcap: dict[str, Any], expected: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(lossy(**pcap))
    assert expected in str(info.value)


def tshark_count(path: Path, display_filter: str, fields: str | None = None) -> int:
    cmd = ["tshark", "-n", "-r", str(path), "-Y", display_filter]
    if fields:
        cmd += ["-T", "fields", "-e", fields]
    out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
    if fields:
        return sum(len([v for v in line.split(",") if v]) for line in out.splitlines())
    return len(out.splitlines())


def test_tshark_reads_a_lossy_run_and_agrees_with_the_engine(tmp_path: Path) -> None:
    if not shutil.which("tshark"):
        pytest.skip("no tshark on this machine, and `make test` could not install it (it needs root and apt-get; Debian: apt install tshark)")
    r = run(lossy())
    folder = r.save(tmp_path / "out") / "pcap"
    q = r.queues.set_index("link")
    flows = r.flows
    s_addr, r_addr = "10.0.0.1", "10.0.0.4"  # node i is 10.0.0.(i + 1): S, A, B, R
    # packets: tshark reads every record
    assert tshark_count(folder / "A-B.pcap", "ip") == int(q.loc["A->B", "tx_pkts"])
    assert tshark_count(folder / "S.pcap", f"ip.src == {s_addr}") == int(q.loc["S->A", "tx_pkts"])
    assert tshark_count(folder / "R.pcap", f"ip.src == {r_addr}") == int(q.loc["R->B", "tx_pkts"])
    assert tshark_count(folder / "R.pcap", f"tcp.flags.syn == 1 && ip.src == {r_addr}") == int(flows["synacks_sent"].sum())
    # retransmissions, at the sender's interface: Wireshark calls a retransmission sent within
    # the first RTT of the newest segment "out-of-order" (its heuristic threshold), so the two
    # together are the retransmissions; nothing else can be out of order where packets leave.
    retx = tshark_count(folder / "S.pcap", "tcp.analysis.retransmission || tcp.analysis.out_of_order")
    assert retx == int(flows["retransmits"].sum()) > 20
    assert tshark_count(folder / "S.pcap", "tcp.analysis.fast_retransmission") > 0  # SACK recovery
    # duplicate ACKs and SACK blocks, at the receiver's interface
    assert tshark_count(folder / "R.pcap", f"tcp.analysis.duplicate_ack && ip.src == {r_addr}") == int(flows["dup_acks"].sum()) > 50
    assert tshark_count(folder / "R.pcap", f"ip.src == {r_addr}", "tcp.options.sack_le") == int(flows["sack_blocks"].sum()) > 50
    assert tshark_count(folder / "S.pcap", "tcp.options.timestamp.tsval && tcp.window_size_scalefactor == 128") > 0


def test_tshark_sees_the_ecn_marks_echoes_and_reductions(tmp_path: Path) -> None:
    if not shutil.which("tshark"):
        pytest.skip("no tshark on this machine, and `make test` could not install it (it needs root and apt-get; Debian: apt install tshark)")
    data = lossy(links=["A->B"], hosts=["R"])
    data["topology"]["bottleneck"].update(loss=0.0, qdisc={"kind": "codel", "ecn": True})
    data["tcp"] = {"ecn": True}
    r = run(data)
    folder = r.save(tmp_path / "out") / "pcap"
    marks = int(r.queues.set_index("link").loc["A->B", "marks"])
    assert marks > 10
    assert tshark_count(folder / "A-B.pcap", "ip.dsfield.ecn == 3") == marks  # CE, as CoDel marked them
    assert tshark_count(folder / "A-B.pcap", "ip.dsfield.ecn == 2") > 0  # ECT(0) data
    assert tshark_count(folder / "R.pcap", "tcp.flags.ece == 1 && ip.src == 10.0.0.4") > 0  # echoed
    assert tshark_count(folder / "A-B.pcap", "tcp.flags.cwr == 1 && tcp.flags.syn == 0") == int(r.flows["ecn_reductions"].sum())
    # the negotiation (RFC 3168 section 6.1.1): ECN-setup SYNs (ECE and CWR), SYN-ACKs with ECE alone
    assert tshark_count(folder / "A-B.pcap", "tcp.flags == 0x0c2") == len(r.flows)
    assert tshark_count(folder / "R.pcap", "tcp.flags == 0x052") == int(r.flows["synacks_sent"].sum())
