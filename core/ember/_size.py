"""ember.Size: the tuple of a tensor's dimensions."""
import operator


class Size(tuple):
    def __new__(cls, sizes=()):
        """A Size from ints (or objects with __index__, such as 0-dim integer tensors)."""
        items = []
        for i, s in enumerate(sizes):
            try:
                items.append(operator.index(s))
            except TypeError:
                raise TypeError(f"ember.Size() takes an iterable of 'int' (item {i} is '{type(s).__name__}')") from None
        return super().__new__(cls, items)

    def __repr__(self):
        return f"ember.Size([{', '.join(str(int(s)) for s in self)}])"

    def numel(self):
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, key):
        r = super().__getitem__(key)
        return Size(r) if isinstance(key, slice) else r

    def __add__(self, other):
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        return Size(tuple(self) * n)

    __rmul__ = __mul__
