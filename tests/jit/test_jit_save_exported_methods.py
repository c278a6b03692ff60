"""ember.jit.save keeps a module's @ember.jit.export'ed methods, as TorchScript archives do: a process that
imports nothing but ember loads the archive and calls them, with their own attribute reads, defaults and
tensor constants, and gets the eager module's results."""
import json
import subprocess
import sys
import zipfile

import numpy as np

import ember
import ember.jit
import ember.nn as nn


class WithMethods(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 3)
        self.scale = 2.5
        self.register_buffer("offset", ember.tensor([0.25, -0.5, 1.0]))

    def forward(self, x):
        return self.lin(x)

    @ember.jit.export
    def decode(self, x, steps: int = 2):
        y = self.lin(x) * self.scale
        for _ in range(steps):
            y = y + self.offset + ember.tensor([1.0, 2.0, 3.0])
        return y

    @ember.jit.export
    def width(self) -> int:
        return self.lin.out_features


def test_exported_methods_survive_save_and_load_in_a_fresh_process(tmp_path):
    ember.manual_seed(0)
    m = WithMethods().eval()
    x = ember.randn(2, 4)
    path = tmp_path / "m.pt"
    ember.jit.script(m).save(str(path))
    np.save(tmp_path / "x.npy", x.numpy())
    code = (
        "import ember, numpy as np\n"
        f"m = ember.jit.load({str(path)!r})\n"
        f"x = ember.from_numpy(np.load({str(tmp_path / 'x.npy')!r}))\n"
        f"np.save({str(tmp_path / 'a.npy')!r}, m.decode(x).numpy())\n"
        f"np.save({str(tmp_path / 'b.npy')!r}, m.decode(x, steps=5).numpy())\n"
        "print(m.width(), sorted(n for n in ('decode', 'width') if hasattr(m, n)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[0] == "3 ['decode', 'width']"
    with ember.no_grad():
        np.testing.assert_allclose(np.load(tmp_path / "a.npy"), m.decode(x).numpy(), rtol=1e-6)
        np.testing.assert_allclose(np.load(tmp_path / "b.npy"), m.decode(x, steps=5).numpy(), rtol=1e-6)


def test_archive_lists_the_methods(tmp_path):
    path = tmp_path / "m.pt"
    ember.jit.save(ember.jit.script(WithMethods()), str(path))
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        meta = json.loads(z.read("archive/code/meta.json"))
    assert "archive/code/methods/decode.graph" in names and "archive/code/methods/width.graph" in names
    assert [m["name"] for m in meta["methods"]] == ["decode", "width"]
    assert meta["methods"][0]["defaults"] == {"steps": 2}
    assert meta["version"] == 3  # 3: submodules' forwards (FORMAT.md)

