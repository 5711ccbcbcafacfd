"""Default factories for pydantic fields, as plain Python functions rather than the builtins.

pydantic reads the signature of every `default_factory` when it builds a model class (to learn
whether the factory takes the validated data). For the builtin `list` that is
`inspect.signature` parsing the type's text signature, ~150 µs each; the 79 list fields of the
tools' and the assistant's models made it ~10 ms of an `ask` (issue 32 point 5, fast start).
A Python function's signature comes from its code object, ~5 µs. The value is the same empty
list, a new one per instance, so validation, defaults and JSON schemas are unchanged. (`dict`,
`set` and `frozenset` have no text signature: pydantic gives up on them at once.)
"""

from __future__ import annotations

from typing import Any


def empty_list() -> list[Any]:
    """A new empty list: `Field(default_factory=empty_list)` in place of `list`."""
    return []
