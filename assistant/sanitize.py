"""Output hygiene: no text from a model, a tool, a file or the user writes control sequences.

A terminal obeys escape sequences wherever they appear in what it is sent: OSC 52 writes the
clipboard, OSC 0/2 set the window title, OSC 8 turns text into hyperlinks, CSI 2J clears the
screen, ESC c resets the terminal. Text that came from outside the program (a model's answer, a
tool's strings, a session or config file, the user's pasted question echoed back) passes through
`clean_text` before it reaches a widget, stdout or a file, so none of that can happen.

What is removed (ECMA-48 / ISO 6429 grammar, the same xterm follows):
- CSI sequences (`ESC [` or 0x9B, parameters 0x30-0x3F, intermediates 0x20-0x2F, a final byte
  0x40-0x7E), whole;
- control strings (OSC `ESC ]`/0x9D, DCS `ESC P`/0x90, SOS `ESC X`/0x98, PM `ESC ^`/0x9E, APC
  `ESC _`/0x9F) with their payload up to the terminator (BEL, `ESC \\` or 0x9C); a control string
  with no terminator within `MAX_CONTROL_STRING` characters loses only its introducer (its
  payload stays as plain, harmless text, so a stray ESC never swallows the rest of an answer);
- other escape sequences (`ESC` + intermediates + one final byte: `ESC c`, `ESC 7`, `ESC ( B`);
- every remaining C0 control except newline and tab, DEL, and every C1 control (0x80-0x9F);
- the invisible format characters that reorder or hide text (`_INVISIBLE`: bidirectional
  overrides, embeddings, isolates and marks; zero-width space, word joiner, BOM), and lone
  surrogates (`_SURROGATES`), which no terminal shows and UTF-8 cannot store.
  `\\r\\n` becomes `\\n`; a lone `\\r` (which moves the cursor back over a line) is dropped.

Markdown, Textual markup and HTML are left exactly as they are: escaping those is the renderer's
job (Rich `Text`, `markup=False`, `html.escape`), not this module's.
"""

from __future__ import annotations

import io
import json
import re
from collections.abc import Mapping
from typing import Any, TextIO, TypeVar

MAX_CONTROL_STRING = 4096
"""Longest payload (characters) an OSC/DCS/SOS/PM/APC string may have and still be removed with
its introducer; terminals cap OSC strings similarly (xterm: a few KiB for most commands)."""

_MAX_CSI_PARAMETERS = 32
_MAX_CSI_INTERMEDIATES = 8

_STRING_STARTS = "\x90\x98\x9d\x9e\x9f"
"""8-bit introducers of DCS, SOS, OSC, PM and APC strings."""
_INTRODUCER = re.compile(rf"[\x1b\x9b{_STRING_STARTS}]")

_SEQUENCE = re.compile(
    # CSI: introducer, parameters, intermediates, final byte.
    rf"(?:\x1b\[|\x9b)[\x30-\x3f]{{0,{_MAX_CSI_PARAMETERS}}}"
    rf"[\x20-\x2f]{{0,{_MAX_CSI_INTERMEDIATES}}}[\x40-\x7e]"
    # Control strings: introducer, payload without terminators, terminator (BEL, ST).
    rf"|(?:\x1b[\]PX^_]|[{_STRING_STARTS}])[^\x07\x1b\x9c]{{0,{MAX_CONTROL_STRING}}}"
    r"(?:\x07|\x1b\\|\x9c)"
    # Any other escape: intermediates, then one final byte (ESC c, ESC 7, ESC ( B, ESC ] alone).
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]"
)
_INVISIBLE = "\u061c\u200b\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff"
"""Format characters that reorder or hide text: the bidirectional embeddings, overrides and
isolates (U+202A-202E, U+2066-2069) and marks (U+200E, U+200F, U+061C) that make a terminal
show text in another order than it is stored ('Trojan Source', CVE-2021-42574), and the
zero-width space, word joiner, invisible operators and BOM (U+200B, U+2060-2064, U+FEFF) that
hide a difference between two names that look the same. Zero-width (non-)joiners (U+200C,
U+200D) stay: emoji sequences and Persian or Indic words need them."""

