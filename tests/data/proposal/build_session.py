"""Rebuild the canned proposal session by running the real registry tools on one workload.

Run from the repository root: `.venv/bin/python tests/data/proposal/build_session.py`. It writes
`session.json` (the conversation: user message, assistant tool calls, tool results stored as
the engines store them: typed, `assistant.results.tool_message`) and, with `--golden`, the
golden `proposal.md` / `proposal.html`.
Only rerun it on purpose (a tool's output changed): the tests compare against these files.

Workload: Llama 3.1 70B (bf16) served to 32 concurrent users, 2,000-token prompts and 500-token
answers, at least 20 tokens/s per user, on H100 SXM, H200 SXM, MI300X or L40S; one memory check
of 2× H100 SXM for the same load; costs of the recommender's three best fitting options.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from assistant.conversation import Conversation
from assistant.registry import compact_json, default_registry
from assistant.results import tool_message

HERE = Path(__file__).parent
FIXED_TIME = "2026-10-01T09:00:00+00:00"

USER_TEXT = (
    "We want to serve Llama 3.1 70B in bf16 to 32 concurrent users, prompts about 2000 tokens "
    "and answers about 500, at least 20 tokens/s each. Would 2x H100 SXM do? Compare H100, "
    "H200, MI300X and L40S and tell me what it costs."
)
MEMORY_ARGS: dict[str, Any] = {
    "model": "llama-3.1-70b",
    "weights": "bf16",
    "gpu": "h100-sxm",
    "gpus": 2,
    "context": 2500,
    "batch": 32,
}
RECOMMEND_ARGS: dict[str, Any] = {
    "model": "llama-3.1-70b",
    "weights": "bf16",
    "prompt_tokens": 2000,
    "output_tokens": 500,
    "users": 32,
    "tokens_per_s_per_user": 20,
    "constraints": {"only_gpus": ["h100-sxm", "h200-sxm", "mi300x", "l40s"]},
}


def _call(conversation: Conversation, call_id: str, name: str, args: dict[str, Any]) -> Any:
    registry = default_registry()
    if name not in registry.specs:
        raise SystemExit(f"tool {name} is not available: {registry.unavailable.get(name)}")
    arguments = json.dumps(args, separators=(",", ":"))
    conversation.add(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": name, "arguments": arguments},
                }
            ],
        }
    )
    outcome = registry.call(name, arguments)
    if outcome.is_error:
        raise SystemExit(f"{name} failed: {outcome.content}")
    conversation.add(tool_message(call_id, name, outcome.value))
    return outcome.result


def build() -> Conversation:
    """The canned conversation, tool results computed now by the registry."""
    conversation = Conversation(
        id="proposal-demo", created=FIXED_TIME, updated=FIXED_TIME, mode="offline"
    )
    conversation.add({"role": "user", "content": USER_TEXT})
    _call(conversation, "call_memory_1", "estimate_memory", MEMORY_ARGS)
    recommendation = _call(conversation, "call_recommend_1", "recommend", RECOMMEND_ARGS)
    options = [
        {
            "gpu": o["gpu"],
            "count": o["count"],
            "aggregate_tokens_per_s": o["aggregate_tokens_per_s"],
            "tp": o["tp"],
        }
        for o in recommendation["options"]
        if o.get("fits")
    ][:3]
    _call(
        conversation,
        "call_cost_1",
        "compare_costs",
        {"options": options, "model_id": recommendation["model_id"]},
    )
    conversation.add(
        {"role": "assistant", "content": "Done: see the tool results above for the figures."}
    )
    conversation.updated = FIXED_TIME
    return conversation


def main() -> None:
    conversation = build()
    (HERE / "session.json").write_text(conversation.model_dump_json(indent=1) + "\n", "utf-8")
    if "--golden" in sys.argv:
        from assistant.proposal import render_proposal

        (HERE / "proposal.md").write_text(render_proposal(conversation, "md"), "utf-8")
        (HERE / "proposal.html").write_text(render_proposal(conversation, "html"), "utf-8")
    print(compact_json({"messages": len(conversation.messages)}))


if __name__ == "__main__":
    main()
