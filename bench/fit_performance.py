"""Fit the performance model's constants to the reference set and write catalog/performance.toml.

    .venv/bin/python -m bench.fit_performance          # fit, print, write the catalog file
    .venv/bin/python -m bench.fit_performance --check  # fit and compare with the catalog file

What is fitted (tools/performance/steps.py has the formulas):
1. Batch-1 decode rows: a decode step is linear in its unknowns,
       t = (W + KV)/BW · (1/η) + L · c + 2L · (a + b·(tp − 1)) + transfer,
   so 1/η (per engine family × GPU class × kernel family), the per-layer overhead c (per engine
   family × GPU class) and the all-reduce latency a + b·(tp − 1) (per link kind) are solved
   together by least squares on relative errors. A weak ridge prior (RIDGE) keeps constants that
   the rows cannot separate (one model size in a class) near the published defaults; the fixed
   time per step is fitted without it where its rows span two model depths or more.
2. Prefill, TTFT and full-load rows: the GEMM MFU per engine family × GPU class (× kernel) is
   the geometric mean of the MFU each row implies with the decode constants fixed (bisection on
   the runtime model); the MoE expert-GEMM efficiency the same way on the MoE rows. Its pooled
   fallbacks rest on two fitted constants or more, none of them FP8/FP4 (GEMM_POOL_MIN_CONSTANTS,
   `low_precision`): a class with no constant of its own gets what several 16-bit classes share.
3. Training rows: MFU per GPU generation on the 6N (+attention) basis, likewise.

Every constant needs at least two rows (MIN_ROWS): a row whose most specific key has fewer
moves to the next more general key, and a row with no key left is predicted with the defaults.
Held-out error: each row is predicted by constants refitted without it (leave-one-out).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from datetime import date
from functools import lru_cache
from pathlib import Path
from typing import get_args

from bench.perf_rows import (
    DECODE_GROUPS,
    Setup,
    gpu_cores,
    reference_rows,
    setups,
    source_of,
    split,
)
from tools.memory.overhead import LLAMA_CPP_N_UBATCH
from tools.performance import (
    Calibration,
    Constant,
    ModelOnGpus,
    engine_limits,
    gpu_class,
    gpu_link,
    prefill_time,
    steady_state,
    training_flops_per_token,
)
from tools.performance.calibration import calibration_path, parse_calibration
from tools.performance.efficiency import (
    DECODE_BANDWIDTH_EFF,
    DEFAULT_GEMM_MFU,
    NCCL_HOP_LATENCY_S,
    NCCL_RING_BASE_LATENCY_S,
    Efficiencies,
    accumulate_for,
    chip_keys,
    decode_keys,
    dequant_keys,
    dequantises,
    gemm_keys,
    is_backend_key,
    overhead_keys,
    step_keys,
    with_chip,
)
from tools.performance.engines import (
    LLAMA_CPP_BACKENDS,
    KernelFamily,
    base_engine,
    build_era,
    engine_family,
    kernel_family,
    llama_backend,
)
from tools.performance.hardware import (
    apple_chip,
    apple_core_rate_keys,
    compute_rate,
    stream_bandwidth,
    vector_flops,
)
from tools.performance.training import DEFAULT_WALLCLOCK_EFFICIENCY, WALLCLOCK_SOURCE

MIN_ROWS = 3
MIN_SOURCES = 2
"""Every constant rests on at least MIN_ROWS rows from at least MIN_SOURCES publications
(issue 31); a key with fewer moves its rows to the next more general key."""
RIDGE = 0.02  # weight of the prior per unknown, against relative-error rows of weight 1
UNPRIORED_WHEN_SPANNED = ("step_overhead",)
SIGNED = ("chip_bandwidth",)
"""Unknowns of either sign: a chip generation may stream faster than the reference one."""
"""Unknowns fitted without the ridge prior when their rows span two model depths or more. A
fixed cost per token separates from the per-layer and per-byte terms only across depths; where
rows give it (llama.cpp at 7B-8B and 70B on Apple, NVIDIA GDDR and HBM) the prior only biases
it: it held the Metal figure at 0.41 ms where XiongjieDai's M2 Ultra 8B/70B pairs imply about
4 ms in both F16 and Q4_K_M. Keys whose rows are one depth (AMD, Intel: 7B only) keep it."""
PRIORS = {
    "decode_bandwidth": 1 / 0.8,  # 1/η
    # added to 1/η on one Apple chip generation: none until rows say otherwise (a weak ridge
    # toward 0, RIDGE on the term in units of SCALE, since a relative prior needs a non-zero)
    "chip_bandwidth": 0.0,
    "layer_overhead": 20e-6,  # s per layer per step
    # s per step whatever the depth: llama.cpp's ggml graph build and sampling on the host
    "step_overhead": 300e-6,
    "allreduce_base": NCCL_RING_BASE_LATENCY_S,
    "allreduce_per_gpu": 2 * NCCL_HOP_LATENCY_S["nvlink"],
    # FLOPs per stored byte to dequantise: ~3 for int8 (convert, scale, FMA on one weight),
    # ~2×(unpack, convert, scale/zero) for 4-bit formats; a weak prior between them.
    "dequant": 4.0,
}
SCALE = {  # unknowns are solved in units that keep the normal equations well conditioned
    "decode_bandwidth": 1.0,
    "chip_bandwidth": 0.1,
    "layer_overhead": 1e-5,
    "step_overhead": 1e-4,
    "allreduce_base": 1e-5,
    "allreduce_per_gpu": 1e-6,
    "dequant": 1.0,
}


# --- key assignment ----------------------------------------------------------------------


@lru_cache(maxsize=1)
def _row_sources() -> dict[str, str]:
    return {str(r["id"]): source_of(r) for r in reference_rows()}


def assign(
    candidates: dict[str, list[str]], min_rows: int = MIN_ROWS, min_sources: int = MIN_SOURCES
) -> dict[str, str | None]:
    """The key each row uses: its most specific candidate that at least `min_rows` rows from
    at least `min_sources` publications use, found by moving the rows of thinner keys one
    level up until nothing moves."""
    sources = _row_sources()
    level = dict.fromkeys(candidates, 0)
    while True:
        chosen = {
            r: (keys[level[r]] if level[r] < len(keys) else None) for r, keys in candidates.items()
        }
        counts: dict[str, int] = {}
        publications: dict[str, set[str]] = {}
        for r, key in chosen.items():
            if key is not None:
                counts[key] = counts.get(key, 0) + 1
                publications.setdefault(key, set()).add(sources.get(r, r))
        moved = False
        for r, key in chosen.items():
            if key is not None and (counts[key] < min_rows or len(publications[key]) < min_sources):
                level[r] += 1
                moved = True
        if not moved:
            return chosen


def assign_backend_first(
    rows: Sequence[Setup],
    candidates: Callable[[Setup], list[str]],
    apart: frozenset[str] = frozenset(),
) -> dict[str, str | None]:
    """`assign` with a non-default llama.cpp backend's own key (efficiency.backend_keys,
    first in a row's candidates) decided first: the rows of a backend key with enough rows
    and publications take it, and the others are assigned on their remaining keys together
    with every other row, exactly as without a backend (a thin backend key moving its rows in
    step with the others would leave them a level behind, and strip keys they share). A row
    of a backend calibrated `apart` on its GPU class (`backend_apart`) that has no key of its
    own here is left out (None): it is predicted from the class's constants without moving
    them."""
    cands = {s.id: candidates(s) for s in rows}
    head = {}
    for s in rows:
        b, keys = backend(s), cands[s.id]
        if keys and is_backend_key(keys[0], b):
            head[s.id] = keys[:1]
    first = {r: k for r, k in assign(head).items() if k is not None}
    left_out = {r for r, keys in head.items() if r not in first and _stem(keys[0]) in apart}
    rest = {
        r: (keys[1:] if r in head else keys)
        for r, keys in cands.items()
        if r not in first and r not in left_out
    }
    return {**dict.fromkeys(left_out), **assign(rest), **first}


def _stem(key: str) -> str:
    """A backend key's family/memory/backend part (dequantisation keys add the kernel)."""
    return "/".join(key.split("/")[:3])


