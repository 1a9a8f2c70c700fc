"""Flow groups (bulk TCP and constant-bit-rate UDP), their start times and their expansion into
(src, dst) pairs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal, NamedTuple

from pydantic import (
    BaseModel,
    BeforeValidator,
    Discriminator,
    FieldSerializationInfo,
    Tag,
    field_serializer,
    model_validator,
)

from crosslayer.scenario.algorithms import CcConfig, TcpConfig, _tag_by
from crosslayer.scenario.errors import _TAG, Loc, _error, _Model, _raise_problems
from crosslayer.scenario.fields import (
    Dscp,
    Duration,
    Flag,
    FlowCount,
    NodeList,
    Port,
    Rate,
    Size,
)
from crosslayer.units import (
    format_duration,
    show,
)

# -- flow start times -------------------------------------------------------------------------


class FixedStart(_Model):
    """Start at a fixed time."""

    at: Duration

    @property
    def bounds(self) -> tuple[int, int]:
        """Earliest and latest possible start, ns."""
        return self.at, self.at

    def engine_spec(self) -> dict[str, Any]:
        return {"kind": "fixed", "at": self.at}


class UniformStart(_Model):
    """Start at a time drawn uniformly from [from, to] by the engine (per-flow RNG stream)."""

    uniform: tuple[Duration, Duration]

    @model_validator(mode="after")
    def _ordered(self) -> UniformStart:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        lo, hi = self.uniform
        if lo > hi:
            return [(("uniform",), f"needs from <= to (got [{show(format_duration(lo))}, {show(format_duration(hi))}])")]
        return []

    @property
    def bounds(self) -> tuple[int, int]:
        """Earliest and latest possible start, ns."""
        return self.uniform

    def engine_spec(self) -> dict[str, Any]:
        return {"kind": "uniform", "from": self.uniform[0], "to": self.uniform[1]}


_START_FORMS: Final = 'must be a time like "0s" or { uniform = ["0s", "3s"] }'


def _normalize_start(value: Any) -> Any:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return {"at": value}
    if isinstance(value, Mapping) and len(value) == 1 and next(iter(value)) in ("at", "uniform"):
        return value
    if isinstance(value, BaseModel):
        return value
    raise _error("start_form", f"{_START_FORMS} (got {show(value)})")


Start = Annotated[
    Annotated[FixedStart, Tag(_TAG + "fixed")] | Annotated[UniformStart, Tag(_TAG + "uniform")],
    Discriminator(_tag_by(lambda v: "uniform" if "uniform" in v else "fixed")),
    BeforeValidator(_normalize_start),
]


# -- on-off applications ---------------------------------------------------------------------

MAX_PERIOD_NS: Final = 1_000_000 * 10**9
"""The longest on- or off-period mean (the engine cuts Pareto tails there too)."""

_PERIOD_NEEDS: Final[dict[str, tuple[str, ...]]] = {"fixed": ("value",), "exponential": ("mean",), "pareto": ("mean", "shape")}


def _normalize_period(value: Any) -> Any:
    if isinstance(value, (str, int, float)) and not isinstance(value, bool):
        return {"kind": "fixed", "value": value}
    return value


class PeriodDistribution(_Model):
    """Durations of on- or off-periods: a time such as ``"500ms"`` (every period that long), or
    ``{ kind = "exponential", mean = "1s" }``, or ``{ kind = "pareto", mean = "1s", shape = 1.5 }``
    (heavy-tailed; shape > 1)."""

    kind: Literal["fixed", "exponential", "pareto"]
    value: Duration | None = None
    mean: Duration | None = None
    shape: float | None = None
    """Pareto's shape a > 1 (tail P(T > t) ~ t^-a)."""

    @model_validator(mode="after")
    def _complete(self) -> PeriodDistribution:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        needs = _PERIOD_NEEDS[self.kind]
        for name in ("value", "mean", "shape"):
            given = getattr(self, name) is not None
            if name in needs and not given:
                out.append(((name,), f"a {self.kind} period needs {name}"))
            elif given and name not in needs:
                out.append(((name,), f"is not a parameter of a {self.kind} period (it takes {', '.join(needs)})"))
        if out:
            return out
        for name in ("value", "mean"):
            v = getattr(self, name)
            if v is not None and not 1_000 <= v <= MAX_PERIOD_NS:
                out.append(((name,), f"must be in [1us, 1000000s] (got {show(format_duration(v))})"))
        if self.shape is not None and not 1 < self.shape <= 100:
            out.append((("shape",), f"must be in (1, 100]: at 1 or below the mean is infinite (got {self.shape})"))
        return out

    def mean_ns(self) -> float:
        return float(self.value if self.kind == "fixed" else self.mean or 0)

    def engine_spec(self) -> dict[str, Any]:
        if self.kind == "fixed":
            return {"kind": "fixed", "value": self.value}
        if self.kind == "exponential":
            return {"kind": "exponential", "mean": self.mean}
        return {"kind": "pareto", "mean": self.mean, "shape": self.shape}


Period = Annotated[PeriodDistribution, BeforeValidator(_normalize_period)]


class OnOff(_Model):
    """An on-off application (``traffic/onoff.rs``): it alternates on-periods, in which it
    writes (at the group's ``app_rate``, or as fast as TCP takes the data), and off-periods of
    silence, on first at the flow's start, each period drawn from its distribution."""

    on: Period
    off: Period
    connection: Literal["same", "new"] = "same"
    """``"same"``: one connection for the run, idle while off (the Linux profile restarts its
    window after an idle RTO); ``"new"``: a new connection per on-period carrying app_rate x its
    duration, then closed (a finite flow ``<name>.<k>`` each, with its completion time)."""

    def engine_spec(self) -> dict[str, Any]:
        return {"on": self.on.engine_spec(), "off": self.off.engine_spec(), "connection": self.connection}


