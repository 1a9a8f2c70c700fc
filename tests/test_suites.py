"""The standard evaluation suites (`crosslayer suite`): the reduced L4S suite runs from one
command, resumes, gives the same runs on a Dask cluster, and writes a report whose tables obey
their definitions."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from crosslayer.store import Store
from crosslayer.suites import SUITES, suite
from crosslayer.units import parse_duration_ns

CLI = [sys.executable, "-m", "crosslayer.cli"]
STUDIES = [s.file.removesuffix(".toml") for s in SUITES["l4s"].studies]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    out = tmp_path_factory.mktemp("l4s")
    r = _cli("suite", "run", "l4s", "--quick", "-o", str(out), "-j", "2", "--json")
    assert r.returncode == 0, r.stderr
    return out, json.loads(r.stdout)


def test_the_suites_are_listed_with_their_runs() -> None:
    r = _cli("suite", "list", "--json")
    assert r.returncode == 0, r.stderr
    rows = {json.loads(line)["name"]: json.loads(line) for line in r.stdout.splitlines()}
    assert set(rows) == set(SUITES)
    assert rows["l4s"]["source"] == "RFC 9330, RFC 9331, RFC 9332"
    assert rows["l4s"]["runs"] == sum(rows["l4s"]["studies"].values()) > 200


def test_an_unknown_suite_is_named_with_the_known_ones() -> None:
    r = _cli("suite", "run", "rfc9999")
    assert r.returncode == 2
    assert "no suite 'rfc9999'; the suites: l4s" in r.stderr


def test_the_reduced_l4s_suite_writes_its_report(quick: tuple[Path, dict[str, Any]]) -> None:
    out, summary = quick
    assert summary["failed"] == 0 and set(summary["studies"]) == set(STUDIES)
    assert all(s["ran"] == s["points"] > 0 for s in summary["studies"].values())
    report = (out / "report.md").read_text()
    for section in ("## Expectations", "## 1. Coupled rate balance", "## 2. L-queue latency", "## 3. Unresponsive traffic", "## 4. A bottleneck that is not L4S", "## 5. RTT independence",
                    "## 6. A drain rate that changes", "## 7. Scalability", "## 8. Bursty arrivals", "## 9. The ECN feedback", "## 10. AccECN's negotiation"):
        assert section in report, section
    for figure in ("coupling_ratio", "latency", "overload", "fallback", "rtt", "varying", "scalability", "bursty", "feedback", "negotiation"):
        assert (out / "figures" / f"{figure}.png").stat().st_size > 5000, figure
        assert f"figures/{figure}.png" in report
    expectations = json.loads((out / "expectations.json").read_text())
    assert len(expectations) >= 20
    tests = {e["test"] for e in expectations}
    assert {"bursty", "feedback", "negotiation"} <= tests
    # the negotiation's outcome is the RFC's (every quick point: AccECN or none)
    assert next(e for e in expectations if e["test"] == "negotiation")["verdict"] == "holds"
    # FQ-CoDel's L4S mode has its own rows where the suite runs it
    assert any("fq_codel_l4s" in e["statement"] for e in expectations if e["test"] == "latency")
    assert any("FQ-CoDel's L4S mode" in e["statement"] for e in expectations if e["test"] == "fallback")
    assert {e["verdict"] for e in expectations} <= {"holds", "does not hold", "not run"}
    assert all(e["source"].startswith("RFC") for e in expectations)


def test_the_report_tables_obey_their_definitions(quick: tuple[Path, dict[str, Any]]) -> None:
    """Each table's numbers are what its columns say, recomputed from the stores."""
    out, _ = quick
    flows = Store(out / "coupling").flows()
    ratio = {}
    for key, d in flows.groupby("key"):
        ratio[key] = d[d.src == "L"].goodput_bps.sum() / d[d.src == "C"].goodput_bps.sum()
    table = pd.read_csv(out / "tables" / "coupling.csv")
    # one seed: each cell is its run's ratio
    assert sorted(round(v, 2) for v in ratio.values()) == sorted(table["L/C"].astype(float))
    assert (table["within 2x"] == [("yes" if 0.5 <= v <= 2 else "no") for v in table["L/C"].astype(float)]).all()
    for name in ("latency", "latency-mixed"):
        f = Store(out / name).flows()
        assert ((f.rtt_mean_s - f.base_rtt_s) >= 0).all() and (f.rtt_p99_s >= f.rtt_mean_s).all()
    # latency: FQ-CoDel's rows are the bottleneck's exact sojourn (only Scalable flows in it)
    lat = pd.read_csv(out / "tables" / "latency.csv")
    fq = lat[lat.AQM == "fq_codel_l4s"]
    assert len(fq) and (fq.measure == "bottleneck sojourn").all()
    lruns = Store(out / "latency").runs()
    for _, row in fq.iterrows():
        d = lruns[(lruns.aqm == "fq_codel_l4s") & (lruns.rate == row.rate) & (lruns.scalable.astype(str) + "L" == row.load)]
        assert round(float(d.sojourn_mean_s.mean() * 1e3), 2) == float(row["L queue mean ms"])
    # bursty: the bulk flow's loss is its goodput without bursts less its goodput with them (same seed)
    bf, bruns = Store(out / "bursty").flows(), Store(out / "bursty").runs()
    bursty = pd.read_csv(out / "tables" / "bursty.csv")
    for _, row in bursty[bursty.bursts != "none"].iterrows():
        cell = bruns[(bruns.aqm == row.AQM) & (bruns.base_rtt == row["base RTT"]) & (bruns.bulk == row["bulk flow"])]
        goodput = {b: bf[(bf.key == cell[cell.bursts == b].key.iloc[0]) & (bf.src == "L")].goodput_bps.sum() / 1e6 for b in ("none", row.bursts)}
        assert round(goodput["none"] - goodput[row.bursts], 2) == float(row["bulk's loss Mb/s"]), (row.AQM, row.bursts)
        assert round(goodput[row.bursts], 2) == float(row["bulk Mb/s"])
    # feedback: reported / received is the sender's count over the receiver's, for Prague (host L)
    ff, fruns = Store(out / "feedback").flows(), Store(out / "feedback").runs()
    feedback = pd.read_csv(out / "tables" / "feedback.csv")
    for _, row in feedback.iterrows():
        keys = fruns[(fruns.feedback == row.feedback) & (fruns.ack_loss == row["ACK loss"])].key
        f = ff[ff.key.isin(keys) & (ff.src == "L")]
        assert (int(f.ce_pkts.sum()), int(f.ce_echoed_segs.sum())) == (int(row["CE received"]), int(row["CE reported"]))
    acc = feedback[feedback.feedback == "accecn"]
    assert ((acc["CE reported"] / acc["CE received"] - 1).abs() <= 0.01).all(), "AccECN reports the marks received"
    # negotiation: each row's ECN is what its runs' Prague flows negotiated, its marks theirs
    nf, nruns = Store(out / "negotiation").flows(), Store(out / "negotiation").runs()
    negotiation = pd.read_csv(out / "tables" / "negotiation.csv")
    assert len(negotiation) == 8
    for _, row in negotiation.iterrows():
        keys = nruns[(nruns.middlebox == row.middlebox) & (nruns.receiver == row.receiver)].key
        f = nf[nf.key.isin(keys) & (nf.src == "L")]
        assert set(f.ecn_negotiated) == {row["Prague's ECN"]} and int(f.bottleneck_marks.sum()) == int(row["Prague marked"])
        assert int(f.ce_pkts.sum()) == int(row["CE received"]) <= int(row["Prague marked"])
    udp = Store(out / "overload").udp()
    assert (udp.throughput_bps <= udp.offered_bps * 1.0001).all()
    runs = pd.concat([Store(out / n).runs() for n in STUDIES])
    assert (runs.utilization <= 1.0001).all() and (runs.utilization > 0.5).all()


