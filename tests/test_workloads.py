"""Finite flows and Poisson arrivals from a study file: sizes on flow groups, [[arrivals]] with
every size distribution (the shipped web-search and data-mining CDFs, CDF files), the fct table,
its SQL view and the slowdown per size bin; every bad input named with its field and fix."""

from __future__ import annotations

import copy
import math
from pathlib import Path
from typing import Any

import pytest

from crosslayer import run
from crosslayer.fct import slowdown_by_size
from crosslayer.scenario import Scenario, ScenarioError
from crosslayer.scenario.workload import builtin_cdf, cdf_mean

ROOT = Path(__file__).resolve().parents[1]

BASE: dict[str, Any] = {
    "name": "wl",
    "duration": "20s",
    "topology": {
        "bottleneck": {"rate": "100Mbps", "delay": "5ms", "qdisc": {"kind": "droptail", "limit_pkts": 200}},
        "senders": [{"name": "N1", "rate": "1Gbps", "delay": "1ms"}, {"name": "N2", "rate": "1Gbps", "delay": "1ms"}],
        "receivers": [{"name": "N4", "rate": "1Gbps", "delay": "1ms"}],
    },
    "arrivals": [{"src": ["N1", "N2"], "dst": "N4", "cc": "cubic", "load": 0.5, "sizes": "websearch", "stop": "15s"}],
}


def scenario(**changes: Any) -> dict[str, Any]:
    s = copy.deepcopy(BASE)
    for path, value in changes.items():
        *head, last = path.split(".")
        node: Any = s
        for k in head:
            node = node[int(k)] if isinstance(node, list) else node[k]
        node[last] = value
    return s


def problems(data: dict[str, Any]) -> str:
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_dict(data)
    return str(exc.value)


def test_the_shipped_cdfs_have_the_published_points_and_means() -> None:
    web, mining = builtin_cdf("websearch"), builtin_cdf("datamining")
    assert web[1] == (10_000, 0.15) and web[-1] == (30_000_000, 1.0) and len(web) == 12
    assert mining[5] == (1100, 0.5) and mining[-1] == (1e9, 1.0) and len(mining) == 13
    assert cdf_mean(web) == pytest.approx(1_711_250)
    assert cdf_mean(mining) == pytest.approx(12_658_198.6)


def test_a_flow_group_with_a_size_is_finite_and_its_fct_is_reported() -> None:
    data = scenario()
    del data["arrivals"]
    data["flows"] = [{"src": "N1", "dst": "N4", "cc": "reno", "size": "10KB"}, {"src": "N2", "dst": "N4", "cc": "cubic", "size": "5MB", "start": "1s"}]
    r = run(Scenario.from_dict(data))
    f = r.fct
    assert list(f["size_bytes"]) == [10_000, 5_000_000] and f["completed"].all()
    # the 10 kB flow is alone and fits in its initial window: exactly its ideal
    assert f["slowdown"][0] == pytest.approx(1.0, abs=1e-12)
    assert f["slowdown"][1] > 1.0
    agg = r.aggregates()["fct"]
    assert agg["flows"] == 2 and agg["completed"] == 2


def test_poisson_web_search_arrivals_come_as_often_as_the_load_says() -> None:
    sc = Scenario.from_dict(scenario())
    expected = sc.expected_arrivals(sc.arrivals[0])
    assert expected == pytest.approx(0.5 * 100e6 / (8 * 1_711_250) * 15)
    r = run(sc)
    n = len(r.flows)
    assert abs(n - expected) < 4 * math.sqrt(expected), (n, expected)
    f = r.fct
    done = f[f["completed"]]
    assert len(done) >= 0.9 * n and (done["slowdown"] >= 1).all()
    assert set(f["src"]) == {"N1", "N2"} and set(f["dst"]) == {"N4"}
    bins = slowdown_by_size(f)
    assert list(bins["size_bin"])[0] == "< 10kB" and bins["flows"].sum() == n


