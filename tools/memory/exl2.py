"""EXL2 (ExLlamaV2's quantization): a weight format with any average bit rate, by name.

The canonical name is `exl2-<bpw>bpw` ('exl2-4.65bpw', 'exl2-4.0bpw'): `bpw` is the converter's
`-b / --bits` "Target average number of bits per weight" (exllamav2 doc/convert.md), from 2.0 to
8.0 (README: "any average bitrate between 2 and 8 bits per weight"; convert_exl2.py warns that a
target outside 2..8 "will likely not be attainable"), with at most two decimals. An output layer
made at another `-hb / --head_bits` than the default 6 is a suffix: `exl2-<bpw>bpw-h<hb>`
('exl2-4.65bpw-h8', the '-h8' of a repo name such as '…-4.65bpw-h8-exl2'). What the bytes of
each tensor are is in `tools/memory/formats.py`'s docstring; the output layer's rule is
`exl2_head_bits` here.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from tools.errors import ToolInputError

EXL2_MIN_BPW = 2.0
EXL2_MAX_BPW = 8.0
"""The bit rates the converter attains (convert_exl2.py: `args.bits < 2 or args.bits > 8` warns)."""

EXL2_HEAD_BITS = 6
"""convert.py's `-hb / --head_bits` default (convert_exl2.py: `default = 6`)."""


@dataclass(frozen=True)
class HeadOption:
    """One `qparams_headoptions` entry: QParams(group_size, bits, bits_prop, scale_bits)."""

    group_size: int
    bits_prop: tuple[tuple[int, float], ...]
    """(bits, share of the input rows) per rate, in the converter's order."""
    scale_bits: int = 4

    def nominal_bits(self) -> float:
        """Bits per weight before the per-row and per-group constants: Σ share × bits, plus
        the 4-bit scale of each group of `group_size` rows (q_scale, per column)."""
        return sum(b * share for b, share in self.bits_prop) + self.scale_bits / self.group_size


# exllamav2/conversion/qparams.py `qparams_headoptions` (turboderp/exllamav2 at b9c025b): the only
# head rates the converter accepts (conversion/convert_exl2.py: "is not a supported option for
# head layer bitrate" otherwise); 16 is commented out there ("# 16: None").
EXL2_HEAD_OPTIONS: dict[int, HeadOption] = {
    2: HeadOption(32, ((4, 0.3), (2, 0.7))),
    3: HeadOption(32, ((4, 0.15), (3, 0.85))),
    4: HeadOption(32, ((6, 0.15), (4, 0.85))),
    5: HeadOption(128, ((6, 0.15), (5, 0.85))),
    6: HeadOption(128, ((8, 0.15), (6, 0.85))),
    8: HeadOption(128, ((8, 1.0),)),
}

_CANONICAL = re.compile(r"exl2-(\d+\.\d{1,2})bpw(?:-h([2-58]))?")
# Loose spellings, lower case, spaces as '-': 'exl2-4.65bpw', 'exl2_4.65', '4.65bpw',
# '4.65-bpw', 'exl2-5.0bit', '5.0bit-exl2', 'exl2@6.5', '4.65', with the head bits after the
# rate ('4.65bpw-h8-exl2', 'exl2-4.65bpw-hb8'). A rate needs EXL2 named, 'bpw' or a decimal
# point: '8bit' alone is int8 to the other readers, never EXL2.
_LOOSE = re.compile(
    r"(?P<pre>exl2[-_:@]?(?:at-)?)?(?P<bpw>\d+(?:\.\d+)?)[-_]?(?P<unit>bpw|bits?(?:-per-weight)?)?"
    r"(?:[-_]?hb?[-_]?(?P<head>\d+))?(?:[-_]?(?P<post>exl2))?"
)


