"""Layer hygiene: each layer imports without the ones above it (docs/ARCHITECTURE.md).

Each check runs in a fresh interpreter so that modules imported by other tests cannot hide a
stray import; one interpreter per layer, and each module alone only to name a leak. Every
listed module exists now: one that is missing or fails to import fails the check (it used to be
skipped while modules were being written, which would hide a broken import).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
