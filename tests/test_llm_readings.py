"""Two readers, one rule (issue 28), against a scripted model over loopback sockets.

The built-in parser's reading is fixed per test (a stub planner storing a hand-made
`ParsedWorkload`, so the tests do not depend on the parser being tuned meanwhile); the scripted
model calls `size` with its own reading. The rule (`assistant.reading.reconcile`): the verdict
follows the model's grounded `size` reading when it differs from the parser's on a verdict slot
— the answer then shows that reading, names the difference and gives the parser's verdict in
one line — and the parser's otherwise (the model agrees, or calls no tool). A model value the
conversation does not ground is refused back to it as a tool error naming the field.

Independent facts used: Llama 3.1 70B has 70,553,706,496 parameters (Meta's config), so its
bf16 weights are 2 × 70.55e9 = 141.1 GB in every reading; serving 40 concurrent users needs no
more GPUs than serving 1,000 (the KV cache grows with the users, the weights do not shrink).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from assistant.cli import main
from assistant.config import Settings
from assistant.conversation import WORKLOAD_KEY, Conversation
from assistant.events import Done, Event, ReadAs, ToolCallStarted, ToolResult, Verdict
from assistant.llm import LlmEngine
from assistant.llm.planner import PlannedCalls, Planner
from assistant.offline.planner import plan_tool_calls
from assistant.reading.model import SlotSource, Span
from assistant.reading.parsed import GpuMention, ParsedWorkload
from assistant.results import ToolError
from tests import scripted_server as ss
from tools.sizing import SizingReport

QUESTION = (
    "We expect 1,000 users a day but only 40 of them at once at peak. "
    "What do we need to serve Llama 3.1 70B?"
)
WEIGHTS_GB = 141.1  # 2 bytes × 70,553,706,496 parameters, in GB (10^9 bytes)


def _span(text: str) -> SlotSource:
    start = QUESTION.index(text)
    return SlotSource(spans=[Span(start=start, end=start + len(text), text=text)])


def _parsed(users: int) -> ParsedWorkload:
    return ParsedWorkload(
        text=QUESTION,
        model="llama-3.1-70b",
        model_text="Llama 3.1 70B",
        users=users,
        sources={"model": _span("Llama 3.1 70B"), "users": _span(f"{users:,}")},
    )


def fixed_parser(parsed: ParsedWorkload) -> Planner:
    """A planner that reads every question as `parsed` (stored where the parser stores it)."""

    def plan(text: str, conversation: Conversation) -> PlannedCalls:
        conversation.messages[-1][WORKLOAD_KEY] = parsed.model_dump(
            mode="json", exclude_defaults=True
        )
        return [(c.name, c.arguments) for c in plan_tool_calls(parsed)]

    return plan


@pytest.fixture(scope="module")
def server() -> Iterator[ss.ScriptedServer]:
    srv = ss.ScriptedServer().start()
    yield srv
    srv.stop()


def _engine(server: ss.ScriptedServer, parser: Planner) -> LlmEngine:
    settings = Settings(base_url=server.base_url, model="scripted", max_retries=0)
    return LlmEngine(settings, env={}, system_prompt="SYS", planner=parser)


async def _turn(engine: LlmEngine, conv: Conversation | None = None) -> list[Event]:
    return [e async for e in engine.run_turn(conv or Conversation(), QUESTION)]


def _size(users: int, **workload: Any) -> tuple[str, str]:
    return (
        "size",
        json.dumps({"workload": {"model": "llama-3.1-70b", "users": users, **workload}}),
    )


def _reports(events: list[Event]) -> dict[str, SizingReport]:
    """Call id → sizing report, for every size call that ran."""
    return {
        e.call_id: e.value
        for e in events
        if isinstance(e, ToolResult) and isinstance(e.value, SizingReport)
    }


def _headline(report: SizingReport) -> tuple[str, int]:
    assert report.headline is not None
    return report.headline.option.gpu, report.headline.option.count


def _holds_the_weights(report: SizingReport) -> bool:
    """The headline layout's memory over its model-parallel GPUs holds the bf16 weights."""
    assert report.headline is not None
    option = report.headline.option
    return option.per_gpu_bytes * option.tp * option.pp >= WEIGHTS_GB * 1e9


def _verdicts(events: list[Event]) -> list[Verdict]:
    return [e for e in events if isinstance(e, Verdict)]


def _done(events: list[Event]) -> Done:
    done = events[-1]
    assert isinstance(done, Done)
    return done


# --- the model reads right, the parser wrong ---------------------------------------------------


