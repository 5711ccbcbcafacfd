"""Errors for bad tool input: which field, what was wrong, what is allowed.

The same error reaches a user (CLI exit code 2, no traceback) and a model (a tool result it can
recover from), so its message must stand on its own.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ValidationError


class ToolInputError(ValueError):
    """A tool input that cannot be used, with the field named and the allowed values stated."""

    def __init__(
        self,
        field: str,
        problem: str,
        allowed: str | None = None,
        suggestions: Iterable[str] = (),
    ) -> None:
        self.field = field
        self.problem = problem
        self.allowed = allowed
        self.suggestions = list(suggestions)
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"{self.field}: {self.problem.rstrip('.')}."
        if self.suggestions:
            text += f" Did you mean: {', '.join(self.suggestions)}?"
        if self.allowed:
            text += f" Allowed: {self.allowed.rstrip('.')}."
        return text

    def renamed(self, field: str) -> ToolInputError:
        """The same error reported under `field`: the name the caller used for the value
        (`options.1.gpu` in a request, `name` in a look-up), not the inner tool's own."""
        return ToolInputError(field, self.problem, self.allowed, self.suggestions)

    def to_dict(self) -> dict[str, object]:
        """A compact, JSON-ready form for tool results and `--json` output."""
        out: dict[str, object] = {"field": self.field, "error": self.problem}
        if self.allowed:
            out["allowed"] = self.allowed
        if self.suggestions:
            out["did_you_mean"] = self.suggestions
        return out


def closest_names(name: str, candidates: Iterable[str], limit: int = 3) -> list[str]:
    """The catalog names closest to `name` (case-insensitive), best first."""
    if len(name) > _CACHED_NAME_CHARS:  # a pasted essay is not kept in the cache
        return list(_closest_names.__wrapped__(name, tuple(candidates), limit))
    return list(_closest_names(name, tuple(candidates), limit))


_CACHED_NAME_CHARS = 200


@lru_cache(maxsize=1024)
def _closest_names(name: str, candidates: tuple[str, ...], limit: int) -> tuple[str, ...]:
    # Pure and costly (difflib compares `name` with every catalog name): the same misspelling
    # is looked up again by each surface that reports it, and by the fuzzers thousands of times.
    pool = {c.lower(): c for c in candidates}
    matches = difflib.get_close_matches(name.lower(), list(pool), n=limit, cutoff=0.5)
    if not matches:
        # Substring hits catch "h100" -> "h100-sxm", "h100-pcie" where difflib's ratio is low.
        matches = [key for key in pool if name.lower() in key][:limit]
    return tuple(pool[m] for m in matches)


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model a field holds (directly, optionally, or as list items), if any."""
    candidates = [annotation, *typing.get_args(annotation)]
    for candidate in candidates:
        if isinstance(candidate, type) and issubclass(candidate, BaseModel):
            return candidate
        for inner in typing.get_args(candidate):  # list[Model] inside Optional
            if isinstance(inner, type) and issubclass(inner, BaseModel):
                return inner
    return None


def _model_at(model: type[BaseModel], path: list[str]) -> type[BaseModel] | None:
    """The (nested) pydantic model that `path` leads to, following model-typed fields."""
    current: type[BaseModel] = model
    for name in path:
        info = current.model_fields.get(name)
        if info is None:
            return None
        nested = _nested_model(info.annotation)
        if nested is None:
            return None
        current = nested
    return current


def error_path(model: type[BaseModel], loc: tuple[int | str, ...]) -> list[int | str]:
    """The part of a pydantic error location that names fields (and list indexes).

    pydantic also puts the member of a union it tried into the location (`params.str`,
    `params.float`): those tags name no field, so they are dropped. A name that is not a field
    of the model it sits in is kept (it is the unknown field an `extra_forbidden` error names).
    """
    current: type[BaseModel] | None = model
    path: list[int | str] = []
    for part in loc:
        if isinstance(part, int):
            path.append(part)  # a list index: options.0.count
        elif current is not None:
            path.append(part)
            info = current.model_fields.get(part)
            current = None if info is None else _nested_model(info.annotation)
        # else: a union tag inside a plain field
    return path


_TYPE_ERRORS = frozenset(
    {"string_type", "int_type", "float_type", "bool_type", "list_type", "dict_type"}
)


def field_problems(exc: ValidationError, model: type[BaseModel]) -> list[tuple[str, str, str]]:
    """(dotted field path with list indexes, problem, pydantic error type) for each field that
    failed, in pydantic's order. A union field reports once: what its value broke (e.g. "Input
    should be a finite number"), not one "should be a valid <type>" per member it was tried as.
    """
    by_field: dict[str, list[tuple[str, str]]] = {}
    for err in exc.errors(include_url=False):
        field = ".".join(str(p) for p in error_path(model, tuple(err["loc"])))
        problem = str(err["msg"]).removeprefix("Value error, ")
        original = (err.get("ctx") or {}).get("error")
        if isinstance(original, ToolInputError):  # a validator named the field itself
            if not field:
                field = original.field
            elif original.field not in (field, field.rsplit(".", 1)[-1]):
                field = f"{field}.{original.field}"  # a nested model's own check
            problem = original.problem
        if err["type"] == "extra_forbidden":
            problem = "unknown field"
        by_field.setdefault(field, []).append((problem, str(err["type"])))
    out: list[tuple[str, str, str]] = []
    for field, found in by_field.items():
        specific = [f for f in found if f[1] not in _TYPE_ERRORS] or found
        problem = "; or ".join(dict.fromkeys(p for p, _ in specific))
        out.append((field, problem, specific[0][1]))
    return out


def from_validation_error(exc: ValidationError, model: type[BaseModel]) -> ToolInputError:
    """The first pydantic error as a ToolInputError naming the field (dotted for nested models)
    and, as what is allowed, that field's description — the one place this conversion lives."""
    err = exc.errors()[0]
    original = (err.get("ctx") or {}).get("error")
    if isinstance(original, ToolInputError):
        return original  # a validator already wrote the whole message
    dotted, problem, kind = field_problems(exc, model)[0]
    path = [part for part in dotted.split(".") if part and not part.isdigit()]
    parent = _model_at(model, path[:-1])
    allowed: str | None = None
    if kind == "extra_forbidden":
        allowed = "fields: " + ", ".join(parent.model_fields) if parent else None
    elif parent is not None and path and path[-1] in parent.model_fields:
        allowed = (parent.model_fields[path[-1]].description or "").rstrip(".") or None
    field = ".".join(path)
    if not field:  # a whole-model check that names no field (validators name theirs)
        field = model.__name__
    return ToolInputError(field, problem, allowed)
