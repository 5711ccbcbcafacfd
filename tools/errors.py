"""Errors for bad tool input: which field, what was wrong, what is allowed.

The same error reaches a user (CLI exit code 2, no traceback) and a model (a tool result it can
recover from), so its message must stand on its own.
"""

from __future__ import annotations

import difflib
import typing
from collections.abc import Iterable

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
    pool = {c.lower(): c for c in candidates}
    matches = difflib.get_close_matches(name.lower(), list(pool), n=limit, cutoff=0.5)
    if not matches:
        # Substring hits catch "h100" -> "h100-sxm", "h100-pcie" where difflib's ratio is low.
        matches = [key for key in pool if name.lower() in key][:limit]
    return [pool[m] for m in matches]


def _model_at(model: type[BaseModel], path: list[str]) -> type[BaseModel] | None:
    """The (nested) pydantic model that `path` leads to, following model-typed fields."""
    current: type[BaseModel] = model
    for name in path:
        info = current.model_fields.get(name)
        if info is None:
            return None
        candidates = (info.annotation, *typing.get_args(info.annotation))
        nested = next(
            (c for c in candidates if isinstance(c, type) and issubclass(c, BaseModel)), None
        )
        if nested is None:
            return None
        current = nested
    return current


def from_validation_error(exc: ValidationError, model: type[BaseModel]) -> ToolInputError:
    """The first pydantic error as a ToolInputError naming the field (dotted for nested models)
    and, as what is allowed, that field's description — the one place this conversion lives."""
    err = exc.errors()[0]
    original = (err.get("ctx") or {}).get("error")
    if isinstance(original, ToolInputError):
        return original  # a validator already wrote the whole message
    path = [str(part) for part in err["loc"] if not isinstance(part, int)]
    problem = str(err["msg"]).removeprefix("Value error, ")
    parent = _model_at(model, path[:-1])
    allowed: str | None = None
    if err["type"] == "extra_forbidden":
        problem = "unknown field"
        allowed = "fields: " + ", ".join(parent.model_fields) if parent else None
    elif parent is not None and path and path[-1] in parent.model_fields:
        allowed = (parent.model_fields[path[-1]].description or "").rstrip(".") or None
    field = ".".join(path)
    if not field:  # a whole-model check; the only one today is which model was given
        field = "model" if "exactly one of" in problem else model.__name__
    return ToolInputError(field, problem, allowed)
