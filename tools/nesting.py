"""Bounded nesting for every JSON and TOML document read back: files, sessions, tool arguments.

`json.loads` and `tomllib.loads` recurse once per nested array or object, and so does every
walk over what they return (pydantic validation, `json.dumps`, cleaning a value of control
characters). A document nested a few hundred levels deep parses, then breaks the first walk
that recurses further; one nested 100,000 deep raises `RecursionError` in the parser itself.
Neither is a real document: a stored sizing report nests 8 levels inside a session's 4, a
Hugging Face config.json 4, a tool call's arguments 3, a config.toml or prices.toml 3.

`loads_json` and `loads_toml` parse and then refuse a document nested deeper than
`MAX_DEPTH` with `NestingError` (a `ValueError`, like a syntax error), so nothing past this
point ever meets a document its own recursion cannot walk. A 5,000-digit integer, which
Python refuses to convert (a bare ValueError, not a syntax error), is kept as text in JSON
and is a TOMLDecodeError in TOML. `too_deep` checks a value that
arrived already parsed (an MCP request's arguments, a message of a session). The check walks
the containers level by level (no recursion): ~0.1 s for a 100 MB session, against ~1 s to
parse it.
"""

from __future__ import annotations

import json
from typing import Any

MAX_DEPTH = 64
"""Containers within containers a document may hold: 5× the deepest real one (a sizing report
stored in a session, 12) and a sixteenth of Python's default recursion limit (1,000), so every
recursive walk downstream has room to spare."""


class NestingError(ValueError):
    """A document nested deeper than `MAX_DEPTH` (or too deep for the parser to read)."""

    def __init__(self, limit: int = MAX_DEPTH) -> None:
        super().__init__(f"nested more than {limit} levels deep")
        self.limit = limit


def too_deep(value: Any, limit: int = MAX_DEPTH) -> bool:
    """Whether `value` (parsed JSON or TOML: dicts and lists) nests more than `limit` levels of
    containers. Breadth first, one level at a time, so it never recurses itself."""
    level = [value] if isinstance(value, dict | list | tuple) else []
    depth = 0
    while level:
        depth += 1
        if depth > limit:
            return True
        level = [
            item
            for container in level
            for item in (container.values() if isinstance(container, dict) else container)
            if isinstance(item, dict | list | tuple)
        ]
    return False


def check_depth(value: Any, limit: int = MAX_DEPTH) -> Any:
    """`value` itself when it nests at most `limit` levels; NestingError otherwise."""
    if too_deep(value, limit):
        raise NestingError(limit)
    return value


MAX_INT_DIGITS = 400
"""Integer literals longer than this are kept as their text: Python refuses int() of more than
4,300 digits (ValueError, not a syntax error), and no field anywhere holds such a number, so
the field's validation refuses the text by name instead."""


def _bounded_int(text: str) -> int | str:
    return int(text) if len(text) <= MAX_INT_DIGITS else text


def loads_json(text: str | bytes, limit: int | None = MAX_DEPTH, **options: Any) -> Any:
    """`json.loads(text, **options)` for a document nested at most `limit` levels, integers
    of more than `MAX_INT_DIGITS` digits kept as text (unless `parse_int` is given).
    JSONDecodeError as json raises it; NestingError for a deeper document. `limit=None`: only
    what the parser itself can read (a session file, whose messages are checked one by one,
    so one message too deep is skipped and the rest kept)."""
    options.setdefault("parse_int", _bounded_int)
    try:
        value = json.loads(text, **options)
    except RecursionError:
        raise NestingError(limit or MAX_DEPTH) from None
    return value if limit is None else check_depth(value, limit)


def toml_decode_error() -> type[ValueError]:
    """`tomllib.TOMLDecodeError`, imported when asked for: `except toml_decode_error():` is
    evaluated only when an exception reaches it, so a start that parses no TOML (the catalog
    read from its cache, no settings file) never imports tomllib (~2 ms)."""
    import tomllib

    return tomllib.TOMLDecodeError


def loads_toml(text: str, limit: int = MAX_DEPTH) -> dict[str, Any]:
    """`tomllib.loads(text)` for a document nested at most `limit` levels (arrays, inline
    tables and dotted keys alike). TOMLDecodeError as tomllib raises it; NestingError for a
    deeper document."""
    import tomllib  # here: a start that reads the catalog from its cache never parses TOML

    try:
        value = tomllib.loads(text)
    except RecursionError:
        raise NestingError(limit) from None
    except tomllib.TOMLDecodeError:
        raise
    except ValueError:  # int() of a 5,000-digit literal: tomllib has no parse_int hook
        raise tomllib.TOMLDecodeError(
            "a number too long to read (more than 4,300 digits)"
        ) from None
    return check_depth(value, limit)  # type: ignore[no-any-return]
