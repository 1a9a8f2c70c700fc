"""Unit strings -> integer ns, bit/s, bytes (crosslayer.units)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from crosslayer.units import (
    format_duration,
    format_rate,
    format_size,
    parse_duration_ns,
    parse_rate_bps,
    parse_size_bytes,
)
from hypothesis import given
from hypothesis import strategies as st


@pytest.mark.parametrize(
    ("text", "ns"),
    [
        ("100s", 100_000_000_000),
        ("2ms", 2_000_000),
        ("10us", 10_000),
        ("10µs", 10_000),
        ("500ns", 500),
        ("0ms", 0),
        ("1.5s", 1_500_000_000),
        ("0.25 ms", 250_000),
        ("1e-3s", 1_000_000),
        ("0.1s", 100_000_000),
        (0, 0),  # a bare 0 is zero in every unit
    ],
)
def test_durations(text: str | float, ns: int) -> None:
    assert parse_duration_ns(text) == ns


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        ("100Mbps", 100_000_000),
        ("1Gbps", 1_000_000_000),
        ("10kbps", 10_000),
        ("1.5Gbit/s", 1_500_000_000),
        ("100 mbps", 100_000_000),
        ("64bps", 64),
    ],
)
def test_rates(text: str | float, bps: int) -> None:
    assert parse_rate_bps(text) == bps


@pytest.mark.parametrize(
    ("text", "size"),
    [("1500B", 1500), ("64KiB", 65536), ("1MB", 1_000_000), ("1MiB", 1_048_576), ("2kB", 2000)],
)
def test_sizes(text: str | float, size: int) -> None:
    assert parse_size_bytes(text) == size


@pytest.mark.parametrize(
    ("parse", "value", "message"),
    [
        (
            parse_duration_ns,
            "100",
            'must be a duration like "100ms", "2s", "10us" or "500ns" (got "100")',
        ),
        (parse_duration_ns, "5 minutes", "must be a duration like"),
        (parse_duration_ns, "-1s", 'must be a non-negative duration like "100ms" (got "-1s")'),
        (parse_duration_ns, "0.5ns", 'must be a whole number of nanoseconds (got "0.5ns")'),
        (parse_duration_ns, True, "(got true)"),
        (parse_duration_ns, float("nan"), "must be a duration like"),
        (parse_duration_ns, None, "must be a duration like"),
        (parse_rate_bps, "-5Mbps", 'must be a positive rate like "100Mbps" (got "-5Mbps")'),
        (parse_rate_bps, "0bps", "must be a positive rate"),
        (
            parse_rate_bps,
            "100MBps",
            'must be a rate like "100Mbps", "1Gbps", "10kbps" or "1.5Gbit/s"',
        ),
        (parse_rate_bps, "fast", '(got "fast")'),
        (parse_rate_bps, "0.5bps", "whole number of bit/s"),
        (parse_size_bytes, "1.5B", "whole number of bytes"),
        (parse_size_bytes, "10kb", 'must be a size like "1500B", "64KiB" or "1MB" (got "10kb")'),
        (parse_size_bytes, 0, "must be a positive size"),
        # a bare number has no unit: an error that suggests one, never a guess
        (parse_duration_ns, 10, 'give a unit, e.g. "10ms" or "10s" (got 10)'),
        (parse_duration_ns, 2.5, 'give a unit, e.g. "2.5ms" or "2.5s" (got 2.5)'),
        (parse_rate_bps, 9600, 'give a unit, e.g. "9600bps" or "9600Mbps" (got 9600)'),
        (parse_size_bytes, 1448, 'give a unit, e.g. "1448B" or "1448KiB" (got 1448)'),
        (parse_duration_ns, 1e300, "a number needs a unit"),
    ],
)
def test_errors_name_the_accepted_forms(parse: Callable[[Any], int], value: object, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse(value)
    assert message in str(info.value)


def test_format_is_short_and_exact() -> None:
    assert format_duration(100_000_000_000) == "100s"
    assert format_duration(1_500_000) == "1500us"
    assert format_duration(0) == "0s"
    assert format_rate(1_500_000_000) == "1500Mbps"
    assert format_size(65536) == "64KiB"
    assert format_size(1500) == "1500B"


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_duration_round_trip(ns: int) -> None:
    assert parse_duration_ns(format_duration(ns)) == ns


@given(st.integers(min_value=1, max_value=2**64 - 1))
def test_rate_and_size_round_trip(value: int) -> None:
    assert parse_rate_bps(format_rate(value)) == value
    assert parse_size_bytes(format_size(value)) == value
