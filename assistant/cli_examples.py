"""The examples every `--help` ends with: one table, so each command's help shows how it is used
and tests/test_cli_help.py runs every example through the real parser (an example that stops
parsing fails the suite, not a user)."""

from __future__ import annotations

import argparse
from typing import Any

EXAMPLES: dict[str, tuple[tuple[str, str], ...]] = {
    "": (
        ("open the chat (offline engine unless an endpoint is set)", "gpu-sizer"),
        ("the chat against a local server", "gpu-sizer --base-url http://localhost:8000/v1"),
        ("one question, answered on stdout", 'gpu-sizer ask "serve Llama 3.1 70B to 40 users"'),
        ("what fits, cheapest first", "gpu-sizer recommend --model llama-3.1-8b --users 20"),
        ("a command's own options and examples", "gpu-sizer recommend --help"),
    ),
    "memory": (
        (
            "memory per GPU, with the verdict first",
            "gpu-sizer memory --model llama-3.1-8b --gpu l4",
        ),
        (
            "a 70B in 4-bit at 16k context",
            "gpu-sizer memory --model llama-3.1-70b --weights int4 --context 16k",
        ),
        ("a LoRA fine-tune", "gpu-sizer memory --model qwen2.5-7b --task lora --gpu a10g"),
        ("the breakdown as JSON", "gpu-sizer memory --model mixtral-8x7b --json"),
    ),
    "recommend": (
        ("the smallest fitting layout per GPU", "gpu-sizer recommend --model llama-3.1-8b"),
        (
            "40 users at 16k context",
            "gpu-sizer recommend --model llama-3.1-70b --users 40 --context 16k",
        ),
        ("only some GPUs", "gpu-sizer recommend --model qwen2.5-72b --only h100 h200"),
        (
            "cheapest per million tokens",
            "gpu-sizer recommend --model llama-3.1-8b --objective cheapest_per_token",
        ),
        ("the options as CSV", "gpu-sizer recommend --model llama-3.1-8b --format csv"),
    ),
    "cost": (
        ("what a workload costs", "gpu-sizer cost --model llama-3.1-8b --users 20"),
        (
            "one configuration, given directly",
            "gpu-sizer cost --gpu h100 --count 8 --tokens-per-s 5000",
        ),
        ("EU prices only", "gpu-sizer cost --model llama-3.1-8b --eu-only"),
        (
            "a fine-tune's job cost",
            "gpu-sizer cost --model llama-3.1-8b --task full --train-tokens 2B",
        ),
        ("every row, as Markdown", "gpu-sizer cost --model llama-3.1-8b --all --format markdown"),
    ),
    "ask": (
        ("a question, answered offline", 'gpu-sizer ask --offline "can a 4090 run Qwen2.5 32B?"'),
        ("a follow-up to the last answer", 'gpu-sizer ask -c "and with fp8?"'),
        ("the answer with a proposal file", 'gpu-sizer ask "70B for 40 users" --proposal p.md'),
        ("everything as JSON", 'gpu-sizer ask --offline --json "Llama 3.1 8B on an L4"'),
    ),
    "proposal": (
        ("a saved session's proposal", "gpu-sizer proposal --session a1b2c3"),
        ("as HTML, to a file", "gpu-sizer proposal --session a1b2c3 -o proposal.html"),
        ("from a conversation file", "gpu-sizer proposal --from-json chat.json --format md"),
    ),
    "sessions": (
        ("the saved sessions, newest first", "gpu-sizer sessions"),
        ("one session's questions and answers", "gpu-sizer sessions show a1b2c3"),
        ("delete two sessions without asking", "gpu-sizer sessions delete a1b2c3 d4e5f6 --yes"),
    ),
    "models": (
        ("the model catalog", "gpu-sizer models"),
        ("one model in detail", "gpu-sizer models llama-3.1-70b"),
        ("by a Hugging Face repo id", "gpu-sizer models meta-llama/Llama-3.1-8B-Instruct"),
    ),
    "gpus": (
        ("the GPU catalog", "gpu-sizer gpus"),
        ("one GPU in detail", "gpu-sizer gpus h100"),
        ("with every Mac RAM configuration, as CSV", "gpu-sizer gpus --all --format csv"),
    ),
    "prices": (
        ("which price file is in use", "gpu-sizer prices"),
        ("download current prices (network)", "gpu-sizer prices refresh"),
        ("refresh one source only", "gpu-sizer prices refresh --source lambda"),
    ),
    "mcp": (
        ("serve the tools (an MCP client starts this)", "gpu-sizer mcp"),
        ("Claude Code", "claude mcp add gpu-sizer -- gpu-sizer mcp"),
    ),
}
"""Command → (what it does, the command line), as `--help` prints them."""


def examples_text(command: str) -> str:
    """The 'Examples:' block of one command's help."""
    rows = EXAMPLES.get(command, ())
    if not rows:
        return ""
    out = ["examples:"]
    for what, line in rows:
        out += [f"  # {what}", f"  {line}"]
    return "\n".join(out)


class HelpFormatter(argparse.HelpFormatter):
    """argparse's formatter, but a paragraph of indented lines (examples, a tool list) is
    printed as written; prose paragraphs are still wrapped to the terminal."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out = []
        for paragraph in text.split("\n\n"):
            lines = paragraph.splitlines()
            if len(lines) > 1 and all(line.startswith(" ") for line in lines[1:]):
                out.append("\n".join(indent + line for line in lines))
            else:
                out.append(super()._fill_text(paragraph, width, indent))
        return "\n\n".join(out)


def help_with_examples(command: str, extra: str = "") -> dict[str, Any]:
    """`add_parser` keywords: the examples (and `extra`, e.g. the MCP tools) as the epilog,
    printed as written; the description still wraps."""
    epilog = "\n\n".join(part for part in (extra, examples_text(command)) if part)
    return {"epilog": epilog, "formatter_class": HelpFormatter}
