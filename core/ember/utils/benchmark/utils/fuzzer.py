"""Fuzzer: random but reproducible benchmark inputs, as torch.utils.benchmark's: FuzzedParameters
(uniform, log-uniform or a custom distribution, aliases between them), FuzzedTensors whose sizes and
strides (permuted layouts, step slices) come from those parameters, and constraints; configurations
that break a constraint are redrawn. Unlike PyTorch's, tensor values come from a generator seeded by
the fuzzer's own seed, so `take` gives the same tensors every time without ember.manual_seed."""
import functools
import math

import ember

__all__ = ["Fuzzer", "FuzzedParameter", "ParameterAlias", "FuzzedTensor"]

_DISTRIBUTIONS = ("loguniform", "uniform")


class FuzzedParameter:
    def __init__(self, name, minval=None, maxval=None, distribution=None, strict=False):
        self._name, self._minval, self._maxval, self.strict = name, minval, maxval, strict
        if isinstance(distribution, dict):
            if minval is not None or maxval is not None:
                raise ValueError("When passing a custom distribution, 'minval' and 'maxval' must be None")
            if any(p < 0 for p in distribution.values()):
                raise ValueError("Probabilities cannot be negative")
            if abs(sum(distribution.values()) - 1) > 1e-5:
                raise ValueError(f"Distribution is not normalized: the probabilities sum to "
                                 f"{sum(distribution.values())}")
        elif distribution not in _DISTRIBUTIONS:
            raise ValueError(f"Unknown distribution: {distribution!r} (expected 'uniform', 'loguniform' or a dict)")
        elif minval is None or maxval is None or minval > maxval:
            raise ValueError(f"{name}: minval and maxval must be given with minval <= maxval")
        elif distribution == "loguniform" and minval <= 0:
            raise ValueError(f"{name}: a loguniform parameter needs minval > 0, got {minval}")
        self._distribution = distribution

    @property
    def name(self):
        return self._name

    def sample(self, state):
        d = self._distribution
        if d == "loguniform":
            value = int(2 ** state.uniform(math.log2(self._minval), math.log2(self._maxval)))
            return min(max(value, self._minval), self._maxval)
        if d == "uniform":
            if isinstance(self._minval, int) and isinstance(self._maxval, int):
                return int(state.randint(self._minval, self._maxval + 1))
            return float(state.uniform(self._minval, self._maxval))
        keys = list(d.keys())
        return keys[int(state.choice(len(keys), p=list(d.values())))]


class ParameterAlias:
    """A parameter value that is another parameter's value (so two tensors can share a size)."""

    def __init__(self, alias_to):
        self.alias_to = alias_to

    def __repr__(self):
        return f"ParameterAlias[alias_to: {self.alias_to}]"


def _dtype_size(dtype):
    return ember.empty((), dtype=dtype).element_size()


def _prod(values, base=1):
    return functools.reduce(lambda a, b: int(a) * int(b), values, base)  # Python ints: no overflow


