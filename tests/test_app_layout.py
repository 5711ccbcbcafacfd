"""Pilot tests of issue 22: the welcome screen, scrolling, labelled one-line cards, narrow
windows. Turns replay what the offline engine recorded (tests/record_app_turns.py); expected
values are written out here, never read back from the code under test.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

from assistant.app.app import GpuSizerApp
from assistant.app.call_summary import call_summary, part_name
from assistant.app.labels import field_label, has_raw_name
from assistant.app.results import (
    ResultTable,
    answer_unit,
    card_view,
    chart_users,
    cost_charts,
    latency_charts,
)
from assistant.app.verdict import charted_option, verdict_lines
from assistant.app.widgets.bar_chart import render_chart
from assistant.app.widgets.prompt import PromptInput
from assistant.app.widgets.result_table import fitting_columns, rich_table
from assistant.app.widgets.tool_card import ToolCard
from assistant.app.widgets.turn_view import report_parts, serving_costs
from assistant.app.widgets.welcome import EXAMPLES, Welcome
from assistant.config import Settings
from tests.app_fakes import MEMORY_RESULT, FakeEngine
from tests.offline_turns import after_reading
from tests.record_app_turns import QUESTIONS, load_turn, replay_calls
from tools.sizing import SizingReport

NARROW = (80, 24)


def _replay(name: str, mode: str = "offline") -> tuple[str, FakeEngine]:
    turn = load_turn(name)
    calls = replay_calls(turn)
    engine = FakeEngine(tool_calls=calls, chunks=(turn["answer"],))
    engine.mode = "llm" if mode == "llm" else "offline"
    return turn["question"], engine


async def _ask(app: GpuSizerApp, pilot: Any, text: str) -> None:
    app.query_one(PromptInput).insert(text)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def _visible(app: GpuSizerApp, widget: Any) -> bool:
    """Whether the widget's first line is inside the chat log's visible region."""
    log = app.chat_log.content_region
    return log.y <= widget.region.y < log.bottom


# ---- welcome screen ---------------------------------------------------------------------
async def test_welcome_picks_an_example_by_keyboard_and_sends_it(tmp_path: Path) -> None:
    app = GpuSizerApp(FakeEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        welcome = app.query_one(Welcome)
        assert "offline" in str(welcome.info.mode_line)
        await pilot.press("tab")  # from the prompt to the examples
        await pilot.press("down", "enter")  # the second example
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert not app.query(Welcome)  # the chat has begun
        assert app.conversation.messages[0] == {"role": "user", "content": EXAMPLES[1]}
        assert app.focused is app.prompt


async def test_welcome_e_puts_the_example_in_the_prompt_to_edit(tmp_path: Path) -> None:
    app = GpuSizerApp(FakeEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        await pilot.press("tab", "down", "down", "e")
        await pilot.pause()
        assert app.prompt.text == EXAMPLES[2] and not app.conversation.messages
        assert app.focused is app.prompt


async def test_welcome_reopens_a_recent_session(tmp_path: Path) -> None:
    sized = FakeEngine(tool_calls=[("estimate_memory", {"gpu": "L4"}, MEMORY_RESULT)])
    first = GpuSizerApp(sized, sessions_directory=tmp_path)
    async with first.run_test(size=NARROW) as pilot:
        await _ask(first, pilot, "Llama 3.1 8B on one L4?")
        saved_id = first.conversation.id
    app = GpuSizerApp(FakeEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        welcome = app.query_one(Welcome)
        assert [s.id for s in welcome.sessions] == [saved_id]
        await pilot.press("shift+tab", "enter")  # back from the prompt: the recent sessions
        await pilot.pause()
        assert app.conversation.id == saved_id and not app.query(Welcome)


async def test_welcome_shows_the_endpoint_without_its_credentials(tmp_path: Path) -> None:
    settings = Settings(base_url="https://alice:s3cret@llm.example.com/v1", model="qwen3")
    engine = FakeEngine(mode="llm")
    app = GpuSizerApp(engine, settings=settings, sessions_directory=tmp_path)
    async with app.run_test(size=NARROW):
        mode = app.query_one(Welcome).info.mode_line
        assert "llm.example.com/v1" in mode and "qwen3" in mode
        assert "s3cret" not in mode and "alice" not in mode


# ---- scrolling --------------------------------------------------------------------------
async def test_scroll_keys_work_with_the_prompt_focused(tmp_path: Path) -> None:
    engine = FakeEngine(chunks=[f"Line {i} of a long answer.\n" for i in range(40)])
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        await _ask(app, pilot, "a question with a long answer")
        log = app.chat_log
        assert app.focused is app.prompt
        start = log.scroll_y
        await pilot.press("pagedown")
        assert log.scroll_y > start and app.focused is app.prompt
        await pilot.press("pageup")
        assert log.scroll_y == start
        await pilot.press("end")
        assert log.scroll_y == log.max_scroll_y
        await pilot.press("home")
        assert log.scroll_y == 0
        # With text in the prompt, Home/End are the prompt's (line start / end).
        app.prompt.insert("draft")
        await pilot.press("end")
        assert log.scroll_y == 0 and app.prompt.cursor_location == (0, 5)
        await pilot.press("home")
        assert app.prompt.cursor_location == (0, 0)
        await pilot.press("pagedown")  # PageDown still scrolls the chat
        assert log.scroll_y > 0
        app.prompt.clear()
        app.action_help()
        await pilot.pause()
        help_text = app.screen.markdown  # type: ignore[attr-defined]
        for key in ("PageUp", "PageDown", "Home", "End"):
            assert f"| `{key}` |" in help_text


async def test_streaming_stops_following_after_a_manual_scroll(tmp_path: Path) -> None:
    engine = FakeEngine(chunks=[f"Line {i}.\n\n" for i in range(30)])
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        await _ask(app, pilot, "first question")
        engine.hang_after_chunks = 20  # the second answer stops mid-stream until cancelled
        app.query_one(PromptInput).insert("second question")
        await pilot.press("enter")
        await engine.hanging.wait()
        await pilot.pause()
        log = app.chat_log
        assert log.following
        await pilot.press("pageup")  # the user scrolls up to re-read
        away = log.scroll_y
        assert not log.following
        await log.new_answer("more text arriving\n\n" * 20)
        await pilot.pause()
        assert log.scroll_y == away  # the stream does not pull the view
        await pilot.press("escape")  # cancel the hanging answer
        await pilot.pause()
        assert not app.turn_running


# ---- cards: one line each, labelled, in the answer's unit ---------------------------------
def _report(name: str) -> SizingReport:
    (call,) = replay_calls(load_turn(name))
    assert isinstance(call[2], SizingReport)
    return call[2]


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in [str(k), *_keys(v)]]
    if isinstance(value, list):
        return [s for v in value for s in _keys(v)]
    return []


@pytest.mark.parametrize("name", QUESTIONS)
def test_no_raw_field_names_on_a_card(name: str) -> None:
    report = _report(name)
    shown = [call_summary("size", {}, report, "GiB")]
    for line in verdict_lines(report, "GiB"):
        shown += [line.head, line.detail]
    for part in [report, *report_parts(report)]:
        shown.append(call_summary(part_name(part), {}, part, "GiB"))
        table = card_view(part, "GiB").table
        shown += [*table.columns, *(row[0] for row in table.rows if table.columns[0] == "field")]
    for text in shown:
        assert not has_raw_name(text), text
    # Every field name the tools emit has a label in words (none falls through as it is).
    for key in _keys(report.model_dump()):
        assert "_" not in field_label(key), key


async def test_the_verdict_card_leads_and_is_in_view_after_the_answer(tmp_path: Path) -> None:
    question, recorded = _replay("does_not_fit")
    engine = FakeEngine()
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        await _ask(app, pilot, "an earlier question")  # the log is not empty before
        engine.tool_calls, engine.chunks = recorded.tool_calls, recorded.chunks
        await _ask(app, pilot, question)
        turn = app.chat_log.current_turn
        verdict = turn.verdict
        assert verdict is not None
        # From the typed report: 2× L40S does not fit; what holds the load follows.
        report = _report("does_not_fit")
        assert [line.head for line in verdict.lines][:1] == ["Does not fit on 2× L40S"]
        assert verdict.lines[0].detail.startswith(
            f"needs {report.memory[0].estimate.per_gpu_bytes / 2**30:.1f} GiB per GPU, budget"
        )
        assert any(line.kind == "works" and "4× L40S" in line.head for line in verdict.lines)
        # Above the explanation, and in view although the answer is longer than the window.
        kinds = [type(w).__name__ for w in turn.children]
        assert kinds.index("Vertical") < kinds.index("AssistantMessage")
        assert app.chat_log.max_scroll_y > app.chat_log.scroll_y
        assert _visible(app, verdict)

        # "How this was computed": the one `size` call, then a line per part of its report,
        # in the order they ran, each collapsed to its summary.
        cards = list(turn.computed.query(ToolCard))
        assert [c.tool_name for c in cards][:4] == [
            "size", "estimate_memory", "recommend", "compare_costs"
        ]  # fmt: skip
        assert all(card.collapsed for card in cards)
        estimate = report.memory[0].estimate
        assert estimate is not None and estimate.fits is False
        need = f"{estimate.per_gpu_bytes / 2**30:.1f} GiB"  # bytes / 2^30, one decimal
        assert cards[1].title == (
            f"✓ Memory · Llama 3.1 70B int4-awq · 2× L40S TP 2 · {need} per GPU, does not fit"
        )
        title = str(turn.computed.children[0].render())
        assert f"How this was computed · {len(cards)} tool calls" in title


def test_verdict_per_kind_of_answer() -> None:
    fits = verdict_lines(_report("fits"))
    assert fits[0].kind == "fits" and fits[0].head == "Fits on 1× L40S"
    training = verdict_lines(_report("training"))
    # 'on H100s' with no count: one GPU does not fit, the headline option is what works.
    assert training[0].head == "Does not fit on 1× H100 SXM5"
    assert training[-1].kind == "works" and training[-1].head.startswith("Needs 2× H100 SXM5")
    cost = verdict_lines(_report("cost"))
    assert [line.head for line in cost] == ["Fits on 1× L40S", "Fits on 1× H100 SXM5"]


def test_llm_turn_cards_use_gib_as_every_table_does() -> None:
    # Issue 33: one display unit. An LLM turn leads with the tools' verdict in GiB, so its
    # cards say GiB too (never GB beside it), as an offline turn's do.
    report = _report("fits")
    estimate = report.memory[0].estimate
    assert estimate is not None
    assert answer_unit("llm") == answer_unit("offline") == "GiB"
    summary = call_summary("estimate_memory", {}, estimate, answer_unit("llm"))
    assert summary.endswith(f"{estimate.per_gpu_bytes / 2**30:.1f} GiB per GPU, fits")
    (line,) = verdict_lines(report, answer_unit("llm"))
    assert f"needs {estimate.per_gpu_bytes / 2**30:.1f} GiB per GPU" in line.detail
    assert " GB" not in line.detail and " GB" not in summary


# ---- narrow windows: tables drop columns, charts shrink ----------------------------------
def test_a_table_drops_the_columns_that_do_not_fit_and_says_which() -> None:
    table = ResultTable(
        ("GPU", "GPUs", "fits", "per GPU (GiB)", "KV cache capacity (tokens)"),
        (("H100 SXM5", "2", "yes", "33.60", "121,384"),),
    )
    # Natural widths 9, 4, 4, 13, 26 plus 2 cells of padding each: 11+6+6+15 = 38 fit in 40.
    assert fitting_columns(table, 40) == 4
    assert fitting_columns(table, 80) == 5
    console = Console(width=40, record=True)
    console.print(rich_table(table, 40))
    text = console.export_text()
    assert "KV cache capacity" not in after_reading(text).splitlines()[0]
    assert "1 more column in a wider window: KV cache capacity (tokens)" in " ".join(text.split())


def test_cost_comparison_chart_bars_to_scale_at_80_columns() -> None:
    costs = serving_costs(_report("cost"))
    assert costs is not None
    per_month, per_token = cost_charts(costs)
    assert [bar.label for bar in per_month.bars] == ["1× L40S", "1× H100 SXM5"]
    # The tool's first on-demand USD row of each configuration (it sorts cheapest first).
    first = {
        (r.gpu, r.count): r
        for r in reversed(costs.rows)
        if r.tier == "on_demand" and r.usd_per_month is not None
    }
    assert per_month.bars[0].value == first[("l40s", 1)].usd_per_month
    assert per_token.bars[1].value == first[("h100-sxm", 1)].usd_per_million_tokens
    for width in (76, 40):
        lines = render_chart(per_month, width).plain.splitlines()[1:]  # the title may wrap
        assert all(len(line) <= width for line in lines), lines
    lines = render_chart(per_month, 76).plain.splitlines()[1:]
    cells = [line.count("█") for line in lines]
    # Bars in the ratio of the figures (to the cell): the longest is the larger price.
    ratio = per_month.bars[0].value / per_month.bars[1].value
    assert cells[1] == max(cells) and abs(cells[0] / cells[1] - ratio) < 0.05


def test_recorded_turns_are_the_questions_they_claim() -> None:
    for name, question in QUESTIONS.items():
        assert load_turn(name)["question"] == question
        assert json.dumps(load_turn(name))  # plain JSON, as a session stores it


def test_latency_curve_of_the_configuration_that_works() -> None:
    report = _report("fits")
    option = charted_option(report)
    assert option is not None and option.latency_curve
    ttft, speed = latency_charts(option, report.users_stated)
    # One bar per concurrency the performance model computed, its own figures — never past
    # one replica's share of the users asked for: 10 users on one L40S (one replica) is 10.
    assert report.users_stated and option.dp == 1 and chart_users(option) == 10
    shown = [p for p in option.latency_curve if p.concurrency <= 10]
    assert len(shown) < len(option.latency_curve)  # the curve itself runs further
    assert len(shown) >= 2 and shown[-1].concurrency == 10
    assert [bar.label for bar in ttft.bars][:2] == ["1 user", "2 users"]
    assert [bar.value for bar in ttft.bars] == [p.ttft_s for p in shown]
    assert [bar.value for bar in speed.bars] == [p.tokens_per_s_per_user for p in shown]
    assert "1× L40S, per replica" in ttft.title
    # Every speed says how it was obtained: the chart titles carry the basis.
    assert ttft.title.endswith(f"· {option.ttft_basis or 'estimated'}")
    assert latency_charts(charted_option(_report("training"))) == []  # training: no curve


async def test_card_titles_keep_their_lines_when_the_scrollbar_appears(tmp_path: Path) -> None:
    """A sizing report's part cards get their result before they are mounted, so each title
    is measured once, with its summary: set just after mounting, a title kept the height of
    its one-line 'running…' title where the summary needed two (clipped) — most runs, not
    all, so the training snapshot at 80×24 differed from run to run. The log's scrollbar
    column is reserved from the start (`scrollbar-gutter: stable`): nothing is laid out at
    one width and shown at another when the scrollbar appears."""
    question, engine = _replay("training")
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=NARROW) as pilot:
        log = app.chat_log
        empty_width = log.scrollable_content_region.width
        await _ask(app, pilot, question)
        assert log.max_scroll_y > 0  # the turn outgrew the window: the scrollbar shows
        assert log.scrollable_content_region.width == empty_width
        for card in app.query(ToolCard):
            title = card.query_one("CollapsibleTitle")
            text = str(title.render())
            width = title.content_region.width
            # Hand count: a title of n cells in a w-cell line takes ceil(n / w) lines.
            assert title.content_region.height >= -(-Console().measure(text).maximum // width)
