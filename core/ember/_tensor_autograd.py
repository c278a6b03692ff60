"""Tensor methods of autograd written in Python: backward, and hooks with removable handles."""


class RemovableHandle:
    """Returned by register_hook: remove() takes the hook off again."""

    def __init__(self, owner, hook_id):
        self._owner, self.id = owner, hook_id

    def remove(self):
        if self._owner is not None:
            self._owner._remove_hook(self.id)
            self._owner = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


class AutogradMethods:
    # PyTorch's Tensor.name: the name its variable carries inside a traced graph, None for every eager tensor;
    # read-only (assigning it is an AttributeError there too)
    name = property(lambda self: None)

    def backward(self, gradient=None, retain_graph=None, create_graph=False, inputs=None):
        """Accumulates the gradient of this tensor into the graph's leaves (see ember.autograd.backward)."""
        from .autograd import backward
        backward(self, gradient, retain_graph, create_graph, inputs=inputs)

    def register_hook(self, hook):
        """hook(grad) runs when this tensor's gradient is computed and may return a replacement."""
        return RemovableHandle(self, self._register_hook(hook))

    def register_post_accumulate_grad_hook(self, hook):
        """hook(tensor) runs after a leaf's .grad has been accumulated."""
        return RemovableHandle(self, self._register_post_accumulate_grad_hook(hook))
