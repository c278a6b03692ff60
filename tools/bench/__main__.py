"""python -m tools.bench [-k SUBSTRING] [--runs N]: ember vs NumPy (and PyTorch when importable)."""
import argparse
import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2]))

from tools.bench import core_elementwise, runner  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(prog="bench")
    ap.add_argument("-k", default="", help="only cases whose name contains this")
    ap.add_argument("--runs", type=int, default=3, help="runs per case; the median is reported")
    a = ap.parse_args()
    import ember
    print(f"ember {ember.__version__}, {ember.get_num_threads()} threads")
    cases = [c for c in core_elementwise.cases() if a.k.lower() in c.name.lower()]
    runner.print_table(runner.run(cases, a.runs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