class FuzzedTensor:
    def __init__(self, name, size, steps=None, probability_contiguous=0.5, min_elements=None, max_elements=None,
                 max_allocation_bytes=None, dim_parameter=None, roll_parameter=None, dtype=ember.float32,
                 cuda=False, tensor_constructor=None):
        if cuda:
            raise RuntimeError("FuzzedTensor(cuda=True): CUDA is not available in this build of ember")
        if steps is not None and len(steps) != len(size):
            raise ValueError(f"{name}: steps must have one entry per size entry ({len(size)}), got {len(steps)}")
        if not 0 <= probability_contiguous <= 1:
            raise ValueError(f"{name}: probability_contiguous must be in [0, 1], got {probability_contiguous}")
        self._name, self._size, self._steps = name, tuple(size), tuple(steps) if steps else None
        self._probability_contiguous = probability_contiguous
        self._min_elements, self._max_elements = min_elements, max_elements
        self._max_allocation_bytes = max_allocation_bytes
        self._dim_parameter, self._dtype = dim_parameter, dtype
        self._tensor_constructor = tensor_constructor

    @property
    def name(self):
        return self._name

    @staticmethod
    def default_tensor_constructor(size, dtype, generator=None, **kwargs):
        if dtype.is_floating_point or dtype.is_complex:
            return ember.rand(size, dtype=dtype, generator=generator)
        return ember.randint(1, 127, size, dtype=dtype, generator=generator)

    def _sizes(self, params):
        dim = params[self._dim_parameter] if self._dim_parameter is not None else len(self._size)

        def resolve(values):
            values = tuple(params.get(v, v) if isinstance(v, str) else v for v in values)[:dim]
            return values + (1,) * (dim - len(values))

        size, steps = resolve(self._size), resolve(self._steps or ())
        return size, steps, tuple(s * k for s, k in zip(size, steps))

    def satisfies_constraints(self, params):
        size, _, allocation = self._sizes(params)
        n = _prod(size)
        nbytes = _prod(allocation, _dtype_size(self._dtype))
        return not ((self._max_elements is not None and n > self._max_elements)
                    or (self._min_elements is not None and n < self._min_elements)
                    or (self._max_allocation_bytes is not None and nbytes > self._max_allocation_bytes))

    def _make_tensor(self, params, state):
        size, steps, allocation = self._sizes(params)
        generator = ember.Generator().manual_seed(int(state.randint(0, 2 ** 62)))
        if self._tensor_constructor is not None:
            raw = self._tensor_constructor(size=allocation, dtype=self._dtype, **params)
        else:
            raw = self.default_tensor_constructor(allocation, self._dtype, generator)
        dim = len(size)
        order = list(range(dim))
        if state.rand() > self._probability_contiguous and dim > 1:
            while order == list(range(dim)):  # a real permutation: the layout must differ
                order = [int(i) for i in state.permutation(dim)]
            inverse = sorted(range(dim), key=order.__getitem__)
            raw = raw.permute(order).contiguous().permute(inverse)
        tensor = raw[tuple(slice(0, s * k, k) for s, k in zip(size, steps))]
        return tensor, {"numel": int(tensor.numel()), "order": order, "steps": steps,
                        "is_contiguous": tensor.is_contiguous(), "dtype": str(self._dtype)}


def _flatten(items):
    out = []
    for item in items:
        out.extend(item if isinstance(item, (list, tuple)) else [item])
    return out


class Fuzzer:
    """`take(n)` yields n (tensors, tensor_properties, params) triples, each a dict keyed by name."""

    def __init__(self, parameters, tensors, constraints=None, seed=None):
        import numpy as np  # only the fuzzer needs NumPy's RandomState; importing ember does not
        self._parameters = _flatten(parameters)
        self._tensors = _flatten(tensors)
        names = [p.name for p in self._parameters]
        if len(set(names)) != len(names):
            raise ValueError(f"Duplicate parameter names: {sorted({n for n in names if names.count(n) > 1})}")
        overlap = set(names) & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {sorted(overlap)}")
        self._constraints = list(constraints or ())
        self._seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1)) if seed is None else seed
        self._np = np
        self._rejections = self._total_generated = 0

    def take(self, n):
        state = self._np.random.RandomState(self._seed)
        for _ in range(n):
            params = self._generate(state)
            tensors, properties = {}, {}
            for t in self._tensors:
                tensors[t.name], properties[t.name] = t._make_tensor(params, state)
            yield tensors, properties, params

    @property
    def rejection_rate(self):
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _generate(self, state):
        strict = {p.name: p.sample(state) for p in self._parameters if p.strict}
        for _ in range(1000):
            params = dict(strict)
            params.update({p.name: p.sample(state) for p in self._parameters if not p.strict})
            params = self._resolve_aliases(params)
            self._total_generated += 1
            if all(c(params) for c in self._constraints) and all(t.satisfies_constraints(params)
                                                                 for t in self._tensors):
                return params
            self._rejections += 1
        raise ValueError("Fuzzer: no parameter configuration satisfied the constraints in 1000 draws")

    @staticmethod
    def _resolve_aliases(params):
        params = dict(params)
        for _ in range(len(params) + 1):
            pending = {k: v for k, v in params.items() if isinstance(v, ParameterAlias)}
            if not pending:
                return params
            for k, v in pending.items():
                if v.alias_to not in params:
                    raise KeyError(f"ParameterAlias to unknown parameter {v.alias_to!r}")
                params[k] = params[v.alias_to]
        raise ValueError("Cycle in parameter aliases")
