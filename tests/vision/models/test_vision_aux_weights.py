"""GoogLeNet's and Inception v3's builders with weights: the checkpoint (which holds the auxiliary
classifiers) loads, transform_input defaults to True, and the auxiliary heads are dropped unless asked
for, as torchvision's builders do."""
import pytest

import ember
from embervision.models._utils import build_with_aux_logits
from embervision.models.googlenet import GoogLeNet
from embervision.models.inception import Inception3


class _Checkpoint:
    """A weights entry whose state dict is another model's (no download)."""

    def __init__(self, source):
        self.meta = {"num_classes": 1000}
        self.source = source

    def get_state_dict(self, progress, check_hash):
        return self.source.state_dict()


@pytest.mark.parametrize("cls,default,heads",
                         [(GoogLeNet, False, ("aux1", "aux2")), (Inception3, True, ("AuxLogits",))])
def test_weights_load_and_aux_heads_follow_aux_logits(cls, default, heads):
    ember.manual_seed(0)
    source = cls(aux_logits=True, init_weights=False)
    kept = build_with_aux_logits(cls, _Checkpoint(source), False, {"aux_logits": True}, default, heads)
    assert kept.transform_input and kept.aux_logits and all(getattr(kept, h) is not None for h in heads)
    for name, value in source.state_dict().items():
        assert ember.equal(kept.state_dict()[name], value)
    defaulted = build_with_aux_logits(cls, _Checkpoint(source), False, {}, default, heads)
    assert defaulted.aux_logits == default
    assert all((getattr(defaulted, h) is not None) == default for h in heads)
    # the checkpoint needs the heads to load: asking for none with weights is refused, as torchvision does
    with pytest.raises(ValueError, match="'aux_logits' expected value True but got False"):
        build_with_aux_logits(cls, _Checkpoint(source), False, {"aux_logits": False}, default, heads)
