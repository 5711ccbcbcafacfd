"""Output hygiene (issue 21 item 2): what `assistant.sanitize` removes and what it keeps.

The sequences are the ones the issue saw an endpoint send, written out byte by byte from
ECMA-48 / xterm's ctlseqs: OSC 52 (clipboard) `ESC ] 52 ; c ; <base64> BEL`, OSC 0 (window
title) `ESC ] 0 ; <title> ESC \\`, OSC 8 (hyperlink) `ESC ] 8 ; ; <uri> ESC \\ text ESC ] 8 ; ;
ESC \\`, CSI 2J (erase display) `ESC [ 2 J`, and RIS (reset) `ESC c`.
"""

from __future__ import annotations

import io
import itertools
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from assistant.sanitize import (
    MAX_CONTROL_STRING,
    CleanStream,
    StreamCleaner,
    clean_json_text,
    clean_text,
    clean_value,
    has_control,
    json_has_control,
)

OSC52 = "\x1b]52;c;cm0gLXJmIH4=\x07"  # base64 of "rm -rf ~"
OSC0 = "\x1b]0;pwned\x1b\\"
OSC8_OPEN, OSC8_CLOSE = "\x1b]8;;http://evil.example/\x1b\\", "\x1b]8;;\x1b\\"
CSI_2J = "\x1b[2J"
RIS = "\x1bc"


@pytest.mark.parametrize(
    ("dirty", "clean"),
    [
        (f"Fits on {OSC52}1× L4.", "Fits on 1× L4."),
        (f"{OSC0}Title gone", "Title gone"),
        (f"see {OSC8_OPEN}the docs{OSC8_CLOSE}.", "see the docs."),
        (f"{CSI_2J}{RIS}screen kept", "screen kept"),
        ("\x1b[31mred\x1b[0m plain", "red plain"),
        # 8-bit forms: CSI (0x9B) 2J, OSC (0x9D) 0;t ST (0x9C), and a lone C1 NEL (0x85).
        ("\x9b2J\x9d0;t\x9cok\x85", "ok"),
        # Newline and tab stay; CR LF becomes LF; a lone CR (overwrites the line) goes.
        ("a\tb\r\nc\rd", "a\tb\ncd"),
        ("nul\x00 bel\x07 bs\x08 del\x7f", "nul bel bs del"),
        # Markdown, Textual markup and HTML are not this module's business.
        ("**bold** [b]x[/b] <b>y</b> [/]", "**bold** [b]x[/b] <b>y</b> [/]"),
    ],
)
def test_sequences_removed_text_kept(dirty: str, clean: str) -> None:
    assert clean_text(dirty) == clean


def test_an_unterminated_control_string_loses_only_its_introducer() -> None:
    # A stray ESC ] must not swallow the rest of an answer (there is no terminator).
    assert clean_text("before \x1b]0;rest of the answer") == "before 0;rest of the answer"
    # A payload longer than the cap is not a control string either.
    long_payload = "x" * (MAX_CONTROL_STRING + 1)
    assert clean_text(f"\x1b]0;{long_payload}\x07") == f"0;{long_payload}"


def test_clean_value_cleans_nested_strings_and_keys() -> None:
    value = {"a\x1b[2J": [f"x{OSC52}", ("t\x07",)], "n": 1.5}
    assert clean_value(value) == {"a": ["x", ("t",)], "n": 1.5}


def test_json_documents_lose_escapes_written_as_unicode_escapes() -> None:
    # json.dumps writes ESC as the six characters \u001b: plain cleaning cannot see it.
    document = json.dumps({"model": f"llama{OSC0}", "n": 2})
    assert "\x1b" not in document and "\\u001b" in document
    cleaned = clean_json_text(document)
    assert json.loads(cleaned) == {"model": "llama", "n": 2}
    untouched = '{"model": "llama-3.1-8b", "note": "a\\nb"}'
    assert clean_json_text(untouched) == untouched
    assert clean_json_text("not json \x1b[2J") == "not json "


_ALPHABET = st.sampled_from(
    [
        *("a", " ", "\n", "\t", "\r", "\x1b", "[", "]", "\\", "\x07", "0", ";", "2", "J"),
        *("m", "P", "\x9b", "\x9c", "\x9d", "\x85", "\x00", "c", "(", "B", "é", "8"),
    ]
)


@settings(max_examples=200, deadline=None)
@given(st.lists(_ALPHABET, max_size=60).map("".join))
def test_cleaned_text_holds_no_control_and_cleaning_is_idempotent(text: str) -> None:
    cleaned = clean_text(text)
    assert not has_control(cleaned)
    assert clean_text(cleaned) == cleaned


@settings(max_examples=200, deadline=None)
@given(st.lists(_ALPHABET, max_size=60).map("".join), st.lists(st.integers(0, 60), max_size=8))
def test_streamed_cleaning_equals_cleaning_the_whole(text: str, cuts: list[int]) -> None:
    bounds = sorted({0, len(text), *(c for c in cuts if c <= len(text))})
    cleaner = StreamCleaner()
    out = "".join(cleaner.feed(text[a:b]) for a, b in itertools.pairwise(bounds))
    assert out + cleaner.flush() == clean_text(text)