def exl2_format(bpw: float, head_bits: int = EXL2_HEAD_BITS) -> str:
    """The canonical name of EXL2 at `bpw` bits per weight ('exl2-4.65bpw', 'exl2-4.0bpw'),
    with '-h<head_bits>' for an output layer at another rate than the default 6."""
    text = f"{bpw:.2f}".rstrip("0")
    name = f"exl2-{text}0bpw" if text.endswith(".") else f"exl2-{text}bpw"
    return name if head_bits == EXL2_HEAD_BITS else f"{name}-h{head_bits}"


def exl2_bpw(fmt: str) -> float | None:
    """The average bits per weight of a canonical EXL2 name, None for any other format."""
    m = _CANONICAL.fullmatch(fmt)
    return None if m is None else float(m.group(1))


def exl2_head_rate(fmt: str) -> int | None:
    """The output layer's `-hb` of a canonical EXL2 name (6 unless '-h<hb>' says another),
    None for any other format."""
    m = _CANONICAL.fullmatch(fmt)
    if m is None:
        return None
    return EXL2_HEAD_BITS if m.group(2) is None else int(m.group(2))


def parse_exl2(key: str, name: str, field: str) -> str | None:
    """The canonical EXL2 name a loose spelling `key` (lower case, spaces as '-') says, None
    when it names no EXL2 rate. Raises ToolInputError naming `field` for a rate outside 2..8
    or with more than two decimals (`name`: the text as given)."""
    m = _LOOSE.fullmatch(key)
    if m is None:
        return None
    text, unit, head = m.group("bpw"), m.group("unit"), m.group("head")
    if not (m.group("pre") or m.group("post") or unit == "bpw" or "." in text):
        return None  # '8bit', '4': the integer widths other formats own
    allowed = f"EXL2 at {EXL2_MIN_BPW}-{EXL2_MAX_BPW} bits per weight, e.g. exl2-4.65bpw"
    head_bits = EXL2_HEAD_BITS if head is None else int(head)
    if head_bits not in EXL2_HEAD_OPTIONS:
        rates = ", ".join(map(str, EXL2_HEAD_OPTIONS))
        raise ToolInputError(
            field,
            f"{name.strip()!r}: EXL2's output layer is made at -hb {rates} bits, not {head}",
            f"{allowed}, or exl2-4.65bpw-h8 for an 8-bit output layer",
        )
    bpw = float(text)
    if not EXL2_MIN_BPW <= bpw <= EXL2_MAX_BPW:
        raise ToolInputError(
            field, f"{name.strip()!r}: EXL2 has no rate of {text} bits per weight", allowed
        )
    if "." in text and len(text.split(".")[1]) > 2:
        raise ToolInputError(
            field, f"{name.strip()!r}: an EXL2 rate is given to two decimals at most", allowed
        )
    return exl2_format(bpw, head_bits)


def exl2_head_bits(in_features: int, out_features: int, head_bits: int = EXL2_HEAD_BITS) -> int:
    """Bits of an EXL2 output layer made at `-hb head_bits` of `in_features` (hidden) ×
    `out_features` (vocabulary): exllamav2 conversion/qparams.py `QParams.total_bits` for
    `qparams_headoptions[head_bits]`, whose shape is the linear's `matrix_shape()` = (in, out).
    Raises KeyError for a rate the converter has no option for."""
    option = EXL2_HEAD_OPTIONS[head_bits]
    group = option.group_size
    rows, columns = in_features, out_features
    groups, remaining = 0, rows
    groups_per_rate: list[tuple[int, int]] = []
    for bits, share in option.bits_prop:
        g = math.ceil(min(rows * share, remaining) / group)
        groups += g
        remaining -= g * group
        groups_per_rate.append((bits, g))
    total, rows_left = 0, rows
    for bits, g in groups_per_rate:
        r = min(group * g, rows_left)
        rows_left -= r
        total += r * columns * bits  # q_weight
    total += groups * 16  # q_scale_max
    total += groups * (16 + 16)  # q_groups
    total += groups * columns * option.scale_bits  # q_scale
    total += rows * 32  # q_invperm
    return total
