"""WaveRNN (Kalchbrenner et al. 2018, after fatchord's implementation, as torchaudio has it): a MelResNet and
stretch/smoothing upsampler condition two GRUs that predict each sample's class; `infer` generates audio
sample by sample by multinomial sampling."""
import math
from typing import List, Optional, Tuple

import ember
from ember import Tensor, nn

__all__ = ["ResBlock", "MelResNet", "Stretch2d", "UpsampleNetwork", "WaveRNN"]


class ResBlock(nn.Module):
    def __init__(self, n_freq: int = 128) -> None:
        super().__init__()
        self.resblock_model = nn.Sequential(
            nn.Conv1d(n_freq, n_freq, kernel_size=1, bias=False), nn.BatchNorm1d(n_freq), nn.ReLU(inplace=True),
            nn.Conv1d(n_freq, n_freq, kernel_size=1, bias=False), nn.BatchNorm1d(n_freq))

    def forward(self, specgram):
        return self.resblock_model(specgram) + specgram


class MelResNet(nn.Module):
    """(batch, n_freq, time) -> (batch, n_output, time - kernel_size + 1)."""

    def __init__(self, n_res_block=10, n_freq=128, n_hidden=128, n_output=128, kernel_size=5) -> None:
        super().__init__()
        blocks = [ResBlock(n_hidden) for _ in range(n_res_block)]
        self.melresnet_model = nn.Sequential(
            nn.Conv1d(n_freq, n_hidden, kernel_size=kernel_size, bias=False), nn.BatchNorm1d(n_hidden),
            nn.ReLU(inplace=True), *blocks, nn.Conv1d(n_hidden, n_output, kernel_size=1))

    def forward(self, specgram):
        return self.melresnet_model(specgram)


class Stretch2d(nn.Module):
    """Repeats each frequency bin freq_scale times and each frame time_scale times."""

    def __init__(self, time_scale: int, freq_scale: int) -> None:
        super().__init__()
        self.freq_scale = freq_scale
        self.time_scale = time_scale

    def forward(self, specgram):
        return specgram.repeat_interleave(self.freq_scale, -2).repeat_interleave(self.time_scale, -1)


class UpsampleNetwork(nn.Module):
    """Returns (upsampled spectrogram, upsampled MelResNet features), both (time - kernel_size + 1) * total_scale
    long."""

    def __init__(self, upsample_scales, n_res_block=10, n_freq=128, n_hidden=128, n_output=128, kernel_size=5):
        super().__init__()
        self.total_scale = math.prod(upsample_scales)
        self.indent = (kernel_size - 1) // 2 * self.total_scale
        self.resnet = MelResNet(n_res_block, n_freq, n_hidden, n_output, kernel_size)
        self.resnet_stretch = Stretch2d(self.total_scale, 1)
        layers = []
        for scale in upsample_scales:
            conv = nn.Conv2d(1, 1, kernel_size=(1, scale * 2 + 1), padding=(0, scale), bias=False)
            with ember.no_grad():
                conv.weight.fill_(1.0 / (scale * 2 + 1))  # starts as a moving average over the repeated frames
            layers += [Stretch2d(scale, 1), conv]
        self.upsample_layers = nn.Sequential(*layers)

    def forward(self, specgram):
        resnet_output = self.resnet_stretch(self.resnet(specgram).unsqueeze(1)).squeeze(1)
        upsampled = self.upsample_layers(specgram.unsqueeze(1)).squeeze(1)
        return upsampled[:, :, self.indent : -self.indent], resnet_output


