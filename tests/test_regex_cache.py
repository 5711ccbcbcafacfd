"""The compiled-regex cache (assistant/regex_cache.py): a pattern read from the file is the
pattern `re.compile` makes, and a file that is damaged, for another interpreter, refused by
`_sre`, written by two processes at once or over the cap never changes what matches."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
import threading
from array import array
from pathlib import Path

import pytest

from assistant import regex_cache
from assistant.offline.parser.text import Q, Text
from assistant.regex_cache import RegexCache, read_entries

pytestmark = pytest.mark.skipif(not regex_cache.SUPPORTED, reason="CPython 3.11-3.13 only")

SIZE = r"(?P<size>\d+(?:\.\d+)?)\s*(?P<unit>[bm])\b"
PATTERNS = [
    (SIZE, re.I),
    (r"\b(\d{1,3})\s*[x×]\s*(h100|a100)\b", re.I),
    (rf"\bfor\s+{Q}\s+users\b", re.I),
    (r"^\s*$", re.M),
    (r"é+(?=ü)", 0),  # not ASCII: the file is written in ASCII escapes
]


def _saved(path: Path, patterns: list[tuple[str, int]]) -> None:
    writer = RegexCache(path)
    for pattern, flags in patterns:
        writer.compiled(pattern, flags)
    assert writer.save()


def _entries_built_from_file(path: Path) -> int:
    return len(read_entries(path))


def test_a_pattern_read_back_is_the_compiled_pattern(tmp_path: Path) -> None:
    path = tmp_path / "regex.json"
    _saved(path, PATTERNS)
    reader = RegexCache(path)
    for pattern, flags in PATTERNS:
        assert reader.compiled(pattern, flags) == re.compile(pattern, flags)  # code compared
    assert not reader.save()  # nothing new: the file is not written again
    # Hand-read: "Llama 70 B" has the size 70 at characters 6-8 and the unit B at 9.
    match = reader.compiled(SIZE, re.I).search("Llama 70 B on one GPU")
    assert match is not None
    assert (match.group("size"), match.group("unit"), match.span()) == ("70", "B", (6, 10))
    assert reader.compiled(SIZE, re.I).groupindex == {"size": 1, "unit": 2}


def test_the_scanner_reads_the_same_with_and_without_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(regex_cache, "_DEFAULT", RegexCache(tmp_path / "regex.json"))
    question = "Llama 3 70B on 2x H100 for 50 users, 8k context"
    pattern = r"\b(\d+)\s*x\s*(h100)\b"

    def spans() -> list[tuple[int, int]]:
        return [m.span() for m in Text(question).each(pattern)]

    first = spans()  # compiled, recorded
    regex_cache._DEFAULT.save()
    monkeypatch.setattr(regex_cache, "_DEFAULT", RegexCache(tmp_path / "regex.json"))
    assert spans() == first == [(15, 22)]  # '2x H100' starts at character 15, seven long


def test_patterns_are_recorded_only_when_read_back_equal(tmp_path: Path) -> None:
    path = tmp_path / "regex.json"
    _saved(path, PATTERNS)
    entries = read_entries(path)
    assert sorted(entries) == sorted((p, int(f)) for p, f in PATTERNS)
    for (pattern, flags), entry in entries.items():
        assert regex_cache.build(entry) == re.compile(pattern, flags)


def _damaged(text: str) -> list[str]:
    header, body = text.split("\n", 1)
    fields = json.loads(header)
    return [
        "",
        "not json at all",
        header,  # no entries
        header + "\n" + body[: len(body) // 2],  # cut short: the digest does not match
        header + "\n" + body.replace("b", "c", 1),  # one character changed
        json.dumps({**fields, "key": "3.12.1 (another build)"}) + "\n" + body,
        json.dumps({**fields, "format": 99}) + "\n" + body,
        "[" * 100_000 + "\n" + body,
    ]


@pytest.mark.parametrize("damage", range(8))
def test_a_damaged_file_is_ignored_and_written_whole_again(tmp_path: Path, damage: int) -> None:
    path = tmp_path / "regex.json"
    _saved(path, PATTERNS)
    path.write_text(_damaged(path.read_text())[damage])
    cache = RegexCache(path)
    for pattern, flags in PATTERNS:
        assert cache.compiled(pattern, flags) == re.compile(pattern, flags)
    assert cache.save()
    assert _entries_built_from_file(path) == len(PATTERNS)


def _forged(entries: list[list[object]]) -> str:
    return regex_cache.file_text(entries)  # a valid digest over entries that are not


def _packed(code: list[int]) -> str:
    return base64.b64encode(array(regex_cache.CODE_TYPE, code).tobytes()).decode("ascii")


GROUPS = {"size": 1, "unit": 2}


@pytest.mark.parametrize(
    "entry",
    [
        [SIZE, 2, 34, _packed([1, 2, 3, 999_999, 7]), 2, GROUPS],  # _sre: invalid SRE code
        [SIZE, 2, 34, "not base 64!", 2, GROUPS],
        [SIZE, 2, 34, "AAA=", 2, GROUPS],  # 2 bytes: not a whole code
        [SIZE, 2, 34, _packed([1, 2, 3]), 2, {"size": 9, "unit": 2}],  # group out of range
        [SIZE, 2, 34, _packed([1, 2, 3]), 10**9, {}],  # more groups than codes
        [SIZE, 2, 34, [1, 2, 3], 2, GROUPS],  # a list, not the packed code
        [SIZE, "2", 34, _packed([1, 2, 3]), 2, GROUPS],
        [SIZE, 2],
    ],
)
def test_an_entry_sre_refuses_is_compiled_as_without_a_cache(
    tmp_path: Path, entry: list[object]
) -> None:
    assert not regex_cache.well_formed(entry) or regex_cache.build(entry) is None
    path = tmp_path / "regex.json"
    path.write_text(_forged([entry]))
    cache = RegexCache(path)
    assert cache.compiled(SIZE, re.I) == re.compile(SIZE, re.I)
    cache.save()
    assert regex_cache.build(read_entries(path)[(SIZE, 2)]) == re.compile(SIZE, re.I)


def test_another_interpreter_has_its_own_file(monkeypatch: pytest.MonkeyPatch) -> None:
    mine = regex_cache.cache_file()
    monkeypatch.setattr(regex_cache, "KEY", regex_cache.KEY + "|another build")
    assert regex_cache.cache_file() != mine
    assert regex_cache.cache_file().parent == mine.parent


def test_concurrent_writers_keep_both_their_patterns(tmp_path: Path) -> None:
    path = tmp_path / "regex.json"
    first, second = RegexCache(path), RegexCache(path)
    first.compiled(*PATTERNS[0])
    second.compiled(*PATTERNS[1])  # read the file before the first one wrote it
    assert first.save() and second.save()  # the second merges the file as it is now
    assert sorted(read_entries(path)) == sorted((p, int(f)) for p, f in PATTERNS[:2])


def test_writers_at_the_same_moment_leave_one_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "regex.json"
    caches = [RegexCache(path) for _ in PATTERNS]
    for cache, (pattern, flags) in zip(caches, PATTERNS, strict=True):
        cache.compiled(pattern, flags)
    threads = [threading.Thread(target=cache.save) for cache in caches]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert 1 <= _entries_built_from_file(path) <= len(PATTERNS)  # whole, whoever won
    assert [p.name for p in tmp_path.iterdir()] == ["regex.json"]  # no temporary file left


def test_the_file_keeps_the_newest_entries_up_to_the_cap(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(regex_cache, "MAX_ENTRIES", 3)
    path = tmp_path / "regex.json"
    _saved(path, PATTERNS[:2])
    _saved(path, PATTERNS[2:4])
    kept = sorted(read_entries(path))
    assert kept == sorted((p, int(f)) for p, f in PATTERNS[1:4])  # the oldest one dropped


def test_over_the_cap_the_patterns_this_process_used_stay(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # An old parser's patterns age out: the file keeps what the latest process used first.
    monkeypatch.setattr(regex_cache, "MAX_ENTRIES", 3)
    path = tmp_path / "regex.json"
    _saved(path, PATTERNS[:2])
    cache = RegexCache(path)
    cache.compiled(*PATTERNS[0])  # read from the file: used
    for pattern, flags in PATTERNS[2:4]:
        cache.compiled(pattern, flags)  # new
    assert cache.save()
    kept = sorted(read_entries(path))
    assert kept == sorted((p, int(f)) for p, f in (PATTERNS[0], *PATTERNS[2:4]))  # 1 dropped


def test_a_file_past_the_size_limit_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "regex.json"
    _saved(path, PATTERNS)
    monkeypatch.setattr(regex_cache, "MAX_FILE_BYTES", path.stat().st_size - 1)
    assert read_entries(path) == {}
    cache = RegexCache(path)
    assert cache.compiled(SIZE, re.I) == re.compile(SIZE, re.I)


def test_an_unwritable_folder_only_means_compiling(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = RegexCache(blocker / "regex.json")
    assert cache.compiled(SIZE, re.I) == re.compile(SIZE, re.I)
    assert not cache.save()


def test_elsewhere_it_is_re_compile(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(regex_cache, "SUPPORTED", False)
    cache = RegexCache(tmp_path / "regex.json")
    assert cache.compiled(SIZE, re.I) is re.compile(SIZE, re.I)  # re's own cache
    assert not cache.save()
    assert not (tmp_path / "regex.json").exists()


_PARSE = (
    "from assistant.offline.parser.pipeline import parse_workload\n"
    "for q in ['Llama 3 70B on 2x H100 for 50 users, 8k context',\n"
    "          'embed 10M documents with bge-m3 on an L4 by tomorrow',\n"
    "          'fine-tune Mistral 7B with QLoRA on my 4090, 100k examples of 2k tokens',\n"
    "          'budget 5000 EUR a month, what can my 3090 run?']:\n"
    "    parse_workload(q)\n"
)


def test_the_parser_caches_the_same_patterns_in_every_process(tmp_path: Path) -> None:
    # A pattern whose text depends on set order (string hashes are salted per process) would
    # be a new entry at every start: the file would grow by one each run and never hit.
    keys = []
    for seed in ("1", "2"):
        env = {
            "PYTHONHASHSEED": seed,
            "GPU_SIZER_CACHE_DIR": str(tmp_path / seed),
            "GPU_SIZER_DATA_DIR": str(tmp_path / "data"),
            "PYTHONPATH": str(Path(__file__).resolve().parent.parent),
            "PATH": "/usr/bin:/bin",
        }
        subprocess.run([sys.executable, "-c", _PARSE], env=env, check=True, timeout=120)
        (written,) = (tmp_path / seed / "regex").glob("*.json")
        keys.append(set(read_entries(written)))
    assert len(keys[0]) > 100  # the parser's patterns were cached at all
    assert keys[0] == keys[1]
