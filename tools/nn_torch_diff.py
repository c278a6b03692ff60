"""python tools/nn_torch_diff.py TORCH_PYTHON: every public ember.nn.functional function, called
with each tensor argument of its valid call (tests/nn/functional_valid_calls.py) mutated (rank,
size, dtype, empty, NaN, negative), in ember and in PyTorch (TORCH_PYTHON is an interpreter with
torch); prints where PyTorch raises and ember returns (silent acceptance) and the reverse."""
from __future__ import annotations

import json
import pathlib
import subprocess
import sys
import tempfile

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Run in each interpreter: argv = framework, pickled specs. One JSON line per call.
_RUN = r"""
import json, pickle, sys, warnings
import numpy as np
warnings.simplefilter("ignore")
if sys.argv[1] == "torch":
    import torch as m
    import torch.nn.functional as F
    to_t = lambda a: m.from_numpy(np.ascontiguousarray(a))
else:
    import ember as m
    import ember.nn.functional as F
    to_t = lambda a: m.tensor(np.ascontiguousarray(a))

def mutations(a):
    yield "same", a
    if a.ndim:
        yield "drop_last_dim", a[..., 0]
        yield "last_plus1", np.concatenate([a, a[..., :1]], -1)
        yield "first_plus1", np.concatenate([a, a[:1]], 0)
        yield "zero_first", a[:0]
        yield "zero_last", a[..., :0]
    yield "add_lead_dim", a[None]
    for dt in (np.int64, np.float64, np.complex64, np.bool_):
        yield np.dtype(dt).name, a.astype(dt)
    yield "scalar0d", np.array(a.reshape(-1)[0] if a.size else 0, dtype=a.dtype)
    if a.dtype.kind == "f":
        yield "nan", np.full_like(a, np.nan)
        yield "neg", -np.abs(a) - 1
    if a.dtype.kind == "i":
        yield "neg_int", -np.abs(a) - 2
        yield "big_int", np.abs(a) + 1000

specs = pickle.load(open(sys.argv[2], "rb"))
for name, (args, kwargs) in specs.items():
    fn = getattr(F, name, None)
    if fn is None:
        continue
    slots = [(i, v[1]) for i, v in enumerate(args) if v[0] == "T"]
    slots += [(k, v[1]) for k, v in kwargs.items() if v[0] == "T"]
    for n, (slot, arr) in enumerate(slots):
        for mname, marr in mutations(arr):
            if mname == "same" and n:
                continue
            a2 = [to_t(v[1]) if v[0] == "T" else v[1] for v in args]
            k2 = {k: (to_t(v[1]) if v[0] == "T" else v[1]) for k, v in kwargs.items()}
            if isinstance(slot, int):
                a2[slot] = to_t(marr)
            else:
                k2[slot] = to_t(marr)
            try:
                fn(*a2, **k2)
                kind, msg = "ok", ""
            except Exception as e:
                kind, msg = type(e).__name__, str(e)[:200]
            print(json.dumps([name, str(slot), mname, kind, msg]), flush=True)
"""

_DUMP = r"""
import pickle, sys
sys.path.insert(0, sys.argv[1])
import ember
from functional_valid_calls import VALID_CALLS
ember.manual_seed(0)
conv = lambda v: ("T", v.detach().numpy().copy()) if isinstance(v, ember.Tensor) else ("V", v)
specs = {}
for name, make in VALID_CALLS.items():
    args, kwargs = make()
    specs[name] = ([conv(v) for v in args], {k: conv(v) for k, v in kwargs.items()})
pickle.dump(specs, open(sys.argv[2], "wb"))
"""


def _outcomes(python, framework, specs):
    out = subprocess.run([python, "-c", _RUN, framework, specs], capture_output=True, text=True, check=True).stdout
    return {tuple(row[:3]): row[3:] for row in map(json.loads, out.splitlines())}


def main() -> int:
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        specs = str(pathlib.Path(tmp) / "specs.pkl")
        subprocess.run([sys.executable, "-c", _DUMP, str(ROOT / "tests" / "nn"), specs], check=True)
        ours, theirs = _outcomes(sys.executable, "ember", specs), _outcomes(sys.argv[1], "torch", specs)
    both = [k for k in ours if k in theirs]
    silent = [k for k in both if theirs[k][0] != "ok" and ours[k][0] == "ok"]
    stricter = [k for k in both if theirs[k][0] == "ok" and ours[k][0] != "ok"]
    for k in silent:
        print("accepted, PyTorch raises:", *k, "|", theirs[k][0], theirs[k][1][:100])
    for k in stricter:
        print("raises, PyTorch accepts:", *k, "|", ours[k][0], ours[k][1][:100])
    print(f"{len(both)} calls compared: {len(silent)} accepted that PyTorch refuses, {len(stricter)} refused that "
          f"PyTorch accepts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
