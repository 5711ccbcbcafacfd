"""Pilot tests of the app defects of issue 33, each as a user meets it at 80×24: F1 help
scrolls from the keyboard; /gpus lands in a turn of its own and the view moves to it; the
status bar names the session reopened; "cancelled" does not outlive Ctrl+N; the
"(recommended)" bar names the headline's configuration on every parity workload; the latency
chart stops at one replica's share of users; chart labels stay distinct; one unit per card;
notices sit under the answer; a question nothing could be read from is no recent session."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from textual.app import App, ComposeResult
from textual.containers import VerticalScroll

from assistant.app.app import GpuSizerApp
from assistant.app.results import BarChart, ChartBar
from assistant.app.screens.help import HelpScreen, HelpScroll
from assistant.app.verdict import verdict_bars, verdict_lines
from assistant.app.widgets.bar_chart import BarChartView
from assistant.app.widgets.memory_bar import MemoryBar
from assistant.app.widgets.message import AssistantMessage, NoticeLine
from assistant.app.widgets.prompt import PromptInput
from assistant.app.widgets.tool_card import ToolCard
from assistant.app.widgets.turn_view import TurnView
from assistant.app.widgets.verdict_card import VerdictCard
from assistant.app.widgets.welcome import Welcome
from assistant.conversation import Conversation
from assistant.events import Done, Event, Notice, TextDelta
from assistant.offline.engine import OfflineEngine
from assistant.offline.parser import parse_workload
from assistant.offline.planner import plan_tool_calls
from assistant.sessions import list_sessions
from tests.app_fakes import MEMORY_RESULT, FakeEngine
from tests.record_app_turns import load_turn, recorded_answer, replay_calls
from tests.test_parity import CASES
from tools.catalog import get_catalog
from tools.sizing import SizingReport, SizingRequest, size
from tools.sizing.verdict import states_headline

SIZE = (80, 24)


async def _send(app: GpuSizerApp, pilot: Any, text: str) -> None:
    app.query_one(PromptInput).insert(text)
    await pilot.press("enter")
    await app.workers.wait_for_complete()
    await pilot.pause()


def _replayed(name: str, mode: str = "offline") -> tuple[str, FakeEngine]:
    turn = load_turn(name)
    engine = FakeEngine(tool_calls=replay_calls(turn), answer=recorded_answer(turn))
    engine.mode = mode  # type: ignore[assignment]
    return turn["question"], engine


async def test_f1_help_scrolls_from_the_keyboard(tmp_path: Path) -> None:
    app = GpuSizerApp(FakeEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        chat_before = app.chat_log.scroll_y
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)
        scroll = app.screen.query_one(HelpScroll)
        assert app.focused is scroll  # the keys reach it without a click
        assert scroll.max_scroll_y > 0  # the help is taller than 80×24 leaves it
        await pilot.press("down")
        assert scroll.scroll_y == 1
        await pilot.press("pagedown")
        assert scroll.scroll_y > 1
        await pilot.press("end")
        assert scroll.scroll_y == scroll.max_scroll_y
        await pilot.press("home")
        assert scroll.scroll_y == 0
        await pilot.press("space")
        assert scroll.scroll_y > 0
        # The chat behind the modal did not move with those keys.
        assert app.chat_log.scroll_y == chat_before
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, HelpScreen)


async def test_gpus_lands_in_a_turn_of_its_own_and_the_view_moves_to_it(tmp_path: Path) -> None:
    question, engine = _replayed("fits")
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _send(app, pilot, question)
        (asked,) = app.chat_log.query_children(TurnView)
        answers_before = len(asked.query(AssistantMessage))
        await _send(app, pilot, "/gpus")
        await pilot.pause()
        turns = list(app.chat_log.query_children(TurnView))
        assert len(turns) == 2 and turns[0] is asked
        assert len(asked.query(AssistantMessage)) == answers_before  # nothing added to it
        listing = turns[1]
        assert (
            listing.question is None and "GPU catalog" in listing.query_one(AssistantMessage).text
        )
        # The view moved: the listing's first line is at the top of the log.
        log = app.chat_log
        assert log.scroll_y > 0 and round(log.scroll_y) == log.follow_target()
        assert listing.virtual_region.y == round(log.scroll_y)
        # Laid out to the log's width: no line of the table is wider, dropped columns named.
        fence = listing.query_one(AssistantMessage).text.split("```text\n")[1].split("```")[0]
        assert max(len(line) for line in fence.splitlines()) <= log.text_width()
        assert "Not shown at" in fence and "usable GiB" in fence


async def test_status_names_the_session_reopened(tmp_path: Path) -> None:
    ids = []
    for question in ("Llama 3.1 8B on one L4?", "Qwen2.5 7B on one L4?"):
        first = GpuSizerApp(FakeEngine(), sessions_directory=tmp_path)
        async with first.run_test(size=SIZE) as pilot:
            await _send(first, pilot, question)
            ids.append(first.conversation.id)
    app = GpuSizerApp(FakeEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _send(app, pilot, "a third question")
        third = app.conversation.id
        assert f"saved {third}" in str(app.status.render())
        for session_id in ids:
            await _send(app, pilot, f"/load {session_id}")
            status = str(app.status.render())
            assert app.conversation.id == session_id and f"opened {session_id}" in status
            assert third not in status and all(i not in status for i in ids if i != session_id)


async def test_ctrl_n_after_a_cancel_is_ready_not_cancelled(tmp_path: Path) -> None:
    engine = FakeEngine(chunks=("First part. ", "never sent"), hang_after_chunks=1)
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        app.query_one(PromptInput).insert("70B on two H100?")
        await pilot.press("enter")
        await engine.hanging.wait()
        await pilot.press("escape")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.status.state == "cancelled"
        await pilot.press("ctrl+n")
        await pilot.pause()
        status = str(app.status.render())
        assert app.status.state == "ready" and "cancelled" not in status.lower()
        assert app.query(Welcome)


class _Cards(App[None]):
    """Mounts one turn per sizing report, through the turn's own result path."""

    def compose(self) -> ComposeResult:
        yield VerticalScroll(id="turns")


