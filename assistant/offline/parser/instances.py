"""Cloud instance names as the GPUs they hold: 'g5.48xlarge' is 8× A10G, 'p4d.24xlarge' 8×
A100 40GB, 'a2-highgpu-1g' one A100 40GB, 'ND96isr_H100_v5' 8× H100 — from the price catalog's
rows, which name each instance with its GPU and GPUs per instance (catalog/prices.toml, each
row sourced). A size the catalog does not list ('g5.4xlarge') is read from its family's GPU,
its count left open unless said beside it ('g5.4xlarge (1 A10 GPU 24GB)')."""

from __future__ import annotations

import re
from functools import cache

from assistant.offline.parser.text import Text, positive_int
from assistant.reading.parsed import GpuMention, ParsedWorkload
from assistant.reading.quantities import NUMBER, WORD_NUMBER
from assistant.regex_cache import compiled
from tools.pricing import builtin_price_book

_INSTANCE_LIKE = re.compile(
    r"^(?:[gp]\d[a-z]*(?:-[a-z]\d+)?\.\w+|[ag]\d-[a-z]+-\d+g?|n[cdv]\d+\w*_v\d+|bm\.gpu\.[\w.-]+)$",
    re.I,
)
"""The hyperscalers' instance naming: AWS 'g5.48xlarge' / 'p4d.24xlarge', Google Cloud
'a2-highgpu-8g' / 'g2-standard-4', Azure 'ND96isr_H100_v5', Oracle 'BM.GPU.H100.8' — not a GPU's
own name ('A100', 'H100 SXM'), which the GPU extractor reads, nor a marketplace's label."""
_SAID = re.compile(r"\b[gp]\d[a-z]*\.|\b[ag]\d-|_v\d|\bbm\.gpu", re.I)
"""Whether the text may name an instance at all (the catalog is read only then)."""


@cache
def _instances() -> dict[str, tuple[str, int]]:
    """Instance name (lower case) → (GPU id, GPUs per instance), where the catalog's rows agree
    on both."""
    seen: dict[str, set[tuple[str, int]]] = {}
    for row in builtin_price_book().prices:
        if row.instance and row.gpu and row.gpus_per_instance:
            name = row.instance.lower()
            if _INSTANCE_LIKE.match(name):
                seen.setdefault(name, set()).add((row.gpu, row.gpus_per_instance))
    return {name: next(iter(gpus)) for name, gpus in seen.items() if len(gpus) == 1}


@cache
def _families() -> dict[str, str]:
    """AWS instance family ('g5', 'p4d') → its GPU, where every listed size agrees."""
    seen: dict[str, set[str]] = {}
    for name, (gpu, _count) in _instances().items():
        if "." in name:
            seen.setdefault(name.split(".", 1)[0], set()).add(gpu)
    return {family: gpus.pop() for family, gpus in seen.items() if len(gpus) == 1}


_AWS = re.compile(r"\b([gp]\d[a-z]*(?:-[a-z]\d+)?)\.(\d*)(xl|xlarge|metal)\b", re.I)
"""An AWS instance as written: 'g5.48xlarge', 'G5.48xl' (the 'xl' short form), 'g4dn.metal'."""

_SAID_BESIDE = compiled(r"^\s*\(\s*(\d{1,2})\s*(?:x|×)?\s*[^()]{0,40}\)", re.I)
"""The instance's GPUs restated beside it: 'g5.4xlarge (1 A10 GPU 24GB)'."""


_MACHINES_BEFORE = compiled(rf"\b({NUMBER}|{WORD_NUMBER})\s*(?:x|×|\*)?\s*$", re.I)
"""A count of instances right before the name ('2 p5.48xlarge', 'two g6e.12xlarge')."""


def extract_cloud_instances(t: Text, p: ParsedWorkload) -> None:
    """Each cloud instance named, as its GPU and count (the instance's words consumed, and a
    restatement of its GPUs in brackets right after it)."""
    if not _SAID.search(t.work):
        return
    known = _instances()
    for m in compiled(_AWS.pattern, re.I).finditer(t.work):
        size = m.group(3).lower()
        name = f"{m.group(1).lower()}.{m.group(2)}{'xlarge' if size == 'xl' else size}"
        _read(t, p, m.start(), m.end(), m.group(0), name, known.get(name))
    others = [n for n in known if not _AWS.fullmatch(n)]
    if not others:
        return
    pattern = r"(?<![\w.-])(" + "|".join(re.escape(n) for n in sorted(others, key=len)[::-1]) + r")"
    for m in compiled(pattern + r"(?![\w-])", re.I).finditer(t.work):
        name = m.group(1).lower()
        _read(t, p, m.start(), m.end(), m.group(0), name, known[name])


def _read(
    t: Text,
    p: ParsedWorkload,
    start: int,
    end: int,
    said: str,
    name: str,
    listed: tuple[str, int] | None,
) -> None:
    beside = _SAID_BESIDE.match(t.work[end:])
    count_beside = positive_int(beside.group(1)) if beside else None
    count: int | None
    if listed is not None:
        gpu, count = listed
        p.notes.append(f"'{said}' read as {count:,}× {gpu} (the price catalog's {name})")
    else:
        family = _families().get(name.split(".", 1)[0])
        if family is None:
            return  # an instance the catalog cannot place: left for the coverage gate
        gpu, count = family, count_beside
        how = f"{count:,} said beside it" if count else "how many it holds is not listed"
        p.notes.append(f"'{said}' read as the {family} of its instance family ({how})")
    if beside is not None and (count_beside is None or count_beside == count):
        end += beside.end()
    machines = _MACHINES_BEFORE.search(t.work[max(0, start - 12) : start])
    if machines and count is not None and (n := positive_int(machines.group(1))):
        # 'two p5.48xlarge', '2x g5.48xlarge': that many instances, each with its GPUs.
        p.notes.append(f"{n:,} instances × {count:,} GPUs read as {n * count:,} GPUs in all")
        start, count = start - len(machines.group(0)), n * count
    t.consume(start, end)
    p.gpus.append(GpuMention(gpu=gpu, text=t.original[start:end].strip(), count=count))
