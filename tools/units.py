"""Byte units. Bytes are the internal unit everywhere; conversion happens only for display.

GB is the SI gigabyte (10**9 bytes, as in vendor datasheets and the ZeRO paper);
GiB is the binary gibibyte (2**30 bytes, as reported by nvidia-smi and PyTorch).
A display string always names which one it uses; the two are never mixed in one table.
"""

from __future__ import annotations

from typing import Literal

KB = 10**3
MB = 10**6
GB = 10**9
TB = 10**12
KiB = 2**10
MiB = 2**20
GiB = 2**30

ByteUnit = Literal["GB", "GiB", "MB", "MiB"]
_UNIT_BYTES: dict[str, int] = {"GB": GB, "GiB": GiB, "MB": MB, "MiB": MiB}


def to_unit(num_bytes: float, unit: ByteUnit) -> float:
    """Convert a byte count to `unit` (GB/MB are SI, GiB/MiB are binary)."""
    return num_bytes / _UNIT_BYTES[unit]


def format_bytes(num_bytes: float, unit: ByteUnit = "GiB", digits: int = 2) -> str:
    """Format a byte count as e.g. '14.96 GiB'. The unit is always printed."""
    return f"{to_unit(num_bytes, unit):,.{digits}f} {unit}"


def format_gib(num_bytes: float) -> str:
    """Bytes as GiB with one decimal ("45.4 GiB"): the unit of the recommender's and the
    advice notes' prose, matching nvidia-smi."""
    return format_bytes(num_bytes, "GiB", 1)


def spoken_count(n: float) -> str:
    """A count as people write it in a question: '13B', '1.5M', '2T', '40', '12,500' (no 'k':
    '40k users' would read as a rounded figure where the user wrote 40,000)."""
    for threshold, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M")):
        if abs(n) >= threshold:
            return f"{n / threshold:.2f}".rstrip("0").rstrip(".") + suffix
    return f"{n:,.0f}" if float(n).is_integer() else f"{n:,.3g}"


def format_count(n: float, digits: int = 2) -> str:
    """Format a large count (parameters, tokens) with an SI suffix: 8.03B, 131k."""
    for threshold, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "k")):
        if abs(n) >= threshold:
            return f"{n / threshold:.{digits}f}{suffix}"
    return f"{n:.0f}"
