"""A GPU's memory said apart from its name ('fit into A10, which only has 24GB GPU memory',
'two RTX3070 GPUs, each with 8GB of memory', 'an A100, the GPU memory is 40G'): the memory
read by the generic extractor is checked against the cards named. The same memory narrows a
family to the variants sold with it (A100 → 40 GB parts); another memory is asked about,
never dropped for the card's catalog memory — a memory variant swapped for another is a
different question answered (issue 27)."""

from __future__ import annotations

from assistant.offline.parser.gpus import same_memory
from assistant.offline.parser.text import Text
from assistant.reading.parsed import GpuMention, ParsedWorkload
from tools.catalog import get_catalog
from tools.units import GB


def _ids(mention: GpuMention) -> list[str]:
    """The catalog ids a mention may mean: its variants, else its one id."""
    return mention.variants or ([mention.gpu] if mention.gpu else [])


def _sold_with(mention: GpuMention, said: int) -> list[str] | None:
    """The catalog variants of `mention` sold with the memory `said`; None for a card the
    check does not apply to (not in the catalog, or a unified-memory machine)."""
    gpus = get_catalog().gpus
    ids = _ids(mention)
    if not ids or any(i not in gpus or gpus[i].unified_memory is not None for i in ids):
        return None
    return [i for i in ids if same_memory(said, gpus[i].memory_bytes)]


def _total_of(mention: GpuMention, said: int) -> bool:
    """Whether `said` is the memory of all the cards counted together."""
    gpus = get_catalog().gpus
    count = mention.count or 1
    return count > 1 and any(
        i in gpus and same_memory(said // count, gpus[i].memory_bytes) for i in _ids(mention)
    )


def check_card_memory(parsed: ParsedWorkload, t: Text) -> None:
    """The memory said in words as the GPU's own (`Text.card_memory`) beside named cards:
    narrowed to, or asked about (see the module's docstring). Their total ('2 L40S which
    provide 96GB VRAM') is the cards' memory too."""
    said = parsed.gpu_memory_bytes
    named = [m for m in parsed.gpus if m.memory_bytes is None and (m.gpu or m.variants)]
    if said is None or said not in t.card_memory or not named:
        return
    sold = {id(m): _sold_with(m, said) for m in named}
    if any(v is None for v in sold.values()):
        return
    total = not t.card_memory_each
    matching = [m for m in named if sold[id(m)] or (total and _total_of(m, said))]
    if not matching:
        _ask_which(parsed, named, said)
    elif len(matching) == 1 and len(named) == 1:
        _narrow(matching[0], sold[id(matching[0])] or [])
        parsed.gpu_memory_bytes = None  # read with the card


def _narrow(mention: GpuMention, variants: list[str]) -> None:
    """A family narrowed to the variants sold with the memory said (A100 → the 40 GB parts)."""
    if variants and mention.variants and len(variants) < len(mention.variants):
        mention.variants = variants if len(variants) > 1 else []
        mention.gpu = variants[0]


def _ask_which(parsed: ParsedWorkload, named: list[GpuMention], said: int) -> None:
    """Another memory than the named cards': which card it is, asked."""
    gpus = get_catalog().gpus
    ids = [i for m in named for i in _ids(m) if i in gpus]
    names = " / ".join(dict.fromkeys(gpus[m.gpu or m.variants[0]].name for m in named))
    has = " or ".join(f"{g:g} GB" for g in sorted({gpus[i].memory_bytes / GB for i in ids}))
    parsed.ask(
        "gpu",
        "ambiguous",
        f"{said / GB:g} GB is said of the GPU, but the {names} has {has}: which is it — "
        "that card as the catalog has it, or a card with the memory you said?",
        f"{said / GB:g} GB",
    )
