"""Human unit strings <-> the engine's integer SI units.

The engine counts time in nanoseconds, rates in bit/s and sizes in bytes, all as integers
(docs/design.md, "Engine principles"). Study files use readable strings instead:

* durations: ``"100s"``, ``"2ms"``, ``"10us"`` (or ``"10µs"``), ``"500ns"``. Result: ns (int,
  >= 0).
* rates: ``"100Mbps"``, ``"1Gbps"``, ``"10kbps"``, ``"1.5Gbit/s"``; decimal (SI) prefixes.
  Result: bit/s (int, > 0).
* sizes: ``"1500B"``, ``"64KiB"``, ``"1MB"``; SI (kB = 1000 B) and IEC (KiB = 1024 B)
  prefixes. Result: bytes (int, > 0).

A quantity always carries its unit: a bare number (``delay = 10``) is an error that suggests
one (``give a unit, e.g. "10ms" or "10s"``), because ``10`` could mean 10 s or 10 ms and
a guess would be silent nonsense. The one exception is a bare ``0``, which is zero in every
unit.

Parsing is exact (decimal arithmetic with enough precision for every accepted input, no binary
floating point), so ``"1.5Gbit/s"`` is exactly 1_500_000_000 bit/s; a value that is not a whole
number of base units is rejected rather than rounded. Inputs are bounded so that parsing is fast whatever the input: at most 64
characters, ASCII digits only, and a magnitude below 10^20 base units (``"1e999999s"`` is
refused at once, not computed).

``format_*`` are the inverses: they return the shortest exact string, so
``parse_x(format_x(v)) == v`` for every valid ``v``.
"""

from __future__ import annotations

import json
import re
from decimal import Context, Decimal, InvalidOperation
from typing import Final

__all__ = [
    "format_duration",
    "format_rate",
    "format_seconds",
    "format_size",
    "parse_duration_ns",
    "parse_rate_bps",
    "parse_size_bytes",
    "show",
]

NS_PER_S: Final = 1_000_000_000

# Unit -> multiplier to the base unit. Keys are matched exactly (after stripping spaces),
# except rates, whose unit is matched case-insensitively (nobody means "millibit") unless it is a
# byte rate ("MBps", "MB/s"), which is rejected rather than misread as bits.
_DURATION_UNITS: Final[dict[str, int]] = {
    "ns": 1,
    "us": 1_000,
    "µs": 1_000,
    "μs": 1_000,  # Greek mu, as typed on some keyboards
    "ms": 1_000_000,
    "s": NS_PER_S,
}
_RATE_UNITS: Final[dict[str, int]] = {
    "bps": 1,
    "kbps": 10**3,
    "mbps": 10**6,
    "gbps": 10**9,
    "tbps": 10**12,
    "bit/s": 1,
    "kbit/s": 10**3,
    "mbit/s": 10**6,
    "gbit/s": 10**9,
    "tbit/s": 10**12,
}
_SIZE_UNITS: Final[dict[str, int]] = {
    "B": 1,
    "kB": 10**3,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "KiB": 2**10,
    "MiB": 2**20,
    "GiB": 2**30,
}

_QUANTITY = re.compile(
    r"^\s*(?P<number>[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*(?P<unit>\S*)\s*$", re.ASCII
)
MAX_TEXT: Final = 64
"""Longest quantity string accepted."""
MAX_MAGNITUDE: Final = 20
"""Values must be below 10**MAX_MAGNITUDE base units (u64 holds up to 1.8e19)."""
_EXACT: Final = Context(prec=200)
"""Enough digits for any accepted input (64 characters) times any multiplier: no rounding."""

_DURATION_FORMS: Final = 'a duration like "100ms", "2s", "10us" or "500ns"'
_RATE_FORMS: Final = 'a rate like "100Mbps", "1Gbps", "10kbps" or "1.5Gbit/s"'
_SIZE_FORMS: Final = 'a size like "1500B", "64KiB" or "1MB"'
_DURATION_HINT: Final = ("ms", "s")
_RATE_HINT: Final = ("bps", "Mbps")
_SIZE_HINT: Final = ("B", "KiB")


def show(value: object, _depth: int = 0) -> str:
    """Render a user-supplied value as it looks in a TOML file (``"2ms"``, ``true``, ``{ a = 1 }``).

    Safe for any input: nesting is cut at 4 levels, the text at 60 characters, huge integers are
    described rather than printed, and characters that cannot be printed are escaped.
    """
    if _depth > 4:
        return "..."
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, str):
        text = json.dumps(value[:200], ensure_ascii=False)
    elif isinstance(value, dict):
        items = list(value.items())[:8]
        text = "{ " + ", ".join(f"{show(k, _depth + 1).strip(chr(34))} = {show(v, _depth + 1)}" for k, v in items) + " }"
    elif isinstance(value, (list, tuple)):
        text = "[" + ", ".join(show(v, _depth + 1) for v in value[:8]) + "]"
    elif isinstance(value, int) and value.bit_length() > 200:
        text = f"an integer of about {int(value.bit_length() * 0.30103)} digits"
    else:
        text = repr(value)
    text = text.encode("utf-8", "backslashreplace").decode("utf-8")
    return text if len(text) <= 60 else text[:57] + "..."


