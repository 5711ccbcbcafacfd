"""How the proposal writes numbers: exactly as stored in the tool results, never recomputed.

Numbers from results are printed with their stored digits (`format_number`; thousands
separators added, nothing rounded). Byte counts that the registry leaves in bytes (the memory
breakdown) are shown in GB by moving the decimal point nine places (`bytes_as_gb`): exact, no
rounding, so 16060522496 bytes reads 16.060522496 GB. These are the only two transformations;
tests/test_proposal.py checks every number of a rendered document against them.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

GB_EXPONENT = 9
"""GB = 10^9 bytes (tools/units.py): bytes → GB is a shift of nine decimal places."""


def format_number(value: Any) -> str:
    """A stored number as text: ints and floats keep every stored digit, with `,` separators."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if value.is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    # Decimal(repr) keeps the shortest round-trip digits; "f" avoids exponent notation.
    text = format(Decimal(repr(value)), "f")
    whole, _, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    whole = f"{int(whole.lstrip('-')):,}"
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


def bytes_as_gb(value: Any) -> str:
    """An integer byte count in GB, exact (decimal point moved 9 places, trailing zeros cut)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    shifted = Decimal(int(value)).scaleb(-GB_EXPONENT)
    text = format(shifted, "f")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    whole, _, frac = text.partition(".")
    sign = "-" if whole.startswith("-") else ""
    whole = f"{int(whole.lstrip('-')):,}"
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


def text_value(value: Any) -> str:
    """Any stored value as cell text: numbers via `format_number`, lists joined, bools yes/no."""
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int | float):
        return format_number(value)
    if isinstance(value, list | tuple):
        return ", ".join(text_value(v) for v in value) or "—"
    if isinstance(value, dict):
        return "; ".join(f"{k}: {text_value(v)}" for k, v in value.items()) or "—"
    return str(value)
