"""Wireless LANs from the study file (``docs/models/wlan.md``): TCP through an access point
shares the medium as DCF predicts (the access point is one contender for every downlink flow),
saturated stations and the access point get equal shares of the frames, the ``wlan`` table
reports each member, and bad LANs are errors naming the field and the fix."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import pytest
from crosslayer import run
from crosslayer.scenario import Scenario, ScenarioError

ROOT = Path(__file__).resolve().parents[1]
STATIONS = ["W1", "W2", "W3"]


def lan(**wlan: Any) -> dict[str, Any]:
    """Stations W1-W3 on access point AP, AP wired to server S (100 Mb/s, 5 ms)."""
    return {
        "name": "wlan",
        "duration": "25s",
        "warmup": "5s",
        "seed": 1,
        "topology": {
            "kind": "graph",
            "hosts": [*STATIONS, "S"],
            "routers": ["AP"],
            "links": [{"between": ["S", "AP"], "rate": "100Mbps", "delay": "5ms"}],
            "wlans": [{"ap": "AP", "stations": STATIONS, "qdisc": {"kind": "droptail", "limit_pkts": 100}, **wlan}],
        },
    }


def jain(xs: list[float]) -> float:
    return sum(xs) ** 2 / (len(xs) * sum(x * x for x in xs))


def test_tcp_through_an_access_point_shares_the_medium_as_dcf_predicts() -> None:
    data = lan()
    data["flows"] = [{"src": "S", "dst": STATIONS, "cc": "cubic"}, {"src": STATIONS, "dst": "S", "cc": "cubic"}]
    r = run(data)
    f = r.flows.set_index("name")
    down = [f.loc[f"S-{w}.0", "goodput_bps"] for w in STATIONS]
    up = [f.loc[f"{w}-S.0", "goodput_bps"] for w in STATIONS]
    # below the medium's capacity: one saturated sender of 1500-byte frames carries 29.3 Mb/s of
    # packets (tests/wlan.rs), TCP less (its ACKs take exchanges of their own)
    assert 15e6 < sum(down) + sum(up) < 29.3e6, (down, up)
    # the access point is one contender for all three downlink flows (and the uplink flows'
    # ACKs), each station one for its own flow: the uplink carries several times the downlink
    assert sum(up) > 2 * sum(down), (down, up)
    # within a direction the shares are alike: round robin at the access point, DCF between
    # the stations
    assert jain(down) > 0.9 and jain(up) > 0.9, (down, up)
    w = r.wlan.set_index("member")
    assert list(w.index) == ["AP", *STATIONS] and list(w.role) == ["ap", "station", "station", "station"]
    assert (w.frames > 0).all() and (w.collisions > 0).all()
    assert (w.attempts == w.frames + w.collisions).all()  # no frame dropped at the retry limit here
    assert set(r.queues.set_index("link").loc[["W1->AP", "AP->W1"], "role"]) == {"wlan_up", "wlan_down"}


def test_the_access_point_gets_one_share_of_the_frames() -> None:
    data = lan()
    data["udp"] = [{"src": "S", "dst": STATIONS, "rate": "30Mbps", "packet_size": "1500B"}, {"src": STATIONS, "dst": "S", "rate": "30Mbps", "packet_size": "1500B"}]
    r = run(data)
    w = r.wlan.set_index("member")
    frames = w.frames.astype(float)
    # four saturated contenders: the access point's three downlink flows together get what one
    # station gets (a quarter each, within 3 %), shared in turn among them (within 3 %)
    assert abs(frames["AP"] / frames.sum() - 0.25) < 0.0075, frames.to_dict()
    u = r.udp.set_index("name")
    down = [float(u.loc[f"S-{s}.udp0", "delivered_pkts"]) for s in STATIONS]
    assert max(down) / min(down) < 1.03, down


def test_the_draft_wireless_study_file_validates() -> None:
    from crosslayer.study import Study

    study = Study.from_toml(ROOT / "python" / "crosslayer" / "data" / "suites" / "tcpeval" / "wireless-lan.toml")
    assert len(study.points()) == 18  # 3 loads x 2 TCPs x 3 seeds


@pytest.mark.parametrize(
    ("mutate", "expected"),
    [
        (lambda w: w.update(stations=["W1", "X9"]), "topology.wlans[0].stations[1]: unknown node 'X9'"),
        (lambda w: w.update(ap="W1"), "topology.wlans[0].stations[0]: 'W1' is already in a wireless LAN"),
        (lambda w: w.update(delay=["1ms", "2ms"]), "topology.wlans[0].delay: one delay per station: 3 stations, 2 delays"),
        (lambda w: w.update(dcf={"cw_min": 16}), "topology.wlans[0].dcf.cw_min: CW + 1 must be a power of two"),
        (lambda w: w.update(dcf={"rate": "54.1Mbps"}), "topology.wlans[0].dcf.rate: must be a multiple of 250 kb/s"),
        (lambda w: w.update(dcf={"retry_limit": 0}), "topology.wlans[0].dcf.retry_limit"),
        (lambda w: w.update(dcf={"cwmin": 15}), "cwmin"),
    ],
)
def test_bad_wireless_lans_name_the_field_and_the_fix(mutate: Any, expected: str) -> None:
    data = lan()
    data["flows"] = [{"src": "S", "dst": "W1", "cc": "reno"}]
    mutate(data["topology"]["wlans"][0])
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(copy.deepcopy(data))
    assert expected in str(info.value).replace('"', "'"), str(info.value)


def test_a_wired_link_to_a_station_is_refused() -> None:
    data = lan()
    data["flows"] = [{"src": "S", "dst": "W1", "cc": "reno"}]
    data["topology"]["links"].append({"between": ["W1", "AP"], "rate": "1Gbps", "delay": "1ms"})
    with pytest.raises(ScenarioError, match="a wired link joins"):
        Scenario.from_dict(data)


def test_a_study_keeps_the_wlan_table(tmp_path: Path) -> None:
    from crosslayer.store import Store
    from crosslayer.study import Study
    from crosslayer.sweep import run_study

    data = lan()
    data.update(duration="6s", warmup="1s")
    data["flows"] = [{"src": "S", "dst": STATIONS, "cc": "cubic"}]
    data["study"] = {"seeds": [1, 2]}
    store = Store(tmp_path / "store")
    assert run_study(Study.from_dict(data), store, workers=1).ran == 2
    w = store.wlan()
    assert len(w) == 2 * 4 and set(w.member) == {"AP", *STATIONS}
    assert (w.groupby("key").frames.sum() > 0).all()


def routed(wired: str, **wlan: Any) -> dict[str, Any]:
    """Server S -- router R -- access point AP (the wired link between the routers at ``wired``)
    and three downlink flows to the stations, 6 s."""
    return {
        "name": "wlan-routed",
        "duration": "6s",
        "warmup": "2s",
        "seed": 1,
        "topology": {
            "kind": "graph",
            "hosts": [*STATIONS, "S"],
            "routers": ["R", "AP"],
            "links": [{"between": ["S", "R"], "rate": "1Gbps", "delay": "1ms"}, {"between": ["R", "AP"], "rate": wired, "delay": "5ms"}],
            "wlans": [{"ap": "AP", "stations": STATIONS, "qdisc": {"kind": "droptail", "limit_pkts": 100}, **wlan}],
        },
        "flows": [{"src": "S", "dst": STATIONS, "cc": "cubic"}],
    }


def test_a_saturated_medium_is_the_headline_bottleneck_behind_a_faster_wired_link(tmp_path: Path) -> None:
    """Each flow's bottleneck is its station's link out of the 6 Mb/s medium (the engine's
    per-flow rule counts a wireless LAN's links with the links between routers), not the
    100 Mb/s link between the routers, 5 % busy; the medium is saturated and the access
    point's queues hold the backlog: the headline describes the medium's queue."""
    r = run(routed("100Mbps", dcf={"rate": "6Mbps"}))
    q = r.queues.set_index("link")
    assert set(r.flows.bottleneck) == {f"AP->{s}" for s in STATIONS}
    assert r.scenario.bottleneck_link() == f"AP->{STATIONS[0]}"  # one flow each: the first of equals
    assert q.loc["R->AP", "utilization"] < 0.1 and q.loc["R->AP", "qlen_mean_pkts"] < 1
    ap, busy = r.medium
    assert ap == "AP" and busy == pytest.approx(r.wlan.airtime.sum()) and busy > 0.9
    b = r.bottleneck
    wireless = q[q.role.isin(["wlan_up", "wlan_down"])]
    assert b.link == max(wireless.index, key=lambda link: (wireless.drops[link], wireless.qlen_mean_pkts[link]))
    assert b.role == "wlan_down" and b.qlen_mean_pkts > 20
    agg = r.aggregates()["bottleneck"]
    assert agg["link"] == b.link and agg["qlen_mean_pkts"] == b.qlen_mean_pkts and agg["medium"] == {"wlan": "AP", "airtime": busy}
    assert r._headline()["wireless medium"] == f"AP {100 * busy:.1f} % busy"
    import tomli_w
    from crosslayer.cli import app
    from typer.testing import CliRunner

    (tmp_path / "routed.toml").write_text(tomli_w.dumps(routed("100Mbps", dcf={"rate": "6Mbps"})))
    done = CliRunner().invoke(app, ["run", str(tmp_path / "routed.toml"), "-o", str(tmp_path / "out")], catch_exceptions=False)
    assert done.exit_code == 0 and f"bottleneck queue ({b.link})" in done.stdout and f"AP: {100 * busy:.2f} % busy" in done.stdout, done.stdout


def test_a_busier_wired_link_or_a_named_bottleneck_keeps_the_headline() -> None:
    # 20 Mb/s between the routers, the 54 Mb/s medium about half busy: the wired link is the constraint
    r = run(routed("20Mbps"))
    assert r.queues.set_index("link").loc["R->AP", "utilization"] > r.wlan.airtime.sum()
    assert r.medium is None and r.bottleneck.link == "R->AP" and r.aggregates()["bottleneck"]["medium"] is None
    # the topology's own `bottleneck` is never second-guessed
    named = routed("100Mbps", dcf={"rate": "6Mbps"})
    named["topology"]["bottleneck"] = "R->AP"
    r = run(named)
    assert r.medium is None and r.bottleneck.link == "R->AP"
