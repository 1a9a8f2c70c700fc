"""Scenario (study file) models: TOML in, validated models, engine spec out.

A scenario is one simulation run: a dumbbell topology, TCP defaults and flow groups. Study files
are TOML (see ``studies/`` for annotated examples); every quantity is a unit string parsed by
:mod:`crosslayer.units`. After validation, every time field holds integer nanoseconds, every
rate integer bit/s and every size integer bytes; :meth:`Scenario.to_engine_spec` lowers the
models to the JSON shape of docs/design.md ("Engine interface").

Validation happens once, here, with messages that name the field path and the fix; all problems
are collected into one :class:`ScenarioError`. Models are frozen; use
:meth:`Scenario.with_overrides` to derive a variant (it re-validates).
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Annotated, Any, Final, Literal, NamedTuple

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    FieldSerializationInfo,
    PlainSerializer,
    Strict,
    Tag,
    ValidationError,
    field_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from crosslayer.units import (
    format_duration,
    format_rate,
    format_size,
    parse_duration_ns,
    parse_rate_bps,
    parse_size_bytes,
    show,
)

__all__ = [
    "Bottleneck",
    "Cubic",
    "DropTail",
    "Dumbbell",
    "ExpandedFlow",
    "FixedStart",
    "FlowGroup",
    "Host",
    "LinkOverride",
    "Reno",
    "Scenario",
    "ScenarioError",
    "TcpConfig",
    "UniformStart",
]

MS: Final = 1_000_000
"""Nanoseconds per millisecond."""
S: Final = 1_000_000_000
"""Nanoseconds per second."""

Loc = tuple[str | int, ...]
"""A field path as pydantic reports it, e.g. ``("flows", 0, "cc")``."""
Problem = tuple[str, str]
"""One validation problem: (dotted field path, message)."""

# ---------------------------------------------------------------------------------------------
# Errors


class ScenarioError(ValueError):
    """An invalid scenario. ``problems`` lists (field path, message); ``str()`` shows them all."""

    def __init__(self, problems: list[Problem], source: str | None = None) -> None:
        self.problems = problems
        self.source = source
        where = f" ({source})" if source else ""
        count = f"{len(problems)} problem{'s' if len(problems) != 1 else ''}"
        lines = [f"invalid scenario{where}, {count}:"]
        lines += [f"  {path}: {message}" if path else f"  {message}" for path, message in problems]
        super().__init__("\n".join(lines))


# Cross-field checks report several problems at once through one custom pydantic error whose
# context carries (path relative to the model, message) pairs; `_problems_from` unpacks them.
_PROBLEMS: Final = "crosslayer_problems"
# Union members are tagged with this prefix; tags are dropped from reported paths.
_TAG: Final = "kind:"


def _error(kind: str, message: str) -> PydanticCustomError:
    """A custom pydantic error with a literal message (braces in it are not a template)."""
    return PydanticCustomError(kind, "{message}", {"message": message})


def _raise_problems(problems: list[tuple[Loc, str]]) -> None:
    if problems:
        raise PydanticCustomError(_PROBLEMS, "{count} problem(s)", {"count": len(problems), "problems": problems})


def _path(loc: Iterable[str | int]) -> str:
    """``("flows", 0, "cc")`` -> ``"flows[0].cc"``."""
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


_GENERIC_MESSAGES: Final[dict[str, str]] = {
    "int_type": "must be an integer",
    "int_parsing": "must be an integer",
    "int_from_float": "must be an integer",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "string_type": "must be a string",
    "list_type": "must be a list",
    "tuple_type": "must be a list",
    "model_type": "must be a table, e.g. { key = value }",
    "model_attributes_type": "must be a table, e.g. { key = value }",
    "dict_type": "must be a table, e.g. { key = value }",
}


def _message(error: Mapping[str, Any]) -> str:
    kind, value = error["type"], error.get("input")
    if kind == "missing":
        return "is required"
    if kind == "value_error":
        return str(error["ctx"]["error"])
    if kind == "literal_error":
        return f"must be {error['ctx']['expected']} (got {show(value)})"
    if kind in _GENERIC_MESSAGES:
        return f"{_GENERIC_MESSAGES[kind]} (got {show(value)})"
    return str(error["msg"])


def _problems_from(error: ValidationError) -> list[Problem]:
    """Flatten a pydantic ValidationError into readable (path, message) pairs."""
    problems: list[Problem] = []
    for err in error.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith(_TAG)))
        if err["type"] == _PROBLEMS:
            problems += [(_path(loc + tuple(rel)), msg) for rel, msg in err["ctx"]["problems"]]
        else:
            problems.append((_path(loc), _message(err)))
    return problems


# ---------------------------------------------------------------------------------------------
# Field types: validated value in SI integers, serialized back to the shortest exact unit string


def _require(ok: Callable[[Any], bool], requirement: str) -> AfterValidator:
    def check(value: Any) -> Any:
        if not ok(value):
            raise ValueError(f"{requirement} (got {show(value)})")
        return value

    return AfterValidator(check)


def _got(ns: int) -> str:
    """``(got "30s")``: a duration as the user would write it, for error messages."""
    return f"(got {show(format_duration(ns))})"


Duration = Annotated[int, BeforeValidator(parse_duration_ns), PlainSerializer(format_duration)]
"""A time span: integer ns (>= 0); written "100ms", or a number of seconds."""
Rate = Annotated[int, BeforeValidator(parse_rate_bps), PlainSerializer(format_rate)]
"""A link rate: integer bit/s (> 0); written "100Mbps", or a number of bit/s."""
Size = Annotated[int, BeforeValidator(parse_size_bytes), PlainSerializer(format_size)]
"""A size: integer bytes (> 0); written "1500B" or "64KiB", or a number of bytes."""
Count = Annotated[int, Strict(), _require(lambda n: n >= 1, "must be a positive integer")]
"""A positive integer count (packets, segments, flows)."""
Loss = Annotated[float, Strict(), _require(lambda p: 0.0 <= p < 1.0, "must be a probability in [0, 1)")]
"""A Bernoulli loss probability in [0, 1)."""
Seed = Annotated[int, Strict(), _require(lambda s: 0 <= s < 2**64, "must be an integer in [0, 2^64)")]
"""The run seed (u64)."""
Flag = Annotated[bool, Strict()]
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
        lambda s: bool(_SCENARIO_NAME.match(s)),
        "must be letters, digits, '.', '_' and '-' (it names the results folder)",
    ),
]
NodeList = Annotated[list[str], BeforeValidator(lambda v: [v] if isinstance(v, str) else v)]
"""One node name or a list of them."""


# ---------------------------------------------------------------------------------------------
# Models


class _Model(BaseModel):
    """Base: frozen, and unknown keys are rejected with a did-you-mean hint."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="before")
    @classmethod
    def _reject_unknown_fields(cls, data: Any) -> Any:
        if isinstance(data, Mapping):
            valid = list(cls.model_fields)
            problems: list[tuple[Loc, str]] = []
            for key in data:
                if key not in cls.model_fields:
                    close = difflib.get_close_matches(str(key), valid, n=1)
                    hint = f'did you mean "{close[0]}"? ' if close else ""
                    problems.append(((str(key),), f"unknown field; {hint}valid fields: {', '.join(valid)}"))
            _raise_problems(problems)
        return data


