"""Models in the local Hugging Face cache, found by repo id with no network access.

The cache is huggingface_hub's layout (`models--{org}--{name}/{blobs,refs,snapshots/<rev>/}`,
huggingface_hub docs 'Understand caching'); `scan_cache_dir` lists it and
`try_to_load_from_cache` finds one file of the revision `refs/main` points at. Both read only
the disk (the HF_HUB_OFFLINE behaviour of every lookup here). The cache folder is read at call
time: HF_HUB_CACHE, else HF_HOME/hub, else huggingface_hub's default (~/.cache/huggingface/hub).
"""

from __future__ import annotations

import os
from pathlib import Path

from tools.errors import ToolInputError, closest_names

FIELD = "model"


def cache_dir() -> Path:
    """The Hugging Face hub cache folder the environment names (never created here)."""
    if os.environ.get("HF_HUB_CACHE"):
        return Path(os.environ["HF_HUB_CACHE"]).expanduser()
    if os.environ.get("HF_HOME"):
        return Path(os.environ["HF_HOME"]).expanduser() / "hub"
    from huggingface_hub import constants

    return Path(constants.HF_HUB_CACHE)


def cached_repo_ids() -> list[str]:
    """Model repo ids in the local cache (empty when there is none)."""
    from huggingface_hub import scan_cache_dir
    from huggingface_hub.errors import CacheNotFound

    root = cache_dir()
    if not root.is_dir():
        return []
    try:
        info = scan_cache_dir(root)
    except (CacheNotFound, OSError, ValueError):
        return []
    return sorted(repo.repo_id for repo in info.repos if repo.repo_type == "model")


def snapshot_file(repo_id: str, filename: str) -> Path | None:
    """`filename` of the cached revision of `repo_id` (refs/main), or None when not cached."""
    from huggingface_hub import try_to_load_from_cache

    root = cache_dir()
    if not root.is_dir():
        return None
    try:
        found = try_to_load_from_cache(repo_id, filename, cache_dir=root)
    except (ValueError, OSError):  # an id huggingface_hub refuses (HFValidationError)
        return None
    return Path(found) if isinstance(found, str) else None


def snapshot_dir(repo_id: str) -> Path:
    """The folder of the cached revision of `repo_id` that holds its config.json, or a
    ToolInputError naming the closest cached repo ids."""
    config = snapshot_file(repo_id, "config.json")
    if config is None:
        cached = cached_repo_ids()
        raise ToolInputError(
            FIELD,
            f"{repo_id!r} is neither a catalog model nor in the local Hugging Face cache "
            f"({cache_dir()}) with a config.json",
            "a catalog model (gpu-sizer models), a repo id downloaded to the cache, "
            "model_file PATH (GGUF, config.json, safetensors index or model folder), or "
            "params like '13B'",
            closest_names(repo_id, cached),
        )
    return config.parent
