"""`gpu-sizer prices refresh` / `gpu-sizer prices show`: fresh cloud prices from open catalogs.

`refresh` is the only command that uses the network: it downloads SkyPilot's per-cloud price
catalogs, maps each accelerator to a catalog GPU (an explicit table; the rest is skipped and
counted), and writes a new dated price file in the user data directory, which `cost`,
`recommend`, the chat and the MCP server then add to the built-in catalog (a fresher row of
the same offer supersedes the older one). Any failure — offline, a timeout, an HTTP error, an
empty or malformed response — prints one line, exits 1 and leaves the file in use untouched.
`show` (the default) says which file is in use, from when, and what was skipped.

Exit codes: 0 ok, 1 a source failed (nothing written), 2 bad input (an unknown `--source`, a
refreshed file that does not load).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from assistant.cli_examples import help_with_examples
from assistant.commands._flags import CommandFlags, request
from assistant.commands._progress import working
from assistant.prices.fetch import DEFAULT_TIMEOUT_S
from assistant.prices.sources import SOURCES, PriceSource, source_named
from assistant.render.output import Document, add_pager_option, emit, text_lines
from assistant.sanitize import clean_text
from tools.errors import ToolInputError
from tools.field_factories import empty_list
from tools.limits import FINITE


class PricesOptions(BaseModel):
    """The options of `gpu-sizer prices` (flags generated from these fields)."""

    model_config = ConfigDict(extra="forbid", **FINITE)

    source: list[str] = Field(
        default_factory=empty_list,
        description="Refresh only these sources ("
        + ", ".join(s.name for s in SOURCES)
        + "); the other sources' rows are kept from the file in use.",
    )
    timeout: float = Field(
        default=DEFAULT_TIMEOUT_S,
        gt=0,
        le=600,
        description="Seconds to wait for each download.",
    )


def add_parser(subparsers: Any, help_text: str) -> None:
    """Register `prices` with its `refresh` and `show` actions."""
    p = subparsers.add_parser(
        "prices", help=help_text, description=help_text, **help_with_examples("prices")
    )
    p.add_argument(
        "action",
        nargs="?",
        default="show",
        choices=("refresh", "show"),
        help="refresh: download current prices (network); show: the file in use (default)",
    )
    CommandFlags(p).add(PricesOptions)
    p.add_argument("--json", action="store_true", help="print JSON")
    add_pager_option(p)


def _sources(names: list[str]) -> list[PriceSource]:
    if not names:
        return list(SOURCES)
    chosen = []
    for name in names:
        source = source_named(name)
        if source is None:
            raise ToolInputError(
                "--source",
                f"unknown source {name!r}",
                ", ".join(s.name for s in SOURCES),
            )
        chosen.append(source)
    return chosen


def _int(value: object) -> int:
    """A count read from a file on disk (0 when it is not one)."""
    try:
        return int(str(value))
    except ValueError:
        return 0


def _printable(text: object) -> str:
    """`text` as one clean line (a file on disk may have been edited)."""
    return " ".join(clean_text(str(text)).split())


def _in_use() -> str:
    """One phrase naming the prices in use now, for the failure line."""
    from assistant.prices.store import latest_refreshed_file, read_header

    path = latest_refreshed_file()
    if path is None:
        return "the built-in catalog's prices stay in use"
    fetched = read_header(path).get("fetched_at", "?")
    return f"the prices refreshed at {_printable(fetched)} stay in use ({path})"


def _refresh(options: PricesOptions, args: argparse.Namespace) -> int:
    import httpx2

    from assistant.clock import now
    from assistant.prices.refresh import RefreshError, refresh_prices
    from tools.catalog import CatalogError

    sources = _sources(options.source)
    headers = {"User-Agent": "gpu-sizer prices refresh"}
    timeout = options.timeout
    try:
        with (
            httpx2.Client(timeout=timeout, follow_redirects=True, headers=headers) as client,
            working("downloading prices"),
        ):
            report = refresh_prices(client, sources, now().replace(microsecond=0))
    except RefreshError as exc:
        try:
            still = _in_use()
        except CatalogError:
            still = "the price file in use is unchanged"
        print(f"gpu-sizer prices: error: {exc}; nothing written, {still}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(_report_json(report), indent=2))
        return 0
    out = [f"wrote {report.path}: {report.rows:,} price rows"]
    for s in report.sources:
        out.append(f"  {_source_line(s.name, s.rows_read, s.rows_written, s.as_of, s.as_of_basis)}")
        out.append(f"    skipped: {_skipped(s.skipped, s.unmapped)}")
    for name, count in report.carried_over.items():
        out.append(
            f"  {name}: {count:,} rows kept from the previous file (not refreshed this time)"
        )
    out.append(
        "cost, recommend, the chat and the MCP server now add these rows to the catalog; a "
        "fresher row supersedes an older row of the same offer (gpu-sizer prices show)"
    )
    emit(Document(text_lines("\n".join(out))), args)
    return 0


def _report_json(report: Any) -> dict[str, Any]:
    return {
        "path": str(report.path),
        "fetched_at": report.fetched_at.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "rows": report.rows,
        "sources": [vars(s) | {"skipped": dict(s.skipped)} for s in report.sources],
        "carried_over": report.carried_over,
    }


def _age(as_of: str) -> str:
    from assistant.clock import now
    from tools.pricing import age_label

    return age_label(as_of, now())


def _source_line(name: str, read: int, written: int, as_of: str, basis: str) -> str:
    return (
        f"{_printable(name)}: {read:,} rows read, {written:,} price rows written; data as_of "
        f"{_printable(as_of)} ({_age(str(as_of))}; {_printable(basis)})"
    )


def _skipped(skipped: Any, unmapped: Any) -> str:
    skipped = skipped if isinstance(skipped, dict) else {}
    unmapped = unmapped if isinstance(unmapped, dict) else {}
    parts = [f"{_int(n):,} {_printable(reason)}" for reason, n in skipped.items()]
    names = ", ".join(f"{_printable(k)} ×{_int(v):,}" for k, v in list(unmapped.items())[:8])
    text = "; ".join(parts) or "none"
    return text + (f" (accelerators: {names})" if names else "")


def _show(args: argparse.Namespace) -> int:
    from assistant.cost_tool import price_book
    from assistant.prices.store import latest_refreshed_file, read_header

    path = latest_refreshed_file()
    if path is None:
        message = (
            "no refreshed prices yet: cost and recommend use the built-in catalog "
            "(gpu-sizer prices refresh downloads current ones)"
        )
        if args.json:
            print(json.dumps({"file": None}))
        else:
            emit(Document(text_lines(message)), args)
        return 0
    book = price_book()  # validates the file as cost will (ToolInputError → exit 2)
    header = read_header(path)
    sources = [s for s in header.get("source", []) if isinstance(s, dict)]
    if args.json:
        out = {
            "file": str(path),
            "fetched_at": header.get("fetched_at"),
            "rows": len(book.refreshed_ids),
            "superseded": list(book.superseded_ids),
            "sources": sources,
        }
        print(json.dumps(out, indent=2))
        return 0
    fetched = str(header.get("fetched_at", "?"))
    shown = [
        f"refreshed prices in use: {path} (fetched {_printable(fetched)}, {_age(fetched)}), "
        f"{len(book.refreshed_ids):,} rows; {len(book.superseded_ids):,} older catalog rows of "
        "the same offers superseded"
    ]
    for s in sources:
        line = _source_line(
            str(s.get("name", "?")),
            _int(s.get("rows_read", 0)),
            _int(s.get("rows_written", 0)),
            str(s.get("as_of", "?")),
            str(s.get("as_of_basis", "?")),
        )
        shown.append(f"  {line}")
        shown.append(f"    skipped: {_skipped(s.get('skipped', {}), s.get('unmapped', {}))}")
    emit(Document(text_lines("\n".join(shown))), args)
    return 0


def run(args: argparse.Namespace) -> int:
    """Refresh or show the refreshed prices (see module docstring)."""
    options = request(PricesOptions, args)
    if args.action == "refresh":
        return _refresh(options, args)
    if options.source:
        raise ToolInputError("--source", "only refresh takes --source", "gpu-sizer prices refresh")
    return _show(args)
