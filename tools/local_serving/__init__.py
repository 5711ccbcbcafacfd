"""Local serving with llama.cpp (llama-server) or Ollama: partial offload (-ngl / num_gpu),
the system RAM the rest needs, an estimated decode speed and a matching launch line."""

from tools.local_serving.kv import kv_bytes_per_token
from tools.local_serving.plan import plan_local_serving
from tools.local_serving.request import LocalServingPlan, LocalServingRequest

__all__ = ["LocalServingPlan", "LocalServingRequest", "kv_bytes_per_token", "plan_local_serving"]
