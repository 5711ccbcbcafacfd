"""Plain language → `ParsedWorkload`: the extractors' order, `parse_workload` and the
follow-up merge.

Extractors run in a fixed order over a working copy of the text; each one blanks out what it
consumed so a later, looser one cannot misread it ("8-bit Adam" is an optimizer before "8-bit"
can be a precision; "2B tokens" is training data before "2B" can be a model size). Whatever is
left that is not filler is reported in `unplaced`. No figures are computed here.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable

from assistant.offline.parser.card_memory import check_card_memory
from assistant.offline.parser.changes import apply_changes, extract_changes
from assistant.offline.parser.choices import set_aside_rejected
from assistant.offline.parser.claims import claims_reading, extract_claims
from assistant.offline.parser.deployment import (
    extract_buy_words,
    extract_launch_words,
    extract_llama_cpp_flags,
    extract_offload_words,
    extract_prefix_tokens,
    extract_sampling_flags,
    extract_serve_engine,
    extract_speedup_words,
)
from assistant.offline.parser.exl2 import (
    extract_exl2_name_rest,
    extract_exl2_names,
    extract_exllamav2_cache,
)
from assistant.offline.parser.followup import is_follow_up
from assistant.offline.parser.gpus import (
    apply_nodes,
    extract_gpu_generic,
    extract_gpus,
    extract_nodes,
    extract_parallel_flag,
    extract_system_ram,
    unknown_gpus,
)
from assistant.offline.parser.instances import extract_cloud_instances
from assistant.offline.parser.leftovers import (
    huge_numbers,
    negative_numbers,
    unplaced_fragments,
)
from assistant.offline.parser.lengths import extract_context
from assistant.offline.parser.load import (
    extract_concurrency,
    extract_throughput_and_latency,
    extract_token_volume,
)
from assistant.offline.parser.models import (
    extract_bare_size,
    extract_expert_shape,
    extract_hf_and_catalog_models,
    extract_library_names,
    extract_misspelt_models,
    extract_model_files_and_tags,
    extract_named_sizes,
    extract_size_then_family,
    family_questions,
    near_miss_models,
)
from assistant.offline.parser.options import (
    api_model_question,
    extract_api_comparison,
    extract_api_models,
    extract_budget,
    extract_cost_per_token,
    extract_price_period,
    extract_rank_and_flags,
)
from assistant.offline.parser.owned import extract_owned
from assistant.offline.parser.provenance import Offsets, run_extractors
from assistant.offline.parser.questions import (
    asks_something,
    extract_pasted,
    extract_question_kind,
    extract_reported_setup,
)
from assistant.offline.parser.replies import reply_text
from assistant.offline.parser.scope import extract_out_of_scope, sizes_something
from assistant.offline.parser.task import (
    FP8_WEIGHTS_ONLY,
    extract_kv_dtype,
    extract_llama_cpp_cache,
    extract_precision,
    extract_task,
    format_notes,
)
from assistant.offline.parser.text import Text, normalise
from assistant.offline.parser.training import (
    extract_deadline,
    extract_optimizer,
    extract_training_data,
    extract_training_sequence_length,
    extract_zero,
)
from assistant.offline.parser.workloads import (
    extract_batch_job,
    extract_embedding,
    extract_lora_serving,
    extract_request_rate,
)
from assistant.reading.coverage import (
    ASKED_QUESTION,
    MOST_WORDS_UNREAD,
    classify,
    confirm_question,
    gate_question,
)
from assistant.reading.model import SlotSource, Span
from assistant.reading.parsed import ParsedWorkload
from assistant.reading.quantities import QUANTITY, parse_quantity
from assistant.regex_cache import compiled
from tools.catalog import get_catalog

_EXTRACTORS: tuple[Callable[[Text, ParsedWorkload], None], ...] = (
    set_aside_rejected,
    extract_speedup_words,
    extract_changes,
    extract_embedding,  # issue 30 items 1-4: before models and GPUs ('bge-m3' is no M3)
    extract_batch_job,  # and job totals before model sizes ('2 billion input tokens')
    extract_request_rate,  # and rates before GPUs and users ('p99', '10 req/s')
    extract_exl2_names,  # an EXL2 repo's rate and head bits before the model readers take it
    extract_model_files_and_tags,
    extract_llama_cpp_flags,  # a llama.cpp command line's words that change no figure
    extract_sampling_flags,  # '--temperature 0.35', 'top_p=0.9': no figure
    extract_library_names,
    extract_owned,
    extract_hf_and_catalog_models,
    extract_misspelt_models,
    extract_size_then_family,
    extract_named_sizes,
    extract_exl2_name_rest,  # the rest of the EXL2 repo name the model was read from
    extract_expert_shape,  # '8x22b' before the token volumes read '22b' as tokens
    extract_lora_serving,  # issue 30 items 1-4
    negative_numbers,
    huge_numbers,
    extract_claims,
    extract_buy_words,
    extract_cost_per_token,
    extract_budget,
    extract_exllamav2_cache,  # 'Q4 cache' with ExLlamaV2 before any format reader
    extract_llama_cpp_cache,  # and llama.cpp's '-ctk q8_0' / 'q8_0 KV cache'
    extract_kv_dtype,
    extract_optimizer,
    extract_throughput_and_latency,
    extract_token_volume,
    extract_api_comparison,
    extract_api_models,
    extract_training_data,
    extract_deadline,
    extract_price_period,
    extract_zero,
    extract_nodes,
    extract_system_ram,
    extract_cloud_instances,  # 'g5.48xlarge' before the GPU names ('A10G GPU' beside it)
    extract_gpus,
    extract_gpu_generic,
    apply_nodes,
    extract_parallel_flag,
    extract_precision,
    extract_training_sequence_length,
    extract_question_kind,
    extract_pasted,
    extract_reported_setup,
    extract_out_of_scope,
    extract_launch_words,
    extract_concurrency,
    extract_task,
    extract_offload_words,  # after the task: serving's offload only
    extract_context,
    extract_prefix_tokens,
    extract_rank_and_flags,
    extract_serve_engine,
    extract_bare_size,
    api_model_question,
    near_miss_models,
    family_questions,
    unknown_gpus,
    unplaced_fragments,
)

# Fields a follow-up turn inherits from the previous workload when it does not restate them.
_INHERITED = tuple(
    name
    for name in ParsedWorkload.model_fields
    if name
    not in (
        *("text", "notes", "questions", "unplaced", "unread", "sources", "out_of_scope"),
        *("changes", "answered_gpu", "answered_count", "assumed", "pasted"),
        *("model", "model_text", "params", "model_file", "stand_in_for"),
    )
)


def parse_workload(text: str, previous: ParsedWorkload | None = None) -> ParsedWorkload:
    """Parse a sizing request. With `previous`, a follow-up refines it ("what about 8-bit?");
    a new question that names its own model starts fresh (`followup.is_follow_up`).

    Never raises on any input text; what cannot be placed is listed in `unplaced`, missing
    verdict-changing facts in `questions`.
    """
    if previous is not None:
        # A reply in the words it means: to a question asked back, or about the previous GPUs
        # ('SXM' → '8× h100-sxm', 'the 40GB one', '4 of them' → '4× l40s').
        text = reply_text(text, previous)
    raw = text[:4000]
    t = Text(normalise(raw))
    parsed = ParsedWorkload(text=text)
    run_extractors(t, parsed, _EXTRACTORS, Offsets(raw, t.original))
    claims_reading(parsed)
    if parsed.train_tokens is None and parsed.train_examples and parsed.tokens_per_example:
        epochs = parsed.epochs or 1.0
        parsed.train_tokens = parsed.train_examples * parsed.tokens_per_example * epochs
    follow_up = previous is not None and is_follow_up(text, parsed, previous)
    if previous is not None and follow_up:
        parsed = _with_model_from_reply(text, parsed, previous)
        parsed = _size_in_previous_family(parsed, previous)
        parsed = _merge(previous, parsed)
        # Notes that follow from the merged formats are derived again from the merge.
        parsed.notes = [n for n in parsed.notes if n != FP8_WEIGHTS_ONLY] + format_notes(parsed)
    scope_only = parsed.out_of_scope and not sizes_something(parsed)
    fits_question = parsed.asked == "which_models" and bool(parsed.gpus or parsed.gpu_memory_bytes)
    embedding = parsed.embedding_model is not None  # issue 30: an embedding model is a model
    if (
        not parsed.has_model
        and not parsed.asks("model")
        and not scope_only
        and not fits_question
        and not embedding
    ):
        if parsed.api_models:
            # 'serve GPT-4o mini to 100 users': a hosted API only, nothing to size on a GPU.
            named = " and ".join(dict.fromkeys(parsed.api_models))
            parsed.ask(
                "model",
                "missing",
                f"{named} is a hosted API (its weights are not published, so it cannot be "
                "self-hosted): which model would you self-host to compare with it? Give a name "
                "(e.g. 'Llama 3.3 70B'), a Hugging Face id or a size such as '70B'.",
                named,
            )
        else:
            parsed.ask(
                "model",
                "missing",
                "Which model? Give a name (e.g. 'Llama 3.1 70B'), a Hugging Face id or a size "
                "such as '13B'.",
            )
    if parsed.long_context and parsed.context is None and parsed.prompt_tokens is None:
        # "Long-context" with no size would be sized at the tools' short default context,
        # the opposite of what was said: the KV cache (and the verdict) scale with it.
        parsed.ask(
            "context",
            "missing",
            "How long is the context per sequence, in tokens (e.g. '32k context' or '128k "
            "context')? 'Long-context' sets the KV cache, and so the verdict.",
        )
    _deadline_needs_data(parsed)
    apply_changes(parsed, previous if follow_up else None)
    _budget_questions(parsed)
    _conflicting_figures(parsed)
    _conflicting_counts(parsed)
    check_card_memory(parsed, t)
    parsed.notes = list(dict.fromkeys(parsed.notes))
    _gate(parsed, follow_up)
    return parsed


def _deadline_needs_data(parsed: ParsedWorkload) -> None:
    """A training deadline with no training data ('pretrain a 3B model on 8 H100s in a week'):
    whether the job finishes in time turns on the tokens it trains on, so they are asked, not
    assumed — the memory verdict alone would answer another question."""
    if parsed.deadline_hours is None or parsed.task in (None, "inference"):
        return
    if parsed.train_tokens is not None or parsed.train_examples is not None:
        return
    parsed.ask(
        "training_data",
        "missing",
        f"How many tokens does it train on (dataset × epochs, e.g. '20B tokens' or '50k "
        f"examples of 2k tokens, 3 epochs')? Whether it finishes within "
        f"{parsed.deadline_hours:g} h follows from them.",
    )


_FIGURE_SLOTS = {
    "users": "concurrent users",
    "tokens_per_s": "tokens/s",
    "tokens_per_s_per_user": "tokens/s per user",
    "ttft_s": "time to first token",
    "context": "context",
    "prompt_tokens": "prompt length",
    "output_tokens": "output length",
}
_LEADING_NUMBER = compiled(rf"({QUANTITY})", re.I)


def _conflicting_figures(parsed: ParsedWorkload) -> None:
    """Two different figures said for one slot ('~700 tokens/sec … ~3100 tokens/sec', '8
    users … 40 users'): the extractors keep one, so which is meant is asked, not guessed."""
    for slot, name in _FIGURE_SLOTS.items():
        source = parsed.sources.get(slot)
        if source is None or source.origin != "question" or len(source.spans) < 2:
            continue
        values: dict[float, str] = {}
        for span in source.spans:
            m = _LEADING_NUMBER.search(span.text)
            value = None if m is None else parse_quantity(m.group(1).replace(" ", ""))
            if value is not None and value > 0:
                values.setdefault(value, span.text)
        distinct = sorted(values)
        if len(distinct) > 1 and distinct[-1] > distinct[0] * 1.03:
            said = " and ".join(f"'{text}'" for text in values.values())
            parsed.ask(
                "figure",
                "ambiguous",
                f"Two figures are said for the {name} ({said}): which one should I size for?",
                "; ".join(values.values()),
            )


def _conflicting_counts(parsed: ParsedWorkload) -> None:
    """One GPU said with two counts and no comparison asked ('a single RTX 3090 … two 3090s',
    'h100*16 … h100 * 32'): one is what was tried or what runs now, the other what is asked
    about, and the words do not say which the verdict is for — asked, not guessed. A
    comparison ('1x H100 or 2x H100?') sizes both."""
    if parsed.compare:
        return
    counts: dict[str, dict[int, str]] = {}
    for mention in parsed.gpus:
        if mention.gpu is not None:
            counts.setdefault(mention.gpu, {}).setdefault(mention.count or 1, mention.text)
    for said in counts.values():
        if len(said) > 1:
            words = " and ".join(f"'{n}× {text}'" for n, text in sorted(said.items()))
            parsed.ask(
                "figure",
                "ambiguous",
                f"Two counts are said for one GPU ({words}): which should I size for?",
                "; ".join(said.values()),
            )
            return


def _budget_questions(parsed: ParsedWorkload) -> None:
    """A budget the tools cannot compare is said, never dropped: one in a currency the catalog
    has no rate for is asked back (it could change which option is within it); a total one is
    noted as not checked against rental prices, which are per hour."""
    if parsed.budget_amount is None or parsed.asks("budget"):
        return
    said = f"{parsed.budget_amount:,.0f} {parsed.budget_currency}"
    if parsed.budget_currency not in ("USD", "EUR"):
        parsed.ask(
            "budget",
            "unread",
            f"A budget of {said} cannot be compared: the catalog's prices are in USD and EUR "
            "and it has no rate for that currency. What is it in USD or EUR (e.g. '2,000 EUR "
            "a month')?",
            said,
        )
    elif parsed.budget_period == "total":
        parsed.notes.append(
            f"Budget of {said} said without a period: not checked against rental prices, which "
            "are per hour (say 'per month' or 'per hour' to check it)"
        )


def _kind_read(parsed: ParsedWorkload) -> bool:
    """Whether the reading holds what the question asks for (a figure, a capacity, a
    comparison, a claim, a launch line …), not only a workload."""
    return any(
        (
            parsed.asked is not None,
            parsed.capacity,
            parsed.max_context,
            parsed.compare,
            # 'How long' is read as a job's hours: a training run or a batch job, not a load
            # time or a reply's latency, which no figure here answers.
            parsed.how_long and _has_job(parsed),
            bool(parsed.claims),
            bool(parsed.out_of_scope),
            parsed.objective is not None,
            parsed.alternatives,
            parsed.api_comparison,
            parsed.launch_asked,
            parsed.buy_asked,
            parsed.speculative,
            parsed.prefix_caching,
            parsed.disaggregated,
        )
    )


def _has_job(parsed: ParsedWorkload) -> bool:
    """Whether a job with a duration was read: training, a batch job's totals, or a corpus
    to embed."""
    batch = (parsed.batch_input_tokens, parsed.batch_output_tokens, parsed.batch_requests)
    corpus = (parsed.embedding_model, parsed.documents, parsed.corpus_tokens)
    return parsed.task not in (None, "inference") or any(v is not None for v in (*batch, *corpus))


def _gate(parsed: ParsedWorkload, follow_up: bool) -> None:
    """The coverage gate (`assistant.reading.coverage`), after the other questions: no verdict
    is stated as the answer while
    - words left unread could change it (a figure, money, a rate, hardware, a sizing term);
    - more than `MOST_WORDS_UNREAD` words were left unread: the question may be another one
      than the one read, so the reading is confirmed;
    - a question asks something whose kind was not read (not a statement of the workload, nor
      a follow-up, which keeps what was asked before)."""
    asked = {q.words for q in parsed.questions if q.words}
    classified = classify(parsed.unread)
    unread = [u for u in classified if u.matters and u.span.text not in asked]
    if unread:
        words = "; ".join(u.span.text for u in unread)
        parsed.ask("meaning", "unread", gate_question(unread), words)
        return
    if parsed.questions:
        return
    left = [u.span.text for u in classified]
    if sum(len(w.split()) for w in left) > MOST_WORDS_UNREAD:
        parsed.ask("meaning", "unread", confirm_question(left), "; ".join(left))
        return
    kind_read = _kind_read(parsed)
    if not follow_up and not kind_read and (asks_something(parsed.text) or parsed.pasted):
        parsed.ask("asked", "missing", ASKED_QUESTION)


def _with_model_from_reply(
    text: str, parsed: ParsedWorkload, previous: ParsedWorkload
) -> ParsedWorkload:
    """A reply to "Which Mixtral model?" that gives only the rest of the name ('8x7b'): read
    with the words the question was about ('mixtral 8x7b'), so it names the catalog model."""
    asked = previous.asks("model", "ambiguous", "missing")
    if parsed.has_model or not asked or not previous.model_text:
        return parsed
    named = parse_workload(f"{previous.model_text} {text}")
    if named.model is None:
        return parsed
    fields = ("model", "model_text")
    update = {name: getattr(named, name) for name in fields}
    return parsed.model_copy(
        update={
            **update,
            "questions": [q for q in parsed.questions if q.slot != "model"],
            # The reply's words name the model with the ones asked about.
            "sources": {
                **parsed.sources,
                "model": SlotSource(spans=[Span(start=0, end=len(text), text=text)]),
            },
            "unplaced": [u for u in parsed.unplaced if u.lower() not in text.lower()],
            "notes": [*parsed.notes, *named.notes],
        }
    )


_BARE_SIZE = compiled(
    r"(\d+(?:\.\d+)?)\s*-?\s*(b|bn|billion|m|million)(?:[\s-]*param(?:eter)?s?)?", re.I
)
"""A size said alone ('405B', '8 billion parameters'), as `extract_bare_size` reads one."""


def _size_in_previous_family(parsed: ParsedWorkload, previous: ParsedWorkload) -> ParsedWorkload:
    """A follow-up that gives only a size ('what about 405B?' after Llama 3.1 70B) means that
    size of the previous model's family when the catalog has it (Llama 3.1 405B): the previous
    model's name with its size replaced, read as a question of its own. Otherwise the size
    stays a generic model of that size (stated as such)."""
    said = parsed.model_text or ""
    bare = _BARE_SIZE.fullmatch(said)
    if parsed.model is not None or parsed.params is None or bare is None or not previous.model:
        return parsed
    entry = get_catalog().models.get(previous.model)
    if entry is None:
        return parsed
    unit = "B" if bare.group(2).lower().startswith("b") else "M"
    size = f"{bare.group(1)}{unit}"
    renamed, count = _BARE_SIZE.subn(size, entry.name, count=1)
    if not count or renamed == entry.name:
        return parsed
    named = parse_workload(renamed)
    if named.model is None or named.model == previous.model:
        return parsed
    note = (
        f"'{said}' read as {get_catalog().models[named.model].name}: that size of "
        f"the previous question's {entry.name} (say the full name for another family)"
    )
    return parsed.model_copy(
        update={
            "model": named.model,
            "model_text": said,
            "params": None,
            "notes": [n for n in parsed.notes if said not in n] + [note],
            "sources": {
                **{k: v for k, v in parsed.sources.items() if k != "params"},
                "model": parsed.sources.get("params", SlotSource()),
            },
        }
    )


def _merge(previous: ParsedWorkload, new: ParsedWorkload) -> ParsedWorkload:
    data = new.model_dump()
    kept: tuple[str, ...] = ()
    if not new.has_model and not new.asks("model", "unknown", "ambiguous"):
        data["model"], data["model_text"], data["params"], data["model_file"] = (
            previous.model,
            previous.model_text,
            previous.params,
            previous.model_file,
        )
        data["stand_in_for"] = previous.stand_in_for
        data["questions"] = [
            q.model_dump() for q in new.questions if (q.slot, q.why) != ("model", "missing")
        ]
        kept = ("model", "model_text", "params", "model_file", "stand_in_for")
    blank = ParsedWorkload()
    for name in _INHERITED:
        if getattr(new, name) == getattr(blank, name):
            # A copy: a change applied to this turn ('with one more card') must not rewrite
            # the earlier turn's reading, which its answer and the session keep.
            data[name] = copy.deepcopy(getattr(previous, name))
            kept += (name,)
    data["notes"] = [*previous.notes, *new.notes]
    # A value kept from an earlier turn says so: its words are that turn's.
    earlier = {
        name: {"origin": "conversation", "spans": source.model_dump()["spans"]}
        for name, source in previous.sources.items()
        if name in kept and name not in new.sources
    }
    data["sources"] = {**earlier, **data["sources"]}
    return ParsedWorkload.model_validate(data)
