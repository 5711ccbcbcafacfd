"""`/gpus` and `/models` in the chat: the same tables as `gpu-sizer gpus` / `gpu-sizer models`.

Reuses the CLI listings' columns and rows (one formatter for both surfaces), laid out to the
chat's width as the CLI lays them out for a terminal (the most droppable columns go first and a
line names them) and shown in a preformatted block so the columns stay aligned.
"""

from __future__ import annotations

from assistant.render.catalog import UNITS_NOTE, gpu_table, model_table, usable_example
from assistant.render.output import Document, Table, Terminal, render_terminal
from tools.catalog import get_catalog


def _laid_out(table: Table, width: int | None) -> str:
    """`table` as plain aligned text at `width` columns (None: its natural width)."""
    return render_terminal(Document([table]), Terminal(False, width, None, False)).rstrip("\n")


def gpus_markdown(width: int | None = None) -> str:
    """The GPU catalog's devices (usable memory in GiB, as every table; the marketed label as
    the datasheet prints it, explained under the table, with each as_of); the RAM
    configurations of unified-memory machines are in `gpu-sizer gpus --all`."""
    devices = get_catalog().devices()
    table = _laid_out(gpu_table(devices, "GiB"), width)
    note = f"{UNITS_NOTE} {usable_example(devices)}"
    return f"**GPU catalog**\n\n```text\n{table}\n```\n\n{note}"


def models_markdown(width: int | None = None) -> str:
    """The model catalog (parameter counts computed from each architecture, with as_of)."""
    table = _laid_out(model_table(get_catalog().models.values()), width)
    return f"**Model catalog**\n\n```text\n{table}\n```"
