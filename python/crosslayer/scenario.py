"""Scenario (study file) models: TOML in, validated models, engine spec out.

A scenario is one simulation run: a dumbbell topology, TCP defaults and flow groups. Study files
are TOML (see ``studies/`` for annotated examples); every quantity is a unit string parsed by
:mod:`crosslayer.units`. After validation, every time field holds integer nanoseconds, every
rate integer bit/s and every size integer bytes; :meth:`Scenario.to_engine_spec` lowers the
models to the JSON shape of docs/design.md ("Engine interface").

The models of congestion controls, queue disciplines and TCP options are built from the engine's
catalog (:mod:`crosslayer.catalog`): their fields, units and defaults are the engine's
declarations, and their ranges and cross-field rules are checked by the engine's own functions,
so what validates here runs there.

Validation happens once, here, with messages that name the field path and the fix; all problems
are collected into one :class:`ScenarioError` (unknown keys included, with a did-you-mean hint).
Models are frozen; use :meth:`Scenario.with_overrides` to derive a variant (it re-validates).
"""

from __future__ import annotations

import difflib
import json
import re
import tomllib
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Annotated, Any, ClassVar, Final, Literal, NamedTuple, Union

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Discriminator,
    FieldSerializationInfo,
    ModelWrapValidatorHandler,
    PlainSerializer,
    Strict,
    Tag,
    TypeAdapter,
    ValidationError,
    create_model,
    field_serializer,
    model_validator,
)
from pydantic_core import PydanticCustomError

from crosslayer.catalog import FAMILY_TITLES, Algorithm, Family, Param, catalog, check, engine, format_value
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
    "AlgorithmConfig",
    "Bottleneck",
    "CcConfig",
    "Dumbbell",
    "ExpandedFlow",
    "FixedStart",
    "FlowGroup",
    "Host",
    "LinkOverride",
    "QdiscConfig",
    "Scenario",
    "ScenarioError",
    "TcpConfig",
    "UniformStart",
    "algorithm_model",
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


def _printable(text: str) -> str:
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


class ScenarioError(ValueError):
    """An invalid scenario. ``problems`` lists (field path, message); ``str()`` shows them all."""

    def __init__(self, problems: list[Problem], source: str | None = None) -> None:
        # Paths and messages may quote what the user wrote: keep them printable (lone surrogates
        # and other unencodable characters are escaped).
        problems = [(_printable(path), _printable(message)) for path, message in problems]
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
    if kind == "too_long":
        return f"must be a list of at most {error['ctx']['max_length']} values (got {show(value)})"
    if kind == "too_short":
        return f"must be a list of at least {error['ctx']['min_length']} values (got {show(value)})"
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


# ---------------------------------------------------------------------------------------------
# Models


def _relative_problems(error: ValidationError) -> list[tuple[Loc, str]]:
    """A ValidationError as (location, message) pairs relative to the model that raised it."""
    out: list[tuple[Loc, str]] = []
    for err in error.errors(include_url=False):
        loc = tuple(p for p in err["loc"] if not (isinstance(p, str) and p.startswith(_TAG)))
        if err["type"] == _PROBLEMS:
            out += [(loc + tuple(rel), msg) for rel, msg in err["ctx"]["problems"]]
        else:
            out.append((loc, _message(err)))
    return out