def backend_apart(decode: DecodeFit) -> frozenset[str]:
    """The backends on a GPU class (`llama.cpp/nvidia-gddr/vulkan`) with a decode bandwidth
    constant of their own: calibrated apart from the class's default backend, so their rows
    feed no default-backend constant in the compute fit either."""
    return frozenset(
        _stem(k)
        for (t, k) in decode.values
        if t == "decode_bandwidth" and any(is_backend_key(k, b) for b in LLAMA_CPP_BACKENDS)
    )


def _class_parts(s: Setup) -> tuple[str, str, str, str]:
    cls = gpu_class(s.gpu)
    return (
        engine_family(s.model.engine),
        cls.memory,
        cls.generation,
        kernel_family(s.model.weight_format),
    )


def backend(s: Setup) -> str | None:
    """The row's non-default llama.cpp backend ("vulkan"), None otherwise."""
    return llama_backend(s.model.engine)


def has_alu(s: Setup) -> bool:
    """True when the row's GPU has an FP32 figure (its format's cost is the dequant term)."""
    return vector_flops(s.gpu) is not None


def decode_candidates(s: Setup) -> list[str]:
    return decode_keys(
        *_class_parts(s),
        has_alu=has_alu(s),
        weight_format=s.model.weight_format,
        chip=apple_chip(s.gpu),
        backend=backend(s),
        era=build_era(s.model.engine),
    )


def chip_candidates(s: Setup) -> list[str]:
    """The chip-generation term's key of an Apple row under llama.cpp (none otherwise)."""
    family, memory, _, _ = _class_parts(s)
    return chip_keys(family, memory, apple_chip(s.gpu))


def dequant_candidates(s: Setup) -> list[str]:
    """The dequantisation constant's keys for a weight-only row on a GPU with an FP32
    figure (none otherwise)."""
    family, memory, _, kernel = _class_parts(s)
    if not has_alu(s) or not dequantises(kernel, s.gpu, family):
        return []
    return dequant_keys(kernel, family, memory, backend(s))


def overhead_candidates(s: Setup) -> list[str]:
    f, mem, gen, _ = _class_parts(s)
    return overhead_keys(f, mem, gen, backend(s))


STEP_OVERHEAD_FAMILIES = ("llama.cpp", "mlx")
"""Engine families with a fixed host cost per token fitted apart from the per-layer one:
llama.cpp builds its ggml graph and samples on the CPU every token, and its rows span 7B to
70B (32 to 80 layers) in several GPU classes, so the two separate. CUDA-graph engines replay a
captured graph (no per-token host work to separate); the eager rows are one model size."""


def step_candidates(s: Setup) -> list[str]:
    family, memory, _, _ = _class_parts(s)
    return step_keys(family, memory, backend(s)) if family in STEP_OVERHEAD_FAMILIES else []


def gemm_candidates(s: Setup) -> list[str]:
    return gemm_keys(*_class_parts(s), backend(s))


# --- linear least squares ----------------------------------------------------------------


