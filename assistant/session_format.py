"""The session file format: a version number, explicit migrations, results packed once.

In memory a conversation's messages are as the engines write them (`assistant.conversation`):
a tool message has the model's `content` and the typed result under `results.RESULT_KEY` as
`{"schema", "data"}`; an answer has its text under `content` and its sections under
`answer.ANSWER_KEY`. A file stores the same thing smaller:

- format 3 (`FORMAT`, key `"format"`): each typed result is stored once, packed — the JSON of
  `{"data", "content"}` (the result as stored in memory, and what the model read)
  compressed with LZMA and written in base 64 under `"packed"` (a report is mostly repeated
  keys and sources: ~225 KB of JSON packs into ~29 KB) — without the recommender's rejected
  layouts (`_without_rejected`: the search's working, which no session reader uses; a reopened
  report has none); an answer is stored once, as its
  sections, packed the same way (its text, `"content"`, is rebuilt from them when read) where
  they make up its text exactly, as is an LLM verdict under `answer.VERDICT_KEY`. The
  questions, the tool calls, the reading and any other text stay plain JSON, written compact
  (`gpu-sizer sessions show` prints a session).
- format 2: format 3 with the packed values in base 85 (2026-12-01 to 2026-12-02). Python's
  base-85 codec is pure Python: reading a 50 MB session spent 9 s in it, where base 64 is C.
  `MIGRATIONS[2]` re-encodes the packed values.
- format 1: no `"format"` key, the in-memory form as is (written by `main` from typed results,
  2026-12-01, until format 2). `MIGRATIONS[1]` reads it: nothing to unpack.

A session is saved after every turn, whole: a value packed once is not packed again while this
process runs (`_PACKED`, keyed by a digest of its JSON, filled when a file is read too), so a
save packs only the new turn's values.

Sessions from before typed results (tool contents only, 2026-11-29 to 2026-12-01, never in a
release) are not converted: such a tool message opens as a `LegacyResult` that says so, with
its text kept. A file of a newer format than `FORMAT` is refused with a message saying so.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import lzma
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from typing import Any

from assistant.answer import ANSWER_KEY, VERDICT_KEY, Answer
from assistant.results import RESULT_KEY
from assistant.sanitize import json_has_control
from tools.errors import ToolInputError
from tools.nesting import NestingError, loads_json

FORMAT = 3
"""The format this version writes (key `"format"` of a session file)."""

FORMAT_KEY = "format"
PACKED_KEY = "packed"

PACK_PRESET = 4
"""LZMA preset of what is packed: on a 225 KB report preset 4 takes ~20 ms where the default (6)
takes ~36 ms, for ~6 % more bytes, and preset 2 ~10 ms for ~5 % more again; each value is
packed once (`_PACKED`), so a save pays it for the new turn only. A 4-GPU comparison's session
is ~37 KB in base 64 at preset 4 (36.6 KB in format 2's base 85 at preset 2)."""

PRESET_DICT_BYTES = 4 * 2**20
"""The LZMA2 dictionary of `PACK_PRESET` (xz(1): preset 4 is 4 MiB)."""

PACKED_CACHE_BYTES = 64 * 2**20
"""The packed values kept for the next save, at most this many bytes of them (a 50 MB session's
whole packed content); the least recently used go first."""

_PACKED: OrderedDict[bytes, str] = OrderedDict()
"""Digest of a value's JSON text → its packed form (see the module docstring)."""
_packed_bytes = 0
_packed_lock = threading.Lock()
"""The app saves from a worker thread while another may read a session."""

PACKED_MAX_BYTES = 64 * 2**20
"""Largest unpacked result read (64 MiB, a thousand times a large report): a packed value that
would expand further is refused, never expanded into memory."""

_TEXT_OF_SECTIONS = ((ANSWER_KEY, "content"), (VERDICT_KEY, "verdict"))
"""(sections key, text key): a text left out of the file where its sections make it up."""


# --- writing ---------------------------------------------------------------------------------


def encode(data: Mapping[str, Any]) -> dict[str, Any]:
    """The file form (format `FORMAT`) of a conversation's `model_dump(mode="json")`."""
    messages = [_encode_message(m) for m in data.get("messages", [])]
    return {
        FORMAT_KEY: FORMAT,
        **{k: v for k, v in data.items() if k != "messages"},
        "messages": messages,
    }


def _encode_message(message: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(message)
    result = out.get(RESULT_KEY)
    if out.get("role") == "tool" and isinstance(result, Mapping) and "data" in result:
        data = _without_rejected(result.get("schema"), result["data"])
        body = {"data": data, "content": out.pop("content", None)}
        out[RESULT_KEY] = {"schema": result.get("schema"), PACKED_KEY: _pack(body)}
    for sections, text_key in _TEXT_OF_SECTIONS:
        answer = _answer(out.get(sections))
        if answer is not None and answer.text == out.get(text_key):
            del out[text_key]
            out[sections] = {PACKED_KEY: _pack(answer.model_dump(mode="json"))}
    return out


def _without_rejected(schema: Any, data: Any) -> Any:
    """A result's data with every recommendation's rejected layouts left out (`[]`): the
    search's working, not its answer — a LoRA job on unnamed GPUs rejects 1,601 layouts,
    58 KB of its session's 86 KB packed —, which no reader of a session uses (the proposal,
    a reopened card and a follow-up read the options, the headline and the costs); `ask
    --json --all-layouts` lists them when asked again."""
    if not isinstance(data, Mapping):
        return data
    if schema == "Recommendation":
        return {**data, "rejected": []} if "rejected" in data else data
    if schema != "SizingReport":
        return data
    out = dict(data)
    rec = out.get("recommendation")
    if isinstance(rec, Mapping):
        out["recommendation"] = _without_rejected("Recommendation", rec)
    scale = out.get("scale_out")
    if isinstance(scale, Mapping) and isinstance(scale.get("recommendation"), Mapping):
        inner = _without_rejected("Recommendation", scale["recommendation"])
        out["scale_out"] = {**scale, "recommendation": inner}
    return out


def _pack(value: Any) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    key = _digest(text)
    with _packed_lock:
        packed = _PACKED.get(key)
        if packed is not None:
            _PACKED.move_to_end(key)
            return packed
    packed = base64.b64encode(_compressed(text)).decode("ascii")
    _remember(key, packed)
    return packed


def _compressed(text: bytes) -> bytes:
    """`text` as xz at `PACK_PRESET`, with a dictionary no larger than `text` needs (the next
    power of two, at least 4 KiB, below the preset's 4 MiB): the compressor allocates and
    clears its whole dictionary first, most of the cost of packing a small value (an 8 KB
    answer). A dictionary that holds all of `text` finds the same matches, so the bytes are as
    few, and any xz reader (`lzma.decompress`) reads them."""
    lzma2: dict[str, int] = {"id": lzma.FILTER_LZMA2, "preset": PACK_PRESET}
    fitted = max(4096, 1 << (len(text) - 1).bit_length())
    if fitted < PRESET_DICT_BYTES:
        lzma2["dict_size"] = fitted
    return lzma.compress(text, format=lzma.FORMAT_XZ, filters=[lzma2])


def _digest(text: bytes) -> bytes:
    return hashlib.blake2b(text, digest_size=16).digest()


def forget_packed() -> None:
    """Empty the packed values kept for the next save (tests, and a caller freeing memory)."""
    global _packed_bytes
    with _packed_lock:
        _PACKED.clear()
        _packed_bytes = 0


def _remember(key: bytes, packed: str) -> None:
    """Keep `packed` for the next save, within `PACKED_CACHE_BYTES`."""
    global _packed_bytes
    with _packed_lock:
        if key in _PACKED:
            return
        _PACKED[key] = packed
        _packed_bytes += len(packed)
        while _packed_bytes > PACKED_CACHE_BYTES and _PACKED:
            _, dropped = _PACKED.popitem(last=False)
            _packed_bytes -= len(dropped)


def _answer(sections: Any) -> Answer | None:
    if not isinstance(sections, Mapping):
        return None
    try:
        return Answer.model_validate(sections)
    except ValueError:  # pydantic's ValidationError: shown whole, as stored_answer does
        return None


# --- reading ---------------------------------------------------------------------------------


def decode(data: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The in-memory form of a parsed session file of any format this version reads, and
    whether what was unpacked holds a control character (to be cleaned like the file's text).
    ToolInputError for a newer format or a packed value that does not unpack."""
    version = data.get(FORMAT_KEY, 1)
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise ToolInputError("session", f"format {version!r} is not a session format version")
    if version > FORMAT:
        raise ToolInputError(
            "session",
            f"it was written by a newer gpu-sizer (session format {version}); this version "
            f"reads formats 1 to {FORMAT}",
        )
    while version < FORMAT:
        data = MIGRATIONS[version](data)
        version += 1
    control = False
    messages = data.get("messages")
    if isinstance(messages, list):
        decoded = []
        for message in messages:
            message, dirty = _decode_message(message)
            decoded.append(message)
            control = control or dirty
        data = {**data, "messages": decoded}
    data.pop(FORMAT_KEY, None)
    return data, control


def _decode_message(message: Any) -> tuple[Any, bool]:
    if not isinstance(message, dict):
        return message, False
    out = dict(message)
    dirty = False
    result = out.get(RESULT_KEY)
    if out.get("role") == "tool" and isinstance(result, Mapping) and PACKED_KEY in result:
        body, dirty = _unpacked_object(result[PACKED_KEY])
        out[RESULT_KEY] = {"schema": result.get("schema"), "data": body.get("data")}
        if body.get("content") is not None:
            out["content"] = body["content"]
    for sections, text_key in _TEXT_OF_SECTIONS:
        stored = out.get(sections)
        if isinstance(stored, Mapping) and PACKED_KEY in stored:
            stored, unclean = _unpacked_object(stored[PACKED_KEY])
            out[sections] = stored
            dirty = dirty or unclean
        answer = _answer(stored) if text_key not in out else None
        if answer is not None:
            out[text_key] = answer.text
    return out, dirty


def _unpacked_object(packed: Any) -> tuple[dict[str, Any], bool]:
    """A packed JSON object and whether it holds a control character. Its depth is checked
    with the message that holds it (`message_shapes`), not here as well: one walk per value."""
    text = _unpack(packed)
    try:
        value = loads_json(text, limit=None)
    except (NestingError, ValueError) as exc:
        raise ToolInputError("session", f"a packed value is corrupt ({exc})") from None
    if not isinstance(value, dict):
        raise ToolInputError("session", "a packed value is not an object")
    if isinstance(packed, str):  # as this version would pack it again: not packed again
        _remember(_digest(text.encode("utf-8")), packed)
    return value, json_has_control(text)


def _unpack(packed: Any) -> str:
    if not isinstance(packed, str):
        raise ToolInputError("session", "a packed value is not text")
    try:
        raw = base64.b64decode(packed, validate=True)
    except binascii.Error as exc:
        raise ToolInputError("session", f"a packed value is corrupt ({exc})") from None
    return _unpacked_text(raw)


def _unpacked_text(raw: bytes) -> str:
    try:
        unpacker = lzma.LZMADecompressor()
        text = unpacker.decompress(raw, max_length=PACKED_MAX_BYTES)
    except (ValueError, lzma.LZMAError) as exc:
        raise ToolInputError("session", f"a packed value is corrupt ({exc})") from None
    if not unpacker.eof:
        raise ToolInputError(
            "session",
            f"a packed value is truncated or expands past {PACKED_MAX_BYTES // 2**20} MiB",
        )
    try:
        return text.decode("utf-8")
    except UnicodeDecodeError:
        raise ToolInputError("session", "a packed value is not UTF-8 text") from None


# --- migrations ------------------------------------------------------------------------------


def _from_format_1(data: dict[str, Any]) -> dict[str, Any]:
    """Format 1 is format 2 with nothing packed and every text written out: read as it is."""
    return {**data, FORMAT_KEY: 2}


def _from_format_2(data: dict[str, Any]) -> dict[str, Any]:
    """Format 2 is format 3 with the packed values in base 85: each one re-encoded."""
    messages = data.get("messages")
    if isinstance(messages, list):
        data = {**data, "messages": [_base64_packed(m) for m in messages]}
    return {**data, FORMAT_KEY: 3}


def _base64_packed(message: Any) -> Any:
    if not isinstance(message, dict):
        return message
    out = dict(message)
    for key in (RESULT_KEY, *(sections for sections, _ in _TEXT_OF_SECTIONS)):
        stored = out.get(key)
        if isinstance(stored, Mapping) and isinstance(stored.get(PACKED_KEY), str):
            try:
                raw = base64.b85decode(stored[PACKED_KEY])
            except ValueError as exc:
                raise ToolInputError("session", f"a packed value is corrupt ({exc})") from None
            out[key] = {**stored, PACKED_KEY: base64.b64encode(raw).decode("ascii")}
    return out


MIGRATIONS: dict[int, Callable[[dict[str, Any]], dict[str, Any]]] = {
    1: _from_format_1,
    2: _from_format_2,
}
"""Format N → the function turning a format-N file into format N + 1."""
