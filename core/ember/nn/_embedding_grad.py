"""The gradient of an embedding lookup with PyTorch's two options: sparse=True gives the weight a sparse COO
gradient (one entry per looked-up index, padding_idx left out, uncoalesced as PyTorch's), and
scale_grad_by_freq divides each row's gradient by how often its index occurs in the batch."""
from .. import _C
from ..autograd.function import Function

# Set by ember.sparse._grad when ember.sparse is imported (as `import ember` does), so that nn does not import
# sparse: make_coo(indices (1, n), rows (n, d), shape) -> an uncoalesced sparse COO tensor, and
# accumulate(leaf, sparse gradient), the leaf's .grad += it.
sparse_hooks = {}


class EmbeddingLookup(Function):
    @staticmethod
    def forward(ctx, weight, flat, padding_idx, scale_grad_by_freq, sparse):
        ctx.save_for_backward(flat)
        ctx.weight, ctx.padding_idx, ctx.scale, ctx.sparse = weight, padding_idx, scale_grad_by_freq, sparse
        return weight.index_select(0, flat)

    @staticmethod
    def backward(ctx, grad):
        (flat,) = ctx.saved_tensors
        weight = ctx.weight
        idx, rows = flat, grad
        if ctx.padding_idx is not None:
            keep = flat != ctx.padding_idx
            idx, rows = flat[keep], grad[keep]
        if ctx.scale:
            counts = _C.bincount(flat, minlength=weight.shape[0]).to(grad.dtype)
            rows = rows / counts[idx].unsqueeze(1)
        if ctx.sparse:
            g = sparse_hooks["make_coo"](idx.unsqueeze(0), rows, weight.shape)
            if weight.is_leaf:
                # The engine carries dense gradients only: the sparse one goes to weight.grad here.
                sparse_hooks["accumulate"](weight, g)
                return None, None, None, None, None
            return g.to_dense(), None, None, None, None
        dense = _C.zeros(list(weight.shape), dtype=grad.dtype).index_add(0, idx, rows)
        return dense, None, None, None, None
