"""The main job for now: a short tour of what ember computes (run by `make demo`)."""
import numpy as np

import ember as e


def show(label, value):
    text = repr(value)
    print(f"{label}:\n  " + text.replace("\n", "\n  ") if "\n" in text else f"{label}: {text}")


print("== creation")
a = e.arange(6.).reshape(2, 3)
show("a = arange(6.).reshape(2, 3)", a)
show("linspace(0, 1, 5)", e.linspace(0, 1, 5))
show("logspace(0, 3, 4, dtype=int64)", e.logspace(0, 3, 4, dtype=e.int64))
show("eye(2, 3, dtype=bool)", e.eye(2, 3, dtype=e.bool))
show("full((2,), 7) infers int64", e.full((2,), 7))

print("\n== views, broadcasting and type promotion")
show("a[:, 1:] + tensor([10, 20])", a[:, 1:] + e.tensor([10, 20]))
print("(a > 2).dtype =", (a > 2).dtype, "  (tensor([1, 2]) / 2).dtype =", (e.tensor([1, 2]) / 2).dtype)
show("where(a > 2, a, -1.)", e.where(a > 2, a, -1.))
show("stack of exp rows", e.stack([a.exp()[0], a.exp()[1]]))

print("\n== printing")
show("tiny and huge values switch to scientific notation", e.tensor([1e-5, 1.0, 1e5]))
show("complex", e.tensor([1 + 2j, 3 - 1j]))
show("big tensors are summarized", e.arange(10_000).reshape(100, 100))
show("meta tensors carry shapes, not data", e.zeros(1000, 1000, device="meta"))

print("\n== NumPy and DLPack, zero-copy")
n = np.zeros(3, dtype=np.float32)
t = e.from_numpy(n)
n[0] = 42.0
print("from_numpy sees NumPy's write:", t.tolist())
view = np.from_dlpack(t)
view[2] = -1.0
print("np.from_dlpack(t) writes through:", t.tolist(), "  t.numpy() is", t.numpy())

print("\n== reductions, sorting and indexing")
x = e.tensor([[3., 1., 2.], [0., 5., 4.]])
show("x", x)
show("x.sum(dim=1), x.mean(), x.std(dim=0)", (x.sum(dim=1), x.mean(), x.std(dim=0)))
show("x.max(dim=1) is a named tuple", x.max(dim=1))
show("x.sort(descending=True).values", x.sort(descending=True).values)
show("x[[0, 1], [2, 0]] and x[x > 2]", (x[[0, 1], [2, 0]], x[x > 2]))
show("unique of [3, 1, 3, 2] with counts", e.unique(e.tensor([3, 1, 3, 2]), return_counts=True))

print("\n== matrix products (OpenBLAS) and einsum")
show("x @ x.T", x @ x.T)
show("einsum('ij,kj->ik', x, x) agrees", e.einsum("ij,kj->ik", x, x))

print("\n== random numbers: a seeded generator gives the same draws on any thread count")
g = e.Generator().manual_seed(0)
show("rand(3, generator=g)", e.rand(3, generator=g))
show("randint(0, 10, (5,)) after manual_seed(1)", (e.manual_seed(1), e.randint(0, 10, (5,)))[1])

print("\n== save and load keep views sharing storage")
import io  # noqa: E402
buf = io.BytesIO()
base = e.arange(6.)
e.save({"base": base, "view": base[2:4]}, buf)
buf.seek(0)
loaded = e.load(buf)
loaded["view"][0] = 100.
show("writing the loaded view shows in the loaded base", loaded["base"])
