"""ember.distributed.elastic: what `python -m ember.distributed.run` (emberrun, PyTorch's torchrun) is made
of: a rendezvous of node agents over a store (rendezvous.py), the local agent that starts, watches and
restarts the workers (agent.py), and the error files through which a worker's traceback reaches the
launcher (multiprocessing/errors.py)."""
