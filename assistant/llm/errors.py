"""Turn endpoint failures into plain-language messages that say what to check.

Also recognises the "feature not supported" answers of local servers (shared FIELD-NOTES), so
the engine can switch a capability off and retry instead of failing.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterable
from dataclasses import dataclass

import openai

from assistant.redact import redact_secrets

TOOLS_UNSUPPORTED_MARKERS = (
    "does not support tools",  # Ollama 400
    "enable-auto-tool-choice",  # vLLM 400: "auto" tool choice requires --enable-auto-tool-choice
    "unsupported param: tools",  # llama.cpp 500
    "tools param requires",  # llama.cpp 500: tools param requires --jinja flag
    "tool_choice",  # servers rejecting tool_choice / tools outright
    "tools are not supported",
    "tool calling is not supported",
)
"""Lower-case substrings of error bodies that mean: this endpoint cannot take `tools`."""

PARAM_MARKERS: dict[str, tuple[str, ...]] = {
    "stream_options": ("stream_options", "include_usage"),
    "parallel_tool_calls": ("parallel_tool_calls",),
    "strict": ("strict",),
    "streaming_tools": ("streaming with tools", "stream with tools", "tools with stream"),
    "structured_output": ("response_format", "json_schema", "grammar", "structured output"),
}
"""Capability switch → substrings of a 400 answer that say the endpoint rejects it."""


def error_text(exc: BaseException) -> str:
    """The server's message (body) or the exception text, lower-cased for matching."""
    parts = [str(exc)]
    body = getattr(exc, "body", None)
    if body is not None:
        parts.append(str(body))
    return " ".join(parts).lower()


def tools_unsupported(exc: BaseException) -> bool:
    """True for a 400/422/500 answer that says the endpoint does not support tools."""
    status = getattr(exc, "status_code", None)
    if status not in (400, 422, 500):
        return False
    text = error_text(exc)
    return any(marker in text for marker in TOOLS_UNSUPPORTED_MARKERS)


def rejected_capability(exc: BaseException, candidates: list[str]) -> str | None:
    """Which of the capability switches in use a 400/422 answer rejects, if any (a 500 too
    for a JSON schema: llama.cpp answers a schema it cannot turn into a grammar so)."""
    status = getattr(exc, "status_code", None)
    if status not in (400, 422) and not (status == 500 and "structured_output" in candidates):
        return None
    text = error_text(exc)
    for name in candidates:
        if any(marker in text for marker in PARAM_MARKERS[name]):
            return name
    return None


def retry_after_s(exc: BaseException) -> float | None:
    """Seconds the server asked us to wait (Retry-After / retry-after-ms), if it said."""
    response = getattr(exc, "response", None)
    if response is None:
        return None
    headers = response.headers
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return float(ms) / 1000
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        return max(0.0, parsed.timestamp() - time.time()) if parsed else None


def retryable(exc: BaseException) -> bool:
    """429, 5xx (except a tools-unsupported 500) and refused connections are worth a retry."""
    if isinstance(exc, openai.APITimeoutError):
        return False  # we already waited the whole timeout; say so instead of waiting again
    if isinstance(exc, openai.APIConnectionError):
        return True
    status = getattr(exc, "status_code", None)
    return status == 429 or (
        isinstance(status, int) and status >= 500 and not tools_unsupported(exc)
    )


@dataclass(frozen=True)
class Explained:
    """A failure in plain language: `kind` for the UI, `message` for people."""

    kind: str
    message: str


@dataclass(frozen=True)
class KeyState:
    """What authentication the requests carried: a key (from which variable), URL credentials,
    or nothing — and, when a key was configured but withheld, why. A 401 says which."""

    key_env: str
    key_sent: bool = True
    credentials_sent: bool = False
    withheld: str | None = None


def explain(
    exc: BaseException,
    base_url: str,
    model: str,
    key: KeyState | str,
    secrets: Iterable[str] = (),
) -> Explained:
    """What happened and what to check. Never includes a secret: a server's error body may echo
    the key or the Authorization header, so `secrets` (the key, URL credentials), bearer/basic
    tokens and URL credentials are masked in the message (assistant.redact). `key`: what the
    request carried (a bare variable name: a key from it was sent)."""
    state = KeyState(key) if isinstance(key, str) else key
    explained = _explain(exc, base_url, model, state)
    return Explained(explained.kind, redact_secrets(explained.message, secrets))


