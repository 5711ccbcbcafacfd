"""What the CLI prints, as a terminal user and a script see it (issue 33): every line of every
command's default output fits the terminal width it is given (80 and 120 columns) except a
token that cannot be broken; colour only on a terminal, never piped or with NO_COLOR; the
formats; the pager; the progress line; --version; the chat refusing to start without a
terminal."""

from __future__ import annotations

import csv
import io
import json
import os
import re
import subprocess
import sys
import threading
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from assistant import cli
from assistant.commands import _progress
from assistant.render import output as _output
from assistant.render.output import (
    Column,
    Document,
    Line,
    Styled,
    Table,
    Terminal,
    color_allowed,
    render_terminal,
)

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;]*m")
WIDTHS = (80, 120)

# Every command's default (human) output. A session is saved first (`ask`), so `sessions`
# and `proposal` have one to show.
QUESTION = "serve Llama 3.1 70B to 40 users with 16k context"
INVOCATIONS: dict[str, list[str]] = {
    "memory": ["memory", "--model", "llama-3.1-70b", "--gpu", "h100", "--context", "16k"],
    "memory-no-gpu": ["memory", "--model", "mixtral-8x7b", "--task", "lora"],
    "recommend": ["recommend", "--model", "llama-3.1-8b"],
    "recommend-training": ["recommend", "--model", "llama-3.1-8b", "--task", "full",
                           "--train-tokens", "1B", "--only", "h100", "a100"],
    "cost": ["cost", "--model", "llama-3.1-8b", "--users", "20"],
    "cost-direct": ["cost", "--gpu", "h100-sxm", "--count", "8", "--tokens-per-s", "5000"],
    "gpus": ["gpus"],
    "gpus-one": ["gpus", "h100"],
    "models": ["models"],
    "models-one": ["models", "llama-3.1-8b"],
    "ask": ["ask", "--offline", QUESTION],
    "sessions": ["sessions"],
    "sessions-show": ["sessions", "show"],
    "proposal": ["proposal", "--session", "{session}"],
    "prices": ["prices"],
    "help": ["--help"],
    **{f"help-{name}": [name, "--help"] for name in cli.COMMANDS},
}  # fmt: skip


def fake_terminal(width: int, color: bool = False, height: int = 50) -> Terminal:
    return Terminal(is_terminal=True, width=width, height=height, color=color)


