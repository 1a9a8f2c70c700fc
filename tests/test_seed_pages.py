"""The seed pages' criterion (crosslayer.analysis: the 95 % interval over seeds and the agreement
with a paper's printed number), and their provenance: a sample of the cells a page records
(docs/validation/cells/) is run again and must give the same numbers."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from crosslayer.analysis import PAPER_TOLERANCES, against_paper, interval95, t975

ROOT = Path(__file__).resolve().parents[1]


def _pages():  # type: ignore[no-untyped-def]
    spec = importlib.util.spec_from_file_location("seed_pages", ROOT / "validation" / "seed_pages.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_t_quantiles_are_students() -> None:
    # exact values (R: qt(0.975, df)); the table to 30, the expansion beyond
    for df, exact in ((1, 12.7062), (4, 2.7764), (10, 2.2281), (30, 2.0423), (31, 2.0395), (60, 2.0003), (120, 1.9799), (1000, 1.9623)):
        assert abs(t975(df) - exact) < 1e-3, df
    with pytest.raises(ValueError):
        t975(0)


def test_the_interval_is_the_t_interval_of_the_mean() -> None:
    v = [0.71, 0.69, 0.74, 0.70, 0.72]
    i = interval95(v)
    assert i.n == 5 and i.mean == pytest.approx(np.mean(v))
    assert i.half == pytest.approx(2.776445 * np.std(v, ddof=1) / math.sqrt(5), rel=1e-4)
    assert (i.lo, i.hi) == pytest.approx((i.mean - i.half, i.mean + i.half))
    assert interval95([3.0]).half == 0.0 and interval95([3.0]).n == 1
    assert interval95([float("nan"), 2.0, 4.0]).n == 2  # a missing seed is left out
    # coverage: over many samples of 5 from a normal law, about 95 % of the intervals hold the mean
    rng = np.random.default_rng(1)
    inside = 0
    for _ in range(4000):
        s = interval95(rng.normal(10.0, 2.0, 5))
        inside += s.lo <= 10.0 <= s.hi
    assert 0.935 < inside / 4000 < 0.965


def test_the_criterion_agrees_within_the_tolerance_or_the_interval_and_not_beyond() -> None:
    tol = PAPER_TOLERANCES["queue_pkts"]
    assert (tol.relative, tol.floor) == (0.20, 1.0)
    # within 20 % of the paper's 814 packets
    assert against_paper("814", [700, 720, 690, 705, 710], "queue_pkts").verdict == "agrees"
    # 30 % off, tight interval: differs
    assert against_paper("814", [570, 571, 569, 570, 570], "queue_pkts").verdict == "differs"
    # 30 % off on the mean, but the seeds spread so wide that the paper's value is inside the interval
    assert against_paper("814", [300, 1100, 400, 1000, 50], "queue_pkts").verdict == "agrees (interval)"
    # Jain: an absolute 0.05
    assert against_paper("0.75", [0.80, 0.80, 0.80], "jain").agrees
    assert not against_paper("0.75", [0.81, 0.81, 0.81], "jain").agrees
    # the paper's rounding: "0.00" means below 0.005, whatever the relative tolerance
    assert against_paper("0.00", [0.004, 0.004], "rate").verdict == "agrees"
    assert against_paper("0.00", [0.02, 0.02], "rate").verdict == "differs"
    assert against_paper("5", [], "rate").verdict == "not measured"


def test_a_sample_of_the_seed_pages_cells_gives_the_same_numbers_run_again() -> None:
    pages = _pages()
    for page in pages.PAGES:
        recorded = json.loads((pages.CELLS / f"{page}.json").read_text())
        assert recorded["seeds"] >= 5
        for block in recorded["blocks"]:
            seeds = {c["seed"] for c in block["cells"]}
            assert len(seeds) >= 5, (page, block["name"], seeds)
        picked = pages.sample(page, pages.CHECKED[page], 3)
        assert len(picked) == 3
        for block, cell in picked:
            now = pages.rerun(block, cell)
            for m in pages.METRICS:
                assert pages._close(now[m], cell[m]), (
                    f"{page} {block['name']} cell {cell['key']}: {m} is {now[m]} now, the page says {cell[m]}; a change "
                    "that moves results must regenerate the pages: python validation/seed_pages.py run && python validation/seed_pages.py write"
                )
