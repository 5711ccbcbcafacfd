"""The import graph is the architecture (docs/ARCHITECTURE.md, "Layers and who imports whom").

Read from the source with `ast` — every `import` and `from … import`, at module level or inside
a function, and `importlib.import_module("…")` with a literal name — over assistant/ and tools/:

1. A surface never imports another surface's modules. The surfaces: the app, the CLI commands,
   the MCP server, the LLM engine and the offline engine. They share the presentation layer
   (`assistant.render`, with the proposal document `assistant.proposal`), the reading layer
   (`assistant.reading`, the parser `assistant.offline.parser` and its planner), the core
   (`assistant.conversation`, `registry`, `results`, …) and `tools`.
2. Nothing shared imports a surface; only the composition roots join them (`assistant.cli`
   dispatches subcommands, `assistant.engines` picks the engine).
3. No private name (`_name`) is imported from another module, and none is read as an attribute
   of an imported module (`module._name`).
"""

from __future__ import annotations

import ast
import functools
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

SURFACES: dict[str, tuple[str, ...]] = {
    "app": ("assistant.app",),
    "commands": ("assistant.commands",),
    "mcp": ("assistant.mcp",),
    "llm": ("assistant.llm",),
    "offline engine": ("assistant.offline.engine",),
}
"""Each surface by the module prefixes that are its own."""

COMPOSITION_ROOTS = ("assistant.cli", "assistant.engines", "assistant.__main__")
"""The modules that join surfaces: the subcommand dispatcher and the engine factory."""


@dataclass(frozen=True)
class Import:
    """One imported module (and the names taken from it) at a line of a source module."""

    source: str
    line: int
    target: str
    names: tuple[str, ...] = ()

    def __str__(self) -> str:
        names = f" ({', '.join(self.names)})" if self.names else ""
        return f"{self.source}:{self.line} imports {self.target}{names}"


def module_name(path: Path) -> str:
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _absolute(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


@functools.cache
def _tree(path: Path) -> ast.Module:
    """One parse per file for all the checks (parsing the ~300 files is most of their time)."""
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def imports_of(path: Path) -> list[Import]:
    """Every import of one source file, function-level and `importlib` ones included."""
    module = module_name(path)
    tree = _tree(path)
    found: list[Import] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [Import(module, node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, node, path.name == "__init__.py")
            names = tuple(alias.name for alias in node.names)
            found.append(Import(module, node.lineno, target, names))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            found.append(Import(module, node.lineno, node.args[0].value))
    return found


def private_attributes(path: Path) -> list[Import]:
    """`module._name` reads where `module` is a module this file imported by name."""
    module = module_name(path)
    tree = _tree(path)
    modules: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    modules[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            target = _absolute(module, node, path.name == "__init__.py")
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                if _is_module(candidate):
                    modules[alias.asname or alias.name] = candidate
    found: list[Import] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            found.append(Import(module, node.lineno, modules[node.value.id], (node.attr,)))
    return found


def _is_module(name: str) -> bool:
    path = REPO.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def sources() -> list[Path]:
    return sorted(
        p
        for root in ("assistant", "tools")
        for p in (REPO / root).rglob("*.py")
        if "__pycache__" not in p.parts
    )


def surface_of(module: str) -> str | None:
    for surface, prefixes in SURFACES.items():
        if any(module == p or module.startswith(p + ".") for p in prefixes):
            return surface
    return None


def test_the_walk_sees_function_level_and_importlib_imports() -> None:
    # The checks below are only as good as the walk: it must see the imports a module makes
    # inside a function (the CLI's lazy ones) and by name through importlib (the dispatcher).
    cli = imports_of(REPO / "assistant" / "cli.py")
    assert any(i.target == "assistant.app.main" for i in cli)  # inside _run_app
    engines = {i.target for i in imports_of(REPO / "assistant" / "engines.py")}
    assert "assistant.offline.engine" in engines
    assert module_name(REPO / "assistant" / "render" / "__init__.py") == "assistant.render"


def test_no_surface_imports_another_surface() -> None:
    crossing = []
    for path in sources():
        for imp in imports_of(path):
            mine, theirs = surface_of(imp.source), surface_of(imp.target)
            if theirs is None or imp.source in COMPOSITION_ROOTS:
                continue
            if mine is None:
                crossing.append(f"{imp} — shared code importing the {theirs} surface")
            elif mine != theirs:
                crossing.append(f"{imp} — the {mine} surface importing the {theirs} surface")
    assert not crossing, "\n".join(crossing)


def test_no_private_name_crosses_a_module() -> None:
    private = []
    for path in sources():
        for imp in imports_of(path):
            taken = [n for n in imp.names if n.startswith("_") and not n.startswith("__")]
            if taken and imp.target != imp.source:
                private.append(str(imp))
        private += [str(a) for a in private_attributes(path) if a.target != a.source]
    assert not private, "\n".join(private)
