"""A package's re-exports loaded on first use (PEP 562 module `__getattr__`), so importing the
package for one name does not import every module behind its `__all__` (issue 32.5)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, MutableMapping
from typing import Any


def lazy_attribute(
    package: str, where: Mapping[str, str], namespace: MutableMapping[str, Any], name: str
) -> Any:
    """`name` from the submodule `where` names for it, kept in the package's `namespace` so
    the next look-up is a plain global; AttributeError for a name `where` lacks."""
    module = where.get(name)
    if module is None:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{package}.{module}"), name)
    namespace[name] = value
    return value
