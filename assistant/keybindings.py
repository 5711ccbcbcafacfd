"""Key bindings users may remap (`[keybindings]` in config.toml), checked when settings load.

A binding the app cannot use must never be accepted quietly: `send = ""` used to stop Enter from
sending without a word. Every entry names a known action and one or more keys (comma
separated), each key a Textual key name with optional modifiers (`ctrl+s`, `shift+enter`, `f2`,
`a`); no key may serve two actions. A problem is a clear error naming the entry, raised while
the settings load (exit 2 before the app opens), never a silent fallback.

Key names are Textual's (textual.keys); this module does not import Textual so that loading
settings stays light (the CLI and the engines read them), and tests/test_keybindings.py checks
every name below against Textual's own list so the two cannot drift.
"""

from __future__ import annotations

import string
from collections.abc import Mapping

DEFAULT_KEYBINDINGS: dict[str, str] = {
    "send": "enter",
    "newline": "shift+enter,ctrl+j",
    "cancel": "escape",
    "quit": "ctrl+q",
    "new_session": "ctrl+n",
    "open_session": "ctrl+o",
    "save_session": "ctrl+s",
    "save_proposal": "ctrl+e",
    "toggle_details": "ctrl+d",
    "copy_answer": "ctrl+y",
    "help": "f1",
    "settings": "f2",
    "scroll_up": "pageup",
    "scroll_down": "pagedown",
    "scroll_home": "home",
    "scroll_end": "end",
    "follow": "ctrl+end",
}
"""Action → Textual key string; the app binds from this table so users can remap keys."""

MODIFIERS = ("ctrl", "shift", "alt", "meta", "super", "hyper")

NAMED_KEYS = frozenset(
    {
        "escape", "enter", "tab", "space", "backspace", "delete", "insert", "home", "end",
        "pageup", "pagedown", "up", "down", "left", "right", "newline",
        *(f"f{n}" for n in range(1, 25)),
        # Printable characters by the names Textual gives them (textual.keys._character_to_key).
        "exclamation_mark", "quotation_mark", "number_sign", "dollar_sign", "percent_sign",
        "ampersand", "apostrophe", "left_parenthesis", "right_parenthesis", "asterisk", "plus",
        "comma", "minus", "full_stop", "slash", "colon", "semicolon", "less_than_sign",
        "equals_sign", "greater_than_sign", "question_mark", "at", "left_square_bracket",
        "backslash", "right_square_bracket", "circumflex_accent", "underscore", "grave_accent",
        "left_curly_bracket", "vertical_line", "right_curly_bracket", "tilde",
    }
)  # fmt: skip
"""Key names besides single letters and digits."""

_SINGLE = frozenset(string.ascii_letters + string.digits)


def key_problem(key: str) -> str | None:
    """Why `key` (one key, e.g. 'ctrl+s') is not a key Textual can bind; None when it is."""
    if not key:
        return "an empty key"
    if key != key.strip() or any(c.isspace() for c in key):
        return f"{key!r} holds spaces"
    *modifiers, name = key.split("+")
    for modifier in modifiers:
        if modifier not in MODIFIERS:
            return f"{key!r}: {modifier!r} is not a modifier ({', '.join(MODIFIERS)})"
    if len(set(modifiers)) != len(modifiers):
        return f"{key!r} repeats a modifier"
    if not name:
        return f"{key!r} has no key after '+'"
    if name in _SINGLE or name in NAMED_KEYS:
        return None
    if len(name) == 1 and not modifiers and name.isprintable() and name != ",":
        return None  # a lone printable character: Textual names it itself
    return f"{key!r}: {name!r} is not a key name (letters, digits, f1-f24, enter, escape, ...)"


def keys_of(binding: str) -> list[str]:
    """The keys of one binding value ('shift+enter,ctrl+j' → two keys)."""
    return [key.strip() for key in binding.split(",")]


def check_keybindings(bindings: Mapping[str, str]) -> None:
    """Raise ValueError naming the first entry of `bindings` that cannot work: an unknown
    action, an empty or malformed key, or a key another action already uses (after the
    defaults for actions not listed)."""
    for action, binding in bindings.items():
        if action not in DEFAULT_KEYBINDINGS:
            raise ValueError(
                f"{action!r} is not an action; actions: {', '.join(DEFAULT_KEYBINDINGS)}"
            )
        if not isinstance(binding, str) or not binding.strip():
            raise ValueError(f"{action}: no key given (e.g. {DEFAULT_KEYBINDINGS[action]!r})")
        for key in keys_of(binding):
            problem = key_problem(key)
            if problem is not None:
                raise ValueError(f"{action}: {problem}")
    owners: dict[str, str] = {}
    for action, binding in {**DEFAULT_KEYBINDINGS, **bindings}.items():
        for key in keys_of(binding):
            if key in owners and owners[key] != action:
                raise ValueError(f"{key!r} is bound to both {owners[key]} and {action}")
            owners[key] = action
