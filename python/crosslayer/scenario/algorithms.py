"""The models of every congestion control and queue discipline and of the `[tcp]` and
`[limits]` tables, built from the engine's catalog: fields, units, defaults and ranges are the
engine's declarations, checked by the engine's own functions."""

from __future__ import annotations

import copy
import difflib
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    Field,
    PlainValidator,
    SerializeAsAny,
    Strict,
    TypeAdapter,
    create_model,
    model_validator,
)
from pydantic_core import PydanticKnownError

from crosslayer.catalog import (
    FAMILY_TITLES,
    Algorithm,
    Family,
    Param,
    catalog,
    check,
    format_value,
)
from crosslayer.scenario.errors import _TAG, Loc, _error, _Model, _raise_problems
from crosslayer.scenario.fields import Duration, Flag, Rate, Size, _require
from crosslayer.units import (
    show,
)


def _normalize_kind(what: str, known: Iterable[str]) -> Callable[[Any], Any]:
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

    return normalize


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


def _field(p: Param) -> tuple[Any, Any]:
    """A catalog parameter as a pydantic field: its type and its default. A list of parameter
    tables (the classes of ``classes``) defaults to its catalog value validated as a user would
    write it (``quantum = "1514B"``, a class's discipline by table), a fresh list per scenario:
    the same entries as the same classes written out, which serialize and re-validate as such
    (held as the catalog's bare dicts, they warned when dumped and failed an override)."""
    items = p.items or {}
    if p.type == "list" and items.get("type") == "table" and "params" in items:
        params = tuple(Param.from_json(q) for q in items["params"])
        table = _table_model(p.name, params)
        annotation = list[table] | None if p.optional else list[table]
        if not isinstance(p.default, list):
            return annotation, p.default
        # as written: each entry dumped by its fields' serializers (engine units to text)
        written = [table.model_construct(**copy.deepcopy(entry)).model_dump(mode="json") for entry in p.default]
        adapter = TypeAdapter(list[table])
        return annotation, Field(default_factory=lambda: adapter.validate_python(written))
    return _param_type(p), p.default


def _param_type(p: Param) -> Any:
    """The pydantic type of a catalog parameter: its unit's parser, and the engine type's bound.

    Structured parameters: ``list`` (each element a scalar of the parameter's unit or a queue
    discipline; a list of parameter tables, e.g. the classes of ``classes``, is ``_field``'s)
    and a nested queue discipline (unit ``qdisc``).
    """
    if p.unit == "qdisc":
        base: Any = Annotated[Any, BeforeValidator(_nested_qdisc)]
    elif p.type == "list":
        items = p.items or {}
        if items.get("type") == "table":  # disciplines (a list of parameter tables: `_field`)
            element: Any = Annotated[Any, BeforeValidator(_nested_qdisc)]
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
    fields = {q.name: _field(q) for q in params}
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


def _algorithm_model(a: Algorithm, base: type[AlgorithmConfig] = AlgorithmConfig) -> type[AlgorithmConfig]:
    """The model of algorithm ``a`` (or topology preset), built on ``base``."""
    fields: dict[str, Any] = {"kind": (Literal[a.names], a.name)}
    for p in a.params:
        fields[p.name] = _field(p)
    model = create_model(_class_name(a.name), __base__=base, __doc__=f"{a.summary}.", **fields)
    model._algorithm = a
    return model


@functools.cache
def _model(family: Family, name: str) -> type[AlgorithmConfig]:
    """The model of the registered algorithm ``name`` of ``family``, built when first used: a
    scenario with CUBIC over drop-tail builds two models, not one per algorithm."""
    return _algorithm_model(catalog().family(family)[name])


def algorithm_model(family: Family, kind: str) -> type[AlgorithmConfig]:
    """The model of a registered algorithm, by name or alias."""
    a = catalog().lookup(family, kind)
    if a is None:
        raise KeyError(f"unknown {FAMILY_TITLES[family]} {kind!r}")
    if family not in ("cc", "aqm"):  # a topology preset's model is the scenario's (topology.py)
        raise KeyError(family)
    return _model(family, a.name)


def _by_kind(base: type[AlgorithmConfig], kinds: Mapping[str, str], model: Callable[[str], type[AlgorithmConfig]], normalize: Callable[[Any], Any]) -> Any:
    """A field type validated by the model of the value's kind, built when first needed:
    ``normalize`` checks the value's form and kind, ``kinds`` maps a name or alias to the name
    ``model`` builds the model of. A model instance of its kind passes as it is."""

    def validate(value: Any) -> Any:
        value = normalize(value)
        raw = value.model_dump() if isinstance(value, BaseModel) else value
        name = kinds.get(raw.get("kind")) if isinstance(raw, Mapping) else None
        if name is None:  # a model of another family: the error a union tagged by kind gives
            raise PydanticKnownError("union_tag_not_found", {"discriminator": "tag()"})
        return model(name).__pydantic_validator__.validate_python(value)

    # SerializeAsAny: an instance dumps the fields of its own model, not only those of ``base``.
    return Annotated[SerializeAsAny[base], PlainValidator(validate)]  # type: ignore[valid-type]


def _family_type(family: Family) -> Any:
    """``"cubic"`` or ``{ kind = "cubic", beta = 0.7, ... }``: validated by its kind's model."""
    to_name = {n: a.name for a in catalog().family(family).values() for n in a.names}
    normalize = _normalize_kind(FAMILY_TITLES[family], to_name)
    return _by_kind(AlgorithmConfig, to_name, functools.partial(_model, family), normalize)


CcConfig = _family_type("cc")
"""A congestion control: ``"cubic"`` or ``{ kind = "cubic", beta = 0.7, ... }``."""
QdiscConfig = _family_type("aqm")
"""A queue discipline: ``"codel"`` or ``{ kind = "droptail", limit_pkts = 900 }``."""
_QDISC: Final = TypeAdapter(QdiscConfig)
_CC: Final = TypeAdapter(CcConfig)


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
    model = create_model(name, __base__=_ParamSection, __doc__=doc, **{p.name: _field(p) for p in params})
    model._section, model._params = section, params
    return model


TcpConfig: Any = _section_model(
    "TcpConfig", "tcp", catalog().tcp, "TCP endpoint options (``crosslayer list tcp``): Linux defaults where the RFCs leave a choice."
)
DcfConfig: Any = _section_model(
    "DcfConfig", "wlan", catalog().wlan, "A wireless LAN's IEEE 802.11 DCF and PHY (the catalog's ``wlan`` section; ``docs/models/wlan.md``): 802.11g ERP-OFDM defaults."
)
RunLimits: Any = _section_model(
    "RunLimits", "limits", catalog().limits, "Safety limits of a run (``crosslayer list limits``)."
)
