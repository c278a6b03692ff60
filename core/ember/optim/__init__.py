"""ember.optim: optimizers and learning-rate schedulers, with PyTorch's names and semantics."""
from .optimizer import (Optimizer, register_optimizer_step_post_hook,  # noqa: F401
                        register_optimizer_step_pre_hook, required)
from .sgd import SGD
from .adam import Adam, AdamW
from .adamax import Adamax
from .nadam import NAdam
from .radam import RAdam
from .rmsprop import RMSprop
from .adagrad import Adagrad
from .adadelta import Adadelta
from .asgd import ASGD
from .rprop import Rprop
from .lbfgs import LBFGS
from .sparse_adam import SparseAdam
from . import lr_scheduler  # noqa: F401
from . import swa_utils  # noqa: F401,E402  (needs nn)

__all__ = ["Optimizer", "SGD", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad", "Adadelta",
           "ASGD", "Rprop", "LBFGS", "SparseAdam", "lr_scheduler"]
