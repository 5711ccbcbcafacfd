"""Secrets redaction as the LLM engine uses it (issue 17): the configured key, a proxy's echo
of the request headers, key-shaped strings (assistant/redact.py, shared with issue 21)."""

from __future__ import annotations

from assistant.redact import MASK, redact_secrets

KEY = "sk-proj-AbC123xyz789SECRET"


def test_an_echoed_request_loses_every_credential() -> None:
    echoed = (
        "Error code: 500 - {'error': {'message': 'boom', 'request_headers': "
        f"{{'Authorization': 'Bearer {KEY}', 'x-api-key': 'hunter2hunter2'}}}}}}"
    )
    out = redact_secrets(echoed, [KEY])
    assert KEY not in out and "hunter2hunter2" not in out
    assert "'Authorization'" in out and "'x-api-key'" in out  # what was there stays readable
    assert out.count(MASK) >= 2
    # Key-shaped strings are caught even when the key is not the configured one.
    assert "sk-live-0123456789" not in redact_secrets("leaked sk-live-0123456789 here")


def test_ordinary_text_is_left_alone() -> None:
    text = "Llama 3.1 70B needs 2× H100 SXM5 (TP 2): 71.0 GiB per GPU; api docs at /v1/models."
    assert redact_secrets(text, [KEY]) == text
