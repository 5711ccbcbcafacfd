"""The registry's last line of defence: whatever a tool raises or returns, the caller gets a
JSON-serialisable result (issue 21: nothing a model sends can crash the turn).

Validation (`tools.limits` bounds on every input field) keeps absurd values out of the
calculators; this module covers what validation cannot prove: a tool that still divides by
zero, overflows or runs out of memory becomes an error result that says an internal limit was
reached (never a traceback), and a result holding NaN or ±inf — which JSON cannot carry and
`json.dumps(allow_nan=False)` refuses — becomes an error result naming the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from tools.nesting import loads_json

MAX_ARGUMENT_CHARS = 100_000
"""Longest arguments string accepted: a 16-option cost request is ~2,000 characters."""

# Exceptions that mean "these arguments went past what the calculation can represent".
_LIMIT_ERRORS = (ArithmeticError, MemoryError, RecursionError)


def internal_error_result(exc: BaseException) -> dict[str, Any]:
    """The error result for an exception a tool raised that is not a `ToolInputError`."""
    kind = type(exc).__name__
    if isinstance(exc, _LIMIT_ERRORS):
        return {
            "error": f"these arguments exceed an internal limit of the calculation ({kind}); "
            "try smaller values (fewer users, GPUs or tokens), or tell the user this "
            "calculation is unavailable for them",
            "kind": "internal_limit",
        }
    return {
        "error": f"the tool failed internally ({kind}); do not retry the same arguments, tell "
        "the user this calculation is unavailable",
        "kind": "internal_error",
    }


def non_finite_field(value: Any, path: str = "") -> str | None:
    """The dotted path of the first NaN/±inf float in a JSON-ready value, else None."""
    if isinstance(value, float) and not math.isfinite(value):
        return path or "result"
    if isinstance(value, Mapping):
        for key, item in value.items():
            found = non_finite_field(item, f"{path}.{key}" if path else str(key))
            if found is not None:
                return found
    elif isinstance(value, list | tuple):
        for index, item in enumerate(value):
            found = non_finite_field(item, f"{path}.{index}" if path else str(index))
            if found is not None:
                return found
    return None


def unserialisable_result(data: Any) -> dict[str, Any] | None:
    """None when `data` is strict JSON; otherwise the error result to send instead."""
    try:
        json.dumps(data, allow_nan=False)  # the fast path: C, and what `content` will do
        return None
    except ValueError:
        field = non_finite_field(data)
        if field is None:  # pragma: no cover - json refuses only NaN/inf with ValueError
            return internal_error_result(ValueError("unserialisable result"))
        return {
            "error": f"the result's {field} is not a finite number: these arguments exceed an "
            "internal limit of the calculation; try smaller values",
            "field": field,
            "kind": "internal_limit",
        }
    except (TypeError, RecursionError) as exc:
        return internal_error_result(exc)


def _keep_text(literal: str) -> str:
    """JSON's NaN / Infinity literals (which Python's json accepts) stay text, so validation
    names the field ("Input should be a valid number") instead of a float nobody can print."""
    return literal


def _finite_float(text: str) -> float | str:
    value = float(text)
    return value if math.isfinite(value) else text  # 1e400 → the text, refused by validation


def _bounded_int(text: str) -> int | str:
    # Python refuses int() of more than 4,300 digits (ValueError): keep such text as text.
    return int(text) if len(text) <= 400 else text


def loads_arguments(text: str, strict: bool = True) -> Any:
    """`json.loads` that never yields NaN, ±inf or a 4,300-digit int (they stay strings, so
    validation rejects them naming the field), nor a document nested deeper than
    `tools.nesting.MAX_DEPTH` (`NestingError`). Raises ValueError as json does."""
    return loads_json(
        text,
        strict=strict,
        parse_constant=_keep_text,
        parse_float=_finite_float,
        parse_int=_bounded_int,
    )
