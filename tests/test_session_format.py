"""Session files (assistant/session_format.py): a format version, results packed once, the
answer's text stored once, migrations from older formats, and refusals that say why."""

from __future__ import annotations

import base64
import json
import lzma
import shutil
from pathlib import Path
from typing import Any

import pytest

from assistant import session_format
from assistant.answer import ANSWER_KEY
from assistant.cli import main
from assistant.results import RESULT_KEY, LegacyResult, load_result, stored_calls
from assistant.session_format import FORMAT, PACKED_KEY, decode, encode
from assistant.sessions import list_sessions, read_session_file, session_json
from tools.errors import ToolInputError

DATA = Path(__file__).resolve().parent / "data" / "proposal"

QUESTIONS = (
    "Llama 3 70B on 2x H100 for 50 users",
    "We want to serve Llama 3.1 70B in bf16 to 32 concurrent users at 20 tokens/s each. "
    "Would 2x H100 SXM do? Compare H100, H200, MI300X and L40S and tell me what it costs.",
    "fine-tune llama 3.1 8b with lora on one A100",
    # Training on unnamed GPUs: the layout search rejects ~1,600 layouts (86 KB packed).
    "LoRA fine-tune of Llama 3.1 8B on 1B tokens",
    "pretrain a 7B model on 1T tokens in 30 days, how many H100s?",
)


def _rejected(data: dict[str, Any]) -> list[Any]:
    """Every rejected layout a result's data holds: a recommendation's, a report's, its
    scale-out's."""
    recs = [data, data.get("recommendation"), (data.get("scale_out") or {}).get("recommendation")]
    return [o for r in recs if isinstance(r, dict) for o in r.get("rejected") or []]


def _no_rejected(data: dict[str, Any]) -> dict[str, Any]:
    """`data` with every recommendation's rejected layouts emptied (what a session keeps)."""
    out = json.loads(json.dumps(data))
    scale = out.get("scale_out") or {}
    for rec in (out, out.get("recommendation"), scale.get("recommendation")):
        if isinstance(rec, dict) and "rejected" in rec and "options" in rec:
            rec["rejected"] = []
    return out


@pytest.fixture
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPU_SIZER_DATA_DIR", str(tmp_path))
    return tmp_path / "sessions"


@pytest.mark.parametrize("question", QUESTIONS)
def test_one_offline_ask_writes_a_small_versioned_session(
    question: str, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "--offline", "--no-pager", question]) == 0
    (path,) = data_dir.glob("*.json")
    # Issue 32: under 40 KB (the typed report was ~200 KB of JSON, the answer stored twice).
    assert path.stat().st_size < 40_000
    raw = json.loads(path.read_text())
    assert raw["format"] == FORMAT
    tools = [m for m in raw["messages"] if m["role"] == "tool"]
    assert tools and all(PACKED_KEY in m[RESULT_KEY] and "content" not in m for m in tools)
    answer = raw["messages"][-1]
    assert PACKED_KEY in answer[ANSWER_KEY] and "content" not in answer  # stored once
    # Reopened, every message is back as the engine wrote it: typed results, texts.
    conversation = read_session_file(path).conversation
    calls = stored_calls(conversation.messages)
    assert calls and not any(isinstance(c.value, LegacyResult) for c in calls)
    printed = capsys.readouterr().out
    assert conversation.messages[-1]["content"].splitlines()[0] in printed
    assert all(isinstance(m.get("content"), str) for m in conversation.tool_results())


