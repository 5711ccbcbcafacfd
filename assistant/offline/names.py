"""Find catalog model and GPU names inside free text.

The catalog's own look-up (`tools.catalog.Catalog.model/.gpu`) resolves a *given* name; here we
must first find where a name sits in a sentence ("serve Llama-3.1-70B on 2x H100s"). Each id,
name and alias becomes a pattern whose separators are loose (space, dash, underscore, colon,
dot), and the longest pattern wins, so "H200 NVL" beats "H200" and "Mistral 7B v0.3" beats
"Mistral 7B". GPU ids also contribute their leading parts ("a100" from "a100-80gb-sxm4"); a
part shared by several GPUs is a family whose variants are reported so the caller can tell
whether the choice matters.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from difflib import SequenceMatcher
from functools import cache
from itertools import pairwise

from assistant.regex_cache import compiled
from tools.catalog import Catalog, GpuSpec, get_catalog
from tools.errors import ToolInputError

_SEP = r"[\s\-_:./]*"
_CHUNK_RE = compiled(r"[a-z]+|\d+(?:\.\d+)?(?:x\d+)?[a-z]*")
_VENDOR_RE = compiled(r"^(nvidia|amd|intel)\s+", re.IGNORECASE)


_REGEX_CACHE = 256
"""Candidate-set regexes kept per index (a long session reads a few hundred texts)."""

_TIER_WORDS = frozenset({"ti", "super", "xt", "xtx", "pro", "max", "ultra", "plus"})
"""Words after a model number that make it another product ('4070 Ti', 'M3 Max', '7900 XTX'),
unlike memory or form-factor suffixes ('A100 80GB', 'H100 PCIe')."""


def _chunks(name: str) -> list[str]:
    """'Llama 3.1 70B' → ['llama', '3.1', '70b']; 'llama3.1:70b' → the same. A '+' that ends
    a name is a chunk of its own: 'Command R+' (104B) is not 'Command R' (35B)."""
    chunks: list[str] = _CHUNK_RE.findall(name.lower())
    return [*chunks, "+"] if chunks and name.rstrip().endswith("+") else chunks


def _key(text: str) -> str:
    return "".join(_chunks(text))


def _pattern(chunks: list[str]) -> str:
    """The chunks joined by loose separators — but a one-letter series word and its number
    ('A2', 'T4', 'H100') at most by a dash: 'a 2.65-bit model' names no A2."""
    out = re.escape(chunks[0]) if chunks else ""
    for before, chunk in pairwise(chunks):
        tight = len(before) == 1 and before.isalpha() and chunk[:1].isdigit()
        out += ("-?" if tight else _SEP) + re.escape(chunk)
    return out


# key → (catalog id or None, ids it could also mean, the name's chunks for the pattern)
_Entry = tuple[str | None, tuple[str, ...], list[str]]


@dataclass(frozen=True)
class NameMatch:
    """A catalog name found in text: `start`/`end` in the text, the entry id (None when the
    mention is a family with no default), and the ids it could also mean."""

    start: int
    end: int
    text: str
    id: str | None
    variants: tuple[str, ...] = ()


class _NameIndex:
    """One regex alternation of every name pattern, longest first. Compiling all of them is
    most of a cold start's parsing, so `find` compiles only the alternatives whose first
    chunk occurs in the text where a name can start and whose chunks, separators left out,
    occur in the text with its separators left out (the others cannot match there; order
    kept, so the first
    alternative that matches at each position, and the matches, are the same) and caches that
    regex by the set; text that is not ASCII (where case-insensitive matching folds
    characters such as 'K' to 'k') uses the whole alternation."""

    def __init__(self, keyed: dict[str, _Entry], plural: bool) -> None:
        self._keyed = keyed
        firsts = {_pattern(entry[2]): entry[2][0] for entry in keyed.values() if entry[2]}
        spelled = {_pattern(entry[2]): _squeezed("".join(entry[2])) for entry in keyed.values()}
        self._patterns = tuple(sorted(firsts, key=len, reverse=True))
        self._first = tuple(firsts[p] for p in self._patterns)
        self._firsts = frozenset(self._first)
        self._spelled = tuple(spelled[p] for p in self._patterns)
        self._plural = plural
        self._compiled: dict[tuple[str, ...], re.Pattern[str]] = {}

    def _regex(self, patterns: tuple[str, ...]) -> re.Pattern[str]:
        cached = self._compiled.get(patterns)
        if cached is not None:
            return cached
        tail = r"(?:'?s)?" if self._plural else ""
        # A GPU name followed by a tier word is another card ('3070 Ti' is not the 3070): no
        # match, so the words are asked about unless the catalog has that card (longer names
        # are tried first).
        # Not 'plus': no GPU is sold as '… Plus', and 'a 3090 plus 64GB of RAM' is the 3090.
        tier = _SEP + r"(?:" + "|".join(sorted(_TIER_WORDS - {"plus"})) + r")\b"
        not_tier = rf"(?!{tier})" if self._plural else ""
        regex = re.compile(
            r"(?<![a-z0-9])(?:"
            + ("|".join(patterns) or r"(?!)")
            + r")"
            + tail
            + r"(?![a-z0-9]|[.,]\d)"
            + not_tier,
            re.IGNORECASE,
        )
        if len(self._compiled) >= _REGEX_CACHE:
            self._compiled.clear()
        self._compiled[patterns] = regex
        return regex

    def _candidates(self, text: str) -> tuple[str, ...]:
        if not text.isascii():
            return self._patterns
        lowered = text.lower()
        said = {first for first in self._firsts if _at_word_start(lowered, first)}
        squeezed = _squeezed(lowered)
        rows = zip(self._patterns, self._first, self._spelled, strict=True)
        return tuple(p for p, first, spelled in rows if first in said and spelled in squeezed)

    def _matches(self, text: str) -> Iterator[re.Match[str]]:
        """The names in `text`, left to right; where a longer name starts inside one found
        ('Tesla V100-SXM2-32GB': 'Tesla V100', then 'V100-SXM2-32GB'), the longer one."""
        regex = self._regex(self._candidates(text))
        pos = 0
        while (m := regex.search(text, pos)) is not None:
            for start in range(m.start() + 1, m.end()):
                longer = regex.match(text, start)
                if longer is not None and longer.end() > m.end():
                    m = longer
            yield m
            pos = m.end()

    def find(self, text: str) -> list[NameMatch]:
        found: list[NameMatch] = []
        for m in self._matches(text):
            if len(_key(m.group(0))) <= 3 and m.start() > 0 and text[m.start() - 1] in "-/.":
                continue  # a short name inside another one ('bge-m3', 'e5-l4') is not it
            key = _key(m.group(0))
            entry = self._keyed.get(key) or self._keyed.get(key.removesuffix("s"))
            if entry is None:
                continue
            found.append(NameMatch(m.start(), m.end(), m.group(0), entry[0], entry[1]))
        return found


_SEPARATORS = re.compile(_SEP.replace("*", "+"))


def _squeezed(text: str) -> str:
    """`text` without the separators a pattern allows between (and inside: '3.1') its chunks:
    what a pattern matches, squeezed, is its chunks joined and squeezed, and a substring of the
    squeezed text — so a pattern whose squeezed chunks are not in it cannot match there."""
    return _SEPARATORS.sub("", text)


def _at_word_start(lowered: str, chunk: str) -> bool:
    """`chunk` occurs in `lowered` where a name can start: not after a letter or digit (the
    alternation's own look-behind). Every pattern starts with its first chunk, so one whose
    first chunk is only inside words ('a' of 'llama', 'm' of 'model') cannot match: leaving it
    out keeps the regex compiled per text small and shared by more texts (a GPU alternation
    over every candidate took ~6 ms to compile, most of a reading)."""
    at = lowered.find(chunk)
    while at >= 0:
        before = lowered[at - 1] if at else " "
        if not (before.isascii() and before.isalnum()):
            return True
        at = lowered.find(chunk, at + 1)
    return False


def _model_keys(catalog: Catalog) -> dict[str, _Entry]:
    keyed: dict[str, _Entry] = {}
    for entry in catalog.models.values():
        for name in (entry.id, entry.name, *entry.aliases):
            # "meta-llama/Llama-3.1-70B-Instruct": the repo part alone is also how people write it.
            for form in {name, name.rsplit("/", 1)[-1]}:
                key = _key(form)
                if key and not key.isdigit():
                    keyed.setdefault(key, (entry.id, (), _chunks(form)))
    return keyed


def _gpu_keys(catalog: Catalog) -> dict[str, _Entry]:
    keyed: dict[str, _Entry] = {}
    for entry in catalog.gpus.values():
        name = compiled(r"\(.*?\)").sub("", _VENDOR_RE.sub("", entry.name))
        for form in (entry.id, name, *entry.aliases):
            key = _key(form)
            # A digit marks a GPU name ("H100"); a name of two words or more without one
            # ("DGX Spark", "Strix Halo") is specific enough too.
            if key and (any(ch.isdigit() for ch in key) or len(_chunks(form)) > 1):
                keyed.setdefault(key, (entry.id, (), _chunks(form)))
    # Leading parts of ids name a family: "a100" covers four A100 variants. A prefix that
    # stops before a tier word is another card, not a family: "RTX 5060" is not the catalog's
    # RTX 5060 Ti (8 GB only, not 16), so it stays unknown and is asked about.
    families: dict[str, tuple[list[str], list[str]]] = {}
    for gpu_id in catalog.gpus:
        parts = _chunks(gpu_id)
        for n in range(1, len(parts)):
            prefix = "".join(parts[:n])
            if parts[n] in _TIER_WORDS:
                continue
            if any(ch.isdigit() for ch in prefix):
                families.setdefault(prefix, (parts[:n], []))[1].append(gpu_id)
    for prefix, (chunks, ids) in families.items():
        variants = tuple(sorted(set(ids)))
        if prefix in keyed:
            default = keyed[prefix][0]
            keyed[prefix] = (default, variants if len(variants) > 1 else (), keyed[prefix][2])
            continue
        if len(variants) == 1:
            keyed[prefix] = (variants[0], (), chunks)
            continue
        try:
            default_id: str | None = catalog.gpu(prefix).id
        except ToolInputError:
            default_id = None
        keyed[prefix] = (default_id, variants, chunks)
    # Words that name a card but not its memory ('Tesla V100', 'A100 PCIe', '3080', 'Grace
    # Hopper') resolve to one memory variant: the others (the same id but for its memory size)
    # are its variants, so the reading is said, or asked about when the verdicts differ.
    memory_siblings = _Siblings(catalog)
    for key, (entry_id, variants, chunks) in keyed.items():
        if entry_id is None or variants or _says_memory(chunks):
            continue
        siblings = memory_siblings.of(entry_id)
        if len(siblings) > 1:
            keyed[key] = (entry_id, siblings, chunks)
    _sold_with_the_memory_said(catalog, keyed, families)
    return keyed


def _sold_with_the_memory_said(
    catalog: Catalog, keyed: dict[str, _Entry], families: dict[str, tuple[list[str], list[str]]]
) -> None:
    """A family named with its memory ('H100 80GB', 'V100 16GB', 'H200 141GB') is every member
    sold with that memory (the SXM and the PCIe card), not the one an alias points to: the form
    factor was not said, so the reading is said, or asked about where the verdicts differ."""
    for key, (entry_id, variants, chunks) in keyed.items():
        if entry_id is None or variants or not _says_memory(chunks):
            continue
        product = "".join(c for c in chunks if not _MEMORY_WORD.fullmatch(c))
        family = families.get(product)
        if family is None:
            continue
        memory = catalog.gpus[entry_id].memory_bytes
        sold = sorted(i for i in family[1] if catalog.gpus[i].memory_bytes == memory)
        if len(sold) > 1 and entry_id in sold:
            keyed[key] = (entry_id, tuple(sold), chunks)


_MEMORY_WORD = compiled(r"\d+gb|hbm\w*|gddr\w*")
"""A chunk of a GPU name that says its memory ('80gb', 'hbm3e')."""


def _says_memory(chunks: list[str]) -> bool:
    """The name's chunks say its memory: '80gb', 'hbm3e', or a number then 'gb' ('8', 'gb' of
    'RTX 4060 Ti 8 GB')."""
    return any(
        _MEMORY_WORD.fullmatch(c) or (c.isdigit() and chunks[i + 1 : i + 2] == ["gb"])
        for i, c in enumerate(chunks)
    )


class _Siblings:
    """`of(gpu_id)`: the id and the catalog GPUs whose ids differ from it only in the memory
    size ('a100-80gb-pcie', 'a100-40gb-pcie'); for a unified-memory chip, its RAM
    configurations ('apple-m3-pro', 'apple-m3-pro-18gb'). Grouped once per catalog."""

    def __init__(self, catalog: Catalog) -> None:
        self._catalog = catalog
        self._products = _by_product(catalog)
        self._configurations = _configurations(catalog)

    def of(self, gpu_id: str) -> tuple[str, ...]:
        spec = self._catalog.gpus[gpu_id]
        if spec.unified_memory is not None:
            return self._configurations.get(spec.configuration_of or spec.id, ())
        return self._products.get(_product(gpu_id), ())


def _product(gpu_id: str) -> tuple[str, ...]:
    """An id's chunks less those that say its memory: what memory variants share."""
    return tuple(c for c in _chunks(gpu_id) if not _MEMORY_WORD.fullmatch(c))


