"""Errors for bad tool input: which field, what was wrong, what is allowed.

The same error reaches a user (CLI exit code 2, no traceback) and a model (a tool result it can
recover from), so its message must stand on its own.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable


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
