"""Wav2Letter sized for this task: torchaudio's layer layout (a stride-2 front convolution, a stack of same-width
convolutions, one wide convolution, two 1x1 convolutions, a ReLU after each, log-softmax over classes) with widths
and kernels for 40 log-mels at 25 frames/s and 25 words. torchaudio's sizes are for letters from 16 kHz
LibriSpeech at 100 frames/s: 23M parameters, and at 25 frames/s a front kernel of 48 frames (1.9 s, a whole
utterance) and 7.8 s of context in all; it fits the training sentences without recognising new digit strings
(README). Here the context is 2.4 s and an update about ten times cheaper.

forward(x, frames) zeroes every layer's output past each utterance's own length, so a padded batch gives each
utterance exactly what it gives alone: without it the frames near an utterance's end see the padding's activations
(bias through ReLU), which differ with the batch it happens to be in."""
import ember
from ember import nn
from emberaudio.models import Wav2Letter


class SmallWav2Letter(Wav2Letter):
    def __init__(self, num_classes, num_features, channels=128, hidden=256, front_kernel=11, kernel=5, layers=5,
                 wide_kernel=5):
        nn.Module.__init__(self)  # Wav2Letter's own __init__ builds torchaudio's fixed sizes
        for name, k in (("front_kernel", front_kernel), ("kernel", kernel), ("wide_kernel", wide_kernel)):
            if k < 1 or k % 2 == 0:
                raise ValueError(f"{name} must be a positive odd number (same-length padding), got {k}")
        sizes = [(num_features, channels, front_kernel, 2)] + [(channels, channels, kernel, 1)] * layers
        sizes += [(channels, hidden, wide_kernel, 1), (hidden, hidden, 1, 1), (hidden, num_classes, 1, 1)]
        layers_ = []
        for c_in, c_out, k, stride in sizes:
            layers_ += [nn.Conv1d(c_in, c_out, k, stride=stride, padding=k // 2), nn.ReLU()]
        self.acoustic_model = nn.Sequential(*layers_)

    @staticmethod
    def output_frames(frames):
        """Output length for `frames` input frames (int or int tensor): only the stride-2 front convolution (odd
        kernel, half-kernel padding) changes the length."""
        return (frames - 1) // 2 + 1

    def forward(self, x, frames=None):
        """x: (batch, features, time) -> (batch, classes, output frames) log-probabilities. With `frames` (the
        valid input length of each utterance, an int64 tensor) the padding past each length is zero after every
        layer, as it is for an utterance alone."""
        if frames is None:
            return super().forward(x)
        lengths = frames
        for layer in self.acoustic_model:
            x = layer(x)
            if isinstance(layer, nn.Conv1d):
                if layer.stride[0] != 1:
                    lengths = self.output_frames(lengths)
                valid = ember.arange(x.shape[2]).unsqueeze(0) < lengths.unsqueeze(1)
                x = x * valid.unsqueeze(1).to(x.dtype)
        return nn.functional.log_softmax(x, dim=1)
