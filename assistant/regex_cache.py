"""Compiled regular expressions kept across processes: the offline parser's patterns, compiled
once per interpreter instead of at every start.

CPython compiles a pattern in pure Python (`re._parser`, `re._compiler`), and the parser's and
the reading layer's ~300 patterns are long (every quantity spelled out): ~50 ms of each
`ask --offline`.
What the compiler produces — the SRE code, a list of integers, with the final flags and the
groups — is plain data, which `_sre.compile` turns into a pattern object in microseconds.
`compiled(pattern, flags)` keeps that data:

- one JSON file per interpreter in the user cache folder (`tools/cache_files.py`;
  `GPU_SIZER_CACHE_DIR` overrides), `regex/<cache_tag>-<key hash>.json`, keyed by the
  interpreter's `sys.version`, `sys.implementation.cache_tag`, `_sre.MAGIC` and code size: SRE
  code is the interpreter's private format, so another version or build never reads it;
- an entry is recorded only when the pattern built from it compares equal to `re.compile`'s
  (`Pattern.__eq__` compares the pattern, the flags and the code), so the file holds only what
  this interpreter itself produced;
- checked on load: the SHA-256 of the entries against the file's header (a damaged, truncated
  or half-written file is ignored whole), the format and the key, each entry's shape; `_sre`
  refuses code it finds invalid, and anything refused is compiled by `re.compile`, as with no
  cache. `_sre` does not check every possible code, so the file is trusted as the interpreter
  trusts its own `__pycache__`: written by this program in the user's own folder, checked
  against damage, not against someone who can already write the user's files;
- written at exit, only when this process compiled a pattern the file lacked: the file is read
  again and merged (another process's new entries kept), at most `MAX_ENTRIES` (those this
  process used or compiled kept first, so a parser's old patterns age out),
  through a temporary file and `os.replace`, so a reader sees a whole file, never a part;
- CPython 3.11 to 3.13 only, whose `_sre.compile` takes (pattern, flags, code, groups,
  groupindex, indexgroup); elsewhere `compiled` is `re.compile`.

Only fixed patterns belong here (the parser's own): a pattern built from what a user typed
would be a new entry per question.
"""

from __future__ import annotations

import atexit
import base64
import hashlib
import importlib
import json
import re
import sys
import threading
from array import array
from pathlib import Path
from typing import Any

from tools.cache_files import user_cache_dir, write_atomically

FORMAT = 1
"""The layout of a cache file (its header's `format`)."""

MAX_ENTRIES = 1024
"""Patterns kept in the file (and in memory), at most: the 355 questions of bench.reading use
299. Reading an entry costs ~9 µs, so the patterns older versions of the parser used, which
stay in the file until the cap pushes them out, cost a start at most ~10 ms."""

MAX_FILE_BYTES = 16 * 2**20
"""A cache file larger than this is not read (1,024 entries are ~2 MB)."""

_sre: Any = importlib.import_module("_sre")

CODE_TYPE = "I"
"""The array type of SRE code in a file (base 64 of its bytes: read ten times faster than a
JSON list of the same integers), which must be `_sre.CODESIZE` bytes wide."""

SUPPORTED = (
    sys.implementation.name == "cpython"
    and (3, 11) <= sys.version_info[:2] <= (3, 13)
    and array(CODE_TYPE).itemsize == getattr(_sre, "CODESIZE", 0)
)
"""Whether this interpreter's compiled code is cached (else `compiled` is `re.compile`)."""

_parser: Any = importlib.import_module("re._parser") if SUPPORTED else None
_compiler: Any = importlib.import_module("re._compiler") if SUPPORTED else None

KEY = "|".join(
    (
        sys.version,
        sys.implementation.cache_tag or "",
        str(getattr(_sre, "MAGIC", "")),
        str(getattr(_sre, "CODESIZE", "")),
        sys.byteorder,
    )
)
"""The interpreter a cache file's code is for."""

Entry = list[Any]
"""[pattern, flags, final flags, code, groups, groupindex]: `_sre.compile`'s arguments, the
code as the base 64 of its `CODE_TYPE` array."""

_REFUSED = (RuntimeError, TypeError, ValueError, OverflowError, MemoryError)
"""What `_sre.compile` raises for code it will not run."""


def cache_file() -> Path:
    """This interpreter's cache file (not created here)."""
    digest = hashlib.sha256(KEY.encode("utf-8")).hexdigest()[:16]
    return user_cache_dir("regex") / f"{sys.implementation.cache_tag}-{digest}.json"


