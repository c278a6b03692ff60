"""Helpers the builders share: channel rounding, weights-to-argument checks, loading weights into a model,
the input remapping of GoogLeNet and Inception v3."""
from collections import OrderedDict

import ember


def _make_divisible(v, divisor, min_value=None):
    """Rounds a channel count to a multiple of divisor, never more than 10% below v (MobileNet's rule)."""
    if min_value is None:
        min_value = divisor
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    if new_v < 0.9 * v:
        new_v += divisor
    return new_v


def _ovewrite_named_param(kwargs, param, new_value):
    """Weights fix some arguments (num_classes = their categories): set them, or refuse a conflicting one."""
    if param in kwargs:
        if kwargs[param] != new_value:
            raise ValueError(f"The parameter '{param}' expected value {new_value} but got {kwargs[param]} instead.")
    else:
        kwargs[param] = new_value


def _apply_weights(kwargs, weights):
    if weights is not None:
        _ovewrite_named_param(kwargs, "num_classes", weights.meta["num_classes"])


def _load_weights(model, weights, progress):
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
    return model


def make_builder(name, module, construct, weights_enum=None, **fixed):
    """A registered builder `name(*, weights=None, progress=True, **kwargs)`: construct(**kwargs) with the
    fixed arguments set (a conflicting value raises), weights (a member or its name) loaded."""
    from ._api import register_model

    def build(*, weights=None, progress=True, **kwargs):
        if weights_enum is None:
            if weights is not None:
                raise ValueError(f"{name}: embervision has no published checkpoint for this model; got weights="
                                 f"{weights!r}")
        else:
            weights = weights_enum.verify(weights)
        for key, value in fixed.items():
            _ovewrite_named_param(kwargs, key, value)
        _apply_weights(kwargs, weights)
        return _load_weights(construct(**kwargs), weights, progress)

    build.__name__ = build.__qualname__ = name
    build.__module__ = module
    build.__doc__ = (f"{name} (torchvision's builder): weights "
                     f"({weights_enum.__name__ if weights_enum else 'none published'}), progress, **kwargs for the "
                     "model class.")
    return register_model(name, weights_enum)(build)


def imagenet_to_unit_range(x):
    """ImageNet-normalized (N, 3, H, W) input remapped to the [-1, 1] normalization that GoogLeNet's and
    Inception v3's checkpoints were trained on (their transform_input=True)."""
    x_ch0 = ember.unsqueeze(x[:, 0], 1) * (0.229 / 0.5) + (0.485 - 0.5) / 0.5
    x_ch1 = ember.unsqueeze(x[:, 1], 1) * (0.224 / 0.5) + (0.456 - 0.5) / 0.5
    x_ch2 = ember.unsqueeze(x[:, 2], 1) * (0.225 / 0.5) + (0.406 - 0.5) / 0.5
    return ember.cat((x_ch0, x_ch1, x_ch2), 1)


def build_with_aux_logits(model_class, weights, progress, kwargs, aux_default, aux_modules):
    """GoogLeNet's and Inception v3's builders: with weights, transform_input defaults to True and the
    model is built with the auxiliary classifiers its checkpoint holds, which are then dropped unless
    the caller asked for aux_logits (default aux_default)."""
    wanted_aux = kwargs.get("aux_logits", aux_default)
    if weights is not None:
        kwargs.setdefault("transform_input", True)
        _ovewrite_named_param(kwargs, "aux_logits", True)
        _ovewrite_named_param(kwargs, "init_weights", False)
        _ovewrite_named_param(kwargs, "num_classes", weights.meta["num_classes"])
    model = model_class(**kwargs)
    if weights is not None:
        model.load_state_dict(weights.get_state_dict(progress=progress, check_hash=True))
        if not wanted_aux:
            model.aux_logits = False
            for name in aux_modules:
                setattr(model, name, None)
    return model


class IntermediateLayerGetter(ember.nn.ModuleDict):
    """The model's direct children up to the last one named in return_layers ({child name: output name});
    forward runs them in order and returns an OrderedDict of the named outputs. Children are registered
    in the order the model registered them, so that order must be the order of the forward pass."""

    _version = 2

    def __init__(self, model, return_layers):
        if not set(return_layers).issubset([name for name, _ in model.named_children()]):
            raise ValueError("return_layers are not present in model")
        orig_return_layers = return_layers
        return_layers = {str(k): str(v) for k, v in return_layers.items()}
        layers = {}
        for name, module in model.named_children():
            layers[name] = module
            if name in return_layers:
                del return_layers[name]
            if not return_layers:
                break
        super().__init__(layers)
        self.return_layers = orig_return_layers

    def forward(self, x):
        out = OrderedDict()
        for name, module in self.items():
            x = module(x)
            if name in self.return_layers:
                out[self.return_layers[name]] = x
        return out
