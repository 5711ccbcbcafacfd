"""`/gpus` and `/models` in the chat: the same tables as `gpu-sizer gpus` / `gpu-sizer models`.

Reuses the CLI listings' headers and rows (one formatter for both surfaces), shown in a
preformatted block so columns stay aligned; the Markdown fence scrolls sideways at 80 columns.
"""

from __future__ import annotations

from assistant.commands import gpus, models
from assistant.commands._output import Document, Table, plain_text
from tools.catalog import get_catalog


def gpus_markdown() -> str:
    """The GPU catalog's devices (usable memory in GiB, as every table; the marketed label as
    the datasheet prints it, explained under the table, with each as_of); the RAM
    configurations of unified-memory machines are in `gpu-sizer gpus --all`."""
    devices = get_catalog().devices()
    table = gpus.table(devices, "GiB")
    note = f"{gpus.UNITS_NOTE} {gpus.usable_example(devices)}"
    return f"**GPU catalog**\n\n```text\n{table}\n```\n\n{note}"


def models_markdown() -> str:
    """The model catalog (parameter counts computed from each architecture, with as_of)."""
    rows = [models._row(entry) for entry in get_catalog().models.values()]
    table = plain_text(Document([Table(models.COLUMNS, rows)])).rstrip("\n")
    return f"**Model catalog**\n\n```text\n{table}\n```"