def test_clean_stream_writes_nothing_dangerous() -> None:
    target = io.StringIO()
    stream = CleanStream(target)
    for fragment in ("answer ", "\x1b]5", "2;c;eA==", "\x07 done", "\x1b[2", "J\n"):
        stream.write(fragment)
    stream.flush()
    assert target.getvalue() == "answer  done\n"


def test_json_has_control_sees_the_two_character_escapes() -> None:
    # JSON writes CR, backspace and form feed as \r, \b, \f: a carriage return in a session
    # file can rewrite the line it ends on, so it counts as a control character.
    for char in ("\r", "\x08", "\x0c"):
        assert json_has_control(json.dumps({"content": f"ok{char}spoof"})), repr(char)
    assert not json_has_control(json.dumps({"content": "tab\tand\nnewline"}))


def test_a_session_file_with_a_carriage_return_is_read_clean(tmp_path: Path) -> None:
    from assistant.sessions import read_conversation_file

    # "Fits\r✗ Does not fit": on a terminal the CR moves back and the rest overwrites the
    # verdict. JSON stores it as the escape \r, which the one-pass check used to miss.
    session = {
        "id": "cr",
        "messages": [
            {"role": "user", "content": "Q?"},
            {"role": "assistant", "content": "Fits\r✗ Does not fit"},
        ],
    }
    path = tmp_path / "cr.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    loaded = read_conversation_file(path).conversation
    assert "\r" not in loaded.messages[-1]["content"]


# --- the one-pass checks on large values (clean_value, results.cleaned) ------------------------

_EVERY_CONTROL = [chr(c) for c in (*range(0x00, 0x09), *range(0x0B, 0x20), *range(0x7F, 0xA0))]
"""Every character `clean_text` removes (C0 but tab and newline, DEL, C1), one at a time."""


@pytest.mark.parametrize("char", _EVERY_CONTROL, ids=lambda c: f"U+{ord(c):04X}")
def test_one_control_deep_in_a_large_value_is_found_and_removed(char: str) -> None:
    # clean_value checks a container as JSON text in one pass before walking it: a single
    # control character anywhere (a key, a list item, a tuple) must still make it walk.
    rows = [{"gpu": f"gpu-{i}", "reasons": ["fits", "TP 2"], "n": i} for i in range(300)]
    for where in ("value", "key", "tuple"):
        value: dict[str, object] = {"options": [dict(r) for r in rows], "note": ("a", "b")}
        options = value["options"]
        assert isinstance(options, list)
        if where == "value":
            options[217]["reasons"] = ["fits", f"TP{char}2"]
        elif where == "key":
            options[42][f"gp{char}u"] = 1
        else:
            value["note"] = ("a", f"b{char}")
        out = clean_value(value)
        assert not json_has_control(json.dumps(out, ensure_ascii=False)), (where, repr(char))
        assert out != value
        assert clean_value(out) == out


def test_a_clean_value_is_returned_as_it_is_and_other_types_are_still_walked() -> None:
    value = {"options": [{"gpu": "h100", "note": "tab\tand\nnewline, é ×"}], "n": 2.5}
    assert clean_value(value) is value
    # Not JSON (a set inside, a tuple key): walked as before, strings in it cleaned.
    assert clean_value({("k\x1b",): ["a\x85b"]}) == {("k",): ["ab"]}
    assert clean_value([{1, 2}, "x\x07"]) == [{1, 2}, "x"]


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.lists(_ALPHABET).map("".join),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.lists(_ALPHABET, max_size=4).map("".join), inner, max_size=4)
        | st.lists(inner, max_size=3).map(tuple)
    ),
    max_leaves=20,
)


@settings(max_examples=200, deadline=None)
@given(_VALUES)
def test_clean_value_leaves_no_control_and_keeps_what_is_clean(value: object) -> None:
    out = clean_value(value)
    assert not json_has_control(json.dumps(out, ensure_ascii=False))
    if not json_has_control(json.dumps(value, ensure_ascii=False)):
        assert out is value


def test_a_tool_result_carrying_escapes_is_cleaned_once_checked() -> None:
    # results.cleaned checks the result's JSON in one pass (pydantic writes it) before walking
    # it: a result whose strings carry a sequence, raw or 8-bit, still comes back clean.
    from assistant.results import cleaned
    from tools.recommend import Recommendation
    from tools.sizing import SizingRequest, size

    report = size(SizingRequest.model_validate({"workload": {"model": "llama-3.1-8b"}}))
    assert cleaned(report) is report  # nothing to clean: the same object
    recommendation = report.recommendation
    assert isinstance(recommendation, Recommendation) and recommendation.options
    dirty_reasons = [f"needs {OSC52}TP 2", "C1\x9b2J and DEL\x7f and CR\r"]
    options = [
        recommendation.options[0].model_copy(update={"reasons": dirty_reasons}),
        *recommendation.options[1:],
    ]
    dirty = report.model_copy(
        update={"recommendation": recommendation.model_copy(update={"options": options})}
    )
    out = cleaned(dirty)
    assert out is not dirty and isinstance(out, type(report))
    assert not json_has_control(out.model_dump_json())
    assert out.recommendation is not None
    assert out.recommendation.options[0].reasons == ["needs TP 2", "C1 and DEL and CR"]
