"""Hardware proposal export: a reviewable, sourced document rendered from a saved conversation.

`render_proposal(conversation, fmt, summary)` returns Markdown or self-contained HTML built only
from the memory / recommend / cost results stored in the conversation (see `extract.py`;
numbers as in `figures.py`). Rendering is deterministic: the same conversation always gives the
same bytes; the only dates printed are those stored in the session and the catalog's `as_of`.
`write_proposal` writes it to a file and never replaces an existing one without `force`.

An optional executive summary written by a language model is labelled as such and checked with
`assistant.grounding.unverified_figures` against every tool result, tool argument and user
message of the session; figures it cannot trace are listed under it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from assistant.atomic_write import write_text_atomic
from assistant.conversation import Conversation
from assistant.grounding import unverified_figures
from assistant.proposal.document import Block, Document, Heading, Paragraph
from assistant.proposal.extract import ProposalInputs, collect
from assistant.proposal.html import render_html
from assistant.proposal.markdown import render_markdown
from assistant.proposal.sections import (
    cost_blocks,
    memory_blocks,
    performance_blocks,
    recommendation_blocks,
    risk_blocks,
    source_blocks,
    summary_paragraph,
    workload_blocks,
)
from assistant.results import result_payload
from tools.errors import ToolInputError

Format = Literal["md", "html"]
FORMATS: tuple[str, ...] = ("md", "html")

SECTION_TITLES: tuple[str, ...] = (
    "1. Summary",
    "2. Workload and assumptions",
    "3. Memory per option",
    "4. Recommended configuration and alternatives",
    "5. Performance estimates",
    "6. Cost comparison",
    "7. Risks and what would change the answer",
    "8. Sources",
)
"""Numbered section headings; their numbers are the document's only structural numbers."""

LLM_SUMMARY_LABEL = (
    "Executive summary written by a language model (not a tool result). Figures checked "
    "against the session's tool results:"
)


class ProposalExistsError(ToolInputError):
    """The output file exists and `force` was not given."""


def session_sources(conversation: Conversation) -> list[Any]:
    """Everything a summary's figures may come from: tool results, tool arguments, user text."""
    sources: list[Any] = []
    for message in conversation.messages:
        if message.get("role") == "tool":
            sources.append(result_payload(message))
        elif message.get("role") == "user":
            sources.append(message.get("content") or "")
        for call in message.get("tool_calls") or []:
            sources.append((call.get("function") or {}).get("arguments") or "")
    return sources


def _summary_blocks(conversation: Conversation, summary: str) -> list[Block]:
    missing = unverified_figures(summary, session_sources(conversation))
    verdict = (
        "every figure was found in the tool results."
        if not missing
        else "NOT found in any tool result: " + ", ".join(missing) + "."
    )
    return [
        Heading("Executive summary (LLM-written)", 3),
        Paragraph(f"{LLM_SUMMARY_LABEL} {verdict}", note=True),
        Paragraph(summary),
    ]


def build_document(conversation: Conversation, summary: str | None = None) -> Document:
    """The proposal's blocks, in order, from the conversation's stored tool results."""
    inputs: ProposalInputs = collect(conversation)
    model = None
    if inputs.recommend is not None:
        model = inputs.recommend.result.model_id
    if model is None and inputs.memory:
        model = inputs.memory[-1].result.model_name
    title = f"Hardware proposal: {model}" if model else "Hardware proposal"
    header = Paragraph(
        f"Session {conversation.id} ({conversation.mode}), last updated {conversation.updated}. "
        "Every figure below is quoted from the tool results stored in this session, rounded for "
        "reading (two decimals, three significant digits below one); memory is in GiB "
        "(binary gigabytes), the unit of the tools' notes."
    )
    sections: list[list[Block]] = [
        [Paragraph(summary_paragraph(inputs))],
        workload_blocks(inputs),
        memory_blocks(inputs),
        recommendation_blocks(inputs),
        performance_blocks(inputs),
        cost_blocks(inputs),
        risk_blocks(inputs),
        source_blocks(inputs),
    ]
    if summary and summary.strip():
        sections[0] += _summary_blocks(conversation, summary.strip())
    blocks: list[Block] = [header]
    for heading, content in zip(SECTION_TITLES, sections, strict=True):
        blocks.append(Heading(heading, 2))
        blocks.extend(content)
    return Document(title, tuple(blocks))


def render_proposal(conversation: Conversation, fmt: str = "md", summary: str | None = None) -> str:
    """The proposal as text: `fmt` "md" (Markdown) or "html" (standalone page)."""
    if fmt not in FORMATS:
        raise ToolInputError("format", f"{fmt!r} is not a proposal format", ", ".join(FORMATS))
    document = build_document(conversation, summary)
    return render_markdown(document) if fmt == "md" else render_html(document)


def format_for_path(path: Path) -> str:
    """ "html" for a .html/.htm file name, else "md"."""
    return "html" if path.suffix.lower() in (".html", ".htm") else "md"


def _exists(target: Path) -> ProposalExistsError:
    return ProposalExistsError(
        "output", f"{target} already exists; not overwritten", "a new path, or --force"
    )


def write_proposal(
    conversation: Conversation,
    path: str | os.PathLike[str],
    fmt: str | None = None,
    force: bool = False,
    summary: str | None = None,
) -> Path:
    """Render and write the proposal to `path`; returns the path written.

    `fmt` None picks from the file extension. An existing file is replaced only with
    `force=True` (else `ProposalExistsError` naming the path). The write is atomic: a temporary
    file in the same directory, then `os.replace`.
    """
    target = Path(path)
    text = render_proposal(conversation, fmt or format_for_path(target), summary)
    if target.exists() and not force:
        raise _exists(target)
    try:
        return write_text_atomic(target, text, overwrite=force)
    except FileExistsError:  # created since the check above
        raise _exists(target) from None


__all__ = [
    "FORMATS",
    "ProposalExistsError",
    "build_document",
    "render_proposal",
    "write_proposal",
]