def _parity_report(question: str) -> SizingReport:
    calls = plan_tool_calls(parse_workload(question))
    return size(SizingRequest.model_validate(calls[-1].arguments))


async def test_the_recommended_bar_names_the_headline_on_every_parity_workload() -> None:
    reports = [(case.question, _parity_report(case.question)) for case in CASES]
    app = _Cards()
    checked = 0
    async with app.run_test(size=(120, 40)) as pilot:
        host = app.query_one("#turns")
        for question, report in reports:
            lines = verdict_lines(report)
            if not lines:
                continue
            # The card a turn leads with (TurnView.set_result mounts the same widget).
            card = VerdictCard(lines, verdict_bars(report), "GiB")
            await host.mount(card)
            await pilot.pause()
            headline = report.headline
            bars = [b.data.label for b in card.query(MemoryBar)]
            recommended = [b for b in bars if "(recommended" in b]
            if headline is not None and recommended:
                o = headline.option
                gpu = get_catalog().gpus[o.gpu].name
                for label in recommended:
                    # e.g. '4× L40S (recommended; 2 replicas of 2 GPUs)' under a 4× L40S
                    # headline, never '2× L40S (recommended)' (one replica's count).
                    assert label.startswith(f"{o.count}× "), (question, label, o.count)
                    assert gpu.split()[-1] in label, (question, label, gpu)
                    if o.dp > 1 and not report.is_training:  # one replica sized of dp
                        assert f"{o.dp} replicas" in label, (question, label)
                if states_headline(report):
                    # The card's line for the headline names the same count.
                    assert any(f"{o.count}× " in line.head for line in lines), (question, lines)
                checked += 1
            await card.remove()
    assert checked >= 5  # the workloads whose recommended layout is drawn


async def test_the_latency_chart_stops_at_one_replicas_share_of_users(tmp_path: Path) -> None:
    question, engine = _replayed("fits")  # 10 users on one L40S: one replica, 10 users
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _send(app, pilot, question)
        charts = [c.chart for c in app.query(BarChartView) if "first token" in c.chart.title]
        (ttft,) = charts
        assert ttft.bars[-1].label == "10 users" and "up to 10 users" in ttft.title
        assert all(int(b.label.split()[0].replace(",", "")) <= 10 for b in ttft.bars)


class _Chart(App[None]):
    def __init__(self, chart: BarChart) -> None:
        super().__init__()
        self.chart = chart

    def compose(self) -> ComposeResult:
        yield BarChartView(self.chart)


