"""Importing an example recipe's modules (examples/<recipe>/<name>.py) in tests, with the recipe's folder
on sys.path while it loads (its modules import each other by plain name)."""
import importlib.util
import pathlib
import sys

EXAMPLES = pathlib.Path(__file__).resolve().parents[1] / "examples"


def recipe_module(recipe, name, tag=""):
    folder = EXAMPLES / recipe
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location(f"{recipe}_{name}{tag}", folder / f"{name}.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod
    finally:
        sys.path.remove(str(folder))
