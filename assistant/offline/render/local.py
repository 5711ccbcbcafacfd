"""The llama.cpp / Ollama part of an answer: what fits on the GPU (-ngl / num_gpu), the
system RAM the rest needs, the estimated decode speed and the launch line, from
`plan_local_serving` results (figures copied, never computed here)."""

from __future__ import annotations

from assistant.offline.render.results import CallResult, bytes_from, error_text, gib


def _verdict(r: dict[str, object]) -> str:
    n, on, ngl = r.get("n_layers"), r.get("gpu_layers"), r.get("n_gpu_layers")
    gpu, budget = gib(bytes_from(r, "gpu")), gib(bytes_from(r, "budget"))
    host = gib(bytes_from(r, "host"))
    if r.get("fits_fully"):
        return (
            f"fits on the GPU: all {n} layers and the output layer (-ngl {ngl}), {gpu} of "
            f"{budget}; the token embedding stays in system RAM ({host})"
        )
    ram = ""
    if r.get("fits_in_ram") is True:
        ram = f", within the {gib(bytes_from(r, 'system_ram'))} of RAM you have"
    elif r.get("fits_in_ram") is False:
        ram = f", more than the {gib(bytes_from(r, 'system_ram'))} of RAM you have: it does not run"
    if not ngl:
        return f"no layer fits on the GPU ({budget}); all {n} layers need {host} of system RAM{ram}"
    return (
        f"does not fit entirely: {on} of {n} layers fit on the GPU (-ngl {ngl}, {gpu} of "
        f"{budget}); the other layers need {host} of system RAM{ram}"
    )


def local_serving_lines(calls: list[CallResult]) -> list[str]:
    """One block per plan_local_serving call."""
    out: list[str] = []
    for call in calls:
        if call.name != "plan_local_serving":
            continue
        if call.is_error:
            out.append(f"- Local serving could not be sized: {error_text(call)}")
            continue
        r = call.result
        launcher = "Ollama" if r.get("launcher") == "ollama" else "llama.cpp (llama-server)"
        count = f"{r['gpus']}× " if int(str(r.get("gpus", 1))) > 1 else ""
        label = f"{count}{r.get('gpu_label')}"
        if r.get("gpu_memory_stated"):
            label += " (not in the catalog: the memory you gave)"
        out.append(f"**{launcher}, {r.get('weights_format')}, on {label}: {_verdict(r)}.**")
        speed = r.get("decode_tokens_per_s")
        if isinstance(speed, int | float):
            out.append(
                f"- Decode speed ≈ {speed:.1f} tokens/s per sequence, {r.get('decode_basis')}."
            )
        out.append(
            f"- KV cache {r.get('cache_type')}: {gib(bytes_from(r, 'kv_cache'))} for "
            f"{r.get('parallel')} slot(s) × {r.get('context_per_slot'):,} tokens."
        )
        out.append(f"- Launch: `{r.get('launch_command')}`")
        modelfile = r.get("ollama_modelfile")
        if isinstance(modelfile, str):
            out += ["", "```", modelfile, "```"]
        out.append("")
    return out