async def test_chart_labels_stay_distinct_when_shortened() -> None:
    chart = BarChart(
        "USD per month",
        (
            ChartBar("2× AMD Instinct MI300X", 3780.0, "3,780"),
            ChartBar("2× AMD Instinct MI325X", 5548.0, "5,548"),
            ChartBar("4× RTX PRO 6000 Blackwell (Server Edition)", 5256.0, "5,256"),
        ),
    )
    app = _Chart(chart)
    async with app.run_test(size=(60, 10)) as pilot:
        await pilot.pause()
        view = app.query_one(BarChartView)
        lines = view._renderable(view.size.width).plain.splitlines()[1:]
        labels = [line.split("█")[0].strip() for line in lines]
        assert len(set(labels)) == 3, labels  # before: '2× AMD Instinct MI' twice
        assert labels[0].endswith("MI300X") and labels[1].endswith("MI325X")


async def test_one_unit_per_card_in_an_llm_turn(tmp_path: Path) -> None:
    question, engine = _replayed("does_not_fit", mode="llm")
    app = GpuSizerApp(engine, sessions_directory=tmp_path)
    async with app.run_test(size=(120, 40)) as pilot:
        await _send(app, pilot, question)
        await pilot.press("ctrl+d")  # open every card
        await pilot.pause()
        card = app.query_one(VerdictCard)
        texts = [str(card.query_one(".verdict").render())]
        texts += [b._renderable(100).plain for b in card.query(MemoryBar)]
        for tool_card in app.query(ToolCard):
            texts.append(tool_card.title)
            if tool_card.table is not None:
                texts += [" ".join(row) for row in tool_card.table.rows]
                texts += list(tool_card.table.columns)
        joined = "\n".join(texts)
        assert "GiB" in joined
        assert " GB" not in joined and "(GB)" not in joined, joined


class _NoticeEngine:
    """An engine whose notice arrives between two parts of its answer."""

    mode = "llm"
    label = "scripted"

    async def run_turn(self, conversation: Conversation, text: str) -> AsyncIterator[Event]:
        conversation.add({"role": "user", "content": text})
        yield TextDelta("First part of the answer. ")
        yield Notice("The endpoint ignored the tools: their results were computed here.")
        yield TextDelta("Second part.")
        conversation.add({"role": "assistant", "content": "First part of the answer. Second part."})
        yield Done("First part of the answer. Second part.", conversation)


async def test_notices_sit_under_the_answer_not_inside_it(tmp_path: Path) -> None:
    app = GpuSizerApp(_NoticeEngine(), sessions_directory=tmp_path)  # type: ignore[arg-type]
    async with app.run_test(size=SIZE) as pilot:
        await _send(app, pilot, "a question")
        (turn,) = app.chat_log.query_children(TurnView)
        children = list(turn.children)
        answers = [i for i, w in enumerate(children) if isinstance(w, AssistantMessage)]
        notices = children.index(turn.notices)
        assert answers and all(i < notices for i in answers)
        (notice,) = turn.notices.query(NoticeLine)
        assert "ignored the tools" in str(notice.render())
        assert not any(isinstance(w, NoticeLine) for w in children)  # none between answers


async def test_a_question_nothing_was_read_from_is_no_recent_session(tmp_path: Path) -> None:
    app = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await _send(app, pilot, "asdf qwerty zxcv")
        nonsense = app.conversation.id
        await pilot.press("ctrl+n")
        await pilot.pause()
        welcome = app.query_one(Welcome)
        assert nonsense not in [s.id for s in welcome.sessions]
    # Kept on disk all the same (nothing typed is lost): Ctrl+O and `sessions` list it.
    assert nonsense in [s.id for s in list_sessions(tmp_path)]
    sized = GpuSizerApp(
        FakeEngine(tool_calls=[("estimate_memory", {"gpu": "L4"}, MEMORY_RESULT)]),
        sessions_directory=tmp_path,
    )
    async with sized.run_test(size=SIZE) as pilot:
        await _send(sized, pilot, "Llama 3.1 8B on one L4?")
        kept = sized.conversation.id
        await pilot.press("ctrl+n")
        await pilot.pause()
        assert [s.id for s in sized.query_one(Welcome).sessions] == [kept]
