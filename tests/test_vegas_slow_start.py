"""Vegas with many flows: Linux's slow start (grow on every ACK, test once per round) leaves a
standing queue far above what Vegas aims at (alpha..beta packets per flow); the paper's slow
start (grow every other round, test after a constant round) does not. docs/models/vegas.md,
"Many flows, the standing queue", has the numbers. Both run Linux's Vegas rules, in the ns3
profile too (whose default is ns-3's TcpVegas, which has only Linux's slow start)."""

from __future__ import annotations

import crosslayer
import pytest
from helpers import ACCESS_LINK
from crosslayer.scenario import Scenario


def _queue(slow_start: str, profile: str, seed: int) -> float:
    sc = Scenario.from_toml(ACCESS_LINK).with_paths({
        "flows[0].cc": {"kind": "vegas", "slow_start": slow_start, "rules": "linux"},
        "topology.bottleneck.qdisc": {"kind": "droptail", "limit_pkts": 900},
        "duration": "40s", "warmup": "10s", "tcp.profile": profile, "seed": seed,
    })  # fmt: skip
    r = crosslayer.run(sc)
    assert r.flows.goodput_bps.sum() > 95e6, "both slow starts fill the link"
    return float(r.queues.set_index("link").loc["A->B", "qlen_mean_pkts"])


@pytest.mark.parametrize("profile", ["linux", "ns3"])
def test_the_papers_slow_start_leaves_a_smaller_standing_queue(profile: str) -> None:
    linux = [_queue("linux", profile, seed) for seed in (1, 2, 3)]
    paper = [_queue("paper", profile, seed) for seed in (1, 2, 3)]
    # nine flows aim at 9 x (2..4) = 18..36 packets; measured linux 42-341, paper 27-109. With
    # Linux's slow start a seed now and then ends with the queue drained (29-69 packets in about
    # one seed of six, in every order of simultaneous events the engine has had: seed 3 now,
    # seeds 8 and 7 before), so the median of the three is held to it, not each
    assert sorted(linux)[1] > 90, linux
    assert sum(paper) < sum(linux) / 2, (paper, linux)
    if profile == "ns3":
        assert max(paper) < 36, paper