@pytest.mark.parametrize(
    "sizes",
    [
        "datamining",
        "200KB",
        {"kind": "exponential", "mean": "100KB"},
        {"kind": "pareto", "mean": "100KB", "shape": 1.5},
        {"kind": "lognormal", "median": "20KB", "sigma": 1.5},
        {"kind": "cdf", "points": [[1000, 0], [1000, 0.5], [100000, 1]]},
    ],
)
def test_every_size_distribution_runs(sizes: Any) -> None:
    r = run(Scenario.from_dict(scenario(**{"arrivals.0.sizes": sizes, "duration": "5s", "arrivals.0.stop": "4s"})))
    assert len(r.fct) > 0 and (r.fct["size_bytes"] >= 1).all()


def test_a_cdf_file_is_read_and_its_bad_line_named(tmp_path: Path) -> None:
    good = tmp_path / "sizes.csv"
    good.write_text("# my sizes\nbytes,cdf\n0,0\n5000,0.5\n50000,1\n")
    r = run(Scenario.from_dict(scenario(**{"arrivals.0.sizes": {"kind": "cdf", "file": str(good)}, "duration": "3s", "arrivals.0.stop": "2s"})))
    assert r.fct["size_bytes"].max() <= 50_000
    bad = tmp_path / "bad.csv"
    bad.write_text("bytes,cdf\n0,0\n5000,half\n50000,1\n")
    assert "line 3" in problems(scenario(**{"arrivals.0.sizes": {"kind": "cdf", "file": str(bad)}}))


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"arrivals.0.load": 1.2}, "arrivals[0].load: must be in (0, 1)"),
        ({"arrivals.0.load": 1.2}, "set overload = true to run such an overload on purpose"),
        ({"arrivals.0.load": 11, "arrivals.0.overload": True}, "arrivals[0].load: must be in (0, 10] with overload = true"),
        ({"arrivals.0.load": "high"}, "arrivals[0].load"),
        ({"arrivals.0.link": "X->Y"}, 'arrivals[0].link: no link "X->Y"'),
        ({"arrivals.0.sizes": {"kind": "cdf", "points": [[0, 0], [100, 0.6], [50, 0.7], [200, 1]]}}, "non-decreasing"),
        ({"arrivals.0.sizes": {"kind": "cdf", "points": [[0, 0], [100, 0.6]]}}, "reaches 1"),
        ({"arrivals.0.sizes": {"kind": "pareto", "mean": "1MB", "shape": 0.9}}, "arrivals[0].sizes.shape: must be in (1, 100]"),
        ({"arrivals.0.sizes": {"kind": "fixed", "size": "0B"}}, "arrivals[0].sizes.size: must be a positive size"),
        ({"arrivals.0.sizes": {"kind": "exponential"}}, "needs mean"),
        ({"arrivals.0.sizes": {"kind": "cdf", "file": "a.csv", "points": [[0, 0], [1, 1]]}}, "one of them"),
        ({"arrivals.0.stop": "50s"}, "arrivals[0].stop: must be in"),
        ({"arrivals.0.dst": "N9"}, "arrivals[0].dst[0]: unknown node"),
        ({"arrivals.0.load": 0.99, "duration": "3600s", "arrivals.0.stop": None, "arrivals.0.sizes": "1KB"}, "a run holds at most"),
    ],
)
def test_bad_arrivals_are_named(changes: dict[str, Any], expected: str) -> None:
    data = scenario(**{k: v for k, v in changes.items() if v is not None})
    for k, v in changes.items():
        if v is None:
            del data["arrivals"][0][k.split(".")[-1]]
    assert expected in problems(data)


def test_a_finite_size_of_zero_is_refused() -> None:
    data = scenario()
    del data["arrivals"]
    data["flows"] = [{"src": "N1", "dst": "N4", "cc": "reno", "size": "0B"}]
    assert "flows" in problems(data) and "size" in problems(data)


def test_the_web_search_study_stores_an_fct_view(tmp_path: Path) -> None:
    from crosslayer import run_study

    store = run_study(ROOT / "studies" / "websearch-fct.toml", tmp_path / "s", overrides={"duration": "3s", "arrivals[0].stop": "2s"}, workers=1)
    q = store.query("select count(*) as n, sum(completed::int) as done, min(slowdown) as lo from fct")
    assert int(q["n"][0]) == len(store.fct()) > 0 and float(q["lo"][0]) >= 1.0
    by_point = store.query("select r.arrivals_cc, count(*) as n from fct join runs r using (key) group by 1 order by 1")
    assert list(by_point["arrivals_cc"]) == ["cubic", "dctcp"]
    from crosslayer.report import write_report

    folder = write_report(tmp_path / "s")
    md = (folder / "report.md").read_text()
    assert "## Flow completion: slowdown per size bin" in md and "![slowdown per size bin]" in md


