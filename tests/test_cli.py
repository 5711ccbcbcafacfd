"""The `gpu-sizer` dispatcher: app flags, help, lazy subcommands, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import pytest

from assistant import cli


def test_app_flags_reach_the_app_as_setting_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Mapping[str, Any] | None] = []

    def fake_run_app(overrides: Mapping[str, Any] | None = None) -> int:
        seen.append(overrides)
        return 0

    monkeypatch.setattr("assistant.app.main.run_app", fake_run_app)
    code = cli.main(["--base-url", "http://localhost:8000/v1", "--model", "qwen", "--offline"])
    assert code == 0
    assert seen == [{"base_url": "http://localhost:8000/v1", "model": "qwen", "offline": True}]


def test_no_arguments_open_the_app_without_overrides(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[Mapping[str, Any] | None] = []
    monkeypatch.setattr(
        "assistant.app.main.run_app", lambda overrides=None: seen.append(overrides) or 0
    )
    assert cli.main([]) == 0
    assert seen == [{}]


def test_unknown_app_flag_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["--bogus"])
    assert exc.value.code == 2
    assert "--bogus" in capsys.readouterr().err


def test_help_lists_every_command_without_importing_textual_or_openai() -> None:
    code = (
        "import sys\n"
        "from assistant.cli import main\n"
        "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
        "print('textual' in sys.modules, 'openai' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    for name in cli.COMMANDS:
        assert name in out
    assert out.strip().splitlines()[-1] == "False False"


@pytest.mark.parametrize(
    ("typed", "tokens"),
    [
        ("16384", 16_384),
        ("16k", 16 * 1024),  # power-of-two k is binary, as model cards name windows
        ("128K", 128 * 1024),  # Llama 3.1's "128K" = max_position_embeddings 131,072
        ("100k", 100_000),  # not a power of two: decimal
    ],
)
def test_token_flags_accept_what_engineers_type(
    typed: str, tokens: int, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["memory", "--model", "llama-3.1-8b", "--context", typed, "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    # Llama-3.1-8B: 2 × 32 layers × 8 KV heads × 128 × 2 B = 131,072 B per token; vLLM's
    # 16-token blocks round each sequence up.
    blocks = -(-tokens // 16)
    assert result["breakdown"]["kv_cache"] == blocks * 16 * 131_072


def test_a_bad_token_count_exits_2_naming_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        cli.main(["recommend", "--model", "llama-3.1-8b", "--context", "lots"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--context" in err and "not a token count" in err
