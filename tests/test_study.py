"""Studies: path overrides, expansion into points, sweeps into a store (local processes and a
Dask LocalCluster), resume after a kill, Ctrl-C, the analysis functions and SQL over a store."""

from __future__ import annotations

import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from crosslayer import Scenario
from crosslayer.analysis import fairness, groups, jain, quartiles, rtt_fairness, system
from crosslayer.store import Store
from crosslayer.study import Study, StudyError, apply_overrides, column_names, set_path
from crosslayer.sweep import RunEvent, run_study

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "crosslayer.cli"]

SMALL = """
name = "small"
duration = "3s"
warmup = "1s"
seed = 1
[topology]
kind = "dumbbell"
bottleneck = { rate = "20Mbps", delay = "5ms", qdisc = { kind = "droptail", limit_pkts = 100 } }
senders = [ { name = "S1", rate = "100Mbps", delay = "1ms" }, { name = "S2", rate = "100Mbps", delay = "10ms" } ]
receivers = [ { name = "R1", rate = "100Mbps", delay = "1ms" } ]
[[flows]]
src = ["S1", "S2"]
dst = ["R1"]
per_pair = 1
cc = "cubic"
[study]
[study.axes]
"flows[*].cc" = ["cubic", "reno"]
"topology.bottleneck.qdisc" = { droptail = { kind = "droptail", limit_pkts = 100 }, codel = { kind = "codel" } }
"flows[*].per_pair" = [1, 3]
"""


def base() -> Scenario:
    return Study.from_toml(SMALL).base


# -- overrides ------------------------------------------------------------------------------


def test_paths_set_nested_fields_list_elements_and_every_element() -> None:
    s = apply_overrides(base(), {"topology.bottleneck.rate": "50Mbps", "flows[0].per_pair": 4, "flows[*].cc": "reno", "tcp.min_rto": "1s", "seed": 7})
    assert s.topology.bottleneck.rate == 50_000_000
    assert s.flows[0].per_pair == 4
    assert s.flows[0].cc.engine_spec()["kind"] == "reno"
    assert s.tcp.min_rto == 1_000_000_000
    assert s.seed == 7
    # the base is unchanged (scenarios are frozen)
    assert base().seed == 1


def test_changing_a_kind_keeps_only_the_parameters_the_new_algorithm_accepts() -> None:
    s = apply_overrides(base(), {"topology.bottleneck.qdisc.kind": "codel"})
    q = s.topology.bottleneck.qdisc.engine_spec()
    assert q["kind"] == "codel" and q["limit_pkts"] == 100  # CoDel has a packet limit too
    s = apply_overrides(base(), {"topology.bottleneck.qdisc.kind": "pie"})
    assert s.topology.bottleneck.qdisc.engine_spec()["kind"] == "pie"
    # a parameter below a bare algorithm name turns it into a table
    s = apply_overrides(base(), {"flows[0].cc.beta": 0.8})
    assert s.flows[0].cc.engine_spec()["beta"] == 0.8


@pytest.mark.parametrize(
    ("path", "message"),
    [
        ("flows[3].cc", "does not exist"),
        ("flows..cc", "empty field name"),
        ("flows[x]", "cannot read a path"),
        ("seed.x", "has no field"),
    ],
)
def test_bad_paths_name_the_problem(path: str, message: str) -> None:
    with pytest.raises(StudyError, match=message):
        apply_overrides(base(), {path: 1})


def test_an_invalid_value_is_reported_by_field_before_anything_runs() -> None:
    bad = SMALL.replace('"flows[*].per_pair" = [1, 3]', '"flows[*].per_pair" = [1, -3]')
    with pytest.raises(Exception, match="per_pair"):
        Study.from_toml(bad)


def test_with_overrides_takes_paths() -> None:
    s = base().with_overrides(**{"topology.bottleneck.qdisc.limit_pkts": 50, "seed": 3})
    assert s.topology.bottleneck.qdisc.engine_spec()["limit_pkts"] == 50 and s.seed == 3


# -- expansion ------------------------------------------------------------------------------


def test_product_of_axes_with_named_values_and_seeds() -> None:
    study = Study.from_toml(SMALL.replace("[study]\n", "[study]\nseeds = [1, 2]\n"))
    points = study.points()
    assert len(points) == 2 * 2 * 2 * 2
    assert len({p.key for p in points}) == len(points)
    assert study.columns == {"flows[*].cc": "flows_cc", "topology.bottleneck.qdisc": "bottleneck_qdisc", "flows[*].per_pair": "per_pair", "seed": "seed"}
    first = points[0]
    assert first.labels == {"flows_cc": "cubic", "bottleneck_qdisc": "droptail", "per_pair": 1, "seed": 1}
    codel = [p for p in points if p.labels["bottleneck_qdisc"] == "codel"][0]
    assert codel.scenario.topology.bottleneck.qdisc.engine_spec()["kind"] == "codel"
    # the key depends on the configuration only: the same point built again has the same key
    assert Study.from_toml(SMALL.replace("[study]\n", "[study]\nseeds = [1, 2]\n")).points()[0].key == first.key


