"""Wav2Letter (Collobert et al. 2016): a stack of 1-D convolutions ending in per-frame class log-probabilities,
with torchaudio's layer layout so state dicts carry over."""
from ember import nn

__all__ = ["Wav2Letter"]


def _conv_relu(in_channels, out_channels, kernel_size, stride=1, padding=0):
    return [nn.Conv1d(in_channels, out_channels, kernel_size, stride=stride, padding=padding), nn.ReLU(inplace=True)]


class Wav2Letter(nn.Module):
    """input_type "waveform" adds a front convolution (kernel 250, stride 160) that learns the filterbank;
    "power_spectrum" / "mfcc" take `num_features` channels directly. forward: (batch, num_features, time) ->
    (batch, num_classes, frames) log-probabilities over classes."""

    def __init__(self, num_classes: int = 40, input_type: str = "waveform", num_features: int = 1) -> None:
        super().__init__()
        if input_type not in ("waveform", "power_spectrum", "mfcc"):
            raise ValueError(f"input_type must be 'waveform', 'power_spectrum' or 'mfcc', got {input_type!r}")
        first = 250 if input_type == "waveform" else num_features
        layers = _conv_relu(first, 250, 48, stride=2, padding=23)
        for _ in range(7):
            layers += _conv_relu(250, 250, 7, padding=3)
        layers += _conv_relu(250, 2000, 32, padding=16)
        layers += _conv_relu(2000, 2000, 1)
        layers += _conv_relu(2000, num_classes, 1)
        acoustic_model = nn.Sequential(*layers)
        if input_type == "waveform":
            front = nn.Sequential(*_conv_relu(num_features, 250, 250, stride=160, padding=45))
            self.acoustic_model = nn.Sequential(front, acoustic_model)
        else:
            self.acoustic_model = acoustic_model

    def forward(self, x):
        return nn.functional.log_softmax(self.acoustic_model(x), dim=1)
