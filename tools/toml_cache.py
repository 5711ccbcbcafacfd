"""The parsed form of a catalog TOML file, cached as plain JSON keyed by the file's hash.

Parsing the catalog and price TOML files (~700 KB) with `tomllib` is a large share of a cold
start; reading the same data as JSON is several times faster. `parse_toml_cached(path, text)`
returns exactly `nesting.loads_toml(text)`, from a cache file when one for this text exists:

- keyed by the SHA-256 of the file's text (an edited, refreshed or replaced file is a new key,
  never a stale hit), under the user cache directory (`platformdirs.user_cache_dir`, or
  `GPU_SIZER_CACHE_DIR`), `toml/<file stem>-<hash>.json`;
- plain data only: the cache holds the parsed document as JSON, written only when it reads back
  equal (a TOML date or time, which JSON cannot hold, is simply not cached); the caller still
  validates every entry into its model, as from TOML;
- safe against corruption and concurrent writers: a cache file is checked on load (its format,
  its key, a JSON object) and ignored when anything is off — the TOML is parsed instead and
  the cache rewritten; writes go to a temporary file in the same folder and `os.replace` it,
  so a reader sees a whole file or none, and two writers write the same content;
- never in the way: a cache folder that cannot be written or read just means parsing (the
  folder and the atomic write are `tools/cache_files.py`'s, shared with the regex cache).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from pathlib import Path
from typing import Any

from tools.cache_files import user_cache_dir, write_atomically
from tools.nesting import MAX_DEPTH, NestingError, check_depth, loads_toml

CACHE_FORMAT = 1
_KEEP_PER_FILE = 2
"""Cache files kept per TOML file name (the current text's and one before: switching branches
or a refresh and back does not parse again); older ones are removed when a new one is written."""


def cache_dir() -> Path:
    """Where parsed catalog files are cached (not created here)."""
    return user_cache_dir("toml")


def parse_toml_cached(path: Path, text: str) -> dict[str, Any]:
    """`loads_toml(text)` (the text of `path`), read from the cache when it holds this text's
    parse. Raises what `loads_toml` raises for text that does not parse."""
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()
    target = cache_dir() / f"{path.stem}-{key[:32]}.json"
    cached = _read(target, key)
    if cached is not None:
        return cached
    data = loads_toml(text)
    _write(target, key, data)
    return data


def _read(target: Path, key: str) -> dict[str, Any] | None:
    try:
        raw = target.read_text(encoding="utf-8")
        document = json.loads(raw)
    except (OSError, UnicodeDecodeError, ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    data = document.get("data")
    if document.get("format") != CACHE_FORMAT or document.get("sha256") != key:
        return None
    if not isinstance(data, dict):
        return None
    try:
        check_depth(data, MAX_DEPTH)
    except NestingError:
        return None
    return data


def _write(target: Path, key: str, data: dict[str, Any]) -> None:
    try:
        text = json.dumps({"format": CACHE_FORMAT, "sha256": key, "data": data})
    except (TypeError, ValueError):  # a TOML date or time: not plain JSON data, not cached
        return
    if json.loads(text)["data"] != data:
        return
    if write_atomically(target, text):
        _prune(target)


def _prune(target: Path) -> None:
    """Remove all but the newest `_KEEP_PER_FILE` cache files of this TOML file name."""
    stem = target.name.rsplit("-", 1)[0]
    siblings = []
    for other in target.parent.glob(f"{stem}-*.json"):
        if other.name.rsplit("-", 1)[0] != stem:
            continue
        with contextlib.suppress(OSError):
            siblings.append((other.stat().st_mtime_ns, other))
    for _, old in sorted(siblings, reverse=True)[_KEEP_PER_FILE:]:
        if old != target:
            with contextlib.suppress(OSError):
                old.unlink()