class _Model(BaseModel):
    """Base: frozen; unknown keys are reported with a did-you-mean hint, together with every
    other problem of the model (an unknown key does not hide the rest)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    @model_validator(mode="wrap")
    @classmethod
    def _reject_unknown_fields(cls, data: Any, handler: ModelWrapValidatorHandler[Any]) -> Any:
        if not isinstance(data, Mapping):
            return handler(data)
        valid = list(cls.model_fields)
        unknown = [key for key in data if key not in cls.model_fields]
        if not unknown:
            return handler(data)
        problems: list[tuple[Loc, str]] = []
        for key in unknown:
            close = difflib.get_close_matches(str(key), valid, n=1)
            hint = f'did you mean "{close[0]}"? ' if close else ""
            problems.append(((str(key),), f"unknown field; {hint}valid fields: {', '.join(valid)}"))
        try:
            model = handler({k: v for k, v in data.items() if k in cls.model_fields})
        except ValidationError as exc:
            problems += _relative_problems(exc)
        else:
            # The model's own checks (after-validators) do not run inside this validator.
            problems += [p for p in model._checks() if p not in problems]
        _raise_problems(problems)

    def _checks(self) -> list[tuple[Loc, str]]:
        """Problems found after the fields validated (cross-field and engine checks); the
        models that have such checks run them in an after-validator through this method."""
        return []


def _normalize_kind(what: str, known: Iterable[str]) -> BeforeValidator:
    """Accept ``"cubic"`` for ``{ kind = "cubic" }``; check the kind (case-insensitive)."""
    known = list(known)
    example = known[0]  # the first registered (reno, droptail): a familiar name
    known = sorted(known)
    forms = f'must be a name like "{example}" or a table like {{ kind = "{example}", ... }}'

    def normalize(value: Any) -> Any:
        if isinstance(value, str):
            value = {"kind": value}
        if isinstance(value, BaseModel):
            return value
        if not isinstance(value, Mapping):
            raise _error("kind_form", f"{forms} (got {show(value)})")
        kind = value.get("kind")
        if not isinstance(kind, str):
            raise _error("missing_kind", f"{what} needs a kind, one of: {', '.join(known)}")
        if kind.lower() not in known:
            close = difflib.get_close_matches(kind.lower(), known, n=1)
            hint = f' (did you mean "{close[0]}"?)' if close else ""
            raise _error("unknown_kind", f"unknown {what} {show(kind)}{hint}; known: {', '.join(known)}")
        return {**value, "kind": kind.lower()}

    return BeforeValidator(normalize)


def _tag_by(key: Callable[[Any], str | None]) -> Callable[[Any], str | None]:
    """Discriminator: map the raw value (dict or model) to its union tag."""

    def tag(value: Any) -> str | None:
        if isinstance(value, BaseModel):
            value = value.model_dump()
        if not isinstance(value, Mapping):
            return None
        name = key(value)
        return None if name is None else _TAG + name

    return tag


# -- algorithms and TCP options, from the engine's catalog ------------------------------------


def _real(value: Any) -> Any:
    """A real number: TOML floats and integers (``beta = 1`` is 1.0), not booleans or strings."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a number (got {show(value)})")
    return float(value)


_UNIT_TYPES: Final[dict[str, Any]] = {
    "time": Duration,
    "rate": Rate,
    "size": Size,
    "flag": Flag,
    "ratio": Annotated[float, BeforeValidator(_real)],
    "number": Annotated[float, BeforeValidator(_real)],
    "packets": Annotated[int, Strict()],
    "count": Annotated[int, Strict()],
}


def _bounded(base: Any, p: Param, int_max: int | None) -> Any:
    """An integer parameter bounded by its engine type: unsigned (a negative value names the
    parameter's range, as the engine states it) and at most the type's largest value."""
    if int_max is None:
        return base
    shown = format_value(p, int_max)
    low = f"must be {p.range}" if p.range and p.range != "any value" else "must be >= 0"
    return Annotated[base, _require(lambda v: v >= 0, low), _require(lambda v: v <= int_max, f"must be at most {shown}")]


def _nested_qdisc(value: Any) -> Any:
    """A queue discipline inside another (a class's own): validated as ``QdiscConfig`` (defined
    below, after the models this function helps to build)."""
    return _QDISC.validate_python(value)


def _param_type(p: Param) -> Any:
    """The pydantic type of a catalog parameter: its unit's parser, and the engine type's bound.

    Structured parameters: ``list`` (each element a scalar of the parameter's unit, or a table
    of parameters, e.g. the classes of ``classes``) and a nested queue discipline (unit
    ``qdisc``).
    """
    if p.unit == "qdisc":
        base: Any = Annotated[Any, BeforeValidator(_nested_qdisc)]
    elif p.type == "list":
        items = p.items or {}
        if items.get("type") == "table" and "params" in items:
            element: Any = _table_model(p.name, tuple(Param.from_json(q) for q in items["params"]))
        elif items.get("type") == "table":
            element = Annotated[Any, BeforeValidator(_nested_qdisc)]
        else:
            scalar = Literal[tuple(p.choices)] if p.unit == "choice" else _UNIT_TYPES[p.unit]
            element = _bounded(scalar, p, items.get("int_max"))
        base = list[element]
    else:
        scalar = Literal[tuple(p.choices)] if p.unit == "choice" else _UNIT_TYPES[p.unit]
        base = _bounded(scalar, p, p.int_max)
    return base | None if p.optional else base


