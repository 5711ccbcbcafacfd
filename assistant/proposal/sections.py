"""The proposal's sections, built from stored tool results only (see `figures.py` for numbers).

Every figure placed in a block is a value read from a memory / recommend / cost result or from
the arguments the tools were called with; strings the tools wrote (reasons, notes, assumptions,
formulas, break-even explanations) are quoted verbatim. Nothing here computes a figure; memory
is shown in GiB, the unit of the tools' own notes (figures.py converts and rounds for reading).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from assistant.proposal.document import Block, BulletList, Heading, Paragraph, Table
from assistant.proposal.extract import ProposalInputs, ToolRecord
from assistant.proposal.figures import bytes_as_gib, format_number, gb_as_gib, text_value

PERFORMANCE_WORDS = ("mfu", "ttft", "all-reduce", "memory bandwidth", "static batching")
"""An assumption mentioning one of these belongs to the performance model (section 5)."""

CITATION_WORDS = (
    "paper",
    "docs",
    "et al",
    "table",
    "arxiv",
    "http",
    "§",
    "gpt-fast",
    "nccl",
    "datasheet",
)
"""A formula or assumption mentioning one of these cites a source (listed in section 8)."""

NUMERIC_RIGHT = frozenset(range(1, 32))


def _options(inputs: ProposalInputs) -> list[dict[str, Any]]:
    if inputs.recommend is None:
        return []
    return [o for o in inputs.recommend.result.get("options", []) if isinstance(o, dict)]


def _recommended(inputs: ProposalInputs) -> dict[str, Any] | None:
    """The option the proposal recommends: the GPUs the user named ('on 8× H200', the last
    turn's sized configuration) when the recommender's layout at exactly that count meets the
    targets (QA round 4, 1: not a smaller layout within them), else the recommender's first
    option that meets the targets (it ranks best first)."""
    meeting = [o for o in _options(inputs) if o.get("meets_targets")]
    named = _named_configurations(inputs)
    for option in [*meeting, *_rejected(inputs)]:
        key = (option.get("gpu"), option.get("count"))
        if key in named and option.get("fits") and option.get("meets_targets"):
            return option
    return meeting[0] if meeting else None


def _named_configurations(inputs: ProposalInputs) -> set[tuple[Any, int]]:
    """(GPU id, count) of the last turn's serving memory estimates that name a GPU and several
    GPUs: the hardware the user asked about. A training count only bounds the search (the
    recommender's smallest layout within it that meets the deadline is the answer)."""
    return {
        (record.arguments.get("gpu"), int(record.arguments.get("gpus", 1)))
        for record in inputs.memory
        if record.arguments.get("gpu")
        and int(record.arguments.get("gpus", 1)) > 1
        and record.arguments.get("task") in (None, "inference")
    }


def _layout(option: dict[str, Any]) -> str:
    return (
        f"{text_value(option.get('count'))}× {option.get('gpu_name') or option.get('gpu')} "
        f"(TP={text_value(option.get('tp'))}, PP={text_value(option.get('pp'))}, "
        f"DP={text_value(option.get('dp'))})"
    )


def _cost_rows(inputs: ProposalInputs) -> list[dict[str, Any]]:
    if inputs.cost is None:
        return []
    return [r for r in inputs.cost.result.get("rows", []) if isinstance(r, dict)]


def _cheapest_rows(inputs: ProposalInputs) -> list[tuple[str, dict[str, Any]]]:
    """(tier, row) for the cost tool's cheapest row of each tier, in the tool's order."""
    if inputs.cost is None:
        return []
    by_id = {r.get("price_id"): r for r in _cost_rows(inputs)}
    cheapest = inputs.cost.result.get("cheapest_by_tier") or {}
    return [(tier, by_id[pid]) for tier, pid in cheapest.items() if pid in by_id]


def _money(row: dict[str, Any], key: str, currency: str | None = None) -> str:
    """A price in its own currency (`currency` for a `usd_*` field), rounded for reading."""
    value = row.get(key)
    if value is None:
        return "—"
    return f"{format_number(value)} {currency or row.get('currency', '')}".strip()


def _unconverted_note(inputs: ProposalInputs) -> str | None:
    """The cost tool's line about offers it could not compare in USD (no EUR→USD rate)."""
    if inputs.cost is None:
        return None
    notes = [inputs.cost.result.get("unconverted_note")]
    training = inputs.cost.result.get("training")
    if isinstance(training, dict):
        notes.append(training.get("unconverted_note"))
    return "; ".join(str(n).rstrip(".") for n in dict.fromkeys(notes) if n) or None


# --- 1. summary -------------------------------------------------------------------------------


def summary_paragraph(inputs: ProposalInputs) -> str:
    """The recommendation in one paragraph, every figure quoted from the results."""
    rec = inputs.recommend
    best = _recommended(inputs)
    parts: list[str] = []
    if rec is not None:
        model = rec.result.get("model_id", "the model")
        if best is not None:
            parts.append(
                f"For {model}, the recommended configuration is {_layout(best)}: it fits in "
                f"{gb_as_gib(best.get('per_gpu_GB'))} GiB per GPU of a "
                f"{bytes_as_gib(best.get('budget_bytes_per_gpu'))} GiB budget and meets the "
                "workload's targets."
            )
            perf = []
            if best.get("aggregate_tokens_per_s") is not None:
                perf.append(
                    f"{format_number(best['aggregate_tokens_per_s'])} output tokens/s in total"
                    " at the stated load"
                )
            full = best.get("full_load_tokens_per_s")
            if full is not None and full != best.get("aggregate_tokens_per_s"):
                # The cost section's $/M tokens may be priced at full load: say that rate too.
                sequences = best.get("full_load_sequences_per_replica")
                each = "" if sequences is None else f", {format_number(sequences)} per replica"
                perf.append(
                    f"{format_number(full)} output tokens/s at full load (every KV slot in "
                    f"use{each})"
                )
            if best.get("decode_tokens_per_s_per_seq") is not None:
                perf.append(
                    f"{format_number(best['decode_tokens_per_s_per_seq'])} tokens/s per sequence"
                )
            if best.get("ttft_s") is not None:
                perf.append(f"a time to first token of {format_number(best['ttft_s'])} s")
            if best.get("training_hours") is not None:
                perf.append(f"{format_number(best['training_hours'])} h of training")
            if perf:
                parts.append("Estimated performance: " + ", ".join(perf) + ".")
        else:
            nearest = rec.result.get("nearest_feasible")
            parts.append(
                f"For {model}, no evaluated configuration meets every target."
                + (f" {nearest}" if nearest else "")
            )
    cheapest = _cheapest_rows(inputs)
    if cheapest:
        tier, row = cheapest[0]
        parts.append(
            f"The cheapest {tier} price compared in USD is {row.get('provider')} "
            f"{row.get('instance') or row.get('gpu_label') or ''}".rstrip()
            + f" at {_money(row, 'usd_per_hour', 'USD')} per hour (as of {_dated(row)})."
        )
    unconverted = _unconverted_note(inputs)
    if unconverted:
        parts.append(f"Not compared: {unconverted}.")
    if not parts:
        parts.append("The session holds no memory, recommendation or cost result to report.")
    return " ".join(parts)


# --- 2. workload and assumptions ---------------------------------------------------------------


def _flatten(arguments: dict[str, Any], prefix: str = "") -> Iterable[tuple[str, Any]]:
    for key, value in arguments.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            yield from _flatten(value, name + ".")
        else:
            yield name, value


def workload_blocks(inputs: ProposalInputs) -> list[Block]:
    """The arguments each tool was called with, and the assumptions the tools stated."""
    blocks: list[Block] = []
    if inputs.requests:
        blocks.append(Paragraph("What was asked, in the user's words:"))
        blocks.append(BulletList(tuple(inputs.requests)))
    if inputs.readings:
        blocks.append(Paragraph("How those words were read (check these first):"))
        blocks.append(BulletList(inputs.readings))
    records: list[ToolRecord] = [*inputs.memory]
    records += [r for r in (inputs.recommend, inputs.cost) if r is not None]
    for record in records:
        if record.name == "compare_costs":
            continue  # its arguments are the options priced (section 6)
        rows = tuple((key, text_value(value)) for key, value in _flatten(record.arguments))
        blocks.append(Heading(f"Arguments of {record.name}", 3))
        if rows:
            blocks.append(Table(("field", "value as sent"), rows))
        else:
            blocks.append(Paragraph("Called with the tool's defaults."))
    general = [a for a in _assumptions(inputs) if not _is_performance(a)]
    if general:
        blocks.append(Heading("Assumptions stated by the tools", 3))
        blocks.append(BulletList(tuple(general)))
    return blocks


def _assumptions(inputs: ProposalInputs) -> list[str]:
    seen: dict[str, None] = {}
    for record in [*inputs.memory, inputs.recommend]:
        if record is not None:
            for item in record.result.get("assumptions", []):
                seen.setdefault(str(item), None)
    return list(seen)


def _is_performance(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in PERFORMANCE_WORDS)


# --- 3. memory ---------------------------------------------------------------------------------

MEMORY_OPTION_HEADERS = (
    "configuration",
    "needed per GPU (GiB)",
    "budget per GPU (GiB)",
    "headroom per GPU (GiB)",
    "KV capacity per GPU (GiB)",
    "KV capacity (tokens)",
    "max concurrent sequences",
    "fits",
)


def memory_blocks(inputs: ProposalInputs) -> list[Block]:
    """Per option: memory needed vs budget and KV capacity; per memory call: the breakdown."""
    blocks: list[Block] = []
    options = _options(inputs)
    if options:
        rows = tuple(
            (
                _layout(o),
                gb_as_gib(o.get("per_gpu_GB")),
                bytes_as_gib(o.get("budget_bytes_per_gpu")),
                gb_as_gib(o.get("headroom_GB")),
                gb_as_gib(o.get("kv_cache_capacity_GB")),
                text_value(o.get("kv_cache_capacity_tokens")),
                text_value(o.get("max_concurrent_sequences")),
                text_value(o.get("fits")),
            )
            for o in options
        )
        blocks.append(
            Paragraph(
                "Best layout per GPU type, as ranked by the recommender (memory in GiB, "
                "the unit of the tools' notes):"
            )
        )
        blocks.append(Table(MEMORY_OPTION_HEADERS, rows, frozenset(range(1, 7))))
    for record in _shown_breakdowns(inputs.memory):
        blocks.extend(_breakdown_blocks(record))
    if not blocks:
        blocks.append(Paragraph("No memory result in this session."))
    return blocks


def _shown_breakdowns(memory: tuple[ToolRecord, ...]) -> list[ToolRecord]:
    """The breakdowns to show: a layout that does not fit (a GPU named without a count, sized
    as one GPU) is left out when the same turn also sized the recommended layout on that GPU
    (the offline engine's follow-up, which carries 'pp') and it fits."""
    fitting_layouts = {
        r.arguments.get("gpu")
        for r in memory
        if "pp" in r.arguments and r.result.get("fits") is True
    }
    return [
        r
        for r in memory
        if not (r.result.get("fits") is False and r.arguments.get("gpu") in fitting_layouts)
    ]


def _breakdown_blocks(record: ToolRecord) -> list[Block]:
    r = record.result
    where = f"{text_value(r.get('num_gpus'))}× {r.get('gpu') or 'GPU'}"
    title = (
        f"Memory breakdown: {r.get('model_name') or r.get('model_id')}, "
        f"{r.get('weights_format')} weights, {where} "
        f"(TP={text_value(r.get('tp'))}, PP={text_value(r.get('pp'))})"
    )
    blocks: list[Block] = [Heading(title, 3)]
    components = [c for c in r.get("components", []) if isinstance(c, dict)]
    rows = [
        (str(c.get("name")), bytes_as_gib(c.get("bytes_per_gpu")), str(c.get("formula", "")))
        for c in components
    ]
    rows.append(("total on the most loaded GPU", gb_as_gib(r.get("per_gpu_GB")), ""))
    if r.get("budget_bytes_per_gpu") is not None:
        rows.append(("budget (usable × utilisation)", bytes_as_gib(r["budget_bytes_per_gpu"]), ""))
    if r.get("headroom_GB") is not None:
        rows.append(("headroom", gb_as_gib(r["headroom_GB"]), ""))
    blocks.append(Table(("component", "per GPU (GiB)", "formula"), tuple(rows), frozenset({1})))
    facts = [
        f"context {text_value(r.get('context'))} tokens, batch {text_value(r.get('batch'))}, "
        f"KV cache {r.get('kv_dtype')}, engine {r.get('engine')}",
        f"KV cache per token (whole model): {text_value(r.get('kv_cache_bytes_per_token'))} bytes",
        f"parameters: {text_value(r.get('total_params'))} total, "
        f"{text_value(r.get('active_params'))} active per token",
    ]
    if r.get("fits") is not None:
        facts.append(f"fits: {text_value(r.get('fits'))}")
    facts += [
        f"component assumption ({c.get('name')}): {a}"
        for c in components
        for a in c.get("assumptions", [])
    ]
    facts += [f"warning: {w}" for w in r.get("warnings", [])]
    blocks.append(BulletList(tuple(facts)))
    return blocks


# --- 4. recommendation and alternatives ---------------------------------------------------------


def recommendation_blocks(inputs: ProposalInputs) -> list[Block]:
    """The recommended option, the alternatives, and why the others were rejected."""
    if inputs.recommend is None:
        return [Paragraph("No recommendation in this session.")]
    result = inputs.recommend.result
    best = _recommended(inputs)
    blocks: list[Block] = []
    if best is not None:
        blocks.append(
            Paragraph(f"Recommended: {_layout(best)}, {text_value(best.get('nodes'))} node(s).")
        )
        if best.get("reasons"):
            blocks.append(BulletList(tuple(str(x) for x in best["reasons"])))
    elif result.get("nearest_feasible"):
        blocks.append(Paragraph(str(result["nearest_feasible"]), note=True))
    others = [o for o in _options(inputs) if o is not best]
    meeting = [o for o in others if o.get("meets_targets")]
    if meeting:
        blocks.append(Heading("Alternatives that also meet the targets", 3))
        blocks.append(BulletList(tuple(_layout(o) + _reasons(o) for o in meeting)))
    failing = [o for o in others if not o.get("meets_targets")]
    rejected = [o for o in result.get("rejected", []) if isinstance(o, dict)]
    if failing or rejected:
        blocks.append(Heading("Rejected configurations and why", 3))
        items = [_layout(o) + _reasons(o, "does not meet the targets") for o in failing]
        items += [
            _layout(o) + _reasons(o, "a smaller or better layout of this GPU was chosen")
            for o in rejected
        ]
        blocks.append(BulletList(tuple(items)))
    if result.get("notes"):
        blocks.append(Heading("Notes from the recommender", 3))
        blocks.append(BulletList(tuple(str(n) for n in result["notes"])))
    return blocks


def _reasons(option: dict[str, Any], fallback: str = "") -> str:
    reasons = [str(r) for r in option.get("reasons", [])]
    if reasons:
        return ": " + "; ".join(reasons)
    return f": {fallback}" if fallback else ""


# --- 5. performance -----------------------------------------------------------------------------

PERFORMANCE_HEADERS = (
    "configuration",
    "decode per sequence (tokens/s)",
    "aggregate output (tokens/s)",
    "prefill (tokens/s)",
    "TTFT (s)",
    "training (h)",
    "GPU-hours",
)


def performance_blocks(inputs: ProposalInputs) -> list[Block]:
    """Speed estimates of each option and the performance model's stated assumptions."""
    options = [o for o in _options(inputs) if o.get("fits")]
    blocks: list[Block] = []
    if options:
        rows = tuple(
            (
                _layout(o),
                text_value(o.get("decode_tokens_per_s_per_seq")),
                text_value(o.get("aggregate_tokens_per_s")),
                text_value(o.get("prefill_tokens_per_s")),
                text_value(o.get("ttft_s")),
                text_value(o.get("training_hours")),
                text_value(o.get("gpu_hours")),
            )
            for o in options
        )
        blocks.append(Table(PERFORMANCE_HEADERS, rows, frozenset(range(1, 7))))
    model = [a for a in _assumptions(inputs) if _is_performance(a)]
    if model:
        blocks.append(Heading("The model behind these estimates", 3))
        blocks.append(BulletList(tuple(model)))
    if not blocks:
        blocks.append(Paragraph("No performance estimate in this session."))
    return blocks


# --- 6. cost ------------------------------------------------------------------------------------

PRICE_HEADERS = (
    "tier",
    "provider",
    "instance",
    "region",
    "GPUs",
    "USD per hour",
    "USD per month",
    "USD per million output tokens",
    "published per hour",
    "as_of",
)


def _price_row(tier: str, row: dict[str, Any]) -> tuple[str, ...]:
    return (
        tier,
        str(row.get("provider", "")),
        str(row.get("instance") or row.get("gpu_label") or ""),
        str(row.get("region") or "—"),
        f"{text_value(row.get('count'))}× {row.get('gpu')}"
        + (
            f" (billed {text_value(row.get('billed_gpus'))})"
            if row.get("billed_gpus") not in (None, row.get("count"))
            else ""
        ),
        _usd(row, "usd_per_hour"),
        _usd(row, "usd_per_month"),
        _usd(row, "usd_per_million_tokens"),
        _money(row, "per_hour"),
        _dated(row),
    )


def _dated(row: dict[str, Any]) -> str:
    """A price's as_of and, when the stored result carries it, its age when it was priced
    (a proposal is read later than the session ran, so the age is labelled with that time)."""
    age = row.get("age")
    return str(row.get("as_of", "")) + (f" ({age} when priced)" if age else "")


def _usd(row: dict[str, Any], key: str) -> str:
    """A USD column: the converted figure, or why there is none (no rate for its currency)."""
    if row.get(key) is None and row.get("currency") not in (None, "USD"):
        return f"not compared (no {row.get('currency')}→USD rate)"
    return _money(row, key, "USD")


def cost_blocks(inputs: ProposalInputs) -> list[Block]:
    """Cheapest price per tier, all matching prices, the hosted-API comparison, break-even."""
    if inputs.cost is None:
        return [Paragraph("No cost result in this session.")]
    result = inputs.cost.result
    blocks: list[Block] = []
    cheapest = _cheapest_rows(inputs)
    if cheapest:
        blocks.append(Heading("Cheapest cloud option per price tier", 3))
        blocks.append(Table(PRICE_HEADERS, tuple(_price_row(t, r) for t, r in cheapest)))
    apis = [a for a in result.get("api_comparison", []) if isinstance(a, dict)]
    if apis:
        blocks.append(Heading("Hosted API alternative", 3))
        rows = tuple(
            (
                str(a.get("provider", "")),
                str(a.get("model", "")),
                str(a.get("match", "")),
                f"{format_number(a.get('input_per_mtok'))} {a.get('currency', '')}",
                f"{format_number(a.get('output_per_mtok'))} {a.get('currency', '')}",
                f"{format_number(a.get('blended_per_mtok'))} {a.get('currency', '')}",
                _dated(a),
            )
            for a in apis
        )
        headers = (
            "provider",
            "model",
            "match",
            "input per Mtok",
            "output per Mtok",
            "blended per Mtok",
            "as_of",
        )
        blocks.append(Table(headers, rows))
    evens = [b for b in result.get("break_even", []) if isinstance(b, dict)]
    if evens:
        blocks.append(Heading("Break-even against the hosted API", 3))
        blocks.append(
            BulletList(
                tuple(
                    f"{b.get('provider')} {b.get('tier')} vs {b.get('api_provider')} "
                    f"({b.get('api_id')}): {b.get('explanation', '')}"
                    for b in evens
                )
            )
        )
    unconverted = _unconverted_note(inputs)
    if unconverted:
        blocks.append(Paragraph(f"Not compared in USD: {unconverted}.", note=True))
    rows_all = _cost_rows(inputs)
    if rows_all:
        blocks.append(Heading("Every matching cloud price", 3))
        blocks.append(
            Table(PRICE_HEADERS, tuple(_price_row(str(r.get("tier", "")), r) for r in rows_all))
        )
    excluded = [e for e in result.get("excluded", []) if isinstance(e, dict)]
    if excluded:
        blocks.append(Heading("Prices the cost tool left out", 3))
        blocks.append(
            BulletList(
                tuple(f"{e.get('id')} ({e.get('provider')}): {e.get('reason')}" for e in excluded)
            )
        )
    if result.get("assumptions"):
        blocks.append(Heading("Cost assumptions", 3))
        blocks.append(BulletList(tuple(str(a) for a in result["assumptions"])))
    return blocks


# --- 7. risks -----------------------------------------------------------------------------------


def risk_blocks(inputs: ProposalInputs) -> list[Block]:
    """What would change the answer, each point tied to a figure from the results."""
    best = _recommended(inputs)
    rec = inputs.recommend.result if inputs.recommend else {}
    items: list[str] = []
    if best is not None:
        items.append(
            f"Context growth: one replica holds {text_value(best.get('kv_cache_capacity_tokens'))}"
            f" KV tokens ({gb_as_gib(best.get('kv_cache_capacity_GB'))} GiB per GPU), i.e. "
            f"{text_value(best.get('max_concurrent_sequences'))} sequences of "
            f"{text_value(rec.get('context_tokens'))} tokens; longer contexts leave room for "
            "fewer concurrent sequences."
        )
        items.append(
            f"More users: the plan runs {text_value(best.get('dp'))} replica(s) of at most "
            f"{text_value(best.get('max_concurrent_sequences'))} concurrent sequences each; "
            "beyond that, add replicas or re-run the sizing."
        )
        items.append(
            f"Headroom: {gb_as_gib(best.get('headroom_GB'))} GiB per GPU is left under the "
            f"{bytes_as_gib(best.get('budget_bytes_per_gpu'))} GiB budget at the requested load."
        )
    weights = [m.result.get("weights_format") for m in inputs.memory]
    weights_arg = inputs.recommend.arguments.get("weights") if inputs.recommend else None
    fmt = next((w for w in weights if w), None) or weights_arg
    if rec.get("weight_GB") is not None or fmt:
        items.append(
            "Quantization quality: the weights are sized as "
            f"{fmt or 'the default format'}"
            + (f" ({gb_as_gib(rec.get('weight_GB'))} GiB)" if rec.get("weight_GB") else "")
            + "; a lower-bit format shrinks them but its output quality must be checked on "
            "your own evaluation set before it changes this plan."
        )
    cheapest = _cheapest_rows(inputs)
    if cheapest:
        dated = "; ".join(
            f"{tier}: {row.get('provider')} {_money(row, 'usd_per_hour', 'USD')} per hour as of "
            f"{_dated(row)}"
            for tier, row in cheapest
        )
        items.append(f"Price changes: cloud prices move; the cheapest found were {dated}.")
    if inputs.cost is not None:
        for even in inputs.cost.result.get("break_even", []):
            if isinstance(even, dict) and even.get("reachable") is not None:
                volume = text_value(even.get("break_even_output_tokens_per_month"))
                capacity = text_value(even.get("capacity_output_tokens_per_month"))
                hosted = f"{even.get('provider')} {even.get('tier')}"
                api = f"the hosted API ({even.get('api_provider')})"
                if even["reachable"]:
                    text = (
                        f"Volume: below {volume} output tokens a month {api} costs less than "
                        f"{hosted}; fewer or less active users than planned favour the API."
                    )
                else:
                    text = (
                        f"Volume: {hosted} cannot reach the break-even of {volume} output "
                        f"tokens a month (capacity {capacity}); {api} stays cheaper unless "
                        "prices or the load change."
                    )
                items.append(text)
    for warning in [w for m in inputs.memory for w in m.result.get("warnings", [])]:
        items.append(f"Memory warning: {warning}")
    if not items:
        return [Paragraph("No result in this session to derive risks from.")]
    return [BulletList(tuple(dict.fromkeys(items)))]


# --- 8. sources ---------------------------------------------------------------------------------


def source_blocks(inputs: ProposalInputs) -> list[Block]:
    """Catalog entries behind the figures (with as_of) and the sources the formulas cite."""
    entries: dict[str, None] = {}
    for option in [*_options(inputs), *_rejected(inputs)]:
        if option.get("gpu_as_of"):
            entries.setdefault(
                f"GPU {option.get('gpu_name') or option.get('gpu')} (catalog {option.get('gpu')}),"
                f" as_of {option['gpu_as_of']}",
                None,
            )
    used = {row.get("price_id") for _, row in _cheapest_rows(inputs)}
    for row in _cost_rows(inputs):
        if row.get("price_id") in used:
            entries.setdefault(
                f"Price {row.get('price_id')}: {row.get('source')}, as_of {row.get('as_of')}",
                None,
            )
    if inputs.cost is not None:
        for api in inputs.cost.result.get("api_comparison", []):
            if isinstance(api, dict):
                entries.setdefault(
                    f"API price {api.get('api_id')}: {api.get('source')}, as_of {api.get('as_of')}",
                    None,
                )
    cited: dict[str, None] = {}
    for text in _cited_texts(inputs):
        if any(word in text.lower() for word in CITATION_WORDS):
            cited.setdefault(text, None)
    blocks: list[Block] = []
    if entries:
        blocks.append(Heading("Catalog entries", 3))
        blocks.append(BulletList(tuple(entries)))
    if cited:
        blocks.append(Heading("Formulas and the sources they cite", 3))
        blocks.append(BulletList(tuple(cited)))
    return blocks or [Paragraph("No sourced result in this session.")]


def _rejected(inputs: ProposalInputs) -> list[dict[str, Any]]:
    if inputs.recommend is None:
        return []
    return [o for o in inputs.recommend.result.get("rejected", []) if isinstance(o, dict)]


def _cited_texts(inputs: ProposalInputs) -> Sequence[str]:
    texts = list(_assumptions(inputs))
    for record in inputs.memory:
        for component in record.result.get("components", []):
            if isinstance(component, dict):
                texts.append(f"{component.get('name')}: {component.get('formula')}")
    return texts
