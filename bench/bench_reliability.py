"""Reliability (issue 21, items 1 and 7): generated inputs through every tool of the registry
and every CLI entry point, and how many broke the contract.

The same engines as the test suite (tests/fuzzing.py, tests/fuzzing_cli.py), at twice CI's
volume: per tool, a valid share drawn from the field types and bounds, one-field mutations with
hostile values and broken JSON text; per command, invocations built from its own options with
hostile values, plus fixed cases (the issue's, unreadable paths, huge-number questions).
Failures counted: uncaught exceptions, non-finite figures in a result or `--json`, internal
errors or limits reached, errors that name no field (registry) or no flag (CLI), CLI failures
that do not exit 2 with one line. The offline parser's huge numbers (1e400 users, 26-digit
counts) are counted too: a failure is a figure read in part or dropped.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

REGISTRY_INPUTS_PER_TOOL = 20_000
CLI_INVOCATIONS_PER_COMMAND = 60

_KINDS = {
    "crash": "uncaught exceptions",
    "non_finite": "non-finite figures (NaN/inf in a result, Infinity in --json)",
    "internal": "internal errors or limits reached",
    "unclear_error": "errors that name no field or flag",
    "not_one_line": "CLI failures not on one stderr line",
    "exit_code": "CLI exits other than 0 and 2",
}


@contextlib.contextmanager
def _isolated() -> Iterator[Path]:
    """A throwaway config/data dir and no endpoint settings, so the CLI cases never read or
    write the user's own files, and the chat app is never opened."""
    import assistant.app.main as app_main

    keys = ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "OPENAI_BASE_URL", "OPENAI_API_KEY",
            "GPU_SIZER_MODEL", "GPU_SIZER_EUR_TO_USD", "GPU_SIZER_CONFIG_DIR")  # fmt: skip
    saved = {k: os.environ.get(k) for k in keys}
    run_app = app_main.run_app
    with tempfile.TemporaryDirectory() as tmp:
        for key in keys:
            os.environ.pop(key, None)
        os.environ["XDG_CONFIG_HOME"] = f"{tmp}/config"
        os.environ["XDG_DATA_HOME"] = f"{tmp}/data"
        app_main.run_app = lambda overrides=None: 0  # type: ignore[assignment]
        try:
            yield Path(tmp)
        finally:
            app_main.run_app = run_app
            for key, value in saved.items():
                if value is None:
                    os.environ.pop(key, None)
                else:
                    os.environ[key] = value


def _parser_huge_numbers() -> tuple[int, int]:
    """(cases, failures): '<N> users/tokens/...' with N past every bound, in four notations."""
    from assistant.offline import parse_workload

    nouns = ("users", "concurrent users", "requests", "tokens of context", "tokens/s", "GPUs")
    numbers = [f"1e{e}" for e in (16, 20, 308, 400, 5000)]
    numbers += [f"10^{e}" for e in (16, 30, 400)] + ["9" * n for n in (17, 26, 60, 400)]
    numbers += ["3×10^40", "2.5e99"]
    cases = failures = 0
    for number in numbers:
        for noun in nouns:
            parsed = parse_workload(f"Llama 3.1 8B for {number} {noun}")
            cases += 1
            read = [parsed.users, parsed.context, parsed.tokens_per_s, parsed.gpu_count]
            asked = any("more than gpu-sizer can size" in q for q in parsed.questions)
            failures += any(v is not None for v in read) or not asked
    return cases, failures


def run() -> dict[str, Any]:
    from assistant.registry import default_registry
    from tests.fuzzing import Tally, fuzz_tool
    from tests.fuzzing_cli import fuzz_cli

    registry = default_registry()
    registry_tally = Tally()
    start = time.perf_counter()
    for tool in registry.names:
        fuzz_tool(registry, tool, registry_tally, REGISTRY_INPUTS_PER_TOOL)
    registry_s = time.perf_counter() - start
    cli_tally = Tally()
    start = time.perf_counter()
    with _isolated() as workdir:
        fuzz_cli(cli_tally, workdir, CLI_INVOCATIONS_PER_COMMAND)
    cli_s = time.perf_counter() - start
    parser_cases, parser_failures = _parser_huge_numbers()

    rows: list[dict[str, Any]] = []
    for tool in registry.names:
        rows.append(
            {
                "suite": f"registry: {tool}",
                "cases": registry_tally.inputs[tool],
                "failures": sum(f.tool == tool for f in registry_tally.findings),
                "counts": "calls breaking the contract (any kind below)",
            }
        )
    total = sum(registry_tally.inputs.values())
    kinds = registry_tally.kinds()
    for kind in ("crash", "non_finite", "internal", "unclear_error"):
        rows.append(
            {
                "suite": f"registry, all {len(registry.names)} tools",
                "cases": total,
                "failures": kinds[kind],
                "counts": _KINDS[kind],
            }
        )
    cli_kinds = cli_tally.kinds()
    for kind in ("crash", "exit_code", "not_one_line", "unclear_error", "non_finite"):
        rows.append(
            {
                "suite": "CLI, every entry point",
                "cases": cli_tally.inputs["cli"],
                "failures": cli_kinds[kind],
                "counts": _KINDS[kind],
            }
        )
    rows.append(
        {
            "suite": "offline parser: figures past every bound",
            "cases": parser_cases,
            "failures": parser_failures,
            "counts": "figures read in part or dropped instead of asked back",
        }
    )
    return {
        "reliability": rows,
        "measurements": {
            "registry inputs tried (all tools)": total,
            "registry inputs refused with an error naming the field": sum(
                registry_tally.errors.values()
            ),
            "registry fuzzing, s": round(registry_s, 1),
            "CLI invocations tried": cli_tally.inputs["cli"],
            "CLI invocations refused (exit 2, one line)": cli_tally.errors["cli"],
            "CLI fuzzing, s": round(cli_s, 1),
        },
        "findings": [vars(f) for f in (*registry_tally.findings, *cli_tally.findings)][:50],
    }
