"""Peers on the same workloads: our figures, hf-vram-calc's and llm-analysis's, each next to an
independent reference (a paper, a published measurement, or a hand calculation from the
published config). See bench/peers/README.md.

Each peer runs in its own virtualenv under bench/peers/.venv-<peer>, created on first use from
PyPI with the CPU PyTorch build, so the project's own environment stays clean.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import venv
from pathlib import Path
from typing import Any

from bench import references
from bench.harness import percent_error
from tools.catalog import get_catalog
from tools.memory import MemoryRequest, estimate_memory, kv_cache_bytes, kv_cache_bytes_per_token
from tools.performance import ModelOnGpus, decode_step

PEERS_DIR = Path(__file__).resolve().parent / "peers"
# torch 2.13.0 is the CPU build this machine class keeps on disk; a bare `torch` would pull a
# multi-GB CUDA build the peers do not need.
PEERS: dict[str, list[str]] = {
    "hf-vram-calc": ["torch==2.13.0", "hf-vram-calc==1.0.9"],
    "llm-analysis": ["torch==2.13.0", "llm-analysis==0.2.2"],
}
RUNNERS = {"hf-vram-calc": "hf_vram_calc_runner.py", "llm-analysis": "llm_analysis_runner.py"}

# NVIDIA AIConfigurator (ai-dynamo/aiconfigurator): composes measured kernel timings per GPU and
# engine. It predicts speed, not the memory rows above, so it runs on the performance
# reference rows it covers (`aiconfigurator_specs`), beside gpu-sizer's own figure.
AIC = "aiconfigurator"
AIC_REQUIREMENTS = ["aiconfigurator==0.12.0"]
AIC_SYSTEMS = {"h100-sxm": "h100_sxm", "h200-sxm": "h200_sxm", "a100-80gb-sxm4": "a100_sxm"}
AIC_BACKENDS = {"vllm": "vllm", "tensorrt-llm": "trtllm", "gpt-fast": "vllm"}
AIC_MODELS = {
    "llama-3.1-8b": "meta-llama/Meta-Llama-3.1-8B",
    "llama-3.1-70b": "meta-llama/Meta-Llama-3.1-70B",
    "llama-3.1-405b": "meta-llama/Meta-Llama-3.1-405B",
    "mixtral-8x7b": "mistralai/Mixtral-8x7B-v0.1",
}
AIC_LOCAL_MODELS = ("llama-2-7b", "llama-2-70b")  # configs written from the catalog
AIC_GEMM = {"bf16": "bfloat16", "fp16": "bfloat16", "fp8": "fp8", "int8": "int8_wo"}

LLAMA2_7B_PARAMS = 6_738_415_616  # params.json (meta-device count of the published config)

# workload id -> (description, reference value, unit, source of the reference)
REFERENCES: dict[str, tuple[str, float, str, str]] = {
    "llama2_7b_fp16_weights": (
        "Llama-2-7B fp16 weights",
        LLAMA2_7B_PARAMS * 2,
        "bytes",
        "hand calc: 6,738,415,616 params (published config) x 2 bytes",
    ),
    "llama2_7b_kv_2048": (
        "Llama-2-7B KV cache, 2,048 tokens, fp16",
        2 * 32 * 32 * 128 * 2 * 2048,
        "bytes",
        "hand calc: 2 x 32 layers x 32 KV heads x 128 head_dim x 2 B x 2,048 (vLLM paper §3)",
    ),
    "llama31_70b_kv_per_token": (
        "Llama-3.1-70B KV bytes per token, bf16",
        2 * 80 * 8 * 128 * 2,
        "bytes",
        "hand calc: 2 x 80 layers x 8 KV heads x 128 x 2 B (published config)",
    ),
    "llama2_7b_decode_a100": (
        "Llama-2-7B bf16 decode, A100-80GB, batch 1",
        104.9,
        "tokens/s",
        "gpt-fast README (pytorch-labs): measured 104.9 tok/s",
    ),
    "llama2_7b_full_ft_adamw_states": (
        "Llama-2-7B full fine-tune, mixed-precision AdamW model states",
        LLAMA2_7B_PARAMS * 18,
        "bytes",
        "HF Transformers 'Model training anatomy': 18 bytes/param",
    ),
    "llama2_7b_zero3_8gpu_states": (
        "Llama-2-7B model states per GPU, ZeRO-3 over 8 GPUs",
        16 * LLAMA2_7B_PARAMS / 8,
        "bytes",
        "ZeRO paper (arXiv 1910.02054) §5: 16Ψ/Nd",
    ),
    "llama_7b_4bit_base": (
        "LLaMA-7B 4-bit (NF4) base model weights",
        5_048e6,
        "bytes",
        "QLoRA paper (arXiv 2305.14314) Fig. 6: 4-bit base model 5,048 MB (a measured footprint; "
        "it includes more than the packed weights every tool here reports)",
    ),
}


def _states(req: MemoryRequest) -> float:
    est = estimate_memory(req)
    return float(sum(est.breakdown[k] for k in ("weights", "gradients", "optimizer")))


def ours() -> dict[str, float]:
    """Our figure for each workload, from the same public functions the CLI uses."""
    cat = get_catalog()
    llama2 = cat.model("llama-2-7b")
    llama31 = cat.model("llama-3.1-70b").architecture
    fp16 = estimate_memory(MemoryRequest(model="llama-2-7b", weights="fp16", context=2048))
    a = llama2.architecture
    on_a100 = ModelOnGpus(
        a,
        llama2.params,
        fp16.breakdown["weights"],
        "bf16",
        kv_cache_bytes_per_token(a, "bf16"),
        cat.gpu("a100-80gb-sxm4"),
    )
    # gpt-fast generates 200 tokens after a 5-token prompt: mean KV length ≈ 105 tokens.
    decode = 1 / decode_step(on_a100, 1, 105).seconds
    nf4 = estimate_memory(MemoryRequest(model="llama-2-7b", weights="nf4-dq", context=512))
    return {
        "llama2_7b_fp16_weights": fp16.breakdown["weights"],
        "llama2_7b_kv_2048": kv_cache_bytes(a, context=2048, kv_dtype="fp16"),
        "llama31_70b_kv_per_token": kv_cache_bytes_per_token(llama31, "bf16"),
        "llama2_7b_decode_a100": decode,
        "llama2_7b_full_ft_adamw_states": _states(
            MemoryRequest(model="llama-2-7b", task="full", precision="mixed-hf", context=512)
        ),
        # The paper's 16Ψ/Nd is the sharded model state alone: our ZeRO-3 estimate also holds
        # the all-gathered working set (one unit's 16-bit parameters and gradients plus the
        # prefetched next unit), taken off here to compare like with like.
        "llama2_7b_zero3_8gpu_states": _states(
            MemoryRequest(
                model="llama-2-7b", task="full", precision="mixed-zero", gpus=8, zero=3, context=512
            )
        )
        - references.zero3_gathered_bytes_bf16(model="llama-2-7b"),
        # Weights only, as both peers report; the paper's figure is a measured footprint.
        "llama_7b_4bit_base": nf4.breakdown["weights"],
    }


def _venv_python(peer: str, requirements: list[str]) -> Path:
    env_dir = PEERS_DIR / f".venv-{peer}"
    python = env_dir / "bin" / "python"
    if not python.exists():
        venv.create(env_dir, with_pip=True)
        subprocess.run(
            [str(python), "-m", "pip", "install", "-q", *requirements],
            check=True,
            capture_output=True,
        )
    return python


def _peer_python(peer: str) -> Path:
    return _venv_python(peer, PEERS[peer])


def _peer_configs() -> str:
    """Published config.json values the peers read, rebuilt from our catalog's source data."""
    from bench.calibrate_gpu import architecture_to_config

    cat = get_catalog()
    return json.dumps(
        {
            "llama-2-7b": architecture_to_config(cat.model("llama-2-7b").architecture),
            "llama-3.1-70b": architecture_to_config(cat.model("llama-3.1-70b").architecture),
        }
    )