class WaveRNN(nn.Module):
    """forward(waveform (batch, 1, T), specgram (batch, 1, n_freq, frames)) -> (batch, 1, T, n_classes) logits,
    T = (frames - kernel_size + 1) * hop_length. The product of upsample_scales must equal hop_length."""

    def __init__(self, upsample_scales, n_classes, hop_length, n_res_block=10, n_rnn=512, n_fc=512, kernel_size=5,
                 n_freq=128, n_hidden=128, n_output=128) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self._pad = (kernel_size - 1 if kernel_size % 2 else kernel_size) // 2
        self.n_rnn = n_rnn
        self.n_aux = n_output // 4
        self.hop_length = hop_length
        self.n_classes = n_classes
        self.n_bits = int(math.log2(self.n_classes))
        total_scale = math.prod(upsample_scales)
        if total_scale != self.hop_length:
            raise ValueError(f"Expected: total_scale == hop_length, but found {total_scale} != {hop_length}")
        self.upsample = UpsampleNetwork(upsample_scales, n_res_block, n_freq, n_hidden, n_output, kernel_size)
        self.fc = nn.Linear(n_freq + self.n_aux + 1, n_rnn)
        self.rnn1 = nn.GRU(n_rnn, n_rnn, batch_first=True)
        self.rnn2 = nn.GRU(n_rnn + self.n_aux, n_rnn, batch_first=True)
        self.relu1 = nn.ReLU(inplace=True)
        self.relu2 = nn.ReLU(inplace=True)
        self.fc1 = nn.Linear(n_rnn + self.n_aux, n_fc)
        self.fc2 = nn.Linear(n_fc + self.n_aux, n_fc)
        self.fc3 = nn.Linear(n_fc, self.n_classes)

    def _aux_parts(self, aux: Tensor, dim: int) -> List[Tensor]:
        return [aux.narrow(dim, self.n_aux * i, self.n_aux) for i in range(4)]

    def forward(self, waveform: Tensor, specgram: Tensor) -> Tensor:
        if waveform.size(1) != 1:
            raise ValueError("Require the input channel of waveform is 1")
        if specgram.size(1) != 1:
            raise ValueError("Require the input channel of specgram is 1")
        waveform = waveform.squeeze(1)
        specgram = specgram.squeeze(1)
        batch_size = waveform.size(0)
        h1 = ember.zeros(1, batch_size, self.n_rnn, dtype=waveform.dtype, device=waveform.device)
        h2 = ember.zeros(1, batch_size, self.n_rnn, dtype=waveform.dtype, device=waveform.device)
        specgram, aux = self.upsample(specgram)
        specgram = specgram.transpose(1, 2)
        aux = aux.transpose(1, 2)
        parts = self._aux_parts(aux, 2)
        a1, a2, a3, a4 = parts[0], parts[1], parts[2], parts[3]
        x = self.fc(ember.cat([waveform.unsqueeze(-1), specgram, a1], dim=-1))
        res = x
        x, _ = self.rnn1(x, h1)
        x = x + res
        res = x
        x, _ = self.rnn2(ember.cat([x, a2], dim=-1), h2)
        x = x + res
        x = self.relu1(self.fc1(ember.cat([x, a3], dim=-1)))
        x = self.relu2(self.fc2(ember.cat([x, a4], dim=-1)))
        return self.fc3(x).unsqueeze(1)

    @ember.jit.export
    def infer(self, specgram: Tensor, lengths: Optional[Tensor] = None) -> Tuple[Tensor, Optional[Tensor]]:
        """Generates (batch, 1, frames * hop_length) audio in [-1, 1] from (batch, n_freq, frames) by sampling each
        sample's class from the softmax (ember.multinomial on the default generator, in eager and scripted code
        alike); `lengths` (frames per item) scale to output lengths. Eager calls record no gradients (the loop
        would keep every step's graph); scripted code cannot switch grad mode, so call it under ember.no_grad()."""
        if ember.jit.is_scripting():
            return self._generate(specgram, lengths)
        return self._generate_without_grad(specgram, lengths)

    @ember.jit.unused
    def _generate_without_grad(self, specgram: Tensor, lengths: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
        with ember.no_grad():
            return self._generate(specgram, lengths)

    def _generate(self, specgram: Tensor, lengths: Optional[Tensor]) -> Tuple[Tensor, Optional[Tensor]]:
        if specgram.dim() != 3:
            raise ValueError(f"infer expects a (batch, n_freq, frames) spectrogram, got a {specgram.dim()}-D tensor")
        device, dtype = specgram.device, specgram.dtype
        specgram = nn.functional.pad(specgram, [self._pad, self._pad])
        specgram, aux = self.upsample(specgram)
        if lengths is not None:
            lengths = lengths * self.upsample.total_scale
        b_size, seq_len = specgram.size(0), specgram.size(2)
        h1 = ember.zeros([1, b_size, self.n_rnn], device=device, dtype=dtype)
        h2 = ember.zeros([1, b_size, self.n_rnn], device=device, dtype=dtype)
        x = ember.zeros([b_size, 1], device=device, dtype=dtype)
        aux_split = self._aux_parts(aux, 1)
        output: List[Tensor] = []
        for i in range(seq_len):
            m_t = specgram[:, :, i]
            a1_t, a2_t, a3_t, a4_t = [a[:, :, i] for a in aux_split]
            x = self.fc(ember.cat([x, m_t, a1_t], dim=1))
            _, h1 = self.rnn1(x.unsqueeze(1), h1)
            x = x + h1[0]
            _, h2 = self.rnn2(ember.cat([x, a2_t], dim=1).unsqueeze(1), h2)
            x = x + h2[0]
            x = nn.functional.relu(self.fc1(ember.cat([x, a3_t], dim=1)))
            x = nn.functional.relu(self.fc2(ember.cat([x, a4_t], dim=1)))
            posterior = nn.functional.softmax(self.fc3(x), dim=1)
            x = ember.multinomial(posterior, 1).to(dtype)
            x = 2 * x / (2**self.n_bits - 1.0) - 1.0  # class index -> [-1, 1]
            output.append(x)
        return ember.stack(output).permute(1, 2, 0), lengths