def _normalize_kind(what: str, known: Iterable[str]) -> BeforeValidator:
    """Accept ``"cubic"`` for ``{ kind = "cubic" }``; check the kind (case-insensitive)."""
    known = sorted(known)

    def normalize(value: Any) -> Any:
        if isinstance(value, str):
            value = {"kind": value}
        if isinstance(value, Mapping):
            kind = value.get("kind")
            if not isinstance(kind, str):
                raise _error("missing_kind", f"{what} needs a kind, one of: {', '.join(known)}")
            if kind.lower() not in known:
                raise _error("unknown_kind", f"unknown {what} {show(kind)}; known: {', '.join(known)}")
            value = {**value, "kind": kind.lower()}
        return value

    return BeforeValidator(normalize)


def _tag_by(key: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    """Discriminator: map the raw value (dict or model) to its union tag."""

    def tag(value: Any) -> str | None:
        name = key(value if isinstance(value, Mapping) else value.model_dump())
        return None if name is None else _TAG + name

    return tag


# -- queue disciplines ------------------------------------------------------------------------


class DropTail(_Model):
    """FIFO that drops arrivals when full. Limit in packets and/or bytes (both apply if given)."""

    kind: Literal["droptail"] = "droptail"
    limit_pkts: Count | None = None
    """Capacity in packets (the packet in transmission is not counted)."""
    limit_bytes: Size | None = None
    """Capacity in bytes."""

    @model_validator(mode="after")
    def _has_limit(self) -> DropTail:
        if self.limit_pkts is None and self.limit_bytes is None:
            _raise_problems([(("limit_pkts",), "a droptail queue needs limit_pkts and/or limit_bytes")])
        return self

    def engine_spec(self) -> dict[str, Any]:
        return {"kind": self.kind, "limit_pkts": self.limit_pkts, "limit_bytes": self.limit_bytes}


# One discipline for now. When more land, this becomes a tagged union like `CongestionControl`.
Qdisc = Annotated[DropTail, _normalize_kind("queue discipline", ["droptail"])]


# -- links and hosts --------------------------------------------------------------------------


class LinkOverride(_Model):
    """Per-direction overrides of a link; unset fields keep the edge's value."""

    rate: Rate | None = None
    delay: Duration | None = None
    loss: Loss | None = None
    qdisc: Qdisc | None = None


def _edge_spec(rate: int, delay: int, loss: float, qdisc: DropTail, override: LinkOverride | None) -> dict[str, Any]:
    """One simplex link of the engine spec; ``override`` fields win over the arguments."""
    o = override or LinkOverride()
    return {
        "rate_bps": rate if o.rate is None else o.rate,
        "delay_ns": delay if o.delay is None else o.delay,
        "loss": loss if o.loss is None else o.loss,
        "qdisc": (qdisc if o.qdisc is None else o.qdisc).engine_spec(),
    }


class Bottleneck(_Model):
    """The A -> B link (data direction): the queue under study."""

    rate: Rate
    delay: Duration
    """One-way propagation delay."""
    loss: Loss = 0.0
    """Random loss probability after serialization."""
    qdisc: Qdisc


class Host(_Model):
    """A sender (attached to router A) or receiver (attached to router B).

    ``rate``, ``delay``, ``loss`` and ``qdisc`` apply to both directions of the access edge;
    ``up`` (host -> router) and ``down`` (router -> host) override them per direction.
    """

    name: NodeName
    rate: Rate
    delay: Duration
    """One-way propagation delay host <-> router."""
    loss: Loss = 0.0
    qdisc: Qdisc | None = None
    """Egress queue of both directions; default: topology.default_qdisc."""
    up: LinkOverride | None = None
    down: LinkOverride | None = None

    def engine_spec(self, default_qdisc: DropTail) -> dict[str, Any]:
        qdisc = self.qdisc or default_qdisc
        return {
            "name": self.name,
            "up": _edge_spec(self.rate, self.delay, self.loss, qdisc, self.up),
            "down": _edge_spec(self.rate, self.delay, self.loss, qdisc, self.down),
        }


_ROUTERS: Final = ("A", "B")


class Dumbbell(_Model):
    """Senders -- A == bottleneck == B -- receivers."""

    kind: Literal["dumbbell"] = "dumbbell"
    bottleneck: Bottleneck
    reverse: LinkOverride | None = None
    """The B -> A link (ACKs). Default: the bottleneck's rate and delay, no loss, default_qdisc."""
    default_qdisc: Qdisc = DropTail(limit_pkts=1000)
    """Egress queue of every link that sets none (like Linux net.core.default_qdisc; 1000 packets
    is Linux's default txqueuelen), i.e. all access links and the reverse link."""
    senders: list[Host]
    receivers: list[Host]

    @model_validator(mode="after")
    def _check_nodes(self) -> Dumbbell:
        problems: list[tuple[Loc, str]] = []
        for role in ("senders", "receivers"):
            if not getattr(self, role):
                problems.append(
                    ((role,), 'needs at least one host, e.g. [{ name = "N1", rate = "100Mbps", delay = "1ms" }]')
                )
        seen: set[str] = set()
        for role in ("senders", "receivers"):
            for i, host in enumerate(getattr(self, role)):
                if host.name in _ROUTERS:
                    problems.append(((role, i, "name"), f"{show(host.name)} is reserved for a router (A, B)"))
                elif host.name in seen:
                    problems.append(
                        ((role, i, "name"), f"duplicate node name {show(host.name)}; node names must be unique")
                    )
                seen.add(host.name)
        _raise_problems(problems)
        return self

    def engine_spec(self) -> dict[str, Any]:
        b = self.bottleneck
        return {
            "kind": self.kind,
            "forward": _edge_spec(b.rate, b.delay, b.loss, b.qdisc, None),
            "reverse": _edge_spec(b.rate, b.delay, 0.0, self.default_qdisc, self.reverse),
            "senders": [h.engine_spec(self.default_qdisc) for h in self.senders],
            "receivers": [h.engine_spec(self.default_qdisc) for h in self.receivers],
        }


# -- TCP --------------------------------------------------------------------------------------


class TcpConfig(_Model):
    """TCP endpoint parameters. Defaults follow Linux (and RFC 6298 except min_rto, as Linux).

    With the defaults a full segment is 1448 + 52 = 1500 bytes on the wire (1500 B MTU; 52 B =
    IPv4 20 + TCP 20 + timestamps option 12).
    """

    mss: Size = 1448
    """Payload bytes per segment."""
    header_size: Size = 52
    """IP + TCP header bytes added to every data segment."""
    ack_size: Size = 52
    """Bytes of a pure ACK on the wire."""
    sack: Flag = True
    """SACK with RFC 6675 recovery; false: NewReno (RFC 6582) recovery."""
    delayed_ack: Flag = True
    """ACK every second full segment (RFC 1122 / 5681) or on delack_timeout."""
    delack_timeout: Duration = 40 * MS
    """Delayed-ACK timer (Linux minimum 40 ms)."""
    initial_cwnd: Count = 10
    """Initial window in segments (RFC 6928)."""
    min_rto: Duration = 200 * MS
    """Lower bound of the RTO (Linux TCP_RTO_MIN; RFC 6298 says 1 s)."""
    initial_rto: Duration = 1 * S
    """RTO before the first RTT sample (RFC 6298)."""
    max_rto: Duration = 60 * S
    """Upper bound of the RTO (RFC 6298 allows >= 60 s)."""
    ecn: Flag = False
    """Negotiate ECN (RFC 3168)."""
    rwnd: Size | None = None
    """Receiver window in bytes; unset: unlimited."""

    def problems(self) -> list[tuple[Loc, str]]:
        """Cross-field checks, run on the effective config of each flow group."""
        out: list[tuple[Loc, str]] = []
        rto_range = f"[min_rto, max_rto] = [{format_duration(self.min_rto)}, {format_duration(self.max_rto)}]"
        if self.min_rto == 0:
            out.append((("min_rto",), 'must be positive, e.g. "200ms"'))
        if self.min_rto > self.max_rto:
            out.append(
                (("min_rto",), f"must not exceed max_rto ({format_duration(self.max_rto)}) {_got(self.min_rto)}")
            )
        elif not self.min_rto <= self.initial_rto <= self.max_rto:
            out.append((("initial_rto",), f"must be within {rto_range} {_got(self.initial_rto)}"))
        if self.delayed_ack and self.delack_timeout == 0:
            out.append((("delack_timeout",), 'must be positive when delayed_ack = true, e.g. "40ms"'))
        if self.rwnd is not None and self.rwnd < self.mss:
            out.append((("rwnd",), f"must be at least one mss ({self.mss} B) (got {show(format_size(self.rwnd))})"))
        return out

    def engine_spec(self) -> dict[str, Any]:
        return {
            "mss_bytes": self.mss,
            "header_bytes": self.header_size,
            "ack_bytes": self.ack_size,
            "sack": self.sack,
            "delayed_ack": self.delayed_ack,
            "delack_timeout_ns": self.delack_timeout,
            "initial_cwnd_pkts": self.initial_cwnd,
            "min_rto_ns": self.min_rto,
            "initial_rto_ns": self.initial_rto,
            "max_rto_ns": self.max_rto,
            "ecn": self.ecn,
            "rwnd_bytes": self.rwnd,
        }


# -- congestion control -----------------------------------------------------------------------


class Reno(_Model):
    """NewReno (RFC 5681, RFC 6582); ``newreno`` is an alias."""

    kind: Literal["reno", "newreno"] = "reno"

    def engine_spec(self) -> dict[str, Any]:
        return {"kind": self.kind}


class Cubic(_Model):
    """CUBIC (RFC 9438); defaults as RFC 9438 and Linux tcp_cubic.c."""

    kind: Literal["cubic"] = "cubic"
    beta: Annotated[float, Strict(), _require(lambda b: 0.0 < b < 1.0, "must be in (0, 1)")] = 0.7
    """Multiplicative decrease factor (cwnd *= beta on loss)."""
    c: Annotated[float, Strict(), _require(lambda c: c > 0.0, "must be positive")] = 0.4
    """Cubic scaling constant C, in segments / s^3."""
    fast_convergence: Flag = True
    tcp_friendliness: Flag = True
    """Never grow slower than the Reno-friendly estimate (RFC 9438 section 4.3)."""

    def engine_spec(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "c": self.c,
            "beta": self.beta,
            "fast_convergence": self.fast_convergence,
            "tcp_friendliness": self.tcp_friendliness,
        }


_CC_TAGS: Final = {"reno": "reno", "newreno": "reno", "cubic": "cubic"}
CongestionControl = Annotated[
    Annotated[Reno, Tag(_TAG + "reno")] | Annotated[Cubic, Tag(_TAG + "cubic")],
    Discriminator(_tag_by(lambda v: _CC_TAGS.get(v.get("kind")))),
    _normalize_kind("congestion control", _CC_TAGS),
]
"""``"cubic"`` or ``{ kind = "cubic", beta = 0.7, ... }``."""


# -- flow start times -------------------------------------------------------------------------


class FixedStart(_Model):
    """Start at a fixed time."""

    at: Duration

    @property
    def bounds(self) -> tuple[int, int]:
        """Earliest and latest possible start, ns."""
        return self.at, self.at

    def engine_spec(self) -> dict[str, Any]:
        return {"kind": "fixed", "at_ns": self.at}


class UniformStart(_Model):
    """Start at a time drawn uniformly from [from, to] by the engine (per-flow RNG stream)."""

    uniform: tuple[Duration, Duration]

    @model_validator(mode="after")
    def _ordered(self) -> UniformStart:
        lo, hi = self.uniform
        if lo > hi:
            _raise_problems(
                [(("uniform",), f"needs from <= to (got [{show(format_duration(lo))}, {show(format_duration(hi))}])")]
            )
        return self

    @property
    def bounds(self) -> tuple[int, int]:
        """Earliest and latest possible start, ns."""
        return self.uniform

    def engine_spec(self) -> dict[str, Any]:
        return {"kind": "uniform", "from_ns": self.uniform[0], "to_ns": self.uniform[1]}


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


# -- flows ------------------------------------------------------------------------------------


class FlowGroup(_Model):
    """Bulk TCP flows: ``per_pair`` flows for every (src, dst) in src x dst."""

    src: NodeList
    """Sender name(s)."""
    dst: NodeList
    """Receiver name(s)."""
    per_pair: Count = 1
    cc: CongestionControl
    start: Start = FixedStart(at=0)
    stop: Duration | None = None
    """Time the sender stops sending new data; unset: runs to the end."""
    tcp: TcpConfig | None = None
    """Overrides of the scenario's [tcp] for this group: only the fields given here apply."""

    @field_serializer("tcp")
    def _dump_tcp_overrides(self, tcp: TcpConfig | None, info: FieldSerializationInfo) -> Any:
        # Only the fields the user set, so a round trip does not pin the other fields.
        return None if tcp is None else tcp.model_dump(mode=info.mode, exclude_unset=True)


class ExpandedFlow(NamedTuple):
    """One flow of the engine spec."""

    name: str
    """``"<src>-<dst>.<k>"``, k counting that pair's flows across all groups in order."""
    group: int
    """Index of its flow group."""
    src: int
    """Index into topology.senders."""
    dst: int
    """Index into topology.receivers."""


# -- scenario ---------------------------------------------------------------------------------


class Scenario(_Model):
    """One simulation run. See module docstring and studies/*.toml."""

    name: ScenarioName
    description: str = ""
    duration: Duration
    """Simulated time."""
    warmup: Duration = 0
    """Measurements cover [warmup, duration]."""
    seed: Seed = 1
    sample_interval: Duration = 10 * MS
    """Period of the queue-length (and cwnd) time series."""
    cwnd_trace: Flag = False
    """Record every flow's cwnd and ssthresh each sample_interval."""
    topology: Dumbbell
    tcp: TcpConfig = TcpConfig()
    """Defaults for every flow."""
    flows: list[FlowGroup]

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        _raise_problems(self._problems())
        return self

    def _problems(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        duration = format_duration(self.duration)
        if self.duration == 0:
            out.append((("duration",), 'must be positive, e.g. "100s"'))
        if self.warmup >= self.duration:
            out.append((("warmup",), f"must be shorter than duration ({duration}) {_got(self.warmup)}"))
        if not 0 < self.sample_interval <= self.duration:
            out.append((("sample_interval",), f"must be in (0, duration = {duration}] {_got(self.sample_interval)}"))
        out += [(("tcp", *loc), msg) for loc, msg in self.tcp.problems()]
        if not self.flows:
            out.append((("flows",), 'needs at least one [[flows]] group, e.g. src = "N1", dst = "N4", cc = "cubic"'))
        for i, group in enumerate(self.flows):
            out += [(("flows", i, *loc), msg) for loc, msg in self._group_problems(group)]
        return out

    def _group_problems(self, group: FlowGroup) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        for field, role, other in (("src", "senders", "receivers"), ("dst", "receivers", "senders")):
            names: list[str] = getattr(group, field)
            defined = ", ".join(h.name for h in getattr(self.topology, role))
            wrong_side = {h.name for h in getattr(self.topology, other)}
            if not names:
                out.append(((field,), f"needs at least one of the {role}: {defined}"))
            for j, name in enumerate(names):
                if name in wrong_side:
                    out.append(((field, j), f"{show(name)} is one of the {other}; {field} must be one of: {defined}"))
                elif name not in {h.name for h in getattr(self.topology, role)}:
                    out.append(((field, j), f"unknown node {show(name)}; {role} are: {defined}"))
                elif name in names[:j]:
                    out.append(((field, j), f"{show(name)} is listed twice; use per_pair for several flows per pair"))
        latest_start = group.start.bounds[1]
        duration = format_duration(self.duration)
        if latest_start >= self.duration:
            out.append((("start",), f"must be before duration ({duration}) {_got(latest_start)}"))
        if group.stop is not None and not latest_start < group.stop <= self.duration:
            window = f"({format_duration(latest_start)}, duration = {duration}]"
            out.append((("stop",), f"must be in {window} {_got(group.stop)}; omit it to run to the end"))
        if group.tcp is not None:  # problems of [tcp] itself are reported once, under "tcp"
            inherited = self.tcp.problems()
            out += [(("tcp", *p[0]), p[1]) for p in self.tcp_for(group).problems() if p not in inherited]
        return out

    # -- construction ----------------------------------------------------------------------

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], source: str | None = None) -> Scenario:
        """Validate a TOML-shaped mapping; raise ScenarioError listing every problem."""
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ScenarioError(_problems_from(exc), source) from None

    @classmethod
    def from_toml(cls, source: str | Path) -> Scenario:
        """Load a study file: a ``Path``, a ``str`` ending in ``.toml`` (a path) or TOML text."""
        if isinstance(source, Path) or ("\n" not in source and source.strip().endswith(".toml")):
            label, text = str(source), Path(source).read_text(encoding="utf-8")
        else:
            label, text = "<string>", source
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError([("", f"invalid TOML: {exc}")], label) from None
        return cls.from_dict(data, label)

    @classmethod
    def coerce(cls, source: Scenario | Mapping[str, Any] | str | Path) -> Scenario:
        """A Scenario from a Scenario, a TOML-shaped mapping, a TOML file path or TOML text."""
        if isinstance(source, Scenario):
            return source
        if isinstance(source, Mapping):
            return cls.from_dict(source)
        return cls.from_toml(source)

    def with_overrides(self, **changes: Any) -> Scenario:
        """A re-validated copy with top-level fields replaced, e.g. ``with_overrides(seed=2, duration="5s")``."""
        return Scenario.from_dict({**self.model_dump(), **changes}, source=f"{self.name} with overrides")

    # -- lowering ---------------------------------------------------------------------------

    def tcp_for(self, group: FlowGroup) -> TcpConfig:
        """The effective TCP config of a flow group: [tcp] with the group's overrides applied."""
        if group.tcp is None:
            return self.tcp
        return self.tcp.model_copy(update={k: getattr(group.tcp, k) for k in group.tcp.model_fields_set})

    def expand_flows(self) -> list[ExpandedFlow]:
        """All flows in engine order: group order, then src, then dst (as listed), then index."""
        senders = {h.name: i for i, h in enumerate(self.topology.senders)}
        receivers = {h.name: i for i, h in enumerate(self.topology.receivers)}
        per_pair_count: dict[tuple[str, str], int] = {}
        flows: list[ExpandedFlow] = []
        for g, group in enumerate(self.flows):
            for src in group.src:
                for dst in group.dst:
                    for _ in range(group.per_pair):
                        k = per_pair_count.get((src, dst), 0)
                        per_pair_count[(src, dst)] = k + 1
                        flows.append(ExpandedFlow(f"{src}-{dst}.{k}", g, senders[src], receivers[dst]))
        return flows

    def to_engine_spec(self) -> dict[str, Any]:
        """The engine spec (docs/design.md "Engine interface"): JSON-ready, SI integers."""
        flows = []
        for flow in self.expand_flows():
            group = self.flows[flow.group]
            flows.append(
                {
                    "name": flow.name,
                    "src": flow.src,
                    "dst": flow.dst,
                    "cc": group.cc.engine_spec(),
                    "tcp": self.tcp_for(group).engine_spec(),
                    "start": group.start.engine_spec(),
                    "stop_ns": group.stop,
                }
            )
        return {
            "seed": self.seed,
            "duration_ns": self.duration,
            "warmup_ns": self.warmup,
            "sample_interval_ns": self.sample_interval,
            "cwnd_trace": self.cwnd_trace,
            "topology": self.topology.engine_spec(),
            "flows": flows,
        }
