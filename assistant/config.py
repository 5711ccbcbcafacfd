"""Settings for the assistant: which endpoint and model, timeouts, endpoint quirks, keybindings.

Sources, later ones win (issue 6): the environment (`OPENAI_BASE_URL`, `GPU_SIZER_MODEL`,
`GPU_SIZER_EUR_TO_USD`), then
the TOML file `config.toml` in `platformdirs.user_config_dir("gpu-sizer")` (or in
`$GPU_SIZER_CONFIG_DIR`, used by tests), then CLI flags. The generic `OPENAI_*` variables are often
set for other tools, so the gpu-sizer-specific file overrides them.

The API key itself is never part of `Settings`: the file names the environment variable that holds
it (`api_key_env`, default `OPENAI_API_KEY`) and `resolve_api_key` reads it at request time, so
the key cannot be saved, logged or shown through this object. No endpoint configured → offline.

Credentials in the base URL (`http://user:secret@host/v1`) are split off before the URL is used
(`effective_base_url` never has them; `shown_base_url` masks them) and follow the key's rules:
`resolve_url_credentials` withholds them over plain http to a non-loopback host unless
`allow_insecure_key`. They are never written to config.toml (`assistant.config_file`).
"""

from __future__ import annotations

import argparse
import ipaddress
import math
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

import platformdirs
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

# DEFAULT_KEYBINDINGS is re-exported: callers read it from here.
from assistant.keybindings import DEFAULT_KEYBINDINGS as DEFAULT_KEYBINDINGS
from assistant.keybindings import check_keybindings
from assistant.redact import UrlCredentials, redact_url, split_credentials
from assistant.sanitize import has_control
from tools.errors import ToolInputError
from tools.limits import MAX_CONTEXT_TOKENS, MAX_EXCHANGE_RATE, MIN_EXCHANGE_RATE
from tools.nesting import NestingError, loads_toml, toml_decode_error
from tools.safe_files import read_text

DEFAULT_BASE_URL = "https://api.openai.com/v1"
"""The endpoint `OPENAI_API_KEY` belongs to by default; other endpoints need explicit consent."""

DEFAULT_KEY_ENV = "OPENAI_API_KEY"
KEYLESS_PLACEHOLDER = "no-key"
"""Sent when no key is configured: `api_key=None` would make openai read OPENAI_API_KEY itself."""

CONFIG_FILE_NAME = "config.toml"
CONFIG_MAX_BYTES = 2**20
"""Largest config.toml read (1 MiB; a real one is a few hundred bytes)."""


class Capabilities(BaseModel):
    """What one endpoint accepts. Defaults are what OpenAI itself accepts, except `strict`.

    `strict` is off by default: strict function schemas require every property to be required
    and `additionalProperties: false`, which pydantic schemas with defaults do not satisfy.
    The engine turns a switch off for the session when the endpoint rejects it (and says so).
    """

    model_config = ConfigDict(extra="forbid")

    tools: bool = True
    """Offer tools at all (Ollama/vLLM/llama.cpp without tool templates reject them)."""
    streaming_tools: bool = True
    """Stream while tools are offered (some servers drop tool calls when streaming)."""
    stream_options: bool = True
    """Send `stream_options={"include_usage": true}` to get token usage in the stream."""
    parallel_tool_calls: bool = True
    """Send `parallel_tool_calls=true`."""
    strict: bool = False
    """Mark function schemas `strict`."""
    structured_output: bool = True
    """Without tools, ask the model for its reading of the question as JSON in a schema
    (`response_format` json_schema; off for the session when the endpoint rejects it)."""