def test_explicit_points_and_replicates() -> None:
    text = SMALL.split("[study]")[0] + """
[study]
mode = "points"
replicates = 3
[[study.points]]
"flows[*].cc" = "reno"
[[study.points]]
"flows[*].cc" = "vegas"
"topology.bottleneck.rate" = "10Mbps"
"""
    study = Study.from_toml(text)
    points = study.points()
    assert len(points) == 6
    assert [p.labels["seed"] for p in points[:3]] == [1, 2, 3]
    assert points[3].scenario.topology.bottleneck.rate == 10_000_000
    assert study.columns == {"flows[*].cc": "flows_cc", "topology.bottleneck.rate": "rate", "seed": "seed"}


def test_explicit_points_times_axes() -> None:
    """Points and axes together: every point with every combination of the axes (the TCP
    evaluation suite's scenarios, each load with its own durations, times the TCPs); a point may
    not set what an axis sweeps; a --set of a path the points set replaces their value (one value
    only), and a --set sweep of another path becomes an axis."""
    text = SMALL.split("[study]")[0] + """
[study]
mode = "points"
[study.axes]
"flows[*].cc" = ["reno", "cubic"]
[[study.points]]
duration = "2s"
[[study.points]]
duration = "3s"
"topology.bottleneck.rate" = "10Mbps"
"""
    study = Study.from_toml(text)
    points = study.points()
    assert [(p.labels["duration"], p.labels["flows_cc"]) for p in points] == [("2s", "reno"), ("2s", "cubic"), ("3s", "reno"), ("3s", "cubic")]
    assert [p.scenario.duration for p in points] == [2 * 10**9] * 2 + [3 * 10**9] * 2
    assert points[2].scenario.topology.bottleneck.rate == 10_000_000
    assert list(study.columns) == ["duration", "topology.bottleneck.rate", "flows[*].cc", "seed"]
    narrowed = Study.from_toml(text, overrides={"flows[*].cc": "cubic", "duration": "4s"})
    assert [(p.labels["flows_cc"], p.scenario.duration) for p in narrowed.points()] == [("cubic", 4 * 10**9), ("cubic", 4 * 10**9)]
    swept = Study.from_toml(text, overrides={"tcp.min_rto": ["200ms", "1s"]})
    assert len(swept.points()) == 8
    with pytest.raises(StudyError, match="--set duration: the study's \\[\\[study.points\\]\\] set it; give one value"):
        Study.from_toml(text, overrides={"duration": ["1s", "2s"]})
    with pytest.raises(StudyError, match="sets 'flows\\[\\*\\].cc', which an axis sweeps"):
        Study.from_toml(text.replace('duration = "2s"', 'duration = "2s"\n"flows[*].cc" = "vegas"'))


def test_one_value_set_inside_what_an_axis_sets_is_applied_after_it() -> None:
    """``--set flows[0].start=...`` where an axis sets the whole ``topology.bottleneck.qdisc``
    table (or the whole flows list) used to be written into the base and overwritten by the axis:
    silently ignored. It is applied after the axis now, as a one-value axis."""
    limited = Study.from_toml(SMALL, overrides={"topology.bottleneck.qdisc.limit_pkts": 42})
    points = limited.points()
    assert len(points) == 8 and {p.scenario.topology.bottleneck.qdisc.engine_spec()["limit_pkts"] for p in points} == {42}
    assert {p.scenario.topology.bottleneck.qdisc.engine_spec()["kind"] for p in points} == {"droptail", "codel"}
    text = SMALL.replace('"flows[*].per_pair" = [1, 3]', '"flows" = { one = [{ src = ["S1"], dst = ["R1"], cc = "reno" }], two = [{ src = ["S1", "S2"], dst = ["R1"], cc = "reno" }] }\n[study.columns]\n"flows" = "senders"')
    started = Study.from_toml(text, overrides={"flows[0].start": "2s"})
    assert {p.scenario.flows[0].start.engine_spec()["at"] for p in started.points()} == {2 * 10**9}
    assert {p.scenario.flows[0].cc.engine_spec()["kind"] for p in started.points()} == {"reno"}


def test_study_seeds_set_from_the_command_line_replace_the_files_replications() -> None:
    one = Study.from_toml(SMALL)
    five = Study.from_toml(SMALL, overrides={"study.seeds": 5})
    assert len(five.points()) == 5 * len(one.points())
    assert sorted({p.labels["seed"] for p in five.points()}) == [1, 2, 3, 4, 5]
    # seed 1 is the file's own seed: the same runs, the same keys (a store reuses them)
    assert {p.key for p in one.points()} <= {p.key for p in five.points()}
    listed = Study.from_toml(SMALL.replace("[study]\n", "[study]\nreplicates = 3\n"), overrides={"study.seeds": [7, 9]})
    assert sorted({p.labels["seed"] for p in listed.points()}) == [7, 9]
    with pytest.raises(StudyError, match="only study.seeds"):
        Study.from_toml(SMALL, overrides={"study.axes": 3})
    with pytest.raises(StudyError, match="study.seeds: must be a list of seeds"):
        Study.from_toml(SMALL, overrides={"study.seeds": 0})