def _unauthorised(base_url: str, key: KeyState) -> str:
    """The 401 message: what was sent, so the user knows whether the key or its absence is
    the problem."""
    if key.key_sent:
        return (
            f"The endpoint {base_url} rejected the API key from ${key.key_env} (401). Check "
            "that it holds a valid key for this endpoint."
        )
    if key.credentials_sent:
        return (
            f"The endpoint {base_url} rejected the credentials in the base URL (401; no API "
            f"key was sent). Check them, or set ${key.key_env} to this endpoint's key."
        )
    why = f" ({key.withheld})" if key.withheld else f" (${key.key_env} is not set)"
    return f"The endpoint {base_url} needs an API key (401), and no key was sent{why}."


def _explain(exc: BaseException, base_url: str, model: str, key: KeyState) -> Explained:
    if isinstance(exc, openai.AuthenticationError):
        return Explained("auth", _unauthorised(base_url, key))
    if isinstance(exc, openai.PermissionDeniedError):
        return Explained(
            "auth",
            f"The endpoint refused access (403) to model {model!r}. Check that your key may use "
            "this model.",
        )
    if isinstance(exc, openai.NotFoundError):
        if "model" in error_text(exc):
            return Explained(
                "model",
                f"The endpoint does not know the model {model!r} (404). Check the model name "
                "(GPU_SIZER_MODEL, model in config.toml, or --model).",
            )
        return Explained(
            "base_url",
            f"Nothing answers chat completions at {base_url} (404). Check the base URL: "
            "OpenAI-compatible servers usually expect it to end in /v1.",
        )
    if isinstance(exc, openai.RateLimitError):
        wait = retry_after_s(exc)
        asked = f" and asked to wait {wait:g} s" if wait is not None else ""
        return Explained(
            "rate_limit",
            f"The endpoint is rate-limiting requests (429){asked}. Wait a moment and ask "
            "again, or check your plan's limits.",
        )
    if isinstance(exc, openai.APITimeoutError):
        return Explained(
            "timeout",
            f"The endpoint {base_url} did not answer in time. Check that the server is not "
            "overloaded, or raise request_timeout_s in config.toml.",
        )
    if isinstance(exc, openai.APIConnectionError):
        return Explained(
            "connection",
            f"Could not connect to {base_url}. Check that the server is running and the "
            "base URL (host and port) is right.",
        )
    if isinstance(exc, openai.BadRequestError) and "context" in error_text(exc):
        return Explained(
            "context",
            "The question and its tool results do not fit in the model's context window, even "
            "with older turns left out. Start a new session, raise the server's context size "
            "(llama.cpp -c, Ollama num_ctx), or set context_window_tokens in config.toml.",
        )
    if isinstance(exc, openai.APIStatusError):
        return Explained(
            "server",
            f"The endpoint answered HTTP {exc.status_code}: {_short(exc.message)}. "
            "Check the server's log.",
        )
    if isinstance(exc, openai.APIError):
        return Explained(
            "stream",
            f"The endpoint reported an error in the middle of the answer: {_short(str(exc))}. "
            "The partial answer is kept; ask again to retry.",
        )
    return Explained("error", f"Unexpected failure talking to the endpoint: {_short(str(exc))}.")


def _short(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def retry_notice(exc: BaseException, wait_s: float, attempt: int, attempts: int) -> str:
    """What a retry is for, in plain language: refused, server error or rate limit."""
    when = f"retrying in {wait_s:g} s (retry {attempt} of {attempts})"
    if isinstance(exc, openai.APIConnectionError):
        return f"Could not connect to the endpoint; {when}."
    status = getattr(exc, "status_code", None)
    if status == 429:
        asked = retry_after_s(exc) is not None
        return (
            f"The endpoint is rate-limiting (429) and asked to wait {wait_s:g} s; retrying then "
            f"(retry {attempt} of {attempts})."
            if asked
            else f"The endpoint is rate-limiting (429); {when}."
        )
    return f"The endpoint answered HTTP {status}; {when}."


def wait_too_long(wait_s: float, limit_s: float) -> Explained:
    """A Retry-After longer than we wait: say so, and when to ask again."""
    return Explained(
        "rate_limit",
        f"The endpoint is rate-limiting requests (429) and asked to wait {wait_s:g} s, longer "
        f"than gpu-sizer waits (max_retry_wait_s = {limit_s:g} s). Ask again after that.",
    )
