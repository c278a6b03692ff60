"""DeepSpeech (Hannun et al. 2014): three clipped-ReLU dense layers, a bidirectional ReLU RNN whose two
directions are summed, a fourth dense layer and the class projection; torchaudio's module names."""
import ember
from ember import nn

__all__ = ["DeepSpeech"]


class FullyConnected(nn.Module):
    """Linear -> ReLU clipped at `relu_max_clip` -> dropout."""

    def __init__(self, n_feature: int, n_hidden: int, dropout: float, relu_max_clip: int = 20) -> None:
        super().__init__()
        self.fc = nn.Linear(n_feature, n_hidden, bias=True)
        self.relu_max_clip = relu_max_clip
        self.dropout = dropout

    def forward(self, x):
        x = nn.functional.hardtanh(nn.functional.relu(self.fc(x)), 0, self.relu_max_clip)
        if self.dropout:
            x = nn.functional.dropout(x, self.dropout, self.training)
        return x


class DeepSpeech(nn.Module):
    """forward: (batch, channel=1, time, n_feature) -> (batch, time, n_class) log-probabilities."""

    def __init__(self, n_feature: int, n_hidden: int = 2048, n_class: int = 40, dropout: float = 0.0) -> None:
        super().__init__()
        self.n_hidden = n_hidden
        self.fc1 = FullyConnected(n_feature, n_hidden, dropout)
        self.fc2 = FullyConnected(n_hidden, n_hidden, dropout)
        self.fc3 = FullyConnected(n_hidden, n_hidden, dropout)
        self.bi_rnn = nn.RNN(n_hidden, n_hidden, num_layers=1, nonlinearity="relu", bidirectional=True)
        self.fc4 = FullyConnected(n_hidden, n_hidden, dropout)
        self.out = nn.Linear(n_hidden, n_class)

    def forward(self, x):
        if x.dim() != 4 or x.shape[1] != 1:
            raise ValueError(f"DeepSpeech expects (batch, 1, time, n_feature), got {list(x.shape)}")
        x = self.fc3(self.fc2(self.fc1(x)))
        x = x.squeeze(1).transpose(0, 1)  # time-major for the RNN
        x, _ = self.bi_rnn(x)
        x = x[:, :, : self.n_hidden] + x[:, :, self.n_hidden :]  # forward + backward units
        x = self.out(self.fc4(x))
        return ember.nn.functional.log_softmax(x.permute(1, 0, 2), dim=2)