def test_the_suite_resumes_and_runs_the_same_on_dask(quick: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    out, _ = quick
    again = _cli("suite", "run", "l4s", "--quick", "-o", str(out), "--json")
    assert again.returncode == 0, again.stderr
    assert all(s["ran"] == 0 and s["skipped"] == s["points"] for s in json.loads(again.stdout)["studies"].values())
    dask = _cli("suite", "run", "l4s", "--quick", "-o", str(tmp_path), "--dask-local", "2", "--json")
    assert dask.returncode == 0, dask.stderr
    metrics = ["goodput_total_mbps", "jain", "qlen_mean_pkts", "drop_ratio", "events"]
    for name in STUDIES:
        a = Store(out / name).runs().set_index("key")[metrics].sort_index()
        b = Store(tmp_path / name).runs().set_index("key")[metrics].sort_index()
        pd.testing.assert_frame_equal(a, b, obj=name)
    assert (out / "report.md").read_text().split("## Expectations")[1] == (tmp_path / "report.md").read_text().split("## Expectations")[1]


def test_the_reduced_rfc7928_suite_writes_its_report(tmp_path: Path) -> None:
    """RFC 7928's sections run from one command; the transport table's delays are the runs'
    mean sojourn, and the ellipses and the ns-3 comparison are drawn."""
    r = _cli("suite", "run", "rfc7928", "--quick", "-o", str(tmp_path), "-j", "2", "--json")
    assert r.returncode == 0, r.stderr
    report = (tmp_path / "report.md").read_text()
    for section in ("## Checks", "## Section 5: transport protocols", "## Section 6: round-trip-time fairness", "## Section 8.2: congestion levels", "## Section 8.2.5: varying congestion levels", "## Section 8.2.6: varying capacity",
                    "## Section 4.4: packet sizes", "## Section 7: burst absorption", "## Section 9.1: traffic mix", "## Section 9.2: bidirectional traffic", "## Section 10: two AQMs in a row"):
        assert section in report, section
    for figure in ("transport_ellipses", "rtt_fairness", "congestion_ellipses", "varying_congestion", "capacity", "packet_size", "bursts", "traffic_mix", "multi_aqm"):
        assert (tmp_path / "figures" / f"{figure}.png").stat().st_size > 5000, figure
    assert "ns-3 AQM evaluation suite's published ellipse centres" in report
    runs = Store(tmp_path / "transport").runs()
    table = pd.read_csv(tmp_path / "tables" / "transport.csv")
    for _, row in table[table.scenario.isin(runs.sender)].iterrows():
        d = runs[(runs.sender == row.scenario) & (runs.aqm == row.aqm)]
        assert round(float(d.sojourn_mean_s.mean() * 1e3), 2) == float(str(row["queue delay ms"]).split(" ")[0]), (row.scenario, row.aqm)
    assert {e["verdict"] for e in json.loads((tmp_path / "expectations.json").read_text())} <= {"holds", "does not hold", "not run"}
    # section 7: a page's completion time is its last connection's, pages counted after the warm-up
    fct, bruns = Store(tmp_path / "bursts").fct(), Store(tmp_path / "bursts").runs()
    one = bruns[(bruns.case == "IV") & (bruns.aqm == "droptail")].key.iloc[0]
    warmup = parse_duration_ns(json.loads(bruns[bruns.key == one].scenario_json.iloc[0])["warmup"]) / 1e9
    web = fct[(fct.key == one) & (fct.src == "web") & (fct.start_s >= warmup)]
    assert web.groupby("start_s").size().eq(6).all()
    pages = web.groupby("start_s").fct_s.max()
    bursts = pd.read_csv(tmp_path / "tables" / "bursts.csv")
    row = bursts[(bursts.case == "IV") & (bursts.aqm == "droptail")].iloc[0]
    assert row["web page s (median)"] == round(float(pages.median()), 3)
    # section 9.2: one row per AQM and direction; the queue delay is that direction's queue's
    bidi = pd.read_csv(tmp_path / "tables" / "bidirectional.csv")
    assert len(bidi) == 2 * 6
    q = Store(tmp_path / "bidirectional").queues()
    back = q[(q.aqm == "codel") & (q.link == "B->A")]
    assert float(bidi[(bidi.aqm == "codel") & bidi.direction.str.startswith("reverse")]["queue delay ms"].iloc[0]) == round(float(back.sojourn_mean_s.mean() * 1e3), 1)
    # the same command again resumes: every point is stored, nothing runs
    again = _cli("suite", "run", "rfc7928", "--quick", "-o", str(tmp_path), "--json")
    assert again.returncode == 0, again.stderr
    assert all(st["ran"] == 0 and st["skipped"] == st["points"] for st in json.loads(again.stdout)["studies"].values())


def test_the_reduced_tcp_evaluation_suite_writes_its_report(tmp_path: Path) -> None:
    """Every test of the TCP evaluation suite runs from one command; --cc keeps Reno, the
    standard TCP, beside the TCP under test (and sets the background's TCP where the draft says
    all traffic uses it); each table's numbers are what their columns say, recomputed from the
    stores; the same command again runs nothing, and on a Dask cluster gives the same runs."""
    r = _cli("suite", "run", "tcpeval", "--quick", "--cc", "htcp", "-o", str(tmp_path), "-j", "2", "--json")
    assert r.returncode == 0, r.stderr
    report = (tmp_path / "report.md").read_text()
    for heading in ("4.4.1", "4.4.2", "4.4.3", "4.4.4", "4.4.5", "4.4.6", "5.1", "5.2", "5.3", "6.1", "6.2", "6.3"):
        assert f"## Section {heading}:" in report, heading
    for figure in ("basic_data_center", "basic_access_link", "basic_trans_oceanic", "basic_satellite", "basic_dial_up", "buffer", "rampup", "transients", "inter_rtt"):
        assert (tmp_path / "figures" / f"{figure}.png").stat().st_size > 5000, figure
    assert {e["verdict"] for e in json.loads((tmp_path / "expectations.json").read_text())} <= {"holds", "does not hold", "not run"}
    # --cc: the TCP under test beside Reno; in the ramp-up test the background too
    runs = Store(tmp_path / "buffer").runs()
    assert set(runs.tcp) == {"reno", "htcp"}
    assert set(Store(tmp_path / "impact").runs().camp_b) == {"reno", "htcp"}
    assert set(Store(tmp_path / "impact").fct().cc) == {"reno", "htcp"}
    ramp = Store(tmp_path / "rampup").flows()
    assert all(set(d.cc) == {tcp} for tcp, d in ramp.groupby("tcp"))
    assert set(Store(tmp_path / "inter-rtt").flows().cc) == {"htcp"}
    # the basic scenarios' tables: each direction's utilization and drop rate are its queue's
    q = Store(tmp_path / "access-link").queues()
    table = pd.read_csv(tmp_path / "tables" / "basic_access_link.csv")
    for _, row in table.iterrows():
        for role, arrow in (("forward", "L->R"), ("reverse", "R->L")):
            d = q[(q.tcp == row.tcp) & (q.load == row["offered load"]) & (q.role == role)]
            assert round(float(d.utilization.mean()), 3) == float(str(row[f"{arrow} utilization"]).split(" ")[0])
            assert round(float(d.drop_ratio.mean() * 100), 3) == float(str(row[f"{arrow} drop rate %"]).split(" ")[0])
    # the satellite: 4 Mb/s up (left to right), 40 Mb/s down, the load of the uplink
    sq = Store(tmp_path / "satellite").queues()
    assert set(sq[sq.role == "forward"].rate_bps) == {4e6} and set(sq[sq.role == "reverse"].rate_bps) == {40e6}
    # the wireless LAN: its stations' and access point's queues are the medium's, 6 Mb/s
    wq = Store(tmp_path / "wireless-lan").queues()
    assert set(wq[wq.role.isin(["wlan_up", "wlan_down"])].rate_bps) == {6e6} and (wq[wq.role == "wlan_down"].tx_pkts > 0).all()
    assert set(Store(tmp_path / "wireless-lan").runs().tcp) == {"reno", "htcp"}
    # the buffer table's throughput is the loaded direction's bytes over the measured time
    bq = Store(tmp_path / "buffer").queues()
    table = pd.read_csv(tmp_path / "tables" / "buffer.csv")
    for _, row in table.iterrows():
        d = bq[(bq.tcp == row.tcp) & (bq.buffer == row["buffer (% of BDP)"]) & (bq.role == "reverse")]
        assert round(float((d.dequeued_bytes * 8 / 1e6 / 8.0).mean()), 2) == float(str(row["throughput Mb/s"]).split(" ")[0])
    # ramp-up: the new flow (T4) started with ssthresh at its initial window; the table's times are its milestones'
    ms = Store(tmp_path / "rampup").table("milestones")
    table = pd.read_csv(tmp_path / "tables" / "rampup.csv")
    row = table.iloc[0]
    keys = set(Store(tmp_path / "rampup").runs().query("point == @row['capacity, RTTs existing/new ms'] and tcp == @row.tcp").key)
    got = ms[ms.key.isin(keys) & ms.flow.astype(str).str.startswith("T4") & (ms.bytes == 15_000)].since_start_s
    assert len(got) == 1 and round(float(got.iloc[0]), 2) == float(row["15 kB"])
    scen = json.loads(Store(tmp_path / "rampup").runs().scenario_json.iloc[0])
    assert scen["flows"][1]["tcp"]["initial_ssthresh"] == 10 and scen["flows"][1]["milestones"] is True
    # transients: the step increase's UDP drops are the udp table's in the measured window
    u = Store(tmp_path / "transients").udp()
    table = pd.read_csv(tmp_path / "tables" / "transients.csv")
    inc = table[(table.transient == "increase") & (table.tcp == "reno")].iloc[0]
    assert float(inc["UDP packets dropped in the first 100 s"]) == float(u[(u.transient == "increase") & (u.tcp == "reno")].dropped_pkts.sum())
    # the same command again resumes: every point is stored, nothing runs
    again = _cli("suite", "run", "tcpeval", "--quick", "--cc", "htcp", "-o", str(tmp_path), "--json")
    assert again.returncode == 0, again.stderr
    assert all(st["ran"] == 0 and st["skipped"] == st["points"] for st in json.loads(again.stdout)["studies"].values())
    # --aqm does not apply to a suite that sets its own queues
    bad = _cli("suite", "run", "tcpeval", "--quick", "--aqm", "codel", "-o", str(tmp_path))
    assert bad.returncode == 2 and "--aqm does not apply" in bad.stderr


@pytest.mark.parametrize("name", ["rfc7928", "tcpeval"])
def test_the_reduced_suites_run_the_same_on_dask(name: str, tmp_path: Path) -> None:
    """RFC 7928's and the TCP evaluation suite's reduced versions on local processes and on a
    Dask LocalCluster: the same runs (keys and metrics) and the same report (as for L4S)."""
    pytest.importorskip("distributed")
    local = _cli("suite", "run", name, "--quick", "-o", str(tmp_path / "local"), "-j", "2", "--json")
    assert local.returncode == 0, local.stderr
    dask = _cli("suite", "run", name, "--quick", "-o", str(tmp_path / "dask"), "--dask-local", "2", "--json")
    assert dask.returncode == 0, dask.stderr
    metrics = ["goodput_total_mbps", "utilization", "qlen_mean_pkts", "drop_ratio", "events"]
    for st in SUITES[name].studies:
        folder = st.file.removesuffix(".toml")
        a = Store(tmp_path / "local" / folder).runs().set_index("key")[metrics].sort_index()
        b = Store(tmp_path / "dask" / folder).runs().set_index("key")[metrics].sort_index()
        pd.testing.assert_frame_equal(a, b, obj=f"{name} {folder}")
    assert (tmp_path / "local" / "report.md").read_text().split("\n", 2)[2] == (tmp_path / "dask" / "report.md").read_text().split("\n", 2)[2]


def test_aqm_and_cc_replace_what_each_study_tests(tmp_path: Path) -> None:
    """--cc replaces the Scalable flows' algorithm where a study declares it (not in the RTT
    test, which is about Prague's own rule); --aqm the bottleneck's discipline (not in the
    fallback test, which sweeps it)."""
    r = _cli("suite", "run", "l4s", "--quick", "-o", str(tmp_path), "--cc", "dctcp", "--aqm", "fq_codel", "-j", "2", "--set", "study.seeds=1")
    assert r.returncode == 0, r.stderr
    s = suite("l4s")
    for st in s.studies:
        store = Store(tmp_path / st.file.removesuffix(".toml"))
        flows = store.flows()
        scalable = flows[flows.src.isin(["L"])].cc.unique().tolist()
        if st.cc_path:
            # a study that keeps a baseline beside the sender under test (the bursty test's CUBIC)
            assert sorted(scalable) == sorted(["dctcp"] if st.cc_value is None else st.cc_value("dctcp")), st.file
        qdiscs = {json.loads(j)["topology"]["bottleneck"]["qdisc"]["kind"] for j in store.runs().scenario_json}
        assert qdiscs == ({"fq_codel"} if st.aqm_path else {"dualpi2", "pie", "codel", "fq_codel", "droptail"}), st.file


BROKEN = {
    "a value": (lambda text: 'sample_interval = "soon"\n' + text, 'sample_interval: must be a duration like "100ms"'),
    "the TOML": (lambda text: text + "\n[[[\n", "invalid TOML"),
    "the [study] table": (lambda text: text.replace("[study.axes]\n", '[study.axes]\n"flows[0].nonesuch" = [1, 2]\n', 1), "flows[0].nonesuch"),
    "the file itself": (None, "cannot read"),
}


@pytest.mark.parametrize("what", sorted(BROKEN))
@pytest.mark.parametrize("command", [["list"], ["list", "-v"], ["run", "l4s", "--quick"]])
def test_a_broken_suite_study_file_is_named_with_its_problem(what: str, command: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    import crosslayer.suites
    from crosslayer.cli import app
    from typer.testing import CliRunner

    data = tmp_path / "suites"
    shutil.copytree(crosslayer.suites.DATA, data)
    monkeypatch.setattr(crosslayer.suites, "DATA", data)
    path = data / "l4s" / "coupling.toml"
    edit, problem = BROKEN[what]
    if edit is None:
        path.unlink()
    else:
        path.write_text(edit(path.read_text()))
    out = tmp_path / "out"
    done = CliRunner().invoke(app, ["suite", *command, *(["-o", str(out)] if command[0] == "run" else [])], catch_exceptions=False)
    assert done.exit_code == 2, done.output
    assert done.stdout == ""
    assert done.stderr.startswith("suite l4s: ") and str(path) in done.stderr and problem in done.stderr, done.stderr
    assert not out.exists(), "nothing runs"


def test_the_transients_figure_draws_the_seed_it_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # the figure draws each TCP's lowest seed, whatever order the store lists the runs in (the
    # order of their keys, which every engine version changes), and its title names that seed
    import numpy as np

    from crosslayer.suites import tcpeval

    order = [("decrease", "reno", 3), ("decrease", "cubic", 2), ("increase", "reno", 1), ("decrease", "cubic", 1), ("decrease", "reno", 1)]
    runs = pd.DataFrame([{"key": f"k{t}{c}{s}", "transient": t, "tcp": c, "seed": s} for t, c, s in order])
    t = np.arange(0.0, 40.0, 0.1)
    cwnd = pd.concat([pd.DataFrame({"key": k, "t_s": t, "cwnd_bytes": 1448.0 * (100 * s + (c == "cubic") + t)}) for k, c, s in zip(runs.key, runs.tcp, runs.seed)])
    udp = pd.DataFrame({"key": ["kincreasereno1"], "dropped_pkts": [5], "sent_pkts": [100]})

    class FakeStore:
        def runs(self) -> pd.DataFrame:
            return runs

        def cwnd(self) -> pd.DataFrame:
            return cwnd

        def udp(self) -> pd.DataFrame:
            return udp

    figures: list[Any] = []
    monkeypatch.setattr(tcpeval, "save_figure", lambda fig, out, name: figures.append(fig) or out / f"{name}.png")
    monkeypatch.setattr(tcpeval, "section", lambda *args, **kwargs: "")
    tcpeval._transients(FakeStore(), tmp_path)  # type: ignore[arg-type]
    ax = figures[0].axes[0]
    assert "(seed 1)" in ax.get_title()
    lines = {line.get_label(): line.get_ydata() for line in ax.get_lines() if not line.get_label().startswith("_")}
    assert list(lines) == ["cubic", "reno"]
    assert lines["cubic"][0] == pytest.approx(101 + 30) and lines["reno"][0] == pytest.approx(100 + 30)  # seed 1's, from t0 = 30 s


def test_a_report_records_cells_that_run_again_the_same_and_a_change_is_named(quick: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    """The report's cells (`crosslayer.suites.cells`): every study of the suite, every value each
    one sweeps, run again to the same numbers; a recorded number that is not what the engine gives
    is named with both values, and exits 1."""
    from crosslayer.suites.cells import applied

    out, _ = quick
    data = json.loads((out / "cells.json").read_text())
    assert data["suite"] == "l4s" and [s["study"] for s in data["studies"]] == sorted(STUDIES)
    for block in data["studies"]:
        runs = Store(out / block["study"]).runs().set_index("key")
        cells = {c["key"]: c for c in block["cells"]}
        # every value of every swept setting has a cell, the cheapest run with it
        for column, values in cells[next(iter(cells))]["labels"].items():
            if column != "seed":
                assert {str(c["labels"][column]) for c in cells.values()} == {str(v) for v in runs[column].unique()}, (block["study"], column)
        assert min(c["events"] for c in cells.values()) == runs.events.min()
        for key, c in cells.items():
            assert json.loads(runs.scenario_json[key]) == applied(block["scenario"], c["changes"])
            assert c["metrics"]["jain"] == pytest.approx(runs.jain[key], rel=1e-12, nan_ok=True)
    r = _cli("suite", "check", str(out), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    checked = [json.loads(line) for line in r.stdout.splitlines()]
    assert len(checked) == sum(len(s["cells"]) for s in data["studies"]) and all(c["same"] for c in checked)
    # a bound that leaves nothing to check is an error, not a pass
    r = _cli("suite", "check", str(out), "--max-events", "1")
    assert r.returncode == 2 and "--max-events 1 leaves no cell to check: the cheapest recorded cell has" in r.stderr

    # a number the engine does not give (as a report written before a change that moves results)
    block = data["studies"][0]
    cell = min(block["cells"], key=lambda c: c["events"])
    recorded = cell["metrics"]["goodput_total_mbps"]
    cell["metrics"]["goodput_total_mbps"] = recorded * 1.01
    (tmp_path / "cells.json").write_text(json.dumps(data))
    r = _cli("suite", "check", str(tmp_path), "--max-events", str(cell["events"]))
    assert r.returncode == 1
    assert f"{cell['key'][:12]}: differs: goodput_total_mbps {recorded * 1.01} recorded, {recorded} now" in r.stdout
    assert "left out by --max-events" in r.stdout
    assert "crosslayer suite run l4s -o FOLDER" in r.stderr
    # -q: only what differs; -v: also what the cell's scenario changes, and who recorded it
    q = _cli("suite", "check", str(tmp_path), "--max-events", str(cell["events"]), "-q")
    assert q.returncode == 1 and q.stdout.splitlines() == [line for line in r.stdout.splitlines() if "differs" in line]
    v = _cli("suite", "check", str(tmp_path), "--max-events", str(cell["events"]), "-v")
    assert f"recorded by {cell['engine_version']}, {cell['events']} events; its scenario's changes to the study's base:" in v.stdout
    # a scenario the engine no longer accepts is named, not a traceback
    cell["metrics"]["goodput_total_mbps"] = recorded
    cell["changes"].append([["duration"], "-1s"])
    (tmp_path / "cells.json").write_text(json.dumps(data))
    r = _cli("suite", "check", str(tmp_path), "--max-events", str(cell["events"]))
    assert r.returncode == 1 and "its scenario is not valid any more" in r.stdout and "duration" in r.stdout
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("content", [None, "{not json", '{"suite": "l4s", "studies": [{"study": "x"}]}'])
def test_a_folder_without_readable_cells_is_named(content: str | None, tmp_path: Path) -> None:
    if content is not None:
        (tmp_path / "cells.json").write_text(content)
    r = _cli("suite", "check", str(tmp_path))
    assert r.returncode == 2
    assert str(tmp_path / "cells.json") in r.stderr and "crosslayer suite report NAME FOLDER" in r.stderr
    assert "Traceback" not in r.stderr


def test_changes_and_applied_rebuild_any_json_value() -> None:
    from crosslayer.suites.cells import applied, changes

    base = {"a": 1, "b": {"c": [1, 2, {"d": "x"}], "e": None}, "f": [1, 2]}
    for other in (
        base,
        {"a": 2, "b": {"c": [1, 3, {"d": "y"}], "e": 0.5}, "f": [1, 2]},
        {"a": 1, "b": {"c": [1, 2], "e": None}, "f": [1, 2, 3]},  # lists of another length
        {"a": 1, "b": {"kind": "codel"}, "f": []},  # another set of keys
        [1, 2],
    ):
        pairs = changes(base, other)
        assert applied(base, pairs) == other
        assert json.loads(json.dumps(pairs)) == pairs  # JSON holds them
    assert changes(base, base) == []
    assert changes(base, {**base, "a": 5}) == [[["a"], 5]]
    assert base == {"a": 1, "b": {"c": [1, 2, {"d": "x"}], "e": None}, "f": [1, 2]}  # applied copies


@pytest.mark.parametrize("name", sorted(SUITES))
def test_the_shipped_reports_cells_give_the_same_numbers_run_again(name: str) -> None:
    """docs/suites/<name>: the report's recorded cells are still what the shipped study files
    give, and the cheap ones run again to the same numbers (a change that moves results must
    write the reports again: docs/suites/<name>.md says how)."""
    from crosslayer.study import Study
    from crosslayer.suites.cells import applied

    folder = Path(__file__).resolve().parents[1] / "docs" / "suites" / name
    data = json.loads((folder / "cells.json").read_text())
    s = suite(name)
    files = {st.file.removesuffix(".toml"): st for st in s.studies}
    assert data["suite"] == name and sorted(b["study"] for b in data["studies"]) == sorted(files)
    for block in data["studies"]:
        # the cells' labels leave out the study's own helper columns (_name): the swept values name the point
        points = {tuple(sorted((k, str(v)) for k, v in p.labels.items() if not k.startswith("_"))): p for p in Study.from_toml(s.path(files[block["study"]])).points()}
        for c in block["cells"]:
            labels = tuple(sorted((k, str(v)) for k, v in c["labels"].items()))
            assert labels in points, f"{name} {block['study']}: {c['labels']} is no point of the shipped study any more: write the report again"
            assert points[labels].scenario.model_dump(mode="json") == applied(block["scenario"], c["changes"]), (
                f"{name} {block['study']} {c['labels']}: the shipped study gives another scenario now: write the report again"
            )
    r = _cli("suite", "check", str(folder), "--max-events", "5000000", "--json")
    checked = [json.loads(line) for line in r.stdout.splitlines()]
    differing = [c for c in checked if not c["same"]]
    assert r.returncode == 0 and not differing, (
        f"docs/suites/{name}: {len(differing)} cells differ ({differing[:3]}): a change that moves results must write the report again "
        f"(crosslayer suite run {name} -j 2 -o results/suites/{name}, then copy report.md, expectations.json, cells.json, figures/ and tables/ into docs/suites/{name})"
    )
    assert len(checked) >= len(files)