def run_peer(peer: str) -> list[dict[str, Any]]:
    python = _peer_python(peer)
    proc = subprocess.run(
        [str(python), str(PEERS_DIR / RUNNERS[peer])],
        input=_peer_configs(),
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"},
        timeout=300,
    )
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows


def aiconfigurator_specs(config_dir: Path) -> list[dict[str, Any]]:
    """AIConfigurator estimates for the performance reference rows it covers: its GPUs (H100
    SXM, H200 SXM, A100 SXM), engines (vLLM; TensorRT-LLM; gpt-fast read as vLLM, the nearest
    CUDA-graph engine it models), bf16/fp8/int8 weights and the decode, TTFT and full-load
    groups."""
    from bench.calibrate_gpu import architecture_to_config
    from bench.fit_performance import chunk_tokens
    from bench.perf_rows import DECODE_GROUPS, Setup, setups

    cat = get_catalog()
    specs: list[dict[str, Any]] = []
    covered: list[Setup] = []
    for s in setups()[0]:
        row = s.row
        model = row.get("model")
        if (
            row["gpu"] not in AIC_SYSTEMS
            or row["engine"] not in AIC_BACKENDS
            or s.model.weight_format not in AIC_GEMM
            or s.group not in (*DECODE_GROUPS, "ttft", "throughput")
            or (s.group == "ttft" and s.is_prefill_rate)
            or model not in (*AIC_MODELS, *AIC_LOCAL_MODELS)
        ):
            continue
        if model in AIC_LOCAL_MODELS:
            folder = config_dir / str(model)
            folder.mkdir(parents=True, exist_ok=True)
            config = {
                "architectures": ["LlamaForCausalLM"],
                "torch_dtype": "bfloat16",
                **architecture_to_config(cat.model(str(model)).architecture),
            }
            (folder / "config.json").write_text(json.dumps(config), encoding="utf-8")
            path = str(folder)
        else:
            path = AIC_MODELS[str(model)]
        tp = s.model.tp
        metric = "decode" if s.group in DECODE_GROUPS else s.group
        metric = "ttft" if metric == "ttft" else metric
        specs.append(
            {
                "workload": s.id,
                "model_path": path,
                "system": AIC_SYSTEMS[row["gpu"]],
                "backend": AIC_BACKENDS[row["engine"]],
                "mode": "agg" if metric == "throughput" else "static",
                "isl": s.input_tokens,
                "osl": s.output_tokens,
                "batch_size": int(row["batch"]),
                "tp": tp,
                "gemm": AIC_GEMM[s.model.weight_format],
                "kvcache": "fp8" if row.get("kv_dtype") == "fp8" else "bfloat16",
                "metric": metric,
                "replicas": int(row["gpus"]) // tp,
                "moe": s.model.arch.moe is not None,
                "ctx_tokens": chunk_tokens(s) if metric == "throughput" else None,
            }
        )
        covered.append(s)
    return specs