async def test_the_models_grounded_reading_wins_and_the_difference_is_named(
    server: ss.ScriptedServer,
) -> None:
    server.reset(ss.tool_calls(_size(40)), ss.text("Explained."))
    events = await _turn(_engine(server, fixed_parser(_parsed(1000))))
    reports = _reports(events)
    parser_id, model_id = list(reports)  # the parser's call ran first, before the model
    parser, model = reports[parser_id], reports[model_id]
    assert model.request.workload.users == 40 and parser.request.workload.users == 1000
    # Both readings size the same model (its weights held: hand arithmetic above); 40 users
    # need no more GPUs than 1,000.
    assert parser.model_id == model.model_id == "llama-3.1-70b"
    assert _holds_the_weights(parser) and _holds_the_weights(model)
    assert _headline(model)[1] <= _headline(parser)[1]

    verdicts = _verdicts(events)
    assert verdicts[0].provisional and not verdicts[-1].provisional
    final = verdicts[-1].text
    # The reading used, the difference named, the parser's verdict in one line.
    assert final.startswith("*Read as: Llama 3.1 70B · 40 concurrent users")
    assert "Read as 40 concurrent users; the built-in parser read 1,000 concurrent users" in final
    _, count = _headline(parser)
    assert parser.headline is not None and parser.headline.price is not None
    hourly = parser.headline.price.usd_per_hour
    assert hourly is not None
    assert f"its verdict: {count}× " in final and f"{hourly:,.2f} USD per hour" in final
    # The verdict's own figures are the model's report's: its headline count and GPU lead.
    _, model_count = _headline(model)
    assert f"{model_count}× " in final.split("its verdict:")[1].split("\n", 1)[1]
    # The model's reading is shown before the card of the call it made, with its spans.
    reading = [e for e in events if isinstance(e, ReadAs)][-1]
    users = reading.reading.slot("users")
    assert users is not None and users.value == 40 and users.source.origin == "model"
    assert [s.text for s in users.source.spans] == ["40"]
    done = _done(events)
    assert done.verdict == final
    saved = done.conversation.messages[-1]
    assert saved["verdict"] == final


