"""The seed-paper study files reproduce the paper's setup (seed 000, section 5 and Table 1)."""

from __future__ import annotations

from pathlib import Path

import pytest
from crosslayer.scenario import MS, Scenario
from helpers import ACCESS_LINK, DATA_CENTER, STUDIES

US = 1_000

# Seed paper 000, Table 1: RTT [ms] between sender and receiver.
TABLE_1_RTT_MS = {
    ("N1", "N4"): 8, ("N2", "N4"): 32, ("N3", "N4"): 58,
    ("N1", "N5"): 78, ("N2", "N5"): 102, ("N3", "N5"): 128,
    ("N1", "N6"): 154, ("N2", "N6"): 178, ("N3", "N6"): 204,
}  # fmt: skip


def base_rtts_ns(scenario: Scenario) -> dict[tuple[str, str], int]:
    """Propagation RTT of every flow's (src, dst): 2 x (d_src + d_bottleneck + d_dst), ns."""
    topo = scenario.topology
    delay = {h.name: h.delay for h in [*topo.senders, *topo.receivers]}
    return {
        (src.name, dst.name): 2 * (delay[src.name] + topo.bottleneck.delay + delay[dst.name])
        for src in topo.senders
        for dst in topo.receivers
    }


def test_access_link_reproduces_table_1() -> None:
    rtts = base_rtts_ns(Scenario.from_toml(ACCESS_LINK))
    assert rtts == {pair: ms * MS for pair, ms in TABLE_1_RTT_MS.items()}


def test_access_link_buffer_is_the_bdp_at_mean_rtt() -> None:
    # Section 5: "buffer size was set according to the BDP rule (using the mean RTT) ... 900 packets".
    scenario = Scenario.from_toml(ACCESS_LINK)
    rtts = base_rtts_ns(scenario)
    mean_rtt_s = sum(rtts.values()) / len(rtts) / 1e9
    bdp_pkts = scenario.topology.bottleneck.rate * mean_rtt_s / 8 / 1500
    assert bdp_pkts == pytest.approx(900, rel=0.05)
    assert scenario.topology.bottleneck.qdisc.limit_pkts == 900


def test_data_center_rtts() -> None:
    # Section 5: 10 us for N1, N2, N4; 100 us for N3, N5, N6; no delay A-B; mean RTT "around 200 us".
    rtts = base_rtts_ns(Scenario.from_toml(DATA_CENTER))
    assert rtts[("N1", "N4")] == 40 * US
    assert rtts[("N3", "N6")] == 400 * US
    assert sum(rtts.values()) / len(rtts) == 220 * US


@pytest.mark.parametrize(("study", "rate_bps"), [(ACCESS_LINK, 100_000_000), (DATA_CENTER, 1_000_000_000)])
def test_study_matches_section_5(study: Path, rate_bps: int) -> None:
    scenario = Scenario.from_toml(study)
    spec = scenario.to_engine_spec()
    assert (spec["duration"], spec["warmup"]) == (100_000_000_000, 30_000_000_000)
    topo = spec["topology"]
    edges = [topo["forward"], topo["reverse"]] + [
        h[d] for h in topo["senders"] + topo["receivers"] for d in ("up", "down")
    ]
    assert {e["rate"] for e in edges} == {rate_bps}  # "every link rate was set to ..."
    assert topo["forward"]["qdisc"] == {"kind": "droptail", "limit_pkts": 900, "limit_bytes": None}
    assert all(e["qdisc"]["limit_pkts"] == 1000 for e in edges[1:])  # access queues are not the bottleneck
    flows = spec["flows"]
    assert [f["name"] for f in flows] == [f"{s}-{d}.0" for s in ("N1", "N2", "N3") for d in ("N4", "N5", "N6")]
    assert all(f["cc"]["kind"] == "cubic" for f in flows)
    assert all(f["start"] == {"kind": "uniform", "from": 0, "to": 3_000_000_000} for f in flows)
    assert all(f["tcp"]["mss"] + f["tcp"]["header_size"] == 1500 for f in flows)  # 1500-byte packets


def test_readme_example_is_valid() -> None:
    readme = (STUDIES / "README.md").read_text()
    example = readme.split("```toml\n", 1)[1].split("```", 1)[0]
    scenario = Scenario.from_toml(example)
    assert [f.name for f in scenario.expand_flows()] == ["N1-N4.0", "N2-N4.0"]
    assert [u["name"] for u in scenario.to_engine_spec()["udp"]] == ["N1-N4.udp0"]
    n2 = scenario.to_engine_spec()["topology"]["senders"][1]
    assert (n2["up"]["rate"], n2["down"]["rate"], n2["up"]["loss"]) == (10_000_000, 100_000_000, 0.001)


def test_readme_two_way_example_is_valid() -> None:
    readme = (STUDIES / "README.md").read_text()
    example = next(block.split("```", 1)[0] for block in readme.split("```toml\n")[1:] if "(a reverse group)" in block)
    scenario = Scenario.from_toml('name = "two-way"\nduration = "100s"\n' + example)
    assert [(f.name, f.reverse) for f in scenario.expand_flows()] == [("S1-R1.0", False), ("R1-S1.0", True)]


@pytest.mark.parametrize("path", sorted(STUDIES.glob("*.toml")), ids=lambda p: p.name)
def test_every_study_file_is_valid_and_listed_in_the_readme(path: Path) -> None:
    from crosslayer.study import Study

    text = path.read_text()
    if "[study" in text:
        assert Study.from_toml(path).points()  # every point validated
    else:
        scenario = Scenario.from_toml(path)
        assert scenario.expand_flows() or scenario.arrivals
    assert f"`{path.name}`" in (STUDIES / "README.md").read_text(), f"add {path.name} to the table in studies/README.md"
