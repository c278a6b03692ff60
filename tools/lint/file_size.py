"""python -m tools.lint.file_size [ROOT]: fails on a tracked source file past 800 lines (files hold one
concern; split them before that). Generated files live in build directories and are not tracked."""
from __future__ import annotations

import pathlib
import subprocess
import sys

LIMIT = 800
SOURCES = (".py", ".h", ".cpp", ".yaml", ".cmake", ".md", ".toml", ".txt")
ROOT = pathlib.Path(__file__).resolve().parents[2]


def tracked(root: pathlib.Path) -> list[pathlib.Path]:
    out = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=root,
                         capture_output=True, text=True, check=True).stdout
    return [root / p for p in out.splitlines() if p.endswith(SOURCES)]


def too_long(files: list[pathlib.Path], limit: int = LIMIT) -> list[tuple[pathlib.Path, int]]:
    found = []
    for f in files:
        if f.is_file():
            n = len(f.read_text(errors="replace").splitlines())
            if n > limit:
                found.append((f, n))
    return found


def main(argv: list[str]) -> int:
    root = pathlib.Path(argv[0]) if argv else ROOT
    found = too_long(tracked(root))
    for f, n in found:
        print(f"{f.relative_to(root)}: {n} lines (at most {LIMIT}: split it by concern)")
    print(f"file size: {len(found)} file(s) too long" if found else "file size: ok")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
