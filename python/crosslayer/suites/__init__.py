"""Standard evaluation suites: sets of study files shipped with crosslayer, run through the study
layer (store, resume, Dask) and summarized by the suite's own report.

A suite is its study files (``crosslayer/data/suites/<name>/*.toml``, each citing the document
section it implements) and a report module (``crosslayer.suites.<name>``) that reads the stores
and writes the document's tables and figures with a verdict for each stated expectation.

    crosslayer suite list
    crosslayer suite run l4s [-o results/suites/l4s] [--aqm ...] [--cc ...] [--set ...] [--quick]
    crosslayer suite check results/suites/l4s   # the report's recorded runs (cells.json) run again

``--aqm`` and ``--cc`` replace the queue discipline and the congestion control under test in the
studies that declare where they are (``SuiteStudy.aqm_path`` and ``cc_path``); ``--quick`` runs
the reduced version the tests run (short runs, one seed, a few points).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

DATA: Final = Path(__file__).resolve().parents[1] / "data" / "suites"


@dataclass(frozen=True)
class SuiteStudy:
    """One study file of a suite."""

    file: str
    """Its file name under ``data/suites/<suite>/``."""
    aqm_path: str | None = None
    """The scenario path ``--aqm`` sets (None: the study sweeps the discipline itself)."""
    cc_path: str | None = None
    """The scenario path ``--cc`` sets (None: the study is about one algorithm's own rule)."""
    cc_value: Callable[[Any], Any] | None = None
    """What ``--cc X`` sets there when the path is an axis that keeps a baseline (e.g. ``["reno",
    X]``); None: X itself."""
    quick: Mapping[str, Any] = field(default_factory=dict)
    """Overrides of the reduced version (``--quick``), besides the suite's own."""


@dataclass(frozen=True)
class Suite:
    name: str
    title: str
    source: str
    """The documents it implements."""
    studies: tuple[SuiteStudy, ...]
    quick: Mapping[str, Any]
    """Overrides every study of the reduced version takes."""

    def path(self, study: SuiteStudy) -> Path:
        return DATA / self.name / study.file

    def report(self) -> Callable[..., Path]:
        """The suite's report writer: ``write(stores: dict[str, Store], out: Path) -> Path``."""
        return importlib.import_module(f"crosslayer.suites.{self.name}").write  # type: ignore[no-any-return]


class SuiteError(ValueError):
    """An unknown suite, or options it cannot take."""


_QUICK: Final = {"duration": "8s", "warmup": "3s", "study.seeds": 1}


def _with_reno(cc: Any) -> list[Any]:
    """A TCP axis keeping Reno, the TCP evaluation suite's "standard TCP", beside ``cc``."""
    return ["reno", cc]


def _with_cubic(cc: Any) -> list[Any]:
    """The L4S bursty-arrival test's bulk-flow axis: ``cc`` (the Scalable sender under test)
    beside CUBIC, the Classic control."""
    return [cc, "cubic"]

SUITES: Final[dict[str, Suite]] = {
    "l4s": Suite(
        name="l4s",
        title="L4S: DualQ coupling, L-queue latency (DualPI2 and FQ-CoDel's L4S mode), overload, classic-ECN fallback, RTT independence, a varying drain rate, scalability, bursty arrivals, ECN feedback (AccECN), AccECN negotiation and middleboxes",
        source="RFC 9330, RFC 9331, RFC 9332",
        studies=(
            SuiteStudy(
                "coupling.toml", "topology.bottleneck.qdisc", "flows[0].cc",
                quick={"topology.bottleneck.rate": ["20Mbps", "100Mbps"], "topology.bottleneck.delay": ["10ms"], "flows[1].cc": ["cubic"]},
            ),
            SuiteStudy("latency.toml", "topology.bottleneck.qdisc", "flows[0].cc", quick={"topology.bottleneck.rate": ["100Mbps"], "flows[0].per_pair": [1, 4]}),
            SuiteStudy(
                "latency-mixed.toml", "topology.bottleneck.qdisc", "flows[0].cc",
                quick={"topology.bottleneck.rate": ["100Mbps"], "flows[0].per_pair": [4], "flows[1].per_pair": [1]},
            ),
            SuiteStudy("overload.toml", "topology.bottleneck.qdisc", "flows[0].cc", quick={"udp[0].rate": ["20Mbps", "60Mbps"]}),
            SuiteStudy("fallback.toml", None, "flows[0].cc", quick={"topology.bottleneck.delay": ["10ms"]}),
            SuiteStudy("rtt.toml", "topology.bottleneck.qdisc", None, quick={}),
            SuiteStudy("varying.toml", "topology.bottleneck.qdisc", "flows[0].cc"),
            SuiteStudy(
                "bursty.toml", "topology.bottleneck.qdisc", "flows[0].cc", _with_cubic,
                quick={"topology.bottleneck.delay": ["20ms"], "flows[0].cc": ["prague"]},
            ),
            SuiteStudy("feedback.toml", "topology.bottleneck.qdisc", "flows[0].cc", quick={"topology.reverse.loss": ["0%", "30%"], "flows[0].tcp": ["accecn", "accecn_no_option", "classic"]}),
            SuiteStudy("negotiation.toml", "topology.bottleneck.qdisc", None, quick={"flows[0].tcp": ["accecn", "off"]}),
        ),
        quick=_QUICK,
    ),
    "rfc7928": Suite(
        name="rfc7928",
        title="RFC 7928 AQM characterization: transport senders, packet sizes, RTT fairness with and without ECN, burst absorption, congestion levels, varying capacity, traffic mix, bidirectional traffic, two AQMs in a row",
        source="RFC 7928 sections 4.4, 4.5, 5, 6, 7, 8.2, 9, 10",
        studies=(
            SuiteStudy("transport.toml", None, None, quick={"duration": "40s", "warmup": "10s", "topology.bottleneck.qdisc": ["droptail", "pie", "codel"]}),
            SuiteStudy("unresponsive.toml", None, None, quick={"topology.bottleneck.qdisc": ["droptail", "codel"]}),
            SuiteStudy("unresponsive-tcp.toml", None, "flows[0].cc", quick={"topology.bottleneck.qdisc": ["droptail", "codel"]}),
            SuiteStudy("rtt-fairness.toml", None, "flows[*].cc", quick={"duration": "40s", "warmup": "10s", "topology.senders": ["10ms", "100ms"], "topology.bottleneck.qdisc": ["droptail", "codel"]}),
            SuiteStudy("congestion.toml", None, "flows[0].cc", quick={"topology.bottleneck.qdisc": ["droptail", "codel"]}),
            SuiteStudy("varying-congestion.toml", None, "flows[*].cc", quick={"duration": "120s", "warmup": "0s", "topology.bottleneck.qdisc": ["droptail", "codel"]}),
            SuiteStudy("capacity.toml", None, "flows[0].cc", quick={"duration": "20s", "topology.bottleneck.qdisc": ["droptail", "codel"]}),
            SuiteStudy("packet-size.toml", None, "flows[*].cc", quick={"topology.bottleneck.qdisc": ["droptail", "codel", "red_byte"]}),
            SuiteStudy("bursts.toml", None, None, quick={"flows": ["I", "IV"], "topology.bottleneck.qdisc": ["droptail", "codel"]}),
            SuiteStudy("traffic-mix.toml", None, None, quick={"topology.bottleneck.qdisc": ["droptail", "fq_codel"]}),
            SuiteStudy("bidirectional.toml", None, "flows[*].cc"),
            SuiteStudy("multi-aqm.toml", None, "flows[*].cc"),
        ),
        quick={"duration": "20s", "warmup": "5s", "study.seeds": 1},
    ),
    "tcpeval": Suite(
        name="tcpeval",
        title="TCP evaluation suite: the basic scenarios (data center, access link, trans-oceanic, satellite, wireless LAN, dial-up at 60-110 % load), the delay/throughput trade-off, ramp-up time, transients, impact on standard TCP, intra-protocol and inter-RTT fairness, multiple bottlenecks",
        source="draft-irtf-iccrg-tcpeval-01 sections 4.4.1-4.4.6, 5.1-5.3, 6.1-6.3",
        studies=(
            SuiteStudy("data-center.toml", None, "arrivals[*].cc", _with_reno),
            SuiteStudy("access-link.toml", None, "arrivals[*].cc", _with_reno),
            SuiteStudy("trans-oceanic.toml", None, "arrivals[*].cc", _with_reno),
            SuiteStudy("satellite.toml", None, "arrivals[*].cc", _with_reno, quick={"duration": "400s", "warmup": "100s"}),
            SuiteStudy("wireless-lan.toml", None, "arrivals[*].cc", _with_reno, quick={"duration": "120s", "warmup": "20s"}),
            SuiteStudy("dial-up.toml", None, "arrivals[*].cc", _with_reno, quick={"duration": "4000s", "warmup": "500s"}),
            SuiteStudy("buffer.toml", None, "arrivals[*].cc", _with_reno),
            SuiteStudy("rampup.toml", None, "flows[*].cc, arrivals[*].cc", _with_reno, quick={"duration": "40s", "warmup": "20s", "flows[0].start": "5s", "flows[1].start": "20s"}),
            SuiteStudy("transients.toml", None, "flows[*].cc", _with_reno, quick={"duration": "62s", "warmup": "30s"}),
            SuiteStudy("impact.toml", None, "arrivals[4].cc, arrivals[5].cc, arrivals[6].cc, arrivals[7].cc", _with_reno),
            SuiteStudy(
                "inter-rtt.toml", None, "flows[*].cc, arrivals[*].cc",
                quick={"topology.senders": ["160/160", "160/10"], "topology.bottleneck.qdisc.limit_pkts, topology.reverse.qdisc.limit_pkts": ["100%"],
                       "duration": "30s", "warmup": "6s", "flows[0].start": {"uniform": ["0s", "2s"]}, "flows[1].start": {"uniform": ["2s", "4s"]}},
            ),
            SuiteStudy(
                "inter-rtt-1g.toml", None, "flows[*].cc, arrivals[*].cc",
                quick={"topology.senders": ["160/10"], "topology.bottleneck.qdisc.limit_pkts, topology.reverse.qdisc.limit_pkts": ["100%"],
                       "duration": "10s", "warmup": "4s", "flows[0].start": {"uniform": ["0s", "1s"]}, "flows[1].start": {"uniform": ["1s", "2s"]}},
            ),
            SuiteStudy("parking-lot.toml", None, "arrivals[*].cc", _with_reno),
        ),
        quick={"duration": "12s", "warmup": "4s", "study.seeds": 1},
    ),
}  # fmt: skip


def suite(name: str) -> Suite:
    """The suite called ``name``."""
    try:
        return SUITES[name]
    except KeyError:
        raise SuiteError(f"no suite {name!r}; the suites: {', '.join(SUITES)} (crosslayer suite list)") from None


def overrides(s: Suite, st: SuiteStudy, *, aqm: Any = None, cc: Any = None, sets: Mapping[str, Any] | None = None, quick: bool = False) -> dict[str, Any]:
    """The overrides one study of ``s`` runs with: the reduced version's (``quick``), then
    ``--aqm`` and ``--cc`` where the study declares them, then the user's ``--set``s."""
    out: dict[str, Any] = {}
    if quick:
        out.update(s.quick)
        out.update(st.quick)
    if aqm is not None and st.aqm_path:
        out[st.aqm_path] = aqm
    if cc is not None and st.cc_path:
        out[st.cc_path] = st.cc_value(cc) if st.cc_value else cc
    out.update(sets or {})
    return out


def store_name(st: SuiteStudy) -> str:
    """The folder of a study's store inside the suite's output folder."""
    return st.file.removesuffix(".toml")