def listed(tmp_path: Path, text: str, **extra: Any) -> dict[str, Any]:
    f = tmp_path / "flows.csv"
    f.write_text(text)
    return scenario(arrivals=[{"name": "trace", "file": str(f), **extra}])


def test_a_flow_list_runs_each_line_as_a_finite_flow(tmp_path: Path) -> None:
    text = "# a hand-made trace\nstart,src,dst,size,cc\n0,N1,N4,20KB,\n0.25,N2,N4,1000000,dctcp\n1.5s,N4,N1,1500,\n"
    r = run(listed(tmp_path, text, cc="cubic"))
    f = r.flows.set_index("name")
    assert list(f.index) == ["trace.0", "trace.1", "trace.2"]
    assert list(f.size_bytes) == [20_000, 1_000_000, 1500]
    assert list(f.start_s) == [0.0, 0.25, 1.5]
    assert list(f.cc) == ["cubic", "dctcp", "cubic"]
    # the last line runs from the receiver side back to a sender (over B->A)
    assert list(f.direction) == ["forward", "forward", "reverse"] and list(f.src) == ["N1", "N2", "N4"]
    assert (r.fct.slowdown >= 1).all() and r.fct.fct_s.notna().all()


@pytest.mark.parametrize(
    ("text", "extra", "expected"),
    [
        ("start,src,size\n0,N1,20KB\n", {"cc": "cubic"}, "line 1: the header must name the columns start, src, dst, size and optionally cc"),
        ("start,src,dst,size\n0,N1,N4,20KB\n0,N1,N4,0\n", {"cc": "cubic"}, "line 3: size: must be a whole number of bytes, at least 1"),
        ("start,src,dst,size\n-1,N1,N4,20KB\n", {"cc": "cubic"}, "line 2: start: must be a time of at least 0"),
        ("start,src,dst,size\n0,N1,N4\n", {"cc": "cubic"}, "line 2: \"0,N1,N4\" has 3 cells, the header 4"),
        ("start,src,dst,size\n0,N1,N9,20KB\n", {"cc": "cubic"}, "line 2: \"N1\" -> \"N9\" is not a sender and a receiver of the dumbbell"),
        ("start,src,dst,size\n30s,N1,N4,20KB\n", {"cc": "cubic"}, "line 2: start 30s is not before the end of the run (20s)"),
        ("start,src,dst,size\n0,N1,N4,20KB\n", {}, "arrivals[0].cc: line 2 of"),
        ("start,src,dst,size,cc\n0,N1,N4,20KB,kubic\n", {}, "line 2: cc: no congestion control \"kubic\""),
        ("start,src,dst,size\n", {"cc": "cubic"}, "no flow after the header"),
    ],
)
def test_a_bad_flow_list_names_its_line(tmp_path: Path, text: str, extra: dict[str, Any], expected: str) -> None:
    message = problems(listed(tmp_path, text, **extra))
    assert expected in message and "arrivals[0]" in message, message


def test_a_missing_flow_list_is_named(tmp_path: Path) -> None:
    data = scenario(arrivals=[{"file": str(tmp_path / "nope.csv"), "cc": "cubic"}])
    assert "arrivals[0].file: cannot read" in problems(data)


