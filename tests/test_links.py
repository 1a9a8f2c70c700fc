"""Link impairments from a study file: loss models, the jitter's distribution (netem's pareto
and paretonormal too), reordering, duplication, outages, rate/delay schedules and mahimahi
traces on a dumbbell's links, a graph's links and per-direction overrides; bad ones named with
their field (a trace's bad line with its number)."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest

from crosslayer import run
from crosslayer.scenario import Scenario, ScenarioError

BASE: dict[str, Any] = {
    "name": "links",
    "duration": "6s",
    "topology": {
        "bottleneck": {"rate": "10Mbps", "delay": "10ms", "qdisc": {"kind": "droptail", "limit_pkts": 30}},
        "senders": [{"name": "N1", "rate": "100Mbps", "delay": "1ms"}],
        "receivers": [{"name": "N4", "rate": "100Mbps", "delay": "1ms"}],
    },
    "udp": [{"src": "N1", "dst": "N4", "rate": "1Mbps", "packet_size": "1250B"}],
}


def with_bottleneck(**fields: Any) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    d["topology"]["bottleneck"].update(fields)
    return d


def test_an_outage_on_the_bottleneck_holds_what_fits_and_drops_the_rest() -> None:
    r = run(Scenario.from_dict(with_bottleneck(outages=[["1s", "2s"]])))
    assert int(r.bottleneck["drops"]) == 70  # 100 datagrams meet the outage, 30 fit in the queue
    assert int(r.udp["delivered_pkts"][0]) >= int(r.udp["sent_pkts"][0]) - 72


def test_impairments_reach_the_engine_layered_with_overrides() -> None:
    d = copy.deepcopy(BASE)
    d["topology"]["senders"][0].update(loss_model={"kind": "periodic", "every": 10}, up={"loss_model": {"kind": "ber", "ber": 1e-5}})
    d["topology"]["bottleneck"].update(jitter="2ms", jitter_dist="normal", schedule=[{"at": "3s", "rate": "5Mbps"}])
    spec = Scenario.from_dict(d).to_engine_spec()["topology"]
    assert spec["senders"][0]["up"]["impair"] == {"loss_model": {"kind": "ber", "ber": 1e-5}}
    assert spec["senders"][0]["down"]["impair"] == {"loss_model": {"kind": "periodic", "every": 10}}
    assert spec["forward"]["impair"] == {"jitter_dist": "normal", "schedule": [{"at": 3_000_000_000, "rate": 5_000_000, "delay": None}]}
    assert "impair" not in spec["reverse"]
    r = run(Scenario.from_dict(d))
    lost = r.queues.set_index("link")["lost_random"]
    # the datagrams leave N1 on its up link: bit errors of 1e-5 lose 1 - (1 - 1e-5)^10000 = 9.5 %
    # of them; nothing comes down to N1 (UDP has no ACKs), so its periodic loss never acts
    up, sent = int(lost["N1->A"]), int(r.udp["sent_pkts"][0])
    assert abs(up / sent - 0.095) < 0.03 and lost["A->N1"] == 0


def test_a_graph_link_takes_impairments_per_direction() -> None:
    d = {
        "name": "g",
        "duration": "3s",
        "topology": {
            "kind": "graph",
            "hosts": ["S", "D"],
            "routers": ["R"],
            "links": [
                {"between": ["S", "R"], "rate": "10Mbps", "delay": "1ms", "loss_model": {"kind": "gilbert_elliott", "p": 0.02, "r": 0.5}},
                {"between": ["R", "D"], "rate": "10Mbps", "delay": "1ms", "backward": {"outages": [["1s", "1.5s"]]}},
            ],
        },
        "udp": [{"src": "S", "dst": "D", "rate": "2Mbps"}],
    }
    spec = Scenario.from_dict(d).to_engine_spec()["topology"]["links"]
    assert [("impair" in link["edge"]) for link in spec] == [True, True, False, True]
    assert run(Scenario.from_dict(d)).queues.set_index("link")["lost_random"]["S->R"] > 0


@pytest.mark.parametrize(
    ("fields", "expected"),
    [
        ({"outages": [["2s", "1s"]]}, "topology.bottleneck.outages[0]: ends before it starts"),
        ({"outages": [["1s", "3s"], ["2s", "4s"]]}, "topology.bottleneck.outages[1]: overlaps"),
        ({"schedule": [{"at": "2s", "rate": "1Mbps"}, {"at": "1s", "delay": "1ms"}]}, "topology.bottleneck.schedule[1]: at the same time as or before"),
        ({"schedule": [{"at": "2s"}]}, "changes nothing"),
        ({"loss_model": {"kind": "gilbert_elliott", "p": 0.1}}, "topology.bottleneck.loss_model.r"),
        ({"loss_model": {"kind": "gilbert_elliott", "p": 1.5, "r": 0.1}}, "a probability in [0, 1]"),
        ({"loss_model": {"kind": "periodic", "every": 0}}, "topology.bottleneck.loss_model.every"),
        ({"loss_model": {"kind": "ber", "ber": 2}}, "topology.bottleneck.loss_model.ber"),
        ({"jitter_dist": "cauchy"}, "topology.bottleneck.jitter_dist"),
        ({"duplicate": 1.5}, "topology.bottleneck.duplicate"),
    ],
)
def test_bad_impairments_are_named(fields: dict[str, Any], expected: str) -> None:
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_dict(with_bottleneck(**fields))
    assert expected in str(exc.value)


def test_jitter_reordering_duplication_and_a_trace_reach_the_engine(tmp_path: Path) -> None:
    trace = tmp_path / "cell.down"
    trace.write_text("1\n1\n2\n4\n")
    d = with_bottleneck(jitter="5ms", jitter_dist="paretonormal", reorder=True, duplicate=0.01, trace=str(trace))
    spec = Scenario.from_dict(d).to_engine_spec()["topology"]["forward"]["impair"]
    assert spec == {"jitter_dist": "pareto_normal", "reorder": True, "duplicate": 0.01, "trace": {"opportunities_ms": [1, 1, 2, 4], "repeat": True}}
    d["topology"]["bottleneck"]["trace"] = {"file": str(trace), "repeat": False}
    assert Scenario.from_dict(d).to_engine_spec()["topology"]["forward"]["impair"]["trace"]["repeat"] is False


def test_a_bulk_flow_over_a_trace_gets_the_traces_capacity(tmp_path: Path) -> None:
    # 3 opportunities every 4 ms: 3 x 1504 bytes / 4 ms = 9.02 Mb/s
    trace = tmp_path / "steady.trace"
    trace.write_text("".join(f"{4 * k + 1}\n{4 * k + 2}\n{4 * k + 4}\n" for k in range(250)))
    d = with_bottleneck(trace=str(trace), qdisc={"kind": "droptail", "limit_pkts": 100})
    d["duration"], d["warmup"] = "20s", "5s"
    d.pop("udp")
    d["flows"] = [{"src": "N1", "dst": "N4", "cc": "cubic"}]
    r = run(Scenario.from_dict(d))
    capacity = 3 * 1504 * 8 / 4e-3
    # the link carries all of it (its utilization is of the trace's capacity); goodput is that
    # less the headers (52 of 1500 bytes with timestamps) and the tun header mm-link counts
    assert float(r.bottleneck["utilization"]) > 0.99
    goodput = float(r.flows["goodput_bps"][0])
    assert goodput == pytest.approx(capacity * 1448 / 1504, rel=0.01), goodput


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1\n2\nx\n", "line 3: \"x\" is not a time in whole milliseconds"),
        ("1\n3\n2\n", "line 3: 2 ms comes before the line before it (3 ms)"),
        ("", "no line"),
        ("0\n0\n", "the last time must be after 0 ms"),
        ("1\n\n2\n", "line 2"),
    ],
)
def test_a_bad_trace_line_is_named(tmp_path: Path, text: str, expected: str) -> None:
    trace = tmp_path / "bad.trace"
    trace.write_text(text)
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_dict(with_bottleneck(trace=str(trace)))
    assert "topology.bottleneck.trace.file" in str(exc.value) and expected in str(exc.value), str(exc.value)
