"""The one clock the assistant reads: what "now" is when a price's age is shown.

`tools/` never reads a clock (ages and staleness are computed at the instant the caller
passes); every assistant surface that prices something calls `now()` here, so one setting
makes every answer reproducible: `GPU_SIZER_NOW` (an ISO 8601 instant, e.g.
`2026-12-14T09:00:00Z`; a date alone is its 00:00 UTC) pins the clock for tests, for a report
dated to a day, and for the subprocesses tests start (the MCP server). Tests in-process may
also monkeypatch `now`.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime

from tools.errors import ToolInputError
from tools.pricing import as_of_instant

NOW_ENV = "GPU_SIZER_NOW"


def now() -> datetime:
    """The current instant (UTC), or the one `GPU_SIZER_NOW` pins.

    Raises `ToolInputError` naming the variable when it is set but is not a date or an ISO
    8601 instant, rather than silently using the real clock.
    """
    pinned = os.environ.get(NOW_ENV)
    if pinned is None or not pinned.strip():
        return datetime.now(UTC)
    instant = as_of_instant(pinned.strip())
    if instant is None:
        raise ToolInputError(
            NOW_ENV,
            f"{pinned!r} is not a date or an ISO 8601 instant",
            "e.g. 2026-12-14 or 2026-12-14T09:00:00Z, or unset it to use the system clock",
        )
    return instant
