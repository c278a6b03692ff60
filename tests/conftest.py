import pathlib
import sys

# tests/ and the repo root on the path: tests import the op database loader (tools.opgen.opdb).
ROOT = pathlib.Path(__file__).resolve().parents[1]
for p in (str(ROOT), str(ROOT / "tests")):
    if p not in sys.path:
        sys.path.insert(0, p)
