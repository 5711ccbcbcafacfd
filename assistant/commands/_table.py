"""Plain-text tables for the listing commands (`gpu-sizer models`, `gpu-sizer gpus`).

Kept free of Textual and of any figure computation: callers pass already formatted cells,
with the unit in each column header.
"""

from __future__ import annotations

from collections.abc import Sequence


def render_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], right_align: Sequence[int] = ()
) -> str:
    """Render rows under headers with two spaces between columns.

    Columns whose index is in `right_align` (numbers) are right-aligned, the rest left-aligned.
    """
    widths = [len(h) for h in headers]
    for row in rows:
        if len(row) != len(headers):
            raise ValueError(f"row has {len(row)} cells, table has {len(headers)} columns")
        widths = [max(w, len(cell)) for w, cell in zip(widths, row, strict=True)]

    def line(cells: Sequence[str]) -> str:
        parts = [
            cell.rjust(width) if index in right_align else cell.ljust(width)
            for index, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(parts).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(row) for row in rows)])
