"""examples/mnist_hogwild (PyTorch's Hogwild example with ember for torch, on scikit-learn's digits):
run as a program with two 'spawn' training processes (as PyTorch's example starts them: the shared
model reaches them through ember.multiprocessing's reducers), it logs from both and the model the
parent tests, which it never trained itself, is accurate."""
import pathlib
import re
import subprocess
import sys

import pytest

import ember

pytest.importorskip("sklearn.datasets")
MAIN = pathlib.Path(__file__).resolve().parents[2] / "examples" / "mnist_hogwild" / "main.py"


def test_hogwild_example_trains_from_two_processes(tmp_path):
    run = subprocess.run([sys.executable, str(MAIN), "--epochs", "3", "--lr", "0.2", "--log-interval", "10",
                          "--num-processes", "2", "--save_model"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    pids = set(re.findall(r"^(\d+)\tTrain Epoch: 3 ", run.stdout, re.M))
    assert len(pids) == 2, run.stdout  # both processes trained through the last epoch
    found = re.search(r"Test set: Average loss: ([\d.]+), Accuracy: (\d+)/360 \((\d+)%\)", run.stdout)
    assert found, run.stdout
    assert int(found.group(2)) / 360 > 0.8, run.stdout
    state = ember.load(tmp_path / "digits_hogwild.pt")
    assert set(state) == {"conv1.weight", "conv1.bias", "conv2.weight", "conv2.bias", "fc1.weight", "fc1.bias",
                          "fc2.weight", "fc2.bias"}
