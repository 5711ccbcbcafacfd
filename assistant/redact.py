"""Secrets never shown: credentials in URLs, the API key, bearer tokens a server echoes back.

A base URL may carry credentials (`http://user:secret@host/v1`, as curl and httpx accept).
They are split off before the URL is used anywhere (`split_credentials`), so the client, the
capability table, the header, notices, errors and saved files only ever see the bare URL; where
a URL is shown, the credentials are replaced by `***` (`redact_url`). Server error bodies are
passed through `redact_secrets` before they become a message: some echo the request's
Authorization header or the key itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import SplitResult, unquote, urlsplit, urlunsplit

MASK = "***"

_URL_USERINFO = re.compile(r"(?P<scheme>\b[a-zA-Z][a-zA-Z0-9+.-]*://)(?P<userinfo>[^/?#\s]+)@")
_AUTH_TOKEN = re.compile(r"\b(?P<scheme>Bearer|Basic|Token)(?P<space>\s+)[A-Za-z0-9._~+/=-]{4,}")
# A key a server echoes under a header or field name (`'x-api-key': '...'`, `api_key=...`), and
# strings shaped like OpenAI-style keys wherever they appear (issue 17).
_KEY_FIELD = re.compile(
    r"(?i)(?P<name>\b(?:x-)?api[_-]?key[\"']?\s*[:=]\s*[\"']?)(?P<value>[^\s\"',}]{6,})"
)
_KEY_SHAPE = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")
_MIN_SECRET_CHARS = 4
"""Shorter configured 'secrets' (a placeholder, a typo) are not searched for: they would mask
ordinary words."""


@dataclass(frozen=True)
class UrlCredentials:
    """The user name and password of a URL (percent-decoded). Never printed by `repr`."""

    username: str
    password: str

    def __repr__(self) -> str:
        return "UrlCredentials(<redacted>)"


def _without_userinfo(parts: SplitResult) -> SplitResult:
    host = parts.netloc.rpartition("@")[2]
    return parts._replace(netloc=host)


def split_credentials(url: str) -> tuple[str, UrlCredentials | None]:
    """(`url` without `user:password@`, the credentials or None)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    bare = urlunsplit(_without_userinfo(parts))
    return bare, UrlCredentials(unquote(parts.username or ""), unquote(parts.password or ""))


def has_credentials(url: str) -> bool:
    """True when `url` carries `user[:password]@`."""
    return "@" in urlsplit(url).netloc


def redact_url(url: str) -> str:
    """`url` for display: any credentials replaced by `***` (`http://***@host/v1`)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    host = parts.netloc.rpartition("@")[2]
    return urlunsplit(parts._replace(netloc=f"{MASK}@{host}"))


def redact_secrets(text: str, secrets: Iterable[str] = ()) -> str:
    """`text` with URL credentials, Bearer/Basic tokens, api-key fields, `sk-…` key shapes and
    each of `secrets` masked."""
    text = _URL_USERINFO.sub(lambda m: f"{m['scheme']}{MASK}@", text)
    text = _AUTH_TOKEN.sub(lambda m: f"{m['scheme']}{m['space']}{MASK}", text)
    text = _KEY_FIELD.sub(lambda m: f"{m['name']}{MASK}", text)
    text = _KEY_SHAPE.sub(MASK, text)
    for secret in sorted(set(secrets), key=len, reverse=True):
        if len(secret) >= _MIN_SECRET_CHARS:
            text = text.replace(secret, MASK)
    return text
