"""`gpu-sizer mcp` through the MCP SDK's own client: one server subprocess for the module.

The module fixture spawns `gpu-sizer mcp` with `mcp.client.stdio.stdio_client`, opens a
`ClientSession`, initializes, lists tools and resources, calls every listed tool with valid
arguments (where this file knows some) and with invalid ones (every tool, generically), reads
every resource, and records the answers; the tests below check that transcript. The numbers
are compared with `gpu-sizer … --json` run in-process on the same inputs, on the same pinned
clock (`GPU_SIZER_NOW`) and the same empty user directories. Tool results keep 6
significant digits and report bytes as `*_GB` (10^9 bytes): "equal" is equal at that
precision, after that unit conversion.
"""

from __future__ import annotations

import json
import math
import shutil
import sys
import time
from pathlib import Path
from typing import Any
from unittest.mock import ANY

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from pydantic import BaseModel

from assistant.cli import main
from assistant.mcp.compact import DETAIL, summarised
from assistant.registry import Registry, ToolSpec, default_registry

NOW = "2026-12-14T09:00:00Z"
SESSION_TIMEOUT_S = 60.0

VALID: dict[str, dict[str, Any]] = {
    "size": {"workload": {"model": "llama-3.1-70b", "users": 10}},
    "estimate_memory": {"model": "llama-3.1-8b", "gpu": "h100-sxm", "context": 16384, "batch": 4},
    "recommend": {"model": "llama-3.1-70b", "users": 10},
    "plan_local_serving": {"model": "llama-3.1-8b", "gpu": "rtx-4090"},
    "compare_costs": {"options": [{"gpu": "h100-sxm", "count": 8, "aggregate_tokens_per_s": 5000}]},
    "find_model": {"name": "Llama 3.1 8B"},
    "find_gpu": {"name": "H100"},
    "list_models": {},
    "list_gpus": {"vendor": "AMD"},
}
INVALID: dict[str, tuple[dict[str, Any], str]] = {
    # (arguments, the field the error must name)
    "size": ({"workload": {"model": "llama-3.1-70b", "users": 0}}, "users"),
    "estimate_memory": ({"model": "llama-3.1-8b", "batch": -1}, "batch"),
    "recommend": ({"model": "llama-3.1-70", "users": 10}, "model"),
    "plan_local_serving": ({"model": "llama-3.1-8b", "parallel": 0}, "parallel"),
    "compare_costs": ({"options": []}, "options"),
    "find_model": ({}, "name"),
    "find_gpu": ({"name": "H1000"}, "H1000"),
    "list_models": ({"contains": "x", "colour": "red"}, "colour"),
    "list_gpus": ({"min_memory_gb": -5}, "min_memory_gb"),
}
UNKNOWN_FIELD = "__not_a_field__"


def _server_command() -> tuple[str, list[str]]:
    script = Path(sys.executable).with_name("gpu-sizer")
    if script.exists():
        return str(script), ["mcp"]
    found = shutil.which("gpu-sizer")
    return (found, ["mcp"]) if found else (sys.executable, ["-m", "assistant", "mcp"])


async def _session(home: Path) -> dict[str, Any]:
    command, args = _server_command()
    env = {
        "GPU_SIZER_NOW": NOW,
        "XDG_CONFIG_HOME": str(home / "config"),
        "XDG_DATA_HOME": str(home / "data"),
    }
    params = StdioServerParameters(command=command, args=args, env=env)
    record: dict[str, Any] = {
        "calls": {},
        "full": {},
        "invalid": {},
        "unknown_field": {},
        "resources": {},
    }
    with anyio.fail_after(SESSION_TIMEOUT_S):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            record["init"] = await session.initialize()
            record["tools"] = (await session.list_tools()).tools
            for tool in record["tools"]:
                if tool.name in VALID:
                    record["calls"][tool.name] = await session.call_tool(
                        tool.name, VALID[tool.name]
                    )
                    if summarised(tool.name):
                        record["full"][tool.name] = await session.call_tool(
                            tool.name, {**VALID[tool.name], DETAIL: "full"}
                        )
                if tool.name in INVALID:
                    args_, _ = INVALID[tool.name]
                    record["invalid"][tool.name] = await session.call_tool(tool.name, args_)
                record["unknown_field"][tool.name] = await session.call_tool(
                    tool.name, {UNKNOWN_FIELD: 1}
                )
            record["no_such_tool"] = await session.call_tool("size_everything", {})
            record["unknown_model"] = await session.call_tool(
                "size", {"workload": {"model": "llama-3.1-70", "users": 10}}
            )
            record["unknown_gpu"] = await session.call_tool(
                "size",
                {"workload": {"model": "llama-3.1-70b"}, "configurations": [{"gpu": "H1000"}]},
            )
            record["resource_list"] = (await session.list_resources()).resources
            for resource in record["resource_list"]:
                result = await session.read_resource(str(resource.uri))
                record["resources"][str(resource.uri)] = result.contents[0]
    return record


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    return anyio.run(_session, tmp_path_factory.mktemp("mcp-home"))


