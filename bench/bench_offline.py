"""`gpu-sizer ask --offline` end to end from a cold start (fresh interpreter), target < 1 s;
and how long the offline answers are (issue 18, class 11: median under 30 lines with the
details folded, a default answer within one screen).

Each cold run starts a new Python process, so imports, catalog loading and regex compilation
are all counted, as a user typing the command would see them. The lengths are those of the
answers to `QUESTION_SUITE` — the question types engineers bring (issue 18's classes and the
everyday sizing questions) — run through the offline engine: lines of the visible part (what
shows before the fold is opened), of the whole answer, and screen lines (prose wrapped at 100
columns, as `render.fold` budgets them).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 1.0
QUESTIONS = (
    "Llama 3.1 70B on 2x H100 vs 1x H200 for 40 users with 16k context",
    "QLoRA of a 65B on one 48 GB GPU",
    "Mixtral 8x7B in fp8 for 100 concurrent chats, TTFT under 500 ms",
)


QUESTION_SUITE = (
    # everyday sizing
    "serve Llama 3.1 8B",
    "serve Llama 3.1 70B in 4-bit to 40 users with 16k context",
    "serve Llama 3.1 70B on H100s to 40 users",
    "H100 vs H200 vs MI300X for Llama 3.1 70B serving, cheapest per million tokens",
    "serve Llama 3.1 8B to 20 users, fastest option",
    "Llama 3.1 405B fp8 on 8×H200 for 20 users at 32k",
    "can we serve Llama 3.1 70B on 4 A100 40GB for 10 users?",
    "Mixtral 8x7B in fp8 for 100 concurrent chats, TTFT under 500 ms",
    "how many 8k chats fit on one H100 with Llama 3.1 8B?",
    "max context for Llama 3.1 70B in 4-bit on 2x RTX 4090?",
    "Gemma 3 27B Q4_K_M on an RTX 4060 Ti 16GB with llama.cpp and 64 GB of RAM",
    # training
    "full fine-tune of Llama 3.1 8B on 2B tokens",
    "QLoRA of a 65B on one 48 GB GPU",
    "can I fully fine-tune llama 2 13b on 8 A100 80GB using deepspeed zero stage 2?",
    "pretrain a 7B on 1T tokens on 256 H100s",
    "QLoRA of a 70B on a 48 GB card at 4k tokens",
    # rules of thumb
    "so 18 bytes per parameter means 126 GB for a 7B?",
    "full fine-tuning is 4x the model, so 64 GB for an 8B?",
    "does LoRA on Llama 3.1 8B add only 10-20% over the model?",
    # readings, memory questions, costs
    "serve Llama 3.1 8B in full precision on a 4090",
    "how much VRAM does Llama 3.1 70B need?",
    "llama 3.1 70b, 2k tokens in and 500 out, 20 users on H100",
    "is self-hosting Llama 3.1 70B cheaper than an API at 50M tokens a day?",
    "cheapest EU-only option for Llama 3.1 70B per month",
    "Llama 3.1 8B on an L4, budget 5 grand a month",
    "Llama 3.1 405B in bf16 on 4 GPUs",
    # clarifying questions
    "Does Llama 3.1 70B fit on 2 A100?",
    "Llama 3.1 70B long-context serving on H100s",
    "lamma 3.1 70b on 2 h100",
    "100 concurrent chats on an H200",
)


def answer_lengths() -> dict[str, Any]:
    """Lines of the offline answers to `QUESTION_SUITE`: visible (folded), whole, on screen."""
    import asyncio

    from assistant.answer import Answer
    from assistant.conversation import Conversation
    from assistant.events import Done
    from assistant.offline.engine import OfflineEngine
    from assistant.render.fold import screen_lines

    async def one(question: str) -> Answer:
        events = [e async for e in OfflineEngine().run_turn(Conversation(), question)]
        done = next(e for e in events if isinstance(e, Done))
        assert done.answer is not None, question
        return done.answer

    rows = []
    for question in QUESTION_SUITE:
        answer = asyncio.run(one(question))
        shown = [s for s in answer.sections if not s.folded]
        rows.append(
            {
                "question": question,
                "visible_lines": len(answer.visible.splitlines()),
                "total_lines": len(answer.text.splitlines()),
                "screen_lines": sum(screen_lines(s) for s in shown) + len(shown) - 1,
            }
        )
    visible = [r["visible_lines"] for r in rows]
    screen = [r["screen_lines"] for r in rows]
    return {
        "rows": rows,
        "median_visible_lines": statistics.median(visible),
        "max_visible_lines": max(visible),
        "median_screen_lines": statistics.median(screen),
        "median_total_lines": statistics.median(r["total_lines"] for r in rows),
    }


def _cold_run(question: str) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "assistant", "ask", "--offline", question],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    return time.perf_counter() - start


def _cold_help() -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "assistant", "--help"], cwd=ROOT, check=True, capture_output=True
    )
    return time.perf_counter() - start


def run(repeat: int = 3) -> dict[str, Any]:
    """Median and worst cold-start wall time per question, seconds, against the 1 s target."""
    rows = []
    for question in QUESTIONS:
        samples = sorted(_cold_run(question) for _ in range(repeat))
        rows.append(
            {
                "question": question,
                "median_s": statistics.median(samples),
                "max_s": samples[-1],
                "meets_target": samples[-1] < TARGET_S,
            }
        )
    help_samples = sorted(_cold_help() for _ in range(repeat))
    speed = {
        f"ask --offline cold: {row['question'][:40]}": {
            "median_ms": row["median_s"] * 1000,
            "p90_ms": row["max_s"] * 1000,  # the worst of `repeat` runs
            "runs": repeat,
            "target_ms": TARGET_S * 1000,
        }
        for row in rows
    }
    speed["gpu-sizer --help cold"] = {
        "median_ms": statistics.median(help_samples) * 1000,
        "p90_ms": help_samples[-1] * 1000,
        "runs": repeat,
    }
    lengths = answer_lengths()
    n = len(QUESTION_SUITE)
    measurements = {
        f"answer lines, visible (details folded), median of {n} questions (target < 30)": lengths[
            "median_visible_lines"
        ],
        f"answer lines, visible, max of {n} questions": lengths["max_visible_lines"],
        f"answer screen lines (100 columns), visible, median of {n} questions": lengths[
            "median_screen_lines"
        ],
        f"answer lines, details unfolded, median of {n} questions": lengths["median_total_lines"],
    }
    return {
        "target_s": TARGET_S,
        "runs_per_question": repeat,
        "rows": rows,
        "speed": speed,
        "answer_lengths": lengths,
        "measurements": measurements,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
