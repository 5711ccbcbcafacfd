"""How the proposal names things: configurations, layouts in words, price dates, speed bases.

Labels only: each reads fields of a typed result and says them in words; nothing here computes
a figure or chooses between results.
"""

from __future__ import annotations

from tools.cost.results import ApiComparisonRow, PricedRow
from tools.memory import component_name
from tools.performance.basis import SpeedBasis
from tools.recommend import Option
from tools.sizing import PricedConfiguration

TIER_NAMES = {"on_demand": "on demand", "reserved": "reserved", "spot": "spot"}


def gpus(option: Option) -> str:
    """'2× AMD Instinct MI300X'."""
    return f"{option.count:,}× {option.gpu_name or option.gpu}"


def layout_code(option: Option) -> str:
    """'TP 2 × PP 1 × DP 4' (explained by `LAYOUT_LEGEND` wherever a table shows it)."""
    return f"TP {option.tp} × PP {option.pp} × DP {option.dp}"


LAYOUT_LEGEND = (
    "TP: GPUs that share each layer (tensor parallel); PP: pipeline stages; DP: independent "
    "copies of the model (replicas)."
)


def layout_words(option: Option, training: bool) -> str:
    """The layout in words: '2 replicas of the model, each on 1 GPU' / '1 replica split over
    8 GPUs (TP 8)'; training: data-parallel groups."""
    per = option.tp * option.pp
    split = f"TP {option.tp}" + (f" × PP {option.pp}" if option.pp > 1 else "")
    if training:
        groups = "data-parallel group" if option.dp == 1 else "data-parallel groups"
        each = "1 GPU" if per == 1 else f"{per:,} GPUs ({split})"
        return f"{option.dp:,} {groups} of {each}"
    copies = "1 replica of the model" if option.dp == 1 else f"{option.dp:,} replicas of the model"
    if per == 1:
        return copies + (" on 1 GPU" if option.dp == 1 else ", each on 1 GPU")
    where = "split over" if option.dp == 1 else "each split over"
    return f"{copies}, {where} {per:,} GPUs ({split})"


def servers(option: Option) -> str:
    """'in 1 server' / 'across 2 servers' (the catalog's GPUs per server)."""
    return "in 1 server" if option.nodes == 1 else f"across {option.nodes:,} servers"


def tier(name: str) -> str:
    """A price tier as words ('on demand')."""
    return TIER_NAMES.get(name, name.replace("_", " "))


def price_age(price: PricedRow | PricedConfiguration | ApiComparisonRow) -> str:
    """'as of 2026-09-19 (12 days old when priced)': the age the tools counted to the session's
    clock, labelled with that time (a proposal is read later than it was priced); an undated
    row is 'undated' once."""
    if price.as_of == "undated":
        return "undated"
    # An undated row (as_of "undated", "undated copy") has no age to add: said once.
    age = f" ({price.age} when priced)" if price.age and price.age != "undated" else ""
    return f"as of {price.as_of}{age}"


def price_date(price: PricedRow | PricedConfiguration) -> str:
    """`price_age`, and for a stale price that it was stale when sized, for a low-confidence
    one that the research could not confirm it."""
    doubt = " — low confidence (unconfirmed rate)" if price.low_confidence else ""
    return price_age(price) + (" — stale when sized" if price.stale else "") + doubt


def basis(value: SpeedBasis | None) -> str:
    """A speed's basis as shown next to it ('estimated' when the result does not say)."""
    return value or "estimated"


def component(name: str, short: bool = False) -> str:
    """A memory component for readers: its short name, or what it is (`tools.memory`'s names,
    the ones every surface shows)."""
    return component_name(name, described=not short)
