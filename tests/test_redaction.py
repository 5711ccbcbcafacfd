"""Secrets redaction (issue 17): the configured key and anything shaped like a bearer token."""

from __future__ import annotations

from assistant.redaction import REDACTED, redact

KEY = "sk-proj-AbC123xyz789SECRET"


def test_the_configured_key_and_token_shapes_are_redacted() -> None:
    echoed = (
        "Error code: 500 - {'error': {'message': 'boom', 'request_headers': "
        f"{{'Authorization': 'Bearer {KEY}', 'x-api-key': 'hunter2hunter2'}}}}}}"
    )
    out = redact(echoed, [KEY])
    assert KEY not in out and "hunter2hunter2" not in out
    assert out.count(REDACTED) >= 2
    assert "'Authorization'" in out  # what was there stays readable
    assert redact("sent Bearer abcdef123456 to the proxy") == "sent Bearer [redacted] to the proxy"
    # Key-shaped strings are caught even when the key is not the configured one.
    assert "sk-live-0123456789" not in redact("leaked sk-live-0123456789 here")
    assert redact("token=abc", ["no"]) == "token=abc"  # short values are not secrets


def test_ordinary_text_is_left_alone() -> None:
    text = "Llama 3.1 70B needs 2× H100 SXM5 (TP 2): 71.0 GiB per GPU; api docs at /v1/models."
    assert redact(text, [KEY]) == text
