"""Defaults shared by init_process_group and the rendezvous handlers (PyTorch's values)."""
from datetime import timedelta

default_pg_timeout = timedelta(minutes=30)  # Gloo's default collective timeout in PyTorch