def test_the_goodput_series_is_a_table_and_is_stored(tmp_path: Path) -> None:
    data = scenario(goodput_interval="1s", duration="6s")
    data["arrivals"][0].update(stop="4s")
    data["flows"] = [{"src": "N1", "dst": "N4", "cc": "cubic"}]
    r = run(data)
    g = r.goodput
    assert list(g.columns) == ["t_s", "flow", "bytes", "goodput_bps"]
    bulk = g[g.flow == "N1-N4.0"]
    assert list(bulk.t_s) == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert (bulk.goodput_bps == bulk.bytes * 8.0).all()
    done = r.flows[r.flows.fct_s.notna()]
    per_flow = g.groupby("flow", observed=True).bytes.sum()
    assert (per_flow[done.name].to_numpy() == done.size_bytes.to_numpy()).all()
    from crosslayer.plots import goodput_figure

    fig = goodput_figure(r, flows=["N1-N4.0"])  # drawn from the goodput table, 1 s bins
    line = fig.axes[0].lines[0]
    assert list(line.get_ydata()[1:]) == list(bulk.goodput_bps / 1e6) and line.get_xdata()[0] == 0.0
    study = tmp_path / "s.toml"
    import tomli_w

    study.write_text(tomli_w.dumps({**data, "study": {"seeds": 1}}))
    from crosslayer.store import Store
    from crosslayer.study import Study
    from crosslayer.sweep import run_study

    store = Store(tmp_path / "store")
    run_study(Study.from_toml(study), store, workers=1)
    assert len(store.goodput()) == len(g)


def test_byte_milestones_reach_the_result_and_the_store(tmp_path: Path) -> None:
    """A flow group with ``milestones = true``: the ``milestones`` table has 15 kB, 150 kB, 1.5 MB,
    ... for its flows only, in time order, the last reached no later than the flow ends; the
    study store keeps the table (the TCP evaluation suite's ramp-up test reads it from there);
    an overload on purpose runs."""
    from crosslayer.store import Store
    from crosslayer.study import Study
    from crosslayer.sweep import run_study

    data = scenario(**{"arrivals.0.load": 1.2, "arrivals.0.overload": True, "arrivals.0.sizes": "100KB", "duration": "6s", "arrivals.0.stop": "5s"})
    data["flows"] = [{"src": "N1", "dst": "N4", "cc": "reno", "milestones": True}, {"src": "N2", "dst": "N4", "cc": "reno", "start": "1s"}]
    r = run(Scenario.from_dict(data))
    m = r.milestones
    assert set(m.flow) == {"N1-N4.0"}
    assert list(m.bytes) == [15_000 * 10**k for k in range(len(m))] and len(m) >= 3
    assert m.t_s.is_monotonic_increasing and (m.since_start_s == m.t_s).all()  # it starts at 0
    text = __import__("tomli_w").dumps({**data, "study": {"axes": {"flows[0].cc": ["reno", "cubic"]}}})
    store = Store(tmp_path / "s")
    run_study(Study.from_toml(text), store, workers=1)
    stored = store.table("milestones")
    assert set(stored.flows_cc) == {"reno", "cubic"} and set(stored.bytes) >= {15_000, 150_000, 1_500_000}


def test_a_graph_with_only_arrivals_has_a_headline_link_and_stores(tmp_path: Path) -> None:
    """A graph study whose traffic is only [[arrivals]] (no bulk flow names the bottleneck) and
    no ``bottleneck``: the headline link is the one the arrivals' load is of, so the run is
    stored (it failed after running, with "expected one bottleneck queue, found 0")."""
    from crosslayer.store import Store
    from crosslayer.study import Study
    from crosslayer.sweep import run_study

    text = """
name = "g"
duration = "3s"
[topology]
kind = "graph"
hosts = ["S", "D"]
routers = ["R1", "R2"]
links = [
  { between = ["R1", "R2"], rate = "10Mbps", delay = "10ms", qdisc = { kind = "droptail", limit_pkts = 50 } },
  { between = ["S", "R1"], rate = "1Gbps", delay = "1ms" },
  { between = ["D", "R2"], rate = "1Gbps", delay = "1ms" },
]
[[arrivals]]
src = "S"
dst = "D"
cc = "cubic"
load = 0.5
link = "R1->R2"
sizes = "100KB"
[study]
axes = { "arrivals[0].load" = [0.3, 0.5] }
"""
    study = Study.from_toml(text)
    assert study.base.bottleneck_link() == "R1->R2"
    report = run_study(study, Store(tmp_path / "s"), workers=1)
    assert (report.ran, report.failed) == (2, [])
    runs = Store(tmp_path / "s").runs().sort_values(study.columns["arrivals[0].load"])
    assert 0 < runs.utilization.iloc[0] < runs.utilization.iloc[1] < 0.8, runs.utilization
