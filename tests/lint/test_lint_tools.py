"""The checks `make lint` runs fail on what they are for: a planted upward include, a planted ruff
error, a planted 901-line file, a planted import cycle, a planted misformatted C++ line; and pass on
the tree as it is."""
import pathlib
import shutil
import subprocess
import sys

import pytest

from tools.lint import file_size, import_cycles, layers

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(sys.executable).parent


def _csrc(tmp_path, files):
    for name, text in files.items():
        p = tmp_path / "core" / "csrc" / name
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


def test_layers_pass_on_the_tree():
    assert layers.violations(ROOT / "core" / "csrc") == []


def test_layers_fail_on_an_upward_include(tmp_path):
    root = _csrc(tmp_path, {"iter/loop.h": '#include "base/error.h"\n#include "autograd/node.h"\n',
                            "autograd/node.h": '#include "iter/loop.h"\n#include "generated/ops/add.h"\n',
                            "base/error.h": "#include <string>\n"})
    found = layers.violations(root / "core" / "csrc")
    assert len(found) == 1 and "iter/loop.h:2" in found[0] and "from iter/ to autograd/" in found[0]
    assert layers.main([str(root)]) == 1


def test_generated_headers_count_as_their_layer(tmp_path):
    root = _csrc(tmp_path, {"tensor/t.h": '#include "generated/ops/add.h"\n'})
    assert "to kernels/" in layers.violations(root / "core" / "csrc")[0]


def test_file_size_fails_past_800_lines(tmp_path):
    ok, long = tmp_path / "ok.py", tmp_path / "long.py"
    ok.write_text("x = 1\n" * 800)
    long.write_text("x = 1\n" * 901)
    assert file_size.too_long([ok, long]) == [(long, 901)]


def test_file_size_passes_on_the_tree():
    assert file_size.too_long(file_size.tracked(ROOT)) == []


def test_import_cycles_found_and_none_in_the_tree(tmp_path):
    pkg = tmp_path / "core" / "ember"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("from . import a, b\n")
    (pkg / "a.py").write_text("from .b import g\n")
    (pkg / "b.py").write_text("def g():\n    from .a import f\n    return f\n")  # a lazy import closes it
    (pkg / "sub" / "__init__.py").write_text("from .. import a\n")
    assert import_cycles.main([str(tmp_path)]) == 1
    assert import_cycles.cycles(import_cycles.edges(import_cycles._modules("ember", pkg))) == [["ember.a", "ember.b"]]
    assert import_cycles.main([str(ROOT)]) == 0


def _tool(name):
    exe = BIN / name
    if not exe.exists():
        pytest.skip(f"{name} is installed by `make lint` (its wheel), not by the test set-up")
    return str(exe)


def test_ruff_fails_on_a_planted_error(tmp_path):
    ruff = _tool("ruff")
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "good.py").write_text("import os\n\nprint(os.sep)\n")
    assert subprocess.run([ruff, "check", "--quiet", "."], cwd=tmp_path).returncode == 0
    (tmp_path / "bad.py").write_text("import os\n")  # F401, an unused import
    assert subprocess.run([ruff, "check", "--quiet", "."], cwd=tmp_path, capture_output=True).returncode != 0


def test_clang_format_fails_on_a_planted_misformat(tmp_path):
    clang_format = _tool("clang-format")
    shutil.copy(ROOT / ".clang-format", tmp_path / ".clang-format")
    good = tmp_path / "good.cpp"
    good.write_text("int f(int x) { return x + 1; }\n")
    bad = tmp_path / "bad.cpp"
    bad.write_text("int  f( int x ){return x+1;}\n")
    run = lambda f: subprocess.run([clang_format, "--dry-run", "--Werror", str(f)], capture_output=True)
    assert run(good).returncode == 0
    assert run(bad).returncode != 0
