"""Refreshed price files: where they live, which one is in use, writing one safely.

Each refresh writes a new dated file, `<data dir>/prices/refreshed-YYYYMMDDTHHMMSSZ.toml` (the
data directory is the sessions' one: `platformdirs.user_data_dir("gpu-sizer")`, or
`GPU_SIZER_DATA_DIR`); the newest is the one in use, and the `KEEP_FILES` newest are kept, so
an earlier refresh can be inspected or restored by deleting a later file. The shipped catalog
is never written.

A file holds `[[price]]` rows in the catalog's schema (`tools.pricing.PriceEntry`) plus one
`[refresh]` table saying when and from where (per source: address, the date its data is from
and how that date was read, rows read, written and skipped by reason). The text is validated
by loading it exactly as `gpu-sizer cost` will, before it replaces anything: a file that would
not load is never written, and the previous one stays in use.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from assistant.atomic_write import write_text_atomic
from tools.catalog import CatalogError
from tools.nesting import loads_toml
from tools.pricing import PriceEntry, builtin_price_book, load_refreshed_rows

KEEP_FILES = 5
"""Refreshed files kept (newest first); older ones are removed after a successful refresh."""

_FILE = re.compile(r"^refreshed-(\d{8}T\d{6}Z)\.toml$")


def refreshed_dir() -> Path:
    """`<data dir>/prices`, where refreshed price files are written (not created here)."""
    from assistant.sessions import data_dir

    return data_dir() / "prices"


def refreshed_files(directory: Path | None = None) -> list[Path]:
    """Refreshed price files, newest first (by the time in their names)."""
    folder = directory or refreshed_dir()
    if not folder.is_dir():
        return []
    found = [p for p in folder.iterdir() if _FILE.match(p.name) and p.is_file()]
    return sorted(found, key=lambda p: p.name, reverse=True)


def latest_refreshed_file(directory: Path | None = None) -> Path | None:
    """The refreshed price file in use (the newest), or None before the first refresh."""
    files = refreshed_files(directory)
    return files[0] if files else None


def file_name(fetched_at: datetime) -> str:
    """`refreshed-YYYYMMDDTHHMMSSZ.toml` for a refresh at `fetched_at` (UTC)."""
    return f"refreshed-{fetched_at.strftime('%Y%m%dT%H%M%SZ')}.toml"


@dataclass(frozen=True)
class SourceSummary:
    """What one source contributed to a refreshed file."""

    name: str
    url: str
    as_of: str
    as_of_basis: str
    rows_read: int
    rows_written: int
    skipped: Mapping[str, int]
    unmapped: Mapping[str, int]


def _toml_string(text: str) -> str:
    # JSON string syntax is TOML's basic-string syntax for everything json.dumps emits with
    # ensure_ascii=False, except DEL, which TOML forbids raw.
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return _toml_string(value)
    if isinstance(value, Mapping):
        items = ", ".join(f"{_toml_string(str(k))} = {_toml_value(v)}" for k, v in value.items())
        return "{ " + items + " }" if items else "{}"
    raise TypeError(f"cannot write {type(value).__name__} to TOML")


def render(rows: Iterable[PriceEntry], fetched_at: datetime, sources: list[SourceSummary]) -> str:
    """The text of a refreshed price file (see module docstring)."""
    lines = [
        "# Refreshed cloud GPU prices, written by `gpu-sizer prices refresh`. Do not edit:",
        "# the next refresh replaces it. Your own prices belong in prices.toml in the config",
        "# directory. Schema: tools.pricing.PriceEntry (catalog/prices.toml explains units).",
        "",
        "[refresh]",
        f"fetched_at = {_toml_string(fetched_at.strftime('%Y-%m-%dT%H:%M:%SZ'))}",
        "",
    ]
    for source in sources:
        lines.append("[[refresh.source]]")
        for key in ("name", "url", "as_of", "as_of_basis", "rows_read", "rows_written"):
            lines.append(f"{key} = {_toml_value(getattr(source, key))}")
        lines.append(f"skipped = {_toml_value(dict(source.skipped))}")
        lines.append(f"unmapped = {_toml_value(dict(source.unmapped))}")
        lines.append("")
    for row in rows:
        lines.append("[[price]]")
        for key, value in row.model_dump(exclude_none=True).items():
            lines.append(f"{key} = {_toml_value(value)}")
        lines.append("")
    return "\n".join(lines)


def write_refreshed(text: str, fetched_at: datetime, directory: Path | None = None) -> Path:
    """Validate `text` as `gpu-sizer cost` will load it, then move it into place atomically
    and prune old files; returns the new file. `CatalogError` (naming the entry and field)
    when it does not validate; then nothing is replaced."""
    folder = directory or refreshed_dir()
    staging = write_text_atomic(folder / f".staging-{file_name(fetched_at)}", text)
    try:
        load_refreshed_rows(staging, {p.id for p in builtin_price_book().prices})
        target = folder / file_name(fetched_at)
        os.replace(staging, target)
    finally:
        staging.unlink(missing_ok=True)
    for old in refreshed_files(folder)[KEEP_FILES:]:
        old.unlink(missing_ok=True)
    return target


def read_header(path: Path) -> dict[str, Any]:
    """The `[refresh]` table of a refreshed file (`CatalogError` when the file is not TOML)."""
    try:
        data = loads_toml(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:  # UnicodeDecodeError, TOMLDecodeError, NestingError
        raise CatalogError(path, "-", "-", f"unreadable refreshed price file: {exc}") from None
    header = data.get("refresh")
    return header if isinstance(header, dict) else {}
