"""PyTorch's examples/mnist_hogwild with ember in place of torch: several processes train one model
whose parameters live in shared memory (Module.share_memory), each running SGD without locks
(Hogwild!). Data: scikit-learn's 8x8 digits instead of downloading MNIST (an 80/20 split), so the
network's convolutions are 3x3 instead of 5x5.

    python examples/mnist_hogwild/main.py --epochs 4 --num-processes 2
"""
import argparse

import ember
import ember.multiprocessing as mp
import ember.nn as nn
import ember.nn.functional as F

from train import digits_datasets, test, train

parser = argparse.ArgumentParser(description="ember Hogwild example (digits)")
parser.add_argument("--batch-size", type=int, default=64, metavar="N", help="input batch size for training (64)")
parser.add_argument("--test-batch-size", type=int, default=1000, metavar="N", help="input batch size for testing")
parser.add_argument("--epochs", type=int, default=10, metavar="N", help="number of epochs to train (10)")
parser.add_argument("--lr", type=float, default=0.01, metavar="LR", help="learning rate (0.01)")
parser.add_argument("--momentum", type=float, default=0.5, metavar="M", help="SGD momentum (0.5)")
parser.add_argument("--seed", type=int, default=1, metavar="S", help="random seed (1)")
parser.add_argument("--log-interval", type=int, default=10, metavar="N", help="batches between log lines")
parser.add_argument("--num-processes", type=int, default=2, metavar="N", help="training processes (2)")
parser.add_argument("--start-method", default="spawn", choices=["spawn", "fork", "forkserver"],
                    help="how the training processes start (spawn, as PyTorch's example)")
parser.add_argument("--save_model", action="store_true", default=False, help="save the trained state_dict")
parser.add_argument("--dry-run", action="store_true", default=False, help="quickly check a single pass")


class Net(nn.Module):
    """PyTorch's Hogwild network, sized for 8x8 images: two convolutions (the second with 2-D dropout),
    two fully connected layers, log-probabilities out."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 10, kernel_size=3)   # 8x8 -> 6x6
        self.conv2 = nn.Conv2d(10, 20, kernel_size=3)  # 6x6 -> 4x4, pooled to 2x2
        self.conv2_drop = nn.Dropout2d()
        self.fc1 = nn.Linear(80, 50)
        self.fc2 = nn.Linear(50, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.relu(F.max_pool2d(self.conv2_drop(self.conv2(x)), 2))
        x = x.view(-1, 80)
        x = F.relu(self.fc1(x))
        x = F.dropout(x, training=self.training)
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


if __name__ == "__main__":
    args = parser.parse_args()
    device = ember.device("cpu")
    train_set, test_set = digits_datasets(args.seed)
    kwargs = {"batch_size": args.batch_size, "shuffle": True}

    ember.manual_seed(args.seed)
    mp.set_start_method(args.start_method, force=True)

    model = Net().to(device)
    model.share_memory()  # gradients are made lazily in each process, so they are not shared

    processes = []
    for rank in range(args.num_processes):
        p = mp.Process(target=train, args=(rank, args, model, device, train_set, kwargs))
        p.start()
        processes.append(p)
    for p in processes:
        p.join()
    failed = [p.exitcode for p in processes if p.exitcode != 0]
    if failed:
        raise SystemExit(f"a training process failed (exit codes {failed})")

    if args.save_model:
        ember.save(model.state_dict(), "digits_hogwild.pt")

    test(args, model, device, test_set, {"batch_size": args.test_batch_size})
