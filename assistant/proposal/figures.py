"""How the proposal writes numbers: the stored value, rounded for reading, never recomputed.

Numbers from results are rounded only for display (`format_number`): whole numbers keep every
digit, other values keep two decimals from 1 up and three significant digits below 1
(76.968728985 → 76.97, 0.03232 → 0.0323). Memory figures are shown in GiB (`bytes_as_gib`,
`gb_as_gib`), the unit the tools' own notes and warnings use (tools/units.py `format_bytes`,
'GiB'), so a table and the notes under it never mix GB and GiB. Unit conversion and rounding
are the only transformations; tests/test_proposal.py traces every number of a rendered document
back to a stored value through them.
"""

from __future__ import annotations

import math
from typing import Any

from tools.units import GB, GiB

DECIMALS = 2
"""Decimals kept for values of 1 and above (76.97 GB, 7.36 USD)."""
SIGNIFICANT_BELOW_ONE = 3
"""Significant digits kept below 1 (0.0323 s, 0.719 USD per million tokens)."""


def round_for_reading(value: float) -> float:
    """`value` at the precision the proposal prints (see the module docstring)."""
    if value == 0 or not math.isfinite(value):
        return value
    if abs(value) >= 1:
        return round(value, DECIMALS)
    digits = SIGNIFICANT_BELOW_ONE - 1 - math.floor(math.log10(abs(value)))
    return round(value, digits)


def format_number(value: Any) -> str:
    """A stored number as text, rounded for reading, with `,` thousands separators."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if value.is_integer() and abs(value) < 1e16:
        return f"{int(value):,}"
    shown = round_for_reading(value)
    if abs(value) >= 1:
        return f"{shown:,.{DECIMALS}f}".rstrip("0").rstrip(".")
    return f"{shown:.12f}".rstrip("0").rstrip(".")


def bytes_as_gib(value: Any) -> str:
    """A byte count in GiB (2^30 bytes), rounded for reading."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return text_value(value)
    return format_number(value / GiB)


def gb_as_gib(value: Any) -> str:
    """A registry `*_GB` figure (10^9 bytes) in GiB, rounded for reading."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return text_value(value)
    return format_number(value * GB / GiB)


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


def gib(value: int | float | None) -> str:
    """A byte count as 'N GiB' (2^30 bytes), rounded for reading; '—' for None."""
    return "—" if value is None else f"{bytes_as_gib(value)} GiB"


def usd(value: float | None) -> str:
    """A USD amount as 'N USD', rounded for reading; '—' for None."""
    return "—" if value is None else f"{format_number(value)} USD"


def money(value: float | None, currency: str) -> str:
    """An amount in `currency`, rounded for reading; '—' for None."""
    return "—" if value is None else f"{format_number(value)} {currency}".strip()


def count_of(count: int, noun: str, plural: str | None = None) -> str:
    """'1 replica', '2 replicas' (the plural `noun + "s"` unless given)."""
    return f"{count:,} {noun if count == 1 else (plural or noun + 's')}"


def format_count(value: float | None) -> str:
    """A count held as a float (tokens a month) as a whole number with separators."""
    return "—" if value is None else f"{round(value):,}"
