"""The commands' flags come from the tools' pydantic fields (issue 14, item 4): `memory`,
`recommend` and `cost` share names, defaults, bounds and error wording, flag by flag, and
errors name the flag the user typed."""

from __future__ import annotations

import argparse

import pytest
from pydantic import BaseModel, ConfigDict, Field

from assistant import cli
from assistant.commands._flags import (
    FLAGSET,
    CommandFlags,
    FlagSet,
    allowed,
    request,
)
from assistant.commands._parser import OneLineParser
from tools.errors import ToolInputError
from tools.memory import MemoryRequest
from tools.workload import Workload

SIZING = ("memory", "recommend", "cost")


def flags_of(command: str) -> FlagSet:
    parser = cli.build_parser(only=command)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    found = sub.choices[command]._defaults[FLAGSET]
    assert isinstance(found, FlagSet)
    return found


FLAGS = {command: flags_of(command) for command in (*SIZING, "ask")}
SHARED = sorted(set.intersection(*(set(FLAGS[c].by_name) for c in SIZING)))
# The one name with two meanings, on purpose: memory checks the fit on one GPU; cost prices
# every GPU given (repeatable), as a price filter.
DIFFERENT_ON_PURPOSE = {"--gpu"}


def test_the_three_commands_share_the_model_and_workload_flags() -> None:
    assert {
        "--model",
        "--params",
        "--config",
        "--model-file",
        "--task",
        "--weights",
        "--kv-dtype",
        "--engine",
        "--gpu-memory-utilization",
        "--context",
        "--users",
        "--lora-rank",
        "--zero",
        "--checkpointing",
    } <= set(SHARED)
    # recommend and cost: every workload flag, except what cost decides itself (GPUs from
    # --gpu, EU from --eu-only). --objective and --budget-usd-per-hour are shared: both commands
    # choose their headline from one sizing report by the same rule (issue 14).
    recommend_only = set(FLAGS["recommend"].by_name) - set(FLAGS["cost"].by_name)
    assert recommend_only == {"--only", "--exclude", "--region"}


@pytest.mark.parametrize(
    "name",
    sorted(
        n
        for n in set(FLAGS["memory"].by_name) | set(FLAGS["recommend"].by_name)
        if sum(n in FLAGS[c].by_name for c in (*SIZING, "ask")) > 1
        and n not in DIFFERENT_ON_PURPOSE
    ),
)
def test_a_shared_flag_reads_bounds_and_defaults_alike_everywhere(name: str) -> None:
    flags = [FLAGS[c].by_name[name] for c in (*SIZING, "ask") if name in FLAGS[c].by_name]
    assert len({f.kind for f in flags}) == 1, name
    assert len({allowed(f) for f in flags}) == 1, name
    assert len({f.choices for f in flags}) == 1, name
    defaults = {repr(f.info.get_default(call_default_factory=True)) for f in flags}
    assert len(defaults) == 1, (name, defaults)


def test_every_request_field_has_a_flag() -> None:
    """Fields added to the models (by any engineer) become flags with no edit here."""
    memory = {path for f in FLAGS["memory"].flags.values() for _, path in f.fields}
    assert memory == set(MemoryRequest.model_fields)
    recommend = {path for f in FLAGS["recommend"].flags.values() for _, path in f.fields}
    nested = {
        f"constraints.{n}" for n in Workload.model_fields["constraints"].annotation.model_fields
    }  # type: ignore[union-attr]
    assert recommend == (set(Workload.model_fields) - {"constraints"}) | nested


