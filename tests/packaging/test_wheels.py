"""Each package builds a wheel with build isolation (`pip wheel`, as `make wheels` does), and each domain
package installs alone beside the core in a fresh virtual environment with no other Ember package:
csprng's C++ extension builds against the ember wheel and runs there. Slow (a clean build of the
core in an isolated environment); CI runs it."""
import os
import pathlib
import subprocess
import sys
import venv

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOMAINS = {"csprng": "embercsprng", "vision": "embervision", "audio": "emberaudio", "text": "embertext"}
pytestmark = pytest.mark.slow


def _pip(python, *args, cwd=ROOT):
    subprocess.run([str(python), "-m", "pip", "--disable-pip-version-check", "--quiet", *args], cwd=cwd,
                   check=True)


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    build = "--config-settings=build-dir=build/wheel"  # apart from the editable build in build/<tag>
    _pip(sys.executable, "wheel", "--no-deps", "-w", str(out), build, "./core")
    _pip(sys.executable, "wheel", "--no-deps", "-w", str(out), "--find-links", str(out), build,
         *(f"./{d}" for d in DOMAINS))
    return out


def _wheel(dist, name):
    (found,) = dist.glob(f"{name}-*.whl")
    return found


def _fresh_python(where):
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(where)
    return where / "bin" / "python"


CHECKS = {
    "embercsprng": "g = embercsprng.create_mt19937_generator(42); x = ember.rand(4, generator=g); "
                   "assert x.shape == (4,) and float(x.min()) >= 0 and float(x.max()) < 1",
    "embervision": "import embervision.io as vio; x = ember.arange(48).reshape(3, 4, 4).to(ember.uint8); "
                   "assert bool((vio.decode_png(vio.encode_png(x)) == x).all()); "
                   "assert tuple(vio.decode_jpeg(vio.encode_jpeg(x)).shape) == (3, 4, 4); import av, PIL",
    "emberaudio": "pass",
    "embertext": "from embertext.vocab import build_vocab_from_iterator; "
                 "assert build_vocab_from_iterator([['a', 'b', 'b']]).get_itos() == ['b', 'a']; "
                 "assert embertext._C.GPT2BPEEncoder.pretokenize('Hi there') == ['Hi', ' there']; import sentencepiece",
}


@pytest.mark.parametrize("folder", sorted(DOMAINS))
def test_domain_package_installs_alone_beside_the_core(dist, tmp_path, folder):
    module = DOMAINS[folder]
    python = _fresh_python(tmp_path / "venv")
    _pip(python, "install", str(_wheel(dist, "ember")), str(_wheel(dist, module)), cwd=tmp_path)
    others = [m for m in DOMAINS.values() if m != module]
    code = (f"import importlib.util, ember, {module}\n"
            f"assert {module}.__version__ and {module}.ember_version == ember.__version__\n"
            f"assert not any(importlib.util.find_spec(m) for m in {others!r})\n"
            f"{CHECKS[module]}\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    subprocess.run([str(python), "-c", code], cwd=tmp_path, env=env, check=True)


def test_wheels_carry_one_version_each(dist):
    versions = {}
    for folder, module in {"core": "ember", **DOMAINS}.items():
        text = (ROOT / folder / module / "_version.py").read_text()
        versions[module] = text.split('__version__ = "')[1].split('"')[0]
        assert _wheel(dist, module).name.startswith(f"{module}-{versions[module]}-")
