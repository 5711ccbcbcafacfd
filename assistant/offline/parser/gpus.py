"""Which GPUs and how many: node counts (× GPUs per node), catalog GPU names with their
counts, GPUs described by memory or as consumer cards, interconnects, and GPU-like names
the catalog lacks."""

from __future__ import annotations

import re
from dataclasses import replace

from assistant.offline.names import NameMatch, gpu_index, gpus_with_capacity
from assistant.offline.parser.text import QW, Text, positive_int
from assistant.reading.parsed import GpuMention, ParsedWorkload
from assistant.reading.quantities import NUMBER, WORD_NUMBER
from assistant.regex_cache import compiled
from tools.catalog import GpuSpec, get_catalog
from tools.errors import closest_names
from tools.units import GB, GiB

_NODE = r"(?:nodes?|servers?|machines?|hosts?|boxes)"
_NODE_GPU = (
    r"(?:(?:\d{1,2}\s*[x×*]\s*|\d{1,2}-gpu\s+)?(?:nvidia\s+|dgx\s+|hgx\s+)?"
    r"(?:[a-z]{1,4}\d{2,4}[a-z]*|\d{4})(?:\s*[x×*]\s*\d{1,2})?(?:\s*\(?\d{2,3}\s*g[bi]?\)?)?)"
)
"""The GPU words between a node count and 'nodes' ('H100*8', '8x H100', 'A100 80GB', '8-GPU
A800', '4090'): a GPU model number with its per-node count and memory, nothing else."""


def extract_nodes(t: Text, p: ParsedWorkload) -> None:
    """Node counts, read before the GPUs so the GPU count can be scaled: '4 nodes of 8 H100s'
    and '2 nodes × 8 GPUs' are per-node counts (32 and 16 GPUs); '32 H100s across 4 servers'
    is already the total; '8 H100s per node' with '4 nodes' elsewhere is 32."""
    each = r",?\s*(?:each|every\s+one)\s+(?:with|having|has|of\s+them\s+with)"
    # 'two gpu servers with 8 T4 … on each': a node word after 'GPU' counts nodes too.
    for m in t.each(
        rf"(?<![\w.]){QW}\s+(?:gpu\s+|compute\s+)?{_NODE}\s*(?:{each}|of|with|x|×|\*)\s*"
    ):
        t.nodes, t.per_node, t.nodes_text = positive_int(m.group(1)), True, m.group(0).strip()
        # '4 nodes with 14 H100s' may be 14 in all or 14 each: asked unless 'each' says.
        t.nodes_ambiguous = bool(compiled(r"\bwith\s*$", re.I).search(m.group(0))) and not compiled(
            r"\beach\b|\bper\s+(?:node|server|machine|host)\b", re.I
        ).search(t.original[m.start() :])
    # '2 H100*8 machines', 'two 8x H100 nodes', 'three A100 nodes, each with 8 …': the node
    # count before the GPU words; only the count and the node word are consumed, so the GPU
    # (and its count per node) is read by the GPU extractor.
    # ('2x 8xA100 servers': the machines counted with an 'x' too.)
    for m in compiled(
        # ('8x H100 nodes' is nodes of 8: the 'x' counts machines only before another count.)
        rf"(?<![\w.]){QW}(?:\s*[x×*](?=\s*\d{{1,2}}\s*[x×*]))?\s+(?={_NODE_GPU}\s+{_NODE}\b)",
        re.I,
    ).finditer(t.work):
        tail = compiled(rf"{_NODE_GPU}\s+({_NODE})\b", re.I).match(t.work, m.end())
        if tail is None:
            continue
        t.nodes, t.per_node = positive_int(m.group(1)), True
        t.nodes_text = t.original[m.start() : tail.end()].strip()
        t.consume(m.start(), m.end())
        t.consume(tail.start(1), tail.end(1))
    # '3x8xA100', '3*8*A100 (40G)': machines × GPUs each × the GPU (the first count the
    # machines, consumed; the GPU and its count per machine read by the GPU extractor).
    for m in t.each(r"(?<![\w.])(\d{1,2})\s*[x×*]\s*(?=\d{1,2}\s*[x×*]\s*[a-z])"):
        t.nodes, t.per_node, t.nodes_text = int(m.group(1)), True, m.group(0).strip()
    for m in t.each(rf"\b(?:across|over|on|in|spread\s+over)\s+{QW}\s+{_NODE}\b"):
        t.nodes, t.nodes_text = positive_int(m.group(1)), m.group(0).strip()
    if t.each(r"\b(?:per|each|a|in\s+each|on\s+each)\s+(?:node|server|machine|host|box)\b"):
        t.per_node = True
    for m in t.each(rf"(?<![\w.]){QW}\s+{_NODE}\b"):
        t.nodes, t.nodes_text = positive_int(m.group(1)), m.group(0).strip()


def apply_nodes(t: Text, p: ParsedWorkload) -> None:
    """Scale a per-node GPU count by the nodes said, and say how the count was read."""
    if len(p.gpus) == 1 and p.gpus[0].count is None and p.gpu_count is not None:
        # 'A100, 8 GPUs', 'three A100 nodes, each with 8 80GB GPUs': the one GPU named is
        # the GPUs counted (else the count would be shown and one GPU sized).
        p.gpus[0].count, p.gpu_count = p.gpu_count, None
    elif len(p.gpus) > 1 and p.gpu_count is not None and all(m.count is None for m in p.gpus):
        # 'H100/H200 … on 8 cards', 'A100 or H100 for 4 GPUs': the GPUs offered as either,
        # each at the count said (else each would be sized as one card).
        names = " / ".join(m.text for m in p.gpus)
        for offered in p.gpus:
            offered.count = p.gpu_count
        p.notes.append(f"{p.gpu_count:,} GPUs read as {p.gpu_count:,} of each of {names}")
        p.gpu_count = None
    if t.nodes is None or (t.nodes == 1 and t.per_node):
        return  # one node of N GPUs is N GPUs: nothing to scale
    mention = next((m for m in p.gpus if m.count is not None), None)
    per_node = mention.count if mention is not None else p.gpu_count
    if per_node is None and p.gpus and t.nodes > 1:
        # 'two 4090 machines': the GPUs in each are not said, and the verdict turns on them.
        p.ask(
            "figure",
            "missing",
            f"'{t.nodes_text}': how many GPUs does each of the {t.nodes:,} machines have (e.g. "
            f"'{t.nodes:,} machines with 2 GPUs each')?",
            t.nodes_text,
        )
        return
    if per_node is None:
        p.notes.append(f"'{t.nodes_text}' said without GPUs per node: sized without a count")
        return
    if not t.per_node:
        p.notes.append(f"'{t.nodes_text}': {per_node:,} GPUs read as the total over all nodes")
        return
    total = per_node * t.nodes
    if t.nodes_ambiguous:
        p.ask(
            "figure",
            "ambiguous",
            f"'{t.nodes_text} {per_node:,} GPUs': is that {per_node:,} GPUs in each of the "
            f"{t.nodes:,} nodes ({total:,} in all), or {per_node:,} in all?",
            t.nodes_text,
        )
        return
    if mention is not None:
        mention.count = total
    else:
        p.gpu_count = total
    p.notes.append(f"{t.nodes:,} nodes × {per_node:,} GPUs per node read as {total:,} GPUs in all")


_PARALLEL_FLAG = (
    r"(?<![\w-])(?:--?)?(?:tensor[_\s-]*parallel(?:[_\s-]*size)?|tp(?:[_-]size)?)\b"
    r"\s*[=:]?\s*(\d{1,3})\b"
)
"""An engine's tensor-parallel flag as typed: vLLM's --tensor-parallel-size / -tp, SGLang's
--tp-size, 'tensor parallel 4': the GPUs one copy of the model is split over."""


