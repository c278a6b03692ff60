"""PyTorch-style printing of tensors: tensor([...], dtype=...)."""


def tensor_repr(t):
    return f"tensor({t.tolist()})"