@pytest.mark.parametrize("name", ["session.json", "session-legacy.json", "session-followup.json"])
def test_a_format_1_session_opens_through_the_migrations_and_saves_in_the_current_format(
    name: str, tmp_path: Path
) -> None:
    old = json.loads((DATA / name).read_text())
    assert "format" not in old  # format 1: what main wrote before format 2
    copy = tmp_path / name
    shutil.copy(DATA / name, copy)
    opened = read_session_file(copy)
    assert opened.problems == [] or all("id" in p for p in opened.problems)
    # Format 1 is the in-memory form: the migration changes no message.
    assert opened.conversation.messages == old["messages"]
    text = session_json(opened.conversation)
    assert json.loads(text)["format"] == FORMAT
    assert len(text) < len(json.dumps(old, indent=1)) / 4
    copy.write_text(text)
    again = read_session_file(copy).conversation
    # Packed and unpacked: every result loads back equal as data — but for the recommender's
    # rejected layouts, which a session does not keep —, every text is the same.
    before = stored_calls(opened.conversation.messages)
    after = stored_calls(again.messages)
    assert [c.value.model_dump(mode="json") for c in after] == [
        _no_rejected(c.value.model_dump(mode="json")) for c in before
    ]
    assert any(_rejected(c.value.model_dump(mode="json")) for c in before)
    assert not any(_rejected(c.value.model_dump(mode="json")) for c in after)
    assert [m.get("content") for m in again.messages] == [
        m.get("content") for m in opened.conversation.messages
    ]


def test_a_session_from_before_typed_results_still_opens_with_a_notice() -> None:
    # Tool contents only (2026-11-29 to 2026-12-01, never released): not converted any more,
    # but the session opens, the text is kept and the card says why it cannot be shown.
    data = {
        "id": "old1",
        "messages": [
            {"role": "user", "content": "70B on H100?"},
            {"role": "assistant", "content": "", "tool_calls": [_call("c1", "estimate_memory")]},
            {"role": "tool", "tool_call_id": "c1", "content": '{"per_gpu_GB": 141.1}'},
        ],
    }
    decoded, _ = decode(data)
    value = load_result(decoded["messages"][2], "estimate_memory")
    assert isinstance(value, LegacyResult) and "no typed result stored" in value.notice
    assert value.data == {"raw": '{"per_gpu_GB": 141.1}'}


def _call(call_id: str, name: str) -> dict[str, object]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": "{}"}}


def _packed(text: bytes) -> dict[str, object]:
    return {
        "format": FORMAT,
        "id": "p1",
        "messages": [
            {"role": "user", "content": "q"},
            {"role": "assistant", "content": "", "tool_calls": [_call("c1", "find_gpu")]},
            {
                "role": "tool",
                "tool_call_id": "c1",
                RESULT_KEY: {
                    "schema": "GpuFacts",
                    PACKED_KEY: base64.b64encode(lzma.compress(text)).decode(),
                },
            },
        ],
    }


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"format": FORMAT + 1, "messages": []}, "written by a newer gpu-sizer"),
        ({"format": "two", "messages": []}, "not a session format version"),
        (_packed(b"{not json"), "packed value is corrupt"),
        (_packed(b"[1, 2]"), "not an object"),
        (
            {**_packed(b"{}"), "messages": [{"role": "tool", RESULT_KEY: {PACKED_KEY: "~~~"}}]},
            "corrupt",
        ),
    ],
)
def test_what_cannot_be_read_is_refused_saying_why(
    data: dict[str, object], problem: str, data_dir: Path
) -> None:
    data_dir.mkdir(parents=True)
    path = data_dir / "bad1.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ToolInputError) as caught:
        read_session_file(path)
    assert problem in caught.value.problem and "bad1.json" in caught.value.problem
    assert list_sessions(data_dir)[0].path == path  # still listed, never hidden


def test_a_packed_result_that_expands_past_the_cap_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import assistant.session_format as session_format

    monkeypatch.setattr(session_format, "PACKED_MAX_BYTES", 1_000)
    with pytest.raises(ToolInputError, match="expands past"):
        decode(_packed(b'{"data": "' + b"0" * 10_000 + b'"}'))


def test_control_characters_in_a_packed_result_are_cleaned(tmp_path: Path) -> None:
    facts = {"data": {"id": "h100", "name": "H100 \x1b[31mred"}, "content": "{}"}
    path = tmp_path / "ctl1.json"
    path.write_text(json.dumps(_packed(json.dumps(facts).encode())))
    conversation = read_session_file(path).conversation
    assert "\x1b" not in json.dumps(conversation.messages)


