"""TCP-LP alone on an idle link (the review's reproducer, ``tests/repros/wave3/tcp-lp-alone-idle-link.toml``):
two LP flows and nothing else use a few percent of a 20 Mb/s link. ``docs/models/lp.md``
("Alone on an idle link") explains it rule by rule; these runs are that table: each rule taken
away gives a step of the utilization, and without delay samples LP is Reno and fills the link."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import crosslayer
from crosslayer.scenario import Scenario

REPRO = Path(__file__).parent / "repros" / "wave3" / "tcp-lp-alone-idle-link.toml"


def _utilization(tcp: dict[str, Any] | None = None, **cc: Any) -> float:
    sc = Scenario.from_toml(REPRO)
    overrides: dict[str, Any] = {f"tcp.{k}": v for k, v in (tcp or {}).items()}
    overrides.update({f"flows[0].cc.{k}": v for k, v in cc.items()})
    r = crosslayer.run(sc.with_overrides(**overrides) if overrides else sc)
    return float(r.queues.set_index("link").loc["A->B", "utilization"])


def test_tcp_lp_alone_starves_by_its_rules_and_each_rule_is_a_step() -> None:
    linux = _utilization()
    no_delack = _utilization({"delayed_ack": False})
    additive = _utilization({"delayed_ack": False}, set_ssthresh=True)
    reno = _utilization({"timestamps": False})
    # measured: 3.1 %, 16.0 %, 73.3 %, 100 %
    assert linux < 0.05, "the delayed-ACK hold read as queueing keeps the window at one segment"
    assert no_delack > 3 * linux, "without delayed ACKs the hold is gone"
    assert no_delack < 0.3, "the range reset and cwnd 1 within the inference window remain"
    assert additive > 3 * no_delack and additive > 0.6, "the paper's additive growth: no slow start after each indication"
    assert reno > 0.95, "no timestamps, no delay samples: LP is Reno and fills the link"


def test_the_papers_range_alone_never_sees_a_full_buffer() -> None:
    # reset_range = false keeps the range its own slow start observed (a few ms of queue), so
    # 15 % of it is a fraction of a millisecond: worse alone than Linux's reset (5.9 % vs 16 %)
    assert _utilization({"delayed_ack": False}, reset_range=False, set_ssthresh=True) < _utilization({"delayed_ack": False})
