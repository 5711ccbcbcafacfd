"""EXL2 (ExLlamaV2's quantization): a weight format with any average bit rate, by name.

The canonical name is `exl2-<bpw>bpw` ('exl2-4.65bpw', 'exl2-4.0bpw'): `bpw` is the converter's
`-b / --bits` "Target average number of bits per weight" (exllamav2 doc/convert.md), from 2.0 to
8.0 (README: "any average bitrate between 2 and 8 bits per weight"; convert_exl2.py warns that a
target outside 2..8 "will likely not be attainable"), with at most two decimals. What the bytes
of each tensor are is in `tools/memory/formats.py`'s docstring; the output layer's rule is
`exl2_head_bits` here.
"""

from __future__ import annotations

import math
import re

from tools.errors import ToolInputError

EXL2_MIN_BPW = 2.0
EXL2_MAX_BPW = 8.0
"""The bit rates the converter attains (convert_exl2.py: `args.bits < 2 or args.bits > 8` warns)."""

EXL2_HEAD_BITS = 6
"""convert.py's `-hb / --head_bits` default (convert_exl2.py: `default = 6`)."""

# exllamav2/conversion/qparams.py `qparams_headoptions[6]` = QParams(128, [8, 6], [0.15, 0.85], 4):
# group size 128; 15 % of the input rows at 8 bits, the rest at 6; 4-bit scales.
_HEAD_GROUP = 128
_HEAD_BITS_PROP = ((8, 0.15), (6, 0.85))
_HEAD_SCALE_BITS = 4

_CANONICAL = re.compile(r"exl2-(\d+\.\d{1,2})bpw")
# Loose spellings, lower case, spaces as '-': 'exl2-4.65bpw', 'exl2_4.65', '4.65bpw',
# '4.65-bpw', 'exl2-5.0bit', '5.0bit-exl2', 'exl2@6.5', '4.65'. A rate needs EXL2 named, 'bpw'
# or a decimal point: '8bit' alone is int8 to the other readers, never EXL2.
_LOOSE = re.compile(
    r"(?P<pre>exl2[-_:@]?(?:at-)?)?(?P<bpw>\d+(?:\.\d+)?)[-_]?(?P<unit>bpw|bits?(?:-per-weight)?)?"
    r"(?:[-_]?(?P<post>exl2))?"
)


def exl2_format(bpw: float) -> str:
    """The canonical name of EXL2 at `bpw` bits per weight ('exl2-4.65bpw', 'exl2-4.0bpw')."""
    text = f"{bpw:.2f}".rstrip("0")
    return f"exl2-{text}0bpw" if text.endswith(".") else f"exl2-{text}bpw"


def exl2_bpw(fmt: str) -> float | None:
    """The average bits per weight of a canonical EXL2 name, None for any other format."""
    m = _CANONICAL.fullmatch(fmt)
    return None if m is None else float(m.group(1))


def parse_exl2(key: str, name: str, field: str) -> str | None:
    """The canonical EXL2 name a loose spelling `key` (lower case, spaces as '-') says, None
    when it names no EXL2 rate. Raises ToolInputError naming `field` for a rate outside 2..8
    or with more than two decimals (`name`: the text as given)."""
    m = _LOOSE.fullmatch(key)
    if m is None:
        return None
    text, unit = m.group("bpw"), m.group("unit")
    if not (m.group("pre") or m.group("post") or unit == "bpw" or "." in text):
        return None  # '8bit', '4': the integer widths other formats own
    allowed = f"EXL2 at {EXL2_MIN_BPW}-{EXL2_MAX_BPW} bits per weight, e.g. exl2-4.65bpw"
    bpw = float(text)
    if not EXL2_MIN_BPW <= bpw <= EXL2_MAX_BPW:
        raise ToolInputError(
            field, f"{name.strip()!r}: EXL2 has no rate of {text} bits per weight", allowed
        )
    if "." in text and len(text.split(".")[1]) > 2:
        raise ToolInputError(
            field, f"{name.strip()!r}: an EXL2 rate is given to two decimals at most", allowed
        )
    return exl2_format(bpw)


def exl2_head_bits(in_features: int, out_features: int) -> int:
    """Bits of an EXL2 output layer (`-hb 6`) of `in_features` (hidden) × `out_features`
    (vocabulary): exllamav2 conversion/qparams.py `QParams.total_bits` for
    `qparams_headoptions[6]`, whose shape is the linear's `matrix_shape()` = (in, out)."""
    rows, columns = in_features, out_features
    groups, remaining = 0, rows
    groups_per_rate: list[tuple[int, int]] = []
    for bits, share in _HEAD_BITS_PROP:
        g = math.ceil(min(rows * share, remaining) / _HEAD_GROUP)
        groups += g
        remaining -= g * _HEAD_GROUP
        groups_per_rate.append((bits, g))
    total, rows_left = 0, rows
    for bits, g in groups_per_rate:
        r = min(_HEAD_GROUP * g, rows_left)
        rows_left -= r
        total += r * columns * bits  # q_weight
    total += groups * 16  # q_scale_max
    total += groups * (16 + 16)  # q_groups
    total += groups * columns * _HEAD_SCALE_BITS  # q_scale
    total += rows * 32  # q_invperm
    return total
