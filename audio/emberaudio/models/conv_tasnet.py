"""Conv-TasNet (Luo & Mesgarani 2019), non-causal: a learned convolutional encoder, a temporal convolution
network that predicts one sigmoid mask per source, and a transposed-convolution decoder. Module names follow
torchaudio so its checkpoints load."""
from typing import Tuple

import ember
from ember import Tensor, nn

__all__ = ["ConvBlock", "MaskGenerator", "ConvTasNet"]


class ConvBlock(nn.Module):
    """1x1 conv -> PReLU -> gLN -> dilated depthwise conv -> PReLU -> gLN, then 1x1 residual and skip outputs
    (the very last block of the network has no residual output)."""

    def __init__(self, io_channels, hidden_channels, kernel_size, padding, dilation=1, no_residual=False):
        super().__init__()
        self.conv_layers = nn.Sequential(
            nn.Conv1d(io_channels, hidden_channels, kernel_size=1),
            nn.PReLU(),
            nn.GroupNorm(num_groups=1, num_channels=hidden_channels, eps=1e-08),
            nn.Conv1d(hidden_channels, hidden_channels, kernel_size=kernel_size, padding=padding, dilation=dilation,
                      groups=hidden_channels),
            nn.PReLU(),
            nn.GroupNorm(num_groups=1, num_channels=hidden_channels, eps=1e-08),
        )
        self.res_out = None if no_residual else nn.Conv1d(hidden_channels, io_channels, kernel_size=1)
        self.skip_out = nn.Conv1d(hidden_channels, io_channels, kernel_size=1)

    def forward(self, input):
        feature = self.conv_layers(input)
        residual = None if self.res_out is None else self.res_out(feature)
        return residual, self.skip_out(feature)


class MaskGenerator(nn.Module):
    """The TCN: num_stacks repeats of num_layers ConvBlocks with dilations 1, 2, 4, ...; the summed skip outputs
    become (batch, num_sources, input_dim, frames) masks in (0, 1)."""

    def __init__(self, input_dim, num_sources, kernel_size, num_feats, num_hidden, num_layers, num_stacks):
        super().__init__()
        self.input_dim = input_dim
        self.num_sources = num_sources
        self.input_norm = nn.GroupNorm(num_groups=1, num_channels=input_dim, eps=1e-8)
        self.input_conv = nn.Conv1d(input_dim, num_feats, kernel_size=1)
        self.receptive_field = 0
        self.conv_layers = nn.ModuleList([])
        for s in range(num_stacks):
            for layer in range(num_layers):
                dilation = 2**layer
                last = layer == num_layers - 1 and s == num_stacks - 1
                self.conv_layers.append(ConvBlock(num_feats, num_hidden, kernel_size, padding=dilation,
                                                  dilation=dilation, no_residual=last))
                self.receptive_field += kernel_size if s == 0 and layer == 0 else (kernel_size - 1) * dilation
        self.output_prelu = nn.PReLU()
        self.output_conv = nn.Conv1d(num_feats, input_dim * num_sources, kernel_size=1)

    def forward(self, input):
        feats = self.input_conv(self.input_norm(input))
        output = 0.0
        for layer in self.conv_layers:
            residual, skip = layer(feats)
            if residual is not None:
                feats = feats + residual
            output = output + skip
        output = ember.sigmoid(self.output_conv(self.output_prelu(output)))
        return output.view(input.shape[0], self.num_sources, self.input_dim, -1)


class ConvTasNet(nn.Module):
    """forward: (batch, 1, frames) mixture -> (batch, num_sources, frames) separated sources."""

    def __init__(self, num_sources=2, enc_kernel_size=16, enc_num_feats=512, msk_kernel_size=3, msk_num_feats=128,
                 msk_num_hidden_feats=512, msk_num_layers=8, msk_num_stacks=3):
        super().__init__()
        self.num_sources = num_sources
        self.enc_num_feats = enc_num_feats
        self.enc_kernel_size = enc_kernel_size
        self.enc_stride = enc_kernel_size // 2
        self.encoder = nn.Conv1d(1, enc_num_feats, kernel_size=enc_kernel_size, stride=self.enc_stride,
                                 padding=self.enc_stride, bias=False)
        self.mask_generator = MaskGenerator(enc_num_feats, num_sources, msk_kernel_size, msk_num_feats,
                                            msk_num_hidden_feats, msk_num_layers, msk_num_stacks)
        self.decoder = nn.ConvTranspose1d(enc_num_feats, 1, kernel_size=enc_kernel_size, stride=self.enc_stride,
                                          padding=self.enc_stride, bias=False)

    def _align_num_frames_with_strides(self, input: Tensor) -> Tuple[Tensor, int]:
        """Zero-pads the end so the last encoder window ends on a stride boundary; returns (padded, pad count)."""
        batch_size, num_channels, num_frames = input.shape[0], input.shape[1], input.shape[2]
        is_odd = self.enc_kernel_size % 2
        num_strides = (num_frames - is_odd) // self.enc_stride
        remaining = num_frames - (is_odd + num_strides * self.enc_stride)
        if remaining == 0:
            return input, 0
        num_paddings = self.enc_stride - remaining
        pad = ember.zeros(batch_size, num_channels, num_paddings, dtype=input.dtype, device=input.device)
        return ember.cat([input, pad], 2), num_paddings

    def forward(self, input):
        if input.dim() != 3 or input.shape[1] != 1:
            raise ValueError(f"Expected 3D tensor (batch, channel==1, frames). Found: {input.shape}")
        padded, num_pads = self._align_num_frames_with_strides(input)
        batch_size, num_padded_frames = padded.shape[0], padded.shape[2]
        feats = self.encoder(padded)
        masked = self.mask_generator(feats) * feats.unsqueeze(1)
        masked = masked.view(batch_size * self.num_sources, self.enc_num_feats, -1)
        output = self.decoder(masked).view(batch_size, self.num_sources, num_padded_frames)
        return output[..., :-num_pads] if num_pads > 0 else output
