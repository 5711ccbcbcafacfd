"""`/gpus` and `/models` in the chat: the same tables as `gpu-sizer gpus` / `gpu-sizer models`.

Reuses the CLI listings' headers and rows (one formatter for both surfaces), shown in a
preformatted block so columns stay aligned; the Markdown fence scrolls sideways at 80 columns.
"""

from __future__ import annotations

from assistant.commands import gpus, models
from assistant.commands._table import render_table
from tools.catalog import get_catalog


def gpus_markdown() -> str:
    """The GPU catalog's devices (memory in GB, one unit per table, with each as_of); the RAM
    configurations of unified-memory machines are in `gpu-sizer gpus --all`."""
    table = gpus.table(get_catalog().devices(), "GB")
    return f"**GPU catalog**\n\n```text\n{table}\n```\n\n{gpus.UNITS_NOTE}"


def models_markdown() -> str:
    """The model catalog (parameter counts computed from each architecture, with as_of)."""
    rows = [models._row(entry) for entry in get_catalog().models.values()]
    table = render_table(models.HEADERS, rows, right_align=(2, 3, 4, 6))
    return f"**Model catalog**\n\n```text\n{table}\n```"