def extract_parallel_flag(t: Text, p: ParsedWorkload) -> None:
    """A tensor-parallel degree said beside the one GPU named: its count when none was said
    ('Qwen2.5-72B on L40S with -tp 4' is 4 L40S); read (nothing held back) when it is the count
    said. Another degree than the count (TP 2 on 4 GPUs: replicas or pipeline stages) stays
    unread for the coverage gate."""
    if len(p.gpus) != 1:
        return
    mention = p.gpus[0]
    for m in compiled(_PARALLEL_FLAG, re.I).finditer(t.work):
        degree = int(m.group(1))
        if degree < 1 or (mention.count is not None and mention.count != degree):
            continue
        t.consume(m.start(), m.end())
        if mention.count is None:
            mention.count = degree
            p.notes.append(f"'{m.group(0).strip()}' read as {degree:,} {mention.text}")
    if mention.count is not None and mention.count > 1:
        # 'on 8 A10G using tensor parallel', 'tensor parallelism across 4 H100s': the split
        # over the GPUs counted, which is how several GPUs hold one copy (no degree said).
        t.each(_PARALLEL_WORDS)


_PARALLEL_WORDS = (
    r"(?:\b(?:with|using|via|by|through)\s+)?(?<![\w-])tensor[\s-]+parallel(?:ism)?(?![\w-])"
    r"(?:\s+(?:across|over|on)\b)?(?!\s*[=:]?\s*\d)"
)


def _count_said(
    t: Text, count_before: re.Pattern[str], count_after: re.Pattern[str], start: int, end: int
) -> tuple[int | None, int, int]:
    """The count said before ('8x H100') or after ('H100 x 8') a GPU name, and the span
    widened to it."""
    count: int | None = None
    before = count_before.search(t.work[max(0, start - 12) : start])
    if before:
        count = positive_int(before.group(1) or before.group(2))
        start -= len(before.group(0))
    after = count_after.match(t.work[end : end + 8])
    if after:
        count = positive_int(after.group(1))
        end += len(after.group(0))
    return count, start, end


def _my_card(
    t: Text, p: ParsedWorkload, start: int, end: int, text: str, gpu_id: str | None
) -> int | None:
    """'my 3090': the one card the user has (not 'my 3090s': how many is open); None when
    no owner word comes before the name."""
    mine = _MINE.search(t.work[max(0, start - 12) : start])
    if mine is None:
        return None
    plural = _PLURAL.match(t.work[end : end + 3]) or (
        text.lower().endswith("s") and not (gpu_id or "").endswith("s")
    )
    if plural:
        return None
    p.notes.append(f"'{mine.group(1)} {text}' read as one {text}")
    return 1


def _memory_said_beside(
    t: Text, spec: GpuSpec, has_variants: bool, count: int | None, start: int, end: int
) -> tuple[int, int]:
    """The mention's span widened over a memory figure that confirms the card: its own memory
    beside it ('a 24 GB L4'; another amount, 'a 20 GB L4', stays unread for the coverage gate),
    or the total of the cards counted ('2x 3090 cards (total 48Gb)')."""
    if not has_variants and spec.unified_memory is None:
        stated = _stated_memory(t, start, end)
        if stated is not None and same_memory(stated[0], spec.memory_bytes):
            start, end = min(start, stated[1]), max(end, stated[2])
    if count is not None:
        total = _TOTAL_MEMORY.match(t.work[end : end + 40])
        if total and same_memory(
            _memory_bytes(
                total.group("gb") or total.group("gb2"), total.group("unit") or total.group("unit2")
            )
            // count,
            spec.memory_bytes,
        ):
            end += total.end()
    return start, end


def _s_or_plural(t: Text, p: ParsedWorkload, match: NameMatch) -> NameMatch:
    """A name ending in 's' where the catalog has both the card and its S model ('L40' and
    'L40S', 'RTX 4080' and '4080 SUPER'): a capital S glued on is the S model ('4080S'); a
    small one may be the plural as well ('2 L40s', 'two 4080s'), so both cards are kept as
    variants — each sized, a verdict that differs between them asked about."""
    text = t.original[match.start : match.end]
    if len(text) < 3 or text[-1] not in "sS" or not text[-2].isalnum():
        return match
    base = gpu_index().find(text[:-1])
    s_model = [m for m in gpu_index().find(text[:-1] + "S") if m.id != (base[0].id if base else "")]
    s_model = s_model or gpu_index().find(text[:-1] + " super")
    if len(base) != 1 or len(s_model) != 1 or base[0].id == s_model[0].id or base[0].variants:
        return match
    plain, model_s = base[0].id or "", s_model[0].id or ""
    if text[-1] == "S":
        return replace(match, id=model_s, variants=())
    p.notes.append(f"'{text.strip()}' may be the {model_s} or several {plain}: both sized")
    return replace(match, id=model_s, variants=(plain, model_s))


_BOXES_BEFORE = compiled(
    rf"(?:\b({NUMBER}|{WORD_NUMBER})\s*(?:x|×|\*)?\s*)?\b(?:nvidia\s+)?(?:dgx|hgx)[\s-]*$", re.I
)
"""'4 DGX H100', 'an HGX A100', 'two DGX A100s': NVIDIA's 8-GPU SXM boxes, counted."""
_BOXES_AFTER = compiled(r"^\s*(?:dgx|hgx)(?:'?s)?\b", re.I)
"""'2x h100 dgx's': the boxes named after the card."""


def _in_boxes(
    t: Text, p: ParsedWorkload, match: NameMatch, count: int | None, start: int
) -> tuple[NameMatch, int | None, int]:
    """GPUs said as DGX / HGX boxes: the SXM card (the boxes hold no other), the count the boxes
    times their GPUs each (the catalog's gpus_per_node: 8 for every DGX / HGX of the catalog)."""
    boxes = _BOXES_BEFORE.search(t.work[max(0, start - 24) : start])
    after = _BOXES_AFTER.match(t.work[match.end : match.end + 12])
    if boxes is None and after is None:
        return match, count, start
    catalog = get_catalog()
    sxm = [v for v in match.variants or (match.id,) if v and catalog.gpus[v].form_factor == "sxm"]
    per_box = {catalog.gpus[v].gpus_per_node for v in sxm}
    if not sxm or len(per_box) != 1 or None in per_box:
        return match, count, start
    each = per_box.pop() or 0
    if after is not None and boxes is None:
        # '2x h100 dgx's': the boxes named after the card, counted before it.
        n: int | None = count or 1
        t.consume(match.end, match.end + after.end())
        said = after.group(0).strip()
    elif boxes is not None:
        n = positive_int(boxes.group(1)) if boxes.group(1) else 1
        start -= len(boxes.group(0))
        said = boxes.group(0).strip().split()[-1]
    if n is None:
        return match, count, start
    total = n * each
    p.notes.append(f"{n:,} × {said} read as {total:,} SXM GPUs")
    match = replace(match, id=sxm[0] if match.id not in sxm else match.id)
    match = replace(match, variants=tuple(sxm) if len(sxm) > 1 else ())
    return match, total, start


def _words_before_the_name(
    t: Text, p: ParsedWorkload, match: NameMatch, start: int
) -> tuple[NameMatch, int]:
    """The words before a card's name that say which card: 'GTX' before an RTX number (a slip:
    there is no GTX 3060), 'laptop' before a card with a laptop part; the span widened to them."""
    gtx = _GTX_BEFORE.search(t.work[max(0, start - 12) : start])
    if gtx and (match.id or "").startswith("rtx-"):
        start -= len(gtx.group(0))
        p.notes.append(f"'{t.original[start : match.end].strip()}' read as the RTX card")
    brand = _BRAND_BEFORE.search(t.work[max(0, start - 24) : start])
    if brand:
        start -= len(brand.group(0))  # 'Tesla V100-SXM2-32GB', 'NVIDIA GeForce RTX 3090'
    laptop = _LAPTOP_BEFORE.search(t.work[max(0, start - 20) : start])
    if laptop and f"{match.id}-laptop" in get_catalog().gpus:
        # "my laptop's RTX 4080": the laptop part, not the desktop card of that name.
        match = replace(match, id=f"{match.id}-laptop", variants=())
        start -= len(laptop.group(0))
    return match, start


