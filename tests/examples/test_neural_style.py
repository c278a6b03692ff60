"""PyTorch's neural style transfer (the tutorial's program: ContentLoss and StyleLoss modules that record
their loss and pass the input through, Gram matrices, a Normalization module, the loss model built layer
by layer with add_module from a VGG-like features stack and cut after the last loss, the image itself
optimised by LBFGS with a closure that clamps it in place under no_grad) written as the PyTorch program
with `ember` in place of `torch`. No pretrained VGG here: a randomly initialised VGG-style stack
(conv/ReLU/max-pool, as vgg19.features begins) on 32x32 crops of scikit-learn's sample photographs."""
import numpy as np
import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim

datasets = pytest.importorskip("sklearn.datasets")


class ContentLoss(nn.Module):
    def __init__(self, target,):
        super(ContentLoss, self).__init__()
        # we 'detach' the target content from the tree used to dynamically compute the gradient
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()  # a=batch size(=1), b=number of feature maps, (c,d)=dimensions of a f. map
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())  # compute the gram product
    # 'normalize' the values of the gram matrix by dividing by the number of element in each feature maps.
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super(StyleLoss, self).__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super(Normalization, self).__init__()
        # .view the mean and std to make them [C x 1 x 1] so that they can directly work with image
        # Tensor of shape [B x C x H x W].
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


def vgg_like_features():
    """vgg19.features' first two blocks and the third's first convolution, randomly initialised."""
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(16, 16, 3, padding=1),
        nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(32, 32, 3, padding=1),
        nn.ReLU(inplace=True), nn.MaxPool2d(2, 2),
        nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(inplace=True),
        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(inplace=True)).eval()


content_layers_default = ['conv_4']
style_layers_default = ['conv_1', 'conv_2', 'conv_3', 'conv_4', 'conv_5']


def get_style_model_and_losses(cnn, normalization_mean, normalization_std, style_img, content_img,
                               content_layers=content_layers_default, style_layers=style_layers_default):
    normalization = Normalization(normalization_mean, normalization_std)
    content_losses = []
    style_losses = []
    model = nn.Sequential(normalization)
    i = 0  # increment every time we see a conv
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = 'conv_{}'.format(i)
        elif isinstance(layer, nn.ReLU):
            name = 'relu_{}'.format(i)
            # The in-place version doesn't play very nicely with the ``ContentLoss`` and ``StyleLoss``.
            layer = nn.ReLU(inplace=False)
        elif isinstance(layer, nn.MaxPool2d):
            name = 'pool_{}'.format(i)
        elif isinstance(layer, nn.BatchNorm2d):
            name = 'bn_{}'.format(i)
        else:
            raise RuntimeError('Unrecognized layer: {}'.format(layer.__class__.__name__))
        model.add_module(name, layer)
        if name in content_layers:
            target = model(content_img).detach()
            content_loss = ContentLoss(target)
            model.add_module("content_loss_{}".format(i), content_loss)
            content_losses.append(content_loss)
        if name in style_layers:
            target_feature = model(style_img).detach()
            style_loss = StyleLoss(target_feature)
            model.add_module("style_loss_{}".format(i), style_loss)
            style_losses.append(style_loss)
    # now we trim off the layers after the last content and style losses
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], ContentLoss) or isinstance(model[i], StyleLoss):
            break
    model = model[:(i + 1)]
    return model, style_losses, content_losses


def get_input_optimizer(input_img):
    optimizer = optim.LBFGS([input_img])  # this line to show that input is a parameter that requires a gradient
    return optimizer


def run_style_transfer(cnn, normalization_mean, normalization_std, content_img, style_img, input_img,
                       num_steps=300, style_weight=1000000, content_weight=1):
    model, style_losses, content_losses = get_style_model_and_losses(
        cnn, normalization_mean, normalization_std, style_img, content_img)
    # We want to optimize the input and not the model parameters so we update all the requires_grad fields
    input_img.requires_grad_(True)
    model.eval()
    model.requires_grad_(False)
    optimizer = get_input_optimizer(input_img)
    run = [0]
    scores = []
    while run[0] <= num_steps:
        def closure():
            # correct the values of updated input image
            with torch.no_grad():
                input_img.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = 0
            content_score = 0
            for sl in style_losses:
                style_score += sl.loss
            for cl in content_losses:
                content_score += cl.loss
            style_score *= style_weight
            content_score *= content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            scores.append((style_score.item(), content_score.item()))
            return style_score + content_score
        optimizer.step(closure)
    # a last correction...
    with torch.no_grad():
        input_img.clamp_(0, 1)
    return input_img, scores, model


def _image(name, top, left, size=32):
    """a size x size crop, 2x area-downscaled from the photograph, as a (1, 3, H, W) tensor in [0, 1]."""
    rgb = datasets.load_sample_image(name)[top:top + 2 * size, left:left + 2 * size].astype(np.float32) / 255
    return F.avg_pool2d(torch.tensor(rgb).permute(2, 0, 1).unsqueeze(0), 2).contiguous()


def test_neural_style_transfer_lowers_style_and_content_losses():
    torch.manual_seed(0)
    cnn = vgg_like_features()
    cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
    cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])
    style_img = _image("flower.jpg", 150, 250)
    content_img = _image("china.jpg", 150, 250)
    assert style_img.size() == content_img.size()
    input_img = content_img.clone()
    output, scores, model = run_style_transfer(cnn, cnn_normalization_mean, cnn_normalization_std,
                                               content_img, style_img, input_img, num_steps=40)
    assert output is input_img and not any(p.requires_grad for p in model.parameters())
    assert float(output.min()) >= 0 and float(output.max()) <= 1
    assert [name for name, _ in model.named_children()] == [  # cut after style_loss_5
        '0', 'conv_1', 'style_loss_1', 'relu_1', 'conv_2', 'style_loss_2', 'relu_2', 'pool_2',
        'conv_3', 'style_loss_3', 'relu_3', 'conv_4', 'content_loss_4', 'style_loss_4', 'relu_4', 'pool_4',
        'conv_5', 'style_loss_5']
    style_start, content_start = scores[0]
    style_end, content_end = scores[-1]
    assert content_start == 0  # the input starts as the content image
    assert style_end < 0.1 * style_start, (style_start, style_end)
    total = [s + c for s, c in scores]
    assert total[-1] < 0.1 * total[0], total[::10]
    # the image changed towards the style: its Gram matrix at the first layer moved to the style's
    with torch.no_grad():
        first = model[:2]
        gram = gram_matrix(first(output))
        assert F.mse_loss(gram, gram_matrix(first(style_img))) < F.mse_loss(gram_matrix(first(content_img)),
                                                                            gram_matrix(first(style_img)))