def _parse(
    value: object,
    units: dict[str, int],
    hint: tuple[str, ...],
    forms: str,
    base_unit: str,
    *,
    case_insensitive: bool = False,
) -> int:
    """Parse ``value`` into an integer count of the base unit; raise ValueError naming ``forms``
    (a bare number other than 0 is refused with units from ``hint`` to suggest)."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        raise ValueError(f"must be {forms} (got {show(value)})")
    if not isinstance(value, str):
        if value == 0:
            return 0  # zero in every unit
        shown = show(value)
        if len(shown) > 20 or "e" in shown or "inf" in shown or "nan" in shown:
            raise ValueError(f"must be {forms}: a number needs a unit (got {shown})")
        examples = " or ".join(f'"{shown}{u}"' for u in hint)
        raise ValueError(f"give a unit, e.g. {examples} (got {shown})")
    if len(value) > MAX_TEXT:
        raise ValueError(f"must be {forms}, at most {MAX_TEXT} characters (got {show(value)})")
    match = _QUANTITY.match(value)
    unit = match["unit"] if match else ""
    # Case-insensitive rates still keep "B" for bytes: "MBps" is not "Mbps".
    key = unit.lower() if case_insensitive and not unit.endswith(("Bps", "B/s")) else unit
    if match is None or key not in units:
        raise ValueError(f"must be {forms} (got {show(value)})")
    number_text, multiplier = match["number"], units[key]
    try:
        number = Decimal(number_text)
    except InvalidOperation:  # nan/inf floats
        raise ValueError(f"must be {forms} (got {show(value)})") from None
    if not number.is_finite():
        raise ValueError(f"must be {forms} (got {show(value)})")
    if number.is_zero():
        return 0
    # Bound the magnitude before computing anything: a huge exponent would make the exact product
    # (and int()) arbitrarily slow, a tiny one cannot be a whole number of base units.
    magnitude = number.adjusted() + len(str(multiplier)) - 1
    if magnitude >= MAX_MAGNITUDE:
        raise ValueError(f"must be below 1e{MAX_MAGNITUDE} {base_unit} (got {show(value)})")
    if magnitude < 0:
        raise ValueError(f"must be a whole number of {base_unit} (got {show(value)})")
    exact = _EXACT.multiply(number, Decimal(multiplier))
    if exact != exact.to_integral_value(context=_EXACT):
        raise ValueError(f"must be a whole number of {base_unit} (got {show(value)})")
    return int(exact)


def parse_duration_ns(value: str | int | float) -> int:
    """Parse a duration (``"2ms"``; a bare 0) into nanoseconds (>= 0)."""
    ns = _parse(value, _DURATION_UNITS, _DURATION_HINT, _DURATION_FORMS, "nanoseconds")
    if ns < 0:
        raise ValueError(f'must be a non-negative duration like "100ms" (got {show(value)})')
    return ns


def parse_rate_bps(value: str | int | float) -> int:
    """Parse a rate (``"100Mbps"``) into bit/s (> 0)."""
    bps = _parse(value, _RATE_UNITS, _RATE_HINT, _RATE_FORMS, "bit/s", case_insensitive=True)
    if bps <= 0:
        raise ValueError(f'must be a positive rate like "100Mbps" (got {show(value)})')
    return bps


def parse_size_bytes(value: str | int | float) -> int:
    """Parse a size (``"64KiB"``) into bytes (> 0)."""
    size = _parse(value, _SIZE_UNITS, _SIZE_HINT, _SIZE_FORMS, "bytes")
    if size <= 0:
        raise ValueError(f'must be a positive size like "1500B" (got {show(value)})')
    return size


def _format(count: int, units: tuple[tuple[str, int], ...]) -> str:
    """Largest unit in ``units`` (biggest first, base unit last) that divides ``count`` exactly."""
    for name, multiplier in units:
        if count % multiplier == 0:
            return f"{count // multiplier}{name}"
    return f"{count}{units[-1][0]}"


def format_duration(ns: int) -> str:
    """Format nanoseconds as the shortest exact duration string, e.g. 2_000_000 -> ``"2ms"``."""
    if ns == 0:
        return "0s"
    return _format(ns, (("s", NS_PER_S), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)))


def format_rate(bps: int) -> str:
    """Format bit/s as the shortest exact rate string, e.g. 10**8 -> ``"100Mbps"``."""
    return _format(bps, (("Tbps", 10**12), ("Gbps", 10**9), ("Mbps", 10**6), ("kbps", 10**3), ("bps", 1)))


def format_size(size_bytes: int) -> str:
    """Format bytes as the shortest exact size string, e.g. 65536 -> ``"64KiB"``, 1500 -> ``"1500B"``."""
    return _format(
        size_bytes,
        (("GiB", 2**30), ("GB", 10**9), ("MiB", 2**20), ("MB", 10**6), ("KiB", 2**10), ("kB", 10**3), ("B", 1)),
    )


def format_seconds(seconds: float) -> str:
    """A wall-clock span for people: ``"45 s"``, ``"3 min 20 s"``, ``"2 h 5 min"``."""
    s = int(round(seconds))
    if s < 60:
        return f"{s} s"
    if s < 3600:
        return f"{s // 60} min {s % 60} s"
    return f"{s // 3600} h {s % 3600 // 60} min"
