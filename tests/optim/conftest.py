import pathlib
import sys

# The NumPy references (optim_reference.py) are imported by name from this folder.
HERE = str(pathlib.Path(__file__).resolve().parent)
if HERE not in sys.path:
    sys.path.insert(0, HERE)
