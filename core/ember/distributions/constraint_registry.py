"""biject_to and transform_to: registries from constraints to transforms that map unconstrained
space onto them (torch.distributions.constraint_registry). biject_to gives bijections (for
densities, e.g. HMC), transform_to any map onto the set (for optimization)."""
import numbers

from . import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]


class ConstraintRegistry:
    """Maps constraint types to factories `factory(constraint) -> Transform`."""

    def __init__(self):
        self._registry = {}
        super().__init__()

    def register(self, constraint, factory=None):
        """Registers `factory` for a Constraint subclass (or the type of a Constraint instance);
        usable as a decorator when factory is omitted."""
        if factory is None:
            return lambda factory: self.register(constraint, factory)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint):
        """The transform from unconstrained space onto `constraint`."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _in_both(*constraint_types):
    """Registers one factory in biject_to and transform_to alike (as PyTorch does for these constraints)."""

    def decorator(factory):
        for constraint in constraint_types:
            biject_to.register(constraint, factory)
            transform_to.register(constraint, factory)
        return factory

    return decorator


@_in_both(constraints.real)
def _transform_to_real(constraint):
    return transforms.identity_transform


@_in_both(constraints.positive, constraints.nonnegative)
def _transform_to_positive(constraint):
    return transforms.ExpTransform()


@_in_both(constraints.greater_than, constraints.greater_than_eq)
def _transform_to_greater_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.lower_bound, 1)])


@_in_both(constraints.less_than)
def _transform_to_less_than(constraint):
    return transforms.ComposeTransform([transforms.ExpTransform(),
                                        transforms.AffineTransform(constraint.upper_bound, -1)])


@_in_both(constraints.interval, constraints.half_open_interval)
def _transform_to_interval(constraint):
    # The unit interval needs only the sigmoid.
    lower_is_0 = isinstance(constraint.lower_bound, numbers.Number) and constraint.lower_bound == 0
    upper_is_1 = isinstance(constraint.upper_bound, numbers.Number) and constraint.upper_bound == 1
    if lower_is_0 and upper_is_1:
        return transforms.SigmoidTransform()
    loc = constraint.lower_bound
    scale = constraint.upper_bound - constraint.lower_bound
    return transforms.ComposeTransform([transforms.SigmoidTransform(), transforms.AffineTransform(loc, scale)])


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint):
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint):
    return transforms.SoftmaxTransform()


@_in_both(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint):
    return transforms.LowerCholeskyTransform()


@_in_both(constraints.positive_definite, constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint):
    return transforms.PositiveDefiniteTransform()


@_in_both(constraints.corr_cholesky)
def _transform_to_corr_cholesky(constraint):
    return transforms.CorrCholeskyTransform()


def _register_composites(registry):
    """Constraints built from other constraints map to the same build of those constraints' transforms,
    each found in the same registry."""

    @registry.register(constraints.independent)
    def _to_independent(constraint):
        base = registry(constraint.base_constraint)
        return transforms.IndependentTransform(base, constraint.reinterpreted_batch_ndims)

    @registry.register(constraints.cat)
    def _to_cat(constraint):
        return transforms.CatTransform([registry(c) for c in constraint.cseq], constraint.dim, constraint.lengths)

    @registry.register(constraints.stack)
    def _to_stack(constraint):
        return transforms.StackTransform([registry(c) for c in constraint.cseq], constraint.dim)


_register_composites(biject_to)
_register_composites(transform_to)