def extract_gpus(t: Text, p: ParsedWorkload) -> None:
    """Catalog GPUs by name with the count said before ('8x H100') or after ('H100 x 8');
    'vs' / 'or' between two GPUs asks for a comparison."""
    count_before = compiled(
        # 'a pair of 4090s', 'a couple of A100s': the count word with its 'of'.
        # '8-GPU A800', '8 GPU H100': the count with the word GPU before the name.
        # Not the tail of a version or a decimal ('macOS 13.4.1 M1 Pro' is no 4 M1 Pros).
        # '2x (dual) RTX 3090': the count's word in brackets after it.
        rf"(?:(?<![\d.,])\b({NUMBER})\s*(?:x|×|\*|-?\s*gpus?\b)?(?:\s*\((?:dual|twin|two)\))?"
        rf"|\b({WORD_NUMBER})(?:\s+of)?)[\s-]*"
        r"(?:(?:nvidia|amd|tesla|geforce|quadro)\s+)*$",
        re.I,
    )
    count_after = compiled(r"^(?:'?s)?\s*(?:x|×|\*)\s*(\d+)\b", re.I)
    found = gpu_index().find(t.work)
    for match in found:
        count, start, end = _count_said(t, count_before, count_after, match.start, match.end)
        text = t.original[match.start : match.end].strip()
        if count is None:
            count = _my_card(t, p, start, end, text, match.id)
        match, start = _words_before_the_name(t, p, _s_or_plural(t, p, match), start)
        match, count, start = _in_boxes(t, p, match, count, start)
        variants = list(match.variants)
        said_end = end
        gpu_id, ram_start, end, bin_note = _with_stated_ram(t, match.id, match.start, end)
        # The RAM said picks the configuration — the default one too ('M2 Ultra with 192GB').
        if gpu_id != match.id or (ram_start, end) != (match.start, said_end):
            text = t.original[ram_start:end].strip()
            start = min(start, ram_start)
            variants = []  # the RAM said picks the configuration
        if bin_note:
            p.notes.append(bin_note.format(text=text))
        picked = _variants_with_stated_memory(t, variants, match.start, end)
        if picked is not None and gpu_id == match.id:
            sold, said_start, end = picked
            gpu_id = match.id if match.id in sold else sold[0]
            counted_from = said_start
            if count is None and said_start < start:
                # 'a 12 GB RTX 3060', 'my 12 GB 3060', 'two 12 GB 3060s': the count is said
                # before the memory, which sat between it and the name.
                count, counted_from = _count_before_memory(t, count_before, said_start, end, p)
            start = min(start, counted_from)
            text = t.original[said_start:end].strip()
            # The memory said picks the card ('12 GB RTX 3060'), or narrows the variants to
            # those sold with it ('16 GB V100': PCIe or SXM2).
            variants = sold if len(sold) > 1 else []
        spec = get_catalog().gpus.get(gpu_id or "")
        if spec is not None:
            start, end = _memory_said_beside(t, spec, bool(variants), count, start, end)
        if count is None and end > said_end:
            # 'H20 96GB x8', 'A100 80GB x 4': the count after the memory said with the name.
            after = count_after.match(t.work[end : end + 8])
            if after:
                count, end = positive_int(after.group(1)), end + after.end()
        if spec is not None and spec.devices_per_package > 1:
            count, end = _boards_as_devices(t, spec, count, start, match.start, end, p)
        p.gpus.append(GpuMention(gpu=gpu_id, text=text, count=count, variants=variants))
        if match.id is not None and variants:
            name = get_catalog().gpus[match.id].name
            others = ", ".join(v for v in variants if v != match.id)
            p.notes.append(f"'{text}' read as {name} (catalog default; also: {others})")
        t.consume(start, end)
    p.gpus = _one_mention_each(p.gpus)
    _listed_devices(t, p)
    _compared(t, p)


_COMPARATIVE = compiled(
    r"\b(?:cheaper|faster|better|slower|quicker|more\s+(?:cost[\s-]?effective|efficient|"
    r"economical))\s+than\b"
    # 'my 7900 XTX and a 4090, which is faster?': the GPUs named set against each other.
    r"|\bwhich\s+(?:one\s+|card\s+|gpu\s+|of\s+(?:them|the\s+two|these)\s+)?(?:is|would\s+be|will\s+be|"
    r"runs?|gives?)\s+(?:the\s+)?(?:faster|cheaper|quicker|better|more\s+cost[\s-]?effective)\b",
    re.I,
)


_LISTED = compiled(r"(?:\bgpu\s*(\d{1,2})\s*:|\[(\d{1,2})\])", re.I)
"""A device index as nvidia-smi, gpustat and logs print it ('GPU 0: NVIDIA A100 …', '[7] Tesla
V100-SXM2-32GB')."""


def _listed_devices(t: Text, p: ParsedWorkload) -> None:
    """One card listed by device index ('GPU 0: … GPU 3: NVIDIA A100 80GB PCIe'): as many as the
    indices run from 0, when no count was said."""
    if len(p.gpus) != 1 or p.gpus[0].count is not None:
        return
    indices = {int(m.group(1) or m.group(2)) for m in _LISTED.finditer(t.original)}
    if 0 not in indices or len(indices) < 2:
        return
    count = max(indices) + 1
    p.gpus[0].count = count
    for m in _LISTED.finditer(t.work):
        t.consume(m.start(), m.end())
    p.notes.append(f"devices listed {min(indices)} to {max(indices)}: read as {count:,} GPUs")


def _compared(t: Text, p: ParsedWorkload) -> None:
    """GPUs set against each other: 'A100 vs H100', 'L40S or H100', 'is an L40S cheaper than
    an H100'."""
    for m in t.each(r"\b(?:vs\.?|versus|compared?\s+(?:to|with)|or)\b"):
        p.compare = p.compare or len(p.gpus) > 1 or "v" in m.group(0).lower()
    # 'choosing between a 3090 and a 4090', 'how does the L40S stack up against the H100',
    # 'should I get a 4090 rather than two 3090s?' (a choice asked: `choices` left it).
    compared = r"\bbetween\b|\b(?:stacks?\s+up\s+)?against\b|\bstacks?\s+up\b"
    compared += r"|\brather\s+than\b|\binstead\s+of\b"
    if len(p.gpus) > 1 and t.each(compared):
        p.compare = True
    if len(p.gpus) > 1 and _COMPARATIVE.search(t.original):
        p.compare = True


_TOTAL_MEMORY = compiled(
    rf"^(?:'?s)?(?:\s+(?:cards?|gpus?))?\s*[(,]?\s*(?:"
    rf"(?:with\s+)?(?:an?\s+)?(?:total|in\s+total|combined)\s*(?:of\s+)?(?P<gb>{NUMBER})\s*"
    r"(?P<unit>gb|gib|g)\b"
    # '(48GB total)', ', 160GB combined VRAM'
    rf"|(?P<gb2>{NUMBER})\s*(?P<unit2>gb|gib|g)\s+(?:of\s+)?(?:(?:v?ram|memory)\s+)?"
    r"(?:total|in\s+total|combined|altogether)\b)(?:\s+(?:of\s+)?(?:v?ram|memory))?\s*\)?",
    re.I,
)
"""The memory of all the cards of a counted mention ('(total 48Gb)', '(48GB total)', 'with a
total of 48 GB', ', 96GB combined VRAM'), right after it."""


