"""python -m tools.lint.import_cycles [ROOT]: fails on a cycle of imports among a package's modules
(ember, and each domain package), counting imports inside functions too: a lazy import that closes a
cycle hides a dependency the other way. A package's __init__ gathering its submodules is not a cycle;
a submodule importing a sibling through the package (`from .. import _C`) counts as importing that sibling."""
from __future__ import annotations

import ast
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PACKAGES = {"ember": "core/ember", "embervision": "vision/embervision", "emberaudio": "audio/emberaudio",
            "embertext": "text/embertext", "embercsprng": "csprng/embercsprng"}


def _modules(pkg: str, folder: pathlib.Path) -> dict[str, pathlib.Path]:
    found = {}
    for f in folder.rglob("*.py"):
        parts = [pkg, *f.relative_to(folder).with_suffix("").parts]
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = f
    return found


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join(base + ([name] if name else []))


def edges(mods: dict[str, pathlib.Path]) -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text())):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(mod, is_package, node.level, node.module)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                # a package's __init__ importing its own submodules (and them importing it) is the normal shape
                if t and t != mod and not (is_package and t.startswith(mod + ".")) and not mod.startswith(t + "."):
                    graph[mod].add(t)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm)."""
    index, low, on_stack, stack, found, counter = {}, {}, set(), [], [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def main(argv: list[str]) -> int:
    root = pathlib.Path(argv[0]) if argv else ROOT
    found = []
    for pkg, folder in PACKAGES.items():
        if (root / folder).is_dir():
            found += cycles(edges(_modules(pkg, root / folder)))
    for comp in found:
        print("import cycle: " + " <-> ".join(comp))
    print(f"import cycles: {len(found)}" if found else "import cycles: none")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
