"""What every part of an answer shares: the labels of GPUs and configurations, GiB figures,
and `CallResult` (a tool call beside the sizing report, e.g. a llama.cpp plan).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel

from tools.catalog import get_catalog
from tools.units import format_bytes

if TYPE_CHECKING:
    from tools.recommend import Option
    from tools.sizing.configuration import SizedConfiguration


@dataclass(frozen=True)
class CallResult:
    """One executed tool call: its name, arguments and typed result."""

    name: str
    arguments: dict[str, Any]
    value: BaseModel
    is_error: bool = False


def gib(num_bytes: float | None) -> str:
    """Bytes as GiB text with one decimal (2^30 bytes, as nvidia-smi reports); 'n/a' for None."""
    return "n/a" if num_bytes is None else format_bytes(num_bytes, "GiB", 1)


def gib_as_gb(num_bytes: float) -> str:
    """The same bytes in GB (10^9) with one decimal, for a figure set beside a GiB one."""
    return format_bytes(num_bytes, "GB", 1)


class Priced(Protocol):
    """A quoted price: who, when it was read and how old it was when priced."""

    provider: str
    as_of: str
    age: str | None


def priced_by(price: Priced) -> str:
    """'AWS, 2026-09-19, 74 days old': who prices a row, its as_of, (when the result carries
    it) its age on the clock of the call, and 'low confidence' for a rate the research could
    not confirm (a GPU price row's `low_confidence`)."""
    doubt = ", low confidence" if getattr(price, "low_confidence", False) else ""
    # An undated row's age is 'undated' too: said once.
    age = f", {price.age}" if price.age and price.age != price.as_of else ""
    return f"{price.provider}, {price.as_of}{age}{doubt}"


def gpu_name(gpu_id: str | None) -> str:
    """A GPU's catalog name without 'NVIDIA ' (its id when not catalogued); 'one GPU' for None."""
    if gpu_id is None:
        return "one GPU"
    gpu = get_catalog().gpus.get(gpu_id)
    return gpu.name.removeprefix("NVIDIA ") if gpu else gpu_id


def option_label(option: Option) -> str:
    """'2× H100 SXM5': an option's GPUs."""
    return f"{option.count}× {gpu_name(option.gpu)}"


def config_label(sized: SizedConfiguration, zero: bool = True) -> str:
    """A sized configuration: '2× H100 SXM5 with ZeRO-3', 'one GPU', '4 GPUs'."""
    if sized.gpu is None:  # sized without a GPU named: no "1× one GPU"
        return "one GPU" if sized.count == 1 else f"{sized.count} GPUs"
    sharded = f" with ZeRO-{sized.zero}" if zero and sized.zero and sized.count > 1 else ""
    return f"{sized.count}× {gpu_name(sized.gpu)}{sharded}"
