"""python -m tools.fuzz --calls 100000 --seed S   (a campaign: figures and a repro line per failure)
python -m tools.fuzz --seed S --replay I         (call I of seed S alone, in this process, with its traceback)
python -m tools.fuzz --list                      (the targets)"""
from __future__ import annotations

import argparse
import sys
import traceback


def main(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m tools.fuzz", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--calls", type=int, default=10000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--start", type=int, default=0, help="first call index")
    p.add_argument("--batch", type=int, default=2000, help="calls per child process")
    p.add_argument("--timeout", type=float, default=20.0, help="seconds a call may take before it is a hang")
    p.add_argument("--replay", type=int, default=None, help="run call REPLAY of --seed here and show it")
    p.add_argument("--list", action="store_true")
    a = p.parse_args(argv)
    if a.list or a.replay is not None:
        import numpy as np

        import ember
        from tools.fuzz import campaign, verdict
        targets = campaign.targets(ember)
        if a.list:
            print("\n".join(t.path for t in targets))
            print(f"{len(targets)} targets", file=sys.stderr)
            return 0
        call = campaign.make_call(targets, a.seed, a.replay)
        print(call.describe(), flush=True)
        from tools.fuzz import values as V
        from tools.fuzz.targets import resolve
        args = [V.build(s, ember, np) for s in call.args]
        kwargs = {k: V.build(s, ember, np) for k, s in call.kwargs.items()}
        try:
            f = getattr(args[0], call.path[7:]) if call.path.startswith("Tensor.") else resolve(ember, call.path)
            out = f(*(args[1:] if call.path.startswith("Tensor.") else args), **kwargs)
            print("returned", type(out).__name__)
        except Exception as e:
            traceback.print_exc()
            print("verdict:", verdict.judge(e, ember, call.path.startswith("nn.functional.")) or "clean")
        return 0
    from tools.fuzz import runner
    res = runner.run(a.seed, a.calls, start=a.start, batch=a.batch, timeout=a.timeout)
    print(f"fuzz: seed {a.seed}, calls {res.calls}, {res.seconds:.0f} s, {res.children} child processes, "
          f"failures {len(res.failures)} {res.by_kind()}; timeouts reading a 2**40-element input (not failures): "
          f"{res.slow_huge}")
    return 1 if res.failures else 0


if __name__ == "__main__":
    sys.exit(main())