def _one_mention_each(mentions: list[GpuMention]) -> list[GpuMention]:
    """The same card named again ('an RTX 4090 (24G) … a single 4090') is one mention: its
    count the one said (mentions whose counts differ stay apart: '2x 3090 or 1x 3090')."""
    out: list[GpuMention] = []
    for mention in mentions:
        same = next(
            (
                m
                for m in out
                if m.gpu is not None
                and m.gpu == mention.gpu
                and (m.count == mention.count or None in (m.count, mention.count))
            ),
            None,
        )
        if same is None:
            out.append(mention)
        elif same.count is None:
            same.count = mention.count
    return _family_said_again(out)


def _family_said_again(mentions: list[GpuMention]) -> list[GpuMention]:
    """A family named bare after one of its variants was named ('a 40 GB A100 … the a100'):
    the variant said is the card, the bare family no second card (a count said with the
    family keeps it apart: 'an A100 80GB or 2x A100')."""
    out: list[GpuMention] = []
    for mention in mentions:
        family = set(mention.variants)
        bare = len(family) > 1 and mention.count is None and mention.memory_bytes is None
        said = bare and any(
            m is not mention and (m.gpu in family and (not m.variants or set(m.variants) < family))
            for m in mentions
        )
        if not said:
            out.append(mention)
    return out


_LAPTOP_BEFORE = compiled(
    r"\b(?:laptop|notebook|mobile)(?:'?s)?\s+(?:gpu\s+)?(?:is\s+(?:an?\s+)?)?"
    r"(?:nvidia\s+|geforce\s+)*$",
    re.I,
)
"""'my laptop's RTX 4080', 'laptop GPU is a 4070': a laptop part named before the card."""

_BRAND_BEFORE = compiled(r"\b(?:(?:nvidia|tesla|geforce|quadro|amd|radeon|intel)[\s-]+)+$", re.I)
"""The maker's and line's words right before a card's name ('Tesla V100', 'NVIDIA GeForce')."""

_GTX_BEFORE = compiled(r"\b(?:nvidia\s+)?(?:geforce\s+)?gtx[\s-]*$", re.I)
"""'GTX' before an RTX card's number ('GTX 3060', 'GeForce GTX 4090'): a slip for RTX."""

_MINE = compiled(r"\b(my|our)\s+(?:nvidia\s+|amd\s+)?$", re.I)
"""'my' / 'our' right before a GPU's name: the user's own card."""

_PLURAL = compiled(r"^'?s\b", re.I)
"""A plural right after a GPU's name ('my 3090s')."""


def _count_before_memory(
    t: Text, count_before: re.Pattern[str], said_start: int, end: int, p: ParsedWorkload
) -> tuple[int | None, int]:
    """The count said right before a memory that picks a card's variant ('a 12 GB RTX 3060':
    one; 'two 12 GB 3060s': two; 'my 12 GB 3060': the user's one card), and where it starts."""
    window = t.work[max(0, said_start - 12) : said_start]
    before = count_before.search(window)
    if before:
        return positive_int(before.group(1) or before.group(2)), said_start - len(before.group(0))
    mine = _MINE.search(window)
    if mine is not None and not t.original[said_start:end].rstrip().lower().endswith("s"):
        said = t.original[said_start:end].strip()
        p.notes.append(f"'{mine.group(1)} {said}' read as one {said}")
        return 1, said_start
    return None, said_start


_ONE_BOARD = compiled(r"\b(?:an?|my|one|single|our)\s+(?:amd\s+)?$", re.I)
_BOARD_WORDS = compiled(r"^(?:'?s)?\s*(?:boards?|cards?|modules?|oams?|packages?)\b", re.I)
_DEVICE_WORDS = compiled(r"\bgcds?\b|\b(?:graphics\s+compute\s+)?dies?\b", re.I)


def _boards_as_devices(
    t: Text,
    spec: GpuSpec,
    count: int | None,
    start: int,
    name_start: int,
    end: int,
    p: ParsedWorkload,
) -> tuple[int | None, int]:
    """A board that software sees as several devices (MI250X: two GCDs): a count said of it is
    boards ('2× MI250X' = 4 devices) unless the words say devices ('4 MI250X GCDs'); 'an
    MI250X' is one board. The catalog entry is one device, so the count returned is devices;
    the reading is noted. `start`: where the count begins; returns (devices, span end)."""
    per_board = spec.devices_per_package
    rest = t.work[end : end + 24]
    gap = len(rest) - len(rest.lstrip("'s "))
    device_words = _DEVICE_WORDS.match(rest[gap:])
    if device_words or _DEVICE_WORDS.search(t.work[name_start:end]):
        end += gap + device_words.end() if device_words else 0
        if count is not None:
            said = t.original[start:end].strip()
            noun = "device" if count == 1 else "devices"
            p.notes.append(
                f"'{said}' read as {count:,} {noun} (GCDs; {count / per_board:g} boards)"
            )
        return count, end
    boards = _BOARD_WORDS.match(rest)
    if boards:
        end += boards.end()
    if count is None and _ONE_BOARD.search(t.work[max(0, start - 12) : start]):
        count = 1
    if count is None:
        return None, end
    devices = count * per_board
    said = t.original[start:end].strip()
    name = spec.aliases[0] if spec.aliases else spec.id
    boards_text = "1 board" if count == 1 else f"{count:,} boards"
    gcds = "1 GCD" if count == 1 else f"{count:,} GCDs"
    p.notes.append(
        f"'{said}' read as {boards_text} = {devices:,} devices: each {name} board is "
        f"{per_board} GCDs to software, {spec.memory_bytes // GB:,} GB each (say '{gcds}' if "
        "you meant devices)"
    )
    return devices, end


def same_memory(said: int, marketed: int) -> bool:
    """A memory amount said (GB, or GiB as people write it) is a card's marketed memory."""
    size = said // GiB if said % GiB == 0 else round(said / GB)
    return size * GB == marketed


def _variants_with_stated_memory(
    t: Text, variants: list[str], start: int, end: int
) -> tuple[list[str], int, int] | None:
    """A discrete card named without its memory but with a memory amount beside it ('12 GB RTX
    3060', 'RTX 3060 with 8 GB', 'a 16 GB V100'): the variants sold with that memory (marketed
    GB, or the same figure written in GiB) — one, or several that differ in something else
    (V100 16 GB: PCIe and SXM2) —, with the span start and end of the words read; None when no
    amount is said or no variant has it."""
    stated = _stated_memory(t, start, end) if variants else None
    if stated is None:
        return None
    said, said_start, said_end = stated
    size = said // GiB if said % GiB == 0 else round(said / GB)
    gpus = get_catalog().gpus
    sold = [
        v for v in variants if gpus[v].unified_memory is None and gpus[v].memory_bytes == size * GB
    ]
    return (sold, said_start, said_end) if sold else None


_MAC_PRODUCT = r"\b(?:my\s+)?(?:macbook(?:\s+(?:pro|air))?|mac\s+(?:studio|mini|pro)|imac)\b"


def _with_stated_ram(
    t: Text, gpu_id: str | None, start: int, end: int
) -> tuple[str | None, int, int, str | None]:
    """A unified-memory chip with its RAM said beside it ('M3 Max with 64 GB', 'M2 Ultra
    192GB', 'a 16GB M1') is that RAM configuration (tools.catalog `with_ram`); its product
    name ('MacBook Pro') is part of the GPU. A RAM size sold only with another bin of the same
    chip ('M3 Max with 36 GB': the 30-core GPU's) is that bin's, noted. Returns the catalog
    id, the span used (start, end) and the note ({text} for the words read)."""
    catalog = get_catalog()
    chip = catalog.gpus.get(gpu_id) if gpu_id else None
    if chip is None or chip.unified_memory is None:
        return gpu_id, start, end, None
    for m in t.each(_MAC_PRODUCT):
        del m  # the product name says no more than the chip: consumed
    stated = _stated_memory(t, start, end)
    if stated is None:
        return gpu_id, start, end, None
    ram, span_start, span_end = stated
    # Unified memory is sold as 'N GB' of N GiB DRAM: 'N GiB' means the same machine.
    size = ram // GiB if ram % GiB == 0 else round(ram / GB)
    chosen, note = _bin_with_ram(chip, size * GB)
    return catalog.with_ram(chosen, size * GB).id, span_start, span_end, note


