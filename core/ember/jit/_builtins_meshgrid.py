"""ember.meshgrid in scripted code, in TorchScript's form: one list of 0-d or 1-d tensors
(`ember.meshgrid([ys, xs], indexing="ij")`); the grids as a list (TorchScript's List[Tensor] result)."""
from typing import List, Optional

from ember import Tensor


def meshgrid(tensors: List[Tensor], indexing: Optional[str] = None) -> List[Tensor]:
    how = "ij" if indexing is None else indexing
    if how != "ij" and how != "xy":
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: {how}')
    flat: List[Tensor] = []
    for t in tensors:
        if t.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got a tensor of "
                               f"shape {t.shape}")
        flat.append(t.reshape(-1))
    shape = [t.shape[0] for t in flat]
    grids: List[Tensor] = []
    for k, t in enumerate(flat):
        view = [1 for _ in range(len(flat))]
        view[k] = -1
        g = t.reshape(view).expand(shape)
        if how == "xy" and len(flat) >= 2:  # Cartesian: the first two output dims swap
            g = g.transpose(0, 1)
        grids.append(g)
    return grids
