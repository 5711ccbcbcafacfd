"""llama.cpp builds as a request names them, and the build era each one falls in (issue 31
item 1: the engine version selects constants; an unknown one takes the newest, said so).

llama.cpp names a build three ways: a build number (`b3600`: the count of commits on master, in
every release tag and in llama-bench's `build: 858f6b73 (2797)` line), a commit hash, and since
August 2026 a semantic version (`v0.4.0`; ggml-org/llama.cpp PR 27477, 2026-08-21: 'prepare for
the first official semver release'; canonical/inference-snaps issue 339). A request may also
name the build's date or an era itself. The speed model's llama.cpp constants differ by era
(`engines.LLAMA_CPP_K_QUANT_ERAS`): "2023-24" for builds up to the end of 2024 (b4404 was the
latest release on 2024-12-31: janhq/cortex.llamacpp PR 355, 'update the llama.cpp submodule to
the latest release: b4404'), the newest builds' constants after it.

A build this module cannot date (a commit hash, a name it does not know) takes the newest
builds' constants, and its reading says so (`LlamaBuild.assumed`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

OLD_ERA = "2023-24"
"""The one older era (`engines.LLAMA_CPP_K_QUANT_ERAS`)."""

LAST_OLD_BUILD = 4404
"""The last llama.cpp release of 2024: janhq/cortex.llamacpp PR 355 (2024-12-31), 'the latest
release: b4404'."""

FIRST_YEAR = 2023
"""llama.cpp's first year (first commit March 2023): an earlier date names no build."""

_PREFIX = re.compile(r"^(?:llama[.\-_]?cpp\s*)?(?:build|release)?\s*:?\s*")
_NUMBER = re.compile(r"b?(\d{1,6})")
_DATE = re.compile(r"(20\d\d)(?:-(0[1-9]|1[0-2])(?:-(0[1-9]|[12]\d|3[01]))?)?")
_ERA = re.compile(r"2023-(?:20)?24")
_SEMVER = re.compile(r"v?(\d{1,3})\.(\d{1,4})(?:\.(\d{1,4}))?")
_NEWEST = ("latest", "newest", "master")
_HASH = re.compile(r"[0-9a-f]{7,40}")
_BENCH = re.compile(r"[0-9a-f]{7,40}\s*\((\d{1,6})\)")
_NAME = re.compile(r"[a-z0-9][a-z0-9._+\-]{0,39}")
_YEAR = re.compile(r"(?<!\d)(20\d\d)(?!\d)")


@dataclass(frozen=True)
class LlamaBuild:
    """A llama.cpp build as named, the era its constants come from, and how it was read."""

    text: str
    era: str | None
    """`OLD_ERA`, or None: the newest builds' constants."""
    reading: str
    """How the build was read, in words (the report's assumptions)."""
    assumed: bool = False
    """True when the build could not be dated: the newest builds' constants are assumed."""

    def statement(self) -> str:
        """The assumption line of a request that names this build."""
        if self.assumed:
            return (
                f"llama.cpp build '{self.text}' cannot be dated here ({self.reading}): assumed "
                "one of the newest builds (after 2024), timed with their constants and compared "
                "with their measurements; give its build number (b3600) or date (2024-05) for "
                "an older one."
            )
        if self.era == OLD_ERA:
            return (
                f"llama.cpp {self.text} ({self.reading}): a build of the 2023-24 era (up to "
                f"b{LAST_OLD_BUILD}, the last release of 2024): Apple K-quant decode timed "
                "with that era's constants, measurements of that era only."
            )
        return (
            f"llama.cpp {self.text} ({self.reading}): a build after 2024: the newest builds' "
            "constants, measurements dated after 2024 only."
        )


def era_of_year(year: int) -> str | None:
    """The era of a build made in `year`."""
    return OLD_ERA if year <= 2024 else None


def era_of_build(number: int) -> str | None:
    """The era of build number `number`."""
    return OLD_ERA if number <= LAST_OLD_BUILD else None


def era_of_date(text: str) -> str | None:
    """The era of the first year written in `text` (a row's source date: 'build 8e672ef
    (2023-11-21); thread opened …' is 2023), None when it names none (undated: the newest)."""
    found = _YEAR.search(text or "")
    return None if found is None else era_of_year(int(found.group(1)))


def read_llama_build(text: str) -> LlamaBuild | None:
    """The build `text` names ('b3600', 'build 2797', '2024-05', '2023-24', 'v0.4.0', a commit
    hash), None when it is no spelling of a llama.cpp build (or dates one before llama.cpp). A
    bare four-digit number from 2000 to 2099 is a year (say 'b2025' for that build)."""
    raw = " ".join(text.split())
    prefix = _PREFIX.match(raw.lower())
    said = "" if prefix is None else prefix.group(0)
    key = raw.lower()[len(said) :].strip()
    date = _DATE.fullmatch(key)
    if date and int(date.group(1)) < FIRST_YEAR:
        return None
    return _dated(raw, key, "build" in said or "release" in said) or _undated(raw, key)


def _dated(raw: str, key: str, build_said: bool) -> LlamaBuild | None:
    """A build named by its number (llama-bench's 'hash (number)' too), date, era or semantic
    version; `build_said`: the word 'build' or 'release' came before it."""
    if _ERA.fullmatch(key):
        return LlamaBuild(raw, OLD_ERA, "the era named")
    bench = _BENCH.fullmatch(key)
    if bench:
        key = bench.group(1)
    date = _DATE.fullmatch(key)
    if date and not ((build_said or bench) and date.group(2) is None):
        return LlamaBuild(raw, era_of_year(int(date.group(1))), f"built {key}")
    number = _NUMBER.fullmatch(key)
    if number:
        n = int(number.group(1))
        return LlamaBuild(raw, era_of_build(n), f"build {n}")
    if _SEMVER.fullmatch(key):
        return LlamaBuild(raw, None, "a semantic-version release (llama.cpp's since August 2026)")
    return None


def _undated(raw: str, key: str) -> LlamaBuild | None:
    """A build named so that it cannot be dated: the newest assumed."""
    if key in _NEWEST:
        return LlamaBuild(raw, None, "the newest build")
    if _HASH.fullmatch(key):
        return LlamaBuild(raw, None, "a commit hash", assumed=True)
    if _NAME.fullmatch(key):
        return LlamaBuild(raw, None, "not a build number, date or era", assumed=True)
    return None
