"""Models a user points at, read from local files only (no network): a GGUF file, a Hugging
Face model folder / config.json / safetensors index, or a repo id in the local HF cache.

Every loader opens files through `safe_files` (regular files only, bounded JSON, GGUF headers
memory-mapped) and returns a `LoadedModel`; errors are ToolInputErrors naming the field.
"""

from tools.model_sources.folders import load_folder, load_local_path
from tools.model_sources.hf_cache import snapshot_dir
from tools.model_sources.loaded import LoadedModel


def load_cached_repo(repo_id: str) -> LoadedModel:
    """A repo id from the local Hugging Face cache (config.json and safetensors size)."""
    return load_folder(snapshot_dir(repo_id), "model", model_id=repo_id)


__all__ = ["LoadedModel", "load_cached_repo", "load_local_path"]
