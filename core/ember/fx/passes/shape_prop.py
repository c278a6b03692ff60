"""ShapeProp: runs a GraphModule on example inputs and records each node's result's shape, dtype,
stride and the like in node.meta['tensor_meta'] (torch.fx.passes.shape_prop)."""
from __future__ import annotations

from typing import Any, NamedTuple

from ..interpreter import Interpreter
from ..node import Node, map_aggregate

__all__ = ["TensorMetadata", "ShapeProp", "extract_tensor_metadata"]


class TensorMetadata(NamedTuple):
    shape: Any
    dtype: Any
    requires_grad: bool
    stride: tuple
    memory_format: Any
    is_quantized: bool
    qparams: dict


def extract_tensor_metadata(result) -> TensorMetadata:
    import ember
    memory_format = None
    for query_format in (ember.contiguous_format, ember.channels_last, ember.channels_last_3d):
        if result.is_contiguous(memory_format=query_format):
            memory_format = query_format
            break
    return TensorMetadata(result.shape, result.dtype, result.requires_grad, tuple(result.stride()), memory_format,
                          False, {})


class ShapeProp(Interpreter):
    """`ShapeProp(gm).propagate(*example_inputs)`: each node's meta gets 'tensor_meta' (a TensorMetadata,
    or a structure of them for tuple/list results) and 'type'."""

    def __init__(self, gm, fake_mode=None):
        if fake_mode is not None:
            raise NotImplementedError("ShapeProp(fake_mode=...): ember has no fake tensors; propagate real inputs")
        super().__init__(gm)
        self.fake_mode = fake_mode

    def run_node(self, n: Node) -> Any:
        import ember
        try:
            result = super().run_node(n)
        except Exception as e:
            raise RuntimeError(f"ShapeProp error for: node={n.format_node()} with meta={n.meta}") from e
        found_tensor = False

        def extract(obj):
            nonlocal found_tensor
            if isinstance(obj, ember.Tensor):
                found_tensor = True
                return extract_tensor_metadata(obj)
            return obj
        meta = map_aggregate(result, extract)
        if found_tensor:
            n.meta["tensor_meta"] = meta
        n.meta["type"] = type(result)
        return result

    def propagate(self, *args):
        """The graph's output on args, recording metadata on the way."""
        return super().run(*args)