class Settings(BaseModel):
    """Everything the assistant reads from the environment, the config file and CLI flags."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True, allow_inf_nan=False)

    base_url: str | None = None
    """OpenAI-compatible endpoint, e.g. http://localhost:8080/v1. None: OpenAI if a key is set."""
    model: str | None = None
    """Model name sent with each request."""
    api_key_env: str = DEFAULT_KEY_ENV
    """Name of the environment variable holding the API key (never the key itself)."""
    send_key_to_custom_endpoint: bool = False
    """Send a key from OPENAI_API_KEY to a non-OpenAI base_url (off: that key is OpenAI's)."""
    allow_insecure_key: bool = False
    """Send the key over plain http to a non-loopback host."""
    connect_timeout_s: float = Field(default=5.0, gt=0, le=300)
    request_timeout_s: float = Field(default=120.0, gt=0, le=3600)
    """Read timeout per request (per chunk while streaming), seconds."""
    max_retries: int = Field(default=2, ge=0, le=10)
    """Our own bounded retries for 429/5xx/connection errors (the SDK's are off)."""
    max_retry_wait_s: float = Field(default=30.0, ge=0, le=600)
    """Longest Retry-After we honour; a longer one ends the turn with a rate-limit message."""
    max_tool_rounds: int = Field(default=4, ge=1, le=20)
    """Model ↔ tools round trips per turn before the engine stops asking for more tool calls."""
    context_window_tokens: int | None = Field(default=None, ge=512, le=MAX_CONTEXT_TOKENS)
    """The endpoint's context window, tokens. None: learned from the endpoint (llama.cpp, vLLM,
    Ollama say it; else its context-exceeded error), 32,768 until then. Prompt + tool schemas +
    history + answer are fitted inside it; older whole turns are trimmed (assistant.llm.window)."""
    max_output_tokens: int = Field(default=2_048, ge=16, le=MAX_CONTEXT_TOKENS)
    """Most `max_tokens` per model call; at most a quarter of a small window is used."""
    tool_profile: Literal["auto", "full", "lean"] = "auto"
    """Tools offered to the model: "lean" (two calculators, short prompt) for windows up to
    8,192 tokens when "auto" (assistant.llm.profile)."""
    stall_timeout_s: float = Field(default=60.0, gt=0, le=3600)
    """An answer that sends nothing for this long mid-stream is stopped (partial kept)."""
    offline: bool = False
    """Use the offline engine even when an endpoint is configured."""
    eur_to_usd: float | None = Field(
        default=None, ge=MIN_EXCHANGE_RATE, le=MAX_EXCHANGE_RATE, allow_inf_nan=False
    )
    """US dollars per euro, to compare EUR-priced offers in USD. None: EUR offers are listed in
    EUR and left out of USD rankings (answers say so). There is no built-in rate: rates move
    daily and every price figure must come from a source the user can check."""
    endpoints: dict[str, Capabilities] = Field(default_factory=dict)
    """Per-endpoint capability switches, keyed by base URL (normalised, no trailing slash)."""
    keybindings: dict[str, str] = Field(default_factory=lambda: dict(DEFAULT_KEYBINDINGS))

    def __repr_args__(self) -> Iterator[tuple[str | None, Any]]:
        # A repr reaches logs and tracebacks: the base URL's credentials are masked there too.
        for name, value in super().__repr_args__():
            yield name, (redact_url(value) if name == "base_url" and value else value)

    @field_validator("base_url", "model", "api_key_env")
    @classmethod
    def _no_control_characters(cls, value: str | None) -> str | None:
        # These are shown in the header and notices: a control sequence would reach the
        # terminal (assistant.sanitize), so it is refused where it comes in.
        if value is not None and has_control(value):
            raise ValueError("contains control characters (escape sequences are not allowed)")
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        # 'not a url' or 'localhost:8080' would be requested as a relative path and fail on the
        # first question, or (without a model) leave the assistant offline without a word.
        if value is None:
            return value
        parts = urlsplit(normalize_url(value))
        try:
            host = parts.hostname
        except ValueError:  # an unbalanced '[' in the host
            host = None
        if parts.scheme not in ("http", "https") or not host:
            raise ValueError(
                f"{redact_url(value)[:80]!r} is not an http(s) URL (e.g. http://localhost:8080/v1)"
            )
        return value

    @field_validator("keybindings")
    @classmethod
    def _known_actions_and_keys(cls, value: dict[str, str]) -> dict[str, str]:
        # A [keybindings] table lists what the user remapped; the rest keep their defaults.
        check_keybindings(value)
        return {**DEFAULT_KEYBINDINGS, **value}

    @property
    def effective_base_url(self) -> str:
        """The endpoint requests go to: `base_url` without any credentials, or OpenAI's."""
        if not self.base_url:
            return DEFAULT_BASE_URL
        return normalize_url(split_credentials(normalize_url(self.base_url))[0])

    @property
    def shown_base_url(self) -> str:
        """The endpoint as shown to people: credentials in it replaced by `***`."""
        return redact_url(normalize_url(self.base_url)) if self.base_url else DEFAULT_BASE_URL

    @property
    def url_credentials(self) -> UrlCredentials | None:
        """The `user:password` given in `base_url`, if any (see resolve_url_credentials)."""
        return split_credentials(normalize_url(self.base_url))[1] if self.base_url else None

    @property
    def capabilities(self) -> Capabilities:
        """Capability switches for the effective endpoint (defaults when none stored)."""
        return self.endpoints.get(self.effective_base_url, Capabilities())

    def with_capabilities(self, caps: Capabilities) -> Settings:
        """A copy with `caps` stored for the effective endpoint (to persist what was learned)."""
        endpoints = dict(self.endpoints)
        endpoints[self.effective_base_url] = caps
        return self.model_copy(update={"endpoints": endpoints})

    def llm_configured(self, env: Mapping[str, str] | None = None) -> bool:
        """True when the LLM engine can run: a model and either a base URL or an OpenAI key."""
        return self.offline_reason(env) is None

    def offline_reason(self, env: Mapping[str, str] | None = None) -> str | None:
        """Why the assistant runs offline, in plain language; None when an endpoint is usable."""
        environ = os.environ if env is None else env
        if self.offline:
            return "offline mode chosen (offline = true or --offline)"
        if self.base_url is None and not environ.get(self.api_key_env):
            return (
                "no endpoint configured (set OPENAI_BASE_URL or base_url in config.toml, "
                f"or {self.api_key_env} for OpenAI)"
            )
        if not self.model:
            return "no model configured (set GPU_SIZER_MODEL, model in config.toml, or --model)"
        return None