_SURROGATES = "\ud800-\udfff"
"""Lone surrogates (a JSON `"\\ud800"` parses to one): no terminal can show them and no file
can hold them in UTF-8 (saving a session holding one raised); a valid pair is one character
by the time it is a Python string."""

_CONTROL = re.compile(rf"[\x00-\x08\x0b-\x1f\x7f-\x9f{_INVISIBLE}{_SURROGATES}]")
"""Characters that must not survive: C0 except tab (0x09) and newline (0x0A), DEL, C1, the
invisible format characters of `_INVISIBLE` and lone surrogates."""

_PARTIAL_CSI = re.compile(
    rf"(?:\x1b\[|\x9b)[\x30-\x3f]{{0,{_MAX_CSI_PARAMETERS}}}[\x20-\x2f]{{0,{_MAX_CSI_INTERMEDIATES}}}"
)
_PARTIAL_STRING = re.compile(
    rf"(?:\x1b[\]PX^_]|[{_STRING_STARTS}])[^\x07\x1b\x9c]{{0,{MAX_CONTROL_STRING}}}\x1b?"
)
_PARTIAL_ESCAPE = re.compile(r"\x1b[\x20-\x2f]*")


_ENCODED_CONTROL = re.compile(
    r"\\u(?:00(?:[01][0-9a-fA-F]|7[fF]|[89][0-9a-fA-F])|061[cC]|200[bBeEfF]|202[a-eA-E]"
    r"|206[0-46-9]|[fF][eE][fF][fF]|[dD][89a-fA-F][0-9a-fA-F]{2})"
)
"""A character `_CONTROL` removes, written as a JSON escape (`\\u001b`, `\\u202e`)."""


def has_control(text: str) -> bool:
    """True when `text` holds any character `clean_text` would remove (or change)."""
    return _CONTROL.search(text) is not None


_ESCAPED_CONTROL = ("\\b", "\\f", "\\r")
"""C0 characters JSON writes as two-character escapes (its `\\n` and `\\t` are allowed)."""


def json_has_control(document: str) -> bool:
    """True when a JSON document holds a control character, raw or as an escape (`\\u00XX`,
    `\\r`, `\\b`, `\\f`): one pass over the text, so a large clean session file is not
    cleaned string by string. May say True for a document that only looks so (an escaped
    backslash)."""
    # `_CONTROL` already leaves newline and tab alone (raw ones are JSON whitespace); every
    # escape starts with a backslash, which most documents do not hold at all.
    return has_control(document) or (
        "\\" in document
        and (
            _ENCODED_CONTROL.search(document) is not None
            or any(escape in document for escape in _ESCAPED_CONTROL)
        )
    )


def clean_text(text: str) -> str:
    """`text` without escape sequences and control characters (newline and tab kept)."""
    if _CONTROL.search(text) is None:
        return text  # the common case, at C speed
    text = _SEQUENCE.sub("", text.replace("\r\n", "\n"))
    return _CONTROL.sub("", text)


T = TypeVar("T")


def clean_value(value: T) -> T:
    """`value` with every string in it cleaned (dict keys, lists and tuples included); `value`
    itself when nothing in it needs cleaning.

    A container is first checked whole, as the JSON text it encodes (`json_has_control`, at C
    speed): a stored sizing report holds thousands of strings, and walking them one by one on
    every message was most of the cost of a turn. Only one that holds a control character (or
    is not JSON: other types) is walked and rebuilt."""
    if isinstance(value, Mapping | list | tuple) and _json_clean(value):
        return value
    return _clean(value)  # type: ignore[no-any-return]