def test_column_names_are_short_and_unique() -> None:
    assert column_names(["flows[*].cc", "topology.bottleneck.qdisc.kind", "tcp.min_rto"]) == {
        "flows[*].cc": "flows_cc",
        "topology.bottleneck.qdisc.kind": "qdisc_kind",
        "tcp.min_rto": "min_rto",
    }


CLASHING = SMALL.split("[study]")[0].replace('duration = "3s"\nwarmup = "1s"', 'duration = "1s"\nwarmup = "0.2s"') + """
[study]
[study.columns]
"flows[*].cc" = "cc"
[study.axes]
"flows" = { one = [{ src = ["S1"], dst = ["R1"], cc = "reno" }], two = [{ src = ["S1", "S2"], dst = ["R1"], cc = "reno" }] }
"flows[*].cc" = ["cubic", "reno"]
"flows[*].per_pair" = [1, 3]
"""


def test_an_axis_whose_column_name_is_a_result_column_runs_under_a_suffixed_name(tmp_path: Path) -> None:
    """A result column never refuses an axis: an engine that adds one keeps valid studies valid.
    The axis's column takes ``_axis`` (the whole `flows` list: `flows` is the runs table's
    count of flows; `cc`, named in [study.columns], is the flows table's congestion control);
    the result column keeps its name and meaning, and the user is told."""
    study = Study.from_toml(CLASHING)
    assert study.columns == {"flows": "flows_axis", "flows[*].cc": "cc_axis", "flows[*].per_pair": "per_pair", "seed": "seed"}
    assert study.column_notes == [
        "the axis 'flows': 'flows' is a result column's name, so its column is 'flows_axis'",
        "the axis 'flows[*].cc': 'cc' is a result column's name, so its column is 'cc_axis'",
    ]
    store = Store(tmp_path / "s")
    assert run_study(study, store, workers=1).ran == 8
    runs = store.runs().set_index(["flows_axis", "cc_axis", "per_pair"])
    assert runs["flows"].to_dict() == {(f, cc, n): (1 if f == "one" else 2) * n for f in ("one", "two") for cc in ("cubic", "reno") for n in (1, 3)}
    flows = store.table("flows")
    assert len(flows) == runs["flows"].sum()
    assert (flows["cc"] == flows["cc_axis"]).all() and set(flows["cc"]) == {"cubic", "reno"}
    assert set(flows["flows_axis"]) == {"one", "two"} and "flows" not in flows.columns
    assert set(store.query("select distinct cc_axis, cc from flows")["cc"]) == {"cubic", "reno"}
    from crosslayer.cli import app
    from typer.testing import CliRunner

    (tmp_path / "clash.toml").write_text(CLASHING)
    listed = CliRunner().invoke(app, ["study", "points", str(tmp_path / "clash.toml"), "-q"], catch_exceptions=False)
    assert listed.exit_code == 0 and len(listed.stdout.split()) == 8
    assert listed.stderr == "".join(f"note: {n}\n" for n in study.column_notes)


def test_a_result_column_the_engine_adds_later_never_refuses_a_study(monkeypatch: pytest.MonkeyPatch) -> None:
    """What an engine with new result columns does to the same study file: a column the last
    field names (`duration`, a whole path) or [study.columns] names (`aqm`) takes ``_axis``;
    a column a longer path names lengthens first, as before (`bottleneck_rate`)."""
    import crosslayer.study as study_module

    text = SMALL.split("[study]")[0] + """
[study]
[study.columns]
"topology.bottleneck.qdisc" = "aqm"
[study.axes]
duration = ["2s", "3s"]
"topology.bottleneck.qdisc" = { droptail = { kind = "droptail", limit_pkts = 100 }, codel = { kind = "codel" } }
"topology.bottleneck.rate" = ["10Mbps", "20Mbps"]
"""
    assert Study.from_toml(text).columns == {"duration": "duration", "topology.bottleneck.qdisc": "aqm", "topology.bottleneck.rate": "rate", "seed": "seed"}
    taken = study_module._taken()
    monkeypatch.setattr(study_module, "_taken", lambda: taken | {"duration", "aqm", "rate"})
    later = Study.from_toml(text)
    assert later.columns == {"duration": "duration_axis", "topology.bottleneck.qdisc": "aqm_axis", "topology.bottleneck.rate": "bottleneck_rate", "seed": "seed"}
    assert len(later.points()) == 8 and [n.split(":")[0] for n in later.column_notes] == ["the axis 'duration'", "the axis 'topology.bottleneck.qdisc'"]


def test_two_axes_with_one_column_name_are_refused_naming_both() -> None:
    text = SMALL.replace('"flows[*].per_pair" = [1, 3]', '"flows[*].per_pair" = [1, 3]\n"flows[0].start" = ["0s", "1s"]\n[study.columns]\n"flows[*].per_pair" = "n"\n"flows[0].start" = "n"')
    with pytest.raises(StudyError, match="study 'small': the axes 'flows\\[\\*\\].per_pair' and 'flows\\[0\\].start' both get the column name 'n'; name one"):
        Study.from_toml(text)


