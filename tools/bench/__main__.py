"""python -m tools.bench [-k SUBSTRING] [--runs N]: ember vs NumPy (and PyTorch when importable)."""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from tools.bench import runner  # noqa: E402


def suites():
    """Every tools/bench/<name>.py with a cases() function, in name order."""
    import importlib
    for path in sorted(pathlib.Path(__file__).parent.glob("*.py")):
        if path.stem.startswith("_") or path.stem == "runner":
            continue
        mod = importlib.import_module(f"tools.bench.{path.stem}")
        if hasattr(mod, "cases"):
            yield mod


def main() -> int:
    ap = argparse.ArgumentParser(prog="bench")
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--runs", type=int, default=3, help="runs per case; the median is reported")
    a = ap.parse_args()
    import ember
    print(f"ember {ember.__version__}, {ember.get_num_threads()} threads")
    cases = [c for mod in suites() for c in mod.cases() if a.k.lower() in c.name.lower()]
    runner.print_table(runner.run(cases, a.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
