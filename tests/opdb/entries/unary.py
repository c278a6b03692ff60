"""OpInfos for core/ops/unary.yaml."""
import numpy as np

from opdb.opinfo import OpInfo, register

register(
    OpInfo("neg", ref=np.negative),
    OpInfo("abs", ref=np.abs),
    OpInfo("exp", ref=np.exp),
)
