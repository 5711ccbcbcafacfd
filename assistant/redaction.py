"""Secrets never reach a message shown or saved: the configured API key and any bearer token.

A server error that echoes the request (some proxies return the `Authorization` header in their
error body) would otherwise put the key on stderr, in the app and in the session file. The
engine passes every error and notice text, and the answer it saves, through `redact`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

REDACTED = "[redacted]"
MIN_SECRET_CHARS = 6
"""Shorter configured values (e.g. the keyless placeholder) are not treated as secrets."""

_PATTERNS = (
    re.compile(r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{6,}"),
    re.compile(
        r"(?i)(\b(?:api[_-]?key|x-api-key|authorization)[\"']?\s*[:=]\s*[\"']?)[^\s\"',}]{6,}"
    ),
    re.compile(r"()\bsk-[A-Za-z0-9_-]{8,}"),
)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with each of `secrets` and anything shaped like a bearer token or key replaced."""
    for secret in secrets:
        if len(secret) >= MIN_SECRET_CHARS:
            text = text.replace(secret, REDACTED)
    for pattern in _PATTERNS:
        text = pattern.sub(lambda m: m.group(1) + REDACTED, text)
    return text
