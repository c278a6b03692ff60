"""PyTorch's examples/super_resolution (an efficient sub-pixel CNN: convolutions with orthogonal_ init
scaled by calculate_gain('relu'), then nn.PixelShuffle; MSELoss, Adam, PSNR as 10 log10(1 / mse),
the whole model saved with torch.save and loaded back to upscale an image's Y channel as
super_resolve.py does) written as the PyTorch program with `ember` in place of `torch`, scaled down:
the luminance of scikit-learn's two sample photographs stands in for BSDS300 (training crops from
one, test crops from the other), low-resolution inputs are their 2x area downscales, and the layers
are narrower. In this short run it climbs from about 7 dB to within a dB of nearest-neighbour upscaling
(F.interpolate) on the held-out photograph; beating interpolation takes the program's longer training."""
import math

import numpy as np
import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.nn.init as init
import ember.optim as optim
from ember.utils.data import DataLoader, TensorDataset

datasets = pytest.importorskip("sklearn.datasets")

UPSCALE, CROP = 2, 24


class Net(nn.Module):
    def __init__(self, upscale_factor):
        super(Net, self).__init__()
        self.relu = nn.ReLU()
        self.conv1 = nn.Conv2d(1, 32, (5, 5), (1, 1), (2, 2))
        self.conv2 = nn.Conv2d(32, 32, (3, 3), (1, 1), (1, 1))
        self.conv3 = nn.Conv2d(32, 16, (3, 3), (1, 1), (1, 1))
        self.conv4 = nn.Conv2d(16, upscale_factor ** 2, (3, 3), (1, 1), (1, 1))
        self.pixel_shuffle = nn.PixelShuffle(upscale_factor)
        self._initialize_weights()

    def forward(self, x):
        x = self.relu(self.conv1(x))
        x = self.relu(self.conv2(x))
        x = self.relu(self.conv3(x))
        x = self.pixel_shuffle(self.conv4(x))
        return x

    def _initialize_weights(self):
        init.orthogonal_(self.conv1.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv2.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv3.weight, init.calculate_gain('relu'))
        init.orthogonal_(self.conv4.weight)


def _luminance(name):
    """The Y of YCbCr (ITU-R BT.601, as PIL's convert('YCbCr')) in [0, 1], shape (H, W)."""
    rgb = datasets.load_sample_image(name).astype(np.float32) / 255.0
    return (0.299 * rgb[..., 0] + 0.587 * rgb[..., 1] + 0.114 * rgb[..., 2]).astype(np.float32)


def _crops(y, count, rng):
    """count (input, target) pairs: CROP x CROP target crops and their 2x area downscales."""
    rows = rng.integers(0, y.shape[0] - CROP, count)
    cols = rng.integers(0, y.shape[1] - CROP, count)
    target = torch.tensor(np.stack([y[r:r + CROP, c:c + CROP] for r, c in zip(rows, cols)])).unsqueeze(1)
    return F.avg_pool2d(target, UPSCALE), target


def test_super_resolution_trains_and_upscales(tmp_path):
    torch.manual_seed(123)
    rng = np.random.default_rng(0)
    train_set = TensorDataset(*_crops(_luminance("china.jpg"), 512, rng))
    test_input, test_target = _crops(_luminance("flower.jpg"), 128, rng)
    training_data_loader = DataLoader(dataset=train_set, batch_size=32, shuffle=True)
    testing_data_loader = DataLoader(dataset=TensorDataset(test_input, test_target), batch_size=64)

    model = Net(upscale_factor=UPSCALE)
    criterion = nn.MSELoss()
    optimizer = optim.Adam(model.parameters(), lr=0.003)

    def test():
        avg_psnr = 0
        with torch.no_grad():
            for batch in testing_data_loader:
                input, target = batch[0], batch[1]
                prediction = model(input)
                mse = criterion(prediction, target)
                psnr = 10 * math.log10(1 / mse.item())
                avg_psnr += psnr
        return avg_psnr / len(testing_data_loader)

    start_psnr = test()
    for epoch in range(1, 21):
        for iteration, batch in enumerate(training_data_loader, 1):
            input, target = batch[0], batch[1]
            optimizer.zero_grad()
            loss = criterion(model(input), target)
            loss.backward()
            optimizer.step()
    end_psnr = test()

    nearest = F.interpolate(test_input, scale_factor=UPSCALE, mode="nearest")
    nearest_psnr = 10 * math.log10(1 / F.mse_loss(nearest, test_target).item())
    assert end_psnr > start_psnr + 15, (start_psnr, end_psnr)
    assert end_psnr > nearest_psnr - 1.5, (nearest_psnr, end_psnr)

    model_out_path = tmp_path / "model_epoch_20.pth"
    torch.save(model, model_out_path)
    # super_resolve.py: the whole (small) image's Y channel upscaled by the loaded model
    model = torch.load(model_out_path, weights_only=False)
    y = _luminance("flower.jpg")[:60, :80]
    input = torch.tensor(y).view(1, -1, y.shape[0], y.shape[1])
    out = model(input)
    out_img_y = out[0].detach().numpy()
    out_img_y *= 255.0
    out_img_y = out_img_y.clip(0, 255)
    assert out_img_y.shape == (1, 120, 160)
    assert abs(out_img_y.mean() - 255.0 * y.mean()) < 10  # brightness kept
