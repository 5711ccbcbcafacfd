"""Degenerate model output, detected while it streams: repetition loops and runaway length.

Small local models (SmolLM2-135M in the shared llama.cpp captures) fall into loops — "The 4-bit
Llama 3.1 70B is a 4-bit Llama 3.1 70B. The 4-bit Llama ..." — until the token cap, which takes
tens of seconds and buries the answer. `OutputGuard.feed` sees each fragment and says when to
stop: the same run of words repeated back to back (`MIN_REPEATS` times, at least
`MIN_LOOP_WORDS` words in all), the same run of characters repeated back to back (a loop
without spaces — "::Llama::Llama::Llama…", "ABCABCABC…" — in any tokenisation: fragments are
joined before they are compared), or more tokens than the request's cap (a server that ignores
`max_tokens`). Words are compared lower-cased without punctuation, so "70B." and "70B" match.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Literal

from assistant.tokens import count_text

MIN_REPEATS = 3
"""A run of words must occur this many times in a row to be a loop."""
MIN_LOOP_WORDS = 24
"""...and the repeats must cover at least this many words (so 'very, very, very' is prose)."""
MAX_PERIOD_WORDS = 80
LENGTH_SLACK = 1.25
"""Tokens are counted per fragment with o200k_base, which may count a server's token as two:
an answer is runaway only past the cap by this factor (plus 16 tokens)."""
"""Longest repeated run looked for, in words (a repeated paragraph of ~4 lines)."""
_TAIL_CHARS = 4000
MIN_CHAR_REPEATS = 4
MIN_LOOP_CHARS = 160
"""A run of characters repeated `MIN_CHAR_REPEATS` times in a row over at least this many
characters is a loop (a Markdown rule or table separator row is shorter)."""
MAX_PERIOD_CHARS = 240
_CHECK_EVERY_CHARS = 8
"""The character check runs once per this many new characters (it slices the tail)."""
_WORD_EDGES = re.compile(r"^\W+|\W+$")

StopReason = Literal["repetition", "length"]


def _normal_words(text: str) -> list[str]:
    words = (_WORD_EDGES.sub("", w.lower()) for w in text.split())
    return [w for w in words if w]


def repeated_tail(text: str) -> int | None:
    """The period (in words) of a loop the text ends in, or None."""
    words = _normal_words(text[-_TAIL_CHARS:])
    for period in range(1, MAX_PERIOD_WORDS + 1):
        repeats = max(MIN_REPEATS, -(-MIN_LOOP_WORDS // period))
        span = period * repeats
        if span > len(words):
            break
        tail = words[-span:]
        if all(tail[i] == tail[i + period] for i in range(span - period)):
            return period
    return None


def repeated_chars(text: str) -> int | None:
    """The period (in characters) of a loop of characters the text ends in, or None: whatever
    the spaces, so a loop the word check cannot see ("::Llama::Llama…") is caught too.
    Whitespace runs are one space, so a loop that varies only in spacing still repeats."""
    tail = " ".join(text[-(MAX_PERIOD_CHARS * MIN_CHAR_REPEATS + MIN_LOOP_CHARS) :].split())
    for period in range(1, MAX_PERIOD_CHARS + 1):
        span = max(period * MIN_CHAR_REPEATS, MIN_LOOP_CHARS)
        if span > len(tail):
            break
        window = tail[-span:]
        if window[:-period] == window[period:] and window.strip():
            return period
    return None


@dataclass
class OutputGuard:
    """Watches one streamed answer; `feed` returns why to stop it, or None to go on."""

    max_tokens: int
    text: str = ""
    tokens: int = 0
    stopped: StopReason | None = field(default=None)
    _checked_at: int = 0

    def feed(self, fragment: str) -> StopReason | None:
        """Add a fragment; the first time the output degenerates, say how."""
        if self.stopped is not None:
            return self.stopped
        self.text += fragment
        self.tokens += count_text(fragment)
        if self.tokens > self.max_tokens * LENGTH_SLACK + 16:
            self.stopped = "length"
        elif any(c.isspace() for c in fragment) and repeated_tail(self.text) is not None:
            self.stopped = "repetition"
        elif len(self.text) - self._checked_at >= _CHECK_EVERY_CHARS:
            self._checked_at = len(self.text)
            if repeated_chars(self.text) is not None:
                self.stopped = "repetition"
        return self.stopped