def normalize_url(url: str) -> str:
    """Strip whitespace and trailing slashes so one endpoint has one key in `endpoints`."""
    return url.strip().rstrip("/")


def config_dir(env: Mapping[str, str] | None = None) -> Path:
    """The directory holding config.toml: `$GPU_SIZER_CONFIG_DIR` or the platform's config dir."""
    environ = os.environ if env is None else env
    override = environ.get("GPU_SIZER_CONFIG_DIR")
    if override:
        return Path(override)
    return Path(platformdirs.user_config_dir("gpu-sizer"))


def config_path(env: Mapping[str, str] | None = None) -> Path:
    """Full path of config.toml."""
    return config_dir(env) / CONFIG_FILE_NAME


def _from_env(environ: Mapping[str, str]) -> dict[str, Any]:
    values: dict[str, Any] = {}
    if environ.get("OPENAI_BASE_URL"):
        values["base_url"] = environ["OPENAI_BASE_URL"]
    if environ.get("GPU_SIZER_MODEL"):
        values["model"] = environ["GPU_SIZER_MODEL"]
    if raw := environ.get("GPU_SIZER_EUR_TO_USD", "").strip():
        values["eur_to_usd"] = _rate(raw, "GPU_SIZER_EUR_TO_USD")
    return values


def _rate(text: str, name: str) -> float:
    """An exchange rate (US dollars per euro) from text; ToolInputError naming `name`."""
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not MIN_EXCHANGE_RATE <= value <= MAX_EXCHANGE_RATE:
        raise ToolInputError(
            name,
            f"{text!r} is not an exchange rate",
            f"US dollars per euro, {MIN_EXCHANGE_RATE:g} to {MAX_EXCHANGE_RATE:g}",
        )
    return value