def _ram_sizes(chip: GpuSpec) -> set[int]:
    """Every RAM size a unified-memory chip is listed with (confirmed or not), bytes as sold."""
    um = chip.unified_memory
    assert um is not None
    return {chip.memory_bytes, *um.ram_options_bytes, *um.ram_options_unconfirmed_bytes}


def _bin_with_ram(chip: GpuSpec, ram: int) -> tuple[GpuSpec, str | None]:
    """The bin of `chip` (same chip, another GPU-core count) sold with `ram`: `chip` itself when
    it lists that size or no other bin does; else the one other bin that lists it, noted."""
    catalog = get_catalog()
    base = catalog.gpus[chip.configuration_of or chip.id]
    if ram in _ram_sizes(base):
        return base, None
    bins = [
        g
        for g in catalog.gpus.values()
        if g.unified_memory is not None
        and g.configuration_of is None
        and g.id != base.id
        and g.architecture == base.architecture
        and ram in _ram_sizes(g)
    ]
    if len(bins) != 1:
        return base, None
    other = bins[0]
    sizes = ", ".join(f"{n // GB:,}" for n in sorted(_ram_sizes(base)))
    return other, (
        f"'{{text}}' read as the {other.name}: {ram // GB:,} GB is sold with that bin only "
        f"(the {base.name} comes with {sizes} GB); say so if yours is another"
    )


_MEMORY_IN_WORDS = (
    # 'each with 8GB of memory' (the cards named before), 'the max GPU memory is 45G', 'my
    # server GPU is only 48G', 'the VRAM is 24GB'.
    rf"\beach\s+with\s+(?P<n1>{NUMBER})\s*(?P<u1>gb|gib|g)\s+(?:of\s+)?(?:gpu\s+|video\s+)?"
    r"(?:memory|vram|ram)\b"
    r"|\b(?:max(?:imum)?\s+)?(?:gpu|card|vram|gpu\s+memory|video\s+memory)(?:'s)?\s+(?:memory\s+)?"
    rf"(?:is|has|of)\s+(?:only\s+|just\s+|about\s+|around\s+)?(?P<n2>{NUMBER})\s*(?P<u2>gb|gib|g)\b"
    r"(?!\s*(?:of\s+)?(?:system\s+|cpu\s+)?(?:ram|dram)\b)"
)


def _memory_in_words(t: Text, p: ParsedWorkload, described: list[str]) -> None:
    """A GPU's memory said in words around its figure (`_MEMORY_IN_WORDS`), before the GPU
    words are read as GPUs."""
    for m in t.each(_MEMORY_IN_WORDS):
        said = "1" if m.group("n1") else "2"
        p.gpu_memory_bytes = _memory_bytes(m.group(f"n{said}"), m.group(f"u{said}"))
        t.card_memory.append(p.gpu_memory_bytes)
        t.card_memory_each = t.card_memory_each or said == "1"
        described.append(m.group(0).strip())


def extract_gpu_generic(t: Text, p: ParsedWorkload) -> None:
    """GPUs not named: a count of 'GPUs', memory per GPU in bytes ('24 GB card', GB or
    GiB as written), consumer cards, 'multi-GPU', and NVLink / PCIe interconnects."""
    consumer = r"(?:(?P<{}>consumer|gaming|desktop|geforce)[\s-]+)?"
    mem = (
        r"(?:(?<![\d.,])(?P<mem>{NUMBER})\s*(?P<unit>gb|gib|g|gigs?)[\s-]+(?:of\s+)?"
        r"(?:vram\s+|memory\s+|hbm\s+)?)?"
    )
    mem = mem.replace("{NUMBER}", NUMBER)
    gpu_word = r"(?:gpus?|cards?|accelerators?|devices?)"
    if t.each(r"\bmulti[\s-]?(?:gpu|node|card)s?\b"):
        p.multi_gpu = True
    described: list[str] = []
    _memory_in_words(t, p, described)
    # '4 GPUs with 48GB memory': the memory said after the GPUs too.
    with_memory = (
        rf"(?:\s+(?:with|of|w/)\s+(?P<mem2>{NUMBER})\s*(?P<unit2>gb|gib|g)\b"
        r"(?:\s+(?:of\s+)?(?:vram|memory|ram)(?:\s+each)?)?)?"
    )
    for m in t.each(
        # Not the digits of a name ('2 A600 cards' is no 600 cards), nor a card's model number
        # before the word ('1060 GPU': a count that large is said in the plural).
        # Nor a number on the line above a 'GPU:' label ('RAM: 16GB DDR 4' / 'GPU: …'), nor
        # the 'a' of 'without a GPU' (no GPU at all).
        rf"(?<![\w.,])(?<!without\s)(?<!\bno\s)(?!\d{{4}}\s*(?:gpu|card)\b){QW}?[^\S\n]*(?:[x×*]\s*)?{consumer.format('pre')}{mem}"
        rf"{consumer.format('post')}{gpu_word}\b(?!(?<=gpu)\s*[:：])(?!\s*cores?\b)"
        # '24GB GPU memory', '24 GB of GPU memory': the memory word read with its figure.
        r"(?(mem)(?:\s+(?:memory|vram)\b)?)" + with_memory
    ):
        if m.group(1):
            p.gpu_count = positive_int(m.group(1))
        if m.group("mem"):
            p.gpu_memory_bytes = _memory_bytes(m.group("mem"), m.group("unit"))
            if compiled(r"(?:memory|vram)$", re.I).search(m.group(0).rstrip()):
                t.card_memory.append(p.gpu_memory_bytes)  # '24GB GPU memory'
        elif m.group("mem2"):
            p.gpu_memory_bytes = _memory_bytes(m.group("mem2"), m.group("unit2"))
        if m.group("pre") or m.group("post"):
            p.consumer_gpu = True
        if m.group("mem") or m.group("mem2") or m.group("pre") or m.group("post"):
            described.append(m.group(0).strip())
    # 'Is 24 GB enough for …': the memory the question bounds the need by, a GPU's memory.
    enough = r"(?=\s*(?:of\s+(?:gpu\s+)?memory\s+)?(?:be\s+)?(?:enough|sufficient|adequate)\b)"
    for m in t.each(
        rf"{gpu_word}\s+with\s+({NUMBER})\s*(gb|gib|g)\b|\b({NUMBER})\s*(gb|gib|g)\s+(?:of\s+)?vram\b"
        rf"|(?<![\d.,])({NUMBER})\s*(gb|gib|g){enough}"
    ):
        if m.group(5):
            p.gpu_memory_bytes = _memory_bytes(m.group(5), m.group(6))
            described.append(m.group(0).strip())
            continue
        p.gpu_memory_bytes = _memory_bytes(m.group(1) or m.group(3), m.group(2) or m.group(4))
        described.append(m.group(0).strip())
    # 'does it fit in 24gb', 'run on 12 GB': memory said as the place it runs in — not the
    # system RAM or a disk ('load in 8GB of RAM').
    not_ram = r"(?!\s*(?:of\s+)?(?:system\s+|cpu\s+|ddr\d?\s+)?(?:ram|disk|storage|ssd)\b)"
    not_ram += r"(?!\s*(?:unified\s+)?(?:mac\w*|imac|m[1-5])\b)"  # 'my 16GB MacBook': a Mac's
    place = (
        r"\b(?:fits?|fitting|runs?|running|load|squeeze)\s+(?P<said>(?:in|into|on|within)\s+(?:a\s+|"
        rf"an\s+|my\s+|the\s+|just\s+|only\s+)?(?P<mem>{NUMBER})\s*(?P<unit>gb|gib|g)\b){not_ram}"
    )
    for m in list(compiled(place, re.I).finditer(t.work)):
        # Only the memory is consumed: the verb stays for the question's kind ('how many fit').
        t.consume(m.start("said"), m.end("said"))
        p.gpu_memory_bytes = _memory_bytes(m.group("mem"), m.group("unit"))
        described.append(m.group("said").strip())
    if described and not p.gpus:
        _note_described_gpus(p, described[-1])
    if t.each(r"\b(?:nvlink|sxm|nvswitch)\b"):
        p.interconnects.append("nvlink")
    if t.each(r"\bpcie\b|\bpci[\s-]express\b"):
        p.interconnects.append("pcie")
    if "pcie" in p.interconnects and "nvlink" in p.interconnects:
        p.compare = True