class RegexCache:
    """Compiled patterns of one cache file: those read from it, those compiled here."""

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._patterns: dict[tuple[str, int], re.Pattern[str]] = {}
        self._stored: dict[tuple[str, int], Entry] | None = None
        self._recorded: dict[tuple[str, int], Entry] = {}
        self._used: set[tuple[str, int]] = set()
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        """The file read and written (the user cache's unless given)."""
        if self._path is None:
            self._path = cache_file()
        return self._path

    def compiled(self, pattern: str, flags: int = 0) -> re.Pattern[str]:
        """`re.compile(pattern, flags)`, built from the cached code when the file has it."""
        if not SUPPORTED:
            return re.compile(pattern, flags)
        key = (pattern, int(flags))
        found = self._patterns.get(key)
        if found is not None:
            return found
        with self._lock:
            if self._stored is None:
                self._stored = read_entries(self.path)
            entry = self._stored.get(key)
            found = build(entry) if entry is not None else None
            if found is None:
                found = self._compile_and_record(key)
            else:
                self._used.add(key)
            if len(self._patterns) < MAX_ENTRIES:
                self._patterns[key] = found
        return found

    def _compile_and_record(self, key: tuple[str, int]) -> re.Pattern[str]:
        pattern, flags = key
        result = re.compile(pattern, flags)
        if flags & re.DEBUG or len(self._recorded) >= MAX_ENTRIES:
            return result
        entry = compiler_entry(pattern, flags)
        if entry is not None and build(entry) == result:
            if not self._recorded:
                atexit.register(self.save)
            self._recorded[key] = entry
        return result

    def save(self) -> bool:
        """Write the patterns compiled here that the file lacked, merged into the file as it
        is now, newest last: the file's entries this process did not use, those it used, those
        it compiled; over `MAX_ENTRIES` the oldest go. True when a file was written."""
        with self._lock:
            recorded, self._recorded = self._recorded, {}
            used = set(self._used)
        if not recorded:
            return False
        entries = read_entries(self.path)
        for key in recorded:
            entries.pop(key, None)
        unused = [e for k, e in entries.items() if k not in used]
        merged = [*unused, *(e for k, e in entries.items() if k in used), *recorded.values()]
        return write_atomically(self.path, file_text(merged[-MAX_ENTRIES:]))


def compiler_entry(pattern: str, flags: int) -> Entry | None:
    """What `re._compiler.compile` hands `_sre.compile` for this pattern (None when the
    compiler's internals are not as expected)."""
    try:
        parsed = _parser.parse(pattern, flags)
        code = array(CODE_TYPE, _compiler._code(parsed, flags))
        state = parsed.state
        groups, groupindex = state.groups - 1, dict(state.groupdict)
    except (AttributeError, TypeError, ValueError, OverflowError, re.error, RecursionError):
        return None
    packed = base64.b64encode(code.tobytes()).decode("ascii")
    return [pattern, flags, flags | state.flags, packed, groups, groupindex]


def build(entry: Entry) -> re.Pattern[str] | None:
    """The pattern object of a well-formed entry; None when `_sre` refuses it."""
    pattern, _, final_flags, packed, groups, groupindex = entry
    code = array(CODE_TYPE)
    try:
        code.frombytes(base64.b64decode(packed, validate=True))
    except ValueError:  # binascii.Error is one; so is a length that is not whole codes
        return None
    if groups > len(code):  # every group needs its marks in the code
        return None
    indexgroup: list[str | None] = [None] * (groups + 1)
    for name, index in groupindex.items():
        if not isinstance(index, int) or not 1 <= index <= groups:
            return None
        indexgroup[index] = name
    try:
        built = _sre.compile(
            pattern, final_flags, code.tolist(), groups, groupindex, tuple(indexgroup)
        )
    except _REFUSED:
        return None
    if not isinstance(built, re.Pattern) or built.pattern != pattern or built.groups != groups:
        return None
    return built


def well_formed(entry: Any) -> bool:
    """Whether a file's entry has `Entry`'s shape (the code's values are `_sre`'s to check)."""
    if not isinstance(entry, list) or len(entry) != 6:
        return False
    pattern, flags, final_flags, code, groups, groupindex = entry
    return (
        isinstance(pattern, str)
        and all(type(n) is int for n in (flags, final_flags, groups))
        and isinstance(code, str)
        and groups >= 0
        and isinstance(groupindex, dict)
        and all(isinstance(name, str) for name in groupindex)
    )


def file_text(entries: list[Entry]) -> str:
    """A cache file: a header line (format, key, SHA-256 of the rest), then the entries."""
    body = json.dumps(entries, separators=(",", ":"))  # ASCII: any pattern encodes
    digest = hashlib.sha256(body.encode("ascii")).hexdigest()
    header = json.dumps({"format": FORMAT, "key": KEY, "sha256": digest})
    return f"{header}\n{body}"


def read_entries(path: Path) -> dict[tuple[str, int], Entry]:
    """The well-formed entries of a cache file, by (pattern, flags); none when the file is
    missing, damaged, of another format or for another interpreter."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return {}
        raw = path.read_bytes()
    except OSError:
        return {}
    head, newline, body = raw.partition(b"\n")
    try:
        header = json.loads(head) if newline else None
        # Exactly the header `file_text` writes: this format, this interpreter, this body.
        digest = hashlib.sha256(body).hexdigest()
        fits = header == {"format": FORMAT, "key": KEY, "sha256": digest}
        entries = json.loads(body) if fits else None
    except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
        return {}
    if not isinstance(entries, list):
        return {}
    return {(e[0], e[1]): e for e in entries[-MAX_ENTRIES:] if well_formed(e)}


_DEFAULT = RegexCache()


def compiled(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """`re.compile(pattern, flags)` through the user cache (see the module docstring)."""
    return _DEFAULT.compiled(pattern, flags)