AIC_CACHE = PEERS_DIR / ".venv-aiconfigurator" / "estimates.json"
"""AIConfigurator's answers by spec (it is deterministic for a spec and a version): a rerun of
`make bench` asks it only about rows it has not answered. Lives in its venv (not in git)."""


def _spec_key(spec: dict[str, Any]) -> str:
    keyed = {k: v for k, v in spec.items() if k != "model_path"}
    keyed["model"] = Path(str(spec["model_path"])).name
    return json.dumps([AIC_REQUIREMENTS, keyed], sort_keys=True)


def run_aiconfigurator(config_dir: Path) -> tuple[list[dict[str, Any]], str | None]:
    """AIConfigurator's rows (empty with the error when its venv cannot be built or run)."""
    specs = aiconfigurator_specs(config_dir)
    cache: dict[str, dict[str, Any]] = {}
    if AIC_CACHE.is_file():
        cache = json.loads(AIC_CACHE.read_text(encoding="utf-8"))
    todo = [s for s in specs if _spec_key(s) not in cache]
    if todo:
        fresh, error = _ask_aiconfigurator(todo)
        if error is not None:
            return [], error
        for spec, row in zip(todo, fresh, strict=True):
            cache[_spec_key(spec)] = row
        AIC_CACHE.write_text(json.dumps(cache), encoding="utf-8")
    return [cache[_spec_key(s)] for s in specs], None


