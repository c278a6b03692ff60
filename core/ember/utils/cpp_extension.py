"""Building C++ extensions against the installed ember: `load` compiles sources into a shared
library of ops (registered with EMBER_LIBRARY) and loads it, so they are callable as
ember.ops.<namespace>.<name>. For packages, use CMake with ember.utils.cmake_prefix_path
(find_package(Ember) and ember_add_extension) instead."""
from __future__ import annotations

import hashlib
import os
import shlex
import subprocess
import sys
import tempfile

from .. import ops
from . import include_dir, library_dir


def include_paths() -> list[str]:
    return [include_dir, os.path.join(include_dir, "ember")]


def library_paths() -> list[str]:
    return [library_dir]


def _compile_command(sources, output, extra_cflags, extra_ldflags, extra_include_paths):
    cxx = os.environ.get("CXX", "c++")
    flags = ["-O2", "-std=c++17", "-fPIC", "-shared", "-fopenmp"]
    incs = [f"-I{p}" for p in list(extra_include_paths) + include_paths()]
    libs = [f"-L{library_dir}", "-lember", f"-Wl,-rpath,{library_dir}"]
    return (
        shlex.split(cxx)
        + flags
        + list(extra_cflags)
        + incs
        + list(sources)
        + ["-o", output]
        + libs
        + list(extra_ldflags)
    )


def load(name: str, sources, *, extra_cflags=(), extra_ldflags=(), extra_include_paths=(),
         build_directory: str | None = None, verbose: bool = False) -> str:
    """Compiles `sources` into lib<name>.so (rebuilt only when the sources or flags change), loads it
    with ember.ops.load_library and returns its path. Compiler errors raise RuntimeError with the
    compiler's output."""
    if not name.isidentifier():
        raise ValueError(f"cpp_extension.load: name must be an identifier, got {name!r}")
    if isinstance(sources, (str, os.PathLike)):
        sources = [sources]
    sources = [os.path.abspath(os.fspath(s)) for s in sources]
    if not sources:
        raise ValueError("cpp_extension.load: no sources given")
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError(f"cpp_extension.load: no such source file: {s}")
    build_directory = build_directory or os.path.join(tempfile.gettempdir(), "ember_extensions", name)
    os.makedirs(build_directory, exist_ok=True)
    output = os.path.join(build_directory, f"lib{name}.so")
    cmd = _compile_command(sources, output, extra_cflags, extra_ldflags, extra_include_paths)
    digest = hashlib.sha256("\0".join(cmd).encode())
    for s in sources:
        with open(s, "rb") as f:
            digest.update(f.read())
    stamp = output + ".sha256"
    fresh = os.path.exists(output) and os.path.exists(stamp) and open(stamp).read() == digest.hexdigest()
    if not fresh:
        if verbose:
            print(" ".join(shlex.quote(c) for c in cmd), file=sys.stderr)
        proc = subprocess.run(cmd, capture_output=True, text=True)
        if proc.returncode != 0:
            raise RuntimeError(f"cpp_extension.load: compiling {name} failed:\n{proc.stderr or proc.stdout}")
        with open(stamp, "w") as f:
            f.write(digest.hexdigest())
    ops.load_library(output)
    return output