def _by_product(catalog: Catalog) -> dict[tuple[str, ...], tuple[str, ...]]:
    """Product chunks → the ids of the catalog GPUs (not configurations) sharing them, sorted."""
    grouped: dict[tuple[str, ...], list[str]] = {}
    for gpu in catalog.gpus.values():
        if gpu.configuration_of is None:
            grouped.setdefault(_product(gpu.id), []).append(gpu.id)
    return {key: tuple(sorted(ids)) for key, ids in grouped.items()}


def _configurations(catalog: Catalog) -> dict[str, tuple[str, ...]]:
    """A unified-memory chip's id → its id and its RAM configurations' ids, sorted."""
    grouped: dict[str, list[str]] = {}
    for gpu in catalog.gpus.values():
        grouped.setdefault(gpu.id, []).append(gpu.id)
        if gpu.configuration_of is not None:
            grouped.setdefault(gpu.configuration_of, []).append(gpu.id)
    return {key: tuple(sorted(set(ids))) for key, ids in grouped.items()}


@cache
def model_index() -> _NameIndex:
    """Patterns for every catalog model id, name and alias (built once per process)."""
    return _NameIndex(_model_keys(get_catalog()), plural=False)


@cache
def gpu_index() -> _NameIndex:
    """Patterns for every catalog GPU id, name, alias and id family (built once per process)."""
    return _NameIndex(_gpu_keys(get_catalog()), plural=True)


