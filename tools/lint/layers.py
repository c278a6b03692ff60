"""python -m tools.lint.layers [ROOT]: fails when a file of core/csrc includes a header of a higher
layer. The order is ARCHITECTURE.md's: a layer may include its own headers and those of the layers
before it. Generated headers count as the layer they declare for (ops: kernels; nodes: autograd)."""
from __future__ import annotations

import pathlib
import re
import sys

LAYERS = ["base", "types", "device", "tensor", "dispatch", "iter", "kernels", "autograd", "composite", "amp",
          "jit", "ddp", "distributed", "profiler", "python"]
GENERATED = {"ops": "kernels", "ops.h": "kernels", "kernels": "kernels", "autograd": "autograd"}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
ROOT = pathlib.Path(__file__).resolve().parents[2]


def layer_of_include(path: str, own: str) -> str | None:
    """The layer a quoted include belongs to; None for what is not ours (third-party headers)."""
    parts = path.split("/")
    if parts[0] == "generated" and len(parts) > 1:
        return GENERATED.get(parts[1])
    if parts[0] in LAYERS:
        return parts[0]
    return own if len(parts) == 1 else None  # a header beside the including file


def violations(csrc: pathlib.Path) -> list[str]:
    found = []
    for f in sorted(csrc.rglob("*")):
        if f.suffix not in (".h", ".cpp") or not f.is_file():
            continue
        own = f.relative_to(csrc).parts[0]
        if own not in LAYERS:
            continue  # extension.h, the public header, sits above every layer
        for n, line in enumerate(f.read_text().splitlines(), 1):
            m = INCLUDE.match(line)
            target = m and layer_of_include(m.group(1), own)
            if target and LAYERS.index(target) > LAYERS.index(own):
                found.append(f"{f.relative_to(csrc.parents[1])}:{n}: #include \"{m.group(1)}\" reaches up from "
                             f"{own}/ to {target}/")
    return found


def main(argv: list[str]) -> int:
    root = pathlib.Path(argv[0]) if argv else ROOT
    found = violations(root / "core" / "csrc")
    for v in found:
        print(v)
    print(f"layers: {len(found)} upward include(s); the order is {' < '.join(LAYERS)}" if found else "layers: ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
