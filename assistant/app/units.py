"""The byte unit the app's cards, tables and bars show: a module of its own so the chat log and
the app set it before their first paint without importing the card renderers (`results.py`,
which pulls in every tool's result models)."""

from __future__ import annotations

from typing import Literal

TableUnit = Literal["GB", "GiB"]
CARD_UNIT: TableUnit = "GiB"
"""The one display unit of memory (issue 33): GiB on every card, as on every CLI table."""


def answer_unit(mode: str) -> TableUnit:
    """The byte unit of a turn's cards and bars: GiB in either mode (issue 33: one display
    unit, as nvidia-smi and PyTorch report; the deterministic verdict an LLM answer leads with
    is in GiB too, so the card beside it is). `mode` is kept for callers that pass it."""
    return "GiB"