def _memory_bytes(number: str, unit: str) -> int:
    return round(float(number.replace(",", "")) * (GiB if unit.lower() == "gib" else GB))


def _note_described_gpus(p: ParsedWorkload, text: str) -> None:
    """Say which catalog GPUs 'a 24 GB consumer card' stands for (the planner sizes those)."""
    size = "" if p.gpu_memory_bytes is None else f" with {p.gpu_memory_bytes / GB:g} GB (marketed)"
    matches = gpus_with_capacity(p.gpu_memory_bytes, consumer=p.consumer_gpu)
    if not matches and p.consumer_gpu and p.gpu_memory_bytes is not None:
        p.consumer_gpu = False
        matches = gpus_with_capacity(p.gpu_memory_bytes)
        if matches:
            p.notes.append(f"no consumer GPU in the catalog is sold{size}")
    if not matches:
        if p.gpu_memory_bytes is not None:
            p.gpus.append(GpuMention(gpu=None, text=text, memory_bytes=p.gpu_memory_bytes))
            p.notes.append(
                f"'{text}': no catalog GPU is sold{size}; sized against that memory (gpu-sizer "
                "gpus lists the catalog)"
            )
            return
        p.notes.append(
            f"'{text}': no catalog GPU is sold{size} (gpu-sizer gpus lists them); sized "
            "without a GPU constraint"
        )
        return
    kind = " consumer (GeForce-class)" if p.consumer_gpu else ""
    gpus = get_catalog().gpus
    names = ", ".join(gpus[gpu_id].name for gpu_id in matches)
    p.notes.append(f"'{text}' read as the catalog's{kind} GPUs{size}: {names}")


# GPU-looking names left after the catalog look-up: "RTX 3090", "V100", "T4", "MI250X", and
# Apple silicon ("M2 Ultra", "M3 Max": the GPU shares the machine's unified memory).
_GPU_LIKE = (
    r"\b(?:(?:nvidia|amd|intel|geforce|rtx|gtx|titan|quadro|tesla|radeon|instinct|rx|arc)[\s-]*)+"
    r"[a-z]{0,3}[\s-]?\d{2,5}[a-z]{0,4}\b(?:[\s-]?(?:ti|super|ada|pcie|sxm\d?|xtx|xt|gre)\b)?"
    r"(?:[\s-]?(?:laptop|mobile|max-q)(?:\s+gpu)?\b)?"
    # NVIDIA's Jetson modules ('Jetson AGX Orin 64GB', 'Jetson Orin Nano 8GB', 'jetson orin'):
    # memory shared with the CPU, sized against the memory said.
    r"|\b(?:nvidia\s+)?jetson(?:[\s-]+(?:agx|orin|nano|xavier|nx|tx2|thor|super|developer|"
    r"dev|kit))*\b"
    r"|\b(?:a|h|l|v|p|k|b|gh|gb|mi)\d{2,4}[a-z]{0,3}\b|\bt4\b"
    # Not inside another name ('bge-m3', 'e5-m4').
    r"|(?P<apple>(?<![\w-])(?:apple\s+)?m[1-5](?:\s+(?:pro|max|ultra))?\b)"
    # A bare GeForce model number after 'a' / 'my' / 'on' ('Llama 3.1 8B on a 4070'): the
    # x050-x090 numbers of the 10- to 90-series and the GTX 16 series' 1630-1660, not a token
    # count ('a 4096-token prompt').
    r"|(?:(?<=\ba\s)|(?<=\ban\s)|(?<=\bmy\s)|(?<=\bon\s)|(?<=\bone\s)|(?<=\bour\s))"
    r"(?:[1-9]0[5-9]0|16[3-6]0)(?:\s?(?:ti|super))?\b"
    r"(?!\s*-?\s*(?:tokens?|users?|chats?|requests?)\b)"
)
# A memory amount right after ('M2 Ultra 192GB', 'RTX 3090 with 24 GB') or before
# ('192 GB M2 Ultra') a GPU name.
_MEMORY_AFTER = compiled(
    # 'V100-32G', 'h100-80g': the memory joined to the name by a hyphen too.
    # 'M2 Ultra (60 GPU cores, 192GB memory)': past the cores said before the memory.
    r"^(?:\s*(?:\(|,)|-|/)?(?:\s*\d{1,3}[\s-]*(?:gpu[\s-]+)?cores?(?:[\s-]+gpu)?\s*,?)?"
    rf"\s*(?:gpus?\s+)?(?:with\s+|w/\s*)?({NUMBER})\s*(gb|gib|g)\b(?:\s+(?:of\s+)?(?:gpu\s+|video\s+)?"
    r"(?:unified(?:\s+(?:memory|ram))?|vram|memory|ram)(?:\s+each)?)?",
    re.I,
)
# An Apple chip (catalog or not) with its product name, right before a memory amount: that
# amount is the machine's unified memory, not system RAM beside a GPU ('my M2 with 16 GB of RAM').
_APPLE_CHIP_BEFORE = compiled(
    rf"\b(?:apple\s+)?m[1-5](?:\s+(?:pro|max|ultra))?(?:\s*{_MAC_PRODUCT})?"
    r"\s*(?:\(|,)?\s*(?:with\s+|w/\s*)?$",
    re.I,
)
_MEMORY_BEFORE = compiled(rf"({NUMBER})\s*(gb|gib|g)\s*(?:of\s+)?(?:vram\s+)?$", re.I)


def _ram_bytes(number: str, unit: str) -> int:
    """RAM as written: GB, GiB ('Gi', as free -h prints it), 'G', TB ('1.5T')."""
    unit = unit.lower()
    if unit in ("tb", "t"):
        return round(float(number.replace(",", "")) * 1000 * GB)
    return _memory_bytes(number, "gib" if unit in ("gib", "gi") else "gb")


_USE_BEFORE = compiled(
    r"\b(?:takes?|took|taking|uses?|used|using|needs?|needed|requires?|required|consumes?|"
    r"consuming|eats|ate|occup(?:y|ies|ied))\s+(?:about\s+|around\s+|roughly\s+|~\s*|up\s+to\s+|"
    r"over\s+|more\s+than\s+|nearly\s+|almost\s+|only\s+|just\s+)?$",
    re.I,
)
"""A verb of use right before a RAM figure: what something takes, not what the machine has."""

_CPU_SAID = compiled(
    r"\bcpus?\b|\bvcpus?\b|\b\d+\s*cores?\b|\b(?:xeon|epyc|ryzen|threadripper)\b", re.I
)
"""A CPU said: the question lists the machine, so a bare 'N GB memory' in it is the machine's."""
_CARD_WITH_BEFORE = compiled(
    r"(?:\b(?:rtx|gtx|rx)?\s*\d{3,4}(?:\s*(?:ti|super|xt))?|\b[a-z]\d{2,3}[a-z]?)\s+(?:with|has|having)\s+"
    r"(?:only\s+|just\s+)?$",
    re.I,
)
"""A card's name and 'with' right before a memory figure ('a 3070 with 8gb of ram')."""