def _to_engine(value: Any) -> Any:
    """A parameter value in engine form: nested disciplines and tables become their specs."""
    if isinstance(value, (AlgorithmConfig, ParamTable)):
        return value.engine_spec()
    if isinstance(value, list):
        return [_to_engine(v) for v in value]
    return value


class ParamTable(_Model):
    """One element of a list of parameter tables (e.g. a class of ``classes``); the engine
    checks its ranges as part of the configuration that holds it."""

    _params: ClassVar[tuple[Param, ...]]

    def engine_spec(self) -> dict[str, Any]:
        return {p.name: _to_engine(getattr(self, p.name)) for p in self._params}


def _table_model(name: str, params: tuple[Param, ...]) -> type[ParamTable]:
    fields = {q.name: (_param_type(q), q.default) for q in params}
    model = create_model(_class_name(name.rstrip("s")) + "Entry", __base__=ParamTable, **fields)
    model._params = params
    return model


def _got_param(param: Param | None, value: Any) -> str:
    """`` (got "5ms")``: a parameter value as the user writes it."""
    if param is None:
        return ""
    if param.unit in ("time", "rate", "size") and value is not None:
        return f" (got {show(format_value(param, value))})"
    return f" (got {show(value)})"


def _engine_problems(section: str, params: tuple[Param, ...], values: Mapping[str, Any], config: dict[str, Any], what: str) -> list[tuple[Loc, str]]:
    """The engine's checks of a configuration, as (field, message + the value) pairs."""
    by_name = {p.name: p for p in params}
    return [
        ((name,) if name else (), message + _got_param(by_name.get(name), values.get(name)))
        for name, message in check(section, config, what)
    ]


class AlgorithmConfig(_Model):
    """Base of the congestion-control and queue-discipline models built from the catalog."""

    _algorithm: ClassVar[Algorithm]
    kind: str

    @model_validator(mode="after")
    def _engine_checks(self) -> AlgorithmConfig:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        a = self._algorithm
        return _engine_problems(a.family, a.params, self.params(), self.engine_spec(), "all")

    def params(self) -> dict[str, Any]:
        """Parameter values in engine units."""
        return {p.name: _to_engine(getattr(self, p.name)) for p in self._algorithm.params}

    def engine_spec(self) -> dict[str, Any]:
        return {"kind": self._algorithm.name, **self.params()}


def _class_name(name: str) -> str:
    return "".join(part.capitalize() for part in re.split(r"[_\W]+", name) if part)


def _algorithm_model(a: Algorithm) -> type[AlgorithmConfig]:
    fields: dict[str, Any] = {"kind": (Literal[a.names], a.name)}
    for p in a.params:
        fields[p.name] = (_param_type(p), p.default)
    model = create_model(_class_name(a.name), __base__=AlgorithmConfig, __doc__=f"{a.summary}.", **fields)
    model._algorithm = a
    return model


_MODELS: Final[dict[str, dict[str, type[AlgorithmConfig]]]] = {
    family: {a.name: _algorithm_model(a) for a in catalog().family(family).values()} for family in ("cc", "aqm")
}


def algorithm_model(family: Family, kind: str) -> type[AlgorithmConfig]:
    """The model of a registered algorithm, by name or alias."""
    a = catalog().lookup(family, kind)
    if a is None:
        raise KeyError(f"unknown {FAMILY_TITLES[family]} {kind!r}")
    return _MODELS[family][a.name]


def _family_type(family: Family) -> Any:
    """``"cubic"`` or ``{ kind = "cubic", beta = 0.7, ... }``: a union tagged by kind."""
    algorithms = catalog().family(family)
    to_name = {n: a.name for a in algorithms.values() for n in a.names}
    members = tuple(Annotated[_MODELS[family][n], Tag(_TAG + n)] for n in algorithms)
    union = Union[members] if len(members) > 1 else members[0]  # noqa: UP007 (built at run time)
    parts: list[Any] = [union]
    if len(members) > 1:
        parts.append(Discriminator(_tag_by(lambda v: to_name.get(v.get("kind")))))
    return Annotated[tuple(parts) + (_normalize_kind(FAMILY_TITLES[family], to_name),)]  # type: ignore[misc]


