"""PyTorch's examples/mnist (a CNN: two convolutions, max-pool, dropout, two linear layers, log_softmax and
nll_loss, Adadelta with StepLR, a DataLoader, argmax accuracy under no_grad, a saved state_dict) written as
the PyTorch program with `ember` in place of `torch`, scaled down: scikit-learn's 8x8 handwritten digits
upscaled to 12x12 stand in for MNIST, and the layers are narrower."""
import numpy as np
import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.optim.lr_scheduler import StepLR
from ember.utils.data import DataLoader, TensorDataset

datasets = pytest.importorskip("sklearn.datasets")


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(256, 64)
        self.fc2 = nn.Linear(64, 10)

    def forward(self, x):
        x = self.conv1(x)
        x = F.relu(x)
        x = self.conv2(x)
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        return output


def train(model, device, train_loader, optimizer):
    model.train()
    losses = []
    for batch_idx, (data, target) in enumerate(train_loader):
        data, target = data.to(device), target.to(device)
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return float(np.mean(losses))


def evaluate(model, device, test_loader):  # the program's test(); renamed so pytest does not collect it
    model.eval()
    test_loss = 0
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            data, target = data.to(device), target.to(device)
            output = model(data)
            test_loss += F.nll_loss(output, target, reduction='sum').item()  # sum up batch loss
            pred = output.argmax(dim=1, keepdim=True)  # get the index of the max log-probability
            correct += pred.eq(target.view_as(pred)).sum().item()
    n = len(test_loader.dataset)
    return test_loss / n, correct / n


def _digit_datasets():
    """MNIST's normalisation ((x - 0.1307) / 0.3081) applied to the digits scaled to [0, 1] and 12x12."""
    digits = datasets.load_digits()
    images = torch.tensor((digits.images / 16.0).astype(np.float32)).unsqueeze(1)
    images = F.interpolate(images, size=(12, 12), mode="bilinear", align_corners=False).clamp(0, 1)
    images = (images - 0.1307) / 0.3081
    labels = torch.tensor(digits.target.astype(np.int64))
    order = torch.randperm(len(labels))
    train_idx, test_idx = order[:1400], order[1400:]
    return (TensorDataset(images[train_idx], labels[train_idx]),
            TensorDataset(images[test_idx], labels[test_idx]))


def test_mnist_cnn_trains_and_reloads(tmp_path):
    use_accel = torch.accelerator.is_available()
    torch.manual_seed(1)
    device = torch.accelerator.current_accelerator() if use_accel else torch.device("cpu")
    train_set, test_set = _digit_datasets()
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True)
    test_loader = DataLoader(test_set, batch_size=100)

    model = Net().to(device)
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.7)
    _, chance_accuracy = evaluate(model, device, test_loader)
    epoch_losses = []
    for epoch in range(1, 4):
        epoch_losses.append(train(model, device, train_loader, optimizer))
        scheduler.step()
    test_loss, accuracy = evaluate(model, device, test_loader)
    assert optimizer.param_groups[0]["lr"] == pytest.approx(1.0 * 0.7 ** 3)
    assert epoch_losses[-1] < 0.5 * epoch_losses[0], epoch_losses
    assert accuracy > 0.85 and accuracy > chance_accuracy + 0.5, (chance_accuracy, accuracy)

    torch.save(model.state_dict(), tmp_path / "mnist_cnn.pt")
    reloaded = Net()
    reloaded.load_state_dict(torch.load(tmp_path / "mnist_cnn.pt"))
    assert evaluate(reloaded, device, test_loader) == (test_loss, accuracy)
