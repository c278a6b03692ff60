"""GraphModule.to_folder: the module written out as an importable Python package."""
from __future__ import annotations

import pathlib

from ._code_loading import _import_block

__all__ = ["write_folder"]

_TAB = "    "


def _constructor_repr(module) -> str | None:
    """`Linear(in_features=3, ...)` for the ember.nn modules whose repr is their constructor call."""
    from .. import nn
    safe = (nn.Linear, nn.Conv1d, nn.Conv2d, nn.Conv3d, nn.BatchNorm1d, nn.BatchNorm2d, nn.BatchNorm3d)
    return repr(module) if type(module) in safe else None


def write_folder(gm, folder, module_name: str, python_code) -> None:
    import ember
    folder = pathlib.Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    ember.save(gm.state_dict(), folder / "state_dict.pt")
    model_str = f"import ember\nfrom ember.nn import *\n\n\nclass {module_name}(ember.nn.Module):\n"
    model_str += f"{_TAB}def __init__(self):\n{_TAB * 2}super().__init__()\n"
    for name, module in gm.named_children():
        module_str = _constructor_repr(module)
        if module_str is None:
            module_file = folder / f"{name}.pt"
            ember.save(module, module_file)
            one_line = repr(module).replace("\r", " ").replace("\n", " ")
            # a whole module is not weights-only: the file is ours, so it loads with weights_only=False
            module_str = f"ember.load(r'{module_file}', weights_only=False)  # {one_line}"
        model_str += f"{_TAB * 2}self.{name} = {module_str}\n"
    for name, buf in gm._buffers.items():
        if buf is not None:
            model_str += (f"{_TAB * 2}self.register_buffer('{name}', ember.empty({list(buf.shape)}, "
                          f"dtype={buf.dtype}))\n")
    for name, param in gm._parameters.items():
        if param is not None:
            model_str += (f"{_TAB * 2}setattr(self, '{name}', ember.nn.Parameter(ember.empty("
                          f"{list(param.shape)}, dtype={param.dtype})))\n")
    model_str += f"{_TAB * 2}self.load_state_dict(ember.load(r'{folder}/state_dict.pt'))\n"
    globals_block = "".join(line + "\n" for line in _import_block(python_code.globals).splitlines()
                            if line != "import ember")
    forward = "\n".join(_TAB + line if line else line for line in python_code.src.strip("\n").splitlines())
    model_str = globals_block + model_str + "\n" + forward + "\n"
    (folder / "module.py").write_text(model_str)
    (folder / "__init__.py").write_text("from .module import *\n")