CcConfig = _family_type("cc")
"""A congestion control: ``"cubic"`` or ``{ kind = "cubic", beta = 0.7, ... }``."""
QdiscConfig = _family_type("aqm")
"""A queue discipline: ``"codel"`` or ``{ kind = "droptail", limit_pkts = 900 }``."""
_QDISC: Final = TypeAdapter(QdiscConfig)


# -- links and hosts --------------------------------------------------------------------------


class LinkOverride(_Model):
    """Per-direction overrides of a link; unset fields keep the edge's value."""

    rate: Rate | None = None
    delay: Delay | None = None
    loss: Loss | None = None
    jitter: Delay | None = None
    qdisc: QdiscConfig | None = None


def _edge_spec(
    rate: int, delay: int, loss: float, jitter: int, qdisc: AlgorithmConfig, override: LinkOverride | None
) -> dict[str, Any]:
    """One simplex link of the engine spec; ``override`` fields win over the arguments."""
    o = override or LinkOverride()
    return {
        "rate": rate if o.rate is None else o.rate,
        "delay": delay if o.delay is None else o.delay,
        "loss": loss if o.loss is None else o.loss,
        "jitter": jitter if o.jitter is None else o.jitter,
        "qdisc": (qdisc if o.qdisc is None else o.qdisc).engine_spec(),
    }


class Bottleneck(_Model):
    """The A -> B link (data direction): the queue under study."""

    rate: Rate
    delay: Delay
    """One-way propagation delay."""
    loss: Loss = 0.0
    """Random loss probability after serialization."""
    jitter: Delay = 0
    """Extra delay per packet, uniform in [0, jitter], order-preserving (breaks phase effects)."""
    qdisc: QdiscConfig


class Host(_Model):
    """A sender (attached to router A) or receiver (attached to router B).

    ``rate``, ``delay``, ``loss`` and ``qdisc`` apply to both directions of the access edge;
    ``up`` (host -> router) and ``down`` (router -> host) override them per direction.
    """

    name: NodeName
    rate: Rate
    delay: Delay
    """One-way propagation delay host <-> router."""
    loss: Loss = 0.0
    jitter: Delay = 0
    """Extra delay per packet on both directions, uniform in [0, jitter], order-preserving."""
    qdisc: QdiscConfig | None = None
    """Egress queue of both directions; default: topology.default_qdisc."""
    up: LinkOverride | None = None
    down: LinkOverride | None = None

    def engine_spec(self, default_qdisc: AlgorithmConfig) -> dict[str, Any]:
        qdisc = self.qdisc or default_qdisc
        return {
            "name": self.name,
            "up": _edge_spec(self.rate, self.delay, self.loss, self.jitter, qdisc, self.up),
            "down": _edge_spec(self.rate, self.delay, self.loss, self.jitter, qdisc, self.down),
        }


_ROUTERS: Final = ("A", "B")


class Dumbbell(_Model):
    """Senders -- A == bottleneck == B -- receivers."""

    kind: Literal["dumbbell"] = "dumbbell"
    bottleneck: Bottleneck
    reverse: LinkOverride | None = None
    """The B -> A link (ACKs). Default: the bottleneck's rate and delay, no loss, default_qdisc."""
    default_qdisc: QdiscConfig = _QDISC.validate_python({"kind": "droptail", "limit_pkts": 1000})
    """Egress queue of every link that sets none (like Linux net.core.default_qdisc; 1000 packets
    is Linux's default txqueuelen), i.e. all access links and the reverse link."""
    senders: list[Host]
    receivers: list[Host]

    @model_validator(mode="after")
    def _check_nodes(self) -> Dumbbell:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
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
        return problems

    def engine_spec(self) -> dict[str, Any]:
        b = self.bottleneck
        return {
            "kind": self.kind,
            "forward": _edge_spec(b.rate, b.delay, b.loss, b.jitter, b.qdisc, None),
            "reverse": _edge_spec(b.rate, b.delay, 0.0, 0, self.default_qdisc, self.reverse),
            "senders": [h.engine_spec(self.default_qdisc) for h in self.senders],
            "receivers": [h.engine_spec(self.default_qdisc) for h in self.receivers],
        }


# -- TCP --------------------------------------------------------------------------------------


