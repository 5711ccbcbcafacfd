"""The endpoint's context window: learn it, then fit each request inside it.

A request is `prompt + tool schemas + history + max_tokens` tokens, and a local server's window
is often small (llama.cpp and Ollama commonly run 2,048-8,192 per slot). Where the size comes
from, first found wins:
1. the `context_window_tokens` setting;
2. `GET /models`: llama.cpp's `meta.n_ctx` (the per-slot context the server runs with; its
   `n_ctx_train` is the model's training length, only a bound), vLLM's `max_model_len`, LM
   Studio's `loaded_context_length` / `max_context_length`;
3. Ollama's `POST /api/show`: `parameters` `num_ctx` when the model file sets it, else Ollama's
   smallest default of 4,096 tokens (docs/context-length: "< 24 GiB VRAM: 4k context") capped at
   `model_info["<arch>.context_length"]`;
4. the body of a context-exceeded 400 (llama.cpp `"n_ctx": 4096`, vLLM/OpenAI "maximum context
   length is 4096 tokens"), learned on the failure and used for the retry;
5. `DEFAULT_WINDOW_TOKENS`.

Counts are o200k_base estimates; other tokenizers (Llama, SmolLM, Qwen) differ. The engine
scales estimates by `TokenScale`, learned from the `prompt_tokens` the server reports (never
below 1.0: the estimate only ever errs large), so a session keeps fitting as it grows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from assistant.tokens import count_messages, count_text, shorten_json_text

DEFAULT_WINDOW_TOKENS = 32_768
"""Used when neither the setting nor the endpoint says: every hosted chat model has at least
this much, and a smaller local server tells us in its context-exceeded error."""

OLLAMA_DEFAULT_NUM_CTX = 4_096
"""Ollama's context when the model file sets no num_ctx, on its smallest tier (< 24 GiB VRAM)."""

MIN_OUTPUT_TOKENS = 64
"""Never ask for fewer output tokens than this: below it no explanation fits."""

OUTPUT_SHARE = 4
"""At most 1/OUTPUT_SHARE of the window goes to the answer (1,024 of 4,096), the rest to the
prompt and history: small-window servers are small models, whose long answers ramble."""

LARGE_TOOL_RESULT_TOKENS = 600
"""Tool results of older turns above this size are shortened before any turn is dropped."""

REFILL_SHARE = 0.6
"""When turns must be dropped, drop down to this share of the room left for history."""

SAFETY_TOKENS = 32
"""Kept free besides the estimate: chat-template tokens the framing estimate may miss."""

PROBE_TIMEOUT_S = 3.0

LEARNED_SCALE_MARGIN = 1.05
DEFAULT_SCALE = 1.25
"""Before the server has reported usage: SmolLM's and Llama's tokenizers give up to ~1.2× the
o200k count on this project's JSON results."""


@dataclass(frozen=True)
class Window:
    """A context size and where it came from (for the notice and the tests)."""

    tokens: int
    source: str


@dataclass
class TokenScale:
    """Server tokens per o200k token, learned from reported usage."""

    factor: float = DEFAULT_SCALE

    def learn(self, estimated: int, reported: int | None) -> None:
        """Update from one request's estimate and the server's `prompt_tokens`."""
        if reported is None or estimated <= 0 or reported <= 0:
            return
        self.factor = min(3.0, max(1.0, reported / estimated * LEARNED_SCALE_MARGIN))

    def tokens(self, estimated: int) -> int:
        """`estimated` o200k tokens in the server's tokens (rounded up)."""
        return int(estimated * self.factor) + 1


# --- learning the size -----------------------------------------------------------------------


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float) and value >= 256:
        return int(value)
    if isinstance(value, str) and value.strip().isdigit():
        return _positive_int(int(value.strip()))
    return None


