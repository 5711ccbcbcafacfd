"""`gpu-sizer prices refresh`: fetch → parse → validate → write, all or nothing.

Every source asked for is downloaded and parsed before anything is written; one failure (no
network, an HTTP error, an empty or malformed response, a response in which no row maps to a
catalog GPU) raises `RefreshError` with one line naming the source, and the file in use stays
as it was. Refreshing some sources only (`--source`) carries the other sources' rows over
from the file in use, unchanged (with their own, older `as_of`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx2
from pydantic import ValidationError

from assistant.prices.fetch import FetchError, data_date, download
from assistant.prices.skypilot import SourceFormatError, parse_vms_csv
from assistant.prices.sources import PriceSource
from assistant.prices.store import (
    SourceSummary,
    latest_refreshed_file,
    read_header,
    refreshed_dir,
    render,
    write_refreshed,
)
from tools.catalog import CatalogError, get_catalog
from tools.pricing import PriceEntry, builtin_price_book, load_refreshed_rows

SOURCE_TYPE_PREFIX = "refreshed: "
"""`source_type` of a refreshed row: the prefix, then the source's name."""


class RefreshError(RuntimeError):
    """A refresh that wrote nothing (the message is one line for the user)."""


@dataclass(frozen=True)
class RefreshReport:
    """What a successful refresh wrote."""

    path: Path
    fetched_at: datetime
    sources: list[SourceSummary]
    rows: int
    carried_over: dict[str, int]
    """Source name → rows kept from the previous file (sources not refreshed this time)."""


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def _fetch_source(
    client: httpx2.Client, source: PriceSource, now: datetime
) -> tuple[list[PriceEntry], SourceSummary]:
    text = download(client, source.url, source.name)
    dated = data_date(client, source)
    if dated is not None:
        as_of, basis = _stamp(dated), "the file's last commit (GitHub commits API)"
    else:
        as_of, basis = _stamp(now), "download time (the source's own date could not be read)"
    notes = (
        f"refreshed by `gpu-sizer prices refresh` at {_stamp(now)}; as_of is {basis}; GPU "
        "mapped by assistant/prices/gpu_names.py"
    )
    try:
        parsed = parse_vms_csv(text, source, as_of, get_catalog().gpus, notes)
    except SourceFormatError as exc:
        raise RefreshError(f"{source.name}: {exc} at {source.url}") from None
    except ValidationError as exc:  # a value the row checks let through; never written
        problem = exc.errors()[0]
        raise RefreshError(
            f"{source.name}: a row at {source.url} does not validate "
            f"({'.'.join(map(str, problem['loc']))}: {problem['msg']})"
        ) from None
    if not parsed.rows:
        raise RefreshError(
            f"{source.name}: none of the {parsed.rows_read} rows at {source.url} maps to a "
            "catalog GPU with a usable price"
        )
    summary = SourceSummary(
        name=source.name,
        url=source.url,
        as_of=as_of,
        as_of_basis=basis,
        rows_read=parsed.rows_read,
        rows_written=len(parsed.rows),
        skipped=dict(parsed.skipped.most_common()),
        unmapped=dict(parsed.unmapped.most_common()),
    )
    return parsed.rows, summary


def _carried_over(
    previous: Path | None, refreshed: set[str]
) -> tuple[list[PriceEntry], list[SourceSummary]]:
    """Rows (and their source summaries) of the file in use from sources not refreshed now."""
    if previous is None:
        return [], []
    try:
        rows = load_refreshed_rows(previous, {p.id for p in builtin_price_book().prices})
        header = read_header(previous)
    except CatalogError:
        return [], []  # an unreadable previous file has nothing to carry over
    kept = [
        r
        for r in rows
        if (r.source_type or "").startswith(SOURCE_TYPE_PREFIX)
        and (r.source_type or "").removeprefix(SOURCE_TYPE_PREFIX) not in refreshed
    ]
    names = {(r.source_type or "").removeprefix(SOURCE_TYPE_PREFIX) for r in kept}
    summaries = []
    for item in header.get("source", []):
        if isinstance(item, dict) and item.get("name") in names:
            try:
                summaries.append(SourceSummary(**item))
            except TypeError:
                continue
    return kept, summaries


def refresh_prices(
    client: httpx2.Client,
    sources: Sequence[PriceSource],
    now: datetime,
    directory: Path | None = None,
) -> RefreshReport:
    """Download and parse every source, then write one new refreshed price file (see module
    docstring). Raises `RefreshError` (one line) and writes nothing on any failure."""
    rows: list[PriceEntry] = []
    summaries: list[SourceSummary] = []
    for source in sources:
        try:
            source_rows, summary = _fetch_source(client, source, now)
        except FetchError as exc:
            raise RefreshError(str(exc)) from None
        rows += source_rows
        summaries.append(summary)
    kept, kept_summaries = _carried_over(
        latest_refreshed_file(directory), {s.name for s in sources}
    )
    text = render([*rows, *kept], now, [*summaries, *kept_summaries])
    try:
        path = write_refreshed(text, now, directory)
    except CatalogError as exc:
        message = f"the refreshed prices do not validate ({exc}); nothing written"
        raise RefreshError(message) from None
    except OSError as exc:
        message = f"cannot write the price file in {directory or refreshed_dir()} ({exc})"
        raise RefreshError(message) from None
    carried: dict[str, int] = {}
    for row in kept:
        name = (row.source_type or "").removeprefix(SOURCE_TYPE_PREFIX)
        carried[name] = carried.get(name, 0) + 1
    return RefreshReport(path, now, summaries, len(rows) + len(kept), carried)
