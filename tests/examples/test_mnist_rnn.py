"""PyTorch's examples/mnist_rnn (each image read row by row by a batch_first LSTM; the last output through
BatchNorm1d, Dropout2d on the 2-D features (PyTorch's deprecated-input warning), two linear layers and
log_softmax; Adadelta with StepLR) written as the PyTorch program with `ember` in place of `torch`, on
scikit-learn's 8x8 handwritten digits (8 rows of 8 pixels) instead of MNIST's 28x28."""
import warnings

import numpy as np
import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.optim.lr_scheduler import StepLR
from ember.utils.data import DataLoader, TensorDataset

datasets = pytest.importorskip("sklearn.datasets")

ROWS = COLS = 8


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.rnn = nn.LSTM(input_size=COLS, hidden_size=32, batch_first=True)
        self.batchnorm = nn.BatchNorm1d(32)
        self.dropout1 = nn.Dropout2d(0.25)
        self.dropout2 = nn.Dropout2d(0.5)
        self.fc1 = nn.Linear(32, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, input):
        # (batch_size, 1, rows, cols) -> (batch_size, rows, cols): one row per time step
        input = input.reshape(-1, ROWS, COLS)
        output, hidden = self.rnn(input)
        output = output[:, -1, :]  # the last time step's output
        output = self.batchnorm(output)
        output = self.dropout1(output)
        output = self.fc1(output)
        output = F.relu(output)
        output = self.dropout2(output)
        output = self.fc2(output)
        output = F.log_softmax(output, dim=1)
        return output


def train(model, train_loader, optimizer):
    model.train()
    losses = []
    for data, target in train_loader:
        optimizer.zero_grad()
        output = model(data)
        loss = F.nll_loss(output, target)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return float(np.mean(losses))


def evaluate(model, test_loader):  # the program's test(); renamed so pytest does not collect it
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in test_loader:
            output = model(data)
            pred = output.argmax(dim=1, keepdim=True)
            correct += pred.eq(target.view_as(pred)).sum().item()
    return correct / len(test_loader.dataset)


def test_mnist_rnn_trains():
    torch.manual_seed(1)
    digits = datasets.load_digits()
    images = torch.tensor((digits.images / 16.0).astype(np.float32)).unsqueeze(1)
    labels = torch.tensor(digits.target.astype(np.int64))
    train_loader = DataLoader(TensorDataset(images[:1400], labels[:1400]), batch_size=64, shuffle=True)
    test_loader = DataLoader(TensorDataset(images[1400:], labels[1400:]), batch_size=128)

    model = Net()
    optimizer = optim.Adadelta(model.parameters(), lr=1.0)
    scheduler = StepLR(optimizer, step_size=1, gamma=0.9)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chance_accuracy = evaluate(model, test_loader)
        losses = []
        for epoch in range(6):
            losses.append(train(model, train_loader, optimizer))
            scheduler.step()
        accuracy = evaluate(model, test_loader)
    assert any("Received a 2-D input to dropout2d" in str(w.message) for w in caught)
    assert losses[-1] < 0.5 * losses[0], losses
    assert accuracy > 0.7 and accuracy > chance_accuracy + 0.4, (chance_accuracy, accuracy)
