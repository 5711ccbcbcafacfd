"""How far to trust a performance figure: measured, calibrated or estimated.

- measured: a published measurement of this exact setup (model, GPU, format, engine family,
  tensor parallelism, concurrency) is in the reference set; the figure *is* that measurement.
- calibrated: the model's efficiencies for this engine family and GPU class were fitted to
  measurements of that class (catalog/performance.toml names the rows).
- estimated: some constant fell back to another class or to a published default (the roofline
  with default efficiencies); the figure is an estimate.
"""

from __future__ import annotations

from typing import Literal

SpeedBasis = Literal["measured", "calibrated", "estimated"]

BASIS_ORDER: dict[SpeedBasis, int] = {"measured": 0, "calibrated": 1, "estimated": 2}

BASIS_DESCRIPTIONS: dict[SpeedBasis, str] = {
    "measured": "a published measurement of this exact setup",
    "calibrated": "performance model fitted to published measurements of this engine and GPU class",
    "estimated": "roofline with default efficiencies (no measurement of this engine and GPU class)",
}


def weakest(*bases: SpeedBasis) -> SpeedBasis:
    """The least trustworthy of several bases (a figure is as good as its weakest input)."""
    return max(bases, key=lambda b: BASIS_ORDER[b])
