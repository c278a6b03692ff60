"""Generic tests for the ops that are not elementwise (views, shape ops, creation, ...): each
OpInfo's sample inputs, per declared dtype, against its NumPy reference, also with the same values in
non-contiguous layouts; the method form against the function form; and meta inputs giving the same
shapes and dtypes without data."""
import numpy as np
import pytest

import ember
from opdb import entries  # noqa: F401
from ember.testing.opinfo import REGISTRY, compare, numpy_tree, reference_args, sample_args
from tools.opgen import opdb

ALL_OPS = {op.name: op for op in opdb.load()}
STRUCTURED = [op for op in ALL_OPS.values()
              if op.pointwise is None and not op.entry.get("elementwise") and not op.name.startswith("_")
              and op.name in REGISTRY and REGISTRY[op.name].sample_inputs is not None]
PARAMS = [(op, d) for op in STRUCTURED for d in op.dtypes]


def _strided(a):
    """a's values in a non-contiguous layout: matrices stored column-major, vectors every other element."""
    if not isinstance(a, ember.Tensor) or a.numel() <= 1:
        return a
    if a.dim() >= 2:
        return a.mT.contiguous().mT
    return ember.stack([a, a], -1)[..., 0]


@pytest.mark.parametrize("op,dtype", PARAMS, ids=[f"{o.name}-{d}" for o, d in PARAMS])
def test_against_reference(op, dtype):
    info = REGISTRY[op.name]
    rng = np.random.default_rng(7)
    fn = op.function(ember) if "function" in op.variants else None  # overloads bind under their public name
    for sample in info.sample_inputs(dtype, rng):
        args, kwargs = sample_args(sample, dtype)
        want = info.ref(*reference_args(args), **kwargs)  # first: a method-only op may change args[0] (t_)
        got = fn(*args, **kwargs) if fn else getattr(args[0], op.public_name)(*args[1:], **kwargs)
        msg = f"{op.name}({dtype}) sample {sample.kwargs}"
        if info.check:
            info.check(got, sample, dtype)
        if "compare_as" in info.extra:  # results unique up to signs/phases: compared through invariants
            got, want = info.extra["compare_as"](numpy_tree(got)), info.extra["compare_as"](want)
        compare(got, want, dtype, info, msg)
        if fn and "method" in op.variants and isinstance(args[0], ember.Tensor):
            again = getattr(args[0], op.public_name)(*args[1:], **kwargs)
            compare(again, want, dtype, info, msg + " (method)")
        if fn and "non_contiguous" not in info.skips and any(isinstance(a, ember.Tensor) and a.numel() > 1
                                                               for a in args):
            strided = [_strided(a) for a in args]
            got = fn(*strided, **kwargs)
            if "compare_as" in info.extra:
                got = info.extra["compare_as"](numpy_tree(got))
            compare(got, want, dtype, info, msg + " (non-contiguous inputs)")


@pytest.mark.parametrize("op", STRUCTURED, ids=[o.name for o in STRUCTURED])
def test_meta_shapes(op):
    info = REGISTRY[op.name]
    if "meta" in info.skips:
        pytest.skip(info.skips["meta"])
    dtype = "float32" if "float32" in op.dtypes else op.dtypes[0]
    rng = np.random.default_rng(7)
    fn = op.function(ember) if "function" in op.variants else None  # overloads bind under their public name
    for sample in info.sample_inputs(dtype, rng):
        args, kwargs = sample_args(sample, dtype)
        margs = [a.to("meta") if isinstance(a, ember.Tensor) else
                 (type(a)(i.to("meta") for i in a) if isinstance(a, (list, tuple)) and a and
                  isinstance(a[0], ember.Tensor) else a) for a in args]  # first: t_ changes args[0]
        cpu = fn(*args, **kwargs) if fn else getattr(args[0], op.public_name)(*args[1:], **kwargs)
        meta = fn(*margs, **kwargs) if fn else getattr(margs[0], op.public_name)(*margs[1:], **kwargs)
        cpus = cpu if isinstance(cpu, (list, tuple)) else [cpu]
        metas = meta if isinstance(meta, (list, tuple)) else [meta]
        for c, m in zip(cpus, metas):
            assert m.is_meta and m.shape == c.shape and m.dtype == c.dtype, f"{op.name} {sample.kwargs}"
