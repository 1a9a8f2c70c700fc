"""Fuzzed study files end in a ScenarioError or a run, in bounded time, with the engine's
invariants intact (see ``fuzz_studies.py``; ``make fuzz`` runs many more cases)."""

from __future__ import annotations

import os
import random

from fuzz_studies import generate, run_case
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

EXAMPLES = int(os.environ.get("CROSSLAYER_FUZZ_EXAMPLES", "3000"))


@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None, suppress_health_check=list(HealthCheck))
@given(st.randoms(use_true_random=False))
def test_mutated_studies_end_in_an_error_or_a_run(rng: random.Random) -> None:
    run_case(generate(rng))
