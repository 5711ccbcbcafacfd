"""Shared test setup.

openai>=3 sends its requests through `httpx2`, which plain respx does not intercept. Aliasing
`httpx` to `httpx2` process-wide (before anything imports httpx) makes respx patch the transport
openai really uses. pyproject disables respx's own pytest plugin (`-p no:respx`) because that
plugin imports httpx before this file runs, which would make the alias fail.
Chosen over `http_client=httpx.AsyncClient()` (a documented temporary escape hatch) and over
pinning openai<3: tests then exercise the exact client the product ships with.
"""

import httpx2

httpx2.alias_httpx()


import functools  # noqa: E402
import gc  # noqa: E402
import itertools  # noqa: E402
import os  # noqa: E402
import ssl  # noqa: E402
from pathlib import Path  # noqa: E402

import httpcore2  # noqa: E402
import pytest  # noqa: E402  (after the alias above, which must run before httpx is imported)

_default_ssl_context = httpcore2.default_ssl_context


@functools.cache
def _shared_ssl_context(trust_env: bool, cafile: str | None, capath: str | None) -> ssl.SSLContext:
    return _default_ssl_context(_trust_env=trust_env)


def _cached_default_ssl_context(*, _trust_env: bool = True) -> ssl.SSLContext:
    """httpcore2's default context, built once per (trust_env, SSL_CERT_FILE, SSL_CERT_DIR),
    which is all it reads. Every `openai.AsyncOpenAI` (one per LlmEngine: hundreds in the suite)
    loaded the system CA bundle again, 60-110 ms each on CI's CPUs. No test makes a TLS
    connection (respx and loopback HTTP only) and nothing configures a client's context."""
    env = os.environ
    return _shared_ssl_context(_trust_env, env.get("SSL_CERT_FILE"), env.get("SSL_CERT_DIR"))


httpcore2.default_ssl_context = _cached_default_ssl_context


@pytest.hookimpl(trylast=True)  # after pytest's tmpdir plugin has made its factory
def pytest_configure(config: pytest.Config) -> None:
    """The run's own user cache folder from the start, before any test module is imported:
    the parser's module-level patterns compile through the regex cache
    (assistant/regex_cache.py) at import, which picks its file then, before
    `_isolated_user_dirs` first runs. The same folder as that fixture's."""
    factory = config._tmp_path_factory  # type: ignore[attr-defined]  # pytest's own, as tmp_path_factory
    os.environ["XDG_CACHE_HOME"] = str(factory.getbasetemp().parent / "cache")
    os.environ.pop("GPU_SIZER_CACHE_DIR", None)


GC_THRESHOLDS = (10_000, 20, 20)
"""The collector's thresholds while the tests run (CPython's default: 700, 10, 10)."""


def pytest_collection_finish(session: pytest.Session) -> None:
    """Full collections walk every tracked object, and a worker holds ~2 million after
    collection (every module, test function and parametrization) plus what the catalogs, the
    regex cache and Textual's caches keep: at the default thresholds each worker ran ~70 full
    collections of 0.2-0.4 s, 20-38 s of the suite's CPU (measured with `gc.callbacks`, 2-worker
    runs). What collection built is frozen (it lives as long as the worker; reference counting
    still frees what is dropped), and young collections run less often, so fewer short-lived
    objects reach the old generation. The collector stays on: cycles are still freed, later.
    Measured: GC 6-16 s instead of 32-38 s, ~20 s less CPU per run; peak worker RSS ~0.74 GB
    instead of ~0.53 GB. Nothing asserted depends on when a cycle is collected: the tests that
    look at the collector (tests/test_start_up.py) set up their own state."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


_USER_DIRS = itertools.count()


@pytest.fixture(scope="session")
def _user_dirs_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("user-dirs", numbered=False)


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory,
    _user_dirs_root: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Tests never read the developer's own settings, prices.toml or sessions: platformdirs
    resolves the config and data dirs under XDG_* on Linux, so point them at an empty temporary
    folder, and drop the settings' environment variables. A test that needs them sets them.
    The user cache folder is the run's own (tools/toml_cache.py, assistant/regex_cache.py; set
    for the whole process by `pytest_configure` too).

    Each test's folder is numbered by a counter under one folder of the run: pytest's own
    `mktemp` finds the next number by listing the base folder, whose entries grow with every
    test, so a folder per test that way cost ~1 ms more at each thousand tests run before it
    (quadratic: 3,000 trivial tests took 6.1 s CPU against 1.7 s for 1,000), and slowed
    every `tmp_path` listing the same folder."""
    home = _user_dirs_root / str(next(_USER_DIRS))
    home.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    # The parsed-catalog cache is keyed by the files' hash: one for the whole run (all workers)
    # is safe and spares each CLI subprocess parsing the TOML again.
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.getbasetemp().parent / "cache"))
    for name in (
        "GPU_SIZER_CONFIG_DIR",
        "GPU_SIZER_DATA_DIR",
        "GPU_SIZER_CACHE_DIR",
        "GPU_SIZER_EUR_TO_USD",
        "GPU_SIZER_NOW",
        "GPU_SIZER_MODEL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