def solve(matrix: list[list[float]], rhs: list[float]) -> list[float]:
    """Solve a small dense linear system by Gaussian elimination with partial pivoting."""
    n = len(rhs)
    a = [[*row, rhs[i]] for i, row in enumerate(matrix)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        if abs(a[col][col]) < 1e-300:
            continue
        for r in range(n):
            if r != col and a[r][col]:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


@dataclass
class LinearRow:
    """One decode row as t = Σ coef[u]·u + const (t in seconds)."""

    id: str
    t: float
    coef: dict[tuple[str, str], float]
    const: float
    layers: int = 0


def fit_linear(rows: Sequence[LinearRow]) -> dict[tuple[str, str], float]:
    """Unknowns minimising Σ((pred − t)/t)² + RIDGE·Σ((u − prior)/prior)², with every unknown
    kept non-negative and 1/η ≥ 1 (an active set: violators are pinned and the rest refit)."""
    unknowns = sorted({u for r in rows for u in r.coef})
    depths: dict[tuple[str, str], set[int]] = {}
    for r in rows:
        for u in r.coef:
            depths.setdefault(u, set()).add(r.layers)
    pinned: dict[tuple[str, str], float] = {}
    while True:
        free = [u for u in unknowns if u not in pinned]
        index = {u: i for i, u in enumerate(free)}
        n = len(free)
        ata = [[0.0] * n for _ in range(n)]
        atb = [0.0] * n
        for r in rows:
            w = 1.0 / r.t
            vec = [0.0] * n
            target = r.t - r.const - sum(c * pinned[u] for u, c in r.coef.items() if u in pinned)
            for u, c in r.coef.items():
                if u in index:
                    vec[index[u]] = c * SCALE[u[0]] * w
            for i in range(n):
                if vec[i]:
                    atb[i] += vec[i] * target * w
                    for j in range(n):
                        ata[i][j] += vec[i] * vec[j]
        for u, i in index.items():
            if u[0] in UNPRIORED_WHEN_SPANNED and len(depths[u]) >= 2:
                continue
            prior = PRIORS[u[0]] / SCALE[u[0]]
            weight = RIDGE / prior**2 if prior else RIDGE
            ata[i][i] += weight
            atb[i] += weight * prior
        x = solve(ata, atb) if n else []
        values = {u: x[index[u]] * SCALE[u[0]] for u in free}
        bad = {
            u: (1.0 if u[0] == "decode_bandwidth" else 0.0)
            for u, v in values.items()
            if u[0] not in SIGNED and v < (1.0 if u[0] == "decode_bandwidth" else 0.0)
        }
        if not bad:
            return {**values, **pinned}
        pinned.update(bad)


# --- decode ------------------------------------------------------------------------------


@dataclass(frozen=True)
class DecodeKeys:
    """The keys each decode row's terms use (None: a pooled fallback or the default)."""

    bandwidth: dict[str, str | None]
    overhead: dict[str, str | None]
    link: dict[str, str | None]
    dequant: dict[str, str | None]
    step: dict[str, str | None] = field(default_factory=dict)
    chip: dict[str, str | None] = field(default_factory=dict)


def decode_keys_for(rows: Sequence[Setup]) -> DecodeKeys:
    tp_rows = [s for s in rows if s.model.tp > 1]
    dq_rows = [s for s in rows if dequant_candidates(s)]
    return DecodeKeys(
        bandwidth=assign_backend_first(rows, decode_candidates),
        overhead=assign_backend_first(rows, overhead_candidates),
        link=assign({s.id: [gpu_link(s.gpu, s.model.tp).kind, "any"] for s in tp_rows}),
        dequant=assign_backend_first(dq_rows, dequant_candidates),
        step=assign_backend_first([s for s in rows if step_candidates(s)], step_candidates),
        chip=assign({s.id: chip_candidates(s) for s in rows if chip_candidates(s)}),
    )


Pool = dict[tuple[str, str], float]


def first_value(table: str, candidates: Sequence[str], *tables: Pool) -> float | None:
    """The value of the most specific candidate key any of `tables` has (the run-time lookup)."""
    for key in candidates:
        for t in tables:
            if (table, key) in t:
                return t[(table, key)]
    return None


def pool_table(
    table: str,
    fitted: dict[str, tuple[float, list[str]]],
    parents: Callable[[str], list[str]],
    shadowed: set[str],
    min_constants: int = 1,
) -> dict[str, tuple[float, list[str]]]:
    """Pooled fallbacks: at each more general key the fit has no constant for and no fitted
    row would meet first (`shadowed`), the row-weighted geometric mean of the constants under
    it (at least MIN_ROWS rows, and at least `min_constants` fitted constants). Figures built
    on them are estimates."""
    children: dict[str, list[tuple[float, list[str]]]] = {}
    for key, entry in fitted.items():
        for parent in parents(key):
            if parent not in fitted and parent not in shadowed:
                children.setdefault(parent, []).append(entry)
    out = {}
    for key, entries in children.items():
        rows = [r for _, ids in entries for r in ids]
        if len(rows) < MIN_ROWS or len(entries) < min_constants:
            continue
        entries = [(v, ids) for v, ids in entries if v > 0]  # a constant pinned at 0
        rows = [r for _, ids in entries for r in ids]
        if len(rows) < MIN_ROWS:
            continue
        log_mean = sum(math.log(v) * len(ids) for v, ids in entries) / len(rows)
        out[key] = (math.exp(log_mean), rows)
    return out


def shadowed_keys(candidates: dict[str, list[str]], chosen: dict[str, str | None]) -> set[str]:
    """Keys more specific than a row's fitted key: a pooled constant there would change it."""
    out: set[str] = set()
    for rid, keys in candidates.items():
        key = chosen.get(rid)
        if key is None:
            continue
        out.update(keys[: keys.index(key)])
    return out


@dataclass
class DecodeFit:
    """Fitted decode unknowns (1/η for the bandwidth), their row keys and pooled fallbacks."""

    values: Pool
    keys: DecodeKeys
    pooled: Pool
    users: dict[tuple[str, str], list[str]]
    pooled_rows: dict[tuple[str, str], list[str]]


def linear_row(s: Setup, keys: DecodeKeys, pooled: Pool) -> LinearRow:
    """The decode row's terms: bytes/BW, layers and all-reduces, and the known rest (terms of
    keys the fit lacks use the pooled fallback or the published default)."""
    m = s.model
    read = m.step_weight_bytes(1) + m.kv_read_bytes(1, s.decode_context)
    memory = read / stream_bandwidth(m.gpu)
    layers = m.arch.num_layers
    coef: dict[tuple[str, str], float] = {}
    const = 0.0
    dq = keys.dequant.get(s.id)
    if dq is not None:
        alu = vector_flops(m.gpu)
        assert alu is not None
        coef[("dequant", dq)] = m.dequant_bytes(1) / alu
    bw = keys.bandwidth[s.id]
    if bw is None:
        inv = first_value("decode_bandwidth", decode_candidates(s), pooled)
        const += memory * (inv if inv is not None else 1 / DECODE_BANDWIDTH_EFF)
    else:
        coef[("decode_bandwidth", bw)] = memory
    chip = keys.chip.get(s.id)
    if chip is not None:
        coef[("chip_bandwidth", chip)] = memory
    ovh = keys.overhead[s.id]
    if ovh is None:
        const += layers * (first_value("layer_overhead", overhead_candidates(s), pooled) or 0.0)
    else:
        coef[("layer_overhead", ovh)] = float(layers)
    step = keys.step.get(s.id)
    if step is not None:
        coef[("step_overhead", step)] = 1.0
    if m.tp > 1:
        link = gpu_link(m.gpu, m.tp)
        const += 2 * layers * 2 * (m.tp - 1) / m.tp * m.arch.hidden_size * 2 / link.bytes_per_s
        lk = keys.link.get(s.id)
        if lk is None:
            base = NCCL_RING_BASE_LATENCY_S
            const += 2 * layers * (base + (m.tp - 1) * 2 * NCCL_HOP_LATENCY_S[link.kind])
        else:
            coef[("allreduce_base", lk)] = 2.0 * layers
            coef[("allreduce_per_gpu", lk)] = 2.0 * layers * (m.tp - 1)
    return LinearRow(s.id, s.measured_seconds(), coef, const, layers)


def predict_linear(row: LinearRow, values: Pool) -> float:
    """The row's time from fitted unknowns (unknowns the fit lacks take their prior)."""
    return row.const + sum(c * values.get(u, PRIORS[u[0]]) for u, c in row.coef.items())


def fit_decode(rows: Sequence[Setup], iterations: int = 4) -> DecodeFit:
    """Decode unknowns by least squares; rows without a key of their own use the pooled
    fallbacks, recomputed from the fit until they settle."""
    keys = decode_keys_for(rows)
    cand_bw = {s.id: decode_candidates(s) for s in rows}
    cand_ovh = {s.id: overhead_candidates(s) for s in rows}
    shadow_bw = shadowed_keys(cand_bw, keys.bandwidth)
    shadow_ovh = shadowed_keys(cand_ovh, keys.overhead)
    pooled: Pool = {}
    pooled_rows: dict[tuple[str, str], list[str]] = {}
    values: Pool = {}
    users: dict[tuple[str, str], list[str]] = {}
    for _ in range(iterations):
        lrs = [linear_row(s, keys, pooled) for s in rows]
        values = fit_linear(lrs)
        users = {}
        for lr in lrs:
            for u in lr.coef:
                users.setdefault(u, []).append(lr.id)
        pooled, pooled_rows = {}, {}
        for table, parents, shadow in (
            ("decode_bandwidth", _decode_parents, shadow_bw),
            ("layer_overhead", _overhead_parents, shadow_ovh),
            ("allreduce_base", lambda key: ["any"], set()),
            ("allreduce_per_gpu", lambda key: ["any"], set()),
            ("dequant", lambda key: [], set()),
            ("chip_bandwidth", lambda key: [], set()),
            ("step_overhead", lambda key: key.split("/")[:1] if "/" in key else [], set()),
        ):
            fitted = {k: (v, users[(t, k)]) for (t, k), v in values.items() if t == table}
            if table == "decode_bandwidth":  # pool η (not 1/η) on its log scale: same result
                fitted = {k: (v, ids) for k, (v, ids) in fitted.items()}
            for key, (v, ids) in pool_table(table, fitted, parents, shadow).items():
                pooled[(table, key)] = v
                pooled_rows[(table, key)] = ids
    return DecodeFit(values, keys, pooled, users, pooled_rows)


@dataclass
class FitResult:
    """Fitted constants with their rows and errors, and per-row fit and held-out predictions."""

    constants: list[Constant] = field(default_factory=list)
    fit_pred: dict[str, float] = field(default_factory=dict)
    heldout_pred: dict[str, float] = field(default_factory=dict)
    measured: dict[str, float] = field(default_factory=dict)

    def fitted(self, table: str, key: str, value: float, ids: Sequence[str]) -> None:
        """Record a fitted constant with the median fit and held-out errors of its rows."""
        self.constants.append(
            Constant(
                table,
                key,
                value,
                tuple(ids),
                _median(_errors(self.fit_pred, self.measured, ids)),
                _median(_errors(self.heldout_pred, self.measured, ids)),
            )
        )


def _errors(pred: dict[str, float], meas: dict[str, float], ids: Iterable[str]) -> list[float]:
    return [abs(pred[i] / meas[i] - 1) * 100 for i in ids if i in pred]


def decode_result(rows: Sequence[Setup], out: FitResult) -> DecodeFit:
    fit = fit_decode(rows)
    for s in rows:
        lr = linear_row(s, fit.keys, fit.pooled)
        out.measured[s.id] = lr.t
        out.fit_pred[s.id] = predict_linear(lr, fit.values)
    for i, s in enumerate(rows):
        rest = fit_decode([r for j, r in enumerate(rows) if j != i])
        out.heldout_pred[s.id] = heldout_decode(s, rest)
    for (table, key), value in sorted(fit.values.items()):
        stored = 1.0 / value if table == "decode_bandwidth" else value
        out.fitted(table, key, stored, fit.users[(table, key)])
    for (table, key), value in sorted(fit.pooled.items()):
        out.constants.append(
            Constant(
                table=table,
                key=key,
                value=1.0 / value if table == "decode_bandwidth" else value,
                rows=tuple(fit.pooled_rows[(table, key)]),
            )
        )
    return fit


def heldout_decode(s: Setup, rest: DecodeFit) -> float:
    """The row's decode time from a fit without it, looked up as the run time would."""
    m = s.model
    read = m.step_weight_bytes(1) + m.kv_read_bytes(1, s.decode_context)
    inv = first_value("decode_bandwidth", decode_candidates(s), rest.values, rest.pooled)
    chip = first_value("chip_bandwidth", chip_candidates(s), rest.values) or 0.0
    t = read / stream_bandwidth(m.gpu) * ((inv or 1 / DECODE_BANDWIDTH_EFF) + chip)
    c = first_value("layer_overhead", overhead_candidates(s), rest.values, rest.pooled) or 0.0
    t += m.arch.num_layers * c
    t += first_value("step_overhead", step_candidates(s), rest.values, rest.pooled) or 0.0
    dq = first_value("dequant", dequant_candidates(s), rest.values, rest.pooled)
    if dq:
        alu = vector_flops(m.gpu)
        assert alu is not None
        t += m.dequant_bytes(1) * dq / alu
    if m.tp > 1:
        link = gpu_link(m.gpu, m.tp)
        keys = [link.kind, "any"]
        base = first_value("allreduce_base", keys, rest.values, rest.pooled)
        per = first_value("allreduce_per_gpu", keys, rest.values, rest.pooled)
        lat = (base if base is not None else NCCL_RING_BASE_LATENCY_S) + (m.tp - 1) * (
            per if per is not None else 2 * NCCL_HOP_LATENCY_S[link.kind]
        )
        transfer = 2 * (m.tp - 1) / m.tp * m.arch.hidden_size * 2 / link.bytes_per_s
        t += 2 * m.arch.num_layers * (lat + transfer)
    return t


def _median(xs: list[float]) -> float | None:
    return round(statistics.median(xs), 2) if xs else None


# --- GEMM MFU, MoE, training -------------------------------------------------------------


def efficiencies_for(
    s: Setup, decode: DecodeFit, gemm_mfu: float, moe_gemm_eff: float = 1.0
) -> Efficiencies:
    """The runtime Efficiencies of `s` with the fit's decode constants and trial compute ones."""
    f, mem, gen, kernel = _class_parts(s)
    tables = (decode.values, decode.pooled)
    inv_eta = first_value("decode_bandwidth", decode_candidates(s), *tables)
    kv_keys = decode_keys(f, mem, gen, "16bit", backend=backend(s))
    kv_inv = first_value("decode_bandwidth", kv_keys, *tables)
    chip = first_value("chip_bandwidth", chip_candidates(s), *tables)
    dq = first_value("dequant", dequant_candidates(s), *tables)
    link = gpu_link(s.gpu).kind
    base = first_value("allreduce_base", [link, "any"], *tables)
    per = first_value("allreduce_per_gpu", [link, "any"], *tables)
    pcie_base = first_value("allreduce_base", ["pcie", "any"], *tables)
    pcie_per = first_value("allreduce_per_gpu", ["pcie", "any"], *tables)
    return Efficiencies(
        engine_family=f,
        kernel=kernel,
        gpu_class=f"{mem}/{gen}",
        bandwidth_eff=with_chip(1 / inv_eta if inv_eta else DECODE_BANDWIDTH_EFF, chip),
        layer_overhead_s=first_value("layer_overhead", overhead_candidates(s), *tables) or 0.0,
        allreduce_base_s=base if base is not None else NCCL_RING_BASE_LATENCY_S,
        allreduce_per_gpu_s=per if per is not None else 2 * NCCL_HOP_LATENCY_S[link],
        gemm_mfu=gemm_mfu,
        moe_gemm_eff=moe_gemm_eff,
        accumulate=accumulate_for(f),
        decode_basis="calibrated",
        prefill_basis="calibrated",
        constants=(),
        kv_bandwidth_eff=with_chip(1 / kv_inv, chip) if kv_inv else None,
        dequant_flops_per_byte=dq or 0.0,
        vector_flops_per_s=vector_flops(s.gpu),
        pcie_allreduce_base_s=pcie_base if pcie_base is not None else NCCL_RING_BASE_LATENCY_S,
        pcie_allreduce_per_gpu_s=2 * NCCL_HOP_LATENCY_S["pcie"] if pcie_per is None else pcie_per,
        step_overhead_s=first_value("step_overhead", step_candidates(s), *tables) or 0.0,
    )


def chunk_tokens(s: Setup) -> int | None:
    """The engine's per-forward token budget for the row's prefill."""
    if s.row.get("max_num_batched_tokens"):
        return int(s.row["max_num_batched_tokens"])
    family = engine_family(s.model.engine)
    if family == "llama.cpp":
        return int(LLAMA_CPP_N_UBATCH.value)
    if family == "eager":
        return None
    return engine_limits(s.model.engine, s.gpu).max_num_batched_tokens


def model_seconds(s: Setup, eff: Efficiencies) -> float:
    """The runtime model's time for the row's unit of work with efficiencies `eff`."""
    if s.group == "ttft":
        step = prefill_time(s.model, s.input_tokens, chunk_tokens(s), eff=eff)
        assert step is not None
        return step.seconds
    if s.group == "throughput":
        point = steady_state(
            s.model, int(s.row["batch"]), s.input_tokens, s.output_tokens, chunk_tokens(s), eff
        )
        return point.step.seconds
    raise ValueError(s.id)


def implied(fn: Callable[[float], float], target: float, lo: float, hi: float) -> float:
    """The x in [lo, hi] with fn(x) = target for fn monotonic in x (bisection on a log scale,
    clamped to the interval)."""
    f_lo, f_hi = fn(lo), fn(hi)
    rising = f_hi > f_lo
    if (target <= min(f_lo, f_hi)) or (target >= max(f_lo, f_hi)):
        low_end = lo if rising else hi
        high_end = hi if rising else lo
        return low_end if target <= min(f_lo, f_hi) else high_end
    a, b = lo, hi
    for _ in range(60):
        mid = math.sqrt(a * b)
        if (fn(mid) > target) == rising:
            b = mid
        else:
            a = mid
    return math.sqrt(a * b)


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


@dataclass
class GemmFit:
    """GEMM MFU constants per key (fitted and pooled), the keys rows use, and the MoE
    expert-GEMM efficiency."""

    fitted: dict[str, tuple[float, list[str]]]
    pooled: dict[str, tuple[float, list[str]]]
    keys: dict[str, str | None]
    moe_gemm_eff: float | None
    moe_rows: list[str]

    def mfu(self, s: Setup) -> float:
        for key in gemm_candidates(s):
            for table in (self.fitted, self.pooled):
                if key in table:
                    return table[key][0]
        return DEFAULT_GEMM_MFU


GEMM_POOL_MIN_CONSTANTS = 2
"""A pooled GEMM MFU fallback needs at least two fitted constants under it. A key more general
than a fitted one drops a dimension (architecture, kernel, memory class, engine family); one
constant restated there is not what the classes under that key share but that one class's
figure handed to its neighbours: TensorRT-LLM's FP8 MFU on Hopper HBM (NIM, MLPerf v4.1) pooled
alone at `graph` reached vLLM BF16 on an RTX 4090 (a consumer Ada GDDR card, 0.51 where its
measured full load implies 0.35). With two constants under a key, the pool spans the dimension
it drops and is an estimate for classes between them."""


def low_precision(rows: Sequence[Setup]) -> bool:
    """True when the rows of a GEMM constant ran on low-precision tensor cores (FP8, FP4:
    hardware.compute_rate's dtype). Such an MFU is a share of a peak twice (FP4: four times)
    the 16-bit one, reached by other GEMMs (per-tensor scaled, with activation quantisation),
    and on another architecture the same format runs another path (Ampere has no FP8 tensor
    cores: FP8 weights run W8A16 at the BF16 peak). It is the figure of its own key only, no
    pooled fallback: every pooled key (`_gemm_parents`) drops the architecture or the kernel."""
    for s in rows:
        rate = compute_rate(s.gpu, s.model.weight_format)
        if rate is not None and rate.dtype in ("fp8", "fp4"):
            return True
    return False


def fit_gemm(rows: Sequence[Setup], decode: DecodeFit) -> GemmFit:
    """GEMM MFU per key: the geometric mean of the MFU each dense row implies; then the MoE
    expert-GEMM efficiency the MoE rows imply at those MFUs."""
    dense = [s for s in rows if s.model.arch.moe is None]
    keys = assign_backend_first(dense, gemm_candidates, backend_apart(decode))
    implied_mfu = {
        s.id: implied(
            lambda x, s=s: model_seconds(s, efficiencies_for(s, decode, x)),
            s.measured_seconds(),
            0.02,
            1.0,
        )
        for s in dense
    }
    grouped: dict[str, list[str]] = {}
    for s in dense:
        key = keys[s.id]
        if key is not None:
            grouped.setdefault(key, []).append(s.id)
    fitted = {k: (_geomean([implied_mfu[r] for r in ids]), ids) for k, ids in grouped.items()}
    shadow = shadowed_keys({s.id: gemm_candidates(s) for s in dense}, keys)
    by_id = {s.id: s for s in dense}
    poolable = {k: e for k, e in fitted.items() if not low_precision([by_id[r] for r in e[1]])}
    pooled = pool_table(
        "gemm_mfu", poolable, _gemm_parents, shadow, min_constants=GEMM_POOL_MIN_CONSTANTS
    )
    fit = GemmFit(fitted, pooled, keys, None, [])
    moe = [s for s in rows if s.model.arch.moe is not None]
    ratios = [
        implied(
            lambda x, s=s: model_seconds(s, efficiencies_for(s, decode, fit.mfu(s), x)),
            s.measured_seconds(),
            0.05,
            1.0,
        )
        for s in moe
    ]
    if len(ratios) >= MIN_ROWS:
        fit.moe_gemm_eff = _geomean(ratios)
        fit.moe_rows = [s.id for s in moe]
    return fit


def compute_result(rows: Sequence[Setup], decode: DecodeFit, out: FitResult) -> None:
    """GEMM MFU and MoE constants with fit and held-out predictions of the compute rows."""
    fit = fit_gemm(rows, decode)

    def predict(s: Setup, g: GemmFit) -> float:
        ratio = (g.moe_gemm_eff or 1.0) if s.model.arch.moe is not None else 1.0
        return model_seconds(s, efficiencies_for(s, decode, g.mfu(s), ratio))

    for s in rows:
        out.measured[s.id] = s.measured_seconds()
        out.fit_pred[s.id] = predict(s, fit)
        out.heldout_pred[s.id] = predict(s, fit_gemm([r for r in rows if r.id != s.id], decode))
    for key, (value, ids) in sorted(fit.fitted.items()):
        out.fitted("gemm_mfu", key, value, ids)
    for key, (value, ids) in sorted(fit.pooled.items()):
        out.constants.append(Constant("gemm_mfu", key, value, tuple(ids)))
    if fit.moe_gemm_eff is not None:
        out.fitted("moe_gemm", "any", fit.moe_gemm_eff, fit.moe_rows)


def training_implied_mfu(s: Setup) -> float:
    """The MFU (6N + attention basis) a training row implies with this model's recompute and
    wall-clock accounting."""
    m = s.model
    seq = int(s.row["seq_len"])
    recompute = bool(s.row.get("checkpointing"))
    executed = training_flops_per_token(m.params, m.arch, "full", recompute, seq)
    rate = compute_rate(m.gpu, "bf16")
    assert rate is not None
    if s.row["unit"] == "GPU-h":
        tokens = float(s.row["train_tokens"])
        compute_s = float(s.value) * 3600 * DEFAULT_WALLCLOCK_EFFICIENCY
        return tokens * executed / (compute_s * rate.flops_per_s)
    return float(s.value) * executed / rate.flops_per_s


def training_predicted(s: Setup, mfu: float) -> float:
    """The row's value predicted at `mfu`."""
    return s.value * mfu / training_implied_mfu(s)


def training_result(rows: Sequence[Setup], out: FitResult) -> None:
    implied_mfu = {s.id: training_implied_mfu(s) for s in rows}
    gens = assign({s.id: [gpu_class(s.gpu).generation, "any"] for s in rows})

    def fit(subset: Sequence[Setup]) -> dict[str, float]:
        k = assign({s.id: [gpu_class(s.gpu).generation, "any"] for s in subset})
        grouped: dict[str, list[float]] = {}
        for s in subset:
            if k[s.id] is not None:
                grouped.setdefault(str(k[s.id]), []).append(implied_mfu[s.id])
        return {key: _geomean(v) for key, v in grouped.items()}

    def value_for(s: Setup, table: dict[str, float]) -> float:
        gen = gpu_class(s.gpu).generation
        return table.get(gen, table.get("any", DEFAULT_GEMM_MFU))

    table = fit(rows)
    for s in rows:
        out.measured[s.id] = s.value
        out.fit_pred[s.id] = training_predicted(s, value_for(s, table))
        held = fit([r for r in rows if r.id != s.id])
        out.heldout_pred[s.id] = training_predicted(s, value_for(s, held))
    for key, value in sorted(table.items()):
        out.fitted("training_mfu", key, value, [rid for rid, k in gens.items() if k == key])
    if "any" not in table and rows:
        # The estimate for generations without a run: all runs pooled (labelled estimated).
        ids = [s.id for s in rows]
        out.constants.append(
            Constant(
                "training_mfu",
                "any",
                _geomean(list(implied_mfu.values())),
                tuple(ids),
                None,
                None,
            )
        )


def apple_implied_core_flops(s: Setup) -> float:
    """The effective FLOP/s per GPU core an Apple prefill row implies: the prompt's matmul and
    attention FLOPs over the measured time, over the chip's cores."""
    m = s.model
    tokens = s.input_tokens
    flops = m.matmul_flops(tokens) + tokens * m.attention_flops_per_token(tokens / 2)
    return flops / s.measured_seconds() / gpu_cores(s.gpu)


def apple_prefill_result(rows: Sequence[Setup], out: FitResult) -> None:
    """apple_core_flops per chip generation (then all pooled): the geometric mean of what each
    fit row implies (`apple_implied_core_flops`); leave-one-out errors beside it."""
    implied_rate = {s.id: apple_implied_core_flops(s) for s in rows}

    def fit(subset: Sequence[Setup]) -> dict[str, float]:
        keys = assign({s.id: apple_core_rate_keys(s.gpu) for s in subset})
        grouped: dict[str, list[float]] = {}
        for s in subset:
            if keys[s.id] is not None:
                grouped.setdefault(str(keys[s.id]), []).append(implied_rate[s.id])
        table = {k: _geomean(v) for k, v in grouped.items()}
        if "any" not in table and subset:
            table["any"] = _geomean([implied_rate[s.id] for s in subset])
        return table

    def value_for(s: Setup, table: dict[str, float]) -> float:
        return next(table[k] for k in apple_core_rate_keys(s.gpu) if k in table)

    table = fit(rows)
    keys = assign({s.id: apple_core_rate_keys(s.gpu) for s in rows})
    for s in rows:
        out.measured[s.id] = s.measured_seconds()
        out.fit_pred[s.id] = s.measured_seconds() * implied_rate[s.id] / value_for(s, table)
        rest = fit([r for r in rows if r.id != s.id])
        out.heldout_pred[s.id] = s.measured_seconds() * implied_rate[s.id] / value_for(s, rest)
    for key, value in sorted(table.items()):
        ids = [rid for rid, k in keys.items() if k == key] or [s.id for s in rows]
        out.fitted("apple_core_flops", key, value, ids)


# --- pooled fallbacks for estimates --------------------------------------------------------


def _decode_parents(key: str) -> list[str]:
    """The more general keys a fitted bandwidth key falls back to (efficiency.decode_keys)."""
    parts = key.split("/")
    if key == "any":
        return []
    if len(parts) == 4:
        f, mem, gen, k = parts
        return [f"{f}/{mem}/{gen}", f"{f}/{mem}/{k}", f"{f}/{mem}", f, "any"]
    if len(parts) == 5:  # a K-quant format on one Apple chip generation
        f, mem, gen, fmt, _ = parts
        return [
            f"{f}/{mem}/{gen}/{fmt}",
            f"{f}/{mem}/{gen}",
            f"{f}/{mem}/{fmt}",
            f"{f}/{mem}",
            f,
            "any",
        ]
    return ["/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)] + ["any"]


def _overhead_parents(key: str) -> list[str]:
    parts = key.split("/")
    return ["/".join(parts[:i]) for i in range(len(parts) - 1, 0, -1)]


KERNEL_FAMILIES = frozenset(get_args(KernelFamily))


def _gemm_parents(key: str) -> list[str]:
    """The more general GEMM keys (`efficiency.gemm_keys`) a key's rows fall back to."""
    parts = key.split("/")
    if key == "any":
        return []
    family = parts[0]
    kernel = parts[-1] if len(parts) >= 2 and parts[-1] in KERNEL_FAMILIES else None
    out = []
    if len(parts) == 4:
        out += [f"{family}/{parts[1]}/{parts[2]}", f"{family}/{parts[1]}/{parts[3]}"]
    if len(parts) >= 3:
        out.append(f"{family}/{parts[1]}")
    if kernel is not None and len(parts) >= 3:
        out.append(f"{family}/{kernel}")
    if len(parts) >= 2:
        out.append(family)
    return [*out, "any"]


# --- the whole fit -------------------------------------------------------------------------


def fit_all() -> FitResult:
    """The constants fitted on the rows of the fit part only (`perf_rows.split`): the held-out
    rows never enter a fit."""
    ok, _ = setups()
    part = split()
    ok = [s for s in ok if part[s.id] == "fit"]
    out = FitResult()
    decode_rows = [s for s in ok if s.group in DECODE_GROUPS]
    decode = decode_result(decode_rows, out)
    compute_rows = [s for s in ok if s.group in ("ttft", "throughput")]
    apple = [s for s in compute_rows if gpu_class(s.gpu).memory == "apple"]
    compute_result([s for s in compute_rows if s not in apple], decode, out)
    apple_prefill_result(apple, out)
    training_result([s for s in ok if s.group == "training"], out)
    return out


def measured_entries() -> list[dict[str, object]]:
    """Batch-1 decode measurements of catalog models and GPUs: figures shown as *measured*."""
    ok, _ = setups()
    out = []
    for s in ok:
        if s.group not in DECODE_GROUPS or not s.row.get("model") or int(s.row["batch"]) != 1:
            continue
        out.append(
            {
                "row": s.id,
                "model": s.row["model"],
                "gpu": s.row["gpu"],
                "weights": s.model.weight_format,
                # The backend-qualified name ("llama.cpp-vulkan"): a Vulkan run is not the
                # measurement of a default-backend (CUDA, ROCm) request for the same setup. The
                # build era is not part of it: the row's engine_version and date carry the build.
                "engine": base_engine(s.model.engine),
                "engine_family": engine_family(s.model.engine),
                "tp": s.model.tp,
                "pp": s.model.pp,
                "context_tokens": s.decode_context,
                "tokens_per_s": s.value,
                "source": f"{s.row['source_url']} ({s.row['source_date']})",
                "engine_version": str(s.row.get("engine_version") or ""),
                "source_date": str(s.row.get("source_date") or ""),
            }
        )
    return out


def _toml_value(v: object) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(float(f"{v:.6g}"))
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    text = str(v).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


UNITS = {
    "decode_bandwidth": "achieved share of datasheet memory bandwidth in decode",
    "chip_bandwidth": "added to 1/share on one Apple chip generation (M2 the reference), llama.cpp",
    "layer_overhead": "seconds per layer per engine step (launches, syncs)",
    "step_overhead": "seconds per engine step whatever the depth (host graph build, sampling)",
    "allreduce_base": "seconds: latency of one all-reduce (base)",
    "allreduce_per_gpu": "seconds: all-reduce latency added per further GPU",
    "dequant": "vector-ALU FLOPs per stored weight byte a weight-only kernel dequantises",
    "gemm_mfu": "share of datasheet tensor throughput in prefill and batched steps",
    "moe_gemm": "MoE expert-GEMM efficiency relative to dense GEMMs at full load",
    "training_mfu": "training MFU on the 6N (+attention) basis",
    "apple_core_flops": "effective prompt-processing FLOP/s per Apple GPU core (llama.cpp Metal)",
}


def render_toml(result: FitResult) -> str:
    lines = [
        "# Calibrated performance constants. GENERATED by `python -m bench.fit_performance`",
        "# from bench/data/perf_references.json: do not edit by hand (rerun the fit). Each",
        "# constant names the reference rows it was fitted on, their median |error| at the value",
        "# (fit_error_pct) and their median leave-one-out error (heldout_error_pct). Entries",
        "# without errors are pooled fallbacks (row-weighted geometric means of fitted constants)",
        "# that uncalibrated classes use; figures built on them are labelled estimated. A GEMM",
        "# MFU fallback pools at least two fitted constants and no FP8/FP4 one (an FP8 MFU on",
        "# Hopper is no figure for a BF16 GEMM elsewhere): fit_performance.low_precision.",
        "",
        "[meta]",
        f'as_of = "{date.today().isoformat()}"',
        'method = "bench/fit_performance.py: least squares on relative errors (decode), geometric'
        ' mean of implied values (GEMM MFU, MoE, training), at least 2 rows per constant"',
        'references = "bench/data/perf_references.json"',
        "",
        "[wallclock_efficiency]",
        f"value = {DEFAULT_WALLCLOCK_EFFICIENCY}",
        f"source = {_toml_value(WALLCLOCK_SOURCE)}",
        "",
    ]
    by_table: dict[str, list[Constant]] = {}
    for c in result.constants:
        by_table.setdefault(c.table, []).append(c)
    for table in UNITS:
        entries = by_table.get(table, [])
        if not entries:
            continue
        lines.append(f"# {table}: {UNITS[table]}")
        for c in entries:
            lines += [
                f"[[{table}]]",
                f"key = {_toml_value(c.key)}",
                f"value = {_toml_value(c.value)}",
                f"rows = {_toml_value(list(c.rows))}",
            ]
            if c.fit_error_pct is not None:
                lines.append(f"fit_error_pct = {_toml_value(float(c.fit_error_pct))}")
            if c.heldout_error_pct is not None:
                lines.append(f"heldout_error_pct = {_toml_value(float(c.heldout_error_pct))}")
            lines.append("")
    lines.append("# measured: published batch-1 decode speeds of exact setups (shown as measured)")
    for e in measured_entries():
        lines.append("[[measured]]")
        lines += [f"{k} = {_toml_value(v)}" for k, v in e.items()]
        lines.append("")
    return "\n".join(lines)


def compare(result: FitResult, stored: Calibration) -> list[str]:
    """Differences between a fresh fit and the stored calibration (empty: in sync)."""
    diffs = []
    fresh = {(c.table, c.key): c for c in result.constants}
    have = {(c.table, c.key): c for c in stored.all()}
    for k in sorted(set(fresh) | set(have)):
        a, b = fresh.get(k), have.get(k)
        if a is None or b is None:
            diffs.append(f"{k}: {'missing from the catalog' if b is None else 'no longer fitted'}")
        elif not math.isclose(a.value, b.value, rel_tol=1e-4):
            diffs.append(f"{k}: fitted {a.value:.6g}, catalog {b.value:.6g}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare with the catalog file")
    args = parser.parse_args(argv)
    result = fit_all()
    for c in result.constants:
        errs = (
            ""
            if c.fit_error_pct is None
            else f"  fit {c.fit_error_pct:.1f}% held-out {c.heldout_error_pct}%"
        )
        print(f"{c.table:18} {c.key:40} {c.value:.4g}  ({len(c.rows)} rows){errs}")
    path: Path = calibration_path()
    if args.check:
        diffs = compare(result, parse_calibration(path.read_text(encoding="utf-8")))
        for d in diffs:
            print("drift:", d)
        return 1 if diffs else 0
    path.write_text(render_toml(result), encoding="utf-8")
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


__all__ = ["FitResult", "ModelOnGpus", "fit_all", "replace"]
