"""Imports every entries module so each registers its OpInfos."""
import importlib
import pathlib

for _p in sorted(pathlib.Path(__file__).parent.glob("*.py")):
    if _p.stem != "__init__":
        importlib.import_module(f"{__name__}.{_p.stem}")
