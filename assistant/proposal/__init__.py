"""Hardware proposal export: a document a manager can read, rendered from a saved conversation.

`render_proposal(conversation, fmt, summary)` returns Markdown or self-contained HTML built only
from the tool results stored in the conversation (see `extract.py` for which turn it covers;
numbers as in `figures.py`). Three parts, each ending in a page break: page one, the decision
(`page_one.py`, at most 60 Markdown lines: recommendation, why, cost, main risk, alternative,
how the request was read); the tables (`tables.py`); the appendix (`appendix.py`: questions,
raw tool arguments, every option, the tools' assumptions, formulas, sources). Both formats are
rendered from one `Document`, so they carry the same figures in the same order. Rendering is
deterministic: the same conversation always gives the same bytes; the only dates printed are
those stored in the session and the catalog's `as_of`.
`write_proposal` writes it to a file and never replaces an existing one without `force`.

An optional executive summary written by a language model is labelled as such, placed after
page one, and checked with `assistant.grounding.unverified_figures` against every tool result,
tool argument and user message of the session; figures it cannot trace are listed under it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

from assistant.atomic_write import write_text_atomic
from assistant.conversation import Conversation
from assistant.grounding import unverified_figures
from assistant.proposal.appendix import (
    ARGUMENTS,
    ASSUMPTIONS,
    QUESTIONS,
    appendix_blocks,
    arguments_blocks,
    questions_blocks,
)
from assistant.proposal.document import Block, BulletList, Document, Heading, PageBreak, Paragraph
from assistant.proposal.extract import ProposalInputs, collect
from assistant.proposal.html import render_html
from assistant.proposal.legacy import legacy_assumptions, legacy_page_one, legacy_tables
from assistant.proposal.markdown import render_markdown
from assistant.proposal.page_one import PAGE_ONE_MAX_LINES, page_one_blocks
from assistant.proposal.quotes import first_estimate
from assistant.proposal.request_words import TASK_WORDS
from assistant.proposal.tables import tables_blocks
from assistant.proposal.workloads import embedding_page, latest_embedding, workload_blocks
from assistant.results import result_payload
from tools.errors import ToolInputError

Format = Literal["md", "html"]
FORMATS: tuple[str, ...] = ("md", "html")

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
        Heading("Executive summary (LLM-written)", 2),
        Paragraph(f"{LLM_SUMMARY_LABEL} {verdict}", note=True),
        Paragraph(summary),
    ]


def _title(inputs: ProposalInputs) -> str:
    report = inputs.report
    if report is not None:
        estimate = first_estimate(report)
        model = estimate.model_name if estimate is not None else report.model_id
        task = TASK_WORDS.get(report.request.workload.task, "")
        return f"Hardware proposal: {model or 'the model described'}, {task}".rstrip(", ")
    model = None
    if inputs.memory:
        model = inputs.memory[-1].result.model_name
    if model is None and inputs.recommend is not None:
        model = inputs.recommend.result.model_id
    return f"Hardware proposal: {model}" if model else "Hardware proposal"


def _scope(conversation: Conversation, inputs: ProposalInputs) -> Paragraph:
    covered = ""
    total = len(inputs.requests)
    if inputs.turn and total > 1:
        covered = f" It answers question {inputs.turn} of {total}; Appendix A lists them all."
    open_later = [t.turn for t in inputs.sizing_turns if t.turn > inputs.turn and t.report.question]
    if open_later:
        covered += (
            f" Question {open_later[-1]} asks which GPU was meant and is not answered yet; this "
            "proposal stays on the last question answered."
        )
    return Paragraph(
        f"Session {conversation.id} ({conversation.mode} mode), last updated "
        f"{conversation.updated}.{covered} Every figure is a tool result stored in the session, "
        "rounded for reading; memory in GiB (binary gigabytes), money in USD unless marked."
    )


def _legacy_appendix(inputs: ProposalInputs) -> list[Block]:
    blocks: list[Block] = [Heading(QUESTIONS, 2), *questions_blocks(inputs)]
    blocks += [Heading(ARGUMENTS, 2), *arguments_blocks(inputs)]
    assumptions = legacy_assumptions(inputs)
    if assumptions:
        blocks += [Heading(ASSUMPTIONS, 2), BulletList(tuple(assumptions))]
    return blocks


def build_document(conversation: Conversation, summary: str | None = None) -> Document:
    """The proposal's blocks, in order, from the conversation's stored tool results: page one,
    a page break, the tables, a page break, the appendix."""
    inputs: ProposalInputs = collect(conversation)
    embedding = latest_embedding(conversation)  # issue 30 item 2: a corpus, no LLM
    if inputs.report is not None:
        page = page_one_blocks(inputs)
        tables = tables_blocks(inputs.report) + workload_blocks(inputs.report)  # issue 30
        appendix = appendix_blocks(inputs)
    elif embedding is not None and inputs.empty:
        page, tables, appendix = embedding_page(embedding), [], _legacy_appendix(inputs)
    else:
        page = legacy_page_one(inputs)
        tables = legacy_tables(inputs)
        appendix = _legacy_appendix(inputs)
    if summary and summary.strip():
        tables = _summary_blocks(conversation, summary.strip()) + tables
    blocks: list[Block] = [_scope(conversation, inputs), *page, PageBreak(), *tables]
    blocks += [PageBreak(), *appendix]
    return Document(_title(inputs), tuple(blocks))


def render_proposal(conversation: Conversation, fmt: str = "md", summary: str | None = None) -> str:
    """The proposal as text: `fmt` "md" (Markdown) or "html" (standalone page)."""
    if fmt not in FORMATS:
        raise ToolInputError("format", f"{fmt!r} is not a proposal format", ", ".join(FORMATS))
    document = build_document(conversation, summary)
    return render_markdown(document) if fmt == "md" else render_html(document)


def format_for_path(path: Path) -> str:
    """ "html" for a .html/.htm file name, else "md"."""
    return "html" if path.suffix.lower() in (".html", ".htm") else "md"


def _exists(target: Path, field: str = "output") -> ProposalExistsError:
    return ProposalExistsError(
        field, f"{target} already exists; not overwritten", "a new path, or --force"
    )


def check_output(
    path: str | os.PathLike[str], field: str = "output", create_folders: bool = False
) -> Path:
    """`path` as a proposal target, checked before anything is rendered: its folder exists
    and is a folder (a path the user typed never creates folders: a typo in it would scatter
    files), it is not a folder itself, and it names no file under /proc, /sys or /dev.
    ToolInputError naming `field` otherwise. `create_folders`: the folder is the app's own
    (the data directory's proposals/), made when missing."""
    target = Path(path).expanduser()
    try:
        return _checked_output(target, field, create_folders)
    except OSError as exc:  # a name too long for the file system, a loop of links, ...
        raise ToolInputError(
            field, f"{str(target)[:200]} cannot be written ({exc.strerror or exc})"
        ) from None


def _checked_output(target: Path, field: str, create_folders: bool) -> Path:
    parent = target.parent
    if target.is_dir():
        raise ToolInputError(field, f"{str(target)[:200]} is a folder", "a file name")
    if target.resolve().parts[1:2] in (("proc",), ("sys",), ("dev",)):
        raise ToolInputError(
            field, f"{str(target)[:200]} is not a place for a document", "a file in a folder"
        )
    if not create_folders and not parent.is_dir():
        what = "is not a folder" if parent.exists() else "does not exist"
        raise ToolInputError(
            field,
            f"the folder {str(parent)[:200]} {what}",
            "a file in an existing folder (create it first)",
        )
    return target


def write_proposal(
    conversation: Conversation,
    path: str | os.PathLike[str],
    fmt: str | None = None,
    force: bool = False,
    summary: str | None = None,
    *,
    field: str = "output",
    create_folders: bool = False,
) -> Path:
    """Render and write the proposal to `path`; returns the path written.

    `fmt` None picks from the file extension. An existing file is replaced only with
    `force=True` (else `ProposalExistsError` naming the path). The write is atomic: a temporary
    file in the same directory, then `os.replace`. A target `check_output` refuses, or one the
    system will not let us write (permissions, a full disk), is a ToolInputError naming
    `field`, never an OSError.
    """
    target = check_output(path, field, create_folders)
    text = render_proposal(conversation, fmt or format_for_path(target), summary)
    if target.exists() and not force:
        raise _exists(target, field)
    try:
        return write_text_atomic(target, text, overwrite=force)
    except FileExistsError:  # created since the check above
        raise _exists(target, field) from None
    except OSError as exc:
        raise ToolInputError(
            field, f"{str(target)[:200]} cannot be written ({exc.strerror or exc})"
        ) from None


__all__ = [
    "FORMATS",
    "PAGE_ONE_MAX_LINES",
    "ProposalExistsError",
    "build_document",
    "check_output",
    "render_markdown",
    "render_proposal",
    "write_proposal",
]
