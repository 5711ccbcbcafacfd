"""Layer hygiene: each layer imports without the ones above it (docs/ARCHITECTURE.md).

Each check runs in a fresh interpreter so that modules imported by other tests cannot hide a
stray import; one interpreter per layer, and each module alone only to name a leak. Every
listed module exists now: one that is missing or fails to import fails the check (it used to be
skipped while modules were being written, which would hide a broken import).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# tools/: pure calculators. Never Textual, never openai, never the assistant package.
TOOLS_MODULES = (
    "tools",
    "tools.units",
    "tools.errors",
    "tools.architecture",
    "tools.hf_config",
    "tools.catalog",
    "tools.memory",
    "tools.performance",
    "tools.workload",
    "tools.recommend",
    "tools.pricing",
    "tools.cost",
    "tools.generic_model",
    "tools.advice",
    # Imported first, before tools.memory (which they use and which uses them): no cycle.
    "tools.model_sources",
    "tools.model_sources.tags",
)
# The engine side and the CLI: may use openai, never Textual.
ENGINE_MODULES = (
    "assistant.cli",
    "assistant.commands.models",
    "assistant.commands.gpus",
    "assistant.events",
    "assistant.conversation",
    "assistant.engine_base",
    "assistant.config",
    "assistant.registry",
    "assistant.tokens",
    "assistant.grounding",
    "assistant.llm",
    "assistant.offline",
    "assistant.sessions",
)
# Engine-side modules added after the list above (CLI subcommands, proposal, summaries...).
MORE_ENGINE_MODULES = (
    "assistant.engines",
    "assistant.wire",
    "assistant.results",
    "assistant.schemas",
    "assistant.cost_tool",
    "assistant.prompts",
    "assistant.proposal",
    "assistant.atomic_write",
    "assistant.commands.memory",
    "assistant.commands.recommend",
    "assistant.commands.cost",
    "assistant.commands.ask",
    "assistant.commands.proposal",
)
# Listing the catalog from the CLI must not pay for the chat stack either.
CLI_WITHOUT_OPENAI = ("assistant.cli", "assistant.commands.models", "assistant.commands.gpus")

_PROBE = (
    "import importlib, json, sys; [importlib.import_module(m) for m in sys.argv[1:]]; "
    "print(json.dumps(sorted(m for m in sys.modules "
    "if m.split('.')[0] in ('textual', 'openai', 'assistant'))))"
)


def _loaded_after_import(*modules: str) -> set[str]:
    """Top-level packages among textual/openai/assistant that importing `modules` pulls in."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *modules],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, f"import {modules} failed:\n{done.stderr}"
    return {name.split(".")[0] for name in json.loads(done.stdout)}


def _leaking(modules: tuple[str, ...], forbidden: set[str]) -> dict[str, set[str]]:
    """The modules among `modules` whose import pulls in a `forbidden` package, each with what
    it pulled in. A negative check, so one interpreter importing them all decides the common
    case (if together they pull in none of `forbidden`, none of them does); only when it finds
    a leak is each module probed alone, so the failure names the module that leaks."""
    if not _loaded_after_import(*modules) & forbidden:
        return {}
    alone = {module: _loaded_after_import(module) & forbidden for module in modules}
    return {module: leaked for module, leaked in alone.items() if leaked}


def test_tools_import_without_ui_llm_or_assistant() -> None:
    assert not _leaking(TOOLS_MODULES, {"textual", "openai", "assistant"})


def test_engine_and_cli_import_without_textual() -> None:
    assert not _leaking(ENGINE_MODULES + MORE_ENGINE_MODULES, {"textual"})


def test_catalog_cli_imports_without_openai() -> None:
    assert not _leaking(CLI_WITHOUT_OPENAI, {"openai"})


def test_probe_detects_a_leak() -> None:
    # The check itself must be able to fail: importing textual is seen as textual (textual is a
    # core dependency, so it is never skipped), and the leak is named by module.
    assert "textual" in _loaded_after_import("textual")
    assert _leaking(("tools.units", "textual"), {"textual"}) == {"textual": {"textual"}}


