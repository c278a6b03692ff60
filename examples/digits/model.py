"""The recipe's small CNN: two 3x3 convolutions and a max pool, then an adaptive average pool to
4x4 so the same network takes 8x8 digits and 28x28 MNIST images."""
import ember.nn as nn


def small_cnn(num_classes=10):
    return nn.Sequential(
        nn.Conv2d(1, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(4),
        nn.Flatten(),
        nn.Dropout(0.25),
        nn.Linear(64 * 4 * 4, 128), nn.ReLU(),
        nn.Linear(128, num_classes),
    )