class _ParamSection(_Model):
    """A table of parameters the engine declares (``[tcp]``, ``[limits]``): fields, defaults and
    ranges are the engine's."""

    _section: ClassVar[str]
    _params: ClassVar[tuple[Param, ...]]

    @model_validator(mode="after")
    def _ranges(self) -> _ParamSection:
        _raise_problems(self._checks())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        spec = self.engine_spec()
        return _engine_problems(self._section, self._params, spec, spec, "ranges")

    def problems(self) -> list[tuple[Loc, str]]:
        """Rules between fields (e.g. min_rto <= initial_rto <= max_rto); for TCP they run on
        the effective config of each flow group."""
        spec = self.engine_spec()
        return _engine_problems(self._section, self._params, self.effective(), spec, "relations")

    def effective(self) -> dict[str, Any]:
        """The values in effect: unset profile-dependent options take their profile's value."""
        spec = self.engine_spec()
        profile = catalog().tcp_profiles.get(str(spec.get("profile", ""))) if self._section == "tcp" else None
        return {k: (profile[k] if v is None and profile and k in profile else v) for k, v in spec.items()}

    def engine_spec(self) -> dict[str, Any]:
        return {p.name: getattr(self, p.name) for p in self._params}


def _section_model(name: str, section: str, params: tuple[Param, ...], doc: str) -> Any:
    model = create_model(name, __base__=_ParamSection, __doc__=doc, **{p.name: (_param_type(p), p.default) for p in params})
    model._section, model._params = section, params
    return model