def window_from_models(body: Any, model: str) -> Window | None:
    """The context from a `GET /models` answer (llama.cpp, vLLM, LM Studio), or None."""
    if not isinstance(body, dict) or not isinstance(body.get("data"), list):
        return None
    entries = [e for e in body["data"] if isinstance(e, dict)]
    named = [e for e in entries if model in (e.get("id"), *(e.get("aliases") or []))]
    # llama.cpp answers any model name with the one model it serves.
    for entry in named or (entries if len(entries) == 1 else []):
        raw_meta = entry.get("meta")
        meta: dict[str, Any] = raw_meta if isinstance(raw_meta, dict) else {}
        n_ctx = _positive_int(meta.get("n_ctx"))
        if n_ctx:
            return Window(n_ctx, "llama.cpp /models meta.n_ctx")
        for key in ("max_model_len", "loaded_context_length", "context_length"):
            found = _positive_int(entry.get(key))
            if found:
                return Window(found, f"/models {key}")
        train = _positive_int(meta.get("n_ctx_train"))
        if train:
            return Window(train, "llama.cpp /models meta.n_ctx_train")
    return None


def window_from_ollama_show(body: Any) -> Window | None:
    """The context from Ollama's `/api/show` answer, or None when it is not one."""
    if not isinstance(body, dict) or not isinstance(body.get("model_info"), dict):
        return None
    trained = next(
        (
            _positive_int(v)
            for k, v in body["model_info"].items()
            if str(k).endswith(".context_length") and _positive_int(v)
        ),
        None,
    )
    parameters = body.get("parameters")
    if isinstance(parameters, str):
        match = re.search(r"^\s*num_ctx\s+(\d+)", parameters, re.M)
        if match:
            return Window(int(match.group(1)), "Ollama /api/show num_ctx")
    default = OLLAMA_DEFAULT_NUM_CTX if trained is None else min(trained, OLLAMA_DEFAULT_NUM_CTX)
    return Window(default, "Ollama default num_ctx")


_LIMIT_PATTERNS = (
    re.compile(r"maximum context length is (\d[\d,]*) tokens", re.I),  # vLLM, OpenAI
    re.compile(r"available context size \((\d[\d,]*) tokens\)", re.I),  # llama.cpp message
    re.compile(r"context (?:length|window|size) (?:of|is) (\d[\d,]*)", re.I),
)
_PROMPT_PATTERNS = (
    re.compile(r"request \((\d[\d,]*) tokens\)", re.I),  # llama.cpp
    re.compile(r"(?:you requested|resulted in) (\d[\d,]*) tokens", re.I),  # vLLM, OpenAI
)


@dataclass(frozen=True)
class ContextExceeded:
    """What a context-exceeded error says: the window and, when stated, the prompt's size."""

    window: int | None
    prompt_tokens: int | None


def context_exceeded(exc: BaseException) -> ContextExceeded | None:
    """Read a 400 that says the request is over the window; None for any other error."""
    if getattr(exc, "status_code", None) != 400:
        return None
    body = getattr(exc, "body", None)
    error = body.get("error", body) if isinstance(body, dict) else None
    text = f"{exc} {json.dumps(body) if body is not None else ''}"
    typed = isinstance(error, dict) and error.get("type") == "exceed_context_size_error"
    if not typed and not re.search(r"context (?:length|size|window)", text, re.I):
        return None
    window = _positive_int(error.get("n_ctx")) if isinstance(error, dict) else None
    prompt = _positive_int(error.get("n_prompt_tokens")) if isinstance(error, dict) else None
    for pattern in _LIMIT_PATTERNS:
        if window is None and (m := pattern.search(text)):
            window = int(m.group(1).replace(",", ""))
    for pattern in _PROMPT_PATTERNS:
        if prompt is None and (m := pattern.search(text)):
            prompt = int(m.group(1).replace(",", ""))
    return ContextExceeded(window, prompt)


def ollama_root(base_url: str) -> str:
    """`http://host:11434/v1` → `http://host:11434` (Ollama's native API lives at the root)."""
    parts = urlsplit(base_url)
    path = parts.path.rstrip("/")
    path = path.removesuffix("/v1")
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


# --- fitting a request -----------------------------------------------------------------------


