"""One turn's Markdown: the full answer (verdict first, then figures, breakdown, options with
cost, how the question was read, what to ask next, and last the folded tool assumptions), or a
clarifying question with what was understood so far.
"""

from __future__ import annotations

from assistant.offline.parsed import ParsedWorkload
from assistant.offline.planner import prices_full_load
from assistant.offline.render.assumptions import defaults_filled_in, follow_ups
from assistant.offline.render.costs import (
    api_comparison_lines,
    budget_line,
    cheaper_per_token_line,
    full_load_lines,
    unconverted_lines,
)
from assistant.offline.render.details import details_title
from assistant.offline.render.local import local_serving_lines
from assistant.offline.render.questions import capacity_lines, max_context_lines
from assistant.offline.render.results import (
    CallResult,
    config_label,
    error_text,
    is_training,
    plain_data_parallel,
)
from assistant.offline.render.tables import breakdown_table, key_figures, options_table
from assistant.offline.render.verdict import (
    about_headline,
    headline_option,
    recommended_lines,
    scale_out_lines,
    verdict_lines,
)


def _section(title: str, lines: list[str]) -> list[str]:
    return [f"\n**{title}**\n", *lines] if lines else []


def render_answer(parsed: ParsedWorkload, calls: list[CallResult]) -> str:
    """The full answer for one turn (Markdown)."""
    recommends = [c for c in calls if c.name == "recommend"]
    recommend = recommends[0] if recommends else None
    # A second recommend call is the follow-up without the named GPU limit (engine._scale_out).
    scale = recommends[1] if len(recommends) > 1 else None
    cost = next((c for c in calls if c.name == "compare_costs"), None)
    # Memory calls after the recommender's are follow-ups (assistant/offline/engine.py): the
    # recommended layout's breakdown (it has 'pp'), a ZeRO-3 re-sizing of a named one, or the
    # named GPUs at a lower weight format (another 'weights' than the first call's).
    after = calls.index(recommend) if recommend is not None else len(calls)
    memory = [c for i, c in enumerate(calls) if c.name == "estimate_memory" and i < after]
    follow = [c for i, c in enumerate(calls) if c.name == "estimate_memory" and i > after]
    layout = next((c for c in follow if "pp" in c.arguments and not c.is_error), None)
    weights = memory[0].arguments.get("weights") if memory else None
    lower = [c for c in follow if "pp" not in c.arguments and c.arguments.get("weights") != weights]
    memory += [c for c in follow if "pp" not in c.arguments and c not in lower]
    out: list[str] = local_serving_lines(calls)
    # Asked "self-hosting or an API?": that answer leads (issue 18, class 2).
    api = api_comparison_lines(parsed, cost)
    out += api if parsed.api_comparison else []
    out += capacity_lines(parsed, memory, recommend)
    out += max_context_lines(parsed, memory)
    out += verdict_lines(
        memory,
        recommend,
        cost,
        breakdown_below=layout is None,
        layout=layout,
        scaled=scale is not None,
    )
    out += scale_out_lines(memory, recommend, scale, lower)
    per_token_question = parsed.objective == "cheapest_per_token"
    out += cheaper_per_token_line(
        memory, cost, prices_full_load(parsed), recommend if per_token_question else None
    )
    if not memory:
        out += recommended_lines(recommend, cost)
    budget = budget_line(parsed, cost)
    if budget is not None:
        out.append(budget)
    out += [] if parsed.api_comparison else api
    out += _section("Key figures", key_figures(memory, recommend))
    first = next((c for c in memory if not c.is_error), None)
    if layout is not None:
        out += _section(f"Memory per GPU ({_layout_label(layout)})", breakdown_table(layout))
    elif first is not None:
        label = config_label(first.arguments)
        if plain_data_parallel(first):
            label += ", plain data parallelism"
        out += _section(f"Memory per GPU ({label})", breakdown_table(first))
    if recommend is not None:
        if recommend.is_error:
            out += _section(
                "Options", [f"- The recommender could not run: {error_text(recommend)}"]
            )
        else:
            full_load = prices_full_load(parsed) and cost is not None and not cost.is_error
            table = options_table(recommend, cost, full_load=full_load)
            out += _section("Best option per GPU", table)
            headline = None if parsed.gpus else headline_option(recommend, cost)
            notes = [
                f"- {about_headline(str(n), headline)}"
                for n in recommend.result.get("notes", [])[:4]
            ]
            out += ["", *notes] if notes else []
            # The scale-out answer above supersedes the search within the named count.
            if recommend.result.get("nearest_feasible") and scale is None:
                out.append(f"- Nearest feasible: {recommend.result['nearest_feasible']}")
    if cost is not None and cost.is_error:
        out += _section("Cost", [f"- Cost comparison unavailable: {error_text(cost)}"])
    out += unconverted_lines(cost)
    read_as = [*parsed.notes, *defaults_filled_in(parsed, memory, recommend)]
    if prices_full_load(parsed):
        read_as += full_load_lines(recommend, cost)
    tool_assumptions: list[str] = []
    for call in calls:
        if not call.is_error:
            tool_assumptions += [str(a) for a in call.result.get("assumptions", [])]
            read_as += [f"warning: {w}" for w in call.result.get("warnings", [])]
    read_as = list(dict.fromkeys(read_as))
    folded = [a for a in dict.fromkeys(tool_assumptions) if a not in read_as]
    out += _section("Assumptions", _bullets(read_as))
    asks = follow_ups(parsed)
    if parsed.unplaced:
        asks.insert(0, "I could not place: " + "; ".join(f"'{u}'" for u in parsed.unplaced))
    out += _section("What to ask next", [f"- {a}" for a in asks])
    # Last, so that folding it leaves every other part of the answer in place.
    out += _section(details_title(len(folded)), _bullets(folded))
    return "\n".join(out).strip() + "\n"


def _layout_label(call: CallResult) -> str:
    """'8× MI300X, TP 8 × PP 1 — the recommended layout' for a follow-up layout estimate."""
    args = call.arguments
    split = f"TP {args.get('tp', 1)} × PP {args.get('pp', 1)}"
    if args.get("zero") and int(args.get("gpus", 1)) > int(args.get("tp", 1)) * int(
        args.get("pp", 1)
    ):
        split += f", ZeRO-{args['zero']}"
    replica = "" if is_training([call]) else ", one replica"
    return f"{config_label({**args, 'zero': None})}, {split}{replica} — the recommended layout"


def _bullets(items: list[str]) -> list[str]:
    # One line per item: the fold below is recognised by its bullet lines.
    return ["- " + " ".join(item.split()) for item in items]


def render_question(parsed: ParsedWorkload, question: str | None = None) -> str:
    """A clarifying question instead of an answer, with what was understood so far."""
    ask = question or (parsed.questions[0] if parsed.questions else "Which model?")
    understood = [
        f"{name}: {value}"
        for name, value in parsed.model_dump(
            exclude_defaults=True, exclude={"text", "notes", "questions", "unplaced", "gpus"}
        ).items()
    ]
    understood += [f"GPU: {m.count or ''}{'× ' if m.count else ''}{m.text}" for m in parsed.gpus]
    lines = [f"**One question before I size this:** {ask}"]
    if understood:
        lines += ["", "So far I have: " + "; ".join(understood) + "."]
    if parsed.unplaced:
        lines += ["", "I could not place: " + "; ".join(f"'{u}'" for u in parsed.unplaced) + "."]
    return "\n".join(lines) + "\n"
