"""Pasting Mask R-CNN's fixed-size (M x M) mask predictions into full images, each at its box."""

import ember
from ember.nn import functional as F


def expand_masks(mask, padding):
    """Pads [N, 1, M, M] masks by padding on every side; returns them with the box scale that matches."""
    m = mask.shape[-1]
    scale = float(m + 2 * padding) / m
    return F.pad(mask, (padding,) * 4), scale


def expand_boxes(boxes, scale):
    w_half = (boxes[:, 2] - boxes[:, 0]) * 0.5 * scale
    h_half = (boxes[:, 3] - boxes[:, 1]) * 0.5 * scale
    x_c = (boxes[:, 2] + boxes[:, 0]) * 0.5
    y_c = (boxes[:, 3] + boxes[:, 1]) * 0.5
    return ember.stack((x_c - w_half, y_c - h_half, x_c + w_half, y_c + h_half), dim=1)


def paste_mask_in_image(mask, box, im_h, im_w):
    """One [M, M] mask resized (bilinear) to its integer box (inclusive corners) and placed in an
    [im_h, im_w] image of zeros, cut where the box leaves the image."""
    x0b, y0b, x1b, y1b = (int(v) for v in box.tolist())
    w = max(x1b - x0b + 1, 1)
    h = max(y1b - y0b + 1, 1)
    resized = F.interpolate(mask.expand((1, 1, -1, -1)), size=(h, w), mode="bilinear", align_corners=False)[0][0]
    im_mask = ember.zeros((im_h, im_w), dtype=mask.dtype, device=mask.device)
    x_0, x_1 = max(x0b, 0), min(x1b + 1, im_w)
    y_0, y_1 = max(y0b, 0), min(y1b + 1, im_h)
    if x_1 > x_0 and y_1 > y_0:
        im_mask[y_0:y_1, x_0:x_1] = resized[(y_0 - y0b):(y_1 - y0b), (x_0 - x0b):(x_1 - x0b)]
    return im_mask


def paste_masks_in_image(masks, boxes, img_shape, padding=1):
    """[N, 1, M, M] masks and their [N, 4] boxes -> [N, 1, H, W] masks of an image of img_shape (H, W)."""
    masks, scale = expand_masks(masks, padding=padding)
    boxes = expand_boxes(boxes, scale).to(ember.int64)
    im_h, im_w = int(img_shape[0]), int(img_shape[1])
    res = [paste_mask_in_image(m[0], b, im_h, im_w) for m, b in zip(masks, boxes)]
    if len(res) > 0:
        return ember.stack(res, dim=0)[:, None]
    return masks.new_empty((0, 1, im_h, im_w))
