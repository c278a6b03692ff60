"""deform_conv2d on an empty batch (issue 24's "empty inputs" for the op the other files test on non-empty ones):
the output is [0, out_channels, out_h, out_w] as torchvision's, and backward gives empty input, offset and mask
gradients and zero weight and bias gradients."""
import numpy as np

import ember
import embervision.ops as ops


def test_empty_batch_forward_and_backward():
    x = ember.ones((0, 2, 4, 4), requires_grad=True)
    offset = ember.zeros((0, 18, 2, 2), requires_grad=True)
    mask = ember.zeros((0, 9, 2, 2), requires_grad=True)
    weight = ember.ones((3, 2, 3, 3), requires_grad=True)
    bias = ember.ones(3, requires_grad=True)
    out = ops.deform_conv2d(x, offset, weight, bias, mask=mask)
    assert tuple(out.shape) == (0, 3, 2, 2)
    out.sum().backward()
    assert tuple(x.grad.shape) == (0, 2, 4, 4) and tuple(offset.grad.shape) == (0, 18, 2, 2)
    assert tuple(mask.grad.shape) == (0, 9, 2, 2)
    np.testing.assert_array_equal(weight.grad.numpy(), np.zeros((3, 2, 3, 3), np.float32))
    np.testing.assert_array_equal(bias.grad.numpy(), np.zeros(3, np.float32))
