"""Load prompt texts from `prompts/` (checkout) or the packaged copy `assistant/_data/prompts`."""

from __future__ import annotations

from functools import cache
from pathlib import Path

_HERE = Path(__file__).resolve().parent


def prompts_dir() -> Path:
    """The directory holding the prompt files, checkout first, then the wheel's copy."""
    for candidate in (_HERE.parent / "prompts", _HERE / "_data" / "prompts"):
        if candidate.is_dir() and any(candidate.glob("*.md")):
            return candidate
    raise FileNotFoundError("prompts directory not found (expected prompts/ or _data/prompts)")


@cache
def load_prompt(name: str = "system") -> str:
    """The text of `prompts/<name>.md`, stripped."""
    path = prompts_dir() / f"{name}.md"
    if not path.is_file():
        raise FileNotFoundError(f"prompt {name!r} not found in {path.parent}")
    return path.read_text(encoding="utf-8").strip()