@pytest.fixture
def as_terminal(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[Terminal]]:
    """stdout reads as a terminal of the width set in the list (colour off unless set)."""
    chosen = [fake_terminal(80)]
    # `_stream` binds `terminal` by name when first imported: patched first, it is imported
    # (and its real `terminal` recorded for the undo) before `render.output`'s is replaced;
    # the other order left every later test of the worker on this fake terminal.
    monkeypatch.setattr("assistant.commands._stream.terminal", lambda stream=None: chosen[0])
    monkeypatch.setattr(_output, "terminal", lambda stream=None: chosen[0])
    monkeypatch.setenv("PAGER", "cat")  # no pager (the pager has its own test)
    yield chosen


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    try:
        code = cli.main(argv)
    except SystemExit as stop:  # --help
        code = int(stop.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def too_wide(text: str, width: int) -> list[str]:
    """Lines over `width` that are more than one unbreakable token after their indent and
    bullet (a URL, a path, an id, an argparse usage group)."""
    bad = []
    for line in ANSI.sub("", text).splitlines():
        if len(line) <= width:
            continue
        body = line.strip().lstrip("-·•!│ ")
        if " " in body:
            bad.append(f"{len(line)}: {line}")
    return bad


def save_a_session(capsys: pytest.CaptureFixture[str]) -> str:
    """Ask one question (saved as a session in the test's own data dir); its id."""
    assert cli.main(["ask", "--offline", QUESTION]) == 0
    err = capsys.readouterr().err
    found = re.search(r"session (\w+):", err)
    assert found, err
    return found.group(1)


@pytest.mark.parametrize("name", sorted(INVOCATIONS))
def test_no_line_is_wider_than_the_terminal(
    name: str,
    as_terminal: list[Terminal],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    argv = INVOCATIONS[name]
    if name.startswith(("sessions", "proposal")):
        session = save_a_session(capsys)
        argv = [a.replace("{session}", session) for a in argv]
    for width in WIDTHS:
        as_terminal[0] = fake_terminal(width)
        monkeypatch.setenv("COLUMNS", str(width))  # argparse wraps --help to it
        code, out, err = run(argv, capsys)
        assert code == 0, err
        assert out.strip(), name
        assert not too_wide(out, width), "\n".join(too_wide(out, width))


def test_a_narrow_terminal_drops_columns_and_names_them(
    as_terminal: list[Terminal], capsys: pytest.CaptureFixture[str]
) -> None:
    as_terminal[0] = fake_terminal(120)
    _, out, _ = run(["gpus"], capsys)
    header = " ".join(out.split("─")[0].split())
    note = next(line for line in out.splitlines() if line.startswith("Not shown at 120 columns:"))
    # The GPU table has 11 columns, about 300 characters at full width: at 120 the most
    # droppable go (TDP, interconnect, segment), each named, none of them in the header.
    for dropped in ("TDP W", "segment"):
        assert dropped in note and dropped not in header
    assert "usable GiB" in header and "id" in header  # never dropped
    as_terminal[0] = Terminal(False, None, None, False)
    _, piped, _ = run(["gpus"], capsys)
    assert "Not shown" not in piped and "TDP W" in piped.splitlines()[0]


def test_piped_output_has_no_colour_and_a_terminal_has_it(
    as_terminal: list[Terminal], capsys: pytest.CaptureFixture[str]
) -> None:
    as_terminal[0] = fake_terminal(120, color=True)
    _, coloured, _ = run(["memory", "--model", "llama-3.1-8b", "--gpu", "l4"], capsys)
    assert "\x1b[" in coloured  # bold headers, a green fit
    as_terminal[0] = fake_terminal(120, color=False)
    _, plain, _ = run(["memory", "--model", "llama-3.1-8b", "--gpu", "l4"], capsys)
    assert "\x1b" not in plain
    assert ANSI.sub("", coloured).split() == plain.split()  # the same text, only styled


def test_no_color_and_a_dumb_terminal_turn_colour_off() -> None:
    # no-color.org: any value of NO_COLOR, even empty, turns colour off.
    assert color_allowed(True, {"TERM": "xterm-256color"}) is True
    assert color_allowed(True, {"TERM": "xterm-256color", "NO_COLOR": ""}) is False
    assert color_allowed(True, {"TERM": "dumb"}) is False
    assert color_allowed(False, {"TERM": "xterm-256color"}) is False  # a pipe


@pytest.mark.parametrize("env", [{"NO_COLOR": "1"}, {}])
def test_a_real_pipe_gets_no_escape_sequences(env: dict[str, str]) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "assistant", "memory", "--model", "llama-3.1-8b", "--gpu", "l4"],
        capture_output=True,
        text=True,
        env={**os.environ, "TERM": "xterm-256color", **env},
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    assert "\x1b" not in proc.stdout and proc.stdout.startswith("**Fits on 1× L4**")


def test_text_from_outside_cannot_style_or_escape() -> None:
    # A model name holding Rich markup and an OSC 52 clipboard write: printed as written,
    # harmless, even with colour on (only Rich's own SGR codes reach the terminal).
    hostile = "[bold red]x[/] \x1b]52;c;ZXZpbA==\x07evil"
    table = Table((Column("name"),), [(hostile,), (Styled(hostile, "good"),)])
    doc = Document([Line(hostile, lead="[link]"), table])
    out = render_terminal(doc, fake_terminal(80, color=True))
    assert "\x1b]" not in out and "ZXZpbA" not in out
    assert ANSI.sub("", out).count("[bold red]x[/] evil") == 3


def test_formats_csv_markdown_and_json_carry_the_same_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["recommend", "--model", "llama-3.1-8b", "--only", "h100-sxm", "l4", "a10g"]
    _, as_json, _ = run([*argv, "--format", "json"], capsys)
    _, short_json, _ = run([*argv, "--json"], capsys)
    assert json.loads(as_json) == json.loads(short_json)
    options = json.loads(as_json)["options"]
    _, as_csv, _ = run([*argv, "--format", "csv"], capsys)
    rows = list(csv.DictReader(io.StringIO(as_csv)))
    assert [(r["GPU"], int(r["GPUs"])) for r in rows] == [(o["gpu"], o["count"]) for o in options]
    # per GPU GiB = bytes / 2^30, one decimal.
    assert [r["per GPU GiB"] for r in rows] == [
        f"{o['per_gpu_bytes'] / 2**30:,.1f}" for o in options
    ]
    _, as_md, _ = run([*argv, "--format", "markdown"], capsys)
    table = [line for line in as_md.splitlines() if line.startswith("| ")]
    assert table[0].startswith("| GPU | GPUs | TP×PP×DP |") and len(table) == len(options) + 1
    assert "**headline:**" in as_md


def test_memory_leads_with_the_verdict_in_gib_and_names_components_in_words(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = run(["memory", "--model", "llama-3.1-8b", "--gpu", "h100", "--json"], capsys)
    est = json.loads(out)
    _, text, _ = run(["memory", "--model", "llama-3.1-8b", "--gpu", "h100"], capsys)
    lines = text.splitlines()
    # Llama 3.1 8B bf16 for one sequence fits one H100 SXM5 (80 GB): the first line says so.
    assert lines[0].startswith("**Fits on 1× H100 SXM5**")
    table = text.split("Assumptions:")[0]
    assert "GiB per GPU" in table and " GB" not in table
    assert "kv_cache" not in text and "KV cache" in table and "runtime overhead" in table
    # Serving trains nothing: no gradients or optimizer rows at 0.00.
    assert "gradients" not in table and "optimizer state" not in table
    weights = next(line for line in lines if line.startswith("weights "))
    assert f"{est['breakdown']['weights'] / 2**30:,.2f}" in weights.split()  # 16.06 GB = 14.96 GiB


def test_recommend_is_a_table_not_130_lines_of_pipes(capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = run(["recommend", "--model", "llama-3.1-8b"], capsys)
    assert " | " not in out
    assert out.splitlines()[0].startswith("headline: ")


def test_the_pager_takes_long_output_on_a_terminal_only(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    paged: list[tuple[list[str], str]] = []
    monkeypatch.setattr(_output, "_page", lambda text, argv: paged.append((argv, text)) or True)
    monkeypatch.setattr(_output, "terminal", lambda stream=None: fake_terminal(120, height=20))
    monkeypatch.setenv("PAGER", "less -R")
    run(["gpus"], capsys)
    assert paged and paged[0][0] == ["less", "-R"] and "h100-sxm" in paged[0][1]
    paged.clear()
    _, out, _ = run(["gpus", "--no-pager"], capsys)
    assert not paged and "h100-sxm" in out
    monkeypatch.setenv("PAGER", "cat")
    _, out, _ = run(["gpus"], capsys)
    assert not paged and "h100-sxm" in out
    monkeypatch.setattr(_output, "terminal", lambda stream=None: fake_terminal(120, height=200))
    monkeypatch.setenv("PAGER", "less")
    _, out, _ = run(["memory", "--model", "llama-3.1-8b"], capsys)  # fits on the screen
    assert not paged and "weights" in out


class _TtyBuffer(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_progress_line_only_for_slow_work_on_a_terminal(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from rich.status import Status

    shown = threading.Event()
    original_start = Status.start

    def start(self: Status) -> None:
        original_start(self)
        shown.set()

    monkeypatch.setattr(Status, "start", start)
    tty = _TtyBuffer()
    monkeypatch.setattr(sys, "stderr", tty)
    with _progress.working("sizing llama-3.1-70b", delay_s=0.0):
        assert shown.wait(10)  # past the delay, the spinner starts
    assert "sizing llama-3.1-70b" in tty.getvalue()
    shown.clear()
    with _progress.working("quick", delay_s=30):
        pass  # done long before the delay: no line at all
    assert not shown.is_set() and "quick" not in tty.getvalue()
    piped = io.StringIO()
    monkeypatch.setattr(sys, "stderr", piped)
    with _progress.working("piped", delay_s=0.0):
        pass
    assert piped.getvalue() == ""


def test_version_is_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    for flag in ("--version", "-V"):
        assert cli.main([flag]) == 0
        assert capsys.readouterr().out == f"gpu-sizer {declared}\n"


def test_the_chat_without_a_terminal_says_so_and_exits_2(tmp_path: Path) -> None:
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)}
    env.pop("OPENAI_BASE_URL", None)
    proc = subprocess.run(
        [sys.executable, "-m", "assistant", "--offline"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=ROOT,
        timeout=60,  # llmfit-style: at once, never a hang
    )
    assert proc.returncode == 2 and proc.stdout == ""
    (line,) = proc.stderr.strip().splitlines()
    assert "needs a terminal" in line and "stdin and stdout are not one" in line
    assert 'gpu-sizer ask "QUESTION"' in line
