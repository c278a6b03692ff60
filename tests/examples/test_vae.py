"""PyTorch's examples/vae (an MLP encoder to a mean and log-variance, the reparameterization trick with
randn_like, a sigmoid decoder, binary cross-entropy summed plus the KL term, Adam, samples decoded from
randn under no_grad) written as the PyTorch program with `ember` in place of `torch`, on scikit-learn's
8x8 digits scaled to [0, 1] (64 pixels where MNIST has 784)."""
import numpy as np
import pytest

import ember as torch
import ember.nn as nn
import ember.nn.functional as F
import ember.optim as optim
from ember.utils.data import DataLoader, TensorDataset

datasets = pytest.importorskip("sklearn.datasets")

PIXELS = 64


class VAE(nn.Module):
    def __init__(self):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(PIXELS, 128)
        self.fc21 = nn.Linear(128, 8)
        self.fc22 = nn.Linear(128, 8)
        self.fc3 = nn.Linear(8, 128)
        self.fc4 = nn.Linear(128, PIXELS)

    def encode(self, x):
        h1 = F.relu(self.fc1(x))
        return self.fc21(h1), self.fc22(h1)

    def reparameterize(self, mu, logvar):
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return mu + eps * std

    def decode(self, z):
        h3 = F.relu(self.fc3(z))
        return torch.sigmoid(self.fc4(h3))

    def forward(self, x):
        mu, logvar = self.encode(x.view(-1, PIXELS))
        z = self.reparameterize(mu, logvar)
        return self.decode(z), mu, logvar


# Reconstruction + KL divergence losses summed over all elements and batch
def loss_function(recon_x, x, mu, logvar):
    BCE = F.binary_cross_entropy(recon_x, x.view(-1, PIXELS), reduction='sum')
    # see Appendix B from VAE paper: Kingma and Welling. Auto-Encoding Variational Bayes. ICLR, 2014
    KLD = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp())
    return BCE + KLD


def train(model, optimizer, train_loader):
    model.train()
    train_loss = 0
    for data, _ in train_loader:
        optimizer.zero_grad()
        recon_batch, mu, logvar = model(data)
        loss = loss_function(recon_batch, data, mu, logvar)
        loss.backward()
        train_loss += loss.item()
        optimizer.step()
    return train_loss / len(train_loader.dataset)


def evaluate(model, test_loader):  # the program's test(); renamed so pytest does not collect it
    model.eval()
    test_loss = 0
    with torch.no_grad():
        for data, _ in test_loader:
            recon_batch, mu, logvar = model(data)
            test_loss += loss_function(recon_batch, data, mu, logvar).item()
    return test_loss / len(test_loader.dataset)


def test_vae_trains_and_samples():
    torch.manual_seed(1)
    digits = datasets.load_digits()
    images = torch.tensor((digits.images / 16.0).astype(np.float32)).unsqueeze(1)
    labels = torch.tensor(digits.target.astype(np.int64))
    train_loader = DataLoader(TensorDataset(images[:1500], labels[:1500]), batch_size=64, shuffle=True)
    test_loader = DataLoader(TensorDataset(images[1500:], labels[1500:]), batch_size=128)

    model = VAE()
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    start = evaluate(model, test_loader)
    train_losses = [train(model, optimizer, train_loader) for epoch in range(10)]
    end = evaluate(model, test_loader)
    # An untrained decoder costs about 64 ln 2 = 44 nats per image; a trained one well under 30.
    assert start > 40 and end < 30, (start, end)
    assert train_losses[-1] < 0.75 * train_losses[0], train_losses
    with torch.no_grad():
        sample = torch.randn(64, 8)
        sample = model.decode(sample).cpu()
    assert tuple(sample.shape) == (64, PIXELS)
    assert bool(((sample >= 0) & (sample <= 1)).all())
    # decoded samples look like digits: dark borders (the digits' first column is nearly always 0)
    border = sample.view(64, 8, 8)[:, :, 0].mean().item()
    centre = sample.view(64, 8, 8)[:, 2:6, 3:5].mean().item()
    assert border < 0.1 < centre, (border, centre)