# The commands a script or a coding agent runs many times: they answer from the catalog and the
# offline engine, so the chat stack (Textual), the LLM client (openai, httpx) and the tokenizer
# (tiktoken) are never loaded for them (issue 32, fast start). Run as a user runs them, in a
# fresh interpreter, with empty data, cache and config folders and no endpoint configured.
_OFFLINE_COMMANDS = {
    "ask --offline": ["ask", "--offline", "--no-pager", "Llama 3 70B on 2x H100 for 50 users"],
    "memory": ["memory", "--model", "llama-3.1-70b", "--gpu", "h100-sxm"],
    "recommend": ["recommend", "--model", "llama-3.1-8b", "--users", "10"],
}
_CHAT_STACK = ("textual", "openai", "tiktoken", "httpx", "httpx2")
_RUN_COMMAND = (
    "import json, sys\n"
    "from assistant.cli import main\n"
    "code = main(sys.argv[1:])\n"
    "loaded = {m.split('.')[0] for m in sys.modules} & set(json.loads(sys.stdin.read()))\n"
    "print('\\nLOADED ' + json.dumps([code, sorted(loaded)]))\n"
)


def _run_offline(args: list[str], tmp_path: Path, prelude: str = "") -> tuple[int, list[str]]:
    """Exit code of `gpu-sizer ARGS` in a fresh interpreter and which chat-stack packages it
    loaded; `prelude` runs first (the probe's own check)."""
    unset = {"OPENAI_BASE_URL", "OPENAI_API_KEY", "GPU_SIZER_MODEL", "GPU_SIZER_CONFIG_DIR"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    env.update(
        GPU_SIZER_DATA_DIR=str(tmp_path / "data"),
        GPU_SIZER_CACHE_DIR=str(tmp_path / "cache"),
        XDG_CONFIG_HOME=str(tmp_path / "config"),
        PYTHONPATH=str(REPO),
    )
    done = subprocess.run(
        [sys.executable, "-c", prelude + _RUN_COMMAND, *args],
        input=json.dumps(_CHAT_STACK),
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    marker = [line for line in done.stdout.splitlines() if line.startswith("LOADED ")]
    assert marker, f"gpu-sizer {args} did not finish:\n{done.stderr}"
    code, loaded = json.loads(marker[-1].removeprefix("LOADED "))
    return code, loaded


@pytest.mark.parametrize("command", sorted(_OFFLINE_COMMANDS))
def test_offline_commands_never_load_the_chat_stack(command: str, tmp_path: Path) -> None:
    code, loaded = _run_offline(_OFFLINE_COMMANDS[command], tmp_path)
    assert code == 0
    assert loaded == [], f"{command} loaded {loaded}"


def test_the_chat_stack_check_sees_a_leak(tmp_path: Path) -> None:
    # The probe can fail: a run that has imported tiktoken is seen with it.
    assert _run_offline(_OFFLINE_COMMANDS["memory"], tmp_path, "import tiktoken\n") == (
        0,
        ["tiktoken"],
    )


# The app paints its first screen before it imports what a turn runs on (issue 32, fast start:
# first paint within 0.5 s, bench/bench_app.py); it imports those after the first frame
# (`GpuSizerApp._warm_up`). Importing the app and the offline engine — all `gpu-sizer` does
# before the first frame — must not pull them in.
_AFTER_FIRST_PAINT = (
    "assistant.offline.parser",  # the parser, the planner and the tools (tools.sizing.plan)
    "assistant.offline.planner",
    "tools.sizing.plan",
    "tools.memory",
    "assistant.app.turn",  # a turn's widgets and the card renderers
    "assistant.app.results",
    "assistant.app.widgets.message",  # Markdown (markdown-it, pygments)
    "assistant.app.screens.settings",  # tomlkit, with the settings screen
)


def test_the_first_screen_is_drawn_without_what_a_turn_runs_on() -> None:
    code = (
        "import json, sys\n"
        "import assistant.app.app, assistant.app.main, assistant.offline.engine\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True
    )
    loaded = set(json.loads(done.stdout))
    assert "assistant.app.app" in loaded  # the probe saw the import
    assert not loaded & set(_AFTER_FIRST_PAINT), sorted(loaded & set(_AFTER_FIRST_PAINT))


def test_after_the_first_frame_the_app_imports_what_a_turn_runs_on(tmp_path: Path) -> None:
    code = (
        "import asyncio, json, sys\n"
        "from pathlib import Path\n"
        "from assistant.app.app import GpuSizerApp\n"
        "from assistant.offline.engine import OfflineEngine\n"
        "async def main():\n"
        "    app = GpuSizerApp(OfflineEngine(), sessions_directory=Path(sys.argv[1]))\n"
        "    async with app.run_test(size=(80, 24)) as pilot:\n"
        "        await pilot.pause()\n"
        "        await app.workers.wait_for_complete()\n"
        "    print(json.dumps(sorted(sys.modules)))\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(tmp_path)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    loaded = set(json.loads(done.stdout.strip().splitlines()[-1]))
    assert set(_AFTER_FIRST_PAINT) - {"assistant.app.screens.settings"} <= loaded