def test_study_table_errors_name_the_field() -> None:
    with pytest.raises(StudyError, match="has no field 'axis'"):
        Study.from_toml(SMALL.replace("[study.axes]", "[study.axis]"))
    with pytest.raises(StudyError, match="needs \\[\\[study.points\\]\\]"):
        Study.from_toml(SMALL.replace("[study]\n", '[study]\nmode = "points"\n'))


# -- sweeps ---------------------------------------------------------------------------------


def test_local_and_dask_runs_store_identical_results_and_a_second_run_runs_nothing(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    study = Study.from_toml(SMALL)
    local = Store(tmp_path / "local")
    report = run_study(study, local, workers=2)
    assert (report.total, report.ran, report.skipped, report.failed) == (8, 8, 0, [])
    again = run_study(study, local, workers=2)
    assert (again.ran, again.skipped) == (0, 8)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, distributed.Client(cluster) as client:
        remote = Store(tmp_path / "dask")
        events: list[RunEvent] = []
        assert run_study(study, remote, client=client, on_run=events.append).ran == 8
        assert {e.key for e in events if e.done} == remote.keys()
        # a longer run reports its simulated time from the worker too
        long = Study.from_toml(_long_study(tmp_path, 400), overrides={"flows[*].cc": "cubic", "flows[*].per_pair": 1, "topology.bottleneck.qdisc": "codel"})
        events.clear()
        assert run_study(long, Store(tmp_path / "dask-long"), client=client, on_run=events.append).ran == 1
        sims = [e.sim_s for e in events if not e.done]
        assert sims and sims == sorted(sims) and 0 < sims[0] < 400.0 and events[-1].done
    assert local.keys() == remote.keys()
    for table in ("flows", "queues"):
        pd.testing.assert_frame_equal(local.table(table), remote.table(table))
    pd.testing.assert_frame_equal(local.runs().drop(columns=["wall_s"]), remote.runs().drop(columns=["wall_s"]))
    flows = local.flows()
    assert {"key", "flows_cc", "bottleneck_qdisc", "per_pair", "seed", "goodput_bps"} <= set(flows.columns)
    assert len(flows) == 2 * 2 * (2 + 6)  # 2 ccs x 2 queues x (2 flows + 6 flows)
    assert set(flows.loc[flows["flows_cc"] == "reno", "cc"]) == {"reno"}


@pytest.mark.parametrize("workers", [1, 2])
def test_each_run_of_a_sweep_reports_its_simulated_time_then_its_end(tmp_path: Path, workers: int) -> None:
    # runs of a few wall-seconds each, so that every one reports progress (about 5 times a
    # second) on a worker process or in this one
    study = Study.from_toml(_long_study(tmp_path, 400), overrides={"flows[*].cc": "cubic", "flows[*].per_pair": 1})
    events: list[RunEvent] = []
    report = run_study(study, Store(tmp_path / "store"), workers=workers, on_run=events.append)
    assert report.ran == 2 and not report.failed
    for key in {p.key for p in study.points()}:
        mine = [e for e in events if e.key == key]
        assert mine, "no event for a run"
        *during, last = mine
        assert last.done and last.error is None and last.wall_s is not None and last.wall_s > 0
        assert last.sim_s == last.total_s == 400.0
        assert during, "no progress before the run ended"
        assert all(not e.done for e in during)
        sims = [e.sim_s for e in during]
        assert sims == sorted(sims) and 0 < sims[0] and sims[-1] <= 400.0
        assert last.labels == mine[0].labels and "bottleneck_qdisc" in last.labels


def test_the_python_api_runs_a_study_into_a_store_and_returns_it(tmp_path: Path) -> None:
    import crosslayer

    store = crosslayer.run_study(SMALL, tmp_path / "s", overrides={"flows[*].per_pair": 1, "flows[*].cc": "reno"}, workers=1)
    assert isinstance(store, Store) and len(store.keys()) == 2
    runs = store.runs()
    assert set(runs["bottleneck_qdisc"]) == {"droptail", "codel"} and set(runs["flows_cc"]) == {"reno"}
    again = crosslayer.run_study(Study.from_toml(SMALL, overrides={"flows[*].per_pair": 1, "flows[*].cc": "reno"}), store, workers=1)
    assert again.keys() == store.keys()
    with pytest.raises(ValueError, match="overrides apply when loading"):
        crosslayer.run_study(Study.from_toml(SMALL), store, overrides={"seed": 2})


def test_a_store_keeps_udp_flows_and_cwnd_traces_when_the_scenario_has_them(tmp_path: Path) -> None:
    text = SMALL.replace('seed = 1', 'seed = 1\ncwnd_trace = true\nsample_interval = "100ms"') + """
[[udp]]
src = "S1"
dst = "R1"
rate = "2Mbps"
"""
    store = Store(tmp_path / "s")
    run_study(Study.from_toml(text, overrides={"flows[*].per_pair": 1, "flows[*].cc": "cubic"}), store, workers=1)
    udp, cwnd = store.udp(), store.cwnd()
    assert len(udp) == 2 and set(udp["bottleneck_qdisc"]) == {"droptail", "codel"}
    assert set(cwnd["flow"].astype(str)) == {"S1-R1.0", "S2-R1.0"} and len(cwnd) == 2 * 2 * 31  # 0 to 3 s every 100 ms
    counts = store.query("select bottleneck_qdisc, count(*) as n from cwnd group by 1 order by 1")
    assert counts["n"].tolist() == [62, 62]


def test_an_axis_value_is_never_edited_by_a_later_axis() -> None:
    # a named topology carrying PIE's tupdate, then an axis over the qdisc's kind: the codel
    # point drops `tupdate` (CoDel has none) from its copy, never from the axis value the pie
    # points reuse
    text = SMALL.replace(
        '"topology.bottleneck.qdisc" = { droptail = { kind = "droptail", limit_pkts = 100 }, codel = { kind = "codel" } }',
        '"topology.bottleneck" = { slow = { rate = "20Mbps", delay = "5ms", qdisc = { kind = "pie", tupdate = "30ms" } } }\n'
        '"topology.bottleneck.qdisc.kind" = ["pie", "codel"]',
    )
    study = Study.from_toml(text)
    for _ in range(2):  # validation walks the points once, the run again
        tupdates = {(p.labels["qdisc_kind"], p.scenario.topology.bottleneck.qdisc.model_dump().get("tupdate")) for p in study.points()}
        assert tupdates == {("pie", "30ms"), ("codel", None)}, tupdates


def test_an_override_of_an_axis_narrows_it_and_keeps_its_column() -> None:
    study = Study.from_toml(SMALL, overrides={"topology.bottleneck.qdisc": "droptail", "flows[*].per_pair": [1, 3]})
    points = study.points()
    assert len(points) == 2 * 1 * 2
    assert {p.labels["bottleneck_qdisc"] for p in points} == {"droptail"}
    # the name picks the axis's table (limit 100), not droptail's defaults
    assert {p.scenario.topology.bottleneck.qdisc.limit_pkts for p in points} == {100}
    full = {p.key for p in Study.from_toml(SMALL).points()}
    assert {p.key for p in points} <= full  # the same runs as the file's: a store skips them


def test_a_store_whose_runs_differ_outside_the_columns_refuses_to_be_tabulated(tmp_path: Path) -> None:
    from crosslayer.report import layout

    store = Store(tmp_path / "store")
    one = {"flows[*].cc": "cubic", "topology.bottleneck.qdisc": "codel", "flows[*].per_pair": 1}
    run_study(Study.from_toml(SMALL, overrides=one), store, workers=1)
    run_study(Study.from_toml(SMALL, overrides={**one, "tcp.min_rto": "1s"}), store, workers=1)
    assert len(store.keys()) == 2
    with pytest.raises(ValueError, match="1 points with several different runs"):
        layout(store)


def _wait_for(predicate, timeout: float) -> bool:  # type: ignore[no-untyped-def]
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(0.05)
    return False


def _long_study(tmp_path: Path, seconds: int) -> Path:
    text = SMALL.replace('duration = "3s"', f'duration = "{seconds}s"').replace('rate = "20Mbps"', 'rate = "200Mbps"')
    path = tmp_path / "long.toml"
    path.write_text(text)
    return path


def test_a_killed_study_resumes_without_duplicates(tmp_path: Path) -> None:
    study_file = _long_study(tmp_path, 20)
    store = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    proc = subprocess.Popen([*CLI, "study", "run", str(study_file), "-o", str(store), "-j", "1", "-q"], env=env)
    try:
        assert _wait_for(lambda: len(Store(store).keys()) >= 1, 120), "no run was stored"
        proc.kill()  # SIGKILL: no cleanup at all
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
    stored = Store(store).keys()
    assert 1 <= len(stored) < 8
    done = subprocess.run([*CLI, "study", "run", str(study_file), "-o", str(store), "-q", "--json"], env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    st = Store(store)
    assert len(st.keys()) == 8
    runs = st.runs()
    assert len(runs) == 8 and runs["key"].is_unique
    flows = st.flows()
    assert not flows.duplicated(subset=["key", "name"]).any()
    assert set(flows["key"]) == set(runs["key"])


def _default_sigint() -> None:
    """In the child: Ctrl-C's default handling, even when the tests run as a background job (a
    shell starts those with SIGINT ignored, and Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_a_running_simulation_within_a_second_and_leaves_the_store_consistent(tmp_path: Path) -> None:
    study_file = _long_study(tmp_path, 3000)
    store = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    proc = subprocess.Popen([*CLI, "study", "run", str(study_file), "-o", str(store), "-j", "1", "-q"], env=env, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    # into the first run: its point is claimed (on a loaded machine the start-up alone can take
    # seconds, and a fixed sleep could signal a process that has not started running yet)
    assert _wait_for(lambda: (store / ".claims").is_dir() and any((store / ".claims").iterdir()), 120), "no point was claimed"
    time.sleep(1)
    t0 = time.time()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    stopped = time.time() - t0
    assert stopped < 1.0, f"took {stopped:.2f} s to stop"
    assert proc.returncode == 130, err
    assert "interrupted" in err
    st = Store(store)
    keys = st.keys()
    assert len(keys) < 8  # stopped mid-way: the run in flight is lost
    # every stored run is complete; nothing half-written counts
    for k in keys:
        assert (store / "flows" / f"{k}.parquet").exists() and (store / "queues" / f"{k}.parquet").exists()
    assert len(st.runs()) == len(keys)
    assert set(st.flows()["key"]) == keys if keys else st.flows().empty


def test_cli_study_run_and_sql_query(tmp_path: Path) -> None:
    study_file = tmp_path / "s.toml"
    study_file.write_text(SMALL)
    store = tmp_path / "store"
    env = {**os.environ, "PYTHONPATH": str(ROOT / "python")}
    run = subprocess.run([*CLI, "study", "run", str(study_file), "-o", str(store), "--set", "flows[*].per_pair=1", "-q", "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert '"ran": 4' in run.stdout  # per_pair fixed to 1: 2 x 2 points
    q = subprocess.run(
        [*CLI, "results", "query", "select flows_cc, bottleneck_qdisc, count(*) as n from flows group by 1, 2 order by 1, 2", "-s", str(store), "--format", "csv"],
        env=env, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert q.returncode == 0, q.stderr
    assert q.stdout.splitlines() == ["flows_cc,bottleneck_qdisc,n", "cubic,codel,2", "cubic,droptail,2", "reno,codel,2", "reno,droptail,2"]
    bad = subprocess.run([*CLI, "results", "query", "select nope from runs", "-s", str(store)], env=env, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "query failed" in bad.stderr
    # -v: a line per finished run, on stderr; the data commands print data only on stdout
    more = subprocess.run([*CLI, "study", "run", str(study_file), "-o", str(store), "--set", "flows[*].per_pair=3", "-j", "1", "-v"], env=env, capture_output=True, text=True, timeout=300)
    assert more.returncode == 0, more.stderr
    lines = [line for line in more.stderr.splitlines() if "flows_cc=" in line]
    assert len(lines) == 4 and all(line.rstrip().endswith(" s") for line in lines), more.stderr
    assert "4 run, 0 already stored, 0 failed of 4 points" in more.stderr and more.stdout == ""
    table = subprocess.run([*CLI, "results", "table", str(store), "-m", "jain", "--format", "json", "-v"], env=env, capture_output=True, text=True, timeout=60)
    assert table.returncode == 0, table.stderr
    rows = json.loads(table.stdout)  # one row per cell, numbers in their own fields
    assert len(rows) == 8 and {"flows_cc", "per_pair", "bottleneck_qdisc", "mean", "ci_low", "ci_high", "n"} <= set(rows[0]) and "8 runs" in table.stderr
    assert all(isinstance(r["mean"], float) and r["n"] == 1 and r["ci_low"] is None for r in rows)  # one seed: no interval
    # flow-level metrics: per run (RTT-fairness) and per TCP group (BD %, rows gain cc)
    bd = subprocess.run([*CLI, "results", "table", str(store), "-m", "bd_pct", "--format", "csv"], env=env, capture_output=True, text=True, timeout=60)
    assert bd.returncode == 0, bd.stderr
    frame = pd.read_csv(io.StringIO(bd.stdout))
    assert list(frame.columns) == ["flows_cc", "per_pair", "cc", "bottleneck_qdisc", "mean", "ci_low", "ci_high", "n", "metric", "unit"]
    assert (frame["flows_cc"] == frame["cc"]).all() and set(frame["unit"]) == {"%"}
    assert np.allclose(frame["mean"], 100.0)  # one TCP per point: all of it
    rtt = subprocess.run([*CLI, "results", "table", str(store), "-m", "jain_rtt_classes", "--format", "json"], env=env, capture_output=True, text=True, timeout=60)
    assert rtt.returncode == 0 and all(0 < r["mean"] <= 1 for r in json.loads(rtt.stdout)), rtt.stderr
    report = subprocess.run([*CLI, "study", "report", str(store), "--json"], env=env, capture_output=True, text=True, timeout=300)
    assert report.returncode == 0, report.stderr
    written = json.loads(report.stdout)
    assert Path(written["html"]).is_file() and Path(written["markdown"]).is_file() and written["html"] in written["files"]
    # any figure, for any metric and axes
    for kind, extra in [("heatmap", ["-m", "drop_ratio"]), ("heatmap", ["-m", "bd_pct"]), ("queues", ["--where", "per_pair=3"]), ("goodput", []), ("ellipses", ["--where", "flows_cc=reno"])]:
        target = tmp_path / f"{kind}.svg"
        fig = subprocess.run([*CLI, "results", "plot", str(store), kind, *extra, "-o", str(target)], env=env, capture_output=True, text=True, timeout=120)
        assert fig.returncode == 0, fig.stderr
        assert target.read_text().lstrip().startswith("<?xml") and "<svg" in target.read_text()
    for bad, message in [(["heatmap", "-m", "nope"], "unknown metric 'nope'"), (["goodput", "--where", "aqm=pie"], "'aqm' is not a swept column"), (["pie-chart"], "unknown figure")]:
        fail = subprocess.run([*CLI, "results", "plot", str(store), *bad], env=env, capture_output=True, text=True, timeout=120)
        assert fail.returncode == 2 and message in fail.stderr, fail.stderr


def test_report_renders_in_headless_chromium_with_every_figure_and_no_console_error(tmp_path: Path) -> None:
    import shutil

    from crosslayer.report import write_report

    browser = next((b for b in ("chromium", "chromium-browser", "google-chrome") if shutil.which(b)), None)
    study = Study.from_toml(SMALL.replace('seed = 1', 'seed = 1\nsample_interval = "50ms"').replace("[study]\n", "[study]\nseeds = [1, 2]\n"))
    store = Store(tmp_path / "store")
    assert run_study(study, store, workers=1).ran == 16
    folder = write_report(store.root, weights={"fairness": 2})
    page = (folder / "index.html").read_text()
    md = (folder / "report.md").read_text()
    for needle in ("index (all flows)", "Ranking of pairs", "(2 x fairness", "Study file", "crosslayer study run"):
        assert needle in page, needle
    assert "| flows_cc" in md and "![heatmap of jain](fig1.png)" in md
    assert "http://" not in page and "https://" not in page  # self-contained
    if browser is None:
        pytest.skip("no Chromium on this machine, and `make test` could not install it (it needs root and apt-get; Debian: apt install chromium)")
    out = subprocess.run(
        [browser, "--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0", "--virtual-time-budget=5000", "--dump-dom", (folder / "index.html").as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    console = [line for line in out.stderr.splitlines() if ":CONSOLE" in line]
    assert console == [], console
    import re

    m = re.search(r'data-figures="(\d+) shown, (\d+) broken"', out.stdout)
    assert m, out.stdout[-500:]
    assert int(m.group(1)) >= 4 and m.group(2) == "0", m.group(0)


# -- analysis ---------------------------------------------------------------------------------


def fixture_flows() -> pd.DataFrame:
    """Two points (droptail, codel); three flows each: two CUBIC, one Reno; RTTs 10 and 20 ms."""
    return pd.DataFrame(
        {
            "qdisc": ["droptail"] * 3 + ["codel"] * 3,
            "cc": ["cubic", "cubic", "reno"] * 2,
            "goodput_bps": [6e6, 2e6, 2e6, 3e6, 3e6, 4e6],
            "throughput_bps": [6.5e6, 2.5e6, 2.0e6, 3e6, 3e6, 4e6],
            "base_rtt_s": [0.010, 0.020, 0.010] * 2,
        }
    )


def test_jain_and_quartiles_by_hand() -> None:
    assert jain([6, 2, 2]) == pytest.approx(100 / (3 * 44))  # (10)^2 / (3 x 44)
    assert jain([3, 3, 4]) == pytest.approx(100 / (3 * 34))
    q = quartiles(fixture_flows(), ["qdisc"])
    dt = q[q["qdisc"] == "droptail"].iloc[0]
    assert (dt["min"], dt["q1"], dt["median"], dt["q3"], dt["max"]) == pytest.approx((2, 2, 2, 4, 6))


def test_groups_bd_share_inter_and_intra_fairness_by_hand() -> None:
    g = groups(fixture_flows(), ["qdisc"])
    dt = g[g["qdisc"] == "droptail"].set_index("cc")
    assert dt.loc["cubic", "bd_pct"] == pytest.approx(80.0) and dt.loc["reno", "bd_pct"] == pytest.approx(20.0)
    assert dt.loc["cubic", "avg_mbps"] == pytest.approx(4.0) and dt.loc["cubic", "sd_mbps"] == pytest.approx(2.0)
    assert dt.loc["cubic", "jain_inter"] == pytest.approx(64 / (2 * 40))
    assert dt.loc["reno", "jain_inter"] == pytest.approx(1.0)
    f = fairness(fixture_flows(), ["qdisc"]).set_index("qdisc")
    assert f.loc["droptail", "jain_intra"] == pytest.approx(100 / 132)
    assert f.loc["droptail", "jain_inter_min"] == pytest.approx(0.8)
    assert f.loc["codel", "jain_inter_mean"] == pytest.approx(1.0)
    # RTT classes: droptail 10 ms flows (6, 2) mean 4, the 20 ms flow 2 -> Jain(4, 2) = 36/40
    r = rtt_fairness(fixture_flows(), ["qdisc"]).set_index("qdisc")
    assert r.loc["droptail", "jain_rtt_classes"] == pytest.approx(36 / 40) and r.loc["droptail", "rtt_classes"] == 2


def test_system_goodput_and_throughput() -> None:
    s = system(fixture_flows(), ["qdisc"]).set_index("qdisc")
    assert s.loc["droptail", "goodput_mbps"] == pytest.approx(10.0)
    assert s.loc["droptail", "throughput_mbps"] == pytest.approx(11.0)
    assert s.loc["droptail", "goodput_over_throughput"] == pytest.approx(10 / 11)
    assert np.isclose(s.loc["codel", "goodput_over_throughput"], 1.0)


def test_a_long_run_reports_simulated_time_as_it_goes() -> None:
    import crosslayer

    seen: list[float] = []
    scenario = apply_overrides(base(), {"duration": "400s", "topology.bottleneck.rate": "200Mbps", "flows[*].per_pair": 5})
    crosslayer.run(scenario, progress=seen.append)
    assert seen, "no progress report"
    assert all(0 < a < b for a, b in zip(seen, seen[1:])) and seen[-1] <= 400.0


def test_acked_bytes_in_the_cwnd_trace_give_each_flows_goodput_and_its_figure() -> None:
    import crosslayer
    from crosslayer.plots import goodput_figure

    scenario = apply_overrides(base(), {"duration": "6s", "warmup": "2s", "cwnd_trace": True, "sample_interval": "100ms", "flows[*].per_pair": 2})
    r = crosslayer.run(scenario)
    c = r.cwnd
    for name, goodput in zip(r.flows["name"], r.flows["goodput_bps"]):
        rows = c[c["flow"] == name].set_index("t_s")["acked_bytes"]
        at = lambda t: float(np.interp(t, rows.index.to_numpy(dtype=float), rows.to_numpy(dtype=float)))  # noqa: E731
        from_trace = (at(6.0) - at(2.0)) * 8 / 4.0
        # the trace counts payload acknowledged in order; the flows table what the receiver got
        assert from_trace == pytest.approx(goodput, rel=0.05), name
    fig = goodput_figure(r, every=0.5)
    assert len(fig.axes[0].lines) == len(r.flows)


def test_long_tables_store_their_labels_compactly_and_read_back_the_same(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's table longer than LARGE_TABLE_ROWS is stored with its text labels as categoricals
    (a byte a row: a 17-million-row series took a worker to 4.5 GB with them as lists, and two
    such workers past the machine's memory); read back, every table is the same as stored the
    ordinary way."""
    import crosslayer.store as store_module

    study = Study.from_toml(SMALL)
    plain = Store(tmp_path / "plain")
    run_study(study, plain, workers=1)
    monkeypatch.setattr(store_module, "LARGE_TABLE_ROWS", 5)
    compact = Store(tmp_path / "compact")
    run_study(study, compact, workers=1)
    for name in ("flows", "queues", "series"):
        a, b = plain.table(name), compact.table(name)
        assert len(a) > 5
        pd.testing.assert_frame_equal(a.astype(str), b.astype(str), obj=name)


def test_a_runs_tables_take_the_points_labels_first_and_refuse_a_clash() -> None:
    """Each of a run's tables gets the key and the point's swept values as its first columns,
    every row the same, the table's own columns after them unchanged; a label with a result
    column's name is refused (the study's column names never give one: `column_names`)."""
    import crosslayer
    from crosslayer.store import tables_for

    study = Study.from_toml(SMALL)
    p = study.points()[0]
    r = crosslayer.run(p.scenario)
    frames = tables_for(p.key, p.labels, r, {}, {})
    labels = {"key": p.key, **p.labels}
    for name, own in (("flows", r.flows), ("queues", r.queues), ("series", r.series)):
        f = frames[name].to_pandas()
        assert list(f.columns) == [*labels, *own.columns], name
        for col, value in labels.items():
            assert (f[col] == value).all(), (name, col)
        pd.testing.assert_frame_equal(f[list(own.columns)], own, obj=name)
    with pytest.raises(ValueError, match="already has the column"):
        tables_for(p.key, {**p.labels, "goodput_bps": 1}, r, {}, {})


def test_a_sweep_starts_its_costliest_runs_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # On several workers the points start in the order of their estimated cost, so the last to
    # start are short runs: seed 000's matrix puts the Data Center (1 Gb/s) before the Access
    # Link (100 Mb/s) and, within each, 900 flows before 90 before 9, as its run times do
    # (equal costs keep the study's order).
    from crosslayer import sweep

    points = Study.from_toml(ROOT / "studies" / "seed000-matrix.toml").points()
    ranked = sorted(points, key=sweep._work, reverse=True)
    blocks = [(p.labels["topology"], p.labels["load"]) for p in ranked][::12]
    assert blocks == [(t, load) for t in ("data_center", "access_link") for load in ("heavy", "mild", "uncongested")]
    same = [p for p in ranked if (p.labels["topology"], p.labels["load"]) == ("access_link", "mild")]
    assert same == [p for p in points if (p.labels["topology"], p.labels["load"]) == ("access_link", "mild")]
    # and a sweep on several workers submits them in that order (a runner that records the
    # order and fails each point, so nothing runs)
    submitted: list[str] = []

    class Recorder(sweep._Serial):
        capacity = 3

        def submit(self, p: Any) -> Any:
            submitted.append(p.key)
            fut: Any = sweep.Future()
            fut.set_exception(RuntimeError("not run"))
            return fut

    monkeypatch.setattr(sweep, "_Local", lambda workers, event: Recorder(event))
    report = run_study(Study.from_toml(ROOT / "studies" / "seed000-matrix.toml"), Store(tmp_path / "store"), workers=3)
    assert len(report.failed) == 72
    assert submitted == [p.key for p in ranked]
