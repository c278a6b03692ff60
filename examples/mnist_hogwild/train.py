"""The training and test loops of the Hogwild example (each training process runs train), and its
data: scikit-learn's digits as (1, 8, 8) images normalized by the training set's mean and std."""
import os

import numpy as np

import ember
import ember.nn.functional as F
import ember.optim as optim
from ember.utils.data import DataLoader, TensorDataset


def digits_datasets(seed):
    """(train, test) TensorDatasets: an 80/20 split of the 1,797 digits, fixed by seed."""
    from sklearn.datasets import load_digits
    bunch = load_digits()
    images = bunch.images.astype(np.float32)[:, None] / 16.0
    order = np.random.default_rng(seed).permutation(len(images))
    cut = int(0.8 * len(images))
    train_idx, test_idx = order[:cut], order[cut:]
    mean, std = images[train_idx].mean(), images[train_idx].std()
    images = (images - mean) / std
    labels = bunch.target.astype(np.int64)
    return (TensorDataset(ember.tensor(images[train_idx]), ember.tensor(labels[train_idx])),
            TensorDataset(ember.tensor(images[test_idx]), ember.tensor(labels[test_idx])))


def train(rank, args, model, device, dataset, dataloader_kwargs):
    ember.manual_seed(args.seed + rank)
    train_loader = DataLoader(dataset, **dataloader_kwargs)
    optimizer = optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    for epoch in range(1, args.epochs + 1):
        train_epoch(epoch, args, model, device, train_loader, optimizer)


def test(args, model, device, dataset, dataloader_kwargs):
    ember.manual_seed(args.seed)
    test_loader = DataLoader(dataset, **dataloader_kwargs)
    test_epoch(model, device, test_loader)


def train_epoch(epoch, args, model, device, data_loader, optimizer):
    model.train()
    pid = os.getpid()
    for batch_idx, (data, target) in enumerate(data_loader):
        optimizer.zero_grad()
        output = model(data.to(device))
        loss = F.nll_loss(output, target.to(device))
        loss.backward()
        optimizer.step()
        if batch_idx % args.log_interval == 0:
            print(f"{pid}\tTrain Epoch: {epoch} [{batch_idx * len(data)}/{len(data_loader.dataset)} "
                  f"({100.0 * batch_idx / len(data_loader):.0f}%)]\tLoss: {loss.item():.6f}", flush=True)
            if args.dry_run:
                break


def test_epoch(model, device, data_loader):
    model.eval()
    test_loss = 0
    correct = 0
    with ember.no_grad():
        for data, target in data_loader:
            output = model(data.to(device))
            test_loss += F.nll_loss(output, target.to(device), reduction="sum").item()  # the batch's summed loss
            pred = output.max(1)[1]  # the class of the highest log-probability
            correct += pred.eq(target.to(device)).sum().item()
    test_loss /= len(data_loader.dataset)
    print(f"\nTest set: Average loss: {test_loss:.4f}, Accuracy: {correct}/{len(data_loader.dataset)} "
          f"({100.0 * correct / len(data_loader.dataset):.0f}%)\n", flush=True)