@cache
def model_families() -> dict[str, tuple[str, ...]]:
    """First word of each catalog model name → the model ids of that family ('llama' → ...)."""
    families: dict[str, list[str]] = {}
    for entry in get_catalog().models.values():
        word = _chunks(entry.name)[0]
        families.setdefault(word, []).append(entry.id)
    return {word: tuple(ids) for word, ids in families.items()}


# A word this close (difflib ratio, 0–1) to a catalog family word, with the same first letter
# and at least four letters, is that family misspelt: 'lamma' 0.80 and 'lama' 0.89 to 'llama',
# 'mixtrall' 0.93 to 'mixtral', 'qween' 0.89 to 'qwen'; 'lambda' scores 0.73.
_FAMILY_TYPO_RATIO = 0.75
_SIZE_CHUNK = compiled(r"^\d+(?:\.\d+)?(?:x\d+)?[bm]$")


def corrected_family(word: str) -> str | None:
    """The catalog family a misspelt word names ('lamma' → 'llama', 'mixtrall' → 'mixtral');
    None for a family word spelt right, a short word, or one close to no family."""
    word = word.lower()
    families = model_families()
    if word in families or len(word) < 4:
        return None
    scored = [
        (SequenceMatcher(None, word, family).ratio(), family)
        for family in families
        if family[0] == word[0]
    ]
    best = max(scored, default=(0.0, ""))
    return best[1] if best[0] >= _FAMILY_TYPO_RATIO else None


