"""Moved to `tools.safe_files` (sessions and config.toml read through it too, and importing this
package would pull in the model loaders and tools.memory); re-exported for the loaders here."""

from tools.safe_files import (
    MAX_JSON_BYTES,
    open_regular,
    read_bounded,
    read_json_object,
    read_text,
)

__all__ = ["MAX_JSON_BYTES", "open_regular", "read_bounded", "read_json_object", "read_text"]
