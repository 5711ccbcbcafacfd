"""The network between machines for a multi-machine training job: what the offer names, how
many machines the job spans, and the caveat a row carries.
"""

from __future__ import annotations

import math
import re

from tools.catalog import get_catalog
from tools.pricing import PriceEntry

# What a price entry's instance name or notes say about the network between machines, checked
# in this order (the first match names it). The catalog has no network field; offers that name
# their fabric do so in the instance name ('H100 Ethernet') or notes.
_FABRICS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Azure's ND96is_H100_v5 is labelled 'H100 SXM (no IB)': its machines share no InfiniBand.
    ("no InfiniBand", re.compile(r"\bno[\s-]+(?:ib|infiniband)\b", re.IGNORECASE)),
    ("InfiniBand", re.compile(r"infiniband|\bib\b", re.IGNORECASE)),
    ("RoCE (Ethernet)", re.compile(r"\broce", re.IGNORECASE)),
    ("EFA", re.compile(r"\befa\b", re.IGNORECASE)),
    ("Ethernet", re.compile(r"ethernet", re.IGNORECASE)),
)


_FABRIC_PHRASES = {
    "Ethernet": "an Ethernet network",
    "no InfiniBand": "machines without InfiniBand",
}


def stated_interconnect(price: PriceEntry) -> str | None:
    """The inter-machine network the offer names (instance, pricing term, notes), else None."""
    text = " ".join(
        t for t in (price.instance, price.gpu_label, price.pricing_type, price.notes) if t
    )
    return next((name for name, pattern in _FABRICS if pattern.search(text)), None)


def machines_spanned(price: PriceEntry, count: int, instances: int | None) -> int | None:
    """Machines a `count`-GPU job runs on: the whole instances billed, or for a per-GPU quote
    ⌈count / catalog gpus_per_node⌉ (the typical node of that GPU); None when unknown."""
    if instances is not None:
        return instances
    assert price.gpu is not None
    per_node = get_catalog().gpus[price.gpu].gpus_per_node
    return None if per_node is None else math.ceil(count / per_node)


def fabric_note(interconnect: str | None, machines: int | None, count: int) -> str | None:
    """A caveat for a job that spans machines: its gradient / ZeRO-3 traffic crosses the
    inter-machine network every step, which the price entry names or does not."""
    if machines is None or machines <= 1:
        return None
    span = f"{count} GPUs over {machines} machines"
    if interconnect is None:
        return (
            f"multi-node ({span}): interconnect not stated in the price entry; data-parallel "
            "and ZeRO/FSDP traffic crosses it every step, so ask the provider for its "
            "bandwidth per GPU before trusting the hours"
        )
    if interconnect in _FABRIC_PHRASES:
        return (
            f"multi-node ({span}) on {_FABRIC_PHRASES[interconnect]} (as the offer states): "
            "data-parallel and ZeRO/FSDP traffic crosses it every step; check its bandwidth "
            "per GPU, the hours assume the network keeps up"
        )
    return f"multi-node ({span}) over {interconnect} (as the offer names it)"
