"""The local plans of a sizing request about hardware the user owns (issue 29): one
`plan_local_serving` per named configuration, in the best GGUF type that fits
(`tools.local_serving.choose`) unless the question named one, at the context and users said.
"""

from __future__ import annotations

from pydantic import ValidationError

from tools.errors import ToolInputError
from tools.local_serving import LocalServingPlan, LocalServingRequest, plan_local_serving
from tools.memory.formats import GGUF_FORMATS
from tools.sizing.headline import owned_hardware
from tools.sizing.report import SizingError
from tools.sizing.request import GpuConfiguration, OwnedHardware, SizingRequest

LOCAL_EQUIVALENT: dict[str, str] = {
    "int4-awq": "q4_k_m",
    "int4-gptq": "q4_k_m",
    "nf4": "q4_k_m",
    "nf4-dq": "q4_k_m",
    "int8": "q8_0",
    "fp8": "q8_0",
    "bf16": "fp16",
    "fp32": "fp16",
}
"""A precision said in vLLM's words ('4-bit', int8, bf16), as llama.cpp runs it: the GGUF
type of those bits (Q4_K_M, Q8_0; 16-bit as an F16 GGUF, the default --outtype of llama.cpp's
convert_hf_to_gguf.py)."""


def local_weights(weights: str) -> str | None:
    """The GGUF type a local plan sizes for the weights said; None: choose the best."""
    if weights in GGUF_FORMATS or weights == "fp16":
        return weights
    return LOCAL_EQUIVALENT.get(weights)


def local_request(
    request: SizingRequest, config: GpuConfiguration, owned: OwnedHardware
) -> LocalServingRequest:
    """The local-serving request for one named configuration of an owned-hardware request."""
    w = request.workload
    fields = w.model_fields_set
    weights = local_weights(w.weights) if w.weights and "weights" in w.model_fields_set else None
    return LocalServingRequest(
        model=owned.ollama_tag or w.model,
        params=w.params,
        config_path=w.config_path,
        model_file=w.model_file,
        weights=weights,
        kv_dtype=w.kv_dtype,
        gpu=config.gpu,
        gpu_memory_gb=owned.gpu_memory_gb if config.gpu is None else None,
        gpus=config.count or 1,
        context=w.context if "context" in fields else None,
        parallel=w.users if "users" in fields else 1,
        launcher=owned.launcher,
        system_ram_gb=owned.system_ram_gb,
        mlx=owned.mlx,
        choose_format=weights is None,
        split_mode=w.split_mode,
    )


def local_plans(
    request: SizingRequest, configs: list[GpuConfiguration]
) -> tuple[list[LocalServingPlan], list[SizingError]]:
    """(plans, errors) for each named catalog configuration; none unless the request is about
    owned hardware (`tools.sizing.headline.owned_hardware`)."""
    owned = owned_hardware(request)
    if owned is None:
        return [], []
    plans: list[LocalServingPlan] = []
    errors: list[SizingError] = []
    if owned.gpu_memory_gb is not None:
        # One plan on the memory said: no catalog card stands in for the user's own.
        count = next((c.count for c in configs if c.count), None)
        configs = [GpuConfiguration(count=count)]
    for config in configs:
        if config.gpu is None and owned.gpu_memory_gb is None:
            continue
        try:
            plans.append(plan_local_serving(local_request(request, config, owned)))
        except ToolInputError as exc:
            errors.append(SizingError(field=exc.field, problem=exc.problem, allowed=exc.allowed))
        except ValidationError as exc:
            # A named configuration the local plan cannot take (more GPUs than llama.cpp
            # splits layers over): said under the configuration, never a bare inner field.
            problem = "; ".join(e["msg"] for e in exc.errors())
            errors.append(
                SizingError(
                    field="configurations.count",
                    problem=f"no local llama.cpp plan for this configuration: {problem}",
                )
            )
    return plans, errors
