"""Integration tests against the compiled engine (crosslayer._core, crates/crosslayer-py).

These need ``maturin develop`` to have built the extension; they check the Python side of the
contract in docs/design.md ("Engine interface"), not the models.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import crosslayer
import numpy as np
import pandas as pd
import pytest
from crosslayer.catalog import catalog
from crosslayer.cli import app
from crosslayer.result import TABLES, Result, state_columns
from crosslayer.scenario import Scenario
from helpers import ACCESS_LINK
from typer.testing import CliRunner

SHORT = {"duration": "5s", "warmup": "2s"}
"""A 5 s version of the access-link study (flows start within the first 3 s)."""


@pytest.fixture(scope="module")
def core() -> Any:
    from crosslayer import _core

    return _core


@pytest.fixture(scope="module")
def short() -> Scenario:
    return Scenario.from_toml(ACCESS_LINK).with_overrides(**SHORT)


@pytest.fixture(scope="module")
def result(core: Any, short: Scenario) -> Result:
    return crosslayer.run(short)


def test_run_returns_exactly_the_declared_tables(result: Result, short: Scenario) -> None:
    extra = state_columns(short)
    for name, columns in TABLES.items():
        frame = getattr(result, name)
        assert isinstance(frame, pd.DataFrame)
        assert list(frame.columns) == [*columns, *extra.get(name, ())], name
    for key in ("wall_s", "events", "sim_s", "measured_s", "delivered_segments", "seed"):
        assert key in result.summary
    assert list(result.flows["name"]) == [f.name for f in short.expand_flows()]
    assert len(result.series) > 0
    assert result.cwnd.empty  # cwnd_trace is off
    assert result.bottleneck["rate_bps"] == 100_000_000
    # Conservation: the flows cannot deliver more than the bottleneck carries.
    assert result.flows["goodput_bps"].sum() <= result.bottleneck["rate_bps"]


def test_cwnd_trace(core: Any, short: Scenario) -> None:
    traced = crosslayer.run(short.with_overrides(cwnd_trace=True, duration="4s", warmup="1s"))
    assert len(traced.cwnd) > 0
    assert set(traced.cwnd["flow"]) == set(traced.flows["name"])


def test_same_seed_gives_identical_results(result: Result, short: Scenario) -> None:
    again = crosslayer.run(short)
    pd.testing.assert_frame_equal(again.flows, result.flows)
    pd.testing.assert_frame_equal(again.queues, result.queues)
    pd.testing.assert_frame_equal(again.series, result.series)
    assert {**again.summary, "wall_s": None} == {**result.summary, "wall_s": None}


def test_different_seed_gives_different_results(result: Result, short: Scenario) -> None:
    other = crosslayer.run(short.with_overrides(seed=short.seed + 1))
    assert not other.flows["start_s"].equals(result.flows["start_s"])
    assert not other.flows.equals(result.flows)


def test_adding_a_flow_keeps_the_other_flows_start_times(result: Result, short: Scenario) -> None:
    data = short.model_dump()
    data["flows"].append({"src": "N1", "dst": "N4", "cc": "cubic", "start": {"uniform": ["0s", "3s"]}})
    more = crosslayer.run(data)
    assert len(more.flows) == 10
    assert more.flows["name"].iloc[-1] == "N1-N4.1"
    pd.testing.assert_series_equal(more.flows["start_s"].iloc[:9], result.flows["start_s"])


def test_panic_becomes_engine_error(core: Any) -> None:
    assert issubclass(core.EngineError, RuntimeError)
    assert crosslayer.EngineError is core.EngineError
    with pytest.raises(crosslayer.EngineError):
        core._trigger_panic()


def test_invalid_spec_is_a_value_error(core: Any, short: Scenario) -> None:
    spec = short.to_engine_spec()
    spec["duration"] = "long"
    with pytest.raises(ValueError):
        core.run_json(json.dumps(spec))
    assert isinstance(core.version(), str)


def test_cli_json_output(core: Any, tmp_path: Path) -> None:
    argv = [
        "run",
        str(ACCESS_LINK),
        "--json",
        "--duration",
        SHORT["duration"],
        "--warmup",
        SHORT["warmup"],
        "--out",
        str(tmp_path),
    ]
    out = CliRunner().invoke(app, argv)
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert data["wall_s"] > 0
    assert data["events"] > 0
    assert data["delivered_segments"] > 0


def test_cli_writes_parquet_that_loads_back(core: Any, result: Result, tmp_path: Path) -> None:
    argv = [
        "run",
        str(ACCESS_LINK),
        "--duration",
        SHORT["duration"],
        "--warmup",
        SHORT["warmup"],
        "--out",
        str(tmp_path),
    ]
    out = CliRunner().invoke(app, argv)
    assert out.exit_code == 0, out.output
    assert all((tmp_path / f"{name}.parquet").exists() for name in TABLES)
    loaded = Result.load(tmp_path)
    assert loaded.scenario == result.scenario
    pd.testing.assert_frame_equal(loaded.flows, result.flows)


def test_udp_flows_run_and_report_sent_delivered_dropped_and_delay(core: Any, minimal: dict[str, Any]) -> None:
    # 8 Mb/s of 1000-byte datagrams through the minimal dumbbell (10 Mb/s bottleneck, 100-packet
    # DropTail) beside one CUBIC flow: the datagrams that do not arrive were dropped, and the
    # one-way delay is at least the propagation delay.
    minimal["udp"] = [{"src": "S2", "dst": "R1", "rate": "8Mbps", "packet_size": "1000B", "start": "1s"}]
    result = crosslayer.run(Scenario.from_dict(minimal))
    assert list(result.udp["name"]) == ["S2-R1.udp0"]
    u = result.udp.iloc[0]
    window_s = result.summary["measured_s"]
    assert u["sent_pkts"] == pytest.approx(8e6 / 8000 * window_s, abs=1)
    assert u["offered_bps"] == pytest.approx(8e6, rel=1e-3)
    assert 0 < u["delivered_pkts"] <= u["sent_pkts"]
    assert u["dropped_pkts"] > 0  # 8 Mb/s + CUBIC overflow the 10 Mb/s link's queue
    assert int(u["sent_pkts"]) - int(u["delivered_pkts"]) - int(u["dropped_pkts"]) in range(-5, 6)  # in flight at the window's ends
    assert u["owd_min_s"] >= u["base_owd_s"] > 0
    assert u["throughput_bps"] < 10e6


def test_a_reverse_group_runs_against_a_forward_one(core: Any, minimal: dict[str, Any]) -> None:
    # Two-way traffic on the minimal dumbbell (10 Mb/s both ways between the routers): S1 -> R1
    # over A->B, R1 -> S2 over B->A (a reverse group: its src is a receiver, its dst a sender),
    # and a reverse UDP flow. Each router link carries one direction's data and the other's ACKs.
    minimal["flows"].append({"src": "R1", "dst": "S2", "cc": "cubic"})
    minimal["udp"] = [{"src": "R1", "dst": "S1", "rate": "1Mbps"}]
    result = crosslayer.run(Scenario.from_dict(minimal))
    f = result.flows.set_index("name")
    assert list(f.index) == ["S1-R1.0", "R1-S2.0"]
    assert f.loc["R1-S2.0", ["src", "dst", "direction"]].tolist() == ["R1", "S2", "reverse"]
    assert f.loc["S1-R1.0", "direction"] == "forward"
    assert (f["goodput_bps"] > 3e6).all(), f["goodput_bps"]
    q = result.queues.set_index("link")
    for link, data_flow, ack_flow in (("A->B", "S1-R1.0", "R1-S2.0"), ("B->A", "R1-S2.0", "S1-R1.0")):
        data, acks = f.loc[data_flow, "bottleneck_arrivals"], f.loc[ack_flow, "acks_sent"]
        udp = result.udp["bottleneck_arrivals"].iloc[0] if link == "B->A" else 0
        assert abs(int(q.loc[link, "arrivals"]) - int(data + acks + udp)) <= 20, (link, q.loc[link, "arrivals"], data, acks, udp)
        assert q.loc[link, "utilization"] > 0.5
    u = result.udp.iloc[0]
    assert (u["src"], u["dst"], u["direction"]) == ("R1", "S1", "reverse")
    h = result.hosts.set_index("host")
    assert list(h.index) == ["S1", "S2", "R1"]
    assert h["direction"].tolist() == ["forward", "forward", "reverse"]
    assert h.loc["S1", "goodput_share"] == 1.0 and h.loc["R1", "goodput_share"] == 1.0
    assert h.loc["S2", "flows"] == 0


@pytest.mark.parametrize(
    ("udp", "path", "words"),
    [
        ({"rate": "0Mbps"}, "udp[0].rate", "positive"),
        ({"packet_size": "10B"}, "udp[0].packet_size", "28B"),
        ({"dst": "S1"}, "udp[0].dst[0]", "one of the senders"),
        ({"start": "3s", "stop": "2s"}, "udp[0].stop", "must be in"),
        ({"dscp": 64}, "udp[0].dscp", "DiffServ"),
    ],
)
def test_bad_udp_fields_are_named(minimal: dict[str, Any], udp: dict[str, Any], path: str, words: str) -> None:
    from crosslayer.scenario import ScenarioError

    minimal["udp"] = [{"src": "S1", "dst": "R1", "rate": "1Mbps", **udp}]
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(minimal)
    problems = dict(info.value.problems)
    assert path in problems, problems
    assert words in problems[path]


def test_series_follows_the_chosen_queue_with_sojourn_and_state(minimal: dict[str, Any]) -> None:
    minimal["topology"]["bottleneck"]["qdisc"] = {"kind": "codel"}
    minimal["sample_interval"] = "50ms"
    bottleneck = crosslayer.run(Scenario.from_dict(minimal))
    s = bottleneck.series
    assert {"sojourn_mean_s", "sojourn_max_s", "count", "dropping"} <= set(s.columns)
    busy = s["sojourn_mean_s"].notna()
    assert busy.any() and (s.loc[busy, "sojourn_max_s"] >= s.loc[busy, "sojourn_mean_s"]).all()
    # the series' mean sojourn, weighted by nothing, stays in the range the queues table reports
    assert s["sojourn_max_s"].max() >= bottleneck.bottleneck["sojourn_p99_s"] * 0.99
    minimal["series_queue"] = "B->A"  # the ACK queue: DropTail, never more than a few ACKs
    reverse = crosslayer.run(Scenario.from_dict(minimal))
    assert "count" not in reverse.series.columns
    assert reverse.series["qlen_pkts"].max() < s["qlen_pkts"].max()
    minimal["series_queue"] = "A->Z"
    from crosslayer.scenario import ScenarioError

    with pytest.raises(ScenarioError, match="series_queue: no such queue"):
        Scenario.from_dict(minimal)


def test_queue_figure_and_plot_queue_command(minimal: dict[str, Any], tmp_path: Path) -> None:
    from crosslayer.plots import queue_figure

    minimal["topology"]["bottleneck"]["qdisc"] = {"kind": "pie"}
    result = crosslayer.run(Scenario.from_dict(minimal))
    fig = queue_figure(result, state=["drop_prob"])
    assert [a.get_ylabel() for a in fig.axes] == ["queue (pkts)", "sojourn (ms)", "drop_prob"]
    with pytest.raises(ValueError, match="not recorded by this discipline"):
        queue_figure(result, state=["count"])
    folder = tmp_path / "run"
    result.save(folder)
    done = CliRunner().invoke(app, ["plot-queue", str(folder), "--state", "drop_prob", "--out", str(tmp_path / "q.png")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "q.png").read_bytes()[:4] == b"\x89PNG"
    done = CliRunner().invoke(app, ["plot-queue", str(folder), "--state", "nonsense"])
    assert done.exit_code == 2 and "drop_prob" in done.output


def test_cwnd_figure_and_plot_cwnd_command(minimal: dict[str, Any], tmp_path: Path) -> None:
    from crosslayer.plots import cwnd_figure

    minimal["cwnd_trace"] = True
    minimal["flows"] = [{"src": "S1", "dst": "R1", "cc": "cubic", "per_pair": 2}, {"src": "S2", "dst": "R1", "cc": "reno"}]
    result = crosslayer.run(Scenario.from_dict(minimal))
    c = result.cwnd
    assert {"in_flight_bytes", "srtt_s", "pacing_rate_bps"} <= set(c.columns)
    started = c[c["t_s"] > 1.0]
    assert (started["srtt_s"] > 0.012).all()  # above the 12 ms base RTT
    assert started["pacing_rate_bps"].isna().all()  # neither CUBIC nor Reno paces
    assert (started["in_flight_bytes"] <= started["cwnd_bytes"] + 1500).all()
    fig = cwnd_figure(result, state=["w_max_pkts"])  # the cubic_ prefix may be left out
    assert [a.get_ylabel() for a in fig.axes] == ["cwnd (segments)", "cubic_w_max_pkts"]
    assert len(fig.axes[0].get_legend().get_texts()) == 3
    fig = cwnd_figure(result, flows=["S2-R1.0"])
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["S2-R1.0 (reno)"]
    with pytest.raises(ValueError, match="no flow"):
        cwnd_figure(result, flows=["S9-R1.0"])
    with pytest.raises(ValueError, match="not recorded for these flows"):
        cwnd_figure(result, flows=["S2-R1.0"], state=["w_max_pkts"])
    folder = tmp_path / "run"
    result.save(folder)
    done = CliRunner().invoke(app, ["plot-cwnd", str(folder), "--flow", "S1-R1.1", "--state", "k_s", "--out", str(tmp_path / "c.png")])
    assert done.exit_code == 0, done.output
    assert (tmp_path / "c.png").read_bytes()[:4] == b"\x89PNG"
    minimal["cwnd_trace"] = False
    folder = tmp_path / "untraced"
    crosslayer.run(Scenario.from_dict(minimal)).save(folder)
    done = CliRunner().invoke(app, ["plot-cwnd", str(folder)])
    assert done.exit_code == 2 and "cwnd_trace = true" in done.output


def test_class_scheduling_from_a_study_file(minimal: dict[str, Any]) -> None:
    # Two DRR classes at quanta 3:1, chosen by DSCP, each with its own discipline (written as a
    # study file writes them: units as text, a discipline by name or table).
    minimal["flows"] = [
        {"src": "S1", "dst": "R1", "cc": "cubic", "per_pair": 3, "dscp": 10},
        {"src": "S2", "dst": "R1", "cc": "cubic", "per_pair": 3},
    ]
    minimal["topology"]["bottleneck"]["qdisc"] = {
        "kind": "classes",
        "classes": [{"dscp": [10], "quantum": "4542B", "qdisc": {"kind": "codel", "target": "5ms"}}, {"quantum": "1514B", "qdisc": "pie"}],
    }
    scenario = Scenario.from_dict(minimal)
    spec = scenario.to_engine_spec()["topology"]["forward"]["qdisc"]
    assert spec["classes"][0]["quantum"] == 4542 and spec["classes"][0]["qdisc"]["target"] == 5_000_000
    assert spec["classes"][1]["qdisc"]["kind"] == "pie"
    assert scenario.with_overrides(seed=2).to_engine_spec()["topology"] == scenario.to_engine_spec()["topology"]
    result = crosslayer.run(scenario)
    g = result.flows.groupby(result.flows["name"].str[:2])["goodput_bps"].sum()
    assert 2.0 < g["S1"] / g["S2"] < 4.0  # DRR 3:1 (both classes always backlogged)


def test_a_discipline_with_default_classes_survives_an_override(minimal: dict[str, Any]) -> None:
    # `qdisc = { kind = "classes" }` takes the catalog's default classes. They used to stay bare
    # dicts in engine units: dumping the scenario warned (pydantic), and an override, which
    # re-validates the dumped scenario, refused their `quantum = 1514` ("give a unit").
    minimal["topology"]["bottleneck"]["qdisc"] = {"kind": "classes"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        scenario = Scenario.from_dict(minimal)
        dumped = scenario.model_dump(mode="json")
        moved = scenario.with_overrides(seed=2)
    spec = scenario.to_engine_spec()["topology"]["forward"]["qdisc"]
    assert [c["quantum"] for c in spec["classes"]] == [c["quantum"] for c in catalog().lookup("aqm", "classes").defaults()["classes"]]
    assert moved.to_engine_spec()["topology"] == scenario.to_engine_spec()["topology"]
    classes = dumped["topology"]["bottleneck"]["qdisc"]["classes"]
    assert all(isinstance(c["quantum"], str) for c in classes)
    # the same entries as those classes written out (a class's discipline a model, not a dict)
    minimal["topology"]["bottleneck"]["qdisc"] = {"kind": "classes", "classes": classes}
    assert Scenario.from_dict(minimal).topology == scenario.topology
    # and each scenario has its own: changing one changes neither another nor the catalog
    scenario.topology.bottleneck.qdisc.classes[0].dscp.append(99)
    minimal["topology"]["bottleneck"]["qdisc"] = {"kind": "classes"}
    assert 99 not in Scenario.from_dict(minimal).topology.bottleneck.qdisc.classes[0].dscp
    assert 99 not in catalog().lookup("aqm", "classes").defaults()["classes"][0]["dscp"]


@pytest.mark.parametrize(
    ("classes", "path", "words"),
    [
        ([{"qdisc": {"kind": "codel", "target": "200ms"}}, {}], "classes[0].qdisc.target", "shorter than interval"),
        ([{"dscp": [99]}, {}], "classes[0].dscp[0]", "<= 63"),
        ([{"ecn": ["ect9"]}, {}], "classes[0].ecn[0]", "ect1"),
        ([{}, {"qdisc": "nonsense"}], "classes[1].qdisc", 'unknown queue discipline "nonsense"'),
    ],
)
def test_bad_class_fields_are_named_with_their_index(minimal: dict[str, Any], classes: list[Any], path: str, words: str) -> None:
    from crosslayer.scenario import ScenarioError

    minimal["topology"]["bottleneck"]["qdisc"] = {"kind": "classes", "classes": classes}
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(minimal)
    problems = dict(info.value.problems)
    full = f"topology.bottleneck.qdisc.{path}"
    assert full in problems, problems
    assert words in problems[full]


def test_a_result_folder_from_before_udp_flows_still_loads(result: Result, tmp_path: Path) -> None:
    result.save(tmp_path / "old")
    (tmp_path / "old" / "udp.parquet").unlink()
    loaded = Result.load(tmp_path / "old")
    assert loaded.udp.empty and list(loaded.udp.columns) == list(TABLES["udp"])
    assert len(loaded.flows) == len(result.flows)


def test_compact_flow_groups_run_as_the_flows_spelled_out(core: Any, short: Scenario) -> None:
    """Runs send the engine each group's settings once (``flow_groups``) and the flows of each
    pair of a group as one run [prefix, first, count, src, dst, reverse, group]; the engine
    expands them into the very flows the long form spells out, so both runs are the same run."""
    long = short.to_engine_spec()
    compact = short.to_engine_spec(compact=True)
    assert compact["flows"] == [] and sum(run[2] for run in compact["flow_runs"]) == len(long["flows"]) == 9
    assert len(compact["flow_groups"]) == len(short.flows)
    a = core.run_json(json.dumps(long))
    b = core.run_json(json.dumps(compact))
    for table in ("flows", "series"):
        assert a[table].keys() == b[table].keys(), table
        for column in a[table]:
            assert pd.Series(a[table][column]).equals(pd.Series(b[table][column])), (table, column)
    assert a["summary"]["events"] == b["summary"]["events"]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda s: s["flow_groups"][0]["cc"].update(beta=5.0), "flow_groups[0].cc.beta"),
        (lambda s: s["flow_runs"][0].__setitem__(6, 7), "flow_runs[0]: no flow group 7"),
        (lambda s: s["flow_runs"][0].__setitem__(slice(1, 3), [None, 3]), "flow_runs[0]: 3 flows without a first number would have one name"),
    ],
)
def test_a_bad_compact_flow_group_is_named(core: Any, short: Scenario, change: Any, words: str) -> None:
    spec = short.to_engine_spec(compact=True)
    change(spec)
    with pytest.raises(ValueError, match=words.replace("[", r"\[").replace("]", r"\]")):
        core.validate_json(json.dumps(spec))
