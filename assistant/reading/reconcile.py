"""Two readers, one rule (issue 28): which reading an LLM-mode verdict is computed from.

In LLM mode the built-in parser reads the question at once (its verdict is shown provisionally)
and the model reads it too, when it calls `size`. The rule:

1. The model called `size` with a grounded reading (its latest such call this turn; ungrounded
   calls are refused before they run) and that reading differs from the parser's on a slot
   the verdict depends on (`of_call.VERDICT_SLOTS`) → the verdict is the model's report; the
   answer shows the model's reading, names each difference and gives the parser's verdict in
   one line.
2. Otherwise — the model called no `size` (small local models), or its reading agrees with
   the parser's on every verdict slot — the parser's verdict stands (it also carries what only
   the parser reads: the figure asked for, claims to check).

Both readings are compared as `size` calls read by `of_call.call_slots`, by typed slot values,
never by their words.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from pydantic import JsonValue

from assistant.reading.of_call import VERDICT_SLOTS, CallSlot

Chosen = Literal["model", "parser"]


@dataclass(frozen=True)
class Difference:
    """One verdict slot the two readings disagree on, with each reading's value in words
    (`None`: that reader did not read it and the tool's default applies)."""

    slot: str
    model: str | None
    parser: str | None


def _same(a: JsonValue, b: JsonValue) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return abs(float(a) - float(b)) <= 1e-9 * max(1.0, abs(float(a)))
    return a == b


def differences(model: Mapping[str, CallSlot], parser: Mapping[str, CallSlot]) -> list[Difference]:
    """The verdict slots where the readings' values differ, in 'Read as' order."""
    out: list[Difference] = []
    for name in VERDICT_SLOTS:
        a, b = model.get(name), parser.get(name)
        if a is None and b is None:
            continue
        if a is not None and b is not None and _same(a.value, b.value):
            continue
        out.append(Difference(name, None if a is None else a.shown, None if b is None else b.shown))
    return out


def chosen_reading(model_sized: bool, diffs: list[Difference]) -> Chosen:
    """The rule above: the model's reading when it sized the question and it differs."""
    return "model" if model_sized and diffs else "parser"
