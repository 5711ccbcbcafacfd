"""The performance model's assumptions, in words, for the assumptions list answers show."""

from __future__ import annotations

from tools.performance.calibration import calibration
from tools.performance.training import WALLCLOCK_SOURCE, wallclock_efficiency


def model_assumptions(training: bool) -> list[str]:
    """What every speed figure rests on (serving, or training when `training`)."""
    cal = calibration()
    fitted = [c for c in cal.all() if c.fit_error_pct is not None]
    rows = len({r for c in fitted for r in c.rows})
    when = f" (fitted {cal.as_of})" if cal.as_of else ""
    if training:
        return [
            "Training time: 6·N (+ attention) model FLOPs per token (Kaplan et al. 2020) at "
            "the MFU published runs of the GPU's generation reach (catalog/performance.toml "
            "training_mfu); full activation recompute adds one forward pass (8·N); hours are "
            f"wall-clock at {wallclock_efficiency():.0%} effective training time "
            f"({WALLCLOCK_SOURCE}).",
        ]
    return [
        f"Speeds come from a performance model calibrated on {rows} published measurements"
        f"{when}: decode bandwidth efficiency per engine × GPU class × weight format, a "
        "per-layer step overhead, all-reduce latency per GPU count, GEMM MFU for prefill and "
        "full load (catalog/performance.toml names the rows of every constant). Each figure "
        "says whether it is measured, calibrated or estimated.",
        "Steady state under continuous batching: each engine step decodes one token for every "
        "running sequence and prefills the prompts of the requests replacing finished ones "
        "(batch × prompt/output tokens per step, chunked prefill), KV read at the average "
        "context prompt + output/2; the engine's max_num_seqs caps the batch.",
        "TTFT = queue + prefill of the prompt beside the running batch (no extra decode "
        "step); the queue is an M/D/1 wait for other users' prefills at the load, plus a wait "
        "for a free slot when the users exceed what one replica runs.",
    ]
