"""Is a new message a follow-up of the previous workload, or a question of its own?

Both engines decide it here, through `parse_workload(text, previous)`: the offline engine and
the LLM engine's planner pass the previous turn's workload, and only a follow-up is merged
with it. A follow-up is
- an answer to the clarifying question the previous turn asked ("Which H100?" → "SXM");
- a message that says it refines the last one: it starts with "and", "also", "what about",
  "how about", "what if", "instead", "same ..." ("and 64 users?", "what about fp8?", "what
  about Qwen 72B?");
- a message that names no model ("fp8?", "on two H100s?", "at 32k context"): it cannot stand
  alone, so it refines the last workload.
A message that names its own model without such a cue ("Does Llama 3.1 8B fit on a single RTX
4090?") is a new question and starts fresh: nothing of an earlier, unrelated workload (its 40
users, its context) is carried into it.
"""

from __future__ import annotations

import re

from assistant.reading.parsed import ParsedWorkload
from assistant.regex_cache import compiled

_CUE = compiled(
    r"^\W*(?:and|also|what\s+about|how\s+about|what\s+if|instead|same|try|switch\s+to|"
    r"swap\s+(?:to|for|in)|go\s+with|change\s+(?:it\s+)?to)\b"
    # '… instead' said last: 'try the 14B instead', 'use Qwen2.5 32B instead?'
    r"|\binstead\s*[?.!]*\s*$",
    re.IGNORECASE,
)
"""Openings that say "the same workload, changed": only these carry the earlier workload into
a message that names a model. Looser openings ("So, does Llama 3.1 8B fit...?", "Now, ...")
start new questions as often as not, so they decide nothing."""


def names_its_own_model(parsed: ParsedWorkload) -> bool:
    """The message named a model: from the catalog, a size, a file, or a name the catalog
    does not have (which the parser turns into a question naming the closest ones)."""
    return parsed.has_model or parsed.asks("model", "unknown", "ambiguous")


def is_follow_up(text: str, parsed: ParsedWorkload, previous: ParsedWorkload | None) -> bool:
    """Whether `text` (parsed alone as `parsed`) refines `previous` (see the module)."""
    if previous is None:
        return False
    if previous.questions or parsed.changes:
        return True
    if _CUE.search(text):
        return True
    return not names_its_own_model(parsed)