_GPU_MEMORY_SAID = compiled(r"\bvram\b|\bgpu\s+memory\b|显存", re.I)


def _cards_own_memory(before: str, number: str) -> bool:
    """'a 3070 with 8gb of ram': a card named with 'with' right before the figure, the figure
    its own memory (the 3070's 8 GB) — not '4090 with 64 GB of RAM', the machine's."""
    card = _CARD_WITH_BEFORE.search(before)
    if card is None:
        return False
    found = gpu_index().find(card.group(0))
    if not found or found[0].id is None:
        return False
    memory = get_catalog().gpus[found[0].id].memory_bytes
    return same_memory(_memory_bytes(number, "gb"), memory)


_RAM_LABEL_BEFORE = compiled(r"\b(?:system\s+)?(?:ram|memory|mem)\W{0,4}[:：=]\W{0,4}$", re.I)


def extract_system_ram(t: Text, p: ParsedWorkload) -> None:
    """System RAM for the layers that do not fit the GPU ('64 GB of RAM', '128GB DDR5', '448GB
    DRAM', and as spec lists label it: 'RAM: 64GB', 'CPU mem: 502Gi', 'DRAM 1.5T')."""
    ram = (
        r"(?:(?:system|cpu|host)\s+memory\b"
        r"|(?:system\s+|cpu\s+|host\s+|ddr\s?\d\s+)?(?:ram|dram|ddr\s?\d)\b)"
    )
    unit = r"gb|gib|gi|g|tb|t"
    # 'RAM: 64GB', 'system RAM (128 GB)'.
    label = r"\b(?:system\s+ram|ram|dram|cpu\s+mem(?:ory)?|system\s+memory)\s*[:：=(]?\s*"
    pattern = (
        # Not the figure before a label ('16G RAM 64G': the 16G is the card's).
        # Nor that before a count of CPUs ('125 GB RAM 12 vCPU': the RAM's own).
        rf"\b(?P<n1>{NUMBER})\s*(?P<u1>{unit})\s+(?:of\s+)?{ram}"
        r"(?!\s*[:：=]?\s*\d(?![\d.]*\s*(?:v?cpus?|cores?|threads?)\b))"
        rf"|(?<![\w-]){label}(?P<n2>{NUMBER})\s*(?P<u2>gb|gib|gi|g|tb|t)\b(?!\s*(?:of\s+)?v?ram)"
        r"(?:\s*(?:ddr\s?\d|dram)\b)?"
    )
    if _CPU_SAID.search(t.original):
        # A spec list with its CPU ('40 core cpu/ 40GB mem', '8 GB Memory / 4 Intel vCPUs',
        # 'CPU: 80 … Memory: 256G'): its memory is the machine's.
        pattern += (
            rf"|(?<![\w.])(?P<n4>{NUMBER})\s*(?P<u4>gb|gib|g|tb)\s*(?:of\s+)?(?:memory|mem)\b"
            rf"|(?<![\w-])memory\s*[:：]\s*(?P<n5>{NUMBER})\s*(?P<u5>gb|gib|gi|g|tb|t)\b"
        )
    my_memory = (
        r"\b(?:my|our)\s+(?:system\s+|cpu\s+)?(?:memory|ram)\s+is\s+(?:only\s+|just\s+|about\s+)?"
        rf"(?P<n3>{NUMBER})\s*(?P<u3>gb|gib|gi|g|tb|t)\b"
    )
    if compiled(my_memory, re.I).search(t.work) and (
        _GPU_MEMORY_SAID.search(t.original) or gpu_index().find(t.original)
    ):
        # 'my memory is only 256GB' beside cards and their VRAM: the machine's RAM (the names
        # are looked up only when the words are there).
        pattern += "|" + my_memory
    for m in compiled(pattern, re.I).finditer(t.work):
        before = t.work[max(0, m.start() - 48) : m.start()]
        if _APPLE_CHIP_BEFORE.search(before) or _MAC_BEFORE.search(before):
            continue  # an Apple machine's unified memory: read with the chip (extract_gpus)
        if _USE_BEFORE.search(before):
            continue  # 'training takes about 18GB of RAM': a use seen, not the machine's RAM
        said = next(k for k in ("1", "2", "3", "4", "5") if m.groupdict().get(f"n{k}"))
        number, unit_said = m.group(f"n{said}"), m.group(f"u{said}")
        if _cards_own_memory(before, number) or compiled(r"\b(?:gpu|vram|video)\s*$", re.I).search(
            before
        ):
            continue  # 'a 3070 with 8gb of ram', 'GPU memory: 24G': the card's memory
        t.consume(m.start(), m.end())
        # A spec list's label before a figure that names its unit ('RAM: 32GB RAM'): read with it.
        label_said = _RAM_LABEL_BEFORE.search(t.work[: m.start()])
        if label_said is not None:
            t.consume(label_said.start(), label_said.end())
        p.system_ram_bytes = _ram_bytes(number, unit_said)


def _stated_memory(t: Text, start: int, end: int) -> tuple[int, int, int] | None:
    """(bytes, span start, span end) of a memory amount beside the GPU name at start:end."""
    after = _MEMORY_AFTER.match(t.work[end : end + 40])
    if after:
        return _memory_bytes(after.group(1), after.group(2)), start, end + after.end()
    before = _MEMORY_BEFORE.search(t.work[max(0, start - 40) : start])
    if before and not _cut_number(t.work, start - len(before.group(0))):
        return _memory_bytes(before.group(1), before.group(2)), start - len(before.group(0)), end
    return None


def _cut_number(text: str, start: int) -> bool:
    """Whether a number read from a window of `text` starting at `start` is the tail of a longer
    one ('6GB' of '16GB MacBook Pro M1 Pro', the window cut inside it)."""
    return start > 0 and text[start - 1] in "0123456789.,"


_COUNT_BEFORE = compiled(
    rf"(?:(?<![\d.,])\b({NUMBER})\s*(?:x|×|\*)?|\b({WORD_NUMBER}))\s*(?:gpus?\s+|cards?\s+)?"
    r"(?:nvidia\s+|amd\s+|geforce\s+)*$",
    re.I,
)


def _unknown_count(t: Text, start: int, p: ParsedWorkload) -> int | None:
    """How many of a GPU the catalog lacks: a count right before its name ('4 GPU Mi50',
    '2x P40'), 'my' / 'a' (one), or the GPU count said without a name ('4 GPUs', taken)."""
    offset = max(0, start - 16)
    before = _COUNT_BEFORE.search(t.work[offset:start])
    if before and _cut_number(t.work, offset + before.start()):
        before = None
    if before:
        t.consume(offset + before.start(), start)
    else:
        before = _COUNT_BEFORE.search(t.original[offset:start])
        if before and _cut_number(t.original, offset + before.start()):
            before = None
    if before:
        count = positive_int(before.group(1) or before.group(2))
        if count is not None and p.gpu_count == count and not p.gpus:
            p.gpu_count = None  # '4 GPU Mi50': the count read as unnamed GPUs is this GPU's
        return count
    if _MINE.search(t.original[max(0, start - 12) : start]):
        return 1
    if p.gpu_count is not None and not p.gpus:
        count, p.gpu_count = p.gpu_count, None
        return count
    return None


APPLE_RAM_ASKED = (
    "Apple silicon's GPU uses macOS's default working set of it (there is no separate VRAM)."
)
"""Why an Apple chip's memory is asked (the question's last sentence)."""