def test_encode_keeps_a_text_its_sections_do_not_make_up() -> None:
    sections = {"sections": [{"title": None, "lines": ["Fits."], "folded": False}]}
    edited = {"role": "assistant", "content": "Fits. (edited)", ANSWER_KEY: sections}
    written = encode({"messages": [edited]})["messages"][0]
    assert written == edited  # kept whole: the sections are not its text
    same = {"role": "assistant", "content": "Fits.", ANSWER_KEY: sections}
    decoded, _ = decode(encode({"messages": [same]}))
    assert decoded["messages"][0]["content"] == "Fits."
    assert decoded["messages"][0][ANSWER_KEY]["sections"][0]["lines"] == ["Fits."]


def _as_format_2(text: str) -> str:
    """A current session file as format 2 wrote it: the same, packed values in base 85."""
    data = json.loads(text)
    for message in data["messages"]:
        for key in (RESULT_KEY, ANSWER_KEY):
            stored = message.get(key)
            if isinstance(stored, dict) and PACKED_KEY in stored:
                raw = base64.b64decode(stored[PACKED_KEY])
                stored[PACKED_KEY] = base64.b85encode(raw).decode("ascii")
    data["format"] = 2
    return json.dumps(data)


def test_a_format_2_session_opens_through_its_migration_with_every_value_equal(
    data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ask", "--offline", "--no-pager", QUESTIONS[0]]) == 0
    (path,) = data_dir.glob("*.json")
    current = read_session_file(path).conversation
    old = path.with_name("f2old1.json")
    old.write_text(_as_format_2(path.read_text()))
    assert json.loads(old.read_text())["format"] == 2
    opened = read_session_file(old)
    assert opened.problems == [] or all("id" in p for p in opened.problems)
    assert opened.conversation.messages == current.messages
    assert json.loads(session_json(opened.conversation))["format"] == FORMAT == 3


def test_a_save_packs_only_what_it_has_not_packed_before(
    data_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A session is saved whole after every turn: without the cache a 38-turn session packed
    # every report again on each save (~1.2 CPU s a turn). Packed once, whether written by
    # this process or read from the file.
    import assistant.session_format as session_format

    assert main(["ask", "--offline", "--no-pager", QUESTIONS[0]]) == 0
    (path,) = data_dir.glob("*.json")
    first = path.read_text()
    session_format.forget_packed()
    conversation = read_session_file(path).conversation
    calls: list[int] = []
    real = lzma.compress

    def counted(data: bytes, *args: object, **kwargs: object) -> bytes:
        calls.append(len(data))
        return real(data, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(session_format.lzma, "compress", counted)
    assert session_json(conversation) == first  # nothing packed again, the same file
    assert calls == []
    session_format.forget_packed()
    assert session_json(conversation) == first
    packed = [
        m
        for m in json.loads(first)["messages"]
        for key in (RESULT_KEY, ANSWER_KEY)
        if PACKED_KEY in (m.get(key) or {})
    ]
    assert len(calls) == len(packed) >= 2  # nothing remembered: each value packed once


@pytest.mark.parametrize("size", [10, 8_500, 200_000])
def test_a_value_is_packed_with_a_dictionary_fitted_to_it_and_as_small(size: int) -> None:
    # Repetitive JSON-like text, as a report is: keys and sources over and over.
    text = (b'{"gpu":"h100-sxm","count":8,"source":"datasheet"},' * (size // 50 + 1))[:size]
    packed = session_format._compressed(text)
    assert lzma.decompress(packed) == text
    assert len(packed) <= len(lzma.compress(text, preset=session_format.PACK_PRESET))
    # The dictionary in the xz block header: the next power of two of the size, 4 KiB at least
    # (10 B -> 4 KiB, 8,500 B -> 16 KiB, 200,000 B -> 256 KiB), never above the preset's 4 MiB.
    fitted = {10: 4096, 8_500: 16_384, 200_000: 262_144}[size]

    def read_within(limit: int, data: bytes) -> bytes:
        return lzma.LZMADecompressor(memlimit=limit).decompress(data)

    assert read_within(fitted + 2**20, packed) == text
    with pytest.raises(lzma.LZMAError):  # the preset's own 4 MiB dictionary does not fit there
        read_within(fitted + 2**20, lzma.compress(text, preset=session_format.PACK_PRESET))