def _json_clean(value: Any) -> bool:
    """True when `value` encodes as JSON (str keys) holding no control character, so cleaning
    would change nothing. `ensure_ascii=False` keeps DEL and C1 characters raw; JSON escapes
    every C0 one (`\\u00XX`, `\\b`, `\\f`, `\\r`), which `json_has_control` sees."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return False
    return not json_has_control(text)


def _clean(value: Any) -> Any:
    if isinstance(value, str):
        return clean_text(value)
    if isinstance(value, Mapping):
        return {_clean(k): _clean(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_clean(v) for v in value]
    if isinstance(value, tuple):
        return tuple(_clean(v) for v in value)
    return value


def clean_json_text(text: str) -> str:
    """A JSON document (tool arguments, tool results) with control characters removed from the
    strings it encodes too: JSON writes ESC as the six characters `\\u001b`, which survive
    `clean_text` and come back as ESC when the document is parsed for display. Text that is not
    JSON is cleaned as plain text. Clean documents are returned unchanged (same characters)."""
    text = clean_text(text)
    if "\\" not in text:
        return text  # no escapes: nothing encoded can hide a control character
    from tools.nesting import loads_json  # here: `--help` builds a CleanStream, loads no tool

    try:
        value = loads_json(text)
    except ValueError:  # not JSON, or nested too deeply to walk (tools.nesting)
        return text
    cleaned = _clean(value)
    if cleaned == value:
        return text
    return json.dumps(cleaned, ensure_ascii=False, separators=(",", ":"))


class StreamCleaner:
    """`clean_text` for text that arrives in fragments (a streamed answer, stdout writes).

    An escape sequence split across fragments is held back until it is complete (or proven
    not to be a sequence), so the concatenated output equals `clean_text` of the concatenated
    input. `flush()` releases what is held at the end of the stream.
    """

    def __init__(self) -> None:
        self._pending = ""

    def feed(self, fragment: str) -> str:
        """Clean text that is safe to emit now; an unfinished sequence at the end is kept."""
        if not self._pending and _CONTROL.search(fragment) is None:
            return fragment
        text = self._pending + fragment
        cut = _unfinished_tail(text)
        self._pending = text[cut:]
        return clean_text(text[:cut])

    def flush(self) -> str:
        """Everything still held back, cleaned (the stream ended)."""
        text, self._pending = self._pending, ""
        return clean_text(text)


def _unfinished_tail(text: str) -> int:
    """Where an escape sequence that more text could still complete starts (len(text) if none).

    Mirrors `_SEQUENCE`: an introducer, matched or not, whose remainder could still grow into a
    longer sequence marks the cut (`ESC ]` alone is a complete two-character escape, but with
    more text it may become an OSC string). A trailing CR is held too: the next fragment may
    start with the LF that makes it a line end.
    """
    start = 0
    for match in _SEQUENCE.finditer(text):
        cut = _first_growing(text, start, match.start())
        if cut is not None:
            return cut
        if _could_grow(text[match.start() :]):
            return match.start()
        start = match.end()
    cut = _first_growing(text, start, len(text))
    if cut is not None:
        return cut
    if text.endswith("\r"):
        return len(text) - 1
    return len(text)


def _first_growing(text: str, start: int, end: int) -> int | None:
    """The first introducer in text[start:end] (not part of a match) that could still grow."""
    for found in _INTRODUCER.finditer(text, start, end):
        if _could_grow(text[found.start() :]):
            return found.start()
    return None


def _could_grow(rest: str) -> bool:
    return any(
        partial.fullmatch(rest) is not None
        for partial in (_PARTIAL_CSI, _PARTIAL_STRING, _PARTIAL_ESCAPE)
    )


class CleanStream(io.TextIOBase):
    """A text stream (stdout, stderr) that writes everything through a `StreamCleaner`: the
    CLI's last line of defence, whatever a command prints. `flush` ends any held sequence."""

    def __init__(self, stream: TextIO) -> None:
        super().__init__()
        self.stream = stream
        self._cleaner = StreamCleaner()

    def write(self, text: str) -> int:
        self.stream.write(self._cleaner.feed(text))
        return len(text)

    def flush(self) -> None:
        self.stream.write(self._cleaner.flush())
        self.stream.flush()

    def fileno(self) -> int:
        return self.stream.fileno()

    def isatty(self) -> bool:
        return self.stream.isatty()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.stream, "encoding", "utf-8") or "utf-8"