def _with_mac_product(t: Text, m: re.Match[str]) -> tuple[int, str]:
    """An Apple chip the catalog lacks with its product name before or after it ('MacBook
    Air M3', 'M4 Mac mini'): the product words are part of the machine's name (consumed).
    Returns the start of the name and the words as written."""
    start, end = m.start(), m.end()
    before = compiled(rf"{_MAC_PRODUCT}\s*$", re.I).search(t.work[max(0, start - 24) : start])
    if before:
        start -= len(before.group(0))
    after = compiled(rf"\s*{_MAC_PRODUCT}", re.I).match(t.work[end : end + 24])
    if after:
        t.consume(end, end + after.end())
    words = t.original[start : end + (after.end() if after else 0)]
    t.consume(start, end)
    return start, compiled(r"^(?:my|our)\s+", re.I).sub("", " ".join(words.split()))


_MAC_BEFORE = compiled(rf"(?:{_MAC_PRODUCT}|\bmac\b)\s*(?:\(|,)?\s*(?:with\s+|w/\s*)?$", re.I)
_MAC_WITH_MEMORY = compiled(
    rf"(?:\b(?:my|a|an|our)\s+)?(?P<mac>{_MAC_PRODUCT}|\bmac\b)\s*(?:\(|,)?\s*(?:with\s+|w/\s*)?"
    rf"(?P<gb>{NUMBER})\s*(?P<unit>gb|gib|g)\b(?:\s+(?:of\s+)?(?:unified\s+)?(?:memory|ram))?",
    re.I,
)


# The memory said first: 'my 16GB MacBook', 'a 64 GB Mac Studio' (a chip named after it is
# read by the chip's own pattern: 'a 16GB M1' is not this).
_MEMORY_MAC = compiled(
    rf"(?:\b(?:my|a|an|our)\s+)?(?<![\d.,])(?P<gb>{NUMBER})\s*(?P<unit>gb|gib|g)\s+"
    r"(?:(?:unified\s+)?(?:memory|ram)\s+)?(?P<mac>(?:macbook(?:\s+(?:pro|air))?|mac\s+(?:studio|"
    r"mini|pro)|imac|mac))\b(?!\s+(?:with\s+)?(?:an?\s+)?m[1-5]\b)",
    re.I,
)


def _macs_by_memory(t: Text, p: ParsedWorkload) -> None:
    """'a Mac with 64GB of RAM', 'my MacBook Pro 32GB', 'my 16GB MacBook' with no chip named:
    Apple silicon with that unified memory, the GPU at macOS's default working set of it
    (never system RAM beside a GPU)."""
    for m in [*t.each(_MAC_WITH_MEMORY.pattern), *t.each(_MEMORY_MAC.pattern)]:
        memory = _memory_bytes(m.group("gb"), m.group("unit"))
        words = " ".join(m.group("mac").split())
        if any(g.gpu is None and (g.text, g.memory_bytes) == (words, memory) for g in p.gpus):
            continue  # the same Mac said again (a thread's title, then its body): one machine
        p.gpus.append(
            GpuMention(
                gpu=None,
                text=words,
                count=1,
                memory_bytes=memory,
                unified_memory="macos-working-set",
            )
        )
        p.notes.append(
            f"'{m.group(0).strip()}' read as Apple silicon with {memory / GB:g} GB of unified "
            "memory, the chip not said (the GPU limited to macOS's default working set of it; "
            "its bandwidth unknown, so no catalog speed — name the chip for one)"
        )


_NOT_A_GPU = compiled(
    r"(?:amd|intel)[\s-]+(?:core[\s-]+)?(?:i[3579][\s-]?)?\d{4,5}[a-z]{0,3}"
    r"|(?:ad|ga|tu|gp)1\d\d[a-z]{0,3}|gb20[2-7][a-z]{0,3}",
    re.I,
)
"""Names like a GPU's that are not one to size: AMD / Intel CPU model numbers ('AMD 3960x',
'Intel 8280'), and GPU dies ('AD102', 'GB202GL': lspci's names beside the card's)."""


def _said_again(p: ParsedWorkload, text: str) -> bool:
    """Whether an unknown GPU name repeats one already read (its words within the other's:
    'p40' after 'Nvidia Tesla p40', 'Jetson Nano Orin' after 'Jetson Nano Orin Developer Kit')."""
    said = text.lower().split()
    for mention in p.gpus:
        if mention.gpu is not None:
            continue
        words = mention.text.lower().split()
        if set(said) <= set(words) or set(words) <= set(said):
            return True
    return False


def unknown_gpus(t: Text, p: ParsedWorkload) -> None:
    """A GPU name the catalog lacks: with a memory amount beside it, sized against that memory
    (flagged); without one, a question naming the closest catalog GPUs. Never replaced."""
    _macs_by_memory(t, p)
    gpus = get_catalog().gpus
    for m in list(compiled(_GPU_LIKE, re.I).finditer(t.work)):
        text = m.group(0).strip()
        start = m.start()
        if _NOT_A_GPU.fullmatch(text):
            # 'AMD 3960x', 'Intel 8280' (CPUs), 'GB202GL' (a die, the card named beside it).
            t.consume(m.start(), m.end())
            p.notes.append(f"'{text}' read as a CPU or a GPU die, not a GPU to size")
            continue
        if m.group("apple"):
            start, text = _with_mac_product(t, m)
        if _said_again(p, text):
            # 'Nvidia Tesla p40 24GB … anyone used GPU p40?': the card already read, once (with
            # the memory said again beside it, when it is the same).
            again = _stated_memory(t, start, m.end())
            known = {g.memory_bytes for g in p.gpus if g.gpu is None}
            if again is not None and again[0] in known:
                t.consume(again[1], again[2])
            t.consume(m.start(), m.end())
            continue
        stated = _stated_memory(t, start, m.end())
        if stated is not None:
            memory, span_start, span_end = stated
            t.consume(span_start, span_end)
            if p.gpu_memory_bytes == memory and not p.gpus:
                p.notes = [n for n in p.notes if "read as the catalog's" not in n]
            if p.gpu_memory_bytes == memory:
                p.gpu_memory_bytes = None  # the amount was this machine's, already placed
            if m.group("apple"):
                # Apple silicon has no VRAM: the GPU may wire the macOS working set of it.
                p.gpus.append(
                    GpuMention(
                        gpu=None,
                        text=text,
                        memory_bytes=memory,
                        unified_memory="macos-working-set",
                    )
                )
                p.notes.append(
                    f"'{text}' is not in the GPU catalog: sized as Apple silicon with the "
                    f"{memory / GB:g} GB of unified memory you gave, the GPU limited to macOS's "
                    "default GPU working set of it (its bandwidth is unknown, so no catalog speed)"
                )
                continue
            count = _unknown_count(t, span_start, p)
            p.gpus.append(GpuMention(gpu=None, text=text, memory_bytes=memory, count=count))
            if "jetson" in text.lower():
                p.notes.append(
                    f"A Jetson's {memory / GB:g} GB is shared by its CPU and GPU: the system "
                    "(JetPack, the runtime, your process) takes part of it before the model does"
                )
            p.notes.append(
                f"'{text}' is not in the GPU catalog: sized against the {memory / GB:g} GB you "
                "gave (its bandwidth is unknown, so no catalog speed)"
            )
            continue
        t.consume(m.start(), m.end())
        p.unplaced.append(text)
        if m.group("apple"):
            # Apple silicon is sized from its unified memory: ask for that, not another GPU.
            p.ask(
                "unified_memory",
                "missing",
                f"How much unified memory does the {text} have (e.g. '16 GB')? {APPLE_RAM_ASKED}",
                text,
            )
            continue
        key = compiled(r"[\s_]+").sub("-", text.lower()).removeprefix("nvidia-")
        near = closest_names(key, list(gpus))
        hint = f" Closest in the catalog: {', '.join(near)}." if near else ""
        p.ask(
            "gpu",
            "unknown",
            f"'{text}' is not in the GPU catalog (gpu-sizer gpus lists it): which catalog GPU "
            f"should I size on?{hint}",
            text,
        )