@dataclass(frozen=True)
class FittedRequest:
    """The history to send and the `max_tokens` to ask for, within the window."""

    messages: list[dict[str, Any]]
    max_tokens: int
    prompt_tokens: int
    """Estimated prompt size in the server's tokens (scaled)."""
    estimated_tokens: int
    """The same in o200k tokens (unscaled), to learn the scale from the server's count."""
    dropped_turns: int
    fits: bool
    """False when even the latest turn alone, shortened, leaves no room for an answer."""


def output_budget(window: int, max_output_tokens: int) -> int:
    """Tokens reserved for the answer: the setting, at most a quarter of the window (but not
    below `MIN_OUTPUT_TOKENS` unless the setting itself is lower)."""
    return min(max_output_tokens, max(MIN_OUTPUT_TOKENS, window // OUTPUT_SHARE))


def _turns(messages: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    turns: list[list[dict[str, Any]]] = []
    for message in messages:
        if message.get("role") == "user" or not turns:
            turns.append([])
        turns[-1].append(dict(message))
    return turns


def fit_request(
    system: Sequence[dict[str, Any]],
    history: Sequence[dict[str, Any]],
    tools: Sequence[dict[str, Any]],
    window: int,
    max_output_tokens: int,
    scale: TokenScale,
    already_dropped: int = 0,
) -> FittedRequest:
    """Drop the oldest whole turns (a turn runs from a user message to the next, so a tool call
    is never split from its results) until prompt + history + answer fit `window`; then shorten
    the latest turn's tool results if it alone is too long. `max_tokens` is what is left, at
    most `output_budget`.

    Before any turn goes, older turns' results over `LARGE_TOOL_RESULT_TOKENS` are shortened
    (lists cut to their first items, scalars kept). The first `already_dropped` turns (left out
    of the previous request) stay out, and when more must go, turns are dropped down to
    `REFILL_SHARE` of the room: the history sent then starts at the same message for several
    requests, so a local server's prompt cache (llama.cpp `cache_prompt`) reuses it instead of
    re-reading the whole history on every question."""
    reserve = output_budget(window, max_output_tokens)
    limit = window - reserve - SAFETY_TOKENS

    def size(msgs: Sequence[dict[str, Any]]) -> int:
        return scale.tokens(count_messages([*system, *msgs], tools))

    turns = _turns(history)
    dropped = min(already_dropped, max(0, len(turns) - 1))
    turns = turns[dropped:]
    flat = [m for t in turns for m in t]
    if size(flat) > limit:
        # Older turns' large results are shortened first (their figures kept), so fewer
        # turns need to go.
        for turn in turns[:-1]:
            for message in turn:
                content = message.get("content")
                if (
                    message.get("role") == "tool"
                    and isinstance(content, str)
                    and count_text(content) > LARGE_TOOL_RESULT_TOKENS
                ):
                    message["content"] = shorten_json_text(content, LARGE_TOOL_RESULT_TOKENS)
        flat = [m for t in turns for m in t]
    if size(flat) > limit:
        base = size([])
        target = base + int((limit - base) * REFILL_SHARE)
        while len(turns) > 1 and (size(flat) > target):
            turns.pop(0)
            dropped += 1
            flat = [m for t in turns for m in t]
    if size(flat) > limit and turns:
        # The latest turn alone is over: shorten its tool results, largest first.
        tool_messages = sorted(
            (m for m in turns[-1] if m.get("role") == "tool" and isinstance(m.get("content"), str)),
            key=lambda m: -count_text(m["content"]),
        )
        for message in tool_messages:
            excess = size(flat) - limit
            if excess <= 0:
                break
            current = count_text(message["content"])
            target = max(40, current - int(excess / scale.factor) - 8)
            message["content"] = shorten_json_text(message["content"], target)
    estimated = count_messages([*system, *flat], tools)
    prompt = scale.tokens(estimated)
    max_tokens = min(reserve, window - prompt - SAFETY_TOKENS)
    least = min(MIN_OUTPUT_TOKENS, max_output_tokens)
    return FittedRequest(
        messages=flat,
        max_tokens=max(max_tokens, least),
        prompt_tokens=prompt,
        estimated_tokens=estimated,
        dropped_turns=dropped,
        fits=max_tokens >= least,
    )
