"""Field types of a study file: quantities with their units (parsed exactly to ns, bit/s and
bytes; a bare number is refused), counts, flags, names, and the engine's fixed limits."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Annotated, Any, Final

from pydantic import (
    AfterValidator,
    BeforeValidator,
    PlainSerializer,
    Strict,
)

from crosslayer.catalog import catalog
from crosslayer.units import (
    format_duration,
    format_rate,
    format_size,
    parse_duration_ns,
    parse_rate_bps,
    parse_size_bytes,
    show,
)

# ---------------------------------------------------------------------------------------------
# Field types: validated value in SI integers, serialized back to the shortest exact unit string


def _require(ok: Callable[[Any], bool], requirement: str) -> AfterValidator:
    def check(value: Any) -> Any:
        if not ok(value):
            raise ValueError(f"{requirement} (got {show(value)})")
        return value

    return AfterValidator(check)


def _at_most(value: int, limit: int, fmt: Callable[[int], str]) -> int:
    if value > limit:
        raise ValueError(f"must be at most {fmt(limit)} (got {show(fmt(value))})")
    return value


def _got(ns: int) -> str:
    """``(got "30s")``: a duration as the user would write it, for error messages."""
    return f"(got {show(format_duration(ns))})"


_BOUNDS: Final = catalog().bounds
"""The engine's fixed limits (``crosslayer list limits``)."""
MAX_DURATION: Final = _BOUNDS["max_duration"].value
MAX_DELAY: Final = _BOUNDS["max_delay"].value
MAX_RATE: Final = _BOUNDS["max_rate"].value
MAX_HOSTS: Final = _BOUNDS["max_hosts"].value
MAX_FLOWS: Final = _BOUNDS["max_flows"].value
MAX_NAME: Final = 100
"""Longest scenario name (it names the results folder)."""

Duration = Annotated[int, BeforeValidator(parse_duration_ns), PlainSerializer(format_duration)]
"""A time span: integer ns (>= 0); written "100ms" (a bare number other than 0 is an error)."""
Rate = Annotated[
    int,
    BeforeValidator(parse_rate_bps),
    PlainSerializer(format_rate),
    AfterValidator(lambda v: _at_most(v, MAX_RATE, format_rate)),
]
"""A link rate: integer bit/s in (0, 1 Pbit/s]; written "100Mbps"."""
Delay = Annotated[Duration, AfterValidator(lambda v: _at_most(v, MAX_DELAY, format_duration))]
"""A propagation delay: at most 10 s."""
Size = Annotated[int, BeforeValidator(parse_size_bytes), PlainSerializer(format_size)]
"""A size: integer bytes (> 0); written "1500B" or "64KiB"."""
Count = Annotated[int, Strict(), _require(lambda n: n >= 1, "must be a positive integer")]
"""A positive integer count (packets, segments, flows)."""
FlowCount = Annotated[Count, _require(lambda n: n <= MAX_FLOWS, f"must be at most {MAX_FLOWS} (the most flows in a run)")]
"""Flows per (src, dst) pair."""
Loss = Annotated[float, Strict(), _require(lambda p: 0.0 <= p < 1.0, "must be a probability in [0, 1)")]
"""A Bernoulli loss probability in [0, 1)."""
Seed = Annotated[int, Strict(), _require(lambda s: 0 <= s < 2**64, "must be an integer in [0, 2^64)")]
"""The run seed (u64)."""
Flag = Annotated[bool, Strict()]
Dscp = Annotated[int, Strict(), _require(lambda n: 0 <= n <= 63, "must be a DiffServ codepoint: an integer in [0, 63]")]
Port = Annotated[int, Strict(), _require(lambda n: 0 <= n <= 65535, "must be a port number: an integer in [0, 65535]")]
"""A boolean written true/false (not 0/1)."""

_NODE_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
NodeName = Annotated[
    str,
    _require(
        lambda s: bool(_NODE_NAME.match(s)),
        "must be letters, digits and _ (not starting with a digit; '-' and '.' separate flow names)",
    ),
]
_SCENARIO_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
ScenarioName = Annotated[
    str,
    _require(
        lambda s: bool(_SCENARIO_NAME.match(s)) and len(s) <= MAX_NAME,
        f"must be letters, digits, '.', '_' and '-', at most {MAX_NAME} characters (it names the results folder)",
    ),
]
NodeList = Annotated[list[str], BeforeValidator(lambda v: [v] if isinstance(v, str) else v)]
"""One node name or a list of them."""


def read_parsed(file: str, parse: Callable[[str, str], Any]) -> Any:
    """``parse(text, file)`` of a file a study names (a trace, a flow list), read again only when
    the file changed (its modification time): validation and lowering share one reading."""
    from pathlib import Path

    return _read_parsed(file, Path(file).stat().st_mtime_ns, parse)


@functools.cache
def _read_parsed(file: str, _mtime_ns: int, parse: Callable[[str, str], Any]) -> Any:
    from pathlib import Path

    return parse(Path(file).read_text(), file)