def read_config_text(path: Path) -> str | None:
    """The text of config.toml, or None when there is none. A FIFO, a device, a huge file or
    bytes that are not UTF-8 are a ToolInputError naming the file, never a blocked read."""
    if not path.exists() and not path.is_symlink():
        return None
    return read_text(path, str(path), CONFIG_MAX_BYTES, "config.toml")


def _read_file(path: Path) -> dict[str, Any]:
    text = read_config_text(path)
    if text is None:
        return {}
    try:
        data = loads_toml(text)
    except NestingError as exc:
        raise ToolInputError(str(path), f"not a settings file ({exc})") from None
    except toml_decode_error() as exc:
        raise ToolInputError(str(path), f"not valid TOML ({exc})") from exc
    for secret in ("api_key", "key", "openai_api_key"):
        if secret in data:
            # Refuse rather than silently ignore: a key in a file is exactly what we never want.
            raise ToolInputError(
                f"{path}: {secret}",
                "API keys are not read from the config file",
                allowed="api_key_env = the NAME of the environment variable that holds the key",
            )
    return data


def validate_settings(values: Mapping[str, Any], origin: str) -> Settings:
    """`values` as Settings; ToolInputError naming `origin` and the field when they are not."""
    try:
        return Settings.model_validate(dict(values))
    except ValidationError as exc:
        err = exc.errors()[0]
        field = ".".join(str(p) for p in err["loc"]) or "config"
        allowed = (
            ", ".join(sorted(Settings.model_fields)) if err["type"] == "extra_forbidden" else None
        )
        problem = str(err["msg"]).removeprefix("Value error, ")
        raise ToolInputError(f"{origin}: {field}", problem, allowed=allowed) from exc


def load_config(
    overrides: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    path: Path | None = None,
) -> Settings:
    """Merge environment < config file < `overrides` (CLI flags; None values are ignored).

    Raises ToolInputError naming the file and field when the file is invalid.
    """
    environ = os.environ if env is None else env
    file_path = path if path is not None else config_path(environ)
    merged: dict[str, Any] = _from_env(environ)
    merged.update(_read_file(file_path))
    validate_settings(merged, str(file_path))
    flags = {k: v for k, v in (overrides or {}).items() if v is not None}
    try:
        validate_settings({**merged, **flags}, "command line")
    except ToolInputError as exc:
        # A flag's value is wrong: say it under the flag typed (`--timeout`, not the field).
        setting = exc.field.removeprefix("command line: ")
        value = repr(str(flags.get(setting, ""))[:60])
        typed = f"{value} rejected: " if setting in flags and value not in exc.problem else ""
        raise ToolInputError(
            CONFIG_FLAGS.get(setting, exc.field), typed + exc.problem, exc.allowed
        ) from None
    merged.update(flags)
    settings = validate_settings(merged, "command line")
    if settings.base_url is not None:
        settings.base_url = normalize_url(settings.base_url)
    return settings


CONFIG_FLAGS = {
    "base_url": "--base-url",
    "model": "--model",
    "api_key_env": "--api-key-env",
    "request_timeout_s": "--timeout",
}
"""Setting → the flag that overrides it (`add_config_arguments`): errors name the flag."""


