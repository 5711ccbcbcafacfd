"""Rebuild the canned proposal sessions by running the offline engine, as `gpu-sizer ask` does.

Run from the repository root: `.venv/bin/python tests/data/proposal/build_session.py`; with
`--golden` it also writes the golden renderings (`proposal*.md`, `proposal.html`). Only rerun
it on purpose (a tool's output changed, or the proposal's layout did): the tests compare
against these files, and a changed golden file is reviewed line by line before it is
committed. The sessions are built with no user prices and no settings (a temporary data and
config folder), the clock pinned to the sessions' fixed time (`GPU_SIZER_NOW`: price ages and
staleness are counted to it), the EUR→USD rate given where a session needs one, then given a
fixed id and fixed timestamps.

- `session.json`: serving Llama 3.1 70B in bf16 to 32 users at ≥ 20 tokens/s each, "would
  2x H100 SXM do?", compared on H100, H200, MI300X and L40S (named GPUs that do not hold the
  load; a lower format that does).
- `session-training.json`: a full fine-tune of Llama 3.1 8B on 8 H100s, 2B tokens, 24 h.
- `session-followup.json`: Mixtral 8x7B for 16 users in the EU at 1.08 USD per EUR, then a
  follow-up adding 16k context and a monthly budget (two sizing turns; the proposal covers
  the second).
- `session-legacy.json`: a session from before sizing reports (memory, recommend and cost
  calls), stored typed; not rebuilt here.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).parent
FIXED_TIME = "2026-10-01T09:00:00+00:00"

SESSIONS: dict[str, tuple[tuple[str, ...], float | None]] = {
    "session.json": (
        (
            "We want to serve Llama 3.1 70B in bf16 to 32 concurrent users, prompts about 2000 "
            "tokens and answers about 500, at least 20 tokens/s each. Would 2x H100 SXM do? "
            "Compare H100, H200, MI300X and L40S and tell me what it costs.",
        ),
        None,
    ),
    "session-training.json": (
        ("full fine-tune of Llama 3.1 8B on 8 H100s, 2B tokens, deadline 24 hours",),
        None,
    ),
    "session-followup.json": (
        (
            "serve Mixtral 8x7B to 16 users in the EU",
            "with 16k context and a budget of 5000 USD a month",
        ),
        1.08,
    ),
}
GOLDEN = {
    "session.json": ("proposal.md", "proposal.html"),
    "session-training.json": ("proposal-training.md",),
    "session-followup.json": ("proposal-followup.md",),
    "session-legacy.json": ("proposal-legacy.md",),
}


async def _conversation(name: str, questions: tuple[str, ...]) -> object:
    from assistant.conversation import Conversation
    from assistant.offline.engine import OfflineEngine

    conversation = Conversation(id=f"proposal-{Path(name).stem}", mode="offline")
    engine = OfflineEngine()
    for question in questions:
        async for _ in engine.run_turn(conversation, question):
            pass
    conversation.created = conversation.updated = FIXED_TIME
    return conversation


def build(name: str) -> None:
    """Run the questions of session `name` and write it."""
    from assistant.conversation import Conversation

    questions, rate = SESSIONS[name]
    os.environ.pop("GPU_SIZER_EUR_TO_USD", None)
    if rate is not None:
        os.environ["GPU_SIZER_EUR_TO_USD"] = str(rate)
    conversation = asyncio.run(_conversation(name, questions))
    assert isinstance(conversation, Conversation)
    (HERE / name).write_text(conversation.model_dump_json(indent=1) + "\n", "utf-8")


def golden() -> None:
    """Render every session's golden files."""
    from assistant.conversation import Conversation
    from assistant.proposal import render_proposal

    for name, outputs in GOLDEN.items():
        session = Conversation.model_validate_json((HERE / name).read_text("utf-8"))
        for output in outputs:
            fmt = "html" if output.endswith(".html") else "md"
            (HERE / output).write_text(render_proposal(session, fmt), "utf-8")


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        # No user prices.toml, no settings: the built-in catalog only.
        os.environ["GPU_SIZER_DATA_DIR"] = str(Path(home) / "data")
        os.environ["XDG_CONFIG_HOME"] = str(Path(home) / "config")
        os.environ["XDG_DATA_HOME"] = str(Path(home) / "data-home")
        # Ages and staleness counted to the sessions' own time, so a rebuild is reproducible.
        os.environ["GPU_SIZER_NOW"] = FIXED_TIME
        for name in SESSIONS:
            build(name)
    if "--golden" in sys.argv:
        golden()
    print(", ".join(SESSIONS), "written")


if __name__ == "__main__":
    main()
