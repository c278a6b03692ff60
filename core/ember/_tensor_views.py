"""Tensor methods and properties for views and shapes that read best in Python (T, mT, ...)."""


class ViewMethods:
    pass
