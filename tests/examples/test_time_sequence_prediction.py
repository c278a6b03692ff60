"""PyTorch's examples/time_sequence_prediction (two stacked LSTMCells in double precision unrolled over a
sine wave, trained with LBFGS and a closure, then predicting the wave's future from its own output)
written as the PyTorch program with `ember` in place of `torch`. generate_sine_wave.py's data is made the
same way (phase-shifted sines, saved with torch.save and loaded back; NumPy arrays need
weights_only=False, as in PyTorch 2.6+), with fewer and shorter sequences and a narrower model."""
import numpy as np

import ember as torch
import ember.nn as nn
import ember.optim as optim

HIDDEN = 24


def generate_sine_wave(path, T=20, L=200, N=24):
    np.random.seed(2)
    x = np.empty((N, L), 'int64')
    x[:] = np.array(range(L)) + np.random.randint(-4 * T, 4 * T, N).reshape(N, 1)
    data = np.sin(x / 1.0 / T).astype('float64')
    torch.save(data, open(path, 'wb'))
    return x[:, 0]  # each sequence's phase shift, for checking predictions past the data


class Sequence(nn.Module):
    def __init__(self):
        super(Sequence, self).__init__()
        self.lstm1 = nn.LSTMCell(1, HIDDEN)
        self.lstm2 = nn.LSTMCell(HIDDEN, HIDDEN)
        self.linear = nn.Linear(HIDDEN, 1)
        self.dummy_param = nn.Parameter(torch.empty(0))

    def forward(self, input, future=0):
        outputs = []
        device = self.dummy_param.device
        h_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
        c_t = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
        h_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)
        c_t2 = torch.zeros(input.size(0), HIDDEN, dtype=torch.double).to(device)

        for input_t in input.split(1, dim=1):
            h_t, c_t = self.lstm1(input_t, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        for i in range(future):  # if we should predict the future
            h_t, c_t = self.lstm1(output, (h_t, c_t))
            h_t2, c_t2 = self.lstm2(h_t, (h_t2, c_t2))
            output = self.linear(h_t2)
            outputs += [output]
        outputs = torch.cat(outputs, dim=1)
        return outputs


def test_time_sequence_prediction_trains_with_lbfgs(tmp_path):
    shifts = generate_sine_wave(tmp_path / 'traindata.pt', T=20)
    device = torch.device('cpu')
    np.random.seed(0)
    torch.manual_seed(0)
    data = torch.from_numpy(torch.load(tmp_path / 'traindata.pt', weights_only=False)).to(device)
    assert data.dtype == torch.float64
    input = data[3:, :-1]
    target = data[3:, 1:]
    test_input = data[:3, :-1]
    test_target = data[:3, 1:]
    seq = Sequence().to(device).double()
    criterion = nn.MSELoss().to(device)
    optimizer = optim.LBFGS(seq.parameters(), lr=0.8)
    train_losses, test_losses = [], []
    for i in range(4):
        def closure():
            optimizer.zero_grad()
            out = seq(input)
            loss = criterion(out, target)
            train_losses.append(loss.item())
            loss.backward()
            return loss
        optimizer.step(closure)
        with torch.no_grad():
            future = 40
            pred = seq(test_input, future=future)
            loss = criterion(pred[:, :-future], test_target)
            test_losses.append(loss.item())
            y = pred.cpu().detach().numpy()
    assert y.shape == (3, test_input.size(1) + future) and y.dtype == np.float64
    # a sine of unit amplitude has mean square 0.5: an untrained model's loss is about that
    assert train_losses[0] > 0.2 and train_losses[-1] < 0.01 * train_losses[0], train_losses[::5]
    assert test_losses[-1] < 0.01, test_losses
    # pred[:, j] predicts step j + 1; the free-running future continues the held-out sines
    steps = np.arange(1, y.shape[1] + 1)[None, :] + shifts[:3, None]
    truth = np.sin(steps / 20.0)
    assert np.abs(y[:, :-future] - truth[:, :-future]).max() < 0.3
    assert np.abs(y[:, -future:-future + 15] - truth[:, -future:-future + 15]).max() < 0.3