TcpConfig: Any = _section_model(
    "TcpConfig", "tcp", catalog().tcp, "TCP endpoint options (``crosslayer list tcp``): Linux defaults where the RFCs leave a choice."
)
RunLimits: Any = _section_model(
    "RunLimits", "limits", catalog().limits, "Safety limits of a run (``crosslayer list limits``)."
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


# -- flows ------------------------------------------------------------------------------------


Pairs = Literal["all", "zip"]
"""How a group pairs its src and dst hosts."""


def _pair_count(group: FlowGroup | UdpGroup) -> int:
    """How many (src, dst) pairs ``group`` has, without listing them."""
    return min(len(group.src), len(group.dst)) if group.pairs == "zip" else len(group.src) * len(group.dst)


def group_pairs(group: FlowGroup | UdpGroup) -> list[tuple[str, str]]:
    """The (src, dst) pairs a group's flows run between, in order: src x dst, or src[i] with
    dst[i] when ``pairs = "zip"``."""
    if group.pairs == "zip":
        return list(zip(group.src, group.dst))
    return [(src, dst) for src in group.src for dst in group.dst]


class FlowGroup(_Model):
    """Bulk TCP flows: ``per_pair`` flows for every (src, dst) in src x dst.

    Data goes from ``src`` to ``dst``: senders to receivers over A -> B, or, when every ``src``
    is a receiver and every ``dst`` a sender, receivers to senders over B -> A (a reverse group:
    two-way traffic).
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
    """Time the sender stops sending new data; unset: runs to the end."""
    tcp: TcpConfig | None = None
    """Overrides of the scenario's [tcp] for this group: only the fields given here apply."""
    dscp: Dscp = 0
    """DiffServ codepoint of the group's packets (class-based disciplines may classify by it)."""
    port: Port = 0
    """Service port of the group's flows (0: none; class-based disciplines may classify by it)."""

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
    dscp: Dscp = 0
    port: Port = 0


class ExpandedFlow(NamedTuple):
    """One flow of the engine spec."""

    name: str
    """``"<src>-<dst>.<k>"``, k counting that pair's flows across all groups in order."""
    group: int
    """Index of its flow group."""
    src: int
    """Index into topology.senders (topology.receivers when ``reverse``)."""
    dst: int
    """Index into topology.receivers (topology.senders when ``reverse``)."""
    reverse: bool = False
    """Data from a receiver host to a sender host, over B -> A."""


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
    series_queue: str = "bottleneck"
    """The queue the series table samples: "bottleneck" (A->B), "reverse" (B->A) or a link name
    such as "N1->A" or "B->N4"."""
    tie_break: Literal["fifo", "random"] = "fifo"
    """Order of events at the same nanosecond: as scheduled, or a seeded random order."""
    topology: Dumbbell
    tcp: TcpConfig = TcpConfig()
    """Defaults for every flow."""
    limits: RunLimits = RunLimits()
    """Safety limits: trace rows, events."""
    flows: list[FlowGroup] = []
    udp: list[UdpGroup] = []
    """Unresponsive constant-bit-rate flows."""

    @model_validator(mode="after")
    def _check(self) -> Scenario:
        _raise_problems(self._problems())
        return self

    def _checks(self) -> list[tuple[Loc, str]]:
        return self._problems()

    def flow_count(self) -> int:
        """How many flows the groups expand to (computed without expanding them)."""
        return sum(_pair_count(g) * g.per_pair for g in [*self.flows, *self.udp])

    def trace_rows(self) -> int:
        """Rows the series and (with cwnd_trace) the cwnd trace will hold at most."""
        if self.sample_interval == 0:
            return 0
        samples = self.duration // self.sample_interval + 1
        tcp_flows = sum(_pair_count(g) * g.per_pair for g in self.flows)
        return samples * (1 + tcp_flows if self.cwnd_trace else 1)

    def _problems(self) -> list[tuple[Loc, str]]:
        out = self._field_problems()
        if not out:
            # The engine's own check of the lowered spec: what validates here runs there. It
            # finds nothing the checks above missed unless crosslayer has a bug.
            try:
                engine().validate_json(json.dumps(self.to_engine_spec()))
            except ValueError as exc:
                out.append(((), f"the engine refused this scenario, which crosslayer's validation accepted (a bug: please report it with the study file): {exc}"))
        return out

    def _field_problems(self) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        duration = format_duration(self.duration)
        if self.duration == 0:
            out.append((("duration",), 'must be positive, e.g. "100s"'))
        elif self.duration > MAX_DURATION:
            out.append((("duration",), f"must be at most {format_duration(MAX_DURATION)} {_got(self.duration)}"))
        if self.warmup >= self.duration:
            out.append((("warmup",), f"must be shorter than duration ({duration}) {_got(self.warmup)}"))
        if not 0 < self.sample_interval <= self.duration:
            out.append((("sample_interval",), f"must be in (0, duration = {duration}] {_got(self.sample_interval)}"))
        out += [(("tcp", *loc), msg) for loc, msg in self.tcp.problems()]
        links = self.link_names()
        if self.series_queue not in ("bottleneck", "reverse", *links):
            out.append((("series_queue",), f'no such queue: "bottleneck", "reverse" or a link name ({", ".join(links)}) (got {show(self.series_queue)})'))
        if not self.flows and not self.udp:
            out.append((("flows",), 'needs at least one [[flows]] group, e.g. src = "N1", dst = "N4", cc = "cubic" (or a [[udp]] group)'))
        flows = self.flow_count()
        if flows > MAX_FLOWS:
            counts = " + ".join(f"{len(g.src)} x {len(g.dst)} x {g.per_pair}" if g.pairs == "all" else f"{_pair_count(g)} pairs x {g.per_pair}" for g in [*self.flows, *self.udp])
            out.append((("flows",), f"expand to {flows} flows ({counts}), more than {MAX_FLOWS}; lower per_pair"))
            return out  # the per-group checks below would walk every one of them
        for i, group in enumerate(self.flows):
            out += [(("flows", i, *loc), msg) for loc, msg in self._group_problems(group)]
        for i, udp in enumerate(self.udp):
            out += [(("udp", i, *loc), msg) for loc, msg in self._udp_problems(udp)]
        rows, limit = self.trace_rows(), self.limits.max_trace_rows
        if rows > limit and not out:
            what = "series and cwnd traces" if self.cwnd_trace else "series"
            out.append(
                (
                    ("sample_interval",),
                    f"the {what} would hold {rows:,} rows (about {rows * 80 / 1e9:.1f} GB), more than "
                    f"limits.max_trace_rows = {limit:,}: sample less often, or raise [limits] max_trace_rows "
                    f"{_got(self.sample_interval)}",
                )
            )
        return out

    def _udp_problems(self, group: UdpGroup) -> list[tuple[Loc, str]]:
        out = self._endpoint_problems(group)
        duration = format_duration(self.duration)
        if group.start >= self.duration:
            out.append((("start",), f"must be before duration ({duration}) {_got(group.start)}"))
        if group.stop is not None and not group.start < group.stop <= self.duration:
            out.append((("stop",), f"must be in ({format_duration(group.start)}, duration = {duration}] {_got(group.stop)}; omit it to run to the end"))
        if not 28 <= group.packet_size <= 65535:
            out.append((("packet_size",), f"must be in [28B, 65535B]: IPv4 and UDP headers at least, IPv4's limit at most (got {show(format_size(group.packet_size))})"))
        return out

    def is_reverse(self, group: FlowGroup | UdpGroup) -> bool:
        """Whether a group sends from receivers to senders (over B -> A): its first src host that
        is a node of the dumbbell is a receiver. Validation requires every src on that side and
        every dst on the other."""
        receivers = {h.name for h in self.topology.receivers}
        senders = {h.name for h in self.topology.senders}
        first = next((name for name in group.src if name in receivers or name in senders), None)
        return first in receivers

    def _endpoint_problems(self, group: FlowGroup | UdpGroup) -> list[tuple[Loc, str]]:
        out: list[tuple[Loc, str]] = []
        sides = {"senders": [h.name for h in self.topology.senders], "receivers": [h.name for h in self.topology.receivers]}
        reverse = self.is_reverse(group)
        roles = (("src", "receivers", "senders"), ("dst", "senders", "receivers")) if reverse else (("src", "senders", "receivers"), ("dst", "receivers", "senders"))
        first_src = next((n for n in group.src if n in sides["senders"] or n in sides["receivers"]), "")
        for field, role, other in roles:
            names: list[str] = getattr(group, field)
            defined = ", ".join(sides[role])
            if not names:
                out.append(((field,), f"needs at least one of the {role}: {defined}"))
            for j, name in enumerate(names):
                if name in sides[other]:
                    if field == "src":
                        problem = (
                            f"{show(name)} is one of the {other}, but {show(first_src)} (the first) is one of the {role}: "
                            f"a group's src hosts must all be senders (data towards the receivers) or all receivers "
                            f"(a reverse group, data towards the senders); put {show(name)} in a group of its own"
                        )
                    else:
                        problem = (
                            f"{show(name)} is one of the {other}, as src is: data crosses between the routers, "
                            f"so dst must be one of the {role}: {defined}"
                        )
                    out.append(((field, j), problem))
                elif name not in sides[role]:
                    out.append(((field, j), f"unknown node {show(name)}; {role} are: {defined}"))
                elif name in names[:j] and group.pairs == "all":
                    out.append(((field, j), f"{show(name)} is listed twice; use per_pair for several flows per pair"))
        if group.pairs == "zip":
            if len(group.src) != len(group.dst):
                out.append(((
                    "dst",
                ), f'pairs = "zip" pairs src[i] with dst[i], but src has {len(group.src)} hosts and dst {len(group.dst)}: list as many of each, or use pairs = "all" (src x dst)'))
            seen: set[tuple[str, str]] = set()
            for j, pair in enumerate(zip(group.src, group.dst)):
                if pair in seen:
                    out.append((("dst", j), f"the pair {show(pair[0])} -> {show(pair[1])} is listed twice; use per_pair for several flows per pair"))
                seen.add(pair)
        return out

    def _group_problems(self, group: FlowGroup) -> list[tuple[Loc, str]]:
        out = self._endpoint_problems(group)
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
        except RecursionError:
            raise ScenarioError([("", "values are nested too deeply to be a scenario")], source) from None

    @classmethod
    def from_toml(cls, source: str | Path) -> Scenario:
        """Load a study file: a ``Path``, a ``str`` ending in ``.toml`` (a path) or TOML text.

        Raises ScenarioError for anything that is not a valid study (bytes that are not UTF-8,
        invalid TOML, nesting deeper than the TOML reader follows, integers too long to read)
        and OSError if the file cannot be read.
        """
        if isinstance(source, Path) or ("\n" not in source and source.strip().endswith(".toml")):
            label = str(source)
            raw = Path(source).read_bytes()
            try:
                text = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                line = raw.count(b"\n", 0, exc.start) + 1
                column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
                problem = f"not UTF-8 text: byte 0x{raw[exc.start]:02x} at line {line}, column {column}; save the file as UTF-8"
                raise ScenarioError([("", problem)], label) from None
        else:
            label, text = "<string>", source
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ScenarioError([("", f"invalid TOML: {exc}")], label) from None
        except RecursionError:
            raise ScenarioError([("", "invalid TOML: arrays or tables nested too deeply")], label) from None
        except ValueError as exc:  # an integer of more than 4300 digits
            reason = "an integer has more than 4300 digits" if "digits" in str(exc) else str(exc)
            raise ScenarioError([("", f"invalid TOML: {reason}")], label) from None
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
        """A re-validated copy with fields replaced: top-level names or paths as a study file's
        axes take them, e.g. ``with_overrides(seed=2, duration="5s")`` or
        ``with_overrides(**{"topology.bottleneck.qdisc.kind": "codel", "flows[*].cc": "reno"})``
        (see :mod:`crosslayer.study`)."""
        from crosslayer.study import apply_overrides

        return apply_overrides(self, changes, source=f"{self.name} with overrides")

    # -- lowering ---------------------------------------------------------------------------

    def tcp_for(self, group: FlowGroup) -> TcpConfig:
        """The effective TCP config of a flow group: [tcp] with the group's overrides applied."""
        if group.tcp is None:
            return self.tcp
        return self.tcp.model_copy(update={k: getattr(group.tcp, k) for k in group.tcp.model_fields_set})

    def link_names(self) -> list[str]:
        """The dumbbell's simplex links, as the engine names them (``queues.link``)."""
        names = ["A->B", "B->A"]
        for h in self.topology.senders:
            names += [f"{h.name}->A", f"A->{h.name}"]
        for h in self.topology.receivers:
            names += [f"{h.name}->B", f"B->{h.name}"]
        return names

    def series_qdisc(self) -> dict[str, Any]:
        """The engine spec of the discipline on the queue ``series`` samples."""
        topo = self.topology.engine_spec()
        name = self.series_queue
        if name in ("bottleneck", "A->B"):
            return dict(topo["forward"]["qdisc"])
        if name in ("reverse", "B->A"):
            return dict(topo["reverse"]["qdisc"])
        for role, router in (("senders", "A"), ("receivers", "B")):
            for h in topo[role]:
                if name == f"{h['name']}->{router}":
                    return dict(h["up"]["qdisc"])
                if name == f"{router}->{h['name']}":
                    return dict(h["down"]["qdisc"])
        raise LookupError(f"no queue {name!r}")

    def _expand(self, groups: Sequence[FlowGroup | UdpGroup], suffix: str) -> Iterator[ExpandedFlow]:
        """Every flow of ``groups`` in engine order (group, then pair as listed, then index),
        named ``<src>-<dst>.<suffix><k>``, ``k`` counting that pair's flows over the groups."""
        senders = {h.name: i for i, h in enumerate(self.topology.senders)}
        receivers = {h.name: i for i, h in enumerate(self.topology.receivers)}
        count: dict[tuple[str, str], int] = {}
        for g, group in enumerate(groups):
            reverse = self.is_reverse(group)
            src_index, dst_index = (receivers, senders) if reverse else (senders, receivers)
            for src, dst in group_pairs(group):
                for _ in range(group.per_pair):
                    k = count.get((src, dst), 0)
                    count[(src, dst)] = k + 1
                    yield ExpandedFlow(f"{src}-{dst}.{suffix}{k}", g, src_index[src], dst_index[dst], reverse)

    def expand_flows(self) -> list[ExpandedFlow]:
        """All flows in engine order: group order, then src, then dst (as listed), then index."""
        return list(self._expand(self.flows, ""))

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
                    "reverse": flow.reverse,
                    "cc": group.cc.engine_spec(),
                    "tcp": self.tcp_for(group).engine_spec(),
                    "start": group.start.engine_spec(),
                    "stop": group.stop,
                    "dscp": group.dscp,
                    "port": group.port,
                }
            )
        udp: list[dict[str, Any]] = []
        for u in self._expand(self.udp, "udp"):
            group = self.udp[u.group]
            udp.append(
                {
                    "name": u.name,
                    "src": u.src,
                    "dst": u.dst,
                    "reverse": u.reverse,
                    "rate": group.rate,
                    "packet_size": group.packet_size,
                    "start": group.start,
                    "stop": group.stop,
                    "ecn": group.ecn,
                    "dscp": group.dscp,
                    "port": group.port,
                }
            )
        return {
            "seed": self.seed,
            "duration": self.duration,
            "warmup": self.warmup,
            "sample_interval": self.sample_interval,
            "cwnd_trace": self.cwnd_trace,
            "series_queue": {"bottleneck": "forward"}.get(self.series_queue, self.series_queue),
            "limits": self.limits.engine_spec(),
            "tie_break": self.tie_break,
            "topology": self.topology.engine_spec(),
            "flows": flows,
            "udp": udp,
        }