@pytest.fixture
def cli_json(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Any:
    monkeypatch.setenv("GPU_SIZER_NOW", NOW)

    def run(*argv: str) -> Any:
        assert main([*argv, "--json"]) == 0
        return json.loads(capsys.readouterr().out)

    return run


def _gb(num_bytes: float) -> float:
    """Bytes as GB (10^9) at the 6 significant digits tool results keep."""
    return float(f"{num_bytes / 1e9:.6g}")


def _six(value: float) -> float:
    return float(f"{value:.6g}")


def _same(mcp_value: float, cli_value: float) -> bool:
    return math.isclose(mcp_value, _six(cli_value), rel_tol=1e-9)


# --- protocol ----------------------------------------------------------------------------


def test_initialize_names_the_server_and_its_capabilities(transcript: dict[str, Any]) -> None:
    init = transcript["init"]
    assert init.server_info.name == "gpu-sizer"
    assert init.capabilities.tools is not None and init.capabilities.resources is not None
    assert "instead of estimating" in (init.instructions or "")


def test_every_registry_tool_is_listed_with_its_input_models_schema(
    transcript: dict[str, Any],
) -> None:
    registry = default_registry()
    listed = {t.name: t for t in transcript["tools"]}
    assert list(listed) == registry.names
    for name, spec in registry.specs.items():
        # The schema the chat offers its model, generated from the tool's pydantic input, and
        # for the tools whose results are summarised by default, `detail` to ask for all.
        offered = spec.schema()["function"]["parameters"]
        if summarised(name):
            assert listed[name].input_schema["properties"][DETAIL]["enum"] == ["summary", "full"]
            offered = {**offered, "properties": {**offered["properties"], DETAIL: ANY}}
        assert listed[name].input_schema == offered
        assert listed[name].input_schema["type"] == "object"
        assert listed[name].description == spec.description
        assert listed[name].annotations.read_only_hint is True


def test_results_are_structured_json_with_a_short_text_verdict_first(
    transcript: dict[str, Any],
) -> None:
    registry = default_registry()
    for name, result in transcript["calls"].items():
        assert result.is_error is False, name
        text = result.content[0].text
        assert len(text.splitlines()) <= 10 and "structuredContent" in text.splitlines()[-1]
        if summarised(name):
            # The compact result by default: it says how to get the whole one, which is what
            # the registry returns for the same call.
            assert "full_result" in result.structured_content, name
            assert '"detail": "full"' in text.splitlines()[-1]
            full = transcript["full"][name]
            assert not full.is_error and "full_result" not in full.structured_content
            assert len(json.dumps(full.structured_content)) > len(
                json.dumps(result.structured_content)
            ), name
            continue
        # Structured content is exactly what the registry returns for the same call.
        assert result.structured_content == registry.call(name, VALID[name]).result, name
    # The sizing report and the memory estimate lead with the verdict `gpu-sizer ask` leads
    # with (computed here in-process on the same clock), without its Markdown bold.
    size = transcript["calls"]["size"].content[0].text.splitlines()[0]
    assert size.startswith("Cheapest priced option that fits and meets the targets: ")
    assert "days old" in size and "**" not in size
    memory = transcript["calls"]["estimate_memory"].content[0].text
    assert memory.startswith("Fits on 1× H100 SXM5 — needs ")
    # Llama 3.1 8B, 16,384 tokens × 4 sequences × 131,072 B/token (32 layers × 8 KV heads ×
    # 128 × 2 (K, V) × 2 B) = 8 GiB of KV cache, shown under the component's name.
    assert "KV cache 8.0 GiB" in memory and "kv_cache" not in memory
    recommend = transcript["calls"]["recommend"].content[0].text
    assert recommend.startswith("Best for llama-3.1-70b by cheapest: 1× ")
    assert "(estimated)" in recommend or "(calibrated)" in recommend or "(measured)" in recommend
    local = transcript["calls"]["plan_local_serving"].content[0].text
    assert local.startswith("llama.cpp (llama-server), q4_k_m, on NVIDIA GeForce RTX 4090: fits")
    cost = transcript["calls"]["compare_costs"].content[0].text
    assert cost.startswith("Cheapest on demand:") and "days old" in cost.splitlines()[0]


def test_the_text_verdicts_are_the_chat_verdicts(monkeypatch: pytest.MonkeyPatch) -> None:
    from assistant.mcp.text import render_result
    from assistant.render import memory_verdict_text, verdict_text

    monkeypatch.setenv("GPU_SIZER_NOW", NOW)
    registry = default_registry()
    for request in (
        {"workload": {"model": "llama-3.1-70b", "users": 10}},
        {
            "workload": {"model": "llama-3.1-8b", "context": 8192, "users": 8},
            "configurations": [{"gpu": "l40s", "count": 1}],
        },
        {
            "workload": {"model": "qwen3-32b", "task": "lora"},
            "configurations": [{"gpu": "rtx-3090", "count": 1}],
        },
    ):
        outcome = registry.call("size", request)
        assert not outcome.is_error, outcome.value
        expected = verdict_text(outcome.value).replace("**", "").splitlines()
        text = render_result(outcome.value).splitlines()
        assert text[0] == next(line for line in expected if line.strip()), request
    memory = registry.call("estimate_memory", VALID["estimate_memory"]).value
    first = memory_verdict_text([memory]).replace("**", "").splitlines()[0]
    assert render_result(memory).splitlines()[0] == first


def test_invalid_arguments_come_back_as_error_results_naming_the_field(
    transcript: dict[str, Any],
) -> None:
    for name, (_, field) in INVALID.items():
        result = transcript["invalid"][name]
        assert result.is_error is True, name
        assert field in json.dumps(result.structured_content), name
        assert field in result.content[0].text, name
        assert result.content[0].text.startswith("Error")
    # Every listed tool, whatever it is, refuses an unknown field and says which.
    for name, result in transcript["unknown_field"].items():
        assert result.is_error is True, name
        assert UNKNOWN_FIELD in result.content[0].text, name
    unknown = transcript["no_such_tool"]
    assert unknown.is_error and "unknown tool 'size_everything'" in unknown.content[0].text


def test_an_unknown_model_or_gpu_is_an_error_with_the_closest_names(
    transcript: dict[str, Any],
) -> None:
    # 'llama-3.1-70' is not a catalog id: the sizing report sized nothing it asked about.
    model = transcript["unknown_model"]
    assert model.is_error is True
    assert model.structured_content["field"] == "workload.model"
    assert "llama-3.1-70b" in model.structured_content["did_you_mean"]
    assert model.content[0].text.startswith("Error in workload.model: unknown model")
    assert "llama-3.1-70b" in model.content[0].text
    gpu = transcript["unknown_gpu"]
    assert gpu.is_error is True and gpu.structured_content["field"] == "configurations.0.gpu"
    assert "h100-sxm" in gpu.structured_content["did_you_mean"]


def test_catalog_listings_are_resources(transcript: dict[str, Any]) -> None:
    uris = [str(r.uri) for r in transcript["resource_list"]]
    assert uris == [
        "gpu-sizer://catalog/models",
        "gpu-sizer://catalog/gpus",
        "gpu-sizer://catalog/prices",
        "gpu-sizer://catalog/api-prices",
    ]
    gpus = json.loads(transcript["resources"]["gpu-sizer://catalog/gpus"].text)
    h100 = next(g for g in gpus["gpus"] if g["id"] == "h100-sxm")
    assert h100["memory_bytes"] == 80_000_000_000 and h100["as_of"]
    prices = json.loads(transcript["resources"]["gpu-sizer://catalog/prices"].text)
    p5 = next(p for p in prices["prices"] if p["id"] == "aws-p5-48xlarge-h100-sxm-on-demand")
    # Its age counted by hand from its own date to 2026-12-14 09:00 UTC (the pinned clock).
    from datetime import date

    days = (date(2026, 12, 14) - date.fromisoformat(p5["as_of"][:10])).days
    assert (p5["age"], p5["stale"]) == (f"{days} days old", days > 180)
    assert p5["price_per_instance_hour"] == 55.04  # AWS p5.48xlarge on demand, as sourced
    models = json.loads(transcript["resources"]["gpu-sizer://catalog/models"].text)
    assert any(m["id"] == "llama-3.1-8b" for m in models["models"])
    assert all(r.mime_type == "application/json" for r in transcript["resource_list"])


# --- the numbers equal the CLI's --json on the same inputs --------------------------------


def test_memory_equals_the_cli(transcript: dict[str, Any], cli_json: Any) -> None:
    mcp = transcript["full"]["estimate_memory"].structured_content
    cli = cli_json(
        "memory", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--context", "16384",
        "--batch", "4",
    )  # fmt: skip
    assert mcp["per_gpu_GB"] == _gb(cli["per_gpu_bytes"])
    assert mcp["headroom_GB"] == _gb(cli["headroom_bytes"])
    for key in ("total_params", "kv_cache_bytes_per_token", "fits", "context", "batch", "tp"):
        assert mcp[key] == cli[key], key


def test_recommend_equals_the_cli(transcript: dict[str, Any], cli_json: Any) -> None:
    mcp = transcript["full"]["recommend"].structured_content
    cli = cli_json("recommend", "--model", "llama-3.1-70b", "--users", "10")
    layout = ("gpu", "count", "tp", "pp", "dp", "price_id", "price_age", "meets_targets")
    assert [tuple(o.get(k) for k in layout) for o in mcp["options"]] == [
        tuple(o.get(k) for k in layout) for o in cli["options"]
    ]
    for mine, theirs in zip(mcp["options"], cli["options"], strict=True):
        assert mine["per_gpu_GB"] == _gb(theirs["per_gpu_bytes"])
        for key in ("usd_per_hour", "aggregate_tokens_per_s", "decode_tokens_per_s_per_seq"):
            if theirs[key] is not None:
                assert _same(mine[key], theirs[key]), key


def test_costs_equal_the_cli(transcript: dict[str, Any], cli_json: Any) -> None:
    mcp = transcript["full"]["compare_costs"].structured_content
    cli = cli_json("cost", "--gpu", "h100-sxm", "--count", "8", "--tokens-per-s", "5000")
    assert mcp["cheapest_by_tier"] == cli["cheapest_by_tier"]
    mine = {r["price_id"]: r for r in mcp["rows"]}
    theirs = {r["price_id"]: r for r in cli["rows"]}
    assert list(mine) == list(theirs)
    for price_id, row in theirs.items():
        for key in ("usd_per_hour", "usd_per_month", "usd_per_million_tokens"):
            if row[key] is not None:
                assert _same(mine[price_id][key], row[key]), (price_id, key)
        assert (mine[price_id]["age"], mine[price_id].get("stale")) == (row["age"], row["stale"])


def test_lookups_equal_the_cli(transcript: dict[str, Any], cli_json: Any) -> None:
    model = transcript["calls"]["find_model"].structured_content
    assert model["total_params"] == cli_json("models", "llama-3.1-8b")["total_params"]
    gpu = transcript["calls"]["find_gpu"].structured_content
    record = cli_json("gpus", "h100-sxm")
    assert gpu["memory_GB"] == _gb(record["memory_bytes"])
    assert gpu["usable_memory_GB"] == _gb(record["usable_memory_bytes"])
    amd = transcript["calls"]["list_gpus"].structured_content
    assert [g["id"] for g in amd["gpus"]] == [
        g["id"] for g in cli_json("gpus", "--all") if g["vendor"] == "AMD"
    ]
    models = transcript["calls"]["list_models"].structured_content
    assert [m["id"] for m in models["models"]] == [m["id"] for m in cli_json("models")]


# --- in process: what the subprocess cannot show cheaply ----------------------------------


class _Slow(BaseModel):
    seconds: float = 0.0


class _Slept(BaseModel):
    verdict: str
    seconds: float


def _slow(req: _Slow) -> _Slept:
    time.sleep(req.seconds)
    return _Slept(verdict=f"Slept {req.seconds:g} s.", seconds=req.seconds)


def _broken(req: _Slow) -> _Slept:
    raise RuntimeError("a bug")


async def test_a_registry_tool_needs_no_server_code_and_slow_calls_are_bounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from mcp import Client

    from assistant.mcp import server as mcp_server

    registry = Registry(
        [
            ToolSpec("size", "A new tool, like the sizing report.", _Slow, _slow),
            ToolSpec("broken", "A tool with a bug.", _Slow, _broken),
        ]
    )
    monkeypatch.setattr(mcp_server, "timeout_s", lambda: 0.3)
    with anyio.fail_after(20):
        async with Client(mcp_server.build_server(registry)) as client:
            names = [t.name for t in (await client.list_tools()).tools]
            assert names == ["size", "broken"]
            fast = await client.call_tool("size", {"seconds": 0})
            # A result that carries its own verdict leads with it.
            assert fast.content[0].text.splitlines()[0] == "Slept 0 s."
            assert fast.structured_content == {"verdict": "Slept 0 s.", "seconds": 0}
            slow = await client.call_tool("size", {"seconds": 1})
            assert slow.is_error and slow.structured_content["kind"] == "timeout"
            bug = await client.call_tool("broken", {})
            assert bug.is_error and bug.structured_content["kind"] == "internal_error"
            # The server still answers after both.
            assert not (await client.call_tool("size", {})).is_error


def test_the_text_rendering_never_carries_control_sequences() -> None:
    from assistant.mcp.text import render_result
    from assistant.results import ToolError

    hostile = "\x1b]52;c;aGVsbG8=\x07Fits\x1b[2J on 1× \x9bH100"
    plan = default_registry().call("plan_local_serving", VALID["plan_local_serving"]).value
    named = plan.model_copy(update={"gpu_label": hostile})
    for value in (ToolError(error=hostile, field="gpu"), named):
        text = render_result(value)
        assert "\x1b" not in text and "\x9b" not in text and "\x07" not in text
        assert "Fits on 1×" in text