@dataclass(frozen=True)
class NameParts:
    """A catalog model name cut into family word, version and size ('Llama 3.1 70B' →
    llama, 3.1, 70b; 'Mixtral 8x7B' → mixtral, None, 8x7b)."""

    id: str
    family: str
    version: str | None
    size: str


@cache
def model_name_parts() -> tuple[NameParts, ...]:
    """Family, version and size of every catalog model name and plain alias (Hugging Face ids
    left out), in catalog order; names without a size ('DeepSeek-V3') are left out."""
    parts: list[NameParts] = []
    for entry in get_catalog().models.values():
        for name in (entry.name, *entry.aliases):
            if "/" in name or ":" in name:
                continue
            chunks = _chunks(name)
            sizes = [i for i, c in enumerate(chunks) if _SIZE_CHUNK.match(c)]
            if not chunks or not chunks[0].isalpha() or not sizes:
                continue
            between = chunks[1 : sizes[0]]
            version = between[0] if len(between) == 1 and between[0][0].isdigit() else None
            if between and version is None:
                continue  # a qualifier before the size ('Phi-3 mini 4k'): not this shape
            found = NameParts(entry.id, chunks[0], version, chunks[sizes[0]])
            if found not in parts:
                parts.append(found)
    return tuple(parts)


# Consumer (gaming / desktop) cards are sold under these brands: NVIDIA's GeForce line (its
# workstation and data-center parts are RTX / RTX PRO / Tesla-class names) and AMD's Radeon RX.
# The catalog has no market-segment field, so the catalog name is the evidence.
CONSUMER_BRANDS: tuple[str, ...] = ("GeForce", "Radeon RX")


