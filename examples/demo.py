"""The main job for now: a short tour printing what ember computes."""
import ember as e

a = e.arange(6.).reshape(2, 3)
print("a =", a)
print("a[:, 1:] + [10, 20] =", a[:, 1:] + e.tensor([10, 20]))
print("(a > 2).dtype =", (a > 2).dtype, "  (tensor([1, 2]) / 2).dtype =", (e.tensor([1, 2]) / 2).dtype)
print("exp(a).sum over rows via cat/stack:", e.stack([a.exp()[0], a.exp()[1]]))
