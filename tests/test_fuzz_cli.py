"""Every `gpu-sizer` entry point under generated and hostile invocations (issue 21, item 7):
no traceback, exit 0 or 2, one line on stderr naming the flag, strict JSON, no inf/nan figure
(tests/fuzzing_cli.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fuzzing import Tally
from tests.fuzzing_cli import check_invocation, fuzz_cli, run_cli

MIN_INVOCATIONS = 200
"""Issue 21's acceptance: at least this many CLI invocations in CI."""
FILE_KINDS = ("config.toml", "prices.toml", "session")
MIN_FILE_CASES = 48
"""Hostile files read by the CLI in CI (16 of each kind); `make bench` reads 200 of each."""


@pytest.fixture(autouse=True)
def _no_app(monkeypatch: pytest.MonkeyPatch) -> None:
    """An invocation that would open the chat app returns at once instead."""
    monkeypatch.setattr("assistant.app.main.run_app", lambda overrides=None: 0)


def test_generated_invocations_of_every_entry_point_keep_the_cli_contract(
    tmp_path: Path,
) -> None:
    tally = Tally()
    fuzz_cli(tally, tmp_path)
    assert tally.inputs["cli"] >= MIN_INVOCATIONS
    shown = "\n".join(f"{f.kind}: {f.arguments} -> {f.detail}" for f in tally.findings[:5])
    assert not tally.findings, shown
    # Both outcomes are exercised: refusals (exit 2) and answers (exit 0), for the generated
    # invocations and for each kind of hostile file (issue 34: config.toml, prices.toml,
    # sessions) — 0 tracebacks among them.
    for kind in ("cli", *FILE_KINDS):
        assert 0 < tally.errors[kind] < tally.inputs[kind], kind
    assert sum(tally.inputs[kind] for kind in FILE_KINDS) >= MIN_FILE_CASES


def test_the_checks_catch_what_they_look_for() -> None:
    """The contract checks themselves: a multi-line error, an unnamed one, NaN in --json."""
    from tests.fuzzing_cli import Invocation

    names = {"--users", "users"}
    cases = {
        "not_one_line": Invocation(("memory",), 2, "", "usage: x\nx: error: --users: bad\n"),
        "unclear_error": Invocation(("memory",), 2, "", "gpu-sizer memory: error: it failed\n"),
        "non_finite": Invocation(("memory", "--json"), 0, '{"a": NaN}', ""),
        "exit_code": Invocation(("memory",), 1, "", "boom\n"),
    }
    from tests.fuzzing_files import check_file_invocation

    for kind, invocation in {
        "crash": Invocation(("cost",), 0, "", "Traceback (most recent call last):\n"),
        "unclear_error": Invocation(("cost",), 2, "", "gpu-sizer cost: error: it failed\n"),
        "not_one_line": Invocation(("cost",), 2, "", "a\ngpu-sizer cost: error: prices: x\n"),
    }.items():
        tally = Tally()
        check_file_invocation(invocation, tally, "prices.toml")
        assert [f.kind for f in tally.findings] == [kind]
    for kind, invocation in cases.items():
        tally = Tally()
        check_invocation(invocation, tally, names)
        assert [f.kind for f in tally.findings] == [kind]
    tally = Tally()
    check_invocation(run_cli(["memory", "--model", "llama-3.1-8b", "--users", "0"]), tally, names)
    assert tally.findings == [] and tally.errors["cli"] == 1
