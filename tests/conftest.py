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
