"""Scripted modules as a PyTorch user handles them (issue 22's audit): nn.Module's chaining methods
(`ember.jit.script(m).eval()`, `.train()`, `.to()`, `.double()`...) return the scripted module, not the
eager one inside it, and @ember.jit.export'ed methods survive ember.jit.save / ember.jit.load in a fresh
process. References: the eager module on the same inputs."""
import subprocess
import sys

import ember
import ember.nn as nn


class WithExport(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(3, 2)
        self.offset = 1.5
        self.register_buffer("bias2", ember.tensor([10.0, 20.0]))

    def forward(self, x):
        return self.lin(x)

    @ember.jit.export
    def shifted(self, x, times: int = 2):
        return self.lin(x) * times + self.offset + self.bias2

    @ember.jit.export
    def describe(self) -> str:
        return "offset " + str(self.offset)


def test_chaining_methods_return_the_scripted_module():
    s = ember.jit.script(nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5)))
    assert s.eval() is s and not s.training
    x = ember.randn(3, 4)
    assert ember.equal(s(x), s(x))  # dropout off: the flag reached the graph
    assert s.train() is s and s.training
    assert s.train(False) is s and not s.training
    assert s.double() is s
    assert s(x.double()).dtype == ember.float64
    assert s.to(ember.float32) is s and s.float() is s
    assert s.requires_grad_(False) is s and not any(p.requires_grad for p in s.parameters())
    frozen = ember.jit.freeze(ember.jit.script(nn.Linear(2, 2)).eval())  # the usual one-liner
    assert type(frozen).__name__ == "RecursiveScriptModule"  # as PyTorch's frozen module


def test_exported_methods_saved_and_loaded_in_a_fresh_process(tmp_path):
    m = WithExport().eval()
    s = ember.jit.script(m)
    x = ember.randn(4, 3)
    assert ember.allclose(s.shifted(x), m.shifted(x)) and s.describe() == m.describe()
    path, xpath = str(tmp_path / "m.pt"), str(tmp_path / "x.pt")
    s.save(path)
    ember.save(x, xpath)
    loaded = ember.jit.load(path)
    assert ember.allclose(loaded.shifted(x, 3), m.shifted(x, 3)) and loaded.describe() == "offset 1.5"
    code = (f"import ember; m = ember.jit.load({path!r}); x = ember.load({xpath!r}); "
            "print(m(x).tolist()); print(m.shifted(x).tolist()); print(m.shifted(x, times=3).tolist()); "
            "print(m.describe())")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.splitlines()
    with ember.no_grad():
        assert out == [str(m(x).tolist()), str(m.shifted(x).tolist()), str(m.shifted(x, 3).tolist()), "offset 1.5"]


def test_scripted_embedding_max_norm_renormalizes_rows_and_keeps_gradients():
    ember.manual_seed(0)
    eager, copy = nn.Embedding(6, 3, max_norm=1.0), nn.Embedding(6, 3, max_norm=1.0)
    with ember.no_grad():
        eager.weight.mul_(3.0)
    copy.load_state_dict(eager.state_dict())
    scripted = ember.jit.script(copy)
    x = ember.tensor([[1, 2, 2], [5, 1, 0]])
    want, got = eager(x), scripted(x)
    assert ember.allclose(got, want) and ember.allclose(copy.weight, eager.weight)
    norms = eager.weight.detach().norm(dim=1)
    assert all(abs(norms[i].item() - 1.0) < 1e-5 for i in (0, 1, 2, 5)) and norms[3].item() > 1.0
    want.sum().backward()
    got.sum().backward()
    assert ember.allclose(copy.weight.grad, eager.weight.grad)
