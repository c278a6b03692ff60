"""The multi-weight API: Weights (url, transforms, meta), WeightsEnum, and the model registry behind
get_model / list_models / get_model_weights / get_weight."""

import enum
from dataclasses import dataclass, fields

import ember.hub


@dataclass
class Weights:
    """A checkpoint: where it is (a URL, file:// URL or local path), the constructor of its inference
    preprocessing, and its metadata (num_params, categories, metrics, min_size, ...)."""

    url: str
    transforms: object
    meta: dict


class WeightsEnum(enum.Enum):
    """Parent of every model's weights enum; its members' values are Weights."""

    @classmethod
    def verify(cls, obj):
        if obj is None:
            return None
        if type(obj) is str:
            name = obj.replace(cls.__name__ + ".", "")
            if name not in cls.__members__:
                raise ValueError(f"Failed to find Weights {name} in {cls.__name__}. Try one of "
                                 f"{list(cls.__members__)}")
            return cls[name]
        if not isinstance(obj, cls):
            raise TypeError(f"Invalid Weight class provided; expected {cls.__name__} but received "
                            f"{obj.__class__.__name__}.")
        return obj

    def get_state_dict(self, progress=True, check_hash=True, model_dir=None):
        """Loads the checkpoint: a local path directly; a URL through ember.hub's cache (downloaded once with a
        progress bar, its SHA-256 checked against the file name's hash part; offline it raises URLError)."""
        url = self.value.url
        if "://" not in url:
            return ember.load(url, map_location="cpu")
        return ember.hub.load_state_dict_from_url(url, model_dir=model_dir, progress=progress, check_hash=check_hash,
                                                  map_location="cpu")

    def __repr__(self):
        return f"{self.__class__.__name__}.{self._name_}"

    def __getattr__(self, name):
        for f in fields(Weights):
            if f.name == name:
                return getattr(self.value, name)
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")


BUILTIN_MODELS = {}
_WEIGHTS_OF = {}


def register_model(name=None, weights=None):
    """Registers a builder under name (default: its function name) with its weights enum."""
    def wrapper(fn):
        key = name if name is not None else fn.__name__
        if key in BUILTIN_MODELS:
            raise ValueError(f"An entry is already registered under the name '{key}'.")
        BUILTIN_MODELS[key] = fn
        _WEIGHTS_OF[fn] = weights
        return fn
    return wrapper


def list_models(module=None):
    """Sorted names of the registered models (of one embervision.models submodule if given)."""
    return sorted(k for k, v in BUILTIN_MODELS.items()
                  if module is None or v.__module__.rsplit(".", 1)[0] == module.__name__
                  or v.__module__ == module.__name__)


def _find_model(name):
    try:
        return BUILTIN_MODELS[name.lower()]
    except KeyError:
        raise ValueError(f"Unknown model {name}") from None


def get_model(name, **config):
    """Builds the model registered under name with the builder's keyword arguments."""
    return _find_model(name)(**config)


def get_model_weights(model):
    """The weights enum class of a builder or of the model registered under a name."""
    fn = _find_model(model) if isinstance(model, str) else model
    if fn not in _WEIGHTS_OF or _WEIGHTS_OF[fn] is None:
        raise ValueError(f"The model {getattr(fn, '__name__', fn)} has no registered weights enum.")
    return _WEIGHTS_OF[fn]


def get_weight(name):
    """A weights member by its full name, e.g. 'ResNet50_Weights.IMAGENET1K_V1'."""
    try:
        enum_name, value_name = name.split(".")
    except ValueError:
        raise ValueError(f"Invalid weight name provided: '{name}'.") from None
    for enum_cls in _WEIGHTS_OF.values():
        if enum_cls is not None and enum_cls.__name__ == enum_name:
            return enum_cls.verify(value_name)
    raise ValueError(f"The weight enum '{enum_name}' for the specific method couldn't be retrieved.")