def _ask_aiconfigurator(specs: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    try:
        python = _venv_python(AIC, AIC_REQUIREMENTS)
        proc = subprocess.run(
            [str(python), str(PEERS_DIR / "aiconfigurator_runner.py")],
            input=json.dumps(specs),
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, "HF_HUB_OFFLINE": "1", "AICONFIGURATOR_LOG_LEVEL": "ERROR"},
            timeout=1200,
        )
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
        return [], f"{type(exc).__name__}: {getattr(exc, 'stderr', '') or exc}"[-500:]
    rows: list[dict[str, Any]] = json.loads(proc.stdout)
    return rows, None


def aiconfigurator_rows(config_dir: Path) -> tuple[list[dict[str, Any]], str | None]:
    """Peer-table rows: for every row AIConfigurator covers, its figure and gpu-sizer's, each
    against the published measurement."""
    from bench.bench_performance import held_out_value, predict
    from bench.fit_performance import fit_all
    from bench.perf_rows import Setup, build, reference_rows

    peer, error = run_aiconfigurator(config_dir)
    fit = fit_all()
    by_id = {str(r["id"]): r for r in reference_rows()}
    rows: list[dict[str, Any]] = []
    for r in peer:
        ref = by_id[r["workload"]]
        setup = build(ref)
        label = f"{ref['id']}: {ref['metric']}"
        fitted = predict(setup) if isinstance(setup, Setup) else None
        held = held_out_value(setup, fit) if isinstance(setup, Setup) else None
        for tool, value, note in (
            ("gpu-sizer", fitted, "calibrated on the reference set, this row included"),
            ("gpu-sizer held-out", held, "a held-out row, or constants refitted without this row"),
            (AIC, r.get("value"), r.get("note", "")),
        ):
            rows.append(
                {
                    "workload": label,
                    "tool": tool,
                    "value": value if value is not None else "n/a",
                    "reference": ref["value"],
                    "unit": ref["unit"],
                    "error_pct": None if value is None else percent_error(value, ref["value"]),
                    "source": ref["source_url"],
                    "note": note,
                }
            )
    return rows, error


def run() -> dict[str, Any]:
    our_values = ours()
    rows: list[dict[str, Any]] = []
    errors: dict[str, str] = {}
    peer_values: dict[str, list[dict[str, Any]]] = {}
    for peer in PEERS:
        try:
            peer_values[peer] = run_peer(peer)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as exc:
            errors[peer] = f"{type(exc).__name__}: {getattr(exc, 'stderr', '') or exc}"[-500:]
            peer_values[peer] = []
    for workload, (label, reference, unit, source) in REFERENCES.items():
        entries = [("gpu-sizer", our_values[workload], "")]
        for peer, peer_rows in peer_values.items():
            for r in peer_rows:
                if r["workload"] == workload:
                    entries.append((peer, r["value"], r.get("note", "")))
        for tool, value, note in entries:
            rows.append(
                {
                    "workload": label,
                    "tool": tool,
                    "value": value if value is not None else "n/a",
                    "reference": reference,
                    "unit": unit,
                    "error_pct": None if value is None else percent_error(value, reference),
                    "source": source,
                    "note": note,
                }
            )
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        aic, aic_error = aiconfigurator_rows(Path(tmp))
    rows.extend(aic)
    if aic_error:
        errors[AIC] = aic_error
    return {
        "peers": rows,
        "peer_errors": errors,
        "python": sys.version.split()[0],
        "aiconfigurator_summary": aiconfigurator_summary(aic),
    }


def aiconfigurator_summary(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Median and worst |error| of gpu-sizer and AIConfigurator on the rows both answered."""
    import statistics

    by_tool: dict[str, dict[str, float]] = {}
    for r in rows:
        if r["error_pct"] is not None:
            by_tool.setdefault(r["tool"], {})[r["workload"]] = abs(r["error_pct"])
    both = set(by_tool.get("gpu-sizer held-out", {})) & set(by_tool.get(AIC, {}))
    out: dict[str, Any] = {"rows_both_answered": len(both)}
    for tool, errs in by_tool.items():
        values = [errs[w] for w in both]
        if values:
            out[tool] = {"median_pct": statistics.median(values), "worst_pct": max(values)}
    return out
