"""Mean and mode of the families symmetric and unimodal about loc."""


class CenteredAtLoc:
    """Mixin (before the Distribution base) of Normal, Laplace, VonMises (its circular mean) and the
    multivariate normals: mean and mode are loc."""

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc
