"""The performance model: decode, prefill, steady-state serving, latency under load and
training time, each from the model's geometry and efficiencies calibrated against published
measurements (catalog/performance.toml, fitted by bench/fit_performance.py).

Modules: `roofline` (bytes and FLOPs per step), `hardware` (GPU classes, tensor rates, links),
`engines` (engine and kernel families), `calibration` (the fitted constants), `efficiency`
(constants for one setup, with defaults), `steps` (one engine step, prefill), `serving`
(steady state under continuous batching, engine limits), `latency` (TTFT and inter-token time
under load), `training` (MFU per GPU generation, recompute, wall-clock), `basis` (measured /
calibrated / estimated), `measured` (published figures of exact setups).
"""

from tools.performance.basis import BASIS_DESCRIPTIONS, SpeedBasis, weakest
from tools.performance.calibration import Calibration, Constant, calibration
from tools.performance.efficiency import (
    DECODE_BANDWIDTH_EFF,
    DEFAULT_GEMM_MFU,
    NCCL_HOP_LATENCY_S,
    NCCL_RING_BASE_LATENCY_S,
    PEAK_COPY_BANDWIDTH_EFF,
    Efficiencies,
    resolve,
)
from tools.performance.engines import EngineFamily, KernelFamily, engine_family, kernel_family
from tools.performance.hardware import (
    ComputeRate,
    GpuClass,
    Link,
    compute_rate,
    gpu_class,
    gpu_link,
)
from tools.performance.latency import CurvePoint, LatencyAtLoad, latency_at, latency_curve
from tools.performance.measured import Measurement, find_measurement
from tools.performance.roofline import (
    ModelOnGpus,
    attention_flops,
    expected_distinct_experts,
    weight_bytes_read,
)
from tools.performance.serving import (
    EngineLimits,
    ServingPoint,
    batch_cap,
    engine_limits,
    static_batching_factor,
    steady_state,
)
from tools.performance.steps import StepTime, decode_step, forward_step, prefill_time
from tools.performance.training import (
    TrainingTask,
    TrainingTime,
    qlora_dequant_s_per_step,
    training_flops_per_token,
    training_mfu,
    training_mfu_caveat,
    training_time,
    wallclock_efficiency,
)

__all__ = [
    "BASIS_DESCRIPTIONS",
    "DECODE_BANDWIDTH_EFF",
    "DEFAULT_GEMM_MFU",
    "NCCL_HOP_LATENCY_S",
    "NCCL_RING_BASE_LATENCY_S",
    "PEAK_COPY_BANDWIDTH_EFF",
    "Calibration",
    "ComputeRate",
    "Constant",
    "CurvePoint",
    "Efficiencies",
    "EngineFamily",
    "EngineLimits",
    "GpuClass",
    "KernelFamily",
    "LatencyAtLoad",
    "Link",
    "Measurement",
    "ModelOnGpus",
    "ServingPoint",
    "SpeedBasis",
    "StepTime",
    "TrainingTask",
    "TrainingTime",
    "attention_flops",
    "batch_cap",
    "calibration",
    "compute_rate",
    "decode_step",
    "engine_family",
    "engine_limits",
    "expected_distinct_experts",
    "find_measurement",
    "forward_step",
    "gpu_class",
    "gpu_link",
    "kernel_family",
    "latency_at",
    "latency_curve",
    "prefill_time",
    "qlora_dequant_s_per_step",
    "resolve",
    "static_batching_factor",
    "steady_state",
    "training_flops_per_token",
    "training_mfu",
    "training_mfu_caveat",
    "training_time",
    "wallclock_efficiency",
    "weakest",
    "weight_bytes_read",
]
