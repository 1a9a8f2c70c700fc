"""`crosslayer crosscheck --with linux`: the translation into the guest's commands (no kernel
needed), what it refuses, and, where the reference kernel is built (`crosslayer linux-ref
build`; `make test` builds it when the machine allows), a short run of the real kernel."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path

import pytest

import crosslayer
from crosslayer.crosscheck import Untranslatable, crosscheck, linux, with_profile
from crosslayer.scenario import Scenario

DATA = Path(__file__).parent / "data" / "linux"


def _translate(data: dict | None = None, path: Path = DATA / "translate.toml"):
    sc = Scenario.from_dict(data, source="test") if data is not None else Scenario.from_toml(path)
    sc = with_profile(sc, "linux")
    r = crosslayer.run(sc)
    return linux.translate(sc.to_engine_spec(), r.flows, r.queues, r.udp), r


def test_the_translation_gives_the_reviewed_commands() -> None:
    """A fixed study (tests/data/linux/translate.toml) gives exactly the reviewed commands. After
    a deliberate change, regenerate with
    ``python -c "from tests.test_crosscheck_linux import regenerate; regenerate()"`` and review
    the diff."""
    t, _ = _translate()
    expected = (DATA / "translate.commands").read_text().splitlines()
    assert linux.commands(t.description) == expected


def regenerate() -> None:
    t, _ = _translate()
    (DATA / "translate.commands").write_text("\n".join(linux.commands(t.description)) + "\n")


def test_the_translation_carries_each_element() -> None:
    t, r = _translate()
    d = t.description
    cmds = linux.commands(d)
    # the bottleneck's CoDel under the shaper, at the study's values, in microseconds
    assert any("parent 1:1 handle 10: codel limit 200 target 4000us interval 80000us noecn" in c for c in cmds)
    assert any("htb rate 20000000bit ceil 20000000bit burst 1514b cburst 1514b" in c for c in cmds)
    assert all("stab overhead -14 htb default 1" in c for c in cmds if "root handle 1:" in c)
    # the bottleneck's relay, both ways: netem serializes again at the link's rate (each packet
    # leaves at the end of its own transmission time) and adds the 10 ms propagation delay
    assert sum(c.endswith("stab overhead -14 netem delay 10000us rate 20000000bit limit 1000000") for c in cmds) == 2
    assert all(" rate " in c for c in cmds if " netem " in c)
    # RED in bytes (thresholds x mean packet size) with the burst that makes tc choose w_q = 2^-9
    red = next(c for c in cmds if " red limit " in c).split()
    burst = int(red[red.index("burst") + 1])
    assert red[red.index("min") + 1] == "15000" and red[red.index("max") + 1] == "45000"
    assert linux.red_wlog(15000, burst, 1500) == 9 and linux.red_wlog(15000, burst - 1, 1500) != 9
    # module parameters, every one written: CUBIC's beta 0.8 = 819/1024, HyStart off; Vegas's alpha and beta (the study's) and gamma (crosslayer's default)
    p = d["module_params"]
    assert (p["tcp_cubic/parameters/beta"], p["tcp_cubic/parameters/hystart"]) == (819, 0)
    assert (p["tcp_vegas/parameters/alpha"], p["tcp_vegas/parameters/beta"], p["tcp_vegas/parameters/gamma"]) == (3, 6, 1)
    # per-destination route options: IW 4 everywhere, the Vegas flow's min RTO 300 ms, its
    # receiver without delayed ACKs (quickack)
    f1, f2 = d["flows"]
    routes = {(x["ns"], x["dst"]): x for x in d["routes"]}
    assert routes[(f1["src"], f1["dst_addr"])]["initcwnd"] == 4 and "rto_min" not in routes[(f1["src"], f1["dst_addr"])]
    assert routes[(f2["src"], f2["dst_addr"])]["rto_min"] == "300ms"
    assert routes[(f2["dst"], f2["src_addr"])].get("quickack") == 1 and "quickack" not in routes[(f1["dst"], f1["src_addr"])]
    # sockets: the payload is the mss (1448) with timestamps, so TCP_MAXSEG = 1460; the window;
    # the finite flow's size and crosslayer's drawn start
    assert f1["maxseg"] == f2["maxseg"] == 1460
    assert (f1["rcvbuf"], f2["rcvbuf"]) == (0, 256 * 1024)
    assert (f1["size_bytes"], f2["size_bytes"]) == (0, 200_000)
    assert [f["start_s"] for f in d["flows"]] == [float(v) for v in r.flows.start_s]
    # ECN on the Vegas flow's hosts only
    assert d["sysctl"][f2["src"]]["net.ipv4.tcp_ecn"] == 1 and d["sysctl"][f1["src"]]["net.ipv4.tcp_ecn"] == 2
    # the guest's init has the commands and ends with the traffic program and power-off
    prog = linux.program(d, python="/usr/bin/python3", traffic="/x/linux_traffic.py")
    assert prog.startswith("#!/bin/sh\n")
    assert "run tc -n" in prog and "/x/linux_traffic.py /run/crosslayer/description.json /mnt/result.json" in prog
    # the host's /tmp stays visible in the guest: a clone there runs its own Python and program
    assert "tmpfs /tmp" not in prog
    assert prog.rstrip().endswith("off")


BASE = {
    "name": "refuse",
    "duration": "2s",
    "topology": {
        "kind": "dumbbell",
        "bottleneck": {"rate": "20Mbps", "delay": "5ms", "qdisc": {"kind": "droptail", "limit_pkts": 50}},
        "senders": [{"name": "s", "rate": "1Gbps", "delay": "1ms"}],
        "receivers": [{"name": "d", "rate": "1Gbps", "delay": "1ms"}],
    },
    "flows": [{"src": "s", "dst": "d", "cc": "cubic"}],
}


@pytest.mark.parametrize(
    ("change", "says"),
    [
        ({"flows": [{"src": "s", "dst": "d", "cc": "compound"}]}, "congestion control 'compound' has no Linux 6.1 module"),
        ({"topology.qdisc": {"kind": "red", "gentle": True}}, "Linux's RED and CHOKe have no gentle region"),
        ({"topology.qdisc": {"kind": "red", "gentle": False, "w_q": 0.003}}, "w_q a power of 1/2"),
        ({"flows": [{"src": "s", "dst": "d", "cc": {"kind": "cubic", "c": 0.5}}]}, "cubic c = 0.5 is not translated to Linux"),
        ({"topology.qdisc": {"kind": "sfqcodel"}}, "queue discipline 'sfqcodel' has no Linux 6.1 qdisc"),
        ({"topology.qdisc": {"kind": "pie", "max_burst": "100ms"}}, "fixed 150 ms burst"),
        ({"tcp": {"recovery": "rfc6675"}}, "[tcp] recovery = rfc6675 is not Linux's (the kernel has prr)"),
        ({"tcp": {"handshake": False}}, "Linux always opens with a handshake"),
        ({"tcp": {"pacing_credit": False}}, "[tcp] pacing_credit = false is not Linux's"),
        ({"tcp": {"ecn": True, "ecn_feedback": "accecn"}}, "[tcp] ecn_feedback = accecn: Linux 6.1's receiver feeds back cubic's own way (classic) and has no AccECN"),
        ({"tcp": {"ecn": True, "accecn_safety": False}}, "[tcp] accecn_safety = false: an AccECN setting"),
        ({"tcp": {"tsq": "off"}}, "[tcp] tsq = off: the kernel holds every socket back with TCP small queues"),
        ({"tcp": {"ecn": True, "peer_ecn": "off"}}, "[tcp] peer_ecn = off is not translated to Linux yet"),
        ({"tcp": {"syn_ecn_fallback": False}}, "[tcp] syn_ecn_fallback = false is not Linux's"),
        ({"flows": [{"src": "s", "dst": "d", "cc": {"kind": "cubic", "beta": 0.7}}, {"src": "s", "dst": "d", "cc": {"kind": "cubic", "beta": 0.5}}]}, "a Linux module's parameters are global"),
        ({"flows": [{"src": "s", "dst": "d", "cc": {"kind": "highspeed", "low_window": 20}}]}, "highspeed low_window = 20.0 is not translated to Linux"),
    ],
)
def test_what_linux_cannot_express_is_refused_by_name(change: dict, says: str) -> None:
    import copy

    data = copy.deepcopy(BASE)
    for key, value in change.items():
        if key == "topology.qdisc":
            data["topology"]["bottleneck"]["qdisc"] = value
        else:
            data[key] = value
    with pytest.raises(Untranslatable) as err:
        _translate(data)
    assert says in str(err.value), str(err.value)


@pytest.mark.parametrize(
    ("qdisc", "words"),
    [
        ({"kind": "fq_codel", "ce_threshold": "1ms", "ce_threshold_selector": 1, "ce_threshold_mask": 1}, "ecn ce_threshold 1000us ce_threshold_selector 0x1/0x1"),
        ({"kind": "fq_codel", "ce_threshold": "500us"}, "ecn ce_threshold 500us"),
        ({"kind": "codel", "ce_threshold": "2ms"}, "noecn ce_threshold 2000us"),
    ],
)
def test_ce_threshold_and_its_selector_are_given_to_tc(qdisc: dict, words: str) -> None:
    """Linux's ce_threshold (sch_codel, sch_fq_codel) and fq_codel's ce_threshold_selector
    VALUE/MASK (Linux 5.16+, so in the 6.1 reference kernel)."""
    import copy

    data = copy.deepcopy(BASE)
    data["topology"]["bottleneck"]["qdisc"] = qdisc
    t, _ = _translate(data)
    line = next(c for c in linux.commands(t.description) if f" {qdisc['kind']} limit " in c)
    assert line.endswith(words), line


def test_red_weight_from_burst_is_tcs_rule() -> None:
    """tc derives RED's weight from ``burst``: the first (largest) W = 2^-wlog for which ``burst +
    1 - min/avpkt <= (1 - (1-W)^burst) / W``; the smallest burst for each weight inverts it."""
    for wlog in range(3, 13):
        burst = linux.red_burst(5 * 1500, wlog, 1500)
        assert burst is not None and linux.red_wlog(5 * 1500, burst, 1500) == wlog
        assert burst == 1 or linux.red_wlog(5 * 1500, burst - 1, 1500) != wlog
    assert linux.red_wlog(30 * 1500, 10, 1500) is None  # a burst below min: tc refuses it


def test_a_kernel_panic_is_reported_at_once() -> None:
    """A panicked UML kernel may hang instead of exiting: the run stops at the panic line and
    says so (a stand-in process prints the line, then would sleep for 10 minutes)."""
    import time

    from crosslayer.crosscheck import OtherSimulatorError, _run

    script = "echo 'Kernel panic - not syncing: Attempted to kill init! exitcode=0x00000100' >&2; sleep 600\n"
    t0 = time.monotonic()
    with pytest.raises(OtherSimulatorError, match="kernel panicked .*Attempted to kill init"):
        _run(script, "init.sh", lambda path, result: ["sh", path], "Linux", None, None, None)
    assert time.monotonic() - t0 < 30


def test_missing_guest_tools_are_named(monkeypatch: pytest.MonkeyPatch) -> None:
    """The guest runs the host's ip, tc and ethtool: without one, the error names its package."""
    import shutil

    real = shutil.which
    monkeypatch.setattr(shutil, "which", lambda prog, *a, **k: None if prog == "ethtool" else real(prog, *a, **k))
    assert linux.guest_tools_missing() == ["ethtool"]
    with pytest.raises(FileNotFoundError, match="apt-get install ethtool"):
        linux.find_kernel()


