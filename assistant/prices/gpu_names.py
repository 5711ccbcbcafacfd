"""Provider accelerator names → catalog GPU ids: an explicit table, never a guess.

A price catalog names the GPU as its provider does ("A100", "H100", "A100-80GB"), and the same
name means different parts on different clouds, sometimes on one cloud: AWS's "A100" is the
40 GB SXM4 of p4d.24xlarge, Lambda's "H100" is the PCIe card in `gpu_1x_h100_pcie` and the
SXM5 part in `gpu_8x_h100_sxm5`. So every rule names the cloud, the accelerator name as the
source prints it and, where the name alone is ambiguous, the instance types it covers; a row
no rule covers is skipped and counted under its reason, and a rule whose GPU is not in the
catalog (yet) maps nothing.

As a safety net against a wrong rule, a row whose stated GPU memory (SkyPilot's `GpuInfo`
`SizeInMiB`) differs from the catalog GPU's by more than `MEMORY_TOLERANCE` is skipped too:
it separates 40 from 80 GB and 24 from 48 GB parts, while binary-vs-decimal units (81,920 MiB
is 85.9 GB for an "80 GB" H100) stay well inside it.

Sources of the rules: the providers' instance pages (AWS EC2 accelerated computing instance
types: p4d = 8× A100 40 GB, p4de = 8× A100 80 GB, p5 = H100 SXM5 80 GB, p5e/p5en = H200
141 GB, p6-b200 = B200, g5 = A10G, g6/gr6 = L4, g6e = L40S, g4dn = T4, p3 = V100 SXM2 16 GB,
p3dn = V100 SXM2 32 GB; Lambda's instance types page: the `_pcie` / `_sxm4` / `_sxm5` suffix
names the form factor) and the rows themselves (tests/data/prices/, recorded from
skypilot-org/skypilot-catalog). Left unmapped on purpose: Lambda's `gpu_8x_v100` (its name does
not say SXM2 or PCIe) and `gpu_8x_a100` (40 GB, SXM4 or PCIe not stated), AWS `T4g` (g5g).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from tools.catalog import GpuSpec

MEMORY_TOLERANCE = 0.15
"""Largest relative difference between a row's stated GPU memory and the catalog GPU's."""

MIB = 2**20


@dataclass(frozen=True)
class GpuNameRule:
    """One provider accelerator name (on one cloud, optionally for some instances only)."""

    cloud: str
    accelerator: str
    gpu: str
    why: str
    instances: tuple[str, ...] = ()
    """Instance types the rule covers; empty: every instance with that accelerator name."""


RULES: tuple[GpuNameRule, ...] = (
    GpuNameRule("aws", "A10G", "a10g", "AWS g5 instances carry the NVIDIA A10G (24 GB)"),
    GpuNameRule("aws", "L4", "l4", "AWS g6 / gr6 instances carry the NVIDIA L4 (24 GB)"),
    GpuNameRule("aws", "L40S", "l40s", "AWS g6e instances carry the NVIDIA L40S (48 GB)"),
    GpuNameRule(
        "aws",
        "A100",
        "a100-40gb-sxm4",
        "AWS names the 40 GB A100 of p4d.24xlarge (8× A100 40 GB SXM4) 'A100'",
    ),
    GpuNameRule("aws", "A100-80GB", "a100-80gb-sxm4", "AWS p4de.24xlarge: 8× A100 80 GB SXM4"),
    GpuNameRule("aws", "H100", "h100-sxm", "AWS p5 instances carry the H100 SXM5 (80 GB)"),
    GpuNameRule("aws", "H200", "h200-sxm", "AWS p5e / p5en instances carry the H200 (141 GB)"),
    GpuNameRule("aws", "B200", "b200-hgx", "AWS p6-b200 instances are HGX B200 boards"),
    GpuNameRule("aws", "T4", "t4", "AWS g4dn instances carry the NVIDIA T4 (16 GB)"),
    GpuNameRule("aws", "V100", "v100-sxm2-16gb", "AWS p3 instances carry the V100 SXM2 (16 GB)"),
    GpuNameRule("aws", "V100-32GB", "v100-sxm2-32gb", "AWS p3dn.24xlarge: 8× V100 SXM2 32 GB"),
    GpuNameRule("lambda", "A10", "a10", "Lambda gpu_1x_a10: NVIDIA A10 (24 GB)"),
    GpuNameRule("lambda", "B200", "b200-hgx", "Lambda gpu_Nx_b200_sxm6: B200 SXM6 (HGX B200)"),
    GpuNameRule("lambda", "A6000", "rtx-a6000", "Lambda gpu_Nx_a6000: NVIDIA RTX A6000 (48 GB)"),
    GpuNameRule(
        "lambda", "GH200", "gh200-96gb", "Lambda gpu_1x_gh200: GH200 with 96 GB HBM3 (98,304 MiB)"
    ),
    GpuNameRule(
        "lambda",
        "A100-80GB",
        "a100-80gb-sxm4",
        "Lambda gpu_8x_a100_80gb_sxm4: 8× A100 80 GB SXM4",
        ("gpu_8x_a100_80gb_sxm4",),
    ),
    GpuNameRule(
        "lambda",
        "A100",
        "a100-40gb-sxm4",
        "Lambda gpu_1x_a100_sxm4: A100 40 GB SXM4 (the suffix names the form factor)",
        ("gpu_1x_a100_sxm4",),
    ),
    GpuNameRule(
        "lambda",
        "H100",
        "h100-pcie",
        "Lambda gpu_1x_h100_pcie: H100 PCIe 80 GB",
        ("gpu_1x_h100_pcie",),
    ),
    GpuNameRule(
        "lambda",
        "H100",
        "h100-sxm",
        "Lambda gpu_Nx_h100_sxm5: H100 SXM5 80 GB",
        ("gpu_1x_h100_sxm5", "gpu_2x_h100_sxm5", "gpu_4x_h100_sxm5", "gpu_8x_h100_sxm5"),
    ),
)


@dataclass(frozen=True)
class Mapped:
    """A row's catalog GPU and why, or the reason it maps to none (`gpu` None)."""

    gpu: str | None
    why: str


UNKNOWN = "accelerator not in the mapping table"
AMBIGUOUS = "accelerator name is ambiguous on this cloud and the instance is not listed"
NOT_IN_CATALOG = "mapped GPU is not in the catalog"
MEMORY_MISMATCH = "stated GPU memory differs from the catalog GPU's"


def map_accelerator(
    cloud: str,
    accelerator: str,
    instance: str,
    gpus: Mapping[str, GpuSpec],
    memory_mib: int | None = None,
) -> Mapped:
    """The catalog GPU of one source row, by `RULES` only (see module docstring)."""
    rules = [r for r in RULES if r.cloud == cloud and r.accelerator == accelerator]
    if not rules:
        return Mapped(None, UNKNOWN)
    matching = [r for r in rules if not r.instances or instance in r.instances]
    if len(matching) != 1:
        return Mapped(None, AMBIGUOUS)
    rule = matching[0]
    gpu = gpus.get(rule.gpu)
    if gpu is None:
        return Mapped(None, NOT_IN_CATALOG)
    if memory_mib is not None and memory_mib > 0:
        stated = memory_mib * MIB
        if abs(stated - gpu.memory_bytes) > MEMORY_TOLERANCE * gpu.memory_bytes:
            return Mapped(None, MEMORY_MISMATCH)
    return Mapped(rule.gpu, rule.why)