def _cli_reading_40_over_1000(
    server: ss.ScriptedServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`gpu-sizer ask` against the scripted model reading 40 users, the parser 1,000."""
    server.reset(ss.tool_calls(_size(40)), ss.text("Explained."))
    monkeypatch.setattr("assistant.llm.engine.offline_planner", fixed_parser(_parsed(1000)))
    (tmp_path / "config.toml").write_text(
        f'base_url = "{server.base_url}"\nmodel = "scripted"\nmax_retries = 0\n', encoding="utf-8"
    )
    monkeypatch.setenv("GPU_SIZER_CONFIG_DIR", str(tmp_path))


def test_ask_prints_only_the_verdict_the_rule_chose(
    server: ss.ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _cli_reading_40_over_1000(server, tmp_path, monkeypatch)
    code = main(["ask", "--no-save", QUESTION])
    out, _ = capsys.readouterr()
    assert code == 0
    assert out.count("*Read as:") == 1  # the provisional verdict never printed
    assert out.index("the built-in parser read 1,000") < out.index("Explained.")


# --- the reverse: the parser reads right, the model wrong -----------------------------------


async def test_an_invented_value_is_refused_naming_the_field(server: ss.ScriptedServer) -> None:
    # 8,192 tokens of context appear nowhere in the question: refused, never run; the model
    # sends the call again without it and that reading agrees with the parser's.
    server.reset(
        ss.tool_calls(_size(40, context=8192)),
        ss.tool_calls(("size", json.dumps({"workload": {"model": "Llama 3.1 70B", "users": 40}}))),
        ss.text("Explained."),
    )
    events = await _turn(_engine(server, fixed_parser(_parsed(40))))
    results = [e for e in events if isinstance(e, ToolResult)]
    refused = [r for r in results if r.is_error]
    assert len(refused) == 1 and isinstance(refused[0].value, ToolError)
    assert refused[0].value.field == "workload.context"
    assert "8192" in refused[0].value.error and "40" in (refused[0].value.allowed or "")
    # What the model read back names the field and the figures the user wrote.
    sent = server.requests[1]["messages"][-1]
    assert sent["role"] == "tool" and "workload.context" in sent["content"]
    assert len(_reports(events)) == 2  # the parser's and the model's grounded call
    # The grounded reading agrees with the parser's on every verdict slot: its verdict stands.
    verdicts = _verdicts(events)
    assert verdicts[-1].text == verdicts[0].text and not verdicts[-1].provisional
    assert "the built-in parser read" not in verdicts[-1].text


async def test_a_grounded_misreading_still_follows_the_rule_with_the_parsers_verdict_beside(
    server: ss.ScriptedServer,
) -> None:
    # The model takes the daily users for concurrent ones (1,000 is in the question, so the
    # call is grounded): the rule follows the model, and the parser's reading and verdict are
    # there in one line for the user to see.
    server.reset(ss.tool_calls(_size(1000)), ss.text("Explained."))
    events = await _turn(_engine(server, fixed_parser(_parsed(40))))
    final = _verdicts(events)[-1].text
    assert "Read as 1,000 concurrent users; the built-in parser read 40 concurrent users" in final
    parser = next(iter(_reports(events).values()))
    _, count = _headline(parser)
    assert f"its verdict: {count}× " in final


# --- both agree; the model calls no tool ------------------------------------------------------


async def test_agreeing_readings_keep_the_parsers_verdict(server: ss.ScriptedServer) -> None:
    # Another spelling of the same reading (a catalog name, the default context stated).
    call = {"workload": {"model": "Llama 3.1 70B", "users": 40, "context": 4096}}
    server.reset(ss.tool_calls(("size", json.dumps(call))), ss.text("Explained."))
    events = await _turn(_engine(server, fixed_parser(_parsed(40))))
    verdicts = _verdicts(events)
    assert [v.provisional for v in verdicts] == [True, False]
    assert verdicts[0].text == verdicts[1].text
    assert "the built-in parser read" not in verdicts[1].text
    assert not [e for e in events if isinstance(e, ReadAs) and e.reading.slot("users")
                and e.reading.slot("users").source.origin == "model"]  # fmt: skip


async def test_a_model_that_calls_no_tool_gets_the_parsers_reading(
    server: ss.ScriptedServer,
) -> None:
    server.reset(ss.text("Here is what the tools found."))
    events = await _turn(_engine(server, fixed_parser(_parsed(40))))
    assert len([e for e in events if isinstance(e, ToolCallStarted)]) == 1  # the parser's
    verdicts = _verdicts(events)
    assert verdicts[0].provisional and verdicts[-1].text == verdicts[0].text
    assert not verdicts[-1].provisional
    assert verdicts[-1].text.startswith("*Read as: Llama 3.1 70B · 40 concurrent users")
    assert _done(events).verdict == verdicts[-1].text


# --- figures always come from tools -----------------------------------------------------------


async def test_the_models_figures_are_checked_against_its_reports(
    server: ss.ScriptedServer,
) -> None:
    def explain(request: dict[str, Any]) -> ss.Step:
        # The model quotes its own report's headline price (read from the result it was sent)
        # and invents another.
        result = json.loads(request["messages"][-1]["content"])
        price = result["headline"]["price"]["usd_per_hour"]
        return ss.text(f"It costs ${price:.2f} per hour, or about $7.77 per hour with spares.")

    server.reset(ss.tool_calls(_size(40)), ss.dynamic(explain))
    events = await _turn(_engine(server, fixed_parser(_parsed(1000))))
    assert _done(events).unverified_figures == ("$7.77",)


# --- the app: the provisional verdict gives way ----------------------------------------------


async def test_the_app_replaces_the_provisional_verdict(
    server: ss.ScriptedServer, tmp_path: Path
) -> None:
    from textual.widgets import Static

    from assistant.app.app import GpuSizerApp
    from assistant.app.widgets.message import AssistantMessage
    from assistant.app.widgets.prompt import PromptInput

    server.reset(ss.tool_calls(_size(40)), ss.text("Explained."))
    app = GpuSizerApp(_engine(server, fixed_parser(_parsed(1000))), sessions_directory=tmp_path)
    async with app.run_test(size=(100, 40)) as pilot:
        app.query_one(PromptInput).insert(QUESTION)
        await pilot.press("enter")
        await app.workers.wait_for_complete()
        await pilot.pause()
        verdicts = [a for a in app.query(AssistantMessage) if a.has_class("verdict")]
        assert len(verdicts) == 1 and not verdicts[0].has_class("provisional")
        assert "the built-in parser read 1,000" in verdicts[0].markdown.source
        reading = " ".join(str(w.render()) for w in app.query(".reading").results(Static))
        # The card shows the model's reading (the report it heads is the model's call's).
        assert "Read as: Llama 3.1 70B · 40 concurrent users" in reading


async def test_the_models_claims_are_checked_against_the_reading_the_verdict_follows(
    server: ss.ScriptedServer,
) -> None:
    # The parser misses '4-bit': bf16 weights of 141.1 GB do not fit one 80 GB H100; the
    # model reads int4 (~35 GB of weights: 70.55e9 × 0.5 bytes), which does. Its claim is
    # about the reading the verdict follows: no contradiction.
    question = "Can I run Llama 3.1 70B in 4-bit on one H100?"
    parsed = ParsedWorkload(
        text=question,
        model="llama-3.1-70b",
        gpus=[GpuMention(gpu="h100-sxm", text="H100", count=1)],
    )
    call = {
        "workload": {"model": "llama-3.1-70b", "weights": "int4"},
        "configurations": [{"gpu": "h100", "count": 1}],
    }
    server.reset(ss.tool_calls(("size", json.dumps(call))), ss.text("It fits on one H100."))
    engine = _engine(server, fixed_parser(parsed))
    events = [e async for e in engine.run_turn(Conversation(), question)]
    parser, model = _reports(events).values()
    fits = [r.memory[0].estimate.fits for r in (parser, model) if r.memory[0].estimate]
    assert fits == [False, True]
    assert "the built-in parser read" in _verdicts(events)[-1].text
    assert _done(events).contradictions == ()


async def test_with_no_parser_reading_the_models_verdict_names_no_difference(
    server: ss.ScriptedServer,
) -> None:
    from assistant.llm.planner import no_planner

    server.reset(ss.tool_calls(_size(40)), ss.text("Explained."))
    events = await _turn(_engine(server, no_planner))
    verdicts = _verdicts(events)
    assert len(verdicts) == 1 and not verdicts[0].provisional
    text = verdicts[0].text
    assert text.startswith("*Read as: Llama 3.1 70B · 40 concurrent users")
    assert "built-in parser" not in text and "Read as ;" not in text


def test_ask_json_reports_the_reading_and_report_the_verdict_follows(
    server: ss.ScriptedServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _cli_reading_40_over_1000(server, tmp_path, monkeypatch)
    assert main(["ask", "--no-save", "--json", QUESTION]) == 0
    record = json.loads(capsys.readouterr().out)
    users = next(s for s in record["reading"]["slots"] if s["slot"] == "users")
    assert users["value"] == 40 and users["source"]["origin"] == "model"
    model_call = record["tool_calls"][-1]
    assert model_call["arguments"]["workload"]["users"] == 40
    option = model_call["result"]["headline"]["option"]
    assert record["sizing"]["headline"]["count"] == option["count"]
    assert record["sizing"]["headline"]["gpu"] == option["gpu"]
    assert record["tool_calls"][0]["arguments"]["workload"]["users"] == 1000  # the parser's


# --- the chosen reading carried forward: follow-ups and reopened sessions ----------------------


@pytest.mark.parametrize(
    ("parser_users", "model_users", "carried"),
    [
        (1000, 40, 40),  # the model read right: its reading is the one refined next
        (
            40,
            1000,
            1000,
        ),  # the model misread, grounded: the rule followed it, so does the next turn
        (40, 40, 40),  # both agree: the parser's workload stands, unchanged
    ],
)
async def test_a_follow_up_refines_the_reading_the_verdict_followed(
    server: ss.ScriptedServer, parser_users: int, model_users: int, carried: int
) -> None:
    from assistant.offline.parser import parse_workload
    from assistant.reading.parsed import previous_workload

    server.reset(ss.tool_calls(_size(model_users)), ss.text("Explained."))
    events = await _turn(_engine(server, fixed_parser(_parsed(parser_users))))
    conversation = _done(events).conversation
    previous = previous_workload(conversation)
    assert previous is not None
    assert previous.model == "llama-3.1-70b" and previous.users == carried
    # Where the model's value was taken, so is its provenance (the model's call, its span).
    source = previous.sources["users"]
    assert source.origin == ("model" if parser_users != model_users else "question")
    # "What about 8-bit?" keeps the model and the users the verdict was computed for.
    follow_up = parse_workload("what about in 8-bit?", previous)
    assert follow_up.model == "llama-3.1-70b" and follow_up.users == carried
    assert follow_up.weights is not None and "8" in follow_up.weights


async def test_without_a_parser_reading_the_models_reading_is_the_one_refined(
    server: ss.ScriptedServer,
) -> None:
    from assistant.reading.parsed import previous_workload

    def reads_nothing(text: str, conversation: Conversation) -> PlannedCalls:
        return []

    server.reset(ss.tool_calls(_size(40)), ss.text("Explained."))
    events = await _turn(_engine(server, reads_nothing))
    previous = previous_workload(_done(events).conversation)
    assert previous is not None and previous.users == 40 and previous.model == "llama-3.1-70b"


async def test_a_reopened_session_heads_the_card_with_the_reading_the_verdict_followed(
    server: ss.ScriptedServer, tmp_path: Path
) -> None:
    from textual.widgets import Static

    from assistant.app.app import GpuSizerApp
    from assistant.offline.engine import OfflineEngine

    server.reset(ss.tool_calls(_size(40)), ss.text("Explained."))
    events = await _turn(_engine(server, fixed_parser(_parsed(1000))))
    conversation = _done(events).conversation
    app = GpuSizerApp(OfflineEngine(), sessions_directory=tmp_path, conversation=conversation)
    async with app.run_test(size=(100, 40)) as pilot:
        await pilot.pause()
        reading = " ".join(str(w.render()) for w in app.query(".reading").results(Static))
        assert "Read as: Llama 3.1 70B · 40 concurrent users" in reading
        assert "1,000 concurrent users" not in reading