def names_a_gpu(text: str) -> bool:
    """Whether `text` names a catalog GPU ('A100', 'two 3090s'): one of its name matches has
    a catalog id."""
    return any(found.id is not None for found in gpu_index().find(text))


def is_consumer_gpu(gpu: GpuSpec) -> bool:
    """True for a consumer (gaming / desktop) card: its catalog name carries a consumer brand."""
    return any(brand.lower() in gpu.name.lower() for brand in CONSUMER_BRANDS)


def gpus_with_capacity(memory_bytes: int | None, consumer: bool = False) -> list[str]:
    """Catalog GPU ids marketed with exactly `memory_bytes` (a '48 GB GPU'; bytes, GB = 1e9),
    only consumer cards when `consumer`; None leaves the capacity open. Catalog order. A card
    described by its memory is a discrete one: unified-memory machines (a 24 GB Mac) are named
    by their chip instead, and laptop GPUs (ids '-laptop') by their laptop name: 'a 24 GB card'
    is a card, not a laptop's RTX 5090."""
    return [
        gpu.id
        for gpu in get_catalog().gpus.values()
        if (memory_bytes is None or gpu.memory_bytes == memory_bytes)
        and (not consumer or is_consumer_gpu(gpu))
        and gpu.unified_memory is None
        and not gpu.id.endswith("-laptop")
    ]
