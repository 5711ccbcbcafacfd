"""argparse value types shared by the subcommands, and flag-named errors for values the
tools' pydantic models reject.

Token counts accept what engineers type: `16384`, `1e8`, `16k`, `128K`, `2B`, `1.5M`. The rule
is the offline parser's (one rule everywhere): 'Nk' is N×1024 when N is a power of two (model
cards name context windows that way: Llama 3.1's "128K" is 131,072), else N×1000.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from tools.errors import ToolInputError, from_validation_error

ModelT = TypeVar("ModelT", bound=BaseModel)


def token_count(text: str) -> int:
    """A positive token count from `16384`, `1e8`, `16k`, `128K`, `1M`, `2B` (argparse type)."""
    from assistant.offline.quantities import context_tokens_from  # lazy: parser vocabulary

    try:
        value = float(text)  # plain and scientific notation: 16384, 1e8
    except ValueError:
        try:
            value, _ = context_tokens_from(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a token count (examples: 16384, 1e8, 16k, 128k, 2B)"
            ) from None
    if not math.isfinite(value) or value < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: a token count must be a positive number")
    return round(value)


def _number(text: str, kind: str) -> float:
    """`text` as a finite number, or ArgumentTypeError naming what was expected."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{text!r} is not {kind}")
    return value


def positive_int(text: str) -> int:
    """A whole number ≥ 1 (GPU counts, users): argparse type naming the bad value."""
    value = _number(text, "a whole number")
    if value < 1 or value != int(value):
        raise argparse.ArgumentTypeError(f"{text!r}: allowed a whole number >= 1")
    return int(value)


def non_negative_int(text: str) -> int:
    """A whole number ≥ 0 (days): argparse type naming the bad value."""
    value = _number(text, "a whole number")
    if value < 0 or value != int(value):
        raise argparse.ArgumentTypeError(f"{text!r}: allowed a whole number >= 0")
    return int(value)


def positive_number(text: str) -> float:
    """A number > 0 (hours, tokens/s, USD, exchange rates): argparse type naming the value."""
    value = _number(text, "a number")
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text!r}: allowed a number > 0")
    return value


def flag_error(
    error: ToolInputError, flags: Mapping[str, str], values: Mapping[str, object]
) -> ToolInputError:
    """`error` (from a model field, e.g. 'utilization') restated for the command line: the
    flag that set the field, the value given, and the field's allowed values."""
    flag = flags.get(error.field)
    if flag is None:
        return error
    given = values.get(error.field)
    shown = repr(given)
    problem = (
        error.problem
        if given is None or shown in error.problem
        else f"{shown} rejected: {error.problem}"
    )
    return ToolInputError(flag, problem, error.allowed, error.suggestions)


def validated(model: type[ModelT], fields: Mapping[str, Any], flags: Mapping[str, str]) -> ModelT:
    """`model(**fields)`; a pydantic error becomes a ToolInputError naming the flag
    (`tools.errors.from_validation_error`, then `flag_error`)."""
    try:
        return model(**fields)
    except ValidationError as exc:
        raise flag_error(from_validation_error(exc, model), flags, fields) from None