def add_config_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the CLI flags that override settings (`--base-url`, `--model`, ...)."""
    parser.add_argument("--base-url", dest="base_url", help="OpenAI-compatible endpoint URL")
    parser.add_argument("--model", dest="model", help="model name at the endpoint")
    parser.add_argument(
        "--api-key-env",
        dest="api_key_env",
        help="name of the environment variable holding the API key",
    )
    parser.add_argument(
        "--timeout",
        dest="request_timeout_s",
        type=float,
        help="read timeout per request, seconds",
    )
    parser.add_argument(
        "--offline",
        dest="offline",
        action="store_true",
        help="use the built-in offline engine even when an endpoint is configured",
    )


def overrides_from_args(args: argparse.Namespace) -> dict[str, Any]:
    """The settings overrides present in parsed CLI args (flags not given are left out)."""
    keys = ("base_url", "model", "api_key_env", "request_timeout_s")
    out = {k: getattr(args, k) for k in keys if getattr(args, k, None) is not None}
    if getattr(args, "offline", False):
        out["offline"] = True
    return out


def configured_eur_to_usd(env: Mapping[str, str] | None = None) -> float | None:
    """The EUR→USD rate from the environment and config.toml (CLI flags are the caller's to
    apply on top); None when neither sets one."""
    return load_config(env=env).eur_to_usd


@dataclass(frozen=True)
class ResolvedKey:
    """The key to send (or the keyless placeholder) and, when one was withheld, why."""

    value: str
    withheld_reason: str | None = None

    def __repr__(self) -> str:  # never show the key in logs or tracebacks
        return f"ResolvedKey(value=<redacted>, withheld_reason={self.withheld_reason!r})"


def is_loopback(host: str) -> bool:
    """True for localhost names and loopback IP addresses."""
    if host.lower() in {"localhost", "localhost.localdomain"} or host.lower().endswith(
        ".localhost"
    ):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def resolve_api_key(settings: Settings, env: Mapping[str, str] | None = None) -> ResolvedKey:
    """Read the key from `settings.api_key_env`, applying the security rules of issues 6 and 28.

    - The pair `OPENAI_BASE_URL` + `OPENAI_API_KEY` means "this key for that endpoint" (the
      openai SDK's convention): the key goes to the endpoint `OPENAI_BASE_URL` names.
    - A key from OPENAI_API_KEY with a base URL from elsewhere (config.toml, `--base-url`) goes
      there only when `send_key_to_custom_endpoint` is set or `api_key_env` was given
      explicitly (`--api-key-env OPENAI_API_KEY` included): otherwise it is OpenAI's key.
    - A key never goes over plain http to a non-loopback host unless `allow_insecure_key`.
    Keyless endpoints get a placeholder, never None (openai would read OPENAI_API_KEY itself).
    """
    environ = os.environ if env is None else env
    key = environ.get(settings.api_key_env, "")
    if not key:
        return ResolvedKey(KEYLESS_PLACEHOLDER)
    url = settings.effective_base_url
    parts = urlsplit(url)
    custom = url != DEFAULT_BASE_URL
    paired = normalize_url(split_credentials(environ.get("OPENAI_BASE_URL", ""))[0]) == url
    if (
        custom
        and settings.api_key_env == DEFAULT_KEY_ENV
        and "api_key_env" not in settings.model_fields_set
        and not settings.send_key_to_custom_endpoint
        and not paired
    ):
        return ResolvedKey(
            KEYLESS_PLACEHOLDER,
            f"{DEFAULT_KEY_ENV} is not sent to {parts.netloc or url}: that base URL is not "
            "OPENAI_BASE_URL, so the key is taken to be OpenAI's. Set OPENAI_BASE_URL to it, "
            "send_key_to_custom_endpoint = true, or api_key_env to the variable holding this "
            "endpoint's key",
        )
    if (
        parts.scheme == "http"
        and not is_loopback(parts.hostname or "")
        and not (settings.allow_insecure_key)
    ):
        return ResolvedKey(
            KEYLESS_PLACEHOLDER,
            f"the API key is not sent over plain http to {parts.hostname}; use https or set "
            "allow_insecure_key = true",
        )
    return ResolvedKey(key)


def resolve_url_credentials(
    settings: Settings,
) -> tuple[UrlCredentials | None, str | None]:
    """The base URL's credentials if they may be sent, and why they were withheld if not.

    Credentials written into the URL were given for that host, so the OpenAI-key consent rule
    does not apply; the plain-http rule does: never over http to a non-loopback host unless
    `allow_insecure_key` (the same switch the key obeys)."""
    credentials = settings.url_credentials
    if credentials is None:
        return None, None
    parts = urlsplit(settings.effective_base_url)
    if (
        parts.scheme == "http"
        and not is_loopback(parts.hostname or "")
        and not (settings.allow_insecure_key)
    ):
        return None, (
            f"the credentials in the base URL are not sent over plain http to {parts.hostname}; "
            "use https or set allow_insecure_key = true"
        )
    return credentials, None
