"""Writing config.toml: only what the user changed, keeping everything else as they wrote it.

The settings screen shows the settings in effect, which mix the file with the environment and
one-run flags (`--offline`, `--model`). Writing all of them back would make a flag permanent and
drop the user's comments and layout. `save_config_changes` edits the file in place with tomlkit
(a style-preserving TOML library): the keys it is given are set (None removes one), nested
tables (`[endpoints."<url>"]`, `[keybindings]`) are merged key by key, and every other line —
values, comments, order — stays as it was. The result is validated before it is written
(atomically), and a file that is not valid TOML is never overwritten.

Never written: API keys (not settings at all) and credentials in a base URL, which are
refused with a message saying where they belong instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import tomlkit
from tomlkit.container import Container
from tomlkit.exceptions import TOMLKitError
from tomlkit.items import Table

from assistant.atomic_write import write_text_atomic
from assistant.config import (
    Capabilities,
    Settings,
    config_path,
    read_config_text,
    validate_settings,
)
from assistant.redact import has_credentials
from tools.errors import ToolInputError

HEADER = "# gpu-sizer settings. The API key is NOT stored here: see api_key_env.\n"


def save_config_changes(changes: Mapping[str, Any], path: Path | None = None) -> Path:
    """Apply `changes` (setting name → value; None removes it; mappings merge key by key) to
    config.toml and write it atomically; returns the path.

    Raises ToolInputError when the existing file is not valid TOML (it is left untouched),
    when the result would not load, or when a base URL carries credentials."""
    target = path if path is not None else config_path()
    base_url = changes.get("base_url")
    if isinstance(base_url, str) and has_credentials(base_url):
        raise ToolInputError(
            "base_url",
            "credentials in the URL (user:password@) are not saved to config.toml",
            allowed="the URL without them; give credentials in OPENAI_BASE_URL or with "
            "--base-url for one run",
        )
    text = read_config_text(target)
    try:
        document = tomlkit.parse(text if text is not None else HEADER)
    except TOMLKitError as exc:
        raise ToolInputError(
            str(target), f"not valid TOML ({exc}); fix or remove it before saving"
        ) from None
    _merge(document, changes)
    updated = tomlkit.dumps(document)
    # Never write a file that would not load.
    import tomllib

    validate_settings(tomllib.loads(updated), str(target))
    return write_text_atomic(target, updated)


def _merge(table: Container | Table, changes: Mapping[str, Any]) -> None:
    for key, value in changes.items():
        if value is None:
            if key in table:
                del table[key]
        elif isinstance(value, Mapping):
            existing = table.get(key)
            if not isinstance(existing, Table):
                existing = tomlkit.table()
                table[key] = existing
            _merge(existing, value)
        else:
            table[key] = value


def settings_changes(before: Settings, after: Settings) -> dict[str, Any]:
    """What differs between two settings, in the form `save_config_changes` takes: changed
    scalars, and per endpoint only the capability switches that changed."""
    changes: dict[str, Any] = {}
    old, new = before.model_dump(), after.model_dump()
    for name, value in new.items():
        if name in ("endpoints", "keybindings") or value == old.get(name):
            continue
        changes[name] = value
    endpoints: dict[str, dict[str, bool]] = {}
    for url, caps in after.endpoints.items():
        # An endpoint with no stored switches runs with the defaults: only departures count.
        previous = before.endpoints.get(url, Capabilities())
        switched = {k: v for k, v in caps.model_dump().items() if getattr(previous, k) != v}
        if switched:
            endpoints[url] = switched
    if endpoints:
        changes["endpoints"] = endpoints
    keys = {k: v for k, v in after.keybindings.items() if before.keybindings.get(k) != v}
    if keys:
        changes["keybindings"] = keys
    return changes