def _error(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    try:
        code = cli.main(argv)
    except SystemExit as stop:
        code = int(stop.code or 0)
    captured = capsys.readouterr()
    assert code == 2, (argv, captured)
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, lines
    return lines[0].split(": error: ", 1)[1]


@pytest.mark.parametrize(
    ("flag", "value", "expected"),
    [
        ("--users", "0", "--users: '0' rejected: Input should be greater than or equal to 1."),
        ("--users", "inf", "--users: 'inf' rejected: Input should be a finite number."),
        ("--users", "2.5", "--users: '2.5' rejected: Input should be a valid integer"),
        ("--users", "many", "--users: 'many' is not a whole number."),
        ("--users", "99999999999999999999", "Input should be less than or equal to 10000000."),
        ("--context", "-1", "--context: '-1' rejected: Input should be greater than or equal"),
        ("--context", "1e400", "--context: '1e400' rejected: Input should be a finite number."),
        ("--context", "lots", "--context: 'lots' is not a token count"),
        ("--lora-rank", "0", "--lora-rank: '0' rejected"),
        ("--gpu-memory-utilization", "1.5", "Input should be less than or equal to 1."),
        ("--zero", "5", "--zero: '5' rejected: Input should be 0, 1, 2 or 3."),
        ("--task", "pretrain", "--task: 'pretrain' rejected"),
        ("--weights", "int3", "--weights: unknown weight format 'int3'"),
        ("--kv-dtype", "fp7", "--kv-dtype: unknown KV-cache dtype 'fp7'"),
    ],
)
def test_one_error_wording_on_all_three_commands(
    capsys: pytest.CaptureFixture[str], flag: str, value: str, expected: str
) -> None:
    messages = {
        command: _error(capsys, [command, "--model", "llama-3.1-8b", flag, value])
        for command in SIZING
    }
    assert len(set(messages.values())) == 1, messages
    assert expected in messages["memory"] and messages["memory"].startswith(flag + ":")


def test_errors_name_the_flag_typed_never_an_internal_field(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # The memory tool's field is `batch`; the user typed --users (QA: `memory` said --batch).
    line = _error(capsys, ["memory", "--model", "llama-3.1-8b", "--users", "0"])
    assert line.startswith("--users:") and "batch" not in line
    assert _error(capsys, ["memory", "--model", "llama-3.1-8b", "--batch", "0"]).startswith(
        "--batch:"
    )
    # A tool's own error (after validation) is restated under the flag, with its own advice.
    line = _error(capsys, ["memory", "--model", "llama-3.1-8b", "--gpus", "3", "--tp", "3"])
    assert line.startswith("--tp: 3 does not divide") and "1, 2, 4, 8, 16, 32" in line
    # Nested fields: constraints.max_gpus is --max-gpus; an unknown GPU names --only.
    assert _error(capsys, ["recommend", "--model", "llama-3.1-8b", "--max-gpus", "0"]).startswith(
        "--max-gpus: '0' rejected"
    )
    assert _error(capsys, ["recommend", "--model", "llama-3.1-8b", "--only", "h900"]).startswith(
        "--only: unknown GPU 'h900'"
    )


def test_argparse_errors_are_one_line_too(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in (
        ["memory", "--model", "llama-3.1-8b", "--users"],
        ["memory", "--bogus"],
        ["recommend", "--unit", "x"],
        ["nosuch"],
        ["--timeout", "abc"],
    ):
        line = _error(capsys, argv)
        assert "usage:" not in line


def test_defaults_come_from_the_model_not_the_flag() -> None:
    """An unset flag is absent from the request: the model's default (and the one default
    request shape) applies, and `model_fields_set` is what the user typed."""
    parser = OneLineParser(prog="t")
    CommandFlags(parser).add(Workload)
    workload = request(Workload, parser.parse_args(["--model", "llama-3.1-8b"]))
    assert workload.model_fields_set == {"model"}
    assert (workload.prompt_tokens, workload.output_tokens) == (3072, 1024)
    stated = request(Workload, parser.parse_args(["--model", "llama-3.1-8b", "--context", "16k"]))
    assert stated.context == 16 * 1024 and stated.model_fields_set == {"model", "context"}


def test_a_new_field_gets_a_flag_with_its_bounds_and_help() -> None:
    class Tuning(BaseModel):
        model_config = ConfigDict(extra="forbid")
        warmup_steps: int = Field(default=100, ge=0, le=10_000, description="LR warm-up steps.")
        decode_tokens: int | None = Field(default=None, ge=1, le=4096, description="Decode.")
        mode: bool = Field(default=True, description="A switch.")

    parser = OneLineParser(prog="t")
    CommandFlags(parser).add(Tuning)
    text = " ".join(parser.format_help().split())
    assert "--warmup-steps N" in text and "a whole number from 0 to 10,000" in text
    assert "--decode-tokens TOKENS" in text and "--no-mode" in text
    args = parser.parse_args(["--warmup-steps", "20", "--decode-tokens", "3k", "--no-mode"])
    assert request(Tuning, args) == Tuning(warmup_steps=20, decode_tokens=3000, mode=False)
    with pytest.raises(ToolInputError) as info:
        request(Tuning, parser.parse_args(["--warmup-steps", "1e5"]))
    assert info.value.field == "--warmup-steps" and "10,000" in info.value.message


def test_repeatable_and_comma_lists_read_alike(capsys: pytest.CaptureFixture[str]) -> None:
    parser = OneLineParser(prog="t")
    CommandFlags(parser).add(Workload)
    for argv in (
        ["--only", "h100-sxm", "a100-80gb-sxm4"],
        ["--only", "h100-sxm,a100-80gb-sxm4"],
        ["--only", "h100-sxm", "--only", "a100-80gb-sxm4"],
    ):
        args = parser.parse_args(["--model", "llama-3.1-8b", *argv])
        assert request(Workload, args).constraints.only_gpus == ["h100-sxm", "a100-80gb-sxm4"]