# -- flows ------------------------------------------------------------------------------------


Pairs = Literal["all", "zip"]
"""How a group pairs its src and dst hosts."""


def _pair_count(group: FlowGroup | UdpGroup) -> int:
    """How many (src, dst) pairs ``group`` has, without listing them."""
    if group.pairs == "zip":
        return min(len(group.src), len(group.dst))
    return len(group.src) * len(group.dst) - len(set(group.src) & set(group.dst))


def group_pairs(group: FlowGroup | UdpGroup) -> list[tuple[str, str]]:
    """The (src, dst) pairs a group's flows run between, in order: src x dst without a host
    paired with itself (all-to-all among the same hosts is ``src = dst = [...]``), or src[i]
    with dst[i] when ``pairs = "zip"``."""
    if group.pairs == "zip":
        return list(zip(group.src, group.dst))
    return [(src, dst) for src in group.src for dst in group.dst if src != dst]


class FlowGroup(_Model):
    """Bulk TCP flows: ``per_pair`` flows for every (src, dst) in src x dst.

    Data goes from ``src`` to ``dst``. In a dumbbell: senders to receivers over A -> B, or, when
    every ``src`` is a receiver and every ``dst`` a sender, receivers to senders over B -> A (a
    reverse group: two-way traffic). In a graph: between any two hosts, along their route.
    """

    src: NodeList
    """Where the data comes from: sender name(s), or receiver name(s) for a reverse group."""
    dst: NodeList
    """Where it goes: receiver name(s), or sender name(s) for a reverse group."""
    pairs: Pairs = "all"
    """Which (src, dst) pairs get flows: "all" of src x dst, or "zip": src[i] with dst[i] (equal
    lengths; e.g. one receiver per sender)."""
    per_pair: FlowCount = 1
    cc: CcConfig
    start: Start = FixedStart(at=0)
    stop: Duration | None = None
    """Time the sender stops sending new data (the connection stays open); unset: runs to the
    end."""
    abort: Duration | None = None
    """Time the application resets the connection: a RST goes out and the flow stops without
    closing (its connection is "reset" in the flows table; a finite flow keeps the bytes it had
    left); unset: it is not aborted."""
    size: Size | None = None
    """Payload bytes of each flow: a finite transfer that completes when its last byte is
    delivered (its completion time is in the fct table); unset: a bulk transfer."""
    app_rate: Rate | None = None
    """The application writes at this rate (payload) from the start, so the sender is
    application-limited whenever it has sent what was written (BBR's rate samples see it);
    unset: the sender always has data."""
    on_off: OnOff | None = None
    """An on-off application: ``{ on = "500ms", off = { kind = "exponential", mean = "2s" },
    connection = "same" }``; unset: the application writes throughout."""
    tcp: TcpConfig | None = None
    """Overrides of the scenario's [tcp] for this group: only the fields given here apply."""
    dscp: Dscp = 0
    """DiffServ codepoint of the group's packets (class-based disciplines may classify by it)."""
    port: Port = 0
    """Service port of the group's flows (0: none; class-based disciplines may classify by it)."""
    milestones: bool = False
    """Record when each flow's receiver first holds 15 kB, 150 kB, 1.5 MB, ... (1500 x 10^n
    bytes) in order: the ``milestones`` table (draft-irtf-iccrg-tcpeval-01 section 5.2.3's
    ramp-up time)."""

    @field_serializer("tcp")
    def _dump_tcp_overrides(self, tcp: TcpConfig | None, info: FieldSerializationInfo) -> Any:
        # Only the fields the user set, so a round trip does not pin the other fields.
        return None if tcp is None else tcp.model_dump(mode=info.mode, exclude_unset=True)


class UdpGroup(_Model):
    """Unresponsive constant-bit-rate (UDP) flows: ``per_pair`` for every (src, dst) in src x dst.

    Each sends ``packet_size``-byte datagrams (wire size) at ``rate`` from ``start`` to ``stop``
    whatever the network does; results in the ``udp`` table (sent, delivered, dropped, one-way
    delay).
    """

    src: NodeList
    """Source name(s): senders, or receivers for a reverse group (as in a flow group)."""
    dst: NodeList
    """Sink name(s): receivers, or senders for a reverse group."""
    pairs: Pairs = "all"
    """Which (src, dst) pairs get flows: "all" of src x dst, or "zip": src[i] with dst[i]."""
    per_pair: FlowCount = 1
    rate: Rate
    """Sending rate, wire bytes (e.g. "20Mbps")."""
    packet_size: Size = 1500
    """Wire size of each datagram (28 B to 64 KiB)."""
    start: Duration = 0
    stop: Duration | None = None
    """No datagram from this time; unset: runs to the end."""
    ecn: Flag = False
    """Send ECT(0): ECN-capable, yet unresponsive (it ignores marks)."""
    ect1: Flag = False
    """Send ECT(1) instead, the L4S identifier (RFC 9331): a DualPI2 queue serves the datagrams
    from its L4S queue (an unresponsive L4S source, RFC 9332's overload case)."""
    dscp: Dscp = 0
    port: Port = 0


class ExpandedFlow(NamedTuple):
    """One flow of the engine spec."""

    name: str
    """``"<src>-<dst>.<k>"``, k counting that pair's flows across all groups in order."""
    group: int
    """Index of its flow group."""
    src: int | str
    """In a dumbbell, an index into topology.senders (topology.receivers when ``reverse``); in
    a graph, the host's name."""
    dst: int | str
    """In a dumbbell, an index into topology.receivers (topology.senders when ``reverse``); in
    a graph, the host's name."""
    reverse: bool = False
    """Data from a receiver host to a sender host, over B -> A."""
