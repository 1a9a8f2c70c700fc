"""Graph topologies from the study file: the parking lot of issue 19 as written runs (the engine
checks every link direction's queue identities and the flows' counts against them at the end of
every run), presets sweep like any field, the results name each flow's route and the busiest
links, and every bad graph is an error naming the study file's field and the fix."""

from __future__ import annotations

import copy
import tomllib
from pathlib import Path
from typing import Any

import pytest
from crosslayer import run
from crosslayer.scenario import Scenario, ScenarioError
from typer.testing import CliRunner

ROOT = Path(__file__).resolve().parents[1]
PARKING_LOT = ROOT / "studies" / "parking-lot-3.toml"


def parking_lot(**changes: Any) -> dict[str, Any]:
    data = tomllib.loads(PARKING_LOT.read_text())
    data.update(duration="8s", warmup="2s")
    data.update(changes)
    return data


def problems_of(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(data)
    return str(info.value)


def test_the_issue_example_runs_and_every_link_direction_adds_up() -> None:
    r = run(parking_lot())
    assert len(r.queues) == 22 and set(r.queues["role"]) == {"router", "host_up", "host_down"}
    flows = r.flows.set_index("name")
    assert flows.loc["S0-D0.0", "route"] == "S0->R1,R1->R2,R2->R3,R3->R4,R4->D0"
    assert flows.loc["S2-D2.0", "ack_route"] == "D2->R3,R3->R2,R2->S2"
    assert list(flows["bottleneck"]) == ["R1->R2", "R1->R2", "R2->R3", "R3->R4"]
    # The hops table adds up, link by link, to each queue's own counts (the engine also checks
    # this, and conservation per flow, at the end of every run).
    sums = r.hops.groupby("link")[["arrivals", "drops", "marks"]].sum()
    queues = r.queues.set_index("link")
    for link in queues.index:
        got = tuple(sums.loc[link]) if link in sums.index else (0, 0, 0)
        assert got == tuple(queues.loc[link, ["arrivals", "drops", "marks"]]), link
    # The headline metrics describe the most shared bottleneck; the busiest links are named.
    agg = r.aggregates()
    assert agg["bottleneck"]["link"] == "R1->R2"
    assert {b["link"] for b in agg["busiest_links"]} <= {"R1->R2", "R2->R3", "R3->R4"}
    assert all(b["utilization"] > 0.8 for b in agg["busiest_links"])
    # series samples that link, with CoDel's state
    assert len(r.series) > 100 and "count" in r.series.columns or len(r.series.columns) > 5


def test_the_bottleneck_and_series_queue_can_be_named() -> None:
    data = parking_lot()
    data["topology"]["bottleneck"] = "R3->R4"
    data["series_queue"] = "R2->R3"
    r = run(data)
    assert r.aggregates()["bottleneck"]["link"] == "R3->R4"
    assert r.scenario.series_link() == "R2->R3"


def test_the_parking_lot_preset_is_the_same_network_and_sweeps() -> None:
    from crosslayer.study import Study

    study = Study.from_toml(ROOT / "studies" / "parking-lot-preset.toml")
    points = study.points()
    assert len(points) == 10
    kinds = {p.scenario.topology.engine_spec()["qdisc"]["kind"] for p in points}
    assert kinds == {"codel", "droptail"}
    preset = Scenario.from_dict({**parking_lot(), "topology": {"kind": "parking_lot", "hops": 3, "qdisc": "codel"}})
    graph = Scenario.from_dict(parking_lot())
    assert sorted(preset.link_names()) == sorted(graph.link_names())
    a, b = run(preset), run(graph)
    # The same links and routes; the links are declared in another order, so each link's random
    # streams differ (CoDel draws none, DropTail neither): the runs are identical here.
    assert dict(zip(a.flows["name"], a.flows["route"])) == dict(zip(b.flows["name"], b.flows["route"]))
    assert list(a.flows["goodput_bps"]) == list(b.flows["goodput_bps"])


def test_presets_with_ecmp_run_from_a_study_file() -> None:
    data = {
        "name": "fabric",
        "duration": "200ms",
        "topology": {"kind": "leaf_spine", "leaves": 2, "spines": 2, "hosts_per_leaf": 2, "host_rate": "1Gbps"},
        "flows": [{"src": ["H1_1", "H1_2", "H2_1", "H2_2"], "dst": ["H1_1", "H1_2", "H2_1", "H2_2"], "cc": "dctcp"}],
    }
    s = Scenario.from_dict(data)
    assert len(s.expand_flows()) == 12  # all-to-all without a host paired with itself
    r = run(s)
    assert len(r.flows) == 12 and r.flows["goodput_bps"].min() > 0


def test_validate_shows_routes() -> None:
    from crosslayer.cli import app

    out = CliRunner().invoke(app, ["validate", str(PARKING_LOT), "-v"])
    assert out.exit_code == 0, out.output
    assert "S0->R1 R1->R2 R2->R3 R3->R4 R4->D0" in out.output


def test_list_topologies() -> None:
    from crosslayer.cli import app

    out = CliRunner().invoke(app, ["list", "topologies", "-q"])
    assert out.exit_code == 0 and out.output.split() == ["parking_lot", "leaf_spine", "fat_tree"]


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda d: d["topology"]["links"][0].update(between=["R1", "R9"]), 'topology.links[0].between[1]: unknown node "R9"; nodes are: R1, R2, R3, R4, S0'),
        (lambda d: d["topology"]["links"][0].update(between=["R1", "R1"]), 'topology.links[0].between: a link from "R1" to itself'),
        (lambda d: d["topology"]["links"].append(dict(d["topology"]["links"][0], between=["R2", "R1"])), 'topology.links[11].between: duplicate link between "R2" and "R1" (links[0] joins them already)'),
        (lambda d: d["topology"]["links"].pop(), "topology: the graph is disconnected: S0 cannot reach D3"),
        (lambda d: d["topology"]["hosts"].append("R1"), 'topology.routers[0]: duplicate node name "R1"'),
        (lambda d: d["flows"][0].update(dst="R4"), 'flows[0].dst[0]: "R4" is a router: flows run between hosts'),
        (lambda d: d["flows"][0].update(dst="D9"), 'flows[0].dst[0]: unknown host "D9"'),
        (lambda d: d["flows"][1].update(dst=["D1", "D2", "S3"]), 'flows[1].dst[2]: "S3" is paired with itself'),
        (lambda d: d["topology"].update(routing={"overrides": [{"at": "R2", "to": "D0", "via": "R1"}]}), "flows[0].dst: flow S0-D0.0: the route from S0 to D0 loops (S0 -> R1 -> R2 -> R1): check routing.overrides"),
        (lambda d: d["topology"].update(routing={"overrides": [{"at": "S1", "to": "D1", "via": "R1"}]}), 'topology.routing.overrides[0].at: "S1" is a host: hosts do not forward'),
        (lambda d: d["topology"].update(routing={"overrides": [{"at": "R1", "to": "D0", "via": "R3"}]}), 'topology.routing.overrides[0].via: "R3" is not a neighbour of "R1"'),
        (lambda d: d["topology"].update(routing={"overrides": [{"at": "R1", "to": "D0", "via": "S1"}]}), 'topology.routing.overrides[0].via: "S1" is a host'),
        (lambda d: d["topology"].update(bottleneck="R1->R3"), 'topology.bottleneck: no link "R1->R3"'),
        (lambda d: d.update(series_queue="reverse"), 'series_queue: no such queue: "bottleneck" or a link name'),
        (lambda d: d.update(topology={"kind": "parking_lot", "hops": 0}), "topology.hops: must be in [1, 64]"),
        (lambda d: d.update(topology={"kind": "parkinglots"}), 'topology: unknown topology "parkinglots" (did you mean "parking_lot"?)'),
    ],
    ids=["unknown-node", "self-link", "duplicate", "disconnected", "duplicate-name", "to-a-router", "unknown-host", "self-pair",
         "override-loop", "host-as-router", "override-no-link", "override-via-host", "bottleneck", "series-queue", "preset-range", "preset-kind"],
)
def test_bad_graphs_name_the_field_and_the_fix(mutate: Any, expected: str) -> None:
    data = copy.deepcopy(parking_lot())
    mutate(data)
    assert expected in problems_of(data)
