"""The only network code of the price refresh: download one source, read the date of its data.

Runs only when the user types `gpu-sizer prices refresh`. Every failure — no network, a
timeout, an HTTP error status, a response too large or not text — becomes a `FetchError`
whose message is one line naming the source and what happened, so the command can say it and
leave the previous price file in place.
"""

from __future__ import annotations

from datetime import datetime

import httpx2

from assistant.prices.sources import PriceSource
from tools.nesting import loads_json
from tools.pricing import as_of_instant

MAX_RESPONSE_BYTES = 64 * 2**20
"""SkyPilot's largest catalog (AWS) is about 3 MB; anything past 64 MiB is not a price list."""

DEFAULT_TIMEOUT_S = 30.0


class FetchError(RuntimeError):
    """A source that could not be downloaded (the message is one line for the user)."""


def download(client: httpx2.Client, url: str, label: str) -> str:
    """The body of `url` as text; `FetchError` on any network or HTTP failure."""
    try:
        with client.stream("GET", url) as response:
            if response.status_code != 200:
                raise FetchError(f"{label}: HTTP {response.status_code} from {url}")
            chunks: list[bytes] = []
            size = 0
            for chunk in response.iter_bytes():
                size += len(chunk)
                if size > MAX_RESPONSE_BYTES:
                    raise FetchError(
                        f"{label}: response from {url} is over {MAX_RESPONSE_BYTES // 2**20} MiB"
                    )
                chunks.append(chunk)
    except httpx2.TimeoutException:
        raise FetchError(f"{label}: no answer from {url} in time (timeout)") from None
    except httpx2.HTTPError as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise FetchError(f"{label}: cannot reach {url} ({reason[:120]})") from None
    try:
        return b"".join(chunks).decode("utf-8")
    except UnicodeDecodeError:
        raise FetchError(f"{label}: response from {url} is not UTF-8 text") from None


def data_date(client: httpx2.Client, source: PriceSource) -> datetime | None:
    """When the source's data was last regenerated: its file's newest commit, from GitHub's
    commits API. None when that cannot be read (the caller then dates rows by the download)."""
    try:
        body = download(client, source.history_url, source.name)
        commits = loads_json(body)  # ValueError: not JSON, or nested too deeply
        stamp = commits[0]["commit"]["committer"]["date"]
    except (FetchError, ValueError, LookupError, TypeError):
        return None
    if not isinstance(stamp, str) or len(stamp) > 40:
        return None
    return as_of_instant(stamp)
