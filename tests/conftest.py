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


import pytest  # noqa: E402  (after the alias above, which must run before httpx is imported)


@pytest.fixture(autouse=True)
def _isolated_user_dirs(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests never read the developer's own settings, prices.toml or sessions: platformdirs
    resolves the config and data dirs under XDG_* on Linux, so point them at an empty temporary
    folder, and drop the settings' environment variables. A test that needs them sets them."""
    home = tmp_path_factory.mktemp("user-dirs")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / "config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / "data"))
    for name in (
        "GPU_SIZER_CONFIG_DIR",
        "GPU_SIZER_DATA_DIR",
        "GPU_SIZER_EUR_TO_USD",
        "GPU_SIZER_NOW",
        "GPU_SIZER_MODEL",
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
    ):
        monkeypatch.delenv(name, raising=False)