# -- the real kernel ------------------------------------------------------------------------------


def _kernel() -> str:
    try:
        return linux.find_kernel()
    except FileNotFoundError as exc:
        pytest.skip(f"the Linux reference kernel is not built here ({str(exc).splitlines()[0]})")


def _boot(script: str, timeout: float = 120) -> tuple[str, str]:
    """Boot the kernel with ``script`` as init; the file it writes to /mnt/out, and the console."""
    kernel = _kernel()
    with tempfile.TemporaryDirectory() as tmp:
        init = Path(tmp) / "init.sh"
        init.write_text(script.replace("@HERE@", tmp))
        init.chmod(0o755)
        proc = subprocess.run(["env", f"TMPDIR={tempfile.gettempdir()}", *linux.kernel_argv(kernel, str(init))], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        out = Path(tmp) / "out"
        return (out.read_text() if out.exists() else ""), proc.stderr


def test_the_kernel_takes_the_translated_red_weight() -> None:
    """In the kernel, ``tc`` turns the translation's RED burst into the weight crosslayer asked for
    (ewma 9: w_q = 1/512), and the time-travel clock is exact (a 250 ms sleep with a 1 ns timer
    slack, as the traffic program sets, is 250 ms to the microsecond)."""
    burst = linux.red_burst(15000, 9, 1500)
    script = f"""#!/bin/sh
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
mount -t proc proc /proc; mount -t sysfs sysfs /sys; mount -t tmpfs tmpfs /run; mount -t tmpfs tmpfs /tmp
mount -t hostfs hostfs /mnt -o @HERE@
ip link add name xa type veth peer name xb
tc qdisc add dev xa root handle 1: stab overhead -14 htb default 1
tc class add dev xa parent 1: classid 1:1 htb rate 20000000bit ceil 20000000bit burst 1514b cburst 1514b
tc qdisc add dev xa parent 1:1 handle 10: red limit 150000 min 15000 max 45000 avpkt 1500 burst {burst} probability 0.05 bandwidth 20000000bit
tc -d qdisc show dev xa > /mnt/out 2>&1
python3 -I -c 'import ctypes, time; ctypes.CDLL(None).prctl(29, 1, 0, 0, 0); t=time.monotonic(); time.sleep(0.25); print("slept", round(time.monotonic()-t, 6))' >> /mnt/out
python3 -I -c 'import ctypes; ctypes.CDLL(None).reboot(0x4321FEDC)'
"""
    out, console = _boot(script)
    assert "ewma 9 " in out, out + console
    slept = float(out.split("slept ")[1].split()[0])
    assert abs(slept - 0.25) <= 2e-6, out + console


def test_one_flow_in_the_kernel_agrees_with_the_linux_profile() -> None:
    """One CUBIC flow, 20 Mb/s, RTT 40 ms, a 67-packet (BDP) DropTail, 5 s: the kernel and the
    ``linux`` profile agree within the crosscheck's bars, slow start step for step (the same cwnd
    at every 50 ms up to 150 ms), and the kernel's run is the same byte for byte when repeated."""
    _kernel()
    data = {
        "name": "linux-one-flow",
        "duration": "5s",
        "warmup": "1s",
        "sample_interval": "10ms",
        "cwnd_trace": True,
        "topology": {
            "kind": "dumbbell",
            "bottleneck": {"rate": "20Mbps", "delay": "10ms", "qdisc": {"kind": "droptail", "limit_pkts": 67}},
            "senders": [{"name": "s", "rate": "1Gbps", "delay": "5ms"}],
            "receivers": [{"name": "d", "rate": "1Gbps", "delay": "5ms"}],
        },
        "flows": [{"src": "s", "dst": "d", "cc": "cubic"}],
    }
    sc = Scenario.from_dict(data, source="test")
    first = crosscheck(sc, "linux", timeout_s=600)
    verdicts = {m.name: m.verdict for m in first.metrics}
    assert verdicts["goodput_bps"] == "agrees" and verdicts["qlen_mean_pkts@A->B"] == "agrees" and verdicts["retransmits"] == "agrees", first.markdown()
    ours, theirs = first.ours[0].cwnd["s-d.0"], first.theirs[0].cwnd["s-d.0"]
    at = lambda s, t: s[1][min(range(len(s[0])), key=lambda i: abs(s[0][i] - t))]  # noqa: E731
    assert [at(ours, t) for t in (0.0, 0.05, 0.1, 0.15)] == [at(theirs, t) for t in (0.0, 0.05, 0.1, 0.15)] == [10, 10, 20, 40]
    # the kernel run again (fresh: not the run the crosscheck cache kept of the same program,
    # which would make the two identical by construction)
    again = crosscheck(sc, "linux", timeout_s=600, fresh=True)
    assert again.cached == ()
    assert again.theirs[0].flows == first.theirs[0].flows
    assert json.dumps(again.theirs[0].cwnd) == json.dumps(first.theirs[0].cwnd)
