"""ember.Size: the tuple of a tensor's dimensions."""


class Size(tuple):
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
