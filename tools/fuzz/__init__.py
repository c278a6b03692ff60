"""A seeded, reproducible fuzzer over ember's op database (core/ops/*.yaml), the rest of ember._C and
ember.nn.functional: random and hostile arguments in child processes, failing on a crash, a hang or
an exception that is not a clean Python one. `python -m tools.fuzz --help`."""
