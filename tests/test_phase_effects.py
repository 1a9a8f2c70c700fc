"""Phase effects (Floyd and Jacobson 1992): with every link at the bottleneck rate, the host whose
own NIC queue saturates first feeds the bottleneck at exactly its service rate, at a fixed phase,
and refills every freed slot; the other host's packets find the queue full. The lock-out shows in
the indicators, and a bounded, order-preserving jitter (or faster uplinks) removes it."""

from __future__ import annotations

from typing import Any

import crosslayer
import pytest
from crosslayer import Scenario
from helpers import ROOT

LOCKOUT = ROOT / "tests" / "repros" / "fidelity" / "lockout-min.toml"


def _n2(seed: int, **senders: Any) -> tuple[float, float, crosslayer.Result]:
    """N2's goodput share and bottleneck drop share, and the result."""
    data = Scenario.from_toml(LOCKOUT).model_dump(mode="json")
    data["seed"] = seed
    for h in data["topology"]["senders"]:
        h.update(senders)
    r = crosslayer.run(data)
    hosts = r.hosts.set_index("host")
    return float(hosts.loc["N2", "goodput_share"]), float(hosts.loc["N2", "bottleneck_drop_share"]), r


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_one_host_is_locked_out_and_the_indicators_show_it(seed: int) -> None:
    share, drops, r = _n2(seed)
    assert share < 0.01, f"N2 gets {share:.3f} of the goodput"
    n1_drops = float(r.hosts.set_index("host").loc["N1", "bottleneck_drop_share"])
    # N2's packets find the queue full a hundred times as often as N1's
    assert drops > 0.1 and drops > 100 * n1_drops, f"N2's packets find the queue full {drops:.2f} of the time, N1's {n1_drops:.4f}"
    agg = r.aggregates()["lockout"]
    assert agg["max_host_goodput_share"] > 0.99 and agg["max_host_bottleneck_drop_share"] > 0.1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_jitter_of_one_packet_time_or_faster_uplinks_remove_it(seed: int) -> None:
    share, _, _ = _n2(seed, jitter="120us")  # 1500 B at 100 Mb/s
    assert 0.3 < share < 0.7, f"with jitter N2 gets {share:.3f}"
    share, _, _ = _n2(seed, up={"rate": "200Mbps"})
    assert share > 0.15, f"with 200 Mb/s uplinks N2 gets {share:.3f}"


def test_the_pages_table_is_what_the_engine_gives_now() -> None:
    """docs/phase-effects.md's table of N2's goodput is `validation/phase_effects.py`'s output,
    cell for cell (one of its cells had stayed an older engine's)."""
    import sys

    sys.path.insert(0, str(ROOT / "validation"))
    import phase_effects

    page = (ROOT / "docs" / "phase-effects.md").read_text()
    for name, top, senders in phase_effects.VARIANTS:
        row = next((line for line in page.splitlines() if line.startswith(f"| {name} |")), None)
        assert row is not None, f"docs/phase-effects.md has no row {name!r}"
        cells = [c.strip() for c in row.strip("|").split("|")[1:]]
        now = [f"{phase_effects.n2_goodput(s, top, senders):.1f}" for s in range(1, 6)]
        assert cells == now, f"docs/phase-effects.md, {name}: the page has {cells}, the engine gives {now} (python validation/phase_effects.py)"
