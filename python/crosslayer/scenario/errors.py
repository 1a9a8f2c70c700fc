"""Errors of a scenario, their field paths, and the base of every scenario model (frozen, unknown
keys reported with a did-you-mean hint together with every other problem)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import Any, Final

from pydantic import (
    BaseModel,
    ConfigDict,
    ModelWrapValidatorHandler,
    ValidationError,
    model_validator,
)
from pydantic_core import PydanticCustomError

from crosslayer.units import (
    show,
)

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


